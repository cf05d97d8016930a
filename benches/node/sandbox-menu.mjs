// Benchmark (not a test): the sandbox's menu at catalog scale (issue 27), one run.
//
// 1. PUT /api/v1/menu with the ≥ 10 MB menu that `cargo bench --bench lint` writes to
//    target/bench/menu-10mb.json, over loopback to a sandbox in its own process, against lintMenu
//    of the same bytes in this process (the toolkit's wasm). Goal: ≤ 3× lintMenu.
// 2. GET /api/v1/menu/stores/STORE-1 of that catalog (the first read after the upload, computed,
//    and the next, kept) against JSON.stringify of the read's `data` in this process. Goal: ≤ 3×.
//
// Medians of ROUNDS (5) after two warm-up uploads; every PUT with a fresh Idempotency-Key; each
// round resets the sandbox, uploads (creating the catalog) and uploads again (nothing changes). The sandbox binds
// 127.0.0.1 on a free port and exits with this process.
// Run: cargo bench --bench lint && node benches/node/sandbox-menu.mjs
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

if (process.argv[2] === '--child') {
  const { createSandbox } = await import(`${ROOT}pkg/dist/sandbox.mjs`);
  const sb = await createSandbox({ clock: 'manual', seed: 1, rateLimits: false, port: 0, pos: 'http://127.0.0.1:9' });
  process.stdout.write(`${JSON.stringify({ url: sb.url, apiKey: sb.apiKey })}\n`);
  const bye = async () => {
    await sb.close();
    process.exit(0);
  };
  process.stdin.on('end', bye);
  process.stdin.resume();
} else {
  await main();
}

async function main() {
  const require = createRequire(import.meta.url);
  const { lintMenu } = require(`${ROOT}pkg`);
  let bytes;
  try {
    bytes = readFileSync(`${ROOT}target/bench/menu-10mb.json`);
  } catch {
    console.error('target/bench/menu-10mb.json is missing: run `cargo bench --bench lint` first (it generates the menu).');
    process.exit(2);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const time = async (fn) => {
    const s = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - s) / 1e6;
  };

  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const { url, apiKey } = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
    setTimeout(() => reject(new Error('the sandbox did not start within 30 s')), 30_000).unref();
  });
  try {
    const headers = { 'X-Service-Api-Key': apiKey, 'X-Service-Schema-Version': '1.0', 'Content-Type': 'application/json' };
    const put = async () => {
      const res = await fetch(`${url}/api/v1/menu?confirmLargeDeactivation=true`, { method: 'PUT', headers: { ...headers, 'Idempotency-Key': randomUUID() }, body: bytes });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`PUT /menu answered ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };
    const get = async () => {
      const res = await fetch(`${url}/api/v1/menu/stores/STORE-1`, { headers: { 'X-Service-Api-Key': apiKey } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET store menu answered ${res.status}: ${text.slice(0, 300)}`);
      return text;
    };

    const lint = [];
    let report;
    report = lintMenu(bytes);
    if (report.errorCount !== 0) throw new Error(`the generated menu should be valid, got ${report.errorCount} errors`);
    for (let i = 0; i < ROUNDS; i++) lint.push(await time(() => (report = lintMenu(bytes))));

    // Warm-up (the module's code is compiled by V8 as it first runs), then per round: a reset, the
    // upload that creates the catalog, and the same upload again (every item unchanged).
    await put();
    await put();
    const reset = async () => {
      const res = await fetch(`${url}/_sandbox/reset`, { method: 'POST' });
      if (res.status !== 200) throw new Error(`reset answered ${res.status}`);
      await res.text();
    };
    const creates = [];
    const puts = [];
    let counts;
    for (let i = 0; i < ROUNDS; i++) {
      await reset();
      creates.push(await time(put));
      puts.push(await time(async () => (counts = (await put()).data)));
    }

    // The first read after an upload is computed; the next ones are kept until the menu changes.
    const computed = [];
    const kept = [];
    let text;
    for (let i = 0; i < ROUNDS; i++) {
      await put();
      computed.push(await time(async () => (text = await get())));
      kept.push(await time(get));
    }
    const data = JSON.parse(text).data;
    const stringify = [];
    for (let i = 0; i < ROUNDS; i++) stringify.push(await time(() => JSON.stringify(data)));
    const products = data.categories.reduce((n, c) => n + c.products.length, 0);

    const mb = (bytes.length / 1e6).toFixed(1);
    console.log(`\nThe sandbox's menu at scale: a ${mb} MB submission (${products} products), median of ${ROUNDS}; Node ${process.version}; ${new Date().toISOString()}.\n`);
    console.log('| what | ms | baseline (same run) | ms | ratio | goal |');
    console.log('|---|---|---|---|---|---|');
    const row = (what, ms, base, b, goal) => console.log(`| ${what} | ${ms.toFixed(0)} | ${base} | ${b.toFixed(0)} | ${(ms / b).toFixed(2)}× | ${goal} ${ms / b <= 3 ? 'met' : '**missed**'} |`);
    row('`PUT /api/v1/menu` over loopback, unchanged catalog', median(puts), '`lintMenu` of the same bytes', median(lint), '≤ 3×');
    row('`PUT /api/v1/menu`, creating the catalog (after a reset)', median(creates), '`lintMenu`', median(lint), '≤ 3×');
    row('`GET /api/v1/menu/stores/STORE-1`, first after an upload', median(computed), '`JSON.stringify` of its data', median(stringify), '≤ 3×');
    row('`GET /api/v1/menu/stores/STORE-1`, kept', median(kept), '`JSON.stringify`', median(stringify), '≤ 3×');
    console.log(`\nread: ${(text.length / 1e6).toFixed(1)} MB; the unchanged upload counted ${JSON.stringify(counts)}.`);
  } finally {
    child.stdin.end();
  }
}
