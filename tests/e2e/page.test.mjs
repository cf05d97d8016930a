// Ring 4: the checker page in a real browser (playwright-core driving /usr/bin/chromium).
// Signatures are computed here with node:crypto, an implementation independent of the wasm core.
// Every test writes a screenshot under test-results/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { CSP } from '../../scripts/serve.mjs';
import { editorState, fillEditor, largeMenu, nowSeconds, OUT, openPage, rawRequest, shot, sign, usePageServer } from './support.mjs';

const SECRET = 'whsec_e2e_séc☃ret';
const ctx = usePageServer();

/** Opens the page at `hash`, collecting console problems and every request made (support.mjs). */
const open = (hash) => openPage(ctx, hash);

async function fillSecret(page, secret) {
  await page.locator('#wh-secrets input').first().fill(secret);
}

/** Whether a tool says its functions are missing from this build. */
const unavailable = (page, tool) => page.locator(`#${tool}-unavailable`).isVisible();

test('the CSP forbids every connection, in the header and in the page', async () => {
  assert.match(CSP, /connect-src 'none'/);
  const res = await fetch(ctx.base);
  const header = res.headers.get('content-security-policy');
  assert.equal(header, CSP);
  const { page, problems } = await open();
  const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.match(meta, /connect-src 'none'/);
  // The meta policy is the header's, without frame-ancestors (ignored, with a console error, in a meta tag).
  const directives = (p) => p.split(';').map((d) => d.trim()).filter(Boolean);
  assert.deepEqual(directives(meta), directives(CSP).filter((d) => !d.startsWith('frame-ancestors')));
  assert.deepEqual(problems, []);
  // And the browser enforces it: even a same-origin fetch is refused.
  const outcome = await page.evaluate(() => fetch('/index.html').then(() => 'fetched', () => 'blocked'));
  assert.equal(outcome, 'blocked');
  await shot(page, 'csp');
  await page.close();
});

test('the page loads without console errors and requests only its own static files', async () => {
  const { page, problems, requests } = await open('#webhook');
  for (const tool of ['menu', 'payload', 'orders', 'webhook']) {
    await page.evaluate((t) => { location.hash = `#${t}`; }, tool);
    await page.waitForSelector(`#tool-${tool}:not([hidden])`);
  }
  // Keyboard: Alt+2 opens the Menu tool, Alt+1 comes back.
  await page.keyboard.press('Alt+2');
  await page.waitForSelector('#tool-menu:not([hidden])');
  assert.equal(new URL(page.url()).hash, '#menu');
  await page.keyboard.press('Alt+1');
  await page.waitForSelector('#tool-webhook:not([hidden])');
  await page.waitForTimeout(200);
  assert.deepEqual(problems, []);
  assert.ok(requests.length > 0);
  for (const url of requests) assert.ok(url.startsWith(ctx.base), `unexpected request: ${url}`);
  assert.ok(requests.some((u) => /\/pkg\/\w+\/wasm\.js$/.test(u)), 'the wasm comes embedded in a module');
  assert.ok(!requests.some((u) => u.endsWith('.wasm')), 'no .wasm fetch: the CSP forbids it');
  // Every file requested exists in www/ (no 404 hidden behind a silent failure).
  for (const url of new Set(requests)) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
  }
  await shot(page, 'load');
  await page.close();
});

test('a validly signed webhook verifies', async () => {
  const { page, problems } = await open('#webhook');
  const ts = nowSeconds() - 42;
  const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1001","event":"delivered","occurredAt":"2026-08-12T00:00:00Z","note":"café ☕"}';
  const delivery = '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10';
  await fillEditor(page, 'wh-raw', rawRequest(body, {
    'X-Service-Timestamp': ts,
    'X-Service-Signature-256': sign(SECRET, ts, body),
    'X-Service-Delivery-Id': delivery,
  }));
  await fillSecret(page, SECRET);
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-verdict="valid"]');
  assert.equal(await page.textContent('#wh-delivery'), delivery);
  assert.match(await page.textContent('#wh-skew'), /42 s · behind now|4[0-9] s · behind now/);
  assert.match(await page.textContent('#wh-findings'), /VALID/);
  await shot(page, 'webhook-valid');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a body with CRLF line endings keeps its exact bytes when pasted', async () => {
  const { page } = await open('#webhook');
  const ts = nowSeconds();
  const body = '{\r\n  "orderKey": "ord_0123456789abcdEF",\r\n  "event": "cancelled"\r\n}';
  const raw = ['POST /v1/order/STORE-1 HTTP/1.1', `X-Service-Timestamp: ${ts}`, `X-Service-Signature-256: ${sign(SECRET, ts, body)}`, '', body].join('\r\n');
  await fillSecret(page, SECRET);
  // A real paste event carrying the clipboard text, CR characters included.
  await page.locator('#wh-raw').focus();
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.setData('text/plain', text);
    document.getElementById('wh-raw').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, raw);
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-verdict="valid"]');
  assert.match(await page.textContent('#wh-raw-editor'), /CRLF/);
  await shot(page, 'webhook-crlf');
  await page.close();
});

test('a tampered webhook is explained: SIGNATURE_MISMATCH, 401 and a finding', async () => {
  const { page, problems } = await open('#webhook');
  const ts = nowSeconds();
  const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1001","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}';
  const headers = { 'X-Service-Timestamp': ts, 'X-Service-Signature-256': sign(SECRET, ts, body) };
  await fillSecret(page, SECRET);

  // The body changed in transit.
  await fillEditor(page, 'wh-raw', rawRequest(body.replace('delivered', 'cancelled'), headers));
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-verdict="invalid"][data-code="SIGNATURE_MISMATCH"]');
  assert.match(await page.textContent('#wh-result .verdict'), /HTTP 401/);
  const findings = await page.locator('#wh-findings .finding').allTextContents();
  assert.ok(findings.length >= 1, 'at least one finding');
  assert.match(findings.join('\n'), /WRONG_SECRET_OR_BODY/);
  await shot(page, 'webhook-tampered');

  // The body was re-serialized by a JSON parser: the diagnosis names it.
  await fillEditor(page, 'wh-raw', rawRequest(JSON.stringify(JSON.parse(body), null, 2), headers));
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-code="SIGNATURE_MISMATCH"]');
  assert.match(await page.textContent('#wh-findings'), /BODY_RESERIALIZED/);
  await shot(page, 'webhook-reserialized');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the fields form verifies with a rotated secret list', async () => {
  const { page } = await open('#webhook');
  const ts = nowSeconds();
  const body = '{"orderKey":"ord_0123456789abcdEF"}';
  await page.click('#wh-src-fields');
  await page.fill('#wh-f-ts', String(ts));
  await page.fill('#wh-f-sig', sign(SECRET, ts, body));
  await fillEditor(page, 'wh-f-body', body);
  await fillSecret(page, 'whsec_old_one');
  await page.click('#wh-secret-add');
  await page.locator('#wh-secrets input').nth(1).fill(SECRET);
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-verdict="valid"]');
  assert.match(await page.textContent('#wh-result'), /#1 of 2 matched/);
  await shot(page, 'webhook-fields');
  await page.close();
});

test('Sign mode produces the signature node:crypto computes, and a curl that carries the exact body', async () => {
  const { page, problems } = await open('#webhook');
  await page.click('#wh-tab-sign');
  const ts = 1786492800;
  const body = '{"orderKey":"ord_0123456789abcdEF","note":"it\'s ready — ünïcode"}\n';
  await fillEditor(page, 'wh-s-body', body);
  await page.fill('#wh-s-secret', SECRET);
  await page.fill('#wh-s-ts', String(ts));
  await page.click('#wh-s-delivery-gen');
  await page.fill('#wh-s-url', 'http://localhost:3000/v1/order/STORE-1');
  await page.click('#wh-sign-run');
  await page.waitForSelector('[data-header="X-Service-Signature-256"]');
  assert.equal(await page.textContent('[data-header="X-Service-Signature-256"]'), sign(SECRET, ts, body));
  assert.equal(await page.textContent('[data-header="X-Service-Timestamp"]'), String(ts));
  const delivery = await page.textContent('[data-header="X-Service-Delivery-Id"]');
  assert.match(delivery, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  const curl = await page.textContent('#wh-curl');
  assert.match(curl, /^curl .* 'http:\/\/localhost:3000\/v1\/order\/STORE-1'/);
  assert.ok(curl.includes(`-H 'X-Service-Signature-256: ${sign(SECRET, ts, body)}'`));
  // The --data-binary argument, given to a real shell, is exactly the signed body.
  const arg = curl.slice(curl.indexOf('--data-binary ') + '--data-binary '.length);
  const echoed = execFileSync('sh', ['-c', `printf '%s' ${arg}`]);
  assert.equal(echoed.toString('utf8'), body);

  await shot(page, 'webhook-sign');

  // "Check it in Verify" opens the same request against the current clock: the MAC is right but
  // the fixed timestamp is months old, and the diagnosis says exactly that.
  await page.click('text=Check it in Verify');
  await page.waitForSelector('#wh-result [data-verdict="invalid"][data-code="TIMESTAMP_TOO_OLD"]');
  assert.match(await page.textContent('#wh-findings'), /CLOCK_SKEW/);
  await page.fill('#wh-now', String(ts + 10));
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-verdict="valid"]');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Menu: the example shows diagnostics and clicking one selects its line in the editor', async (t) => {
  const { page, problems } = await open('#menu');
  assert.equal(await unavailable(page, 'mn'), false, 'lintMenu must be in the build');
  assert.ok(await page.locator('#mn-example').isVisible(), 'the build writes the example from tests/fixtures (no menu example in this build)');
  await page.click('#mn-example');
  await page.waitForSelector('#mn-diags .diag');
  const rows = page.locator('#mn-diags .diag');
  const count = await rows.count();
  assert.ok(count >= 3, `diagnostics shown (${count})`);
  assert.match(await page.textContent('#mn-diags .diag-summary'), /error/);
  // Pick a diagnostic far from the top, click it, and read the editor's selection.
  const target = rows.nth(Math.min(count - 1, Math.floor(count / 2)));
  const line = Number(await target.getAttribute('data-line'));
  const [, column] = (await target.locator('.diag-pos').textContent()).split(':').map(Number);
  assert.ok(line > 1);
  await target.click();
  const sel = await editorState(page, 'mn-input');
  assert.ok(sel.focused, 'the editor has the focus');
  assert.equal(sel.line, line);
  assert.equal(sel.column, column);
  // The gutter marks the line as the active one.
  await page.waitForSelector('#mn-editor .cm-lineNumbers .cm-activeLineGutter');
  assert.equal(Number(await page.textContent('#mn-editor .cm-lineNumbers .cm-activeLineGutter')), line);
  await shot(page, 'menu');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Menu: a 5 MB menu loads, lints and jumps to a diagnostic quickly', async (t) => {
  const { page, problems } = await open('#menu');
  assert.equal(await unavailable(page, 'mn'), false, 'lintMenu must be in the build');
  const text = largeMenu(5);
  const file = `${OUT}large-menu.json`;
  await writeFile(file, text);
  const started = Date.now();
  await page.setInputFiles('#mn-file', file);
  await page.waitForSelector('#mn-diags .diag-summary .verdict-chip', { timeout: 20000 });
  const loaded = Date.now() - started;
  assert.ok(loaded < 10000, `loaded and linted in ${loaded} ms`);
  // The duplicate remoteCode near the end is found, with its line.
  const duplicate = page.locator('#mn-diags .diag', { hasText: 'P-0' }).first();
  const line = Number(await duplicate.getAttribute('data-line'));
  const expected = text.slice(0, text.lastIndexOf('"remoteCode": "P-0"')).split('\n').length;
  assert.equal(line, expected);
  const clickAt = Date.now();
  await duplicate.click();
  await page.waitForFunction((l) => window.__poscheck.editor('mn-input').cursorLine === l, line);
  const jumped = Date.now() - clickAt;
  assert.ok(jumped < 2000, `jumped in ${jumped} ms`);
  await page.waitForSelector('#mn-editor .cm-lineNumbers .cm-activeLineGutter');
  assert.equal(Number(await page.textContent('#mn-editor .cm-lineNumbers .cm-activeLineGutter')), line);
  const sel = await editorState(page, 'mn-input');
  assert.match(sel.value.slice(sel.from, sel.to), /P-0|"/);
  await shot(page, 'menu-large');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Payload: payloads, requests and problem responses are detected and checked by the core', async (t) => {
  const { page, problems } = await open('#payload');
  assert.equal(await unavailable(page, 'pl'), false, 'validatePayload must be in the build');
  // A webhook payload, with a broken field.
  await fillEditor(page, 'pl-input', '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1001","event":"delivered","occurredAt":"yesterday"}');
  await page.click('#pl-run');
  await page.waitForSelector('#pl-result .verdict');
  assert.match(await page.textContent('#pl-detected'), /orderUpdateEvent/);
  assert.ok(await page.locator('#pl-result .diag').count() >= 1, 'the bad occurredAt is reported');
  await shot(page, 'payload-event');

  // A REST request: the predicted answer, and a body diagnostic placed on the body's line.
  const request = ['POST /api/v1/Orders/ord_0123456789abcdEF/accept HTTP/1.1', 'X-Service-Api-Key: test-key',
    'Idempotency-Key: 6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10', 'X-Service-Schema-Version: 1.0', 'Content-Type: application/json',
    '', '{', '  "remoteOrderId": "POS-1"', '}'].join('\n');
  await fillEditor(page, 'pl-input', request);
  await page.click('#pl-run');
  await page.waitForSelector('#pl-result [data-status]');
  assert.match(await page.textContent('#pl-detected'), /request · POST/);
  assert.match(await page.textContent('#pl-status'), /^4\d\d$/);
  // The page shows what the predicted status rests on (issue 9): stated, derived or assumed, with the source.
  assert.match(await page.textContent('#pl-basis'), /Status rests on\s*(stated|derived|assumed): /);
  const bodyDiag = page.locator('#pl-result .diag', { hasText: 'remoteOrderId' }).first();
  if (await bodyDiag.count()) {
    await bodyDiag.click();
    const { line } = await editorState(page, 'pl-input');
    assert.equal(line, 8, 'the body diagnostic selects line 8 of the pasted request');
  }
  await shot(page, 'payload-request');

  // A problem response.
  await fillEditor(page, 'pl-input', ['HTTP/1.1 409 Conflict', 'Content-Type: application/problem+json', '',
    JSON.stringify({ type: 'https://problems.example.test/invalid-state-transition', title: 'Invalid state transition', status: 409, detail: 'already Ready', traceId: 't-1', meta: { currentStatus: 'Ready', allowedTransitions: ['HandedOver'] } })].join('\n'));
  await page.click('#pl-run');
  await page.waitForSelector('#pl-result [data-verdict="problem"]');
  assert.match(await page.textContent('#pl-kind-out'), /invalid-state-transition/);
  assert.match(await page.textContent('#pl-advice'), /handed_over/);
  await shot(page, 'payload-problem');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Orders: the diagram is drawn by the core, a checked order highlights its path, actions are predicted', async (t) => {
  const { page, problems } = await open('#orders');
  assert.equal(await unavailable(page, 'or'), false, 'order state machine must be in the build');
  await page.waitForSelector('#or-diagram svg');
  assert.equal(await page.locator('#or-diagram svg .state.hl, #or-diagram svg .edge.hl').count(), 0, 'nothing highlighted before an order');
  assert.ok(await page.locator('#or-example').isVisible(), 'the build writes the example from tests/fixtures (no order example in this build)');
  await page.click('#or-example');
  await page.waitForSelector('#or-check .diag-summary');
  assert.ok(await page.locator('#or-diagram svg .state.hl').count() >= 2, 'the history path is highlighted');
  assert.match(await page.textContent('#or-diagram-note'), /Pending → .*HandedOver/);
  await shot(page, 'orders-check');

  // A new Pending order: accept → 202 Preparing, accept again → 409, ready → 202 Ready.
  await page.click('#or-tab-sim');
  await page.click('#or-sim-fresh');
  await page.waitForSelector('#or-sim-body:not([hidden])');
  assert.equal(await page.textContent('#or-sim-status'), 'Pending');
  assert.ok(await page.locator('[data-action="accept"].allowed').count() === 1, 'accept is allowed now');
  await page.click('[data-action="accept"]');
  await page.waitForSelector('#or-steps .step[data-status="202"]');
  assert.equal(await page.textContent('#or-sim-status'), 'Preparing');
  // Each simulated step says what it rests on (issue 9): "Pending | POST accept | before expiresAt | Preparing".
  assert.match(await page.textContent('#or-steps .step[data-status="202"]'), /status rests on\s*stated: States and transitions/);
  await page.click('[data-action="accept"]');
  await page.waitForSelector('#or-steps .step[data-status="409"]');
  assert.match(await page.textContent('#or-steps .step:first-child'), /invalid-state-transition/);
  await page.click('[data-action="ready"]');
  await page.waitForFunction(() => document.getElementById('or-sim-status').textContent === 'Ready');
  assert.equal(await page.locator('#or-steps .step').count(), 3);
  await page.locator('#or-view-sim').scrollIntoViewIfNeeded();
  await shot(page, 'orders-simulate');
  // The reject body travels with the call: "A reasonCode outside that set … is normalized to
  // SYSTEM_ISSUE and returned so in data.reason."
  await page.click('#or-fresh');
  await page.selectOption('#or-reason', 'OTHER_REASON');
  await page.click('[data-action="reject"]');
  await page.waitForFunction(() => document.getElementById('or-sim-status').textContent === 'Rejected');
  assert.match(await page.textContent('#or-steps .step[data-status="202"]'), /"reason": "SYSTEM_ISSUE"/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('hostile input: a 5,000-deep order and odd URL fragments break no tool', async () => {
  for (const hash of ['#constructor', '#__proto__', '#toString']) {
    const { page, problems } = await open(hash);
    assert.equal(await page.locator('.tool[data-tool="webhook"]').isVisible(), true, `${hash} shows the default tool`);
    assert.deepEqual(problems, [], hash);
    await page.close();
  }
  const { page, problems } = await open('#orders');
  const deep = '{"order":'.repeat(5_000) + '{"status":"Pending"}' + '}'.repeat(5_000);
  await fillEditor(page, 'or-input', deep);
  await page.click('#or-run');
  await page.waitForSelector('#or-check .diag');
  await page.click('#or-tab-sim');
  await page.click('#or-sim-use');
  // Every other tool still works on the same module: a signed webhook verifies.
  await page.goto(ctx.base + '#webhook');
  await page.waitForSelector('#app[data-state="ready"]');
  const ts = nowSeconds();
  const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}';
  await fillEditor(page, 'wh-raw', rawRequest(body, { 'X-Service-Timestamp': ts, 'X-Service-Signature-256': sign(SECRET, ts, body) }));
  await fillSecret(page, SECRET);
  await page.click('#wh-run');
  await page.waitForSelector('#wh-result [data-verdict="valid"]');
  assert.deepEqual(problems.filter((p) => /RuntimeError|unreachable|memory access/.test(p)), []);
  await page.close();
});
