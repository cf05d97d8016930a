//! The tree a parse gives: values with their spans, borrowed from the arena.

use serde::Serialize;

/// A half-open byte range `[start, end)` in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// `[start, end)`.
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
}

/// A JSON value with its span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value<'a> {
    /// What the value is.
    pub kind: Kind<'a>,
    /// Where it is in the input.
    pub span: Span,
}

/// An object member: the key with its span, and the value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Member<'a> {
    /// The member name, unescaped.
    pub key: &'a str,
    /// Where the name is (quotes included).
    pub key_span: Span,
    /// The member value.
    pub value: Value<'a>,
}

/// A JSON number: its source text, its value as f64, and whether it is written as an integer
/// (no fraction, no exponent: `1.0` and `1e2` are not integers, as for the service's parser).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number<'a> {
    /// The number as written.
    pub raw: &'a str,
    /// Its value (±infinity past f64's range).
    pub value: f64,
    /// Written without fraction or exponent.
    pub is_integer: bool,
}

impl Number<'_> {
    /// The value as i64 when it is written as an integer and fits.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer {
            self.raw.parse().ok()
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
/// The kinds of JSON values.
pub enum Kind<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, with its source text.
    Number(Number<'a>),
    /// A string, unescaped.
    String(&'a str),
    /// An array.
    Array(&'a [Value<'a>]),
    /// An object: its members in order, duplicates kept.
    Object(&'a [Member<'a>]),
}

/// Whether two member names (or other short texts) are equal: the lengths, then 8 bytes at a
/// time, inlined. The checkers compare names all the time; this spares the wasm build a call to
/// its memcmp, which goes byte by byte.
#[inline(always)]
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while let (Some(x), Some(y)) = (word_at(a, at), word_at(b, at)) {
        if x != y {
            return false;
        }
        at += 8;
    }
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

impl<'a> Value<'a> {
    /// The member `key` of an object (the last one when the key is duplicated), or `None`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.member(key).map(|m| &m.value)
    }

    /// The member `key` of an object with its key span (the last one when duplicated).
    pub fn member(&self, key: &str) -> Option<&Member<'a>> {
        match &self.kind {
            Kind::Object(members) => members.iter().rev().find(|m| same_text(m.key, key)),
            _ => None,
        }
    }

    /// The members, when this is an object.
    pub fn as_object(&self) -> Option<&'a [Member<'a>]> {
        match self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The elements, when this is an array.
    pub fn as_array(&self) -> Option<&'a [Value<'a>]> {
        match self.kind {
            Kind::Array(v) => Some(v),
            _ => None,
        }
    }

    /// The string, when this is a string.
    #[inline]
    pub fn as_str(&self) -> Option<&'a str> {
        match self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, when this is a number.
    pub fn as_number(&self) -> Option<&Number<'a>> {
        match &self.kind {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The boolean, when this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }
}

/// A key that appears more than once in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The duplicated key.
    pub key: String,
    /// Span of the later occurrence's key.
    pub span: Span,
    /// Span of the first occurrence's key.
    pub first: Span,
    /// JSON pointer of the object holding the key.
    pub object_pointer: String,
}

/// A parsed document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document<'a> {
    /// The value.
    pub root: Value<'a>,
    /// Keys that appear twice in one object (within the bounds).
    pub duplicate_keys: Vec<DuplicateKey>,
    /// Duplicate keys found past [`Limits::max_diagnostics`](super::Limits::max_diagnostics) (or past the pointer-text bound),
    /// counted but not recorded.
    pub omitted_duplicate_keys: usize,
}

/// 8 bytes of `bytes` from `at`, little-endian, when there are 8.
#[inline(always)]
pub(super) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}
