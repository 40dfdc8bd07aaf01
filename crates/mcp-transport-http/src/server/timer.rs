//! [`ConnectionTimer`]: hyper's timer for one connection, which keeps the header-read
//! timeout's sleep registered from one request to the next.
//!
//! hyper arms a new sleep for every request head it waits for and drops it once the head is
//! read. With `hyper_util`'s `TokioTimer` that registers a fresh timer each time, and since the
//! previous one is gone when the runtime's time driver parks, the new deadline is always
//! earlier than the driver's next wake-up: registering it wakes the driver's thread, once per
//! request (measured: about 5 µs of CPU per sequential request, a tenth of the raw hyper
//! floor's). Here the dropped sleep is kept and moved to the next deadline, which is later than
//! the one the driver already sleeps towards, so it wakes nobody. No crate offers this reuse.
//!
//! And a sleep is only moved once hyper polls it, which it does only when the head it reads
//! is not all there yet: a head that arrives whole (nearly every one) costs a deadline stored,
//! not the kept sleep's lock, its move in the time driver and its return (about 1.5 % of the
//! server's CPU at 64 connections, `perf`).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};

/// The timer of one connection (see the module docs). Cloning shares the kept sleep.
#[derive(Clone, Default)]
pub(crate) struct ConnectionTimer {
    /// The sleep of the last deadline hyper dropped, still registered with the runtime.
    spare: Arc<Mutex<Option<Pin<Box<tokio::time::Sleep>>>>>,
}

impl Timer for ConnectionTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(KeptSleep {
            deadline,
            sleep: None,
            spare: self.spare.clone(),
        })
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        match sleep.as_mut().downcast_mut_pin::<KeptSleep>() {
            Some(kept) => kept.reset(new_deadline),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }

    /// The runtime's clock, so that a paused test clock applies (as with `TokioTimer`).
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into()
    }
}

/// A sleep handed to hyper: a deadline, and from its first poll on the connection's kept
/// sleep (or a new one) moved to it; on drop, that sleep goes back to the connection's spare.
struct KeptSleep {
    deadline: Instant,
    /// Registered with the runtime at the first poll.
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    spare: Arc<Mutex<Option<Pin<Box<tokio::time::Sleep>>>>>,
}

impl KeptSleep {
    fn reset(self: Pin<&mut Self>, deadline: Instant) {
        // `KeptSleep` is `Unpin` (its sleep is boxed).
        let this = self.get_mut();
        this.deadline = deadline;
        if let Some(sleep) = this.sleep.as_mut() {
            sleep.as_mut().reset(deadline.into());
        }
    }

    /// The registered sleep, made or taken from the spare and moved to the deadline at the
    /// first call.
    fn registered(&mut self) -> Pin<&mut tokio::time::Sleep> {
        let deadline = self.deadline;
        let spare = &self.spare;
        self.sleep
            .get_or_insert_with(|| {
                let kept = spare.lock().unwrap_or_else(PoisonError::into_inner).take();
                match kept {
                    Some(mut sleep) => {
                        sleep.as_mut().reset(deadline.into());
                        sleep
                    }
                    None => Box::pin(tokio::time::sleep_until(deadline.into())),
                }
            })
            .as_mut()
    }
}

impl Future for KeptSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.registered().poll(cx)
    }
}

impl Sleep for KeptSleep {}

impl Drop for KeptSleep {
    fn drop(&mut self) {
        let Some(sleep) = self.sleep.take() else {
            return;
        };
        // A sleep that already fired is not kept: its deadline has passed.
        if sleep.is_elapsed() {
            return;
        }
        let mut spare = self.spare.lock().unwrap_or_else(PoisonError::into_inner);
        if spare.is_none() {
            *spare = Some(sleep);
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt as _;

    use super::*;

    fn is_kept(timer: &ConnectionTimer) -> bool {
        timer.spare.lock().unwrap().is_some()
    }

    #[tokio::test(start_paused = true)]
    async fn a_sleep_never_polled_registers_nothing() {
        let timer = ConnectionTimer::default();
        let sleep = timer.sleep(Duration::from_secs(30));
        drop(sleep);
        assert!(!is_kept(&timer));
    }

    #[tokio::test(start_paused = true)]
    async fn a_polled_sleep_is_kept_and_reused_at_the_next_poll() {
        let timer = ConnectionTimer::default();
        let mut first = timer.sleep(Duration::from_secs(30));
        assert_eq!((&mut first).now_or_never(), None);
        drop(first);
        assert!(is_kept(&timer), "kept");
        let mut second = timer.sleep(Duration::from_secs(30));
        assert!(is_kept(&timer), "not taken before it is polled");
        assert_eq!((&mut second).now_or_never(), None);
        assert!(!is_kept(&timer), "taken at the first poll");
        drop(second);
        assert!(is_kept(&timer));
    }

    #[tokio::test(start_paused = true)]
    async fn a_reused_sleep_fires_at_its_new_deadline_not_the_old_one() {
        let timer = ConnectionTimer::default();
        let mut first = timer.sleep(Duration::from_secs(1));
        assert_eq!((&mut first).now_or_never(), None);
        drop(first);
        let started = tokio::time::Instant::now();
        timer.sleep(Duration::from_secs(30)).await;
        assert_eq!(started.elapsed(), Duration::from_secs(30));
        // It fired, so it is not kept for the next deadline.
        assert!(!is_kept(&timer));
    }

    #[tokio::test(start_paused = true)]
    async fn reset_moves_the_deadline_before_and_after_the_first_poll() {
        let timer = ConnectionTimer::default();
        let started = tokio::time::Instant::now();
        let mut sleep = timer.sleep(Duration::from_secs(30));
        timer.reset(&mut sleep, timer.now() + Duration::from_secs(5));
        sleep.await;
        assert_eq!(started.elapsed(), Duration::from_secs(5));

        let started = tokio::time::Instant::now();
        let mut sleep = timer.sleep(Duration::from_secs(30));
        assert_eq!((&mut sleep).now_or_never(), None);
        timer.reset(&mut sleep, timer.now() + Duration::from_secs(7));
        sleep.await;
        assert_eq!(started.elapsed(), Duration::from_secs(7));
    }
}
