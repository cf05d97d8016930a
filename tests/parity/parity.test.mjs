// The parity suite of issue 43: one black-box HTTP scenario (./scenario.mjs), run against the npm
// sandbox and the native sandbox, each in its own process with its own hand-written POS
// (./pos.mjs), and the two transcripts compared step by step: the same statuses, headers and
// bodies (ports, wall-clock signing times and the manual clock's origin normalized) and the same
// deliveries to the POS. The native face is POSCHECK_NATIVE_BIN, else <repo>/target/debug/poscheck;
// when it is missing the test fails. PARITY_DUMP=DIR writes both normalized transcripts (and
// logs) there. POSCHECK_NATIVE_BIN=tests/parity/npm-as-native.sh runs npm against npm: equal, which
// shows that the scenario is deterministic. Each run takes 5-20 s on this 2-core machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FACES, startFace } from './faces.mjs';
import { startPos } from './pos.mjs';
import { compareTranscripts, concurrentInOrder, firstDifference, nextOrigin, normalize, normalizeLog, runScenario } from './scenario.mjs';

const SEED = '4343';
/** What the scenario's steps need beyond the defaults: an hour limit it reaches, and a timeout job after expiresAt. */
const OPTIONS = { perMinute: 100, perHour: 250, timeoutJobDelaySeconds: 30 };

/** Starts one face with its own POS, runs the scenario, stops the face: { transcript, normalized, banner, exitCode }. */
async function runFace(t, label, dir, origin) {
  const pos = await startPos();
  t.after(() => pos.close());
  const optionsFile = join(dir, `options-${label}.json`);
  writeFileSync(optionsFile, JSON.stringify(OPTIONS));
  const stateFile = join(dir, `state-${label}.json`);
  const face = await startFace(FACES[label](), ['--clock', 'manual', '--seed', SEED, '--port', '0', '--pos', pos.url, '--options', optionsFile, '--state', stateFile]);
  t.after(() => face.stop());
  let transcript;
  try {
    transcript = await runScenario({ base: face.base, apiKey: face.apiKey, secret: face.secret, stores: face.stores, pos, origin });
  } catch (e) {
    e.message = `${label}: ${e.message}\n--- its stderr\n${face.err().slice(-2000)}`;
    throw e;
  }
  const exitCode = await face.stop();
  const ports = (s) =>
    s.replace(new RegExp(`:${new URL(face.base).port}\\b`, 'g'), ':<sandbox>').replace(new RegExp(`:${new URL(pos.url).port}\\b`, 'g'), ':<pos>');
  const log = normalizeLog(face.out(), transcript);
  // What SIGTERM left in --state, normalized as a step's body is.
  const saved = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : null;
  const [state] = normalize({ ...transcript, steps: [{ n: 0, name: 'state', request: {}, status: 0, headers: {}, body: saved, deliveries: [] }] });
  return { label, transcript, normalized: normalize(transcript), banner: ports(face.banner), log, state: state.body, exitCode, stderr: face.err() };
}

/** The checks that make the comparison worth something: the transcript is not trivially equal. */
function checkSubstance(run) {
  const { label, normalized: steps } = run;
  const statuses = new Set(steps.map((s) => s.status));
  for (const s of [200, 202, 400, 401, 403, 404, 409, 422, 429, 502, 503]) assert.ok(statuses.has(s), `${label}: some step answers ${s}; seen ${[...statuses].join(', ')}`);
  assert.ok(steps.some((s) => s.headers['idempotent-replayed'] === 'true'), `${label}: a replay says Idempotent-Replayed: true`);
  assert.ok(steps.some((s) => s.status === 429 && /^\d+$/.test(s.headers['retry-after'] ?? '')), `${label}: a 429 carries Retry-After`);
  assert.ok(steps.some((s) => s.body?.counts?.['200'] >= 50 && s.body?.counts?.['429'] === 1), `${label}: a burst reaches the rate limit`);
  const deliveries = steps.flatMap((s) => s.deliveries);
  assert.ok(deliveries.length >= 10, `${label}: the POS received deliveries (${deliveries.length})`);
  for (const d of deliveries) {
    assert.equal(d.verified, true, `${label}: the POS verified ${d.method} ${d.path}`);
    assert.equal(d.headers['x-service-signature-256'], '<verified>', `${label}: ${d.method} ${d.path} is signed`);
  }
  const events = new Set(deliveries.map((d) => d.body?.event).filter(Boolean));
  for (const e of ['driver_assigned', 'driver_released', 'delivered', 'cancelled']) assert.ok(events.has(e), `${label}: an update webhook ${e}`);
  assert.ok(deliveries.some((d) => d.headers['x-service-event-type'] === 'order.created'), `${label}: a creation webhook`);
  assert.ok(deliveries.some((d) => d.path.startsWith('/v1/menu/change/chg_') && d.body?.status === 'partial'), `${label}: a menu change webhook, partial`);
  assert.ok(deliveries.some((d) => d.answer.status === 503), `${label}: an attempt the POS refused (then retried)`);
  const signed = steps.filter((s) => s.name === 'every delivery').flatMap((s) => s.body);
  assert.ok(signed.length >= deliveries.length - 2, `${label}: the sandbox lists its attempts`);
  for (const d of signed) assert.equal(d.headers['X-Service-Signature-256'], '<verified>', `${label}: the listed attempt ${d.deliveryId} #${d.attempt} is signed`);
}

test('the npm face and the native face answer one scenario alike', { timeout: 55_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-parity-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Both at once (each waits on its own process); a failure of one is reported once both settled.
  const origin = nextOrigin(); // one manual-clock origin for both faces
  const settled = await Promise.allSettled([runFace(t, 'npm', dir, origin), runFace(t, 'native', dir, origin)]);
  const failed = settled.filter((r) => r.status === 'rejected').map((r) => r.reason);
  if (failed.length) throw failed[0];
  const [a, b] = settled.map((r) => r.value);
  if (process.env.PARITY_DUMP) {
    for (const r of [a, b]) {
      writeFileSync(join(process.env.PARITY_DUMP, `parity-${r.label}.json`), JSON.stringify(r.normalized, null, 1));
      writeFileSync(join(process.env.PARITY_DUMP, `parity-${r.label}.log`), r.log.join('\n'));
    }
  }
  for (const r of [a, b]) checkSubstance(r);

  // Every difference at once: the steps, then the banner, the log, stderr, the exit code, --state.
  assert.ok(a.log.length > 100, `npm logged its calls and deliveries (${a.log.length} lines)`);
  assert.ok(a.state?.config?.clients?.length === 1, 'npm wrote --state on SIGTERM');
  assert.equal(a.exitCode, 0, 'npm exits 0 on SIGTERM');
  const clip = (v) => JSON.stringify(v)?.slice(0, 300);
  const problems = compareTranscripts(a.normalized, b.normalized, ['npm', 'native']).map((d) => d.message);
  if (b.banner !== a.banner) problems.push(`the banner: npm ${clip(a.banner)} ≠ native ${clip(b.banner)}`);
  const logDiff = firstDifference(a.log, b.log, 'log');
  if (logDiff) problems.push(`the log lines (stdout) at ${logDiff.path}: npm ${clip(logDiff.a)} ≠ native ${clip(logDiff.b)}`);
  if (b.stderr !== a.stderr) problems.push(`stderr: npm ${clip(a.stderr)} ≠ native ${clip(b.stderr)}`);
  if (b.exitCode !== a.exitCode) problems.push(`the exit code on SIGTERM: npm ${a.exitCode} ≠ native ${b.exitCode}`);
  const stateDiff = firstDifference(a.state, b.state, 'state');
  if (stateDiff) problems.push(`the --state file at ${stateDiff.path}: npm ${clip(stateDiff.a)} ≠ native ${clip(stateDiff.b)}`);
  assert.deepEqual(problems, [], `${problems.length} differences; the first: ${problems[0]}`);

  // The comparison bites on these very transcripts: one status changed is named, at its step.
  const changed = structuredClone(b.normalized);
  const k = changed.findIndex((s) => s.status === 409);
  changed[k].status = 200;
  const found = compareTranscripts(a.normalized, changed, ['npm', 'native']);
  assert.equal(found.length, 1);
  assert.equal(found[0].n, k + 1);
  assert.equal(found[0].path, '.status');
});

test('the comparison fails where a transcript differs, and names the step', () => {
  const step = (n, extra = {}) => ({
    n,
    name: `step ${n}`,
    request: { method: 'GET', path: '/api/v1/Orders', headers: {}, body: null },
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: { message: 'ok', data: { items: [{ orderKey: 'ord_A', receivedAt: '<T+0>' }] } },
    deliveries: [{ method: 'POST', path: '/v1/order/STORE-1', headers: { 'x-service-delivery-id': 'u1' }, body: { orderKey: 'ord_A' }, verified: true, answer: { status: 200, body: {} } }],
    ...extra,
  });
  const a = [step(1), step(2), step(3)];
  assert.deepEqual(compareTranscripts(a, structuredClone(a)), [], 'equal transcripts: no difference');

  const status = [step(1), step(2, { status: 422 }), step(3)];
  const d1 = compareTranscripts(a, status, ['npm', 'native']);
  assert.equal(d1.length, 1);
  assert.equal(d1[0].n, 2);
  assert.equal(d1[0].path, '.status');
  assert.match(d1[0].message, /^step 2 \(step 2\) GET \/api\/v1\/Orders: \.status: npm 200 ≠ native 422$/);

  const header = structuredClone(a);
  header[0].headers['retry-after'] = '60';
  assert.equal(compareTranscripts(a, header)[0].path, '.headers.retry-after');

  const body = structuredClone(a);
  body[2].body.data.items[0].receivedAt = '<T+1>';
  assert.equal(compareTranscripts(a, body)[0].path, '.body.data.items[0].receivedAt');

  const delivery = structuredClone(a);
  delivery[1].deliveries.push(delivery[1].deliveries[0]);
  assert.equal(compareTranscripts(a, delivery)[0].path, '.deliveries.length');

  const order = structuredClone(a);
  order[0].body = { data: order[0].body.data, message: 'ok' };
  assert.equal(compareTranscripts(a, order)[0].path, '.body (member order)');

  assert.equal(compareTranscripts(a, a.slice(0, 2))[0].path, '(the step)');
});

test('normalize: ports, the clock origin and the signature, nothing else', () => {
  const secret = 'whsec_test';
  const body = '{"orderKey":"ord_A","occurredAt":"2026-11-29T00:01:40Z"}';
  const ts = String(Math.floor(Date.now() / 1000));
  // The HMAC as the contract states it, computed here without the suite's helper.
  const sig = (s) => `sha256=${createHmacHex(s, `${ts}.${body}`)}`;
  const origin = Date.parse('2026-11-29T00:00:00Z') / 1000;
  const transcript = (signature) => ({
    base: 'http://127.0.0.1:41000',
    posUrl: 'http://127.0.0.1:42000',
    secret,
    origin,
    steps: [{
      n: 1, name: 'one', request: { method: 'GET', path: '/x', headers: {}, body: null }, status: 200, headers: {},
      body: { url: 'http://127.0.0.1:41000/api/v1/', now: origin + 5, due: origin * 1000 + 1500, count: 7, ms: 3.2, at: '2026-11-29T00:00:10Z' },
      deliveries: [{ method: 'PUT', path: '/v1/order/S/P/events', headers: { 'x-service-timestamp': ts, 'x-service-signature-256': signature }, body, verified: true, answer: { status: 200, body: {} } }],
    }],
  });
  const [n] = normalize(transcript(sig(secret)));
  assert.deepEqual(n.body, { url: 'http://127.0.0.1:<sandbox>/api/v1/', now: '<T+5>', due: '<T+1.5>ms', count: 7, ms: '<ms>', at: '<T+10>' });
  assert.deepEqual(n.deliveries[0].headers, { 'x-service-timestamp': '<verified>', 'x-service-signature-256': '<verified>' });
  assert.deepEqual(n.deliveries[0].body, { orderKey: 'ord_A', occurredAt: '<T+100>' });
  const [bad] = normalize(transcript(sig('another secret')));
  assert.match(bad.deliveries[0].headers['x-service-signature-256'], /^<NOT VERIFIED: signature mismatch>$/);
});

function createHmacHex(secret, message) {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(message, 'utf8').digest('hex');
}

test('attempts answered at once are listed in one order; nothing else moves', () => {
  const e = (seq, deliveryId, attempt, at) => ({ seq, type: 'delivery', deliveryId, attempt, at });
  const rest = { seq: 3, type: 'rest', at: 100 };
  const body = { entries: [e(1, 'b', 1, 100), e(2, 'a', 1, 100), rest, e(4, 'd', 2, 100), e(5, 'c', 1, 160)], next: 5 };
  const out = concurrentInOrder(body);
  assert.deepEqual(out.entries.map((x) => [x.seq, x.deliveryId ?? x.type]), [[1, 'a'], [2, 'b'], [3, 'rest'], [4, 'd'], [5, 'c']]);
  assert.deepEqual(body.entries[0].deliveryId, 'b', 'the input is not changed');
  assert.deepEqual(concurrentInOrder([e(1, 'b', 2, 7), e(2, 'b', 1, 7)]).map((x) => x.attempt), [1, 2]);
  assert.deepEqual(concurrentInOrder({ data: 1 }), { data: 1 });
});

test('log lines: the stamp and latencies dropped, ports and clock times normalized, concurrent deliveries sorted', () => {
  const origin = 1_900_000_000 - (1_900_000_000 % 60);
  const at = new Date((origin + 10) * 1000).toISOString();
  const out = [
    '  assumed where the contract shows nothing: {}',
    '01:02:03.456 ← GET /api/v1/Orders 200 in 0.7 ms',
    `01:02:03.500 → PUT http://127.0.0.1:42000/v1/menu/change/chg_B #1 menuChange x: HTTP 200 in 3.1 ms; retry at ${at}`,
    '01:02:03.501 → PUT http://127.0.0.1:42000/v1/menu/change/chg_A #1 menuChange y: HTTP 200 in 12 ms',
    '01:02:03.502 ← GET http://127.0.0.1:41000/ 200 in 1 ms',
    '',
  ].join('\n');
  assert.deepEqual(normalizeLog(out, { base: 'http://127.0.0.1:41000', posUrl: 'http://127.0.0.1:42000', origin }), [
    '← GET /api/v1/Orders 200 in <ms> ms',
    '→ PUT http://127.0.0.1:<pos>/v1/menu/change/chg_A #1 menuChange y: HTTP 200 in <ms> ms',
    '→ PUT http://127.0.0.1:<pos>/v1/menu/change/chg_B #1 menuChange x: HTTP 200 in <ms> ms; retry at <T+10>',
    '← GET http://127.0.0.1:<sandbox>/ 200 in <ms> ms',
  ]);
  assert.equal(nextOrigin(Date.parse('2026-11-29T23:59:59Z')), Date.parse('2026-12-01T00:00:00Z') / 1000);
});
