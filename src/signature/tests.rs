use super::forms::replace;
use super::verify::SERVICE_HEADERS;
use super::*;

const SECRET: &[u8] = b"test_secret";
const NOW: u64 = 1_767_225_600;

/// SHA-256 of the parts, one after the other (the sha2 crate's, as a native one would give).
fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    use sha2::Digest;
    parts.iter().fold(Sha256::new(), |h, p| h.chain_update(p)).finalize().into()
}

fn signed(body: &[u8], ts: u64) -> Headers {
    Headers::from_pairs([(HEADER_TIMESTAMP.to_string(), ts.to_string()), (HEADER_SIGNATURE.to_string(), sign(SECRET, ts, body).unwrap())])
}

#[test]
fn service_headers_read_as_lookup_does() {
    let sig = sign(SECRET, NOW, b"x").unwrap();
    let ts = NOW.to_string();
    let cases: Vec<Vec<(&str, &str)>> = vec![
        vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_DELIVERY_ID, "d-1"), (HEADER_EVENT_TYPE, "order.update")],
        vec![("x-service-timestamp", &ts), ("X-SERVICE-SIGNATURE-256", &sig), (HEADER_DELIVERY_ID, "a"), (HEADER_DELIVERY_ID, "b")],
        vec![(HEADER_TIMESTAMP, &ts), (HEADER_TIMESTAMP, "1"), (HEADER_SIGNATURE, &sig)],
        vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_SIGNATURE, &sig)],
        vec![(HEADER_TIMESTAMP, ""), (HEADER_SIGNATURE, &sig)],
        vec![(HEADER_TIMESTAMP, "0001767225600"), (HEADER_SIGNATURE, "sha256=zz")],
        vec![(HEADER_SIGNATURE, &sig)],
        vec![],
    ];
    // One pass over the pairs finds what a lookup of each name finds (Headers::lookup, one
    // scan per name), and the position of the first pair of that name when there is one value.
    for pairs in cases {
        let headers = Headers::from_pairs(pairs.iter().copied());
        let found = ServiceHeaders::find(pairs.iter().copied());
        for (slot, name) in SERVICE_HEADERS.iter().enumerate() {
            assert_eq!(found.values[slot], headers.lookup(name), "{pairs:?} {name}");
            let first = pairs.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)).map_or(0, |i| i as u32 + 1);
            let want = if matches!(headers.lookup(name), HeaderValue::One(_)) { first } else { 0 };
            assert_eq!(found.position(slot), want, "{pairs:?} {name}");
        }
    }
}

#[test]
fn keyed_verification_answers_as_verify_does() {
    let long = [7u8; 100];
    let secret_sets: Vec<Vec<&[u8]>> = vec![vec![SECRET], vec![b"old", SECRET], vec![b"old"], vec![], vec![SECRET, b""], vec![&long]];
    for body in [&b""[..], b"x", &[b'y'; 55], &[b'z'; 64], &[0u8; 1000]] {
        let sig = sign(SECRET, NOW, body).unwrap();
        let long_sig = sign(&long, NOW, body).unwrap();
        let ts = NOW.to_string();
        let cases: Vec<Vec<(&str, &str)>> = vec![
            vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_DELIVERY_ID, "d-1"), (HEADER_EVENT_TYPE, "order.created")],
            vec![("x-service-timestamp", &ts), ("x-service-signature-256", &long_sig)],
            vec![(HEADER_TIMESTAMP, "1767225000"), (HEADER_SIGNATURE, &sig)],
            vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_SIGNATURE, "sha256=00")],
            vec![(HEADER_SIGNATURE, &sig)],
        ];
        for pairs in &cases {
            let headers = Headers::from_pairs(pairs.iter().copied());
            for secrets in &secret_sets {
                let keys: Vec<MacKey> = secrets.iter().map(|s| MacKey::new(s)).collect();
                let general = verify(body, &headers, secrets, NOW, 300).map_err(|e| e.code());
                let keyed = verify_keyed(body, &ServiceHeaders::find(pairs.iter().copied()), &keys, NOW, 300)
                    .map(|(v, i)| Verified {
                        timestamp: v.timestamp,
                        delivery_id: v.delivery_id.map(str::to_owned),
                        event_type: v.event_type.map(str::to_owned),
                        secret_index: i,
                    })
                    .map_err(|e| e.code());
                assert_eq!(general, keyed, "{pairs:?} {} secrets, {} bytes", secrets.len(), body.len());
            }
        }
    }
    // The key's MAC against the hmac crate's, for every length around the block edges, short
    // and long prefixes, and keys shorter than, equal to and longer than a block.
    for secret in [&b"k"[..], &[9u8; 64], &[3u8; 65], &[1u8; 200]] {
        let key = MacKey::new(secret);
        for prefix in [&b""[..], b"1767225600.", &[b'p'; 70]] {
            for n in (0..200).chain([255, 256, 257, 1000, 4096]) {
                let body: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
                let mut m = HmacSha256::new_from_slice(secret).unwrap();
                m.update(prefix);
                m.update(&body);
                let want: [u8; 32] = m.finalize().into_bytes().into();
                assert_eq!(key.mac(prefix, &body), want, "{} byte key, {} byte prefix, {n} bytes", secret.len(), prefix.len());
                // The same MAC when a native SHA-256 hashes the inner message (Node's path).
                let inner = sha256(&[&MacKey::inner_pad(secret), prefix, &body]);
                assert_eq!(key.outer_mac(&inner), want, "inner pad: {} byte key, {n} bytes", secret.len());
            }
        }
    }
    // Inner hashes matched against the signature: the index of the key that signed; none
    // matching is SIGNATURE_MISMATCH.
    let keys = [MacKey::new(b"old"), MacKey::new(SECRET)];
    let body = b"{}";
    let expected = mac(SECRET, b"1767225600", body);
    let inner = |secret: &[u8]| sha256(&[&MacKey::inner_pad(secret), b"1767225600.", body]);
    assert_eq!(match_inner_hashes(&expected, &keys, [inner(b"old"), inner(SECRET)]), Ok(1));
    // Each hash goes with the key at its position: swapped, neither MAC is right.
    assert_eq!(match_inner_hashes(&expected, &keys, [inner(SECRET), inner(b"old")]), Err(WebhookError::SignatureMismatch));
    assert_eq!(match_inner_hashes(&expected, &keys, [inner(b"old"), inner(b"new")]), Err(WebhookError::SignatureMismatch));
    // A key made once serves every later message, and its Debug form holds no key material.
    let key = MacKey::new(SECRET);
    assert_eq!(format!("{key:?}"), "MacKey { len: 11, .. }");
    for body in [&b"a"[..], b"b"] {
        let pairs = [(HEADER_TIMESTAMP, "1767225600"), (HEADER_SIGNATURE, &*sign(SECRET, NOW, body).unwrap())];
        assert_eq!(verify_keyed(body, &ServiceHeaders::find(pairs), std::slice::from_ref(&key), NOW, 300).unwrap().1, 0);
    }
}

#[test]
fn checked_headers_say_the_signed_prefix_without_a_copy() {
    let sig = sign(SECRET, NOW, b"{}").unwrap();
    let found = ServiceHeaders::find([(HEADER_TIMESTAMP, "1767225600"), (HEADER_SIGNATURE, &*sig), (HEADER_DELIVERY_ID, "d-1")]);
    let checked = check_service_headers(&found, [SECRET.len()].into_iter(), NOW, 300).unwrap();
    let verified = verify_service_headers(&found, [SECRET.len()].into_iter(), NOW, 300).unwrap();
    assert!(checked.is_signed_prefix(verified.signed_prefix.as_bytes()));
    for other in [&b"1767225600"[..], b"01767225600.", b"1767225600..", b".", b""] {
        assert!(!checked.is_signed_prefix(other), "{:?}", std::str::from_utf8(other));
    }
    assert_eq!((checked.timestamp, checked.delivery_id, checked.expected), (NOW, Some("d-1"), verified.expected));
    // The same refusals as verify_service_headers.
    let stale = check_service_headers(&found, [SECRET.len()].into_iter(), NOW + 301, 300).err();
    assert_eq!(stale, verify_service_headers(&found, [SECRET.len()].into_iter(), NOW + 301, 300).err());
    assert!(stale.is_some());
}

#[test]
fn round_trip_and_case_insensitive_names() {
    let body = b"{\"a\":1}";
    let sig = sign(SECRET, NOW, body).unwrap();
    let h = Headers::from_pairs([("X-SERVICE-TIMESTAMP", NOW.to_string()), ("x-service-signature-256", sig)]);
    let ok = verify(body, &h, &[SECRET], NOW, 300).unwrap();
    assert_eq!(ok.timestamp, NOW);
    assert_eq!(ok.delivery_id, None);
}

#[test]
fn window_edges() {
    let body = b"x";
    assert!(verify(body, &signed(body, NOW - 300), &[SECRET], NOW, 300).is_ok());
    assert!(verify(body, &signed(body, NOW + 300), &[SECRET], NOW, 300).is_ok());
    assert_eq!(verify(body, &signed(body, NOW - 301), &[SECRET], NOW, 300).unwrap_err().code(), "TIMESTAMP_TOO_OLD");
    assert_eq!(verify(body, &signed(body, NOW + 301), &[SECRET], NOW, 300).unwrap_err().code(), "TIMESTAMP_IN_FUTURE");
    assert!(verify(body, &signed(body, NOW), &[SECRET], NOW, 0).is_ok());
    assert!(verify(body, &signed(body, NOW - 1), &[SECRET], NOW, 0).is_err());
}

#[test]
fn malformed_timestamps() {
    for bad in ["+1", "-1", " 1", "1 ", "1.5", "1e3", "0x10", "99999999999999999999999"] {
        assert_eq!(parse_timestamp(bad).unwrap_err().code(), "MALFORMED_TIMESTAMP", "{bad}");
    }
    assert_eq!(parse_timestamp("0").unwrap(), 0);
}

#[test]
fn rotation_reports_index() {
    let body = b"x";
    let ok = verify(body, &signed(body, NOW), &[&b"old"[..], SECRET], NOW, 300).unwrap();
    assert_eq!(ok.secret_index, 1);
}

#[test]
fn conflicting_duplicate_headers_are_malformed() {
    let body = b"x";
    let mut h = signed(body, NOW);
    h.push("x-service-signature-256", format!("sha256={}", "0".repeat(64)));
    assert_eq!(verify(body, &h, &[SECRET], NOW, 300).unwrap_err().code(), "MALFORMED_SIGNATURE");
    let mut same = signed(body, NOW);
    let sig = same.get(HEADER_SIGNATURE).unwrap().to_string();
    same.push("X-Service-Signature-256", sig);
    assert!(verify(body, &same, &[SECRET], NOW, 300).is_ok());
}

#[test]
fn messages_never_contain_the_secret() {
    let secret = b"s3cr3t-VALUE-xyz";
    let body = b"{\"a\": 1}";
    let good = sign(secret, NOW, body).unwrap();
    let zero = format!("sha256={}", "0".repeat(64));
    let header_sets = [
        vec![(HEADER_SIGNATURE, good.clone())],
        vec![(HEADER_TIMESTAMP, NOW.to_string())],
        vec![(HEADER_TIMESTAMP, "12a".to_string()), (HEADER_SIGNATURE, good.clone())],
        vec![(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, "md5=abc".to_string())],
        vec![(HEADER_TIMESTAMP, (NOW - 999).to_string()), (HEADER_SIGNATURE, good.clone())],
        vec![(HEADER_TIMESTAMP, (NOW + 999).to_string()), (HEADER_SIGNATURE, good.clone())],
        vec![(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, zero)],
    ];
    let mut codes = std::collections::BTreeSet::new();
    for set in header_sets {
        let h = Headers::from_pairs(set);
        for secrets in [vec![&secret[..]], vec![&b" s3cr3t-VALUE-xyz\n"[..]]] {
            let d = diagnose(body, &h, &secrets, NOW, 300);
            codes.insert(d.code.unwrap());
            let text = format!("{d:?}");
            assert!(!text.contains("s3cr3t-VALUE-xyz"), "{text}");
        }
    }
    assert_eq!(codes.len(), 7, "{codes:?}");
}

#[test]
fn diagnose_finds_each_known_mistake() {
    let original = b"{\"orderKey\":\"ord_0123456789abcdef\",\n\"event\":\"delivered\"}";
    let h = signed(original, NOW);
    // The service signed compact JSON; the receiver pretty-printed it.
    let compact = b"{\"orderKey\":\"ord_0123456789abcdef\",\"event\":\"delivered\"}";
    let pretty = b"{\n  \"orderKey\": \"ord_0123456789abcdef\",\n  \"event\": \"delivered\"\n}".to_vec();
    let d = diagnose(&pretty, &signed(compact, NOW), &[SECRET], NOW, 300);
    assert_eq!(d.findings[0].code, "BODY_RESERIALIZED", "{:?}", d.findings);
    // The service signed Python-style spacing; the receiver passed JSON.stringify output.
    let spaced = b"{\"orderKey\": \"ord_0123456789abcdef\", \"event\": \"delivered\"}";
    let d = diagnose(compact, &signed(spaced, NOW), &[SECRET], NOW, 300);
    assert_eq!(d.findings[0].code, "BODY_RESERIALIZED", "{:?}", d.findings);
    let cases: Vec<(&str, Vec<u8>, &[u8])> = vec![
        ("LINE_ENDINGS_CHANGED", replace(original, b"\n", b"\r\n"), SECRET),
        ("TRAILING_NEWLINE_ADDED", [&original[..], b"\n"].concat(), SECRET),
        ("BOM_ADDED", [&b"\xEF\xBB\xBF"[..], original].concat(), SECRET),
        ("SECRET_WHITESPACE", original.to_vec(), b"test_secret\n"),
    ];
    for (code, body, secret) in cases {
        let d = diagnose(&body, &h, &[secret], NOW, 300);
        assert!(!d.valid);
        assert_eq!(d.findings.first().map(|f| f.code), Some(code), "{code}: {:?}", d.findings);
    }
}

#[test]
fn diagnose_body_only_and_skew_and_millis() {
    let body = b"hello";
    let body_only = format!("sha256={}", hex_lower(&mac_body_only(SECRET, body)));
    let h = Headers::from_pairs([(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, body_only)]);
    assert_eq!(diagnose(body, &h, &[SECRET], NOW, 300).findings[0].code, "SIGNED_BODY_ONLY");

    let d = diagnose(body, &signed(body, NOW - 1000), &[SECRET], NOW, 300);
    assert_eq!(d.code, Some("TIMESTAMP_TOO_OLD"));
    assert_eq!(d.skew_seconds, Some(-1000));
    assert_eq!(d.findings[0].code, "CLOCK_SKEW");

    let d = diagnose(body, &signed(body, NOW * 1000), &[SECRET], NOW, 300);
    assert_eq!(d.code, Some("TIMESTAMP_IN_FUTURE"));
    assert_eq!(d.findings[0].code, "TIMESTAMP_IN_MILLISECONDS");
    // One finding about the signature: no advice to sync a clock beside it.
    assert!(!d.findings.iter().any(|f| f.code == "CLOCK_SKEW"), "{:?}", d.findings);
    assert!(d.findings[0].message.contains("the HMAC itself matches"));
}

#[test]
fn diagnose_duplicate_headers_uppercase_hex_and_number_formatting() {
    let body = b"{\"price\":23.4}";
    let good = signed(body, NOW);
    let sig = good.get(HEADER_SIGNATURE).unwrap().to_string();
    let other = format!("sha256={}", "0".repeat(64));
    let dup = Headers::from_pairs([(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, sig.clone()), (HEADER_SIGNATURE, other)]);
    let d = diagnose(body, &dup, &[SECRET], NOW, 300);
    assert_eq!(d.code, Some("MALFORMED_SIGNATURE"));
    assert_eq!(d.findings[0].code, "HEADER_DUPLICATED");
    assert!(!d.findings.iter().any(|f| f.code == "SIGNATURE_NOT_HEX"), "{:?}", d.findings);
    let dup_ts = Headers::from_pairs([
        (HEADER_TIMESTAMP, NOW.to_string()),
        (HEADER_TIMESTAMP, (NOW + 1).to_string()),
        (HEADER_SIGNATURE, sig.clone()),
    ]);
    assert_eq!(diagnose(body, &dup_ts, &[SECRET], NOW, 300).findings[0].code, "HEADER_DUPLICATED");

    let upper = Headers::from_pairs([
        (HEADER_TIMESTAMP, NOW.to_string()),
        (HEADER_SIGNATURE, format!("sha256={}", sig["sha256=".len()..].to_ascii_uppercase())),
    ]);
    let d = diagnose(body, &upper, &[SECRET], NOW, 300);
    assert!(d.valid);
    assert_eq!(d.findings[0].code, "VALID");
    assert!(d.findings.iter().any(|f| f.code == "SIGNATURE_UPPERCASE_HEX"));
    assert!(!diagnose(body, &good, &[SECRET], NOW, 300).findings.iter().any(|f| f.code == "SIGNATURE_UPPERCASE_HEX"), "lowercase: no note");

    // The service signed 23.4; the receiver checks a re-serialization that wrote 23.40 and spaces.
    let d = diagnose(b"{ \"price\": 23.40 }", &good, &[SECRET], NOW, 300);
    assert_eq!(d.findings[0].code, "BODY_RESERIALIZED");
    assert!(d.findings[0].message.contains("not only spacing"), "{}", d.findings[0].message);
    // Spacing alone is called spacing.
    let spaced = b"{\"a\":1,\"b\":[1,2]}";
    let d = diagnose(b"{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}", &signed(spaced, NOW), &[SECRET], NOW, 300);
    assert_eq!(d.findings[0].code, "BODY_RESERIALIZED");
    assert!(d.findings[0].message.contains("different spacing"));
}

#[test]
fn diagnose_wrong_secret_says_so() {
    let body = b"hello";
    let d = diagnose(body, &signed(body, NOW), &[b"other"], NOW, 300);
    assert_eq!(d.code, Some("SIGNATURE_MISMATCH"));
    let causes: Vec<&str> =
        d.findings.iter().map(|f| f.code).filter(|c| !c.starts_with("DELIVERY_ID") && !c.starts_with("EVENT_TYPE")).collect();
    assert_eq!(causes.last(), Some(&"WRONG_SECRET_OR_BODY"));
}

#[test]
fn diagnose_checks_the_headers_beyond_the_signature() {
    // Authentication 3: "X-Service-Delivery-Id (UUID, see Events), X-Service-Event-Type (only
    // order.created, on the creation webhook)".
    let update = br#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T14:30:00Z"}"#;
    let codes = |h: &Headers, body: &[u8]| {
        let d = diagnose(body, h, &[SECRET], NOW, 300);
        assert!(d.valid, "the signature verdict is unchanged");
        d.findings.iter().map(|f| f.code).collect::<Vec<_>>()
    };
    let mut h = signed(update, NOW);
    h.push(HEADER_DELIVERY_ID, "3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f");
    assert_eq!(codes(&h, update), vec!["VALID"]);
    let mut bad = signed(update, NOW);
    bad.push(HEADER_DELIVERY_ID, "delivery-42");
    bad.push(HEADER_EVENT_TYPE, "order.updated");
    assert_eq!(codes(&bad, update), vec!["VALID", "DELIVERY_ID_NOT_UUID", "EVENT_TYPE_UNKNOWN"]);
    let mut on_update = signed(update, NOW);
    on_update.push(HEADER_DELIVERY_ID, "3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f");
    on_update.push(HEADER_EVENT_TYPE, "order.created");
    assert_eq!(codes(&on_update, update), vec!["VALID", "EVENT_TYPE_NOT_ON_CREATION"]);
    let creation = br#"{"displayCode":"A-1","storeRemoteId":"S-1","fulfillment":{"type":"pickup"}}"#;
    assert_eq!(codes(&signed(creation, NOW), creation), vec!["VALID", "DELIVERY_ID_MISSING", "EVENT_TYPE_MISSING"]);
    for c in ["DELIVERY_ID_MISSING", "DELIVERY_ID_NOT_UUID", "EVENT_TYPE_UNKNOWN", "EVENT_TYPE_NOT_ON_CREATION", "EVENT_TYPE_MISSING"] {
        assert!(FINDING_CODES.contains(&c));
    }
}
