// The probe's plan through the wasm (src/wasm/probe.rs, src/probe/plan/): what pkg/src/probe.js
// drives. Hostile options and results are errors with a code, never a trap of the module; after
// one, the plan still waits for a readable result and goes on.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import test from 'node:test';

const req = createRequire(import.meta.url);
const raw = req('../../pkg/dist/sandbox-web/poscheck.js');
raw.initSync({ module: Buffer.from(req('../../pkg/dist/sandbox-wasm.js').default, 'base64') });
const { ProbePlan } = raw;

const fails = (fn, code) => assert.throws(fn, (e) => e instanceof Error && e.code === code, String(fn));
const deep = '['.repeat(100_000) + ']'.repeat(100_000);

test('bad options: INVALID_ARGUMENT, with the messages probe() gives', () => {
  for (const text of ['', '{', deep, 'null', '5', '{"pos":"ftp://x/"}', '{"pos":"http://x","only":[]}', '{"pos":"http://x","seed":-1}']) {
    fails(() => new ProbePlan(text, 1), 'INVALID_ARGUMENT');
  }
  fails(() => new ProbePlan('{"pos":"http://127.0.0.1:1"}', -1), 'INVALID_ARGUMENT');
  fails(() => new ProbePlan('{"pos":"http://127.0.0.1:1"}', NaN), 'INVALID_ARGUMENT');
  assert.throws(() => new ProbePlan('{"pos":"ftp://127.0.0.1/"}', 1), /pos must be an http or https URL, found ftp:/);
});

test('hostile results: errors with a code, never a trap; the plan goes on after them', () => {
  const plan = new ProbePlan(JSON.stringify({ pos: 'http://127.0.0.1:1/', receiverOnly: true, seed: 3 }), 1);
  try {
    fails(() => plan.report('{}', Date.now()), 'INVALID_STATE');
    fails(() => plan.next(NaN), 'INVALID_ARGUMENT');
    const start = JSON.parse(plan.next(Date.now()));
    assert.equal(start.kind, 'startSandbox');
    assert.deepEqual(start.say, []);
    assert.equal(start.options.config.pos, 'http://127.0.0.1:1', 'the trailing slash gone');
    assert.equal(start.options.seed, 3);
    fails(() => plan.next(Date.now()), 'INVALID_STATE');
    for (const bad of ['', 'not json', deep, '{"value":5}', '{"bogus":1}', '{"answers":[{"status":"x"}]}', `{"value":"${'x'.repeat(1 << 20)}"}`]) {
      fails(() => plan.report(bad, Date.now()), 'INVALID_ARGUMENT');
    }
    fails(() => plan.report('{}', Infinity), 'INVALID_ARGUMENT');
    assert.equal(plan.report(JSON.stringify({ value: { url: 'http://127.0.0.1:2', apiKey: 'k', secret: 's3cret' } }), Date.now()), true);
    const announce = JSON.parse(plan.next(Date.now()));
    assert.equal(announce.kind, 'announce');
    assert.deepEqual(announce.info, { url: 'http://127.0.0.1:2', apiKey: 'k', secret: 's3cret', stores: ['STORE-1'], pos: 'http://127.0.0.1:1' });
    assert.equal(plan.report('{}', Date.now()), true);
    const create = JSON.parse(plan.next(Date.now()));
    assert.deepEqual([create.kind, create.action, create.args], ['sandbox', 'createOrder', [{ store: 'STORE-1', autoAccept: true }]]);
    assert.deepEqual(create.say, ['sending webhooks to http://127.0.0.1:1 (store STORE-1)']);
    // The creation failed: the run cannot go on (the face rethrows the action's own error).
    assert.equal(plan.report(JSON.stringify({ error: 'the sandbox is closed' }), Date.now()), false);
    // Whatever the run decided, a report is written.
    const report = JSON.parse(plan.finish(NaN));
    assert.equal(report.durationMs, 0);
    assert.equal(report.checks.length, JSON.parse(raw.Probe.rules()).length);
  } finally {
    plan.free();
  }
});
