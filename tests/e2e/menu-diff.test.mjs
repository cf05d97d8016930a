// Ring 4: the Menu tool's "Compare with the live menu" mode in Chromium: the example pair, the
// verdict and counts, filters, and a click on a row selecting the item in the editor of its side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { OUT, usePageServer } from './support.mjs';

const ctx = usePageServer();

test('Menu: compare with the live menu lists the changes, filters them and jumps to each item', async () => {
  const page = await ctx.browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(ctx.base + '#menu');
  await page.waitForSelector('#app[data-state="ready"]', { timeout: 15000 });
  assert.ok(await page.locator('#mn-tab-diff').isVisible(), 'the build has diffMenu');
  await page.click('#mn-tab-diff');
  await page.click('#md-example');
  await page.waitForSelector('#md-table .md-row');

  // The example pair is tests/fixtures/diff: 12 changes, 1 of 5 products deactivated (20%).
  assert.equal(await page.locator('#md-table .md-row').count(), 12);
  assert.match(await page.textContent('#md-verdict'), /1 product deactivated \(20%\)/);
  assert.match(await page.textContent('#md-summary .md-counts'), /deactivated/);

  // Filters: only what would disappear, then a search.
  await page.click('#md-change [data-change="deactivated"]');
  assert.equal(await page.locator('#md-table .md-row').count(), 3);
  await page.click('#md-change [data-change="all"]');
  await page.fill('#md-search', 'burger-2');
  assert.equal(await page.locator('#md-table .md-row').count(), 1);

  // A click selects BURGER-2's remoteCode in the main editor, at the row's line and column.
  const row = page.locator('#md-table .md-row').first();
  const where = await row.locator('.md-where').textContent();
  const [, line, column] = where.match(/editor (\d+):(\d+)/).map(Number);
  await row.click();
  // The page's editors are CodeMirror views: read the selection through the page's editor handle.
  const selected = await page.evaluate(() => {
    const e = window.__poscheck.editor('mn-input');
    const { from, to } = e.selection;
    const before = e.value.slice(0, from);
    return { text: e.value.slice(from, to), line: before.split('\n').length, column: before.length - before.lastIndexOf('\n') };
  });
  assert.deepEqual(selected, { text: '"BURGER-2"', line, column });
  const next = await readFile(new URL('../fixtures/diff/next-one-of-each.json', import.meta.url), 'utf8');
  assert.equal(next.split('\n')[line - 1].slice(column - 1, column + 9), '"BURGER-2"');

  // A deactivated item is selected in the live store menu's editor.
  await page.fill('#md-search', 'water');
  await page.locator('#md-table .md-row').first().click();
  const picked = await page.evaluate(() => {
    const e = window.__poscheck.editor('md-current');
    return e.value.slice(e.selection.from, e.selection.to);
  });
  assert.equal(picked, '"WATER"');

  // What the matching rests on is listed, with the assumptions marked.
  assert.match(await page.textContent('#md-basis'), /category: matched by name.*assumed/);

  // A lower threshold turns the verdict into the 409 warning.
  await page.fill('#md-search', '');
  await page.fill('#md-threshold', '10');
  await page.waitForFunction(() => /409/.test(document.getElementById('md-verdict')?.textContent ?? ''));
  await page.screenshot({ path: `${OUT}menu-diff.png` });
  assert.deepEqual(problems, []);
  await page.close();
});
