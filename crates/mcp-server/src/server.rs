//! [`Server`] and [`ServerBuilder`].

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_jsonrpc::{Config, Connection, Transport};
use mcp_types::{
    ClientCapabilities, Implementation, JsonObject, LoggingLevel, PromptsCapability,
    ProtocolVersion, ResourcesCapability, ServerCapabilities, ToolsCapability,
};
use tokio::sync::mpsc;

use crate::context::ClientState;
use crate::error::{Error, Result};
use crate::prompt::Prompt;
use crate::registry::Registry;
use crate::resource::{Resource, ResourceTemplate};
use crate::session::{InitState, SessionHandler, SessionShared, notifier};
use crate::tool::Tool;

/// The protocol revisions a session can negotiate, oldest first.
pub const STATEFUL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// An MCP server: what it offers (tools, resources, templates, prompts) and how it
/// behaves. Cheap to clone (an `Arc` inside); every clone is the same server.
///
/// Build one with [`Server::builder`], then run a session per connection with
/// [`serve`](Self::serve). Tools, resources, templates and prompts can be added and removed
/// while sessions run; every live session is then sent the matching `list_changed`
/// notification (coalesced: a burst of changes may give one notification).
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) page_size: usize,
    pub(crate) tools: Registry<Tool>,
    pub(crate) resources: Registry<Resource>,
    pub(crate) templates: Registry<ResourceTemplate>,
    pub(crate) prompts: Registry<Prompt>,
    pub(crate) sessions: Mutex<HashMap<u64, Arc<SessionShared>>>,
    next_session: AtomicU64,
    config: Config,
    default_log_level: Option<LoggingLevel>,
    pub(crate) client_request_timeout: Option<Duration>,
    log_queue: usize,
    declare: Declare,
}

#[derive(Debug, Clone, Copy, Default)]
struct Declare {
    tools: bool,
    resources: bool,
    prompts: bool,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("sessions", &self.session_count())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    pub(crate) fn inner(&self) -> &ServerInner {
        &self.inner
    }

    #[cfg_attr(not(feature = "tracing-bridge"), allow(dead_code))]
    pub(crate) fn downgrade(&self) -> std::sync::Weak<ServerInner> {
        Arc::downgrade(&self.inner)
    }

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
    ///     .tool(Tool::new("hello", |_cx| async { "Hello!" }))
    ///     .build();
    /// let (client_end, server_end) = memory::pair(16);
    /// // An HTTP session factory would pass the request's `MCP-Protocol-Version` header.
    /// let options = ServeOptions::new().assume_initialized(
    ///     Some(ProtocolVersion::V2025_06_18),
    ///     ClientCapabilities::default(),
    /// );
    /// tokio::spawn(async move { server.serve_with(server_end, options).await });
    ///
    /// let (connection, client) = Connection::new(client_end, (), Config::default());
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
        let (log_tx, log_rx) = mpsc::channel(self.inner.log_queue.max(1));
        let session = Arc::new(SessionShared::new(self.inner.default_log_level, log_tx));
        let handler = SessionHandler {
            server: self.clone(),
            session: session.clone(),
        };
        let (connection, peer) = Connection::new(transport, handler, self.inner.config.clone());
        if let Some((version, capabilities)) = options.assume_initialized {
            let version = version.map_or_else(
                || STATEFUL_VERSIONS[STATEFUL_VERSIONS.len() - 1].clone(),
                |v| ProtocolVersion::negotiate(&v, STATEFUL_VERSIONS),
            );
            peer.set_batching(version.supports_batching());
            session.assume(InitState {
                capabilities: self.capabilities_for(&version),
                client: Arc::new(ClientState {
                    version,
                    info: None,
                    capabilities,
                }),
            });
        }
        let id = self.inner.next_session.fetch_add(1, Ordering::Relaxed);
        self.inner
            .sessions
            .lock()
            .expect("sessions lock")
            .insert(id, session.clone());
        let _guard = SessionGuard {
            server: &self.inner,
            id,
        };
        let notify = notifier(self.clone(), session, peer, log_rx);
        tokio::select! {
            result = connection.run() => result.map_err(Error::from),
            never = notify => match never {},
        }
    }

    /// How many sessions are being served right now.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.lock().expect("sessions lock").len()
    }

    /// Sends `notifications/resources/updated` for `uri` to every session subscribed to it
    /// (and only to those). Returns at once; updates to the same uri are coalesced until sent.
    pub fn notify_resource_updated(&self, uri: &str) {
        for session in self.inner.sessions.lock().expect("sessions lock").values() {
            session.resource_updated(uri);
        }
    }

    /// Adds a tool (replacing one with the same name) and tells live sessions.
    pub fn add_tool(&self, tool: Tool) {
        self.inner.tools.insert(tool);
    }

    /// Removes the tool called `name`; returns whether there was one. Live sessions are told.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.inner.tools.remove(name)
    }

    /// Adds a resource (replacing one with the same URI) and tells live sessions.
    pub fn add_resource(&self, resource: Resource) {
        self.inner.resources.insert(resource);
    }

    /// Removes the resource with `uri`; returns whether there was one.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.inner.resources.remove(uri)
    }

    /// Adds a resource template (replacing one with the same template) and tells live
    /// sessions.
    pub fn add_resource_template(&self, template: ResourceTemplate) {
        self.inner.templates.insert(template);
    }

    /// Removes the resource template `uri_template`; returns whether there was one.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.inner.templates.remove(uri_template)
    }

    /// Adds a prompt (replacing one with the same name) and tells live sessions.
    pub fn add_prompt(&self, prompt: Prompt) {
        self.inner.prompts.insert(prompt);
    }

    /// Removes the prompt called `name`; returns whether there was one.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.inner.prompts.remove(name)
    }

    /// The capabilities a session negotiating `version` is offered: derived from what is
    /// registered (and what the builder declared), with `listChanged` and `subscribe` on.
    pub fn capabilities_for(&self, version: &ProtocolVersion) -> ServerCapabilities {
        let inner = &self.inner;
        let has_tools = inner.declare.tools || !inner.tools.is_empty();
        let has_resources =
            inner.declare.resources || !inner.resources.is_empty() || !inner.templates.is_empty();
        let has_prompts = inner.declare.prompts || !inner.prompts.is_empty();
        let can_complete = !inner.prompts.is_empty() || !inner.templates.is_empty();
        ServerCapabilities {
            tools: has_tools.then(|| ToolsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            resources: has_resources.then(|| ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
                ..Default::default()
            }),
            prompts: has_prompts.then(|| PromptsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            logging: Some(JsonObject::new()),
            completions: (can_complete && *version >= ProtocolVersion::V2025_03_26)
                .then(JsonObject::new),
            ..Default::default()
        }
    }
}

/// How [`Server::serve_with`] runs a session. The default is what [`Server::serve`] does:
/// wait for the client's `initialize`.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    assume_initialized: Option<(Option<ProtocolVersion>, ClientCapabilities)>,
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
}

/// Removes a session from the server when its `serve` future ends or is dropped.
struct SessionGuard<'a> {
    server: &'a ServerInner,
    id: u64,
}

impl Drop for SessionGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut sessions) = self.server.sessions.lock() {
            sessions.remove(&self.id);
        }
    }
}

/// Builds a [`Server`]; see [`Server::builder`].
///
/// ```
/// use mcp_server::{Server, Tool};
///
/// let server = Server::builder()
///     .name("demo")
///     .version("1.0.0")
///     .instructions("Call `hello` to be greeted.")
///     .tool(Tool::new("hello", |_cx| async { "Hello!" }).description("Greets you"))
///     .page_size(50)
///     .build();
/// assert_eq!(server.session_count(), 0);
/// ```
#[derive(Debug)]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    page_size: usize,
    tools: Vec<Tool>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
    config: Config,
    default_log_level: Option<LoggingLevel>,
    client_request_timeout: Option<Duration>,
    log_queue: usize,
    declare: Declare,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            page_size: 100,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            config: Config::default(),
            default_log_level: Some(LoggingLevel::Info),
            client_request_timeout: None,
            log_queue: 64,
            declare: Declare::default(),
        }
    }
}

impl ServerBuilder {
    /// The server's name in `serverInfo` (default: this crate's name).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.info.name = name.into();
        self
    }

    /// The server's version in `serverInfo` (default: this crate's version).
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }

    /// The whole `serverInfo` (title, icons, website...).
    #[must_use]
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Instructions for the client's model, sent in the `initialize` result.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds a tool.
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds a resource.
    #[must_use]
    pub fn resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a resource template.
    #[must_use]
    pub fn resource_template(mut self, template: ResourceTemplate) -> Self {
        self.templates.push(template);
        self
    }

    /// Adds a prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// How many items one page of `tools/list`, `resources/list`,
    /// `resources/templates/list` or `prompts/list` holds (default 100, at least 1).
    #[must_use]
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The JSON-RPC connection limits of each session (concurrency, queues, message size).
    #[must_use]
    pub fn jsonrpc_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The log level of a session whose client never sent `logging/setLevel` (default
    /// `Info`; `None` sends no log messages until the client asks).
    #[must_use]
    pub fn default_log_level(mut self, level: Option<LoggingLevel>) -> Self {
        self.default_log_level = level;
        self
    }

    /// A timeout for requests to the client (sampling, elicitation, roots). Default none: a
    /// request lasts as long as the handler that made it (a user may take a while to answer
    /// an elicitation; the client cancelling the tool call cancels it).
    #[must_use]
    pub fn client_request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// How many bridged `tracing` log messages may wait per session before new ones are
    /// dropped (default 64).
    #[must_use]
    pub fn log_queue(mut self, capacity: usize) -> Self {
        self.log_queue = capacity.max(1);
        self
    }

    /// Declares the tools capability even while no tool is registered (for servers that add
    /// tools later).
    #[must_use]
    pub fn declare_tools(mut self) -> Self {
        self.declare.tools = true;
        self
    }

    /// Declares the resources capability even while no resource or template is registered.
    #[must_use]
    pub fn declare_resources(mut self) -> Self {
        self.declare.resources = true;
        self
    }

    /// Declares the prompts capability even while no prompt is registered.
    #[must_use]
    pub fn declare_prompts(mut self) -> Self {
        self.declare.prompts = true;
        self
    }

    /// Builds the server.
    pub fn build(self) -> Server {
        Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                instructions: self.instructions,
                page_size: self.page_size,
                tools: Registry::new(self.tools),
                resources: Registry::new(self.resources),
                templates: Registry::new(self.templates),
                prompts: Registry::new(self.prompts),
                sessions: Mutex::default(),
                next_session: AtomicU64::new(0),
                config: self.config,
                default_log_level: self.default_log_level,
                client_request_timeout: self.client_request_timeout,
                log_queue: self.log_queue,
                declare: self.declare,
            }),
        }
    }
}
