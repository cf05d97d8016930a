//! Benchmark (not a test): verify of a 2 KB webhook natively, beside a bare HMAC-SHA256 + constant
//! time compare of the same message (the floor any verifier pays), as a ratio in the same run.
//! Run: `cargo bench --bench verify`.

use hmac::{Hmac, Mac};
use poscheck::signature::{self, Headers};
use sha2::Sha256;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn time_per_op(mut f: impl FnMut()) -> Duration {
    // Warm up, then take the best of 5 rounds of ~200 ms (the machine is shared and noisy).
    for _ in 0..1000 {
        f();
    }
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let mut n = 0u32;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(200) {
            for _ in 0..100 {
                f();
            }
            n += 100;
        }
        best = best.min(start.elapsed() / n);
    }
    best
}

fn main() {
    let body: Vec<u8> = (0..2048).map(|i| b"{\"orderKey\":\"ord_0123456789abcdEF\",\"x\":1}"[i % 41]).collect();
    let secret = b"whsec_bench_secret";
    let now = 1_786_492_800u64;
    let sig = signature::sign(secret, now, &body).unwrap();
    let headers = Headers::from_pairs([
        ("X-Service-Timestamp", now.to_string()),
        ("X-Service-Signature-256", sig.clone()),
        ("X-Service-Delivery-Id", "6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10".to_string()),
    ]);
    let expected: [u8; 32] = signature::parse_signature(&sig).unwrap();

    let verify = time_per_op(|| {
        black_box(signature::verify(black_box(&body), &headers, &[secret], now, 300).unwrap());
    });
    let baseline = time_per_op(|| {
        let mut m = Hmac::<Sha256>::new_from_slice(secret).unwrap();
        m.update(now.to_string().as_bytes());
        m.update(b".");
        m.update(black_box(&body));
        black_box(m.verify_slice(&expected).is_ok());
    });
    println!("verify 2 KB body (native):       {:>8.2} µs/op", verify.as_secs_f64() * 1e6);
    println!("bare HMAC-SHA256 + ct compare:   {:>8.2} µs/op", baseline.as_secs_f64() * 1e6);
    println!("ratio verify / bare HMAC:        {:>8.2}", verify.as_secs_f64() / baseline.as_secs_f64());
}
