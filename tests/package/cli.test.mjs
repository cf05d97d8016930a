// `npx poscheck …` from the packed npm package against the native `poscheck`: the same invocations,
// the same standard output and exit status (standard error too, except clap's own wording of a
// usage error, where only the status is compared).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (...p) => join(root, 'tests', 'fixtures', ...p);
const native = join(root, 'target', 'debug', 'poscheck');
const work = mkdtempSync(join(tmpdir(), 'poscheck-npx-'));

before(() => {
  execFileSync('cargo', ['build', '--quiet', '--bin', 'poscheck'], { cwd: root, stdio: 'inherit' });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: join(root, 'pkg') }).toString();
  const tarball = join(work, JSON.parse(out)[0].filename);
  writeFileSync(join(work, 'package.json'), '{ "name": "npx-user", "private": true }');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: work, stdio: 'pipe' });
});

after(() => rmSync(work, { recursive: true, force: true }));

const vectors = JSON.parse(readFileSync(fixture('signature', 'vectors.json'), 'utf8'));
const valid = vectors.verify.find((v) => v.expect === 'valid');
const body = Buffer.from(valid.bodyBase64, 'base64');
const request = Buffer.concat([
  Buffer.from(`PUT /v1/order/S-1/R-1/events HTTP/1.1\r\n${Object.entries(valid.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`),
  body,
]);
const env = { ...process.env, POSCHECK_SECRET: valid.secrets[0] };
const apiRequest = Buffer.from('POST /api/v1/Orders/ord_7Hq2LmN9pQ4rS8tV/reject HTTP/1.1\r\nX-Service-Api-Key: k\r\n'
  + 'X-Service-Schema-Version: 1.0\r\nContent-Type: application/json\r\nIdempotency-Key: 6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10\r\n\r\n{}');

/** [args, stdin, whether stderr is compared] */
const cases = [
  [['--version'], ''],
  [['--help'], ''],
  [['lint', '--help'], ''],
  [['diff', '-h'], ''],
  [['lint', fixture('menu', 'valid.json')], ''],
  [['lint', '--format', 'sarif', fixture('menu', 'example.json')], ''],
  [['lint', '-f', 'github', fixture('menu', 'example.json')], ''],
  [['lint', '--format', 'json', fixture('menu', 'valid.json'), fixture('menu', 'example.json')], ''],
  [['lint', '--format=json', `${fixture('menu')}/v*.json`], ''],
  [['lint', '--max-warnings', '0', fixture('menu', 'example.json')], ''],
  [['lint'], '{"categories": []}'],
  [['validate', fixture('payload', 'order-update-event.cancelled.valid.json')], ''],
  [['validate', '--kind', 'orderUpdateEvent', '--format', 'json', fixture('payload', 'field-type.broken.json')], ''],
  [['validate', '-'], apiRequest],
  [['validate', '--format', 'json', '-'], apiRequest],
  [['order', fixture('order', 'delivery-delivered.json')], ''],
  [['diff', fixture('diff', 'current.json'), fixture('diff', 'next-identical.json')], ''],
  [['diff', '--format', 'markdown', '--threshold', '5%', fixture('diff', 'current.json'), fixture('diff', 'next-legacy.json')], ''],
  [['rules'], ''],
  [['rules', '--format', 'json'], ''],
  [['sign', '--secret-env', 'POSCHECK_SECRET', '--timestamp', '1786492800', '--delivery-id', 'd-1'], body],
  [['verify', '--secret-env', 'POSCHECK_SECRET', '--request', '--now', String(valid.now ?? vectors.now)], request],
  [['verify', '--secret-env', 'POSCHECK_SECRET', '--format', 'json', '--now', String((valid.now ?? vectors.now) + 9999), '--request'], request],
  [['verify', '--secret-env', 'POSCHECK_SECRET', '-H', `X-Service-Timestamp: ${valid.headers['X-Service-Timestamp']}`, '--now', String(valid.now ?? vectors.now)], body],
];

// Usage errors: both exit 2 (clap words its messages its own way).
const usageErrors = [
  ['lint', '--bogus'],
  ['lint', '--format', 'xml'],
  ['lint', `${fixture('menu')}/no-such-*.json`],
  ['bogus'],
  ['diff', 'only-one.json'],
  ['validate', '--kind', 'nope', fixture('menu', 'valid.json')],
  ['sign', fixture('menu', 'valid.json')],
];

const runNative = (args, input) => spawnSync(native, args, { input, env, encoding: 'utf8' });
const runNpx = (args, input) => spawnSync('npx', ['--no-install', 'poscheck', ...args], { cwd: work, input, env, encoding: 'utf8' });

test('npx poscheck prints what the native binary prints and exits the same', () => {
  for (const [args, input] of cases) {
    const a = runNative(args, input);
    const b = runNpx(args, input);
    const label = `poscheck ${args.join(' ')}`;
    assert.equal(b.status, a.status, `${label}: exit status\n${b.stderr}`);
    assert.equal(b.stdout, a.stdout, `${label}: stdout`);
    assert.equal(b.stderr.replace(/^npm warn .*\n/gm, ''), a.stderr, `${label}: stderr`);
  }
});

test('usage errors exit 2 on both', () => {
  for (const args of usageErrors) {
    assert.equal(runNative(args, '').status, 2, `native ${args.join(' ')}`);
    const b = runNpx(args, '');
    assert.equal(b.status, 2, `npx ${args.join(' ')}: ${b.stderr}`);
    assert.match(b.stderr, /poscheck: /);
  }
});
