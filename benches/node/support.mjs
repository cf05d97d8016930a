// What the Node benches share: a process's CPU time, a free loopback port, a scratch directory
// and children cleaned up on exit.
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
