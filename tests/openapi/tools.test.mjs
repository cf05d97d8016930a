// Ring 3d (make test-openapi): the service's OpenAPI document (pkg/schemas/openapi.json, issue 41)
// fed to the OpenAPI ecosystem's own tools, as a POS team outside JavaScript would:
//   - Redocly CLI lints it (its recommended rules, every example against its schema): no error, no warning;
//   - openapi-typescript generates types from it; a small client written against them type-checks
//     (TypeScript 5, --strict) and runs one accept flow against a running sandbox;
//   - Prism mocks from it (static mode): each operation answers its first example, which passes
//     the document, and Prism's log reports no violation;
//   - Schemathesis runs it against a running sandbox (real clock, rate limits off, a few orders
//     placed first) with the checks not_a_server_error, status_code_conformance,
//     content_type_conformance and response_schema_conformance, --max-examples 25, its default
//     phases and the document's links: no failure; its counts are printed.
// The tools are installed by the Makefile (tests/openapi/tools: npm ci; target/openapi-venv: pip).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createSandbox, root, startKitPos } from '../js/sandbox-kit.mjs';

const DOC = join(root, 'pkg', 'schemas', 'openapi.json');
const doc = JSON.parse(readFileSync(DOC, 'utf8'));
const tools = join(root, 'tests', 'openapi', 'tools', 'node_modules', '.bin');
const venv = process.env.OPENAPI_VENV ?? join(root, 'target', 'openapi-venv');
const quiet = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
/** Every tool run is bounded. */
const RUN_MS = 120_000;

const run = (bin, args, opts = {}) => spawnSync(bin, args, { encoding: 'utf8', env: quiet, timeout: RUN_MS, maxBuffer: 64 << 20, ...opts });

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

// The document's schemas, for ajv (its components as $defs).
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const toDefs = (v) => JSON.parse(JSON.stringify(v).replaceAll('"#/components/schemas/', '"#/$defs/'));
const defs = toDefs(doc.components.schemas);
function responseSchema(path, method, status) {
  let r = doc.paths[path][method].responses[String(status)];
  if (r.$ref) r = doc.components.responses[r.$ref.split('/').at(-1)];
  return Object.values(r.content)[0].schema;
}
const conforms = (schema, value) => {
  const v = ajv.compile({ ...toDefs(schema), $defs: defs });
  return [v(value), v.errors];
};

/** A sandbox with a POS, a menu and `orders` orders; real clock unless told. */
async function sandbox(t, options = {}, orders = 3) {
  const pos = await startKitPos(t);
  const sb = await createSandbox({ pos: pos.url, seed: 41, ...options });
  t.after(() => sb.close());
  pos.attach(sb.secret);
  for (let i = 0; i < orders; i++) await sb.createOrder();
  return sb;
}

// Its recommended rules, every example validated against its schema (tests/openapi/redocly.yaml).
test('Redocly CLI lints the document with its recommended rules: no error, no warning', () => {
  const r = run(join(tools, 'redocly'), ['lint', DOC, '--config', join(root, 'tests', 'openapi', 'redocly.yaml'), '--format=stylish']);
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, out);
  assert.match(out, /Your API description is valid/, out);
  // Its summary names the count of warnings when there is one (a Node version banner aside).
  assert.doesNotMatch(out, /You have \d+ warnings?|\d+:\d+\s+(warning|error)\s/, out);
});

test('openapi-typescript: a client written against the generated types type-checks (tsc --strict) and accepts an order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-openapi-ts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const gen = run(join(tools, 'openapi-typescript'), [DOC, '-o', join(dir, 'api.d.ts')]);
  assert.equal(gen.status, 0, gen.stderr);
  writeFileSync(join(dir, 'client.ts'), `import type { paths } from './api';

type List = paths['/api/v1/Orders']['get'];
type Accept = paths['/api/v1/Orders/{orderKey}/accept']['post'];
type Detail = paths['/api/v1/Orders/{orderKey}']['get'];

/** Lists the pending orders, accepts the first one, reads it back. */
export async function acceptFirstPending(base: string, apiKey: string) {
  const key = { 'X-Service-Api-Key': apiKey };
  const query: NonNullable<List['parameters']['query']> = { Status: 'Pending', PageSize: 10 };
  const listed = await fetch(\`\${base}/api/v1/Orders?Status=\${query.Status}&PageSize=\${query.PageSize}\`, { headers: key });
  const page = (await listed.json()) as List['responses']['200']['content']['application/json'];
  const first = page.data.items[0];
  if (!first) throw new Error('no pending order');
  const path: Accept['parameters']['path'] = { orderKey: first.orderKey };
  const headers: Accept['parameters']['header'] = { 'Idempotency-Key': crypto.randomUUID(), 'X-Service-Schema-Version': '1.0' };
  const body: Accept['requestBody']['content']['application/json'] = {};
  const res = await fetch(\`\${base}/api/v1/Orders/\${path.orderKey}/accept\`, {
    method: 'POST',
    headers: { ...key, ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 202) {
    const problem = (await res.json()) as Accept['responses']['409']['content']['application/problem+json'];
    throw new Error(\`accept answered \${problem.status}: \${problem.detail}\`);
  }
  const accepted = (await res.json()) as Accept['responses']['202']['content']['application/json'];
  const status: 'Preparing' = accepted.data.status;
  const read = await fetch(\`\${base}/api/v1/Orders/\${path.orderKey}\`, { headers: key });
  const detail = (await read.json()) as Detail['responses']['200']['content']['application/json'];
  return { orderKey: accepted.data.orderKey, status, acceptedAt: accepted.data.acceptedAt, detail: detail.data.status, history: detail.data.history.length };
}
`);
  // A misuse the types must refuse: a status outside the read vocabulary.
  writeFileSync(join(dir, 'wrong.ts'), `import type { paths } from './api';
const q: NonNullable<paths['/api/v1/Orders']['get']['parameters']['query']> = { Status: 'DriverAssigned' };
export default q;
`);
  const tsconfig = { compilerOptions: { strict: true, target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: [], outDir: 'out', skipLibCheck: false }, files: ['client.ts'] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  const tsc = run(join(tools, 'tsc'), ['-p', dir]);
  assert.equal(tsc.status, 0, `tsc --strict on the client: ${tsc.stdout}${tsc.stderr}`);
  writeFileSync(join(dir, 'tsconfig.wrong.json'), JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, noEmit: true }, files: ['wrong.ts'] }));
  const wrong = run(join(tools, 'tsc'), ['-p', join(dir, 'tsconfig.wrong.json')]);
  assert.notEqual(wrong.status, 0, 'the types refuse a status outside the read vocabulary');
  assert.match(wrong.stdout, /DriverAssigned/);
  const sb = await sandbox(t, { clock: 'manual' }, 2);
  const { acceptFirstPending } = await import(join(dir, 'out', 'client.js'));
  const out = await acceptFirstPending(sb.url, sb.apiKey);
  assert.equal(out.status, 'Preparing');
  assert.equal(out.detail, 'Preparing');
  assert.ok(out.history >= 2, JSON.stringify(out));
});

/** The first example of a media type (what Prism's static mode answers), or undefined. */
const firstExample = (media) => Object.values(media?.examples ?? {})[0]?.value;

// Prism (static mode, its default) answers every operation with the first example of its 2xx
// response; the requests are built from the document alone (the path parameters and bodies from
// its own examples, so Prism's request validation sees them too). Each answer must be that example
// and pass the document's schema, and Prism's log must report no violation of either side.
test('Prism mocks from the document: its answers pass the document', async (t) => {
  const port = await freePort();
  const prism = spawn(join(tools, 'prism'), ['mock', '-h', '127.0.0.1', '-p', String(port), DOC], { env: quiet, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  prism.stdout.on('data', (c) => (log += c));
  prism.stderr.on('data', (c) => (log += c));
  t.after(() => prism.kill('SIGTERM'));
  const started = Date.now();
  while (!/listening on/i.test(log)) {
    assert.ok(prism.exitCode === null, `prism exited: ${log}`);
    assert.ok(Date.now() - started < RUN_MS, `prism did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const base = `http://127.0.0.1:${port}`;
  const key = { 'X-Service-Api-Key': 'mock-key' };
  const mutation = { ...key, 'Idempotency-Key': '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10', 'X-Service-Schema-Version': '1.0', 'Content-Type': 'application/json' };
  const op = (path, method) => doc.paths[path][method];
  const answer = (path, method, status) => firstExample(op(path, method).responses[String(status)].content['application/json']);
  // Path parameters from the document's own examples.
  const params = {
    orderKey: answer('/api/v1/Orders/{orderKey}', 'get', 200).data.orderKey,
    changeId: answer('/api/v1/menu/changes/{changeId}', 'get', 200).data.changeId,
    storeRemoteId: firstExample(op('/api/v1/menu/availability', 'put').requestBody.content['application/json']).stores[0],
    code: answer('/api/v1/menu/stores/{storeRemoteId}', 'get', 200).data.categories[0].products[0].code,
  };
  const cases = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const status = Number(Object.keys(operation.responses).find((s) => s.startsWith('2')));
      const path = template.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(params[name]));
      const body = operation.requestBody && firstExample(operation.requestBody.content['application/json']);
      assert.ok(!operation.requestBody || body !== undefined, `${operation.operationId}: its request body has an example`);
      cases.push({ method: method.toUpperCase(), path, template, status, headers: operation.requestBody ? mutation : key, body });
    }
  }
  cases.push({ method: 'GET', path: '/api/v1/Orders?Status=Pending&PageSize=10', template: '/api/v1/Orders', status: 200, headers: key });
  /** Waits (bounded) until Prism's log shows `re` `count` times. */
  const logged = async (re, count) => {
    const since = Date.now();
    while ((log.match(new RegExp(re, 'g')) ?? []).length < count) {
      assert.ok(Date.now() - since < 10_000, `Prism's log lacks ${count} × ${re}:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  let answered = 0;
  for (const { method, path, template, status, headers, body } of cases) {
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    assert.equal(res.status, status, `${method} ${path}: ${text.slice(0, 300)}`);
    answered++;
    const json = JSON.parse(text);
    assert.deepEqual(json, answer(template, method.toLowerCase(), status), `${method} ${path}: Prism answers the first example`);
    const [ok, errors] = conforms(responseSchema(template, method.toLowerCase(), status), json);
    assert.ok(ok, `${method} ${path}: Prism's example fails the document: ${JSON.stringify(errors?.slice(0, 3))}\n${text.slice(0, 400)}`);
  }
  assert.ok(answered >= 19, `${answered} cases`);
  await logged('Responding with "2', answered);
  assert.doesNotMatch(log, /✖|violation/i, `Prism found a violation:\n${log}`);
  // A request without the API key: Prism's own 401, and the one violation it logs (the check above can fail).
  const res = await fetch(`${base}/api/v1/Orders`, { signal: AbortSignal.timeout(30_000) });
  await res.text();
  assert.equal(res.status, 401);
  await logged('Violation: request', 1);
  assert.deepEqual(log.match(/Violation: .*/g), ['Violation: request Invalid security scheme used']);
  console.log(`prism: ${answered} answers (${answered - 1} operations and a query), each its first example and valid; no violation in its log; a missing key its 401 and violation`);
});

test('Schemathesis against a running sandbox: no failure of the four checks', async (t) => {
  const bin = join(venv, 'bin', 'schemathesis');
  // Real clock, rate limits off (the load-test option), a few orders placed first (their keys feed
  // the links of GET /Orders), a menu seeded so that the menu reads have something.
  const sb = await sandbox(t, { clock: 'real', rateLimits: false }, 4);
  sb.seedMenu({ categories: [{ remoteCode: 'CAT-1', name: 'Burgers', position: 0, products: [{ remoteCode: 'P-1', name: 'Classic', description: null, price: 7.5, tax: 0.18, maxPerOrder: 10, image: 'https://cdn.example.test/p-1.png', modifierGroups: [] }] }] });
  const reportDir = mkdtempSync(join(tmpdir(), 'poscheck-schemathesis-'));
  t.after(() => rmSync(reportDir, { recursive: true, force: true }));
  mkdirSync(reportDir, { recursive: true });
  const args = [
    '--config-file', join(root, 'tests', 'openapi', 'schemathesis.toml'),
    'run', `${sb.url}/_sandbox/openapi.json`,
    '--checks', 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
    '--max-examples', '25',
    '--seed', '41',
    '--no-color',
    '--report', 'junit', '--report-dir', reportDir,
  ];
  const child = spawn(bin, args, {
    env: { ...quiet, POSCHECK_API_KEY: sb.apiKey, SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: join(root, 'tests', 'openapi'), PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('timeout');
    }, 4 * RUN_MS);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  // The final summary (the progress lines before it redraw themselves).
  const at = out.lastIndexOf('API Operations:');
  const summary = (at < 0 ? out.slice(-3000) : out.slice(at)).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  console.log(`schemathesis ${args.join(' ')}\n${summary}`);
  assert.equal(code, 0, `schemathesis exit ${code}:\n${out.slice(-6000)}`);
  assert.match(out, /No issues found|passed/i, out.slice(-3000));
});
