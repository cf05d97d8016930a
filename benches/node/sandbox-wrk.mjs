// Benchmark (not a test): the sandbox's REST answers per second with wrk as the load client (C,
// one thread: not the bottleneck), the native binary's sandbox and the npm one side by side, against
// two servers answering a constant body: a bare node:http server (Node's limit) and the minimal
// hyper server of benches/hyper-hello (the machine's limit for a Rust stack). Issue 43's goal, per
// row: the native sandbox ≥ 0.75× hyper-hello and ≥ 1.2× the bare node:http server. Reported, not
// asserted. Run after `make build`, `cargo build --release --bin poscheck` and
// `cargo build --release --manifest-path benches/hyper-hello/Cargo.toml --target-dir target/hyper-hello`
// (`make bench` does all three):
//
//   node benches/node/sandbox-wrk.mjs
//
// Servers, each in a process of its own on 127.0.0.1, stopped at the end:
//   bare    node:http answering {"message":"ok","data":{"items":[],"nextCursor":null,"hasMore":false}}
//           to every request, 401 without X-Service-Api-Key (as hyper-hello does)
//   hyper   benches/hyper-hello (target/hyper-hello/release/hyper-hello; POSCHECK_HYPER_HELLO_BIN)
//   npm     node pkg/bin/poscheck.js sandbox --port 0 …
//   native  target/release/poscheck sandbox --port 0 … (POSCHECK_NATIVE_RELEASE_BIN)
// Both sandboxes: the real clock, `--options` with the rate limits off and the acceptance window at
// its largest (86,400 s, so that no order times out during the run), `--config` with one client
// (a known API key) and one store without autoAccept, `--pos` a tiny POS in this process answering
// the creation webhooks 200 with a remoteOrderId. Their log lines (one a request) go to a pipe this
// process drains and drops; its CPU time is printed.
//
// Rows, in this order (each: every server in turn, BENCH_ROUNDS rounds, the best round kept):
//   list    GET /api/v1/Orders on an empty sandbox (measured before any order exists)
//   detail  GET /api/v1/Orders/{orderKey}, the 50 orders created with POST /_sandbox/orders in turn
//   accept  POST /api/v1/Orders/{orderKey}/accept over the same 50 orders with a fresh
//           Idempotency-Key (a UUID v4) per request, made by the wrk script: as the "accept, fresh key"
//           row of sandbox.mjs, the first accept of an order answers 202 and every later one 409,
//           both full answers of the model (checks, idempotency store, order engine).
// The constant servers get the same requests. Before each row a check request per server must
// answer the expected status; during the load, the wrk script counts the statuses: list and detail
// answer 200, accept 202 or 409 (the sandboxes) and 200 (the constant servers); anything else, or a
// socket error, is reported and makes the run exit non-zero after the tables (a broken setup, not
// a slow result).
//
// Settings (environment): BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (32),
// BENCH_THREADS (1), BENCH_WARMUP (1: seconds of load before each server's first round of a row),
// BENCH_ONLY=list,detail,accept, BENCH_SERVERS=bare,hyper,npm,native, BENCH_ORDERS (50), WRK (wrk).
import { scratch, cpuMicros, freePort, startServer } from './support.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOST = '127.0.0.1';
const BODY = '{"message":"ok","data":{"items":[],"nextCursor":null,"hasMore":false}}';
const API_KEY = 'sbx_key_bench';

/** node:http answering the constant list envelope, as benches/hyper-hello does. */
async function bareChild() {
  const body = Buffer.from(BODY);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.headers['x-service-api-key'] === undefined ? 401 : 200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, HOST, resolve));
  const bye = () => server.close(() => process.exit(0));
  process.on('SIGTERM', bye);
  process.on('SIGINT', bye);
  process.stdout.write(`${JSON.stringify({ url: `http://${HOST}:${server.address().port}` })}\n`);
}

async function parent() {
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
  const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const THREADS = Number(process.env.BENCH_THREADS ?? 1);
  const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
  const ORDERS = Number(process.env.BENCH_ORDERS ?? 50);
  const ROWS = (process.env.BENCH_ONLY ?? 'list,detail,accept').split(',');
  const SERVERS = (process.env.BENCH_SERVERS ?? 'bare,hyper,npm,native').split(',');
  const WRK = process.env.WRK ?? 'wrk';
  const HYPER_BIN = process.env.POSCHECK_HYPER_HELLO_BIN ?? `${ROOT}target/hyper-hello/release/hyper-hello`;
  const NATIVE_BIN = process.env.POSCHECK_NATIVE_RELEASE_BIN ?? `${ROOT}target/release/poscheck`;
  for (const r of ROWS) if (!['list', 'detail', 'accept'].includes(r)) broken(`no row ${r} (BENCH_ONLY: list, detail, accept)`);
  for (const s of SERVERS) if (!['bare', 'hyper', 'npm', 'native'].includes(s)) broken(`no server ${s} (BENCH_SERVERS: bare, hyper, npm, native)`);
  // Every load is bounded by wrk's -d; this bounds the whole run, start-up included.
  const DEADLINE_MS = 120_000 + ROWS.length * SERVERS.length * (ROUNDS * (SECONDS + 3) + WARMUP + 3) * 1000;

  const { tmp, children, killAll } = scratch('poscheck-wrk-');
  const deadline = setTimeout(() => {
    console.error(`sandbox-wrk bench: still running after ${DEADLINE_MS / 1000} s; stopping`);
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();

  function broken(msg) {
    console.error(`sandbox-wrk bench: broken setup: ${msg}`);
    process.exit(1);
  }

  // ---- what the run needs ----
  let wrkVersion;
  try {
    wrkVersion = execFileSync(WRK, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0];
  } catch (e) {
    // `wrk -v` prints its version and usage, and exits 1.
    wrkVersion = String(e.stdout ?? '').split('\n')[0];
    if (!wrkVersion.startsWith('wrk')) broken(`no ${WRK} (Debian: apt-get install wrk; make bench installs it)`);
  }
  if (SERVERS.includes('hyper') && !existsSync(HYPER_BIN)) {
    broken(`no ${HYPER_BIN}: cargo build --release --manifest-path benches/hyper-hello/Cargo.toml --target-dir target/hyper-hello`);
  }
  if (SERVERS.includes('native') && !existsSync(NATIVE_BIN)) broken(`no ${NATIVE_BIN}: cargo build --release --bin poscheck`);
  if (SERVERS.includes('npm') && !existsSync(`${ROOT}pkg/dist/sandbox.mjs`)) broken('no pkg/dist: make build');
  const nativeVersion = SERVERS.includes('native') ? execFileSync(NATIVE_BIN, ['--version'], { encoding: 'utf8' }).trim() : null;

  writeFileSync(`${tmp}/options.json`, JSON.stringify({ rateLimits: false, acceptanceWindowSeconds: 86_400 }));
  writeFileSync(`${tmp}/config.json`, JSON.stringify({ clients: [{ apiKey: API_KEY, stores: [{ remoteId: 'STORE-1' }] }] }));
  writeFileSync(`${tmp}/load.lua`, LUA);

  // ---- the tiny POS: answers every webhook 200, the creation ones with a remoteOrderId ----
  let remote = 0;
  const pos = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({ remoteOrderId: `R-${++remote}` });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise((resolve) => pos.listen(0, HOST, resolve));
  const posUrl = `http://${HOST}:${pos.address().port}`;

  // ---- the servers ----
  /** Spawns a server (support.mjs); a late exit is reported, not fatal. */
  const startChild = (name, cmd, args, ready) =>
    startServer(children, name, cmd, args, ready, (message) => {
      if (!stopping) console.error(`sandbox-wrk bench: ${message}`);
    });

  const banner = (out) => /REST base\s+(http:\/\/\S+?)\/api\/v1\//.exec(out)?.[1];
  const sandboxArgs = ['sandbox', '--port', '0', '--options', `${tmp}/options.json`, '--config', `${tmp}/config.json`, '--pos', posUrl];

  /** hyper-hello takes a port and prints nothing: a free port, then requests until it answers. */
  async function startHyper() {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const child = spawn(HYPER_BIN, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.add(child);
      let exited = null;
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
      child.on('exit', (code, signal) => {
        exited = signal ?? code;
        children.delete(child);
        if (!stopping && started) console.error(`sandbox-wrk bench: hyper exited (${exited}) during the run: ${stderr}`);
      });
      let started = false;
      const url = `http://${HOST}:${port}`;
      const until = Date.now() + 30_000;
      while (exited === null && Date.now() < until) {
        try {
          const res = await fetch(`${url}/api/v1/Orders`, { headers: { 'X-Service-Api-Key': API_KEY }, signal: AbortSignal.timeout(2000) });
          await res.arrayBuffer();
          started = true;
          return { child, url, pid: child.pid };
        } catch {
          await sleep(100);
        }
      }
      // The free port may have been taken meanwhile (hyper-hello panics on bind): another one.
      if (exited === null) child.kill('SIGKILL');
      if (attempt === 3) throw new Error(`hyper-hello did not listen (${exited ?? 'no answer in 30 s'}): ${stderr}`);
    }
  }

  let stopping = false;
  const servers = {};
  try {
    const started = await Promise.all(
      SERVERS.map((name) => {
        switch (name) {
          case 'bare':
            return startChild('bare', process.execPath, [SELF, '--child', 'bare'], (out) => (out.includes('\n') ? JSON.parse(out.slice(0, out.indexOf('\n'))).url : null));
          case 'hyper':
            return startHyper();
          case 'npm':
            return startChild('npm', process.execPath, [`${ROOT}pkg/bin/poscheck.js`, ...sandboxArgs], banner);
          case 'native':
            return startChild('native', NATIVE_BIN, sandboxArgs, banner);
        }
      }),
    );
    SERVERS.forEach((name, i) => (servers[name] = started[i]));
  } catch (e) {
    broken(e.message);
  }
  const sandboxes = SERVERS.filter((n) => n === 'npm' || n === 'native');

  /** One request; resolves with { status, text }. */
  async function ask(url, method, path, headers = {}, body) {
    const res = await fetch(`${url}${path}`, { method, headers, body, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, text: await res.text() };
  }
  const mutation = () => ({ 'X-Service-Api-Key': API_KEY, 'X-Service-Schema-Version': '1.0', 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() });
  async function check(name, what, method, path, headers, body, want) {
    const r = await ask(servers[name].url, method, path, headers, body);
    if (!want.includes(r.status)) broken(`${name} answered ${what} (${method} ${path}) with ${r.status}, expected ${want.join(' or ')}: ${r.text.slice(0, 300)}`);
    return r;
  }
  for (const name of ['bare', 'hyper'].filter((n) => servers[n])) await check(name, 'a request without the key', 'GET', '/api/v1/Orders', {}, undefined, [401]);

  // ---- the load ----
  const problems = [];
  const results = {}; // row → server → [result of each round]
  const loads = []; // [when, row, load averages]
  const wrkCpu = [];
  const cpuAtStart = process.cpuUsage();
  const startedAt = Date.now();
  let orderKeys = null;

  for (const row of ROWS) {
    if (row !== 'list' && orderKeys === null) orderKeys = await createOrders();
    const keys = row === 'list' ? [] : orderKeys;
    // The checks: one request per server, the row's own.
    for (const name of SERVERS) {
      const constant = !sandboxes.includes(name);
      if (row === 'list') {
        const r = await check(name, 'the list', 'GET', '/api/v1/Orders', { 'X-Service-Api-Key': API_KEY }, undefined, [200]);
        if (!constant && !/"items":\[\]/.test(r.text)) broken(`${name}'s list is not empty: ${r.text.slice(0, 300)}`);
      } else if (row === 'detail') {
        await check(name, 'the detail', 'GET', `/api/v1/Orders/${(servers[name].orderKeys ?? keys)[0]}`, { 'X-Service-Api-Key': API_KEY }, undefined, [200]);
      } else {
        // A sandbox's probe order: accepted (202), then the same with a new key: 409.
        const probe = constant ? keys[0] : servers[name].probeKey;
        await check(name, 'an accept', 'POST', `/api/v1/Orders/${probe}/accept`, mutation(), '{}', constant ? [200] : [202]);
        if (!constant) await check(name, 'an accept of an accepted order', 'POST', `/api/v1/Orders/${probe}/accept`, mutation(), '{}', [409]);
      }
    }
    loads.push([new Date().toISOString().slice(11, 19), row, os.loadavg()]);
    for (let round = 0; round < ROUNDS; round++) {
      // The servers' order rotates from round to round.
      const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]);
      for (const name of order) {
        const s = servers[name];
        // Each sandbox's own orders; the constant servers take the first sandbox's keys.
        const own = row === 'list' ? [] : (s.orderKeys ?? keys);
        if (round === 0 && WARMUP > 0) await wrk(s.url, row, own, WARMUP);
        const cpu0 = cpuMicros(s.pid);
        const res = await wrk(s.url, row, own, SECONDS);
        const cpu1 = cpuMicros(s.pid);
        res.cpuPerAnswer = cpu0 === null || cpu1 === null || res.requests === 0 ? null : (cpu1 - cpu0) / res.requests;
        wrkCpu.push(res.wrkCpu);
        const want = row !== 'accept' ? ['200'] : sandboxes.includes(name) ? ['202', '409'] : ['200'];
        const wrong = Object.keys(res.statuses).filter((c) => !want.includes(c));
        const errs = Object.entries(res.errors).filter(([k, v]) => v > 0 && k !== 'status');
        if (wrong.length) problems.push(`${row} ${name} round ${round + 1}: statuses ${JSON.stringify(res.statuses)}, expected ${want.join(' or ')}`);
        if (errs.length) problems.push(`${row} ${name} round ${round + 1}: socket errors ${errs.map(([k, v]) => `${k} ${v}`).join(', ')}`);
        if (res.requests === 0) problems.push(`${row} ${name} round ${round + 1}: no answer`);
        ((results[row] ??= {})[name] ??= []).push(res);
        const cpu = res.cpuPerAnswer === null ? '' : `, ${res.cpuPerAnswer.toFixed(1)} µs CPU an answer`;
        process.stderr.write(
          `round ${round + 1}/${ROUNDS} ${row.padEnd(6)} ${name.padEnd(6)} ${int(res.rate).padStart(7)}/s${cpu}, wrk ${(res.wrkCpu * 100).toFixed(0)}% of a core, ` +
            `p50 ${res.p50ms.toFixed(2)} ms p99 ${res.p99ms.toFixed(2)} ms ${JSON.stringify(res.statuses)}; load ${os.loadavg()[0].toFixed(2)}\n`,
        );
      }
    }
  }
  loads.push([new Date().toISOString().slice(11, 19), 'end', os.loadavg()]);
  const cpuParent = process.cpuUsage(cpuAtStart);
  const elapsed = (Date.now() - startedAt) / 1000;

  // ---- the figures ----
  const best = (row, name) => results[row][name].reduce((a, b) => (b.rate > a.rate ? b : a));
  const label = { bare: 'bare node:http', hyper: 'hyper-hello', npm: 'npm sandbox', native: 'native sandbox' };
  const rowLabel = {
    list: '`GET /api/v1/Orders` (empty)',
    detail: '`GET /api/v1/Orders/{orderKey}`',
    accept: '`POST …/accept`, fresh key (202, then 409)',
  };
  const ratios = [
    ['native', 'hyper', 0.75],
    ['native', 'bare', 1.2],
    ['npm', 'bare', null],
    ['npm', 'hyper', null],
  ].filter(([a, b]) => servers[a] && servers[b]);
  console.log(
    `\nREST answers per second on loopback: wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s, best of ${ROUNDS} rounds (each server's first round of a row after ${WARMUP} s of load).`,
  );
  console.log(
    `${wrkVersion}; Node ${process.version}; ${nativeVersion ? `native: ${NATIVE_BIN} (${nativeVersion}); ` : ''}${os.cpus().length} CPUs (${os.cpus()[0]?.model}); ` +
      `${new Date(startedAt).toISOString()}, ${elapsed.toFixed(0)} s.`,
  );
  console.log(`Load average (1, 5, 15 min): ${loads.map(([t, row, l]) => `${t} before ${row} ${l.map((x) => x.toFixed(2)).join(' ')}`).join('; ').replace(/before end/, 'at the end')}.\n`);
  const head = ['operation', ...SERVERS.map((n) => `${label[n]} /s`), ...ratios.map(([a, b, goal]) => `${a} ÷ ${b}${goal ? ` (goal ≥ ${goal})` : ''}`)];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const row of ROWS) {
    const cells = [rowLabel[row], ...SERVERS.map((n) => int(best(row, n).rate))];
    for (const [a, b, goal] of ratios) {
      const x = best(row, a).rate / best(row, b).rate;
      cells.push(`${x.toFixed(2)}×${goal ? (x >= goal ? ' met' : ' **missed**') : ''}`);
    }
    console.log(`| ${cells.join(' | ')} |`);
  }
  console.log('\nEvery round (answers/s), p50 / p99 latency (ms) of the best round, and the server\'s CPU per answer in the best round (µs, all its threads, /proc/PID/stat at 10 ms ticks):\n');
  const head2 = ['operation', ...SERVERS.map((n) => label[n])];
  console.log(`| ${head2.join(' | ')} |`);
  console.log(`|${head2.map(() => '---').join('|')}|`);
  for (const row of ROWS) {
    const cells = [rowLabel[row]];
    for (const n of SERVERS) {
      const b = best(row, n);
      cells.push(`${results[row][n].map((r) => int(r.rate)).join(', ')}; ${b.p50ms.toFixed(2)} / ${b.p99ms.toFixed(2)}; ${b.cpuPerAnswer === null ? '?' : b.cpuPerAnswer.toFixed(1)} µs`);
    }
    console.log(`| ${cells.join(' | ')} |`);
  }
  const statusLine = (row, n) =>
    Object.entries(results[row][n].reduce((acc, r) => (Object.entries(r.statuses).forEach(([k, v]) => (acc[k] = (acc[k] ?? 0) + v)), acc), {}))
      .map(([k, v]) => `${k}: ${int(v)}`)
      .join(', ');
  console.log(`\nStatuses over all rounds: ${ROWS.map((row) => `${row}: ${SERVERS.map((n) => `${n} ${statusLine(row, n)}`).join('; ')}`).join('. ')}.`);
  console.log(
    `wrk's own CPU: ${(Math.min(...wrkCpu) * 100).toFixed(0)}–${(Math.max(...wrkCpu) * 100).toFixed(0)}% of a core (of ${THREADS} thread${THREADS > 1 ? 's' : ''}). ` +
      `This process (the tiny POS, the drain of the sandboxes' logs): ${(((cpuParent.user + cpuParent.system) / 1e6 / elapsed) * 100).toFixed(1)}% of a core over the run.`,
  );
  if (servers.native) {
    const goals = ROWS.map((row) => {
      const h = servers.hyper ? best(row, 'native').rate / best(row, 'hyper').rate : null;
      const b = servers.bare ? best(row, 'native').rate / best(row, 'bare').rate : null;
      const ok = (h === null || h >= 0.75) && (b === null || b >= 1.2);
      return `${row} ${ok ? 'met' : 'MISSED'}${h === null ? '' : ` (${h.toFixed(2)}× hyper`}${b === null ? '' : `${h === null ? ' (' : ', '}${b.toFixed(2)}× bare`}${h === null && b === null ? '' : ')'}`;
    });
    console.log(`Verdict, issue 43 (native ≥ 0.75× hyper-hello and ≥ 1.2× bare node:http, per row): ${goals.join('; ')}.`);
  }
  if (problems.length) console.error(`\nsandbox-wrk bench: broken setup:\n  ${problems.join('\n  ')}`);

  clearTimeout(deadline);
  stopping = true;
  await stopAll();
  pos.close();
  process.exit(problems.length ? 1 : 0);

  // ---- helpers ----

  /** Creates ORDERS orders (and one to probe the accept with) on each sandbox; returns the first sandbox's keys. */
  async function createOrders() {
    let first = null;
    for (const name of sandboxes) {
      const keys = [];
      for (let i = 0; i <= ORDERS; i++) {
        const r = await check(name, 'an order placed', 'POST', '/_sandbox/orders', { 'Content-Type': 'application/json' }, '{"store":"STORE-1"}', [200, 201]);
        const order = JSON.parse(r.text);
        if (order.status !== 'Pending' || order.remoteOrderId === null) broken(`${name}'s order is not Pending with a remoteOrderId: ${r.text.slice(0, 300)}`);
        keys.push(order.orderKey);
      }
      servers[name].probeKey = keys.pop();
      servers[name].orderKeys = keys;
      first ??= keys;
    }
    return first ?? Array.from({ length: ORDERS }, (_, i) => `ord_bench${String(i).padStart(7, '0')}`);
  }

  /** One wrk run; resolves with its figures. */
  function wrk(url, row, keys, seconds) {
    // A prefix of 8 random hex digits per run: no key of one run is met again in another.
    const args = ['-t', String(THREADS), '-c', String(CONNECTIONS), '-d', `${seconds}s`, '--timeout', '5s', '-s', `${tmp}/load.lua`, `${url}/`, '--', row, API_KEY, randomBytes(4).toString('hex'), String(randomBytes(4).readUInt32LE() % 2 ** 31), ...keys];
    return new Promise((resolve, reject) => {
      const child = spawn(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8');
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      // wrk's CPU time, sampled until it exits (its last sample is within 100 ms of its end).
      const t0 = Date.now();
      let cpu = 0;
      const sampler = setInterval(() => {
        const c = cpuMicros(child.pid);
        if (c !== null) cpu = c;
      }, 100);
      const kill = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
      child.on('exit', (code, signal) => {
        clearInterval(sampler);
        clearTimeout(kill);
        children.delete(child);
        const line = out.split('\n').find((l) => l.startsWith('RESULT '));
        if (code !== 0 || !line) return reject(new Error(`wrk exited (${signal ?? code}): ${err}${out}`));
        const r = JSON.parse(line.slice(7));
        resolve({ ...r, rate: r.requests / (r.durationUs / 1e6), p50ms: r.p50us / 1000, p99ms: r.p99us / 1000, wrkCpu: cpu / 1e3 / (Date.now() - t0) });
      });
    }).catch((e) => broken(e.message));
  }

  async function stopAll() {
    const waits = [...children].map((c) => new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', resolve))));
    killAll();
    const force = setTimeout(() => {
      for (const c of children) {
        try {
          c.kill('SIGKILL');
        } catch {}
      }
    }, 5000);
    await Promise.all(waits);
    clearTimeout(force);
  }
}

// The wrk script. Arguments after `--`: the row (list, detail, accept), the API key, an 8-hex-digit
// prefix and a seed for this run's keys, then the order keys. The requests are written once
// (list, detail) or per request (accept, with a fresh Idempotency-Key: a UUID v4 whose last group
// counts the requests, so that none repeats within a run, and whose first group is the run's).
// The statuses are counted in `response`; `done` prints one line of JSON.
const LUA = String.raw`
local threads = {}
function setup(thread) table.insert(threads, thread) end

local row, prefix
local requests, paths = {}, {}
local n, i, count = 0, 0, 0
local random, format = math.random, string.format
statuses = {}

function init(args)
  row, prefix = args[1], args[3]
  math.randomseed(tonumber(args[4]))
  wrk.headers["X-Service-Api-Key"] = args[2]
  if row == "accept" then
    wrk.method = "POST"
    wrk.body = "{}"
    wrk.headers["X-Service-Schema-Version"] = "1.0"
    wrk.headers["Content-Type"] = "application/json"
  end
  if row == "list" then
    requests[1] = wrk.format("GET", "/api/v1/Orders")
    n = 1
  else
    for j = 5, #args do
      n = n + 1
      paths[n] = "/api/v1/Orders/" .. args[j] .. (row == "accept" and "/accept" or "")
      if row == "detail" then requests[n] = wrk.format("GET", paths[n]) end
    end
  end
end

function request()
  i = i % n + 1
  if row ~= "accept" then return requests[i] end
  count = count + 1
  wrk.headers["Idempotency-Key"] = format("%s-%04x-4%03x-%x%03x-%012x", prefix, random(0, 65535), random(0, 4095), random(8, 11), random(0, 4095), count)
  return wrk.format(nil, paths[i])
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("statuses")) do total[k] = (total[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(total) do parts[#parts + 1] = format('"%d":%d', k, v) end
  local e = summary.errors
  io.write(format('RESULT {"requests":%d,"durationUs":%d,"p50us":%d,"p99us":%d,"statuses":{%s},"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), table.concat(parts, ","), e.connect, e.read, e.write, e.timeout, e.status))
end
`;

// ---- shared helpers ----

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function int(x) {
  return Math.round(x).toLocaleString('en-US');
}

// Last, once every declaration above is initialized (the wrk script is a module-level const).
if (process.argv[2] === '--child' && process.argv[3] === 'bare') {
  await bareChild();
} else {
  await parent();
}
