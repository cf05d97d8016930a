// Ring 3: the deduplication stores. The memory store with a fake clock; the Redis store on a real
// redis-server (started here on a free loopback port, in a throwaway directory) with both clients
// users have: `redis` (node-redis) and `ioredis`.
import test, { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { NOW, SECRET, deliveryHeaders, fixture, gate, pkg, require, send, startRedis } from './helpers.mjs';

const createdBody = fixture('payload', 'order-created.delivery.valid.json');
const CREATED = '/v1/order/STORE-1';
const answer = (id) => ({ status: 200, code: 'OK', body: JSON.stringify({ remoteOrderId: id }) });

test('memory store: claim, pending, complete, release, expiry on its own', { timeout: 60_000 }, async () => {
  let t = 1_000;
  const s = pkg.createMemoryStore({ clock: () => t });
  assert.deepEqual(await s.claim('d1', { token: 'a', leaseMs: 100 }), { state: 'claimed' });
  assert.deepEqual(await s.claim('d1', { token: 'b', leaseMs: 100 }), { state: 'pending' });
  assert.deepEqual(await s.claim('d1', { token: 'a', leaseMs: 100 }), { state: 'claimed' }, 'the same token is its own claim');
  await s.release('d1', 'b'); // not b's claim: no effect
  assert.deepEqual(await s.claim('d1', { token: 'c', leaseMs: 100 }), { state: 'pending' });
  assert.equal(await s.complete('d1', 'b', answer('X'), 1000), false, 'another token cannot complete a live claim');
  assert.equal(await s.complete('d1', 'a', answer('R-1'), 1000), true);
  assert.deepEqual(await s.claim('d1', { token: 'c', leaseMs: 100 }), { state: 'done', answer: answer('R-1') });
  await s.release('d1', 'a'); // a completed answer is never released
  assert.equal((await s.claim('d1', { token: 'c', leaseMs: 100 })).state, 'done');
  t += 1000;
  assert.deepEqual(await s.claim('d1', { token: 'c', leaseMs: 100 }), { state: 'claimed' }, 'the answer expired after its TTL');
  // A claim whose process died expires after its lease.
  assert.equal((await s.claim('d2', { token: 'x', leaseMs: 50 })).state, 'claimed');
  t += 51;
  assert.equal((await s.claim('d2', { token: 'y', leaseMs: 50 })).state, 'claimed');
  await s.release('d2', 'y');
  assert.equal((await s.claim('d2', { token: 'z', leaseMs: 50 })).state, 'claimed');
});

test('memory store: bounded; the oldest answers go first, live claims never', { timeout: 60_000 }, async () => {
  let t = 0;
  const s = pkg.createMemoryStore({ maxEntries: 3, clock: () => t });
  for (const id of ['a', 'b', 'c']) {
    await s.claim(id, { token: id, leaseMs: 1e9 });
    await s.complete(id, id, answer(id), 1e9);
  }
  await s.claim('d', { token: 'd', leaseMs: 1e9 });
  assert.equal(s.size, 3);
  assert.equal((await s.claim('a', { token: 'q', leaseMs: 1e9 })).state, 'claimed', 'a (oldest) was evicted');
  assert.equal((await s.claim('c', { token: 'q', leaseMs: 1e9 })).state, 'done');
  const full = pkg.createMemoryStore({ maxEntries: 2, clock: () => t });
  await full.claim('p1', { token: 'p1', leaseMs: 1e9 });
  await full.claim('p2', { token: 'p2', leaseMs: 1e9 });
  await assert.rejects(full.claim('p3', { token: 'p3', leaseMs: 1e9 }), (e) => e.code === 'STORE_UNAVAILABLE');
});

test('memory store far past its cap: right answers, size <= maxEntries, rings bounded', { timeout: 60_000 }, async () => {
  let t = 0;
  const cap = 500;
  const s = pkg.createMemoryStore({ maxEntries: cap, clock: () => t });
  const recent = []; // the last ids completed, still within the cap
  let maxSize = 0;
  let maxSlots = 0;
  for (let i = 0; i < 40_000; i++) {
    t += 1;
    const id = `d${i}`;
    assert.deepEqual(await s.claim(id, { token: 'a', leaseMs: 1_000 }), { state: 'claimed' });
    if (i % 10 === 3) {
      await s.release(id, 'a'); // a failed handler: the retry runs it
      assert.deepEqual(await s.claim(id, { token: 'b', leaseMs: 5_000 }), { state: 'claimed' }, 'released for the retry');
      await s.release(id, 'b');
    } else if (i % 10 === 7) {
      // left pending: the process died; its lease runs out 1,000 deliveries later (about 100 live)
    } else {
      assert.equal(await s.complete(id, 'a', answer(`R-${i}`), 1e9), true);
      recent.push(i);
      if (recent.length > 100) recent.shift();
    }
    if (i % 97 === 0) {
      // A retry of a recent delivery gets its answer; one evicted long ago is claimable again.
      const j = recent[Math.floor(recent.length / 2)];
      assert.deepEqual(await s.claim(`d${j}`, { token: 'z', leaseMs: 5_000 }), { state: 'done', answer: answer(`R-${j}`) });
      if (i > 10 * cap) {
        const old = `d${i - 10 * cap}`;
        const c = await s.claim(old, { token: 'z', leaseMs: 5_000 });
        assert.equal(c.state, 'claimed', `${old} was evicted`);
        await s.release(old, 'z');
      }
    }
    maxSize = Math.max(maxSize, s.size);
    maxSlots = Math.max(maxSlots, s.ringSlots);
  }
  assert.ok(maxSize <= cap, `size reached ${maxSize}, cap ${cap}`);
  assert.ok(maxSlots <= 2 * cap + 128, `the rings held ${maxSlots} slots for a cap of ${cap}`);
  // A pending claim, live, is never evicted to make room: fill with claims only, then one more.
  const full = pkg.createMemoryStore({ maxEntries: 50, clock: () => t });
  for (let i = 0; i < 50; i++) await full.claim(`p${i}`, { token: 'x', leaseMs: 1_000 });
  await assert.rejects(full.claim('p-over', { token: 'x', leaseMs: 1_000 }), (e) => e.code === 'STORE_UNAVAILABLE');
  assert.equal((await full.claim('p7', { token: 'y', leaseMs: 1_000 })).state, 'pending');
  t += 1_001; // the leases ran out: room again, without a walk over live entries
  assert.equal((await full.claim('p-over', { token: 'x', leaseMs: 1_000 })).state, 'claimed');
  assert.equal((await full.claim('p7', { token: 'y', leaseMs: 1_000 })).state, 'claimed');
  assert.ok(full.size <= 50 && full.ringSlots <= 2 * 50 + 128);
});

test('a duplicate that cannot wait for the first attempt gets 409 DELIVERY_IN_PROGRESS, never a second call', { timeout: 60_000 }, async () => {
  const held = gate();
  let calls = 0;
  const r = pkg.createReceiver({
    secret: SECRET,
    now: NOW,
    duplicateWaitMs: 1,
    onError: () => {},
    onOrderCreated: async () => {
      calls += 1;
      await held.promise;
      return 'POS-1';
    },
  });
  const headers = deliveryHeaders(createdBody);
  const first = r.handle({ method: 'POST', url: CREATED, headers, body: createdBody });
  await new Promise((resolve) => setImmediate(resolve));
  while (calls === 0) await new Promise((resolve) => setImmediate(resolve));
  const second = await r.handle({ method: 'POST', url: CREATED, headers, body: createdBody });
  assert.equal(second.status, 409);
  assert.equal(second.code, 'DELIVERY_IN_PROGRESS');
  held.open();
  assert.equal((await first).status, 200);
  const third = await r.handle({ method: 'POST', url: CREATED, headers, body: createdBody });
  assert.equal(third.replayed, true);
  assert.equal(JSON.parse(third.body).remoteOrderId, 'POS-1');
  assert.equal(calls, 1);
});

test('the Redis store\'s scripts: each digest is the SHA-1 of its text (EVALSHA)', () => {
  const { createHash } = require('node:crypto');
  const { REDIS_SCRIPTS } = require('../../pkg/dist/receiver.cjs');
  assert.deepEqual(Object.keys(REDIS_SCRIPTS), ['complete', 'release', 'batch']);
  for (const [name, [script, sha]] of Object.entries(REDIS_SCRIPTS)) assert.equal(createHash('sha1').update(script).digest('hex'), sha, name);
});

test('createRedisStore refuses what is not a redis or ioredis client', { timeout: 60_000 }, () => {
  for (const c of [undefined, null, {}, { get() {} }]) assert.throws(() => pkg.createRedisStore(c), /redis/);
});

const CLIENTS = {
  redis: async (url) => {
    const { createClient } = require('redis');
    const c = createClient({ url, socket: { reconnectStrategy: () => 100 } });
    c.on('error', () => {}); // reconnections are expected in these tests
    await c.connect();
    return { client: c, ping: () => c.ping(), close: () => c.destroy?.() ?? c.disconnect() };
  },
  ioredis: async (url) => {
    const { Redis } = require('ioredis');
    const c = new Redis(url, { retryStrategy: () => 100, maxRetriesPerRequest: null });
    c.on('error', () => {});
    await c.ping();
    return { client: c, ping: () => c.ping(), close: () => c.disconnect() };
  },
};

for (const [clientName, connect] of Object.entries(CLIENTS)) {
  describe(`Redis store with the ${clientName} client, on a real redis-server`, () => {
    let redis;
    let conn;
    let conn2;
    before(async () => {
      redis = await startRedis();
      conn = await connect(redis.url);
      conn2 = await connect(redis.url);
    });
    after(async () => {
      await conn?.close();
      await conn2?.close();
      await redis?.close();
    });

    test('claim, pending, complete (with a TTL), release: atomic on the server', { timeout: 60_000 }, async () => {
      const s = pkg.createRedisStore(conn.client, { prefix: `t:${clientName}:` });
      const id = randomUUID();
      assert.deepEqual(await s.claim(id, { token: 'a', leaseMs: 5000 }), { state: 'claimed' });
      assert.deepEqual(await s.claim(id, { token: 'b', leaseMs: 5000 }), { state: 'pending' });
      assert.deepEqual(await s.claim(id, { token: 'a', leaseMs: 5000 }), { state: 'claimed' });
      await s.release(id, 'b');
      assert.equal((await s.claim(id, { token: 'b', leaseMs: 5000 })).state, 'pending');
      assert.equal(await s.complete(id, 'b', answer('X'), 60_000), false);
      assert.equal(await s.complete(id, 'a', answer('R-1'), 60_000), true);
      assert.equal(await s.complete(id, 'a', answer('R-1'), 60_000), true, 'a re-sent complete is idempotent');
      assert.deepEqual(await s.claim(id, { token: 'c', leaseMs: 5000 }), { state: 'done', answer: answer('R-1') });
      const pttl = Number(await conn.client[clientName === 'ioredis' ? 'pttl' : 'pTTL'](`t:${clientName}:${id}`));
      assert.ok(pttl > 0 && pttl <= 60_000, `PTTL ${pttl}: entries expire on their own`);
      const other = randomUUID();
      await s.claim(other, { token: 'a', leaseMs: 5000 });
      await s.release(other, 'a');
      assert.equal((await s.claim(other, { token: 'z', leaseMs: 5000 })).state, 'claimed', 'released for the retry');
    });

    test('scripts Redis forgot (SCRIPT FLUSH) are sent again: the calls still answer', { timeout: 60_000 }, async () => {
      const s = pkg.createRedisStore(conn.client, { prefix: `f:${clientName}:` });
      const id = randomUUID();
      assert.deepEqual(await s.claim(id, { token: 'a', leaseMs: 5000 }), { state: 'claimed' });
      await (clientName === 'ioredis' ? conn.client.script('FLUSH') : conn.client.sendCommand(['SCRIPT', 'FLUSH']));
      assert.deepEqual(await s.claim(id, { token: 'b', leaseMs: 5000 }), { state: 'pending' });
      await (clientName === 'ioredis' ? conn.client.script('FLUSH') : conn.client.sendCommand(['SCRIPT', 'FLUSH']));
      assert.equal(await s.complete(id, 'a', answer('R-1'), 60_000), true);
      await (clientName === 'ioredis' ? conn.client.script('FLUSH') : conn.client.sendCommand(['SCRIPT', 'FLUSH']));
      await s.release(randomUUID(), 'a');
      assert.deepEqual(await s.claim(id, { token: 'c', leaseMs: 5000 }), { state: 'done', answer: answer('R-1') });
    });

    /**
     * The client with every command it sends recorded (the store sees the same client API). `sent`
     * leaves out EVAL: the store sends one only as the resend of an EVALSHA that met NOSCRIPT
     * (another test flushed the scripts); `all` keeps every command.
     */
    const counted = (client, extra = {}) => {
      const all = [];
      const wrapped = Object.assign(Object.create(client), extra);
      if (clientName === 'ioredis') wrapped.call = (...args) => (all.push([...args]), client.call(...args));
      else wrapped.sendCommand = (args) => (all.push([...args]), client.sendCommand(args));
      const sent = {
        get length() {
          return all.filter((c) => c[0] !== 'EVAL').length;
        },
        set length(n) {
          all.length = n;
        },
        map: (f) => all.filter((c) => c[0] !== 'EVAL').map(f),
        first: () => all.find((c) => c[0] !== 'EVAL'),
      };
      return { client: wrapped, sent, all };
    };

    test('the claims and records of one turn go as one command, in the order asked, with the same answers', { timeout: 60_000 }, async () => {
      const { client, sent } = counted(conn.client);
      const s = pkg.createRedisStore(client, { prefix: `b:${clientName}:` });
      const ids = Array.from({ length: 40 }, () => randomUUID());
      // 40 first claims and, in the same turn, a second claim of the first id (pending: the
      // first one took it, earlier in the same command).
      const claims = await Promise.all([...ids.map((id) => s.claim(id, { token: 'a', leaseMs: 5000 })), s.claim(ids[0], { token: 'b', leaseMs: 5000 })]);
      assert.deepEqual(claims.slice(0, 40).map((c) => c.state), ids.map(() => 'claimed'));
      assert.equal(claims[40].state, 'pending');
      assert.equal(sent.length, 1, `one command for 41 claims: ${sent.map((c) => c[0]).join(' ')}`);
      assert.equal(sent.first()[0], 'EVALSHA');
      // Records, one of them by a token that holds no claim (refused), in one command.
      sent.length = 0;
      const recorded = await Promise.all([...ids.map((id, i) => s.complete(id, 'a', answer(`R-${i}`), 60_000)), s.complete(ids[1], 'z', answer('X'), 60_000)]);
      assert.deepEqual(recorded, [...ids.map(() => true), false]);
      assert.equal(sent.length, 1);
      // A claim and the record of the same key in one turn apply in the order asked.
      const late = randomUUID();
      sent.length = 0;
      const [c1, r1, c2] = await Promise.all([s.claim(late, { token: 'p', leaseMs: 5000 }), s.complete(late, 'p', answer('L'), 60_000), s.claim(late, { token: 'q', leaseMs: 5000 })]);
      assert.deepEqual([c1.state, r1, c2], ['claimed', true, { state: 'done', answer: answer('L') }]);
      assert.equal(sent.length, 1);
      for (const [i, id] of ids.entries()) assert.deepEqual(await s.claim(id, { token: 'c', leaseMs: 5000 }), { state: 'done', answer: answer(`R-${i}`) });
    });

    test('batching off (batch: false, or an ioredis Cluster): one command per call, same answers', { timeout: 60_000 }, async () => {
      for (const [options, extra] of [[{ batch: false }, {}], [{}, { isCluster: true }]]) {
        const { client, sent } = counted(conn.client, extra);
        const s = pkg.createRedisStore(client, { prefix: `u:${clientName}:`, ...options });
        const ids = Array.from({ length: 5 }, () => randomUUID());
        const claims = await Promise.all(ids.map((id) => s.claim(id, { token: 'a', leaseMs: 5000 })));
        assert.deepEqual(claims.map((c) => c.state), ids.map(() => 'claimed'));
        assert.deepEqual(sent.map((c) => c[0]), ids.map(() => 'SET'));
        sent.length = 0;
        assert.deepEqual(await Promise.all(ids.map((id) => s.complete(id, 'a', answer('R'), 60_000))), ids.map(() => true));
        assert.equal(sent.length, 5);
        assert.deepEqual(await s.claim(ids[0], { token: 'b', leaseMs: 5000 }), { state: 'done', answer: answer('R') });
      }
    });

    test('a batch after SCRIPT FLUSH: its script is sent again (EVAL), the answers hold', { timeout: 60_000 }, async () => {
      const { client, all } = counted(conn.client);
      const s = pkg.createRedisStore(client, { prefix: `bf:${clientName}:` });
      await (clientName === 'ioredis' ? conn.client.script('FLUSH') : conn.client.sendCommand(['SCRIPT', 'FLUSH']));
      const ids = [randomUUID(), randomUUID()];
      const claims = await Promise.all(ids.map((id) => s.claim(id, { token: 'a', leaseMs: 5000 })));
      assert.deepEqual(claims.map((c) => c.state), ['claimed', 'claimed']);
      assert.deepEqual(all.map((c) => c[0]), ['EVALSHA', 'EVAL']);
    });

    test('fifty concurrent claims of one delivery from two connections: exactly one wins', { timeout: 60_000 }, async () => {
      const a = pkg.createRedisStore(conn.client, { prefix: `c:${clientName}:` });
      const b = pkg.createRedisStore(conn2.client, { prefix: `c:${clientName}:` });
      const id = randomUUID();
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).claim(id, { token: `t${i}`, leaseMs: 5000 })));
      assert.equal(results.filter((r) => r.state === 'claimed').length, 1);
      assert.equal(results.filter((r) => r.state === 'pending').length, 49);
    });

    test('two receivers sharing Redis: a duplicate sent to the other one at the same time is handled once', { timeout: 60_000 }, async () => {
      const held = gate();
      const entered = gate();
      const pendingSeen = gate();
      const calls = [];
      const make = (client) => {
        const store = pkg.createRedisStore(client, { prefix: `r:${clientName}:` });
        const watched = {
          claim: async (...a) => {
            const c = await store.claim(...a);
            if (c.state === 'pending') pendingSeen.open();
            return c;
          },
          complete: (...a) => store.complete(...a),
          release: (...a) => store.release(...a),
        };
        return pkg.createReceiver({
          secret: SECRET,
          now: NOW,
          store: watched,
          onError: () => {},
          onOrderCreated: async (ctx) => {
            calls.push(ctx.delivery.id);
            entered.open();
            await held.promise;
            return `POS-${calls.length}`;
          },
        });
      };
      const servers = [http.createServer(make(conn.client).node), http.createServer(make(conn2.client).node)];
      const urls = await Promise.all(servers.map((s) => new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${s.address().port}`)))));
      try {
        const headers = deliveryHeaders(createdBody);
        const first = send(urls[0], 'POST', CREATED, { headers, body: createdBody });
        await entered.promise;
        const second = send(urls[1], 'POST', CREATED, { headers, body: createdBody });
        await pendingSeen.promise;
        held.open();
        const [a, b] = await Promise.all([first, second]);
        assert.equal(a.status, 200);
        assert.equal(b.status, 200);
        assert.equal(b.json.remoteOrderId, a.json.remoteOrderId);
        assert.equal(calls.length, 1);
      } finally {
        for (const s of servers) {
          s.closeAllConnections();
          await new Promise((resolve) => s.close(resolve));
        }
      }
    });

    test('Redis unreachable: 503 STORE_UNAVAILABLE and no handler call; back up: handled once', { timeout: 60_000 }, async () => {
      const calls = [];
      const errors = [];
      const r = pkg.createReceiver({
        secret: SECRET,
        now: NOW,
        store: pkg.createRedisStore(conn.client, { prefix: `u:${clientName}:`, timeoutMs: 300 }),
        storeRetryMs: 200,
        duplicateWaitMs: 500,
        onError: (e, info) => errors.push(info.code),
        onOrderCreated: async () => {
          calls.push(1);
          return 'POS-1';
        },
      });
      const headers = deliveryHeaders(createdBody);
      await redis.stop();
      for (let i = 0; i < 2; i++) {
        const down = await r.handle({ method: 'POST', url: CREATED, headers, body: createdBody });
        assert.equal(down.status, 503);
        assert.equal(down.code, 'STORE_UNAVAILABLE');
      }
      assert.equal(calls.length, 0, 'processed without deduplication');
      assert.ok(errors.includes('STORE_UNAVAILABLE'));
      await redis.restart();
      // Wait for the client to reconnect (bounded), then the delivery goes through once.
      for (let i = 0; i < 100; i++) {
        try {
          await conn.ping();
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      let up;
      for (let i = 0; i < 50; i++) {
        up = await r.handle({ method: 'POST', url: CREATED, headers, body: createdBody });
        if (up.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(up.status, 200);
      const again = await r.handle({ method: 'POST', url: CREATED, headers, body: createdBody });
      assert.equal(again.replayed, true);
      assert.equal(calls.length, 1);
    });
  });
}
