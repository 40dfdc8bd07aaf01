//! [`Server`]: what a server offers and how it behaves, shared by all its sessions.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use mcp_jsonrpc::{Config, Extensions};
use mcp_types::{
    Era, Implementation, JsonObject, LoggingLevel, PromptsCapability, ProtocolVersion,
    ResourcesCapability, ServerCapabilities, ServerTaskRequestsCapability, ServerTasksCapability,
    TASKS_EXTENSION, ToolsCapability, ToolsTasksCapability,
};

use crate::cache::CacheConfig;
use crate::context::Context;
use crate::error::Result;
use crate::events::{EventBus, ServerEvent};
use crate::extract::{FromContext, RequiredStates, check_states};
use crate::handler::Erased;
use crate::prompt::Prompt;
use crate::registry::Registry;
use crate::request_state::StateCodec;
use crate::resource::{Resource, ResourceTemplate};
use crate::service::{McpRequest, McpResponse, McpService};
use crate::session_state::SessionShared;
use crate::tool::Tool;

/// The protocol revisions a session can negotiate, oldest first.
pub const STATEFUL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// The protocol revisions a request can carry in its `_meta` (no `initialize`), oldest first.
pub const MODERN_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V2026_07_28];

/// An MCP server: what it offers (tools, resources, templates, prompts) and how it
/// behaves. Cheap to clone (an `Arc` inside); every clone is the same server.
///
/// Build one with [`Server::builder`], then run a session per connection with
/// [`serve`](Self::serve). Tools, resources, templates and prompts can be added and removed
/// while sessions run; every live session is then sent the matching `list_changed`
/// notification (coalesced: a burst of changes may give one notification).
///
/// A handler can take the `Server` as an [extractor](crate::FromContext), e.g. to add tools
/// or to announce a resource update.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

/// A filter deciding whether a request's client may see an item.
pub(crate) type Filter<T> = Arc<dyn Fn(&T, &Context) -> bool + Send + Sync>;

/// A test of a request's client, e.g. of the extensions it declared.
pub(crate) type ClientTest = Arc<dyn Fn(&Context) -> bool + Send + Sync>;

/// The filters of [`ServerBuilder::tool_filter`] and its siblings, joined with those of the
/// server's extensions (`extension.rs`).
#[derive(Clone, Default)]
pub(crate) struct Filters {
    pub(crate) tools: Option<Filter<Tool>>,
    pub(crate) resources: Option<Filter<Resource>>,
    pub(crate) templates: Option<Filter<ResourceTemplate>>,
    pub(crate) prompts: Option<Filter<Prompt>>,
    /// Whether a request's client is listed the tools' plain definitions (an extension's
    /// additions left out; `Entry::plain_definition`).
    pub(crate) plain_tools: Option<ClientTest>,
}

/// Whether `filter` lets the request of `cx` see `item` (no filter: yes).
pub(crate) fn visible<T>(filter: Option<&Filter<T>>, item: &T, cx: &Context) -> bool {
    filter.is_none_or(|f| f(item, cx))
}

/// The handler of requests for methods the router does not know.
pub(crate) type Fallback = Erased<McpRequest, (), McpResponse>;

/// What the builder fixed about the capabilities.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Declare {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
}

/// How lists are cut into pages (see [`ServerBuilder::page_size`](crate::ServerBuilder::page_size)
/// and [`ServerBuilder::page_bytes`](crate::ServerBuilder::page_bytes)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paging {
    /// At most this many items a page, when set.
    pub(crate) items: Option<usize>,
    /// Tools, resources, templates, prompts and skills: a page ends once its items reach
    /// this many bytes of JSON (at least one item a page).
    pub(crate) bytes: usize,
}

impl Paging {
    /// Items a page of a list cut by count only (`tasks/list`, a skill's directory).
    pub(crate) fn count(&self) -> usize {
        self.items.unwrap_or(crate::builder::DEFAULT_COUNTED_PAGE)
    }
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) paging: Paging,
    pub(crate) tools: Registry<Tool>,
    pub(crate) resources: Registry<Resource>,
    pub(crate) templates: Registry<ResourceTemplate>,
    pub(crate) prompts: Registry<Prompt>,
    pub(crate) sessions: Mutex<HashMap<u64, Arc<SessionShared>>>,
    pub(crate) next_session: AtomicU64,
    pub(crate) config: Config,
    pub(crate) default_log_level: Option<LoggingLevel>,
    pub(crate) client_request_timeout: Option<Duration>,
    pub(crate) log_queue: usize,
    pub(crate) declare: Declare,
    /// Where list changes and resource updates go, and where sessions and subscription
    /// streams hear of them.
    pub(crate) events: Arc<dyn EventBus>,
    /// The application state, plus a [`ServerRef`] to this server for the `Server`
    /// extractor.
    pub(crate) state: Arc<Extensions>,
    /// The application state's types (not the [`ServerRef`]), which the handlers added later
    /// are checked against.
    pub(crate) state_types: Vec<std::any::TypeId>,
    pub(crate) filters: Filters,
    pub(crate) fallback: Option<Fallback>,
    /// The router inside the builder's layers.
    pub(crate) service: McpService,
    /// The cache hints of 2026-07-28 results.
    pub(crate) cache: CacheConfig,
    /// Seals and opens the `requestState` of 2026-07-28 input rounds.
    pub(crate) state_codec: StateCodec,
    /// What a `requestState` is bound to besides its request.
    pub(crate) state_principal: Option<PrincipalFn>,
    /// `serverInfo`, as every 2026-07-28 result's `_meta` names it.
    pub(crate) server_info: serde_json::Value,
    /// The same, serialized once: what a result's envelope writes (`envelope::serialize_stamped`).
    pub(crate) server_info_json: Box<serde_json::value::RawValue>,
    /// Tool calls that run as tasks ([`ServerBuilder::tasks`](crate::ServerBuilder::tasks)).
    pub(crate) tasks: Option<Arc<crate::tasks::runtime::TaskRuntime>>,
    /// The protocol extensions served through the router's seam (`extension.rs`).
    pub(crate) extensions: Box<[Arc<dyn crate::extension::Extension>]>,
}

/// Names the principal of a request (from what the transport attached), for binding its
/// `requestState`.
pub(crate) type PrincipalFn = Arc<dyn Fn(&Extensions) -> Option<String> + Send + Sync>;

/// How a handler's context finds its server: weak, since the server's state holds it.
#[derive(Clone)]
pub(crate) struct ServerRef(pub(crate) Weak<ServerInner>);

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("sessions", &self.session_count())
            .finish_non_exhaustive()
    }
}

impl FromContext for Server {
    fn from_context(cx: &Context) -> Result<Self> {
        Ok(cx.server())
    }
}

impl Context {
    /// The server this request is served by, e.g. to call
    /// [`Server::notify_resource_updated`] or to add tools. (Handlers can also take the
    /// [`Server`] as a parameter.)
    ///
    /// # Panics
    ///
    /// If the server was dropped, which cannot happen while it serves this request.
    pub fn server(&self) -> Server {
        let inner = self
            .state::<ServerRef>()
            .and_then(|r| r.0.upgrade())
            .expect("a request is served while its server lives");
        Server { inner }
    }
}

impl Server {
    pub(crate) fn from_inner(inner: Arc<ServerInner>) -> Self {
        Server { inner }
    }

    pub(crate) fn inner(&self) -> &ServerInner {
        &self.inner
    }

    #[cfg_attr(not(feature = "tracing-bridge"), allow(dead_code))]
    pub(crate) fn downgrade(&self) -> Weak<ServerInner> {
        Arc::downgrade(&self.inner)
    }

    /// Registers a session; it is removed when the guard drops.
    pub(crate) fn register_session(&self, session: Arc<SessionShared>) -> SessionGuard<'_> {
        let id = session.id;
        self.inner
            .sessions
            .lock()
            .expect("sessions lock")
            .insert(id, session);
        SessionGuard {
            server: &self.inner,
            id,
        }
    }

    /// A fresh session id.
    pub(crate) fn next_session_id(&self) -> u64 {
        self.inner.next_session.fetch_add(1, Ordering::Relaxed)
    }

    /// How many sessions are being served right now.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.lock().expect("sessions lock").len()
    }

    /// Publishes an event on the server's [`EventBus`]: every legacy session and every
    /// 2026-07-28 `subscriptions/listen` stream that asked for it is told (of every server
    /// instance sharing the bus).
    pub fn publish(&self, event: ServerEvent) {
        self.inner.events.publish(event);
    }

    /// Sends `notifications/resources/updated` for `uri` to every session subscribed to it
    /// (and only to those) and every subscription stream listening to it. Returns at once;
    /// updates to the same uri are coalesced until sent.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.publish(ServerEvent::ResourceUpdated {
            uri: uri.to_owned(),
        });
    }

    /// Tells every listening client that the tools changed, e.g. when what a
    /// [tool filter](crate::ServerBuilder::tool_filter) lets through changed. (Adding or
    /// removing a tool tells them by itself.)
    pub fn notify_tools_changed(&self) {
        self.publish(ServerEvent::ToolsListChanged);
    }

    /// Tells every listening client that the prompts changed.
    pub fn notify_prompts_changed(&self) {
        self.publish(ServerEvent::PromptsListChanged);
    }

    /// Tells every listening client that the resources or resource templates changed.
    pub fn notify_resources_changed(&self) {
        self.publish(ServerEvent::ResourcesListChanged);
    }

    /// Adds a tool (replacing one with the same name) and tells live sessions.
    ///
    /// # Panics
    ///
    /// If its handler takes [`State<T>`](crate::State) of a type the server was not given
    /// (see [`ServerBuilder::build`](crate::ServerBuilder::build)).
    pub fn add_tool(&self, tool: Tool) {
        self.require_states(format!("tool {:?}", tool.name()), tool.required_states());
        self.inner.tools.insert(tool);
        self.notify_tools_changed();
    }

    /// Removes the tool called `name`; returns whether there was one. Live sessions are told.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.inner.tools.remove(name);
        if removed {
            self.notify_tools_changed();
        }
        removed
    }

    /// Adds a resource (replacing one with the same URI) and tells live sessions.
    ///
    /// # Panics
    ///
    /// If its handler takes [`State<T>`](crate::State) of a type the server was not given
    /// (see [`ServerBuilder::build`](crate::ServerBuilder::build)).
    pub fn add_resource(&self, resource: Resource) {
        let taker = format!("resource {:?}", resource.uri());
        self.require_states(taker, resource.required_states());
        self.inner.resources.insert(resource);
        self.notify_resources_changed();
    }

    /// Removes the resource with `uri`; returns whether there was one.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.inner.resources.remove(uri);
        if removed {
            self.notify_resources_changed();
        }
        removed
    }

    /// Adds a resource template (replacing one with the same template) and tells live
    /// sessions.
    ///
    /// # Panics
    ///
    /// If its handler takes [`State<T>`](crate::State) of a type the server was not given
    /// (see [`ServerBuilder::build`](crate::ServerBuilder::build)).
    pub fn add_resource_template(&self, template: ResourceTemplate) {
        let taker = format!("resource template {:?}", template.uri_template());
        self.require_states(taker, template.required_states());
        self.inner.templates.insert(template);
        self.notify_resources_changed();
    }

    /// Removes the resource template `uri_template`; returns whether there was one.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed = self.inner.templates.remove(uri_template);
        if removed {
            self.notify_resources_changed();
        }
        removed
    }

    /// Adds a prompt (replacing one with the same name) and tells live sessions.
    ///
    /// # Panics
    ///
    /// If its handler takes [`State<T>`](crate::State) of a type the server was not given
    /// (see [`ServerBuilder::build`](crate::ServerBuilder::build)).
    pub fn add_prompt(&self, prompt: Prompt) {
        self.require_states(
            format!("prompt {:?}", prompt.name()),
            prompt.required_states(),
        );
        self.inner.prompts.insert(prompt);
        self.notify_prompts_changed();
    }

    /// Panics, as [`ServerBuilder::build`](crate::ServerBuilder::build) does, if `states`
    /// has a type the server was not given.
    fn require_states(&self, taker: String, states: &RequiredStates) {
        if let Err(e) = check_states(&self.inner.state_types, [(taker, states)]) {
            panic!("{e}");
        }
    }

    /// Removes the prompt called `name`; returns whether there was one.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.inner.prompts.remove(name);
        if removed {
            self.notify_prompts_changed();
        }
        removed
    }

    /// The capabilities a session negotiating `version` is offered: derived from what is
    /// registered (and what the builder declared), with `listChanged` and `subscribe` on.
    pub fn capabilities_for(&self, version: &ProtocolVersion) -> ServerCapabilities {
        let inner = &self.inner;
        let has_tools = inner.declare.tools || !inner.tools.is_empty();
        let offered = |e: &&Arc<dyn crate::extension::Extension>| e.settings(version).is_some();
        let has_resources = inner.declare.resources
            || !inner.resources.is_empty()
            || !inner.templates.is_empty()
            || inner
                .extensions
                .iter()
                .filter(offered)
                .any(|e| e.needs_resources());
        let has_prompts = inner.declare.prompts || !inner.prompts.is_empty();
        let can_complete = !inner.prompts.is_empty() || !inner.templates.is_empty();
        let mut caps = ServerCapabilities::default();
        if has_tools {
            let mut tools = ToolsCapability::default();
            tools.list_changed = Some(true);
            caps.tools = Some(tools);
        }
        if has_resources {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(true);
            resources.list_changed = Some(true);
            caps.resources = Some(resources);
        }
        if has_prompts {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(true);
            caps.prompts = Some(prompts);
        }
        caps.logging = Some(JsonObject::new());
        caps.completions =
            (can_complete && *version >= ProtocolVersion::V2025_03_26).then(JsonObject::new);
        if inner.tasks.is_some() && *version == ProtocolVersion::V2025_11_25 {
            let mut call_tools = ToolsTasksCapability::default();
            call_tools.call = Some(JsonObject::new());
            let mut requests = ServerTaskRequestsCapability::default();
            requests.tools = Some(call_tools);
            let mut tasks = ServerTasksCapability::default();
            tasks.list = Some(JsonObject::new());
            tasks.cancel = Some(JsonObject::new());
            tasks.requests = Some(requests);
            caps.tasks = Some(tasks);
        }
        if inner.tasks.is_some() && version.era() == Era::Stateless {
            caps.extensions = Some(
                [(TASKS_EXTENSION.to_owned(), JsonObject::new())]
                    .into_iter()
                    .collect(),
            );
        }
        for extension in &inner.extensions {
            if let Some(settings) = extension.settings(version) {
                caps.extensions
                    .get_or_insert_with(Default::default)
                    .insert(extension.id().to_owned(), settings);
            }
        }
        caps
    }
}

/// Removes a session from the server when its `serve` future ends or is dropped.
pub(crate) struct SessionGuard<'a> {
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
