//! The client's side of the connection: answers the server's requests and hands its
//! notifications to the application.

use std::sync::{Arc, Mutex, PoisonError};

use mcp_jsonrpc::{ErrorCode, ErrorObject, Handler, Notification, NotificationContext, Request};
use mcp_types::{
    ClientCapabilities, CreateMessage, CreateMessageRequestParams, Elicit, ElicitAction,
    ElicitRequestParams, EmptyResult, ListRoots, ListRootsResult, Ping, Request as _, Root,
    ServerNotification,
};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::form_defaults::apply_defaults;
use crate::handler::{DynClientHandler, DynElicitationHandler, DynSamplingHandler, RequestContext};
use crate::output_schema::OutputSchemas;
use crate::transport::FailureSlot;

/// State shared by the [`Client`](crate::Client) handles and the connection's handler.
pub(crate) struct Shared {
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) roots: Mutex<Vec<Root>>,
    pub(crate) handler: Arc<dyn DynClientHandler>,
    pub(crate) sampling: Option<Arc<dyn DynSamplingHandler>>,
    pub(crate) elicitation: Option<Arc<dyn DynElicitationHandler>>,
    pub(crate) failure: FailureSlot,
    pub(crate) schemas: OutputSchemas,
}

impl Shared {
    pub(crate) fn roots(&self) -> Vec<Root> {
        self.roots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the declared capabilities ask for form defaults to be applied
    /// (`elicitation.form.applyDefaults: true`).
    fn applies_defaults(&self) -> bool {
        self.capabilities
            .elicitation
            .as_ref()
            .and_then(|e| e.form.as_ref())
            .and_then(|form| form.get("applyDefaults"))
            == Some(&Value::Bool(true))
    }
}

/// The [`Handler`] of the client's JSON-RPC connection.
pub(crate) struct Router {
    pub(crate) shared: Arc<Shared>,
}

/// The answer to a request whose capability the client did not declare.
fn not_declared(method: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("method not found: {method} (capability not declared by the client)"),
    )
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
        let caps = &shared.capabilities;
        let ctx = RequestContext { inner: ctx };
        match &*request.method {
            Ping::METHOD => to_raw(&EmptyResult::default()),
            CreateMessage::METHOD => {
                let Some(handler) = shared
                    .sampling
                    .as_ref()
                    .filter(|_| caps.supports_sampling())
                else {
                    return Err(not_declared(CreateMessage::METHOD));
                };
                let params: CreateMessageRequestParams = request.params()?;
                let result = handler.create_message(params, ctx).await?;
                to_raw(&result)
            }
            ListRoots::METHOD => {
                if !caps.supports_roots() {
                    return Err(not_declared(ListRoots::METHOD));
                }
                to_raw(&ListRootsResult::new(shared.roots()))
            }
            Elicit::METHOD => {
                let Some(handler) = shared.elicitation.as_ref() else {
                    return Err(not_declared(Elicit::METHOD));
                };
                let params: ElicitRequestParams = request.params()?;
                let declared = match &params {
                    ElicitRequestParams::Form(_) => caps.supports_elicitation_form(),
                    ElicitRequestParams::Url(_) => caps.supports_elicitation_url(),
                };
                if !declared {
                    return Err(not_declared(Elicit::METHOD));
                }
                let schema = match &params {
                    ElicitRequestParams::Form(form) if shared.applies_defaults() => {
                        Some(form.requested_schema.clone())
                    }
                    _ => None,
                };
                let mut result = handler.elicit(params, ctx).await?;
                if let Some(schema) = schema
                    && result.action == ElicitAction::Accept
                {
                    apply_defaults(&schema, result.content.get_or_insert_default());
                }
                to_raw(&result)
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        match ServerNotification::from_parts(&notification.method, notification.params.as_deref()) {
            Ok(n) => self.shared.handler.on_notification(n).await,
            Err(e) => tracing::debug!(error = %e, "ignoring a server notification"),
        }
    }
}
