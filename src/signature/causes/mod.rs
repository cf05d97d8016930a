//! The catalogue of causes: each common mistake that makes a receiver refuse a genuine delivery,
//! written once, with both directions.
//!
//! - **Diagnosis** ([`diagnose`](super::diagnose)): given a captured delivery and the secret, does
//!   this mistake reproduce its signature? The diagnosis of `poscheck verify` and of the page's
//!   webhook tool iterates the catalogue.
//! - **Probe variant** ([`probe_variant`]): given a genuine delivery the service would send, the
//!   delivery that a receiver making exactly this mistake would accept: the same method, URL and
//!   body, a fresh `X-Service-Delivery-Id`, and the timestamp and signature headers written the
//!   mistaken way. The probe sends them in [`plan`] order when a genuine delivery is refused; the
//!   first one accepted names the cause ([`refusal_cause_message`]).
//!
//! Each cause also says, in plain words, what the receiver does, the contract's sentence it
//! breaks (quoted exactly from the Authentication section) and how to fix it.
//!
//! The diagnosis reads only [`DIAGNOSES`] (codes and functions): the words and the variant makers
//! are reached from [`CAUSES`] alone, so a module that diagnoses without probing (the webhook
//! module) carries none of them.

use super::forms::{self, SerdeForm, BOM};
use super::verify::{matching_secret, same_mac, Parsed};
use super::{hex_lower, mac, mac_body_only, Headers, WebhookError, DEFAULT_TOLERANCE_SECONDS};
use super::{HEADER_DELIVERY_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, SIGNATURE_PREFIX};
use crate::basis::Basis;

mod words;
pub use words::{foreign_signature_message, refusal_cause_message, wrong_route_message};

/// The most diagnostic deliveries one run sends ([`plan`] sends at most this many).
pub const MAX_DIAGNOSTIC_DELIVERIES: usize = 30;

/// The timestamp shifts of the clock-offset cause, seconds, in the order sent: each accepted one
/// places the receiver's clock within ±300 s of it. Drift of minutes first, then time zones.
pub const CLOCK_OFFSETS: [i64; 10] = [600, -600, 1200, -1200, 1800, -1800, 3600, -3600, 7200, -7200];

/// Bodies larger than this are not re-serialized or transformed by the diagnosis (each variant is
/// one more HMAC over the whole body); the verification verdict itself is unaffected.
pub const DIAGNOSE_MAX_VARIANT_BODY: usize = 4 * 1024 * 1024;

/// One cause of a refused genuine delivery.
#[derive(Debug)]
pub struct Cause {
    /// Stable kebab-case id, e.g. `secret-trailing-newline` (one per mistake).
    pub id: &'static str,
    /// The finding code the diagnosis reports for it (several causes may share one, e.g.
    /// `BODY_RESERIALIZED`); see [`FINDING_CODES`](super::FINDING_CODES).
    pub code: &'static str,
    /// What the receiver does, in plain words: "the secret carries a trailing newline".
    pub does: &'static str,
    /// How its probe variant is signed, in plain words ("" for a cause without one).
    pub variant: &'static str,
    /// The contract's sentence it breaks, with its section: `Authentication 4: "…"`.
    pub contract: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// Whether accepting its variant means accepting a signature the service never makes (a
    /// second defect beside the refusal): true for every cause but a clock offset, whose variants
    /// are signed as the service signs.
    pub foreign_signature: bool,
    steps: u8,
    make: Option<Maker>,
    diagnosed: bool,
}

impl Cause {
    /// Whether the probe has variants for it, and how many ([`CLOCK_OFFSETS`] for the clock).
    pub fn probe_steps(&self) -> usize {
        if self.make.is_some() {
            usize::from(self.steps)
        } else {
            0
        }
    }

    /// Whether the diagnosis of a captured delivery looks for it.
    pub fn is_diagnosed(&self) -> bool {
        self.diagnosed
    }
}

/// The cause of `id`.
pub fn cause(id: &str) -> Option<&'static Cause> {
    CAUSES.iter().find(|c| c.id == id)
}

// ---- the diagnosis's side ------------------------------------------------------------------------

/// Where in the diagnosis a cause is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// The signature header does not parse: what it is instead (first hit wins).
    Signature,
    /// The headers parse but the delivery does not verify: which mistake reproduces the
    /// signature (a hit that says `stop` ends the search).
    Mac,
    /// The delivery verifies: what is still off (every hit is a note).
    Valid,
}

/// What the diagnosis knows of a captured delivery.
pub(super) struct Evidence<'a> {
    pub body: &'a [u8],
    pub headers: &'a Headers,
    pub secrets: &'a [&'a [u8]],
    /// The secrets without surrounding whitespace.
    pub trimmed: Vec<&'a [u8]>,
    /// Some secret has surrounding whitespace (and is not only whitespace).
    pub any_untrimmed: bool,
    pub now: u64,
    pub tolerance: u64,
    /// Why verification failed (`None` when it passed).
    pub error: Option<&'a WebhookError>,
    /// The timestamp and signature, when both parse.
    pub parsed: Option<Parsed<'a>>,
    /// The body as serde_json reads it, parsed once when the MAC stage can use it.
    serde: Option<serde_json::Value>,
}

impl<'a> Evidence<'a> {
    pub(super) fn new(
        body: &'a [u8],
        headers: &'a Headers,
        secrets: &'a [&'a [u8]],
        now: u64,
        tolerance: u64,
        error: Option<&'a WebhookError>,
        parsed: Option<Parsed<'a>>,
    ) -> Self {
        let trimmed: Vec<&[u8]> = secrets.iter().map(|s| s.trim_ascii()).collect();
        let any_untrimmed = secrets.iter().zip(&trimmed).any(|(s, t)| *s != *t && !t.is_empty());
        // Parsed up front (no lazy cell: the webhook module's budget), only when the MAC stage runs.
        let serde =
            if parsed.is_some() && error.is_some() && body.len() <= DIAGNOSE_MAX_VARIANT_BODY { forms::serde_value(body) } else { None };
        Evidence { body, headers, secrets, trimmed, any_untrimmed, now, tolerance, error, parsed, serde }
    }

    /// The body within the bound of the transformations tried.
    fn small(&self) -> bool {
        self.body.len() <= DIAGNOSE_MAX_VARIANT_BODY
    }

    /// The body as serde_json reads it.
    fn serde(&self) -> Option<&serde_json::Value> {
        self.serde.as_ref()
    }

    /// `bytes` (another body than the one checked) is what was signed, with a secret or a trimmed one.
    fn signed_body(&self, bytes: &[u8]) -> bool {
        let Some(p) = &self.parsed else { return false };
        let ts = p.timestamp_raw.as_bytes();
        bytes != self.body
            && (matching_secret(self.secrets, ts, bytes, &p.signature).is_some()
                || (self.any_untrimmed && matching_secret(&self.trimmed, ts, bytes, &p.signature).is_some()))
    }

    /// Some key made of a secret by `key` signed the message `parts` (concatenated).
    fn signed_with(&self, key: impl Fn(&[u8]) -> Option<Vec<u8>>, parts: &[&[u8]]) -> bool {
        let Some(p) = &self.parsed else { return false };
        self.secrets.iter().filter_map(|s| key(s).filter(|k| k.as_slice() != *s)).any(|k| same_mac(&hmac(&k, parts), &p.signature))
    }
}

/// A hit of the diagnosis: the finding's message, and whether the search ends there.
pub(super) type Hit = Option<(String, bool)>;
type Diagnoser = fn(&Evidence<'_>) -> Hit;

/// The diagnosis's view of the catalogue: stage, finding code and test of each diagnosed cause, in
/// the order the diagnosis tries them.
pub(super) struct DiagnosisEntry {
    pub stage: Stage,
    pub code: &'static str,
    pub test: Diagnoser,
}

// ---- the probe's side ----------------------------------------------------------------------------

/// What a variant maker is given: the genuine body, the account's secret, the time of sending and
/// which step of the cause it makes.
struct Making<'a> {
    body: &'a [u8],
    secret: &'a [u8],
    now: u64,
    step: usize,
}

/// The two headers of a variant: `X-Service-Timestamp` and `X-Service-Signature-256`.
type Maker = fn(&Making<'_>) -> Option<(String, String)>;

/// One diagnostic delivery of the plan: a cause and which of its variants.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    /// The cause it tests.
    pub cause: &'static Cause,
    /// Which of its variants (an index into [`CLOCK_OFFSETS`] for the clock, else 0).
    pub step: usize,
}

impl Attempt {
    /// The clock shift of a clock-offset attempt, seconds.
    pub fn offset_seconds(&self) -> Option<i64> {
        (self.cause.id == CLOCK_OFFSET).then(|| CLOCK_OFFSETS.get(self.step).copied()).flatten()
    }
}

const CLOCK_OFFSET: &str = "clock-offset";

/// The order the probe sends its diagnostic deliveries in: the commonest mistakes first.
const PLAN: &[&str] = &[
    "body-json-stringify",
    "secret-trailing-newline",
    "timestamp-milliseconds",
    "signed-body-only",
    "signature-without-prefix",
    "secret-trailing-crlf",
    "secret-trailing-space",
    "secret-hex-decoded",
    "secret-base64-decoded",
    "signed-without-dot",
    "signature-uppercase-hex",
    "signature-base64",
    "body-python-spaced",
    "body-sorted-keys",
    "body-compact",
    CLOCK_OFFSET,
];

/// Every diagnostic delivery the probe may send when a genuine delivery is refused, in order (at
/// most [`MAX_DIAGNOSTIC_DELIVERIES`]): send each (made by [`probe_variant`] the moment before),
/// stop at the first one accepted.
pub fn plan() -> Vec<Attempt> {
    PLAN.iter().filter_map(|id| cause(id)).flat_map(|c| (0..c.probe_steps()).map(move |step| Attempt { cause: c, step })).collect()
}

/// A webhook delivery: what the probe sends.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delivery {
    /// `POST` or `PUT`.
    pub method: String,
    /// The URL.
    pub url: String,
    /// The headers, in order.
    pub headers: Headers,
    /// The raw body.
    pub body: Vec<u8>,
}

/// Why a variant cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CauseError {
    /// The secret is empty.
    #[error("the secret is empty")]
    Secret,
    /// The attempt's step is not one of its cause's variants.
    #[error("cause {0} has no variant {1}")]
    Step(&'static str, usize),
}

/// The delivery a receiver making `attempt`'s mistake would accept, made from `genuine` (a delivery
/// the service would send, signed or not) at `now` (unix seconds) with the account's `secret`:
/// the same method, URL, body and other headers, a fresh `X-Service-Delivery-Id` from
/// `delivery_id` (e.g. a seeded generator's UUID v4), and `X-Service-Timestamp` and
/// `X-Service-Signature-256` written the mistaken way.
///
/// `Ok(None)` when this genuine delivery cannot tell the cause apart: its body is already in the
/// form the cause re-serializes to (a receiver with this mistake accepts the genuine delivery), or
/// in the form of an earlier cause of the plan, or the cause's decoding does not apply to the
/// secret. Linear in the body. A creation needs a fresh `orderKey` too: pass a genuine delivery
/// that already has one.
pub fn probe_variant(
    attempt: Attempt,
    genuine: &Delivery,
    secret: &[u8],
    now: u64,
    delivery_id: &mut dyn FnMut() -> String,
) -> Result<Option<Delivery>, CauseError> {
    if secret.is_empty() {
        return Err(CauseError::Secret);
    }
    let Some(make) = attempt.cause.make.filter(|_| attempt.step < attempt.cause.probe_steps()) else {
        return Err(CauseError::Step(attempt.cause.id, attempt.step));
    };
    let Some((timestamp, signature)) = make(&Making { body: &genuine.body, secret, now, step: attempt.step }) else {
        return Ok(None);
    };
    let mut headers = Headers::new();
    for (k, v) in genuine.headers.pairs() {
        if ![HEADER_TIMESTAMP, HEADER_SIGNATURE, HEADER_DELIVERY_ID].iter().any(|h| h.eq_ignore_ascii_case(k)) {
            headers.push(k.clone(), v.clone());
        }
    }
    headers.push(HEADER_TIMESTAMP, timestamp);
    headers.push(HEADER_SIGNATURE, signature);
    headers.push(HEADER_DELIVERY_ID, delivery_id());
    Ok(Some(Delivery { method: genuine.method.clone(), url: genuine.url.clone(), headers, body: genuine.body.clone() }))
}

// ---- the rules of the checks ---------------------------------------------------------------------

/// A check's rule as the probe lists it (its side is the receiver's, its severity an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CauseRule {
    /// Stable id.
    pub id: &'static str,
    /// What the POS must do.
    pub doc: &'static str,
    /// What it rests on.
    pub basis: Basis,
    /// The contract's sentences.
    pub source: &'static str,
}

/// The check that names why genuine deliveries are refused (failed when one is).
pub const REFUSAL_CAUSE_RULE: CauseRule = CauseRule {
    id: "receiver/refusal-cause",
    doc: "A genuine delivery is accepted; when one is refused, the diagnostic deliveries (each signed the way one common mistake verifies) name the mistake, or rule out those tried.",
    basis: Basis::Stated,
    source: "Authentication 4: \"message = timestamp + `.` + raw request body bytes; key = UTF-8 bytes of the secret; signature = `sha256=` + lowercase hex of HMAC-SHA256(key, UTF-8 message).\" Authentication 5: \"capture the raw body before any JSON parsing and never sign a re-serialized body; take the timestamp from the header, never from its own clock; reject when the absolute difference to its own clock exceeds 300 seconds (replay protection)\".",
};

/// The check failed when a POS accepts a diagnostic delivery signed in a way the service never signs.
pub const FOREIGN_SIGNATURE_RULE: CauseRule = CauseRule {
    id: "receiver/signature-as-the-service-signs",
    doc: "Only the signature the service makes is accepted: a delivery signed another way (another key, message, encoding or timestamp unit) is refused.",
    basis: Basis::Stated,
    source: "Authentication 4: \"signature = `sha256=` + lowercase hex of HMAC-SHA256(key, UTF-8 message)\"; Authentication 5: \"reject a failed verification (sample receivers answer 401).\"",
};

// ---- the contract's sentences --------------------------------------------------------------------

const RAW_BODY: &str = "Authentication 5: \"capture the raw body before any JSON parsing and never sign a re-serialized body\"";
const KEY: &str = "Authentication 4: \"key = UTF-8 bytes of the secret\"";
const MESSAGE: &str = "Authentication 4: \"message = timestamp + `.` + raw request body bytes\"";
const SIGNATURE: &str = "Authentication 4: \"signature = `sha256=` + lowercase hex of HMAC-SHA256(key, UTF-8 message)\"";
const TIMESTAMP: &str = "Authentication 3: \"`X-Service-Timestamp` (Unix seconds, integer as string)\"";
const CLOCK: &str = "Authentication 5: \"reject when the absolute difference to its own clock exceeds 300 seconds (replay protection)\"";

const FIX_RAW: &str = "verify the raw bytes as received, before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks), and parse them only after";
const FIX_SECRET_WS: &str = "trim the secret where it is read: the key is exactly the secret's UTF-8 bytes";
const FIX_SECRET_ENCODING: &str = "use the secret's UTF-8 bytes as the key (Buffer.from(secret, 'utf8')), not a decoding of it";
const FIX_MESSAGE: &str = "sign the header's timestamp, a dot, then the raw body: HMAC-SHA256(secret, timestamp + \".\" + body)";
const FIX_SIGNATURE: &str = "compare the header with \"sha256=\" followed by the lowercase hex digest (digest('hex')), in constant time";

// ---- the catalogue -------------------------------------------------------------------------------

/// Writes [`CAUSES`] and [`DIAGNOSES`] from one list: a cause added here is both diagnosed (when
/// it has `diagnose`) and probed (when it has `probe`).
macro_rules! catalogue {
    ($( { $id:literal, $code:literal, $(diagnose: $stage:ident $test:path,)? $(probe: $steps:literal $make:path,)?
          does: $does:expr, variant: $variant:expr, contract: $contract:expr, fix: $fix:expr, foreign: $foreign:literal } )*) => {
        /// Every cause, in the order the diagnosis tries them (within its stages).
        pub static CAUSES: &[Cause] = &[$(
            Cause {
                id: $id, code: $code, does: $does, variant: $variant, contract: $contract, fix: $fix, foreign_signature: $foreign,
                steps: catalogue!(@steps $($steps)?), make: catalogue!(@make $($make)?), diagnosed: catalogue!(@has $($test)?),
            },
        )*];
        /// The diagnosed causes, in order.
        pub(super) static DIAGNOSES: &[DiagnosisEntry] = &[$($( DiagnosisEntry { stage: Stage::$stage, code: $code, test: $test }, )?)*];
    };
    (@steps $n:literal) => { $n };
    (@steps) => { 0 };
    (@make $f:path) => { Some($f as Maker) };
    (@make) => { None };
    (@has $f:path) => { true };
    (@has) => { false };
}

catalogue! {
    // Signature stage: the header does not parse.
    { "signature-without-prefix", "SIGNATURE_PREFIX_MISSING", diagnose: Signature d_prefix_missing, probe: 1 p_prefix_missing,
      does: "the receiver expects the signature without its \"sha256=\" prefix (the bare hex digest)",
      variant: "with the signature as the bare hex digest, without \"sha256=\"",
      contract: SIGNATURE, fix: FIX_SIGNATURE, foreign: true }
    { "signature-base64", "SIGNATURE_BASE64", diagnose: Signature d_base64_signature, probe: 1 p_base64_signature,
      does: "the receiver expects the digest in base64 (digest('base64')) instead of lowercase hex",
      variant: "with the signature as \"sha256=\" followed by the base64 of the digest",
      contract: SIGNATURE, fix: FIX_SIGNATURE, foreign: true }
    // Mac stage: the timestamp, then the key, the message layout, the body bytes.
    { "timestamp-milliseconds", "TIMESTAMP_IN_MILLISECONDS", diagnose: Mac d_millis, probe: 1 p_millis,
      does: "the timestamp is compared with a clock in milliseconds (Date.now() without dividing by 1000)",
      variant: "with X-Service-Timestamp in milliseconds, signed over that value",
      contract: TIMESTAMP, fix: "compare the header (unix seconds) with the clock in seconds: Math.floor(Date.now() / 1000)", foreign: true }
    { "clock-offset", "CLOCK_SKEW", diagnose: Mac d_skew, probe: 10 p_clock,
      does: "the receiver's clock is off", variant: "with X-Service-Timestamp shifted",
      contract: CLOCK, fix: "synchronize the receiver's clock with NTP: the window is ±300 s of the real time", foreign: false }
    { "secret-whitespace", "SECRET_WHITESPACE", diagnose: Mac d_secret_trimmed,
      does: "the secret carries surrounding whitespace", variant: "", contract: KEY, fix: FIX_SECRET_WS, foreign: true }
    { "signed-body-only", "SIGNED_BODY_ONLY", diagnose: Mac d_body_only, probe: 1 p_body_only,
      does: "the receiver signs the body alone, without the timestamp and the dot",
      variant: "signed over the body alone", contract: MESSAGE, fix: FIX_MESSAGE, foreign: true }
    { "line-endings-lf", "LINE_ENDINGS_CHANGED", diagnose: Mac d_crlf_to_lf,
      does: "the body's line endings are converted before verification", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "line-endings-crlf", "LINE_ENDINGS_CHANGED", diagnose: Mac d_lf_to_crlf,
      does: "the body's line endings are converted before verification", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "trailing-newline-added", "TRAILING_NEWLINE_ADDED", diagnose: Mac d_newline_added,
      does: "a newline is appended to the body before verification", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "trailing-newline-removed", "TRAILING_NEWLINE_REMOVED", diagnose: Mac d_newline_removed,
      does: "the body's trailing newline is trimmed before verification", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "bom-added", "BOM_ADDED", diagnose: Mac d_bom_added,
      does: "a byte order mark is added to the body before verification", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "bom-removed", "BOM_REMOVED", diagnose: Mac d_bom_removed,
      does: "the body's byte order mark is stripped before verification", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-compact", "BODY_RESERIALIZED", diagnose: Mac d_compact, probe: 1 p_compact,
      does: "the receiver verifies the HMAC over the body parsed and written again without whitespace, instead of the raw bytes received",
      variant: "signed over the body written again without whitespace", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-pretty-2", "BODY_RESERIALIZED", diagnose: Mac d_pretty2,
      does: "the receiver verifies the HMAC over the body pretty-printed", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-pretty-4", "BODY_RESERIALIZED", diagnose: Mac d_pretty4,
      does: "the receiver verifies the HMAC over the body pretty-printed", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-pretty-tab", "BODY_RESERIALIZED", diagnose: Mac d_pretty_tab,
      does: "the receiver verifies the HMAC over the body pretty-printed", variant: "", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-python-spaced", "BODY_RESERIALIZED", diagnose: Mac d_spaced, probe: 1 p_spaced,
      does: "the receiver verifies the HMAC over the body written again with \", \" and \": \" separators (Python's json.dumps default), instead of the raw bytes received",
      variant: "signed over the body written again with \", \" and \": \" separators", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-json-stringify", "BODY_RESERIALIZED", diagnose: Mac d_js, probe: 1 p_js,
      does: "the receiver verifies the HMAC over JSON.stringify(JSON.parse(body)) (the body parsed and written again, as after Express's json() middleware), instead of the raw bytes received",
      variant: "signed over JSON.stringify(JSON.parse(body))", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "body-sorted-keys", "BODY_RESERIALIZED", diagnose: Mac d_sorted, probe: 1 p_sorted,
      does: "the receiver verifies the HMAC over the body written again with its keys sorted (a stable stringify), instead of the raw bytes received",
      variant: "signed over the body written again with its keys sorted", contract: RAW_BODY, fix: FIX_RAW, foreign: true }
    { "secret-trailing-newline", "SECRET_WHITESPACE", diagnose: Mac d_secret_newline, probe: 1 p_secret_newline,
      does: "the secret carries a trailing newline (read from a file or an environment variable with its line ending)",
      variant: "signed with the secret followed by \"\\n\"", contract: KEY, fix: FIX_SECRET_WS, foreign: true }
    { "secret-trailing-crlf", "SECRET_WHITESPACE", diagnose: Mac d_secret_crlf, probe: 1 p_secret_crlf,
      does: "the secret carries a trailing \"\\r\\n\" (a file written on Windows)",
      variant: "signed with the secret followed by \"\\r\\n\"", contract: KEY, fix: FIX_SECRET_WS, foreign: true }
    { "secret-trailing-space", "SECRET_WHITESPACE", diagnose: Mac d_secret_space, probe: 1 p_secret_space,
      does: "the secret carries a trailing space",
      variant: "signed with the secret followed by a space", contract: KEY, fix: FIX_SECRET_WS, foreign: true }
    { "secret-hex-decoded", "SECRET_ENCODING", diagnose: Mac d_secret_hex, probe: 1 p_secret_hex,
      does: "the secret is decoded from hex before use (Buffer.from(secret, 'hex')) instead of taken as UTF-8",
      variant: "signed with the secret decoded from hex as Node decodes it", contract: KEY, fix: FIX_SECRET_ENCODING, foreign: true }
    { "secret-base64-decoded", "SECRET_ENCODING", diagnose: Mac d_secret_base64, probe: 1 p_secret_base64,
      does: "the secret is decoded from base64 before use (Buffer.from(secret, 'base64')) instead of taken as UTF-8",
      variant: "signed with the secret decoded from base64", contract: KEY, fix: FIX_SECRET_ENCODING, foreign: true }
    { "signed-without-dot", "SIGNED_WITHOUT_DOT", diagnose: Mac d_without_dot, probe: 1 p_without_dot,
      does: "the receiver signs the timestamp and the body without the dot between them",
      variant: "signed over the timestamp and the body without the dot", contract: MESSAGE, fix: FIX_MESSAGE, foreign: true }
    // Valid stage: the delivery verifies.
    { "signature-uppercase-hex", "SIGNATURE_UPPERCASE_HEX", diagnose: Valid d_uppercase, probe: 1 p_uppercase,
      does: "the receiver expects the signature in upper-case hex (it compares hex strings)",
      variant: "with the signature in upper-case hex", contract: SIGNATURE, fix: FIX_SIGNATURE, foreign: true }
}

// ---- HMACs ---------------------------------------------------------------------------------------

/// HMAC-SHA256 of the parts, concatenated, under any key (the empty one too).
fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    super::hmac_parts(key, parts)
}

fn hex_upper(bytes: &[u8]) -> String {
    hex_lower(bytes).to_ascii_uppercase()
}

// ---- the diagnosis of each cause -----------------------------------------------------------------

/// The webhook-only module (`poscheck/webhook`, built with the `webhook` feature alone) has a
/// budget of 150 KiB gzipped (issue 10) that the newest diagnoses do not fit in: there, the
/// diagnosis does not look for a signature in base64 (`SIGNATURE_BASE64`), a secret decoded from
/// hex or base64 (`SECRET_ENCODING`), a message without the dot (`SIGNED_WITHOUT_DOT`), nor a body
/// re-serialized by `JSON.stringify` or with sorted keys (`BODY_RESERIALIZED` of those two forms),
/// nor a signature made with the secret followed by a newline, `\r\n` or a space (`SECRET_WHITESPACE`
/// of those three; a secret *given* with whitespace is still found there).
/// So `diagnose()` of `poscheck/webhook`, and the page's webhook tool, which loads that module
/// (www/lib/modules.js), do not detect them; `poscheck verify`, the toolkit's module, the sandbox's
/// and the probe do. [`FINDING_CODES`](super::FINDING_CODES) is the same everywhere.
const WEBHOOK_ONLY: bool = cfg!(all(target_arch = "wasm32", feature = "webhook", not(feature = "toolkit"), not(feature = "sandbox")));

fn d_prefix_missing(ev: &Evidence<'_>) -> Hit {
    let raw = ev.headers.get(HEADER_SIGNATURE)?;
    (raw.len() == 64 && raw.bytes().all(|b| b.is_ascii_hexdigit())).then(|| {
        ("the signature is 64 hex digits without the \"sha256=\" prefix: the header value must be \"sha256=\" followed by the hex digest".into(), true)
    })
}

fn d_base64_signature(ev: &Evidence<'_>) -> Hit {
    if WEBHOOK_ONLY {
        return None;
    }
    let raw = ev.headers.get(HEADER_SIGNATURE)?;
    let digest = forms::node_base64(raw.strip_prefix(SIGNATURE_PREFIX).unwrap_or(raw).as_bytes())?;
    let digest: [u8; 32] = digest.try_into().ok()?;
    let ts = ev.headers.get(HEADER_TIMESTAMP)?;
    (!ev.secrets.is_empty() && matching_secret(ev.secrets, ts.as_bytes(), ev.body, &digest).is_some()).then(|| {
        ("the signature is the base64 of the right HMAC-SHA256: the header value must be \"sha256=\" followed by the 64 lowercase hex digits of the digest (digest('hex'), not digest('base64'))".into(), true)
    })
}

fn d_millis(ev: &Evidence<'_>) -> Hit {
    let p = ev.parsed.as_ref()?;
    if p.timestamp <= 100_000_000_000 {
        return None;
    }
    let secs = p.timestamp / 1000;
    let close = secs.abs_diff(ev.now) <= ev.tolerance.max(DEFAULT_TOLERANCE_SECONDS);
    // The MAC over the milliseconds matching is not a clock to sync: say it here, once.
    let mac_ok = matching_secret(ev.secrets, p.timestamp_raw.as_bytes(), ev.body, &p.signature).is_some();
    let message = format!(
        "X-Service-Timestamp {} looks like milliseconds{}: the service sends unix seconds; if you produced this request, sign with seconds (Math.floor(Date.now() / 1000)){}",
        p.timestamp,
        if close { format!(" ({secs} s is within the window of now)") } else { String::new() },
        if mac_ok { "; the HMAC itself matches" } else { "" }
    );
    Some((message, mac_ok))
}

fn d_skew(ev: &Evidence<'_>) -> Hit {
    let p = ev.parsed.as_ref()?;
    // A valid MAC outside the window: the clock of one side is off, or the request is a replay.
    if !matches!(ev.error, Some(WebhookError::TimestampTooOld { .. } | WebhookError::TimestampInFuture { .. }))
        || matching_secret(ev.secrets, p.timestamp_raw.as_bytes(), ev.body, &p.signature).is_none()
    {
        return None;
    }
    let skew = (i128::from(p.timestamp) - i128::from(ev.now)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    Some((
        format!(
            "the signature is valid but the timestamp is {} of your clock (tolerance {} s): a replayed delivery, or a receiver clock that is off; sync the clock with NTP and never take the timestamp from your own clock",
            describe_skew(skew),
            ev.tolerance
        ),
        true,
    ))
}

/// "12 s ahead", "3 s behind", "exactly that".
pub(super) fn describe_skew(skew: i64) -> String {
    match skew {
        0 => "exactly that".to_string(),
        s if s > 0 => format!("{s} s ahead"),
        s => format!("{} s behind", s.unsigned_abs()),
    }
}

fn d_secret_trimmed(ev: &Evidence<'_>) -> Hit {
    let p = ev.parsed.as_ref()?;
    (ev.any_untrimmed && matching_secret(&ev.trimmed, p.timestamp_raw.as_bytes(), ev.body, &p.signature).is_some()).then(|| {
        ("the secret has surrounding whitespace (often a trailing newline from a file or an environment variable): trim it".into(), true)
    })
}

fn d_body_only(ev: &Evidence<'_>) -> Hit {
    let p = ev.parsed.as_ref()?;
    ev.secrets.iter().any(|s| same_mac(&mac_body_only(s, ev.body), &p.signature)).then(|| {
        ("the signature is the HMAC of the body alone: the signed message is the timestamp, a dot, then the raw body (\"<X-Service-Timestamp>.<body>\")".into(), true)
    })
}

/// A hit with a fixed message when `candidate` (a transformation of the checked body) was signed.
fn body_hit(ev: &Evidence<'_>, candidate: Option<Vec<u8>>, message: &str) -> Hit {
    (ev.small() && ev.signed_body(&candidate?)).then(|| (message.to_string(), true))
}

fn d_crlf_to_lf(ev: &Evidence<'_>) -> Hit {
    let has_crlf = ev.small() && ev.body.windows(2).any(|w| w == b"\r\n");
    body_hit(ev, has_crlf.then(|| forms::replace(ev.body, b"\r\n", b"\n")), "the service signed the body with LF line endings, but the body checked has CRLF: something converted line endings (a proxy, a text-mode read, a copy through an editor); verify the bytes as received")
}

fn d_lf_to_crlf(ev: &Evidence<'_>) -> Hit {
    let lf_only = ev.small() && ev.body.contains(&b'\n') && !ev.body.windows(2).any(|w| w == b"\r\n");
    body_hit(ev, lf_only.then(|| forms::replace(ev.body, b"\n", b"\r\n")), "the service signed the body with CRLF line endings, but the body checked has LF: something converted line endings; verify the bytes as received")
}

fn d_newline_added(ev: &Evidence<'_>) -> Hit {
    let stripped = ev.body.strip_suffix(b"\r\n").or_else(|| ev.body.strip_suffix(b"\n"));
    body_hit(ev, stripped.map(<[u8]>::to_vec), "the body checked ends with a newline the service did not sign: something appended it (a pasted file, an echo, a text editor); remove it and verify the bytes as received")
}

fn d_newline_removed(ev: &Evidence<'_>) -> Hit {
    body_hit(
        ev,
        ev.small().then(|| [ev.body, b"\n"].concat()),
        "the service signed the body with a trailing newline that the body checked lacks: something trimmed it; do not trim the raw body",
    )
}

fn d_bom_added(ev: &Evidence<'_>) -> Hit {
    body_hit(ev, ev.body.strip_prefix(BOM).map(<[u8]>::to_vec), "the body checked starts with a UTF-8 byte order mark the service did not sign: something added it while decoding or saving; verify the bytes as received")
}

fn d_bom_removed(ev: &Evidence<'_>) -> Hit {
    let candidate = (ev.small() && !ev.body.starts_with(BOM)).then(|| [BOM, ev.body].concat());
    body_hit(ev, candidate, "the service signed a body starting with a UTF-8 byte order mark that the body checked lacks: a text decoder stripped it; verify the bytes as received, before any decoding")
}

const MSG: &str = "the body was re-serialized: it is the same JSON value as what the service signed, with different spacing; capture the raw body bytes before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks) and verify those";
const MSG_FORMAT: &str = "the body was re-serialized: it is the same JSON value as what the service signed, written differently (not only spacing: numbers such as 23.40 written 23.4, string escapes or key order changed too); capture the raw body bytes before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks) and verify those";

/// A re-serialization of the checked body that was signed: spacing alone, or also how numbers,
/// strings or key order are written (23.40 → 23.4).
fn reserialized(ev: &Evidence<'_>, candidate: Option<Vec<u8>>) -> Hit {
    let candidate = candidate?;
    if !ev.signed_body(&candidate) {
        return None;
    }
    let message = if forms::json_tokens(&candidate).eq(forms::json_tokens(ev.body)) { MSG } else { MSG_FORMAT };
    Some((message.to_string(), true))
}

/// The hit of a serde_json re-serialization (one instance for the five forms).
#[inline(never)]
fn serde_hit(ev: &Evidence<'_>, form: SerdeForm) -> Hit {
    let candidate = if ev.small() { forms::serde_form(ev.serde()?, ev.body, form) } else { None };
    reserialized(ev, candidate)
}

fn d_compact(ev: &Evidence<'_>) -> Hit {
    serde_hit(ev, SerdeForm::Compact)
}
fn d_pretty2(ev: &Evidence<'_>) -> Hit {
    serde_hit(ev, SerdeForm::Pretty(b"  "))
}
fn d_pretty4(ev: &Evidence<'_>) -> Hit {
    serde_hit(ev, SerdeForm::Pretty(b"    "))
}
fn d_pretty_tab(ev: &Evidence<'_>) -> Hit {
    serde_hit(ev, SerdeForm::Pretty(b"\t"))
}
fn d_spaced(ev: &Evidence<'_>) -> Hit {
    serde_hit(ev, SerdeForm::Spaced)
}
fn d_js(ev: &Evidence<'_>) -> Hit {
    if WEBHOOK_ONLY {
        return None;
    }
    reserialized(ev, ev.small().then(|| forms::js_form(ev.body, false)).flatten())
}
fn d_sorted(ev: &Evidence<'_>) -> Hit {
    if WEBHOOK_ONLY {
        return None;
    }
    reserialized(ev, ev.small().then(|| forms::js_form(ev.body, true)).flatten())
}

/// The signature was made with a secret followed by `suffix`.
fn padded_secret(ev: &Evidence<'_>, suffix: &[u8], what: &str) -> Hit {
    if WEBHOOK_ONLY {
        return None;
    }
    let p = ev.parsed.as_ref()?;
    let signed = ev.small() && ev.signed_with(|s| Some([s, suffix].concat()), &[p.timestamp_raw.as_bytes(), b".", ev.body]);
    signed.then(|| (format!("the signature was made with the secret followed by {what}: the signer read the secret with it (a file or an environment variable); the key is exactly the secret's UTF-8 bytes: trim it"), true))
}

fn d_secret_newline(ev: &Evidence<'_>) -> Hit {
    padded_secret(ev, b"\n", "a newline")
}
fn d_secret_crlf(ev: &Evidence<'_>) -> Hit {
    padded_secret(ev, b"\r\n", "\"\\r\\n\"")
}
fn d_secret_space(ev: &Evidence<'_>) -> Hit {
    padded_secret(ev, b" ", "a space")
}

/// The signature was made with the secret decoded (`decode`) instead of its UTF-8 bytes.
fn decoded_secret(ev: &Evidence<'_>, decode: fn(&[u8]) -> Option<Vec<u8>>, what: &str) -> Hit {
    if WEBHOOK_ONLY {
        return None;
    }
    let p = ev.parsed.as_ref()?;
    let signed = ev.small() && ev.signed_with(decode, &[p.timestamp_raw.as_bytes(), b".", ev.body]);
    signed.then(|| (format!("the signature was made with the secret decoded from {what}: the key is the secret's UTF-8 bytes as written, not a decoding of them"), true))
}

fn d_secret_hex(ev: &Evidence<'_>) -> Hit {
    decoded_secret(ev, |s| Some(forms::node_hex(s)), "hex")
}
fn d_secret_base64(ev: &Evidence<'_>) -> Hit {
    decoded_secret(ev, forms::node_base64, "base64")
}

fn d_without_dot(ev: &Evidence<'_>) -> Hit {
    if WEBHOOK_ONLY {
        return None;
    }
    let p = ev.parsed.as_ref()?;
    let signed = ev.small() && ev.secrets.iter().any(|s| same_mac(&hmac(s, &[p.timestamp_raw.as_bytes(), ev.body]), &p.signature));
    signed.then(|| ("the signature is the HMAC of the timestamp and the body without the dot between them: the signed message is the timestamp, a dot, then the raw body (\"<X-Service-Timestamp>.<body>\")".into(), true))
}

fn d_uppercase(ev: &Evidence<'_>) -> Hit {
    let hex = ev.headers.get(HEADER_SIGNATURE).and_then(|v| v.strip_prefix(SIGNATURE_PREFIX)).unwrap_or("");
    hex.bytes().any(|b| b.is_ascii_uppercase()).then(|| {
        ("the signature uses uppercase hex digits: the MAC matches, but the contract says lowercase hex, and a receiver that compares hex strings (instead of the decoded bytes) would reject it".into(), false)
    })
}

// ---- the probe variant of each cause -------------------------------------------------------------

/// Signed as the service signs, at `now`, over the message `parts` with `key`: the timestamp header
/// and `sha256=` + lowercase hex.
fn at_now(m: &Making<'_>, key: &[u8], parts: &[&[u8]]) -> (String, String) {
    (m.now.to_string(), format!("{SIGNATURE_PREFIX}{}", hex_lower(&hmac(key, parts))))
}

fn genuine_mac(m: &Making<'_>) -> [u8; 32] {
    mac(m.secret, m.now.to_string().as_bytes(), m.body)
}

fn p_prefix_missing(m: &Making<'_>) -> Option<(String, String)> {
    Some((m.now.to_string(), hex_lower(&genuine_mac(m))))
}

fn p_base64_signature(m: &Making<'_>) -> Option<(String, String)> {
    Some((m.now.to_string(), format!("{SIGNATURE_PREFIX}{}", forms::base64(&genuine_mac(m)))))
}

fn p_uppercase(m: &Making<'_>) -> Option<(String, String)> {
    Some((m.now.to_string(), format!("{SIGNATURE_PREFIX}{}", hex_upper(&genuine_mac(m)))))
}

fn p_millis(m: &Making<'_>) -> Option<(String, String)> {
    let ms = m.now.checked_mul(1000)?.to_string();
    let signature = format!("{SIGNATURE_PREFIX}{}", hex_lower(&mac(m.secret, ms.as_bytes(), m.body)));
    Some((ms, signature))
}

fn p_clock(m: &Making<'_>) -> Option<(String, String)> {
    let offset = *CLOCK_OFFSETS.get(m.step)?;
    let at = m.now.checked_add_signed(offset)?.to_string();
    let signature = format!("{SIGNATURE_PREFIX}{}", hex_lower(&mac(m.secret, at.as_bytes(), m.body)));
    Some((at, signature))
}

fn p_body_only(m: &Making<'_>) -> Option<(String, String)> {
    Some(at_now(m, m.secret, &[m.body]))
}

fn p_without_dot(m: &Making<'_>) -> Option<(String, String)> {
    Some(at_now(m, m.secret, &[m.now.to_string().as_bytes(), m.body]))
}

fn with_key(m: &Making<'_>, key: &[u8]) -> Option<(String, String)> {
    (key != m.secret).then(|| at_now(m, key, &[m.now.to_string().as_bytes(), b".", m.body]))
}

fn p_secret_newline(m: &Making<'_>) -> Option<(String, String)> {
    with_key(m, &[m.secret, b"\n"].concat())
}
fn p_secret_crlf(m: &Making<'_>) -> Option<(String, String)> {
    with_key(m, &[m.secret, b"\r\n"].concat())
}
fn p_secret_space(m: &Making<'_>) -> Option<(String, String)> {
    with_key(m, &[m.secret, b" "].concat())
}
fn p_secret_hex(m: &Making<'_>) -> Option<(String, String)> {
    with_key(m, &forms::node_hex(m.secret))
}
fn p_secret_base64(m: &Making<'_>) -> Option<(String, String)> {
    with_key(m, &forms::node_base64(m.secret)?)
}

/// The re-serializations the probe sends, in its plan's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyForm {
    Js,
    Spaced,
    Sorted,
    Compact,
}

fn body_form(body: &[u8], form: BodyForm) -> Option<Vec<u8>> {
    if body.len() > DIAGNOSE_MAX_VARIANT_BODY {
        return None;
    }
    match form {
        BodyForm::Js => forms::js_form(body, false),
        BodyForm::Sorted => forms::js_form(body, true),
        BodyForm::Spaced => forms::serde_form(&forms::serde_value(body)?, body, SerdeForm::Spaced),
        BodyForm::Compact => forms::serde_form(&forms::serde_value(body)?, body, SerdeForm::Compact),
    }
}

/// Signed over `form` of the body, when it tells this cause apart: not the body itself (a
/// receiver that re-serializes so accepts the genuine delivery) nor an earlier form of the plan.
fn p_form(m: &Making<'_>, form: BodyForm) -> Option<(String, String)> {
    const ORDER: [BodyForm; 4] = [BodyForm::Js, BodyForm::Spaced, BodyForm::Sorted, BodyForm::Compact];
    let bytes = body_form(m.body, form)?;
    if bytes == m.body || ORDER.iter().take_while(|f| **f != form).any(|f| body_form(m.body, *f).as_deref() == Some(&bytes[..])) {
        return None;
    }
    Some(at_now(m, m.secret, &[m.now.to_string().as_bytes(), b".", &bytes]))
}

fn p_js(m: &Making<'_>) -> Option<(String, String)> {
    p_form(m, BodyForm::Js)
}
fn p_spaced(m: &Making<'_>) -> Option<(String, String)> {
    p_form(m, BodyForm::Spaced)
}
fn p_sorted(m: &Making<'_>) -> Option<(String, String)> {
    p_form(m, BodyForm::Sorted)
}
fn p_compact(m: &Making<'_>) -> Option<(String, String)> {
    p_form(m, BodyForm::Compact)
}

#[cfg(test)]
mod tests;
