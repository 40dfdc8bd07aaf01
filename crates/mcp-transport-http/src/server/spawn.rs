//! [`Spawner`]: the one place where the server starts tasks.

use std::fmt;

use futures::future::BoxFuture;

/// Runs a session's future in the background.
///
/// The service calls [`spawn`](Self::spawn) exactly once per session (stateful, stateless
/// or legacy), with a future that runs the session factory's future, the session's idle
/// watchdog, and the cleanup that follows. That is the only place this crate spawns; the
/// default, [`TokioSpawner`], calls [`tokio::spawn`]. Supply your own to run sessions on a
/// `LocalSet`, a `JoinSet` you can abort on shutdown, an instrumented executor, …
///
/// Any `Fn(BoxFuture<'static, ()>)` closure is a spawner:
///
/// ```
/// use mcp_transport_http::server::StreamableHttpService;
///
/// let tasks = std::sync::Arc::new(std::sync::Mutex::new(tokio::task::JoinSet::new()));
/// let service = StreamableHttpService::builder()
///     .spawner(move |task| {
///         tasks.lock().unwrap().spawn(task);
///     })
///     .build(|_transport, _info| async {});
/// # drop(service);
/// ```
pub trait Spawner: Send + Sync + 'static {
    /// Starts `task`; it must eventually be polled to completion (or dropped on shutdown).
    fn spawn(&self, task: BoxFuture<'static, ()>);
}

impl<F> Spawner for F
where
    F: Fn(BoxFuture<'static, ()>) + Send + Sync + 'static,
{
    fn spawn(&self, task: BoxFuture<'static, ()>) {
        self(task);
    }
}

/// The default [`Spawner`]: [`tokio::spawn`] on the current runtime.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSpawner;

impl Spawner for TokioSpawner {
    fn spawn(&self, task: BoxFuture<'static, ()>) {
        drop(tokio::spawn(task));
    }
}

pub(crate) struct DynSpawner(pub(crate) Box<dyn Spawner>);

impl fmt::Debug for DynSpawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Spawner")
    }
}
