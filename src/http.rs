//! HTTP pieces shared by the checkers: case-insensitive headers, and a raw HTTP message as an
//! integrator pastes it (request line or status line, headers, blank line, body).

/// Request headers, looked up case-insensitively. A name may appear several times (Node gives
/// arrays); a signature header sent twice with different values is malformed, never guessed at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    pairs: Vec<(String, String)>,
}

/// What one header lookup found.
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
        let mut found: Option<&str> = None;
        for (n, v) in &self.pairs {
            if n.eq_ignore_ascii_case(name) {
                match found {
                    None => found = Some(v),
                    Some(prev) if prev == v => {}
                    Some(_) => return HeaderValue::Conflicting,
                }
            }
        }
        found.map_or(HeaderValue::Absent, HeaderValue::One)
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
    /// The body bytes exactly as they follow the blank line.
    pub body: Vec<u8>,
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
        || METHODS.iter().any(|m| first.strip_prefix(m).is_some_and(|r| r.starts_with(' ')))
        || (first.contains(':') && !first.starts_with('{') && !first.starts_with('[') && is_token(first.split(':').next().unwrap_or("")))
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Splits a pasted HTTP message. The start line is optional (headers alone are accepted); lines
/// may end in CRLF or LF; header values lose the optional whitespace around them, as HTTP says.
/// The body is every byte after the first empty line, untouched.
pub fn parse_message(input: &[u8]) -> Result<Message, MessageError> {
    let mut msg = Message::default();
    let mut pos = 0;
    let mut line_no = 0;
    loop {
        line_no += 1;
        let end = input[pos..].iter().position(|&b| b == b'\n').map_or(input.len(), |i| pos + i);
        let raw = &input[pos..end];
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let next = (end + 1).min(input.len());
        if line.is_empty() {
            if end < input.len() {
                msg.body = input[next..].to_vec();
            }
            return Ok(msg);
        }
        let text = String::from_utf8_lossy(line);
        let is_start_line = line_no == 1
            && (!text.contains(':') || text.starts_with("HTTP/") || METHODS.iter().any(|m| text.starts_with(&format!("{m} "))));
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
        } else {
            let (name, value) = text.split_once(':').ok_or(MessageError::Header { line: line_no })?;
            if !is_token(name) {
                return Err(MessageError::Header { line: line_no });
            }
            msg.headers.push(name, value.trim_matches([' ', '\t']));
        }
        if end >= input.len() {
            return Ok(msg);
        }
        pos = next;
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
}
