//! Ring 1: the receiver core over the Python `hmac` vectors and the payload fixtures (the wasm ring
//! runs the same checks, tests/wasm.rs).
mod common;

#[test]
fn receiver_signature_vectors() {
    common::receiver::check_receiver_vectors();
}

#[test]
fn receiver_payload_fixtures() {
    common::receiver::check_receiver_payloads();
}
