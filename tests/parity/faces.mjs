// The two faces of `poscheck sandbox` as child processes: the npm CLI (node pkg/bin/poscheck.js)
// and the native binary (POSCHECK_NATIVE_BIN, else <repo>/target/debug/poscheck), started with the
// same flags; each is read from its banner, as a POS team reads it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NPM_CLI = join(root, 'pkg', 'bin', 'poscheck.js');

/** The native binary: POSCHECK_NATIVE_BIN when set, else the repository's target/debug/poscheck. */
export function nativeBin() {
  return process.env.POSCHECK_NATIVE_BIN || join(root, 'target', 'debug', 'poscheck');
}

/** The commands of the two faces: [program, ...arguments before `sandbox`]. */
export const FACES = {
  npm: () => [process.execPath, NPM_CLI],
  native: () => {
    const bin = nativeBin();
    if (!existsSync(bin)) throw new Error(`the native binary ${bin} does not exist: build it (make build), or set POSCHECK_NATIVE_BIN`);
    return [bin];
  },
};

/** The children still running: killed when this process exits, whatever happened to the test. */
const live = new Set();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const BANNER = /REST base\s+(\S+)\/api\/v1\/\n\s+client 1 API key\s+(\S+)\n\s+stores: (.*)\n[\s\S]*?HMAC secret\s+(\S+)\n[\s\S]*?assumed where the contract shows nothing: .*\n/;

/** `STORE-1 (storeId 1001, brandId 71), STORE-2 (storeId 1002, brandId 71, autoAccept)` → stores. */
export function parseStores(line) {
  return [...line.matchAll(/([^\s,()]+) \(storeId (\d+), brandId (\d+)(, autoAccept)?\)/g)].map((m) => ({
    remoteId: m[1],
    storeId: Number(m[2]),
    brandId: Number(m[3]),
    autoAccept: Boolean(m[4]),
  }));
}

/**
 * Starts `COMMAND sandbox ARGS…` and resolves once its banner is read:
 * { child, base, apiKey, secret, stores, banner, out(), err(), stop() }. stop() sends SIGTERM and
 * resolves with the exit code (SIGKILL after 3 s). Rejects when the banner does not come within
 * `timeoutMs`, or the process exits first, with what it printed.
 */
export function startFace(command, args, { timeoutMs = 20_000 } = {}) {
  const [program, ...pre] = command;
  const child = spawn(program, [...pre, 'sandbox', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  live.add(child);
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal);
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      const code = await exited;
      clearTimeout(t);
      return code;
    }
    return exited;
  };
  const face = { child, out: () => out, err: () => err, stop };
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      stop();
      reject(new Error(`${command.join(' ')} sandbox ${args.join(' ')}: ${why}\n--- stdout\n${out.slice(0, 2000)}\n--- stderr\n${err.slice(0, 2000)}`));
    };
    const timer = setTimeout(() => fail(`no banner within ${timeoutMs} ms`), timeoutMs);
    const onError = (e) => fail(e.message);
    const onExit = (code, signal) => fail(`exited (${code ?? signal}) before its banner`);
    child.once('error', onError);
    child.once('exit', onExit);
    child.stderr.on('data', (d) => (err += d));
    let read = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (read) return;
      const m = BANNER.exec(out);
      if (!m) return;
      read = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
      resolve({ ...face, base: m[1], apiKey: m[2], stores: parseStores(m[3]), secret: m[4], banner: m[0] });
    });
  });
}
