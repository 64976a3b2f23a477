'use strict';
// Events (G18) of a gate, engine or sender, forwarded to a logger:
// a warning when sending pauses or a pause grows, information otherwise.
const { eventOf } = require('../generated/structs');

// The log line is the core's, whole and unchanged (G18,
// respite_event_message: the handle's name, then the event in words).
function log(logger, event) {
  if (!logger) return;
  const write = event.warning ? logger.warn || logger.warning || logger.info || logger.log : logger.info || logger.log;
  write.call(logger, event.message, event);
}

// Takes every event waiting in a native handle (`nextEvent(handle, raw)`
// answers 1 while there is one), logs it and emits it on `emitter` under its
// type and as 'event'.
function forwardEvents(emitter, logger, nextEvent, handle, raw) {
  while (nextEvent(handle, raw) === 1) {
    const event = eventOf(raw);
    log(logger, event);
    emitter.emit(event.type, event);
    emitter.emit('event', event);
  }
}

module.exports = { forwardEvents };
