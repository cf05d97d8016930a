//! The shared order fixtures: `tests/fixtures/order/cases.json` (check_order) and
//! `tests/fixtures/order/predictions.json` (predict_action, apply_event, apply_trigger).

use poscheck::order::{self, apply_event, apply_trigger, check_order, predict_request, Action, CheckOptions, ServiceTrigger};
use serde_json::{Map, Value};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/order")
}

fn read_json(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Expect {
    rule_id: String,
    severity: String,
    path: String,
    line: u32,
    column: u32,
}

#[test]
fn check_order_cases() {
    let cases = read_json("cases.json");
    let cases = cases.as_array().expect("cases.json is an array");
    assert!(cases.len() >= 30, "the manifest lost cases");
    let mut failures = Vec::new();
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let input = std::fs::read(dir().join(file)).unwrap();
        let report = check_order(&input, &CheckOptions::default());
        assert_eq!(report.kind.as_deref(), Some("orderDetail"), "{file}");
        let mut want: Vec<Expect> = case["expect"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| Expect {
                rule_id: e["ruleId"].as_str().unwrap().into(),
                severity: e["severity"].as_str().unwrap().into(),
                path: e["path"].as_str().unwrap().into(),
                line: e["line"].as_u64().unwrap() as u32,
                column: e["column"].as_u64().unwrap() as u32,
            })
            .collect();
        let mut got: Vec<Expect> = report
            .diagnostics
            .iter()
            .map(|d| Expect {
                rule_id: d.rule_id.into(),
                severity: d.severity.as_str().into(),
                path: d.path.clone(),
                line: d.line,
                column: d.column,
            })
            .collect();
        want.sort();
        got.sort();
        if want.is_empty() {
            assert!(report.ok, "{file}: a valid fixture must have no error");
        }
        if want != got {
            failures.push(format!(
                "{file}:\n  want {want:?}\n  got  {got:?}\n  messages {:?}",
                report.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
            ));
        }
        // Every rule that fired is a documented rule.
        for d in &report.diagnostics {
            assert!(order::RULES.iter().any(|r| r.id == d.rule_id), "{file}: undocumented rule {}", d.rule_id);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every rule of check_order has a fixture that expects it.
    let expected: Vec<&str> =
        cases.iter().flat_map(|c| c["expect"].as_array().unwrap().iter().map(|e| e["ruleId"].as_str().unwrap())).collect();
    for rule in order::RULES {
        // The budget rule is exercised by tests/hostile.rs (it needs thousands of diagnostics).
        let exempt = ["json/invalid-utf8", "json/too-deep", "json/too-large", "json/duplicate-key", "order/too-many-diagnostics"];
        // payload/* rules check data.order with the creation payload's shape: the same code as
        // validatePayload, whose fixtures (tests/fixtures/payload) cover them.
        if !exempt.contains(&rule.id) && !rule.id.starts_with("payload/") {
            assert!(expected.contains(&rule.id), "rule {} has no fixture", rule.id);
        }
    }
}

#[test]
fn valid_fixtures_cover_the_field_tables() {
    // Delivery and pickup, a driver reassigned, cancelled after handover, an order from before 2026-08-12.
    let cases = read_json("cases.json");
    let valid: Vec<&str> = cases
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["expect"].as_array().unwrap().is_empty())
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    let detail = |f: &str| {
        let v = read_json(f);
        v.get("data").cloned().unwrap_or(v)
    };
    let kinds: Vec<String> = valid.iter().map(|f| detail(f)["order"]["fulfillment"]["type"].as_str().unwrap_or("").to_string()).collect();
    assert!(kinds.iter().any(|k| k == "delivery") && kinds.iter().any(|k| k == "pickup"));
    let has = |pred: &dyn Fn(&Value) -> bool| valid.iter().any(|f| pred(&detail(f)));
    assert!(has(&|o| o["history"].as_array().unwrap().iter().any(|r| r["driver"]["event"] == "driver_reassigned")));
    assert!(has(&|o| o["status"] == "Cancelled" && o["history"].as_array().unwrap().iter().any(|r| r["fromStatus"] == "HandedOver")));
    assert!(has(&|o| o["order"]["createdAt"].as_str().unwrap_or("9") < "2026-08-12"));
    assert!(has(&|o| o["status"] == "HandedOver" && o["handedOverAt"].is_null()));
}

fn load_order(case: &Value) -> Value {
    let mut order = match &case["order"] {
        Value::String(file) => read_json(file),
        inline => inline.clone(),
    };
    if let Some(Value::Object(patch)) = case.get("orderPatch") {
        let target: &mut Map<String, Value> = order.as_object_mut().unwrap();
        for (k, v) in patch {
            target.insert(k.clone(), v.clone());
        }
    }
    order
}

fn fail(errors: &mut Vec<String>, name: &str, what: &str, want: &Value, got: &Value) {
    if want != got {
        errors.push(format!("{name}: {what}: want {want}, got {got}"));
    }
}

/// `expectAt`: JSON pointer → value in the whole serialized outcome (null also matches an absent
/// member); `expectChecksClean`: the order produced passes check_order with no error.
fn check_at(name: &str, case: &Value, outcome: &Value, errors: &mut Vec<String>) {
    if let Some(Value::Object(at)) = case.get("expectAt") {
        for (ptr, w) in at {
            fail(errors, name, ptr, w, outcome.pointer(ptr).unwrap_or(&Value::Null));
        }
    }
    if case.get("expectChecksClean") == Some(&Value::Bool(true)) {
        let r = check_order(&serde_json::to_vec(&outcome["order"]).unwrap(), &CheckOptions::default());
        if !r.ok {
            errors.push(format!(
                "{name}: the order produced does not check clean: {:?}",
                r.diagnostics.iter().map(|d| (d.rule_id, &d.message)).collect::<Vec<_>>()
            ));
        }
    }
}

fn check_common(name: &str, case: &Value, status: &str, row: Option<&str>, basis: &str, order: &Value, errors: &mut Vec<String>) {
    if let Some(w) = case.get("expectStatus") {
        fail(errors, name, "status", w, &Value::from(status));
        fail(errors, name, "order.status", w, &order["status"]);
    }
    if let Some(w) = case.get("expectRow") {
        fail(errors, name, "row", w, &row.map_or(Value::Null, Value::from));
    }
    if let Some(w) = case.get("expectBasis") {
        fail(errors, name, "basis", w, &Value::from(basis));
    }
    if let Some(Value::Object(set)) = case.get("expectSet") {
        for (k, w) in set {
            fail(errors, name, &format!("order.{k}"), w, order.get(k).unwrap_or(&Value::Null));
        }
    }
    // Accepted is never observable.
    if order["status"] == "Accepted" || status == "Accepted" {
        errors.push(format!("{name}: Accepted exposed"));
    }
}

#[test]
fn predictions() {
    let cases = read_json("predictions.json");
    let cases = cases.as_array().unwrap();
    let mut errors: Vec<String> = Vec::new();
    let mut rows_seen: Vec<String> = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let order = load_order(case);
        if let Some(r) = case.get("expectRow").and_then(Value::as_str) {
            rows_seen.push(r.to_string());
        }
        if let Some(action) = case.get("action").and_then(Value::as_str) {
            let now = case["now"].as_i64().unwrap();
            let body = case.get("body").map(|b| match b {
                Value::String(t) => t.clone().into_bytes(),
                other => serde_json::to_vec(other).unwrap(),
            });
            let p =
                predict_request(&order, &Action::parse(action).unwrap(), body.as_deref(), now).unwrap_or_else(|e| panic!("{name}: {e}"));
            let v = serde_json::to_value(&p).unwrap();
            check_at(name, case, &v, &mut errors);
            if let Some(w) = case.get("expectHttpStatus") {
                fail(&mut errors, name, "httpStatus", w, &v["httpStatus"]);
            }
            if let Some(w) = case.get("expectEvent") {
                fail(&mut errors, name, "event", w, &v["event"]);
            }
            if let Some(w) = case.get("expectAlreadyReached") {
                fail(&mut errors, name, "alreadyReached", w, &v["alreadyReached"]);
            }
            if let Some(w) = case.get("expectProblemTypeSuffix").and_then(Value::as_str) {
                let t = v["problem"]["type"].as_str().unwrap_or("");
                if !t.ends_with(&format!("/{w}")) {
                    errors.push(format!("{name}: problem type {t:?} does not end with /{w}"));
                }
            }
            if let Some(w) = case.get("expectCurrentStatus") {
                fail(&mut errors, name, "meta.currentStatus", w, &v["problem"]["meta"]["currentStatus"]);
            }
            if let Some(w) = case.get("expectAllowed") {
                fail(&mut errors, name, "meta.allowedTransitions", w, &v["problem"]["meta"]["allowedTransitions"]);
            }
            if let Some(w) = case.get("expectAdviceContains").and_then(Value::as_str) {
                if !p.advice.contains(w) {
                    errors.push(format!("{name}: advice {:?} lacks {w:?}", p.advice));
                }
            }
            // Shape: 202 carries a response and no problem; 409 carries its meta; 422 its errors.
            match p.http_status {
                202 => {
                    if p.problem.is_some() || p.response.is_none() {
                        errors.push(format!("{name}: 202 shape"));
                    }
                }
                409 => {
                    let meta = &v["problem"]["meta"];
                    if !meta["currentStatus"].is_string() || !meta["allowedTransitions"].is_array() || v["problem"]["status"] != 409 {
                        errors.push(format!("{name}: 409 without its meta"));
                    }
                }
                422 => {
                    if !v["problem"]["meta"]["errors"].is_object() {
                        errors.push(format!("{name}: 422 without meta.errors"));
                    }
                }
                other => errors.push(format!("{name}: unexpected status {other}")),
            }
            check_common(name, case, &p.status, Some(p.row), p.basis.as_str(), &p.order, &mut errors);
        } else if let Some(trigger) = case.get("trigger").and_then(Value::as_str) {
            let now = case["now"].as_i64().unwrap();
            let t = apply_trigger(&order, ServiceTrigger::parse(trigger).unwrap(), now).unwrap_or_else(|e| panic!("{name}: {e}"));
            let v = serde_json::to_value(&t).unwrap();
            check_at(name, case, &v, &mut errors);
            if let Some(w) = case.get("expectApplied") {
                if *w != v["applied"] {
                    errors.push(format!("{name}: applied: want {w}, got {}", v["applied"]));
                }
            }
            if let Some(w) = case.get("expectWebhook") {
                if *w != v["webhook"] {
                    errors.push(format!("{name}: webhook: want {w}, got {}", v["webhook"]));
                }
            }
            check_common(name, case, &t.status, t.row, t.basis.as_str(), &t.order, &mut errors);
        } else if let Some(event) = case.get("event") {
            let o = apply_event(&order, event).unwrap_or_else(|e| panic!("{name}: {e}"));
            let v = serde_json::to_value(&o).unwrap();
            check_at(name, case, &v, &mut errors);
            for (field, key) in
                [("expectStatusChanged", "statusChanged"), ("expectIgnored", "ignored"), ("expectReceiverHttpStatus", "receiverHttpStatus")]
            {
                if let Some(w) = case.get(field) {
                    if *w != v[key] {
                        errors.push(format!("{name}: {key}: want {w}, got {}", v[key]));
                    }
                }
            }
            if o.receiver_http_status != 200 {
                errors.push(format!("{name}: the receiver always answers 200"));
            }
            check_common(name, case, &o.status, o.row, o.basis.as_str(), &o.order, &mut errors);
        } else {
            panic!("{name}: a case has an action, a trigger or an event");
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // Every row of the table is exercised, except the reassignment (no webhook of its own: it is
    // covered by the driver-reassigned.json fixture of check_order).
    let m = order::machine();
    for row in m.rows {
        if row.id == "driver-reassigned" {
            continue;
        }
        assert!(rows_seen.iter().any(|r| r == row.id), "row {} has no prediction case", row.id);
    }
}
