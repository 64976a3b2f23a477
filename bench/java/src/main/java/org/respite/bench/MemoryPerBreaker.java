package org.respite.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import org.respite.Gate;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;

/**
 * The memory one breaker holds: respite's Gate (a small Java object and
 * its native gate) and resilience4j's CircuitBreaker, made and kept until
 * they hold at least 16 MB, after a first one of each (what is paid once). Java heap: used heap after a GC; native: the
 * growth of the process's resident memory, which the heap does not move
 * when the JVM runs with a fixed, pre-touched heap:
 *
 * <pre>java -Xms512m -Xmx512m -XX:+AlwaysPreTouch -cp benchmarks.jar org.respite.bench.MemoryPerBreaker</pre>
 *
 * Lines starting with "memory" are what scripts/bench.sh tabulates.
 */
public final class MemoryPerBreaker {
    private static final long GROWTH = 16L << 20;
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private static long resident() throws Exception {
        String[] statm = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
        return Long.parseLong(statm[1]) * 4096; // 4 KB pages (x86-64 Linux)
    }

    private static long heapUsed() {
        System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed();
    }

    private static void measure(String label, IntFunction<Object> make, List<Gate> toClose) throws Exception {
        // One made first, so that what is paid once (classes, the JNI library and what it maps) is not counted.
        Object first = make.apply(-1);
        long heap0 = heapUsed();
        long rss0 = resident();
        List<Object> kept = new ArrayList<>();
        long heap = 0;
        long rss = 0;
        while (kept.size() < 200_000) {
            for (int i = 0; i < 500; i++)
                kept.add(make.apply(kept.size()));
            heap = heapUsed() - heap0;
            rss = resident() - rss0;
            if (heap + rss >= GROWTH)
                break;
        }
        double perHeap = (double) heap / kept.size();
        double perNative = (double) rss / kept.size();
        System.out.printf("  %-30s %9.0f bytes: %.0f Java heap + %.0f native (%d made)%n", label, perHeap + perNative,
                perHeap, perNative, kept.size());
        System.out.printf("memory\tJava\t%s\t%.0f%n", label, perHeap + perNative);
        kept.add(first);
        for (Object o : kept)
            if (o instanceof Gate g)
                toClose.add(g);
    }

    public static void main(String[] args) throws Exception {
        System.out.println("memory per breaker (made and kept until they hold 16 MB):");
        List<Gate> gates = new ArrayList<>();
        measure("respite Gate", i -> Gate.builder().build(), gates);
        CircuitBreakerConfig config = CircuitBreakerConfig.custom().failureRateThreshold(50).slidingWindowSize(100)
                .waitDurationInOpenState(Duration.ofSeconds(60)).build();
        measure("resilience4j CircuitBreaker", i -> CircuitBreaker.of("b" + i, config), gates);
        gates.forEach(Gate::close);
    }
}
