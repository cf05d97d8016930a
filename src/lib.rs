#![doc = include_str!("../README.md")]
#![deny(unsafe_code)] // One exception, argued where it is: the buffer the wasm face shares with JS (src/wasm/mod.rs).
#![warn(missing_debug_implementations)]
#![warn(missing_docs)]

pub mod basis;
pub(crate) mod check;
pub mod cli;
pub mod contract;
pub mod diagnostic;
pub mod format;
pub mod http;
pub mod json;
pub mod menu;
pub mod order;
pub mod payload;
pub mod probe;
pub mod receiver;
pub mod rules;
pub mod schema;
pub mod service;
pub mod shape;
pub mod signature;
pub mod time;

#[cfg(all(feature = "server", not(target_arch = "wasm32")))]
pub mod native;
/// The JS bindings (wasm32 only). Public so that the wasm test ring can call the exports as JS
/// does; not part of the Rust API.
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

pub use diagnostic::{Diagnostic, Report, Rule, Severity};
