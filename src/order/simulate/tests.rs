//! The engine's unit tests.

mod lifecycle {
    use super::super::*;
    use crate::order::machine::{TriggerKind, CANCELLED, HANDED_OVER, PENDING, PREPARING, READY, REJECTED, ROWS};

    fn pending(expires: &str) -> Value {
        json!({
            "orderKey": "ord_AbCdEfGhIjKlMnOp", "status": "Pending", "remoteOrderId": "R-1",
            "receivedAt": "2026-08-20T12:00:00Z",
            "acceptedAt": null, "rejectedAt": null, "preparingAt": null, "readyAt": null,
            "driverAssignedAt": null, "handedOverAt": null, "deliveredAt": null, "cancelledAt": null,
            "history": [],
            "order": { "createdAt": "2026-08-20T11:59:58Z", "expiresAt": expires, "fulfillment": { "type": "delivery" } }
        })
    }

    fn at(s: &str) -> i64 {
        time::parse(s).unwrap().unix_seconds()
    }

    fn with_status(mut o: Value, status: &str) -> Value {
        o["status"] = json!(status);
        o
    }

    #[test]
    fn accept_before_the_deadline_cascades_to_preparing() {
        let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::Accept, at("2026-08-20T12:01:00Z")).unwrap();
        assert_eq!((p.http_status, p.status.as_str(), p.event), (202, PREPARING, Some(crate::order::machine::EVENT_ACCEPTED)));
        assert_eq!(p.order["acceptedAt"], "2026-08-20T12:01:00Z");
        assert_eq!(p.order["preparingAt"], p.order["acceptedAt"]);
        assert_eq!(p.response.as_ref().unwrap()["remoteOrderId"], "R-1");
        assert!(p.problem.is_none() && !p.already_reached);
    }

    #[test]
    fn accept_at_or_after_the_deadline_is_an_acceptance_timeout() {
        for now in ["2026-08-20T12:05:00Z", "2026-08-21T00:00:00Z"] {
            let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::Accept, at(now)).unwrap();
            assert_eq!((p.http_status, p.status.as_str()), (409, PENDING));
            let problem = p.problem.unwrap();
            assert!(problem["type"].as_str().unwrap().ends_with("/acceptance-timeout"));
            assert_eq!(problem["meta"]["currentStatus"], "Pending");
            assert_eq!(problem["meta"]["allowedTransitions"], json!(["Rejected"]));
            assert_eq!(p.order["acceptedAt"], Value::Null);
        }
    }

    #[test]
    fn every_service_trigger_of_the_table_can_be_applied() {
        // nextActions().serviceMay offers these; applyTrigger must accept each of them.
        for row in ROWS.iter().filter(|r| r.trigger.kind == TriggerKind::Service) {
            assert!(
                ServiceTrigger::parse(row.trigger.name).is_ok(),
                "row {} has trigger {} that apply_trigger rejects",
                row.id,
                row.trigger.name
            );
        }
    }

    #[test]
    fn ready_on_a_handed_over_order_is_past_ready_with_no_merchant_action_left() {
        let order = json!({"orderKey": "ord_0123456789abcdEF", "status": "HandedOver", "receivedAt": "2026-08-20T12:00:00Z",
            "acceptedAt": "2026-08-20T12:01:00Z", "preparingAt": "2026-08-20T12:01:00Z", "readyAt": "2026-08-20T12:10:00Z",
            "handedOverAt": "2026-08-20T12:20:00Z", "history": [], "order": null});
        let p = predict_action(&order, &Action::parse("ready").unwrap(), 1_787_230_000).unwrap();
        assert_eq!((p.http_status, p.row), (409, "no-merchant-transition"));
        // "state already reached" is stated for PUT status ready on a Ready order only.
        assert!(!p.already_reached);
        assert!(p.advice.contains("already past Ready") && p.advice.contains("do not retry"), "{}", p.advice);
        // "HandedOver | cancellation by refund or incident after handover | … | Cancelled": not terminal.
        assert!(!p.advice.contains("is terminal") && p.advice.contains("refund or incident"), "{}", p.advice);
    }

    #[test]
    fn ready_when_ready_is_already_reached() {
        let o = with_status(pending("2026-08-20T12:05:00Z"), READY);
        let p = predict_action(&o, &Action::parse("ready").unwrap(), at("2026-08-20T12:30:00Z")).unwrap();
        assert_eq!((p.http_status, p.row, p.already_reached), (409, "ready-already-reached", true));
        let meta = &p.problem.as_ref().unwrap()["meta"];
        assert_eq!(meta["currentStatus"], "Ready");
        assert_eq!(meta["allowedTransitions"], json!(["HandedOver"]));
        assert!(p.advice.contains("continue with handed_over"), "{}", p.advice);
    }

    #[test]
    fn terminal_states_answer_an_empty_allowed_list() {
        for s in [REJECTED, CANCELLED, HANDED_OVER] {
            for a in ["accept", "reject", "preparing", "ready", "handed_over"] {
                // A reject carries its required reasonCode, so that the state answers.
                let body = (a == "reject").then_some(br#"{"reasonCode": "STORE_CLOSED"}"#.as_slice());
                let p = predict_request(&with_status(pending("2026-08-20T12:05:00Z"), s), &Action::parse(a).unwrap(), body, 0).unwrap();
                assert_eq!(p.http_status, 409, "{s} {a}");
                assert_eq!(p.problem.unwrap()["meta"]["allowedTransitions"], json!([]), "{s} {a}");
                assert!(p.advice.contains("do not retry"), "{}", p.advice);
            }
        }
    }

    #[test]
    fn cancelled_and_garbage_are_refused_before_state() {
        let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::parse("cancelled").unwrap(), 0).unwrap();
        assert_eq!((p.http_status, p.row), (422, "put-cancelled"));
        assert!(p.problem.unwrap()["type"].as_str().unwrap().ends_with("/validation"));
        let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::parse("status:Ready").unwrap(), 0).unwrap();
        assert_eq!((p.http_status, p.row), (422, "put-unknown-value"));
        assert!(p.advice.contains("\"ready\""), "{}", p.advice);
    }

    #[test]
    fn action_parser() {
        assert_eq!(Action::parse("accept").unwrap(), Action::Accept);
        assert_eq!(Action::parse("handed_over").unwrap(), Action::Status("handed_over".into()));
        assert_eq!(Action::parse("status:x").unwrap(), Action::Status("x".into()));
        assert_eq!(Action::parse("cancel").unwrap_err().code(), "UNKNOWN_ACTION");
        assert_eq!(ServiceTrigger::parse("nope").unwrap_err().code(), "UNKNOWN_TRIGGER");
        for t in ServiceTrigger::ALL {
            assert_eq!(ServiceTrigger::parse(t.name()).unwrap(), *t);
            assert!(ROWS.iter().any(|r| r.trigger.name == t.name()), "{}", t.name());
        }
    }

    #[test]
    fn bad_inputs_are_errors_with_codes() {
        let a = Action::Accept;
        assert_eq!(predict_action(&json!([]), &a, 0).unwrap_err().code(), "INVALID_ORDER");
        assert_eq!(predict_action(&json!({"status": "Accepted"}), &a, 0).unwrap_err().code(), "INVALID_ORDER");
        assert_eq!(predict_action(&json!({"status": "DriverAssigned"}), &a, 0).unwrap_err().code(), "INVALID_ORDER");
        assert_eq!(
            predict_action(&json!({"status": "Pending", "order": {"expiresAt": "soon"}}), &a, 0).unwrap_err().code(),
            "INVALID_ORDER"
        );
        assert_eq!(predict_action(&json!({"status": "Pending"}), &a, -1).unwrap_err().code(), "INVALID_NOW");
        assert_eq!(predict_action(&json!({"status": "Pending"}), &a, i64::MAX).unwrap_err().code(), "INVALID_NOW");
        let o = pending("2026-08-20T12:05:00Z");
        // "Order update … Always 200": a body the receiver cannot act on is a verdict, not an error.
        let v = apply_event(&o, &json!("x")).unwrap();
        assert!(!v.valid && v.ignored && v.receiver_http_status == 200);
        let v = apply_event(&o, &json!({"status": "cancelled"})).unwrap();
        assert!(!v.valid && v.problem.unwrap().contains("2026-08-12"));
        let e =
            json!({"orderKey": "ord_0000000000000000", "remoteOrderId": "R-1", "event": "cancelled", "occurredAt": "2026-08-20T12:00:00Z"});
        assert_eq!(apply_event(&o, &e).unwrap_err().code(), "ORDER_KEY_MISMATCH");
        for code in ERROR_CODES {
            assert!(code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
        }
    }

    #[test]
    fn envelope_is_accepted() {
        let o = json!({ "message": "ok", "data": pending("2026-08-20T12:05:00Z") });
        let p = predict_request(&o, &Action::Reject, Some(br#"{"reasonCode": "STORE_CLOSED"}"#), at("2026-08-20T12:01:00Z")).unwrap();
        assert_eq!((p.http_status, p.status.as_str()), (202, REJECTED));
        assert_eq!(p.order["rejectedAt"], "2026-08-20T12:01:00Z");
        assert_eq!(history_path(&o), vec!["Pending".to_string()]);
    }

    #[test]
    fn next_actions_counts_down_the_deadline() {
        let o = pending("2026-08-20T12:05:00Z");
        let n = next_actions(&o, at("2026-08-20T12:04:00Z")).unwrap();
        assert_eq!(n.seconds_left_to_accept, Some(60));
        assert!(!n.acceptance_expired);
        assert_eq!(n.actions.iter().map(|a| a.action).collect::<Vec<_>>(), vec!["accept", "reject"]);
        let n = next_actions(&o, at("2026-08-20T12:06:00Z")).unwrap();
        assert_eq!((n.seconds_left_to_accept, n.acceptance_expired), (Some(0), true));
        assert_eq!(n.actions.iter().map(|a| a.action).collect::<Vec<_>>(), vec!["reject"]);
        assert_eq!(n.allowed_transitions, vec![REJECTED]);
        let n = next_actions(&with_status(o, READY), 0).unwrap();
        assert_eq!(n.seconds_left_to_accept, None);
        assert_eq!(n.actions.iter().map(|a| a.action).collect::<Vec<_>>(), vec!["handed_over"]);
    }
}

mod bodies {
    use super::super::*;
    use crate::basis::Basis;
    use crate::order::machine::PENDING;

    fn pending() -> Value {
        json!({
            "orderKey": "ord_AbCdEfGhIjKlMnOp", "storeId": 1, "brandId": 1, "status": "Pending", "merchantStatusReason": null,
            "remoteOrderId": "R-1", "receivedAt": "2026-08-20T12:00:00Z",
            "acceptedAt": null, "rejectedAt": null, "preparingAt": null, "readyAt": null,
            "driverAssignedAt": null, "handedOverAt": null, "deliveredAt": null, "cancelledAt": null,
            "history": [{"fromStatus": null, "toStatus": "Pending", "changedAt": "2026-08-20T12:00:00Z", "actorType": "system",
                         "actorId": null, "reason": null, "driver": null}],
            "order": null
        })
    }

    #[test]
    fn reject_takes_its_body_and_normalizes_an_unknown_reason_code() {
        // Orders rule 2: "A reasonCode outside that set does not fail: it is normalized to SYSTEM_ISSUE
        // and returned so in data.reason. It is never a 422."
        let body = br#"{"reasonCode": "KITCHEN_ON_FIRE", "message": "sorry"}"#;
        let p = predict_request(&pending(), &Action::Reject, Some(body), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 202);
        assert_eq!(p.response.as_ref().unwrap()["reason"], "SYSTEM_ISSUE");
        assert_eq!(p.order["merchantStatusReason"], "SYSTEM_ISSUE");
        let last = p.order["history"].as_array().unwrap().last().unwrap().clone();
        assert_eq!((last["toStatus"].as_str(), last["actorType"].as_str()), (Some("Rejected"), Some("merchant")));
        let p = predict_request(&pending(), &Action::Reject, Some(br#"{"reasonCode": "STORE_CLOSED"}"#), 1_787_227_260).unwrap();
        assert_eq!(p.response.unwrap()["reason"], "STORE_CLOSED");
        // "reasonCode (required enum)": without it the body is invalid (422).
        let p = predict_request(&pending(), &Action::Reject, Some(br#"{"message": "no code"}"#), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 422);
        assert!(p.problem.unwrap()["meta"]["errors"]["reasonCode"].is_array());
    }

    #[test]
    fn reject_without_a_body_is_a_422_for_its_required_reason_code() {
        // "POST reject | Body: reasonCode (required enum)"; Errors: "422 | invalid body".
        let order = pending();
        let p = predict_action(&order, &Action::Reject, 1_787_227_260).unwrap();
        assert_eq!((p.http_status, p.status.as_str(), p.row, p.event), (422, PENDING, "invalid-body", None));
        assert_eq!(p.order, order, "a refusal changes nothing");
        assert!(p.response.is_none());
        let problem = p.problem.unwrap();
        assert!(problem["type"].as_str().unwrap().ends_with("/validation"), "{problem}");
        assert_eq!(problem["status"], 422);
        assert_eq!(problem["meta"]["errors"], json!({ "reasonCode": ["missing required field \"reasonCode\""] }));
        assert_eq!(p.basis, Basis::Derived);
        assert!(p.bases.status.source.contains("reasonCode (required enum)"), "{}", p.bases.status.source);
        assert!(p.advice.contains("reasonCode"), "{}", p.advice);
        // The same answer as a body without reasonCode.
        let b = predict_request(&order, &Action::Reject, Some(br#"{"message": "closed"}"#), 1_787_227_260).unwrap();
        assert_eq!((b.http_status, &b.problem.unwrap()["meta"]["errors"]), (422, &problem["meta"]["errors"]));
        // On a state that refuses the call too, which comes first is not shown: the body is assumed first.
        let rejected = predict_request(&order, &Action::Reject, Some(br#"{"reasonCode": "STORE_CLOSED"}"#), 1_787_227_260).unwrap().order;
        let p = predict_action(&rejected, &Action::Reject, 1_787_227_300).unwrap();
        assert_eq!((p.http_status, p.basis), (422, Basis::Assumed));
    }

    #[test]
    fn accept_body_with_remote_order_id_is_invalid() {
        // "Body: empty JSON object; remoteOrderId must not be sent."
        let p = predict_request(&pending(), &Action::Accept, Some(br#"{"remoteOrderId": "X"}"#), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 422);
        let p = predict_request(&pending(), &Action::Accept, Some(b"{}"), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 202);
        assert!(p.response.as_ref().unwrap().get("preparingAt").is_none(), "preparingAt is not included");
    }

    #[test]
    fn every_step_passes_the_order_checker() {
        let check = |o: &Value| {
            let r = crate::order::check_order(&serde_json::to_vec(o).unwrap(), &crate::order::CheckOptions::default());
            assert!(r.ok, "{:#?}", r.diagnostics);
        };
        let o = pending();
        check(&o);
        let p = predict_action(&o, &Action::Accept, 1_787_227_260).unwrap();
        check(&p.order);
        let p = predict_action(&p.order, &Action::parse("ready").unwrap(), 1_787_227_900).unwrap();
        check(&p.order);
        let p = predict_action(&p.order, &Action::parse("handed_over").unwrap(), 1_787_228_000).unwrap();
        check(&p.order);
        let t = apply_trigger(&p.order, ServiceTrigger::RefundOrIncident, 1_787_229_000).unwrap();
        assert_eq!(t.status, "Cancelled");
        check(&t.order);
    }
}
