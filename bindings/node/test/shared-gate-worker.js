'use strict';
// A cluster worker of shared-gate.test.js: an HTTP server whose every request
// calls RESPITE_TEST_URL through this process's handle on the shared gate
// "cloud" (RESPITE_TEST_SHARED_PATH) and answers what happened, with its pid.
const http = require('node:http');
const respite = require('..');

const gate = new respite.Gate({
  name: 'cloud',
  sharedPath: process.env.RESPITE_TEST_SHARED_PATH,
  failuresToEnterRecovery: 4,
  failuresWindowSeconds: 60,
  recoverySeconds: 3,
});
const client = new respite.Client({ gate, timeoutSeconds: 5 });

async function call() {
  try {
    const response = await client.get(process.env.RESPITE_TEST_URL);
    return { result: 'sent', status: response.status };
  } catch (error) {
    if (!(error instanceof respite.TemporarilyUnavailableError)) throw error;
    return { result: 'refused', retryAfter: error.retryAfter };
  }
}

http.createServer(async (request, response) => {
  const answer = { ...(await call()), pid: process.pid, state: gate.state() };
  response.setHeader('Content-Type', 'application/json');
  response.end(JSON.stringify(answer));
}).listen(0, '127.0.0.1'); // port 0 in every worker: one port, shared (node:cluster)
