package org.respite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Text crosses JNI as real UTF-8 both ways, whatever the platform charset (the run is under LC_ALL=C). */
class Utf8Test {
    private static final String NAME = "\uD83D\uDE00x \u00E9\u4E2D"; // 😀x é中: 4-, 1-, 2- and 3-byte characters

    @Test
    void theRunIsUnderAnAsciiLocale() {
        // pom.xml runs the tests with LC_ALL=C, so a platform-charset conversion would break the tests below.
        assertNotEquals(StandardCharsets.UTF_8, Charset.defaultCharset());
    }

    @Test
    void policyNamesRoundTripFromJsonAndTheBuilder() {
        String json = "{\"name\":\"" + NAME + "\",\"maximum_capacity\":10,"
                + "\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"discard\"}]}";
        try (Policy parsed = Policy.fromJson(json);
             Policy built = Policy.builder(NAME, 10).handler("any_error", Strategy.DISCARD).build()) {
            assertEquals(NAME, parsed.name());
            assertEquals(NAME, built.name());
            assertEquals(parsed.toJson(), built.toJson());
            assertEquals(json, parsed.toJson());
            try (Policy again = Policy.fromJson(parsed.toJson())) {
                assertEquals(NAME, again.name());
            }
        }
    }

    @Test
    void errorMessagesQuoteTheTextUnchanged() {
        InvalidSettingException unknown = assertThrows(InvalidSettingException.class,
                () -> Backoff.builder().set("retries" + NAME, 1).build());
        assertEquals("retries" + NAME, unknown.getSetting());
        InvalidSettingException choice = assertThrows(InvalidSettingException.class,
                () -> Backoff.builder().set("jitter", "full\uD83D\uDE00").build());
        assertEquals("jitter must be one of none, full, equal, decorrelated (got 'full\uD83D\uDE00')",
                choice.getMessage());
        InvalidArgumentException outcome = assertThrows(InvalidArgumentException.class,
                () -> Outcome.fromName(NAME));
        assertEquals(true, outcome.getMessage().endsWith("(got '" + NAME + "')"), outcome.getMessage());
    }

    @Test
    void payloadsRoundTripAsTextAndBytes() {
        try (Queue queue = Queue.builder().build()) {
            queue.enqueue(NAME, 1.0);
            byte[] binary = {0, (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80, 0};
            queue.enqueue(binary, 1.0);
            try (Batch batch = queue.take(2, 1.0)) {
                assertEquals(List.of(NAME, "\0\uD83D\uDE00\0"), batch.texts());
                assertArrayEquals(NAME.getBytes(StandardCharsets.UTF_8), batch.payload(0));
                assertArrayEquals(binary, batch.payload(1));
            }
        }
    }
}
