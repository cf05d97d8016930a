//! The sandbox's controls: the routes under [`PREFIX`] (`/_sandbox/`), which path and body is
//! which control, what each answers, and which error is which HTTP status. Every face (the npm
//! package's `pkg/src/sandbox.js`, a native server) passes the request's bytes here and writes the
//! reply; what only a runtime can do (wait for deliveries, move a manual clock, send copies) comes
//! back as a [`FaceEffect`]. The logs a test reads (`requests`, `deliveries`, `journal`) are the
//! model's [journal](super::journal).
//!
//! - [`route`]: method, target (path and query, the prefix included) and body → a
//!   [`ControlRequest`], or the error reply (a bad path, a body that is not a JSON object, no such
//!   control).
//! - [`answer`]: a [`ControlRequest`] → a [`ControlReply`] (status, body, effect), on the model,
//!   its journal and what the face said of itself ([`Face`]).
//! - [`then`]: what a control answers once its effect is carried out ([`Then`]).
//! - [`status`]: the one table from an error code to its HTTP status.
//!
//! ```
//! use poscheck::service::{controls, Service};
//! let mut sb = Service::new(None, Default::default(), 1).unwrap();
//! let face = controls::Face::default();
//! let reply = controls::handle(&mut sb, &face, "GET", "/_sandbox/orders", b"", 0, 0);
//! assert_eq!((reply.status, reply.body.as_str()), (200, "[]"));
//! let reply = controls::handle(&mut sb, &face, "GET", "/_sandbox/journal?after=0", b"", 0, 0);
//! assert_eq!(reply.body, r#"{"entries":[],"next":0,"more":false,"latest":0}"#);
//! let reply = controls::handle(&mut sb, &face, "DELETE", "/_sandbox/orders", b"", 0, 0);
//! assert_eq!(reply.status, 404);
//! ```

pub mod guard;

use super::{Attempt, Faults, Service};
use crate::contract::{Scope, WriteStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The controls' reserved path prefix on the sandbox's own server.
pub const PREFIX: &str = "/_sandbox";

/// Whether a request target is a control's: `/_sandbox`, `/_sandbox/…` or `/_sandbox?…` (anything
/// else goes to the REST API).
pub fn is_control(target: &str) -> bool {
    target.strip_prefix(PREFIX).is_some_and(|rest| rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
}

/// The path segment of the driver's "ready" (the same word as the contract's write value).
const READY: &str = WriteStatus::Ready.as_str();

/// The largest number JS holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// A year of seconds (366 days): the most one `advance` moves the clock.
const YEAR_SECONDS: f64 = 366.0 * 86_400.0;

/// What the face tells the controls about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Face {
    /// Its base URL (the REST base, a bare origin).
    pub url: String,
    /// The clock is manual (moved by `advance`), not real.
    pub manual_clock: bool,
    /// The face is closed: the controls that cause deliveries are refused.
    pub closed: bool,
    /// Who may reach the controls and the console over HTTP ([`guard`]).
    pub access: guard::Access,
}

/// A control of the sandbox, routed and its body read; the order controls keep the body's members
/// for the model's [`Control`](super::Control).
#[derive(Debug, Clone, PartialEq)]
pub enum ControlRequest {
    /// `GET /`: the sandbox's own description.
    Info,
    /// `POST /orders`: a customer orders.
    CreateOrder {
        /// The body's members.
        input: Map<String, Value>,
    },
    /// `GET /orders`: every order's detail.
    Orders,
    /// `GET /orders/:id`: one order's detail.
    Order {
        /// The order key.
        id: String,
    },
    /// `POST /orders/:id/{assign-driver, release-driver, ready, deliver, cancel, refund}`.
    OnOrder {
        /// Which.
        action: OrderAction,
        /// The order key.
        id: String,
        /// The body's members.
        input: Map<String, Value>,
    },
    /// `POST /advance`: moves the manual clock.
    Advance {
        /// The body's `seconds`, as sent.
        seconds: Option<Value>,
    },
    /// `GET /deliveries`: the delivery attempts of the journal.
    Deliveries,
    /// `POST /deliveries/:id/redeliver`.
    Redeliver {
        /// The delivery id.
        id: String,
        /// The body's members (`copies`).
        input: Map<String, Value>,
    },
    /// `GET /requests[?after=seq]`: the REST calls of the journal; `None` when `after` is not a
    /// sequence number.
    Requests {
        /// The sequence number to read after (0: all).
        after: Option<u64>,
    },
    /// `GET /journal[?after=seq][&wait=ms]`: a page of the journal; `None` when `after` is not a
    /// sequence number. With `wait`, a long poll: when no entry is numbered above `after`, the face
    /// waits (at most [`MAX_WAIT_MS`]) for the model to change before it answers the page.
    Journal {
        /// The sequence number to read after (0: from the oldest kept).
        after: Option<u64>,
        /// How long to wait for an entry, ms (0: answer at once); `None` when it is not a number
        /// of ms.
        wait_ms: Option<u64>,
    },
    /// `GET /clock`: `{ now, nextDue }`, the clock and the earliest timer due (unix seconds, or
    /// null), so that a console can advance a manual clock to the next timer.
    Clock,
    /// `GET /state`: the model's state as `--state FILE` keeps it.
    State,
    /// `GET /words`: the contract's words and limits (`contract::words_json`), so that a console
    /// spells none of them.
    Words,
    /// `GET /menu`: the menu state.
    MenuState,
    /// `PUT /menu[?brand=id]`: seeds a brand's catalog.
    SeedMenu {
        /// The submission, as JSON text.
        body: String,
        /// The `brand` parameter as a JS number (`Number(text)`), when given.
        brand: Option<f64>,
    },
    /// `GET /menu/stores/:id`: a store's menu read.
    StoreMenu {
        /// The store's remoteId.
        id: String,
    },
    /// `POST /menu/fail`: every menu change of a store fails (or no longer does).
    FailMenu {
        /// The store's remoteId.
        store: String,
        /// `fail` is anything but `false`.
        fail: bool,
        /// The body's `errorCode`, as sent.
        error_code: Option<Value>,
    },
    /// `PUT /faults`: the REST side's faults.
    SetFaults {
        /// The body's members.
        input: Map<String, Value>,
    },
    /// `POST /reset`.
    Reset,
    /// `GET /openapi.json`: the service's OpenAPI document, `servers[0].url` this sandbox's URL.
    OpenApi,
}

/// The controls on one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderAction {
    /// `assign-driver`.
    AssignDriver,
    /// `release-driver`.
    ReleaseDriver,
    /// `ready`: the driver marks it ready.
    MarkReadyByDriver,
    /// `deliver`.
    Deliver,
    /// `cancel`.
    Cancel,
    /// `refund`.
    Refund,
}

impl OrderAction {
    /// Every action with its path segment.
    const ALL: [(OrderAction, &'static str); 6] = [
        (Self::AssignDriver, "assign-driver"),
        (Self::ReleaseDriver, "release-driver"),
        (Self::MarkReadyByDriver, READY),
        (Self::Deliver, "deliver"),
        (Self::Cancel, "cancel"),
        (Self::Refund, "refund"),
    ];

    fn parse(segment: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, s)| *s == segment).map(|(a, _)| *a)
    }

    /// The `action` of the model's [`Control`](super::Control).
    fn name(self) -> &'static str {
        match self {
            Self::AssignDriver => "assignDriver",
            Self::ReleaseDriver => "releaseDriver",
            Self::MarkReadyByDriver => "markReadyByDriver",
            Self::Deliver => "deliver",
            Self::Cancel => "cancel",
            Self::Refund => "refund",
        }
    }
}

/// What a control answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControlReply {
    /// The HTTP status.
    pub status: u16,
    /// The body (JSON text); empty where the effect says the face writes it.
    pub body: String,
    /// What the face does before it answers.
    pub effect: FaceEffect,
    /// The model's state changed (a face that keeps it saves it).
    pub changed: bool,
    /// A line for the face's log, if it keeps one.
    pub log: Option<String>,
    /// The body is a problem document (`application/problem+json`), not the controls' JSON.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub problem: bool,
}

/// The longest a read of the journal waits for a new entry (`wait=ms` is cut to it).
pub const MAX_WAIT_MS: u64 = 30_000;

/// The most reads of the journal a face keeps waiting at once; one more is answered at once.
pub const MAX_WAITERS: u32 = 64;

/// What only a runtime can do, asked of the face by a control.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum FaceEffect {
    /// Nothing: write the status and the body.
    None,
    /// Send what is due, wait until these deliveries have settled, then answer [`then`].
    Settle {
        /// The deliveries the control queued.
        deliveries: Vec<String>,
        /// What to answer afterwards.
        then: Then,
    },
    /// Move the manual clock this many ms on, firing every timer due by then in order (their
    /// deliveries settled), then answer [`then`].
    Advance {
        /// How far.
        ms: i64,
        /// What to answer afterwards.
        then: Then,
    },
    /// Wait until the model changes (a journal entry, a control that changed it) or `ms` pass,
    /// then answer [`then`]; when the face already keeps `limit` such waits, answer at once.
    Wait {
        /// The longest wait, ms (at most [`MAX_WAIT_MS`]).
        ms: u64,
        /// The most waits a face keeps at once ([`MAX_WAITERS`]).
        limit: u32,
        /// What to answer afterwards (the page of the journal).
        then: Then,
    },
    /// Send these attempts (copies of a delivery), report each answer, then answer [`then`].
    Send {
        /// The attempts.
        attempts: Vec<Attempt>,
        /// What to answer afterwards (their journal entries).
        then: Then,
    },
}

/// What a control answers once its effect is carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Then {
    /// The order's detail (`null` when there is none).
    Order {
        /// The order key.
        id: String,
    },
    /// `{ now }`: the clock, unix seconds.
    Now,
    /// A page of the journal, as `GET /journal?after=` answers it.
    Journal {
        /// The sequence number to read after.
        after: u64,
    },
    /// The journal entries of these attempts, as `deliveries()` lists them.
    Attempts {
        /// The attempts' numbers ([`Attempt::attempt`]).
        attempts: Vec<u64>,
    },
}

/// The body of `POST /menu/fail`, its members as sent (others are ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FailMenuBody {
    #[serde(default, deserialize_with = "present")]
    store: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    fail: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error_code: Option<Value>,
}

/// A member that is there, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The answer of `POST /menu/fail`.
#[derive(Serialize)]
struct FailMenuAnswer<'a> {
    store: &'a str,
    fail: bool,
}

/// The HTTP status of a control's error code: the one table.
pub fn status(code: &str) -> u16 {
    match code {
        "NOT_FOUND" => 404,
        "NOT_APPLICABLE" | "LIMIT" => 409,
        "CLOSED" => 503,
        "INTERNAL" => 500,
        _ => 400,
    }
}

/// The reply of an error: `{ error: { code, message } }` with its [`status`].
pub fn error(code: &str, message: &str) -> ControlReply {
    let body = serde_json::json!({ "error": { "code": code, "message": message } }).to_string();
    ControlReply { status: status(code), body, effect: FaceEffect::None, changed: false, log: None, problem: false }
}

fn ok(body: String) -> ControlReply {
    ControlReply { status: 200, body, effect: FaceEffect::None, changed: false, log: None, problem: false }
}

fn invalid(message: &str) -> ControlReply {
    error("INVALID_CONTROL", message)
}

fn argument(message: &str) -> ControlReply {
    error("INVALID_ARGUMENT", message)
}

/// Answers a control request that came over HTTP: the [`guard`] first (the `Host` and `Origin`
/// headers as received, `None` when absent; a refusal is a 403 problem document and nothing
/// runs), then [`handle`]. The faces' HTTP servers call this; their in-process APIs call
/// [`handle`].
#[allow(clippy::too_many_arguments)]
pub fn handle_http(
    service: &mut Service,
    face: &Face,
    method: &str,
    target: &str,
    host: Option<&str>,
    origin: Option<&str>,
    body: &[u8],
    now_ms: i64,
    wall_secs: i64,
) -> ControlReply {
    match face.access.check(true, host, origin) {
        Ok(()) => handle(service, face, method, target, body, now_ms, wall_secs),
        Err(refusal) => forbidden(&refusal, &face.access, method, target),
    }
}

/// The guard of a page the face serves itself beside the controls (the console): `None` when the
/// request may be answered, else the 403 to write.
pub fn page_guard(face: &Face, method: &str, target: &str, host: Option<&str>, origin: Option<&str>) -> Option<ControlReply> {
    face.access.check(false, host, origin).err().map(|refusal| forbidden(&refusal, &face.access, method, target))
}

fn forbidden(refusal: &guard::Refusal, access: &guard::Access, method: &str, target: &str) -> ControlReply {
    let target: String = target.chars().take(200).collect();
    let log = format!("← {method} {target} 403 refused ({}): {}", refusal.code(), refusal.what());
    ControlReply { status: 403, problem: true, log: Some(log), ..ok(refusal.problem(access)) }
}

/// Routes and answers a control request: [`route`], then [`answer`].
#[allow(clippy::too_many_arguments)]
pub fn handle(service: &mut Service, face: &Face, method: &str, target: &str, body: &[u8], now_ms: i64, wall_secs: i64) -> ControlReply {
    match route(method, target, body) {
        Ok(req) => answer(service, face, req, now_ms, wall_secs),
        Err(reply) => reply,
    }
}

/// Reads a control request: `target` is the request's path and query as sent (under [`PREFIX`]).
/// An empty body reads as `{}`.
pub fn route(method: &str, target: &str, body: &[u8]) -> Result<ControlRequest, ControlReply> {
    let (path, query) = split_target(target);
    let path = remove_dot_segments(&path);
    let under = path.get(PREFIX.len()..).unwrap_or("");
    let mut parts = Vec::new();
    for p in under.split('/').filter(|p| !p.is_empty()) {
        parts.push(percent_decode(p).ok_or_else(|| invalid("the path is not valid percent-encoded UTF-8"))?);
    }
    let input = read_body(body)?;
    let not_found = || error("NOT_FOUND", &format!("no control {method} {PREFIX}{under}"));
    let p: Vec<&str> = parts.iter().map(String::as_str).collect();
    let id = |i: usize| parts[i].clone();
    let req = match (method, p.as_slice()) {
        ("GET", []) => ControlRequest::Info,
        ("POST", ["orders"]) => ControlRequest::CreateOrder { input },
        ("GET", ["orders"]) => ControlRequest::Orders,
        ("GET", ["orders", _]) => ControlRequest::Order { id: id(1) },
        ("POST", ["orders", _, action]) => match OrderAction::parse(action) {
            Some(action) => ControlRequest::OnOrder { action, id: id(1), input },
            None => return Err(not_found()),
        },
        ("POST", ["advance"]) => ControlRequest::Advance { seconds: input.get("seconds").cloned() },
        ("GET", ["deliveries"]) => ControlRequest::Deliveries,
        ("POST", ["deliveries", _, "redeliver"]) => ControlRequest::Redeliver { id: id(1), input },
        ("GET", ["requests"]) => ControlRequest::Requests { after: after_param(query) },
        ("GET", ["journal"]) => ControlRequest::Journal { after: after_param(query), wait_ms: wait_param(query) },
        ("GET", ["clock"]) => ControlRequest::Clock,
        ("GET", ["state"]) => ControlRequest::State,
        ("GET", ["words"]) => ControlRequest::Words,
        ("GET", ["menu"]) => ControlRequest::MenuState,
        ("PUT", ["menu"]) => ControlRequest::SeedMenu {
            body: Value::Object(input).to_string(),
            brand: query_param(query, Scope::Brand.as_str()).map(|b| js_number(&b)),
        },
        ("GET", ["menu", "stores", _]) => ControlRequest::StoreMenu { id: id(2) },
        ("POST", ["menu", "fail"]) => {
            let body: FailMenuBody = serde_json::from_value(Value::Object(input)).unwrap_or_default();
            let Some(Value::String(store)) = body.store else {
                return Err(invalid("{ store, errorCode?, fail? } expected"));
            };
            ControlRequest::FailMenu { store, fail: body.fail != Some(Value::Bool(false)), error_code: body.error_code }
        }
        ("PUT", ["faults"]) => ControlRequest::SetFaults { input },
        ("POST", ["reset"]) => ControlRequest::Reset,
        ("GET", ["openapi.json"]) => ControlRequest::OpenApi,
        _ => return Err(not_found()),
    };
    Ok(req)
}

/// The `after` parameter of a read of the journal: absent is 0; otherwise 1 to 15 decimal digits
/// (`None`: not a sequence number).
fn after_param(query: &str) -> Option<u64> {
    match query_param(query, "after") {
        None => Some(0),
        Some(a) if (1..=15).contains(&a.len()) && a.bytes().all(|b| b.is_ascii_digit()) => a.parse().ok(),
        Some(_) => None,
    }
}

/// The `wait` parameter of a read of the journal: absent is 0; otherwise 1 to 15 decimal digits,
/// cut to [`MAX_WAIT_MS`] (`None`: not a number of ms).
fn wait_param(query: &str) -> Option<u64> {
    match query_param(query, "wait") {
        None => Some(0),
        Some(w) if (1..=15).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()) => {
            w.parse::<u64>().ok().map(|w| w.min(MAX_WAIT_MS))
        }
        Some(_) => None,
    }
}

/// Answers a control on the model (its journal included) and what the face said of itself.
pub fn answer(service: &mut Service, face: &Face, req: ControlRequest, now_ms: i64, wall_secs: i64) -> ControlReply {
    match req {
        ControlRequest::Info => ok(info(service, face, now_ms)),
        ControlRequest::CreateOrder { input } => on_order(service, face, "createOrder", None, input, now_ms),
        ControlRequest::Orders => ok(json(&service.orders().iter().map(|o| &o.order).collect::<Vec<_>>())),
        ControlRequest::Order { id } => match service.order(&id) {
            Some(o) => ok(json(&o.order)),
            None => error("NOT_FOUND", &format!("no order {id}")),
        },
        ControlRequest::OnOrder { action, id, input } => on_order(service, face, action.name(), Some(id), input, now_ms),
        ControlRequest::Advance { seconds } => {
            if !face.manual_clock {
                return argument("advance() needs clock: 'manual'");
            }
            match seconds.as_ref().and_then(Value::as_f64) {
                Some(s) if (0.0..=YEAR_SECONDS).contains(&s) => {
                    let then = Then::Now;
                    ControlReply {
                        effect: FaceEffect::Advance { ms: (s * 1000.0).round() as i64, then },
                        changed: true,
                        ..ok(String::new())
                    }
                }
                _ => argument("advance takes a number of seconds from 0 to a year"),
            }
        }
        ControlRequest::Deliveries => ok(service.journal().deliveries_json()),
        ControlRequest::Redeliver { id, input } => {
            if let Some(k) = input.keys().find(|k| *k != "copies") {
                return argument(&format!("unknown option {}: redeliver takes {{ copies }}", json(k)));
            }
            let copies = match input.get("copies") {
                None | Some(Value::Null) => 1.0,
                Some(c) => match c.as_f64() {
                    Some(c) if c.fract() == 0.0 => c,
                    _ => return argument("copies must be an integer from 1 to 100"),
                },
            };
            // As a JS number passed to a u32: modulo 2^32 (the model refuses all but 1 to 100).
            let copies = copies.rem_euclid(4_294_967_296.0) as u32;
            match service.redeliver(&id, copies, wall_secs) {
                Ok(attempts) => {
                    let then = Then::Attempts { attempts: attempts.iter().map(|a| a.attempt).collect() };
                    ControlReply { effect: FaceEffect::Send { attempts, then }, ..ok(String::new()) }
                }
                Err(e) => error(e.code(), &e.to_string()),
            }
        }
        ControlRequest::Requests { after: Some(after) } => ok(service.journal().to_json(after)),
        ControlRequest::Requests { after: None } => argument("requests: after must be a non-negative integer (a seq of the log)"),
        ControlRequest::Journal { after: None, .. } => {
            argument("journal: after must be an integer from 0 to 999999999999999 (a seq of the journal)")
        }
        ControlRequest::Journal { wait_ms: None, .. } => {
            argument("journal: wait must be an integer number of ms (at most 30000 are waited)")
        }
        ControlRequest::Journal { after: Some(after), wait_ms: Some(wait) } => {
            // Wait only while nothing is numbered above `after` (an `after` past the last seq, as
            // after a reset the console did not see, is answered at once: it reads `latest`).
            if wait == 0 || service.journal().last_seq() != after {
                return ok(service.journal().page_json(after));
            }
            let effect = FaceEffect::Wait { ms: wait, limit: MAX_WAITERS, then: Then::Journal { after } };
            ControlReply { effect, ..ok(String::new()) }
        }
        ControlRequest::Clock => {
            let next = service.next_due().map_or(Value::Null, seconds);
            ok(serde_json::json!({ "now": seconds(now_ms), "nextDue": next }).to_string())
        }
        ControlRequest::State => ok(service.export_state()),
        ControlRequest::Words => ok(crate::contract::words_json()),
        ControlRequest::MenuState => ok(json(service.menu_state())),
        ControlRequest::SeedMenu { body, brand } => {
            let brand = brand.unwrap_or(-1.0);
            if !(brand.fract() == 0.0 && brand.abs() <= MAX_SAFE) {
                return argument("seedMenu: brand must be an integer brand id");
            }
            match service.seed_menu((brand >= 0.0).then_some(brand as i64), body.as_bytes()) {
                Ok(counts) => ControlReply { changed: true, ..ok(json(&counts)) },
                Err(e) => error(e.code(), &e.to_string()),
            }
        }
        ControlRequest::StoreMenu { id } => match service.store_menu(&id, now_ms) {
            Ok(body) => {
                let data = serde_json::from_slice::<Value>(&body).ok().and_then(|mut v| v.get_mut("data").map(Value::take));
                ok(json(&data))
            }
            Err(e) => error(e.code(), &e.to_string()),
        },
        ControlRequest::FailMenu { store, fail, error_code } => {
            let code = match error_code {
                None => None,
                Some(Value::String(c)) => Some(c),
                Some(_) => return argument("failMenuChanges: errorCode must be a string"),
            };
            match service.fail_menu_changes(&store, fail.then_some(code)) {
                Ok(()) => ControlReply { changed: true, ..ok(json(&FailMenuAnswer { store: &store, fail })) },
                Err(e) => error(e.code(), &e.to_string()),
            }
        }
        ControlRequest::SetFaults { input } => {
            let text = Value::Object(input).to_string();
            let faults: Faults = match serde_json::from_str(&text) {
                Ok(f) => f,
                Err(e) => return argument(&format!("faults: {e}")),
            };
            match service.set_faults(faults) {
                Ok(()) => ok(format!("{{\"faults\":{text}}}")),
                Err(e) => error(e.code(), &e.to_string()),
            }
        }
        ControlRequest::OpenApi => {
            ok(crate::schema::openapi::render(if face.url.is_empty() { crate::schema::openapi::DEFAULT_BASE_URL } else { &face.url }))
        }
        ControlRequest::Reset => {
            service.reset();
            ControlReply { changed: true, ..ok("{\"reset\":true}".into()) }
        }
    }
}

/// What a control answers once its effect is carried out (the face passes [`Then`] back).
pub fn then(service: &Service, then: &Then, now_ms: i64) -> ControlReply {
    match then {
        Then::Order { id } => ok(service.order(id).map_or_else(|| "null".into(), |o| json(&o.order))),
        Then::Now => ok(serde_json::json!({ "now": seconds(now_ms) }).to_string()),
        Then::Journal { after } => ok(service.journal().page_json(*after)),
        Then::Attempts { attempts } => ok(service.journal().attempts_json(attempts)),
    }
}

/// A control on an order (or the creation of one): the model's [`Control`](super::Control) is
/// the body's members over `{ action, orderKey }`, as JSON text (the model reads it with its own
/// limits and messages).
fn on_order(service: &mut Service, face: &Face, action: &str, id: Option<String>, input: Map<String, Value>, now_ms: i64) -> ControlReply {
    if face.closed {
        return error("CLOSED", "the sandbox is closed");
    }
    let mut control = Map::new();
    control.insert("action".into(), Value::from(action));
    if let Some(id) = &id {
        control.insert("orderKey".into(), Value::from(id.as_str()));
    }
    control.extend(input);
    let line_action = control.get("action").and_then(Value::as_str).unwrap_or(action).to_string();
    let line_key = control.get("orderKey").and_then(Value::as_str).filter(|k| !k.is_empty()).map(str::to_string);
    let out = match service.control_json(&Value::Object(control).to_string(), now_ms) {
        Ok(out) => out,
        Err(e) => return error(e.code(), &e.to_string()),
    };
    let log = format!("• {line_action}{}: {}", line_key.map(|k| format!(" {k}")).unwrap_or_default(), out.note);
    let id = id.or_else(|| out.order.as_ref().map(|o| o.order_key.clone())).unwrap_or_default();
    ControlReply {
        status: 200,
        body: String::new(),
        effect: FaceEffect::Settle { deliveries: out.deliveries, then: Then::Order { id } },
        changed: true,
        log: Some(log),
        problem: false,
    }
}

/// `GET /`: the base URL, the account, the clock and the assumptions, as the face's `info()`.
fn info(service: &Service, face: &Face, now_ms: i64) -> String {
    let config = serde_json::to_value(service.config()).unwrap_or(Value::Null);
    let clients = config.get("clients").and_then(Value::as_array).cloned().unwrap_or_default();
    let pick = |c: &Value, k: &str| c.get(k).cloned().unwrap_or(Value::Null);
    let client_list: Vec<Value> =
        clients.iter().map(|c| serde_json::json!({ "apiKey": pick(c, "apiKey"), "stores": pick(c, "stores") })).collect();
    let stores: Vec<Value> = clients.iter().flat_map(|c| c.get("stores").and_then(Value::as_array).cloned().unwrap_or_default()).collect();
    json(&serde_json::json!({
        "url": face.url,
        "apiKey": clients.first().map(|c| pick(c, "apiKey")).unwrap_or(Value::Null),
        "clients": client_list,
        "secret": pick(&config, "secret"),
        "stores": stores,
        "pos": pick(&config, "pos"),
        "clock": if face.manual_clock { "manual" } else { "real" },
        "now": seconds(now_ms),
        "assumptions": serde_json::to_value(service.options()).unwrap_or(Value::Null),
        "controlPrefix": PREFIX,
    }))
}

/// Unix ms as JS writes `ms / 1000` (an integer without a fraction).
fn seconds(ms: i64) -> Value {
    if ms % 1000 == 0 {
        Value::from(ms / 1000)
    } else {
        Value::from(ms as f64 / 1000.0)
    }
}

/// JSON as JS writes it (`JSON.stringify`): an integral number without a fraction (`0`, not `0.0`).
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_value(value).map_or_else(|_| "null".into(), |v| js_numbers(v).to_string())
}

/// The body as a JSON object (empty: `{}`), its numbers as JS holds them (`1.0` is `1`).
fn read_body(body: &[u8]) -> Result<Map<String, Value>, ControlReply> {
    if body.is_empty() {
        return Ok(Map::new());
    }
    let text = std::str::from_utf8(body).map_err(|e| invalid(&format!("the body is not JSON: the bytes are not UTF-8 ({e})")))?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            invalid("the body is nested too deeply")
        } else {
            invalid(&format!("the body is not JSON: {e}"))
        }
    })?;
    match js_numbers(value) {
        Value::Object(map) => Ok(map),
        _ => Err(invalid("the body must be a JSON object")),
    }
}

/// Integral numbers within JS's safe range as integers, as `JSON.parse` then `JSON.stringify` write them.
fn js_numbers(value: Value) -> Value {
    match value {
        Value::Number(n) if !(n.is_i64() || n.is_u64()) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE => Value::from(f as i64),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(js_numbers).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, js_numbers(v))).collect()),
        v => v,
    }
}

/// The path (up to `?` or `#`, `\` read as `/`) and the query.
fn split_target(target: &str) -> (String, &str) {
    let end = target.find(['?', '#']).unwrap_or(target.len());
    let query = match target.as_bytes().get(end) {
        Some(b'?') => {
            let q = &target[end + 1..];
            &q[..q.find('#').unwrap_or(q.len())]
        }
        _ => "",
    };
    (target[..end].replace('\\', "/"), query)
}

/// A URL path with its `.` and `..` segments resolved (as a URL parser does).
fn remove_dot_segments(path: &str) -> String {
    let is_dot = |s: &str| s == "." || s.eq_ignore_ascii_case("%2e");
    let is_dots = |s: &str| matches!(s.to_ascii_lowercase().as_str(), ".." | ".%2e" | "%2e." | "%2e%2e");
    let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
    let mut out: Vec<&str> = Vec::new();
    let last = segments.len().saturating_sub(1);
    for (i, s) in segments.iter().enumerate() {
        if is_dots(s) {
            out.pop();
            if i == last {
                out.push("");
            }
        } else if is_dot(s) {
            if i == last {
                out.push("");
            }
        } else {
            out.push(s);
        }
    }
    format!("/{}", out.join("/"))
}

/// `decodeURIComponent`: `None` for a bad escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok().filter(|_| hex.bytes().all(|c| c.is_ascii_hexdigit()))?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The first value of `name` in a query (`+` is a space, escapes decoded, bad bytes replaced), as
/// `URLSearchParams.get` reads it.
fn query_param(query: &str, name: &str) -> Option<String> {
    query.split('&').filter(|p| !p.is_empty()).find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (form_decode(k) == name).then(|| form_decode(v))
    })
}

fn form_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if b.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("00");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `Number(text)` of JS: blank is 0, `Infinity` and `0x…`/`0o…`/`0b…` are read, anything else
/// that is not a decimal number is NaN.
fn js_number(text: &str) -> f64 {
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return 0.0;
    }
    let radix = [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)];
    if let Some((digits, r)) = radix.iter().find_map(|(p, r)| t.strip_prefix(p).map(|d| (d, *r))) {
        return if !digits.is_empty() && digits.chars().all(|c| c.is_digit(r)) {
            digits.chars().fold(0.0, |n, c| n * f64::from(r) + f64::from(c.to_digit(r).unwrap_or(0)))
        } else {
            f64::NAN
        };
    }
    match t.strip_prefix(['+', '-']).unwrap_or(t) {
        "Infinity" => {
            if t.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        u if u.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')) => t.parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests;
