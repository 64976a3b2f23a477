package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class SettingsTest {
    @Test
    void outOfRangeIsRejectedWithTheCoresMessage() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().failuresToEnterRecovery(0).build());
        assertEquals("failures_to_enter_recovery", e.getSetting());
        assertEquals("invalid_setting", e.getStatus());
        assertEquals("failures_to_enter_recovery must be an integer from 1 to 1000 (got 0)", e.getMessage());

        e = assertThrows(InvalidSettingException.class, () -> Gate.builder().jitter(1.5).build());
        assertEquals("jitter", e.getSetting());
        assertTrue(e.getMessage().startsWith("jitter must be a number from 0 to 1"), e.getMessage());

        e = assertThrows(InvalidSettingException.class, () -> Backoff.builder().maxAttempts(101).build());
        assertEquals("max_attempts", e.getSetting());
    }

    @Test
    void unknownNamesAndWrongTypesNameTheSetting() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().set("failure_to_enter_recovery", 3).build());
        assertEquals("failure_to_enter_recovery", e.getSetting());
        assertTrue(e.getMessage().contains("failures_to_enter_recovery"), "lists what is accepted: " + e.getMessage());

        e = assertThrows(InvalidSettingException.class, () -> Gate.builder().set("probes", 1.5).build());
        assertEquals("probes", e.getSetting());

        e = assertThrows(InvalidSettingException.class, () -> Gate.builder().set("recover_never", "maybe").build());
        assertEquals("recover_never", e.getSetting());

        e = assertThrows(InvalidSettingException.class, () -> Gate.builder("no_such_profile").build());
        assertNotNull(e.getMessage());
    }

    @Test
    void rulesBetweenSettingsAreChecked() {
        InvalidSettingException e = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().recoveryMultiplier(2).recoverySeconds(100).maxRecoverySeconds(50).build());
        assertEquals("max_recovery_seconds", e.getSetting());
    }

    @Test
    void genericSetterAcceptsSpecNames() {
        try (Gate gate = Gate.builder().setAll(Map.of("failures_to_enter_recovery", 1, "recovery_seconds", 5.0))
                .build()) {
            gate.report(0, Outcome.TRANSPORT, 0, 0.0);
            assertEquals(5.0, gate.retryAfter(0.0), 1e-9);
        }
    }

    @Test
    void theSettingsTableIsTheCoresWithExclusiveBounds() {
        assertEquals(org.respite.swig.RespiteNative.respite_setting_count(), SettingsTable.ALL.size());
        SettingInfo window = SettingsTable.find("gate", "failures_window_seconds").orElseThrow();
        assertTrue(window.minExclusive());
        assertEquals(0.0, window.min());
        InvalidSettingException zero = assertThrows(InvalidSettingException.class,
                () -> Gate.builder().failuresWindowSeconds(0).build());
        assertEquals("failures_window_seconds", zero.getSetting());
        assertTrue(zero.getMessage().contains(window.accepted()), zero.getMessage());
    }

    @Test
    void everyCoreStatusHasItsOwnException() {
        Set<Class<?>> classes = new HashSet<>();
        for (int status = 1; status < Respite.statusCount(); status++) {
            String name = Respite.statusName(status);
            RespiteException e = RespiteException.fromNative(status, "message".getBytes(),
                    new byte[0], 0, 0);
            assertEquals(name, e.getStatus());
            assertNotEquals(RespiteException.class, e.getClass(), "no class for status " + name);
            String expected = camel(name) + "Exception";
            assertEquals(expected, e.getClass().getSimpleName());
            assertTrue(classes.add(e.getClass()));
        }
        assertEquals(RespiteException.class, RespiteException.fromNative(Respite.statusCount(), "m".getBytes(),
                new byte[0], 0, 0).getClass());
    }

    @Test
    void outcomesMatchTheCore() {
        for (Outcome outcome : Outcome.values()) {
            assertEquals(outcome, Outcome.fromName(outcome.wireName()));
        }
        assertEquals(Outcome.THROTTLED, Outcome.classify(429, true));
        assertEquals(Outcome.UNUSABLE, Outcome.classify(200, false));
        assertEquals(Outcome.UNUSABLE, Outcome.classify(101, true));
        assertEquals(Outcome.REQUEST_ERROR, Outcome.classify(404, true));
        assertTrue(Outcome.SERVER_ERROR.counts(false));
        assertTrue(!Outcome.REQUEST_ERROR.counts(false) && Outcome.REQUEST_ERROR.counts(true));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Outcome.fromName("boom"));
        assertTrue(e.getMessage().contains("server_error"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> Outcome.classify(600, true));
    }

    @Test
    void clockIsTheCoresMonotonicClock() {
        double a = Respite.now();
        double b = Respite.now();
        assertTrue(b >= a && a > 0);
    }

    private static String camel(String name) {
        StringBuilder out = new StringBuilder();
        for (String part : name.split("_")) {
            out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return out.toString();
    }

    @Test
    void aDefaultReadsAsItsTypeAndAnUnknownNameIsTheCoresError() {
        assertEquals(1L, Respite.defaultSetting("gate", "probes"));
        assertEquals(100.0, Respite.defaultSetting("gate", "failures_window_seconds"));
        assertEquals(Boolean.TRUE, Respite.defaultSetting("gate", "honour_retry_after"));
        assertEquals("none", Respite.defaultSetting("backoff", "jitter"));
        assertEquals("colour", assertThrows(InvalidSettingException.class,
                () -> Respite.defaultSetting("gate", "colour")).getSetting());
    }
}
