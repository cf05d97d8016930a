// The npm package as users get it: `npm pack` of pkg/, extracted into throwaway projects, then
// checked by the tools people put it through: tsc --strict (node16 CommonJS, nodenext ESM,
// bundler), publint, @arethetypeswrong/cli, esbuild (node and browser), Vite and webpack with no
// configuration. Each build is run: the Node bundle started, the browser bundles loaded in
// Chromium with a check that the WebAssembly ran.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const work = mkdtempSync(join(tmpdir(), 'poscheck-pack-'));
let tarball;
let unpacked;

before(() => {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: join(root, 'pkg') }).toString();
  tarball = join(work, JSON.parse(out)[0].filename);
  execFileSync('tar', ['xzf', tarball, '-C', work]);
  unpacked = join(work, 'package');
});

after(() => rmSync(work, { recursive: true, force: true }));

/** A throwaway project with the unpacked package in node_modules/poscheck and `files`. */
function project(name, files) {
  const dir = join(work, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  cpSync(unpacked, join(dir, 'node_modules', 'poscheck'), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), typeof text === 'string' ? text : JSON.stringify(text, null, 2));
  }
  return dir;
}

const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
};

// What every consumer does: sign, verify the signature, lint a menu.
const usage = `
const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}';
const headers = signWebhook({ body, secret: 's3cret', timestamp: 1786492800 });
const verified = verifyWebhook({ body, headers, secret: 's3cret', now: 1786492800 });
const report = lintMenu('{"categories": []}');
const result = JSON.stringify({ secretIndex: verified.secretIndex, menuOk: report.ok, errors: report.errorCount });`;
const expected = { secretIndex: 0, menuOk: true, errors: 0 };

test('the tarball ships each module once (poscheck/menu\'s also as a file), the entries, types and licenses only', () => {
  const files = execFileSync('tar', ['tzf', tarball]).toString().trim().split('\n').map((f) => f.replace(/^package\//, '')).sort();
  // poscheck/menu's module is shipped twice, on purpose: embedded (the default: nothing to
  // configure) and as a file for the `production` condition (what Vite and webpack emit).
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), ['dist/menu.wasm'], 'the other modules are embedded once, in their dist/*wasm.js');
  const copies = files.filter((f) => statSync(join(unpacked, f)).size > 100_000);
  assert.deepEqual(
    copies,
    ['dist/menu-wasm.js', 'dist/menu.wasm', 'dist/sandbox-wasm.js', 'dist/wasm.js', 'dist/webhook-wasm.js', 'schemas/openapi.json'],
    'the large files: the modules of poscheck, poscheck/webhook, poscheck/menu (twice) and poscheck/sandbox (Node only), and the OpenAPI document (issue 41)',
  );
  for (const f of ['index.d.ts', 'index.d.cts', 'webhook.d.ts', 'webhook.d.cts', 'menu.d.ts', 'menu.d.cts', 'sandbox.d.ts', 'sandbox.d.cts', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE', 'dist/node.cjs', 'dist/node.mjs', 'dist/web.js', 'dist/webhook.cjs', 'dist/webhook.mjs', 'dist/webhook-web.js', 'dist/menu.cjs', 'dist/menu.mjs', 'dist/menu.js', 'dist/menu-file.js', 'dist/sandbox.cjs', 'dist/sandbox.mjs', 'dist/sandbox-browser.js']) {
    assert.ok(files.includes(f), `${f} is shipped`);
  }
  // The sandbox console (issue 42): its manifest and every file it lists, served by the sandbox at `/`.
  const manifest = JSON.parse(readFileSync(join(unpacked, 'console', 'manifest.json'), 'utf8'));
  assert.ok(manifest.files.length >= 3, 'the console lists its files');
  for (const f of ['console/manifest.json', ...manifest.files.map((m) => `console/${m.file}`)]) assert.ok(files.includes(f), `${f} is shipped`);
  assert.ok(!files.some((f) => /^(tests|www|benches|src\/.*\.rs)/.test(f)), files.join(', '));
  const size = files.reduce((n, f) => n + statSync(join(unpacked, f)).size, 0);
  console.log(`npm pack: ${files.length} files, ${statSync(tarball).size} bytes packed, ${size} bytes unpacked`);
});

test('publint and @arethetypeswrong/cli report no problem', () => {
  const lint = run(bin('publint'), [unpacked], work);
  assert.match(lint, /All good/, lint);
  const attw = spawnSync(bin('attw'), [tarball, '--format', 'json'], { encoding: 'utf8' });
  const report = JSON.parse(attw.stdout);
  const problems = report.analysis?.problems ?? report.problems ?? [];
  assert.deepEqual(problems, [], attw.stdout.slice(0, 2000));
});

test('tsc --strict type-checks and the output runs: node16 CommonJS, nodenext ESM, bundler', () => {
  // The webhook-only entry too: its declarations are the toolkit's, validatePayload's narrowed.
  const source = `import init, { signWebhook, verifyWebhook, lintMenu, PoscheckError } from 'poscheck';
import initWebhook, { verifyWebhook as verifyOnly, createReceiver, createRedisStore, WebhookVerificationError, validatePayload as validateWebhookPayload, payloadKinds as webhookPayloadKinds } from 'poscheck/webhook';
import type { WebhookPayloadKind } from 'poscheck/webhook';
import initMenu, { lintMenu as lintOnly, diffMenu, menuRules, diffRules } from 'poscheck/menu';
import type { MenuDiff, RuleInfo } from 'poscheck/menu';
import { createSandbox, SandboxError, CONTROL_PREFIX, probe, probeRules, formatProbeReport } from 'poscheck/sandbox';
import type { Sandbox, SandboxOrder, OrderStatus, DeliveryAttempt, RestCall, MenuUploadCounts, ProbeReport, ProbeCheck, ProbeRule, ProbeConnection } from 'poscheck/sandbox';
${usage}
// poscheck/sandbox as declared (type-checked; not started here, it listens on a port).
const sandboxSuite = async (): Promise<OrderStatus> => {
  const sb: Sandbox = await createSandbox({ clock: 'manual', seed: 1, acceptanceWindowSeconds: 120, faults: { rateLimited: 0.1 } });
  const order: SandboxOrder = await sb.createOrder({ store: 'STORE-1', type: 'pickup', items: [{ remoteCode: 'BURGER-1', quantity: 2 }] });
  await sb.assignDriver(order.orderKey, { fullName: 'Ana', phone: null });
  const now: number = await sb.advance(121);
  const attempts: DeliveryAttempt[] = sb.deliveries();
  const retried: number | null = attempts[0].retryAt;
  void now; void retried; void sb.requests()[0]?.status; void CONTROL_PREFIX;
  const calls: RestCall[] = sb.requests({ after: 10 });
  const seq: number = calls[0]?.seq ?? 0;
  const counts: MenuUploadCounts = sb.seedMenu({ categories: [] }, { brand: 1 });
  const deactivated: number = counts.deactivatedProducts + sb.menuState().changes.length + sb.storeMenu('STORE-1').categories.length;
  sb.failMenuChanges('STORE-2', { errorCode: 'STORE_UNAVAILABLE' });
  sb.failMenuChanges('STORE-2', { fail: false });
  void seq; void deactivated;
  // @ts-expect-error after is a number (a seq of the log)
  sb.requests({ after: 'x' });
  // @ts-expect-error the clock is 'real' or 'manual'
  await createSandbox({ clock: 'fast' });
  await sb.close();
  return sb.order(order.orderKey)?.status ?? 'Pending';
};
void sandboxSuite;
void SandboxError;
// The probe as declared (type-checked; not run here, it needs a POS).
const probeSuite = async (): Promise<number> => {
  const report: ProbeReport = await probe({
    pos: 'http://127.0.0.1:3000',
    stores: ['STORE-1'],
    receiverOnly: true,
    only: ['receiver', 'client/path-casing'],
    faults: { 429: 0.1, 503: 0.05 },
    onReady: async (c: ProbeConnection) => { void c.secret; void c.url; },
  });
  const failed: ProbeCheck[] = report.checks.filter((c) => c.status === 'failed');
  const junit: string = formatProbeReport(report, 'junit');
  const rules: ProbeRule[] = probeRules();
  // @ts-expect-error the report's forms are text, json, junit and markdown
  formatProbeReport(report, 'xml');
  return failed.length + junit.length + rules.filter((r) => r.side === 'receiver').length + (report.checks[0]?.evidence[0]?.status ?? 0);
};
void probeSuite;
const again = verifyOnly({ body, headers, secret: 's3cret', now: 1786492800 });
if (again.secretIndex !== verified.secretIndex) throw new Error('poscheck/webhook disagrees');
// The handler's context and onInvalid's argument as declared (DeliveryInfo and its extensions).
const receiver = createReceiver({
  secret: 's3cret',
  onOrderUpdate: (ctx) => { const id: string | null = ctx.delivery.id; const order: string | undefined = ctx.remoteOrderId; void id; void order; void ctx.rawBody.byteLength; },
  onInvalid: (info) => { const status: number = info.answer.status; const reason: 'unknown-event' | 'invalid-payload' = info.reason; void status; void reason; void info.report.errorCount; },
});
void receiver.handle;
// The Redis store's options as declared (made, not called: no Redis here).
const redisStore = (client: unknown) => createRedisStore(client, { prefix: 'pos:', timeoutMs: 500, batch: false });
// @ts-expect-error batch is a boolean
const badBatch = (client: unknown) => createRedisStore(client, { batch: 'no' });
void redisStore;
void badBatch;
// Its validatePayload takes the webhook kinds only: another is a type error.
const checked = validateWebhookPayload(body, { kind: 'orderUpdateEvent' });
const kinds: WebhookPayloadKind[] = webhookPayloadKinds();
if (!checked.ok || kinds.length !== 3) throw new Error('poscheck/webhook validatePayload: ' + JSON.stringify(checked));
// @ts-expect-error fullMenu is not a kind poscheck/webhook checks (it would throw: never called)
const refused = () => validateWebhookPayload(body, { kind: 'fullMenu' });
void refused;
void WebhookVerificationError;
void PoscheckError;
void init;
void initWebhook;
void initMenu;
// poscheck/menu answers as the toolkit does.
const menuDiff: MenuDiff = diffMenu('{"categories": []}', '{"categories": []}', { threshold: 0.2 });
const menuRuleList: RuleInfo[] = [...menuRules(), ...diffRules()];
if (lintOnly('{"categories": []}').errorCount !== report.errorCount || !menuDiff.compared || menuRuleList.length < 20) throw new Error('poscheck/menu disagrees');
console.log(result);
`;
  const cases = [
    ['cjs-node16', 'commonjs', { module: 'node16', moduleResolution: 'node16' }, true],
    ['esm-nodenext', 'module', { module: 'nodenext', moduleResolution: 'nodenext' }, true],
    ['bundler', 'module', { module: 'esnext', moduleResolution: 'bundler', noEmit: true }, false],
  ];
  for (const [name, type, options, runs] of cases) {
    const dir = project(`ts-${name}`, {
      'package.json': { name, private: true, type },
      'tsconfig.json': { compilerOptions: { strict: true, target: 'es2022', outDir: 'out', skipLibCheck: false, esModuleInterop: true, ...options }, files: ['index.ts'] },
      'index.ts': type === 'module' ? source.replace('void init;', 'await init();').replace('void initWebhook;', 'await initWebhook();').replace('void initMenu;', 'await initMenu();') : source,
    });
    run(bin('tsc'), ['-p', '.'], dir);
    if (runs) assert.deepEqual(JSON.parse(run('node', ['out/index.js'], dir)), expected, name);
  }
});

test('esbuild bundles for Node with no configuration, and the bundle runs on its own', () => {
  const dir = project('esbuild-node', { 'app.js': `import { signWebhook, verifyWebhook, lintMenu } from 'poscheck';\n${usage}\nconsole.log(result);\n` });
  const out = join(work, 'lambda', 'index.cjs');
  run(bin('esbuild'), ['app.js', '--bundle', '--platform=node', '--format=cjs', `--outfile=${out}`], dir);
  // Nothing beside the bundle: no node_modules, no .wasm.
  assert.deepEqual(readdirSync(join(work, 'lambda')), ['index.cjs']);
  assert.deepEqual(JSON.parse(run('node', [out], work)), expected);
});

test('esbuild bundles a receiver on poscheck/webhook for Node: it runs, at well under the toolkit bundle', () => {
  const app = `import { signWebhook, verifyWebhook, createReceiver } from 'poscheck/webhook';
const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}';
const headers = signWebhook({ body, secret: 's3cret', timestamp: 1786492800 });
const verified = verifyWebhook({ body, headers, secret: 's3cret', now: 1786492800 });
const receiver = createReceiver({ secret: 's3cret', now: () => 1786492800, onOrderUpdate: () => {} });
receiver.handle({ method: 'PUT', url: '/v1/order/S/R-1/events', headers, body }).then((a) => console.log(JSON.stringify({ secretIndex: verified.secretIndex, status: a.status })));
`;
  const dir = project('esbuild-webhook', { 'app.js': app });
  const out = join(work, 'lambda-webhook', 'index.cjs');
  run(bin('esbuild'), ['app.js', '--bundle', '--platform=node', '--format=cjs', `--outfile=${out}`], dir);
  assert.deepEqual(JSON.parse(run('node', [out], work)), { secretIndex: 0, status: 200 });
  const full = statSync(join(work, 'lambda', 'index.cjs')).size;
  const small = statSync(out).size;
  console.log(`esbuild, Node bundle: poscheck ${full} bytes, poscheck/webhook ${small} bytes`);
  assert.ok(small < full * 0.6, `${small} bytes against ${full}`);
});

const page = `import init, { signWebhook, verifyWebhook, lintMenu } from 'poscheck';
await init();
${usage}
document.body.dataset.result = result;
`;

/** Loads `url` in Chromium and returns what the page wrote (no page error, no failed response). */
async function openInChromium(url, timeout = 20_000) {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    tab.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
    await tab.goto(url);
    await tab.waitForFunction(() => document.body.dataset.result, null, { timeout }).catch(() => {});
    const result = await tab.evaluate(() => document.body.dataset.result);
    return { errors, result };
  } finally {
    await browser.close();
  }
}

/** Serves `dir` on loopback, loads it in Chromium, returns what the page wrote. */
async function loadInChromium(dir) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
  const served = [];
  const server = createServer((req, res) => {
    const path = join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/\/$/, '/index.html'));
    served.push(req.url);
    try {
      const body = readFileSync(path);
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { errors, result } = await openInChromium(`http://127.0.0.1:${server.address().port}/`);
    assert.deepEqual(errors, [], `${dir}: ${served.join(' ')}`);
    return JSON.parse(result);
  } finally {
    server.close();
  }
}

test('esbuild bundles for browsers with no configuration; the wasm runs in Chromium', async () => {
  const dir = project('esbuild-web', { 'main.js': page, 'www/index.html': '<!doctype html><script type="module" src="main.js"></script>' });
  run(bin('esbuild'), ['main.js', '--bundle', '--platform=browser', '--format=esm', '--outfile=www/main.js'], dir);
  // poscheck/sandbox adds nothing to what a browser loads from poscheck: neither its face nor its module.
  const bundle = readFileSync(join(dir, 'www', 'main.js'), 'utf8');
  assert.ok(!bundle.includes('SandboxModel') && !bundle.includes('createSandbox'), 'the browser bundle of poscheck carries none of poscheck/sandbox');
  assert.deepEqual(await loadInChromium(join(dir, 'www')), expected);
});

test('esbuild bundles poscheck/webhook for browsers; its module verifies and validates in Chromium', async () => {
  const main = `import init, { signWebhook, verifyWebhook, validatePayload, payloadKinds } from 'poscheck/webhook';
await init();
const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}';
const headers = signWebhook({ body, secret: 's3cret', timestamp: 1786492800 });
const verified = verifyWebhook({ body, headers, secret: 's3cret', now: 1786492800 });
const report = validatePayload(new TextEncoder().encode(body), { path: '/v1/order/STORE-1/R-2/events' });
let refused = null;
try { validatePayload(body, { kind: 'fullMenu' }); } catch (e) { refused = e.code; }
document.body.dataset.result = JSON.stringify({ secretIndex: verified.secretIndex, kinds: payloadKinds(), kind: report.kind, rules: report.diagnostics.map((d) => d.ruleId), refused });
`;
  const dir = project('esbuild-web-webhook', { 'main.js': main, 'www/index.html': '<!doctype html><script type="module" src="main.js"></script>' });
  run(bin('esbuild'), ['main.js', '--bundle', '--platform=browser', '--format=esm', '--outfile=www/main.js'], dir);
  assert.deepEqual(await loadInChromium(join(dir, 'www')), {
    secretIndex: 0,
    kinds: ['orderUpdateEvent', 'menuChangeCompleted', 'orderCreated'],
    kind: 'orderUpdateEvent',
    rules: ['order-update/remote-order-id-path'],
    refused: 'INVALID_ARGUMENT',
  });
});

test('Vite builds with no configuration; the wasm runs in Chromium', async () => {
  const dir = project('vite', {
    'package.json': { name: 'vite-app', private: true, type: 'module' },
    'index.html': '<!doctype html><script type="module" src="/main.js"></script>',
    'main.js': page,
  });
  run(bin('vite'), ['build', '--logLevel', 'warn'], dir);
  assert.deepEqual(await loadInChromium(join(dir, 'dist')), expected);
});

test('webpack builds with no configuration; the wasm runs in Chromium', async () => {
  const dir = project('webpack', {
    'package.json': { name: 'webpack-app', private: true },
    'src/index.js': page,
    'dist/index.html': '<!doctype html><script defer src="main.js"></script><body></body>',
  });
  run(bin('webpack'), ['--mode', 'production'], dir);
  assert.deepEqual(await loadInChromium(join(dir, 'dist')), expected);
});

// ---- poscheck/menu: a POS front-end that lints a menu and diffs it, in every bundler ----------------

/** What poscheck/menu must answer: the toolkit's own answers, from its Node entry. */
const menuExpected = () => {
  const toolkit = createRequire(import.meta.url)(join(unpacked, 'dist', 'node.cjs'));
  return {
    errors: toolkit.lintMenu(menuInput).errorCount,
    diff: toolkit.diffMenu(storeMenu, menuInput).summary,
    rules: toolkit.menuRules().length + toolkit.diffRules().length,
  };
};
const menuInput = '{"categories":[{"remoteCode":"C1","name":"Burgers","products":[{"remoteCode":"P1","name":"Burger","price":9.5}]}]}';
const storeMenu = '{"categories":[]}';
const menuPage = `import init, { lintMenu, diffMenu, menuRules, diffRules } from 'poscheck/menu';
init().then(() => {
  document.body.dataset.result = JSON.stringify({
    errors: lintMenu(${JSON.stringify(menuInput)}).errorCount,
    diff: diffMenu(${JSON.stringify(storeMenu)}, ${JSON.stringify(menuInput)}).summary,
    rules: menuRules().length + diffRules().length,
  });
});
`;

test('poscheck/menu: esbuild (browser) embeds its module; the bundle lints and diffs in Chromium', async () => {
  const dir = project('esbuild-web-menu', { 'main.js': menuPage, 'www/index.html': '<!doctype html><script type="module" src="main.js"></script>' });
  run(bin('esbuild'), ['main.js', '--bundle', '--platform=browser', '--format=esm', '--outfile=www/main.js'], dir);
  assert.deepEqual(readdirSync(join(dir, 'www')).sort(), ['index.html', 'main.js'], 'nothing to copy: the module is embedded');
  assert.deepEqual(await loadInChromium(join(dir, 'www')), menuExpected());
});

test('poscheck/menu: a Vite production build emits its module as a .wasm file; it lints and diffs in Chromium', async () => {
  const dir = project('vite-menu', {
    'package.json': { name: 'vite-menu-app', private: true, type: 'module' },
    'index.html': '<!doctype html><script type="module" src="/main.js"></script>',
    'main.js': menuPage,
  });
  run(bin('vite'), ['build', '--logLevel', 'warn'], dir);
  const assets = readdirSync(join(dir, 'dist', 'assets'));
  assert.equal(assets.filter((f) => f.endsWith('.wasm')).length, 1, assets.join(' '));
  const js = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(dir, 'dist', 'assets', f), 'utf8')).join('');
  assert.ok(!js.includes('AGFzbQ'), 'the JS carries no base64 module');
  assert.deepEqual(await loadInChromium(join(dir, 'dist')), menuExpected());
});

test('poscheck/menu: the Vite dev server serves it with no configuration; it lints and diffs in Chromium', async () => {
  const dir = project('vite-dev-menu', {
    'package.json': { name: 'vite-dev-menu-app', private: true, type: 'module' },
    'index.html': '<!doctype html><script type="module" src="/main.js"></script>',
    'main.js': menuPage,
  });
  const { createServer: createViteServer } = await import(join(root, 'node_modules', 'vite', 'dist', 'node', 'index.js'));
  const vite = await createViteServer({ root: dir, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, strictPort: false } });
  await vite.listen();
  try {
    const { errors, result } = await openInChromium(`http://127.0.0.1:${vite.httpServer.address().port}/`, 60_000);
    assert.deepEqual(errors, []);
    assert.deepEqual(JSON.parse(result), menuExpected());
  } finally {
    await vite.close();
  }
});

test('poscheck/menu: a webpack production build emits its module as a .wasm file; it lints and diffs in Chromium', async () => {
  const dir = project('webpack-menu', {
    'package.json': { name: 'webpack-menu-app', private: true },
    'src/index.js': menuPage,
    'dist/index.html': '<!doctype html><script defer src="main.js"></script><body></body>',
  });
  run(bin('webpack'), ['--mode', 'production'], dir);
  assert.ok(readdirSync(join(dir, 'dist')).some((f) => f.endsWith('.wasm')), readdirSync(join(dir, 'dist')).join(' '));
  assert.deepEqual(await loadInChromium(join(dir, 'dist')), menuExpected());
});

test('poscheck/menu in Node: require and import, the toolkit\'s answers', () => {
  const dir = project('node-menu', {
    'cjs.cjs': `const { lintMenu, diffMenu, menuRules, diffRules } = require('poscheck/menu');\nconsole.log(JSON.stringify({ errors: lintMenu(${JSON.stringify(menuInput)}).errorCount, diff: diffMenu(${JSON.stringify(storeMenu)}, ${JSON.stringify(menuInput)}).summary, rules: menuRules().length + diffRules().length }));\n`,
    'esm.mjs': `import init, { lintMenu, diffMenu, menuRules, diffRules } from 'poscheck/menu';\nawait init();\nconsole.log(JSON.stringify({ errors: lintMenu(${JSON.stringify(menuInput)}).errorCount, diff: diffMenu(${JSON.stringify(storeMenu)}, ${JSON.stringify(menuInput)}).summary, rules: menuRules().length + diffRules().length }));\n`,
  });
  assert.deepEqual(JSON.parse(run('node', ['cjs.cjs'], dir)), menuExpected());
  assert.deepEqual(JSON.parse(run('node', ['esm.mjs'], dir)), menuExpected());
});
