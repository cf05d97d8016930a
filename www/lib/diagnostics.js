// The one diagnostics list every tool uses. It renders a report of the core's shape
// ({ ok, errorCount, warningCount, infoCount, diagnostics: [...] }) as is: counts, severity
// toggles, one row per diagnostic with its rule, path and position, help and related locations.
// It decides nothing about the contract.

import { h, mount, plural, richText, menuButton, copyText } from './dom.js';
import { reportJson, reportMarkdown, reportSarif, download } from './export.js';

const SEVERITIES = ['error', 'warning', 'info'];
const LABELS = { error: ['error', 'errors'], warning: ['warning', 'warnings'], info: ['info', 'info'] };

const ICONS = {
  error: '<svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M5.8 5.8l4.4 4.4M10.2 5.8l-4.4 4.4" stroke="currentColor" stroke-width="1.5" stroke-linecap="round"/></svg>',
  warning: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 1.8l6.6 11.7H1.4z" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round"/><path d="M8 6.2v3.4" stroke="currentColor" stroke-width="1.5" stroke-linecap="round"/><circle cx="8" cy="11.6" r=".9" fill="currentColor"/></svg>',
  info: '<svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M8 7.2v4.2" stroke="currentColor" stroke-width="1.5" stroke-linecap="round"/><circle cx="8" cy="4.9" r=".9" fill="currentColor"/></svg>',
  ok: '<svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M5 8.3l2 2 4-4.4" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
};

/** A severity icon (constant markup, never user content). */
export function sevIcon(severity) {
  const span = h('span', { class: `sev-icon sev-${severity}` });
  span.innerHTML = ICONS[severity] ?? ICONS.info;
  return span;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The length in UTF-16 units (what a textarea selects) of a byte span of `bytes`, with CRLF
 * counted as the single LF a textarea shows.
 */
export function spanLength(bytes, span) {
  if (!bytes || !span || !(span.end > span.start)) return 0;
  const end = Math.min(span.end, bytes.length, span.start + 4096);
  return decoder.decode(bytes.subarray(span.start, end)).replace(/\r\n/g, '\n').length;
}

const RANK = { error: 3, warning: 2, info: 1 };

/** Line → worst severity of a report's diagnostics, for an editor's gutter. */
export function markersOf(report, lineOffset = 0) {
  const map = new Map();
  for (const d of report?.diagnostics ?? []) {
    if (!d.line) continue;
    const line = d.line + lineOffset;
    const prev = map.get(line);
    if (!prev || RANK[d.severity] > RANK[prev]) map.set(line, d.severity);
  }
  return map;
}

/** The diagnostics of a report as an editor draws them (with the selection length of each span). */
export function drawn(report, bytes) {
  return (report?.diagnostics ?? []).slice(0, 2000).map((d) => ({ ...d, length: spanLength(bytes, d.span) }));
}

const position = (d) => (d.line ? `${d.line}:${d.column ?? 1}` : '');

/**
 * @param {{ onSelect?: (d: object) => void, emptyTitle?: string, emptyText?: string, limit?: number }} options
 */
export function createDiagnostics({
  onSelect,
  emptyTitle = 'No problems found',
  emptyText = '',
  limit = 250,
  verdicts = {},
  exportAs = null,
  fixes = null,
} = {}) {
  const words = { bad: 'Errors found', warn: 'No errors, some warnings', good: 'No errors', clean: 'Clean', ...verdicts };
  const summary = h('div', { class: 'diag-summary' });
  const list = h('ol', { class: 'diag-list', 'aria-label': 'Diagnostics' });
  const more = h('div', { class: 'diag-more' });
  const el = h('div', { class: 'diags' }, summary, list, more);

  let report = null;
  let shown = limit;
  const enabled = { error: true, warning: true, info: true };
  let ruleFilter = null;
  let placeholder = null;

  list.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    const items = [...list.querySelectorAll('button')];
    const i = items.indexOf(document.activeElement);
    let next = i;
    if (e.key === 'ArrowDown') next = Math.min(items.length - 1, i + 1);
    if (e.key === 'ArrowUp') next = Math.max(0, i - 1);
    if (e.key === 'Home') next = 0;
    if (e.key === 'End') next = items.length - 1;
    items[next]?.focus();
    e.preventDefault();
  });

  const markCurrent = (btn) => {
    for (const b of list.querySelectorAll('.current')) b.classList.remove('current');
    btn.classList.add('current');
  };

  const visible = () => {
    const out = [];
    (report?.diagnostics ?? []).forEach((d, i) => {
      if (enabled[d.severity] !== false && (!ruleFilter || d.ruleId === ruleFilter)) out.push([d, i]);
    });
    return out;
  };

  function renderSummary() {
    const counts = {
      error: report.errorCount ?? 0,
      warning: report.warningCount ?? 0,
      info: report.infoCount ?? report.diagnostics.filter((d) => d.severity === 'info').length,
    };
    const total = report.diagnostics.length;
    let verdict;
    if (!report.ok) verdict = h('span', { class: 'verdict-chip bad' }, sevIcon('error'), words.bad);
    else if (counts.warning) verdict = h('span', { class: 'verdict-chip warn' }, sevIcon('ok'), words.warn);
    else verdict = h('span', { class: 'verdict-chip good' }, sevIcon('ok'), total ? words.good : words.clean);
    const toggles = SEVERITIES.map((sev) => {
      const btn = h('button', {
        type: 'button',
        class: `sev-toggle sev-${sev}`,
        'aria-pressed': String(enabled[sev]),
        title: `Show or hide ${LABELS[sev][1]}`,
        disabled: counts[sev] === 0,
      }, sevIcon(sev), h('span', { class: 'count', text: counts[sev].toLocaleString('en-US') }), ` ${LABELS[sev][counts[sev] === 1 ? 0 : 1]}`);
      btn.addEventListener('click', () => {
        enabled[sev] = !enabled[sev];
        shown = limit;
        render();
      });
      return btn;
    });
    const rule = ruleFilter
      ? h('button', { type: 'button', class: 'rule-chip', title: 'Clear the rule filter', onclick: () => { ruleFilter = null; render(); } },
        h('code', { text: ruleFilter }), ' ✕')
      : null;
    mount(summary, verdict, h('span', { class: 'spacer' }), rule, h('span', { class: 'sev-toggles' }, toggles), exportMenu());
  }

  /** Copy or download the report: JSON (as the core gives it), Markdown, SARIF. */
  function exportMenu() {
    if (!exportAs) return null;
    const meta = exportAs();
    const base = (meta.file || meta.base || 'report').replace(/\.[a-z]+$/i, '').replace(/[^\w.-]+/g, '_') || 'report';
    const status = h('span', { class: 'muted small export-status', role: 'status' });
    const act = {
      'copy-json': async () => { status.textContent = (await copyText(reportJson(report, { file: meta.file }))) ? 'copied' : 'copy failed'; },
      'copy-md': async () => { status.textContent = (await copyText(reportMarkdown(report, meta))) ? 'copied' : 'copy failed'; },
      json: () => download(`${base}.poscheck.json`, reportJson(report, { file: meta.file })),
      md: () => download(`${base}.poscheck.md`, reportMarkdown(report, meta), 'text/markdown'),
      sarif: () => download(`${base}.sarif`, reportSarif(report, meta), 'application/sarif+json'),
    };
    return h('span', { class: 'export' }, status, menuButton({
      id: `${meta.id}-export`,
      label: 'Export',
      items: [
        { value: 'copy-json', label: 'Copy as JSON' },
        { value: 'copy-md', label: 'Copy as Markdown' },
        { value: 'json', label: 'Download JSON' },
        { value: 'md', label: 'Download Markdown' },
        { value: 'sarif', label: 'Download SARIF 2.1.0' },
      ],
      onPick: (v) => act[v]?.(),
    }));
  }

  function row(d, index) {
    const pos = position(d);
    const btn = h('button', { type: 'button', class: `diag sev-${d.severity}`, dataset: { index: String(index), line: String(d.line ?? '') } },
      sevIcon(d.severity),
      h('span', { class: 'diag-main' },
        h('span', { class: 'diag-msg', text: d.message }),
        h('span', { class: 'diag-meta' },
          h('code', { class: 'diag-rule', text: d.ruleId }),
          d.path ? h('span', { class: 'diag-path', text: d.path }) : null),
        d.help ? h('span', { class: 'diag-help' }, richText(d.help)) : null),
      h('span', { class: 'diag-pos', text: pos, title: pos ? `line ${d.line}, column ${d.column}` : '' }));
    if (onSelect) btn.addEventListener('click', () => { markCurrent(btn); onSelect(d); });
    else btn.disabled = !pos;
    const related = (d.related ?? []).map((r) => {
      const rb = h('button', { type: 'button', class: 'related-item' },
        h('span', { class: 'related-arrow', text: '↳' }),
        h('span', { class: 'diag-main' },
          h('span', { class: 'diag-msg', text: r.message || 'related' }),
          r.path ? h('span', { class: 'diag-meta' }, h('span', { class: 'diag-path', text: r.path })) : null),
        h('span', { class: 'diag-pos', text: position(r) }));
      if (onSelect) rb.addEventListener('click', () => { markCurrent(rb); onSelect(r); });
      return h('li', {}, rb);
    });
    // A quick fix, where the core's own help makes the fix certain.
    const fix = fixes?.(d);
    const fixBtn = fix ? h('button', { type: 'button', class: 'btn btn-sm quick-fix', 'data-fix': d.ruleId, text: fix.label, onclick: () => fix.apply() }) : null;
    return h('li', { class: 'diag-item' }, btn, fixBtn, related.length ? h('ul', { class: 'related' }, related) : null);
  }

  function render() {
    if (!report) return;
    renderSummary();
    const items = visible();
    if (items.length === 0) {
      const none = report.diagnostics.length === 0;
      mount(list, h('li', { class: 'diag-empty' },
        sevIcon(none ? 'ok' : 'info'),
        h('div', {},
          h('strong', { text: none ? emptyTitle : 'Everything is filtered out' }),
          h('p', { text: none ? emptyText : 'Turn a severity back on to see its diagnostics.' }))));
      mount(more);
      return;
    }
    mount(list, items.slice(0, shown).map(([d, i]) => row(d, i)));
    if (items.length > shown) {
      mount(more, h('button', {
        type: 'button', class: 'btn btn-sm',
        text: `Show ${Math.min(limit * 4, items.length - shown).toLocaleString('en-US')} more of ${(items.length - shown).toLocaleString('en-US')}`,
        onclick: () => { shown += limit * 4; render(); },
      }));
    } else mount(more);
  }

  return {
    el,
    /** Shows a report (or null to show the placeholder). */
    setReport(next) {
      report = next;
      shown = limit;
      el.classList.toggle('has-report', Boolean(report));
      if (!report) {
        mount(summary);
        mount(list, placeholder ?? []);
        mount(more);
        return;
      }
      if (ruleFilter && !report.diagnostics.some((d) => d.ruleId === ruleFilter)) ruleFilter = null;
      render();
    },
    /** Shows only the diagnostics of one rule (null: all). */
    setRuleFilter(id) {
      ruleFilter = id;
      shown = limit;
      render();
    },
    /** What to show while there is no report. */
    setPlaceholder(node) {
      placeholder = node;
      if (!report) mount(list, node);
    },
    get report() { return report; },
  };
}
