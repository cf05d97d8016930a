//! What was pasted: a payload, a raw HTTP request, or a response (a problem, or a 2xx body).
//! The page's Payload tool and `poscheck validate` call this, so the decision lives in the core.

use super::{classify_problem, validate_payload, validate_request, Classification, PayloadOptions, Prediction, ProblemInput, Request};
use crate::diagnostic::Report;
use crate::http;
use serde::Serialize;

/// The result of [`inspect`], tagged by what was detected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "detected", rename_all = "camelCase")]
pub enum Inspection {
    /// A JSON payload (or headers followed by one): checked by [`validate_payload`].
    Payload {
        /// Its report.
        report: Report,
    },
    /// A REST request to the service: the service's predicted answer.
    #[serde(rename_all = "camelCase")]
    Request {
        /// The request method.
        method: String,
        /// The request target.
        path: String,
        /// The service's predicted answer, with its report.
        prediction: Prediction,
    },
    /// An error response (status ≥ 400): what it means and what to do.
    Problem {
        /// The response status.
        status: u16,
        /// What it means and what to do.
        classification: Classification,
    },
    /// A 2xx response: its body checked as a payload.
    Response {
        /// The response status.
        status: u16,
        /// The report on its body.
        report: Report,
    },
}

/// Detects what `input` is and checks it. A raw HTTP message is split with
/// [`http::parse_message`]; a request line means a REST request, a status line a response;
/// anything else is a payload. `now` (unix seconds) serves the occurredAt clamp and Retry-After.
pub fn inspect(input: &[u8], options: &PayloadOptions, now: i64) -> Inspection {
    if !http::looks_like_message(input) {
        return Inspection::Payload { report: validate_payload(input, options) };
    }
    let message = match http::parse_message(input) {
        Ok(m) => m,
        // Not a well-formed HTTP message after all: check it as a payload, whose report will say
        // what is wrong with the text at its exact position.
        Err(_) => return Inspection::Payload { report: validate_payload(input, options) },
    };
    if let Some(request) = Request::from_message(&message, now) {
        let prediction = validate_request(&request);
        return Inspection::Request { method: request.method, path: request.path, prediction };
    }
    if let Some(status) = message.status {
        if status >= 400 {
            if let Some(problem) = ProblemInput::from_message(&message, Some(now)) {
                return Inspection::Problem { status, classification: classify_problem(&problem) };
            }
        }
        return Inspection::Response { status, report: validate_payload(&message.body, options) };
    }
    // Headers then a body, without a start line: a captured webhook body.
    Inspection::Payload { report: validate_payload(&message.body, options) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detected(input: &str) -> &'static str {
        match inspect(input.as_bytes(), &PayloadOptions::default(), 1_786_492_800) {
            Inspection::Payload { .. } => "payload",
            Inspection::Request { .. } => "request",
            Inspection::Problem { .. } => "problem",
            Inspection::Response { .. } => "response",
        }
    }

    #[test]
    fn detects_each_shape() {
        assert_eq!(detected("{\"orderKey\": \"ord_0123456789abcdEF\"}"), "payload");
        assert_eq!(detected("GET /api/v1/Orders HTTP/1.1\nX-Service-Api-Key: k\n\n"), "request");
        assert_eq!(
            detected("HTTP/1.1 409 Conflict\nContent-Type: application/problem+json\n\n{\"type\":\"x/acceptance-timeout\",\"status\":409}"),
            "problem"
        );
        assert_eq!(detected("HTTP/1.1 200 OK\n\n{\"message\":\"ok\",\"data\":{}}"), "response");
        assert_eq!(detected("Content-Type: application/json\n\n{\"changeKey\":\"chg_0123456789abcdEF\"}"), "payload");
    }
}
