use super::*;

fn access() -> Access {
    Access { bind_host: "127.0.0.1".into(), port: 8787, allowed_hosts: vec!["pos.test".into()] }
}

#[test]
fn loopback_names_with_the_own_port_or_none_pass() {
    let a = access();
    for h in [
        "127.0.0.1:8787",
        "localhost:8787",
        "LOCALHOST:8787",
        "[::1]:8787",
        "localhost",
        "127.0.0.1",
        "[::1]",
        "localhost.:8787",
        "pos.test:8787",
        "POS.test",
    ] {
        assert_eq!(a.check(true, Some(h), None), Ok(()), "{h}");
    }
}

#[test]
fn foreign_names_other_ports_and_malformed_hosts_are_refused() {
    let a = access();
    for h in [
        "evil.example:8787",
        "evil.example",
        "127.0.0.1:8788",
        "localhost:80",
        "127.0.0.2:8787",
        "",
        "::1",
        "[::1",
        "[::1]x",
        "localhost:8787:1",
        "localhost.evil.example:8787",
        "127.0.0.1.nip.io:8787",
    ] {
        let r = a.check(true, Some(h), None);
        assert!(matches!(r, Err(Refusal::Host(_))), "{h}: {r:?}");
    }
    assert_eq!(a.check(false, None, None), Err(Refusal::NoHost));
}

#[test]
fn the_console_ignores_origin_the_controls_refuse_a_foreign_one() {
    let a = access();
    let host = Some("127.0.0.1:8787");
    assert_eq!(a.check(false, host, Some("http://evil.example")), Ok(()));
    for o in [
        "http://evil.example",
        "null",
        "https://127.0.0.1:8787",
        "http://127.0.0.1:8788",
        "http://127.0.0.1",
        "http://127.0.0.1:8787/x",
        "http://evil.example:8787",
    ] {
        assert!(matches!(a.check(true, host, Some(o)), Err(Refusal::Origin(_))), "{o}");
    }
    for o in ["http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787", "http://pos.test:8787"] {
        assert_eq!(a.check(true, host, Some(o)), Ok(()), "{o}");
    }
}

#[test]
fn the_bound_host_is_allowed_unless_it_is_the_unspecified_address() {
    let a = Access { bind_host: "192.168.1.20".into(), port: 9000, allowed_hosts: vec![] };
    assert!(a.host_allowed("192.168.1.20:9000"));
    let any = Access { bind_host: "0.0.0.0".into(), port: 9000, allowed_hosts: vec![] };
    assert!(!any.host_allowed("0.0.0.0:9000"));
    assert!(any.host_allowed("localhost:9000"));
    let v6 = Access { bind_host: "fe80::1".into(), port: 9000, allowed_hosts: vec![] };
    assert!(v6.host_allowed("[fe80::1]:9000"));
}

#[test]
fn a_refusal_is_a_problem_document_that_says_how_to_allow_the_name() {
    let a = access();
    let r = a.check(true, Some("evil.example:8787"), None).unwrap_err();
    let doc: serde_json::Value = serde_json::from_str(&r.problem(&a)).unwrap();
    assert_eq!(doc["status"], 403);
    assert_eq!(doc["code"], "FORBIDDEN_HOST");
    let detail = doc["detail"].as_str().unwrap();
    assert!(detail.contains("--allowed-hosts evil.example"), "{detail}");
    let r = a.check(true, Some("localhost:8787"), Some("http://evil.example")).unwrap_err();
    let doc: serde_json::Value = serde_json::from_str(&r.problem(&a)).unwrap();
    assert_eq!(doc["code"], "CROSS_ORIGIN");
}

#[test]
fn binding_beyond_the_loopback_is_warned_about() {
    let mut a = access();
    assert_eq!(a.exposed(), None);
    for h in ["localhost", "::1", "[::1]", "127.0.0.2"] {
        a.bind_host = h.into();
        assert_eq!(a.exposed(), None, "{h}");
    }
    for h in ["0.0.0.0", "::", "192.168.1.20"] {
        a.bind_host = h.into();
        assert!(a.exposed().is_some_and(|w| w.contains("unauthenticated")), "{h}");
    }
}

#[test]
fn allowed_hosts_are_read_from_a_comma_list() {
    assert_eq!(parse_allowed_hosts(" a.test, B.test ,,").unwrap(), vec!["a.test", "b.test"]);
    assert!(parse_allowed_hosts("http://a.test").is_err());
    assert!(parse_allowed_hosts("a.test:80").is_err());
    assert_eq!(parse_allowed_hosts("[fe80::1]").unwrap(), vec!["[fe80::1]"]);
    assert!(parse_allowed_hosts(&"a,".repeat(200)).is_err());
}

#[test]
fn hostile_headers_are_refused_in_linear_time() {
    let a = access();
    let long = "a".repeat(1 << 20);
    assert!(a.check(true, Some(&long), None).is_err());
    let brackets = "[".repeat(1 << 20);
    assert!(a.check(true, Some(&brackets), None).is_err());
    let origin = format!("http://{}", ":".repeat(1 << 20));
    assert!(a.check(true, Some("localhost"), Some(&origin)).is_err());
}
