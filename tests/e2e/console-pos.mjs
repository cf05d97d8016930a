// A small POS for tests/e2e/console.test.mjs, in its own process: node:http only. It prints
// {"port":N} on its first stdout line and stops on SIGTERM or when its stdin closes.
//   POST /v1/order/{remoteId}   the creation webhook: by the order's customerNote,
//                               "fail"   → 500 {"error":"kitchen down"} (every attempt),
//                               "markup" → 200 with markup in its answer body,
//                               else     → 200 {"remoteOrderId":"POS-<n>"}
//   anything else               200 {}
// It makes no REST call: its orders stay Pending until the test or the clock moves them.
import http from 'node:http';

let n = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let status = 200;
    let body = '{}';
    if (req.method === 'POST' && /^\/v1\/order\/[^/]+$/.test(req.url)) {
      let note = '';
      try {
        note = JSON.parse(Buffer.concat(chunks).toString('utf8')).customerNote ?? '';
      } catch {}
      n += 1;
      if (/fail/.test(note)) [status, body] = [500, '{"error":"kitchen down"}'];
      else if (/markup/.test(note)) body = JSON.stringify({ remoteOrderId: `POS-${n}`, note: '<img src=x onerror="window.__pwned=1"><b>bold</b>' });
      else body = JSON.stringify({ remoteOrderId: `POS-${n}` });
    }
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});

if (process.argv.includes('--serve')) {
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
