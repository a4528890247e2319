package io.quarkiverse.delayedjobs.test;

import java.util.List;

import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;

/**
 * The Micrometer extension with its Prometheus registry, for the tests of the metrics
 * ({@code QuarkusUnitTest#setForcedDependencies}): every other test runs without Micrometer.
 */
final class Micrometer {

    static final List<Dependency> WITH_PROMETHEUS = List.of(
            Dependency.of("io.quarkus", "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion()));

    private Micrometer() {
    }
}
