//! The journal the service keeps: every REST call the model answered, with the answer it got, and
//! every delivery attempt the POS answered (or did not), with what it sent, the POS's answer, the
//! latency and the next retry, under one sequence `seq` (from 1, never reused, not even after a
//! [`clear`](Journal::clear)). The oldest entries go first past [`MAX_ENTRIES`] entries or
//! [`MAX_BYTES`] of stored bytes. A console follows it live with [`Journal::page_json`] (`GET
//! /_sandbox/journal?after=SEQ`); the sandbox's `requests()` and `deliveries()` are views of it.
//!
//! It lives in the model, in the module's linear memory, rather than as objects of the face's
//! garbage-collected heap: the sandbox's face spent about 20 µs of CPU an answer under load
//! keeping 10,000 JS entries alive (the order list: 50.8 µs an answer with them, 30.4 without;
//! each answer's string survived two young-generation collections before it was dropped).

use super::outbox::{Attempt, DeliveryKind, PosAnswer, Settled};
use super::{Answer, Request};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

/// Entries kept at most, REST calls and delivery attempts together (the oldest go first).
pub const MAX_ENTRIES: usize = 20_000;
/// Bytes of stored parts (bodies, answers, headers, texts) kept at most (the oldest entries go
/// first).
pub const MAX_BYTES: usize = 64 << 20;
/// A body, an answer or a target above this is kept cut to it (the entry says so).
pub const MAX_BODY: usize = 1 << 20;
/// The POS's answer to a delivery attempt is kept up to this (the entry says when it was cut).
pub const MAX_POS_ANSWER: usize = 64 << 10;
/// `requests()` and `deliveries()` list at most this many entries of their kind (the newest).
pub const MAX_VIEW: usize = 10_000;
/// A page of [`Journal::page_json`] holds at most this many entries…
pub const PAGE_ENTRIES: usize = 1_000;
/// …and stops after the entry that brings its stored bytes to this or past it.
pub const PAGE_BYTES: usize = 4 << 20;

/// Bytes of one generation of the journal's storage (two are kept: [`MAX_BYTES`]).
const GENERATION_BYTES: usize = MAX_BYTES / 2;

/// The parts of an entry stored as bytes. A REST call: method, target, the four headers, body,
/// answer. A delivery attempt: method, url, headers (`name\0value\0…`), body, the POS's answer,
/// the error, the delivery id, the orderKey or changeId, the failure, the effects (`\0`-separated).
const PARTS: usize = 10;

/// The largest number JS holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// One REST call and its answer, as read from the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestCall<'a> {
    /// Its number in the journal, from 1 (never reused, not even after `clear`).
    pub seq: u64,
    /// The model's clock when it was answered, unix ms.
    pub at_ms: i64,
    /// The method as sent.
    pub method: &'a str,
    /// The path with its query, as sent (at most [`MAX_BODY`] bytes).
    pub target: &'a str,
    /// `X-Service-Api-Key`, `X-Service-Schema-Version`, `Idempotency-Key`, `Content-Type`.
    pub headers: [Option<&'a str>; 4],
    /// The body's bytes (at most [`MAX_BODY`]).
    pub body: &'a [u8],
    /// The answer's status.
    pub status: u16,
    /// The answer's body (at most [`MAX_BODY`]).
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

/// One delivery attempt and the POS's answer, as read from the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryEntry<'a> {
    /// Its number in the journal.
    pub seq: u64,
    /// The model's clock when the answer (or its absence) was reported, unix ms.
    pub at_ms: i64,
    /// The attempt's number in the model ([`Attempt::attempt`]).
    pub attempt: u64,
    /// `X-Service-Delivery-Id`.
    pub delivery_id: &'a str,
    /// What it carries.
    pub kind: DeliveryKind,
    /// 1 for the first attempt ([`Attempt::number`]).
    pub number: u32,
    /// A copy asked for by a redelivery.
    pub redelivery: bool,
    /// The order it concerns.
    pub order_key: Option<&'a str>,
    /// The menu change it concerns.
    pub change_id: Option<&'a str>,
    /// The method sent.
    pub method: &'a str,
    /// The URL sent to.
    pub url: &'a str,
    /// The headers sent, `name\0value\0…` ([`DeliveryEntry::headers`] reads them).
    pub headers_raw: &'a str,
    /// The body sent (at most [`MAX_BODY`]).
    pub body: &'a [u8],
    /// The POS's status; `None` when it did not answer.
    pub status: Option<u16>,
    /// The POS's answer body (at most [`MAX_POS_ANSWER`]); `None` when it did not answer.
    pub answer: Option<&'a [u8]>,
    /// Why no answer came (the face's words).
    pub error: Option<&'a str>,
    /// The latency, ms.
    pub ms: f64,
    /// The answer counts as delivered.
    pub ok: bool,
    /// Why it does not (the model's words).
    pub failure: Option<&'a str>,
    /// The next attempt (unix ms, model clock), when one was scheduled.
    pub retry_at_ms: Option<i64>,
    /// What followed, `\0`-separated ([`DeliveryEntry::effects`] reads them).
    pub effects_raw: &'a str,
    /// The body or the answer was cut.
    pub truncated: bool,
}

impl<'a> DeliveryEntry<'a> {
    /// The headers sent, in the order sent.
    pub fn headers(&self) -> impl Iterator<Item = (&'a str, &'a str)> {
        pairs(self.headers_raw)
    }

    /// What followed (a remoteOrderId kept, an auto-accept, a cancellation).
    pub fn effects(&self) -> impl Iterator<Item = &'a str> {
        lines(self.effects_raw)
    }
}

/// `name\0value\0…` as pairs.
fn pairs(raw: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut it = raw.split('\0');
    std::iter::from_fn(move || Some((it.next().filter(|n| !n.is_empty())?, it.next().unwrap_or(""))))
}

/// `a\0b\0…` as its non-empty items.
fn lines(raw: &str) -> impl Iterator<Item = &str> {
    raw.split('\0').filter(|e| !e.is_empty())
}

/// An entry of the journal, as read.
#[derive(Debug, Clone, PartialEq)]
pub enum JournalEntry<'a> {
    /// A REST call.
    Rest(RestCall<'a>),
    /// A delivery attempt.
    Delivery(DeliveryEntry<'a>),
}

impl JournalEntry<'_> {
    /// Its number in the journal.
    pub fn seq(&self) -> u64 {
        match self {
            Self::Rest(c) => c.seq,
            Self::Delivery(d) => d.seq,
        }
    }
}

/// What an entry holds beside its bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Meta {
    Rest {
        /// Bit i: header i was sent.
        sent: u8,
        retry_after: Option<u32>,
        replayed: bool,
        delay_ms: u32,
    },
    Delivery(DeliveryMeta),
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct DeliveryMeta {
    attempt: u64,
    kind: DeliveryKind,
    number: u32,
    redelivery: bool,
    ok: bool,
    answered: bool,
    error: bool,
    failure: bool,
    /// The subject (part 7) is a changeId, not an orderKey.
    change: bool,
    subject: bool,
    ms: f64,
    retry_at_ms: Option<i64>,
}

/// An entry: where its bytes are, and the rest.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    seq: u64,
    at_ms: i64,
    generation: u64,
    offset: usize,
    /// The parts' lengths.
    lens: [u32; PARTS],
    status: u16,
    truncated: bool,
    meta: Meta,
}

impl Entry {
    fn stored(&self) -> usize {
        self.lens.iter().map(|&l| l as usize).sum()
    }
}

/// The header names of a REST call, lower-case as Node reads them.
const HEADER_NAMES: [&str; 4] = ["x-service-api-key", "x-service-schema-version", "idempotency-key", "content-type"];

/// The journal. Its bytes are written one after the other into a generation of storage; when one
/// is full, the older one is dropped with its entries, so an entry costs a copy of its bytes and no
/// allocation of its own (measured in the sandbox's module: an entry of separate strings and
/// vectors added 1.6–2.5 µs to a 4.1 µs detail read, most of it in the allocator).
#[derive(Clone, Default, PartialEq)]
pub struct Journal {
    entries: VecDeque<Entry>,
    current: Vec<u8>,
    previous: Vec<u8>,
    generation: u64,
    last_seq: u64,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("entries", &self.entries.len())
            .field("bytes", &self.bytes())
            .field("last_seq", &self.last_seq)
            .finish()
    }
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

fn cut(b: &[u8], max: usize) -> (&[u8], bool) {
    if b.len() > max {
        (&b[..max], true)
    } else {
        (b, false)
    }
}

impl Journal {
    /// Records `request` and the `answer` it got at `now_ms`.
    pub fn record(&mut self, request: &Request, answer: &Answer, now_ms: i64) {
        let (method, cut_method) = cut_str(request.method, 64);
        let (target, cut_target) = cut_str(request.target, MAX_BODY);
        let (body, cut_body) = cut(request.body, MAX_BODY);
        let (text, cut_answer) = cut(&answer.body, MAX_BODY);
        let headers = [request.api_key, request.schema_version, request.idempotency_key, request.content_type];
        let mut parts: [&[u8]; PARTS] = [method.as_bytes(), target.as_bytes(), &[], &[], &[], &[], body, text, &[], &[]];
        let mut sent = 0u8;
        for (i, h) in headers.iter().enumerate() {
            if let Some(h) = h {
                let (h, _) = cut_str(h, 8 << 10);
                parts[2 + i] = h.as_bytes();
                sent |= 1 << i;
            }
        }
        let meta = Meta::Rest { sent, retry_after: answer.retry_after, replayed: answer.replayed, delay_ms: answer.delay_ms };
        self.push(&parts, now_ms, answer.status, cut_method || cut_target || cut_body || cut_answer, meta);
    }

    /// Records delivery attempt `a`, what the POS answered (or not) and what that `settled` (`None`:
    /// the model knew the attempt no longer), at `now_ms`.
    pub fn record_delivery(&mut self, a: &Attempt, answer: &PosAnswer, settled: Option<&Settled>, now_ms: i64) {
        let mut headers = Vec::with_capacity(a.headers.iter().map(|(n, v)| n.len() + v.len() + 2).sum());
        for (n, v) in &a.headers {
            let (n, _) = cut_str(n, 8 << 10);
            let (v, _) = cut_str(v, 8 << 10);
            // A name is never empty in the journal (an empty one ends the list).
            headers.extend_from_slice(if n.is_empty() { b"-" } else { n.as_bytes() });
            headers.push(0);
            headers.extend_from_slice(v.replace('\0', " ").as_bytes());
            headers.push(0);
        }
        headers.pop();
        let answered = answer.status != 0;
        let (body, cut_body) = cut(a.body.as_bytes(), MAX_BODY);
        let (text, cut_answer) = if answered { cut(answer.body, MAX_POS_ANSWER) } else { (&[][..], false) };
        let (error, _) = cut_str(answer.error.unwrap_or(""), 8 << 10);
        let failure = settled.and_then(|s| s.failure.as_deref());
        let effects = settled.map(|s| s.effects.iter().map(|e| e.replace('\0', " ")).collect::<Vec<_>>().join("\0")).unwrap_or_default();
        let (effects, _) = cut_str(&effects, 64 << 10);
        let (url, cut_url) = cut_str(&a.url, MAX_BODY);
        let (method, _) = cut_str(&a.method, 64);
        let (id, _) = cut_str(&a.delivery_id, 1024);
        let subject = a.change_id.as_deref().or(a.order_key.as_deref());
        let (subject_text, _) = cut_str(subject.unwrap_or(""), 8 << 10);
        let (failure_text, _) = cut_str(failure.unwrap_or(""), 8 << 10);
        let parts: [&[u8]; PARTS] = [
            method.as_bytes(),
            url.as_bytes(),
            &headers,
            body,
            text,
            error.as_bytes(),
            id.as_bytes(),
            subject_text.as_bytes(),
            failure_text.as_bytes(),
            effects.as_bytes(),
        ];
        let ms = if answer.ms.is_finite() && answer.ms >= 0.0 { answer.ms } else { 0.0 };
        let meta = Meta::Delivery(DeliveryMeta {
            attempt: a.attempt,
            kind: a.kind,
            number: a.number,
            redelivery: a.redelivery,
            ok: settled.is_some_and(|s| s.ok),
            answered,
            error: answer.error.is_some(),
            failure: failure.is_some(),
            change: a.change_id.is_some(),
            subject: subject.is_some(),
            ms,
            retry_at_ms: settled.and_then(|s| s.retry_at_ms),
        });
        self.push(&parts, now_ms, answer.status, cut_body || cut_answer || cut_url, meta);
    }

    /// Writes an entry's parts into the current generation and numbers it.
    fn push(&mut self, parts: &[&[u8]; PARTS], now_ms: i64, status: u16, truncated: bool, meta: Meta) {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        if self.current.len() + total > GENERATION_BYTES {
            self.generation += 1;
            // The previous generation's storage goes, with its entries.
            while self.entries.front().is_some_and(|e| e.generation + 1 < self.generation) {
                self.entries.pop_front();
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
        self.entries.push_back(Entry {
            seq: self.last_seq,
            at_ms: now_ms,
            generation: self.generation,
            offset,
            lens,
            status,
            truncated,
            meta,
        });
        if self.entries.len() > MAX_ENTRIES {
            self.entries.pop_front();
        }
    }

    fn read<'a>(&'a self, e: &Entry) -> JournalEntry<'a> {
        let store = if e.generation == self.generation { &self.current } else { &self.previous };
        let mut at = e.offset;
        let mut part = [&[][..]; PARTS];
        for (p, &len) in part.iter_mut().zip(&e.lens) {
            *p = store.get(at..at + len as usize).unwrap_or_default();
            at += len as usize;
        }
        // Written from &str: always UTF-8.
        let text = |b: &'a [u8]| std::str::from_utf8(b).unwrap_or_default();
        match e.meta {
            Meta::Rest { sent, retry_after, replayed, delay_ms } => {
                let header = |i: usize| (sent & (1 << i) != 0).then(|| text(part[2 + i]));
                JournalEntry::Rest(RestCall {
                    seq: e.seq,
                    at_ms: e.at_ms,
                    method: text(part[0]),
                    target: text(part[1]),
                    headers: [header(0), header(1), header(2), header(3)],
                    body: part[6],
                    status: e.status,
                    answer: part[7],
                    retry_after,
                    replayed,
                    delay_ms,
                    truncated: e.truncated,
                })
            }
            Meta::Delivery(m) => JournalEntry::Delivery(DeliveryEntry {
                seq: e.seq,
                at_ms: e.at_ms,
                attempt: m.attempt,
                delivery_id: text(part[6]),
                kind: m.kind,
                number: m.number,
                redelivery: m.redelivery,
                order_key: (m.subject && !m.change).then(|| text(part[7])),
                change_id: (m.subject && m.change).then(|| text(part[7])),
                method: text(part[0]),
                url: text(part[1]),
                headers_raw: text(part[2]),
                body: part[3],
                status: m.answered.then_some(e.status),
                answer: m.answered.then_some(part[4]),
                error: m.error.then(|| text(part[5])),
                ms: m.ms,
                ok: m.ok,
                failure: m.failure.then(|| text(part[8])),
                retry_at_ms: m.retry_at_ms,
                effects_raw: text(part[9]),
                truncated: e.truncated,
            }),
        }
    }

    /// Every entry kept, oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = JournalEntry<'_>> {
        self.entries.iter().map(|e| self.read(e))
    }

    /// The REST calls kept, oldest first.
    pub fn calls(&self) -> impl Iterator<Item = RestCall<'_>> {
        self.entries().filter_map(|e| match e {
            JournalEntry::Rest(c) => Some(c),
            JournalEntry::Delivery(_) => None,
        })
    }

    /// The delivery attempts kept, oldest first.
    pub fn deliveries(&self) -> impl Iterator<Item = DeliveryEntry<'_>> {
        self.entries().filter_map(|e| match e {
            JournalEntry::Delivery(d) => Some(d),
            JournalEntry::Rest(_) => None,
        })
    }

    /// The number of the last entry written (0: none yet), kept entries or not.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Bytes held for the entries (at most [`MAX_BYTES`], capacity included).
    pub fn bytes(&self) -> usize {
        self.current.capacity() + self.previous.capacity()
    }

    /// Forgets every entry (the numbering goes on).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.current = Vec::new();
        self.previous = Vec::new();
    }

    /// The index of the first entry numbered above `after`.
    fn start(&self, after: u64) -> usize {
        self.entries.partition_point(|e| e.seq <= after)
    }

    /// The newest [`MAX_VIEW`] entries of one kind numbered above `after`, oldest first.
    fn view(&self, after: u64, deliveries: bool) -> Vec<&Entry> {
        let mut out: Vec<&Entry> = self
            .entries
            .range(self.start(after)..)
            .rev()
            .filter(|e| matches!(e.meta, Meta::Delivery(_)) == deliveries)
            .take(MAX_VIEW)
            .collect();
        out.reverse();
        out
    }

    /// The REST calls numbered above `after_seq` (the newest [`MAX_VIEW`]), as a JSON array of
    /// `{ seq, at, method, path, headers, body, status, answer, retryAfter, replayed, delayMs, truncated }`
    /// (`at` in unix seconds; `headers` the four the contract reads, lower-case, those sent; `body`
    /// and `answer` as text, invalid UTF-8 replaced): the sandbox's `requests()`.
    pub fn to_json(&self, after_seq: u64) -> String {
        let views: Vec<View> = self.view(after_seq, false).into_iter().map(|e| View::of(self.read(e), false)).collect();
        serde_json::to_string(&views).unwrap_or_else(|_| "[]".into())
    }

    /// The delivery attempts kept (the newest [`MAX_VIEW`]), as a JSON array of `{ deliveryId,
    /// attempt, redelivery, kind, orderKey, method, url, headers, body, at, status, answer?, error,
    /// ms, ok, failure, retryAt, effects }` (`at` and `retryAt` in unix seconds; `status` null and
    /// no `answer` when the POS did not answer): the sandbox's `deliveries()`.
    pub fn deliveries_json(&self) -> String {
        let views: Vec<View> = self.view(0, true).into_iter().map(|e| View::of(self.read(e), false)).collect();
        serde_json::to_string(&views).unwrap_or_else(|_| "[]".into())
    }

    /// The delivery attempts `attempts` (by [`Attempt::attempt`]), in that order, as
    /// [`deliveries_json`](Self::deliveries_json) writes them; those not kept are left out.
    pub fn attempts_json(&self, attempts: &[u64]) -> String {
        let mut found: BTreeMap<u64, &Entry> = BTreeMap::new();
        for e in self.entries.iter().rev() {
            if found.len() == attempts.len() {
                break;
            }
            if let Meta::Delivery(m) = &e.meta {
                if attempts.contains(&m.attempt) {
                    found.entry(m.attempt).or_insert(e);
                }
            }
        }
        let views: Vec<View> = attempts.iter().filter_map(|a| found.get(a)).map(|e| View::of(self.read(e), false)).collect();
        serde_json::to_string(&views).unwrap_or_else(|_| "[]".into())
    }

    /// A page of the journal: the entries numbered above `after`, oldest first, at most
    /// [`PAGE_ENTRIES`] and about [`PAGE_BYTES`] of stored bytes (at least one entry when there is
    /// one), as JSON `{ entries, next, more, latest }`: each entry has `seq` and `type` (`rest` or
    /// `delivery`) and the fields of its kind; `next` is the `after` of the next page, `more` says
    /// whether entries past this page are already kept, `latest` is the last seq written.
    pub fn page_json(&self, after: u64) -> String {
        #[derive(Serialize)]
        struct Page<'a> {
            entries: Vec<View<'a>>,
            next: u64,
            more: bool,
            latest: u64,
        }
        let start = self.start(after);
        let mut entries = Vec::new();
        let mut bytes = 0;
        let mut next = after;
        for e in self.entries.range(start..) {
            if entries.len() >= PAGE_ENTRIES || bytes >= PAGE_BYTES {
                break;
            }
            bytes += e.stored();
            next = e.seq;
            entries.push(View::of(self.read(e), true));
        }
        let more = self.entries.back().is_some_and(|e| e.seq > next);
        serde_json::to_string(&Page { entries, next, more, latest: self.last_seq })
            .unwrap_or_else(|_| format!("{{\"entries\":[],\"next\":{after},\"more\":false,\"latest\":{}}}", self.last_seq))
    }
}

/// A number as JS writes it: an integral one without a fraction (`5`, not `5.0`).
struct Num(f64);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() <= MAX_SAFE {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// Unix ms as unix seconds, a JS number.
fn secs(ms: i64) -> Num {
    Num(ms as f64 / 1000.0)
}

/// Headers as a JSON object, in their order.
struct Pairs<'a>(&'a str);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (n, v) in pairs(self.0) {
            map.serialize_entry(n, v)?;
        }
        map.end()
    }
}

/// The effects as a JSON array.
struct Effects<'a>(&'a str);

impl Serialize for Effects<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for e in lines(self.0) {
            seq.serialize_element(e)?;
        }
        seq.end()
    }
}

/// The `type` of a journal page's entry (`rest`, `delivery`: the journal's own words, not the
/// contract's fulfillment type).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
enum EntryType {
    Rest,
    Delivery,
}

/// An entry as JSON: a REST call as `requests()` lists it, an attempt as `deliveries()` does; in
/// a journal page, each with `seq` and `type` first (and an attempt with `changeId`, `truncated`,
/// and `answer: null` when there was none).
#[derive(Serialize)]
#[serde(untagged)]
enum View<'a> {
    Rest(RestView<'a>),
    Delivery(DeliveryView<'a>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RestView<'a> {
    seq: u64,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<EntryType>,
    at: Num,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeliveryView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    entry_type: Option<EntryType>,
    delivery_id: &'a str,
    attempt: u32,
    redelivery: bool,
    kind: DeliveryKind,
    order_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    change_id: Option<Option<&'a str>>,
    method: &'a str,
    url: &'a str,
    headers: Pairs<'a>,
    body: Cow<'a, str>,
    at: Num,
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<Option<Cow<'a, str>>>,
    error: Option<&'a str>,
    ms: Num,
    ok: bool,
    failure: Option<&'a str>,
    retry_at: Option<Num>,
    effects: Effects<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
}

impl<'a> View<'a> {
    /// `journal`: as a journal page writes it (with `seq`, `type` and the journal's fields).
    fn of(entry: JournalEntry<'a>, journal: bool) -> Self {
        match entry {
            JournalEntry::Rest(c) => View::Rest(RestView {
                seq: c.seq,
                kind: journal.then_some(EntryType::Rest),
                at: secs(c.at_ms),
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
            }),
            JournalEntry::Delivery(d) => {
                let answer = d.answer.map(String::from_utf8_lossy);
                View::Delivery(DeliveryView {
                    seq: journal.then_some(d.seq),
                    entry_type: journal.then_some(EntryType::Delivery),
                    delivery_id: d.delivery_id,
                    attempt: d.number,
                    redelivery: d.redelivery,
                    kind: d.kind,
                    order_key: d.order_key,
                    change_id: journal.then_some(d.change_id),
                    method: d.method,
                    url: d.url,
                    body: String::from_utf8_lossy(d.body),
                    at: secs(d.at_ms),
                    status: d.status,
                    answer: if journal { Some(answer) } else { answer.map(Some) },
                    error: d.error,
                    ms: Num(d.ms),
                    ok: d.ok,
                    failure: d.failure,
                    retry_at: d.retry_at_ms.map(secs),
                    truncated: journal.then_some(d.truncated),
                    headers: Pairs(d.headers_raw),
                    effects: Effects(d.effects_raw),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests;
