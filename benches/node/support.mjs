// What the Node benches share: a process's CPU time, a free loopback port, a scratch directory
// and children cleaned up on exit.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';

/** The CPU time a process used so far (all its threads), µs; null when it is gone. */
export function cpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5) (utime, stime), counted from the state, field 3; in clock ticks of 10 ms.
    return (Number(f[11]) + Number(f[12])) * 10_000;
  } catch {
    return null;
  }
}

/** A port free on `host` a moment ago. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A scratch directory and the set of child processes a bench starts: on exit (or SIGINT, SIGTERM,
 * SIGHUP) every child is sent SIGTERM and the directory removed. Returns `{ tmp, children, killAll }`.
 */
export function scratch(prefix) {
  const tmp = mkdtempSync(`${os.tmpdir()}/${prefix}`);
  const children = new Set();
  const killAll = () => {
    for (const c of children) {
      try {
        c.kill('SIGTERM');
      } catch {}
    }
  };
  process.on('exit', () => {
    killAll();
    rmSync(tmp, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
  return { tmp, children, killAll };
}

/**
 * Spawns a server (added to `children` while it runs); resolves with `{ child, url, pid }` once
 * `ready(its stdout so far)` gives its URL, after which its stdout is drained and dropped (the
 * sandboxes' log lines). Rejects when it exits first or does not start within 60 s; `lateExit`
 * is told when it exits afterwards.
 */
export function startServer(children, name, cmd, args, ready, lateExit) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    let out = '';
    let found = false;
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s: ${stderr}${out.slice(0, 2000)}`)), 60_000);
    const onData = (d) => {
      out += d;
      const url = ready(out);
      if (url) {
        found = true;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ child, url, pid: child.pid });
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.on('exit', (code, signal) => {
      children.delete(child);
      clearTimeout(timer);
      if (!found) reject(new Error(`${name} exited (${signal ?? code}) before it listened: ${stderr}${out.slice(0, 2000)}`));
      else lateExit(`${name} exited (${signal ?? code}) during the run: ${stderr}`, child);
    });
  });
}
