// The declared result types (pkg/types.d.ts, generated from the Rust types by ts-rs) against real
// results: every exported function runs on the shared fixtures, and each result must have exactly
// the keys its declared type names (no key undeclared, no required key missing), recursively, with
// values of the declared kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, fixtureJson, pkg, root } from './helpers.mjs';

// ---- a reader of the generated declarations (ts-rs writes a small, regular subset of TS) --------

const source = readFileSync(join(root, 'pkg', 'types.d.ts'), 'utf8').replace(/\/\*\*[\s\S]*?\*\//g, '').replace(/^\/\/.*$/gm, '');
const TYPES = {};
for (const m of source.matchAll(/^export type (\w+) = ([\s\S]*?);\s*$/gm)) TYPES[m[1]] = m[2].trim();

/** Splits `text` at `sep` outside brackets and quotes. */
function split(text, sep) {
  const parts = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quote = !quote;
    if (quote) continue;
    if ('{<(['.includes(c)) depth++;
    else if ('}>)]'.includes(c)) depth--;
    else if (depth === 0 && text.startsWith(sep, i)) {
      parts.push(text.slice(start, i));
      start = i + sep.length;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

function objectFields(body) {
  const fields = {};
  for (const f of split(body.slice(1, -1), ',')) {
    const m = /^"?([\w$]+)"?(\?)?\s*:\s*([\s\S]+)$/.exec(f);
    assert.ok(m, `cannot read field ${f}`);
    fields[m[1]] = { optional: Boolean(m[2]), type: m[3].trim() };
  }
  return fields;
}

/** Problems of `value` against the type expression `type`; empty when it conforms. */
function check(value, type, path, depth = 0) {
  if (depth > 40) return [];
  type = type.trim();
  const alternatives = split(type, '|');
  if (alternatives.length > 1) {
    const results = alternatives.map((t) => check(value, t, path, depth + 1));
    return results.find((r) => r.length === 0) ?? results.reduce((a, b) => (a.length <= b.length ? a : b));
  }
  if (type === 'null') return value === null ? [] : [`${path}: expected null, got ${JSON.stringify(value)?.slice(0, 60)}`];
  if (type === 'string' || type === 'number' || type === 'boolean') {
    return typeof value === type ? [] : [`${path}: expected ${type}, got ${typeof value}`];
  }
  if (type.startsWith('"')) return value === JSON.parse(type) ? [] : [`${path}: expected ${type}, got ${JSON.stringify(value)}`];
  if (type === 'JsonValue' || type === 'unknown') return [];
  if (type.startsWith('Array<')) {
    if (!Array.isArray(value)) return [`${path}: expected an array`];
    return value.slice(0, 30).flatMap((v, i) => check(v, type.slice(6, -1), `${path}[${i}]`, depth + 1));
  }
  if (/^\[.*\]$/.test(type)) return Array.isArray(value) ? [] : [`${path}: expected a tuple`];
  if (type.startsWith('{ [key in string]')) {
    if (value === null || typeof value !== 'object') return [`${path}: expected a map`];
    const inner = type.slice(type.indexOf(':') + 1, type.lastIndexOf('}')).trim();
    return Object.entries(value).flatMap(([k, v]) => check(v, inner, `${path}.${k}`, depth + 1));
  }
  if (type.startsWith('{')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object`];
    const fields = objectFields(type);
    const problems = [];
    for (const k of Object.keys(value)) if (!(k in fields)) problems.push(`${path}.${k}: returned but not declared`);
    for (const [k, f] of Object.entries(fields)) {
      if (!(k in value)) {
        if (!f.optional) problems.push(`${path}.${k}: declared but not returned`);
        continue;
      }
      problems.push(...check(value[k], f.type, `${path}.${k}`, depth + 1));
    }
    return problems;
  }
  if (TYPES[type] !== undefined) return check(value, TYPES[type], path, depth + 1);
  return [`${path}: unknown type ${type}`];
}

const seen = new Map();
function conforms(fn, type, result) {
  const problems = check(result, type, fn);
  assert.deepEqual(problems.slice(0, 10), [], `${fn} → ${type}`);
  seen.set(fn, (seen.get(fn) ?? 0) + 1);
}

// ---- every exported function with a structured result, on the shared fixtures --------------------

test('the generated declarations are read', () => {
  assert.ok(Object.keys(TYPES).length >= 50, Object.keys(TYPES).join(' '));
  for (const t of ['Report', 'Diagnostic', 'WebhookDiagnosis', 'OrderPrediction', 'Machine', 'MenuDiff', 'Inspection']) assert.ok(TYPES[t], t);
});

test('results have exactly the keys their declared types name', () => {
  for (const c of fixtureJson('menu', 'cases.json')) conforms('lintMenu', 'Report', pkg.lintMenu(fixture('menu', c.file)));
  for (const c of fixtureJson('payload', 'cases.json')) {
    const input = fixture('payload', c.file);
    conforms('validatePayload', 'Report', pkg.validatePayload(input, { kind: c.kind ?? undefined, path: c.path ?? undefined }));
    conforms('inspectInput', 'Inspection', pkg.inspectInput(input, { now: 1786492800 }));
  }
  for (const c of fixtureJson('requests', 'cases.json')) {
    const r = c.request;
    conforms('validateRequest', 'RequestPrediction', pkg.validateRequest({ ...r, body: r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body) }));
  }
  for (const c of fixtureJson('problems', 'cases.json')) {
    const body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
    conforms('classifyProblem', 'Classification', pkg.classifyProblem({ status: c.status, headers: c.headers, body, now: 1786492800 }));
  }
  const now = 1786492800;
  for (const c of fixtureJson('order', 'cases.json')) {
    const text = fixture('order', c.file);
    conforms('checkOrder', 'Report', pkg.checkOrder(text));
    let order;
    try {
      order = JSON.parse(text.toString());
    } catch {
      continue;
    }
    for (const [fn, type, call] of [
      ['nextActions', 'NextActions', () => pkg.nextActions(order, now)],
      ['predictAction', 'OrderPrediction', () => pkg.predictAction(order, 'accept', now)],
      ['predictAction', 'OrderPrediction', () => pkg.predictAction(order, 'reject', now, { reasonCode: 'NO_STOCK' })],
      ['predictAction', 'OrderPrediction', () => pkg.predictAction(order, 'ready', now)],
      ['applyTrigger', 'TriggerOutcome', () => pkg.applyTrigger(order, 'refund_or_incident', now)],
      ['applyEvent', 'EventOutcome', () => pkg.applyEvent(order, { orderKey: order.orderKey ?? order.data?.orderKey, remoteOrderId: 'R-1', event: 'delivered', occurredAt: '2026-08-12T00:00:00Z' })],
    ]) {
      let result;
      try {
        result = call();
      } catch (e) {
        assert.ok(e instanceof pkg.PoscheckError, `${fn}: ${e}`);
        continue;
      }
      conforms(fn, type, result);
    }
  }
  conforms('orderMachine', 'Machine', pkg.orderMachine());
  for (const c of fixtureJson('diff', 'cases.json')) {
    conforms('diffMenu', 'MenuDiff', pkg.diffMenu(fixture(...c.current.split('/')), fixture(...c.next.split('/'))));
  }
  for (const fn of ['menuRules', 'payloadRules', 'orderRules', 'diffRules']) conforms(fn, 'Array<RuleInfo>', pkg[fn]());
  const vectors = fixtureJson('signature', 'vectors.json');
  for (const v of vectors.verify) {
    const input = { body: Buffer.from(v.bodyBase64, 'base64'), headers: v.headers, secret: v.secrets, now: v.now ?? vectors.now, toleranceSeconds: v.toleranceSeconds };
    try {
      conforms('diagnoseWebhook', 'WebhookDiagnosis', pkg.diagnoseWebhook(input));
      conforms('verifyWebhook', 'VerifiedWebhook', pkg.verifyWebhook(input));
    } catch (e) {
      assert.ok(e instanceof pkg.PoscheckError, String(e));
    }
  }
  for (const fn of ['lintMenu', 'validatePayload', 'inspectInput', 'validateRequest', 'classifyProblem', 'checkOrder', 'nextActions', 'predictAction',
    'applyTrigger', 'applyEvent', 'orderMachine', 'diffMenu', 'diagnoseWebhook', 'verifyWebhook']) {
    assert.ok(seen.get(fn) > 0, `${fn} was checked`);
  }
});

test('the check can fail: an undeclared key or a missing one is reported', () => {
  const report = pkg.lintMenu('{}');
  assert.deepEqual(check(report, 'Report', 'r'), []);
  assert.match(check({ ...report, extra: 1 }, 'Report', 'r').join(), /r\.extra: returned but not declared/);
  const { ok, ...missing } = report;
  void ok;
  assert.match(check(missing, 'Report', 'r').join(), /r\.ok: declared but not returned/);
  // Nested: a diagnostic with a key of another shape, a wrong kind of value, a bad enum value.
  const broken = pkg.lintMenu('{"categories": [{}]}');
  assert.ok(broken.diagnostics.length > 0);
  broken.diagnostics[0].lineNumber = 3;
  broken.diagnostics[0].severity = 'fatal';
  broken.diagnostics[0].span = { start: '0', end: 1 };
  const problems = check(broken, 'Report', 'r').join('\n');
  assert.match(problems, /r\.diagnostics\[0\]\.lineNumber: returned but not declared/);
  assert.match(problems, /r\.diagnostics\[0\]\.severity: expected "error"/);
  assert.match(problems, /r\.diagnostics\[0\]\.span\.start: expected number/);
  // A tagged union picks its variant by the tag.
  const inspection = pkg.inspectInput('{"categories": []}');
  assert.deepEqual(check(inspection, 'Inspection', 'i'), []);
  assert.notDeepEqual(check({ ...inspection, detected: 'request' }, 'Inspection', 'i'), []);
});
