// The probe's face (`probe()` of `poscheck/sandbox`, `poscheck probe`): runs a sandbox whose
// webhooks go to the POS, plays the scenarios, and hands what was sent and answered to the Rust
// core (src/probe/), which decides every verdict and writes every report. This file only sends,
// waits and reads the sandbox's logs.
//
// This file is the ES-module source; the build writes a CommonJS copy for the Node entry
// (scripts/build-pkg.mjs). It imports nothing: the wasm exports, the sandbox's API and Node's
// modules are passed to createProbeApi(). Keep top-level declarations as `export function|class|const`.

/** The report's forms. */
export const PROBE_FORMATS = ['text', 'json', 'junit', 'markdown'];
/** How long the receiver checks may take in all, ms: past it, what is left is inconclusive. */
export const RECEIVER_BOUND_MS = 120_000;
/** The POS's answers are kept up to this size. */
const MAX_ANSWER = 64 * 1024;
/** Copies sent together for receiver/duplicate-concurrent-copies (the issue: 2 to 5). */
const COPIES = 3;
/** The fault names of `faults` and the sandbox options they set. */
const FAULTS = { 429: 'rateLimited', 502: 'badGateway', 503: 'unavailable' };
const OPTIONS = ['pos', 'stores', 'secret', 'apiKey', 'port', 'seed', 'receiverOnly', 'only', 'wait', 'budgetMs', 'faults', 'retryAfterSeconds', 'onReady', 'onProgress'];

/**
 * The probe over the sandbox module's wasm exports (`raw.Probe`), the sandbox's API
 * (`createSandbox`, `SandboxError`), Node's modules and the sandbox's sender (`node.http`,
 * `node.sendRequest`).
 */
export function createProbeApi(raw, sandboxApi, node) {
  const { createSandbox, SandboxError } = sandboxApi;
  const { http, sendRequest } = node;
  // The contract's words come from the module (src/contract.rs), when first needed; this file
  // spells none.
  let contract;
  const words = () => (contract ??= JSON.parse(raw.contractWords()));
  let rules;
  const allRules = () => (rules ??= JSON.parse(raw.Probe.rules()));

  /** Every check the probe can run: id, side, severity, doc, basis, source. */
  function probeRules() {
    return allRules().map((r) => ({ ...r }));
  }

  const invalid = (message) => new SandboxError(message, 'INVALID_ARGUMENT');

  /** The options checked and defaulted. */
  function settle(options) {
    if (options === null || typeof options !== 'object') throw invalid('probe takes an options object');
    for (const k of Object.keys(options)) if (!OPTIONS.includes(k)) throw invalid(`unknown option ${JSON.stringify(k)}: expected one of ${OPTIONS.join(', ')}`);
    let pos;
    try {
      pos = new URL(options.pos);
    } catch {
      throw invalid(`pos must be the POS's base URL (http or https), found ${JSON.stringify(options.pos)}`);
    }
    if (pos.protocol !== 'http:' && pos.protocol !== 'https:') throw invalid(`pos must be an http or https URL, found ${pos.protocol}`);
    const stores = options.stores ?? ['STORE-1'];
    if (!Array.isArray(stores) || stores.length === 0 || stores.length > 20 || !stores.every((s) => typeof s === 'string' && /^[A-Za-z0-9_.:-]{1,100}$/.test(s))) {
      throw invalid('stores must be 1 to 20 store remoteIds (letters, digits and _ . - :, up to 100 characters)');
    }
    const number = (name, min, max, dflt) => {
      const v = options[name] ?? dflt;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw invalid(`${name} must be a number from ${min} to ${max}`);
      return v;
    };
    const ids = allRules().map((r) => r.id);
    let only = null;
    if (options.only !== undefined) {
      if (!Array.isArray(options.only) || options.only.length === 0) throw invalid('only must be a non-empty list of check ids (see probeRules())');
      only = new Set();
      for (const o of options.only) {
        const hits = o === 'receiver' || o === 'client' ? ids.filter((id) => id.startsWith(`${o}/`)) : ids.filter((id) => id === o);
        if (hits.length === 0) throw invalid(`no check ${JSON.stringify(o)}: expected receiver, client, or one of ${ids.join(', ')}`);
        for (const h of hits) only.add(h);
      }
    }
    const faults = {};
    for (const [k, v] of Object.entries(options.faults ?? {})) {
      if (!(k in FAULTS)) throw invalid(`faults: ${JSON.stringify(k)} is not one of 429, 502, 503`);
      if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw invalid(`faults: the rate of ${k} must be from 0 to 1`);
      faults[FAULTS[k]] = v;
    }
    if ((faults.rateLimited ?? 0) + (faults.badGateway ?? 0) + (faults.unavailable ?? 0) > 1) throw invalid('faults: the rates add up to more than 1');
    for (const k of ['secret', 'apiKey']) {
      if (options[k] !== undefined && (typeof options[k] !== 'string' || options[k].length === 0)) throw invalid(`${k} must be a non-empty string`);
    }
    if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && options.seed >= 0)) throw invalid('seed must be a non-negative integer');
    for (const k of ['onReady', 'onProgress']) if (options[k] !== undefined && typeof options[k] !== 'function') throw invalid(`${k} must be a function`);
    return {
      pos: options.pos.replace(/\/+$/, ''),
      stores,
      secret: options.secret,
      apiKey: options.apiKey,
      port: number('port', 0, 65535, 0),
      seed: options.seed ?? Math.floor(Math.random() * 2 ** 32),
      receiverOnly: Boolean(options.receiverOnly),
      only,
      wait: number('wait', 0, 3600, 20),
      budgetMs: number('budgetMs', 1, 30_000, 30_000),
      retryAfterSeconds: number('retryAfterSeconds', 1, 120, 1),
      faults,
      onReady: options.onReady,
      onProgress: options.onProgress,
    };
  }

  /** Sends one exchange to the POS (and nowhere else); resolves with it and its answer. */
  async function send(agent, ex, timeoutMs) {
    const headers = { ...ex.headers, 'Content-Length': Buffer.byteLength(ex.body) };
    const { status, body, error, ms } = await sendRequest(http, agent, ex.url, ex.method, headers, ex.body, timeoutMs, MAX_ANSWER);
    return { ...ex, status: status || null, answer: body === undefined ? null : body.toString('utf8'), ms, error, at: Date.now() / 1000 };
  }

  /** A sandbox delivery log entry as an exchange. */
  const exchangeOf = (d) => ({
    method: d.method,
    url: d.url,
    headers: d.headers,
    body: d.body,
    status: d.status,
    answer: d.answer,
    ms: d.ms,
    ...(d.error ? { error: d.error } : {}),
    at: d.at,
    note: `${d.kind}${d.redelivery ? ' (redelivery)' : ''}, X-Service-Delivery-Id ${d.deliveryId}`,
  });

  /**
   * Grades the POS at `options.pos`: runs a sandbox whose webhooks go to it, plays the scenarios,
   * and resolves with the report `{ ok, summary, pos, durationMs, checks }`.
   */
  async function probe(options = {}) {
    const o = settle(options);
    const started = performance.now();
    const progress = (line) => o.onProgress?.(line);
    const config = {
      pos: o.pos,
      ...(o.secret ? { secret: o.secret } : {}),
      clients: [{ ...(o.apiKey ? { apiKey: o.apiKey } : {}), stores: o.stores.map((remoteId) => ({ remoteId })) }],
    };
    const sb = await createSandbox({ config, port: o.port, seed: o.seed, retryScheduleSeconds: [], menuChangeDelaySeconds: 0, answerBudgetMs: 30_000 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    try {
      const info = { url: sb.url, apiKey: sb.apiKey, secret: sb.secret, stores: o.stores, pos: o.pos };
      if (o.onReady) await o.onReady(info);
      const p = new raw.Probe(Buffer.from(sb.secret, 'utf8'), o.seed);
      // The probe's own REST calls (left out of the client checks).
      const ownKeys = [];
      const wanted = (id) => !o.only || o.only.has(id);
      const checks = new Map();
      const record = (check) => {
        checks.set(check.id, check);
        progress(`${check.status.padEnd(12)} ${check.id}: ${check.message}`);
      };
      const grade = (id, input) => record(JSON.parse(raw.Probe.gradeReceiver(id, JSON.stringify({ ...input, budgetMs: o.budgetMs }))));
      const unrun = (id, status, message) => checks.set(id, JSON.parse(raw.Probe.unrun(id, status, message)));

      // ---- receiver checks ------------------------------------------------------------------------
      const receiverIds = allRules().filter((r) => r.side === 'receiver').map((r) => r.id);
      const all = []; // every webhook exchange, for receiver/answer-latency
      const deadline = Date.now() + RECEIVER_BOUND_MS;
      const left = () => Math.max(1, Math.min(30_000, deadline - Date.now()));
      const bounded = () => Date.now() >= deadline;
      const store = o.stores[0];
      let seen = 0;
      const fresh = () => {
        const entries = sb.deliveries();
        const out = entries.slice(seen);
        seen = entries.length;
        return out;
      };
      const direct = async (id, variant, from, copies = 1) => {
        if (!wanted(id)) return;
        if (bounded()) return unrun(id, 'inconclusive', `not run: the receiver checks' bound of ${RECEIVER_BOUND_MS / 1000} s was reached`);
        if (!from) return grade(id, { unavailable: 'not run: no genuine delivery to make it from (see receiver/order-created-answered)' });
        const ex = JSON.parse(p.variant(variant, JSON.stringify(from), Math.floor(Date.now() / 1000)));
        ex.note = `${variant}, X-Service-Delivery-Id ${ex.headers['X-Service-Delivery-Id']}`;
        const answers = await Promise.all(Array.from({ length: copies }, () => send(agent, ex, left())));
        if (copies > 1) answers.forEach((a, i) => (a.note = `copy ${i + 1} of ${copies}, ${ex.note}`));
        all.push(...answers);
        grade(id, { exchanges: answers, creationWorks });
      };
      let creationWorks;
      let creation;
      let order;
      if (receiverIds.some(wanted)) {
        progress(`sending webhooks to ${o.pos} (store ${store})`);
        order = await sb.createOrder({ store, autoAccept: true });
        creation = fresh().find((d) => d.kind === 'orderCreated');
        const first = creation && exchangeOf(creation);
        if (first) all.push(first);
        const graded = JSON.parse(raw.Probe.gradeReceiver('receiver/order-created-answered', JSON.stringify({ exchanges: first ? [first] : [] })));
        creationWorks = graded.status === 'passed';
        if (wanted(graded.id)) record(graded);
        if (wanted('receiver/duplicate-retry-same-id')) {
          const again = creation ? (await sb.redeliver(creation.deliveryId)).map(exchangeOf) : [];
          seen = sb.deliveries().length;
          all.push(...again);
          grade('receiver/duplicate-retry-same-id', { exchanges: first ? [first, ...again] : [] });
        }
        const genuine = first && { method: first.method, url: first.url, headers: first.headers, body: first.body };
        await direct('receiver/duplicate-concurrent-copies', 'fresh-order', genuine, COPIES);
        for (const [id, variant] of [
          ['receiver/signature-tampered-body', 'tampered-body'],
          ['receiver/signature-wrong-secret', 'wrong-secret'],
          ['receiver/timestamp-too-old', 'timestamp-old'],
          ['receiver/timestamp-in-future', 'timestamp-ahead'],
          ['receiver/signature-missing', 'signature-missing'],
          ['receiver/timestamp-missing', 'timestamp-missing'],
          ['receiver/signature-raw-body', 'whitespace'],
        ]) {
          await direct(id, variant, genuine);
        }

        // Update webhooks, from the model: an order accepted by the service (autoAccept) once
        // the POS answered its creation, then the driver and the customer act on it.
        const unavailable = creationWorks ? null : 'not run: the order never reached Preparing, since its creation webhook was not answered 200 with a remoteOrderId (see receiver/order-created-answered)';
        const updates = async (id, what, act) => {
          if (!wanted(id) && !id.startsWith('-')) return [];
          if (unavailable) {
            if (wanted(id)) grade(id, { unavailable });
            return [];
          }
          if (bounded()) {
            if (wanted(id)) unrun(id, 'inconclusive', `not run: the receiver checks' bound of ${RECEIVER_BOUND_MS / 1000} s was reached`);
            return [];
          }
          fresh();
          try {
            await act();
          } catch (e) {
            if (wanted(id)) grade(id, { unavailable: `not run: the sandbox could not ${what}: ${e.message}` });
            return [];
          }
          const sent = fresh().filter((d) => d.kind === 'orderUpdate').map(exchangeOf);
          all.push(...sent);
          if (wanted(id)) grade(id, sent.length ? { exchanges: sent } : { unavailable: `no update webhook was sent when the sandbox ${what}` });
          return sent;
        };
        const key = order?.orderKey;
        await updates('receiver/update-driver-assigned-twice', 'assigned a driver twice', async () => {
          await sb.assignDriver(key);
          await sb.assignDriver(key, { fullName: 'Bo Lindqvist', phone: '+46701234567' });
        });
        const needReleased = ['receiver/update-driver-released', 'receiver/update-unknown-event', 'receiver/update-unknown-fields'].some(wanted);
        const released = needReleased ? await updates(wanted('receiver/update-driver-released') ? 'receiver/update-driver-released' : '-released', 'released the driver', () => sb.releaseDriver(key, { reason: 'vehicle breakdown' })) : [];
        const source = released[0] && { method: released[0].method, url: released[0].url, headers: released[0].headers, body: released[0].body };
        for (const [id, variant] of [['receiver/update-unknown-event', 'unknown-event'], ['receiver/update-unknown-fields', 'unknown-fields']]) {
          if (!wanted(id)) continue;
          if (unavailable) grade(id, { unavailable });
          else await direct(id, variant, source);
        }
        const needHandover = ['receiver/update-delivered', 'receiver/update-cancelled-after-handover'].some(wanted);
        if (needHandover) await updates(wanted('receiver/update-delivered') ? 'receiver/update-delivered' : '-delivered', 'confirmed the delivery', () => sb.deliver(key));
        await updates('receiver/update-cancelled-after-handover', 'refunded the order after its handover', () => sb.refund(key, { reason: 'refund' }));
        await updates('receiver/update-cancelled', 'cancelled an order for its customer', async () => {
          const other = await sb.createOrder({ store, autoAccept: true });
          const made = fresh();
          all.push(...made.map(exchangeOf));
          if (other.status !== words().Status.Preparing) throw new Error(`its order is ${other.status}, not Preparing (its creation webhook got ${made[0]?.status ?? 'no answer'})`);
          await sb.cancel(other.orderKey, { by: 'customer', reason: 'changed my mind' });
        });

        // The menu change webhook: the probe writes a store-local product itself (its own call,
        // left out of the client checks), applied at once.
        if (wanted('receiver/menu-change-answered')) {
          if (bounded()) unrun('receiver/menu-change-answered', 'inconclusive', `not run: the receiver checks' bound of ${RECEIVER_BOUND_MS / 1000} s was reached`);
          else await menuChange();
        }
        if (wanted('receiver/answer-latency')) grade('receiver/answer-latency', { exchanges: all });
      }

      async function menuChange() {
        const idem = p.uuid();
        ownKeys.push(idem);
        fresh();
        let status;
        let text;
        try {
          const res = await fetch(`${sb.url}/api/v1/menu/stores/${encodeURIComponent(store)}/products`, {
            method: 'POST',
            headers: { 'X-Service-Api-Key': sb.apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': idem, 'Content-Type': 'application/json' },
            body: JSON.stringify({ code: `PROBE-${idem.slice(0, 8)}`, name: 'poscheck probe item', price: 1, categoryCode: 'poscheck-probe' }),
          });
          status = res.status;
          text = await res.text();
        } catch (e) {
          text = e.message;
        }
        if (status !== 202) {
          return grade('receiver/menu-change-answered', { unavailable: `not run: the sandbox refused the probe's menu write (${status ?? 'no answer'}: ${String(text).slice(0, 200)})` });
        }
        const until = Date.now() + Math.min(10_000, left());
        let sent = [];
        while (Date.now() < until) {
          await sb.settle();
          sent = sent.concat(fresh().filter((d) => d.kind === 'menuChange'));
          if (sent.length) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const ex = sent.map(exchangeOf);
        all.push(...ex);
        grade('receiver/menu-change-answered', ex.length ? { exchanges: ex } : { unavailable: 'the menu change webhook was not sent within 10 s' });
      }

      // ---- client checks ----------------------------------------------------------------------
      const clientIds = allRules().filter((r) => r.side === 'client').map((r) => r.id);
      if (o.receiverOnly) {
        for (const id of clientIds) unrun(id, 'skipped', 'skipped: --receiver-only');
      } else if (clientIds.some(wanted)) {
        const after = lastSeq();
        if (Object.keys(o.faults).length) sb.setFaults({ ...o.faults, retryAfterSeconds: o.retryAfterSeconds, serverErrorsPrefix: '/api/v1/menu' });
        progress(`waiting up to ${o.wait} s for the POS's REST calls to ${sb.url}/api/v1/ (API key ${sb.apiKey.slice(0, 8)}…)`);
        const end = Date.now() + o.wait * 1000;
        let target;
        try {
          // The POS accepts this one by hand; the driver marks it ready the moment it does, so
          // that the POS's PUT status ready meets the 409 "already Ready".
          target = await sb.createOrder({ store, autoAccept: false, readyByDriverOnAccept: true, customerNote: 'poscheck probe: accept, then ready and handed_over' });
          // This one the customer cancels at once: what the POS then sends meets a terminal 409.
          const gone = await sb.createOrder({ store, autoAccept: false, customerNote: 'poscheck probe: cancelled by the customer' });
          await sb.cancel(gone.orderKey, { by: 'customer', reason: 'ordered by mistake' });
        } catch (e) {
          progress(`the sandbox could not place the client scenario's orders: ${e.message}`);
        }
        const final = new Set(words().merchantDone);
        let quietSince = Date.now();
        let count = 0;
        const quietMs = 1000 * o.retryAfterSeconds + 1500;
        while (Date.now() < end) {
          await new Promise((r) => setTimeout(r, 100));
          const n = sb.requests({ after }).length;
          if (n !== count) {
            count = n;
            quietSince = Date.now();
          }
          const status = target && sb.order(target.orderKey)?.status;
          if (status && final.has(status) && Date.now() - quietSince >= quietMs) break;
        }
        await sb.settle();
        const calls = sb.requests({ after });
        const graded = JSON.parse(raw.Probe.gradeClient(JSON.stringify({ calls, excludeKeys: ownKeys, waitSeconds: o.wait })));
        for (const c of graded) if (wanted(c.id)) record(c);
      }
      function lastSeq() {
        const calls = sb.requests();
        return calls.length ? calls[calls.length - 1].seq : 0;
      }

      const ordered = allRules().map((r) => checks.get(r.id) ?? JSON.parse(raw.Probe.unrun(r.id, 'skipped', o.only ? 'skipped: not in --only' : 'skipped')));
      return JSON.parse(raw.Probe.report(o.pos, Math.round(performance.now() - started), JSON.stringify(ordered), 'json'));
    } finally {
      agent.destroy();
      await sb.close();
    }
  }

  /** The report of probe() in `format`: 'text', 'json', 'junit' or 'markdown'. */
  function formatProbeReport(report, format = 'text') {
    if (!PROBE_FORMATS.includes(format)) throw invalid(`format must be one of ${PROBE_FORMATS.join(', ')}`);
    if (!report || !Array.isArray(report.checks)) throw invalid('formatProbeReport takes the report probe() resolved with');
    let checks;
    try {
      checks = JSON.stringify(report.checks);
    } catch (e) {
      throw invalid(`the report's checks cannot be read: ${e.message}`);
    }
    return raw.Probe.report(String(report.pos ?? ''), Number(report.durationMs) || 0, checks, format);
  }

  return { probe, probeRules, formatProbeReport };
}
