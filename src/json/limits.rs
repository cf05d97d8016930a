//! The limits a parse (and a report built on it) keeps to against hostile input.

/// Diagnostics a report lists by default before it stops with a `*/too-many-diagnostics` error.
/// Here, at the foundation, because the parser's [`Limits`] default to it too; re-exported as
/// `diagnostic::DEFAULT_MAX_DIAGNOSTICS`.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 10_000;

/// Limits against hostile input. Defaults suit a real menu (tens of MB) with room to spare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of arrays and objects accepted (at most [`MAX_DEPTH`], see [`Limits::clamped`]).
    pub max_depth: usize,
    /// Largest input accepted, in bytes.
    pub max_bytes: usize,
    /// Diagnostics a report built on this parse lists at most (the checkers' `maxDiagnostics`);
    /// the parser records at most this many duplicate keys and counts the others in
    /// [`Document::omitted_duplicate_keys`](super::Document::omitted_duplicate_keys).
    pub max_diagnostics: usize,
}

/// The deepest nesting any caller may ask for: the parser recurses once per level, and the wasm
/// stack is 1 MiB (a level takes a few hundred bytes, so this leaves most of it to the caller).
pub const MAX_DEPTH: usize = 1000;

impl Default for Limits {
    fn default() -> Self {
        Self { max_depth: 64, max_bytes: 64 * 1024 * 1024, max_diagnostics: DEFAULT_MAX_DIAGNOSTICS }
    }
}

impl Limits {
    /// The same limits with `max_depth` at most [`MAX_DEPTH`] and at least 1. [`parse`](super::parse) applies
    /// it, so that no option value can overflow the stack.
    pub fn clamped(self) -> Self {
        Self { max_depth: self.max_depth.clamp(1, MAX_DEPTH), ..self }
    }
}
