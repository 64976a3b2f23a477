'use strict';
// A redis-server of the test's own on 127.0.0.1 (a free port, no
// persistence, a temporary directory), for the fleet gate's tests.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

// Resolves with {url, port, kill()} once it accepts connections; on `port`
// when given (a Redis that comes back after a kill), else on a free one.
async function startRedis(port = undefined) {
  port = port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '',
    '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  let exited = null;
  child.once('error', (error) => (exited = error));
  child.once('exit', (code) => (exited = exited || new Error(`redis-server exited with ${code}`)));
  const until = Date.now() + 10000;
  while (!(await accepts(port))) {
    if (exited !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port} (is it installed? scripts/setup.sh): ${exited}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    // Stops it at once (SIGKILL), as a crash would.
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startRedis };
