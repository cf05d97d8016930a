// Serves www/ on http://127.0.0.1:8080 (or $PORT) with the page's security headers.
// Static files only, loopback only: the page itself makes no request beyond its own files.
// Like any static host it compresses text (gzip, when the request's Accept-Encoding allows it;
// each file compressed once, again when it changes) and answers revalidations with 304.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../www/', import.meta.url)));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

// The same policy as the page's <meta> tag, sent as a header too (frame-ancestors only works here).
export const CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'none'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Types worth compressing (a .wasm is too, though the page embeds its modules in scripts). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt']);

/**
 * Whether an Accept-Encoding value accepts gzip: listed (or `*`) without q=0, and not refused by
 * name when `*` accepts it (RFC 9110, 12.5.3).
 */
export function acceptsGzip(header) {
  if (!header) return false;
  const q = {};
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qv = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q[name.trim()] = qv === undefined ? 1 : Number(qv);
  }
  const value = q.gzip ?? q['x-gzip'] ?? q['*'];
  return value !== undefined && value > 0;
}

export function createServer() {
  /** path → { key (mtime and size), gzip: Buffer | null (null: compression does not help) } */
  const compressed = new Map();
  const gzipOf = (file, info, body) => {
    const key = `${info.mtimeMs}:${info.size}`;
    let entry = compressed.get(file);
    if (entry?.key !== key) {
      const gz = gzipSync(body, { level: 9 });
      entry = { key, gzip: gz.length < body.length ? gz : null };
      compressed.set(file, entry);
    }
    return entry.gzip;
  };
  return http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = decodeURIComponent(url.pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a file');
      const type = extname(file);
      const headers = {
        'Content-Type': TYPES[type] ?? 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-cache',
        'Last-Modified': info.mtime.toUTCString(),
      };
      const compressible = COMPRESSIBLE.has(type);
      if (compressible) headers.Vary = 'Accept-Encoding';
      const gzip = compressible && acceptsGzip(req.headers['accept-encoding']);
      // One validator per representation: the gzipped bytes differ from the file's.
      const tag = `W/"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}${gzip ? '-gz' : ''}"`;
      headers.ETag = tag;
      if (req.headers['if-none-match']?.split(',').some((t) => t.trim() === tag)) {
        res.writeHead(304, headers).end();
        return;
      }
      let body = await readFile(file);
      const packed = gzip ? gzipOf(file, info, body) : null;
      if (packed) {
        body = packed;
        headers['Content-Encoding'] = 'gzip';
      }
      headers['Content-Length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
    }
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  createServer().listen(port, '127.0.0.1', () => {
    console.log(`poscheck page: http://127.0.0.1:${port}/  (Ctrl-C to stop)`);
  });
}
