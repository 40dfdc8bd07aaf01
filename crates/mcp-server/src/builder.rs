//! [`ServerBuilder`]: what a server offers, its application state, its middleware, and its
//! settings.

use std::any::TypeId;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use mcp_jsonrpc::{Config, Extensions};
use mcp_types::{Implementation, LoggingLevel};
use tower_layer::Layer;
use tower_service::Service;

use crate::cache::{CacheConfig, CacheHints, Cacheable};
use crate::context::Context;
use crate::error::BoxError;
use crate::error::Result;
use crate::events::{EventBus, InMemoryEventBus};
use crate::extract::{RequiredStates, check_states};
use crate::handler::{HandlerFn, erase, required_states};
use crate::prompt::Prompt;
use crate::registry::Registry;
use crate::request_state::{self, StateCodec};
use crate::resource::{Resource, ResourceTemplate};
use crate::router::route;
use crate::server::{Declare, Filters, Paging, PrincipalFn, Server, ServerInner, ServerRef};
use crate::service::{IntoMcpResponse, McpRequest, McpResponse, McpService};
use crate::tool::Tool;

type WrapFn = Box<dyn FnOnce(McpService) -> McpService + Send>;

/// The default of [`ServerBuilder::page_bytes`]: 1 MiB of item JSON a page.
pub const DEFAULT_PAGE_BYTES: usize = 1 << 20;

/// Items a page of `tasks/list` and of a skill directory's listing, without
/// [`ServerBuilder::page_size`].
pub(crate) const DEFAULT_COUNTED_PAGE: usize = 100;

/// Builds a [`Server`]; see [`Server::builder`].
///
/// ```
/// use mcp_server::{Server, Tool};
///
/// let server = Server::builder()
///     .name("demo")
///     .version("1.0.0")
///     .instructions("Call `hello` to be greeted.")
///     .tool(Tool::new("hello", || async { "Hello!" }).description("Greets you"))
///     .page_size(50)
///     .build();
/// assert_eq!(server.session_count(), 0);
/// ```
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    paging: Paging,
    tools: Vec<Tool>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
    config: Config,
    default_log_level: Option<LoggingLevel>,
    client_request_timeout: Option<Duration>,
    log_queue: usize,
    declare: Declare,
    state: Extensions,
    /// The types in `state`, for the check that every handler's state was given.
    state_types: Vec<TypeId>,
    layers: Vec<WrapFn>,
    filters: Filters,
    fallback: Option<(crate::server::Fallback, RequiredStates)>,
    events: Option<Arc<dyn EventBus>>,
    cache: CacheConfig,
    state_keys: Vec<Vec<u8>>,
    state_ttl: Duration,
    state_principal: Option<PrincipalFn>,
    tasks: Option<crate::tasks::Tasks>,
    extensions: Vec<Arc<dyn crate::extension::Extension>>,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .field("tools", &self.tools.len())
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .field("prompts", &self.prompts.len())
            .field("layers", &self.layers.len())
            .finish_non_exhaustive()
    }
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            paging: Paging {
                items: None,
                bytes: DEFAULT_PAGE_BYTES,
            },
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            config: Config::default(),
            default_log_level: Some(LoggingLevel::Info),
            client_request_timeout: None,
            log_queue: 64,
            declare: Declare::default(),
            state: Extensions::new(),
            state_types: Vec::new(),
            layers: Vec::new(),
            filters: Filters::default(),
            fallback: None,
            events: None,
            cache: CacheConfig::default(),
            state_keys: Vec::new(),
            state_ttl: request_state::DEFAULT_TTL,
            state_principal: None,
            tasks: None,
            extensions: Vec::new(),
        }
    }
}

impl Server {
    /// Starts building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
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

    /// Adds several tools (say, those a `#[tools]` impl block makes with the `macros`
    /// feature).
    ///
    /// ```
    /// use mcp_server::{Server, Tool};
    ///
    /// let server = Server::builder()
    ///     .tools([
    ///         Tool::new("ping", || async { "pong" }),
    ///         Tool::new("time", || async { "noon" }),
    ///     ])
    ///     .build();
    /// # drop(server);
    /// ```
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.tools.extend(tools);
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

    /// At most how many items one page of a list holds (at least 1): `tools/list`,
    /// `resources/list`, `resources/templates/list`, `prompts/list`, `skills/list`,
    /// `tasks/list` and a skill directory's listing.
    ///
    /// Unset by default: the first four and `skills/list` are then cut by size alone (see
    /// [`page_bytes`](Self::page_bytes)), so a typical server's list is one page and one round
    /// trip; `tasks/list` and directory listings hold 100 items a page.
    #[must_use]
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.paging.items = Some(page_size.max(1));
        self
    }

    /// The size at which a page of `tools/list`, `resources/list`,
    /// `resources/templates/list`, `prompts/list` or `skills/list` ends: items are added
    /// while the page's items stay within `bytes` of JSON, and a page always holds at least
    /// one (default [`DEFAULT_PAGE_BYTES`], 1 MiB: about 4,000 tools with a short description
    /// and a small schema each, well under any client's message limit).
    #[must_use]
    pub fn page_bytes(mut self, bytes: usize) -> Self {
        self.paging.bytes = bytes.max(1);
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

    /// Application state for handlers: a database pool, a configuration, a client of another
    /// service. Handlers take it as [`State<T>`](crate::State) (cloned per call) or read it
    /// with [`Context::state`]. One value per type; calling this again with the same type
    /// replaces it. A server whose handlers take a `State<T>` that was never given is refused
    /// by [`build`](Self::build) (see there).
    #[must_use]
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, state: T) -> Self {
        self.state.insert(state);
        let id = TypeId::of::<T>();
        if !self.state_types.contains(&id) {
            self.state_types.push(id);
        }
        self
    }

    /// Wraps the server's request handling in a tower [`Layer`]: every request of an
    /// initialized client (not `initialize` and `ping`) goes through it as an
    /// [`McpRequest`] on its way to the router, which answers with an [`McpResponse`].
    /// Layers added later wrap those added before. An error the layer's service returns is
    /// sent as a JSON-RPC error (see [`service`](crate::service)).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_server::{Server, Tool};
    ///
    /// // Any tower layer fits, e.g. tower's timeout: a request still running after 30 s is
    /// // dropped (its handler cancelled) and answered with -32603 "request timed out".
    /// let server = Server::builder()
    ///     .tool(Tool::new("hello", || async { "Hello!" }))
    ///     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(30)))
    ///     .build();
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<McpService> + Send + 'static,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        self.layers
            .push(Box::new(move |inner: McpService| inner.layered(layer)));
        self
    }

    /// Decides per request which tools its client may see: a tool for which `filter` says
    /// `false` is left out of `tools/list` and answered as unknown by `tools/call`. The
    /// filter gets the [`Context`] of the request, with the transport's extensions (an auth
    /// layer's principal, say) and the [`Session`](crate::Session).
    ///
    /// ```
    /// use mcp_server::{Server, Tool};
    ///
    /// #[derive(Clone)]
    /// struct Role(&'static str);
    ///
    /// let server = Server::builder()
    ///     .tool(Tool::new("read", || async { "data" }))
    ///     .tool(Tool::new("drop_tables", || async { "gone" }))
    ///     .tool_filter(|tool, cx| {
    ///         tool.name() != "drop_tables"
    ///             || cx.extensions().get::<Role>().is_some_and(|r| r.0 == "admin")
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn tool_filter(
        mut self,
        filter: impl Fn(&Tool, &Context) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.tools = Some(Arc::new(filter));
        self
    }

    /// Like [`tool_filter`](Self::tool_filter), for resources (`resources/list`, reads and
    /// subscriptions; a hidden resource is "not found").
    #[must_use]
    pub fn resource_filter(
        mut self,
        filter: impl Fn(&Resource, &Context) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.resources = Some(Arc::new(filter));
        self
    }

    /// Like [`tool_filter`](Self::tool_filter), for resource templates
    /// (`resources/templates/list`, reads of matching URIs, completion).
    #[must_use]
    pub fn resource_template_filter(
        mut self,
        filter: impl Fn(&ResourceTemplate, &Context) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.templates = Some(Arc::new(filter));
        self
    }

    /// Like [`tool_filter`](Self::tool_filter), for prompts (`prompts/list`, `prompts/get`,
    /// completion).
    #[must_use]
    pub fn prompt_filter(
        mut self,
        filter: impl Fn(&Prompt, &Context) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.prompts = Some(Arc::new(filter));
        self
    }

    /// Serves requests for methods the server does not know (custom methods, vendor
    /// extensions) with `handler`, which takes the [`McpRequest`] followed by any
    /// [extractors](crate::FromContext) and returns a `Result` (see [`IntoMcpResponse`]).
    /// Without a fallback such requests get -32601 "method not found"; a fallback that does
    /// not serve a method either returns [`Error::method_not_found`](crate::Error::method_not_found).
    ///
    /// ```
    /// use mcp_server::{Error, McpRequest, Server};
    ///
    /// let server = Server::builder()
    ///     .fallback(|req: McpRequest| async move {
    ///         match req.method() {
    ///             "acme/version" => Ok(serde_json::json!({"build": 42})),
    ///             other => Err(Error::method_not_found(other)),
    ///         }
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn fallback<M, F>(mut self, handler: F) -> Self
    where
        F: HandlerFn<McpRequest, M>,
        F::Future: Send,
        F::Output: IntoMcpResponse,
    {
        let erased = erase(handler, |out: F::Output, ()| out.into_mcp_response());
        self.fallback = Some((erased, required_states::<McpRequest, M, F>()));
        self
    }

    /// The bus that carries list changes and resource updates to sessions and subscription
    /// streams (default: an [`InMemoryEventBus`]). Give several server instances one shared
    /// bus so that a change made through one reaches the clients of all.
    #[must_use]
    pub fn event_bus(mut self, bus: impl EventBus) -> Self {
        self.events = Some(Arc::new(bus));
        self
    }

    /// The cache hints (`ttlMs`, `cacheScope`) of one kind of 2026-07-28 result. The default
    /// for every kind is [`CacheHints::NONE`]: stale at once, private.
    #[must_use]
    pub fn cache_hints(mut self, what: Cacheable, hints: CacheHints) -> Self {
        self.cache.set(what, hints);
        self
    }

    /// The key that seals the `requestState` of 2026-07-28 input rounds (HMAC-SHA256; use 32
    /// random bytes). Without one the server makes a random key at build time, so its states
    /// are valid only for this process: give every instance of a deployment the same key.
    /// Calling it again makes the earlier key a previous one, still accepted for states
    /// issued before (rotation).
    #[must_use]
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.state_keys.insert(0, key.into());
        self
    }

    /// How long a `requestState` stays valid (default 15 minutes): a user answering later
    /// has the request started over.
    #[must_use]
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// Binds each `requestState` to the principal `principal` names for the request, from
    /// what the transport attached to it (for example the subject an auth layer put in the
    /// HTTP request's extensions), so that one user's state is refused in another's retry.
    #[must_use]
    pub fn request_state_principal(
        mut self,
        principal: impl Fn(&Extensions) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.state_principal = Some(Arc::new(principal));
        self
    }

    /// Runs tool calls as tasks where the tool and the client allow it (see
    /// [`crate::tasks`]): declares the `tasks` capability (2025-11-25) and the
    /// `io.modelcontextprotocol/tasks` extension (2026-07-28), and serves the `tasks/*`
    /// methods. The same principal as [`request_state_principal`](Self::request_state_principal)
    /// owns the tasks a request creates.
    #[must_use]
    pub fn tasks(mut self, tasks: crate::tasks::Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Adds a protocol extension served through the router's seam, with the resources it
    /// serves (see `extension.rs`).
    #[cfg_attr(not(any(feature = "skills", feature = "apps")), allow(dead_code))]
    pub(crate) fn extension(
        mut self,
        extension: Arc<dyn crate::extension::Extension>,
        resources: impl IntoIterator<Item = Resource>,
    ) -> Self {
        self.extensions.push(extension);
        self.resources.extend(resources);
        self
    }

    /// Builds the server.
    ///
    /// # Panics
    ///
    /// If handlers take [`State<T>`](crate::State) of a type `T` that was not given to
    /// [`state`](Self::state): the message names each such type and what takes it. Caught
    /// here, before anything is served, rather than by every call of those handlers; see
    /// [`try_build`](Self::try_build) for the same check as an error.
    ///
    /// The message reads, for a tool `count` taking a `State<Notes>` that was never given:
    ///
    /// ```text
    /// handlers take application state the server was not given: State<app::Notes> (taken by
    /// tool "count"); give each to ServerBuilder::state (`.state(value)`), or take
    /// `Option<State<T>>` where it may be absent
    /// ```
    ///
    /// With the `apps` feature, also if a tool links a view (`Tool::ui`) that is not a
    /// `ui://` resource of the server: the message names each such tool and URI.
    pub fn build(self) -> Server {
        match self.try_build() {
            Ok(server) => server,
            Err(e) => panic!("{e}"),
        }
    }

    /// Builds the server, or fails with [`Error::StatesNotGiven`](crate::Error::StatesNotGiven)
    /// if handlers take [`State<T>`](crate::State) of a type the builder was not given.
    ///
    /// ```
    /// use mcp_server::{Error, Server, State, Tool};
    ///
    /// #[derive(Clone)]
    /// struct Notes;
    ///
    /// let tool = || Tool::new("count", |State(_notes): State<Notes>| async { 0 });
    /// let refused = Server::builder().tool(tool()).try_build().unwrap_err();
    /// let Error::StatesNotGiven(missing) = refused else { unreachable!() };
    /// assert!(missing[0].state.ends_with("Notes"));
    /// assert_eq!(missing[0].taken_by, ["tool \"count\""]);
    ///
    /// assert!(Server::builder().state(Notes).tool(tool()).try_build().is_ok());
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::StatesNotGiven`](crate::Error::StatesNotGiven), naming each missing type and
    /// what takes it. With the `apps` feature, `Error::BrokenUiLinks` when tools link views
    /// the server does not serve, naming each tool and the URI it links.
    pub fn try_build(self) -> Result<Server> {
        self.check_states()?;
        Ok(self.with_apps()?.assemble())
    }

    /// With the `apps` feature: every view a tool links is served, and the server has the
    /// MCP Apps extension when it has views or tools linking them (see [`crate::apps`]).
    #[cfg(feature = "apps")]
    fn with_apps(self) -> Result<Self> {
        crate::apps::check_links(&self.tools, &self.resources)?;
        Ok(if crate::apps::has_ui(&self.tools, &self.resources) {
            self.extension(crate::apps::extension(), [])
        } else {
            self
        })
    }

    /// Without the `apps` feature, nothing to add.
    #[cfg(not(feature = "apps"))]
    fn with_apps(self) -> Result<Self> {
        Ok(self)
    }

    /// Every state the handlers take was given.
    fn check_states(&self) -> Result<()> {
        let tools = self
            .tools
            .iter()
            .map(|t| (format!("tool {:?}", t.name()), t.required_states()));
        let prompts = self
            .prompts
            .iter()
            .map(|p| (format!("prompt {:?}", p.name()), p.required_states()));
        let resources = self
            .resources
            .iter()
            .map(|r| (format!("resource {:?}", r.uri()), r.required_states()));
        let templates = self.templates.iter().map(|t| {
            (
                format!("resource template {:?}", t.uri_template()),
                t.required_states(),
            )
        });
        let fallback = self
            .fallback
            .iter()
            .map(|(_, states)| ("the fallback".to_owned(), states));
        check_states(
            &self.state_types,
            tools
                .chain(prompts)
                .chain(resources)
                .chain(templates)
                .chain(fallback),
        )
    }

    /// The server, its handlers' states checked.
    fn assemble(self) -> Server {
        let layers = self.layers;
        let mut state = self.state;
        let state_codec = match self.state_keys.split_first() {
            Some((current, previous)) => {
                StateCodec::new(current.clone(), previous.to_vec(), self.state_ttl)
            }
            None => StateCodec::random(self.state_ttl),
        };
        let events = self
            .events
            .unwrap_or_else(|| Arc::new(InMemoryEventBus::default()));
        let filters = crate::extension::join_filters(self.filters, &self.extensions);
        let inner = Arc::new_cyclic(|me| {
            state.insert(ServerRef(me.clone()));
            let router = {
                let me = me.clone();
                McpService::from_fn(move |req| route(me.upgrade(), req))
            };
            let service = layers.into_iter().fold(router, |inner, wrap| wrap(inner));
            let server_info = serde_json::to_value(&self.info).unwrap_or_default();
            let server_info_json =
                serde_json::value::to_raw_value(&server_info).expect("a JSON value serializes");
            ServerInner {
                server_info,
                server_info_json,
                info: self.info,
                instructions: self.instructions,
                paging: self.paging,
                tools: Registry::new(self.tools),
                resources: Registry::new(self.resources),
                templates: Registry::new(self.templates),
                prompts: Registry::new(self.prompts),
                sessions: Default::default(),
                next_session: AtomicU64::new(0),
                config: self.config,
                default_log_level: self.default_log_level,
                client_request_timeout: self.client_request_timeout,
                log_queue: self.log_queue,
                declare: self.declare,
                state: Arc::new(state),
                state_types: self.state_types,
                filters,
                fallback: self.fallback.map(|(fallback, _)| fallback),
                service,
                events: events.clone(),
                cache: self.cache,
                state_codec,
                state_principal: self.state_principal,
                tasks: self
                    .tasks
                    .map(|t| Arc::new(crate::tasks::runtime::TaskRuntime::new(t, events.clone()))),
                extensions: self.extensions.into(),
            }
        });
        Server::from_inner(inner)
    }
}
