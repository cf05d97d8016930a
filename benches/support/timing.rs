//! Timing shared by the benchmarks: runs after one warm-up, sorted.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The fastest and the median of `runs` timed calls of `f`, after one warm-up call.
pub fn best_and_median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    black_box(f());
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[times.len() / 2])
}
