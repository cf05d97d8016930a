// The probe's face (`probe()` of `poscheck/sandbox`, `poscheck probe`): runs the plan of the Rust
// core (src/probe/plan/, through `raw.ProbePlan`), which decides what a run plays, in what order,
// within what bounds, every verdict and the report. This file only does what the plan says (starts
// the sandbox, calls it, sends to the POS, sleeps), reports what came back, and prints progress.
//
// This file is the ES-module source; the build writes a CommonJS copy for the Node entry
// (scripts/build-pkg.mjs). It imports nothing: the wasm exports, the sandbox's API and Node's
// modules are passed to createProbeApi(). Keep top-level declarations as `export function|class|const`.

/** The report's forms. */
export const PROBE_FORMATS = ['text', 'json', 'junit', 'markdown'];
/** The POS's answers are kept up to this size. */
const MAX_ANSWER = 64 * 1024;

/**
 * The probe over the sandbox module's wasm exports (`raw.ProbePlan`, `raw.Probe`), the sandbox's
 * API (`createSandbox`, `SandboxError`), Node's modules and the sandbox's sender (`node.http`,
 * `node.sendRequest`).
 */
export function createProbeApi(raw, sandboxApi, node) {
  const { createSandbox, SandboxError } = sandboxApi;
  const { http, sendRequest } = node;
  let rules;
  const allRules = () => (rules ??= JSON.parse(raw.Probe.rules()));

  /** Every check the probe can run: id, side, severity, doc, basis, source. */
  function probeRules() {
    return allRules().map((r) => ({ ...r }));
  }

  const invalid = (message) => new SandboxError(message, 'INVALID_ARGUMENT');

  /** The plan of a run with `options`, which it checks (a number JSON cannot write goes as text, so that it is refused, not read as null). */
  function plan(options) {
    let text;
    try {
      text = JSON.stringify(options, (_, v) => ((typeof v === 'number' && !Number.isFinite(v)) || typeof v === 'bigint' ? String(v) : v)) ?? 'null';
    } catch (e) {
      throw invalid(`probe's options cannot be read: ${e.message}`);
    }
    try {
      return new raw.ProbePlan(text, Math.floor(Math.random() * 2 ** 32));
    } catch (e) {
      throw new SandboxError(e.message, e.code ?? 'INVALID_ARGUMENT');
    }
  }

  /** Sends one request to the POS (and nowhere else); resolves with its answer. */
  async function send(agent, { method, url, headers, body }, timeoutMs) {
    const sent = { ...headers, 'Content-Length': Buffer.byteLength(body) };
    const { status, body: answer, error, ms } = await sendRequest(http, agent, url, method, sent, body, timeoutMs, MAX_ANSWER);
    return { status, answer: answer?.toString('utf8'), ms, error, at: Date.now() / 1000 };
  }

  /**
   * Grades the POS at `options.pos`: runs a sandbox whose webhooks go to it, plays the scenarios,
   * and resolves with the report `{ ok, summary, pos, durationMs, checks }`.
   */
  async function probe(options = {}) {
    const run = plan(options);
    const started = performance.now();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    let sb;
    /** Performs a step; resolves with what it gave, for the plan. */
    const perform = async (step) => {
      switch (step.kind) {
        case 'startSandbox':
          sb = await createSandbox(step.options);
          return { value: { url: sb.url, apiKey: sb.apiKey, secret: sb.secret } };
        case 'announce':
          await options.onReady?.(step.info);
          return {};
        case 'sandbox':
          return { value: (await sb[step.action](...step.args)) ?? null };
        case 'send':
          return { answers: await Promise.all(Array.from({ length: step.copies }, () => send(agent, step.exchange, step.timeoutMs))) };
        case 'rest': {
          const res = await fetch(step.url, { method: step.method, headers: step.headers, body: step.body });
          return { value: { status: res.status, text: await res.text() } };
        }
        case 'sleep':
          await new Promise((r) => setTimeout(r, step.ms));
          return {};
        default:
          throw new Error(`the plan asked for an unknown step ${JSON.stringify(step.kind)}`);
      }
    };
    try {
      for (;;) {
        const step = JSON.parse(run.next(Date.now()));
        for (const line of step.say) options.onProgress?.(line);
        if (step.kind === 'done') return JSON.parse(run.finish(Math.round(performance.now() - started)));
        let outcome;
        let failure;
        try {
          outcome = await perform(step);
        } catch (e) {
          failure = e;
          outcome = { error: String(e?.message ?? e) };
        }
        if (!run.report(JSON.stringify(outcome), Date.now())) throw failure;
      }
    } finally {
      run.free();
      agent.destroy();
      await sb?.close();
    }
  }

  /** The report of probe() in `format`: 'text', 'json', 'junit' or 'markdown'. */
  function formatProbeReport(report, format = 'text') {
    if (!PROBE_FORMATS.includes(format)) throw invalid(`format must be one of ${PROBE_FORMATS.join(', ')}`);
    if (!report || !Array.isArray(report.checks)) throw invalid('formatProbeReport takes the report probe() resolved with');
    let checks;
    try {
      checks = JSON.stringify(report.checks);
    } catch (e) {
      throw invalid(`the report's checks cannot be read: ${e.message}`);
    }
    return raw.Probe.report(String(report.pos ?? ''), Number(report.durationMs) || 0, checks, format);
  }

  return { probe, probeRules, formatProbeReport };
}
