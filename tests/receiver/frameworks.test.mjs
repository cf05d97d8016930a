// Ring 3: the receiver kit on real servers on 127.0.0.1, one suite per framework (node:http,
// Express 4, Express 5, Fastify 5, a Fetch handler served by Node's own server), with the
// signature vectors of tests/fixtures/signature (Python hmac) and the payload fixtures.
import test, { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { FRAMEWORKS, NOW, SECRET, deliveryHeaders, fixture, gate, needsBasePath, pkg, send, serve, vectors } from './helpers.mjs';

const createdBody = fixture('payload', 'order-created.delivery.valid.json');
const pickupBody = fixture('payload', 'order-created.pickup.valid.json');
const deliveredBody = fixture('payload', 'order-update-event.delivered.valid.json');
const cancelledBody = fixture('payload', 'order-update-event.cancelled.valid.json');
const unknownEventBody = fixture('payload', 'order-update-unknown-event.json');
const brokenUpdateBody = fixture('payload', 'order-update-field-missing-for-event.broken.json');
const menuBody = fixture('payload', 'menu-change-completed.valid.json');
const brokenCreatedBody = fixture('payload', 'order-items-field-type.broken.json');
const changeKey = JSON.parse(menuBody).changeKey;
const CREATED = '/v1/order/STORE-1';
const EVENTS = '/v1/order/STORE-1/R-PATH-7/events';

/** Receivers keep what reached them, per mount. */
function recorder() {
  const calls = [];
  const invalid = [];
  const errors = [];
  let n = 0;
  return {
    calls,
    invalid,
    errors,
    options: {
      onOrderCreated: async (ctx) => {
        calls.push({ route: 'orderCreated', ctx });
        n += 1;
        return `POS-${n}`;
      },
      onOrderUpdate: async (ctx) => {
        calls.push({ route: 'orderUpdate', ctx });
      },
      onMenuChangeCompleted: async (ctx) => {
        calls.push({ route: 'menuChangeCompleted', ctx });
      },
      onInvalid: (info) => {
        invalid.push(info);
      },
      onError: (err, info) => {
        errors.push({ err, info });
      },
    },
    reset() {
      calls.length = 0;
      invalid.length = 0;
      errors.length = 0;
    },
  };
}

// The vectors' secrets and tolerances, one receiver per combination. Configurations without a
// usable secret are refused by createReceiver itself (tested below).
// Over HTTP: a header value with a line feed cannot be sent (Node refuses it, as servers do).
const sendable = (c) => Object.values(c.headers).every((v) => !/[\r\n]/.test(v));
const usable = vectors.verify.filter((c) => c.secrets.length > 0 && c.secrets.every((s) => s.length > 0) && sendable(c));
const groups = new Map();
for (const c of usable) {
  const key = JSON.stringify([c.secrets, c.toleranceSeconds ?? 300, c.now]);
  if (!groups.has(key)) groups.set(key, { prefix: `/vec${groups.size}`, secrets: c.secrets, tolerance: c.toleranceSeconds ?? 300, now: c.now, cases: [] });
  groups.get(key).cases.push(c);
}

for (const framework of FRAMEWORKS) {
  describe(`receiver on ${framework}`, () => {
    const main = recorder();
    const slow = recorder();
    const held = { gate: gate(), entered: gate(), pendingSeen: gate(), mode: 'ok' };
    const vec = new Map();
    let server;
    const base = (prefix) => (needsBasePath(framework) ? prefix : '');

    before(async () => {
      const mounts = [];
      for (const g of groups.values()) {
        const r = recorder();
        vec.set(g.prefix, r);
        mounts.push([g.prefix, pkg.createReceiver({ secret: g.secrets, toleranceSeconds: g.tolerance, now: () => g.now, basePath: base(g.prefix), ...r.options })]);
      }
      // A store that says when an attempt found the delivery pending (a concurrent duplicate).
      const memory = pkg.createMemoryStore();
      const watched = {
        claim: async (...a) => {
          const c = await memory.claim(...a);
          if (c.state === 'pending') held.pendingSeen.open();
          return c;
        },
        complete: (...a) => memory.complete(...a),
        release: (...a) => memory.release(...a),
      };
      mounts.push([
        '/slow',
        pkg.createReceiver({
          secret: SECRET,
          now: NOW,
          timeoutMs: 200,
          duplicateWaitMs: 60_000,
          basePath: base('/slow'),
          store: watched,
          onError: slow.options.onError,
          onOrderCreated: async (ctx) => {
            slow.calls.push({ route: 'orderCreated', ctx });
            held.entered.open();
            await held.gate.promise;
            if (held.mode === 'throw') throw new Error('POS database unavailable');
            if (held.mode === 'empty') return '';
            return `SLOW-${slow.calls.length}`;
          },
        }),
      ]);
      mounts.push(['', pkg.createReceiver({ secret: SECRET, now: () => NOW, ...main.options })]);
      server = await serve(framework, mounts);
    });
    after(() => server.close());

    test('signature vectors (Python hmac): valid ones answered 200, every failure 401 with its code, nothing reaches a handler', { timeout: 60_000 }, async () => {
      let checked = 0;
      for (const g of groups.values()) {
        const r = vec.get(g.prefix);
        for (const c of g.cases) {
          r.reset();
          const body = Buffer.from(c.bodyBase64, 'base64');
          // The delivery id is not signed: each case gets its own, so that none replays another.
          const headers = Object.fromEntries(
            Object.entries(c.headers).map(([k, v]) => [k, k.toLowerCase() === 'x-service-delivery-id' ? randomUUID() : v]),
          );
          const res = await send(server.url, 'PUT', `${g.prefix}/v1/order/STORE-1/R-1001/events`, { headers, body });
          if (c.expect === 'valid') {
            assert.equal(res.status, 200, `${c.name}: ${res.text}`);
            // A valid signature on a body that is no OrderUpdateEvent still gets its 200 (onInvalid).
            assert.equal(r.calls.length + r.invalid.length, 1, c.name);
          } else {
            assert.equal(res.status, 401, c.name);
            assert.equal(res.json.error, c.expect, c.name);
            assert.equal(typeof res.json.message, 'string');
            for (const s of c.secrets) assert.ok(!res.text.includes(s), `${c.name}: the answer leaks the secret`);
            assert.equal(r.calls.length + r.invalid.length, 0, `${c.name}: something was called`);
          }
          checked += 1;
        }
      }
      assert.ok(checked >= 24, `only ${checked} vectors`);
      const valid = vec.get(groups.get(JSON.stringify([[vectors.verify[0].secrets[0]], 300, NOW])).prefix);
      assert.ok(valid);
    });

    test('order.created: the handler gets the validated payload and remoteId; the answer is its remoteOrderId', { timeout: 60_000 }, async () => {
      main.reset();
      for (const body of [createdBody, pickupBody]) {
        const res = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(body, { eventType: 'order.created' }), body });
        assert.equal(res.status, 200, res.text);
        assert.match(res.json.remoteOrderId, /^POS-\d+$/);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      }
      assert.equal(main.calls.length, 2);
      const { ctx } = main.calls[0];
      assert.equal(main.calls[0].route, 'orderCreated');
      assert.deepEqual(ctx.payload, JSON.parse(createdBody));
      assert.equal(ctx.remoteId, 'STORE-1');
      assert.equal(ctx.delivery.eventType, 'order.created');
      assert.equal(ctx.delivery.timestamp, NOW);
      assert.match(ctx.delivery.id, /^[0-9a-f-]{36}$/);
      assert.equal(ctx.report.ok, true);
      assert.equal(ctx.report.kind, 'orderCreated');
      assert.ok(ctx.signal instanceof AbortSignal);
      assert.deepEqual(main.errors, []);
    });

    test('a retried delivery gets the first answer without a second call; two deliveries without an id create two orders', { timeout: 60_000 }, async () => {
      main.reset();
      const id = randomUUID();
      const first = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody });
      const retry = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { deliveryId: id, timestamp: NOW + 60 }), body: createdBody });
      assert.equal(first.status, 200);
      assert.equal(retry.status, 200);
      assert.equal(retry.json.remoteOrderId, first.json.remoteOrderId);
      assert.equal(main.calls.length, 1);

      main.reset();
      const a = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { deliveryId: null }), body: createdBody });
      const b = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(pickupBody, { deliveryId: null }), body: pickupBody });
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.notEqual(a.json.remoteOrderId, b.json.remoteOrderId, 'order 2 answered with order 1 id');
      assert.equal(main.calls.length, 2);
      assert.equal(main.calls[1].ctx.delivery.id, null);
    });

    test('update webhooks: the path remoteOrderId is authoritative; unknown events and broken payloads get 200 and go to onInvalid only', { timeout: 60_000 }, async () => {
      main.reset();
      for (const body of [deliveredBody, cancelledBody]) {
        const res = await send(server.url, 'PUT', EVENTS, { headers: deliveryHeaders(body), body });
        assert.equal(res.status, 200, res.text);
      }
      assert.equal(main.calls.length, 2);
      const { ctx } = main.calls[0];
      assert.equal(ctx.remoteOrderId, 'R-PATH-7');
      assert.notEqual(ctx.payload.remoteOrderId, 'R-PATH-7');
      assert.equal(ctx.remoteId, 'STORE-1');
      assert.ok(ctx.report.diagnostics.some((d) => d.ruleId === 'order-update/remote-order-id-path'));

      main.reset();
      for (const [body, reason] of [
        [unknownEventBody, 'unknown-event'],
        [brokenUpdateBody, 'invalid-payload'],
        [Buffer.from('this is not JSON'), 'invalid-payload'],
      ]) {
        const res = await send(server.url, 'PUT', EVENTS, { headers: deliveryHeaders(body), body });
        assert.equal(res.status, 200, res.text);
        const last = main.invalid.at(-1);
        assert.equal(last.reason, reason);
        assert.equal(last.route, 'orderUpdate');
        assert.equal(last.remoteOrderId, 'R-PATH-7');
      }
      assert.equal(main.invalid.length, 3);
      assert.equal(main.calls.length, 0, 'a broken or unknown event reached the handler');
    });

    test('menu change: 200 to the handler when the changeKey equals the path, onInvalid when it does not', { timeout: 60_000 }, async () => {
      main.reset();
      const ok = await send(server.url, 'POST', `/v1/menu/change/${changeKey}`, { headers: deliveryHeaders(menuBody), body: menuBody });
      assert.equal(ok.status, 200);
      assert.equal(main.calls.length, 1);
      assert.equal(main.calls[0].ctx.changeKey, changeKey);
      const other = await send(server.url, 'POST', '/v1/menu/change/chg_ZZZZZZZZZZZZZZZZ', { headers: deliveryHeaders(menuBody), body: menuBody });
      assert.equal(other.status, 200);
      assert.equal(main.calls.length, 1);
      assert.equal(main.invalid.length, 1);
      assert.ok(main.invalid[0].report.diagnostics.some((d) => d.ruleId === 'menu-change/change-key-path'));
    });

    test('tampered, replayed, future and unsigned deliveries: 401 with the stable code, no handler', { timeout: 60_000 }, async () => {
      main.reset();
      const h = deliveryHeaders(createdBody);
      const tampered = Buffer.from(createdBody.toString('utf8').replace('A-1042', 'A-1043'));
      assert.notDeepEqual(tampered, createdBody);
      const cases = [
        [tampered, h, 'SIGNATURE_MISMATCH'],
        [createdBody, deliveryHeaders(createdBody, { timestamp: NOW - 301 }), 'TIMESTAMP_TOO_OLD'],
        [createdBody, deliveryHeaders(createdBody, { timestamp: NOW + 301 }), 'TIMESTAMP_IN_FUTURE'],
        [createdBody, { 'Content-Type': 'application/json' }, 'MISSING_TIMESTAMP'],
        [createdBody, { 'X-Service-Timestamp': String(NOW) }, 'MISSING_SIGNATURE'],
        [createdBody, deliveryHeaders(createdBody, { secret: 'another-secret' }), 'SIGNATURE_MISMATCH'],
      ];
      for (const [body, headers, code] of cases) {
        const res = await send(server.url, 'POST', CREATED, { headers, body });
        assert.equal(res.status, 401, code);
        assert.equal(res.json.error, code);
      }
      // The same delivery, replayed after the window, is rejected even though its id was handled.
      const id = randomUUID();
      assert.equal((await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody })).status, 200);
      const replay = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { deliveryId: id, timestamp: NOW - 3600 }), body: createdBody });
      assert.equal(replay.status, 401);
      assert.equal(main.calls.length, 1);
      assert.equal(main.invalid.length, 0);
    });

    test('verified by bytes whatever the Content-Type (text/plain, none); empty and non-JSON bodies', { timeout: 60_000 }, async () => {
      main.reset();
      for (const contentType of ['text/plain', 'application/octet-stream', null]) {
        const res = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { contentType }), body: createdBody });
        assert.equal(res.status, 200, `${contentType}: ${res.text}`);
      }
      assert.equal(main.calls.length, 3);
      main.reset();
      const empty = Buffer.alloc(0);
      const onCreate = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(empty), body: empty });
      assert.equal(onCreate.status, 422, 'an empty creation body cannot give an order');
      assert.equal(onCreate.json.error, 'INVALID_PAYLOAD');
      const onUpdate = await send(server.url, 'PUT', EVENTS, { headers: deliveryHeaders(empty, { contentType: null }), body: empty });
      assert.equal(onUpdate.status, 200);
      const broken = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(brokenCreatedBody), body: brokenCreatedBody });
      assert.equal(broken.status, 422);
      assert.equal(main.calls.length, 0);
      assert.deepEqual(main.invalid.map((i) => i.reason), ['invalid-payload', 'invalid-payload', 'invalid-payload']);
      // An empty body with a bad signature is still a 401.
      const bad = await send(server.url, 'PUT', EVENTS, { headers: deliveryHeaders(Buffer.from('x')), body: empty });
      assert.equal(bad.status, 401);
    });

    test('bodies above the limit: 413 without buffering, declared (Content-Length) or streamed (chunked)', { timeout: 60_000 }, async () => {
      main.reset();
      const big = Buffer.alloc(1024 * 1024 + 1, 0x20);
      const declared = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(big), body: big });
      assert.equal(declared.status, 413);
      assert.equal(declared.json.error, 'PAYLOAD_TOO_LARGE');
      const streamed = await send(server.url, 'POST', CREATED, { headers: deliveryHeaders(big), body: big, chunked: true });
      assert.equal(streamed.status, 413);
      assert.equal(main.calls.length + main.invalid.length, 0);
      // Exactly at the limit is read and verified (the 1 MB vector above is 1,048,576 bytes too).
      const atLimit = Buffer.alloc(1024 * 1024, 0x20);
      const ok = await send(server.url, 'PUT', EVENTS, { headers: deliveryHeaders(atLimit), body: atLimit });
      assert.equal(ok.status, 200);
    });

    test('unknown methods get 405 with Allow; unknown paths 404 (or the app, for frameworks with other routes)', { timeout: 60_000 }, async () => {
      const get = await send(server.url, 'GET', CREATED);
      assert.equal(get.status, 405);
      assert.equal(get.headers.allow, 'POST');
      const post = await send(server.url, 'POST', EVENTS, { body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'PUT');
      const old = await send(server.url, 'PUT', '/v1/order/STORE-1/R-1/status', { body: '{}' });
      assert.equal(old.status, 404);
      const unknown = await send(server.url, 'POST', '/nothing/here', { body: '{}' });
      assert.equal(unknown.status, 404);
      // The app's own JSON route still parses JSON: the receiver's raw parser stays in its scope.
      const other = await send(server.url, 'POST', '/other', { headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      assert.equal(other.status, 200);
      if (framework !== 'node:http') assert.deepEqual(other.json.body, { a: 1 });
    });

    test('two attempts of one delivery at the same time: one handler call, both get its answer', { timeout: 60_000 }, async () => {
      slow.reset();
      held.mode = 'ok';
      held.gate = gate();
      held.entered = gate();
      held.pendingSeen = gate();
      const id = randomUUID();
      // timeoutMs is 200 on this mount: the first attempt times out (503) while the handler is held.
      const first = send(server.url, 'POST', `/slow${CREATED}`, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody });
      await held.entered.promise;
      const second = send(server.url, 'POST', `/slow${CREATED}`, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody });
      await held.pendingSeen.promise;
      const a = await first;
      assert.equal(a.status, 503);
      assert.equal(a.json.error, 'HANDLER_TIMEOUT');
      held.gate.open();
      const b = await second;
      assert.equal(b.status, 200, b.text);
      assert.equal(b.json.remoteOrderId, 'SLOW-1');
      const retry = await send(server.url, 'POST', `/slow${CREATED}`, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody });
      assert.equal(retry.json.remoteOrderId, 'SLOW-1');
      assert.equal(slow.calls.length, 1, 'the handler ran twice for one delivery');
    });

    test('a failed handler (throws, returns no id) is not answered 200 and its retry runs it again', { timeout: 60_000 }, async () => {
      for (const mode of ['throw', 'empty']) {
        slow.reset();
        held.mode = mode;
        held.gate = gate();
        held.gate.open();
        const id = randomUUID();
        const a = await send(server.url, 'POST', `/slow${CREATED}`, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody });
        assert.equal(a.status, 500, mode);
        assert.equal(a.json.error, mode === 'throw' ? 'HANDLER_FAILED' : 'NO_REMOTE_ORDER_ID');
        assert.ok(!a.text.includes('POS database'), 'the answer leaks the error');
        assert.equal(slow.errors.length, 1);
        held.mode = 'ok';
        const b = await send(server.url, 'POST', `/slow${CREATED}`, { headers: deliveryHeaders(createdBody, { deliveryId: id }), body: createdBody });
        assert.equal(b.status, 200);
        assert.equal(slow.calls.length, 2);
      }
    });
  });
}

test('createReceiver refuses a configuration without a usable secret or handler', { timeout: 60_000 }, () => {
  const onOrderCreated = () => 'x';
  for (const secret of [undefined, '', [], [''], ['ok', ''], 42]) {
    assert.throws(() => pkg.createReceiver({ secret, onOrderCreated }), (e) => e.code === 'INVALID_ARGUMENT', String(secret));
  }
  assert.throws(() => pkg.createReceiver({ secret: 's' }), /at least one handler/);
  assert.throws(() => pkg.createReceiver({ secret: 's', onOrderCreated, store: {} }), /claim, complete and release/);
  assert.throws(() => pkg.createReceiver({ secret: 's', onOrderCreated, timeoutMs: -1 }), /timeoutMs/);
  assert.throws(() => pkg.createReceiver({ secret: Array(17).fill('s'), onOrderCreated }), /at most 16 secrets/);
  assert.throws(() => pkg.createReceiver({ secret: 's', onOrderCreated, now: Date.now() }), /milliseconds/);
});

test('handle(): a parsed object is refused; raw bytes are verified', { timeout: 60_000 }, async () => {
  const r = pkg.createReceiver({ secret: SECRET, now: NOW, onOrderCreated: () => 'POS-9', onError: () => {} });
  await assert.rejects(
    r.handle({ method: 'POST', url: CREATED, headers: deliveryHeaders(createdBody), body: JSON.parse(createdBody) }),
    (e) => e.code === 'PAYLOAD_NOT_RAW',
  );
  const ok = await r.handle({ method: 'POST', url: CREATED, headers: deliveryHeaders(createdBody), body: createdBody });
  assert.equal(ok.status, 200);
  assert.equal(JSON.parse(ok.body).remoteOrderId, 'POS-9');
  // The receiver itself is the same handler; a body given as a stream of chunks is read too.
  const again = await r({ method: 'POST', url: CREATED, headers: deliveryHeaders(createdBody), body: Readable.from([createdBody.subarray(0, 100), createdBody.subarray(100)]) });
  assert.equal(again.status, 200);
  assert.equal(again.replayed, false);
  const unknown = await r({ method: 'POST', url: '/elsewhere', headers: {}, body: '' });
  assert.deepEqual([unknown.status, unknown.matched], [404, false]);
});

test('Express: a JSON body parser mounted before the receiver is reported (500 BODY_UNAVAILABLE), never verified on re-serialized bytes; express.raw() bytes are used', { timeout: 60_000 }, async () => {
  for (const name of ['express4', 'express5']) {
    const express = (await import('./helpers.mjs')).require(name);
    const errors = [];
    const r = pkg.createReceiver({ secret: SECRET, now: NOW, onOrderCreated: () => 'POS-1', onError: (e, i) => errors.push(i.code) });
    const app = express();
    app.use(express.json());
    app.use(r.express());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${server.address().port}`;
    const res = await send(url, 'POST', CREATED, { headers: deliveryHeaders(createdBody), body: createdBody });
    assert.equal(res.status, 500, name);
    assert.equal(res.json.error, 'BODY_UNAVAILABLE');
    assert.match(res.json.message, /before any body parser/);
    assert.deepEqual(errors, ['BODY_UNAVAILABLE']);
    // A body the parser did not take (text/plain) is still read raw and verified.
    const text = await send(url, 'POST', CREATED, { headers: deliveryHeaders(createdBody, { contentType: 'text/plain' }), body: createdBody });
    assert.equal(text.status, 200, name);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));

    // express.raw() before the receiver keeps the exact bytes: they are used, and still verified.
    const rawApp = express();
    rawApp.use(express.raw({ type: '*/*' }));
    rawApp.use(r.express());
    const rawServer = rawApp.listen(0, '127.0.0.1');
    await new Promise((resolve) => rawServer.once('listening', resolve));
    const rawUrl = `http://127.0.0.1:${rawServer.address().port}`;
    const ok = await send(rawUrl, 'POST', CREATED, { headers: deliveryHeaders(createdBody), body: createdBody });
    assert.equal(ok.status, 200, `${name} after express.raw(): ${ok.text}`);
    const tampered = Buffer.from(createdBody.toString('utf8').replace('A-1042', 'A-1043'));
    const bad = await send(rawUrl, 'POST', CREATED, { headers: deliveryHeaders(createdBody), body: tampered });
    assert.equal(bad.status, 401);
    rawServer.closeAllConnections();
    await new Promise((resolve) => rawServer.close(resolve));
  }
});

test('the browser/worker build (ES module, await init()): the Fetch adapter answers the same', { timeout: 60_000 }, async () => {
  const web = await import('../../pkg/dist/web.js');
  const errors = [];
  const r = web.createReceiver({ secret: SECRET, now: NOW, onOrderCreated: () => 'POS-W', onError: (e, i) => errors.push(e.code ?? i.code) });
  const request = () => new Request(`http://pos.test${CREATED}`, { method: 'POST', headers: deliveryHeaders(createdBody), body: createdBody });
  const before = await r.fetch(request());
  assert.equal(before.status, 500, 'answered before the module was loaded');
  assert.deepEqual(errors, ['NOT_INITIALIZED']);
  await web.default();
  const res = await r.fetch(request());
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { remoteOrderId: 'POS-W' });
});
