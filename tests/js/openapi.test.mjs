// The OpenAPI 3.1 document of the service (issue 41): `poscheck openapi` native and npm print the
// same bytes, the package ships them as schemas/openapi.json, the sandbox serves them at
// /_sandbox/openapi.json with its own URL; every answer of a running sandbox in a flow of every
// endpoint passes the document's schema for its operation and status (ajv, JSON Schema 2020-12);
// and the three defects an independent Schemathesis run found stay fixed, each held to the
// contract's sentence. The OpenAPI ecosystem's own tools (Redocly, openapi-typescript, Prism,
// Schemathesis) run in tests/openapi/ (make test-openapi).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createSandbox, rawRequest, restClient, root, sendBody, startKitPos } from './sandbox-kit.mjs';
import { readExamples, sourceOf } from '../openapi/examples.mjs';

const shipped = readFileSync(join(root, 'pkg', 'schemas', 'openapi.json'), 'utf8');
const doc = JSON.parse(shipped);
const DEFAULT_BASE = 'http://127.0.0.1:8787';

async function setup(t) {
  const pos = await startKitPos(t);
  const sb = await createSandbox({ clock: 'manual', seed: 41, pos: pos.url });
  t.after(() => sb.close());
  pos.attach(sb.secret);
  return { sb, pos, api: restClient(sb) };
}

// ---- the document's schemas, for ajv ------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const toDefs = (v) => JSON.parse(JSON.stringify(v).replaceAll('"#/components/schemas/', '"#/$defs/'));
const defs = toDefs(doc.components.schemas);
const compiled = new Map();
/** The validator of a response schema of the document (its components as $defs). */
function validatorOf(schema) {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) compiled.set(key, ajv.compile({ ...toDefs(schema), $defs: defs }));
  return compiled.get(key);
}
/** The operation of a method and a concrete path (`/api/v1/Orders/ord_…/accept`). */
function operationOf(method, path) {
  const pathname = path.split('?')[0];
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(pathname) && item[method.toLowerCase()]) return item[method.toLowerCase()];
  }
  return null;
}
const checked = { answers: 0, statuses: new Set() };
/** An answer of the sandbox against its operation's response in the document. */
function conforms(method, path, status, contentType, body) {
  const op = operationOf(method, path);
  assert.ok(op, `${method} ${path} is an operation of the document`);
  let response = op.responses[String(status)];
  assert.ok(response, `${method} ${path}: ${status} is a documented status of ${op.operationId} (${Object.keys(op.responses)})`);
  if (response.$ref) response = doc.components.responses[response.$ref.split('/').at(-1)];
  const [mediaType, media] = Object.entries(response.content)[0];
  assert.equal(contentType.split(';')[0].trim(), mediaType, `${method} ${path} ${status}: Content-Type`);
  const validate = validatorOf(media.schema);
  assert.ok(validate(JSON.parse(body)), `${method} ${path} ${status}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${body.slice(0, 400)}`);
  checked.answers++;
  checked.statuses.add(`${op.operationId} ${status}`);
}

// ---- the bytes ----------------------------------------------------------------------------------------------

test('native `poscheck openapi`, the npm bin and the shipped schemas/openapi.json are the same bytes', () => {
  const native = spawnSync(join(root, 'target', 'debug', 'poscheck'), ['openapi'], { encoding: 'utf8', maxBuffer: 16 << 20 });
  assert.equal(native.status, 0, native.stderr);
  const npm = spawnSync(process.execPath, [join(root, 'pkg', 'bin', 'poscheck.js'), 'openapi'], { encoding: 'utf8', maxBuffer: 16 << 20 });
  assert.equal(npm.status, 0, npm.stderr);
  assert.equal(native.stdout, shipped, 'native = shipped');
  assert.equal(npm.stdout, shipped, 'npm = shipped');
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.servers[0].url, DEFAULT_BASE, "servers[0].url: the sandbox's default base, no variables");
  assert.ok(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/')), 'paths carry the /api/v1/ prefix; no /_sandbox/ control');
  const pkgJson = JSON.parse(readFileSync(join(root, 'pkg', 'package.json'), 'utf8'));
  assert.ok(pkgJson.files.includes('schemas/'), 'shipped with the package');
});

test('the sandbox serves the document at /_sandbox/openapi.json with its own URL, the rest byte for byte', async (t) => {
  const { sb } = await setup(t);
  const res = await fetch(`${sb.url}/_sandbox/openapi.json`);
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.equal(JSON.parse(text).servers[0].url, sb.url);
  assert.equal(text.replace(`"url": "${sb.url}"`, `"url": "${DEFAULT_BASE}"`), shipped);
});

// ---- the document's examples -----------------------------------------------------------------------------

describe("the document's examples (what a mock server answers)", () => {
  /** Every media type of the document with its examples: `[where, media]`. */
  const withExamples = [];
  for (const section of ['paths', 'webhooks']) {
    for (const [path, item] of Object.entries(doc[section])) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (op.requestBody) withExamples.push([`${where} requestBody`, op.requestBody.content['application/json']]);
        for (const [status, r] of Object.entries(op.responses)) {
          for (const media of Object.values(r.content ?? {})) if (media.examples) withExamples.push([`${where} ${status}`, media]);
        }
      }
    }
  }

  test('every example passes the schema of its media type (ajv, JSON Schema 2020-12)', () => {
    let n = 0;
    for (const [where, media] of withExamples) {
      const validate = validatorOf(media.schema);
      for (const [name, { value }] of Object.entries(media.examples)) {
        assert.ok(validate(value), `${where} example ${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
        n++;
      }
    }
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    assert.equal(withExamples.filter(([w]) => w.endsWith('requestBody')).length, operations.filter((o) => o.requestBody).length + 3, 'every request body');
    assert.ok(n >= 40, `${n} examples`);
    // The check can fail: the order detail's example with both conditional fulfillment times.
    const [, detail] = withExamples.find(([w]) => w === 'GET /api/v1/Orders/{orderKey} 200');
    const broken = structuredClone(Object.values(detail.examples)[0].value);
    broken.data.order.fulfillment.customerPickupAt = broken.data.order.fulfillment.driverPickupAt;
    assert.equal(validatorOf(detail.schema)(broken), false, 'driverPickupAt and customerPickupAt together');
    console.log(`openapi: ${n} examples in ${withExamples.length} media types pass their schema`);
  });

  test("every example is its source's value: a valid fixture, a 2xx request case, the sandbox's answer", async () => {
    const examples = readExamples();
    let n = 0;
    for (const [kind, list] of Object.entries(examples)) {
      if (kind.startsWith('$')) continue;
      for (const e of list) {
        assert.deepEqual(e.value, await sourceOf(e.from, examples), `${kind} ${e.name} (${e.from}): node tests/openapi/examples.mjs --write`);
        n++;
      }
    }
    assert.ok(n >= 30, `${n} examples`);
  });
});

// ---- a running sandbox answers as the document says -------------------------------------------------------

const MENU = {
  categories: [{ remoteCode: 'CAT-1', name: 'Burgers', position: 0, products: [
    { remoteCode: 'P-1', name: 'Classic', description: null, price: 7.5, tax: 0.18, maxPerOrder: 10, image: 'https://cdn.example.test/p-1.png', modifierGroups: [
      { remoteCode: 'G-1', name: 'Sauce', min: 0, max: 1, type: 'radio', options: [{ remoteCode: 'O-1', name: 'Ketchup', price: 0, isDefault: false, maxPerOrder: 1 }] },
    ] },
  ] }],
};

describe('every answer of a running sandbox conforms to the document', () => {
  test('a flow over every endpoint, its errors included', async (t) => {
    const { sb, api } = await setup(t);
    const call = async (method, path, opts) => {
      const r = await api.call(method, path, opts);
      conforms(method, path, r.status, r.headers.get('content-type'), r.text);
      return r;
    };
    const store = sb.stores[0].remoteId;
    sb.seedMenu(MENU);
    const orders = [await sb.createOrder(), await sb.createOrder(), await sb.createOrder()];
    const list = await call('GET', '/api/v1/Orders?PageSize=2');
    assert.equal(list.data.items.length, 2);
    await call('GET', `/api/v1/Orders?PageSize=2&Cursor=${encodeURIComponent(list.data.nextCursor)}`);
    await call('GET', '/api/v1/Orders?Status=Pending&FromDate=2020-01-01T00:00:00Z');
    await call('GET', `/api/v1/Orders/${orders[0].orderKey}`);
    assert.equal((await call('POST', `/api/v1/Orders/${orders[0].orderKey}/accept`, { body: {} })).status, 202);
    const key = randomUUID();
    await call('PUT', `/api/v1/Orders/${orders[0].orderKey}/status`, { body: { status: 'ready' }, idempotencyKey: key });
    const replay = await call('PUT', `/api/v1/Orders/${orders[0].orderKey}/status`, { body: { status: 'ready' }, idempotencyKey: key });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal((await call('PUT', `/api/v1/Orders/${orders[0].orderKey}/status`, { body: { status: 'preparing' } })).status, 409);
    assert.equal((await call('POST', `/api/v1/Orders/${orders[1].orderKey}/reject`, { body: { reasonCode: 'NOT_A_CODE' } })).status, 202);
    assert.equal((await call('POST', `/api/v1/Orders/${orders[1].orderKey}/accept`, { body: {} })).status, 409);
    assert.equal((await call('POST', `/api/v1/Orders/${orders[2].orderKey}/reject`, { body: {} })).status, 422);
    assert.equal((await call('GET', '/api/v1/Orders/ord_0000000000000000')).status, 404);
    assert.equal((await call('GET', '/api/v1/Orders', { apiKey: 'nope' })).status, 401);
    assert.equal((await call('POST', `/api/v1/Orders/${orders[2].orderKey}/accept`, { body: {}, headers: { 'X-Service-Schema-Version': '2.0' } })).status, 400);
    const menu = await call('GET', `/api/v1/menu/stores/${store}`);
    const product = menu.data.categories[0].products[0];
    await call('GET', '/api/v1/menu/capabilities');
    const write = await call('PUT', '/api/v1/menu/availability', { body: { stores: [store], items: [{ targetEntity: 'product', targetCode: product.remoteCode, available: false }] } });
    assert.equal(write.status, 202);
    await call('PUT', '/api/v1/menu/prices', { body: { stores: [store], items: [{ targetEntity: 'product', targetCode: product.remoteCode, price: 8 }] } });
    await call('PATCH', `/api/v1/menu/products/${product.code}`, { body: { stores: [store], set: { name: 'Classic 2' } } });
    await call('POST', `/api/v1/menu/stores/${store}/products`, { body: { code: 'LOCAL-1', name: 'Soup', price: 4, categoryCode: menu.data.categories[0].code } });
    await call('GET', `/api/v1/menu/changes/${write.data.changeId}`);
    assert.equal((await call('POST', '/api/v1/menu/preview', { body: MENU })).status, 200);
    assert.equal((await call('PUT', '/api/v1/menu', { body: MENU })).status, 200);
    assert.equal((await call('PUT', '/api/v1/menu', { body: { categories: [] } })).status, 409, 'a bulk deactivation');
    assert.ok(checked.answers >= 24 && checked.statuses.size >= 20, `${checked.answers} answers, ${checked.statuses.size} operation statuses`);
    console.log(`openapi: ${checked.answers} sandbox answers conform (${checked.statuses.size} operation/status pairs)`);
  });
});

// ---- the defects Schemathesis found (issue 41), each against the contract's sentence ------------------------

describe('regressions found by Schemathesis', () => {
  test('"List page size: maximum 100, default 20", "PageSize (integer)": every invalid PageSize is the 422 of 101', async (t) => {
    const { sb, api } = await setup(t);
    await sb.createOrder();
    for (const size of ['-1', '0', 'abc', '1.5', '101']) {
      const r = await api.get(`/api/v1/Orders?PageSize=${size}`);
      assert.equal(r.status, 422, `PageSize=${size}`);
      assert.ok(r.json.type.endsWith('/validation') && Array.isArray(r.json.meta.errors.PageSize), `PageSize=${size}: ${r.text}`);
      conforms('GET', '/api/v1/Orders', r.status, r.headers.get('content-type'), r.text);
    }
    assert.equal((await api.get('/api/v1/Orders?PageSize=100')).status, 200);
  });

  test('"Deeper semantic validations come back as warnings, not 422" (preview): structural errors are the 422 of PUT /menu', async (t) => {
    const { api } = await setup(t);
    const broken = (edit) => {
      const m = structuredClone(MENU);
      edit(m.categories[0].products[0]);
      return m;
    };
    for (const [what, menu] of [
      ['a product without image ("product without image in a full submission", Errors: 422)', broken((p) => delete p.image)],
      ['a product without remoteCode ("required on every entity")', broken((p) => delete p.remoteCode)],
      ['a price of the wrong type ("price (number)")', broken((p) => (p.price = 'cheap'))],
      ['a name of the wrong type', broken((p) => (p.name = 7))],
    ]) {
      const preview = await api.call('POST', '/api/v1/menu/preview', { body: menu });
      const put = await api.call('PUT', '/api/v1/menu', { body: menu });
      assert.deepEqual([preview.status, put.status], [422, 422], what);
      assert.deepEqual(Object.keys(preview.json.meta.errors), Object.keys(put.json.meta.errors), `${what}: the same fields`);
    }
    // A deeper semantic validation (a product remoteCode twice, across the menu): a warning on preview, a 422 on PUT.
    const twice = structuredClone(MENU);
    twice.categories[0].products.push({ ...structuredClone(MENU.categories[0].products[0]), name: 'Double' });
    const preview = await api.call('POST', '/api/v1/menu/preview', { body: twice });
    assert.equal(preview.status, 200);
    assert.ok(preview.data.warnings.some((w) => w.ruleId === 'remote-code/unique-product'), JSON.stringify(preview.data.warnings));
    assert.equal((await api.call('PUT', '/api/v1/menu', { body: twice })).status, 422);
  });

  test('"Every error follows RFC 7807 Problem Details: … traceId, meta (object or null)": 413, 431 and 400 carry a traceId', async (t) => {
    const { sb } = await setup(t);
    const port = Number(new URL(sb.url).port);
    const answers = [];
    const big = await sendBody(sb.url, 'POST', '/api/v1/menu/preview', {
      headers: { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
      body: Buffer.alloc(17 * 1024 * 1024, 0x20),
    });
    answers.push([413, big.status, big.headers['content-type'], big.text]);
    const head = await rawRequest(port, Buffer.from(`GET /api/v1/Orders HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-Pad-${i}: ${'p'.repeat(20)}`).join('\r\n')}\r\n\r\n`));
    answers.push([431, head.status, head.headers['content-type'], head.body]);
    const garbage = await rawRequest(port, Buffer.from('GET /api/v1/Orders HTTP/1.1\r\nBad Header: x\r\n\r\n'));
    answers.push([400, garbage.status, garbage.headers['content-type'], garbage.body]);
    for (const [expected, status, contentType, text] of answers) {
      assert.equal(status, expected);
      assert.match(contentType, /^application\/problem\+json/);
      const p = JSON.parse(text);
      assert.equal(typeof p.traceId, 'string', `${status}: traceId is a string: ${text}`);
      assert.match(p.traceId, /^[0-9a-f]{32}$/);
      assert.equal(p.status, status);
      assert.ok(validatorOf({ $ref: '#/components/schemas/Problem' })(p), `${status}: the document's Problem`);
    }
  });
});
