use super::*;

#[test]
fn endpoint_segments_are_counted_at_compile_time() {
    for e in ENDPOINTS {
        assert_eq!(e.segments, e.path.trim_start_matches('/').split('/').count(), "{}", e.path);
    }
}

fn req(method: &str, path: &str, body: Option<&str>) -> Request {
    let mut headers = Headers::from_pairs([("X-Service-Api-Key", "k")]);
    if matches!(method, "POST" | "PUT" | "PATCH") {
        headers.push("Idempotency-Key", "6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10");
        headers.push("X-Service-Schema-Version", "1.0");
        headers.push("Content-Type", "application/json; charset=utf-8");
    }
    Request { method: method.into(), path: path.into(), headers, body: body.map(|b| b.as_bytes().to_vec()), now: 1_786_492_800 }
}

#[test]
fn every_endpoint_pattern_is_matched_by_itself() {
    for e in ENDPOINTS {
        let path = e
            .path
            .replace("{orderKey}", "ord_0123456789abcDEF")
            .replace("{changeId}", "chg_0123456789abcDEF")
            .replace("{code}", "P-1")
            .replace("{storeRemoteId}", "S-1");
        let p = validate_request(&req(e.method, &path, None));
        assert_eq!(p.endpoint.as_deref(), Some(e.id().as_str()), "{}", e.id());
    }
}

#[test]
fn precedence_401_404_400_422() {
    let mut r = req("POST", "/api/v1/orders/bad/accept", Some("[]"));
    r.headers = Headers::new();
    assert_eq!(validate_request(&r).status, 401);
    r.headers = Headers::from_pairs([("X-Service-Api-Key", "k")]);
    assert_eq!(validate_request(&r).status, 404);
    r.path = "/api/v1/Orders/ord_0123456789abcDEF/accept".into();
    assert_eq!(validate_request(&r).status, 400);
    r.headers.push("X-Service-Schema-Version", "1.0");
    let p = validate_request(&r);
    assert_eq!(p.status, 422);
    let problem = p.problem.unwrap();
    assert_eq!(problem["meta"]["errors"], serde_json::to_value(&p.report.errors).unwrap());
    assert!(problem["type"].as_str().unwrap().ends_with("/validation"));
}

#[test]
fn absolute_urls_and_queries() {
    let p = validate_request(&req("GET", "https://api.example.test/api/v1/Orders?PageSize=101&Status=DriverAssigned", None));
    assert_eq!(p.status, 422);
    let ids: Vec<&str> = p.report.diagnostics.iter().map(|d| d.rule_id).collect();
    assert_eq!(ids, ["request/page-size", "order/read-status"]);
    assert_eq!(
        validate_request(&req("GET", "{base_url}/api/v1/Orders?PageSize=100&Status=Ready&FromDate=2026-08-12T00%3A00%3A00Z", None)).status,
        200
    );
}

#[test]
fn suggestions_for_near_paths() {
    let p = validate_request(&req("PATCH", "/api/v1/menu/modifier-option/X", Some("{}")));
    assert_eq!(p.status, 404);
    assert_eq!(p.report.diagnostics[0].help.as_deref(), Some("did you mean PATCH /api/v1/menu/modifier-options/{code}?"));
}
