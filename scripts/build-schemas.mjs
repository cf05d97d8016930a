// Writes the JSON Schemas the npm package ships, pkg/schemas/<kind>.schema.json, and its OpenAPI
// document, pkg/schemas/openapi.json, from the native
// binary (`poscheck schema KIND`, generated from the checkers' own tables by src/schema/), and the
// list of kinds the package's bin prints (pkg/dist/schema-kinds.json), so that `npx poscheck
// schema …` prints the same bytes as the native `poscheck schema …` without the toolkit's wasm
// carrying the generator. Run by `make build` once target/debug/poscheck is built.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(root, 'target', 'debug', 'poscheck');
if (!existsSync(native)) throw new Error(`${native} is missing: cargo build --bin poscheck first (make build does)`);
const run = (...args) => execFileSync(native, args, { encoding: 'utf8', maxBuffer: 64 << 20 });

// `poscheck schema --list`: one kind a line, its id first.
const list = run('schema', '--list');
const kinds = list.split('\n').filter(Boolean).map((line) => line.split(' ')[0]);
if (kinds.length === 0) throw new Error('build-schemas: `poscheck schema --list` listed no kind');

const out = join(root, 'pkg', 'schemas');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
let total = 0;
for (const kind of kinds) {
  const text = run('schema', kind);
  JSON.parse(text); // a schema is JSON, or the build stops here
  writeFileSync(join(out, `${kind}.schema.json`), text);
  total += Buffer.byteLength(text);
}
// The OpenAPI 3.1 document of the service (`poscheck openapi`, src/schema/openapi.rs): the npm bin's
// `poscheck openapi` prints this file, byte for byte the native output.
const openapi = run('openapi');
JSON.parse(openapi);
writeFileSync(join(out, 'openapi.json'), openapi);
mkdirSync(join(root, 'pkg', 'dist'), { recursive: true });
writeFileSync(join(root, 'pkg', 'dist', 'schema-kinds.json'), JSON.stringify({ kinds, list }, null, 1) + '\n');
console.log(`schemas: ${kinds.length} JSON Schemas and openapi.json (${(Buffer.byteLength(openapi) / 1024).toFixed(1)} KiB) in pkg/schemas/ (${(total / 1024).toFixed(1)} KiB)`);
