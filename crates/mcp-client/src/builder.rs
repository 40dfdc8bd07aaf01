//! [`ClientBuilder`]: configuration and the `initialize` handshake; [`Connection`]: the
//! future that drives the connection.

use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{Either, select};
use mcp_jsonrpc::trace::{OperationSpan, SessionSpan};
use mcp_jsonrpc::{RequestOptions, Transport};
use mcp_types::{
    ClientCapabilities, ClientTaskRequestsCapability, ClientTasksCapability, ElicitationCapability,
    ElicitationTasksCapability, Era, Implementation, JsonObject, ProtocolVersion, Root,
    RootsCapability, SamplingCapability, SamplingTasksCapability,
};
use serde_json::Value;

use crate::cache::ResponseCache;
use crate::call_options::Defaults;
use crate::client::{Client, Inner};
use crate::connect::{Plan, negotiate};
use crate::connection::{BoxFuture, Connection, KeepAlive};
use crate::era::{EraChoice, EraMemory};
use crate::error::{Error, Result};
use crate::handler::{
    ClientHandler, DynClientHandler, DynElicitationHandler, DynSamplingHandler, ElicitationHandler,
    SamplingHandler,
};
use crate::known_tools::KnownTools;
use crate::modern::DEFAULT_MAX_INPUT_ROUNDS;
use crate::output_schema::OutputSchemas;
use crate::received_tasks::ReceivedTasks;
use crate::router::Router;
use crate::running::RunState;
use crate::shared::Shared;
use crate::subscription::Subscriptions;
use crate::transport::{FailureSlot, Recording};
use crate::versions::{HANDSHAKE_VERSIONS, MODERN_VERSIONS, SUPPORTED_VERSIONS};

/// The default of [`ClientBuilder::max_list_pages`].
const DEFAULT_MAX_LIST_PAGES: usize = 100;

/// The default of [`ClientBuilder::probe_timeout`].
const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Configures a [`Client`] and connects it with [`connect`](Self::connect).
///
/// The capabilities the client declares follow from what is installed here: a
/// [`sampling`](Self::sampling) handler declares `sampling`, an
/// [`elicitation`](Self::elicitation) handler declares `elicitation` (form mode, plus URL
/// mode and `applyDefaults` if asked for), [`roots`](Self::roots) declares `roots` with
/// `listChanged`. [`capabilities`](Self::capabilities) replaces the derived set.
pub struct ClientBuilder {
    client_info: Implementation,
    era: EraChoice,
    protocol_version: Option<ProtocolVersion>,
    probe_timeout: Duration,
    memory: Option<(EraMemory, String)>,
    max_input_rounds: u32,
    response_cache: usize,
    capabilities: Option<ClientCapabilities>,
    handler: Arc<dyn DynClientHandler>,
    sampling: Option<Arc<dyn DynSamplingHandler>>,
    sampling_tools: bool,
    elicitation: Option<Arc<dyn DynElicitationHandler>>,
    elicitation_url: bool,
    apply_defaults: bool,
    roots: Option<Vec<Root>>,
    tasks: bool,
    max_received_tasks: usize,
    max_list_pages: usize,
    #[cfg(feature = "apps")]
    apps: bool,
    #[cfg(feature = "skills")]
    skills: bool,
    #[cfg(feature = "skills")]
    skill_limits: crate::skills::SkillLimits,
    config: mcp_jsonrpc::Config,
    max_total_timeout: Option<Duration>,
    ping_interval: Option<Duration>,
    strict: bool,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("client_info", &self.client_info)
            .field("era", &self.era)
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
    /// A builder with the defaults: client info `mcp-client` at this crate's version, either
    /// era ([`EraChoice::Auto`]) at the latest version of each, no handlers, a 60 s request
    /// timeout.
    pub fn new() -> Self {
        ClientBuilder {
            client_info: Implementation::new("mcp-client", env!("CARGO_PKG_VERSION")),
            era: EraChoice::Auto,
            protocol_version: None,
            probe_timeout: DEFAULT_PROBE_TIMEOUT,
            memory: None,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            response_cache: 0,
            capabilities: None,
            handler: Arc::new(()),
            sampling: None,
            sampling_tools: false,
            elicitation: None,
            elicitation_url: false,
            apply_defaults: false,
            roots: None,
            tasks: true,
            max_received_tasks: crate::received_tasks::DEFAULT_MAX_RECEIVED_TASKS,
            max_list_pages: DEFAULT_MAX_LIST_PAGES,
            #[cfg(feature = "apps")]
            apps: false,
            #[cfg(feature = "skills")]
            skills: false,
            #[cfg(feature = "skills")]
            skill_limits: crate::skills::SkillLimits::new(),
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

    /// The protocol era to connect in (default [`EraChoice::Auto`]: 2026-07-28 if the server
    /// speaks it, else the handshake revisions).
    #[must_use]
    pub fn era(mut self, era: EraChoice) -> Self {
        self.era = era;
        self
    }

    /// The protocol version to propose, one of [`SUPPORTED_VERSIONS`](crate::SUPPORTED_VERSIONS):
    /// a handshake revision is proposed in `initialize` (default 2025-11-25, and the server may
    /// answer with any handshake revision), a stateless one is sent with `server/discover`
    /// (default 2026-07-28). The version must belong to an era the [`era`](Self::era) choice
    /// allows.
    #[must_use]
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// How long [`EraChoice::Auto`] waits for the answer to `server/discover` before it takes
    /// the server for one of the handshake era (default 10 s). A server of that era normally
    /// answers at once (with an error); this bounds the wait for one that ignores unknown
    /// requests.
    #[must_use]
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Remembers in `memory`, under `key` (naming the server: its URL, its command line), the
    /// version this connection settles on; with [`EraChoice::Auto`], a later connection whose
    /// builder has the same memory and key starts in that era without probing. See
    /// [`EraMemory`].
    #[must_use]
    pub fn era_memory(mut self, memory: &EraMemory, key: impl Into<String>) -> Self {
        self.memory = Some((memory.clone(), key.into()));
        self
    }

    /// How many `input_required` results in a row one call answers (2026-07-28) before it
    /// fails with [`Error::TooManyInputRounds`] (default 8).
    #[must_use]
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Keeps up to `capacity` results of `tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list` and `resources/read` for the `ttlMs` the server gave them
    /// (2026-07-28), answering repeated calls without a request; a list-changed or
    /// resource-updated notification drops what it concerns. Default 0: no cache.
    #[must_use]
    pub fn response_cache(mut self, capacity: usize) -> Self {
        self.response_cache = capacity;
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

    /// Whether the client takes tasks (default `true`): on 2026-07-28 it declares the
    /// `io.modelcontextprotocol/tasks` extension, so the server may run a `tools/call` as a
    /// task, which [`Client::call_tool`](crate::Client::call_tool) then follows to its end. With
    /// `false` a server that must run a tool as a task refuses the call (-32021).
    ///
    /// On 2025-11-25 it also declares the `tasks` capability for the requests it has handlers
    /// for (`sampling/createMessage`, `elicitation/create`): the server may then ask for one
    /// as a task, which runs inside the [`Connection`] future while the server follows it
    /// (see [`max_received_tasks`](Self::max_received_tasks) and
    /// [`RequestContext::task_id`](crate::RequestContext::task_id)).
    #[must_use]
    pub fn tasks(mut self, enabled: bool) -> Self {
        self.tasks = enabled;
        self
    }

    /// How many tasks the server may have on this client at once (2025-11-25; default 64,
    /// at least 1). Ended and expired tasks make room; past the limit a request for a task
    /// is refused with an internal error.
    #[must_use]
    pub fn max_received_tasks(mut self, max: usize) -> Self {
        self.max_received_tasks = max.max(1);
        self
    }

    /// How many pages a list stream ([`Client::list_tools_stream`] and the like) fetches
    /// before it ends with [`Error::TooManyPages`] (default 100, at least 1), so that a
    /// server handing out a new cursor with every page cannot make the client fetch (and
    /// the caller collect) forever. A stream also ends with [`Error::Protocol`] when the
    /// server hands out a cursor it gave before. One-page calls (`list_tools(cursor)`) are
    /// not counted.
    #[must_use]
    pub fn max_list_pages(mut self, pages: usize) -> Self {
        self.max_list_pages = pages.max(1);
        self
    }

    /// Whether the client declares the MCP Apps extension, `io.modelcontextprotocol/ui`,
    /// as a host that renders HTML views: `{"mimeTypes": ["text/html;profile=mcp-app"]}`
    /// under `capabilities.extensions` (default `false`; feature `apps`), in either era. A
    /// server may keep its views, and its tools that only views call, from clients that did
    /// not declare it. Declare it only if the host renders views as the extension requires
    /// (see the [`apps`](crate::apps) module).
    #[cfg(feature = "apps")]
    #[must_use]
    pub fn apps(mut self, declare: bool) -> Self {
        self.apps = declare;
        self
    }

    /// Whether the client declares the Skills extension, `io.modelcontextprotocol/skills`,
    /// in its capabilities (default `false`; feature `skills`). The extension defines no
    /// client setting and its methods need no declaration; a server may use it to tell a
    /// host that loads skills itself from one that needs a skill-loading tool.
    #[cfg(feature = "skills")]
    #[must_use]
    pub fn skills(mut self, declare: bool) -> Self {
        self.skills = declare;
        self
    }

    /// The per-skill limits a skill's entry is checked against before it is held
    /// ([`Client::hold_skill`](crate::Client::hold_skill)); default the extension's, 512
    /// files and 16 MiB, which every conforming host must accept (feature `skills`; see
    /// [`SkillLimits`](crate::skills::SkillLimits)).
    #[cfg(feature = "skills")]
    #[must_use]
    pub fn skill_limits(mut self, limits: crate::skills::SkillLimits) -> Self {
        self.skill_limits = limits;
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
        if self.tasks {
            caps.extensions
                .get_or_insert_default()
                .insert(mcp_types::TASKS_EXTENSION.to_owned(), JsonObject::new());
        }
        #[cfg(feature = "apps")]
        if self.apps {
            caps.extensions.get_or_insert_default().insert(
                mcp_types::UI_EXTENSION.to_owned(),
                mcp_types::McpUiClientCapabilities::html().to_settings(),
            );
        }
        #[cfg(feature = "skills")]
        if self.skills {
            caps.extensions
                .get_or_insert_default()
                .insert(mcp_types::SKILLS_EXTENSION.to_owned(), JsonObject::new());
        }
        if self.roots.is_some() {
            let mut roots = RootsCapability::default();
            roots.list_changed = Some(true);
            caps.roots = Some(roots);
        }
        if self.sampling.is_some() {
            let mut sampling = SamplingCapability::default();
            sampling.tools = self.sampling_tools.then(JsonObject::new);
            caps.sampling = Some(sampling);
        }
        if self.tasks && (self.sampling.is_some() || self.elicitation.is_some()) {
            let mut requests = ClientTaskRequestsCapability::default();
            if self.sampling.is_some() {
                let mut sampling = SamplingTasksCapability::default();
                sampling.create_message = Some(JsonObject::new());
                requests.sampling = Some(sampling);
            }
            if self.elicitation.is_some() {
                let mut elicitation = ElicitationTasksCapability::default();
                elicitation.create = Some(JsonObject::new());
                requests.elicitation = Some(elicitation);
            }
            let mut tasks = ClientTasksCapability::default();
            tasks.list = Some(JsonObject::new());
            tasks.cancel = Some(JsonObject::new());
            tasks.requests = Some(requests);
            caps.tasks = Some(tasks);
        }
        if self.elicitation.is_some() {
            let mut form = JsonObject::new();
            if self.apply_defaults {
                form.insert("applyDefaults".to_owned(), Value::Bool(true));
            }
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = Some(form);
            elicitation.url = self.elicitation_url.then(JsonObject::new);
            caps.elicitation = Some(elicitation);
        }
        caps
    }

    /// Connects over `transport` in the chosen [`era`](Self::era) and returns the client
    /// with the [`Connection`] future, which the caller must run (spawn it, or poll it
    /// alongside the calls with `join!` or `select!`) for calls to complete. A call made
    /// while nobody polls it fails within [`CONNECTION_GRACE`](crate::CONNECTION_GRACE) with
    /// [`Error::ConnectionNotRunning`] (see [`Connection`]).
    ///
    /// - Handshake era: sends `initialize`, checks the version the server chose, sends
    ///   `notifications/initialized`. If the server answers batching revision 2025-03-26,
    ///   inbound batches are accepted.
    /// - 2026-07-28: sends `server/discover` (with the request `_meta` every request of that
    ///   era carries); if the server refuses the version and names one this client speaks,
    ///   once more with that one.
    /// - [`EraChoice::Auto`]: the second, then the first if the server turns out to be of the
    ///   handshake era (see [`EraChoice::Auto`]). Over Streamable HTTP a legacy server answers
    ///   the 2026-07-28 request with an error status, and the transport's own fallbacks then
    ///   apply to `initialize`.
    ///
    /// The opening exchange polls the connection itself, so nothing needs to run before this
    /// returns.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedProtocolVersion`] if the server chose a version this client does
    /// not speak (the client disconnects first) or the configured version is not one it
    /// speaks in the chosen era; [`Error::VersionNotSupported`] if a 2026-07-28 server speaks
    /// no version this client does; the server's error, [`Error::Timeout`] or
    /// [`Error::Closed`] if the exchange fails.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the connection (the transport is dropped unclosed).
    pub async fn connect<T: Transport>(self, transport: T) -> Result<(Client, Connection)> {
        let mut plan = self.plan()?;
        // The session's span (the conventions' session-duration measure), held by the
        // `Connection` until it ends; never entered.
        let session_span = SessionSpan::client();
        // What the transport knows of the connection (the server's address, the session id
        // once there is one), asked once, and only when the spans that record it may be
        // wanted.
        plan.connection =
            OperationSpan::wanted_for_connection().then(|| Arc::new(transport.connection_info()));
        let session_id_known = plan
            .connection
            .as_ref()
            .is_some_and(|connection| session_span.record_connection(connection));
        let (received_tasks, task_runner) = ReceivedTasks::new(self.max_received_tasks);
        let shared = Arc::new(Shared {
            capabilities: plan.capabilities.clone(),
            roots: Mutex::new(self.roots.unwrap_or_default()),
            handler: self.handler,
            sampling: self.sampling,
            elicitation: self.elicitation,
            failure: FailureSlot::default(),
            schemas: OutputSchemas::default(),
            known_tools: KnownTools::default(),
            subscriptions: Subscriptions::default(),
            cache: ResponseCache::new(self.response_cache),
            task_status: tokio::sync::Notify::new(),
            received: received_tasks,
        });
        let failure = shared.failure.clone();
        let mut config = self.config;
        config.batching = false;
        let defaults = Defaults {
            max_total_timeout: self.max_total_timeout,
            request_timeout: config.default_timeout,
            max_list_pages: self.max_list_pages,
            #[cfg(feature = "skills")]
            skill_limits: self.skill_limits,
        };
        let recording = Recording {
            inner: transport,
            slot: failure.clone(),
        };
        let (peer, conn) = mcp_jsonrpc::Connection::new(
            recording,
            Router {
                shared: shared.clone(),
            },
            config,
        );
        // The handlers of tasks the server creates here run alongside the connection.
        let mut run: BoxFuture<mcp_jsonrpc::Result<()>> = Box::pin(async move {
            match select(pin!(conn.run()), task_runner).await {
                Either::Left((end, _)) => end,
                Either::Right((never, _)) => match never {},
            }
        });
        let outcome = {
            let opening = pin!(negotiate(&peer, &failure, &plan));
            match select(opening, &mut run).await {
                Either::Left((outcome, _)) => outcome,
                Either::Right((end, _)) => {
                    let e = Error::Closed {
                        reason: match end {
                            Ok(()) => "the server closed the connection during initialization",
                            Err(_) => "the transport failed during initialization",
                        }
                        .to_owned(),
                        source: failure.get(),
                    };
                    session_span.record_failure("closed", &e);
                    return Err(e);
                }
            }
        };
        let negotiated = match outcome {
            Ok(negotiated) => negotiated,
            Err(e) => {
                // Disconnect: flush what is queued and close the transport.
                peer.close();
                let _ = run.await;
                session_span.record_failure("initialize", &e);
                return Err(e);
            }
        };
        session_span.record_protocol_version(negotiated.init.protocol_version.as_str());
        let connection = plan.connection;
        if let (false, Some(connection)) = (session_id_known, &connection) {
            // The answer to `initialize` may have brought one.
            session_span.record_session_id(connection);
        }
        let ping = match self.ping_interval {
            None => None,
            Some(every) => {
                let mut options = RequestOptions::new();
                if let Some(max) = defaults.max_total_timeout {
                    options = options.max_total_timeout(max);
                }
                let modern = negotiated.modern.as_ref();
                Some(KeepAlive::new(every, options, modern, connection.clone())?)
            }
        };
        let running = Arc::new(RunState::default());
        let connection_future =
            Connection::new(run, peer.clone(), ping, running.clone(), session_span);
        let client = Client::new(Inner {
            shared,
            peer,
            running,
            init: negotiated.init,
            discover: negotiated.discover,
            modern: negotiated.modern,
            defaults,
            strict: self.strict,
            connection,
        });
        Ok((client, connection_future))
    }

    /// The opening exchange's plan, after checking the configured version against the era.
    fn plan(&self) -> Result<Plan> {
        let unsupported = |version: &ProtocolVersion| Error::UnsupportedProtocolVersion {
            version: version.clone(),
        };
        let mut handshake_version = ProtocolVersion::V2025_11_25;
        let mut modern_version = ProtocolVersion::V2026_07_28;
        if let Some(version) = &self.protocol_version {
            if !SUPPORTED_VERSIONS.contains(version) {
                return Err(unsupported(version));
            }
            match (version.era(), self.era) {
                (Era::Stateful, EraChoice::Modern) | (Era::Stateless, EraChoice::Legacy) => {
                    return Err(unsupported(version));
                }
                (Era::Stateful, _) => handshake_version = version.clone(),
                (Era::Stateless, _) => modern_version = version.clone(),
            }
        }
        debug_assert!(HANDSHAKE_VERSIONS.contains(&handshake_version));
        debug_assert!(MODERN_VERSIONS.contains(&modern_version));
        Ok(Plan {
            choice: self.era,
            handshake_version,
            modern_version,
            capabilities: self.declared_capabilities(),
            client_info: self.client_info.clone(),
            probe_timeout: self.probe_timeout,
            max_total_timeout: self.max_total_timeout,
            memory: self.memory.clone(),
            max_input_rounds: self.max_input_rounds,
            connection: None,
        })
    }
}
