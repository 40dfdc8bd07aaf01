//! [`HttpServer`]: the optional runner, an accept loop with a connection limit and read
//! timeouts.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures::future::Either;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

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
        let (stop_tx, stop_rx) = watch::channel(false);
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
            let mut stop = stop_rx.clone();
            tokio::spawn(async move {
                let conn = builder.serve_connection(TokioIo::new(tcp), service);
                let mut conn = pin!(conn);
                let stopping = async move {
                    let _ = stop.wait_for(|stop| *stop).await;
                };
                let result = tokio::select! {
                    result = conn.as_mut() => result,
                    () = stopping => {
                        conn.as_mut().graceful_shutdown();
                        conn.await
                    }
                };
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection closed with an error");
                }
                drop(permit);
            });
        }
        drop(listener);
        let _ = stop_tx.send(true);
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
