package io.quarkiverse.delayedjobs;

/**
 * Thrown by a handler (or its {@code Uni} or {@code CompletionStage} failing with it) when retrying cannot help: the
 * customer was deleted, the order is already paid. The job goes to the dead letters at once, whatever attempts it has
 * left, with this exception as its last error; for a recurring job, the occurrence is given up and the next one
 * armed. Recognised anywhere in the failure's chain of causes, so that wrapping by an interceptor keeps its meaning.
 */
public class NonRetryableJobException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NonRetryableJobException(String message) {
        super(message);
    }

    public NonRetryableJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
