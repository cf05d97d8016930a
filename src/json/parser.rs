//! The parser: strict RFC 8259, iterative (an explicit stack of frames), bounded by [`Limits`].

use super::arena::Arena;
use super::limits::Limits;
use super::tree::{same_text, word_at, Document, DuplicateKey, Kind, Member, Number, Span, Value};
use std::cell::Cell;
use std::collections::hash_map::{Entry, HashMap};

/// Members of one object searched linearly for a duplicate key before a map takes over.
const LINEAR_DUPLICATE_SEARCH: usize = 16;

/// Text of the JSON pointers of recorded duplicate keys, at most: a long key path repeated for
/// many duplicates cannot make the parse quadratic.
const MAX_DUPLICATE_POINTER_BYTES: usize = 1024 * 1024;

thread_local! {
    /// The scratch stacks of the last parse on this thread, empty, for the next one.
    static SPARE_STACKS: Cell<Option<Stacks>> = const { Cell::new(None) };
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
pub(super) fn simple_decimal(raw: &[u8]) -> Option<f64> {
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
