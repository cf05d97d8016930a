//! The one report shape every checker returns (design.md, "One diagnostic shape").
//!
//! A checker walks a [`json::Value`] tree with a [`Path`] (a linked list on
//! the stack: nothing is allocated until a diagnostic is pushed), pushes diagnostics into a
//! [`Collector`] with byte spans, and [`Collector::finish`] turns spans into 1-based lines and
//! UTF-16 columns in one pass over the input.

use crate::basis::Basis;
use crate::json::{self, ParseError, Span};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The service would refuse it (400/401/404/409/422), or a receiver must reject it.
    Error,
    /// Accepted, but almost certainly a mistake, or normalized by the service.
    Warning,
    /// Worth knowing.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// A rule: stable kebab-case id, default severity, one-line documentation, and what it rests on
/// (its basis and source, written where the rule is). Checkers keep their rules as `static` data;
/// the registry ([`crate::rules`]) lists them all for the CLI, the page and the schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Rule {
    /// Stable kebab-case id, e.g. `remote-code/unique-product`.
    pub id: &'static str,
    /// Severity of its diagnostics unless a context overrides it.
    pub severity: Severity,
    /// One-line documentation: what the contract requires.
    pub doc: &'static str,
    /// What the rule rests on: stated, derived or assumed (an error never rests on an assumption).
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub basis: Basis,
    /// The spec section or the rules behind it, or what the spec does not show.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub source: &'static str,
}

/// Rules about the JSON text itself, shared by every checker that reads JSON.
pub mod json_rules {
    use super::{Basis, Rule, Severity};
    #[doc = "The input must be valid JSON (RFC 8259)."]
    pub static SYNTAX: Rule = Rule {
        id: "json/syntax",
        basis: Basis::Derived,
        source: "Errors: 422 invalid body; a body that is not JSON (RFC 8259) is invalid",
        severity: Severity::Error,
        doc: "The input must be valid JSON (RFC 8259).",
    };
    #[doc = "JSON text must be UTF-8."]
    pub static INVALID_UTF8: Rule = Rule {
        id: "json/invalid-utf8",
        basis: Basis::Derived,
        source: "Errors: 422 invalid body; JSON text is UTF-8 (RFC 8259)",
        severity: Severity::Error,
        doc: "JSON text must be UTF-8.",
    };
    #[doc = "Nesting is bounded (limit option `maxDepth`)."]
    pub static TOO_DEEP: Rule = Rule {
        id: "json/too-deep",
        basis: Basis::Assumed,
        source: "a bound of this toolkit on its own input; the service's limit is not shown",
        severity: Severity::Error,
        doc: "Nesting is bounded (limit option `maxDepth`).",
    };
    #[doc = "Input size is bounded (limit option `maxBytes`)."]
    pub static TOO_LARGE: Rule = Rule {
        id: "json/too-large",
        basis: Basis::Assumed,
        source: "a bound of this toolkit on its own input; the service's limit is not shown",
        severity: Severity::Error,
        doc: "Input size is bounded (limit option `maxBytes`).",
    };
    #[doc = "A key appears twice in one object; which one the service keeps is not shown (JSON.parse keeps the last)."]
    pub static DUPLICATE_KEY: Rule = Rule {
        id: "json/duplicate-key",
        basis: Basis::Assumed,
        source: "which duplicate the service keeps is not shown",
        severity: Severity::Warning,
        doc: "A key appears twice in one object; which one the service keeps is not shown (JSON.parse keeps the last).",
    };
    #[doc = "A report holds at most `maxDiagnostics` diagnostics (10000 by default) and 4 MiB of text; the rest is counted, not listed."]
    pub static TOO_MANY_DIAGNOSTICS: Rule = Rule {
        id: "report/too-many-diagnostics",
        basis: Basis::Assumed,
        source: "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service",
        severity: Severity::Error,
        doc: "A report holds at most `maxDiagnostics` diagnostics (10000 by default) and 4 MiB of text; the rest is counted, not listed.",
    };
    /// Every JSON rule.
    pub static ALL: &[&Rule] = &[&SYNTAX, &INVALID_UTF8, &TOO_DEEP, &TOO_LARGE, &DUPLICATE_KEY];
}

/// A location the diagnostic refers back to (e.g. the first occurrence of a duplicate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Related {
    /// Its path, in the service's field-path style.
    pub path: String,
    /// Its RFC 6901 JSON pointer.
    pub pointer: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column in UTF-16 code units.
    pub column: u32,
    /// Byte offsets in the input.
    pub span: Span,
    /// What this location is (e.g. `first used here`).
    pub message: String,
}

/// One finding, with every position a reader or a tool needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// The id of the rule that fired.
    pub rule_id: &'static str,
    /// Error, warning or info.
    pub severity: Severity,
    /// What is wrong, quoting at most a bounded prefix of any value.
    pub message: String,
    /// The service's field-path style, as in a 422 `meta.errors`: `categories[1].products[0].remoteCode`.
    pub path: String,
    /// RFC 6901 JSON pointer: `/categories/1/products/0/remoteCode`.
    pub pointer: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column in UTF-16 code units (as JS strings and editors count).
    pub column: u32,
    /// Byte offsets in the input.
    pub span: Span,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<Related>>", optional))]
    /// Other locations that explain this one (e.g. the first occurrence).
    pub related: Vec<Related>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// How to fix it.
    pub help: Option<String>,
}

/// The report every checker returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// What was checked, when a checker detects it (e.g. `orderUpdateEvent`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub kind: Option<String>,
    /// No diagnostic of severity error.
    pub ok: bool,
    /// Diagnostics of severity error.
    pub error_count: usize,
    /// Diagnostics of severity warning.
    pub warning_count: usize,
    /// Diagnostics of severity info.
    pub info_count: usize,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// What a 422 `meta.errors` would hold: field path → messages of the errors at that path.
    pub errors: BTreeMap<String, Vec<String>>,
}

impl Report {
    /// Diagnostics of one rule, for tests and filters.
    pub fn by_rule<'r>(&'r self, rule_id: &'r str) -> impl Iterator<Item = &'r Diagnostic> + 'r {
        self.diagnostics.iter().filter(move |d| d.rule_id == rule_id)
    }
}

/// One step of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg<'p> {
    /// The document itself.
    Root,
    /// An object member.
    Key(&'p str),
    /// An array element.
    Index(usize),
}

/// A path from the root, as a linked list borrowed from the caller's stack frames.
///
/// ```
/// use poscheck::diagnostic::Path;
/// let root = Path::ROOT;
/// let cats = root.key("categories");
/// let first = cats.index(1);
/// let code = first.key("remoteCode");
/// assert_eq!(code.to_service_path(), "categories[1].remoteCode");
/// assert_eq!(code.to_pointer(), "/categories/1/remoteCode");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    seg: Seg<'p>,
}

impl<'p> Path<'p> {
    /// The path of the document itself.
    pub const ROOT: Path<'static> = Path { parent: None, seg: Seg::Root };

    /// The member `key` of the object at this path.
    pub fn key<'q>(&'q self, key: &'q str) -> Path<'q> {
        Path { parent: Some(self), seg: Seg::Key(key) }
    }

    /// The element `index` of the array at this path.
    pub fn index(&self, index: usize) -> Path<'_> {
        Path { parent: Some(self), seg: Seg::Index(index) }
    }

    fn segments(&self) -> Vec<Seg<'p>> {
        let mut segs = Vec::new();
        let mut cur: Option<&Path<'p>> = Some(self);
        while let Some(p) = cur {
            if p.seg != Seg::Root {
                segs.push(p.seg);
            }
            cur = p.parent;
        }
        segs.reverse();
        segs
    }

    /// `categories[1].products[0].remoteCode` (empty for the root).
    pub fn to_service_path(&self) -> String {
        let mut s = String::new();
        for seg in self.segments() {
            match seg {
                Seg::Key(k) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(k);
                }
                Seg::Index(i) => {
                    let _ = write!(s, "[{i}]");
                }
                Seg::Root => {}
            }
        }
        s
    }

    /// RFC 6901 pointer (empty for the root).
    pub fn to_pointer(&self) -> String {
        let mut s = String::new();
        for seg in self.segments() {
            s.push('/');
            match seg {
                Seg::Key(k) => s.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Seg::Index(i) => {
                    let _ = write!(s, "{i}");
                }
                Seg::Root => {}
            }
        }
        s
    }
}

/// Turns a service-style path (`a.b[2].c`) into a JSON pointer (`/a/b/2/c`).
pub fn service_path_to_pointer(path: &str) -> String {
    let mut out = String::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut rest = part;
        let key_end = rest.find('[').unwrap_or(rest.len());
        let key = &rest[..key_end];
        if !key.is_empty() {
            out.push('/');
            out.push_str(&key.replace('~', "~0").replace('/', "~1"));
        }
        rest = &rest[key_end..];
        while let Some(stripped) = rest.strip_prefix('[') {
            let close = stripped.find(']').unwrap_or(stripped.len());
            out.push('/');
            out.push_str(&stripped[..close]);
            rest = stripped.get(close + 1..).unwrap_or("");
        }
    }
    out
}

/// Diagnostics a report lists by default before it stops with a `*/too-many-diagnostics` error
/// (defined with the parser's limits, which default to it, below this module).
pub use crate::json::DEFAULT_MAX_DIAGNOSTICS;
/// Text (messages, paths, pointers) a report holds at most, whatever the diagnostics count: a
/// long key path repeated in many diagnostics cannot make the report quadratic in the input.
pub const MAX_REPORT_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// Longest message or help kept whole; a longer one keeps its head and tail around an ellipsis,
/// so that a message echoing a huge value stays readable and small.
pub const MAX_MESSAGE_BYTES: usize = 1024;
/// Related locations one diagnostic lists at most.
pub const MAX_RELATED: usize = 8;

/// `text` when it fits in [`MAX_MESSAGE_BYTES`], otherwise its first ~700 and last ~200 bytes
/// (cut at character boundaries) around `" … "`, with control characters kept as they are.
///
/// ```
/// let long = format!("value \"{}\" is not allowed", "x".repeat(100_000));
/// let short = poscheck::diagnostic::bounded(long);
/// assert!(short.len() <= poscheck::diagnostic::MAX_MESSAGE_BYTES);
/// assert!(short.starts_with("value \"xxx") && short.ends_with("\" is not allowed"));
/// ```
pub fn bounded(text: impl Into<String>) -> String {
    bound(text.into())
}

/// [`bounded`] once the text is a `String`: one copy of it in the wasm module, whatever callers pass.
fn bound(text: String) -> String {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text;
    }
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let head = floor(700);
    let tail = floor(text.len() - 200);
    let omitted = tail - head;
    format!("{} … ({omitted} bytes omitted) … {}", &text[..head], &text[tail..])
}

#[derive(Debug)]
struct PendingRelated {
    path: String,
    pointer: String,
    span: Span,
    message: String,
}

/// A diagnostic being built; positions are filled in by [`Collector::finish`].
#[derive(Debug)]
pub struct Pending {
    rule: &'static Rule,
    severity: Severity,
    message: String,
    path: String,
    pointer: String,
    span: Span,
    related: Vec<PendingRelated>,
    help: Option<String>,
}

impl Pending {
    /// Adds the rule's fix-it sentence.
    pub fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.set_help(help.into())
    }

    /// Not inlined into the hundred-odd `help` calls: that cost the toolkit's wasm module 0.8 KiB
    /// gzipped.
    #[inline(never)]
    fn set_help(&mut self, help: String) -> &mut Self {
        self.help = Some(bound(help));
        self
    }

    /// Points at another location (e.g. the first occurrence).
    pub fn related(&mut self, path: &Path, span: Span, message: impl Into<String>) -> &mut Self {
        if self.related.len() < MAX_RELATED {
            self.related.push(PendingRelated { path: path.to_service_path(), pointer: path.to_pointer(), span, message: bounded(message) });
        }
        self
    }

    /// Like [`related`](Self::related) with the path and the JSON pointer already rendered
    /// (the pointer is exact even for keys holding `.`, `[`, `/` or `~`).
    pub fn related_pointer(&mut self, service_path: String, pointer: String, span: Span, message: impl Into<String>) -> &mut Self {
        if self.related.len() < MAX_RELATED {
            self.related.push(PendingRelated { path: service_path, pointer, span, message: bounded(message) });
        }
        self
    }

    /// Like [`related`](Self::related) with a path already rendered in service style.
    /// The pointer is derived from the path, so use this only for paths whose keys are plain
    /// names (the contract's fields); [`related_pointer`](Self::related_pointer) otherwise.
    pub fn related_at(&mut self, service_path: &str, span: Span, message: impl Into<String>) -> &mut Self {
        self.related_pointer(service_path.to_string(), service_path_to_pointer(service_path), span, message)
    }

    /// Overrides the rule's default severity (e.g. a rule that is an error in one context only).
    pub fn severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = severity;
        self
    }
}

/// Gathers diagnostics during a check, within a budget: at most `max` diagnostics and
/// [`MAX_REPORT_TEXT_BYTES`] of text. Past the budget a push costs nothing (the path is not even
/// rendered), and [`finish`](Self::finish) ends the report with one error of the budget's rule
/// saying how many were left out. Messages are shortened with [`bounded`].
#[derive(Debug)]
pub struct Collector {
    pending: Vec<Pending>,
    kind: Option<String>,
    max: usize,
    budget_rule: &'static Rule,
    text_bytes: usize,
    dropped: usize,
    first_dropped: Option<(String, String, Span)>,
    /// Handed out by a push past the budget, so that callers can chain `.help()` as usual.
    sink: Pending,
}

impl Default for Collector {
    fn default() -> Self {
        Self {
            pending: Vec::new(),
            kind: None,
            max: DEFAULT_MAX_DIAGNOSTICS,
            budget_rule: &json_rules::TOO_MANY_DIAGNOSTICS,
            text_bytes: 0,
            dropped: 0,
            first_dropped: None,
            sink: Pending {
                rule: &json_rules::TOO_MANY_DIAGNOSTICS,
                severity: Severity::Info,
                message: String::new(),
                path: String::new(),
                pointer: String::new(),
                span: Span::default(),
                related: Vec::new(),
                help: None,
            },
        }
    }
}

impl Collector {
    /// An empty collector with the default budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the budget: at most `max` diagnostics, then one error of `rule` (the checker's own
    /// `*/too-many-diagnostics`).
    pub fn set_budget(&mut self, max: usize, rule: &'static Rule) {
        self.max = max;
        self.budget_rule = rule;
    }

    /// Whether the budget is spent: later pushes are counted, not kept.
    pub fn is_full(&self) -> bool {
        self.pending.len() >= self.max || self.text_bytes >= MAX_REPORT_TEXT_BYTES
    }

    /// Records what was checked (`Report::kind`).
    pub fn set_kind(&mut self, kind: impl Into<String>) {
        self.kind = Some(kind.into());
    }

    /// Pushes a diagnostic of `rule` at `path`/`span`; returns it for [`Pending::help`] and
    /// [`Pending::related`].
    pub fn push(&mut self, rule: &'static Rule, path: &Path, span: Span, message: impl Into<String>) -> &mut Pending {
        if self.is_full() {
            return self.drop_one(|| (path.to_service_path(), path.to_pointer()), span);
        }
        self.push_at(rule, path.to_service_path(), path.to_pointer(), span, message)
    }

    /// Like [`push`](Self::push) with the path already rendered.
    pub fn push_at(&mut self, rule: &'static Rule, path: String, pointer: String, span: Span, message: impl Into<String>) -> &mut Pending {
        if self.is_full() {
            return self.drop_one(|| (path, pointer), span);
        }
        let message = bounded(message);
        self.text_bytes += message.len() + path.len() + pointer.len();
        self.pending.push(Pending { rule, severity: rule.severity, message, path, pointer, span, related: Vec::new(), help: None });
        self.pending.last_mut().expect("just pushed")
    }

    /// Counts a diagnostic left out for lack of budget, without building it (call it when
    /// [`is_full`](Self::is_full) says so, instead of formatting a message nobody will read).
    pub fn count_dropped(&mut self, path: &Path, span: Span) {
        self.drop_one(|| (path.to_service_path(), path.to_pointer()), span);
    }

    fn drop_one(&mut self, at: impl FnOnce() -> (String, String), span: Span) -> &mut Pending {
        self.dropped += 1;
        if self.first_dropped.is_none() {
            let (path, pointer) = at();
            self.first_dropped = Some((path, pointer, span));
        }
        self.sink.related.clear();
        &mut self.sink
    }

    /// Number of diagnostics pushed so far.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Whether the report would hold no diagnostic at all: nothing pushed, nothing left out.
    pub fn is_clean(&self) -> bool {
        self.pending.is_empty() && self.dropped == 0 && self.first_dropped.is_none()
    }

    /// Reports the duplicate keys the parser found (those it did not record for lack of budget
    /// count as left out).
    pub fn duplicate_keys(&mut self, doc: &json::Document) {
        for d in &doc.duplicate_keys {
            if self.is_full() {
                self.dropped += 1;
                continue;
            }
            let pointer = format!("{}/{}", d.object_pointer, d.key.replace('~', "~0").replace('/', "~1"));
            let path = pointer_to_service_path(&pointer);
            let message = format!("key \"{}\" appears more than once in this object", d.key);
            // The related location repeats the path: count its text too.
            self.text_bytes += path.len() + pointer.len();
            self.push_at(&json_rules::DUPLICATE_KEY, path.clone(), pointer.clone(), d.span, message)
                .related_pointer(path, pointer, d.first, "first occurrence")
                .help("remove one of them; only one value can be meant");
        }
        if doc.omitted_duplicate_keys > 0 {
            self.dropped += doc.omitted_duplicate_keys;
            if self.first_dropped.is_none() {
                self.first_dropped = Some((String::new(), String::new(), doc.root.span));
            }
        }
    }

    /// Computes positions against `input` and builds the report.
    pub fn finish(mut self, input: &[u8]) -> Report {
        let already_said = self.pending.iter().any(|p| std::ptr::eq(p.rule, self.budget_rule));
        if let Some((path, pointer, span)) = self.first_dropped.take().filter(|_| !already_said) {
            let (dropped, kept) = (self.dropped, self.pending.len());
            let why =
                if kept >= self.max { format!("{} diagnostics", self.max) } else { format!("{} MiB of text", MAX_REPORT_TEXT_BYTES >> 20) };
            self.pending.push(Pending {
                rule: self.budget_rule,
                severity: self.budget_rule.severity,
                message: format!(
                    "{dropped} more diagnostic{} not listed: a report stops at {why}",
                    if dropped == 1 { " was" } else { "s were" }
                ),
                path,
                pointer,
                span: Span::new(span.start, span.start),
                related: Vec::new(),
                help: Some("fix the diagnostics listed and check again, or raise the maxDiagnostics option".into()),
            });
        }
        let mut offsets: Vec<usize> = Vec::with_capacity(self.pending.len());
        for p in &self.pending {
            offsets.push(p.span.start);
            offsets.extend(p.related.iter().map(|r| r.span.start));
        }
        let positions = Positions::new(input, &offsets);
        let mut diagnostics: Vec<Diagnostic> = self
            .pending
            .into_iter()
            .map(|p| {
                let (line, column) = positions.get(p.span.start);
                Diagnostic {
                    rule_id: p.rule.id,
                    severity: p.severity,
                    message: p.message,
                    path: p.path,
                    pointer: p.pointer,
                    line,
                    column,
                    span: p.span,
                    related: p
                        .related
                        .into_iter()
                        .map(|r| {
                            let (line, column) = positions.get(r.span.start);
                            Related { path: r.path, pointer: r.pointer, line, column, span: r.span, message: r.message }
                        })
                        .collect(),
                    help: p.help,
                }
            })
            .collect();
        diagnostics.sort_by_key(|d| (d.span.start, d.severity));
        build_report(self.kind, diagnostics)
    }
}

/// Joins reports about the same input into one (e.g. a full menu body checked by the menu linter
/// inside a request report): diagnostics sorted by position, counts and `errors` recomputed.
pub fn merge_reports(kind: Option<String>, reports: Vec<Report>) -> Report {
    let mut diagnostics: Vec<Diagnostic> = reports.into_iter().flat_map(|r| r.diagnostics).collect();
    diagnostics.sort_by_key(|d| (d.span.start, d.severity));
    build_report(kind, diagnostics)
}

fn build_report(kind: Option<String>, diagnostics: Vec<Diagnostic>) -> Report {
    let count = |s| diagnostics.iter().filter(|d| d.severity == s).count();
    let (error_count, warning_count, info_count) = (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in diagnostics.iter().filter(|d| d.severity == Severity::Error) {
        errors.entry(d.path.clone()).or_default().push(d.message.clone());
    }
    Report { kind, ok: error_count == 0, error_count, warning_count, info_count, diagnostics, errors }
}

/// Turns `/a/b/2/c` into `a.b[2].c`.
pub fn pointer_to_service_path(pointer: &str) -> String {
    let mut s = String::new();
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            let _ = write!(s, "[{seg}]");
        } else {
            if !s.is_empty() {
                s.push('.');
            }
            s.push_str(&seg);
        }
    }
    s
}

/// The report for input that did not parse: one diagnostic at the exact position.
pub fn parse_error_report(input: &[u8], error: &ParseError, kind: Option<&str>) -> Report {
    let rule = match error.code {
        "INVALID_UTF8" => &json_rules::INVALID_UTF8,
        "TOO_DEEP" => &json_rules::TOO_DEEP,
        "TOO_LARGE" => &json_rules::TOO_LARGE,
        _ => &json_rules::SYNTAX,
    };
    let mut c = Collector::new();
    if let Some(k) = kind {
        c.set_kind(k);
    }
    let at = error.offset.min(input.len());
    c.push(rule, &Path::ROOT, Span::new(at, at), error.message.clone());
    c.finish(input)
}

/// Line and UTF-16 column of a set of byte offsets, computed in one forward pass.
#[derive(Debug)]
pub struct Positions {
    sorted: Vec<(usize, u32, u32)>,
}

impl Positions {
    /// The positions of `offsets` in `input`, in one pass.
    pub fn new(input: &[u8], offsets: &[usize]) -> Self {
        let mut wanted: Vec<usize> = offsets.iter().map(|&o| o.min(input.len())).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut sorted = Vec::with_capacity(wanted.len());
        let (mut pos, mut line, mut col) = (0usize, 1u32, 0u32);
        for target in wanted {
            for &b in &input[pos..target] {
                if b == b'\n' {
                    line += 1;
                    col = 0;
                } else if b & 0xC0 != 0x80 {
                    // A lead byte starts one character: 4-byte sequences are 2 UTF-16 units.
                    col += if b >= 0xF0 { 2 } else { 1 };
                }
            }
            pos = target;
            sorted.push((target, line, col + 1));
        }
        Self { sorted }
    }

    /// `(line, column)`, both 1-based, of an offset given to [`new`](Self::new).
    pub fn get(&self, offset: usize) -> (u32, u32) {
        match self.sorted.binary_search_by_key(&offset, |&(o, _, _)| o) {
            Ok(i) => (self.sorted[i].1, self.sorted[i].2),
            Err(i) => self.sorted.get(i.saturating_sub(1)).map_or((1, 1), |&(_, l, c)| (l, c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns() {
        let text = "ab\né😀x\n".as_bytes();
        let x = text.iter().position(|&b| b == b'x').unwrap();
        let p = Positions::new(text, &[0, 3, x]);
        assert_eq!(p.get(0), (1, 1));
        assert_eq!(p.get(3), (2, 1));
        // é is 1 UTF-16 unit, 😀 is 2: x is at column 4.
        assert_eq!(p.get(x), (2, 4));
    }

    #[test]
    fn paths_and_pointers() {
        let root = Path::ROOT;
        let a = root.key("a/b");
        let b = a.index(3);
        let c = b.key("c~");
        assert_eq!(c.to_service_path(), "a/b[3].c~");
        assert_eq!(c.to_pointer(), "/a~1b/3/c~0");
        assert_eq!(pointer_to_service_path("/categories/1/products/0/remoteCode"), "categories[1].products[0].remoteCode");
        assert_eq!(service_path_to_pointer("categories[1].products[0].remoteCode"), "/categories/1/products/0/remoteCode");
        assert_eq!(Path::ROOT.to_service_path(), "");
    }

    #[test]
    fn report_counts_and_errors_map() {
        static E: Rule = Rule { id: "t/e", severity: Severity::Error, doc: "", basis: Basis::Stated, source: "" };
        static W: Rule = Rule { id: "t/w", severity: Severity::Warning, doc: "", basis: Basis::Stated, source: "" };
        let input = b"{\n  \"a\": 1\n}";
        let mut c = Collector::new();
        let root = Path::ROOT;
        c.push(&W, &root, Span::new(0, 1), "w");
        c.push(&E, &root.key("a"), Span::new(9, 10), "bad a").help("fix a");
        let r = c.finish(input);
        assert!(!r.ok);
        assert_eq!((r.error_count, r.warning_count), (1, 1));
        assert_eq!(r.errors["a"], vec!["bad a".to_string()]);
        assert_eq!((r.diagnostics[1].line, r.diagnostics[1].column), (2, 8));
    }

    #[test]
    fn parse_errors_become_one_diagnostic() {
        let input = b"{\n  \"a\": 1,\n}";
        let err = json::parse(input, &json::Limits::default(), &json::Arena::new()).unwrap_err();
        let r = parse_error_report(input, &err, None);
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0].rule_id, "json/syntax");
        assert_eq!((r.diagnostics[0].line, r.diagnostics[0].column), (3, 1));
    }
}
