// A webhook receiver with exactly one verification mistake (issue 40), for the tests of the
// probe's diagnosis of a refused delivery. Written from the causes' descriptions (what a receiver
// making the mistake does), with node:http and node:crypto only, not from the variant code.
//
//   node tests/js/faulty-receiver.mjs CAUSE [--secret S] [--now UNIX_SECONDS] [--clock-offset S] [--ttl S]
//
// It listens on 127.0.0.1 (a free port) and prints {"url":"http://127.0.0.1:N","port":N} as its
// first stdout line. It stops by itself after --ttl seconds (default 120), on SIGTERM, or when its
// stdin closes. --now pins its clock (default: the real one); FAULTY_RECEIVER_SECRET and
// FAULTY_RECEIVER_NOW do the same as --secret and --now.
//
// Routes (the contract's three; anything else 404, another method 405), verified first (401 when
// the check fails), then deduplicated on X-Service-Delivery-Id:
//   POST /v1/order/{remoteId}                         200 { remoteOrderId: "R-<n>" }
//   PUT  /v1/order/{remoteId}/{remoteOrderId}/events  200 {}
//   POST /v1/menu/change/{changeKey}                  200 {}
// Controls: POST /control/config { secret } → 200 {} (until a secret is set, webhooks get 503);
//           GET /log → { received: [{ method, path, deliveryId, status }] } (the last 1,000).
//
// CAUSE (one mistake each; `correct` verifies as the contract says, `refuse-all` answers 401):
//   body-json-stringify       HMAC over JSON.stringify(JSON.parse(body))
//   body-python-spaced        HMAC over the body re-written with ", " and ": " separators
//   body-sorted-keys          HMAC over JSON.stringify of the parsed body with its keys sorted
//   body-compact              HMAC over the body with the whitespace outside strings removed
//   secret-trailing-newline   the secret read with a trailing "\n"
//   secret-trailing-crlf      the secret read with a trailing "\r\n"
//   secret-trailing-space     the secret read with a trailing space
//   secret-hex-decoded        the key is Buffer.from(secret, 'hex')
//   secret-base64-decoded     the key is Buffer.from(secret, 'base64')
//   signed-body-only          HMAC over the body alone
//   signed-without-dot        HMAC over the timestamp and the body without the dot
//   signature-uppercase-hex   expects "sha256=" + upper-case hex
//   signature-base64          expects "sha256=" + base64 of the digest
//   signature-without-prefix  expects the bare hex digest
//   timestamp-milliseconds    compares the header with Date.now() (milliseconds), window 300,000
//   clock-offset              its clock is --clock-offset seconds ahead (default 3600; negative: behind)
import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';

const CAUSES = new Set([
  'correct', 'refuse-all',
  'body-json-stringify', 'body-python-spaced', 'body-sorted-keys', 'body-compact',
  'secret-trailing-newline', 'secret-trailing-crlf', 'secret-trailing-space', 'secret-hex-decoded', 'secret-base64-decoded',
  'signed-body-only', 'signed-without-dot',
  'signature-uppercase-hex', 'signature-base64', 'signature-without-prefix',
  'timestamp-milliseconds', 'clock-offset',
]);
const WINDOW_SECONDS = 300;
const MAX_BODY = 1 << 20;
const MAX_LOG = 1000;

function usage(message) {
  process.stderr.write(`faulty-receiver.mjs: ${message}\nusage: node tests/js/faulty-receiver.mjs CAUSE [--secret S] [--now UNIX_SECONDS] [--clock-offset S] [--ttl S]\ncauses: ${[...CAUSES].join(', ')}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const cause = args.shift();
if (!CAUSES.has(cause)) usage(`unknown cause "${cause}"`);
const options = { secret: process.env.FAULTY_RECEIVER_SECRET ?? null, now: process.env.FAULTY_RECEIVER_NOW ?? null, clockOffset: '3600', ttl: '120' };
for (let i = 0; i < args.length; i++) {
  const name = { '--secret': 'secret', '--now': 'now', '--clock-offset': 'clockOffset', '--ttl': 'ttl' }[args[i]];
  if (!name || i + 1 >= args.length) usage(`unknown or incomplete argument "${args[i]}"`);
  options[name] = args[++i];
}
for (const k of ['now', 'clockOffset', 'ttl']) {
  if (options[k] !== null && !/^-?\d+$/.test(options[k])) usage(`--${k} must be a whole number, got "${options[k]}"`);
}
let secret = options.secret;
const pinned = options.now === null ? null : Number(options.now);
const clockOffset = cause === 'clock-offset' ? Number(options.clockOffset) : 0;

/** The receiver's clock, milliseconds (pinned, or the real one), with its offset. */
const nowMs = () => (pinned === null ? Date.now() : pinned * 1000) + clockOffset * 1000;

// ---- the body as the mistaken receivers re-write it ---------------------------------------------

/** Calls `visit(byte, inString)` for each byte of a JSON text. */
function scan(raw, visit) {
  let inString = false;
  let escaped = false;
  for (const b of raw) {
    const was = inString;
    if (inString) {
      if (escaped) escaped = false;
      else if (b === 0x5c) escaped = true;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    visit(b, was || inString);
  }
}

/** Whitespace outside strings removed. */
function compact(raw) {
  const out = [];
  scan(raw, (b, inString) => {
    if (inString || ![0x20, 0x09, 0x0a, 0x0d].includes(b)) out.push(b);
  });
  return Buffer.from(out);
}

/** Compact, then a space after every ',' and ':' outside strings (Python's json.dumps spacing). */
function pythonSpaced(raw) {
  const out = [];
  scan(compact(raw), (b, inString) => {
    out.push(b);
    if (!inString && (b === 0x2c || b === 0x3a)) out.push(0x20);
  });
  return Buffer.from(out);
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

// ---- verification, with the one mistake ---------------------------------------------------------

function header(req, name) {
  const v = req.headers[name];
  return Array.isArray(v) ? null : v ?? null;
}

/** null when the delivery verifies (for this receiver), else why not. */
function check(req, raw) {
  if (cause === 'refuse-all') return 'refuses everything';
  const ts = header(req, 'x-service-timestamp');
  const sig = header(req, 'x-service-signature-256');
  if (!ts || !sig) return 'missing header';
  if (!/^\d+$/.test(ts)) return 'malformed timestamp';
  const skew = cause === 'timestamp-milliseconds' ? Math.abs(nowMs() - Number(ts)) / 1000 : Math.abs(nowMs() / 1000 - Number(ts));
  if (skew > WINDOW_SECONDS) return 'timestamp outside the window';
  let key = Buffer.from(secret, 'utf8');
  if (cause === 'secret-trailing-newline') key = Buffer.from(`${secret}\n`, 'utf8');
  if (cause === 'secret-trailing-crlf') key = Buffer.from(`${secret}\r\n`, 'utf8');
  if (cause === 'secret-trailing-space') key = Buffer.from(`${secret} `, 'utf8');
  if (cause === 'secret-hex-decoded') key = Buffer.from(secret, 'hex');
  if (cause === 'secret-base64-decoded') key = Buffer.from(secret, 'base64');
  let body = raw;
  try {
    if (cause === 'body-json-stringify') body = Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))), 'utf8');
    if (cause === 'body-sorted-keys') body = Buffer.from(JSON.stringify(sortKeys(JSON.parse(raw.toString('utf8')))), 'utf8');
  } catch {
    return 'not JSON';
  }
  if (cause === 'body-compact') body = compact(raw);
  if (cause === 'body-python-spaced') body = pythonSpaced(raw);
  const hmac = createHmac('sha256', key);
  if (cause === 'signed-body-only') hmac.update(body);
  else if (cause === 'signed-without-dot') hmac.update(ts, 'utf8').update(body);
  else hmac.update(`${ts}.`, 'utf8').update(body);
  let expected;
  if (cause === 'signature-uppercase-hex') expected = `sha256=${hmac.digest('hex').toUpperCase()}`;
  else if (cause === 'signature-base64') expected = `sha256=${hmac.digest('base64')}`;
  else if (cause === 'signature-without-prefix') expected = hmac.digest('hex');
  else expected = `sha256=${hmac.digest('hex')}`;
  const a = Buffer.from(sig, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b) ? null : 'signature mismatch';
}

// ---- the server ---------------------------------------------------------------------------------

const log = [];
const answers = new Map(); // delivery id → [status, body], the last 10,000
let orders = 0;

function route(method, path) {
  const seg = path.split('?')[0].split('/').filter(Boolean);
  if (seg[0] !== 'v1') return null;
  if (seg[1] === 'order' && seg.length === 3) return { want: 'POST', kind: 'created' };
  if (seg[1] === 'order' && seg.length === 5 && seg[4] === 'events') return { want: 'PUT', kind: 'update' };
  if (seg[1] === 'menu' && seg[2] === 'change' && seg.length === 4) return { want: 'POST', kind: 'menu' };
  return null;
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= MAX_BODY) chunks.push(c);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const path = req.url ?? '/';
    if (path === '/log' && req.method === 'GET') return send(res, 200, { cause, received: log });
    if (path === '/control/config' && req.method === 'POST') {
      try {
        const s = JSON.parse(raw.toString('utf8')).secret;
        if (typeof s !== 'string' || s === '') throw new Error('no secret');
        secret = s;
        return send(res, 200, {});
      } catch (e) {
        return send(res, 400, { error: String(e.message) });
      }
    }
    const r = route(req.method, path);
    const deliveryId = header(req, 'x-service-delivery-id');
    const answer = (status, body) => {
      log.push({ method: req.method, path, deliveryId, status });
      if (log.length > MAX_LOG) log.shift();
      send(res, status, body);
    };
    if (!r) return answer(404, { error: 'NOT_FOUND' });
    if (r.want !== req.method) return answer(405, { error: 'METHOD_NOT_ALLOWED' });
    if (size > MAX_BODY) return answer(413, { error: 'TOO_LARGE' });
    if (secret === null) return answer(503, { error: 'NOT_CONFIGURED' });
    const why = check(req, raw);
    if (why) return answer(401, { error: 'UNAUTHORIZED', message: why });
    if (deliveryId && answers.has(deliveryId)) return answer(...answers.get(deliveryId));
    const reply = r.kind === 'created' ? [200, { remoteOrderId: `R-${++orders}` }] : [200, {}];
    if (deliveryId) {
      answers.set(deliveryId, reply);
      if (answers.size > 10_000) answers.delete(answers.keys().next().value);
    }
    return answer(...reply);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, port })}\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
};
setTimeout(stop, Number(options.ttl) * 1000).unref();
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
