// What the Node benches share: a process's CPU time, and a free loopback port.
import { readFileSync } from 'node:fs';
import net from 'node:net';

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
