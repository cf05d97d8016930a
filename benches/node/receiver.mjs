// Benchmark (not a test): the receiver kit against a hand-written node:crypto receiver doing the
// least a correct one must (raw body, timestamp window, HMAC-SHA256 with timingSafeEqual,
// JSON.parse, dedupe in a Map, the { remoteOrderId } answer), in the same run.
//
//   1. in process: µs per delivery through receiver.handle() vs the hand-written function; then the
//      kit's node:crypto hashing (bodies over NATIVE_HMAC_FROM) against its wasm hashing, by size;
//   2. over HTTP on 127.0.0.1: deliveries/s of each as a node:http server in its own process.
//
// Prints the ratios (kit / hand-written). Run after `make build`: node benches/node/receiver.mjs
import { fork } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SECRET = 'whsec_bench_receiver';
const body = readFileSync(new URL('../../tests/fixtures/payload/order-created.delivery.valid.json', import.meta.url));
const PATH = '/v1/order/STORE-1';

/** The hand-written receiver: what a careful developer writes with node:crypto alone. */
export function handWritten() {
  const handled = new Map();
  let n = 0;
  return function receive(method, url, headers, raw, now) {
    if (method !== 'POST' || !/^\/v1\/order\/[^/]+$/.test(url)) return { status: 404, body: '{"error":"NOT_FOUND"}' };
    const ts = headers['x-service-timestamp'];
    const sig = headers['x-service-signature-256'];
    if (typeof ts !== 'string' || !/^\d+$/.test(ts) || typeof sig !== 'string' || !sig.startsWith('sha256=')) return { status: 401, body: '{"error":"MALFORMED"}' };
    if (Math.abs(now - Number(ts)) > 300) return { status: 401, body: '{"error":"STALE"}' };
    const mac = createHmac('sha256', SECRET).update(`${ts}.`).update(raw).digest();
    const given = Buffer.from(sig.slice(7), 'hex');
    if (given.length !== 32 || !timingSafeEqual(mac, given)) return { status: 401, body: '{"error":"SIGNATURE_MISMATCH"}' };
    const id = headers['x-service-delivery-id'];
    if (id && handled.has(id)) return { status: 200, body: handled.get(id) };
    const order = JSON.parse(raw.toString('utf8'));
    n += 1;
    const answer = JSON.stringify({ remoteOrderId: `POS-${n}-${order.displayCode}` });
    if (id) handled.set(id, answer);
    return { status: 200, body: answer };
  };
}

function kitReceiver(pkg) {
  let n = 0;
  return pkg.createReceiver({
    secret: SECRET,
    onOrderCreated: ({ payload }) => {
      n += 1;
      return `POS-${n}-${payload.displayCode}`;
    },
  });
}

function headersFor(now) {
  return {
    'content-type': 'application/json',
    'x-service-timestamp': String(now),
    'x-service-signature-256': 'sha256=' + createHmac('sha256', SECRET).update(`${now}.`).update(body).digest('hex'),
    'x-service-delivery-id': randomUUID(),
    'x-service-event-type': 'order.created',
  };
}

/** Best of 5 rounds of `n` awaited calls, in µs per call, after a warm-up. */
async function measure(fn, n = 3000) {
  for (let i = 0; i < Math.min(n, 2000); i++) await fn();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000 / n);
  }
  return best;
}

/**
 * The kit's two ways of hashing a delivery, in process: in Node, bodies over NATIVE_HMAC_FROM
 * bytes go to node:crypto (receiverReceiveMacs); a receiver built without a native HMAC (as in
 * browsers) hashes in wasm. Same update event, padded to each size; fresh delivery ids.
 */
async function hashingPaths() {
  const pkg = require('../../pkg');
  // In Node, pkg's receivers run on poscheck/webhook's module: the same module without node:crypto.
  const raw = require('../../pkg/dist/webhook-web/poscheck.js');
  require('../../pkg/dist/webhook.cjs'); // initializes it
  const { createReceiverApi, NATIVE_HMAC_FROM } = require('../../pkg/dist/receiver.cjs');
  const wasmOnly = createReceiverApi(raw, require('../../pkg/dist/api.cjs'));
  const rows = [];
  for (const size of [NATIVE_HMAC_FROM + 1, 64 * 1024, 512 * 1024]) {
    const event = { orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1', event: 'delivered', occurredAt: '2026-08-12T00:00:00Z', note: '' };
    event.note = 'x'.repeat(size - Buffer.byteLength(JSON.stringify(event)));
    const update = Buffer.from(JSON.stringify(event));
    const now = Math.floor(Date.now() / 1000);
    const signed = { 'x-service-timestamp': String(now), 'x-service-signature-256': 'sha256=' + createHmac('sha256', SECRET).update(`${now}.`).update(update).digest('hex') };
    const time = async (api) => {
      const kit = api.createReceiver({ secret: SECRET, onOrderUpdate: () => {} });
      const run = async () => {
        const r = await kit.handle({ method: 'PUT', url: '/v1/order/STORE-1/R-1/events', headers: { ...signed, 'x-service-delivery-id': randomUUID() }, body: update });
        if (r.status !== 200) throw new Error(r.body);
      };
      return measure(run, size > 100_000 ? 100 : 1000);
    };
    const [native, wasm] = [await time(pkg), await time(wasmOnly)];
    rows.push({ size, native, wasm });
  }
  return rows;
}

async function inProcess() {
  const pkg = require('../../pkg');
  const kit = kitReceiver(pkg);
  const hand = handWritten();
  const now = Math.floor(Date.now() / 1000);
  const prepared = Array.from({ length: 4000 }, () => headersFor(now));
  let k = 0;
  const runKit = async () => {
    const r = await kit.handle({ method: 'POST', url: PATH, headers: prepared[k++ % prepared.length], body });
    if (r.status !== 200) throw new Error(r.body);
  };
  const runHand = async () => {
    const r = hand('POST', PATH, prepared[k++ % prepared.length], body, now);
    if (r.status !== 200) throw new Error(r.body);
  };
  // Fresh delivery ids for each measured call: every one is a first delivery (no replay).
  const fresh = () => {
    for (const h of prepared) h['x-service-delivery-id'] = randomUUID();
  };
  fresh();
  const hand1 = await measure(runHand);
  fresh();
  const kit1 = await measure(runKit);
  fresh();
  const hand2 = await measure(runHand);
  fresh();
  const kit2 = await measure(runKit);
  return { kitUs: Math.min(kit1, kit2), handUs: Math.min(hand1, hand2) };
}

/** A server process: `node receiver.mjs --serve kit|hand` prints its port on IPC. */
async function serve(which) {
  let handler;
  if (which === 'kit') {
    handler = kitReceiver(require('../../pkg')).node;
  } else {
    const receive = handWritten();
    handler = (req, res) => {
      const chunks = [];
      let size = 0;
      req.on('data', (c) => {
        size += c.length;
        if (size <= 1024 * 1024) chunks.push(c);
      });
      req.on('end', () => {
        const r = size > 1024 * 1024 ? { status: 413, body: '{}' } : receive(req.method, req.url, req.headers, Buffer.concat(chunks), Math.floor(Date.now() / 1000));
        res.writeHead(r.status, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(r.body);
      });
    };
  }
  const server = http.createServer({ keepAliveTimeout: 30_000 }, handler);
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', () => process.exit(0));
}

async function overHttp(which, total, concurrency) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', which], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const now = Math.floor(Date.now() / 1000);
  const one = () =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: PATH, headers: { ...headersFor(now), 'content-length': body.length }, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  const run = async (n) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < n) {
          sent += 1;
          await one();
        }
      }),
    );
  };
  await run(500); // warm-up
  const t0 = performance.now();
  await run(total);
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  child.send('exit');
  await new Promise((resolve) => child.once('exit', resolve));
  return total / seconds;
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3]);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { kitUs, handUs } = await inProcess();
  console.log(`receiver, in process (1.2 KB order.created, fresh delivery ids, memory store):`);
  console.log(`  kit (route, verify, validate in wasm; dedupe; handler; answer)  ${kitUs.toFixed(1)} µs/delivery`);
  console.log(`  hand-written node:crypto receiver                                ${handUs.toFixed(1)} µs/delivery`);
  console.log(`  ratio kit / hand-written: ${(kitUs / handUs).toFixed(2)}x per delivery (${(kitUs - handUs).toFixed(1)} µs of overhead)`);
  console.log('receiver, in process, by body size: node:crypto hashing (Node) against wasm hashing (a receiver without a native HMAC):');
  for (const { size, native, wasm } of await hashingPaths()) {
    console.log(`  ${String(size).padStart(7)} B  node:crypto ${native.toFixed(1).padStart(8)} µs  wasm ${wasm.toFixed(1).padStart(8)} µs  ratio ${(wasm / native).toFixed(2)}x`);
  }
  const total = Number(process.env.RECEIVER_BENCH_REQUESTS ?? 6000);
  const rates = { kit: [], hand: [] };
  for (let round = 0; round < 2; round++) {
    for (const which of ['hand', 'kit']) rates[which].push(await overHttp(which, total, 32));
  }
  const kit = Math.max(...rates.kit);
  const hand = Math.max(...rates.hand);
  console.log(`receiver over HTTP (node:http on 127.0.0.1, ${total} deliveries, 32 concurrent, best of 2):`);
  console.log(`  kit ${kit.toFixed(0)} deliveries/s, hand-written ${hand.toFixed(0)} deliveries/s: ratio ${(kit / hand).toFixed(2)}`);
}
