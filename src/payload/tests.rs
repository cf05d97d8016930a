use super::*;
use crate::shape::validate::route_of;
use crate::shape::validate_store_menu;

fn check(input: &str, kind: Option<PayloadKind>, path: Option<&str>) -> Report {
    validate_payload(input.as_bytes(), &PayloadOptions { kind, path: path.map(str::to_string), ..Default::default() })
}

fn ids(r: &Report) -> Vec<(&str, &str)> {
    r.diagnostics.iter().map(|d| (d.rule_id, d.path.as_str())).collect()
}

#[test]
fn kind_ids_round_trip_and_serialize_camel_case() {
    for k in PayloadKind::ALL {
        assert_eq!(PayloadKind::from_id(k.id()), Some(*k));
        assert_eq!(serde_json::to_value(k).unwrap(), serde_json::Value::String(k.id().to_string()));
    }
    assert_eq!(PayloadKind::from_id("OrderUpdateEvent"), None);
}

#[test]
fn routes() {
    let r = route_of("https://pos.example.test/base/v1/order/store%201/R-1/events");
    assert_eq!(r.kind, Some(PayloadKind::OrderUpdateEvent));
    assert_eq!(r.remote_id.as_deref(), Some("store 1"));
    assert_eq!(r.remote_order_id.as_deref(), Some("R-1"));
    assert!(!r.old_status_route);
    assert!(route_of("/v1/order/s/R/status").old_status_route);
    assert_eq!(route_of("{pos_base_url}/v1/order/s1").kind, Some(PayloadKind::OrderCreated));
    assert_eq!(route_of("/v1/menu/change/chg_0123456789abcDEF").change_key.as_deref(), Some("chg_0123456789abcDEF"));
    assert_eq!(route_of("/api/v1/Orders?PageSize=5").kind, Some(PayloadKind::OrderList));
    assert_eq!(route_of("/api/v1/menu/capabilities").kind, Some(PayloadKind::Capabilities));
    assert_eq!(route_of("/webhooks/orders").kind, None);
    // The webhook routes are matched on their last segments, decoded: an encoded "v1" is "v1".
    let r = route_of("/%761/order/s%2F1/R%2D1/events/");
    assert_eq!(
        (r.kind, r.remote_id.as_deref(), r.remote_order_id.as_deref()),
        (Some(PayloadKind::OrderUpdateEvent), Some("s/1"), Some("R-1"))
    );
    let r = route_of("/a/b/c/v1/menu/change/k%201");
    assert_eq!((r.kind, r.change_key.as_deref()), (Some(PayloadKind::MenuChangeCompleted), Some("k 1")));
    assert_eq!(route_of("/x/v1/order/s/events").remote_id.as_deref(), None, "four segments after v1 are no route of the service");
    assert_eq!(route_of("/v1/order").kind, None);
    assert_eq!(route_of("/v1/order/").kind, None);
    assert_eq!(route_of("v1/order/s").remote_id.as_deref(), Some("s"));
    assert_eq!(route_of("").kind, None);
    assert_eq!(route_of("/api/v1/menu/stores/s%2F1").kind, Some(PayloadKind::StoreMenu));
    // One slash is trimmed at each end, no more: an empty segment is a segment.
    assert_eq!(route_of("//api/v1/Orders").kind, None);
    assert_eq!(route_of("/api/v1/Orders/").kind, Some(PayloadKind::OrderList));
    assert_eq!(route_of("/api/v1/Orders//").kind, Some(PayloadKind::OrderDetail));
    assert_eq!(percent_decode("a%2Fb%zz%", false), "a/b%zz%");
    assert_eq!(percent_decode("a+b", true), "a b");
    assert_eq!(percent_decode("%ff", false), "%ff");
    assert_eq!(percent_decode("%+1%4", false), "%+1%4");
}

#[test]
fn unknown_event_is_info_and_conditional_fields_are_skipped() {
    let r = check(
        r#"{"orderKey":"ord_0123456789abcDEF","remoteOrderId":"R","event":"picked_up","occurredAt":"2026-08-12T00:00:00Z","reason":"x"}"#,
        None,
        None,
    );
    assert!(r.ok);
    assert_eq!(ids(&r), [("order-update/unknown-event", "event")]);
}

#[test]
fn conditional_fields_by_event() {
    let r = check(
        r#"{"orderKey":"ord_0123456789abcDEF","remoteOrderId":"R","event":"driver_released","occurredAt":"2026-08-12T00:00:00Z","driver":{"fullName":"A"}}"#,
        None,
        None,
    );
    assert_eq!(
        ids(&r),
        [
            ("order-update/field-missing-for-event", "reason"),
            ("order-update/field-missing-for-event", "releasedDriver"),
            ("order-update/field-missing-for-event", "expectedNext"),
            ("order-update/field-not-for-event", "driver"),
        ]
    );
}

#[test]
fn update_fields_are_read_in_one_pass_the_last_duplicate_winning() {
    let event = |members: &str| check(&format!("{{{members}}}"), Some(PayloadKind::OrderUpdateEvent), None);
    let rest = r#""remoteOrderId":"R","event":"delivered","occurredAt":"2026-08-12T00:00:00Z""#;
    // As JSON.parse reads them: the last of a duplicated name is the one checked.
    let r = event(&format!(r#""orderKey":"ord_bad","orderKey":"ord_0123456789abcDEF",{rest}"#));
    assert_eq!(ids(&r), [("json/duplicate-key", "orderKey")]);
    let r = event(&format!(r#""orderKey":"ord_0123456789abcDEF","orderKey":"ord_bad",{rest}"#));
    assert_eq!(ids(&r), [("json/duplicate-key", "orderKey"), ("payload/order-key-format", "orderKey")]);
    // The former status field: removed when it stands for event, unknown beside it.
    let r = event(r#""orderKey":"ord_0123456789abcDEF","remoteOrderId":"R","status":"delivered","occurredAt":"2026-08-12T00:00:00Z""#);
    assert_eq!(ids(&r), [("order-update/status-field-removed", "status")]);
    let r = event(&format!(r#""orderKey":"ord_0123456789abcDEF",{rest},"status":"delivered""#));
    assert_eq!(ids(&r), [("payload/unknown-field", "status")]);
    // Every field missing, one unknown; in a driver, a missing name and an unknown member.
    let r = event(r#""orderKy":1"#);
    assert_eq!(
        ids(&r),
        [
            ("payload/required-field", "orderKey"),
            ("payload/required-field", "remoteOrderId"),
            ("payload/required-field", "event"),
            ("payload/required-field", "occurredAt"),
            ("payload/unknown-field", "orderKy"),
        ]
    );
    let r = event(
        r#""orderKey":"ord_0123456789abcDEF","remoteOrderId":"R","event":"driver_assigned","occurredAt":"2026-08-12T00:00:00Z","driver":{"phone":null,"car":"x"}"#,
    );
    assert_eq!(ids(&r), [("payload/required-field", "driver.fullName"), ("payload/unknown-field", "driver.car")]);
}

#[test]
fn path_remote_order_id_is_authoritative() {
    let body = r#"{"orderKey":"ord_0123456789abcDEF","remoteOrderId":"R-2","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}"#;
    let r = check(body, None, Some("/v1/order/s1/R-1/events"));
    assert_eq!(r.kind.as_deref(), Some("orderUpdateEvent"));
    assert_eq!(ids(&r), [("order-update/remote-order-id-path", "remoteOrderId")]);
    assert!(r.ok);
    let r = check(body, Some(PayloadKind::OrderDetail), Some("/v1/order/s1/R-2/events"));
    assert_eq!(r.by_rule("payload/path-kind-mismatch").count(), 1);
}

#[test]
fn menu_change_status_must_match_rows() {
    let base = |status: &str, rows: &str| {
        format!(
            r#"{{"changeKey":"chg_0123456789abcDEF","status":"{status}","submittedAt":"2026-08-12T00:00:00Z","completedAt":"2026-08-12T00:00:01Z","results":[{rows}]}}"#
        )
    };
    let ok = r#"{"storeRemoteId":"S","targetEntity":"product","targetCode":"P","applied":true}"#;
    let ko = r#"{"storeRemoteId":"S","targetEntity":"product","targetCode":"P","applied":false,"errorCode":"UNKNOWN_CATEGORY","errorMessage":"m"}"#;
    assert!(check(&base("applied", ok), None, None).ok);
    assert!(check(&base("failed", ko), None, None).ok);
    assert!(check(&base("partial", &format!("{ok},{ko}")), None, None).ok);
    for (status, rows) in
        [("applied", format!("{ok},{ko}")), ("failed", ok.to_string()), ("partial", ok.to_string()), ("partial", String::new())]
    {
        let r = check(&base(status, &rows), None, None);
        assert_eq!(r.by_rule("menu-change/status-results").count(), 1, "{status} {rows}");
    }
}

#[test]
fn error_fields_null_on_applied_is_an_error() {
    let r = check(
        r#"{"changeKey":"chg_0123456789abcDEF","status":"applied","submittedAt":"2026-08-12T00:00:00Z","completedAt":"2026-08-12T00:00:01Z","results":[{"storeRemoteId":"S","targetEntity":"product","targetCode":"P","applied":true,"errorCode":null}]}"#,
        None,
        None,
    );
    assert_eq!(ids(&r), [("menu-change/error-fields-on-applied", "results[0].errorCode")]);
}

#[test]
fn a_full_menu_is_detected_and_handed_to_the_menu_linter() {
    // Issue 9, class 5: a valid full menu is not "kind-undetected"; the menu linter checks it.
    let r = check(r#"{"categories":[{"remoteCode":"C","name":"n","position":0,"products":[]}]}"#, None, None);
    assert_eq!(r.kind.as_deref(), Some("fullMenu"));
    assert!(r.by_rule("category/empty").count() == 1, "{:#?}", r.diagnostics);
    let r = check("[1]", None, None);
    assert_eq!(r.diagnostics[0].rule_id, "payload/kind-undetected");
}

#[test]
fn envelope_wrapping_a_resource_is_detected_as_the_resource() {
    let r = check(r#"{"message":"ok","data":{"capabilities":[],"notes":null}}"#, None, None);
    assert_eq!(r.kind.as_deref(), Some("capabilities"));
    assert!(r.ok);
    let r = check(r#"{"message":"ok","data":{"changeId":"chg_0123456789abcDEF"}}"#, Some(PayloadKind::Envelope), None);
    assert_eq!(r.kind.as_deref(), Some("envelope"));
    assert!(r.ok);
    let r = check(r#"{"message":"ok","data":[]}"#, None, None);
    assert_eq!(ids(&r), [("payload/field-type", "data")]);
}

#[test]
fn suggestions_only_name_fields_of_the_object() {
    let r = check(
        r#"{"orderKey":"ord_0123456789abcDEF","remoteOrderId":"R","event":"delivered","occurredAt":"2026-08-12T00:00:00Z","modifiers":[],"ocurredAt":"x"}"#,
        None,
        None,
    );
    let helps: Vec<Option<&str>> = r.diagnostics.iter().map(|d| d.help.as_deref()).collect();
    assert_eq!(helps, [None, Some("did you mean \"occurredAt\"?")]);
}

#[test]
fn creation_payload_takes_an_order_key_beside_the_order_fields() {
    // Accept takes the orderKey "from the creation webhook"; the envelope beyond the data.order
    // shape is not shown, and the sandbox puts it at the top level (assumed).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/payload");
    let base = std::fs::read_to_string(dir.join("order-created.delivery.valid.json")).unwrap();
    let with_key = |key: &str| base.replacen('{', &format!("{{\n  \"orderKey\": {key},"), 1);
    for (body, kind) in [
        (base.clone(), None),
        (with_key(r#""ord_7Hq2LmN9pQ4rS8tV""#), None),
        (with_key(r#""ord_7Hq2LmN9pQ4rS8tV""#), Some(PayloadKind::OrderCreated)),
    ] {
        let r = check(&body, kind, None);
        assert_eq!(r.kind.as_deref(), Some("orderCreated"), "{body}");
        assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
        let w = validate_webhook_payload(body.as_bytes(), &PayloadOptions { kind, ..Default::default() });
        assert_eq!((w.kind.as_deref(), w.diagnostics.len()), (Some("orderCreated"), 0), "{:#?}", w.diagnostics);
    }
    // The stated format of an orderKey ("ord_ + 16 base62"), and its JSON type.
    let r = check(&with_key(r#""ord_7Hq2""#), None, None);
    assert_eq!((r.kind.as_deref(), ids(&r)), (Some("orderCreated"), vec![("payload/order-key-format", "orderKey")]));
    let r = check(&with_key("null"), None, None);
    assert_eq!(ids(&r), [("payload/field-type", "orderKey")]);
    // Another field of the envelope is still not shown (info), with the orderKey among the suggestions.
    let r = check(&with_key(r#""ord_7Hq2LmN9pQ4rS8tV", "orderkey": 1"#), None, None);
    assert_eq!(ids(&r), [("payload/unknown-field", "orderkey")]);
    assert_eq!(
        (r.diagnostics[0].severity, r.diagnostics[0].help.as_deref()),
        (crate::diagnostic::Severity::Info, Some("did you mean \"orderKey\"?"))
    );
    // A sparse body: its orderKey does not make it an order detail (no history, receivedAt, brandId).
    let detail = check(r#"{"displayCode": "A", "orderKey": "ord_7Hq2LmN9pQ4rS8tV"}"#, None, None);
    assert_eq!(detail.kind.as_deref(), Some("orderCreated"), "a sparse body with an orderKey is still a creation");
    assert!(!ids(&detail).iter().any(|(id, _)| *id == "payload/kind-ambiguous"), "{:?}", ids(&detail));
}

#[test]
fn empty_merchant_error_is_accepted() {
    let r = check("", Some(PayloadKind::MerchantErrorResponse), None);
    assert!(r.ok && r.diagnostics.is_empty());
    let r = check("", None, None);
    assert_eq!(r.diagnostics[0].rule_id, "json/syntax");
}

#[test]
fn list_cursor_consistency() {
    let r = check(r#"{"items":[],"nextCursor":null,"hasMore":true}"#, None, None);
    assert_eq!(ids(&r), [("order-list/has-more-cursor", "hasMore")]);
    let r = check(r#"{"items":[],"nextCursor":"c","hasMore":false}"#, None, None);
    assert_eq!(ids(&r), [("order-list/has-more-cursor", "nextCursor")]);
    assert!(check(r#"{"items":[],"nextCursor":"c","hasMore":true}"#, None, None).ok);
}

#[test]
fn never_panics_on_hostile_input() {
    let mut inputs: Vec<Vec<u8>> = vec![
        b"\xff\xfe".to_vec(),
        b"{".to_vec(),
        "[".repeat(10_000).into_bytes(),
        b"null".to_vec(),
        b"\"x\"".to_vec(),
        b"{\"data\":null}".to_vec(),
    ];
    inputs.push(br#"{"orderKey":1,"remoteOrderId":null,"event":[],"occurredAt":{},"driver":"x","releasedDriver":3}"#.to_vec());
    inputs.push(br#"{"categories":[{"code":1,"products":[{"overrides":[{"type":"unavailable","fields":3,"window":"x"}],"modifierGroups":[{"min":"a","max":-1,"options":[7]}]}]}]}"#.to_vec());
    for input in &inputs {
        for kind in PayloadKind::ALL.iter().copied().map(Some).chain([None]) {
            for path in [None, Some("/v1/order/%/%%/events"), Some(""), Some("/")] {
                let r = validate_payload(input, &PayloadOptions { kind, path: path.map(str::to_string), ..Default::default() });
                assert_eq!(r.ok, r.error_count == 0);
            }
        }
    }
}

#[test]
fn requests_and_problems_never_panic() {
    let bodies: Vec<Option<Vec<u8>>> = vec![
        None,
        Some(Vec::new()),
        Some(b"\xff".to_vec()),
        Some(b"[".repeat(5000)),
        Some(br#"{"set": {"min": -1, "max": "x", "schedule": {"days": [1, "mon"], "startTime": 9}, "channels": "pickup", "image": 3}, "scope": 7, "stores": [null, ""]}"#.to_vec()),
        Some(br#"{"status": 1, "occurredAt": "9999-12-31T23:59:59Z", "reasonCode": ["x"], "changes": [null, {"targetEntity": "localProduct"}], "items": {}}"#.to_vec()),
    ];
    let paths = [
        "",
        "/",
        "?",
        "%",
        "://",
        "{",
        "/api/v1/Orders/%zz/accept?%=%&&=",
        "/api/v1/Orders?PageSize=-0&PageSize=+5&Status=&FromDate=%E2%82%AC",
        "/api/v1/menu?confirmLargeDeactivation",
    ];
    for e in ENDPOINTS {
        for body in &bodies {
            for now in [0, i64::MIN, i64::MAX] {
                let path = e
                    .path
                    .replace("{orderKey}", "ord_0123456789abcDEF")
                    .replace("{changeId}", "x")
                    .replace("{code}", "%")
                    .replace("{storeRemoteId}", "");
                let mut headers = crate::http::Headers::from_pairs([
                    ("X-Service-Api-Key", "k"),
                    ("Idempotency-Key", "x"),
                    ("Idempotency-Key", "y"),
                    ("Content-Type", ""),
                ]);
                headers.push("X-Service-Schema-Version", "1.0");
                let p = validate_request(&Request { method: e.method.into(), path, headers, body: body.clone(), now });
                assert!(p.status >= 200 && (p.status < 400) == p.problem.is_none());
            }
        }
    }
    for path in paths {
        for method in ["GET", "post", "", "BREW"] {
            let p = validate_request(&Request { method: method.into(), path: path.into(), ..Default::default() });
            assert_eq!(p.status, 401, "{method} {path}");
        }
    }
    for status in [0u16, 200, 409, 422, 429, 503, 999] {
        for body in &bodies {
            for retry in ["", "x", "Wed, 12 Aug 99999 00:00:45 GMT", "Wed, 31 Feb 2026 00:00:45 GMT", "18446744073709551616"] {
                let c = classify_problem(&ProblemInput {
                    status,
                    headers: crate::http::Headers::from_pairs([("Retry-After", retry)]),
                    body: body.clone().unwrap_or_default(),
                    now: Some(i64::MIN),
                });
                assert!(!c.advice.is_empty());
            }
        }
    }
}

#[test]
fn pasted_messages_become_inputs() {
    let msg = crate::http::parse_message(b"PUT /api/v1/Orders/ord_0123456789abcDEF/status HTTP/1.1\r\nX-Service-Api-Key: k\r\nIdempotency-Key: 6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10\r\nX-Service-Schema-Version: 1.0\r\nContent-Type: application/json\r\n\r\n{\"status\":\"ready\"}").unwrap();
    let p = validate_request(&Request::from_message(&msg, 0).unwrap());
    assert_eq!((p.status, p.report.diagnostics.len()), (202, 0));
    assert!(ProblemInput::from_message(&msg, None).is_none());
    let msg = crate::http::parse_message(b"HTTP/1.1 429 Too Many Requests\nRetry-After: 7\n\n").unwrap();
    let c = classify_problem(&ProblemInput::from_message(&msg, None).unwrap());
    assert_eq!((c.kind.as_str(), c.retry_after_seconds, c.retryable), ("rate-limited", Some(7), true));
    assert!(Request::from_message(&msg, 0).is_none());
}

/// The receiver's narrow validation (also `poscheck/webhook`'s validatePayload) gives the full
/// one's report for every webhook payload fixture (and for each of them checked as the other two
/// webhook kinds); it checks exactly the kinds of [`PayloadKind::WEBHOOK`], which that module lists.
#[test]
fn webhook_validation_agrees_with_the_full_one() {
    for &kind in PayloadKind::ALL {
        let r = validate_webhook_payload(b"{}", &PayloadOptions { kind: Some(kind), ..Default::default() });
        let undetected = r.diagnostics.iter().any(|d| d.rule_id == "payload/kind-undetected");
        assert_eq!(undetected, !PayloadKind::WEBHOOK.contains(&kind), "{} checked as {kind:?}: {r:?}", kind.id());
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/payload");
    let cases: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let mut compared = 0;
    for case in cases.as_array().unwrap() {
        let expected = case["expectKind"].as_str().and_then(PayloadKind::from_id);
        if !expected.is_some_and(|k| PayloadKind::WEBHOOK.contains(&k)) {
            continue;
        }
        let input = std::fs::read(dir.join(case["file"].as_str().unwrap())).unwrap();
        let path = case["path"].as_str().map(str::to_string);
        for &kind in PayloadKind::WEBHOOK {
            let options = PayloadOptions { kind: Some(kind), path: path.clone(), ..Default::default() };
            let (full, narrow) = (validate_payload(&input, &options), validate_webhook_payload(&input, &options));
            assert_eq!(serde_json::to_value(&full).unwrap(), serde_json::to_value(&narrow).unwrap(), "{} as {}", case["file"], kind.id());
            compared += 1;
        }
    }
    assert!(compared >= 30, "{compared} comparisons");
    let menu = br#"{"categories":[]}"#;
    let r = validate_webhook_payload(menu, &PayloadOptions { kind: Some(PayloadKind::FullMenu), ..Default::default() });
    assert!(r.diagnostics.iter().any(|d| d.rule_id == "payload/kind-undetected"), "{r:?}");
}

#[test]
fn a_clean_outcome_is_exactly_a_report_without_diagnostics() {
    // The wasm face answers a clean payload with its kind alone (no report is built): that must
    // happen exactly when the fixtures expect no diagnostic, and name the kind they expect.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/payload");
    let cases: serde_json::Value = serde_json::from_slice(&std::fs::read(format!("{dir}/cases.json")).unwrap()).unwrap();
    let (mut clean, mut reported) = (0, 0);
    for case in cases.as_array().unwrap() {
        let text = |k: &str| case[k].as_str().map(str::to_string);
        let input = std::fs::read(format!("{dir}/{}", text("file").unwrap())).unwrap();
        let kind = text("kind").map(|k| PayloadKind::from_id(&k).unwrap());
        let mut options = PayloadOptions { kind, path: text("path"), ..Default::default() };
        let limit = |k: &str| case["limits"][k].as_u64().map(|n| n as usize);
        let l = &mut options.limits;
        (l.max_bytes, l.max_depth, l.max_diagnostics) = (
            limit("maxBytes").unwrap_or(l.max_bytes),
            limit("maxDepth").unwrap_or(l.max_depth),
            limit("maxDiagnostics").unwrap_or(l.max_diagnostics),
        );
        let expected_kind = text("expectKind");
        match validate_payload_outcome(&input, &options) {
            Outcome::Clean(k) => {
                clean += 1;
                assert!(case["expect"].as_array().unwrap().is_empty(), "{case}");
                assert_eq!(Some(k.id().to_string()), expected_kind, "{case}");
            }
            Outcome::Report(r) => {
                reported += 1;
                assert!(!r.diagnostics.is_empty() && !case["expect"].as_array().unwrap().is_empty(), "{case}");
                assert_eq!(r.kind, expected_kind, "{case}");
            }
        }
    }
    // An empty merchant error body is answered before any parse, as that kind.
    let empty = PayloadOptions { kind: Some(PayloadKind::MerchantErrorResponse), ..Default::default() };
    assert!(matches!(validate_payload_outcome(b" \n", &empty), Outcome::Clean(PayloadKind::MerchantErrorResponse)));
    assert_eq!(validate_payload(b" \n", &empty).kind.as_deref(), Some("merchantErrorResponse"));
    // Diagnostics left out for lack of budget make a report, even when none was kept.
    let none = PayloadOptions { limits: crate::json::Limits { max_diagnostics: 0, ..Default::default() }, ..Default::default() };
    let Outcome::Report(r) = validate_payload_outcome(br#"{"a": 1, "a": 2, "a": 3}"#, &none) else { panic!("a clean outcome") };
    assert_eq!(r.diagnostics.len(), 1, "{r:?}");
    assert!(clean > 20 && reported > 20, "{clean} clean, {reported} reported");
}

/// The store menu's narrow checker (what `diffMenu` links) reports exactly what the general one does.
#[test]
fn the_store_menu_checker_alone_reports_what_validate_payload_reports() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/diff");
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("current")))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(inputs.len() >= 3);
    inputs.extend([
        b"{}".to_vec(),
        b"[]".to_vec(),
        b"{\"data\":[]}".to_vec(),
        b"{\"message\":\"m\",\"data\":{\"categories\":[{}]}}".to_vec(),
        b"not json".to_vec(),
    ]);
    for input in inputs {
        let limits = json::Limits::default();
        let general = validate_payload(&input, &PayloadOptions { kind: Some(PayloadKind::StoreMenu), path: None, limits });
        assert_eq!(validate_store_menu(&input, limits), general, "{}", String::from_utf8_lossy(&input));
    }
}

#[test]
fn elements_that_are_not_objects_are_reported_before_the_objects_are_checked() {
    // `objects` reports every non-object element first, then hands out the objects in order: with
    // room for three diagnostics, those kept are the types of charges[0], items[0] and items[2],
    // not the fields missing from items[1].
    let fixture = include_str!("../../tests/fixtures/payload/order-created.delivery.valid.json");
    let mut v: serde_json::Value = serde_json::from_str(fixture).unwrap();
    v["items"] = serde_json::json!([1, {"name": "x", "extra": 0}, "s", {"name": 2}]);
    v["charges"] = serde_json::json!([null]);
    let input = v.to_string();
    let options = |max_diagnostics| PayloadOptions {
        kind: Some(PayloadKind::OrderCreated),
        path: Some("/v1/order/store-1".into()),
        limits: json::Limits { max_diagnostics, ..json::Limits::default() },
    };
    let all = validate_payload(input.as_bytes(), &options(100));
    assert_eq!(all.diagnostics.len(), 21, "{:?}", ids(&all));
    let r = validate_payload(input.as_bytes(), &options(3));
    let kept: Vec<_> = ids(&r).into_iter().filter(|(rule, _)| *rule == "payload/field-type").collect();
    assert_eq!(kept, [("payload/field-type", "charges[0]"), ("payload/field-type", "items[0]"), ("payload/field-type", "items[2]")]);
}

#[test]
fn targets_split_as_with_str_patterns() {
    // The former `str`-pattern version of `split_target`, as the reference of the byte searches.
    fn reference(target: &str) -> (&str, Option<&str>) {
        let t = target.trim();
        let t = t.split('#').next().unwrap_or("");
        let (path, query) = match t.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (t, None),
        };
        let path = if let Some(rest) = path.split_once("://").map(|(_, r)| r) {
            rest.find('/').map_or("", |i| &rest[i..])
        } else if path.starts_with('{') {
            path.find('}').map_or(path, |i| &path[i + 1..])
        } else {
            path
        };
        (path, query)
    }
    for t in [
        "",
        " ",
        "/",
        "/v1/order/s1",
        " https://h.example/base/v1/order/s%201?x=1#f ",
        "https://h",
        "https://h/",
        "http://h?q",
        "{pos_base_url}/v1/order/s1",
        "{pos_base_url",
        "{a}b}/c",
        "/a?b?c#d#e",
        "#/a?b",
        "?",
        "a://b://c/d",
        "/é/ü?ß=1#€",
        "://",
        ":/",
        "x:/y//z",
        "/api/v1/Orders?PageSize=5",
    ] {
        assert_eq!(split_target(t), reference(t), "{t:?}");
    }
}
