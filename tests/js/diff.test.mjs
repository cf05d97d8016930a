// Ring 3: diffMenu through the npm package, over the manifest the Rust rings read
// (tests/fixtures/diff/cases.json; format in tests/fixtures/diff/README.md).
import test from 'node:test';
import assert from 'node:assert/strict';
import { fixture, fixtureJson, pkg } from './helpers.mjs';

const read = (p) => fixture(...p.split('/'));
const sameNumber = (a, b) => (typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) < 1e-9 : a === b);
/** Every key of `expected` equal in `actual` (numbers by value, objects recursively). */
function matches(expected, actual) {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    return actual !== null && typeof actual === 'object' && Object.entries(expected).every(([k, v]) => matches(v, actual[k]));
  }
  return typeof expected === 'number' ? sameNumber(expected, actual) : JSON.stringify(expected) === JSON.stringify(actual);
}
const entryKey = (e) => `${e.change} ${e.entity} ${e.side} ${e.path}`;

test('diffMenu: every case of tests/fixtures/diff/cases.json', () => {
  const cases = fixtureJson('diff', 'cases.json');
  assert.ok(cases.length >= 10);
  for (const c of cases) {
    const d = pkg.diffMenu(read(c.current), read(c.next), c.options ?? {});
    const e = c.expect;
    assert.equal(d.compared, e.compared, c.name);
    if (e.summary) assert.ok(matches(e.summary, d.summary), `${c.name}: summary ${JSON.stringify(d.summary)}`);
    if (e.entries) {
      assert.deepEqual(d.entries.map(entryKey).sort(), e.entries.map(entryKey).sort(), c.name);
      for (const x of e.entries) {
        const a = d.entries.find((y) => entryKey(y) === entryKey(x));
        const { changes, ...rest } = x;
        assert.ok(matches(rest, a), `${c.name}: ${JSON.stringify(a)}`);
        assert.equal((a.changes ?? []).length, (changes ?? []).length, `${c.name}: ${JSON.stringify(a.changes)}`);
        for (const ch of changes ?? []) {
          assert.ok(a.changes.some((y) => y.field === ch.field && sameNumber(ch.old, y.old ?? null) && sameNumber(ch.new, y.new ?? null)
            && (ch.line === undefined || (ch.line === y.line && ch.column === y.column))), `${c.name}: ${JSON.stringify(ch)} in ${JSON.stringify(a.changes)}`);
        }
      }
    }
    if (e.diagnostics) {
      const own = ['current', 'next'].flatMap((side) => d[side].diagnostics.filter((x) => x.ruleId.startsWith('diff/')).map((x) => ({ ...x, side })));
      const key = (x) => `${x.side} ${x.ruleId} ${x.severity} ${x.path}`;
      assert.deepEqual(own.map(key).sort(), e.diagnostics.map(key).sort(), c.name);
      for (const x of e.diagnostics.filter((y) => y.line)) {
        assert.ok(own.some((y) => key(y) === key(x) && y.line === x.line && y.column === x.column), `${c.name}: ${key(x)} at ${x.line}:${x.column}`);
      }
    }
  }
});

test('diffMenu: a column indexes the JS string of the submission', () => {
  const current = read('diff/current.json');
  const next = read('diff/next-one-of-each.json').toString('utf8').replace('"Veggie burger"', '"Végé 🍔 burger"');
  const d = pkg.diffMenu(current, next);
  const burger = d.entries.find((e) => e.remoteCode === 'BURGER-2');
  const price = burger.changes.find((c) => c.field === 'price');
  const lines = next.split('\n');
  assert.equal(lines[price.line - 1].slice(price.column - 1, price.column + 3), '12.5');
  assert.equal(lines[burger.line - 1].slice(burger.column - 1, burger.column + 9), '"BURGER-2"');
});

test('diffMenu: options are checked, hostile input gives reports, the rules are listed', () => {
  const current = read('diff/current.json');
  const next = read('diff/next-replacement.json');
  assert.equal(pkg.diffMenu(current, next).summary.aboveThreshold, true);
  assert.equal(pkg.diffMenu(current, next, { threshold: 1 }).summary.aboveThreshold, false);
  for (const threshold of [-0.1, 1.5, NaN, '20%']) {
    assert.throws(() => pkg.diffMenu(current, next, { threshold }), { name: 'PoscheckError', code: 'INVALID_ARGUMENT' }, String(threshold));
  }
  assert.throws(() => pkg.diffMenu({ categories: [] }, next), { code: 'INVALID_ARGUMENT' });
  const bounded = pkg.diffMenu(current, next, { maxEntries: 2 });
  assert.equal(bounded.entries.length, 2);
  assert.deepEqual(bounded.truncated, { shown: 2, total: 11 });
  assert.equal(pkg.diffMenu('['.repeat(100000), next).current.diagnostics[0].ruleId, 'json/too-deep');
  assert.equal(pkg.diffMenu(current, new Uint8Array([0x7b, 0xff])).compared, false);
  const ids = pkg.diffRules().map((r) => r.id);
  assert.ok(ids.includes('diff/large-deactivation') && ids.includes('diff/override-kept'));
  assert.equal(pkg.diffMenu(current, read('diff/next-identical.json')).entries.length, 0, 'still usable after the errors above');
});
