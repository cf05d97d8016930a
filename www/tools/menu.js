// Menu tool: lints a full menu submission with the package's lintMenu (bytes in, report out),
// lists the diagnostics and jumps to each one in the editor. menuRules() feeds the reference.

import { $, h, mount, debounce, segmented, formatBytes, plural, richText } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { createDiagnostics, sevIcon, spanLength, markersOf, drawn } from '../lib/diagnostics.js';
import { createMenuDiff } from './menu-diff.js';

export function createMenuTool(ctx) {
  const { api, examples } = ctx;
  if (!ctx.has('lintMenu')) {
    $('mn-unavailable').hidden = false;
    $('mn-panes').hidden = true;
    for (const id of ['mn-example', 'mn-example-valid', 'mn-open']) $(id).hidden = true;
    return { run() {}, show() {} };
  }

  let linted = null; // { bytes, report }
  const editor = createEditor({
    id: 'mn-input',
    label: 'Menu JSON',
    placeholder: 'Paste a full menu submission (the body of PUT /api/v1/menu),\ndrop a .json file here, or load the example.\n\nLarge files (megabytes) open in a fast read-only view.',
    onChange: () => { staleName(); lintSoon(); },
    onFile: (file) => { setName(file.name, 'file'); lint(); },
    persist: 'poscheck.draft.menu',
  });
  // The label says where the text came from, until it is edited.
  let nameVersion = -1;
  let nameKind = 'none';
  const setName = (text, kind) => {
    $('mn-name').textContent = text;
    nameKind = kind;
    nameVersion = editor.version;
  };
  const staleName = () => {
    if (editor.version === nameVersion) return;
    if (nameKind === 'example') setName('menu.json · edited from the example', 'edited');
    else if (nameKind === 'file') setName(`${$('mn-name').textContent} · edited`, 'edited');
  };
  mount($('mn-editor'), editor.el);

  const diags = createDiagnostics({
    onSelect: (d) => editor.selectAt(d.line, d.column, spanLength(linted?.bytes, d.span)),
    exportAs: () => ({ id: 'mn', title: 'poscheck: menu lint', file: $('mn-name').textContent.replace(/ · .*$/, ''), rules }),
    fixes: (d) => quickFix(d),
    emptyTitle: 'No problems found',
    emptyText: 'The service would accept this menu as submitted, with nothing it would get wrong.',
    verdicts: { bad: 'Would be refused', warn: 'Accepted, with warnings', good: 'Accepted', clean: 'Accepted' },
  });
  diags.setPlaceholder(h('li', { class: 'diag-empty big' },
    h('div', {},
      h('strong', { text: 'Nothing to lint yet' }),
      h('p', { text: 'Paste a menu, drop a file on the editor, or load an example. Linting runs as you type; every diagnostic links to its line and column.' }))));
  mount($('mn-diags'), diags.el);

  const lintSoon = debounce(() => lint(), () => Math.min(900, 150 + editor.length / 8000));

  function updateStats() {
    const n = editor.bytes().length;
    $('mn-stats').textContent = n ? `${formatBytes(n)} · ${plural(editor.lineCount, 'line')}` : '';
  }

  function lint() {
    lintSoon.cancel();
    const bytes = editor.bytes();
    updateStats();
    if (bytes.length === 0) {
      linted = null;
      diags.setReport(null);
      editor.setMarkers(new Map(), []);
      $('mn-timing').textContent = '';
      renderRules();
      return;
    }
    const seq = ++lintSeq;
    if (bytes.length >= OFF_THREAD && worker()) {
      // A large menu is linted in a worker: the page stays responsive while it runs.
      $('mn-timing').textContent = 'linting…';
      pending.set(seq, bytes);
      worker().postMessage({ id: seq, bytes });
      return;
    }
    const t0 = performance.now();
    let report;
    try {
      report = api.lintMenu(bytes);
    } catch (error) {
      report = failed(error);
    }
    show(bytes, report, performance.now() - t0);
  }

  const failed = (error) => ({
    ok: false, errorCount: 1, warningCount: 0, infoCount: 0, errors: {},
    diagnostics: [{ ruleId: error.code ?? 'internal', severity: 'error', message: error.message, path: '', line: 0, column: 0 }],
  });

  // The worker for large menus (created on first use; null where workers cannot start).
  const OFF_THREAD = 256 * 1024;
  let lintSeq = 0;
  let lintWorker;
  const pending = new Map();
  function worker() {
    if (lintWorker !== undefined) return lintWorker;
    try {
      lintWorker = new Worker(new URL('../lib/lint-worker.js', import.meta.url), { type: 'module' });
      lintWorker.onmessage = ({ data }) => {
        const bytes = pending.get(data.id);
        pending.delete(data.id);
        // Only the latest request counts: an older answer is for text that is gone.
        if (data.id !== lintSeq || !bytes) return;
        show(bytes, data.error ? failed(data.error) : data.report, data.ms);
      };
      lintWorker.onerror = () => {
        // No worker after all: lint here, as for small menus.
        lintWorker = null;
        pending.clear();
        lint();
      };
    } catch {
      lintWorker = null;
    }
    return lintWorker;
  }

  function show(bytes, report, ms) {
    linted = { bytes, report };
    diags.setReport(report);
    editor.setMarkers(markersOf(report), drawn(report, bytes));
    $('mn-timing').textContent = `linted in ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
    renderRules();
    if (!$('mn-diff').hidden) diffMode?.refresh();
  }

  /**
   * A fix only where the core's help states the value: "tax is a fraction, not a percentage: 21%
   * is 0.21" replaces exactly the number 21 at the diagnostic's span with 0.21.
   */
  function quickFix(d) {
    const m = /:\s*(-?\d+(?:\.\d+)?)% is (-?\d+(?:\.\d+)?)\s*$/.exec(d.help ?? '');
    if (!m || !d.line || !d.span) return null;
    const length = spanLength(linted?.bytes, d.span);
    if (editor.textAt(d.line, d.column, length) !== m[1]) return null;
    return {
      label: `Use ${m[2]}`,
      apply: () => {
        editor.replaceAt(d.line, d.column, length, m[2]);
        lint();
      },
    };
  }

  // Rules reference.
  const rules = ctx.has('menuRules') ? api.menuRules() : [];
  function renderRules() {
    const counts = new Map();
    for (const d of linted?.report.diagnostics ?? []) counts.set(d.ruleId, (counts.get(d.ruleId) ?? 0) + 1);
    if (!rules.length) {
      mount($('mn-rules'), h('p', { class: 'muted', text: 'This build does not list its rules (no menuRules()).' }));
      return;
    }
    mount($('mn-rules'),
      h('p', { class: 'muted small', text: `${plural(rules.length, 'rule')}, as the linter documents them. Click a rule that fired to list only its diagnostics.` }),
      h('table', { class: 'rules' },
        h('thead', {}, h('tr', {}, h('th', { text: '' }), h('th', { text: 'Rule' }), h('th', { class: 'num', text: 'Hits' }))),
        h('tbody', {}, rules.map((r) => {
          const n = counts.get(r.id) ?? 0;
          return h('tr', { class: n ? 'fired' : '' },
            h('td', {}, sevIcon(r.severity)),
            h('td', {},
              n
                ? h('button', { type: 'button', class: 'link-btn rule-id', title: 'Show only these diagnostics', onclick: () => { selectView('diags'); diags.setRuleFilter(r.id); } }, h('code', { text: r.id }))
                : h('code', { class: 'rule-id', text: r.id }),
              h('span', { class: 'rule-doc' }, richText(r.doc))),
            h('td', { class: 'num', text: n ? n.toLocaleString('en-US') : '–' }));
        }))));
  }
  renderRules();

  const selectView = segmented($('tool-menu').querySelector('.pane-result .seg'), 'view', (view) => {
    $('mn-diags').hidden = view !== 'diags';
    $('mn-rules').hidden = view !== 'rules';
    $('mn-diff').hidden = view !== 'diff';
    if (view === 'diff') diffMode?.show();
  });

  const load = (text, name) => {
    editor.replace(text, name.replace(/^example: /, 'the example: '));
    setName(name, 'example');
    lint();
    editor.focus();
  };
  // "Compare with the live menu": the editor's menu against a pasted store menu read (menu-diff.js).
  const diffMode = ctx.has('diffMenu')
    ? createMenuDiff({ api, container: $('mn-diff'), editor, examples, loadNext: (text, name) => { editor.setText(text); $('mn-name').textContent = name; lint(); } })
    : null;
  if (!diffMode) $('mn-tab-diff').hidden = true;
  if (examples.menu) $('mn-example').addEventListener('click', () => load(examples.menu, 'example: every rule firing'));
  else $('mn-example').hidden = true;
  if (examples.menuValid) $('mn-example-valid').addEventListener('click', () => load(examples.menuValid, 'example: valid menu'));
  else $('mn-example-valid').hidden = true;
  $('mn-open').addEventListener('click', () => $('mn-file').click());
  $('mn-file').addEventListener('change', async (e) => {
    const file = e.target.files?.[0];
    if (file) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      editor.replace(null, file.name, bytes);
      setName(file.name, 'file');
      lint();
    }
    e.target.value = '';
  });

  return {
    show() { editor.refresh(); },
    run() { lint(); },
    editor,
  };
}
