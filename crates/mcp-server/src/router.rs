//! The router: the innermost service of a server, answering an [`McpRequest`] by its method
//! from the server's registries (tools, resources, templates, prompts, completion, logging,
//! subscriptions), else from an extension serving the method (`extension.rs`), else with the
//! fallback, else -32601.

use std::borrow::Cow;
use std::sync::Arc;

use mcp_types::{
    CallTool, CallToolResult, ClientRequest, CompleteRequestParams, CompleteResult, Completion,
    CompletionReference, EmptyResult, Era, GetPromptRequestParams, McpParamHeaders, Meta,
    ParamsMeta, ReadResourceRequestParams, ServerCapabilities,
};
use serde::Serialize;
use serde_json::Value;

use crate::arguments::{Arguments, CallParams};
use crate::cache::CacheHints;
use crate::completion::{CompletionRequest, finish};
use crate::context::Context;
use crate::envelope::{Enveloped, list_trailer, stamp_object, stamped};
use crate::error::{BoxError, Error, find_mcp_error};
use crate::handler::BoxFuture;
use crate::registry::{Entry, Registry};
use crate::server::{ClientTest, Filter, ServerInner, visible};
use crate::service::{McpRequest, McpResponse, ToolCall};

type Reply = Result<McpResponse, BoxError>;

fn respond<T: Serialize>(value: &T) -> Reply {
    Ok(McpResponse::new(value)?)
}

/// Whether the request is of the 2026-07-28 era (its results take the envelope).
fn is_modern(cx: &Context) -> bool {
    cx.protocol_version().era() == Era::Stateless
}

fn is_capability_not_declared(e: &(dyn std::error::Error + 'static)) -> bool {
    matches!(find_mcp_error(e), Some(Error::CapabilityNotDeclared(_)))
}

/// The features a client was offered, of the capabilities the router checks.
#[derive(Clone, Copy)]
struct Offered {
    tools: bool,
    resources: bool,
    prompts: bool,
    completions: bool,
}

impl From<&ServerCapabilities> for Offered {
    fn from(caps: &ServerCapabilities) -> Self {
        Offered {
            tools: caps.tools.is_some(),
            resources: caps.resources.is_some(),
            prompts: caps.prompts.is_some(),
            completions: caps.completions.is_some(),
        }
    }
}

fn unknown(what: &str, name: &str) -> BoxError {
    Box::new(Error::invalid_params(format!("Unknown {what}: {name}")))
}

/// Serves one request; `server` is `None` once the server is gone.
///
/// The request's method picks the work synchronously, and only that work's future is
/// boxed: one `async fn` over every method was a future as large as the largest of them
/// (1,856 bytes, boxed per request, past the 1 KiB glibc's per-thread cache of small blocks
/// keeps; dhat on the HTTP bench).
pub(crate) fn route(server: Option<Arc<ServerInner>>, req: McpRequest) -> BoxFuture<Reply> {
    let Some(server) = server else {
        return ready(Err(Box::new(Error::Closed {
            reason: "the server was dropped".to_owned(),
        })));
    };
    let (method, params, cx) = req.into_parts();
    if method.starts_with("tasks/") {
        return Box::pin(async move {
            if let Some(reply) =
                crate::tasks::methods::route(&server, &method, params.as_deref(), &cx).await
            {
                return reply;
            }
            dispatch(server, method, params, cx).await
        });
    }
    dispatch(server, method, params, cx)
}

/// A reply known without waiting, as the future [`route`] returns.
fn ready(reply: Reply) -> BoxFuture<Reply> {
    Box::pin(std::future::ready(reply))
}

/// Everything but `tasks/*`: the typed client requests, then the fallback.
fn dispatch(
    server: Arc<ServerInner>,
    method: Cow<'static, str>,
    params: Option<Box<serde_json::value::RawValue>>,
    cx: Context,
) -> BoxFuture<Reply> {
    // The hot method: its arguments and `_meta` stay text (see `arguments`).
    if *method == *<CallTool as mcp_types::Request>::METHOD {
        let mut call = match CallParams::read(params.as_deref()) {
            Ok(call) => call,
            Err(message) => {
                return ready(Err(Box::new(Error::invalid_params(format!(
                    "invalid params for {method}: {message}"
                )))));
            }
        };
        if !(Router { server: &server }).capabilities(&cx).tools {
            return ready(Err(Box::new(Error::method_not_found(&method))));
        }
        cx.set_meta_text(call.meta.take());
        return Box::pin(async move { Router { server: &server }.call_tool(call, cx).await });
    }
    let request = match ClientRequest::from_parts(&method, params.as_deref()) {
        Ok(request) => request,
        Err(mcp_types::MessageDecodeError::UnknownMethod(_)) => {
            // An extension's method (`skills/list`, ...), else the fallback.
            if let Some(extension) = crate::extension::find(&server.extensions, &method, &cx) {
                return extension.clone().route(&server, method, params, cx);
            }
            return Box::pin(async move {
                let req = McpRequest::new(method, params, cx);
                Router { server: &server }.fallback(req).await
            });
        }
        Err(e) => return ready(Err(Box::new(Error::Rpc(e.to_error_object())))),
    };
    let router = Router { server: &server };
    let caps = router.capabilities(&cx);
    let inner = &*server;
    let filters = &inner.filters;
    let cache = &inner.cache;
    match request {
        ClientRequest::ListTools(p) if caps.tools => {
            let mut list = List::new(&inner.tools, "tools", filters.tools.as_ref(), cache.tools);
            list.plain = filters.plain_tools.as_ref();
            ready(router.list(list, p.cursor, &cx))
        }
        ClientRequest::ListResources(p) if caps.resources => {
            let list = List::new(
                &inner.resources,
                "resources",
                filters.resources.as_ref(),
                cache.resources,
            );
            ready(router.list(list, p.cursor, &cx))
        }
        ClientRequest::ListResourceTemplates(p) if caps.resources => {
            let list = List::new(
                &inner.templates,
                "resourceTemplates",
                filters.templates.as_ref(),
                cache.templates,
            );
            ready(router.list(list, p.cursor, &cx))
        }
        ClientRequest::ReadResource(mut p) if caps.resources => {
            cx.set_meta(p.meta.take());
            Box::pin(async move { Router { server: &server }.read_resource(p, cx).await })
        }
        ClientRequest::Subscribe(p) if caps.resources => {
            if !router.resource_exists(&p.uri, &cx) {
                return ready(Err(Box::new(Error::resource_not_found(p.uri))));
            }
            if let Some(session) = cx.session() {
                session.shared().subscribe(p.uri);
            }
            ready(respond(&EmptyResult::default()))
        }
        ClientRequest::Unsubscribe(p) if caps.resources => {
            if let Some(session) = cx.session() {
                session.shared().unsubscribe(&p.uri);
            }
            ready(respond(&EmptyResult::default()))
        }
        ClientRequest::ListPrompts(p) if caps.prompts => {
            let list = List::new(
                &inner.prompts,
                "prompts",
                filters.prompts.as_ref(),
                cache.prompts,
            );
            ready(router.list(list, p.cursor, &cx))
        }
        ClientRequest::GetPrompt(mut p) if caps.prompts => {
            cx.set_meta(p.meta.take());
            Box::pin(async move { Router { server: &server }.get_prompt(p, cx).await })
        }
        ClientRequest::SetLevel(p) => {
            if let Some(session) = cx.session() {
                session.shared().set_log_level(p.level);
            }
            ready(respond(&EmptyResult::default()))
        }
        ClientRequest::Complete(mut p) if caps.completions || router.can_complete() => {
            cx.set_meta(p.meta.take());
            Box::pin(async move { Router { server: &server }.complete(p, cx).await })
        }
        other => ready(Err(Box::new(Error::method_not_found(other.method())))),
    }
}

struct Router<'a> {
    server: &'a ServerInner,
}

/// A list request: which registry, under which field, with which filter and cache hints,
/// and whether the client gets the items' plain definitions.
struct List<'a, T> {
    registry: &'a Registry<T>,
    field: &'static str,
    filter: Option<&'a Filter<T>>,
    hints: CacheHints,
    plain: Option<&'a ClientTest>,
}

impl<'a, T> List<'a, T> {
    fn new(
        registry: &'a Registry<T>,
        field: &'static str,
        filter: Option<&'a Filter<T>>,
        hints: CacheHints,
    ) -> Self {
        List {
            registry,
            field,
            filter,
            hints,
            plain: None,
        }
    }
}

impl Router<'_> {
    /// One page of a registry's list, as the request's client may see it.
    fn list<T: Entry>(&self, list: List<'_, T>, cursor: Option<String>, cx: &Context) -> Reply {
        let visible = list.filter.map(|f| move |item: &T| f(item, cx));
        let visible = visible.as_ref().map(|f| f as &dyn Fn(&T) -> bool);
        let trailer = if is_modern(cx) {
            list_trailer(list.hints, &self.server.server_info)
        } else {
            String::new()
        };
        let plain = list.plain.is_some_and(|plain| plain(cx));
        let page = list.registry.page(
            list.field,
            cursor.as_deref(),
            self.server.paging,
            visible,
            plain,
            &trailer,
        )?;
        Ok(McpResponse::from_raw(page))
    }

    /// A typed result, in the 2026-07-28 envelope when the request is of that era.
    fn enveloped<T: Enveloped + Serialize>(&self, mut result: T, cx: &Context) -> Reply {
        // Sized for its content up front (see `McpResponse::sized`).
        let len = result.content_len();
        if is_modern(cx) {
            let server = &self.server;
            let result = stamped(&mut result, &server.server_info, &server.server_info_json);
            return Ok(McpResponse::sized(&result, len)?);
        }
        Ok(McpResponse::sized(&result, len)?)
    }

    /// What the server offers the request's client: fixed by `initialize` for a session.
    /// Only which features, not the whole capabilities (read, not cloned, on every request).
    fn capabilities(&self, cx: &Context) -> Offered {
        match cx.session().and_then(|s| s.shared().init.get()) {
            Some(init) => Offered::from(&init.capabilities),
            None => Offered::from(&cx.server().capabilities_for(cx.protocol_version())),
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
                let modern = is_modern(&cx);
                let response = fallback(req, (), cx).await?;
                if !modern {
                    return Ok(response);
                }
                match response.decode::<Value>()? {
                    Value::Object(mut result) => {
                        stamp_object(&mut result, &self.server.server_info);
                        respond(&result)
                    }
                    _ => Ok(response),
                }
            }
            None => Err(Box::new(Error::method_not_found(req.method()))),
        }
    }

    async fn call_tool(&self, p: CallParams, cx: Context) -> Reply {
        let tool = self
            .server
            .tools
            .get(&p.name)
            .filter(|t| visible(self.server.filters.tools.as_ref(), t, &cx))
            .ok_or_else(|| unknown("tool", &p.name))?;
        let arguments = Arguments::text(p.arguments);
        if let Some(headers) = cx.extensions().get::<McpParamHeaders>() {
            tool.check_headers(arguments.object(), headers)?;
        }
        let modern = is_modern(&cx);
        let runtime = self.server.tasks.as_ref();
        let plan = crate::tasks::call::plan(runtime.map(|r| &**r), &tool, p.task.as_ref(), &cx)?;
        let call = ToolCall::new(p.name, arguments, cx.clone());
        let called = match (plan, runtime) {
            (crate::tasks::call::Plan::Task { deferred, ttl }, Some(runtime)) => {
                // Boxed: a task's start is rare and its future large (see `route`).
                let started = Box::pin(crate::tasks::call::start(
                    runtime,
                    self.server,
                    tool.call(call),
                    cx.clone(),
                    deferred,
                    ttl,
                ))
                .await?;
                match started {
                    crate::tasks::call::Started::Task(handle) => return respond(&handle),
                    crate::tasks::call::Started::Finished(finished) => finished,
                }
            }
            _ => tool.call(call).await,
        };
        let result = match called {
            Ok(result) => result,
            // Before 2026-07-28 a missing capability is the tool's failure, not a protocol
            // error.
            Err(e) if !modern && is_capability_not_declared(&*e) => {
                CallToolResult::error(e.to_string())
            }
            Err(e) => return Err(e),
        };
        self.enveloped(result, &cx)
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
        let (mut result, hints) = if let Some(resource) = inner
            .resources
            .get(&p.uri)
            .filter(|r| visible(inner.filters.resources.as_ref(), r, &cx))
        {
            (resource.read(cx.clone()).await?, resource.own_cache_hints())
        } else if let Some((template, params)) =
            inner.templates.snapshot().into_iter().find_map(|t| {
                let params = t.match_uri(&p.uri)?;
                visible(inner.filters.templates.as_ref(), &t, &cx).then_some((t, params))
            })
        {
            let hints = template.own_cache_hints();
            (template.read(params, cx.clone()).await?, hints)
        } else {
            return Err(Box::new(Error::resource_not_found(p.uri)));
        };
        if is_modern(&cx) {
            let hints = hints.unwrap_or(inner.cache.reads);
            result.ttl_ms = Some(hints.ttl_ms());
            result.cache_scope = Some(hints.scope);
        }
        self.enveloped(result, &cx)
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
        let result = prompt.get(args, cx.clone()).await?;
        self.enveloped(result, &cx)
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
            _ => return Err(Error::invalid_params("Unsupported completion reference").into()),
        };
        let completion = match completer {
            Some(complete) => {
                let req = CompletionRequest {
                    argument: arg,
                    value: p.argument.value,
                    context: p.context.and_then(|c| c.arguments).unwrap_or_default(),
                };
                complete(req, (), cx.clone()).await?
            }
            None => Completion::default(),
        };
        let mut result = CompleteResult::default();
        result.completion = finish(completion);
        self.enveloped(result, &cx)
    }
}
