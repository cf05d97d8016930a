// Orders tool: the state diagram drawn by the core (orderDiagram), a checked order detail
// (checkOrder) with its path (orderHistoryPath) highlighted, a step-by-step simulator of the
// service's answers (predictAction, nextActions, applyEvent, applyTrigger) and the transition table
// itself (orderMachine). The page keeps the order the core returns and passes it back; every
// status, code and piece of advice comes from the core.

import { $, h, mount, debounce, segmented, pretty, plural } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { createDiagnostics, sevIcon, spanLength, markersOf, drawn } from '../lib/diagnostics.js';

const ACTIONS = [
  ['accept', 'accept', 'POST …/accept'],
  ['reject', 'reject', 'POST …/reject'],
  ['preparing', 'preparing', 'PUT …/status'],
  ['ready', 'ready', 'PUT …/status'],
  ['handed_over', 'handed_over', 'PUT …/status'],
  ['cancelled', 'cancelled', 'PUT …/status'],
];
const BASIS = { stated: 'stated by the spec', derived: 'derived from the spec', assumed: 'assumed: the spec shows nothing' };

const iso = (seconds) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
const nowIso = () => iso(Math.floor(Date.now() / 1000));

/** The order inside a pasted GET response (`{ message, data }`), or the value itself. */
function orderOf(value) {
  if (value && typeof value === 'object' && value.data && typeof value.data === 'object' && !Array.isArray(value.data)) return value.data;
  return value;
}

export function createOrdersTool(ctx) {
  const { api, examples } = ctx;
  if (!ctx.has('checkOrder', 'orderDiagram', 'predictAction')) {
    $('or-unavailable').hidden = false;
    $('or-panes').hidden = true;
    $('tool-orders').querySelector('.tool-head .seg').hidden = true;
    return { run() {}, show() {} };
  }
  const historyPath = (order) => {
    if (!order || !ctx.has('orderHistoryPath')) return order?.status ? [order.status] : [];
    try { return api.orderHistoryPath(order); } catch { return []; }
  };

  // ── Diagram ───────────────────────────────────────────────────────────────
  const diagramBox = $('or-diagram');
  function drawDiagram(highlight, note) {
    let svgText;
    try {
      svgText = api.orderDiagram(highlight);
    } catch (error) {
      mount(diagramBox, h('p', { class: 'muted', text: `The core could not draw the diagram: ${error.message}` }));
      return;
    }
    const svg = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
    if (svg.nodeName !== 'svg') {
      mount(diagramBox, h('p', { class: 'muted', text: 'The core returned no SVG.' }));
      return;
    }
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    mount(diagramBox, document.importNode(svg, true));
    $('or-diagram-note').textContent = highlight.length ? `${note}: ${highlight.join(' → ')}` : '';
  }

  // ── Check ─────────────────────────────────────────────────────────────────
  let checked = null; // { bytes }
  const editor = createEditor({
    id: 'or-input',
    label: 'Order detail JSON',
    placeholder: 'Paste an order as read from GET /api/v1/Orders/{orderKey}:\nthe whole response or its data.',
    onChange: () => checkSoon(),
    persist: 'poscheck.draft.order',
  });
  mount($('or-editor'), editor.el);
  const diags = createDiagnostics({
    onSelect: (d) => editor.selectAt(d.line, d.column, spanLength(checked?.bytes, d.span)),
    exportAs: () => ({ id: 'or', title: 'poscheck: order check', file: 'order.json' }),
    emptyTitle: 'Consistent order',
    emptyText: 'The history, statuses and timestamps agree with the lifecycle.',
    verdicts: { bad: 'Inconsistent order', warn: 'Consistent, with warnings', good: 'Consistent', clean: 'Consistent' },
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
      editor.setMarkers(new Map(), []);
      $('or-stats').textContent = '';
      if (!sim.order) drawDiagram([]);
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
    editor.setMarkers(markersOf(report), drawn(report, bytes));
    const order = parsedOrder();
    $('or-stats').textContent = order?.status
      ? `${order.status}${Array.isArray(order.history) ? ` · ${plural(order.history.length, 'history row')}` : ''}`
      : '';
    if (!sim.steps.length) drawDiagram(historyPath(order), 'history');
  }

  // ── Simulate ──────────────────────────────────────────────────────────────
  const sim = { start: null, order: null, steps: [], label: '' };
  const nowInput = $('or-now');
  nowInput.value = nowIso();
  const nowSeconds = () => {
    const ms = Date.parse(nowInput.value);
    return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
  };
  const shiftNow = (seconds) => {
    nowInput.value = iso((nowSeconds() ?? Math.floor(Date.now() / 1000)) + seconds);
    renderSim();
  };
  nowInput.addEventListener('change', () => renderSim());
  $('or-now-plus').addEventListener('click', () => shiftNow(300));
  $('or-now-now').addEventListener('click', () => { nowInput.value = nowIso(); renderSim(); });

  const actionButtons = new Map();
  // The reject body's reasonCode (Orders rule 1); "OTHER_REASON" shows the normalization to SYSTEM_ISSUE (rule 2).
  const reasonSelect = h('select', { id: 'or-reason', class: 'small', title: 'reasonCode of the reject body', 'aria-label': 'Reject reasonCode' },
    ['STORE_CLOSED', 'OUT_OF_OPERATING_HOURS', 'ITEM_NOT_OFFERED', 'ITEM_OUT_OF_STOCK', 'PRICE_MISMATCH', 'SYSTEM_ISSUE', 'OTHER_REASON']
      .map((c) => h('option', { value: c, text: c })));
  mount($('or-actions'), h('span', { class: 'actions-label', text: 'POS calls' }), ACTIONS.map(([id, label, route]) => {
    const b = h('button', { type: 'button', class: 'btn btn-sm action', dataset: { action: id }, title: `${route} ${label}` }, label);
    b.addEventListener('click', () => act(id));
    actionButtons.set(id, b);
    return b;
  }), reasonSelect);

  /** The request body the POS sends with each call (the core checks it and answers from it). */
  const bodyOf = (action) => (action === 'accept' ? {} : action === 'reject' ? { reasonCode: reasonSelect.value } : { status: action });

  function startFrom(order, label) {
    sim.start = order ? structuredClone(order) : null;
    sim.order = order ? structuredClone(order) : null;
    sim.steps = [];
    sim.label = label;
    renderSim();
  }

  /** A new Pending order, shaped like the example, received a minute before "now" (sample data). */
  function freshOrder() {
    const base = orderOf(JSON.parse(examples.order));
    const now = nowSeconds() ?? Math.floor(Date.now() / 1000);
    const received = iso(now - 60);
    const order = structuredClone(base);
    order.status = 'Pending';
    for (const k of ['merchantStatusReason', 'acceptedAt', 'rejectedAt', 'preparingAt', 'readyAt', 'driverAssignedAt', 'handedOverAt', 'deliveredAt', 'cancelledAt']) {
      if (k in order) order[k] = null;
    }
    order.receivedAt = received;
    const first = Array.isArray(base.history) && base.history[0] ? { ...base.history[0], changedAt: received } : null;
    order.history = first ? [first] : [];
    if (order.order && typeof order.order === 'object') {
      order.order.createdAt = iso(now - 62);
      order.order.expiresAt = iso(now + 240);
    }
    return order;
  }

  const record = (step) => {
    sim.steps.push(step);
    renderSim();
  };

  function act(action) {
    if (!sim.order) return;
    const before = sim.order.status;
    try {
      const r = api.predictAction(sim.order, action, nowSeconds(), bodyOf(action));
      if (r.order && r.httpStatus >= 200 && r.httpStatus < 300) sim.order = r.order;
      record({ kind: 'action', name: action, before, r });
    } catch (error) {
      record({ kind: 'action', name: action, before, error });
    }
  }

  function serviceStep(item) {
    if (!sim.order) return;
    const before = sim.order.status;
    try {
      let r;
      if (item.kind === 'updateEvent') {
        // A sample update webhook body for this event (the core says what the receiver does).
        const event = { orderKey: sim.order.orderKey, remoteOrderId: sim.order.remoteOrderId ?? 'POS-1', event: item.trigger, occurredAt: nowInput.value };
        if (item.trigger === 'cancelled' || item.trigger === 'driver_released') event.reason = 'simulated in poscheck';
        if (item.trigger === 'driver_assigned') event.driver = { fullName: 'Test Driver', phone: null };
        if (item.trigger === 'driver_released') { event.releasedDriver = { fullName: 'Test Driver', phone: null }; event.expectedNext = 'driver_reassignment'; }
        r = api.applyEvent(sim.order, event);
      } else {
        r = api.applyTrigger(sim.order, item.trigger, nowSeconds());
      }
      if (r.order) sim.order = r.order;
      record({ kind: item.kind, name: item.trigger, before, r });
    } catch (error) {
      record({ kind: item.kind, name: item.trigger, before, error });
    }
  }

  function stepView(step, i) {
    const { r, error } = step;
    const status = step.kind === 'action' ? r?.httpStatus : r?.receiverHttpStatus;
    const good = !error && (status == null || (status >= 200 && status < 300));
    const after = r?.status;
    const who = step.kind === 'action' ? 'POS' : step.kind === 'updateEvent' ? 'webhook' : 'service';
    const head = h('div', { class: 'step-head' },
      h('span', { class: 'step-n', text: String(i + 1) }),
      h('span', { class: 'step-who', text: who }),
      h('code', { class: 'step-action', text: step.name }),
      status != null ? h('span', { class: `status-chip ${good ? 'good' : 'bad'}`, title: step.kind === 'action' ? 'the service answers' : 'the receiver answers', text: String(status) }) : null,
      error ? h('span', { class: 'status-chip bad', text: error.code ?? 'error' }) : null,
      r?.ignored ? h('span', { class: 'status-chip', text: 'ignored' }) : null,
      h('span', { class: 'step-trans' }, step.before ?? '', after ? (after !== step.before ? ` → ${after}` : ' · unchanged') : ''));
    const body = [];
    if (error) body.push(h('p', { class: 'bad-text', text: error.message }));
    if (r?.alreadyReached) body.push(h('p', { class: 'note-ok', text: 'State already reached: not an error to retry.' }));
    const advice = r?.advice ?? r?.note;
    if (advice) body.push(h('p', { class: 'step-advice', text: advice }));
    const facts = [];
    if (r?.event && step.kind !== 'updateEvent') facts.push(['event published', h('code', { text: r.event })]);
    if (r?.webhook) facts.push(['webhook sent', h('code', { text: r.webhook })]);
    if (r?.row) facts.push(['table row', h('code', { text: r.row })]);
    if (r?.basis) facts.push(['basis', h('span', { class: `basis basis-${r.basis}`, text: BASIS[r.basis] ?? r.basis })]);
    // What each part of the answer rests on, with its source (the spec section or what is not shown).
    const grounds = r?.bases ? [['status', r.bases.status], ['problem type', r.bases.problemType], ['meta', r.bases.meta]] : r?.grounds ? [['outcome', r.grounds]] : [];
    for (const [what, g] of grounds) {
      if (g) facts.push([`${what} rests on`, h('span', { class: `basis basis-${g.basis}`, 'data-basis': g.basis, text: `${g.basis}: ${g.source}` })]);
    }
    if (facts.length) body.push(h('dl', { class: 'step-facts' }, facts.map(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)])));
    if (r?.unknown?.length) body.push(h('ul', { class: 'step-unknown' }, r.unknown.map((u) => h('li', { text: u }))));
    if (r?.problem) body.push(h('details', { class: 'step-json', open: true }, h('summary', { text: `Problem the service sends (${r.problem.status ?? status})` }), h('pre', { class: 'code-block small', tabindex: '0', text: pretty(r.problem) })));
    if (r?.response) body.push(h('details', { class: 'step-json' }, h('summary', { text: 'Response data' }), h('pre', { class: 'code-block small', tabindex: '0', text: pretty(r.response) })));
    return h('li', { class: `step ${good ? 'ok' : 'bad'}`, dataset: { status: String(status ?? '') } }, head, body);
  }

  function renderSim() {
    const has = Boolean(sim.order);
    $('or-sim-empty').hidden = has;
    $('or-sim-body').hidden = !has;
    $('or-reset').hidden = !has;
    if (!has) {
      $('or-sim-from').textContent = '';
      mount($('or-steps'));
      return;
    }
    $('or-sim-status').textContent = sim.order.status ?? '?';
    $('or-sim-from').textContent = `from ${sim.label}`;
    for (const b of actionButtons.values()) b.classList.remove('allowed');
    let next = null;
    if (ctx.has('nextActions')) {
      try { next = api.nextActions(sim.order, nowSeconds()); } catch (error) { next = { advice: error.message }; }
    }
    for (const a of next?.actions ?? []) actionButtons.get(a.action)?.classList.add('allowed');
    const service = (next?.serviceMay ?? []).filter((s) => (s.kind === 'updateEvent' && ctx.has('applyEvent')) || (s.kind === 'service' && ctx.has('applyTrigger')));
    mount($('or-service'), service.length ? h('span', { class: 'actions-label', text: 'Service' }) : null, service.map((s) => h('button', {
      type: 'button',
      class: `btn btn-sm service-btn svc-${s.basis}`,
      dataset: { trigger: s.trigger, kind: s.kind },
      title: `${s.kind === 'updateEvent' ? 'update webhook' : 'inside the service'}${s.to ? ` → ${s.to}` : ''} · ${BASIS[s.basis] ?? s.basis}`,
      onclick: () => serviceStep(s),
    }, s.kind === 'updateEvent' ? h('span', { class: 'hook', text: 'webhook' }) : null, s.trigger)));
    const parts = [];
    if (next?.advice) parts.push(next.advice.charAt(0).toUpperCase() + next.advice.slice(1) + '.');
    if (next?.secondsLeftToAccept != null) parts.push(`Deadline ${next.expiresAt}.`);
    if (next?.acceptanceExpired) parts.push(`The acceptance window closed at ${next.expiresAt}.`);
    $('or-next').textContent = parts.join(' ');
    mount($('or-steps'), sim.steps.map(stepView).reverse());

    const visited = historyPath(sim.start);
    for (const s of sim.steps) {
      if (s.r?.status && visited[visited.length - 1] !== s.r.status) visited.push(s.r.status);
    }
    drawDiagram(visited, 'simulated path');
  }

  $('or-reset').addEventListener('click', () => startFrom(sim.start, sim.label));
  const useEditor = () => {
    const order = parsedOrder();
    selectView('sim');
    if (!order) {
      $('or-sim-hint').textContent = 'The editor does not hold a JSON order yet: paste one (the Check tab says what is wrong with it).';
      return;
    }
    startFrom(order, 'the order in the editor');
  };
  $('or-use').addEventListener('click', useEditor);
  $('or-sim-use').addEventListener('click', useEditor);
  if (typeof examples.order === 'string') {
    const fresh = () => { selectView('sim'); nowInput.value = nowIso(); startFrom(freshOrder(), 'a new Pending order'); };
    $('or-sim-fresh').addEventListener('click', fresh);
    $('or-fresh').addEventListener('click', fresh);
  } else {
    $('or-sim-fresh').hidden = true;
    $('or-fresh').hidden = true;
  }

  // ── Table ─────────────────────────────────────────────────────────────────
  function renderTable() {
    if (!ctx.has('orderMachine')) {
      mount($('or-table'), h('p', { class: 'muted', text: 'This build does not expose its transition table (no orderMachine()).' }));
      return;
    }
    const m = api.orderMachine();
    const rows = (m.rows ?? []).map((r) => {
      const from = r.fromUnknown ? 'any?' : (r.from ?? []).join(' | ') || '—';
      const to = r.to ?? 'unchanged';
      return h('li', { class: 'machine-row' },
        h('div', { class: 'machine-head' },
          h('code', { class: 'transition', text: `${from} → ${to}` }),
          r.httpStatus ? h('span', { class: `status-chip ${r.httpStatus < 300 ? 'good' : ''}`, text: String(r.httpStatus) }) : null,
          h('span', { class: 'spacer' }),
          h('code', { class: 'row-id', text: r.id }),
          h('span', { class: `basis basis-${r.basis}`, text: r.basis })),
        h('div', { class: 'machine-trigger' },
          r.triggerText ?? r.label ?? '',
          r.conditionText ? h('span', { class: 'muted', text: ` · ${r.conditionText}` }) : null),
        r.event ? h('div', { class: 'row-event' }, 'publishes ', h('code', { text: r.event })) : null,
        r.webhook ? h('div', { class: 'row-event' }, 'sends the ', h('code', { text: r.webhook }), ' update webhook') : null);
    });
    mount($('or-table'),
      h('p', { class: 'muted small table-intro', text: 'The transition table the core reasons with, row by row. Basis: stated by the spec, derived from it, or assumed (the spec shows nothing).' }),
      h('ol', { class: 'machine' }, rows),
    );
    mount($('or-unknowns'),
      h('p', { class: 'muted small table-intro', text: 'Where the spec is silent the core invents nothing: these are the questions it leaves open, by table row.' }),
      m.unknowns?.length
        ? h('section', { class: 'unknowns' },
          h('h2', { text: `Assumed or not shown · ${m.unknowns.length}` }),
          h('ul', {}, m.unknowns.map((u) => h('li', {}, u.row ? h('code', { text: u.row }) : null, u.row ? ' ' : null, u.what))))
        : null,
      m.notes?.length ? h('section', { class: 'unknowns' }, h('h2', { text: 'Notes' }), h('ul', {}, m.notes.map((n) => h('li', { text: n })))) : null);
  }

  const selectView = segmented($('tool-orders').querySelector('.tool-head .seg'), 'view', (view) => {
    for (const v of ['check', 'sim', 'table']) $(`or-view-${v}`).hidden = v !== view;
    editor.refresh();
  });

  if (typeof examples.order === 'string') {
    $('or-example').addEventListener('click', () => {
      editor.replace(examples.order, 'the example');
      selectView('check');
      sim.steps = [];
      check();
    });
  } else $('or-example').hidden = true;
  $('or-run').addEventListener('click', check);

  drawDiagram([]);
  renderSim();
  renderTable();
  return { show() { editor.refresh(); }, run: check, editor };
}
