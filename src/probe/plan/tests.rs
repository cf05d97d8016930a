//! The plan driven by a face made up here: a sandbox that keeps a delivery log, and a POS that
//! verifies signatures (or refuses everything), on a clock the test moves.

use super::diagnose::{FOREIGN, REFUSAL};
use super::*;
use crate::http::Headers;
use crate::probe::report::Report;
use serde_json::json;

const SECRET: &str = "whsec_plan_test_0123456789abcdef";
const T0: f64 = 1_790_000_000_000.0;
const POS: &str = "http://pos.test";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pos {
    /// Verifies signatures and dedupes on the delivery id.
    Good,
    /// Answers 401 to everything.
    Refusing,
    /// Answers 404 to everything.
    NotFound,
    /// Verifies with the secret followed by a newline (a secret read from a file with its line ending).
    SecretNewline,
}

struct Face {
    plan: Plan,
    now: f64,
    pos: Pos,
    log: Vec<Value>,
    orders: u32,
    remote: BTreeMap<String, String>,
    /// What was asked, in order: a step's kind, or `sandbox:` and the action.
    steps: Vec<String>,
    said: Vec<String>,
    /// The time a send takes, ms.
    send_ms: f64,
    /// Sandbox actions that fail.
    failing: Vec<&'static str>,
    /// What `order()` says of the client scenario's order.
    order_status: &'static str,
    requests: Vec<Value>,
    timeouts: Vec<f64>,
    args: Vec<Value>,
}

impl Face {
    fn new(options: Value, pos: Pos) -> Self {
        let plan = Plan::new(Options::from_value(&options, 42).expect("valid options"));
        Self {
            plan,
            now: T0,
            pos,
            log: Vec::new(),
            orders: 0,
            remote: BTreeMap::new(),
            steps: Vec::new(),
            said: Vec::new(),
            send_ms: 3.0,
            failing: Vec::new(),
            order_status: "HandedOver",
            requests: Vec::new(),
            timeouts: Vec::new(),
            args: Vec::new(),
        }
    }

    /// The POS's answer to a webhook.
    fn answer(&mut self, url: &str, headers: &BTreeMap<String, String>, body: &str) -> (u16, String) {
        match self.pos {
            Pos::Refusing => return (401, "{}".into()),
            Pos::NotFound => return (404, "not found".into()),
            _ => {}
        }
        let h = Headers::from_pairs(headers.iter().map(|(k, v)| (k.clone(), v.clone())));
        let secret = if self.pos == Pos::SecretNewline { format!("{SECRET}\n") } else { SECRET.to_string() };
        if crate::signature::verify(body.as_bytes(), &h, &[secret.as_bytes()], (self.now / 1000.0) as u64, 300).is_err() {
            return (401, "{\"error\":\"signature\"}".into());
        }
        if url.ends_with("/events") || url.contains("/menu/change/") {
            return (200, String::new());
        }
        let n = self.remote.len();
        let id = headers.get("X-Service-Delivery-Id").cloned().unwrap_or_default();
        let r = self.remote.entry(id).or_insert_with(|| format!("R-{n}")).clone();
        (200, json!({ "remoteOrderId": r }).to_string())
    }

    /// A delivery of the sandbox, sent and logged.
    fn deliver(&mut self, kind: &str, method: &str, url: String, body: String, id: String, redelivery: bool) -> Value {
        let ts = (self.now / 1000.0) as u64;
        let mut headers = BTreeMap::new();
        headers.insert("Content-Type".to_string(), "application/json".to_string());
        headers.insert("X-Service-Delivery-Id".to_string(), id.clone());
        headers.insert("X-Service-Timestamp".to_string(), ts.to_string());
        headers.insert("X-Service-Signature-256".to_string(), crate::signature::sign(SECRET.as_bytes(), ts, body.as_bytes()).unwrap());
        let (status, answer) = self.answer(&url, &headers, &body);
        let entry = json!({
            "deliveryId": id, "attempt": 1, "redelivery": redelivery, "kind": kind, "method": method, "url": url,
            "headers": headers, "body": body, "at": self.now / 1000.0, "status": status, "answer": answer,
            "error": null, "ms": 2, "ok": status == 200, "effects": [],
        });
        self.log.push(entry.clone());
        entry
    }

    fn create_order(&mut self, opts: &Value) -> Value {
        self.orders += 1;
        let key = format!("ord_{:0>16}", self.orders);
        let body = json!({ "orderKey": key, "store": "STORE-1", "items": [{ "name": "x", "quantity": 1 }] }).to_string();
        let d = self.deliver("orderCreated", "POST", format!("{POS}/v1/order/STORE-1"), body, format!("dlv-{}", self.log.len()), false);
        let accepted = d["status"] == 200;
        let status = if accepted && opts["autoAccept"] == true { "Preparing" } else { "Pending" };
        json!({ "orderKey": key, "status": status })
    }

    fn update(&mut self, key: &Value, event: &str) -> Value {
        let body = json!({ "event": event, "orderKey": key }).to_string();
        let url = format!("{POS}/v1/order/STORE-1/R-0/events");
        self.deliver("orderUpdate", "PUT", url, body, format!("dlv-{}", self.log.len()), false);
        json!({ "orderKey": key })
    }

    fn sandbox(&mut self, action: &str, args: &[Value]) -> Result<Value, String> {
        if self.failing.contains(&action) {
            return Err("boom".into());
        }
        self.args.push(json!({ "action": action, "args": args }));
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
        Ok(match action {
            "createOrder" => self.create_order(&arg(0)),
            "assignDriver" => self.update(&arg(0), "driver_assigned"),
            "releaseDriver" => self.update(&arg(0), "driver_released"),
            "deliver" => self.update(&arg(0), "delivered"),
            "refund" | "cancel" => self.update(&arg(0), "cancelled"),
            "redeliver" => {
                let id = arg(0).as_str().unwrap_or_default().to_string();
                let first = self.log.iter().find(|d| d["deliveryId"] == id.as_str()).cloned().expect("a delivery to redeliver");
                let (url, body) = (first["url"].as_str().unwrap().to_string(), first["body"].as_str().unwrap().to_string());
                json!([self.deliver("orderCreated", "POST", url, body, id, true)])
            }
            "deliveries" => Value::Array(self.log.clone()),
            "requests" => {
                let after = arg(0)["after"].as_u64().unwrap_or(0);
                self.requests.iter().filter(|c| c["seq"].as_u64().unwrap_or(0) > after).cloned().collect()
            }
            "order" => json!({ "orderKey": arg(0), "status": self.order_status }),
            "settle" | "setFaults" => Value::Null,
            other => panic!("the plan asked for an action the sandbox has not: {other}"),
        })
    }

    fn perform(&mut self, step: &Step) -> Outcome {
        match step {
            Step::StartSandbox { .. } => {
                Outcome::value(json!({ "url": "http://127.0.0.1:8787", "apiKey": "sbx_key_0123456789", "secret": SECRET }))
            }
            Step::Announce { .. } | Step::Done => Outcome::default(),
            Step::Sandbox(call) => match self.sandbox(call.action(), &call.args()) {
                Ok(v) => Outcome::value(v),
                Err(e) => Outcome::error(e),
            },
            Step::Send { exchange, copies, timeout_ms } => {
                self.timeouts.push(*timeout_ms);
                self.now += self.send_ms;
                let answers = (0..*copies)
                    .map(|_| {
                        let (status, answer) = self.answer(&exchange.url, &exchange.headers, &exchange.body);
                        Answer {
                            status: Some(status),
                            answer: Some(answer),
                            ms: Some(self.send_ms),
                            error: None,
                            at: Some(self.now / 1000.0),
                        }
                    })
                    .collect();
                Outcome::answers(answers)
            }
            Step::Rest { .. } => {
                let body = json!({ "changeId": "chg_1" }).to_string();
                self.deliver("menuChange", "POST", format!("{POS}/v1/menu/change/chg_1"), body, format!("dlv-{}", self.log.len()), false);
                Outcome::value(json!({ "status": 202, "text": "{\"data\":{}}" }))
            }
            Step::Sleep { ms } => {
                self.now += ms;
                Outcome::default()
            }
        }
    }

    /// Plays the run to its end (or to an abort: `None`).
    fn run(&mut self) -> Option<Report> {
        for _ in 0..100_000 {
            let next = self.plan.next(self.now).expect("a step");
            self.said.extend(next.say);
            let name = match &next.step {
                Step::Sandbox(c) => format!("sandbox:{}", c.action()),
                other => serde_json::to_value(other).unwrap()["kind"].as_str().unwrap().to_string(),
            };
            self.steps.push(name);
            if next.step == Step::Done {
                return Some(self.plan.finish(12.0));
            }
            let outcome = self.perform(&next.step);
            self.now += 1.0;
            if self.plan.report(outcome, self.now).expect("a readable outcome") == Flow::Abort {
                return None;
            }
        }
        panic!("the run did not end");
    }
}

fn status(r: &Report, id: &str) -> CheckStatus {
    r.checks.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no check {id}")).status
}

fn message<'a>(r: &'a Report, id: &str) -> &'a str {
    &r.checks.iter().find(|c| c.id == id).unwrap().message
}

fn receiver_ids() -> Vec<&'static str> {
    RULES.iter().filter(|r| r.side == Side::Receiver).map(|r| r.id).collect()
}

/// The checks of the scenes in play order.
fn play_order() -> Vec<&'static str> {
    let mut out = vec![CREATION, REFUSAL, FOREIGN, RETRY];
    for s in RECEIVER_SCENES {
        match s {
            Scene::Variant { check, .. } | Scene::Update { check, .. } => out.push(check),
            _ => {}
        }
    }
    out.extend([MENU_CHANGE, LATENCY]);
    out
}

#[test]
fn a_pos_that_passes_everything_passes_every_receiver_check_in_play_order() {
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::Good);
    let report = face.run().expect("no abort");
    for id in receiver_ids() {
        assert_eq!(status(&report, id), CheckStatus::Passed, "{id}: {}", message(&report, id));
    }
    for r in RULES.iter().filter(|r| r.side == Side::Client) {
        assert_eq!(status(&report, r.id), CheckStatus::Skipped);
        assert_eq!(message(&report, r.id), "skipped: --receiver-only");
    }
    // The report lists the checks in RULES order; the progress lines say them in play order.
    assert_eq!(report.checks.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), RULES.iter().map(|r| r.id).collect::<Vec<_>>());
    let said: Vec<&str> = face.said.iter().filter_map(|l| l.strip_prefix("passed       ")).map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(said, play_order());
    assert_eq!(play_order().len(), receiver_ids().len(), "every receiver check has its scene");
    assert_eq!(face.said[0], format!("sending webhooks to {POS} (store STORE-1)"));
    let steps: Vec<&str> = face.steps.iter().map(String::as_str).collect();
    let d = "sandbox:deliveries";
    let mut expected = vec!["startSandbox", "announce", "sandbox:createOrder", d, "sandbox:redeliver", d];
    expected.extend(["send"; 8]);
    expected.extend([d, "sandbox:assignDriver", "sandbox:assignDriver", d, d, "sandbox:releaseDriver", d, "send", "send"]);
    expected.extend([d, "sandbox:deliver", d, d, "sandbox:refund", d, d, "sandbox:createOrder", d, "sandbox:cancel", d]);
    expected.extend([d, "rest", "sandbox:settle", d, "done"]);
    assert_eq!(steps, expected);
    // The concurrent copies: three of one delivery, noted as such.
    let copies = report.checks.iter().find(|c| c.id == "receiver/duplicate-concurrent-copies").unwrap();
    assert_eq!(copies.evidence.len(), 3);
    assert!(copies.evidence[1].note.as_deref().unwrap().starts_with("copy 2 of 3, fresh-order, X-Service-Delivery-Id "));
    assert!(face.plan.refused().is_none(), "nothing to diagnose");
    assert!(face.plan.is_done());
}

#[test]
fn the_client_scenario_places_its_orders_and_ends_once_the_order_is_done_and_the_pos_quiet() {
    let mut face = Face::new(json!({ "pos": POS, "only": ["client"], "faults": { "503": 0.1, "429": 0.5 } }), Pos::Good);
    face.requests = vec![
        json!({ "seq": 1, "at": 1, "method": "GET", "path": "/api/v1/Orders", "headers": {}, "body": "", "status": 200, "answer": "{}" }),
    ];
    let report = face.run().expect("no abort");
    assert!(face.steps.iter().all(|s| s != "send"), "no receiver scene: {:?}", face.steps);
    assert_eq!(
        &face.steps[2..7],
        ["sandbox:requests", "sandbox:setFaults", "sandbox:createOrder", "sandbox:createOrder", "sandbox:cancel"]
    );
    assert_eq!(
        face.args[1]["args"][0],
        json!({ "rateLimited": 0.5, "unavailable": 0.1, "retryAfterSeconds": 1, "serverErrorsPrefix": "/api/v1/menu" })
    );
    assert_eq!(face.args[2]["args"][0]["readyByDriverOnAccept"], true);
    assert_eq!(face.args[4]["args"][1]["by"], "customer");
    // The order is done from the start and no call comes: the wait ends once the POS was quiet
    // for Retry-After + 1.5 s, long before the 20 s.
    let elapsed = face.now - T0;
    assert!((2500.0..5000.0).contains(&elapsed), "{elapsed} ms");
    assert!(face
        .said
        .iter()
        .any(|l| l.starts_with("waiting up to 20 s for the POS's REST calls to http://127.0.0.1:8787/api/v1/ (API key sbx_key_…)")));
    assert_eq!(face.steps[face.steps.len() - 3..], ["sandbox:settle", "sandbox:requests", "done"]);
    // The calls before the scenario are not the POS's: nothing to judge.
    for r in RULES {
        let s = status(&report, r.id);
        if r.side == Side::Client {
            assert_eq!(s, CheckStatus::Inconclusive, "{}", r.id);
        } else {
            assert_eq!((s, message(&report, r.id)), (CheckStatus::Skipped, "skipped: not in --only"));
        }
    }

    // An order never done: the wait ends at its bound.
    let mut face = Face::new(json!({ "pos": POS, "only": ["client/path-casing"], "wait": 2 }), Pos::Good);
    face.order_status = "Preparing";
    face.run().expect("no abort");
    let elapsed = face.now - T0;
    assert!((2000.0..2500.0).contains(&elapsed), "{elapsed} ms");
    assert!(face.steps.iter().all(|s| s != "sandbox:setFaults"), "no faults asked for");

    // Placing the orders fails: said, and the wait goes on.
    let mut face = Face::new(json!({ "pos": POS, "only": ["client"], "wait": 1 }), Pos::Good);
    face.failing = vec!["cancel"];
    let report = face.run().expect("no abort");
    assert!(face.said.iter().any(|l| l == "the sandbox could not place the client scenario's orders: boom"));
    assert_eq!(status(&report, "client/authenticated"), CheckStatus::Inconclusive);
}

#[test]
fn a_pos_that_refuses_the_creation_leaves_its_dependants_inconclusive() {
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::Refusing);
    let report = face.run().expect("no abort");
    assert_eq!(status(&report, CREATION), CheckStatus::Failed);
    assert_eq!(message(&report, CREATION), "a valid, correctly signed creation webhook got HTTP 401");
    let needs =
        "a valid creation webhook is not answered 200 with a remoteOrderId (receiver/order-created-answered), so this cannot be judged";
    for id in [RETRY, "receiver/duplicate-concurrent-copies", "receiver/signature-raw-body"] {
        assert_eq!((status(&report, id), message(&report, id)), (CheckStatus::Inconclusive, needs), "{id}");
    }
    assert_eq!(
        message(&report, "receiver/signature-tampered-body"),
        "refused (HTTP 401), but a valid delivery is not accepted either (receiver/order-created-answered), so this proves nothing"
    );
    let never = "not run: the order never reached Preparing, since its creation webhook was not answered 200 with a remoteOrderId (see receiver/order-created-answered)";
    for id in [
        "receiver/update-cancelled",
        "receiver/update-driver-assigned-twice",
        "receiver/update-driver-released",
        "receiver/update-delivered",
        "receiver/update-cancelled-after-handover",
        "receiver/update-unknown-event",
        "receiver/update-unknown-fields",
    ] {
        assert_eq!((status(&report, id), message(&report, id)), (CheckStatus::Inconclusive, never), "{id}");
    }
    assert_eq!(status(&report, MENU_CHANGE), CheckStatus::Failed);
    assert!(!face.steps.iter().any(|s| s.contains("Driver") || s == "sandbox:deliver" || s == "sandbox:refund"), "{:?}", face.steps);
    // The refused genuine delivery is noticed: the diagnosis (issue 40) starts from it.
    assert_eq!(face.plan.refused().and_then(|e| e.status), Some(401));
}

#[test]
fn only_and_receiver_only_select_the_scenes() {
    let mut face =
        Face::new(json!({ "pos": POS, "only": ["receiver/signature-missing", "client/path-casing"], "receiverOnly": true }), Pos::Good);
    let report = face.run().expect("no abort");
    assert_eq!(face.steps, ["startSandbox", "announce", "sandbox:createOrder", "sandbox:deliveries", "send", "done"]);
    let passed: Vec<&str> = report.checks.iter().filter(|c| c.status == CheckStatus::Passed).map(|c| c.id.as_str()).collect();
    assert_eq!(passed, ["receiver/signature-missing"]);
    assert_eq!(report.checks.iter().filter(|c| c.status == CheckStatus::Skipped).count(), RULES.len() - 1);
    assert_eq!(message(&report, "client/path-casing"), "skipped: --receiver-only");
    assert_eq!(message(&report, CREATION), "skipped: not in --only");
    assert_eq!(face.said.len(), 2, "the scene and its one check: {:?}", face.said);

    // A check that needs another scenario's webhook has it played, ungraded.
    let mut face = Face::new(json!({ "pos": POS, "only": ["receiver/update-unknown-event"] }), Pos::Good);
    let report = face.run().expect("no abort");
    assert!(face.steps.iter().any(|s| s == "sandbox:releaseDriver"));
    assert!(!face.steps.iter().any(|s| s == "sandbox:assignDriver" || s == "sandbox:requests"), "{:?}", face.steps);
    assert_eq!(status(&report, "receiver/update-unknown-event"), CheckStatus::Passed);
    assert_eq!(status(&report, RELEASED), CheckStatus::Skipped);

    // The refund needs the handover first.
    let mut face = Face::new(json!({ "pos": POS, "only": ["receiver/update-cancelled-after-handover"] }), Pos::Good);
    let report = face.run().expect("no abort");
    let acts: Vec<&str> = face.steps.iter().map(String::as_str).filter(|s| ["sandbox:deliver", "sandbox:refund"].contains(s)).collect();
    assert_eq!(acts, ["sandbox:deliver", "sandbox:refund"]);
    assert_eq!(status(&report, "receiver/update-cancelled-after-handover"), CheckStatus::Passed);
    assert_eq!(status(&report, "receiver/update-delivered"), CheckStatus::Skipped);

    // Client checks only: no webhook at all.
    let face = Face::new(json!({ "pos": POS, "only": ["client"] }), Pos::Good);
    assert_eq!(face.plan.scenes(), [Scene::Start, Scene::Announce, Scene::Client]);
}

#[test]
fn past_the_receiver_bound_what_is_left_is_inconclusive() {
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::Good);
    face.send_ms = 50_000.0;
    let report = face.run().expect("no abort");
    // Two sends of 50 s, a third within what is left of the 120 s, then the bound.
    assert_eq!(face.timeouts.len(), 3, "{:?}", face.timeouts);
    assert_eq!(face.timeouts[..2], [30_000.0, 30_000.0]);
    assert!(face.timeouts[2] < 20_000.0 && face.timeouts[2] > 19_000.0, "{:?}", face.timeouts);
    let bound = "not run: the receiver checks' bound of 120 s was reached";
    for id in [
        "receiver/timestamp-too-old",
        "receiver/signature-raw-body",
        "receiver/update-delivered",
        "receiver/update-unknown-event",
        MENU_CHANGE,
    ] {
        assert_eq!((status(&report, id), message(&report, id)), (CheckStatus::Inconclusive, bound), "{id}");
    }
    assert_eq!(status(&report, "receiver/signature-wrong-secret"), CheckStatus::Passed);
    assert!(!face.steps.iter().any(|s| s == "rest" || s == "sandbox:assignDriver"));
    // The slow answers are over the budget.
    assert_eq!(status(&report, LATENCY), CheckStatus::Failed);
}

#[test]
fn a_failing_sandbox_action_ends_the_run_or_makes_its_check_inconclusive() {
    // The creation is what every receiver check needs: the run ends with the action's error.
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::Good);
    face.failing = vec!["createOrder"];
    assert!(face.run().is_none());
    // An actor's action: its check is inconclusive, and the run goes on.
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::Good);
    face.failing = vec!["releaseDriver"];
    let report = face.run().expect("no abort");
    assert_eq!(message(&report, RELEASED), "not run: the sandbox could not released the driver: boom");
    let from = "not run: no genuine delivery to make it from (see receiver/order-created-answered)";
    assert_eq!(
        (status(&report, "receiver/update-unknown-fields"), message(&report, "receiver/update-unknown-fields")),
        (CheckStatus::Inconclusive, from)
    );
    assert_eq!(status(&report, "receiver/update-delivered"), CheckStatus::Passed);
}

#[test]
fn options_are_checked_with_the_faces_messages() {
    let err = |v: Value| match Options::from_value(&v, 1) {
        Err(PlanError::Invalid(m)) => m,
        other => panic!("{v}: {other:?}"),
    };
    assert_eq!(err(json!(5)), "probe takes an options object");
    assert_eq!(err(json!({})), "pos must be the POS's base URL (http or https), found undefined");
    assert_eq!(err(json!({ "pos": "not a url" })), "pos must be the POS's base URL (http or https), found \"not a url\"");
    assert_eq!(err(json!({ "pos": "ftp://127.0.0.1/" })), "pos must be an http or https URL, found ftp:");
    assert_eq!(err(json!({ "bogus": 1 })), format!("unknown option \"bogus\": expected one of {}", options::OPTIONS.join(", ")));
    let p = |extra: Value| {
        let mut o = json!({ "pos": "http://127.0.0.1:1" });
        o.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        err(o)
    };
    assert!(p(json!({ "only": ["receiver/nope"] }))
        .starts_with("no check \"receiver/nope\": expected receiver, client, or one of receiver/order-created-answered, "));
    assert_eq!(p(json!({ "only": [] })), "only must be a non-empty list of check ids (see probeRules())");
    assert_eq!(p(json!({ "faults": { "500": 0.1 } })), "faults: \"500\" is not one of 429, 502, 503");
    assert_eq!(p(json!({ "faults": { "429": 2 } })), "faults: the rate of 429 must be from 0 to 1");
    assert_eq!(p(json!({ "faults": { "429": 0.6, "503": 0.5 } })), "faults: the rates add up to more than 1");
    assert_eq!(p(json!({ "wait": -1 })), "wait must be a number from 0 to 3600");
    assert_eq!(p(json!({ "port": "Infinity" })), "port must be a number from 0 to 65535");
    assert_eq!(p(json!({ "budgetMs": 0 })), "budgetMs must be a number from 1 to 30000");
    assert_eq!(
        p(json!({ "stores": ["a b"] })),
        "stores must be 1 to 20 store remoteIds (letters, digits and _ . - :, up to 100 characters)"
    );
    assert_eq!(p(json!({ "secret": "" })), "secret must be a non-empty string");
    for seed in [json!(-1), json!(1.5), json!("1"), json!(9_007_199_254_740_992_u64)] {
        assert_eq!(p(json!({ "seed": seed })), "seed must be a non-negative integer");
    }
    assert_eq!(p(json!({ "onReady": 5 })), "onReady must be a function");

    let o = Options::from_value(&json!({ "pos": "http://127.0.0.1:3000//", "seed": 7, "only": ["client"], "wait": null }), 1).unwrap();
    assert_eq!((o.pos.as_str(), o.seed, o.wait, o.budget_ms, o.port), ("http://127.0.0.1:3000", 7, 20.0, 30_000.0, 0.0));
    assert_eq!(o.stores, ["STORE-1"]);
    assert!(o.wanted("client/path-casing") && !o.wanted(CREATION));
    assert_eq!(Options::from_value(&json!({ "pos": "https://x" }), 99).unwrap().seed, 99, "the face's seed when none is given");
}

#[test]
fn hostile_results_are_errors_never_panics() {
    let mut plan = Plan::from_json(r#"{"pos":"http://127.0.0.1:1","receiverOnly":true}"#, 1).unwrap();
    assert_eq!(plan.report_json("{}", T0).unwrap_err().code(), "INVALID_STATE", "no step handed out");
    let first = plan.next(T0).unwrap();
    assert!(matches!(first.step, Step::StartSandbox { .. }));
    assert_eq!(plan.next(T0).unwrap_err().code(), "INVALID_STATE", "its result first");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for bad in ["", "not json", &deep, "{\"value\":5}", "{\"bogus\":1}", "{\"answers\":[{\"status\":\"x\"}]}", "{\"value\":{\"url\":1}}"] {
        let e = plan.report_json(bad, T0).unwrap_err();
        assert_eq!(e.code(), "INVALID_ARGUMENT", "{}", &bad[..bad.len().min(40)]);
    }
    // Still waiting for a readable result, then on.
    let ok = json!({ "value": { "url": "http://127.0.0.1:2", "apiKey": "k", "secret": SECRET } }).to_string();
    assert_eq!(plan.report_json(&ok, T0).unwrap(), Flow::Go);
    assert!(matches!(plan.next(T0).unwrap().step, Step::Announce { .. }));
    plan.report_json("{}", T0).unwrap();
    assert!(matches!(plan.next(T0).unwrap().step, Step::Sandbox(SandboxCall::CreateOrder(_))));
    plan.report_json(r#"{"value":{"orderKey":"ord_1"}}"#, T0).unwrap();
    plan.next(T0).unwrap();
    for bad in [r#"{"value":{"not":"a list"}}"#, r#"{"value":[{"status":"200"}]}"#, r#"{"value":[1,2]}"#] {
        assert_eq!(plan.report_json(bad, T0).unwrap_err().code(), "INVALID_ARGUMENT", "{bad}");
    }
    // Bad options through JSON: an error too.
    for bad in ["", "{", &deep, "null"] {
        assert_eq!(Plan::from_json(bad, 1).unwrap_err().code(), "INVALID_ARGUMENT");
    }
}

#[test]
fn steps_cross_as_json_the_face_reads() {
    let call = Step::Sandbox(SandboxCall::AssignDriver(json!("ord_1"), None));
    let next = Next { say: vec!["a line".into()], step: call };
    assert_eq!(
        serde_json::to_value(&next).unwrap(),
        json!({ "say": ["a line"], "kind": "sandbox", "action": "assignDriver", "args": ["ord_1"] })
    );
    let send = Step::Send {
        exchange: Outgoing { method: "POST".into(), url: "u".into(), headers: BTreeMap::new(), body: "{}".into() },
        copies: 3,
        timeout_ms: 30_000.0,
    };
    assert_eq!(serde_json::to_value(&send).unwrap()["timeoutMs"], 30_000.0);
    assert_eq!(serde_json::to_value(SandboxCall::Requests(Some(4))).unwrap(), json!({ "action": "requests", "args": [{ "after": 4 }] }));
    assert_eq!(serde_json::to_value(Step::Done).unwrap(), json!({ "kind": "done" }));
    let o: Outcome = serde_json::from_str(r#"{"answers":[{"status":0,"ms":3.5,"error":"ECONNREFUSED","at":1}]}"#).unwrap();
    assert_eq!(o.answers[0].status, Some(0));
}

/// The sends of the diagnosis: between the creation's delivery log and the retry.
fn diagnostic_sends(face: &Face) -> usize {
    let at = face.steps.iter().position(|s| s == "sandbox:redeliver").expect("the retry scene");
    face.steps[4..at].iter().filter(|s| *s == "send").count()
}

#[test]
fn a_pos_that_verifies_with_a_padded_secret_gets_its_cause_named_and_the_diagnosis_stops_there() {
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::SecretNewline);
    let report = face.run().expect("no abort");
    assert!(!report.ok);
    assert_eq!(status(&report, CREATION), CheckStatus::Failed);
    assert_eq!(status(&report, REFUSAL), CheckStatus::Failed);
    let m = message(&report, REFUSAL);
    assert!(m.starts_with("The secret carries a trailing newline"), "{m}");
    assert!(m.contains("(HTTP 401)") && m.contains("(HTTP 200)"), "{m}");
    assert!(!m.contains("Ruled out"), "{m}");
    // The second defect: a signature made with another key is accepted.
    assert_eq!(status(&report, FOREIGN), CheckStatus::Failed);
    assert!(message(&report, FOREIGN).starts_with("the POS accepts a signature the service never makes"));
    // body-json-stringify cannot tell this body apart (it is already in that form): one send.
    assert_eq!(diagnostic_sends(&face), 1, "{:?}", face.steps);
    let check = report.checks.iter().find(|c| c.id == REFUSAL).unwrap();
    assert_eq!(check.evidence.len(), 2, "the refused genuine delivery and the accepted variant");
    assert!(check.evidence[1].note.as_deref().unwrap().starts_with("diagnostic delivery secret-trailing-newline"));
    assert!(face.said.iter().any(|l| l.starts_with("the genuine creation webhook was refused (HTTP 401): up to 25 diagnostic deliveries")));
}

#[test]
fn a_pos_that_refuses_everything_gets_the_causes_ruled_out_within_the_bound() {
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::Refusing);
    let report = face.run().expect("no abort");
    let sends = diagnostic_sends(&face);
    assert!((1..=crate::signature::MAX_DIAGNOSTIC_DELIVERIES).contains(&sends), "{sends}");
    assert_eq!(status(&report, REFUSAL), CheckStatus::Failed);
    let m = message(&report, REFUSAL);
    assert!(m.starts_with(&format!("the POS refused a genuine delivery (HTTP 401) and each of the {sends} diagnostic deliveries")), "{m}");
    assert!(m.contains("Ruled out: ") && m.contains("the secret carries a trailing newline"), "{m}");
    assert_eq!(status(&report, FOREIGN), CheckStatus::Passed);
    assert!(face.plan.refused().is_some());
}

#[test]
fn a_pos_that_answers_404_gets_the_route_said_and_no_diagnostic_delivery() {
    let mut face = Face::new(json!({ "pos": POS, "receiverOnly": true }), Pos::NotFound);
    let report = face.run().expect("no abort");
    assert_eq!(diagnostic_sends(&face), 0);
    assert_eq!(status(&report, REFUSAL), CheckStatus::Failed);
    let m = message(&report, REFUSAL);
    assert!(m.starts_with("the POS answered 404 to POST /v1/order/STORE-1") && m.contains("POST /v1/order/{remoteId}"), "{m}");
    assert_eq!(status(&report, FOREIGN), CheckStatus::Inconclusive);
}

#[test]
fn the_diagnosis_rules_are_receiver_errors_listed_by_the_probe() {
    for id in [REFUSAL, FOREIGN] {
        let r = crate::probe::rule(id).expect("listed");
        assert_eq!((r.side, r.severity), (Side::Receiver, crate::diagnostic::Severity::Error));
        assert!(crate::probe::every_rule().iter().any(|i| i.id == id));
    }
}
