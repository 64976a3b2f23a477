'use strict';
// The HTTP request client (spec section 6) over the core's libcurl client.
// The core's call blocks (the transfer, sleeps between retries), so it runs
// on the addon's own threads (src/respite_node_jobs.h) and `request` is a
// promise: the event loop never waits. A refusal by the gate is answered at
// once, on this thread, without any I/O (C1).
const native = require('./native');
const errors = require('./errors');
const { buildSettings } = require('./settings');
const { finalizer, PoolHandle } = require('./handle');
const { OUTCOMES } = require('./outcome');

// Headers as the core wants them: "Name: value" lines joined by "\n".
// Accepts an object, a Map, an array of [name, value], or the text itself;
// the core checks each line (C2).
function headerLines(headers) {
  if (headers === undefined || headers === null) return '';
  if (typeof headers === 'string') return headers;
  let pairs;
  if (headers instanceof Map || Array.isArray(headers)) pairs = [...headers];
  else if (typeof headers === 'object') pairs = Object.entries(headers);
  else throw new TypeError(`respite: headers must be an object, a Map, an array of [name, value] or text (got ${typeof headers})`);
  return pairs
    .map(([name, value]) => {
      const line = `${name}: ${value}`;
      // A line break would smuggle in another header.
      if (/[\r\n]/.test(line)) throw new TypeError(`respite: header ${JSON.stringify(String(name))} must not contain a line break`);
      return line;
    })
    .join('\n');
}

// Frees a response nobody closed.
const responses = new FinalizationRegistry((raw) => native.respite_response_free(raw));

// A response's headers, looked up by name (case-insensitive; the last one wins).
class ResponseHeaders {
  constructor(response) {
    this._response = response;
  }

  get(name) {
    const raw = this._response._raw;
    if (raw === null) throw new errors.ClosedError('response is closed');
    const value = native.respite_response_header(raw, String(name));
    return value === undefined ? null : value;
  }

  has(name) {
    return this.get(name) !== null;
  }
}

// One call's result (C8). Everything but the headers is copied at once;
// close() (or garbage collection) frees the native response.
class Response {
  constructor(raw) {
    this._raw = raw;
    this.status = native.respite_response_status(raw); // 0: the transport failed
    this._outcome = native.respite_response_outcome(raw);
    this.body = native.respite_node_response_body(raw) || Buffer.alloc(0);
    this.error = native.respite_response_error(raw) || ''; // the transport error's text
    this.retryAfter = native.respite_response_retry_after(raw); // seconds, 0: none
    this.attempts = native.respite_response_attempts(raw);
    this.elapsed = native.respite_response_elapsed_seconds(raw); // seconds, sleeps included
    this.headers = new ResponseHeaders(this);
    responses.register(this, raw, this);
  }

  // 'success', 'request_error', 'throttled', 'server_error', 'unusable', 'transport'.
  get outcome() {
    return OUTCOMES[this._outcome];
  }

  get ok() {
    return this._outcome === 0;
  }

  text() {
    return this.body.toString('utf8');
  }

  json() {
    return JSON.parse(this.text());
  }

  get closed() {
    return this._raw === null;
  }

  close() {
    if (this._raw === null) return;
    const raw = this._raw;
    this._raw = null;
    responses.unregister(this);
    native.respite_response_free(raw);
  }
}

class Client {
  // options: the "client" settings in camelCase (timeoutSeconds, userAgent),
  // gate (a Gate: every attempt asks it first) and backoff (a Backoff: the
  // retries). The core keeps both alive while the client uses them.
  constructor(options = {}) {
    const { gate = null, backoff = null } = options;
    // Checked here to avoid a circular require (gate.js needs nothing of ours).
    if (gate !== null && !(gate instanceof require('./gate').Gate)) {
      throw new TypeError('respite: gate must be a Gate, or absent for none');
    }
    if (backoff !== null && !(backoff instanceof require('./backoff').Backoff)) {
      throw new TypeError('respite: backoff must be a Backoff, or absent for one attempt');
    }
    // A closed one raises ClosedError in the core's words (null means none).
    if (gate && gate.closed) gate.stats();
    if (backoff && backoff.closed) backoff.start();
    const settings = buildSettings('client', options, ['gate', 'backoff']);
    try {
      this._handle = native.respite_client_new(settings, gate ? gate._handle : null, backoff ? backoff._handle : null);
    } finally {
      native.respite_settings_free(settings);
    }
    this._gate = gate;
    if (gate) gate._share(1); // turns off the gate's lean path: our reports can open it
    // The native client is freed when closed (or collected) AND no request
    // is in flight on the pool.
    this._native = new PoolHandle(this._handle, native.respite_client_free);
    finalizer.register(this, [PoolHandle.release, this._native], this);
  }

  get closed() {
    return this._handle === null;
  }

  get gate() {
    return this._gate;
  }

  // Later requests raise ClosedError; requests in flight finish first.
  close() {
    if (this._handle === null) return;
    this._handle = null;
    finalizer.unregister(this);
    if (this._gate) this._gate._share(-1);
    this._native.release();
  }

  // One call: {method, url, headers, body}. Resolves with a Response, also
  // for an error status or a failed transport (see response.outcome);
  // rejects with TemporarilyUnavailableError when the gate refuses (no I/O),
  // InvalidArgumentError for a bad method, URL or header, ClosedError.
  request({ method = 'GET', url, headers, body } = {}) {
    let lines;
    try {
      lines = headerLines(headers);
    } catch (error) {
      return Promise.reject(error);
    }
    const gate = this._gate;
    const start = (done) =>
      native.respite_node_request_start(
        this._handle,
        gate ? gate._handle : null,
        String(method),
        url === undefined || url === null ? '' : String(url),
        lines,
        body === undefined || body === null ? '' : body,
        done,
      );
    return this._native.job(start, () => gate && gate._drainEvents()).then((raw) => new Response(raw));
  }

  get(url, { headers } = {}) {
    return this.request({ method: 'GET', url, headers });
  }

  post(url, body, { headers } = {}) {
    return this.request({ method: 'POST', url, headers, body });
  }

  // The caller could not use a 2xx/3xx answer (C4): the gate counts one
  // `unusable` failure and response.outcome becomes 'unusable'.
  reportUnusable(response) {
    if (!(response instanceof Response)) throw new TypeError('respite: reportUnusable takes a Response');
    if (response._raw === null) throw new errors.ClosedError('response is closed');
    native.respite_client_report_unusable(this._handle, response._raw);
    response._outcome = native.respite_response_outcome(response._raw);
    if (this._gate) this._gate._drainEvents();
  }
}

module.exports = { Client, Response, headerLines };
