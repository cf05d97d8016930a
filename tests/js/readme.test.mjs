// Every JS block of README.md and pkg/README.md runs (the receiver examples, ```js receiver-…, are
// run on real servers by tests/receiver/readme.test.mjs). A block that uses values of the reader's
// own (the README says which) gets them from the fixtures here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './helpers.mjs';

const fixture = (...p) => join(root, 'tests', 'fixtures', ...p);

/** What the blocks leave to the reader: their own request, headers, order, clock. */
const CONTEXT = `
const rawBody = require('node:fs').readFileSync(${JSON.stringify(fixture('payload', 'order-update-event.cancelled.valid.json'))});
const req = { path: '/v1/order/STORE-1/R-1001/events' };
const headers = { 'content-type': 'application/json', 'x-service-api-key': 'k', 'x-service-schema-version': '1.0', 'idempotency-key': '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10' };
const body = { type: 'https://problems.example/invalid-state-transition', title: 't', status: 409, detail: 'd', traceId: 't', meta: { currentStatus: 'Ready', allowedTransitions: ['HandedOver'] } };
const orderDetail = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(fixture('order', 'pending.json'))}, 'utf8'));
const nowSeconds = 1786492800;
`;

function blocks() {
  const out = [];
  for (const file of ['README.md', 'pkg/README.md']) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/^```js\n([\s\S]*?)^```$/gm)) out.push({ file, code: m[1] });
  }
  return out;
}

test('every JS block of the READMEs runs', () => {
  const found = blocks();
  assert.ok(found.length >= 2, `found ${found.length} blocks`);
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-readme-js-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(join(root, 'pkg'), join(dir, 'node_modules', 'poscheck'));
    copyFileSync(fixture('menu', 'example.json'), join(dir, 'menu.json'));
    copyFileSync(fixture('diff', 'current.json'), join(dir, 'store-menu.json'));
    found.forEach(({ file, code }, i) => {
      const uses = (name) => new RegExp(`\\b${name}\\b`).test(code) && !new RegExp(`(const|let|var)\\s+[^=]*\\b${name}\\b`).test(code);
      const context = ['rawBody', 'req', 'headers', 'body', 'orderDetail', 'nowSeconds'].some(uses) ? CONTEXT : '';
      const script = join(dir, `block-${i}.cjs`);
      writeFileSync(script, context + code);
      const r = spawnSync('node', [script], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, `${file} block ${i + 1}:\n${code}\n${r.stderr}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
