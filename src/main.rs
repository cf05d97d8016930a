//! `poscheck`: the command line face of the core.
//!
//! Exit codes: 0 valid / clean, 1 invalid / errors found (or warnings over `--max-warnings`),
//! 2 usage or read error.

use clap::{Args, Parser, Subcommand, ValueEnum};
use poscheck::cli;
use poscheck::format::Format;
use poscheck::signature;
use std::io::{Read, Write};
use std::process::ExitCode;

/// The sandbox's hot paths allocate on every request: mimalloc rather than glibc's malloc (which took
/// about a quarter of the fresh-key accept's CPU in `perf`).
#[cfg(all(feature = "server", not(target_arch = "wasm32")))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Checks what a POS exchanges with the Merchant Order and Menu Integration Service.
#[derive(Parser, Debug)]
#[command(
    name = "poscheck",
    version,
    about = "Checks what a POS exchanges with the Merchant Order and Menu Integration Service",
    after_help = "The secret is never taken from the command line: use a file (one trailing newline is dropped) or an \
environment variable.\nExit status: 0 valid or clean, 1 invalid or errors found, 2 usage or read error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Prints the X-Service-* headers for a body (from BODY_FILE, or stdin with - or no file).
    Sign(SignArgs),
    /// Verifies a webhook; on failure prints the error code and the diagnosis of the likely cause.
    ///
    /// The body comes from FILE or stdin, exactly as received; headers from --header, or with
    /// --request FILE holds the whole raw HTTP request (headers, blank line, body). Repeat
    /// --secret-file / --secret-env to try several secrets (rotation).
    Verify(VerifyArgs),
    /// Lints full menu submissions (the body of PUT /api/v1/menu and POST /api/v1/menu/preview).
    Lint(ReportArgs),
    /// Checks webhook payloads and resources the POS reads; a raw request gets the predicted answer.
    ///
    /// The kind is detected from the shape, or given with --kind; --path is the request path it came
    /// with, e.g. /v1/order/S1/R1/events. A raw HTTP request to the service gets the predicted
    /// answer (in the JSON output, and on stderr for the other formats); a problem response, advice.
    Validate(ValidateArgs),
    /// Checks orders as read from GET /api/v1/Orders/{orderKey} (data, or the whole envelope).
    Order(ReportArgs),
    /// What PUT /api/v1/menu would do: the full submission NEXT against the store menu CURRENT.
    ///
    /// CURRENT is the store menu as read from GET /api/v1/menu/stores/{storeRemoteId}: created,
    /// updated (old → new), deactivated, and the deactivated share of the active catalog. Exits 1
    /// when the share is above --threshold (default 20%, an assumption: the service's threshold is
    /// not shown), when NEXT has lint errors, or when a side cannot be read as a menu.
    Diff(DiffArgs),
    /// Lists every rule id with its severity, its basis (stated, derived or assumed) and its doc.
    Rules(RulesArgs),
    /// Prints the JSON Schema (2020-12) of a payload or request body, for editors and code generators.
    ///
    /// KIND is a payload kind (fullMenu, orderCreated, orderUpdateEvent, menuChangeCompleted, …)
    /// or a REST request body (accept, reject, statusUpdate, productPatch, …); --list (or no KIND)
    /// lists them. The npm package ships the same files as schemas/<KIND>.schema.json. A schema
    /// holds only what JSON Schema can express; `poscheck lint` and `poscheck validate` check the
    /// rest (uniqueness, comparisons between fields, the request path).
    Schema(SchemaArgs),
    /// Prints the OpenAPI 3.1 description of the service, for client generators and mocks.
    ///
    /// Generated from the same tables as the checkers and the JSON Schemas: every REST endpoint
    /// (paths with the /api/v1/ prefix, parameters, headers, bodies, the { message, data } answers
    /// and the problem documents of each error status) and the three webhooks the service sends.
    /// servers[0].url is the sandbox's default base, http://127.0.0.1:8787 (a running sandbox
    /// serves the same document with its own URL at /_sandbox/openapi.json). The npm package ships
    /// the same bytes as schemas/openapi.json.
    Openapi,
    /// Runs a local sandbox of the service for a POS to test against.
    ///
    /// A stateful, contract-true service on 127.0.0.1: the order and menu endpoints under /api/v1/,
    /// signed webhooks to the POS with retries, and controls for the other actors under /_sandbox/ (see
    /// the README), the console at /. It prints the API key, the HMAC secret and the stores at
    /// start, then a line for each REST call and each delivery; SIGINT or SIGTERM stops it (and
    /// writes --state). The npm package's `npx poscheck sandbox` is the same service.
    Sandbox(SandboxArgs),
    /// Grades a running POS against the contract, in both directions.
    ///
    /// Runs a sandbox whose webhooks go to the POS at --pos, plays scripted scenarios and grades
    /// every answer of the POS's receiver (signatures, duplicates, every update event, latency) and
    /// every REST call the POS makes to the sandbox meanwhile (idempotency keys, headers, paths,
    /// the 409/422/429/503 answers). The POS must verify with the sandbox's secret and call its
    /// base URL with its API key: give them (--secret-env, --api-key, --port) or take the ones it
    /// prints on stderr first. Exits 0 when no check failed, 1 when one did, 2 on usage errors.
    /// `poscheck rules` lists the checks. The npm package's `npx poscheck probe` is the same.
    Probe(ProbeArgs),
}

#[derive(Args, Debug)]
struct ProbeArgs {
    /// The POS's base URL: webhooks go to {URL}/v1/order/{remoteId}, … and nowhere else.
    #[arg(long)]
    pos: String,
    /// A store remoteId the POS serves (default STORE-1); repeat for several. The scenarios use the first.
    #[arg(long = "store", value_name = "REMOTE_ID")]
    store: Vec<String>,
    /// An environment variable holding the HMAC secret the POS verifies with (default: a new one, printed).
    #[arg(long = "secret-env", value_name = "NAME")]
    secret_env: Option<String>,
    /// The API key the POS calls the sandbox with (default: a new one, printed).
    #[arg(long = "api-key")]
    api_key: Option<String>,
    /// The port of the sandbox the POS calls (default 8787; 0: a free one).
    #[arg(long)]
    port: Option<u16>,
    /// text (default), json, junit or markdown; stdout then carries the report and nothing else.
    #[arg(short, long)]
    format: Option<String>,
    /// Run only these checks (ids, or receiver / client), comma-separated.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Run the receiver checks only (nothing needed from the POS but its webhook receiver).
    #[arg(long)]
    receiver_only: bool,
    /// How long the client checks wait for the POS's REST calls, seconds (default 20).
    #[arg(long)]
    wait: Option<u32>,
    /// Faults injected into the POS's REST calls, e.g. 429=0.1,503=0.05 (503 and 502 on menu calls only, as the contract says).
    #[arg(long)]
    faults: Option<String>,
    /// The answer budget of receiver/answer-latency, ms (default 30000, the contract's).
    #[arg(long = "budget-ms")]
    budget_ms: Option<u32>,
    /// Reproducible ids (by default every run uses fresh delivery ids and orderKeys).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args, Debug)]
struct SandboxArgs {
    /// The port to listen on (default 8787; 0: a free one).
    #[arg(long)]
    port: Option<u16>,
    /// The address to listen on (default 127.0.0.1). Beyond the loopback, the controls are reachable by the network, unauthenticated (a warning says so).
    #[arg(long)]
    host: Option<String>,
    /// Host names, beside 127.0.0.1, localhost, [::1] and --host, under which the controls under /_sandbox/ and the console answer (comma-separated), e.g. a name in /etc/hosts or a tunnel's.
    #[arg(long = "allowed-hosts", value_name = "NAMES")]
    allowed_hosts: Option<String>,
    /// The POS base URL webhooks are sent to (default http://127.0.0.1:3000).
    #[arg(long)]
    pos: Option<String>,
    /// An onboarding config file: { secret, pos, clients: [{ apiKey, stores: [{ remoteId, storeId?, brandId?, autoAccept? }] }] }.
    #[arg(long)]
    config: Option<String>,
    /// Ids (and a generated secret and key) are reproducible from this seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Keep the state in FILE across restarts.
    #[arg(long)]
    state: Option<String>,
    /// real (default) or manual: moved only by POST /_sandbox/advance.
    #[arg(long)]
    clock: Option<String>,
    /// Assumed values where the contract shows nothing, as a JSON file (acceptanceWindowSeconds, retryScheduleSeconds, …).
    #[arg(long)]
    options: Option<String>,
    /// Seed the first brand's catalog with a full menu submission (a JSON file), as a confirmed PUT /api/v1/menu would.
    #[arg(long)]
    menu: Option<String>,
}

/// Where secrets come from: files and environment variables, never the command line itself.
#[derive(Args, Debug)]
struct Secrets {
    /// A file holding the secret (one trailing newline is dropped); repeat for a rotation.
    #[arg(long = "secret-file", value_name = "FILE")]
    secret_file: Vec<String>,
    /// An environment variable holding the secret; repeat for a rotation.
    #[arg(long = "secret-env", value_name = "VAR")]
    secret_env: Vec<String>,
}

#[derive(Args, Debug)]
struct SignArgs {
    #[command(flatten)]
    secrets: Secrets,
    /// Unix seconds (default: now).
    #[arg(short, long)]
    timestamp: Option<u64>,
    /// X-Service-Delivery-Id to print with the headers.
    #[arg(long = "delivery-id", value_name = "ID")]
    delivery_id: Option<String>,
    /// X-Service-Event-Type to print with the headers.
    #[arg(long = "event-type", value_name = "TYPE")]
    event_type: Option<String>,
    #[arg(short, long, value_enum, default_value_t = PlainFormat::Text)]
    format: PlainFormat,
    /// The body (- or none: stdin).
    #[arg(value_name = "BODY_FILE")]
    file: Option<String>,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    #[command(flatten)]
    secrets: Secrets,
    /// A header, 'Name: value'; repeat.
    #[arg(short = 'H', long, value_name = "HEADER")]
    header: Vec<String>,
    /// FILE is a whole raw HTTP request (headers, blank line, body).
    #[arg(short, long)]
    request: bool,
    /// Unix seconds (default: now).
    #[arg(long)]
    now: Option<u64>,
    /// Allowed |now − timestamp| in seconds.
    #[arg(long, default_value_t = signature::DEFAULT_TOLERANCE_SECONDS)]
    tolerance: u64,
    #[arg(short, long, value_enum, default_value_t = PlainFormat::Text)]
    format: PlainFormat,
    /// The body or the raw request (- or none: stdin).
    file: Option<String>,
}

#[derive(Args, Debug)]
struct ReportArgs {
    #[arg(short, long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Exit 1 when there are more warnings than this.
    #[arg(long, value_name = "N")]
    max_warnings: Option<usize>,
    /// Files or glob patterns ('menus/*.json'); - or none: stdin.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// The payload kind (default: detected from --path, then from the shape).
    #[arg(short, long)]
    kind: Option<String>,
    /// The request path the payload came with, e.g. /v1/order/STORE-1/R-1001/events.
    #[arg(short, long)]
    path: Option<String>,
    #[command(flatten)]
    report: ReportArgs,
}

#[derive(Args, Debug)]
struct DiffArgs {
    #[arg(short, long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Warn and exit 1 above this deactivated share: a fraction (0.2) or a percentage (20%).
    #[arg(short, long)]
    threshold: Option<String>,
    /// Entries listed at most (the counts stay complete).
    #[arg(long, value_name = "N")]
    max_entries: Option<usize>,
    /// The store menu as read (GET /api/v1/menu/stores/{storeRemoteId}); - for stdin.
    current: String,
    /// The full menu submission (the body of PUT /api/v1/menu); - for stdin.
    next: String,
}

#[derive(Args, Debug)]
struct SchemaArgs {
    /// List the kinds, one a line with what each is (the default without KIND).
    #[arg(long, conflicts_with = "kind")]
    list: bool,
    /// The kind whose schema to print.
    kind: Option<String>,
}

#[derive(Args, Debug)]
struct RulesArgs {
    #[arg(short, long, value_enum, default_value_t = PlainFormat::Text)]
    format: PlainFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum PlainFormat {
    Text,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ReportFormat {
    Text,
    Json,
    Sarif,
    Github,
}

impl From<ReportFormat> for Format {
    fn from(f: ReportFormat) -> Self {
        match f {
            ReportFormat::Text => Format::Text,
            ReportFormat::Json => Format::Json,
            ReportFormat::Sarif => Format::Sarif,
            ReportFormat::Github => Format::Github,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum DiffFormat {
    Text,
    Json,
    Markdown,
}

/// A usage or read error: exit 2 with this message.
struct UsageError(String);

impl<T: std::fmt::Display> From<T> for UsageError {
    fn from(e: T) -> Self {
        UsageError(e.to_string())
    }
}

type CliResult = Result<ExitCode, UsageError>;

/// One input: `-` or nothing is stdin.
fn read_input(file: Option<&str>) -> Result<(String, Vec<u8>), UsageError> {
    match file {
        None | Some("-") => Ok(("<stdin>".into(), read_stdin()?)),
        Some(p) => Ok((p.to_string(), std::fs::read(p).map_err(|e| UsageError(format!("cannot read {p}: {e}")))?)),
    }
}

/// The inputs of a report command: each argument a file, `-` (stdin), or a glob pattern (expanded
/// here, in sorted order, so that quoted patterns work on every shell); none means stdin.
fn read_inputs(files: &[String]) -> Result<Vec<(String, Vec<u8>)>, UsageError> {
    if files.is_empty() {
        return Ok(vec![read_input(None)?]);
    }
    let mut out = Vec::new();
    for arg in files {
        let is_pattern = arg.contains(['*', '?', '[']) && !std::path::Path::new(arg).exists();
        if !is_pattern {
            out.push(read_input(Some(arg))?);
            continue;
        }
        let paths = glob::glob(arg).map_err(|e| UsageError(format!("invalid pattern {arg:?}: {e}")))?;
        let mut matched: Vec<std::path::PathBuf> = paths.filter_map(Result::ok).filter(|p| p.is_file()).collect();
        if matched.is_empty() {
            return Err(UsageError(format!("no file matches {arg:?}")));
        }
        matched.sort();
        for p in matched {
            out.push(read_input(Some(&p.to_string_lossy()))?);
        }
    }
    Ok(out)
}

fn read_stdin() -> Result<Vec<u8>, UsageError> {
    let mut buf = Vec::new();
    std::io::stdin().read_to_end(&mut buf).map_err(|e| UsageError(format!("cannot read stdin: {e}")))?;
    Ok(buf)
}

/// Secrets from `--secret-file` and `--secret-env`, never from argv itself.
fn secrets(args: &Secrets) -> Result<Vec<Vec<u8>>, UsageError> {
    let mut out = Vec::new();
    for path in &args.secret_file {
        let mut s = std::fs::read(path).map_err(|e| UsageError(format!("cannot read the secret file {path}: {e}")))?;
        if s.ends_with(b"\n") {
            s.pop();
            if s.ends_with(b"\r") {
                s.pop();
            }
        }
        out.push(s);
    }
    for var in &args.secret_env {
        let v = std::env::var_os(var).ok_or_else(|| UsageError(format!("the environment variable {var} is not set")))?;
        out.push(v.into_string().map_err(|_| UsageError(format!("{var} is not valid UTF-8")))?.into_bytes());
    }
    if out.is_empty() {
        return Err(UsageError("give the secret with --secret-file FILE or --secret-env VAR".into()));
    }
    Ok(out)
}

fn now_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Writes what a command printed; a closed pipe (`| head`) is not an error worth a panic.
fn emit(out: &cli::Output) -> ExitCode {
    let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    ExitCode::from(out.code)
}

fn cmd_sign(args: SignArgs) -> CliResult {
    let secrets = secrets(&args.secrets)?;
    if secrets.len() != 1 {
        return Err(UsageError("sign takes exactly one secret".into()));
    }
    let timestamp = args.timestamp.unwrap_or_else(now_seconds);
    let (_, body) = read_input(args.file.as_deref())?;
    let json = args.format == PlainFormat::Json;
    let out =
        cli::sign(&secrets[0], timestamp, &body, args.delivery_id.as_deref(), args.event_type.as_deref(), json).map_err(UsageError)?;
    Ok(emit(&out))
}

fn cmd_verify(args: VerifyArgs) -> CliResult {
    let secrets = secrets(&args.secrets)?;
    let (_, input) = read_input(args.file.as_deref())?;
    let now = args.now.unwrap_or_else(now_seconds);
    let json = args.format == PlainFormat::Json;
    Ok(emit(&cli::verify_command(&input, args.request, &args.header, &secrets, now, args.tolerance, json)))
}

fn report_command(args: &ReportArgs, check: &cli::Check) -> CliResult {
    let inputs = read_inputs(&args.files)?;
    Ok(emit(&cli::report_command(check, &inputs, Format::from(args.format), args.max_warnings)))
}

fn cmd_validate(args: ValidateArgs) -> CliResult {
    use poscheck::payload::PayloadKind;
    let kind = args
        .kind
        .as_deref()
        .map(|k| {
            PayloadKind::from_id(k).ok_or_else(|| {
                let known: Vec<&str> = PayloadKind::ALL.iter().map(|k| k.id()).collect();
                UsageError(format!("unknown --kind {k:?}: expected one of {}", known.join(", ")))
            })
        })
        .transpose()?;
    report_command(&args.report, &cli::Check::Validate { kind, path: args.path.clone(), now: now_seconds() as i64 })
}

fn cmd_diff(args: DiffArgs) -> CliResult {
    let mut options = poscheck::menu::diff::DiffOptions::default();
    if let Some(t) = &args.threshold {
        options.threshold = poscheck::menu::diff::parse_threshold(t)?;
    }
    if let Some(m) = args.max_entries {
        options.max_entries = m;
    }
    if args.current == "-" && args.next == "-" {
        return Err(UsageError("only one of CURRENT and NEXT can be read from stdin".into()));
    }
    let (_, cur) = read_input(Some(&args.current))?;
    let (_, nxt) = read_input(Some(&args.next))?;
    let format = match args.format {
        DiffFormat::Text => cli::DiffFormat::Text,
        DiffFormat::Json => cli::DiffFormat::Json,
        DiffFormat::Markdown => cli::DiffFormat::Markdown,
    };
    Ok(emit(&cli::diff((&args.current, &cur), (&args.next, &nxt), &options, format)))
}

fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Sign(a) => cmd_sign(a),
        Command::Verify(a) => cmd_verify(a),
        Command::Lint(a) => report_command(&a, &cli::Check::Lint),
        Command::Validate(a) => cmd_validate(a),
        Command::Order(a) => report_command(&a, &cli::Check::Order),
        Command::Diff(a) => cmd_diff(a),
        Command::Rules(a) => Ok(emit(&cli::rules(a.format == PlainFormat::Json))),
        Command::Schema(a) => Ok(emit(&cli::schema(a.kind.as_deref()))),
        Command::Openapi => Ok(emit(&cli::openapi())),
        Command::Sandbox(a) => cmd_sandbox(a),
        Command::Probe(a) => cmd_probe(a),
    }
}

/// A native face's exit: its code, or a usage error with the command's `--help` hint (exit 2).
#[cfg(all(feature = "server", not(target_arch = "wasm32")))]
fn native(result: Result<u8, poscheck::native::cli::Usage>, command: &str) -> CliResult {
    match result {
        Ok(code) => Ok(ExitCode::from(code)),
        Err(poscheck::native::cli::Usage(message)) => {
            let _ = writeln!(std::io::stderr().lock(), "poscheck: {message}\nRun `poscheck {command} --help` for usage.");
            Ok(ExitCode::from(2))
        }
    }
}

#[cfg(all(feature = "server", not(target_arch = "wasm32")))]
fn cmd_sandbox(a: SandboxArgs) -> CliResult {
    use poscheck::native::cli::{sandbox, SandboxCommand};
    let cmd = SandboxCommand {
        port: a.port,
        host: a.host,
        allowed_hosts: a.allowed_hosts,
        pos: a.pos,
        config: a.config,
        seed: a.seed,
        state: a.state,
        clock: a.clock,
        options: a.options,
        menu: a.menu,
    };
    native(sandbox(cmd), "sandbox")
}

#[cfg(all(feature = "server", not(target_arch = "wasm32")))]
fn cmd_probe(a: ProbeArgs) -> CliResult {
    use poscheck::native::cli::{probe, ProbeCommand};
    let cmd = ProbeCommand {
        pos: a.pos,
        stores: a.store,
        secret_env: a.secret_env,
        api_key: a.api_key,
        port: a.port,
        format: a.format,
        only: a.only,
        receiver_only: a.receiver_only,
        wait: a.wait,
        faults: a.faults,
        budget_ms: a.budget_ms,
        seed: a.seed,
    };
    native(probe(cmd), "probe")
}

/// Without the `server` feature (or in a wasm build) there is no HTTP server: the npm package's is.
#[cfg(not(all(feature = "server", not(target_arch = "wasm32"))))]
fn cmd_sandbox(_: SandboxArgs) -> CliResult {
    Err(UsageError("this build has no HTTP server (the `server` feature): build with it, or run `npx poscheck sandbox`".into()))
}

#[cfg(not(all(feature = "server", not(target_arch = "wasm32"))))]
fn cmd_probe(_: ProbeArgs) -> CliResult {
    Err(UsageError("this build has no HTTP server (the `server` feature): build with it, or run `npx poscheck probe`".into()))
}

fn main() -> ExitCode {
    let parsed = match Cli::try_parse() {
        Ok(parsed) => parsed,
        Err(e) if e.use_stderr() && matches!(std::env::args().nth(1).as_deref(), Some("sandbox" | "probe")) => {
            // As the npm command says it: `poscheck: …` and where the usage is.
            let command = std::env::args().nth(1).unwrap_or_default();
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ");
            let detail: Vec<&str> = text.lines().skip(1).take_while(|l| !l.is_empty()).map(str::trim).collect();
            let mut message = if detail.is_empty() { first.to_string() } else { format!("{first} {}", detail.join(" ")) };
            // `'--port <PORT>'` as the npm command names a flag: `'--port'`.
            while let Some(i) = message.find(" <") {
                match message[i..].find(">'") {
                    Some(j) => message.replace_range(i..i + j + 1, ""),
                    None => break,
                }
            }
            let _ = writeln!(std::io::stderr().lock(), "poscheck: {message}\nRun `poscheck {command} --help` for usage.");
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version print to stdout and exit 0; a usage error exits 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(parsed) {
        Ok(code) => code,
        Err(UsageError(msg)) => emit(&cli::Output::usage_error(&msg)),
    }
}
