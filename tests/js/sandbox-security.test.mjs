// No website may drive the local sandbox or read its secret (issue 45): the console and the
// controls answer only a Host naming the sandbox (the loopback's names, --host, --allowed-hosts),
// the controls refuse a foreign Origin, and the REST API under /api/v1/ answers any Host (its API
// key protects it). The rules live in the model (src/service/controls/guard.rs); these requests go
// over real HTTP to the npm face, with the Host and Origin headers a browser would send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSandbox, SandboxError, NET_TIMEOUT_MS } from './sandbox-kit.mjs';

const BIN = fileURLToPath(new URL('../../pkg/bin/poscheck.js', import.meta.url));

/** One request with the headers as given (fetch would not send a foreign Host). */
function request(url, method, path, headers = {}, body = '') {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers: body === '' && method === 'GET' ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }, timeout: NET_TIMEOUT_MS, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

async function start(t, options = {}) {
  const sb = await createSandbox({ clock: 'manual', seed: 45, pos: 'http://127.0.0.1:9/', ...options });
  t.after(() => sb.close());
  return sb;
}

test('a cross-origin POST to a control is refused before it runs: the orders stay', async (t) => {
  const sb = await start(t);
  await sb.createOrder({ store: sb.stores[0].remoteId });
  const port = new URL(sb.url).port;
  const r = await request(sb.url, 'POST', '/_sandbox/reset', { Host: `127.0.0.1:${port}`, Origin: 'http://evil.example', 'Content-Type': 'text/plain' }, '{}');
  assert.equal(r.status, 403, r.text);
  assert.equal(r.type, 'application/problem+json');
  const doc = JSON.parse(r.text);
  assert.equal(doc.status, 403);
  assert.equal(doc.code, 'CROSS_ORIGIN');
  assert.match(doc.detail, /evil\.example/);
  assert.equal(sb.orders().length, 1, 'the reset did not run');
  // The same POST from the sandbox's own origin (its console) runs.
  const own = await request(sb.url, 'POST', '/_sandbox/orders', { Host: `localhost:${port}`, Origin: `http://localhost:${port}`, 'Content-Type': 'application/json' }, JSON.stringify({ store: sb.stores[0].remoteId }));
  assert.equal(own.status, 200, own.text);
  assert.equal(sb.orders().length, 2);
  // `Origin: null` (a sandboxed frame, a file:// page) is not the sandbox's own.
  assert.equal((await request(sb.url, 'POST', '/_sandbox/reset', { Host: `127.0.0.1:${port}`, Origin: 'null' }, '{}')).status, 403);
  assert.equal(sb.orders().length, 2);
});

test('a foreign Host (DNS rebinding) reads neither the secret nor the keys; the loopback names do', async (t) => {
  const sb = await start(t);
  const port = new URL(sb.url).port;
  const r = await request(sb.url, 'GET', '/_sandbox/', { Host: `evil.example:${port}` });
  assert.equal(r.status, 403, r.text);
  assert.equal(JSON.parse(r.text).code, 'FORBIDDEN_HOST');
  assert.match(JSON.parse(r.text).detail, /--allowed-hosts evil\.example/, 'it says how to allow the name');
  assert.ok(!r.text.includes(sb.secret) && !r.text.includes(sb.apiKey), 'no secret in the refusal');
  for (const path of ['/_sandbox/orders', '/_sandbox/journal?after=0', '/_sandbox/deliveries']) {
    assert.equal((await request(sb.url, 'GET', path, { Host: `evil.example:${port}` })).status, 403, path);
  }
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`]) {
    const ok = await request(sb.url, 'GET', '/_sandbox/', { Host: host });
    assert.equal(ok.status, 200, host);
    assert.ok(ok.text.includes(sb.secret), `${host}: the sandbox's own description`);
  }
  // The console (its page at /) is guarded the same way.
  if (sb.consoleUrl) {
    const page = await request(sb.url, 'GET', '/', { Host: `evil.example:${port}` });
    assert.equal(page.status, 403);
    assert.equal(page.type, 'application/problem+json');
    assert.equal((await request(sb.url, 'GET', '/', { Host: `localhost:${port}` })).status, 200);
  }
  // Another port under a loopback name is another origin.
  assert.equal((await request(sb.url, 'GET', '/_sandbox/', { Host: `localhost:${Number(port) + 1}` })).status, 403);
});

test('the REST API answers a valid key under any Host (a POS in a container)', async (t) => {
  const sb = await start(t);
  const r = await request(sb.url, 'GET', '/api/v1/Orders', { Host: 'host.docker.internal:8787', 'X-Service-Api-Key': sb.apiKey });
  assert.equal(r.status, 200, r.text);
  const none = await request(sb.url, 'GET', '/api/v1/Orders', { Host: 'evil.example', Origin: 'http://evil.example' });
  assert.equal(none.status, 401, 'and refuses a request without the key, as the contract says');
});

test('allowedHosts lets a named host through; a bad name is refused at start', async (t) => {
  const sb = await start(t, { allowedHosts: ['pos.test', 'tunnel.example'] });
  const port = new URL(sb.url).port;
  assert.equal((await request(sb.url, 'GET', '/_sandbox/', { Host: `pos.test:${port}` })).status, 200);
  assert.equal((await request(sb.url, 'POST', '/_sandbox/orders', { Host: `tunnel.example:${port}`, Origin: `http://tunnel.example:${port}` }, '{}')).status, 200);
  assert.equal((await request(sb.url, 'GET', '/_sandbox/', { Host: `other.test:${port}` })).status, 403);
  await assert.rejects(createSandbox({ allowedHosts: ['http://pos.test'] }), (e) => e instanceof SandboxError && e.code === 'INVALID_ARGUMENT' && /allowed hosts/.test(e.message));
  await assert.rejects(createSandbox({ allowedHosts: [7] }), (e) => e instanceof SandboxError && e.code === 'INVALID_ARGUMENT');
});

test('the in-process API is not guarded (no HTTP, no Host)', async (t) => {
  const sb = await start(t);
  await sb.createOrder({ store: sb.stores[0].remoteId });
  assert.equal(sb.orders().length, 1);
});

test('`poscheck sandbox --allowed-hosts` lets the name through', async (t) => {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--clock', 'manual', '--allowed-hosts', 'pos.test'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGTERM'));
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const started = Date.now();
  let url;
  while (!(url = /REST base\s+(http:\/\/\S+?)\/api\/v1\//.exec(out)?.[1])) {
    assert.ok(child.exitCode === null, out);
    assert.ok(Date.now() - started < 20_000, `no banner: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = new URL(url).port;
  assert.equal((await request(url, 'GET', '/_sandbox/', { Host: `pos.test:${port}` })).status, 200);
  const refused = await request(url, 'GET', '/_sandbox/', { Host: `evil.example:${port}` });
  assert.equal(refused.status, 403);
  await new Promise((r) => setTimeout(r, 100));
  assert.match(out, /403 refused \(FORBIDDEN_HOST\)/, 'the refusal is logged');
});
