// Payload tool: whatever is pasted goes to the package's inspectInput: the core says what the input
// is (a payload, a REST request, a problem or 2xx response) and checks it. The page only places the
// diagnostics in the editor and shows the answers.

import { $, h, mount, debounce, pretty, copyButton, plural, menuButton } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { createDiagnostics, sevIcon, spanLength, markersOf } from '../lib/diagnostics.js';

const REASONS = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 415: 'Unsupported Media Type',
  422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const EXAMPLE_LABELS = {
  orderUpdateEvent: 'Order update event (webhook body)',
  menuChangeCompleted: 'Menu change completed (webhook body)',
  orderCreated: 'Order creation (webhook body)',
  order: 'Order detail (GET /api/v1/Orders/{orderKey})',
  request: 'Request: POST …/accept',
  problem: 'Response: 409 problem',
};

/** Sample inputs to show detection of requests and responses (checked by the core, not here). */
function samples() {
  return {
    request: [
      'POST /api/v1/Orders/ord_7Hq2LmXc9PzR4tBv/accept HTTP/1.1',
      'Host: api.example.test',
      'X-Service-Api-Key: <API_KEY>',
      `Idempotency-Key: ${crypto.randomUUID()}`,
      'X-Service-Schema-Version: 1.0',
      'Content-Type: application/json',
      '',
      '{ "remoteOrderId": "POS-88121" }',
    ].join('\n'),
    problem: [
      'HTTP/1.1 409 Conflict',
      'Content-Type: application/problem+json',
      '',
      JSON.stringify({
        type: 'https://problems.example.test/invalid-state-transition',
        title: 'Invalid state transition',
        detail: 'The order is already Ready.',
        status: 409,
        traceId: '00-4bf92f3577b34da6-01',
        meta: { currentStatus: 'Ready', allowedTransitions: ['HandedOver'] },
      }, null, 2),
    ].join('\n'),
  };
}

/**
 * Where the body starts in the pasted bytes: usually their tail; after curl -v prefixes or a cut
 * at Content-Length, the place its first bytes are found; -1 when it is not in the paste as is
 * (a chunked body, decoded).
 */
function bodyStart(bytes, body) {
  if (body.length === 0) return bytes.length;
  const tail = bytes.length - body.length;
  let same = tail >= 0;
  for (let i = 0; same && i < body.length; i++) if (bytes[tail + i] !== body[i]) same = false;
  if (same) return tail;
  const probe = body.subarray(0, Math.min(body.length, 256));
  outer: for (let i = 0; i + probe.length <= bytes.length; i++) {
    for (let j = 0; j < probe.length; j++) if (bytes[i + j] !== probe[j]) continue outer;
    if (i + body.length <= bytes.length) return i;
  }
  return -1;
}

/** Lines before the body of a message, to place diagnostics. */
function linesBefore(bytes, body) {
  const end = bodyStart(bytes, body);
  let n = 0;
  for (let i = 0; i < (end === -1 ? bytes.length : end); i++) if (bytes[i] === 0x0a) n++;
  return end === -1 ? null : n;
}

export function createPayloadTool(ctx) {
  const { api } = ctx;
  if (!ctx.has('inspectInput')) {
    $('pl-unavailable').hidden = false;
    $('pl-panes').hidden = true;
    for (const el of $('tool-payload').querySelectorAll('.head-actions > *')) el.hidden = true;
    return { run() {}, show() {} };
  }
  const examples = { ...samples(), ...ctx.examples };

  const editor = createEditor({
    id: 'pl-input',
    label: 'Payload, request or response',
    placeholder: 'A JSON payload (webhook body, GET response…),\na request: POST /api/v1/Orders/ord_…/accept HTTP/1.1, headers, a blank line, the body,\nor a response: HTTP/1.1 409 Conflict, headers, a blank line, the problem body.',
    onChange: () => runSoon(),
    persist: 'poscheck.draft.payload',
  });
  mount($('pl-editor'), editor.el);

  // Where the checked part starts in the editor, to place diagnostics: the body of a message.
  let place = { body: null, offset: 0, headerLines: null };
  const locate = (d) => {
    if (place.headerLines && d.pointer === '' && !(d.span?.end > 0)) {
      // About the request line, a header or a query parameter: the core gives no position.
      const line = place.headerLines.get(String(d.path).toLowerCase()) ?? 1;
      return { line, column: 1, length: 0 };
    }
    return { line: d.line + place.offset, column: d.column, length: spanLength(place.body, d.span) };
  };
  // The list shows the diagnostics already placed in the editor (line and column of the whole
  // message, not of its body): the list, the gutter and a click agree.
  const placed = (d) => {
    const at = locate(d);
    const out = { ...d, line: at.line, column: at.column, editorLength: at.length, bodyLine: d.line };
    if (Array.isArray(d.related)) out.related = d.related.map((r) => (r.line ? placed(r) : r));
    return out;
  };
  const diags = createDiagnostics({
    onSelect: (d) => editor.selectAt(d.line, d.column, d.editorLength ?? 0),
    exportAs: () => ({ id: 'pl', title: `poscheck: ${$('pl-detected').textContent}`, file: 'input' }),
    emptyTitle: 'No problems found',
    emptyText: 'Every field and header matches the contract.',
    verdicts: { bad: 'Errors found', warn: 'No errors, some warnings', good: 'No errors', clean: 'Clean' },
  });

  const kinds = ctx.has('payloadKinds') ? api.payloadKinds() : [];
  for (const k of kinds) $('pl-kind').append(h('option', { value: k, text: k }));
  $('pl-kind').addEventListener('change', () => run());
  $('pl-path').addEventListener('input', () => runSoon());

  const available = Object.keys(EXAMPLE_LABELS).filter((k) => typeof examples[k] === 'string');
  mount($('pl-example-slot'), menuButton({
    id: 'pl-example',
    label: 'Examples',
    items: available.map((k) => ({ value: k, label: EXAMPLE_LABELS[k] })),
    onPick: (k) => {
      editor.replace(examples[k], `the example “${EXAMPLE_LABELS[k]}”`);
      run();
      editor.focus();
    },
  }));

  const result = $('pl-result');
  const emptyState = [...result.childNodes];
  const runSoon = debounce(() => run(), () => Math.min(700, 150 + editor.length / 8000));

  const detected = (text, cls = '') => {
    const b = $('pl-detected');
    b.textContent = text;
    b.className = `badge ${cls}`;
  };

  const options = () => {
    const o = {};
    if ($('pl-kind').value) o.kind = $('pl-kind').value;
    if ($('pl-path').value.trim()) o.path = $('pl-path').value.trim();
    return o;
  };

  /** Body bytes, line offset and header lines of a message, for placing its diagnostics. */
  function messagePlace(bytes) {
    let message;
    try {
      message = api.parseHttpMessage(bytes);
    } catch {
      return { body: bytes, offset: 0, headerLines: new Map() };
    }
    const found = linesBefore(bytes, message.body);
    // A decoded (chunked) body is not in the editor as is: its diagnostics go to the blank line.
    const offset = found ?? Math.max(0, editor.value.split('\n').findIndex((l) => l.trim() === '')) + 1;
    const headerLines = new Map();
    const head = editor.value.split('\n', offset);
    head.forEach((text, i) => {
      const name = /^([^:\s]+):/.exec(text)?.[1];
      if (name && !headerLines.has(name.toLowerCase())) headerLines.set(name.toLowerCase(), i + 1);
    });
    return { body: message.body, offset, headerLines, message, approximate: found === null };
  }

  /** How the core read the pasted message (curl -v, HTTP/2, chunked, Content-Length…). */
  const readNotes = (where) => (where.message?.notes?.length
    ? h('section', { class: 'card', id: 'pl-read-notes' },
      h('h2', { text: 'How the message was read' }),
      h('ul', { class: 'notes' }, where.message.notes.map((n) => h('li', { text: n }))))
    : null);

  function run() {
    runSoon.cancel();
    const bytes = editor.bytes();
    if (bytes.length === 0) {
      detected('nothing yet');
      editor.setMarkers(new Map(), []);
      mount(result, emptyState);
      return;
    }
    try {
      const r = api.inspectInput(bytes, options());
      if (r.detected === 'request') return showRequest(r.method, r.path, r.prediction, messagePlace(bytes));
      if (r.detected === 'problem') return showProblem(r.status, r.classification, messagePlace(bytes));
      return showPayload(r.report, { body: bytes, offset: 0, headerLines: null });
    } catch (error) {
      return showError('Could not check this input', error);
    }
  }

  function showReport(report, where) {
    place = where;
    const shown = report ? { ...report, diagnostics: (report.diagnostics ?? []).map((d) => (d.line || place.headerLines ? placed(d) : d)) } : null;
    diags.setReport(shown);
    editor.setMarkers(markersOf(shown), shown?.diagnostics);
    return diags.el;
  }

  function showPayload(report, where) {
    const kind = report.kind ?? options().kind ?? 'unknown';
    detected(`payload · ${kind}`, report.ok ? 'good' : 'bad');
    mount(result,
      h('div', { class: `verdict ${report.ok ? 'verdict-good' : 'verdict-bad'}`, 'data-verdict': report.ok ? 'valid' : 'invalid' },
        sevIcon(report.ok ? 'ok' : 'error'),
        h('div', {},
          h('div', { class: 'verdict-title' }, report.ok ? 'Valid ' : 'Invalid ', h('code', { class: 'code-chip', text: kind })),
          h('p', { class: 'verdict-sub', text: summaryText(report) }))),
      h('section', { class: 'card flush-card' }, showReport(report, where)));
  }

  function showRequest(method, path, p, where) {
    const status = p.status;
    const good = status >= 200 && status < 300;
    detected(`request · ${method} ${path ?? ''}`, good ? 'good' : 'bad');
    mount(result,
      h('div', { class: `verdict ${good ? 'verdict-good' : 'verdict-bad'}`, 'data-verdict': good ? 'valid' : 'invalid', 'data-status': String(status) },
        h('span', { class: `status-big ${good ? 'good' : 'bad'}`, id: 'pl-status', text: String(status) }),
        h('div', {},
          h('div', { class: 'verdict-title', text: `The service would answer ${status} ${REASONS[status] ?? ''}`.trim() }),
          h('p', { class: 'verdict-sub' },
            p.endpoint ? ['Endpoint ', h('code', { text: p.endpoint }), '. '] : 'No endpoint of the contract matches this method and path. ',
            summaryText(p.report)),
          basisList(p.basis))),
      readNotes(where),
      p.report ? h('section', { class: 'card flush-card' }, showReport(p.report, where)) : null,
      p.problem
        ? h('section', { class: 'card' },
          h('div', { class: 'card-head' }, h('h2', { text: 'Problem the service would send' }), h('span', { class: 'spacer' }), copyButton(() => pretty(p.problem))),
          h('pre', { class: 'code-block wrap', id: 'pl-problem', tabindex: '0', text: pretty(p.problem) }))
        : null);
  }

  /** What the predicted status, problem type and meta rest on: stated, derived or assumed, with the source. */
  function basisList(b) {
    if (!b) return null;
    const rows = [['Status', b.status], ['Problem type', b.problemType], ['Meta', b.meta]].filter(([, g]) => g);
    return h('dl', { class: 'step-facts', id: 'pl-basis' },
      rows.map(([k, g]) => [h('dt', { text: `${k} rests on` }), h('dd', {}, h('span', { class: `basis basis-${g.basis}`, 'data-basis': g.basis, text: `${g.basis}: ${g.source}` }))]));
  }

  function showProblem(status, c, where) {
    const calm = c.alreadyReached || c.retryable;
    detected(`response · ${status} · ${c.kind ?? 'unknown'}`, calm ? 'warn' : 'bad');
    const yes = (v, text) => h('span', { class: v ? 'yes' : 'no', text: v ? (text ?? 'yes') : 'no' });
    const facts = [
      ['Kind', h('code', { id: 'pl-kind-out', text: c.kind ?? 'unknown' })],
      ['Retry', c.retryable ? yes(true, c.retryAfterSeconds != null ? `yes, after ${c.retryAfterSeconds} s (Retry-After)` : 'yes, with backoff') : yes(false)],
      ['Same Idempotency-Key', yes(c.reuseIdempotencyKey, 'yes, reuse it')],
      ['Terminal state', yes(c.terminal)],
      ['Already reached', yes(c.alreadyReached)],
    ];
    if (c.currentStatus) facts.push(['Current status', h('code', { text: c.currentStatus })]);
    if (Array.isArray(c.allowedTransitions)) facts.push(['Allowed next', h('code', { text: c.allowedTransitions.length ? c.allowedTransitions.join(', ') : '[] (none)' })]);
    if (c.traceId) facts.push(['traceId', h('code', { text: c.traceId })]);
    const fieldErrors = Object.entries(c.fieldErrors ?? {});
    mount(result,
      h('div', { class: `verdict ${calm ? 'verdict-warn' : 'verdict-bad'}`, 'data-verdict': 'problem', 'data-status': String(status) },
        h('span', { class: 'status-big bad', text: String(status) }),
        h('div', {},
          h('div', { class: 'verdict-title' }, `${c.title ?? REASONS[status] ?? 'Problem'} `, h('code', { class: 'code-chip', text: c.kind ?? 'unknown' })),
          h('p', { class: 'verdict-sub', id: 'pl-advice', text: c.advice ?? '' }))),
      readNotes(where),
      h('section', { class: 'card' }, h('h2', { text: 'What the client should do' }),
        h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]))),
      fieldErrors.length
        ? h('section', { class: 'card' }, h('h2', { text: `meta.errors · ${plural(fieldErrors.length, 'field')}` }),
          h('table', { class: 'kv' }, h('tbody', {}, fieldErrors.map(([path, msgs]) => h('tr', {},
            h('th', { text: path }),
            h('td', {}, (Array.isArray(msgs) ? msgs : [msgs]).map((m) => h('div', { text: String(m) }))))))))
        : null,
      c.report?.diagnostics?.length ? h('section', { class: 'card flush-card' }, showReport(c.report, where)) : (showReport(null, where), null));
  }

  function summaryText(report) {
    if (!report) return '';
    const parts = [];
    if (report.errorCount) parts.push(plural(report.errorCount, 'error'));
    if (report.warningCount) parts.push(plural(report.warningCount, 'warning'));
    if (report.infoCount) parts.push(`${report.infoCount} info`);
    return parts.length ? `${parts.join(', ')}.` : 'Nothing to report.';
  }

  function showError(title, error) {
    detected('error', 'bad');
    editor.setMarkers(new Map(), []);
    mount(result, h('div', { class: 'verdict verdict-bad' }, sevIcon('error'),
      h('div', {}, h('div', { class: 'verdict-title' }, `${title} `, error.code ? h('code', { class: 'code-chip', text: error.code }) : null),
        h('p', { class: 'verdict-sub', text: error.message ?? String(error) }))));
  }

  $('pl-run').addEventListener('click', run);
  return { show() { editor.refresh(); }, run, editor };
}
