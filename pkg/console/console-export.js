// The console's exports, pure functions of what it read (no DOM, no network), so that a test can
// run them in Node too:
// - stateFile(state, entries): the model's state (GET /_sandbox/state) with the journal's entries
//   beside it, as JSON text that `--state FILE` loads (the model reads its state and ignores
//   `journal`);
// - timelineTest(order, entries, info, words): one order's timeline as a `node:test` file that replays it
//   with createSandbox and the manual clock: the same account and assumed values, a POS that gives
//   the recorded answers in turn, the POS's REST calls and the other actors' controls at their
//   times, then asserts the same history.
// `words` (W): the contract's words as GET /_sandbox/words answers them (none is spelled here).

/** The state and the journal as one JSON text. */
export function stateFile(state, entries) {
  return JSON.stringify({ ...state, journal: entries }, null, 1);
}

/** The orderKey a REST call's path names (`/api/v1/Orders/{key}[/…]`), if any. */
export function restOrderKey(path) {
  const m = /^\/api\/v1\/Orders\/([^/?#]+)/i.exec(path ?? '');
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

const seconds = (iso) => Date.parse(iso) / 1000;
const MODEL_OPTIONS = ['acceptanceWindowSeconds', 'timeoutJobDelaySeconds', 'retryScheduleSeconds', 'answerBudgetMs', 'rateLimits', 'perMinute', 'perHour'];

/**
 * The steps that replay an order: `{ at, kind: 'rest' | 'control' | 'redeliver', … }` in order,
 * `at` seconds after the order was received. The REST calls come from the journal; the other
 * actors' controls from the history (driver, customer, operator rows) and the `delivered` update.
 */
export function replaySteps(order, entries, W) {
  const A = W.ActorType;
  const t0 = seconds(order.receivedAt);
  const rests = entries.filter((e) => e.type === 'rest').sort((a, b) => a.seq - b.seq);
  const changes = new Set(['accept', 'reject', 'status']);
  const steps = [];
  let r = 0;
  const restStep = (e) => ({ at: e.at - t0, kind: 'rest', method: e.method, path: e.path, body: e.body });
  for (const h of order.history.slice(1)) {
    const at = seconds(h.changedAt) - t0;
    if (h.actorType === A.Merchant) {
      // The POS's REST call that made this change, and every call before it.
      while (r < rests.length) {
        const e = rests[r++];
        steps.push(restStep(e));
        const last = (e.path.split('?')[0].split('/').pop() ?? '').toLowerCase();
        if (e.status >= 200 && e.status < 300 && changes.has(last)) break;
      }
      continue;
    }
    let step = null;
    const cancelled = h.toStatus === W.Status.Cancelled;
    if (h.driver?.event === W.DriverEvent.Assigned || h.driver?.event === W.DriverEvent.Reassigned) step = { action: 'assignDriver', input: { fullName: h.driver.fullName, code: h.driver.code } };
    else if (h.driver?.event === W.DriverEvent.Released) step = { action: 'releaseDriver', input: {} };
    else if (h.actorType === A.Driver && h.toStatus === W.Status.Ready) step = { action: 'markReadyByDriver', input: undefined };
    else if (h.actorType === A.Customer && cancelled) step = { action: 'cancel', input: { by: A.Customer, reason: h.reason ?? undefined } };
    else if (h.actorType === A.Operator && h.fromStatus === W.Status.HandedOver) step = { action: 'refund', input: { reason: h.reason ?? undefined } };
    else if (h.actorType === A.Operator && cancelled) step = { action: 'cancel', input: { by: A.Operator, reason: h.reason ?? undefined } };
    if (step) steps.push({ at, kind: 'control', ...step });
  }
  while (r < rests.length) steps.push(restStep(rests[r++]));
  // The driver's `delivered` (no history row) and the redeliveries, at their times.
  const deliveries = entries.filter((e) => e.type === 'delivery').sort((a, b) => a.seq - b.seq);
  const ids = [...new Set(deliveries.map((d) => d.deliveryId))];
  const timed = [];
  const seen = new Set();
  for (const d of deliveries) {
    let event = null;
    try {
      event = JSON.parse(d.body)?.event ?? null;
    } catch {}
    if (event === W.UpdateEvent.Delivered && !d.redelivery && !seen.has(d.deliveryId)) timed.push({ at: d.at - t0, kind: 'control', action: 'deliver', input: undefined });
    seen.add(d.deliveryId);
    if (d.redelivery) {
      const last = timed.at(-1);
      if (last?.kind === 'redeliver' && last.delivery === ids.indexOf(d.deliveryId) && last.at === d.at - t0) last.copies += 1;
      else timed.push({ at: d.at - t0, kind: 'redeliver', delivery: ids.indexOf(d.deliveryId), copies: 1 });
    }
  }
  for (const s of timed) {
    const i = steps.findIndex((x) => x.at > s.at);
    steps.splice(i < 0 ? steps.length : i, 0, s);
  }
  let at = 0;
  for (const s of steps) at = s.at = Math.max(at, Math.round(s.at * 1000) / 1000);
  return steps;
}

/** One order's timeline as a node:test file (JavaScript text). */
export function timelineTest(order, entries, info, W) {
  const o = order.order ?? {};
  const create = {
    store: o.storeRemoteId,
    type: o.fulfillment?.type,
    items: (o.items ?? []).map((i) => ({ remoteCode: i.remoteCode, name: i.name, quantity: i.quantity, unitPrice: i.unitPrice, note: i.note ?? undefined })),
    payment: o.payment?.methods?.[0]?.type,
    customerNote: o.customerNote ?? undefined,
    express: o.fulfillment?.isExpress ?? undefined,
  };
  const answers = entries
    .filter((e) => e.type === 'delivery')
    .sort((a, b) => a.seq - b.seq)
    .map((d) => (d.status == null ? { status: 503, body: `replay: the POS gave no answer (${d.error ?? 'none'})` } : { status: d.status, body: d.answer ?? '' }));
  const steps = replaySteps(order, entries, W);
  const t0 = seconds(order.receivedAt);
  const ends = [...order.history.map((h) => seconds(h.changedAt)), ...entries.map((e) => e.at)];
  const end = Math.max(0, Math.round((Math.max(...ends) - t0) * 1000) / 1000);
  const options = {};
  for (const k of MODEL_OPTIONS) if (info.assumptions?.[k] !== undefined) options[k] = info.assumptions[k];
  const config = { secret: info.secret, clients: info.clients.map((c) => ({ apiKey: c.apiKey, stores: c.stores })) };
  const expected = order.history.map((h) => [h.toStatus, h.actorType, h.driver?.event ?? null]);
  const J = (v) => JSON.stringify(v);
  return `// The timeline of order ${order.orderKey} as the poscheck sandbox console saw it, replayed: the same
// account and assumed values, a POS that gives the recorded answers in turn, the POS's REST calls and
// the other actors' controls at their times (manual clock), then the same history.
// Run: node --test this-file.test.mjs (with poscheck installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { createSandbox } from 'poscheck/sandbox';

const config = ${J(config)};
const options = ${J(options)};
const create = ${J(create)};
/** The POS's answers, in the order its deliveries came. */
const answers = ${J(answers)};
/** What happened after the order was received: \`at\` seconds later. */
const steps = ${J(steps)};
const end = ${J(end)};
/** The history: [toStatus, actorType, driver event]. */
const expected = ${J(expected)};

test(${J(`order ${order.orderKey} replays: ${expected.map((h) => h[0]).join(' → ')}`)}, async () => {
  let n = 0;
  const pos = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = answers[n++] ?? { status: 200, body: '{}' };
      res.writeHead(a.status, { 'Content-Type': 'application/json' });
      res.end(a.body);
    });
  });
  await new Promise((resolve) => pos.listen(0, '127.0.0.1', resolve));
  const sb = await createSandbox({ ...options, config, pos: \`http://127.0.0.1:\${pos.address().port}\`, clock: 'manual', seed: 1 });
  try {
    const { orderKey } = await sb.createOrder(create);
    let t = 0;
    for (const s of steps) {
      if (s.at > t) await sb.advance(s.at - t);
      t = Math.max(t, s.at);
      if (s.kind === 'rest') {
        const key = ${J(order.orderKey)};
        await fetch(sb.url + s.path.replace(key, orderKey), {
          method: s.method,
          headers: { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
          body: s.method === 'GET' ? undefined : s.body,
        }).then((r) => r.arrayBuffer());
      } else if (s.kind === 'redeliver') {
        const ids = [...new Set(sb.deliveries().filter((d) => d.orderKey === orderKey).map((d) => d.deliveryId))];
        await sb.redeliver(ids[s.delivery], { copies: s.copies });
      } else {
        await sb[s.action](orderKey, s.input);
      }
    }
    if (end > t) await sb.advance(end - t);
    const got = sb.order(orderKey).history.map((h) => [h.toStatus, h.actorType, h.driver?.event ?? null]);
    assert.deepEqual(got, expected);
  } finally {
    await sb.close();
    pos.close();
  }
});
`;
}
