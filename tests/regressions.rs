//! Replays every input the fuzzers ever found failing (crash, timeout, out of memory), kept under
//! `tests/fixtures/regressions/<target>/`, through the same entry points as the cargo-fuzz target
//! `<target>` (the harness is `fuzz/src/harness.rs`, shared with `fuzz/`). Stable Rust, no
//! libFuzzer: each input must run without a panic and with an output bounded by the input's size
//! (`harness::max_output`). Time is not measured here (see fuzz/README.md).
//!
//! A folder without a saved input is skipped, whatever its name (git keeps no empty folder, so
//! only an old checkout has one); a saved input in a folder named after no target fails, since it
//! cannot be replayed.

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
        let files = saved_inputs(dir);
        if files.is_empty() {
            continue;
        }
        let Some(&(_, run)) = harness::TARGETS.iter().find(|(t, _)| *t == name) else {
            failures.push(format!("{name}/: {} saved input(s) and no fuzz target of that name to replay them", files.len()));
            continue;
        };
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
    assert!(failures.is_empty(), "{} failure(s), {replayed} saved input(s) replayed:\n{}", failures.len(), failures.join("\n"));
}

/// The files of a regressions folder, sorted (hidden files, such as an editor's, are not inputs).
fn saved_inputs(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    files.sort();
    files
}

/// An empty folder is skipped and a saved input of no target fails: the rule of the replay above,
/// on a copy of the regressions folder with both added.
#[test]
fn an_empty_folder_is_skipped_and_an_input_of_no_target_is_not() {
    let tmp = std::env::temp_dir().join(format!("poscheck-regressions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("poscheck_fuzz")).unwrap();
    std::fs::create_dir_all(tmp.join("nosuchtarget")).unwrap();
    std::fs::write(tmp.join("nosuchtarget/crash-0"), b"{}").unwrap();
    std::fs::create_dir_all(tmp.join("json")).unwrap();
    std::fs::write(tmp.join("json/.keep"), b"").unwrap();
    assert!(saved_inputs(&tmp.join("poscheck_fuzz")).is_empty());
    assert!(saved_inputs(&tmp.join("json")).is_empty(), "a hidden file is not an input");
    assert_eq!(saved_inputs(&tmp.join("nosuchtarget")).len(), 1);
    assert!(!harness::TARGETS.iter().any(|(t, _)| *t == "nosuchtarget"));
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// The targets `fuzz/run.sh` runs (`--list`), the `[[bin]]` sections of `fuzz/Cargo.toml` and the
/// harness's `TARGETS` (which this replay reads) are the same names. `run.sh` once also took the
/// `[lib]` section's name for a target.
#[test]
fn the_runner_fuzzes_exactly_the_targets_of_the_harness() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut harness: Vec<&str> = harness::TARGETS.iter().map(|(t, _)| *t).collect();
    harness.sort_unstable();
    let out = std::process::Command::new("bash").arg(root.join("fuzz/run.sh")).arg("--list").output().expect("bash fuzz/run.sh --list");
    assert!(out.status.success(), "fuzz/run.sh --list: {}", String::from_utf8_lossy(&out.stderr));
    let mut listed: Vec<String> = String::from_utf8(out.stdout).unwrap().split_whitespace().map(String::from).collect();
    listed.sort_unstable();
    assert_eq!(listed, harness, "fuzz/run.sh --list vs harness::TARGETS");
    // The [[bin]] sections, read here without the script.
    let toml = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
    let mut bins: Vec<&str> = toml
        .split("\n[")
        .filter(|section| section.starts_with("[bin]]"))
        .filter_map(|section| section.lines().find_map(|l| l.trim().strip_prefix("name = \"")?.strip_suffix('"')))
        .collect();
    bins.sort_unstable();
    assert_eq!(bins, harness, "the [[bin]] sections of fuzz/Cargo.toml vs harness::TARGETS");
    // An unknown target given by hand is refused before anything is built.
    let out = std::process::Command::new("bash")
        .arg(root.join("fuzz/run.sh"))
        .arg("--list")
        .env("FUZZ_TARGETS", "json poscheck_fuzz")
        .output()
        .expect("bash fuzz/run.sh --list");
    assert!(!out.status.success(), "FUZZ_TARGETS=poscheck_fuzz accepted");
    assert!(String::from_utf8_lossy(&out.stderr).contains("poscheck_fuzz"));
}

/// The json target's oracle counts duplicate keys from the bytes, in every object. The expected
/// keys (sorted; their number is the count) are Python's, computed with Python 3.11.7 on these
/// very texts, by hand:
///
/// ```python
/// found = []
/// def hook(pairs):  # called once per object, an object later replaced included
///     seen = set()
///     for k, v in pairs:
///         if k in seen: found.append(k)
///         seen.add(k)
///     return dict(pairs)
/// json.loads(text, object_pairs_hook=hook); print(len(found), sorted(found))
/// ```
#[test]
fn the_json_oracle_counts_duplicates_as_python_does() {
    let crash = std::fs::read(regressions().join("json/crash-fe634746e2d6f11660357aa1c109f43b95dfc4b6")).unwrap();
    let cases: &[(&[u8], &[&str])] = &[
        // A creation payload whose `fulfillment` appears twice, the first holding `prepareBy` twice:
        // the first `fulfillment` is replaced in a serde_json::Value, so counting there gives 8.
        (&crash[..], &["charges", "createdAt", "currency", "customer", "discounts", "expiresAt", "fulfillment", "payment", "prepareBy"]),
        (br#"{"a":{"b":1,"b":2},"a":{"c":3}}"#, &["a", "b"]),
        (br#"[{"x":1,"x":2,"x":3},{"x":{"y":[{"z":0,"z":0}],"y":null}}]"#, &["x", "x", "y", "z"]),
        // Keys compared decoded: an escape and the character are one key.
        ("{\"a\":1,\"\\u0061\":2,\"\\u00e9\":3,\"é\":4}".as_bytes(), &["a", "é"]),
        (br#"{"k":{"k":{"k":1}}}"#, &[]),
        (br#"{"":0,"":{"":[],"":{}}}"#, &["", ""]),
        (br#"{"a\"b":1,"a\u0022b":2,"A\"b":3}"#, &["a\"b"]),
        ("{\"\\ud83c\\udf36\":1,\"\u{1F336}\":2}".as_bytes(), &["\u{1F336}"]),
        (br#"{"o":{"o":{"d":1,"d":2},"o":{"d":1,"d":2}},"o":{"o":{"d":1,"d":2}}}"#, &["d", "d", "d", "o", "o"]),
        (b"\t[ 1, \"x\", {\"n\": null, \"n\": true}, [[{\"q\": 1e300}]] ] \n", &["n"]),
    ];
    for (text, python) in cases {
        let mut found = harness::duplicate_keys_in(text).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(text)));
        found.sort_unstable();
        assert_eq!(found, *python, "{}", String::from_utf8_lossy(text));
        // poscheck's parser agrees (the replay's check, on these texts too).
        harness::json(text);
    }
    // Not JSON for serde_json: an error, never a count.
    for text in [&b"{\"a\":1,}"[..], b"{\"a\":1} x", b"{\"a\":1e400}", b""] {
        assert!(harness::duplicate_keys_in(text).is_err(), "{}", String::from_utf8_lossy(text));
    }
}

/// The harness itself can fail: a property it checks, broken on purpose, is caught.
#[test]
fn the_harness_reports_a_broken_property() {
    assert!(harness::max_output(0) < harness::max_output(1));
    let r = std::panic::catch_unwind(|| harness::bounded("test", 0, &"x".repeat(harness::max_output(0))));
    assert!(r.is_err(), "an output over the bound passes");
    harness::bounded("test", 0, &"x".repeat(harness::max_output(0) - 2));
}
