//! The router: the innermost service of a server, answering an [`McpRequest`] by its method
//! from the server's registries (tools, resources, templates, prompts, completion, logging,
//! subscriptions), else with the fallback, else -32601.

use std::sync::Arc;

use mcp_types::{
    CallToolRequestParams, ClientRequest, CompleteRequestParams, CompleteResult, Completion,
    CompletionReference, EmptyResult, GetPromptRequestParams, Meta, ParamsMeta,
    ReadResourceRequestParams, ServerCapabilities,
};
use serde::Serialize;

use crate::completion::{CompletionRequest, finish};
use crate::context::Context;
use crate::error::{BoxError, Error};
use crate::handler::BoxFuture;
use crate::registry::{Entry, Registry};
use crate::server::{Filter, ServerInner, visible};
use crate::service::{McpRequest, McpResponse, ToolCall};

type Reply = Result<McpResponse, BoxError>;

fn respond<T: Serialize>(value: &T) -> Reply {
    Ok(McpResponse::new(value)?)
}

/// One page of a registry's list, as the request's client may see it.
fn list<T: Entry>(
    registry: &Registry<T>,
    field: &str,
    cursor: Option<String>,
    filter: Option<&Filter<T>>,
    cx: &Context,
    page_size: usize,
) -> Reply {
    let visible = filter.map(|f| move |item: &T| f(item, cx));
    let visible = visible.as_ref().map(|f| f as &dyn Fn(&T) -> bool);
    let page = registry.page(field, cursor.as_deref(), page_size, visible)?;
    Ok(McpResponse::from_raw(page))
}

fn unknown(what: &str, name: &str) -> BoxError {
    Box::new(Error::invalid_params(format!("Unknown {what}: {name}")))
}

/// Serves one request; `server` is `None` once the server is gone.
pub(crate) fn route(server: Option<Arc<ServerInner>>, req: McpRequest) -> BoxFuture<Reply> {
    Box::pin(async move {
        let server = server.ok_or_else(|| Error::Closed {
            reason: "the server was dropped".to_owned(),
        })?;
        Router { server: &server }.route(req).await
    })
}

struct Router<'a> {
    server: &'a ServerInner,
}

impl Router<'_> {
    async fn route(&self, req: McpRequest) -> Reply {
        let (method, params, cx) = req.into_parts();
        let request = match ClientRequest::from_parts(&method, params.as_deref()) {
            Ok(request) => request,
            Err(mcp_types::MessageDecodeError::UnknownMethod(_)) => {
                return self.fallback(McpRequest::new(method, params, cx)).await;
            }
            Err(e) => return Err(Box::new(Error::Rpc(e.to_error_object()))),
        };
        let caps = self.capabilities(&cx);
        let inner = self.server;
        let filters = &inner.filters;
        let page_size = inner.page_size;
        match request {
            ClientRequest::ListTools(p) if caps.tools.is_some() => {
                let filter = filters.tools.as_ref();
                list(&inner.tools, "tools", p.cursor, filter, &cx, page_size)
            }
            ClientRequest::CallTool(mut p) if caps.tools.is_some() => {
                cx.set_meta(p.meta.take());
                self.call_tool(p, cx).await
            }
            ClientRequest::ListResources(p) if caps.resources.is_some() => {
                let filter = filters.resources.as_ref();
                list(
                    &inner.resources,
                    "resources",
                    p.cursor,
                    filter,
                    &cx,
                    page_size,
                )
            }
            ClientRequest::ListResourceTemplates(p) if caps.resources.is_some() => {
                let filter = filters.templates.as_ref();
                list(
                    &inner.templates,
                    "resourceTemplates",
                    p.cursor,
                    filter,
                    &cx,
                    page_size,
                )
            }
            ClientRequest::ReadResource(mut p) if caps.resources.is_some() => {
                cx.set_meta(p.meta.take());
                self.read_resource(p, cx).await
            }
            ClientRequest::Subscribe(p) if caps.resources.is_some() => {
                if !self.resource_exists(&p.uri, &cx) {
                    return Err(Box::new(Error::resource_not_found(p.uri)));
                }
                if let Some(session) = cx.session() {
                    session.shared().subscribe(p.uri);
                }
                respond(&EmptyResult::default())
            }
            ClientRequest::Unsubscribe(p) if caps.resources.is_some() => {
                if let Some(session) = cx.session() {
                    session.shared().unsubscribe(&p.uri);
                }
                respond(&EmptyResult::default())
            }
            ClientRequest::ListPrompts(p) if caps.prompts.is_some() => {
                let filter = filters.prompts.as_ref();
                list(&inner.prompts, "prompts", p.cursor, filter, &cx, page_size)
            }
            ClientRequest::GetPrompt(mut p) if caps.prompts.is_some() => {
                cx.set_meta(p.meta.take());
                self.get_prompt(p, cx).await
            }
            ClientRequest::SetLevel(p) => {
                if let Some(session) = cx.session() {
                    session.shared().set_log_level(p.level);
                }
                respond(&EmptyResult::default())
            }
            ClientRequest::Complete(mut p) if caps.completions.is_some() || self.can_complete() => {
                cx.set_meta(p.meta.take());
                self.complete(p, cx).await
            }
            other => Err(Box::new(Error::method_not_found(other.method()))),
        }
    }

    /// What the server offers the request's client: fixed by `initialize` for a session.
    fn capabilities(&self, cx: &Context) -> ServerCapabilities {
        match cx.session().and_then(|s| s.shared().init.get()) {
            Some(init) => init.capabilities.clone(),
            None => cx.server().capabilities_for(cx.protocol_version()),
        }
    }

    async fn fallback(&self, req: McpRequest) -> Reply {
        match &self.server.fallback {
            Some(fallback) => {
                let cx = req.context().clone();
                if let Some(params) = req.params() {
                    let meta = serde_json::from_str::<ParamsMeta<Meta>>(params.get()).ok();
                    cx.set_meta(meta.and_then(|m| m.meta));
                }
                fallback(req, (), cx).await
            }
            None => Err(Box::new(Error::method_not_found(req.method()))),
        }
    }

    async fn call_tool(&self, p: CallToolRequestParams, cx: Context) -> Reply {
        let tool = self
            .server
            .tools
            .get(&p.name)
            .filter(|t| visible(self.server.filters.tools.as_ref(), t, &cx))
            .ok_or_else(|| unknown("tool", &p.name))?;
        let result = tool.call(ToolCall::new(p.name, p.arguments, cx)).await?;
        respond(&result)
    }

    fn resource_exists(&self, uri: &str, cx: &Context) -> bool {
        let inner = self.server;
        inner
            .resources
            .get(uri)
            .is_some_and(|r| visible(inner.filters.resources.as_ref(), &r, cx))
            || inner.templates.snapshot().iter().any(|t| {
                t.match_uri(uri).is_some() && visible(inner.filters.templates.as_ref(), t, cx)
            })
    }

    async fn read_resource(&self, p: ReadResourceRequestParams, cx: Context) -> Reply {
        let inner = self.server;
        let result = if let Some(resource) = inner
            .resources
            .get(&p.uri)
            .filter(|r| visible(inner.filters.resources.as_ref(), r, &cx))
        {
            resource.read(cx).await?
        } else if let Some((template, params)) =
            inner.templates.snapshot().into_iter().find_map(|t| {
                let params = t.match_uri(&p.uri)?;
                visible(inner.filters.templates.as_ref(), &t, &cx).then_some((t, params))
            })
        {
            template.read(params, cx).await?
        } else {
            return Err(Box::new(Error::resource_not_found(p.uri)));
        };
        respond(&result)
    }

    async fn get_prompt(&self, p: GetPromptRequestParams, cx: Context) -> Reply {
        let prompt = self
            .server
            .prompts
            .get(&p.name)
            .filter(|pr| visible(self.server.filters.prompts.as_ref(), pr, &cx))
            .ok_or_else(|| unknown("prompt", &p.name))?;
        let args = p.arguments.unwrap_or_default();
        if let Some(missing) = prompt.missing_argument(&args) {
            return Err(Box::new(Error::invalid_params(format!(
                "Missing required argument: {missing}"
            ))));
        }
        let result = prompt.get(args, cx).await?;
        respond(&result)
    }

    fn can_complete(&self) -> bool {
        !self.server.prompts.is_empty() || !self.server.templates.is_empty()
    }

    async fn complete(&self, p: CompleteRequestParams, cx: Context) -> Reply {
        let inner = self.server;
        let arg = p.argument.name.clone();
        let completer = match &p.reference {
            CompletionReference::Prompt(r) => inner
                .prompts
                .get(&r.name)
                .filter(|pr| visible(inner.filters.prompts.as_ref(), pr, &cx))
                .ok_or_else(|| unknown("prompt", &r.name))?
                .completer(&arg)
                .cloned(),
            CompletionReference::ResourceTemplate(r) => inner
                .templates
                .get(&r.uri)
                .filter(|t| visible(inner.filters.templates.as_ref(), t, &cx))
                .ok_or_else(|| unknown("resource template", &r.uri))?
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
                complete(req, (), cx).await?
            }
            None => Completion::default(),
        };
        respond(&CompleteResult {
            completion: finish(completion),
            ..Default::default()
        })
    }
}
