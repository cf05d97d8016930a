//! Checks shared by the native ring and the wasm ring (tests/wasm.rs): the same fixtures, the same
//! assertions, run by `cargo test` natively and by wasm-bindgen-test in Node and Chromium.
#![allow(dead_code)]

use poscheck::signature::{self, Headers};
use serde_json::Value;

pub mod hostile;
pub mod receiver;

/// A directory of a test's own under the system's temporary directory, removed with its files
/// when dropped (also when the test fails).
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// A new empty directory, named by `name`, the process and a counter (tests run in parallel).
    pub fn new(name: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("poscheck-{name}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `content` to `name` in the directory and answers its path.
    pub fn file(&self, name: &str, content: &[u8]) -> std::path::PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub const SIGNATURE_VECTORS: &str = include_str!("../fixtures/signature/vectors.json");

/// Standard base64 (the fixtures' encoding of raw bodies).
pub fn b64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("invalid base64 character {c:?}"),
        }
    };
    let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &c)| acc | (val(c) << (18 - 6 * i)));
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

/// Every vector of tests/fixtures/signature/vectors.json (made with Python's hmac) against the core.
pub fn check_signature_vectors() {
    let doc: Value = serde_json::from_str(SIGNATURE_VECTORS).expect("vectors.json parses");
    let cases = doc["verify"].as_array().expect("verify cases");
    assert!(cases.len() >= 25, "expected the full vector set");
    let mut codes_seen = std::collections::BTreeSet::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let body = b64(case["bodyBase64"].as_str().unwrap());
        let headers =
            Headers::from_pairs(case["headers"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())));
        let secrets: Vec<&[u8]> = case["secrets"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().as_bytes()).collect();
        let now = case["now"].as_u64().unwrap();
        let tolerance = case.get("toleranceSeconds").and_then(Value::as_u64).unwrap_or(signature::DEFAULT_TOLERANCE_SECONDS);
        let result = signature::verify(&body, &headers, &secrets, now, tolerance);
        match case["expect"].as_str().unwrap() {
            "valid" => {
                let ok = result.unwrap_or_else(|e| panic!("{name}: expected valid, got {}", e.code()));
                assert_eq!(ok.secret_index as u64, case["secretIndex"].as_u64().unwrap(), "{name}");
                assert_eq!(ok.delivery_id.as_deref(), headers.get("X-Service-Delivery-Id"), "{name}");
                codes_seen.insert("valid".to_string());
            }
            code => {
                let err = result.err().unwrap_or_else(|| panic!("{name}: expected {code}, got valid"));
                assert_eq!(err.code(), code, "{name}");
                assert_eq!(err.http_status(), 401, "{name}");
                codes_seen.insert(code.to_string());
            }
        }
        // diagnose agrees with verify on every vector.
        let d = signature::diagnose(&body, &headers, &secrets, now, tolerance);
        assert_eq!(d.valid, case["expect"] == "valid", "{name}: diagnose");
        assert!(!d.findings.is_empty(), "{name}: diagnose gives at least one finding");
    }
    for code in signature::ERROR_CODES {
        assert!(codes_seen.contains(*code), "no vector for {code}");
    }
    for s in doc["sign"].as_array().unwrap() {
        let body = b64(s["bodyBase64"].as_str().unwrap());
        let got = signature::sign(s["secret"].as_str().unwrap().as_bytes(), s["timestamp"].as_u64().unwrap(), &body).unwrap();
        assert_eq!(got, s["signature"].as_str().unwrap());
    }
}

/// tests/fixtures, embedded when the tests are built (a dev-dependency: the library and its
/// dependents never carry it).
static FIXTURES: include_dir::Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/tests/fixtures");

/// A file below tests/fixtures, embedded at build time (works in wasm, which has no file system).
pub fn fixture(path: &str) -> &'static [u8] {
    FIXTURES.get_file(path).map(|f| f.contents()).unwrap_or_else(|| panic!("no fixture {path}"))
}

/// Checks a report manifest (`[{ file, expect: [{ ruleId, severity?, path?, line?, column? }] }]`):
/// every expected diagnostic is present, and a case with an empty `expect` has no error or warning.
/// `run` produces the report for one case. Returns the number of cases checked.
pub fn check_report_manifest(dir: &str, run: impl Fn(&Value, &[u8]) -> poscheck::Report) -> usize {
    let manifest: Value = serde_json::from_slice(fixture(&format!("{dir}/cases.json"))).expect("cases.json parses");
    let cases = manifest.as_array().expect("cases.json is an array");
    for case in cases {
        let file = case["file"].as_str().expect("case.file");
        let report = run(case, fixture(&format!("{dir}/{file}")));
        let expect = case["expect"].as_array().expect("case.expect");
        if expect.is_empty() {
            assert!(report.error_count == 0 && report.warning_count == 0, "{dir}/{file}: expected clean, got {:#?}", report.diagnostics);
        }
        for e in expect {
            let found = report.diagnostics.iter().any(|d| {
                d.rule_id == e["ruleId"].as_str().unwrap()
                    && e.get("severity").and_then(Value::as_str).is_none_or(|s| d.severity.as_str() == s)
                    && e.get("path").and_then(Value::as_str).is_none_or(|p| d.path == p)
                    && e.get("line").and_then(Value::as_u64).is_none_or(|l| u64::from(d.line) == l)
                    && e.get("column").and_then(Value::as_u64).is_none_or(|c| u64::from(d.column) == c)
            });
            assert!(
                found,
                "{dir}/{file}: expected {e} among {:#?}",
                report.diagnostics.iter().map(|d| (d.rule_id, &d.path, d.line, d.column)).collect::<Vec<_>>()
            );
        }
    }
    cases.len()
}
