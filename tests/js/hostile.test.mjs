// Ring 3, hostile input (issue 8): every case that used to trap the module, run through the
// package as users load it (one module instance for the whole file). After each case a normal
// verifyWebhook with a vector made by Python's hmac must still pass: a trap would have disabled the
// instance ("RuntimeError: memory access out of bounds" on every later call).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson, pkg, signatureByHand } from './helpers.mjs';

const vectors = fixtureJson('signature', 'vectors.json');
const valid = vectors.verify.find((v) => v.expect === 'valid');

/** The first valid vector verifies: the module is alive. */
function stillWorks() {
  const body = Buffer.from(valid.bodyBase64, 'base64');
  const result = pkg.verifyWebhook({ body, headers: valid.headers, secret: valid.secrets, now: valid.now ?? vectors.now });
  assert.equal(typeof result.secretIndex, 'number');
}

/** `fn` throws a PoscheckError with `code` (an argument error), or returns: never a trap. */
function refusedOrAnswered(fn, code = 'INVALID_ARGUMENT') {
  try {
    return fn();
  } catch (err) {
    assert.ok(err instanceof pkg.PoscheckError, `expected a PoscheckError, got ${err && err.name}: ${err && err.message}`);
    assert.equal(err.code, code, err.message);
    return err;
  } finally {
    stillWorks();
  }
}

const order = fixtureJson('order', 'pending.json');
const now = 1_786_492_800;

function nested(depth) {
  let v = { status: 'Pending' };
  for (let i = 0; i < depth; i++) v = { order: v };
  return v;
}

test('the vector used as a liveness check verifies', () => stillWorks());

test('deep and cyclic JS objects are refused on the JS side', () => {
  const cyclic = { ...order };
  cyclic.self = cyclic;
  for (const bad of [nested(2_300), nested(100_000), cyclic]) {
    for (const call of [
      () => pkg.predictAction(bad, 'accept', now),
      () => pkg.applyEvent(bad, { event: 'delivered' }),
      () => pkg.applyEvent(order, bad),
      () => pkg.applyTrigger(bad, 'refund_or_incident', now),
      () => pkg.nextActions(bad, now),
      () => pkg.orderHistoryPath(bad),
      () => pkg.validateRequest({ method: 'PUT', path: '/api/v1/menu', body: bad }),
    ]) {
      const out = refusedOrAnswered(call);
      // A deep (but acyclic) value that JSON.stringify accepts reaches the core as text and gets
      // a clear error there (serde_json's nesting bound), never a trap.
      if (!(out instanceof Error)) assert.ok(out !== undefined);
    }
  }
});

test('throwing getters and toJSON never unwind through wasm frames', () => {
  const hostile = { status: 'Pending', get orderKey() { throw new Error('boom'); } };
  const toJson = { toJSON() { throw new Error('boom'); } };
  // ~1,040 of these used to exhaust the wasm stack; 3,000 must leave it intact.
  for (let i = 0; i < 3_000; i++) {
    assert.throws(() => pkg.predictAction(hostile, 'accept', now), (e) => e.code === 'INVALID_ARGUMENT');
  }
  assert.throws(() => pkg.nextActions(toJson, now), (e) => e.code === 'INVALID_ARGUMENT');
  const headers = { get 'x-service-timestamp'() { throw new Error('boom'); } };
  assert.throws(() => pkg.verifyWebhook({ body: '{}', headers, secret: 's', now }), /boom/);
  stillWorks();
});

test('option values are validated and clamped', () => {
  const menu = '[' .repeat(5_000) + ']'.repeat(5_000);
  for (const maxDepth of [4_700, 1e9, 2 ** 32 + 5]) {
    const r = refusedOrAnswered(() => pkg.lintMenu(menu, { maxDepth }));
    assert.equal(r.diagnostics[0].ruleId, 'json/too-deep');
    const p = refusedOrAnswered(() => pkg.validatePayload(menu, { maxDepth }));
    assert.equal(p.diagnostics[0].ruleId, 'json/too-deep');
    const o = refusedOrAnswered(() => pkg.checkOrder(menu, { maxDepth }));
    assert.equal(o.diagnostics[0].ruleId, 'json/too-deep');
  }
  for (const maxDepth of [-1, 0, 1.5, NaN, '64', {}]) {
    const e = refusedOrAnswered(() => pkg.lintMenu('{}', { maxDepth }));
    assert.match(e.message, /maxDepth must be an integer/);
  }
  refusedOrAnswered(() => pkg.validatePayload('{}', { maxBytes: -1 }));
  refusedOrAnswered(() => pkg.checkOrder('{}', { maxDiagnostics: 0 }));
  refusedOrAnswered(() => pkg.validatePayload('{}', { kind: 42 }));
  refusedOrAnswered(() => pkg.validatePayload('{}', { kind: { length: 3, charCodeAt: () => -1 } }));
  refusedOrAnswered(() => pkg.validatePayload('{}', { path: 7 }));
  refusedOrAnswered(() => pkg.lintMenu('{}', 'strict'));
  refusedOrAnswered(() => pkg.predictAction(order, { toString: () => 'accept' }, now));
  refusedOrAnswered(() => pkg.orderDiagram([{}]));
});

test('now and toleranceSeconds: null means the default, strings and milliseconds are refused', () => {
  const body = Buffer.from(valid.bodyBase64, 'base64');
  const args = { body, headers: valid.headers, secret: valid.secrets, now: valid.now ?? vectors.now };
  // null tolerance is the default window (300 s), like null now is the clock; not a 0 s window.
  const ts = Number(valid.headers['X-Service-Timestamp']);
  assert.equal(pkg.verifyWebhook({ ...args, now: ts + 200, toleranceSeconds: null }).timestamp, ts);
  for (const toleranceSeconds of ['300', -1, NaN, Infinity]) {
    const e = refusedOrAnswered(() => pkg.verifyWebhook({ ...args, toleranceSeconds }));
    assert.ok(e instanceof Error && !(e instanceof pkg.WebhookVerificationError), 'an argument error is not a verification failure');
  }
  const e = refusedOrAnswered(() => pkg.verifyWebhook({ ...args, now: Date.now() }));
  assert.match(e.message, /milliseconds/);
  refusedOrAnswered(() => pkg.verifyWebhook({ ...args, now: '1786492800' }));
});

test('numbers past 2^53 come back as numbers, not INTERNAL', () => {
  const d = refusedOrAnswered(() =>
    pkg.diagnoseWebhook({ body: '{}', headers: { 'X-Service-Timestamp': '9100000000000000', 'X-Service-Signature-256': 'sha256=00' }, secret: 's', now }));
  assert.equal(d.valid, false);
  assert.ok(d.skewSeconds > 9e15);
  const problem = { type: 'https://problems.example/rate-limit', title: 't', status: 429, detail: 'd', traceId: 't', meta: null };
  const c = refusedOrAnswered(() => pkg.classifyProblem({ status: 429, headers: { 'Retry-After': '99999999999999999999' }, body: problem, now }));
  assert.ok(c.retryAfterSeconds > 1e19);
});

test('quadratic shapes are linear and every checker has a diagnostics budget', () => {
  // Duplicate keys under a long key path (used to take 40 s, then run out of memory).
  const dup = '{"' + 'k'.repeat(100_000) + '":{' + Array(10_000).fill('"a":1').join(',') + '}}';
  for (const r of [pkg.lintMenu(dup), pkg.validatePayload(dup), pkg.checkOrder(dup)]) {
    assert.ok(r.diagnostics.length <= 10_100);
    assert.ok(r.diagnostics.some((d) => d.ruleId.endsWith('/too-many-diagnostics')), 'says what it left out');
  }
  stillWorks();
  // Many unknown fields: a budget in validatePayload, checkOrder and inspectInput too.
  const fields = Array.from({ length: 200_000 }, (_, i) => `"u${i}":0`).join(',');
  const event = `{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z",${fields}}`;
  const v = pkg.validatePayload(event, { maxDiagnostics: 500 });
  assert.equal(v.diagnostics.length, 501);
  assert.equal(v.diagnostics.filter((d) => d.ruleId === 'payload/too-many-diagnostics').length, 1);
  assert.ok(pkg.checkOrder(event).diagnostics.length <= 10_001);
  assert.ok(pkg.inspectInput(event).report.diagnostics.length <= 10_001);
  // A huge value is quoted by a bounded prefix.
  const long = `{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"${'x'.repeat(5_000_000)}","occurredAt":"2026-08-12T00:00:00Z"}`;
  for (const d of pkg.validatePayload(long).diagnostics) assert.ok(d.message.length <= 1024, `${d.ruleId}: ${d.message.length}`);
  // diagnoseWebhook on a deeply nested body (used to take 24 s and 2.6 GB).
  const nestedBody = '['.repeat(100) + Array(400_000).fill('1').join(',') + ']'.repeat(100);
  const diag = pkg.diagnoseWebhook({ body: nestedBody, headers: { 'X-Service-Timestamp': String(now), 'X-Service-Signature-256': `sha256=${'0'.repeat(64)}` }, secret: 's', now });
  assert.equal(diag.code, 'SIGNATURE_MISMATCH');
  // More secrets than a rotation needs are refused before any MAC.
  assert.throws(() => pkg.verifyWebhook({ body: nestedBody, headers: valid.headers, secret: Array(1000).fill('s'), now }), (e) => e.code === 'INVALID_SECRET');
  stillWorks();
});

test("verifyWebhook's header fast path: many headers, line feeds, a long timestamp, errors", () => {
  const body = Buffer.from(valid.bodyBase64, 'base64');
  const input = (headers) => ({ body, headers, secret: valid.secrets, now: valid.now ?? vectors.now });
  // 200,000 extra service headers cross as one string and are looked up in linear time.
  const many = { ...valid.headers };
  for (let i = 0; i < 200_000; i++) many[`X-Service-Extra-${i}`] = 'v';
  assert.equal(pkg.verifyWebhook(input(many)).secretIndex, valid.secretIndex);
  stillWorks();
  // A line feed inside a name or value must not shift the pairs: a second, different timestamp
  // hidden in another header's value, if read as a header, would make the timestamp conflicting.
  const forged = { ...valid.headers, 'X-Service-Note': 'a\nx-service-timestamp\n1' };
  assert.equal(pkg.verifyWebhook(input(forged)).secretIndex, valid.secretIndex);
  assert.throws(() => pkg.verifyWebhook(input({ ...valid.headers, 'x-service-timestamp': '1' })), (e) => e.code === 'MALFORMED_TIMESTAMP');
  // A 1 MB zero-padded timestamp: the header text does not fit the shared buffer, the general path
  // answers (a mismatch: this vector was signed over the plain timestamp).
  const ts = valid.headers['X-Service-Timestamp'];
  assert.throws(() => pkg.verifyWebhook(input({ ...valid.headers, 'X-Service-Timestamp': '0'.repeat(1 << 20) + ts })), (e) => e.code === 'SIGNATURE_MISMATCH');
  // Zero-padded timestamps, signed by node:crypto over the header as sent: a signed prefix that
  // fits where the core writes it, one that does not (the general path answers), and one whose
  // header text is longer than the shared buffer; small bodies (hashed in the core) and larger
  // ones (hashed by node:crypto) alike.
  for (const zeros of [0, 53, 54, 100, 5000]) {
    const padded = '0'.repeat(zeros) + ts;
    for (const size of [10, 2000]) {
      const signedBody = Buffer.alloc(size, 0x62);
      const headers = { 'x-service-timestamp': padded, 'x-service-signature-256': signatureByHand('k', padded, signedBody) };
      assert.equal(pkg.verifyWebhook({ body: signedBody, headers, secret: 'k', now: Number(ts) }).timestamp, Number(ts), `${zeros} zeros, ${size} bytes`);
      assert.throws(() => pkg.verifyWebhook({ body: signedBody, headers, secret: 'other', now: Number(ts) }), (e) => e.code === 'SIGNATURE_MISMATCH');
    }
  }
  stillWorks();
  // Every header error is a WebhookVerificationError with its code, never a trap.
  for (const [headers, code] of [
    [{}, 'MISSING_TIMESTAMP'],
    [{ 'X-Service-Timestamp': ts }, 'MISSING_SIGNATURE'],
    [{ 'X-Service-Timestamp': '\u0000', 'X-Service-Signature-256': 'x' }, 'MALFORMED_TIMESTAMP'],
    [{ 'X-Service-Timestamp': ts, 'X-Service-Signature-256': `sha256=${'é'.repeat(64)}` }, 'MALFORMED_SIGNATURE'],
  ]) {
    assert.throws(() => pkg.verifyWebhook(input(headers)), (e) => e instanceof pkg.WebhookVerificationError && e.code === code, code);
    stillWorks();
  }
});
