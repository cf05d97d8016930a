//! The `poscheck` binary: exit codes, secrets never from argv, formats.
mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn poscheck(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_poscheck"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("poscheck runs");
    // The command may exit without reading stdin (a file argument, a usage error): not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn verify_exit_codes_follow_the_python_vectors() {
    let doc: serde_json::Value = serde_json::from_str(common::SIGNATURE_VECTORS).unwrap();
    for case in doc["verify"].as_array().unwrap() {
        let secrets: Vec<&str> = case["secrets"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
        if secrets.is_empty() || secrets.iter().any(|s| s.is_empty()) {
            continue; // an empty secret cannot be put in an environment variable meaningfully
        }
        let body = common::b64(case["bodyBase64"].as_str().unwrap());
        let now = case["now"].to_string();
        let mut args: Vec<String> = vec!["verify".into(), "--now".into(), now, "--format".into(), "json".into()];
        if let Some(t) = case.get("toleranceSeconds") {
            args.extend(["--tolerance".into(), t.to_string()]);
        }
        let mut env = Vec::new();
        for (i, s) in secrets.iter().enumerate() {
            env.push((format!("POSCHECK_TEST_SECRET_{i}"), s.to_string()));
            args.extend(["--secret-env".into(), format!("POSCHECK_TEST_SECRET_{i}")]);
        }
        for (k, v) in case["headers"].as_object().unwrap() {
            args.extend(["--header".into(), format!("{k}: {}", v.as_str().unwrap())]);
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let envv: Vec<(&str, &str)> = env.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let out = poscheck(&argv, &body, &envv);
        let name = case["name"].as_str().unwrap();
        let expect = case["expect"].as_str().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{name}: {}", text(&out.stderr)));
        if expect == "valid" {
            assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stdout));
        } else {
            assert_eq!(out.status.code(), Some(1), "{name}");
            assert_eq!(json["code"], expect, "{name}");
        }
        for s in &secrets {
            assert!(!text(&out.stdout).contains(s) || s.len() < 4, "{name}: output leaks the secret");
        }
    }
}

#[test]
fn sign_then_verify_a_raw_request_with_a_secret_file() {
    let dir = common::TempDir::new("cli");
    let secret = dir.file("secret.txt", b"whsec_cli_test\n"); // trailing newline is dropped
    let body = b"{\"event\":\"delivered\"}";
    let out =
        poscheck(&["sign", "--secret-file", secret.to_str().unwrap(), "--timestamp", "1786492800", "--delivery-id", "d-1"], body, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let headers = text(&out.stdout);
    assert!(headers.contains("X-Service-Timestamp: 1786492800\n"));
    let request = format!("PUT /v1/order/S1/R1/events HTTP/1.1\r\n{}\r\n{}", headers.replace('\n', "\r\n"), String::from_utf8_lossy(body));
    let req = dir.file("request.http", request.as_bytes());
    let ok = poscheck(
        &["verify", "--request", "--secret-file", secret.to_str().unwrap(), "--now", "1786492900", req.to_str().unwrap()],
        b"",
        &[],
    );
    assert_eq!(ok.status.code(), Some(0), "{}{}", text(&ok.stdout), text(&ok.stderr));
    assert!(text(&ok.stdout).starts_with("valid: timestamp 1786492800"), "{}", text(&ok.stdout));
    // Tampered: exit 1 with the code and a diagnosis.
    let tampered = dir.file("tampered.http", request.replace("delivered", "cancelled").as_bytes());
    let bad = poscheck(
        &["verify", "--request", "--secret-file", secret.to_str().unwrap(), "--now", "1786492900", tampered.to_str().unwrap()],
        b"",
        &[],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stdout).starts_with("invalid: SIGNATURE_MISMATCH"), "{}", text(&bad.stdout));
    assert!(text(&bad.stdout).contains("WRONG_SECRET_OR_BODY"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["verify"],                       // no secret
        vec!["verify", "--secret", "s3cr3t"], // secrets are never taken from argv
        vec!["sign", "--secret-env", "POSCHECK_UNSET_VAR_FOR_TEST"],
        vec!["frobnicate"],
        vec![],
        vec!["verify", "--secret-env", "HOME", "--now", "soon"],
        vec!["rules", "--format", "sarif"],
    ] {
        let out = poscheck(&args, b"", &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stdout));
        assert!(!text(&out.stderr).is_empty());
    }
}

#[test]
fn rules_are_listed() {
    let out = poscheck(&["rules", "--format", "json"], b"", &[]);
    assert_eq!(out.status.code(), Some(0));
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rules.as_array().unwrap().iter().any(|r| r["id"] == "json/syntax"));
    // Each rule shows what it rests on (issue 9): stated, derived or assumed, with the source.
    for r in rules.as_array().unwrap() {
        assert!(["stated", "derived", "assumed"].contains(&r["basis"].as_str().unwrap()), "{r}");
        assert!(!r["source"].as_str().unwrap().is_empty(), "{r}");
    }
    let assumed = rules.as_array().unwrap().iter().find(|r| r["id"] == "request/idempotency-key-format").unwrap();
    assert_eq!((assumed["basis"].as_str(), assumed["severity"].as_str()), (Some("assumed"), Some("warning")));
    let text = poscheck(&["rules"], b"", &[]);
    assert!(String::from_utf8_lossy(&text.stdout)
        .lines()
        .any(|l| l.starts_with("request/idempotency-key-format") && l.contains(" assumed ")));
}

fn fixture_path(p: &str) -> String {
    format!("{}/tests/fixtures/{p}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn order_command_formats_and_exit_codes() {
    let ok = poscheck(&["order", &fixture_path("order/delivery-delivered.json")], b"", &[]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stdout));
    let bad_file = fixture_path("order/history-gap.json");
    let bad = poscheck(&["order", &bad_file], b"", &[]);
    assert_eq!(bad.status.code(), Some(1));
    let first = text(&bad.stdout).lines().next().unwrap().to_string();
    // file:line:col severity rule-id message
    let parts: Vec<&str> = first.splitn(4, ' ').collect();
    assert!(parts[0].starts_with(&format!("{bad_file}:")), "{first}");
    assert!(matches!(parts[1], "error" | "warning" | "info"), "{first}");
    assert!(parts[2].starts_with("order/") || parts[2].starts_with("json/"), "{first}");
    for fmt in ["json", "sarif", "github"] {
        let out = poscheck(&["order", "--format", fmt, &bad_file], b"", &[]);
        assert_eq!(out.status.code(), Some(1), "{fmt}");
        match fmt {
            "json" => assert_eq!(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["ok"], false),
            "sarif" => assert_eq!(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["version"], "2.1.0"),
            _ => assert!(text(&out.stdout).starts_with("::"), "{}", text(&out.stdout)),
        }
    }
    // stdin, and a read error.
    let stdin = poscheck(&["order", "-"], &std::fs::read(fixture_path("order/pending.json")).unwrap(), &[]);
    assert_eq!(stdin.status.code(), Some(0));
    assert_eq!(poscheck(&["order", "/nonexistent/order.json"], b"", &[]).status.code(), Some(2));
    assert_eq!(poscheck(&["order", "--max-warnings", "x", "-"], b"{}", &[]).status.code(), Some(2));
}

#[test]
fn lint_exit_codes_formats_and_positions() {
    let valid = poscheck(&["lint", &fixture_path("menu/valid.json")], b"", &[]);
    assert_eq!(valid.status.code(), Some(0), "{}", text(&valid.stdout));
    let example = fixture_path("menu/example.json");
    let out = poscheck(&["lint", &example], b"", &[]);
    assert_eq!(out.status.code(), Some(1));
    // Every expectation of the manifest for example.json appears as a text line file:line:col severity rule.
    let manifest: serde_json::Value = serde_json::from_slice(common::fixture("menu/cases.json")).unwrap();
    let case = manifest.as_array().unwrap().iter().find(|c| c["file"] == "example.json").unwrap();
    let stdout = text(&out.stdout);
    for e in case["expect"].as_array().unwrap() {
        let line =
            format!("{example}:{}:{} {} {} ", e["line"], e["column"], e["severity"].as_str().unwrap(), e["ruleId"].as_str().unwrap());
        assert!(stdout.contains(&line), "missing {line}");
    }
    // Warnings only: exit 0, or 1 when over --max-warnings.
    let warn_only = fixture_path("menu/category-empty.json");
    assert_eq!(poscheck(&["lint", &warn_only], b"", &[]).status.code(), Some(0));
    assert_eq!(poscheck(&["lint", "--max-warnings", "0", &warn_only], b"", &[]).status.code(), Some(1));
    assert_eq!(poscheck(&["lint", "--max-warnings", "50", &warn_only], b"", &[]).status.code(), Some(0));
    let sarif: serde_json::Value = serde_json::from_slice(&poscheck(&["lint", "--format", "sarif", &example], b"", &[]).stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["ruleId"].is_string() && r["locations"][0]["physicalLocation"]["region"]["startLine"].is_u64()));
    assert!(sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap().len() >= 30);
    let gh = text(&poscheck(&["lint", "--format", "github", &example], b"", &[]).stdout);
    assert!(gh.lines().all(|l| l.starts_with("::error ") || l.starts_with("::warning ") || l.starts_with("::notice ")), "{gh}");
    assert_eq!(poscheck(&["lint", "--format", "xml", &example], b"", &[]).status.code(), Some(2));
    assert_eq!(poscheck(&["lint", "a.json", "b.json"], b"", &[]).status.code(), Some(2), "missing files are a read error");
}

/// Issue 10: clap gives every subcommand its help; several files and glob patterns in one run.
#[test]
fn subcommand_help_several_files_and_globs() {
    for cmd in ["sign", "verify", "lint", "validate", "order", "diff", "rules"] {
        for flag in ["--help", "-h"] {
            let out = poscheck(&[cmd, flag], b"", &[]);
            assert_eq!(out.status.code(), Some(0), "{cmd} {flag}: {}", text(&out.stderr));
            assert!(text(&out.stdout).contains(&format!("Usage: poscheck {cmd}")), "{cmd} {flag}: {}", text(&out.stdout));
        }
    }
    let valid = fixture_path("menu/valid.json");
    let example = fixture_path("menu/example.json");
    let dir = std::path::Path::new(&valid).parent().unwrap().to_string_lossy().into_owned();
    // Two files: one report each, the exit status of the worst.
    let two = poscheck(&["lint", "--format", "json", &valid, &example], b"", &[]);
    assert_eq!(two.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&two.stdout).unwrap();
    assert_eq!(doc.as_array().unwrap().len(), 2);
    assert_eq!(doc[0]["report"]["ok"], true);
    assert_eq!(doc[1]["report"]["ok"], false);
    // A quoted pattern is expanded by poscheck itself, in sorted order.
    let globbed = poscheck(&["lint", "--format", "json", &format!("{dir}/v*.json")], b"", &[]);
    assert_eq!(globbed.status.code(), Some(0), "{}", text(&globbed.stderr));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&globbed.stdout).unwrap()["ok"], true);
    let none = poscheck(&["lint", &format!("{dir}/no-such-*.json")], b"", &[]);
    assert_eq!(none.status.code(), Some(2));
    assert!(text(&none.stderr).contains("no file matches"));
    // SARIF of several files is one run naming each file.
    let sarif = poscheck(&["lint", "--format", "sarif", &valid, &example], b"", &[]);
    let doc: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
    // `--` ends the options: a file named like an option.
    let temp = common::TempDir::new("cli");
    let odd = temp.file("--odd.json", b"{\"categories\": []}");
    let out = poscheck(&["lint", "--", odd.to_str().unwrap()], b"", &[]);
    assert_ne!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn validate_payloads_requests_and_kinds() {
    let ok = poscheck(&["validate", &fixture_path("payload/order-update-event.cancelled.valid.json")], b"", &[]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stdout));
    let json = poscheck(&["validate", "--format", "json", &fixture_path("payload/order-update-event.cancelled.valid.json")], b"", &[]);
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&json.stdout).unwrap()["kind"], "orderUpdateEvent");
    let request = b"POST /api/v1/Orders/ord_7Hq2LmN9pQ4rS8tV/reject HTTP/1.1\r\nX-Service-Api-Key: k\r\nX-Service-Schema-Version: 1.0\r\nContent-Type: application/json\r\nIdempotency-Key: 6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10\r\n\r\n{}";
    let out = poscheck(&["validate", "-"], request, &[]);
    assert_eq!(out.status.code(), Some(1), "reasonCode is required");
    assert!(text(&out.stderr).contains("would answer 422"), "{}", text(&out.stderr));
    // With --format json the predicted answer is on stdout, with its basis and the report.
    let out = poscheck(&["validate", "--format", "json", "-"], request, &[]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["prediction"]["status"], 422, "{doc}");
    assert!(doc["prediction"]["report"]["errorCount"].as_u64().unwrap() >= 1);
    assert_eq!(poscheck(&["validate", "--kind", "nope", "-"], b"{}", &[]).status.code(), Some(2));
}

/// Issue 8: strings from the input never start a new output line or reach the terminal raw.
#[test]
fn text_outputs_escape_control_characters() {
    let evil = "P\n::error file=evil.js,line=1::forged\u{1b}[31m";
    let menu = serde_json::json!({"categories": [{"remoteCode": "C", "name": "C", "position": 0, "products": [
        {"remoteCode": evil, "name": "x", "description": "d", "price": 1, "tax": 0.1, "maxPerOrder": 1,
         "image": "https://img.example/x.png", "modifierGroups": []}]}]});
    let dir = common::TempDir::new("cli");
    let file = dir.file("evil-menu.json", menu.to_string().as_bytes());
    for format in ["text", "github"] {
        let out = poscheck(&["lint", "--format", format, file.to_str().unwrap()], b"", &[]);
        let stdout = text(&out.stdout);
        assert!(stdout.contains("remoteCode"), "{format}: the diagnostic is there: {stdout}");
        assert!(!stdout.lines().any(|l| l.starts_with("::error file=evil.js")), "{format}: forged workflow command:\n{stdout}");
        assert!(!stdout.contains('\u{1b}'), "{format}: raw ESC reaches the terminal");
        assert!(stdout.contains("\\u{1b}"), "{format}: the ESC is shown escaped: {stdout}");
    }
    // A header value cannot hold CR/LF: sign refuses rather than print a forged header line.
    let out = poscheck(&["sign", "--secret-env", "S", "--delivery-id", "a\r\nX-Injected: 1", "-"], b"{}", &[("S", "secret")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("X-Injected"));
    assert!(text(&out.stderr).contains("control characters"));
}
