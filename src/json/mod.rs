//! A JSON parser that keeps the byte span of every value and key, so that every diagnostic can
//! point at a line and column. Strict RFC 8259: no comments, no trailing commas, no NaN.
//!
//! Hostile input is bounded: the nesting depth and the input size are limits with clear errors,
//! duplicate keys are recorded (the last one wins in [`Value::get`], as in `JSON.parse`), and invalid
//! UTF-8 is an error at the exact byte. The parser never panics and never recurses deeper than
//! [`Limits::max_depth`].
//!
//! The tree lives in an [`Arena`] the caller provides: every array's elements, every object's
//! members and every unescaped string are placed there, so that a parse makes a few large
//! allocations instead of one per container, and the tree is freed at once with the arena. Values
//! are `Copy`: a checker holds them by reference or by value alike.
//!
//! ```
//! use poscheck::json::{parse, Arena, Limits};
//! let arena = Arena::new();
//! let doc = parse(br#"{"categories": [{"remoteCode": "C-1"}]}"#, &Limits::default(), &arena).unwrap();
//! let code = doc.root.get("categories").unwrap().as_array().unwrap()[0].get("remoteCode").unwrap();
//! assert_eq!(code.as_str(), Some("C-1"));
//! assert_eq!((code.span.start, code.span.end), (31, 36));
//! ```

mod arena;
pub(crate) mod js_safe;
mod limits;
mod parser;
#[cfg(test)]
mod tests;
mod tree;

pub use arena::{Arena, ARENA_HINT_MAX};
pub use limits::{Limits, DEFAULT_MAX_DIAGNOSTICS, MAX_DEPTH};
pub use parser::{parse, ParseError};
pub(crate) use tree::same_text;
pub use tree::{Document, DuplicateKey, Kind, Member, Number, Span, Value};
