//! HTTP pieces shared by the checkers: case-insensitive headers, and a raw HTTP message as an
//! integrator pastes it (request line or status line, headers, blank line, body).

/// Request headers, looked up case-insensitively. A name may appear several times (Node gives
/// arrays); a signature header sent twice with different values is malformed, never guessed at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    pairs: Vec<(String, String)>,
}

/// What one header lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderValue<'a> {
    Absent,
    One(&'a str),
    Conflicting,
}

impl Headers {
    /// An empty header set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds headers from `(name, value)` pairs; repeated names are kept.
    pub fn from_pairs<N: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (N, V)>) -> Self {
        Self { pairs: pairs.into_iter().map(|(n, v)| (n.into(), v.into())).collect() }
    }

    /// Adds one header.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.pairs.push((name.into(), value.into()));
    }

    /// The `(name, value)` pairs in insertion order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The value of `name` (case-insensitive) when it is present once, or several times with the
    /// same value.
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.lookup(name) {
            HeaderValue::One(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn lookup(&self, name: &str) -> HeaderValue<'_> {
        let values = self.pairs.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name));
        values.fold(HeaderValue::Absent, |found, (_, v)| found.and(v))
    }
}

impl<'a> HeaderValue<'a> {
    /// What a name reads as after one more pair of it: the same value sent again is that value,
    /// a different one makes it conflicting.
    pub(crate) fn and(self, value: &'a str) -> Self {
        match self {
            HeaderValue::Absent => HeaderValue::One(value),
            HeaderValue::One(prev) if prev == value => self,
            _ => HeaderValue::Conflicting,
        }
    }
}

/// A raw HTTP message split into its parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Message {
    /// `POST` for a request, `None` for a response.
    pub method: Option<String>,
    /// The request target (`/v1/order/store-1`), for a request.
    pub path: Option<String>,
    /// The status code, for a response.
    pub status: Option<u16>,
    /// The header lines, in order.
    pub headers: Headers,
    /// The body bytes exactly as they follow the blank line (after undoing a chunked transfer
    /// coding, or cut to `Content-Length` when only trailing whitespace is past it).
    pub body: Vec<u8>,
    /// How the paste was read when it was not a plain HTTP/1.1 message, and what does not add up
    /// (`curl -v` prefixes, HTTP/2 pseudo-headers, a missing blank line, a chunked body,
    /// `Content-Length`): one sentence each, for the person who pasted it.
    pub notes: Vec<String>,
}

/// Why a pasted message could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// The first line is neither a request line nor a status line.
    #[error("line {line}: expected a request line (METHOD /path HTTP/1.1) or a status line (HTTP/1.1 200 OK)")]
    StartLine {
        /// 1-based line.
        line: usize,
    },
    /// A line of the header block is not `Name: value`.
    #[error("line {line}: expected a header \"Name: value\"")]
    Header {
        /// 1-based line.
        line: usize,
    },
}

impl MessageError {
    /// Stable code: `MALFORMED_START_LINE` or `MALFORMED_HEADER`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::StartLine { .. } => "MALFORMED_START_LINE",
            Self::Header { .. } => "MALFORMED_HEADER",
        }
    }
}

const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// Whether `input` starts like an HTTP message (a request line, a status line, or a header).
pub fn looks_like_message(input: &[u8]) -> bool {
    let first = input.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    let first = first.trim_end();
    first.starts_with("HTTP/")
        || ["> ", "< ", "* ", ":method", ":status", ":path"].iter().any(|p| first.starts_with(p))
        || METHODS.iter().any(|m| first.strip_prefix(m).is_some_and(|r| r.starts_with(' ')))
        || (first.contains(':') && !first.starts_with('{') && !first.starts_with('[') && is_token(first.split(':').next().unwrap_or("")))
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Splits a pasted HTTP message. The start line is optional (headers alone are accepted); lines
/// may end in CRLF or LF; header values lose the optional whitespace around them, as HTTP says.
/// The body is every byte after the first empty line, untouched.
///
/// Also read, each with a note in [`Message::notes`]: `curl -v` output (`> ` request lines, `< `
/// response lines, `* ` chatter), HTTP/2 pseudo-headers (`:method`, `:path`, `:status`), headers
/// separated by a tab, a body that starts (with `{` or `[`) without the blank line before it, a
/// body pasted alone, a chunked body (decoded), and a `Content-Length` that disagrees with the body.
pub fn parse_message(input: &[u8]) -> Result<Message, MessageError> {
    let lead = input.iter().position(|b| !b.is_ascii_whitespace()).map(|i| input[i]);
    if matches!(lead, Some(b'{' | b'[')) {
        return Ok(Message {
            body: input.to_vec(),
            notes: vec!["no request line and no headers: the whole input is taken as the body".into()],
            ..Message::default()
        });
    }
    let mut msg = match curl_verbose(input) {
        Some((head, body)) => {
            let mut m = parse_plain(&head)?;
            m.body = body;
            m.notes.insert(
                0,
                "curl -v output: the lines after \"> \" are read as the request (\"< \" as the response when there is no request)".into(),
            );
            m
        }
        None => parse_plain(input)?,
    };
    transfer_coding(&mut msg);
    Ok(msg)
}

/// Splits lines, each with the offset where it starts and its text without the line ending.
fn lines(input: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= input.len() {
            return None;
        }
        let start = pos;
        let end = input[pos..].iter().position(|&b| b == b'\n').map_or(input.len(), |i| pos + i);
        pos = end + 1;
        let raw = &input[start..end];
        Some((start, raw.strip_suffix(b"\r").unwrap_or(raw)))
    })
}

/// `curl -v` output: the head rebuilt from the `> ` lines (or the `< ` lines when there is no
/// request), and the body: the unprefixed lines that follow that head before curl's next line.
fn curl_verbose(input: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let prefixed = |l: &[u8]| l.starts_with(b"> ") || l.starts_with(b"< ") || l.starts_with(b"* ") || l == b">" || l == b"<";
    let first = lines(input).find(|(_, l)| !l.is_empty())?.1;
    if !prefixed(first) {
        return None;
    }
    let side: &[u8] = if lines(input).any(|(_, l)| l.starts_with(b"> ")) { b">" } else { b"<" };
    let mut head = Vec::new();
    let mut body: Option<(usize, usize)> = None;
    let mut head_done = false;
    for (start, l) in lines(input) {
        let is_side = l.starts_with(side) && (l.len() == 1 || l[1] == b' ');
        if !head_done {
            if is_side {
                let text = if l.len() > 2 { &l[2..] } else { &[][..] };
                head.extend_from_slice(text);
                head.extend_from_slice(b"\r\n");
                if text.is_empty() {
                    head_done = true;
                }
            }
            continue;
        }
        let curl_line = prefixed(l) || l.starts_with(b"{ [") || l.starts_with(b"} [");
        match (&mut body, curl_line) {
            (None, true) => {
                if !l.starts_with(b"* ") && !l.starts_with(b"} [") && !l.starts_with(b"{ [") {
                    break;
                }
            }
            (None, false) => body = Some((start, input.len())),
            (Some(b), true) => {
                b.1 = start;
                break;
            }
            (Some(_), false) => {}
        }
    }
    if !head_done {
        head.extend_from_slice(b"\r\n");
    }
    let body = body.map_or_else(Vec::new, |(a, b)| input[a..b].to_vec());
    Some((head, body))
}

/// A plain HTTP/1.x message (or HTTP/2 as browsers' developer tools copy it).
fn parse_plain(input: &[u8]) -> Result<Message, MessageError> {
    let mut msg = Message::default();
    let mut pseudo = false;
    let mut tabs = false;
    let mut line_no = 0;
    for (start, line) in lines(input) {
        line_no += 1;
        if line.is_empty() {
            let end = start + input[start..].iter().position(|&b| b == b'\n').map_or(input.len() - start, |i| i + 1);
            msg.body = input[end..].to_vec();
            break;
        }
        let text = String::from_utf8_lossy(line);
        let is_start_line = line_no == 1
            && !text.starts_with(':')
            && (!text.contains(':') || text.starts_with("HTTP/") || METHODS.iter().any(|m| text.starts_with(&format!("{m} "))))
            && !text.contains('\t');
        if is_start_line {
            let parts: Vec<&str> = text.split_whitespace().collect();
            match parts.as_slice() {
                [v, code, ..] if v.starts_with("HTTP/") => {
                    msg.status = Some(code.parse().map_err(|_| MessageError::StartLine { line: line_no })?);
                }
                [m, target, ..] if METHODS.contains(m) => {
                    msg.method = Some((*m).to_string());
                    msg.path = Some((*target).to_string());
                }
                _ => return Err(MessageError::StartLine { line: line_no }),
            }
            continue;
        }
        // HTTP/2 pseudo-headers, as developer tools copy them: ":method: POST".
        if let Some(rest) = text.strip_prefix(':') {
            let (name, value) = rest.split_once(':').ok_or(MessageError::Header { line: line_no })?;
            let value = value.trim_matches([' ', '\t']);
            match name.to_ascii_lowercase().as_str() {
                "method" => msg.method = Some(value.to_string()),
                "path" => msg.path = Some(value.to_string()),
                "status" => msg.status = Some(value.parse().map_err(|_| MessageError::Header { line: line_no })?),
                "authority" | "scheme" | "protocol" => {}
                _ => return Err(MessageError::Header { line: line_no }),
            }
            pseudo = true;
            continue;
        }
        // "Name<TAB>value", as a table of headers copies.
        if let Some((name, value)) = text.split_once('\t').filter(|(n, _)| is_token(n)) {
            msg.headers.push(name, value.trim_matches([' ', '\t']));
            tabs = true;
            continue;
        }
        match text.split_once(':') {
            Some((name, value)) if is_token(name) => msg.headers.push(name, value.trim_matches([' ', '\t'])),
            _ => {
                // The JSON body right after the headers, without the blank line.
                let trimmed = text.trim_start();
                if line_no > 1 && (trimmed.starts_with('{') || trimmed.starts_with('[')) {
                    msg.body = input[start..].to_vec();
                    msg.notes.push(format!(
                        "no blank line between the headers and the body: the body is taken from line {line_no}, where the JSON starts"
                    ));
                    break;
                }
                return Err(MessageError::Header { line: line_no });
            }
        }
    }
    if pseudo {
        msg.notes.push("HTTP/2 pseudo-headers (:method, :path, :status) read as the request or status line".into());
    }
    if tabs {
        msg.notes.push("headers separated by a tab read as \"Name: value\"".into());
    }
    Ok(msg)
}

/// A chunked body decoded, or the body checked against `Content-Length`.
fn transfer_coding(msg: &mut Message) {
    let chunked =
        msg.headers.pairs().iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        match dechunk(&msg.body) {
            Ok((body, count)) => {
                msg.notes.push(format!(
                    "Transfer-Encoding: chunked: {count} chunk(s) decoded to {} bytes; the signature covers the decoded body",
                    body.len()
                ));
                msg.body = body;
            }
            Err(why) => msg
                .notes
                .push(format!("Transfer-Encoding: chunked, but the body is not valid chunked coding ({why}): it is kept as pasted")),
        }
        return;
    }
    let Some(declared) = msg.headers.get("content-length") else { return };
    let Ok(n) = declared.trim().parse::<usize>() else {
        msg.notes.push(format!("Content-Length is not a number ({})", crate::diagnostic::bounded(declared)));
        return;
    };
    let len = msg.body.len();
    if len > n && msg.body[n..].iter().all(u8::is_ascii_whitespace) {
        msg.notes.push(format!(
            "the body has {} byte(s) of trailing whitespace past Content-Length: {n}: a receiver reads {n} bytes, so they were dropped",
            len - n
        ));
        msg.body.truncate(n);
    } else if len != n {
        let hint = if len < n && msg.body.contains(&b'\n') { " (pasting may have turned CRLF line endings into LF)" } else { "" };
        msg.notes.push(format!("Content-Length says {n} bytes but the body has {len}{hint}: the bytes signed may not be these"));
    }
}

/// Decodes the chunked transfer coding (RFC 9112, section 7.1); LF alone is accepted for CRLF,
/// as a paste may have changed line endings. Returns the body and the number of data chunks.
fn dechunk(input: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::with_capacity(input.len());
    let mut pos = 0;
    let mut count = 0;
    loop {
        let eol = input[pos..].iter().position(|&b| b == b'\n').ok_or("a chunk size line has no end")? + pos;
        let line = input[pos..eol].strip_suffix(b"\r").unwrap_or(&input[pos..eol]);
        let hex = line.split(|&b| b == b';').next().unwrap_or(&[]);
        let hex = std::str::from_utf8(hex).map_err(|_| "a chunk size is not hexadecimal")?.trim();
        if hex.is_empty() || hex.len() > 15 {
            return Err(format!("\"{}\" is not a chunk size", crate::diagnostic::bounded(hex)));
        }
        let size = usize::from_str_radix(hex, 16).map_err(|_| format!("\"{hex}\" is not a chunk size"))?;
        pos = eol + 1;
        if size == 0 {
            return Ok((out, count));
        }
        if input.len() - pos < size {
            return Err(format!("a chunk announces {size} bytes but only {} follow", input.len() - pos));
        }
        out.extend_from_slice(&input[pos..pos + size]);
        count += 1;
        pos += size;
        if input[pos..].starts_with(b"\r\n") {
            pos += 2;
        } else if input[pos..].starts_with(b"\n") {
            pos += 1;
        } else {
            return Err(format!("chunk {count} is not followed by a line end where its size says it ends"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_with_crlf_and_raw_body() {
        let m = parse_message(b"POST /v1/order/s1 HTTP/1.1\r\nX-Service-Timestamp:  17 \r\nHost: x\r\n\r\n{\"a\":\r\n1}\n").unwrap();
        assert_eq!(m.method.as_deref(), Some("POST"));
        assert_eq!(m.path.as_deref(), Some("/v1/order/s1"));
        assert_eq!(m.headers.get("x-service-timestamp"), Some("17"));
        assert_eq!(m.body, b"{\"a\":\r\n1}\n");
    }

    #[test]
    fn response_and_headers_only() {
        let m = parse_message(b"HTTP/1.1 409 Conflict\nContent-Type: application/problem+json\n\n{}").unwrap();
        assert_eq!(m.status, Some(409));
        assert_eq!(m.body, b"{}");
        let h = parse_message(b"X-A: 1\nX-B: 2").unwrap();
        assert_eq!(h.headers.pairs().len(), 2);
        assert!(h.body.is_empty());
        assert_eq!(parse_message(b"POST /x HTTP/1.1\nnot a header\n\n").unwrap_err().code(), "MALFORMED_HEADER");
        assert!(looks_like_message(b"PUT /api/v1/menu HTTP/1.1\n"));
        assert!(!looks_like_message(b"{\"a\": 1}"));
    }

    #[test]
    fn curl_verbose_request_and_response() {
        let m = parse_message(b"*   Trying 127.0.0.1:3000...\n* Connected\n> POST /v1/order/S1 HTTP/1.1\n> Host: localhost:3000\n> X-Service-Timestamp: 17\n> Content-Length: 7\n>\n{\"a\":1}\n< HTTP/1.1 200 OK\n< \n").unwrap();
        assert_eq!(m.method.as_deref(), Some("POST"));
        assert_eq!(m.headers.get("x-service-timestamp"), Some("17"));
        assert_eq!(m.body, b"{\"a\":1}", "body cut at Content-Length (the newline before curl's next line)");
        assert!(m.notes[0].contains("curl -v"));
        let r = parse_message(b"< HTTP/1.1 409 Conflict\r\n< Content-Type: application/problem+json\r\n<\r\n{}").unwrap();
        assert_eq!(r.status, Some(409));
        assert_eq!(r.body, b"{}");
        // A request without a body: the response that follows is not taken as its body.
        let q = parse_message(b"> GET /x HTTP/1.1\n> Host: h\n>\n< HTTP/1.1 200 OK\n<\nhello").unwrap();
        assert_eq!(q.method.as_deref(), Some("GET"));
        assert!(q.body.is_empty());
    }

    #[test]
    fn http2_pseudo_headers_tabs_and_missing_blank_line() {
        let m = parse_message(b":method: PUT\n:path: /v1/order/S1\n:authority: pos.example\nx-service-timestamp: 17\n\n{}").unwrap();
        assert_eq!((m.method.as_deref(), m.path.as_deref()), (Some("PUT"), Some("/v1/order/S1")));
        assert_eq!(m.headers.pairs().len(), 1);
        assert!(m.notes.iter().any(|n| n.contains("pseudo-headers")));
        let r = parse_message(b":status: 202\ncontent-type: application/json\n\n{}").unwrap();
        assert_eq!(r.status, Some(202));
        let t = parse_message(b"POST /x HTTP/1.1\nX-Service-Timestamp\t17\nHost\tpos.example:443\n\n{}").unwrap();
        assert_eq!(t.headers.get("host"), Some("pos.example:443"));
        assert_eq!(t.headers.get("x-service-timestamp"), Some("17"));
        let b = parse_message(b"POST /x HTTP/1.1\nX-A: 1\n{\"a\": 1}\n").unwrap();
        assert_eq!(b.body, b"{\"a\": 1}\n");
        assert!(b.notes[0].contains("line 3"));
        let alone = parse_message(b"  {\"a\": 1}").unwrap();
        assert_eq!(alone.body, b"  {\"a\": 1}");
        assert!(alone.headers.pairs().is_empty());
        assert_eq!(parse_message(b"POST /x HTTP/1.1\nnot a header\n\n").unwrap_err().code(), "MALFORMED_HEADER");
    }

    #[test]
    fn chunked_body_and_content_length() {
        let m = parse_message(b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;ext=1\r\n:1}\r\n0\r\n\r\n").unwrap();
        assert_eq!(m.body, b"{\"a\":1}");
        assert!(m.notes[0].contains("2 chunk(s)"));
        let lf = parse_message(b"POST /x HTTP/1.1\nTransfer-Encoding: chunked\n\n2\nab\n0\n\n").unwrap();
        assert_eq!(lf.body, b"ab");
        let bad = parse_message(b"POST /x HTTP/1.1\nTransfer-Encoding: chunked\n\nff\nab\n0\n").unwrap();
        assert_eq!(bad.body, b"ff\nab\n0\n");
        assert!(bad.notes[0].contains("not valid chunked"));
        let trailing = parse_message(b"POST /x HTTP/1.1\nContent-Length: 2\n\n{}\n").unwrap();
        assert_eq!(trailing.body, b"{}");
        let short = parse_message(b"POST /x HTTP/1.1\nContent-Length: 9\n\n{\n\"a\"\n}").unwrap();
        assert_eq!(short.body.len(), 7);
        assert!(short.notes[0].contains("CRLF"));
        let huge = parse_message(b"POST /x HTTP/1.1\nTransfer-Encoding: chunked\n\nfffffffffffffffffff\nab\n").unwrap();
        assert!(huge.notes[0].contains("not a chunk size"));
    }
}
