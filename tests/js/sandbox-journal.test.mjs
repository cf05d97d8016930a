// The sandbox's journal (issue 39): REST calls and delivery attempts under one `seq`, kept by the
// model, read with sb.journal({ after }) and GET /_sandbox/journal?after=SEQ; deliveries() and
// requests() are views of it and keep their shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createSandbox, SandboxError, NET_TIMEOUT_MS, restClient, startKitPos, checkSandboxLogs } from './sandbox-kit.mjs';

async function setup(t, options = {}, posOptions = {}) {
  const pos = await startKitPos(t, posOptions);
  const sb = await createSandbox({ clock: 'manual', seed: 39, pos: pos.url, ...options });
  t.after(() => sb.close());
  pos.attach(sb.secret);
  return { sb, pos, api: restClient(sb) };
}

const control = async (sb, path) => {
  const res = await fetch(sb.url + path, { signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
  return { status: res.status, json: await res.json() };
};

const DELIVERY_KEYS = ['deliveryId', 'attempt', 'redelivery', 'kind', 'orderKey', 'method', 'url', 'headers', 'body', 'at', 'status', 'answer', 'error', 'ms', 'ok', 'failure', 'retryAt', 'effects'];
const REQUEST_KEYS = ['seq', 'at', 'method', 'path', 'headers', 'body', 'status', 'answer', 'retryAfter', 'replayed', 'delayMs', 'truncated'];

test('REST calls and delivery attempts (one failed, then retried on the manual clock) in one sequence, in the journal and its route', async (t) => {
  const { sb, api } = await setup(t, {}, { failCreations: 1 });
  const schedule = sb.assumptions.retryScheduleSeconds;
  assert.equal((await api.call('GET', '/api/v1/Orders?PageSize=1')).status, 200);
  const order = await sb.createOrder({ store: 'STORE-1', autoAccept: false });
  assert.equal(order.remoteOrderId, null, 'the first attempt failed');
  assert.equal((await api.detail(order.orderKey)).status, 200);
  await sb.advance(schedule[0]);
  assert.equal(sb.order(order.orderKey).remoteOrderId, 'POS-1', 'the retry was answered');
  assert.equal((await api.accept(order.orderKey)).status, 202);

  const page = sb.journal();
  assert.deepEqual(Object.keys(page), ['entries', 'next', 'more', 'latest']);
  const { entries } = page;
  assert.deepEqual(
    entries.map((e) => [e.type, e.type === 'rest' ? `${e.method} ${e.path.split('?')[0]}` : `#${e.attempt} ${e.status}`]),
    [
      ['rest', 'GET /api/v1/Orders'],
      ['delivery', '#1 500'],
      ['rest', `GET /api/v1/Orders/${order.orderKey}`],
      ['delivery', '#2 200'],
      ['rest', `POST /api/v1/Orders/${order.orderKey}/accept`],
    ],
  );
  const seqs = entries.map((e) => e.seq);
  assert.ok(seqs.every((s, i) => i === 0 || s === seqs[i - 1] + 1), `one sequence, no gap: ${seqs}`);
  assert.equal(seqs[0], 1);
  assert.deepEqual([page.next, page.more, page.latest], [seqs.at(-1), false, seqs.at(-1)]);

  const [failed, retried] = entries.filter((e) => e.type === 'delivery');
  assert.equal(failed.deliveryId, retried.deliveryId, 'one delivery, two attempts');
  assert.equal(failed.headers['X-Service-Delivery-Id'], failed.deliveryId);
  assert.match(failed.headers['X-Service-Signature-256'], /^sha256=[0-9a-f]{64}$/);
  assert.deepEqual([failed.kind, failed.orderKey, failed.changeId, failed.method, failed.redelivery], ['orderCreated', order.orderKey, null, 'POST', false]);
  assert.deepEqual([failed.ok, failed.retryAt, failed.error, failed.truncated], [false, failed.at + schedule[0], null, false]);
  assert.equal(typeof failed.ms, 'number');
  assert.match(failed.failure, /HTTP 500/);
  assert.equal(JSON.parse(failed.body).orderKey, order.orderKey);
  assert.deepEqual([retried.ok, retried.retryAt, retried.status, JSON.parse(retried.answer).remoteOrderId], [true, null, 200, 'POS-1']);
  assert.equal(retried.body, failed.body, 'the same body on every attempt');
  assert.ok(retried.effects.some((e) => e.includes('POS-1')), JSON.stringify(retried.effects));

  // The route answers the same page.
  const overHttp = await control(sb, '/_sandbox/journal?after=0');
  assert.equal(overHttp.status, 200);
  assert.deepEqual(overHttp.json, page);
  assert.deepEqual((await control(sb, '/_sandbox/journal')).json, page);

  // deliveries() and requests() read from it, in their shapes.
  const deliveries = sb.deliveries();
  assert.deepEqual(deliveries.map((d) => Object.keys(d)), [DELIVERY_KEYS, DELIVERY_KEYS]);
  const view = ({ seq, type, changeId, truncated, ...rest }) => rest;
  assert.deepEqual(deliveries, [view(failed), view(retried)]);
  assert.deepEqual((await control(sb, '/_sandbox/deliveries')).json, deliveries);
  const requests = sb.requests();
  assert.deepEqual(requests.map((r) => Object.keys(r)), [REQUEST_KEYS, REQUEST_KEYS, REQUEST_KEYS]);
  assert.deepEqual(requests, entries.filter((e) => e.type === 'rest').map(({ type, ...r }) => r));
  assert.deepEqual(sb.requests({ after: seqs[1] }).map((r) => r.seq), [seqs[2], seqs[4]]);
  checkSandboxLogs(sb);
});

test('journal({ after }) reads on from a seq, a page of at most 1,000 entries at a time', async (t) => {
  const { sb, api } = await setup(t, { rateLimits: false });
  const n = 1_234;
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => api.call('GET', '/api/v1/Orders?PageSize=1')));
  await sb.createOrder();
  const first = sb.journal({ after: 0 });
  assert.equal(first.entries.length, 1_000);
  assert.deepEqual([first.next, first.more, first.latest], [1_000, true, n + 1]);
  const second = sb.journal({ after: first.next });
  assert.equal(second.entries.length, n + 1 - 1_000);
  assert.deepEqual([second.next, second.more], [n + 1, false]);
  assert.deepEqual([...first.entries, ...second.entries].map((e) => e.seq), Array.from({ length: n + 1 }, (_, i) => i + 1));
  assert.equal(second.entries.at(-1).type, 'delivery');
  const tail = sb.journal({ after: n - 2 });
  assert.deepEqual(tail.entries.map((e) => [e.seq, e.type]), [[n - 1, 'rest'], [n, 'rest'], [n + 1, 'delivery']]);
  assert.deepEqual((await control(sb, `/_sandbox/journal?after=${n - 2}`)).json, tail);
  assert.deepEqual(sb.journal({ after: n + 1 }), { entries: [], next: n + 1, more: false, latest: n + 1 });
});

test('an invalid after is a 400 problem over HTTP and an INVALID_ARGUMENT in JS', async (t) => {
  const { sb } = await setup(t);
  for (const after of ['-1', '1.5', 'abc', '1e3', '', '9007199254740993', '100000000000000000000', '0x10']) {
    const r = await control(sb, `/_sandbox/journal?after=${encodeURIComponent(after)}`);
    assert.equal(r.status, 400, `after=${after}`);
    assert.equal(r.json.error.code, 'INVALID_ARGUMENT', `after=${after}`);
    assert.match(r.json.error.message, /^journal: after must be an integer/);
  }
  for (const after of [-1, 1.5, 'abc', 2 ** 60, Number.NaN, Infinity, '']) {
    assert.throws(() => sb.journal({ after }), (e) => e instanceof SandboxError && e.code === 'INVALID_ARGUMENT', String(after));
  }
  assert.equal(sb.journal({ after: null }).latest, 0, 'null is no after');
});

test('each redelivered copy gets its entry; a reset clears the journal and the numbering goes on', async (t) => {
  const { sb, api } = await setup(t);
  const order = await sb.createOrder();
  const [creation] = sb.deliveries();
  const copies = await sb.redeliver(creation.deliveryId, { copies: 3 });
  assert.equal(copies.length, 3);
  assert.deepEqual(Object.keys(copies[0]), DELIVERY_KEYS);
  const { entries, latest } = sb.journal();
  const again = entries.filter((e) => e.type === 'delivery' && e.redelivery);
  assert.equal(again.length, 3, 'one entry for each concurrent copy');
  assert.ok(again.every((e) => e.deliveryId === creation.deliveryId && e.status === 200));
  // redeliver() resolves with the copies' entries (in the order sent; they are answered in any order).
  const text = (list) => list.map((d) => JSON.stringify(d)).sort();
  assert.deepEqual(text(copies), text(again.map(({ seq, type, changeId, truncated, ...d }) => d)));
  sb.reset();
  assert.deepEqual(sb.journal(), { entries: [], next: 0, more: false, latest });
  assert.deepEqual([sb.deliveries(), sb.requests()], [[], []]);
  assert.equal((await api.detail(order.orderKey)).status, 404);
  assert.deepEqual(sb.journal().entries.map((e) => e.seq), [latest + 1], 'numbers are not reused after a reset');
});

test("the POS's answer is kept up to 64 KiB, cut with truncated: true", async (t) => {
  const big = JSON.stringify({ remoteOrderId: 'R-1', pad: 'x'.repeat(70 * 1024) });
  const pos = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(big));
  });
  await new Promise((resolve) => pos.listen(0, '127.0.0.1', resolve));
  t.after(() => pos.close());
  const sb = await createSandbox({ clock: 'manual', seed: 1, pos: `http://127.0.0.1:${pos.address().port}`, retryScheduleSeconds: [] });
  t.after(() => sb.close());
  await sb.createOrder();
  const [entry] = sb.journal().entries;
  assert.equal(entry.type, 'delivery');
  assert.equal(entry.answer.length, 64 * 1024);
  assert.equal(entry.answer, big.slice(0, 64 * 1024));
  assert.equal(entry.truncated, true);
  assert.equal(sb.deliveries()[0].answer, entry.answer);
});
