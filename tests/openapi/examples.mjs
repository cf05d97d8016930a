// The sources of the OpenAPI document's examples (src/schema/examples.json, issue 41): each example
// names its source in `from`, and its value is a copy of that source:
//   - `payload/<file>`: a valid fixture of tests/fixtures/payload/;
//   - `payload/<file> as data`: that fixture (a bare resource) in the 2xx envelope { message: "OK", data };
//   - `requests/<case name>`: the body of a case of tests/fixtures/requests/cases.json that the
//     checker answers 2xx with no diagnostic;
//   - `sandbox/POST /api/v1/menu/preview fullMenu`: the answer of a fresh sandbox (manual clock,
//     seed 41, empty catalog) to the first fullMenu example.
// `node tests/openapi/examples.mjs --write` rewrites the values from their sources (after a fixture
// or the sandbox changed; `make build` first); tests/js/openapi.test.mjs and `cargo test --lib
// schema` fail while one differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXAMPLES = join(root, 'src', 'schema', 'examples.json');
const fixtures = join(root, 'tests', 'fixtures');

/** The examples file, parsed. */
export const readExamples = () => JSON.parse(readFileSync(EXAMPLES, 'utf8'));

/** The value an example's `from` names (`examples`: the whole file, for the sandbox's input). */
export async function sourceOf(from, examples) {
  let m;
  if ((m = /^payload\/(\S+?)( as data)?$/.exec(from))) {
    const value = JSON.parse(readFileSync(join(fixtures, 'payload', m[1]), 'utf8'));
    return m[2] ? { message: 'OK', data: value } : value;
  }
  if ((m = /^requests\/(.+)$/.exec(from))) {
    const cases = JSON.parse(readFileSync(join(fixtures, 'requests', 'cases.json'), 'utf8'));
    const found = cases.filter((c) => c.name === m[1]);
    if (found.length !== 1) throw new Error(`${from}: ${found.length} request cases of that name`);
    const c = found[0];
    if (!(c.expectStatus >= 200 && c.expectStatus < 300) || c.expect.length || c.request.body == null || c.request.bodyText !== undefined) {
      throw new Error(`${from}: not a valid request (expectStatus ${c.expectStatus}, ${c.expect.length} diagnostics)`);
    }
    return c.request.body;
  }
  if (from === 'sandbox/POST /api/v1/menu/preview fullMenu') {
    const { createSandbox } = await import('../../pkg/dist/sandbox.mjs');
    const sb = await createSandbox({ clock: 'manual', seed: 41 });
    try {
      const res = await fetch(`${sb.url}/api/v1/menu/preview`, {
        method: 'POST',
        headers: { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
        body: JSON.stringify(examples.fullMenu[0].value),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${from}: ${res.status} ${text.slice(0, 300)}`);
      return JSON.parse(text);
    } finally {
      await sb.close();
    }
  }
  throw new Error(`unknown example source: ${from}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const examples = readExamples();
  for (const [kind, list] of Object.entries(examples)) {
    if (kind.startsWith('$')) continue;
    for (const e of list) e.value = await sourceOf(e.from, examples);
  }
  const text = `${JSON.stringify(examples, null, 2)}\n`;
  if (process.argv.includes('--write')) writeFileSync(EXAMPLES, text);
  else if (text !== readFileSync(EXAMPLES, 'utf8')) {
    console.error(`${EXAMPLES} differs from its sources: run node tests/openapi/examples.mjs --write`);
    process.exit(1);
  }
}
