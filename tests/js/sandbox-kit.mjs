// Shared by the sandbox tests (tests/js/sandbox*.test.mjs): the sandbox and the toolkit as the
// other rings load them, a REST client whose every answer goes through the toolkit's checkers, a
// POS built with the kit's own createReceiver, and the checks of the sandbox's own logs
// (deliveries signed and shaped per the contract, orders that pass checkOrder).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { pkg, root } from './helpers.mjs';

export { pkg, root };
export { createSandbox, SandboxError, CONTROL_PREFIX } from '../../pkg/dist/sandbox.mjs';

/** Every network wait of these tests is bounded: nothing hangs (no duration is asserted). */
export const NET_TIMEOUT_MS = 15_000;

const brief = (report) => JSON.stringify(report.diagnostics?.slice(0, 5) ?? report, null, 1);
/**
 * What the sandbox sends must be clean: no error and no warning. (A report is `ok` with warnings,
 * and classifyProblem files a status mismatch or a snake_case meta.currentStatus as warnings.)
 */
const clean = (report) => report.ok && report.errorCount === 0 && report.warningCount === 0;

/** The toolkit's payload kind of a 2xx answer of the order endpoints, from the method and path. */
export function answerKind(method, pathname) {
  const s = pathname.split('/').filter(Boolean);
  if (s[0] === 'api' && s[1] === 'v1' && s[2] === 'menu') {
    if (method === 'GET' && s[3] === 'stores' && s.length === 5) return 'storeMenu';
    if (method === 'GET' && s[3] === 'changes' && s.length === 5) return 'menuChange';
    if (method === 'GET' && s[3] === 'capabilities') return 'capabilities';
    if ((method === 'PUT' && s.length === 3) || s[3] === 'preview') return 'envelope';
    return 'menuWriteAccepted';
  }
  if (s[0] !== 'api' || s[1] !== 'v1' || s[2] !== 'Orders') return null;
  if (s.length === 3 && method === 'GET') return 'orderList';
  if (s.length === 4 && method === 'GET') return 'orderDetail';
  if (s.length === 5 && method === 'POST' && s[4] === 'accept') return 'acceptAnswer';
  if (s.length === 5 && method === 'POST' && s[4] === 'reject') return 'rejectAnswer';
  if (s.length === 5 && method === 'PUT' && s[4] === 'status') return 'statusAnswer';
  return null;
}

/**
 * Checks one answer of the sandbox's REST API with the toolkit: a problem (4xx/5xx) by
 * classifyProblem (its report on the problem body itself must be ok, its status the HTTP one); a
 * 2xx by validatePayload with the request path (and the kind it must be detected as); an order
 * detail also by checkOrder. Returns the parsed body.
 */
export function checkAnswer({ method, path, status, headers, text, contentType }) {
  const where = `${method} ${path.slice(0, 120)} → ${status}`;
  let json;
  assert.doesNotThrow(() => (json = JSON.parse(text)), `${where}: the body is JSON: ${text.slice(0, 200)}`);
  const pathname = path.replace(/^[a-z]+:\/\/[^/]*/i, '').split(/[?#]/)[0];
  if (status >= 400) {
    if (contentType !== undefined) assert.match(contentType ?? '', /^application\/problem\+json/, `${where}: a problem's Content-Type`);
    const c = pkg.classifyProblem({ status, headers, body: text });
    assert.ok(clean(c.report), `${where}: classifyProblem's report on the problem: ${brief(c.report)}\n${text.slice(0, 400)}`);
    assert.equal(json.status, status, `${where}: problem.status is the HTTP status`);
    for (const k of ['type', 'title', 'detail', 'traceId', 'meta']) assert.ok(k in json, `${where}: problem.${k} is present`);
    return json;
  }
  const kind = answerKind(method, pathname);
  const report = pkg.validatePayload(text, { path: pathname });
  assert.ok(clean(report), `${where}: validatePayload: ${brief(report)}\n${text.slice(0, 400)}`);
  if (kind) assert.equal(report.kind, kind, `${where}: checked as ${kind}`);
  if (kind === 'orderDetail') checkOrderDetail(json.data, where);
  return json;
}


/** checkOrder on an order detail (`data`): ok. */
export function checkOrderDetail(detail, where = 'order') {
  const report = pkg.checkOrder(JSON.stringify(detail));
  assert.ok(clean(report), `${where}: checkOrder on ${detail?.orderKey} (${detail?.status}): ${brief(report)}`);
}

/**
 * A REST client of the sandbox: every call is a real HTTP request with the contract's headers (a
 * fresh Idempotency-Key unless one is given), and every answer is checked by checkAnswer. `calls`
 * counts them.
 */
export function restClient(sb) {
  const client = {
    calls: 0,
    async call(method, path, { body, apiKey = sb.apiKey, idempotencyKey, headers: extra = {}, omit = [] } = {}) {
      const headers = { 'X-Service-Api-Key': apiKey, 'X-Service-Schema-Version': '1.0', 'Idempotency-Key': idempotencyKey ?? randomUUID(), 'Content-Type': 'application/json', ...extra };
      if (method === 'GET') for (const h of ['X-Service-Schema-Version', 'Idempotency-Key', 'Content-Type']) delete headers[h];
      for (const h of omit) delete headers[h];
      const sent = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const res = await fetch(sb.url + path, { method, headers, body: sent, signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
      const text = await res.text();
      client.calls++;
      const json = checkAnswer({ method, path, status: res.status, headers: res.headers, text, contentType: res.headers.get('content-type') });
      return { status: res.status, headers: res.headers, text, json, data: json.data };
    },
    get: (path, o) => client.call('GET', path, o),
    accept: (key, o) => client.call('POST', `/api/v1/Orders/${key}/accept`, { body: {}, ...o }),
    reject: (key, reasonCode, o) => client.call('POST', `/api/v1/Orders/${key}/reject`, { body: { reasonCode, message: 'from the test' }, ...o }),
    status: (key, status, o) => client.call('PUT', `/api/v1/Orders/${key}/status`, { body: { status }, ...o }),
    detail: (key, o) => client.call('GET', `/api/v1/Orders/${key}`, o),
  };
  return client;
}

/**
 * Checks what the sandbox logged: every delivery attempt verifies with the toolkit's
 * verifyWebhook and its body validates for its path; every REST call it answered (whoever made
 * it) passes checkAnswer; every order passes checkOrder.
 */
export function checkSandboxLogs(sb) {
  for (const d of sb.deliveries()) {
    const where = `delivery ${d.deliveryId} #${d.attempt} ${d.kind} ${d.url}`;
    const verified = pkg.verifyWebhook({ body: d.body, headers: d.headers, secret: sb.secret });
    assert.equal(verified.deliveryId, d.deliveryId, where);
    const path = new URL(d.url).pathname;
    const report = pkg.validatePayload(d.body, { path });
    assert.ok(clean(report), `${where}: validatePayload: ${brief(report)}\n${d.body.slice(0, 400)}`);
    const body = JSON.parse(d.body);
    if (d.kind === 'menuChange') {
      assert.equal(report.kind, 'menuChangeCompleted', where);
      assert.equal(d.method, 'POST', where);
      assert.equal(path, `/v1/menu/change/${body.changeKey}`, where);
      assert.equal(verified.eventType, null, `${where}: no X-Service-Event-Type on the menu change webhook`);
    } else if (d.kind === 'orderCreated') {
      assert.equal(report.kind, 'orderCreated', where);
      assert.equal(d.method, 'POST', where);
      assert.match(path, /^\/v1\/order\/[^/]+$/, where);
      assert.equal(verified.eventType, 'order.created', where);
    } else {
      assert.equal(report.kind, 'orderUpdateEvent', where);
      assert.equal(d.method, 'PUT', where);
      const m = path.match(/^\/v1\/order\/([^/]+)\/([^/]+)\/events$/);
      assert.ok(m, `${where}: the /events route`);
      assert.equal(decodeURIComponent(m[2]), body.remoteOrderId, `${where}: the path's remoteOrderId`);
      assert.equal(verified.eventType, null, `${where}: no X-Service-Event-Type on the update webhook`);
    }
  }
  // The request log keeps the answer's body, status and Retry-After.
  for (const r of sb.requests()) {
    const headers = r.retryAfter === null ? {} : { 'Retry-After': String(r.retryAfter) };
    checkAnswer({ method: r.method, path: r.path, status: r.status, headers, text: r.answer });
  }
  for (const o of sb.orders()) checkOrderDetail(o, 'sb.orders()');
}

// ---- a POS on node:http built with the kit's createReceiver -------------------------------------

/**
 * A POS made with createReceiver on node:http. The receiver is made once the secret is known
 * (`attach(secret)`: the sandbox needs the POS's URL first). `failCreations`: the creation
 * handler throws that many times first (the receiver answers 500). `onCreated(payload)` runs after
 * the answer is decided (e.g. to accept through the REST API).
 */
export async function startKitPos(t, { failCreations = 0 } = {}) {
  let receiver = null;
  const pos = {
    created: [],
    updates: [],
    menuChanges: [],
    failures: 0,
    url: '',
    attach(secret) {
      receiver = pkg.createReceiver({
        secret,
        onError: () => {},
        onOrderCreated: ({ payload, delivery }) => {
          if (pos.failures < failCreations) {
            pos.failures++;
            throw new Error('the POS database is down');
          }
          const remoteOrderId = `POS-${pos.created.length + 1}`;
          pos.created.push({ orderKey: payload.orderKey, deliveryId: delivery.id, remoteOrderId, payload });
          return remoteOrderId;
        },
        onOrderUpdate: ({ payload, delivery, remoteOrderId }) => {
          pos.updates.push({ ...payload, deliveryId: delivery.id, pathRemoteOrderId: remoteOrderId });
        },
        onMenuChangeCompleted: ({ payload, delivery }) => {
          pos.menuChanges.push({ ...payload, deliveryId: delivery.id });
        },
      });
    },
    events: (orderKey) => pos.updates.filter((u) => u.orderKey === orderKey).map((u) => u.event),
  };
  const server = http.createServer((req, res) => {
    if (!receiver) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"not ready"}');
    return receiver.node(req, res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  pos.url = `http://127.0.0.1:${server.address().port}`;
  t.after(() => new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  }));
  return pos;
}

// ---- raw HTTP, for requests fetch will not send --------------------------------------------------

/**
 * Writes `bytes` (a whole HTTP/1.1 request, or its head and a body) on a fresh socket and reads one
 * answer: { status, headers, body, closed }. Rejects after NET_TIMEOUT_MS (a hang) or when the
 * connection closes without an answer.
 */
export function rawRequest(port, bytes) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let done = false;
    let parsed = null;
    const timer = setTimeout(() => finish(new Error(`no answer within ${NET_TIMEOUT_MS} ms`)), NET_TIMEOUT_MS);
    function finish(err, value) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    }
    function tryParse(closed) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return closed ? finish(new Error(`the connection closed without an answer: ${JSON.stringify(buf.toString('latin1').slice(0, 200))}`)) : undefined;
      if (!parsed) {
        const [line, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
        const headers = {};
        for (const l of lines) {
          const i = l.indexOf(':');
          headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        parsed = { status: Number(line.split(' ')[1]), headers };
      }
      const length = Number(parsed.headers['content-length'] ?? NaN);
      const body = buf.subarray(end + 4);
      if (Number.isFinite(length) && body.length >= length) {
        finish(null, { ...parsed, body: body.subarray(0, length).toString('utf8'), closed: closed || parsed.headers.connection === 'close' });
      } else if (closed) {
        finish(null, { ...parsed, body: body.toString('utf8'), closed: true });
      }
    }
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      tryParse(false);
    });
    socket.on('close', () => tryParse(true));
    socket.on('error', () => tryParse(true));
    socket.on('connect', () => {
      socket.write(bytes, () => {});
    });
  });
}

/**
 * Sends one request with node:http (no keep-alive) and reads the answer even when the server
 * answers early and closes (413): { status, headers, text, closed } where `closed` says the server
 * closed the connection.
 */
export function sendBody(url, method, path, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(path, url);
    // A keep-alive agent: a closed connection is then the server's doing.
    const agent = new http.Agent({ keepAlive: true });
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: { ...headers, 'Content-Length': String(body.length) }, agent });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${NET_TIMEOUT_MS} ms`)), NET_TIMEOUT_MS);
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const socket = res.socket;
        const settle = (closed) => {
          clearTimeout(timer);
          agent.destroy();
          resolve({ status: res.statusCode, headers: res.headers, text, closed });
        };
        if (!socket || socket.destroyed) return settle(true);
        const t2 = setTimeout(() => settle(false), 5_000);
        socket.once('close', () => {
          clearTimeout(t2);
          settle(true);
        });
      });
      res.on('error', (e) => (answered ? undefined : reject(e)));
    });
    req.on('error', (err) => {
      if ((err.code === 'EPIPE' || err.code === 'ECONNRESET') && answered) return;
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

/** Waits until `predicate()` holds (polling), failing after `ms` with `what`. Never times a result. */
export async function until(predicate, what, ms = NET_TIMEOUT_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
