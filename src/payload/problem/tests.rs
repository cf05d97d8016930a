use super::*;

#[test]
fn suffixes_ignore_the_host() {
    assert_eq!(suffix_of("https://a.example/problems/validation"), Some(VALIDATION));
    assert_eq!(suffix_of("{problem_base}/invalid-state-transition"), Some(INVALID_TRANSITION));
    assert_eq!(suffix_of("validation"), Some(VALIDATION));
    assert_eq!(suffix_of("https://x/prevalidation"), None);
    assert_eq!(suffix_of("https://x/validation/extra"), None);
}

/// The `problem/read-status` diagnostics of a 409 with this `type` suffix and `meta`: (path, help).
fn read_status_findings(suffix: &str, meta: &str) -> Vec<(String, Option<String>)> {
    let body = format!(
        r#"{{"type": "https://problems.example.test/{suffix}", "title": "t", "detail": "d", "status": 409, "traceId": "x", "meta": {meta}}}"#
    );
    let c = classify_problem(&ProblemInput { status: 409, body: body.into_bytes(), ..Default::default() });
    c.report.by_rule("problem/read-status").map(|d| (d.path.clone(), d.help.clone())).collect()
}

#[test]
fn transition_statuses_are_in_the_read_vocabulary() {
    // "Transition 409: { currentStatus: string, allowedTransitions: string[] } (PascalCase)".
    let t = "invalid-state-transition";
    assert_eq!(read_status_findings(t, r#"{"currentStatus": "Ready", "allowedTransitions": ["HandedOver"]}"#), vec![]);
    assert_eq!(read_status_findings(t, r#"{"currentStatus": "Rejected", "allowedTransitions": []}"#), vec![]);
    let f = read_status_findings(t, r#"{"currentStatus": "Ready", "allowedTransitions": ["handed_over"]}"#);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "meta.allowedTransitions[0]");
    assert!(f[0].1.as_deref().unwrap().contains("\"HandedOver\""), "{f:?}");
    let f = read_status_findings(t, r#"{"currentStatus": "ready", "allowedTransitions": ["HandedOver", "CANCELLED", "Shipped"]}"#);
    let paths: Vec<&str> = f.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(paths, ["meta.currentStatus", "meta.allowedTransitions[1]", "meta.allowedTransitions[2]"]);
    assert!(f[0].1.as_deref().unwrap().contains("\"Ready\""), "{f:?}");
    assert!(f[1].1.as_deref().unwrap().contains("\"Cancelled\""), "{f:?}");
    assert_eq!(f[2].1, None, "no status is spelled like Shipped");
    let f = read_status_findings(t, r#"{"currentStatus": "DriverAssigned", "allowedTransitions": []}"#);
    assert!(f[0].1.as_deref().unwrap().contains("driverAssignedAt"), "{f:?}");
    // An acceptance-timeout is held to it when it carries the transition meta; its null meta has none.
    let a = "acceptance-timeout";
    assert_eq!(read_status_findings(a, "null").len(), 0);
    assert_eq!(read_status_findings(a, r#"{"currentStatus": "Pending", "allowedTransitions": ["Rejected"]}"#).len(), 0);
    assert_eq!(read_status_findings(a, r#"{"currentStatus": "pending", "allowedTransitions": ["rejected"]}"#).len(), 2);
    // Other types have no transition meta to hold.
    assert_eq!(read_status_findings("validation", r#"{"currentStatus": "ready"}"#).len(), 0);
    assert_eq!(read_status_findings("not-found", r#"{"allowedTransitions": ["ready"]}"#).len(), 0);
}

#[test]
fn retry_after_forms() {
    assert_eq!(retry_after("120", None), Some(120));
    assert_eq!(retry_after("Wed, 12 Aug 2026 00:01:00 GMT", Some(1_786_492_800)), Some(60));
    assert_eq!(retry_after("Wed, 12 Aug 2026 00:01:00 GMT", Some(1_786_493_000)), Some(0));
    assert_eq!(retry_after("Wed, 12 Aug 2026 00:01:00 GMT", None), None);
    assert_eq!(retry_after("soon", Some(0)), None);
    assert_eq!(retry_after("-5", Some(0)), None);
    assert_eq!(retry_after("99999999999999999999999", None), Some(u64::MAX));
}
