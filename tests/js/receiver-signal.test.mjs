// Ring 3: the AbortSignal the receiver kit hands each handler (ctx.signal). It is made on first use
// (most handlers never read it), so it must behave the same whenever it is read: aborted, with the
// timeout as its reason, once the handler overruns timeoutMs, and never aborted otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pkg, signatureByHand } from './helpers.mjs';

const SECRET = 'whsec_signal';
const NOW = 1_786_492_800;
const body = Buffer.from(JSON.stringify({ orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1', event: 'delivered', occurredAt: '2026-08-12T00:00:00Z' }));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let id = 0;
const deliver = (receiver, payload = body) =>
  receiver.handle({
    method: 'PUT',
    url: '/v1/order/STORE-1/R-1/events',
    headers: { 'x-service-timestamp': String(NOW), 'x-service-signature-256': signatureByHand(SECRET, NOW, payload), 'x-service-delivery-id': `sig-${++id}` },
    body: payload,
  });

test('ctx.signal: aborted with the timeout as reason when read before or after the handler overruns, untouched when it finishes', async () => {
  const seen = {};
  const errors = [];
  const receiver = pkg.createReceiver({
    secret: SECRET,
    now: () => NOW,
    timeoutMs: 50,
    onError: (err, info) => errors.push(info.code),
    onOrderUpdate: async (ctx) => {
      const mode = ['early', 'late', 'in time'][Object.keys(seen).length];
      if (mode === 'early') {
        seen.early = ctx.signal;
        await sleep(150);
      } else if (mode === 'late') {
        await sleep(150);
        seen.late = ctx.signal; // read only after the kit gave up on it
      } else {
        seen['in time'] = ctx.signal;
      }
    },
  });
  for (let i = 0; i < 2; i++) {
    const answer = await deliver(receiver);
    assert.equal(answer.code, 'HANDLER_TIMEOUT', JSON.stringify(answer));
  }
  await sleep(200); // both handlers have read their signal by now
  for (const which of ['early', 'late']) {
    const signal = seen[which];
    assert.ok(signal instanceof AbortSignal, which);
    assert.equal(signal.aborted, true, which);
    assert.match(String(signal.reason?.message), /did not finish within 50 ms/, which);
  }
  assert.equal((await deliver(receiver)).status, 200);
  assert.deepEqual(errors, ['HANDLER_TIMEOUT', 'HANDLER_TIMEOUT']);
  assert.ok(seen['in time'] instanceof AbortSignal);
  assert.equal(seen['in time'].aborted, false);
});

test('onInvalid gets a signal too', async () => {
  let signal;
  const receiver = pkg.createReceiver({
    secret: SECRET,
    now: () => NOW,
    onOrderUpdate: () => {},
    onInvalid: (ctx) => {
      signal = ctx.signal;
    },
  });
  const broken = Buffer.from(JSON.stringify({ orderKey: 'nope', remoteOrderId: 'R-1', event: 'delivered', occurredAt: '2026-08-12T00:00:00Z' }));
  assert.equal((await deliver(receiver, broken)).status, 200);
  assert.ok(signal instanceof AbortSignal);
  assert.equal(signal.aborted, false);
});
