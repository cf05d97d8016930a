//! Reading, comparing and showing the values of the two trees.

use super::FieldChange;
use crate::basis::Basis;
use crate::json::{Kind, Span, Value};

pub(super) fn arr<'v, 'd>(v: &'v Value<'d>, key: &str) -> &'v [Value<'d>] {
    v.get(key).and_then(Value::as_array).unwrap_or(&[])
}

pub(super) fn string<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// The span to point at for an item: its `key` value when present, else its first byte.
pub(super) fn anchor(v: &Value, key: &str) -> Span {
    v.get(key).map_or(Span::new(v.span.start, v.span.start + 1), |x| x.span)
}

/// `s` cut to 60 characters for messages and names.
pub(super) fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A value for the result: scalars as they are; containers described (the output stays small).
pub(super) fn to_json(v: &Value) -> serde_json::Value {
    match &v.kind {
        Kind::Null => serde_json::Value::Null,
        Kind::Bool(b) => (*b).into(),
        Kind::Number(n) => serde_json::from_str(n.raw).unwrap_or_else(|_| n.raw.into()),
        Kind::String(s) => {
            if s.len() > 2048 {
                format!("{}…", short(s)).into()
            } else {
                s.to_string().into()
            }
        }
        Kind::Array(a) => format!("(an array of {} items)", a.len()).into(),
        Kind::Object(_) => "(an object)".into(),
    }
}

pub(super) fn show(v: Option<&Value>) -> String {
    match v.map(|v| &v.kind) {
        None => "absent".into(),
        Some(Kind::String(s)) => format!("\"{}\"", short(s)),
        Some(Kind::Number(n)) => n.raw.to_string(),
        Some(Kind::Bool(b)) => b.to_string(),
        Some(Kind::Null) => "null".into(),
        Some(Kind::Array(_)) => "an array".into(),
        Some(Kind::Object(_)) => "an object".into(),
    }
}

/// Equal for the service: numbers by value, strings exactly (`type` case-insensitively), null
/// and absent alike (assumed: an optional field left out is not set).
pub(super) fn same(a: Option<&Value>, b: Option<&Value>, case_insensitive: bool) -> bool {
    let a = a.filter(|v| !v.is_null());
    let b = b.filter(|v| !v.is_null());
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => match (&x.kind, &y.kind) {
            (Kind::Number(p), Kind::Number(q)) => p.value == q.value,
            (Kind::String(p), Kind::String(q)) if case_insensitive => p.eq_ignore_ascii_case(q),
            (Kind::String(p), Kind::String(q)) => p == q,
            (Kind::Bool(p), Kind::Bool(q)) => p == q,
            // Containers are not fields of these levels: the lint reports them.
            _ => false,
        },
        _ => false,
    }
}

/// The master value of `field`: the `base` of a value or channel override on it (the value in
/// effect is the override's), else the field itself.
pub(super) fn master<'v, 'd>(work: &mut u64, v: &'v Value<'d>, field: &str) -> (Option<&'v Value<'d>>, Option<&'v Value<'d>>) {
    for o in arr(v, "overrides") {
        for f in arr(o, "fields") {
            *work += 1;
            if string(f, "field") == Some(field) {
                if let Some(base) = f.get("base") {
                    return (Some(base), f.get("value"));
                }
            }
        }
    }
    (v.get(field), None)
}

pub(super) fn field_change(field: &str, old: Option<&Value>, new: Option<&Value>, basis: Basis, note: Option<String>) -> FieldChange {
    // A field the submission leaves out: what the service keeps or sets then is not shown.
    let (basis, note) = match (new, note) {
        (None, None) => (Basis::Assumed, Some("absent from the submission: what the service keeps or sets then is not shown".to_string())),
        (_, note) => (basis, note),
    };
    FieldChange { field: field.into(), old: old.map(to_json), new: new.map(to_json), basis, note, line: None, column: None, span: None }
}

/// `0.25` → `25%` (one decimal when needed).
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{}%", p.round())
    } else {
        format!("{p:.1}%")
    }
}
