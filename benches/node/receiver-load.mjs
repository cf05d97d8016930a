// Load and fault run of the receiver kit: several receiver processes (receiver-worker.mjs) sharing
// one real Redis, deliveries sent the way the service sends them (at-least-once: every non-200 is
// retried with the same X-Service-Delivery-Id), with retried duplicates (half of them concurrent
// with their first attempt, sent to another process), tampered and replayed deliveries, and Redis
// restarted in the middle of the run. Bounded in time; it stops by itself.
//
//   node benches/node/receiver-load.mjs                  full run: 10,000 deliveries, 4 processes
//   node benches/node/receiver-load.mjs --deliveries 800 short run (make test runs it through
//                                                        tests/receiver/load.test.mjs)
//
// It prints handler calls per delivery id, deliveries lost, bad deliveries accepted, the answers
// during the Redis outage, throughput and latency. Figures only: nothing here asserts on time.
import { fork } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { fixture, startRedis } from '../../tests/receiver/helpers.mjs';

const SECRET = 'whsec_load_run';
const WORKER = fileURLToPath(new URL('./receiver-worker.mjs', import.meta.url));

/** A small deterministic PRNG (mulberry32): the same mix on every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sign = (timestamp, body) => 'sha256=' + createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

function plan(n, rand) {
  const created = fixture('payload', 'order-created.delivery.valid.json');
  const update = fixture('payload', 'order-update-event.delivered.valid.json');
  const menu = fixture('payload', 'menu-change-completed.valid.json');
  const changeKey = JSON.parse(menu).changeKey;
  const out = [];
  const nBad = Math.round(n * 0.05);
  const nDup = Math.round(n * 0.2);
  // Shuffle the roles over the indexes.
  const roles = [
    ...Array(nBad).fill('tampered'),
    ...Array(nBad).fill('replayed'),
    ...Array(Math.ceil(nDup / 2)).fill('dup-concurrent'),
    ...Array(Math.floor(nDup / 2)).fill('dup-later'),
  ];
  while (roles.length < n) roles.push('valid');
  for (let i = roles.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [roles[i], roles[j]] = [roles[j], roles[i]];
  }
  for (let i = 0; i < n; i++) {
    const r = rand();
    const kind = r < 0.7 ? 'orderCreated' : r < 0.9 ? 'orderUpdate' : 'menuChangeCompleted';
    const [method, path, body] =
      kind === 'orderCreated'
        ? ['POST', `/v1/order/STORE-${i % 17}`, created]
        : kind === 'orderUpdate'
          ? ['PUT', `/v1/order/STORE-${i % 17}/R-${i}/events`, update]
          : ['POST', `/v1/menu/change/${changeKey}`, menu];
    out.push({ i, id: randomUUID(), kind, method, path, body, role: roles[i] });
  }
  return out;
}

export async function runLoad({ deliveries = 10_000, processes = 4, concurrency = 48, outagePauseMs = 1000, deadlineMs = 240_000, log = console.log } = {}) {
  const redis = await startRedis({ persistent: true });
  const workers = [];
  const callsById = new Map();
  const flushed = [];
  try {
    for (let w = 0; w < processes; w++) {
      const child = fork(WORKER, [], {
        env: { ...process.env, REDIS_URL: redis.url, CLIENT: w % 2 ? 'ioredis' : 'redis', SECRET, WORKER: String(w) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const ready = new Promise((resolve, reject) => {
        child.on('message', (m) => {
          if (m.t === 'ready') resolve(m.port);
          else if (m.t === 'call') {
            if (!callsById.has(m.id)) callsById.set(m.id, []);
            callsById.get(m.id).push({ worker: w, answer: m.answer });
          } else if (m.t === 'flushed') flushed[w]?.(m.errors);
        });
        child.once('exit', (code) => reject(new Error(`worker ${w} exited (${code}) before it was ready`)));
      });
      workers.push({ child, port: await ready, client: w % 2 ? 'ioredis' : 'redis' });
    }
    const agents = workers.map(() => new http.Agent({ keepAlive: true, maxSockets: concurrency }));
    const rand = prng(0x5eed);
    const list = plan(deliveries, rand);
    const requests = [];
    const outage = { start: Infinity, end: Infinity };
    const started = Date.now();
    const deadline = started + deadlineMs;

    const post = (w, d, { timestamp = nowSeconds(), tamper = false } = {}) =>
      new Promise((resolve) => {
        const body = d.body;
        const headers = {
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
          'X-Service-Timestamp': String(timestamp),
          'X-Service-Signature-256': sign(timestamp, tamper ? Buffer.concat([body, Buffer.from(' ')]) : body),
          'X-Service-Delivery-Id': d.id,
        };
        if (d.kind === 'orderCreated') headers['X-Service-Event-Type'] = 'order.created';
        const t0 = performance.now();
        const startedAt = Date.now();
        const req = http.request({ host: '127.0.0.1', port: workers[w].port, method: d.method, path: d.path, headers, agent: agents[w] }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const r = { d, status: res.statusCode, text: Buffer.concat(chunks).toString(), ms: performance.now() - t0, startedAt, endedAt: Date.now() };
            requests.push(r);
            resolve(r);
          });
        });
        req.on('error', (err) => {
          const r = { d, status: 0, text: err.code ?? err.message, ms: performance.now() - t0, startedAt, endedAt: Date.now() };
          requests.push(r);
          resolve(r);
        });
        req.end(body);
      });

    // The service: at-least-once, so a non-200 is retried with the same delivery id.
    const untilOk = async (w, d) => {
      let pause = 100;
      for (;;) {
        const r = await post(w, d);
        if (r.status === 200) return r;
        if (Date.now() + pause > deadline) return r;
        await sleep(pause);
        pause = Math.min(pause * 2, 2000);
      }
    };

    const later = [];
    const deliver = async (d) => {
      const w = d.i % processes;
      if (d.role === 'tampered') return post(w, d, { tamper: true });
      if (d.role === 'replayed') return post(w, d, { timestamp: nowSeconds() - 600 });
      if (d.role === 'dup-concurrent') return Promise.all([untilOk(w, d), untilOk((w + 1) % processes, d)]);
      const r = await untilOk(w, d);
      if (d.role === 'dup-later') later.push(d);
      return r;
    };

    let next = 0;
    let restarted;
    const queue = () => {
      if (next < list.length) return list[next++];
      if (later.length) {
        const d = later.shift();
        return { ...d, role: 'retry', retryOf: d };
      }
      return undefined;
    };
    let active = 0;
    const runner = async () => {
      for (;;) {
        if (Date.now() > deadline) return;
        const d = queue();
        if (!d) {
          // Later duplicates are queued as first attempts finish: wait while any can still come.
          if (active === 0) return;
          await sleep(5);
          continue;
        }
        if (!restarted && next >= list.length / 2) {
          restarted = (async () => {
            // The outage: from the exit of redis-server to its readiness again.
            await redis.restart(outagePauseMs, () => (outage.start = Date.now()));
            outage.end = Date.now();
          })();
        }
        active += 1;
        try {
          if (d.role === 'retry') await untilOk((d.i + 2) % processes, d);
          else await deliver(d);
        } finally {
          active -= 1;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, runner));
    await restarted;
    const wallMs = Date.now() - started;

    // Every call message is in once each worker answered the flush (IPC keeps order).
    const workerErrors = await Promise.all(
      workers.map(
        (wk, w) =>
          new Promise((resolve) => {
            flushed[w] = resolve;
            wk.child.send({ t: 'flush' });
          }),
      ),
    );
    for (const a of agents) a.destroy();

    // ---- figures -----------------------------------------------------------------------------
    const byId = new Map();
    for (const r of requests) {
      if (!byId.has(r.d.id)) byId.set(r.d.id, []);
      byId.get(r.d.id).push(r);
    }
    const valid = list.filter((d) => d.role !== 'tampered' && d.role !== 'replayed');
    const bad = list.filter((d) => d.role === 'tampered' || d.role === 'replayed');
    const histogram = {};
    let lost = 0;
    let unanswered = 0;
    let inconsistent = 0;
    for (const d of valid) {
      const attempts = byId.get(d.id) ?? [];
      const oks = attempts.filter((r) => r.status === 200);
      const calls = callsById.get(d.id) ?? [];
      if (oks.length === 0) {
        unanswered += 1;
        continue;
      }
      histogram[calls.length] = (histogram[calls.length] ?? 0) + 1;
      if (calls.length === 0) lost += 1;
      if (d.kind === 'orderCreated' && calls.length === 1) {
        for (const r of oks) if (JSON.parse(r.text).remoteOrderId !== calls[0].answer) inconsistent += 1;
      }
    }
    let badAccepted = 0;
    let badCalled = 0;
    const badStatus = {};
    for (const d of bad) {
      for (const r of byId.get(d.id) ?? []) {
        badStatus[r.status] = (badStatus[r.status] ?? 0) + 1;
        if (r.status === 200) badAccepted += 1;
      }
      badCalled += (callsById.get(d.id) ?? []).length;
    }
    const duringOutage = requests.filter((r) => r.startedAt >= outage.start && r.endedAt <= outage.end);
    const outageStatus = {};
    for (const r of duringOutage) outageStatus[r.status] = (outageStatus[r.status] ?? 0) + 1;
    const statuses = {};
    for (const r of requests) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const latencies = requests.map((r) => r.ms).sort((a, b) => a - b);
    const calm = requests.filter((r) => r.endedAt < outage.start || r.startedAt > outage.end + 5000).map((r) => r.ms).sort((a, b) => a - b);
    const errors = {};
    for (const e of workerErrors) for (const [k, v] of Object.entries(e)) errors[k] = (errors[k] ?? 0) + v;
    const result = {
      deliveries: list.length,
      valid: valid.length,
      bad: bad.length,
      duplicates: list.filter((d) => d.role.startsWith('dup')).length,
      requests: requests.length,
      statuses,
      handlerCallsPerValidDelivery: histogram,
      handlerCallsForBadDeliveries: badCalled,
      lost,
      unanswered,
      inconsistentAnswers: inconsistent,
      badAccepted,
      badStatus,
      outageMs: outage.end - outage.start,
      outageAnswers: outageStatus,
      outage200: outageStatus[200] ?? 0,
      processes,
      clients: workers.map((w) => w.client),
      wallMs,
      requestsPerSecondPerProcess: requests.length / (wallMs / 1000) / processes,
      deliveriesPerSecondPerProcess: list.length / (wallMs / 1000) / processes,
      latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
      latencyOutsideOutageMs: { p50: percentile(calm, 50), p99: percentile(calm, 99) },
      receiverErrors: errors,
    };
    log(format(result));
    return result;
  } finally {
    for (const w of workers) {
      w.child.send?.({ t: 'exit' });
    }
    await Promise.all(workers.map((w) => (w.child.exitCode !== null ? null : new Promise((r) => {
      const t = setTimeout(() => { w.child.kill('SIGKILL'); r(); }, 5000);
      w.child.once('exit', () => { clearTimeout(t); r(); });
    }))));
    await redis.close();
  }
}

export function format(r) {
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : String(x));
  return [
    `receiver load run: ${r.processes} processes (${r.clients.join(', ')}) sharing one Redis, restarted mid-run (${r.outageMs} ms down)`,
    `  deliveries          ${r.deliveries} (${r.valid} valid, of which ${r.duplicates} sent twice; ${r.bad} tampered or replayed); ${r.requests} requests`,
    `  answers             ${JSON.stringify(r.statuses)}`,
    `  handler calls/id    ${JSON.stringify(r.handlerCallsPerValidDelivery)} (calls → valid deliveries answered 200; must be {"1": all})`,
    `  bad deliveries      ${r.handlerCallsForBadDeliveries} handler calls, ${r.badAccepted} accepted (answers ${JSON.stringify(r.badStatus)})`,
    `  lost                ${r.lost} (answered 200, never handled); ${r.unanswered} never answered 200; ${r.inconsistentAnswers} answers with another remoteOrderId`,
    `  during the outage   ${JSON.stringify(r.outageAnswers)} (${r.outage200} answered 200)`,
    `  throughput          ${f(r.deliveriesPerSecondPerProcess)} deliveries/s per process (${f(r.requestsPerSecondPerProcess)} requests/s per process), ${(r.wallMs / 1000).toFixed(1)} s`,
    `  latency             p50 ${f(r.latencyMs.p50)} ms, p99 ${f(r.latencyMs.p99)} ms (outside the outage: p50 ${f(r.latencyOutsideOutageMs.p50)} ms, p99 ${f(r.latencyOutsideOutageMs.p99)} ms)`,
    `  receiver errors     ${JSON.stringify(r.receiverErrors)}`,
  ].join('\n');
}

/** Whether the run kept every promise; the reasons otherwise. */
export function problems(r) {
  const out = [];
  const keys = Object.keys(r.handlerCallsPerValidDelivery);
  if (keys.some((k) => k !== '1')) out.push(`handler calls per valid delivery: ${JSON.stringify(r.handlerCallsPerValidDelivery)}`);
  if (r.lost) out.push(`${r.lost} lost`);
  if (r.unanswered) out.push(`${r.unanswered} never answered 200`);
  if (r.inconsistentAnswers) out.push(`${r.inconsistentAnswers} inconsistent answers`);
  if (r.badAccepted || r.handlerCallsForBadDeliveries) out.push(`bad accepted ${r.badAccepted}, bad handled ${r.handlerCallsForBadDeliveries}`);
  if (r.outage200) out.push(`${r.outage200} answered 200 during the outage`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const result = await runLoad({ deliveries: arg('deliveries', 10_000), processes: arg('processes', 4), concurrency: arg('concurrency', 48) });
  const bad = problems(result);
  if (bad.length) {
    console.error(`FAILED: ${bad.join('; ')}`);
    process.exit(1);
  }
}
