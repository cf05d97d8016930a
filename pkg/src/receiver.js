// The webhook receiver kit: I/O around the Rust core's decisions (src/receiver/).
//
// The core routes the request, verifies the signature, validates the payload and decides every
// answer; the kit only reads the raw bytes (with a size cap), keeps the deduplication store,
// calls the POS's handlers with a time limit and writes the answer, for node:http, Express,
// Fastify and the Fetch API. Nothing here decides what the contract says.
//
// This file is the kit's entry; its parts are in pkg/src/receiver/: shared.js (limits,
// constants, the store error), memory-store.js and redis-store.js (the stores), body.js (reading
// raw bodies), context.js (a handler's context), dedupe.js (the claim, the record, the wait),
// adapters.js (node:http, Express, Fetch, Fastify, handle) and kit.js (createReceiverApi:
// options, answers, handlers, the general and one-call paths).
//
// They are ES modules; the build concatenates them into one CommonJS copy for the Node build
// (scripts/build-pkg.mjs). They import nothing but each other: the wasm exports and the facade
// are passed to createReceiverApi(). Keep each import as `import { a, b } from './x.js'` (no
// renaming), exports as `export function|class|const` or, here, `export { … } from`, and the
// top-level names unique across the files.
//
// The stores: one interface, three calls, every one keyed on X-Service-Delivery-Id:
//   claim(id, { token, leaseMs }) → { state: 'claimed' } | { state: 'pending' } | { state: 'done', answer }
//   complete(id, token, answer, ttlMs) → true when recorded
//   release(id, token)            → drops this token's claim (a failed handler: the retry runs it)
// A claim expires after leaseMs (a crashed process does not block a delivery for ever); a
// completed answer after ttlMs (24 h by default).

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS, DEFAULT_DEDUPE_TTL_MS, NATIVE_HMAC_FROM, NATIVE_HASH_FROM } from './receiver/shared.js';
export { createMemoryStore } from './receiver/memory-store.js';
export { REDIS_SCRIPTS, createRedisStore } from './receiver/redis-store.js';
export { createReceiverApi } from './receiver/kit.js';
