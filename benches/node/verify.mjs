// Benchmark (not a test): verifyWebhook (wasm) on a 2 KB body in Node, beside node:crypto's
// createHmac + timingSafeEqual on the same request, in the same run. Prints µs/op and the ratio.
// Run after `make build`: node benches/node/verify.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { verifyWebhook, signWebhook } = require('../../pkg');

const body = Buffer.alloc(2048, '{"orderKey":"ord_0123456789abcdEF","x":1}');
const secret = 'whsec_bench_secret';
const now = 1786492800;
const headers = {
  ...Object.fromEntries(Object.entries(signWebhook({ body, secret, timestamp: now })).map(([k, v]) => [k.toLowerCase(), v])),
  'x-service-delivery-id': '6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10',
};

function nodeCrypto() {
  const ts = headers['x-service-timestamp'];
  const sig = headers['x-service-signature-256'];
  if (Math.abs(now - Number(ts)) > 300) throw new Error('stale');
  const mac = createHmac('sha256', secret).update(`${ts}.`).update(body).digest();
  const given = Buffer.from(sig.slice(7), 'hex');
  if (given.length !== 32 || !timingSafeEqual(mac, given)) throw new Error('mismatch');
}

function wasm() {
  verifyWebhook({ body, headers, secret, now });
}

function perOp(fn) {
  for (let i = 0; i < 5000; i++) fn();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    let n = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    while (elapsed < 200_000_000n) {
      for (let i = 0; i < 200; i++) fn();
      n += 200;
      elapsed = process.hrtime.bigint() - start;
    }
    best = Math.min(best, Number(elapsed) / n / 1000);
  }
  return best;
}

const w = perOp(wasm);
const c = perOp(nodeCrypto);
console.log(`verifyWebhook (wasm), 2 KB body:            ${w.toFixed(2)} µs/op`);
console.log(`node:crypto createHmac + timingSafeEqual:   ${c.toFixed(2)} µs/op`);
console.log(`ratio wasm / node:crypto:                   ${(w / c).toFixed(2)}`);
