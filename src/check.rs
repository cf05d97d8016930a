//! Building blocks shared by the checkers: typed field access that reports one diagnostic per
//! broken node, and the contract's formats (ids, UUIDs, URLs, timestamps).
//!
//! Each function takes the rule to report under, so every checker keeps its own rule ids while the
//! wording stays the same everywhere.

use crate::diagnostic::{Collector, Path, Rule};
use crate::json::{self, Member, Span, Value};
use crate::time;

/// The member `key` of object `obj`, or a diagnostic at the parent object when it is missing
/// (the path names the missing field, as the service's `meta.errors` would).
pub fn required<'v, 'a>(c: &mut Collector, rule: &'static Rule, path: &Path, obj: &'v Value<'a>, key: &str) -> Option<&'v Value<'a>> {
    let found = obj.get(key);
    if found.is_none() {
        c.push(rule, &path.key(key), Span::new(obj.span.start, obj.span.start + 1), format!("missing required field \"{key}\""));
    }
    found
}

#[cold]
#[inline(never)]
fn wrong_type(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value, expected: &str) {
    c.push(rule, path, v.span, format!("{} must be {expected}, found {}", field_name(path), describe(v)));
}

/// `remoteCode` from a path, for messages (`the root` for the root).
pub fn field_name(path: &Path) -> String {
    let p = path.to_service_path();
    match p.rsplit_once('.') {
        Some((_, last)) => last.to_string(),
        None if p.is_empty() => "the root".to_string(),
        None => p,
    }
}

/// A short description of a value for messages: `the string "abc"`, `the number 1.5`, `an array`.
pub fn describe(v: &Value) -> String {
    use crate::json::Kind;
    match &v.kind {
        Kind::Null => "null".into(),
        Kind::Bool(b) => format!("{b}"),
        Kind::Number(n) => format!("the number {}", n.raw),
        Kind::String(s) => {
            let shown: String = s.chars().take(60).collect();
            let ellipsis = if s.chars().count() > 60 { "…" } else { "" };
            format!("the string \"{shown}{ellipsis}\"")
        }
        Kind::Array(_) => "an array".into(),
        Kind::Object(_) => "an object".into(),
    }
}

#[inline]
pub fn object<'v, 'a>(c: &mut Collector, rule: &'static Rule, path: &Path, v: &'v Value<'a>) -> Option<&'v [Member<'a>]> {
    let r = v.as_object();
    if r.is_none() {
        wrong_type(c, rule, path, v, "an object");
    }
    r
}

#[inline]
pub fn array<'v, 'a>(c: &mut Collector, rule: &'static Rule, path: &Path, v: &'v Value<'a>) -> Option<&'v [Value<'a>]> {
    let r = v.as_array();
    if r.is_none() {
        wrong_type(c, rule, path, v, "an array");
    }
    r
}

#[inline]
pub fn string<'v>(c: &mut Collector, rule: &'static Rule, path: &Path, v: &'v Value) -> Option<&'v str> {
    let r = v.as_str();
    if r.is_none() {
        wrong_type(c, rule, path, v, "a string");
    }
    r
}

#[inline]
pub fn boolean(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value) -> Option<bool> {
    let r = v.as_bool();
    if r.is_none() {
        wrong_type(c, rule, path, v, "a boolean (true or false)");
    }
    r
}

fn bounds_text<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!(" between {a} and {b}"),
        (Some(a), None) => format!(" ≥ {a}"),
        (None, Some(b)) => format!(" ≤ {b}"),
        (None, None) => String::new(),
    }
}

/// An integer within `[min, max]`: a number whose value is whole, as JSON Schema (and so the
/// shipped schemas) counts it: `2`, `2.0` and `2e0` alike. A whole value beyond 2^53 written with
/// a fraction or an exponent is refused (it cannot be told from its neighbours).
pub fn integer(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value, min: Option<i64>, max: Option<i64>) -> Option<i64> {
    let expected = format!("an integer{}", bounds_text(min, max));
    let Some(n) = v.as_number() else {
        wrong_type(c, rule, path, v, &expected);
        return None;
    };
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let whole = || (n.value.is_finite() && n.value.fract() == 0.0 && n.value.abs() <= EXACT).then_some(n.value as i64);
    let Some(i) = n.as_i64().or_else(whole) else {
        wrong_type(c, rule, path, v, &expected);
        return None;
    };
    if min.is_some_and(|m| i < m) || max.is_some_and(|m| i > m) {
        wrong_type(c, rule, path, v, &expected);
        return None;
    }
    Some(i)
}

/// A finite number within `[min, max]`.
pub fn number(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value, min: Option<f64>, max: Option<f64>) -> Option<f64> {
    let expected = format!("a number{}", bounds_text(min, max));
    let Some(n) = v.as_number() else {
        wrong_type(c, rule, path, v, &expected);
        return None;
    };
    if !n.value.is_finite() || min.is_some_and(|m| n.value < m) || max.is_some_and(|m| n.value > m) {
        wrong_type(c, rule, path, v, &expected);
        return None;
    }
    Some(n.value)
}

/// A string among `allowed` (compared ASCII-case-insensitively when `case_insensitive`).
/// Returns the allowed spelling.
pub fn one_of(
    c: &mut Collector,
    rule: &'static Rule,
    path: &Path,
    v: &Value,
    allowed: &[&'static str],
    case_insensitive: bool,
) -> Option<&'static str> {
    let s = string(c, rule, path, v)?;
    let found = allowed.iter().copied().find(|a| if case_insensitive { a.eq_ignore_ascii_case(s) } else { *a == s });
    if found.is_none() {
        let list = allowed.iter().map(|a| format!("\"{a}\"")).collect::<Vec<_>>().join(", ");
        c.push(rule, path, v.span, format!("{} must be one of {list}, found \"{s}\"", field_name(path)));
    }
    found
}

/// An ISO 8601 timestamp with an offset; a non-UTC offset is reported too (the contract says UTC).
pub fn timestamp(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value) -> Option<time::Timestamp> {
    let s = string(c, rule, path, v)?;
    match time::parse(s) {
        Some(t) if t.utc => Some(t),
        Some(_) => {
            c.push(rule, path, v.span, format!("{} must be in UTC (ending in Z), found \"{s}\"", field_name(path)));
            None
        }
        None => {
            c.push(
                rule,
                path,
                v.span,
                format!("{} must be an ISO 8601 UTC timestamp like 2026-08-12T14:30:00Z, found \"{s}\"", field_name(path)),
            );
            None
        }
    }
}

/// The prefix of an `orderKey` ("`ord_` + 16 base62 characters").
pub(crate) const ORDER_KEY_PREFIX: &str = "ord_";
/// The prefix of a `changeKey` / `changeId` ("`chg_` + 16 characters").
pub(crate) const CHANGE_KEY_PREFIX: &str = "chg_";
/// How many base62 characters follow the prefix of an `orderKey` or a `changeKey`.
pub(crate) const KEY_BASE62_LEN: usize = 16;

/// `prefix` followed by exactly 16 base62 characters (`ord_…`, `chg_…`).
pub fn is_prefixed_base62(s: &str, prefix: &str) -> bool {
    s.strip_prefix(prefix).is_some_and(|rest| rest.len() == KEY_BASE62_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// An `orderKey`: `ord_` + 16 base62 characters.
pub fn is_order_key(s: &str) -> bool {
    is_prefixed_base62(s, ORDER_KEY_PREFIX)
}

/// A `changeKey` / `changeId`: `chg_` + 16 base62 characters.
pub fn is_change_key(s: &str) -> bool {
    is_prefixed_base62(s, CHANGE_KEY_PREFIX)
}

/// A UUID in 8-4-4-4-12 hex form (any version).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36 && b.iter().enumerate().all(|(i, &c)| if matches!(i, 8 | 13 | 18 | 23) { c == b'-' } else { c.is_ascii_hexdigit() })
}

/// A UUID version 4 (RFC 9562): version nibble 4, variant bits 10.
pub fn is_uuid_v4(s: &str) -> bool {
    is_uuid(s) && s.as_bytes()[14] == b'4' && matches!(s.as_bytes()[19], b'8' | b'9' | b'a' | b'b' | b'A' | b'B')
}

/// `Some("http")` or `Some("https")` for an absolute URL with a host, `None` otherwise.
pub fn http_url_scheme(s: &str) -> Option<&'static str> {
    let (scheme, rest) = s.split_once("://")?;
    let scheme = if scheme.eq_ignore_ascii_case("https") {
        "https"
    } else if scheme.eq_ignore_ascii_case("http") {
        "http"
    } else {
        return None;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit('@').next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    Some(scheme)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
/// transpositions each cost 1 (so `nmae` is 1 away from `name`).
fn edit_distance(a: &str, b: &str) -> usize {
    // Optimal string alignment distance, three rolling rows (two back for transpositions).
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(before[j - 2] + 1);
            }
            cur[j] = v;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The known name closest to `key`: an alias first (`imageUrl` → `image`), then a case-only
/// difference, then an edit distance of at most 2.
pub fn did_you_mean(key: &str, known: &[&'static str], aliases: &[(&str, &'static str)]) -> Option<&'static str> {
    if let Some((_, to)) = aliases.iter().find(|(from, _)| from.eq_ignore_ascii_case(key)) {
        return Some(to);
    }
    if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return Some(k);
    }
    if key.chars().count() > 40 {
        return None;
    }
    known
        .iter()
        .map(|k| (edit_distance(&key.to_ascii_lowercase(), &k.to_ascii_lowercase()), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

/// The members of an object named in `names`, found in one pass over its members (the last one of
/// a duplicated name, as [`Value::get`] finds it), and whether it has a member named otherwise: a
/// checker reads its fields without one search per name, and looks for unknown fields only then.
pub fn pick<'v, 'a, const N: usize>(members: &'v [Member<'a>], names: &[&str; N]) -> ([Option<&'v Member<'a>>; N], bool) {
    let mut found = [None; N];
    let mut other = false;
    for m in members {
        match names.iter().position(|n| json::same_text(n, m.key)) {
            Some(i) => found[i] = Some(m),
            None => other = true,
        }
    }
    (found, other)
}

/// Whether the name of `m` is one of `known`.
#[inline(always)]
pub fn is_known(known: &[&str], m: &Member) -> bool {
    let key = m.key;
    known.iter().any(|k| json::same_text(k, key))
}

/// Reports every member of `obj` not in `known`, with a "did you mean" when one is close.
pub fn unknown_fields(
    c: &mut Collector,
    rule: &'static Rule,
    path: &Path,
    obj: &Value,
    known: &[&'static str],
    aliases: &[(&str, &'static str)],
) {
    let Some(members) = obj.as_object() else { return };
    for m in members {
        if is_known(known, m) {
            continue;
        }
        let p = path.key(m.key);
        if c.is_full() {
            // Past the budget: counted, without building a message or a suggestion.
            c.count_dropped(&p, m.key_span);
            continue;
        }
        let d = c.push(rule, &p, m.key_span, format!("unknown field \"{}\"", m.key));
        if let Some(s) = did_you_mean(m.key, known, aliases) {
            d.help(format!("did you mean \"{s}\"?"));
        }
    }
}

// --- added for order ---

/// A timestamp that may be null: `Some(None)` for null, `Some(Some(t))` for a valid UTC
/// timestamp, `None` (with a diagnostic) for anything else.
pub fn timestamp_or_null(c: &mut Collector, rule: &'static Rule, path: &Path, v: &Value) -> Option<Option<time::Timestamp>> {
    if v.is_null() {
        return Some(None);
    }
    if v.as_str().is_none() {
        wrong_type(c, rule, path, v, "an ISO 8601 UTC timestamp or null");
        return None;
    }
    timestamp(c, rule, path, v).map(Some)
}

/// A string that may be null: `Some(None)` for null, `Some(Some(s))` for a string, `None` (with a
/// diagnostic) for anything else.
pub fn string_or_null<'v>(c: &mut Collector, rule: &'static Rule, path: &Path, v: &'v Value) -> Option<Option<&'v str>> {
    if v.is_null() {
        return Some(None);
    }
    if v.as_str().is_none() {
        wrong_type(c, rule, path, v, "a string or null");
        return None;
    }
    v.as_str().map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert!(is_order_key("ord_0123456789abcDEF"));
        assert!(!is_order_key("ord_0123456789abcDE"));
        assert!(!is_order_key("ord_0123456789abcDE_"));
        assert!(is_change_key("chg_AAAAAAAAAAAAAAAA"));
        assert!(is_uuid_v4("6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10"));
        assert!(!is_uuid_v4("6f1c1f7e-8d4b-1d43-9d2e-1b7f6a2c9e10"));
        assert!(!is_uuid_v4("6f1c1f7e-8d4b-4d43-7d2e-1b7f6a2c9e10"));
        assert_eq!(http_url_scheme("https://cdn.example.com/a.png"), Some("https"));
        assert_eq!(http_url_scheme("http://x"), Some("http"));
        assert_eq!(http_url_scheme("ftp://x/a.png"), None);
        assert_eq!(http_url_scheme("/a.png"), None);
        assert_eq!(http_url_scheme("https:///a.png"), None);
        assert_eq!(http_url_scheme("https://a b/"), None);
    }

    #[test]
    fn suggestions() {
        let known = ["remoteCode", "image", "modifierGroups", "name"];
        let aliases = [("imageUrl", "image"), ("modifiers", "modifierGroups")];
        assert_eq!(did_you_mean("imageUrl", &known, &aliases), Some("image"));
        assert_eq!(did_you_mean("RemoteCode", &known, &aliases), Some("remoteCode"));
        assert_eq!(did_you_mean("nmae", &known, &aliases), Some("name"));
        assert_eq!(did_you_mean("colour", &known, &aliases), None);
    }
}
