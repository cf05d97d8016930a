//! The controls' router and answers: every route, bad paths and bodies, the status table.

use super::*;
use serde_json::{json as value, Value};

const NOW: i64 = 1_790_000_000_000;

struct Sb {
    service: Service,
    face: Face,
}

impl Sb {
    fn new(manual: bool) -> Self {
        let service = Service::new(None, Default::default(), 7).unwrap();
        Self { service, face: Face { url: "http://127.0.0.1:1".into(), manual_clock: manual, ..Face::default() } }
    }

    fn call(&mut self, method: &str, target: &str, body: &str) -> ControlReply {
        handle(&mut self.service, &self.face, method, target, body.as_bytes(), NOW, NOW / 1000)
    }

    /// The reply's status and its body as JSON (`Null` for an empty body).
    fn json(&mut self, method: &str, target: &str, body: &str) -> (u16, Value) {
        let r = self.call(method, target, body);
        (r.status, if r.body.is_empty() { Value::Null } else { serde_json::from_str(&r.body).unwrap() })
    }

    /// Creates an order; its key.
    fn order(&mut self) -> String {
        let r = self.call("POST", "/_sandbox/orders", "{}");
        let FaceEffect::Settle { then: Then::Order { id }, deliveries } = r.effect else { panic!("{r:?}") };
        assert_eq!(deliveries.len(), 1);
        id
    }
}

fn code(r: &ControlReply) -> String {
    let v: Value = serde_json::from_str(&r.body).unwrap();
    v["error"]["code"].as_str().unwrap().to_string()
}

fn message(r: &ControlReply) -> String {
    let v: Value = serde_json::from_str(&r.body).unwrap();
    v["error"]["message"].as_str().unwrap().to_string()
}

#[test]
fn the_status_of_every_error_code() {
    for (c, s) in [
        ("NOT_FOUND", 404),
        ("NOT_APPLICABLE", 409),
        ("LIMIT", 409),
        ("CLOSED", 503),
        ("INTERNAL", 500),
        ("INVALID_CONTROL", 400),
        ("INVALID_ARGUMENT", 400),
        ("INVALID_CONFIG", 400),
    ] {
        assert_eq!(status(c), s, "{c}");
        assert_eq!(error(c, "m").status, s);
    }
    assert_eq!(error("NOT_FOUND", "no order x").body, r#"{"error":{"code":"NOT_FOUND","message":"no order x"}}"#);
}

#[test]
fn every_route_is_read() {
    let r = |m: &str, t: &str, b: &str| route(m, t, b.as_bytes()).unwrap();
    assert_eq!(r("GET", "/_sandbox", ""), ControlRequest::Info);
    assert_eq!(r("GET", "/_sandbox/", ""), ControlRequest::Info);
    assert_eq!(r("GET", "/_sandbox?x=1", ""), ControlRequest::Info);
    assert_eq!(
        r("POST", "/_sandbox/orders", r#"{"store":"S"}"#),
        ControlRequest::CreateOrder { input: value!({"store":"S"}).as_object().unwrap().clone() }
    );
    assert_eq!(r("GET", "/_sandbox/orders", ""), ControlRequest::Orders);
    assert_eq!(r("GET", "/_sandbox/orders/ord_1", ""), ControlRequest::Order { id: "ord_1".into() });
    assert_eq!(r("GET", "/_sandbox//orders//a%2Fb/", ""), ControlRequest::Order { id: "a/b".into() });
    for (segment, action) in [
        ("assign-driver", OrderAction::AssignDriver),
        ("release-driver", OrderAction::ReleaseDriver),
        (READY, OrderAction::MarkReadyByDriver),
        ("deliver", OrderAction::Deliver),
        ("cancel", OrderAction::Cancel),
        ("refund", OrderAction::Refund),
    ] {
        assert_eq!(
            r("POST", &format!("/_sandbox/orders/k/{segment}"), ""),
            ControlRequest::OnOrder { action, id: "k".into(), input: Map::new() }
        );
    }
    assert_eq!(r("POST", "/_sandbox/advance", r#"{"seconds":5}"#), ControlRequest::Advance { seconds: Some(value!(5)) });
    assert_eq!(r("GET", "/_sandbox/deliveries", ""), ControlRequest::Deliveries);
    assert_eq!(r("POST", "/_sandbox/deliveries/d/redeliver", ""), ControlRequest::Redeliver { id: "d".into(), input: Map::new() });
    assert_eq!(r("GET", "/_sandbox/requests", ""), ControlRequest::Requests { after: Some(0) });
    assert_eq!(r("GET", "/_sandbox/requests?after=12", ""), ControlRequest::Requests { after: Some(12) });
    assert_eq!(r("GET", "/_sandbox/requests?x=1&after=3&after=4", ""), ControlRequest::Requests { after: Some(3) });
    for bad in ["-1", "1.5", "", "1234567890123456", "x"] {
        assert_eq!(r("GET", &format!("/_sandbox/requests?after={bad}"), ""), ControlRequest::Requests { after: None }, "{bad}");
    }
    assert_eq!(r("GET", "/_sandbox/menu", ""), ControlRequest::MenuState);
    assert_eq!(r("PUT", "/_sandbox/menu", ""), ControlRequest::SeedMenu { body: "{}".into(), brand: None });
    assert_eq!(
        r("PUT", "/_sandbox/menu?brand=12", r#"{ "a" : 1.0 }"#),
        ControlRequest::SeedMenu { body: r#"{"a":1}"#.into(), brand: Some(12.0) }
    );
    assert_eq!(r("PUT", "/_sandbox/menu?brand=", ""), ControlRequest::SeedMenu { body: "{}".into(), brand: Some(0.0) });
    assert!(matches!(r("PUT", "/_sandbox/menu?brand=x", ""), ControlRequest::SeedMenu { brand: Some(b), .. } if b.is_nan()));
    assert_eq!(r("GET", "/_sandbox/menu/stores/S-1", ""), ControlRequest::StoreMenu { id: "S-1".into() });
    assert_eq!(
        r("POST", "/_sandbox/menu/fail", r#"{"store":"S","fail":0,"errorCode":"X"}"#),
        ControlRequest::FailMenu { store: "S".into(), fail: true, error_code: Some(value!("X")) }
    );
    assert_eq!(
        r("POST", "/_sandbox/menu/fail", r#"{"store":"S","fail":false}"#),
        ControlRequest::FailMenu { store: "S".into(), fail: false, error_code: None }
    );
    assert_eq!(
        r("PUT", "/_sandbox/faults", r#"{"badGateway":1}"#),
        ControlRequest::SetFaults { input: value!({"badGateway":1}).as_object().unwrap().clone() }
    );
    assert_eq!(r("POST", "/_sandbox/reset", ""), ControlRequest::Reset);
}

#[test]
fn unknown_controls_are_404_with_the_path() {
    for (m, t, msg) in [
        ("DELETE", "/_sandbox/orders", "no control DELETE /_sandbox/orders"),
        ("GET", "/_sandbox/nothing/here", "no control GET /_sandbox/nothing/here"),
        ("POST", "/_sandbox/orders/k/fly", "no control POST /_sandbox/orders/k/fly"),
        ("GET", "/_sandbox/menu/stores", "no control GET /_sandbox/menu/stores"),
        ("HEAD", "/_sandbox", "no control HEAD /_sandbox"),
        ("GET", "/_sandbox/../api/v1/Orders", "no control GET /_sandboxrders"),
        ("GET", "/_sandbox/nothing/./x/..", "no control GET /_sandbox/nothing/"),
    ] {
        let e = route(m, t, b"").unwrap_err();
        assert_eq!((e.status, code(&e), message(&e)), (404, "NOT_FOUND".into(), msg.into()), "{m} {t}");
    }
    // `..` resolves (as `new URL` does; the 404 names what is left after the prefix's length): /_sandbox/orders/x/.. is the list.
    assert_eq!(route("GET", "/_sandbox/orders/x/..", b"").unwrap(), ControlRequest::Orders);
}

#[test]
fn bad_paths_and_bodies_are_400_invalid_control() {
    for t in ["/_sandbox/orders/%ZZ", "/_sandbox/orders/%E0%A4", "/_sandbox/orders/%"] {
        let e = route("GET", t, b"").unwrap_err();
        assert_eq!((e.status, message(&e).as_str()), (400, "the path is not valid percent-encoded UTF-8"), "{t}");
    }
    assert_eq!(route("GET", "/_sandbox/orders/%00", b"").unwrap(), ControlRequest::Order { id: "\0".into() });
    let deep = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    for (body, msg) in [
        ("[]", "the body must be a JSON object"),
        ("1e999999", "the body is not JSON: "),
        ("null", "the body must be a JSON object"),
        ("{", "the body is not JSON: "),
        (" ", "the body is not JSON: "),
        (deep.as_str(), "the body is nested too deeply"),
    ] {
        let e = route("POST", "/_sandbox/orders", body.as_bytes()).unwrap_err();
        assert_eq!((e.status, code(&e).as_str()), (400, "INVALID_CONTROL"));
        assert!(message(&e).starts_with(msg), "{} → {}", &body[..body.len().min(20)], message(&e));
    }
    let e = route("POST", "/_sandbox/orders", &[0x7b, 0x22, 0x80, 0x22, 0x7d]).unwrap_err();
    assert!(message(&e).starts_with("the body is not JSON: "));
    // The body is read before the route: a bad body on an unknown control is still a 400.
    assert_eq!(route("POST", "/_sandbox/nothing", b"[]").unwrap_err().status, 400);
    let e = route("POST", "/_sandbox/menu/fail", br#"{"store":{"x":1}}"#).unwrap_err();
    assert_eq!((e.status, message(&e).as_str()), (400, "{ store, errorCode?, fail? } expected"));
}

#[test]
fn order_controls_settle_then_answer_the_detail() {
    let mut sb = Sb::new(false);
    let key = sb.order();
    let r = sb.call("POST", &format!("/_sandbox/orders/{key}/assign-driver"), r#"{"fullName":"Ana","code":"DRV-1"}"#);
    assert_eq!((r.status, r.body.as_str(), r.changed), (200, "", true));
    assert!(r.log.as_deref().unwrap().starts_with(&format!("• assignDriver {key}: ")), "{:?}", r.log);
    let FaceEffect::Settle { then: t, .. } = r.effect else { panic!() };
    assert_eq!(t, Then::Order { id: key.clone() });
    let detail = then(&sb.service, &t, NOW);
    assert_eq!(detail.status, 200);
    assert_eq!(detail.body, json(&sb.service.order(&key).unwrap().order));
    assert_eq!(
        serde_json::from_str::<Value>(&detail.body).unwrap()["order"]["summary"]["taxes"].as_i64(),
        Some(0),
        "an integral number without a fraction, as JS writes it"
    );
    assert!(!detail.body.contains(":0.0"), "numbers as JS writes them: {}", detail.body);
    assert_eq!(then(&sb.service, &Then::Order { id: "nope".into() }, NOW).body, "null");
    // The model's own errors, with their statuses.
    let r = sb.call("POST", &format!("/_sandbox/orders/{key}/refund"), "");
    assert_eq!((r.status, code(&r).as_str()), (409, "NOT_APPLICABLE"));
    let r = sb.call("POST", "/_sandbox/orders/nope/deliver", "");
    assert_eq!((r.status, message(&r).as_str()), (404, "no order nope"));
    let r = sb.call("POST", "/_sandbox/orders", r#"{"store":"NOPE"}"#);
    assert_eq!(r.status, 404);
    for body in [r#"{"items":[]}"#, r#"{"type":"drone"}"#, r#"{"__proto__":{"polluted":1}}"#] {
        let r = sb.call("POST", "/_sandbox/orders", body);
        assert_eq!((r.status, code(&r).as_str()), (400, "INVALID_CONTROL"), "{body}");
    }
    // `1.0` is the integer JS reads.
    let r = sb.call("POST", "/_sandbox/orders", r#"{"items":[{"remoteCode":"A","quantity":2.0}]}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(sb.service.orders().len(), 2);
    // Closed: refused.
    sb.face.closed = true;
    let r = sb.call("POST", "/_sandbox/orders", "");
    assert_eq!((r.status, code(&r).as_str(), message(&r).as_str()), (503, "CLOSED", "the sandbox is closed"));
    assert_eq!(sb.call("GET", "/_sandbox/orders", "").status, 200);
}

#[test]
fn reads_info_orders_requests_and_deliveries() {
    let mut sb = Sb::new(true);
    let (s, info) = sb.json("GET", "/_sandbox", "");
    assert_eq!(s, 200);
    let keys: Vec<&String> = info.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["url", "apiKey", "clients", "secret", "stores", "pos", "clock", "now", "assumptions", "controlPrefix"]);
    assert_eq!(
        (info["clock"].as_str(), info["now"].as_i64(), info["controlPrefix"].as_str()),
        (Some("manual"), Some(NOW / 1000), Some(PREFIX))
    );
    assert_eq!(info["apiKey"], value!(sb.service.config().clients[0].api_key));
    assert_eq!(then(&sb.service, &Then::Now, NOW + 1500).body, format!("{{\"now\":{}.5}}", NOW / 1000 + 1));
    let key = sb.order();
    let (s, list) = sb.json("GET", "/_sandbox/orders", "");
    assert_eq!((s, list[0]["orderKey"].as_str()), (200, Some(key.as_str())));
    let (s, one) = sb.json("GET", &format!("/_sandbox/orders/{key}"), "");
    assert_eq!((s, &one), (200, &list[0]));
    let r = sb.call("GET", "/_sandbox/orders/nope", "");
    assert_eq!((r.status, message(&r).as_str()), (404, "no order nope"));
    assert_eq!(sb.json("GET", "/_sandbox/requests", ""), (200, value!([])));
    let r = sb.call("GET", "/_sandbox/requests?after=-1", "");
    assert_eq!((r.status, code(&r).as_str()), (400, "INVALID_ARGUMENT"));
    let r = sb.call("GET", "/_sandbox/deliveries", "");
    assert_eq!((r.status, r.body.as_str(), r.effect), (200, "[]", FaceEffect::None));
}

#[test]
fn advance_needs_the_manual_clock_and_a_number_of_seconds() {
    let mut real = Sb::new(false);
    let r = real.call("POST", "/_sandbox/advance", r#"{"seconds":1}"#);
    assert_eq!((r.status, message(&r).as_str()), (400, "advance() needs clock: 'manual'"));
    let mut sb = Sb::new(true);
    for body in [r#"{"seconds":-1}"#, r#"{"seconds":"1"}"#, r#"{"seconds":1e308}"#, "{}", r#"{"seconds":null}"#] {
        let r = sb.call("POST", "/_sandbox/advance", body);
        assert_eq!((r.status, message(&r).as_str()), (400, "advance takes a number of seconds from 0 to a year"), "{body}");
    }
    let r = sb.call("POST", "/_sandbox/advance", r#"{"seconds":301.0005}"#);
    assert_eq!((r.status, r.effect), (200, FaceEffect::Advance { ms: 301_001, then: Then::Now }));
}

#[test]
fn redeliver_checks_its_options() {
    let mut sb = Sb::new(false);
    sb.order();
    let id = sb.service.deliveries().next().unwrap().id.clone();
    let path = format!("/_sandbox/deliveries/{id}/redeliver");
    for (body, msg) in [
        (r#"{"x":1}"#, r#"unknown option "x": redeliver takes { copies }"#),
        (r#"{"copies":1.5}"#, "copies must be an integer from 1 to 100"),
        (r#"{"copies":"2"}"#, "copies must be an integer from 1 to 100"),
        (r#"{"copies":1000000000}"#, "invalid control: copies must be 1 to 100"),
        (r#"{"copies":-1}"#, "invalid control: copies must be 1 to 100"),
    ] {
        let r = sb.call("POST", &path, body);
        assert_eq!((r.status, message(&r).as_str()), (400, msg), "{body}");
    }
    let r = sb.call("POST", "/_sandbox/deliveries/nope/redeliver", "");
    assert_eq!((r.status, message(&r).as_str()), (404, "no delivery nope"));
    let r = sb.call("POST", &path, r#"{"copies":2}"#);
    let FaceEffect::Send { attempts, then: Then::Attempts { attempts: numbers } } = r.effect else { panic!("{r:?}") };
    assert_eq!(attempts.len(), 2);
    assert!(attempts.iter().all(|a| a.redelivery && a.delivery_id == id));
    assert_eq!(numbers, attempts.iter().map(|a| a.attempt).collect::<Vec<_>>());
    // Once answered, the reply is their journal entries, in the order sent.
    for (a, status) in attempts.iter().zip([500, 200]) {
        sb.service.answered(a.attempt, status, b"{}", 3, NOW);
    }
    let r = then(&sb.service, &Then::Attempts { attempts: numbers }, NOW);
    let entries: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(entries.as_array().unwrap().iter().map(|e| e["status"].as_u64().unwrap()).collect::<Vec<_>>(), [500, 200]);
    assert!(entries.as_array().unwrap().iter().all(|e| e["redelivery"] == true && e["deliveryId"] == id.as_str()));
}

#[test]
fn menu_faults_and_reset() {
    let mut sb = Sb::new(false);
    let (s, state) = sb.json("GET", "/_sandbox/menu", "");
    assert_eq!((s, state.is_object()), (200, true));
    let r = sb.call("POST", "/_sandbox/menu/fail", r#"{"store":"STORE-1","errorCode":5}"#);
    assert_eq!((r.status, message(&r).as_str()), (400, "failMenuChanges: errorCode must be a string"));
    let r = sb.call("POST", "/_sandbox/menu/fail", r#"{"store":"STORE-1","errorCode":null}"#);
    assert_eq!((r.status, message(&r).as_str()), (400, "failMenuChanges: errorCode must be a string"));
    let r = sb.call("POST", "/_sandbox/menu/fail", r#"{"store":"STORE-1","fail":null}"#);
    assert_eq!((r.status, r.body.as_str()), (200, r#"{"store":"STORE-1","fail":true}"#));
    let r = sb.call("POST", "/_sandbox/menu/fail", r#"{"store":"STORE-9"}"#);
    assert_eq!((r.status, message(&r).as_str()), (404, "no store STORE-9"));
    let r = sb.call("POST", "/_sandbox/menu/fail", r#"{"store":"STORE-1","fail":false}"#);
    assert_eq!((r.status, r.body.as_str(), r.changed), (200, r#"{"store":"STORE-1","fail":false}"#, true));
    let r = sb.call("PUT", "/_sandbox/menu?brand=1.5", "{}");
    assert_eq!((r.status, message(&r).as_str()), (400, "seedMenu: brand must be an integer brand id"));
    let r = sb.call("PUT", "/_sandbox/menu", "{}");
    assert_eq!(r.status, 400, "{}", r.body);
    let (s, menu) = sb.json("GET", "/_sandbox/menu/stores/STORE-1", "");
    assert_eq!((s, menu["categories"].clone()), (200, value!([])));
    assert_eq!(sb.call("GET", "/_sandbox/menu/stores/NOPE", "").status, 404);
    let r = sb.call("PUT", "/_sandbox/faults", r#"{"rateLimited":1,"retryAfterSeconds":7}"#);
    assert_eq!((r.status, r.body.as_str()), (200, r#"{"faults":{"rateLimited":1,"retryAfterSeconds":7}}"#));
    assert_eq!(sb.service.options().faults.retry_after_seconds, Some(7));
    let r = sb.call("PUT", "/_sandbox/faults", r#"{"nope":1}"#);
    assert_eq!((r.status, code(&r).as_str()), (400, "INVALID_ARGUMENT"));
    assert!(message(&r).starts_with("faults: unknown field `nope`"), "{}", message(&r));
    sb.order();
    let r = sb.call("POST", "/_sandbox/reset", "");
    assert_eq!((r.status, r.body.as_str(), r.effect, r.changed), (200, r#"{"reset":true}"#, FaceEffect::None, true));
    assert!(sb.service.orders().is_empty());
}

#[test]
fn js_numbers_as_number_reads_them() {
    for (t, n) in [("", 0.0), (" 12 ", 12.0), ("0x10", 16.0), ("1e3", 1000.0), ("-5", -5.0), ("+1.5", 1.5), (".5", 0.5)] {
        assert_eq!(js_number(t), n, "{t}");
    }
    assert_eq!(js_number("-Infinity"), f64::NEG_INFINITY);
    for t in ["x", "inf", "nan", "1_0", "0x", "1 2"] {
        assert!(js_number(t).is_nan(), "{t}");
    }
}

#[test]
fn the_reply_as_the_face_reads_it() {
    let mut sb = Sb::new(false);
    let r = sb.call("GET", "/_sandbox/orders", "");
    assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"status":200,"body":"[]","effect":{"kind":"none"},"changed":false,"log":null}"#);
    let t = serde_json::to_string(&Then::Order { id: "k".into() }).unwrap();
    assert_eq!(t, r#"{"kind":"order","id":"k"}"#);
    assert_eq!(serde_json::from_str::<Then>(&t).unwrap(), Then::Order { id: "k".into() });
}

#[test]
fn the_npm_face_dispatches_on_the_same_prefix() {
    // pkg/src/sandbox.js tells a control from a REST request by the prefix (on every request, so
    // without a call into the module); it must be this one.
    let face = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pkg/src/sandbox.js")).unwrap();
    assert!(face.contains(&format!("export const CONTROL_PREFIX = '{PREFIX}';")), "pkg/src/sandbox.js: CONTROL_PREFIX is not {PREFIX}");
}

#[test]
fn the_journal_route_reads_pages_and_refuses_a_bad_after() {
    let mut sb = Sb::new(true);
    assert_eq!(sb.json("GET", "/_sandbox/journal", ""), (200, value!({ "entries": [], "next": 0, "more": false, "latest": 0 })));
    sb.order();
    let attempts = sb.service.due(NOW, NOW / 1000);
    sb.service.answered(attempts[0].attempt, 500, b"no", 8, NOW + 10);
    let key = sb.service.config().clients[0].api_key.clone();
    let req = crate::service::Request { method: "GET", target: "/api/v1/Orders", api_key: Some(&key), ..Default::default() };
    let a = sb.service.handle(&req, NOW);
    sb.service.record_call(&req, &a, NOW + 20);
    let (s, page) = sb.json("GET", "/_sandbox/journal?after=0", "");
    assert_eq!(s, 200);
    let kinds: Vec<(u64, &str)> =
        page["entries"].as_array().unwrap().iter().map(|e| (e["seq"].as_u64().unwrap(), e["type"].as_str().unwrap())).collect();
    assert_eq!(kinds, [(1, "delivery"), (2, "rest")]);
    assert_eq!((page["entries"][0]["status"].as_u64(), page["entries"][0]["answer"].as_str()), (Some(500), Some("no")));
    assert_eq!(sb.json("GET", "/_sandbox/journal?after=1", "").1["entries"][0]["seq"], 2);
    assert_eq!(sb.json("GET", "/_sandbox/requests", "").1[0]["seq"], 2, "requests() lists the REST calls, numbered in the one sequence");
    assert_eq!(sb.json("GET", "/_sandbox/deliveries", "").1[0]["status"], 500);
    for after in ["-1", "1.5", "1e3", "x", "", "%20", "1000000000000000", "99999999999999999999", "0x10", "+1"] {
        let r = sb.call("GET", &format!("/_sandbox/journal?after={after}"), "");
        assert_eq!((r.status, code(&r).as_str()), (400, "INVALID_ARGUMENT"), "after={after}");
        assert!(message(&r).starts_with("journal: after must be"), "{}", message(&r));
    }
    assert_eq!(sb.call("POST", "/_sandbox/journal", "").status, 404);
    sb.call("POST", "/_sandbox/reset", "");
    assert_eq!(sb.json("GET", "/_sandbox/journal", ""), (200, value!({ "entries": [], "next": 0, "more": false, "latest": 2 })));
}

#[test]
fn a_read_of_the_journal_with_wait_is_a_bounded_long_poll() {
    let mut sb = Sb::new(true);
    // Nothing above `after`: the face waits (cut to 30 s, at most MAX_WAITERS at once), then reads the page.
    for (wait, ms) in [("25000", 25_000), ("30001", MAX_WAIT_MS), ("999999999999999", MAX_WAIT_MS), ("1", 1)] {
        let r = sb.call("GET", &format!("/_sandbox/journal?after=0&wait={wait}"), "");
        assert_eq!((r.status, r.body.as_str()), (200, ""), "wait={wait}");
        assert_eq!(r.effect, FaceEffect::Wait { ms, limit: MAX_WAITERS, then: Then::Journal { after: 0 } }, "wait={wait}");
    }
    // wait=0 or no wait: answered at once.
    for target in ["/_sandbox/journal?after=0&wait=0", "/_sandbox/journal?after=0"] {
        assert_eq!(sb.call("GET", target, "").effect, FaceEffect::None, "{target}");
    }
    for wait in ["-1", "x", "", "1.5", "1e3", "1000000000000000"] {
        let r = sb.call("GET", &format!("/_sandbox/journal?after=0&wait={wait}"), "");
        assert_eq!((r.status, code(&r).as_str(), r.effect.clone()), (400, "INVALID_ARGUMENT", FaceEffect::None), "wait={wait}");
        assert!(message(&r).starts_with("journal: wait must be"), "{}", message(&r));
    }
    // An entry above `after`: answered at once, whatever the wait; the `then` reads the same page.
    sb.order();
    let attempts = sb.service.due(NOW, NOW / 1000);
    sb.service.answered(attempts[0].attempt, 200, br#"{"remoteOrderId":"R"}"#, 8, NOW + 10);
    let r = sb.call("GET", "/_sandbox/journal?after=0&wait=25000", "");
    assert_eq!(r.effect, FaceEffect::None);
    let page: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!((page["latest"].as_u64(), page["entries"][0]["seq"].as_u64()), (Some(1), Some(1)));
    assert_eq!(then(&sb.service, &Then::Journal { after: 0 }, NOW).body, r.body);
    assert!(matches!(sb.call("GET", "/_sandbox/journal?after=1&wait=25000", "").effect, FaceEffect::Wait { .. }));
    // An `after` past the last seq (a console that missed a reset) is answered at once.
    assert_eq!(sb.call("GET", "/_sandbox/journal?after=7&wait=25000", "").effect, FaceEffect::None);
}

#[test]
fn the_clock_and_state_routes() {
    let mut sb = Sb::new(true);
    assert_eq!(sb.json("GET", "/_sandbox/clock", ""), (200, value!({ "now": NOW / 1000, "nextDue": null })));
    sb.order();
    // The creation delivery is due at once.
    assert_eq!(sb.json("GET", "/_sandbox/clock", "").1["nextDue"], NOW / 1000);
    let (s, state) = sb.json("GET", "/_sandbox/state", "");
    assert_eq!(s, 200);
    assert_eq!(serde_json::to_value(sb.service.export_state().parse::<Value>().unwrap()).unwrap(), state);
    let loaded = Service::import_state(&serde_json::to_string(&state).unwrap()).unwrap();
    assert_eq!(loaded.orders().len(), 1);
    assert_eq!(sb.call("POST", "/_sandbox/clock", "").status, 404);
    let (s, words) = sb.json("GET", "/_sandbox/words", "");
    assert_eq!((s, &words["Status"]["Cancelled"], &words["ActorType"]["System"]), (200, &value!("Cancelled"), &value!("system")));
}

#[test]
fn a_control_is_the_prefix_then_a_slash_a_query_or_nothing() {
    for t in ["/_sandbox", "/_sandbox/", "/_sandbox/orders", "/_sandbox?x=1"] {
        assert!(super::is_control(t), "{t}");
    }
    for t in ["/_sandboxes", "/api/v1/Orders", "/", "", "/_SANDBOX/orders", "/x/_sandbox"] {
        assert!(!super::is_control(t), "{t}");
    }
}
