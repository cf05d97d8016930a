// Ring 3: the receiver's one-call path (receiverIo in src/wasm/, receiveIo in pkg/src/receiver.js)
// against the general path (receiverRoute + receiverReceive), on the same module: every request
// gets the same answer, the same handler calls with the same context, the same store records;
// and the one-call path is the one the common deliveries take. No timing here.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto, { randomUUID } from 'node:crypto';
import { NOW, SECRET, deliveryHeaders, fixture, require, signature } from './helpers.mjs';

// The module the package's receivers run on in Node (poscheck/webhook's), initialized.
require('../../pkg/dist/webhook.cjs');
const raw = require('../../pkg/dist/webhook-web/poscheck.js');
const facade = require('../../pkg/dist/api.cjs');
const { createReceiverApi } = require('../../pkg/dist/receiver.cjs');
const platform = { createHash: crypto.createHash, createHmac: crypto.createHmac, hash: crypto.hash };

/** A copy of the module's exports whose receiverIo answers are recorded (≥ 0: the one-call path). */
function counted() {
  const answers = [];
  const copy = { ...raw };
  copy.receiverIo = (...args) => {
    const a = raw.receiverIo(...args);
    answers.push(a);
    return a;
  };
  return { raw: copy, answers };
}
const withoutIo = () => {
  const copy = { ...raw };
  delete copy.receiverIo;
  return copy;
};

const created = fixture('payload', 'order-created.delivery.valid.json'); // storeRemoteId "store-1"
const update = fixture('payload', 'order-update-event.delivered.valid.json'); // 138 B: hashed in the wasm
const menu = fixture('payload', 'menu-change-completed.valid.json');
const changeKey = JSON.parse(menu).changeKey;
const OTHER = 'whsec_the_next_secret';

/** The requests: common deliveries, and every way one leaves the one-call path. */
function requests() {
  const id = randomUUID();
  const h = (body, o) => deliveryHeaders(body, o);
  const lower = (headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return [
    { name: 'creation', common: true, method: 'POST', url: '/v1/order/store-1', headers: h(created, { eventType: 'order.created' }), body: created },
    { name: 'creation, lower-case names', common: true, method: 'POST', url: '/v1/order/store-1', headers: lower(h(created)), body: created },
    { name: 'creation, signed with the second secret', common: true, method: 'POST', url: '/v1/order/store-1', headers: h(created, { secret: OTHER }), body: created },
    { name: 'creation, query', common: true, method: 'POST', url: '/v1/order/store-1?x=1', headers: h(created), body: created },
    { name: 'update', common: true, method: 'PUT', url: '/v1/order/S1/POS-100234/events', headers: h(update), body: update },
    { name: 'menu change', common: true, method: 'POST', url: `/v1/menu/change/${changeKey}`, headers: h(menu), body: menu },
    { name: 'a first delivery of an id', common: true, method: 'POST', url: '/v1/order/store-1', headers: h(created, { deliveryId: id }), body: created },
    { name: 'its retry: the answer replayed', common: true, method: 'POST', url: '/v1/order/store-1', headers: h(created, { deliveryId: id }), body: created },
    { name: 'another store in the path (a warning)', method: 'POST', url: '/v1/order/STORE-1', headers: h(created), body: created },
    { name: 'percent-encoded store', method: 'POST', url: '/v1/order/store%2D1', headers: h(created), body: created },
    { name: 'not ASCII in the path', method: 'POST', url: '/v1/order/st\u00f6re', headers: h(created), body: created },
    { name: 'no delivery id', method: 'POST', url: '/v1/order/store-1', headers: h(created, { deliveryId: null }), body: created },
    { name: 'blank delivery id', method: 'POST', url: '/v1/order/store-1', headers: h(created, { deliveryId: ' ' }), body: created },
    { name: 'two delivery ids', method: 'POST', url: '/v1/order/store-1', headers: { ...lower(h(created, { deliveryId: null })), 'x-service-delivery-id': ['a', 'b'] }, body: created },
    { name: 'bad signature', method: 'POST', url: '/v1/order/store-1', headers: h(created, { secret: 'nope' }), body: created },
    { name: 'stale', method: 'POST', url: '/v1/order/store-1', headers: h(created, { timestamp: NOW - 10_000 }), body: created },
    { name: 'timestamp with spaces', method: 'POST', url: '/v1/order/store-1', headers: { ...lower(h(created)), 'x-service-timestamp': ` ${NOW}`, 'x-service-signature-256': signature(SECRET, ` ${NOW}`, created) }, body: created },
    { name: 'tampered body', method: 'POST', url: '/v1/order/store-1', headers: h(created), body: Buffer.concat([created, Buffer.from(' ')]) },
    { name: 'invalid creation', method: 'POST', url: '/v1/order/store-1', headers: h(Buffer.from('[1]')), body: Buffer.from('[1]') },
    { name: 'unknown update event', method: 'PUT', url: '/v1/order/S1/R-1/events', headers: h(Buffer.from(update.toString().replace('delivered', 'teleported'))), body: Buffer.from(update.toString().replace('delivered', 'teleported')) },
    { name: 'wrong method', method: 'GET', url: '/v1/order/store-1', headers: h(created), body: created },
    { name: 'unknown path', method: 'POST', url: '/v2/x', headers: h(created), body: created },
  ];
}

/** Runs `list` through a receiver over `module`; each result with the context its handler got. */
async function run(module, list, returned = (n) => `POS-${n}`) {
  const api = createReceiverApi(module, facade, undefined, platform);
  const calls = [];
  const errors = [];
  const invalid = [];
  const record = (route) => (ctx) => {
    const { rawBody, headers, signal, ...rest } = ctx;
    calls.push({ route, ...rest, rawBody: Buffer.from(rawBody).toString('base64') });
    return route === 'orderCreated' ? returned(calls.length) : undefined;
  };
  const receiver = api.createReceiver({
    secret: [SECRET, OTHER],
    now: NOW,
    onOrderCreated: record('orderCreated'),
    onOrderUpdate: record('orderUpdate'),
    onMenuChangeCompleted: record('menuChangeCompleted'),
    onInvalid: ({ reason, route, report }) => invalid.push({ reason, route, report }),
    onError: (err, info) => errors.push(info.code),
  });
  const out = [];
  for (const r of list) {
    const res = await receiver.handle({ method: r.method, url: r.url, headers: r.headers, body: r.body });
    out.push({ name: r.name, res, call: calls.length, lastCall: calls.at(-1) });
  }
  return { out, calls, errors, invalid };
}

test('the one-call path answers every request as the general path does', { timeout: 60_000 }, async () => {
  const list = requests();
  const io = counted();
  const [fast, general] = [await run(io.raw, list), await run(withoutIo(), list)];
  assert.deepEqual(fast.out, general.out);
  assert.deepEqual(fast.calls, general.calls);
  assert.deepEqual(fast.errors, general.errors);
  assert.deepEqual(fast.invalid, general.invalid);
  // The common deliveries took it: one call each, answered with a timestamp.
  const taken = io.answers.filter((a) => a >= 0).length;
  assert.equal(taken, list.filter((r) => r.common).length, `receiverIo answered ${JSON.stringify(io.answers)}`);
});

test('remoteOrderIds the core answers verbatim, and the others, answer as the core says', { timeout: 60_000 }, async () => {
  const ids = ['POS-1', 'a"b', 'a\\b', ' padded ', '   ', '', 'caf\u00e9', 'line\nfeed', '\u2028', 'x'.repeat(300), '!#$%&()*+,-./:;<=>?@[]^_`{|}~'];
  for (const id of ids) {
    const list = [{ method: 'POST', url: '/v1/order/store-1', headers: deliveryHeaders(created), body: created }];
    const [fast, general] = [await run(counted().raw, list, () => id), await run(withoutIo(), list, () => id)];
    assert.deepEqual(fast.out[0].res, general.out[0].res, JSON.stringify(id));
    assert.deepEqual(fast.errors, general.errors, JSON.stringify(id));
  }
});

test('node:http on the one-call path: the answers and headers of the general path, Content-Length included', { timeout: 60_000 }, async () => {
  const http = await import('node:http');
  const list = requests().filter((r) => !r.name.includes('ASCII'));
  const serve = async (module) => {
    const api = createReceiverApi(module, facade, undefined, platform);
    let n = 0;
    const receiver = api.createReceiver({ secret: [SECRET, OTHER], now: NOW, onError: () => {}, onOrderCreated: () => `POS-${++n}`, onOrderUpdate: () => {}, onMenuChangeCompleted: () => {} });
    const server = http.createServer(receiver.node);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { send } = await import('./helpers.mjs');
    const base = `http://127.0.0.1:${server.address().port}`;
    const answers = [];
    try {
      for (const r of list) {
        const a = await send(base, r.method, r.url, { headers: r.headers, body: r.body });
        assert.equal(Number(a.headers['content-length']), Buffer.byteLength(a.text), r.name);
        answers.push({ name: r.name, status: a.status, text: a.text, type: a.headers['content-type'], allow: a.headers.allow });
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    return answers;
  };
  assert.deepEqual(await serve(counted().raw), await serve(withoutIo()));
});
