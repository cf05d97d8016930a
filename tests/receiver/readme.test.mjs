// Ring 3: every receiver example of README.md and pkg/README.md (```js receiver-…), run as a user
// would: its own file in a fresh directory where `poscheck`, `express`, `fastify` and `redis`
// resolve to this repository's package and devDependencies, with a stand-in `pos` module, and a
// fixture delivery sent to it on 127.0.0.1.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SECRET, deliveryHeaders, fetchServer, fixture, freePort, root, send, sleep, startRedis } from './helpers.mjs';

const POS = `// Stand-in for the POS's own code: prints every call as a JSON line.
let n = 0;
const say = (o) => console.log(JSON.stringify(o));
exports.createOrder = async (remoteId, order) => {
  n += 1;
  const id = 'POS-' + process.pid + '-' + n;
  say({ call: 'createOrder', remoteId, displayCode: order.displayCode, id });
  return id;
};
exports.applyEvent = async (remoteOrderId, event) => say({ call: 'applyEvent', remoteOrderId, event: event.event });
exports.menuChangeCompleted = async (change) => say({ call: 'menuChangeCompleted', changeKey: change.changeKey });
`;

function examples() {
  const out = [];
  for (const file of ['README.md', 'pkg/README.md']) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/^```js receiver-([\w-]+)\n([\s\S]*?)^```$/gm)) out.push({ file, kind: m[1], code: m[2] });
  }
  return out;
}

/** A directory where the example runs as in a user's project. */
function project(expressName = 'express5') {
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-readme-'));
  mkdirSync(join(dir, 'node_modules'));
  const link = (name, target) => symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  link('poscheck', join(root, 'pkg'));
  link('express', join(root, 'node_modules', expressName));
  for (const name of ['fastify', 'redis', 'ioredis']) link(name, join(root, 'node_modules', name));
  writeFileSync(join(dir, 'pos.js'), POS);
  return dir;
}

/** Runs a CommonJS example as its own process; resolves once it accepts connections. */
async function runProcess(dir, code, env) {
  writeFileSync(join(dir, 'receiver.js'), code);
  const port = await freePort();
  const child = spawn(process.execPath, ['receiver.js'], { cwd: dir, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let err = '';
  child.stdout.on('data', (d) => lines.push(...d.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l))));
  child.stderr.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await send(url, 'GET', '/nothing');
      break;
    } catch (e) {
      if (child.exitCode !== null || i > 200) throw new Error(`the example did not start: ${err || e.message}`);
      await sleep(50);
    }
  }
  return {
    url,
    lines,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

const createdBody = fixture('payload', 'order-created.delivery.valid.json');
const updateBody = fixture('payload', 'order-update-event.delivered.valid.json');
const menuBody = fixture('payload', 'menu-change-completed.valid.json');

/** The checks every example must pass: the three routes, a retry, a forged delivery. */
async function exercise(urls, getLines) {
  const [first, second = first] = urls;
  const id = randomUUID();
  const a = await send(first, 'POST', '/v1/order/STORE-9', { headers: deliveryHeaders(createdBody, { deliveryId: id, timestamp: Math.floor(Date.now() / 1000) }), body: createdBody });
  assert.equal(a.status, 200, a.text);
  assert.match(a.json.remoteOrderId, /^POS-\d+-1$/);
  const retry = await send(second, 'POST', '/v1/order/STORE-9', { headers: deliveryHeaders(createdBody, { deliveryId: id, timestamp: Math.floor(Date.now() / 1000) }), body: createdBody });
  assert.equal(retry.json.remoteOrderId, a.json.remoteOrderId);
  const now = Math.floor(Date.now() / 1000);
  const u = await send(second, 'PUT', `/v1/order/STORE-9/${a.json.remoteOrderId}/events`, { headers: deliveryHeaders(updateBody, { timestamp: now }), body: updateBody });
  assert.equal(u.status, 200);
  const changeKey = JSON.parse(menuBody).changeKey;
  const m = await send(first, 'POST', `/v1/menu/change/${changeKey}`, { headers: deliveryHeaders(menuBody, { timestamp: now }), body: menuBody });
  assert.equal(m.status, 200);
  const forged = await send(first, 'POST', '/v1/order/STORE-9', { headers: deliveryHeaders(createdBody, { secret: 'not-the-secret', timestamp: now }), body: createdBody });
  assert.equal(forged.status, 401);
  // The POS calls, once each (the children print them on stdout).
  let lines = getLines();
  for (let i = 0; i < 100 && lines.length < 3; i++) {
    await sleep(20);
    lines = getLines();
  }
  const byCall = Object.fromEntries(lines.map((l) => [l.call, l]));
  assert.deepEqual(lines.map((l) => l.call).sort(), ['applyEvent', 'createOrder', 'menuChangeCompleted']);
  assert.equal(byCall.createOrder.remoteId, 'STORE-9');
  assert.equal(byCall.createOrder.displayCode, JSON.parse(createdBody).displayCode);
  assert.equal(byCall.applyEvent.remoteOrderId, a.json.remoteOrderId);
  assert.equal(byCall.menuChangeCompleted.changeKey, changeKey);
}

const found = examples();

test('the READMEs have a receiver per framework, each under 20 lines', () => {
  const kinds = new Set(found.map((e) => e.kind));
  for (const k of ['node-http', 'express', 'fastify', 'fetch', 'redis']) assert.ok(kinds.has(k), `no ${k} example`);
  for (const e of found) assert.ok(e.code.trimEnd().split('\n').length < 20, `${e.file} ${e.kind}: ${e.code.split('\n').length} lines`);
});

for (const e of found) {
  const variants = e.kind === 'express' ? ['express4', 'express5'] : [undefined];
  for (const variant of variants) {
    test(`${e.file}: the ${e.kind} receiver${variant ? ` with ${variant}` : ''} runs and answers as the contract says`, { timeout: 60_000 }, async () => {
      const dir = project(variant);
      const env = { SERVICE_HMAC_SECRET: SECRET };
      const stops = [];
      try {
        if (e.kind === 'fetch') {
          writeFileSync(join(dir, 'receiver.mjs'), e.code);
          process.env.SERVICE_HMAC_SECRET = SECRET;
          const mod = await import(pathToFileURL(join(dir, 'receiver.mjs')).href);
          assert.equal(mod.POST, mod.PUT);
          const lines = [];
          const log = console.log;
          console.log = (line) => lines.push(JSON.parse(line));
          const servers = [fetchServer(mod.default.fetch), fetchServer((req) => mod[req.method](req))];
          const urls = await Promise.all(servers.map((s) => new Promise((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${s.address().port}`)))));
          stops.push(() => (console.log = log));
          for (const s of servers) stops.push(() => new Promise((r) => s.close(r)));
          await exercise(urls, () => lines);
        } else if (e.kind === 'redis') {
          const redis = await startRedis();
          stops.push(() => redis.close());
          const a = await runProcess(dir, e.code, { ...env, REDIS_URL: redis.url });
          stops.push(a.stop);
          const b = await runProcess(dir, e.code, { ...env, REDIS_URL: redis.url });
          stops.push(b.stop);
          // Two processes: the retry goes to the other one, which must not call the POS again.
          await exercise([a.url, b.url], () => [...a.lines, ...b.lines]);
        } else {
          const p = await runProcess(dir, e.code, env);
          stops.push(p.stop);
          await exercise([p.url], () => p.lines);
        }
      } finally {
        for (const stop of stops.reverse()) await stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}
