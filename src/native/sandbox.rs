//! `poscheck sandbox` natively: the service model ([`crate::service`]) behind a hyper 1 server.
//!
//! What this file does is what `pkg/src/sandbox.js` does, and nothing more: it listens, hands every
//! REST request to `Service::handle` and every request under `/_sandbox` to the model's controls
//! ([`controls::handle_http`]), carries out the effect a control asks of the runtime
//! ([`FaceEffect`]: settle deliveries, move the manual clock, wait for the journal, send copies),
//! sends the deliveries the model makes due and reports each answer back (`answered_with`, which
//! journals it), arms its timer for the model's next due time after every call into the model (the
//! timer rule of design.md), serves the console's files, and writes `--state`.

use super::conn::{Activity, Problem, Watched};
use super::console::{self, Console};
use super::send::{self, HttpClient};
use super::{wall_ms, FaceError};
use crate::service::controls::{self, ControlReply, Face, FaceEffect};
use crate::service::journal::MAX_POS_ANSWER;
use crate::service::{Attempt, PosAnswer, Request, Service};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify};

/// Request bodies above this are refused (413), as by the npm face.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// A request head (its header lines) above this is refused (431): Node's default limit, which the
/// npm face has.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// hyper's read buffer: a head above it gets hyper's 431, made a problem document by conn.rs; a
/// head above [`MAX_HEAD_BYTES`] and within it gets the sandbox's own.
const MAX_BUFFER_BYTES: usize = 256 * 1024;
/// A request whose body is not read within this gets a 408 (Node's `requestTimeout`).
const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// A line of the face's log.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// What `createSandbox()` takes (the same names): the face's own options and the model's.
#[derive(Clone, Default)]
pub struct SandboxOptions {
    /// The port (0: a free one).
    pub port: u16,
    /// The address to listen on (default 127.0.0.1).
    pub host: Option<String>,
    /// Names beside the loopback's under which the controls and the console answer (comma list).
    pub allowed_hosts: String,
    /// The POS base URL (over `config.pos`).
    pub pos: Option<String>,
    /// The onboarding config (JSON).
    pub config: Option<Value>,
    /// Ids are reproducible from this seed (default: a random one).
    pub seed: Option<u64>,
    /// Keep the state in this file across restarts.
    pub state: Option<PathBuf>,
    /// The manual clock (moved by `POST /_sandbox/advance`), not the real one.
    pub manual_clock: bool,
    /// The model's options (`acceptanceWindowSeconds`, …): the model checks them.
    pub model: Map<String, Value>,
    /// Where the log lines go (none: no log).
    pub log: Option<Log>,
}

impl std::fmt::Debug for SandboxOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxOptions")
            .field("port", &self.port)
            .field("host", &self.host)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl SandboxOptions {
    /// The options of `createSandbox()` as JSON (what the probe's plan asks for).
    pub fn from_json(options: &Value) -> Result<Self, FaceError> {
        let invalid = |m: String| FaceError::new("INVALID_ARGUMENT", m);
        let Some(o) = options.as_object() else { return Err(invalid("createSandbox takes an options object".into())) };
        let mut out = SandboxOptions::default();
        for (k, v) in o {
            if v.is_null() {
                continue;
            }
            match k.as_str() {
                "pos" => out.pos = Some(v.as_str().ok_or_else(|| invalid("pos must be a URL".into()))?.to_string()),
                "config" => out.config = Some(v.clone()),
                "clock" => match v.as_str() {
                    Some("manual") => out.manual_clock = true,
                    Some("real") => out.manual_clock = false,
                    _ => return Err(invalid(format!("clock must be 'real' or 'manual', found {v}"))),
                },
                "seed" => out.seed = Some(v.as_u64().ok_or_else(|| invalid("seed must be a non-negative integer".into()))?),
                "port" => {
                    out.port = v
                        .as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .ok_or_else(|| invalid(format!("port must be 0 to 65535, found {v}")))?
                }
                "host" => out.host = Some(v.as_str().ok_or_else(|| invalid("host must be a string".into()))?.to_string()),
                "allowedHosts" => {
                    out.allowed_hosts = match v {
                        Value::String(s) => s.clone(),
                        Value::Array(a) if a.iter().all(Value::is_string) => {
                            a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(",")
                        }
                        _ => return Err(invalid("allowedHosts must be a list of host names (or one comma-separated string)".into())),
                    }
                }
                "state" => out.state = Some(PathBuf::from(v.as_str().ok_or_else(|| invalid("state must be a file path".into()))?)),
                "log" => {}
                _ => {
                    out.model.insert(k.clone(), v.clone());
                }
            }
        }
        Ok(out)
    }
}

/// The model and what the face keeps beside it, under one lock (never held across an await).
struct State {
    service: Service,
    face: Face,
    /// The manual clock, unix ms.
    manual_ms: i64,
}

impl State {
    fn now(&self) -> i64 {
        if self.face.manual_clock {
            self.manual_ms
        } else {
            wall_ms()
        }
    }
}

struct Shared {
    state: Mutex<State>,
    manual: bool,
    log: Option<Log>,
    client: HttpClient,
    console: Console,
    state_file: Option<PathBuf>,
    /// Deliveries under way, by delivery id: how many attempts.
    inflight: Mutex<HashMap<String, u32>>,
    /// An attempt under way settled.
    settled: Notify,
    /// The model changed: the reads of the journal that wait answer.
    changed: Notify,
    /// How many reads of the journal wait.
    waiters: AtomicU32,
    /// The timer must look at the model's next due time again.
    rearm: Notify,
    /// The due time the timer is armed for (-1: none).
    armed_for: AtomicI64,
    /// A save of the state is scheduled.
    save_scheduled: AtomicBool,
    closed: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn log(&self, line: &str) {
        if let Some(log) = &self.log {
            log(line);
        }
    }

    /// The timer rule: after a call into the model, the timer looks at its next due time (only
    /// when it moved: re-arming for the time already armed costs nothing).
    fn schedule(&self, next: Option<i64>) {
        let next = if self.manual || self.closed.load(Ordering::Relaxed) { -1 } else { next.unwrap_or(-1) };
        if self.armed_for.load(Ordering::Relaxed) != next {
            self.rearm.notify_one();
        }
    }

    fn wake(&self) {
        if self.waiters.load(Ordering::Relaxed) > 0 {
            self.changed.notify_waiters();
        }
    }

    /// The state changed: saved within 200 ms (with `--state`).
    fn changed_state(self: &Arc<Self>) {
        if self.state_file.is_none() || self.save_scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let shared = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            shared.save_scheduled.store(false, Ordering::Release);
            shared.save_state();
        });
    }

    fn save_state(&self) {
        let Some(path) = &self.state_file else { return };
        let text = self.lock().service.export_state();
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            self.log(&format!("sandbox: cannot write the state to {}: {e}", path.display()));
        }
    }
}

/// A running sandbox.
pub struct Sandbox {
    shared: Arc<Shared>,
    url: String,
    info: Value,
    stop: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox").field("url", &self.url).finish_non_exhaustive()
    }
}

fn make_service(options: &SandboxOptions) -> Result<Service, FaceError> {
    let config_error = |e: crate::service::ConfigError| FaceError::new(e.code(), e.to_string());
    if let Some(path) = &options.state {
        if path.exists() {
            let text = std::fs::read_to_string(path)
                .map_err(|e| FaceError::new("IO", format!("cannot read the state {}: {e}", path.display())))?;
            return Service::import_state(&text).map_err(config_error);
        }
    }
    let mut config = options.config.clone();
    if let Some(pos) = &options.pos {
        let mut c = match config {
            Some(Value::Object(m)) => m,
            None => Map::new(),
            Some(_) => return Err(FaceError::new("INVALID_CONFIG", "the config must be a JSON object")),
        };
        c.insert("pos".into(), Value::String(pos.clone()));
        config = Some(Value::Object(c));
    }
    let config = config.map(|c| c.to_string()).unwrap_or_default();
    let seed = options.seed.unwrap_or_else(super::random_seed);
    Service::from_json(&config, &Value::Object(options.model.clone()).to_string(), seed).map_err(config_error)
}

impl Sandbox {
    /// Starts a sandbox: resolves once it listens.
    pub async fn start(options: SandboxOptions) -> Result<Sandbox, FaceError> {
        let service = make_service(&options)?;
        let host = options.host.clone().unwrap_or_else(|| "127.0.0.1".into());
        let mut face = Face { manual_clock: options.manual_clock, ..Face::default() };
        let allowed = controls::guard::parse_allowed_hosts(&options.allowed_hosts).map_err(|e| FaceError::new("INVALID_ARGUMENT", e))?;
        face.access = controls::guard::Access { bind_host: host.clone(), port: 0, allowed_hosts: allowed.clone() };
        let bind = host.trim_start_matches('[').trim_end_matches(']').to_string();
        let listener = TcpListener::bind((bind.as_str(), options.port)).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                FaceError::new("EADDRINUSE", format!("listen EADDRINUSE: address already in use {host}:{}", options.port))
            } else {
                FaceError::new("IO", format!("cannot listen on {host}:{}: {e}", options.port))
            }
        })?;
        let address = listener.local_addr().map_err(|e| FaceError::new("IO", e.to_string()))?;
        let url = match address {
            std::net::SocketAddr::V6(a) => format!("http://[{}]:{}", a.ip(), a.port()),
            std::net::SocketAddr::V4(a) => format!("http://{}:{}", a.ip(), a.port()),
        };
        let mut service = service;
        service.set_problem_base(&format!("{url}/problems"));
        face.url = url.clone();
        face.access.port = address.port();
        let exposed = face.access.exposed();
        let info: Value = serde_json::json!({ "config": service.config(), "options": service.options() });
        let manual = options.manual_clock;
        let shared = Arc::new(Shared {
            state: Mutex::new(State { service, face, manual_ms: wall_ms() / 1000 * 1000 }),
            manual,
            log: options.log.clone(),
            client: send::client(),
            console: console::load(),
            state_file: options.state.clone(),
            inflight: Mutex::new(HashMap::new()),
            settled: Notify::new(),
            changed: Notify::new(),
            waiters: AtomicU32::new(0),
            rearm: Notify::new(),
            armed_for: AtomicI64::new(-1),
            save_scheduled: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        });
        if let Some(warning) = exposed {
            match &options.log {
                Some(log) => log(&warning),
                None => eprintln!("{warning}"),
            }
        }
        let (stop, stopped) = watch::channel(false);
        let server = tokio::spawn(serve(shared.clone(), listener, stopped.clone()));
        let timer = tokio::spawn(run_timer(shared.clone(), stopped));
        Ok(Sandbox { shared, url, info, stop, tasks: vec![server, timer] })
    }

    /// The REST base (a bare origin; paths are /api/v1/…).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `{ config, options }`: the account (clients, stores, secret, pos) and what the model assumes.
    pub fn info(&self) -> &Value {
        &self.info
    }

    /// The console's URL (none without its files).
    pub fn console_url(&self) -> Option<String> {
        self.shared.console.files.contains_key("/").then(|| format!("{}/", self.url))
    }

    /// A control, as if requested over HTTP from the loopback without the guard (the face's own
    /// calls, as `createSandbox()`'s methods): its reply once its effect is carried out.
    pub async fn control(&self, method: &str, target: &str, body: &[u8]) -> ControlReply {
        control(&self.shared, method, target, None, body).await
    }

    /// Sends what is due and waits for every delivery under way.
    pub async fn settle(&self) {
        drain(&self.shared).await;
        wait_all(&self.shared).await;
    }

    /// Stops listening and sending; writes the state (with `--state`).
    pub async fn close(mut self) {
        if self.shared.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        self.shared.lock().face.closed = true;
        self.shared.changed.notify_waiters();
        let _ = self.stop.send(true);
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
        self.shared.save_state();
    }
}

// ---- the timer and the deliveries ---------------------------------------------------------------

/// Fires the model's timers when due (real clock): sleeps until the next due time, or until a call
/// into the model moved it.
async fn run_timer(shared: Arc<Shared>, mut stopped: watch::Receiver<bool>) {
    loop {
        let next = if shared.manual || shared.closed.load(Ordering::Relaxed) { None } else { shared.lock().service.next_due() };
        shared.armed_for.store(next.unwrap_or(-1), Ordering::Relaxed);
        let sleep = async {
            match next {
                Some(t) => tokio::time::sleep(Duration::from_millis(t.saturating_sub(wall_ms()).max(0) as u64)).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = stopped.changed() => return,
            () = shared.rearm.notified() => {}
            () = sleep => {
                shared.armed_for.store(-1, Ordering::Relaxed);
                let s = shared.clone();
                tokio::spawn(async move { drain(&s).await });
            }
        }
    }
}

/// Sends what is due now, and what their answers make due now, until nothing is due.
async fn drain(shared: &Arc<Shared>) {
    loop {
        let (attempts, next) = {
            let mut st = shared.lock();
            let now = st.now();
            let attempts = st.service.due(now, wall_ms() / 1000);
            (attempts, st.service.next_due())
        };
        shared.schedule(next);
        if attempts.is_empty() {
            break;
        }
        for handle in start(shared, attempts) {
            let _ = handle.await;
        }
    }
}

/// Starts sending `attempts`, each in its own task.
fn start(shared: &Arc<Shared>, attempts: Vec<Attempt>) -> Vec<tokio::task::JoinHandle<()>> {
    attempts
        .into_iter()
        .map(|a| {
            *shared.inflight.lock().unwrap_or_else(|e| e.into_inner()).entry(a.delivery_id.clone()).or_insert(0) += 1;
            let s = shared.clone();
            tokio::spawn(async move {
                let id = a.delivery_id.clone();
                deliver(&s, a).await;
                {
                    let mut inflight = s.inflight.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(n) = inflight.get_mut(&id) {
                        *n -= 1;
                        if *n == 0 {
                            inflight.remove(&id);
                        }
                    }
                }
                s.settled.notify_waiters();
            })
        })
        .collect()
}

/// Sends one attempt and reports the POS's answer to the model, which journals it.
async fn deliver(shared: &Arc<Shared>, a: Attempt) {
    let budget = Duration::from_millis(a.budget_ms);
    let answered = send::send(&shared.client, &a.method, &a.url, &a.headers, a.body.clone().into_bytes(), budget, MAX_POS_ANSWER + 1).await;
    let (settled, next) = {
        let mut st = shared.lock();
        let now = st.now();
        let answer = PosAnswer { status: answered.status, body: &answered.body, error: answered.error.as_deref(), ms: answered.ms };
        let settled = st.service.answered_with(a.attempt, &answer, now);
        (settled, st.service.next_due())
    };
    shared.schedule(next);
    shared.wake();
    if let Some(line) = settled.as_ref().and_then(|s| s.log.as_deref()) {
        shared.log(line);
    }
}

/// Waits until none of `ids` is under way.
async fn wait_for(shared: &Shared, ids: &[String]) {
    loop {
        let notified = shared.settled.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let busy = {
            let inflight = shared.inflight.lock().unwrap_or_else(|e| e.into_inner());
            ids.iter().any(|id| inflight.contains_key(id))
        };
        if !busy {
            return;
        }
        notified.await;
    }
}

/// Waits until no delivery is under way.
async fn wait_all(shared: &Shared) {
    loop {
        let notified = shared.settled.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if shared.inflight.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
            return;
        }
        notified.await;
    }
}

// ---- the controls -------------------------------------------------------------------------------

/// A control: the model routes and answers it (over HTTP, after the guard on `Host` and
/// `Origin`); the face carries out its effect.
async fn control(
    shared: &Arc<Shared>,
    method: &str,
    target: &str,
    http: Option<(Option<&str>, Option<&str>)>,
    body: &[u8],
) -> ControlReply {
    let changed = shared.changed.notified();
    tokio::pin!(changed);
    changed.as_mut().enable();
    let (reply, next) = {
        let mut st = shared.lock();
        let now = st.now();
        let wall = wall_ms() / 1000;
        let State { service, face, .. } = &mut *st;
        let reply = match http {
            Some((host, origin)) => controls::handle_http(service, face, method, target, host, origin, body, now, wall),
            None => controls::handle(service, face, method, target, body, now, wall),
        };
        (reply, service.next_due())
    };
    shared.schedule(next);
    if let Some(line) = &reply.log {
        shared.log(line);
    }
    if reply.changed {
        shared.wake();
    }
    let settles = matches!(reply.effect, FaceEffect::Settle { .. } | FaceEffect::Advance { .. });
    if reply.changed && !settles {
        shared.changed_state();
    }
    let then = match &reply.effect {
        FaceEffect::None => return reply,
        FaceEffect::Settle { deliveries, then } => {
            drain(shared).await;
            wait_for(shared, deliveries).await;
            then
        }
        FaceEffect::Advance { ms, then } => {
            let target = shared.lock().manual_ms + ms;
            loop {
                let due = {
                    let mut st = shared.lock();
                    match st.service.next_due() {
                        Some(next) if next <= target => {
                            st.manual_ms = st.manual_ms.max(next);
                            true
                        }
                        _ => false,
                    }
                };
                if !due {
                    break;
                }
                drain(shared).await;
                wait_all(shared).await;
            }
            shared.lock().manual_ms = target;
            shared.wake();
            then
        }
        FaceEffect::Wait { ms, limit, then } => {
            if !shared.closed.load(Ordering::Relaxed) && shared.waiters.fetch_add(1, Ordering::AcqRel) < *limit {
                let _ = tokio::time::timeout(Duration::from_millis(*ms), changed).await;
            }
            shared.waiters.fetch_sub(1, Ordering::AcqRel);
            then
        }
        FaceEffect::Send { attempts, then } => {
            for handle in start(shared, attempts.clone()) {
                let _ = handle.await;
            }
            then
        }
    };
    if reply.changed && settles {
        shared.changed_state();
    }
    let (out, next) = {
        let st = shared.lock();
        (controls::then(&st.service, then, st.now()), st.service.next_due())
    };
    shared.schedule(next);
    out
}

// ---- the server ---------------------------------------------------------------------------------

type Answer = Response<Full<Bytes>>;

const JSON_TYPE: &str = "application/json; charset=utf-8";
const PROBLEM_TYPE: &str = "application/problem+json";

fn answer(status: u16, content_type: &str, body: impl Into<Bytes>) -> Answer {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let value = match content_type {
        JSON_TYPE => HeaderValue::from_static(JSON_TYPE),
        PROBLEM_TYPE => HeaderValue::from_static(PROBLEM_TYPE),
        other => HeaderValue::from_str(other).unwrap_or(HeaderValue::from_static(JSON_TYPE)),
    };
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, value);
    r
}

/// A problem for a request refused before the model read it (413, 431, 408), and the connection
/// closed after it.
fn unread(shared: &Shared, status: u16, detail: &str) -> Answer {
    let body = shared.lock().service.unread_problem(status, detail);
    let mut r = answer(status, PROBLEM_TYPE, body);
    r.headers_mut().insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// A header's value as Node reads it: its bytes as Latin-1 (borrowed when they are ASCII),
/// repeated headers joined by ", ".
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<Cow<'a, str>> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    let mut out = latin1(first);
    for v in values {
        let joined = out.to_mut();
        joined.push_str(", ");
        joined.push_str(&latin1(v));
    }
    Some(out)
}

/// A header value's bytes as Latin-1, borrowed when they are ASCII.
fn latin1(v: &HeaderValue) -> Cow<'_, str> {
    match std::str::from_utf8(v.as_bytes()) {
        Ok(s) if s.is_ascii() => Cow::Borrowed(s),
        _ => Cow::Owned(v.as_bytes().iter().map(|&b| b as char).collect()),
    }
}

/// The first value of a header (Node keeps the first `Host` and `Content-Type`).
fn first_header<'a>(headers: &'a HeaderMap, name: &str) -> Option<Cow<'a, str>> {
    headers.get(name).map(latin1)
}

async fn serve(shared: Arc<Shared>, listener: TcpListener, stopped: watch::Receiver<bool>) {
    let mut stop = stopped.clone();
    loop {
        let accepted = tokio::select! {
            _ = stop.changed() => return,
            a = listener.accept() => a,
        };
        let Ok((stream, _)) = accepted else {
            // Out of descriptors, or a connection gone before it was accepted: not a busy loop.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        let mut stop = stopped.clone();
        tokio::spawn(async move {
            let activity = Arc::new(Activity::default());
            let problems = shared.clone();
            let problem: Problem = Arc::new(move |status, detail| problems.lock().service.unread_problem(status, detail));
            let io = TokioIo::new(Watched::new(stream, activity.clone(), problem));
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                let activity = activity.clone();
                activity.active.store(true, Ordering::Release);
                activity.dispatched.fetch_add(1, Ordering::AcqRel);
                async move {
                    let answer = route(shared, req).await;
                    activity.active.store(false, Ordering::Release);
                    Ok::<_, std::convert::Infallible>(answer)
                }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                // Not `pipeline_flush`: with it, hyper never flushes its own answer to a request
                // it cannot read while the request's bytes stay in its buffer.
                // hyper's default of 100 header lines (more: a 431 problem): a higher limit made
                // hyper initialize that many slots on every request (13 % of the list's CPU at 2,000).
                .max_buf_size(MAX_BUFFER_BYTES)
                .serve_connection(io, service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.changed() => {}
            }
        });
    }
}

async fn route(shared: Arc<Shared>, req: hyper::Request<Incoming>) -> Answer {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let method = parts.method.as_str();
    // The request target as sent (Node's `req.url`): the origin form borrowed, another form whole.
    let target: Cow<'_, str> = match parts.uri.path_and_query() {
        Some(pq) if parts.uri.scheme().is_none() => Cow::Borrowed(pq.as_str()),
        _ => Cow::Owned(parts.uri.to_string()),
    };
    let target = target.as_ref();
    let headers = &parts.headers;
    let head_bytes: usize = headers.iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum::<usize>() + method.len() + target.len() + 12;
    if head_bytes > MAX_HEAD_BYTES {
        return unread(&shared, 431, "the request cannot be read as HTTP/1.1 (HPE_HEADER_OVERFLOW)");
    }
    let bodiless = !headers.contains_key(hyper::header::CONTENT_LENGTH) && !headers.contains_key(hyper::header::TRANSFER_ENCODING);
    let host = first_header(headers, "host");
    let origin = first_header(headers, "origin");
    // The console's static files, at `/`: only those paths, behind the controls' guard.
    if bodiless && (method == "GET" || method == "HEAD") {
        let path = target.split('?').next().unwrap_or_default();
        if let Some(file) = shared.console.files.get(path) {
            let refused = {
                let st = shared.lock();
                controls::page_guard(&st.face, method, target, host.as_deref(), origin.as_deref())
            };
            if let Some(r) = refused {
                if let Some(line) = &r.log {
                    shared.log(line);
                }
                return answer(r.status, PROBLEM_TYPE, r.body);
            }
            let mut r = answer(200, &file.content_type, Bytes::from_static(file.body));
            for (k, v) in &shared.console.headers {
                if let (Ok(k), Ok(v)) = (hyper::header::HeaderName::from_bytes(k.as_bytes()), HeaderValue::from_str(v)) {
                    r.headers_mut().insert(k, v);
                }
            }
            return r;
        }
    }
    let api_key = header(headers, "x-service-api-key");
    let schema_version = header(headers, "x-service-schema-version");
    let idempotency_key = header(headers, "idempotency-key");
    let content_type = first_header(headers, "content-type");
    let declared = headers.get(hyper::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let body = if bodiless {
        Bytes::new()
    } else if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        // Refused unread; the rest is read and dropped (up to 4x the limit, within the body's
        // time), so that a client still sending reads the 413 instead of meeting a reset.
        tokio::spawn(async move {
            let _ = tokio::time::timeout(BODY_TIMEOUT, drop_body(body, 4 * MAX_REQUEST_BYTES)).await;
        });
        return unread(&shared, 413, &format!("the body exceeds {MAX_REQUEST_BYTES} bytes"));
    } else {
        match tokio::time::timeout(BODY_TIMEOUT, read_body(body)).await {
            Err(_) => return unread(&shared, 408, "the request cannot be read as HTTP/1.1 (ERR_HTTP_REQUEST_TIMEOUT)"),
            Ok(Err(Too::Large)) => return unread(&shared, 413, &format!("the body exceeds {MAX_REQUEST_BYTES} bytes")),
            Ok(Err(Too::Broken)) => return unread(&shared, 400, "the request cannot be read as HTTP/1.1"),
            Ok(Ok(b)) => b,
        }
    };
    if controls::is_control(target) {
        let r = control(&shared, method, target, Some((host.as_deref(), origin.as_deref())), &body).await;
        return answer(r.status, if r.problem { PROBLEM_TYPE } else { JSON_TYPE }, r.body);
    }
    let headers = RestHeaders {
        api_key: api_key.as_deref(),
        schema_version: schema_version.as_deref(),
        idempotency_key: idempotency_key.as_deref(),
        content_type: content_type.as_deref(),
    };
    rest(&shared, method, target, headers, &body, started).await
}

enum Too {
    Large,
    /// The body ended before its length, or its chunks cannot be read.
    Broken,
}

/// The whole body, or `Large` past the limit.
async fn read_body(mut body: Incoming) -> Result<Bytes, Too> {
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut size = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| Too::Broken)?;
        if let Ok(data) = frame.into_data() {
            size += data.len();
            if size > MAX_REQUEST_BYTES {
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(BODY_TIMEOUT, drop_body(body, 3 * MAX_REQUEST_BYTES)).await;
                });
                return Err(Too::Large);
            }
            chunks.push(data);
        }
    }
    Ok(match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.pop().unwrap_or_default(),
        _ => Bytes::from(chunks.concat()),
    })
}

/// Reads and drops up to `limit` bytes of a refused body.
async fn drop_body(mut body: Incoming, limit: usize) {
    let mut size = 0usize;
    while let Some(Ok(frame)) = body.frame().await {
        size += frame.data_ref().map_or(0, |d| d.len());
        if size > limit {
            return;
        }
    }
}

/// The headers the model reads of a REST request.
struct RestHeaders<'a> {
    api_key: Option<&'a str>,
    schema_version: Option<&'a str>,
    idempotency_key: Option<&'a str>,
    content_type: Option<&'a str>,
}

async fn rest(shared: &Arc<Shared>, method: &str, target: &str, h: RestHeaders<'_>, body: &[u8], started: Instant) -> Answer {
    let (a, next) = {
        let mut st = shared.lock();
        let now = st.now();
        let request = Request {
            method,
            target,
            api_key: h.api_key,
            schema_version: h.schema_version,
            idempotency_key: h.idempotency_key,
            content_type: h.content_type,
            body,
        };
        let a = st.service.handle(&request, now);
        st.service.record_call(&request, &a, now);
        (a, st.service.next_due())
    };
    shared.wake();
    shared.schedule(next);
    if method != "GET" {
        shared.changed_state();
    }
    if a.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(u64::from(a.delay_ms))).await;
    }
    let mut r = answer(a.status, if a.problem { PROBLEM_TYPE } else { JSON_TYPE }, a.body);
    if let Some(s) = a.retry_after {
        r.headers_mut().insert(hyper::header::RETRY_AFTER, HeaderValue::from(s));
    }
    if a.replayed {
        r.headers_mut().insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    if shared.log.is_some() {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        shared.log(&crate::service::rest_log_line(method, target, a.status, a.replayed, a.retry_after, ms));
    }
    r
}
