//! The client's side of the connection: answers the server's requests (handshake era) and
//! hands its notifications to the subscriptions, the response cache and the application.

use std::sync::Arc;

use mcp_jsonrpc::{ErrorObject, Handler, Notification, NotificationContext, Request};
use mcp_types::{
    CancelTask, CreateMessage, CreateMessageRequestParams, Elicit, ElicitRequestParams,
    EmptyResult, GetTask, GetTaskPayload, GetTaskRequestParams, JsonObject, ListRoots, ListTasks,
    PaginatedRequestParams, Ping, Request as _, ServerNotification, TaskMetadata,
};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::handler::RequestContext;
use crate::shared::Shared;
use crate::telemetry;

/// The [`Handler`] of the client's JSON-RPC connection.
pub(crate) struct Router {
    pub(crate) shared: Arc<Shared>,
}

fn to_raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, ErrorObject> {
    mcp_jsonrpc::to_raw_value(value)
}

fn to_object<T: serde::Serialize>(value: &T) -> Result<JsonObject, ErrorObject> {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Ok(JsonObject::new()),
        Err(e) => Err(ErrorObject::internal_error(e.to_string())),
    }
}

impl Router {
    /// The `task` of a request the client accepts as a task: asked for, and declared in
    /// `tasks.requests` (a receiver that did not declare it ignores `task`).
    fn as_task(&self, method: &str, task: Option<&TaskMetadata>) -> Option<TaskMetadata> {
        let requests = self.shared.capabilities.tasks.as_ref()?.requests.as_ref()?;
        let declared = match method {
            CreateMessage::METHOD => requests
                .sampling
                .as_ref()
                .is_some_and(|s| s.create_message.is_some()),
            _ => requests
                .elicitation
                .as_ref()
                .is_some_and(|e| e.create.is_some()),
        };
        task.filter(|_| declared).cloned()
    }

    /// `tasks/*` on the tasks the server created here, if the client declared `tasks`.
    async fn task_method(&self, request: &Request) -> Option<Result<Box<RawValue>, ErrorObject>> {
        let tasks = &self.shared.received;
        self.shared.capabilities.tasks.as_ref()?;
        Some(match &*request.method {
            GetTask::METHOD => request
                .params::<GetTaskRequestParams>()
                .and_then(|p| tasks.get(&p))
                .and_then(|r| to_raw(&r)),
            GetTaskPayload::METHOD => match request.params::<GetTaskRequestParams>() {
                Ok(p) => tasks.result(&p).await.and_then(|r| to_raw(&r)),
                Err(e) => Err(e),
            },
            // Absent params are the first page.
            ListTasks::METHOD => request
                .params::<Option<PaginatedRequestParams>>()
                .and_then(|p| tasks.list(&p.unwrap_or_default()))
                .and_then(|r| to_raw(&r)),
            CancelTask::METHOD => request
                .params::<GetTaskRequestParams>()
                .and_then(|p| tasks.cancel(&p))
                .and_then(|r| to_raw(&r)),
            _ => return None,
        })
    }
}

impl Handler for Router {
    fn handle_request(
        &self,
        request: Request,
        ctx: mcp_jsonrpc::RequestContext,
    ) -> impl Future<Output = Result<Box<RawValue>, ErrorObject>> + Send {
        // The server span of the server's request, before its answer is first polled.
        let span = telemetry::received(&request.method, request.params.as_deref(), Some(ctx.id()));
        telemetry::traced(span, self.answer(request, ctx))
    }

    fn handle_notification(
        &self,
        notification: Notification,
        _ctx: NotificationContext,
    ) -> impl Future<Output = ()> + Send {
        use futures::future::Either;
        use tracing::Instrument as _;
        let span = telemetry::received(&notification.method, notification.params.as_deref(), None);
        let deliver = self.deliver(notification);
        match span {
            None => Either::Left(deliver),
            Some(span) => Either::Right(deliver.instrument(span.span().clone())),
        }
    }
}

impl Router {
    /// Answers one of the server's requests.
    async fn answer(
        &self,
        request: Request,
        ctx: mcp_jsonrpc::RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let shared = &self.shared;
        let ctx = RequestContext::for_request(ctx);
        match &*request.method {
            Ping::METHOD => to_raw(&EmptyResult::default()),
            CreateMessage::METHOD => {
                let params: CreateMessageRequestParams = request.params()?;
                if let Some(task) = self.as_task(CreateMessage::METHOD, params.task.as_ref()) {
                    let shared = self.shared.clone();
                    let created = shared.received.start(&task, |task_id, cancellation| {
                        let ctx = RequestContext::for_task(task_id, cancellation);
                        let shared = self.shared.clone();
                        Box::pin(
                            async move { to_object(&shared.create_message(params, ctx).await?) },
                        )
                    });
                    return to_raw(&created.await?);
                }
                to_raw(&shared.create_message(params, ctx).await?)
            }
            ListRoots::METHOD => to_raw(&shared.list_roots()?),
            Elicit::METHOD => {
                let params: ElicitRequestParams = request.params()?;
                let task = match &params {
                    ElicitRequestParams::Form(p) => p.task.as_ref(),
                    ElicitRequestParams::Url(p) => p.task.as_ref(),
                    _ => None,
                };
                if let Some(task) = self.as_task(Elicit::METHOD, task) {
                    let shared = self.shared.clone();
                    let created = shared.received.start(&task, |task_id, cancellation| {
                        let ctx = RequestContext::for_task(task_id, cancellation);
                        let shared = self.shared.clone();
                        Box::pin(async move { to_object(&shared.elicit(params, ctx).await?) })
                    });
                    return to_raw(&created.await?);
                }
                to_raw(&shared.elicit(params, ctx).await?)
            }
            other => match self.task_method(&request).await {
                Some(answer) => answer,
                None => Err(ErrorObject::method_not_found(other)),
            },
        }
    }

    /// Hands a server notification to the subscriptions, the cache and the application.
    async fn deliver(&self, notification: Notification) {
        let shared = &self.shared;
        let params = notification.params.as_deref();
        match ServerNotification::from_parts(&notification.method, params) {
            Ok(n) => {
                shared.cache.invalidate(&n);
                if matches!(
                    n,
                    ServerNotification::TaskStatusChanged(_) | ServerNotification::TaskChanged(_)
                ) {
                    shared.task_status.notify_waiters();
                }
                if shared.subscriptions.deliver(&n, params).await {
                    // An acknowledgement concerns its subscription only.
                    return;
                }
                shared.handler.on_notification(n).await;
            }
            Err(e) => tracing::debug!(error = %e, "ignoring a server notification"),
        }
    }
}
