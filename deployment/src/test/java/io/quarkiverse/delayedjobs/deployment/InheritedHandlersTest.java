package io.quarkiverse.delayedjobs.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.deployment.library.LibraryHandler;
import io.quarkiverse.delayedjobs.runtime.HandlerDefinition;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.test.RedisTestServer;
import io.quarkus.test.Mock;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Handlers a bean inherits in the shapes javac and CDI make of ordinary code: each queue has its one handler, and it
 * runs the jobs on the bean that inherits it.
 */
public class InheritedHandlersTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(
                    jar -> jar.addClasses(Base.class, PublicHandler.class, Inbox.class, TextInbox.class, FromLibrary.class,
                            Onboarding.class, MockOnboarding.class, Billing.class, OtherBilling.class, RedisTestServer.class))
            // A dependency without beans.xml or an index of its own: Quarkus does not index it.
            .withAdditionalDependency(jar -> jar.addClass(LibraryHandler.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "inherited-handlers");

    static final BlockingQueue<String> ran = new ArrayBlockingQueue<>(10);

    /** Package-private, as a shared base class kept out of a package's API often is. */
    abstract static class Base {
        @Delayed("visibility")
        public void handle(String text) {
            ran.add(getClass().getSimpleName() + ":" + text);
        }
    }

    /**
     * Public: javac gives it a synthetic bridge {@code handle(String)} that calls {@code Base#handle()}, with a copy of
     * its annotations. The bridge overrides nothing, and neither does an overload of the same arity beside it.
     */
    @ApplicationScoped
    public static class PublicHandler extends Base {
        public void handle(Integer number) {
            throw new UnsupportedOperationException("not a handler");
        }
    }

    /** Generic: a subclass names the type of the payload. */
    abstract static class Inbox<T> {
        @Delayed("inbox")
        void receive(T message) {
            throw new UnsupportedOperationException("overridden");
        }
    }

    /**
     * javac gives it a synthetic bridge {@code receive(Object)} that calls {@code receive(String)}: the bridge overrides
     * {@code Inbox#receive()}, so the queue has one handler, this one, even beside an overload of the same arity.
     */
    @ApplicationScoped
    static class TextInbox extends Inbox<String> {
        @Delayed("inbox")
        @Override
        void receive(String message) {
            ran.add(getClass().getSimpleName() + ":" + message);
        }

        void receive(Integer number) {
            throw new UnsupportedOperationException("not a handler");
        }
    }

    /** Its superclass is in no Jandex index. */
    @ApplicationScoped
    static class FromLibrary extends LibraryHandler {
    }

    @ApplicationScoped
    static class Onboarding {
        @Delayed("onboarding")
        void send(String text) {
            ran.add(getClass().getSimpleName() + ":" + text);
        }
    }

    /** A test double as the Quarkus docs show it: {@code @Mock} is an enabled {@code @Alternative}. */
    @Mock
    static class MockOnboarding extends Onboarding {
    }

    @ApplicationScoped
    static class Billing {
        @Delayed("billing")
        void bill(String text) {
            ran.add(getClass().getSimpleName() + ":" + text);
        }
    }

    /** An alternative not selected replaces nothing. */
    @Alternative
    @ApplicationScoped
    static class OtherBilling extends Billing {
    }

    @Inject
    HandlerRegistry registry;

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aPublicClassRunsTheHandlerOfItsPackagePrivateSuperclass() throws InterruptedException {
        assertEquals(List.of("billing", "inbox", "library", "onboarding", "visibility"),
                registry.handlers().stream().map(HandlerDefinition::queue).sorted().toList());
        scheduler.schedule("visibility", "1", "ada", Duration.ZERO);
        assertEquals("PublicHandler:ada", ran.poll(20, TimeUnit.SECONDS));
    }

    @Test
    void aGenericOverrideIsTheHandler() throws InterruptedException {
        scheduler.schedule("inbox", "1", "edsger", Duration.ZERO);
        assertEquals("TextInbox:edsger", ran.poll(20, TimeUnit.SECONDS));
    }

    @Test
    void aBeanRunsTheHandlerOfASuperclassOutsideTheIndex() throws InterruptedException {
        scheduler.schedule("library", "1", "grace", Duration.ZERO);
        assertEquals("FromLibrary:grace", LibraryHandler.RAN.poll(20, TimeUnit.SECONDS));
    }

    @Test
    void anAlternativeSubclassTakesOverTheHandlerOfTheBeanItReplaces() throws InterruptedException {
        scheduler.schedule("onboarding", "1", "alan", Duration.ZERO);
        assertEquals("MockOnboarding:alan", ran.poll(20, TimeUnit.SECONDS));
        scheduler.schedule("billing", "1", "barbara", Duration.ZERO);
        assertEquals("Billing:barbara", ran.poll(20, TimeUnit.SECONDS));
    }
}
