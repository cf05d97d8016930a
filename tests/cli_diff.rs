//! `poscheck diff CURRENT NEXT`: formats, the threshold and its exit code, usage errors, and
//! output that attacker-chosen names cannot turn into terminal escapes or workflow commands.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(p: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff").join(p).to_string_lossy().into_owned()
}

fn poscheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_poscheck")).args(args).output().expect("poscheck runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn exit_status_follows_the_threshold() {
    let (cur, one) = (fixture("current.json"), fixture("next-one-of-each.json"));
    // 1 of 5 products (20%): not above the default 20%.
    let o = poscheck(&["diff", &cur, &one]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("deactivation: 1 of 5 active products (20%), threshold 20%: below"));
    for t in ["0.1", "10%", "19.5%"] {
        let o = poscheck(&["diff", "--threshold", t, &cur, &one]);
        assert_eq!(o.status.code(), Some(1), "--threshold {t}");
        assert!(stdout(&o).contains("diff/large-deactivation"));
    }
    let o = poscheck(&["diff", &cur, &fixture("next-replacement.json")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("deactivation: 5 of 5 active products (100%)"));
    // Identical menus: nothing to do, exit 0.
    let o = poscheck(&["diff", &cur, &fixture("next-identical.json")]);
    assert_eq!(o.status.code(), Some(0));
    // A submission the service would refuse (lint errors), or a side that is not a menu: 1.
    assert_eq!(poscheck(&["diff", &cur, &fixture("next-legacy.json")]).status.code(), Some(1));
    assert_eq!(poscheck(&["diff", &fixture("next-identical.json"), &one]).status.code(), Some(1));
}

#[test]
fn json_and_markdown_formats() {
    let o = poscheck(&["diff", "--format", "json", &fixture("current.json"), &fixture("next-one-of-each.json")]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON output");
    assert_eq!(v["summary"]["deactivated"]["products"], 1);
    assert_eq!(v["summary"]["threshold"], 0.2);
    assert!(v["entries"].as_array().unwrap().iter().any(|e| e["remoteCode"] == "BURGER-2" && e["changes"][0]["new"] == 12.5));
    assert!(v["basis"].as_array().unwrap().iter().any(|b| b["topic"] == "threshold" && b["basis"] == "assumed"));
    let o = poscheck(&["diff", "--format", "markdown", &fixture("current.json"), &fixture("next-one-of-each.json")]);
    let m = stdout(&o);
    assert!(m.starts_with("### Menu diff"), "{m}");
    assert!(m.contains("| deactivated | 1 | 1 | 0 | 1 |"), "{m}");
}

#[test]
fn usage_errors_exit_2() {
    let cur = fixture("current.json");
    for args in [
        vec!["diff", cur.as_str()],
        vec!["diff", "--format", "sarif", cur.as_str(), cur.as_str()],
        vec!["diff", "--threshold", "1.5", cur.as_str(), cur.as_str()],
        vec!["diff", "--threshold", "abc", cur.as_str(), cur.as_str()],
        vec!["diff", cur.as_str(), "/nonexistent/next.json"],
    ] {
        let o = poscheck(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn hostile_names_cannot_escape_the_output() {
    let text = std::fs::read_to_string(fixture("next-one-of-each.json"))
        .unwrap()
        .replace("\"Veggie burger\"", r#""x\u001b]0;owned\u0007\r\n::add-mask::secret\u2028::error::y""#)
        .replace("\"BROWNIE\"", r#""BROWNIE\n::warning::z""#);
    let dir = common::TempDir::new("cli-diff");
    let next = dir.file("next.json", text.as_bytes());
    for format in ["text", "markdown"] {
        let o = poscheck(&["diff", "--format", format, &fixture("current.json"), next.to_str().unwrap()]);
        let out = stdout(&o);
        assert!(out.contains("::add-mask::") || out.contains("::add\\-mask::"), "{format}: the name is shown, escaped");
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{format}: a raw control character in\n{out}");
        assert!(!out.contains('\u{2028}'), "{format}");
        assert!(out.lines().all(|l| !l.trim_start().starts_with("::")), "{format}: a line starts a workflow command:\n{out}");
    }
}
