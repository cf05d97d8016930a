// The webhook receiver kit: I/O around the Rust core's decisions (src/receiver.rs).
//
// The core routes the request, verifies the signature, validates the payload and decides every
// answer; this file only reads the raw bytes (with a size cap), keeps the deduplication store,
// calls the POS's handlers with a time limit and writes the answer, for node:http, Express,
// Fastify and the Fetch API. Nothing here decides what the contract says.
//
// This file is the ES-module source; the build writes a CommonJS copy for the Node build
// (scripts/build-pkg.mjs). It imports nothing: the wasm exports and the facade are passed to
// createReceiverApi(). Keep top-level declarations as `export function|class|const`.

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 25_000;
export const DEFAULT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/** Bodies larger than this are hashed with the platform's native HMAC where there is one (measured in
 * process: twice as fast at 64 KB, no faster at 4 KB, where the extra call costs what it saves). */
export const NATIVE_HMAC_FROM = 4096;
/** The core tries at most this many secrets (src/signature.rs, MAX_SECRETS). */
const MAX_SECRETS = 16;
/** Unix seconds stay below this until the year 5138; Date.now() values are far above. */
const MILLISECONDS_THRESHOLD = 1e11;
/** setTimeout's longest delay; past it the timer fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const TOO_LARGE = Symbol('too large');
const UNAVAILABLE = Symbol('body unavailable');
const HANDLER_OF = { orderCreated: 'onOrderCreated', orderUpdate: 'onOrderUpdate', menuChangeCompleted: 'onMenuChangeCompleted' };
const BASE_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

let tokenCounter = 0;
/** A claim token: unique among the receivers sharing a store (not a secret). */
function newToken() {
  tokenCounter = (tokenCounter + 1) % 0x7fffffff;
  return `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 12)}.${tokenCounter.toString(36)}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function storeError(message, cause) {
  const e = new Error(message, cause === undefined ? undefined : { cause });
  e.name = 'PoscheckError';
  e.code = 'STORE_UNAVAILABLE';
  return e;
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(storeError(`${what}: no answer from the store within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// ---- stores ------------------------------------------------------------------------------------
//
// One interface, three calls, every one keyed on X-Service-Delivery-Id:
//   claim(id, { token, leaseMs }) → { state: 'claimed' } | { state: 'pending' } | { state: 'done', answer }
//   complete(id, token, answer, ttlMs) → true when recorded
//   release(id, token)            → drops this token's claim (a failed handler: the retry runs it)
// A claim expires after leaseMs (a crashed process does not block a delivery for ever); a
// completed answer after ttlMs (24 h by default).

/**
 * An in-memory store for a receiver running as one process: bounded (`maxEntries`, oldest
 * completed entries go first), entries expire on their own (checked on every access).
 */
export function createMemoryStore({ maxEntries = 100_000, clock = () => Date.now() } = {}) {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  const entries = new Map(); // id → { token, answer, expires }; Map order ≈ expiry order
  const live = (id, now) => {
    const e = entries.get(id);
    if (e !== undefined && e.expires <= now) {
      entries.delete(id);
      return undefined;
    }
    return e;
  };
  const sweep = (now) => {
    for (const [id, e] of entries) {
      if (e.expires > now) break;
      entries.delete(id);
    }
  };
  const makeRoom = () => {
    if (entries.size < maxEntries) return;
    for (const [id, e] of entries) {
      if (e.answer !== undefined) {
        entries.delete(id);
        if (entries.size < maxEntries) return;
      }
    }
    if (entries.size >= maxEntries) throw storeError(`memory store full: ${maxEntries} deliveries are being handled at once`);
  };
  return {
    kind: 'memory',
    async claim(id, { token, leaseMs }) {
      const now = clock();
      sweep(now);
      const e = live(id, now);
      if (e === undefined) {
        makeRoom();
        entries.set(id, { token, answer: undefined, expires: now + leaseMs });
        return { state: 'claimed' };
      }
      if (e.answer !== undefined) return { state: 'done', answer: e.answer };
      return { state: e.token === token ? 'claimed' : 'pending' };
    },
    async complete(id, token, answer, ttlMs) {
      const now = clock();
      const e = live(id, now);
      if (e !== undefined && e.answer === undefined && e.token !== token) return false;
      entries.delete(id); // re-inserted last: Map order stays expiry order
      entries.set(id, { token, answer, expires: now + ttlMs });
      return true;
    },
    async release(id, token) {
      const e = live(id, clock());
      if (e !== undefined && e.answer === undefined && e.token === token) entries.delete(id);
    },
    get size() {
      return entries.size;
    },
  };
}

// Lua, so that each step that reads then writes is one atomic step on the server.
const CLAIM_LUA = `local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;
const COMPLETE_LUA = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] or v == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * A Redis store for receivers running as several processes or machines. `client` is a connected
 * client of the `redis` package (node-redis 4+) or of `ioredis`; the store sends three small Lua
 * scripts (EVAL) and nothing else. Every call gives up after `timeoutMs` (the receiver then
 * answers 503 and calls no handler).
 */
export function createRedisStore(client, { prefix = 'poscheck:delivery:', timeoutMs = 1000 } = {}) {
  let send;
  if (client && typeof client.call === 'function') {
    send = (args) => client.call(...args); // ioredis
  } else if (client && typeof client.sendCommand === 'function') {
    send = (args) => client.sendCommand(args); // node-redis 4+
  } else {
    throw new TypeError('createRedisStore(client): expected a client of the "redis" package (createClient()) or of "ioredis" (new Redis())');
  }
  const evalScript = (script, key, ...args) =>
    withTimeout(Promise.resolve().then(() => send(['EVAL', script, '1', prefix + key, ...args.map(String)])), timeoutMs, 'redis');
  return {
    kind: 'redis',
    async claim(id, { token, leaseMs }) {
      const v = await evalScript(CLAIM_LUA, id, `p:${token}`, Math.max(1, Math.ceil(leaseMs)));
      if (v === null || v === undefined) return { state: 'claimed' };
      const s = String(v);
      if (s.startsWith('d:')) return { state: 'done', answer: JSON.parse(s.slice(2)) };
      // Our own claim, when a client re-sent the command after a reconnection.
      return { state: s === `p:${token}` ? 'claimed' : 'pending' };
    },
    async complete(id, token, answer, ttlMs) {
      const v = await evalScript(COMPLETE_LUA, id, `p:${token}`, `d:${JSON.stringify(answer)}`, Math.max(1, Math.ceil(ttlMs)));
      return Number(v) === 1;
    },
    async release(id, token) {
      await evalScript(RELEASE_LUA, id, `p:${token}`);
    },
  };
}

// ---- reading raw bodies ------------------------------------------------------------------------

function concat(chunks, size) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function declaredLength(value) {
  if (Array.isArray(value)) value = value[0];
  if (value === undefined || value === null || !/^\d+$/.test(String(value).trim())) return undefined;
  return Number(String(value).trim());
}

/** Reads a Node request stream up to `limit` bytes; past it, stops keeping the data (TOO_LARGE). */
function readNodeStream(stream, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let settled = false;
    const cleanup = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
    };
    const settle = (fn, v) => {
      if (settled) return;
      settled = true;
      cleanup();
      fn(v);
    };
    function onData(chunk) {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        settle(resolve, TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    }
    function onEnd() {
      settle(resolve, concat(chunks, size));
    }
    function onError(err) {
      settle(reject, err);
    }
    function onClose() {
      settle(reject, Object.assign(new Error('the client closed the connection before the body was complete'), { code: 'ECONNRESET' }));
    }
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    if (typeof stream.resume === 'function') stream.resume();
  });
}

/** Reads a WHATWG ReadableStream (Fetch) up to `limit` bytes; past it, cancels the stream. */
async function readWebStream(body, limit) {
  const reader = body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concat(chunks, size);
    const chunk = value instanceof Uint8Array ? value : new Uint8Array(value);
    size += chunk.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return TOO_LARGE;
    }
    chunks.push(chunk);
  }
}

/** Bytes given directly to receiver.handle(): string, bytes, or an async iterable of chunks. */
async function readGiven(body, limit, toBytes) {
  if (body === undefined || body === null) return new Uint8Array(0);
  const bytes = toBytes(body);
  if (bytes !== undefined) return bytes.length > limit ? TOO_LARGE : bytes;
  if (typeof body.getReader === 'function') return readWebStream(body, limit);
  if (typeof body[Symbol.asyncIterator] === 'function') {
    const chunks = [];
    let size = 0;
    for await (const c of body) {
      const chunk = toBytes(c);
      size += chunk.length;
      if (size > limit) return TOO_LARGE;
      chunks.push(chunk);
    }
    return concat(chunks, size);
  }
  return undefined;
}

/**
 * After a 413: reads and drops the rest of the body (nothing is kept), so that the client, still
 * sending, can read the answer instead of meeting a reset; past `cap` more bytes the connection is
 * cut (a body that never ends).
 */
function discardRest(req, cap) {
  if (req.complete || req.readableEnded || req.destroyed) return;
  let dropped = 0;
  req.on('data', (chunk) => {
    dropped += chunk.length;
    if (dropped > cap) req.socket?.destroy();
  });
  req.on('error', () => {});
  req.resume();
}

// ---- the receiver ------------------------------------------------------------------------------

/** Builds createReceiver over the raw wasm exports and the facade module (pkg/src/api.js). */
export function createReceiverApi(raw, facade, isReady = () => true, platform = {}) {
  const { PoscheckError, WebhookVerificationError, headerList, toBytes } = facade;
  // With a native HMAC (Node), bodies over NATIVE_HMAC_FROM bytes are hashed by node:crypto (the
  // core still checks the headers and compares: receiverReceiveMacs); smaller ones take the one
  // wasm call, which costs about as much as the extra call the native path needs.
  const native = typeof raw.receiverReceiveMacs === 'function' && typeof facade.nativeVerifier === 'function' ? facade.nativeVerifier(raw, platform) : null;
  // Where the platform offers poscheck/webhook's API (Node's toolkit entry: see platform.webhook
  // at createApi in api.js), its receivers run on that module, built at opt-level 3.
  const webhookEntry = platform.webhook?.load ?? null;
  const decoder = new TextDecoder();

  const invalid = (message) => new PoscheckError(message, 'INVALID_ARGUMENT');
  const positive = (value, fallback, name) => {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalid(`${name} must be a positive number`);
    if (name.endsWith('Ms') && value > MAX_TIMER_MS) throw invalid(`${name} must be at most ${MAX_TIMER_MS} (about 24.8 days, the longest timer)`);
    return value;
  };

  function createReceiver(options) {
    if (webhookEntry !== null) return webhookEntry().createReceiver(options);
    if (options === null || typeof options !== 'object') {
      throw invalid('createReceiver(options): expected { secret, onOrderCreated, onOrderUpdate, onMenuChangeCompleted, … }');
    }
    const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
    if (!Array.isArray(secrets) || secrets.length === 0 || !secrets.every((s) => typeof s === 'string' && s.length > 0)) {
      throw invalid("secret must be the account's HMAC secret (a non-empty string), or an array of them during a rotation");
    }
    if (secrets.length > MAX_SECRETS) throw invalid(`at most ${MAX_SECRETS} secrets: a rotation needs two or three`);
    const handlers = {};
    for (const [route, name] of Object.entries(HANDLER_OF)) {
      const fn = options[name];
      if (fn !== undefined && typeof fn !== 'function') throw invalid(`${name} must be a function`);
      handlers[route] = fn;
    }
    if (!Object.values(handlers).some(Boolean)) {
      throw invalid('give at least one handler: onOrderCreated, onOrderUpdate or onMenuChangeCompleted');
    }
    for (const name of ['onInvalid', 'onError']) {
      if (options[name] !== undefined && typeof options[name] !== 'function') throw invalid(`${name} must be a function`);
    }
    const tolerance = options.toleranceSeconds ?? facade.DEFAULT_TOLERANCE_SECONDS;
    if (typeof tolerance !== 'number' || !(tolerance >= 0)) throw invalid('toleranceSeconds must be a non-negative number');
    const timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    const maxBodyBytes = positive(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes');
    const dedupeTtlMs = positive(options.dedupeTtlMs, DEFAULT_DEDUPE_TTL_MS, 'dedupeTtlMs');
    const leaseMs = positive(options.leaseMs, Math.min(timeoutMs + 30_000, MAX_TIMER_MS), 'leaseMs');
    const duplicateWaitMs = positive(options.duplicateWaitMs, timeoutMs, 'duplicateWaitMs');
    const storeRetryMs = positive(options.storeRetryMs, 10_000, 'storeRetryMs');
    const basePath = options.basePath ?? '';
    if (typeof basePath !== 'string') throw invalid('basePath must be a string such as "/pos"');
    const store = options.store ?? createMemoryStore();
    for (const m of ['claim', 'complete', 'release']) {
      if (typeof store[m] !== 'function') throw invalid(`store must have claim, complete and release (see createMemoryStore, createRedisStore); ${m} is missing`);
    }
    const nowOption = options.now;
    if (nowOption !== undefined && typeof nowOption !== 'function' && typeof nowOption !== 'number') {
      throw invalid('now must be a function returning unix seconds, or a number');
    }
    const checkNow = (v) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalid(`now must give non-negative unix seconds, got ${typeof v === 'number' ? v : typeof v}`);
      if (v > MILLISECONDS_THRESHOLD) throw invalid(`now gave ${v}, which looks like milliseconds: give unix seconds (Math.floor(Date.now() / 1000))`);
      return v;
    };
    if (typeof nowOption === 'number') checkNow(nowOption);
    const now = () => (typeof nowOption === 'function' ? checkNow(nowOption()) : nowOption ?? Math.floor(Date.now() / 1000));
    const onError =
      options.onError ??
      ((err, info) => {
        console.error(`poscheck receiver: ${info?.code ?? 'ERROR'} ${info?.route ?? ''} delivery ${info?.deliveryId ?? '(none)'}:`, err);
      });
    const onInvalid = options.onInvalid;

    const report = (err, info) => {
      try {
        onError(err, info);
      } catch {
        // onError itself failed: nothing else to tell.
      }
    };
    const answerOf = (route, outcome, value) => raw.receiverAnswer(route, outcome, value ?? undefined);

    /**
     * The AbortSignal a handler gets, made on first use: most handlers never read it, and an
     * AbortController per delivery is a measurable part of the kit's cost. After `abort(reason)`
     * the signal is aborted with that reason, whether it was made before or is made later.
     */
    function lazyAbort() {
      let controller = null;
      let aborted = false;
      let reason;
      return {
        get signal() {
          if (controller === null) {
            controller = new AbortController();
            if (aborted) controller.abort(reason);
          }
          return controller.signal;
        },
        abort(why) {
          aborted = true;
          reason = why;
          controller?.abort(why);
        },
      };
    }

    /** Runs `fn()` within timeoutMs, then aborts `abort` (a lazyAbort): { ok, value } | { threw, error } | { timeout, late } */
    async function runLimited(fn, abort) {
      let timer;
      const work = Promise.resolve().then(fn);
      const timeout = new Promise((resolve) => {
        timer = setTimeout(() => resolve({ timeout: true }), timeoutMs);
      });
      const settled = work.then(
        (value) => ({ ok: true, value }),
        (error) => ({ threw: true, error }),
      );
      const result = await Promise.race([settled, timeout]);
      clearTimeout(timer);
      if (result.timeout) {
        abort.abort(new Error(`the handler did not finish within ${timeoutMs} ms`));
        return { timeout: true, late: settled };
      }
      return result;
    }

    async function retryStore(fn) {
      const deadline = Date.now() + storeRetryMs;
      let wait = 50;
      for (;;) {
        try {
          return await fn();
        } catch (err) {
          if (Date.now() + wait > deadline) throw err;
          await sleep(wait);
          wait = Math.min(wait * 2, 1000);
        }
      }
    }

    const record = (id, token, answer, info) =>
      retryStore(() => store.complete(id, token, { status: answer.status, code: answer.code, body: answer.body }, dedupeTtlMs)).then(
        (recorded) => {
          if (!recorded) report(new PoscheckError('another attempt took over this delivery (its claim had expired); the answer was not recorded', 'CLAIM_LOST'), info);
        },
        (err) => report(err, { ...info, code: 'STORE_COMPLETE_FAILED' }),
      );
    const releaseClaim = (id, token, info) =>
      retryStore(() => store.release(id, token)).catch((err) => report(err, { ...info, code: 'STORE_RELEASE_FAILED' }));

    /** Calls the route's handler (or onInvalid) and decides the answer with the core. */
    async function dispatch(receipt, route, body, headers, deliveryId) {
      const delivery = receipt.delivery;
      const info = { route: route.id, deliveryId, code: undefined };
      const meta = {
        id: delivery.deliveryId,
        timestamp: delivery.timestamp,
        eventType: delivery.eventType,
        secretIndex: delivery.secretIndex,
      };
      const params = { remoteId: route.remoteId ?? undefined, remoteOrderId: route.remoteOrderId ?? undefined, changeKey: route.changeKey ?? undefined };
      if (receipt.action === 'ignore' || receipt.action === 'refuse') {
        if (onInvalid) {
          const abort = lazyAbort();
          const r = await runLimited(
            () =>
              onInvalid({
                reason: receipt.reason, route: route.id, ...params, delivery: meta, report: receipt.report, rawBody: body, headers, answer: receipt.answer,
                get signal() {
                  return abort.signal;
                },
              }),
            abort,
          );
          if (r.threw) report(r.error, { ...info, code: 'ON_INVALID_FAILED' });
        }
        return { answer: receipt.answer };
      }
      const handler = handlers[route.id];
      if (!handler) return { answer: answerOf(route.id, 'no-handler') };
      let payload;
      try {
        payload = JSON.parse(decoder.decode(body));
      } catch (err) {
        report(err, { ...info, code: 'PAYLOAD_PARSE_FAILED' });
        return { answer: answerOf(route.id, 'threw') };
      }
      const abort = lazyAbort();
      const ctx = {
        payload, route: route.id, ...params, delivery: meta, report: receipt.report, headers, rawBody: body,
        get signal() {
          return abort.signal;
        },
      };
      const r = await runLimited(() => handler(ctx), abort);
      const settle = (res) => {
        if (res.threw) {
          report(res.error, { ...info, code: 'HANDLER_FAILED' });
          return answerOf(route.id, 'threw');
        }
        let value = null;
        if (route.id === 'orderCreated') {
          if (typeof res.value === 'string') value = res.value;
          else report(new PoscheckError(`onOrderCreated must return the POS order id as a non-empty string, got ${res.value === null ? 'null' : typeof res.value}`, 'NO_REMOTE_ORDER_ID'), { ...info, code: 'NO_REMOTE_ORDER_ID' });
        }
        const a = answerOf(route.id, 'returned', value);
        if (a.status !== 200 && value !== null) report(new PoscheckError('onOrderCreated returned an empty remoteOrderId', 'NO_REMOTE_ORDER_ID'), { ...info, code: 'NO_REMOTE_ORDER_ID' });
        return a;
      };
      if (r.timeout) {
        report(new PoscheckError(`the handler did not finish within ${timeoutMs} ms`, 'HANDLER_TIMEOUT'), { ...info, code: 'HANDLER_TIMEOUT' });
        // The claim stays until the handler settles: a retry then gets its answer, never a second call.
        return { answer: answerOf(route.id, 'timeout'), late: r.late.then(settle) };
      }
      return { answer: settle(r) };
    }

    /**
     * The framework-free core of every adapter. `request` = { method, url, headers, read(limit),
     * contentLength? }; resolves to { matched, answer } where answer = { status, headers, body, code }.
     */
    async function respond(request) {
      if (!isReady()) throw new PoscheckError('the WebAssembly module is not initialized yet: await init() first', 'NOT_INITIALIZED');
      const { method, url, headers } = request;
      const base = request.basePath ?? basePath;
      const routing = raw.receiverRoute(String(method), String(url), base);
      if (routing.action !== 'matched') return { matched: false, found: routing.action === 'methodNotAllowed', answer: routing.answer };
      const route = routing.route;
      const tooLarge = () => ({ matched: true, tooLarge: true, answer: answerOf(route.id, 'too-large') });
      if (request.contentLength !== undefined && request.contentLength > maxBodyBytes) return tooLarge();
      const body = await request.read(maxBodyBytes);
      if (body === TOO_LARGE) return tooLarge();
      if (body === UNAVAILABLE) {
        report(new PoscheckError('the raw body was consumed by a body parser before the receiver', 'BODY_UNAVAILABLE'), { route: route.id, code: 'BODY_UNAVAILABLE' });
        return { matched: true, answer: answerOf(route.id, 'body-unavailable') };
      }
      const pairs = headerList(headers);
      const at = now();
      let receipt;
      if (native !== null && body.length > NATIVE_HMAC_FROM) {
        let checked = null;
        try {
          checked = native.check(headerList(headers, true), secrets, at, tolerance);
        } catch {
          // Refused headers: the one-call path below answers with the core's refusal.
        }
        if (checked !== null) {
          const macs = native.macs(secrets, checked.prefix, body);
          receipt = raw.receiverReceiveMacs(String(method), String(url), base, pairs, body, checked.lengths, macs, at, tolerance);
        }
      }
      receipt ??= raw.receiverReceive(String(method), String(url), base, pairs, body, secrets, at, tolerance);
      if (receipt.action === 'reject') return { matched: true, answer: receipt.answer };
      const deliveryId = receipt.delivery.deliveryId;
      // A refused creation is answered non-200 and stored nowhere; a delivery without an id is
      // processed and never deduplicated against another.
      if (deliveryId === null || deliveryId === undefined || receipt.action === 'refuse') {
        const done = await dispatch(receipt, route, body, headers, deliveryId);
        if (done.late) done.late.catch(() => {});
        return { matched: true, answer: done.answer };
      }
      const info = { route: route.id, deliveryId };
      const token = newToken();
      const deadline = Date.now() + duplicateWaitMs;
      let pause = 20;
      for (;;) {
        let claim;
        try {
          claim = await store.claim(deliveryId, { token, leaseMs });
        } catch (err) {
          report(err, { ...info, code: 'STORE_UNAVAILABLE' });
          // The claim may still land once the store answers: drop it then (best effort).
          releaseClaim(deliveryId, token, info);
          return { matched: true, answer: answerOf(route.id, 'store-unavailable') };
        }
        if (claim.state === 'done') return { matched: true, replayed: true, answer: claim.answer };
        if (claim.state === 'claimed') break;
        if (Date.now() + pause > deadline) return { matched: true, answer: answerOf(route.id, 'in-progress') };
        await sleep(pause);
        pause = Math.min(pause * 2, 250);
      }
      let done;
      try {
        done = await dispatch(receipt, route, body, headers, deliveryId);
      } catch (err) {
        await releaseClaim(deliveryId, token, info);
        throw err;
      }
      const finish = async (answer) => {
        if (answer.status === 200) await record(deliveryId, token, answer, info);
        else await releaseClaim(deliveryId, token, info);
      };
      if (done.late) {
        done.late.then(finish, () => releaseClaim(deliveryId, token, info));
        return { matched: true, answer: done.answer };
      }
      await finish(done.answer);
      return { matched: true, answer: done.answer };
    }

    const headersOf = (answer, extra) => {
      const h = { ...BASE_HEADERS };
      for (const [n, v] of answer.headers ?? []) h[n] = v;
      return extra ? { ...h, ...extra } : h;
    };

    const failure = (err, route) => {
      report(err, { route, code: 'RECEIVER_FAILED' });
      return { status: 500, code: 'RECEIVER_FAILED', headers: [], body: '{"error":"RECEIVER_FAILED","message":"the receiver failed; see the server log"}' };
    };

    // node:http, Express and any (req, res, next) framework.
    const nodeRequest = (req, url) => ({
      method: req.method,
      url,
      headers: req.headers,
      contentLength: declaredLength(req.headers['content-length']),
      read: (limit) => {
        if (req._body === true || req.readableEnded) {
          // A body parser ran first. Raw bytes it kept (express.raw(), a verify callback's
          // req.rawBody) are the bytes received; a parsed body (express.json()) is not.
          for (const kept of [req.rawBody, req.body]) {
            if (kept instanceof Uint8Array) return kept.length > limit ? TOO_LARGE : kept;
          }
          return declaredLength(req.headers['content-length']) === 0 && req._body !== true ? new Uint8Array(0) : UNAVAILABLE;
        }
        return readNodeStream(req, limit);
      },
    });

    function writeNode(res, req, result) {
      const { answer } = result;
      if (res.headersSent) return;
      res.writeHead(answer.status, headersOf(answer));
      res.end(req.method === 'HEAD' ? undefined : answer.body);
      if (result.tooLarge) discardRest(req, 4 * maxBodyBytes);
    }

    async function serveNode(req, res, next, url) {
      let result;
      try {
        result = await respond(nodeRequest(req, url));
      } catch (err) {
        if (err && err.code === 'ECONNRESET') return;
        result = { answer: failure(err) };
      }
      if (!result.matched && !result.found && typeof next === 'function') return next();
      writeNode(res, req, result);
    }

    /** node:http: `http.createServer(receiver.node)`; with `next` (connect), unknown paths go on. */
    const node = (req, res, next) => serveNode(req, res, next, req.url);

    /**
     * Express 4 and 5: `app.use(receiver.express())` or `app.use('/pos', receiver.express())`, before
     * any body parser; unknown paths go on to the app's other routes. `receiver.express` itself is
     * also a middleware, so `app.use(receiver.express)` works too.
     */
    const expressMiddleware = (req, res, next) => serveNode(req, res, next, req.url);
    const express = (req, res, next) => (req === undefined ? expressMiddleware : expressMiddleware(req, res, next));

    /** Fetch API: `(Request) => Promise<Response>` for Hono, Next.js route handlers, Workers, Deno, Bun. */
    const fetchHandler = async (request) => {
      let result;
      try {
        const u = new URL(request.url);
        result = await respond({
          method: request.method,
          url: u.pathname + u.search,
          headers: request.headers,
          contentLength: declaredLength(request.headers.get('content-length')),
          read: (limit) => {
            if (request.bodyUsed) return UNAVAILABLE;
            return request.body ? readWebStream(request.body, limit) : new Uint8Array(0);
          },
        });
      } catch (err) {
        result = { answer: failure(err) };
      }
      const { answer } = result;
      return new Response(request.method === 'HEAD' ? null : answer.body, { status: answer.status, headers: headersOf(answer) });
    };

    /**
     * Fastify 5 plugin: `app.register(receiver.fastify, { prefix: '/pos' })`. Encapsulated: its raw
     * content-type parser applies to its own routes only.
     */
    async function fastify(instance) {
      instance.removeAllContentTypeParsers();
      // Hand the raw stream over untouched, whatever the Content-Type; the kit reads it with its cap.
      instance.addContentTypeParser('*', (request, payload, done) => done(null, payload));
      const base = (instance.prefix ?? '') + basePath.replace(/\/+$/, '');
      instance.route({
        method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
        url: `${basePath.replace(/\/+$/, '')}/v1/*`,
        exposeHeadRoute: false,
        handler: async (request, reply) => {
          let result;
          try {
            result = await respond({
              method: request.method,
              url: request.raw.url,
              basePath: base,
              headers: request.headers,
              contentLength: declaredLength(request.headers['content-length']),
              read: (limit) => {
                const stream = request.body;
                if (stream && typeof stream.on === 'function') return readNodeStream(stream, limit);
                if (stream !== undefined && stream !== null) return UNAVAILABLE;
                return request.raw.readableEnded ? new Uint8Array(0) : readNodeStream(request.raw, limit);
              },
            });
          } catch (err) {
            result = { answer: failure(err) };
          }
          const { answer } = result;
          if (result.tooLarge) discardRest(request.raw, 4 * maxBodyBytes);
          reply.code(answer.status).headers(headersOf(answer));
          return reply.send(request.method === 'HEAD' ? undefined : answer.body);
        },
      });
    }

    /**
     * Framework-free: `await receiver.handle({ method, url, headers, body })` → { status, headers, body }.
     * `body` is the raw bytes (string, Buffer, Uint8Array, ArrayBuffer, ReadableStream or async
     * iterable of chunks); a parsed object is refused (PAYLOAD_NOT_RAW).
     */
    async function handle({ method, url, headers, body } = {}) {
      if (typeof method !== 'string' || typeof url !== 'string') throw invalid('handle(request): expected { method, url, headers, body } with method and url strings');
      if (body !== null && body !== undefined && typeof body === 'object' && toBytes(body) === undefined && typeof body.getReader !== 'function' && typeof body[Symbol.asyncIterator] !== 'function') {
        throw new WebhookVerificationError('handle(): body is a parsed object, not the raw request bytes; pass the bytes exactly as received', 'PAYLOAD_NOT_RAW');
      }
      const result = await respond({ method, url, headers, read: (limit) => readGiven(body, limit, toBytes) });
      const { answer } = result;
      return { status: answer.status, code: answer.code, headers: headersOf(answer), body: answer.body, matched: result.matched, replayed: result.replayed === true };
    }

    // The receiver is its own framework-free handler, with the adapters beside it.
    const receiver = (request) => handle(request);
    return Object.assign(receiver, { handle, node, express, fetch: fetchHandler, fastify, store });
  }

  return { createReceiver, createMemoryStore, createRedisStore };
}
