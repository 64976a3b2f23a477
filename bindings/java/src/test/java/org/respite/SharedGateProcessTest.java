package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Two JVMs share one gate (spec section 9): failures reported in one open it for the other. */
class SharedGateProcessTest {
    /** A running SharedGateChild: one command line in, one answer line out. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final PrintStream commands;
        final BufferedReader answers;
        final long pid;

        Child(Path file) throws IOException {
            String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    SharedGateChild.class.getName(), file.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String ready = answers.readLine();
            assertNotNull(ready, "the child JVM exited before opening the gate");
            assertTrue(ready.startsWith("ready "), ready);
            pid = Long.parseLong(ready.substring(6));
        }

        String ask(String command) throws IOException {
            commands.println(command);
            String answer = answers.readLine();
            assertNotNull(answer, "the child JVM exited on " + command);
            return answer;
        }

        @Override
        public void close() throws InterruptedException {
            commands.close(); // end of input: the child closes its gate and exits
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    @Timeout(120)
    void failuresInOneJvmOpenTheGateForTheOther(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gates");
        try (Child one = new Child(file); Child other = new Child(file)) {
            assertNotEquals(one.pid, other.pid);
            assertEquals("admitted", other.ask("call"));
            assertEquals("closed", one.ask("fail"));
            assertEquals("closed", other.ask("fail")); // failures count together, whichever JVM saw them
            assertEquals("open", one.ask("fail"));
            assertEquals("open", other.ask("state"));
            String refused = other.ask("call");
            assertTrue(refused.startsWith("refused "), refused);
            double retryAfter = Double.parseDouble(refused.substring(8));
            assertTrue(retryAfter > 0 && retryAfter <= 30, refused);
            assertTrue(one.process.isAlive() && other.process.isAlive());
        }
        try (Gate mine = SharedGateChild.open(file.toString())) { // the state stays in the file (H10)
            assertEquals(GateState.OPEN, mine.state());
        }
    }
}
