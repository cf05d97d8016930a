// Ring 3b: the size of the modules the package ships (issue 10's budget: 150 KiB gzipped per entry,
// printed by the build too). `poscheck/webhook` (receivers) is within it and gated at it;
// `poscheck/menu` by what a Vite production build of an app using it carries (issue 29). The
// toolkit (`poscheck`) is about twice that (see benches/README.md); until it shrinks, its gate is a
// ratchet: it fails when the module grows past what it is now, so that every change that adds bytes
// says so here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { menuShare, MENU_SHARE_BUDGET } from '../../scripts/menu-share.mjs';

const require = createRequire(import.meta.url);
const BUDGET_KIB = 150; // issue 10
const RATCHET_KIB = 320.7; // 2026-11-28 (issue 40; 320.6 measured, 0.1 for the rounding): the catalogue of causes' new diagnoses (the JSON.stringify and sorted-key forms with JavaScript's number writing, base64 signatures, secrets decoded from hex or base64 or padded, the message without its dot) and the probe's two new rules took it from 314.9 to 320.6 KiB (the webhook-only module leaves those diagnoses out, src/signature/causes/mod.rs WEBHOOK_ONLY). Earlier, 2026-11-28 (issue 38): the typed order engine took it from 304.4 to 317.2 KiB; the contract's words serialized by hand and the typed members compared as values (no second serializer) won back 2.4 (314.8). The rest is the engine's price: the typed Order and its history rows (their reader and one serializer), the contract's enums. Lower it as the module shrinks. History: 317.3 earlier on 2026-11-28, 304.4 on 2026-11-27, 304.0 late on 2026-11-23

/** The module embedded in `file` (pkg/dist), its custom section names and its gzipped size (KiB). */
async function shipped(file) {
  const { default: base64 } = await import(`../../pkg/dist/${file}`);
  const wasm = Buffer.from(base64, 'base64');
  assert.equal(wasm.subarray(0, 4).toString('latin1'), '\0asm');
  // Custom sections (id 0) by name.
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
  const gz = gzipSync(wasm, { level: 9 }).length / 1024;
  console.log(`${file}: ${(wasm.length / 1024).toFixed(1)} KiB raw, ${gz.toFixed(1)} KiB gzipped`);
  return { names, gz };
}

test('every shipped module is name-stripped; poscheck/webhook is within the 150 KiB budget', async () => {
  for (const file of ['wasm.js', 'webhook-wasm.js', 'menu-wasm.js']) {
    const { names } = await shipped(file);
    assert.ok(!names.includes('name'), `${file} custom sections: ${names}`);
    assert.ok(!names.includes('producers'), `${file} custom sections: ${names}`);
  }
  const { gz } = await shipped('webhook-wasm.js');
  assert.ok(gz <= BUDGET_KIB, `poscheck/webhook: ${gz.toFixed(1)} KiB gzipped, over the budget of ${BUDGET_KIB} KiB`);
});

test(`the toolkit module is under its ratchet of ${RATCHET_KIB} KiB gzipped (budget ${BUDGET_KIB} KiB, not met)`, async () => {
  const { gz } = await shipped('wasm.js');
  assert.ok(gz <= RATCHET_KIB, `${gz.toFixed(1)} KiB gzipped: the module grew past the ratchet of ${RATCHET_KIB} KiB`);
  // Each export ships its module once: no separate .wasm file is listed.
  const files = require('../../pkg/package.json').files ?? [];
  assert.ok(!files.some((f) => f.endsWith('.wasm')), `no .wasm file is listed: ${files}`);
});

// Issue 29: what a POS front-end pays is what its bundle carries for the functions it imports.
test(`poscheck/menu's share of a Vite production build (lintMenu and diffMenu) is within ${MENU_SHARE_BUDGET} bytes gzipped`, async () => {
  const r = await menuShare(fileURLToPath(new URL('../../pkg', import.meta.url)));
  console.log(`poscheck/menu in a Vite production build: ${r.share} bytes gzipped (wasm ${r.wasm}, JS ${r.js}): ${r.files.map((f) => `${f.file} ${f.gz}`).join(', ')}`);
  assert.equal(r.files.filter((f) => f.file.endsWith('.wasm')).length, 1, 'the module is its own file in a production build');
  assert.ok(r.share <= MENU_SHARE_BUDGET, `${r.share} bytes gzipped, over the budget of ${MENU_SHARE_BUDGET}`);
  assert.ok(r.js < 10_000, `the JS poscheck/menu adds: ${r.js} bytes gzipped (the facade's menu functions and the glue only)`);
});
