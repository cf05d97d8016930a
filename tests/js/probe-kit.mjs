// What the probe's suites share (probe.test.mjs, probe-causes.test.mjs, probe-native.test.mjs): the
// test POS started in its own process, and each faulty receiver's cause with the words its
// diagnosis must name.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { root } from './helpers.mjs';

const posScript = `${root}tests/js/probe-pos.mjs`;

/** Starts the test POS in its own process; stops when its stdin closes. */
export async function startPos(...args) {
  const child = spawn(process.execPath, [posScript, '--serve', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const { port } = JSON.parse(String(line).split('\n')[0]);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async configure(c) {
      const r = await fetch(`${url}/control/config`, { method: 'POST', body: JSON.stringify({ sandboxUrl: c.url, apiKey: c.apiKey, secret: c.secret }) });
      assert.equal(r.status, 200, await r.text());
    },
    stop() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Each cause of tests/js/faulty-receiver.mjs, and the words its diagnosis names. */
export const CAUSES = {
  'body-json-stringify': /JSON\.stringify\(JSON\.parse\(body\)\)/,
  'body-python-spaced': /", " and ": " separators/,
  'body-sorted-keys': /keys sorted/,
  'secret-trailing-newline': /secret carries a trailing newline/,
  'secret-trailing-crlf': /secret carries a trailing "\\r\\n"/,
  'secret-trailing-space': /secret carries a trailing space/,
  'secret-hex-decoded': /decoded from hex/,
  'secret-base64-decoded': /decoded from base64/,
  'signed-body-only': /signs the body alone/,
  'signed-without-dot': /without the dot/,
  'signature-uppercase-hex': /upper-case hex/,
  'signature-base64': /digest in base64/,
  'signature-without-prefix': /without its "sha256=" prefix/,
  'timestamp-milliseconds': /clock in milliseconds/,
  'clock-offset': /clock is .*ahead/,
};
