// Ring 3: the load and fault run in its short form (benches/node/receiver-load.mjs runs the full
// one in `make bench`): 4 receiver processes sharing one real Redis (two with the redis client,
// two with ioredis), retried duplicates (half concurrent), tampered and replayed deliveries, Redis
// restarted mid-run. Asserts on counts only, never on time.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runLoad, problems } from '../../benches/node/receiver-load.mjs';

test('load and fault run (short): every valid delivery handled exactly once, nothing bad accepted, 503 during the outage', { timeout: 240_000 }, async () => {
  const r = await runLoad({ deliveries: 600, processes: 4, concurrency: 24, outagePauseMs: 600, deadlineMs: 150_000 });
  assert.deepEqual(problems(r), []);
  assert.deepEqual(Object.keys(r.handlerCallsPerValidDelivery), ['1']);
  assert.equal(r.handlerCallsPerValidDelivery['1'], r.valid);
  assert.equal(r.lost, 0);
  assert.equal(r.badAccepted, 0);
  assert.equal(r.badStatus['401'], r.bad);
  assert.equal(r.outage200, 0);
  assert.ok(r.statuses['503'] > 0, 'no request met the Redis outage');
  assert.ok(r.requests > r.deliveries, 'duplicates and retries were sent');
});
