//! What the application implements: [`ClientHandler`] for notifications, and the handlers
//! for the server's requests ([`SamplingHandler`], [`ElicitationHandler`]).

use std::future::Future;
use std::pin::Pin;

use mcp_jsonrpc::{CancellationToken, ErrorObject, Id};
use mcp_types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCompleteNotificationParams, LoggingMessageNotificationParams,
    ProgressNotificationParams, ResourceUpdatedNotificationParams, ServerNotification,
};
use tokio::sync::mpsc;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Receives the server's notifications.
///
/// Notifications are delivered one at a time, in the order the server sent them; while a
/// method runs, later notifications wait in a bounded queue (the connection keeps reading
/// and answering requests meanwhile). Every method has a no-op default, so implement only
/// what you need:
///
/// ```
/// use mcp_client::ClientHandler;
/// use mcp_types::LoggingMessageNotificationParams;
///
/// struct Host;
///
/// impl ClientHandler for Host {
///     async fn on_tool_list_changed(&self) {
///         // Refresh the tool list shown to the model.
///     }
///     async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
///         tracing::info!(level = %params.level, data = %params.data, "server log");
///     }
/// }
/// ```
///
/// [`on_notification`](Self::on_notification) sees every notification first and dispatches
/// to the specific methods; override it to take them all at once. A
/// `tokio::sync::mpsc::Sender<ServerNotification>` is a ready-made handler that forwards
/// every notification to a bounded channel.
///
/// Progress notifications of calls made with a progress sink (see
/// [`Client::call_tool_with_progress`](crate::Client::call_tool_with_progress)) go to that
/// sink, not here; cancellations are handled by the connection.
pub trait ClientHandler: Send + Sync + 'static {
    /// Every notification, first. The default dispatches to the methods below and drops the
    /// rest (subscription acknowledgements, which concern their
    /// [`Subscription`](crate::Subscription) only).
    fn on_notification(&self, notification: ServerNotification) -> impl Future<Output = ()> + Send {
        async move {
            match notification {
                ServerNotification::ToolListChanged(_) => self.on_tool_list_changed().await,
                ServerNotification::ResourceListChanged(_) => {
                    self.on_resource_list_changed().await;
                }
                ServerNotification::PromptListChanged(_) => self.on_prompt_list_changed().await,
                ServerNotification::ResourceUpdated(p) => self.on_resource_updated(p).await,
                ServerNotification::LoggingMessage(p) => self.on_log_message(p).await,
                ServerNotification::ElicitationComplete(p) => {
                    self.on_elicitation_complete(p).await;
                }
                ServerNotification::Progress(p) => self.on_progress(p).await,
                ServerNotification::TaskStatusChanged(p) => self.on_task_status(p).await,
                other => {
                    tracing::debug!(method = other.method(), "ignoring a server notification");
                }
            }
        }
    }

    /// `notifications/tasks/status` (2025-11-25): a task the server runs for this client has
    /// a new status. [`Client::watch_task`](crate::Client::watch_task) already looks again
    /// when one arrives.
    fn on_task_status(
        &self,
        params: mcp_types::TaskStatusNotificationParams,
    ) -> impl Future<Output = ()> + Send {
        let _ = params;
        async {}
    }

    /// `notifications/tools/list_changed`: list the tools again.
    fn on_tool_list_changed(&self) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// `notifications/resources/list_changed`: list the resources again.
    fn on_resource_list_changed(&self) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// `notifications/prompts/list_changed`: list the prompts again.
    fn on_prompt_list_changed(&self) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// `notifications/resources/updated`: a subscribed resource changed.
    fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParams,
    ) -> impl Future<Output = ()> + Send {
        let _ = params;
        async {}
    }

    /// `notifications/message`: a log message from the server.
    fn on_log_message(
        &self,
        params: LoggingMessageNotificationParams,
    ) -> impl Future<Output = ()> + Send {
        let _ = params;
        async {}
    }

    /// `notifications/elicitation/complete`: a URL-mode elicitation finished (its
    /// `elicitationId` is the one the [`ElicitationHandler`] saw).
    fn on_elicitation_complete(
        &self,
        params: ElicitationCompleteNotificationParams,
    ) -> impl Future<Output = ()> + Send {
        let _ = params;
        async {}
    }

    /// `notifications/progress` for a token no pending call is waiting for.
    fn on_progress(&self, params: ProgressNotificationParams) -> impl Future<Output = ()> + Send {
        let _ = params;
        async {}
    }
}

/// Ignores every notification.
impl ClientHandler for () {}

/// Forwards every notification, in order, waiting for room in the (bounded) channel. If the
/// receiver is gone, notifications are dropped.
impl ClientHandler for mpsc::Sender<ServerNotification> {
    async fn on_notification(&self, notification: ServerNotification) {
        if self.send(notification).await.is_err() {
            tracing::debug!("notification receiver dropped");
        }
    }
}

/// What a [`SamplingHandler`] or [`ElicitationHandler`] knows about the request it serves.
///
/// The same handler serves both protocol eras: a server request of the handshake era (it has
/// a JSON-RPC [`id`](Self::id)), or an input request of a 2026-07-28 `input_required` result
/// (it has a [`key`](Self::input_key) in `inputRequests`).
#[derive(Debug, Clone)]
pub struct RequestContext {
    origin: Origin,
}

#[derive(Debug, Clone)]
enum Origin {
    Request(mcp_jsonrpc::RequestContext),
    Input {
        key: String,
        cancellation: CancellationToken,
    },
    Task {
        task_id: String,
        cancellation: CancellationToken,
    },
}

impl RequestContext {
    pub(crate) fn for_request(inner: mcp_jsonrpc::RequestContext) -> Self {
        RequestContext {
            origin: Origin::Request(inner),
        }
    }

    pub(crate) fn for_input(key: &str, cancellation: CancellationToken) -> Self {
        RequestContext {
            origin: Origin::Input {
                key: key.to_owned(),
                cancellation,
            },
        }
    }

    pub(crate) fn for_task(task_id: &str, cancellation: CancellationToken) -> Self {
        RequestContext {
            origin: Origin::Task {
                task_id: task_id.to_owned(),
                cancellation,
            },
        }
    }

    /// The id of the server's request (handshake era); `None` for an input request and for a
    /// task.
    pub fn id(&self) -> Option<&Id> {
        match &self.origin {
            Origin::Request(inner) => Some(inner.id()),
            Origin::Input { .. } | Origin::Task { .. } => None,
        }
    }

    /// The task the request runs as, when the server asked for one (2025-11-25: a
    /// `sampling/createMessage` or `elicitation/create` with `task`); the server follows it
    /// with `tasks/get` and fetches the answer with `tasks/result`.
    pub fn task_id(&self) -> Option<&str> {
        match &self.origin {
            Origin::Task { task_id, .. } => Some(task_id),
            _ => None,
        }
    }

    /// The key of the input request in the server's `inputRequests` (2026-07-28); `None` for
    /// a server request.
    pub fn input_key(&self) -> Option<&str> {
        match &self.origin {
            Origin::Input { key, .. } => Some(key),
            _ => None,
        }
    }

    /// Fired when the server cancels the request (the handler future is dropped as well, so
    /// this is for work handed off elsewhere). An input request is cancelled when the call
    /// that received it ends without its answer: dropped, or timed out. A task is cancelled
    /// by the server's `tasks/cancel`.
    pub fn cancellation(&self) -> &CancellationToken {
        match &self.origin {
            Origin::Request(inner) => inner.cancellation(),
            Origin::Input { cancellation, .. } | Origin::Task { cancellation, .. } => cancellation,
        }
    }

    /// Reports progress to the server, if it asked for progress. An input request and a task
    /// have no one to report to: this does nothing.
    ///
    /// # Errors
    ///
    /// Fails if the connection is closed.
    pub async fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> crate::Result<()> {
        match &self.origin {
            Origin::Request(inner) => inner
                .report_progress(progress, total, message)
                .await
                .map_err(|e| crate::Error::from_jsonrpc(e, "notifications/progress", None)),
            Origin::Input { .. } | Origin::Task { .. } => Ok(()),
        }
    }
}

/// Answers `sampling/createMessage`: runs the server's prompt through the host's LLM.
///
/// Installing one with [`ClientBuilder::sampling`](crate::ClientBuilder::sampling) declares
/// the `sampling` capability. The params may carry `tools` and `toolChoice` (2025-11-25) when
/// the client also declared tool use ([`ClientBuilder::sampling_tools`]); answer a tool call
/// with `stopReason: "toolUse"` and `ToolUse` content.
///
/// Implemented for async closures `Fn(CreateMessageRequestParams, RequestContext) -> Fut`.
/// Return an [`ErrorObject`] to refuse (e.g. `-1` when the user rejected the request).
///
/// [`ClientBuilder::sampling_tools`]: crate::ClientBuilder::sampling_tools
pub trait SamplingHandler: Send + Sync + 'static {
    /// Samples a message.
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<CreateMessageResult, ErrorObject>> + Send;
}

impl<F, Fut> SamplingHandler for F
where
    F: Fn(CreateMessageRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send,
{
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<CreateMessageResult, ErrorObject>> + Send {
        self(params, ctx)
    }
}

/// Answers `elicitation/create`: asks the user for input (form mode) or to visit a URL (URL
/// mode, 2025-11-25).
///
/// Installing one with [`ClientBuilder::elicitation`](crate::ClientBuilder::elicitation)
/// declares the `elicitation` capability. In form mode, when the client declared
/// `applyDefaults`, fields of the requested schema that the returned content leaves out are
/// filled with the schema's `default`s before the answer is sent. In URL mode the params carry
/// the `elicitationId`; the server later sends `notifications/elicitation/complete`, delivered
/// to [`ClientHandler::on_elicitation_complete`].
///
/// Implemented for async closures `Fn(ElicitRequestParams, RequestContext) -> Fut`.
pub trait ElicitationHandler: Send + Sync + 'static {
    /// Asks the user.
    fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<ElicitResult, ErrorObject>> + Send;
}

impl<F, Fut> ElicitationHandler for F
where
    F: Fn(ElicitRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send,
{
    fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<ElicitResult, ErrorObject>> + Send {
        self(params, ctx)
    }
}

// Object-safe shims, so the client holds its handlers without type parameters.

pub(crate) trait DynClientHandler: Send + Sync + 'static {
    fn on_notification(&self, notification: ServerNotification) -> BoxFuture<'_, ()>;
}

impl<H: ClientHandler> DynClientHandler for H {
    fn on_notification(&self, notification: ServerNotification) -> BoxFuture<'_, ()> {
        Box::pin(ClientHandler::on_notification(self, notification))
    }
}

pub(crate) trait DynSamplingHandler: Send + Sync + 'static {
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>>;
}

impl<H: SamplingHandler> DynSamplingHandler for H {
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        Box::pin(SamplingHandler::create_message(self, params, ctx))
    }
}

pub(crate) trait DynElicitationHandler: Send + Sync + 'static {
    fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>>;
}

impl<H: ElicitationHandler> DynElicitationHandler for H {
    fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        Box::pin(ElicitationHandler::elicit(self, params, ctx))
    }
}
