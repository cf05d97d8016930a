//! The menu diff over the shared fixtures (`tests/fixtures/diff/cases.json`), its CLI-free faces
//! (text and Markdown rendering), hostile input, and a linear-time check that counts work.

mod diff_cases;

#[path = "../benches/support/menugen.rs"]
mod menugen;
#[path = "../benches/support/storemenu.rs"]
mod storemenu;

use poscheck::menu::diff::{diff, render, Change, DiffOptions};
use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_case_of_the_manifest() {
    assert!(diff_cases::check(fixture) >= 10);
}

#[test]
fn every_fixture_file_is_used_by_the_manifest() {
    let manifest = String::from_utf8(fixture("diff/cases.json")).unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff");
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().into_string().unwrap();
        if name.ends_with(".json") && name != "cases.json" {
            assert!(manifest.contains(&format!("\"diff/{name}\"")), "{name} is not in cases.json");
        }
    }
}
