//! [`Driven`]: a session's future, polled by whichever task is waiting on it.
//!
//! A session's future (the factory's, with its watchdog and cleanup) runs on a task of its
//! own, started through the [`Spawner`](super::Spawner). A POST waiting for its answer would
//! then cross tasks twice per request: its request wakes the session's task, and the answer
//! wakes the POST's task back (on a multi-thread runtime, often another thread: a futex or
//! an eventfd write each way, which profiles of the HTTP bench showed dominating the time
//! per request). Instead, the POST's task polls the session's future itself while it waits
//! ([`Driven::drive`]): the request is read, handled and answered within that one poll. The
//! session's own task ([`Driven::background`]) polls it only while no POST does, and is
//! woken only when something happened that no POST is there to see.
//!
//! No crate offers this (a future shared by several pollers, with its wake-ups going to the
//! one polling it now): `futures::future::Shared` polls on every clone's behalf but wakes all
//! of them, which is the cross-task wake-up this avoids.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use futures::future::BoxFuture;

/// A session's future and who polls it.
pub(crate) struct Driven {
    future: Mutex<Option<BoxFuture<'static, ()>>>,
    wake: Arc<Wakeups>,
}

/// Where the session's wake-ups go: to the task polling it in the foreground, if any, else
/// to the session's own task.
#[derive(Default)]
struct Wakeups {
    state: Mutex<WakeState>,
}

#[derive(Default)]
struct WakeState {
    /// The task driving the future in the foreground (a POST waiting for its answer).
    foreground: Option<Waker>,
    /// The session's own task.
    background: Option<Waker>,
    /// A wake-up came since the future was last polled.
    woken: bool,
    /// The future completed.
    done: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Wake for Wakeups {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut st = lock(&self.state);
        st.woken = true;
        if let Some(waker) = st.foreground.as_ref().or(st.background.as_ref()) {
            waker.wake_by_ref();
        }
    }
}

impl Driven {
    pub(crate) fn new(future: BoxFuture<'static, ()>) -> Arc<Self> {
        Arc::new(Driven {
            future: Mutex::new(Some(future)),
            wake: Arc::default(),
        })
    }

    /// Polls the future once, unless another task is polling it right now (that task then
    /// sees what this one would have). `true` if it completed.
    fn poll_once(&self) -> bool {
        let Ok(mut slot) = self.future.try_lock() else {
            return false;
        };
        let Some(future) = slot.as_mut() else {
            return true;
        };
        lock(&self.wake.state).woken = false;
        let waker = Waker::from(self.wake.clone());
        let mut cx = Context::from_waker(&waker);
        if future.as_mut().poll(&mut cx).is_ready() {
            *slot = None;
            drop(slot);
            let mut st = lock(&self.wake.state);
            st.done = true;
            // The session's task ends now too.
            if let Some(background) = &st.background {
                background.wake_by_ref();
            }
            return true;
        }
        drop(slot);
        // A wake-up that came while this poll ran may have found the future busy (another
        // poller's `try_lock` failed, and it went back to sleep) after the future had already
        // looked at what woke it: passed on, so that someone polls again. Without this, a
        // reply arriving mid-poll was lost (a POST waiting forever; seen with Redis stores).
        let st = lock(&self.wake.state);
        if st.woken
            && let Some(waker) = st.foreground.as_ref().or(st.background.as_ref())
        {
            waker.wake_by_ref();
        }
        false
    }

    /// The session's own task: polls the future while no POST does; completes with it.
    pub(crate) fn background(self: Arc<Self>) -> impl Future<Output = ()> + Send + 'static {
        std::future::poll_fn(move |cx| {
            {
                let mut st = lock(&self.wake.state);
                if st.done {
                    return Poll::Ready(());
                }
                match &st.background {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => st.background = Some(cx.waker().clone()),
                }
                if st.foreground.is_some() {
                    // A POST drives it; it hands back (waking this task) when it stops.
                    return Poll::Pending;
                }
            }
            if self.poll_once() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }

    /// Waits for `wait` (a POST handing its request to the session and waiting for the
    /// answer), polling the session's future in this task meanwhile, so that the request is
    /// read, handled and answered here without waking another task.
    pub(crate) async fn drive<F: Future>(&self, wait: F) -> F::Output {
        let mut wait = std::pin::pin!(wait);
        let mut foreground = Foreground {
            driven: self,
            waker: None,
        };
        let out = std::future::poll_fn(|cx| {
            // First: what `wait` wakes (the session's inbound queue) must come here.
            foreground.register(cx.waker());
            if let Poll::Ready(out) = wait.as_mut().poll(cx) {
                return Poll::Ready(out);
            }
            self.poll_once();
            wait.as_mut().poll(cx)
        })
        .await;
        // Settle what the answer left to do (the future woke itself while writing it), so
        // that the session's task is not woken for it.
        for _ in 0..SETTLE {
            if !lock(&self.wake.state).woken || self.poll_once() {
                break;
            }
        }
        drop(foreground);
        out
    }
}

/// How many more polls [`Driven::drive`] makes once its answer came, while the session's
/// future keeps waking itself.
const SETTLE: usize = 4;

/// A task driving the session's future in the foreground; on drop, hands it back to the
/// session's own task (waking it if something happened since the last poll).
struct Foreground<'a> {
    driven: &'a Driven,
    waker: Option<Waker>,
}

impl Foreground<'_> {
    fn register(&mut self, waker: &Waker) {
        if self.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
            return;
        }
        self.waker = Some(waker.clone());
        lock(&self.driven.wake.state).foreground = Some(waker.clone());
    }
}

impl Drop for Foreground<'_> {
    fn drop(&mut self) {
        let Some(mine) = self.waker.take() else {
            return;
        };
        let mut st = lock(&self.driven.wake.state);
        // Another POST may have taken over meanwhile: it hands back in its turn.
        if st.foreground.as_ref().is_some_and(|w| w.will_wake(&mine)) {
            st.foreground = None;
            // Wake-ups from now on go to the session's task; one that came since the last
            // poll, which this task did not act on, is passed on.
            if st.woken
                && let Some(background) = &st.background
            {
                background.wake_by_ref();
            }
        }
    }
}

impl std::fmt::Debug for Driven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driven")
            .field("done", &lock(&self.wake.state).done)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::sync::{mpsc, oneshot};

    use super::*;

    /// A session stand-in: answers each request it receives on `requests` through its
    /// oneshot; counts its polls, and ends when `requests` closes.
    fn session(polls: Arc<AtomicUsize>) -> (Arc<Driven>, mpsc::Sender<oneshot::Sender<u32>>) {
        let (tx, mut rx) = mpsc::channel::<oneshot::Sender<u32>>(4);
        let future = std::future::poll_fn(move |cx| {
            polls.fetch_add(1, Ordering::SeqCst);
            loop {
                match rx.poll_recv(cx) {
                    Poll::Ready(Some(answer)) => {
                        let _ = answer.send(42);
                    }
                    Poll::Ready(None) => return Poll::Ready(()),
                    Poll::Pending => return Poll::Pending,
                }
            }
        });
        (Driven::new(Box::pin(future)), tx)
    }

    #[tokio::test]
    async fn a_driving_task_is_answered_without_the_background() {
        let polls = Arc::new(AtomicUsize::new(0));
        let (driven, requests) = session(polls.clone());
        let background = tokio::spawn(driven.clone().background());
        // Let the background poll once and park.
        tokio::task::yield_now().await;
        while polls.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let before = polls.load(Ordering::SeqCst);
        for _ in 0..3 {
            let (answer, answered) = oneshot::channel();
            let got = driven
                .drive(async {
                    requests.send(answer).await.unwrap();
                    answered.await.unwrap()
                })
                .await;
            assert_eq!(got, 42);
        }
        // Each request was handled in this task's polls; the background was not needed.
        tokio::task::yield_now().await;
        assert!(polls.load(Ordering::SeqCst) >= before + 3);
        // Once nobody drives, the background serves what comes, and ends with the session.
        let (answer, answered) = oneshot::channel();
        requests.send(answer).await.unwrap();
        assert_eq!(answered.await.unwrap(), 42);
        drop(requests);
        tokio::time::timeout(std::time::Duration::from_secs(10), background)
            .await
            .expect("the background ends with the session")
            .unwrap();
    }

    #[tokio::test]
    async fn a_wake_the_driver_left_unhandled_goes_to_the_background() {
        // A session that answers on the poll after the one that received the request (it
        // wakes itself in between), so that a driver leaving at once leaves work behind.
        let (tx, mut rx) = mpsc::channel::<oneshot::Sender<u32>>(4);
        let mut held: Option<oneshot::Sender<u32>> = None;
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let driven = Driven::new(Box::pin(std::future::poll_fn(move |cx| {
            counted.fetch_add(1, Ordering::SeqCst);
            if let Some(answer) = held.take() {
                let _ = answer.send(42);
            }
            match rx.poll_recv(cx) {
                Poll::Ready(Some(answer)) => {
                    held = Some(answer);
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
                Poll::Ready(None) => Poll::Ready(()),
                Poll::Pending => Poll::Pending,
            }
        })));
        let background = tokio::spawn(driven.clone().background());
        while polls.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // One poll of a driver, which then goes away (its client left).
        let (answer, answered) = oneshot::channel();
        {
            let sender = tx.clone();
            let mut driver = Box::pin(driven.drive(async move {
                sender.send(answer).await.unwrap();
                std::future::pending::<()>().await
            }));
            let mut cx = Context::from_waker(Waker::noop());
            assert!(driver.as_mut().poll(&mut cx).is_pending());
        }
        assert_eq!(
            tokio::time::timeout(std::time::Duration::from_secs(10), answered)
                .await
                .expect("the background was not woken for the work left")
                .unwrap(),
            42
        );
        drop(tx);
        background.await.unwrap();
    }

    /// Counts its wake-ups.
    struct Counter(AtomicUsize);

    impl std::task::Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_wake_that_finds_the_future_busy_is_passed_on() {
        // The session's task polls the future; meanwhile a POST starts driving, and the event
        // the future waits for comes after the future looked for it: the wake goes to the
        // POST, whose poll finds the future busy. Once the poll ends, the POST must be woken
        // again, or nobody polls the future for that event.
        let driven_slot: Arc<std::sync::OnceLock<Arc<Driven>>> = Arc::default();
        let post = Arc::new(Counter(AtomicUsize::new(0)));
        let post_waker = Waker::from(post.clone());
        let inner_slot = driven_slot.clone();
        let inner_waker = post_waker.clone();
        let mut first = true;
        let driven = Driven::new(Box::pin(std::future::poll_fn(move |cx| {
            if std::mem::take(&mut first) {
                let driven = inner_slot.get().unwrap();
                // The POST arrives and registers as the foreground.
                lock(&driven.wake.state).foreground = Some(inner_waker.clone());
                // The event: its wake goes to the foreground...
                cx.waker().wake_by_ref();
                // ...whose poll finds the future busy.
                assert!(!driven.poll_once());
            }
            Poll::<()>::Pending
        })));
        driven_slot.set(driven.clone()).ok();
        let session_task = Arc::new(Counter(AtomicUsize::new(0)));
        lock(&driven.wake.state).background = Some(Waker::from(session_task));
        assert!(!driven.poll_once());
        assert_eq!(
            post.0.load(Ordering::SeqCst),
            2,
            "the POST is woken by the event, then again once the busy poll ended"
        );
    }
}
