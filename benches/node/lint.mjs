// Benchmark (not a test): lintMenu (wasm, all rules, positions) on the ≥ 10 MB menu that
// `cargo bench --bench lint` writes to target/bench/menu-10mb.json, beside JSON.parse of the same
// text in the same run. Prints MB/s and the ratio. Run: cargo bench --bench lint && node benches/node/lint.mjs
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { lintMenu } = require('../../pkg');

const file = new URL('../../target/bench/menu-10mb.json', import.meta.url);
let bytes;
try {
  bytes = readFileSync(file);
} catch {
  console.error('target/bench/menu-10mb.json is missing: run `cargo bench --bench lint` first (it generates the menu).');
  process.exit(2);
}
const text = bytes.toString('utf8');
const mb = bytes.length / 1e6;

function best(fn, rounds = 7) {
  fn();
  let t = Infinity;
  for (let i = 0; i < rounds; i++) {
    const s = process.hrtime.bigint();
    fn();
    t = Math.min(t, Number(process.hrtime.bigint() - s) / 1e6);
  }
  return t;
}

let report;
const lintBytes = best(() => { report = lintMenu(bytes); });
const lintString = best(() => lintMenu(text));
const parse = best(() => JSON.parse(text));
const parseFromBytes = best(() => JSON.parse(bytes.toString('utf8')));
if (report.errorCount !== 0) throw new Error(`the generated menu should be valid, got ${report.errorCount} errors`);

const row = (name, ms) => console.log(`${name.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms ${(mb / (ms / 1000)).toFixed(0).padStart(6)} MB/s`);
console.log(`menu: ${mb.toFixed(1)} MB, ${report.diagnostics.length} diagnostics`);
row('lintMenu(Uint8Array) — wasm, all rules', lintBytes);
row('lintMenu(string) — wasm, all rules', lintString);
row('JSON.parse(string)', parse);
row('JSON.parse(buffer.toString()) — from bytes', parseFromBytes);
console.log(`ratio lintMenu(bytes) / JSON.parse(string):     ${(lintBytes / parse).toFixed(2)}`);
console.log(`ratio lintMenu(bytes) / JSON.parse from bytes:  ${(lintBytes / parseFromBytes).toFixed(2)}`);
