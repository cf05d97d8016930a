//! `poscheck sandbox` and `poscheck probe` of the native binary: the npm command's flags, banner,
//! log lines, streams and exit codes (`pkg/bin/poscheck.js`), over [`super::Sandbox`] and
//! [`super::probe`].

use super::probe::{self, Hooks};
use super::sandbox::{Log, Sandbox, SandboxOptions};
use super::FaceError;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::sync::Arc;

/// `poscheck sandbox`'s flags, as given.
#[derive(Debug, Default)]
pub struct SandboxCommand {
    /// `--port` (default 8787; 0: a free one).
    pub port: Option<u16>,
    /// `--host`.
    pub host: Option<String>,
    /// `--allowed-hosts`.
    pub allowed_hosts: Option<String>,
    /// `--pos`.
    pub pos: Option<String>,
    /// `--config FILE`.
    pub config: Option<String>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--state FILE`.
    pub state: Option<String>,
    /// `--clock real|manual`.
    pub clock: Option<String>,
    /// `--options FILE`.
    pub options: Option<String>,
    /// `--menu FILE`.
    pub menu: Option<String>,
}

/// `poscheck probe`'s flags, as given.
#[derive(Debug, Default)]
pub struct ProbeCommand {
    /// `--pos`.
    pub pos: String,
    /// `--store`, repeated.
    pub stores: Vec<String>,
    /// `--secret-env NAME`.
    pub secret_env: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--port`.
    pub port: Option<u16>,
    /// `--format`.
    pub format: Option<String>,
    /// `--only`, split at commas.
    pub only: Vec<String>,
    /// `--receiver-only`.
    pub receiver_only: bool,
    /// `--wait` seconds.
    pub wait: Option<u32>,
    /// `--faults`, e.g. `429=0.1,503=0.05`.
    pub faults: Option<String>,
    /// `--budget-ms`.
    pub budget_ms: Option<u32>,
    /// `--seed`.
    pub seed: Option<u64>,
}

/// A usage error: exit 2 with this message and the command's `--help` hint.
#[derive(Debug)]
pub struct Usage(pub String);

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn runtime() -> Result<tokio::runtime::Runtime, Usage> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Usage(format!("cannot start the runtime: {e}")))
}

/// A JSON file given on the command line.
fn json_file(path: &str, what: &str) -> Result<Value, Usage> {
    let bytes = std::fs::read(path).map_err(|e| Usage(format!("cannot read {path}: {e}")))?;
    serde_json::from_slice(&bytes).map_err(|e| Usage(format!("{what} {path} is not JSON: {e}")))
}

/// Writes `HH:MM:SS.mmm` of now, UTC (the log lines' stamp), without an allocation: one is written
/// for every REST call.
fn write_stamp(out: &mut Vec<u8>) {
    let ms = super::wall_ms().rem_euclid(86_400_000);
    for (n, width, sep) in [(ms / 3_600_000, 2, b':'), (ms / 60_000 % 60, 2, b':'), (ms / 1000 % 60, 2, b'.'), (ms % 1000, 3, 0)] {
        let mut digits = [b'0'; 3];
        let mut n = n;
        for d in digits[..width].iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend_from_slice(&digits[..width]);
        if sep != 0 {
            out.push(sep);
        }
    }
}

/// `HH:MM:SS.mmm` of now, UTC.
fn stamp() -> String {
    let mut out = Vec::with_capacity(12);
    write_stamp(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// A value as a JS template literal prints it (a string without its quotes).
fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A value as `JSON.stringify` writes it: a whole float without its `.0`.
fn js_json(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => json!(f as i64),
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(js_json).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), js_json(v))).collect()),
        _ => v.clone(),
    }
}

/// The banner `poscheck sandbox` prints once it listens.
pub fn banner(sb: &Sandbox, manual: bool) -> String {
    let info = sb.info();
    let config = &info["config"];
    let url = sb.url();
    let empty = Vec::new();
    let clients = config["clients"].as_array().unwrap_or(&empty);
    let keys: Vec<String> = clients
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let stores: Vec<String> = c["stores"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(|s| {
                    let auto = if s["autoAccept"].as_bool() == Some(true) { ", autoAccept" } else { "" };
                    format!("{} (storeId {}, brandId {}{auto})", plain(&s["remoteId"]), plain(&s["storeId"]), plain(&s["brandId"]))
                })
                .collect();
            format!("  client {} API key  {}\n    stores: {}", i + 1, plain(&c["apiKey"]), stores.join(", "))
        })
        .collect();
    let first_store = clients.first().map(|c| plain(&c["stores"][0]["remoteId"])).unwrap_or_default();
    let clock = if manual { "manual (POST /_sandbox/advance moves it)" } else { "real" };
    let mut out = format!("poscheck sandbox {VERSION}: a local copy of the Merchant Order and Menu Integration Service\n");
    if let Some(console) = sb.console_url() {
        out.push_str(&format!("  console        {console}  (orders, timelines, deliveries and REST calls, live)\n"));
    }
    out.push_str(&format!("  REST base      {url}/api/v1/\n{}\n", keys.join("\n")));
    out.push_str(&format!("  HMAC secret    {}\n  POS (webhooks) {}\n", plain(&config["secret"]), plain(&config["pos"])));
    out.push_str(&format!("  clock          {clock}\n"));
    out.push_str(&format!(
        "  controls       {url}/_sandbox/  e.g. curl -X POST {url}/_sandbox/orders -d '{{\"store\":\"{first_store}\"}}'\n"
    ));
    out.push_str(&format!("  assumed where the contract shows nothing: {}\n", js_json(&info["options"])));
    out
}

/// The log's lines, written to stdout by a thread of their own every few ms (one write for many
/// lines: a write and a flush for each REST call cost more than answering it).
struct LogBuffer {
    pending: std::sync::Mutex<Vec<u8>>,
}

impl LogBuffer {
    fn start() -> Arc<LogBuffer> {
        let buffer = Arc::new(LogBuffer { pending: std::sync::Mutex::new(Vec::new()) });
        let weak = Arc::downgrade(&buffer);
        std::thread::spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_millis(20));
            match weak.upgrade() {
                Some(b) => b.flush(),
                None => return,
            }
        });
        buffer
    }

    fn push(&self, line: &str) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        write_stamp(&mut pending);
        pending.push(b' ');
        pending.extend_from_slice(line.as_bytes());
        pending.push(b'\n');
        // Bounded: a stdout that does not drain (a full pipe) loses lines, never memory.
        if pending.len() > 64 << 20 {
            pending.clear();
        }
    }

    fn flush(&self) {
        let text = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if !text.is_empty() {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(&text);
            let _ = stdout.flush();
        }
    }
}

fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Waits for SIGINT or SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// `poscheck sandbox`: serves until SIGINT or SIGTERM, then writes `--state` and exits 0.
pub fn sandbox(cmd: SandboxCommand) -> Result<u8, Usage> {
    let manual = match cmd.clock.as_deref() {
        None | Some("real") => false,
        Some("manual") => true,
        Some(other) => return Err(Usage(format!("invalid value '{other}' for '--clock'"))),
    };
    let mut model = match &cmd.options {
        None => Map::new(),
        Some(path) => match json_file(path, "the options file")? {
            Value::Object(m) => m,
            _ => return Err(Usage(format!("the options file {path} is not a JSON object"))),
        },
    };
    let mut options = SandboxOptions::from_json(&Value::Object(std::mem::take(&mut model))).map_err(|e| Usage(e.message))?;
    options.port = cmd.port.unwrap_or(8787);
    options.host = cmd.host.clone();
    options.allowed_hosts = cmd.allowed_hosts.clone().unwrap_or_default();
    if cmd.pos.is_some() {
        options.pos = cmd.pos.clone();
    }
    if let Some(path) = &cmd.config {
        options.config = Some(json_file(path, "the config file")?);
    }
    options.seed = cmd.seed.or(options.seed);
    options.state = cmd.state.as_ref().map(Into::into);
    options.manual_clock = manual;
    let buffer = LogBuffer::start();
    let lines = buffer.clone();
    let log: Log = Arc::new(move |line: &str| lines.push(line));
    options.log = Some(log);
    let menu = match &cmd.menu {
        Some(path) => Some((path.clone(), json_file(path, "the menu file")?)),
        None => None,
    };
    runtime()?.block_on(async move {
        let sb = Sandbox::start(options).await.map_err(|e: FaceError| Usage(e.message))?;
        buffer.flush();
        out(&banner(&sb, manual));
        if let Some((path, menu)) = menu {
            let reply = sb.control("PUT", "/_sandbox/menu", menu.to_string().as_bytes()).await;
            if reply.status >= 400 {
                let message = serde_json::from_str::<Value>(&reply.body)
                    .ok()
                    .and_then(|v| v.pointer("/error/message").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or(reply.body);
                sb.close().await;
                return Err(Usage(format!("--menu {path}: {message}")));
            }
            let counts: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            buffer.flush();
            out(&format!("{} • menu seeded from {path}: {counts}\n", stamp()));
        }
        stopped().await;
        sb.close().await;
        buffer.flush();
        Ok(0)
    })
}

/// The `--faults` of the probe: `429=0.1,503=0.05` (rates from 0 to 1).
fn faults(text: Option<&str>) -> Result<Value, Usage> {
    let mut out = Map::new();
    let Some(text) = text else { return Ok(Value::Object(out)) };
    let bad = || Usage(format!("invalid value '{text}' for '--faults': expected e.g. 429=0.1,503=0.05 (rates from 0 to 1)"));
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (status, rate) = part.split_once('=').ok_or_else(bad)?;
        if !["429", "502", "503"].contains(&status) {
            return Err(bad());
        }
        let well_formed = !rate.is_empty()
            && rate.split_once('.').map_or(rate.bytes().all(|b| b.is_ascii_digit()), |(i, f)| {
                !i.is_empty() && !f.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) && f.bytes().all(|b| b.is_ascii_digit())
            });
        let rate: f64 = rate.parse().map_err(|_| bad())?;
        if !well_formed || rate > 1.0 {
            return Err(bad());
        }
        out.insert(status.to_string(), json!(rate));
    }
    Ok(Value::Object(out))
}

/// `poscheck probe`: the report on stdout, progress on stderr; 0 when no check failed, 1 when one did.
pub fn probe(cmd: ProbeCommand) -> Result<u8, Usage> {
    let format = cmd.format.clone().unwrap_or_else(|| "text".into());
    let format = crate::probe::report::Format::parse(&format).ok_or_else(|| Usage(format!("invalid value '{format}' for '--format'")))?;
    let secret = match &cmd.secret_env {
        Some(name) => match std::env::var(name) {
            Ok(s) if !s.is_empty() => Some(s),
            _ => return Err(Usage(format!("the environment variable {name} is not set"))),
        },
        None => None,
    };
    let port = cmd.port.unwrap_or(8787);
    let mut options = Map::new();
    options.insert("pos".into(), json!(cmd.pos));
    if !cmd.stores.is_empty() {
        options.insert("stores".into(), json!(cmd.stores));
    }
    if let Some(s) = &secret {
        options.insert("secret".into(), json!(s));
    }
    if let Some(k) = &cmd.api_key {
        options.insert("apiKey".into(), json!(k));
    }
    options.insert("port".into(), json!(port));
    if let Some(s) = cmd.seed {
        options.insert("seed".into(), json!(s));
    }
    options.insert("receiverOnly".into(), json!(cmd.receiver_only));
    let only: Vec<&str> = cmd.only.iter().map(|o| o.trim()).filter(|o| !o.is_empty()).collect();
    if !cmd.only.is_empty() {
        options.insert("only".into(), json!(only));
    }
    if let Some(w) = cmd.wait {
        options.insert("wait".into(), json!(w));
    }
    if let Some(b) = cmd.budget_ms {
        options.insert("budgetMs".into(), json!(b));
    }
    options.insert("faults".into(), faults(cmd.faults.as_deref())?);
    let secret_env = cmd.secret_env.clone();
    let err = |line: &str| {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{line}");
    };
    let on_ready = move |info: &Value| {
        err(&format!("poscheck probe {VERSION}: a sandbox for the POS at {}", plain(&info["pos"])));
        err(&format!("  REST base      {}/api/v1/", plain(&info["url"])));
        err(&format!("  API key        {}", plain(&info["apiKey"])));
        match &secret_env {
            Some(name) => err(&format!("  HMAC secret    (from ${name})")),
            None => err(&format!("  HMAC secret    {}", plain(&info["secret"]))),
        }
        let stores: Vec<String> = info["stores"].as_array().map(|a| a.iter().map(plain).collect()).unwrap_or_default();
        err(&format!("  stores         {}", stores.join(", ")));
    };
    let on_progress = |line: &str| err(line);
    let options = Value::Object(options);
    let report = runtime()?.block_on(probe::probe(&options, Hooks { on_ready: &on_ready, on_progress: &on_progress }));
    let report = report.map_err(|e| match e.code.as_str() {
        "EADDRINUSE" => Usage(format!("port {port} is in use: give another with --port (0: a free one)")),
        _ => Usage(e.message),
    })?;
    out(&crate::probe::report::render(&report, format));
    Ok(if report.ok { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stamp_is_the_time_of_day_to_the_millisecond() {
        let s = super::stamp();
        let b = s.as_bytes();
        assert_eq!(b.len(), 12, "{s}");
        assert_eq!((b[2], b[5], b[8]), (b':', b':', b'.'), "{s}");
        assert!(s.bytes().enumerate().all(|(i, c)| [2, 5, 8].contains(&i) || c.is_ascii_digit()), "{s}");
        assert!(s[..2].parse::<u8>().is_ok_and(|h| h < 24) && s[3..5].parse::<u8>().is_ok_and(|m| m < 60), "{s}");
    }
}
