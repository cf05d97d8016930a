// One receiver process of the load and fault run (receiver-load.mjs): node:http + the kit + a Redis
// store, with the `redis` or the `ioredis` client. Every handler call is reported to the parent
// over IPC, so that the parent counts calls per delivery id across processes.
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../../pkg');
const { REDIS_URL, CLIENT, SECRET, WORKER } = process.env;

async function connect() {
  if (CLIENT === 'ioredis') {
    const { Redis } = require('ioredis');
    const c = new Redis(REDIS_URL, { retryStrategy: () => 50, maxRetriesPerRequest: null });
    c.on('error', () => {}); // the run restarts Redis on purpose
    await c.ping();
    return c;
  }
  const { createClient } = require('redis');
  const c = createClient({ url: REDIS_URL, socket: { reconnectStrategy: () => 50 } });
  c.on('error', () => {});
  await c.connect();
  return c;
}

const client = await connect();
let orders = 0;
const errors = {};
const calls = (route, ctx, answer) => process.send({ t: 'call', id: ctx.delivery.id, route, answer });
const work = () => new Promise((resolve) => setImmediate(resolve)); // the POS's own I/O, modelled
const receiver = pkg.createReceiver({
  secret: SECRET,
  store: pkg.createRedisStore(client, { prefix: 'load:', timeoutMs: 500 }),
  timeoutMs: 2000,
  leaseMs: 4000,
  duplicateWaitMs: 2000,
  storeRetryMs: 15_000,
  onError: (err, info) => {
    errors[info.code] = (errors[info.code] ?? 0) + 1;
  },
  onOrderCreated: async (ctx) => {
    await work();
    orders += 1;
    const id = `W${WORKER}-${orders}`;
    calls('orderCreated', ctx, id);
    return id;
  },
  onOrderUpdate: async (ctx) => {
    await work();
    calls('orderUpdate', ctx, ctx.remoteOrderId);
  },
  onMenuChangeCompleted: async (ctx) => {
    await work();
    calls('menuChangeCompleted', ctx, ctx.changeKey);
  },
  onInvalid: (info) => process.send({ t: 'invalid', id: info.delivery.id, reason: info.reason }),
});

const server = http.createServer({ keepAliveTimeout: 30_000 }, receiver.node);
server.listen(0, '127.0.0.1', () => process.send({ t: 'ready', port: server.address().port }));
process.on('message', (m) => {
  if (m.t === 'flush') process.send({ t: 'flushed', errors });
  if (m.t === 'exit') {
    server.closeAllConnections();
    server.close();
    Promise.resolve(client.quit?.()).catch(() => {}).finally(() => process.exit(0));
  }
});
