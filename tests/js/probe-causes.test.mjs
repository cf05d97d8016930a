// The probe names why a POS refuses genuine deliveries (issue 40): each faulty receiver
// (tests/js/faulty-receiver.mjs, in its own process, written from the causes' descriptions) makes
// one mistake of the catalogue and so refuses every genuine delivery; the probe's run exits not ok
// and its failed receiver/refusal-cause check says, in plain words, what that receiver does. A
// receiver that refuses everything gets the "ruled out" list and no cause.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import test from 'node:test';
import { probe, formatProbeReport } from '../../pkg/dist/sandbox.mjs';
import { root } from './helpers.mjs';
import { CAUSES } from './probe-kit.mjs';

const SCRIPT = `${root}tests/js/faulty-receiver.mjs`;
// Decodes as hex and as base64 too, so that the receivers that decode it have a key.
const SECRET = '0123456789abcdef0123456789abcdef';

// Each cause, and words its check's message must carry (from the cause's description: what a
// receiver making the mistake does). body-compact is left out: the service's bodies are compact,
// so that receiver accepts the genuine deliveries.
const NAMED = Object.values(CAUSES);

async function receiver(t, cause) {
  const child = spawn(process.execPath, [SCRIPT, cause, '--secret', SECRET, '--ttl', '100'], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => {
    child.stdin.end();
    child.kill();
  });
  const [line] = await once(child.stdout, 'data');
  return JSON.parse(String(line).split('\n')[0]).url;
}

async function run(t, cause) {
  const pos = await receiver(t, cause);
  const started = Date.now();
  const report = await probe({ pos, secret: SECRET, receiverOnly: true });
  return { report, ms: Date.now() - started, text: formatProbeReport(report, 'text') };
}

const check = (report, id) => report.checks.find((c) => c.id === id);

for (const [cause, words] of Object.entries(CAUSES)) {
  test(`a receiver whose ${cause}: the run fails and receiver/refusal-cause names it`, { timeout: 90_000 }, async (t) => {
    const { report, text } = await run(t, cause);
    assert.equal(report.ok, false);
    const c = check(report, 'receiver/refusal-cause');
    assert.equal(c.status, 'failed', text);
    assert.match(c.message, words, text);
    for (const other of NAMED) if (other !== words && !(cause.startsWith('secret-trailing') && String(other).includes('secret carries'))) assert.doesNotMatch(c.message.split(':')[0], other, `${cause}: no other cause named`);
    assert.match(text, words, 'the text report carries the same words');
    assert.match(formatProbeReport(report, 'junit'), new RegExp(words.source.replace(/"/g, '&quot;')), 'JUnit too');
    assert.match(formatProbeReport(report, 'markdown').replace(/\\\\/g, '\\'), words, 'Markdown too (its backslashes escaped)');
    assert.ok(c.evidence.length >= 2, 'the refused genuine delivery and the accepted variant as evidence');
  });
}

test('a receiver that refuses everything: ruled out, no cause named, in under 60 s', { timeout: 90_000 }, async (t) => {
  const { report, ms, text } = await run(t, 'refuse-all');
  assert.equal(report.ok, false);
  const c = check(report, 'receiver/refusal-cause');
  assert.equal(c.status, 'failed', text);
  assert.match(c.message, /not among those tried/);
  assert.match(c.message, /Ruled out:/);
  const cause = c.message.split('Ruled out:')[0];
  for (const words of NAMED) assert.doesNotMatch(cause, words);
  assert.ok(ms < 60_000, `${ms} ms`);
});
