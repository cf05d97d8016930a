// The in-memory deduplication store (one process). The stores' interface: pkg/src/receiver.js.
import { CLAIMED, PENDING, SYNC_STORE, storeError } from './shared.js';

/**
 * An in-memory store for a receiver running as one process: bounded (`maxEntries`, oldest
 * completed entries go first, live claims never), entries expire on their own.
 *
 * Constant cost per call at and beyond the cap: completed answers and live claims each sit in a
 * FIFO ring (an array with a moving head) in the order they were written, which is their expiry
 * order for one TTL and one lease. Expiry and eviction look at the heads only. A slot whose entry
 * was replaced, released or expired is stale (the Map no longer holds that entry object) and is
 * skipped when it reaches the head; a ring holding more than twice as many slots as live entries
 * is compacted, which keeps it bounded at an amortized constant cost.
 */
export function createMemoryStore({ maxEntries = 100_000, clock = () => Date.now() } = {}) {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  // id → { id, token, status, code, body, expires, ring }: `ring` is the ring the entry is in (null
  // once removed; `done` once answered), so that a slot is live when its entry is still in that
  // ring, without a lookup. The answer is kept as three fields: one object less per delivery.
  const entries = new Map();
  const ring = () => ({ slots: [], head: 0, live: 0 });
  const done = ring(); // completed answers, oldest first
  const claims = ring(); // pending claims, oldest first
  const push = (r, e) => {
    e.ring = r;
    r.slots.push(e);
    r.live += 1;
    if (r.slots.length - r.head > 2 * r.live + 64) compact(r);
  };
  /** Drops stale slots (and, with `now`, expired entries) from the whole ring. O(ring), amortized O(1). */
  const compact = (r, now) => {
    const kept = [];
    for (let i = r.head; i < r.slots.length; i++) {
      const e = r.slots[i];
      if (e.ring !== r) continue;
      if (now !== undefined && e.expires <= now) {
        drop(e);
        continue;
      }
      kept.push(e);
    }
    r.slots = kept;
    r.head = 0;
    r.live = kept.length;
  };
  /** Takes the head slot off (and the backing array's consumed front, now and then). */
  const shift = (r) => {
    const e = r.slots[r.head];
    r.slots[r.head] = undefined;
    r.head += 1;
    if (r.head >= 1024 && r.head * 2 >= r.slots.length) {
      r.slots = r.slots.slice(r.head);
      r.head = 0;
    }
    return e;
  };
  /** Takes an entry out of its ring (its slot goes stale). */
  const leave = (e) => {
    e.ring.live -= 1;
    e.ring = null;
  };
  /** Removes a live entry. */
  const drop = (e) => {
    entries.delete(e.id);
    leave(e);
  };
  /** Expired entries at the head of a ring, and stale head slots. */
  const sweep = (r, now) => {
    while (r.head < r.slots.length) {
      const e = r.slots[r.head];
      if (e.ring === r) {
        if (e.expires > now) return;
        drop(e);
      }
      shift(r);
    }
  };
  const live = (id, now) => {
    const e = entries.get(id);
    if (e !== undefined && e.expires <= now) {
      drop(e);
      return undefined;
    }
    return e;
  };
  const makeRoom = (now) => {
    while (entries.size >= maxEntries && done.head < done.slots.length) {
      const e = shift(done);
      if (e.ring === done) drop(e);
    }
    if (entries.size >= maxEntries) {
      // Only claims left: drop the expired ones wherever they are (leases of different lengths).
      compact(claims, now);
      if (entries.size >= maxEntries) throw storeError(`memory store full: ${maxEntries} deliveries are being handled at once`);
    }
  };
  const claim = (id, token, leaseMs) => {
    const now = clock();
    sweep(done, now);
    sweep(claims, now);
    const e = live(id, now);
    if (e === undefined) {
      makeRoom(now);
      const c = { id, token, status: 0, code: undefined, body: undefined, expires: now + leaseMs, ring: null };
      entries.set(id, c);
      push(claims, c);
      return CLAIMED;
    }
    if (e.ring === done) return { state: 'done', answer: { status: e.status, code: e.code, body: e.body } };
    return e.token === token ? CLAIMED : PENDING;
  };
  /** Keeps the answer's status, code and body (what a replay answers), not the object. */
  const complete = (id, token, answer, ttlMs) => {
    const now = clock();
    let e = live(id, now);
    if (e !== undefined && e.ring === claims) {
      // This token's claim becomes the answer, in place: one lookup, no second entry.
      if (e.token !== token) return false;
      leave(e);
    } else {
      // An answer sent again (a fresh expiry) or a claim that expired meanwhile: a new entry.
      if (e !== undefined) drop(e);
      else {
        try {
          makeRoom(now);
        } catch {
          // Full of live claims: the answer is kept all the same (one over the cap, briefly).
        }
      }
      e = { id, token, status: 0, code: undefined, body: undefined, expires: 0, ring: null };
      entries.set(id, e);
    }
    e.token = token;
    e.status = answer.status;
    e.code = answer.code;
    e.body = answer.body;
    e.expires = now + ttlMs;
    push(done, e);
    return true;
  };
  const release = (id, token) => {
    const e = live(id, clock());
    if (e !== undefined && e.ring === claims && e.token === token) drop(e);
  };
  return {
    kind: 'memory',
    async claim(id, { token, leaseMs }) {
      return claim(id, token, leaseMs);
    },
    async complete(id, token, answer, ttlMs) {
      return complete(id, token, answer, ttlMs);
    },
    async release(id, token) {
      release(id, token);
    },
    // The same calls, answered at once: what createReceiver calls on a store made here (no promise per delivery).
    [SYNC_STORE]: { claim, complete, release },
    get size() {
      return entries.size;
    },
    /** Slots held by the two rings, stale ones included (bounded: about twice `size`, plus a constant). */
    get ringSlots() {
      return done.slots.length - done.head + claims.slots.length - claims.head;
    },
  };
}

