// createReceiverApi: createReceiver's options, the core's answers, the handlers' calls, the
// general path (route, read, verify, receive) and the one-call path of the common delivery
// (receiverIo). Deduplication is dedupe.js's, the adapters adapters.js's.
import {
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT_MS,
  NATIVE_HASH_FROM,
  NATIVE_HMAC_FROM,
  MAX_SECRETS,
  MILLISECONDS_THRESHOLD,
  MAX_TIMER_MS,
  TOO_LARGE,
  UNAVAILABLE,
  NOT_READ,
  CLEAN_REPORT,
  HANDLER_OF,
  SYNC_STORE,
  ROUTE_IDS,
  VERBATIM_ID,
} from './shared.js';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import { HandlerContext, abortContext } from './context.js';
import { makeDedupe } from './dedupe.js';
import { makeAdapters } from './adapters.js';

/** `value` (each of an array) after `name` onto `list`, as headerList does. */
function addValues(list, name, value) {
  if (Array.isArray(value)) {
    for (const v of value) if (v !== undefined && v !== null) list.push(name, String(v));
  } else {
    list.push(name, String(value));
  }
}

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
  const encoder = new TextEncoder();
  // The common delivery in one call (receiverIo in src/wasm/webhook.rs): the request's text and body go
  // into the buffer the core shares with the facade, the receipt comes back as numbers.
  const sets = typeof raw.receiverIo === 'function' && typeof facade.keySets === 'function' && typeof raw.ioBuffer === 'function' ? facade.keySets(raw, undefined, true) : null;
  let words = null; // a DataView of the results area, taken again when the memory grew
  let wordsOf = null;
  /** The core's answers that do not depend on a value, by route and outcome, asked once. */
  const answers = new Map();
  let created = null; // [the creation route's 200 for a verbatim id, its body's prefix and suffix]
  const nativeHash = typeof platform.hash === 'function' ? platform.hash : null;
  let joined = null; // [pad | prefix | body], for nativeHash

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
    // A store made by createMemoryStore answers at once: no promise per delivery.
    const sync = store[SYNC_STORE] ?? null;
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
    /**
     * The core's answer after the handler (receiverAnswer). An answer that depends on no value is
     * asked once per route and outcome; the creation route's 200 for an id the core answers verbatim
     * (VERBATIM_ID) is built from its template. Answers are shared: never changed once made.
     */
    const answerOf = (route, outcome, value) => {
      if (value === undefined || value === null) {
        const key = `${route} ${outcome}`;
        let a = answers.get(key);
        if (a === undefined) {
          a = raw.receiverAnswer(route, outcome, undefined);
          answers.set(key, a);
        }
        return a;
      }
      if (route === 'orderCreated' && outcome === 'returned' && typeof value === 'string' && VERBATIM_ID.test(value) && typeof raw.receiverCreatedTemplate === 'function') {
        if (created === null) {
          const [prefix, suffix] = raw.receiverCreatedTemplate();
          created = [raw.receiverAnswer(route, outcome, 'X'), prefix, suffix];
        }
        const [a, prefix, suffix] = created;
        return { status: a.status, code: a.code, body: prefix + value + suffix, headers: a.headers, retry: a.retry, basis: a.basis, restsOn: a.restsOn };
      }
      return raw.receiverAnswer(route, outcome, value);
    };

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

    /** Calls the route's handler (or onInvalid) and decides the answer with the core. */
    async function dispatch(receipt, route, body, headers, deliveryId) {
      if (receipt.action === 'ignore' || receipt.action === 'refuse') {
        const delivery = receipt.delivery;
        const info = { route: route.id, deliveryId, code: undefined };
        const meta = {
          id: delivery.deliveryId,
          timestamp: delivery.timestamp,
          eventType: delivery.eventType,
          secretIndex: delivery.secretIndex,
        };
        const params = { remoteId: route.remoteId ?? undefined, remoteOrderId: route.remoteOrderId ?? undefined, changeKey: route.changeKey ?? undefined };
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
      return callHandler(receipt, route, body, headers, deliveryId);
    }

    /** The answer once the handler settled (`r`: { ok, value } | { threw, error }), decided by the core. */
    function settleHandler(r, routeId, deliveryId) {
      if (r.threw) {
        report(r.error, { route: routeId, deliveryId, code: 'HANDLER_FAILED' });
        return answerOf(routeId, 'threw');
      }
      return returned(r.value, routeId, deliveryId);
    }

    /** The answer after the handler returned `v`, decided by the core. */
    function returned(v, routeId, deliveryId) {
      let value = null;
      if (routeId === 'orderCreated') {
        if (typeof v === 'string') value = v;
        else report(new PoscheckError(`onOrderCreated must return the POS order id as a non-empty string, got ${v === null ? 'null' : typeof v}`, 'NO_REMOTE_ORDER_ID'), { route: routeId, deliveryId, code: 'NO_REMOTE_ORDER_ID' });
      }
      const a = answerOf(routeId, 'returned', value);
      if (a.status !== 200 && value !== null) report(new PoscheckError('onOrderCreated returned an empty remoteOrderId', 'NO_REMOTE_ORDER_ID'), { route: routeId, deliveryId, code: 'NO_REMOTE_ORDER_ID' });
      return a;
    }

    /**
     * Calls the route's handler for a `handle` receipt: `{ answer, late? }` at once when the handler
     * returns a value (or throws), a promise of it when it returns a promise (then within timeoutMs).
     */
    function callHandler(receipt, route, body, headers, deliveryId) {
      const routeId = route.id;
      const handler = handlers[routeId];
      if (!handler) return { answer: answerOf(routeId, 'no-handler') };
      let payload;
      try {
        payload = JSON.parse(decoder.decode(body));
      } catch (err) {
        report(err, { route: routeId, deliveryId, code: 'PAYLOAD_PARSE_FAILED' });
        return { answer: answerOf(routeId, 'threw') };
      }
      const delivery = receipt.delivery;
      const ctx = new HandlerContext(
        payload,
        routeId,
        route.remoteId ?? undefined,
        route.remoteOrderId ?? undefined,
        route.changeKey ?? undefined,
        { id: delivery.deliveryId, timestamp: delivery.timestamp, eventType: delivery.eventType, secretIndex: delivery.secretIndex },
        receipt.report,
        headers,
        body,
      );
      let value;
      try {
        value = handler(ctx);
      } catch (error) {
        return { answer: settleHandler({ threw: true, error }, routeId, deliveryId) };
      }
      if (value === null || (typeof value !== 'object' && typeof value !== 'function') || typeof value.then !== 'function') {
        return { answer: returned(value, routeId, deliveryId) };
      }
      return runLimited(() => value, { abort: (why) => abortContext(ctx, why) }).then((r) => {
        if (!r.timeout) return { answer: settleHandler(r, routeId, deliveryId) };
        report(new PoscheckError(`the handler did not finish within ${timeoutMs} ms`, 'HANDLER_TIMEOUT'), { route: routeId, deliveryId, code: 'HANDLER_TIMEOUT' });
        // The claim stays until the handler settles: a retry then gets its answer, never a second call.
        return { answer: answerOf(routeId, 'timeout'), late: r.late.then((res) => settleHandler(res, routeId, deliveryId)) };
      });
    }

    /**
     * The framework-free core of every adapter. `request` = { method, url, headers, read(limit),
     * contentLength? }; resolves to { matched, answer } where answer = { status, headers, body, code }.
     */
    async function respond(request) {
      if (!isReady()) throw new PoscheckError('the WebAssembly module is not initialized yet: await init() first', 'NOT_INITIALIZED');
      const { method, url, headers } = request;
      const base = request.basePath ?? basePath;
      // The body first, then one call into the core, unless the request may pass on to other
      // routes (a middleware's `next`: an unknown path's body is not ours to read) or says it is
      // too large (answered as the route decides).
      if (sets !== null && request.routeFirst !== true && !(request.contentLength > maxBodyBytes)) {
        const body = await request.read(maxBodyBytes);
        if (body !== TOO_LARGE && body !== UNAVAILABLE) {
          const done = receiveFast(method, url, base, headers, body);
          if (done !== null) return done;
        }
        return general(method, url, base, headers, body, undefined);
      }
      return general(method, url, base, headers, NOT_READ, request);
    }

    /** Any request: routed by the core first (receiverRoute), then read and received (receiverReceive). */
    async function general(method, url, base, headers, given, request) {
      const routing = raw.receiverRoute(String(method), String(url), base);
      if (routing.action !== 'matched') return { matched: false, found: routing.action === 'methodNotAllowed', answer: routing.answer };
      const route = routing.route;
      const tooLarge = () => ({ matched: true, tooLarge: true, answer: answerOf(route.id, 'too-large') });
      if (given === NOT_READ && request.contentLength !== undefined && request.contentLength > maxBodyBytes) return tooLarge();
      const body = given === NOT_READ ? await request.read(maxBodyBytes) : given;
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
      return afterReceipt(receipt, route, body, headers);
    }

    // Deduplication (dedupe.js): the common delivery's path, and any receipt's.
    const { afterReceipt, receiveFast } = makeDedupe({
      store,
      sync,
      leaseMs,
      dedupeTtlMs,
      duplicateWaitMs,
      storeRetryMs,
      report,
      answerOf,
      dispatch,
      callHandler,
      receiveIo,
      PoscheckError,
    });

    /**
     * Where the platform has a native SHA-256 (`platform.hash`: node:crypto), bodies from
     * NATIVE_HASH_FROM bytes are hashed by it for receiverIo: one inner hash per secret (its pad
     * block, then the prefix, then the body) into the shared buffer, over the prefix read from the
     * X-Service-Timestamp header, which the core uses only if it is the signed prefix it finds.
     * Returns how many were written (0: the core hashes; `prefixLength` is set).
     */
    let prefixLength = 0;
    function innerHashes(list, keys, body) {
      const { HASHES_AT, PREFIX_AT, PREFIX_MAX } = sets.shared.layout();
      let ts;
      for (let i = 0; i < list.length; i += 2) {
        const name = list[i];
        if (name === 'x-service-timestamp' || name.toLowerCase() === 'x-service-timestamp') {
          ts = list[i + 1];
          break;
        }
      }
      if (ts === undefined || ts.length >= PREFIX_MAX) return 0;
      const pads = sets.padsOf(keys); // made once per key set; may grow the memory
      const { io } = sets.shared.views();
      const size = 64 + ts.length + 1 + body.length;
      if (joined === null || joined.length < size) joined = new Uint8Array(Math.max(size, 4096 + 192));
      // The prefix, byte for byte (ASCII only: anything else is the general path's).
      for (let i = 0; i < ts.length; i++) {
        const c = ts.charCodeAt(i);
        if (c > 0x7f) return 0;
        joined[64 + i] = c;
        io[PREFIX_AT + i] = c;
      }
      joined[64 + ts.length] = 0x2e; // '.'
      io[PREFIX_AT + ts.length] = 0x2e;
      prefixLength = ts.length + 1;
      joined.set(body, 64 + prefixLength);
      const whole = joined.subarray(0, size);
      for (let i = 0; i < pads.length; i++) {
        joined.set(pads[i], 0);
        const digest = nativeHash('sha256', whole, 'latin1');
        const at = HASHES_AT + 32 * i;
        for (let k = 0; k < 32; k++) io[at + k] = digest.charCodeAt(k);
      }
      return pads.length;
    }

    /** The path parameter whose byte span receiverIo wrote at word `i` (and `i + 1`), or null. */
    const span = (url, i) => {
      const end = words.getUint32(4 * i + 4, true);
      return end === 0 ? null : url.slice(words.getUint32(4 * i, true), end);
    };

    /**
     * The service headers of Node's `req.headers` as headerList(h, true) gives them: its names are
     * lower-case and each of these four is one string (Node joins repeated ones), so they are read
     * by name, in the order Node keeps them, without a pass over every header.
     */
    function nodeServiceHeaders(headers) {
      const list = [];
      for (const name in headers) {
        if (name.length > 10 && name.charCodeAt(0) === 0x78 && name.startsWith('x-service-')) {
          const v = headers[name];
          if (v !== undefined && v !== null) addValues(list, name, v);
        }
      }
      return list;
    }

    /**
     * The common delivery in one call into the core (receiverIo): the method, target, base path,
     * service headers and body are written into the shared buffer; the core routes, verifies and
     * validates, and answers with numbers when the delivery is to be handled with a clean report and
     * a delivery id. Anything else (not ASCII, too long for the buffer, refused, a report with
     * diagnostics…) is null: the general path then says what it is.
     */
    function receiveIo(method, url, base, headers, body, nodeHeaders) {
      if (typeof method !== 'string' || typeof url !== 'string' || typeof base !== 'string' || !(body instanceof Uint8Array)) return null;
      const list = nodeHeaders ? nodeServiceHeaders(headers) : headerList(headers, true);
      // The header text is the pairs joined by line feeds (concatenated: Array#join costs more).
      let headerText = list.length === 0 ? '' : list[0];
      for (let i = 1; i < list.length; i++) headerText += '\n' + list[i];
      const head = method + url + base + headerText;
      const shared = sets.shared;
      const { TEXT_MAX, HASHES_AT, KEYS_REPLACED } = shared.layout();
      if (head.length + body.length > TEXT_MAX) return null;
      const keys = sets.keysOf(secrets);
      const at = now();
      const { text } = shared.views();
      const { read, written } = encoder.encodeInto(head, text);
      // Every character one byte: the lengths below are the strings' own, and the spans slice `url`.
      if (read !== head.length || written !== head.length) return null;
      text.set(body, written);
      const hashed = nativeHash !== null && body.length >= NATIVE_HASH_FROM ? innerHashes(list, keys, body) : 0;
      const timestamp = raw.receiverIo(method.length, url.length, base.length, headerText.length, list.length, body.length, keys.set, keys.stamp, hashed, prefixLength, at, tolerance);
      if (timestamp < 0) {
        if (timestamp === KEYS_REPLACED) sets.forget(keys);
        return null;
      }
      const views = shared.views(); // the call may have grown the memory
      if (wordsOf !== views.io) {
        const io = views.io;
        wordsOf = io;
        words = new DataView(io.buffer, io.byteOffset + HASHES_AT, 40);
      }
      const routeId = ROUTE_IDS[words.getUint32(0, true) - 1];
      const eventType = words.getUint32(12, true);
      return {
        action: 'handle',
        route: { id: routeId, remoteId: span(url, 4), remoteOrderId: span(url, 6), changeKey: span(url, 8) },
        delivery: { timestamp, deliveryId: list[2 * words.getUint32(8, true) - 1], eventType: eventType === 0 ? null : list[2 * eventType - 1], secretIndex: words.getUint32(4, true) },
        report: CLEAN_REPORT[routeId],
      };
    }

    // The adapters (adapters.js).
    const { handle, node, express, fetchHandler, fastify } = makeAdapters({
      respond,
      general,
      receiveFast,
      report,
      isReady,
      sets,
      basePath,
      maxBodyBytes,
      encoder,
      invalid,
      toBytes,
      WebhookVerificationError,
    });

    // The receiver is its own framework-free handler, with the adapters beside it.
    const receiver = (request) => handle(request);
    return Object.assign(receiver, { handle, node, express, fetch: fetchHandler, fastify, store });
  }

  return { createReceiver, createMemoryStore, createRedisStore };
}
