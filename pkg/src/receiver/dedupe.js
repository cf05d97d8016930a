// Deduplication on X-Service-Delivery-Id: the claim before the handler, the answer recorded after
// it (a 200) or the claim released (anything else), the wait for another attempt's answer, the
// store retried while it fails; and the common delivery's path through a store made by
// createMemoryStore (no promise) or any other (one claim, then the handler).

/** Claim tokens of the stores made here (unique in the process; every receiver over one such store is in it). */
let localTokens = 0;

let tokenCounter = 0;
/** This process's part of its claim tokens, made once (base-36 conversions cost about 0.3 µs each). */
const TOKEN_PREFIX = `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 12)}.`;
/** A claim token: unique among the receivers sharing a store (not a secret). */
function newToken() {
  tokenCounter = (tokenCounter + 1) % Number.MAX_SAFE_INTEGER;
  return TOKEN_PREFIX + tokenCounter;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The receiver's deduplication over `store`, for createReceiver (pkg/src/receiver/kit.js), which
 * passes its options and its parts: the core's answers (answerOf), the handlers' calls (dispatch,
 * callHandler) and the one-call path (receiveIo).
 */
export function makeDedupe({ store, sync, leaseMs, dedupeTtlMs, duplicateWaitMs, storeRetryMs, report, answerOf, dispatch, callHandler, receiveIo, PoscheckError }) {
  /** `fn()`, tried again with growing pauses while it fails, for storeRetryMs (the first try costs no more than the call). */
  function retryStore(fn) {
    const deadline = Date.now() + storeRetryMs;
    let first;
    try {
      first = fn();
    } catch (err) {
      first = Promise.reject(err);
    }
    return Promise.resolve(first).catch((err) => retryStoreAfter(fn, deadline, err));
  }
  async function retryStoreAfter(fn, deadline, err) {
    let wait = 50;
    for (;;) {
      if (Date.now() + wait > deadline) throw err;
      await sleep(wait);
      wait = Math.min(wait * 2, 1000);
      try {
        return await fn();
      } catch (e) {
        err = e;
      }
    }
  }

  const record = (id, token, answer, info) =>
    retryStore(() => store.complete(id, token, { status: answer.status, code: answer.code, body: answer.body }, dedupeTtlMs)).then(
      (recorded) => {
        if (!recorded) report(new PoscheckError('another attempt took over this delivery (its claim had expired); the answer was not recorded', 'CLAIM_LOST'), info);
      },
      (err) => report(err, { ...info, code: 'STORE_COMPLETE_FAILED' }),
    );
  const releaseClaim = (id, token, info) =>
    retryStore(() => store.release(id, token)).catch((err) => report(err, { ...info, code: 'STORE_RELEASE_FAILED' }));

  /** A receipt to act on (handle, ignore or refuse): deduplicated on its id, then dispatched. */
  async function afterReceipt(receipt, route, body, headers) {
    const deliveryId = receipt.delivery.deliveryId;
    // A refused creation is answered non-200 and stored nowhere; a delivery without an id is
    // processed and never deduplicated against another.
    if (deliveryId === null || deliveryId === undefined || receipt.action === 'refuse') {
      const done = await dispatch(receipt, route, body, headers, deliveryId);
      if (done.late) done.late.catch(() => {});
      return { matched: true, answer: done.answer };
    }
    const info = { route: route.id, deliveryId };
    const token = newToken();
    const deadline = Date.now() + duplicateWaitMs;
    let pause = 20;
    for (;;) {
      let claim;
      try {
        claim = await store.claim(deliveryId, { token, leaseMs });
      } catch (err) {
        return storeUnavailable(err, route.id, deliveryId, token);
      }
      if (claim.state === 'done') return { matched: true, replayed: true, answer: claim.answer };
      if (claim.state === 'claimed') break;
      if (Date.now() + pause > deadline) return { matched: true, answer: answerOf(route.id, 'in-progress') };
      await sleep(pause);
      pause = Math.min(pause * 2, 250);
    }
    let done;
    try {
      done = await dispatch(receipt, route, body, headers, deliveryId);
    } catch (err) {
      await releaseClaim(deliveryId, token, info);
      throw err;
    }
    return settleClaimed(done, route.id, deliveryId, token);
  }

  /** The store did not answer a claim: reported, the claim dropped should it land, 503. */
  function storeUnavailable(err, routeId, deliveryId, token) {
    const info = { route: routeId, deliveryId };
    report(err, { ...info, code: 'STORE_UNAVAILABLE' });
    // The claim may still land once the store answers: drop it then (best effort).
    releaseClaim(deliveryId, token, info);
    return { matched: true, answer: answerOf(routeId, 'store-unavailable') };
  }

  /**
   * The answer at once; then the record of a 200, or the claim's release. Answered without
   * waiting for the store to record it: until the record lands, this attempt's claim holds the
   * delivery, so a retry waits for the recorded answer (or, if the record never lands, meets the
   * claim until its lease ends), as when the answer waited. The record's own failures are
   * reported (onError).
   */
  function settleClaimed(done, routeId, deliveryId, token) {
    const info = { route: routeId, deliveryId };
    const finish = (answer) => (answer.status === 200 ? record(deliveryId, token, answer, info) : releaseClaim(deliveryId, token, info));
    if (done.late) done.late.then(finish, () => releaseClaim(deliveryId, token, info));
    else finish(done.answer);
    return { matched: true, answer: done.answer };
  }

  /**
   * After the body is read: the common delivery through receiveIo, then, with a store made by
   * createMemoryStore and a handler that returns a value, answered without a promise. Null for
   * the general path (anything receiveIo does not answer; a duplicate whose first attempt is
   * still being handled, which the general path waits for). Otherwise the result, or its promise.
   */
  function receiveFast(method, url, base, headers, body, nodeHeaders = false) {
    const receipt = receiveIo(method, url, base, headers, body, nodeHeaders);
    if (receipt === null) return null;
    const route = receipt.route;
    if (sync === null) return receiveClaimed(receipt, route, body, headers);
    const deliveryId = receipt.delivery.deliveryId;
    const token = (localTokens = (localTokens + 1) % Number.MAX_SAFE_INTEGER);
    let claim;
    try {
      claim = sync.claim(deliveryId, token, leaseMs);
    } catch (err) {
      report(err, { route: route.id, deliveryId, code: 'STORE_UNAVAILABLE' });
      return { matched: true, answer: answerOf(route.id, 'store-unavailable') };
    }
    if (claim.state === 'done') return { matched: true, replayed: true, answer: claim.answer };
    if (claim.state !== 'claimed') return null;
    let done;
    try {
      done = callHandler(receipt, route, body, headers, deliveryId);
    } catch (err) {
      sync.release(deliveryId, token);
      throw err;
    }
    if (typeof done.then === 'function') {
      return done.then(
        (d) => settleSync(d, route.id, deliveryId, token),
        (err) => {
          sync.release(deliveryId, token);
          throw err;
        },
      );
    }
    return settleSync(done, route.id, deliveryId, token);
  }

  /**
   * receiveFast's delivery with a store that answers with promises (Redis): its first claim, then
   * the handler and the answer, without the general path's loop and its closures. A delivery
   * another attempt holds goes to afterReceipt, which waits for that attempt's answer.
   */
  function receiveClaimed(receipt, route, body, headers) {
    const deliveryId = receipt.delivery.deliveryId;
    const token = newToken();
    let claimed;
    try {
      claimed = Promise.resolve(store.claim(deliveryId, { token, leaseMs }));
    } catch (err) {
      claimed = Promise.reject(err);
    }
    return claimed.then(
      (claim) => {
        if (claim.state === 'done') return { matched: true, replayed: true, answer: claim.answer };
        if (claim.state !== 'claimed') return afterReceipt(receipt, route, body, headers);
        let done;
        try {
          done = callHandler(receipt, route, body, headers, deliveryId);
        } catch (err) {
          return releaseClaim(deliveryId, token, { route: route.id, deliveryId }).then(() => Promise.reject(err));
        }
        if (typeof done.then === 'function') {
          return done.then(
            (d) => settleClaimed(d, route.id, deliveryId, token),
            (err) => releaseClaim(deliveryId, token, { route: route.id, deliveryId }).then(() => Promise.reject(err)),
          );
        }
        return settleClaimed(done, route.id, deliveryId, token);
      },
      (err) => storeUnavailable(err, route.id, deliveryId, token),
    );
  }

  /** Records a 200 in the store made by createMemoryStore (or drops the claim), at once. */
  function settleSync(done, routeId, deliveryId, token) {
    if (done.late) done.late.then((answer) => recordSync(answer, routeId, deliveryId, token), () => sync.release(deliveryId, token));
    else recordSync(done.answer, routeId, deliveryId, token);
    return { matched: true, answer: done.answer };
  }

  /** The answer into a store made by createMemoryStore (it keeps its status, code and body), or the claim dropped. */
  function recordSync(answer, routeId, deliveryId, token) {
    try {
      if (answer.status !== 200) sync.release(deliveryId, token);
      else if (!sync.complete(deliveryId, token, answer, dedupeTtlMs)) {
        report(new PoscheckError('another attempt took over this delivery (its claim had expired); the answer was not recorded', 'CLAIM_LOST'), { route: routeId, deliveryId });
      }
    } catch (err) {
      report(err, { route: routeId, deliveryId, code: 'STORE_COMPLETE_FAILED' });
    }
  }

  return { afterReceipt, receiveFast };
}
