//! [`Shared`]: the state the [`Client`](crate::Client) handles and the connection's handler
//! share, and the answers to what a server asks of the client (sampling, elicitation, roots),
//! the same whether it asks with a request (handshake era) or in an `input_required` result
//! (2026-07-28).

use std::sync::{Arc, Mutex, PoisonError};

use mcp_jsonrpc::{ErrorCode, ErrorObject};
use mcp_types::{
    ClientCapabilities, CreateMessage, CreateMessageRequestParams, CreateMessageResult, Elicit,
    ElicitAction, ElicitRequestParams, ElicitResult, ListRoots, ListRootsResult, Request as _,
    Root,
};
use serde_json::Value;

use crate::cache::ResponseCache;
use crate::form_defaults::apply_defaults;
use crate::handler::{DynClientHandler, DynElicitationHandler, DynSamplingHandler, RequestContext};
use crate::known_tools::KnownTools;
use crate::output_schema::OutputSchemas;
use crate::received_tasks::ReceivedTasks;
use crate::subscription::Subscriptions;
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
    pub(crate) known_tools: KnownTools,
    pub(crate) subscriptions: Subscriptions,
    pub(crate) cache: ResponseCache,
    /// Woken by every `notifications/tasks/status` (and `notifications/tasks` on a listen
    /// stream): [`Client::watch_task`](crate::Client::watch_task) looks again at once instead
    /// of at its next poll.
    pub(crate) task_status: tokio::sync::Notify,
    /// The tasks the server created on this client (2025-11-25).
    pub(crate) received: ReceivedTasks,
}

/// The answer to a request whose capability the client did not declare.
pub(crate) fn not_declared(method: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("method not found: {method} (capability not declared by the client)"),
    )
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

    /// `sampling/createMessage`, through the sampling handler.
    pub(crate) async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> Result<CreateMessageResult, ErrorObject> {
        let Some(handler) = self
            .sampling
            .as_ref()
            .filter(|_| self.capabilities.supports_sampling())
        else {
            return Err(not_declared(CreateMessage::METHOD));
        };
        handler.create_message(params, ctx).await
    }

    /// `roots/list`, from the roots the client offers.
    pub(crate) fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        if !self.capabilities.supports_roots() {
            return Err(not_declared(ListRoots::METHOD));
        }
        Ok(ListRootsResult::new(self.roots()))
    }

    /// `elicitation/create`, through the elicitation handler, with the schema's defaults
    /// filled in if the client declared `applyDefaults`.
    pub(crate) async fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<ElicitResult, ErrorObject> {
        let Some(handler) = self.elicitation.as_ref() else {
            return Err(not_declared(Elicit::METHOD));
        };
        let declared = match &params {
            ElicitRequestParams::Form(_) => self.capabilities.supports_elicitation_form(),
            ElicitRequestParams::Url(_) => self.capabilities.supports_elicitation_url(),
            _ => false,
        };
        if !declared {
            return Err(not_declared(Elicit::METHOD));
        }
        let schema = match &params {
            ElicitRequestParams::Form(form) if self.applies_defaults() => {
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
        Ok(result)
    }
}
