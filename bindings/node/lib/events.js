'use strict';
// Gate events (G18) as plain objects, and their forwarding to a logger:
// a warning when sending pauses or a pause grows, information otherwise.
const native = require('./native');
const { plainStruct } = require('./struct');

// Every field as the core fills it (0 or '' where it does not apply to the
// type), the type's name, whether it is a warning, and the core's line.
function eventObject(raw) {
  const event = plainStruct(raw, { type: native.respite_event_type_name, detail: String, source: String });
  event.warning = native.respite_event_is_warning(raw.type) === 1;
  event.message = native.respite_event_message(raw);
  return event;
}

// The log line is the core's, whole and unchanged (G18,
// respite_event_message: the handle's name, then the event in words).
function log(logger, event) {
  if (!logger) return;
  const message = event.message;
  if (event.warning) {
    (logger.warn || logger.warning || logger.info || logger.log).call(logger, message, event);
  } else {
    (logger.info || logger.log).call(logger, message, event);
  }
}

// Takes every event waiting in a native handle (`nextEvent(handle, raw)`
// answers 1 while there is one), logs it and emits it on `emitter` under its
// type and as 'event'.
function forwardEvents(emitter, logger, nextEvent, handle, raw) {
  while (nextEvent(handle, raw) === 1) {
    const event = eventObject(raw);
    log(logger, event);
    emitter.emit(event.type, event);
    emitter.emit('event', event);
  }
}

module.exports = { eventObject, log, forwardEvents };
