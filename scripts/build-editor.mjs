// Bundles CodeMirror 6 (npm devDependencies) into www/vendor/codemirror.js, one ES module the
// page imports from its own origin. Run by `make build`.
//
// The page's CSP has style-src 'self': no <style> element without a nonce or hash. CodeMirror's
// style-mod injects its themes in a <style> element for a document (adopted stylesheets only for
// shadow roots). The bundle patches that one condition so the document gets a constructable
// stylesheet (document.adoptedStyleSheets, CSSOM: not inline style, allowed by style-src 'self'),
// and the CSP stays as strict as it is: no 'unsafe-inline', no nonce to keep secret in a static page.
import { build } from 'esbuild';
import { readFile, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = `${root}www/vendor/codemirror.js`;
await build({
  entryPoints: [`${root}scripts/cm-entry.js`],
  bundle: true,
  format: 'esm',
  minify: process.env.CM_MINIFY !== '0',
  target: 'es2020',
  outfile,
  legalComments: 'linked',
  logLevel: 'warning',
  plugins: [{
    name: 'style-mod-adopted-sheets',
    setup(b) {
      b.onLoad({ filter: /style-mod[\\/]src[\\/]style-mod\.js$/ }, async (args) => {
        const source = await promisify(readFile)(args.path, 'utf8');
        const from = 'if (!root.head && root.adoptedStyleSheets && win.CSSStyleSheet) {';
        if (!source.includes(from)) throw new Error('build-editor: style-mod changed; check how it injects styles under the CSP');
        return { contents: source.replace(from, 'if (root.adoptedStyleSheets && win.CSSStyleSheet) {'), loader: 'js' };
      });
    },
  }],
});
console.log(`www/vendor/codemirror.js: ${(statSync(outfile).size / 1024).toFixed(1)} KiB`);
