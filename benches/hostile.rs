//! Wall time of each hostile shape of issue 8 at two sizes (`n` and `2n`, around the sizes at which
//! the old code took seconds to minutes), with the ratio: about 2 for linear work, 4 for quadratic.
//! The shapes are the ones tests/hostile.rs checks by counting work. `cargo bench --bench hostile`.

#[path = "support/timing.rs"]
mod timing;

#[path = "../tests/common/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use std::hint::black_box;
use std::time::Duration;

/// The median of five runs after a warm-up.
fn median(f: impl FnMut()) -> Duration {
    timing::best_and_median(5, f).1
}

fn main() {
    println!("{:<48} {:>10} {:>12} {:>10} {:>12} {:>7}", "shape (every entry point it targets)", "n", "time", "2n", "time", "ratio");
    for shape in hostile::SHAPES {
        let n = shape.size / 2;
        let (small, large) = ((shape.make)(n), (shape.make)(2 * n));
        let t1 = median(|| {
            black_box((shape.run)(black_box(&small)));
        });
        let t2 = median(|| {
            black_box((shape.run)(black_box(&large)));
        });
        println!(
            "{:<48} {:>10} {:>10.1}ms {:>10} {:>10.1}ms {:>7.2}",
            shape.name,
            format!("{} B", small.len()),
            t1.as_secs_f64() * 1e3,
            format!("{} B", large.len()),
            t2.as_secs_f64() * 1e3,
            t2.as_secs_f64() / t1.as_secs_f64()
        );
    }
}
