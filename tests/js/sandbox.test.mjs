// poscheck/sandbox driven as a POS developer drives it: real HTTP on 127.0.0.1 both ways (the
// POS's REST calls to the sandbox, the sandbox's signed webhooks to the POS). Every REST answer the
// tests receive goes through the toolkit's checkers (sandbox-kit.mjs: validatePayload,
// classifyProblem, checkOrder), and so does everything the sandbox logged (every delivery by
// verifyWebhook and validatePayload, every REST answer it gave, every order).
//
// 1. a POS made with the kit's createReceiver, through whole lifecycles (manual clock);
// 2. a hand-written POS in another process (sandbox-hand-pos.mjs: node:http and node:crypto only);
// 3. the README's example lives in sandbox-readme-example.test.mjs;
// 4. hostile input to the sandbox's REST routes and /_sandbox/ controls;
// 5. the CLI (`poscheck sandbox`): banner, controls, live log, SIGTERM, --state, a bad --port.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkAnswer,
  checkOrderDetail,
  checkSandboxLogs,
  createSandbox,
  SandboxError,
  NET_TIMEOUT_MS,
  pkg,
  rawRequest,
  restClient,
  root,
  sendBody,
  startKitPos,
  until,
} from './sandbox-kit.mjs';

/** A kit POS and a manual-clock sandbox that delivers to it, closed after the test. */
async function setup(t, options = {}, posOptions = {}) {
  const pos = await startKitPos(t, posOptions);
  const sb = await createSandbox({ clock: 'manual', seed: 42, pos: pos.url, ...options });
  t.after(() => sb.close());
  pos.attach(sb.secret);
  return { sb, pos, api: restClient(sb) };
}

const suffix = (problem) => problem.type?.split('/').at(-1) ?? null;

// ---- the tools a POS test needs, in JS and over HTTP --------------------------------------------

describe('the test tools: faults, the request log, reset, state, and every control over HTTP', () => {
  /** A control over HTTP (JSON in and out). */
  const http = async (sb, method, path, body) => {
    const res = await fetch(sb.url + path, { method, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
    return { status: res.status, json: await res.json() };
  };

  test('setFaults (JS and PUT /_sandbox/faults): 503, 429 with Retry-After, slow answers; the request log records them; off again', async (t) => {
    const { sb, api } = await setup(t);
    const { orderKey } = await sb.createOrder();
    sb.setFaults({ unavailable: 1 });
    assert.equal((await api.call('GET', `/api/v1/Orders/${orderKey}`)).status, 503);
    assert.equal((await http(sb, 'PUT', '/_sandbox/faults', { rateLimited: 1, retryAfterSeconds: 7 })).status, 200);
    const limited = await fetch(`${sb.url}/api/v1/Orders/${orderKey}`, { headers: { 'X-Service-Api-Key': sb.apiKey } });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    checkAnswer({ method: 'GET', path: `/api/v1/Orders/${orderKey}`, status: 429, headers: limited.headers, text: await limited.text() });
    sb.setFaults({ slow: 1, slowMs: 150 });
    const started = Date.now();
    assert.equal((await api.detail(orderKey)).status, 200);
    assert.ok(Date.now() - started >= 140, 'the answer came after the injected delay');
    assert.throws(() => sb.setFaults({ unavailable: 2 }), (e) => e instanceof SandboxError && e.code === 'INVALID_CONFIG');
    assert.equal((await http(sb, 'PUT', '/_sandbox/faults', { nope: 1 })).status, 400);
    sb.setFaults({});
    assert.equal((await api.detail(orderKey)).status, 200);
    const log = sb.requests().filter((r) => r.path === `/api/v1/Orders/${orderKey}`);
    assert.deepEqual(log.map((r) => r.status), [503, 429, 200, 200]);
    assert.equal(log[1].retryAfter, 7);
    assert.equal(log[2].delayMs, 150);
    assert.deepEqual((await http(sb, 'GET', '/_sandbox/requests')).json.map((r) => r.status), sb.requests().map((r) => r.status));
    checkSandboxLogs(sb);
  });

  test('the request log: numbered calls, the headers the contract reads, what was sent and answered, read on from a seq', async (t) => {
    const { sb, api } = await setup(t);
    const { orderKey } = await sb.createOrder();
    // The journal's one sequence numbers the delivery attempts too: read on from its latest.
    const before = sb.journal().latest;
    const body = '{"reasonCode":"OUT_OF_STOCK","extra":"\u00e9"}';
    const res = await fetch(`${sb.url}/api/v1/Orders/${orderKey}/reject`, {
      method: 'POST',
      headers: { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': '0b0c7c1e-3a2b-4c5d-8e9f-0a1b2c3d4e5f', 'Content-Type': 'application/json', 'X-Other': 'not kept' },
      body,
    });
    const answer = await res.text();
    await api.call('GET', '/api/v1/Orders?PageSize=5');
    const calls = sb.requests({ after: before });
    assert.equal(calls.length, 2);
    assert.ok(before < calls[0].seq && calls[0].seq < calls[1].seq, JSON.stringify(calls.map((c) => c.seq)));
    assert.equal(calls[0].method, 'POST');
    assert.equal(calls[0].path, `/api/v1/Orders/${orderKey}/reject`);
    assert.deepEqual(calls[0].headers, {
      'x-service-api-key': sb.apiKey,
      'x-service-schema-version': '1.0',
      'idempotency-key': '0b0c7c1e-3a2b-4c5d-8e9f-0a1b2c3d4e5f',
      'content-type': 'application/json',
    });
    assert.equal(calls[0].body, body);
    assert.equal(calls[0].status, res.status);
    assert.equal(calls[0].answer, answer, 'the answer as sent');
    assert.equal(calls[0].truncated, false);
    assert.equal(calls[1].path, '/api/v1/Orders?PageSize=5');
    assert.deepEqual(Object.keys(calls[1].headers), ['x-service-api-key']);
    const overHttp = await http(sb, 'GET', `/_sandbox/requests?after=${calls[0].seq}`);
    assert.deepEqual(overHttp.json.map((c) => c.seq), [calls[1].seq]);
    assert.equal((await http(sb, 'GET', '/_sandbox/requests?after=-1')).status, 400);
    assert.throws(() => sb.requests({ after: 1.5 }), (e) => e instanceof SandboxError && e.code === 'INVALID_ARGUMENT');
    sb.reset();
    assert.deepEqual(sb.requests(), []);
    await api.call('GET', `/api/v1/Orders/${orderKey}`);
    assert.ok(sb.requests()[0].seq > calls[1].seq, 'numbers are not reused after a reset');
  });

  test('every order control over HTTP, info, GET /_sandbox/orders, exportState, and reset (JS and POST /_sandbox/reset)', async (t) => {
    const { sb, pos, api } = await setup(t);
    const info = (await http(sb, 'GET', '/_sandbox')).json;
    assert.deepEqual({ ...info, now: 0 }, { ...sb.info(), now: 0 });
    assert.equal(info.controlPrefix, '/_sandbox');
    assert.deepEqual(sb.clients.map((c) => c.apiKey), [sb.apiKey]);
    const created = (await http(sb, 'POST', '/_sandbox/orders', { store: 'STORE-1' })).json;
    const key = created.orderKey;
    assert.equal((await api.accept(key)).status, 202);
    assert.equal((await http(sb, 'POST', `/_sandbox/orders/${key}/assign-driver`, { fullName: 'Ana', code: 'DRV-1' })).json.driverAssignedAt !== null, true);
    const released = (await http(sb, 'POST', `/_sandbox/orders/${key}/release-driver`, { reason: 'flat tyre' })).json;
    assert.equal(released.driverAssignedAt, null);
    assert.equal(released.history.at(-1).driver.event, 'driver_released');
    assert.equal((await http(sb, 'POST', `/_sandbox/orders/${key}/ready`)).json.status, 'Ready');
    assert.equal((await http(sb, 'POST', `/_sandbox/orders/${key}/deliver`)).json.status, 'HandedOver');
    const refunded = (await http(sb, 'POST', `/_sandbox/orders/${key}/refund`, { reason: 'incident' })).json;
    assert.equal(refunded.status, 'Cancelled');
    assert.deepEqual(pos.events(key), ['driver_assigned', 'driver_released', 'delivered', 'cancelled']);
    const other = (await http(sb, 'POST', '/_sandbox/orders', {})).json.orderKey;
    const cancelled = (await http(sb, 'POST', `/_sandbox/orders/${other}/cancel`, { by: 'operator', reason: 'store closed' })).json;
    assert.equal(cancelled.history.at(-1).actorType, 'operator');
    assert.equal((await http(sb, 'POST', `/_sandbox/orders/${other}/refund`)).status, 409, 'a refund before the handover does not apply');
    assert.deepEqual((await http(sb, 'GET', '/_sandbox/orders')).json.map((o) => o.orderKey), [key, other]);
    const state = JSON.parse(sb.exportState());
    assert.deepEqual(state.orders.map((o) => o.order.orderKey), [key, other]);
    checkSandboxLogs(sb);

    sb.reset();
    assert.deepEqual(sb.orders(), []);
    assert.deepEqual(sb.deliveries(), []);
    assert.deepEqual(sb.requests(), []);
    assert.equal((await api.call('GET', `/api/v1/Orders/${key}`)).status, 404, 'the order is gone');
    await http(sb, 'POST', '/_sandbox/orders', {});
    assert.equal(sb.orders().length, 1);
    assert.equal((await http(sb, 'POST', '/_sandbox/reset')).status, 200);
    assert.deepEqual(sb.orders(), []);
    assert.equal(sb.apiKey, info.apiKey, 'the account stays');
  });
});

// ---- 1. a POS made with createReceiver ----------------------------------------------------------

describe('a POS made with createReceiver, through real REST calls (manual clock)', () => {
  test('created → accepted → ready → handed over → delivered', async (t) => {
    const { sb, pos, api } = await setup(t);
    const created = await sb.createOrder({ store: 'STORE-1' });
    checkOrderDetail(created, 'sb.createOrder()');
    const key = created.orderKey;
    assert.equal(created.status, 'Pending');
    assert.equal(pos.created.length, 1, 'the POS received the creation webhook');
    assert.equal(pos.created[0].orderKey, key);
    assert.equal(created.remoteOrderId, 'POS-1', "the POS's answer is kept as remoteOrderId");
    assert.notEqual(created.order.expiresAt, null, 'STORE-1 is not auto-accept: an acceptance deadline');

    const accepted = await api.accept(key);
    assert.equal(accepted.status, 202);
    assert.equal(accepted.data.status, 'Preparing', 'the accept cascade: Accepted is never observable');
    assert.equal(accepted.data.remoteOrderId, 'POS-1');
    assert.equal(typeof accepted.data.acceptedAt, 'string');
    assert.ok(!('preparingAt' in accepted.data), 'preparingAt is not in the accept answer');

    const detail = (await api.detail(key)).data;
    assert.equal(detail.status, 'Preparing');
    assert.equal(detail.preparingAt, detail.acceptedAt);
    assert.ok(!detail.history.some((r) => r.toStatus === 'Accepted'), 'no Accepted row is observable');

    await sb.advance(60);
    const ready = await api.status(key, 'ready');
    assert.equal(ready.status, 202);
    assert.equal(ready.data.status, 'Ready');
    await sb.advance(60);
    const handed = await api.status(key, 'handed_over');
    assert.equal(handed.status, 202);
    assert.equal(handed.data.status, 'HandedOver');

    await sb.advance(600);
    const delivered = await sb.deliver(key);
    checkOrderDetail(delivered, 'sb.deliver()');
    assert.equal(delivered.status, 'HandedOver', 'delivered is an event, not a status');
    assert.equal(typeof delivered.deliveredAt, 'string');
    assert.ok(Date.parse(delivered.deliveredAt) > Date.parse(delivered.handedOverAt), 'on delivery orders deliveredAt is later than handedOverAt');
    assert.deepEqual(pos.events(key), ['delivered'], 'the POS received the delivered update');
    const last = pos.updates.at(-1);
    assert.equal(last.pathRemoteOrderId, 'POS-1');

    const read = (await api.detail(key)).data;
    assert.deepEqual(read, sb.order(key), 'GET detail and sb.order() agree');
    assert.deepEqual(read.history.map((r) => r.toStatus), ['Pending', 'Preparing', 'Ready', 'HandedOver']);
    assert.ok(read.history.slice(1).every((r) => r.actorType === 'merchant'));
    checkSandboxLogs(sb);
  });

  test('rejected with a reasonCode; an unknown reasonCode is normalized to SYSTEM_ISSUE', async (t) => {
    const { sb, api } = await setup(t);
    const a = await sb.createOrder();
    const b = await sb.createOrder();
    const r1 = await api.reject(a.orderKey, 'ITEM_OUT_OF_STOCK');
    assert.equal(r1.status, 202);
    assert.equal(r1.data.status, 'Rejected');
    assert.equal(r1.data.reason, 'ITEM_OUT_OF_STOCK');
    assert.equal(typeof r1.data.rejectedAt, 'string');
    const r2 = await api.reject(b.orderKey, 'MOON_IN_RETROGRADE');
    assert.equal(r2.status, 202, 'an unknown reasonCode is never a 422');
    assert.equal(r2.data.reason, 'SYSTEM_ISSUE');
    const detail = (await api.detail(a.orderKey)).data;
    assert.equal(detail.status, 'Rejected');
    assert.equal(detail.rejectedAt, r1.data.rejectedAt);
    // Rejected is terminal: 409 with empty allowedTransitions, and no timeout fires later.
    const again = await api.accept(a.orderKey);
    assert.equal(again.status, 409);
    assert.deepEqual(again.json.meta?.allowedTransitions, []);
    assert.equal(pkg.classifyProblem({ status: 409, body: again.text }).terminal, true);
    await sb.advance(3600);
    assert.equal(sb.order(a.orderKey).status, 'Rejected', 'the acceptance timeout job was cancelled');
    assert.equal(sb.order(b.orderKey).status, 'Rejected');
    checkSandboxLogs(sb);
  });

  test('timed out: advance(301) cancels it (actor system), the POS gets cancelled, accept after is 409', async (t) => {
    const { sb, pos, api } = await setup(t);
    const o = await sb.createOrder();
    const expires = Date.parse(o.order.expiresAt) / 1000;
    assert.equal(expires - Date.parse(o.receivedAt) / 1000, sb.assumptions.acceptanceWindowSeconds);
    await sb.advance(301);
    const after = sb.order(o.orderKey);
    checkOrderDetail(after, 'after the timeout');
    assert.equal(after.status, 'Cancelled');
    assert.equal(typeof after.cancelledAt, 'string');
    const row = after.history.at(-1);
    assert.deepEqual([row.fromStatus, row.toStatus, row.actorType, row.actorId], ['Pending', 'Cancelled', 'system', null]);
    assert.deepEqual(pos.events(o.orderKey), ['cancelled'], "the POS's handler received the cancelled update");
    const update = pos.updates.at(-1);
    assert.equal(update.pathRemoteOrderId, o.remoteOrderId);
    assert.equal(typeof update.reason, 'string', 'cancelled carries reason');
    const late = await api.accept(o.orderKey);
    assert.equal(late.status, 409);
    assert.equal((await api.detail(o.orderKey)).data.status, 'Cancelled');
    checkSandboxLogs(sb);
  });

  test('accept after expiresAt while the order still reads Pending: 409 acceptance-timeout', async (t) => {
    const { sb, pos, api } = await setup(t, { timeoutJobDelaySeconds: 60 });
    const o = await sb.createOrder();
    await sb.advance(301);
    assert.equal((await api.detail(o.orderKey)).data.status, 'Pending', 'the timeout job has not run yet');
    const late = await api.accept(o.orderKey);
    assert.equal(late.status, 409);
    assert.equal(suffix(late.json), 'acceptance-timeout');
    const c = pkg.classifyProblem({ status: late.status, headers: late.headers, body: late.text });
    assert.equal(c.typeSuffix, 'acceptance-timeout');
    assert.equal(sb.order(o.orderKey).status, 'Pending', 'a refused accept changes nothing');
    await sb.advance(60);
    assert.equal(sb.order(o.orderKey).status, 'Cancelled', 'then the job cancels it');
    assert.deepEqual(pos.events(o.orderKey), ['cancelled']);
    checkSandboxLogs(sb);
  });

  test('auto-accepted (STORE-2): Preparing once the POS answered the creation webhook, expiresAt null', async (t) => {
    const { sb, pos, api } = await setup(t);
    const store = sb.stores.find((s) => s.autoAccept);
    assert.equal(store.remoteId, 'STORE-2');
    const o = await sb.createOrder({ store: 'STORE-2' });
    assert.equal(o.order.expiresAt, null);
    assert.equal(o.status, 'Preparing');
    assert.equal(typeof o.acceptedAt, 'string');
    assert.equal(o.preparingAt, o.acceptedAt);
    assert.equal(o.remoteOrderId, pos.created[0].remoteOrderId);
    assert.equal(pos.created[0].payload.expiresAt, null, 'the creation webhook says expiresAt null');
    const read = (await api.detail(o.orderKey)).data;
    assert.deepEqual(read.history.map((r) => r.toStatus), ['Pending', 'Preparing']);
    await sb.advance(3600);
    assert.equal(sb.order(o.orderKey).status, 'Preparing', 'no acceptance timeout on an auto-accept store');
    const accept = await api.accept(o.orderKey);
    assert.equal(accept.status, 409, 'already accepted');
    assert.equal((await api.status(o.orderKey, 'ready')).data.status, 'Ready');
    checkSandboxLogs(sb);
  });

  test('driver assigned, reassigned, released and assigned again: history rows and update webhooks', async (t) => {
    const { sb, pos, api } = await setup(t);
    const o = await sb.createOrder();
    const key = o.orderKey;
    await api.accept(key);
    const a1 = await sb.assignDriver(key, { code: 'DRV-A', fullName: 'Ana Pérez', phone: '+50760000001' });
    assert.equal(typeof a1.driverAssignedAt, 'string');
    assert.equal(a1.status, 'Preparing', 'a driver is not a status');
    await sb.advance(30);
    const a2 = await sb.assignDriver(key, { code: 'DRV-B', fullName: 'Beto Ruiz' });
    const reassigned = a2.history.at(-1);
    assert.equal(reassigned.driver?.event, 'driver_reassigned');
    assert.equal(reassigned.driver.code, 'DRV-B');
    assert.equal(reassigned.driver.previousCode, 'DRV-A');
    assert.equal(reassigned.fromStatus, reassigned.toStatus, 'driver rows keep the status');
    await sb.advance(30);
    const released = await sb.releaseDriver(key, { reason: 'vehicle breakdown' });
    const rel = released.history.at(-1);
    assert.equal(rel.driver?.event, 'driver_released');
    assert.equal(rel.fromStatus, rel.toStatus);
    assert.equal(released.driverAssignedAt, null, 'cleared when the driver is released');
    await sb.advance(30);
    const a3 = await sb.assignDriver(key, { code: 'DRV-C', fullName: 'Carla Díaz' });
    assert.equal(a3.history.at(-1).driver?.event, 'driver_assigned');
    assert.equal(typeof a3.driverAssignedAt, 'string');

    assert.deepEqual(pos.events(key), ['driver_assigned', 'driver_assigned', 'driver_released', 'driver_assigned']);
    const [first, second, release] = pos.updates.filter((u) => u.orderKey === key);
    assert.deepEqual(first.driver, { fullName: 'Ana Pérez', phone: '+50760000001' });
    assert.equal(second.driver.fullName, 'Beto Ruiz');
    assert.equal(release.reason, 'vehicle breakdown');
    assert.equal(release.releasedDriver?.fullName, 'Beto Ruiz');
    assert.equal(release.expectedNext, 'driver_reassignment');
    assert.ok(!('driver' in release) || release.driver === null, 'driver_released carries releasedDriver, not driver');

    const read = (await api.detail(key)).data;
    assert.deepEqual(read.history.filter((r) => r.driver).map((r) => r.driver.event), ['driver_assigned', 'driver_reassigned', 'driver_released', 'driver_assigned']);
    const list = await api.get('/api/v1/Orders?PageSize=5');
    assert.equal(list.data.items.find((i) => i.orderKey === key).driverAssignedAt, read.driverAssignedAt);
    checkSandboxLogs(sb);
  });

  test('the driver marks it ready: PUT status ready is 409 currentStatus Ready, allowed [HandedOver] (alreadyReached)', async (t) => {
    const { sb, api } = await setup(t);
    const o = await sb.createOrder();
    await api.accept(o.orderKey);
    const ready = await sb.markReadyByDriver(o.orderKey);
    assert.equal(ready.status, 'Ready');
    assert.equal(ready.history.at(-1).actorType, 'driver');
    const put = await api.status(o.orderKey, 'ready');
    assert.equal(put.status, 409);
    assert.equal(put.json.meta.currentStatus, 'Ready');
    assert.deepEqual(put.json.meta.allowedTransitions, ['HandedOver']);
    const c = pkg.classifyProblem({ status: put.status, headers: put.headers, body: put.text });
    assert.equal(c.alreadyReached, true);
    assert.equal(c.terminal, false);
    assert.equal(c.currentStatus, 'Ready');
    const handed = await api.status(o.orderKey, 'handed_over');
    assert.equal(handed.status, 202);
    assert.equal(handed.data.status, 'HandedOver');
    checkSandboxLogs(sb);
  });

  test('cancelled after the handover (sb.refund): the POS gets cancelled, cancelledAt after deliveredAt', async (t) => {
    const { sb, pos, api } = await setup(t);
    const o = await sb.createOrder();
    await api.accept(o.orderKey);
    await api.status(o.orderKey, 'ready');
    await api.status(o.orderKey, 'handed_over');
    await sb.advance(900);
    await sb.deliver(o.orderKey);
    await sb.advance(3600);
    const refunded = await sb.refund(o.orderKey, { reason: 'cold food' });
    assert.equal(refunded.status, 'Cancelled');
    assert.equal(refunded.history.at(-1).fromStatus, 'HandedOver');
    assert.ok(Date.parse(refunded.cancelledAt) > Date.parse(refunded.deliveredAt));
    assert.deepEqual(pos.events(o.orderKey), ['delivered', 'cancelled']);
    assert.equal(pos.updates.at(-1).reason, 'cold food');
    const read = (await api.detail(o.orderKey)).data;
    assert.equal(read.status, 'Cancelled');
    assert.equal(read.deliveredAt, refunded.deliveredAt, 'deliveredAt stays');
    const put = await api.status(o.orderKey, 'handed_over');
    assert.equal(put.status, 409);
    checkSandboxLogs(sb);
  });

  test('a creation delivery failed twice, then answered: the same X-Service-Delivery-Id on all 3 attempts, one order', async (t) => {
    const { sb, pos, api } = await setup(t, {}, { failCreations: 2 });
    const schedule = sb.assumptions.retryScheduleSeconds;
    assert.ok(schedule.length >= 2 && schedule[0] + schedule[1] < sb.assumptions.acceptanceWindowSeconds, JSON.stringify(schedule));
    const o = await sb.createOrder();
    assert.equal(o.remoteOrderId, null, 'the first attempt failed');
    let log = sb.deliveries();
    assert.equal(log.length, 1);
    assert.equal(log[0].status, 500);
    assert.equal(log[0].ok, false);
    assert.equal(log[0].retryAt, sb.now() + schedule[0]);
    await sb.advance(schedule[0]);
    log = sb.deliveries();
    assert.equal(log.length, 2);
    assert.equal(log[1].status, 500);
    assert.equal(log[1].retryAt, sb.now() + schedule[1]);
    await sb.advance(schedule[1]);
    log = sb.deliveries();
    assert.equal(log.length, 3);
    assert.deepEqual(log.map((d) => d.attempt), [1, 2, 3]);
    assert.deepEqual(log.map((d) => d.status), [500, 500, 200]);
    assert.equal(new Set(log.map((d) => d.deliveryId)).size, 1, 'one delivery id');
    assert.equal(new Set(log.map((d) => d.headers['X-Service-Delivery-Id'])).size, 1);
    assert.equal(log[0].headers['X-Service-Delivery-Id'], log[0].deliveryId);
    assert.equal(new Set(log.map((d) => d.body)).size, 1, 'the same body on every attempt');
    assert.equal(log[2].retryAt, null);
    assert.equal(pos.created.length, 1, 'the POS created one order');
    assert.equal(sb.orders().length, 1, 'the sandbox holds one order');
    assert.equal(sb.order(o.orderKey).remoteOrderId, 'POS-1');
    assert.equal((await api.accept(o.orderKey)).status, 202);
    await sb.advance(schedule.reduce((a, b) => a + b, 0) + 3600);
    assert.equal(sb.deliveries().length, 3, 'no attempt after the answer');
    checkSandboxLogs(sb);
  });

  test('idempotency: a replay gives the same body and Idempotent-Replayed; another body is 422 idempotency-conflict', async (t) => {
    const { sb, api } = await setup(t);
    const o = await sb.createOrder();
    const key = randomUUID();
    const first = await api.accept(o.orderKey, { idempotencyKey: key });
    assert.equal(first.status, 202);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    await sb.advance(5);
    const replay = await api.accept(o.orderKey, { idempotencyKey: key });
    assert.equal(replay.status, 202, 'not re-executed (a second accept would be a 409)');
    assert.equal(replay.text, first.text, 'the identical body');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    const conflict = await api.call('POST', `/api/v1/Orders/${o.orderKey}/accept`, { body: '{ }', idempotencyKey: key });
    assert.equal(conflict.status, 422);
    assert.equal(suffix(conflict.json), 'idempotency-conflict');
    assert.match(conflict.json.type, /\/idempotency-conflict$/);
    assert.equal(pkg.classifyProblem({ status: 422, body: conflict.text }).typeSuffix, 'idempotency-conflict');
    // The same key on PUT status with another status value: a conflict, not a transition.
    const k2 = randomUUID();
    assert.equal((await api.status(o.orderKey, 'ready', { idempotencyKey: k2 })).status, 202);
    const other = await api.status(o.orderKey, 'handed_over', { idempotencyKey: k2 });
    assert.equal(other.status, 422);
    assert.equal(suffix(other.json), 'idempotency-conflict');
    assert.equal(sb.order(o.orderKey).status, 'Ready', 'the conflicting request was not executed');
    // A mutation without Idempotency-Key: 422.
    const missing = await api.status(o.orderKey, 'handed_over', { omit: ['Idempotency-Key'] });
    assert.equal(missing.status, 422);
    assert.equal(sb.order(o.orderKey).status, 'Ready');
    checkSandboxLogs(sb);
  });

  test('401: a missing or unknown X-Service-Api-Key; another client cannot see the order (404)', async (t) => {
    const { sb, api } = await setup(t, {
      config: { clients: [{ stores: [{ remoteId: 'STORE-1' }] }, { stores: [{ remoteId: 'OTHER-1' }] }] },
    });
    const o = await sb.createOrder({ store: 'STORE-1' });
    const missing = await api.detail(o.orderKey, { omit: ['X-Service-Api-Key'] });
    assert.equal(missing.status, 401);
    const wrong = await api.accept(o.orderKey, { apiKey: 'sbx_key_not_a_key_of_this_account' });
    assert.equal(wrong.status, 401);
    assert.equal(pkg.classifyProblem({ status: 401, body: wrong.text }).kind, 'unauthorized');
    assert.equal(sb.order(o.orderKey).status, 'Pending', 'nothing executed');
    const other = sb.clients[1].apiKey;
    assert.notEqual(other, sb.apiKey);
    const foreign = await api.detail(o.orderKey, { apiKey: other });
    assert.equal(foreign.status, 404);
    assert.equal(suffix(foreign.json), 'not-found');
    assert.equal((await api.accept(o.orderKey, { apiKey: other })).status, 404);
    assert.equal((await api.accept(o.orderKey)).status, 202);
    checkSandboxLogs(sb);
  });

  test('429 after 100 requests in a minute, with Retry-After; the next window answers again', async (t) => {
    const { sb, api } = await setup(t);
    assert.equal(sb.assumptions.perMinute, 100);
    const o = await sb.createOrder();
    const statuses = [];
    for (let i = 0; i < 100; i++) statuses.push((await api.detail(o.orderKey)).status);
    assert.deepEqual(new Set(statuses), new Set([200]), 'the first 100 requests of the minute pass');
    const limited = await api.detail(o.orderKey);
    assert.equal(limited.status, 429);
    const retryAfter = limited.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After in seconds');
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, retryAfter);
    const c = pkg.classifyProblem({ status: 429, headers: limited.headers, body: limited.text });
    assert.equal(c.kind, 'rate-limited');
    assert.equal(c.retryable, true);
    assert.equal(c.retryAfterSeconds, Number(retryAfter));
    const accept = await api.accept(o.orderKey);
    assert.equal(accept.status, 429, 'every endpoint counts against the key');
    assert.equal(sb.order(o.orderKey).status, 'Pending');
    await sb.advance(Number(retryAfter));
    assert.equal((await api.accept(o.orderKey)).status, 202, 'after Retry-After the window is fresh');
    checkSandboxLogs(sb);
  });

  test('list paging: PageSize, nextCursor and hasMore, newest first, every order once', async (t) => {
    const { sb, api } = await setup(t);
    const keys = [];
    for (let i = 0; i < 5; i++) {
      keys.push((await sb.createOrder({ store: i % 2 ? 'STORE-2' : 'STORE-1' })).orderKey);
      await sb.advance(10);
    }
    const seen = [];
    let cursor = null;
    const pages = [];
    for (let page = 0; page < 10; page++) {
      const q = `/api/v1/Orders?PageSize=2${cursor ? `&Cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await api.get(q);
      assert.equal(res.status, 200);
      const { items, nextCursor, hasMore } = res.data;
      pages.push(items.length);
      seen.push(...items.map((i) => i.orderKey));
      assert.equal(hasMore, nextCursor !== null, 'nextCursor is null exactly on the last page');
      if (!hasMore) break;
      cursor = nextCursor;
    }
    assert.deepEqual(pages, [2, 2, 1]);
    assert.deepEqual(seen, [...keys].reverse(), 'newest first, each once');
    const all = await api.get('/api/v1/Orders');
    assert.equal(all.data.items.length, 5, 'default page size 20');
    assert.equal(all.data.hasMore, false);
    const pending = await api.get('/api/v1/Orders?Status=Pending');
    assert.deepEqual(pending.data.items.map((i) => i.orderKey), [keys[4], keys[2], keys[0]], 'STORE-1 orders are still Pending');
    const preparing = await api.get('/api/v1/Orders?Status=Preparing');
    assert.deepEqual(preparing.data.items.map((i) => i.orderKey), [keys[3], keys[1]], 'STORE-2 orders were auto-accepted');
    const forged = await api.get('/api/v1/Orders?Cursor=hand-made');
    assert.equal(forged.status, 422);
    for (const item of all.data.items) {
      const d = sb.order(item.orderKey);
      assert.deepEqual(
        [item.storeId, item.status, item.receivedAt, item.acceptedAt, item.remoteOrderId, item.driverAssignedAt, item.deliveredAt],
        [d.storeId, d.status, d.receivedAt, d.acceptedAt, d.remoteOrderId, d.driverAssignedAt, d.deliveredAt],
      );
    }
    checkSandboxLogs(sb);
  });
});

// ---- 2. a hand-written POS in another process -----------------------------------------------------

/** Reads stdout of `child` until `pattern` matches the text so far; rejects on exit or after the cap. */
function readUntil(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => done(new Error(`no ${what} within ${NET_TIMEOUT_MS} ms: ${text}`)), NET_TIMEOUT_MS);
    const onData = (d) => {
      text += d;
      const m = text.match(pattern);
      if (m) done(null, m);
    };
    const onExit = (code) => done(new Error(`exited (${code}) before ${what}: ${text}`));
    function done(err, m) {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m);
    }
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Ends a child this test started (by its own handle) and waits for its exit. */
function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), NET_TIMEOUT_MS);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      resolve({ code, signal: sig });
    });
    child.kill(signal);
  });
}

async function startHandPos(t) {
  const child = spawn(process.execPath, [join(root, 'tests', 'js', 'sandbox-hand-pos.mjs'), '--serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8');
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  t.after(() => stopChild(child));
  const [, port] = await readUntil(child, /\{"port":(\d+)\}\n/, 'port line');
  const url = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(url + path, { method, body: body && JSON.stringify(body), signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
    assert.equal(res.status, 200, `hand POS ${method} ${path}: ${stderr}`);
    return res.json();
  };
  return {
    url,
    configure: ({ url, apiKey, secret }) => call('POST', '/control/config', { sandboxUrl: url, apiKey, secret }),
    /** The POS calls PUT status itself; the sandbox's answer as the POS got it. */
    status: (orderKey, status) => call('POST', '/control/status', { orderKey, status }),
    log: () => call('GET', '/log'),
  };
}

/** The hand POS's log against the sandbox's: nothing refused, one entry per delivery id. */
function checkHandLog(log, sb) {
  assert.deepEqual(log.refused, [], 'the POS verified every delivery');
  const ids = [...log.created, ...log.updates].map((e) => e.deliveryId);
  assert.equal(new Set(ids).size, ids.length, 'processed once per delivery id');
  const sent = new Set(sb.deliveries().filter((d) => d.status === 200).map((d) => d.deliveryId));
  assert.deepEqual(new Set(ids), sent, 'every delivery the POS answered 200 is in its log');
  for (const r of log.rest) {
    assert.ok(!r.error, r.error);
  }
}

describe('a hand-written POS in another process (node:http and node:crypto only)', () => {
  async function lifecycle(t, clock) {
    const pos = await startHandPos(t);
    const sb = await createSandbox({ clock, pos: pos.url, ...(clock === 'manual' ? { seed: 7 } : {}) });
    t.after(() => sb.close());
    await pos.configure(sb);
    const api = restClient(sb);

    const o = await sb.createOrder({ customerNote: 'extra ketchup' });
    let log = await pos.log();
    assert.equal(log.created.length, 1);
    assert.equal(log.created[0].orderKey, o.orderKey);
    assert.equal(o.remoteOrderId, log.created[0].remoteOrderId);
    const accept = log.rest.find((r) => r.path.endsWith('/accept'));
    assert.equal(accept?.status, 202, 'the POS accepted through the REST API');
    assert.equal(sb.order(o.orderKey).status, 'Preparing');
    assert.equal(accept.body.data.remoteOrderId, o.remoteOrderId);

    if (clock === 'manual') await sb.advance(120);
    await sb.assignDriver(o.orderKey, { fullName: 'Ana Pérez' });
    const ready = await pos.status(o.orderKey, 'ready');
    assert.equal(ready.status, 202);
    assert.equal(ready.body.data.status, 'Ready');
    if (clock === 'manual') await sb.advance(300);
    const handed = await pos.status(o.orderKey, 'handed_over');
    assert.equal(handed.status, 202);
    assert.equal(handed.body.data.status, 'HandedOver');
    if (clock === 'manual') await sb.advance(1200);
    const delivered = await sb.deliver(o.orderKey);
    assert.equal(typeof delivered.deliveredAt, 'string');

    // A rejected one: the POS reads customerNote and rejects.
    const r = await sb.createOrder({ customerNote: 'please reject this one' });
    log = await pos.log();
    const reject = log.rest.find((x) => x.path === `/api/v1/Orders/${r.orderKey}/reject`);
    assert.equal(reject?.status, 202);
    assert.equal(reject.body.data.reason, 'ITEM_OUT_OF_STOCK');
    assert.equal(sb.order(r.orderKey).status, 'Rejected');

    const updates = log.updates.filter((u) => u.payload.orderKey === o.orderKey);
    assert.deepEqual(updates.map((u) => u.event), ['driver_assigned', 'delivered']);
    assert.ok(updates.every((u) => u.remoteOrderId === o.remoteOrderId), "the path's remoteOrderId is the POS's own");
    assert.deepEqual((await api.detail(o.orderKey)).data, sb.order(o.orderKey));
    checkHandLog(log, sb);
    checkSandboxLogs(sb);
    return { sb, pos, api, log };
  }

  test('a whole lifecycle on the real clock', async (t) => {
    await lifecycle(t, 'real');
  });

  test('a whole lifecycle on the manual clock; a timed-out order a day later still verifies', async (t) => {
    const { sb, pos } = await lifecycle(t, 'manual');
    // The manual clock moves the model, not the signatures: a POS that checks the 300 s window
    // against its own clock accepts the deliveries after advance() of a day.
    await sb.advance(86_400);
    const o = await sb.createOrder({ customerNote: 'ignore' });
    assert.equal(sb.order(o.orderKey).status, 'Pending');
    await sb.advance(sb.assumptions.acceptanceWindowSeconds + 1);
    assert.equal(sb.order(o.orderKey).status, 'Cancelled');
    const log = await pos.log();
    assert.deepEqual(log.updates.filter((u) => u.payload.orderKey === o.orderKey).map((u) => u.event), ['cancelled']);
    const signed = sb.deliveries().at(-1);
    assert.ok(Math.abs(Number(signed.headers['X-Service-Timestamp']) - Date.now() / 1000) <= 300, 'signed at the real time of sending');
    checkHandLog(log, sb);
    checkSandboxLogs(sb);
  });

  test('a redelivery with 3 simultaneous copies is processed once', async (t) => {
    const { sb, pos } = await lifecycle(t, 'manual');
    const before = await pos.log();
    const creation = sb.deliveries().find((d) => d.kind === 'orderCreated' && d.status === 200);
    const copies = await sb.redeliver(creation.deliveryId, { copies: 3 });
    assert.equal(copies.length, 3);
    for (const c of copies) {
      assert.equal(c.deliveryId, creation.deliveryId);
      assert.equal(c.headers['X-Service-Delivery-Id'], creation.deliveryId);
      assert.equal(c.redelivery, true);
      assert.equal(c.body, creation.body, 'the same body');
      assert.equal(c.status, 200);
      assert.deepEqual(JSON.parse(c.answer), JSON.parse(creation.answer), 'the first answer again');
    }
    const update = sb.deliveries().find((d) => d.kind === 'orderUpdate' && JSON.parse(d.body).event === 'delivered');
    const again = await sb.redeliver(update.deliveryId, { copies: 3 });
    assert.deepEqual(again.map((c) => c.status), [200, 200, 200]);
    const log = await pos.log();
    assert.equal(log.created.length, before.created.length, 'no second order in the POS');
    assert.equal(log.updates.length, before.updates.length, 'no second delivered event');
    assert.equal(log.rest.length, before.rest.length, 'no second accept');
    assert.equal(log.repeats.filter((id) => id === creation.deliveryId).length, 3);
    assert.equal(log.repeats.filter((id) => id === update.deliveryId).length, 3);
    const perId = {};
    for (const e of [...log.created, ...log.updates]) perId[e.deliveryId] = (perId[e.deliveryId] ?? 0) + 1;
    assert.ok(Object.values(perId).every((n) => n === 1), JSON.stringify(perId));
    assert.equal(sb.orders().length, 2, 'a redelivery changes nothing in the sandbox');
    checkHandLog(log, sb);
    checkSandboxLogs(sb);
    // The POS's own verification bites: with another secret it refuses the copy (401), before
    // its deduplication could answer it.
    await pos.configure({ url: sb.url, apiKey: sb.apiKey, secret: `${sb.secret}x` });
    const [forged] = await sb.redeliver(creation.deliveryId);
    assert.equal(forged.status, 401);
    const refused = (await pos.log()).refused;
    assert.deepEqual(refused.map((r) => r.why), ['signature mismatch']);
  });
});

// ---- 4. hostile input over HTTP ----------------------------------------------------------------------

/** A whole HTTP/1.1 request as bytes: `head` lines are written as given (bad ones included). */
function rawHttp(method, path, { head = [], body } = {}) {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...head];
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}

/**
 * A hostile request's answer: a client error (4xx: the input is the client's fault, never a 5xx),
 * with a JSON body that is a problem (checked by the toolkit like every REST answer) or a control
 * error { error: { code, message } }.
 */
function checkHostile(label, method, path, a) {
  const where = `${label}: ${method} ${path.slice(0, 60)} → ${a.status} ${a.body?.slice(0, 200)}`;
  assert.ok(a.status >= 400 && a.status < 500, where);
  let json;
  assert.doesNotThrow(() => (json = JSON.parse(a.body)), `${where}: a JSON body`);
  if (json && typeof json === 'object' && 'error' in json) {
    assert.equal(typeof json.error.code, 'string', where);
    assert.equal(typeof json.error.message, 'string', where);
  } else {
    checkAnswer({ method, path, status: a.status, headers: a.headers, text: a.body, contentType: a.headers['content-type'] });
  }
}

/** Bytes that are not UTF-8 (a lone continuation byte, an overlong form, a surrogate). */
const NOT_UTF8 = Buffer.from([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0x80, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]);
const deepArrays = (n) => Buffer.from('['.repeat(n) + ']'.repeat(n));
const deepObjects = (n) => Buffer.from('{"a":'.repeat(n) + '1' + '}'.repeat(n));
/** Random bytes from a fixed seed (xorshift), so a failure reproduces. */
function randomBytes(n, seed) {
  const out = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('hostile input to the REST routes and the /_sandbox/ controls', () => {
  test('bodies: random bytes, invalid UTF-8, 100,000 levels of nesting, wrong types; then it still answers', async (t) => {
    const { sb, api } = await setup(t);
    const port = Number(new URL(sb.url).port);
    const o = await sb.createOrder();
    const key = o.orderKey;
    const rest = (extra = []) => [`X-Service-Api-Key: ${sb.apiKey}`, 'X-Service-Schema-Version: 1.0', `Idempotency-Key: ${randomUUID()}`, 'Content-Type: application/json', ...extra];
    const bodies = {
      random1: randomBytes(4096, 1),
      random2: randomBytes(65_536, 2),
      notUtf8: NOT_UTF8,
      deepArrays: deepArrays(100_000),
      deepObjects: deepObjects(100_000),
      nul: Buffer.from('{"status":"ready\u0000"}'),
      array: Buffer.from('[]'),
      number: Buffer.from('1e999999'),
    };
    const targets = [
      ['POST', `/api/v1/Orders/${key}/accept`, rest()],
      ['POST', `/api/v1/Orders/${key}/reject`, rest()],
      ['PUT', `/api/v1/Orders/${key}/status`, rest()],
      ['POST', '/_sandbox/orders', []],
      ['POST', '/_sandbox/advance', []],
      ['PUT', '/_sandbox/faults', []],
      ['POST', `/_sandbox/orders/${key}/assign-driver`, []],
      ['POST', `/_sandbox/orders/${key}/cancel`, []],
      ['POST', `/_sandbox/deliveries/${sb.deliveries()[0].deliveryId}/redeliver`, []],
      ['PUT', '/api/v1/menu', rest()],
      ['POST', '/api/v1/menu/preview', rest()],
      ['PUT', '/api/v1/menu/availability', rest()],
      ['POST', '/api/v1/menu/changes', rest()],
      ['PATCH', '/api/v1/menu/products/prd_x', rest()],
      ['POST', '/api/v1/menu/stores/STORE-1/products', rest()],
      ['PUT', '/_sandbox/menu', []],
      ['POST', '/_sandbox/menu/fail', []],
    ];
    for (const [method, path, head] of targets) {
      for (const [label, body] of Object.entries(bodies)) {
        const a = await rawRequest(port, rawHttp(method, path, { head, body }));
        checkHostile(label, method, path, a);
      }
    }
    // Control bodies of the wrong types.
    for (const [path, body] of [
      ['/_sandbox/advance', '{"seconds":-1}'],
      ['/_sandbox/advance', '{"seconds":"1"}'],
      ['/_sandbox/advance', '{"seconds":1e308}'],
      ['/_sandbox/orders', '{"store":"NOPE"}'],
      ['/_sandbox/orders', '{"items":[]}'],
      ['/_sandbox/orders', '{"__proto__":{"polluted":1}}'],
      ['/_sandbox/orders', '{"type":"drone"}'],
      [`/_sandbox/deliveries/${sb.deliveries()[0].deliveryId}/redeliver`, '{"copies":1000000000}'],
      [`/_sandbox/orders/${key}/refund`, '{}'],
      ['/_sandbox/menu/fail', '{"store":"STORE-1","errorCode":"lower case"}'],
      ['/_sandbox/menu/fail', '{"store":{"x":1}}'],
    ]) {
      const a = await rawRequest(port, rawHttp('POST', path, { body: Buffer.from(body) }));
      checkHostile(body, 'POST', path, a);
    }
    assert.equal({}.polluted, undefined);
    // Still answering, and nothing above changed the order.
    const detail = await api.detail(key);
    assert.equal(detail.status, 200);
    assert.equal(detail.data.status, 'Pending');
    assert.equal(detail.data.history.length, 1);
    assert.equal(sb.orders().length, 1, 'no hostile control created an order');
    assert.deepEqual(sb.storeMenu('STORE-1').categories, [], 'no hostile upload changed the catalog');
    assert.equal((await api.accept(key)).status, 202);
    checkSandboxLogs(sb);
  });

  test('a 17 MB body is refused with 413 and the connection closed, on REST and on the controls', async (t) => {
    const { sb, api } = await setup(t);
    const o = await sb.createOrder();
    const big = Buffer.alloc(17 * 1024 * 1024, 0x20);
    for (const [method, path] of [['POST', `/api/v1/Orders/${o.orderKey}/accept`], ['POST', '/_sandbox/orders'], ['PUT', '/_sandbox/faults']]) {
      const a = await sendBody(sb.url, method, path, {
        headers: { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
        body: big,
      });
      assert.equal(a.status, 413, `${method} ${path}`);
      assert.equal(a.headers.connection, 'close');
      assert.equal(a.closed, true, `${method} ${path}: the server closed the connection`);
      checkHostile('17 MB', method, path, { status: a.status, headers: a.headers, body: a.text });
    }
    assert.equal((await api.accept(o.orderKey)).status, 202, 'still answering');
    assert.equal(sb.orders().length, 1);
  });

  test('weird methods, paths and headers: each a JSON answer, never a hang; then it still answers', async (t) => {
    const { sb, api } = await setup(t);
    const port = Number(new URL(sb.url).port);
    const o = await sb.createOrder();
    const key = `X-Service-Api-Key: ${sb.apiKey}`;
    const cases = [
      ['GET', '/api/v1/Orders/%00', [key]],
      ['GET', '/api/v1/Orders/%ZZ', [key]],
      ['GET', `/api/v1/Orders/${o.orderKey}%2F..%2F..`, [key]],
      ['GET', `/api/v1/Orders/ord_${'x'.repeat(60 * 1024)}`, [key]],
      ['GET', `/_sandbox/orders/${'x'.repeat(60 * 1024)}`, []],
      ['GET', '//', [key]],
      ['GET', '///api/v1/Orders', [key]],
      ['GET', '/_sandboxx', [key]],
      ['GET', '/_sandboxx/orders', []],
      ['GET', '/_sandbox/orders/%ZZ', []],
      ['GET', '/_sandbox/orders/%00', []],
      ['GET', '/_sandbox/nothing/here', []],
      ['DELETE', '/_sandbox/orders', []],
      ['GET', '/_sandbox/../api/v1/Orders', []],
      ['GET', '/api/v1/orders', [key]],
      ['GET', '/api/v2/Orders', [key]],
      ['DELETE', `/api/v1/Orders/${o.orderKey}`, [key]],
      ['PATCH', `/api/v1/Orders/${o.orderKey}/accept`, [key, 'X-Service-Schema-Version: 1.0', `Idempotency-Key: ${randomUUID()}`, 'Content-Type: application/json']],
      ['OPTIONS', '/api/v1/Orders', [key]],
      ['PROPFIND', '/api/v1/Orders', [key]],
      ['FOO', '/api/v1/Orders', [key]],
      ['GET', '/api/v1/Orders?PageSize=-1&PageSize=1e9&Status=DriverAssigned', [key]],
      ['GET', `/api/v1/Orders?Cursor=${'z'.repeat(5000)}`, [key]],
      ['GET', '/api/v1/Orders', ['Bad Header: x', key]],
      ['GET', '/api/v1/Orders', ['X-Service-Api-Key: a\u0001b']],
      ['GET', '/api/v1/Orders', ['X-Service-Api-Key: \u00ff\u00fe']],
      ['GET', '/api/v1/Orders', [key, 'X-Service-Api-Key: another']],
      ['GET', '/api/v1/Orders', [key, ...Array.from({ length: 3000 }, (_, i) => `X-Pad-${i}: ${'p'.repeat(20)}`)]],
      ['POST', `/api/v1/Orders/${o.orderKey}/accept`, [key, 'X-Service-Schema-Version: 9.9', `Idempotency-Key: ${randomUUID()}`, 'Content-Type: application/json', 'Content-Length: 2'], '{}'],
      ['POST', `/api/v1/Orders/${o.orderKey}/accept`, [key, 'Content-Length: abc'], ''],
      ['POST', `/api/v1/Orders/${o.orderKey}/accept`, [key, 'Content-Length: 2', 'Transfer-Encoding: chunked'], '{}'],
      ['POST', '/_sandbox/orders', ['Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'],
    ];
    for (const [method, path, head, body] of cases) {
      const bytes = body === undefined
        ? rawHttp(method, path, { head })
        : Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${head.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`, 'latin1');
      const a = await rawRequest(port, bytes);
      checkHostile('weird', method, path, a);
    }
    // fetch() itself, with an AbortSignal, on a few of them.
    for (const path of ['/api/v1/Orders/%00', '//', '/_sandboxx', '/_sandbox/orders/%ZZ']) {
      const res = await fetch(sb.url + path, { headers: { 'X-Service-Api-Key': sb.apiKey }, signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
      const text = await res.text();
      checkHostile('fetch', 'GET', path, { status: res.status, headers: Object.fromEntries(res.headers), body: text });
    }
    const detail = await api.detail(o.orderKey);
    assert.equal(detail.status, 200, 'still answering');
    assert.equal(detail.data.status, 'Pending', 'no hostile request changed the order');
    // Not hostile, only off the contract's letter: a key that is not a UUID v4 and a text/plain
    // Content-Type. The contract shows no failure for either; the sandbox answers what the
    // toolkit's validateRequest predicts (202, with warnings).
    const odd = { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': 'not-a-uuid', 'Content-Type': 'text/plain' };
    const predicted = pkg.validateRequest({ method: 'POST', path: `/api/v1/Orders/${o.orderKey}/accept`, headers: odd, body: '{}', now: sb.now() });
    const oddAnswer = await api.accept(o.orderKey, { headers: odd });
    assert.equal(oddAnswer.status, predicted.status);
    assert.deepEqual(predicted.report.diagnostics.map((d) => d.ruleId).sort(), ['request/content-type', 'request/idempotency-key-format']);
    const again = await sb.createOrder();
    assert.equal(again.remoteOrderId, 'POS-2', 'deliveries still go out');
    checkSandboxLogs(sb);
  });
});

// ---- 5. the command line: `poscheck sandbox` --------------------------------------------------------

const CLI = join(root, 'pkg', 'bin', 'poscheck.js');

/** Starts `poscheck sandbox …`; resolves once its banner is read: { child, url, apiKey, secret, out() }. */
/** The command of a face's `poscheck` (the native binary: `make build` builds it; missing, the test fails). */
const NATIVE = process.env.POSCHECK_NATIVE_BIN ?? join(root, 'target', 'debug', 'poscheck');
const command = (face, args) => (face === 'native' ? [NATIVE, args] : [process.execPath, [CLI, ...args]]);

async function startCli(t, args, face = 'npm') {
  const child = spawn(...command(face, ['sandbox', ...args]), { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  t.after(() => stopChild(child));
  const m = await readUntil(child, /REST base\s+(\S+)\/api\/v1\/\n\s+client 1 API key\s+(\S+)\n[\s\S]*?HMAC secret\s+(\S+)\n[\s\S]*?assumed where the contract shows nothing: .*\n/, 'banner');
  return { child, url: m[1], apiKey: m[2], secret: m[3], out: () => out, err: () => err };
}

/** A fetch to the CLI's controls (JSON in, JSON out). */
async function control(url, method, path, body) {
  const res = await fetch(url + path, { method, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

// Both faces' command lines: the npm package's and the native binary's, the same flags and answers.
for (const face of ['npm', 'native']) describe(`the CLI (${face}): poscheck sandbox`, () => {
  test('banner, controls over HTTP, the live log of REST calls and deliveries, SIGTERM exits 0', async (t) => {
    const pos = await startKitPos(t);
    const cli = await startCli(t, ['--port', '0', '--seed', '1', '--clock', 'manual', '--pos', pos.url], face);
    assert.match(cli.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(cli.url).port, '0');
    // The banner names the console (issue 42), served at the sandbox's root.
    assert.ok(cli.out().includes(`console        ${cli.url}/ `), cli.out());
    const page = await fetch(`${cli.url}/`, { signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
    assert.equal((await page.text()).includes('<script type="module" src="console.js">'), true);
    pos.attach(cli.secret);
    const sb = { url: cli.url, apiKey: cli.apiKey };
    const api = restClient(sb);

    const info = await control(cli.url, 'GET', '/_sandbox/');
    assert.equal(info.status, 200);
    assert.equal(info.json.apiKey, cli.apiKey);
    assert.equal(info.json.secret, cli.secret);
    assert.equal(info.json.clock, 'manual');

    const created = await control(cli.url, 'POST', '/_sandbox/orders', { store: 'STORE-1' });
    assert.equal(created.status, 200);
    const key = created.json.orderKey;
    checkOrderDetail(created.json, 'POST /_sandbox/orders');
    assert.equal(created.json.remoteOrderId, 'POS-1', 'the creation webhook reached the POS');
    assert.equal(pos.created[0].orderKey, key);

    assert.equal((await api.accept(key)).status, 202);
    const late = await control(cli.url, 'POST', '/_sandbox/orders', {});
    const before = (await control(cli.url, 'GET', '/_sandbox/')).json.now;
    const advanced = await control(cli.url, 'POST', '/_sandbox/advance', { seconds: 301 });
    assert.equal(advanced.status, 200);
    assert.equal(advanced.json.now, before + 301);
    assert.equal((await api.detail(late.json.orderKey)).data.status, 'Cancelled', 'the timeout fired on advance');
    assert.equal((await api.detail(key)).data.status, 'Preparing');
    assert.deepEqual(pos.events(late.json.orderKey), ['cancelled']);

    const deliveries = (await control(cli.url, 'GET', '/_sandbox/deliveries')).json;
    assert.equal(deliveries.length, 3);
    for (const d of deliveries) {
      pkg.verifyWebhook({ body: d.body, headers: d.headers, secret: cli.secret });
      const report = pkg.validatePayload(d.body, { path: new URL(d.url).pathname });
      assert.ok(report.ok, JSON.stringify(report.diagnostics));
    }
    const requests = (await control(cli.url, 'GET', '/_sandbox/requests')).json;
    for (const r of requests) checkAnswer({ method: r.method, path: r.path, status: r.status, headers: {}, text: r.answer });
    assert.ok(requests.some((r) => r.path === `/api/v1/Orders/${key}/accept` && r.status === 202));

    // The live log: the REST call and the deliveries, one line each.
    const creation = deliveries[0];
    await until(() => cli.out().includes(`← POST /api/v1/Orders/${key}/accept 202`), 'the REST call in the log');
    await until(() => cli.out().includes(`→ POST ${pos.url}/v1/order/STORE-1 #1 orderCreated ${creation.deliveryId}: HTTP 200`), 'the creation delivery in the log');
    await until(() => new RegExp(`→ PUT ${pos.url}/v1/order/STORE-1/POS-2/events #1 orderUpdate \\S+: HTTP 200`).test(cli.out()), 'the cancelled update in the log');
    assert.match(cli.out(), /^\d\d:\d\d:\d\d\.\d{3} • createOrder: /m, 'each line is time-stamped');

    const { code, signal } = await stopChild(cli.child, 'SIGTERM');
    assert.equal(signal, null);
    assert.equal(code, 0, cli.err());
    assert.equal(cli.err(), '');
  });

  test('--state FILE: stop and start again with the same file, the order is still there', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'poscheck-sandbox-state-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'state.json');
    const pos = await startKitPos(t);
    const args = ['--port', '0', '--seed', '1', '--clock', 'manual', '--pos', pos.url, '--state', file];
    const first = await startCli(t, args, face);
    pos.attach(first.secret);
    const created = await control(first.url, 'POST', '/_sandbox/orders', {});
    const key = created.json.orderKey;
    const api1 = restClient({ url: first.url, apiKey: first.apiKey });
    assert.equal((await api1.accept(key)).status, 202);
    const stopped = await stopChild(first.child, 'SIGTERM');
    assert.equal(stopped.code, 0, first.err());
    assert.ok(existsSync(file), 'the state was written on exit');

    const second = await startCli(t, args, face);
    assert.equal(second.apiKey, first.apiKey, 'the account comes from the state');
    assert.equal(second.secret, first.secret);
    const again = await control(second.url, 'GET', `/_sandbox/orders/${key}`);
    assert.equal(again.status, 200);
    assert.equal(again.json.status, 'Preparing');
    assert.equal(again.json.remoteOrderId, 'POS-1');
    const api2 = restClient({ url: second.url, apiKey: second.apiKey });
    const detail = await api2.detail(key);
    assert.equal(detail.data.orderKey, key);
    assert.equal(detail.data.status, 'Preparing');
    assert.equal((await api2.accept(key)).status, 409, 'already accepted before the restart');
    assert.equal((await api2.status(key, 'ready')).status, 202, 'the lifecycle goes on');
    const list = await api2.get('/api/v1/Orders');
    assert.deepEqual(list.data.items.map((i) => i.orderKey), [key]);
    assert.equal((await stopChild(second.child, 'SIGTERM')).code, 0, second.err());
  });

  test('--config, --options and --host: the account, the assumptions and the address given', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'poscheck-sandbox-config-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, 'config.json');
    const options = join(dir, 'options.json');
    writeFileSync(config, JSON.stringify({ secret: 'whsec_cli_test', clients: [{ apiKey: 'key-cli-1', stores: [{ remoteId: 'CLI-STORE', storeId: 77, autoAccept: false }] }] }));
    writeFileSync(options, JSON.stringify({ acceptanceWindowSeconds: 120, retryScheduleSeconds: [5], menuChangeDelaySeconds: 1 }));
    const menu = join(dir, 'menu.json');
    writeFileSync(menu, JSON.stringify({ categories: [{ remoteCode: 'C', name: 'Drinks', position: 0, products: [
      { remoteCode: 'TEA', name: 'Tea', description: null, price: 2.5, tax: 0.18, maxPerOrder: 5, image: 'https://cdn.example.com/tea.png', modifierGroups: [] },
    ] }] }));
    const pos = await startKitPos(t);
    const cli = await startCli(t, ['--port', '0', '--host', '127.0.0.1', '--clock', 'manual', '--pos', pos.url, '--config', config, '--options', options, '--menu', menu], face);
    await until(() => /menu seeded from .*menu\.json: \{"created":2,/.test(cli.out()), 'the --menu file seeded the catalog');
    const storeMenu = (await control(cli.url, 'GET', '/_sandbox/menu/stores/CLI-STORE')).json;
    assert.deepEqual(storeMenu.categories[0].products.map((p) => p.remoteCode), ['TEA']);
    assert.equal(cli.apiKey, 'key-cli-1');
    assert.equal(cli.secret, 'whsec_cli_test');
    assert.match(cli.out(), /stores: CLI-STORE \(storeId 77, brandId \d+\)/);
    pos.attach(cli.secret);
    const info = (await control(cli.url, 'GET', '/_sandbox/')).json;
    assert.equal(info.assumptions.acceptanceWindowSeconds, 120);
    assert.equal(info.assumptions.menuChangeDelaySeconds, 1);
    assert.deepEqual(info.assumptions.retryScheduleSeconds, [5]);
    const created = (await control(cli.url, 'POST', '/_sandbox/orders', { store: 'CLI-STORE' })).json;
    assert.equal(created.storeId, 77);
    assert.equal(Date.parse(created.order.expiresAt) - Date.parse(created.receivedAt), 120_000, 'the acceptance window given');
    assert.equal((await control(cli.url, 'POST', '/_sandbox/orders', { store: 'STORE-1' })).status, 404, 'the default stores are gone');
    // A file that is not JSON, and an option the sandbox does not know: exit 2, with the reason.
    writeFileSync(options, '{ not json');
    for (const [args, message] of [
      [['--options', options], /the options file .* is not JSON/],
      [['--config', join(dir, 'missing.json')], /cannot read/],
      [['--menu', config], /--menu .*: the menu does not pass the linter/],
    ]) {
      const child = spawn(...command(face, ['sandbox', '--port', '0', ...args]), { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const [code] = await once(child, 'exit');
      assert.equal(code, 2, err);
      assert.match(err, message);
    }
  });

  test('--port 99999 exits 2 with a message', async () => {
    const child = spawn(...command(face, ['sandbox', '--port', '99999']), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), NET_TIMEOUT_MS);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    assert.equal(code, 2);
    assert.match(err, /invalid value '99999' for '--port'/);
    assert.equal(out, '');
  });
});

