//! Embeds tests/fixtures into a table for the test rings that have no file system (wasm in Node
//! and in Chromium): `include!(concat!(env!("OUT_DIR"), "/fixtures.rs"))` gives
//! `FIXTURES: &[(&str, &[u8])]`, keyed by the path below tests/fixtures. The library itself does
//! not use it.
use std::fmt::Write as _;
use std::path::Path;

fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, base, out);
        } else if p.extension().is_some_and(|x| x == "json" || x == "http" || x == "txt") {
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, p.canonicalize().unwrap().to_string_lossy().into_owned()));
        }
    }
}

fn main() {
    let base = Path::new("tests/fixtures");
    println!("cargo:rerun-if-changed=tests/fixtures");
    let mut files = Vec::new();
    walk(base, base, &mut files);
    let mut src = String::from("pub static FIXTURES: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        let _ = writeln!(src, "    ({rel:?}, include_bytes!({abs:?})),");
    }
    src.push_str("];\n");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("fixtures.rs");
    std::fs::write(out, src).unwrap();
}
