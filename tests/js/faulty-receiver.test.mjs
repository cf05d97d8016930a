// The faulty receivers of issue 40 (tests/js/faulty-receiver.mjs), each in its own process: each
// refuses a genuine delivery signed by the package's own signer (poscheck/webhook signWebhook), and
// of the diagnostic deliveries the core makes (tests/fixtures/causes/variants.json, written by
// tests/causes.rs) it accepts exactly the one of its cause. That is what lets the probe name the
// first variant accepted as the cause. `correct` accepts the genuine delivery and none of the
// variants; `refuse-all` accepts nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import test from 'node:test';
import { require, fixtureJson, root } from './helpers.mjs';
const { signWebhook } = require('../../pkg/dist/webhook.cjs');

const fixture = fixtureJson('causes', 'variants.json');
const script = `${root}tests/js/faulty-receiver.mjs`;

/** Starts a receiver with its clock pinned to the fixture's time. */
async function start(cause, ...args) {
  const child = spawn(process.execPath, [script, cause, '--secret', fixture.secret, '--now', String(fixture.now), '--ttl', '60', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const { url } = JSON.parse(String(line).split('\n')[0]);
  return {
    url,
    async send({ method, path, headers, body }) {
      const res = await fetch(url + path, { method, headers, body });
      return { status: res.status, body: await res.text() };
    },
    async stop() {
      child.stdin.end();
      child.kill();
      await once(child, 'exit').catch(() => {});
    },
  };
}

const body = (d) => Buffer.from(d.bodyBase64, 'base64');
const genuineOf = (name) => fixture.genuine.find((g) => g.name === name);
/** The genuine delivery `name`, signed by the package (not by the fixture's headers). */
function genuine(name) {
  const g = genuineOf(name);
  const headers = Object.fromEntries(g.headers.filter(([k]) => !/^x-service-(timestamp|signature-256)$/i.test(k)));
  Object.assign(headers, signWebhook({ body: body(g), secret: fixture.secret, timestamp: fixture.now }));
  assert.deepEqual(headers['X-Service-Signature-256'], Object.fromEntries(g.headers)['X-Service-Signature-256'], 'the package signs as the fixture says');
  return { method: g.method, path: g.path, headers, body: body(g) };
}
const variantsOf = (name) => fixture.variants.filter((v) => v.genuine === name).map((v) => ({ ...v, headers: Object.fromEntries(v.headers), body: body(v) }));
const accepted = (r) => r.status === 200 && typeof JSON.parse(r.body).remoteOrderId === 'string';

test('the fixture holds a variant of every cause the receivers stand for', () => {
  const causes = new Set(fixture.variants.map((v) => v.cause));
  for (const c of causes) assert.ok(c.length > 0);
  assert.ok(causes.size >= 15, [...causes].join(', '));
  assert.ok(fixture.variants.filter((v) => v.genuine === 'creation').length <= 30, 'at most 30 diagnostic deliveries a run');
});

// The clock-offset receiver runs an hour ahead: the variant shifted by +3600 s is its own.
const receivers = [...new Set(fixture.variants.map((v) => v.cause))].map((cause) => ({
  cause,
  // The service's bodies are compact: a receiver that compacts needs another body to refuse.
  genuine: cause === 'body-compact' ? 'pretty' : 'creation',
  own: (v) => v.cause === cause && (cause !== 'clock-offset' || v.offsetSeconds === 3600),
}));

for (const { cause, genuine: name, own } of receivers) {
  test(`${cause}: refuses the genuine delivery, accepts its own variant and no other`, async () => {
    const r = await start(cause);
    try {
      const g = await r.send(genuine(name));
      assert.equal(g.status, 401, `the genuine delivery: ${g.status} ${g.body}`);
      const got = [];
      for (const v of variantsOf(name)) {
        const answer = await r.send(v);
        if (accepted(answer)) got.push(`${v.cause}#${v.step}`);
        else assert.equal(answer.status, 401, `${v.cause}#${v.step}: ${answer.status} ${answer.body}`);
      }
      const want = variantsOf(name).filter(own).map((v) => `${v.cause}#${v.step}`);
      assert.equal(want.length, 1, want.join(', '));
      assert.deepEqual(got, want);
    } finally {
      await r.stop();
    }
  });
}

test('correct: accepts the genuine delivery (once, with a retry answered the same) and refuses every variant', async () => {
  const r = await start('correct');
  try {
    for (const name of ['creation', 'pretty']) {
      const g = genuine(name);
      const first = await r.send(g);
      assert.ok(accepted(first), `${first.status} ${first.body}`);
      assert.deepEqual(await r.send(g), first, 'a retry gets the same answer');
      for (const v of variantsOf(name)) assert.equal((await r.send(v)).status, 401, `${v.cause}#${v.step}`);
    }
  } finally {
    await r.stop();
  }
});

test('refuse-all: refuses the genuine delivery and every variant; routes and controls answer', async () => {
  const r = await start('refuse-all');
  try {
    assert.equal((await r.send(genuine('creation'))).status, 401);
    for (const v of variantsOf('creation')) assert.equal((await r.send(v)).status, 401, `${v.cause}#${v.step}`);
    assert.equal((await r.send({ method: 'POST', path: '/v1/orders/S', headers: {}, body: '{}' })).status, 404);
    assert.equal((await r.send({ method: 'PUT', path: '/v1/order/S', headers: {}, body: '{}' })).status, 405);
    const log = JSON.parse((await r.send({ method: 'GET', path: '/log', headers: {} })).body);
    assert.equal(log.cause, 'refuse-all');
    assert.equal(log.received.length, 3 + variantsOf('creation').length);
  } finally {
    await r.stop();
  }
});

test('the real clock, a secret set over HTTP, and the other routes of a correct receiver', async () => {
  const child = spawn(process.execPath, [script, 'correct', '--ttl', '30'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const { url } = JSON.parse(String(line));
  try {
    const raw = Buffer.from('{"orderKey":"ord_exnivjLxN4uMWTaO","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-11-28T22:02:12Z"}');
    const send = (secret) => fetch(`${url}/v1/order/S/R-1/events`, { method: 'PUT', headers: signWebhook({ body: raw, secret: 'whsec_real' }), body: raw });
    assert.equal((await send()).status, 503, 'no secret yet');
    assert.equal((await fetch(`${url}/control/config`, { method: 'POST', body: JSON.stringify({ secret: 'whsec_real' }) })).status, 200);
    assert.equal((await send()).status, 200);
  } finally {
    child.kill();
    await once(child, 'exit');
  }
});
