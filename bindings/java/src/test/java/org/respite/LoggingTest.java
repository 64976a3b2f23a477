package org.respite;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        List<LogRecord> records = capture(() -> {
            try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(10).build()) {
                gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
                Decision probe = gate.check(11.0);
                gate.report(probe.permit(), Outcome.SERVER_ERROR, 0, 11.0);
                probe = gate.check(21.0);
                gate.report(probe.permit(), Outcome.SUCCESS, 0, 21.0);
            }
        });
        List<Level> levels = records.stream().map(LogRecord::getLevel).toList();
        assertEquals(List.of(Level.WARNING, Level.INFO, Level.WARNING, Level.INFO, Level.INFO), levels);
        assertEquals(List.of(
                "recovery started: 1 failure within 100s; requests paused for 10s",
                "recovery period ended: the next request is a probe",
                "recovery extended: the probe failed; requests paused for 10s",
                "recovery period ended: the next request is a probe",
                "recovered: the service answered; requests resume"),
                records.stream().map(LogRecord::getMessage).toList());
    }

    @Test
    void aRecoverNeverPauseLogsUntilAReset() {
        List<LogRecord> records = capture(() -> {
            try (Gate gate = Gate.builder().failuresToEnterRecovery(2).recoverySeconds(5).recoverNever(true).build()) {
                gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
                gate.report(0, Outcome.SERVER_ERROR, 0, 2.0);
                gate.reset(3.0);
            }
        });
        assertEquals(List.of(Level.WARNING, Level.INFO), records.stream().map(LogRecord::getLevel).toList());
        assertEquals(List.of("recovery started: 2 failures within 100s; requests paused until a reset",
                        "gate reset: requests resume"),
                records.stream().map(LogRecord::getMessage).toList());
    }

    @Test
    void theFastPathTakesEventsWhenAnyAreWaiting() {
        List<Event> heard = new ArrayList<>();
        List<LogRecord> records = capture(() -> {
            try (Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(30).onEvent(heard::add)
                    .build()) {
                gate.report(gate.admit(), Outcome.SERVER_ERROR);   // the core's clock, in C
                assertEquals(0, gate.admit());
                assertEquals(List.of(), gate.pollEvents(), "taken by the call that made them");
            }
        });
        assertEquals(List.of("recovery_started"), heard.stream().map(Event::type).toList());
        assertEquals("", heard.get(0).source(), "an unnamed gate");
        assertEquals(List.of("recovery started: 1 failure within 100s; requests paused for 30s"),
                records.stream().map(LogRecord::getMessage).toList());
    }

    @Test
    void aNamedGatesLinesStartWithItsNameInUtf8() {
        String name = "billing \uD83D\uDE00";
        List<Event> heard = new ArrayList<>();
        List<LogRecord> records = capture(() -> {
            try (Gate gate = Gate.builder().name(name).failuresToEnterRecovery(1).recoverySeconds(30)
                    .onEvent(heard::add).build()) {
                assertEquals(name, gate.name());
                gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            }
        });
        assertEquals(List.of(name + ": recovery started: 1 failure within 100s; requests paused for 30s"),
                records.stream().map(LogRecord::getMessage).toList());
        assertEquals(name, heard.get(0).source());
    }

    @Test
    void aNamedEnginesLinesStartWithItsName() {
        List<Event> heard = new ArrayList<>();
        try (Queue queue = Queue.builder().build();
             Gate gate = Gate.builder().failuresToEnterRecovery(1).recoverySeconds(30).build();
             DeliveryEngine engine = DeliveryEngine.builder(queue, gate).name("uploads").onEvent(heard::add)
                     .build()) {
            queue.enqueue("a", 1.0);
            gate.report(0, Outcome.SERVER_ERROR, 0, 1.0);
            engine.shutdown(2.0);
            assertEquals(Action.DONE, engine.next(2.0));
        }
        assertEquals(List.of("uploads: closed with 1 event not sent"), heard.stream().map(Event::message).toList());
        assertEquals("uploads", heard.get(0).source());
    }

    private static List<LogRecord> capture(Runnable body) {
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
        try {
            body.run();
        } finally {
            logger.removeHandler(capture);
        }
        return records;
    }
}
