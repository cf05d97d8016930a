//! The journal: one sequence over REST calls and delivery attempts, its bounds, its reads.

use super::*;
use crate::service::Service;
use serde_json::{json, Value};

fn answer(status: u16, body: &[u8]) -> Answer {
    Answer { status, body: body.to_vec(), problem: false, retry_after: None, delay_ms: 0, replayed: false }
}

fn get(target: &str) -> Request<'_> {
    Request { method: "GET", target, api_key: Some("k"), ..Request::default() }
}

fn attempt(n: u64, body: &str) -> Attempt {
    Attempt {
        attempt: n,
        delivery_id: "7c0e2f8a-0000-4000-8000-000000000001".into(),
        kind: DeliveryKind::OrderCreated,
        order_key: Some("ord_1".into()),
        change_id: None,
        number: 1,
        redelivery: false,
        method: "POST".into(),
        url: "http://127.0.0.1:9/v1/order/STORE-1".into(),
        headers: vec![("Content-Type".into(), "application/json".into()), ("X-Service-Delivery-Id".into(), "7c0e2f8a".into())],
        body: body.into(),
        budget_ms: 30_000,
    }
}

fn settled(ok: bool, retry_at_ms: Option<i64>) -> Settled {
    Settled {
        delivery_id: "7c0e2f8a-0000-4000-8000-000000000001".into(),
        ok,
        failure: (!ok).then(|| "HTTP 500: the creation webhook expects 200 with a remoteOrderId".into()),
        retry_at_ms,
        exhausted: false,
        effects: if ok { vec!["remoteOrderId \"R-1\" kept".into()] } else { Vec::new() },
        deliveries: Vec::new(),
        log: None,
    }
}

fn pos(status: u16, body: &[u8]) -> PosAnswer<'_> {
    PosAnswer { status, body, error: None, ms: 12.5 }
}

fn page(j: &Journal, after: u64) -> Value {
    serde_json::from_str(&j.page_json(after)).unwrap()
}

#[test]
fn one_sequence_over_rest_calls_and_deliveries() {
    let mut j = Journal::default();
    j.record(&get("/api/v1/Orders"), &answer(200, b"{}"), 1_000);
    j.record_delivery(&attempt(1, "{\"a\":1}"), &pos(500, b"oops"), Some(&settled(false, Some(11_000))), 1_500);
    j.record(&get("/api/v1/Orders/ord_1"), &answer(404, b"{}"), 2_000);
    j.record_delivery(&attempt(2, "{\"a\":1}"), &pos(200, b"{\"remoteOrderId\":\"R-1\"}"), Some(&settled(true, None)), 11_000);
    let seqs: Vec<u64> = j.entries().map(|e| e.seq()).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert_eq!(j.calls().map(|c| c.seq).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(j.deliveries().map(|d| d.seq).collect::<Vec<_>>(), [2, 4]);
    let p = page(&j, 0);
    let types: Vec<&str> = p["entries"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["rest", "delivery", "rest", "delivery"]);
    assert_eq!((p["next"].as_u64(), p["more"].as_bool(), p["latest"].as_u64()), (Some(4), Some(false), Some(4)));
    let failed = &p["entries"][1];
    assert_eq!(
        *failed,
        json!({
            "seq": 2, "type": "delivery", "deliveryId": "7c0e2f8a-0000-4000-8000-000000000001", "attempt": 1,
            "redelivery": false, "kind": "orderCreated", "orderKey": "ord_1", "changeId": null, "method": "POST",
            "url": "http://127.0.0.1:9/v1/order/STORE-1",
            "headers": { "Content-Type": "application/json", "X-Service-Delivery-Id": "7c0e2f8a" },
            "body": "{\"a\":1}", "at": 1.5, "status": 500, "answer": "oops", "error": null, "ms": 12.5, "ok": false,
            "failure": "HTTP 500: the creation webhook expects 200 with a remoteOrderId", "retryAt": 11,
            "effects": [], "truncated": false
        })
    );
    assert_eq!(p["entries"][3]["effects"], json!(["remoteOrderId \"R-1\" kept"]));
    assert_eq!(p["entries"][0]["path"], "/api/v1/Orders");
    assert_eq!(p["entries"][0]["at"], 1);
    // The REST view and the deliveries view keep their shapes (no seq/type/changeId/truncated on an attempt).
    let rest: Value = serde_json::from_str(&j.to_json(0)).unwrap();
    assert_eq!(rest.as_array().unwrap().iter().map(|r| r["seq"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 3]);
    assert!(rest[0].get("type").is_none());
    let del: Value = serde_json::from_str(&j.deliveries_json()).unwrap();
    let keys: Vec<&String> = del[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "deliveryId",
            "attempt",
            "redelivery",
            "kind",
            "orderKey",
            "method",
            "url",
            "headers",
            "body",
            "at",
            "status",
            "answer",
            "error",
            "ms",
            "ok",
            "failure",
            "retryAt",
            "effects"
        ]
    );
}

#[test]
fn an_attempt_without_an_answer_has_a_null_status_and_its_error() {
    let mut j = Journal::default();
    let none = PosAnswer { status: 0, body: b"", error: Some("connect ECONNREFUSED 127.0.0.1:9"), ms: 3.0 };
    j.record_delivery(&attempt(1, "{}"), &none, None, 0);
    let d: Value = serde_json::from_str(&j.deliveries_json()).unwrap();
    assert_eq!((d[0]["status"].clone(), d[0].get("answer")), (Value::Null, None), "no answer: no answer field, as JSON.stringify left it");
    assert_eq!(
        (d[0]["error"].as_str(), d[0]["ms"].as_i64(), d[0]["ok"].as_bool()),
        (Some("connect ECONNREFUSED 127.0.0.1:9"), Some(3), Some(false))
    );
    let p = page(&j, 0);
    assert_eq!(p["entries"][0]["answer"], Value::Null);
    assert_eq!(j.attempts_json(&[1, 7]), j.deliveries_json(), "by attempt number; those not kept left out");
}

#[test]
fn keeps_the_last_entries_and_numbers_them() {
    let mut j = Journal::default();
    for i in 0..MAX_ENTRIES + 5 {
        if i % 2 == 0 {
            j.record(&get(&format!("/api/v1/Orders?n={i}")), &answer(200, b"{}"), 1_000);
        } else {
            j.record_delivery(&attempt(i as u64, "{}"), &pos(200, b"{}"), None, 1_000);
        }
    }
    assert_eq!(j.entries().count(), MAX_ENTRIES);
    assert_eq!(j.entries().next().map(|e| e.seq()), Some(6));
    let rest: Value = serde_json::from_str(&j.to_json(0)).unwrap();
    assert_eq!(rest.as_array().map(Vec::len), Some(MAX_VIEW), "requests() lists the newest MAX_VIEW calls");
    assert_eq!(rest[MAX_VIEW - 1]["seq"], (MAX_ENTRIES + 5) as u64);
    let tail: Value = serde_json::from_str(&j.to_json((MAX_ENTRIES + 1) as u64)).unwrap();
    assert_eq!(tail.as_array().map(Vec::len), Some(2));
    assert_eq!(tail[0]["path"], format!("/api/v1/Orders?n={}", MAX_ENTRIES + 2));
    assert_eq!(tail[0]["headers"], json!({ "x-service-api-key": "k" }));
    let deliveries: Value = serde_json::from_str(&j.deliveries_json()).unwrap();
    assert_eq!(deliveries.as_array().map(Vec::len), Some(MAX_VIEW));
    j.clear();
    assert_eq!((j.to_json(0).as_str(), j.deliveries_json().as_str()), ("[]", "[]"));
    j.record(&get("/x"), &answer(404, b"{}"), 0);
    assert_eq!(j.entries().next().map(|e| e.seq()), Some((MAX_ENTRIES + 6) as u64), "numbers are never reused");
}

#[test]
fn bounds_the_bytes_and_cuts_large_bodies() {
    let mut j = Journal::default();
    let big = vec![b'a'; MAX_BODY + 10];
    let n = MAX_BYTES / MAX_BODY + 3;
    for i in 0..n {
        if i % 3 == 0 {
            let text = "b".repeat(MAX_BODY + 10);
            j.record_delivery(&attempt(i as u64, &text), &pos(200, &big), None, 0);
        } else {
            j.record(&Request { method: "PUT", target: "/api/v1/menu", body: &big, ..Request::default() }, &answer(200, &big), 0);
        }
    }
    let kept: Vec<JournalEntry> = j.entries().collect();
    for e in &kept {
        match e {
            JournalEntry::Rest(c) => assert!(c.truncated && c.body.len() == MAX_BODY && c.answer.len() == MAX_BODY && c.method == "PUT"),
            JournalEntry::Delivery(d) => {
                assert!(d.truncated && d.body.len() == MAX_BODY && d.answer.map(<[u8]>::len) == Some(MAX_POS_ANSWER))
            }
        }
    }
    assert!(kept.iter().any(|e| matches!(e, JournalEntry::Delivery(_))));
    assert!(j.bytes() <= MAX_BYTES, "{} bytes kept", j.bytes());
    // At least one generation's worth is kept whole.
    assert!(kept.len() < n && kept.len() >= GENERATION_BYTES / (2 * MAX_BODY + 20), "{} kept", kept.len());
    let seqs: Vec<u64> = kept.iter().map(JournalEntry::seq).collect();
    assert_eq!(seqs, ((n - kept.len() + 1) as u64..=n as u64).collect::<Vec<_>>(), "the newest, in order");
    // An answer at the limit is whole.
    let mut j = Journal::default();
    j.record_delivery(&attempt(1, "{}"), &pos(200, &vec![b'x'; MAX_POS_ANSWER]), None, 0);
    let d = j.deliveries().next().unwrap();
    assert_eq!((d.truncated, d.answer.map(<[u8]>::len)), (false, Some(MAX_POS_ANSWER)));
}

#[test]
fn reads_back_what_was_recorded_across_generations() {
    let mut j = Journal::default();
    let n = 300;
    for i in 0..n {
        let body = vec![(i % 251) as u8; 250_000 + i];
        let target = format!("/api/v1/Orders/{i}");
        let key = format!("key-{i}");
        let req = Request { method: "POST", target: &target, idempotency_key: Some(&key), body: &body, ..Request::default() };
        j.record(&req, &answer(200 + (i % 3) as u16, i.to_string().as_bytes()), i as i64);
    }
    let kept: Vec<RestCall> = j.calls().collect();
    assert!(kept.len() > 100 && kept.len() < n, "{}", kept.len());
    for c in kept {
        let i = (c.seq - 1) as usize;
        assert_eq!(c.target, format!("/api/v1/Orders/{i}"));
        assert_eq!(c.headers, [None, None, Some(format!("key-{i}").as_str()), None]);
        assert_eq!(c.body.len(), 250_000 + i);
        assert!(c.body.iter().all(|&b| b == (i % 251) as u8));
        assert_eq!(c.answer, i.to_string().as_bytes());
        assert_eq!((c.status, c.at_ms), (200 + (i % 3) as u16, i as i64));
    }
    assert!(j.bytes() <= MAX_BYTES);
}

#[test]
fn pages_follow_on_from_after() {
    let mut j = Journal::default();
    let n = 2 * PAGE_ENTRIES + 345;
    for i in 0..n {
        if i % 5 == 0 {
            j.record_delivery(&attempt(i as u64, "{}"), &pos(200, b"{}"), None, 0);
        } else {
            j.record(&get("/api/v1/Orders"), &answer(200, b"{}"), 0);
        }
    }
    let mut after = 0;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let p = page(&j, after);
        let entries = p["entries"].as_array().unwrap();
        assert!(entries.len() <= PAGE_ENTRIES);
        seen.extend(entries.iter().map(|e| e["seq"].as_u64().unwrap()));
        pages += 1;
        after = p["next"].as_u64().unwrap();
        if !p["more"].as_bool().unwrap() {
            break;
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, (1..=n as u64).collect::<Vec<_>>(), "every entry once, in order");
    assert_eq!(page(&j, after), json!({ "entries": [], "next": n, "more": false, "latest": n }));
    assert_eq!(page(&j, 10 * n as u64)["next"], 10 * n as u64, "an after past the end reads nothing");
    // The bytes bound: entries of 1 MiB bodies, a page stops once it holds PAGE_BYTES.
    let mut j = Journal::default();
    let big = vec![b'z'; MAX_BODY];
    for _ in 0..10 {
        j.record(&Request { method: "PUT", target: "/api/v1/menu", body: &big, ..Request::default() }, &answer(200, b"{}"), 0);
    }
    let p = page(&j, 0);
    let per = PAGE_BYTES.div_ceil(MAX_BODY + "PUT/api/v1/menu{}".len());
    assert_eq!((p["entries"].as_array().map(Vec::len), p["next"].as_u64(), p["more"].as_bool()), (Some(per), Some(per as u64), Some(true)));
}

#[test]
fn invalid_utf8_is_replaced_in_the_text() {
    let mut j = Journal::default();
    j.record(&Request { method: "POST", target: "/a", body: &[0xff, b'{'], ..Request::default() }, &answer(400, b"{}"), 0);
    j.record_delivery(&attempt(1, "{}"), &pos(200, &[b'{', 0xfe]), None, 0);
    let v: Value = serde_json::from_str(&j.to_json(0)).unwrap();
    assert_eq!(v[0]["body"], "\u{fffd}{");
    let d: Value = serde_json::from_str(&j.deliveries_json()).unwrap();
    assert_eq!(d[0]["answer"], "{\u{fffd}");
}

/// The model writes the entries: a REST call the face reports, each attempt it answers (copies
/// each their own), and a reset clears them but not the numbering.
#[test]
fn the_service_journals_calls_and_attempts_and_a_reset_keeps_the_numbering() {
    let now = 1_790_000_000_000;
    let mut sb = Service::new(None, Default::default(), 3).unwrap();
    let key = sb.config().clients[0].api_key.clone();
    let created = sb.control_json(r#"{"action":"createOrder","store":"STORE-1"}"#, now).unwrap();
    let order_key = created.order.unwrap().order_key;
    let req = Request { method: "GET", target: "/api/v1/Orders", api_key: Some(&key), ..Request::default() };
    let a = sb.handle(&req, now);
    sb.record_call(&req, &a, now);
    let first = sb.due(now, now / 1000);
    assert_eq!(first.len(), 1);
    let failed = PosAnswer { status: 0, body: b"", error: Some("socket hang up"), ms: 4.2 };
    let s = sb.answered_with(first[0].attempt, &failed, now + 5).unwrap();
    let retry_at = s.retry_at_ms.unwrap();
    let again = sb.due(retry_at, retry_at / 1000);
    let copies = sb.redeliver(&first[0].delivery_id, 2, retry_at / 1000).unwrap();
    for (i, c) in copies.iter().chain(&again).enumerate() {
        sb.answered(c.attempt, 200, format!(r#"{{"remoteOrderId":"R-{i}"}}"#).as_bytes(), 7, retry_at);
    }
    assert!(sb.answered(first[0].attempt, 200, b"{}", 1, retry_at).is_none(), "an attempt answered twice");
    let p = page(sb.journal(), 0);
    let entries = p["entries"].as_array().unwrap();
    assert_eq!(entries.iter().map(|e| e["seq"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert_eq!(
        entries.iter().map(|e| e["type"].as_str().unwrap()).collect::<Vec<_>>(),
        ["rest", "delivery", "delivery", "delivery", "delivery"]
    );
    assert_eq!(entries[1]["status"], Value::Null);
    assert_eq!(entries[1]["error"], "socket hang up");
    assert_eq!(entries[1]["retryAt"], json!(retry_at as f64 / 1000.0));
    assert_eq!(entries[1]["orderKey"], order_key.as_str());
    assert_eq!(entries.iter().skip(2).map(|e| e["redelivery"].as_bool().unwrap()).collect::<Vec<_>>(), [true, true, false]);
    assert_eq!(entries[2]["headers"]["X-Service-Delivery-Id"], first[0].delivery_id.as_str());
    assert!(entries[2]["headers"]["X-Service-Signature-256"].as_str().is_some_and(|s| s.starts_with("sha256=")));
    assert_eq!(entries[2]["body"], first[0].body.as_str());
    sb.reset();
    assert_eq!(page(sb.journal(), 0), json!({ "entries": [], "next": 0, "more": false, "latest": 5 }));
    let a = sb.handle(&req, now);
    sb.record_call(&req, &a, now);
    assert_eq!(sb.journal().calls().map(|c| c.seq).collect::<Vec<_>>(), [6], "numbers are not reused after a reset");
    // The state a face saves holds no journal.
    assert!(!sb.export_state().contains("/api/v1/Orders"));
}

/// A menu change's attempt carries its changeId, not an orderKey.
#[test]
fn a_menu_change_attempt_names_its_change() {
    let mut j = Journal::default();
    let a = Attempt {
        kind: DeliveryKind::MenuChange,
        order_key: None,
        change_id: Some("chg_1".into()),
        url: "http://127.0.0.1:9/v1/menu/change/chg_1".into(),
        ..attempt(1, "{}")
    };
    j.record_delivery(&a, &pos(204, b""), None, 0);
    let p = page(&j, 0);
    assert_eq!((p["entries"][0]["changeId"].as_str(), &p["entries"][0]["orderKey"]), (Some("chg_1"), &Value::Null));
    assert_eq!(p["entries"][0]["kind"], "menuChange");
}
