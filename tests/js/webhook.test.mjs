// Ring 3: the npm package's webhook API, as users require() and import it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { countingCalls, fixtureJson, pkg, require, signatureByHand } from './helpers.mjs';
import * as esm from '../../pkg/dist/node.mjs';

const vectors = fixtureJson('signature', 'vectors.json');

test('vectors from Python hmac: verifyWebhook agrees on every case (Buffer bodies)', () => {
  assert.ok(vectors.verify.length >= 25);
  for (const c of vectors.verify) {
    const input = { body: Buffer.from(c.bodyBase64, 'base64'), headers: c.headers, secret: c.secrets, now: c.now, toleranceSeconds: c.toleranceSeconds };
    if (c.expect === 'valid') {
      const ok = pkg.verifyWebhook(input);
      assert.equal(ok.secretIndex, c.secretIndex, c.name);
      assert.equal(ok.timestamp, Number(c.headers['X-Service-Timestamp'] ?? c.headers['x-service-timestamp']), c.name);
    } else {
      assert.throws(() => pkg.verifyWebhook(input), (e) => {
        assert.ok(e instanceof pkg.WebhookVerificationError, c.name);
        assert.ok(e instanceof Error);
        assert.equal(e.name, 'WebhookVerificationError');
        assert.equal(e.code, c.expect, c.name);
        assert.equal(e.httpStatus, 401);
        for (const s of c.secrets) if (s.length > 3) assert.ok(!e.message.includes(s), `${c.name}: the message leaks the secret`);
        return true;
      });
    }
    const d = pkg.diagnoseWebhook(input);
    assert.equal(d.valid, c.expect === 'valid', c.name);
    assert.equal(d.code, c.expect === 'valid' ? null : c.expect, c.name);
  }
});

test('signWebhook matches Python hmac and node:crypto', () => {
  for (const s of vectors.sign) {
    const body = Buffer.from(s.bodyBase64, 'base64');
    const h = pkg.signWebhook({ body, secret: s.secret, timestamp: s.timestamp });
    assert.equal(h['X-Service-Signature-256'], s.signature);
    const mine = 'sha256=' + createHmac('sha256', Buffer.from(s.secret, 'utf8')).update(`${s.timestamp}.`).update(body).digest('hex');
    assert.equal(h['X-Service-Signature-256'], mine);
  }
  const h = pkg.signWebhook({ body: '{}', secret: 's', timestamp: 1786492800, deliveryId: 'd-1', eventType: 'order.created' });
  assert.deepEqual(Object.keys(h), ['X-Service-Timestamp', 'X-Service-Signature-256', 'X-Service-Delivery-Id', 'X-Service-Event-Type']);
});

test('body as string, Uint8Array, Buffer, ArrayBuffer and DataView all verify the same bytes', () => {
  const text = '{"note":"crème brûlée 🍮"}';
  const secret = 'sekret';
  const now = 1786492800;
  const headers = pkg.signWebhook({ body: text, secret, timestamp: now });
  const bytes = new TextEncoder().encode(text);
  for (const body of [text, bytes, Buffer.from(text), bytes.buffer.slice(0), new DataView(bytes.buffer)]) {
    assert.equal(pkg.verifyWebhook({ body, headers, secret, now }).secretIndex, 0);
  }
});

test('a parsed object instead of the raw body is PAYLOAD_NOT_RAW, with the fix in the message', () => {
  const headers = pkg.signWebhook({ body: '{"a":1}', secret: 's', timestamp: 1786492800 });
  assert.throws(() => pkg.verifyWebhook({ body: { a: 1 }, headers, secret: 's', now: 1786492800 }), (e) => {
    assert.equal(e.code, 'PAYLOAD_NOT_RAW');
    assert.equal(e.httpStatus, 401);
    assert.match(e.message, /express\.raw/);
    assert.match(e.message, /Buffer\.concat/);
    return true;
  });
});

test('headers: Node req.headers with array values, Fetch Headers, pairs; names case-insensitive', () => {
  const now = 1786492800;
  const h = pkg.signWebhook({ body: 'x', secret: 's', timestamp: now, deliveryId: '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10' });
  const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  const withArray = { ...lower, 'x-service-signature-256': [lower['x-service-signature-256']] };
  for (const headers of [lower, withArray, new Headers(h), Object.entries(h), new Map(Object.entries(h))]) {
    const ok = pkg.verifyWebhook({ body: 'x', headers, secret: 's', now });
    assert.equal(ok.deliveryId, '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10');
  }
  const conflicting = { ...lower, 'x-service-signature-256': [lower['x-service-signature-256'], 'sha256=' + '0'.repeat(64)] };
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: conflicting, secret: 's', now }), { code: 'MALFORMED_SIGNATURE' });
});

test('now defaults to the clock; tolerance 0 means exact', () => {
  const ts = Math.floor(Date.now() / 1000);
  const headers = pkg.signWebhook({ body: 'x', secret: 's', timestamp: ts });
  assert.equal(pkg.verifyWebhook({ body: 'x', headers, secret: 's' }).timestamp, ts);
  const old = pkg.signWebhook({ body: 'x', secret: 's', timestamp: 1000 });
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: old, secret: 's' }), { code: 'TIMESTAMP_TOO_OLD' });
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: old, secret: 's', now: 1001, toleranceSeconds: 0 }), { code: 'TIMESTAMP_TOO_OLD' });
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: old, secret: 's', now: -5 }), { code: 'INVALID_ARGUMENT' });
});

test('diagnoseWebhook checks the headers beyond the signature (issue 9, class 6)', () => {
  // Authentication 3: "X-Service-Delivery-Id (UUID, see Events), X-Service-Event-Type (only
  // order.created, on the creation webhook)". The verdict (valid) stays verify's.
  const now = 1786492800;
  const update = '{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T14:30:00Z"}';
  const signed = pkg.signWebhook({ body: update, secret: 's', timestamp: now });
  const codes = (headers) => {
    const d = pkg.diagnoseWebhook({ body: update, headers, secret: 's', now });
    assert.equal(d.valid, true);
    return d.findings.map((f) => f.code);
  };
  assert.deepEqual(codes({ ...signed, 'X-Service-Delivery-Id': '3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f' }), ['VALID']);
  assert.deepEqual(codes({ ...signed, 'X-Service-Delivery-Id': 'delivery-42' }), ['VALID', 'DELIVERY_ID_NOT_UUID']);
  assert.deepEqual(
    codes({ ...signed, 'X-Service-Delivery-Id': '3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f', 'X-Service-Event-Type': 'order.updated' }),
    ['VALID', 'EVENT_TYPE_UNKNOWN'],
  );
  assert.deepEqual(
    codes({ ...signed, 'X-Service-Delivery-Id': '3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f', 'X-Service-Event-Type': 'order.created' }),
    ['VALID', 'EVENT_TYPE_NOT_ON_CREATION'],
  );
  for (const c of ['DELIVERY_ID_MISSING', 'DELIVERY_ID_NOT_UUID', 'EVENT_TYPE_UNKNOWN', 'EVENT_TYPE_NOT_ON_CREATION', 'EVENT_TYPE_MISSING']) {
    assert.ok(pkg.webhookFindingCodes().includes(c), c);
  }
  // "Always 200": an update body without event (the pre-2026-08-12 shape) is a verdict, not a throw.
  const order = { orderKey: 'ord_0123456789abcdEF', status: 'Preparing', order: null };
  const v = pkg.applyEvent(order, { orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1', status: 'cancelled', occurredAt: '2026-08-12T14:30:00Z' });
  assert.equal(v.valid, false);
  assert.equal(v.receiverHttpStatus, 200);
  assert.match(v.problem, /2026-08-12/);
});

test('diagnoseWebhook names the known mistakes', () => {
  const now = 1786492800;
  const compact = '{"orderKey":"ord_0123456789abcdEF","event":"delivered"}';
  const headers = pkg.signWebhook({ body: compact, secret: 's', timestamp: now });
  const code = (body, secret = 's', h = headers) => pkg.diagnoseWebhook({ body, headers: h, secret, now }).findings[0].code;
  assert.equal(code(JSON.stringify(JSON.parse(compact), null, 2)), 'BODY_RESERIALIZED');
  assert.equal(code(compact + '\n'), 'TRAILING_NEWLINE_ADDED');
  assert.equal(code('\uFEFF' + compact), 'BOM_ADDED');
  assert.equal(code(compact, 's\n'), 'SECRET_WHITESPACE');
  const ms = pkg.signWebhook({ body: compact, secret: 's', timestamp: now * 1000 });
  assert.equal(code(compact, 's', ms), 'TIMESTAMP_IN_MILLISECONDS');
  const stale = pkg.signWebhook({ body: compact, secret: 's', timestamp: now - 3600 });
  const d = pkg.diagnoseWebhook({ body: compact, headers: stale, secret: 's', now });
  assert.equal(d.findings[0].code, 'CLOCK_SKEW');
  assert.equal(d.skewSeconds, -3600);
  const bodyOnly = { ...headers, 'X-Service-Signature-256': 'sha256=' + createHmac('sha256', 's').update(compact).digest('hex') };
  assert.equal(code(compact, 's', bodyOnly), 'SIGNED_BODY_ONLY');
  const crlf = 'a\nb\n';
  const hc = pkg.signWebhook({ body: crlf, secret: 's', timestamp: now });
  assert.equal(code('a\r\nb\r\n', 's', hc), 'LINE_ENDINGS_CHANGED');
});

test('ESM import exposes the same API; init() resolves at once in Node', async () => {
  await esm.default();
  assert.equal(typeof esm.verifyWebhook, 'function');
  assert.equal(esm.WebhookVerificationError, pkg.WebhookVerificationError);
  const names = Object.keys(pkg).filter((k) => k !== 'default').sort();
  for (const n of names) assert.ok(n in esm, `ESM lacks ${n}`);
  assert.deepEqual(require('../../pkg').webhookErrorCodes().sort(), [
    'INVALID_SECRET', 'MALFORMED_SIGNATURE', 'MALFORMED_TIMESTAMP', 'MISSING_SIGNATURE', 'MISSING_TIMESTAMP',
    'PAYLOAD_NOT_RAW', 'SIGNATURE_MISMATCH', 'TIMESTAMP_IN_FUTURE', 'TIMESTAMP_TOO_OLD',
  ]);
});

test('parseHttpMessage keeps the body bytes untouched (CRLF included)', () => {
  const m = pkg.parseHttpMessage('POST /v1/order/S1 HTTP/1.1\r\nX-Service-Timestamp: 1\r\n\r\n{"a":\r\n1}');
  assert.equal(m.method, 'POST');
  assert.equal(m.path, '/v1/order/S1');
  assert.deepEqual(m.headers, [['X-Service-Timestamp', '1']]);
  assert.ok(m.body instanceof Uint8Array);
  assert.equal(Buffer.from(m.body).toString(), '{"a":\r\n1}');
  assert.throws(() => pkg.parseHttpMessage('POST /x HTTP/1.1\nno header here\n\n'), { code: 'MALFORMED_HEADER' });
});

test('parseHttpMessage reads curl -v, HTTP/2 pseudo-headers and a chunked body, and says how', () => {
  const curl = pkg.parseHttpMessage('* Connected\n> POST /v1/order/S1 HTTP/1.1\n> X-Service-Timestamp: 1\n>\n{}\n< HTTP/1.1 200 OK\n');
  assert.equal(curl.method, 'POST');
  assert.match(curl.notes[0], /curl -v/);
  const h2 = pkg.parseHttpMessage(':method: PUT\n:path: /v1/order/S1\n\n{}');
  assert.deepEqual([h2.method, h2.path], ['PUT', '/v1/order/S1']);
  const chunked = pkg.parseHttpMessage('POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
  assert.equal(Buffer.from(chunked.body).toString(), '{}');
  assert.match(chunked.notes.join(' '), /chunked/);
  assert.deepEqual(pkg.parseHttpMessage('POST /x HTTP/1.1\nA: 1\n\n{}').notes, []);
});

test('hostile inputs give errors, never a trap', () => {
  assert.throws(() => pkg.verifyWebhook(null), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => pkg.verifyWebhook({ headers: {}, secret: 's' }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: 42, secret: 's' }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: {}, secret: 7 }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => pkg.verifyWebhook({ body: 'x', headers: {}, secret: 's', now: 1 }), { code: 'MISSING_TIMESTAMP' });
  const huge = { 'X-Service-Timestamp': '9'.repeat(10000), 'X-Service-Signature-256': 'sha256=' + 'z'.repeat(100000) };
  assert.throws(() => pkg.verifyWebhook({ body: new Uint8Array(3), headers: huge, secret: 's', now: 1 }), { code: 'MALFORMED_TIMESTAMP' });
  // The module still works after every error above.
  const h = pkg.signWebhook({ body: 'x', secret: 's', timestamp: 5 });
  assert.equal(pkg.verifyWebhook({ body: 'x', headers: h, secret: 's', now: 5 }).secretIndex, 0);
});

test('timingSafeEqual baseline agrees (independent check of one vector)', () => {
  const c = vectors.verify[0];
  const body = Buffer.from(c.bodyBase64, 'base64');
  const expected = createHmac('sha256', c.secrets[0]).update(`${c.headers['X-Service-Timestamp']}.`).update(body).digest();
  const got = Buffer.from(c.headers['X-Service-Signature-256'].slice(7), 'hex');
  assert.ok(timingSafeEqual(expected, got));
});

test('diagnoseWebhook answers a parsed body with a diagnosis instead of throwing', () => {
  const d = pkg.diagnoseWebhook({ body: { orderKey: 'ord_0123456789abcdEF' }, headers: {}, secret: 's' });
  assert.equal(d.valid, false);
  assert.equal(d.code, 'PAYLOAD_NOT_RAW');
  assert.deepEqual(d.findings.map((f) => f.code), ['PAYLOAD_NOT_RAW']);
  assert.match(d.findings[0].message, /raw body/);
  assert.ok(pkg.webhookFindingCodes().includes('PAYLOAD_NOT_RAW'));
  // verifyWebhook still refuses it.
  assert.throws(() => pkg.verifyWebhook({ body: { a: 1 }, headers: {}, secret: 's' }), (e) => e.code === 'PAYLOAD_NOT_RAW');
});

// Signed by node:crypto, not by the code under test.
const signByHand = (secret, ts, body) => ({ 'x-service-timestamp': String(ts), 'x-service-signature-256': signatureByHand(secret, ts, body) });

test('verifyWebhook keeps HMAC keys per secret: many secrets in turn, rotations, lists never confused with one secret', () => {
  const now = 1_786_492_800;
  const body = Buffer.from('{"orderKey":"ord_1","event":"delivered"}');
  // More secrets than the module keeps key sets for (16): each still verifies its own signature
  // and refuses another's, in several rounds (keys replaced and made again).
  const secrets = Array.from({ length: 40 }, (_, i) => `whsec_${i}_${'k'.repeat(i * 3)}`);
  for (let round = 0; round < 3; round++) {
    for (const [i, secret] of secrets.entries()) {
      const headers = signByHand(secret, now, body);
      assert.equal(pkg.verifyWebhook({ body, headers, secret, now }).secretIndex, 0);
      const other = secrets[(i + 1) % secrets.length];
      assert.throws(() => pkg.verifyWebhook({ body, headers, secret: other, now }), { code: 'SIGNATURE_MISMATCH' });
    }
  }
  // Rotation: the index of the secret that matched, whichever list came before.
  const headers = signByHand('new', now, body);
  assert.equal(pkg.verifyWebhook({ body, headers, secret: ['old', 'new'], now }).secretIndex, 1);
  assert.equal(pkg.verifyWebhook({ body, headers, secret: ['new'], now }).secretIndex, 0);
  assert.equal(pkg.verifyWebhook({ body, headers, secret: ['new', 'old'], now }).secretIndex, 0);
  assert.throws(() => pkg.verifyWebhook({ body, headers, secret: ['old'], now }), { code: 'SIGNATURE_MISMATCH' });
  // A single secret spelled like a list of secrets is that one secret, not the list.
  assert.throws(() => pkg.verifyWebhook({ body, headers, secret: JSON.stringify(['old', 'new']), now }), { code: 'SIGNATURE_MISMATCH' });
  assert.equal(pkg.verifyWebhook({ body, headers, secret: ['old', 'new'], now }).secretIndex, 1);
  // No secret, an empty one, or more than 16: the core's errors, as before.
  assert.throws(() => pkg.verifyWebhook({ body, headers, secret: [], now }), { code: 'INVALID_SECRET' });
  assert.throws(() => pkg.verifyWebhook({ body, headers, secret: ['new', ''], now }), { code: 'INVALID_SECRET' });
  assert.throws(() => pkg.verifyWebhook({ body, headers, secret: Array(17).fill('new'), now }), { code: 'INVALID_SECRET' });
});

test('verifyWebhook answers the same on both sides of the size where Node switches to node:crypto', () => {
  const now = 1_786_492_800;
  for (const size of [0, 1, 63, 64, 1023, 1024, 1025, 4096, 70_000]) {
    const body = Buffer.alloc(size, 0x61);
    const headers = {
      ...signByHand('s3cret', now - 10, body),
      'x-service-delivery-id': `d-${size}`,
      'x-service-event-type': 'order.created',
      'content-type': 'application/json',
    };
    assert.deepEqual(pkg.verifyWebhook({ body, headers, secret: ['other', 's3cret'], now }), {
      timestamp: now - 10,
      deliveryId: `d-${size}`,
      eventType: 'order.created',
      secretIndex: 1,
    }, `${size} bytes`);
    const tampered = Buffer.from(body);
    if (size > 0) tampered[size - 1] ^= 1;
    if (size > 0) assert.throws(() => pkg.verifyWebhook({ body: tampered, headers, secret: 's3cret', now }), { code: 'SIGNATURE_MISMATCH' }, `${size}`);
    assert.throws(() => pkg.verifyWebhook({ body, headers, secret: 's3cret', now: now + 400 }), { code: 'TIMESTAMP_TOO_OLD' }, `${size}`);
    // Repeated delivery ids that disagree are not reported as one; a line feed in another service
    // header sends the headers the general way, with the same answer.
    const repeated = { ...headers, 'x-service-delivery-id': ['a', 'b'] };
    assert.equal(pkg.verifyWebhook({ body, headers: repeated, secret: 's3cret', now }).deliveryId, null, `${size}`);
    const lineFeed = { ...headers, 'x-service-note': 'one\ntwo' };
    assert.equal(pkg.verifyWebhook({ body, headers: lineFeed, secret: 's3cret', now }).deliveryId, `d-${size}`, `${size}`);
  }
});

test("verifyWebhook after the module's memory grew: the shared buffer is found again (Node and browser builds)", async () => {
  const web = await import('../../pkg/dist/web.js');
  await web.default();
  const now = 1_786_492_800;
  const check = (api, body, what) => {
    const headers = { ...signByHand('grow', now, body), 'x-service-delivery-id': `d-${body.length}` };
    assert.equal(api.verifyWebhook({ body, headers, secret: 'grow', now }).deliveryId, `d-${body.length}`, what);
  };
  const small = Buffer.from('{"a":1}');
  const mid = Buffer.alloc(3000, 0x61);
  // Both builds load the same glue module, so they share one instance: each step below must grow
  // the memory past what the one before left. Growing it detaches every view of it: in the
  // browser build the 48 MB body's own copy does, inside the call whose results are read after
  // it; in the Node build a 96 MB input between two verifications.
  for (const [name, api] of [['web', web], ['node', pkg]]) {
    check(api, small, `${name}: before`);
    check(api, mid, `${name}: before`);
    if (name === 'web') check(api, Buffer.alloc(48 << 20, 0x62), `${name}: the body that grows the memory`);
    else api.lintMenu(Buffer.alloc(96 << 20, 0x20));
    check(api, small, `${name}: after`);
    check(api, mid, `${name}: after`);
  }
});

test('two facades over one module (the Node and browser builds share it): neither verifies with the keys the other made', async () => {
  const web = await import('../../pkg/dist/web.js');
  await web.default();
  const now = 1_786_492_800;
  // Each facade hands out key sets 0, 1, 2… of the one module in turn, so the same set numbers
  // come up for different secrets, one after the other: every delivery must still verify with its
  // own secret, and with no other.
  const apis = [['node', pkg], ['web', web]];
  for (let i = 0; i < 40; i++) {
    for (const body of [Buffer.from('{"a":1}'), Buffer.alloc(3000, 0x61)]) {
      for (const [name, api] of [...apis, ...apis]) {
        const secret = `${name}-secret-${i}`;
        const headers = signByHand(secret, now, body);
        assert.equal(api.verifyWebhook({ body, headers, secret, now }).secretIndex, 0, `${name} ${i} ${body.length} B`);
      }
      const [name, api] = apis[i % 2];
      const headers = signByHand(`${name}-secret-${i}`, now, body);
      assert.throws(() => api.verifyWebhook({ body, headers, secret: `${apis[(i + 1) % 2][0]}-secret-${i}`, now }), { code: 'SIGNATURE_MISMATCH' });
    }
  }
});

test('a facade whose keys another facade replaced makes them again, and goes back to the keyed path', () => {
  const raw = require('../../pkg/dist/web/poscheck.js'); // the instance pkg initialized
  const { createApi } = require('../../pkg/dist/api.cjs');
  const now = 1_786_492_800;
  const body = Buffer.from('{"a":1}'); // small: verified in the core in one call (verifyIo)
  // A facade over the module whose calls are counted: which path each verification took.
  const { raw: counted, calls } = countingCalls(raw, ['setMacKeys', 'verifyIo', 'verifyWebhook']);
  const [mine, theirs] = [createApi(counted), createApi(raw)];
  const verify = (api, secret) => api.verifyWebhook({ body, headers: signByHand(secret, now, body), secret, now }).secretIndex;
  assert.equal(verify(mine, 'mine'), 0);
  assert.deepEqual(calls, { setMacKeys: 1, verifyIo: 1, verifyWebhook: 0 });
  // The other facade's first secret takes key set 0 too, and makes its keys again.
  assert.equal(verify(theirs, 'theirs'), 0);
  // The core says so: this delivery takes the general path, and the facade forgets its set...
  assert.equal(verify(mine, 'mine'), 0);
  assert.deepEqual(calls, { setMacKeys: 1, verifyIo: 2, verifyWebhook: 1 });
  // ...so that the next one makes the keys again and is verified in one call once more.
  assert.equal(verify(mine, 'mine'), 0);
  assert.deepEqual(calls, { setMacKeys: 2, verifyIo: 3, verifyWebhook: 1 });
});

test('verifyWebhook keeps the secrets a key set was made of, whatever the caller does to its array later', () => {
  const now = 1_786_492_800;
  const secrets = ['kept-secret-1'];
  const small = Buffer.from('{"a":1}');
  const large = Buffer.alloc(3000, 0x61);
  assert.equal(pkg.verifyWebhook({ body: small, headers: signByHand('kept-secret-1', now, small), secret: secrets, now }).secretIndex, 0);
  secrets.push('kept-secret-2');
  // The same single secret, through another array, for a body node:crypto hashes.
  assert.equal(pkg.verifyWebhook({ body: large, headers: signByHand('kept-secret-1', now, large), secret: ['kept-secret-1'], now }).secretIndex, 0);
  assert.equal(pkg.verifyWebhook({ body: large, headers: signByHand('kept-secret-2', now, large), secret: secrets, now }).secretIndex, 1);
});
