//! HMAC-SHA256 keys made once for many verifications (the wasm face keeps the last ones).

use super::verify::{match_macs, verify_service_headers, ServiceHeaders, VerifiedHeaders};
use super::WebhookError;
use sha2::Sha256;

/// An HMAC-SHA256 key (RFC 2104) made once for many verifications: the SHA-256 states after the
/// inner and outer padded-key blocks, so that a verification hashes only its message and one
/// outer block (a third less work for a 256-byte body), straight on sha2's compression function.
/// Used by the wasm face, which keeps the keys of the last secrets it was given; a test holds it
/// to the `hmac` crate's answers.
#[derive(Clone)]
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
pub(crate) struct MacKey {
    inner: [u32; 8],
    outer: [u32; 8],
    len: usize,
}

impl std::fmt::Debug for MacKey {
    // Never the key material.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MacKey").field("len", &self.len).finish_non_exhaustive()
    }
}

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
const SHA256_IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// One 64-byte block into `state`.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
fn compress(state: &mut [u32; 8], block: &[u8]) {
    sha2::compress256(state, std::slice::from_ref(sha2::digest::generic_array::GenericArray::from_slice(block)));
}

/// The last block(s) of a message of `total` bytes whose tail (`tail.len() < 64`) is not hashed yet.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
fn finish(state: &mut [u32; 8], tail: &[u8], total: usize) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..tail.len()].copy_from_slice(tail);
    block[tail.len()] = 0x80;
    if tail.len() >= 56 {
        compress(state, &block);
        block = [0u8; 64];
    }
    block[56..].copy_from_slice(&((total as u64) * 8).to_be_bytes());
    compress(state, &block);
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(state.iter()) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
impl MacKey {
    /// The key of `secret` (its UTF-8 bytes). An empty secret makes a key that
    /// [`verify_keyed`] refuses with the same error as [`verify`].
    pub(crate) fn new(secret: &[u8]) -> Self {
        let key = Self::key_block(secret);
        let (mut inner, mut outer) = (SHA256_IV, SHA256_IV);
        compress(&mut inner, &key.map(|b| b ^ 0x36));
        compress(&mut outer, &key.map(|b| b ^ 0x5c));
        MacKey { inner, outer, len: secret.len() }
    }

    /// The byte length of the secret (an empty secret is refused when the key is used).
    pub(crate) fn secret_len(&self) -> usize {
        self.len
    }

    /// RFC 2104's key block: the secret, or its SHA-256 when longer than a block, zero-padded.
    fn key_block(secret: &[u8]) -> [u8; 64] {
        use sha2::Digest;
        let mut key = [0u8; 64];
        if secret.len() > 64 {
            key[..32].copy_from_slice(&Sha256::digest(secret));
        } else {
            key[..secret.len()].copy_from_slice(secret);
        }
        key
    }

    /// The first block of the inner message of `secret`'s MAC (its key block XOR `0x36`), for a
    /// platform whose native SHA-256 hashes the inner message: SHA-256(this ‖ prefix ‖ body) is
    /// what [`outer_mac`](Self::outer_mac) finishes.
    pub(crate) fn inner_pad(secret: &[u8]) -> [u8; 64] {
        Self::key_block(secret).map(|b| b ^ 0x36)
    }

    /// The MAC from the SHA-256 of the inner message (see [`inner_pad`](Self::inner_pad)).
    pub(crate) fn outer_mac(&self, inner: &[u8; 32]) -> [u8; 32] {
        let mut state = self.outer;
        finish(&mut state, inner, 64 + 32)
    }

    /// The MAC of `prefix` (the timestamp and its dot) followed by `body`.
    pub(super) fn mac(&self, prefix: &[u8], body: &[u8]) -> [u8; 32] {
        let mut state = self.inner;
        let mut block = [0u8; 64];
        let mut fill = 0;
        for mut data in [prefix, body] {
            if fill > 0 {
                let take = (64 - fill).min(data.len());
                block[fill..fill + take].copy_from_slice(&data[..take]);
                fill += take;
                data = &data[take..];
                if fill == 64 {
                    compress(&mut state, &block);
                    fill = 0;
                }
            }
            if fill == 0 {
                let mut blocks = data.chunks_exact(64);
                for b in &mut blocks {
                    compress(&mut state, b);
                }
                let rest = blocks.remainder();
                block[..rest.len()].copy_from_slice(rest);
                fill = rest.len();
            }
        }
        let inner = finish(&mut state, &block[..fill], 64 + prefix.len() + body.len());
        self.outer_mac(&inner)
    }
}

/// [`verify`] over borrowed header pairs with keys made beforehand: the same checks, in the same
/// order, with the same errors. Returns the checked headers and the index of the matching key.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
pub(crate) fn verify_keyed<'h>(
    body: &[u8],
    found: &ServiceHeaders<'h>,
    keys: &[MacKey],
    now: u64,
    tolerance_seconds: u64,
) -> Result<(VerifiedHeaders<'h>, usize), WebhookError> {
    let checked = verify_service_headers(found, keys.iter().map(|k| k.len), now, tolerance_seconds)?;
    let index = match_macs(&checked.expected, keys.iter().map(|k| k.mac(checked.signed_prefix.as_bytes(), body)))?;
    Ok((checked, index))
}

/// The end of [`verify_keyed`] where the platform hashed each inner message itself (Node's native
/// SHA-256): `inner` holds one hash per key, in order, each SHA-256([`MacKey::inner_pad`] ‖ signed
/// prefix ‖ body) for the signed prefix that [`verify_service_headers`] gave with the keys' lengths,
/// and `expected` is the MAC it found. The outer hashes and the constant-time comparison happen
/// here. Returns the index of the matching key. The caller passes as many hashes as keys.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
pub(crate) fn match_inner_hashes(
    expected: &[u8; 32],
    keys: &[MacKey],
    inner: impl IntoIterator<Item = [u8; 32]>,
) -> Result<usize, WebhookError> {
    match_macs(expected, keys.iter().zip(inner).map(|(k, h)| k.outer_mac(&h)))
}
