// A sandbox in its own process, through a command line: `node pkg/bin/poscheck.js sandbox …` (the
// npm face) or the native binary's `poscheck sandbox …` (the native face, issue 43), which take
// the same flags and print the same banner. startSandboxProcess(options, { face }) takes
// createSandbox's options, maps them to the flags (the model's options and a config through temp
// files), reads the banner, and resolves with an object of createSandbox's API, each method a call
// of the same control under /_sandbox/ as pkg/src/sandbox.js makes, over HTTP. Every method that
// reads the sandbox is async here (in-process some are not): call them with `await`, which works on
// both. close() sends SIGTERM and checks the process exits with 0.
//
// The native binary: POSCHECK_NATIVE_BIN when set, else <repo>/target/debug/poscheck. A missing
// binary is an error (a test fails; it does not skip).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxError } from '../../pkg/dist/sandbox.mjs';
import { root } from './helpers.mjs';

export const CONTROL_PREFIX = '/_sandbox';
/** The faces a suite runs against. */
export const FACES = ['npm', 'native'];
/** The npm CLI. */
export const NPM_BIN = join(root, 'pkg/bin/poscheck.js');
/** Every wait on the process or its controls is bounded. */
const START_TIMEOUT_MS = 20_000;
const CONTROL_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 10_000;

/** The model's options (pkg/src/sandbox.js MODEL_OPTIONS): written to the --options file. */
const MODEL_OPTIONS = [
  'acceptanceWindowSeconds', 'timeoutJobDelaySeconds', 'retryScheduleSeconds', 'answerBudgetMs', 'rateLimits', 'perMinute', 'perHour',
  'maxOrders', 'faults', 'menuChangeDelaySeconds', 'deactivationThreshold', 'badImageUrls',
];
/** The face's options with a flag of their own. */
const FACE_OPTIONS = ['pos', 'config', 'clock', 'seed', 'port', 'host', 'allowedHosts', 'state', 'log', 'menu'];

/** The native binary's path: POSCHECK_NATIVE_BIN, else target/debug/poscheck of the repository. */
export function nativeBin() {
  return process.env.POSCHECK_NATIVE_BIN || join(root, 'target/debug/poscheck');
}

/**
 * The command that runs `poscheck ARGS…` of a face: [file, args]. Throws when the native binary is
 * not there (build it with `make build`, or point POSCHECK_NATIVE_BIN at one).
 */
export function command(face, args) {
  if (face === 'npm') return [process.execPath, [NPM_BIN, ...args]];
  if (face !== 'native') throw new Error(`unknown face ${JSON.stringify(face)}: expected npm or native`);
  const bin = nativeBin();
  if (!existsSync(bin)) throw new Error(`the native binary ${bin} is not there: run \`make build\` (cargo build --bin poscheck) or set POSCHECK_NATIVE_BIN`);
  return [bin, args];
}

/** A free port on 127.0.0.1 (bound, read, closed). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Reads the banner `poscheck sandbox` prints on stdout (pkg/bin/poscheck.js): the console URL, the
 * REST base, each client's API key and its stores' remoteIds, the secret, the POS, the clock and
 * the assumptions. Null until its last line (the assumptions) is there.
 */
export function parseBanner(text) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('  assumed where the contract shows nothing: '));
  if (at < 0) return null;
  const value = (label) => {
    const l = lines.find((x) => x.startsWith(`  ${label}`));
    return l === undefined ? undefined : l.slice(label.length + 2).trim();
  };
  const rest = value('REST base');
  const clients = [];
  for (let i = 0; i < at; i++) {
    const m = /^ {2}client (\d+) API key {2}(\S+)$/.exec(lines[i]);
    if (!m) continue;
    const stores = /^ {4}stores: (.*)$/.exec(lines[i + 1] ?? '')?.[1] ?? '';
    clients.push({ apiKey: m[2], stores: [...stores.matchAll(/(?:^|, )(\S+) \(storeId/g)].map((s) => s[1]) });
  }
  return {
    title: lines[0],
    consoleUrl: value('console')?.split(/\s+/)[0] ?? null,
    url: rest?.replace(/\/api\/v1\/$/, ''),
    clients,
    secret: value('HMAC secret'),
    pos: value('POS (webhooks)'),
    clock: value('clock')?.split(' ')[0],
    assumptions: JSON.parse(lines[at].slice('  assumed where the contract shows nothing: '.length)),
  };
}

/**
 * Starts `poscheck sandbox` of `face` ('npm': the npm CLI; 'native': the binary) with the flags
 * for `options` (createSandbox's, plus `menu`: a menu submission seeded with --menu) and resolves,
 * once its banner is read, with the sandbox: createSandbox's API over its controls, and `banner`,
 * `output()` (what it printed so far: { stdout, stderr }), `child`.
 */
export async function startSandboxProcess(options = {}, { face = 'native' } = {}) {
  for (const k of Object.keys(options)) {
    if (!FACE_OPTIONS.includes(k) && !MODEL_OPTIONS.includes(k)) throw new Error(`startSandboxProcess: unknown option ${JSON.stringify(k)}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'poscheck-sandbox-process-'));
  const args = ['sandbox', '--port', String(options.port ?? 0)];
  const flag = (name, value) => value !== undefined && args.push(`--${name}`, String(value));
  flag('pos', options.pos);
  flag('seed', options.seed);
  flag('clock', options.clock);
  flag('host', options.host);
  flag('allowed-hosts', Array.isArray(options.allowedHosts) ? options.allowedHosts.join(',') : options.allowedHosts);
  flag('state', options.state);
  const file = (name, value) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    args.push(`--${name}`, path);
  };
  if (options.config !== undefined) file('config', options.config);
  const model = Object.fromEntries(MODEL_OPTIONS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  if (Object.keys(model).length > 0) file('options', model);
  if (options.menu !== undefined) file('menu', options.menu);

  let cmd;
  try {
    cmd = command(face, args);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const child = spawn(cmd[0], cmd[1], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.once('error', (e) => (out.stderr += `spawn: ${e.message}\n`));
  const log = typeof options.log === 'function' ? options.log : null;
  let banner = null;
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${face} sandbox: no banner within ${START_TIMEOUT_MS} ms\n${out.stdout}\n${out.stderr}`)), START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    let pending = '';
    child.stdout.on('data', (d) => {
      out.stdout += d;
      if (log) {
        pending += d;
        const lines = pending.split('\n');
        pending = lines.pop();
        if (banner) for (const l of lines) log(l);
      }
      if (!banner && (banner = parseBanner(out.stdout))) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr.on('data', (d) => (out.stderr += d));
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${face} sandbox (${cmd[0]} ${args.join(' ')}) exited (${code ?? signal}) before its banner:\n${out.stdout}\n${out.stderr}`));
    });
  });
  try {
    await started;
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return sandboxOverHttp({ face, child, exited, banner, out, dir });
}

/** createSandbox's API over the controls of the sandbox the banner names. */
async function sandboxOverHttp({ face, child, exited, banner, out, dir }) {
  const url = banner.url;
  let closed = false;

  /** One control: { status, text }. */
  async function ask(method, target, body) {
    if (closed) throw new SandboxError('the sandbox is closed', 'CLOSED');
    const res = await fetch(url + target, {
      method,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body ?? {}),
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
    return { status: res.status, text: await res.text() };
  }
  /** The value of a control, or its error thrown as a SandboxError (as the in-process face does). */
  function value({ status, text }, what) {
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${face} sandbox: ${what} → ${status}, not JSON: ${text.slice(0, 300)}`);
    }
    if (status >= 400) {
      const error = json?.error ?? {};
      throw new SandboxError(error.message ?? `${what} → ${status}: ${text.slice(0, 300)}`, error.code ?? 'INTERNAL');
    }
    return json;
  }
  const control = async (method, target, body) => value(await ask(method, target, body), `${method} ${target}`);
  const path = (...parts) => CONTROL_PREFIX + parts.map((p) => `/${encodeURIComponent(String(p))}`).join('');
  const afterQuery = (o) => (o?.after == null ? '' : `?after=${encodeURIComponent(String(o.after))}`);
  const onOrder = (action, orderKey, opts) => control('POST', path('orders', orderKey, action), opts ?? {});
  let words;
  const WORDS = async () => (words ??= await control('GET', path('words')));

  const info = await control('GET', CONTROL_PREFIX);
  // The banner says what the info control says.
  const mismatch = [
    ['url', info.url, url],
    ['apiKey', info.apiKey, banner.clients[0]?.apiKey],
    ['secret', info.secret, banner.secret],
    ['pos', info.pos, banner.pos],
    ['clock', info.clock, banner.clock],
    ['stores', info.stores.map((s) => s.remoteId).join(','), banner.clients.flatMap((c) => c.stores).join(',')],
  ].filter(([, a, b]) => a !== b);
  if (mismatch.length) throw new Error(`${face} sandbox: the banner and GET /_sandbox differ: ${JSON.stringify(mismatch)}\n${out.stdout}`);

  const sandbox = {
    face,
    child,
    banner,
    /** What the process printed so far. */
    output: () => ({ ...out }),
    url,
    consoleUrl: banner.consoleUrl,
    apiKey: info.apiKey,
    clients: info.clients.map((c) => ({ apiKey: c.apiKey, stores: c.stores })),
    secret: info.secret,
    stores: info.stores,
    pos: info.pos,
    clock: info.clock,
    assumptions: info.assumptions,
    info: () => control('GET', CONTROL_PREFIX),
    /** The sandbox clock, unix seconds (async here). */
    now: async () => (await control('GET', path('clock'))).now,
    advance: async (seconds) => (await control('POST', path('advance'), { seconds })).now,
    createOrder: (opts) => control('POST', path('orders'), opts ?? {}),
    assignDriver: (orderKey, opts) => onOrder('assign-driver', orderKey, opts),
    releaseDriver: (orderKey, opts) => onOrder('release-driver', orderKey, opts),
    markReadyByDriver: async (orderKey) => onOrder((await WORDS()).WriteStatus.Ready, orderKey),
    deliver: (orderKey) => onOrder('deliver', orderKey),
    cancel: (orderKey, opts) => onOrder('cancel', orderKey, opts),
    refund: (orderKey, opts) => onOrder('refund', orderKey, opts),
    async seedMenu(menu, options = {}) {
      const text = typeof menu === 'string' ? menu : JSON.stringify(menu);
      const brand = options?.brand;
      const query = brand === undefined ? '' : `?${(await WORDS()).Scope.Brand}=${encodeURIComponent(String(brand))}`;
      return control('PUT', path('menu') + query, text);
    },
    menuState: () => control('GET', path('menu')),
    storeMenu: (store) => control('GET', path('menu', 'stores', store)),
    async failMenuChanges(store, options = {}) {
      await control('POST', path('menu', 'fail'), { store: String(store), fail: options?.fail, errorCode: options?.errorCode });
    },
    async order(orderKey) {
      if (String(orderKey) === '') return null;
      const r = await ask('GET', path('orders', orderKey));
      return r.status === 404 ? null : value(r, `GET order ${orderKey}`);
    },
    orders: () => control('GET', path('orders')),
    redeliver: (deliveryId, options) => control('POST', path('deliveries', deliveryId, 'redeliver'), options ?? {}),
    deliveries: () => control('GET', path('deliveries')),
    requests: (options = {}) => control('GET', path('requests') + afterQuery(options)),
    journal: (options = {}) => control('GET', path('journal') + afterQuery(options)),
    async setFaults(faults = {}) {
      await control('PUT', path('faults'), faults);
    },
    /**
     * Waits for the deliveries due now. No control says "settle": on the manual clock, advancing
     * 0 s does (the face sends what is due and waits for every delivery under way); on the real
     * clock, until nothing is due and the journal stays still for 200 ms.
     */
    async settle() {
      if (sandbox.clock === 'manual') {
        await control('POST', path('advance'), { seconds: 0 });
        return;
      }
      const deadline = Date.now() + CONTROL_TIMEOUT_MS;
      let last = -1;
      for (;;) {
        const { now, nextDue } = await control('GET', path('clock'));
        const { latest } = await control('GET', `${path('journal')}?after=999999999999999&wait=0`);
        if ((nextDue === null || nextDue > now) && latest === last) return;
        last = latest;
        if (Date.now() > deadline) throw new Error(`${face} sandbox: settle() gave up after ${CONTROL_TIMEOUT_MS} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async reset() {
      await control('POST', path('reset'));
    },
    /** The model's state as JSON text (GET /_sandbox/state). */
    exportState: async () => {
      const r = await ask('GET', path('state'));
      if (r.status !== 200) value(r, 'GET state');
      return r.text;
    },
    /**
     * SIGTERM, then waits for the exit: rejects when it does not exit within 10 s (it is then
     * killed) or exits with anything but 0.
     */
    async close() {
      if (closed) return;
      closed = true;
      try {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        let timer;
        const result = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(() => resolve(null), EXIT_TIMEOUT_MS)))]);
        clearTimeout(timer);
        if (result === null) {
          child.kill('SIGKILL');
          throw new Error(`${face} sandbox: no exit within ${EXIT_TIMEOUT_MS} ms of SIGTERM`);
        }
        if (result.code !== 0) throw new Error(`${face} sandbox: exit ${result.code ?? result.signal} on SIGTERM, not 0\n${out.stderr}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return sandbox;
}

/**
 * The sandbox's logs read once, as an object whose deliveries(), requests() and orders() answer
 * synchronously (what checkSandboxLogs of sandbox-kit.mjs reads), for either kind of sandbox.
 */
export async function logsOf(sb) {
  const [deliveries, requests, orders] = [await sb.deliveries(), await sb.requests(), await sb.orders()];
  return { secret: sb.secret, deliveries: () => deliveries, requests: () => requests, orders: () => orders };
}
