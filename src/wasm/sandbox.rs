//! The sandbox's bindings (`poscheck/sandbox`, a module of its own: the `sandbox` feature): the
//! service model ([`crate::service`]) held in a JS object. Each method converts its arguments,
//! calls the model and converts the result; the face (`pkg/src/sandbox.js`) does the I/O.

use super::{cli_output, error};
use crate::service::controls::{self, Face, Then};
use crate::service::{PosAnswer, Request, Service};
use wasm_bindgen::prelude::*;

fn config_error(e: &crate::service::ConfigError) -> JsValue {
    error(e.code(), &e.to_string(), None)
}

/// Unix milliseconds from JS (a finite number, 0 … year 9999).
fn millis(value: f64) -> Result<i64, JsValue> {
    if value.is_finite() && (0.0..=253_402_300_799_000.0).contains(&value) {
        Ok(value as i64)
    } else {
        Err(error("INVALID_ARGUMENT", "now must be unix milliseconds between 1970 and 9999", None))
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// Grows the module's memory once, by 192 MiB, before the first model serves: the idempotency cache
/// and the deliveries grow the memory under load, and a wasm memory grown in many small steps makes
/// V8 collect garbage at each step past a few tens of MiB (measured: a fresh-key accept took 2×
/// the CPU once the cache passed 35 MiB). 192 MiB holds the idempotency cache at its bound (about
/// 65 MB) and the REST call log at its own (64 MiB). The blocks are below the allocator's threshold for a
/// mapping of their own, so once freed they stay in its free lists and are reused; pages are only
/// touched when used.
fn reserve_memory() {
    static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !DONE.swap(true, std::sync::atomic::Ordering::Relaxed) {
        let blocks: Vec<Vec<u8>> = (0..3072).map(|_| Vec::with_capacity(64 << 10)).collect();
        drop(std::hint::black_box(blocks));
    }
}

/// The service model, held by the sandbox's face.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SandboxModel {
    inner: Service,
    face: Face,
    answer: Vec<u8>,
    status: u16,
    retry_after: u32,
    delay_ms: u32,
    flags: u32,
    length: u32,
}

#[wasm_bindgen]
impl SandboxModel {
    /// A model of the account `config` (JSON text; empty for the default) with `options` (JSON
    /// text; empty for the defaults), its ids drawn from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: &str, options: &str, seed: f64) -> Result<SandboxModel, JsValue> {
        if !(seed.is_finite() && (0.0..=9_007_199_254_740_991.0).contains(&seed)) {
            return Err(error("INVALID_ARGUMENT", "seed must be a non-negative integer", None));
        }
        let inner = Service::from_json(config, options, seed as u64).map_err(|e| config_error(&e))?;
        reserve_memory();
        Ok(Self { inner, face: Face::default(), answer: Vec::new(), status: 0, retry_after: 0, delay_ms: 0, flags: 0, length: 0 })
    }

    /// A model from the state `exportState` wrote.
    #[wasm_bindgen(js_name = fromState)]
    pub fn from_state(text: &str) -> Result<SandboxModel, JsValue> {
        let inner = Service::import_state(text).map_err(|e| config_error(&e))?;
        reserve_memory();
        Ok(Self { inner, face: Face::default(), answer: Vec::new(), status: 0, retry_after: 0, delay_ms: 0, flags: 0, length: 0 })
    }

    /// `{ config, options }` as JSON.
    pub fn info(&self) -> String {
        format!("{{\"config\":{},\"options\":{}}}", json(self.inner.config()), json(self.inner.options()))
    }

    /// Sets the problem-type base (the face's own URL + `/problems`).
    #[wasm_bindgen(js_name = setProblemBase)]
    pub fn set_problem_base(&mut self, base: &str) {
        self.inner.set_problem_base(base);
    }

    /// Answers a REST request. Returns the answer's byte length; its bytes are at `answerPtr()` in
    /// the module's memory until the next `handle` (the face decodes them there: no copy out of a
    /// returned string, whose allocation and free took as long), and the rest is read with
    /// `status()`, `retryAfter()`, `delayMs()` and `flags()` (1: a problem, 2: replayed).
    #[allow(clippy::too_many_arguments)]
    pub fn handle(
        &mut self,
        method: &str,
        target: &str,
        api_key: Option<String>,
        schema_version: Option<String>,
        idempotency_key: Option<String>,
        content_type: Option<String>,
        body: &[u8],
        now_ms: f64,
    ) -> Result<u32, JsValue> {
        let now = millis(now_ms)?;
        let request = Request {
            method,
            target,
            api_key: api_key.as_deref(),
            schema_version: schema_version.as_deref(),
            idempotency_key: idempotency_key.as_deref(),
            content_type: content_type.as_deref(),
            body,
        };
        let a = self.inner.handle(&request, now);
        self.inner.record_call(&request, &a, now);
        self.status = a.status;
        self.retry_after = a.retry_after.unwrap_or(0);
        self.delay_ms = a.delay_ms;
        self.flags = u32::from(a.problem) | (u32::from(a.replayed) << 1);
        self.length = a.body.len() as u32;
        self.answer = a.body;
        Ok(self.length)
    }

    /// The problem document (JSON text) of a request the face's HTTP server refused before
    /// `handle` (413, 431, 408, else 400), with a traceId like every other problem.
    #[wasm_bindgen(js_name = unreadProblem)]
    pub fn unread_problem(&mut self, status: u16, detail: &str) -> String {
        self.inner.unread_problem(status, detail)
    }

    /// Where the last `handle`'s answer is in the module's memory (`bodyLength()` bytes, UTF-8).
    #[wasm_bindgen(js_name = answerPtr)]
    pub fn answer_ptr(&self) -> u32 {
        self.answer.as_ptr() as u32
    }

    /// The byte length of the last `handle`'s body (its Content-Length).
    #[wasm_bindgen(js_name = bodyLength)]
    pub fn body_length(&self) -> u32 {
        self.length
    }

    /// The status of the last `handle`.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The `Retry-After` of the last `handle` (0: none).
    #[wasm_bindgen(js_name = retryAfter)]
    pub fn retry_after(&self) -> u32 {
        self.retry_after
    }

    /// The injected delay of the last `handle`, ms.
    #[wasm_bindgen(js_name = delayMs)]
    pub fn delay_ms(&self) -> u32 {
        self.delay_ms
    }

    /// 1: the last answer is a problem; 2: it was replayed from the idempotency cache.
    pub fn flags(&self) -> u32 {
        self.flags
    }

    /// What the face is: its base URL and its clock (`manual` true: moved by `advance`).
    #[wasm_bindgen(js_name = setFace)]
    pub fn set_face(&mut self, url: &str, manual: bool) {
        self.face.url = url.to_string();
        self.face.manual_clock = manual;
    }

    /// Where the face listens and which names beside the loopback's may reach its controls and
    /// console (`allowed_hosts`: a comma list, `--allowed-hosts`); an error names a bad one.
    /// Returns the warning to print when it listens beyond the loopback, else an empty string.
    #[wasm_bindgen(js_name = setAccess)]
    pub fn set_access(&mut self, bind_host: &str, port: u16, allowed_hosts: &str) -> Result<String, JsValue> {
        let allowed = controls::guard::parse_allowed_hosts(allowed_hosts).map_err(|e| error("INVALID_ARGUMENT", &e, None))?;
        self.face.access = controls::guard::Access { bind_host: bind_host.to_string(), port, allowed_hosts: allowed };
        Ok(self.face.access.exposed().unwrap_or_default())
    }

    /// A control request that came over HTTP: as `controlRequest`, after the guard (the `Host` and
    /// `Origin` headers as received, `undefined` when absent).
    #[wasm_bindgen(js_name = controlHttp)]
    #[allow(clippy::too_many_arguments)]
    pub fn control_http(
        &mut self,
        method: &str,
        target: &str,
        host: Option<String>,
        origin: Option<String>,
        body: &[u8],
        now_ms: f64,
        wall_secs: f64,
    ) -> Result<String, JsValue> {
        let now = millis(now_ms)?;
        let wall = millis(wall_secs * 1000.0)? / 1000;
        let reply = controls::handle_http(&mut self.inner, &self.face, method, target, host.as_deref(), origin.as_deref(), body, now, wall);
        Ok(json(&reply))
    }

    /// The guard of a page the face serves (the console): an empty string when it may answer,
    /// else the 403 reply as `controlRequest`'s.
    #[wasm_bindgen(js_name = pageGuard)]
    pub fn page_guard(&self, method: &str, target: &str, host: Option<String>, origin: Option<String>) -> String {
        controls::page_guard(&self.face, method, target, host.as_deref(), origin.as_deref()).map(|r| json(&r)).unwrap_or_default()
    }

    /// The face is closed: the controls that would send deliveries are refused (CLOSED).
    pub fn close(&mut self) {
        self.face.closed = true;
    }

    /// Answers a request under `/_sandbox` (`target`: its path and query as sent): JSON
    /// `{ status, body, effect, changed, log }` (see [`controls::ControlReply`]); the attempts of a
    /// redelivery are signed at `wall_secs`.
    #[wasm_bindgen(js_name = controlRequest)]
    pub fn control_request(&mut self, method: &str, target: &str, body: &[u8], now_ms: f64, wall_secs: f64) -> Result<String, JsValue> {
        let now = millis(now_ms)?;
        let wall = millis(wall_secs * 1000.0)? / 1000;
        Ok(json(&controls::handle(&mut self.inner, &self.face, method, target, body, now, wall)))
    }

    /// What a control answers once the face carried out its effect (`then`: the effect's `then`,
    /// as JSON): a reply as `controlRequest`'s.
    #[wasm_bindgen(js_name = controlThen)]
    pub fn control_then(&self, then: &str, now_ms: f64) -> Result<String, JsValue> {
        let now = millis(now_ms)?;
        let then: Then = serde_json::from_str(then).map_err(|e| error("INVALID_ARGUMENT", &format!("then: {e}"), None))?;
        Ok(json(&controls::then(&self.inner, &then, now)))
    }

    /// The earliest instant a timer is due (unix ms), -1 when none.
    #[wasm_bindgen(js_name = nextDue)]
    pub fn next_due(&self) -> f64 {
        self.inner.next_due().map_or(-1.0, |t| t as f64)
    }

    /// Fires the timers due by `now_ms` and returns the attempts to send now (JSON), signed at
    /// `wall_secs`.
    pub fn due(&mut self, now_ms: f64, wall_secs: f64) -> Result<String, JsValue> {
        let now = millis(now_ms)?;
        let wall = millis(wall_secs * 1000.0)? / 1000;
        Ok(json(&self.inner.due(now, wall)))
    }

    /// The POS's answer to an attempt (status 0: none; `error`: why none came), after
    /// `elapsed_ms`; what it settled as JSON (`null` for an unknown attempt). The model journals
    /// the attempt.
    pub fn answered(
        &mut self,
        attempt: f64,
        status: u16,
        body: &[u8],
        elapsed_ms: f64,
        now_ms: f64,
        error: Option<String>,
    ) -> Result<String, JsValue> {
        let now = millis(now_ms)?;
        let ms = if elapsed_ms.is_finite() && elapsed_ms >= 0.0 { elapsed_ms } else { 0.0 };
        let answer = PosAnswer { status, body, error: error.as_deref(), ms };
        Ok(json(&self.inner.answered_with(attempt as u64, &answer, now)))
    }

    /// The whole state (JSON), for `fromState`.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> String {
        self.inner.export_state()
    }
}

/// The log line of a REST call a face prints ([`crate::service::rest_log_line`]; `retry_after` 0:
/// none).
#[wasm_bindgen(js_name = restLogLine)]
pub fn rest_log_line(method: &str, target: &str, status: u16, replayed: bool, retry_after: u32, ms: f64) -> String {
    crate::service::rest_log_line(method, target, status, replayed, (retry_after > 0).then_some(retry_after), ms)
}

/// The contract's words and limits as JSON (`poscheck::contract::words_json`): the npm face reads
/// them from here instead of spelling them.
#[wasm_bindgen(js_name = contractWords)]
pub fn contract_words() -> String {
    crate::contract::words_json()
}

/// `rules`: lives in the sandbox's module (src/wasm/sandbox.rs), which holds the probe's checks.
#[cfg(feature = "sandbox")]
#[wasm_bindgen(js_name = cliRules)]
pub fn cli_rules(json: bool) -> Result<JsValue, JsValue> {
    cli_output(&crate::cli::rules(json))
}
