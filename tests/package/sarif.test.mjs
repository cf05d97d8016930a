// The CLI's SARIF output validates with Microsoft's SARIF multitool (npm @microsoft/sarif-multitool)
// for the three ways a file is named: relative, absolute, and standard input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'target', 'debug', 'poscheck');
const multitool = join(root, 'node_modules', '.bin', 'sarif-multitool');

test('SARIF from a relative path, an absolute path and stdin passes sarif-multitool validate', (t) => {
  execFileSync('cargo', ['build', '--quiet', '--bin', 'poscheck'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-sarif-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const menu = join(dir, 'my menú.json');
  copyFileSync(join(root, 'tests', 'fixtures', 'menu', 'example.json'), menu);
  const runs = {
    relative: spawnSync(cli, ['lint', '--format', 'sarif', 'my menú.json'], { cwd: dir }),
    absolute: spawnSync(cli, ['lint', '--format', 'sarif', menu], { cwd: dir }),
    stdin: spawnSync(cli, ['lint', '--format', 'sarif'], { cwd: dir, input: readFileSync(menu) }),
  };
  for (const [name, run] of Object.entries(runs)) {
    assert.equal(run.status, 1, `${name}: the example has errors, exit 1 (${run.stderr})`);
    const sarif = join(dir, `${name}.sarif`);
    writeFileSync(sarif, run.stdout);
    const doc = JSON.parse(run.stdout);
    assert.ok(doc.runs[0].results.length >= 10, `${name}: results are there`);
    const out = join(dir, `${name}.validation.sarif`);
    execFileSync(multitool, ['validate', sarif, '-o', out], { stdio: 'pipe' });
    const findings = JSON.parse(readFileSync(out, 'utf8')).runs[0].results;
    assert.deepEqual(findings.map((r) => `${r.ruleId}: ${JSON.stringify(r.message.arguments ?? r.message.text)}`), [], `${name}: multitool findings`);
  }
  assert.match(JSON.parse(runs.absolute.stdout).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, /^file:\/\/\/.*my%20men%C3%BA\.json$/);
  assert.equal(JSON.parse(runs.stdin.stdout).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'stdin');
});
