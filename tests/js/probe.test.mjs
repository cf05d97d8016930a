// The go-live probe (issue 28) against POSes in their own processes (tests/js/probe-pos.mjs): a
// hand-written one and one built with createReceiver pass every receiver check; each faulty one
// fails exactly the checks of its fault, by id, with the evidence. The reports are read back: the
// JSON as data, the JUnit XML with fast-xml-parser, the Markdown as a table; the CLI's exit codes
// and streams as a CI job sees them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import test from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { probe, probeRules, formatProbeReport, SandboxError } from '../../pkg/dist/sandbox.mjs';
import { root } from './helpers.mjs';
import { startPos } from './probe-kit.mjs';

const bin = `${root}pkg/bin/poscheck.js`;
const posScript = `${root}tests/js/probe-pos.mjs`;


/** One probe run against a POS started with `args`. */
async function run(args, options = {}) {
  const pos = await startPos(...args);
  try {
    return await probe({ pos: pos.url, wait: 6, onReady: (c) => pos.configure(c), ...options });
  } finally {
    pos.stop();
  }
}

const ids = (report, status) => report.checks.filter((c) => c.status === status).map((c) => c.id);
const receiverIds = probeRules().filter((r) => r.side === 'receiver').map((r) => r.id);

test('probeRules: every check with an id, a side, a severity and the contract sentence it rests on', () => {
  const rules = probeRules();
  assert.ok(rules.length >= 30, `${rules.length} rules`);
  for (const r of rules) {
    assert.match(r.id, /^(receiver|client)\/[a-z0-9-]+$/, r.id);
    assert.equal(r.id.split('/')[0], r.side);
    assert.ok(['error', 'warning'].includes(r.severity));
    assert.ok(['stated', 'derived', 'assumed'].includes(r.basis));
    assert.ok(r.source.length > 20 && r.doc.length > 20, r.id);
  }
  // The example id, and one per receiver item of the checklist.
  for (const id of ['receiver/signature-tampered-body', 'receiver/duplicate-concurrent-copies', 'receiver/update-unknown-event', 'receiver/answer-latency', 'client/retry-after-honoured', 'client/list-cursor-followed']) {
    assert.ok(rules.some((r) => r.id === id), id);
  }
  rules[0].id = 'changed';
  assert.notEqual(probeRules()[0].id, 'changed', 'a copy each call');
});

for (const [label, args] of [
  ['a hand-written POS (node:http and node:crypto)', []],
  ['a POS built with createReceiver', ['--kit']],
]) {
  test(`${label} passes every receiver check and fails no client check`, async () => {
    const report = await run(args);
    assert.equal(report.ok, true, formatProbeReport(report, 'text'));
    assert.deepEqual(ids(report, 'failed'), []);
    for (const id of receiverIds) assert.equal(report.checks.find((c) => c.id === id)?.status, 'passed', id);
    // What this POS does with its REST client is judged too: it accepts, meets "already Ready",
    // and continues with handed_over.
    for (const id of ['client/idempotency-key-fresh', 'client/schema-version', 'client/path-casing', 'client/accept-before-expiry', 'client/ready-conflict-continues']) {
      assert.equal(report.checks.find((c) => c.id === id).status, 'passed', id);
    }
    assert.equal(report.checks.length, probeRules().length);
    assert.deepEqual(report.summary, {
      passed: ids(report, 'passed').length,
      failed: 0,
      inconclusive: ids(report, 'inconclusive').length,
      skipped: 0,
    });
  });
}

// One faulty POS per check: exactly its checks fail, by id, with the exchange as evidence.
const faults = [
  // Accepting any signature lets both a changed body and another secret through.
  { fault: 'any-signature', what: 'accepts any signature', fails: ['receiver/signature-tampered-body', 'receiver/signature-wrong-secret'], evidence: /X-Service-Signature-256/ },
  { fault: 'reserialized', what: 'verifies a re-serialized body', fails: ['receiver/signature-raw-body'], evidence: /HTTP 401|"status":401/ },
  { fault: 'new-id-on-retry', what: 'gives a new remoteOrderId on a retry', fails: ['receiver/duplicate-retry-same-id'], evidence: /R-\d/ },
  { fault: 'handler-twice', what: 'calls the handler twice for concurrent copies', fails: ['receiver/duplicate-concurrent-copies'], evidence: /copy 2 of 3/ },
  { fault: 'unknown-event-500', what: 'answers 500 to an unknown event', fails: ['receiver/update-unknown-event'], evidence: /driver_arrived/ },
  { fault: 'slow', what: 'is slower than the budget given', args: ['--slow-ms', '250'], options: { budgetMs: 150 }, fails: ['receiver/answer-latency'], evidence: /"ms":\s*(2[5-9]\d|[3-9]\d\d|\d{4,})\b/ }, // at least the POS's 250 ms (more on a loaded host)
  { fault: 'reuse-key', what: 'reuses an Idempotency-Key for a new attempt', fails: ['client/idempotency-key-fresh'], evidence: /idempotency-key/ },
  { fault: 'ignore-retry-after', what: 'ignores Retry-After', options: { faults: { 429: 0.6 }, seed: 7 }, fails: ['client/retry-after-honoured'], evidence: /"status":\s*429/ },
];
for (const { fault, what, args = [], options = {}, fails, evidence } of faults) {
  test(`a POS that ${what}: ${fails.join(' and ')} fail${fails.length === 1 ? 's' : ''}, and nothing else`, async () => {
    const report = await run(['--fault', fault, ...args], options);
    assert.equal(report.ok, false);
    assert.deepEqual(ids(report, 'failed'), fails, formatProbeReport(report, 'text'));
    for (const id of fails) {
      const c = report.checks.find((x) => x.id === id);
      assert.ok(c.evidence.length >= 1, `${id} shows the exchange`);
      assert.match(JSON.stringify(c.evidence), evidence, `${id}'s evidence`);
      assert.ok(c.basis.source.length > 0 && c.message.length > 0);
      for (const e of c.evidence) {
        const sig = Object.entries(e.headers).find(([k]) => k.toLowerCase() === 'x-service-signature-256')?.[1];
        if (sig) assert.ok(sig.length <= 20, `the signature is shortened in the evidence: ${sig}`);
      }
    }
  });
}

test('--only and receiverOnly: the rest is skipped; a client scenario the POS never acts on is inconclusive, not failed', async () => {
  const only = await run([], { only: ['receiver/signature-missing', 'client/path-casing'], receiverOnly: true });
  assert.deepEqual(ids(only, 'passed'), ['receiver/signature-missing']);
  assert.equal(ids(only, 'skipped').length, probeRules().length - 1);
  // A POS whose REST client calls somewhere else (a closed port): the sandbox sees no call.
  const pos = await startPos();
  try {
    const report = await probe({ pos: pos.url, wait: 1, only: ['client'], onReady: (c) => pos.configure({ ...c, url: 'http://127.0.0.1:9' }) });
    assert.deepEqual(ids(report, 'failed'), []);
    assert.equal(ids(report, 'inconclusive').length, probeRules().filter((r) => r.side === 'client').length);
    assert.match(report.checks.find((c) => c.id === 'client/authenticated').message, /no REST call/);
  } finally {
    pos.stop();
  }
});

test('nothing listening at the POS URL: no receiver check passes', async () => {
  const report = await probe({ pos: 'http://127.0.0.1:9', receiverOnly: true });
  assert.equal(report.ok, false);
  assert.deepEqual(ids(report, 'passed'), []);
  assert.deepEqual(ids(report, 'failed'), ['receiver/order-created-answered', 'receiver/menu-change-answered']);
  assert.match(report.checks.find((c) => c.id === 'receiver/order-created-answered').evidence[0].error ?? '', /ECONNREFUSED|connect/);
  // A refusal by a POS that refuses valid deliveries too proves nothing: inconclusive, like the
  // checks that need a working creation.
  for (const id of ['receiver/signature-tampered-body', 'receiver/duplicate-retry-same-id', 'receiver/update-delivered', 'receiver/answer-latency']) {
    assert.equal(report.checks.find((c) => c.id === id).status, 'inconclusive', id);
  }
});

test('bad options are a SandboxError with code INVALID_ARGUMENT', async () => {
  for (const bad of [
    {},
    { pos: 'ftp://127.0.0.1/' },
    { pos: 'http://127.0.0.1:1', only: ['receiver/nope'] },
    { pos: 'http://127.0.0.1:1', faults: { 500: 0.1 } },
    { pos: 'http://127.0.0.1:1', faults: { 429: 2 } },
    { pos: 'http://127.0.0.1:1', wait: -1 },
    { pos: 'http://127.0.0.1:1', stores: ['a b'] },
    { pos: 'http://127.0.0.1:1', bogus: 1 },
  ]) {
    await assert.rejects(probe(bad), (e) => e instanceof SandboxError && e.code === 'INVALID_ARGUMENT', JSON.stringify(bad));
  }
  assert.throws(() => formatProbeReport({ checks: [] }, 'xml'), (e) => e.code === 'INVALID_ARGUMENT');
  // A report that is not one: a clear error, not a trap of the module.
  assert.throws(() => formatProbeReport({ checks: [{ id: 1 }] }, 'text'), (e) => e.code === 'INVALID_ARGUMENT');
  let deep = [];
  for (let i = 0; i < 5000; i++) deep = [deep];
  assert.throws(() => formatProbeReport({ checks: [{ id: 'x', evidence: deep }] }, 'json'), (e) => e.code === 'INVALID_ARGUMENT');
  assert.match(formatProbeReport({ pos: 'p', durationMs: 1, checks: [] }, 'text'), /0 passed, 0 failed/);
});

test('the reports: JSON as data, JUnit XML read back by a JUnit parser, Markdown as a table', async () => {
  const report = await run(['--fault', 'unknown-event-500'], { receiverOnly: true });
  const json = JSON.parse(formatProbeReport(report, 'json'));
  assert.deepEqual(Object.keys(json).sort(), ['checks', 'durationMs', 'ok', 'pos', 'summary']);
  for (const c of json.checks) assert.deepEqual(Object.keys(c).sort(), ['basis', 'evidence', 'id', 'message', 'severity', 'status']);

  const xml = formatProbeReport(report, 'junit');
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const suites = [parsed.testsuites.testsuite].flat();
  assert.equal(Number(parsed.testsuites.tests), probeRules().length);
  assert.equal(Number(parsed.testsuites.failures), 1);
  const cases = suites.flatMap((s) => [s.testcase].flat());
  assert.equal(cases.length, probeRules().length, 'one testcase per check');
  const failed = cases.filter((c) => c.failure);
  assert.deepEqual(failed.map((c) => c.name), ['receiver/update-unknown-event']);
  assert.match(failed[0].failure['#text'], /PUT http:\/\/127\.0\.0\.1:\d+\/v1\/order\/STORE-1\/R-\d+\/events/);
  assert.match(failed[0].failure['#text'], /HTTP 500/);
  assert.equal(cases.filter((c) => c.skipped !== undefined).length, ids(report, 'skipped').length + ids(report, 'inconclusive').length);

  const md = formatProbeReport(report, 'markdown');
  const rows = md.split('\n').filter((l) => l.startsWith('| '));
  assert.equal(rows[0], '| | Check | Severity | Result |');
  assert.match(md.split('\n')[md.split('\n').indexOf(rows[0]) + 1], /^\|---\|---\|---\|---\|$/);
  assert.equal(rows.length - 1, probeRules().length, 'a row per check');
  for (const r of rows) assert.equal(r.replaceAll('\\|', '').split('|').length, 6, r);
  assert.match(md, /\| ❌ \| `receiver\/update-unknown-event` \| error \|/);
});

test('npx poscheck probe: the report alone on stdout, the connection on stderr, exit 0 / 1 / 2', async () => {
  const secret = 'whsec_probe_cli_test_0123456789';
  const cli = async (posArgs, args) => {
    const pos = await startPos(...posArgs);
    try {
      await pos.configure({ url: 'http://127.0.0.1:9', apiKey: 'unused', secret });
      const child = spawn(process.execPath, [bin, 'probe', '--pos', pos.url, '--port', '0', '--secret-env', 'PROBE_SECRET', ...args], { env: { ...process.env, PROBE_SECRET: secret } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const [code] = await once(child, 'exit');
      return { code, stdout, stderr };
    } finally {
      pos.stop();
    }
  };
  const ok = await cli([], ['--receiver-only', '--format', 'json']);
  assert.equal(ok.code, 0, ok.stderr);
  const report = JSON.parse(ok.stdout);
  assert.equal(report.ok, true);
  assert.match(ok.stderr, /REST base\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\//);
  assert.match(ok.stderr, /API key\s+\S+/);
  assert.match(ok.stderr, /HMAC secret\s+\(from \$PROBE_SECRET\)/);
  assert.ok(!ok.stderr.includes(secret), 'a secret from the environment is not printed');

  const bad = await cli(['--fault', 'any-signature'], ['--receiver-only', '--format', 'junit', '--only', 'receiver/signature-wrong-secret,receiver/order-created-answered']);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stdout, /^<\?xml/);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(bad.stdout);
  assert.equal(Number(parsed.testsuites.failures), 1);

  // The other flags, as a user passes them: the store, the key, the budget, the seed, the faults, the wait.
  const flags = await cli([], ['--store', 'STORE-9', '--api-key', 'key-from-the-cli', '--budget-ms', '5000', '--seed', '3', '--wait', '1', '--faults', '429=0.5,503=0.1', '--only', 'receiver/order-created-answered,receiver/answer-latency,client/authenticated', '--format', 'json']);
  assert.equal(flags.code, 0, flags.stderr);
  const flagged = JSON.parse(flags.stdout);
  assert.match(flags.stderr, /API key\s+key-from-the-cli/);
  assert.match(flagged.checks.find((c) => c.id === 'receiver/order-created-answered').evidence[0].url, /\/v1\/order\/STORE-9$/);
  assert.match(flagged.checks.find((c) => c.id === 'receiver/answer-latency').message, /budget of 5000 ms/);
  assert.equal(flagged.checks.find((c) => c.id === 'client/authenticated').status, 'inconclusive', 'this POS calls no REST API: nothing to judge within --wait 1');

  const text = await cli([], ['--receiver-only', '--only', 'receiver']);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^poscheck probe of http:\/\/127\.0\.0\.1:\d+\n/);
  assert.match(text.stdout, /21 passed, 0 failed, 0 inconclusive, 17 skipped/);

  for (const args of [['probe'], ['probe', '--pos', 'http://127.0.0.1:9', '--format', 'xml'], ['probe', '--pos', 'http://127.0.0.1:9', '--only', 'nope'], ['probe', '--pos', 'http://127.0.0.1:9', '--faults', '429=2'], ['probe', '--pos', 'http://127.0.0.1:9', '--secret-env', 'POSCHECK_UNSET_VARIABLE']]) {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, POSCHECK_UNSET_VARIABLE: '' } });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^poscheck: /);
  }
  const help = spawnSync(process.execPath, [bin, 'probe', '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--receiver-only/);
  const rules = spawnSync(process.execPath, [bin, 'rules', '--format', 'json'], { encoding: 'utf8' });
  const listed = JSON.parse(rules.stdout).map((r) => r.id);
  for (const r of probeRules()) assert.ok(listed.includes(r.id), `poscheck rules lists ${r.id}`);
  assert.ok(listed.includes('json/syntax'), 'and the checkers rules');
});

test('hostile input through the wasm: the probe core answers errors, never traps, and reads a full log in one pass', async () => {
  const { createRequire } = await import('node:module');
  const req = createRequire(import.meta.url);
  const raw = req('../../pkg/dist/sandbox-web/poscheck.js');
  raw.initSync({ module: Buffer.from(req('../../pkg/dist/sandbox-wasm.js').default, 'base64') });
  const { Probe } = raw;
  const bad = (fn) => assert.throws(fn, (e) => e instanceof Error && typeof e.code === 'string', String(fn));
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  bad(() => Probe.gradeClient(deep));
  bad(() => Probe.gradeClient('{"calls":[{"seq":"x"}]}'));
  bad(() => Probe.gradeReceiver('receiver/update-delivered', deep));
  bad(() => Probe.gradeReceiver('client/path-casing', '{}'));
  bad(() => Probe.report('p', 1, `[${deep}]`, 'json'));
  bad(() => Probe.unrun('nope', 'skipped', ''));
  bad(() => new Probe(Buffer.alloc(0), 1));
  const p = new Probe(Buffer.from('s3cret'), 1);
  bad(() => p.variant('nope', '{}', 1));
  bad(() => p.variant('tampered-body', '{"method":"POST","url":"u","headers":{},"body":"not json"}', 1));
  bad(() => p.variant('unknown-event', deep, 1));
  bad(() => p.variant('fresh-order', '{"method":"POST","url":"u","headers":{},"body":"{\\"orderKey\\":\\"ord_aaaaaaaaaaaaaaaa\\"}"}', Infinity));
  // A 10 MB creation body is re-spaced and signed.
  const big = JSON.stringify({ orderKey: 'ord_aaaaaaaaaaaaaaaa', note: 'x'.repeat(10 << 20) });
  const v = JSON.parse(p.variant('whitespace', JSON.stringify({ method: 'POST', url: 'u', headers: {}, body: big }), 1_790_000_000));
  assert.ok(v.body.length > big.length && v.headers['X-Service-Signature-256'].startsWith('sha256='));
  // The sandbox's log at its bound (10,000 calls), each the same request answered a terminal 409:
  // the retries are found in one pass (a scan per call would be 10^8 comparisons).
  const calls = Array.from({ length: 10_000 }, (_, i) => ({
    seq: i + 1, at: i, method: 'PUT', path: '/api/v1/Orders/ord_a/status', headers: { 'idempotency-key': `k${i % 7}` }, body: '{"status":"ready"}', status: i % 2 ? 409 : 429,
    answer: '{"meta":{"currentStatus":"Cancelled","allowedTransitions":[]}}', retryAfter: 1,
  }));
  const checks = JSON.parse(Probe.gradeClient(JSON.stringify({ calls, excludeKeys: [], waitSeconds: 1 })));
  const status = Object.fromEntries(checks.map((c) => [c.id, c.status]));
  assert.equal(status['client/no-retry-terminal-conflict'], 'failed');
  assert.equal(status['client/retry-after-honoured'], 'passed', 'a second apart, Retry-After 1');
  assert.equal(status['client/idempotency-key-reused-on-retry'], 'failed');
  assert.equal(status['client/idempotency-key-uuid-v4'], 'failed');
});

test("README's probe suite runs as a POS developer's test file: it passes with a good POS and fails with a faulty one", async (t) => {
  const { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```js probe-suite\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'one probe-suite block in README.md');
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-probe-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(root, 'pkg'), join(dir, 'node_modules', 'poscheck'), 'dir');
  writeFileSync(join(dir, 'pos.test.mjs'), blocks[0]);
  // "Your POS": the test POS in its own process, its fault (if any) from the environment.
  writeFileSync(
    join(dir, 'my-pos.mjs'),
    `import { spawn } from 'node:child_process';
import { once } from 'node:events';
export async function startPos() {
  const fault = process.env.POS_FAULT ? ['--fault', process.env.POS_FAULT] : [];
  const child = spawn(process.execPath, [${JSON.stringify(posScript)}, '--serve', ...fault], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const url = 'http://127.0.0.1:' + JSON.parse(String(line).split('\\n')[0]).port;
  return {
    url,
    async configure({ serviceUrl, apiKey, secret }) {
      const r = await fetch(url + '/control/config', { method: 'POST', body: JSON.stringify({ sandboxUrl: serviceUrl, apiKey, secret }) });
      if (!r.ok) throw new Error(await r.text());
    },
    async stop() { child.stdin.end(); child.kill(); },
  };
}
`,
  );
  const suite = (fault) => {
    const env = { ...process.env, POS_FAULT: fault ?? '' };
    delete env.NODE_TEST_CONTEXT; // a run of its own
    return spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'pos.test.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  };
  const ok = suite();
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const bad = suite('unknown-event-500');
  assert.equal(bad.status, 1, bad.stdout + bad.stderr);
  assert.match(bad.stdout, /FAIL receiver\/update-unknown-event/);
});
