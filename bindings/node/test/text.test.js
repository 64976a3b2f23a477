'use strict';
// E15: a NUL byte inside text never cuts it silently: the core refuses it.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { useFaultServer } = require('./fault_server');

let server;
useFaultServer(test, (started) => { server = started; });

const refused = (what, shown) => ({ name: 'InvalidArgumentError', message: `${what} must be text without NUL bytes (got '${shown}')` });

test('a NUL in a setting value or name is refused', () => {
  assert.throws(() => new respite.Gate({ recoverySeconds: '5\0junk' }), refused('value', '5?junk'));
  assert.throws(() => new respite.Backoff({ jitter: 'full\0junk' }), refused('value', 'full?junk'));
  assert.throws(() => new respite.Gate({ 'probes\0junk': 1 }), refused('name', 'probes?junk'));
});

test('a NUL in a header is refused and drops nothing', async () => {
  const client = new respite.Client();
  try {
    await assert.rejects(async () => client.get(server.url, { headers: { 'X-Trace': 'a\0b', Authorization: 'secret' } }),
      refused('headers', 'X-Trace: a?b?Authorization: secret'));
    assert.equal(await server.requests(), 0);
  } finally {
    client.close();
  }
  const sender = new respite.Sender({ url: server.url });
  assert.throws(() => sender.addHeader('Authorization', 'secret\0junk'), refused('value', 'secret?junk'));
  assert.equal(await sender.close(), 0);
});

test('a NUL in a policy document is its syntax error', () => {
  const document = '{"name": "p", "maximum_capacity": 1, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}';
  assert.equal(respite.Policy.fromJSON(document).name, 'p');
  assert.throws(() => respite.Policy.fromJSON(`${document}\0garbage`), respite.InvalidPolicyError);
});
