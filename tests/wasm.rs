//! Ring 2: the same core compiled to wasm32, run by wasm-bindgen-test in Node (default) and in
//! headless Chromium (WASM_BINDGEN_USE_BROWSER=1), over the same fixtures as the native ring.
#![cfg(target_arch = "wasm32")]

mod common;
mod diff_cases;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn signature_vectors_from_python_hmac() {
    common::check_signature_vectors();
}

#[wasm_bindgen_test]
fn hostile_json_never_traps() {
    use poscheck::json::{parse, Limits};
    let deep = "[".repeat(200_000);
    assert_eq!(parse(deep.as_bytes(), &Limits::default(), &poscheck::json::Arena::new()).unwrap_err().code, "TOO_DEEP");
    assert_eq!(parse(b"\xff\xfe", &Limits::default(), &poscheck::json::Arena::new()).unwrap_err().code, "INVALID_UTF8");
}

#[wasm_bindgen_test]
fn order_cases_and_predictions() {
    use poscheck::order::{check_order, predict_request, Action, CheckOptions};
    let n = common::check_report_manifest("order", |_, input| check_order(input, &CheckOptions::default()));
    assert!(n >= 30);
    let predictions: serde_json::Value = serde_json::from_slice(common::fixture("order/predictions.json")).unwrap();
    let mut checked = 0;
    for c in predictions.as_array().unwrap() {
        let (Some(action), Some(file)) = (c["action"].as_str(), c["order"].as_str()) else { continue };
        let mut order: serde_json::Value = serde_json::from_slice(common::fixture(&format!("order/{file}"))).unwrap();
        if let Some(patch) = c["orderPatch"].as_object() {
            order.as_object_mut().unwrap().extend(patch.clone());
        }
        let body = c.get("body").map(|b| serde_json::to_vec(b).unwrap());
        let p =
            predict_request(&order, &Action::parse(action).unwrap(), body.as_deref(), c["now"].as_i64().unwrap_or(1_786_492_800)).unwrap();
        assert_eq!(u64::from(p.http_status), c["expectHttpStatus"].as_u64().unwrap(), "{}", c["name"]);
        let v = serde_json::to_value(&p).unwrap();
        if let Some(at) = c["expectAt"].as_object() {
            for (ptr, w) in at {
                assert_eq!(v.pointer(ptr).unwrap_or(&serde_json::Value::Null), w, "{} {ptr}", c["name"]);
            }
        }
        if c["expectChecksClean"] == true {
            // The toolkit accepts its own output.
            let r = check_order(&serde_json::to_vec(&p.order).unwrap(), &CheckOptions::default());
            assert!(r.ok, "{}: {:?}", c["name"], r.diagnostics);
        }
        if let Some(s) = c["expectStatus"].as_str() {
            assert_eq!(p.status, s, "{}", c["name"]);
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}

#[wasm_bindgen_test]
fn menu_cases() {
    let n = common::check_report_manifest("menu", |_, input| poscheck::menu::lint(input, &poscheck::menu::LintOptions::default()));
    assert!(n >= 30, "{n}");
}

#[wasm_bindgen_test]
fn payload_cases_and_kind_detection() {
    use poscheck::payload::{validate_payload, PayloadKind, PayloadOptions};
    let n = common::check_report_manifest("payload", |case, input| {
        let mut options = PayloadOptions {
            kind: case["kind"].as_str().and_then(PayloadKind::from_id),
            path: case["path"].as_str().map(String::from),
            ..Default::default()
        };
        if let Some(max) = case["limits"]["maxBytes"].as_u64() {
            options.limits.max_bytes = max as usize;
        }
        let report = validate_payload(input, &options);
        assert_eq!(report.kind.as_deref(), case["expectKind"].as_str(), "{}", case["file"]);
        report
    });
    assert!(n >= 100, "{n}");
}

#[wasm_bindgen_test]
fn request_predictions() {
    use poscheck::payload::{validate_request, Request};
    let cases: serde_json::Value = serde_json::from_slice(common::fixture("requests/cases.json")).unwrap();
    for c in cases.as_array().unwrap() {
        let r = &c["request"];
        let mut headers = poscheck::http::Headers::new();
        for (k, v) in r["headers"].as_object().unwrap() {
            match v {
                serde_json::Value::Array(vs) => vs.iter().for_each(|x| headers.push(k.clone(), x.as_str().unwrap())),
                _ => headers.push(k.clone(), v.as_str().unwrap()),
            }
        }
        let body = match (&r["bodyText"], &r["body"]) {
            (serde_json::Value::String(t), _) => Some(t.clone().into_bytes()),
            (_, serde_json::Value::Null) => None,
            (_, b) => Some(serde_json::to_vec(b).unwrap()),
        };
        let request = Request {
            method: r["method"].as_str().unwrap().into(),
            path: r["path"].as_str().unwrap().into(),
            headers,
            body,
            now: r["now"].as_i64().unwrap_or(1_786_492_800),
        };
        let p = validate_request(&request);
        assert_eq!(u64::from(p.status), c["expectStatus"].as_u64().unwrap(), "{}", c["name"]);
        // What the status rests on (issue 9, class 7), as the manifest states it.
        if let Some(b) = c["expectBasis"].as_str() {
            assert_eq!(p.basis.status.basis.as_str(), b, "{}", c["name"]);
        }
    }
}

/// Issue 8 in the wasm (1 MiB stack): every hostile shape through the core, every option value
/// through the exports, then a normal verify on the same instance, which a trap would have
/// disabled.
#[wasm_bindgen_test]
fn hostile_input_never_traps_the_module() {
    use common::hostile::{assert_bounded, SHAPES};
    use poscheck::wasm;
    for shape in SHAPES {
        for r in (shape.run)(&(shape.make)(shape.size / 4)) {
            assert_bounded(shape.name, &r);
        }
    }
    // maxDepth as large as a u32 holds (what -1 becomes): clamped by the core, so a deep input is
    // a TOO_DEEP diagnostic, never a stack overflow, through every export that parses JSON.
    let deep = format!("{}{}", "[".repeat(300_000), "]".repeat(300_000));
    let deep_object = "{\"a\":".repeat(100_000) + "1" + &"}".repeat(100_000);
    for input in [deep.as_bytes(), deep_object.as_bytes()] {
        assert!(wasm::lint_menu(input, Some(u32::MAX), None, Some(u32::MAX)).is_ok());
        assert!(wasm::validate_payload(input, 0, None, None, Some(u32::MAX), None, None).is_ok());
        assert!(wasm::check_order(input, Some(4_700), Some(u32::MAX), Some(0)).is_ok());
        assert!(wasm::inspect_input(input, None, None, 1_786_492_800.0, Some(u32::MAX), None, None).is_ok());
        // Orders given as JSON text: serde_json stops at 128 levels with an error.
        assert!(wasm::predict_action(input, "accept", 1_786_492_800.0, None).is_err());
        assert!(wasm::apply_event(input, input).is_err());
        assert!(wasm::apply_trigger(input, "refund_or_incident", 1_786_492_800.0).is_err());
        assert!(wasm::next_actions(input, 1_786_492_800.0).is_err());
        assert!(wasm::order_history_path(input).is_err());
        assert!(wasm::diagnose_webhook(
            input,
            vec!["X-Service-Timestamp".into(), "1786492800".into()],
            vec!["s".into()],
            1_786_492_800.0,
            300.0
        )
        .is_ok());
    }
    // The deepest nesting an option can ask for parses, and is checked, without overflowing.
    let at_cap = format!("{}{}", "[".repeat(poscheck::json::MAX_DEPTH), "]".repeat(poscheck::json::MAX_DEPTH));
    assert!(wasm::lint_menu(at_cap.as_bytes(), Some(u32::MAX), None, None).is_ok());
    assert!(wasm::validate_payload(at_cap.as_bytes(), 0, None, None, Some(u32::MAX), None, None).is_ok());
    // Numbers past 2^53 in results are numbers, not an INTERNAL conversion error.
    let headers = vec!["X-Service-Timestamp".into(), "9100000000000000".into(), "X-Service-Signature-256".into(), "sha256=00".into()];
    assert!(wasm::diagnose_webhook(b"{}", headers, vec!["s".into()], 1_786_492_800.0, 300.0).is_ok());
    let problem = br#"{"type":"https://x/rate-limit","title":"t","status":429,"detail":"d","traceId":"t","meta":null}"#;
    assert!(wasm::classify_problem(429, vec!["Retry-After".into(), "99999999999999999999".into()], problem, 1_786_492_800.0).is_ok());
    // The module still works.
    common::check_signature_vectors();
}

#[wasm_bindgen_test]
fn menu_diff_cases() {
    assert!(diff_cases::check(|p| common::fixture(p).to_vec()) >= 10);
    // Hostile sizes and option values through the export: a report or an error, never a trap.
    use poscheck::wasm;
    let deep = format!("{}{}", "[".repeat(300_000), "]".repeat(300_000));
    let current = common::fixture("diff/current.json");
    assert!(wasm::diff_menu(deep.as_bytes(), deep.as_bytes(), None, Some(u32::MAX), Some(u32::MAX), Some(u32::MAX), None).is_ok());
    assert!(wasm::diff_menu(current, deep.as_bytes(), Some(0.0), Some(0), Some(0), Some(0), Some(0)).is_ok());
    assert!(wasm::diff_menu(current, current, Some(f64::NAN), None, None, None, None).is_err());
    assert!(wasm::diff_menu(current, current, Some(2.0), None, None, None, None).is_err());
    common::check_signature_vectors();
}

#[wasm_bindgen_test]
fn receiver_core_on_vectors_and_fixtures() {
    common::receiver::check_receiver_vectors();
    common::receiver::check_receiver_payloads();
}

#[wasm_bindgen_test]
fn receiver_exports_take_strings_and_bytes_only() {
    use js_sys::Reflect;
    let action = |v: &wasm_bindgen::JsValue| Reflect::get(v, &"action".into()).unwrap().as_string().unwrap();
    let r = poscheck::wasm::receiver_route("GET", "/v1/order/S1", "").unwrap();
    assert_eq!(action(&r), "methodNotAllowed");
    let pairs = vec!["X-Service-Timestamp".to_string(), "1786492800".to_string()];
    let r = poscheck::wasm::receiver_receive("POST", "/v1/order/S1", "", pairs, b"{}", vec!["s".into()], 1_786_492_800.0, 300.0).unwrap();
    assert_eq!(action(&r), "reject");
    assert!(poscheck::wasm::receiver_answer("orderCreated", "nope", None).is_err());
    let a = poscheck::wasm::receiver_answer("orderCreated", "returned", Some("POS-1".into())).unwrap();
    assert_eq!(Reflect::get(&a, &"status".into()).unwrap().as_f64(), Some(200.0));
}
