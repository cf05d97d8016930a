// Ring 3: `poscheck/webhook`, the webhook-only entry (a smaller module built without the other
// checkers), as users require() and import it: the same answers as the toolkit on the Python hmac
// vectors, on deliveries and on the webhook payloads, and nothing else exported.
import test from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, hash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countingCalls, fixture, fixtureJson, pkg, require, root } from './helpers.mjs';

const webhook = require('../../pkg/dist/webhook.cjs');
const vectors = fixtureJson('signature', 'vectors.json');
const { createApi, PoscheckError } = require('../../pkg/dist/api.cjs');
/**
 * The toolkit's validatePayload on its own module: in Node, `pkg` hands the webhook kinds to the
 * webhook module, so comparing with it would compare that module with itself.
 */
const toolkitOwn = createApi(require('../../pkg/dist/web/poscheck.js')); // the instance node.cjs initialized

test('poscheck/webhook resolves through the package exports, for require and import', async () => {
  // A project with the package installed (a symlink, as npm link makes): its require() and its
  // import() of the bare specifier go through pkg/package.json "exports".
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-webhook-entry-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(join(root, 'pkg'), join(dir, 'node_modules', 'poscheck'));
    const fromProject = createRequire(join(dir, 'index.js'));
    assert.equal(realpathSync(fromProject.resolve('poscheck/webhook')), realpathSync(join(root, 'pkg', 'dist', 'webhook.cjs')));
    writeFileSync(join(dir, 'entry.mjs'), "export * from 'poscheck/webhook';\nexport { default } from 'poscheck/webhook';\n");
    const esm = await import(pathToFileURL(join(dir, 'entry.mjs')).href);
    assert.equal(typeof esm.verifyWebhook, 'function');
    assert.equal(typeof esm.default, 'function');
    await esm.default();
    assert.equal(esm.lintMenu, undefined, 'the toolkit functions are not in this entry');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('it exports the webhook functions, the receiver kit and the webhook payloads\' validation only', () => {
  const names = Object.keys(webhook).filter((k) => k !== '__esModule').sort();
  assert.deepEqual(names, [
    'DEFAULT_TOLERANCE_SECONDS', 'PoscheckError', 'WebhookVerificationError', 'createMemoryStore', 'createReceiver', 'createRedisStore',
    'default', 'diagnoseWebhook', 'init', 'parseHttpMessage', 'payloadKinds', 'signWebhook', 'validatePayload', 'verifyWebhook', 'webhookErrorCodes',
    'webhookFindingCodes',
  ]);
  for (const name of names) assert.ok(name in pkg, `${name} is the toolkit's too`);
  assert.deepEqual(webhook.webhookErrorCodes(), pkg.webhookErrorCodes());
  assert.deepEqual(webhook.webhookFindingCodes(), pkg.webhookFindingCodes());
});

const WEBHOOK_KINDS = ['orderUpdateEvent', 'menuChangeCompleted', 'orderCreated'];

test('validatePayload: the toolkit\'s report for every webhook payload fixture, as each webhook kind, detected and by path', () => {
  assert.deepEqual(webhook.payloadKinds(), WEBHOOK_KINDS);
  assert.deepEqual(pkg.payloadKinds().slice(0, 3), WEBHOOK_KINDS, 'the same numbering as the toolkit\'s first three');
  const cases = fixtureJson('payload', 'cases.json').filter((c) => WEBHOOK_KINDS.includes(c.expectKind));
  let compared = 0;
  let clean = 0;
  for (const c of cases) {
    const bytes = fixture('payload', c.file);
    for (const kind of [undefined, ...WEBHOOK_KINDS]) {
      for (const input of [bytes, bytes.toString('utf8')]) {
        const options = { kind, path: c.path ?? undefined };
        const mine = webhook.validatePayload(input, options);
        assert.deepEqual(mine, toolkitOwn.validatePayload(input, options), `${c.file} as ${kind ?? 'detected'}`);
        assert.deepEqual(pkg.validatePayload(input, options), mine, `${c.file} as ${kind ?? 'detected'}: the toolkit's entry`);
        compared++;
        if (mine.ok && mine.diagnostics.length === 0) clean++;
      }
    }
  }
  assert.ok(cases.length >= 15 && clean >= 20 && compared - clean >= 20, `${cases.length} cases, ${compared} reports, ${clean} clean`);
});

test('validatePayload crosses through the shared buffer of the webhook module, as the toolkit\'s does', () => {
  const raw = require('../../pkg/dist/webhook-web/poscheck.js'); // the instance webhook.cjs initialized
  const { raw: counted, calls } = countingCalls(raw, ['validatePayloadIo', 'validatePayload']);
  const api = createApi(counted);
  const event = fixture('payload', 'order-update-event.delivered.valid.json');
  for (const input of [event, event.toString('utf8')]) {
    assert.deepEqual(api.validatePayload(input, { kind: 'orderUpdateEvent' }), webhook.validatePayload(input, { kind: 'orderUpdateEvent' }));
  }
  assert.deepEqual(calls, { validatePayloadIo: 2, validatePayload: 0 });
  // A path goes the general way.
  const routed = api.validatePayload(event, { path: '/v1/order/STORE-1/R-1001/events' });
  assert.equal(routed.kind, 'orderUpdateEvent');
  assert.deepEqual(calls, { validatePayloadIo: 2, validatePayload: 1 });
});

test('the toolkit hands validatePayload of a named webhook kind to this entry, where the platform offers it, and nothing else', () => {
  let asked = 0; // platform.webhook.load() calls: one per handed-over validation
  const toolkitRaw = require('../../pkg/dist/web/poscheck.js');
  const { raw: counted, calls } = countingCalls(toolkitRaw, ['validatePayloadIo', 'validatePayload']);
  const { raw: countedWebhook, calls: webhookCalls } = countingCalls(require('../../pkg/dist/webhook-web/poscheck.js'), ['validatePayloadIo', 'validatePayload']);
  const webhookApi = createApi(countedWebhook);
  const api = createApi(counted, undefined, { webhook: { kinds: webhook.payloadKinds(), load: () => (asked++, webhookApi) } });
  const event = fixture('payload', 'order-update-event.delivered.valid.json');
  // Detected, routed by a path, or another kind: the toolkit's module, and nothing loaded.
  assert.equal(api.validatePayload(event).kind, 'orderUpdateEvent');
  assert.equal(api.validatePayload(event, { path: '/v1/order/STORE-1/R-1001/events' }).kind, 'orderUpdateEvent');
  assert.equal(api.validatePayload(event, { kind: 'orderDetail' }).ok, false);
  assert.throws(() => api.validatePayload(event, { kind: 'nope' }), (e) => e instanceof PoscheckError && e.code === 'INVALID_ARGUMENT');
  assert.equal(asked, 0);
  assert.deepEqual(webhookCalls, { validatePayloadIo: 0, validatePayload: 0 });
  const own = { ...calls };
  // Each webhook kind by name, with or without a path: the webhook module, with the same report.
  for (const kind of WEBHOOK_KINDS) {
    for (const path of [undefined, '/v1/order/STORE-1/R-1001/events']) {
      assert.deepEqual(api.validatePayload(event, { kind, path }), toolkitOwn.validatePayload(event, { kind, path }), `${kind} ${path}`);
    }
  }
  assert.deepEqual(calls, own, 'the toolkit module was not called');
  assert.deepEqual(webhookCalls, { validatePayloadIo: 3, validatePayload: 3 });
  assert.equal(asked, 6);
  // Bad options are refused as the toolkit's own path refuses them.
  for (const options of [{ kind: 'orderCreated', maxDepth: -1 }, { kind: 'orderCreated', path: 7 }, { kind: 'orderCreated', maxBytes: 'x' }]) {
    let mine;
    let theirs;
    assert.throws(() => api.validatePayload(event, options), (e) => ((mine = e), true));
    assert.throws(() => toolkitOwn.validatePayload(event, options), (e) => ((theirs = e), true));
    assert.ok(mine instanceof PoscheckError, JSON.stringify(options));
    assert.deepEqual([mine.code, mine.message], [theirs.code, theirs.message], JSON.stringify(options));
  }
});

test('in Node, require(\'poscheck\') loads the webhook module on the first validatePayload of a webhook kind or createReceiver, not before', () => {
  const script = `
    const loaded = () => Object.keys(require.cache).some((f) => f.endsWith('webhook.cjs'));
    const pkg = require(${JSON.stringify(join(root, 'pkg'))});
    const event = require('node:fs').readFileSync(${JSON.stringify(join(root, 'tests', 'fixtures', 'payload', 'order-update-event.delivered.valid.json'))});
    const steps = [loaded()];
    pkg.validatePayload(event);
    pkg.validatePayload(event, { kind: 'orderDetail' });
    pkg.lintMenu('{}');
    steps.push(loaded());
    const report = pkg.validatePayload(event, { kind: 'orderUpdateEvent' });
    steps.push(loaded(), report.ok, report.kind);
    console.log(JSON.stringify(steps));`;
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), [false, false, true, true, 'orderUpdateEvent']);
  // createReceiver loads it too (what its receivers then run on: the next test).
  const receiving = `
    const loaded = () => Object.keys(require.cache).some((f) => f.endsWith('webhook.cjs'));
    const pkg = require(${JSON.stringify(join(root, 'pkg'))});
    const steps = [loaded()];
    const receiver = pkg.createReceiver({ secret: 's', now: 1786492800, onOrderUpdate: () => {} });
    steps.push(loaded());
    const body = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T14:30:00Z"}';
    const headers = pkg.signWebhook({ body, secret: 's', timestamp: 1786492800, deliveryId: 'd-1' });
    receiver.handle({ method: 'PUT', url: '/v1/order/S/R-1/events', headers, body }).then((a) => console.log(JSON.stringify([...steps, a.status])));`;
  const answered = execFileSync(process.execPath, ['-e', receiving], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(answered), [false, true, 200]);
  // Every kind the webhook entry checks, and no other, is handed over (the entry's kinds are read
  // from its module when the package is built): the calls reaching that entry are counted.
  const counting = `
    const entry = require(${JSON.stringify(join(root, 'pkg', 'dist', 'webhook.cjs'))});
    const validate = entry.validatePayload;
    const reached = [];
    entry.validatePayload = (input, options) => (reached.push(options.kind), validate(input, options));
    const pkg = require(${JSON.stringify(join(root, 'pkg'))});
    for (const kind of pkg.payloadKinds()) pkg.validatePayload('{}', { kind });
    console.log(JSON.stringify(reached));`;
  assert.deepEqual(JSON.parse(execFileSync(process.execPath, ['-e', counting], { encoding: 'utf8' })), WEBHOOK_KINDS);
});

test('createReceiver hands over to this entry where the platform offers it: its receivers run on the webhook module', async () => {
  const { createReceiverApi } = require('../../pkg/dist/receiver.cjs');
  const facade = require('../../pkg/dist/api.cjs');
  const names = ['receiverRoute', 'receiverReceive', 'receiverReceiveMacs', 'receiverAnswer'];
  const { raw: toolkitRaw, calls: toolkitCalls } = countingCalls(require('../../pkg/dist/web/poscheck.js'), names);
  const { raw: webhookRaw, calls: webhookCalls } = countingCalls(require('../../pkg/dist/webhook-web/poscheck.js'), names);
  const webhookReceivers = createReceiverApi(webhookRaw, facade);
  const api = createReceiverApi(toolkitRaw, facade, undefined, { webhook: { kinds: webhook.payloadKinds(), load: () => webhookReceivers } });
  const receiver = api.createReceiver({ secret: 's', now: 1786492800, onOrderUpdate: () => {} });
  const body = fixture('payload', 'order-update-event.delivered.valid.json');
  const headers = webhook.signWebhook({ body, secret: 's', timestamp: 1786492800, deliveryId: 'd-1' });
  assert.equal((await receiver.handle({ method: 'PUT', url: '/v1/order/S/R-1001/events', headers, body })).status, 200);
  assert.deepEqual(toolkitCalls, { receiverRoute: 0, receiverReceive: 0, receiverReceiveMacs: 0, receiverAnswer: 0 });
  assert.ok(webhookCalls.receiverRoute === 1 && webhookCalls.receiverReceive === 1, JSON.stringify(webhookCalls));
  // Options are still checked, with the same errors.
  assert.throws(() => api.createReceiver({ secret: 's' }), (e) => e instanceof PoscheckError && /at least one handler/.test(e.message));
});

test('validatePayload: another kind is refused by name, reported when detected or routed, and the module still answers', () => {
  const event = fixture('payload', 'order-update-event.delivered.valid.json');
  for (const kind of pkg.payloadKinds().filter((k) => !WEBHOOK_KINDS.includes(k))) {
    assert.throws(() => webhook.validatePayload(event, { kind }), (e) => e instanceof webhook.PoscheckError && e.code === 'INVALID_ARGUMENT' && e.message.includes(`"${kind}" is not checked by poscheck/webhook`) && e.message.includes('import poscheck'), kind);
  }
  assert.throws(() => webhook.validatePayload(event, { kind: 'nope' }), (e) => e.code === 'INVALID_ARGUMENT' && /unknown payload kind "nope": expected one of orderUpdateEvent, menuChangeCompleted, orderCreated$/.test(e.message));
  for (const [input, options] of [[fixture('payload', 'capabilities.valid.json'), {}], ['{}', { path: '/api/v1/Orders' }]]) {
    const r = webhook.validatePayload(input, options);
    assert.equal(r.ok, false);
    assert.deepEqual(r.diagnostics.map((d) => d.ruleId), ['payload/kind-undetected'], JSON.stringify(r));
    assert.match(r.diagnostics[0].message, /is not a webhook payload: .*the toolkit's validatePayload checks every kind/);
  }
  // Hostile input through this module (its own stack, its own buffer): reports, never a trap.
  const hostile = [
    '['.repeat(100_000) + ']'.repeat(100_000),
    `{"orderKey":"ord_0123456789abcdEF","event":"delivered",${Array.from({ length: 60_000 }, (_, i) => `"u${i}":0`).join(',')}}`,
    '{"a":1,'.repeat(50_000) + '"b":2' + '}'.repeat(50_000),
    Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    '\u0000\uffff',
  ];
  for (const input of hostile) {
    for (const kind of [undefined, ...WEBHOOK_KINDS]) {
      const r = webhook.validatePayload(input, { kind });
      assert.equal(r.ok, false, `${String(input).slice(0, 20)} as ${kind}`);
      assert.deepEqual(r, toolkitOwn.validatePayload(input, { kind }), `${String(input).slice(0, 20)} as ${kind}`);
    }
  }
  assert.deepEqual(webhook.validatePayload(event, { kind: 'orderUpdateEvent' }).diagnostics, []);
});

// The diagnoses the webhook-only module leaves out to stay within its 150 KiB budget (issue 40;
// src/signature/causes/mod.rs, WEBHOOK_ONLY): a base64 signature, a secret decoded from hex or
// base64, a message without the dot, a body re-written by JSON.stringify or with sorted keys, a
// secret signed with trailing whitespace. The toolkit's module and `poscheck verify` name them.
const LEFT_OUT = new Set(['SIGNATURE_BASE64', 'SECRET_ENCODING', 'SIGNED_WITHOUT_DOT', 'BODY_RESERIALIZED', 'SECRET_WHITESPACE']);

test('the Python hmac vectors: the same verdicts, codes and diagnoses as the toolkit (but the causes left out of the webhook module)', () => {
  const leftOut = [];
  for (const c of vectors.verify) {
    const input = { body: Buffer.from(c.bodyBase64, 'base64'), headers: c.headers, secret: c.secrets, now: c.now, toleranceSeconds: c.toleranceSeconds };
    const outcome = (api) => {
      try {
        return { ok: api.verifyWebhook(input) };
      } catch (e) {
        assert.ok(e instanceof api.WebhookVerificationError, c.name);
        return { code: e.code, message: e.message };
      }
    };
    const mine = outcome(webhook);
    assert.deepEqual(mine, outcome(pkg), c.name);
    assert.equal(mine.code ?? 'valid', c.expect, c.name);
    const lean = webhook.diagnoseWebhook(input);
    const full = pkg.diagnoseWebhook(input);
    if (full.findings.some((f) => LEFT_OUT.has(f.code)) && !isDeepStrictEqual(lean, full)) {
      // A cause left out of the webhook-only module: the same verdict, and no cause named there
      // that the toolkit does not name.
      const verdict = ({ findings, ...rest }) => rest;
      assert.deepEqual(verdict(lean), verdict(full), c.name);
      for (const f of lean.findings) assert.ok(!LEFT_OUT.has(f.code) || full.findings.some((g) => g.code === f.code), `${c.name}: ${f.code}`);
      leftOut.push(c.name);
    } else {
      assert.deepEqual(lean, full, c.name);
    }
  }
  console.log(`diagnoses the webhook-only module leaves to the toolkit: ${leftOut.join(', ') || 'none'}`);
  for (const s of vectors.sign) {
    const headers = webhook.signWebhook({ body: Buffer.from(s.bodyBase64, 'base64'), secret: s.secret, timestamp: s.timestamp });
    assert.equal(headers['X-Service-Signature-256'], s.signature);
  }
});

test('a receiver from poscheck/webhook answers deliveries as the toolkit one does (on its own module)', async () => {
  const secret = 'whsec_entry_test';
  const now = vectors.now;
  const deliveries = [
    ['/v1/order/STORE-1', fixture('payload', 'order-created.delivery.valid.json')],
    ['/v1/order/STORE-1/R-1001/events', fixture('payload', 'order-update-event.delivered.valid.json')],
    ['/v1/order/STORE-1/R-1001/events', Buffer.from('{"orderKey":"ord_0123456789abcdEF","event":"delivered"}')],
    ['/v1/menu/change/chg_0123456789abcdEF', fixture('payload', 'menu-change-completed.valid.json')],
    ['/v1/order/STORE-1', Buffer.from('{"not":"an order"}')],
  ];
  const make = (api) => {
    const calls = [];
    const receiver = api.createReceiver({
      secret,
      now: () => now,
      onOrderCreated: (ctx) => { calls.push(['created', ctx.payload?.orderKey]); return 'POS-1'; },
      onOrderUpdate: (ctx) => { calls.push(['update', ctx.payload?.event]); },
      onMenuChangeCompleted: (ctx) => { calls.push(['menu', ctx.payload?.changeKey]); },
      onInvalid: (ctx) => { calls.push(['invalid', ctx.report.errorCount]); },
    });
    return { receiver, calls };
  };
  // In Node, pkg.createReceiver makes this entry's receivers: the toolkit's own module is built here.
  const { createReceiverApi } = require('../../pkg/dist/receiver.cjs');
  const toolkitReceivers = createReceiverApi(require('../../pkg/dist/web/poscheck.js'), require('../../pkg/dist/api.cjs'), undefined, { createHash, createHmac, hash });
  const [mine, theirs, handedOver] = [make(webhook), make(toolkitReceivers), make(pkg)];
  for (const [i, [url, body]] of deliveries.entries()) {
    const headers = pkg.signWebhook({ body, secret, timestamp: now, deliveryId: `d-${i}` });
    const request = () => ({ method: url.includes('/events') ? 'PUT' : 'POST', url, headers, body });
    const [a, b, c] = [await mine.receiver.handle(request()), await theirs.receiver.handle(request()), await handedOver.receiver.handle(request())];
    assert.deepEqual(a, b, url);
    assert.deepEqual(c, b, `${url}: the toolkit's entry`);
  }
  assert.deepEqual(mine.calls, theirs.calls);
  assert.deepEqual(handedOver.calls, theirs.calls);
  assert.ok(mine.calls.length >= 4, JSON.stringify(mine.calls));
});

test('hostile deliveries through the webhook module: answered, and the module still verifies', async () => {
  const secret = 'whsec_entry_hostile';
  const now = vectors.now;
  const receiver = webhook.createReceiver({ secret, now: () => now, onOrderUpdate: () => {}, onOrderCreated: () => 'POS-1', onMenuChangeCompleted: () => {} });
  const bodies = [
    '['.repeat(100_000) + ']'.repeat(100_000),
    `{"orderKey":"ord_0123456789abcdEF","event":"delivered",${Array.from({ length: 60_000 }, (_, i) => `"u${i}":0`).join(',')}}`,
    '{"a":1,'.repeat(50_000) + '"b":2' + '}'.repeat(50_000),
    '\u0000\uffff',
  ];
  for (const body of bodies) {
    for (const url of ['/v1/order/STORE-1', '/v1/order/STORE-1/R-1/events', '/v1/menu/change/chg_0123456789abcdEF']) {
      const headers = webhook.signWebhook({ body, secret, timestamp: now, deliveryId: `${url}-${body.length}` });
      const answer = await receiver.handle({ method: url.includes('/events') ? 'PUT' : 'POST', url, headers, body });
      assert.ok([200, 422].includes(answer.status), `${url}: ${answer.status} ${answer.body.slice(0, 200)}`);
    }
  }
  const c = vectors.verify.find((v) => v.expect === 'valid');
  const ok = webhook.verifyWebhook({ body: Buffer.from(c.bodyBase64, 'base64'), headers: c.headers, secret: c.secrets, now: c.now });
  assert.equal(ok.secretIndex, c.secretIndex);
});

/** The fields an interface of pkg/index.d.ts declares, with those of the interface it extends: [name, optional]. */
function declaredFields(name) {
  const source = readFileSync(join(root, 'pkg', 'index.d.ts'), 'utf8');
  const m = new RegExp(`export interface ${name}(?:<[^>]*>)? (?:extends (\\w+) )?\\{([\\s\\S]*?)\\n\\}`).exec(source);
  assert.ok(m, `interface ${name} in pkg/index.d.ts`);
  const own = [...m[2].matchAll(/^ {2}(\w+)(\?)?:/gm)].map(([, field, optional]) => [field, optional === '?']);
  return [...(m[1] ? declaredFields(m[1]) : []), ...own];
}

/** `value`'s keys against the declaration: none undeclared, no required one missing. */
function matchesDeclaration(value, name) {
  const fields = declaredFields(name);
  assert.ok(fields.length >= 8, `${name}: ${fields}`);
  const declared = new Set(fields.map(([f]) => f));
  for (const k of Object.keys(value)) assert.ok(declared.has(k), `${name}.${k}: passed but not declared`);
  for (const [f, optional] of fields) if (!optional) assert.ok(f in value, `${name}.${f}: declared but not passed`);
}

test('what handlers and onInvalid receive has the keys WebhookContext and InvalidDelivery declare', async () => {
  const secret = 'whsec_entry_shapes';
  const now = vectors.now;
  const seen = { context: [], invalid: [] };
  for (const api of [webhook, pkg]) {
    const receiver = api.createReceiver({
      secret,
      now: () => now,
      onOrderCreated: (ctx) => { seen.context.push(ctx); return 'POS-1'; },
      onOrderUpdate: (ctx) => { seen.context.push(ctx); },
      onMenuChangeCompleted: (ctx) => { seen.context.push(ctx); },
      onInvalid: (info) => { seen.invalid.push(info); },
    });
    const deliveries = [
      ['POST', '/v1/order/STORE-1', fixture('payload', 'order-created.delivery.valid.json')],
      ['PUT', '/v1/order/STORE-1/R-1001/events', fixture('payload', 'order-update-event.delivered.valid.json')],
      ['POST', '/v1/menu/change/chg_0123456789abcdEF', fixture('payload', 'menu-change-completed.valid.json')],
      ['PUT', '/v1/order/STORE-1/R-1001/events', Buffer.from('{"orderKey":"ord_0123456789abcdEF","event":"teleported"}')],
      ['POST', '/v1/order/STORE-1', Buffer.from('{"not":"an order"}')],
    ];
    for (const [i, [method, url, body]] of deliveries.entries()) {
      const headers = api.signWebhook({ body, secret, timestamp: now, deliveryId: `shape-${i}` });
      await receiver.handle({ method, url, headers, body });
    }
  }
  assert.ok(seen.context.length >= 4 && seen.invalid.length >= 2, `${seen.context.length} contexts, ${seen.invalid.length} invalid`);
  for (const ctx of seen.context) matchesDeclaration(ctx, 'WebhookContext');
  for (const info of seen.invalid) matchesDeclaration(info, 'InvalidDelivery');
});
