package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

class LoggingTest {
    @Test
    void pausesAreWarningsAndResumingIsInfo() {
        List<LogRecord> records = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger logger = Logger.getLogger("org.respite.Gate");
        logger.addHandler(capture);
        try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(10).build()) {
            gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            Decision probe = gate.check(11.0);
            gate.report(probe.permit(), Outcome.SERVER_ERROR, 0, 11.0);
            probe = gate.check(21.0);
            gate.report(probe.permit(), Outcome.SUCCESS, 0, 21.0);
        } finally {
            logger.removeHandler(capture);
        }
        List<Level> levels = records.stream().map(LogRecord::getLevel).toList();
        assertEquals(List.of(Level.WARNING, Level.INFO, Level.WARNING, Level.INFO, Level.INFO), levels);
        assertTrue(records.get(0).getMessage().contains("sending paused for 10s after 1 failures"),
                records.get(0).getMessage());
        assertTrue(records.get(4).getMessage().contains("sending resumed"), records.get(4).getMessage());
    }
}
