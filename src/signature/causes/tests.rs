use super::*;
use crate::signature::{diagnose, sign, FINDING_CODES};

const SECRET: &[u8] = b"sbx_secret_Ab9Ab9Ab9Ab9Ab9Ab9Ab9Ab9Ab9Ab9Zq";
const NOW: u64 = 1_795_903_332;
/// A creation body as the sandbox writes it (serde_json, compact, `0.0` for zero amounts).
const CREATION: &str = r#"{"orderKey":"ord_exnivjLxN4uMWTaO","displayCode":"S-0001","storeRemoteId":"STORE-1","currency":"USD","createdAt":"2026-11-28T22:02:12Z","expiresAt":"2026-11-28T22:07:12Z","fulfillment":{"type":"delivery","isExpress":false,"prepareBy":"2026-11-28T22:22:12Z","driverPickupAt":"2026-11-28T22:27:12Z"},"customer":null,"payment":{"methods":[{"type":"card","amount":10.5}],"amountToCollect":0.0,"changeFor":null},"summary":{"subtotal":10.5,"taxes":0.0,"discounts":0.0,"additionalCharges":0.0,"grandTotal":10.5},"charges":[],"discounts":[],"items":[{"code":"prd_VTK0jL","remoteCode":"BURGER-1","name":"burger 1","quantity":1,"unitPrice":10.5,"tax":0.0,"lineTotal":10.5,"note":null,"modifierGroups":[]}],"customerNote":null,"invoice":null}"#;

fn genuine(body: &[u8]) -> Delivery {
    Delivery {
        method: "POST".into(),
        url: "http://127.0.0.1:9/v1/order/STORE-1".into(),
        headers: Headers::from_pairs([
            ("Content-Type", "application/json".to_string()),
            (HEADER_TIMESTAMP, NOW.to_string()),
            (HEADER_SIGNATURE, sign(SECRET, NOW, body).unwrap()),
            (HEADER_DELIVERY_ID, "3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f".to_string()),
        ]),
        body: body.to_vec(),
    }
}

fn ids() -> impl FnMut() -> String {
    let mut n = 0u32;
    move || {
        n += 1;
        format!("00000000-0000-4000-8000-{n:012x}")
    }
}

fn pretty(body: &str) -> Vec<u8> {
    serde_json::to_vec_pretty(&serde_json::from_str::<serde_json::Value>(body).unwrap()).unwrap()
}

#[test]
fn the_catalogue_is_well_formed_and_the_plan_bounded() {
    let mut seen = std::collections::HashSet::new();
    for c in CAUSES {
        assert!(seen.insert(c.id), "{} twice", c.id);
        assert!(c.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", c.id);
        assert!(FINDING_CODES.contains(&c.code), "{}: {} is not a finding code", c.id, c.code);
        assert!(c.contract.starts_with("Authentication ") && c.contract.ends_with('"'), "{}", c.id);
        assert!(!c.does.is_empty() && !c.fix.is_empty(), "{}", c.id);
        assert!(c.is_diagnosed() || c.probe_steps() > 0, "{} is neither diagnosed nor probed", c.id);
        assert_eq!(c.probe_steps() > 0, !c.variant.is_empty(), "{}: a probed cause says how its variant is signed", c.id);
        assert_eq!(cause(c.id).map(|x| x.id), Some(c.id));
    }
    let plan = plan();
    assert!(plan.len() <= MAX_DIAGNOSTIC_DELIVERIES, "{} deliveries", plan.len());
    // Every probed cause is in the plan, with each of its steps once.
    for c in CAUSES.iter().filter(|c| c.probe_steps() > 0) {
        assert_eq!(plan.iter().filter(|a| a.cause.id == c.id).count(), c.probe_steps(), "{}", c.id);
    }
    assert_eq!(plan.iter().filter_map(Attempt::offset_seconds).collect::<Vec<_>>(), CLOCK_OFFSETS);
    // Both directions for every cause the issue lists.
    for id in [
        "body-json-stringify",
        "body-compact",
        "body-sorted-keys",
        "secret-trailing-newline",
        "secret-hex-decoded",
        "secret-base64-decoded",
        "signed-body-only",
        "signed-without-dot",
        "signature-uppercase-hex",
        "signature-base64",
        "signature-without-prefix",
        "timestamp-milliseconds",
        "clock-offset",
    ] {
        let c = cause(id).unwrap();
        assert!(c.is_diagnosed() && c.probe_steps() > 0, "{id}");
    }
}

/// The round trip: the variant of every cause of the plan, diagnosed, names that cause; the
/// genuine delivery verifies; no two variants are alike.
#[test]
fn diagnose_names_the_cause_of_each_probe_variant() {
    let mut covered = std::collections::BTreeSet::new();
    for body in [CREATION.as_bytes().to_vec(), pretty(CREATION)] {
        let g = genuine(&body);
        assert!(diagnose(&g.body, &g.headers, &[SECRET], NOW, 300).valid);
        let mut next = ids();
        let mut signed = std::collections::HashSet::new();
        for a in plan() {
            let Some(v) = probe_variant(a, &g, SECRET, NOW, &mut next).unwrap() else { continue };
            covered.insert(a.cause.id);
            assert_eq!((v.method.as_str(), v.url.as_str(), v.body.as_slice()), (g.method.as_str(), g.url.as_str(), g.body.as_slice()));
            assert_eq!(v.headers.get("content-type"), Some("application/json"), "the other headers are kept");
            let id = v.headers.get(HEADER_DELIVERY_ID).unwrap();
            assert!(crate::check::is_uuid(id) && id != g.headers.get(HEADER_DELIVERY_ID).unwrap(), "a fresh delivery id");
            assert_eq!(v.headers.pairs().len(), g.headers.pairs().len());
            let sig = (v.headers.get(HEADER_TIMESTAMP).unwrap().to_string(), v.headers.get(HEADER_SIGNATURE).unwrap().to_string());
            assert_ne!(sig.1, g.headers.get(HEADER_SIGNATURE).unwrap(), "{}", a.cause.id);
            assert!(signed.insert(sig), "{} {}: the same signature as an earlier variant", a.cause.id, a.step);
            let d = diagnose(&v.body, &v.headers, &[SECRET], NOW, 300);
            let codes: Vec<&str> = d.findings.iter().map(|f| f.code).collect();
            assert!(codes.contains(&a.cause.code), "{} step {}: {:?}", a.cause.id, a.step, d.findings);
            // A wrongly signed variant does not verify, except upper-case hex (the MAC matches).
            assert_eq!(d.valid, a.cause.id == "signature-uppercase-hex", "{}: {:?}", a.cause.id, d.code);
        }
    }
    let probed: std::collections::BTreeSet<&str> = CAUSES.iter().filter(|c| c.probe_steps() > 0).map(|c| c.id).collect();
    assert_eq!(covered, probed, "every probed cause made a variant of one of the bodies");
}

#[test]
fn a_body_form_equal_to_the_genuine_body_or_an_earlier_form_sends_nothing() {
    let compact = cause("body-compact").unwrap();
    let at = |id: &str, body: &[u8]| {
        probe_variant(Attempt { cause: cause(id).unwrap(), step: 0 }, &genuine(body), SECRET, NOW, &mut ids()).unwrap()
    };
    // The service's own bodies are compact: a receiver that compacts accepts them.
    assert!(at(compact.id, CREATION.as_bytes()).is_none());
    assert!(at(compact.id, &pretty(CREATION)).is_some());
    // Without a number JavaScript writes otherwise, JSON.stringify gives the body back.
    let update = br#"{"orderKey":"ord_exnivjLxN4uMWTaO","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-11-28T22:02:12Z"}"#;
    assert!(at("body-json-stringify", update).is_none());
    // Keys already sorted: the sorted form is JSON.stringify's, sent once.
    let sorted = br#"{"a":0.0,"b":1}"#;
    assert!(at("body-json-stringify", sorted).is_some());
    assert!(at("body-sorted-keys", sorted).is_none());
    // Not JSON: no re-serialization; the other causes still make their variant.
    assert!(at("body-json-stringify", b"not json").is_none());
    assert!(at("secret-trailing-newline", b"not json").is_some());
}

#[test]
fn javascript_writes_what_node_writes() {
    // Node 20: JSON.stringify(JSON.parse(input)).
    let input = r#"{"b":1,"2":3,"a":0.0,"1":1e21,"x":1e-7,"y":123456789012345678901234567890, "z":-0, "w":1.5e300,"u":"\u2028\u0001\"\\/é","v":[1.0,-2.50,1E400,0.000001,123e-20,100]}"#.as_bytes();
    let want = "{\"1\":1e+21,\"2\":3,\"b\":1,\"a\":0,\"x\":1e-7,\"y\":1.2345678901234568e+29,\"z\":0,\"w\":1.5e+300,\"u\":\"\u{2028}\\u0001\\\"\\\\/é\",\"v\":[1,-2.5,null,0.000001,1.23e-18,100]}";
    assert_eq!(String::from_utf8(forms::js_form(input, false).unwrap()).unwrap(), want);
    let sorted = String::from_utf8(forms::js_form(br#"{"b":{"d":1,"c":2},"a":[{"z":1,"y":2}],"10":0,"9":0}"#, true).unwrap()).unwrap();
    assert_eq!(sorted, r#"{"10":0,"9":0,"a":[{"y":2,"z":1}],"b":{"c":2,"d":1}}"#);
    for (x, s) in
        [(0.1, "0.1"), (1e20, "100000000000000000000"), (1e-6, "0.000001"), (1.25e-7, "1.25e-7"), (-3.0, "-3"), (5e-324, "5e-324")]
    {
        let mut out = Vec::new();
        forms::js_number(x, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), s, "{x}");
    }
    // Duplicate keys, lone surrogates, past the depth limit: not re-serialized.
    assert!(forms::js_form(br#"{"a":1,"a":2}"#, false).is_none());
    assert!(forms::js_form(br#"["\ud800"]"#, false).is_none());
    assert!(forms::js_form(&[b"[".repeat(100), b"]".repeat(100)].concat(), false).is_none());
}

#[test]
fn secrets_decode_as_node_decodes_them() {
    // Node 20: Buffer.from(s, 'hex') and Buffer.from(s, 'base64').
    assert_eq!(forms::node_hex(b"ab12zz34"), vec![0xab, 0x12]);
    assert_eq!(forms::node_hex(SECRET), Vec::<u8>::new());
    assert_eq!(forms::node_base64(b"ab-_"), Some(vec![0x69, 0xbf, 0xbf]));
    assert_eq!(forms::node_base64(b"ab+/"), Some(vec![0x69, 0xbf, 0xbf]));
    assert_eq!(forms::node_base64(b"abc"), Some(vec![0x69, 0xb7]));
    assert_eq!(forms::node_base64(b"abcd="), Some(vec![0x69, 0xb7, 0x1d]));
    assert_eq!(forms::node_base64(b"a"), Some(vec![]));
    assert_eq!(forms::node_base64(b"a b"), None);
    assert_eq!(forms::node_base64(SECRET).map(|k| k.len()), Some(32));
    assert_eq!(forms::base64(&[0xff, 0xee, 0xdd, 0xcc]), "/+7dzA==");
    assert_eq!(forms::node_base64(forms::base64(&[7; 32]).as_bytes()), Some(vec![7; 32]));
}

#[test]
fn hostile_bodies_neither_panic_nor_grow_without_bound() {
    let deep = [b"[".repeat(200_000), b"]".repeat(200_000)].concat();
    let wide = [&b"["[..], &b"1e20,".repeat(40_000), b"0]"].concat();
    for body in [deep, wide] {
        let g = genuine(&body);
        let start = std::time::Instant::now();
        for a in plan() {
            if let Some(v) = probe_variant(a, &g, SECRET, NOW, &mut ids()).unwrap() {
                assert_eq!(v.body.len(), body.len());
                let d = diagnose(&v.body, &v.headers, &[SECRET], NOW, 300);
                assert!(!d.findings.is_empty());
            }
        }
        assert!(start.elapsed().as_secs() < 30, "{} bytes: {:?}", body.len(), start.elapsed());
    }
    // "1e20" is 21 digits in JavaScript: past 4 times the body, the form is given up.
    assert!(forms::js_form(&[&b"["[..], &b"1e20,".repeat(40_000), b"0]"].concat(), false).is_none());
    assert!(forms::js_form(&[&b"["[..], &b"1e9,".repeat(40_000), b"0]"].concat(), false).is_some());
    // Past the bound of the diagnosis: no re-serialization at all, the other causes still apply.
    let huge = vec![b' '; DIAGNOSE_MAX_VARIANT_BODY + 1];
    let g = genuine(&huge);
    for id in ["body-json-stringify", "body-python-spaced", "body-sorted-keys", "body-compact"] {
        assert!(probe_variant(Attempt { cause: cause(id).unwrap(), step: 0 }, &g, SECRET, NOW, &mut ids()).unwrap().is_none(), "{id}");
    }
    assert!(probe_variant(Attempt { cause: cause("signed-body-only").unwrap(), step: 0 }, &g, SECRET, NOW, &mut ids()).unwrap().is_some());
}

#[test]
fn a_variant_needs_a_secret_and_a_step_of_its_cause() {
    let g = genuine(CREATION.as_bytes());
    let a = plan()[0];
    assert_eq!(probe_variant(a, &g, b"", NOW, &mut ids()), Err(CauseError::Secret));
    let clock = Attempt { cause: cause("clock-offset").unwrap(), step: CLOCK_OFFSETS.len() };
    assert!(matches!(probe_variant(clock, &g, SECRET, NOW, &mut ids()), Err(CauseError::Step("clock-offset", 10))));
    let trimmed = Attempt { cause: cause("secret-whitespace").unwrap(), step: 0 };
    assert!(probe_variant(trimmed, &g, SECRET, NOW, &mut ids()).is_err(), "a diagnosis-only cause has no variant");
}

#[test]
fn the_check_messages_say_what_the_receiver_does_the_contract_and_the_fix() {
    let at = |id: &str, step| Attempt { cause: cause(id).unwrap(), step };
    let m = refusal_cause_message("HTTP 401", Some((at("secret-trailing-newline", 0), "HTTP 200")), &plan()[..2]);
    assert!(m.starts_with("The secret carries a trailing newline"), "{m}");
    for part in
        ["HTTP 401", "HTTP 200", "signed with the secret followed by \"\\n\"", "key = UTF-8 bytes of the secret", "Fix: trim the secret"]
    {
        assert!(m.contains(part), "{part}: {m}");
    }
    let m = refusal_cause_message("HTTP 401", Some((at("clock-offset", 6), "HTTP 200")), &plan());
    assert!(m.contains("clock is 55 min to 1 h 5 min ahead") && m.contains("3600 s ahead") && m.contains("300 seconds"), "{m}");
    let m = refusal_cause_message("HTTP 401", Some((at("timestamp-milliseconds", 0), "HTTP 200")), &plan());
    assert!(m.starts_with("The timestamp is compared with a clock in milliseconds"), "{m}");
    // None accepted: every cause tried is ruled out, and none is named as the cause.
    let all = plan();
    let m = refusal_cause_message("HTTP 401", None, &all);
    assert!(m.contains("not among those tried") && m.contains(&format!("each of the {} diagnostic deliveries", all.len())), "{m}");
    for a in all.iter().filter(|a| a.offset_seconds().is_none()) {
        assert!(m.contains(a.cause.does), "{}: {m}", a.cause.id);
    }
    assert!(m.contains("a receiver clock off by 5 min to 35 min ahead or behind, 55 min to 1 h 5 min ahead or behind, 1 h 55 min to 2 h 5 min ahead or behind"), "{m}");
    let some = refusal_cause_message("HTTP 401", None, &all[..3]);
    assert!(!some.contains("receiver clock off") && !some.contains(all[4].cause.does), "only what was tried: {some}");
    assert!(refusal_cause_message("HTTP 500", None, &[]).contains("no cause is named"));
    // The second defect: a signature the service never makes; not for a clock offset.
    let m = foreign_signature_message(at("signature-uppercase-hex", 0), "HTTP 200").unwrap();
    assert!(m.contains("upper-case hex") && m.contains("lowercase hex of HMAC-SHA256") && m.contains("HTTP 200"), "{m}");
    assert_eq!(foreign_signature_message(at("clock-offset", 0), "HTTP 200"), None);
    // The wrong route.
    let m = wrong_route_message(404, "POST", "http://127.0.0.1:8080/webhooks/v1/order/STORE-1", "POST /v1/order/{remoteId}").unwrap();
    assert!(m.contains("404 to POST /webhooks/v1/order/STORE-1") && m.contains("route POST /v1/order/{remoteId}"), "{m}");
    let m = wrong_route_message(405, "PUT", "http://h/v1/order/S/R/events", "PUT /v1/order/{remoteId}/{remoteOrderId}/events").unwrap();
    assert!(m.contains("not for PUT"), "{m}");
    assert_eq!(wrong_route_message(401, "POST", "http://h/", "POST /v1/order/{remoteId}"), None);
}

/// The contract's sentences are quoted exactly (when the spec is at hand: the shared workspace).
#[test]
fn the_contract_sentences_are_quoted_exactly() {
    let Ok(spec) = std::fs::read_to_string("/work/shared/spec/service-spec.md") else {
        eprintln!("the spec is not at /work/shared/spec/service-spec.md: quotes not compared");
        return;
    };
    let quotes = |text: &str| -> Vec<String> { text.split('"').skip(1).step_by(2).map(str::to_string).collect() };
    let mut texts: Vec<&str> = CAUSES.iter().map(|c| c.contract).collect();
    texts.extend([REFUSAL_CAUSE_RULE.source, FOREIGN_SIGNATURE_RULE.source]);
    for text in texts {
        let q = quotes(text);
        assert!(!q.is_empty(), "{text}");
        for q in q {
            assert!(spec.contains(&q), "not in the spec: {q:?}");
        }
    }
}
