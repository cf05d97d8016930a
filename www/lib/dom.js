// Small DOM helpers. Content always goes in as text nodes: nothing the user pastes is parsed as HTML.

export const $ = (id) => document.getElementById(id);

/**
 * Creates an element. `attrs`: `class`, `text`, `on<event>` handlers, `dataset`, booleans
 * (set when true) and any other attribute. Children: nodes, strings, arrays, null (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.setAttribute('class', value);
    else if (key === 'text') el.textContent = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Calls `fn` once `ms` have passed without another call; `.now()` runs it at once. */
export function debounce(fn, ms) {
  let timer = 0;
  const wrapped = (...args) => {
    clearTimeout(timer);
    const wait = typeof ms === 'function' ? ms() : ms;
    timer = setTimeout(() => fn(...args), wait);
  };
  wrapped.now = (...args) => {
    clearTimeout(timer);
    fn(...args);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

export const plural = (n, one, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

/** Unix seconds → `2026-01-01 00:00:00 UTC`, or '' when not a plausible date. */
export function isoFromUnix(seconds) {
  const ms = Number(seconds) * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return '';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Copies text to the clipboard; resolves to true on success. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Fallback for contexts without the async clipboard API.
    const ta = h('textarea', { class: 'offscreen', readonly: true });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}

/** A "Copy" button that copies `getText()` and says so. */
export function copyButton(getText, label = 'Copy') {
  const btn = h('button', { type: 'button', class: 'btn btn-sm copy-btn', text: label });
  btn.addEventListener('click', async () => {
    const ok = await copyText(getText());
    btn.textContent = ok ? 'Copied' : 'Copy failed';
    btn.classList.toggle('copied', ok);
    setTimeout(() => { btn.textContent = label; btn.classList.remove('copied'); }, 1400);
  });
  return btn;
}

/** Pretty JSON for display (values computed by the core). */
export const pretty = (value) => JSON.stringify(value, null, 2);

/** Wires a role=tablist of buttons: calls `onSelect(value)` with the button's data attribute. */
export function segmented(container, attr, onSelect) {
  const buttons = [...container.querySelectorAll('[role=tab]')];
  const select = (value, focus = false) => {
    for (const b of buttons) {
      const on = b.dataset[attr] === value;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      if (on && focus) b.focus();
    }
    onSelect(value);
  };
  for (const b of buttons) {
    b.addEventListener('click', () => select(b.dataset[attr]));
    b.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const i = buttons.indexOf(b);
      const next = buttons[(i + (e.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length];
      select(next.dataset[attr], true);
      e.preventDefault();
    });
  }
  return select;
}

/** Text with `backticked` spans as <code> (for the core's rule docs and help texts). */
export function richText(text) {
  const parts = String(text ?? '').split('`');
  if (parts.length < 3) return [String(text ?? '')];
  return parts.map((part, i) => (i % 2 === 1 && i < parts.length - 1 ? h('code', { text: part }) : part));
}

/**
 * A button that opens a list of choices. Nothing is chosen until a choice is clicked or confirmed
 * with Enter: arrow keys only move (a <select> would load an example on ArrowDown).
 * `items`: [{ value, label }]. Returns the wrapper element.
 */
export function menuButton({ id, label, items, onPick }) {
  const btn = h('button', { type: 'button', class: 'btn btn-sm menu-btn', id, 'aria-haspopup': 'true', 'aria-expanded': 'false' }, label, h('span', { 'aria-hidden': 'true', text: ' ▾' }));
  const list = h('ul', { class: 'menu-list', hidden: true, id: `${id}-list` });
  const choices = items.map(({ value, label: text }) => {
    const choice = h('button', { type: 'button', class: 'menu-item', 'data-value': value, text });
    choice.addEventListener('click', () => { close(false); onPick(value); });
    list.append(h('li', {}, choice));
    return choice;
  });
  const wrap = h('div', { class: 'menu-wrap' }, btn, list);
  // Fixed to the viewport under the button: no pane that scrolls or clips can hide it.
  const place = () => {
    const r = btn.getBoundingClientRect();
    list.style.position = 'fixed';
    list.style.top = `${Math.round(r.bottom + 4)}px`;
    list.style.right = `${Math.max(8, Math.round(window.innerWidth - r.right))}px`;
  };
  const open = (focusFirst) => {
    place();
    list.hidden = false;
    btn.setAttribute('aria-expanded', 'true');
    if (focusFirst) choices[0]?.focus();
  };
  const close = (focusButton) => {
    list.hidden = true;
    btn.setAttribute('aria-expanded', 'false');
    if (focusButton) btn.focus();
  };
  btn.addEventListener('click', () => (list.hidden ? open(true) : close(false)));
  btn.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') { e.preventDefault(); open(true); }
  });
  list.addEventListener('keydown', (e) => {
    const i = choices.indexOf(document.activeElement);
    if (e.key === 'ArrowDown') choices[Math.min(choices.length - 1, i + 1)]?.focus();
    else if (e.key === 'ArrowUp') choices[Math.max(0, i - 1)]?.focus();
    else if (e.key === 'Home') choices[0]?.focus();
    else if (e.key === 'End') choices.at(-1)?.focus();
    else if (e.key === 'Escape' || e.key === 'Tab') { if (e.key === 'Escape') e.preventDefault(); close(e.key === 'Escape'); return; }
    else return;
    e.preventDefault();
  });
  document.addEventListener('click', (e) => { if (!wrap.contains(e.target)) close(false); });
  window.addEventListener('resize', () => close(false));
  document.addEventListener('scroll', () => { if (!list.hidden) place(); }, true);
  return wrap;
}
