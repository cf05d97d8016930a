// Benchmark (not a test): the sandbox's memory, the native binary's and the npm one's side by
// side: the resident set (VmRSS) and its peak (VmHWM, from /proc/PID/status) idle after start, and
// after 100,000 orders placed through POST /_sandbox/orders. Run after `make build` and
// `cargo build --release --bin poscheck` (`make bench` does both):
//
//   node benches/node/sandbox-memory.mjs
//
// Each sandbox runs alone, in a process of its own on 127.0.0.1, one after the other:
//   native  target/release/poscheck sandbox --port 0 … (POSCHECK_NATIVE_RELEASE_BIN)
//   npm     node pkg/bin/poscheck.js sandbox --port 0 …
// with `--clock manual` (nothing falls due: no timeout, no retry), `--options` with the rate limits
// off and maxOrders at least the orders placed, `--config` with one store without autoAccept, and
// `--pos` a tiny POS in this process that answers every creation webhook 200 with a remoteOrderId:
// each order is one delivery that succeeds at its first attempt, so that the model holds the
// orders (Pending, with their remoteOrderId), one settled delivery each, and its journal (capped:
// 20,000 entries and 64 MiB), and nothing waiting to be sent again. The orders are placed over
// BENCH_CONNECTIONS keep-alive connections, each waiting for its answer (which the sandbox gives
// once the creation webhook settled) before the next. Their log lines go to a pipe this process
// drains and drops.
//
// Settings (environment): BENCH_ORDERS (100000), BENCH_CONNECTIONS (8), BENCH_IDLE_SECONDS (2: the
// wait after start, and after the last order, before reading /proc), BENCH_SERVERS=native,npm.
// Bounded: each sandbox's orders within BENCH_MAX_SECONDS (600), the whole run within twice that
// plus a minute; past it, the run stops and says so.
import { scratch, cpuMicros, startServer } from './support.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOST = '127.0.0.1';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 2);
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 600);
const SERVERS = (process.env.BENCH_SERVERS ?? 'native,npm').split(',');
const NATIVE_BIN = process.env.POSCHECK_NATIVE_RELEASE_BIN ?? `${ROOT}target/release/poscheck`;

const { tmp, children } = scratch('poscheck-memory-');
const DEADLINE_S = 60 + SERVERS.length * (MAX_SECONDS + 2 * IDLE_SECONDS + 30);
const deadline = setTimeout(() => {
  console.error(`sandbox-memory bench: still running after ${DEADLINE_S} s; stopping`);
  process.exit(1);
}, DEADLINE_S * 1000);
deadline.unref();

function broken(msg) {
  console.error(`sandbox-memory bench: broken setup: ${msg}`);
  process.exit(1);
}

for (const s of SERVERS) if (!['native', 'npm'].includes(s)) broken(`no server ${s} (BENCH_SERVERS: native, npm)`);
if (SERVERS.includes('native') && !existsSync(NATIVE_BIN)) broken(`no ${NATIVE_BIN}: cargo build --release --bin poscheck`);
if (SERVERS.includes('npm') && !existsSync(`${ROOT}pkg/dist/sandbox.mjs`)) broken('no pkg/dist: make build');
const nativeVersion = SERVERS.includes('native') ? execFileSync(NATIVE_BIN, ['--version'], { encoding: 'utf8' }).trim() : null;

writeFileSync(`${tmp}/options.json`, JSON.stringify({ rateLimits: false, maxOrders: Math.max(ORDERS, 100_000) }));
writeFileSync(`${tmp}/config.json`, JSON.stringify({ clients: [{ apiKey: 'sbx_key_memory', stores: [{ remoteId: 'STORE-1' }] }] }));

// ---- the tiny POS ----
let remote = 0;
const pos = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({ remoteOrderId: `R-${++remote}` });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
pos.keepAliveTimeout = 60_000;
await new Promise((resolve) => pos.listen(0, HOST, resolve));
const posUrl = `http://${HOST}:${pos.address().port}`;

const results = [];
const startedAt = Date.now();
for (const name of SERVERS) {
  const load0 = os.loadavg();
  const cmd = name === 'native' ? [NATIVE_BIN] : [process.execPath, `${ROOT}pkg/bin/poscheck.js`];
  const args = ['sandbox', '--port', '0', '--clock', 'manual', '--options', `${tmp}/options.json`, '--config', `${tmp}/config.json`, '--pos', posUrl];
  const { child, url } = await start(name, cmd[0], [...cmd.slice(1), ...args]);
  await sleep(IDLE_SECONDS * 1000);
  const idle = memory(child.pid);
  const t0 = performance.now();
  const cpu0 = [cpuMicros(child.pid), process.cpuUsage()];
  const placed = await place(name, url);
  const seconds = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(cpu0[1]);
  const cpu = { server: (cpuMicros(child.pid) - cpu0[0]) / placed, client: (own.user + own.system) / placed };
  await sleep(IDLE_SECONDS * 1000);
  const after = memory(child.pid);
  // It still answers the POS (the list's first page).
  const check = await fetch(`${url}/api/v1/Orders`, { headers: { 'X-Service-Api-Key': 'sbx_key_memory' }, signal: AbortSignal.timeout(10_000) });
  if (check.status !== 200) broken(`${name} answered the list with ${check.status}: ${(await check.text()).slice(0, 300)}`);
  await check.arrayBuffer();
  const load1 = os.loadavg();
  results.push({ name, idle, after, placed, seconds, cpu, load0, load1 });
  process.stderr.write(`${name}: idle ${mib(idle.rss)} (peak ${mib(idle.hwm)}); after ${placed.toLocaleString('en-US')} orders in ${seconds.toFixed(1)} s (CPU an order: sandbox ${cpu.server.toFixed(0)} µs, this process ${cpu.client.toFixed(0)} µs): ${mib(after.rss)} (peak ${mib(after.hwm)}); load ${load0[0].toFixed(2)} → ${load1[0].toFixed(2)}\n`);
  await stop(child);
}
clearTimeout(deadline);
pos.close();

console.log(`\nThe sandbox's memory (/proc/PID/status: VmRSS, and VmHWM its peak), idle ${IDLE_SECONDS} s after start and ${IDLE_SECONDS} s after ${ORDERS.toLocaleString('en-US')} orders placed through POST /_sandbox/orders (${CONNECTIONS} keep-alive connections; manual clock; each creation webhook answered 200 by a tiny POS).`);
console.log(`Node ${process.version}; ${nativeVersion ? `native: ${NATIVE_BIN} (${nativeVersion}); ` : ''}${os.cpus().length} CPUs (${os.cpus()[0]?.model}); ${new Date(startedAt).toISOString()}, ${((Date.now() - startedAt) / 1000).toFixed(0)} s.\n`);
const head = ['sandbox', 'idle VmRSS', 'idle VmHWM', `VmRSS, ${ORDERS.toLocaleString('en-US')} orders`, 'VmHWM', 'per order', 'placing them', 'CPU an order: sandbox, client and POS', 'load average (1 min), before → after'];
console.log(`| ${head.join(' | ')} |`);
console.log(`|${head.map(() => '---').join('|')}|`);
for (const r of results) {
  console.log(
    `| ${r.name === 'native' ? 'native' : 'npm'} | ${mib(r.idle.rss)} | ${mib(r.idle.hwm)} | ${mib(r.after.rss)} | ${mib(r.after.hwm)} | ` +
      `${(((r.after.rss - r.idle.rss) * 1024) / r.placed).toFixed(0)} B | ${r.seconds.toFixed(1)} s (${Math.round(r.placed / r.seconds).toLocaleString('en-US')}/s) | ${r.cpu.server.toFixed(0)} µs, ${r.cpu.client.toFixed(0)} µs | ${r.load0[0].toFixed(2)} → ${r.load1[0].toFixed(2)} |`,
  );
}
process.exit(0);

// ---- helpers ----

/** Places ORDERS orders over CONNECTIONS keep-alive connections; resolves with the count. */
async function place(name, url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const until = Date.now() + MAX_SECONDS * 1000;
  const body = Buffer.from('{"store":"STORE-1"}');
  let next = 0;
  let done = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = http.request(`${url}/_sandbox/orders`, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length }, timeout: 30_000 }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200 && res.statusCode !== 201) reject(new Error(`${name} answered order ${done + 1} with ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`));
          else resolve();
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${name}: no answer to an order within 30 s`)));
      req.on('error', reject);
      req.end(body);
    });
  const worker = async () => {
    while (next < ORDERS) {
      if (Date.now() > until) throw new Error(`${name}: ${done} orders placed in ${MAX_SECONDS} s, not ${ORDERS} (BENCH_MAX_SECONDS)`);
      next++;
      await one();
      done++;
      if (done % 20_000 === 0) process.stderr.write(`${name}: ${done.toLocaleString('en-US')} orders\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  } catch (e) {
    broken(e.message);
  } finally {
    agent.destroy();
  }
  return done;
}

/** Spawns a sandbox (support.mjs); resolves with { child, url } once its banner gives the REST base. */
function start(name, cmd, args) {
  const banner = (out) => /REST base\s+(http:\/\/\S+?)\/api\/v1\//.exec(out)?.[1];
  return startServer(children, name, cmd, args, banner, (message, child) => {
    if (!child.stopping) broken(message);
  }).catch((e) => broken(e.message));
}

function stop(child) {
  child.stopping = true;
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** VmRSS and VmHWM of a process, KiB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

function mib(kib) {
  return `${(kib / 1024).toFixed(1)} MiB`;
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
