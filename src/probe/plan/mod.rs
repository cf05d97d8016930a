//! The probe's plan: which scenario serves which check, in what order, with what prerequisites,
//! within what bounds, and when a run is done. A state machine a face drives:
//!
//! ```text
//! let mut plan = Plan::new(options);
//! loop {
//!     let next = plan.next(now_ms)?;          // what to do (and the progress lines to print first)
//!     if next.step == Step::Done { break }
//!     let outcome = perform(&next.step);       // the face's I/O: the sandbox, the POS, a timer
//!     if plan.report(outcome, now_ms)? == Flow::Abort { fail with the step's own error }
//! }
//! let report = plan.finish(duration_ms);
//! ```
//!
//! The face sends what the plan says and reports what came back; the plan grades through the
//! graders ([`super::receiver`], [`super::client`]), makes the variants ([`super::variant`]) and
//! keeps the checks. It does no I/O and reads no clock: `now` comes with every call (unix ms).
//!
//! The play order is [`RECEIVER_SCENES`] then the client scenario; the report lists the checks in
//! the order of [`RULES`].

mod client;
mod diagnose;
pub mod options;
pub mod scenes;
pub mod step;
mod updates;

pub use options::Options;
pub use scenes::{Act, Scene, Source, RECEIVER_SCENES};
pub use step::{Answer, ControlCall, Flow, Next, Outcome, Outgoing, SandboxCall, Step};

use super::receiver::{self, ReceiverInput};
use super::report::Report;
use super::variant::{self, Variant};
use super::{Check, CheckStatus, Exchange, Side, RULES};
use crate::contract::{Status, ANSWER_BUDGET_MS};
use crate::service::{DeliveryKind, Ids};
use client::ClientRun;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// How long the receiver checks may take in all, ms: past it, what is left is inconclusive.
pub const RECEIVER_BOUND_MS: f64 = 120_000.0;
/// Copies sent together for receiver/duplicate-concurrent-copies (the issue: 2 to 5).
pub const COPIES: u32 = 3;
/// How long the menu change webhook may take to go out, ms.
pub const MENU_CHANGE_WAIT_MS: f64 = 10_000.0;
/// The pause between two looks for the menu change webhook, ms.
pub const MENU_CHANGE_POLL_MS: f64 = 20.0;
/// The pause between two looks at the POS's REST calls, ms.
pub const CLIENT_POLL_MS: f64 = 100.0;
/// The client scenario ends once its order is done and the POS was quiet this long past one
/// `Retry-After`, ms.
pub const CLIENT_QUIET_MS: f64 = 1500.0;
/// The probe's ids: the run's seed with this salt ("PROBE"), apart from the sandbox's.
const ID_SALT: u64 = 0x0050_524f_4245;

const CREATION: &str = "receiver/order-created-answered";
const RETRY: &str = "receiver/duplicate-retry-same-id";
const MENU_CHANGE: &str = "receiver/menu-change-answered";
const LATENCY: &str = "receiver/answer-latency";
/// The check of the update scenario whose webhook the unknown-event and unknown-fields variants
/// are made from.
pub(crate) const RELEASED: &str = "receiver/update-driver-released";

/// Why the plan refuses a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The options are not valid (the message says which and why).
    #[error("{0}")]
    Invalid(String),
    /// A step's result cannot be read.
    #[error("{0}")]
    Result(String),
    /// `report` with no step handed out, or `next` before the last step's result came.
    #[error("{0}")]
    Order(&'static str),
}

impl PlanError {
    /// A stable code: `INVALID_ARGUMENT`, or `INVALID_STATE` for calls out of order.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid(_) | Self::Result(_) => "INVALID_ARGUMENT",
            Self::Order(_) => "INVALID_STATE",
        }
    }
}

/// The sandbox a run plays against.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sandbox {
    url: String,
    api_key: String,
    secret: String,
}

/// A delivery attempt of the sandbox's log (`deliveries()`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Delivered {
    delivery_id: String,
    kind: String,
    redelivery: Option<bool>,
    method: String,
    url: String,
    headers: BTreeMap<String, String>,
    body: String,
    status: Option<u16>,
    answer: Option<String>,
    error: Option<String>,
    ms: Option<f64>,
    at: Option<f64>,
}

impl Delivered {
    fn is(&self, kind: DeliveryKind) -> bool {
        serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(|k| k == self.kind)).unwrap_or(false)
    }

    /// The attempt as the evidence shows it.
    fn exchange(&self) -> Exchange {
        Exchange {
            method: self.method.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            body: self.body.clone(),
            status: self.status.filter(|&s| s != 0),
            answer: self.answer.clone(),
            ms: self.ms,
            error: self.error.clone().filter(|e| !e.is_empty()),
            at: self.at,
            note: Some(format!(
                "{}{}, X-Service-Delivery-Id {}",
                self.kind,
                if self.redelivery == Some(true) { " (redelivery)" } else { "" },
                self.delivery_id
            )),
        }
    }
}

/// An order's detail, as far as the plan reads it.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Placed {
    order_key: Option<String>,
    status: Option<String>,
}

/// The scene is over.
const END: u8 = u8::MAX;

/// A run's plan and what it decided so far.
#[derive(Debug, Clone)]
pub struct Plan {
    o: Options,
    scenes: Vec<Scene>,
    /// The scene playing, and how far it went.
    at: usize,
    sub: u8,
    /// A step was handed out and its outcome is due.
    waiting: bool,
    say: Vec<String>,
    /// The checks decided, by their index in [`RULES`].
    checks: Vec<Option<Check>>,
    sandbox: Option<Sandbox>,
    ids: Ids,
    deadline: f64,
    /// Delivery log entries already read.
    seen: usize,
    /// Every webhook exchange of the run (receiver/answer-latency).
    all: Vec<Exchange>,
    /// The first creation webhook and its delivery id.
    genuine: Option<Exchange>,
    genuine_id: Option<String>,
    creation_works: bool,
    /// The genuine delivery the POS refused (the diagnosis's starting point, issue 40).
    refused: Option<Exchange>,
    /// The diagnosis of the refused genuine delivery.
    diag: diagnose::Diagnosis,
    order_key: Option<String>,
    released: Option<Exchange>,
    /// What the scene in play carries between its steps.
    pending: Option<Exchange>,
    gathered: Vec<Exchange>,
    other: Placed,
    act: usize,
    until: f64,
    own_keys: Vec<String>,
    client: ClientRun,
}

impl Plan {
    /// The plan of a run with `options`.
    pub fn new(options: Options) -> Self {
        let mut scenes = vec![Scene::Start, Scene::Announce];
        if RULES.iter().any(|r| r.side == Side::Receiver && options.wanted(r.id)) {
            scenes.extend_from_slice(RECEIVER_SCENES);
        }
        if options.receiver_only {
            scenes.push(Scene::ClientSkipped);
        } else if RULES.iter().any(|r| r.side == Side::Client && options.wanted(r.id)) {
            scenes.push(Scene::Client);
        }
        Self {
            ids: Ids::new(options.seed ^ ID_SALT),
            o: options,
            scenes,
            at: 0,
            sub: 0,
            waiting: false,
            say: Vec::new(),
            checks: vec![None; RULES.len()],
            sandbox: None,
            deadline: f64::INFINITY,
            seen: 0,
            all: Vec::new(),
            genuine: None,
            genuine_id: None,
            creation_works: false,
            refused: None,
            diag: diagnose::Diagnosis::default(),
            order_key: None,
            released: None,
            pending: None,
            gathered: Vec::new(),
            other: Placed::default(),
            act: 0,
            until: 0.0,
            own_keys: Vec::new(),
            client: ClientRun::default(),
        }
    }

    /// The plan of a run with the options of `text` (JSON; see [`Options::from_json`]).
    pub fn from_json(text: &str, default_seed: u64) -> Result<Self, PlanError> {
        Options::from_json(text, default_seed).map(Self::new)
    }

    /// The run's options.
    pub fn options(&self) -> &Options {
        &self.o
    }

    /// The scenes this run plays, in order.
    pub fn scenes(&self) -> &[Scene] {
        &self.scenes
    }

    /// The step to perform at `now_ms` (unix ms), with the progress lines to print first.
    pub fn next(&mut self, now_ms: f64) -> Result<Next, PlanError> {
        if self.waiting {
            return Err(PlanError::Order("the last step's result has not been reported"));
        }
        let step = loop {
            let Some(&scene) = self.scenes.get(self.at) else { break Step::Done };
            match self.play(scene, now_ms) {
                Some(step) => {
                    self.waiting = true;
                    break step;
                }
                None => {
                    self.at += 1;
                    self.sub = 0;
                }
            }
        };
        Ok(Next { say: std::mem::take(&mut self.say), step })
    }

    /// What the last step gave, at `now_ms`.
    pub fn report(&mut self, outcome: Outcome, now_ms: f64) -> Result<Flow, PlanError> {
        if !self.waiting {
            return Err(PlanError::Order("no step is waiting for a result"));
        }
        let scene = self.scenes[self.at];
        let flow = self.take(scene, outcome, now_ms)?;
        self.waiting = false;
        Ok(flow)
    }

    /// [`Plan::report`] of an outcome as JSON (`{ value }`, `{ error }` or `{ answers }`).
    pub fn report_json(&mut self, text: &str, now_ms: f64) -> Result<Flow, PlanError> {
        let outcome: Outcome = serde_json::from_str(text).map_err(|e| PlanError::Result(format!("the step's result: {e}")))?;
        self.report(outcome, now_ms)
    }

    /// The genuine delivery the POS refused (not 2xx, or a creation without a remoteOrderId), if
    /// it did: what a diagnosis of the refusal starts from.
    pub fn refused(&self) -> Option<&Exchange> {
        self.refused.as_ref()
    }

    /// The run is over.
    pub fn is_done(&self) -> bool {
        self.at >= self.scenes.len()
    }

    /// Every check in the order of [`RULES`]; one the run did not decide is skipped.
    pub fn checks(&self) -> Vec<Check> {
        let why = if self.o.only.is_some() { "skipped: not in --only" } else { "skipped" };
        RULES.iter().zip(&self.checks).map(|(r, c)| c.clone().unwrap_or_else(|| Check::new(r, CheckStatus::Skipped, why, &[]))).collect()
    }

    /// The run's report, `duration_ms` long.
    pub fn finish(&self, duration_ms: f64) -> Report {
        Report::new(&self.o.pos, duration_ms, self.checks())
    }

    // ---- checks ------------------------------------------------------------------------------

    fn wanted(&self, id: &str) -> bool {
        self.o.wanted(id)
    }

    fn keep(&mut self, check: Check) {
        if let Some(i) = RULES.iter().position(|r| r.id == check.id) {
            self.checks[i] = Some(check);
        }
    }

    /// A check decided: kept, and said.
    fn record(&mut self, check: Check) {
        self.say.push(format!("{:<12} {}: {}", check.status.as_str(), check.id, check.message));
        self.keep(check);
    }

    /// A check not run, kept without a word.
    fn unrun(&mut self, id: &str, status: CheckStatus, message: &str) {
        if let Some(c) = Check::of(id, status, message, &[]) {
            self.keep(c);
        }
    }

    fn grade(&mut self, id: &str, input: ReceiverInput) {
        if let Some(c) = receiver::grade(id, &ReceiverInput { budget_ms: Some(self.o.budget_ms), ..input }) {
            self.record(c);
        }
    }

    fn grade_with(&mut self, id: &str, exchanges: Vec<Exchange>) {
        self.grade(id, ReceiverInput { exchanges, ..ReceiverInput::default() });
    }

    fn grade_unavailable(&mut self, id: &str, why: String) {
        self.grade(id, ReceiverInput { unavailable: Some(why), ..ReceiverInput::default() });
    }

    fn bounded(&self, now: f64) -> bool {
        now >= self.deadline
    }

    fn bound_reached(&mut self, id: &str) {
        let message = format!("not run: the receiver checks' bound of {} s was reached", RECEIVER_BOUND_MS / 1000.0);
        self.unrun(id, CheckStatus::Inconclusive, &message);
    }

    /// The budget left for one answer, ms: at most the contract's, at least 1.
    fn left(&self, now: f64) -> f64 {
        (self.deadline - now).min(f64::from(ANSWER_BUDGET_MS)).max(1.0)
    }

    fn not_preparing() -> String {
        format!(
            "not run: the order never reached {}, since its creation webhook was not answered 200 with a remoteOrderId (see {CREATION})",
            Status::Preparing.as_str()
        )
    }

    fn store(&self) -> &str {
        self.o.stores.first().map_or(options::DEFAULT_STORE, String::as_str)
    }

    /// An order at the run's store: accepted by the service once the POS answers its creation
    /// (`auto_accept`), or left to the POS.
    fn new_order(&self, auto_accept: bool, ready_by_driver_on_accept: Option<bool>, customer_note: Option<&str>) -> Value {
        let order = NewOrder { store: self.store(), auto_accept, ready_by_driver_on_accept, customer_note };
        serde_json::to_value(order).unwrap_or_default()
    }

    fn key(&self) -> Value {
        self.order_key.clone().map_or(Value::Null, Value::String)
    }

    /// The delivery log entries not read yet.
    fn fresh(&mut self, value: Value) -> Result<Vec<Delivered>, PlanError> {
        let mut all: Vec<Delivered> = parse(value, "the deliveries")?;
        let n = all.len();
        let out = if self.seen <= n { all.split_off(self.seen) } else { Vec::new() };
        self.seen = n;
        Ok(out)
    }

    // ---- the scenes ----------------------------------------------------------------------------

    /// The next step of `scene`; `None` once it is over.
    fn play(&mut self, scene: Scene, now: f64) -> Option<Step> {
        if self.sub == END {
            return None;
        }
        let sandbox = |c| Some(Step::Sandbox(c));
        match scene {
            Scene::Start => Some(Step::StartSandbox { options: self.sandbox_options() }),
            Scene::Announce => Some(Step::Announce { info: self.ready_info() }),
            Scene::Creation => match self.sub {
                0 => {
                    self.say.push(format!("sending webhooks to {} (store {})", self.o.pos, self.store()));
                    sandbox(SandboxCall::CreateOrder(self.new_order(true, None, None)))
                }
                _ => sandbox(SandboxCall::Deliveries),
            },
            // With `self.refused` set, diagnostic variants of it are sent (each a `Step::Send`)
            // until one is accepted or the catalogue is exhausted (issue 40).
            Scene::Diagnose => self.play_diagnose(now),
            Scene::Retry => {
                if !self.wanted(RETRY) {
                    return None;
                }
                match (self.sub, self.genuine_id.clone()) {
                    (0, Some(id)) => sandbox(SandboxCall::Redeliver(id)),
                    (0, None) => {
                        self.grade_with(RETRY, Vec::new());
                        None
                    }
                    _ => sandbox(SandboxCall::Deliveries),
                }
            }
            Scene::Variant { check, variant, copies, from } => self.play_variant(check, variant, copies, from, now),
            Scene::Update { check, act, feeds, .. } => self.play_update(check, act, feeds, now),
            Scene::MenuChange => self.play_menu_change(now),
            Scene::Latency => {
                if self.wanted(LATENCY) {
                    let all = self.all.clone();
                    self.grade_with(LATENCY, all);
                }
                None
            }
            Scene::ClientSkipped => {
                for r in RULES.iter().filter(|r| r.side == Side::Client) {
                    self.unrun(r.id, CheckStatus::Skipped, "skipped: --receiver-only");
                }
                None
            }
            Scene::Client => self.play_client(now),
        }
    }

    /// What `scene`'s step gave.
    fn take(&mut self, scene: Scene, outcome: Outcome, now: f64) -> Result<Flow, PlanError> {
        // The steps whose failure the run has no answer for end it, as they did in the face.
        let tolerated = match scene {
            Scene::Update { .. } => self.sub == 1,
            Scene::MenuChange => self.sub == 1,
            Scene::Client => (2..=4).contains(&self.sub),
            _ => false,
        };
        if let (Some(_), false) = (&outcome.error, tolerated) {
            return Ok(Flow::Abort);
        }
        match scene {
            Scene::Start => {
                self.sandbox = Some(parse(outcome.value, "the sandbox")?);
                self.sub = END;
            }
            Scene::Announce => {
                self.deadline = now + RECEIVER_BOUND_MS;
                self.sub = END;
            }
            Scene::Creation if self.sub == 0 => {
                let placed: Placed = parse(outcome.value, "the order")?;
                self.order_key = placed.order_key;
                self.sub = 1;
            }
            Scene::Creation => {
                let fresh = self.fresh(outcome.value)?;
                let creation = fresh.iter().find(|d| d.is(DeliveryKind::OrderCreated));
                let first = creation.map(Delivered::exchange);
                self.genuine_id = creation.map(|d| d.delivery_id.clone());
                self.all.extend(first.clone());
                let input = ReceiverInput { exchanges: first.clone().into_iter().collect(), ..ReceiverInput::default() };
                if let Some(graded) = receiver::grade(CREATION, &input) {
                    self.creation_works = graded.status == CheckStatus::Passed;
                    if self.wanted(CREATION) {
                        self.record(graded);
                    }
                }
                if !self.creation_works {
                    // A refused genuine delivery: what the diagnosis (issue 40) starts from.
                    self.refused.clone_from(&first);
                }
                self.genuine = first;
                self.sub = END;
            }
            Scene::Retry if self.sub == 0 => {
                let again: Vec<Delivered> = parse(outcome.value, "the redelivery")?;
                self.gathered = again.iter().map(Delivered::exchange).collect();
                self.sub = 1;
            }
            Scene::Retry => {
                let _ = self.fresh(outcome.value)?;
                let again = std::mem::take(&mut self.gathered);
                self.all.extend(again.iter().cloned());
                let exchanges = match &self.genuine {
                    Some(first) => std::iter::once(first.clone()).chain(again).collect(),
                    None => Vec::new(),
                };
                self.grade_with(RETRY, exchanges);
                self.sub = END;
            }
            Scene::Variant { check, copies, .. } => {
                let sent = self.pending.take().unwrap_or_default();
                let note = sent.note.clone().unwrap_or_default();
                let answers: Vec<Exchange> = outcome
                    .answers
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| Exchange {
                        status: a.status.filter(|&s| s != 0),
                        answer: a.answer,
                        ms: a.ms,
                        error: a.error,
                        at: a.at,
                        note: Some(if copies > 1 { format!("copy {} of {copies}, {note}", i + 1) } else { note.clone() }),
                        ..sent.clone()
                    })
                    .collect();
                self.all.extend(answers.iter().cloned());
                let input = ReceiverInput { exchanges: answers, creation_works: Some(self.creation_works), ..ReceiverInput::default() };
                self.grade(check, input);
                self.sub = END;
            }
            Scene::Update { check, what, act, .. } => self.take_update(check, what, act, outcome)?,
            Scene::MenuChange => self.take_menu_change(outcome, now)?,
            Scene::Client => self.take_client(outcome, now)?,
            Scene::Diagnose => self.take_diagnose(outcome),
            Scene::Latency | Scene::ClientSkipped => self.sub = END,
        }
        Ok(Flow::Go)
    }

    fn sandbox_options(&self) -> Value {
        let mut config = Map::new();
        config.insert("pos".into(), Value::String(self.o.pos.clone()));
        if let Some(s) = &self.o.secret {
            config.insert("secret".into(), Value::String(s.clone()));
        }
        let mut client = Map::new();
        if let Some(k) = &self.o.api_key {
            client.insert("apiKey".into(), Value::String(k.clone()));
        }
        client.insert("stores".into(), self.o.stores.iter().map(|s| json!({ "remoteId": s })).collect());
        config.insert("clients".into(), Value::Array(vec![Value::Object(client)]));
        json!({
            "config": config,
            "port": number(self.o.port),
            "seed": self.o.seed,
            // The probe sends each retry itself; the menu change applies at once.
            "retryScheduleSeconds": [],
            "menuChangeDelaySeconds": 0,
            "answerBudgetMs": ANSWER_BUDGET_MS,
        })
    }

    fn ready_info(&self) -> Value {
        let s = self.sandbox.as_ref();
        json!({
            "url": s.map(|s| s.url.as_str()),
            "apiKey": s.map(|s| s.api_key.as_str()),
            "secret": s.map(|s| s.secret.as_str()),
            "stores": self.o.stores,
            "pos": self.o.pos,
        })
    }

    fn play_variant(&mut self, check: &'static str, v: Variant, copies: u32, from: Source, now: f64) -> Option<Step> {
        if !self.wanted(check) {
            return None;
        }
        if from == Source::Released && !self.creation_works {
            self.grade_unavailable(check, Self::not_preparing());
            return None;
        }
        if self.bounded(now) {
            self.bound_reached(check);
            return None;
        }
        let source = match from {
            Source::Creation => self.genuine.as_ref(),
            Source::Released => self.released.as_ref(),
        };
        let Some(source) = source else {
            self.grade_unavailable(check, format!("not run: no genuine delivery to make it from (see {CREATION})"));
            return None;
        };
        let secret = self.sandbox.as_ref().map(|s| s.secret.as_bytes()).unwrap_or_default();
        let made = variant::make(v, source, secret, (now / 1000.0).floor().max(0.0) as u64, &mut self.ids);
        let mut ex = match made {
            Ok(ex) => ex,
            Err(e) => {
                self.grade_unavailable(check, format!("not run: {e}"));
                return None;
            }
        };
        let name = Variant::ALL.iter().find(|(_, x)| *x == v).map_or("", |(n, _)| n);
        let id = ex.headers.get("X-Service-Delivery-Id").cloned().unwrap_or_default();
        ex.note = Some(format!("{name}, X-Service-Delivery-Id {id}"));
        let out = Outgoing { method: ex.method.clone(), url: ex.url.clone(), headers: ex.headers.clone(), body: ex.body.clone() };
        self.pending = Some(ex);
        Some(Step::Send { exchange: out, copies, timeout_ms: self.left(now) })
    }
}

/// A value of the shape `T`, or a clear error naming `what`.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, PlanError> {
    serde_json::from_value(value).map_err(|e| PlanError::Result(format!("{what}: {e}")))
}

/// The options of an order the sandbox's customer places (`createOrder`'s).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NewOrder<'a> {
    store: &'a str,
    auto_accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    ready_by_driver_on_accept: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    customer_note: Option<&'a str>,
}

/// A number as JSON: a whole one as an integer.
pub(crate) fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

#[cfg(test)]
mod tests;
