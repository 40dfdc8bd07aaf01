//! [`HttpServer`]: the optional runner, an accept loop with a connection limit and read
//! timeouts.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Pending;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::{AbortHandle, Abortable, Either};

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::config::Config;
use super::error::Result;
use super::handlers;
use super::shared::Shared;
use super::timer::ConnectionTimer;

/// The connection limits of a [`HttpServer`], from the service's configuration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub(crate) max_connections: usize,
    pub(crate) header_read_timeout: Option<Duration>,
}

impl ConnectionLimits {
    pub(crate) fn of(config: &Config) -> Self {
        ConnectionLimits {
            max_connections: config.max_connections.max(1),
            header_read_timeout: config.header_read_timeout,
        }
    }
}

/// A bound listener serving a [`StreamableHttpService`](super::StreamableHttpService), from
/// [`StreamableHttpService::bind`](super::StreamableHttpService::bind) (or
/// [`listener`](super::StreamableHttpService::listener)).
///
/// It serves HTTP/1.1 with hyper: `TCP_NODELAY` on every accepted socket, the peer's address
/// as axum's `ConnectInfo<SocketAddr>` in each request's extensions (the client of the
/// per-client session quota), at most
/// [`Builder::max_connections`](super::Builder::max_connections) connections at once (at the
/// limit it stops accepting until one closes), and
/// [`Builder::header_read_timeout`](super::Builder::header_read_timeout) to receive each
/// request's headers (idle keep-alive connections included). Each connection runs in a
/// tokio task of its own.
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    /// The service's own state while the router is the service's, unchanged: a POST to the
    /// MCP path then goes straight to the endpoint (see [`Direct`]).
    direct: Option<Arc<Shared>>,
}

impl HttpServer {
    pub(crate) fn new(
        listener: TcpListener,
        router: Router,
        limits: ConnectionLimits,
        shared: Arc<Shared>,
    ) -> Self {
        HttpServer {
            listener,
            router,
            limits,
            direct: Some(shared),
        }
    }

    /// The bound address (to read back port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Replaces the router served, for example to put an auth layer in front of the
    /// service or to merge other routes: `server.map_router(|r| r.layer(auth))`.
    #[must_use]
    pub fn map_router(mut self, f: impl FnOnce(Router) -> Router) -> Self {
        self.router = f(self.router);
        // Every request now goes through the router: its layers see them all.
        self.direct = None;
        self
    }

    /// Serves until the listener fails.
    pub async fn run(self) -> Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then stops accepting, asks every connection to
    /// close once its current request is answered, and waits for them (open SSE streams keep
    /// it waiting; end their sessions first).
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        let HttpServer {
            listener,
            router,
            limits,
            direct,
        } = self;
        // At most `u32::MAX`, so that the final `acquire_many` can wait for all of them.
        let max = limits.max_connections.min(u32::MAX as usize);
        let permits = Arc::new(Semaphore::new(max));
        let open = Arc::new(OpenConnections::default());
        let mut shutdown = pin!(shutdown);
        loop {
            // Backpressure: at the limit, stop accepting until a connection closes.
            let permit = tokio::select! {
                permit = permits.clone().acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break,
                },
                () = &mut shutdown => break,
            };
            let (tcp, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        accept_failed(&e).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "failed to set TCP_NODELAY");
            }
            let router = router.clone();
            let direct = direct.clone();
            let service = hyper::service::service_fn(move |mut req: http::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                match &direct {
                    Some(shared) if Direct::takes(shared, &req) => {
                        Either::Left(Direct::serve(shared.clone(), req))
                    }
                    // A `Router` is always ready: no `poll_ready` is needed before `call`.
                    _ => Either::Right(tower::Service::call(&mut router.clone(), req)),
                }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(ConnectionTimer::default());
            builder.header_read_timeout(limits.header_read_timeout);
            let mut stop = open.add();
            tokio::spawn(async move {
                let conn = builder.serve_connection(TokioIo::new(tcp), service);
                let mut conn = pin!(conn);
                let result = tokio::select! {
                    // The connection first: no random choice of branch on every wake.
                    biased;
                    result = conn.as_mut() => result,
                    _ = &mut stop.signal => {
                        conn.as_mut().graceful_shutdown();
                        conn.await
                    }
                };
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection closed with an error");
                }
                // Out of the table before the permit frees: once `run_until` holds every
                // permit, no connection is left in it.
                drop(stop);
                drop(permit);
            });
        }
        drop(listener);
        open.stop_all();
        // Every connection holds a permit until it ends.
        let _ = permits
            .acquire_many(u32::try_from(max).unwrap_or(u32::MAX))
            .await;
        Ok(())
    }
}

/// POSTs to the MCP path, served by the endpoint without axum's routing: the router is the
/// service's own (no layers; [`HttpServer::map_router`] turns this off), and the endpoint is
/// what it would route them to, so the answer is the same. The routing, with its boxed
/// route service and body per request, was about 4 % of a stateful request's instructions
/// (callgrind on the HTTP bench); everything else (GET, DELETE, other paths, the legacy
/// endpoints) still goes through the router.
struct Direct;

impl Direct {
    fn takes(shared: &Shared, req: &http::Request<Incoming>) -> bool {
        req.method() == http::Method::POST && req.uri().path() == shared.config.path
    }

    async fn serve(
        shared: Arc<Shared>,
        req: http::Request<Incoming>,
    ) -> std::result::Result<axum::response::Response, Infallible> {
        let req = req.map(axum::body::Body::new);
        Ok(handlers::endpoint(axum::extract::State(shared), req).await)
    }
}

/// The connections a runner serves, each with the signal that asks it to shut down
/// gracefully.
///
/// A connection's task waits on its signal beside the connection itself, so the signal is
/// polled on every wake of the task (every read and write). An [`Abortable`] over a future
/// that never completes costs an atomic load and an `AtomicWaker` registration per poll; a
/// `watch` or `Notify` future, shared by all connections, takes its waiter list's lock on
/// each poll (about 1 % of a small request's instructions, callgrind on the HTTP bench).
#[derive(Default)]
struct OpenConnections {
    table: Mutex<HandleTable>,
}

/// One handle per open connection, by a key that [`StopSignal`] removes when it drops.
#[derive(Default)]
struct HandleTable {
    next_key: u64,
    handles: HashMap<u64, AbortHandle>,
}

/// A connection's end of [`OpenConnections`]: `signal` completes (with `Err(Aborted)`) once
/// the runner stops; dropping it forgets the connection.
struct StopSignal {
    signal: Abortable<Pending<()>>,
    key: u64,
    open: Arc<OpenConnections>,
}

impl OpenConnections {
    fn add(self: &Arc<Self>) -> StopSignal {
        let (handle, registration) = AbortHandle::new_pair();
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let key = table.next_key;
        table.next_key += 1;
        table.handles.insert(key, handle);
        StopSignal {
            signal: Abortable::new(std::future::pending(), registration),
            key,
            open: self.clone(),
        }
    }

    /// Signals every open connection.
    fn stop_all(&self) {
        let table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        for handle in table.handles.values() {
            handle.abort();
        }
    }
}

impl Drop for StopSignal {
    fn drop(&mut self) {
        let mut table = self
            .open
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        table.handles.remove(&self.key);
    }
}

/// After a failed `accept`: per-connection errors are skipped; others (out of file
/// descriptors) are logged and retried after a pause, as `axum::serve` does.
async fn accept_failed(e: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accept failed; retrying in 1 s");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::sync::Arc;
    use std::task::{Context, Poll, Waker};

    use super::OpenConnections;

    fn open_count(open: &OpenConnections) -> usize {
        open.table.lock().unwrap().handles.len()
    }

    #[test]
    fn a_closed_connection_leaves_the_table_and_stop_reaches_the_open_ones() {
        let open = Arc::new(OpenConnections::default());
        let mut first = open.add();
        let second = open.add();
        assert_eq!(open_count(&open), 2);
        drop(second);
        assert_eq!(open_count(&open), 1);
        let mut cx = Context::from_waker(Waker::noop());
        assert!(std::pin::pin!(&mut first.signal).poll(&mut cx).is_pending());
        open.stop_all();
        assert!(matches!(
            std::pin::pin!(&mut first.signal).poll(&mut cx),
            Poll::Ready(Err(_))
        ));
        drop(first);
        assert_eq!(open_count(&open), 0);
    }
}
