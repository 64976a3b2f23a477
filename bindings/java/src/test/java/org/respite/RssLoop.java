package org.respite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The loops of issue 14 item 4, run by MemoryTest in a JVM of its own with a
 * small, pre-touched heap: prints how far the resident set grew (kB) over
 * each loop after a warm-up, so native memory that close() fails to free
 * shows up undiluted by the heap.
 */
final class RssLoop {
    private RssLoop() {
    }

    public static void main(String[] args) throws IOException {
        int n = Integer.parseInt(args[0]);
        createAndClose(n / 10);
        long before = residentKb();
        createAndClose(n);
        long createClose = residentKb() - before;

        try (Gate gate = Gate.builder().build()) {
            admitAndReport(gate, n / 10);
            before = residentKb();
            admitAndReport(gate, n);
        }
        long checks = residentKb() - before;
        System.out.println("create_close_kb=" + createClose + " checks_kb=" + checks);
    }

    private static void createAndClose(int n) {
        for (int i = 0; i < n; i++) {
            try (Gate g = Gate.builder().build()) {
                g.admit();
            }
        }
    }

    private static void admitAndReport(Gate gate, int n) {
        for (int i = 0; i < n; i++) {
            gate.report(gate.admit(), Outcome.SUCCESS);
            gate.check();
            gate.stats();
        }
    }

    private static long residentKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
