//! Field access for the payload checkers: presence (required, nullable, optional) and the typed
//! checks of [`crate::check`] under this module's rule ids, one diagnostic per broken node.

use super::rules as r;
use crate::check;
use crate::diagnostic::{Collector, Path};
use crate::json::{Member, Value};
use crate::time::Timestamp;

/// Whether a field must be present and whether it may be null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum P {
    /// Present and not null.
    Req,
    /// Always present, may be null (`X | null` in the contract's tables).
    ReqNull,
    /// May be absent; not null when present.
    Opt,
    /// May be absent or null.
    OptNull,
}

/// The value of `key` in `obj`: `None` when absent (reported when required) or when an allowed
/// null. A disallowed null is returned so the typed check reports it.
pub(crate) fn get<'v, 'a>(c: &mut Collector, path: &Path, obj: &'v Value<'a>, key: &str, p: P) -> Option<&'v Value<'a>> {
    present(c, path, obj, key, obj.get(key), p)
}

/// [`get`] for a member already looked up (by [`check::pick`]): `found` is the value of `key` in `obj`.
#[inline(always)]
pub(crate) fn present<'v, 'a>(
    c: &mut Collector,
    path: &Path,
    obj: &Value<'a>,
    key: &str,
    found: Option<&'v Value<'a>>,
    p: P,
) -> Option<&'v Value<'a>> {
    match found {
        None => {
            if matches!(p, P::Req | P::ReqNull) {
                check::required(c, &r::REQUIRED_FIELD, path, obj, key);
            }
            None
        }
        Some(v) if v.is_null() && matches!(p, P::ReqNull | P::OptNull) => None,
        Some(v) => Some(v),
    }
}

/// Whether `key` is present in `obj` with a non-null value.
pub(crate) fn has(obj: &Value, key: &str) -> bool {
    obj.get(key).is_some_and(|v| !v.is_null())
}

pub(crate) fn f_str<'v>(c: &mut Collector, path: &Path, obj: &'v Value, key: &str, p: P) -> Option<&'v str> {
    let v = get(c, path, obj, key, p)?;
    check::string(c, &r::FIELD_TYPE, &path.key(key), v)
}

pub(crate) fn f_bool(c: &mut Collector, path: &Path, obj: &Value, key: &str, p: P) -> Option<bool> {
    let v = get(c, path, obj, key, p)?;
    check::boolean(c, &r::FIELD_TYPE, &path.key(key), v)
}

pub(crate) fn f_ts(c: &mut Collector, path: &Path, obj: &Value, key: &str, p: P) -> Option<Timestamp> {
    let v = get(c, path, obj, key, p)?;
    ts(c, &path.key(key), v)
}

pub(crate) fn f_obj<'v, 'a>(c: &mut Collector, path: &Path, obj: &'v Value<'a>, key: &str, p: P) -> Option<&'v Value<'a>> {
    let v = get(c, path, obj, key, p)?;
    check::object(c, &r::FIELD_TYPE, &path.key(key), v).map(|_| v)
}

pub(crate) fn f_arr<'v, 'a>(c: &mut Collector, path: &Path, obj: &'v Value<'a>, key: &str, p: P) -> Option<&'v [Value<'a>]> {
    let v = get(c, path, obj, key, p)?;
    check::array(c, &r::FIELD_TYPE, &path.key(key), v)
}

pub(crate) fn f_num(c: &mut Collector, path: &Path, obj: &Value, key: &str, p: P, min: Option<f64>, max: Option<f64>) -> Option<f64> {
    let v = get(c, path, obj, key, p)?;
    num(c, &path.key(key), v, min, max)
}

pub(crate) fn f_int(c: &mut Collector, path: &Path, obj: &Value, key: &str, p: P, min: Option<i64>, max: Option<i64>) -> Option<i64> {
    let v = get(c, path, obj, key, p)?;
    int(c, &path.key(key), v, min, max)
}

pub(crate) fn f_enum(
    c: &mut Collector,
    path: &Path,
    obj: &Value,
    key: &str,
    p: P,
    allowed: &[&'static str],
    case_insensitive: bool,
) -> Option<&'static str> {
    let v = get(c, path, obj, key, p)?;
    en(c, &path.key(key), v, allowed, case_insensitive)
}

/// A timestamp value (type errors under `payload/field-type`, format under `payload/timestamp`).
pub(crate) fn ts(c: &mut Collector, path: &Path, v: &Value) -> Option<Timestamp> {
    if v.as_str().is_none() {
        check::string(c, &r::FIELD_TYPE, path, v);
        return None;
    }
    check::timestamp(c, &r::TIMESTAMP, path, v)
}

/// An enum value (type errors under `payload/field-type`, unknown values under `payload/enum-value`).
pub(crate) fn en(c: &mut Collector, path: &Path, v: &Value, allowed: &[&'static str], case_insensitive: bool) -> Option<&'static str> {
    if v.as_str().is_none() {
        check::string(c, &r::FIELD_TYPE, path, v);
        return None;
    }
    check::one_of(c, &r::ENUM_VALUE, path, v, allowed, case_insensitive)
}

fn range_text<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("between {a} and {b}"),
        (Some(a), None) => format!("at least {a}"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => String::new(),
    }
}

/// A finite number (type under `payload/field-type`), within `[min, max]` (`payload/value-range`).
pub(crate) fn num(c: &mut Collector, path: &Path, v: &Value, min: Option<f64>, max: Option<f64>) -> Option<f64> {
    let n = check::number(c, &r::FIELD_TYPE, path, v, None, None)?;
    if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
        let raw = v.as_number().map_or(String::new(), |n| n.raw.to_string());
        c.push(&r::VALUE_RANGE, path, v.span, format!("{} must be {}, found {raw}", check::field_name(path), range_text(min, max)));
        return None;
    }
    Some(n)
}

/// An integer (type under `payload/field-type`), within `[min, max]` (`payload/value-range`).
pub(crate) fn int(c: &mut Collector, path: &Path, v: &Value, min: Option<i64>, max: Option<i64>) -> Option<i64> {
    let i = check::integer(c, &r::FIELD_TYPE, path, v, None, None)?;
    if min.is_some_and(|m| i < m) || max.is_some_and(|m| i > m) {
        c.push(
            &r::VALUE_RANGE,
            path,
            v.span,
            format!("{} must be an integer {}, found {i}", check::field_name(path), range_text(min, max)),
        );
        return None;
    }
    Some(i)
}

/// Reports the members of `obj` that are not in `known`.
pub(crate) fn unknown(c: &mut Collector, path: &Path, obj: &Value, known: &[&'static str]) {
    if obj.as_object().is_none_or(|members| members.iter().all(|m| check::is_known(known, m))) {
        return; // the usual case: nothing to report, no suggestions to prepare
    }
    // Only aliases whose target is a field of this object (no "modifierGroups?" elsewhere).
    let aliases: Vec<(&str, &'static str)> = ALIASES.iter().copied().filter(|(_, to)| known.contains(to)).collect();
    check::unknown_fields(c, &r::UNKNOWN_FIELD, path, obj, known, &aliases);
}

/// The 2xx envelope of every REST response: `{ message: string, data: object }`.
pub(crate) const ENVELOPE_FIELDS: &[&str] = &["message", "data"];

/// Names integrators commonly write instead of the contract's.
pub(crate) const ALIASES: &[(&str, &str)] = &[("imageUrl", "image"), ("modifiers", "modifierGroups")];

/// The root (or any value) as an object, reported under `payload/field-type` otherwise.
pub(crate) fn as_obj<'v, 'a>(c: &mut Collector, path: &Path, v: &'v Value<'a>) -> Option<&'v [Member<'a>]> {
    check::object(c, &r::FIELD_TYPE, path, v)
}

/// A string that must name an order: reported under `payload/order-key-format` when malformed.
pub(crate) fn f_order_key<'v>(c: &mut Collector, path: &Path, obj: &'v Value, key: &str, p: P) -> Option<&'v str> {
    let v = get(c, path, obj, key, p)?;
    order_key(c, &path.key(key), v)
}

/// [`f_order_key`] of a value found.
pub(crate) fn order_key<'v>(c: &mut Collector, path: &Path, v: &'v Value) -> Option<&'v str> {
    let s = check::string(c, &r::FIELD_TYPE, path, v)?;
    if !check::is_order_key(s) {
        c.push(
            &r::ORDER_KEY_FORMAT,
            path,
            v.span,
            format!("{} must be \"ord_\" followed by 16 base62 characters, found \"{s}\"", check::field_name(path)),
        );
        return None;
    }
    Some(s)
}

/// A string that must name a menu change: reported under `payload/change-key-format`.
pub(crate) fn f_change_key<'v>(c: &mut Collector, path: &Path, obj: &'v Value, key: &str, p: P) -> Option<&'v str> {
    let v = get(c, path, obj, key, p)?;
    let fp = path.key(key);
    let s = check::string(c, &r::FIELD_TYPE, &fp, v)?;
    if !check::is_change_key(s) {
        c.push(&r::CHANGE_KEY_FORMAT, &fp, v.span, format!("{key} must be \"chg_\" followed by 16 base62 characters, found \"{s}\""));
        return None;
    }
    Some(s)
}

/// An absolute http or https URL (`menu/image-url`).
pub(crate) fn f_image(c: &mut Collector, path: &Path, obj: &Value, key: &str, p: P) -> Option<()> {
    let v = get(c, path, obj, key, p)?;
    let fp = path.key(key);
    let s = check::string(c, &r::FIELD_TYPE, &fp, v)?;
    if check::http_url_scheme(s).is_none() {
        c.push(&r::MENU_IMAGE_URL, &fp, v.span, format!("{key} must be an absolute http or https URL, found \"{s}\""))
            .help("e.g. https://cdn.example.com/images/burger.png");
        return None;
    }
    Some(())
}

/// Read-vocabulary order status (`order/read-status`), with a pointed message for the write
/// vocabulary and for the DriverAssigned status that no longer exists.
pub(crate) fn read_status(c: &mut Collector, path: &Path, v: &Value) -> Option<&'static str> {
    let Some(s) = v.as_str() else {
        check::string(c, &r::FIELD_TYPE, path, v);
        return None;
    };
    match read_status_problem(s) {
        None => READ_STATUSES.iter().copied().find(|a| *a == s),
        Some((msg, help)) => {
            let d = c.push(&r::ORDER_READ_STATUS, path, v.span, msg);
            if let Some(h) = help {
                d.help(h);
            }
            None
        }
    }
}

/// Why `s` is not a status of the read vocabulary (message, help), or `None` when it is one.
pub(crate) fn read_status_problem(s: &str) -> Option<(String, Option<&'static str>)> {
    if READ_STATUSES.contains(&s) {
        return None;
    }
    Some(if is_driver_assigned(s) {
        (
            format!("\"{s}\" is not a status: the driver is not a status since 2026-08-11"),
            Some("the driver cycle is in driverAssignedAt, history[].driver and the driver_assigned / driver_released update webhooks"),
        )
    } else if let Some(found) = read_status_like(s) {
        (
            format!("status \"{s}\" must be PascalCase in the read vocabulary: \"{found}\""),
            Some("the read vocabulary (responses, list filter) is PascalCase; the write vocabulary (PUT status body) is snake_case"),
        )
    } else {
        (format!("\"{s}\" is not an order status: expected one of {}", READ_STATUSES.join(", ")), None)
    })
}

/// The read-vocabulary status `s` spells when case and underscores are ignored (`handed_over`,
/// `READY`), if any.
pub(crate) fn read_status_like(s: &str) -> Option<&'static str> {
    READ_STATUSES.iter().copied().find(|a| spells(s, a))
}

/// `s` is the DriverAssigned status that no longer exists (any case, underscores ignored).
pub(crate) fn is_driver_assigned(s: &str) -> bool {
    spells(s, "driverassigned")
}

/// `s` without its underscores equals `name`, ignoring ASCII case.
fn spells(s: &str, name: &str) -> bool {
    s.bytes().filter(|b| *b != b'_').map(|b| b.to_ascii_lowercase()).eq(name.bytes().map(|b| b.to_ascii_lowercase()))
}

/// The read vocabulary of order statuses.
pub(crate) const READ_STATUSES: &[&str] = crate::contract::Status::NAMES;

/// Each element of the array at `path.key(key)` that is an object, with its path. The others are
/// reported at once, before any element is handed out; the objects are then picked anew rather
/// than copied (no allocation).
pub(crate) fn objects<'v, 'a>(
    c: &mut Collector,
    path: &Path,
    items: &'v [Value<'a>],
) -> impl Iterator<Item = (usize, &'v Value<'a>)> + use<'v, 'a> {
    for (i, it) in items.iter().enumerate() {
        check::object(c, &r::FIELD_TYPE, &path.index(i), it);
    }
    items.iter().enumerate().filter(|(_, it)| it.as_object().is_some())
}

/// Each element that is a string (type reported otherwise).
pub(crate) fn strings<'v>(c: &mut Collector, path: &Path, items: &'v [Value]) -> Vec<(usize, &'v str)> {
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        if let Some(s) = check::string(c, &r::FIELD_TYPE, &path.index(i), it) {
            out.push((i, s));
        }
    }
    out
}

/// The menu field vocabulary of the capabilities (`set` fields of the menu writes), for
/// capabilities entries and "did you mean" suggestions.
pub(crate) const MENU_FIELDS: &[&str] = &[
    "available",
    "price",
    "name",
    "description",
    "schedule",
    "channels",
    "tax",
    "maxPerOrder",
    "image",
    "isDefault",
    "position",
    "min",
    "max",
    "type",
];
