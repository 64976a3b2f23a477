'use strict';
// Starts respite-fault-server (tools/fault_server) for the HTTP tests: the
// path comes from RESPITE_FAULT_SERVER, else the repository's build tree.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

function serverPath() {
  const repo = path.resolve(__dirname, '..', '..', '..');
  const candidates = [
    process.env.RESPITE_FAULT_SERVER,
    path.join(repo, process.env.BUILD_ROOT || 'build', 'release', 'tools', 'fault_server', 'respite-fault-server'),
  ].filter(Boolean);
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) {
    throw new Error(`respite-fault-server not found (looked at ${candidates.join(', ')}); set RESPITE_FAULT_SERVER`);
  }
  return found;
}

class FaultServer {
  static async start(script = 'healthy') {
    const child = spawn(serverPath(), ['--exit-on-eof', '--script', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = await new Promise((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk) => {
        text += chunk;
        const newline = text.indexOf('\n');
        if (newline >= 0) resolve(Number.parseInt(text.slice(0, newline), 10));
      });
      child.once('exit', (code) => reject(new Error(`respite-fault-server exited with ${code}`)));
      child.once('error', reject);
    });
    return new FaultServer(child, port);
  }

  constructor(child, port) {
    this.child = child;
    this.url = `http://127.0.0.1:${port}/`;
  }

  async script(text) {
    const answer = await fetch(`${this.url}__control/script`, { method: 'POST', body: text });
    if (answer.status !== 200) throw new Error(`script refused: ${await answer.text()}`);
  }

  async reset() {
    await fetch(`${this.url}__control/reset`, { method: 'POST' });
  }

  async stats(bodies = false) {
    const answer = await fetch(`${this.url}__control/stats${bodies ? '' : '?bodies=0'}`);
    return answer.json();
  }

  async requests() {
    return (await this.stats()).requests;
  }

  stop() {
    this.child.stdin.end();
    this.child.kill('SIGTERM');
  }
}

// Resolves when `emitter` emits `type` (rejects after ms).
function once(emitter, type, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} event within ${ms} ms`)), ms);
    emitter.once(type, (event) => {
      clearTimeout(timer);
      resolve(event);
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One server for a test file: started before its tests (`use` receives it),
// reset before each test, stopped after them.
function useFaultServer(test, use) {
  let server;
  test.before(async () => use((server = await FaultServer.start())));
  test.after(() => server.stop());
  test.beforeEach(() => server.reset());
}

module.exports = { FaultServer, once, sleep, useFaultServer };
