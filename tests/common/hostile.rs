//! The hostile shapes of issue 8, as generators of a size parameter `n` (the input grows linearly
//! with `n`), and the entry points they are fed to. Shared by the native ring (tests/hostile.rs:
//! no panic, bounded reports, work that at most doubles when `n` doubles), the wasm ring
//! (tests/wasm.rs: the same inputs through the wasm exports, then a normal verify on the same
//! instance) and the benchmarks (benches/hostile.rs: wall time at two sizes).

use poscheck::diagnostic::Report;
use poscheck::http::Headers;
use poscheck::{menu, order, payload, signature};

/// One hostile shape: its name, and the input for a size parameter.
pub struct Shape {
    pub name: &'static str,
    pub make: fn(usize) -> Vec<u8>,
    /// Runs every entry point the shape is aimed at; returns the reports (for bounds checks).
    pub run: fn(&[u8]) -> Vec<Report>,
    /// A size at which the old code was already slow (seconds or more), and half of it.
    pub size: usize,
}

/// `{"kkk…k": {"a":1,"a":1,…}}`: duplicate keys under a long key path (each duplicate used to copy
/// the whole pointer). The key is `n` bytes long and the object holds `n / 10` duplicates.
pub fn duplicates_under_long_path(n: usize) -> Vec<u8> {
    let mut s = String::with_capacity(n * 2);
    s.push_str("{\"");
    s.push_str(&"k".repeat(n));
    s.push_str("\":{");
    for i in 0..n / 10 {
        if i > 0 {
            s.push(',');
        }
        s.push_str("\"a\":1");
    }
    s.push_str("}}");
    s.into_bytes()
}

/// A menu where products P1 and P2 share modifier group `G` and P2's option carries `n` extra
/// keys (the comparison of the two declarations used to be quadratic).
pub fn shared_group_extra_keys(n: usize) -> Vec<u8> {
    let extra: String = (0..n).map(|i| format!(",\"x{i}\":{i}")).collect();
    let group = |extra: &str| {
        format!(
            r#"{{"remoteCode":"G","name":"Size","min":0,"max":1,"type":"radio","options":[{{"remoteCode":"O1","name":"Big","price":1,"isDefault":false,"maxPerOrder":1{extra}}}]}}"#
        )
    };
    let product = |code: &str, extra: &str| {
        format!(
            r#"{{"remoteCode":"{code}","name":"{code}","description":"d","price":1,"tax":0.1,"maxPerOrder":5,"image":"https://img.example/{code}.png","modifierGroups":[{}]}}"#,
            group(extra)
        )
    };
    format!(
        r#"{{"categories":[{{"remoteCode":"C","name":"C","position":0,"products":[{},{}]}}]}}"#,
        product("P1", ""),
        product("P2", &extra)
    )
    .into_bytes()
}

/// An OrderUpdateEvent with `n` unknown fields (used to give `n` diagnostics, unbounded).
pub fn unknown_fields(n: usize) -> Vec<u8> {
    let mut s =
        String::from(r#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z""#);
    for i in 0..n {
        s.push_str(&format!(",\"u{i}\":0"));
    }
    s.push('}');
    s.into_bytes()
}

/// An event whose `event` value is a string of `n` bytes (echoed whole in messages before).
pub fn long_value(n: usize) -> Vec<u8> {
    format!(
        r#"{{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"{}","occurredAt":"2026-08-12T00:00:00Z"}}"#,
        "x".repeat(n)
    )
    .into_bytes()
}

/// A JSON body nested 100 levels deep around `n` numbers: pretty-printing it indents every line by
/// up to 400 spaces (diagnose used to build every such re-serialization in full).
pub fn nested_body(n: usize) -> Vec<u8> {
    let mut s = "[".repeat(100);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push('1');
    }
    s.push_str(&"]".repeat(100));
    s.into_bytes()
}

fn lint(input: &[u8]) -> Report {
    menu::lint(input, &menu::LintOptions::default())
}

fn validate(input: &[u8]) -> Report {
    payload::validate_payload(input, &payload::PayloadOptions::default())
}

fn check_order(input: &[u8]) -> Report {
    order::check_order(input, &order::CheckOptions::default())
}

fn request(input: &[u8]) -> Report {
    let request = payload::Request {
        method: "PUT".into(),
        path: "/api/v1/menu".into(),
        headers: Headers::from_pairs([("Content-Type", "application/json"), ("X-Service-Api-Key", "k")]),
        body: Some(input.to_vec()),
        now: 1_786_492_800,
    };
    payload::validate_request(&request).report
}

fn problem(input: &[u8]) -> Report {
    let input = payload::ProblemInput { status: 422, headers: Headers::new(), body: input.to_vec(), now: Some(1_786_492_800) };
    payload::classify_problem(&input).report
}

fn inspect(input: &[u8]) -> Report {
    match payload::inspect(input, &payload::PayloadOptions::default(), 1_786_492_800) {
        payload::Inspection::Payload { report } | payload::Inspection::Response { report, .. } => report,
        payload::Inspection::Request { prediction, .. } => prediction.report,
        payload::Inspection::Problem { classification, .. } => classification.report,
    }
}

/// A signature over `body` by another secret, so that diagnose tries every known mistake.
fn diagnose(body: &[u8]) -> Vec<Report> {
    let now = 1_786_492_800;
    let headers = Headers::from_pairs([
        ("X-Service-Timestamp", now.to_string()),
        ("X-Service-Signature-256", signature::sign(b"another_secret", now, body).unwrap()),
    ]);
    let d = signature::diagnose(body, &headers, &[b"whsec_test".as_slice(), b"second"], now, 300);
    assert!(!d.valid);
    Vec::new()
}

pub static SHAPES: &[Shape] = &[
    Shape {
        name: "duplicate keys under a long key path",
        make: duplicates_under_long_path,
        run: |i| vec![lint(i), validate(i), check_order(i), request(i), problem(i), inspect(i)],
        size: 100_000,
    },
    Shape {
        name: "shared modifier group, option with many keys",
        make: shared_group_extra_keys,
        run: |i| vec![lint(i), request(i)],
        size: 8_000,
    },
    Shape {
        name: "event with many unknown fields",
        make: unknown_fields,
        run: |i| vec![validate(i), check_order(i), inspect(i), problem(i)],
        size: 200_000,
    },
    Shape { name: "event with a long value", make: long_value, run: |i| vec![validate(i), inspect(i), problem(i)], size: 4_000_000 },
    Shape { name: "deeply nested body for diagnose", make: nested_body, run: diagnose, size: 1_000_000 },
];

/// The bounds every report must respect, whatever the input.
pub fn assert_bounded(shape: &str, report: &Report) {
    assert!(
        report.diagnostics.len() <= poscheck::diagnostic::DEFAULT_MAX_DIAGNOSTICS + 70,
        "{shape}: {} diagnostics",
        report.diagnostics.len()
    );
    for d in &report.diagnostics {
        assert!(d.message.len() <= poscheck::diagnostic::MAX_MESSAGE_BYTES, "{shape}: message of {} bytes", d.message.len());
        assert!(d.related.len() <= poscheck::diagnostic::MAX_RELATED);
    }
    let text: usize = report.diagnostics.iter().map(|d| d.message.len() + d.path.len() + d.pointer.len()).sum();
    assert!(text <= poscheck::diagnostic::MAX_REPORT_TEXT_BYTES + (1 << 20), "{shape}: {text} bytes of text");
}
