// Ring 3: the receiver kit hashes bodies over NATIVE_HMAC_FROM bytes with node:crypto (the core
// checks the headers and compares, receiverReceiveMacs). Every answer must be the one the
// wasm-only path gives (a receiver built without a native HMAC, as in browsers), delivery by
// delivery: valid, tampered, wrong or rotated secrets, stale and future timestamps, malformed
// headers, replays, and bodies on both sides of the threshold.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pkg, require, signatureByHand } from './helpers.mjs';

const raw = require('../../pkg/dist/web/poscheck.js'); // the instance pkg initialized
const facade = require('../../pkg/dist/api.cjs');
const { createReceiverApi, NATIVE_HMAC_FROM } = require('../../pkg/dist/receiver.cjs');
const wasmOnly = createReceiverApi(raw, facade);

const SECRET = 'whsec_native_path';
const NOW = 1_786_492_800;

function event(size) {
  const e = { orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1001', event: 'delivered', occurredAt: '2026-08-12T00:00:00Z', note: '' };
  e.note = 'x'.repeat(Math.max(0, size - Buffer.byteLength(JSON.stringify(e))));
  return Buffer.from(JSON.stringify(e));
}

function deliveries() {
  const out = [];
  for (const size of [NATIVE_HMAC_FROM, NATIVE_HMAC_FROM + 1, 65536, 512 * 1024]) {
    const body = event(size);
    const h = (over = {}) => ({ 'x-service-timestamp': String(NOW), 'x-service-signature-256': signatureByHand(SECRET, NOW, body), 'x-service-delivery-id': `d-${size}`, ...over });
    out.push(
      [`valid ${size}`, body, h()],
      [`replay ${size}`, body, h()],
      [`tampered ${size}`, Buffer.concat([body.subarray(0, -2), Buffer.from(' }')]), h({ 'x-service-delivery-id': `t-${size}` })],
      [`wrong secret ${size}`, body, h({ 'x-service-signature-256': signatureByHand('another', NOW, body), 'x-service-delivery-id': `w-${size}` })],
      [`stale ${size}`, body, h({ 'x-service-timestamp': String(NOW - 301), 'x-service-signature-256': signatureByHand(SECRET, NOW - 301, body), 'x-service-delivery-id': `s-${size}` })],
      [`future ${size}`, body, h({ 'x-service-timestamp': String(NOW + 301), 'x-service-signature-256': signatureByHand(SECRET, NOW + 301, body), 'x-service-delivery-id': `f-${size}` })],
      [`no signature ${size}`, body, { 'x-service-timestamp': String(NOW), 'x-service-delivery-id': `n-${size}` }],
      [`malformed ${size}`, body, h({ 'x-service-signature-256': 'sha256=zz', 'x-service-delivery-id': `m-${size}` })],
      [`two timestamps ${size}`, body, { ...h({ 'x-service-delivery-id': `2-${size}` }), 'X-Service-Timestamp': String(NOW + 1) }],
      [`line feed in a service header ${size}`, body, h({ 'x-service-note': 'a\nx-service-timestamp\n1', 'x-service-delivery-id': `l-${size}` })],
    );
  }
  return out;
}

async function answers(api, secret) {
  const calls = [];
  const receiver = api.createReceiver({
    secret,
    now: () => NOW,
    onOrderCreated: () => 'POS-1',
    onOrderUpdate: (ctx) => { calls.push([ctx.delivery.id, ctx.delivery.secretIndex, ctx.payload.event]); },
    onMenuChangeCompleted: () => {},
  });
  const out = [];
  for (const [name, body, headers] of deliveries()) {
    const a = await receiver.handle({ method: 'PUT', url: '/v1/order/STORE-1/R-1001/events', headers, body });
    out.push([name, a.status, a.code, a.body, a.replayed]);
  }
  return { out, calls };
}

test('bodies over NATIVE_HMAC_FROM get the answers of the wasm-only path, for one secret and a rotation', async () => {
  assert.equal(typeof raw.receiverReceiveMacs, 'function');
  for (const secret of [SECRET, ['old-secret', SECRET]]) {
    const native = await answers(pkg, secret);
    const wasm = await answers(wasmOnly, secret);
    assert.deepEqual(native, wasm);
    const byName = Object.fromEntries(native.out.map(([name, status, code]) => [name, [status, code]]));
    assert.equal(byName['valid 65536'][0], 200);
    assert.equal(byName['tampered 65536'][1], 'SIGNATURE_MISMATCH');
    assert.equal(byName['wrong secret 524288'][1], 'SIGNATURE_MISMATCH');
    assert.equal(byName['stale 65536'][1], 'TIMESTAMP_TOO_OLD');
    assert.equal(byName['no signature 4097'][1], 'MISSING_SIGNATURE');
    assert.equal(native.calls.length, 8, 'one call per valid delivery (valid, line feed in a header), none for a replay');
    assert.ok(native.calls.every(([, index]) => index === (Array.isArray(secret) ? 1 : 0)));
  }
});
