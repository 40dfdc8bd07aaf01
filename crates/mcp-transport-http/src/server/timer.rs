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

impl ConnectionTimer {
    fn take_spare(&self) -> Option<Pin<Box<tokio::time::Sleep>>> {
        self.spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Timer for ConnectionTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        let sleep = match self.take_spare() {
            Some(mut sleep) => {
                sleep.as_mut().reset(deadline.into());
                sleep
            }
            None => Box::pin(tokio::time::sleep_until(deadline.into())),
        };
        Box::pin(KeptSleep {
            sleep: Some(sleep),
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

/// A sleep handed to hyper; on drop, its registered sleep goes back to the connection's spare.
struct KeptSleep {
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    spare: Arc<Mutex<Option<Pin<Box<tokio::time::Sleep>>>>>,
}

impl KeptSleep {
    fn reset(self: Pin<&mut Self>, deadline: Instant) {
        // `KeptSleep` is `Unpin` (its sleep is boxed).
        if let Some(sleep) = self.get_mut().sleep.as_mut() {
            sleep.as_mut().reset(deadline.into());
        }
    }
}

impl Future for KeptSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.sleep.as_mut() {
            Some(sleep) => sleep.as_mut().poll(cx),
            None => Poll::Ready(()),
        }
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
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_dropped_sleep_is_reused_for_the_next_deadline() {
        let timer = ConnectionTimer::default();
        let first = timer.sleep(Duration::from_secs(30));
        drop(first);
        assert!(timer.spare.lock().unwrap().is_some(), "kept");
        let second = timer.sleep(Duration::from_secs(30));
        assert!(timer.spare.lock().unwrap().is_none(), "taken again");
        drop(second);
        assert!(timer.spare.lock().unwrap().is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn a_reused_sleep_fires_at_its_new_deadline_not_the_old_one() {
        let timer = ConnectionTimer::default();
        drop(timer.sleep(Duration::from_secs(1)));
        let started = tokio::time::Instant::now();
        timer.sleep(Duration::from_secs(30)).await;
        assert_eq!(started.elapsed(), Duration::from_secs(30));
        // It fired, so it is not kept for the next deadline.
        assert!(timer.spare.lock().unwrap().is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn reset_moves_the_deadline() {
        let timer = ConnectionTimer::default();
        let mut sleep = timer.sleep(Duration::from_secs(30));
        let started = tokio::time::Instant::now();
        timer.reset(&mut sleep, timer.now() + Duration::from_secs(5));
        sleep.await;
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }
}
