// Ring 3: the menu linter, payload and request validation and problem classification through the
// npm package, over the manifests the Rust rings read (tests/fixtures/*/cases.json).
import test from 'node:test';
import assert from 'node:assert/strict';
import { countingCalls, fixture, fixtureJson, pkg, require } from './helpers.mjs';

const key = (d) => `${d.ruleId} ${d.severity} ${d.path}${d.line ? ` ${d.line}:${d.column}` : ''}`;
const multiset = (list) => list.map(key).sort();

test('lintMenu: every case of tests/fixtures/menu/cases.json, with UTF-16 columns', () => {
  const cases = fixtureJson('menu', 'cases.json');
  assert.ok(cases.length >= 30);
  const fired = new Set();
  for (const c of cases) {
    const bytes = fixture('menu', c.file);
    const report = pkg.lintMenu(bytes);
    assert.equal(report.kind, 'menu', c.file);
    assert.deepEqual(multiset(report.diagnostics.filter((d) => d.severity !== 'info' || c.expect.some((e) => e.ruleId === d.ruleId))), multiset(c.expect), c.file);
    // The same text as a JS string gives the same report (columns are UTF-16 units either way);
    // only for valid UTF-8, which a JS string can hold.
    if (Buffer.from(bytes.toString('utf8')).equals(bytes)) assert.deepEqual(pkg.lintMenu(bytes.toString('utf8')), report, c.file);
    report.diagnostics.forEach((d) => fired.add(d.ruleId));
  }
  const example = pkg.lintMenu(fixture('menu', 'example.json'));
  assert.ok(example.errorCount > 0 && example.warningCount > 0 && example.infoCount === 1);
  const valid = pkg.lintMenu(fixture('menu', 'valid.json'));
  assert.equal(valid.errorCount + valid.warningCount, 0);
  const ruleIds = pkg.menuRules().map((r) => r.id);
  for (const id of fired) assert.ok(ruleIds.includes(id), `${id} is not listed by menuRules()`);
});

test('lintMenu: a column after non-ASCII text indexes the JS string correctly', () => {
  const text = '{"categories": [{"remoteCode": "C-1", "name": "Crème 🍰", "position": -1, "products": []}]}';
  const d = pkg.lintMenu(text).diagnostics.find((x) => x.ruleId === 'field/position');
  assert.ok(d, 'field/position fires');
  assert.equal(text.slice(d.column - 1, d.column + 1), '-1');
  assert.equal(Buffer.from(text).subarray(d.span.start, d.span.end).toString(), '-1');
});

test('lintMenu: hostile input gives diagnostics, never a trap', () => {
  assert.equal(pkg.lintMenu('['.repeat(100000)).diagnostics[0].ruleId, 'json/too-deep');
  assert.equal(pkg.lintMenu(new Uint8Array([0x7b, 0xff])).diagnostics[0].ruleId, 'json/invalid-utf8');
  assert.equal(pkg.lintMenu('{"categories": [1, 2', {}).diagnostics[0].ruleId, 'json/syntax');
  const many = JSON.stringify({ categories: Array.from({ length: 50000 }, () => ({})) });
  const r = pkg.lintMenu(many, { maxDiagnostics: 100 });
  // The budget, the once-per-report info, and the diagnostic that says the lint stopped.
  assert.ok(r.diagnostics.length <= 102, String(r.diagnostics.length));
  assert.ok(r.diagnostics.some((d) => d.ruleId === 'menu/too-many-diagnostics'));
  assert.equal(pkg.lintMenu('{"categories": []}', { maxBytes: 5 }).diagnostics[0].ruleId, 'json/too-large');
  assert.equal(pkg.lintMenu('{"categories": []}').warningCount, 1, 'still usable after the errors above');
});

test('validatePayload: every case of tests/fixtures/payload/cases.json, kinds detected', () => {
  const cases = fixtureJson('payload', 'cases.json');
  for (const c of cases) {
    const options = { kind: c.kind ?? undefined, path: c.path ?? undefined, ...(c.limits ?? {}) };
    const report = pkg.validatePayload(fixture('payload', c.file), options);
    assert.equal(report.kind ?? null, c.expectKind ?? null, c.file);
    assert.deepEqual(multiset(report.diagnostics), multiset(c.expect), c.file);
  }
  assert.ok(pkg.payloadKinds().includes('orderUpdateEvent'));
  assert.throws(() => pkg.validatePayload('{}', { kind: 'nope' }), { code: 'INVALID_ARGUMENT' });
});

test('validatePayload: a clean payload (answered by the core with its kind alone) gets the same report the core builds', () => {
  // inspectInput returns the core's whole report; validatePayload builds a clean one from a number.
  let clean = 0;
  for (const c of fixtureJson('payload', 'cases.json')) {
    const options = { kind: c.kind ?? undefined, path: c.path ?? undefined, ...(c.limits ?? {}) };
    const input = fixture('payload', c.file);
    const inspected = pkg.inspectInput(input, options);
    if (inspected.detected !== 'payload') continue;
    const report = pkg.validatePayload(input, options);
    assert.deepEqual(report, inspected.report, c.file);
    if (report.diagnostics.length === 0) clean++;
  }
  assert.ok(clean >= 10, `${clean} clean reports compared`);
  // An empty merchant error body is answered before any parse.
  assert.deepEqual(pkg.validatePayload(' ', { kind: 'merchantErrorResponse' }), pkg.inspectInput(' ', { kind: 'merchantErrorResponse' }).report);
  // A report kept for takeReport() belongs to its own call only.
  const reports = [pkg.validatePayload('{"x": 1}'), pkg.validatePayload('['), pkg.validatePayload('{"x": 1}')];
  assert.deepEqual(reports[0], reports[2], 'a report taken once is not taken again by the next call');
  assert.notDeepEqual(reports[0], reports[1]);
});

test('validatePayload through the shared buffer answers as the general path, and leaves it when it must', () => {
  const raw = require('../../pkg/dist/web/poscheck.js'); // the instance pkg initialized
  const { createApi } = require('../../pkg/dist/api.cjs');
  // One facade counts the calls of each path; the other has no validatePayloadIo: the general path.
  const { raw: counted, calls } = countingCalls(raw, ['validatePayloadIo', 'validatePayload']);
  const general = new Proxy(raw, { get: (target, name) => (name === 'validatePayloadIo' ? undefined : target[name]) });
  const [viaIo, viaArgs] = [createApi(counted), createApi(general)];
  const [TEXT_MAX] = raw.ioLayout(); // the bytes of a payload the buffer holds
  const same = (input, options, path, label) => {
    const before = { ...calls };
    assert.deepEqual(viaIo.validatePayload(input, options), viaArgs.validatePayload(input, options), label);
    const took = calls.validatePayloadIo > before.validatePayloadIo ? 'io' : 'general';
    assert.equal(took, path, `${label}: took the ${took} path`);
    // Each call takes one path only, except when the buffer sends it to the general one.
    if (path === 'io' && calls.validatePayload > before.validatePayload) assert.fail(`${label}: both paths`);
  };
  let fixtures = 0;
  for (const c of fixtureJson('payload', 'cases.json')) {
    const options = { kind: c.kind ?? undefined, path: c.path ?? undefined, ...(c.limits ?? {}) };
    const bytes = fixture('payload', c.file);
    // A path goes the general way, and so does a payload longer than the buffer (the fixtures'
    // kinds are known names; names the core must read are tried below).
    const io = options.path === undefined && bytes.length <= TEXT_MAX;
    same(bytes, options, io ? 'io' : 'general', c.file);
    if (Buffer.from(bytes.toString('utf8')).equals(bytes)) same(bytes.toString('utf8'), options, io ? 'io' : 'general', `${c.file} as text`);
    if (io) fixtures++;
  }
  assert.ok(fixtures >= 20, `${fixtures} fixtures through the buffer`);
  const event = (reason) => JSON.stringify({
    orderKey: 'ord_0123456789abcdEF', remoteOrderId: 'R-1', event: 'cancelled', occurredAt: '2026-08-12T14:30:00Z', reason,
  });
  const kind = { kind: 'orderUpdateEvent' };
  // Text whose UTF-8 is longer than the text itself: through the buffer while it fits, not after.
  same(event('é'.repeat((TEXT_MAX - 300) / 2)), kind, 'io', 'two bytes a character, within the buffer');
  same(event('é'.repeat(TEXT_MAX / 2 + 50)), kind, 'general', 'two bytes a character, past the buffer');
  same(event('x'.repeat(TEXT_MAX + 1000)), kind, 'general', 'longer than the buffer');
  // Every byte length around the buffer's end.
  const base = Buffer.byteLength(event(''));
  for (const n of [TEXT_MAX - 2 - base, TEXT_MAX - 1 - base, TEXT_MAX - base, TEXT_MAX + 1 - base]) {
    same(Buffer.from(event('r'.repeat(n))), kind, base + n <= TEXT_MAX ? 'io' : 'general', `${base + n} bytes`);
  }
  // Invalid UTF-8 at an exact byte, a kind detected, limits, not JSON.
  same(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xff, 0x7d]), undefined, 'io', 'invalid UTF-8');
  same(event('ok'), undefined, 'io', 'kind detected');
  same(event('ok'), { ...kind, maxDiagnostics: 1, maxDepth: 1 }, 'io', 'limits');
  same('{"x": 1', kind, 'io', 'not JSON');
  // Kinds named as the core reads them ('auto', unknown names) take the general path, which says why.
  same(event('ok'), { kind: 'auto' }, 'general', 'auto');
  assert.throws(() => viaIo.validatePayload(event('ok'), { kind: 'nope' }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => viaIo.validatePayload(42, kind), { code: 'INVALID_ARGUMENT' });
});

test('validateRequest: every case of tests/fixtures/requests/cases.json predicts the answer', () => {
  for (const c of fixtureJson('requests', 'cases.json')) {
    const r = c.request;
    const body = r.bodyText !== undefined ? r.bodyText : r.body === null ? undefined : r.body;
    const headers = Object.entries(r.headers ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]));
    const p = pkg.validateRequest({ method: r.method, path: r.path, headers, body, now: r.now });
    assert.equal(p.status, c.expectStatus, c.name);
    if (c.expectProblemTypeSuffix) assert.ok(p.problem.type.endsWith('/' + c.expectProblemTypeSuffix), c.name);
    // Every prediction says what it rests on (issue 9, class 7); 400/401 have no stated type suffix.
    assert.ok(['stated', 'derived', 'assumed'].includes(p.basis.status.basis) && p.basis.status.source, c.name);
    if (c.expectBasis) assert.equal(p.basis.status.basis, c.expectBasis, `${c.name}: ${p.basis.status.source}`);
    if (p.status === 400 || p.status === 401) {
      assert.equal(p.problem.type, null, c.name);
      assert.equal(p.basis.problemType.basis, 'assumed', c.name);
    }
    if (p.status === 422) assert.deepEqual(Object.keys(p.problem.meta.errors).sort(), Object.keys(p.report.errors).filter((k) => p.problem.meta.errors[k]).sort(), c.name);
    assert.deepEqual(p.report.diagnostics.map((d) => `${d.ruleId} ${d.severity} ${d.path}`).sort(), c.expect.map((e) => `${e.ruleId} ${e.severity} ${e.path}`).sort(), c.name);
  }
});

test('classifyProblem: every case of tests/fixtures/problems/cases.json', () => {
  for (const c of fixtureJson('problems', 'cases.json')) {
    const body = c.bodyText !== undefined ? c.bodyText : c.body === undefined || c.body === null ? undefined : JSON.stringify(c.body);
    const out = pkg.classifyProblem({ status: c.status, headers: c.headers, body, now: c.now ?? undefined });
    for (const [k, v] of Object.entries(c.expect)) assert.deepEqual(out[k], v, `${c.name}: ${k}`);
  }
  assert.throws(() => pkg.classifyProblem({ status: 'bad' }), { code: 'INVALID_ARGUMENT' });
});

test('inspectInput detects a full menu (issue 9, class 5)', () => {
  // "Full menu submission tree | root | categories[]": the menu linter's input, not kind-undetected.
  const menu = pkg.inspectInput(fixture('menu', 'valid.json'));
  assert.equal(menu.detected, 'payload');
  assert.equal(menu.report.kind, 'fullMenu');
  assert.equal(menu.report.errorCount, 0);
  // "Every menu write … returns 202 with data.changeId": its own kind, not a menu change resource.
  const answer = pkg.validatePayload('{"message":"Accepted","data":{"changeId":"chg_3kP9xQ2mN7vB4tR1"}}');
  assert.equal(answer.kind, 'menuWriteAccepted');
  assert.equal(answer.errorCount, 0);
});

test('inspectInput detects a payload, a request, a problem and a response', () => {
  const payload = pkg.inspectInput(fixture('payload', 'order-update-event.cancelled.valid.json'));
  assert.equal(payload.detected, 'payload');
  assert.equal(payload.report.kind, 'orderUpdateEvent');
  const req = pkg.inspectInput('POST /api/v1/Orders/ord_7Hq2LmN9pQ4rS8tV/accept HTTP/1.1\r\nX-Service-Api-Key: k\r\nX-Service-Schema-Version: 1.0\r\nContent-Type: application/json\r\n\r\n{}');
  assert.equal(req.detected, 'request');
  assert.equal(req.prediction.status, 422, 'no Idempotency-Key');
  assert.ok('Idempotency-Key' in req.prediction.problem.meta.errors);
  const problem = pkg.inspectInput('HTTP/1.1 429 Too Many Requests\nRetry-After: 30\nContent-Type: application/problem+json\n\n{"type":"https://x/rate-limit","title":"t","status":429,"detail":"d","traceId":"t","meta":null}');
  assert.equal(problem.detected, 'problem');
  assert.equal(problem.classification.retryable, true);
  assert.equal(problem.classification.retryAfterSeconds, 30);
});
