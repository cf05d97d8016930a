//! The deliveries to the POS: queued by a change of the model, sent by the face when due, signed as
//! "Authentication" 3–4 says, and settled by the POS's answer (or its absence).
//!
//! Every attempt of one delivery carries the same `X-Service-Delivery-Id` and the same body;
//! `X-Service-Timestamp` is the real time of sending (the face passes it), so a receiver's ±300 s
//! window holds whatever the model's clock says.

use super::{ActorType, ControlError, Order, Service, Status, Timer};
use crate::contract::{UpdateEvent, EVENT_TYPE_ORDER_CREATED};
use crate::order::Who;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The path under the POS base URL of a menu change's webhook, before its changeId.
pub(super) const MENU_CHANGE_PATH: &str = "/v1/menu/change/";

/// What a delivery carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeliveryKind {
    /// `POST {pos}/v1/order/{remoteId}`, X-Service-Event-Type `order.created`.
    OrderCreated,
    /// `PUT {pos}/v1/order/{remoteId}/{remoteOrderId}/events`.
    OrderUpdate,
    /// `POST {pos}/v1/menu/change/{changeKey}`.
    MenuChange,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeliveryState {
    /// Waiting for its next attempt.
    Scheduled,
    /// An attempt is being sent.
    InFlight,
    /// The POS answered as the contract expects.
    Delivered,
    /// Every attempt failed.
    Failed,
}

/// One delivery (all its attempts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// `X-Service-Delivery-Id` (a UUID v4), the same on every attempt.
    pub id: String,
    /// What it carries.
    pub kind: DeliveryKind,
    /// The order it is about.
    pub order_key: Option<String>,
    /// `POST` or `PUT`.
    pub method: String,
    /// The path under the POS base URL.
    pub path: String,
    /// The body, the same bytes on every attempt.
    pub body: String,
    /// Attempts made (redeliveries not counted).
    pub attempts: u32,
    /// Where it stands.
    pub state: DeliveryState,
    /// When it was queued (unix ms, model clock).
    pub queued_at_ms: i64,
}

/// An attempt to send now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// The attempt's number, to report its answer with.
    pub attempt: u64,
    /// `X-Service-Delivery-Id`.
    pub delivery_id: String,
    /// What it carries.
    pub kind: DeliveryKind,
    /// The order.
    pub order_key: Option<String>,
    /// The menu change (a menu change webhook).
    pub change_id: Option<String>,
    /// 1 for the first attempt; a redelivered copy repeats the last number.
    pub number: u32,
    /// A copy asked for by a redelivery (its answer changes nothing).
    pub redelivery: bool,
    /// `POST` or `PUT`.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// The headers, signature included.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
    /// The POS's answer budget, ms.
    pub budget_ms: u64,
}

/// What came back from the POS for an attempt, as the face saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PosAnswer<'a> {
    /// The status; 0 when no answer came.
    pub status: u16,
    /// The answer's body (its first bytes: the journal keeps
    /// [`MAX_POS_ANSWER`](super::journal::MAX_POS_ANSWER) of them).
    pub body: &'a [u8],
    /// Why no answer came (a connection error, no answer within the budget), in the face's words.
    pub error: Option<&'a str>,
    /// The latency, ms.
    pub ms: f64,
}

/// What the POS's answer settled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settled {
    /// The delivery.
    pub delivery_id: String,
    /// The answer counts as delivered.
    pub ok: bool,
    /// Why it does not.
    pub failure: Option<String>,
    /// The next attempt (unix ms, model clock), when one is scheduled.
    pub retry_at_ms: Option<i64>,
    /// No attempt is left.
    pub exhausted: bool,
    /// What followed (a remoteOrderId kept, an auto-accept, a cancellation).
    pub effects: Vec<String>,
    /// Deliveries queued by what followed.
    pub deliveries: Vec<String>,
    /// The line a face prints for the attempt ([`delivery_log_line`]): written here, once for
    /// every face.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

impl Service {
    pub(super) fn delivery_mut(&mut self, id: &str) -> Option<&mut Delivery> {
        let n = *self.delivery_index.get(id)?;
        self.deliveries.get_mut((n - self.delivery_base) as usize)
    }

    /// The delivery `id`.
    pub fn delivery(&self, id: &str) -> Option<&Delivery> {
        let n = *self.delivery_index.get(id)?;
        self.deliveries.get((n - self.delivery_base) as usize)
    }

    /// Every delivery kept, oldest first.
    pub fn deliveries(&self) -> impl Iterator<Item = &Delivery> {
        self.deliveries.iter()
    }

    /// Queues a delivery, due at once; returns its id.
    pub(super) fn queue(
        &mut self,
        kind: DeliveryKind,
        order_key: Option<String>,
        path: String,
        method: &str,
        body: String,
        now_ms: i64,
    ) -> String {
        while self.deliveries.len() >= super::MAX_DELIVERIES {
            match self.deliveries.front() {
                Some(d) if matches!(d.state, DeliveryState::Delivered | DeliveryState::Failed) => {
                    let d = self.deliveries.pop_front().expect("front exists");
                    self.delivery_index.remove(&d.id);
                    self.delivery_base += 1;
                }
                _ => break,
            }
        }
        let id = loop {
            let id = self.ids.uuid_v4();
            if !self.delivery_index.contains_key(&id) {
                break id;
            }
        };
        self.delivery_index.insert(id.clone(), self.delivery_base + self.deliveries.len() as u64);
        self.deliveries.push_back(Delivery {
            id: id.clone(),
            kind,
            order_key,
            method: method.into(),
            path,
            body,
            attempts: 0,
            state: DeliveryState::Scheduled,
            queued_at_ms: now_ms,
        });
        self.schedule(now_ms, Timer::Deliver { delivery_id: id.clone() });
        id
    }

    /// Queues the update webhook `event` of `order`, when the POS has given a remoteOrderId (the
    /// route needs it; without one nothing is sent, assumed).
    pub(super) fn queue_update(&mut self, order: &Order, event: &Value, now_ms: i64) -> Option<String> {
        let remote = order.remote_order_id.as_deref().filter(|r| !r.is_empty())?;
        let store = order.order.as_ref().map(|c| c.store_remote_id.clone())?;
        let path = format!("/v1/order/{}/{}/events", store, encode_segment(remote));
        let body = serde_json::to_string(event).unwrap_or_default();
        Some(self.queue(DeliveryKind::OrderUpdate, Some(order.order_key.clone()), path, "PUT", body, now_ms))
    }

    fn attempt_of(&mut self, id: &str, wall_secs: i64, redelivery: bool) -> Option<Attempt> {
        let secret = self.config.secret.clone();
        let pos = self.config.pos.clone();
        let budget_ms = self.options.answer_budget_ms;
        let attempt = self.next_attempt;
        let d = self.delivery_mut(id)?;
        if !redelivery {
            d.attempts += 1;
            d.state = DeliveryState::InFlight;
        }
        let stamp = wall_secs.max(0) as u64;
        let signature = crate::signature::sign(secret.as_bytes(), stamp, d.body.as_bytes()).unwrap_or_default();
        let mut headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("User-Agent".to_string(), "poscheck-sandbox".to_string()),
            ("X-Service-Timestamp".to_string(), stamp.to_string()),
            ("X-Service-Signature-256".to_string(), signature),
            ("X-Service-Delivery-Id".to_string(), d.id.clone()),
        ];
        if d.kind == DeliveryKind::OrderCreated {
            headers.push(("X-Service-Event-Type".to_string(), EVENT_TYPE_ORDER_CREATED.to_string()));
        }
        let change_id = (d.kind == DeliveryKind::MenuChange).then(|| d.path.strip_prefix(MENU_CHANGE_PATH)).flatten().map(str::to_string);
        let a = Attempt {
            attempt,
            delivery_id: d.id.clone(),
            kind: d.kind,
            order_key: d.order_key.clone(),
            change_id,
            number: d.attempts.max(1),
            redelivery,
            method: d.method.clone(),
            url: format!("{pos}{}", d.path),
            headers,
            body: d.body.clone(),
            budget_ms,
        };
        self.next_attempt += 1;
        self.in_flight.insert(attempt, (a.delivery_id.clone(), redelivery));
        // What the journal writes of it once answered.
        self.sending.insert(attempt, a.clone());
        Some(a)
    }

    /// Fires every timer due by `now_ms` (acceptance timeouts, retries), in order, and returns the
    /// attempts to send now, signed at `wall_secs` (the real time of sending).
    pub fn due(&mut self, now_ms: i64, wall_secs: i64) -> Vec<Attempt> {
        let mut out = Vec::new();
        while let Some(entry) = self.timer_queue.first_entry() {
            if entry.key().0 > now_ms {
                break;
            }
            let ((at, _), timer) = entry.remove_entry();
            match timer {
                Timer::Deliver { delivery_id } => {
                    if !self.delivery(&delivery_id).is_some_and(|d| d.state == DeliveryState::Scheduled) {
                        continue;
                    }
                    if self.creation_moot(&delivery_id) {
                        // The order ended (cancelled or rejected) before the POS gave a
                        // remoteOrderId: the creation webhook is not sent again (assumed: what
                        // the service does is not shown; a POS is not told of an order already over).
                        if let Some(d) = self.delivery_mut(&delivery_id) {
                            d.state = DeliveryState::Failed;
                        }
                        continue;
                    }
                    out.extend(self.attempt_of(&delivery_id, wall_secs, false));
                }
                Timer::MenuChange { change_id } => self.apply_menu_change(&change_id, at.max(0)),
                Timer::AcceptanceTimeout { order_key } => {
                    if self.order(&order_key).is_some_and(|o| o.order.status() == Status::Pending) {
                        // The acceptance timeout cancels the order (actor system); the timer runs
                        // at expiresAt + timeoutJobDelaySeconds, `at`.
                        let _ = self.cancel_by_system(&order_key, "acceptance timeout", at.max(0));
                    }
                }
            }
        }
        out
    }

    /// A creation delivery whose order ended before the POS answered it with a remoteOrderId.
    fn creation_moot(&self, id: &str) -> bool {
        let Some(d) = self.delivery(id).filter(|d| d.kind == DeliveryKind::OrderCreated && d.attempts > 0) else { return false };
        d.order_key
            .as_deref()
            .and_then(|k| self.order(k))
            .is_some_and(|o| o.order.remote_order_id.is_none() && matches!(o.order.status(), Status::Cancelled | Status::Rejected))
    }

    /// Cancels an order by the service itself (acceptance timeout, failed webhook).
    fn cancel_by_system(&mut self, key: &str, reason: &str, now_ms: i64) -> Result<super::ControlOutcome, ControlError> {
        let stored = self.order(key).ok_or_else(|| ControlError::NotFound(format!("no order {key}")))?;
        let mut event = Self::update_event(&stored.order, UpdateEvent::Cancelled, now_ms);
        event.insert("reason".into(), Value::String(reason.into()));
        self.apply_update(key, Value::Object(event), Who { actor: Some((ActorType::System, None)), driver_code: None }, now_ms)
    }

    /// Sends delivery `id` again now, `copies` times (the same id and body; signed at
    /// `wall_secs`). Their answers are journaled and change nothing here, except that a creation
    /// delivery still waiting for a remoteOrderId takes the first valid one.
    pub fn redeliver(&mut self, id: &str, copies: u32, wall_secs: i64) -> Result<Vec<Attempt>, ControlError> {
        if self.delivery(id).is_none() {
            return Err(ControlError::NotFound(format!("no delivery {id}")));
        }
        if !(1..=100).contains(&copies) {
            return Err(ControlError::Invalid("copies must be 1 to 100".into()));
        }
        Ok((0..copies).filter_map(|_| self.attempt_of(id, wall_secs, true)).collect())
    }

    /// The POS answered attempt `attempt` with `status` (0: no answer: refused, reset, or over the
    /// budget) and `body`, after `elapsed_ms`. Decides what follows at `now_ms` and journals the
    /// attempt ([`answered_with`](Self::answered_with) with no error text).
    pub fn answered(&mut self, attempt: u64, status: u16, body: &[u8], elapsed_ms: u64, now_ms: i64) -> Option<Settled> {
        self.answered_with(attempt, &PosAnswer { status, body, error: None, ms: elapsed_ms as f64 }, now_ms)
    }

    /// What came back for attempt `attempt` ([`PosAnswer`]): decides what follows at `now_ms`
    /// (`None` for an attempt the model does not know), and writes the attempt, the answer and
    /// what it settled into the journal (one entry for each attempt sent, copies included).
    pub fn answered_with(&mut self, attempt: u64, answer: &PosAnswer, now_ms: i64) -> Option<Settled> {
        let elapsed = if answer.ms.is_finite() && answer.ms > 0.0 { answer.ms as u64 } else { 0 };
        let mut settled = self.settle(attempt, answer.status, answer.body, elapsed, now_ms);
        if let Some(sent) = self.sending.remove(&attempt) {
            self.journal.record_delivery(&sent, answer, settled.as_ref(), now_ms);
            let line = delivery_log_line(&sent, answer.status, answer.error, answer.ms, settled.as_ref());
            if let Some(s) = settled.as_mut() {
                s.log = Some(line);
            }
        }
        settled
    }

    fn settle(&mut self, attempt: u64, status: u16, body: &[u8], elapsed_ms: u64, now_ms: i64) -> Option<Settled> {
        let (id, redelivery) = self.in_flight.remove(&attempt)?;
        let d = self.delivery(&id)?.clone();
        let budget = self.options.answer_budget_ms;
        let mut failure = None;
        let mut remote_order_id = None;
        if status == 0 {
            failure = Some("no answer (connection refused or reset, or over the answer budget)".to_string());
        } else if elapsed_ms > budget {
            failure = Some(format!("answered after {elapsed_ms} ms, over the {budget} ms budget"));
        } else if d.kind == DeliveryKind::OrderCreated {
            if status != 200 {
                failure = Some(format!("HTTP {status}: the creation webhook expects 200 with a remoteOrderId"));
            } else {
                match serde_json::from_slice::<Value>(body).ok().as_ref().and_then(|v| v.get("remoteOrderId")).and_then(Value::as_str) {
                    Some(r) if !r.trim().is_empty() && r.len() <= 256 => remote_order_id = Some(r.to_string()),
                    _ => failure = Some("200 without a valid remoteOrderId (a non-empty string) counts as failed".into()),
                }
            }
        } else if d.kind == DeliveryKind::MenuChange {
            // The answer's body is not shown; any 2xx counts (assumed).
            if !(200..300).contains(&status) {
                failure = Some(format!("HTTP {status}: the menu change webhook expects a 2xx"));
            }
        } else if status != 200 {
            failure = Some(format!("HTTP {status}: the update webhook expects 200"));
        }
        let mut settled = Settled {
            delivery_id: id.clone(),
            ok: failure.is_none(),
            failure: failure.clone(),
            retry_at_ms: None,
            exhausted: false,
            effects: Vec::new(),
            deliveries: Vec::new(),
            log: None,
        };
        if let Some(remote) = remote_order_id {
            let key = d.order_key.clone().unwrap_or_default();
            let first = self.order(&key).is_some_and(|o| o.order.remote_order_id.is_none());
            if let Some(dm) = self.delivery_mut(&id) {
                dm.state = DeliveryState::Delivered;
            }
            if first {
                if let Some(s) = self.order_mut(&key) {
                    s.order.remote_order_id = Some(remote.clone());
                }
                settled.effects.push(format!("remoteOrderId {remote:?} kept"));
                let auto = self.order(&key).is_some_and(|o| {
                    o.knobs.auto_accept.unwrap_or_else(|| self.config.store(&o.store).is_some_and(|(_, st)| st.auto_accept))
                });
                if auto && self.order(&key).is_some_and(|o| o.order.status() == Status::Pending) {
                    match self.apply_trigger(&key, crate::order::ServiceTrigger::AutoAccept, None, now_ms) {
                        Ok((_, note)) => settled.effects.push(format!("auto-accept store: {note}")),
                        Err(e) => settled.effects.push(format!("auto-accept not applied: {e}")),
                    }
                }
            }
            return Some(settled);
        }
        // A copy's answer changes nothing; nor does a failed attempt of a delivery a copy has
        // already delivered (it is not retried).
        if redelivery || d.state == DeliveryState::Delivered {
            return Some(settled);
        }
        if failure.is_none() {
            if let Some(dm) = self.delivery_mut(&id) {
                dm.state = DeliveryState::Delivered;
            }
            return Some(settled);
        }
        let attempts = d.attempts as usize;
        if let Some(&delay) = self.options.retry_schedule_seconds.get(attempts.saturating_sub(1)) {
            let at = now_ms + delay * 1000;
            if let Some(dm) = self.delivery_mut(&id) {
                dm.state = DeliveryState::Scheduled;
            }
            self.schedule(at, Timer::Deliver { delivery_id: id.clone() });
            settled.retry_at_ms = Some(at);
        } else {
            settled.exhausted = true;
            if let Some(dm) = self.delivery_mut(&id) {
                dm.state = DeliveryState::Failed;
            }
            if d.kind == DeliveryKind::OrderCreated {
                // The last attempt of the creation webhook failed: the service cancels the order
                // ("failed webhook", actor system). What it does is not shown: assumed.
                let key = d.order_key.clone().unwrap_or_default();
                if self
                    .order(&key)
                    .is_some_and(|o| o.order.remote_order_id.is_none() && !matches!(o.order.status(), Status::Cancelled | Status::Rejected))
                {
                    match self.cancel_by_system(&key, "failed webhook", now_ms) {
                        Ok(out) => {
                            settled
                                .effects
                                .push("the creation webhook failed on every attempt: the order is Cancelled (failed webhook)".into());
                            settled.deliveries = out.deliveries;
                        }
                        Err(e) => settled.effects.push(format!("not cancelled: {e}")),
                    }
                }
            }
        }
        Some(settled)
    }
}

/// A path segment with every byte outside the unreserved set percent-encoded.
pub(super) fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The log line of a REST call a face prints (`← GET /api/v1/Orders 200 in 0.4 ms`).
pub fn rest_log_line(method: &str, target: &str, status: u16, replayed: bool, retry_after: Option<u32>, ms: f64) -> String {
    let replayed = if replayed { " (replayed)" } else { "" };
    let retry = retry_after.filter(|s| *s > 0).map(|s| format!(" Retry-After {s}")).unwrap_or_default();
    let tenths = (ms.max(0.0) * 10.0).round() as u64;
    format!("← {method} {target} {status}{replayed}{retry} in {}.{} ms", tenths / 10, tenths % 10)
}

/// The log line of a delivery attempt a face prints once the POS answered (or did not), with what
/// its answer settled.
pub fn delivery_log_line(a: &Attempt, status: u16, error: Option<&str>, ms: f64, settled: Option<&Settled>) -> String {
    let kind = serde_json::to_value(a.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let mut line =
        format!("→ {} {} #{}{} {kind} {}: ", a.method, a.url, a.number, if a.redelivery { " (redelivery)" } else { "" }, a.delivery_id);
    if status == 0 {
        line.push_str(&format!("no answer ({})", error.unwrap_or("no answer")));
    } else {
        line.push_str(&format!("HTTP {status}"));
    }
    line.push_str(&format!(" in {ms} ms"));
    if !settled.is_some_and(|s| s.ok) {
        line.push_str(&format!("; {}", settled.and_then(|s| s.failure.as_deref()).unwrap_or("failed")));
    }
    if let Some(at) = settled.and_then(|s| s.retry_at_ms) {
        let base = crate::time::format_unix_seconds(at.div_euclid(1000));
        line.push_str(&format!("; retry at {}.{:03}Z", &base[..base.len() - 1], at.rem_euclid(1000)));
    }
    if settled.is_some_and(|s| s.exhausted) {
        line.push_str("; no attempt left");
    }
    if let Some(s) = settled.filter(|s| !s.effects.is_empty()) {
        line.push_str(&format!("; {}", s.effects.join("; ")));
    }
    line
}
