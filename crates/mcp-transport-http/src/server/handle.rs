//! What the application holds of a session: [`SessionInfo`], [`HttpSessionTransport`],
//! [`SessionHandle`] and [`RequestStream`].

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::Poll;

use bytes::Bytes;
use mcp_jsonrpc::{ConnectionInfo, Id, InlineRequests, Message, SessionIdCell, Transport};
use tokio::sync::mpsc;

use super::error::Error;
use super::event_store::{StreamId, append_or_log};
use super::routing::Queued;
use super::session::{Session, SessionKind};
use super::sse::{self, Frame};

/// What the session factory learns about a new session.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionInfo {
    /// Stateful, stateless or legacy.
    pub kind: SessionKind,
    /// The session id (`None` for stateless sessions).
    pub session_id: Option<Arc<str>>,
    /// Whether another instance held this session before this one took it over (see
    /// [`Builder::directory`](super::Builder::directory)): the session's `initialize` was
    /// served there, and what it agreed is in the protocol layer's session store.
    pub taken_over: bool,
    /// The `MCP-Protocol-Version` header of the request that opened the session, if any.
    pub protocol_version: Option<String>,
    /// The headers of the request that opened the session.
    pub headers: http::HeaderMap,
    /// The extensions of the request that opened the session (for example an authenticated
    /// principal put there by an auth layer).
    pub extensions: http::Extensions,
    /// A handle to the session (also available from
    /// [`HttpSessionTransport::handle`]).
    pub handle: SessionHandle,
}

/// The [`Transport`] of one HTTP session, handed to the session factory.
///
/// [`recv`](Transport::recv) yields the messages POSTed to the session (cancel-safe) and
/// `Ok(None)` once the session has ended. [`send`](Transport::send) routes each message to
/// one stream (see the [module docs](super#routing-outbound-messages)) and waits for room in
/// that stream's bounded queue; it fails with [`Error::SessionClosed`] once the session has
/// ended. [`close`](Transport::close) ends the session.
pub struct HttpSessionTransport {
    session: Arc<Session>,
    rx: mpsc::Receiver<Queued>,
    endpoints: Endpoints,
}

/// What a session knows of the HTTP connection of the request that opened it, kept as is
/// (no allocation) until [`Transport::connection_info`] is asked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Endpoints {
    /// The client's address: axum's `ConnectInfo<SocketAddr>`, which [`HttpServer`] attaches.
    ///
    /// [`HttpServer`]: super::HttpServer
    pub(crate) peer: Option<SocketAddr>,
    /// The address the service's [`HttpServer`] is bound to.
    ///
    /// [`HttpServer`]: super::HttpServer
    pub(crate) local: Option<SocketAddr>,
    pub(crate) version: http::Version,
}

impl Endpoints {
    /// The connection's attributes: `tcp` (`quic` for HTTP/3), `http` and its version, the
    /// client's address and the server's (unless it is bound to an unspecified address).
    fn connection_info(&self) -> ConnectionInfo {
        let version = match self.version {
            http::Version::HTTP_09 => Some("0.9"),
            http::Version::HTTP_10 => Some("1.0"),
            http::Version::HTTP_11 => Some("1.1"),
            http::Version::HTTP_2 => Some("2"),
            http::Version::HTTP_3 => Some("3"),
            _ => None,
        };
        let transport = if self.version == http::Version::HTTP_3 {
            "quic"
        } else {
            "tcp"
        };
        let mut info = ConnectionInfo::new()
            .with_network_transport(transport)
            .with_network_protocol("http", version);
        if let Some(peer) = self.peer {
            info = info.with_client_socket(peer);
        }
        if let Some(local) = self.local.filter(|a| !a.ip().is_unspecified()) {
            info = info.with_server_socket(local);
        }
        info
    }
}

impl fmt::Debug for HttpSessionTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSessionTransport")
            .field("session_id", &self.session.id)
            .field("kind", &self.session.kind)
            .finish_non_exhaustive()
    }
}

impl HttpSessionTransport {
    pub(crate) fn new(
        session: Arc<Session>,
        rx: mpsc::Receiver<Queued>,
        endpoints: Endpoints,
    ) -> Self {
        HttpSessionTransport {
            session,
            rx,
            endpoints,
        }
    }

    /// A handle to this transport's session.
    pub fn handle(&self) -> SessionHandle {
        SessionHandle {
            session: self.session.clone(),
        }
    }
}

impl Transport for HttpSessionTransport {
    type Error = Error;

    fn send(&mut self, msg: Message) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        self.session.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, Error> {
        let session = &self.session;
        let rx = &mut self.rx;
        Ok(std::future::poll_fn(|cx| {
            // Registered before the check: an `end` after it wakes this task.
            session.reader.register(cx.waker());
            if session.is_ended() {
                return Poll::Ready(None);
            }
            rx.poll_recv(cx).map(|msg| msg.map(|msg| *msg))
        })
        .await)
    }

    fn accept_inline(&mut self, inline: InlineRequests) -> bool {
        self.session.accept_inline(inline)
    }

    /// Of the request that opened the session (for a stateless session, its one request):
    /// `network.transport` `tcp` (`quic` over HTTP/3), `network.protocol.name` `http` and its
    /// version, the client's address and port (from axum's `ConnectInfo<SocketAddr>`,
    /// which [`HttpServer`](super::HttpServer) attaches), the server's (the address
    /// [`HttpServer`](super::HttpServer) is bound to, unless unspecified), and the
    /// `Mcp-Session-Id` of a stateful session.
    fn connection_info(&self) -> ConnectionInfo {
        let info = self.endpoints.connection_info();
        match &self.session.id {
            Some(id) => info.with_session_id(SessionIdCell::fixed(id.clone())),
            None => info,
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Error>> + Send {
        self.session.end();
        async { Ok(()) }
    }
}

/// A cloneable handle to a session: to close a request's stream (so that the client resumes
/// it with `Last-Event-ID`), or to end the session.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    pub(crate) session: Arc<Session>,
}

impl SessionHandle {
    /// The session id (`None` for a stateless session).
    pub fn session_id(&self) -> Option<&str> {
        self.session.id.as_deref()
    }

    /// The kind of session.
    pub fn kind(&self) -> SessionKind {
        self.session.kind
    }

    /// The protocol revision of the session's `initialize` response, once it has been sent.
    pub fn negotiated_version(&self) -> Option<String> {
        self.session.lock().negotiated_version.clone()
    }

    /// Whether the session has ended.
    pub fn is_ended(&self) -> bool {
        self.session.is_ended()
    }

    /// Completes when the session ends.
    pub async fn ended(&self) {
        self.session.ended.cancelled().await;
    }

    /// Ends the session, as a DELETE would: the transport's `recv` yields `None`, every
    /// stream ends, and later requests with its id get 404.
    pub fn end(&self) {
        self.session.end();
    }

    /// Closes the HTTP connection of the stream carrying request `id` without ending the
    /// stream (SSE polling, SEP-1699): if nothing was sent yet, the POST is answered with an
    /// SSE stream holding only a priming event (with `retry`); later messages of the request,
    /// its response included, are kept in the event store and delivered when the client
    /// reconnects with GET and `Last-Event-ID`.
    ///
    /// Returns `false` if no such request is in flight, if its answer already went out as
    /// plain JSON, or if the session has no event store (then nothing is closed, since the
    /// messages could not be recovered).
    pub async fn close_request_stream(&self, id: &Id) -> bool {
        let session = &self.session;
        let Some((store, sid)) = session.store() else {
            return false;
        };
        let _order = session.order().await;
        let (stream, tx) = {
            let mut st = session.lock();
            let Some(stream) = st.requests.get(id).map(|r| r.stream) else {
                return false;
            };
            let Some(slot) = st.streams.get_mut(&stream) else {
                return false;
            };
            let prime = slot.is_undecided();
            if prime {
                // The POST answers with an SSE stream; its connection closes after the
                // priming event (the sender is taken below).
                slot.open_sse(1);
            }
            let tx = slot.tx.take();
            (stream, tx.filter(|_| prime))
        };
        if let Some(tx) = tx {
            let event_id = append_or_log(store, sid, StreamId(stream), Bytes::new()).await;
            let priming = sse::event(
                event_id.as_deref(),
                Some(session.config.sse_retry),
                None,
                b"",
            );
            // The queue is empty (nothing was sent), so this cannot fail for lack of room.
            let _ = tx.try_send(Frame(priming));
        }
        true
    }

    /// Closes the standalone GET stream's connection (the client may resume it with
    /// `Last-Event-ID`); `false` if none is open.
    pub fn close_standalone_stream(&self) -> bool {
        let mut st = self.session.lock();
        match st.streams.get_mut(&StreamId::STANDALONE.0) {
            Some(slot) if slot.tx.is_some() => {
                slot.tx = None;
                true
            }
            _ => false,
        }
    }
}

/// The HTTP stream carrying one inbound request, found in every request's
/// [`extensions`](mcp_jsonrpc::RequestContext::extensions) (with the [`SessionHandle`], the
/// request's `http::HeaderMap` and its `http::Extensions`): a handler closes its own stream
/// with it mid-call (SSE polling), and the client resumes with GET and `Last-Event-ID`.
///
/// ```
/// use mcp_jsonrpc::{ErrorObject, Handler, Request, RequestContext, to_raw_value};
/// use mcp_transport_http::server::RequestStream;
/// use serde_json::value::RawValue;
///
/// struct Polling;
///
/// impl Handler for Polling {
///     async fn handle_request(
///         &self,
///         _request: Request,
///         ctx: RequestContext,
///     ) -> Result<Box<RawValue>, ErrorObject> {
///         if let Some(stream) = ctx.extensions().get::<RequestStream>() {
///             // The client reconnects; the response below reaches it then.
///             stream.close().await;
///         }
///         to_raw_value(&"done")
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct RequestStream {
    handle: SessionHandle,
    id: Id,
}

impl RequestStream {
    pub(crate) fn new(handle: SessionHandle, id: Id) -> Self {
        RequestStream { handle, id }
    }

    /// The id of the request.
    pub fn request_id(&self) -> &Id {
        &self.id
    }

    /// The session the request belongs to.
    pub fn session(&self) -> &SessionHandle {
        &self.handle
    }

    /// Closes the request's HTTP connection without ending its stream; see
    /// [`SessionHandle::close_request_stream`], which this calls (and whose result it
    /// returns: `false` without an event store, in stateless and legacy sessions, or once
    /// the response went out as plain JSON).
    pub async fn close(&self) -> bool {
        self.handle.close_request_stream(&self.id).await
    }
}
