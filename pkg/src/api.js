// The package facade: JS-side conversion around the wasm exports, shared by the Node build and the
// browser build. It converts inputs (string / Buffer / ArrayBuffer bodies, header objects or Fetch
// Headers, `now` defaulting to the clock) and turns thrown errors into real Error subclasses.
// Every contract rule lives in the Rust core; nothing here decides whether a webhook is valid.
//
// This file is the ES-module source; the build writes a CommonJS copy for the Node build
// (scripts/build-pkg.mjs). Keep top-level declarations as `export function|class|const`.

/** Base class of every error this package throws; `.code` is stable. */
export class PoscheckError extends Error {
  constructor(message, code, options) {
    super(message, options);
    this.name = 'PoscheckError';
    this.code = code;
  }
}

/** A webhook that must be rejected; `.httpStatus` is what the receiver answers (401). */
export class WebhookVerificationError extends PoscheckError {
  constructor(message, code, httpStatus = 401, options) {
    super(message, code, options);
    this.name = 'WebhookVerificationError';
    this.httpStatus = httpStatus;
  }
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const PAYLOAD_NOT_RAW_MESSAGE =
  'the body is a parsed object, not the raw request bytes: the signature covers the exact bytes the ' +
  'service sent, and re-serializing changes them. Capture the raw body before any JSON parsing: in ' +
  "Express, app.post(path, express.raw({ type: 'application/json' }), handler) and pass req.body (a " +
  "Buffer); with node:http, collect the chunks (req.on('data', c => chunks.push(c))) and pass " +
  'Buffer.concat(chunks); with fetch / Request, pass new Uint8Array(await request.arrayBuffer()).';

const encoder = new TextEncoder();

/** string | Uint8Array (Buffer) | ArrayBuffer | ArrayBufferView → Uint8Array, or undefined. */
export function toBytes(input) {
  if (typeof input === 'string') return encoder.encode(input);
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  return undefined;
}

function inputBytes(input, what) {
  const bytes = toBytes(input);
  if (bytes === undefined) {
    throw new PoscheckError(`${what} must be a string, Uint8Array, Buffer or ArrayBuffer`, 'INVALID_ARGUMENT');
  }
  return bytes;
}

function webhookBody(body) {
  const bytes = toBytes(body);
  if (bytes !== undefined) return bytes;
  if (body !== null && typeof body === 'object') {
    throw new WebhookVerificationError(PAYLOAD_NOT_RAW_MESSAGE, 'PAYLOAD_NOT_RAW');
  }
  throw new PoscheckError('body is required: pass the raw request body (string, Buffer, Uint8Array or ArrayBuffer)', 'INVALID_ARGUMENT');
}

/**
 * Headers as a flat [name, value, name, value, …] list. Accepts a plain object (Node's req.headers,
 * array values included), a Fetch Headers or Map, or an array of [name, value] pairs.
 */
export function headerList(headers, serviceOnly = false) {
  const out = [];
  if (headers == null) return out;
  if (Array.isArray(headers)) {
    for (const pair of headers) addHeader(out, pair[0], pair[1], serviceOnly);
  } else if (typeof headers.forEach === 'function' && typeof headers.get === 'function') {
    headers.forEach((value, name) => addHeader(out, name, value, serviceOnly));
  } else if (typeof headers === 'object') {
    for (const name of Object.keys(headers)) addHeader(out, name, headers[name], serviceOnly);
  } else {
    throw new PoscheckError('headers must be an object, a Headers instance or an array of [name, value] pairs', 'INVALID_ARGUMENT');
  }
  return out;
}

/** One header (each value of an array) onto `out`, for headerList. */
function addHeader(out, name, value, serviceOnly) {
  if (value == null) return;
  // A signature involves only the service's own headers (X-Service-*): the others need not
  // cross into the wasm (the core ignores them).
  if (serviceOnly && !isServiceHeader(name)) return;
  if (Array.isArray(value)) for (const v of value) addHeader(out, name, v, serviceOnly);
  else out.push(String(name), String(value));
}

/**
 * `X-Service-*`, any case. Node's lower-case names take the fast comparison, and the other
 * headers of a request (most of them) are told apart by their first letter before any pattern.
 */
function isServiceHeader(name) {
  if (typeof name !== 'string' || (name.charCodeAt(0) | 0x20) !== 0x78) return false;
  return name.startsWith('x-service-') || /^x-service-/i.test(name);
}

function secretList(secret) {
  if (typeof secret === 'string') return [secret];
  if (Array.isArray(secret) && secret.every((s) => typeof s === 'string')) return secret;
  if (secret == null) return [];
  throw new PoscheckError('secret must be a string or an array of strings', 'INVALID_ARGUMENT');
}

/** A request or response body: raw text/bytes as is; a plain value is serialized as JSON (what a client sends). */
function requestBody(body) {
  if (body === undefined || body === null) return undefined;
  return jsonBytes(body, 'body');
}

function invalid(message) {
  return new PoscheckError(message, 'INVALID_ARGUMENT');
}

/** A short, safe description of a JS value for an error message (never the value itself). */
function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isFinite(value) ? `the number ${value}` : String(value);
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A JSON input (an order, an event) as the UTF-8 bytes of its text. Strings and bytes pass as
 * they are; any other value is serialized here with JSON.stringify, so that the wasm module never
 * walks a JS object: a cyclic or too deeply nested value, or a getter that throws, fails here
 * with a clear error instead of trapping the module.
 */
function jsonBytes(input, what) {
  const bytes = toBytes(input);
  if (bytes !== undefined) return bytes;
  let text;
  try {
    text = JSON.stringify(input);
  } catch (err) {
    throw invalid(`${what} cannot be serialized as JSON (${err && err.message ? err.message : String(err)}): pass a plain JSON value, its JSON text or its bytes`);
  }
  if (text === undefined) throw invalid(`${what} is required: pass a JSON value, its JSON text or its bytes (got ${describe(input)})`);
  return encoder.encode(text);
}

/** The deepest nesting an option may ask for (the core clamps to the same bound). */
const MAX_DEPTH = 1000;
const U32_MAX = 0xffffffff;

/** An integer option: undefined/null means the default; anything else must be an integer in range. */
function intOption(value, name, min, max) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw invalid(`${name} must be an integer of at least ${min}, got ${describe(value)}`);
  }
  return Math.min(value, max);
}

function stringOption(value, name) {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalid(`${name} must be a string, got ${describe(value)}`);
  return value;
}

/** The options object of a checker, validated: unknown types are refused, numbers clamped. */
function checkerOptions(options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') throw invalid(`options must be an object, got ${describe(options)}`);
  return {
    maxDepth: intOption(options.maxDepth, 'maxDepth', 1, MAX_DEPTH),
    maxBytes: intOption(options.maxBytes, 'maxBytes', 0, U32_MAX),
    maxDiagnostics: intOption(options.maxDiagnostics, 'maxDiagnostics', 1, U32_MAX),
    kind: stringOption(options.kind, 'kind'),
    path: stringOption(options.path, 'path'),
    now: options.now,
  };
}

/**
 * `now` in unix seconds: undefined or null means the current time. Milliseconds (Date.now()) are
 * refused with a hint rather than read as a date thousands of years ahead.
 */
function nowSeconds(now) {
  if (now === undefined || now === null) return Math.floor(Date.now() / 1000);
  if (typeof now !== 'number' || !Number.isFinite(now) || now < 0) {
    throw invalid(`now must be a non-negative number of unix seconds, got ${describe(now)}`);
  }
  if (now > 1e11) {
    throw invalid(`now is ${now}, which looks like milliseconds (Date.now()): pass unix seconds, Math.floor(Date.now() / 1000)`);
  }
  return now;
}

/** toleranceSeconds: undefined or null means the default (300 s), as `now` does for the clock. */
function toleranceSeconds(value) {
  if (value === undefined || value === null) return DEFAULT_TOLERANCE_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(`toleranceSeconds must be a non-negative number of seconds, got ${describe(value)}`);
  }
  return value;
}

function stringArg(value, name) {
  if (typeof value !== 'string') throw invalid(`${name} must be a string, got ${describe(value)}`);
  return value;
}

/**
 * A report from its text: the kind alone for a clean report (no diagnostic), else its JSON.
 * (A report object built field by field across the boundary costs more than both.)
 */
function report(text) {
  if (text.charCodeAt(0) === 123) return JSON.parse(text);
  return cleanReport(text === '' ? undefined : text);
}

/** The report with no diagnostic, of `kind` (none when undefined), shaped as the core's. */
function cleanReport(kind) {
  // Two literals rather than a spread: this is all a valid payload costs on the way back.
  if (kind === undefined) return { ok: true, errorCount: 0, warningCount: 0, infoCount: 0, diagnostics: [], errors: {} };
  return { kind, ok: true, errorCount: 0, warningCount: 0, infoCount: 0, diagnostics: [], errors: {} };
}

/** Rethrows an error from the wasm module as this package's class. */
function rethrow(err, Kind = PoscheckError) {
  if (err instanceof PoscheckError) throw err;
  if (err && typeof err.code === 'string') {
    throw Kind === WebhookVerificationError
      ? new WebhookVerificationError(err.message, err.code, err.httpStatus ?? 401)
      : new PoscheckError(err.message, err.code);
  }
  throw err;
}

/**
 * The service headers as one `name\nvalue\n…` text for the core (verifyHeaderText),
 * or null when a name or value holds a line feed (it would shift the pairs: such headers take the
 * path where they cross as a list). `headers` is the flat list of headerList(h, true).
 */
function headerText(headers) {
  for (let i = 0; i < headers.length; i++) if (headers[i].includes('\n')) return null;
  return headers.join('\n');
}

/**
 * The UTF-8 of a header text, written by `TextEncoder.encodeInto` into a buffer kept for the usual
 * few hundred bytes (faster than a string argument crosses into wasm). The view is valid until the
 * next call: pass it straight to the core, which copies it.
 */
const headerScratch = new Uint8Array(1024);
function headerBytes(text) {
  if (text.length > headerScratch.length / 3) return encoder.encode(text);
  return headerScratch.subarray(0, encoder.encodeInto(text, headerScratch).written);
}

/**
 * The buffer the core shares with the facade (ioBuffer in src/wasm/) and the numbers both sides
 * agree on (ioLayout: the buffer's layout, the core's limits, the answers that send a call to the
 * general path), by name. Both are read on first use: a browser build makes the API before the
 * module is ready. `views()` asks for the buffer again after the module's memory grew, which
 * detaches the views it gave before. One per module, for verifyWebhook, validatePayload and the
 * receiver kit alike.
 */
const sharedBuffers = new WeakMap();
function sharedBuffer(raw) {
  const kept = sharedBuffers.get(raw);
  if (kept !== undefined) return kept;
  let layout = null;
  let views = null;
  const layoutOf = () => {
    if (layout === null) {
      const [TEXT_MAX, HASHES_AT, FOUND_AT, PREFIX_AT, PREFIX_MAX, SETS, MAX_SECRETS, LINE_FEED, KEYS_REPLACED, REPORT_KEPT, GENERAL] = raw.ioLayout();
      layout = { TEXT_MAX, HASHES_AT, FOUND_AT, PREFIX_AT, PREFIX_MAX, SETS, MAX_SECRETS, LINE_FEED, KEYS_REPLACED, REPORT_KEPT, GENERAL };
    }
    return layout;
  };
  const shared = {
    layout: layoutOf,
    /** `{ io, text, found }`: the whole buffer, its text area and the found-headers words. */
    views() {
      if (views === null || views.io.byteLength === 0) {
        const { TEXT_MAX, FOUND_AT } = layoutOf();
        const io = raw.ioBuffer();
        views = { io, text: io.subarray(0, TEXT_MAX), found: new DataView(io.buffer, io.byteOffset + FOUND_AT, 16) };
      }
      return views;
    },
  };
  sharedBuffers.set(raw, shared);
  return shared;
}

/**
 * validatePayload through the buffer the core shares (validatePayloadIo in src/wasm/): a payload
 * that fits its text area is written there (`set`, or `encodeInto` for a string) instead of being
 * passed as an argument, which would cost an allocation in the module and a result slot per call.
 * Returns `{ validate, REPORT_KEPT, GENERAL }`: `validate` answers as the core's validatePayload
 * does, or GENERAL when the payload must take the general path (too long, not bytes nor a string,
 * a kind number the core does not know: that path says why); it is null without the export.
 * Made on first use (a browser build makes the API before the module is ready).
 */
function payloadIo(raw, shared) {
  const { TEXT_MAX, REPORT_KEPT, GENERAL } = shared.layout();
  if (typeof raw.validatePayloadIo !== 'function') return { validate: null, REPORT_KEPT, GENERAL };
  const validate = (input, number, o) => {
    const { text } = shared.views();
    let length;
    if (typeof input === 'string') {
      if (input.length > TEXT_MAX) return GENERAL;
      const { read, written } = encoder.encodeInto(input, text);
      if (read !== input.length) return GENERAL;
      length = written;
    } else {
      const bytes = toBytes(input);
      if (bytes === undefined || bytes.length > TEXT_MAX) return GENERAL;
      text.set(bytes);
      length = bytes.length;
    }
    return raw.validatePayloadIo(length, number, o.maxDepth, o.maxBytes, o.maxDiagnostics);
  };
  return { validate, REPORT_KEPT, GENERAL };
}

/** Bodies up to this size are hashed in the wasm even where a native SHA-256 exists (see ioVerifier). */
const KEYED_MAX_BYTES = 64;

/** Inner messages up to this size are hashed by one `hash()` call over a copy (see ioVerifier). */
const JOINED_MAX_BYTES = 64 * 1024;

/**
 * An allocator of the HMAC key sets the core keeps (setMacKeys): `keysOf(secrets)` gives the set of
 * `secrets`, made when new: { set, stamp, pads, … }. `stamp` tells the core which making of the
 * set's keys this is (another allocator over the same module may make them again: the core then
 * answers KEYS_REPLACED and the caller calls `forget`); `pads`, each secret's inner pad block, is
 * read when first needed (`padsOf`). Each facade has one for verifyWebhook, assigning sets from
 * the first; the receiver kit has its own, assigning them from the last (`fromLast`), so that the
 * two rarely take the same set.
 */
export function keySets(raw, shared = sharedBuffer(raw), fromLast = false) {
  /** Which keys of keysOf() hold each set of the core, null for none; made on first use. */
  let owners = null;
  // Two maps, so that no single secret can ever be mistaken for a list of several.
  const single = new Map();
  const several = new Map();
  let next = 0;
  const keysOf = (secrets) => {
    owners ??= new Array(shared.layout().SETS).fill(null);
    const one = secrets.length === 1;
    const key = one ? secrets[0] : JSON.stringify(secrets);
    const map = one ? single : several;
    let keys = map.get(key);
    if (keys === undefined) {
      const set = fromLast ? owners.length - 1 - next : next;
      next = (next + 1) % owners.length;
      if (owners[set] !== null) forget(owners[set]);
      // A copy: the caller may change its array later, the set's keys stay what they were made of.
      keys = { set, stamp: raw.setMacKeys(set, secrets), pads: null, secrets: secrets.slice(), map, key };
      owners[set] = keys;
      map.set(key, keys);
    }
    return keys;
  };
  const forget = (keys) => {
    keys.map.delete(keys.key);
    if (owners[keys.set] === keys) owners[keys.set] = null;
  };
  const padsOf = (keys) => {
    if (keys.pads === null) {
      const blocks = raw.macKeyPads(keys.secrets);
      keys.pads = keys.secrets.map((_, i) => blocks.subarray(64 * i, 64 * i + 64));
    }
    return keys.pads;
  };
  return { keysOf, forget, padsOf, shared };
}

/**
 * verifyWebhook through the buffer the core shares (ioBuffer in src/wasm/): the header text is
 * written there by `TextEncoder.encodeInto` and the results are read from there, so that only the
 * body crosses. HMAC keys are made once per secret (or rotation) and kept in the core (setMacKeys).
 * Small bodies, and every body in a browser, are hashed in the core in one call (verifyIo). Larger
 * ones, where the platform has a native SHA-256 (`platform.hash` / `platform.createHash`: Node's
 * node:crypto), are hashed natively: the core checks the headers and gives the signed prefix
 * (checkIo), the facade hashes each secret's inner message (its pad block from macKeyPads, the
 * prefix, the body), and the core finishes the MACs and compares (finishIo). Every decision stays
 * in the core; node:crypto is only the hash. Returns null without the exports; the verifier
 * returns undefined when these headers or secrets must take the general path (a line feed in a
 * header, which the core finds by counting lines, headers longer than the buffer, no secret or
 * more than a key set holds: that path reports it).
 */
function ioVerifier(raw, platform, shared) {
  if (typeof raw.ioBuffer !== 'function') return null;
  // The numbers of sharedBuffer() this verifier uses, read on first use (see there).
  let HASHES_AT, PREFIX_AT, PREFIX_MAX, MAX_SECRETS, KEYS_REPLACED;
  const layout = () => {
    // The core's other general-path answer, for a line feed in a header, is negative as well:
    // every negative answer is the general path's turn, only KEYS_REPLACED is told apart.
    ({ HASHES_AT, PREFIX_AT, PREFIX_MAX, MAX_SECRETS, KEYS_REPLACED } = shared.layout());
  };
  // The views of the shared buffer, taken again after each call that may have grown the memory.
  let io = null;
  let text = null;
  let found = null;
  const view = () => {
    ({ io, text, found } = shared.views());
  };
  const { keysOf, forget, padsOf } = keySets(raw, shared);
  const { hash, createHash } = platform;
  const native = typeof createHash === 'function';
  let joined = null; // [pad | prefix | body], for hash()
  /**
   * A digest as a latin1 string into the shared buffer at `at`: a string answer costs node:crypto
   * about 0.8 µs less than a Buffer (measured on Node 20), more than the copy loop.
   */
  const putDigest = (digest, at) => {
    for (let k = 0; k < 32; k++) io[at + k] = digest.charCodeAt(k);
  };
  /** One inner hash per secret into the shared buffer, over its pad, the prefix the core wrote and `bytes`. */
  const innerHashes = (pads, prefixLength, bytes) => {
    const size = 64 + prefixLength + bytes.length;
    if (typeof hash === 'function' && size <= JOINED_MAX_BYTES) {
      joined ??= new Uint8Array(JOINED_MAX_BYTES);
      for (let i = 0; i < prefixLength; i++) joined[64 + i] = io[PREFIX_AT + i];
      joined.set(bytes, 64 + prefixLength);
      const whole = joined.subarray(0, size);
      for (let i = 0; i < pads.length; i++) {
        joined.set(pads[i], 0);
        putDigest(hash('sha256', whole, 'latin1'), HASHES_AT + 32 * i);
      }
    } else {
      const prefix = io.slice(PREFIX_AT, PREFIX_AT + prefixLength);
      for (let i = 0; i < pads.length; i++) {
        putDigest(createHash('sha256').update(pads[i]).update(prefix).update(bytes).digest('latin1'), HASHES_AT + 32 * i);
      }
    }
  };
  /**
   * The general path's turn (undefined) when verifyIo or checkIo answers a negative number: a
   * header held a line feed, or (KEYS_REPLACED) another facade over the same module made the
   * set's keys again, which are then made anew next time.
   */
  const gone = (keys, answer) => {
    if (answer === KEYS_REPLACED) forget(keys);
    return undefined;
  };
  return (bytes, headers, secrets, now, tolerance) => {
    if (KEYS_REPLACED === undefined) layout();
    // No secret, or more than a set holds: an error the general path reports.
    if (secrets.length === 0 || secrets.length > MAX_SECRETS) return undefined;
    const joinedHeaders = headers.join('\n');
    const keys = keysOf(secrets);
    view();
    const { read, written } = encoder.encodeInto(joinedHeaders, text);
    if (read < joinedHeaders.length) return undefined;
    let timestamp, secretIndex;
    if (!native || bytes.length <= KEYED_MAX_BYTES) {
      timestamp = raw.verifyIo(written, headers.length, bytes, keys.set, keys.stamp, now, tolerance);
      if (timestamp < 0) return gone(keys, timestamp);
      view(); // the body's copy may have grown the memory
      secretIndex = found.getUint32(0, true);
    } else {
      timestamp = raw.checkIo(written, headers.length, keys.set, keys.stamp, now, tolerance);
      if (timestamp < 0) return gone(keys, timestamp);
      const pads = padsOf(keys);
      view();
      const prefixLength = found.getUint32(12, true);
      if (prefixLength > PREFIX_MAX) return undefined;
      innerHashes(pads, prefixLength, bytes);
      secretIndex = raw.finishIo(pads.length);
      view();
    }
    const deliveryId = found.getUint32(4, true);
    const eventType = found.getUint32(8, true);
    return {
      timestamp,
      deliveryId: deliveryId === 0 ? null : headers[2 * deliveryId - 1],
      eventType: eventType === 0 ? null : headers[2 * eventType - 1],
      secretIndex,
    };
  };
}

/**
 * The receiver kit's verification steps where the platform has a native HMAC-SHA256
 * (`platform.createHmac`: Node's node:crypto). `check` runs the core's header checks (throws
 * their WebhookVerificationError) and returns the signed prefix, the expected MAC and the header
 * values; `macs` hashes prefix + body once per secret. The core then compares, and decides the
 * rest of the delivery (`receiverReceiveMacs` in src/wasm/). The header text crosses as bytes
 * (headerBytes) and the results come back as bytes (verifyHeaderText in src/wasm/): a string
 * crossing either way costs about as much as the HMAC of a small body. Null without a native HMAC.
 */
export function nativeVerifier(raw, platform = {}) {
  if (typeof platform.createHmac !== 'function' || typeof raw.verifyHeaders !== 'function') return null;
  const { createHmac } = platform;
  const hmac = (secret, prefix, bytes) => createHmac('sha256', secret).update(prefix).update(bytes).digest();
  const expected = new Uint8Array(32);
  const packed = new Uint8Array(128);
  const packedView = new DataView(packed.buffer);
  const oneLength = new Uint32Array(1);
  /** `headers`: the flat [name, value, …] list of the service headers (headerList(h, true)). */
  const check = (headers, secrets, now, tolerance) => {
    let lengths = oneLength;
    if (secrets.length === 1) oneLength[0] = secrets[0].length;
    else lengths = Uint32Array.from(secrets, (s) => s.length);
    let prefix, timestamp, deliveryId, eventType;
    const text = headerText(headers);
    if (text !== null && typeof raw.verifyHeaderText === 'function') {
      timestamp = raw.verifyHeaderText(headerBytes(text), lengths, now, tolerance, packed);
      const at = (offset) => {
        const i = packedView.getUint32(offset, true);
        return i === 0 ? null : headers[2 * i - 1];
      };
      deliveryId = at(32);
      eventType = at(36);
      const len = packedView.getUint32(40, true);
      if (len <= packed.length - 44) {
        prefix = packed.subarray(44, 44 + len);
        expected.set(packed.subarray(0, 32));
      }
    }
    if (prefix === undefined) {
      [prefix, timestamp, deliveryId, eventType] = raw.verifyHeaders(headers, lengths, now, tolerance, expected);
      prefix = encoder.encode(prefix);
    }
    return { prefix, expected, timestamp, deliveryId, eventType, lengths };
  };
  /** One 32-byte MAC per secret, in order, over `prefix` then `bytes`. */
  const macs = (secrets, prefix, bytes) => {
    if (secrets.length === 1) return hmac(secrets[0], prefix, bytes);
    const out = new Uint8Array(32 * secrets.length);
    for (let i = 0; i < secrets.length; i++) out.set(hmac(secrets[i], prefix, bytes), 32 * i);
    return out;
  };
  return { check, macs };
}

/**
 * Builds the public API over the raw wasm exports. `isReady()` is false until init() resolved.
 * `platform` holds node:crypto's `hash` and `createHash` (SHA-256, verifyWebhook: see
 * ioVerifier) and `createHmac` (the receiver kit: see nativeVerifier) where the platform has
 * native, synchronous ones: every decision (headers, window, secrets, the constant-time
 * comparison, error codes) stays in the core, which then only does not hash the body itself.
 *
 * `platform.webhook`, where there is one (Node's toolkit entry), is `{ kinds, load }`:
 * `poscheck/webhook`'s payload kinds (its payloadKinds(), `PayloadKind::WEBHOOK` in the core) and
 * `load()`, its API. Its module is built at `opt-level = 3` (profile `webhook` in Cargo.toml) and
 * validates those kinds in about 0.7× the time of the toolkit's, built for size: validatePayload
 * hands a kind named among them to it, for the same report sooner (createReceiver too, in
 * receiver.js). A browser keeps one module: the download is what counts there.
 */
/** Wraps an export: refused before init(), its errors rethrown as the facade's classes. */
const caller = (isReady) => (fn, Kind) => (...args) => {
  if (!isReady()) {
    throw new PoscheckError('the WebAssembly module is not initialized yet: await init() first', 'NOT_INITIALIZED');
  }
  try {
    return fn(...args);
  } catch (err) {
    return rethrow(err, Kind);
  }
};

/**
 * The menu functions over a module that exports them (the toolkit's, or poscheck/menu's own):
 * the full menu submission tree of PUT /api/v1/menu and POST /api/v1/menu/preview, and what that
 * upload would change against the store menu read. A bundle that imports poscheck/menu takes
 * this function and the helpers it calls, not the rest of the facade.
 */
export function createMenuApi(raw, isReady = () => true) {
  const call = caller(isReady);
  return {
    lintMenu: call((input, options) => {
      const o = checkerOptions(options);
      return report(raw.lintMenu(inputBytes(input, 'input'), o.maxDepth, o.maxBytes, o.maxDiagnostics));
    }),
    menuRules: call(() => raw.menuRules()),
    // What PUT /api/v1/menu would do: `next` (a full submission) against `current` (the store menu read).
    diffMenu: call((current, next, options) => {
      const o = checkerOptions(options);
      const threshold = options?.threshold ?? undefined;
      if (threshold !== undefined && (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1))) {
        throw invalid(`threshold must be a number between 0 and 1 (a fraction of the active catalog), got ${describe(threshold)}`);
      }
      const maxEntries = intOption(options?.maxEntries, 'maxEntries', 0, U32_MAX);
      return raw.diffMenu(inputBytes(current, 'current'), inputBytes(next, 'next'), threshold, maxEntries, o.maxDiagnostics, o.maxDepth, o.maxBytes);
    }),
    diffRules: call(() => raw.diffRules()),
  };
}

export function createApi(raw, isReady = () => true, platform = {}) {
  const handedOver = new Set(platform.webhook?.kinds); // see platform.webhook above
  const call = caller(isReady);
  const webhookArgs = (input) => {
    if (input == null || typeof input !== 'object') {
      throw new PoscheckError('expected an object { body, headers, secret, now?, toleranceSeconds? }', 'INVALID_ARGUMENT');
    }
    const { body, headers, secret, now, toleranceSeconds: tolerance } = input;
    return [webhookBody(body), headerList(headers, true), secretList(secret), nowSeconds(now), toleranceSeconds(tolerance)];
  };
  // verifyWebhook: through the shared buffer where it can (see ioVerifier), else the general path.
  const shared = sharedBuffer(raw);
  const fast = ioVerifier(raw, platform, shared);
  let kindIds = null; // payloadKinds(), read once
  let kindNumbers = null; // kind name → 1 + its index in kindIds
  let payloads = null; // payloadIo(raw, shared), made on first use
  const verify = (input) => {
    const args = webhookArgs(input);
    const verified = fast === null ? undefined : fast(args[0], args[1], args[2], args[3], args[4]);
    return verified === undefined ? raw.verifyWebhook(...args) : verified;
  };

  const api = {
    verifyWebhook: call(verify, WebhookVerificationError),
    // A diagnosis is an answer, never a throw: a parsed body is diagnosed as such.
    diagnoseWebhook: call((input) => {
      const body = input !== null && typeof input === 'object' ? input.body : undefined;
      if (body !== null && typeof body === 'object' && toBytes(body) === undefined) {
        return {
          valid: false,
          code: 'PAYLOAD_NOT_RAW',
          message: PAYLOAD_NOT_RAW_MESSAGE,
          findings: [{ code: 'PAYLOAD_NOT_RAW', message: PAYLOAD_NOT_RAW_MESSAGE }],
          skewSeconds: null,
          verified: null,
        };
      }
      return raw.diagnoseWebhook(...webhookArgs(input));
    }, WebhookVerificationError),
    signWebhook: call(({ body, secret, timestamp, deliveryId, eventType } = {}) => {
      if (typeof secret !== 'string') throw new PoscheckError('secret must be a string', 'INVALID_ARGUMENT');
      const ts = timestamp === undefined ? nowSeconds() : timestamp;
      const headers = {
        'X-Service-Timestamp': String(ts),
        'X-Service-Signature-256': raw.signWebhook(secret, String(ts), webhookBody(body)),
      };
      if (deliveryId != null) headers['X-Service-Delivery-Id'] = String(deliveryId);
      if (eventType != null) headers['X-Service-Event-Type'] = String(eventType);
      return headers;
    }, WebhookVerificationError),
    webhookErrorCodes: call(() => [...raw.webhookErrorCodes(), 'PAYLOAD_NOT_RAW']),
    webhookFindingCodes: call(() => [...raw.webhookFindingCodes(), 'PAYLOAD_NOT_RAW']),
    parseHttpMessage: call((input) => raw.parseHttpMessage(inputBytes(input, 'input'))),

    // Menus (createMenuApi): lintMenu, menuRules, diffMenu, diffRules.
    ...createMenuApi(raw, isReady),

    // Payloads the POS receives and reads, requests it sends, problems it gets back.
    // Kinds cross as numbers both ways (1 + the index in payloadKinds(), 0 for none): a known kind
    // goes in as its number (any other name as text, for the core to refuse), and the core answers
    // a clean payload with its kind's number, so that a valid payload crosses no text at all, or
    // with REPORT_KEPT when there is a report to take. A payload without a path, of a known kind
    // or none, crosses through the shared buffer when it fits (payloadIo).
    validatePayload: call((input, options) => {
      if (handedOver.has(options?.kind)) return platform.webhook.load().validatePayload(input, options);
      const o = checkerOptions(options);
      kindIds ??= raw.payloadKinds();
      kindNumbers ??= new Map(kindIds.map((k, i) => [k, i + 1]));
      payloads ??= payloadIo(raw, shared);
      const number = kindNumbers.get(o.kind) ?? 0;
      const viaIo = payloads.validate !== null && o.path === undefined && (number !== 0 || o.kind === undefined);
      let answer = viaIo ? payloads.validate(input, number, o) : payloads.GENERAL;
      if (answer === payloads.GENERAL) {
        const bytes = inputBytes(input, 'input');
        answer = raw.validatePayload(bytes, number, number === 0 ? o.kind : undefined, o.path, o.maxDepth, o.maxBytes, o.maxDiagnostics);
      }
      if (answer === payloads.REPORT_KEPT) return JSON.parse(raw.takeReport());
      return cleanReport(kindIds[answer - 1]);
    }),
    inspectInput: call((input, options) => {
      const o = checkerOptions(options);
      return raw.inspectInput(inputBytes(input, 'input'), o.kind, o.path, nowSeconds(o.now), o.maxDepth, o.maxBytes, o.maxDiagnostics);
    }),
    payloadKinds: call(() => raw.payloadKinds()),
    payloadRules: call(() => raw.payloadRules()),
    validateRequest: call(({ method, path, headers, body, now } = {}) => {
      if (typeof method !== 'string' || typeof path !== 'string') {
        throw new PoscheckError('expected { method, path, headers?, body?, now? } with method and path strings', 'INVALID_ARGUMENT');
      }
      return raw.validateRequest(method, path, headerList(headers), requestBody(body), nowSeconds(now));
    }),
    classifyProblem: call(({ status, headers, body, now } = {}) => {
      if (!Number.isInteger(status) || status < 100 || status > 599) {
        throw new PoscheckError('status must be an HTTP status code (100-599)', 'INVALID_ARGUMENT');
      }
      return raw.classifyProblem(status, headerList(headers), requestBody(body) ?? new Uint8Array(0), nowSeconds(now));
    }),

    // Orders: `order` is the `data` of GET /api/v1/Orders/{orderKey} (object, JSON string or bytes).
    checkOrder: call((input, options) => {
      const o = checkerOptions(options);
      return report(raw.checkOrder(inputBytes(input, 'input'), o.maxDepth, o.maxBytes, o.maxDiagnostics));
    }),
    predictAction: call((order, action, now, body) =>
      raw.predictAction(jsonBytes(order, 'order'), stringArg(action, 'action'), nowSeconds(now), requestBody(body))),
    applyEvent: call((order, event) => raw.applyEvent(jsonBytes(order, 'order'), jsonBytes(event, 'event'))),
    applyTrigger: call((order, trigger, now) =>
      raw.applyTrigger(jsonBytes(order, 'order'), stringArg(trigger, 'trigger'), nowSeconds(now))),
    nextActions: call((order, now) => raw.nextActions(jsonBytes(order, 'order'), nowSeconds(now))),
    orderHistoryPath: call((order) => raw.orderHistoryPath(jsonBytes(order, 'order'))),
    orderMachine: call(() => raw.orderMachine()),
    orderDiagram: call((highlight) => {
      if (highlight === undefined || highlight === null) highlight = [];
      if (!Array.isArray(highlight) || !highlight.every((s) => typeof s === 'string')) {
        throw invalid('highlight must be an array of status names (strings)');
      }
      return raw.orderDiagram(highlight.slice(0, 64));
    }),
    orderRules: call(() => raw.orderRules()),
  };
  return api;
}
