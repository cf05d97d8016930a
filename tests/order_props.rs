#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the order state machine: random sequences of POS actions, update events and
//! service-side triggers never leave a terminal state (except HandedOver → Cancelled), never
//! expose Accepted, every predicted 409 carries its meta, and every order a step produces passes
//! `check_order` with no error (the toolkit accepts its own output). Plus: no input makes anything
//! panic.

use poscheck::order::{
    self, apply_event, apply_trigger, check_order, history_path, next_actions, predict_action, predict_request, Action, CheckOptions,
    ServiceTrigger,
};
use poscheck::time::format_unix_seconds;
use proptest::prelude::*;
use serde_json::{json, Value};

const START: i64 = 1_787_227_200; // 2026-08-20T12:00:00Z; the fixtures' deadline is 12:05:00.

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/order/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[derive(Debug, Clone)]
enum Step {
    Action(String),
    Event(String),
    Trigger(ServiceTrigger),
}

fn step() -> impl Strategy<Value = (Step, i64)> {
    let action = prop::sample::select(vec![
        "accept",
        "reject",
        "reject:STORE_CLOSED",
        "reject:NOT_A_CODE",
        "preparing",
        "ready",
        "handed_over",
        "cancelled",
        "status:Ready",
        "status:",
    ])
    .prop_map(|s| Step::Action(s.to_string()));
    let event = prop::sample::select(vec!["cancelled", "delivered", "driver_assigned", "driver_released", "courier_nearby"])
        .prop_map(|s| Step::Event(s.to_string()));
    let trigger = prop::sample::select(ServiceTrigger::ALL.to_vec()).prop_map(Step::Trigger);
    (prop_oneof![3 => action, 2 => event, 2 => trigger], 0i64..400)
}

fn terminal(status: &str) -> bool {
    order::machine().states.iter().any(|s| s.name == status && s.terminal)
}

fn run(start: Value, steps: Vec<(Step, i64)>) -> Result<(), TestCaseError> {
    let mut order = start;
    let mut now = START;
    let key = order["orderKey"].as_str().unwrap().to_string();
    for (step, advance) in steps {
        now += advance;
        let before = order["status"].as_str().unwrap().to_string();
        let (after, next) = match &step {
            Step::Action(a) => {
                let p = match a.strip_prefix("reject:") {
                    Some(code) => {
                        let body = json!({ "reasonCode": code, "message": "from the property test" }).to_string();
                        let p = predict_request(&order, &Action::Reject, Some(body.as_bytes()), now).unwrap();
                        if p.http_status == 202 {
                            // Orders rule 2: an unknown reasonCode is normalized to SYSTEM_ISSUE and returned so in data.reason.
                            let applied = if code == "NOT_A_CODE" { "SYSTEM_ISSUE" } else { code };
                            prop_assert_eq!(&p.response.as_ref().unwrap()["reason"], &json!(applied));
                            prop_assert_eq!(&p.order["merchantStatusReason"], &json!(applied));
                        }
                        p
                    }
                    None => predict_action(&order, &Action::parse(a).unwrap(), now).unwrap(),
                };
                match p.http_status {
                    202 => {
                        prop_assert!(p.problem.is_none());
                        let allowed = order::machine().states.into_iter().find(|s| s.name == before).unwrap().allowed_transitions;
                        prop_assert!(allowed.contains(&p.status.as_str()), "{before} → {} is not a merchant transition", p.status);
                    }
                    409 => {
                        let problem = p.problem.as_ref().expect("a 409 carries a problem");
                        prop_assert_eq!(&problem["status"], &json!(409));
                        prop_assert_eq!(&problem["meta"]["currentStatus"], &json!(before));
                        let allowed = problem["meta"]["allowedTransitions"].as_array().expect("allowedTransitions");
                        if terminal(&before) {
                            prop_assert!(allowed.is_empty(), "terminal {before} with allowed {allowed:?}");
                        }
                        prop_assert!(!allowed.iter().any(|s| s == "Accepted"));
                        let t = problem["type"].as_str().unwrap();
                        prop_assert!(t.ends_with("/invalid-state-transition") || t.ends_with("/acceptance-timeout"), "{t}");
                        prop_assert_eq!(&p.order, &order, "a refusal changes nothing");
                    }
                    422 => {
                        // A PUT status value outside the enum, or a reject without its required reasonCode.
                        let field = if a == "reject" { "reasonCode" } else { "status" };
                        prop_assert!(p.problem.as_ref().unwrap()["meta"]["errors"][field].is_array(), "{a}: {:?}", p.problem);
                        prop_assert_eq!(&p.order, &order);
                    }
                    other => prop_assert!(false, "unexpected HTTP status {other}"),
                }
                (p.status.clone(), p.order)
            }
            Step::Event(e) => {
                let body = json!({ "orderKey": key, "remoteOrderId": "POS-1", "event": e, "occurredAt": format_unix_seconds(now) });
                let o = apply_event(&order, &body).unwrap();
                prop_assert_eq!(o.receiver_http_status, 200);
                if e.starts_with("driver_") || e == "courier_nearby" {
                    prop_assert!(!o.status_changed, "{e} changed the status");
                }
                (o.status.clone(), o.order)
            }
            Step::Trigger(t) => {
                let o = apply_trigger(&order, *t, now).unwrap();
                (o.status.clone(), o.order)
            }
        };
        prop_assert_ne!(after.as_str(), "Accepted");
        prop_assert_eq!(next["status"].as_str(), Some(after.as_str()));
        prop_assert!(order::machine().states.iter().any(|s| s.name == after && s.observable));
        if after != before {
            match before.as_str() {
                "Rejected" | "Cancelled" => {
                    prop_assert!(false, "left terminal {before} for {after} on {step:?}")
                }
                "HandedOver" => prop_assert_eq!(after.as_str(), "Cancelled", "HandedOver only leaves to Cancelled"),
                _ => {}
            }
        }
        // The accept cascade sets both timestamps at once.
        if before == "Pending" && after == "Preparing" {
            prop_assert!(next["acceptedAt"].is_string());
            prop_assert_eq!(&next["acceptedAt"], &next["preparingAt"]);
        }
        // Every simulated step appends the history rows the contract describes: the result checks clean.
        let report = check_order(&serde_json::to_vec(&next).unwrap(), &CheckOptions::default());
        prop_assert!(
            report.ok,
            "after {step:?} ({before} → {after}) check_order reports {:#?}",
            report.diagnostics.iter().filter(|d| d.severity == poscheck::Severity::Error).collect::<Vec<_>>()
        );
        if after != before {
            let last = next["history"].as_array().and_then(|h| h.last()).cloned().unwrap_or(Value::Null);
            prop_assert_eq!(&last["toStatus"], &json!(after), "a status change appends its history row");
            prop_assert!(last["changedAt"].is_string() && last["actorType"].is_string());
        }
        let n = next_actions(&next, now).unwrap();
        prop_assert_eq!(n.status, after.as_str());
        prop_assert!(n.actions.iter().all(|a| a.to != "Accepted"));
        order = next;
    }
    Ok(())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec![
            "Pending",
            "Accepted",
            "Ready",
            "HandedOver",
            "Cancelled",
            "2026-08-20T12:00:00Z",
            "ord_7Hq2LmXc9PzR4tBv",
            "x",
            ""
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "status",
                        "order",
                        "expiresAt",
                        "createdAt",
                        "history",
                        "event",
                        "orderKey",
                        "occurredAt",
                        "data",
                        "fulfillment",
                        "type",
                        "remoteOrderId",
                        "handedOverAt"
                    ]),
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_lifecycles_obey_the_table(steps in prop::collection::vec(step(), 0..24), auto in any::<bool>()) {
        let start = fixture(if auto { "pending-auto-accept.json" } else { "pending.json" });
        run(start, steps)?;
    }

    #[test]
    fn random_lifecycles_from_every_fixture_state(steps in prop::collection::vec(step(), 0..12),
        file in prop::sample::select(vec!["preparing.json", "ready.json", "driver-reassigned.json", "delivery-delivered.json", "closed-on-delivery.json", "rejected.json", "cancelled-after-handover.json", "before-2026-08-12.json", "pickup-delivered.json"])) {
        run(fixture(file), steps)?;
    }

    #[test]
    fn no_order_or_event_makes_anything_panic(order in json_value(), event in json_value(), now in any::<i64>(), action in ".{0,16}") {
        let a = Action::parse(&action).unwrap_or(Action::Status(action.clone()));
        if let Ok(p) = predict_action(&order, &a, now) {
            prop_assert!(p.status != "Accepted");
            if p.http_status == 409 {
                prop_assert!(p.problem.unwrap()["meta"]["allowedTransitions"].is_array());
            }
        }
        let _ = apply_event(&order, &event);
        for t in ServiceTrigger::ALL {
            let _ = apply_trigger(&order, *t, now);
        }
        let _ = next_actions(&order, now);
        let _ = history_path(&order);
        let text = serde_json::to_vec(&order).unwrap();
        let r = check_order(&text, &CheckOptions::default());
        prop_assert_eq!(r.ok, r.error_count == 0);
    }

    #[test]
    fn no_bytes_make_check_order_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let r = check_order(&bytes, &CheckOptions::default());
        prop_assert_eq!(r.kind.as_deref(), Some("orderDetail"));
        for d in &r.diagnostics {
            prop_assert!(d.line >= 1 && d.column >= 1);
        }
    }

    #[test]
    fn mutated_fixtures_never_panic_and_keep_positions(pos in any::<prop::sample::Index>(), byte in any::<u8>(),
        file in prop::sample::select(vec!["delivery-delivered.json", "driver-reassigned.json", "envelope.json"])) {
        let mut bytes = std::fs::read(format!("{}/tests/fixtures/order/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let i = pos.index(bytes.len());
        bytes[i] = byte;
        let r = check_order(&bytes, &CheckOptions::default());
        for d in &r.diagnostics {
            prop_assert!(d.span.start <= bytes.len());
            prop_assert!(order::RULES.iter().any(|rule| rule.id == d.rule_id));
        }
    }
}
