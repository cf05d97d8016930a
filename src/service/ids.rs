//! Ids from a seeded generator (SplitMix64): the same seed gives the same order keys, change ids,
//! delivery ids and trace ids, so a run on the manual clock replays byte for byte.

use serde::{Deserialize, Serialize};

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A seeded generator of ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ids {
    state: u64,
}

impl Ids {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed ^ 0x5DEE_CE66_D1CE_4E5B }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..1`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `n` base62 characters.
    pub fn base62(&mut self, n: usize) -> String {
        (0..n).map(|_| BASE62[(self.next_u64() % 62) as usize] as char).collect()
    }

    /// `ord_` + 16 base62.
    pub fn order_key(&mut self) -> String {
        format!("ord_{}", self.base62(16))
    }

    /// `chg_` + 16 base62.
    pub fn change_id(&mut self) -> String {
        format!("chg_{}", self.base62(16))
    }

    /// A UUID v4 (lowercase, hyphenated).
    pub fn uuid_v4(&mut self) -> String {
        let (a, b) = (self.next_u64(), self.next_u64());
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&a.to_be_bytes());
        bytes[8..].copy_from_slice(&b.to_be_bytes());
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
    }

    /// 32 lowercase hex characters (a problem's `traceId`).
    pub fn trace_id(&mut self) -> String {
        format!("{:016x}{:016x}", self.next_u64(), self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_contract_formats_and_replay_from_the_seed() {
        let mut a = Ids::new(7);
        let mut b = Ids::new(7);
        for _ in 0..200 {
            let (k, c, u) = (a.order_key(), a.change_id(), a.uuid_v4());
            assert!(crate::check::is_order_key(&k), "{k}");
            assert!(crate::check::is_change_key(&c), "{c}");
            assert!(crate::check::is_uuid_v4(&u), "{u}");
            assert_eq!((k, c, u), (b.order_key(), b.change_id(), b.uuid_v4()));
        }
        assert_ne!(Ids::new(1).order_key(), Ids::new(2).order_key());
    }
}
