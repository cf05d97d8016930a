// A POS for the tests of the probe command: correct by default, or with exactly one fault
// (`--fault NAME`) the probe must find. Written by hand with node:http and node:crypto only (like
// sandbox-hand-pos.mjs), except with `--kit`, where the webhook side is the package's own receiver
// kit (createReceiver). Run in its own process:
//
//   node tests/js/probe-pos.mjs --serve [--fault NAME] [--kit] [--slow-ms N]
//
// It listens on 127.0.0.1 (a free port), prints {"port":N} as its first stdout line, and exits when
// its stdin closes or on SIGTERM. It calls no address but the configured sandbox URL (127.0.0.1).
//
// Controls:
//   POST /control/config  { sandboxUrl, apiKey, secret } → 200 {}; until then every webhook gets 503
//   GET  /log             { created, updates, refused, rest, … }; `?settled=1` first waits for the
//                         REST flows under way
//
// Webhooks (the contract's three routes; anything else 404), verified (401), then deduplicated on
// X-Service-Delivery-Id (a concurrent copy waits for the first one's answer; a later one gets the
// stored answer), then handled:
//   POST /v1/order/{remoteId}                           200 { remoteOrderId: "R-<n>" }; then, when
//                                                       expiresAt is not null and the customerNote
//                                                       does not say "ignore": accept, ready,
//                                                       handed_over through the REST API
//   PUT  /v1/order/{remoteId}/{remoteOrderId}/events    200 {} for any event
//   POST /v1/menu/change/{changeKey}                    200 {}
//
// Faults (each changes one behaviour): any-signature, reserialized, new-id-on-retry, handler-twice,
// unknown-event-500, slow (--slow-ms, default 300), reuse-key, ignore-retry-after. --kit ignores
// --fault.
import http from 'node:http';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

const FAULTS = new Set(['any-signature', 'reserialized', 'new-id-on-retry', 'handler-twice', 'unknown-event-500', 'slow', 'reuse-key', 'ignore-retry-after']);
const KNOWN_EVENTS = new Set(['cancelled', 'driver_assigned', 'driver_released', 'delivered']);
const WINDOW_SECONDS = 300;
const MAX_BODY = 1 << 20;
const REST_TIMEOUT_MS = 10_000;
const MAX_RETRIES = 5;
/** Every handler by hand takes this long before its answer is stored, so that copies of a delivery
 * sent together really overlap (in flight), in every mode alike. */
const HANDLER_PAUSE_MS = 20;

// ---- command line --------------------------------------------------------------------------------

function usage(message) {
  process.stderr.write(`probe-pos.mjs: ${message}\nusage: node tests/js/probe-pos.mjs --serve [--fault NAME] [--kit] [--slow-ms N]\nfaults: ${[...FAULTS].join(', ')}\n`);
  process.exit(2);
}

const options = { serve: false, kit: false, fault: null, slowMs: 300 };
{
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (name) => {
      if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
      if (i + 1 >= args.length) usage(`${name} needs a value`);
      return args[++i];
    };
    if (a === '--serve') options.serve = true;
    else if (a === '--kit') options.kit = true;
    else if (a === '--fault' || a.startsWith('--fault=')) {
      const name = value('--fault');
      if (!FAULTS.has(name)) usage(`unknown fault "${name}"`);
      options.fault = name;
    } else if (a === '--slow-ms' || a.startsWith('--slow-ms=')) {
      const v = value('--slow-ms');
      if (!/^\d+$/.test(v)) usage(`--slow-ms must be a whole number of milliseconds, got "${v}"`);
      options.slowMs = Number(v);
    } else usage(`unknown argument "${a}"`);
  }
  if (options.kit) options.fault = null;
}
const fault = options.fault;

// ---- state ---------------------------------------------------------------------------------------

/** { sandboxUrl, origin, apiKey, secret } once configured. */
let config = null;
const log = { created: [], updates: [], refused: [], rest: [], menuChanges: [], repeats: [], invalid: [], errors: [] };
/** REST flows under way (GET /log?settled=1 waits for them). */
const busy = new Set();
let next = 1;

/** X-Service-Delivery-Id → Promise of its answer (in flight, then settled: the stored answer). */
const deliveries = new Map();
/** handler-twice: X-Service-Delivery-Id → the answer, stored once answered (no in-flight entry). */
const answered = new Map();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

function send(res, status, text) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
const sendJson = (res, status, value) => send(res, status, JSON.stringify(value));

function decode(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parseJson(bytes) {
  try {
    return { ok: true, value: JSON.parse(Buffer.from(bytes).toString('utf8')) };
  } catch {
    return { ok: false, value: undefined };
  }
}

// ---- REST flow -----------------------------------------------------------------------------------

/** The sandbox URL of `path`; throws unless it stays on the configured origin. */
function restUrl(path) {
  const url = new URL(config.sandboxUrl.replace(/\/+$/, '') + path);
  if (url.origin !== config.origin) throw new Error(`refusing to call ${url.origin}: not the sandbox`);
  return url;
}

/** Milliseconds to wait on a 429, from its Retry-After (seconds, or an HTTP date); 1 s by default. */
function retryAfterMs(res) {
  if (fault === 'ignore-retry-after') return 50;
  const h = res.headers.get('retry-after');
  if (h !== null && /^\s*\d+(\.\d+)?\s*$/.test(h)) return Number(h) * 1000;
  const date = h === null ? NaN : Date.parse(h);
  if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  return 1000;
}

/**
 * One logical attempt: the call, then its retries with the same Idempotency-Key (429: after
 * Retry-After; 502/503: after 200 ms; at most 5 retries each). Every call is logged.
 */
async function restCall(method, path, body, key) {
  const { apiKey } = config;
  let on429 = 0;
  let on5xx = 0;
  for (;;) {
    let res;
    let text;
    try {
      res = await fetch(restUrl(path), {
        method,
        headers: {
          'X-Service-Api-Key': apiKey,
          'X-Service-Schema-Version': '1.0',
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
        },
        body: JSON.stringify(body),
        redirect: 'manual', // a redirect must not take it to another address
        signal: AbortSignal.timeout(REST_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (e) {
      log.rest.push({ method, path, key, status: null, body: null, error: e.message });
      return { status: null, json: null };
    }
    let json = null;
    if (text !== '') {
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
    }
    log.rest.push({ method, path, key, status: res.status, body: json });
    if (res.status === 429 && on429 < MAX_RETRIES) {
      on429++;
      await sleep(retryAfterMs(res));
      continue;
    }
    if ((res.status === 502 || res.status === 503) && on5xx < MAX_RETRIES) {
      on5xx++;
      await sleep(200);
      continue;
    }
    return { status: res.status, json };
  }
}

/** Accept, ready, handed_over: each a new logical attempt with a new key (reuse-key: one key). */
async function restFlow(orderKey) {
  const base = `/api/v1/Orders/${encodeURIComponent(orderKey)}`;
  const shared = fault === 'reuse-key' ? randomUUID() : null;
  const key = () => shared ?? randomUUID();
  const accepted = await restCall('POST', `${base}/accept`, {}, key());
  if (accepted.status !== 202) return;
  const ready = await restCall('PUT', `${base}/status`, { status: 'ready' }, key());
  const reached = ready.status === 202 || (ready.status === 409 && ready.json?.meta?.currentStatus === 'Ready');
  if (!reached) return;
  await restCall('PUT', `${base}/status`, { status: 'handed_over' }, key());
}

/** Runs `fn` on a later turn (after the answer is written); GET /log?settled=1 waits for it. */
function later(fn) {
  const p = new Promise((resolve) => setImmediate(resolve))
    .then(fn)
    .catch((e) => log.errors.push({ where: 'rest flow', message: e.message }));
  busy.add(p);
  p.finally(() => busy.delete(p));
}

/** Whether a creation payload asks for the REST flow: a store that accepts by hand, not "ignore". */
function wantsFlow(payload) {
  if (typeof payload?.orderKey !== 'string' || payload.orderKey === '') return false;
  if (payload.expiresAt === null) return false; // auto-accept store: the service accepts itself
  return !(typeof payload.customerNote === 'string' && /ignore/i.test(payload.customerNote));
}

// ---- webhooks by hand ----------------------------------------------------------------------------

/** The body with JSON whitespace outside strings removed (the reserialized fault's "minifier"). */
function minify(raw) {
  const out = Buffer.alloc(raw.length);
  let n = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (inString) {
      out[n++] = b;
      if (b === 0x5c && i + 1 < raw.length) out[n++] = raw[++i]; // an escape: keep the next byte as is
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) {
      inString = true;
      out[n++] = b;
    } else if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}

/** null when the delivery passes this POS's verification, else why not. */
function verify(headers, raw) {
  const ts = headers['x-service-timestamp'];
  const sig = headers['x-service-signature-256'];
  if (typeof ts !== 'string' || !/^\d+$/.test(ts)) return 'missing or malformed X-Service-Timestamp';
  if (typeof sig !== 'string') return 'missing X-Service-Signature-256';
  // The timestamp is the header's; the window is measured against this process's own clock.
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > WINDOW_SECONDS) return 'timestamp outside the 300 s window';
  if (fault === 'any-signature') {
    return /^sha256=[0-9a-f]{64}$/.test(sig) ? null : 'malformed X-Service-Signature-256';
  }
  const signed = fault === 'reserialized' ? minify(raw) : raw;
  const mac = createHmac('sha256', Buffer.from(config.secret, 'utf8')).update(`${ts}.`, 'utf8').update(signed).digest('hex');
  const expected = Buffer.from(`sha256=${mac}`, 'utf8');
  const given = Buffer.from(sig, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature mismatch';
  return null;
}

/** The route of a webhook request, or null (404). */
function routeOf(method, pathname) {
  let m;
  if (method === 'POST' && (m = pathname.match(/^\/v1\/order\/([^/]+)$/))) return { id: 'orderCreated', remoteId: decode(m[1]) };
  if (method === 'PUT' && (m = pathname.match(/^\/v1\/order\/([^/]+)\/([^/]+)\/events$/))) {
    return { id: 'orderUpdate', remoteId: decode(m[1]), remoteOrderId: decode(m[2]) };
  }
  if (method === 'POST' && (m = pathname.match(/^\/v1\/menu\/change\/([^/]+)$/))) return { id: 'menuChangeCompleted', changeKey: decode(m[1]) };
  return null;
}

/** The handler: resolves to { status, body (JSON text), after (a REST flow to run once answered) }. */
async function handle(route, raw, deliveryId) {
  if (fault === 'slow') await sleep(options.slowMs);
  const parsed = parseJson(raw);
  const payload = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? parsed.value : null;
  if (route.id === 'orderCreated') {
    if (payload === null) return { status: 400, body: JSON.stringify({ error: 'invalid JSON' }) };
    const remoteOrderId = `R-${next++}`;
    // The answer is stored only after this pause (handler-twice: the check-then-act race's window).
    await sleep(HANDLER_PAUSE_MS);
    log.created.push({
      deliveryId, remoteId: route.remoteId, orderKey: payload.orderKey ?? null, remoteOrderId,
      expiresAt: payload.expiresAt ?? null, customerNote: payload.customerNote ?? null,
    });
    const orderKey = payload.orderKey;
    return { status: 200, body: JSON.stringify({ remoteOrderId }), after: wantsFlow(payload) ? () => restFlow(orderKey) : null };
  }
  if (route.id === 'orderUpdate') {
    const event = payload?.event;
    await sleep(HANDLER_PAUSE_MS);
    log.updates.push({ deliveryId, remoteId: route.remoteId, remoteOrderId: route.remoteOrderId, event: event ?? null, payload });
    if (fault === 'unknown-event-500' && !KNOWN_EVENTS.has(event)) return { status: 500, body: JSON.stringify({ error: `unknown event ${JSON.stringify(event ?? null)}` }) };
    return { status: 200, body: '{}' };
  }
  await sleep(HANDLER_PAUSE_MS);
  log.menuChanges.push({ deliveryId, changeKey: route.changeKey, payload });
  return { status: 200, body: '{}' };
}

/** Never rejects: a thrown handler is a 500 (not stored: a retry runs it again). */
async function run(route, raw, deliveryId) {
  try {
    return await handle(route, raw, deliveryId);
  } catch (e) {
    log.errors.push({ where: route.id, deliveryId, message: e.message });
    return { status: 500, body: JSON.stringify({ error: 'handler failed' }) };
  }
}

async function webhookByHand(req, res, pathname, raw) {
  const started = Date.now();
  const reply = async (status, body) => {
    if (fault === 'slow') await sleep(started + options.slowMs - Date.now());
    send(res, status, body);
  };
  if (!config) return reply(503, JSON.stringify({ error: 'not configured' }));
  const route = routeOf(req.method, pathname);
  if (!route) return reply(404, JSON.stringify({ error: 'no such route' }));
  const why = verify(req.headers, raw);
  if (why) {
    log.refused.push({ method: req.method, path: req.url, deliveryId: req.headers['x-service-delivery-id'] ?? null, why });
    return reply(401, JSON.stringify({ error: 'unauthorized', message: why }));
  }
  const header = req.headers['x-service-delivery-id'];
  const id = typeof header === 'string' && header !== '' ? header : null;

  let outcome;
  let owner = true;
  if (id === null) {
    // Nothing to deduplicate on: processed every time.
    outcome = await run(route, raw, id);
  } else if (fault === 'handler-twice') {
    // Check, then act: a copy arriving while the first is in flight finds nothing and runs too.
    const stored = answered.get(id);
    if (stored) {
      owner = false;
      outcome = stored;
    } else {
      outcome = await run(route, raw, id);
      if (outcome.status === 200 && !answered.has(id)) answered.set(id, { status: outcome.status, body: outcome.body });
    }
  } else {
    // Atomic: the check and the claim happen in one turn (no await between them).
    const pending = deliveries.get(id);
    if (pending) {
      owner = false;
      outcome = await pending;
    } else {
      const p = run(route, raw, id);
      deliveries.set(id, p);
      outcome = await p;
      // Only a 200 is kept (a failure lets the retry run again); new-id-on-retry forgets every
      // delivery once answered.
      if (fault === 'new-id-on-retry' || outcome.status !== 200) {
        if (deliveries.get(id) === p) deliveries.delete(id);
      }
    }
  }
  if (!owner) log.repeats.push({ deliveryId: id, route: route.id, status: outcome.status });
  await reply(outcome.status, outcome.body);
  if (owner && outcome.after) later(outcome.after);
}

// ---- webhooks with the kit -----------------------------------------------------------------------

let kit = null; // the module, loaded with --kit only
let kitStore = null; // one store for every receiver (a reconfiguration keeps what was handled)
let receiver = null;

function makeReceiver(secret) {
  return kit.createReceiver({
    secret,
    store: kitStore,
    onOrderCreated: ({ payload, remoteId, delivery }) => {
      const remoteOrderId = `R-${next++}`;
      log.created.push({
        deliveryId: delivery.id, remoteId, orderKey: payload.orderKey ?? null, remoteOrderId,
        expiresAt: payload.expiresAt ?? null, customerNote: payload.customerNote ?? null,
      });
      if (wantsFlow(payload)) {
        const orderKey = payload.orderKey;
        // The kit writes the answer once this returns; the REST flow starts on a later turn.
        later(() => restFlow(orderKey));
      }
      return remoteOrderId;
    },
    onOrderUpdate: ({ payload, remoteId, remoteOrderId, delivery }) => {
      log.updates.push({ deliveryId: delivery.id, remoteId, remoteOrderId, event: payload?.event ?? null, payload });
    },
    onMenuChangeCompleted: ({ payload, changeKey, delivery }) => {
      log.menuChanges.push({ deliveryId: delivery.id, changeKey, payload });
    },
    onInvalid: ({ reason, route, remoteId, remoteOrderId, delivery, answer }) => {
      log.invalid.push({ reason, route, remoteId, remoteOrderId, deliveryId: delivery.id, status: answer.status });
    },
    onError: (err, info) => {
      log.errors.push({ where: info?.route ?? 'receiver', deliveryId: info?.deliveryId ?? null, code: info?.code ?? null, message: err?.message ?? String(err) });
    },
  });
}

function webhookWithKit(req, res) {
  if (!receiver) {
    req.resume();
    return sendJson(res, 503, { error: 'not configured' });
  }
  res.on('finish', () => {
    if (res.statusCode === 401) log.refused.push({ method: req.method, path: req.url, deliveryId: req.headers['x-service-delivery-id'] ?? null, why: 'kit: 401' });
  });
  return receiver.node(req, res);
}

// ---- server --------------------------------------------------------------------------------------

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function configure(body) {
  const parsed = parseJson(body);
  const c = parsed.value;
  if (!parsed.ok || c === null || typeof c !== 'object') return 'expected { sandboxUrl, apiKey, secret }';
  const { sandboxUrl, apiKey, secret } = c;
  if (typeof secret !== 'string' || secret === '') return 'secret must be a non-empty string';
  if (typeof apiKey !== 'string') return 'apiKey must be a string';
  let url;
  try {
    url = new URL(sandboxUrl);
  } catch {
    return 'sandboxUrl must be an absolute URL';
  }
  // This POS calls the sandbox only, and the sandbox runs on this machine.
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') return 'sandboxUrl must be an http://127.0.0.1 URL';
  if (kit) {
    try {
      receiver = makeReceiver(secret);
    } catch (e) {
      return `the kit refused the configuration: ${e.message}`;
    }
  }
  config = { sandboxUrl: String(sandboxUrl), origin: url.origin, apiKey, secret };
  return null;
}

const server = http.createServer(async (req, res) => {
  try {
    const { pathname, searchParams } = new URL(req.url, 'http://pos.invalid');
    if (pathname === '/control/config' || pathname === '/log') {
      const body = await readBody(req);
      if (req.method === 'POST' && pathname === '/control/config') {
        if (body === null) return sendJson(res, 413, { error: 'too large' });
        const why = configure(body);
        return why ? sendJson(res, 400, { error: why }) : sendJson(res, 200, {});
      }
      if (req.method === 'GET' && pathname === '/log') {
        if (searchParams.has('settled')) {
          while (busy.size > 0) await Promise.allSettled([...busy]);
        }
        return sendJson(res, 200, log);
      }
      return sendJson(res, 405, { error: 'method not allowed' });
    }
    if (options.kit) return webhookWithKit(req, res);
    const body = await readBody(req);
    if (body === null) return sendJson(res, 413, { error: 'too large' });
    return await webhookByHand(req, res, pathname, body);
  } catch (e) {
    log.errors.push({ where: 'server', message: e.message });
    return sendJson(res, 500, { error: e.message });
  }
});

let closing = false;
function shutdown() {
  if (closing) return;
  closing = true;
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}

// Serves only when asked: a `node --test` glob over tests/js may run this file too, and must not
// wait on a server that never stops.
if (options.serve) {
  if (options.kit) {
    kit = await import('../../pkg/dist/node.mjs');
    kitStore = kit.createMemoryStore();
  }
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  });
  process.on('SIGTERM', shutdown);
  process.stdin.on('end', shutdown);
  process.stdin.on('error', shutdown);
  process.stdin.resume();
} else {
  process.stdout.write('probe-pos.mjs: a POS for the probe tests; run it with --serve [--fault NAME] [--kit] [--slow-ms N]\n');
}
