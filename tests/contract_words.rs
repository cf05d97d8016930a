//! Each contract word is spelled once: in `src/contract.rs`. This test reads every other source
//! file of `src/` and `pkg/src/` as text and fails on a string literal that spells a word of the
//! contract's vocabularies (its words come from `poscheck::contract` itself, so a word added there
//! is checked from then on).
//!
//! Not scanned: comments, `tests.rs` files and `tests/` (tests spell what they check). Not checked:
//! the words that are also member names or labels of another meaning, where a literal is not a
//! copy of the vocabulary: `driver` and `customer` (members of a history row and of an order),
//! `applied` (a member of a result row), `value` (a member of an override's `fields[]`), `failed`
//! (a probe check's verdict) and `unavailable` (the problem kind of a 502/503). The capability
//! fields are member names everywhere and are not checked either.

use poscheck::contract::*;
use std::path::{Path, PathBuf};

const NOT_CHECKED: &[&str] = &["driver", "customer", "applied", "value", "failed", "unavailable"];

fn words() -> Vec<&'static str> {
    let lists: &[&[&str]] = &[
        Status::NAMES,
        WriteStatus::NAMES,
        ActorType::NAMES,
        DriverEvent::NAMES,
        UpdateEvent::NAMES,
        ExpectedNext::NAMES,
        ReasonCode::NAMES,
        FulfillmentType::NAMES,
        PublishedEvent::NAMES,
        &[EVENT_TYPE_ORDER_CREATED],
        TargetEntity::NAMES,
        Scope::NAMES,
        Channel::NAMES,
        Day::NAMES,
        OverrideType::NAMES,
        GroupType::NAMES,
        Origin::NAMES,
        CapabilityEntity::NAMES,
        MenuChangeStatus::NAMES,
        MenuChangeOutcome::NAMES,
        ProblemSuffix::NAMES,
    ];
    let mut all: Vec<&str> = lists.iter().flat_map(|l| l.iter().copied()).filter(|w| !NOT_CHECKED.contains(w)).collect();
    all.sort_unstable();
    all.dedup();
    all
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) && p.file_name().is_some_and(|n| n != "tests.rs") {
            out.push(p);
        }
    }
}

/// The string literals of a source text outside comments, with their line numbers. Handles `//`
/// and `/* */` comments, "…" and '…' strings with escapes, Rust raw strings `r#"…"#` and JS
/// template literals (their text, not their `${}` parts).
fn literals(text: &str, js: bool) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 2;
            }
            b'r' if !js
                && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = j + 1;
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let mut k = start;
                while k < b.len() && !b[k..].starts_with(&close) {
                    k += 1;
                }
                out.push((line, String::from_utf8_lossy(&b[start..k.min(b.len())]).into_owned()));
                line += b[start..k.min(b.len())].iter().filter(|c| **c == b'\n').count();
                i = k + close.len();
            }
            q @ (b'"' | b'`') | q @ b'\'' if q != b'\'' || js => {
                let start_line = line;
                let mut s = Vec::new();
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        line += usize::from(b[i + 1] == b'\n');
                        s.push(b[i + 1]);
                        i += 2;
                        continue;
                    }
                    line += usize::from(b[i] == b'\n');
                    s.push(b[i]);
                    i += 1;
                }
                i += 1;
                out.push((start_line, String::from_utf8_lossy(&s).into_owned()));
            }
            // A Rust char literal or lifetime: skip the quote alone.
            _ => i += 1,
        }
    }
    out
}

fn copies(root: &str, ext: &str, js: bool) -> Vec<String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut list = Vec::new();
    files(&base.join(root), ext, &mut list);
    list.sort();
    let words = words();
    let mut found = Vec::new();
    for f in list {
        let rel = f.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
        if rel.starts_with("src/contract") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (line, lit) in literals(&text, js) {
            // An attribute names flags and serde members (`#[arg(long = "store")]`), not words.
            let attribute = lines.get(line - 1).is_some_and(|l| l.trim_start().starts_with("#["));
            if !attribute && words.binary_search(&lit.as_str()).is_ok() {
                found.push(format!("{rel}:{line}: \"{lit}\""));
            }
        }
    }
    found
}

#[test]
fn the_rust_sources_spell_no_contract_word_outside_contract_rs() {
    let found = copies("src", "rs", false);
    assert!(
        found.is_empty(),
        "{} contract words spelled outside src/contract.rs (use poscheck::contract):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_js_face_spells_no_contract_word() {
    let found = copies("pkg/src", "js", true);
    assert!(found.is_empty(), "{} contract words spelled in pkg/src (ask the module):\n{}", found.len(), found.join("\n"));
}

#[test]
fn the_scanner_finds_what_it_must_and_skips_comments() {
    let src = "// \"HandedOver\" in a comment\nlet a = \"Pending\"; /* \"Ready\" */ let b = r#\"localProduct\"#;\nlet c = 'x';";
    let lits: Vec<String> = literals(src, false).into_iter().map(|(_, s)| s).collect();
    assert_eq!(lits, ["Pending", "localProduct"]);
    let js = "const s = new Set(['HandedOver', `Rejected`]); // 'Cancelled'";
    let lits: Vec<String> = literals(js, true).into_iter().map(|(_, s)| s).collect();
    assert_eq!(lits, ["HandedOver", "Rejected"]);
    assert!(words().contains(&"HandedOver") && !words().contains(&"driver"));
}

/// `Status::MERCHANT_DONE` is what the order engine's table derives: the statuses whose
/// `allowedTransitions` it leaves empty.
#[test]
fn merchant_done_is_what_the_order_table_derives() {
    let derived: Vec<&str> =
        Status::OBSERVABLE.iter().filter(|s| poscheck::order::machine::allowed_transitions(**s).is_empty()).map(|s| s.as_str()).collect();
    let stated: Vec<&str> = Status::MERCHANT_DONE.iter().map(|s| s.as_str()).collect();
    assert_eq!(derived, stated);
}
