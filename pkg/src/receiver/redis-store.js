// The Redis deduplication store (several processes or machines), with its scripts and the
// deadline every call keeps. The stores' interface: pkg/src/receiver.js.
import { CLAIMED, PENDING, storeError } from './shared.js';

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

