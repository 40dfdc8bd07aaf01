//! [`Client`]: the handle an application calls the server through, its view of the
//! negotiated session, and the one path every request takes (per era).

use std::sync::Arc;

use mcp_jsonrpc::trace::{self, OperationSpan, TraceContext};
use mcp_jsonrpc::{ConnectionInfo, Peer, RequestOptions};
use mcp_types::{
    ClientCapabilities, Discover, DiscoverResult, EmptyParams, Era, Implementation,
    InitializeResult, Notification, ProtocolVersion, Request, ServerCapabilities,
};
use serde_json::value::RawValue;
use tracing::{Instrument as _, Span};

use crate::call_options::{CallOptions, Defaults, Limits};
use crate::error::{Error, Result, Side};
use crate::modern::{self, Modern};
use crate::running::RunState;
use crate::shared::Shared;
use crate::telemetry;

/// Closes the connection when the last [`Client`] handle goes away.
struct CloseOnDrop(Peer);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

pub(crate) struct Inner {
    pub(crate) shared: Arc<Shared>,
    pub(crate) peer: Peer,
    /// Whether the `Connection` future runs (checked by every call).
    pub(crate) running: Arc<RunState>,
    /// The server's `initialize` result, or (2026-07-28) one made from its discover result.
    pub(crate) init: InitializeResult,
    pub(crate) discover: Option<DiscoverResult>,
    /// Present when the stateless era was negotiated.
    pub(crate) modern: Option<Modern>,
    pub(crate) defaults: Defaults,
    pub(crate) strict: bool,
    /// What the transport said of the connection, for the spans; asked only when a
    /// subscriber wanted them when the client connected.
    pub(crate) connection: Option<Arc<ConnectionInfo>>,
}

/// A connected MCP client: a cheap, cloneable handle.
///
/// Made by [`ClientBuilder::connect`](crate::ClientBuilder::connect), together with the [`Connection`](crate::Connection)
/// future that must be running for calls to complete. When the last handle is dropped the
/// connection closes gracefully.
///
/// The same methods work in both protocol eras ([`era`](Self::era)): in the handshake era a
/// request goes as is; on 2026-07-28 it carries the client's `_meta`, and an
/// `input_required` result is answered through the installed handlers and the request sent
/// again until the result is complete.
///
/// Every call goes through [`request_with`](Self::request_with); the typed methods are thin
/// wrappers. List methods come in two forms: one page (`list_tools(cursor)`) and a stream
/// that follows `nextCursor` to the end (`list_tools_stream()`).
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
    _close: Arc<CloseOnDrop>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.inner.init.server_info.name)
            .field("protocol_version", &self.inner.init.protocol_version)
            .field("closed", &self.inner.peer.is_closed())
            .finish_non_exhaustive()
    }
}

impl Client {
    pub(crate) fn new(inner: Inner) -> Self {
        let close = CloseOnDrop(inner.peer.clone());
        Client {
            inner: Arc::new(inner),
            _close: Arc::new(close),
        }
    }

    // ---- the session ----------------------------------------------------------------------

    /// The server's whole answer to `initialize`; on 2026-07-28, the same facts taken from
    /// its answer to `server/discover` (see [`discover_result`](Self::discover_result)).
    pub fn initialize_result(&self) -> &InitializeResult {
        &self.inner.init
    }

    /// The server's answer to `server/discover` (2026-07-28 only).
    pub fn discover_result(&self) -> Option<&DiscoverResult> {
        self.inner.discover.as_ref()
    }

    /// The server software (`serverInfo`; empty if a 2026-07-28 server did not say).
    pub fn server_info(&self) -> &Implementation {
        &self.inner.init.server_info
    }

    /// What the server supports.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.inner.init.capabilities
    }

    /// The server's instructions, e.g. for a system prompt.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.init.instructions.as_deref()
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &ProtocolVersion {
        &self.inner.init.protocol_version
    }

    /// The era of the negotiated revision: [`Era::Stateful`] after `initialize`,
    /// [`Era::Stateless`] after `server/discover`.
    pub fn era(&self) -> Era {
        self.inner.init.protocol_version.era()
    }

    /// The capabilities this client declared.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.inner.shared.capabilities
    }

    // ---- generic calls --------------------------------------------------------------------

    /// Sends request `M` with the client's default options.
    ///
    /// # Errors
    ///
    /// The server's error ([`Error::Rpc`], or the typed refusals of 2026-07-28),
    /// [`Error::Timeout`], [`Error::Closed`], [`Error::ConnectionNotRunning`] if nobody runs
    /// the [`Connection`](crate::Connection), [`Error::Decode`] if the result does not fit
    /// `M::Result`, [`Error::NotInRevision`] for a method the negotiated revision removed, and
    /// the errors of answering input ([`Error::InputRequest`], [`Error::TooManyInputRounds`]).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request: the server gets `notifications/cancelled` if
    /// the request was sent (on 2026-07-28 over HTTP, its stream is closed instead).
    pub async fn request<M: Request>(&self, params: M::Params) -> Result<M::Result> {
        self.request_with::<M>(params, CallOptions::default()).await
    }

    /// Sends request `M` with `options`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    ///
    /// # Cancel safety
    ///
    /// As for [`request`](Self::request).
    pub async fn request_with<M: Request>(
        &self,
        params: M::Params,
        options: CallOptions,
    ) -> Result<M::Result> {
        let limits = options.limits(&self.inner.defaults);
        let options = options.to_request_options(&self.inner.defaults);
        let result = self.call(M::METHOD, &params, options, limits).await?;
        serde_json::from_str(result.get()).map_err(|e| Error::decode(M::METHOD, "result", e))
    }

    /// The single path of every request, in the negotiated era.
    pub(crate) async fn call<P: serde::Serialize>(
        &self,
        method: &'static str,
        params: &P,
        options: RequestOptions,
        limits: Limits,
    ) -> Result<Box<RawValue>> {
        self.call_spanned(method, params, options, limits).await.0
    }

    /// [`call`](Self::call), inside the call's client span (the conventions': named, its
    /// context in `_meta`, its outcome recorded), and that span's context for what
    /// continues the call's trace (following a task to its result); `None` with no
    /// subscriber or no propagator.
    pub(crate) async fn call_spanned<P: serde::Serialize>(
        &self,
        method: &'static str,
        params: &P,
        options: RequestOptions,
        limits: Limits,
    ) -> (Result<Box<RawValue>>, Option<TraceContext>) {
        let mut span = OperationSpan::new(trace::Side::Sender, method);
        if !span.is_enabled() {
            return (self.send(method, params, options, limits, None).await, None);
        }
        if let Some(connection) = &self.inner.connection {
            span.record_connection(connection);
        }
        // Not entered here: `tracing-opentelemetry` starts the OpenTelemetry span when the
        // `tracing` span is first entered, and takes its name then; `send` enters it around
        // the exchange, once `describe` has named it after its tool or prompt.
        let outcome = self
            .send(method, params, options, limits, Some(&mut span))
            .await;
        telemetry::record(&span, &outcome);
        let context = outcome.is_ok().then(|| span.context()).flatten();
        (outcome, context)
    }

    async fn send<P: serde::Serialize>(
        &self,
        method: &'static str,
        params: &P,
        options: RequestOptions,
        limits: Limits,
        span: Option<&mut OperationSpan>,
    ) -> Result<Box<RawValue>> {
        let inner = &self.inner;
        inner.running.ensure().await?;
        let Some(modern) = &inner.modern else {
            let mut raw = serde_json::value::to_raw_value(params)
                .map_err(|e| Error::decode(method, "params", e))?;
            let mut options = options;
            let mut entered = Span::none();
            if let Some(span) = span {
                let id = inner.peer.next_id();
                let version = inner.init.protocol_version.as_str();
                raw = telemetry::describe_raw(span, method, raw, &id, version);
                options = options.id(id);
                entered = span.span().clone();
            }
            return inner
                .peer
                .request_with(method, Some(raw), options)
                .instrument(entered)
                .await
                .map_err(|e| self.map_err(e, method));
        };
        self.check_revision(modern, method)?;
        let params =
            serde_json::to_value(params).map_err(|e| Error::decode(method, "params", e))?;
        modern
            .request(
                &inner.peer,
                &inner.shared,
                method,
                params,
                options,
                limits,
                span,
            )
            .await
    }

    /// Fails with [`Error::NotInRevision`] if 2026-07-28 removed `method`.
    fn check_revision(&self, modern: &Modern, method: &'static str) -> Result<()> {
        match modern::removed(method) {
            Some(hint) => Err(Error::NotInRevision {
                method,
                version: modern.version().clone(),
                hint,
            }),
            None => Ok(()),
        }
    }

    /// Sends notification `N`.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] if the connection is closed; [`Error::ConnectionNotRunning`] if
    /// nobody runs the [`Connection`](crate::Connection); [`Error::NotInRevision`] for a
    /// notification the negotiated revision removed.
    ///
    /// # Cancel safety
    ///
    /// Not cancel-safe: dropping the future may or may not send the notification.
    pub async fn notify<N: Notification>(&self, params: N::Params) -> Result<()> {
        self.inner.running.ensure().await?;
        if let Some(modern) = &self.inner.modern {
            self.check_revision(modern, N::METHOD)?;
        }
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::decode(N::METHOD, "params", e))?;
        let version = Some(self.inner.init.protocol_version.as_str());
        let connection = self.inner.connection.as_deref();
        mcp_jsonrpc::trace::notify_on(&self.inner.peer, N::METHOD, Some(raw), version, connection)
            .await
            .map_err(|e| self.map_err(e, N::METHOD))
    }

    pub(crate) fn map_err(&self, e: mcp_jsonrpc::Error, method: &str) -> Error {
        Error::from_jsonrpc(e, method, self.inner.shared.failure.get())
    }

    pub(crate) fn require_server(&self, present: bool, capability: &'static str) -> Result<()> {
        if self.inner.strict && !present {
            return Err(Error::CapabilityNotDeclared {
                side: Side::Server,
                capability,
            });
        }
        Ok(())
    }

    // ---- lifecycle ------------------------------------------------------------------------

    /// Checks that the server answers: `ping` in the handshake era; on 2026-07-28, which has
    /// no `ping`, a `server/discover`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn ping(&self) -> Result<()> {
        match &self.inner.modern {
            None => self
                .request::<mcp_types::Ping>(EmptyParams::default())
                .await
                .map(drop),
            Some(_) => self
                .request::<Discover>(EmptyParams::default())
                .await
                .map(drop),
        }
    }

    /// Closes the connection: pending calls fail with [`Error::Closed`] and the
    /// [`Connection`](crate::Connection) future completes. Returns at once.
    pub fn close(&self) {
        self.inner.peer.close();
    }

    /// Whether the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.peer.is_closed()
    }

    /// Waits until the connection has ended (its future finished or was dropped).
    /// Cancel-safe.
    pub async fn closed(&self) {
        self.inner.peer.closed().await;
    }
}
