//! Fuzz harness of poscheck: the entry points each cargo-fuzz target calls. The same file is
//! replayed on stable by `tests/regressions.rs` (it includes `harness.rs` with `#[path]`).
pub mod harness;
