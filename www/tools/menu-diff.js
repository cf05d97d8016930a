// Menu tool, "Compare with the live menu" mode: the menu in the main editor (the full submission
// PUT /api/v1/menu would send) against the store menu read pasted here (GET
// /api/v1/menu/stores/{storeRemoteId}). The package's diffMenu computes everything; this module
// shows it: the verdict on the deactivated share, the counts, a filterable table of changes, and a
// click on a row selects the item in the editor of its side.

import { h, mount, debounce, plural, formatBytes } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { createDiagnostics, spanLength } from '../lib/diagnostics.js';

const CHANGES = ['created', 'updated', 'deactivated', 'ambiguous'];
const ENTITY_LABEL = { category: 'category', product: 'product', modifierGroup: 'modifier group', option: 'option' };

const show = (v) => (v === undefined ? 'absent' : JSON.stringify(v));
const percent = (x) => `${Math.round(x * 1000) / 10}%`;

/**
 * @param {{ api: object, container: HTMLElement, editor: object, examples: object,
 *           loadNext: (text: string, name: string) => void }} ctx
 */
export function createMenuDiff({ api, container, editor, examples, loadNext }) {
  let result = null; // { diff, currentBytes, nextBytes }
  let filter = { change: 'all', entity: 'all', text: '' };

  const current = createEditor({
    id: 'md-current',
    label: 'Live store menu JSON',
    placeholder: 'Paste the live store menu: the response of GET /api/v1/menu/stores/{storeRemoteId}\n(its data, or the whole { message, data }). The menu in the editor is compared with it.',
    onChange: () => compareSoon(),
    onFile: () => compare(),
  });
  const fileInput = h('input', { type: 'file', id: 'md-file', accept: '.json,application/json,text/plain', hidden: true,
    onchange: async (e) => { const f = e.target.files?.[0]; if (f) await current.loadFile(f); e.target.value = ''; } });
  const threshold = h('input', { type: 'number', id: 'md-threshold', min: '0', max: '100', step: '1', value: '20', class: 'md-threshold',
    title: 'Warn when the upload would deactivate more than this share of the active catalog. The service\'s own threshold is not shown: 20% is an assumption.',
    oninput: () => compareSoon() });
  const summary = h('div', { class: 'md-summary', id: 'md-summary' });
  const search = h('input', { type: 'search', id: 'md-search', placeholder: 'Filter by code or name', class: 'md-search',
    oninput: () => { filter.text = search.value.trim().toLowerCase(); renderTable(); } });
  const changeSeg = h('div', { class: 'seg seg-sm', role: 'tablist', 'aria-label': 'Change', id: 'md-change' },
    ['all', ...CHANGES].map((c) => h('button', { type: 'button', role: 'tab', 'aria-selected': String(c === 'all'), dataset: { change: c },
      onclick: () => { filter.change = c; for (const b of changeSeg.children) b.setAttribute('aria-selected', String(b.dataset.change === c)); renderTable(); } },
      h('span', { text: c }), h('span', { class: 'md-count', dataset: { count: c } }))));
  const entitySel = h('select', { id: 'md-entity', 'aria-label': 'Entity', onchange: () => { filter.entity = entitySel.value; renderTable(); } },
    h('option', { value: 'all', text: 'every entity' }),
    Object.entries(ENTITY_LABEL).map(([v, t]) => h('option', { value: v, text: `${t}s` })));
  const table = h('div', { class: 'md-table-wrap', id: 'md-table' });
  const diags = createDiagnostics({
    onSelect: (d) => d.side === 'current'
      ? current.selectAt(d.line, d.column, spanLength(result?.currentBytes, d.span))
      : editor.selectAt(d.line, d.column, spanLength(result?.nextBytes, d.span)),
    emptyTitle: 'No diagnostics',
    emptyText: 'Neither side has a problem the diff or the checks see.',
  });

  const exampleBtn = h('button', { type: 'button', class: 'btn btn-sm', id: 'md-example', text: 'Load example pair',
    title: 'A store menu read and a changed submission (tests/fixtures/diff)',
    onclick: () => {
      current.setText(examples.menuDiffCurrent);
      loadNext(examples.menuDiffNext, 'example: submission with one change of each kind');
      compare();
    } });
  if (!examples.menuDiffCurrent || !examples.menuDiffNext) exampleBtn.hidden = true;

  mount(container,
    h('div', { class: 'md-current' },
      h('div', { class: 'pane-bar' },
        h('span', { class: 'pane-title', text: 'Live store menu' }),
        h('span', { class: 'muted small', id: 'md-stats' }),
        h('span', { class: 'spacer' }),
        exampleBtn,
        h('button', { type: 'button', class: 'btn btn-sm', text: 'Open file…', onclick: () => fileInput.click() }),
        fileInput),
      h('div', { class: 'md-current-editor' }, current.el)),
    h('div', { class: 'md-controls' },
      h('label', { class: 'small' }, 'Warn above ', threshold, ' % deactivated'),
      h('span', { class: 'muted small', text: '(the service\'s threshold is not shown; 20% is an assumption)' })),
    summary,
    h('div', { class: 'md-filters' }, changeSeg, entitySel, search),
    table,
    h('details', { class: 'md-diags', id: 'md-diags' }, h('summary', { text: 'Diagnostics of both sides' }), diags.el),
    h('details', { class: 'md-diags', id: 'md-basis' }, h('summary', { text: 'What the matching rests on' }), h('ul', { class: 'md-basis-list' })));

  const compareSoon = debounce(() => compare(), () => Math.min(900, 150 + (editor.length + current.length) / 8000));

  function compare() {
    compareSoon.cancel();
    const currentBytes = current.bytes();
    const nextBytes = editor.bytes();
    mount(container.querySelector('#md-stats'), currentBytes.length ? formatBytes(currentBytes.length) : '');
    if (!currentBytes.length || !nextBytes.length) {
      result = null;
      mount(summary, h('p', { class: 'muted', text: nextBytes.length
        ? 'Paste the live store menu above to see what the upload would create, change and deactivate.'
        : 'Put the full submission in the editor, and the live store menu above.' }));
      renderTable();
      diags.setReport(null);
      return;
    }
    const pct = Number(threshold.value);
    const options = Number.isFinite(pct) && pct >= 0 && pct <= 100 ? { threshold: pct / 100 } : {};
    let diff;
    try {
      diff = api.diffMenu(currentBytes, nextBytes, options);
    } catch (error) {
      result = null;
      mount(summary, h('p', { class: 'verdict verdict-bad', text: `${error.code ?? 'error'}: ${error.message}` }));
      renderTable();
      return;
    }
    result = { diff, currentBytes, nextBytes };
    mount(container.querySelector('#md-basis ul'), (diff.basis ?? []).map((b) => h('li', {},
      h('strong', { text: b.topic }), `: ${b.rule} `, h('span', { class: `md-chip md-basis-${b.basis}`, text: b.basis }),
      h('div', { class: 'muted small', text: b.source }))));
    renderSummary();
    renderTable();
    const both = [...diff.next.diagnostics.map((d) => ({ ...d, side: 'next' })), ...diff.current.diagnostics.map((d) => ({ ...d, side: 'current', path: `live menu: ${d.path}` }))];
    const count = (s) => both.filter((d) => d.severity === s).length;
    diags.setReport({ ok: !both.some((d) => d.severity === 'error'), errorCount: count('error'), warningCount: count('warning'), infoCount: count('info'), diagnostics: both, errors: {} });
  }

  function renderSummary() {
    const { diff } = result;
    const s = diff.summary;
    if (!diff.compared) {
      mount(summary, h('div', { class: 'verdict verdict-bad', id: 'md-verdict' },
        h('div', {}, h('div', { class: 'verdict-title', text: 'Not compared' }),
          h('p', { class: 'verdict-sub', text: 'One side could not be read as a menu: see the diagnostics below.' }))));
      container.querySelector('#md-diags').open = true;
      return;
    }
    const kind = s.aboveThreshold ? 'verdict-bad' : s.wouldBeRefused ? 'verdict-warn' : 'verdict-good';
    const title = s.aboveThreshold
      ? `Large deactivation: ${percent(s.deactivatedShare)} of the active catalog`
      : `${plural(s.deactivated.products, 'product')} deactivated (${percent(s.deactivatedShare)})`;
    const sub = s.aboveThreshold
      ? `Above your threshold of ${percent(s.threshold)}: PUT /api/v1/menu answers 409 unless confirmLargeDeactivation=true is sent (the service's threshold is not shown).`
      : `${s.deactivated.products} of ${s.activeProducts} active products; threshold ${percent(s.threshold)}.`;
    const row = (name, c) => h('tr', {}, h('th', { text: name }),
      [c.categories, c.products, c.modifierGroups, c.options].map((n) => h('td', { class: 'num', text: String(n) })));
    mount(summary,
      h('div', { class: `verdict ${kind}`, id: 'md-verdict' },
        h('div', {},
          h('div', { class: 'verdict-title', text: title }),
          h('p', { class: 'verdict-sub', text: sub }),
          s.wouldBeRefused ? h('p', { class: 'verdict-sub', text: 'The submission has lint errors: the service would refuse it (422) as it is.' }) : null,
          s.storeLocalProducts ? h('p', { class: 'verdict-sub muted', text: `${plural(s.storeLocalProducts, 'store-local product')} (origin: store) outside the master catalog: what the upload does to them is not shown.` }) : null)),
      h('table', { class: 'md-counts' },
        h('thead', {}, h('tr', {}, h('th', { text: '' }), ['categories', 'products', 'modifier groups', 'options'].map((t) => h('th', { class: 'num', text: t })))),
        h('tbody', {}, row('created', s.created), row('updated', s.updated), row('deactivated', s.deactivated), row('unchanged', s.unchanged),
          Object.values(s.ambiguous).some(Boolean) ? row('ambiguous', s.ambiguous) : null)));
    for (const b of changeSeg.children) {
      const c = b.dataset.change;
      const n = c === 'all' ? diff.entries.length : diff.entries.filter((e) => e.change === c).length;
      b.querySelector('.md-count').textContent = String(n);
    }
  }

  function visible(e) {
    if (filter.change !== 'all' && e.change !== filter.change) return false;
    if (filter.entity !== 'all' && e.entity !== filter.entity) return false;
    if (!filter.text) return true;
    return [e.remoteCode, e.code, e.name, e.parent].some((x) => x && x.toLowerCase().includes(filter.text));
  }

  function jump(e) {
    if (e.side === 'current') current.selectAt(e.line, e.column, spanLength(result.currentBytes, e.span));
    else editor.selectAt(e.line, e.column, spanLength(result.nextBytes, e.span));
  }

  function renderTable() {
    if (!result || !result.diff.compared) { mount(table); return; }
    const { diff } = result;
    const rows = diff.entries.filter(visible);
    if (!diff.entries.length) {
      mount(table, h('p', { class: 'md-empty', text: 'No change: the upload would leave this store\'s menu as it is.' }));
      return;
    }
    const LIMIT = 2000;
    mount(table,
      h('table', { class: 'md-table' },
        h('thead', {}, h('tr', {}, ['Change', 'Item', 'What changes'].map((t) => h('th', { text: t })))),
        h('tbody', {}, rows.slice(0, LIMIT).map((e) => h('tr', {
          class: `md-row md-${e.change}`, tabindex: '0', dataset: { change: e.change, entity: e.entity, side: e.side },
          title: e.side === 'current' ? 'Select it in the live store menu' : 'Select it in the editor',
          onclick: () => jump(e), onkeydown: (ev) => { if (ev.key === 'Enter') jump(e); },
        },
          h('td', {}, h('span', { class: `md-chip md-chip-${e.change}`, text: e.change }),
            h('div', { class: 'muted small md-entity', text: ENTITY_LABEL[e.entity] ?? e.entity })),
          h('td', {}, h('code', { text: e.remoteCode ?? e.code ?? '' }), e.name ? ` ${e.name}` : '',
            e.parent ? h('div', { class: 'muted small', text: `in ${e.parent}` }) : null,
            h('div', { class: 'md-where small', text: `${e.side === 'current' ? 'live menu' : 'editor'} ${e.line}:${e.column}` })),
          h('td', {}, (e.changes ?? []).map((c) => h('div', { class: 'md-field' },
            h('code', { text: c.field }), ' ', h('span', { class: 'md-old', text: show(c.old) }), ' → ', h('span', { class: 'md-new', text: show(c.new) }),
            c.note ? h('div', { class: 'muted small', text: c.note }) : null)),
            e.note ? h('div', { class: 'muted small', text: e.note }) : null))))),
      rows.length > LIMIT ? h('p', { class: 'muted small', text: `${rows.length - LIMIT} more rows not shown; filter to narrow.` }) : null,
      diff.truncated ? h('p', { class: 'muted small', id: 'md-truncated', text: `${diff.truncated.total} changes in all; the first ${diff.truncated.shown} are listed (the counts are complete).` }) : null,
      rows.length === 0 ? h('p', { class: 'md-empty', text: 'No change matches the filters.' }) : null);
  }

  compare();
  return {
    /** Recomputes after the main editor changed. */
    refresh: () => compareSoon(),
    show() { current.refresh(); compare(); },
    current,
  };
}
