//! One session: the JSON-RPC [`Handler`] that routes a client's requests, and the notifier
//! that sends it list changes, resource updates and bridged log messages.

use std::collections::{BTreeSet, HashSet};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_jsonrpc::{
    Extensions, Handler, Notification, NotificationContext, Peer, Request, RequestContext,
};
use mcp_types::{
    CallToolRequestParams, ClientRequest, CompleteRequestParams, CompleteResult, Completion,
    CompletionReference, EmptyParams, EmptyResult, ErrorCode, ErrorObject, GetPromptRequestParams,
    Initialize, InitializeRequestParams, InitializeResult, Initialized, LoggingLevel,
    LoggingMessage, LoggingMessageNotificationParams, Meta, Ping, PromptListChanged,
    ReadResourceRequestParams, ResourceListChanged, ResourceUpdated,
    ResourceUpdatedNotificationParams, ServerCapabilities, ToolListChanged,
};
use serde::Serialize;
use serde_json::value::RawValue;
use tokio::sync::{Notify, mpsc};

use crate::completion::{CompletionRequest, finish};
use crate::context::{ClientState, Context, ContextParts, Input, LevelSource};
use crate::error::{Error, resource_not_found, to_wire};
use crate::server::{STATEFUL_VERSIONS, Server};

/// What `initialize` fixed for the session.
#[derive(Debug)]
pub(crate) struct InitState {
    pub(crate) client: Arc<ClientState>,
    pub(crate) capabilities: ServerCapabilities,
}

const LOG_OFF: u8 = u8::MAX;

fn level_index(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

/// The state of one session shared by its handler, its notifier and the [`Server`].
#[derive(Debug)]
pub(crate) struct SessionShared {
    pub(crate) init: OnceLock<Arc<InitState>>,
    initialized: AtomicBool,
    /// The session was served as initialized without a handshake
    /// ([`ServeOptions::assume_initialized`](crate::ServeOptions::assume_initialized)).
    assumed: AtomicBool,
    log_level: AtomicU8,
    subscriptions: Mutex<HashSet<String>>,
    pending_updates: Mutex<BTreeSet<String>>,
    updates: Notify,
    /// Fired once `notifications/initialized` arrives, so the notifier sends what changed
    /// while the session was not yet open.
    ready: Notify,
    logs: mpsc::Sender<LoggingMessageNotificationParams>,
}

impl SessionShared {
    pub(crate) fn new(
        default_level: Option<LoggingLevel>,
        logs: mpsc::Sender<LoggingMessageNotificationParams>,
    ) -> Self {
        SessionShared {
            init: OnceLock::new(),
            initialized: AtomicBool::new(false),
            assumed: AtomicBool::new(false),
            log_level: AtomicU8::new(default_level.map_or(LOG_OFF, level_index)),
            subscriptions: Mutex::default(),
            pending_updates: Mutex::default(),
            updates: Notify::new(),
            ready: Notify::new(),
            logs,
        }
    }

    /// Serves the session as initialized with `init`, without a handshake.
    pub(crate) fn assume(&self, init: InitState) {
        if self.init.set(Arc::new(init)).is_ok() {
            self.assumed.store(true, Ordering::Release);
            self.initialized.store(true, Ordering::Release);
        }
    }

    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        LEVELS
            .get(usize::from(self.log_level.load(Ordering::Relaxed)))
            .copied()
    }

    /// Whether the session is open for server-initiated messages (`notifications/initialized`
    /// arrived).
    pub(crate) fn is_ready(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    /// Whether a log message at `level` should go to this session.
    #[cfg_attr(not(feature = "tracing-bridge"), allow(dead_code))]
    pub(crate) fn wants_log(&self, level: LoggingLevel) -> bool {
        self.is_ready() && self.log_level().is_some_and(|min| level >= min)
    }

    /// Queues a bridged log message; drops it if the queue is full.
    #[cfg_attr(not(feature = "tracing-bridge"), allow(dead_code))]
    pub(crate) fn push_log(&self, msg: LoggingMessageNotificationParams) {
        let _ = self.logs.try_send(msg);
    }

    /// Queues `notifications/resources/updated` for `uri` if the session subscribed to it.
    /// Updates are coalesced per uri, so the queue is bounded by the subscriptions.
    pub(crate) fn resource_updated(&self, uri: &str) {
        if !self.subscriptions.lock().expect("lock").contains(uri) {
            return;
        }
        self.pending_updates
            .lock()
            .expect("lock")
            .insert(uri.to_owned());
        self.updates.notify_one();
    }
}

/// A request being served: its JSON-RPC context, and the extensions taken out of it.
struct Call {
    ctx: RequestContext,
    extensions: Arc<Extensions>,
}

impl std::ops::Deref for Call {
    type Target = RequestContext;

    fn deref(&self) -> &RequestContext {
        &self.ctx
    }
}

/// The JSON-RPC handler of one session.
pub(crate) struct SessionHandler {
    pub(crate) server: Server,
    pub(crate) session: Arc<SessionShared>,
}

type Reply = Result<Box<RawValue>, ErrorObject>;

fn raw<T: Serialize>(value: &T) -> Reply {
    serde_json::value::to_raw_value(value).map_err(|e| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("failed to serialize the result: {e}"),
        )
    })
}

fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INVALID_PARAMS, message)
}

fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("method not found: {method}"),
    )
}

/// A handler's error as a JSON-RPC error.
fn error_object(e: Error) -> ErrorObject {
    match e {
        Error::Rpc(obj) => obj,
        other => ErrorObject::new(ErrorCode::INTERNAL_ERROR, other.to_string()),
    }
}

impl Handler for SessionHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, mcp_jsonrpc::ErrorObject> {
        self.dispatch(request, ctx).await.map_err(to_wire)
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        if notification.method == <Initialized as mcp_types::Notification>::METHOD
            && self.session.init.get().is_some()
        {
            self.session.initialized.store(true, Ordering::Release);
            self.session.ready.notify_one();
        }
    }
}

impl SessionHandler {
    async fn dispatch(&self, request: Request, mut ctx: RequestContext) -> Reply {
        // Moved (not cloned) into the handler's `Context`.
        let extensions = Arc::new(std::mem::take(ctx.extensions_mut()));
        let ctx = Call { ctx, extensions };
        let method = &*request.method;
        if method == <Ping as mcp_types::Request>::METHOD {
            return raw(&EmptyResult::default());
        }
        if method == <Initialize as mcp_types::Request>::METHOD {
            let params: InitializeRequestParams = decode(&request)?;
            return self.initialize(params, &ctx);
        }
        let Some(init) = self.session.init.get().cloned() else {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                "server not initialized",
            ));
        };
        let caps = &init.capabilities;
        let request = ClientRequest::from_parts(method, request.params.as_deref())
            .map_err(|e| e.to_error_object())?;
        let inner = self.server.inner();
        let page_size = inner.page_size;
        match request {
            ClientRequest::ListTools(p) if caps.tools.is_some() => {
                inner.tools.page("tools", p.cursor.as_deref(), page_size)
            }
            ClientRequest::CallTool(p) if caps.tools.is_some() => {
                self.call_tool(p, &init, &ctx).await
            }
            ClientRequest::ListResources(p) if caps.resources.is_some() => {
                inner
                    .resources
                    .page("resources", p.cursor.as_deref(), page_size)
            }
            ClientRequest::ListResourceTemplates(p) if caps.resources.is_some() => inner
                .templates
                .page("resourceTemplates", p.cursor.as_deref(), page_size),
            ClientRequest::ReadResource(p) if caps.resources.is_some() => {
                self.read_resource(p, &init, &ctx).await
            }
            ClientRequest::Subscribe(p) if caps.resources.is_some() => {
                if !self.resource_exists(&p.uri) {
                    return Err(resource_not_found(&p.uri));
                }
                self.session
                    .subscriptions
                    .lock()
                    .expect("lock")
                    .insert(p.uri);
                raw(&EmptyResult::default())
            }
            ClientRequest::Unsubscribe(p) if caps.resources.is_some() => {
                self.session
                    .subscriptions
                    .lock()
                    .expect("lock")
                    .remove(&p.uri);
                self.session
                    .pending_updates
                    .lock()
                    .expect("lock")
                    .remove(&p.uri);
                raw(&EmptyResult::default())
            }
            ClientRequest::ListPrompts(p) if caps.prompts.is_some() => {
                inner
                    .prompts
                    .page("prompts", p.cursor.as_deref(), page_size)
            }
            ClientRequest::GetPrompt(p) if caps.prompts.is_some() => {
                self.get_prompt(p, &init, &ctx).await
            }
            ClientRequest::SetLevel(p) => {
                self.session
                    .log_level
                    .store(level_index(p.level), Ordering::Relaxed);
                raw(&EmptyResult::default())
            }
            ClientRequest::Complete(p) if caps.completions.is_some() || self.can_complete() => {
                self.complete(p, &init, &ctx).await
            }
            other => Err(method_not_found(other.method())),
        }
    }

    fn initialize(&self, params: InitializeRequestParams, ctx: &RequestContext) -> Reply {
        let version =
            mcp_types::ProtocolVersion::negotiate(&params.protocol_version, STATEFUL_VERSIONS);
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
        if self.session.init.set(init).is_err() && !self.session.assumed.load(Ordering::Acquire) {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                "already initialized",
            ));
        }
        if version.supports_batching() {
            ctx.peer().set_batching(true);
        }
        let inner = self.server.inner();
        let mut result = InitializeResult::new(version, capabilities, inner.info.clone());
        result.instructions.clone_from(&inner.instructions);
        raw(&result)
    }

    fn context(&self, init: &InitState, ctx: &Call, meta: Option<Meta>) -> Context {
        Context::new(ContextParts {
            server: self.server.clone(),
            client: init.client.clone(),
            peer: ctx.peer().clone(),
            request_id: ctx.id().clone(),
            extensions: ctx.extensions.clone(),
            level: LevelSource::Session(self.session.clone()),
            cancellation: ctx.cancellation().clone(),
            progress_token: ctx.progress_token().cloned(),
            input: Input::Peer {
                peer: ctx.peer().clone(),
                timeout: self.server.inner().client_request_timeout,
            },
            meta,
        })
    }

    async fn call_tool(&self, p: CallToolRequestParams, init: &InitState, ctx: &Call) -> Reply {
        let Some(tool) = self.server.inner().tools.get(&p.name) else {
            return Err(invalid_params(format!("Unknown tool: {}", p.name)));
        };
        let cx = self.context(init, ctx, p.meta);
        match tool.call(p.arguments, cx).await {
            Ok(result) => raw(&result),
            Err(Error::InputRequired) => Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                "the tool asked for input, which this protocol version sends as requests",
            )),
            Err(e) => Err(error_object(e)),
        }
    }

    fn resource_exists(&self, uri: &str) -> bool {
        let inner = self.server.inner();
        inner.resources.get(uri).is_some()
            || inner
                .templates
                .snapshot()
                .iter()
                .any(|t| t.match_uri(uri).is_some())
    }

    async fn read_resource(
        &self,
        p: ReadResourceRequestParams,
        init: &InitState,
        ctx: &Call,
    ) -> Reply {
        let inner = self.server.inner();
        let cx = self.context(init, ctx, p.meta);
        let result = if let Some(resource) = inner.resources.get(&p.uri) {
            resource.read(cx).await
        } else if let Some((template, params)) = inner
            .templates
            .snapshot()
            .into_iter()
            .find_map(|t| t.match_uri(&p.uri).map(|params| (t, params)))
        {
            template.read(params, cx).await
        } else {
            return Err(resource_not_found(&p.uri));
        };
        raw(&result.map_err(error_object)?)
    }

    async fn get_prompt(&self, p: GetPromptRequestParams, init: &InitState, ctx: &Call) -> Reply {
        let Some(prompt) = self.server.inner().prompts.get(&p.name) else {
            return Err(invalid_params(format!("Unknown prompt: {}", p.name)));
        };
        let args = p.arguments.unwrap_or_default();
        if let Some(missing) = prompt.missing_argument(&args) {
            return Err(invalid_params(format!(
                "Missing required argument: {missing}"
            )));
        }
        let cx = self.context(init, ctx, p.meta);
        raw(&prompt.get(args, cx).await.map_err(error_object)?)
    }

    fn can_complete(&self) -> bool {
        let inner = self.server.inner();
        !inner.prompts.is_empty() || !inner.templates.is_empty()
    }

    async fn complete(&self, p: CompleteRequestParams, init: &InitState, ctx: &Call) -> Reply {
        let inner = self.server.inner();
        let arg = p.argument.name.clone();
        let completer = match &p.reference {
            CompletionReference::Prompt(r) => inner
                .prompts
                .get(&r.name)
                .ok_or_else(|| invalid_params(format!("Unknown prompt: {}", r.name)))?
                .completer(&arg)
                .cloned(),
            CompletionReference::ResourceTemplate(r) => inner
                .templates
                .get(&r.uri)
                .ok_or_else(|| invalid_params(format!("Unknown resource template: {}", r.uri)))?
                .completer(&arg)
                .cloned(),
        };
        let completion = match completer {
            Some(complete) => {
                let req = CompletionRequest {
                    argument: arg,
                    value: p.argument.value,
                    context: p.context.and_then(|c| c.arguments).unwrap_or_default(),
                };
                let cx = self.context(init, ctx, p.meta);
                complete(req, cx).await.map_err(error_object)?
            }
            None => Completion::default(),
        };
        raw(&CompleteResult {
            completion: finish(completion),
            ..Default::default()
        })
    }
}

fn decode<T: serde::de::DeserializeOwned>(request: &Request) -> Result<T, ErrorObject> {
    let text = request.params.as_deref().map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| invalid_params(format!("invalid params: {e}")))
}

/// Sends the session its server-initiated notifications until the connection closes.
pub(crate) async fn notifier(
    server: Server,
    session: Arc<SessionShared>,
    peer: Peer,
    mut logs: mpsc::Receiver<LoggingMessageNotificationParams>,
) -> Infallible {
    let inner = server.inner();
    let mut tools = inner.tools.subscribe();
    let mut resources = inner.resources.subscribe();
    let mut templates = inner.templates.subscribe();
    let mut prompts = inner.prompts.subscribe();
    // What the session declared, once it is open for server-initiated messages; read after
    // each wake-up, since the session initializes while this waits.
    let caps = || {
        session
            .is_ready()
            .then(|| session.init.get().map(|i| &i.capabilities))
            .flatten()
    };
    let declared =
        |pick: fn(&ServerCapabilities) -> Option<bool>| caps().and_then(pick) == Some(true);
    loop {
        // Until the session is open, registry changes stay unread in their watch receivers;
        // once it opens, the pending ones go out (a change between the initialize response and
        // `notifications/initialized` is not lost).
        let ready = session.is_ready();
        let sent = tokio::select! {
            () = session.ready.notified(), if !ready => Ok(()),
            Ok(()) = tools.changed(), if ready => {
                let send = declared(|c| c.tools.as_ref().and_then(|t| t.list_changed));
                notify_if::<ToolListChanged>(&peer, send, &EmptyParams::default()).await
            }
            Ok(()) = resources.changed(), if ready => {
                let send = declared(|c| c.resources.as_ref().and_then(|r| r.list_changed));
                notify_if::<ResourceListChanged>(&peer, send, &EmptyParams::default()).await
            }
            Ok(()) = templates.changed(), if ready => {
                let send = declared(|c| c.resources.as_ref().and_then(|r| r.list_changed));
                notify_if::<ResourceListChanged>(&peer, send, &EmptyParams::default()).await
            }
            Ok(()) = prompts.changed(), if ready => {
                let send = declared(|c| c.prompts.as_ref().and_then(|p| p.list_changed));
                notify_if::<PromptListChanged>(&peer, send, &EmptyParams::default()).await
            }
            () = session.updates.notified() => {
                let uris = std::mem::take(&mut *session.pending_updates.lock().expect("lock"));
                let send = caps().is_some();
                let mut sent = Ok(());
                for uri in uris {
                    let params = ResourceUpdatedNotificationParams::new(uri);
                    sent = notify_if::<ResourceUpdated>(&peer, send, &params).await;
                    if sent.is_err() {
                        break;
                    }
                }
                sent
            }
            Some(msg) = logs.recv() => {
                notify_if::<LoggingMessage>(&peer, session.wants_log(msg.level), &msg).await
            }
        };
        if sent.is_err() {
            // The connection is closing; `serve` returns when its run future does.
            return std::future::pending().await;
        }
    }
}

async fn notify_if<N: mcp_types::Notification>(
    peer: &Peer,
    send: bool,
    params: &N::Params,
) -> Result<(), mcp_jsonrpc::Error> {
    if !send {
        return Ok(());
    }
    let raw = serde_json::value::to_raw_value(params)?;
    let is_empty = raw.get() == "{}";
    peer.notify(N::METHOD, (!is_empty).then_some(raw)).await
}
