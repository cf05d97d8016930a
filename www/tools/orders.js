// Orders tool: the state diagram drawn by the core (orderDiagram), a checked order detail
// (checkOrder) with its path highlighted, and a step-by-step simulator of the service's answers
// (predictAction, applyEvent, nextActions). The page keeps the order the core returns and passes
// it back; it decides nothing itself.

import { $, h, mount, debounce, segmented, pretty, plural } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { createDiagnostics, sevIcon, spanLength } from '../lib/diagnostics.js';
import { markersOf } from './menu.js';

const ACTIONS = [
  ['accept', 'Accept', 'POST …/accept'],
  ['reject', 'Reject', 'POST …/reject'],
  ['preparing', 'preparing', 'PUT …/status'],
  ['ready', 'ready', 'PUT …/status'],
  ['handed_over', 'handed_over', 'PUT …/status'],
  ['cancelled', 'cancelled', 'PUT …/status'],
];
const EVENTS = ['driver_assigned', 'driver_released', 'delivered', 'cancelled'];

const isoNow = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** The order object inside a pasted GET response (`{ message, data }`) or the data itself. */
function orderOf(value) {
  if (value && typeof value === 'object' && value.data && typeof value.data === 'object' && !Array.isArray(value.data)) return value.data;
  return value;
}

/** Statuses along the history, for highlighting on the diagram (display only). */
function pathOf(order) {
  const out = [];
  const push = (s) => { if (typeof s === 'string' && out[out.length - 1] !== s) out.push(s); };
  if (Array.isArray(order?.history)) {
    for (const row of order.history) {
      if (row && typeof row === 'object') { push(row.fromStatus); push(row.toStatus); }
    }
  }
  push(order?.status);
  return out;
}

export function createOrdersTool(ctx) {
  const { api, examples } = ctx;
  const needed = ['checkOrder', 'orderDiagram', 'predictAction'];
  if (!ctx.has(...needed)) {
    $('or-unavailable').hidden = false;
    $('or-panes').hidden = true;
    $('or-example').hidden = true;
    return { run() {}, show() {} };
  }

  // ── Diagram ───────────────────────────────────────────────────────────────
  const diagramBox = $('or-diagram');
  let highlighted = [];
  function drawDiagram(highlight) {
    highlighted = highlight;
    let svgText;
    try {
      svgText = api.orderDiagram(highlight);
    } catch (error) {
      mount(diagramBox, h('p', { class: 'muted', text: `The core could not draw the diagram: ${error.message}` }));
      return;
    }
    const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
    const svg = doc.documentElement;
    if (svg.nodeName !== 'svg') {
      mount(diagramBox, h('p', { class: 'muted', text: 'The core returned no SVG.' }));
      return;
    }
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', `Order state machine${highlight.length ? `, highlighted: ${highlight.join(' → ')}` : ''}`);
    mount(diagramBox, document.importNode(svg, true));
    $('or-diagram-note').textContent = highlight.length
      ? `path: ${highlight.join(' → ')}`
      : 'drawn by the core from its transition table';
  }

  // ── Check ─────────────────────────────────────────────────────────────────
  let checked = null; // { bytes }
  const editor = createEditor({
    id: 'or-input',
    label: 'Order detail JSON',
    placeholder: 'Paste an order as read from GET /api/v1/Orders/{orderKey} (the whole response or its data).',
    onChange: () => checkSoon(),
  });
  mount($('or-editor'), editor.el);
  const diags = createDiagnostics({
    onSelect: (d) => editor.selectAt(d.line, d.column, spanLength(checked?.bytes, d.span)),
    emptyTitle: 'Consistent order',
    emptyText: 'The history, statuses and timestamps agree with the lifecycle.',
  });
  diags.setPlaceholder(h('li', { class: 'diag-empty big' }, h('div', {},
    h('strong', { text: 'No order yet' }),
    h('p', { text: 'Paste an order detail to check its history against the lifecycle and see its path on the diagram.' }))));
  mount($('or-check'), diags.el);
  const checkSoon = debounce(() => check(), 300);

  function parsedOrder() {
    try {
      return orderOf(JSON.parse(editor.value));
    } catch {
      return null;
    }
  }

  function check() {
    checkSoon.cancel();
    const bytes = editor.bytes();
    if (bytes.length === 0) {
      checked = null;
      diags.setReport(null);
      editor.setMarkers(new Map());
      $('or-stats').textContent = '';
      drawDiagram([]);
      return;
    }
    let report;
    try {
      report = api.checkOrder(bytes);
    } catch (error) {
      report = { ok: false, errorCount: 1, warningCount: 0, infoCount: 0, errors: {}, diagnostics: [{ ruleId: error.code ?? 'internal', severity: 'error', message: error.message, path: '', line: 0, column: 0 }] };
    }
    checked = { bytes };
    diags.setReport(report);
    editor.setMarkers(markersOf(report));
    const order = parsedOrder();
    $('or-stats').textContent = order?.status ? `status ${order.status}${Array.isArray(order.history) ? ` · ${plural(order.history.length, 'history row')}` : ''}` : '';
    if (!sim.steps.length) drawDiagram(pathOf(order));
  }

  // ── Simulate ──────────────────────────────────────────────────────────────
  const sim = { start: null, order: null, steps: [] };
  const nowInput = $('or-now');
  nowInput.type = 'text';
  nowInput.value = isoNow();
  nowInput.setAttribute('spellcheck', 'false');
  nowInput.setAttribute('placeholder', '2026-01-01T12:00:00Z');
  const nowSeconds = () => {
    const ms = Date.parse(nowInput.value);
    return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
  };
  nowInput.addEventListener('change', () => renderSim());

  const actionBox = $('or-actions');
  const actionButtons = new Map();
  mount(actionBox, h('span', { class: 'actions-label', text: 'POS calls' }), ACTIONS.map(([id, label, route]) => {
    const b = h('button', { type: 'button', class: 'btn action', dataset: { action: id }, title: route }, h('span', { text: label }), h('small', { text: route }));
    b.addEventListener('click', () => act(id));
    actionButtons.set(id, b);
    return b;
  }));
  if (ctx.has('applyEvent')) {
    mount($('or-events'), h('span', { class: 'actions-label', text: 'Webhook' }), EVENTS.map((ev) => h('button', {
      type: 'button', class: 'btn btn-sm', dataset: { event: ev }, text: ev, onclick: () => applyEvent(ev),
    })));
  } else $('or-events').hidden = true;

  function startFrom(order, label) {
    sim.start = order ? structuredClone(order) : null;
    sim.order = order ? structuredClone(order) : null;
    sim.steps = [];
    sim.label = label;
    renderSim();
  }

  function act(action) {
    if (!sim.order) return;
    let r;
    try {
      r = api.predictAction(sim.order, action, nowSeconds());
    } catch (error) {
      sim.steps.push({ kind: 'action', action, error });
      renderSim();
      return;
    }
    const before = sim.order.status;
    if (r.order && r.httpStatus >= 200 && r.httpStatus < 300) sim.order = r.order;
    sim.steps.push({ kind: 'action', action, before, r });
    renderSim();
  }

  function applyEvent(ev) {
    if (!sim.order) return;
    const event = {
      orderKey: sim.order.orderKey,
      remoteOrderId: sim.order.remoteOrderId ?? 'POS-1',
      event: ev,
      occurredAt: nowInput.value,
    };
    if (ev === 'cancelled' || ev === 'driver_released') event.reason = 'simulated in poscheck';
    if (ev === 'driver_assigned') event.driver = { fullName: 'Test Driver', phone: null };
    if (ev === 'driver_released') { event.releasedDriver = { fullName: 'Test Driver', phone: null }; event.expectedNext = 'driver_reassignment'; }
    let r;
    try {
      r = api.applyEvent(sim.order, event);
    } catch (error) {
      sim.steps.push({ kind: 'event', action: ev, error });
      renderSim();
      return;
    }
    const before = sim.order.status;
    if (r?.order) sim.order = r.order;
    sim.steps.push({ kind: 'event', action: ev, before, r });
    renderSim();
  }

  function stepView(step, i) {
    const { r, error } = step;
    const status = r?.httpStatus ?? r?.receiverStatus ?? r?.answer;
    const good = !error && (status == null || (status >= 200 && status < 300));
    const after = r?.order?.status ?? r?.status;
    const head = h('div', { class: 'step-head' },
      h('span', { class: 'step-n', text: String(i + 1) }),
      h('code', { class: 'step-action', text: step.kind === 'event' ? `webhook ${step.action}` : step.action }),
      status != null ? h('span', { class: `status-chip ${good ? 'good' : 'bad'}`, text: String(status) }) : null,
      error ? h('span', { class: 'status-chip bad', text: error.code ?? 'error' }) : null,
      h('span', { class: 'step-trans' }, step.before ?? '', after && after !== step.before ? ` → ${after}` : after ? ' (unchanged)' : ''));
    const body = [];
    if (error) body.push(h('p', { class: 'bad-text', text: error.message }));
    if (r?.alreadyReached) body.push(h('p', { class: 'note-ok', text: 'State already reached: continue with the next step.' }));
    if (r?.advice) body.push(h('p', { class: 'step-advice', text: r.advice }));
    if (r?.event) body.push(h('p', { class: 'muted small' }, 'Event published: ', h('code', { text: typeof r.event === 'string' ? r.event : pretty(r.event) })));
    if (r?.problem) body.push(h('details', { class: 'step-problem', open: true }, h('summary', { text: 'Problem response' }), h('pre', { class: 'code-block', text: pretty(r.problem) })));
    if (step.kind === 'event' && r) {
      const extra = { ...r };
      delete extra.order;
      delete extra.advice;
      if (Object.keys(extra).length) body.push(h('pre', { class: 'code-block small', text: pretty(extra) }));
    }
    return h('li', { class: `step ${good ? 'ok' : 'bad'}` }, head, body);
  }

  function renderSim() {
    const has = Boolean(sim.order);
    $('or-sim-status').textContent = has ? (sim.order.status ?? '?') : '—';
    for (const b of actionButtons.values()) { b.disabled = !has; b.classList.remove('allowed'); }
    for (const b of $('or-events').querySelectorAll('button')) b.disabled = !has;
    let next = '';
    if (has && ctx.has('nextActions')) {
      try {
        const n = api.nextActions(sim.order, nowSeconds());
        const list = Array.isArray(n) ? n : (n?.actions ?? []);
        for (const a of list) actionButtons.get(typeof a === 'string' ? a : a?.action)?.classList.add('allowed');
        const names = list.map((a) => (typeof a === 'string' ? a : a?.action)).filter(Boolean);
        next = names.length ? `The POS may now: ${names.join(', ')}.` : 'No action of the POS applies now.';
        if (n && !Array.isArray(n)) {
          if (n.secondsToAccept != null) next += ` ${n.secondsToAccept} s left to accept.`;
          if (n.advice) next += ` ${n.advice}`;
        }
      } catch (error) {
        next = error.message;
      }
    } else if (!has) next = 'Paste an order detail (or load the example) and press "Simulate from this order".';
    $('or-next').textContent = next;
    mount($('or-steps'), sim.steps.map(stepView).reverse());
    if (has) {
      const visited = pathOf(sim.start);
      for (const s of sim.steps) {
        const st = s.r?.order?.status;
        if (st && visited[visited.length - 1] !== st) visited.push(st);
      }
      drawDiagram(visited);
    }
  }

  $('or-reset').addEventListener('click', () => { nowInput.value = isoNow(); startFrom(sim.start, sim.label); });
  $('or-use').addEventListener('click', () => {
    const order = parsedOrder();
    if (!order) {
      selectView('sim');
      $('or-next').textContent = 'The editor does not hold a JSON order: fix it first (the Check tab says where).';
      return;
    }
    selectView('sim');
    startFrom(order, 'pasted order');
  });

  const selectView = segmented($('tool-orders').querySelector('.pane-result .seg'), 'view', (view) => {
    $('or-check').hidden = view !== 'check';
    $('or-sim').hidden = view !== 'sim';
  });

  if (typeof examples.order === 'string') {
    $('or-example').addEventListener('click', () => {
      editor.setText(examples.order);
      check();
      startFrom(parsedOrder(), 'example');
    });
  } else $('or-example').hidden = true;
  $('or-run').addEventListener('click', check);

  drawDiagram([]);
  renderSim();
  return { show() { editor.refresh(); }, run: check, editor };
}
