// A POS written by hand, as a developer without poscheck writes one: node:http and node:crypto
// only. Run in its own process by tests/js/sandbox.test.mjs (`node sandbox-hand-pos.mjs --serve`); it
// prints {"port":N} on its first stdout line.
//
// Webhooks (the contract's routes):
//   POST /v1/order/{remoteId}                       creation: 200 { remoteOrderId }, then it accepts the
//                                                   order through the REST API (or rejects it when the
//                                                   customerNote says "reject"; "ignore": does nothing)
//   PUT  /v1/order/{remoteId}/{remoteOrderId}/events   update: recorded, 200
// Each is verified by hand (HMAC-SHA256 over timestamp + '.' + raw body, constant-time compare,
// |now - timestamp| <= 300) and deduplicated on X-Service-Delivery-Id (a repeat gets the first
// answer and is not processed again).
// Test controls:
//   POST /control/config  { sandboxUrl, apiKey, secret }
//   POST /control/status  { orderKey, status }: PUT status through the REST API; answers its result
//   GET  /log             what it received and called, once its own REST calls have settled
import http from 'node:http';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

let config = null;
/** X-Service-Delivery-Id → the first answer given. */
const handled = new Map();
const log = { created: [], updates: [], refused: [], repeats: [], rest: [] };
const busy = new Set();
let next = 1;

/** null when the delivery is authentic, else why not. */
function verify(headers, raw) {
  const ts = headers['x-service-timestamp'];
  const sig = headers['x-service-signature-256'];
  if (typeof ts !== 'string' || !/^\d{1,12}$/.test(ts)) return 'missing or malformed X-Service-Timestamp';
  if (typeof sig !== 'string') return 'missing X-Service-Signature-256';
  // The timestamp is the header's; the window is measured against this process's own clock.
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > 300) return 'timestamp outside the 300 s window';
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(config.secret, 'utf8')).update(`${ts}.`).update(raw).digest('hex')}`);
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature mismatch';
  return null;
}

async function rest(method, path, body) {
  const res = await fetch(config.sandboxUrl + path, {
    method,
    headers: {
      'X-Service-Api-Key': config.apiKey,
      'X-Service-Schema-Version': '1.0',
      'Idempotency-Key': randomUUID(),
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const entry = { method, path, status: res.status, body: text ? JSON.parse(text) : null };
  log.rest.push(entry);
  return entry;
}

/** Runs a REST call after the current answer; /log waits for it. */
function later(fn) {
  const p = new Promise((resolve) => setImmediate(resolve)).then(fn).catch((e) => log.rest.push({ error: e.message }));
  busy.add(p);
  p.finally(() => busy.delete(p));
}

function answer(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function webhook(req, res, raw, parts) {
  if (!config) return answer(res, 503, { error: 'not configured' });
  const why = verify(req.headers, raw);
  if (why) {
    log.refused.push({ path: req.url, why });
    return answer(res, 401, { error: 'unauthorized', message: why });
  }
  const id = req.headers['x-service-delivery-id'];
  if (typeof id === 'string' && handled.has(id)) {
    log.repeats.push(id);
    const first = handled.get(id);
    return answer(res, first.status, first.value);
  }
  let payload;
  try {
    payload = JSON.parse(raw.toString('utf8'));
  } catch {
    return answer(res, 400, { error: 'invalid JSON' });
  }
  let status = 200;
  let value = {};
  if (req.method === 'POST' && parts.length === 3) {
    const remoteOrderId = `HAND-${next++}`;
    log.created.push({ deliveryId: id, remoteId: decodeURIComponent(parts[2]), orderKey: payload.orderKey, remoteOrderId, customerNote: payload.customerNote ?? null });
    value = { remoteOrderId };
    const note = payload.customerNote ?? '';
    if (/reject/i.test(note)) later(() => rest('POST', `/api/v1/Orders/${payload.orderKey}/reject`, { reasonCode: 'ITEM_OUT_OF_STOCK', message: 'no more buns' }));
    // An auto-accept store's order (expiresAt null) is accepted by the service itself.
    else if (!/ignore/i.test(note) && payload.expiresAt !== null) later(() => rest('POST', `/api/v1/Orders/${payload.orderKey}/accept`, {}));
  } else if (req.method === 'PUT' && parts.length === 5 && parts[4] === 'events') {
    log.updates.push({ deliveryId: id, remoteId: decodeURIComponent(parts[2]), remoteOrderId: decodeURIComponent(parts[3]), event: payload.event, payload });
  } else {
    status = 404;
    value = { error: 'no such route' };
  }
  if (typeof id === 'string') handled.set(id, { status, value });
  return answer(res, status, value);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= 1 << 20) chunks.push(c);
  });
  req.on('end', async () => {
    if (size > 1 << 20) return answer(res, 413, { error: 'too large' });
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url, 'http://pos.invalid');
    const parts = url.pathname.split('/').filter(Boolean);
    try {
      if (parts[0] === 'v1' && parts[1] === 'order') return webhook(req, res, raw, parts);
      if (req.method === 'POST' && url.pathname === '/control/config') {
        config = JSON.parse(raw.toString('utf8'));
        return answer(res, 200, { ok: true });
      }
      if (req.method === 'POST' && url.pathname === '/control/status') {
        const { orderKey, status } = JSON.parse(raw.toString('utf8'));
        return answer(res, 200, await rest('PUT', `/api/v1/Orders/${orderKey}/status`, { status }));
      }
      if (req.method === 'GET' && url.pathname === '/log') {
        await Promise.allSettled([...busy]);
        return answer(res, 200, log);
      }
      return answer(res, 404, { error: 'no such route' });
    } catch (e) {
      return answer(res, 500, { error: e.message });
    }
  });
});

// Serves only when asked: `node --test tests/js/sandbox*.mjs` runs this file too, and must not wait
// on a server that never stops.
if (process.argv.includes('--serve')) {
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  });
} else {
  process.stdout.write('sandbox-hand-pos.mjs: a POS for tests/js/sandbox.test.mjs; run it with --serve\n');
}
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
