// The sandbox on its default, real clock (every other suite uses the manual one): the timer rule of
// design.md — after every call into the model, the face arms its timer for the model's next due
// time — seen from a POS. No test here calls a control after the call that made the timer due: a
// face that arms its timer only after some calls (a control, a delivery's answer) leaves the work
// pending, and the test fails.
//
// 1. a menu change written through the REST API completes, and its webhook reaches the POS;
// 2. a delivery that failed (the POS answered 500) is retried on schedule;
// 3. an order the POS never accepts is cancelled by the system at expiresAt, and the POS hears it.
//
// Each runs against both faces (issue 43): the npm face in this process (createSandbox), the native
// binary's `poscheck sandbox` in its own (sandbox-process.mjs), with the same assertions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { checkSandboxLogs, createSandbox, pkg, restClient, startKitPos, until } from './sandbox-kit.mjs';
import { FACES, logsOf, startSandboxProcess } from './sandbox-process.mjs';

const MENU = {
  categories: [{ remoteCode: 'BURGERS', name: 'Burgers', position: 0, products: [
    { remoteCode: 'BURGER-1', name: 'Burger', description: 'Made to order', price: 9, tax: 0.18, maxPerOrder: 10, image: 'https://cdn.example.com/b1.png', modifierGroups: [] },
  ] }],
};
const OFF = { stores: ['STORE-1'], items: [{ targetEntity: 'product', targetCode: 'BURGER-1', available: false }] };
/** Seconds of slack on a timer of the real clock (a loaded 2-core machine). */
const SLACK_MS = 4000;

/** A sandbox of `face`: the npm face in this process, the native one in its own. */
const sandboxOf = (face, options) => (face === 'npm' ? createSandbox(options) : startSandboxProcess(options, { face }));

for (const face of FACES) {
  test(`${face}: real clock: a menu change written through REST completes and its webhook arrives, with no control call`, async (t) => {
    const pos = await startKitPos(t);
    const sb = await sandboxOf(face, { seed: 39, pos: pos.url, menuChangeDelaySeconds: 1 });
    t.after(() => sb.close());
    assert.equal(sb.clock, 'real');
    pos.attach(sb.secret);
    const api = restClient(sb);
    assert.equal((await api.call('PUT', '/api/v1/menu', { body: MENU })).status, 200);
    const sent = Date.now();
    const off = await api.call('PUT', '/api/v1/menu/availability', { body: OFF });
    assert.equal(off.status, 202);
    const changeId = off.data.changeId;

    // Only waiting here: no control, no other call into the sandbox.
    await until(() => pos.menuChanges.length === 1, 'the menu change webhook', 1000 + SLACK_MS);
    const waited = Date.now() - sent;
    assert.ok(waited >= 900, `the change completed after ${waited} ms, before its 1 s delay`);
    assert.equal(pos.menuChanges[0].changeKey, changeId);

    const change = (await api.get(`/api/v1/menu/changes/${changeId}`)).data;
    assert.equal(change.status, 'Applied');
    assert.notEqual(change.completedAt, null);
    assert.ok(Date.parse(change.completedAt) >= Date.parse(change.submittedAt), 'completedAt is not before submittedAt');
    assert.equal(pkg.validatePayload(JSON.stringify(change), { kind: 'menuChange' }).ok, true);
    checkSandboxLogs(await logsOf(sb));
  });

  test(`${face}: real clock: a failed delivery is retried on schedule (the POS answers 500 to the first attempt)`, async (t) => {
    // A POS that refuses the first menu change webhook with 500 and accepts the next: it verifies
    // every attempt with the toolkit and notes when each came.
    const attempts = [];
    let secret = '';
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        let valid = true;
        try {
          pkg.verifyWebhook({ secret, headers: req.headers, body });
        } catch {
          valid = false;
        }
        attempts.push({ at: Date.now(), url: req.url, deliveryId: req.headers['x-service-delivery-id'], valid });
        const fail = attempts.length === 1;
        res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
        res.end(fail ? '{"error":"try again"}' : '{}');
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }));
    const sb = await sandboxOf(face, { seed: 39, pos: `http://127.0.0.1:${server.address().port}`, menuChangeDelaySeconds: 1, retryScheduleSeconds: [1] });
    t.after(() => sb.close());
    secret = sb.secret;
    const api = restClient(sb);
    assert.equal((await api.call('PUT', '/api/v1/menu', { body: MENU })).status, 200);
    assert.equal((await api.call('PUT', '/api/v1/menu/availability', { body: OFF })).status, 202);

    await until(() => attempts.length >= 2, 'the retry of the menu change webhook', 2000 + 2 * SLACK_MS);
    const [first, second] = attempts;
    assert.equal(second.deliveryId, first.deliveryId, 'a retry carries the same X-Service-Delivery-Id');
    assert.match(first.url, /^\/v1\/menu\/change\/chg_/);
    const gap = second.at - first.at;
    assert.ok(gap >= 900, `the retry came ${gap} ms after the failure, before the 1 s the schedule says`);
    assert.ok(attempts.every((a) => a.valid), 'every attempt is signed');
    // The sandbox logs an attempt once its answer is read, a moment after the POS wrote it.
    const log = await until(async () => {
      const mine = (await sb.deliveries()).filter((d) => d.deliveryId === first.deliveryId);
      return mine.length === 2 && mine;
    }, 'the log of both attempts');
    assert.deepEqual(log.map((d) => d.status), [500, 200]);
  });

  test(`${face}: real clock: an order the POS never accepts is cancelled at expiresAt, and the POS hears it`, async (t) => {
    const pos = await startKitPos(t);
    const sb = await sandboxOf(face, { seed: 39, pos: pos.url, acceptanceWindowSeconds: 2 });
    t.after(() => sb.close());
    pos.attach(sb.secret);
    const created = await sb.createOrder({ autoAccept: false });
    const { orderKey } = created;
    const api = restClient(sb);
    // Read from the creation's detail: on a loaded host the window may already have passed by the
    // time a REST read comes back.
    const expiresAt = Date.parse(created.order.expiresAt);
    assert.ok(expiresAt > Date.parse(created.receivedAt), 'an acceptance window');

    await until(() => pos.events(orderKey).includes('cancelled'), 'the cancelled update webhook', 2000 + SLACK_MS);
    assert.ok(Date.now() >= expiresAt, 'cancelled before expiresAt');
    const detail = (await api.detail(orderKey)).data;
    assert.equal(detail.status, 'Cancelled');
    assert.equal(detail.history.at(-1).actorType, 'system');
    assert.ok(Date.parse(detail.cancelledAt) >= expiresAt, 'cancelledAt is not before expiresAt');
    checkSandboxLogs(await logsOf(sb));
  });
}
