//! Percentiles of latencies and summaries of repetitions.

/// The `p`-th percentile (0..=100) of `sorted` (ascending) by the nearest-rank method; NaN
/// for no values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Latency percentiles, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

/// The percentiles of latencies given in nanoseconds, in microseconds.
pub fn latency_us(mut nanos: Vec<u64>) -> Percentiles {
    nanos.sort_unstable();
    let us: Vec<f64> = nanos.iter().map(|&n| n as f64 / 1000.0).collect();
    Percentiles {
        p50: percentile(&us, 50.0),
        p90: percentile(&us, 90.0),
        p99: percentile(&us, 99.0),
    }
}

/// The median, minimum and maximum of repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// Summarizes repetitions (the median of an even count is the mean of the middle two);
/// `None` for none.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    Some(Summary {
        median,
        min: sorted[0],
        max: sorted[n - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&[7.0], 90.0), 7.0);
        assert!(percentile(&[], 50.0).is_nan());
        let p = latency_us(vec![3000, 1000, 2000, 4000]);
        assert_eq!((p.p50, p.p90, p.p99), (2.0, 4.0, 4.0));
    }

    #[test]
    fn summaries() {
        assert_eq!(
            summarize(&[3.0, 1.0, 2.0]),
            Some(Summary {
                median: 2.0,
                min: 1.0,
                max: 3.0
            })
        );
        assert_eq!(summarize(&[4.0, 1.0]).unwrap().median, 2.5);
        assert_eq!(summarize(&[f64::NAN]), None);
        assert_eq!(summarize(&[]), None);
    }
}
