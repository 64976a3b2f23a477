package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Issue 14 item 11: text reaches the wire as real UTF-8, not JNI's modified
 * UTF-8 (an emoji as the CESU-8 pair ed a0 bd ed b8 80, NUL as c0 80). The
 * fault server records what arrived; bytes that are not UTF-8 would show as
 * body_hex, and a header or path that is not UTF-8 would be missing from
 * its JSON. The run is under LC_ALL=C, so no platform charset helps.
 */
class WireTextTest extends FaultServerTest {
    private static final String EMOJI = "\uD83D\uDE00"; // 😀: 4 bytes in UTF-8, 6 in CESU-8

    @Test
    void aSendersFramingEventsAndHeadersArriveAsUtf8() {
        try (Sender sender = Sender.builder(server.url).minEntriesPerMessage(2) // both events in one message
                .prefix(EMOJI + "[").separator("\u00B7").suffix("]\u00E9")
                .header("X-Note", "caf\u00E9 " + EMOJI).build()) {
            sender.enqueue("\u4E2D");
            sender.enqueue("a" + EMOJI);
            sender.flush(5);
        }
        String received = server.received();
        assertFalse(received.contains("body_hex"), received);
        // 4 + 1 + 3 + 2 + 1 + 4 + 1 + 2 bytes of UTF-8 (CESU-8 would give 24)
        assertTrue(received.contains("\"body_size\":18,\"body\":\"" + EMOJI + "[\u4E2D\u00B7a" + EMOJI + "]\u00E9\""),
                received);
        assertTrue(received.contains("\"X-Note\":\"caf\u00E9 " + EMOJI + "\""), received);
    }

    @Test
    void aClientsPathQueryAndHeadersArriveAsUtf8() {
        try (Client client = Client.builder().build();
             Response response = client.get(server.url + "caf\u00E9/" + EMOJI + "?q=\u00FC",
                     Map.of("X-Note", "\u00FC" + EMOJI))) {
            assertEquals(200, response.status());
        }
        String received = server.received();
        assertTrue(received.contains("\"X-Note\":\"\u00FC" + EMOJI + "\""), received);
        assertTrue(received.contains("\"path\":\"/caf\u00E9/" + EMOJI + "\""), received);
    }
}
