#!/usr/bin/env node
// `npx poscheck …`: the command line of the native `poscheck`, run through the package's wasm.
// Arguments are parsed and files read here; what each command prints and its exit status come
// from the Rust core (`poscheck::cli`), the same functions the native binary calls, so both print
// the same bytes. Help texts are the native binary's own (dist/cli-help.json, written by the build).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import * as raw from '../dist/web/poscheck.js';
import wasm from '../dist/wasm.js';

raw.initSync({ module: Buffer.from(wasm, 'base64') });
const help = JSON.parse(readFileSync(new URL('../dist/cli-help.json', import.meta.url), 'utf8'));
const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

const require = createRequire(import.meta.url);

class UsageError extends Error {}

const FORMATS = ['text', 'json', 'sarif', 'github'];
const PLAIN = ['text', 'json'];
const SECRETS = { 'secret-file': { many: true }, 'secret-env': { many: true } };
/** Each command's options (as the native binary's clap definitions): values, switches, short names. */
const COMMANDS = {
  sign: { values: { ...SECRETS, timestamp: { short: 't' }, 'delivery-id': {}, 'event-type': {}, format: { short: 'f', choices: PLAIN } }, max: 1 },
  verify: {
    values: { ...SECRETS, header: { short: 'H', many: true }, now: {}, tolerance: {}, format: { short: 'f', choices: PLAIN } },
    switches: { request: 'r' },
    max: 1,
  },
  lint: { values: { format: { short: 'f', choices: FORMATS }, 'max-warnings': {} } },
  order: { values: { format: { short: 'f', choices: FORMATS }, 'max-warnings': {} } },
  validate: { values: { format: { short: 'f', choices: FORMATS }, 'max-warnings': {}, kind: { short: 'k' }, path: { short: 'p' } } },
  diff: { values: { format: { short: 'f', choices: ['text', 'json', 'markdown'] }, threshold: { short: 't' }, 'max-entries': {} }, min: 2, max: 2 },
  rules: { values: { format: { short: 'f', choices: PLAIN } }, max: 0 },
  schema: { switches: { list: null }, max: 1 },
  openapi: { max: 0 },
  sandbox: {
    values: { port: {}, host: {}, 'allowed-hosts': {}, pos: {}, config: {}, seed: {}, state: {}, clock: { choices: ['real', 'manual'] }, options: {}, menu: {} },
    max: 0,
  },
  probe: {
    values: {
      pos: {},
      store: { many: true },
      'secret-env': {},
      'api-key': {},
      port: {},
      format: { short: 'f', choices: ['text', 'json', 'junit', 'markdown'] },
      only: { many: true },
      wait: {},
      faults: {},
      'budget-ms': {},
      seed: {},
    },
    switches: { 'receiver-only': null },
    max: 0,
  },
};

/** argv of one command → { options, positionals, help }. */
function parse(spec, argv) {
  const options = {};
  const positionals = [];
  const byShort = {};
  for (const [name, o] of Object.entries(spec.values ?? {})) if (o.short) byShort[o.short] = name;
  for (const [name, s] of Object.entries(spec.switches ?? {})) byShort[s] = name;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '--help' || arg === '-h') return { help: arg };
    let name;
    let inline;
    if (arg.startsWith('--')) {
      [name, inline] = arg.slice(2).split(/=(.*)/s);
    } else if (arg.startsWith('-') && arg.length > 1) {
      name = byShort[arg[1]];
      if (!name) throw new UsageError(`unexpected argument '${arg}' found`);
      if (arg.length > 2) inline = arg.slice(2);
    } else {
      positionals.push(arg);
      continue;
    }
    if (spec.switches && name in spec.switches) {
      options[name] = true;
      continue;
    }
    const o = spec.values?.[name];
    if (!o) throw new UsageError(`unexpected argument '--${name}' found`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`a value is required for '--${name}'`);
    if (o.choices && !o.choices.includes(value)) throw new UsageError(`invalid value '${value}' for '--${name}'`);
    if (o.many) (options[name] ??= []).push(value);
    else if (name in options) throw new UsageError(`the argument '--${name}' cannot be used multiple times`);
    else options[name] = value;
  }
  if (positionals.length < (spec.min ?? 0)) throw new UsageError('the following required arguments were not provided');
  if (spec.max !== undefined && positionals.length > spec.max) throw new UsageError(`unexpected argument '${positionals[spec.max]}' found`);
  return { options, positionals };
}

const integer = (value, name) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`invalid value '${value}' for '--${name}'`);
  return Number(value);
};

function readInput(file) {
  if (file === undefined || file === '-') return ['<stdin>', readFileSync(0)];
  try {
    return [file, readFileSync(file)];
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${e.message}`);
  }
}

/** A glob pattern (`*`, `?`, `[…]` within path segments) → matching files, sorted. */
function expand(pattern) {
  const toRegex = (seg) => new RegExp(`^${seg.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
  let paths = [pattern.startsWith('/') ? '/' : ''];
  for (const seg of pattern.split('/').filter((s, i) => s !== '' || i > 0)) {
    const next = [];
    for (const base of paths) {
      if (!/[*?[]/.test(seg)) {
        next.push(base === '' ? seg : join(base, seg));
        continue;
      }
      let names = [];
      try {
        names = readdirSync(base === '' ? '.' : base);
      } catch {}
      for (const n of names) if (toRegex(seg).test(n)) next.push(base === '' ? n : join(base, n));
    }
    paths = next;
  }
  return paths.filter((p) => existsSync(p) && statSync(p).isFile()).sort();
}

function readInputs(files) {
  if (files.length === 0) return [readInput(undefined)];
  const out = [];
  for (const arg of files) {
    if (!/[*?[]/.test(arg) || existsSync(arg)) {
      out.push(readInput(arg));
      continue;
    }
    const matched = expand(arg);
    if (matched.length === 0) throw new UsageError(`no file matches ${JSON.stringify(arg)}`);
    for (const m of matched) out.push(readInput(m));
  }
  return out;
}

function secrets(options) {
  const out = [];
  for (const path of options['secret-file'] ?? []) {
    let s;
    try {
      s = readFileSync(path);
    } catch (e) {
      throw new UsageError(`cannot read the secret file ${path}: ${e.message}`);
    }
    if (s.at(-1) === 0x0a) s = s.subarray(0, s.at(-2) === 0x0d ? -2 : -1);
    out.push(s);
  }
  for (const v of options['secret-env'] ?? []) {
    if (process.env[v] === undefined) throw new UsageError(`the environment variable ${v} is not set`);
    out.push(Buffer.from(process.env[v]));
  }
  if (out.length === 0) throw new UsageError('give the secret with --secret-file FILE or --secret-env VAR');
  return out;
}

const now = () => Math.floor(Date.now() / 1000);
const concat = (buffers) => [Buffer.concat(buffers), Uint32Array.from(buffers, (b) => b.length)];

function run(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const target = command === 'help' && rest[0] in COMMANDS ? `${rest[0]} --help` : command === '-h' ? '-h' : '--help';
    return { stdout: help[target], stderr: '', code: command === undefined ? 2 : 0, toStderr: command === undefined };
  }
  if (command === '--version' || command === '-V') return { stdout: `poscheck ${version}\n`, stderr: '', code: 0 };
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unrecognized subcommand '${command}'`);
  const { options, positionals, help: wantsHelp } = parse(spec, rest);
  if (wantsHelp) return { stdout: help[`${command} ${wantsHelp}`], stderr: '', code: 0 };
  const json = options.format === 'json';
  switch (command) {
    case 'sign': {
      const [secret, ...others] = secrets(options);
      if (others.length) throw new UsageError('sign takes exactly one secret');
      const [, body] = readInput(positionals[0]);
      return raw.cliSign(secret, integer(options.timestamp, 'timestamp') ?? now(), body, options['delivery-id'], options['event-type'], json);
    }
    case 'verify': {
      const [data, lengths] = concat(secrets(options));
      const [, input] = readInput(positionals[0]);
      return raw.cliVerify(input, Boolean(options.request), options.header ?? [], data, lengths, integer(options.now, 'now') ?? now(),
        integer(options.tolerance, 'tolerance') ?? 300, json);
    }
    case 'lint':
    case 'order':
    case 'validate': {
      const inputs = readInputs(positionals);
      const [data, lengths] = concat(inputs.map(([, b]) => b));
      return raw.cliReport(command, inputs.map(([n]) => n), data, lengths, options.format ?? 'text',
        integer(options['max-warnings'], 'max-warnings'), options.kind, options.path, now());
    }
    case 'diff': {
      const [current, next] = positionals;
      if (current === '-' && next === '-') throw new UsageError('only one of CURRENT and NEXT can be read from stdin');
      const [, cur] = readInput(current);
      const [, nxt] = readInput(next);
      return raw.cliDiff(current, cur, next, nxt, options.format ?? 'text', options.threshold, integer(options['max-entries'], 'max-entries'));
    }
    case 'schema': {
      // The schemas are files of the package (pkg/schemas, written at build time by the native
      // `poscheck schema KIND`): the same bytes, and no generator in the toolkit's module.
      const { kinds, list } = JSON.parse(readFileSync(new URL('../dist/schema-kinds.json', import.meta.url), 'utf8'));
      const [kind] = positionals;
      if (options.list && kind !== undefined) throw new UsageError("the argument '--list' cannot be used with '[KIND]'");
      if (kind === undefined) return { stdout: list, stderr: '', code: 0 };
      if (!kinds.includes(kind)) throw new UsageError(`unknown schema kind ${JSON.stringify(kind)}: expected one of ${kinds.join(', ')}`);
      return { stdout: readFileSync(new URL(`../schemas/${kind}.schema.json`, import.meta.url), 'utf8'), stderr: '', code: 0 };
    }
    case 'openapi':
      // A file of the package (pkg/schemas/openapi.json, written at build time by the native
      // `poscheck openapi`): the same bytes, and no generator in the toolkit's module.
      return { stdout: readFileSync(new URL('../schemas/openapi.json', import.meta.url), 'utf8'), stderr: '', code: 0 };
    default: {
      // The rules live in the sandbox's module, with the probe's checks (`receiver/…`, `client/…`).
      const sandboxModule = require('../dist/sandbox-web/poscheck.js');
      sandboxModule.initSync({ module: Buffer.from(require('../dist/sandbox-wasm.js').default, 'base64') });
      return sandboxModule.cliRules(json);
    }
  }
}

/** A JSON file given on the command line. */
function jsonFile(path, what) {
  const [, bytes] = readInput(path);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new UsageError(`${what} ${path} is not JSON: ${e.message}`);
  }
}

/** `poscheck sandbox`: a long-running local service (pkg/src/sandbox.js); stops on SIGINT or SIGTERM. */
async function sandbox(argv) {
  const { options, help: wantsHelp } = parse(COMMANDS.sandbox, argv);
  if (wantsHelp) {
    process.stdout.write(help[`sandbox ${wantsHelp}`]);
    return;
  }
  const port = integer(options.port, 'port') ?? 8787;
  if (port > 65535) throw new UsageError(`invalid value '${options.port}' for '--port'`);
  const { createSandbox } = await import('../dist/sandbox.mjs');
  const stamp = () => new Date().toISOString().slice(11, 23);
  const sb = await createSandbox({
    ...(options.options === undefined ? {} : jsonFile(options.options, 'the options file')),
    port,
    host: options.host,
    allowedHosts: options['allowed-hosts'],
    pos: options.pos,
    config: options.config === undefined ? undefined : jsonFile(options.config, 'the config file'),
    seed: integer(options.seed, 'seed'),
    state: options.state,
    clock: options.clock,
    log: (line) => process.stdout.write(`${stamp()} ${line}\n`),
  });
  const key = sb.clients.map((c, i) => `  client ${i + 1} API key  ${c.apiKey}\n    stores: ${c.stores.map((s) => `${s.remoteId} (storeId ${s.storeId}, brandId ${s.brandId}${s.autoAccept ? ', autoAccept' : ''})`).join(', ')}`).join('\n');
  process.stdout.write(
    `poscheck sandbox ${version}: a local copy of the Merchant Order and Menu Integration Service\n` +
      (sb.consoleUrl ? `  console        ${sb.consoleUrl}  (orders, timelines, deliveries and REST calls, live)\n` : '') +
      `  REST base      ${sb.url}/api/v1/\n${key}\n  HMAC secret    ${sb.secret}\n  POS (webhooks) ${sb.pos}\n` +
      `  clock          ${sb.clock}${sb.clock === 'manual' ? ' (POST /_sandbox/advance moves it)' : ''}\n` +
      `  controls       ${sb.url}/_sandbox/  e.g. curl -X POST ${sb.url}/_sandbox/orders -d '{"store":"${sb.stores[0].remoteId}"}'\n` +
      `  assumed where the contract shows nothing: ${JSON.stringify(sb.assumptions)}\n`,
  );
  if (options.menu !== undefined) {
    let counts;
    try {
      counts = sb.seedMenu(jsonFile(options.menu, 'the menu file'));
    } catch (e) {
      await sb.close();
      throw new UsageError(`--menu ${options.menu}: ${e.message}`);
    }
    process.stdout.write(`${stamp()} • menu seeded from ${options.menu}: ${JSON.stringify(counts)}\n`);
  }
  const stop = async () => {
    await sb.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `poscheck probe`: grades the POS at --pos; the report on stdout, progress on stderr. */
async function probe(argv) {
  const { options, help: wantsHelp } = parse(COMMANDS.probe, argv);
  if (wantsHelp) {
    process.stdout.write(help[`probe ${wantsHelp}`]);
    return;
  }
  if (options.pos === undefined) throw new UsageError("the following required arguments were not provided: --pos <POS>");
  const port = integer(options.port, 'port') ?? 8787;
  if (port > 65535) throw new UsageError(`invalid value '${options.port}' for '--port'`);
  let secret;
  if (options['secret-env'] !== undefined) {
    secret = process.env[options['secret-env']];
    if (!secret) throw new UsageError(`the environment variable ${options['secret-env']} is not set`);
  }
  const faults = {};
  for (const part of (options.faults ?? '').split(',').filter(Boolean)) {
    const m = /^(429|502|503)=(\d+(?:\.\d+)?)$/.exec(part.trim());
    if (!m || Number(m[2]) > 1) throw new UsageError(`invalid value '${options.faults}' for '--faults': expected e.g. 429=0.1,503=0.05 (rates from 0 to 1)`);
    faults[m[1]] = Number(m[2]);
  }
  const format = options.format ?? 'text';
  const { probe: run, formatProbeReport } = await import('../dist/sandbox.mjs');
  const err = (line) => process.stderr.write(`${line}\n`);
  let report;
  try {
    report = await run({
      pos: options.pos,
      stores: options.store,
      secret,
      apiKey: options['api-key'],
      port,
      seed: integer(options.seed, 'seed'),
      receiverOnly: Boolean(options['receiver-only']),
      only: options.only?.flatMap((o) => o.split(',')).map((o) => o.trim()).filter(Boolean),
      wait: integer(options.wait, 'wait'),
      budgetMs: integer(options['budget-ms'], 'budget-ms'),
      faults,
      onReady: (info) => {
        err(`poscheck probe ${version}: a sandbox for the POS at ${info.pos}`);
        err(`  REST base      ${info.url}/api/v1/`);
        err(`  API key        ${info.apiKey}`);
        err(`  HMAC secret    ${secret === undefined ? info.secret : `(from $${options['secret-env']})`}`);
        err(`  stores         ${info.stores.join(', ')}`);
      },
      onProgress: err,
    });
  } catch (e) {
    if (e?.code === 'INVALID_ARGUMENT') throw new UsageError(e.message);
    if (e?.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: give another with --port (0: a free one)`);
    throw e;
  }
  process.stdout.write(formatProbeReport(report, format));
  process.exitCode = report.ok ? 0 : 1;
}

const argv = process.argv.slice(2);
if (argv[0] === 'probe') {
  try {
    await probe(argv.slice(1));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`poscheck: ${e.message}\nRun \`poscheck probe --help\` for usage.\n`);
    process.exitCode = 2;
  }
} else if (argv[0] === 'sandbox') {
  try {
    await sandbox(argv.slice(1));
  } catch (e) {
    if (!(e instanceof UsageError) && !(e && typeof e.code === 'string')) throw e;
    process.stderr.write(`poscheck: ${e.message}\nRun \`poscheck sandbox --help\` for usage.\n`);
    process.exitCode = 2;
  }
} else {
  let out;
  try {
    out = run(argv);
  } catch (e) {
    if (!(e instanceof UsageError) && !(e && typeof e.code === 'string')) throw e;
    out = { stdout: '', stderr: `poscheck: ${e.message}\nRun \`poscheck --help\` for usage.\n`, code: 2 };
  }
  if (out.toStderr) process.stderr.write(out.stdout);
  else process.stdout.write(out.stdout);
  process.stderr.write(out.stderr);
  process.exitCode = out.code;
}
