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
/** Bodies from this size are hashed with the platform's native SHA-256 in the receiver's one call
 * (receiverIo), smaller ones in the wasm: a native call costs about what the wasm spends on a few blocks. */
export const NATIVE_HASH_FROM = 256;
/** The core tries at most this many secrets (src/signature.rs, MAX_SECRETS). */
const MAX_SECRETS = 16;
/** Unix seconds stay below this until the year 5138; Date.now() values are far above. */
const MILLISECONDS_THRESHOLD = 1e11;
/** setTimeout's longest delay; past it the timer fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const TOO_LARGE = Symbol('too large');
const UNAVAILABLE = Symbol('body unavailable');
const NOT_READ = Symbol('body not read yet');
/** The payload kind each route's report carries (`RouteId::payload_kind` in src/receiver.rs). */
const PAYLOAD_KIND = { orderCreated: 'orderCreated', orderUpdate: 'orderUpdateEvent', menuChangeCompleted: 'menuChangeCompleted' };
/** The clean report of each route's payload (no diagnostic), as the core's: one frozen object each, shared by the deliveries. */
const CLEAN_REPORT = Object.fromEntries(
  Object.entries(PAYLOAD_KIND).map(([route, kind]) => [
    route,
    Object.freeze({ kind, ok: true, errorCount: 0, warningCount: 0, infoCount: 0, diagnostics: Object.freeze([]), errors: Object.freeze({}) }),
  ]),
);
const HANDLER_OF = { orderCreated: 'onOrderCreated', orderUpdate: 'onOrderUpdate', menuChangeCompleted: 'onMenuChangeCompleted' };
const BASE_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
/** The synchronous face of a store made by createMemoryStore (claim, complete, release answered at once). */
const SYNC_STORE = Symbol('poscheck.syncStore');
const CLAIMED = Object.freeze({ state: 'claimed' });
const PENDING = Object.freeze({ state: 'pending' });
/** The route ids of the core, in `RouteId::ALL` order (receiverIo answers 1 + an index). */
const ROUTE_IDS = ['orderCreated', 'orderUpdate', 'menuChangeCompleted'];
/** Printable ASCII but space, `"` and `\`: a remoteOrderId the core answers verbatim (`created_id_verbatim` in src/receiver.rs). */
const VERBATIM_ID = /^[!#-[\]-~]+$/;
/** `value` (each of an array) after `name` onto `list`, as headerList does. */
function addValues(list, name, value) {
  if (Array.isArray(value)) {
    for (const v of value) if (v !== undefined && v !== null) list.push(name, String(v));
  } else {
    list.push(name, String(value));
  }
}
/** Claim tokens of the stores made here (unique in the process; every receiver over one such store is in it). */
let localTokens = 0;

let tokenCounter = 0;
/** This process's part of its claim tokens, made once (base-36 conversions cost about 0.3 µs each). */
const TOKEN_PREFIX = `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 12)}.`;
/** A claim token: unique among the receivers sharing a store (not a secret). */
function newToken() {
  tokenCounter = (tokenCounter + 1) % Number.MAX_SAFE_INTEGER;
  return TOKEN_PREFIX + tokenCounter;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function storeError(message, cause) {
  const e = new Error(message, cause === undefined ? undefined : { cause });
  e.name = 'PoscheckError';
  e.code = 'STORE_UNAVAILABLE';
  return e;
}

/**
 * Limits promises to `ms` each with one timer for all of them, not one per call: every call gets
 * the same limit, so the pending calls are in deadline order in a FIFO; the timer waits for the
 * oldest unsettled one, and settled entries are skipped when the timer reaches them.
 */
function deadlines(ms, what) {
  let queue = [];
  let head = 0;
  let timer = null;
  const arm = () => {
    while (head < queue.length && queue[head].settled) queue[head++] = undefined;
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    if (timer !== null || head >= queue.length) return;
    timer = setTimeout(fire, Math.max(0, queue[head].deadline - Date.now()));
    timer.unref?.(); // the pending calls' own I/O keeps the process up, not this timer
  };
  const fire = () => {
    timer = null;
    const now = Date.now();
    while (head < queue.length && (queue[head].settled || queue[head].deadline <= now)) {
      const e = queue[head];
      queue[head++] = undefined;
      if (!e.settled) {
        e.settled = true;
        e.reject(storeError(`${what}: no answer from the store within ${ms} ms`));
      }
    }
    arm();
  };
  return (promise) =>
    new Promise((resolve, reject) => {
      const e = { deadline: Date.now() + ms, settled: false, reject };
      queue.push(e);
      arm();
      promise.then(
        (v) => {
          if (e.settled) return;
          e.settled = true;
          resolve(v);
        },
        (err) => {
          if (e.settled) return;
          e.settled = true;
          reject(err);
        },
      );
    });
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
 * completed entries go first, live claims never), entries expire on their own.
 *
 * Constant cost per call at and beyond the cap: completed answers and live claims each sit in a
 * FIFO ring (an array with a moving head) in the order they were written, which is their expiry
 * order for one TTL and one lease. Expiry and eviction look at the heads only. A slot whose entry
 * was replaced, released or expired is stale (the Map no longer holds that entry object) and is
 * skipped when it reaches the head; a ring holding more than twice as many slots as live entries
 * is compacted, which keeps it bounded at an amortized constant cost.
 */
export function createMemoryStore({ maxEntries = 100_000, clock = () => Date.now() } = {}) {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  // id → { id, token, status, code, body, expires, ring }: `ring` is the ring the entry is in (null
  // once removed; `done` once answered), so that a slot is live when its entry is still in that
  // ring, without a lookup. The answer is kept as three fields: one object less per delivery.
  const entries = new Map();
  const ring = () => ({ slots: [], head: 0, live: 0 });
  const done = ring(); // completed answers, oldest first
  const claims = ring(); // pending claims, oldest first
  const push = (r, e) => {
    e.ring = r;
    r.slots.push(e);
    r.live += 1;
    if (r.slots.length - r.head > 2 * r.live + 64) compact(r);
  };
  /** Drops stale slots (and, with `now`, expired entries) from the whole ring. O(ring), amortized O(1). */
  const compact = (r, now) => {
    const kept = [];
    for (let i = r.head; i < r.slots.length; i++) {
      const e = r.slots[i];
      if (e.ring !== r) continue;
      if (now !== undefined && e.expires <= now) {
        drop(e);
        continue;
      }
      kept.push(e);
    }
    r.slots = kept;
    r.head = 0;
    r.live = kept.length;
  };
  /** Takes the head slot off (and the backing array's consumed front, now and then). */
  const shift = (r) => {
    const e = r.slots[r.head];
    r.slots[r.head] = undefined;
    r.head += 1;
    if (r.head >= 1024 && r.head * 2 >= r.slots.length) {
      r.slots = r.slots.slice(r.head);
      r.head = 0;
    }
    return e;
  };
  /** Takes an entry out of its ring (its slot goes stale). */
  const leave = (e) => {
    e.ring.live -= 1;
    e.ring = null;
  };
  /** Removes a live entry. */
  const drop = (e) => {
    entries.delete(e.id);
    leave(e);
  };
  /** Expired entries at the head of a ring, and stale head slots. */
  const sweep = (r, now) => {
    while (r.head < r.slots.length) {
      const e = r.slots[r.head];
      if (e.ring === r) {
        if (e.expires > now) return;
        drop(e);
      }
      shift(r);
    }
  };
  const live = (id, now) => {
    const e = entries.get(id);
    if (e !== undefined && e.expires <= now) {
      drop(e);
      return undefined;
    }
    return e;
  };
  const makeRoom = (now) => {
    while (entries.size >= maxEntries && done.head < done.slots.length) {
      const e = shift(done);
      if (e.ring === done) drop(e);
    }
    if (entries.size >= maxEntries) {
      // Only claims left: drop the expired ones wherever they are (leases of different lengths).
      compact(claims, now);
      if (entries.size >= maxEntries) throw storeError(`memory store full: ${maxEntries} deliveries are being handled at once`);
    }
  };
  const claim = (id, token, leaseMs) => {
    const now = clock();
    sweep(done, now);
    sweep(claims, now);
    const e = live(id, now);
    if (e === undefined) {
      makeRoom(now);
      const c = { id, token, status: 0, code: undefined, body: undefined, expires: now + leaseMs, ring: null };
      entries.set(id, c);
      push(claims, c);
      return CLAIMED;
    }
    if (e.ring === done) return { state: 'done', answer: { status: e.status, code: e.code, body: e.body } };
    return e.token === token ? CLAIMED : PENDING;
  };
  /** Keeps the answer's status, code and body (what a replay answers), not the object. */
  const complete = (id, token, answer, ttlMs) => {
    const now = clock();
    let e = live(id, now);
    if (e !== undefined && e.ring === claims) {
      // This token's claim becomes the answer, in place: one lookup, no second entry.
      if (e.token !== token) return false;
      leave(e);
    } else {
      // An answer sent again (a fresh expiry) or a claim that expired meanwhile: a new entry.
      if (e !== undefined) drop(e);
      else {
        try {
          makeRoom(now);
        } catch {
          // Full of live claims: the answer is kept all the same (one over the cap, briefly).
        }
      }
      e = { id, token, status: 0, code: undefined, body: undefined, expires: 0, ring: null };
      entries.set(id, e);
    }
    e.token = token;
    e.status = answer.status;
    e.code = answer.code;
    e.body = answer.body;
    e.expires = now + ttlMs;
    push(done, e);
    return true;
  };
  const release = (id, token) => {
    const e = live(id, clock());
    if (e !== undefined && e.ring === claims && e.token === token) drop(e);
  };
  return {
    kind: 'memory',
    async claim(id, { token, leaseMs }) {
      return claim(id, token, leaseMs);
    },
    async complete(id, token, answer, ttlMs) {
      return complete(id, token, answer, ttlMs);
    },
    async release(id, token) {
      release(id, token);
    },
    // The same calls, answered at once: what createReceiver calls on a store made here (no promise per delivery).
    [SYNC_STORE]: { claim, complete, release },
    get size() {
      return entries.size;
    },
    /** Slots held by the two rings, stale ones included (bounded: about twice `size`, plus a constant). */
    get ringSlots() {
      return done.slots.length - done.head + claims.slots.length - claims.head;
    },
  };
}

// Lua, so that each step that reads then writes is one atomic step on the server. A claim needs
// none: SET NX is that step (a GET follows only when the key was taken).
const COMPLETE_LUA = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] or v == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
// The claims and records one process asked for in one turn of its event loop, in the order asked,
// as one command: a claim ('c', token, lease) answers 1 when it took the key, else what holds the
// key; a record ('r', token, answer, ttl) answers 1 or 0 as COMPLETE_LUA does.
const BATCH_LUA = `local out, a = {}, 1
for i = 1, #KEYS do
  local k = KEYS[i]
  if ARGV[a] == 'c' then
    if redis.call('SET', k, ARGV[a + 1], 'NX', 'PX', ARGV[a + 2]) then out[i] = 1 else out[i] = redis.call('GET', k) or 0 end
    a = a + 3
  else
    local v = redis.call('GET', k)
    if v == false or v == ARGV[a + 1] or v == ARGV[a + 2] then
      redis.call('SET', k, ARGV[a + 2], 'PX', ARGV[a + 3])
      out[i] = 1
    else
      out[i] = 0
    end
    a = a + 4
  end
end
return out`;
/** Each script with its SHA-1, for EVALSHA (tests/receiver/stores.test.mjs checks the digests). */
export const REDIS_SCRIPTS = {
  complete: [COMPLETE_LUA, '18e6714cec02b56232a5734c23b160ce33a79db6'],
  release: [RELEASE_LUA, '7f8f6677b8f2b4b65b9b9905151ced126e6b7e49'],
  batch: [BATCH_LUA, 'd86f69ce884b8d7d4c46535dd79029f26cbf2472'],
};
const { complete: COMPLETE, release: RELEASE, batch: BATCH } = REDIS_SCRIPTS;
/** At most this many claims and records in one batch command. */
const REDIS_BATCH_MAX = 64;
const nextTurn = typeof setImmediate === 'function' ? setImmediate : (f) => setTimeout(f, 0);

/**
 * A Redis store for receivers running as several processes or machines. `client` is a connected
 * client of the `redis` package (node-redis 4+) or of `ioredis`. A claim is one `SET NX PX` (and a
 * `GET` when the delivery is already known); recording and releasing are small Lua scripts
 * (EVALSHA, and EVAL once when Redis does not know one yet). The claims and records asked for in
 * one turn of the event loop go as one command (a script over their keys, in the order asked),
 * unless `batch` is false or the client is an ioredis Cluster (whose keys may sit on different
 * nodes). Nothing else is sent. Every call
 * gives up after `timeoutMs` (the receiver then
 * answers 503 and calls no handler).
 */
export function createRedisStore(client, { prefix = 'poscheck:delivery:', timeoutMs = 1000, batch = true } = {}) {
  let send;
  if (client && typeof client.call === 'function') {
    send = (args) => client.call(...args); // ioredis
  } else if (client && typeof client.sendCommand === 'function') {
    send = (args) => client.sendCommand(args); // node-redis 4+
  } else {
    throw new TypeError('createRedisStore(client): expected a client of the "redis" package (createClient()) or of "ioredis" (new Redis())');
  }
  const limit = deadlines(timeoutMs, 'redis');
  const call = (args) => {
    try {
      return Promise.resolve(send(args));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  // EVALSHA sends the script's digest, not its text; Redis that does not know it yet (new, or
  // restarted) answers NOSCRIPT, and the script is sent once with EVAL.
  const withScript = (command, script) =>
    call(command).catch((err) => {
      if (!/^NOSCRIPT/.test(String(err?.message))) return Promise.reject(err);
      command[0] = 'EVAL';
      command[1] = script;
      return call(command);
    });
  /** A one-key script on `key` (the store's key, prefixed) with `args`. */
  const evalScript = ([script, sha], key, ...args) => {
    const command = ['EVALSHA', sha, '1', key];
    for (const a of args) command.push(String(a));
    return limit(withScript(command, script));
  };
  // ---- batching: the operations asked for in one turn, sent together at its end ----------------
  const batching = batch !== false && client.isCluster !== true;
  let queued = [];
  const flush = () => {
    const ops = queued;
    queued = [];
    for (let from = 0; from < ops.length; from += REDIS_BATCH_MAX) sendBatch(ops.slice(from, from + REDIS_BATCH_MAX));
  };
  const sendBatch = (ops) => {
    if (ops.length === 1) {
      const op = ops[0];
      const single = op.claim ? claimAlone(op.key, op.mine, op.lease) : evalScript(COMPLETE, op.key, op.mine, op.answer, op.ttl).then((v) => Number(v));
      single.then(op.resolve, op.reject);
      return;
    }
    const command = ['EVALSHA', BATCH[1], String(ops.length)];
    for (const op of ops) command.push(op.key);
    for (const op of ops) {
      if (op.claim) command.push('c', op.mine, op.lease);
      else command.push('r', op.mine, op.answer, op.ttl);
    }
    limit(withScript(command, BATCH[0])).then(
      (out) => {
        if (!Array.isArray(out) || out.length !== ops.length) {
          const err = storeError(`redis: the batch script answered ${Array.isArray(out) ? `${out.length} values for ${ops.length} operations` : typeof out}`);
          for (const op of ops) op.reject(err);
          return;
        }
        for (let i = 0; i < ops.length; i++) ops[i].resolve(out[i]);
      },
      (err) => {
        for (const op of ops) op.reject(err);
      },
    );
  };
  /** One claim or record, sent with the others of this turn: its answer as the batch script gives it. */
  const enqueue = (op) =>
    new Promise((resolve, reject) => {
      op.resolve = resolve;
      op.reject = reject;
      if (queued.push(op) === 1) nextTurn(flush);
    });
  /** A claim on its own: SET NX PX, then what holds the key when it is taken (1 when it took it). */
  const claimAlone = async (key, mine, lease) => {
    const set = await limit(call(['SET', key, mine, 'NX', 'PX', lease]));
    if (set !== null && set !== undefined) return 1;
    return (await limit(call(['GET', key]))) ?? 0;
  };

  return {
    kind: 'redis',
    async claim(id, { token, leaseMs }) {
      const key = prefix + id;
      const mine = `p:${token}`;
      const lease = String(Math.max(1, Math.ceil(leaseMs)));
      // A first delivery: one command, as a hand-written receiver sends it. Taken: what holds the
      // key says the rest. A key gone in between (released, expired) is claimed again, twice at
      // most; then it is reported pending, and the receiver asks again after a pause.
      let s = null; // what holds the key
      for (let attempt = 0; attempt < 3 && s === null; attempt++) {
        const v = batching ? await enqueue({ claim: true, key, mine, lease }) : await claimAlone(key, mine, lease);
        if (v === 1) return CLAIMED;
        if (v !== 0 && v !== null && v !== undefined) s = String(v);
      }
      if (s === null) return PENDING;
      if (s.startsWith('d:')) return { state: 'done', answer: JSON.parse(s.slice(2)) };
      // Our own claim, when a client re-sent the command after a reconnection.
      return s === mine ? CLAIMED : PENDING;
    },
    async complete(id, token, answer, ttlMs) {
      const mine = `p:${token}`;
      const value = `d:${JSON.stringify(answer)}`;
      const ttl = String(Math.max(1, Math.ceil(ttlMs)));
      const v = batching ? await enqueue({ claim: false, key: prefix + id, mine, answer: value, ttl }) : await evalScript(COMPLETE, prefix + id, mine, value, ttl);
      return Number(v) === 1;
    },
    async release(id, token) {
      await evalScript(RELEASE, prefix + id, `p:${token}`);
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
  // The common case first: a string of a few digits, read without a regular expression.
  if (typeof value === 'string' && value.length > 0 && value.length < 16) {
    let n = 0;
    for (let i = 0; i < value.length; i++) {
      const d = value.charCodeAt(i) - 48;
      if (d < 0 || d > 9) {
        n = -1;
        break;
      }
      n = n * 10 + d;
    }
    if (n >= 0) return n;
  }
  if (Array.isArray(value)) value = value[0];
  if (value === undefined || value === null || !/^\d+$/.test(String(value).trim())) return undefined;
  return Number(String(value).trim());
}

/**
 * Reads a Node request stream up to `limit` bytes; past it, stops keeping the data (TOO_LARGE).
 * Calls `done(null, bytes | TOO_LARGE)` or `done(error)`, once. Its listeners stay (a settled read
 * ignores what comes after): removing four listeners per request costs more than leaving them to
 * the request, which ends anyway.
 */
function readNodeBody(stream, limit, done, lean = false) {
  let chunks = null;
  let first = null;
  let size = 0;
  let settled = false;
  stream.on('data', (chunk) => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
      first = chunks = null;
      settled = true;
      done(null, TOO_LARGE);
    } else if (first === null) {
      first = chunk;
    } else {
      (chunks ??= [first]).push(chunk);
    }
  });
  stream.on('end', () => {
    if (settled) return;
    settled = true;
    done(null, chunks !== null ? concat(chunks, size) : first ?? new Uint8Array(0));
  });
  if (lean) {
    // node:http's own request (serveNode): its 'error' and an early 'close' come from a client
    // gone before the end of the body, to whom nothing can be answered; an IncomingMessage with
    // no 'error' listener is destroyed without throwing. Two listeners fewer per delivery.
    stream.resume();
    return;
  }
  stream.on('error', (err) => {
    if (settled) return;
    settled = true;
    done(err);
  });
  stream.on('close', () => {
    if (settled) return;
    settled = true;
    done(Object.assign(new Error('the client closed the connection before the body was complete'), { code: 'ECONNRESET' }));
  });
  if (typeof stream.resume === 'function') stream.resume();
}

/** readNodeBody as a promise. */
function readNodeStream(stream, limit) {
  return new Promise((resolve, reject) => readNodeBody(stream, limit, (err, v) => (err ? reject(err) : resolve(v))));
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

/**
 * A handler context's AbortSignal, made on first use (most handlers never read it, and an
 * AbortController per delivery is a measurable part of the kit's cost), kept beside the context
 * rather than in a closure per delivery. After abortContext(ctx, why) it is aborted with `why`,
 * whether it was made before or is made later.
 */
const signals = new WeakMap(); // ctx → AbortController | { reason } (aborted before any read)
function signalOf(ctx) {
  let c = signals.get(ctx);
  if (!(c instanceof AbortController)) {
    const aborted = c;
    c = new AbortController();
    if (aborted !== undefined) c.abort(aborted.reason);
    signals.set(ctx, c);
  }
  return c.signal;
}
function abortContext(ctx, reason) {
  const c = signals.get(ctx);
  if (c instanceof AbortController) c.abort(reason);
  else signals.set(ctx, { reason });
}

/**
 * What a route's handler gets. A class, not an object literal with a `signal` getter: V8 makes
 * such a literal through a runtime call (about 0.6 µs, measured on Node 20), a class instance
 * in about 0.01 µs. `signal` is read from the prototype (not an own property).
 */
class HandlerContext {
  constructor(payload, route, remoteId, remoteOrderId, changeKey, delivery, report, headers, rawBody) {
    this.payload = payload;
    this.route = route;
    this.remoteId = remoteId;
    this.remoteOrderId = remoteOrderId;
    this.changeKey = changeKey;
    this.delivery = delivery;
    this.report = report;
    this.headers = headers;
    this.rawBody = rawBody;
  }

  /** Aborted (with the reason) once the handler overran timeoutMs. */
  get signal() {
    return signalOf(this);
  }
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
  const encoder = new TextEncoder();
  // The common delivery in one call (receiverIo in src/wasm.rs): the request's text and body go
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

    /** `fn()`, tried again with growing pauses while it fails, for storeRetryMs (the first try costs no more than the call). */
    function retryStore(fn) {
      const deadline = Date.now() + storeRetryMs;
      let first;
      try {
        first = fn();
      } catch (err) {
        first = Promise.reject(err);
      }
      return Promise.resolve(first).catch((err) => retryStoreAfter(fn, deadline, err));
    }
    async function retryStoreAfter(fn, deadline, err) {
      let wait = 50;
      for (;;) {
        if (Date.now() + wait > deadline) throw err;
        await sleep(wait);
        wait = Math.min(wait * 2, 1000);
        try {
          return await fn();
        } catch (e) {
          err = e;
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

    /** A receipt to act on (handle, ignore or refuse): deduplicated on its id, then dispatched. */
    async function afterReceipt(receipt, route, body, headers) {
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
          return storeUnavailable(err, route.id, deliveryId, token);
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
      return settleClaimed(done, route.id, deliveryId, token);
    }

    /** The store did not answer a claim: reported, the claim dropped should it land, 503. */
    function storeUnavailable(err, routeId, deliveryId, token) {
      const info = { route: routeId, deliveryId };
      report(err, { ...info, code: 'STORE_UNAVAILABLE' });
      // The claim may still land once the store answers: drop it then (best effort).
      releaseClaim(deliveryId, token, info);
      return { matched: true, answer: answerOf(routeId, 'store-unavailable') };
    }

    /**
     * The answer at once; then the record of a 200, or the claim's release. Answered without
     * waiting for the store to record it: until the record lands, this attempt's claim holds the
     * delivery, so a retry waits for the recorded answer (or, if the record never lands, meets the
     * claim until its lease ends), as when the answer waited. The record's own failures are
     * reported (onError).
     */
    function settleClaimed(done, routeId, deliveryId, token) {
      const info = { route: routeId, deliveryId };
      const finish = (answer) => (answer.status === 200 ? record(deliveryId, token, answer, info) : releaseClaim(deliveryId, token, info));
      if (done.late) done.late.then(finish, () => releaseClaim(deliveryId, token, info));
      else finish(done.answer);
      return { matched: true, answer: done.answer };
    }

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

    /**
     * After the body is read: the common delivery through receiveIo, then, with a store made by
     * createMemoryStore and a handler that returns a value, answered without a promise. Null for
     * the general path (anything receiveIo does not answer; a duplicate whose first attempt is
     * still being handled, which the general path waits for). Otherwise the result, or its promise.
     */
    function receiveFast(method, url, base, headers, body, nodeHeaders = false) {
      const receipt = receiveIo(method, url, base, headers, body, nodeHeaders);
      if (receipt === null) return null;
      const route = receipt.route;
      if (sync === null) return receiveClaimed(receipt, route, body, headers);
      const deliveryId = receipt.delivery.deliveryId;
      const token = (localTokens = (localTokens + 1) % Number.MAX_SAFE_INTEGER);
      let claim;
      try {
        claim = sync.claim(deliveryId, token, leaseMs);
      } catch (err) {
        report(err, { route: route.id, deliveryId, code: 'STORE_UNAVAILABLE' });
        return { matched: true, answer: answerOf(route.id, 'store-unavailable') };
      }
      if (claim.state === 'done') return { matched: true, replayed: true, answer: claim.answer };
      if (claim.state !== 'claimed') return null;
      let done;
      try {
        done = callHandler(receipt, route, body, headers, deliveryId);
      } catch (err) {
        sync.release(deliveryId, token);
        throw err;
      }
      if (typeof done.then === 'function') {
        return done.then(
          (d) => settleSync(d, route.id, deliveryId, token),
          (err) => {
            sync.release(deliveryId, token);
            throw err;
          },
        );
      }
      return settleSync(done, route.id, deliveryId, token);
    }

    /**
     * receiveFast's delivery with a store that answers with promises (Redis): its first claim, then
     * the handler and the answer, without the general path's loop and its closures. A delivery
     * another attempt holds goes to afterReceipt, which waits for that attempt's answer.
     */
    function receiveClaimed(receipt, route, body, headers) {
      const deliveryId = receipt.delivery.deliveryId;
      const token = newToken();
      let claimed;
      try {
        claimed = Promise.resolve(store.claim(deliveryId, { token, leaseMs }));
      } catch (err) {
        claimed = Promise.reject(err);
      }
      return claimed.then(
        (claim) => {
          if (claim.state === 'done') return { matched: true, replayed: true, answer: claim.answer };
          if (claim.state !== 'claimed') return afterReceipt(receipt, route, body, headers);
          let done;
          try {
            done = callHandler(receipt, route, body, headers, deliveryId);
          } catch (err) {
            return releaseClaim(deliveryId, token, { route: route.id, deliveryId }).then(() => Promise.reject(err));
          }
          if (typeof done.then === 'function') {
            return done.then(
              (d) => settleClaimed(d, route.id, deliveryId, token),
              (err) => releaseClaim(deliveryId, token, { route: route.id, deliveryId }).then(() => Promise.reject(err)),
            );
          }
          return settleClaimed(done, route.id, deliveryId, token);
        },
        (err) => storeUnavailable(err, route.id, deliveryId, token),
      );
    }

    /** Records a 200 in the store made by createMemoryStore (or drops the claim), at once. */
    function settleSync(done, routeId, deliveryId, token) {
      if (done.late) done.late.then((answer) => recordSync(answer, routeId, deliveryId, token), () => sync.release(deliveryId, token));
      else recordSync(done.answer, routeId, deliveryId, token);
      return { matched: true, answer: done.answer };
    }

    /** The answer into a store made by createMemoryStore (it keeps its status, code and body), or the claim dropped. */
    function recordSync(answer, routeId, deliveryId, token) {
      try {
        if (answer.status !== 200) sync.release(deliveryId, token);
        else if (!sync.complete(deliveryId, token, answer, dedupeTtlMs)) {
          report(new PoscheckError('another attempt took over this delivery (its claim had expired); the answer was not recorded', 'CLAIM_LOST'), { route: routeId, deliveryId });
        }
      } catch (err) {
        report(err, { route: routeId, deliveryId, code: 'STORE_COMPLETE_FAILED' });
      }
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
      const body = answer.body;
      const length = typeof Buffer === 'function' ? Buffer.byteLength(body) : encoder.encode(body).length;
      const headers =
        answer.headers === undefined || answer.headers.length === 0
          ? { 'Content-Type': BASE_HEADERS['Content-Type'], 'Cache-Control': BASE_HEADERS['Cache-Control'], 'Content-Length': length }
          : { ...headersOf(answer), 'Content-Length': length };
      res.writeHead(answer.status, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
      if (result.tooLarge) discardRest(req, 4 * maxBodyBytes);
    }

    const failed = (res, req) => (err) => writeNode(res, req, { answer: failure(err) });

    /**
     * node:http without `next`: the body first, then the core once (receiveFast); with a store made
     * by createMemoryStore and a handler that returns a value, no promise at all. Anything else, and
     * a request that may pass on to other routes, takes serveNodeAsync.
     */
    function serveNode(req, res, next, url) {
      if (sets === null || typeof next === 'function' || !isReady() || req._body === true || req.readableEnded || declaredLength(req.headers['content-length']) > maxBodyBytes) {
        return serveNodeAsync(req, res, next, url);
      }
      readNodeBody(req, maxBodyBytes, (err, body) => {
        let result;
        try {
          result = body === TOO_LARGE ? null : receiveFast(req.method, url, basePath, req.headers, body, true);
          result ??= general(req.method, url, basePath, req.headers, body, undefined);
        } catch (e) {
          result = { answer: failure(e) };
        }
        if (typeof result.then === 'function') result.then((r) => writeNode(res, req, r), failed(res, req));
        else writeNode(res, req, result);
      }, true);
    }

    async function serveNodeAsync(req, res, next, url) {
      let result;
      try {
        const request = nodeRequest(req, url);
        request.routeFirst = typeof next === 'function';
        result = await respond(request);
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
