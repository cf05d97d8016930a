// Webhook tool: verify a captured delivery (raw HTTP request or header fields), or sign a test one.
// Every verdict comes from the package: parseHttpMessage, verifyWebhook, diagnoseWebhook,
// signWebhook. The page only gathers bytes and shows the answers.

import { $, h, mount, debounce, segmented, isoFromUnix, nowSeconds, copyButton, plural, formatBytes } from '../lib/dom.js';
import { createEditor } from '../lib/editor.js';
import { sevIcon } from '../lib/diagnostics.js';
import { quote, quoteBytes } from '../lib/shell.js';

const H = {
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature-256',
  delivery: 'X-Service-Delivery-Id',
  event: 'X-Service-Event-Type',
};

const encoder = new TextEncoder();

/** The value of a header for display (the core does its own lookup when it verifies). */
const headerValue = (pairs, name) => pairs.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

/** A list of password inputs, one secret per line; a multi-line paste becomes several rows. */
function createSecrets(container, showBtn, addBtn, onChange) {
  let visible = false;
  const rows = [];

  const renumber = () => {
    rows.forEach((r, i) => {
      r.index.textContent = `#${i}`;
      r.input.setAttribute('aria-label', rows.length > 1 ? `Secret #${i}` : 'Secret');
      r.remove.hidden = rows.length === 1;
    });
    container.classList.toggle('multi', rows.length > 1);
  };

  function addRow(value = '', focus = false, after = null) {
    const input = h('input', {
      type: visible ? 'text' : 'password',
      class: 'mono',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: rows.length ? 'another secret (rotation)' : "the account's HMAC secret",
    });
    input.value = value;
    const remove = h('button', { type: 'button', class: 'icon-btn', title: 'Remove this secret', 'aria-label': 'Remove this secret', text: '✕' });
    const index = h('span', { class: 'secret-index' });
    const row = { el: h('div', { class: 'secret-row' }, index, input, remove), input, remove, index };
    input.addEventListener('input', onChange);
    input.addEventListener('paste', (e) => {
      const text = e.clipboardData?.getData('text/plain') ?? '';
      const lines = text.split(/\r\n|\n|\r/).filter((l) => l.length > 0);
      if (lines.length < 2) return;
      e.preventDefault();
      input.value = lines[0];
      let prev = row;
      for (const line of lines.slice(1)) prev = addRow(line, false, prev);
      onChange();
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        addRow('', true, row);
      } else if (e.key === 'Backspace' && input.value === '' && rows.length > 1) {
        e.preventDefault();
        const i = rows.indexOf(row);
        removeRow(row);
        rows[Math.max(0, i - 1)].input.focus();
      }
    });
    remove.addEventListener('click', () => { removeRow(row); onChange(); });
    const at = after ? rows.indexOf(after) + 1 : rows.length;
    rows.splice(at, 0, row);
    if (after) after.el.after(row.el);
    else container.append(row.el);
    renumber();
    if (focus) input.focus();
    return row;
  }

  function removeRow(row) {
    rows.splice(rows.indexOf(row), 1);
    row.el.remove();
    renumber();
  }

  showBtn.addEventListener('click', () => {
    visible = !visible;
    showBtn.setAttribute('aria-pressed', String(visible));
    showBtn.textContent = visible ? 'Hide' : 'Show';
    for (const r of rows) r.input.type = visible ? 'text' : 'password';
  });
  addBtn.addEventListener('click', () => addRow('', true));
  addRow();

  return {
    /** One string, or an array when several secrets are given (rotation). */
    value() {
      const values = rows.map((r) => r.input.value).filter((v) => v !== '');
      if (values.length === 0) return '';
      return values.length === 1 ? values[0] : values;
    },
    get count() { return rows.filter((r) => r.input.value !== '').length; },
    /** Removes the whitespace around each secret. */
    trim() { for (const r of rows) r.input.value = r.input.value.trim(); },
    set(values) {
      while (rows.length > 1) removeRow(rows[rows.length - 1]);
      rows[0].input.value = values[0] ?? '';
      for (const v of values.slice(1)) addRow(v);
    },
  };
}

/** A clock-following "now" input that the user may pin to another value. */
function createNow(input, resetBtn, hint, onChange) {
  let auto = true;
  let why = '';
  const show = () => {
    const iso = isoFromUnix(input.value);
    hint.textContent = `${iso || 'not a date'} · ${auto ? 'following the clock' : why || 'pinned'}`;
  };
  const tick = () => { if (auto) { input.value = String(nowSeconds()); show(); } };
  input.addEventListener('input', () => { auto = false; why = ''; show(); onChange(); });
  resetBtn.addEventListener('click', () => { auto = true; tick(); onChange(); });
  tick();
  return {
    value() { tick(); return input.value === '' ? undefined : Number(input.value); },
    pin(seconds, reason = '') { auto = false; why = reason; input.value = String(seconds); show(); },
    /** Follows the clock again (the pin was the example's, and the example is gone). */
    follow(reason = '') { auto = true; tick(); if (reason) hint.textContent += ` · ${reason}`; },
    get following() { return auto; },
  };
}

export function createWebhookTool(ctx) {
  const { api, examples } = ctx;
  const example = examples.webhook;
  let mode = 'verify';
  let source = 'raw';
  let touched = false;

  // ── Verify ────────────────────────────────────────────────────────────────
  const autoRun = debounce(() => runVerify(), 200);
  // "Now" pinned to the example's capture time holds only while the editor holds the example.
  let examplePin = false;
  let examplePinVersion = -1;
  const releaseExamplePin = () => {
    if (!examplePin) return;
    if (source === 'raw' && rawEditor.version === examplePinVersion) return;
    examplePin = false;
    if (!now.following) now.follow('the example is gone');
  };
  const onEdit = () => { touched = true; autoRun(); };

  const rawEditor = createEditor({
    id: 'wh-raw',
    label: 'Captured HTTP request',
    placeholder: 'POST /v1/order/STORE-1 HTTP/1.1\nContent-Type: application/json\nX-Service-Timestamp: 1767225600\nX-Service-Signature-256: sha256=…\nX-Service-Delivery-Id: 5b0c…\n\n{"…": "…"}',
    onChange: onEdit,
    persist: 'poscheck.draft.webhook',
    // An HTTP message, signed byte for byte: no JSON mode, no Format.
    language: null,
  });
  mount($('wh-raw-editor'), rawEditor.el);
  const bodyEditor = createEditor({ id: 'wh-f-body', label: 'Body', placeholder: '{"orderKey":"ord_…", …}', onChange: onEdit, format: false });
  mount($('wh-body-editor'), bodyEditor.el);

  const fields = { timestamp: $('wh-f-ts'), signature: $('wh-f-sig'), delivery: $('wh-f-delivery'), event: $('wh-f-event') };
  for (const input of Object.values(fields)) input.addEventListener('input', onEdit);
  $('wh-tolerance').addEventListener('input', onEdit);

  const secrets = createSecrets($('wh-secrets'), $('wh-secret-show'), $('wh-secret-add'), onEdit);
  const now = createNow($('wh-now'), $('wh-now-reset'), $('wh-now-hint'), () => { examplePin = false; onEdit(); });

  const result = $('wh-result');
  const emptyState = [...result.childNodes];

  function gather() {
    if (source === 'raw') {
      const bytes = rawEditor.bytes();
      if (bytes.length === 0) return { empty: true };
      let parsed;
      try {
        parsed = api.parseHttpMessage(bytes);
      } catch (error) {
        return { parseError: error };
      }
      return { headers: parsed.headers, body: parsed.body, parsed };
    }
    const headers = [];
    for (const [key, name] of Object.entries(H)) {
      if (fields[key].value !== '') headers.push([name, fields[key].value]);
    }
    const body = bodyEditor.bytes();
    if (headers.length === 0 && body.length === 0) return { empty: true };
    return { headers, body, parsed: null };
  }

  function runVerify() {
    autoRun.cancel();
    releaseExamplePin();
    const input = gather();
    if (input.empty) {
      mount(result, emptyState);
      return;
    }
    if (input.parseError) {
      const e = input.parseError;
      // The line the parser stopped at gets a marker in the editor, and a click goes there.
      const line = Number(/^line (\d+)/.exec(e.message ?? '')?.[1] ?? 0);
      rawEditor.setMarkers(line ? new Map([[line, 'error']]) : new Map(), line ? [{ line, severity: 'error', message: e.message }] : []);
      mount(result, h('div', { class: 'verdict verdict-bad', 'data-verdict': 'unparsed' },
        sevIcon('error'),
        h('div', {},
          h('div', { class: 'verdict-title' }, 'Not an HTTP request ', h('code', { class: 'code-chip', text: e.code ?? 'ERROR' })),
          h('p', { class: 'verdict-sub', text: e.message }),
          h('p', { class: 'verdict-sub muted', text: 'Paste the request line (optional), the headers one per line, a blank line, then the body; curl -v output and HTTP/2 headers are read too.' }),
          line ? h('p', { class: 'verdict-sub' }, h('button', { type: 'button', class: 'btn btn-sm', id: 'wh-goto-line', text: `Go to line ${line}`, onclick: () => rawEditor.selectAt(line, 1, 0) })) : null)));
      return;
    }
    if (source === 'raw') rawEditor.setMarkers(new Map(), []);
    if (input.parsed && input.headers.length === 0) {
      // A body pasted alone: the signature headers are missing, not wrong.
      mount(result, h('div', { class: 'verdict verdict-info', 'data-verdict': 'body-only' }, sevIcon('info'),
        h('div', {},
          h('div', { class: 'verdict-title', text: 'Only a body: the headers are missing' }),
          h('p', { class: 'verdict-sub', text: 'A delivery is checked with its X-Service-Timestamp and X-Service-Signature-256 headers. Paste the whole request (request line, headers, a blank line, the body), or enter the header values in Fields.' }),
          h('p', { class: 'verdict-sub' }, h('button', { type: 'button', class: 'btn btn-sm', id: 'wh-body-to-fields', text: 'Use this body in Fields', onclick: () => {
            bodyEditor.replace(null, 'the pasted body', input.body);
            segmentSource('fields');
            fields.timestamp.focus();
          } })))));
      return;
    }
    const tolerance = $('wh-tolerance').value === '' ? undefined : Number($('wh-tolerance').value);
    if (secrets.count === 0) {
      renderNeedSecret(input);
      return;
    }
    const call = {
      body: input.body,
      headers: input.headers,
      secret: secrets.value(),
      now: now.value(),
      toleranceSeconds: tolerance,
    };
    let verified = null;
    let failure = null;
    let diagnosis = null;
    try {
      verified = api.verifyWebhook(call);
    } catch (error) {
      failure = error;
    }
    try {
      diagnosis = api.diagnoseWebhook(call);
    } catch (error) {
      failure = failure ?? error;
    }
    renderVerdict({ call, input, verified, failure, diagnosis, tolerance });
  }

  function renderNeedSecret(input) {
    const ts = headerValue(input.headers, H.timestamp);
    const sig = headerValue(input.headers, H.signature);
    mount(result,
      h('div', { class: 'verdict verdict-info', 'data-verdict': 'need-secret' },
        sevIcon('info'),
        h('div', {},
          h('div', { class: 'verdict-title', text: 'Enter the secret to verify' }),
          h('p', { class: 'verdict-sub', text: "The signature is an HMAC keyed with the account's secret: paste it under Secrets. It stays in this tab." }))),
      h('section', { class: 'card' },
        h('h2', { class: 'card-title', text: 'Delivery as received' }),
        h('dl', { class: 'facts' },
          h('dt', { text: 'Timestamp' }), h('dd', {}, ts != null ? h('code', { text: ts }) : h('span', { class: 'muted', text: 'absent' }),
            ts != null && isoFromUnix(ts) ? h('span', { class: 'muted', text: ` ${isoFromUnix(ts)}` }) : null),
          h('dt', { text: 'Signature' }), h('dd', {}, sig != null ? h('code', { class: 'sig', text: sig }) : h('span', { class: 'muted', text: 'absent' })),
          h('dt', { text: 'Body' }), h('dd', { text: formatBytes(input.body.length) }))));
  }

  function renderVerdict({ call, input, verified, failure, diagnosis, tolerance }) {
    const valid = Boolean(verified);
    const code = failure?.code ?? diagnosis?.code;
    const isWebhookError = failure && (failure.name === 'WebhookVerificationError' || failure.httpStatus != null);

    const verdict = valid
      ? h('div', { class: 'verdict verdict-good', 'data-verdict': 'valid' },
        sevIcon('ok'),
        h('div', {},
          h('div', { class: 'verdict-title', text: 'Valid signature' }),
          h('p', { class: 'verdict-sub', text: `A receiver accepts this delivery${Array.isArray(call.secret) ? ` (secret #${verified.secretIndex} matched)` : ''}.` })))
      : h('div', { class: 'verdict verdict-bad', 'data-verdict': 'invalid', 'data-code': code ?? '' },
        sevIcon('error'),
        h('div', {},
          h('div', { class: 'verdict-title' },
            isWebhookError ? 'Rejected' : 'Could not check',
            code ? h('code', { class: 'code-chip', id: 'wh-code', text: code }) : null,
            failure?.httpStatus != null ? h('span', { class: 'status-chip', text: `HTTP ${failure.httpStatus}` }) : null),
          h('p', { class: 'verdict-sub', text: failure?.message ?? diagnosis?.message ?? '' }),
          failure?.httpStatus != null
            ? h('p', { class: 'verdict-sub muted', text: `A receiver must answer ${failure.httpStatus} and not process the body.` })
            : null));

    // Facts: what the core established, or the header values as received when it did not.
    const skew = diagnosis?.skewSeconds;
    const ts = verified?.timestamp ?? headerValue(input.headers, H.timestamp);
    const delivery = valid ? verified.deliveryId : headerValue(input.headers, H.delivery);
    const event = valid ? verified.eventType : headerValue(input.headers, H.event);
    const facts = [];
    const fact = (label, value, extra = null, cls = '') => facts.push(
      h('dt', { text: label }),
      h('dd', { class: cls }, value, extra));
    if (input.parsed?.method) fact('Request', h('code', { text: `${input.parsed.method} ${input.parsed.path ?? ''}` }));
    fact('Timestamp', ts != null ? h('code', { text: String(ts) }) : h('span', { class: 'muted', text: 'absent' }),
      ts != null && isoFromUnix(ts) ? h('span', { class: 'muted', text: ` ${isoFromUnix(ts)}` }) : null);
    if (skew != null) {
      const out = code === 'TIMESTAMP_TOO_OLD' || code === 'TIMESTAMP_IN_FUTURE';
      const text = skew === 0 ? 'exactly now' : `${skew > 0 ? '+' : '−'}${Math.abs(skew).toLocaleString('en-US')} s · ${skew > 0 ? 'ahead of' : 'behind'} now`;
      fact('Skew', h('span', { class: out ? 'bad-text' : '', id: 'wh-skew', text }), skewGauge(skew, tolerance ?? 300, out));
    }
    fact('Delivery id', delivery ? h('code', { id: 'wh-delivery', text: delivery }) : h('span', { class: 'muted', text: 'none' }),
      !valid && delivery ? h('span', { class: 'muted', text: ' (unverified)' }) : null);
    fact('Event type', event ? h('code', { id: 'wh-event', text: event }) : h('span', { class: 'muted', text: 'none (not a creation webhook)' }),
      !valid && event ? h('span', { class: 'muted', text: ' (unverified)' }) : null);
    const secretCount = Array.isArray(call.secret) ? call.secret.length : call.secret ? 1 : 0;
    fact('Secret', valid
      ? h('span', { text: secretCount > 1 ? `#${verified.secretIndex} of ${secretCount} matched` : 'matched' })
      : h('span', { class: 'muted', text: secretCount ? plural(secretCount, 'secret') + ' tried' : 'none given' }));
    fact('Body', h('span', { text: `${formatBytes(input.body.length)}` }),
      h('span', { class: 'muted', text: input.body.length >= 1024 ? ` (${input.body.length.toLocaleString('en-US')} bytes)` : '' }));

    const findings = (diagnosis?.findings ?? []).map((f) => h('li', { class: `finding ${f.code === 'VALID' ? 'finding-ok' : ''}` },
      h('code', { class: 'code-chip', text: f.code }),
      h('span', { text: f.message }),
      // The core established that the trimmed secret verifies: the fix is certain.
      f.code === 'SECRET_WHITESPACE'
        ? h('button', { type: 'button', class: 'btn btn-sm quick-fix', id: 'wh-trim-secret', text: 'Trim the secret', onclick: () => { secrets.trim(); runVerify(); } })
        : null));

    const headerRows = input.headers.map(([name, value]) => h('tr', { class: name.toLowerCase().startsWith('x-service-') ? 'hl' : '' },
      h('th', { text: name }), h('td', {}, h('code', { text: value }))));

    mount(result,
      verdict,
      h('section', { class: 'card' },
        h('h2', { text: 'Delivery' }),
        h('dl', { class: 'facts' }, facts)),
      h('section', { class: 'card' },
        h('h2', {}, valid ? 'Diagnosis' : 'Likely cause', h('span', { class: 'muted small', text: ` · ${plural(findings.length, 'finding')}` })),
        findings.length ? h('ul', { class: 'findings', id: 'wh-findings' }, findings) : h('p', { class: 'muted', text: 'No known mistake reproduces this signature.' })),
      signedCard(call, input),
      input.parsed?.notes?.length
        ? h('section', { class: 'card', id: 'wh-read-notes' },
          h('h2', { text: 'How the request was read' }),
          h('ul', { class: 'notes' }, input.parsed.notes.map((n) => h('li', { text: n }))))
        : null,
      headerRows.length
        ? h('details', { class: 'card', open: source === 'raw' ? true : null },
          h('summary', {}, h('h2', { text: 'Headers as parsed' }), h('span', { class: 'muted small', text: ` · ${headerRows.length}` })),
          h('table', { class: 'kv' }, h('tbody', {}, headerRows)))
        : null);
  }

  /**
   * The exact string that is signed (timestamp, a dot, the body bytes) and the signature each
   * secret gives for it, beside the one received: computed by the core's signWebhook.
   */
  function signedCard(call, input) {
    const ts = headerValue(input.headers, H.timestamp);
    if (ts == null || !/^\d+$/.test(ts)) return null;
    const received = headerValue(input.headers, H.signature) ?? '';
    const secretsList = (Array.isArray(call.secret) ? call.secret : [call.secret]).filter(Boolean);
    const rows = [];
    secretsList.forEach((secret, i) => {
      let expected;
      try {
        expected = api.signWebhook({ body: input.body, secret, timestamp: ts })['X-Service-Signature-256'];
      } catch {
        return;
      }
      const same = expected === received;
      const sameIgnoringCase = !same && expected === received.toLowerCase();
      rows.push(h('tr', {},
        h('th', { text: secretsList.length > 1 ? `Expected (secret #${i})` : 'Expected' }),
        h('td', {}, h('code', { class: 'sig', 'data-expected': String(i), text: expected }),
          h('span', { class: same ? 'yes' : sameIgnoringCase ? 'warn-text' : 'no', text: same ? ' ✓ matches' : sameIgnoringCase ? ' matches, but in uppercase' : ' ✗ differs' }))));
    });
    const limit = 4096;
    const bodyText = new TextDecoder('utf-8', { fatal: false }).decode(input.body.subarray(0, limit));
    const shown = `${ts}.${bodyText}`.replace(/\r/g, '\\r');
    return h('section', { class: 'card', id: 'wh-signed' },
      h('h2', { text: 'What is signed' }),
      h('table', { class: 'kv' }, h('tbody', {},
        h('tr', {}, h('th', { text: 'Received' }), h('td', {}, received ? h('code', { class: 'sig', id: 'wh-received-sig', text: received }) : h('span', { class: 'muted', text: 'absent' }))),
        rows)),
      h('p', { class: 'muted small', text: `HMAC-SHA256 over ${plural(encoder.encode(`${ts}.`).length + input.body.length, 'byte')}: the timestamp header exactly as sent, a dot, then the body bytes${input.body.length > limit ? ` (the first ${limit.toLocaleString('en-US')} shown)` : ''}; \\r marks a carriage return.` }),
      h('pre', { class: 'code-block wrap small', id: 'wh-signed-string', tabindex: '0', 'aria-label': 'The signed string', text: shown }));
  }

  function skewGauge(skew, tolerance, out) {
    const span = Math.max(tolerance, 1) * 2;
    const clamped = Math.max(-span, Math.min(span, skew));
    const marker = h('span', { class: `gauge-marker ${out ? 'out' : 'in'}` });
    marker.style.left = `${50 + (clamped / span) * 50}%`;
    const windowEl = h('span', { class: 'gauge-window' });
    return h('span', { class: 'gauge', title: `tolerance ±${tolerance} s` },
      h('span', { class: 'gauge-track' }, windowEl, h('span', { class: 'gauge-zero' }), marker),
      h('span', { class: 'gauge-labels' }, h('span', { text: `−${tolerance * 2}s` }), h('span', { text: `±${tolerance}s` }), h('span', { text: `+${tolerance * 2}s` })));
  }

  function loadVerifyExample() {
    if (!example?.raw) return;
    segmentSource('raw');
    rawEditor.replace(example.raw, 'the example');
    if (example.secret != null) secrets.set([example.secret]);
    // Pin "now" to the example's own timestamp so it verifies; "Now" shows the skew instead.
    if (typeof example.now === 'number') {
      now.pin(example.now, "pinned to the example's capture time while it is in the editor");
      examplePin = true;
      examplePinVersion = rawEditor.version;
    }
    runVerify();
  }

  const segmentSource = segmented($('tool-webhook').querySelector('.seg-sm'), 'src', (value) => {
    const changed = value !== source;
    source = value;
    $('wh-raw-box').hidden = value !== 'raw';
    $('wh-fields-box').hidden = value !== 'fields';
    rawEditor.refresh();
    bodyEditor.refresh();
    if (changed && touched) runVerify();
  });

  for (const id of ['wh-load-example', 'wh-empty-example']) {
    const btn = $(id);
    if (example?.raw) btn.addEventListener('click', loadVerifyExample);
    else btn.hidden = true;
  }
  $('wh-run').addEventListener('click', runVerify);
  for (const form of [$('wh-settings'), $('wh-sign-form')]) form.addEventListener('submit', (e) => e.preventDefault());

  // ── Sign ──────────────────────────────────────────────────────────────────
  const signEditor = createEditor({ id: 'wh-s-body', label: 'Body to sign', placeholder: '{"orderKey":"ord_…", …}', onChange: () => autoSign(), persist: 'poscheck.draft.sign', format: false });
  mount($('wh-sign-editor'), signEditor.el);
  const signResult = $('wh-sign-result');
  const signEmpty = [...signResult.childNodes];
  const sField = { secret: $('wh-s-secret'), ts: $('wh-s-ts'), event: $('wh-s-event'), delivery: $('wh-s-delivery'), url: $('wh-s-url'), method: $('wh-s-method') };
  const autoSign = debounce(() => runSign(), 200);
  // An empty timestamp means "the clock when signing": each Sign takes the time afresh.
  const tsHint = () => {
    const v = sField.ts.value.trim();
    const iso = /^\d+$/.test(v) ? isoFromUnix(v) : '';
    let text = iso || (v ? 'not unix seconds' : 'empty: the clock at each signing');
    if (/^\d{12,}$/.test(v)) text = `${v.length} digits: this looks like milliseconds (Date.now()); the header carries unix seconds`;
    $('wh-s-ts-hint').textContent = text;
  };
  sField.ts.placeholder = 'empty: now, when signing';
  tsHint();
  for (const input of Object.values(sField)) input.addEventListener('input', () => { tsHint(); autoSign(); });
  sField.method.addEventListener('change', () => autoSign());
  $('wh-s-ts-now').addEventListener('click', () => { sField.ts.value = ''; tsHint(); runSign(); });
  $('wh-s-ts-now').title = 'Sign with the clock at each signing (empties the field)';
  $('wh-s-delivery-gen').addEventListener('click', () => { sField.delivery.value = crypto.randomUUID(); runSign(); });
  $('wh-s-secret-show').addEventListener('click', (e) => {
    const show = sField.secret.type === 'password';
    sField.secret.type = show ? 'text' : 'password';
    e.currentTarget.textContent = show ? 'Hide' : 'Show';
    e.currentTarget.setAttribute('aria-pressed', String(show));
  });
  const signExampleBody = examples.orderCreated ?? examples.orderUpdateEvent ?? null;
  if (signExampleBody) {
    $('wh-sign-example').addEventListener('click', () => {
      signEditor.replace(signExampleBody, 'the example body');
      if (!sField.secret.value && example?.secret) sField.secret.value = example.secret;
      if (!sField.event.value && examples.orderCreated) sField.event.value = 'order.created';
      runSign();
    });
  } else $('wh-sign-example').hidden = true;
  $('wh-sign-run').addEventListener('click', () => runSign());

  let lastSigned = null;

  function runSign() {
    autoSign.cancel();
    clearInterval(freshnessTimer);
    const body = signEditor.bytes();
    if (body.length === 0 && sField.secret.value === '') {
      lastSigned = null;
      mount(signResult, signEmpty);
      return;
    }
    if (sField.secret.value === '') {
      lastSigned = null;
      mount(signResult, h('div', { class: 'verdict verdict-info', 'data-verdict': 'need-secret' }, sevIcon('info'),
        h('div', {},
          h('div', { class: 'verdict-title', text: 'Enter the secret to sign' }),
          h('p', { class: 'verdict-sub', text: "The signature is an HMAC keyed with the account's secret. It stays in this tab." }))));
      return;
    }
    const ts = sField.ts.value.trim();
    const call = {
      body,
      secret: sField.secret.value,
      // Empty: the clock now (never the time the page was opened); otherwise as typed: the core
      // says when it is malformed.
      timestamp: ts === '' ? String(nowSeconds()) : ts,
    };
    if (sField.delivery.value) call.deliveryId = sField.delivery.value;
    if (sField.event.value) call.eventType = sField.event.value;
    let headers;
    try {
      headers = api.signWebhook(call);
    } catch (error) {
      lastSigned = null;
      mount(signResult, h('div', { class: 'verdict verdict-bad' }, sevIcon('error'),
        h('div', {},
          h('div', { class: 'verdict-title' }, 'Cannot sign ', error.code ? h('code', { class: 'code-chip', text: error.code }) : null),
          h('p', { class: 'verdict-sub', text: error.message }))));
      return;
    }
    lastSigned = { headers, body, secret: call.secret, auto: ts === '' };
    const pairs = [['Content-Type', 'application/json'], ...Object.entries(headers)];
    const headerText = Object.entries(headers).map(([n, v]) => `${n}: ${v}`).join('\n');
    const url = sField.url.value.trim() || 'http://localhost:3000/v1/order/STORE-1';
    const method = sField.method.value;
    const data = quoteBytes(body);
    const lines = [`curl -sS -i -X ${method} ${quote(url)}`, ...pairs.map(([n, v]) => `-H ${quote(`${n}: ${v}`)}`)];
    lines.push(data ? `--data-binary ${data.arg}` : '--data-binary @body.bin');
    const curl = lines.join(' \\\n  ');

    const verdictBox = h('div', { id: 'wh-sign-verdict' });
    mount(signResult,
      verdictBox,
      h('section', { class: 'card' },
        h('div', { class: 'card-head' }, h('h2', { text: 'Headers' }), h('span', { class: 'spacer' }), copyButton(() => headerText)),
        h('table', { class: 'kv' }, h('tbody', {}, Object.entries(headers).map(([n, v]) => h('tr', {},
          h('th', { text: n }), h('td', {}, h('code', { class: n === H.signature ? 'sig' : '', 'data-header': n, text: v })))))))
      ,
      h('section', { class: 'card' },
        h('h2', { text: 'Signed string' }),
        h('p', { class: 'muted small', text: `${plural(encoder.encode(`${headers['X-Service-Timestamp']}.`).length + body.length, 'byte')}: the timestamp, a dot, then the body bytes; \\r marks a carriage return.` }),
        h('pre', { class: 'code-block wrap small', id: 'wh-sign-string', tabindex: '0', 'aria-label': 'The signed string',
          text: `${headers['X-Service-Timestamp']}.${new TextDecoder().decode(body.subarray(0, 4096))}`.replace(/\r/g, '\\r') })),
      h('section', { class: 'card' },
        h('div', { class: 'card-head' },
          h('h2', { text: 'curl' }),
          h('span', { class: 'muted small', text: data?.ansi ? " · bash/zsh $'…' quoting keeps the exact bytes" : ' · sends the exact body bytes' }),
          h('span', { class: 'spacer' }), copyButton(() => curl)),
        h('pre', { class: 'code-block wrap', id: 'wh-curl', tabindex: '0', 'aria-label': 'curl command', text: curl }),
        data ? null : h('p', { class: 'muted small', text: 'The body holds a NUL byte, which no shell argument can carry: save it as body.bin next to the command.' })),
      h('div', { class: 'row-actions' },
        h('button', { type: 'button', class: 'btn', text: 'Check it in Verify', onclick: verifySigned }),
        h('span', { class: 'muted small', text: 'Opens the signed request in Verify, secret included.' })));
    watchFreshness();
  }

  /**
   * The signed request checked the way a receiver would, against the clock now: a signature whose
   * timestamp is outside the window is not shown as a green "Signed".
   */
  function signVerdict() {
    if (!lastSigned) return;
    const box = $('wh-sign-verdict');
    if (!box) return;
    const { headers, body } = lastSigned;
    const stamp = headers['X-Service-Timestamp'];
    const clock = nowSeconds();
    let failure = null;
    try {
      api.verifyWebhook({ body, headers: Object.entries(headers), secret: lastSigned.secret, now: clock });
    } catch (error) {
      failure = error;
    }
    const ms = /^\d{12,}$/.test(stamp);
    const what = h('p', { class: 'verdict-sub' }, 'HMAC-SHA256 over ', h('code', { text: `${stamp}.` }), ` + ${plural(body.length, 'body byte')}.`);
    if (!failure) {
      const left = Number(stamp) + 300 - clock;
      mount(box, h('div', { class: 'verdict verdict-good', 'data-verdict': 'signed' }, sevIcon('ok'),
        h('div', {},
          h('div', { class: 'verdict-title', text: 'Signed' }), what,
          h('p', { class: 'verdict-sub muted', id: 'wh-sign-fresh', text: `A receiver with a ±300 s window accepts it for ${left.toLocaleString('en-US')} s more (until ${isoFromUnix(Number(stamp) + 300)}).` }))));
      return;
    }
    const fix = ms
      ? h('button', { type: 'button', class: 'btn btn-sm', id: 'wh-s-ts-fix', text: `Use ${Math.floor(Number(stamp) / 1000)} (seconds)`, onclick: () => { sField.ts.value = String(Math.floor(Number(stamp) / 1000)); tsHint(); runSign(); } })
      : h('button', { type: 'button', class: 'btn btn-sm', id: 'wh-s-resign', text: 'Sign again with the clock now', onclick: () => { sField.ts.value = ''; tsHint(); runSign(); } });
    mount(box, h('div', { class: 'verdict verdict-warn', 'data-verdict': 'stale', 'data-code': failure.code ?? '' }, sevIcon('warning'),
      h('div', {},
        h('div', { class: 'verdict-title' }, 'Signed, but a receiver would reject it now ', h('code', { class: 'code-chip', text: failure.code ?? 'ERROR' })),
        what,
        h('p', { class: 'verdict-sub', text: ms
          ? `${stamp} has ${stamp.length} digits: it looks like milliseconds. X-Service-Timestamp carries unix seconds.`
          : failure.message }),
        h('p', { class: 'verdict-sub' }, fix))));
  }
  let freshnessTimer = 0;
  const watchFreshness = () => {
    clearInterval(freshnessTimer);
    signVerdict();
    // The verdict follows the clock while it is shown: after 300 s it says the signature expired.
    freshnessTimer = setInterval(() => {
      if (!lastSigned || !$('wh-sign-verdict')) { clearInterval(freshnessTimer); return; }
      signVerdict();
    }, 5000);
  };

  function verifySigned() {
    if (!lastSigned) return;
    // A timestamp that follows the clock is taken afresh, as a sender would when it sends.
    if (lastSigned.auto) runSign();
    let target;
    try { target = new URL(sField.url.value.trim()); } catch { target = new URL('http://localhost:3000/v1/order/STORE-1'); }
    const head = [
      `${sField.method.value} ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
      'Content-Type: application/json',
      ...Object.entries(lastSigned.headers).map(([n, v]) => `${n}: ${v}`),
      '', '',
    ].join('\r\n');
    const head8 = encoder.encode(head);
    const bytes = new Uint8Array(head8.length + lastSigned.body.length);
    bytes.set(head8);
    bytes.set(lastSigned.body, head8.length);
    selectMode('verify');
    segmentSource('raw');
    rawEditor.setBytes(bytes);
    secrets.set([lastSigned.secret]);
    $('wh-now-reset').click();
    runVerify();
  }

  const selectMode = segmented($('tool-webhook').querySelector('.tool-head .seg'), 'mode', (value) => {
    mode = value;
    $('wh-verify').hidden = value !== 'verify';
    $('wh-sign').hidden = value !== 'sign';
    rawEditor.refresh();
    signEditor.refresh();
  });

  return {
    show() { rawEditor.refresh(); bodyEditor.refresh(); signEditor.refresh(); },
    run() { if (mode === 'verify') runVerify(); else runSign(); },
  };
}
