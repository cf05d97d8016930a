// Assembles the npm package in pkg/ from the wasm-bindgen output (the page's copy in www/pkg/ is
// scripts/build-www.mjs's)
// (--target web, in pkg/dist/web and pkg/dist/webhook-web), then prints the .wasm sizes.
//
// The package holds ONE copy of each WebAssembly module, embedded as base64 in an ES module
// (pkg/dist/wasm.js for `poscheck`, pkg/dist/webhook-wasm.js for `poscheck/webhook`), shared by the
// Node and browser entries of that export. Embedding is what lets esbuild, Vite and webpack
// bundle the package with no configuration (esbuild copies no .wasm asset, for Node or browsers),
// and lets a page with a strict CSP (connect-src 'none') load it without a fetch.
//
//   pkg/dist/api.cjs   CommonJS copy of pkg/src/api.js (the facade source is an ES module)
//   pkg/dist/receiver.cjs  CommonJS copy of pkg/src/receiver.js (the webhook receiver kit) and of
//                      its parts in pkg/src/receiver/, concatenated
//   pkg/dist/wasm.js   the .wasm, base64 (ES module; Node 20.19+ require()s it synchronously)
//   pkg/dist/node.cjs  Node entry (require): ready at once, the module compiled synchronously
//   pkg/dist/node.mjs  Node entry (import): re-exports node.cjs by name
//   pkg/dist/web.js    browser entry (ES module): `await init()` first
//   pkg/dist/webhook.{cjs,mjs}, webhook-web.js, webhook-wasm.js: the same for `poscheck/webhook`,
//                      a smaller module with the webhook functions and the receiver kit only
import { readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'pkg');
const dist = join(pkg, 'dist');

// 1. CommonJS copies of the facade and of the receiver kit (both sources are ES modules).
/**
 * The CommonJS copy of pkg/src/`src` and of the files it imports (relative imports only: the
 * receiver kit's parts in pkg/src/receiver/), concatenated in dependency order into one scope:
 * imports dropped, `export` dropped from declarations. Exports the entry's names: the
 * declarations it exports and the names of its `export { … } from` lines.
 */
function commonJs(src) {
  const order = [];
  const seen = new Set();
  const declared = new Map(); // top-level name → file
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(join(pkg, 'src', file), 'utf8');
    const statement = /^(import|export) \{([^}]*)\} from '(\.\.?\/[^']+)';\n/gm;
    for (const [, , names, spec] of source.matchAll(statement)) {
      if (/\bas\b/.test(names)) throw new Error(`build-pkg: pkg/src/${file} renames an import (${names.trim()}): the CommonJS copy shares one scope`);
      visit(join(dirname(file), spec).replaceAll("\\", "/"));
    }
    const body = source.replace(statement, '');
    const other = /^\s*(import\b|export (?!(?:async )?(?:function|class|const) ))/m.exec(body);
    if (other) throw new Error(`build-pkg: pkg/src/${file}: only \`import { … } from './…'\` and \`export function|class|const\` are supported (${other[0].trim()}…)`);
    for (const [, name] of body.matchAll(/^(?:export )?(?:async )?(?:function\*?|class|const|let|var) ([A-Za-z_$][\w$]*)/gm)) {
      if (declared.has(name)) throw new Error(`build-pkg: ${name} is declared in pkg/src/${declared.get(name)} and pkg/src/${file}: top-level names must be unique`);
      declared.set(name, file);
    }
    order.push({ file, source, body });
  };
  visit(src);
  const entry = order.at(-1);
  const exported = [
    ...[...entry.source.matchAll(/^export (?:async )?(?:function|class|const) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]),
    ...[...entry.source.matchAll(/^export \{([^}]*)\} from/gm)].flatMap((m) => m[1].split(',').map((n) => n.trim()).filter(Boolean)),
  ];
  const what = order.length > 1 ? `pkg/src/${src} and the files it imports` : `pkg/src/${src}`;
  return (
    `"use strict";\n// Generated from ${what} by scripts/build-pkg.mjs: do not edit.\n` +
    order
      .map(({ file, body }) => (order.length > 1 ? `// ---- pkg/src/${file}\n` : '') + body.replace(/^export (?=(?:async )?(?:function|class|const) )/gm, ''))
      .join('\n') +
    `\nmodule.exports = { ${exported.join(', ')} };\n`
  );
}
for (const [src, out] of [['api.js', 'api.cjs'], ['receiver.js', 'receiver.cjs'], ['sandbox.js', 'sandbox-face.cjs'], ['probe.js', 'probe-face.cjs']]) {
  writeFileSync(join(dist, out), commonJs(src));
}

// The API's names, from the facade itself (so the entry files never drift from it).
const { createApi } = await import(join(pkg, 'src', 'api.js'));
const names = Object.keys(createApi({}));
const classes = ['PoscheckError', 'WebhookVerificationError', 'DEFAULT_TOLERANCE_SECONDS'];
// The receiver kit (pkg/src/receiver.js): createReceiver, createMemoryStore, createRedisStore.
const facadeModule = await import(join(pkg, 'src', 'api.js'));
const { createReceiverApi } = await import(join(pkg, 'src', 'receiver.js'));
const receiverNames = Object.keys(createReceiverApi({}, facadeModule));

// 2. Node entries: the toolkit (`poscheck`) and the webhook-only module (`poscheck/webhook`: the
// functions a receiver needs, from a module built without the checkers; see Cargo.toml).
// Its API: the facade's functions whose wasm export of the same name that module has (Cargo.toml's
// `toolkit` feature decides which; verifyWebhook, diagnoseWebhook, signWebhook and the code lists).
const webhookGlue = readFileSync(join(dist, 'webhook-web', 'poscheck.js'), 'utf8');
const WEBHOOK_NAMES = names.filter((n) => webhookGlue.includes(`export function ${n}(`));
if (!WEBHOOK_NAMES.includes('verifyWebhook')) throw new Error('build-pkg: the webhook module exports no verifyWebhook');
// The toolkit's Node entry only (see platform.webhook at createApi in pkg/src/api.js): the kinds
// are the webhook module's payloadKinds(), asked of the module itself once it is embedded.
const toolkitPlatform = (webhookKinds) => `
// validatePayload of the webhook kinds (poscheck/webhook's payloadKinds(), read at build time) and
// the receivers of createReceiver run on poscheck/webhook's module (built at opt-level 3: about
// 0.7x the time), compiled on first use (about 7 ms) and shared with that entry.
let webhookEntry;
platform.webhook = { kinds: ${JSON.stringify(webhookKinds)}, load: () => (webhookEntry ??= require('./webhook.cjs')) };`;
const nodeCjs = (what, glue, embedded, apiNames, extra = '') => `"use strict";
// Generated by scripts/build-pkg.mjs. Node build${what}: CommonJS, usable at once after require().
// An ES-module-shaped CommonJS module (__esModule, exports.default): \`import init from 'poscheck'\`
// works from CommonJS TypeScript (esModuleInterop) as from ESM, as the declarations say.
Object.defineProperty(exports, '__esModule', { value: true });
// The wasm-bindgen glue and the embedded module are ES modules: require(esm), Node 20.19+.
const raw = require('${glue}');
raw.initSync({ module: Buffer.from(require('${embedded}').default, 'base64') });
const facade = require('./api.cjs');
// node:crypto's SHA-256 (verifyWebhook) and HMAC-SHA256 (the receiver kit) hash large bodies in
// Node (native, with the CPU's SHA instructions); the browser build keeps the wasm's.
const { createHash, createHmac, hash } = require('node:crypto');
const platform = { createHash, createHmac, hash };${extra}
const api = facade.createApi(raw, undefined, platform);
const receiver = require('./receiver.cjs').createReceiverApi(raw, facade, undefined, platform);
/** Nothing to wait for in Node; kept so that code shared with browsers can always \`await init()\`. */
async function init() {}
exports.default = init;
exports.init = init;
${[...apiNames.map((n) => `exports.${n} = api.${n};`), ...receiverNames.map((n) => `exports.${n} = receiver.${n};`), ...classes.map((c) => `exports.${c} = facade.${c};`)].join('\n')}
`;
const nodeMjs = (cjs, apiNames) => `// Generated by scripts/build-pkg.mjs. Node build as an ES module (wraps ${cjs}).
import * as api from './${cjs}';
export const { ${[...apiNames, ...receiverNames, ...classes, 'init'].join(', ')} } = api;
export default api.init;
`;

// 3. Browser entries: the package's and the page's (both with the module embedded).
const webEntry = (rawPath, apiPath, wasmPath, receiverPath, apiNames = names) => `// Generated by scripts/build-pkg.mjs. Browser build: ES module; \`await init()\` before any call.
import initWasm, * as raw from '${rawPath}';
import { createApi } from '${apiPath}';
import embedded from '${wasmPath}';
export { ${classes.join(', ')} } from '${apiPath}';
let ready = false;
let pending;
const decode = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
/**
 * Compiles the WebAssembly module once (asynchronously: browsers refuse large synchronous
 * compiles). \`input\` is optional: the module's bytes (BufferSource), a WebAssembly.Module, a URL
 * or a Response; by default the module embedded in the package is used (nothing is fetched).
 */
export default function init(input) {
  pending ??= initWasm({ module_or_path: input === undefined ? decode(embedded) : input }).then(() => {
    ready = true;
  });
  return pending;
}
export { init };
const api = createApi(raw, () => ready);
export const { ${apiNames.join(', ')} } = api;
${
  receiverPath === undefined
    ? ''
    : `import * as facade from '${apiPath}';
import { createReceiverApi } from '${receiverPath}';
export const { ${receiverNames.join(', ')} } = createReceiverApi(raw, facade, () => ready);
`
}`;
// The glue's default (fetch the .wasm beside it) is never taken, since init() always passes the
// module; removing it keeps bundlers (Vite, webpack) from looking for an asset that is not shipped.
for (const dir of ['web', 'webhook-web', 'menu-web', 'sandbox-web']) {
  const gluePath = join(dist, dir, 'poscheck.js');
  const glue = readFileSync(gluePath, 'utf8');
  const fallback = /module_or_path = new URL\('poscheck_bg\.wasm', import\.meta\.url\);/;
  const patched = "throw new Error('poscheck: init() passes the module; nothing is fetched');";
  if (!fallback.test(glue) && !glue.includes(patched)) throw new Error('wasm-bindgen glue: the default module path was not found; update scripts/build-pkg.mjs');
  writeFileSync(gluePath, glue.replace(fallback, patched));
}
/** The module wasm-bindgen wrote in dist/<dir>, embedded as base64 in dist/<out> (and its bytes). */
function embed(dir, out) {
  const wasmFile = join(dist, dir, 'poscheck_bg.wasm');
  // (Run again without a new wasm-bindgen output, the module is read back from dist/<out>.)
  const bytes = existsSync(wasmFile)
    ? readFileSync(wasmFile)
    : Buffer.from(/'([A-Za-z0-9+/=]+)'/.exec(readFileSync(join(dist, out), 'utf8'))[1], 'base64');
  writeFileSync(join(dist, out), `// Generated by scripts/build-pkg.mjs: the WebAssembly module, base64.\nexport default '${bytes.toString('base64')}';\n`);
  // The one copy of each module is its base64 file; the .wasm file itself is not shipped.
  rmSync(wasmFile, { force: true });
  return bytes;
}
const wasm = embed('web', 'wasm.js');
const webhookWasm = embed('webhook-web', 'webhook-wasm.js');
const sandboxWasm = embed('sandbox-web', 'sandbox-wasm.js');
const menuWasm = embed('menu-web', 'menu-wasm.js');
// poscheck/menu's module also as a file, for the `production` condition (see its entries below).
writeFileSync(join(dist, 'menu.wasm'), menuWasm);
// The entries of 2 and 3, written once the modules are embedded: the toolkit's Node entry names
// the kinds the webhook module checks, asked of that module.
const webhookModule = await import(join(dist, 'webhook-web', 'poscheck.js'));
webhookModule.initSync({ module: webhookWasm });
writeFileSync(join(dist, 'node.cjs'), nodeCjs('', './web/poscheck.js', './wasm.js', names, toolkitPlatform(webhookModule.payloadKinds())));
writeFileSync(join(dist, 'node.mjs'), nodeMjs('node.cjs', names));
writeFileSync(join(dist, 'webhook.cjs'), nodeCjs(' of poscheck/webhook', './webhook-web/poscheck.js', './webhook-wasm.js', WEBHOOK_NAMES));
writeFileSync(join(dist, 'webhook.mjs'), nodeMjs('webhook.cjs', WEBHOOK_NAMES));
writeFileSync(join(dist, 'web.js'), webEntry('./web/poscheck.js', '../src/api.js', './wasm.js', '../src/receiver.js'));
writeFileSync(join(dist, 'webhook-web.js'), webEntry('./webhook-web/poscheck.js', '../src/api.js', './webhook-wasm.js', '../src/receiver.js', WEBHOOK_NAMES));
// `poscheck/sandbox` (Node only): the service model's module and its face (pkg/src/sandbox.js).
const { createSandboxApi } = await import(join(pkg, 'src', 'sandbox.js'));
const { createProbeApi } = await import(join(pkg, 'src', 'probe.js'));
const sandboxOnlyNames = Object.keys(createSandboxApi({}, {}));
const probeNames = Object.keys(createProbeApi({}, {}, {}));
const sandboxNames = [...sandboxOnlyNames, ...probeNames];
writeFileSync(
  join(dist, 'sandbox.cjs'),
  `"use strict";
// Generated by scripts/build-pkg.mjs. poscheck/sandbox, Node only: the service model (its own wasm
// module, built with the sandbox feature) and its face over node:http.
const raw = require('./sandbox-web/poscheck.js');
const { memory } = raw.initSync({ module: Buffer.from(require('./sandbox-wasm.js').default, 'base64') });
const face = require('./sandbox-face.cjs');
const api = face.createSandboxApi(raw, { http: require('node:http'), fs: require('node:fs'), memory, consoleDir: require('node:path').join(__dirname, '..', 'console') });
const probe = require('./probe-face.cjs').createProbeApi(raw, api, { http: require('node:http'), sendRequest: face.sendRequest });
${sandboxOnlyNames.map((n) => `exports.${n} = api.${n};`).join('\n')}
${probeNames.map((n) => `exports.${n} = probe.${n};`).join('\n')}
`,
);
writeFileSync(
  join(dist, 'sandbox.mjs'),
  `// Generated by scripts/build-pkg.mjs. poscheck/sandbox as an ES module (wraps sandbox.cjs).
import * as api from './sandbox.cjs';
export const { ${sandboxNames.join(', ')} } = api;
`,
);
writeFileSync(
  join(dist, 'sandbox-browser.js'),
  `// Generated by scripts/build-pkg.mjs. poscheck/sandbox is a local server: it runs in Node only.
throw new Error('poscheck/sandbox runs in Node only (it listens on a port and sends webhooks); in a browser, import poscheck');
`,
);
// `poscheck/menu`: the menu linter, the diff and their rule lists, from their own module (the
// `menu` feature: no other checker, see Cargo.toml), through createMenuApi (pkg/src/api.js), which
// a bundler takes without the rest of the facade. Browsers get the module embedded by default
// (nothing to configure, nothing fetched; Vite's dev server and esbuild copy no asset); under the
// `production` condition (Vite and webpack production builds) as dist/menu.wasm, which the bundler
// emits beside the app: gzip compresses the file about 40 % better than its base64. The file's URL
// is only in menu-file.js, so the embedded form never drags the file along, nor the reverse.
const MENU_NAMES = ['lintMenu', 'menuRules', 'diffMenu', 'diffRules'];
const menuGlue = readFileSync(join(dist, 'menu-web', 'poscheck.js'), 'utf8');
for (const n of MENU_NAMES) if (!menuGlue.includes(`export function ${n}(`)) throw new Error(`build-pkg: the menu module exports no ${n}`);
const { createMenuApi } = await import(join(pkg, 'src', 'api.js'));
if (JSON.stringify(Object.keys(createMenuApi({}))) !== JSON.stringify(MENU_NAMES)) throw new Error('build-pkg: createMenuApi and MENU_NAMES differ');
const menuWeb = (source, what) => `// Generated by scripts/build-pkg.mjs. poscheck/menu for browsers, ${what}; \`await init()\` before any call.
import initWasm, * as raw from './menu-web/poscheck.js';
import { createMenuApi } from '../src/api.js';
${source.import}export { PoscheckError } from '../src/api.js';
let ready = false;
let pending;
/**
 * Compiles the WebAssembly module once. \`input\` is optional: the module's bytes (BufferSource), a
 * WebAssembly.Module, a URL or a Response; by default ${source.doc}.
 */
export default function init(input) {
  pending ??= initWasm({ module_or_path: input === undefined ? ${source.module} : input }).then(() => {
    ready = true;
  });
  return pending;
}
export { init };
export const { ${MENU_NAMES.join(', ')} } = createMenuApi(raw, () => ready);
`;
writeFileSync(
  join(dist, 'menu.js'),
  menuWeb(
    {
      import: "import embedded from './menu-wasm.js';\n",
      module: 'Uint8Array.from(atob(embedded), (c) => c.charCodeAt(0))',
      doc: 'the module embedded in the package (nothing is fetched)',
    },
    'the module embedded as base64',
  ),
);
writeFileSync(
  join(dist, 'menu-file.js'),
  menuWeb(
    { import: '', module: "new URL('./menu.wasm', import.meta.url)", doc: 'menu.wasm beside this file, which the bundler emits with the app' },
    'the module as a file (the `production` condition: Vite and webpack production builds)',
  ),
);
writeFileSync(
  join(dist, 'menu.cjs'),
  `"use strict";
// Generated by scripts/build-pkg.mjs. poscheck/menu for Node: CommonJS, usable at once after require().
Object.defineProperty(exports, '__esModule', { value: true });
const raw = require('./menu-web/poscheck.js');
raw.initSync({ module: require('node:fs').readFileSync(require('node:path').join(__dirname, 'menu.wasm')) });
const facade = require('./api.cjs');
const api = facade.createMenuApi(raw);
/** Nothing to wait for in Node; kept so that code shared with browsers can always \`await init()\`. */
async function init() {}
exports.default = init;
exports.init = init;
${MENU_NAMES.map((n) => `exports.${n} = api.${n};`).join('\n')}
exports.PoscheckError = facade.PoscheckError;
`,
);
writeFileSync(
  join(dist, 'menu.mjs'),
  `// Generated by scripts/build-pkg.mjs. poscheck/menu for Node as an ES module (wraps menu.cjs).
import * as api from './menu.cjs';
export const { ${[...MENU_NAMES, 'PoscheckError', 'init'].join(', ')} } = api;
export default api.init;
`,
);
rmSync(join(dist, 'node'), { recursive: true, force: true });

// Help texts of the `poscheck` bin: the native binary's own (clap), so both print the same.
const native = join(root, 'target', 'debug', 'poscheck');
if (!existsSync(native)) throw new Error(`${native} is missing: cargo build --bin poscheck first (make build does)`);
const { execFileSync } = await import('node:child_process');
// clap prints a short help for -h and a long one for --help: both, keyed "cmd --help" / "cmd -h".
const cliHelp = {};
for (const cmd of ['', 'sign', 'verify', 'lint', 'validate', 'order', 'diff', 'rules', 'schema', 'openapi', 'sandbox', 'probe']) {
  for (const flag of ['--help', '-h']) {
    cliHelp[`${cmd} ${flag}`.trim()] = execFileSync(native, [...(cmd ? [cmd] : []), flag], { encoding: 'utf8' });
  }
}
writeFileSync(join(dist, 'cli-help.json'), JSON.stringify(cliHelp, null, 1) + '\n');

// The same declarations for the CommonJS entry (a .d.cts beside the .d.ts, so that TypeScript reads
// require() types as CommonJS and import types as ESM).
writeFileSync(join(pkg, 'index.d.cts'), readFileSync(join(pkg, 'index.d.ts'), 'utf8').replaceAll("from './types.js'", "from './types.cjs'"));
writeFileSync(join(pkg, 'sandbox.d.cts'), readFileSync(join(pkg, 'sandbox.d.ts'), 'utf8').replaceAll("from './types.js'", "from './types.cjs'"));
writeFileSync(join(pkg, 'menu.d.cts'), readFileSync(join(pkg, 'menu.d.ts'), 'utf8').replaceAll("from './index.js'", "from './index.cjs'"));
writeFileSync(join(pkg, 'webhook.d.cts'), readFileSync(join(pkg, 'webhook.d.ts'), 'utf8').replaceAll("from './index.js'", "from './index.cjs'"));

// 5. Sizes (issue 10's budget: 150 KiB gzipped per entry; tests/package/size.test.mjs gates them).
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
for (const [label, bytes] of [['poscheck', wasm], ['poscheck/webhook', webhookWasm], ['poscheck/menu', menuWasm], ['poscheck/sandbox (Node only)', sandboxWasm]]) {
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`${label} wasm: ${bytes.length} bytes (${kib(bytes.length)}) raw, ${gz} bytes (${kib(gz)}) gzipped`);
}
// What a POS front-end pays (issue 29, gated by tests/package/size.test.mjs): poscheck/menu's share
// of a Vite production build of an app that imports lintMenu and diffMenu.
const { menuShare, MENU_SHARE_BUDGET } = await import(join(root, 'scripts', 'menu-share.mjs'));
const share = await menuShare(pkg, root);
console.log(`poscheck/menu in a Vite production build: ${share.share} bytes (${kib(share.share)}) gzipped, JS and wasm (budget ${kib(MENU_SHARE_BUDGET)})`);
