// The page's editor, in two modes:
//
// - code: CodeMirror 6 (bundled into www/vendor/codemirror.js by scripts/build-editor.mjs): line
//   numbers, JSON highlighting, the core's diagnostics as underlines with their message on hover
//   and marks in the gutter, whole-document search (Ctrl+F), soft-wrap toggle, Format, undo.
//   CodeMirror only lays out the lines on screen, so a 5 MB pretty-printed menu types freely.
// - view: a read-only virtual view for a large document whose lines are very long (a minified
//   multi-megabyte JSON): rows soft-wrapped at the columns that fit, only the rows on screen in the
//   DOM. "Edit" opens it in CodeMirror anyway.
//
// The editor also keeps the exact bytes of what was loaded from a file or pasted with CRLF line
// endings: an editor normalizes line breaks to LF (and a decoder replaces invalid UTF-8), but a
// signature or a byte span is about the bytes as received. Until the text is edited, `bytes()`
// returns those exact bytes. Format changes the text (and so the bytes): it is one undoable edit.

import { h } from './dom.js';
import {
  EditorState, Compartment, EditorSelection, Transaction, EditorView, keymap, lineNumbers, highlightActiveLine,
  highlightActiveLineGutter, drawSelection, placeholder as cmPlaceholder, defaultKeymap, history, historyKeymap,
  search, searchKeymap, openSearchPanel, setDiagnostics, lintGutter, lintKeymap, nextDiagnostic, previousDiagnostic,
  json, syntaxHighlighting, bracketMatching, classHighlighter,
} from '../vendor/codemirror.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Documents longer than this (UTF-16 units) whose lines are very long open in the read-only view. */
export const LARGE = 1_000_000;
/** A line longer than this makes a large document open in the view (CodeMirror lays out whole lines). */
export const LONG_LINE = 20_000;
/** Drafts above this many UTF-16 units are not kept across reloads (localStorage holds ~5 MB). */
export const DRAFT_LIMIT = 1_500_000;
/** At most this many diagnostics are drawn in the editor (the list shows them all). */
const MAX_DRAWN = 2000;

/** Every editor by the id of its content element (for tests and the console). */
export const editors = new Map();

const storage = (() => {
  try { return window.localStorage; } catch { return null; }
})();

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function lineStartsOf(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return Int32Array.from(starts);
}

function hasLongLine(text) {
  let prev = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i - prev > LONG_LINE) return true;
    prev = i + 1;
  }
  return text.length - prev > LONG_LINE;
}

/**
 * JSON re-indented with two spaces, every token kept as written (numbers such as 23.40, string
 * escapes, key order): only the whitespace between tokens changes. Linear in the text.
 */
export function formatJson(text) {
  let out = '';
  let depth = 0;
  const pad = () => `\n${'  '.repeat(depth)}`;
  const parts = [];
  let i = 0;
  const n = text.length;
  const nextSignificant = (from) => {
    let j = from;
    while (j < n && (text[j] === ' ' || text[j] === '\n' || text[j] === '\r' || text[j] === '\t')) j++;
    return text[j];
  };
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      parts.push(text.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') { i++; continue; }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const after = text.indexOf(close, i + 1);
      if (nextSignificant(i + 1) === close && after !== -1) {
        parts.push(c + close);
        i = after + 1;
        continue;
      }
      depth++;
      parts.push(c + pad());
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      parts.push(pad() + c);
    } else if (c === ',') {
      parts.push(`,${pad()}`);
    } else if (c === ':') {
      parts.push(': ');
    } else {
      let j = i;
      while (j < n && !' \n\r\t,:{}[]"'.includes(text[j])) j++;
      parts.push(text.slice(i, j));
      i = j;
      continue;
    }
    i++;
    if (parts.length > 4096) { out += parts.join(''); parts.length = 0; }
  }
  return out + parts.join('');
}

/**
 * @param {{ id?: string, label: string, placeholder?: string, onChange?: () => void,
 *           onFile?: (file: File, bytes: Uint8Array) => void, large?: number, persist?: string,
 *           language?: 'json' | null, format?: boolean }} options
 */
export function createEditor({ id, label, placeholder = '', onChange, onFile, large = LARGE, persist = null, language = 'json', format = true } = {}) {
  // ── View mode (large documents with very long lines) ────────────────────
  const gutterInner = h('div', { class: 'gutter-inner' });
  const gutter = h('div', { class: 'gutter', 'aria-hidden': 'true', hidden: true }, gutterInner);
  const rowsEl = h('div', { class: 'viewer-rows' });
  const sizer = h('div', { class: 'viewer-sizer' });
  const viewer = h('div', {
    class: 'viewer', tabindex: '0', role: 'textbox', hidden: true,
    'aria-readonly': 'true', 'aria-multiline': 'true', 'aria-label': `${label} (read-only view)`,
  }, sizer, rowsEl);

  // ── Status bar ──────────────────────────────────────────────────────────
  const badge = h('span', { class: 'editor-badge', hidden: true });
  const findInput = h('input', { type: 'search', class: 'editor-find mono', placeholder: 'Find in the document', 'aria-label': 'Find in the document' });
  const viewNote = h('span', { class: 'editor-view-note', hidden: true },
    h('span', { text: 'long lines · read-only view' }),
    findInput,
    format && language === 'json'
      ? h('button', { type: 'button', class: 'link-btn', text: 'Format and edit', title: 'Re-indent the JSON (tokens kept) so it opens in the editor with short lines; Undo brings the original back', onclick: () => formatView() })
      : null,
    h('button', { type: 'button', class: 'link-btn', text: 'Edit', title: 'Open in the editor (long lines are slow to edit)', onclick: () => api.edit() }),
    h('button', { type: 'button', class: 'link-btn', text: 'Clear', onclick: () => { api.replace('', 'an empty document'); api.focus(); } }));
  const caret = h('span', { class: 'editor-caret' });
  const undoNote = h('span', { class: 'editor-undo', hidden: true, role: 'status' },
    h('span', { class: 'editor-undo-text' }),
    h('button', { type: 'button', class: 'link-btn', text: 'Undo', onclick: () => api.undoReplace() }));
  const draftNote = h('span', { class: 'editor-draft muted', hidden: true });
  const wrapBtn = h('button', { type: 'button', class: 'link-btn editor-tool', 'aria-pressed': 'false', text: 'Wrap', title: 'Soft-wrap long lines' });
  const findBtn = h('button', { type: 'button', class: 'link-btn editor-tool', text: 'Find', title: 'Search the whole document (Ctrl+F)' });
  const formatBtn = format && language === 'json'
    ? h('button', { type: 'button', class: 'link-btn editor-tool', text: 'Format', title: 'Re-indent the JSON (tokens kept as written; undo with Ctrl+Z)' })
    : null;
  const formatNote = h('span', { class: 'editor-note muted', role: 'status' });
  const status = h('div', { class: 'editor-status' }, badge, viewNote, undoNote, formatNote, h('span', { class: 'spacer' }),
    draftNote, findBtn, wrapBtn, formatBtn, caret);
  const drop = h('div', { class: 'drop-hint' }, h('span', { text: 'Drop to load the file — its bytes are kept exact' }));

  let mode = 'code';
  let version = 0;
  let exact = null; // { bytes, version, note }
  let cache = { version: -1, bytes: new Uint8Array() };
  let valueCache = { version: -1, text: '' };
  let markers = new Map();
  let activeLine = 0;
  let metrics = null;
  let silent = false;
  let replaced = null; // { text, bytes, version } before the last replacement
  // View mode.
  let doc = '';
  let starts = new Int32Array([0]);
  let rowStart = new Int32Array([0, 1]);
  let wrapCols = 0;
  let sel = null; // { from, to }

  // ── CodeMirror ──────────────────────────────────────────────────────────
  const wrapping = new Compartment();
  const dark = new Compartment();
  const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
  const undoReplaceKey = () => {
    if (replaced && version === replaced.version + 1) { api.undoReplace(); return true; }
    return false;
  };
  const view = new EditorView({
    parent: null,
    state: EditorState.create({
      doc: '',
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        bracketMatching(),
        lintGutter(),
        search({ top: true }),
        language === 'json' ? json() : [],
        syntaxHighlighting(classHighlighter),
        cmPlaceholder(placeholder),
        wrapping.of([]),
        dark.of(EditorView.darkTheme.of(Boolean(scheme?.matches))),
        EditorView.contentAttributes.of({ ...(id ? { id } : {}), tabindex: '0', 'aria-label': label, spellcheck: 'false', autocorrect: 'off', autocapitalize: 'off' }),
        keymap.of([
          { key: 'Mod-z', run: undoReplaceKey },
          // Ctrl+Enter runs the tool (the page's shortcut), not "insert a blank line".
          { key: 'Mod-Enter', run: () => true },
          { key: 'F8', run: nextDiagnostic },
          { key: 'Shift-F8', run: previousDiagnostic },
          ...searchKeymap, ...historyKeymap, ...lintKeymap, ...defaultKeymap,
        ]),
        EditorView.domEventHandlers({ paste: (e) => onPaste(e) }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !silent) {
            changed();
            // A paste into an empty editor: show its start (the request line), not its end.
            if (u.transactions.some((t) => t.isUserEvent('input.paste')) && u.startState.doc.length === 0) {
              requestAnimationFrame(() => view.dispatch({ selection: { anchor: 0 }, effects: EditorView.scrollIntoView(0, { x: 'start', y: 'start' }) }));
            }
          }
          if (u.selectionSet || u.docChanged) updateCaret();
        }),
      ],
    }),
  });
  scheme?.addEventListener?.('change', () => view.dispatch({ effects: dark.reconfigure(EditorView.darkTheme.of(scheme.matches)) }));

  const body = h('div', { class: 'editor-body' }, gutter, viewer, view.dom, drop);
  const el = h('div', { class: 'editor' }, body, status);

  const cmText = () => {
    if (valueCache.version !== version) valueCache = { version, text: view.state.doc.toString() };
    return valueCache.text;
  };

  wrapBtn.addEventListener('click', () => {
    const on = wrapBtn.getAttribute('aria-pressed') !== 'true';
    wrapBtn.setAttribute('aria-pressed', String(on));
    view.dispatch({ effects: wrapping.reconfigure(on ? EditorView.lineWrapping : []) });
  });
  findBtn.addEventListener('click', () => {
    if (mode === 'view') { findInput.focus(); return; }
    view.focus();
    openSearchPanel(view);
  });
  formatBtn?.addEventListener('click', () => {
    if (mode === 'view') api.edit();
    const text = cmText();
    try {
      JSON.parse(text);
    } catch {
      formatNote.textContent = 'Format needs valid JSON';
      return;
    }
    const pretty = formatJson(text);
    if (pretty === text) { formatNote.textContent = 'already formatted'; return; }
    formatNote.textContent = 'formatted · Ctrl+Z undoes';
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: pretty }, selection: { anchor: 0 }, scrollIntoView: true, userEvent: 'format' });
  });
  findInput.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !findInput.value) return;
    e.preventDefault();
    const from = sel ? sel.to : 0;
    let at = doc.indexOf(findInput.value, from);
    if (at === -1) at = doc.indexOf(findInput.value);
    if (at === -1) { findInput.setAttribute('aria-invalid', 'true'); return; }
    findInput.removeAttribute('aria-invalid');
    const line = lineOfOffset(at);
    api.selectAt(line + 1, at - starts[line] + 1, findInput.value.length, { keepFocus: true });
  });

  /** The view's minified JSON, re-indented into the editor (an Undo brings the original back). */
  function formatView() {
    try {
      JSON.parse(doc);
    } catch {
      formatNote.textContent = 'Format needs valid JSON';
      return;
    }
    api.replace(formatJson(doc), 'the formatted text');
  }

  const measure = () => {
    const cs = getComputedStyle(viewer);
    const lineHeight = parseFloat(cs.lineHeight) || 19;
    const padTop = parseFloat(cs.paddingTop) || 0;
    metrics = { lineHeight, padTop };
    return metrics;
  };

  // ── View mode geometry ──────────────────────────────────────────────────
  const lineEnd = (i) => {
    let end = i + 1 < starts.length ? starts[i + 1] - 1 : doc.length;
    if (end > starts[i] && doc.charCodeAt(end - 1) === 13) end--;
    return end;
  };
  // The rows box is inset from the viewer (CSS left/right): wrap at the columns that fit in it,
  // with the width of a character as rendered there.
  const rowsCharWidth = () => {
    const probe = document.createElement('span');
    probe.className = 'viewer-probe';
    probe.textContent = '0'.repeat(200);
    rowsEl.append(probe);
    const w = probe.getBoundingClientRect().width / 200;
    probe.remove();
    return w || 7.5;
  };
  const layoutRows = () => {
    if (!metrics) measure();
    if (!metrics.rowChar) metrics.rowChar = rowsCharWidth();
    const width = rowsEl.getBoundingClientRect().width || viewer.clientWidth - 24;
    const cols = Math.max(20, Math.floor(width / metrics.rowChar));
    if (cols === wrapCols && rowStart.length === starts.length + 1) return;
    wrapCols = cols;
    rowStart = new Int32Array(starts.length + 1);
    for (let i = 0; i < starts.length; i++) {
      rowStart[i + 1] = rowStart[i] + Math.max(1, Math.ceil((lineEnd(i) - starts[i]) / cols));
    }
    sizer.style.height = `${rowStart[starts.length] * metrics.lineHeight + 2 * metrics.padTop}px`;
  };
  const lineOfRow = (row) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (rowStart[mid] <= row) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const lineOfOffset = (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  let frame = 0;
  const render = () => {
    frame = 0;
    if (mode !== 'view' || !viewer.isConnected || viewer.clientHeight === 0) return;
    const { lineHeight, padTop } = metrics ?? measure();
    const top = viewer.scrollTop;
    const first = Math.max(0, Math.floor((top - padTop) / lineHeight));
    const count = Math.ceil(viewer.clientHeight / lineHeight) + 2;
    const numbers = [];
    layoutRows();
    const total = rowStart[starts.length];
    const last = Math.min(total, first + count);
    const rows = [];
    let line = lineOfRow(first);
    for (let r = first; r < last; r++) {
      while (line + 1 < starts.length && rowStart[line + 1] <= r) line++;
      const seg = r - rowStart[line];
      const from = starts[line] + seg * wrapCols;
      const to = Math.min(from + wrapCols, lineEnd(line));
      numbers.push(gutterRow(line + 1, seg === 0));
      rows.push(viewRow(from, to, line + 1));
    }
    rowsEl.replaceChildren(...rows);
    rowsEl.style.transform = `translateY(${padTop + first * lineHeight}px)`;
    gutterInner.replaceChildren(...numbers);
    gutterInner.style.transform = `translateY(${padTop + first * lineHeight - top}px)`;
  };
  const gutterRow = (n, labelled) => {
    const row = document.createElement('div');
    if (labelled) {
      row.textContent = n;
      const sev = markers.get(n);
      if (sev) row.className = `mark-${sev}`;
    }
    if (n === activeLine) row.classList.add('active');
    return row;
  };
  const viewRow = (from, to, line) => {
    const row = document.createElement('div');
    if (line === activeLine) row.className = 'active';
    if (sel && ((sel.to > from && sel.from < to) || (sel.from === sel.to && sel.from >= from && sel.from < to))) {
      const a = Math.max(from, sel.from);
      const b = Math.max(a, Math.min(to, sel.to));
      const mark = document.createElement('mark');
      mark.textContent = doc.slice(a, b) || ' ';
      row.append(doc.slice(from, a), mark, doc.slice(b, to));
    } else {
      row.textContent = doc.slice(from, to);
    }
    return row;
  };
  const schedule = () => { if (!frame) frame = requestAnimationFrame(render); };
  viewer.addEventListener('scroll', schedule, { passive: true });
  new ResizeObserver(() => { metrics = null; schedule(); }).observe(body);

  // ── Modes and content ───────────────────────────────────────────────────
  const setMode = (next) => {
    mode = next;
    view.dom.hidden = next === 'view';
    viewer.hidden = next !== 'view';
    gutter.hidden = next !== 'view';
    viewNote.hidden = next !== 'view';
    wrapBtn.hidden = next === 'view';
    el.classList.toggle('viewing', next === 'view');
    metrics = null;
  };

  const updateLines = () => {
    const lines = mode === 'view' ? starts.length : view.state.doc.lines;
    el.style.setProperty('--digits', String(Math.max(2, String(lines).length)));
    if (mode === 'view') schedule();
  };

  const updateBadge = () => {
    const on = exact && exact.version === version;
    badge.hidden = !on;
    if (on) badge.textContent = exact.note;
  };

  let saveTimer = 0;
  const saveDraft = () => {
    if (!persist || !storage) return;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      const length = mode === 'view' ? doc.length : view.state.doc.length;
      try {
        if (length > DRAFT_LIMIT) {
          storage.removeItem(persist);
          draftNote.hidden = false;
          draftNote.textContent = 'too large to keep across reloads';
          return;
        }
        const text = exact && exact.version === version ? decoder.decode(exact.bytes) : api.value;
        if (text === '') storage.removeItem(persist);
        else storage.setItem(persist, text);
        draftNote.hidden = text === '';
        draftNote.textContent = 'kept in this browser';
        draftNote.title = 'The text is kept in this browser (localStorage) so a reload does not lose it. Secrets are never kept.';
      } catch {
        draftNote.hidden = false;
        draftNote.textContent = 'not kept across reloads (storage full)';
      }
    }, 400);
  };

  const changed = () => {
    version++;
    updateLines();
    updateBadge();
    if (replaced && version > replaced.version + 1) { replaced = null; undoNote.hidden = true; }
    if (formatNote.textContent && !formatNote.textContent.startsWith('formatted')) formatNote.textContent = '';
    saveDraft();
    onChange?.();
  };

  /** Remembers `bytes` as the truth when the visible text cannot reproduce them. */
  const remember = (bytes, source, shown) => {
    if (sameBytes(encoder.encode(shown), bytes)) {
      exact = null;
      return;
    }
    const note = source.includes('\r') ? 'exact bytes kept · CRLF line endings' : 'exact bytes kept · not valid UTF-8';
    exact = { bytes, version: version + 1, note };
  };

  const setCode = (text, { history: inHistory = false } = {}) => {
    silent = true;
    view.dispatch({
      changes: { from: 0, to: view.state.doc.length, insert: text },
      selection: { anchor: 0 },
      effects: [setDiagnostics(view.state, []).effects, EditorView.scrollIntoView(0, { x: 'start', y: 'start' })].flat(),
      annotations: Transaction.addToHistory.of(inHistory),
    });
    silent = false;
  };

  const load = (text, bytes) => {
    activeLine = 0;
    sel = null;
    markers = new Map();
    formatNote.textContent = '';
    if (text.length > large && hasLongLine(text)) {
      doc = text;
      starts = lineStartsOf(text);
      wrapCols = 0;
      setMode('view');
      if (view.state.doc.length) setCode('');
      viewer.scrollTop = 0;
      // In the view the text is shown as is: only bytes that are not valid UTF-8 need keeping.
      exact = null;
      if (bytes && !sameBytes(encoder.encode(text), bytes)) exact = { bytes, version: version + 1, note: 'exact bytes kept · not valid UTF-8' };
    } else {
      doc = '';
      starts = new Int32Array([0]);
      setMode('code');
      setCode(text);
      remember(bytes ?? encoder.encode(text), text, view.state.doc.toString());
    }
    caret.textContent = '';
    changed();
  };

  function onPaste(e) {
    const text = e.clipboardData?.getData('text/plain') ?? '';
    const { from, to } = view.state.selection.main;
    const replacesAll = from === 0 && to === view.state.doc.length;
    // A paste that replaces everything and carries CR characters keeps its exact text; a large
    // paste of long lines goes to the view.
    if ((text.length > large && hasLongLine(text)) || (text.includes('\r') && replacesAll)) {
      e.preventDefault();
      const current = view.state.doc.toString();
      load(replacesAll ? text : current.slice(0, from) + text + current.slice(to), null);
      return true;
    }
    return false;
  }

  function updateCaret() {
    if (mode !== 'code') return;
    const pos = view.state.selection.main.head;
    const line = view.state.doc.lineAt(pos);
    caret.textContent = `Ln ${line.number}, Col ${pos - line.from + 1}`;
  }

  // Drop a file: read its bytes.
  let depth = 0;
  el.addEventListener('dragenter', (e) => { if (e.dataTransfer?.types?.includes('Files')) { depth++; el.classList.add('dragging'); e.preventDefault(); } });
  el.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; el.classList.remove('dragging'); } });
  el.addEventListener('dragover', (e) => { if (e.dataTransfer?.types?.includes('Files')) e.preventDefault(); });
  el.addEventListener('drop', async (e) => {
    const file = e.dataTransfer?.files?.[0];
    depth = 0;
    el.classList.remove('dragging');
    if (!file) return;
    e.preventDefault();
    await api.loadFile(file);
  });
  viewer.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z') { if (undoReplaceKey()) e.preventDefault(); }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') { e.preventDefault(); findInput.focus(); }
  });

  /** A position in the document from a 1-based line and a 1-based UTF-16 column. */
  const positionOf = (line, column) => {
    const d = view.state.doc;
    const l = d.line(Math.min(Math.max(1, line), d.lines));
    return l.from + Math.min(Math.max(0, column - 1), l.length);
  };

  const api = {
    el,
    view,
    get mode() { return mode; },
    get value() { return mode === 'view' ? doc : cmText(); },
    get lineCount() { return mode === 'view' ? starts.length : view.state.doc.lines; },
    /** The length of the text in UTF-16 units, without building the string. */
    get length() { return mode === 'view' ? doc.length : view.state.doc.length; },
    get version() { return version; },
    /** The selection as string offsets. */
    get selection() {
      if (mode === 'view') return { ...(sel ?? { from: 0, to: 0 }) };
      const m = view.state.selection.main;
      return { from: m.from, to: m.to };
    },
    /** The 1-based line of the cursor (the active line). */
    get cursorLine() {
      if (mode === 'view') return activeLine;
      return view.state.doc.lineAt(view.state.selection.main.head).number;
    },
    /** Replaces the text; CR characters are kept in `bytes()`. */
    setText(text) { load(text, null); },
    /** Replaces the content with bytes (a file): shown decoded, kept exact. */
    setBytes(bytes) { load(decoder.decode(bytes), bytes); },
    async loadFile(file) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      api.replace(null, file.name, bytes);
      onFile?.(file, bytes);
    },
    /**
     * Replaces the content (an example, a file) so that it can be taken back: an "Undo" in the
     * status bar and Ctrl+Z restore the previous text, exact bytes included.
     */
    replace(text, what = 'the example', bytes = null) {
      const before = api.value;
      const prev = before === '' ? null : { text: before, bytes: api.isExact ? api.bytes() : null };
      if (bytes) load(decoder.decode(bytes), bytes);
      else load(text, null);
      if (prev && prev.text !== api.value) {
        replaced = { ...prev, version: version - 1 };
        undoNote.hidden = false;
        undoNote.firstChild.textContent = `Replaced by ${what} · `;
      } else {
        replaced = null;
        undoNote.hidden = true;
      }
    },
    undoReplace() {
      if (!replaced) return;
      const prev = replaced;
      replaced = null;
      undoNote.hidden = true;
      if (prev.bytes) load(decoder.decode(prev.bytes), prev.bytes);
      else load(prev.text, null);
      api.focus();
    },
    get canUndoReplace() { return Boolean(replaced); },
    /** Leaves the read-only view for the editor. */
    edit() {
      if (mode !== 'view') return;
      const text = doc;
      const keep = exact;
      doc = '';
      starts = new Int32Array([0]);
      setMode('code');
      setCode(text);
      if (keep) exact = { ...keep, version: version + 1 };
      changed();
      view.focus();
    },
    /** The content as UTF-8 bytes (the exact bytes of a file or paste while unedited). */
    bytes() {
      if (cache.version === version) return cache.bytes;
      const bytes = exact && exact.version === version ? exact.bytes : encoder.encode(api.value);
      cache = { version, bytes };
      return bytes;
    },
    /** Whether bytes() differ from the UTF-8 of the visible text (CRLF or invalid UTF-8 kept). */
    get isExact() { return Boolean(exact && exact.version === version); },
    /**
     * Shows diagnostics: `map` (line → worst severity) marks the view's gutter; `list`
     * ([{ line, column, length, severity, message, ruleId }]) is drawn in the editor: an
     * underline at the exact place, its message on hover, a mark in the gutter.
     */
    setMarkers(map, list = []) {
      markers = map ?? new Map();
      if (mode === 'view') { schedule(); return; }
      const d = view.state.doc;
      const drawn = [];
      for (const item of list) {
        if (drawn.length >= MAX_DRAWN) break;
        if (!item?.line || item.line > d.lines) continue;
        const from = positionOf(item.line, item.column ?? 1);
        const lineEndPos = d.lineAt(from).to;
        let to = Math.min(d.length, from + Math.max(0, item.length ?? item.editorLength ?? 0));
        if (to === from && from < lineEndPos) to = from + 1;
        const severity = item.severity === 'error' || item.severity === 'warning' ? item.severity : 'info';
        drawn.push({ from, to, severity, source: item.ruleId, message: item.message ?? '' });
      }
      view.dispatch(setDiagnostics(view.state, drawn));
    },
    /**
     * Selects from (line, column) — 1-based, column in UTF-16 units, i.e. JS string indexing —
     * for `length` UTF-16 units, and scrolls it into view.
     */
    selectAt(line, column, length = 0, { keepFocus = false } = {}) {
      let from;
      let to;
      if (mode === 'view') {
        const start = starts[Math.min(Math.max(line, 1), starts.length) - 1];
        const eol = lineEnd(Math.min(Math.max(line, 1), starts.length) - 1);
        from = Math.min(start + Math.max(0, column - 1), eol);
        to = Math.min(doc.length, from + Math.max(0, length));
        sel = { from, to };
        const { lineHeight } = metrics ?? measure();
        layoutRows();
        const row = rowStart[line - 1] + Math.floor((from - start) / wrapCols);
        const y = row * lineHeight;
        if (y < viewer.scrollTop || y > viewer.scrollTop + viewer.clientHeight - 3 * lineHeight) {
          viewer.scrollTop = Math.max(0, y - viewer.clientHeight / 3);
        }
        if (!keepFocus) viewer.focus({ preventScroll: true });
        activeLine = line;
        caret.textContent = `Ln ${line}, Col ${column}`;
        schedule();
      } else {
        from = positionOf(line, column);
        to = Math.min(view.state.doc.length, from + Math.max(0, length));
        view.dispatch({
          selection: EditorSelection.single(to, from),
          effects: EditorView.scrollIntoView(from, { y: 'center', x: 'nearest' }),
        });
        if (!keepFocus) view.focus();
      }
      // On a narrow screen the editor may be far above the list that was tapped: bring it back.
      const box = el.getBoundingClientRect();
      if (box.bottom < 40 || box.top > window.innerHeight - 40) el.scrollIntoView({ block: 'start' });
      el.classList.remove('flash');
      void el.offsetWidth;
      el.classList.add('flash');
      return { from, to };
    },
    /** Replaces `length` UTF-16 units at (line, column) with `text`: one undoable edit. */
    replaceAt(line, column, length, text) {
      if (mode === 'view') api.edit();
      const from = positionOf(line, column);
      const to = Math.min(view.state.doc.length, from + Math.max(0, length));
      view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length }, scrollIntoView: true, userEvent: 'input.quickfix' });
      return view.state.sliceDoc(from, from + text.length);
    },
    /** The text at (line, column) for `length` UTF-16 units. */
    textAt(line, column, length) {
      if (mode === 'view') {
        const start = starts[Math.min(Math.max(line, 1), starts.length) - 1] + column - 1;
        return doc.slice(start, start + length);
      }
      const from = positionOf(line, column);
      return view.state.sliceDoc(from, from + length);
    },
    focus() { if (mode === 'view') viewer.focus(); else view.focus(); },
    refresh() { metrics = null; if (mode === 'view') schedule(); else view.requestMeasure(); },
  };
  updateLines();
  if (id) editors.set(id, api);
  // A draft kept from the last visit (never a secret: only editors given `persist` keep text),
  // after the tool that owns the editor has finished wiring itself (its onChange runs).
  if (persist && storage) queueMicrotask(() => {
    let draft = null;
    try { draft = storage.getItem(persist); } catch { draft = null; }
    if (draft && api.value === '') {
      load(draft, null);
      draftNote.hidden = false;
      draftNote.textContent = 'restored from this browser';
      draftNote.title = 'Restored from this browser (localStorage). Secrets are never kept.';
    }
  });
  return api;
}
