//! `poscheck`: the command line face of the core.
//!
//! Exit codes: 0 valid / clean, 1 invalid / errors found (or warnings over `--max-warnings`),
//! 2 usage or read error.

use poscheck::diagnostic::{Report, Rule};
use poscheck::format::{self, Format};
use poscheck::http::{self, Headers};
use poscheck::signature;
use std::io::{Read, Write};
use std::process::ExitCode;

const USAGE: &str = "\
poscheck — checks what a POS exchanges with the Merchant Order and Menu Integration Service

USAGE:
    poscheck sign   (--secret-file F | --secret-env VAR) [--timestamp SECS] [--delivery-id ID]
                    [--event-type T] [--format text|json] [BODY_FILE|-]
    poscheck verify (--secret-file F | --secret-env VAR)... [--header 'Name: value']...
                    [--request] [--now SECS] [--tolerance SECS] [--format text|json] [FILE|-]
    poscheck lint     [--format text|json|sarif|github] [--max-warnings N] [FILE|-]
    poscheck validate [--kind K] [--path P] [--format text|json|sarif|github] [--max-warnings N] [FILE|-]
    poscheck order    [--format text|json|sarif|github] [--max-warnings N] [FILE|-]
    poscheck diff     [--format text|json|markdown] [--threshold FRACTION|PERCENT%] CURRENT NEXT
    poscheck rules  [--format text|json]
    poscheck help | --help | --version

sign      prints the X-Service-* headers for a body (from BODY_FILE, or stdin with - or no file).
verify    verifies a webhook. The body comes from FILE or stdin, exactly as received; headers from
          --header, or with --request FILE holds the whole raw HTTP request (headers, blank line,
          body). On failure it prints the error code and the diagnosis of the likely cause.
          Repeat --secret-file / --secret-env to try several secrets (rotation).
lint      lints a full menu submission (the body of PUT /api/v1/menu and POST /api/v1/menu/preview).
validate  checks a webhook payload or a resource the POS reads (the kind is detected from the shape,
          or given with --kind; --path is the request path it came with, e.g. /v1/order/S1/R1/events).
          A raw HTTP request to the service gets the predicted answer; a problem response, advice.
order     checks an order as read from GET /api/v1/Orders/{orderKey} (its data, or the whole
          {message, data} envelope): history against the state machine, timestamps, formats.
diff      what PUT /api/v1/menu would do: the full submission NEXT against the store menu CURRENT
          (as read from GET /api/v1/menu/stores/{storeRemoteId}): created, updated (old → new),
          deactivated, and the deactivated share of the active catalog. Exits 1 when the share is
          above --threshold (default 20%, an assumption: the service's threshold is not shown),
          when NEXT has lint errors, or when a side cannot be read as a menu.
rules     lists every rule id with its severity, its basis (stated, derived or assumed: what
          it rests on in the contract, with the source) and its documentation.

The secret is never taken from the command line: use a file (one trailing newline is dropped) or an
environment variable. Exit status: 0 valid or clean, 1 invalid or errors found, 2 usage error.
";

/// A usage or read error: exit 2 with this message.
struct UsageError(String);

impl<T: std::fmt::Display> From<T> for UsageError {
    fn from(e: T) -> Self {
        UsageError(e.to_string())
    }
}

type CliResult = Result<ExitCode, UsageError>;

/// Parsed flags and positional arguments of one subcommand.
#[derive(Default)]
struct Args {
    flags: Vec<(String, Option<String>)>,
    positional: Vec<String>,
}

impl Args {
    /// `takes_value` lists the flags followed by a value; every other `--flag` is a switch.
    fn parse(raw: &[String], takes_value: &[&str], switches: &[&str]) -> Result<Self, UsageError> {
        let mut args = Args::default();
        let mut it = raw.iter();
        while let Some(a) = it.next() {
            if a == "-" || !a.starts_with("--") {
                args.positional.push(a.clone());
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (a.as_str(), None),
            };
            let name = name.trim_start_matches("--");
            if takes_value.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it.next().ok_or_else(|| UsageError(format!("--{name} needs a value")))?.clone(),
                };
                args.flags.push((name.to_string(), Some(value)));
            } else if switches.contains(&name) && inline.is_none() {
                args.flags.push((name.to_string(), None));
            } else {
                return Err(UsageError(format!("unknown option --{name}")));
            }
        }
        Ok(args)
    }

    fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.flags.iter().filter(move |(n, _)| n == name).filter_map(|(_, v)| v.as_deref())
    }

    fn one<'a>(&'a self, name: &'a str) -> Result<Option<&'a str>, UsageError> {
        let mut values = self.all(name);
        let first = values.next();
        if values.next().is_some() {
            return Err(UsageError(format!("--{name} given more than once")));
        }
        Ok(first)
    }

    fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == name)
    }

    fn number(&self, name: &str) -> Result<Option<u64>, UsageError> {
        self.one(name)?
            .map(|v| v.parse::<u64>().map_err(|_| UsageError(format!("--{name} must be a whole number of seconds, got {v:?}"))))
            .transpose()
    }

    fn format(&self, allowed: &[Format]) -> Result<Format, UsageError> {
        let f: Format = self.one("format")?.unwrap_or("text").parse().map_err(UsageError)?;
        if !allowed.contains(&f) {
            return Err(UsageError(format!("--format {} is not available for this command", self.one("format")?.unwrap_or(""))));
        }
        Ok(f)
    }

    /// The single positional input, `-` (or none) meaning stdin.
    fn input(&self) -> Result<(String, Vec<u8>), UsageError> {
        match self.positional.as_slice() {
            [] => Ok(("<stdin>".into(), read_stdin()?)),
            [p] if p == "-" => Ok(("<stdin>".into(), read_stdin()?)),
            [p] => Ok((p.clone(), std::fs::read(p).map_err(|e| UsageError(format!("cannot read {p}: {e}")))?)),
            _ => Err(UsageError("expected one input file (or - for stdin)".into())),
        }
    }
}

fn read_stdin() -> Result<Vec<u8>, UsageError> {
    let mut buf = Vec::new();
    std::io::stdin().read_to_end(&mut buf).map_err(|e| UsageError(format!("cannot read stdin: {e}")))?;
    Ok(buf)
}

/// Secrets from `--secret-file` and `--secret-env`, never from argv itself.
fn secrets(args: &Args) -> Result<Vec<Vec<u8>>, UsageError> {
    let mut out = Vec::new();
    for path in args.all("secret-file") {
        let mut s = std::fs::read(path).map_err(|e| UsageError(format!("cannot read the secret file {path}: {e}")))?;
        if s.ends_with(b"\n") {
            s.pop();
            if s.ends_with(b"\r") {
                s.pop();
            }
        }
        out.push(s);
    }
    for var in args.all("secret-env") {
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

fn print(out: &str) {
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = stdout.write_all(out.as_bytes());
}

fn cmd_sign(raw: &[String]) -> CliResult {
    let args = Args::parse(raw, &["secret-file", "secret-env", "timestamp", "delivery-id", "event-type", "format"], &[])?;
    let format = args.format(&[Format::Text, Format::Json])?;
    let secrets = secrets(&args)?;
    if secrets.len() != 1 {
        return Err(UsageError("sign takes exactly one secret".into()));
    }
    let timestamp = args.number("timestamp")?.unwrap_or_else(now_seconds);
    let (_, body) = args.input()?;
    let sig = signature::sign(&secrets[0], timestamp, &body).map_err(|e| UsageError(format!("{}: {e}", e.code())))?;
    let mut headers = vec![(signature::HEADER_TIMESTAMP, timestamp.to_string()), (signature::HEADER_SIGNATURE, sig)];
    for (option, name) in [("delivery-id", signature::HEADER_DELIVERY_ID), ("event-type", signature::HEADER_EVENT_TYPE)] {
        if let Some(value) = args.one(option)? {
            if value.chars().any(char::is_control) {
                return Err(UsageError(format!(
                    "--{option} must not contain control characters: a header value cannot hold CR, LF or other controls"
                )));
            }
            headers.push((name, value.to_string()));
        }
    }
    let out = match format {
        Format::Json => {
            let map: serde_json::Map<String, serde_json::Value> = headers.iter().map(|(k, v)| (k.to_string(), v.clone().into())).collect();
            serde_json::to_string_pretty(&map)? + "\n"
        }
        _ => headers.iter().map(|(k, v)| format!("{k}: {v}\n")).collect(),
    };
    print(&out);
    Ok(ExitCode::SUCCESS)
}

fn cmd_verify(raw: &[String]) -> CliResult {
    let args = Args::parse(raw, &["secret-file", "secret-env", "header", "now", "tolerance", "format"], &["request"])?;
    let format = args.format(&[Format::Text, Format::Json])?;
    let secrets = secrets(&args)?;
    let (_, input) = args.input()?;
    let (mut headers, body) = if args.has("request") {
        let m = http::parse_message(&input).map_err(|e| UsageError(format!("{}: {e}", e.code())))?;
        (m.headers, m.body)
    } else {
        (Headers::new(), input)
    };
    for h in args.all("header") {
        let (name, value) = h.split_once(':').ok_or_else(|| UsageError(format!("--header expects 'Name: value', got {h:?}")))?;
        headers.push(name.trim(), value.trim_matches([' ', '\t']));
    }
    let now = args.number("now")?.unwrap_or_else(now_seconds);
    let tolerance = args.number("tolerance")?.unwrap_or(signature::DEFAULT_TOLERANCE_SECONDS);
    let d = signature::diagnose(&body, &headers, &secrets, now, tolerance);
    let out = match format {
        Format::Json => serde_json::to_string_pretty(&d)? + "\n",
        _ => {
            let mut s = match (&d.verified, d.code) {
                (Some(v), _) => format!(
                    "valid: timestamp {} ({}), delivery id {}, event type {}, secret #{}\n",
                    v.timestamp,
                    poscheck::time::format_unix_seconds(v.timestamp.min(i64::MAX as u64) as i64),
                    format::escape_control(v.delivery_id.as_deref().unwrap_or("(none)")),
                    format::escape_control(v.event_type.as_deref().unwrap_or("(none)")),
                    v.secret_index
                ),
                (None, code) => {
                    format!("invalid: {} {}\n", code.unwrap_or("?"), format::escape_control(d.message.as_deref().unwrap_or("")))
                }
            };
            for f in d.findings.iter().filter(|f| f.code != "VALID") {
                s.push_str(&format!("  {}: {}\n", f.code, format::escape_control(&f.message)));
            }
            s
        }
    };
    print(&out);
    Ok(if d.valid { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Runs a checker that returns a report: `lint`, `validate`, `order`.
fn report_command(
    raw: &[String],
    extra_value_flags: &[&str],
    rules: &[&Rule],
    check: impl FnOnce(&Args, &[u8]) -> Result<Report, UsageError>,
) -> CliResult {
    let mut value_flags = vec!["format", "max-warnings"];
    value_flags.extend_from_slice(extra_value_flags);
    let args = Args::parse(raw, &value_flags, &[])?;
    let format = args.format(&[Format::Text, Format::Json, Format::Sarif, Format::Github])?;
    let max_warnings = args
        .one("max-warnings")?
        .map(|v| v.parse::<usize>().map_err(|_| UsageError(format!("--max-warnings must be a whole number, got {v:?}"))))
        .transpose()?;
    let (name, input) = args.input()?;
    let report = check(&args, &input)?;
    print(&format::render(format, &report, &name, rules));
    let too_many_warnings = max_warnings.is_some_and(|m| report.warning_count > m);
    Ok(if report.ok && !too_many_warnings { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `validate`: a payload gives its report; a raw request, the predicted answer and its report; a
/// problem response, the advice on stderr and the report on its body.
fn cmd_validate(raw: &[String]) -> CliResult {
    use poscheck::payload::{self, Inspection, PayloadKind, PayloadOptions};
    let mut rules: Vec<&Rule> = payload::RULES.to_vec();
    rules.extend(poscheck::menu::RULES.iter().copied());
    report_command(raw, &["kind", "path"], &rules, |args, input| {
        let kind = args
            .one("kind")?
            .map(|k| {
                PayloadKind::from_id(k).ok_or_else(|| {
                    let known: Vec<&str> = PayloadKind::ALL.iter().map(|k| k.id()).collect();
                    UsageError(format!("unknown --kind {k:?}: expected one of {}", known.join(", ")))
                })
            })
            .transpose()?;
        let options = PayloadOptions { kind, path: args.one("path")?.map(String::from), ..Default::default() };
        Ok(match payload::inspect(input, &options, now_seconds() as i64) {
            Inspection::Payload { report } | Inspection::Response { report, .. } => report,
            Inspection::Request { method, path, prediction } => {
                eprintln!(
                    "{} {}: the service would answer {} ({}: {})",
                    format::escape_control(&method),
                    format::escape_control(&path),
                    prediction.status,
                    prediction.basis.status.basis.as_str(),
                    format::escape_control(&prediction.basis.status.source)
                );
                if let Some(p) = &prediction.problem {
                    eprintln!("{}", serde_json::to_string_pretty(p).unwrap_or_default());
                }
                prediction.report
            }
            Inspection::Problem { status, classification } => {
                eprintln!("{status} {}: {}", classification.kind, format::escape_control(&classification.advice));
                classification.report
            }
        })
    })
}

/// Every rule the checkers can report.
fn all_rules() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = poscheck::diagnostic::json_rules::ALL.to_vec();
    rules.extend(poscheck::menu::RULES.iter().copied());
    rules.extend(poscheck::payload::RULES.iter().copied());
    rules.extend(poscheck::order::RULES.iter().copied());
    rules.extend(poscheck::menu::diff::RULES.iter().copied());
    let mut seen = std::collections::HashSet::new();
    rules.retain(|r| seen.insert(r.id));
    rules
}

fn cmd_rules(raw: &[String]) -> CliResult {
    let args = Args::parse(raw, &["format"], &[])?;
    let format = args.format(&[Format::Text, Format::Json])?;
    let rules = poscheck::basis::rule_infos(&all_rules());
    let out = match format {
        Format::Json => serde_json::to_string_pretty(&rules)? + "\n",
        _ => rules
            .iter()
            .map(|r| format!("{:<40} {:<8} {:<8} {}  [{}]\n", r.id, r.severity.as_str(), r.basis.as_str(), r.doc, r.source))
            .collect(),
    };
    print(&out);
    Ok(ExitCode::SUCCESS)
}

/// `diff CURRENT NEXT`: the menu diff (text, JSON or Markdown); exit 1 above the threshold.
fn cmd_diff(raw: &[String]) -> CliResult {
    use poscheck::menu::diff::{self, render, DiffOptions};
    let args = Args::parse(raw, &["format", "threshold", "max-entries"], &[])?;
    let format = args.one("format")?.unwrap_or("text");
    if !matches!(format, "text" | "json" | "markdown") {
        return Err(UsageError(format!("unknown format {format:?} for diff: expected text, json or markdown")));
    }
    let mut options = DiffOptions::default();
    if let Some(t) = args.one("threshold")? {
        options.threshold = diff::parse_threshold(t)?;
    }
    if let Some(m) = args.one("max-entries")? {
        options.max_entries = m.parse().map_err(|_| UsageError(format!("--max-entries must be a whole number, got {m:?}")))?;
    }
    let [current, next] = args.positional.as_slice() else {
        return Err(UsageError("diff expects two files: CURRENT (the store menu read) and NEXT (the full submission)".into()));
    };
    let read = |p: &str| -> Result<Vec<u8>, UsageError> {
        if p == "-" {
            read_stdin()
        } else {
            std::fs::read(p).map_err(|e| UsageError(format!("cannot read {p}: {e}")))
        }
    };
    let (cur, nxt) = (read(current)?, read(next)?);
    let d = diff::diff(&cur, &nxt, &options);
    let out = match format {
        "json" => serde_json::to_string_pretty(&d)? + "\n",
        "markdown" => render::markdown(&d, current, next),
        _ => render::text(&d, current, next),
    };
    print(&out);
    let failed = !d.compared || d.summary.above_threshold || d.summary.would_be_refused;
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn run(argv: &[String]) -> CliResult {
    let Some((cmd, rest)) = argv.split_first() else {
        eprint!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    match cmd.as_str() {
        "sign" => cmd_sign(rest),
        "verify" => cmd_verify(rest),
        "rules" => cmd_rules(rest),
        "lint" => report_command(rest, &[], poscheck::menu::RULES, |_, input| {
            Ok(poscheck::menu::lint(input, &poscheck::menu::LintOptions::default()))
        }),
        "validate" => cmd_validate(rest),
        "diff" => cmd_diff(rest),
        "order" => report_command(rest, &[], poscheck::order::RULES, |_, input| {
            Ok(poscheck::order::check_order(input, &poscheck::order::CheckOptions::default()))
        }),
        "help" | "--help" | "-h" => {
            print(USAGE);
            Ok(ExitCode::SUCCESS)
        }
        "--version" | "-V" => {
            print(&format!("poscheck {}\n", env!("CARGO_PKG_VERSION")));
            Ok(ExitCode::SUCCESS)
        }
        other => Err(UsageError(format!("unknown command \"{other}\""))),
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok(code) => code,
        Err(UsageError(msg)) => {
            eprintln!("poscheck: {msg}\nRun `poscheck --help` for usage.");
            ExitCode::from(2)
        }
    }
}
