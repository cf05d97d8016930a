// Benchmark (not a test): poscheck against what users would write or install instead, in one Node
// process, interleaved, over several runs. Prints medians, the spread over runs, the ratio
// (peer time ÷ poscheck time: above 1 means poscheck is faster) and the peers' versions.
// Run after `make build`: node benches/node/compare.mjs  (or `make bench`).
//
//   verify    verifyWebhook (Buffer body) vs node:crypto by hand, @octokit/webhooks-methods,
//             stripe, svix, standardwebhooks, at 256 B, 2 KB, 16 KB and 1 MB
//   validate  validatePayload (poscheck and poscheck/webhook) on a 300 B OrderUpdateEvent vs JSON.parse
//             + a compiled ajv schema
//   lint      lintMenu(buffer) on 100 KB, 1 MB and 10 MB generated menus vs JSON.parse(buf.toString())
//   cli       the native `poscheck lint` process on 10 MB vs python3's json.load
//   memory    peak resident memory added by lintMenu vs JSON.parse on 10 MB, fresh processes
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = require('../../pkg');
const version = (name) => {
  if (existsSync(`${root}node_modules/${name}/package.json`)) return JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, 'utf8')).version;
  try {
    return require(`${name}/package.json`).version;
  } catch {
    return JSON.parse(readFileSync(require.resolve(name).replace(/(node_modules\/(@[^/]+\/)?[^/]+\/).*/, '$1package.json'), 'utf8')).version;
  }
};

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** BENCH_ONLY=validate,lint runs those sections alone (verify, validate, lint, cli). */
const ONLY = process.env.BENCH_ONLY?.split(',');
const wanted = (section) => !ONLY || ONLY.includes(section);
const MIN_NS = BigInt(Number(process.env.BENCH_MS ?? 150) * 1e6);

/** ns per call of `fn`: as many calls as fit in MIN_NS, after a warm-up. */
function nsPerOp(fn) {
  let n = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < MIN_NS) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
    elapsed = process.hrtime.bigint() - start;
  }
  return Number(elapsed) / n;
}

/** Runs every case of `cases` RUNS times, interleaved; returns { name: [ns, …] }. */
function measure(cases) {
  // Warm-up: long enough (about 50 ms a case) for V8 to optimize every path before it is timed.
  for (const fn of Object.values(cases)) {
    const until = process.hrtime.bigint() + 50_000_000n;
    while (process.hrtime.bigint() < until) for (let i = 0; i < 20; i++) fn();
  }
  const out = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < RUNS; r++) for (const [k, fn] of Object.entries(cases)) out[k].push(nsPerOp(fn));
  return out;
}

/** measure() for functions returning promises: each call is awaited, so the time is the whole verify. */
async function measureAsync(cases) {
  const out = {};
  for (const [k, fn] of Object.entries(cases)) {
    for (let i = 0; i < 200; i++) await fn();
    out[k] = [];
    for (let r = 0; r < RUNS; r++) {
      let n = 0;
      const start = process.hrtime.bigint();
      let elapsed = 0n;
      while (elapsed < MIN_NS) {
        for (let i = 0; i < 20; i++) await fn();
        n += 20;
        elapsed = process.hrtime.bigint() - start;
      }
      out[k].push(Number(elapsed) / n);
    }
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `±${(((Math.max(...xs) - Math.min(...xs)) / 2 / median(xs)) * 100).toFixed(0)}%`;
const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(2)} µs`);

function table(title, columns, rows) {
  console.log(`\n${title}`);
  console.log(['', ...columns].map((c, i) => (i === 0 ? c.padEnd(52) : c.padStart(22))).join(''));
  for (const [label, cells] of rows) console.log([label.padEnd(52), ...cells.map((c) => c.padStart(22))].join(''));
}

// ---- verify --------------------------------------------------------------------------------------
const secret = 'whsec_bench_secret_0123456789';
const now = 1_786_492_800;
const sizes = [['256 B', 256], ['2 KB', 2048], ['16 KB', 16384], ['1 MB', 1 << 20]];
const optional = (name) => {
  try {
    return require(name);
  } catch {
    return null;
  }
};
// ESM only (no require condition).
const octokit = await import('@octokit/webhooks-methods').catch(() => null);
const Stripe = optional('stripe');
const svix = optional('svix');
const standard = optional('standardwebhooks');
const stripe = Stripe ? new (Stripe.default ?? Stripe)('sk_test_bench') : null;
const svixSecret = `whsec_${Buffer.from(secret).toString('base64')}`;

const verifyRows = new Map();
const addCell = (label, cell) => verifyRows.set(label, [...(verifyRows.get(label) ?? []), cell]);
for (const [label, size] of wanted('verify') ? sizes : []) {
  const event = { orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1', event: 'delivered', occurredAt: '2026-08-12T00:00:00Z', note: '' };
  event.note = 'x'.repeat(Math.max(0, size - Buffer.byteLength(JSON.stringify(event))));
  const text = JSON.stringify(event);
  const body = Buffer.from(text);
  const headers = { ...pkg.signWebhook({ body, secret, timestamp: now }), 'X-Service-Delivery-Id': '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10' };
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const cases = {
    poscheck: () => pkg.verifyWebhook({ body, headers: lower, secret, now }),
    'node:crypto by hand': () => {
      const ts = lower['x-service-timestamp'];
      const sig = lower['x-service-signature-256'];
      if (Math.abs(now - Number(ts)) > 300) throw new Error('stale');
      const mac = createHmac('sha256', secret).update(`${ts}.`).update(body).digest();
      const given = Buffer.from(sig.slice(7), 'hex');
      if (given.length !== 32 || !timingSafeEqual(mac, given)) throw new Error('mismatch');
    },
  };
  const asyncCases = {};
  if (octokit) {
    // GitHub's scheme (HMAC of the body alone); verify is async, so its time includes a promise.
    const sig = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    asyncCases['@octokit/webhooks-methods verify'] = () => octokit.verify(secret, text, sig);
  }
  if (stripe && size <= 2048) {
    const header = stripe.webhooks.generateTestHeaderString({ payload: text, secret, timestamp: now });
    cases['stripe constructEvent'] = () => stripe.webhooks.constructEvent(text, header, secret, 1e12);
  }
  for (const [name, lib] of [['svix', svix], ['standardwebhooks', standard]]) {
    if (!lib || size > 2048) continue;
    const wh = new lib.Webhook(svixSecret);
    const id = 'msg_bench';
    const ts = new Date(now * 1000);
    const signature = wh.sign(id, ts, text);
    const h = name === 'svix'
      ? { 'svix-id': id, 'svix-timestamp': String(now), 'svix-signature': signature }
      : { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': signature };
    const realNow = Date.now;
    cases[`${name} Webhook.verify`] = () => {
      Date.now = () => now * 1000;
      try {
        wh.verify(text, h);
      } finally {
        Date.now = realNow;
      }
    };
  }
  const m = { ...measure(cases), ...(await measureAsync(asyncCases)) };
  const ours = median(m.poscheck);
  addCell('poscheck verifyWebhook', `${fmt(ours)} ${spread(m.poscheck)}`);
  for (const [name, xs] of Object.entries(m)) {
    if (name === 'poscheck') continue;
    addCell(name, `${(median(xs) / ours).toFixed(2)}× (${fmt(median(xs))})`);
  }
}
const width = sizes.length;
if (wanted('verify')) table(
  'verifyWebhook (Buffer body) — peer time ÷ poscheck time (above 1: poscheck is faster)',
  sizes.map(([l]) => l),
  [...verifyRows].map(([label, cells]) => [label, [...cells, ...Array(width - cells.length).fill('—')].slice(0, width)]),
);

// ---- validate ------------------------------------------------------------------------------------
const Ajv = optional('ajv');
const addFormats = optional('ajv-formats');
if (wanted('validate')) {
  const event = Buffer.from(JSON.stringify({
    orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1001', event: 'driver_released', occurredAt: '2026-08-12T14:30:00Z',
    reason: 'vehicle breakdown', releasedDriver: { fullName: 'Ana Pérez', phone: '+52 55 1234 5678' }, expectedNext: 'driver_reassignment',
  }));
  // Both entries: the toolkit (`poscheck`) and the receivers' (`poscheck/webhook`, the webhook
  // checkers alone, built at opt-level 3); the same report. In Node the toolkit's entry hands a
  // named webhook kind to the receivers' module (see platform.webhook in pkg/src/api.js), so both
  // rows measure that module, through either entry's facade.
  const webhookEntry = require('../../pkg/dist/webhook.cjs');
  const ours = {
    'poscheck validatePayload': () => pkg.validatePayload(event, { kind: 'orderUpdateEvent' }),
    'poscheck/webhook validatePayload': () => webhookEntry.validatePayload(event, { kind: 'orderUpdateEvent' }),
  };
  const cases = { ...ours };
  if (Ajv) {
    const ajv = new (Ajv.default ?? Ajv)({ allErrors: true });
    (addFormats?.default ?? addFormats)?.(ajv);
    const driver = { type: ['object', 'null'], required: ['fullName'], properties: { fullName: { type: 'string' }, phone: { type: ['string', 'null'] } }, additionalProperties: false };
    const validate = ajv.compile({
      type: 'object',
      required: ['orderKey', 'remoteOrderId', 'event', 'occurredAt'],
      additionalProperties: false,
      properties: {
        orderKey: { type: 'string', pattern: '^ord_[0-9A-Za-z]{16}$' },
        remoteOrderId: { type: 'string' },
        event: { type: 'string' },
        occurredAt: { type: 'string', format: 'date-time' },
        reason: { type: ['string', 'null'] },
        driver: driver,
        releasedDriver: driver,
        expectedNext: { type: ['string', 'null'] },
      },
    });
    cases['JSON.parse + compiled ajv'] = () => {
      if (!validate(JSON.parse(event.toString()))) throw new Error('invalid');
    };
  }
  const m = measure(cases);
  const peer = m['JSON.parse + compiled ajv'];
  table(`validatePayload, ${event.length} B OrderUpdateEvent (Buffer) — ajv time ÷ poscheck time`, ['time', 'ratio'], [
    ...Object.keys(ours).map((k) => [k, [`${fmt(median(m[k]))} ${spread(m[k])}`, peer ? `${(median(peer) / median(m[k])).toFixed(2)}×` : '—']]),
    ...(peer ? [['JSON.parse + compiled ajv', [`${fmt(median(peer))} ${spread(peer)}`, '']]] : []),
  ]);
}

// ---- lint ----------------------------------------------------------------------------------------
if (wanted('lint')) {
  const big = `${root}target/bench/menu-10mb.json`;
  if (!existsSync(big)) execFileSync('cargo', ['bench', '--bench', 'lint'], { cwd: root, stdio: 'inherit' }); // writes it
  const full = readFileSync(big);
  const menuOf = (bytes) => {
    // A prefix of the 10 MB menu cut at a category (or, below one category, a product) boundary,
    // closed: a valid menu of about `bytes`.
    const text = full.toString();
    const category = text.lastIndexOf('\n    },\n    {', bytes);
    const product = text.lastIndexOf('\n        },\n        {', bytes);
    const menu = category > bytes / 2
      ? `${text.slice(0, category)}\n    }\n  ]\n}\n`
      : `${text.slice(0, product)}\n        }\n      ]\n    }\n  ]\n}\n`;
    JSON.parse(menu); // a cut that is not a menu fails here, not as a wrong row
    return Buffer.from(menu);
  };
  const rows = [];
  for (const [label, buf] of [['100 KB', menuOf(100_000)], ['1 MB', menuOf(1_000_000)], ['10 MB', full]]) {
    const r = pkg.lintMenu(buf);
    const m = measure({ poscheck: () => pkg.lintMenu(buf), 'JSON.parse(buf.toString())': () => JSON.parse(buf.toString()) });
    const ours = median(m.poscheck);
    const peer = median(m['JSON.parse(buf.toString())']);
    rows.push([`${label} (${buf.length} B, ${r.errorCount} errors)`, [`${fmt(ours)} ${spread(m.poscheck)}`, fmt(peer), `${(peer / ours).toFixed(2)}×`]]);
  }
  table('lintMenu(buffer) against JSON.parse(buf.toString()) alone', ['poscheck', 'JSON.parse', 'ratio'], rows);
}

// ---- native CLI and memory ----------------------------------------------------------------------
if (wanted('cli')) {
  const big = `${root}target/bench/menu-10mb.json`;
  const mb = readFileSync(big).length / 1e6;
  execFileSync('cargo', ['build', '--release', '--bin', 'poscheck'], { cwd: root, stdio: 'inherit' });
  const cli = `${root}target/release/poscheck`;
  const wall = (cmd, args) => {
    const xs = [];
    for (let r = 0; r < Math.max(RUNS, 3); r++) {
      const start = process.hrtime.bigint();
      const out = spawnSync(cmd, args, { maxBuffer: 1 << 30 });
      xs.push(Number(process.hrtime.bigint() - start));
      if (out.error || (out.status !== 0 && out.status !== 1)) throw new Error(`${cmd} failed: ${out.error ?? out.stderr}`);
    }
    return xs;
  };
  const ours = wall(cli, ['lint', '--format', 'json', big]);
  const py = wall('python3', ['-c', 'import json, sys; json.load(open(sys.argv[1], "rb"))', big]);
  table(`native CLI, whole process on the ${mb.toFixed(1)} MB menu (lint itself: see cargo bench --bench lint)`, ['time', 'MB/s', 'ratio'], [
    ['poscheck lint --format json', [`${fmt(median(ours))} ${spread(ours)}`, (mb / (median(ours) / 1e9)).toFixed(0), '']],
    ['python3 json.load', [fmt(median(py)), (mb / (median(py) / 1e9)).toFixed(0), `${(median(py) / median(ours)).toFixed(2)}×`]],
  ]);

  // Peak resident memory added by one call, each in a fresh Node process (maxRSS after − before).
  const peak = (expr) => {
    const code = `const pkg = require(${JSON.stringify(`${root}pkg`)}); const buf = require('node:fs').readFileSync(${JSON.stringify(big)});
      const before = process.resourceUsage().maxRSS; const r = ${expr}; const after = process.resourceUsage().maxRSS;
      console.log(after - before, r === undefined ? 0 : 1);`;
    const xs = [];
    for (let r = 0; r < 3; r++) xs.push(Number(execFileSync(process.execPath, ['-e', code]).toString().split(' ')[0]) * 1024);
    return median(xs);
  };
  const lintPeak = peak('pkg.lintMenu(buf)');
  const parsePeak = peak('JSON.parse(buf.toString())');
  const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
  table(`peak resident memory added, ${mb.toFixed(1)} MB menu (fresh process each, median of 3)`, ['added', 'ratio to JSON.parse'], [
    ['poscheck lintMenu(buffer)', [mib(lintPeak), `${(lintPeak / parsePeak).toFixed(2)}×`]],
    ['JSON.parse(buf.toString())', [mib(parsePeak), '']],
  ]);
}

console.log(`\nNode ${process.version}; runs: ${RUNS}; peers: ${['@octokit/webhooks-methods', 'stripe', 'svix', 'standardwebhooks', 'ajv', 'ajv-formats']
  .filter((n) => existsSync(`${root}node_modules/${n}/package.json`)).map((n) => `${n} ${version(n)}`).join(', ')}`);
