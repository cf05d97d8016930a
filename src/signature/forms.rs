//! The byte forms the causes of a refused delivery work with: a body re-serialized the way common
//! serializers write it, a secret read in another encoding, a MAC written in base64. Each is
//! linear in its input and bounded: a re-serialization is given up past [`MAX_VARIANT_GROWTH`]
//! times the body, and a parse keeps to the JSON parser's limits.

/// A UTF-8 byte order mark.
pub(super) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A re-serialization is given up when it grows past this many times the body.
const MAX_VARIANT_GROWTH: usize = 4;

/// The largest re-serialization of `body` tried.
fn cap_for(body: &[u8]) -> usize {
    body.len().saturating_mul(MAX_VARIANT_GROWTH).saturating_add(4096)
}

pub(super) fn replace(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

/// The bytes of a JSON text without the whitespace outside strings (linear, no allocation).
pub(super) fn json_tokens(json: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    json.iter().copied().filter(move |&b| {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            return true;
        }
        if b == b'"' {
            in_string = true;
        }
        !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
    })
}

/// A `Vec` writer that refuses to grow past `cap` bytes.
struct CappedWriter {
    buf: Vec<u8>,
    cap: usize,
}

impl std::io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.cap {
            return Err(std::io::Error::other("variant larger than its bound"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How serde_json writes a parsed body again (its numbers and escapes, the member order kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SerdeForm {
    /// No whitespace.
    Compact,
    /// Pretty, indented with this string.
    Pretty(&'static [u8]),
    /// `", "` and `": "` separators (Python's `json.dumps` default).
    Spaced,
}

/// The body parsed as serde_json reads it (a leading BOM skipped; nesting bounded at 128 levels
/// by serde_json), for [`serde_form`].
pub(super) fn serde_value(body: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice::<serde_json::Value>(body.strip_prefix(BOM).unwrap_or(body)).ok()
}

/// `value` written in `form`, or `None` past the bound of `body`'s variants.
pub(super) fn serde_form(value: &serde_json::Value, body: &[u8], form: SerdeForm) -> Option<Vec<u8>> {
    let mut w = CappedWriter { buf: Vec::new(), cap: cap_for(body) };
    let written = match form {
        SerdeForm::Compact => serde_json::to_writer(&mut w, value),
        SerdeForm::Spaced => spaced_json(value, &mut w),
        SerdeForm::Pretty(indent) => {
            let mut ser = serde_json::Serializer::with_formatter(&mut w, serde_json::ser::PrettyFormatter::with_indent(indent));
            serde::Serialize::serialize(value, &mut ser)
        }
    };
    written.ok().map(|()| w.buf)
}

/// JSON with `", "` and `": "` separators (Python's `json.dumps` default).
fn spaced_json(value: &serde_json::Value, w: &mut CappedWriter) -> Result<(), serde_json::Error> {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut ser = serde_json::Serializer::with_formatter(w, Spaced);
    serde::Serialize::serialize(value, &mut ser)
}

/// What JavaScript's `JSON.stringify(JSON.parse(body))` writes (`sorted`: with every object's keys
/// in `Object.keys(o).sort()` order first, as stable-stringify helpers do): integer-like keys
/// first in numeric order, numbers as JavaScript writes them (`0.0` is `0`, `1e21` is `1e+21`),
/// only `"`, `\` and control characters escaped. `None` when the body is not JSON within the
/// parser's limits, has duplicate keys, or the result outgrows the bound.
pub(super) fn js_form(body: &[u8], sorted: bool) -> Option<Vec<u8>> {
    let arena = crate::json::Arena::for_input(body.len());
    let doc = crate::json::parse(body, &crate::json::Limits::default(), &arena).ok()?;
    if !doc.duplicate_keys.is_empty() || doc.omitted_duplicate_keys > 0 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len());
    js_value(&doc.root, sorted, cap_for(body), &mut out).then_some(out)
}

/// Writes `v`; false once `out` passes `cap`. Recursion is bounded by the parser's depth limit.
fn js_value(v: &crate::json::Value<'_>, sorted: bool, cap: usize, out: &mut Vec<u8>) -> bool {
    use crate::json::Kind;
    match v.kind {
        Kind::Null => out.extend_from_slice(b"null"),
        Kind::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        Kind::Number(n) => js_number(n.value, out),
        Kind::String(s) => js_string(s, out),
        Kind::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if !js_value(item, sorted, cap, out) || out.len() > cap {
                    return false;
                }
            }
            out.push(b']');
        }
        Kind::Object(members) => {
            let mut order: Vec<usize> = (0..members.len()).collect();
            if sorted {
                merge_sort(&mut order, &|a, b| members[a].key.encode_utf16().lt(members[b].key.encode_utf16()));
            } else if members.iter().any(|m| array_index(m.key).is_some()) {
                // Array-index keys first, ascending (ECMA-262 OrdinaryOwnPropertyKeys).
                let rank = |i: usize| array_index(members[i].key).map_or((1, 0), |n| (0, n));
                merge_sort(&mut order, &|a, b| rank(a) < rank(b));
            }
            out.push(b'{');
            for (i, &m) in order.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                js_string(members[m].key, out);
                out.push(b':');
                if !js_value(&members[m].value, sorted, cap, out) || out.len() > cap {
                    return false;
                }
            }
            out.push(b'}');
        }
    }
    out.len() <= cap
}

/// A stable sort of `order` by `less`, bottom-up (O(n log n), one small function for every
/// caller: the module carries no generic sort for it).
fn merge_sort(order: &mut Vec<usize>, less: &dyn Fn(usize, usize) -> bool) {
    let n = order.len();
    let mut other = vec![0; n];
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j) = (start, mid);
            for slot in &mut other[start..end] {
                // Take from the right run only when strictly less: equal keys keep their order.
                if j < end && (i >= mid || less(order[j], order[i])) {
                    *slot = order[j];
                    j += 1;
                } else {
                    *slot = order[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(order, &mut other);
        width *= 2;
    }
}

/// The key as an array index: canonical decimal digits below 2^32 − 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key.starts_with('0')) || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u64>().ok().filter(|&n| n < u64::from(u32::MAX)).map(|n| n as u32)
}

/// A string as `JSON.stringify` writes it.
fn js_string(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            c if c < 0x20 => out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

/// A number as JavaScript's `Number.prototype.toString` writes it (ECMA-262 Number::toString):
/// the shortest digits that read back to it (serde_json's, ryu), laid out by the exponent.
/// Infinity (a JSON number past f64's range) is `null`, as `JSON.stringify` writes it.
pub(super) fn js_number(x: f64, out: &mut Vec<u8>) {
    if !x.is_finite() {
        out.extend_from_slice(b"null");
        return;
    }
    if x == 0.0 {
        out.push(b'0');
        return;
    }
    if x < 0.0 {
        out.push(b'-');
    }
    let text = serde_json::to_string(&x.abs()).unwrap_or_default();
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text.as_str(), 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let mut point = int.len() as i32;
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    point -= lead as i32;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        out.push(b'0');
        return;
    }
    let (k, n) = (digits.len() as i32, point + exp);
    if k <= n && n <= 21 {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.extend_from_slice(&digits[..n as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-n) as usize));
        out.extend_from_slice(&digits);
    } else {
        out.push(digits[0]);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if n - 1 < 0 { b'-' } else { b'+' });
        out.extend_from_slice((n - 1).unsigned_abs().to_string().as_bytes());
    }
}

/// The secret as Node's `Buffer.from(secret, 'hex')` reads it: the bytes of its leading pairs of
/// hex digits, up to the first pair that is not one (none at all for a secret that does not start
/// with hex: the empty key).
pub(super) fn node_hex(secret: &[u8]) -> Vec<u8> {
    secret.chunks_exact(2).map_while(|p| Some((hex_value(p[0])? << 4) | hex_value(p[1])?)).collect()
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The secret as Node's `Buffer.from(secret, 'base64')` reads it, when the secret is written in
/// the base64 alphabet (standard or URL-safe, padding allowed at the end): its bytes, a last
/// group of one character dropped as Node drops it. `None` for any other character.
pub(super) fn node_base64(text: &[u8]) -> Option<Vec<u8>> {
    let data = {
        let end = text.iter().rposition(|&b| b != b'=').map_or(0, |i| i + 1);
        &text[..end]
    };
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in data {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Standard base64 with padding (Node's `digest('base64')`).
pub(super) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}
