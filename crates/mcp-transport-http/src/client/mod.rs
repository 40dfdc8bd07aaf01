//! The client side: [`StreamableHttpClientTransport`], a [`Transport`] over `reqwest`.
//!
//! It speaks Streamable HTTP in both protocol eras: sessions opened by `initialize`
//! (revisions 2025-03-26 to 2025-11-25, falling back to the legacy HTTP+SSE transport of
//! 2024-11-05 when the server refuses the POST of `initialize`), and the stateless requests of
//! 2026-07-28, told apart per request by the version their `_meta` names.
//!
//! ```no_run
//! use mcp_jsonrpc::{Config, Connection};
//! use mcp_transport_http::client::StreamableHttpClientTransport;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let transport = StreamableHttpClientTransport::builder("https://example.com/mcp")
//!     .header("x-api-key", "secret")
//!     .build()?;
//! let (peer, connection) = Connection::new(transport, (), Config::default());
//! tokio::spawn(connection.run());
//! let params = serde_json::value::to_raw_value(&serde_json::json!({
//!     "protocolVersion": "2025-11-25",
//!     "capabilities": {},
//!     "clientInfo": { "name": "example", "version": "1.0.0" }
//! }))?;
//! let result = peer.request("initialize", Some(params)).await?;
//! peer.notify("notifications/initialized", None).await?;
//! # let _ = result;
//! # Ok(())
//! # }
//! ```
//!
//! # What goes over the wire
//!
//! - Every message is a POST with `Accept: application/json, text/event-stream` and
//!   `Content-Type: application/json`, plus the builder's headers, those of the
//!   [`HeaderProvider`] and the `Authorization` of the [`AuthProvider`]. A request is
//!   answered with JSON or with an SSE stream (whose events may carry server requests and
//!   notifications before the response); notifications and responses get 202.
//! - The `Mcp-Session-Id` of the `initialize` response, and the protocol version of its
//!   result, go out as `Mcp-Session-Id` and `MCP-Protocol-Version` on every later request.
//! - Once `notifications/initialized` has been accepted, the transport opens the standalone
//!   GET stream (a 405 means the server offers none).
//! - [`Transport::close`] ends the session with DELETE (a 405 is fine).
//!
//! # 2026-07-28 requests
//!
//! A request whose `params._meta` names a protocol version of the stateless era
//! (`io.modelcontextprotocol/protocolVersion`, which `mcp-client` sets on every request of
//! that era) is sent without `Mcp-Session-Id`, with `MCP-Protocol-Version` (that version),
//! `Mcp-Method`, `Mcp-Name` for `tools/call` and `prompts/get` (the name) and
//! `resources/read` (the URI), and the `Mcp-Param-*` headers of the request's
//! [`McpParamHeaders`](mcp_types::McpParamHeaders) extension (set by the sender with
//! [`RequestOptions::extension`](mcp_jsonrpc::RequestOptions::extension)). Names and values
//! that are not plain visible ASCII go as `=?base64?...?=`. Its answer is JSON or an SSE
//! stream, never resumed (the revision has no resumption); an error status with a JSON-RPC
//! body gives that error (say -32022), one without gives -32603 with `data.status`, which is
//! how a dual-era client tells a server of the other era. Cancelling such a request drops its
//! exchange: closing the stream is the revision's cancellation, and no
//! `notifications/cancelled` is POSTed. No GET stream is opened and nothing is DELETEd.
//!
//! # Reconnection and resumption
//!
//! - A POST's SSE stream that ends before the response: after the server's `retry`
//!   interval (or [`Reconnect::initial_delay`]), the transport resumes it with GET and
//!   `Last-Event-ID`, as often as the server closes it. A failed attempt is retried with
//!   exponential backoff, up to [`Reconnect::max_attempts`] in a row; then (or if the
//!   server sent no event id, or answers 405) the request fails with
//!   [`Error::StreamEnded`].
//! - The GET stream is reopened the same way whenever it ends.
//! - HTTP 404 on a request that carried a session id means the session is gone: the
//!   transport re-sends the cached `initialize` request and `notifications/initialized`,
//!   takes the new session id, and fails every request still pending on the old session
//!   with a -32603 error response, "session expired; the request was not completed".
//!
//! # Authorization
//!
//! An [`AuthProvider`] set with
//! [`auth`](StreamableHttpClientTransportBuilder::auth) is how an OAuth client (such as
//! mcp-auth's, glued in with [`auth_provider_fn`]) joins the transport, which knows nothing
//! of OAuth itself:
//!
//! - Every POST, GET and DELETE (the `initialize` POST, requests, notifications, the GET
//!   stream and its resumptions, re-initialization, the legacy HTTP+SSE stream and
//!   endpoint, the closing DELETE) carries its `Authorization` header. Tokens go in that
//!   header only, never in the URL.
//! - HTTP 401, or 403 whose `WWW-Authenticate` says `error="insufficient_scope"` (a
//!   step-up), calls [`AuthProvider::on_unauthorized`] with the [`AuthChallenge`]
//!   (`resource_metadata`, `scope`, `error` parsed); when it answers `Ok(true)` the same
//!   HTTP request is sent again, at most
//!   [`max_auth_retries`](StreamableHttpClientTransportBuilder::max_auth_retries) times
//!   (default 2), so a server that refuses every token cannot make the client loop.
//! - Refusals that arrive while the provider is at work are coalesced: the other requests
//!   wait for its outcome and retry (or give up) with it, so concurrent 401s make one
//!   `on_unauthorized` call; new requests wait for it too.
//! - A request that stays refused fails with [`Error::Unauthorized`] (its status and
//!   challenge), one whose provider fails with [`Error::Auth`], as a JSON-RPC error
//!   response like any other failure below. A 401 or 403 on `initialize` never triggers the
//!   legacy fallback: it is an answer about credentials, not about the transport.
//!
//! Without an auth provider, a 401 or 403 is an HTTP error status like any other.
//!
//! # Failures
//!
//! What concerns one request (an HTTP error status, a network error, a stream that could
//! not be resumed) becomes a JSON-RPC error response for it, from [`recv`]: the request
//! fails and the connection carries on. A failed notification or response makes its `send`
//! fail with [`Error`], which ends the connection, as does failing to start a new session.
//!
//! # Size limits
//!
//! Every body the transport reads is bounded by
//! [`max_message_size`](StreamableHttpClientTransportBuilder::max_message_size) (default
//! [`DEFAULT_MAX_MESSAGE_SIZE`], 16 MiB): a JSON response is refused unread when its
//! `Content-Length` is larger and is read no further once it passes the limit; an error
//! response is read up to the limit; an SSE line, or the lines of one SSE event, that pass it
//! end the stream, which is not resumed. The request waiting on it fails with
//! [`Error::TooLarge`] and the connection goes on. SSE is parsed in time linear in its size.
//!
//! # No background tasks, no blocked sends
//!
//! The transport spawns nothing. The `send` of a request returns once its POST is handed to
//! [`recv`]: the whole exchange (the request, the response headers, then the JSON body or the
//! SSE stream, or an HTTP error turned into an error response for the request) is driven by
//! `recv` alongside the SSE streams, the GET stream and a bounded queue of ready messages:
//! keep calling `recv` (the connection always does). So a request the server answers late
//! never holds up the connection's next send, such as the client's answer to a sampling or
//! elicitation request that the server makes (on the GET stream) before it answers the POST.
//! Requests sent one after the other may therefore reach the server in either order.
//!
//! Other sends complete their exchange before returning: `initialize` (so that every later
//! POST carries the session id of its response), notifications and responses (until their
//! 202, so that a failure is reported by `send`), and every POST of a legacy session.
//!
//! # Cancel safety
//!
//! - [`recv`] is cancel-safe: the streams, their reconnection timers and the queue live in
//!   the transport, and a message is taken out only when it is returned.
//! - `send` futures do not borrow the transport and are not cancel-safe (dropped midway, a
//!   message may or may not have been delivered).
//! - [`Transport::close`] is not cancel-safe: dropped midway, the DELETE may not be sent.
//!
//! [`recv`]: Transport::recv

mod auth;
mod body;
mod builder;
mod error;
mod legacy;
mod modern;
mod options;
mod request;
mod session;
mod shared;
mod sse;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fmt;
use std::future::{Future, poll_fn};
use std::sync::Arc;
use std::task::Poll;

use futures::StreamExt;
use futures::stream::SelectAll;
use mcp_jsonrpc::{ConnectionInfo, Id, Message, Response, Transport};
use mcp_types::{Cancelled, CancelledNotificationParams, Initialize, Initialized, Request as _};
use tokio::sync::mpsc;

pub use auth::{AuthChallenge, AuthProvider, AuthProviderFn, auth_provider_fn};
pub use body::DEFAULT_MAX_MESSAGE_SIZE;
pub use builder::StreamableHttpClientTransportBuilder;
pub use error::{Error, Result};
pub use options::{HeaderProvider, Reconnect};
#[doc(hidden)]
pub use sse::fuzz_sse;

use shared::{Inbound, Init, Mode, Outgoing, Shared, Task};

use crate::ids::wire_id;

/// The MCP client transport over HTTP: Streamable HTTP, with a fallback to the legacy
/// HTTP+SSE transport. See the [module docs](self).
///
/// Build it with [`builder`](Self::builder) (or [`new`](Self::new) for the defaults) and
/// run it in an [`mcp_jsonrpc::Connection`].
pub struct StreamableHttpClientTransport {
    shared: Arc<Shared>,
    inbox: mpsc::Receiver<Inbound>,
    tasks: SelectAll<Task>,
    ready: VecDeque<Message>,
    ended: bool,
}

/// A shorter name for [`StreamableHttpClientTransport`].
pub type HttpClientTransport = StreamableHttpClientTransport;

impl fmt::Debug for StreamableHttpClientTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.shared.state();
        f.debug_struct("StreamableHttpClientTransport")
            .field("url", &self.shared.url.as_str())
            .field("mode", &st.mode)
            .field("session", &st.session)
            .field("protocol_version", &st.version)
            .field("pending", &st.pending.len())
            .field("streams", &self.tasks.len())
            .field("ready", &self.ready.len())
            .finish()
    }
}

impl StreamableHttpClientTransport {
    /// Starts building a transport for the MCP endpoint at `url`.
    pub fn builder(url: impl Into<String>) -> StreamableHttpClientTransportBuilder {
        StreamableHttpClientTransportBuilder::new(url)
    }

    /// A transport for `url` with the default options.
    pub fn new(url: impl Into<String>) -> Result<Self> {
        Self::builder(url).build()
    }

    pub(crate) fn from_parts(shared: Arc<Shared>, inbox: mpsc::Receiver<Inbound>) -> Self {
        StreamableHttpClientTransport {
            shared,
            inbox,
            tasks: SelectAll::new(),
            ready: VecDeque::new(),
            ended: false,
        }
    }

    /// The session id the server assigned, if any.
    pub fn session_id(&self) -> Option<String> {
        let st = self.shared.state();
        st.session
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    /// The negotiated protocol version, once the `initialize` response has been received.
    pub fn protocol_version(&self) -> Option<String> {
        let st = self.shared.state();
        st.version
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    /// Whether the transport fell back to the legacy HTTP+SSE transport.
    pub fn is_legacy(&self) -> bool {
        matches!(self.shared.state().mode, Mode::Legacy(_))
    }

    /// Handles one item synchronously (so that `recv` stays cancel-safe).
    fn handle(&mut self, item: Inbound) -> Result<()> {
        match item {
            Inbound::Message(msg) => self.ready.push_back(msg),
            Inbound::Spawn(task) => {
                if !self.ended {
                    self.tasks.push(task);
                }
            }
            Inbound::Expired { generation } => {
                let tasks = std::mem::take(&mut self.tasks);
                self.tasks = tasks
                    .into_iter()
                    .filter(|t| t.generation > generation)
                    .collect();
                let failed: Vec<Id> = {
                    let mut st = self.shared.state();
                    let ids: Vec<Id> = st
                        .pending
                        .iter()
                        .filter(|(_, g)| **g <= generation)
                        .map(|(id, _)| id.clone())
                        .collect();
                    for id in &ids {
                        st.pending.remove(id);
                    }
                    ids
                };
                let error = Error::SessionExpired.to_error_object();
                for id in failed {
                    self.ready
                        .push_back(Message::Response(Response::error(Some(id), error.clone())));
                }
            }
            Inbound::Failed(e) => {
                self.ended = true;
                self.tasks = SelectAll::new();
                return Err(e);
            }
            Inbound::End => {
                self.ended = true;
                self.tasks = SelectAll::new();
            }
            Inbound::Abort(id) => {
                let tasks = std::mem::take(&mut self.tasks);
                self.tasks = tasks
                    .into_iter()
                    .filter(|t| t.request.as_ref() != Some(&id))
                    .collect();
            }
        }
        Ok(())
    }

    /// Updates the state for a message about to be returned by `recv`.
    fn observe(&self, msg: &Message) {
        match msg {
            Message::Response(r) => {
                let Some(id) = &r.id else { return };
                let mut st = self.shared.state();
                st.pending.remove(id);
                st.modern.remove(id);
                let is_init = st.init.as_ref().is_some_and(|init| &init.id == id);
                if is_init
                    && !matches!(st.mode, Mode::Legacy(_))
                    && let Ok(result) = &r.result
                {
                    st.version = shared::protocol_version(result);
                }
            }
            Message::Batch(items) => items.iter().for_each(|m| self.observe(m)),
            _ => {}
        }
    }
}

/// Serializes `msg` and notes what the transport needs to know about it.
fn outgoing(shared: &Shared, msg: &Message) -> Result<Outgoing> {
    let body = msg.to_json().map_err(Error::Encode)?;
    let mut ids = Vec::new();
    let mut initialize = false;
    let mut initialized = false;
    let mut abort = None;
    let modern = match msg {
        Message::Request(r) => modern::request_headers(r)?,
        _ => None,
    };
    let mut visit = |m: &Message| match m {
        Message::Request(r) => {
            ids.push(r.id.clone());
            if r.method == Initialize::METHOD {
                initialize = true;
                shared.state().init = Some(Init {
                    id: r.id.clone(),
                    body: m.to_json().unwrap_or_default(),
                });
            }
        }
        Message::Notification(n)
            if n.method == <Initialized as mcp_types::Notification>::METHOD =>
        {
            initialized = true;
        }
        Message::Notification(n) if n.method == <Cancelled as mcp_types::Notification>::METHOD => {
            if let Ok(CancelledNotificationParams {
                request_id: Some(id),
                ..
            }) = n.params()
            {
                let id = wire_id(id);
                let mut st = shared.state();
                st.pending.remove(&id);
                if st.modern.contains(&id) {
                    abort = Some(id);
                }
            }
        }
        _ => {}
    };
    match msg {
        Message::Batch(items) => items.iter().for_each(&mut visit),
        m => visit(m),
    }
    Ok(Outgoing {
        body,
        ids,
        initialize,
        initialized,
        modern,
        abort,
    })
}

impl Transport for StreamableHttpClientTransport {
    type Error = Error;

    fn send(&mut self, msg: Message) -> impl Future<Output = Result<()>> + Send + 'static {
        let shared = self.shared.clone();
        let out = outgoing(&shared, &msg);
        async move { shared.send(out?).await }
    }

    async fn recv(&mut self) -> Result<Option<Message>> {
        loop {
            if let Some(msg) = self.ready.pop_front() {
                self.observe(&msg);
                return Ok(Some(msg));
            }
            if self.ended {
                return Ok(None);
            }
            let inbox = &mut self.inbox;
            let tasks = &mut self.tasks;
            let item = poll_fn(|cx| {
                if let Poll::Ready(item) = inbox.poll_recv(cx) {
                    // The transport holds a sender, so the inbox never closes.
                    return Poll::Ready(item.unwrap_or(Inbound::End));
                }
                match tasks.poll_next_unpin(cx) {
                    Poll::Ready(Some(item)) => Poll::Ready(item),
                    _ => Poll::Pending,
                }
            })
            .await;
            self.handle(item)?;
        }
    }

    /// `network.transport` `tcp`, `network.protocol.name` `http` (the version is
    /// `reqwest`'s to negotiate), the server's host and port from the URL, and the
    /// `Mcp-Session-Id` the server gives (read when each span is made: it comes with the
    /// answer to `initialize`, and changes if the server ends the session).
    fn connection_info(&self) -> ConnectionInfo {
        let url = &self.shared.url;
        let host = match url.host() {
            Some(url::Host::Domain(domain)) => Some(domain.to_owned()),
            Some(url::Host::Ipv4(ip)) => Some(ip.to_string()),
            Some(url::Host::Ipv6(ip)) => Some(ip.to_string()),
            None => None,
        };
        let mut info = ConnectionInfo::new()
            .with_network_transport("tcp")
            .with_network_protocol("http", None)
            .with_session_id(self.shared.session_id.clone());
        if let Some(host) = host {
            info = info.with_server(host, url.port_or_known_default());
        }
        info
    }

    fn close(&mut self) -> impl Future<Output = Result<()>> + Send {
        self.ended = true;
        self.tasks = SelectAll::new();
        let shared = self.shared.clone();
        async move { shared.close().await }
    }
}
