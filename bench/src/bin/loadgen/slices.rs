//! Taking turns: the servers of a throughput or latency scenario (the stdio pinned sequential
//! and pipelined runs, the HTTP closed loops) are all started at once and measured in
//! [`SLICES`] slices each, one server after the other in every slice. On the 2-core VMs one
//! server's speed moves with the VM from one stretch of seconds to the next (the stdio
//! floor's pinned p50 measured 4.6 to 8.2 µs across one run's repetitions, the HTTP floor's
//! c=64 throughput 62.6k to 83.4k req/s within one run), and whole-duration turns let one
//! server land on a slow stretch while another lands on a fast one.

use std::time::Duration;

/// How many slices a scenario's measured time is cut into.
pub(crate) const SLICES: usize = 12;

/// One slice's warm-up and measured time: the slices' share of the scenario's.
pub(crate) fn share(warmup: Duration, duration: Duration) -> (Duration, Duration) {
    (warmup / SLICES as u32, duration / SLICES as u32)
}

/// What a server's slices add up to, starting from nothing measured.
pub(crate) trait Slices: Default {
    /// Adds `slice`'s calls to these.
    fn absorb(&mut self, slice: Self);
}
