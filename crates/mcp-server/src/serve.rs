//! Serving a session: [`Server::serve`], and the JSON-RPC [`Handler`] that answers the
//! lifecycle itself and hands every other request, as an [`McpRequest`] with its
//! [`Context`], to the server's service (its layers, then the router).

use std::sync::Arc;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;

use mcp_jsonrpc::trace::{OperationSpan, SessionSpan};
use mcp_jsonrpc::{
    Connection, ConnectionInfo, Handler, Notification, NotificationContext, Request,
    RequestContext, Transport,
};
use mcp_types::{
    ClientCapabilities, EmptyResult, ErrorObject, Initialize, InitializeRequestParams,
    InitializeResult, Initialized, Ping, ProtocolVersion,
};
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tracing::Instrument as _;

use crate::context::{Context, ContextParts};
use crate::error::{Error, Result, error_object, is_input_required};
use crate::input::Input;
use crate::modern;
use crate::notifier::notifier;
use crate::persist::Persist;
use crate::server::{STATEFUL_VERSIONS, Server};
use crate::service::McpRequest;
use crate::session_state::{ClientState, InitState, SessionShared};
use crate::session_store::SessionStore;
use crate::telemetry;

impl Server {
    /// Serves one session over `transport` until the client disconnects or the transport
    /// fails. The library never spawns: the caller awaits this future, or spawns it (one per
    /// connection for a multi-client transport).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future ends the session: in-flight handlers are dropped (their
    /// cancellation tokens fire) and the transport is dropped without a graceful close.
    pub async fn serve<T: Transport>(&self, transport: T) -> Result<()> {
        self.serve_with(transport, ServeOptions::default()).await
    }

    /// The session factory of a transport that opens many sessions, such as the Streamable
    /// HTTP service's `build`: called with a session's transport and its description (not
    /// looked at), it returns the future that serves the session with this server. A
    /// session that ends in an error logs it with `tracing` (WARN). For options per session
    /// (a session store, say), write the closure yourself around
    /// [`serve_with`](Self::serve_with).
    ///
    /// ```
    /// use mcp_client::Client;
    /// use mcp_jsonrpc::memory;
    /// use mcp_server::{Server, Tool};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> anyhow::Result<()> {
    /// let server = Server::builder()
    ///     .tool(Tool::new("hello", || async { "Hello!" }))
    ///     .build();
    /// // Over HTTP: `StreamableHttpService::builder().build(server.session_factory())`.
    /// let factory = server.session_factory();
    /// let (client_end, server_end) = memory::pair(16);
    /// tokio::spawn(factory(server_end, ()));
    ///
    /// let (client, connection) = Client::builder().connect(client_end).await?;
    /// tokio::spawn(connection);
    /// let result = client.call_tool("hello").await?;
    /// assert_eq!(result.content[0].as_text(), Some("Hello!"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn session_factory<T: Transport, I: 'static>(
        &self,
    ) -> impl Fn(T, I) -> futures::future::BoxFuture<'static, ()> + Clone + Send + Sync + 'static
    {
        let server = self.clone();
        move |transport, _description| {
            let server = server.clone();
            Box::pin(async move {
                if let Err(e) = server.serve(transport).await {
                    tracing::warn!(error = %e, "session failed");
                }
            })
        }
    }

    /// Like [`serve`](Self::serve), with [`ServeOptions`]: to serve a session that has no
    /// `initialize` handshake of its own, such as each POST of a stateless HTTP service.
    ///
    /// ```
    /// use mcp_jsonrpc::{memory, Config, Connection};
    /// use mcp_server::types::{ClientCapabilities, ProtocolVersion};
    /// use mcp_server::{ServeOptions, Server, Tool};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> anyhow::Result<()> {
    /// let server = Server::builder()
    ///     .tool(Tool::new("hello", || async { "Hello!" }))
    ///     .build();
    /// let (client_end, server_end) = memory::pair(16);
    /// // An HTTP session factory would pass the request's `MCP-Protocol-Version` header.
    /// let options = ServeOptions::new().assume_initialized(
    ///     Some(ProtocolVersion::V2025_06_18),
    ///     ClientCapabilities::default(),
    /// );
    /// tokio::spawn(async move { server.serve_with(server_end, options).await });
    ///
    /// let (client, connection) = Connection::new(client_end, (), Config::default());
    /// tokio::spawn(connection.run());
    /// // No handshake: the first request is served at once.
    /// let call = serde_json::value::to_raw_value(&serde_json::json!({"name": "hello"}))?;
    /// let result = client.request("tools/call", Some(call)).await?;
    /// assert_eq!(result.get(), r#"{"content":[{"type":"text","text":"Hello!"}]}"#);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// As for [`serve`](Self::serve).
    pub async fn serve_with<T: Transport>(
        &self,
        transport: T,
        options: ServeOptions,
    ) -> Result<()> {
        let inner = self.inner();
        let (log_tx, log_rx) = mpsc::channel(inner.log_queue.max(1));
        let session = Arc::new(SessionShared::new(
            self.next_session_id(),
            inner.default_log_level,
            log_tx,
        ));
        let persist = options
            .session_store
            .map(|(store, id)| Arc::new(Persist::new(store, id)));
        // The session's span, for the conventions' session-duration metric: from here to the
        // end of this future. Never entered, so the requests' spans are not its children.
        let session_span = SessionSpan::server();
        // What the transport knows of the connection (addresses, session id), asked once and
        // only when the spans that record it may be wanted (a stateless HTTP service opens a
        // session per request).
        let connection =
            OperationSpan::wanted_for_connection().then(|| Arc::new(transport.connection_info()));
        if let Some(connection) = &connection {
            session_span.record_connection(connection);
        }
        let handler = SessionHandler {
            server: self.clone(),
            session: session.clone(),
            persist: persist.clone(),
            session_span: session_span.clone(),
            connection,
        };
        let (peer, connection) = Connection::new(transport, handler, inner.config.clone());
        if let Some(persist) = &persist {
            persist.restore(self, &session, &peer).await;
        }
        if let Some((version, capabilities)) = options.assume_initialized {
            let version = version.map_or_else(
                || STATEFUL_VERSIONS[STATEFUL_VERSIONS.len() - 1].clone(),
                |v| ProtocolVersion::negotiate(&v, STATEFUL_VERSIONS),
            );
            peer.set_batching(version.supports_batching());
            session_span.record_protocol_version(version.as_str());
            session.assume(InitState {
                capabilities: self.capabilities_for(&version),
                client: Arc::new(ClientState {
                    version,
                    info: None,
                    capabilities,
                }),
            });
        }
        let _guard = self.register_session(session.clone());
        // The notifier waits on four sources; polled beside the connection on every wake-up
        // (every request), it cost about 0.9k instructions per request (callgrind on the HTTP
        // bench). In a `FuturesUnordered` it is polled only when one of them woke it. Boxed:
        // the set's stub task is as large as the future type it holds, and the notifier's
        // (880 bytes) would have been kept twice by every idle session (dhat).
        let notifier: BoxFuture<'static, std::convert::Infallible> =
            Box::pin(notifier(self.clone(), session, peer, log_rx));
        let mut notify: FuturesUnordered<_> = std::iter::once(notifier).collect();
        let end = tokio::select! {
            biased;
            result = connection.run() => result,
            Some(never) = notify.next() => match never {},
        };
        if let Err(e) = &end {
            session_span.record_failure(mcp_jsonrpc::trace::error_type(e), e);
        }
        end.map_err(Error::from)
    }
}

/// How [`Server::serve_with`] runs a session. The default is what [`Server::serve`] does:
/// wait for the client's `initialize`.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    assume_initialized: Option<(Option<ProtocolVersion>, ClientCapabilities)>,
    session_store: Option<(Arc<dyn SessionStore>, String)>,
}

impl ServeOptions {
    /// The default options.
    pub fn new() -> Self {
        ServeOptions::default()
    }

    /// Serves the session as if the client had already initialized it, at `version` with
    /// `capabilities`: for transports that carry no handshake of their own, such as
    /// `mcp-transport-http`'s `SessionMode::Stateless`, where each POST gets a fresh
    /// transport (pass the request's `MCP-Protocol-Version` header, which the factory finds
    /// in `SessionInfo::protocol_version`).
    ///
    /// - `version`: negotiated against [`STATEFUL_VERSIONS`] like an `initialize` request
    ///   (an unsupported one gives the latest); `None` means the latest, 2025-11-25.
    /// - `capabilities`: what the client is taken to support. Pass
    ///   `ClientCapabilities::default()` when no one can answer server-to-client requests
    ///   (stateless HTTP cannot route the client's answer back): `Context::sample`,
    ///   `elicit` and `list_roots` then fail with [`Error::CapabilityNotDeclared`]
    ///   without sending anything.
    ///
    /// The session is open for server-initiated messages from the start (as after
    /// `notifications/initialized`). An `initialize` request arriving anyway (a stateless
    /// HTTP client sends its handshake in a POST of its own) is answered as usual, and does
    /// not change the assumed state.
    #[must_use]
    pub fn assume_initialized(
        mut self,
        version: Option<ProtocolVersion>,
        capabilities: ClientCapabilities,
    ) -> Self {
        self.assume_initialized = Some((version, capabilities));
        self
    }

    /// Keeps the session's [`SessionSnapshot`](crate::SessionSnapshot) in `store` under
    /// `session_id` (the transport's session id, such as `mcp-transport-http`'s
    /// `SessionInfo::session_id`), so that another server instance sharing the store can
    /// take the session over.
    ///
    /// When the session starts, a snapshot already stored under the id is taken up: the
    /// session is served as initialized, with the client's capabilities, log level and
    /// subscriptions as they were. Afterwards the snapshot is saved after every change
    /// (`initialize`, `notifications/initialized`, `logging/setLevel`, `resources/subscribe`
    /// and `unsubscribe`), before the answer to the request that made it goes out.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_client::Client;
    /// use mcp_jsonrpc::memory;
    /// use mcp_client::EraChoice;
    /// use mcp_server::{InMemorySessionStore, ServeOptions, Server, SessionStore, Tool};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> anyhow::Result<()> {
    /// let server = Server::builder()
    ///     .tool(Tool::new("hello", || async { "Hello!" }))
    ///     .build();
    /// let store = Arc::new(InMemorySessionStore::default());
    ///
    /// // The first instance serves the handshake and saves what it agreed.
    /// let (client_end, server_end) = memory::pair(16);
    /// let options = ServeOptions::new().session_store(store.clone(), "session-1");
    /// let first = tokio::spawn({
    ///     let server = server.clone();
    ///     async move { server.serve_with(server_end, options).await }
    /// });
    /// // A legacy-era session (2025-11-25 opens with `initialize`).
    /// let (client, connection) = Client::builder()
    ///     .era(EraChoice::Legacy)
    ///     .connect(client_end)
    ///     .await?;
    /// tokio::spawn(connection);
    /// assert!(store.load("session-1").await.map_err(anyhow::Error::from_boxed)?.is_some());
    /// drop(client);
    /// first.await??;
    ///
    /// // Another instance takes the session up where the first left it: no handshake.
    /// let (client_end, server_end) = memory::pair(16);
    /// let options = ServeOptions::new().session_store(store, "session-1");
    /// tokio::spawn(async move { server.serve_with(server_end, options).await });
    /// let (peer, connection) =
    ///     mcp_jsonrpc::Connection::new(client_end, (), mcp_jsonrpc::Config::default());
    /// tokio::spawn(connection.run());
    /// let call = serde_json::value::to_raw_value(&serde_json::json!({"name": "hello"}))?;
    /// let result = peer.request("tools/call", Some(call)).await?;
    /// assert_eq!(result.get(), r#"{"content":[{"type":"text","text":"Hello!"}]}"#);
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn session_store(
        mut self,
        store: Arc<dyn SessionStore>,
        session_id: impl Into<String>,
    ) -> Self {
        self.session_store = Some((store, session_id.into()));
        self
    }
}

/// The JSON-RPC handler of one session.
struct SessionHandler {
    server: Server,
    session: Arc<SessionShared>,
    persist: Option<Arc<Persist>>,
    session_span: SessionSpan,
    /// What the transport said of the connection, when a subscriber wanted the spans.
    connection: Option<Arc<ConnectionInfo>>,
}

type Reply = std::result::Result<Box<RawValue>, ErrorObject>;

fn raw<T: serde::Serialize>(value: &T) -> Reply {
    serde_json::value::to_raw_value(value)
        .map_err(|e| ErrorObject::internal_error(format!("failed to serialize the result: {e}")))
}

impl Handler for SessionHandler {
    // Inlined into the engine's call, as it was before it had a span to make: otherwise the
    // request's future is made here and copied out (callgrind: 49 more instructions per
    // `tools/call`).
    #[inline]
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Reply> + Send {
        use futures::future::Either;
        // Made (and given its remote parent) before the handler's future is first polled.
        let span = telemetry::received(
            &request.method,
            request.params.as_deref(),
            Some(ctx.id()),
            || self.version_of(&request),
            self.connection.as_deref(),
        );
        // The common case keeps the request's future as `dispatch` makes it, with nothing
        // around it (each wrapper would copy it).
        if span.is_none() && self.persist.is_none() {
            return Either::Left(self.dispatch(request, ctx));
        }
        Either::Right(self.answer(request, ctx, span))
    }

    fn handle_notification(
        &self,
        notification: Notification,
        _ctx: NotificationContext,
    ) -> impl Future<Output = ()> + Send {
        let span = telemetry::received(
            &notification.method,
            notification.params.as_deref(),
            None,
            || {
                self.session
                    .init
                    .get()
                    .map(|init| init.client.version.clone())
            },
            self.connection.as_deref(),
        );
        let handle = async move {
            if notification.method == <Initialized as mcp_types::Notification>::METHOD {
                self.session.open();
                if let Some(persist) = &self.persist {
                    persist.save_if_changed(&self.session).await;
                }
            }
        };
        match span {
            None => futures::future::Either::Left(handle),
            Some(span) => futures::future::Either::Right(handle.instrument(span.span().clone())),
        }
    }
}

impl SessionHandler {
    /// The request's answer, boxed, inside its span when it has one (the reply recorded),
    /// and with the session saved (when it has a store) before the answer goes out: the
    /// client's next request may reach another instance, which must find what this one
    /// agreed.
    #[inline(never)]
    fn answer(
        &self,
        request: Request,
        ctx: RequestContext,
        span: Option<OperationSpan>,
    ) -> futures::future::BoxFuture<'_, Reply> {
        let initialize = request.method == <Initialize as mcp_types::Request>::METHOD;
        let dispatched = self.dispatch(request, ctx);
        let answer = async move {
            let reply = dispatched.await;
            if let Some(persist) = &self.persist {
                persist.save_if_changed(&self.session).await;
            }
            reply
        };
        match span {
            None => Box::pin(answer),
            Some(span) => {
                // `initialize` was answered just now, in `dispatch`: its version is the
                // session's.
                if initialize && let Some(init) = self.session.init.get() {
                    span.record_protocol_version(init.client.version.as_str());
                }
                telemetry::traced(span, answer)
            }
        }
    }

    /// The protocol version of `request`: the session's, or a 2026-07-28 request's own.
    fn version_of(&self, request: &Request) -> Option<ProtocolVersion> {
        match self.session.init.get() {
            Some(init) => Some(init.client.version.clone()),
            None => modern::Head::of(request)?.ok()?.version().cloned(),
        }
    }
}

impl SessionHandler {
    /// Decided before anything is awaited, so that the future the connection keeps per
    /// request holds only what the call awaits (the branches that answer at once, and the
    /// boxed 2026-07-28 one, leave nothing in it).
    fn dispatch(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Reply> + Send {
        use futures::future::{Either, ready};
        // Until a client opens a legacy session with `initialize`, a request naming its
        // protocol version in `_meta` is served on its own (2026-07-28); after it, the
        // connection is the session's (its requests' `_meta` is not even looked into).
        if self.session.init.get().is_none()
            && let Some(head) = modern::Head::of(&request)
        {
            let modern: futures::future::BoxFuture<'_, Reply> = match head {
                Ok(head) => Box::pin(modern::serve(&self.server, request, ctx, head)),
                Err(e) => Box::pin(ready(Err(e))),
            };
            return Either::Left(modern);
        }
        match self.start_call(request, ctx) {
            Err(answer) => Either::Right(Either::Left(ready(answer))),
            Ok((call, version)) => Either::Right(Either::Right(async move {
                match call.await {
                    Ok(response) => Ok(response.into_raw()),
                    Err(e) if is_input_required(&*e) => Err(ErrorObject::internal_error(
                        "the handler asked for input, which this protocol version sends as requests",
                    )),
                    Err(e) => Err(error_object(&*e, &version)),
                }
            })),
        }
    }
}

/// A request's call into the server's service, and the protocol version its errors are
/// written for.
type Call = (
    futures::future::BoxFuture<
        'static,
        std::result::Result<crate::service::McpResponse, crate::error::BoxError>,
    >,
    ProtocolVersion,
);

impl SessionHandler {
    /// Answers what needs no handler (`ping`, `initialize`, a request before the session is
    /// initialized) as `Err`, or starts the request's call into the server's service.
    fn start_call(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> std::result::Result<Call, Reply> {
        let method = &*request.method;
        if method == <Ping as mcp_types::Request>::METHOD {
            return Err(raw(&EmptyResult::default()));
        }
        if method == <Initialize as mcp_types::Request>::METHOD {
            let params: InitializeRequestParams = request.params().map_err(|e| {
                Err(ErrorObject::invalid_params(format!(
                    "invalid params: {}",
                    e.message
                )))
            })?;
            return Err(self.initialize(params, &ctx));
        }
        let init = match self.session.init.get() {
            Some(init) => init.clone(),
            // A transport that serves requests without a handshake (a stateless HTTP POST)
            // says which protocol version the request is of.
            None => match ctx.extensions().get::<ProtocolVersion>() {
                Some(version) => self.assume(version.clone(), ctx.peer()),
                None => return Err(Err(ErrorObject::invalid_request("server not initialized"))),
            },
        };
        let version = init.client.version.clone();
        let inner = self.server.inner();
        // Moved, not copied, into the handler's `Context` (the extensions are shared).
        let ctx = ctx.into_parts();
        let cx = Context::new(ContextParts {
            client: init.client.clone(),
            peer: ctx.peer,
            request_id: ctx.id,
            extensions: ctx.extensions,
            state: inner.state.clone(),
            session: Some(self.session.clone()),
            request_level: None,
            cancellation: ctx.cancellation,
            progress_token: ctx.progress_token,
            input: Input::Peer {
                timeout: inner.client_request_timeout,
            },
        });
        let Request { method, params, .. } = request;
        Ok((
            inner.service.oneshot(McpRequest::new(method, params, cx)),
            version,
        ))
    }

    /// Serves the session as initialized at `version` (negotiated like `initialize`) with no
    /// client capabilities, as [`ServeOptions::assume_initialized`] does.
    fn assume(&self, version: ProtocolVersion, peer: &mcp_jsonrpc::Peer) -> Arc<InitState> {
        let version = ProtocolVersion::negotiate(&version, STATEFUL_VERSIONS);
        peer.set_batching(version.supports_batching());
        self.session_span.record_protocol_version(version.as_str());
        self.session.assume(InitState {
            capabilities: self.server.capabilities_for(&version),
            client: Arc::new(ClientState {
                version,
                info: None,
                capabilities: ClientCapabilities::default(),
            }),
        });
        self.session
            .init
            .get()
            .cloned()
            .expect("assumed just now, or initialized meanwhile")
    }

    fn initialize(&self, params: InitializeRequestParams, ctx: &RequestContext) -> Reply {
        let version = ProtocolVersion::negotiate(&params.protocol_version, STATEFUL_VERSIONS);
        let capabilities = self.server.capabilities_for(&version);
        let init = Arc::new(InitState {
            client: Arc::new(ClientState {
                version: version.clone(),
                info: Some(params.client_info),
                capabilities: params.capabilities,
            }),
            capabilities: capabilities.clone(),
        });
        // A session served without a handshake answers one anyway (a stateless HTTP client
        // sends it in a POST of its own), keeping its assumed state.
        if self.session.init.set(init).is_err() && !self.session.is_assumed() {
            return Err(ErrorObject::invalid_request("already initialized"));
        }
        self.session.changed();
        self.session_span.record_protocol_version(version.as_str());
        if version.supports_batching() {
            ctx.peer().set_batching(true);
        }
        let inner = self.server.inner();
        let mut result = InitializeResult::new(version, capabilities, inner.info.clone());
        result.instructions.clone_from(&inner.instructions);
        raw(&result)
    }
}
