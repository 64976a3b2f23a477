package org.respite.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.respite.CheckedSupplier;
import org.respite.Gate;
import org.respite.Outcome;
import org.respite.internal.NativeMemory;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;

/**
 * A protected no-op in paired rounds: every round times every case once, in
 * an order that rotates from round to round, after a warm-up that lets the
 * JIT compile every loop. A case's overhead is its time above the bare
 * call's in the same round; per round, respite's overhead is divided by the
 * smaller of resilience4j's two (decorated, by hand); the figures are the
 * min / median / max of those ratios (target: at most 0.15). JMH's view of
 * the same calls is {@link GateBenchmark}; this one pairs the rounds.
 *
 * <pre>java -cp benchmarks.jar org.respite.bench.PairedRounds [calls per round] [rounds]</pre>
 *
 * Lines starting with "result" are the summary scripts/bench.sh tabulates.
 */
public final class PairedRounds {
    private static int value = 1;
    private static volatile long sink;

    private static int noop() {
        return value;
    }

    /** One case: n protected calls. */
    private interface Loop {
        long run(long n);
    }

    private record Case(String name, Loop loop) {
    }

    public static void main(String[] args) {
        long calls = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;

        Gate gate = Gate.builder().build();
        CircuitBreaker breaker = CircuitBreaker.of("bench", CircuitBreakerConfig.custom()
                .failureRateThreshold(50).slidingWindowSize(100).waitDurationInOpenState(Duration.ofSeconds(60))
                .build());
        Supplier<Integer> decorated = CircuitBreaker.decorateSupplier(breaker, PairedRounds::noop);
        CheckedSupplier<Integer, RuntimeException> work = PairedRounds::noop;

        List<Case> cases = List.of(
                new Case("bare call", n -> {
                    long sum = 0;
                    for (long i = 0; i < n; i++) sum += noop();
                    return sum;
                }),
                new Case("respite gate.call", n -> {
                    long sum = 0;
                    for (long i = 0; i < n; i++) sum += gate.call(work);
                    return sum;
                }),
                new Case("respite admit + report", n -> {
                    long sum = 0;
                    for (long i = 0; i < n; i++) {
                        long permit = gate.admit();
                        sum += noop();
                        gate.report(permit, Outcome.SUCCESS);
                    }
                    return sum;
                }),
                new Case("resilience4j decorated", n -> {
                    long sum = 0;
                    for (long i = 0; i < n; i++) sum += decorated.get();
                    return sum;
                }),
                new Case("resilience4j by hand", n -> {
                    long sum = 0;
                    for (long i = 0; i < n; i++) {
                        breaker.acquirePermission();
                        long start = System.nanoTime();
                        sum += noop();
                        breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                    }
                    return sum;
                }));

        for (int w = 0; w < 3; w++)  // warm-up: every loop compiled
            for (Case c : cases) sink += c.loop().run(calls / 4);

        int k = cases.size();
        double[][] ns = new double[k][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int j = 0; j < k; j++) {
                int i = (r + j) % k;
                long start = System.nanoTime();
                sink += cases.get(i).loop().run(calls);
                ns[i][r] = (double) (System.nanoTime() - start) / calls;
            }
        }

        double[] bestPeer = new double[rounds];
        for (int r = 0; r < rounds; r++)
            bestPeer[r] = Math.min(ns[3][r], ns[4][r]) - ns[0][r];
        System.out.printf("Java %s (the gate's words read through %s), %d calls x %d paired rounds, order rotating (medians)%n",
                System.getProperty("java.version"), NativeMemory.kind(), calls, rounds);
        System.out.printf("%-26s %9s %9s   %s%n", "case", "ns/call", "overhead", "overhead / resilience4j's per round");
        List<String> results = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            double[] over = new double[rounds];
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                over[r] = ns[i][r] - ns[0][r];
                ratio[r] = over[r] / bestPeer[r];
            }
            String spread = i == 0 ? "" : String.format("min %.2f  median %.2f  max %.2f", min(ratio), median(ratio), max(ratio));
            System.out.printf("%-26s %9.1f %9.1f   %s%n", cases.get(i).name(), median(ns[i]), median(over), spread);
            if (i == 1 || i == 2)
                results.add(String.format("result\tJava %d: %s overhead <= 0.15x resilience4j's\t%.1f ns vs %.1f ns: "
                        + "%.2fx median (min %.2f, max %.2f) of %d paired rounds\t%s", Runtime.version().feature(),
                        cases.get(i).name().substring(8),
                        median(over), median(bestPeer), median(ratio), min(ratio), max(ratio), rounds,
                        median(ratio) <= 0.15 ? "met" : "NOT met"));
        }
        results.forEach(System.out::println);
        if (gate.stats().refused() != 0)
            throw new IllegalStateException("the gate refused a call");
        gate.close();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }
}
