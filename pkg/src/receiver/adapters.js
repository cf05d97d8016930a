// The adapters: node:http (and connect), Express, the Fetch API, Fastify, and receiver.handle()
// without a framework. Each reads the request (method, path, headers, raw bytes) and writes the
// answer the core decided; nothing else.
import { BASE_HEADERS, TOO_LARGE, UNAVAILABLE } from './shared.js';
import { declaredLength, discardRest, readGiven, readNodeBody, readNodeStream, readWebStream } from './body.js';

/**
 * The adapters of one receiver, for createReceiver (pkg/src/receiver/kit.js), which passes its
 * options and its paths: respond (any request), general (the body read: route, verify, receive)
 * and receiveFast (the common delivery in one call).
 */
export function makeAdapters({ respond, general, receiveFast, report, isReady, sets, basePath, maxBodyBytes, encoder, invalid, toBytes, WebhookVerificationError }) {
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

  return { handle, node, express, fetchHandler, fastify };
}
