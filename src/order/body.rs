//! The body of an order action (accept, reject, PUT status), read once: its errors by the rules of
//! `validateRequest`, and the two values the engine acts on (`status`, `reasonCode`).

use crate::diagnostic::{parse_error_report, Collector, Path, Report, Severity};
use crate::json;
use crate::shape::bodies::BodyKind;

/// The body of an order action as the engine reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionBody {
    /// The body's errors (field path, message), in the report's order.
    pub(crate) errors: Vec<(String, String)>,
    /// `status` (PUT status), when a string.
    pub(crate) status: Option<String>,
    /// `reasonCode` (reject), when a string.
    pub(crate) reason_code: Option<String>,
}

impl ActionBody {
    /// Parses `bytes` (once) as the body of an action of kind `kind` (accept, reject, or PUT
    /// status) and checks it by the rules of `validateRequest`; `now` (unix seconds) serves the
    /// occurredAt clamp.
    pub(crate) fn check(kind: BodyKind, bytes: &[u8], now: i64) -> Self {
        let arena = json::Arena::for_input(bytes.len());
        match json::parse(bytes, &json::Limits::default(), &arena) {
            Ok(doc) => {
                let mut c = Collector::new();
                c.set_kind("request");
                c.duplicate_keys(&doc);
                crate::shape::bodies::check(&mut c, kind, &Path::ROOT, &doc.root, now);
                Self::values(&doc.root).with_errors(&c.finish(bytes))
            }
            Err(e) => {
                // A body the JSON reader refuses is answered 422 by its error; its `status` is the
                // one a more lenient reader finds (the PUT status value it names, as simulated).
                let lenient = serde_json::from_slice::<serde_json::Value>(bytes).ok();
                let status = lenient.as_ref().and_then(|v| v.get("status")).and_then(serde_json::Value::as_str).map(str::to_string);
                Self { errors: errors_of(&parse_error_report(bytes, &e, Some("request"))), status, reason_code: None }
            }
        }
    }

    /// The values of the body whose tree is `root` (no errors yet).
    pub(crate) fn values(root: &json::Value) -> Self {
        let text = |key: &str| root.get(key).and_then(json::Value::as_str).map(str::to_string);
        Self { errors: Vec::new(), status: text("status"), reason_code: text("reasonCode") }
    }

    /// The body with the errors of `report` (the check of this body).
    pub(crate) fn with_errors(self, report: &Report) -> Self {
        Self { errors: errors_of(report), ..self }
    }

    /// The `status` of a PUT status body, when it is a string.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }
}

fn errors_of(report: &Report) -> Vec<(String, String)> {
    report.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| (d.path.clone(), d.message.clone())).collect()
}
