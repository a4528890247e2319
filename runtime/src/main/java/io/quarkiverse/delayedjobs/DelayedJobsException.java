package io.quarkiverse.delayedjobs;

/**
 * A failure of Redis or of the job protocol, carrying the cause. Bad arguments are reported as
 * {@link IllegalArgumentException} instead.
 */
public class DelayedJobsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public DelayedJobsException(String message, Throwable cause) {
        super(message, cause);
    }

    public DelayedJobsException(String message) {
        super(message);
    }
}
