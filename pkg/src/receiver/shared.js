// What the receiver kit's parts share: the limits and defaults, the markers of a body not read,
// the routes' constants, the store states, and the store's error (see pkg/src/receiver.js).

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 25_000;
export const DEFAULT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/** Bodies larger than this are hashed with the platform's native HMAC where there is one (measured in
 * process: twice as fast at 64 KB, no faster at 4 KB, where the extra call costs what it saves). */
export const NATIVE_HMAC_FROM = 4096;
/** Bodies from this size are hashed with the platform's native SHA-256 in the receiver's one call
 * (receiverIo), smaller ones in the wasm: a native call costs about what the wasm spends on a few blocks. */
export const NATIVE_HASH_FROM = 256;
/** The core tries at most this many secrets (src/signature/verify.rs, MAX_SECRETS). */
export const MAX_SECRETS = 16;
/** Unix seconds stay below this until the year 5138; Date.now() values are far above. */
export const MILLISECONDS_THRESHOLD = 1e11;
/** setTimeout's longest delay; past it the timer fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const TOO_LARGE = Symbol('too large');
export const UNAVAILABLE = Symbol('body unavailable');
export const NOT_READ = Symbol('body not read yet');
/** The payload kind each route's report carries (`RouteId::payload_kind` in src/receiver/mod.rs). */
const PAYLOAD_KIND = { orderCreated: 'orderCreated', orderUpdate: 'orderUpdateEvent', menuChangeCompleted: 'menuChangeCompleted' };
/** The clean report of each route's payload (no diagnostic), as the core's: one frozen object each, shared by the deliveries. */
export const CLEAN_REPORT = Object.fromEntries(
  Object.entries(PAYLOAD_KIND).map(([route, kind]) => [
    route,
    Object.freeze({ kind, ok: true, errorCount: 0, warningCount: 0, infoCount: 0, diagnostics: Object.freeze([]), errors: Object.freeze({}) }),
  ]),
);
export const HANDLER_OF = { orderCreated: 'onOrderCreated', orderUpdate: 'onOrderUpdate', menuChangeCompleted: 'onMenuChangeCompleted' };
export const BASE_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };
/** The synchronous face of a store made by createMemoryStore (claim, complete, release answered at once). */
export const SYNC_STORE = Symbol('poscheck.syncStore');
export const CLAIMED = Object.freeze({ state: 'claimed' });
export const PENDING = Object.freeze({ state: 'pending' });
/** The route ids of the core, in `RouteId::ALL` order (receiverIo answers 1 + an index). */
export const ROUTE_IDS = ['orderCreated', 'orderUpdate', 'menuChangeCompleted'];
/** Printable ASCII but space, `"` and `\`: a remoteOrderId the core answers verbatim (`created_id_verbatim` in src/receiver/receive.rs). */
export const VERBATIM_ID = /^[!#-[\]-~]+$/;

export function storeError(message, cause) {
  const e = new Error(message, cause === undefined ? undefined : { cause });
  e.name = 'PoscheckError';
  e.code = 'STORE_UNAVAILABLE';
  return e;
}
