//! The client's side of the connection: answers the server's requests (handshake era) and
//! hands its notifications to the subscriptions, the response cache and the application.

use std::sync::Arc;

use mcp_jsonrpc::{ErrorObject, Handler, Notification, NotificationContext, Request};
use mcp_types::{
    CreateMessage, CreateMessageRequestParams, Elicit, ElicitRequestParams, EmptyResult, ListRoots,
    Ping, Request as _, ServerNotification,
};
use serde_json::value::RawValue;

use crate::handler::RequestContext;
use crate::shared::Shared;

/// The [`Handler`] of the client's JSON-RPC connection.
pub(crate) struct Router {
    pub(crate) shared: Arc<Shared>,
}

fn to_raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, ErrorObject> {
    mcp_jsonrpc::to_raw_value(value)
}

impl Handler for Router {
    async fn handle_request(
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
                to_raw(&shared.create_message(params, ctx).await?)
            }
            ListRoots::METHOD => to_raw(&shared.list_roots()?),
            Elicit::METHOD => {
                let params: ElicitRequestParams = request.params()?;
                to_raw(&shared.elicit(params, ctx).await?)
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let shared = &self.shared;
        let params = notification.params.as_deref();
        match ServerNotification::from_parts(&notification.method, params) {
            Ok(n) => {
                shared.cache.invalidate(&n);
                if matches!(n, ServerNotification::TaskStatusChanged(_)) {
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
