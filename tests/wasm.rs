//! Ring 2: the same core compiled to wasm32, run by wasm-bindgen-test in Node (default) and in
//! headless Chromium (WASM_BINDGEN_USE_BROWSER=1), over the same fixtures as the native ring.
#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn signature_vectors_from_python_hmac() {
    common::check_signature_vectors();
}

#[wasm_bindgen_test]
fn hostile_json_never_traps() {
    use poscheck::json::{parse, Limits};
    let deep = "[".repeat(200_000);
    assert_eq!(parse(deep.as_bytes(), &Limits::default()).unwrap_err().code, "TOO_DEEP");
    assert_eq!(parse(b"\xff\xfe", &Limits::default()).unwrap_err().code, "INVALID_UTF8");
}
