//! The house, layer by layer (design.md): each layer imports only its own and the layers below it,
//! and no module imports itself back through another. Read from the sources as text: every `.rs`
//! file under `src/` (the imports of `pkg/src/**/*.js` and `www/**/*.js` for the JS side).
//!
//! What counts as an import: a `use crate::…` / `use super::…` path (use trees expanded), and a
//! `crate::…::` or `super::…::` path anywhere in the code, including a path written as a string
//! (`serialize_with = "crate::json::js_safe::u64"`). Comments are not code. A path names the file
//! of the longest module it starts with (`crate::json::js_safe::u64` → src/json/js_safe.rs). A
//! module's own children are its structure, not its imports: `mod x;`, `pub use x::Y`, `self::…`
//! and any path from a file to a file below it are not counted; a child's `super::…` is.
//!
//! Checked: (a) no cycle between top-level modules (src/foo.rs and src/foo/** are `foo`), (b) no
//! cycle between files (a module at file granularity: src/order/lint.rs ↔ src/order/simulate.rs
//! is one), (c) no import of a higher layer ([`LAYERS`]), (d) every top-level module is in a
//! layer, and (e) no import cycle among the JS sources. A failure lists each cycle with the file
//! and line of every import on it.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The layers, lowest first (design.md, "The house, layer by layer"): a module may import from
/// its own layer or a lower one. A module listed here that does not exist yet is skipped; a
/// module of src/ listed nowhere fails the test. `main` is src/main.rs, `lib` src/lib.rs.
const LAYERS: &[(&str, &[&str])] = &[
    ("foundation", &["json", "basis", "diagnostic", "check", "time", "http", "format"]),
    ("contract", &["contract"]),
    ("checkers", &["signature", "shape", "order", "menu", "payload", "receiver", "schema", "rules"]),
    ("model", &["service"]),
    ("probe", &["probe"]),
    ("faces", &["wasm", "native", "cli", "main", "lib"]),
];

/// The JS sources checked for import cycles, relative to the repository.
const JS_ROOTS: &[&str] = &["pkg/src", "www"];
/// Directories below those that are built or installed, not written here (see .gitignore).
const JS_SKIP: &[&str] = &["node_modules", "pkg/dist", "pkg/schemas", "www/pkg", "www/vendor"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ---- the tests -----------------------------------------------------------------------------------

#[test]
fn rust_modules_keep_to_their_layers_without_cycles() {
    let files = rust_files(&root().join("src"));
    assert!(files.len() > 20, "src/ holds {} .rs files: is this the repository?", files.len());
    let graph = RustGraph::read(&files);
    let problems = graph.problems();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn js_sources_have_no_import_cycles() {
    let root = root();
    let mut files = Vec::new();
    for dir in JS_ROOTS {
        js_files(&root, &root.join(dir), &mut files);
    }
    assert!(files.iter().any(|f| f.ends_with("pkg/src/api.js")), "no pkg/src/api.js among {files:?}");
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"), std::fs::read_to_string(f).unwrap()))
        .collect();
    let problems = js_cycles(&sources);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The cycle finder on a graph made for it: a → b → c → a and c → d, d → e → d, f alone.
#[test]
fn the_cycle_finder_finds_every_cycle_and_nothing_else() {
    let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)];
    let mut graph = vec![BTreeSet::new(); 6];
    for (a, b) in edges {
        graph[a].insert(b);
    }
    let mut sccs = cycles(&graph);
    sccs.sort();
    assert_eq!(sccs, vec![vec![0, 1, 2], vec![3, 4]]);
    assert_eq!(cycles_in(&graph, &[0, 1, 2]), vec![vec![0, 1, 2, 0]]);
    assert_eq!(cycles_in(&graph, &[3, 4]), vec![vec![3, 4, 3]]);
    // Two cycles through one node: each is listed.
    graph[1].insert(0);
    assert_eq!(cycles_in(&graph, &[0, 1, 2]), vec![vec![0, 1, 0], vec![0, 1, 2, 0]]);
    assert_eq!(shortest_cycle(&graph, &[0, 1, 2], 2), vec![2, 0, 1, 2]);
    graph[1].remove(&0);
    // Without the edge back, no cycle at all.
    graph[2].remove(&0);
    graph[4].remove(&3);
    assert!(cycles(&graph).is_empty());
}

/// The whole check on made-up sources: a cycle between two modules, one between two files of one
/// module, and a checker importing the model are each reported with their file and line; a
/// child's `super::` and a parent's `pub use` of its child are not a cycle.
#[test]
fn made_up_sources_fail_with_each_cycle_and_layer_violation() {
    let src = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let files = vec![
        src("src/lib.rs", "pub mod json;\npub mod diagnostic;\npub mod order;\npub mod service;\n"),
        src("src/json.rs", "use crate::diagnostic::Report; // json → diagnostic\n"),
        src("src/diagnostic.rs", "use crate::{json::{self, Span}, time};\n/// crate::service::X in a comment is no import\n"),
        src("src/order/mod.rs", "mod lint;\nmod simulate;\npub use lint::lint;\nfn f() { let _ = crate::json::parse; }\n"),
        src("src/order/lint.rs", "use super::simulate::step;\nuse super::*;\n"),
        src("src/order/simulate.rs", "pub fn step() { super::lint::rule(); }\n#[serde(with = \"crate::service::ids\")]\nstruct S;\n"),
        src("src/service/mod.rs", "use crate::order::Order;\nmod tests { use super::*; }\n"),
        src("src/extra.rs", "pub fn f() {}\n"),
    ];
    let graph = RustGraph::read(&files);
    let problems = graph.problems().join("\n");
    for expected in [
        "cycle between top-level modules: diagnostic → json → diagnostic",
        "  json → diagnostic: src/json.rs:1 crate::diagnostic::Report",
        "  diagnostic → json: src/diagnostic.rs:1 crate::json::Span",
        "cycle between files: order/lint → order/simulate → order/lint",
        "  order/lint → order/simulate: src/order/lint.rs:1 super::simulate::step",
        "  order/simulate → order/lint: src/order/simulate.rs:1 super::lint::rule",
        "cycle between top-level modules: order → service → order",
        "layer: src/order/simulate.rs:2 crate::service::ids: order (checkers) imports service (model), a higher layer",
        // `time` is no module here: the path names the crate root's items, the faces' (src/lib.rs).
        "layer: src/diagnostic.rs:1 crate::time: diagnostic (foundation) imports lib (faces), a higher layer",
        "layer: module `extra` (extra) is in no layer of LAYERS",
    ] {
        assert!(problems.contains(expected), "missing {expected:?} in:\n{problems}");
    }
    assert!(!problems.contains("comment"), "{problems}");
    assert!(!problems.contains("order → order/lint") && !problems.contains("service/mod.rs:2"), "{problems}");
}

#[test]
fn use_trees_expand_and_relative_paths_resolve() {
    let (code, strings) = blank_rust("use crate::{a::{b, c as d}, e::*};\nlet s = \"use crate::x::y;\"; // crate::z::w\nlet c = '{'; 'a: loop {}\n#[serde(with = \"crate::f::g\")]");
    assert!(!code.contains("crate::x") && !code.contains("crate::z") && !code.contains("'{'"), "{code}");
    assert_eq!(strings, vec![(4, "crate::f::g".to_owned())]);
    let found: Vec<(usize, String)> = paths_in(&code, &strings, false).into_iter().map(|p| (p.line, p.segments.join("::"))).collect();
    assert_eq!(found, vec![(1, "crate::a::b".into()), (1, "crate::a::c".into()), (1, "crate::e::*".into()), (4, "crate::f::g".into())]);
    let modules: BTreeSet<Vec<String>> = [vec![], vec!["a".into()], vec!["a".into(), "b".into()]].into();
    let at = |path: &[&str], current: &[&str]| {
        resolve(
            &path.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            &current.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            &modules,
        )
    };
    assert_eq!(at(&["crate", "a", "b", "Item"], &["a"]), Some(vec!["a".to_owned(), "b".to_owned()]));
    assert_eq!(at(&["super", "Item"], &["a", "b"]), Some(vec!["a".to_owned()]));
    assert_eq!(at(&["super", "super", "x"], &["a", "b"]), Some(vec![]));
    assert_eq!(at(&["self", "b"], &["a"]), None);
}

// ---- Rust: files, paths, modules ------------------------------------------------------------------

fn rust_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root()).unwrap().to_path_buf();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file of src/ (`src/order/lint.rs` → `["order", "lint"]`, `src/lib.rs` →
/// `[]`); `None` for src/main.rs, the root of the binary crate.
fn module_of(file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix("src").unwrap_or(file);
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop()?;
    match last.as_str() {
        "lib.rs" if parts.is_empty() => Some(parts),
        "main.rs" if parts.is_empty() => None,
        "mod.rs" => Some(parts),
        name => {
            parts.push(name.trim_end_matches(".rs").to_owned());
            Some(parts)
        }
    }
}

/// A file's name in the reports: its module path (`order/lint`), `lib` or `main`.
fn display(module: Option<&[String]>) -> String {
    match module {
        None => "main".into(),
        Some([]) => "lib".into(),
        Some(m) => m.join("/"),
    }
}

/// The code of a Rust file with the comments and the contents of string and character literals
/// blanked (line breaks kept, so lines stay where they were), and the string literals that are
/// paths (`"crate::json::js_safe::u64"`), with their lines.
fn blank_rust(text: &str) -> (String, Vec<(usize, String)>) {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut strings = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    // Blanks c[from..to] into `out` (newlines kept), counting lines.
    let blank = |from: usize, to: usize, out: &mut String, line: &mut usize| {
        for &ch in &c[from..to.min(c.len())] {
            if ch == '\n' {
                *line += 1;
                out.push('\n');
            } else {
                out.push(' ');
            }
        }
    };
    while i < c.len() {
        let at = |k: usize| c.get(i + k).copied().unwrap_or('\0');
        let prev_ident = i > 0 && ident(c[i - 1]);
        if at(0) == '/' && at(1) == '/' {
            let end = c[i..].iter().position(|&ch| ch == '\n').map_or(c.len(), |p| i + p);
            blank(i, end, &mut out, &mut line);
            i = end;
        } else if at(0) == '/' && at(1) == '*' {
            let (mut depth, mut j) = (0, i);
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(i, j, &mut out, &mut line);
            i = j;
        } else if !prev_ident && (at(0) == 'r' || (at(0) == 'b' && at(1) == 'r')) && {
            let k = if at(0) == 'b' { 2 } else { 1 };
            let hashes = c[i + k..].iter().take_while(|&&ch| ch == '#').count();
            c.get(i + k + hashes) == Some(&'"')
        } {
            // A raw string: r"…", r#"…"#, br"…".
            let k = if at(0) == 'b' { 2 } else { 1 };
            let hashes = c[i + k..].iter().take_while(|&&ch| ch == '#').count();
            let open = i + k + hashes + 1;
            let mut j = open;
            while j < c.len() && !(c[j] == '"' && c[j + 1..].iter().take(hashes).filter(|&&ch| ch == '#').count() == hashes) {
                j += 1;
            }
            out.push('"');
            blank(open, j, &mut out, &mut line);
            out.push('"');
            i = (j + 1 + hashes).min(c.len());
        } else if at(0) == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let content: String = c[i + 1..j.min(c.len())].iter().collect();
            if ["crate::", "super::", "poscheck::"].iter().any(|p| content.starts_with(p))
                && content.chars().all(|ch| ident(ch) || ch == ':')
            {
                strings.push((line, content));
            }
            out.push('"');
            blank(i + 1, j, &mut out, &mut line);
            out.push('"');
            i = (j + 1).min(c.len());
        } else if at(0) == '\'' && (at(1) == '\\' || (at(1) != '\'' && at(2) == '\'')) {
            // A character literal ('x', '\n', '\u{1F336}'); not a lifetime or a label ('a).
            let mut j = i + 1;
            if c[j] == '\\' {
                j += 2;
            }
            while j < c.len() && c[j] != '\'' {
                j += 1;
            }
            out.push('\'');
            blank(i + 1, j, &mut out, &mut line);
            out.push('\'');
            i = (j + 1).min(c.len());
        } else {
            if c[i] == '\n' {
                line += 1;
            }
            out.push(c[i]);
            i += 1;
        }
    }
    (out, strings)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Path, // `::`
    Punct(char),
}

/// The tokens of blanked code, each with its line (literals other than paths are not needed).
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' || (ch == '$' && c.get(i + 1).is_some_and(|n| n.is_alphabetic())) {
            let start = if ch == '$' { i + 1 } else { i };
            let mut j = start;
            while j < c.len() && (c[j].is_alphanumeric() || c[j] == '_') {
                j += 1;
            }
            out.push((Token::Ident(c[start..j].iter().collect()), line));
            i = j;
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Token::Path, line));
            i += 2;
        } else {
            out.push((Token::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// A path the code names, from its root (`crate`, `super`, `self`, `poscheck`), with the line of
/// its last segment.
#[derive(Debug, Clone)]
struct Named {
    segments: Vec<String>,
    line: usize,
    /// The inline modules (`mod tests { … }`) it sits in, within its file.
    inline: Vec<String>,
}

const ROOTS: &[&str] = &["crate", "super", "self"];

/// Every path of the blanked `code` (and of its path strings) rooted at `crate`, `super` or `self`
/// (`poscheck` too for src/main.rs, where `crate` is the binary), use trees expanded.
fn paths_in(code: &str, strings: &[(usize, String)], binary: bool) -> Vec<Named> {
    let toks = tokens(code);
    let is_root = |t: &Token| matches!(t, Token::Ident(s) if ROOTS.contains(&s.as_str()) || (binary && s == "poscheck"));
    let mut out = Vec::new();
    // The inline modules open around the current token: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.checked_sub(1).unwrap_or_else(|| panic!("a `}}` closes nothing at line {}", toks[i].1));
            }
            Token::Ident(k) if k == "mod" => {
                if let (Some((Token::Ident(name), _)), Some((Token::Punct('{'), _))) = (toks.get(i + 1), toks.get(i + 2)) {
                    inline.push((name.clone(), depth + 1));
                }
            }
            _ => {}
        }
        let names: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
        // A use declaration (not the `use<…>` of a return type's captures).
        if toks[i].0 == Token::Ident("use".into()) && toks.get(i + 1).is_some_and(|t| t.0 != Token::Punct('<')) {
            let end = toks[i..].iter().position(|(t, _)| *t == Token::Punct(';')).map_or(toks.len(), |p| i + p);
            let mut leaves = Vec::new();
            use_tree(&toks[i + 1..end], &[], &mut leaves);
            for (segments, line) in leaves {
                if segments.first().is_some_and(|s| ROOTS.contains(&s.as_str()) || (binary && s == "poscheck")) {
                    out.push(Named { segments, line, inline: names.clone() });
                }
            }
            i = end + 1;
            continue;
        }
        let after_path = i > 0 && toks[i - 1].0 == Token::Path;
        if is_root(&toks[i].0) && !after_path && toks.get(i + 1).is_some_and(|(t, _)| *t == Token::Path) {
            let mut segments = Vec::new();
            let mut j = i;
            let mut line = toks[i].1;
            while let Some((Token::Ident(s), l)) = toks.get(j) {
                segments.push(s.clone());
                line = *l;
                if toks.get(j + 1).is_some_and(|(t, _)| *t == Token::Path) {
                    j += 2;
                } else {
                    j += 1;
                    break;
                }
            }
            if segments.len() > 1 {
                out.push(Named { segments, line, inline: names.clone() });
            }
            i = j;
            continue;
        }
        i += 1;
    }
    for (line, s) in strings {
        if binary || !s.starts_with("poscheck::") {
            out.push(Named { segments: s.split("::").map(str::to_owned).collect(), line: *line, inline: Vec::new() });
        }
    }
    out
}

/// Expands a use tree (the tokens after `use`, before `;`) into its leaf paths, `prefix` first.
fn use_tree(toks: &[(Token, usize)], prefix: &[String], out: &mut Vec<(Vec<String>, usize)>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    let mut line = toks.first().map_or(0, |t| t.1);
    while i < toks.len() {
        match &toks[i].0 {
            Token::Ident(s) if s == "as" => {
                i += 2; // the rename
                continue;
            }
            Token::Ident(s) => {
                path.push(s.clone());
                line = toks[i].1;
            }
            Token::Punct('*') => {
                path.push("*".into());
                line = toks[i].1;
            }
            Token::Punct('{') => {
                // The group's items, split at its top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                let mut j = i;
                while j < toks.len() {
                    match toks[j].0 {
                        Token::Punct('{') => depth += 1,
                        Token::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                use_tree(&toks[start..j], &path, out);
                                break;
                            }
                        }
                        Token::Punct(',') if depth == 1 => {
                            use_tree(&toks[start..j], &path, out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                return;
            }
            Token::Path | Token::Punct(_) => {}
        }
        i += 1;
    }
    if path.last().is_some_and(|s| s == "self") {
        // `self` in a group names the group's own path (`use crate::json::{self, Span}`).
        path.pop();
        out.push((path, line));
    } else if path.len() > prefix.len() {
        out.push((path, line));
    }
}

/// The module (of `modules`) a path names from the module `current`: the longest module its
/// segments start with. `None` for a `self::` path (the module's own items or children) and for a
/// path past the crate root.
fn resolve(segments: &[String], current: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut base: Vec<String> = match segments.first()?.as_str() {
        "crate" | "poscheck" => Vec::new(),
        "super" => current.to_vec(),
        _ => return None,
    };
    let mut rest = &segments[1..];
    if segments[0] == "super" {
        base.pop()?;
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
    }
    let mut best = modules.contains(&base).then(|| base.clone());
    for s in rest {
        base.push(s.clone());
        if modules.contains(&base) {
            best = Some(base.clone());
        }
    }
    best
}

/// One import: from file `from` to file `to`, where and what.
#[derive(Debug, Clone)]
struct Import {
    from: usize,
    to: usize,
    file: String,
    line: usize,
    path: String,
}

struct RustGraph {
    /// Each file's module path (`None`: src/main.rs).
    modules: Vec<Option<Vec<String>>>,
    imports: Vec<Import>,
}

impl RustGraph {
    fn read(files: &[(PathBuf, String)]) -> Self {
        let modules: Vec<Option<Vec<String>>> = files.iter().map(|(p, _)| module_of(p)).collect();
        let known: BTreeSet<Vec<String>> = modules.iter().flatten().cloned().collect();
        let file_of: BTreeMap<&Vec<String>, usize> = modules.iter().enumerate().filter_map(|(i, m)| Some((m.as_ref()?, i))).collect();
        let mut imports = Vec::new();
        for (from, (path, text)) in files.iter().enumerate() {
            let binary = modules[from].is_none();
            let (code, strings) = blank_rust(text);
            // Braces that do not balance once comments and literals are blanked: a literal misread.
            let depth = code.chars().fold(0i64, |d, ch| d + i64::from(ch == '{') - i64::from(ch == '}'));
            assert_eq!(depth, 0, "{}: the braces do not balance once comments and literals are blanked", path.display());
            for named in paths_in(&code, &strings, binary) {
                if binary && named.segments[0] != "poscheck" {
                    continue; // the binary's own crate
                }
                let mut current = modules[from].clone().unwrap_or_default();
                current.extend(named.inline.iter().cloned());
                let Some(target) = resolve(&named.segments, &current, &known) else { continue };
                let to = file_of[&target];
                // A file's own items, and its children: its structure, not its imports.
                let own = modules[from].as_ref().is_some_and(|m| target.starts_with(m));
                if to == from || own {
                    continue;
                }
                let file = path.to_string_lossy().replace('\\', "/");
                imports.push(Import { from, to, file, line: named.line, path: named.segments.join("::") });
            }
        }
        RustGraph { modules, imports }
    }

    /// The top-level module of file `i`: `foo` for src/foo.rs and src/foo/**, `lib`, `main`.
    fn top(&self, i: usize) -> String {
        match &self.modules[i] {
            None => "main".into(),
            Some(m) if m.is_empty() => "lib".into(),
            Some(m) => m[0].clone(),
        }
    }

    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let n = self.modules.len();
        let name = |i: usize| display(self.modules[i].as_deref());

        // (a) cycles between top-level modules.
        let tops: Vec<String> = {
            let set: BTreeSet<String> = (0..n).map(|i| self.top(i)).collect();
            set.into_iter().collect()
        };
        let top_index = |i: usize| tops.binary_search(&self.top(i)).unwrap();
        let mut top_graph = vec![BTreeSet::new(); tops.len()];
        for imp in &self.imports {
            let (a, b) = (top_index(imp.from), top_index(imp.to));
            if a != b {
                top_graph[a].insert(b);
            }
        }
        for cycle in cycles(&top_graph).iter().flat_map(|scc| cycles_in(&top_graph, scc)) {
            let names: Vec<&str> = cycle.iter().map(|&t| tops[t].as_str()).collect();
            let mut text = format!("cycle between top-level modules: {}", names.join(" → "));
            for pair in cycle.windows(2) {
                for imp in self.imports.iter().filter(|imp| top_index(imp.from) == pair[0] && top_index(imp.to) == pair[1]) {
                    let _ = write!(text, "\n  {} → {}: {}:{} {}", tops[pair[0]], tops[pair[1]], imp.file, imp.line, imp.path);
                }
            }
            problems.push(text);
        }

        // (b) cycles between files.
        let mut file_graph = vec![BTreeSet::new(); n];
        for imp in &self.imports {
            file_graph[imp.from].insert(imp.to);
        }
        for cycle in cycles(&file_graph).iter().flat_map(|scc| cycles_in(&file_graph, scc)) {
            let names: Vec<String> = cycle.iter().map(|&f| name(f)).collect();
            let mut text = format!("cycle between files: {}", names.join(" → "));
            for pair in cycle.windows(2) {
                for imp in self.imports.iter().filter(|imp| imp.from == pair[0] && imp.to == pair[1]) {
                    let _ = write!(text, "\n  {} → {}: {}:{} {}", name(pair[0]), name(pair[1]), imp.file, imp.line, imp.path);
                }
            }
            problems.push(text);
        }

        // (c) imports of a higher layer, (d) modules in no layer.
        let layer_of = |top: &str| LAYERS.iter().position(|(_, modules)| modules.contains(&top));
        for top in &tops {
            if layer_of(top).is_none() {
                let file = (0..n).find(|&i| self.top(i) == *top).map(name).unwrap_or_default();
                problems.push(format!(
                    "layer: module `{top}` ({file}) is in no layer of LAYERS (tests/architecture.rs): add it where it belongs"
                ));
            }
        }
        for imp in &self.imports {
            let (from, to) = (self.top(imp.from), self.top(imp.to));
            // A module in no layer is reported above, once.
            let (Some(a), Some(b)) = (layer_of(&from), layer_of(&to)) else { continue };
            if b > a {
                problems.push(format!(
                    "layer: {}:{} {}: {from} ({}) imports {to} ({}), a higher layer",
                    imp.file, imp.line, imp.path, LAYERS[a].0, LAYERS[b].0
                ));
            }
        }
        problems
    }
}

// ---- cycles ---------------------------------------------------------------------------------------

/// The strongly connected components of `graph` (node → the nodes it imports) that hold a cycle:
/// more than one node (a node importing itself is not counted). Each sorted; Tarjan's algorithm.
fn cycles(graph: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'g> {
        graph: &'g [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.graph[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let n = graph.len();
    let mut s =
        State { graph, index: vec![None; n], low: vec![0; n], on_stack: vec![false; n], stack: Vec::new(), next: 0, out: Vec::new() };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// The cycles of a component [`cycles`] found, one shortest cycle through each of its nodes,
/// each as the nodes on it from its smallest, which is also last; duplicates dropped. Together
/// they cover every node of the component (a cycle of two modules among four is not hidden by
/// another).
fn cycles_in(graph: &[BTreeSet<usize>], scc: &[usize]) -> Vec<Vec<usize>> {
    let mut out = BTreeSet::new();
    for &v in scc {
        let mut cycle = shortest_cycle(graph, scc, v);
        cycle.pop();
        let min = cycle.iter().enumerate().min_by_key(|(_, &n)| n).map(|(i, _)| i).unwrap();
        cycle.rotate_left(min);
        cycle.push(cycle[0]);
        out.insert(cycle);
    }
    out.into_iter().collect()
}

/// A shortest cycle through `start` within `scc` (a component [`cycles`] found), as the nodes on
/// it, `start` first and last.
fn shortest_cycle(graph: &[BTreeSet<usize>], scc: &[usize], start: usize) -> Vec<usize> {
    let mut from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &graph[v] {
            if !scc.contains(&w) {
                continue;
            }
            if w == start {
                // v, the node before it, …, back to start; then turned around, start again at the end.
                let mut path = vec![v];
                while *path.last().unwrap() != start {
                    path.push(from[path.last().unwrap()]);
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = from.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("a strongly connected component holds a cycle through each of its nodes")
}

// ---- JS -------------------------------------------------------------------------------------------

fn js_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let rel = dir.strip_prefix(root).unwrap_or(dir).to_string_lossy().replace('\\', "/");
    if JS_SKIP.iter().any(|s| rel == *s || dir.file_name().is_some_and(|n| n == *s)) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            js_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "js" || e == "mjs" || e == "cjs") {
            out.push(path);
        }
    }
}

/// The relative specifiers a JS source imports (`import … from './x.js'`, `export … from`,
/// `import('./x.js')`, `import './x.js'`, `require('./x')`), with their lines. Comment lines
/// (starting with `//`, `/*` or `*`) and trailing `// …` comments are skipped.
fn js_specifiers(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') {
            continue;
        }
        let line = strip_trailing_comment(line);
        let b = line.as_bytes();
        for keyword in ["from", "import", "require"] {
            let mut at = 0;
            while let Some(p) = line[at..].find(keyword) {
                let start = at + p;
                at = start + keyword.len();
                let word = |i: usize| b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$' || *c == b'.');
                if (start > 0 && word(start - 1)) || word(at) {
                    continue;
                }
                let mut i = at;
                while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
                    i += 1;
                }
                if keyword != "from" && b.get(i) == Some(&b'(') {
                    i += 1;
                    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
                        i += 1;
                    }
                } else if keyword == "require" {
                    continue;
                }
                let Some(&quote) = b.get(i).filter(|c| matches!(c, b'\'' | b'"' | b'`')) else { continue };
                let Some(len) = line[i + 1..].find(quote as char) else { continue };
                let spec = &line[i + 1..i + 1 + len];
                if spec.starts_with("./") || spec.starts_with("../") {
                    out.push((n + 1, spec.to_owned()));
                }
            }
        }
    }
    out
}

/// `line` without a trailing `// …` comment: the first `//` after a space, outside quotes.
fn strip_trailing_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let mut quote = None;
    let mut i = 0;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, c @ (b'\'' | b'"' | b'`')) => quote = Some(c),
            (None, b'/') if b.get(i + 1) == Some(&b'/') && (i == 0 || b[i - 1].is_ascii_whitespace()) => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// `spec` imported from the file `from` (paths relative to the repository, `/`-separated), joined
/// and normalized; the candidates a resolver would try (as is, `.js`, `/index.js`).
fn js_targets(from: &str, spec: &str) -> Vec<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for seg in spec.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    vec![joined.clone(), format!("{joined}.js"), format!("{joined}/index.js")]
}

/// The import cycles among `sources` (path relative to the repository, text), each with the line
/// of every import on it.
fn js_cycles(sources: &[(String, String)]) -> Vec<String> {
    let index: BTreeMap<&str, usize> = sources.iter().enumerate().map(|(i, (p, _))| (p.as_str(), i)).collect();
    let mut graph = vec![BTreeSet::new(); sources.len()];
    let mut imports: Vec<(usize, usize, usize, String)> = Vec::new();
    for (from, (path, text)) in sources.iter().enumerate() {
        for (line, spec) in js_specifiers(text) {
            if let Some(&to) = js_targets(path, &spec).iter().find_map(|t| index.get(t.as_str())) {
                if to != from {
                    graph[from].insert(to);
                    imports.push((from, to, line, spec));
                }
            }
        }
    }
    let mut problems = Vec::new();
    for cycle in cycles(&graph).iter().flat_map(|scc| cycles_in(&graph, scc)) {
        let names: Vec<&str> = cycle.iter().map(|&f| sources[f].0.as_str()).collect();
        let mut text = format!("JS import cycle: {}", names.join(" → "));
        for pair in cycle.windows(2) {
            for (_, _, line, spec) in imports.iter().filter(|(a, b, _, _)| *a == pair[0] && *b == pair[1]) {
                let _ = write!(text, "\n  {}:{} imports '{spec}'", sources[pair[0]].0, line);
            }
        }
        problems.push(text);
    }
    problems
}

#[test]
fn the_js_check_finds_a_cycle_in_made_up_sources() {
    let sources = vec![
        ("pkg/src/a.js".to_owned(), "import { b } from './b.js';\n// import { c } from './c.js';\n".to_owned()),
        ("pkg/src/b.js".to_owned(), "export { x } from './sub/index.js';\n".to_owned()),
        ("pkg/src/sub/index.js".to_owned(), "const a = require('../a');\nconst lazy = () => import('./c.js');\n".to_owned()),
        ("pkg/src/sub/c.js".to_owned(), "export const c = 1; // from './index.js' is a comment\n".to_owned()),
    ];
    let problems = js_cycles(&sources).join("\n");
    assert!(problems.contains("JS import cycle: pkg/src/a.js → pkg/src/b.js → pkg/src/sub/index.js → pkg/src/a.js"), "{problems}");
    assert!(problems.contains("pkg/src/sub/index.js:1 imports '../a'"), "{problems}");
    assert!(!problems.contains("c.js →"), "{problems}");
}
