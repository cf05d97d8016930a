// The sandbox console: follows the sandbox's journal by a long poll (GET /_sandbox/journal?after=SEQ
// &wait=MS: answered as soon as an entry or a change comes), lists the orders and shows each one's
// timeline, the deliveries and REST calls with filters, the menu; every action is the same HTTP
// control as the API's. Everything the POS or a request sent is shown as text (textContent), never
// as markup. Same-origin relative URLs only; no timer reads the state.
import { stateFile, timelineTest, restOrderKey } from './console-export.js';

const WAIT_MS = 25_000;
/** The most journal entries kept here (the sandbox keeps 20,000). */
const MAX_ENTRIES = 20_000;

const $ = (id) => document.getElementById(id);

/** An element: `attrs` set as attributes (`on…` as listeners), children appended (strings as text). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

const S = {
  after: 0,
  entries: [],
  /** orderKey → journal entries of that order. */
  byKey: new Map(),
  orders: new Map(),
  info: null,
  clock: { now: Date.now() / 1000, nextDue: null, readAt: Date.now() },
  selected: null,
  selectedDelivery: null,
  selectedRest: null,
  view: 'orders',
  /** The timeline's inputs, kept across its redraws. */
  form: { driver: 'Ana Pérez', reason: '', by: '' },
  /** What the drawn timeline shows (drawn again only when it changes). */
  drawn: '',
};

// ---- the controls (the same HTTP API as curl's) ------------------------------------------------
async function control(method, path, body) {
  const res = await fetch(`_sandbox/${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const text = await res.text();
  const value = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(value?.error?.message ?? `HTTP ${res.status}`);
  return value;
}

function say(text, error = false) {
  const m = $('message');
  m.textContent = text;
  m.classList.toggle('error', error);
}

/** Runs an action: its button disabled meanwhile, its outcome said. */
async function act(button, what, fn) {
  if (button) button.disabled = true;
  say(`${what}…`);
  try {
    await fn();
    say(`${what}: done.`);
  } catch (e) {
    say(`${what}: ${e.message}`, true);
  } finally {
    if (button) button.disabled = false;
    await refreshClock().catch(() => {});
    schedule();
  }
}

// ---- time --------------------------------------------------------------------------------------
/** The sandbox clock now, unix seconds (a manual clock stays until advanced). */
function now() {
  const manual = S.info?.clock === 'manual';
  return manual ? S.clock.now : S.clock.now + (Date.now() - S.clock.readAt) / 1000;
}
const iso = (s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const hhmmss = (s) => iso(s).slice(11, 19);
function span(seconds) {
  const s = Math.round(Math.abs(seconds));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}
async function refreshClock() {
  S.clock = { ...(await control('GET', 'clock')), readAt: Date.now() };
  $('clock').textContent = `Sandbox clock ${iso(S.clock.now)} (${S.info?.clock ?? ''})${S.clock.nextDue == null ? '' : `, next timer ${hhmmss(S.clock.nextDue)}`}`;
  $('advance-next').disabled = S.info?.clock !== 'manual' || S.clock.nextDue == null;
}

// ---- the journal, followed live ------------------------------------------------------------------
function keyOf(e) {
  return e.type === 'delivery' ? e.orderKey : restOrderKey(e.path);
}

function addEntries(list) {
  const touched = new Set();
  for (const e of list) {
    S.entries.push(e);
    const k = keyOf(e);
    if (k) {
      touched.add(k);
      if (!S.byKey.has(k)) S.byKey.set(k, []);
      S.byKey.get(k).push(e);
    }
  }
  if (S.entries.length > MAX_ENTRIES) {
    for (const e of S.entries.splice(0, S.entries.length - MAX_ENTRIES)) {
      const k = keyOf(e);
      const of = k && S.byKey.get(k);
      if (of?.[0] === e) of.shift();
    }
  }
  return touched;
}

function clearEntries() {
  S.entries = [];
  S.byKey = new Map();
}

async function refreshOrders() {
  const list = await control('GET', 'orders');
  const before = S.orders.size;
  S.orders = new Map(list.map((o) => [o.orderKey, o]));
  return list.length < before;
}

async function refreshOrder(key) {
  try {
    S.orders.set(key, await control('GET', `orders/${encodeURIComponent(key)}`));
  } catch {
    S.orders.delete(key);
  }
}

/** Reads the journal from `after` on, page by page, until none is left. */
async function readJournal() {
  const touched = new Set();
  for (;;) {
    const page = await control('GET', `journal?after=${S.after}`);
    for (const k of addEntries(page.entries)) touched.add(k);
    S.after = page.entries.length ? page.next : Math.max(page.next, page.latest);
    if (!page.more) return touched;
  }
}

function live(on) {
  const l = $('live');
  l.textContent = on ? 'live' : 'offline: reconnecting';
  l.className = `live ${on ? 'on' : 'off'}`;
}

async function follow() {
  for (;;) {
    try {
      const page = await control('GET', `journal?after=${S.after}&wait=${WAIT_MS}`);
      live(true);
      if (page.entries.length) {
        const touched = addEntries(page.entries);
        S.after = page.next;
        if (page.more) for (const k of await readJournal()) touched.add(k);
        await Promise.all([...touched].map(refreshOrder));
      } else {
        // A change without an entry (a control, a reset, the clock) or the wait's end.
        S.after = Math.max(S.after, page.latest);
        if (await refreshOrders()) {
          // Orders went away: the sandbox was reset; its journal is read again.
          clearEntries();
          S.after = 0;
          await readJournal();
        }
      }
      await refreshClock();
      schedule();
    } catch {
      live(false);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

// ---- rendering ----------------------------------------------------------------------------------
let queued = false;
function schedule() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    render();
  });
}

/**
 * A windowed list: only the rows in view (and a few more) are in the DOM, so 10,000 rows cost what
 * 30 do. Rows are buttons of one height; arrow keys move the choice.
 */
class VList {
  constructor(el, rowHeight, renderRow, onChoose) {
    Object.assign(this, { el, rowHeight, renderRow, onChoose, items: [], current: null });
    this.spacer = h('div', { class: 'spacer', role: 'list' });
    el.append(this.spacer);
    el.addEventListener('scroll', () => this.draw());
    el.addEventListener('keydown', (ev) => this.key(ev));
  }
  set(items, current) {
    this.items = items;
    this.current = current;
    this.draw();
  }
  key(ev) {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    const i = this.items.findIndex((x) => x.id === this.current);
    const j = Math.min(this.items.length - 1, Math.max(0, i + (ev.key === 'ArrowDown' ? 1 : -1)));
    if (this.items[j]) {
      this.onChoose(this.items[j].id);
      const top = j * this.rowHeight;
      if (top < this.el.scrollTop || top + this.rowHeight > this.el.scrollTop + this.el.clientHeight) this.el.scrollTop = top - this.el.clientHeight / 2;
      requestAnimationFrame(() => this.spacer.querySelector('[aria-current="true"]')?.focus());
    }
  }
  draw() {
    const { el, rowHeight, items } = this;
    this.spacer.style.height = `${items.length * rowHeight}px`;
    const first = Math.max(0, Math.floor(el.scrollTop / rowHeight) - 5);
    const last = Math.min(items.length, Math.ceil((el.scrollTop + (el.clientHeight || 600)) / rowHeight) + 5);
    const rows = [];
    for (let i = first; i < last; i++) {
      const item = items[i];
      const row = h(
        'button',
        { type: 'button', class: 'row', role: 'listitem', 'aria-current': item.id === this.current ? 'true' : 'false', 'aria-setsize': items.length, 'aria-posinset': i + 1, onclick: () => this.onChoose(item.id) },
        this.renderRow(item.value),
      );
      row.style.top = `${i * rowHeight}px`;
      row.style.height = `${rowHeight}px`;
      rows.push(row);
    }
    const focused = this.spacer.contains(document.activeElement) ? document.activeElement.getAttribute('aria-posinset') : null;
    this.spacer.replaceChildren(...rows);
    if (focused) this.spacer.querySelector(`[aria-posinset="${focused}"]`)?.focus();
  }
}

const statusClass = (code) => (code == null ? 'status-bad' : code >= 200 && code < 300 ? 'status-ok' : code >= 400 ? 'status-bad' : 'status-warn');
const shortId = (id) => (id ?? '').slice(0, 8);
const storeOf = (key) => S.orders.get(key)?.order?.storeRemoteId ?? null;
function deliveryStore(d) {
  return (d.orderKey && storeOf(d.orderKey)) || /\/v1\/order\/([^/?#]+)/.exec(d.url ?? '')?.[1] || null;
}
/** "retry in 10 s" / "next attempt at …" of a failed attempt whose retry is still ahead. */
function retryText(d) {
  if (d.retryAt == null) return d.ok ? '' : 'no retry scheduled';
  if (!retryPending(d)) return `retried at ${hhmmss(d.retryAt)}`;
  const left = d.retryAt - now();
  return left > 0 ? `retry in ${span(left)} (next attempt at ${hhmmss(d.retryAt)})` : `next attempt at ${hhmmss(d.retryAt)} (due)`;
}
/** The retry still ahead: no later attempt of the same delivery. */
function retryPending(d) {
  if (d.retryAt == null) return false;
  const later = S.entries.some((e) => e.type === 'delivery' && e.deliveryId === d.deliveryId && e.seq > d.seq);
  return !later;
}

const ordersList = new VList($('orders-list'), 58, orderRow, (key) => {
  S.selected = key;
  schedule();
});
const deliveriesList = new VList($('deliveries-list'), 52, deliveryRow, (seq) => {
  S.selectedDelivery = seq;
  schedule();
});
const restList = new VList($('rest-list'), 52, restRow, (seq) => {
  S.selectedRest = seq;
  schedule();
});

function orderRow(o) {
  const age = now() - Date.parse(o.receivedAt) / 1000;
  const expires = o.order?.expiresAt ? Date.parse(o.order.expiresAt) / 1000 - now() : null;
  const left = o.status === S.words.Status.Pending && expires !== null ? (expires > 0 ? `, ${span(expires)} left to accept` : ', acceptance window over') : '';
  return [h('span', { class: 'l1 mono', text: o.orderKey }), h('span', { class: 'l2', text: `${o.order?.storeRemoteId ?? o.storeId} · ${o.status} · ${span(age)} ago${left}` })];
}
function deliveryRow(d) {
  const result = d.status == null ? `no answer (${d.error ?? 'failed'})` : `HTTP ${d.status}`;
  return [
    h('span', { class: 'l1' }, h('span', { class: 'mono', text: `${shortId(d.deliveryId)} #${d.attempt}` }), ` ${d.kind} `, h('span', { class: statusClass(d.status), text: result })),
    h('span', { class: 'l2', text: `${hhmmss(d.at)} · ${d.orderKey ?? d.changeId ?? ''} ${d.ok ? '' : retryText(d)}` }),
  ];
}
function restRow(e) {
  return [
    h('span', { class: 'l1' }, h('span', { class: statusClass(e.status), text: String(e.status) }), ` ${e.method} `, h('span', { class: 'mono', text: e.path })),
    h('span', { class: 'l2', text: `${hhmmss(e.at)}${e.replayed ? ' · Idempotent-Replayed' : ''}` }),
  ];
}

/** A body or answer: its size, and its text in a <pre> filled when opened (a 1 MB body costs nothing closed). */
function bodyBlock(label, text, truncated) {
  if (text == null) return null;
  const pre = h('pre', { tabindex: '0' });
  const d = h('details', { ontoggle: () => d.open && !pre.textContent && (pre.textContent = pretty(text)) }, h('summary', { text: `${label} (${text.length} characters${truncated ? ', cut' : ''})` }), pre);
  return d;
}
function pretty(text) {
  if (text.length > 200_000) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
function headerText(headers) {
  return Object.entries(headers ?? {})
    .map(([k, v]) => `${k}: ${/signature/i.test(k) && v.length > 24 ? `${v.slice(0, 20)}…` : v}`)
    .join('\n');
}

function deliveryDetail(d, inTimeline) {
  const result = d.status == null ? `no answer: ${d.error ?? 'failed'}` : `POS answered HTTP ${d.status}`;
  const copies = h('input', { type: 'number', min: '1', max: '100', value: '1', 'aria-label': `Copies of ${shortId(d.deliveryId)}`, 'data-key': `copies-${d.seq}` });
  const button = h('button', { type: 'button', class: 'secondary', 'data-key': `redeliver-${d.seq}` }, 'Redeliver', h('span', { class: 'visually-hidden', text: ` ${shortId(d.deliveryId)}` }));
  button.addEventListener('click', () =>
    act(button, `Redeliver ${shortId(d.deliveryId)}`, () => control('POST', `deliveries/${encodeURIComponent(d.deliveryId)}/redeliver`, { copies: Number(copies.value) || 1 })),
  );
  return h(
    'div',
    { class: 'line' },
    inTimeline ? h('span', { class: 'when', text: hhmmss(d.at) }) : null,
    h('span', { class: 'tag', text: d.redelivery ? 'redelivery' : 'webhook' }),
    h('strong', { text: `${d.kind} attempt #${d.attempt}` }),
    ' delivery ',
    h('span', { class: 'mono', text: shortId(d.deliveryId) }),
    ' · ',
    h('span', { class: statusClass(d.status), text: result }),
    ` · ${d.ms} ms`,
    d.failure ? ` · ${d.failure}` : '',
    d.ok ? '' : h('span', { class: 'status-warn', text: ` · ${retryText(d)}` }),
    h('div', { class: 'muted mono', text: `${d.method} ${d.url}` }),
    d.effects?.length ? h('div', { class: 'muted', text: `effects: ${d.effects.join('; ')}` }) : null,
    bodyBlock('Headers sent', headerText(d.headers)),
    bodyBlock('Body sent', d.body, d.truncated),
    bodyBlock("POS's answer", d.answer ?? null, d.truncated),
    h('div', { class: 'redeliver' }, h('label', {}, 'Copies ', copies), button),
  );
}

function restDetail(e, inTimeline) {
  return h(
    'div',
    { class: 'line' },
    inTimeline ? h('span', { class: 'when', text: hhmmss(e.at) }) : null,
    h('span', { class: 'tag', text: 'REST' }),
    h('strong', { class: 'mono', text: `${e.method} ${e.path}` }),
    ' → ',
    h('span', { class: statusClass(e.status), text: String(e.status) }),
    e.delayMs ? ` · ${e.delayMs} ms` : '',
    e.replayed ? ' · Idempotent-Replayed: true' : '',
    e.retryAfter ? ` · Retry-After ${e.retryAfter}` : '',
    bodyBlock('Headers', headerText(e.headers)),
    bodyBlock('Request body', e.body, e.truncated),
    bodyBlock('Answer', e.answer, e.truncated),
  );
}

function historyDetail(hrow) {
  const driver = hrow.driver ? ` · ${hrow.driver.event} ${hrow.driver.fullName ?? ''} (${hrow.driver.code ?? ''})` : '';
  const by = hrow.actorType === S.words.ActorType.System ? 'by the system' : `by ${hrow.actorType}${hrow.actorId ? ` ${hrow.actorId}` : ''}`;
  return h(
    'div',
    { class: 'line' },
    h('span', { class: 'when', text: hhmmss(Date.parse(hrow.changedAt) / 1000) }),
    h('span', { class: 'tag', text: 'state' }),
    h('strong', { text: hrow.fromStatus === null ? `${hrow.toStatus} (created)` : hrow.fromStatus === hrow.toStatus ? hrow.toStatus : `${hrow.fromStatus} → ${hrow.toStatus}` }),
    ` ${by}${hrow.reason ? ` (${hrow.reason})` : ''}${driver}`,
  );
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function orderActions(o) {
  const key = encodeURIComponent(o.orderKey);
  const driver = h('input', { value: S.form.driver, 'aria-label': 'Driver name', 'data-key': 'driver', oninput: () => (S.form.driver = driver.value) });
  const reason = h('input', { value: S.form.reason, 'aria-label': 'Reason', placeholder: 'reason', 'data-key': 'reason', oninput: () => (S.form.reason = reason.value) });
  const by = h('select', { 'aria-label': 'Cancelled by', 'data-key': 'by', onchange: () => (S.form.by = by.value) }, h('option', { text: S.words.ActorType.Customer }), h('option', { text: S.words.ActorType.Operator }));
  by.value = S.form.by;
  const run = (label, path, body) => {
    const b = h('button', { type: 'button', class: 'secondary', 'data-key': path }, label);
    b.addEventListener('click', () => act(b, `${label} ${o.orderKey}`, () => control('POST', `orders/${key}/${path}`, body())));
    return b;
  };
  const exportButton = h('button', { type: 'button', class: 'secondary', 'data-key': 'export' }, 'Export as test');
  exportButton.addEventListener('click', () => {
    download(`order-${o.orderKey}.test.mjs`, timelineTest(o, S.byKey.get(o.orderKey) ?? [], S.info, S.words), 'text/javascript');
    say(`The timeline of ${o.orderKey} is exported as a node:test file.`);
  });
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Actions on this order' },
    h('label', {}, 'Driver', driver),
    run('Assign driver', 'assign-driver', () => ({ fullName: driver.value || undefined })),
    run('Release driver', 'release-driver', () => ({ reason: reason.value || undefined })),
    run('Ready (driver)', 'ready', () => undefined),
    run('Deliver', 'deliver', () => undefined),
    h('label', {}, 'Reason', reason),
    h('label', {}, 'By', by),
    run('Cancel', 'cancel', () => ({ by: by.value, reason: reason.value || undefined })),
    run('Refund', 'refund', () => ({ reason: reason.value || undefined })),
    exportButton,
  );
}

/** One order's timeline: history rows, REST calls and delivery attempts, in time order. */
function renderTimeline() {
  const pane = $('timeline');
  const o = S.orders.get(S.selected);
  const mine = o ? S.byKey.get(o.orderKey) ?? [] : [];
  const sig = o ? `${o.orderKey}|${o.status}|${o.history.length}|${o.remoteOrderId}|${mine.length}|${mine.at(-1)?.seq}|${S.info?.clock === 'manual' ? S.clock.now : ''}` : '';
  if (sig === S.drawn) return;
  S.drawn = sig;
  if (!o) {
    if (!pane.querySelector('.order-head')) return;
    pane.replaceChildren(h('p', { class: 'muted', text: 'Choose an order to see its timeline.' }));
    return;
  }
  const items = [];
  o.history.forEach((row, i) => items.push({ at: Date.parse(row.changedAt) / 1000, rank: 0, i, el: () => historyDetail(row), cls: 'state' }));
  for (const e of mine) {
    items.push({ at: e.at, rank: 1, i: e.seq, el: () => (e.type === 'delivery' ? deliveryDetail(e, true) : restDetail(e, true)), cls: e.type === 'delivery' ? `delivery ${e.ok ? 'ok' : 'failed'}` : 'rest' });
  }
  items.sort((a, b) => Math.floor(a.at) - Math.floor(b.at) || a.rank - b.rank || a.at - b.at || a.i - b.i);
  const expires = o.order?.expiresAt ? Date.parse(o.order.expiresAt) / 1000 - now() : null;
  const open = new Set([...pane.querySelectorAll('details[open]')].map((d) => d.dataset.k));
  const list = h('ol', { class: 'timeline', 'aria-label': `Timeline of ${o.orderKey}` }, ...items.map((it, n) => h('li', { class: it.cls, 'data-n': n }, it.el())));
  list.querySelectorAll('details').forEach((d, i) => {
    d.dataset.k = `${o.orderKey}:${i}`;
    if (open.has(d.dataset.k)) {
      d.open = true;
    }
  });
  const focusKey = pane.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  pane.replaceChildren(
    h('div', { class: 'order-head' }, h('h2', { class: 'mono', text: o.orderKey }), h('strong', { class: S.words.merchantDone.includes(o.status) && o.status !== S.words.Status.HandedOver ? 'status-bad' : 'status-ok', text: o.status })),
    h(
      'dl',
      { class: 'facts' },
      h('dt', { text: 'Store' }),
      h('dd', { text: `${o.order?.storeRemoteId ?? ''} (storeId ${o.storeId})` }),
      h('dt', { text: 'Received' }),
      h('dd', { text: `${o.receivedAt} (${span(now() - Date.parse(o.receivedAt) / 1000)} ago)` }),
      h('dt', { text: 'POS order id' }),
      h('dd', { class: 'mono', text: o.remoteOrderId ?? '—' }),
      o.status === S.words.Status.Pending && expires !== null ? [h('dt', { text: 'To accept' }), h('dd', { text: expires > 0 ? `${span(expires)} left (until ${o.order.expiresAt})` : 'the window is over' })] : null,
    ),
    orderActions(o),
    h('h3', { text: 'Timeline' }),
    list,
  );
  if (focusKey) pane.querySelector(`[data-key="${focusKey}"]`)?.focus();
}

function deliveryFilter() {
  const f = new FormData($('delivery-filters'));
  const state = f.get('state');
  const status = String(f.get('status') ?? '').trim();
  const route = String(f.get('route') ?? '').trim().toLowerCase();
  const store = f.get('store');
  return (d) =>
    d.type === 'delivery' &&
    (state !== 'failed' || !d.ok) &&
    (state !== 'ok' || d.ok) &&
    (state !== 'retry' || retryPending(d)) &&
    (!status || String(d.status ?? 'none') === status) &&
    (!route || `${d.method} ${d.url} ${d.kind}`.toLowerCase().includes(route)) &&
    (!store || deliveryStore(d) === store);
}
function restFilter() {
  const f = new FormData($('rest-filters'));
  const status = String(f.get('status') ?? '').trim();
  const route = String(f.get('route') ?? '').trim().toLowerCase();
  const store = f.get('store');
  const failed = f.get('failed');
  return (e) =>
    e.type === 'rest' &&
    (!status || String(e.status) === status) &&
    (!route || e.path.toLowerCase().includes(route)) &&
    (!failed || e.status >= 400) &&
    (!store || storeOf(restOrderKey(e.path)) === store);
}

function newestFirst(pred) {
  const out = [];
  for (let i = S.entries.length - 1; i >= 0; i--) if (pred(S.entries[i])) out.push({ id: S.entries[i].seq, value: S.entries[i] });
  return out;
}

function render() {
  if (S.view === 'orders') {
    const orders = [...S.orders.values()].reverse();
    $('orders-count').textContent = `(${orders.length})`;
    ordersList.set(
      orders.map((o) => ({ id: o.orderKey, value: o })),
      S.selected,
    );
    renderTimeline();
  } else if (S.view === 'deliveries') {
    const items = newestFirst(deliveryFilter());
    $('deliveries-count').textContent = `(${items.length})`;
    deliveriesList.set(items, S.selectedDelivery);
    const d = S.entries.find((e) => e.seq === S.selectedDelivery);
    $('delivery-detail').replaceChildren(d ? deliveryDetail(d, true) : h('p', { class: 'muted', text: 'Choose an attempt.' }));
  } else if (S.view === 'rest') {
    const items = newestFirst(restFilter());
    $('rest-count').textContent = `(${items.length})`;
    restList.set(items, S.selectedRest);
    const e = S.entries.find((x) => x.seq === S.selectedRest);
    $('rest-detail').replaceChildren(e ? restDetail(e, true) : h('p', { class: 'muted', text: 'Choose a call.' }));
  }
}

// ---- the menu -------------------------------------------------------------------------------------
async function renderMenu() {
  const state = await control('GET', 'menu');
  const out = [h('h3', { text: 'Brand catalogs' }), h('pre', { tabindex: '0', text: JSON.stringify(state.catalogs ?? {}, null, 2).slice(0, 200_000) })];
  for (const store of S.info?.stores ?? []) {
    const pre = h('pre', { tabindex: '0', hidden: true });
    const read = h('button', { type: 'button', class: 'secondary' }, `Read ${store.remoteId}'s menu`);
    read.addEventListener('click', () =>
      act(read, `Read ${store.remoteId}'s menu`, async () => {
        pre.textContent = JSON.stringify(await control('GET', `menu/stores/${encodeURIComponent(store.remoteId)}`), null, 2);
        pre.hidden = false;
      }),
    );
    const failing = (state.failing ?? []).some?.((f) => f === store.remoteId || f?.store === store.remoteId);
    const fail = h('button', { type: 'button', class: 'secondary' }, failing ? `Let ${store.remoteId}'s menu changes succeed` : `Fail ${store.remoteId}'s menu changes`);
    fail.addEventListener('click', () => act(fail, fail.textContent, async () => (await control('POST', 'menu/fail', { store: store.remoteId, fail: !failing }), renderMenu())));
    out.push(h('div', { class: 'menu-store' }, h('h3', { text: `Store ${store.remoteId}` }), h('p', {}, read, ' ', fail), pre));
  }
  out.push(h('h3', { text: 'Menu changes' }));
  const changes = Array.isArray(state.changes) ? state.changes : Object.values(state.changes ?? {});
  if (!changes.length) out.push(h('p', { class: 'muted', text: 'No menu change yet.' }));
  for (const c of changes.slice(-200).reverse()) {
    const id = c.changeId ?? c.id;
    const attempts = S.entries.filter((e) => e.type === 'delivery' && e.changeId === id);
    out.push(h('div', { class: 'panel' }, h('strong', { class: 'mono', text: String(id ?? '') }), h('pre', { tabindex: '0', text: JSON.stringify(c, null, 2).slice(0, 100_000) }), ...attempts.map((a) => deliveryDetail(a, true))));
  }
  $('menu').replaceChildren(...out);
}

// ---- wiring -----------------------------------------------------------------------------------------
function showView(name) {
  S.view = name;
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    const on = tab.id === `tab-${name}`;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(tab.getAttribute('aria-controls')).hidden = !on;
  }
  if (name === 'menu') renderMenu().catch((e) => say(`Menu: ${e.message}`, true));
  schedule();
}

function wire() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const tab of tabs) {
    tab.addEventListener('click', () => showView(tab.id.slice(4)));
    tab.addEventListener('keydown', (ev) => {
      const i = tabs.indexOf(tab);
      const j = ev.key === 'ArrowRight' ? (i + 1) % tabs.length : ev.key === 'ArrowLeft' ? (i + tabs.length - 1) % tabs.length : -1;
      if (j < 0) return;
      ev.preventDefault();
      tabs[j].focus();
      showView(tabs[j].id.slice(4));
    });
  }
  const form = $('new-order-form');
  const toggle = (open) => {
    form.hidden = !open;
    $('new-order').setAttribute('aria-expanded', String(open));
    if (open) form.querySelector('select').focus();
  };
  $('new-order').addEventListener('click', () => toggle(form.hidden));
  $('new-order-cancel').addEventListener('click', () => toggle(false));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const item = { remoteCode: f.get('remoteCode'), name: f.get('name') || undefined, quantity: Number(f.get('quantity')) || 1, unitPrice: f.get('unitPrice') === '' ? undefined : Number(f.get('unitPrice')) };
    const body = { store: f.get('store'), type: f.get('type'), payment: f.get('payment'), items: [item], customerNote: f.get('customerNote') || undefined, express: f.get('express') === 'on' };
    act(ev.submitter, 'Create order', async () => {
      const o = await control('POST', 'orders', body);
      S.orders.set(o.orderKey, o);
      S.selected = o.orderKey;
      toggle(false);
      showView('orders');
    });
  });
  $('advance-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const seconds = Number($('advance-seconds').value);
    act(ev.submitter, `Advance ${seconds} s`, () => control('POST', 'advance', { seconds }));
  });
  $('advance-next').addEventListener('click', (ev) => {
    const seconds = Math.max(0, Math.ceil((S.clock.nextDue - S.clock.now) * 1000) / 1000);
    act(ev.currentTarget, `Advance ${seconds} s to the next timer`, () => control('POST', 'advance', { seconds }));
  });
  for (const id of ['delivery-filters', 'rest-filters']) {
    $(id).addEventListener('input', schedule);
    $(id).addEventListener('submit', (ev) => ev.preventDefault());
  }
  $('menu-reload').addEventListener('click', (ev) => act(ev.currentTarget, 'Read the menu state', renderMenu));
  $('faults-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.currentTarget);
    const faults = {};
    for (const [k, v] of f) if (v !== '') faults[k] = k === 'pathPrefix' ? v : Number(v);
    act(ev.submitter, 'Set faults', () => control('PUT', 'faults', faults));
  });
  $('reset').addEventListener('click', () => {
    $('reset-confirm').hidden = false;
    $('reset-yes').focus();
  });
  $('reset-no').addEventListener('click', () => {
    $('reset-confirm').hidden = true;
    $('reset').focus();
  });
  $('reset-yes').addEventListener('click', (ev) => {
    $('reset-confirm').hidden = true;
    act(ev.currentTarget, 'Reset', async () => {
      await control('POST', 'reset');
      clearEntries();
      S.orders.clear();
      S.selected = null;
      $('reset').focus();
    });
  });
  $('export-state').addEventListener('click', (ev) =>
    act(ev.currentTarget, 'Export state and journal', async () => {
      const state = await control('GET', 'state');
      const entries = [];
      for (let after = 0; ; ) {
        const page = await control('GET', `journal?after=${after}`);
        entries.push(...page.entries);
        after = page.next;
        if (!page.more) break;
      }
      download('sandbox-state.json', stateFile(state, entries), 'application/json');
    }),
  );
  // Ages and the time left to accept move with the clock: the visible rows are drawn again each
  // second (from what is already here: no request).
  setInterval(() => S.info?.clock === 'real' && schedule(), 1000);
}

async function start() {
  wire();
  try {
    S.info = await control('GET', '');
    S.words = await control('GET', 'words');
    S.form.by = S.words.ActorType.Customer;
    $('no-type').replaceChildren(...Object.values(S.words.FulfillmentType).map((t) => h('option', { text: t })));
    const stores = S.info.stores.map((s) => s.remoteId);
    $('no-store').replaceChildren(...stores.map((s) => h('option', { text: s })));
    for (const sel of document.querySelectorAll('.store-filter')) sel.replaceChildren(h('option', { value: '', text: 'all' }), ...stores.map((s) => h('option', { text: s })));
    if (S.info.clock !== 'manual') {
      for (const el of $('advance-form').elements) el.disabled = true;
      $('advance-form').title = 'The clock is real: start the sandbox with --clock manual to advance it';
    }
    await refreshOrders();
    await readJournal();
    await refreshClock();
    live(true);
  } catch (e) {
    say(`The sandbox does not answer: ${e.message}`, true);
  }
  schedule();
  follow();
}

start();
