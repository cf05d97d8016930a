//! The native faces of the service model (the `server` feature, native builds only): `poscheck
//! sandbox` ([`sandbox`]) and `poscheck probe` ([`probe`]) without Node.
//!
//! Like the npm face (`pkg/src/sandbox.js`, `pkg/src/probe.js`) they decide nothing: the model
//! ([`crate::service`], its controls and journal) answers every request and decides what every
//! delivery's answer changes, and the probe's plan ([`crate::probe::plan`]) decides what a run
//! plays. These files listen (hyper 1 on tokio), send (hyper's client, with rustls and the
//! platform's roots for `https://` POS URLs), keep time and read and write the state file.

pub mod cli;
pub mod probe;
pub mod sandbox;

mod conn;
mod console;
mod send;

pub use sandbox::{Sandbox, SandboxOptions};

/// An error of a native face, with the npm face's stable code (`INVALID_ARGUMENT`,
/// `INVALID_CONFIG`, `EADDRINUSE`, `IO`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceError {
    /// The stable code.
    pub code: String,
    /// What went wrong, for the reader.
    pub message: String,
}

impl FaceError {
    pub(crate) fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.to_string(), message: message.into() }
    }
}

impl std::fmt::Display for FaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FaceError {}

/// Unix milliseconds of the system clock.
pub(crate) fn wall_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A seed for ids when none is given (fresh ids each run), below 2^32 as the npm face's.
pub(crate) fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    (nanos ^ u64::from(std::process::id()).rotate_left(17)) & 0xffff_ffff
}
