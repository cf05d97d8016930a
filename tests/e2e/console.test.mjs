// Ring 4: the sandbox console (issue 42) in headless Chromium, against a running sandbox (manual
// clock) and a POS in another process (console-pos.mjs). What the issue says it must show: an order
// created through the HTTP control appears within a second without reload; its timeline shows the
// creation attempt with the POS's status and the delivery id; a POS answering 500 shows the failed
// attempt and the scheduled retry; Redeliver adds an attempt; New order creates an order the control
// API lists; Advance past the acceptance window shows the order Cancelled by the system; markup in an
// answer is shown as text; no request leaves the sandbox's origin; no console error; axe finds
// nothing moderate or worse. The exported timeline runs as a test and passes; the exported state
// loads with --state; 10,000 journal entries render only what is visible.
//
// Against both faces (issue 43): the npm face's createSandbox in this process, and the native
// binary's `poscheck sandbox` in its own (tests/js/sandbox-process.mjs). The native face runs the
// main flows (NATIVE_TESTS: the files served, the live timeline and the controls, the exported state
// loaded by its own --state, 10,000 journal entries); axe and the 1 MB body run on the npm face only,
// to keep the file's time (the page is the same files).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createSandbox } from '../../pkg/dist/sandbox.mjs';
import { FACES, startSandboxProcess } from '../js/sandbox-process.mjs';

const OUT = fileURLToPath(new URL('../../test-results/console/', import.meta.url));
const SANDBOX = fileURLToPath(new URL('../../pkg/dist/sandbox.mjs', import.meta.url));
const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');
/** A child `node --test` reports as a top-level run (not to this runner). */
const CHILD_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let pos;
let sb;
let browser;

/** A sandbox of `face`: the npm face in this process, the native one in its own. */
const sandboxOf = (face, options) => (face === 'npm' ? createSandbox(options) : startSandboxProcess(options, { face }));
/** The tests the native face runs too. */
const NATIVE_TESTS = new Set(['served', 'live', 'journal']);

before(async () => {
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
});

after(async () => {
  await browser?.close();
});

/** Starts the POS and the sandbox of `face` (manual clock, seed 42); stops them after. */
function useSandbox(face) {
  before(async () => {
    pos = spawn(process.execPath, [fileURLToPath(new URL('console-pos.mjs', import.meta.url)), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = await new Promise((resolve, reject) => {
      let text = '';
      const t = setTimeout(() => reject(new Error('the POS did not start')), 15_000);
      pos.stdout.on('data', (d) => {
        text += d;
        const m = /\{"port":(\d+)\}/.exec(text);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      });
    });
    sb = await sandboxOf(face, { pos: `http://127.0.0.1:${port}`, clock: 'manual', seed: 42 });
  });

  after(async () => {
    try {
      await sb?.close();
    } finally {
      sb = null;
      pos?.stdin.end();
      pos?.kill('SIGTERM');
    }
  });
}

/** A control over HTTP, as curl sends it. */
async function control(method, path, body) {
  const res = await fetch(`${sb.url}/_sandbox/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  assert.ok(res.ok, `${method} ${path}: ${res.status}`);
  return res.json();
}

async function open(viewport = { width: 1280, height: 900 }, colorScheme = 'light') {
  const context = await browser.newContext({ viewport, colorScheme, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(sb.consoleUrl);
  await page.waitForSelector('#live.on', { timeout: 10_000 });
  return { page, context, problems, requests };
}

async function axe(page, state) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`) }));
  });
  return found.filter((v) => ['moderate', 'serious', 'critical'].includes(v.impact)).map((v) => ({ state, ...v }));
}

const timeline = (page) => page.locator('#timeline');
const choose = (page, key) => page.locator('#orders-list .row', { hasText: key }).click();

for (const face of FACES) {
  describe(`${face} sandbox`, () => {
    useSandbox(face);
    /** A test of this face: the native face runs NATIVE_TESTS only. */
    const run = (key, name, fn) => (face === 'npm' || NATIVE_TESTS.has(key) ? test(`${face}: ${name}`, fn) : undefined);
    /** The artefacts of the npm face keep their names (the README's screenshots); the native face's are beside them. */
    const suffix = face === 'npm' ? '' : `-${face}`;

    run('served', 'the sandbox serves the console: its files only, with a strict CSP', async () => {
      assert.equal(sb.consoleUrl, `${sb.url}/`);
      const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../pkg/console/manifest.json', import.meta.url)), 'utf8'));
      for (const f of manifest.files) {
        const res = await fetch(sb.url + f.path);
        assert.equal(res.status, 200, f.path);
        assert.equal(res.headers.get('content-type'), f.type, f.path);
        assert.match(res.headers.get('content-security-policy'), /^default-src 'self'/, f.path);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('cache-control'), 'no-cache');
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(fileURLToPath(new URL(`../../pkg/console/${f.file}`, import.meta.url))));
      }
      // Nothing else of the folder is served (the manifest itself, a path outside it).
      for (const p of ['/manifest.json', '/console/console.js', '/../package.json', '/index.html']) {
        const res = await fetch(sb.url + p);
        assert.notEqual(res.status, 200, p);
        assert.equal(res.headers.get('content-security-policy'), null, p);
      }
      const html = readFileSync(fileURLToPath(new URL('../../pkg/console/index.html', import.meta.url)), 'utf8');
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler');
      const js = readFileSync(fileURLToPath(new URL('../../pkg/console/console.js', import.meta.url)), 'utf8');
      assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|\beval\(|new Function|\balert\(|\bconfirm\(|\bprompt\(/, 'text only; no eval; no alert/confirm/prompt');
    });

    run('live', 'the console follows the sandbox live and acts through its controls', async () => {
      const { page, context, problems, requests } = await open();

      // 1. An order created through the HTTP control appears within a second, without reload.
      const first = await control('POST', 'orders', {});
      const shown = Date.now();
      await page.locator('#orders-list .row', { hasText: first.orderKey }).waitFor({ timeout: 1000 });
      console.log(`order listed ${Date.now() - shown} ms after the control answered`);
      await choose(page, first.orderKey);
      const [attempt] = await control('GET', 'deliveries');
      assert.equal(attempt.orderKey, first.orderKey);
      // Its timeline: the creation attempt, the POS's status and the delivery id (8 characters at least).
      const creation = timeline(page).locator('li.delivery').first();
      await creation.waitFor();
      const line = await creation.textContent();
      assert.match(line, /orderCreated attempt #1/);
      assert.match(line, /POS answered HTTP 200/);
      assert.ok(line.includes(attempt.deliveryId.slice(0, 8)), line);
      assert.match(await timeline(page).textContent(), /Pending \(created\) by the system/);

      // 2. A POS answering 500: the failed attempt and the scheduled retry.
      const failing = await control('POST', 'orders', { customerNote: 'fail please' });
      await choose(page, failing.orderKey);
      const failed = timeline(page).locator('li.delivery.failed').first();
      await failed.waitFor({ timeout: 2000 });
      assert.match(await failed.textContent(), /POS answered HTTP 500.*retry in 10 s \(next attempt at \d\d:\d\d:\d\d\)/s);
      // The README's screenshot at 1280 px: a failed attempt and its scheduled retry.
      await failed.locator('summary', { hasText: "POS's answer" }).click();
      await page.screenshot({ path: `${OUT}console-1280${suffix}.png` });

      // 3. Redeliver (two copies) adds attempts to the first order's timeline.
      await choose(page, first.orderKey);
      await creation.waitFor();
      const before = await timeline(page).locator('li.delivery').count();
      await timeline(page).getByRole('spinbutton', { name: /Copies of/ }).first().fill('2');
      await timeline(page).getByRole('button', { name: /^Redeliver/ }).first().click();
      await page.waitForFunction((n) => document.querySelectorAll('#timeline li.delivery').length === n + 2, before, { timeout: 2000 });
      assert.match(await timeline(page).locator('li.delivery').last().textContent(), /redelivery/);

      // 4. New order: the form's defaults, Create order; the control API lists it.
      await page.getByRole('button', { name: 'New order' }).click();
      assert.equal(await page.locator('#no-store').inputValue(), sb.stores[0].remoteId, 'the first store by default');
      await page.getByLabel('Customer note').fill('from the console');
      await page.getByRole('button', { name: 'Create order' }).click();
      await page.waitForFunction(() => /Create order: done/.test(document.getElementById('message').textContent), null, { timeout: 5000 });
      const listed = (await control('GET', 'orders')).find((o) => o.order.customerNote === 'from the console');
      assert.ok(listed, 'the control API lists the order made by New order');
      assert.equal(listed.order.storeRemoteId, sb.stores[0].remoteId);
      await timeline(page).getByRole('heading', { name: listed.orderKey }).waitFor({ timeout: 2000 });

      // 5. Markup in the POS's answer is shown as text.
      const marked = await control('POST', 'orders', { customerNote: 'markup' });
      await choose(page, marked.orderKey);
      const answer = timeline(page).locator('details', { hasText: "POS's answer" }).first();
      await answer.locator('summary').click();
      await page.waitForFunction(() => [...document.querySelectorAll('#timeline details[open] pre')].some((p) => /<img src=x onerror=\\?"window\.__pwned=1\\?"><b>bold<\/b>/.test(p.textContent)), null, { timeout: 5000 });
      assert.equal(await page.locator('#timeline img, #timeline b').count(), 0, 'no element made of the answer');
      assert.equal(await page.evaluate(() => window.__pwned), undefined);

      // 6. Advance past the acceptance window: the first order is Cancelled by the system.
      await page.getByLabel('Seconds').fill('301');
      await page.getByRole('button', { name: 'Advance', exact: true }).click();
      await choose(page, first.orderKey);
      await page.waitForFunction(() => /Pending → Cancelled by the system \(acceptance timeout\)/.test(document.getElementById('timeline').textContent), null, { timeout: 5000 });
      assert.equal((await control('GET', `orders/${first.orderKey}`)).status, 'Cancelled');


      // 7. Export of the timeline: a node:test file that replays it, and passes.
      const [download] = await Promise.all([page.waitForEvent('download'), timeline(page).getByRole('button', { name: 'Export as test' }).click()]);
      const file = `${OUT}order-replay${suffix}.test.mjs`;
      const text = readFileSync(await download.path(), 'utf8');
      assert.match(text, /from 'poscheck\/sandbox'/);
      writeFileSync(file, text.replace("from 'poscheck/sandbox'", `from ${JSON.stringify(SANDBOX)}`));
      const run = spawnSync(process.execPath, ['--test', file], { encoding: 'utf8', timeout: 60_000, env: CHILD_ENV });
      assert.equal(run.status, 0, `the exported timeline runs and passes:\n${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /# pass 1/);
      // A timeline that did not happen fails (the test can fail).
      writeFileSync(file, readFileSync(file, 'utf8').replace(/(const expected = \[\["Pending","system",null\]),\["Cancelled"/, '$1,["Preparing"'));
      assert.notEqual(spawnSync(process.execPath, ['--test', file], { encoding: 'utf8', timeout: 60_000, env: CHILD_ENV }).status, 0, 'a changed expectation fails');

      // 8. Export of the state and journal: loadable by --state.
      await page.getByRole('tab', { name: /Faults, reset, export/ }).click();
      const [stateDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export state and journal' }).click()]);
      const stateFile = `${OUT}sandbox-state${suffix}.json`;
      copyFileSync(await stateDownload.path(), stateFile);
      const exported = JSON.parse(readFileSync(stateFile, 'utf8'));
      assert.ok(exported.journal.length >= 5, 'the journal is beside the state');
      // Loaded by the same face's --state (the native binary's own for the native face).
      const loaded = await sandboxOf(face, { state: stateFile, clock: 'manual' });
      try {
        assert.deepEqual((await loaded.orders()).map((o) => [o.orderKey, o.status]), (await sb.orders()).map((o) => [o.orderKey, o.status]));
      } finally {
        await loaded.close();
      }

      // The other views: deliveries filtered by failed, REST calls, the menu.
      await page.getByRole('tab', { name: 'Deliveries' }).click();
      await page.getByLabel('Show').selectOption('failed');
      await page.waitForFunction(() => /^\(\d+\)$/.test(document.getElementById('deliveries-count').textContent) && [...document.querySelectorAll('#deliveries-list .row')].every((r) => /HTTP 500|no answer/.test(r.textContent)));
      const rows = await page.locator('#deliveries-list .row').allTextContents();
      assert.ok(rows.length > 0 && rows.every((r) => /HTTP 500|no answer/.test(r)), rows.join('\n'));
      await page.locator('#deliveries-list .row').first().click();
      await page.waitForFunction(() => /POS answered HTTP 500/.test(document.getElementById('delivery-detail').textContent), null, { timeout: 5000 });
      await page.getByRole('tab', { name: 'Menu' }).click();
      await page.locator('#menu h3').first().waitFor();

      // Nothing left the sandbox's origin; no console error.
      const origin = new URL(sb.url).origin;
      for (const url of requests) assert.ok(url.startsWith(`${origin}/`) || url.startsWith('blob:'), `a request left the origin: ${url}`);
      assert.ok(requests.some((u) => u.includes('/_sandbox/journal?after=') && u.includes('&wait=')), 'the console follows by a long poll');
      assert.deepEqual(problems, []);
      await context.close();
    });

    run('axe', 'axe-core finds nothing moderate or worse, light and dark, 1280 and 390 px', async () => {
      // The order whose POS answered 500: failed attempts, their retries, the system's cancellation.
      const key = (await sb.orders()).find((o) => o.order.customerNote === 'fail please').orderKey;
      const found = [];
      for (const [width, colorScheme] of [[1280, 'light'], [390, 'dark']]) {
        const { page, context, problems } = await open({ width, height: 844 }, colorScheme);
        await choose(page, key);
        await timeline(page).locator('li.delivery').first().waitFor();
        await timeline(page).locator('details summary').first().click();
        found.push(...(await axe(page, `timeline ${width} ${colorScheme}`)));
        if (width === 390) {
          // The README's screenshot at 390 px: the timeline, scrolled to.
          await page.locator('#timeline').scrollIntoViewIfNeeded();
          await page.evaluate(() => window.scrollTo(0, document.getElementById('timeline').offsetTop - 8));
          await page.screenshot({ path: `${OUT}console-390.png` });
        }
        await page.getByRole('button', { name: 'New order' }).click();
        found.push(...(await axe(page, `new order ${width} ${colorScheme}`)));
        for (const tab of ['Deliveries', 'REST calls', 'Menu', 'Faults, reset, export']) {
          await page.getByRole('tab', { name: tab }).click();
          found.push(...(await axe(page, `${tab} ${width} ${colorScheme}`)));
        }
        // At 390 px nothing scrolls sideways.
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `no horizontal scroll at ${width} px`);
        assert.deepEqual(problems, []);
        await context.close();
      }
      assert.deepEqual(found, []);
    });

    run('journal', '10,000 journal entries: the lists draw only the rows in view', async () => {
      const { page, context, problems } = await open();
      // REST calls without a key (401s, journaled like any other), in batches.
      for (let i = 0; i < 10_000; i += 100) {
        await Promise.all(Array.from({ length: 100 }, () => fetch(`${sb.url}/api/v1/Orders`).then((r) => r.arrayBuffer())));
      }
      await page.getByRole('tab', { name: 'REST calls' }).click();
      await page.waitForFunction(() => Number(/\d+/.exec(document.getElementById('rest-count').textContent)?.[0] ?? 0) >= 10_000, null, { timeout: 15_000 });
      const drawn = await page.locator('#rest-list .row').count();
      assert.ok(drawn > 5 && drawn < 60, `${drawn} rows in the DOM`);
      const t = Date.now();
      await page.locator('#rest-list').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
      await page.locator('#rest-list .row').nth(3).click();
      await page.waitForFunction(() => /GET \/api\/v1\/Orders → 401/.test(document.getElementById('rest-detail').textContent), null, { timeout: 5000 });
      console.log(`scroll and choose in 10,000 entries: ${Date.now() - t} ms`);
      assert.deepEqual(problems, []);
      await context.close();
    });

    run('body', 'a 1 MB request body is shown as text, whole, and the page stays usable', async () => {
      const { page, context, problems } = await open();
      const big = JSON.stringify({ pad: 'x'.repeat(1_000_000), mark: '<img src=x onerror="window.__ran=1">END-OF-BODY' });
      // Without a key: a 401, journaled with its whole body (cut only past 1 MiB).
      const res = await fetch(`${sb.url}/api/v1/menu`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: big });
      assert.equal(res.status, 401);
      await page.getByRole('tab', { name: 'REST calls' }).click();
      const t = Date.now();
      await page.locator('#rest-list .row', { hasText: 'PUT /api/v1/menu' }).first().click();
      await page.waitForFunction(() => /PUT \/api\/v1\/menu → 401/.test(document.getElementById('rest-detail').textContent), null, { timeout: 10_000 });
      for (const d of await page.locator('#rest-detail details').all()) await d.evaluate((el) => (el.open = true));
      await page.waitForFunction(() => document.getElementById('rest-detail').textContent.includes('END-OF-BODY'), null, { timeout: 10_000 });
      console.log(`a 1 MB body chosen and shown: ${Date.now() - t} ms`);
      assert.equal(await page.evaluate(() => window.__ran ?? null), null, 'the markup in the body is text');
      assert.equal(await page.locator('#rest-detail img').count(), 0);
      // Still usable: another tab answers.
      await page.getByRole('tab', { name: 'Orders' }).click();
      await page.waitForSelector('#orders-list', { state: 'visible', timeout: 5000 });
      assert.deepEqual(problems, []);
      await context.close();
    });
  });
}
