//! A JSON parser that keeps the byte span of every value and key, so that every diagnostic can
//! point at a line and column. Strict RFC 8259: no comments, no trailing commas, no NaN.
//!
//! Hostile input is bounded: the nesting depth and the input size are limits with clear errors,
//! duplicate keys are recorded (the last one wins in [`Value::get`], as in `JSON.parse`), and invalid
//! UTF-8 is an error at the exact byte. The parser never panics and never recurses deeper than
//! [`Limits::max_depth`].
//!
//! The tree lives in an [`Arena`] the caller provides: every array's elements, every object's
//! members and every unescaped string are placed there, so that a parse makes a few large
//! allocations instead of one per container, and the tree is freed at once with the arena. Values
//! are `Copy`: a checker holds them by reference or by value alike.
//!
//! ```
//! use poscheck::json::{parse, Arena, Limits};
//! let arena = Arena::new();
//! let doc = parse(br#"{"categories": [{"remoteCode": "C-1"}]}"#, &Limits::default(), &arena).unwrap();
//! let code = doc.root.get("categories").unwrap().as_array().unwrap()[0].get("remoteCode").unwrap();
//! assert_eq!(code.as_str(), Some("C-1"));
//! assert_eq!((code.span.start, code.span.end), (31, 36));
//! ```

use serde::Serialize;
use std::cell::Cell;
use std::collections::hash_map::{Entry, HashMap};

/// The largest input [`Arena::for_input`] sizes its arena for at once.
pub const ARENA_HINT_MAX: usize = 16 * 1024 * 1024;

/// Members of one object searched linearly for a duplicate key before a map takes over.
const LINEAR_DUPLICATE_SEARCH: usize = 16;

/// Where a parse places its tree: arrays' elements, objects' members and unescaped strings. A
/// document borrows the arena it was parsed into; dropping the arena frees the whole tree.
#[derive(Default)]
pub struct Arena(bumpalo::Bump);

impl Arena {
    /// An empty arena; its first parse allocates.
    pub fn new() -> Self {
        Self::default()
    }

    /// An arena with room for the tree of about `input_len` bytes of JSON made of small objects
    /// (the size of the event and menu trees measured against their inputs), so that such a
    /// parse allocates once. Past [`ARENA_HINT_MAX`] bytes of input the room is that of
    /// `ARENA_HINT_MAX`, and the arena grows as the tree needs: the input may be refused unread
    /// (over [`Limits::max_bytes`], not JSON at its first byte), and a hint must not reserve
    /// twice what any caller passes (in wasm32, a failed reservation would trap the module).
    pub fn for_input(input_len: usize) -> Self {
        let room = input_len.min(ARENA_HINT_MAX) * 2;
        // The arena of an earlier parse on this thread, emptied, when it has the room.
        match SPARE_ARENA.try_with(Cell::take) {
            Ok(Some(spare)) if spare.chunk_capacity() >= room => Self(spare),
            _ => Self(bumpalo::Bump::with_capacity(room)),
        }
    }

    /// Bytes the arena holds, used or not.
    pub fn allocated_bytes(&self) -> usize {
        self.0.allocated_bytes()
    }
}

/// Arenas of at most this many bytes are kept for the next parse on their thread, emptied.
const SPARE_ARENA_MAX_BYTES: usize = 64 * 1024;

thread_local! {
    /// An emptied arena for the next [`Arena::for_input`]: a parse of a small document then
    /// allocates nothing for its tree.
    static SPARE_ARENA: Cell<Option<bumpalo::Bump>> = const { Cell::new(None) };
    /// The scratch stacks of the last parse on this thread, empty, for the next one.
    static SPARE_STACKS: Cell<Option<Stacks>> = const { Cell::new(None) };
}

impl Drop for Arena {
    fn drop(&mut self) {
        if self.0.allocated_bytes() <= SPARE_ARENA_MAX_BYTES {
            self.0.reset();
            let arena = std::mem::take(&mut self.0);
            // Past the thread's end there is no spare to keep: the arena is freed.
            let _ = SPARE_ARENA.try_with(|spare| spare.set(Some(arena)));
        }
    }
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena").field("allocated_bytes", &self.allocated_bytes()).finish()
    }
}

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

/// Limits against hostile input. Defaults suit a real menu (tens of MB) with room to spare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of arrays and objects accepted (at most [`MAX_DEPTH`], see [`Limits::clamped`]).
    pub max_depth: usize,
    /// Largest input accepted, in bytes.
    pub max_bytes: usize,
    /// Diagnostics a report built on this parse lists at most (the checkers' `maxDiagnostics`);
    /// the parser records at most this many duplicate keys and counts the others in
    /// [`Document::omitted_duplicate_keys`].
    pub max_diagnostics: usize,
}

/// The deepest nesting any caller may ask for: the parser recurses once per level, and the wasm
/// stack is 1 MiB (a level takes a few hundred bytes, so this leaves most of it to the caller).
pub const MAX_DEPTH: usize = 1000;

/// Text of the JSON pointers of recorded duplicate keys, at most: a long key path repeated for
/// many duplicates cannot make the parse quadratic.
const MAX_DUPLICATE_POINTER_BYTES: usize = 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Self { max_depth: 64, max_bytes: 64 * 1024 * 1024, max_diagnostics: crate::diagnostic::DEFAULT_MAX_DIAGNOSTICS }
    }
}

impl Limits {
    /// The same limits with `max_depth` at most [`MAX_DEPTH`] and at least 1. [`parse`] applies
    /// it, so that no option value can overflow the stack.
    pub fn clamped(self) -> Self {
        Self { max_depth: self.max_depth.clamp(1, MAX_DEPTH), ..self }
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
    /// Duplicate keys found past [`Limits::max_diagnostics`] (or past the pointer-text bound),
    /// counted but not recorded.
    pub omitted_duplicate_keys: usize,
}

/// Why the input is not JSON (or is over a limit), and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// Stable code: `INVALID_JSON`, `INVALID_UTF8`, `TOO_DEEP`, `TOO_LARGE`.
    pub code: &'static str,
    /// What is wrong, for a reader.
    pub message: String,
    /// Byte offset of the problem.
    pub offset: usize,
}

/// Parses `input` as one JSON value, its tree placed in `arena`.
pub fn parse<'a>(input: &'a [u8], limits: &Limits, arena: &'a Arena) -> Result<Document<'a>, ParseError> {
    let limits = &limits.clamped();
    if input.len() > limits.max_bytes {
        return Err(ParseError {
            code: "TOO_LARGE",
            message: format!("the input is {} bytes, over the limit of {} bytes", input.len(), limits.max_bytes),
            offset: limits.max_bytes,
        });
    }
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => {
            return Err(ParseError {
                code: "INVALID_UTF8",
                message: format!("invalid UTF-8 at byte {}: JSON text must be UTF-8", e.valid_up_to()),
                offset: e.valid_up_to(),
            })
        }
    };
    let stacks = SPARE_STACKS.try_with(Cell::take).ok().flatten().unwrap_or_else(|| Stacks {
        items: Vec::with_capacity(16),
        members: Vec::with_capacity(16),
        frames: Vec::with_capacity(16),
    });
    let mut p = Parser {
        text,
        bytes: input,
        arena: &arena.0,
        pos: 0,
        depth: 0,
        max_depth: limits.max_depth,
        duplicates: Vec::new(),
        max_duplicates: limits.max_diagnostics,
        omitted_duplicates: 0,
        duplicate_pointer_bytes: 0,
        last_pointer: None,
        items: stacks.items,
        members: stacks.members,
        frames: stacks.frames,
    };
    // A leading byte order mark is tolerated, as by most parsers; spans stay byte offsets in `input`.
    if input.starts_with(b"\xEF\xBB\xBF") {
        p.pos = 3;
    }
    p.skip_ws();
    let root = p.value()?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error("unexpected content after the JSON value"));
    }
    // The stacks are empty again (every container closed): kept for the next parse, unless a
    // wide or deep document made them large.
    if p.items.capacity() + p.members.capacity() + p.frames.capacity() <= SPARE_STACK_MAX_LEN {
        let stacks = Stacks { items: recycle(p.items), members: recycle(p.members), frames: recycle(p.frames) };
        let _ = SPARE_STACKS.try_with(|spare| spare.set(Some(stacks)));
    }
    Ok(Document { root, duplicate_keys: p.duplicates, omitted_duplicate_keys: p.omitted_duplicates })
}

/// Elements of the scratch stacks kept for the next parse on a thread, at most.
const SPARE_STACK_MAX_LEN: usize = 1024;

/// A parser's scratch stacks, empty, between parses.
struct Stacks {
    items: Vec<Value<'static>>,
    members: Vec<Member<'static>>,
    frames: Vec<Frame<'static>>,
}

/// `v` emptied, as a vector of `U` in the same allocation when `U` is laid out as `T` is (a value
/// of a parse's lifetime and the same of `'static`: the standard library collects in place).
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// The first span of `name` in an object's index of first occurrences, or `None` after adding it.
/// Out of the parse loop, as [`index_of`]: the map's code runs for wide objects only, and a
/// delivery's parse keeps its loop small (issue 30: the machine code a delivery runs through).
#[inline(never)]
fn first_in_index<'a>(index: &mut HashMap<&'a str, Span>, name: &'a str, span: Span) -> Option<Span> {
    match index.entry(name) {
        Entry::Occupied(e) => Some(*e.get()),
        Entry::Vacant(e) => {
            e.insert(span);
            None
        }
    }
}

/// The index of first occurrences of an object's members so far.
#[cold]
#[inline(never)]
#[allow(clippy::box_collection)] // boxed as the frame keeps it (see Frame::Object)
fn index_of<'a>(members: &[Member<'a>]) -> Box<HashMap<&'a str, Span>> {
    let mut map = HashMap::with_capacity(2 * LINEAR_DUPLICATE_SEARCH);
    for m in members {
        map.entry(m.key).or_insert(m.key_span);
    }
    Box::new(map)
}

/// An array or object being parsed.
enum Frame<'a> {
    Array {
        start: usize,
        base: usize,
    },
    /// `key`: the name of the member whose value is being parsed.
    Object {
        start: usize,
        base: usize,
        // Boxed: most objects never need it, and the frames stay small.
        #[allow(clippy::box_collection)]
        index: Option<Box<HashMap<&'a str, Span>>>,
        key: Option<(&'a str, Span)>,
    },
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    arena: &'a bumpalo::Bump,
    pos: usize,
    depth: usize,
    max_depth: usize,
    duplicates: Vec<DuplicateKey>,
    max_duplicates: usize,
    omitted_duplicates: usize,
    duplicate_pointer_bytes: usize,
    /// The pointer of the object that held the last recorded duplicate (by its start offset):
    /// several duplicates in one object render its pointer once.
    last_pointer: Option<(usize, String)>,
    /// Scratch stacks of the elements of the arrays and objects being parsed: each container is
    /// copied into the arena, at its exact size, when it closes.
    items: Vec<Value<'a>>,
    members: Vec<Member<'a>>,
    /// The frames of the open containers, lent to [`Parser::value`] while it parses.
    frames: Vec<Frame<'a>>,
}

/// 8 bytes of `bytes` from `at`, little-endian, when there are 8.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// The bytes of `w` that end or escape a string (`"`, `\` or a control character), flagged by
/// their high bit; the lowest flag is exact (a borrow only flags bytes above a flagged one), so
/// its position is that of the first such byte.
#[inline(always)]
fn string_specials(w: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(LO) & !x & HI;
    // Bytes below 0x20 (bytes >= 0x80 have the high bit set and are excluded by `!w`).
    let control = w.wrapping_sub(LO * 0x20) & !w & HI;
    zero_byte(w ^ (LO * b'"' as u64)) | zero_byte(w ^ (LO * b'\\' as u64)) | control
}

/// The bytes of `w` that are neither a space nor a line feed, flagged by their high bit. Exact
/// for every byte (no borrow crosses bytes: `(x & 0x7F) + 0x7F` stays within its byte), so the
/// lowest flag is the first such byte.
#[inline(always)]
fn not_space_or_line_feed(w: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HI: u64 = 0x8080_8080_8080_8080;
    let non_zero = |x: u64| ((x & LOW7).wrapping_add(LOW7) | x) & HI;
    non_zero(w ^ 0x2020_2020_2020_2020) & non_zero(w ^ 0x0A0A_0A0A_0A0A_0A0A)
}

/// The value of a number already checked against the grammar, when it is a plain decimal
/// (`-?digits(.digits)?`, no exponent, 19 characters at most after the sign) whose digits make an
/// integer m ≤ 2^53: m and 10^(digits after the point) are then exact f64s, so their quotient,
/// rounded once, is the correctly rounded value, bit for bit what `str::parse` gives (Clinger's
/// fast path, the one `str::parse` takes first). `None` otherwise.
#[inline]
fn simple_decimal(raw: &[u8]) -> Option<f64> {
    let (negative, digits) = match raw.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, raw),
    };
    // At most 19 digits: the integer they make fits in u64.
    if digits.len() > 19 {
        return None;
    }
    let mut m: u64 = 0;
    let mut fraction = 0;
    for (i, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => m = m * 10 + u64::from(b - b'0'),
            b'.' => fraction = digits.len() - i - 1,
            _ => return None,
        }
    }
    if m > 1 << 53 {
        return None;
    }
    // 10^fraction, exact: fraction < 19, and f64 holds every power of ten up to 10^22.
    let mut power = 1.0;
    for _ in 0..fraction {
        power *= 10.0;
    }
    let v = m as f64 / power;
    Some(if negative { -v } else { v })
}

/// A number the fast path does not read (exponents, long or large digits): the standard library's
/// parse, out of line.
#[inline(never)]
fn any_decimal(raw: &str) -> f64 {
    raw.parse::<f64>().unwrap_or(f64::NAN)
}

impl<'a> Parser<'a> {
    #[cold]
    #[inline(never)]
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError { code: "INVALID_JSON", message: message.into(), offset: self.pos }
    }

    /// `expected …, found …`: the error of an unexpected byte, described (cold, out of line, so
    /// that the parse loop carries one call per error site, not a formatting each).
    #[cold]
    #[inline(never)]
    fn unexpected(&self, expected: &str) -> ParseError {
        self.error(format!("{expected}, found {}", self.describe_here()))
    }

    fn describe_here(&self) -> String {
        match self.text[self.pos..].chars().next() {
            None => "the end of the input".to_string(),
            Some(c) if c.is_control() || c.is_whitespace() => format!("{:?}", c),
            Some(c) => format!("'{c}'"),
        }
    }

    /// Skips whitespace: one test where there is none (compact JSON), the loop out of line.
    #[inline(always)]
    fn skip_ws(&mut self) {
        if matches!(self.bytes.get(self.pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.skip_ws_run();
        }
    }

    #[inline(never)]
    fn skip_ws_run(&mut self) {
        // Pretty-printed JSON: a line break, then a run of spaces. Skip 8 bytes at a time to the
        // first byte that is neither a space nor a line feed; a `\r` or `\t` there goes on
        // byte by byte, as does the end of the input.
        while let Some(w) = word_at(self.bytes, self.pos) {
            let others = not_space_or_line_feed(w);
            if others == 0 {
                self.pos += 8;
                continue;
            }
            self.pos += (others.trailing_zeros() / 8) as usize;
            if !matches!(self.bytes.get(self.pos), Some(b'\r' | b'\t')) {
                return;
            }
            self.pos += 1;
        }
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Parses one value. Iterative: nested arrays and objects are frames of an explicit stack, so
    /// the call depth does not grow with the nesting (only [`Limits::max_depth`] bounds it).
    fn value(&mut self) -> Result<Value<'a>, ParseError> {
        let mut stack = std::mem::take(&mut self.frames);
        'value: loop {
            // A value starts here: a scalar completes at once; a non-empty container opens a frame.
            let start = self.pos;
            let mut done = match self.bytes.get(self.pos) {
                None => return Err(self.error("unexpected end of input: expected a JSON value")),
                Some(b'{') => {
                    self.enter()?;
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b'}') {
                        self.pos += 1;
                        self.depth -= 1;
                        Value { kind: Kind::Object(&[]), span: Span::new(start, self.pos) }
                    } else {
                        let key = self.member_name()?;
                        stack.push(Frame::Object { start, base: self.members.len(), index: None, key: Some(key) });
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.enter()?;
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b']') {
                        self.pos += 1;
                        self.depth -= 1;
                        Value { kind: Kind::Array(&[]), span: Span::new(start, self.pos) }
                    } else {
                        stack.push(Frame::Array { start, base: self.items.len() });
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    let s = self.string()?;
                    Value { kind: Kind::String(s), span: Span::new(start, self.pos) }
                }
                Some(b't') => Value { kind: self.literal("true", Kind::Bool(true))?, span: Span::new(start, self.pos) },
                Some(b'f') => Value { kind: self.literal("false", Kind::Bool(false))?, span: Span::new(start, self.pos) },
                Some(b'n') => Value { kind: self.literal("null", Kind::Null)?, span: Span::new(start, self.pos) },
                Some(b'-' | b'0'..=b'9') => {
                    let n = self.number()?;
                    Value { kind: Kind::Number(n), span: Span::new(start, self.pos) }
                }
                Some(_) => return Err(self.unexpected("expected a JSON value")),
            };
            // A value is complete: hand it to the open containers, closing those that end here.
            loop {
                match stack.last_mut() {
                    None => {
                        self.frames = stack;
                        return Ok(done);
                    }
                    Some(Frame::Array { start, base }) => {
                        let (start, base) = (*start, *base);
                        self.items.push(done);
                        self.skip_ws();
                        match self.bytes.get(self.pos) {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                if self.bytes.get(self.pos) == Some(&b']') {
                                    return Err(self.error("trailing comma before ']': remove it"));
                                }
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                self.depth -= 1;
                                let items: &'a [Value<'a>] = self.arena.alloc_slice_copy(&self.items[base..]);
                                self.items.truncate(base);
                                done = Value { kind: Kind::Array(items), span: Span::new(start, self.pos) };
                                stack.pop();
                            }
                            _ => return Err(self.unexpected("expected ',' or ']' after an array element")),
                        }
                    }
                    Some(Frame::Object { start, base, index, key }) => {
                        let (start, base) = (*start, *base);
                        let (name, key_span) = key.take().expect("an object frame holds the key of the value being parsed");
                        // Duplicate detection: linear for small objects, which menus are made of; a
                        // map of the first occurrences once an object grows, so a hostile object
                        // stays linear.
                        let first = match index {
                            Some(index) => first_in_index(index, name, key_span),
                            None => self.members[base..].iter().find(|m| same_text(m.key, name)).map(|m| m.key_span),
                        };
                        let wants_index = index.is_none() && self.members.len() + 1 - base > LINEAR_DUPLICATE_SEARCH;
                        if let Some(first) = first {
                            // The frames below this object's say where it is.
                            self.record_duplicate(&stack[..stack.len() - 1], start, name, key_span, first);
                        }
                        self.members.push(Member { key: name, key_span, value: done });
                        if wants_index {
                            let map = index_of(&self.members[base..]);
                            if let Some(Frame::Object { index, .. }) = stack.last_mut() {
                                *index = Some(map);
                            }
                        }
                        self.skip_ws();
                        match self.bytes.get(self.pos) {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                let next = self.member_name()?;
                                if let Some(Frame::Object { key, .. }) = stack.last_mut() {
                                    *key = Some(next);
                                }
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                self.depth -= 1;
                                let members: &'a [Member<'a>] = self.arena.alloc_slice_copy(&self.members[base..]);
                                self.members.truncate(base);
                                done = Value { kind: Kind::Object(members), span: Span::new(start, self.pos) };
                                stack.pop();
                            }
                            _ => return Err(self.unexpected("expected ',' or '}' after an object member")),
                        }
                    }
                }
            }
        }
    }

    /// A member name, the `:` after it and the whitespace before its value. Out of line: one copy
    /// of [`string`](Self::string)'s scan for the names instead of two (3 KB less machine code).
    #[inline(never)]
    fn member_name(&mut self) -> Result<(&'a str, Span), ParseError> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(if self.bytes.get(self.pos) == Some(&b'}') {
                self.error("trailing comma before '}': remove it")
            } else {
                self.unexpected("expected a member name in double quotes")
            });
        }
        let key_start = self.pos;
        let key = self.string()?;
        let key_span = Span::new(key_start, self.pos);
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.unexpected("expected ':' after the member name"));
        }
        self.pos += 1;
        // `"name": value`: one space, most often, skipped here without a call.
        if self.bytes.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
        self.skip_ws();
        Ok((key, key_span))
    }

    fn literal(&mut self, word: &'static str, kind: Kind<'a>) -> Result<Kind<'a>, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.unexpected("expected a JSON value"))
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> ParseError {
        ParseError { code: "TOO_DEEP", message: format!("nesting deeper than {} levels", self.max_depth), offset: self.pos }
    }

    /// Records a duplicate key of the object starting at `object_start`, within the bounds;
    /// `parents` are the frames of the containers around that object.
    #[cold]
    #[inline(never)]
    fn record_duplicate(&mut self, parents: &[Frame<'a>], object_start: usize, key: &str, span: Span, first: Span) {
        if self.duplicates.len() >= self.max_duplicates || self.duplicate_pointer_bytes >= MAX_DUPLICATE_POINTER_BYTES {
            self.omitted_duplicates += 1;
            return;
        }
        let object_pointer = match &self.last_pointer {
            Some((at, p)) if *at == object_start => p.clone(),
            _ => {
                let p = self.pointer(parents);
                self.last_pointer = Some((object_start, p.clone()));
                p
            }
        };
        self.duplicate_pointer_bytes += object_pointer.len() + key.len();
        self.duplicates.push(DuplicateKey { key: key.to_string(), span, first, object_pointer });
    }

    /// The JSON pointer of the value being parsed inside the containers of `frames` (outermost
    /// first): an object's segment is the key of the member being parsed; an array's is the index
    /// of the element being parsed, the number of its elements done so far. Those sit on the
    /// `items` stack from the array's base up to the base of the next array inside it (or to the
    /// top), so the indices are found innermost first, in one pass: linear in the depth.
    fn pointer(&self, frames: &[Frame<'a>]) -> String {
        let mut indices = vec![0; frames.len()];
        let mut end = self.items.len();
        for (i, frame) in frames.iter().enumerate().rev() {
            if let Frame::Array { base, .. } = frame {
                indices[i] = end - base;
                end = *base;
            }
        }
        let mut s = String::new();
        for (frame, index) in frames.iter().zip(indices) {
            s.push('/');
            match frame {
                Frame::Object { key: Some((k, _)), .. } => s.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Frame::Object { key: None, .. } => {}
                Frame::Array { .. } => s.push_str(&index.to_string()),
            }
        }
        s
    }

    #[inline(always)]
    fn string(&mut self) -> Result<&'a str, ParseError> {
        // self.bytes[self.pos] == b'"'
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes. Skip 8 plain bytes at a time to the first special byte; byte by
        // byte only at the end of the input.
        while let Some(w) = word_at(self.bytes, self.pos) {
            let specials = string_specials(w);
            if specials != 0 {
                // Straight to the first special byte, which the loop below reads first.
                self.pos += (specials.trailing_zeros() / 8) as usize;
                break;
            }
            self.pos += 8;
        }
        loop {
            match self.bytes.get(self.pos) {
                None => return Err(self.error("unterminated string: expected '\"'")),
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(s);
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => return Err(self.error("control character in a string: escape it (\\n, \\t, \\u00XX)")),
                Some(_) => self.pos += 1,
            }
        }
        self.escaped_string(start)
    }

    /// The rest of a string from its first escape at `self.pos` (`start`: after its quote).
    #[inline(never)]
    fn escaped_string(&mut self, start: usize) -> Result<&'a str, ParseError> {
        let mut out = String::from(&self.text[start..self.pos]);
        loop {
            match self.bytes.get(self.pos) {
                None => return Err(self.error("unterminated string: expected '\"'")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(self.arena.alloc_str(&out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = match self.bytes.get(self.pos) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let c = self.unicode_escape()?;
                            out.push(c);
                            continue;
                        }
                        _ => return Err(self.error("invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")),
                    };
                    out.push(c);
                    self.pos += 1;
                }
                Some(&b) if b < 0x20 => return Err(self.error("control character in a string: escape it (\\n, \\t, \\u00XX)")),
                Some(_) => {
                    // Copy a run of plain characters at once.
                    let run_start = self.pos;
                    while let Some(&b) = self.bytes.get(self.pos) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        self.pos += 1;
                    }
                    out.push_str(&self.text[run_start..self.pos]);
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or_else(|| self.error("incomplete \\u escape: expected 4 hex digits"))?;
        let mut v = 0u32;
        for &d in digits {
            let h = (d as char).to_digit(16).ok_or_else(|| self.error("invalid \\u escape: expected 4 hex digits"))?;
            v = v * 16 + h;
        }
        self.pos += 4;
        Ok(v)
    }

    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let at = self.pos;
        let hi = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&hi) {
            if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                return Err(ParseError { code: "INVALID_JSON", message: "lone high surrogate in a \\u escape".into(), offset: at });
            }
            self.pos += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(ParseError { code: "INVALID_JSON", message: "invalid low surrogate in a \\u escape".into(), offset: at });
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else if (0xDC00..0xE000).contains(&hi) {
            return Err(ParseError { code: "INVALID_JSON", message: "lone low surrogate in a \\u escape".into(), offset: at });
        } else {
            hi
        };
        char::from_u32(code).ok_or_else(|| ParseError { code: "INVALID_JSON", message: "invalid \\u escape".into(), offset: at })
    }

    fn number(&mut self) -> Result<Number<'a>, ParseError> {
        let start = self.pos;
        let mut is_integer = true;
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => {
                self.pos += 1;
                if matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                    return Err(self.error("leading zeros are not allowed in JSON numbers"));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("invalid number: expected a digit")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            is_integer = false;
            self.pos += 1;
            if !matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: expected a digit after '.'"));
            }
            self.digits();
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            is_integer = false;
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: expected a digit in the exponent"));
            }
            self.digits();
        }
        let raw = &self.text[start..self.pos];
        // Grammar checked above, so the parse cannot fail; an overflow gives ±inf.
        let value = match simple_decimal(raw.as_bytes()) {
            Some(v) => v,
            None => any_decimal(raw),
        };
        Ok(Number { raw, value, is_integer })
    }

    #[inline(always)]
    fn digits(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }
}

/// Serializes integers so that every consumer can read them: as an integer while it is a safe
/// integer for JavaScript (|n| ≤ 2^53 − 1), as the nearest double beyond. Used on result fields
/// that echo a number from the input (a timestamp header, a `Retry-After`), which may be huge.
pub(crate) mod js_safe {
    use serde::Serializer;

    const MAX_SAFE: i128 = (1 << 53) - 1;

    fn int<S: Serializer>(v: i128, s: S) -> Result<S::Ok, S::Error> {
        if (-MAX_SAFE..=MAX_SAFE).contains(&v) {
            s.serialize_i64(v as i64)
        } else {
            s.serialize_f64(v as f64)
        }
    }

    pub fn u64<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        int(i128::from(*v), s)
    }

    pub fn option_u64<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => int(i128::from(*v), s),
            None => s.serialize_none(),
        }
    }

    pub fn option_i64<S: Serializer>(v: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => int(i128::from(*v), s),
            None => s.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(input: &str) -> ParseError {
        let arena = Arena::new();
        parse(input.as_bytes(), &Limits::default(), &arena).unwrap_err()
    }

    #[test]
    fn spans_and_values() {
        let arena = Arena::new();
        let input = br#" {"a": [1, -2.5e3, true, null, "x\u00e9\ud83d\ude00"]} "#;
        let doc = parse(input, &Limits::default(), &arena).unwrap();
        assert_eq!(doc.root.span, Span::new(1, input.len() - 1));
        let a = doc.root.get("a").unwrap().as_array().unwrap();
        assert_eq!(a[0].as_number().unwrap().as_i64(), Some(1));
        assert!(!a[1].as_number().unwrap().is_integer);
        assert_eq!(a[1].as_number().unwrap().value, -2500.0);
        assert_eq!(a[4].as_str(), Some("xé😀"));
        assert_eq!(doc.root.member("a").unwrap().key_span, Span::new(2, 5));
    }

    #[test]
    fn syntax_errors_at_the_right_offset() {
        assert_eq!(err("{\"a\":1,}").offset, 7);
        assert_eq!(err("[1,]").offset, 3);
        assert_eq!(err("{\"a\" 1}").offset, 5);
        assert_eq!(err("[01]").offset, 2);
        assert_eq!(err("\"abc").offset, 4);
        assert_eq!(err("[1] x").offset, 4);
        assert_eq!(err("").offset, 0);
        assert_eq!(err("{'a':1}").offset, 1);
        assert_eq!(err("\"\\ud800\"").code, "INVALID_JSON");
        assert_eq!(err("\"a\tb\"").offset, 2);
    }

    #[test]
    fn invalid_utf8_is_located() {
        let arena = Arena::new();
        let e = parse(b"{\"a\": \"\xff\"}", &Limits::default(), &arena).unwrap_err();
        assert_eq!((e.code, e.offset), ("INVALID_UTF8", 7));
    }

    #[test]
    fn depth_and_size_limits() {
        let arena = Arena::new();
        let deep = "[".repeat(100_000);
        let e = err(&deep);
        assert_eq!(e.code, "TOO_DEEP");
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse(ok.as_bytes(), &Limits::default(), &arena).is_ok());
        let e = parse(b"[1, 2]", &Limits { max_bytes: 3, ..Limits::default() }, &arena).unwrap_err();
        assert_eq!(e.code, "TOO_LARGE");
    }

    #[test]
    fn same_text_answers_as_equality_does() {
        // Every length around the 8-byte words, a difference at every position, multi-byte text.
        for len in 0..20 {
            let a: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(same_text(&a, &a.clone()));
            assert!(!same_text(&a, &format!("{a}x")) && !same_text(&format!("x{a}"), &a));
            for at in 0..len {
                let mut b = a.clone().into_bytes();
                b[at] = b'_';
                let b = String::from_utf8(b).unwrap();
                assert!(!same_text(&a, &b) && !same_text(&b, &a), "{a} {b}");
            }
        }
        assert!(same_text("précio 🌶️", "précio 🌶️") && !same_text("précio 🌶️", "précia 🌶️"));
    }

    #[test]
    fn duplicate_keys_are_recorded_and_last_wins() {
        let arena = Arena::new();
        let doc = parse(br#"{"x": {"a": 1, "b": 2, "a": 3}}"#, &Limits::default(), &arena).unwrap();
        assert_eq!(doc.duplicate_keys.len(), 1);
        assert_eq!(doc.duplicate_keys[0].object_pointer, "/x");
        assert_eq!(doc.duplicate_keys[0].first, Span::new(7, 10));
        assert_eq!(doc.duplicate_keys[0].span, Span::new(23, 26));
        assert_eq!(doc.root.get("x").unwrap().get("a").unwrap().as_number().unwrap().value, 3.0);
    }

    #[test]
    fn duplicate_keys_point_at_their_object_through_arrays_and_escaped_keys() {
        let arena = Arena::new();
        // Arrays inside arrays inside objects, elements before and after, and a key needing
        // RFC 6901 escapes: the pointer is rebuilt from the open containers when a duplicate is met.
        let text = br#"{"a": [1, {"b": [[0, 9], [7, {"k": 1, "k": 2}], 3]}], "c/~": [{"z": 0}, {"z": 0, "z": 1}], "e": {"z": 1, "z": 2}}"#;
        let doc = parse(text, &Limits::default(), &arena).unwrap();
        let pointers: Vec<&str> = doc.duplicate_keys.iter().map(|d| d.object_pointer.as_str()).collect();
        assert_eq!(pointers, ["/a/1/b/1/1", "/c~1~0/1", "/e"]);
        // The same document once more at the top of an array: every pointer gains its index.
        let text = [b"[null, ".as_slice(), text, b"]"].concat();
        let doc = parse(&text, &Limits::default(), &arena).unwrap();
        let pointers: Vec<&str> = doc.duplicate_keys.iter().map(|d| d.object_pointer.as_str()).collect();
        assert_eq!(pointers, ["/1/a/1/b/1/1", "/1/c~1~0/1", "/1/e"]);
    }

    #[test]
    fn strings_are_scanned_in_chunks_without_missing_a_special_byte() {
        let arena = Arena::new();
        for len in 0..20 {
            for at in 0..=len {
                let (head, tail) = ("a".repeat(at), "b".repeat(len - at));
                // A raw control character is refused exactly where it is.
                assert_eq!(err(&format!("\"{head}\t{tail}\"")).offset, 1 + at);
                // An escape or a quote is seen wherever it falls in an 8-byte word.
                let text = format!("[\"{head}\\n{tail}\", \"{head}\"]");
                let doc = parse(text.as_bytes(), &Limits::default(), &arena).unwrap();
                let items = doc.root.as_array().unwrap();
                assert_eq!(items[0].as_str().unwrap(), format!("{head}\n{tail}"));
                assert_eq!(items[1].as_str().unwrap(), head);
                assert_eq!(items[1].span, Span::new(len + 7, len + 7 + at + 2));
            }
        }
        let accents = "é😀ü".repeat(9);
        let text = format!("\"{accents}\"");
        let doc = parse(text.as_bytes(), &Limits::default(), &arena).unwrap();
        assert_eq!(doc.root.as_str(), Some(accents.as_str()));
    }

    #[test]
    fn nested_containers_keep_their_own_elements() {
        let arena = Arena::new();
        let doc = parse(br#"{"a": [1, [2, 3], {"b": [], "c": {"d": 4}}], "e": {}, "f": [[], [5]]}"#, &Limits::default(), &arena).unwrap();
        let a = doc.root.get("a").unwrap().as_array().unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a[1].as_array().unwrap().len(), 2);
        assert_eq!(a[2].get("c").unwrap().get("d").unwrap().as_number().unwrap().value, 4.0);
        assert_eq!(doc.root.as_object().unwrap().len(), 3);
        assert_eq!(doc.root.get("f").unwrap().as_array().unwrap()[1].as_array().unwrap().len(), 1);
        let dup = parse(br#"[{"k": 1}, {"k": 2, "x": {"k": 3}}, {"k": 4, "k": 5}]"#, &Limits::default(), &arena).unwrap();
        assert_eq!(dup.duplicate_keys.len(), 1);
        assert_eq!(dup.duplicate_keys[0].object_pointer, "/2");
    }

    #[test]
    fn duplicates_in_wide_objects_point_at_the_first_occurrence() {
        let arena = Arena::new();
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{}\": {i}, ", i % 30));
        }
        text.push_str("\"end\": 0}");
        let doc = parse(text.as_bytes(), &Limits::default(), &arena).unwrap();
        assert_eq!(doc.duplicate_keys.len(), 10);
        for d in &doc.duplicate_keys {
            let first = &text[d.first.start..d.first.end];
            assert_eq!(first, format!("\"{}\"", d.key));
            assert_eq!(text.find(first), Some(d.first.start), "{}", d.key);
        }
        // Linear time: a very wide object parses quickly even in a debug build.
        let wide: String = (0..200_000).map(|i| format!("\"k{i}\": 1,")).collect();
        let start = std::time::Instant::now();
        assert!(parse(format!("{{{wide}\"k0\": 2}}").as_bytes(), &Limits::default(), &arena).unwrap().duplicate_keys.len() == 1);
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn an_arena_sized_for_a_huge_input_reserves_a_bounded_room() {
        // Sized for any length without a failed reservation; the room is the hint's at most.
        for len in [0, 258, ARENA_HINT_MAX, ARENA_HINT_MAX + 1, usize::MAX / 2, usize::MAX] {
            let arena = Arena::for_input(len);
            assert!(arena.allocated_bytes() <= 2 * ARENA_HINT_MAX + 4096, "{len}: {}", arena.allocated_bytes());
        }
        // A tree larger than the room still parses: the arena grows.
        let big: String = format!("[{}0]", "{\"k\": 1}, ".repeat(100_000));
        let arena = Arena::for_input(16);
        let doc = parse(big.as_bytes(), &Limits::default(), &arena).unwrap();
        assert_eq!(doc.root.as_array().unwrap().len(), 100_001);
    }

    /// The numbers a parse reads: the fast path's when it takes one, `str::parse`'s otherwise.
    fn parsed_number(text: &str) -> f64 {
        let arena = Arena::new();
        parse(text.as_bytes(), &Limits::default(), &arena).unwrap().root.as_number().unwrap().value
    }

    #[test]
    fn simple_decimals_read_bit_for_bit_as_str_parse_does() {
        let same = |text: &str| {
            let expected = text.parse::<f64>().unwrap();
            assert_eq!(parsed_number(text).to_bits(), expected.to_bits(), "{text}");
            if let Some(v) = simple_decimal(text.as_bytes()) {
                assert_eq!(v.to_bits(), expected.to_bits(), "{text}");
            }
        };
        let edges = [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "0.1",
            "0.2",
            "0.3",
            "0.30000000000000004",
            "-0.30000000000000004",
            "1",
            "-1",
            "23.5",
            "0.72",
            "3.78",
            "21.0",
            "9007199254740991",
            "9007199254740992",
            "9007199254740993",
            "-9007199254740993",
            "9007199254740992.0",
            "900719925474099.3",
            "0.9007199254740993",
            "1234567890123456789",
            "9999999999999999999",
            "0.000000000000000001",
            "0.0000000000000000001",
            "0.00000000000000000000001",
            "0.1234567890123456789",
            "1.7976931348623157",
            "123456789012345678.9",
            "4.35",
            "1.005",
            "2.675",
            "0.1e1",
            "1e22",
            "1E-7",
            "-2.5e3",
            "5e-324",
            "1e400",
            "-1e400",
            "100000000000000000000000",
        ];
        for text in edges {
            same(text);
        }
        // The fast path answers for the plain decimals it is meant for.
        for text in ["0", "-0", "0.1", "23.5", "9007199254740992", "0.3000000000000004", "0.00000000000000001"] {
            assert!(simple_decimal(text.as_bytes()).is_some(), "{text}");
        }
        for text in ["9007199254740993", "1e2", "0.0000000000000000001", "12345678901234567890"] {
            assert!(simple_decimal(text.as_bytes()).is_none(), "{text}");
        }
        assert_eq!(simple_decimal(b"-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
        // Generated decimals of every width around the bounds (19 characters, 2^53, 22 digits).
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut fast = 0;
        for _ in 0..200_000 {
            let r = next();
            let int_len = 1 + (r % 20) as usize;
            let frac_len = ((r >> 8) % 24) as usize;
            let mut text = String::new();
            if r >> 20 & 1 == 1 {
                text.push('-');
            }
            let mut digit = |first: bool| {
                let d = (next() % 10) as u8;
                char::from(b'0' + if first && int_len > 1 && d == 0 { 1 } else { d })
            };
            for i in 0..int_len {
                text.push(digit(i == 0));
            }
            if frac_len > 0 {
                text.push('.');
                for _ in 0..frac_len {
                    text.push(digit(false));
                }
            }
            same(&text);
            fast += usize::from(simple_decimal(text.as_bytes()).is_some());
        }
        assert!(fast > 20_000, "{fast}");
    }

    #[test]
    fn bom_is_tolerated() {
        let arena = Arena::new();
        assert!(parse(b"\xEF\xBB\xBF{}", &Limits::default(), &arena).is_ok());
    }
}
