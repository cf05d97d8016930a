// The parity scenario of issue 43, written once: a black-box HTTP conversation with a sandbox (the
// npm face or the native face, each in its own process), and the deliveries a hand-written POS
// (./pos.mjs) received during it. runScenario() returns the raw transcript; normalize() replaces
// only what a face may legitimately change (the ports, the wall-clock signing timestamp and the
// signature made from it, after verifying it, the latency of a delivery, and the origin of the
// manual clock, which starts at the wall time of the process's start); compareTranscripts() names
// the first step where two normalized transcripts differ.
//
// Everything else must be equal: ids come from the seeded generator and times from the manual
// clock, both of the one model (poscheck::service), so the same seed and the same steps give the
// same bytes.
import { createHmac } from 'node:crypto';
import net from 'node:net';
import { verifySignature } from './pos.mjs';

/** Every network wait is bounded; nothing asserts a duration. */
const NET_TIMEOUT_MS = 10_000;
/** The answer headers that are the connection's, not the answer's. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** A fixed UUID v4 per call, so that the request bytes (and their journal) are the same per face. */
const uuid = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A full menu submission: `n` products in one category, sharing the SIZE group (tests/js/sandbox-menu.test.mjs). */
export function menu(n, { priceBump = 0, image = true } = {}) {
  const size = {
    remoteCode: 'SIZE', name: 'Size', min: 1, max: 1, type: 'radio', options: [
      { remoteCode: 'SIZE-S', name: 'Small', price: 0, isDefault: true, maxPerOrder: 1 },
      { remoteCode: 'SIZE-L', name: 'Large', price: 1.5, isDefault: false, maxPerOrder: 1 },
    ],
  };
  const products = Array.from({ length: n }, (_, i) => ({
    remoteCode: `BURGER-${i}`, name: `Burger ${i}`, description: 'Made to order', price: 8 + i + priceBump, tax: 0.18, maxPerOrder: 10,
    ...(image ? { image: `https://cdn.example.com/menu/burger-${i}.png` } : {}), modifierGroups: [size],
  }));
  return { categories: [{ remoteCode: 'BURGERS', name: 'Burgers', position: 0, products }] };
}

/**
 * The origin of the manual clock for a run: the UTC midnight after tomorrow's, unix seconds. The
 * caller computes it once, before starting the faces, and gives both the same.
 */
export function nextOrigin(nowMs = Date.now()) {
  const day = 86_400;
  return (Math.floor(nowMs / 1000 / day) + 2) * day;
}

/**
 * Runs the scenario against one sandbox.
 * `base`: the sandbox's origin (http://127.0.0.1:PORT); `apiKey`, `secret`, `stores`: the banner's
 * coordinates; `pos`: the POS of ./pos.mjs that the sandbox's --pos points at; `origin`: where
 * the manual clock is moved first (nextOrigin(), computed once for both faces).
 * Returns { base, posUrl, secret, origin, steps }: each step { n, name, request, status, headers,
 * body, deliveries }.
 */
export async function runScenario({ base, apiKey, secret, stores, pos, origin = nextOrigin() }) {
  const store1 = stores.find((s) => !s.autoAccept)?.remoteId;
  const store2 = stores.find((s) => s.autoAccept)?.remoteId;
  if (!store1 || !store2) throw new Error(`the scenario needs a store without and one with autoAccept: ${JSON.stringify(stores)}`);
  pos.attach(secret);
  const steps = [];
  let keys = 0;
  const key = () => uuid(++keys);

  /** One HTTP exchange, recorded as a step; resolves with the parsed body. */
  async function call(name, method, path, { body, headers = {}, record = true, requestNote } = {}) {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    let res;
    let raw;
    try {
      res = await fetch(base + path, { method, headers, body: text, redirect: 'manual', signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
      raw = await res.text();
    } catch (e) {
      // No answer (a reset, a timeout): recorded as such, so that the comparison names the step.
      const step = { n: steps.length + 1, name, request: { method, path, headers, body: requestNote ?? body ?? null }, status: 'no answer', headers: {}, body: { error: e.cause?.code ?? e.name }, deliveries: pos.take() };
      if (record) steps.push(step);
      return null;
    }
    const type = res.headers.get('content-type') ?? '';
    let parsed = raw;
    if (/json/.test(type)) {
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = { unparsedJson: raw };
      }
    }
    const answerHeaders = {};
    for (const [k, v] of res.headers) if (!TRANSPORT_HEADERS.has(k)) answerHeaders[k] = v;
    const step = {
      n: steps.length + 1,
      name,
      request: {
        method,
        path,
        headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, k === 'X-Service-Api-Key' ? (v === apiKey ? '<the key>' : v) : v])),
        body: requestNote ?? (text === undefined ? null : typeof body === 'string' ? body : body),
      },
      status: res.status,
      headers: answerHeaders,
      body: parsed,
      deliveries: pos.take(),
    };
    if (record) steps.push(step);
    return parsed;
  }

  /** Bytes written on one connection as they are (pipelined requests, a line that is not HTTP); the answers read until the server closes. */
  async function raw(name, lines, { halfClose = false } = {}) {
    const { host, port } = new URL(base);
    const bytes = lines.join('').replaceAll('{HOST}', host).replaceAll('{KEY}', apiKey);
    const answers = await new Promise((resolve) => {
      const chunks = [];
      // As a client does: written, then read until the server closes (the last request says
      // Connection: close); halfClose ends the writing side too (a body cut short).
      const socket = net.connect(Number(port), '127.0.0.1', () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
      socket.setTimeout(NET_TIMEOUT_MS, () => socket.destroy());
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', () => {});
      socket.on('close', () => resolve(splitAnswers(Buffer.concat(chunks))));
    });
    steps.push({ n: steps.length + 1, name, request: { method: 'RAW', path: '(one connection)', headers: {}, body: lines.map((l) => l.replaceAll('{HOST}', '<host>').replaceAll('{KEY}', '<the key>')) }, status: answers.map((a) => a.status).join(','), headers: {}, body: answers, deliveries: pos.take() });
  }

  const restHeaders = (extra = {}) => ({ 'X-Service-Api-Key': apiKey, ...extra });
  const mutation = (idem = key(), extra = {}) => ({
    'X-Service-Api-Key': apiKey,
    'X-Service-Schema-Version': '1.0',
    'Idempotency-Key': idem,
    'Content-Type': 'application/json',
    ...extra,
  });
  const get = (name, path, extra) => call(name, 'GET', path, { headers: restHeaders(extra) });
  const rest = (name, method, path, body, { idem, headers } = {}) => call(name, method, path, { body, headers: headers ?? mutation(idem) });
  const control = (name, method, path, body) =>
    call(name, method, `/_sandbox${path}`, { body: body === undefined ? undefined : body, headers: body === undefined ? {} : { 'Content-Type': 'application/json' } });

  // ---- 0. the clock's origin: the manual clock starts at the wall time of the process's start,
  // so each face is moved to the one origin the caller gives both (a whole minute, so that the
  // fixed rate window, whole minutes of the clock, falls alike): then every time of the scenario,
  // and every byte that holds one (an idempotency fingerprint over a body with an occurredAt), is
  // the same. Not recorded: the distance differs.
  const clock = await call('clock', 'GET', '/_sandbox/clock', { record: false });
  if (!Number.isInteger(origin) || origin % 60 !== 0 || origin < clock?.now) throw new Error(`origin ${origin}: a whole minute, not before the sandbox's clock (${clock?.now})`);
  const aligned = await call('align', 'POST', '/_sandbox/advance', { body: { seconds: origin - clock.now }, headers: { 'Content-Type': 'application/json' }, record: false });
  if (aligned?.now !== origin) throw new Error(`the clock did not move to ${origin}: ${JSON.stringify(aligned)}`);
  let now = origin;
  const advance = async (seconds, name = `advance ${seconds} s`) => {
    const r = await control(name, 'POST', '/advance', { seconds });
    now = typeof r?.now === 'number' ? r.now : now + seconds;
    return r;
  };
  const iso = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
  await control('info', 'GET', '/');
  await control('clock', 'GET', '/clock');

  // ---- 1. authentication, and requests the model refuses before it runs anything --------------
  await call('no API key: 401', 'GET', '/api/v1/Orders');
  await get('a wrong API key: 401', '/api/v1/Orders', { 'X-Service-Api-Key': 'sbx_key_not-the-key' });
  await get('an unknown order: 404', '/api/v1/Orders/ord_0000000000000000');
  await get('an unknown route: 404', '/api/v1/Nothing');
  await get('the empty list', '/api/v1/Orders');
  // Routes at the edge of the contract's letter, where a router of one face could answer otherwise.
  await call('HEAD the list', 'HEAD', '/api/v1/Orders', { headers: restHeaders() });
  await call('OPTIONS the list', 'OPTIONS', '/api/v1/Orders', { headers: restHeaders() });
  await call('DELETE an order', 'DELETE', '/api/v1/Orders/ord_0000000000000000', { headers: restHeaders() });
  await get('the list in lower case', '/api/v1/orders');
  await get('the list with a trailing slash', '/api/v1/Orders/');
  await get('a percent-encoded order key', '/api/v1/Orders/ord_%30000000000000000');
  await get('PageSize not a number', '/api/v1/Orders?PageSize=abc');
  await get('Status twice', '/api/v1/Orders?Status=Pending&Status=Cancelled');
  await get('a query without a value', '/api/v1/Orders?PageSize&x=1');

  // ---- 2. an order: idempotency, accept, status, the driver's delivery, a refund --------------
  const k1 = (await control('a customer orders (store 1)', 'POST', '/orders', { store: store1 }))?.orderKey;
  await rest('accept without X-Service-Schema-Version: 400', 'POST', `/api/v1/Orders/${k1}/accept`, {}, { headers: { 'X-Service-Api-Key': apiKey, 'Idempotency-Key': key(), 'Content-Type': 'application/json' } });
  await rest('accept without Idempotency-Key: 422', 'POST', `/api/v1/Orders/${k1}/accept`, {}, { headers: { 'X-Service-Api-Key': apiKey, 'X-Service-Schema-Version': '1.0', 'Content-Type': 'application/json' } });
  await rest('accept with a body that is not JSON', 'POST', `/api/v1/Orders/${k1}/accept`, '{"', {});
  const acceptKey = key();
  await rest('accept: 202', 'POST', `/api/v1/Orders/${k1}/accept`, {}, { idem: acceptKey });
  await rest('accept again, the same key and body: the replay', 'POST', `/api/v1/Orders/${k1}/accept`, {}, { idem: acceptKey });
  await rest('the same key, another body: 422 idempotency-conflict', 'POST', `/api/v1/Orders/${k1}/accept`, '{ }', { idem: acceptKey });
  await rest('a remoteOrderId in the accept body: 422', 'POST', `/api/v1/Orders/${k1}/accept`, { remoteOrderId: 'X-1' });
  await rest('accept again, a fresh key', 'POST', `/api/v1/Orders/${k1}/accept`, {});
  await rest('status preparing after accept: 409', 'PUT', `/api/v1/Orders/${k1}/status`, { status: 'preparing' });
  await rest('status cancelled: not accepted', 'PUT', `/api/v1/Orders/${k1}/status`, { status: 'cancelled' });
  await advance(30);
  await rest('status ready, occurredAt 2 days ago (clamped)', 'PUT', `/api/v1/Orders/${k1}/status`, { status: 'ready', occurredAt: iso(now - 2 * 86_400) });
  await rest('status ready again: 409 currentStatus Ready', 'PUT', `/api/v1/Orders/${k1}/status`, { status: 'ready' });
  await advance(60);
  await rest('status handed_over, occurredAt 10 s ago', 'PUT', `/api/v1/Orders/${k1}/status`, { status: 'handed_over', occurredAt: iso(now - 10) });
  await control('the driver delivers', 'POST', `/orders/${k1}/deliver`, {});
  await get('the detail after delivery', `/api/v1/Orders/${k1}`);
  await control('a refund after handover', 'POST', `/orders/${k1}/refund`, { reason: 'incident: spilled drink' });
  await control('refund again: not applicable', 'POST', `/orders/${k1}/refund`, { reason: 'twice' });

  // ---- 3. reject ---------------------------------------------------------------------------
  const k2 = (await control('a pickup order (store 1)', 'POST', '/orders', { store: store1, type: 'pickup', customerNote: 'no onions' }))?.orderKey;
  await rest('reject without reasonCode: 422', 'POST', `/api/v1/Orders/${k2}/reject`, { message: 'why not' });
  await rest('reject with an unknown reasonCode: normalized', 'POST', `/api/v1/Orders/${k2}/reject`, { reasonCode: 'KITCHEN_ON_FIRE', message: 'no more buns' });
  await rest('accept a rejected order: 409 terminal', 'POST', `/api/v1/Orders/${k2}/accept`, {});
  await get('the rejected detail', `/api/v1/Orders/${k2}`);

  // ---- 4. the acceptance timeout on the manual clock (timeoutJobDelaySeconds 30) -----------
  const k3 = (await control('an order nobody accepts', 'POST', '/orders', { store: store1, express: true }))?.orderKey;
  await advance(299);
  await get('one second before expiresAt: Pending', `/api/v1/Orders/${k3}`);
  await advance(2);
  await rest('accept after expiresAt, still Pending: 409 acceptance-timeout', 'POST', `/api/v1/Orders/${k3}/accept`, {});
  await control('the clock', 'GET', '/clock');
  await advance(30, 'advance to the timeout job');
  await get('cancelled by the system', `/api/v1/Orders/${k3}`);
  await rest('accept a cancelled order: 409', 'POST', `/api/v1/Orders/${k3}/accept`, {});

  // ---- 5. an auto-accept store and the driver cycle ---------------------------------------
  const k4 = (await control('a customer orders (auto-accept store)', 'POST', '/orders', { store: store2, payment: 'cash' }))?.orderKey;
  await control('a driver is assigned', 'POST', `/orders/${k4}/assign-driver`, { fullName: 'Ana Lima', phone: '+5511999990000', code: 'DRV-1' });
  await advance(45);
  await control('another driver: reassigned', 'POST', `/orders/${k4}/assign-driver`, { fullName: 'Bruno Reis', code: 'DRV-2' });
  await control('the driver is released', 'POST', `/orders/${k4}/release-driver`, { reason: 'vehicle breakdown' });
  await control('release again: not applicable', 'POST', `/orders/${k4}/release-driver`, {});
  await control('a third driver', 'POST', `/orders/${k4}/assign-driver`, { fullName: 'Carla Dias' });
  await control('the driver marks it ready', 'POST', `/orders/${k4}/ready`, {});
  await rest('status ready after the driver did: 409 Ready', 'PUT', `/api/v1/Orders/${k4}/status`, { status: 'ready' });
  await rest('status handed_over, off the letter: text/plain and a key that is not a UUID', 'PUT', `/api/v1/Orders/${k4}/status`, { status: 'handed_over' }, { headers: mutation('not-a-uuid', { 'Content-Type': 'text/plain' }) });
  await advance(600);
  await control('delivered', 'POST', `/orders/${k4}/deliver`, {});
  await get('the driver cycle in the history', `/api/v1/Orders/${k4}`);

  // ---- 6. a creation webhook that fails once: the retry, a redelivery, a customer's cancel ---
  const k5 = (await control('an order whose first webhook fails', 'POST', '/orders', { store: store1, customerNote: 'fail-once', items: [{ remoteCode: 'FRIES', name: 'Fries', quantity: 2, unitPrice: 3.25 }] }))?.orderKey;
  await control('no remoteOrderId yet', 'GET', `/orders/${k5}`);
  await advance(10, 'advance to the retry');
  const deliveries = await call('the deliveries so far', 'GET', '/_sandbox/deliveries');
  const creation = Array.isArray(deliveries) ? deliveries.findLast((d) => d.orderKey === k5 && d.kind === 'orderCreated') : null;
  await control('redeliver it, 2 copies', 'POST', `/deliveries/${creation?.deliveryId ?? 'none'}/redeliver`, { copies: 2 });
  await control('redeliver an unknown delivery: 404', 'POST', '/deliveries/00000000-0000-4000-8000-000000000000/redeliver', {});
  await control('the customer cancels', 'POST', `/orders/${k5}/cancel`, { by: 'customer', reason: 'changed my mind' });
  const k6 = (await control('one more (store 2)', 'POST', '/orders', { store: store2 }))?.orderKey;
  await control('an operator cancels', 'POST', `/orders/${k6}/cancel`, { by: 'operator', reason: 'store closed early' });
  await control('an unknown order: 404', 'POST', '/orders/ord_0000000000000000/deliver', {});
  await control('an unknown store: 404', 'POST', '/orders', { store: 'NO-SUCH-STORE' });
  await control('advance by a negative number: 400', 'POST', '/advance', { seconds: -1 });

  // ---- 7. the list and its cursor ---------------------------------------------------------
  let page = await get('the list, 2 a page', '/api/v1/Orders?PageSize=2');
  for (let i = 2; i <= 5 && page?.data?.hasMore; i++) page = await get(`the list, page ${i}`, `/api/v1/Orders?PageSize=2&Cursor=${encodeURIComponent(page.data.nextCursor)}`);
  await get('the list, Status=Cancelled', '/api/v1/Orders?Status=Cancelled');
  await get('the list, a time window', `/api/v1/Orders?FromDate=${encodeURIComponent(iso(origin + 60))}&ToDate=${encodeURIComponent(iso(origin + 400))}`);
  await get('the list, PageSize 101', '/api/v1/Orders?PageSize=101');
  await get('the list, Status=DriverAssigned', '/api/v1/Orders?Status=DriverAssigned');
  await get('the list, a cursor made by hand', '/api/v1/Orders?Cursor=not-a-cursor');

  // ---- 8. the menu: upload, preview, changes and their webhooks ----------------------------
  await get('the empty store menu', `/api/v1/menu/stores/${store1}`);
  await rest('upload a menu without images: 422', 'PUT', '/api/v1/menu', menu(2, { image: false }));
  await rest('upload a menu', 'PUT', '/api/v1/menu', menu(5));
  const read = await get('the store menu', `/api/v1/menu/stores/${store1}`);
  await rest('preview: one product, other prices', 'POST', '/api/v1/menu/preview', menu(1, { priceBump: 1 }));
  await rest('the upload that deactivates 4 of 5: 409', 'PUT', '/api/v1/menu', menu(1, { priceBump: 1 }));
  await rest('the same, confirmed', 'PUT', '/api/v1/menu?confirmLargeDeactivation=true', menu(2, { priceBump: 1 }));
  const off = await rest('availability off in store 1: 202', 'PUT', '/api/v1/menu/availability', { stores: [store1], items: [{ targetEntity: 'product', targetCode: 'BURGER-1', available: false }] });
  await get('the change, Pending', `/api/v1/menu/changes/${off?.data?.changeId}`);
  await advance(5, 'advance to the change');
  await get('the change, Applied', `/api/v1/menu/changes/${off?.data?.changeId}`);
  await control('failures for store 2', 'POST', '/menu/fail', { store: store2, errorCode: 'STORE_UNAVAILABLE' });
  await rest('prices in both stores: 202', 'PUT', '/api/v1/menu/prices', { stores: [store1, store2], items: [{ targetEntity: 'product', targetCode: 'BURGER-0', price: 9.75 }] });
  await rest('a batch with an unknown target', 'POST', '/api/v1/menu/changes', { stores: [store1], changes: [
    { targetEntity: 'product', targetCode: 'BURGER-0', scope: 'store', set: { name: 'Burger zero' } },
    { targetEntity: 'product', targetCode: 'NOT-THERE', scope: 'store', set: { price: 7 } },
  ] });
  await advance(5, 'advance to the changes: partial, partial');
  await control('store 2 works again', 'POST', '/menu/fail', { store: store2, fail: false });
  const product = read?.data?.categories?.[0]?.products?.[0];
  await rest('available in brand scope: 422 not shipped', 'PATCH', `/api/v1/menu/products/${product?.code}`, { scope: 'brand', set: { available: false } });
  await rest('a brand price', 'PATCH', `/api/v1/menu/products/${product?.code}`, { scope: 'brand', set: { price: 11 } });
  await rest('a local product', 'POST', `/api/v1/menu/stores/${store1}/products`, { code: 'HOUSE-1', name: 'House special', price: 4.5, categoryCode: read?.data?.categories?.[0]?.code, channels: ['delivery', 'pickup'], tax: 0.15 });
  await advance(5, 'advance to the brand price and the local product');
  await get('the store menu after the changes', `/api/v1/menu/stores/${store1}`);
  await get('capabilities', '/api/v1/menu/capabilities');
  await control('the menu as kept', 'GET', '/menu');
  await control('the store menu control', 'GET', `/menu/stores/${store2}`);

  // ---- 9. REST faults ----------------------------------------------------------------------
  await control('faults: 429 on the menu', 'PUT', '/faults', { rateLimited: 1, retryAfterSeconds: 7, pathPrefix: '/api/v1/menu' });
  await get('capabilities: 429 Retry-After 7', '/api/v1/menu/capabilities');
  await get('the orders: no fault there', '/api/v1/Orders?PageSize=1');
  await control('faults: 502 on the menu', 'PUT', '/faults', { badGateway: 1, pathPrefix: '/api/v1/menu' });
  const faultKey = key();
  await rest('availability: 502', 'PUT', '/api/v1/menu/availability', { stores: [store1], items: [{ targetEntity: 'product', targetCode: 'BURGER-1', available: true }] }, { idem: faultKey });
  await control('faults: 503', 'PUT', '/faults', { unavailable: 1 });
  await get('capabilities: 503', '/api/v1/menu/capabilities');
  await control('faults: half the answers 429', 'PUT', '/faults', { rateLimited: 0.5 });
  for (let i = 1; i <= 6; i++) await get(`the seeded draw ${i}`, '/api/v1/Orders?PageSize=1');
  await control('faults: slow answers', 'PUT', '/faults', { slow: 1, slowMs: 25 });
  await get('a slow answer', '/api/v1/menu/capabilities');
  await control('faults: a bad value', 'PUT', '/faults', { rateLimited: 2 });
  await control('faults off', 'PUT', '/faults', {});
  await rest('availability with the key of the 502: executed now', 'PUT', '/api/v1/menu/availability', { stores: [store1], items: [{ targetEntity: 'product', targetCode: 'BURGER-1', available: true }] }, { idem: faultKey });
  await advance(5, 'advance to that change');

  // ---- 10. the rate limits (perMinute 100, perHour 250 from the options file) --------------
  await advance(60 - ((now - origin) % 60 + 60) % 60 || 60, 'advance to a minute boundary');
  async function burst(name) {
    const statuses = [];
    for (let i = 0; i < 400; i++) {
      const res = await fetch(`${base}/api/v1/Orders?PageSize=1`, { headers: restHeaders(), signal: AbortSignal.timeout(NET_TIMEOUT_MS) });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 429) break;
    }
    const counts = {};
    for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
    steps.push({ n: steps.length + 1, name, request: { method: 'GET', path: '/api/v1/Orders?PageSize=1', headers: { 'X-Service-Api-Key': '<the key>' }, body: 'repeated until a 429' }, status: null, headers: {}, body: { counts }, deliveries: pos.take() });
  }
  await burst('a burst: the fixed window');
  await get('over the minute: 429 Retry-After', '/api/v1/Orders');
  await get('a wrong key is still 401', '/api/v1/Orders', { 'X-Service-Api-Key': 'sbx_key_not-the-key' });
  const limitedKey = key();
  await rest('a mutation over the limit: 429, not cached', 'POST', `/api/v1/Orders/${k1}/accept`, {}, { idem: limitedKey });
  await advance(1);
  await get('one second later: Retry-After 59', '/api/v1/Orders');
  await advance(59);
  await burst('a burst: the sliding hour');
  await get('over the hour: 429 Retry-After', '/api/v1/Orders');
  await advance(3600, 'advance an hour');
  await rest('the mutation again, the same key: executed now', 'POST', `/api/v1/Orders/${k1}/accept`, {}, { idem: limitedKey });

  // ---- 11. what the controls keep, and the other documents ---------------------------------
  await control('the orders', 'GET', '/orders');
  await control('every delivery', 'GET', '/deliveries');
  await control('the REST calls after 60', 'GET', '/requests?after=60');
  await control('the journal', 'GET', '/journal?after=0');
  await control('the journal, a bad after', 'GET', '/journal?after=x');
  await control('the journal, a long poll that times out', 'GET', '/journal?after=100000&wait=50');
  await control('the store menu of an unknown store: 404', 'GET', '/menu/stores/NO-SUCH-STORE');
  await control('the state', 'GET', '/state');
  await control('the words', 'GET', '/words');
  await control('the OpenAPI document', 'GET', '/openapi.json');
  for (const file of ['/', '/console.js', '/console-export.js', '/console.css', '/favicon.svg', '/nothing.js']) await call(`the console: ${file}`, 'GET', file);
  // The limits of HTTP itself: a body above 16 MiB (413), a head above 16 KiB (431).
  await rest('a body above 16 MiB: 413', 'POST', '/api/v1/menu/preview', `{"categories":[],"pad":"${'x'.repeat(16 * 1024 * 1024)}"}`, {});
  steps.at(-1).request.body = '<16 MiB and 21 bytes>';
  await get('a header of 20 KiB: 431', '/api/v1/Orders', { 'X-Pad': 'y'.repeat(20 * 1024) });
  steps.at(-1).request.headers['X-Pad'] = '<20 KiB>';
  await get('a header of 8 KiB: answered', '/api/v1/Orders', { 'X-Pad': 'z'.repeat(8 * 1024) });
  steps.at(-1).request.headers['X-Pad'] = '<8 KiB>';
  // HTTP/1.1 on one connection: three requests pipelined in one write, answered in order. (The
  // middle one is a control answered at once: one that waits for a delivery lets node:http handle
  // the third meanwhile, hyper after it, so their log lines would come in another order, the
  // answers on the wire not.)
  await raw('three requests pipelined', [
    'GET /api/v1/Orders?PageSize=1 HTTP/1.1\r\nHost: {HOST}\r\nX-Service-Api-Key: {KEY}\r\n\r\n',
    'PUT /_sandbox/faults HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    'GET /api/v1/Orders/ord_0000000000000000 HTTP/1.1\r\nHost: {HOST}\r\nX-Service-Api-Key: {KEY}\r\nConnection: close\r\n\r\n',
  ]);
  await raw('a request line that is not HTTP', ['NOT HTTP AT ALL\r\n\r\n']);
  await raw('a body shorter than its Content-Length, then the end', ['POST /_sandbox/advance HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: 50\r\n\r\n{"seconds":1}'], { halfClose: true });
  await raw('HTTP/1.0', ['GET /api/v1/Orders?PageSize=1 HTTP/1.0\r\nX-Service-Api-Key: {KEY}\r\n\r\n']);
  await call('a control from another origin: 403', 'POST', '/_sandbox/reset', { headers: { Origin: 'http://evil.example' } });
  await control('an unknown control: 404', 'GET', '/nothing');
  await control('reset', 'POST', '/reset');
  await control('the orders after reset', 'GET', '/orders');
  await get('the list after reset', '/api/v1/Orders');

  return { base, posUrl: pos.url, secret, origin, steps };
}

/** The answers in the bytes of one connection: [{ status, contentType, body }] (Content-Length or chunked bodies). */
export function splitAnswers(buf) {
  const out = [];
  let at = 0;
  while (at < buf.length) {
    const end = buf.indexOf('\r\n\r\n', at);
    if (end < 0) {
      out.push({ status: 'cut', rest: buf.subarray(at).toString('latin1').slice(0, 200) });
      break;
    }
    const head = buf.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(head[0].split(' ')[1]);
    const headers = Object.fromEntries(head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    at = end + 4;
    let body;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts = [];
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', at);
        const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
        at = lineEnd + 2;
        if (!size) {
          at += 2;
          break;
        }
        parts.push(buf.subarray(at, at + size));
        at += size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? (status === 204 || status === 304 ? 0 : buf.length - at));
      body = buf.subarray(at, at + length);
      at += length;
    }
    const text = body.toString('utf8');
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    out.push({ status, contentType: headers['content-type'] ?? null, body: parsed });
  }
  return out;
}

// ---- normalization ----------------------------------------------------------------------------

/** An ISO timestamp, also percent-encoded in a query (`%3A` for `:`). */
const ISO = /\b(\d{4}-\d{2}-\d{2}T\d{2}(?::|%3A)\d{2}(?::|%3A)\d{2}(?:\.\d+)?Z)\b/gi;
/** How far from the clock's origin a number is read as a time of that clock (about 11 days). */
const SPAN = 1_000_000;

/**
 * The transcript as compared: the sandbox's and the POS's ports replaced by <sandbox> and <pos>;
 * every time of the manual clock (ISO text, unix seconds or milliseconds) written as <T+s> from
 * the aligned origin; a webhook's X-Service-Timestamp (the wall clock of sending) and
 * X-Service-Signature-256 replaced by <verified> once the signature is checked with the secret
 * (or <NOT VERIFIED: why>); a delivery's latency `ms` by <ms>.
 */
export function normalize(transcript) {
  const { base, posUrl, secret, origin } = transcript;
  const sandboxPort = new URL(base).port;
  const posPort = new URL(posUrl).port;
  // 127.0.0.1:PORT, localhost:PORT, [::1]:PORT: the sandbox names its port under each loopback name.
  const hosts = (port, name) => (s) => s.replace(new RegExp(`(127\\.0\\.0\\.1|localhost|\\[::1\\]):${port}\\b`, 'g'), `$1:<${name}>`);
  const sandboxHost = hosts(sandboxPort, 'sandbox');
  const posHost = hosts(posPort, 'pos');
  const relative = (secs) => {
    const d = Math.round((secs - origin) * 1000) / 1000;
    return `<T${d >= 0 ? '+' : ''}${d}>`;
  };
  const text = (s) =>
    posHost(sandboxHost(s)).replace(ISO, (m) => {
        const t = Date.parse(m.replace(/%3A/gi, ':'));
        return Number.isNaN(t) ? m : relative(t / 1000);
      });
  const number = (n) => {
    if (Math.abs(n - origin) < SPAN) return relative(n);
    if (Math.abs(n - origin * 1000) < SPAN * 1000) return `${relative(n / 1000)}ms`;
    return n;
  };
  /** A recorded delivery's headers (as the sandbox lists them, or as the POS got them) and body. */
  const signed = (headers, body) => {
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    if (!('x-service-signature-256' in lower)) return headers;
    const why = checkSigned(secret, lower, body);
    const out = {};
    for (const [k, v] of Object.entries(headers)) {
      const l = k.toLowerCase();
      out[k] = l === 'x-service-timestamp' || l === 'x-service-signature-256' ? (why ? `<NOT VERIFIED: ${why}>` : '<verified>') : walk(v);
    }
    return out;
  };
  function walk(v, k) {
    if (typeof v === 'string') return text(v);
    if (typeof v === 'number') return k === 'ms' ? '<ms>' : number(v);
    // A body kept as bytes (the idempotency cache of /_sandbox/state): read as its UTF-8 text.
    if (k === 'body' && Array.isArray(v) && v.length > 0 && v.every((b) => Number.isInteger(b) && b >= 0 && b < 256)) return { utf8: text(Buffer.from(v).toString('utf8')) };
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      const out = {};
      for (const [key, value] of Object.entries(v)) {
        if (key === 'headers' && value && typeof value === 'object' && typeof v.body === 'string') out[key] = signed(value, v.body);
        else out[key] = walk(value, key);
      }
      return out;
    }
    return v;
  }
  const delivery = (d) => ({
    method: d.method,
    path: text(d.path),
    headers: signed(d.headers, d.body),
    body: walk(parseMaybe(d.body)),
    verified: d.verified,
    answer: d.answer,
  });
  return transcript.steps.map((s) => ({
    n: s.n,
    name: s.name,
    request: walk(s.request),
    status: s.status,
    headers: walk(s.headers),
    body: walk(concurrentInOrder(s.body)),
    deliveries: [...s.deliveries.map(delivery)].sort(byDelivery),
  }));
}

/**
 * The sandbox's listings of attempts (GET /_sandbox/deliveries, the journal's entries) in a
 * canonical order where the order is the network's: both faces send every attempt due at one
 * time at once (two menu changes due together, the copies of a redelivery), and each is listed
 * when its answer came. So a run of consecutive attempts listed at the same sandbox time is sorted
 * by delivery id and attempt number, and the journal's seq numbers of the run are given out again
 * in that order. Nothing else moves.
 */
export function concurrentInOrder(body) {
  const isAttempt = (e) => e && typeof e === 'object' && typeof e.deliveryId === 'string' && typeof e.attempt === 'number' && 'at' in e;
  const sortRuns = (list) => {
    const out = list.slice();
    for (let i = 0; i < out.length; ) {
      let j = i;
      while (j < out.length && isAttempt(out[j]) && isAttempt(out[i]) && out[j].at === out[i].at) j++;
      if (j - i > 1) {
        const run = out.slice(i, j);
        const seqs = run.map((e) => e.seq).sort((x, y) => x - y);
        run.sort((x, y) => (x.deliveryId < y.deliveryId ? -1 : x.deliveryId > y.deliveryId ? 1 : x.attempt - y.attempt));
        run.forEach((e, k) => (out[i + k] = 'seq' in e ? { ...e, seq: seqs[k] } : e));
      }
      i = Math.max(j, i + 1);
    }
    return out;
  };
  if (Array.isArray(body) && body.some(isAttempt)) return sortRuns(body);
  if (body && typeof body === 'object' && Array.isArray(body.entries) && body.entries.some(isAttempt)) return { ...body, entries: sortRuns(body.entries) };
  return body;
}

/** Deliveries sent at once (the copies of a redelivery) reach the POS in any order: sorted within a step. */
const byDelivery = (a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0);

function parseMaybe(s) {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/**
 * Why a signed delivery is not authentic (null when it is): the POS's own check for what it
 * received, and for the sandbox's listing of an attempt, the same HMAC without the 300 s window
 * (a listing is read later than it was sent).
 */
function checkSigned(secret, lower, body) {
  const ts = lower['x-service-timestamp'];
  const sig = lower['x-service-signature-256'];
  if (typeof ts !== 'string' || !/^\d{1,12}$/.test(ts)) return 'missing or malformed X-Service-Timestamp';
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > 3600) return 'X-Service-Timestamp is not the wall clock';
  const expected = `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ts}.${body}`).digest('hex')}`;
  return sig === expected ? null : 'signature mismatch';
}

export { verifySignature };

/**
 * The log lines a face printed after its banner, as compared: the wall-clock stamp and each
 * latency (`in 1.2 ms`) dropped, the ports and the manual clock's times as in normalize(); a run
 * of consecutive delivery lines (`→ …`) sorted, since attempts sent at once are logged as their
 * answers come.
 */
export function normalizeLog(out, { base, posUrl, origin }) {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.includes('assumed where the contract shows nothing:')) + 1;
  const [step] = normalize({ base, posUrl, secret: '', origin, steps: [{ n: 1, name: 'log', request: {}, status: 0, headers: {}, body: lines.slice(start).filter(Boolean), deliveries: [] }] });
  const norm = step.body.map((l) => l.replace(/^\d\d:\d\d:\d\d\.\d{3} /, '').replace(/ in \d+(?:\.\d+)? ms/g, ' in <ms> ms'));
  for (let i = 0; i < norm.length; ) {
    let j = i;
    while (j < norm.length && norm[j].startsWith('→ ')) j++;
    if (j - i > 1) norm.splice(i, j - i, ...norm.slice(i, j).sort());
    i = Math.max(j, i + 1);
  }
  return norm;
}

// ---- comparison -------------------------------------------------------------------------------

/** The first difference between two values, as { path, a, b }, or null. */
export function firstDifference(a, b, path = '') {
  if (a === b) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object' || Array.isArray(a) !== Array.isArray(b)) {
    return { path: path || '(the value)', a, b };
  }
  if (Array.isArray(a)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return a.length === b.length ? null : { path: `${path}.length`, a: a.length, b: b.length };
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys) {
    if (!(k in a) || !(k in b)) return { path: `${path}.${k}`, a: k in a ? a[k] : '<absent>', b: k in b ? b[k] : '<absent>' };
    const d = firstDifference(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  // Same members: their order matters in a JSON text (both faces serialize the one model).
  const ka = Object.keys(a).join(',');
  const kb = Object.keys(b).join(',');
  return ka === kb || path.endsWith('.headers') ? null : { path: `${path} (member order)`, a: ka, b: kb };
}

const clip = (v) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

/**
 * Compares two normalized transcripts step by step: [] when equal, else every differing step as
 * { n, name, path, a, b, message } (the first one first), a step missing on one side included.
 */
export function compareTranscripts(a, b, labels = ['A', 'B']) {
  const out = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const sa = a[i];
    const sb = b[i];
    if (!sa || !sb) {
      out.push({ n: i + 1, name: (sa ?? sb).name, path: '(the step)', a: sa ? 'present' : '<absent>', b: sb ? 'present' : '<absent>' });
      continue;
    }
    const d = firstDifference(sa, sb);
    if (d) out.push({ n: sa.n, name: sa.name, ...d });
  }
  for (const d of out) d.message = `step ${d.n} (${d.name}) ${a[d.n - 1]?.request?.method ?? ''} ${a[d.n - 1]?.request?.path ?? ''}: ${d.path}: ${labels[0]} ${clip(d.a)} ≠ ${labels[1]} ${clip(d.b)}`;
  return out;
}
