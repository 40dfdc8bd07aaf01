//! [`ClientBuilder`]: configuration and the `initialize` handshake; [`Connection`]: the
//! future that drives the connection.

use std::fmt;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::{Either, select};
use mcp_jsonrpc::{Peer, RequestOptions, Transport};
use mcp_types::{
    ClientCapabilities, ElicitationCapability, EmptyParams, Implementation, Initialize,
    InitializeRequestParams, InitializeResult, Initialized, JsonObject, Notification as _, Ping,
    ProtocolVersion, Request as _, Root, RootsCapability, SamplingCapability,
};
use serde_json::Value;

use crate::client::{Client, Defaults, Inner};
use crate::error::{Error, Result};
use crate::handler::{
    ClientHandler, DynClientHandler, DynElicitationHandler, DynSamplingHandler, ElicitationHandler,
    SamplingHandler,
};
use crate::output_schema::OutputSchemas;
use crate::router::{Router, Shared};
use crate::transport::{FailureSlot, Recording};
use crate::versions::SUPPORTED_VERSIONS;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Configures a [`Client`] and connects it with [`connect`](Self::connect).
///
/// The capabilities the client declares follow from what is installed here: a
/// [`sampling`](Self::sampling) handler declares `sampling`, an
/// [`elicitation`](Self::elicitation) handler declares `elicitation` (form mode, plus URL
/// mode and `applyDefaults` if asked for), [`roots`](Self::roots) declares `roots` with
/// `listChanged`. [`capabilities`](Self::capabilities) replaces the derived set.
pub struct ClientBuilder {
    client_info: Implementation,
    protocol_version: ProtocolVersion,
    capabilities: Option<ClientCapabilities>,
    handler: Arc<dyn DynClientHandler>,
    sampling: Option<Arc<dyn DynSamplingHandler>>,
    sampling_tools: bool,
    elicitation: Option<Arc<dyn DynElicitationHandler>>,
    elicitation_url: bool,
    apply_defaults: bool,
    roots: Option<Vec<Root>>,
    config: mcp_jsonrpc::Config,
    max_total_timeout: Option<Duration>,
    ping_interval: Option<Duration>,
    strict: bool,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("client_info", &self.client_info)
            .field("protocol_version", &self.protocol_version)
            .field("capabilities", &self.declared_capabilities())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl Client {
    /// A builder for a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }
}

impl ClientBuilder {
    /// A builder with the defaults: client info `mcp-client` at this crate's version,
    /// proposing protocol version 2025-11-25, no handlers, a 60 s request timeout.
    pub fn new() -> Self {
        ClientBuilder {
            client_info: Implementation::new("mcp-client", env!("CARGO_PKG_VERSION")),
            protocol_version: ProtocolVersion::V2025_11_25,
            capabilities: None,
            handler: Arc::new(()),
            sampling: None,
            sampling_tools: false,
            elicitation: None,
            elicitation_url: false,
            apply_defaults: false,
            roots: None,
            config: mcp_jsonrpc::Config::default(),
            max_total_timeout: None,
            ping_interval: None,
            strict: false,
        }
    }

    /// The client software, sent as `clientInfo`.
    #[must_use]
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// The protocol version to propose (default 2025-11-25, the latest this client speaks).
    /// The server may answer with any version in [`SUPPORTED_VERSIONS`](crate::SUPPORTED_VERSIONS).
    #[must_use]
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = version;
        self
    }

    /// Declares exactly these capabilities instead of deriving them from the installed
    /// handlers. A server request whose capability is not declared here is answered -32601
    /// even if a handler is installed.
    #[must_use]
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// The handler of the server's notifications.
    #[must_use]
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// Answers `sampling/createMessage` with `handler`, declaring `sampling`.
    #[must_use]
    pub fn sampling(mut self, handler: impl SamplingHandler) -> Self {
        self.sampling = Some(Arc::new(handler));
        self
    }

    /// Declares `sampling.tools`: the sampling handler accepts `tools` and `toolChoice`
    /// (2025-11-25).
    #[must_use]
    pub fn sampling_tools(mut self, enabled: bool) -> Self {
        self.sampling_tools = enabled;
        self
    }

    /// Answers `elicitation/create` with `handler`, declaring `elicitation.form`.
    #[must_use]
    pub fn elicitation(mut self, handler: impl ElicitationHandler) -> Self {
        self.elicitation = Some(Arc::new(handler));
        self
    }

    /// Declares `elicitation.url` as well: the handler also takes URL-mode requests
    /// (2025-11-25).
    #[must_use]
    pub fn elicitation_url(mut self, enabled: bool) -> Self {
        self.elicitation_url = enabled;
        self
    }

    /// Declares `elicitation.form.applyDefaults`: fields of an accepted form that the handler
    /// left out are filled with the requested schema's `default`s.
    #[must_use]
    pub fn elicitation_apply_defaults(mut self, enabled: bool) -> Self {
        self.apply_defaults = enabled;
        self
    }

    /// Offers `roots` to the server, declaring `roots.listChanged`; change them later with
    /// [`Client::set_roots`].
    #[must_use]
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// The default timeout of every call (default 60 s; `None` for none). Progress restarts
    /// it for calls that asked for progress. Override per call with
    /// [`CallOptions::timeout`](crate::CallOptions::timeout).
    #[must_use]
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.default_timeout = timeout;
        self
    }

    /// The default hard maximum of every call, which progress does not extend (default none).
    #[must_use]
    pub fn max_total_timeout(mut self, max: Duration) -> Self {
        self.max_total_timeout = Some(max);
        self
    }

    /// Pings the server every `interval` from inside the [`Connection`] future; if a ping
    /// fails (times out, or the server answers with an error), the connection is closed and
    /// the future completes with [`Error::PingFailed`].
    #[must_use]
    pub fn ping_interval(mut self, interval: Duration) -> Self {
        self.ping_interval = Some(interval);
        self
    }

    /// Checks the server's capabilities before each typed call, failing with
    /// [`Error::CapabilityNotDeclared`] instead of sending a request the server did not
    /// declare (default `false`: send it and let the server answer).
    #[must_use]
    pub fn strict_capabilities(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The limits of the JSON-RPC engine (queues, concurrency, message size). Batching is
    /// managed by the client (on only for 2025-03-26); the request timeout set here is
    /// overridden by [`request_timeout`](Self::request_timeout) if that is called later.
    #[must_use]
    pub fn config(mut self, config: mcp_jsonrpc::Config) -> Self {
        self.config = config;
        self
    }

    /// The capabilities the client will declare.
    pub fn declared_capabilities(&self) -> ClientCapabilities {
        if let Some(caps) = &self.capabilities {
            return caps.clone();
        }
        let mut caps = ClientCapabilities::default();
        if self.roots.is_some() {
            caps.roots = Some(RootsCapability {
                list_changed: Some(true),
                ..Default::default()
            });
        }
        if self.sampling.is_some() {
            caps.sampling = Some(SamplingCapability {
                tools: self.sampling_tools.then(JsonObject::new),
                ..Default::default()
            });
        }
        if self.elicitation.is_some() {
            let mut form = JsonObject::new();
            if self.apply_defaults {
                form.insert("applyDefaults".to_owned(), Value::Bool(true));
            }
            caps.elicitation = Some(ElicitationCapability {
                form: Some(form),
                url: self.elicitation_url.then(JsonObject::new),
                ..Default::default()
            });
        }
        caps
    }

    /// Connects over `transport`: sends `initialize`, checks the version the server chose,
    /// sends `notifications/initialized`, and returns the client with the [`Connection`]
    /// future, which the caller must run (spawn it, or poll it in a `select!`) for calls to
    /// complete.
    ///
    /// The handshake polls the connection itself, so nothing needs to run before this
    /// returns. If the server answers batching revision 2025-03-26, inbound batches are
    /// accepted.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedProtocolVersion`] if the server chose a version this client does
    /// not speak (the client disconnects first) or the configured version is not one it
    /// speaks; the server's error, [`Error::Timeout`] or [`Error::Closed`] if the handshake
    /// fails.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the connection (the transport is dropped unclosed).
    pub async fn connect<T: Transport>(self, transport: T) -> Result<(Client, Connection)> {
        if !SUPPORTED_VERSIONS.contains(&self.protocol_version) {
            return Err(Error::UnsupportedProtocolVersion {
                version: self.protocol_version,
            });
        }
        let capabilities = self.declared_capabilities();
        let failure = FailureSlot::default();
        let shared = Arc::new(Shared {
            capabilities: capabilities.clone(),
            roots: Mutex::new(self.roots.unwrap_or_default()),
            handler: self.handler,
            sampling: self.sampling,
            elicitation: self.elicitation,
            failure: failure.clone(),
            schemas: OutputSchemas::default(),
        });
        let mut config = self.config;
        config.batching = false;
        let recording = Recording {
            inner: transport,
            slot: failure.clone(),
        };
        let (conn, peer) = mcp_jsonrpc::Connection::new(
            recording,
            Router {
                shared: shared.clone(),
            },
            config,
        );
        let mut run: BoxFuture<mcp_jsonrpc::Result<()>> = Box::pin(conn.run());
        let defaults = Defaults {
            max_total_timeout: self.max_total_timeout,
        };
        let params =
            InitializeRequestParams::new(self.protocol_version, capabilities, self.client_info);
        let outcome = {
            let handshake = pin!(handshake(&peer, &failure, params, &defaults));
            match select(handshake, &mut run).await {
                Either::Left((outcome, _)) => outcome,
                Either::Right((end, _)) => {
                    return Err(Error::Closed {
                        reason: match end {
                            Ok(()) => "the server closed the connection during initialization",
                            Err(_) => "the transport failed during initialization",
                        }
                        .to_owned(),
                        source: failure.get(),
                    });
                }
            }
        };
        let init = match outcome {
            Ok(init) => init,
            Err(e) => {
                // Disconnect: flush what is queued and close the transport.
                peer.close();
                let _ = run.await;
                return Err(e);
            }
        };
        let ping = self.ping_interval.map(|every| {
            let mut options = RequestOptions::new();
            if let Some(max) = defaults.max_total_timeout {
                options = options.max_total_timeout(max);
            }
            (every, options)
        });
        let connection = Connection::new(run, peer.clone(), ping);
        let client = Client::new(Inner {
            shared,
            peer,
            init,
            defaults,
            strict: self.strict,
        });
        Ok((client, connection))
    }
}

/// `initialize`, the version check, and `notifications/initialized`.
async fn handshake(
    peer: &Peer,
    failure: &FailureSlot,
    params: InitializeRequestParams,
    defaults: &Defaults,
) -> Result<InitializeResult> {
    let map = |e| Error::from_jsonrpc(e, Initialize::METHOD, failure.get());
    let raw = serde_json::value::to_raw_value(&params)
        .map_err(|e| Error::decode(Initialize::METHOD, "params", e))?;
    let mut options = RequestOptions::new();
    if let Some(max) = defaults.max_total_timeout {
        options = options.max_total_timeout(max);
    }
    let result = peer
        .request_with(Initialize::METHOD, Some(raw), options)
        .await
        .map_err(map)?;
    let init: InitializeResult = serde_json::from_str(result.get())
        .map_err(|e| Error::decode(Initialize::METHOD, "result", e))?;
    if !SUPPORTED_VERSIONS.contains(&init.protocol_version) {
        tracing::warn!(version = %init.protocol_version, "server chose an unsupported protocol version");
        return Err(Error::UnsupportedProtocolVersion {
            version: init.protocol_version,
        });
    }
    if init.protocol_version.supports_batching() {
        peer.set_batching(true);
    }
    let raw = serde_json::value::to_raw_value(&EmptyParams::default())
        .map_err(|e| Error::decode(Initialized::METHOD, "params", e))?;
    peer.notify(Initialized::METHOD, Some(raw))
        .await
        .map_err(map)?;
    Ok(init)
}

/// The connection of a [`Client`]: a future that must be polled (spawned, or driven in a
/// `select!`) for the client's calls to complete and for the server's requests and
/// notifications to be handled.
///
/// It completes when the connection closes: `Ok(())` after [`Client::close`], after the last
/// [`Client`] handle was dropped, or when the server ended the stream;
/// [`Error::Transport`] if the transport failed; [`Error::PingFailed`] if the keep-alive
/// ping (see [`ClientBuilder::ping_interval`]) failed.
///
/// # Cancel safety
///
/// Dropping it tears the connection down: pending calls fail with [`Error::Closed`].
#[must_use = "the connection does nothing unless polled"]
pub struct Connection {
    fut: BoxFuture<Result<()>>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection").finish_non_exhaustive()
    }
}

impl Connection {
    fn new(
        run: BoxFuture<mcp_jsonrpc::Result<()>>,
        peer: Peer,
        ping: Option<(Duration, RequestOptions)>,
    ) -> Self {
        let fut = async move {
            let end = match ping {
                None => run.await,
                Some((every, options)) => {
                    let pinger = pin!(ping_loop(peer.clone(), every, options));
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
        Connection { fut: Box::pin(fut) }
    }
}

impl Future for Connection {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        self.fut.as_mut().poll(cx)
    }
}

/// Pings every `every` until a ping fails; returns that failure. A ping that fails because
/// the connection closed is not a failure of the ping: the loop then waits for the
/// connection to finish.
async fn ping_loop(peer: Peer, every: Duration, options: RequestOptions) -> Error {
    let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let params = match serde_json::value::to_raw_value(&EmptyParams::default()) {
            Ok(p) => p,
            Err(e) => return Error::decode(Ping::METHOD, "params", e),
        };
        match peer
            .request_with(Ping::METHOD, Some(params), options.clone())
            .await
        {
            Ok(_) => tracing::trace!("keep-alive ping answered"),
            Err(mcp_jsonrpc::Error::Closed { .. }) => std::future::pending::<()>().await,
            Err(e) => return Error::from_jsonrpc(e, Ping::METHOD, None),
        }
    }
}
