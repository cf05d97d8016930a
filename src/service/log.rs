//! The log of REST calls a face keeps: every request the model answered, with the answer it got,
//! the oldest dropped first past [`MAX_LOGGED_CALLS`] entries or [`MAX_LOGGED_BYTES`] of bodies
//! and answers.
//!
//! It lives beside the model, in the module's linear memory, rather than as objects of the face's
//! garbage-collected heap: the sandbox's face spent about 20 µs of CPU an answer under load
//! keeping 10,000 JS entries alive (the order list: 50.8 µs an answer with them, 30.4 without;
//! each answer's string survived two young-generation collections before it was dropped).

use super::{Answer, Request};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

/// Entries kept at most (the oldest go first).
pub const MAX_LOGGED_CALLS: usize = 10_000;
/// Bytes of bodies and answers kept at most (the oldest entries go first).
pub const MAX_LOGGED_BYTES: usize = 64 << 20;
/// A body or an answer above this is kept cut to it (the entry says so).
pub const MAX_LOGGED_BODY: usize = 1 << 20;

/// Bytes of one generation of the log's storage (two are kept: [`MAX_LOGGED_BYTES`]).
const GENERATION_BYTES: usize = MAX_LOGGED_BYTES / 2;

/// The parts of a call stored as bytes, in this order: method, target, the four headers, body,
/// answer.
const PARTS: usize = 8;

/// One REST call and its answer, as read from the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestCall<'a> {
    /// Its number in the log, from 1 (never reused, not even after `clear`).
    pub seq: u64,
    /// The model's clock when it was answered, unix ms.
    pub at_ms: i64,
    /// The method as sent.
    pub method: &'a str,
    /// The path with its query, as sent (at most [`MAX_LOGGED_BODY`] bytes).
    pub target: &'a str,
    /// `X-Service-Api-Key`, `X-Service-Schema-Version`, `Idempotency-Key`, `Content-Type`.
    pub headers: [Option<&'a str>; 4],
    /// The body's bytes (at most [`MAX_LOGGED_BODY`]).
    pub body: &'a [u8],
    /// The answer's status.
    pub status: u16,
    /// The answer's body (at most [`MAX_LOGGED_BODY`]).
    pub answer: &'a [u8],
    /// `Retry-After`, seconds.
    pub retry_after: Option<u32>,
    /// Replayed from the idempotency cache.
    pub replayed: bool,
    /// The injected delay, ms.
    pub delay_ms: u32,
    /// The target, the body or the answer was cut.
    pub truncated: bool,
}

/// An entry: where its bytes are, and the rest.
#[derive(Debug, Clone)]
struct Entry {
    seq: u64,
    at_ms: i64,
    generation: u64,
    offset: usize,
    /// The parts' lengths.
    lens: [u32; PARTS],
    /// Bit i: header i was sent.
    sent: u8,
    status: u16,
    retry_after: Option<u32>,
    replayed: bool,
    delay_ms: u32,
    truncated: bool,
}

/// The header names, lower-case as Node reads them.
const HEADER_NAMES: [&str; 4] = ["x-service-api-key", "x-service-schema-version", "idempotency-key", "content-type"];

/// The log. Its bytes are written one after the other into a generation of storage; when one is
/// full, the older one is dropped with its entries, so a call costs a copy of its bytes and no
/// allocation of its own (measured in the sandbox's module: an entry of separate strings and
/// vectors added 1.6–2.5 µs to a 4.1 µs detail read, most of it in the allocator).
#[derive(Debug, Clone, Default)]
pub struct RestLog {
    calls: VecDeque<Entry>,
    current: Vec<u8>,
    previous: Vec<u8>,
    generation: u64,
    last_seq: u64,
}

/// `s` cut at `max` bytes, on a character boundary.
fn cut_str(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

fn cut(b: &[u8]) -> (&[u8], bool) {
    if b.len() > MAX_LOGGED_BODY {
        (&b[..MAX_LOGGED_BODY], true)
    } else {
        (b, false)
    }
}

impl RestLog {
    /// Records `request` and the `answer` it got at `now_ms`.
    pub fn record(&mut self, request: &Request, answer: &Answer, now_ms: i64) {
        let (method, cut_method) = cut_str(request.method, 64);
        let (target, cut_target) = cut_str(request.target, MAX_LOGGED_BODY);
        let (body, cut_body) = cut(request.body);
        let (text, cut_answer) = cut(&answer.body);
        let headers = [request.api_key, request.schema_version, request.idempotency_key, request.content_type];
        let mut parts: [&[u8]; PARTS] = [method.as_bytes(), target.as_bytes(), &[], &[], &[], &[], body, text];
        let mut sent = 0u8;
        for (i, h) in headers.iter().enumerate() {
            if let Some(h) = h {
                let (h, _) = cut_str(h, 8 << 10);
                parts[2 + i] = h.as_bytes();
                sent |= 1 << i;
            }
        }
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if self.current.len() + total > GENERATION_BYTES {
            self.generation += 1;
            // The previous generation's storage goes, with its entries.
            while self.calls.front().is_some_and(|e| e.generation + 1 < self.generation) {
                self.calls.pop_front();
            }
            self.previous = std::mem::take(&mut self.current);
        }
        let offset = self.current.len();
        if self.current.capacity() < offset + total {
            // Doubling, but never past a generation's bytes (the bound holds for capacity too).
            let want = (self.current.capacity() * 2).clamp(64 << 10, GENERATION_BYTES).max(offset + total);
            self.current.reserve_exact(want - offset);
        }
        let mut lens = [0u32; PARTS];
        for (len, p) in lens.iter_mut().zip(parts) {
            self.current.extend_from_slice(p);
            *len = p.len() as u32;
        }
        self.last_seq += 1;
        self.calls.push_back(Entry {
            seq: self.last_seq,
            at_ms: now_ms,
            generation: self.generation,
            offset,
            lens,
            sent,
            status: answer.status,
            retry_after: answer.retry_after,
            replayed: answer.replayed,
            delay_ms: answer.delay_ms,
            truncated: cut_method || cut_target || cut_body || cut_answer,
        });
        if self.calls.len() > MAX_LOGGED_CALLS {
            self.calls.pop_front();
        }
    }

    fn read<'a>(&'a self, e: &Entry) -> RestCall<'a> {
        let store = if e.generation == self.generation { &self.current } else { &self.previous };
        let mut at = e.offset;
        let mut part = [&[][..]; PARTS];
        for (p, &len) in part.iter_mut().zip(&e.lens) {
            *p = store.get(at..at + len as usize).unwrap_or_default();
            at += len as usize;
        }
        // Written from &str: always UTF-8.
        let text = |b: &'a [u8]| std::str::from_utf8(b).unwrap_or_default();
        let header = |i: usize| (e.sent & (1 << i) != 0).then(|| text(part[2 + i]));
        RestCall {
            seq: e.seq,
            at_ms: e.at_ms,
            method: text(part[0]),
            target: text(part[1]),
            headers: [header(0), header(1), header(2), header(3)],
            body: part[6],
            status: e.status,
            answer: part[7],
            retry_after: e.retry_after,
            replayed: e.replayed,
            delay_ms: e.delay_ms,
            truncated: e.truncated,
        }
    }

    /// The entries kept, oldest first.
    pub fn calls(&self) -> impl Iterator<Item = RestCall<'_>> {
        self.calls.iter().map(|e| self.read(e))
    }

    /// Bytes held for the entries (at most [`MAX_LOGGED_BYTES`], capacity included).
    pub fn bytes(&self) -> usize {
        self.current.capacity() + self.previous.capacity()
    }

    /// Forgets every entry (the numbering goes on).
    pub fn clear(&mut self) {
        self.calls.clear();
        self.current = Vec::new();
        self.previous = Vec::new();
    }

    /// The entries numbered above `after_seq`, as a JSON array of
    /// `{ seq, at, method, path, headers, body, status, answer, retryAfter, replayed, delayMs, truncated }`
    /// (`at` in unix seconds; `headers` the four the contract reads, lower-case, those sent; `body`
    /// and `answer` as text, invalid UTF-8 replaced).
    pub fn to_json(&self, after_seq: u64) -> String {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct View<'a> {
            seq: u64,
            at: f64,
            method: &'a str,
            path: &'a str,
            headers: BTreeMap<&'static str, &'a str>,
            body: Cow<'a, str>,
            status: u16,
            answer: Cow<'a, str>,
            retry_after: Option<u32>,
            replayed: bool,
            delay_ms: u32,
            truncated: bool,
        }
        let start = self.calls.partition_point(|c| c.seq <= after_seq);
        let views: Vec<View> = self
            .calls
            .range(start..)
            .map(|e| {
                let c = self.read(e);
                View {
                    seq: c.seq,
                    at: c.at_ms as f64 / 1000.0,
                    method: c.method,
                    path: c.target,
                    headers: HEADER_NAMES.iter().zip(c.headers).filter_map(|(n, v)| v.map(|v| (*n, v))).collect(),
                    body: String::from_utf8_lossy(c.body),
                    status: c.status,
                    answer: String::from_utf8_lossy(c.answer),
                    retry_after: c.retry_after,
                    replayed: c.replayed,
                    delay_ms: c.delay_ms,
                    truncated: c.truncated,
                }
            })
            .collect();
        serde_json::to_string(&views).unwrap_or_else(|_| "[]".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: &[u8]) -> Answer {
        Answer { status, body: body.to_vec(), problem: false, retry_after: None, delay_ms: 0, replayed: false }
    }

    fn get(target: &str) -> Request<'_> {
        Request { method: "GET", target, api_key: Some("k"), ..Request::default() }
    }

    #[test]
    fn keeps_the_last_entries_and_numbers_them() {
        let mut log = RestLog::default();
        for i in 0..MAX_LOGGED_CALLS + 5 {
            log.record(&get(&format!("/api/v1/Orders?n={i}")), &answer(200, b"{}"), 1_000);
        }
        assert_eq!(log.calls().count(), MAX_LOGGED_CALLS);
        assert_eq!(log.calls().next().map(|c| c.seq), Some(6));
        let tail: serde_json::Value = serde_json::from_str(&log.to_json((MAX_LOGGED_CALLS + 3) as u64)).unwrap();
        assert_eq!(tail.as_array().map(Vec::len), Some(2));
        assert_eq!(tail[0]["path"], format!("/api/v1/Orders?n={}", MAX_LOGGED_CALLS + 3));
        assert_eq!(tail[0]["headers"], serde_json::json!({ "x-service-api-key": "k" }));
        assert_eq!(tail[0]["at"], 1.0);
        log.clear();
        assert_eq!(log.to_json(0), "[]");
        log.record(&get("/x"), &answer(404, b"{}"), 0);
        assert_eq!(log.calls().next().map(|c| c.seq), Some((MAX_LOGGED_CALLS + 6) as u64), "numbers are never reused");
    }

    #[test]
    fn bounds_the_bytes_and_cuts_large_bodies() {
        let mut log = RestLog::default();
        let big = vec![b'a'; MAX_LOGGED_BODY + 10];
        let n = MAX_LOGGED_BYTES / MAX_LOGGED_BODY + 3;
        for _ in 0..n {
            log.record(&Request { method: "PUT", target: "/api/v1/menu", body: &big, ..Request::default() }, &answer(200, &big), 0);
        }
        let kept: Vec<RestCall> = log.calls().collect();
        assert!(kept
            .iter()
            .all(|c| c.truncated && c.body.len() == MAX_LOGGED_BODY && c.answer.len() == MAX_LOGGED_BODY && c.method == "PUT"));
        assert!(log.bytes() <= MAX_LOGGED_BYTES, "{} bytes kept", log.bytes());
        // At least one generation's worth is kept whole.
        assert!(kept.len() < n && kept.len() >= GENERATION_BYTES / (2 * MAX_LOGGED_BODY + 20), "{} kept", kept.len());
        let seqs: Vec<u64> = kept.iter().map(|c| c.seq).collect();
        assert_eq!(seqs, ((n - kept.len() + 1) as u64..=n as u64).collect::<Vec<_>>(), "the newest, in order");
    }

    #[test]
    fn reads_back_what_was_recorded_across_generations() {
        let mut log = RestLog::default();
        let n = 300;
        for i in 0..n {
            let body = vec![(i % 251) as u8; 250_000 + i];
            let target = format!("/api/v1/Orders/{i}");
            let key = format!("key-{i}");
            let req = Request { method: "POST", target: &target, idempotency_key: Some(&key), body: &body, ..Request::default() };
            log.record(&req, &answer(200 + (i % 3) as u16, i.to_string().as_bytes()), i as i64);
        }
        let kept: Vec<RestCall> = log.calls().collect();
        assert!(kept.len() > 100 && kept.len() < n, "{}", kept.len());
        for c in kept {
            let i = (c.seq - 1) as usize;
            assert_eq!(c.target, format!("/api/v1/Orders/{i}"));
            assert_eq!(c.headers, [None, None, Some(format!("key-{i}").as_str()), None]);
            assert_eq!(c.body.len(), 250_000 + i);
            assert!(c.body.iter().all(|&b| b == (i % 251) as u8));
            assert_eq!(c.answer, i.to_string().as_bytes());
            assert_eq!((c.status, c.at_ms), (200 + (i % 3) as u16, i as i64));
        }
        assert!(log.bytes() <= MAX_LOGGED_BYTES);
    }

    #[test]
    fn invalid_utf8_is_replaced_in_the_text() {
        let mut log = RestLog::default();
        log.record(&Request { method: "POST", target: "/a", body: &[0xff, b'{'], ..Request::default() }, &answer(400, b"{}"), 0);
        let v: serde_json::Value = serde_json::from_str(&log.to_json(0)).unwrap();
        assert_eq!(v[0]["body"], "\u{fffd}{");
    }
}
