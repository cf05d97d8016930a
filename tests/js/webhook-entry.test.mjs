// Ring 3: `poscheck/webhook`, the webhook-only entry (a smaller module built without the checkers),
// as users require() and import it: the same answers as the toolkit on the Python hmac vectors and
// on deliveries, and nothing else exported.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fixture, fixtureJson, pkg, require } from './helpers.mjs';

const webhook = require('../../pkg/dist/webhook.cjs');
const vectors = fixtureJson('signature', 'vectors.json');

test('poscheck/webhook resolves through the package exports, for require and import', async () => {
  const { createRequire } = await import('node:module');
  const fromPkg = createRequire(new URL('../../pkg/package.json', import.meta.url));
  assert.equal(fromPkg.resolve('poscheck/webhook'), fromPkg.resolve('./dist/webhook.cjs'));
  const esm = await import('poscheck/webhook').catch(() => import('../../pkg/dist/webhook.mjs'));
  assert.equal(typeof esm.verifyWebhook, 'function');
  assert.equal(typeof esm.default, 'function');
  await esm.default();
});

test('it exports the webhook functions and the receiver kit only', () => {
  const names = Object.keys(webhook).filter((k) => k !== '__esModule').sort();
  assert.deepEqual(names, [
    'DEFAULT_TOLERANCE_SECONDS', 'PoscheckError', 'WebhookVerificationError', 'createMemoryStore', 'createReceiver', 'createRedisStore',
    'default', 'diagnoseWebhook', 'init', 'signWebhook', 'verifyWebhook', 'webhookErrorCodes', 'webhookFindingCodes',
  ]);
  for (const name of names) assert.ok(name in pkg, `${name} is the toolkit's too`);
  assert.deepEqual(webhook.webhookErrorCodes(), pkg.webhookErrorCodes());
  assert.deepEqual(webhook.webhookFindingCodes(), pkg.webhookFindingCodes());
});

test('the Python hmac vectors: the same verdicts, codes and diagnoses as the toolkit', () => {
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
    assert.deepEqual(webhook.diagnoseWebhook(input), pkg.diagnoseWebhook(input), c.name);
  }
  for (const s of vectors.sign) {
    const headers = webhook.signWebhook({ body: Buffer.from(s.bodyBase64, 'base64'), secret: s.secret, timestamp: s.timestamp });
    assert.equal(headers['X-Service-Signature-256'], s.signature);
  }
});

test('a receiver from poscheck/webhook answers deliveries as the toolkit one does', async () => {
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
  const [mine, theirs] = [make(webhook), make(pkg)];
  for (const [i, [url, body]] of deliveries.entries()) {
    const headers = pkg.signWebhook({ body, secret, timestamp: now, deliveryId: `d-${i}` });
    const request = () => ({ method: url.includes('/events') ? 'PUT' : 'POST', url, headers, body });
    const [a, b] = [await mine.receiver.handle(request()), await theirs.receiver.handle(request())];
    assert.deepEqual(a, b, url);
  }
  assert.deepEqual(mine.calls, theirs.calls);
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
