//! Replays every input the fuzzers ever found failing (crash, timeout, out of memory), kept under
//! `tests/fixtures/regressions/<target>/`, through the same entry points as the cargo-fuzz target
//! `<target>` (the harness is `fuzz/src/harness.rs`, shared with `fuzz/`). Stable Rust, no
//! libFuzzer: each input must run without a panic and with an output bounded by the input's size
//! (`harness::max_output`). Time is not measured here (see fuzz/README.md).

#[path = "../fuzz/src/harness.rs"]
mod harness;

use std::path::PathBuf;

fn regressions() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/regressions")
}

#[test]
fn every_saved_input_replays_without_a_failure() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(regressions()).expect("tests/fixtures/regressions").map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        let name = dir.file_name().unwrap().to_str().unwrap();
        let run = harness::TARGETS
            .iter()
            .find(|(t, _)| *t == name)
            .unwrap_or_else(|| panic!("tests/fixtures/regressions/{name}: no fuzz target of that name"))
            .1;
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            replayed += 1;
            // On a thread with the stack libFuzzer's main thread has (8 MiB), as the fuzzer ran it.
            let outcome = std::thread::Builder::new().stack_size(8 << 20).spawn(move || run(&data)).unwrap().join();
            if let Err(e) = outcome {
                let msg =
                    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                failures.push(format!("{name}/{}: {msg}", file.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(replayed > 0, "no saved input found");
    assert!(failures.is_empty(), "{} of {replayed} saved inputs fail:\n{}", failures.len(), failures.join("\n"));
}

/// The harness itself can fail: a property it checks, broken on purpose, is caught.
#[test]
fn the_harness_reports_a_broken_property() {
    assert!(harness::max_output(0) < harness::max_output(1));
    let r = std::panic::catch_unwind(|| harness::bounded("test", 0, &"x".repeat(harness::max_output(0))));
    assert!(r.is_err(), "an output over the bound passes");
    harness::bounded("test", 0, &"x".repeat(harness::max_output(0) - 2));
}
