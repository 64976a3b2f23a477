'use strict';
// The HTTP request client (spec section 6) over the core's libcurl client.
// The core's call blocks (the transfer, sleeps between retries), so it runs
// on the addon's own threads (src/respite_node_jobs.h) and `request` is a
// promise: the event loop never waits. A refusal by the gate is answered at
// once, on this thread, without any I/O (C1).
const native = require('./native');
const errors = require('./errors');
const { buildSettings } = require('./settings');
const { finalizer, own, Owned, PoolHandle, releasePool } = require('./handle');
const { OUTCOMES } = require('./outcome');

// Header [name, value] pairs from an object, a Map or an array of pairs
// (none for null or undefined).
function headerPairs(headers) {
  if (headers === undefined || headers === null) return [];
  if (headers instanceof Map || Array.isArray(headers)) return [...headers];
  if (typeof headers === 'object') return Object.entries(headers);
  throw new TypeError(`respite: headers must be an object, a Map, an array of [name, value] or text (got ${typeof headers})`);
}

// Headers as the core wants them: "Name: value" lines joined by "\n", from
// header pairs or the text itself; the core checks each line (C2).
function headerLines(headers) {
  if (typeof headers === 'string') return headers;
  return headerPairs(headers)
    .map(([name, value]) => {
      const line = `${name}: ${value}`;
      // A line break would smuggle in another header.
      if (/[\r\n]/.test(line)) throw new TypeError(`respite: header ${JSON.stringify(String(name))} must not contain a line break`);
      return line;
    })
    .join('\n');
}

// One call's result (C8). Everything but the headers is copied at once;
// close() (or garbage collection) frees the native response.
class Response extends Owned {
  constructor(raw) {
    super();
    own(this, raw, native.respite_response_free);
    this.status = native.respite_response_status(raw); // 0: the transport failed
    this._outcome = native.respite_response_outcome(raw);
    this.body = native.respite_node_response_body(raw);
    this.error = native.respite_response_error(raw) ?? ''; // the transport error's text
    this.retryAfter = native.respite_response_retry_after(raw); // seconds, 0: none
    this.attempts = native.respite_response_attempts(raw);
    this.elapsed = native.respite_response_elapsed_seconds(raw); // seconds, sleeps included
    // Looked up by name when asked (case-insensitive; the last one wins).
    this.headers = {
      get: (name) => {
        if (this._handle === null) native.respite_closed(native.RESPITE_HANDLE_RESPONSE);
        return native.respite_response_header(this._handle, String(name));
      },
      has: (name) => this.headers.get(name) !== null,
    };
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

}

// A cancel token (C10) that `signal` cancels: the core ends the transfer or
// the sleep between attempts within 100 ms and releases the attempt from the
// gate uncounted (G19). [token, forget] — forget() once the call settled.
function cancelTokenFor(signal) {
  const token = native.respite_cancel_token_new();
  const onAbort = () => native.respite_cancel_token_cancel(token);
  signal.addEventListener('abort', onAbort, { once: true });
  const forget = () => {
    signal.removeEventListener('abort', onAbort);
    native.respite_cancel_token_free(token);
  };
  return [token, forget];
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
    // A closed one raises the core's ClosedError (null would mean none).
    if (gate && gate.closed) native.respite_closed(native.RESPITE_HANDLE_GATE);
    if (backoff && backoff.closed) native.respite_closed(native.RESPITE_HANDLE_BACKOFF);
    const settings = buildSettings('client', options, ['gate', 'backoff']);
    try {
      this._handle = native.respite_client_new(settings, gate ? gate._handle : null, backoff ? backoff._handle : null);
    } finally {
      native.respite_settings_free(settings);
    }
    this.gate = gate; // the core holds it too
    // The native client is freed when closed (or collected) AND no request
    // is in flight on the pool.
    this._native = new PoolHandle(this._handle, native.respite_client_free);
    finalizer.register(this, [releasePool, this._native], this);
  }

  get closed() {
    return this._handle === null;
  }

  // Later requests raise ClosedError; requests in flight finish first.
  close() {
    if (this._handle === null) return;
    this._handle = null;
    finalizer.unregister(this);
    this._native.release();
  }

  // One call: {method, url, headers, body, signal}. Resolves with a
  // Response, also for an error status or a failed transport (see
  // response.outcome); rejects with TemporarilyUnavailableError when the gate
  // refuses (no I/O), InvalidArgumentError for a bad method, URL or header,
  // ClosedError, and the signal's reason (an AbortError by default, as
  // fetch) when it aborts: the transfer stops and the gate counts nothing.
  request({ method = 'GET', url, headers, body, signal } = {}) {
    if (signal !== undefined && signal !== null) {
      if (!(signal instanceof AbortSignal)) return Promise.reject(new TypeError('respite: signal must be an AbortSignal'));
      if (signal.aborted) return Promise.reject(signal.reason); // before any I/O
    } else {
      signal = null;
    }
    const [token, forget] = signal ? cancelTokenFor(signal) : [null, null];
    const gate = this.gate;
    // A throw here (a bad header, body or type) rejects the promise.
    const start = (done) =>
      native.respite_node_request_start(
        this._handle,
        gate ? gate._handle : null,
        String(method),
        String(url ?? ''),
        headerLines(headers),
        body ?? '',
        token,
        done,
      );
    const call = this._native.job(start, () => gate && gate._drainEvents()).then((raw) => new Response(raw));
    if (!signal) return call;
    return call.then(
      (response) => {
        forget();
        return response;
      },
      (error) => {
        forget();
        throw error instanceof errors.CancelledError && signal.aborted ? signal.reason : error;
      },
    );
  }

  get(url, { headers, signal } = {}) {
    return this.request({ method: 'GET', url, headers, signal });
  }

  post(url, body, { headers, signal } = {}) {
    return this.request({ method: 'POST', url, headers, body, signal });
  }

  // The caller could not use a 2xx/3xx answer (C4): the gate counts one
  // `unusable` failure and response.outcome becomes 'unusable'.
  reportUnusable(response) {
    if (!(response instanceof Response)) throw new TypeError('respite: reportUnusable takes a Response');
    if (response._handle === null) native.respite_closed(native.RESPITE_HANDLE_RESPONSE);
    native.respite_client_report_unusable(this._handle, response._handle);
    response._outcome = native.respite_response_outcome(response._handle);
    if (this.gate) this.gate._drainEvents();
  }
}

module.exports = { Client, Response, headerPairs };
