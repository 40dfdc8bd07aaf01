//! Whether anyone runs the [`Connection`](crate::Connection) future: a call on a client whose
//! connection is never polled fails after [`CONNECTION_GRACE`] with
//! [`Error::ConnectionNotRunning`], instead of waiting for its timeout.
//!
//! The `Connection` records its first poll (or its drop, unpolled) here; a call looks at the
//! state with one atomic load and, only while the connection has not been polled yet, waits
//! for it on a `Notify` for at most the grace period. Nothing is spawned.

use std::pin::pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use crate::error::{Error, Result};

/// How long a call waits for the [`Connection`](crate::Connection) future to be polled for
/// the first time before it fails with [`Error::ConnectionNotRunning`].
///
/// A connection that is spawned or polled alongside the call is polled well within it; once
/// the connection has been polled, calls no longer wait for anything.
pub const CONNECTION_GRACE: Duration = Duration::from_millis(250);

/// The `Connection` has not been polled yet.
const HANDED_OVER: u8 = 0;
/// The `Connection` has been polled at least once.
const POLLED: u8 = 1;
/// The `Connection` was dropped without being polled.
const DROPPED: u8 = 2;

/// What the client's calls know of the [`Connection`](crate::Connection) future.
#[derive(Debug)]
pub(crate) struct RunState {
    state: AtomicU8,
    /// Told when `state` leaves `HANDED_OVER`.
    changed: Notify,
}

impl Default for RunState {
    fn default() -> Self {
        RunState {
            state: AtomicU8::new(HANDED_OVER),
            changed: Notify::new(),
        }
    }
}

impl RunState {
    /// Called by the `Connection` on its first poll.
    pub(crate) fn polled(&self) {
        self.leave(POLLED);
    }

    /// Called by the `Connection` when it is dropped without having been polled.
    pub(crate) fn dropped_unpolled(&self) {
        self.leave(DROPPED);
    }

    fn leave(&self, to: u8) {
        self.state.store(to, Ordering::Release);
        self.changed.notify_waiters();
    }

    /// `Ok` once the connection has been polled; otherwise waits up to [`CONNECTION_GRACE`]
    /// for its first poll. The common case is one atomic load, with nothing awaited and
    /// nothing allocated.
    ///
    /// # Errors
    ///
    /// [`Error::ConnectionNotRunning`] if the connection was dropped without being polled, or
    /// is not polled within the grace period.
    #[inline]
    pub(crate) async fn ensure(&self) -> Result<()> {
        if self.state.load(Ordering::Acquire) == POLLED {
            return Ok(());
        }
        // Boxed so that the futures of calls do not carry the timer of this rare path.
        Box::pin(self.wait()).await
    }

    async fn wait(&self) -> Result<()> {
        let deadline = tokio::time::Instant::now() + CONNECTION_GRACE;
        let mut changed = pin!(self.changed.notified());
        // Registered before the state is read, so that a first poll in between still wakes
        // it (the unit test `no_interleaving_loses_the_first_poll` tries every order).
        changed.as_mut().enable();
        if let Some(settled) = self.settled() {
            return settled;
        }
        // The state leaves `HANDED_OVER` once and for all, and `notify_waiters` wakes every
        // registered waiter, so one wake-up settles it.
        let _ = tokio::time::timeout_at(deadline, changed).await;
        self.settled()
            .unwrap_or(Err(Error::ConnectionNotRunning { dropped: false }))
    }

    /// The outcome, once the connection has been polled or dropped.
    fn settled(&self) -> Option<Result<()>> {
        match self.state.load(Ordering::Acquire) {
            POLLED => Some(Ok(())),
            DROPPED => Some(Err(Error::ConnectionNotRunning { dropped: true })),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future as _;
    use std::sync::Arc;

    use super::*;

    /// Once the connection has been polled, the check is ready on its first poll: it awaits
    /// nothing (and needs no runtime, so it touches no timer).
    #[test]
    fn a_polled_connection_passes_at_once() {
        let state = RunState::default();
        state.polled();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let check = std::pin::pin!(state.ensure());
        assert!(matches!(
            check.poll(&mut cx),
            std::task::Poll::Ready(Ok(()))
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unpolled_connection_fails_after_the_grace_period() {
        let state = RunState::default();
        let start = tokio::time::Instant::now();
        let e = state.ensure().await.unwrap_err();
        assert!(
            matches!(e, Error::ConnectionNotRunning { dropped: false }),
            "{e:?}"
        );
        assert_eq!(start.elapsed(), CONNECTION_GRACE);
    }

    /// The waiter registers for a wake-up, then reads the state; the connection stores the
    /// state, then notifies (the two steps of `leave`). In every interleaving of the two the
    /// waiter either reads the new state or is woken.
    #[test]
    fn no_interleaving_loses_the_first_poll() {
        #[derive(Clone, Copy, Debug)]
        enum Step {
            Register,
            Read,
            Store,
            Notify,
        }
        use Step::*;
        let orders = [
            [Register, Read, Store, Notify],
            [Register, Store, Read, Notify],
            [Register, Store, Notify, Read],
            [Store, Register, Read, Notify],
            [Store, Register, Notify, Read],
            [Store, Notify, Register, Read],
        ];
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        for order in orders {
            let state = RunState::default();
            let mut registered = None;
            let mut read = None;
            for step in order {
                match step {
                    Register => {
                        let mut notified = Box::pin(state.changed.notified());
                        notified.as_mut().enable();
                        registered = Some(notified);
                    }
                    Read => read = Some(state.settled()),
                    Store => state.state.store(POLLED, Ordering::Release),
                    Notify => state.changed.notify_waiters(),
                }
            }
            let woken = registered
                .as_mut()
                .is_some_and(|n| n.as_mut().poll(&mut cx).is_ready());
            let saw_it = matches!(read, Some(Some(Ok(()))));
            assert!(woken || saw_it, "{order:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_first_poll_or_a_drop_during_the_wait_settles_it() {
        for (dropped, expect_ok) in [(false, true), (true, false)] {
            let state = Arc::new(RunState::default());
            let waiting = tokio::spawn({
                let state = state.clone();
                async move { state.ensure().await }
            });
            tokio::time::sleep(CONNECTION_GRACE / 2).await;
            if dropped {
                state.dropped_unpolled();
            } else {
                state.polled();
            }
            let start = tokio::time::Instant::now();
            let outcome = waiting.await.unwrap();
            assert_eq!(start.elapsed(), Duration::ZERO);
            assert_eq!(outcome.is_ok(), expect_ok, "{outcome:?}");
        }
    }
}
