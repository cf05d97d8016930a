//! The update scenarios (the sandbox's actors act on the run's order, and the update webhooks
//! are graded) and the menu change scenario.

use super::{
    parse, Act, Delivered, Outcome, Plan, PlanError, SandboxCall, Step, END, MENU_CHANGE, MENU_CHANGE_POLL_MS, MENU_CHANGE_WAIT_MS,
    RELEASED,
};
use crate::contract::{ActorType, Status, SCHEMA_VERSION};
use crate::probe::Exchange;
use crate::service::DeliveryKind;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The REST answer of the probe's own call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RestAnswer {
    status: Option<u16>,
    text: Option<String>,
}

impl Plan {
    // Update: sub 0 reads the log up to now, sub 1 the actors act (`self.act` counts their
    // calls), sub 2 reads what they sent.
    pub(super) fn play_update(&mut self, check: &'static str, act: Act, feeds: &[&str], now: f64) -> Option<Step> {
        let wanted = self.wanted(check);
        if self.sub == 0 {
            if !wanted && !feeds.iter().any(|f| self.wanted(f)) {
                return None;
            }
            if !self.creation_works {
                if wanted {
                    self.grade_unavailable(check, Self::not_preparing());
                }
                return None;
            }
            if self.bounded(now) {
                if wanted {
                    self.bound_reached(check);
                }
                return None;
            }
            self.act = 0;
            return Some(Step::Sandbox(SandboxCall::Deliveries));
        }
        if self.sub == 1 {
            let key = self.key();
            let call = match (act, self.act) {
                (Act::AssignTwice, 0) => Some(SandboxCall::AssignDriver(key, None)),
                (Act::AssignTwice, 1) => {
                    Some(SandboxCall::AssignDriver(key, Some(json!({ "fullName": "Bo Lindqvist", "phone": "+46701234567" }))))
                }
                (Act::Release, 0) => Some(SandboxCall::ReleaseDriver(key, json!({ "reason": "vehicle breakdown" }))),
                (Act::Deliver, 0) => Some(SandboxCall::Deliver(key)),
                (Act::Refund, 0) => Some(SandboxCall::Refund(key, json!({ "reason": "refund" }))),
                (Act::CancelOther, 0) => Some(SandboxCall::CreateOrder(self.new_order(true, None, None))),
                (Act::CancelOther, 1) => Some(SandboxCall::Deliveries),
                (Act::CancelOther, 2) => {
                    let other = self.other.order_key.clone().map_or(Value::Null, Value::String);
                    let by = ActorType::Customer.as_str();
                    Some(SandboxCall::Cancel(other, json!({ "by": by, "reason": "changed my mind" })))
                }
                _ => None,
            };
            if let Some(call) = call {
                return Some(Step::Sandbox(call));
            }
            self.sub = 2;
        }
        Some(Step::Sandbox(SandboxCall::Deliveries))
    }

    pub(super) fn take_update(&mut self, check: &'static str, what: &'static str, act: Act, outcome: Outcome) -> Result<(), PlanError> {
        let wanted = self.wanted(check);
        match self.sub {
            0 => {
                let _ = self.fresh(outcome.value)?;
                self.sub = 1;
            }
            1 => {
                let failed = match (outcome.error, act, self.act) {
                    (Some(e), ..) => Some(e),
                    (None, Act::CancelOther, 0) => {
                        self.other = parse(outcome.value, "the order")?;
                        None
                    }
                    (None, Act::CancelOther, 1) => {
                        let made = self.fresh(outcome.value)?;
                        self.all.extend(made.iter().map(Delivered::exchange));
                        let status = self.other.status.clone().unwrap_or_else(|| "undefined".into());
                        (status != Status::Preparing.as_str()).then(|| {
                            let got = made.first().and_then(|d| d.status).filter(|&s| s != 0);
                            format!(
                                "its order is {status}, not {} (its creation webhook got {})",
                                Status::Preparing.as_str(),
                                got.map_or_else(|| "no answer".to_string(), |s| s.to_string())
                            )
                        })
                    }
                    _ => None,
                };
                if let Some(e) = failed {
                    if wanted {
                        self.grade_unavailable(check, format!("not run: the sandbox could not {what}: {e}"));
                    }
                    self.sub = END;
                } else {
                    self.act += 1;
                }
            }
            _ => {
                let sent: Vec<Exchange> =
                    self.fresh(outcome.value)?.iter().filter(|d| d.is(DeliveryKind::OrderUpdate)).map(Delivered::exchange).collect();
                self.all.extend(sent.iter().cloned());
                if check == RELEASED {
                    self.released = sent.first().cloned();
                }
                if wanted {
                    if sent.is_empty() {
                        self.grade_unavailable(check, format!("no update webhook was sent when the sandbox {what}"));
                    } else {
                        self.grade_with(check, sent);
                    }
                }
                self.sub = END;
            }
        }
        Ok(())
    }

    // The menu change: sub 0 reads the log up to now, sub 1 writes the product, then sub 2 lets
    // the deliveries settle, sub 3 reads them and sub 4 pauses, until the webhook went or the
    // wait is over.
    pub(super) fn play_menu_change(&mut self, now: f64) -> Option<Step> {
        match self.sub {
            0 => {
                if !self.wanted(MENU_CHANGE) {
                    return None;
                }
                if self.bounded(now) {
                    self.bound_reached(MENU_CHANGE);
                    return None;
                }
                self.gathered.clear();
                Some(Step::Sandbox(SandboxCall::Deliveries))
            }
            1 => {
                let idem = self.ids.uuid_v4();
                self.own_keys.push(idem.clone());
                let sb = self.sandbox.as_ref()?;
                let mut headers = Map::new();
                headers.insert("X-Service-Api-Key".into(), Value::String(sb.api_key.clone()));
                headers.insert("X-Service-Schema-Version".into(), Value::String(SCHEMA_VERSION.into()));
                headers.insert("Idempotency-Key".into(), Value::String(idem.clone()));
                headers.insert("Content-Type".into(), Value::String("application/json".into()));
                let body = json!({
                    "code": format!("PROBE-{}", &idem[..8.min(idem.len())]),
                    "name": "poscheck probe item",
                    "price": 1,
                    "categoryCode": "poscheck-probe",
                });
                let store = self.store().replace(':', "%3A");
                Some(Step::Rest {
                    method: "POST",
                    url: format!("{}/api/v1/menu/stores/{store}/products", sb.url),
                    headers,
                    body: body.to_string(),
                })
            }
            2 if now < self.until => Some(Step::Sandbox(SandboxCall::Settle)),
            3 => Some(Step::Sandbox(SandboxCall::Deliveries)),
            4 => Some(Step::Sleep { ms: MENU_CHANGE_POLL_MS }),
            _ => {
                let sent = std::mem::take(&mut self.gathered);
                self.all.extend(sent.iter().cloned());
                if sent.is_empty() {
                    let why = format!("the menu change webhook was not sent within {} s", MENU_CHANGE_WAIT_MS / 1000.0);
                    self.grade_unavailable(MENU_CHANGE, why);
                } else {
                    self.grade_with(MENU_CHANGE, sent);
                }
                None
            }
        }
    }

    pub(super) fn take_menu_change(&mut self, outcome: Outcome, now: f64) -> Result<(), PlanError> {
        match self.sub {
            0 => {
                let _ = self.fresh(outcome.value)?;
                self.sub = 1;
            }
            1 => {
                let answer = match outcome.error {
                    Some(e) => RestAnswer { status: None, text: Some(e) },
                    None => parse(outcome.value, "the sandbox's answer")?,
                };
                if answer.status == Some(202) {
                    self.until = now + MENU_CHANGE_WAIT_MS.min(self.left(now));
                    self.sub = 2;
                } else {
                    let status = answer.status.map_or_else(|| "no answer".to_string(), |s| s.to_string());
                    let text: String = answer.text.unwrap_or_else(|| "undefined".into()).chars().take(200).collect();
                    self.grade_unavailable(MENU_CHANGE, format!("not run: the sandbox refused the probe's menu write ({status}: {text})"));
                    self.sub = END;
                }
            }
            2 => self.sub = 3,
            3 => {
                let fresh = self.fresh(outcome.value)?;
                self.gathered.extend(fresh.iter().filter(|d| d.is(DeliveryKind::MenuChange)).map(Delivered::exchange));
                // With the webhook in hand the scene ends (its verdict at the next step).
                self.sub = if self.gathered.is_empty() { 4 } else { 5 };
            }
            _ => self.sub = 2,
        }
        Ok(())
    }
}
