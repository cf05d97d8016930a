// Payload tool: whatever is pasted goes to the package. A JSON document goes to validatePayload;
// anything else is split by parseHttpMessage, then a request goes to validateRequest (the
// predicted answer of the service) and a response to classifyProblem (what to do about it).

import { $, h, mount, debounce, formatBytes, pretty, copyButton, plural } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { createDiagnostics, sevIcon, spanLength } from '../lib/diagnostics.js';
import { markersOf } from './menu.js';

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
  order: 'Order detail (GET response)',
  request: 'REST request',
  problem: 'Problem response',
};

const JSON_START = new Set([0x7b, 0x5b, 0x22, 0x2d, 0x74, 0x66, 0x6e, ...'0123456789'.split('').map((c) => c.charCodeAt(0))]);

function firstByte(bytes) {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i];
}

/** Lines before the body of a message (its body is the tail of `bytes`), to place diagnostics. */
function linesBefore(bytes, body) {
  let n = 0;
  const end = bytes.length - body.length;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

export function createPayloadTool(ctx) {
  const { api, examples } = ctx;
  if (!ctx.has('validatePayload')) {
    $('pl-unavailable').hidden = false;
    $('pl-panes').hidden = true;
    for (const el of $('tool-payload').querySelectorAll('.head-actions > *')) el.hidden = true;
    return { run() {}, show() {} };
  }

  const editor = createEditor({
    id: 'pl-input',
    label: 'Payload, request or response',
    placeholder: 'A JSON payload, a request (POST /api/v1/Orders/ord_…/accept HTTP/1.1 + headers + body), or a response (HTTP/1.1 409 Conflict + body).',
    onChange: () => runSoon(),
  });
  mount($('pl-editor'), editor.el);

  let context = { bytes: null, body: null, offset: 0 };
  const diags = createDiagnostics({
    onSelect: (d) => editor.selectAt(d.line + context.offset, d.column, spanLength(context.body, d.span)),
    emptyTitle: 'No problems found',
    emptyText: 'Every field matches the contract.',
  });

  const kinds = ctx.has('payloadKinds') ? api.payloadKinds() : [];
  for (const k of kinds) $('pl-kind').append(h('option', { value: k, text: k }));
  $('pl-kind').addEventListener('change', () => run());
  $('pl-path').addEventListener('input', () => runSoon());

  const exampleSelect = $('pl-example');
  const available = Object.keys(EXAMPLE_LABELS).filter((k) => typeof examples[k] === 'string');
  for (const k of available) exampleSelect.append(h('option', { value: k, text: EXAMPLE_LABELS[k] }));
  if (!available.length) exampleSelect.hidden = true;
  exampleSelect.addEventListener('change', () => {
    const k = exampleSelect.value;
    exampleSelect.value = '';
    if (!k) return;
    editor.setText(examples[k]);
    run();
  });

  const result = $('pl-result');
  const emptyState = [...result.childNodes];
  const runSoon = debounce(() => run(), () => Math.min(700, 150 + editor.value.length / 8000));

  const detected = (text, cls = '') => {
    const b = $('pl-detected');
    b.textContent = text;
    b.className = `badge ${cls}`;
  };

  function run() {
    runSoon.cancel();
    const bytes = editor.bytes();
    $('pl-stats').textContent = bytes.length ? formatBytes(bytes.length) : '';
    if (bytes.length === 0) {
      detected('nothing yet');
      editor.setMarkers(new Map());
      mount(result, emptyState);
      return;
    }
    const first = firstByte(bytes);
    if (first === undefined || JSON_START.has(first)) return runPayload(bytes, bytes, 0, null);
    let message;
    try {
      message = api.parseHttpMessage(bytes);
    } catch {
      // Not an HTTP message either: the payload validator says where the JSON breaks.
      return runPayload(bytes, bytes, 0, null);
    }
    const offset = linesBefore(bytes, message.body);
    if (message.method) return runRequest(bytes, message, offset);
    if (message.status != null) return runProblem(message);
    return runPayload(bytes, message.body, offset, 'headers + body');
  }

  function showReport(report, body, offset) {
    context = { body, offset };
    diags.setReport(report);
    editor.setMarkers(markersOf(report, offset));
    return diags.el;
  }

  function runPayload(bytes, body, offset, note) {
    const options = {};
    if ($('pl-kind').value) options.kind = $('pl-kind').value;
    if ($('pl-path').value.trim()) options.path = $('pl-path').value.trim();
    let report;
    try {
      report = api.validatePayload(body, options);
    } catch (error) {
      return showError('Could not validate', error);
    }
    const kind = report.kind ?? options.kind ?? 'unknown';
    detected(`${options.kind ? '' : 'detected: '}${kind}${note ? ` · ${note}` : ''}`, report.ok ? 'good' : 'bad');
    mount(result,
      h('div', { class: `verdict ${report.ok ? 'verdict-good' : 'verdict-bad'}`, 'data-verdict': report.ok ? 'valid' : 'invalid' },
        sevIcon(report.ok ? 'ok' : 'error'),
        h('div', {},
          h('div', { class: 'verdict-title' }, report.ok ? 'Valid ' : 'Invalid ', h('code', { class: 'code-chip', text: kind })),
          h('p', { class: 'verdict-sub', text: summaryText(report) }))),
      h('section', { class: 'card flush-card' }, showReport(report, body, offset)));
  }

  function runRequest(bytes, message, offset) {
    if (!ctx.has('validateRequest')) {
      detected(`request · ${message.method} ${message.path ?? ''}`);
      mount(result, unavailable('validateRequest', 'predict the answer to a request'));
      return;
    }
    let answer;
    try {
      answer = api.validateRequest({ method: message.method, path: message.path ?? '', headers: message.headers, body: message.body });
    } catch (error) {
      return showError('Could not check the request', error);
    }
    const status = answer.status;
    const good = status >= 200 && status < 300;
    detected(`request · ${message.method} ${message.path ?? ''}`, good ? 'good' : 'bad');
    const endpoint = typeof answer.endpoint === 'string' ? answer.endpoint
      : answer.endpoint ? [answer.endpoint.method, answer.endpoint.path ?? answer.endpoint.template].filter(Boolean).join(' ') || answer.endpoint.name || pretty(answer.endpoint)
        : null;
    mount(result,
      h('div', { class: `verdict ${good ? 'verdict-good' : 'verdict-bad'}`, 'data-verdict': good ? 'valid' : 'invalid', 'data-status': String(status) },
        h('span', { class: `status-big ${good ? 'good' : 'bad'}`, id: 'pl-status', text: String(status) }),
        h('div', {},
          h('div', { class: 'verdict-title', text: `The service would answer ${status} ${REASONS[status] ?? ''}`.trim() }),
          h('p', { class: 'verdict-sub' }, endpoint ? ['Endpoint ', h('code', { text: endpoint }), '. '] : 'No endpoint of the contract matches this method and path. ',
            summaryText(answer.report)))),
      answer.problem
        ? h('section', { class: 'card' },
          h('div', { class: 'card-head' }, h('h3', { text: 'Problem the service would send' }), h('span', { class: 'spacer' }), copyButton(() => pretty(answer.problem))),
          h('pre', { class: 'code-block', id: 'pl-problem', text: pretty(answer.problem) }))
        : null,
      answer.report ? h('section', { class: 'card flush-card' }, showReport(answer.report, message.body, offset)) : null);
  }

  function runProblem(message) {
    editor.setMarkers(new Map());
    if (!ctx.has('classifyProblem')) {
      detected(`response · ${message.status}`);
      mount(result, unavailable('classifyProblem', 'classify a problem response'));
      return;
    }
    let c;
    try {
      c = api.classifyProblem({ status: message.status, headers: message.headers, body: message.body });
    } catch (error) {
      return showError('Could not classify the response', error);
    }
    detected(`response · ${message.status} · ${c.kind ?? 'unknown'}`, 'warn');
    const yes = (v) => h('span', { class: v ? 'yes' : 'no', text: v ? 'yes' : 'no' });
    const facts = [
      ['Kind', h('code', { id: 'pl-kind-out', text: c.kind ?? 'unknown' })],
      ['Retry', c.retryable ? h('span', { class: 'yes', text: c.retryAfterSeconds != null ? `yes, after ${c.retryAfterSeconds} s` : 'yes' }) : yes(false)],
      ['Same Idempotency-Key', yes(c.reuseIdempotencyKey)],
      ['Terminal state', yes(c.terminal)],
      ['State already reached', yes(c.alreadyReached)],
    ];
    const fieldErrors = Object.entries(c.fieldErrors ?? {});
    mount(result,
      h('div', { class: `verdict ${c.retryable || c.alreadyReached ? 'verdict-warn' : 'verdict-bad'}`, 'data-verdict': 'problem' },
        h('span', { class: 'status-big bad', text: String(message.status) }),
        h('div', {},
          h('div', { class: 'verdict-title' }, `${REASONS[message.status] ?? 'Problem'} `, h('code', { class: 'code-chip', text: c.kind ?? 'unknown' })),
          h('p', { class: 'verdict-sub', id: 'pl-advice', text: c.advice ?? '' }))),
      h('section', { class: 'card' }, h('h3', { text: 'What to do' }),
        h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]))),
      fieldErrors.length
        ? h('section', { class: 'card' }, h('h3', { text: `Field errors · ${fieldErrors.length}` }),
          h('table', { class: 'kv' }, h('tbody', {}, fieldErrors.map(([path, msgs]) => h('tr', {},
            h('th', {}, h('code', { text: path })),
            h('td', {}, (Array.isArray(msgs) ? msgs : [msgs]).map((m) => h('div', { text: String(m) }))))))))
        : null);
  }

  function summaryText(report) {
    if (!report) return '';
    const parts = [];
    if (report.errorCount) parts.push(plural(report.errorCount, 'error'));
    if (report.warningCount) parts.push(plural(report.warningCount, 'warning'));
    if (report.infoCount) parts.push(`${report.infoCount} info`);
    return parts.length ? `${parts.join(', ')}.` : 'Nothing to report.';
  }

  function unavailable(fn, what) {
    return h('div', { class: 'verdict verdict-warn' }, sevIcon('info'),
      h('div', {}, h('div', { class: 'verdict-title', text: 'Not available in this build' }),
        h('p', { class: 'verdict-sub' }, 'This build has no ', h('code', { text: fn }), ` to ${what}.`)));
  }

  function showError(title, error) {
    detected('error', 'bad');
    mount(result, h('div', { class: 'verdict verdict-bad' }, sevIcon('error'),
      h('div', {}, h('div', { class: 'verdict-title' }, `${title} `, error.code ? h('code', { class: 'code-chip', text: error.code }) : null),
        h('p', { class: 'verdict-sub', text: error.message ?? String(error) }))));
  }

  $('pl-run').addEventListener('click', run);
  return { show() { editor.refresh(); }, run, editor };
}
