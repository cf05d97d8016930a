#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the service model (`poscheck::service`):
//!
//! - Random sequences of REST calls (accept, reject, PUT status with good and bad bodies,
//!   Idempotency-Keys drawn from a small pool), the other actors' controls, clock moves and POS
//!   answers. Before every REST call on an order the test computes, from the order as the model
//!   holds it at that moment, what the toolkit predicts (`validate_request` for the stateless
//!   checks, `order::predict_request` for the state), and the model's answer must be exactly that
//!   (status, problem type, title, detail, meta; or the 202's data), or the earlier answer byte for
//!   byte when it is an idempotency replay, or an `idempotency-conflict`.
//! - Determinism: the same seed and inputs give the same bytes; `import_state(export_state())`
//!   continues identically.
//! - Hostile requests (random method, target, headers, bytes) never panic and are 4xx problems
//!   unless the toolkit itself says the request is valid; random control JSON is an error.

#[path = "common/sandbox.rs"]
mod sandbox;

use poscheck::http::Headers;
use poscheck::order::{predict_request, Action};
use poscheck::payload::{self, validate_request};
use poscheck::service::{Answer, Options, Request, Service};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use sandbox::{check_detail, iso, suffix, uuid, Harness, Reply, T0};
use serde_json::{json, Value};
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------------
// The operations.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Accept,
    Reject,
    Status,
}

#[derive(Debug, Clone, Copy)]
enum Idem {
    /// A key never used before.
    Fresh,
    /// One of a pool of three (replays and conflicts).
    Pool(u8),
    /// No Idempotency-Key header.
    Missing,
}

#[derive(Debug, Clone)]
enum Op {
    /// A REST call on the order `order` (an index into the orders placed, modulo their number;
    /// `None`: a well-formed key of no order).
    Rest { verb: Verb, order: Option<usize>, body: usize, idem: Idem, schema: bool },
    /// The last REST call again, byte for byte (a POS retrying the same attempt).
    Retry,
    /// GET the detail.
    Detail { order: usize },
    /// GET the list, filtered by a status or not.
    List { status: Option<&'static str> },
    /// A customer orders.
    Create { auto_accept: bool, pickup: bool },
    /// Another actor: 0 assign, 1 assign with a code, 2 release, 3 driver marks ready, 4 deliver,
    /// 5 customer cancels, 6 operator cancels, 7 refund.
    Control { kind: u8, order: usize },
    /// The clock moves (and the face pumps, or not: timers may be left unfired).
    Clock { ms: i64, pump: bool },
    /// The face pumps; the POS answers this way.
    Pump { reply: Reply },
}

const ACCEPT_BODIES: &[&str] = &["{}", "", "{\"remoteOrderId\":\"R-1\"}", "[]", "{", "{\"note\":1}", "{}   "];
const REJECT_BODIES: &[&str] = &[
    r#"{"reasonCode":"STORE_CLOSED"}"#,
    r#"{"reasonCode":"ITEM_OUT_OF_STOCK","message":"no buns"}"#,
    r#"{"reasonCode":"NOT_A_CODE"}"#,
    "{}",
    r#"{"reasonCode":null}"#,
    r#"{"reasonCode":3}"#,
    "",
    r#"{"reasonCode":"PRICE_MISMATCH","message":5}"#,
    r#"{"reasonCode":"SYSTEM_ISSUE","extra":true}"#,
];
/// `{T-48h}`, `{T-10m}`, `{T+1h}`, `{T+2m}` are replaced with the clock at the call.
const STATUS_BODIES: &[&str] = &[
    r#"{"status":"ready"}"#,
    r#"{"status":"handed_over"}"#,
    r#"{"status":"preparing"}"#,
    r#"{"status":"cancelled"}"#,
    r#"{"status":"Ready"}"#,
    r#"{"status":"HANDED_OVER"}"#,
    "{}",
    r#"{"status":5}"#,
    "not json",
    "",
    r#"{"status":"ready","occurredAt":"{T-48h}"}"#,
    r#"{"status":"handed_over","occurredAt":"{T+1h}"}"#,
    r#"{"status":"ready","occurredAt":"{T-10m}"}"#,
    r#"{"status":"handed_over","occurredAt":"{T+2m}"}"#,
    r#"{"status":"ready","occurredAt":"yesterday"}"#,
    r#"{"status":"ready","occurredAt":null}"#,
];

fn bodies(verb: Verb) -> &'static [&'static str] {
    match verb {
        Verb::Accept => ACCEPT_BODIES,
        Verb::Reject => REJECT_BODIES,
        Verb::Status => STATUS_BODIES,
    }
}

/// How many of the first bodies of `bodies(verb)` the contract takes.
fn good_bodies(verb: Verb) -> usize {
    match verb {
        Verb::Accept => 1,
        Verb::Reject => 3,
        Verb::Status => 2,
    }
}

fn op() -> impl Strategy<Value = Op> {
    let verb = prop_oneof![Just(Verb::Accept), Just(Verb::Reject), Just(Verb::Status)];
    let idem = prop_oneof![5 => Just(Idem::Fresh), 4 => (0u8..3).prop_map(Idem::Pool), 1 => Just(Idem::Missing)];
    // Mostly bodies the contract takes (the first of each list), the others too.
    let body = prop_oneof![3 => (0usize..64).prop_map(|i| (true, i)), 2 => (0usize..64).prop_map(|i| (false, i))];
    let rest = (verb, prop::option::weighted(0.95, 0usize..16), body, idem, prop::bool::weighted(0.95)).prop_map(
        |(verb, order, (good, i), idem, schema)| {
            let n = if good { good_bodies(verb) } else { bodies(verb).len() };
            Op::Rest { verb, order, body: i % n, idem, schema }
        },
    );
    let status = prop::option::of(prop::sample::select(vec!["Pending", "Preparing", "Ready", "HandedOver", "Rejected", "Cancelled"]));
    let reply = prop_oneof![
        6 => Just(Reply::Ok),
        1 => Just(Reply::Status(500)),
        1 => Just(Reply::NoAnswer),
        1 => Just(Reply::Slow(31_000)),
        1 => Just(Reply::OkWithoutRemoteId),
    ];
    prop_oneof![
        8 => rest,
        2 => Just(Op::Retry),
        1 => (0usize..16).prop_map(|order| Op::Detail { order }),
        1 => status.prop_map(|status| Op::List { status }),
        3 => (prop::bool::ANY, prop::bool::weighted(0.2)).prop_map(|(auto_accept, pickup)| Op::Create { auto_accept, pickup }),
        3 => (0u8..8, 0usize..16).prop_map(|(kind, order)| Op::Control { kind, order }),
        3 => (0i64..400_000, prop::bool::weighted(0.7)).prop_map(|(ms, pump)| Op::Clock { ms, pump }),
        2 => reply.prop_map(|reply| Op::Pump { reply }),
    ]
}

// ---------------------------------------------------------------------------------------------
// Running them, with the prediction checked.

/// What the model has cached per Idempotency-Key, as the test saw it.
struct Cached {
    method: &'static str,
    target: String,
    body: Vec<u8>,
    answer: Answer,
}

struct Run {
    h: Harness,
    keys: Vec<String>,
    cache: HashMap<String, Cached>,
    fresh: u64,
    /// Every answer, attempt and outcome, serialized (for the determinism properties).
    log: Vec<String>,
    /// How many REST calls were answered from each source.
    seen: HashMap<&'static str, usize>,
    /// The last REST call.
    last: Option<LastCall>,
}

/// A REST call as sent: verb, orderKey, body, Idempotency-Key, whether the schema version was sent.
type LastCall = (Verb, String, Vec<u8>, Option<String>, bool);

fn options(timeout_job_delay_seconds: i64) -> Options {
    Options { rate_limits: false, timeout_job_delay_seconds, acceptance_window_seconds: 300, ..Options::default() }
}

impl Run {
    fn new(seed: u64, delay: i64) -> Self {
        Run {
            h: Harness::with_seed(None, options(delay), seed),
            keys: Vec::new(),
            cache: HashMap::new(),
            fresh: 0,
            log: Vec::new(),
            seen: HashMap::new(),
            last: None,
        }
    }

    fn pick(&self, i: usize) -> Option<String> {
        (!self.keys.is_empty()).then(|| self.keys[i % self.keys.len()].clone())
    }

    fn body_of(&self, verb: Verb, i: usize) -> Vec<u8> {
        let now = self.h.now;
        bodies(verb)[i]
            .replace("{T-48h}", &iso(now - 48 * 3_600_000))
            .replace("{T-10m}", &iso(now - 600_000))
            .replace("{T+1h}", &iso(now + 3_600_000))
            .replace("{T+2m}", &iso(now + 120_000))
            .into_bytes()
    }

    fn step(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match op {
            Op::Rest { verb, order, body, idem, schema } => {
                let key = match order {
                    Some(i) => match self.pick(*i) {
                        Some(k) => k,
                        None => return Ok(()),
                    },
                    None => "ord_0000000000000000".to_string(),
                };
                let bytes = self.body_of(*verb, *body);
                let idem_key = match idem {
                    Idem::Fresh => {
                        self.fresh += 1;
                        Some(uuid(1_000_000 + self.fresh))
                    }
                    Idem::Pool(i) => Some(uuid(u64::from(*i))),
                    Idem::Missing => None,
                };
                self.last = Some((*verb, key.clone(), bytes.clone(), idem_key.clone(), *schema));
                self.rest(*verb, key, bytes, idem_key, *schema)?;
            }
            Op::Retry => {
                if let Some((verb, key, bytes, idem_key, schema)) = self.last.clone() {
                    self.rest(verb, key, bytes, idem_key, schema)?;
                }
            }
            Op::Detail { order } => {
                if let Some(key) = self.pick(*order) {
                    let before = self.h.order(&key);
                    let (a, body) = self.h.send("GET", &format!("/api/v1/Orders/{key}"), None, b"");
                    prop_assert_eq!(a.status, 200);
                    prop_assert_eq!(&body["data"], &before);
                    self.log.push(String::from_utf8_lossy(&a.body).into_owned());
                }
            }
            Op::List { status } => {
                let query = status.map_or("?PageSize=100".to_string(), |s| format!("?PageSize=100&Status={s}"));
                let data = self.h.list(&query);
                let got: Vec<&str> = data["items"].as_array().unwrap().iter().map(|i| i["orderKey"].as_str().unwrap()).collect();
                let want: Vec<&str> =
                    self.keys.iter().rev().filter(|k| status.is_none_or(|s| self.h.order(k)["status"] == s)).map(String::as_str).collect();
                prop_assert_eq!(got, want);
                prop_assert_eq!(&data["hasMore"], &json!(false));
            }
            Op::Create { auto_accept, pickup } => {
                let store = if *auto_accept { "STORE-2" } else { "STORE-1" };
                let out =
                    self.h.control(json!({ "action": "createOrder", "store": store, "type": if *pickup { "pickup" } else { "delivery" } }));
                let order = out.order.unwrap();
                self.log.push(serde_json::to_string(&out.deliveries).unwrap());
                self.keys.push(order.order_key);
            }
            Op::Control { kind, order } => {
                let Some(key) = self.pick(*order) else { return Ok(()) };
                let control = match kind {
                    0 => json!({ "action": "assignDriver", "orderKey": key }),
                    1 => {
                        json!({ "action": "assignDriver", "orderKey": key, "fullName": "Bo", "phone": "+593990000000", "code": format!("C-{}", self.h.now % 97) })
                    }
                    2 => json!({ "action": "releaseDriver", "orderKey": key }),
                    3 => json!({ "action": "markReadyByDriver", "orderKey": key }),
                    4 => json!({ "action": "deliver", "orderKey": key }),
                    5 => json!({ "action": "cancel", "orderKey": key }),
                    6 => json!({ "action": "cancel", "orderKey": key, "by": "operator", "reason": "store unreachable" }),
                    _ => json!({ "action": "refund", "orderKey": key }),
                };
                let before = self.h.order(&key);
                match self.h.sb.control_json(&control.to_string(), self.h.now) {
                    Ok(out) => {
                        prop_assert_eq!(out.order.as_ref().map(|o| o.to_value()), Some(self.h.order(&key)));
                        // A driver is not a status: the driver cycle never moves it; the driver's
                        // ready, the confirmed delivery (which closes an order the merchant never
                        // handed over) and the cancellations do.
                        let after = self.h.order(&key);
                        if before["status"] != after["status"] {
                            prop_assert!(matches!(kind, 3..=7), "{control} moved {} → {}", before["status"], after["status"]);
                        }
                        self.log.push(serde_json::to_string(&out.deliveries).unwrap());
                    }
                    Err(e) => {
                        // A well-formed control is carried out or does not apply; never invalid.
                        prop_assert!(e.code() == "NOT_APPLICABLE", "{control}: {} {e}", e.code());
                        prop_assert_eq!(self.h.order(&key), before);
                        self.log.push(e.to_string());
                    }
                }
            }
            Op::Clock { ms, pump } => {
                self.h.now += ms;
                if *pump {
                    self.pump()?;
                }
            }
            Op::Pump { reply } => {
                self.h.pos.default = *reply;
                self.pump()?;
                self.h.pos.default = Reply::Ok;
            }
        }
        // Every order the model holds passes the toolkit's order checker.
        for key in &self.keys {
            check_detail(&self.h.order(key));
        }
        Ok(())
    }

    fn pump(&mut self) -> Result<(), TestCaseError> {
        for r in self.h.pump() {
            self.log.push(serde_json::to_string(&r.attempt).unwrap());
            self.log.push(serde_json::to_string(&r.settled).unwrap());
        }
        Ok(())
    }

    fn rest(&mut self, verb: Verb, key: String, bytes: Vec<u8>, idem_key: Option<String>, schema: bool) -> Result<(), TestCaseError> {
        let (method, target) = match verb {
            Verb::Accept => ("POST", format!("/api/v1/Orders/{key}/accept")),
            Verb::Reject => ("POST", format!("/api/v1/Orders/{key}/reject")),
            Verb::Status => ("PUT", format!("/api/v1/Orders/{key}/status")),
        };
        let now_secs = self.h.now.div_euclid(1000);
        let api_key = self.h.key.clone();
        let req = Request {
            method,
            target: &target,
            api_key: Some(&api_key),
            schema_version: schema.then_some("1.0"),
            idempotency_key: idem_key.as_deref(),
            content_type: Some("application/json"),
            body: &bytes,
        };

        // BEFORE the call: what the toolkit predicts.
        let mut headers = Headers::new();
        headers.push("X-Service-Api-Key", api_key.as_str());
        if schema {
            headers.push("X-Service-Schema-Version", "1.0");
        }
        if let Some(k) = &idem_key {
            headers.push("Idempotency-Key", k.as_str());
        }
        headers.push("Content-Type", "application/json");
        let stateless = validate_request(&payload::Request {
            method: method.into(),
            path: target.clone(),
            headers,
            body: (!bytes.is_empty()).then(|| bytes.clone()),
            now: now_secs,
        });
        let order_before = self.h.sb.order(&key).map(|o| o.order.to_value());
        enum Expect {
            Problem(u16, Value),
            Replay(Vec<u8>),
            Conflict,
            NotFound,
            Accepted(u16, Value, Value),
        }
        let expect = if stateless.status >= 400 && stateless.status != 409 {
            Expect::Problem(stateless.status, stateless.problem.clone().expect("a problem with an error status"))
        } else if let Some(prev) = idem_key.as_ref().and_then(|k| self.cache.get(k)) {
            if prev.method == method && prev.target == target && prev.body == bytes {
                Expect::Replay(prev.answer.body.clone())
            } else {
                Expect::Conflict
            }
        } else if let Some(order) = &order_before {
            let action = match verb {
                Verb::Accept => Action::Accept,
                Verb::Reject => Action::Reject,
                Verb::Status => {
                    let v = serde_json::from_slice::<Value>(&bytes)
                        .ok()
                        .and_then(|b| b.get("status").and_then(Value::as_str).map(str::to_string));
                    Action::Status(v.unwrap_or_default())
                }
            };
            let p = predict_request(order, &action, Some(&bytes), now_secs).expect("the engine reads the model's order");
            if p.http_status >= 400 {
                Expect::Problem(p.http_status, p.problem.clone().expect("a problem with an error status"))
            } else {
                Expect::Accepted(p.http_status, p.response.clone().expect("the 202's data"), p.order.clone())
            }
        } else {
            Expect::NotFound
        };

        let (answer, got) = self.h.request(&req);
        self.log.push(serde_json::to_string(&answer).unwrap());
        let shown = format!("{method} {target} {:?} idem {idem_key:?}: {got}", String::from_utf8_lossy(&bytes));
        let order_after = self.h.sb.order(&key).map(|o| o.order.to_value());
        let mut cache = true;
        match expect {
            Expect::Problem(status, mut problem) => {
                *self.seen.entry(if stateless.status >= 400 { "stateless" } else { "engine problem" }).or_default() += 1;
                cache = stateless.status < 400 || stateless.status == 409;
                prop_assert_eq!(answer.status, status, "{}", shown);
                prop_assert!(answer.problem && !answer.replayed, "{}", shown);
                // The prediction's problem, with this service's base, the HTTP status and a
                // traceId of its own.
                let base = self.h.sb.options().problem_base.clone();
                let p = problem.as_object_mut().unwrap();
                match p.get_mut("type") {
                    Some(Value::String(t)) => *t = t.replace("{problem_base}", &base),
                    // Not predicted (no suffix is shown): the answer says RFC 7807's about:blank.
                    _ => {
                        p.insert("type".into(), json!(poscheck::service::NO_TYPE));
                    }
                }
                p.insert("status".into(), json!(status));
                p.entry("meta").or_insert(Value::Null);
                p.remove("traceId");
                let mut actual = got.clone();
                prop_assert!(actual["traceId"].as_str().is_some_and(|t| !t.is_empty() && t != "{trace_id}"), "{}", shown);
                actual.as_object_mut().unwrap().remove("traceId");
                prop_assert_eq!(&actual, &problem, "{}", shown);
                prop_assert_eq!(&order_after, &order_before, "a refused call changes nothing: {}", shown);
            }
            Expect::Replay(earlier) => {
                *self.seen.entry("replay").or_default() += 1;
                cache = false;
                prop_assert!(answer.replayed, "{}", shown);
                prop_assert_eq!(&answer.body, &earlier, "the replay is the earlier answer, byte for byte: {}", shown);
                prop_assert_eq!(&order_after, &order_before, "a replay is not re-executed: {}", shown);
            }
            Expect::Conflict => {
                *self.seen.entry("conflict").or_default() += 1;
                cache = false;
                prop_assert_eq!(answer.status, 422, "{}", shown);
                prop_assert_eq!(suffix(&got), Some("idempotency-conflict".to_string()), "{}", shown);
                prop_assert_eq!(&order_after, &order_before, "{}", shown);
            }
            Expect::NotFound => {
                *self.seen.entry("not found").or_default() += 1;
                prop_assert_eq!(answer.status, 404, "{}", shown);
                prop_assert_eq!(suffix(&got), Some("not-found".to_string()), "{}", shown);
                prop_assert_eq!(&got["meta"], &Value::Null, "{}", shown);
            }
            Expect::Accepted(status, data, order) => {
                *self.seen.entry("accepted").or_default() += 1;
                prop_assert_eq!(answer.status, status, "{}", shown);
                prop_assert!(!answer.problem && !answer.replayed, "{}", shown);
                prop_assert_eq!(&got["data"], &data, "{}", shown);
                prop_assert_eq!(order_after.as_ref(), Some(&order), "the order is the engine's: {}", shown);
            }
        }
        if cache {
            if let Some(k) = idem_key {
                self.cache.insert(k, Cached { method, target, body: bytes, answer });
            }
        }
        Ok(())
    }
}

fn run(seed: u64, delay: i64, ops: &[Op]) -> Result<Run, TestCaseError> {
    let mut r = Run::new(seed, delay);
    for op in ops {
        r.step(op)?;
    }
    Ok(r)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn every_rest_answer_is_the_toolkits_prediction(seed in 0u64..1000, delay in prop_oneof![Just(0i64), 1i64..120], ops in prop::collection::vec(op(), 1..40)) {
        run(seed, delay, &ops)?;
    }
}

/// The property above reaches every kind of answer (a guard against a generator that stopped
/// producing some of them).
#[test]
fn the_property_reaches_every_kind_of_answer() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop::collection::vec(op(), 30..40);
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    for _ in 0..64 {
        let ops = strategy.new_tree(&mut runner).unwrap().current();
        let r = run(3, 60, &ops).unwrap();
        for (k, v) in r.seen {
            *seen.entry(k).or_default() += v;
        }
    }
    for kind in ["stateless", "engine problem", "replay", "conflict", "not found", "accepted"] {
        assert!(seen.get(kind).copied().unwrap_or(0) > 0, "no {kind} answer in 64 runs: {seen:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Determinism.

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn same_seed_same_inputs_same_bytes_and_import_continues(seed in 0u64..1000, ops in prop::collection::vec(op(), 2..40), split in 0usize..40) {
        let a = run(seed, 30, &ops)?;
        let b = run(seed, 30, &ops)?;
        prop_assert_eq!(&a.log, &b.log);
        prop_assert_eq!(a.h.sb.export_state(), b.h.sb.export_state());

        // Export after `split` steps, import, and go on with the rest in both.
        let split = split % ops.len();
        let mut first = run(seed, 30, &ops[..split])?;
        let state = first.h.sb.export_state();
        let imported = Service::import_state(&state).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(imported.export_state(), state.clone());
        let mut second = Run {
            h: Harness { sb: imported, ..first.h.clone() },
            keys: first.keys.clone(),
            cache: first.cache.iter().map(|(k, c)| (k.clone(), Cached { method: c.method, target: c.target.clone(), body: c.body.clone(), answer: c.answer.clone() })).collect(),
            fresh: first.fresh,
            log: first.log.clone(),
            seen: HashMap::new(),
            last: first.last.clone(),
        };
        for op in &ops[split..] {
            first.step(op)?;
            second.step(op)?;
        }
        prop_assert_eq!(&first.log, &second.log);
        prop_assert_eq!(&first.log, &a.log, "the run with an export in the middle is the run without");
        prop_assert_eq!(first.h.sb.export_state(), second.h.sb.export_state());
        prop_assert_eq!(first.h.sb.export_state(), a.h.sb.export_state());
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile input.

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        "\\PC{0,40}",
        prop::collection::vec(any::<char>(), 0..40).prop_map(|v| v.into_iter().collect()),
        Just(String::new()),
        Just("\0".to_string()),
    ]
}

fn hostile_body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..4096),
        "[{}\\[\\]\":,a-z0-9\\\\ ]{0,200}".prop_map(String::into_bytes),
        (1usize..3000).prop_map(|n| "[".repeat(n).into_bytes()),
        (1usize..3000).prop_map(|n| "{\"a\":".repeat(n).into_bytes()),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(|v| {
            let mut b = br#"{"status":"ready","reasonCode":""#.to_vec();
            b.extend(v);
            b
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn hostile_requests_never_panic_and_are_4xx_problems(
        method in prop_oneof![Just("GET".to_string()), Just("POST".to_string()), Just("PUT".to_string()), Just("PATCH".to_string()), text()],
        target in prop_oneof![
            text(),
            text().prop_map(|t| format!("/api/v1/Orders/{t}")),
            text().prop_map(|t| format!("/api/v1/Orders/{{key}}/{t}")),
            prop::sample::select(vec!["accept", "reject", "status"]).prop_map(|t| format!("/api/v1/Orders/{{key}}/{t}")),
            text().prop_map(|t| format!("/api/v1/Orders?{t}")),
        ],
        api_key in prop::option::of(prop_oneof![Just("{key}".to_string()), text()]),
        schema in prop::option::of(prop_oneof![Just("1.0".to_string()), text()]),
        idem in prop::option::of(prop_oneof![Just(uuid(5)), text()]),
        content_type in prop::option::of(text()),
        body in hostile_body(),
    ) {
        let mut h = Harness::new(None, options(0));
        let key = h.place("STORE-1");
        let target = target.replace("{key}", &key);
        let api = api_key.map(|k| k.replace("{key}", &h.key.clone()));
        let req = Request {
            method: &method,
            target: &target,
            api_key: api.as_deref(),
            schema_version: schema.as_deref(),
            idempotency_key: idem.as_deref(),
            content_type: content_type.as_deref(),
            body: &body,
        };
        let before = h.order(&key);
        let mut headers = Headers::new();
        for (n, v) in [("X-Service-Api-Key", &api), ("X-Service-Schema-Version", &schema), ("Idempotency-Key", &idem), ("Content-Type", &content_type)] {
            if let Some(v) = v {
                headers.push(n, v.as_str());
            }
        }
        let predicted = validate_request(&payload::Request { method: method.clone(), path: target.clone(), headers, body: (!body.is_empty()).then(|| body.clone()), now: h.now / 1000 });
        let a = h.sb.handle(&req, h.now);
        let parsed: Value = serde_json::from_slice(&a.body).map_err(|e| TestCaseError::fail(format!("not JSON: {e}")))?;
        let known_key = api.as_deref().map(str::trim) == Some(h.key.as_str());
        if a.status < 400 {
            // Only a request the toolkit itself calls valid may succeed.
            prop_assert!(known_key && (predicted.status < 400 || predicted.status == 409), "{} {:?}: {} {}", method, target, a.status, parsed);
            prop_assert!(!a.problem && parsed["data"].is_object());
        } else {
            prop_assert!((400..500).contains(&a.status), "{} {:?}: {}", method, target, a.status);
            prop_assert!(a.problem);
            prop_assert_eq!(&parsed["status"], &json!(a.status));
            prop_assert!(parsed["title"].is_string());
            prop_assert_eq!(&h.order(&key), &before, "a refused request changes nothing");
        }
    }

    #[test]
    fn hostile_controls_are_errors_never_panics(text in prop_oneof![
        text(),
        prop::collection::vec(any::<u8>(), 0..512).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        (prop::sample::select(vec!["createOrder", "assignDriver", "releaseDriver", "markReadyByDriver", "deliver", "cancel", "refund", "x"]), text(), text())
            .prop_map(|(a, k, v)| format!(r#"{{"action":"{a}","orderKey":{},"{}":{}}}"#, json!(k), k.replace(['"', '\\'], ""), json!(v))),
        (prop::sample::select(vec!["store", "type", "items", "payment", "express", "quantity"]), "[\\[\\]{}0-9a-z\":,-]{0,60}")
            .prop_map(|(f, v)| format!(r#"{{"action":"createOrder","{f}":{v}}}"#)),
    ]) {
        let mut sb = Service::new(None, options(0), 1).unwrap();
        let before = sb.export_state();
        if let Ok(out) = sb.control_json(&text, T0) {
            // Only a well-formed createOrder can be carried out on an empty service.
            let v: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&v["action"], &json!("createOrder"), "{}", text);
            prop_assert!(out.order.is_some());
        } else {
            prop_assert_eq!(sb.export_state(), before);
        }
    }
}
