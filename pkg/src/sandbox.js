// The sandbox's face (`poscheck/sandbox`): I/O around the service model of the Rust core
// (src/service/). The model answers every REST request, decides what every control, timer and
// delivery answer changes, and signs the deliveries; this file only listens (node:http), sends the
// deliveries (node:http) and reports each answer to the model, which journals it, and keeps the
// clock (real, or manual and moved by advance()). Nothing here decides what the contract says.
//
// This file is the ES-module source; the build writes a CommonJS copy for the Node entry
// (scripts/build-pkg.mjs). It imports nothing: the wasm exports and Node's modules are passed to
// createSandboxApi(). Keep top-level declarations as `export function|class|const`.

/** The controls' reserved path prefix on the sandbox's own server. */
export const CONTROL_PREFIX = '/_sandbox';
/** Request bodies above this are refused unread (413). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/**
 * The POS's answer bodies are kept up to this size in the journal (the model's MAX_POS_ANSWER);
 * one byte more is read, so that the model knows when it cut one.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;


/** The model's options a caller may set (the README lists what each assumes). */
const MODEL_OPTIONS = [
  'acceptanceWindowSeconds',
  'timeoutJobDelaySeconds',
  'retryScheduleSeconds',
  'answerBudgetMs',
  'rateLimits',
  'perMinute',
  'perHour',
  'maxOrders',
  'faults',
  'menuChangeDelaySeconds',
  'deactivationThreshold',
  'badImageUrls',
];
const FACE_OPTIONS = ['pos', 'config', 'clock', 'seed', 'port', 'host', 'allowedHosts', 'state', 'log'];

/** An error of the sandbox: `code` is stable (INVALID_CONFIG, INVALID_CONTROL, NOT_FOUND, NOT_APPLICABLE, LIMIT, INVALID_ARGUMENT, CLOSED). */
export class SandboxError extends Error {
  constructor(message, code, options) {
    super(message, options);
    this.name = 'SandboxError';
    this.code = code;
  }
}

function rethrow(e) {
  if (e instanceof SandboxError) throw e;
  throw new SandboxError(e?.message ?? String(e), e?.code ?? 'INTERNAL', { cause: e });
}

const EMPTY = Buffer.alloc(0);

/**
 * The console's static files (pkg/console/manifest.json: each path, file and Content-Type, and the
 * headers every one is sent with), read once from `dir`: a Map from a path to `{ type, body }`,
 * and the headers. Empty when the directory is not there.
 */
export function readConsole(fs, dir) {
  const files = new Map();
  if (!dir || !fs.existsSync(`${dir}/manifest.json`)) return { files, headers: {} };
  const manifest = JSON.parse(fs.readFileSync(`${dir}/manifest.json`, 'utf8'));
  for (const f of manifest.files) files.set(f.path, { type: f.type, body: fs.readFileSync(`${dir}/${f.file}`) });
  return { files, headers: manifest.headers };
}
/** A path under the controls' prefix (`/_sandbox`, `/_sandbox/…`, `/_sandbox?…`). */
const isControl = (url) => url.startsWith(CONTROL_PREFIX) && (url.length === CONTROL_PREFIX.length || '/?'.includes(url[CONTROL_PREFIX.length]));

/**
 * Sends one request with node:http and resolves with `{ status, body, error, ms }`: `body` the
 * answer's first `maxBytes` bytes (a Buffer); `status` 0 and `error` set when no answer came
 * (a connection error, or none within `timeoutMs`). Never rejects. The deliveries and the probe
 * send through it.
 */
export function sendRequest(http, agent, url, method, headers, body, timeoutMs, maxBytes) {
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    let budget;
    const finish = (status, answer, error) => {
      if (done) return;
      done = true;
      clearTimeout(budget);
      resolve({ status, body: answer, error, ms: Math.round((performance.now() - started) * 10) / 10 });
    };
    let req;
    try {
      req = http.request(url, { method, headers, agent, timeout: timeoutMs });
    } catch (e) {
      finish(0, undefined, e.message);
      return;
    }
    budget = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('response', (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (c) => {
        if (size < maxBytes) chunks.push(c.subarray(0, maxBytes - size));
        size += c.length;
      });
      res.on('end', () => finish(res.statusCode, Buffer.concat(chunks)));
      res.on('error', (e) => finish(0, undefined, e.message));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => finish(0, undefined, e.message));
    req.end(body);
  });
}

/**
 * The sandbox API over the model's wasm exports (`raw.SandboxModel`) and Node's modules
 * (`node.http`, `node.fs`).
 */
export function createSandboxApi(raw, node) {
  // The `?brand=` parameter of PUT /_sandbox/menu and the driver's `ready` control are named by
  // the contract's words (src/contract.rs), read from the module when first needed.
  let words;
  const WORDS = () => (words ??= JSON.parse(raw.contractWords()));
  const BRAND = () => WORDS().Scope.Brand;
  const READY = () => WORDS().WriteStatus.Ready;
  const json = (value) => Buffer.from(JSON.stringify(value ?? {}), 'utf8');
  /** A listener that does nothing (one function for every request, not a closure each). */
  const ignore = () => {};
  // `memory`: the module's memory, where the model leaves each REST answer for the face to read.
  const { http, fs, memory } = node;
  const utf8 = new TextDecoder();
  let consoleFiles;
  const CONSOLE = () => (consoleFiles ??= readConsole(fs, node.consoleDir));

  function makeModel(options, config) {
    try {
      if (options.state && fs.existsSync(options.state)) return raw.SandboxModel.fromState(fs.readFileSync(options.state, 'utf8'));
      const model = {};
      for (const k of MODEL_OPTIONS) if (options[k] !== undefined) model[k] = options[k];
      const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
      return new raw.SandboxModel(config === undefined ? '' : JSON.stringify(config), JSON.stringify(model), seed);
    } catch (e) {
      rethrow(e);
    }
  }

  /**
   * Starts a sandbox: a contract-true local service on 127.0.0.1 (a free port unless `port` is
   * given) that sends signed webhooks to `pos`. Resolves once it listens.
   */
  async function createSandbox(options = {}) {
    if (options === null || typeof options !== 'object') throw new SandboxError('createSandbox takes an options object', 'INVALID_ARGUMENT');
    for (const k of Object.keys(options)) {
      if (!FACE_OPTIONS.includes(k) && !MODEL_OPTIONS.includes(k)) {
        throw new SandboxError(`unknown option ${JSON.stringify(k)}: expected one of ${[...FACE_OPTIONS, ...MODEL_OPTIONS].join(', ')}`, 'INVALID_ARGUMENT');
      }
    }
    const clock = options.clock ?? 'real';
    if (clock !== 'real' && clock !== 'manual') throw new SandboxError(`clock must be 'real' or 'manual', found ${JSON.stringify(clock)}`, 'INVALID_ARGUMENT');
    if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && options.seed >= 0)) {
      throw new SandboxError('seed must be a non-negative integer', 'INVALID_ARGUMENT');
    }
    let config = typeof options.config === 'string' ? JSON.parse(options.config) : options.config;
    if (options.pos !== undefined) config = { ...(config ?? {}), pos: options.pos };
    const model = makeModel(options, config);
    const info = JSON.parse(model.info());
    const log = typeof options.log === 'function' ? options.log : options.log ? (line) => console.log(line) : null;
    // Who may reach the controls and the console over HTTP: the model's guard decides; the names
    // are checked here, before listening.
    const allowed = options.allowedHosts ?? [];
    if (!(typeof allowed === 'string' || (Array.isArray(allowed) && allowed.every((h) => typeof h === 'string')))) {
      throw new SandboxError('allowedHosts must be a list of host names (or one comma-separated string)', 'INVALID_ARGUMENT');
    }
    const allowedHosts = Array.isArray(allowed) ? allowed.join(',') : allowed;
    const host = options.host ?? '127.0.0.1';
    try {
      model.setAccess(String(host), 0, allowedHosts);
    } catch (e) {
      rethrow(e);
    }

    // ---- the clock ----------------------------------------------------------------------------
    let manualMs = Math.floor(Date.now() / 1000) * 1000;
    const nowMs = () => (clock === 'manual' ? manualMs : Date.now());

    // ---- deliveries: sent here, each answer reported to the model, which journals it ------------
    const inFlight = new Map(); // deliveryId → Promise of its attempt(s) under way
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    let closed = false;
    let timer = null;

    function send(a) {
      return sendRequest(http, agent, a.url, a.method, Object.fromEntries(a.headers), a.body, a.budgetMs, MAX_ANSWER_BYTES + 1).then(({ status, body, error, ms }) => {
        const settled = JSON.parse(model.answered(a.attempt, status, body ?? EMPTY, ms, nowMs(), error));
        wake();
        // The line is the model's (src/service/outbox.rs), the same in every face.
        if (settled?.log) log?.(settled.log);
      });
    }

    function start(attempts) {
      return attempts.map((a) => {
        const p = send(a);
        const prev = inFlight.get(a.deliveryId);
        const both = prev ? Promise.all([prev, p]) : p;
        inFlight.set(a.deliveryId, both);
        both.finally(() => {
          if (inFlight.get(a.deliveryId) === both) inFlight.delete(a.deliveryId);
        });
        return p;
      });
    }

    /** Sends what is due now, and what their answers make due now, until nothing is due. */
    async function drain() {
      for (;;) {
        const attempts = JSON.parse(model.due(nowMs(), Date.now() / 1000));
        if (attempts.length === 0) break;
        await Promise.all(start(attempts));
      }
      schedule();
    }

    // The timer rule (design.md): after every call into the model, the timer is armed for the
    // model's next due time, whatever changed it (a control, a delivery's answer, a REST call).
    // Re-arming for the time already armed costs one call into the model and nothing else.
    let armedFor = -1;
    function schedule() {
      const next = closed || clock === 'manual' ? -1 : model.nextDue();
      if (timer && next === armedFor) return;
      if (timer) clearTimeout(timer);
      timer = null;
      armedFor = next;
      if (next < 0) return;
      timer = setTimeout(() => {
        timer = null;
        armedFor = -1;
        drain().catch((e) => log?.(`sandbox: ${e.message}`));
      }, Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
      timer.unref?.();
    }

    let saveTimer = null;
    function changed() {
      if (!options.state || saveTimer) return;
      saveTimer = setTimeout(() => {
        saveTimer = null;
        saveState();
      }, 200);
      saveTimer.unref?.();
    }
    function saveState() {
      if (!options.state) return;
      const tmp = `${options.state}.tmp`;
      fs.writeFileSync(tmp, model.exportState());
      fs.renameSync(tmp, options.state);
    }

    // ---- the long poll of the journal: reads waiting for the model to change -----------------
    const waiters = new Set();
    let wakeQueued = false;
    /** The model changed: the waiting reads answer (once a tick, however many changes). */
    function wake() {
      if (waiters.size === 0 || wakeQueued) return;
      wakeQueued = true;
      setImmediate(() => {
        wakeQueued = false;
        for (const done of [...waiters]) done();
      });
    }
    /** Waits for wake(), `ms` or `res` closed; at once when `limit` reads already wait. */
    function waitForChange(ms, limit, res) {
      if (closed || waiters.size >= limit) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(t);
          waiters.delete(done);
          res?.off('close', done);
          resolve();
        };
        const t = setTimeout(done, ms);
        waiters.add(done);
        res?.on('close', done);
      });
    }

    // ---- the controls: the model routes and answers them (src/service/controls.rs) ------------
    /** One request under the controls' prefix, answered by the model: `{ status, body, effect, changed, log }`. */
    function ask(method, target, body = EMPTY, req = null) {
      const r = JSON.parse(
        req
          ? model.controlHttp(method, target, req.headers.host, req.headers.origin, body, nowMs(), Date.now() / 1000)
          : model.controlRequest(method, target, body, nowMs(), Date.now() / 1000),
      );
      schedule();
      if (r.log) log?.(r.log);
      if (r.changed) wake();
      const kind = r.effect.kind;
      if (r.changed && kind !== 'settle' && kind !== 'advance') changed();
      return r;
    }

    /** Carries out what a reply asks of the runtime (settle, advance the clock, send copies); the final reply. */
    async function carry(r, res) {
      const e = r.effect;
      if (e.kind === 'settle') {
        await drain();
        await Promise.all(e.deliveries.map((id) => inFlight.get(id)).filter(Boolean));
      } else if (e.kind === 'advance') {
        const target = manualMs + e.ms;
        for (;;) {
          const next = model.nextDue();
          if (next < 0 || next > target) break;
          manualMs = Math.max(manualMs, next);
          await drain();
          await Promise.all([...inFlight.values()]);
        }
        manualMs = target;
        wake();
      } else if (e.kind === 'wait') {
        await waitForChange(e.ms, e.limit, res);
      } else if (e.kind === 'send') {
        await Promise.all(start(e.attempts));
      }
      if (r.changed && (e.kind === 'settle' || e.kind === 'advance')) changed();
      if (!e.then) return r;
      const out = JSON.parse(model.controlThen(JSON.stringify(e.then), nowMs()));
      schedule();
      return out;
    }

    /** The value of a reply, or its error thrown as a SandboxError. */
    function value(r) {
      if (r.status >= 400) {
        const { error } = JSON.parse(r.body);
        throw new SandboxError(error.message, error.code);
      }
      return JSON.parse(r.body);
    }
    const path = (...parts) => CONTROL_PREFIX + parts.map((p) => `/${encodeURIComponent(String(p))}`).join('');
    /** `?after=…` of a read of the journal (the model checks it). */
    const afterQuery = (options) => (options?.after == null ? '' : `?after=${encodeURIComponent(String(options.after))}`);
    /** A control answered at once (no effect waits). */
    const control = (method, target, body) => value(ask(method, target, body));
    /** A control whose effect the runtime carries out first. */
    const controlAfter = async (method, target, body) => value(await carry(ask(method, target, body)));
    /** A control on one order, then its detail. */
    const onOrder = (action, orderKey, opts) => controlAfter('POST', path('orders', orderKey, action), json(opts));

    // ---- the server -----------------------------------------------------------------------------
    const server = http.createServer((req, res) => {
      // A bodiless read is answered at once (Node discards an unread request when the answer ends).
      if ((req.method === 'GET' || req.method === 'HEAD') && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
        // The console's static files (pkg/console/manifest.json), at `/`: only those paths.
        const file = CONSOLE().files.get(req.url.split('?')[0]);
        if (file) {
          // The same guard as the controls' (the model's): a foreign Host gets the 403.
          const refused = model.pageGuard(req.method, req.url, req.headers.host, req.headers.origin);
          if (refused) {
            const r = JSON.parse(refused);
            if (r.log) log?.(r.log);
            res.writeHead(r.status, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(r.body) });
            res.end(req.method === 'HEAD' ? undefined : r.body);
            return;
          }
          res.writeHead(200, { ...CONSOLE().headers, 'Content-Type': file.type, 'Content-Length': file.body.length });
          res.end(req.method === 'HEAD' ? undefined : file.body);
          return;
        }
        if (isControl(req.url)) controlRoute(req, res, EMPTY).catch((e) => reply(res, 500, { error: { code: 'INTERNAL', message: e.message } }));
        else rest(req, res, EMPTY);
        return;
      }
      const chunks = [];
      let size = 0;
      let refused = false;
      let done = false;
      const expected = req.headers['transfer-encoding'] === undefined ? Number(req.headers['content-length']) : NaN;
      const finish = () => {
        if (refused || done) return;
        done = true;
        const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        if (isControl(req.url)) {
          controlRoute(req, res, body).catch((e) => reply(res, 500, { error: { code: 'INTERNAL', message: e.message } }));
          return;
        }
        rest(req, res, body);
      };
      req.on('data', (c) => {
        size += c.length;
        if (size > MAX_REQUEST_BYTES) {
          if (!refused) {
            refused = true;
            const body = model.unreadProblem(413, `the body exceeds ${MAX_REQUEST_BYTES} bytes`);
            res.writeHead(413, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
            res.end(body);
          }
          // The rest is read and dropped, so that a client still sending reads the 413 instead of
          // meeting a reset (as the receiver kit does); a body that goes on past 4x the limit is cut.
          if (size > 4 * MAX_REQUEST_BYTES) req.destroy();
          return;
        }
        chunks.push(c);
        // The whole body (its Content-Length) is here: answered now, not a tick later at 'end'
        // (measured: the POST rows of the bench 0.49 -> 0.56-0.77x the bare server).
        if (size === expected) finish();
      });
      req.on('end', finish);
      req.on('error', ignore);
    });
    server.on('clientError', (err, socket) => {
      if (!socket.writable) return socket.destroy();
      // Unparsable requests (a bad method, header or request line; a head above Node's limit) get a
      // JSON problem too, like every other answer.
      // The same details as the native face's (src/native/): the parser's own code only where both have it.
      const [status, title] = { HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'], ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'] }[err.code] ?? [400, 'Bad Request'];
      const body = model.unreadProblem(status, `the request cannot be read as HTTP/1.1${status === 400 ? '' : ` (${err.code})`}`);
      socket.end(`HTTP/1.1 ${status} ${title}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;

    function reply(res, status, value) {
      const body = JSON.stringify(value);
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    }

    function rest(req, res, body) {
      const h = req.headers;
      const started = log ? performance.now() : 0;
      let out;
      try {
        const length = model.handle(req.method, req.url, h['x-service-api-key'], h['x-service-schema-version'], h['idempotency-key'], h['content-type'], body, nowMs());
        // Read where the model keeps it (valid until its next call).
        out = length === 0 ? '' : utf8.decode(new Uint8Array(memory.buffer, model.answerPtr(), length));
      } catch (e) {
        reply(res, 500, { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: e.message, traceId: null, meta: null });
        return;
      }
      const status = model.status();
      const flags = model.flags();
      wake();
      const headers = { 'Content-Type': flags & 1 ? 'application/problem+json' : 'application/json; charset=utf-8', 'Content-Length': model.bodyLength() };
      const retryAfter = model.retryAfter();
      if (retryAfter) headers['Retry-After'] = String(retryAfter);
      if (flags & 2) headers['Idempotent-Replayed'] = 'true';
      const delay = model.delayMs();
      const write = () => {
        res.writeHead(status, headers);
        res.end(out);
        if (log) log(raw.restLogLine(req.method, req.url, status, (flags & 2) !== 0, retryAfter, performance.now() - started));
      };
      if (delay) setTimeout(write, delay);
      else write();
      if (req.method !== 'GET') changed();
      schedule();
    }

    /** A control over HTTP: the model routes and answers it; the face carries out its effect. */
    async function controlRoute(req, res, body) {
      const r = await carry(ask(req.method, req.url, body, req), res);
      if (res.destroyed) return;
      res.writeHead(r.status, { 'Content-Type': r.problem ? 'application/problem+json' : 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(r.body) });
      res.end(r.body);
    }

    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    model.setProblemBase(`${url}/problems`);
    model.setFace(url, clock === 'manual');
    const exposed = model.setAccess(String(host), address.port, allowedHosts);
    if (exposed) (log ?? console.warn)(exposed);
    Object.assign(info, JSON.parse(model.info()));

    const clientOf = (c) => ({ apiKey: c.apiKey, stores: c.stores });
    const sandbox = {
      /** The REST base (bare origin; paths are /api/v1/…). */
      url,
      /** The console: the orders, their timelines, deliveries and REST calls, live (null without its files). */
      consoleUrl: CONSOLE().files.has('/') ? `${url}/` : null,
      /** The first client's API key. */
      apiKey: info.config.clients[0].apiKey,
      /** Every client: apiKey and stores. */
      clients: info.config.clients.map(clientOf),
      /** The account's HMAC secret. */
      secret: info.config.secret,
      /** Every store: remoteId, storeId, brandId, autoAccept. */
      stores: info.config.clients.flatMap((c) => c.stores),
      /** The POS base URL deliveries go to. */
      pos: info.config.pos,
      /** 'real' or 'manual'. */
      clock,
      /** What the model assumes where the contract shows nothing. */
      assumptions: info.options,
      info: () => control('GET', CONTROL_PREFIX),
      /** The sandbox clock, unix seconds. */
      now: () => nowMs() / 1000,
      /** Manual clock: moves it `seconds` on, firing every timer due by then in order (their deliveries settle). */
      advance: async (seconds) => (await controlAfter('POST', path('advance'), json({ seconds }))).now,
      /** A customer places an order; resolves with the detail once the creation delivery settled. */
      createOrder: (opts) => controlAfter('POST', path('orders'), json(opts)),
      // The other actors on an order: each resolves with the detail once its deliveries settled.
      assignDriver: (orderKey, opts) => onOrder('assign-driver', orderKey, opts),
      releaseDriver: (orderKey, opts) => onOrder('release-driver', orderKey, opts),
      markReadyByDriver: (orderKey) => onOrder(READY(), orderKey),
      deliver: (orderKey) => onOrder('deliver', orderKey),
      cancel: (orderKey, opts) => onOrder('cancel', orderKey, opts),
      refund: (orderKey, opts) => onOrder('refund', orderKey, opts),
      // ---- the menu --------------------------------------------------------------------------
      /**
       * Seeds a brand's master catalog with a full menu submission (an object or JSON text), as a
       * confirmed PUT /api/v1/menu would, without spending the POS's rate limit. `brand`: the
       * brand id (default: the first client's). Resolves with what the upload did.
       */
      seedMenu(menu, options = {}) {
        const text = typeof menu === 'string' ? menu : JSON.stringify(menu);
        if (typeof text !== 'string') throw new SandboxError('seedMenu takes a menu submission (an object or JSON text)', 'INVALID_ARGUMENT');
        const brand = options?.brand;
        return control('PUT', path('menu') + (brand === undefined ? '' : `?${BRAND()}=${encodeURIComponent(String(brand))}`), Buffer.from(text, 'utf8'));
      },
      /** The menu state as kept: { catalogs (by brand id), stores (overrides, local products), changes, failing }. */
      menuState: () => control('GET', path('menu')),
      /** The store menu read of a store (the `data` of GET /api/v1/menu/stores/{id}), without spending the rate limit. */
      storeMenu: (store) => control('GET', path('menu', 'stores', store)),
      /** Every menu change for `store` fails (`errorCode`, default STORE_UNAVAILABLE) until called with `{ fail: false }`. */
      failMenuChanges(store, options = {}) {
        control('POST', path('menu', 'fail'), json({ store: String(store), fail: options?.fail, errorCode: options?.errorCode }));
      },
      /** The order detail, read without spending the POS's rate limit (null when there is none). */
      order(orderKey) {
        if (String(orderKey) === '') return null; // an empty segment is no segment: the path would name the list
        const r = ask('GET', path('orders', orderKey));
        return r.status === 404 ? null : value(r);
      },
      /** Every order (detail), oldest first. */
      orders: () => control('GET', path('orders')),
      /** Sends a delivery again with the same X-Service-Delivery-Id; `copies` at the same moment. Resolves with their journal entries (as deliveries() lists them). */
      redeliver: (deliveryId, options) => controlAfter('POST', path('deliveries', deliveryId, 'redeliver'), json(options)),
      /** Every delivery attempt kept (the last 10,000): url, headers, body, the POS's status and answer, ms. */
      deliveries: () => control('GET', path('deliveries')),
      /**
       * Every REST call the POS made (the last 10,000 kept), with the answer it got; `{ after: seq }`
       * only those numbered above it. Read from the model's journal, kept in its memory: a JS log
       * of 10,000 answers cost the server about 20 µs of CPU an answer in garbage collection.
       */
      requests: (options = {}) => control('GET', path('requests') + afterQuery(options)),
      /**
       * The journal, REST calls and delivery attempts under one `seq`, from `{ after: seq }` on:
       * `{ entries, next, more, latest }`, a page of at most 1,000 entries (`next`: the `after` of
       * the next page; `more`: whether it has entries already).
       */
      journal: (options = {}) => control('GET', path('journal') + afterQuery(options)),
      /** Faults on the REST side: { rateLimited, retryAfterSeconds, badGateway, unavailable, slow, slowMs, pathPrefix }. */
      setFaults(faults = {}) {
        control('PUT', path('faults'), json(faults));
      },
      /** Waits for every delivery under way. */
      async settle() {
        await drain();
        await Promise.all([...inFlight.values()]);
      },
      /** Forgets every order, delivery, log, cache entry and rate window (the account stays). */
      reset() {
        control('POST', path('reset'));
      },
      /** The model's whole state as JSON text (what --state keeps). */
      exportState: () => model.exportState(),
      /** Stops listening and sending; resolves once the server is closed. */
      async close() {
        if (closed) return;
        closed = true;
        model.close();
        for (const done of [...waiters]) done();
        if (timer) clearTimeout(timer);
        if (saveTimer) clearTimeout(saveTimer);
        if (options.state) saveState();
        agent.destroy();
        server.closeAllConnections?.();
        await new Promise((resolve) => server.close(() => resolve()));
      },
    };
    schedule();
    return sandbox;
  }

  return { createSandbox, SandboxError, CONTROL_PREFIX };
}
