package org.respite;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Sender's gate on a shared file (spec section 9) is the one every handle on that file sees. */
class SharedSenderGateTest extends FaultServerTest {
    @Test
    void failedSendsOpenTheGateForEveryHandleOnTheFile(@TempDir Path dir) throws InterruptedException {
        server.script("down");
        String file = dir.resolve("gates").toString();
        try (Gate watcher = Gate.builder(Profile.USAGE_SHARING).name("collector").sharedPath(file)
                     .failuresToEnterRecovery(1).build(); // as another process's handle would
             Sender sender = Sender.builder(server.url).minEntriesPerMessage(1).sharedPath(file)
                     .gateSetting("name", "collector").failuresToEnterRecovery(1).build()) {
            sender.enqueue("one");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (watcher.state() != GateState.OPEN) {
                assertTrue(System.nanoTime() < deadline, "the sender's failed send did not open the shared gate");
                Thread.sleep(20);
            }
        }
    }
}
