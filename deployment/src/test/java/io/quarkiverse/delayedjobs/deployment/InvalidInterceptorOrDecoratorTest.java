package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.annotation.Priority;
import jakarta.decorator.Decorator;
import jakarta.decorator.Delegate;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A {@code @Delayed} method on an interceptor or a decorator is a build error that names it. (Before, the interceptor
 * was made a {@code @Singleton} like any class with a {@code @Delayed} method, and ArC refused it for its scope without
 * a word of {@code @Delayed}.)
 */
public class InvalidInterceptorOrDecoratorTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Logged.class, LoggingInterceptor.class, Greeter.class,
                    PlainGreeter.class, LoudGreeter.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("A @Delayed method must not be declared on an interceptor or a decorator: CDI makes no bean"
                            + " of it to run jobs on", LoggingInterceptor.class, "audit"),
                    problem("A @Delayed method must not be declared on an interceptor or a decorator: CDI makes no bean"
                            + " of it to run jobs on", LoudGreeter.class, "remind")));

    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ ElementType.TYPE, ElementType.METHOD })
    public @interface Logged {
    }

    @Logged
    @Interceptor
    @Priority(1)
    public static class LoggingInterceptor {

        @AroundInvoke
        Object around(InvocationContext context) throws Exception {
            return context.proceed();
        }

        @Delayed("audit")
        void audit(String entry) {
        }
    }

    public interface Greeter {
        String greet(String name);
    }

    @ApplicationScoped
    public static class PlainGreeter implements Greeter {
        @Override
        public String greet(String name) {
            return "hello " + name;
        }
    }

    @Decorator
    @Priority(1)
    public abstract static class LoudGreeter implements Greeter {

        @Inject
        @Delegate
        Greeter delegate;

        @Override
        public String greet(String name) {
            return delegate.greet(name).toUpperCase();
        }

        @Delayed("reminders")
        void remind(String name) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
