//! [`Connection`], the future that runs a client's connection, and its keep-alive pings.

use std::fmt;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::{Either, select};
use mcp_jsonrpc::trace::SessionSpan;
use mcp_jsonrpc::{ConnectionInfo, Peer, RequestOptions};
use mcp_types::{Discover, JsonObject, Ping, Request as _};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::modern::Modern;
use crate::running::RunState;

pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The connection of a [`Client`]: a future that must be polled (spawned, or driven in a
/// `select!`) for the client's calls to complete and for the server's requests and
/// notifications to be handled.
///
/// It completes when the connection closes: `Ok(())` after [`Client::close`], after the last
/// [`Client`] handle was dropped, or when the server ended the stream;
/// [`Error::Transport`] if the transport failed; [`Error::PingFailed`] if the keep-alive
/// ping (see [`ClientBuilder::ping_interval`]) failed.
///
/// [`Client`]: crate::Client
/// [`Client::close`]: crate::Client::close
/// [`ClientBuilder::ping_interval`]: crate::ClientBuilder::ping_interval
///
/// # Running it
///
/// The library never spawns, so nothing happens until you run it: spawn it, or poll it
/// alongside the calls.
///
/// ```
/// # use mcp_client::Client;
/// # use mcp_server::{Server, Tool};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = Server::builder().tool(Tool::new("ping", || async { "pong" })).build();
/// # let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
/// # tokio::spawn(async move { server.serve(server_end).await });
/// // Either spawn it:
/// let (client, connection) = Client::builder().connect(client_end).await?;
/// let connection = tokio::spawn(connection);
/// client.call_tool("ping").await?;
/// client.close();
/// connection.await??;
/// # let server = Server::builder().tool(Tool::new("ping", || async { "pong" })).build();
/// # let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
/// # tokio::spawn(async move { server.serve(server_end).await });
///
/// // Or poll it together with the calls, on this task:
/// let (client, connection) = Client::builder().connect(client_end).await?;
/// let calls = async {
///     let result = client.call_tool("ping").await;
///     client.close();
///     result
/// };
/// let (result, end) = tokio::join!(calls, connection);
/// result?;
/// end?;
/// # Ok(())
/// # }
/// ```
///
/// A call made while it has not been polled yet waits at most
/// [`CONNECTION_GRACE`](crate::CONNECTION_GRACE) (250 ms) for its first poll, then fails
/// with [`Error::ConnectionNotRunning`] (at once if the `Connection` was dropped without
/// being polled), rather than waiting out its timeout. Once it has been polled, calls do not
/// look again.
///
/// # Cancel safety
///
/// Dropping it tears the connection down: pending calls fail with [`Error::Closed`].
#[must_use = "the connection does nothing unless polled: spawn it, or poll it alongside the calls"]
pub struct Connection {
    fut: BoxFuture<Result<()>>,
    /// The session's span: it ends when this does.
    session_span: SessionSpan,
    /// Told of the first poll, or of a drop without one.
    running: Arc<RunState>,
    /// Whether this future has been polled (so that the shared state is written once).
    polled: bool,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection").finish_non_exhaustive()
    }
}

impl Connection {
    pub(crate) fn new(
        run: BoxFuture<mcp_jsonrpc::Result<()>>,
        peer: Peer,
        ping: Option<KeepAlive>,
        running: Arc<RunState>,
        session_span: SessionSpan,
    ) -> Self {
        let fut = async move {
            let end = match ping {
                None => run.await,
                Some(keep_alive) => {
                    let pinger = pin!(keep_alive.run(peer.clone()));
                    match select(run, pinger).await {
                        Either::Left((end, _)) => end,
                        Either::Right((error, run)) => {
                            peer.close();
                            let _ = run.await;
                            return Err(Error::PingFailed(Box::new(error)));
                        }
                    }
                }
            };
            end.map_err(|e| Error::from_jsonrpc(e, "", None))
        };
        Connection {
            fut: Box::pin(fut),
            session_span,
            running,
            polled: false,
        }
    }
}

impl Future for Connection {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        if !self.polled {
            self.polled = true;
            self.running.polled();
        }
        let end = self.fut.as_mut().poll(cx);
        if let Poll::Ready(Err(e)) = &end {
            let error_type = match e {
                Error::PingFailed(_) => "ping_failed",
                Error::Transport(_) => "transport",
                _ => "_OTHER",
            };
            self.session_span.record_failure(error_type, e);
        }
        end
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if !self.polled {
            self.running.dropped_unpolled();
        }
    }
}

/// The keep-alive ping of [`ClientBuilder::ping_interval`]: `ping`, or on 2026-07-28 (which
/// has no `ping`) `server/discover`.
pub(crate) struct KeepAlive {
    every: Duration,
    options: RequestOptions,
    method: &'static str,
    params: Box<serde_json::value::RawValue>,
    /// What the transport said of the connection, for the pings' spans.
    connection: Option<Arc<ConnectionInfo>>,
}

impl KeepAlive {
    pub(crate) fn new(
        every: Duration,
        options: RequestOptions,
        modern: Option<&Modern>,
        connection: Option<Arc<ConnectionInfo>>,
    ) -> Result<Self> {
        let (method, params) = match modern {
            None => (Ping::METHOD, JsonObject::new()),
            Some(modern) => (
                Discover::METHOD,
                modern.with_meta(Discover::METHOD, Value::Object(JsonObject::new()))?,
            ),
        };
        let params = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::decode(method, "params", e))?;
        Ok(KeepAlive {
            every,
            options,
            method,
            params,
            connection,
        })
    }

    /// Pings every `every` until a ping fails; returns that failure. A ping that fails because
    /// the connection closed is not a failure of the ping: the loop then waits for the
    /// connection to finish.
    async fn run(self, peer: Peer) -> Error {
        let every = self.every;
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            let params = Some(self.params.clone());
            let options = self.options.clone();
            let connection = self.connection.as_deref();
            let ping = mcp_jsonrpc::trace::request_on(
                &peer,
                self.method,
                params,
                options,
                None,
                connection,
            );
            match ping.await {
                Ok(_) => tracing::trace!("keep-alive ping answered"),
                Err(mcp_jsonrpc::Error::Closed { .. }) => std::future::pending::<()>().await,
                Err(e) => return Error::from_jsonrpc(e, self.method, None),
            }
        }
    }
}
