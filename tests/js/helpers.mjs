// Shared by the node --test files: the fixtures every ring reads, and the package as users load it.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const require = createRequire(import.meta.url);
export const fixture = (...p) => readFileSync(new URL(`../fixtures/${p.join('/')}`, import.meta.url));
export const fixtureJson = (...p) => JSON.parse(fixture(...p).toString('utf8'));
/** The package, required exactly as a user would (through pkg/package.json "exports"). */
export const pkg = require('../../pkg');
/** `X-Service-Signature-256` by node:crypto directly: an implementation independent of the package. */
export const signatureByHand = (secret, ts, body) => `sha256=${createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')}`;

/**
 * The raw module `raw` with the calls to the exports named in `names` counted: `{ raw, calls }`,
 * `calls` by name. A facade made over it (createApi) says which of the core's paths it took.
 */
export function countingCalls(raw, names) {
  const calls = Object.fromEntries(names.map((n) => [n, 0]));
  const counted = new Proxy(raw, {
    get: (target, name) => (name in calls ? (...args) => { calls[name]++; return target[name](...args); } : target[name]),
  });
  return { raw: counted, calls };
}
