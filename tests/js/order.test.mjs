// Ring 3: the order state machine through the npm package, over the fixtures the Rust rings read.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fixture, fixtureJson, pkg } from './helpers.mjs';

const loadOrder = (c) => {
  const order = typeof c.order === 'string' ? fixtureJson('order', c.order) : structuredClone(c.order);
  return { ...order, ...(c.orderPatch ?? {}) };
};

test('checkOrder: every case of tests/fixtures/order/cases.json, with paths and positions', () => {
  const cases = fixtureJson('order', 'cases.json');
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const report = pkg.checkOrder(fixture('order', c.file));
    assert.equal(report.kind, 'orderDetail', c.file);
    const got = report.diagnostics.map((d) => `${d.ruleId} ${d.severity} ${d.path} ${d.line}:${d.column}`).sort();
    const want = c.expect.map((e) => `${e.ruleId} ${e.severity} ${e.path} ${e.line}:${e.column}`).sort();
    assert.deepEqual(got, want, c.file);
  }
});

test('predictions: every row of the transition table and every bullet under it', () => {
  const cases = fixtureJson('order', 'predictions.json');
  for (const c of cases) {
    const order = loadOrder(c);
    let out;
    if (c.action) out = pkg.predictAction(order, c.action, c.now, c.body);
    else if (c.event) out = pkg.applyEvent(order, c.event);
    else if (c.trigger) out = pkg.applyTrigger(order, c.trigger, c.now);
    else assert.fail(`${c.name}: no action, event or trigger`);
    if ('expectHttpStatus' in c) assert.equal(out.httpStatus, c.expectHttpStatus, c.name);
    if ('expectStatus' in c) assert.equal(out.status ?? out.order.status, c.expectStatus, c.name);
    if ('expectEvent' in c) assert.equal(out.event, c.expectEvent, c.name);
    if ('expectAlreadyReached' in c) assert.equal(out.alreadyReached, c.expectAlreadyReached, c.name);
    if ('expectProblemTypeSuffix' in c) assert.ok(out.problem.type.endsWith('/' + c.expectProblemTypeSuffix), c.name);
    if ('expectAllowed' in c) assert.deepEqual(out.problem.meta.allowedTransitions, c.expectAllowed, c.name);
    if ('expectCurrentStatus' in c) assert.equal(out.problem.meta.currentStatus, c.expectCurrentStatus, c.name);
    if ('expectReceiverHttpStatus' in c) assert.equal(out.receiverHttpStatus, c.expectReceiverHttpStatus, c.name);
    if ('expectIgnored' in c) assert.equal(out.ignored, c.expectIgnored, c.name);
    for (const [k, v] of Object.entries(c.expectSet ?? {})) assert.equal(out.order[k], v, `${c.name}: ${k}`);
    // expectAt: JSON pointer → value in the outcome (null also matches an absent member).
    for (const [ptr, v] of Object.entries(c.expectAt ?? {})) {
      const got = ptr.split('/').slice(1).reduce((o, k) => (o == null ? undefined : o[k]), out);
      assert.deepEqual(got ?? null, v, `${c.name}: ${ptr}`);
    }
    // The toolkit accepts its own output.
    if (c.expectChecksClean) {
      const r = pkg.checkOrder(JSON.stringify(out.order));
      assert.equal(r.errorCount, 0, `${c.name}: ${JSON.stringify(r.diagnostics)}`);
    }
    if (out.problem) assert.equal(out.order.status, order.status, `${c.name}: a refusal changes nothing`);
  }
});

test('issue 9: terminal for the service and no merchant action left are two facts', () => {
  // "Rejected is terminal." / "HandedOver | cancellation by refund or incident after handover | … | Cancelled"
  const m = pkg.orderMachine();
  const state = (n) => m.states.find((s) => s.name === n);
  assert.equal(state('Rejected').terminal, true);
  assert.equal(state('HandedOver').terminal, false);
  assert.equal(state('HandedOver').merchantActionLeft, false);
  assert.equal(state('Preparing').merchantActionLeft, true);
  const n = pkg.nextActions(fixtureJson('order', 'delivery-delivered.json'), 1787234400);
  assert.equal(n.terminal, false);
  assert.equal(n.merchantActionLeft, false);
  const p = pkg.predictAction(fixtureJson('order', 'delivery-delivered.json'), 'ready', 1787234400);
  assert.equal(p.httpStatus, 409);
  assert.ok(!/is terminal/.test(p.advice) && /refund or incident/.test(p.advice), p.advice);
  // Every prediction says what it rests on.
  assert.ok(['stated', 'derived', 'assumed'].includes(p.basis));
  assert.ok(p.bases.status.source.length > 0 && p.bases.meta.basis);
});

test('issue 9: every rule list shows each rule\'s basis, and no error rests on an assumption', () => {
  const bounds = ['json/too-deep', 'json/too-large', 'payload/kind-undetected'];
  for (const list of [pkg.orderRules(), pkg.menuRules(), pkg.payloadRules(), pkg.diffRules()]) {
    assert.ok(list.length > 10);
    for (const r of list) {
      assert.ok(['stated', 'derived', 'assumed'].includes(r.basis), r.id);
      assert.ok(r.source.length > 0, r.id);
      if (r.severity === 'error' && !bounds.includes(r.id) && !r.id.endsWith('/too-many-diagnostics')) assert.notEqual(r.basis, 'assumed', r.id);
    }
  }
});

test('orders given as object, JSON string or bytes give the same prediction', () => {
  const text = fixture('order', 'pending.json');
  const a = pkg.predictAction(JSON.parse(text), 'accept', 1787227260);
  const b = pkg.predictAction(text.toString(), 'accept', 1787227260);
  const c = pkg.predictAction(new Uint8Array(text), 'accept', 1787227260);
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  assert.throws(() => pkg.predictAction('{not json', 'accept', 1), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => pkg.predictAction(JSON.parse(text), 'teleport', 1), (e) => e instanceof pkg.PoscheckError && e.code === 'UNKNOWN_ACTION');
});

test('machine, diagram and next actions come from the same table', () => {
  const m = pkg.orderMachine();
  const states = JSON.stringify(m);
  for (const s of ['Pending', 'Preparing', 'Ready', 'HandedOver', 'Rejected', 'Cancelled']) assert.ok(states.includes(s));
  const svg = pkg.orderDiagram(['Pending', 'Preparing']);
  assert.match(svg, /^<svg[\s\S]*<\/svg>\s*$/);
  assert.match(svg, /class="[^"]*\bhl\b/);
  assert.doesNotMatch(svg, /<script|href=/);
  const pending = fixtureJson('order', 'pending.json');
  const next = pkg.nextActions(pending, 1787227260);
  assert.ok(JSON.stringify(next).includes('accept'));
  assert.deepEqual(pkg.orderHistoryPath(fixtureJson('order', 'delivery-delivered.json')).slice(0, 2), ['Pending', 'Preparing']);
  assert.ok(pkg.orderRules().some((r) => r.id === 'order/history-transition'));
});
