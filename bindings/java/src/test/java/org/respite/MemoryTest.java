package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Issue 14 item 4: 1M x {@code try (Gate g = Gate.builder().build()) { g.admit(); }} under -Xmx64m
 * reached gigabytes of RSS while freeing waited for a GC. Shortened to 200k here, with the same
 * small heap (so the Java side cannot hold much): the resident set must stay flat.
 */
class MemoryTest {
    private static final int ITERATIONS = 200_000;
    private static final long BOUND_KB = 16 * 1024;
    private static final Pattern RESULT = Pattern.compile("create_close_kb=(-?\\d+) checks_kb=(-?\\d+)");

    @Test
    void createCloseAndCheckLoopsStayFlatInRss() throws IOException, InterruptedException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch",
                "-XX:+UseSerialGC", "-cp", classPath, RssLoop.class.getName(), Integer.toString(ITERATIONS))
                .redirectErrorStream(true).start();
        child.getOutputStream().close();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the loop did not finish");
        assertEquals(0, child.exitValue(), out);
        Matcher m = RESULT.matcher(out);
        assertTrue(m.find(), out);
        long createClose = Long.parseLong(m.group(1));
        long checks = Long.parseLong(m.group(2));
        assertTrue(createClose < BOUND_KB, ITERATIONS + " gates created and closed grew RSS by " + createClose + " kB");
        assertTrue(checks < BOUND_KB, ITERATIONS + " admit/report/check/stats grew RSS by " + checks + " kB");
    }
}
