//! A harness for the service model (`poscheck::service`): a clock, REST calls whose every answer
//! is held to the toolkit's own checkers, and a fake POS that verifies each delivery attempt's
//! signature and body and answers it as a test scripts. Used by tests/service.rs and
//! tests/service_props.rs (included with `#[path]`, so the other test crates do not build it).
#![allow(dead_code)]

use poscheck::diagnostic::{Report, Severity};
use poscheck::http::Headers;
use poscheck::order::{check_order, CheckOptions};
use poscheck::payload::{classify_problem, validate_payload, PayloadKind, PayloadOptions, ProblemInput};
use poscheck::service::{Answer, Attempt, ConfigInput, ControlOutcome, DeliveryKind, Options, Request, Service, Settled};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// The model's clock at the start of every test: 2026-09-21T14:13:20Z, 20 s into a minute.
pub const T0: i64 = 1_790_000_000_000;
/// `T0` written out by hand (not by the code under test).
pub const T0_ISO: &str = "2026-09-21T14:13:20Z";

/// ISO 8601 UTC (seconds) of unix milliseconds, computed here (civil-from-days, H. Hinnant), not
/// by the crate, so that timestamps in answers are compared with an independent value.
pub fn iso(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The JSON of a body (panics with the text when it is not JSON).
pub fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

/// The last path segment of a problem's `type` (`None` when `type` is null).
pub fn suffix(problem: &Value) -> Option<String> {
    problem["type"].as_str().map(|t| t.rsplit('/').next().unwrap_or_default().to_string())
}

/// An Idempotency-Key in the UUID v4 format, numbered.
pub fn uuid(n: u64) -> String {
    format!("{:08x}-0000-4000-8000-{:012x}", n >> 48, n & 0xffff_ffff_ffff)
}

fn errors_of(report: &Report) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{} at {}: {}", d.rule_id, d.path, d.message))
        .collect()
}

/// The payload kind of a REST answer's body, from the request.
pub fn answer_kind(method: &str, target: &str) -> Option<PayloadKind> {
    let path = target.split('?').next().unwrap_or_default();
    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method, segs.as_slice()) {
        ("GET", ["api", "v1", "Orders"]) => Some(PayloadKind::OrderList),
        ("GET", ["api", "v1", "Orders", _]) => Some(PayloadKind::OrderDetail),
        ("POST", ["api", "v1", "Orders", _, "accept"]) => Some(PayloadKind::AcceptAnswer),
        ("POST", ["api", "v1", "Orders", _, "reject"]) => Some(PayloadKind::RejectAnswer),
        ("PUT", ["api", "v1", "Orders", _, "status"]) => Some(PayloadKind::StatusAnswer),
        ("GET", ["api", "v1", "menu", "stores", _]) => Some(PayloadKind::StoreMenu),
        ("GET", ["api", "v1", "menu", "changes", _]) => Some(PayloadKind::MenuChange),
        ("GET", ["api", "v1", "menu", "capabilities"]) => Some(PayloadKind::Capabilities),
        ("PUT", ["api", "v1", "menu"]) | ("POST", ["api", "v1", "menu", "preview"]) => Some(PayloadKind::Envelope),
        ("PUT" | "PATCH" | "POST", ["api", "v1", "menu", ..]) => Some(PayloadKind::MenuWriteAccepted),
        _ => None,
    }
}

/// Holds an answer to the toolkit's checkers and returns its JSON: a problem (4xx/5xx) is
/// classified with `classify_problem` and must carry no error diagnostic, its `status` field the
/// HTTP status, a 429 a Retry-After; a success body is validated with `validate_payload` as the
/// endpoint's kind (no error diagnostic), and an order detail with `check_order` too.
pub fn check_answer(method: &str, target: &str, answer: &Answer) -> Value {
    let body = json(&answer.body);
    let text = String::from_utf8_lossy(&answer.body);
    if answer.status >= 400 {
        assert!(answer.problem, "a {} must be a problem+json answer: {text}", answer.status);
        assert_eq!(body["status"], Value::from(answer.status), "{text}");
        assert!(body["title"].is_string() && body["traceId"].is_string() && body.get("detail").is_some(), "{text}");
        assert!(body.get("meta").is_some() && body.get("type").is_some(), "{text}");
        let mut headers = Headers::new();
        headers.push("Content-Type", "application/problem+json");
        if let Some(s) = answer.retry_after {
            headers.push("Retry-After", s.to_string());
        }
        assert_eq!(answer.status == 429, answer.retry_after.is_some(), "Retry-After goes with 429 only: {text}");
        let c = classify_problem(&ProblemInput { status: answer.status, headers, body: answer.body.clone(), now: None });
        assert!(
            c.report.ok,
            "classify_problem finds errors in the {} problem of {method} {target}: {:?}\n{text}",
            answer.status,
            errors_of(&c.report)
        );
        return body;
    }
    assert!(!answer.problem, "{text}");
    assert!(body["message"].is_string() && body["data"].is_object(), "the 2xx envelope is {{ message, data }}: {text}");
    let kind = answer_kind(method, target).unwrap_or_else(|| panic!("a 2xx on {method} {target}"));
    let report = validate_payload(&answer.body, &PayloadOptions { kind: Some(kind), path: Some(target.to_string()), ..Default::default() });
    assert!(report.ok, "validate_payload({kind:?}) finds errors in the answer of {method} {target}: {:?}\n{text}", errors_of(&report));
    if kind == PayloadKind::OrderDetail {
        let report = check_order(&answer.body, &CheckOptions::default());
        assert!(report.ok, "check_order finds errors: {:?}\n{text}", errors_of(&report));
    }
    body
}

/// Checks an order detail (`data`, bare) with `check_order`.
pub fn check_detail(order: &Value) {
    let bytes = serde_json::to_vec(order).unwrap();
    let report = check_order(&bytes, &CheckOptions::default());
    assert!(report.ok, "check_order finds errors: {:?}\n{order}", errors_of(&report));
}

/// How the fake POS answers one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// 200 (with a remoteOrderId on the creation webhook), within 40 ms.
    Ok,
    /// This HTTP status, within 40 ms, body `{"error":"…"}`.
    Status(u16),
    /// No answer (connection refused, reset, timed out).
    NoAnswer,
    /// 200 (with a remoteOrderId) after this many milliseconds.
    Slow(u64),
    /// 200 with `{}` (no remoteOrderId).
    OkWithoutRemoteId,
}

/// One attempt the POS received.
#[derive(Debug, Clone)]
pub struct Received {
    pub attempt: Attempt,
    /// The body, parsed.
    pub body: Value,
    /// The path under the POS base URL.
    pub path: String,
    /// The signature timestamp.
    pub timestamp: u64,
    /// The delivery id had been handled already (a duplicate the POS deduplicated).
    pub duplicate: bool,
    pub reply: Reply,
    /// What the model made of the answer.
    pub settled: Option<Settled>,
}

/// A POS: verifies every attempt (signature, headers, body, route) and answers it.
#[derive(Clone)]
pub struct Pos {
    pub secret: String,
    pub base: String,
    /// Every attempt received, in order.
    pub received: Vec<Received>,
    /// Delivery id → remoteOrderId given (the POS deduplicates on the delivery id).
    handled: HashMap<String, Option<String>>,
    /// orderKey → the remoteOrderId this POS gave.
    pub remote_ids: HashMap<String, String>,
    /// Replies for the next attempts, in order; then `default`.
    pub script: VecDeque<Reply>,
    pub default: Reply,
    next_remote: u32,
}

impl Pos {
    pub fn new(secret: &str, base: &str) -> Self {
        Self {
            secret: secret.into(),
            base: base.into(),
            received: Vec::new(),
            handled: HashMap::new(),
            remote_ids: HashMap::new(),
            script: VecDeque::new(),
            default: Reply::Ok,
            next_remote: 0,
        }
    }

    /// Verifies `a` as a receiver must (at `wall` unix seconds) and decides the answer:
    /// (status, body, elapsed ms).
    pub fn receive(&mut self, a: &Attempt, wall: i64) -> (u16, Vec<u8>, u64, Received) {
        let headers = Headers::from_pairs(a.headers.iter().cloned());
        let verified = poscheck::signature::verify(a.body.as_bytes(), &headers, &[self.secret.as_bytes()], wall as u64, 300)
            .unwrap_or_else(|e| panic!("the POS cannot verify attempt {} of {}: {e}", a.number, a.delivery_id));
        assert_eq!(verified.delivery_id.as_deref(), Some(a.delivery_id.as_str()), "X-Service-Delivery-Id");
        assert!(is_uuid_v4(&a.delivery_id), "X-Service-Delivery-Id is a UUID: {}", a.delivery_id);
        assert_eq!(headers.get("Content-Type"), Some("application/json"));
        let path = a.url.strip_prefix(&self.base).unwrap_or_else(|| panic!("{} is not under {}", a.url, self.base)).to_string();
        let body: Value = json(a.body.as_bytes());
        let order_key = a.order_key.clone().unwrap_or_default();
        if a.kind != DeliveryKind::MenuChange {
            assert!(!order_key.is_empty(), "an order delivery names its order");
            assert_eq!(body["orderKey"].as_str(), Some(order_key.as_str()), "the body's orderKey: {}", a.body);
        }
        let kind = match a.kind {
            DeliveryKind::MenuChange => {
                assert_eq!(a.method, "POST");
                assert_eq!(headers.get("X-Service-Event-Type"), None, "the menu change webhook declares no X-Service-Event-Type");
                let key = body["changeKey"].as_str().expect("changeKey");
                assert_eq!(path, format!("/v1/menu/change/{key}"), "the menu change route");
                PayloadKind::MenuChangeCompleted
            }
            DeliveryKind::OrderCreated => {
                assert_eq!(a.method, "POST");
                assert_eq!(verified.event_type.as_deref(), Some("order.created"), "X-Service-Event-Type of the creation webhook");
                let store = body["storeRemoteId"].as_str().expect("storeRemoteId");
                assert_eq!(path, format!("/v1/order/{store}"), "the creation route");
                PayloadKind::OrderCreated
            }
            DeliveryKind::OrderUpdate => {
                assert_eq!(a.method, "PUT");
                assert_eq!(headers.get("X-Service-Event-Type"), None, "the update webhook declares no X-Service-Event-Type");
                let remote = self
                    .remote_ids
                    .get(&order_key)
                    .unwrap_or_else(|| panic!("an update for {order_key}, whose creation this POS never answered"));
                assert_eq!(body["remoteOrderId"].as_str(), Some(remote.as_str()), "the update's remoteOrderId is the POS's");
                assert!(path.starts_with("/v1/order/") && path.ends_with(&format!("/{remote}/events")), "the update route: {path}");
                assert!(body["event"].is_string() && body["occurredAt"].is_string(), "{}", a.body);
                PayloadKind::OrderUpdateEvent
            }
        };
        let report =
            validate_payload(a.body.as_bytes(), &PayloadOptions { kind: Some(kind), path: Some(path.clone()), ..Default::default() });
        if kind == PayloadKind::OrderCreated {
            // The creation body carries the orderKey at its top level (where the envelope holds it
            // is not shown): the validator must accept that field, and nothing else may be flagged.
            let on_order_key: Vec<_> = report.diagnostics.iter().filter(|d| d.path == "orderKey").map(|d| d.message.clone()).collect();
            assert!(on_order_key.is_empty(), "the validator flags the creation body's top-level orderKey: {on_order_key:?}");
        }
        // Infos are allowed (e.g. `order/expires-at-null` on an auto-accept store's order: the
        // payload alone cannot tell); errors and warnings are not.
        assert!(
            report.diagnostics.iter().all(|d| d.severity == Severity::Info),
            "validate_payload({kind:?}, {path}) finds {:?}\n{}",
            report.diagnostics.iter().map(|d| format!("{:?} {} at {}: {}", d.severity, d.rule_id, d.path, d.message)).collect::<Vec<_>>(),
            a.body
        );
        let duplicate = self.handled.contains_key(&a.delivery_id);
        let reply = self.script.pop_front().unwrap_or(self.default);
        // A remoteOrderId is drawn when the POS answers 200 to a creation it has not handled
        // (a duplicate gets the same one again).
        let answers_ok = matches!(reply, Reply::Ok | Reply::Slow(_));
        let remote = match (a.kind, self.handled.get(&a.delivery_id)) {
            (DeliveryKind::OrderCreated, Some(Some(r))) => Some(r.clone()),
            (DeliveryKind::OrderCreated, _) if answers_ok => {
                self.next_remote += 1;
                Some(format!("POS-{}", self.next_remote))
            }
            _ => None,
        };
        let ok_body = |r: &Option<String>| match r {
            Some(r) => format!(r#"{{"remoteOrderId":"{r}"}}"#).into_bytes(),
            None => b"{}".to_vec(),
        };
        let (status, out, elapsed) = match reply {
            Reply::Ok => (200, ok_body(&remote), 40),
            Reply::Slow(ms) => (200, ok_body(&remote), ms),
            Reply::OkWithoutRemoteId => (200, b"{}".to_vec(), 40),
            Reply::Status(s) => (s, br#"{"error":"pos failure"}"#.to_vec(), 40),
            Reply::NoAnswer => (0, Vec::new(), 30_000),
        };
        if answers_ok {
            self.handled.insert(a.delivery_id.clone(), remote.clone());
            if let Some(r) = remote {
                self.remote_ids.entry(order_key).or_insert(r);
            }
        }
        let received = Received { attempt: a.clone(), body, path, timestamp: verified.timestamp, duplicate, reply, settled: None };
        (status, out, elapsed, received)
    }

    /// The attempts received for delivery `id`.
    pub fn of(&self, id: &str) -> Vec<&Received> {
        self.received.iter().filter(|r| r.attempt.delivery_id == id).collect()
    }

    /// The update events received for `order_key` (first attempts and retries alike), in order.
    pub fn events(&self, order_key: &str) -> Vec<Value> {
        self.received
            .iter()
            .filter(|r| r.attempt.kind == DeliveryKind::OrderUpdate && r.attempt.order_key.as_deref() == Some(order_key))
            .map(|r| r.body.clone())
            .collect()
    }
}

pub fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && b.iter().enumerate().all(|(i, c)| [8, 13, 18, 23].contains(&i) || matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        && b[14] == b'4'
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
}

/// A service, its clock, the first client's key and a POS.
#[derive(Clone)]
pub struct Harness {
    pub sb: Service,
    /// The model's clock (unix ms).
    pub now: i64,
    pub key: String,
    pub pos: Pos,
    pub next_key: u64,
}

impl Harness {
    pub fn new(config: Option<ConfigInput>, options: Options) -> Self {
        Self::with_seed(config, options, 7)
    }

    pub fn with_seed(config: Option<ConfigInput>, options: Options, seed: u64) -> Self {
        let sb = Service::new(config, options, seed).expect("a valid config");
        let key = sb.config().clients[0].api_key.clone();
        let pos = Pos::new(&sb.config().secret, &sb.config().pos);
        Self { sb, now: T0, key, pos, next_key: 0 }
    }

    /// The default account and options.
    pub fn default_account() -> Self {
        Self::new(None, Options::default())
    }

    /// Moves the clock by `secs` seconds (and no timer fires until [`pump`](Self::pump)).
    pub fn advance(&mut self, secs: i64) {
        self.now += secs * 1000;
    }

    /// A fresh Idempotency-Key.
    pub fn fresh_key(&mut self) -> String {
        self.next_key += 1;
        uuid(self.next_key)
    }

    /// A request with every header a POS sends, by client `api_key`, checked.
    pub fn send_as(&mut self, api_key: &str, method: &str, target: &str, idem: Option<&str>, body: &[u8]) -> (Answer, Value) {
        let req = Request {
            method,
            target,
            api_key: Some(api_key),
            schema_version: Some("1.0"),
            idempotency_key: idem,
            content_type: (!body.is_empty()).then_some("application/json"),
            body,
        };
        self.request(&req)
    }

    /// A request with every header, by the first client, checked.
    pub fn send(&mut self, method: &str, target: &str, idem: Option<&str>, body: &[u8]) -> (Answer, Value) {
        let key = self.key.clone();
        self.send_as(&key, method, target, idem, body)
    }

    /// Any request, checked (the answer's body by the toolkit's checkers).
    pub fn request(&mut self, req: &Request) -> (Answer, Value) {
        let answer = self.sb.handle(req, self.now);
        let body = check_answer(req.method, req.target, &answer);
        (answer, body)
    }

    /// A mutation with a fresh Idempotency-Key.
    pub fn mutate(&mut self, method: &str, target: &str, body: &[u8]) -> (Answer, Value) {
        let k = self.fresh_key();
        self.send(method, target, Some(&k), body)
    }

    pub fn accept(&mut self, order_key: &str) -> (Answer, Value) {
        self.mutate("POST", &format!("/api/v1/Orders/{order_key}/accept"), b"{}")
    }

    pub fn reject(&mut self, order_key: &str, body: &str) -> (Answer, Value) {
        self.mutate("POST", &format!("/api/v1/Orders/{order_key}/reject"), body.as_bytes())
    }

    pub fn status(&mut self, order_key: &str, body: &str) -> (Answer, Value) {
        self.mutate("PUT", &format!("/api/v1/Orders/{order_key}/status"), body.as_bytes())
    }

    /// `GET /api/v1/Orders/{orderKey}`: must be 200; its `data`, checked.
    pub fn detail(&mut self, order_key: &str) -> Value {
        let (a, body) = self.send("GET", &format!("/api/v1/Orders/{order_key}"), None, b"");
        assert_eq!(a.status, 200, "{body}");
        let data = body["data"].clone();
        // The detail is the model's order, as the model keeps it.
        assert_eq!(data, self.sb.order(order_key).expect("the order exists").order.to_value());
        data
    }

    /// `GET /api/v1/Orders{query}`: must be 200; its `data`.
    pub fn list(&mut self, query: &str) -> Value {
        let (a, body) = self.send("GET", &format!("/api/v1/Orders{query}"), None, b"");
        assert_eq!(a.status, 200, "{body}");
        body["data"].clone()
    }

    /// A control (its JSON), which must succeed.
    pub fn control(&mut self, control: Value) -> ControlOutcome {
        let text = control.to_string();
        self.sb.control_json(&text, self.now).unwrap_or_else(|e| panic!("control {text} failed: {e}"))
    }

    /// A customer orders at `store`; the creation webhook is not sent yet. Returns the orderKey.
    pub fn place(&mut self, store: &str) -> String {
        let out = self.control(serde_json::json!({ "action": "createOrder", "store": store }));
        assert_eq!(out.deliveries.len(), 1, "the creation webhook is queued");
        out.order.expect("the order").order_key
    }

    /// Places an order and lets the POS answer the creation webhook (200 with a remoteOrderId).
    pub fn create(&mut self, store: &str) -> String {
        let key = self.place(store);
        let got = self.pump();
        assert!(got.iter().any(|r| r.attempt.kind == DeliveryKind::OrderCreated && r.attempt.order_key.as_deref() == Some(&key)));
        key
    }

    /// Fires what is due now; the POS receives and answers every attempt (signed at the model's
    /// clock, which is also the POS's wall clock here); the model settles each answer.
    pub fn pump(&mut self) -> Vec<Received> {
        let wall = self.now.div_euclid(1000);
        let mut out = Vec::new();
        for a in self.sb.due(self.now, wall) {
            let (status, body, elapsed, mut received) = self.pos.receive(&a, wall);
            received.settled = self.sb.answered(a.attempt, status, &body, elapsed, self.now);
            assert!(received.settled.is_some(), "the model settles every attempt it sent");
            self.pos.received.push(received.clone());
            out.push(received);
        }
        out
    }

    /// The order as the model keeps it (the detail's data).
    pub fn order(&self, order_key: &str) -> Value {
        self.sb.order(order_key).expect("the order exists").order.to_value()
    }
}
