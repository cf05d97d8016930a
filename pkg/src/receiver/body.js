// Reading raw bodies, capped: node:http streams, WHATWG streams (Fetch), bytes given to
// receiver.handle(); and dropping the rest of a body answered 413.
import { TOO_LARGE } from './shared.js';

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

export function declaredLength(value) {
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
export function readNodeBody(stream, limit, done, lean = false) {
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
export function readNodeStream(stream, limit) {
  return new Promise((resolve, reject) => readNodeBody(stream, limit, (err, v) => (err ? reject(err) : resolve(v))));
}

/** Reads a WHATWG ReadableStream (Fetch) up to `limit` bytes; past it, cancels the stream. */
export async function readWebStream(body, limit) {
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
export async function readGiven(body, limit, toBytes) {
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
export function discardRest(req, cap) {
  if (req.complete || req.readableEnded || req.destroyed) return;
  let dropped = 0;
  req.on('data', (chunk) => {
    dropped += chunk.length;
    if (dropped > cap) req.socket?.destroy();
  });
  req.on('error', () => {});
  req.resume();
}

