// A POS written by hand for the parity suite (issue 43): node:http and node:crypto only, in the test
// process, one per face. It verifies every webhook as the contract says (HMAC-SHA256 over
// `timestamp + '.' + raw body`, the account's secret as UTF-8 key, `sha256=` + lowercase hex,
// compared in constant time; the timestamp from the header, within 300 s of this process's clock)
// and answers as the contract says:
//   POST /v1/order/{remoteId}                          200 { remoteOrderId: "POS-n" }
//   PUT  /v1/order/{remoteId}/{remoteOrderId}/events   200 {}
//   POST /v1/menu/change/{changeKey}                   200 {}
// A repeated X-Service-Delivery-Id gets the first answer again (at-least-once delivery). One
// programmed fault, so that the scenario sees a retry: the first attempt of a creation whose
// customerNote says "fail-once" is answered 503. A delivery that fails verification is answered
// 401 and recorded with `verified: false` (the suite asserts there is none).
import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why the delivery is not authentic, or null. */
export function verifySignature(secret, headers, raw) {
  const ts = headers['x-service-timestamp'];
  const sig = headers['x-service-signature-256'];
  if (typeof secret !== 'string') return 'no secret yet';
  if (typeof ts !== 'string' || !/^\d{1,12}$/.test(ts)) return 'missing or malformed X-Service-Timestamp';
  if (typeof sig !== 'string') return 'missing X-Service-Signature-256';
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > 300) return 'timestamp outside the 300 s window';
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ts}.`).update(raw).digest('hex')}`);
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature mismatch';
  return null;
}

/**
 * Starts the POS on 127.0.0.1, a free port: { url, port, attach(secret), take(), all(), close() }.
 * take() returns the deliveries received since the last take(), in arrival order.
 */
export async function startPos() {
  let secret = null;
  const received = [];
  let taken = 0;
  const handled = new Map(); // X-Service-Delivery-Id → the first answer
  let next = 1;

  function decide(req, url, raw) {
    const parts = url.pathname.split('/').filter(Boolean);
    const id = req.headers['x-service-delivery-id'];
    if (typeof id === 'string' && handled.has(id)) return { ...handled.get(id), repeat: true };
    let payload = null;
    try {
      payload = JSON.parse(raw.toString('utf8'));
    } catch {
      return { status: 400, value: { error: 'invalid JSON' } };
    }
    let answer;
    if (req.method === 'POST' && parts.length === 3 && parts[0] === 'v1' && parts[1] === 'order') {
      if (/fail-once/.test(payload?.customerNote ?? '') && !handled.has(`failed:${id}`)) {
        handled.set(`failed:${id}`, true);
        return { status: 503, value: { error: 'busy', message: 'try again' } };
      }
      answer = { status: 200, value: { remoteOrderId: `POS-${next++}` } };
    } else if (req.method === 'PUT' && parts.length === 5 && parts[0] === 'v1' && parts[1] === 'order' && parts[4] === 'events') {
      answer = { status: 200, value: {} };
    } else if (req.method === 'POST' && parts.length === 4 && parts[0] === 'v1' && parts[1] === 'menu' && parts[2] === 'change') {
      answer = { status: 200, value: {} };
    } else {
      return { status: 404, value: { error: 'no such route' } };
    }
    if (typeof id === 'string') handled.set(id, answer);
    return answer;
  }

  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= 1 << 22) chunks.push(c);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url, 'http://pos.invalid');
      const why = verifySignature(secret, req.headers, raw);
      const answer = why ? { status: 401, value: { error: 'unauthorized', message: why } } : decide(req, url, raw);
      const headers = {};
      for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('x-service-') || k === 'content-type') headers[k] = v;
      received.push({ method: req.method, path: req.url, headers, body: raw.toString('utf8'), verified: why === null, why, answer: { status: answer.status, body: answer.value } });
      const text = JSON.stringify(answer.value);
      res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    attach(s) {
      secret = s;
    },
    take() {
      const out = received.slice(taken);
      taken = received.length;
      return out;
    },
    all: () => received.slice(),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
