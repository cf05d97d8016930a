//! Ring 1: the signature core against vectors from Python's hmac (tests/fixtures/signature).
mod common;

#[test]
fn signature_vectors_from_python_hmac() {
    common::check_signature_vectors();
}
