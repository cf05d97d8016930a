//! The diagnosis of a refused genuine creation (issue 40): when the POS refuses the run's genuine
//! creation webhook (not 2xx, or 2xx without a remoteOrderId), the plan asks the POS itself why,
//! with the catalogue of causes ([`crate::signature::plan`]): each diagnostic delivery is a genuine
//! creation with a fresh delivery id and orderKey, signed the way one common mistake verifies,
//! sent as an ordinary [`Step::Send`]. The first one the POS accepts names the cause
//! (`receiver/refusal-cause`); one signed in a way the service never signs is a second defect
//! (`receiver/signature-as-the-service-signs`). An answer 404 or 405 says the route instead, and a
//! POS that accepts the genuine creation gets no diagnostic delivery.

use super::{Exchange, Outcome, Outgoing, Plan, Step, CREATION, END};
use crate::probe::variant::{self, Variant};
use crate::probe::{Check, CheckStatus};
use crate::receiver::RouteId;
use crate::signature::{self, Attempt, Delivery, FOREIGN_SIGNATURE_RULE, MAX_DIAGNOSTIC_DELIVERIES, REFUSAL_CAUSE_RULE};
use std::collections::BTreeMap;

/// The check that names the refusal's cause.
pub(crate) const REFUSAL: &str = REFUSAL_CAUSE_RULE.id;
/// The check failed by a POS that accepts a signature the service never makes.
pub(crate) const FOREIGN: &str = FOREIGN_SIGNATURE_RULE.id;

/// Where the diagnosis is.
#[derive(Debug, Clone, Default)]
pub(super) struct Diagnosis {
    /// The catalogue's attempts, in order.
    attempts: Vec<Attempt>,
    /// The next attempt to make.
    next: usize,
    /// The attempts sent.
    tried: Vec<Attempt>,
    /// The attempt sent and its delivery, while its answer is due.
    sending: Option<(Attempt, Exchange)>,
    /// The receiver checks' bound was reached before the catalogue was exhausted.
    bounded: bool,
    /// At least one diagnostic delivery got an HTTP answer.
    answered: bool,
}

/// How the genuine creation was refused: "HTTP 401", "HTTP 200 without a remoteOrderId", "no answer (…)".
fn refusal(e: &Exchange) -> String {
    if e.ok() && e.remote_order_id().is_none() {
        format!("{} without a remoteOrderId", e.outcome())
    } else {
        e.outcome()
    }
}

impl Plan {
    fn decide(&mut self, id: &str, status: CheckStatus, message: String, evidence: &[&Exchange]) {
        if self.wanted(id) {
            if let Some(c) = Check::of(id, status, message, evidence) {
                self.record(c);
            }
        }
    }

    /// The next diagnostic delivery, or `None` once the diagnosis is decided.
    pub(super) fn play_diagnose(&mut self, now: f64) -> Option<Step> {
        if !self.wanted(REFUSAL) && !self.wanted(FOREIGN) {
            return None;
        }
        if self.creation_works {
            let why = "the genuine creation webhook was accepted: no diagnostic delivery was sent";
            self.decide(REFUSAL, CheckStatus::Passed, why.into(), &[]);
            self.decide(
                FOREIGN,
                CheckStatus::Passed,
                format!("{why} (other signatures: receiver/signature-tampered-body, receiver/signature-wrong-secret)"),
                &[],
            );
            return None;
        }
        let Some(refused) = self.refused.clone() else {
            let why = format!("not run: no genuine creation webhook was delivered (see {CREATION})");
            self.decide(REFUSAL, CheckStatus::Inconclusive, why.clone(), &[]);
            self.decide(FOREIGN, CheckStatus::Inconclusive, why, &[]);
            return None;
        };
        if self.sub == 0 {
            if let Some(m) = refused
                .status
                .and_then(|s| signature::wrong_route_message(s, &refused.method, &refused.url, RouteId::OrderCreated.template()))
            {
                self.decide(REFUSAL, CheckStatus::Failed, m, &[&refused]);
                self.decide(
                    FOREIGN,
                    CheckStatus::Inconclusive,
                    "not run: the genuine creation webhook's route was not served (see receiver/refusal-cause)".into(),
                    &[],
                );
                return None;
            }
            // No HTTP answer at all (nothing listening, a timeout): not a refusal, nothing to
            // diagnose from answers.
            if refused.status.filter(|&s| s != 0).is_none() {
                let why = format!(
                    "not run: the genuine creation webhook got no HTTP answer ({}), so there is no refusal to diagnose (see {CREATION})",
                    refusal(&refused)
                );
                self.decide(REFUSAL, CheckStatus::Inconclusive, why.clone(), &[&refused]);
                self.decide(FOREIGN, CheckStatus::Inconclusive, why, &[]);
                return None;
            }
            self.diag = Diagnosis { attempts: signature::plan(), ..Diagnosis::default() };
            self.say.push(format!(
                "the genuine creation webhook was refused ({}): up to {} diagnostic deliveries, each signed the way one common mistake verifies",
                refusal(&refused),
                self.diag.attempts.len().min(MAX_DIAGNOSTIC_DELIVERIES)
            ));
            self.sub = 1;
        }
        let secret = self.sandbox.as_ref().map(|s| s.secret.clone()).unwrap_or_default();
        let now_s = (now / 1000.0).floor().max(0.0) as u64;
        while let Some(&attempt) = self.diag.attempts.get(self.diag.next) {
            if self.diag.tried.len() >= MAX_DIAGNOSTIC_DELIVERIES {
                break;
            }
            if self.bounded(now) {
                self.diag.bounded = true;
                break;
            }
            self.diag.next += 1;
            // A genuine creation with a fresh orderKey (and delivery id), then signed the mistaken way.
            let fresh = match variant::make(Variant::FreshOrder, &refused, secret.as_bytes(), now_s, &mut self.ids) {
                Ok(fresh) => fresh,
                Err(e) => {
                    let why = format!("not run: {e}");
                    self.decide(REFUSAL, CheckStatus::Inconclusive, why.clone(), &[&refused]);
                    self.decide(FOREIGN, CheckStatus::Inconclusive, why, &[]);
                    return None;
                }
            };
            let genuine = Delivery {
                method: fresh.method.clone(),
                url: fresh.url.clone(),
                headers: crate::http::Headers::from_pairs(fresh.headers.clone()),
                body: fresh.body.clone().into_bytes(),
            };
            let ids = &mut self.ids;
            let Ok(Some(made)) = signature::probe_variant(attempt, &genuine, secret.as_bytes(), now_s, &mut || ids.uuid_v4()) else {
                continue;
            };
            let headers: BTreeMap<String, String> = made.headers.pairs().iter().cloned().collect();
            let id = headers.get("X-Service-Delivery-Id").cloned().unwrap_or_default();
            let ex = Exchange {
                method: made.method,
                url: made.url,
                headers,
                body: String::from_utf8_lossy(&made.body).into_owned(),
                note: Some(format!("diagnostic delivery {} ({}), X-Service-Delivery-Id {id}", attempt.cause.id, attempt.step)),
                ..Exchange::default()
            };
            let out = Outgoing { method: ex.method.clone(), url: ex.url.clone(), headers: ex.headers.clone(), body: ex.body.clone() };
            self.diag.sending = Some((attempt, ex));
            return Some(Step::Send { exchange: out, copies: 1, timeout_ms: self.left(now) });
        }
        self.conclude(None);
        None
    }

    /// The answer to a diagnostic delivery.
    pub(super) fn take_diagnose(&mut self, outcome: Outcome) {
        let Some((attempt, sent)) = self.diag.sending.take() else {
            self.sub = END;
            return;
        };
        let a = outcome.answers.into_iter().next().unwrap_or_default();
        let ex = Exchange { status: a.status.filter(|&s| s != 0), answer: a.answer, ms: a.ms, error: a.error, at: a.at, ..sent };
        self.all.push(ex.clone());
        self.diag.answered |= ex.status.is_some();
        self.diag.tried.push(attempt);
        if ex.remote_order_id().is_some() {
            self.conclude(Some((attempt, ex)));
        }
    }

    /// The two checks, once an attempt was accepted (`Some`) or none was.
    fn conclude(&mut self, accepted: Option<(Attempt, Exchange)>) {
        self.sub = END;
        let refused = self.refused.clone().unwrap_or_default();
        let genuine = refusal(&refused);
        let tried = std::mem::take(&mut self.diag.tried);
        match accepted {
            Some((a, ex)) => {
                let answer = ex.outcome();
                let m = signature::refusal_cause_message(&genuine, Some((a, &answer)), &tried);
                self.decide(REFUSAL, CheckStatus::Failed, m, &[&refused, &ex]);
                match signature::foreign_signature_message(a, &answer) {
                    Some(m) => self.decide(FOREIGN, CheckStatus::Failed, m, &[&ex]),
                    None => self.decide(
                        FOREIGN,
                        CheckStatus::Passed,
                        "the diagnostic delivery accepted was signed as the service signs (its timestamp shifted): no other signature was accepted".into(),
                        &[],
                    ),
                }
            }
            None => {
                let mut m = signature::refusal_cause_message(&genuine, None, &tried);
                if self.diag.bounded {
                    m.push_str(&format!(" The receiver checks' bound was reached after {} diagnostic deliveries.", tried.len()));
                }
                self.decide(REFUSAL, CheckStatus::Failed, m, &[&refused]);
                if tried.is_empty() {
                    self.decide(FOREIGN, CheckStatus::Inconclusive, "not run: no diagnostic delivery was sent".into(), &[]);
                } else if !self.diag.answered {
                    let m = "no diagnostic delivery got an HTTP answer, so no signature was seen refused".to_string();
                    self.decide(FOREIGN, CheckStatus::Inconclusive, m, &[]);
                } else {
                    let m = format!(
                        "none of the {} diagnostic deliveries (each signed the way one common mistake verifies) was accepted",
                        tried.len()
                    );
                    self.decide(FOREIGN, CheckStatus::Passed, m, &[]);
                }
            }
        }
    }
}
