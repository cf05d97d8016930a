// Benchmark (not a test): the receiver kit against what a Node developer would write instead.
//
// Peers (each a node:http server):
//   ajv   the careful hand-written receiver: raw body, timestamp window, HMAC-SHA256 with
//         timingSafeEqual, JSON.parse, a compiled ajv schema (../shared/bench/
//         order-created.ajv-peer.schema.json, with ajv-formats), dedupe in a Map, the
//         { remoteOrderId } answer;
//   bare  the same without ajv;
//   kit   createReceiver with the memory store (routes, verification and validation in the core,
//         exactly-once on the delivery id, the contract's answers);
// and with Redis, 4 processes on each side sharing one redis-server:
//   kit-redis   the kit with createRedisStore (the `redis` client);
//   hand-redis  the careful receiver deduplicating with one SET NX PX (the `redis` client);
//   hand-replay the same, recording its answer with a second SET once handled, so that a retry
//               gets the same remoteOrderId, as the kit does (what exactly-once with the answer
//               replayed costs by hand: shown beside the ratios, not a goal).
//
// 1. over HTTP on 127.0.0.1: each server in a process of its own, fresh for every round, the order
//    of the servers rotated between rounds; autocannon (installed on first use into
//    benches/node/sandbox-deps, like sandbox.mjs) signs every request with a fresh delivery id.
//    In a round, every server is started and warmed up, then the measured window alternates
//    between them in BENCH_SLICES slices (the host's drifts fall on all of them alike). Short
//    slices, because the drift is fast: on 2026-11-27 one server's consecutive 1 s slices read
//    47 to 93 µs per delivery, and two identical ajv servers read 1.035× (per round 0.97 to 1.12)
//    in 6 rounds of 4 slices of 1 s, against 0.97 to 0.99 per round in slices of 0.25 s.
//    Server CPU per delivery from /proc/PID/stat (user + system), deliveries/s from autocannon.
//    The ratios are medians of per-round ratios.
// 2. in process: µs per delivery through receiver.handle() against the hand-written functions;
//    then the kit's node:crypto hashing (bodies over NATIVE_HMAC_FROM) against its wasm hashing.
//
// Warm-up: every fresh server gets the same load for BENCH_WARMUP seconds before the measured
// window (BENCH_REDIS_WARMUP with Redis), in two runs of autocannon, so that the window meets a
// server whose connections have already been opened and closed once. Measured with --trace-opt
// (2026-11-27): a single 1 s warm-up left V8 optimizing in the window, 86-92 functions re-optimized
// after deoptimizations at the first close and reopen of the connections, in the kit and in ajv
// alike; the 4 Redis processes, which share 2 cores with Redis and the client, were still
// optimizing 40-180 functions a second after 4 s (the kit's and hand-redis's alike).
//
// Settings (environment): BENCH_ROUNDS (7), BENCH_SECONDS (4, per server and round),
// BENCH_SLICES (16), BENCH_WARMUP (4), BENCH_REDIS_WARMUP (10),
// BENCH_CONNECTIONS (32), BENCH_ONLY=http,redis,inprocess (all), BENCH_PROF=DIR (the kit's servers
// run with --cpu-prof into DIR/kit and DIR/kit-redis; BENCH_PROF_SERVERS=kit,ajv,… chooses which),
// BENCH_KIT_SOURCE=FILE.mjs (the kit's servers build their receivers with that version of
// pkg/src/receiver.js over this build's module: `git show REV:pkg/src/receiver.js > FILE.mjs`).
// Run after `make build`: node benches/node/receiver.mjs (`make bench` runs it)
import { cpuMicros } from './support.mjs';
import { execFileSync, fork } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
const SECRET = 'whsec_bench_receiver';
const body = readFileSync(new URL('../../tests/fixtures/payload/order-created.delivery.valid.json', import.meta.url));
// The store of the fixture's storeRemoteId: the path the service calls for it (another store's path
// is a warning in the payload's report).
const PATH = '/v1/order/store-1';
const SCHEMA = fileURLToPath(new URL('../../../shared/bench/order-created.ajv-peer.schema.json', import.meta.url));
const DEPS = fileURLToPath(new URL('./sandbox-deps/', import.meta.url));
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const ROUNDS = env('BENCH_ROUNDS', 7);
const SECONDS = env('BENCH_SECONDS', 4);
const WARMUP = env('BENCH_WARMUP', 4);
const REDIS_WARMUP = env('BENCH_REDIS_WARMUP', 10);
const SLICES = Math.max(1, Math.floor(env('BENCH_SLICES', 16)));
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'http,redis,inprocess').split(','));
const TTL_MS = 24 * 60 * 60 * 1000;

/** ajv compiled from the peer's schema (what a careful developer validates the order with). */
function compiledSchema() {
  const Ajv = require('ajv');
  const addFormats = require('ajv-formats');
  const ajv = new (Ajv.default ?? Ajv)();
  (addFormats.default ?? addFormats)(ajv);
  return ajv.compile(JSON.parse(readFileSync(SCHEMA, 'utf8')));
}

/**
 * The hand-written receiver: what a careful developer writes with node:crypto (and, with
 * `validate`, a compiled ajv schema). `seen(id)` resolves true for a first delivery; the default
 * is a Map (one process); with Redis it is one SET NX PX.
 */
export function handWritten({ validate = null, seen = null, recorded = null } = {}) {
  const handled = new Map();
  let n = 0;
  const answerOf = (order) => {
    n += 1;
    return JSON.stringify({ remoteOrderId: `POS-${n}-${order.displayCode}` });
  };
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
    if (seen === null && id && handled.has(id)) return { status: 200, body: handled.get(id) };
    let order;
    try {
      order = JSON.parse(raw.toString('utf8'));
    } catch {
      return { status: 400, body: '{"error":"INVALID_JSON"}' };
    }
    if (validate !== null && !validate(order)) return { status: 422, body: JSON.stringify({ error: 'INVALID_PAYLOAD', errors: validate.errors }) };
    if (seen !== null) {
      return seen(id).then((first) => {
        if (!first) return { status: 200, body: '{"duplicate":true}' };
        const answer = answerOf(order);
        if (recorded !== null) recorded(id, answer);
        return { status: 200, body: answer };
      });
    }
    const answer = answerOf(order);
    if (id) handled.set(id, answer);
    return { status: 200, body: answer };
  };
}

function kitReceiver(pkg, store) {
  let n = 0;
  return pkg.createReceiver({
    secret: SECRET,
    store,
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

// ---- the server processes ------------------------------------------------------------------------

async function redisClient(url) {
  const { createClient } = require('redis');
  const c = createClient({ url });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** A server process: `node receiver.mjs --serve WHICH [REDIS_URL PREFIX]` sends its port on IPC. */
async function serve(which, redisUrl, prefix) {
  let handler;
  let client = null;
  if (which === 'kit' || which === 'kit-redis') {
    let pkg = require('../../pkg');
    const source = process.env.BENCH_KIT_SOURCE;
    if (source) {
      // Another version of pkg/src/receiver.js (A/B), over this build's module and facade.
      require('../../pkg/dist/webhook.cjs'); // initializes the module the package's receivers run on
      const { createReceiverApi } = await import(pathToFileURL(source).href);
      const crypto = require('node:crypto');
      const platform = { createHash: crypto.createHash, createHmac: crypto.createHmac, hash: crypto.hash };
      pkg = createReceiverApi(require('../../pkg/dist/webhook-web/poscheck.js'), require('../../pkg/dist/api.cjs'), undefined, platform);
    }
    if (which === 'kit-redis') client = await redisClient(redisUrl);
    handler = kitReceiver(pkg, client === null ? undefined : pkg.createRedisStore(client, { prefix })).node;
  } else {
    let seen = null;
    let recorded = null;
    if (which === 'hand-redis' || which === 'hand-replay') {
      client = await redisClient(redisUrl);
      seen = (id) => client.sendCommand(['SET', prefix + id, '1', 'NX', 'PX', String(TTL_MS)]).then((r) => r !== null);
      if (which === 'hand-replay') recorded = (id, answer) => client.sendCommand(['SET', prefix + id, `d:${answer}`, 'XX', 'PX', String(TTL_MS)]).catch(() => {});
    }
    const receive = handWritten({ validate: which === 'bare' ? null : compiledSchema(), seen, recorded });
    const write = (res, r) => {
      res.writeHead(r.status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(r.body);
    };
    handler = (req, res) => {
      const chunks = [];
      let size = 0;
      req.on('data', (c) => {
        size += c.length;
        if (size <= 1024 * 1024) chunks.push(c);
      });
      req.on('end', () => {
        const r = size > 1024 * 1024 ? { status: 413, body: '{}' } : receive(req.method, req.url, req.headers, Buffer.concat(chunks), Math.floor(Date.now() / 1000));
        if (typeof r.then === 'function') r.then((a) => write(res, a), () => write(res, { status: 503, body: '{"error":"STORE_UNAVAILABLE"}' }));
        else write(res, r);
      });
    };
  }
  const server = http.createServer({ keepAliveTimeout: 30_000 }, handler);
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', async () => {
    server.closeAllConnections();
    server.close();
    await client?.quit().catch(() => {});
    process.exit(0);
  });
}

function startServer(which, args = [], execArgv = []) {
  const child = fork(SELF, ['--serve', which, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${which} did not start within 60 s`)), 60_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve({ child, port: m.port });
    });
    child.once('exit', (code) => reject(new Error(`${which} exited (${code}) before listening`)));
  });
}

function stopServer({ child }) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send('exit');
  });
}

function installAutocannon() {
  const want = JSON.parse(readFileSync(`${DEPS}package.json`, 'utf8')).dependencies.autocannon;
  let have = null;
  try {
    have = JSON.parse(readFileSync(`${DEPS}node_modules/autocannon/package.json`, 'utf8')).version;
  } catch {
    // not installed yet
  }
  if (have !== want) {
    console.error('receiver bench: installing autocannon into benches/node/sandbox-deps (once)');
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--prefix', DEPS, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit', timeout: 600_000 });
  }
  return createRequire(`${DEPS}package.json`)('autocannon');
}

/** autocannon against `port` for `seconds`, every request signed now with a fresh delivery id. */
function load(autocannon, port, seconds, connections) {
  const request = {
    method: 'POST',
    path: PATH,
    body,
    setupRequest(req) {
      req.headers = headersFor(Math.floor(Date.now() / 1000));
      return req;
    },
  };
  return new Promise((resolve, reject) => {
    autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: seconds, requests: [request], timeout: 10 }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

/**
 * One round: for each of `servers`, `processes` fresh server processes, each group warmed up in
 * two runs of `warmup` seconds in all (each run at least 1 s), one group after the other. Then
 * the measured window, SECONDS per group, in SLICES slices that alternate between the groups,
 * starting with the first:
 * drifts of the shared host (other tenants, frequency) that last longer than a slice then fall on
 * every group alike. Each group's load is spread over its processes (connections split evenly);
 * a group's CPU is read from its processes before and after each of its slices. Returns
 * { [server]: { rate, cpuUs, bad } }.
 */
async function measureRound(autocannon, servers, options) {
  const groups = servers.map((which) => ({ which, options: { processes: 1, args: [], execArgv: [], warmup: WARMUP, ...options(which) }, processes: [], cpu: 0, ok: 0, bad: 0, seconds: 0 }));
  try {
    for (const g of groups) {
      const { processes, args, execArgv } = g.options;
      for (let i = 0; i < processes; i++) g.processes.push(await startServer(g.which, args, execArgv));
      g.per = Math.max(1, Math.floor(CONNECTIONS / processes));
    }
    for (const g of groups) {
      for (let run = 0; run < 2; run++) await Promise.all(g.processes.map((s) => load(autocannon, s.port, Math.max(1, g.options.warmup / 2), g.per)));
    }
    const slice = SECONDS / SLICES;
    for (let k = 0; k < SLICES; k++) {
      for (const g of groups) {
        const cpu0 = g.processes.map((s) => cpuMicros(s.child.pid));
        const t0 = performance.now();
        const results = await Promise.all(g.processes.map((s) => load(autocannon, s.port, slice, g.per)));
        g.seconds += (performance.now() - t0) / 1000;
        g.cpu += g.processes.reduce((sum, s, i) => sum + cpuMicros(s.child.pid) - cpu0[i], 0);
        g.ok += results.reduce((n, r) => n + r['2xx'], 0);
        g.bad += results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
      }
    }
    return Object.fromEntries(groups.map((g) => [g.which, { rate: g.ok / g.seconds, cpuUs: g.cpu / Math.max(1, g.ok + g.bad), bad: g.bad }]));
  } finally {
    await Promise.all(groups.flatMap((g) => g.processes.map(stopServer)));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);

/** Rounds over `servers`, the order rotated between rounds; returns per-server lists of { rate, cpuUs }. */
async function rounds(autocannon, servers, options = () => ({})) {
  const out = Object.fromEntries(servers.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const measured = await measureRound(autocannon, rotate(servers, round), (which) => options(which, round));
    for (const which of servers) {
      const m = measured[which];
      if (m.bad > 0) console.error(`  ${which}: ${m.bad} requests not answered 200 in round ${round + 1}`);
      out[which].push(m);
    }
  }
  return out;
}

function printRatios(title, out, pairs) {
  console.log(title);
  for (const [which, list] of Object.entries(out)) {
    const cpu = median(list.map((m) => m.cpuUs));
    const rate = median(list.map((m) => m.rate));
    console.log(`  ${which.padEnd(11)} ${cpu.toFixed(1).padStart(6)} µs CPU/delivery  ${rate.toFixed(0).padStart(6)} deliveries/s  (medians; rounds: ${list.map((m) => m.cpuUs.toFixed(0)).join(' ')} µs)`);
  }
  for (const [a, b] of pairs) {
    const cpuRatio = median(out[a].map((m, i) => m.cpuUs / out[b][i].cpuUs));
    const rateRatio = median(out[a].map((m, i) => m.rate / out[b][i].rate));
    console.log(`  ${a} / ${b}: CPU per delivery ${cpuRatio.toFixed(2)}×, deliveries/s ${rateRatio.toFixed(2)}×  (medians of ${out[a].length} per-round ratios)`);
  }
}

/** --cpu-prof for the servers BENCH_PROF_SERVERS names (kit by default) when BENCH_PROF is set. */
function profiled(which) {
  const prof = process.env.BENCH_PROF;
  return prof && (process.env.BENCH_PROF_SERVERS ?? 'kit,kit-redis').split(',').includes(which) ? ['--cpu-prof', '--cpu-prof-dir', `${prof}/${which}`] : [];
}

async function overHttp(autocannon) {
  const out = await rounds(autocannon, ['kit', 'ajv', 'bare'], (which) => ({ execArgv: profiled(which) }));
  printRatios(
    `receiver over HTTP (node:http on 127.0.0.1; 1.2 KB order.created, fresh delivery ids; autocannon, ${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS} s per server in ${SLICES} alternating slices after ${WARMUP} s of warm-up, each server in a fresh process, order rotated):`,
    out,
    [
      ['kit', 'ajv'],
      ['kit', 'bare'],
    ],
  );
}

async function withRedis(autocannon) {
  const { startRedis } = await import('../../tests/receiver/helpers.mjs');
  const redis = await startRedis();
  try {
    const out = await rounds(autocannon, ['kit-redis', 'hand-redis', 'hand-replay'], (which, round) => ({ processes: 4, args: [redis.url, `bench:${round}:${which}:`], execArgv: profiled(which), warmup: REDIS_WARMUP }));
    printRatios(`receiver with Redis (4 processes per side sharing one redis-server; ${CONNECTIONS} connections split over them; ${ROUNDS} rounds of ${SECONDS} s per side in ${SLICES} alternating slices after ${REDIS_WARMUP} s of warm-up; the peer: ajv + one SET NX PX; hand-replay also records its answer with a second SET):`, out, [
      ['kit-redis', 'hand-redis'],
      ['hand-replay', 'hand-redis'],
      ['kit-redis', 'hand-replay'],
    ]);
  } finally {
    await redis.close();
  }
}

// ---- in process ----------------------------------------------------------------------------------

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
  const ajv = handWritten({ validate: compiledSchema() });
  const bare = handWritten();
  const now = Math.floor(Date.now() / 1000);
  const prepared = Array.from({ length: 4000 }, () => headersFor(now));
  let k = 0;
  // A fresh delivery id for every call (every one a first delivery, never a replay: a repeated id
  // would be answered from the hand-written receivers' Map without a parse, as before 2026-11-27).
  const next = () => {
    const h = prepared[k++ % prepared.length];
    h['x-service-delivery-id'] = randomUUID();
    return h;
  };
  const runKit = async () => {
    const r = await kit.handle({ method: 'POST', url: PATH, headers: next(), body });
    if (r.status !== 200) throw new Error(r.body);
  };
  const runHand = (hand) => async () => {
    const r = hand('POST', PATH, next(), body, now);
    if (r.status !== 200) throw new Error(r.body);
  };
  const times = { kit: [], ajv: [], bare: [] };
  for (let i = 0; i < 2; i++) {
    times.bare.push(await measure(runHand(bare)));
    times.ajv.push(await measure(runHand(ajv)));
    times.kit.push(await measure(runKit));
  }
  return Object.fromEntries(Object.entries(times).map(([w, t]) => [w, Math.min(...t)]));
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3], process.argv[4], process.argv[5]);
} else if (process.argv[1] === SELF) {
  if (!existsSync(SCHEMA)) throw new Error(`the ajv peer's schema is missing: ${SCHEMA}`);
  if (ONLY.has('http') || ONLY.has('redis')) {
    const autocannon = installAutocannon();
    if (ONLY.has('http')) await overHttp(autocannon);
    if (ONLY.has('redis')) await withRedis(autocannon);
  }
  if (ONLY.has('inprocess')) {
    const t = await inProcess();
    console.log('receiver, in process (1.2 KB order.created, fresh delivery ids, memory store; best of 2):');
    console.log(`  kit ${t.kit.toFixed(1)} µs/delivery, hand-written + ajv ${t.ajv.toFixed(1)} µs, bare ${t.bare.toFixed(1)} µs: kit / ajv ${(t.kit / t.ajv).toFixed(2)}×`);
    console.log('receiver, in process, by body size: node:crypto hashing (Node) against wasm hashing (a receiver without a native HMAC):');
    for (const { size, native, wasm } of await hashingPaths()) {
      console.log(`  ${String(size).padStart(7)} B  node:crypto ${native.toFixed(1).padStart(8)} µs  wasm ${wasm.toFixed(1).padStart(8)} µs  ratio ${(wasm / native).toFixed(2)}x`);
    }
  }
}
