// The JSON Schemas the package ships (pkg/schemas/<kind>.schema.json, written by `make build` from
// `poscheck schema KIND`), held to the fixtures every test ring reads: ajv (JSON Schema 2020-12,
// strict mode) compiles each; every valid fixture passes its kind's schema; every fixture whose
// defect JSON Schema can express fails it. The manifests say what each fixture breaks; the few
// defects no JSON Schema can express are listed below with the reason, and those fixtures are
// skipped (the test prints them). The CLIs print the shipped bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { root } from './helpers.mjs';

const schemasDir = join(root, 'pkg', 'schemas');
const native = join(root, 'target', 'debug', 'poscheck');
const bin = join(root, 'pkg', 'bin', 'poscheck.js');
const fixturePath = (...p) => join(root, 'tests', 'fixtures', ...p);
const readJson = (...p) => JSON.parse(readFileSync(fixturePath(...p), 'utf8'));

const kinds = JSON.parse(readFileSync(join(root, 'pkg', 'dist', 'schema-kinds.json'), 'utf8')).kinds;
const schemaText = (kind) => readFileSync(join(schemasDir, `${kind}.schema.json`), 'utf8');

// Strict mode: unknown keywords, formats, ignored keywords and loose types all throw. The one
// annotation keyword the schemas add (shown by VS Code on hover) is declared.
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addKeyword('markdownDescription');
const validators = new Map();
const validator = (kind) => {
  if (!validators.has(kind)) validators.set(kind, ajv.compile(JSON.parse(schemaText(kind))));
  return validators.get(kind);
};

/**
 * Rules whose defect no JSON Schema can express, with the reason. A fixture whose errors include
 * one of these is skipped; every other error fails the schema.
 */
const NOT_EXPRESSIBLE = {
  'json/syntax': 'not JSON: a schema validates a parsed document',
  'json/invalid-utf8': 'not UTF-8: a schema validates a parsed document, not bytes',
  'json/too-deep': "a bound of the checker's parser (maxDepth), not a rule of the contract",
  'json/too-large': "a bound of the checker's parser (maxBytes), not a rule of the contract",
  'order-update/old-route': 'the request path, not the body',
  'menu-change/change-key-path': 'the request path agreeing with the body',
  'menu-change/completed-before-submitted': 'a comparison of two timestamps',
  'modifier-group/max-below-min': 'a comparison of two fields (max at least min)',
  'menu/group-min-max': 'the fixtures break max at least min, a comparison of two fields (min at least 0 and max at least 1 are in the schema: tested below)',
  'remote-code/unique-category': 'uniqueness across nodes',
  'remote-code/unique-product': 'uniqueness across nodes',
  'remote-code/unique-group': 'uniqueness across nodes',
  'remote-code/unique-option': 'uniqueness across nodes',
  'order/history-first': 'the order of the history rows',
  'order/history-order': 'the order of the history rows',
  'order/history-continuity': 'a row compared with the previous one',
  'order/history-transition': 'a row compared with the previous one and the transition table',
  'order/history-status': 'the last row compared with the status',
  'order/driver-row': 'fromStatus compared with toStatus',
  'order/timestamp-missing': 'the timestamps compared with the history',
  'order/timestamp-unexpected': 'the timestamps compared with the history',
  'order/timestamp-sequence': 'a comparison of timestamps',
  'order/accepted-after-expiry': 'a comparison of timestamps',
  'order/driver-assigned-at': 'a timestamp compared with the history',
  'order/delivered-at': 'a comparison of timestamps and dates',
};
/**
 * Warnings the schemas of what the POS sends (request bodies, its answers) refuse: a field the
 * contract does not define (usually a typo). What the POS receives (webhook payloads, resources it
 * reads: `webhook:` and `response:` in `poscheck schema --list`) lets it through: the contract adds
 * fields as Additive changes without a version change (Versioning 3-5: "Changes are classified
 * Breaking (code change needed), Behavior (meaning changed, shape did not) or Additive").
 */
const UNKNOWN_FIELD = new Set(['payload/unknown-field', 'order/unknown-field', 'field/unknown']);
const summaries = new Map(JSON.parse(readFileSync(join(root, 'pkg', 'dist', 'schema-kinds.json'), 'utf8')).list.split('\n').filter(Boolean).map((l) => [l.split(' ')[0], l.slice(l.split(' ')[0].length).trim()]));
const received = (kind) => /^(webhook|response):/.test(summaries.get(kind) ?? '');

/**
 * What the schema must say of a fixture, from the diagnostics its manifest lists: invalid when it
 * has an error the schema expresses (or an unknown field); valid when it has no error at all;
 * skipped when its only errors are ones no JSON Schema can express.
 */
function expectation(diagnostics, kind) {
  const because = [...new Set(diagnostics.map((d) => `${d.ruleId}:${d.severity}`))].join(' ') || 'no diagnostic';
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const expressed = errors.filter((d) => !NOT_EXPRESSIBLE[d.ruleId]);
  if (expressed.length > 0 || (!received(kind) && diagnostics.some((d) => d.severity === 'warning' && UNKNOWN_FIELD.has(d.ruleId)))) {
    return { valid: false, because };
  }
  if (errors.length > 0) return { skip: errors.map((d) => `${d.ruleId}: ${NOT_EXPRESSIBLE[d.ruleId]}`).join('; ') };
  return { valid: true, because };
}

const skippedFixtures = [];
const counts = { valid: 0, invalid: 0 };
/** Checks one document against its kind's schema as the manifest expects. */
function check(label, kind, text, diagnostics) {
  const e = expectation(diagnostics, kind);
  if (e.skip) {
    skippedFixtures.push(`${label}: ${e.skip}`);
    return;
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    skippedFixtures.push(`${label}: not a JSON document`);
    return;
  }
  const validate = validator(kind);
  const ok = validate(doc);
  counts[e.valid ? 'valid' : 'invalid']++;
  assert.equal(ok, e.valid, `${label} as ${kind} (${e.because}): schema says ${ok ? 'valid' : JSON.stringify(validate.errors.slice(0, 3))}`);
}

test('the shipped schemas are the kinds of `poscheck schema --list`, one file each, and resolve through the package exports', () => {
  const listed = spawnSync(native, ['schema', '--list'], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(listed.stdout.split('\n').filter(Boolean).map((l) => l.split(' ')[0]), kinds);
  // Beside them, the service's OpenAPI document (tests/js/openapi.test.mjs).
  assert.deepEqual(readdirSync(schemasDir).sort(), [...kinds.map((k) => `${k}.schema.json`), 'openapi.json'].sort());
  for (const k of ['fullMenu', 'orderCreated', 'orderUpdateEvent', 'menuChangeCompleted', 'accept', 'reject', 'statusUpdate', 'productPatch']) {
    assert.ok(kinds.includes(k), k);
  }
  // payloadKinds() of the toolkit are all there.
  const { payloadKinds } = createRequire(import.meta.url)('../../pkg');
  for (const k of payloadKinds()) assert.ok(kinds.includes(k), `payloadKinds() ${k} has a schema`);
  // require.resolve('poscheck/schemas/…') from a project that installed the package.
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-schemas-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(join(root, 'pkg'), join(dir, 'node_modules', 'poscheck'));
    writeFileSync(join(dir, 'index.js'), '');
    const resolved = createRequire(join(dir, 'index.js')).resolve('poscheck/schemas/fullMenu.schema.json');
    assert.equal(readFileSync(resolved, 'utf8'), schemaText('fullMenu'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pkgJson = JSON.parse(readFileSync(join(root, 'pkg', 'package.json'), 'utf8'));
  assert.ok(pkgJson.files.includes('schemas/'), 'pkg/package.json ships schemas/');
});

test('ajv (2020-12, strict mode) compiles every schema; each is self-contained and describes every field', () => {
  for (const kind of kinds) {
    const text = schemaText(kind);
    const schema = JSON.parse(text);
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema', kind);
    assert.ok(schema.title && schema.description.includes('poscheck'), `${kind}: a title, and a description pointing to poscheck`);
    assert.doesNotThrow(() => validator(kind), kind);
    // Self-contained: every $ref is local.
    for (const [, ref] of text.matchAll(/"\$ref": "([^"]*)"/g)) assert.match(ref, /^#\/\$defs\/\w+$/, `${kind}: ${ref}`);
    // Every property of every object carries the contract's words.
    const walk = (node, at) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      for (const [name, prop] of Object.entries(node.properties ?? {})) {
        if (typeof prop === 'object' && at.split('/').every((seg) => !['if', 'then', 'else'].includes(seg))) {
          assert.ok(prop.description, `${kind} ${at}/properties/${name} has a description`);
        }
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(schema, '#');
  }
});

test('payload fixtures: valid ones pass their kind, broken ones fail it (tests/fixtures/payload/cases.json)', () => {
  for (const c of readJson('payload', 'cases.json')) {
    const kind = c.kind ?? c.expectKind;
    if (!kind) continue; // detection failed: no kind to check against (kind-undetected, unreadable JSON)
    // Diagnostics about the request path given beside the body are not the body's.
    const diagnostics = c.expect.filter((d) => !(c.path && PATH_RULES.has(d.ruleId)));
    check(`payload/${c.file}${c.path ? ` (path ${c.path})` : ''}`, kind, readFileSync(fixturePath('payload', c.file), 'utf8'), diagnostics);
  }
});
const PATH_RULES = new Set(['payload/path-unknown', 'payload/path-kind-mismatch', 'order-update/old-route', 'order-update/remote-order-id-path', 'menu-change/change-key-path', 'order/store-remote-id-path']);

test('menu fixtures against fullMenu (tests/fixtures/menu/cases.json)', () => {
  for (const c of readJson('menu', 'cases.json')) {
    check(`menu/${c.file}`, 'fullMenu', readFileSync(fixturePath('menu', c.file), 'utf8'), c.expect);
  }
});

test('order fixtures against orderDetail (tests/fixtures/order/cases.json)', () => {
  for (const c of readJson('order', 'cases.json')) {
    check(`order/${c.file}`, 'orderDetail', readFileSync(fixturePath('order', c.file), 'utf8'), c.expect);
  }
});

/** The request body kinds, by method and exact path. */
const ROUTES = [
  ['POST', /^\/api\/v1\/Orders\/[^/]+\/accept$/, 'accept'],
  ['POST', /^\/api\/v1\/Orders\/[^/]+\/reject$/, 'reject'],
  ['PUT', /^\/api\/v1\/Orders\/[^/]+\/status$/, 'statusUpdate'],
  ['PUT', /^\/api\/v1\/menu\/availability$/, 'availability'],
  ['PUT', /^\/api\/v1\/menu\/prices$/, 'prices'],
  ['PATCH', /^\/api\/v1\/menu\/products\/[^/]+$/, 'productPatch'],
  ['PATCH', /^\/api\/v1\/menu\/modifier-options\/[^/]+$/, 'modifierOptionPatch'],
  ['PATCH', /^\/api\/v1\/menu\/categories\/[^/]+$/, 'categoryPatch'],
  ['PATCH', /^\/api\/v1\/menu\/modifiers\/[^/]+$/, 'modifierGroupPatch'],
  ['POST', /^\/api\/v1\/menu\/changes$/, 'menuChangeBatch'],
  ['POST', /^\/api\/v1\/menu\/stores\/[^/]+\/products$/, 'localProduct'],
  ['PUT', /^\/api\/v1\/menu$/, 'fullMenu'],
];

test('request fixtures: each body against its endpoint\'s kind (tests/fixtures/requests/cases.json)', () => {
  let checked = 0;
  for (const c of readJson('requests', 'cases.json')) {
    const { method, path, body, bodyText } = c.request;
    const route = ROUTES.find(([m, re]) => m === method && re.test(path.split('?')[0]));
    if (!route || (body === null && bodyText === undefined)) continue; // no body, or not an endpoint (404)
    const kind = route[2];
    // Diagnostics of the body only: not those of the request line, the headers or the query.
    const diagnostics = c.expect.filter((d) => !d.ruleId.startsWith('request/') && d.path !== 'confirmLargeDeactivation');
    check(`requests "${c.name}"`, kind, bodyText ?? JSON.stringify(body), diagnostics);
    checked++;
  }
  assert.ok(checked >= 60, `${checked} request bodies checked`);
  // POST /menu/preview reports the linter's semantic errors as warnings (a dry run), so its cases
  // are not used above; its body is the fullMenu schema's, which the PUT /api/v1/menu cases test.
});

test('Versioning 3-5: a field added to what the POS receives passes its schema; a request body still refuses it', () => {
  assert.ok(received('orderDetail') && received('orderUpdateEvent') && !received('fullMenu') && !received('reject'));
  const update = { orderKey: 'ord_0123456789abcDEF', remoteOrderId: 'R-1', event: 'delivered', occurredAt: '2026-08-12T14:30:00Z', courierEta: 'soon' };
  assert.equal(validator('orderUpdateEvent')(update), true, 'an additive field on a webhook payload');
  const detail = readJson('payload', 'order-detail.valid.json');
  (detail.data ?? detail).history[0].note = 'added later';
  (detail.data ?? detail).order.tip = 1;
  assert.equal(validator('orderDetail')(detail), true, 'additive fields in the detail, its history and data.order');
  assert.equal(validator('reject')({ reasonCode: 'STORE_CLOSED', reasn: 'typo' }), false, 'a request body stays as strict as the service');
});

test('what the fixtures do not reach: min and max bounds, conditional fields, timestamps, the CLI\'s kinds', () => {
  const storeMenu = readJson('payload', 'store-menu.valid.json');
  const group = storeMenu.categories?.[0]?.products?.[0]?.modifierGroups?.[0] ?? storeMenu.data.categories[0].products[0].modifierGroups[0];
  assert.ok(group, 'the store menu fixture has a modifier group');
  for (const [key, bad] of [['min', -1], ['max', 0]]) {
    const copy = structuredClone(storeMenu);
    const g = copy.categories?.[0]?.products?.[0]?.modifierGroups?.[0] ?? copy.data.categories[0].products[0].modifierGroups[0];
    g[key] = bad;
    assert.equal(validator('storeMenu')(copy), false, `store menu group ${key} ${bad}`);
  }
  const menu = readJson('menu', 'valid.json');
  menu.categories[0].products[0].image = 'ftp://cdn.example.com/x.png';
  assert.equal(validator('fullMenu')(menu), false, 'an image that is not http(s)');
  const nonAscii = readJson('menu', 'valid.json');
  nonAscii.categories[0].products[0].remoteCode = 'CAFÉ-1';
  assert.equal(validator('fullMenu')(nonAscii), true, 'letters outside ASCII: a warning of the linter, valid here');
  const ts = (s) => validator('orderUpdateEvent')({ orderKey: 'ord_0123456789abcDEF', remoteOrderId: 'R-1', event: 'delivered', occurredAt: s });
  for (const s of ['2026-08-12T14:30:00Z', '2026-08-12T14:30:00.123Z', '2026-08-12T14:30:00+00:00']) assert.ok(ts(s), s);
  for (const s of ['2026-08-12T14:30:00+02:00', '2026-08-12 14:30:00Z', '2026-08-12', '2026-02-30T14:30:00Z', '2026-08-12T14:30Z']) assert.ok(!ts(s), s);
  const patch = validator('modifierOptionPatch');
  assert.ok(patch({ stores: ['S-1'], set: { price: 1.5 } }), 'store scope, the default');
  assert.ok(!patch({ scope: 'brand', set: { price: 1.5 } }), 'brand scope needs categoryCode');
  assert.ok(patch({ scope: 'brand', categoryCode: 'grp_1', set: { price: 1.5, isDefault: true } }));
  assert.ok(!patch({ stores: ['S-1'], set: { isDefault: true } }), 'isDefault is brand only');
  assert.ok(patch({ stores: ['S-1'], set: { isDefault: null, name: 'x' } }), 'null = no change');
});

test('the CLIs print the shipped bytes: the native binary and the npm bin; an unknown kind exits 2 with the list', () => {
  for (const kind of kinds) {
    const n = spawnSync(native, ['schema', kind], { encoding: 'utf8' });
    assert.equal(n.status, 0, n.stderr);
    assert.equal(n.stdout, schemaText(kind), `native poscheck schema ${kind}`);
  }
  for (const kind of ['fullMenu', 'orderUpdateEvent', 'localProduct']) {
    const b = spawnSync('node', [bin, 'schema', kind], { encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
    assert.equal(b.stdout, schemaText(kind), `npx poscheck schema ${kind}`);
  }
  for (const args of [['schema'], ['schema', '--list'], ['schema', 'nope']]) {
    const n = spawnSync(native, args, { encoding: 'utf8' });
    const b = spawnSync('node', [bin, ...args], { encoding: 'utf8' });
    assert.deepEqual([b.status, b.stdout, b.stderr], [n.status, n.stdout, n.stderr], args.join(' '));
  }
  const nope = spawnSync(native, ['schema', 'nope'], { encoding: 'utf8' });
  assert.equal(nope.status, 2);
  assert.match(nope.stderr, /unknown schema kind "nope": expected one of orderUpdateEvent, .*fullMenu.*accept/);
  assert.equal(nope.stdout, '');
  console.log(`fixtures checked: ${counts.valid} valid, ${counts.invalid} invalid; skipped (their defect is not expressible in JSON Schema):\n  ${skippedFixtures.join('\n  ')}`);
  assert.ok(counts.valid >= 80 && counts.invalid >= 100, JSON.stringify(counts));
});
