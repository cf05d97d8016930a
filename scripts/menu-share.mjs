// poscheck/menu's share of a Vite production build (issue 29's budget: 150 KiB gzipped): an app
// that imports lintMenu and diffMenu from it and runs them, built by Vite with its defaults; its
// share is what the app's files weigh gzipped (level 9), JS and wasm together, less what the same
// app weighs without poscheck. Printed by `make build` (scripts/build-pkg.mjs), gated by
// tests/package/size.test.mjs.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The budget, bytes (150 KiB). */
export const MENU_SHARE_BUDGET = 150 * 1024;

/** Every file under `dir`. */
function files(dir) {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
}

/** Builds `main` (the app's entry) with Vite; the gzipped bytes of its .js and .wasm files. */
async function weigh(build, dir, main) {
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>\n');
  writeFileSync(join(dir, 'main.js'), main);
  const outDir = join(dir, 'out');
  await build({ root: dir, logLevel: 'silent', configFile: false, build: { outDir, emptyOutDir: true } });
  const out = { js: 0, wasm: 0, files: [] };
  for (const f of files(outDir)) {
    const kind = f.endsWith('.wasm') ? 'wasm' : f.endsWith('.js') ? 'js' : null;
    if (!kind) continue;
    const gz = gzipSync(readFileSync(f), { level: 9 }).length;
    out[kind] += gz;
    out.files.push({ file: f.slice(outDir.length + 1), gz });
  }
  return out;
}

/**
 * poscheck/menu's share of a Vite production build of a small app, with `pkgDir` (the package
 * directory, pkg/) installed as `poscheck`: `{ share, js, wasm, files, baseline }`, gzipped bytes.
 */
export async function menuShare(pkgDir, root = join(pkgDir, '..')) {
  const { build } = await import(join(root, 'node_modules', 'vite', 'dist', 'node', 'index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-menu-share-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(pkgDir, join(dir, 'node_modules', 'poscheck'), 'dir');
    const show = 'document.body.textContent = JSON.stringify(answer);\n';
    const baseline = await weigh(build, dir, `const answer = { ok: true };\n${show}`);
    const app = await weigh(
      build,
      dir,
      `import init, { lintMenu, diffMenu } from 'poscheck/menu';
init().then(() => {
  const answer = { errors: lintMenu('{"categories":[]}').errorCount, compared: diffMenu('{"categories":[]}', '{"categories":[]}').compared };
  ${show}});
`,
    );
    const share = app.js + app.wasm - (baseline.js + baseline.wasm);
    return { share, js: app.js - baseline.js, wasm: app.wasm, files: app.files, baseline: baseline.js + baseline.wasm };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
