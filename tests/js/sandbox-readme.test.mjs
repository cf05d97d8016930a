// Ring 3: README.md's node:test suite for the sandbox (```js sandbox-suite), run as a POS developer
// would: its own file in a fresh directory where `poscheck` resolves to this repository's package.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test("README's sandbox suite runs and passes, and a broken POS makes it fail", (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```js sandbox-suite\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'one sandbox-suite block in README.md');
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-sandbox-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(root, 'pkg'), join(dir, 'node_modules', 'poscheck'), 'dir');
  const run = (code) => {
    writeFileSync(join(dir, 'pos.test.mjs'), code);
    // A test run of its own (the runner's NODE_TEST_CONTEXT would make the child skip its files).
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'pos.test.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: r.stdout + r.stderr };
  };
  const ok = run(blocks[0]);
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /^# pass 2$/m);
  assert.match(ok.out, /^# fail 0$/m);
  // The same suite against broken POSes: it must notice each.
  const broken = [
    ['a POS answering an empty remoteOrderId', "onOrderCreated: ({ payload }) => `POS-${payload.displayCode}`", "onOrderCreated: () => ''"],
    ['a POS verifying with another secret', 'secret: sb.secret,', "secret: 'not-the-account-secret',"],
    ['a POS ignoring update webhooks', 'onOrderUpdate: ({ payload }) => { seen.push(payload.event); },', 'onOrderUpdate: () => {},'],
  ];
  for (const [what, from, to] of broken) {
    assert.ok(blocks[0].includes(from), `the suite still has ${JSON.stringify(from)}`);
    const r = run(blocks[0].replace(from, to));
    assert.notEqual(r.code, 0, `${what} fails the suite`);
  }
});
