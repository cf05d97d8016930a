//! The probe's bindings (in `poscheck/sandbox`'s module, the `sandbox` feature): the plan of a
//! run ([`crate::probe::plan`]) that the face (`pkg/src/probe.js`) drives, and the probe's
//! variants, graders and reports. Each method converts its arguments, calls the core and converts
//! the result; steps and outcomes cross as JSON text.

use super::error;
use crate::probe::plan::{Flow, Plan, PlanError};
use wasm_bindgen::prelude::*;

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

fn plan_error(e: &PlanError) -> JsValue {
    error(e.code(), &e.to_string(), None)
}

/// Unix milliseconds from JS: a finite number from 0 on.
fn checked(value: f64) -> Result<f64, JsValue> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(error("INVALID_ARGUMENT", "now must be unix milliseconds", None))
    }
}

/// A run of the probe: the face asks for each step, performs it, and reports what it gave.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ProbePlan {
    inner: Plan,
}

#[wasm_bindgen]
impl ProbePlan {
    /// The plan of a run with `options` (JSON text: `probe()`'s options), whose ids are drawn from
    /// `default_seed` when the options give no seed. Bad options: an `INVALID_ARGUMENT` error.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &str, default_seed: f64) -> Result<ProbePlan, JsValue> {
        if !(default_seed.is_finite() && (0.0..=9_007_199_254_740_991.0).contains(&default_seed)) {
            return Err(error("INVALID_ARGUMENT", "seed must be a non-negative integer", None));
        }
        let inner = Plan::from_json(options, default_seed as u64).map_err(|e| plan_error(&e))?;
        Ok(Self { inner })
    }

    /// The step to perform at `now_ms` (unix ms), as JSON: `{ say, kind, … }` (see
    /// [`crate::probe::plan::Step`]); `kind` is `done` once the run is over.
    pub fn next(&mut self, now: f64) -> Result<String, JsValue> {
        let next = self.inner.next(checked(now)?).map_err(|e| plan_error(&e))?;
        Ok(json(&next))
    }

    /// What the last step gave (JSON: `{ value }`, `{ error }` or `{ answers }`), at `now_ms`:
    /// true to go on, false when the run ends with the step's own error.
    pub fn report(&mut self, outcome: &str, now: f64) -> Result<bool, JsValue> {
        let flow = self.inner.report_json(outcome, checked(now)?).map_err(|e| plan_error(&e))?;
        Ok(flow == Flow::Go)
    }

    /// The run's report as JSON (what `probe()` resolves with), `duration_ms` long.
    pub fn finish(&self, duration_ms: f64) -> String {
        let duration = if duration_ms.is_finite() && duration_ms >= 0.0 { duration_ms } else { 0.0 };
        crate::probe::report::render(&self.inner.finish(duration), crate::probe::report::Format::Json)
    }
}

fn probe_input<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, JsValue> {
    serde_json::from_str(text).map_err(|e| error("INVALID_ARGUMENT", &format!("{what}: {e}"), None))
}

/// The probe's variants of genuine deliveries, with their own seeded ids.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Probe {
    secret: Vec<u8>,
    ids: crate::service::Ids,
}

#[wasm_bindgen]
impl Probe {
    /// A probe signing with the account's `secret`, its fresh ids drawn from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(secret: &[u8], seed: f64) -> Result<Probe, JsValue> {
        if !(seed.is_finite() && (0.0..=9_007_199_254_740_991.0).contains(&seed)) {
            return Err(error("INVALID_ARGUMENT", "seed must be a non-negative integer", None));
        }
        if secret.is_empty() {
            return Err(error("INVALID_SECRET", "the secret is empty", None));
        }
        Ok(Self { secret: secret.to_vec(), ids: crate::service::Ids::new(seed as u64 ^ 0x0050_524f_4245) })
    }

    /// The variant `name` of the genuine delivery `genuine` (JSON: method, url, headers, body),
    /// sent at `now` (unix seconds): JSON of the same shape.
    pub fn variant(&mut self, name: &str, genuine: &str, now: f64) -> Result<String, JsValue> {
        let v =
            crate::probe::variant::Variant::parse(name).ok_or_else(|| error("INVALID_ARGUMENT", &format!("no variant {name:?}"), None))?;
        let g: crate::probe::Exchange = probe_input(genuine, "the genuine delivery")?;
        if !(now.is_finite() && (0.0..=253_402_300_799.0).contains(&now)) {
            return Err(error("INVALID_ARGUMENT", "now must be unix seconds", None));
        }
        let out = crate::probe::variant::make(v, &g, &self.secret, now as u64, &mut self.ids)
            .map_err(|e| error(e.code(), &e.to_string(), None))?;
        Ok(json(&out))
    }

    /// A fresh UUID v4 from the probe's generator (its own Idempotency-Keys).
    #[wasm_bindgen(js_name = uuid)]
    pub fn uuid(&mut self) -> String {
        self.ids.uuid_v4()
    }

    /// The verdict of the receiver check `id` on `input` (JSON: exchanges, unavailable,
    /// creationWorks, budgetMs): a check as JSON.
    #[wasm_bindgen(js_name = gradeReceiver)]
    pub fn grade_receiver(id: &str, input: &str) -> Result<String, JsValue> {
        let input: crate::probe::receiver::ReceiverInput = probe_input(input, "the receiver check's input")?;
        let check = crate::probe::receiver::grade(id, &input)
            .ok_or_else(|| error("INVALID_ARGUMENT", &format!("no receiver check {id:?}"), None))?;
        Ok(json(&check))
    }

    /// The verdicts of every client check on `input` (JSON: calls, excludeKeys, waitSeconds).
    #[wasm_bindgen(js_name = gradeClient)]
    pub fn grade_client(input: &str) -> Result<String, JsValue> {
        let input: crate::probe::client::ClientInput = probe_input(input, "the client checks' input")?;
        Ok(json(&crate::probe::client::grade(&input)))
    }

    /// A check of `id` with a status and message the face decided not to run (skipped, or not
    /// run for a reason): JSON.
    #[wasm_bindgen(js_name = unrun)]
    pub fn unrun(id: &str, status: &str, message: &str) -> Result<String, JsValue> {
        let status = match status {
            "skipped" => crate::probe::CheckStatus::Skipped,
            "inconclusive" => crate::probe::CheckStatus::Inconclusive,
            _ => return Err(error("INVALID_ARGUMENT", "status must be skipped or inconclusive", None)),
        };
        let check = crate::probe::Check::of(id, status, message, &[])
            .ok_or_else(|| error("INVALID_ARGUMENT", &format!("no check {id:?}"), None))?;
        Ok(json(&check))
    }

    /// The report of `checks` (JSON) in `format` (`text`, `json`, `junit`, `markdown`).
    pub fn report(pos: &str, duration_ms: f64, checks: &str, format: &str) -> Result<String, JsValue> {
        let checks: Vec<crate::probe::Check> = probe_input(checks, "the checks")?;
        let format = crate::probe::report::Format::parse(format)
            .ok_or_else(|| error("INVALID_ARGUMENT", "format must be text, json, junit or markdown", None))?;
        Ok(crate::probe::report::render(&crate::probe::report::Report::new(pos, duration_ms, checks), format))
    }

    /// Every check of the probe: id, side, severity, doc, basis, source (JSON).
    pub fn rules() -> String {
        json(&crate::probe::RULES)
    }
}
