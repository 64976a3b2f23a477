package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** E15: a NUL byte inside text never cuts it silently: the core refuses it. */
class TextTest extends FaultServerTest {
    private static String refused(String what, String shown) {
        return what + " must be text without NUL bytes (got '" + shown + "')";
    }

    @Test
    void aNulInASettingsValueOrNameIsRefused() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Gate.builder().set("recovery_seconds", "5\0junk").build());
        assertEquals("invalid_argument", e.getStatus());
        assertEquals(refused("value", "5?junk"), e.getMessage());

        e = assertThrows(InvalidArgumentException.class, () -> Gate.builder().set("probes\0junk", 1).build());
        assertEquals(refused("name", "probes?junk"), e.getMessage());

        assertThrows(InvalidArgumentException.class, () -> Gate.builder("gate\0").build());
        try (Gate gate = Gate.builder().set("recovery_seconds", "5").build()) { // without a NUL, as before
            assertEquals(GateState.CLOSED, gate.state());
        }
    }

    @Test
    void aNulInAHeaderOrUrlIsRefusedAndNothingIsSent() {
        try (Client client = Client.builder().build()) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> client.get(server.url, Map.of("X-Trace", "a\0b")));
            assertEquals(refused("headers", "X-Trace: a?b"), e.getMessage());
            assertThrows(InvalidArgumentException.class, () -> client.get(server.url + "\0/elsewhere"));
        }
        assertEquals(0, server.requests());

        try (Sender sender = Sender.builder(server.url).build()) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> sender.addHeader("Authorization", "secret\0junk"));
            assertEquals(refused("value", "secret?junk"), e.getMessage());
        }
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Sender.builder(server.url + "\0junk").build());
        assertEquals(refused("value", server.url + "?junk"), e.getMessage());
    }
}
