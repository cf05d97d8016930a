use super::*;

#[test]
fn rules_are_unique_documented_and_prefixed() {
    for (i, r) in RULES.iter().enumerate() {
        assert!(r.id.starts_with("order/") || r.id.starts_with("json/") || r.id.starts_with("payload/"), "{}", r.id);
        assert!(!r.doc.is_empty(), "{}", r.id);
        assert!(RULES[i + 1..].iter().all(|o| o.id != r.id), "duplicate {}", r.id);
    }
}

#[test]
fn limits_and_non_objects() {
    let r = check_order(b"[1]", &CheckOptions::default());
    assert_eq!((r.ok, r.diagnostics[0].rule_id), (false, "order/type"));
    let small = CheckOptions { limits: json::Limits { max_bytes: 4, ..json::Limits::default() } };
    let r = check_order(b"{\"status\": 1}", &small);
    assert_eq!(r.diagnostics[0].rule_id, "json/too-large");
    let r = check_order(b"{\"status\": \"Pending\", \"status\": \"Ready\"}", &CheckOptions::default());
    assert!(r.by_rule("json/duplicate-key").count() == 1);
}

#[test]
fn one_root_cause_per_broken_timestamp() {
    // A broken acceptedAt is reported once, and no rule compares it with anything.
    let input = br#"{"orderKey":"ord_7Hq2LmXc9PzR4tBv","storeId":1,"brandId":1,"status":"Preparing","merchantStatusReason":null,
"remoteOrderId":null,"receivedAt":"2026-08-20T12:00:02Z","acceptedAt":"yesterday","rejectedAt":null,"preparingAt":"2026-08-20T12:01:10Z",
"readyAt":null,"driverAssignedAt":null,"handedOverAt":null,"deliveredAt":null,"cancelledAt":null,"history":[],"order":null}"#;
    let r = check_order(input, &CheckOptions::default());
    let ids: Vec<_> = r.diagnostics.iter().map(|d| (d.rule_id, d.path.as_str())).collect();
    assert_eq!(ids, vec![("order/timestamp", "acceptedAt"), ("order/order-null", "order")]);
    assert_eq!((r.diagnostics[0].line, r.diagnostics[0].column), (2, 71));
}
