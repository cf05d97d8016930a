// Benchmark (not a test): REST answers per second of `poscheck/sandbox` on loopback, against
// Stoplight Prism 5 serving the same operations from an OpenAPI document (orders-openapi.json) and a
// bare node:http server answering constant bodies (the platform's limit). Each server runs in a
// child process of its own; the client is autocannon in this process (16 connections). Interleaved
// runs (each: a warm-up, then a bounded load), medians. Run after `make build` (pkg/dist):
//
//   node benches/node/sandbox.mjs        (or `make bench`)
//
// Operations (the contract: shared/spec/service-spec.md, Endpoints, Orders):
//   list          GET /api/v1/Orders (the default page: 20 of the 50 orders)
//   detail        GET /api/v1/Orders/{orderKey}, the 50 orders in turn
//   accept-retry  POST /api/v1/Orders/{orderKey}/accept with one Idempotency-Key per order kept for
//                 the whole bench: a POS retrying an accept whose answer it lost. The first request
//                 of each order is executed (202); every later one is the cached 202, replayed.
//   accept        the same POST with a fresh Idempotency-Key (UUID v4) per request: what the contract
//                 asks for each logical attempt. The sandbox answers 409 once an order is accepted
//                 (accept-retry accepts them all first): a state answer that goes through the same
//                 checks, idempotency store and order engine as a 202, so it is counted as an answer.
//
// Settings (environment): BENCH_RUNS (3), BENCH_SECONDS (5), BENCH_WARMUP (1), BENCH_CONNECTIONS
// (16), BENCH_ORDERS (50), BENCH_ONLY=list,detail,accept-retry,accept, BENCH_SERVERS=sandbox,prism,bare,
// BENCH_PROF=DIR (the sandbox child runs with --cpu-prof into DIR; the bare one too with
// BENCH_PROF_BARE=1), BENCH_SANDBOX_DIST=DIR (another
// build of pkg/dist to load the sandbox from, to compare two builds).
//
// The load client and Prism are not dependencies of the workspace (make test does not need them):
// they are installed on first use into benches/node/sandbox-deps (its node_modules is not
// committed). Prism is pinned at 5.14.2, the last 5.x that runs on Node 20.
//
// It prints answers per second, latency, non-2xx answers, each server's CPU time per answer (from
// /proc, all its threads: steadier than answers per second on a shared machine, where the client
// competes for the same cores) and the goals (the sandbox ≥ 5× Prism and ≥ 0.5× the bare server,
// per operation), without asserting them. It exits non-zero only on a broken setup: a server that does
// not start, or an answer whose status says the request is wrong (401, 404, 400, 422, 5xx…).
import { cpuMicros, freePort } from './support.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync, openSync, closeSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPS = `${HERE}sandbox-deps/`;
const OPENAPI = `${HERE}orders-openapi.json`;
const HOST = '127.0.0.1';

// ---- children ---------------------------------------------------------------------------------

/** Ends this child when its parent goes (stdin closes) or asks (SIGTERM), so that --cpu-prof is written. */
function exitWithParent(close) {
  let closing = false;
  const bye = async () => {
    if (closing) return;
    closing = true;
    try {
      await close();
    } finally {
      process.exit(0);
    }
  };
  process.stdin.on('end', bye);
  process.stdin.on('error', bye);
  process.stdin.resume();
  process.on('SIGTERM', bye);
  process.on('SIGINT', bye);
}

/** The sandbox, with a tiny POS in the same process answering every creation webhook. */
async function sandboxChild() {
  const { createSandbox } = await import(`${process.env.BENCH_SANDBOX_DIST ?? `${ROOT}pkg/dist`}/sandbox.mjs`);
  let n = 0;
  const pos = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({ remoteOrderId: `R-${++n}` });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise((resolve) => pos.listen(0, HOST, resolve));
  const sb = await createSandbox({ clock: 'real', seed: 1, rateLimits: false, port: 0, pos: `http://${HOST}:${pos.address().port}` });
  const orderKeys = [];
  for (let i = 0; i < Number(process.env.BENCH_ORDERS ?? 50); i++) orderKeys.push((await sb.createOrder()).orderKey);
  // One more, Pending, for the parent's probe of accept before the load.
  const probeKey = (await sb.createOrder()).orderKey;
  exitWithParent(async () => {
    await sb.close();
    pos.close();
  });
  process.stdout.write(`${JSON.stringify({ url: sb.url, apiKey: sb.apiKey, orderKeys, probeKey, pid: process.pid })}\n`);
}

/** node:http answering constant bodies: the examples of the OpenAPI document, by route. */
async function bareChild() {
  const doc = JSON.parse(readFileSync(OPENAPI, 'utf8'));
  const example = (path, method, status) => Buffer.from(JSON.stringify(doc.paths[path][method].responses[status].content['application/json'].example));
  const list = example('/api/v1/Orders', 'get', '200');
  const detail = example('/api/v1/Orders/{orderKey}', 'get', '200');
  const accepted = example('/api/v1/Orders/{orderKey}/accept', 'post', '202');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [status, body] = req.method === 'POST' ? [202, accepted] : req.url === '/api/v1/Orders' ? [200, list] : [200, detail];
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, HOST, resolve));
  exitWithParent(() => new Promise((resolve) => server.close(resolve)));
  process.stdout.write(`${JSON.stringify({ url: `http://${HOST}:${server.address().port}`, pid: process.pid })}\n`);
}

if (process.argv[2] === '--child') {
  const which = process.argv[3];
  await (which === 'sandbox' ? sandboxChild() : which === 'bare' ? bareChild() : Promise.reject(new Error(`no child ${which}`)));
} else {
  await parent();
}

// ---- the parent -------------------------------------------------------------------------------

async function parent() {
  const RUNS = Number(process.env.BENCH_RUNS ?? 3);
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
  const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
  const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const OPS = (process.env.BENCH_ONLY ?? 'list,detail,accept-retry,accept').split(',');
  const SERVERS = (process.env.BENCH_SERVERS ?? 'sandbox,prism,bare').split(',');
  // Every load is bounded by its duration; this bounds the whole run, set-up included.
  const DEADLINE_MS = 120_000 + RUNS * OPS.length * SERVERS.length * (SECONDS + WARMUP + 3) * 1000;

  const children = new Set();
  const killAll = () => {
    for (const c of children) {
      try {
        // Prism is started in a process group of its own: end the group, by its id.
        if (c.group) process.kill(-c.pid, 'SIGTERM');
        else c.kill('SIGTERM');
      } catch {}
    }
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
  const deadline = setTimeout(() => {
    console.error(`sandbox bench: still running after ${DEADLINE_MS / 1000} s; stopping`);
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();

  const broken = (msg) => {
    console.error(`sandbox bench: broken setup: ${msg}`);
    process.exit(1);
  };

  const deps = installDeps();
  const requireDeps = createRequire(`${DEPS}package.json`);
  const autocannon = requireDeps('autocannon');

  // ---- start the servers, each in its own process ----
  /** Starts `node SELF --child which`; resolves with the JSON line it prints once it listens. */
  function startNodeChild(which, execArgv = []) {
    const child = spawn(process.execPath, [...execArgv, SELF, '--child', which], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.add(child);
    child.on('exit', () => children.delete(child));
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`${which} did not start within 60 s`)), 60_000);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d) => {
        out += d;
        const nl = out.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          try {
            resolve({ child, ...JSON.parse(out.slice(0, nl)) });
          } catch (e) {
            reject(new Error(`${which} printed ${JSON.stringify(out.slice(0, 200))}`));
          }
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${which} exited (${signal ?? code}) before it listened`));
      });
    });
  }

  async function startPrism() {
    const port = await freePort();
    // Prism logs every request (its default, info); the log goes to /dev/null, the cheapest sink.
    const devnull = openSync('/dev/null', 'w');
    const bin = `${DEPS}node_modules/@stoplight/prism-cli/dist/index.js`;
    const child = spawn(process.execPath, [bin, 'mock', OPENAPI, '-p', String(port), '-h', HOST], { stdio: ['ignore', devnull, 'pipe'], detached: true });
    closeSync(devnull);
    child.group = true;
    children.add(child);
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    let exited = null;
    child.on('exit', (code, signal) => {
      exited = signal ?? code;
      children.delete(child);
    });
    const url = `http://${HOST}:${port}`;
    const until = Date.now() + 60_000;
    for (;;) {
      if (exited !== null) throw new Error(`Prism exited (${exited}) before it listened: ${stderr}`);
      if (Date.now() > until) throw new Error(`Prism did not listen within 60 s: ${stderr}`);
      try {
        await fetch(`${url}/api/v1/Orders`, { headers: { 'X-Service-Api-Key': 'probe' }, signal: AbortSignal.timeout(2000) });
        return { child, url, pid: child.pid };
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  let servers;
  try {
    const [sandbox, prism, bare] = await Promise.all([
      SERVERS.includes('sandbox') ? startNodeChild('sandbox', prof) : null,
      SERVERS.includes('prism') ? startPrism() : null,
      SERVERS.includes('bare') ? startNodeChild('bare', process.env.BENCH_PROF_BARE ? prof : []) : null,
    ]);
    servers = { sandbox, prism, bare };
  } catch (e) {
    killAll();
    broken(e.message);
  }
  // The sandbox's key and orders; Prism and the bare server take any key of the right shape.
  const { apiKey, orderKeys, probeKey } = servers.sandbox ?? {
    apiKey: 'sbx_key_bench',
    orderKeys: Array.from({ length: 50 }, (_, i) => `ord_bench${String(i).padStart(11, '0')}`),
    probeKey: 'ord_benchprobe000000',
  };
  const retryKeys = orderKeys.map(() => randomUUID());
  const mutationHeaders = { 'X-Service-Api-Key': apiKey, 'X-Service-Schema-Version': '1.0', 'Content-Type': 'application/json' };

  /** autocannon's `requests` for an operation. */
  function requestsOf(op) {
    switch (op) {
      case 'list':
        return [{ method: 'GET', path: '/api/v1/Orders', headers: { 'X-Service-Api-Key': apiKey } }];
      case 'detail':
        return orderKeys.map((k) => ({ method: 'GET', path: `/api/v1/Orders/${k}`, headers: { 'X-Service-Api-Key': apiKey } }));
      case 'accept-retry':
        return orderKeys.map((k, i) => ({ method: 'POST', path: `/api/v1/Orders/${k}/accept`, headers: { ...mutationHeaders, 'Idempotency-Key': retryKeys[i] }, body: '{}' }));
      case 'accept': {
        let i = 0;
        return [
          {
            method: 'POST',
            path: `/api/v1/Orders/${orderKeys[0]}/accept`,
            headers: { ...mutationHeaders, 'Idempotency-Key': randomUUID() },
            body: '{}',
            setupRequest(req) {
              req.path = `/api/v1/Orders/${orderKeys[i++ % orderKeys.length]}/accept`;
              req.headers = { ...mutationHeaders, 'Idempotency-Key': randomUUID() };
              return req;
            },
          },
        ];
      }
      default:
        throw new Error(`no operation ${op}`);
    }
  }

  /** The statuses that say the request was right: anything else is a broken setup. */
  const expected = (server, op) => (op.startsWith('accept') ? (server === 'sandbox' ? [202, 409] : [202]) : [200]);

  // ---- a probe of each server and operation before any load ----
  for (const [name, s] of Object.entries(servers)) {
    if (!s) continue;
    // The accept is probed on an order of its own (the sandbox's 51st), so the load's orders stay Pending.
    for (const op of [...new Set(OPS.map((o) => (o.startsWith('accept') ? 'accept-probe' : o)))]) {
      const r = op === 'accept-probe' ? { method: 'POST', path: `/api/v1/Orders/${probeKey}/accept`, headers: { ...mutationHeaders, 'Idempotency-Key': randomUUID() }, body: '{}' } : requestsOf(op)[0];
      const res = await fetch(`${s.url}${r.path}`, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      const want = op === 'accept-probe' ? [202] : expected(name, op);
      if (!want.includes(res.status)) broken(`${name} answered ${r.method} ${r.path} with ${res.status} (expected ${want.join(' or ')}): ${text.slice(0, 300)}`);
    }
  }

  const run = (url, op, seconds) =>
    new Promise((resolve, reject) => {
      autocannon({ url, connections: CONNECTIONS, duration: seconds, requests: requestsOf(op), timeout: 10 }, (err, result) => (err ? reject(err) : resolve(result)));
    });

  const results = {}; // op → server → [result…]
  const names = Object.keys(servers).filter((k) => servers[k]);
  const loadavg = [os.loadavg()];
  const started = Date.now();
  for (let r = 0; r < RUNS; r++) {
    for (const op of OPS) {
      // Rotate the servers' order from run to run.
      const order = names.map((_, i) => names[(i + r) % names.length]);
      for (const name of order) {
        const url = servers[name].url;
        if (WARMUP > 0) await run(url, op, WARMUP);
        const cpu0 = cpuMicros(servers[name].pid);
        const res = await run(url, op, SECONDS);
        const cpu1 = cpuMicros(servers[name].pid);
        res.serverCpuPerAnswer = cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / res.requests.total;
        const codes = Object.keys(res.statusCodeStats ?? {}).map(Number);
        const wrong = codes.filter((c) => !expected(name, op).includes(c));
        if (wrong.length) broken(`${name} answered ${op} with ${wrong.join(', ')} (${JSON.stringify(res.statusCodeStats)})`);
        if (res.requests.total === 0) broken(`${name} answered no ${op} request (errors ${res.errors}, timeouts ${res.timeouts})`);
        ((results[op] ??= {})[name] ??= []).push(res);
        const cpu = res.serverCpuPerAnswer === null ? '' : `, ${res.serverCpuPerAnswer.toFixed(1)} µs CPU an answer`;
        process.stderr.write(`run ${r + 1}/${RUNS} ${op.padEnd(12)} ${name.padEnd(8)} ${Math.round(res.requests.total / res.duration).toLocaleString('en-US').padStart(7)}/s${cpu}\n`);
      }
    }
    loadavg.push(os.loadavg());
  }

  // ---- the figures ----
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const spread = (xs) => `±${(((Math.max(...xs) - Math.min(...xs)) / 2 / median(xs)) * 100).toFixed(0)}%`;
  const rate = (res) => res.requests.total / res.duration;
  const int = (x) => Math.round(x).toLocaleString('en-US');
  const label = { sandbox: 'poscheck/sandbox', prism: `Prism ${deps.prism}`, bare: 'bare node:http' };
  const opLabel = {
    list: '`GET /api/v1/Orders` (20 items)',
    detail: '`GET /api/v1/Orders/{orderKey}`',
    'accept-retry': '`POST …/accept`, retried (same key: replayed 202)',
    accept: '`POST …/accept`, fresh key (sandbox: 409 once accepted)',
  };
  const goals = { prism: 5, bare: 0.5 };

  console.log(
    `\nREST answers per second on loopback, ${CONNECTIONS} connections, median of ${RUNS} runs of ${SECONDS} s (each after ${WARMUP} s of warm-up), spread = half the range over the median.`,
  );
  console.log(`Node ${process.version}; autocannon ${deps.autocannon}; Prism ${deps.prism}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model}); load average ${loadavg.map((l) => l[0].toFixed(2)).join(' → ')}; ${new Date(started).toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s.\n`);
  const head = ['operation', ...names.map((n) => `${label[n]} /s`), ...(names.includes('sandbox') ? names.filter((n) => n !== 'sandbox').map((n) => `sandbox ÷ ${n === 'prism' ? 'Prism' : 'bare'} (goal ≥ ${goals[n]})`) : [])];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const op of OPS) {
    const row = [opLabel[op]];
    for (const n of names) {
      const xs = results[op][n].map(rate);
      row.push(`${int(median(xs))} ${spread(xs)}`);
    }
    if (names.includes('sandbox')) {
      const ours = median(results[op].sandbox.map(rate));
      for (const n of names.filter((x) => x !== 'sandbox')) {
        const ratio = ours / median(results[op][n].map(rate));
        row.push(`${ratio.toFixed(ratio < 10 ? 2 : 1)}× ${ratio >= goals[n] ? 'met' : '**missed**'}`);
      }
    }
    console.log(`| ${row.join(' | ')} |`);
  }
  console.log('\nLatency (ms, p50 / p99, medians over the runs) and answers outside 2xx (all runs):\n');
  const head2 = ['operation', ...names.map((n) => label[n])];
  console.log(`| ${head2.join(' | ')} |`);
  console.log(`|${head2.map(() => '---').join('|')}|`);
  for (const op of OPS) {
    const row = [opLabel[op]];
    for (const n of names) {
      const rs = results[op][n];
      const non2xx = rs.reduce((a, x) => a + x.non2xx, 0);
      const total = rs.reduce((a, x) => a + x.requests.total, 0);
      const codes = {};
      for (const x of rs) for (const [c, v] of Object.entries(x.statusCodeStats ?? {})) codes[c] = (codes[c] ?? 0) + v.count;
      const errs = rs.reduce((a, x) => a + x.errors + x.timeouts, 0);
      row.push(
        `${median(rs.map((x) => x.latency.p50)).toFixed(1)} / ${median(rs.map((x) => x.latency.p99)).toFixed(1)}; ` +
          `non-2xx ${int(non2xx)} of ${int(total)}${non2xx ? ` (${Object.entries(codes).map(([c, v]) => `${c}: ${int(v)}`).join(', ')})` : ''}${errs ? `; errors ${errs}` : ''}`,
      );
    }
    console.log(`| ${row.join(' | ')} |`);
  }
  if (names.every((n) => results[OPS[0]][n].every((x) => x.serverCpuPerAnswer !== null))) {
    console.log("\nThe server's CPU time per answer (µs; all its threads, from /proc/PID/stat at 10 ms ticks; median over the runs):\n");
    const head3 = ['operation', ...names.map((n) => label[n]), ...(names.includes('sandbox') && names.includes('bare') ? ['sandbox ÷ bare, CPU per answer'] : [])];
    console.log(`| ${head3.join(' | ')} |`);
    console.log(`|${head3.map(() => '---').join('|')}|`);
    for (const op of OPS) {
      const cpu = (n) => median(results[op][n].map((x) => x.serverCpuPerAnswer));
      const row = [opLabel[op], ...names.map((n) => cpu(n).toFixed(1))];
      if (names.includes('sandbox') && names.includes('bare')) row.push(`${(cpu('sandbox') / cpu('bare')).toFixed(1)}×`);
      console.log(`| ${row.join(' | ')} |`);
    }
  }
  console.log(
    '\naccept-retry: one Idempotency-Key per order for the whole bench (a lost answer retried): executed once, then replayed.' +
      '\naccept: a fresh UUID v4 per request (a new logical attempt each, as the contract asks): the sandbox answers 202 to an order' +
      "'s first accept and 409 after; both are full answers of the model (checks, idempotency store, order engine).",
  );

  clearTimeout(deadline);
  await stopAll();

  async function stopAll() {
    const waits = [...children].map((c) => new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', resolve))));
    for (const c of children) {
      if (c.stdin) c.stdin.end();
    }
    killAll();
    const force = setTimeout(() => {
      for (const c of children) {
        try {
          if (c.group) process.kill(-c.pid, 'SIGKILL');
          else c.kill('SIGKILL');
        } catch {}
      }
    }, 5000);
    await Promise.all(waits);
    clearTimeout(force);
  }
}

/** Installs benches/node/sandbox-deps when what is there is not what its package.json pins. */
function installDeps() {
  const want = JSON.parse(readFileSync(`${DEPS}package.json`, 'utf8')).dependencies;
  const have = (name) => {
    try {
      return JSON.parse(readFileSync(`${DEPS}node_modules/${name}/package.json`, 'utf8')).version;
    } catch {
      return null;
    }
  };
  if (Object.entries(want).some(([name, v]) => have(name) !== v)) {
    console.error('sandbox bench: installing autocannon and Prism into benches/node/sandbox-deps (once)');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['install', '--prefix', DEPS, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit', timeout: 600_000 });
  }
  return { autocannon: have('autocannon'), prism: have('@stoplight/prism-cli') };
}

