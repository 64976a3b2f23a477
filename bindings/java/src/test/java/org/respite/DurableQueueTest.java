package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The durable queue (spec section 10): queuePath keeps the events in an SQLite file that outlives the handle. */
class DurableQueueTest extends FaultServerTest {
    @TempDir
    Path dir;

    /** The batch's event ids (L3). */
    private static List<Long> ids(Batch batch) {
        return IntStream.range(0, batch.size()).mapToObj(batch::id).toList();
    }

    @Test
    void eventsAndFiguresOutliveTheHandle() {
        String path = dir.resolve("usage.db").toString();
        try (Queue first = Queue.builder().queuePath(path).durability("full").build()) {
            first.enqueue("one");
            first.enqueue("two");
            first.enqueue("three");
            assertEquals(1, first.stats().durable());
        } // closed: the events stay in the file (L7)

        try (Queue second = Queue.builder().queuePath(path).build()) {
            assertEquals(3, second.pending());
            QueueStats stats = second.stats();
            assertEquals(3, stats.accepted());
            assertEquals(3, stats.pending());
            assertEquals(0, stats.delivered());
            assertEquals(0, stats.corruptSetAside());
            assertTrue(stats.balanced());
            try (Batch batch = second.take(10)) {
                assertEquals(List.of("one", "two", "three"), batch.texts());
                assertEquals(List.of(1L, 2L, 3L), ids(batch));
                assertEquals(3, second.stats().inFlight());
            } // unsettled: pending again, in order, with the same ids (D4, Q5)
            try (Batch again = second.take(10)) {
                assertEquals(List.of("one", "two", "three"), again.texts());
                assertEquals(List.of(1L, 2L, 3L), ids(again));
                assertEquals(3, again.settleAll(Disposition.DELIVERED));
            }
            second.enqueue("four");
            try (Batch later = second.take(10)) {
                assertEquals(List.of(4L), ids(later), "ids are never reused, even after the events are gone (L3)");
            }
        }
        try (Queue third = Queue.builder().queuePath(path).build()) {
            QueueStats stats = third.stats();
            assertEquals(4, stats.accepted());
            assertEquals(3, stats.delivered());
            assertEquals(1, stats.pending());
            assertTrue(stats.balanced());
        }
    }

    @Test
    void aFileInAMissingDirectoryIsAStorageError() {
        Path path = dir.resolve("missing").resolve("usage.db");
        StorageException e = assertThrows(StorageException.class, () -> Queue.builder().queuePath(path.toString()).build());
        assertTrue(e.getMessage().startsWith("queue file '" + path + "': "), e.getMessage());
        assertFalse(Files.exists(path.getParent()));
    }

    @Test
    void aFileOfANewerLayoutIsRefused() throws Exception {
        Path path = dir.resolve("newer.db");
        try (Queue queue = Queue.builder().queuePath(path.toString()).build()) {
            queue.enqueue("kept");
        }
        // SQLite's user_version (bytes 60-63 of the header, big-endian) is the layout version (L4).
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.seek(60);
            file.writeInt(3);
        }
        StorageException e = assertThrows(StorageException.class, () -> Queue.builder().queuePath(path.toString()).build());
        assertEquals("queue file '" + path + "' has layout version 3; this respite reads version 2 (update respite)",
                e.getMessage());
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "r")) {
            file.seek(60);
            assertEquals(3, file.readInt(), "the file is left as it was");
        }
    }

    private static final Pattern REQUEST = Pattern.compile(
            "\"status\":(\\d+),.*?\"X-Respite-Ids\":\"([0-9,]*)\".*?\"body\":\"((?:[^\"\\\\]|\\\\.)*)\"\\}");

    @Test
    void aSenderSendsWhatTheFileHoldsWithStableIds() throws Exception {
        String path = dir.resolve("outbox.db").toString();
        try (Queue producer = Queue.builder().queuePath(path).build()) { // e.g. a request that only enqueues
            for (int i = 0; i < 3; i++) {
                producer.enqueue("e" + i);
            }
        }
        server.script("503; healthy"); // the first send fails: its events go again, with the same ids
        SenderStats stats;
        try (Policy policy = Policy.builder("retry", 100).handler("server_error", Strategy.RETRY).retryTimes(5).build();
             Sender sender = Sender.builder(server.url).policy(policy).queuePath(path).idsHeader("X-Respite-Ids")
                     .minEntriesPerMessage(1).maxEntriesPerMessage(10).failuresToEnterRecovery(10).build()) {
            sender.enqueue("e3");
            sender.flush(5);
            stats = sender.stats();
        }
        assertEquals(1, stats.queue().durable());
        assertEquals(4, stats.queue().accepted());
        assertEquals(4, stats.queue().delivered());
        assertTrue(stats.queue().balanced());

        List<Integer> statuses = new ArrayList<>();
        Map<String, String> byId = new LinkedHashMap<>();
        List<String> failedIds = new ArrayList<>();
        List<String> deliveredIds = new ArrayList<>();
        Matcher m = REQUEST.matcher(server.received());
        while (m.find()) {
            int status = Integer.parseInt(m.group(1));
            String[] ids = m.group(2).split(",");
            String[] events = m.group(3).split("\\\\n");
            assertEquals(events.length, ids.length, "one id per event, in body order");
            statuses.add(status);
            for (int i = 0; i < ids.length; i++) {
                String before = byId.putIfAbsent(ids[i], events[i]);
                assertTrue(before == null || before.equals(events[i]), "id " + ids[i] + " names one event");
                (status == 503 ? failedIds : deliveredIds).add(ids[i]);
            }
        }
        assertEquals(503, statuses.get(0));
        assertTrue(statuses.size() >= 2, "the failed send was sent again: " + statuses);
        assertEquals(Map.of("1", "e0", "2", "e1", "3", "e2", "4", "e3"), byId);
        assertFalse(failedIds.isEmpty());
        assertTrue(deliveredIds.containsAll(failedIds), "resent with the same ids: " + failedIds + " " + deliveredIds);

        try (Queue after = Queue.builder().queuePath(path).build()) {
            QueueStats figures = after.stats();
            assertEquals(4, figures.accepted());
            assertEquals(4, figures.delivered());
            assertEquals(0, figures.pending());
            assertTrue(figures.balanced());
        }
    }
}
