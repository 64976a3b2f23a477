package org.respite.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.respite.Gate;
import org.respite.Outcome;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;

/**
 * Overhead of protecting a no-op call, in one JVM and one run: the bare call,
 * respite's Gate (admit + report, and the call helper), and resilience4j's
 * CircuitBreaker (decorated supplier, and acquire + onSuccess by hand).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class GateBenchmark {
    private Gate gate;
    private CircuitBreaker breaker;
    private Supplier<Integer> decorated;
    private int value;

    @Setup
    public void setUp() {
        gate = Gate.builder().build();
        breaker = CircuitBreaker.of("bench", CircuitBreakerConfig.custom()
                .failureRateThreshold(50).slidingWindowSize(100).waitDurationInOpenState(Duration.ofSeconds(60))
                .build());
        decorated = CircuitBreaker.decorateSupplier(breaker, this::noop);
    }

    @TearDown
    public void tearDown() {
        gate.close();
    }

    private int noop() {
        return value;
    }

    @Benchmark
    public int baseline() {
        return noop();
    }

    /** admit() and report() each cross into C once and read the core's clock there. */
    @Benchmark
    public int respiteAdmitReport() {
        long permit = gate.admit();
        int result = noop();
        gate.report(permit, Outcome.SUCCESS);
        return result;
    }

    /** The same with the caller's clock: what the two clock reads cost. */
    @Benchmark
    public int respiteAdmitReportGivenNow() {
        long permit = gate.admit(1.0);
        int result = noop();
        gate.report(permit, Outcome.SUCCESS, 0, 1.0);
        return result;
    }

    /** One read of the monotonic clock (System.nanoTime, the core's clock), for scale. */
    @Benchmark
    public long clockRead() {
        return System.nanoTime();
    }

    @Benchmark
    public int respiteCall() {
        return gate.call(this::noop);
    }

    @Benchmark
    public int resilience4jDecorated() {
        return decorated.get();
    }

    @Benchmark
    public void resilience4jByHand(Blackhole hole) {
        breaker.acquirePermission();
        long start = System.nanoTime();
        hole.consume(noop());
        breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
}
