// The probe of the native binary (issue 43) beside the npm CLI's: `poscheck probe … -f json` of
// each face against the same POS (a process of its own per run), the two runs side by side (2 at a
// time). The correct POSes of probe.test.mjs pass, each faulty one fails exactly the checks it
// fails there, with the same evidence; both faces give every check the same status and exit with
// the same code. Faulty receivers (faulty-receiver.mjs) get the same diagnosis from both: the same
// receiver/refusal-cause message, naming the same cause. The usage errors exit 2 on both, with the
// same first line on stderr.
//
// The npm face's runs are its probe() in this process, its report as the CLI writes it
// (formatProbeReport(report, 'json')) and the CLI's exit code (report.ok ? 0 : 1, as
// pkg/bin/poscheck.js sets it): a CLI run costs 2-4 s more to start (the sandbox's wasm compiled
// in a fresh process) and the file would pass 90 s. POSCHECK_PROBE_NPM_CLI=1 runs the npm CLI
// instead. The usage errors and the --port 0 run are the npm CLI's.
//
// The causes: a selection of one per kind of mistake (CAUSES below) and refuse-all, to keep the file
// within about 90 s; POSCHECK_PROBE_ALL_CAUSES=1 runs every cause of probe-causes.test.mjs.
//
// The POS's REST client must know the sandbox's URL before the first webhook: each run gets a free
// port picked here (--port N) and its POS is configured with it first, as a user scripting the CLI
// would; --port 0 is run with the receiver checks alone (the POS calls nothing).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import test from 'node:test';
import { formatProbeReport, probe, probeRules } from '../../pkg/dist/sandbox.mjs';
import { root } from './helpers.mjs';
import { CAUSES as ALL_CAUSES, startPos } from './probe-kit.mjs';
import { FACES, command, freePort } from './sandbox-process.mjs';

const posScript = `${root}tests/js/probe-pos.mjs`;
const receiverScript = `${root}tests/js/faulty-receiver.mjs`;
const SECRET = 'whsec_probe_native_test_0123456789';
/** Decodes as hex and as base64 too (probe-causes.test.mjs). */
const CAUSE_SECRET = '0123456789abcdef0123456789abcdef';
const RUN_TIMEOUT_MS = 60_000;
/** The npm face through its CLI too (slower), not its probe() in this process. */
const NPM_CLI = Boolean(process.env.POSCHECK_PROBE_NPM_CLI);

/** `poscheck ARGS…` of `face`: { code, stdout, stderr }; killed (and failed) past RUN_TIMEOUT_MS. */
async function cli(face, args, env = {}) {
  const [file, argv] = command(face, args);
  const child = spawn(file, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  assert.equal(signal, null, `${face} ${args.join(' ')}: killed (${signal}) after ${RUN_TIMEOUT_MS} ms\n${stderr}`);
  return { face, code, stdout, stderr };
}

/** A JSON report read from stdout (which carries it and nothing else). */
function report(run) {
  try {
    return JSON.parse(run.stdout);
  } catch {
    assert.fail(`${run.face}: stdout is not the JSON report (exit ${run.code}):\n${run.stdout.slice(0, 500)}\n${run.stderr.slice(-2000)}`);
  }
}

const ids = (r, status) => r.checks.filter((c) => c.status === status).map((c) => c.id);
/** What a run's failed checks say, with their evidence: a failure's message. */
const failedDetail = (run) =>
  `${run.face}: ${JSON.stringify(run.report.checks.filter((c) => c.status === 'failed').map((c) => ({ id: c.id, message: c.message, evidence: c.evidence })), null, 1).slice(0, 6000)}`;
const statuses = (r) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
const receiverIds = probeRules().filter((r) => r.side === 'receiver').map((r) => r.id);

/** The CLI's flags for probe()'s options (pkg/bin/poscheck.js maps them back). */
function flagsOf(o) {
  const flags = ['--pos', o.pos, '--port', String(o.port ?? 0)];
  if (o.apiKey !== undefined) flags.push('--api-key', o.apiKey);
  if (o.wait !== undefined) flags.push('--wait', String(o.wait));
  if (o.budgetMs !== undefined) flags.push('--budget-ms', String(o.budgetMs));
  if (o.seed !== undefined) flags.push('--seed', String(o.seed));
  if (o.faults !== undefined) flags.push('--faults', Object.entries(o.faults).map(([k, v]) => `${k}=${v}`).join(','));
  if (o.receiverOnly) flags.push('--receiver-only');
  return flags;
}

/**
 * One run of the probe of `face` with probe()'s `options` and the secret from the environment:
 * { face, code, stdout, stderr, report }. The native face and (with POSCHECK_PROBE_NPM_CLI) the
 * npm one run `poscheck probe FLAGS --secret-env PROBE_SECRET -f json`; the npm face otherwise
 * runs probe() here and writes what its CLI would.
 */
async function runProbe(face, options, secret) {
  if (face === 'npm' && !NPM_CLI) {
    const r = await probe({ ...options, secret });
    return { face, code: r.ok ? 0 : 1, stdout: formatProbeReport(r, 'json'), stderr: '(the npm face in this process)', report: JSON.parse(formatProbeReport(r, 'json')) };
  }
  const run = await cli(face, ['probe', ...flagsOf(options), '--secret-env', 'PROBE_SECRET', '-f', 'json'], { PROBE_SECRET: secret });
  return { ...run, report: report(run) };
}

/**
 * The probe of each face against a POS of its own started with `posArgs`, side by side:
 * [npm, native]. The POS calls the sandbox at a port picked here, with the key given.
 */
function probeBoth(posArgs, options = {}) {
  return Promise.all(
    FACES.map(async (face) => {
      const pos = await startPos(...posArgs);
      try {
        const port = await freePort();
        const apiKey = `probe-key-${face}`;
        await pos.configure({ url: `http://127.0.0.1:${port}`, apiKey, secret: SECRET });
        return await runProbe(face, { pos: pos.url, port, apiKey, wait: 6, ...options }, SECRET);
      } finally {
        pos.stop();
      }
    }),
  );
}

/**
 * A client check is inconclusive when the POS made no call of its kind within the wait (`wait: 6`
 * s): on a loaded host the test POS's calls come later in one run than in the other, so for a
 * client check "passed" in one face and "inconclusive" in the other is timing, not a difference
 * of the faces. Every other pair (a failure above all) must be equal.
 */
const timing = (id, x, y) => id.startsWith('client/') && [x, y].includes('inconclusive') && [x, y].includes('passed');

/** Both faces gave every check the same status (but for timing, above) and exited with the same code. */
function sameOutcome(npm, native) {
  const a = statuses(npm.report);
  const b = statuses(native.report);
  const differ = Object.keys({ ...a, ...b })
    .filter((id) => a[id] !== b[id] && !timing(id, a[id], b[id]))
    .map((id) => `${id}: npm ${a[id]}, native ${b[id]}`);
  assert.deepEqual(differ, [], `the checks whose status differs:\n${differ.join('\n')}\nnative stderr:\n${native.stderr.slice(-3000)}`);
  assert.equal(native.code, npm.code, 'the same exit code');
  // The summary's counts, but for the timing pairs above (which move one check between passed and inconclusive).
  for (const k of Object.keys(npm.report.summary)) if (k !== 'passed' && k !== 'inconclusive') assert.equal(native.report.summary[k], npm.report.summary[k], `summary.${k}`);
  assert.equal(native.report.summary.passed + native.report.summary.inconclusive, npm.report.summary.passed + npm.report.summary.inconclusive);
  assert.deepEqual(Object.keys(native.report).sort(), ['checks', 'durationMs', 'ok', 'pos', 'summary']);
}

for (const [label, args] of [
  ['a hand-written POS', []],
  ['a POS built with createReceiver', ['--kit']],
]) {
  test(`${label}: both faces pass every receiver check and fail no client check, exit 0`, async () => {
    const [npm, native] = await probeBoth(args);
    for (const run of [npm, native]) {
      assert.equal(run.code, 0, `${run.face}: ${run.stderr.slice(-3000)}`);
      assert.equal(run.report.ok, true);
      assert.deepEqual(ids(run.report, 'failed'), [], failedDetail(run));
      for (const id of receiverIds) assert.equal(run.report.checks.find((c) => c.id === id)?.status, 'passed', `${run.face}: ${id}`);
      for (const id of ['client/idempotency-key-fresh', 'client/schema-version', 'client/path-casing', 'client/accept-before-expiry', 'client/ready-conflict-continues']) {
        assert.equal(run.report.checks.find((c) => c.id === id)?.status, 'passed', `${run.face}: ${id}`);
      }
      assert.equal(run.report.checks.length, probeRules().length, run.face);
    }
    sameOutcome(npm, native);
  });
}

// probe.test.mjs's faulty POSes, its options as the CLI's flags.
const faults = [
  { fault: 'any-signature', fails: ['receiver/signature-tampered-body', 'receiver/signature-wrong-secret'], evidence: /X-Service-Signature-256/ },
  { fault: 'reserialized', fails: ['receiver/signature-raw-body'], evidence: /HTTP 401|"status":401/ },
  { fault: 'new-id-on-retry', fails: ['receiver/duplicate-retry-same-id'], evidence: /R-\d/ },
  { fault: 'handler-twice', fails: ['receiver/duplicate-concurrent-copies'], evidence: /copy 2 of 3/ },
  { fault: 'unknown-event-500', fails: ['receiver/update-unknown-event'], evidence: /driver_arrived/ },
  { fault: 'slow', args: ['--slow-ms', '250'], options: { budgetMs: 150 }, fails: ['receiver/answer-latency'], evidence: /"ms":\s*(2[5-9]\d|[3-9]\d\d|\d{4,})\b/ },
  { fault: 'reuse-key', fails: ['client/idempotency-key-fresh'], evidence: /idempotency-key/ },
  { fault: 'ignore-retry-after', options: { faults: { 429: 0.6 }, seed: 7 }, fails: ['client/retry-after-honoured'], evidence: /"status":\s*429/ },
];
for (const { fault, args = [], options = {}, fails, evidence } of faults) {
  test(`a POS with the fault ${fault}: both faces fail ${fails.join(' and ')} and nothing else, exit 1`, async () => {
    const [npm, native] = await probeBoth(['--fault', fault, ...args], options);
    for (const run of [npm, native]) {
      assert.equal(run.code, 1, `${run.face}: ${run.stderr.slice(-3000)}`);
      assert.equal(run.report.ok, false, run.face);
      assert.deepEqual(ids(run.report, 'failed'), fails, failedDetail(run));
      for (const id of fails) {
        const c = run.report.checks.find((x) => x.id === id);
        assert.ok(c.evidence.length >= 1, `${run.face}: ${id} shows the exchange`);
        assert.match(JSON.stringify(c.evidence), evidence, `${run.face}: ${id}'s evidence`);
        assert.ok(c.basis.source.length > 0 && c.message.length > 0);
      }
    }
    sameOutcome(npm, native);
  });
}

test('nothing listening at the POS URL (--port 0, receiver checks only): the same failures, exit 1; the connection on stderr', async () => {
  const runs = await Promise.all(FACES.map((face) => cli(face, ['probe', '--pos', 'http://127.0.0.1:9', '--port', '0', '--secret-env', 'PROBE_SECRET', '--receiver-only', '-f', 'json'], { PROBE_SECRET: SECRET })));
  const [npm, native] = runs.map((r) => ({ ...r, report: report(r) }));
  for (const run of [npm, native]) {
    assert.equal(run.code, 1, run.face);
    assert.deepEqual(ids(run.report, 'passed'), [], run.face);
    assert.deepEqual(ids(run.report, 'failed'), ['receiver/order-created-answered', 'receiver/menu-change-answered'], run.face);
    assert.match(run.stderr, /REST base\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\//, run.face);
    assert.match(run.stderr, /API key\s+\S+/, run.face);
    assert.match(run.stderr, /HMAC secret\s+\(from \$PROBE_SECRET\)/, run.face);
    assert.ok(!run.stderr.includes(SECRET), `${run.face}: a secret from the environment is not printed`);
  }
  // probe.test.mjs's: the evidence names the refused connection.
  for (const run of [npm, native]) {
    assert.match(run.report.checks.find((c) => c.id === 'receiver/order-created-answered').evidence[0].error ?? '', /ECONNREFUSED|connect/, run.face);
  }
  sameOutcome(npm, native);
  // The checks' messages say the same.
  for (const c of npm.report.checks) assert.equal(native.report.checks.find((x) => x.id === c.id)?.message, c.message, c.id);
});

// One cause per kind of mistake (the body, the secret, the signed text, the signature's form, the
// clock), with the words probe-causes.test.mjs looks for.
const SELECTED = ['body-json-stringify', 'secret-trailing-crlf', 'secret-base64-decoded', 'signed-without-dot', 'signature-uppercase-hex', 'clock-offset'];
const CAUSES = process.env.POSCHECK_PROBE_ALL_CAUSES ? Object.keys(ALL_CAUSES) : SELECTED;

/** Both faces' runs (receiver checks only, --port 0) against a faulty receiver of its own each. */
function diagnoseBoth(cause) {
  return Promise.all(
    FACES.map(async (face) => {
      const child = spawn(process.execPath, [receiverScript, cause, '--secret', CAUSE_SECRET, '--ttl', '100'], { stdio: ['pipe', 'pipe', 'inherit'] });
      try {
        const [line] = await once(child.stdout, 'data');
        const { url } = JSON.parse(String(line).split('\n')[0]);
        return await runProbe(face, { pos: url, port: 0, receiverOnly: true }, CAUSE_SECRET);
      } finally {
        child.stdin.end();
        child.kill();
      }
    }),
  );
}

for (const cause of [...CAUSES, 'refuse-all']) {
  test(`a receiver whose ${cause}: both faces exit 1 with the same receiver/refusal-cause`, async () => {
    const [npm, native] = await diagnoseBoth(cause);
    const messages = [];
    for (const run of [npm, native]) {
      assert.equal(run.code, 1, `${run.face}: ${run.stderr.slice(-2000)}`);
      const c = run.report.checks.find((x) => x.id === 'receiver/refusal-cause');
      assert.equal(c?.status, 'failed', `${run.face}: ${JSON.stringify(c)}`);
      if (cause === 'refuse-all') {
        assert.match(c.message, /not among those tried/, run.face);
        const named = c.message.split('Ruled out:')[0];
        for (const words of Object.values(ALL_CAUSES)) assert.doesNotMatch(named, words, `${run.face}: no cause named`);
      } else {
        assert.match(c.message, ALL_CAUSES[cause], run.face);
      }
      assert.ok(c.evidence.length >= (cause === 'refuse-all' ? 1 : 2), `${run.face}: the evidence`);
      messages.push(c.message);
    }
    assert.equal(messages[1], messages[0], 'the same diagnosis, word for word');
    sameOutcome(npm, native);
  });
}

test('usage errors: exit 2, nothing on stdout, the same first line on stderr; --help exits 0', async () => {
  const env = { POSCHECK_UNSET_VARIABLE: '' };
  // probe.test.mjs's: "poscheck: " and the same message on both.
  for (const args of [
    ['probe'],
    ['probe', '--pos', 'http://127.0.0.1:9', '--format', 'xml'],
    ['probe', '--pos', 'http://127.0.0.1:9', '--only', 'nope'],
    ['probe', '--pos', 'http://127.0.0.1:9', '--faults', '429=2'],
    ['probe', '--pos', 'http://127.0.0.1:9', '--secret-env', 'POSCHECK_UNSET_VARIABLE'],
  ]) {
    const [npm, native] = await Promise.all(FACES.map((face) => cli(face, args, env)));
    for (const r of [npm, native]) {
      assert.equal(r.code, 2, `${r.face} ${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${r.face} ${args.join(' ')}`);
      assert.match(r.stderr, /^poscheck: /, `${r.face} ${args.join(' ')}`);
    }
    assert.equal(native.stderr.split('\n')[0], npm.stderr.split('\n')[0], `${args.join(' ')}: the same message`);
  }
  // Flags the parser refuses: exit 2 and the flag named.
  for (const [args, named] of [
    [['probe', '--pos', 'http://127.0.0.1:9', '--port', '70000'], /--port/],
    [['probe', '--pos', 'http://127.0.0.1:9', '--bogus'], /--bogus/],
  ]) {
    for (const r of await Promise.all(FACES.map((face) => cli(face, args, env)))) {
      assert.equal(r.code, 2, `${r.face} ${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${r.face} ${args.join(' ')}`);
      assert.match(r.stderr, named, `${r.face} ${args.join(' ')}`);
    }
  }
  for (const face of FACES) {
    const help = await cli(face, ['probe', '--help']);
    assert.equal(help.code, 0, face);
    assert.match(help.stdout, /--receiver-only/, face);
  }
});
