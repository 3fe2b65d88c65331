//! Timing shared by the benchmark drivers: the median of several runs, as DESIGN.md's
//! "Measuring" asks (the machines are shared and noisy).

use std::time::Instant;

/// The median time of `runs` runs of `f`, in seconds.
pub fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
