//! Serializes integers so that every consumer can read them: as an integer while it is a safe
//! integer for JavaScript (|n| ≤ 2^53 − 1), as the nearest double beyond. Used on result fields
//! that echo a number from the input (a timestamp header, a `Retry-After`), which may be huge.

use serde::Serializer;

const MAX_SAFE: i128 = (1 << 53) - 1;

fn int<S: Serializer>(v: i128, s: S) -> Result<S::Ok, S::Error> {
    if (-MAX_SAFE..=MAX_SAFE).contains(&v) {
        s.serialize_i64(v as i64)
    } else {
        s.serialize_f64(v as f64)
    }
}

pub fn u64<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    int(i128::from(*v), s)
}

pub fn option_u64<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => int(i128::from(*v), s),
        None => s.serialize_none(),
    }
}

pub fn option_i64<S: Serializer>(v: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => int(i128::from(*v), s),
        None => s.serialize_none(),
    }
}
