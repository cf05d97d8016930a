// What the ring-4 test files share: the page server and Chromium for a file's tests, opening the
// page with its console watched, signatures by node:crypto (independent of the wasm core), the
// editors, and generated inputs. Not a test file itself (node --test runs *.test.mjs).

import { before, after } from 'node:test';
import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from '../../scripts/serve.mjs';

/** Screenshots and other artefacts. */
export const OUT = fileURLToPath(new URL('../../test-results/', import.meta.url));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Starts the page server and Chromium before the calling file's tests and stops them after.
 * Returns an object whose `browser` and `base` (the page's URL) are set once `before` has run.
 */
export function usePageServer() {
  const ctx = { browser: null, base: null, server: null };
  before(async () => {
    await mkdir(OUT, { recursive: true });
    ctx.server = createServer();
    await new Promise((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
    ctx.base = `http://127.0.0.1:${ctx.server.address().port}/`;
    ctx.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  });
  after(async () => {
    await ctx.browser?.close();
    await new Promise((resolve) => ctx.server?.close(resolve) ?? resolve());
  });
  return ctx;
}

/**
 * Opens the page at `hash`, collecting console errors and warnings (`problems`) and every request
 * made (`requests`); `clock` (ms) installs a fake clock first; `context` opens in that browser
 * context instead of a new page of `ctx.browser`.
 */
export async function openPage(ctx, hash = '#webhook', { clock, viewport = { width: 1280, height: 800 }, colorScheme = 'light', context } = {}) {
  const page = context ? await context.newPage() : await ctx.browser.newPage({ viewport, colorScheme });
  const problems = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  if (clock !== undefined) await page.clock.install({ time: clock });
  await page.goto(ctx.base + hash);
  await page.waitForSelector('#app[data-state="ready"]', { timeout: 15000 });
  return { page, problems, requests };
}

/** `X-Service-Signature-256` for `body`, by node:crypto. */
export const sign = (secret, timestamp, body) =>
  `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(Buffer.from(body)).digest('hex')}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export const shot = (page, name) => page.screenshot({ path: `${OUT}${name}.png` });

/** A raw request as an integrator would paste it (LF line endings, as a textarea holds them). */
export function rawRequest(body, headers) {
  return ['PUT /v1/order/STORE-1/R-1001/events HTTP/1.1', 'Host: pos.example.test', 'Content-Type: application/json',
    ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`), '', body].join('\n');
}

/** The state of a page editor (CodeMirror) by its content id: text, selection, line and column. */
export const editorState = (page, id) => page.evaluate((i) => {
  const e = window.__poscheck.editor(i);
  const { from, to } = e.selection;
  const before = e.value.slice(0, from);
  return { value: e.value, from, to, line: before.split('\n').length, column: from - before.lastIndexOf('\n'), focused: e.el.contains(document.activeElement), cursorLine: e.cursorLine };
}, id);

/**
 * Puts text in a page editor the way a user pastes it: select all, then a paste event carrying
 * the text (CodeMirror handles it). Playwright's fill() on a contenteditable goes through the
 * browser's editing commands, which add inline styles the page's CSP (rightly) refuses.
 */
export async function fillEditor(page, id, text) {
  await page.focus(`#${id}`);
  await page.keyboard.press('Control+a');
  await page.evaluate(([i, t]) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    document.getElementById(i).dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, [id, text]);
}

/** A pretty-printed menu of about `mb` megabytes whose last product reuses the first remoteCode. */
export function largeMenu(mb) {
  const categories = [];
  let size = 0;
  let n = 0;
  while (size < mb * 1024 * 1024) {
    const products = [];
    for (let i = 0; i < 40; i++, n++) {
      products.push({
        remoteCode: `P-${n}`, name: `Product ${n}`, description: 'Grilled, with a side', price: 5 + (n % 7), tax: 0.15, maxPerOrder: 10,
        image: `https://cdn.example.test/p/${n}.png`,
        modifierGroups: [{ remoteCode: `G-${n}`, name: 'Size', min: 0, max: 1, type: 'radio', options: [
          { remoteCode: 'S', name: 'Small', price: 0, isDefault: true, maxPerOrder: null },
          { remoteCode: 'L', name: 'Large', price: 1, isDefault: false, maxPerOrder: null }] }],
      });
    }
    const category = { remoteCode: `C-${categories.length}`, name: `Category ${categories.length}`, position: categories.length, products };
    size += JSON.stringify(category, null, 2).length;
    categories.push(category);
  }
  categories.at(-1).products.at(-1).remoteCode = 'P-0';
  return JSON.stringify({ categories }, null, 2);
}
