// Shared by the receiver tests (ring 3): fixtures, deliveries signed with node:crypto (an
// implementation independent of the Rust core), real servers on 127.0.0.1 for each framework, and
// a throwaway redis-server.
import { createHmac, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const require = createRequire(import.meta.url);
/** The package, required as a user would (pkg/package.json "exports"). */
export const pkg = require('../../pkg');
export const fixture = (...p) => readFileSync(join(root, 'tests', 'fixtures', ...p));
export const vectors = JSON.parse(fixture('signature', 'vectors.json').toString('utf8'));

export const SECRET = 'whsec_receiver_tests';
export const NOW = vectors.now;

/** X-Service-Signature-256 computed with node:crypto, not with the package under test. */
export function signature(secret, timestamp, body) {
  return 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex');
}

/** Headers of a delivery as the service sends it. `deliveryId: null` leaves the header out. */
export function deliveryHeaders(body, { secret = SECRET, timestamp = NOW, deliveryId = randomUUID(), eventType, contentType = 'application/json' } = {}) {
  const h = { 'X-Service-Timestamp': String(timestamp), 'X-Service-Signature-256': signature(secret, timestamp, body) };
  if (deliveryId !== null) h['X-Service-Delivery-Id'] = deliveryId;
  if (eventType) h['X-Service-Event-Type'] = eventType;
  if (contentType !== null) h['Content-Type'] = contentType;
  return h;
}

/** Sends one request with node:http (keeps an early answer readable even if the body is not all sent). */
export function send(base, method, path, { headers = {}, body, chunked = false } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const h = { ...headers };
    if (body !== undefined && !chunked) h['Content-Length'] = String(Buffer.byteLength(body));
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: h, agent: false });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (err) => {
      // The server may close the connection after an early answer (413) while we still write.
      if ((err.code === 'EPIPE' || err.code === 'ECONNRESET') && answered) return;
      reject(err);
    });
    req.on('close', () => {
      if (!answered) reject(new Error(`${method} ${path}: the connection closed without an answer`));
    });
    if (body !== undefined) {
      if (chunked) {
        const buf = Buffer.from(body);
        const step = 64 * 1024;
        let at = 0;
        const pump = () => {
          while (at < buf.length) {
            const ok = req.write(buf.subarray(at, at + step));
            at += step;
            if (!ok) return req.once('drain', pump);
          }
          req.end();
        };
        pump();
        return;
      }
      req.end(body);
    } else {
      req.end();
    }
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

/** Serves a Fetch handler `(Request) => Promise<Response>` with Node's own http server. */
export function fetchServer(handler) {
  return http.createServer(async (req, res) => {
    const headers = new Headers();
    for (const [n, v] of Object.entries(req.headers)) for (const x of [].concat(v)) headers.append(n, x);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? Readable.toWeb(req) : undefined,
      duplex: 'half',
    });
    const response = await handler(request);
    const out = {};
    response.headers.forEach((v, n) => (out[n] = v));
    res.writeHead(response.status, out);
    res.end(Buffer.from(await response.arrayBuffer()));
    if (response.status === 413) req.resume();
  });
}

export const FRAMEWORKS = ['node:http', 'express4', 'express5', 'fastify', 'fetch'];

/**
 * Starts `framework` on 127.0.0.1 with several receivers, each under its own prefix
 * (`mounts` = [[prefix, receiver]]), beside an app route `POST /other` that parses JSON (to show
 * that the receiver's raw body handling does not leak into the app, nor the app's into it).
 */
export async function serve(framework, mounts) {
  let server;
  let fastifyApp;
  const other = (body) => JSON.stringify({ other: true, body });
  if (framework === 'node:http') {
    server = http.createServer((req, res) => {
      if (req.url === '/other') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(other(null));
        return;
      }
      const chain = mounts.map(([, r]) => r);
      const next = (i) => () => {
        if (i >= chain.length) return res.writeHead(404, { 'content-type': 'text/plain' }).end('app 404');
        return chain[i].node(req, res, next(i + 1));
      };
      next(0)();
    });
  } else if (framework === 'express4' || framework === 'express5') {
    const express = require(framework);
    const app = express();
    for (const [prefix, r] of mounts) app.use(prefix || '/', r.express());
    app.use(express.json());
    app.post('/other', (req, res) => res.type('application/json').send(other(req.body)));
    app.use((req, res) => res.status(404).type('text/plain').send('app 404'));
    server = http.createServer(app);
  } else if (framework === 'fastify') {
    const Fastify = require('fastify');
    fastifyApp = Fastify({ logger: false });
    for (const [prefix, r] of mounts) await fastifyApp.register(r.fastify, { prefix });
    fastifyApp.post('/other', async (request, reply) => reply.type('application/json').send(other(request.body)));
    fastifyApp.setNotFoundHandler((request, reply) => reply.code(404).type('text/plain').send('app 404'));
    await fastifyApp.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastifyApp.server.address();
    return { url: `http://127.0.0.1:${port}`, close: () => fastifyApp.close() };
  } else if (framework === 'fetch') {
    server = fetchServer(async (request) => {
      const path = new URL(request.url).pathname;
      if (path === '/other') return new Response(other(await request.json()), { headers: { 'content-type': 'application/json' } });
      const mount = mounts.find(([prefix]) => prefix && path.startsWith(prefix + '/')) ?? mounts.find(([prefix]) => !prefix);
      return mount ? mount[1].fetch(request) : new Response('app 404', { status: 404 });
    });
  } else {
    throw new Error(`unknown framework ${framework}`);
  }
  const url = await listen(server);
  return { url, close: () => closeServer(server) };
}

/** Whether the framework's adapter needs the receiver's basePath (node:http and fetch see full paths). */
export const needsBasePath = (framework) => framework === 'node:http' || framework === 'fetch';

/** A redis-server of its own on a free loopback port, in a throwaway directory. */
export async function startRedis({ persistent = false, port } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-redis-'));
  port ??= await freePort();
  const persistence = persistent
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--save', '']
    : ['--save', '', '--appendonly', 'no'];
  let child;
  const start = () =>
    new Promise((resolve, reject) => {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--protected-mode', 'yes', ...persistence], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`cannot run redis-server (make test installs it: apt-get install redis-server): ${e.message}`));
      });
      child.stdout.on('data', (d) => {
        out += d;
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr.on('data', (d) => (out += d));
    });
  const stop = () =>
    new Promise((resolve) => {
      if (!child || child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    stop,
    /** Stops the server (its process has exited when `onStopped` runs), pauses, starts it again. */
    restart: async (pauseMs = 0, onStopped = () => {}) => {
      await stop();
      onStopped();
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      await start();
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A deferred: a promise and its resolver, to hold a handler while a duplicate arrives. */
export function gate() {
  let open;
  const promise = new Promise((r) => (open = r));
  return { promise, open };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
