// A monospace editor with a line-number gutter, in two modes:
//
// - text: a plain <textarea> (no soft wrap). The gutter is virtual: it only ever holds the numbers
//   of the lines in view, positioned with one transform on scroll.
// - view: for large documents (a 5 MB menu), a read-only virtual view. A browser lays out the whole
//   of a textarea's text on every change, which takes seconds for megabytes; the view renders only
//   the rows on screen, soft-wrapped at a fixed column count so a minified one-line JSON scrolls as
//   well as a pretty one. "Edit" switches to the textarea when the user really wants to type.
//
// The editor also keeps the exact bytes of what was loaded from a file or pasted with CRLF line
// endings: a textarea normalizes line breaks to LF (and a decoder replaces invalid UTF-8), but a
// signature or a byte span is about the bytes as received. Until the text is edited, `bytes()`
// returns those exact bytes.

import { h } from './dom.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Documents longer than this (UTF-16 units) open in the read-only view. */
export const LARGE = 1_000_000;

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function countLines(text) {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function lineStartsOf(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return Int32Array.from(starts);
}

/**
 * @param {{ id?: string, label: string, placeholder?: string, onChange?: () => void,
 *           onFile?: (file: File, bytes: Uint8Array) => void, large?: number }} options
 */
/** Drafts above this many UTF-16 units are not kept across reloads (localStorage holds ~5 MB). */
export const DRAFT_LIMIT = 1_500_000;

const storage = (() => {
  try { return window.localStorage; } catch { return null; }
})();

export function createEditor({ id, label, placeholder = '', onChange, onFile, large = LARGE, persist = null } = {}) {
  const gutterInner = h('div', { class: 'gutter-inner' });
  const gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' }, gutterInner);
  const ta = h('textarea', {
    id,
    class: 'code',
    wrap: 'off',
    spellcheck: 'false',
    autocomplete: 'off',
    autocapitalize: 'off',
    'aria-label': label,
    placeholder,
  });
  const rowsEl = h('div', { class: 'viewer-rows' });
  const sizer = h('div', { class: 'viewer-sizer' });
  const viewer = h('div', {
    class: 'viewer', tabindex: '0', role: 'textbox', hidden: true,
    'aria-readonly': 'true', 'aria-multiline': 'true', 'aria-label': `${label} (read-only view)`,
  }, sizer, rowsEl);
  const badge = h('span', { class: 'editor-badge', hidden: true });
  const viewNote = h('span', { class: 'editor-view-note', hidden: true },
    h('span', { text: 'large document · read-only view' }),
    h('button', { type: 'button', class: 'link-btn', text: 'Edit', title: 'Edit in a textarea (slow for megabytes)', onclick: () => api.edit() }),
    h('button', { type: 'button', class: 'link-btn', text: 'Clear', onclick: () => { api.setText(''); ta.focus(); } }));
  const caret = h('span', { class: 'editor-caret' });
  // After a replacement (an example, a file): the way back, also on Ctrl+Z.
  const undoNote = h('span', { class: 'editor-undo', hidden: true, role: 'status' },
    h('span', { class: 'editor-undo-text' }),
    h('button', { type: 'button', class: 'link-btn', text: 'Undo', onclick: () => api.undoReplace() }));
  const draftNote = h('span', { class: 'editor-draft muted', hidden: true });
  const status = h('div', { class: 'editor-status' }, badge, viewNote, undoNote, h('span', { class: 'spacer' }), draftNote, caret);
  const drop = h('div', { class: 'drop-hint' }, h('span', { text: 'Drop to load the file — its bytes are kept exact' }));
  const body = h('div', { class: 'editor-body' }, gutter, ta, viewer, drop);
  const el = h('div', { class: 'editor' }, body, status);

  let mode = 'text';
  let version = 0;
  let lines = 1;
  let exact = null; // { bytes, version, note }
  let cache = { version: -1, bytes: new Uint8Array() };
  let markers = new Map();
  let activeLine = 0;
  let metrics = null;
  // View mode.
  let doc = '';
  let starts = new Int32Array([0]);
  let rowStart = new Int32Array([0, 1]);
  let wrapCols = 0;
  let sel = null; // { from, to }

  const measure = () => {
    const cs = getComputedStyle(ta.hidden ? viewer : ta);
    const lineHeight = parseFloat(cs.lineHeight) || 19;
    const padTop = parseFloat(cs.paddingTop) || 0;
    const padLeft = parseFloat(cs.paddingLeft) || 0;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
    const charWidth = ctx.measureText('0'.repeat(100)).width / 100 || 7.5;
    metrics = { lineHeight, padTop, padLeft, charWidth };
    return metrics;
  };

  // ── View mode geometry ──────────────────────────────────────────────────
  const lineEnd = (i) => {
    let end = i + 1 < starts.length ? starts[i + 1] - 1 : doc.length;
    if (end > starts[i] && doc.charCodeAt(end - 1) === 13) end--;
    return end;
  };
  // The rows box is inset from the viewer (CSS left/right): wrap at the columns that fit in it,
  // with the width of a character as rendered there (a canvas may pick another font).
  const rowsCharWidth = () => {
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre';
    probe.textContent = '0'.repeat(200);
    rowsEl.append(probe);
    const w = probe.getBoundingClientRect().width / 200;
    probe.remove();
    return w || (metrics ?? measure()).charWidth;
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

  // ── Rendering (gutter, and rows in view mode) ───────────────────────────
  let frame = 0;
  const render = () => {
    frame = 0;
    const scroller = mode === 'view' ? viewer : ta;
    if (!scroller.isConnected || scroller.clientHeight === 0) return;
    const { lineHeight, padTop } = metrics ?? measure();
    const top = scroller.scrollTop;
    const first = Math.max(0, Math.floor((top - padTop) / lineHeight));
    const count = Math.ceil(scroller.clientHeight / lineHeight) + 2;
    const numbers = [];
    if (mode === 'text') {
      const last = Math.min(lines, first + count);
      for (let n = first + 1; n <= last; n++) numbers.push(gutterRow(n, true));
    } else {
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
    }
    gutterInner.replaceChildren(...numbers);
    gutterInner.style.transform = `translateY(${padTop + first * lineHeight - top}px)`;
  };
  const gutterRow = (n, label) => {
    const row = document.createElement('div');
    if (label) {
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
    if (sel && sel.to > from && sel.from < to || (sel && sel.from === sel.to && sel.from >= from && sel.from < to)) {
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

  // ── Modes and content ───────────────────────────────────────────────────
  const setMode = (next) => {
    mode = next;
    ta.hidden = next === 'view';
    viewer.hidden = next !== 'view';
    viewNote.hidden = next !== 'view';
    el.classList.toggle('viewing', next === 'view');
    metrics = null;
  };

  const updateLines = () => {
    lines = mode === 'view' ? starts.length : countLines(ta.value);
    el.style.setProperty('--digits', String(Math.max(2, String(lines).length)));
    schedule();
  };

  const updateBadge = () => {
    const on = exact && exact.version === version;
    badge.hidden = !on;
    if (on) badge.textContent = exact.note;
  };

  let replaced = null; // { text, bytes, version } before the last replacement
  let saveTimer = 0;
  const saveDraft = () => {
    if (!persist || !storage) return;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      const text = exact && exact.version === version ? decoder.decode(exact.bytes) : api.value;
      try {
        if (text === '') storage.removeItem(persist);
        else if (text.length > DRAFT_LIMIT) {
          storage.removeItem(persist);
          draftNote.hidden = false;
          draftNote.textContent = 'too large to keep across reloads';
          return;
        } else storage.setItem(persist, text);
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

  const load = (text, bytes) => {
    activeLine = 0;
    sel = null;
    if (text.length > large) {
      doc = text;
      starts = lineStartsOf(text);
      wrapCols = 0;
      ta.value = '';
      setMode('view');
      viewer.scrollTop = 0;
      // In the view the text is shown as is: only bytes that are not valid UTF-8 need keeping.
      exact = null;
      if (bytes && !sameBytes(encoder.encode(text), bytes)) exact = { bytes, version: version + 1, note: 'exact bytes kept · not valid UTF-8' };
    } else {
      doc = '';
      starts = new Int32Array([0]);
      setMode('text');
      ta.value = text;
      ta.setSelectionRange(0, 0);
      ta.scrollTop = 0;
      ta.scrollLeft = 0;
      remember(bytes ?? encoder.encode(text), text, ta.value);
    }
    caret.textContent = '';
    changed();
  };

  ta.addEventListener('input', changed);
  ta.addEventListener('scroll', schedule, { passive: true });
  viewer.addEventListener('scroll', schedule, { passive: true });
  new ResizeObserver(() => { metrics = null; schedule(); }).observe(body);

  const updateCaret = () => {
    if (mode !== 'text') return;
    const pos = ta.selectionStart;
    const before = ta.value.lastIndexOf('\n', pos - 1);
    const line = countLines(ta.value.slice(0, pos));
    caret.textContent = `Ln ${line}, Col ${pos - before}`;
    if (line !== activeLine) {
      activeLine = line;
      schedule();
    }
  };
  // Ctrl+Z right after a replacement brings the previous text back (a textarea's own undo history
  // does not survive a programmatic replacement).
  const undoKey = (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'z' && replaced && version === replaced.version + 1) {
      e.preventDefault();
      api.undoReplace();
    }
  };
  ta.addEventListener('keydown', undoKey);
  viewer.addEventListener('keydown', undoKey);
  ta.addEventListener('keyup', updateCaret);
  ta.addEventListener('mouseup', updateCaret);
  ta.addEventListener('focus', updateCaret);

  // A paste that replaces everything and carries CR characters keeps its exact text; a large paste
  // goes to the view instead of the textarea.
  ta.addEventListener('paste', (e) => {
    const text = e.clipboardData?.getData('text/plain') ?? '';
    const replacesAll = ta.selectionStart === 0 && ta.selectionEnd === ta.value.length;
    if (text.length > large || (text.includes('\r') && replacesAll)) {
      e.preventDefault();
      load(replacesAll ? text : ta.value.slice(0, ta.selectionStart) + text + ta.value.slice(ta.selectionEnd));
    }
  });

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

  const api = {
    el,
    textarea: ta,
    get mode() { return mode; },
    get value() { return mode === 'view' ? doc : ta.value; },
    get lineCount() { return lines; },
    get version() { return version; },
    /** The selection as string offsets. */
    get selection() {
      return mode === 'view' ? { ...(sel ?? { from: 0, to: 0 }) } : { from: ta.selectionStart, to: ta.selectionEnd };
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
    /** Leaves the read-only view for the textarea. */
    edit() {
      if (mode !== 'view') return;
      const text = doc;
      const keep = exact;
      setMode('text');
      ta.value = text;
      doc = '';
      starts = new Int32Array([0]);
      if (keep) exact = { ...keep, version: version + 1 };
      changed();
      ta.focus();
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
    /** Marks lines in the gutter: Map<line, 'error'|'warning'|'info'>. */
    setMarkers(map) {
      markers = map;
      schedule();
    },
    /**
     * Selects from (line, column) — 1-based, column in UTF-16 units, i.e. JS string indexing —
     * for `length` UTF-16 units, and scrolls it into view.
     */
    selectAt(line, column, length = 0) {
      const text = api.value;
      let start;
      if (mode === 'view') {
        start = starts[Math.min(Math.max(line, 1), starts.length) - 1];
      } else {
        start = 0;
        for (let i = 1; i < line; i++) {
          const nl = text.indexOf('\n', start);
          if (nl === -1) { start = text.length; break; }
          start = nl + 1;
        }
      }
      const eol = text.indexOf('\n', start);
      const from = Math.min(start + Math.max(0, column - 1), eol === -1 ? text.length : eol);
      const to = Math.min(text.length, from + Math.max(0, length));
      const { lineHeight, charWidth, padLeft } = metrics ?? measure();
      if (mode === 'view') {
        sel = { from, to };
        layoutRows();
        const row = rowStart[line - 1] + Math.floor((from - start) / wrapCols);
        const y = row * lineHeight;
        if (y < viewer.scrollTop || y > viewer.scrollTop + viewer.clientHeight - 3 * lineHeight) {
          viewer.scrollTop = Math.max(0, y - viewer.clientHeight / 3);
        }
        viewer.focus({ preventScroll: true });
      } else {
        ta.focus({ preventScroll: true });
        ta.setSelectionRange(from, to, 'backward');
        const y = (line - 1) * lineHeight;
        if (y < ta.scrollTop || y > ta.scrollTop + ta.clientHeight - 3 * lineHeight) {
          ta.scrollTop = Math.max(0, y - ta.clientHeight / 3);
        }
        const x = padLeft + (column - 1) * charWidth;
        if (x < ta.scrollLeft + padLeft || x > ta.scrollLeft + ta.clientWidth - 6 * charWidth) {
          ta.scrollLeft = Math.max(0, x - ta.clientWidth / 3);
        }
      }
      // On a narrow screen the editor may be far above the list that was tapped: bring it back.
      const box = el.getBoundingClientRect();
      if (box.bottom < 40 || box.top > window.innerHeight - 40) el.scrollIntoView({ block: 'start' });
      // After focus(): its handler recomputes the caret line from the old selection.
      activeLine = line;
      caret.textContent = `Ln ${line}, Col ${column}`;
      el.classList.remove('flash');
      void el.offsetWidth;
      el.classList.add('flash');
      schedule();
      return { from, to };
    },
    focus() { (mode === 'view' ? viewer : ta).focus(); },
    refresh() { metrics = null; schedule(); },
  };
  updateLines();
  // A draft kept from the last visit (never a secret: only editors given `persist` keep text).
  // After the tool that owns the editor has finished wiring itself (its onChange runs).
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
