//! Taking turns: the servers of a throughput or latency scenario (the stdio pinned sequential
//! and pipelined runs, the HTTP closed loops) are all started at once and measured in
//! slices (up to [`SLICES`]), one server after the other in every slice. On the 2-core VMs
//! one server's speed moves with the VM from one stretch of seconds to the next (the stdio
//! floor's pinned p50 measured 4.6 to 8.2 µs across one run's repetitions, the HTTP floor's
//! c=64 throughput 62.6k to 83.4k req/s within one run), and whole-duration turns let one
//! server land on a slow stretch while another lands on a fast one.

use std::time::Duration;

/// How many slices a scenario's measured time is cut into, at most.
const SLICES: usize = 12;

/// The shortest measured slice: fewer slices are taken when the measured time is shorter
/// than [`SLICES`] of these (a smoke run's 0.3 s takes 3). A request in flight at a slice's
/// edges is not counted, so a slice must be long against a request's latency under load
/// (rmcp's p99 at c=256 reached 30 ms on a CI VM; 25 ms slices then saw no request done).
const MIN_SLICE: Duration = Duration::from_millis(100);

/// How a scenario's warm-up and measured time are cut into slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// How many slices.
    pub(crate) count: usize,
    /// Each slice's warm-up.
    pub(crate) warmup: Duration,
    /// Each slice's measured time.
    pub(crate) duration: Duration,
}

impl Plan {
    /// The slices of `duration` (with the same share of `warmup` each): [`SLICES`] of them,
    /// or fewer, none shorter than [`MIN_SLICE`] unless `duration` itself is.
    pub(crate) fn new(warmup: Duration, duration: Duration) -> Self {
        let fit = (duration.as_nanos() / MIN_SLICE.as_nanos()) as usize;
        let count = fit.clamp(1, SLICES);
        Self {
            count,
            warmup: warmup / count as u32,
            duration: duration / count as u32,
        }
    }
}

/// What a server's slices add up to, starting from nothing measured.
pub(crate) trait Slices: Default {
    /// Adds `slice`'s calls to these.
    fn absorb(&mut self, slice: Self);
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn a_full_run_takes_every_slice() {
        let plan = Plan::new(ms(500), ms(3000));
        assert_eq!(
            (plan.count, plan.warmup, plan.duration),
            (12, ms(500) / 12, ms(250))
        );
    }

    #[test]
    fn short_runs_take_fewer_slices_none_under_the_minimum() {
        let smoke = Plan::new(ms(50), ms(300));
        assert_eq!((smoke.count, smoke.duration), (3, ms(100)));
        assert_eq!(Plan::new(ms(10), ms(60)).count, 1);
        assert_eq!(Plan::new(ms(10), ms(60)).duration, ms(60));
    }
}
