// A monospace editor: a plain <textarea> (no soft wrap) beside a line-number gutter.
//
// The gutter is virtual: it only ever holds the numbers of the lines in view, so a 5 MB menu with
// 150,000 lines costs the same as a short one. Line numbers and diagnostic markers are positioned
// with one transform on scroll.
//
// The editor also keeps the exact bytes of what was loaded from a file or pasted with CRLF line
// endings: a textarea normalizes line breaks to LF (and a decoder would replace invalid UTF-8), but
// a signature or a byte span is about the bytes as received. As long as the text is not edited,
// `bytes()` returns those exact bytes.

import { h } from './dom.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

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

/**
 * @param {{ id?: string, label: string, placeholder?: string, onChange?: () => void,
 *           onFile?: (file: File) => void, minLines?: number }} options
 */
export function createEditor({ id, label, placeholder = '', onChange, onFile, minLines } = {}) {
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
  const badge = h('span', { class: 'editor-badge', hidden: true });
  const caret = h('span', { class: 'editor-caret' });
  const status = h('div', { class: 'editor-status' }, badge, h('span', { class: 'spacer' }), caret);
  const drop = h('div', { class: 'drop-hint' }, h('span', { text: 'Drop to load the file — its bytes are kept exact' }));
  const body = h('div', { class: 'editor-body' }, gutter, ta, drop);
  const el = h('div', { class: 'editor' }, body, status);
  if (minLines) el.classList.add('editor-min');

  let version = 0;
  let lines = 1;
  let exact = null; // { bytes, version }
  let cache = { version: -1, bytes: new Uint8Array() };
  let markers = new Map();
  let activeLine = 0;
  let metrics = null;

  const measure = () => {
    const cs = getComputedStyle(ta);
    const lineHeight = parseFloat(cs.lineHeight) || 19;
    const padTop = parseFloat(cs.paddingTop) || 0;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
    const charWidth = ctx.measureText('0'.repeat(100)).width / 100 || 7.5;
    const padLeft = parseFloat(cs.paddingLeft) || 0;
    metrics = { lineHeight, padTop, padLeft, charWidth };
    return metrics;
  };

  let frame = 0;
  const renderGutter = () => {
    frame = 0;
    if (!ta.isConnected || ta.clientHeight === 0) return;
    const { lineHeight, padTop } = metrics ?? measure();
    const top = ta.scrollTop;
    const first = Math.max(0, Math.floor((top - padTop) / lineHeight));
    const last = Math.min(lines, first + Math.ceil(ta.clientHeight / lineHeight) + 2);
    const rows = [];
    for (let n = first + 1; n <= last; n++) {
      const row = document.createElement('div');
      row.textContent = n;
      const sev = markers.get(n);
      if (sev) row.className = `mark-${sev}`;
      if (n === activeLine) row.classList.add('active');
      rows.push(row);
    }
    gutterInner.replaceChildren(...rows);
    gutterInner.style.transform = `translateY(${padTop + first * lineHeight - top}px)`;
  };
  const schedule = () => { if (!frame) frame = requestAnimationFrame(renderGutter); };

  const updateLines = () => {
    lines = countLines(ta.value);
    el.style.setProperty('--digits', String(Math.max(2, String(lines).length)));
    schedule();
  };

  const updateBadge = () => {
    const on = exact && exact.version === version;
    badge.hidden = !on;
    if (on) badge.textContent = exact.note;
  };

  const changed = () => {
    version++;
    updateLines();
    updateBadge();
    onChange?.();
  };

  const remember = (bytes) => {
    // Keep the given bytes when the textarea cannot represent them exactly.
    const text = ta.value;
    if (sameBytes(encoder.encode(text), bytes)) {
      exact = null;
      return;
    }
    const src = decoder.decode(bytes);
    const note = src.includes('\r') ? 'exact bytes kept · CRLF line endings' : 'exact bytes kept · not valid UTF-8';
    exact = { bytes, version: version + 1, note };
  };

  ta.addEventListener('input', changed);
  ta.addEventListener('scroll', schedule, { passive: true });
  new ResizeObserver(() => { metrics = null; schedule(); }).observe(ta);

  const updateCaret = () => {
    const pos = ta.selectionStart;
    const before = ta.value.lastIndexOf('\n', pos - 1);
    const line = pos > 2_000_000 ? null : countLines(ta.value.slice(0, pos));
    const col = pos - before;
    caret.textContent = line == null ? `Col ${col}` : `Ln ${line}, Col ${col}`;
    if (line != null && line !== activeLine) {
      activeLine = line;
      schedule();
    }
  };
  ta.addEventListener('keyup', updateCaret);
  ta.addEventListener('mouseup', updateCaret);
  ta.addEventListener('focus', updateCaret);

  // A paste that replaces everything and carries CR characters: keep its exact text.
  ta.addEventListener('paste', (e) => {
    const text = e.clipboardData?.getData('text/plain') ?? '';
    const replacesAll = ta.selectionStart === 0 && ta.selectionEnd === ta.value.length;
    if (text.includes('\r') && replacesAll) {
      e.preventDefault();
      api.setText(text);
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
    get value() { return ta.value; },
    get lineCount() { return lines; },
    get version() { return version; },
    /** Replaces the text; CR characters and the like are kept in `bytes()`. */
    setText(text) {
      ta.value = text;
      if (ta.value !== text) remember(encoder.encode(text));
      else exact = null;
      ta.scrollTop = 0;
      ta.scrollLeft = 0;
      activeLine = 0;
      changed();
    },
    /** Replaces the content with bytes (a file): shown decoded, kept exact. */
    setBytes(bytes) {
      ta.value = decoder.decode(bytes);
      remember(bytes);
      ta.scrollTop = 0;
      ta.scrollLeft = 0;
      activeLine = 0;
      changed();
    },
    async loadFile(file) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      api.setBytes(bytes);
      onFile?.(file, bytes);
    },
    /** The content as UTF-8 bytes (the exact bytes of a file or paste while unedited). */
    bytes() {
      if (cache.version === version) return cache.bytes;
      const bytes = exact && exact.version === version ? exact.bytes : encoder.encode(ta.value);
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
      const text = ta.value;
      let start = 0;
      for (let i = 1; i < line; i++) {
        const nl = text.indexOf('\n', start);
        if (nl === -1) { start = text.length; break; }
        start = nl + 1;
      }
      const lineEnd = text.indexOf('\n', start);
      const from = Math.min(start + Math.max(0, column - 1), lineEnd === -1 ? text.length : lineEnd);
      const to = Math.min(text.length, from + Math.max(0, length));
      ta.focus({ preventScroll: true });
      ta.setSelectionRange(from, to, 'backward');
      activeLine = line;
      const { lineHeight, charWidth, padLeft } = metrics ?? measure();
      const y = (line - 1) * lineHeight;
      if (y < ta.scrollTop || y > ta.scrollTop + ta.clientHeight - 3 * lineHeight) {
        ta.scrollTop = Math.max(0, y - ta.clientHeight / 3);
      }
      const x = padLeft + (column - 1) * charWidth;
      if (x < ta.scrollLeft + padLeft || x > ta.scrollLeft + ta.clientWidth - 6 * charWidth) {
        ta.scrollLeft = Math.max(0, x - ta.clientWidth / 3);
      }
      caret.textContent = `Ln ${line}, Col ${column}`;
      el.classList.remove('flash');
      void el.offsetWidth;
      el.classList.add('flash');
      schedule();
      return { from, to };
    },
    focus() { ta.focus(); },
    refresh() { metrics = null; schedule(); },
  };
  updateLines();
  return api;
}
