//! The 2026-07-28 era: every request carries the client's version, capabilities and info in
//! its `_meta`, and is served on its own, with no `initialize` and no session.
//!
//! The session handler hands a request here when its `_meta` names a protocol version. The
//! request gets the `Context` handlers already know, built from its `_meta` (the log level
//! too) instead of a session's; `server/discover` and `subscriptions/listen` are answered here;
//! the removed methods get -32601 before their params are looked at; everything else goes
//! through the server's service (its layers, then the router, which wraps results in the
//! revision's envelope). A `tools/call`, `prompts/get` or `resources/read` whose handler asked
//! for input is answered with an `InputRequiredResult` whose `requestState` is sealed.

use std::sync::{Arc, Mutex};

use mcp_jsonrpc::{Request, RequestContext};
use mcp_types::{
    CallTool, Discover, DiscoverResult, ErrorCode, ErrorObject, GetPrompt, Initialize,
    InputRequiredResult, InputResponseRequestParams, Ping, ReadResource, RequestMeta, ResultType,
    SERVER_INFO_META_KEY, SetLevel, Subscribe, SubscriptionsListen,
    SubscriptionsListenRequestParams, Unsubscribe,
};
use serde_json::value::RawValue;

use crate::context::{Context, ContextParts};
use crate::error::{error_object, is_input_required};
use crate::input::{Input, StatelessInput};
use crate::listen::listen;
use crate::request_state::Binding;
use crate::server::{MODERN_VERSIONS, Server};
use crate::service::McpRequest;
use crate::session_state::ClientState;
use crate::tasks::listen::TaskScope;

type Reply = Result<Box<RawValue>, ErrorObject>;

/// The methods of earlier revisions that 2026-07-28 removed.
const REMOVED: &[&str] = &[
    <Initialize as mcp_types::Request>::METHOD,
    <Ping as mcp_types::Request>::METHOD,
    <SetLevel as mcp_types::Request>::METHOD,
    <Subscribe as mcp_types::Request>::METHOD,
    <Unsubscribe as mcp_types::Request>::METHOD,
];

/// The methods whose handlers may ask the client for input.
const WITH_INPUT: &[&str] = &[
    <CallTool as mcp_types::Request>::METHOD,
    <GetPrompt as mcp_types::Request>::METHOD,
    <ReadResource as mcp_types::Request>::METHOD,
];

fn raw<T: serde::Serialize>(value: &T) -> Reply {
    serde_json::value::to_raw_value(value)
        .map_err(|e| ErrorObject::internal_error(format!("failed to serialize the result: {e}")))
}

/// -32022, naming what the server serves per request.
fn unsupported(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = MODERN_VERSIONS.iter().map(|v| v.as_str()).collect();
    ErrorObject::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version: {requested}"),
    )
    .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
}

/// What [`serve`] reads of a 2026-07-28 request's params besides the handler, in one pass
/// over them: the `_meta` (typed), and for a request that may carry input responses, its
/// target and whether it is a retry (most requests are first tries, whose params need no
/// second read for the retry's members).
pub(crate) struct Head {
    meta: RequestMeta,
    /// `name` (`uri` for `resources/read`), when it is a string.
    target: Option<String>,
    /// `inputResponses` or `requestState` is present.
    retry: bool,
}

impl Head {
    /// The protocol version the request names.
    pub(crate) fn version(&self) -> Option<&mcp_types::ProtocolVersion> {
        self.meta.protocol_version.as_ref()
    }

    /// The head of `request`, `None` for a request of the legacy era (no `_meta` naming a
    /// protocol version), or -32602 for a `_meta` that names one but does not read.
    pub(crate) fn of(request: &Request) -> Option<Result<Head, ErrorObject>> {
        let params = request.params.as_deref()?;
        // One pass over the params, `_meta` typed, when they read (callgrind: reading `_meta`
        // raw first, then typed, cost about 1k instructions more per request); otherwise
        // two, to tell a legacy `_meta` from a broken 2026-07-28 one.
        if let Ok(peek) = serde_json::from_str::<Peek<'_, RequestMeta>>(params.get()) {
            let retry = peek.retry();
            let meta = peek.meta.filter(|m| m.protocol_version.is_some())?;
            return Some(Ok(Head::new(meta, peek.name, peek.uri, retry)));
        }
        let peek = serde_json::from_str::<Peek<'_, &RawValue>>(params.get()).ok()?;
        let retry = peek.retry();
        let raw_meta = peek.meta?;
        let meta = match serde_json::from_str::<RequestMeta>(raw_meta.get()) {
            Ok(meta) if meta.protocol_version.is_some() => meta,
            Ok(_) => return None,
            // A `_meta` naming no version belongs to the legacy era, which reads it its way.
            Err(_) if !names_version(raw_meta) => return None,
            Err(e) => {
                return Some(Err(ErrorObject::invalid_params(format!(
                    "Invalid params: invalid _meta: {e}"
                ))));
            }
        };
        Some(Ok(Head::new(meta, peek.name, peek.uri, retry)))
    }

    fn new(
        meta: RequestMeta,
        name: Option<&RawValue>,
        uri: Option<&RawValue>,
        retry: bool,
    ) -> Self {
        let text = |raw: Option<&RawValue>| raw.and_then(|r| serde_json::from_str(r.get()).ok());
        Head {
            meta,
            target: text(name).or_else(|| text(uri)),
            retry,
        }
    }
}

/// The members of a request's params that [`Head::of`] reads, the others skipped: no map is
/// built on the way. `_meta` is `M`, typed or raw.
#[derive(serde::Deserialize)]
struct Peek<'a, M> {
    #[serde(rename = "_meta", default = "Option::default")]
    meta: Option<M>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<serde::de::IgnoredAny>,
    #[serde(rename = "requestState", default)]
    request_state: Option<serde::de::IgnoredAny>,
}

impl<M> Peek<'_, M> {
    /// `inputResponses` or `requestState` is present.
    fn retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }
}

/// Whether a `_meta` that did not read as [`RequestMeta`] names a protocol version.
fn names_version(meta: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Versioned<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
        version: Option<&'a RawValue>,
    }
    serde_json::from_str::<Versioned<'_>>(meta.get()).is_ok_and(|v| v.version.is_some())
}

/// Serves one 2026-07-28 request, whose params' [`Head`] is `head`.
pub(crate) async fn serve(
    server: &Server,
    request: Request,
    ctx: RequestContext,
    head: Head,
) -> Reply {
    let Head {
        meta,
        target,
        retry,
    } = head;
    let (Some(version), Some(capabilities)) = (meta.protocol_version, meta.client_capabilities)
    else {
        return Err(ErrorObject::invalid_params(
            "Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion and \
             io.modelcontextprotocol/clientCapabilities",
        ));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(unsupported(version.as_str()));
    }
    let inner = server.inner();
    let method = &*request.method;
    if REMOVED.contains(&method) {
        return Err(ErrorObject::method_not_found(method));
    }
    if method == <Discover as mcp_types::Request>::METHOD {
        return discover(server);
    }
    if method == <SubscriptionsListen as mcp_types::Request>::METHOD {
        let params: SubscriptionsListenRequestParams = request.params()?;
        let caps = server.capabilities_for(&version);
        let events = inner.events.subscribe();
        let tasks = inner.tasks.clone().map(|runtime| TaskScope {
            runtime,
            owner: inner
                .state_principal
                .as_ref()
                .and_then(|p| p(ctx.extensions())),
            declared: capabilities
                .extensions
                .as_ref()
                .is_some_and(|e| e.contains_key(mcp_types::TASKS_EXTENSION)),
        });
        return listen(params, ctx.id(), ctx.peer(), &caps, events, tasks)
            .await
            .map_err(|e| error_object(&e, &version));
    }

    // Moved, not copied, into the handler's `Context` (the extensions are shared).
    let ctx = ctx.into_parts();
    let extensions = ctx.extensions;
    let with_input = WITH_INPUT.contains(&method);
    let mut binding = None;
    let input = if with_input {
        let retry: InputResponseRequestParams = if retry {
            request.params()?
        } else {
            InputResponseRequestParams::default()
        };
        let bound = Binding {
            method: method.to_owned(),
            target: target.unwrap_or_default(),
            principal: inner.state_principal.as_ref().and_then(|p| p(&extensions)),
        };
        let sealed = match &retry.request_state {
            Some(state) => inner
                .state_codec
                .open(state, &bound)
                .map_err(|e| error_object(&e, &version))?,
            None => Default::default(),
        };
        binding = Some(bound);
        Input::Stateless(Mutex::new(StatelessInput::new(
            sealed,
            retry.input_responses,
        )))
    } else {
        Input::None
    };
    let cx = Context::new(ContextParts {
        client: Arc::new(ClientState {
            version: version.clone(),
            info: meta.client_info,
            capabilities,
        }),
        peer: ctx.peer,
        request_id: ctx.id,
        extensions,
        state: inner.state.clone(),
        session: None,
        request_level: meta.log_level,
        cancellation: ctx.cancellation,
        progress_token: ctx.progress_token,
        input,
    });
    let Request { method, params, .. } = request;
    let call = McpRequest::new(method, params, cx.clone());
    match inner.service.oneshot(call).await {
        Ok(response) => Ok(response.into_raw()),
        Err(e) if is_input_required(&*e) => match binding {
            Some(binding) => input_required(server, &cx, binding),
            None => Err(ErrorObject::internal_error(
                "the handler asked for input, which this request cannot carry",
            )),
        },
        Err(e) => Err(error_object(&*e, &version)),
    }
}

/// The `InputRequiredResult` of a request whose handler asked for input.
fn input_required(server: &Server, cx: &Context, binding: Binding) -> Reply {
    let Input::Stateless(state) = cx.input() else {
        return Err(ErrorObject::internal_error("no input channel"));
    };
    let state = state.lock().expect("input lock");
    let inner = server.inner();
    let sealed = inner
        .state_codec
        .seal(binding, state.to_seal())
        .map_err(|e| error_object(&e, cx.protocol_version()))?;
    let mut result = InputRequiredResult::default();
    result.input_requests = (!state.requested.is_empty()).then(|| state.requested.clone());
    result.request_state = Some(sealed);
    result
        .meta
        .get_or_insert_default()
        .insert(SERVER_INFO_META_KEY.to_owned(), inner.server_info.clone());
    raw(&result)
}

/// `server/discover`: the versions served per request, the capabilities, the instructions.
fn discover(server: &Server) -> Reply {
    let inner = server.inner();
    let latest = &MODERN_VERSIONS[MODERN_VERSIONS.len() - 1];
    let hints = inner.cache.discover;
    let mut result = DiscoverResult::default();
    result.supported_versions = MODERN_VERSIONS.to_vec();
    result.capabilities = server.capabilities_for(latest);
    result.instructions = inner.instructions.clone();
    result.result_type = Some(ResultType::Complete);
    result.ttl_ms = Some(hints.ttl_ms());
    result.cache_scope = Some(hints.scope);
    result
        .meta
        .get_or_insert_default()
        .insert(SERVER_INFO_META_KEY.to_owned(), inner.server_info.clone());
    raw(&result)
}

#[cfg(test)]
mod tests {
    use mcp_jsonrpc::Id;
    use mcp_types::ProtocolVersion;
    use serde_json::{Value, json};

    use super::*;

    fn request(params: Value) -> Request {
        Request::new(
            Id::Number(1),
            "tools/call",
            Some(serde_json::value::to_raw_value(&params).unwrap()),
        )
    }

    fn meta() -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
               "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
               "progressToken": 7})
    }

    #[test]
    fn the_head_reads_meta_target_and_retry_in_one_pass() {
        let head = Head::of(&request(json!({"name": "echo", "_meta": meta()})))
            .unwrap()
            .unwrap();
        assert_eq!(
            head.meta.protocol_version,
            Some(ProtocolVersion::V2026_07_28)
        );
        assert!(head.meta.client_capabilities.unwrap().sampling.is_some());
        assert_eq!(head.meta.client_info.unwrap().name, "c");
        assert_eq!(head.target.as_deref(), Some("echo"));
        assert!(!head.retry);
        // `uri` when there is no `name`; a retry by either member; a target that is no string
        // is none.
        let head = Head::of(&request(
            json!({"uri": "file:///a", "requestState": "s", "_meta": meta()}),
        ))
        .unwrap()
        .unwrap();
        assert_eq!(head.target.as_deref(), Some("file:///a"));
        assert!(head.retry);
        let head = Head::of(&request(
            json!({"name": 5, "inputResponses": {}, "_meta": meta()}),
        ))
        .unwrap()
        .unwrap();
        assert_eq!(head.target, None);
        assert!(head.retry);
    }

    #[test]
    fn a_request_without_a_versioned_meta_is_of_the_legacy_era() {
        assert!(Head::of(&Request::new(Id::Number(1), "tools/list", None)).is_none());
        assert!(Head::of(&request(json!({"name": "echo"}))).is_none());
        assert!(Head::of(&request(json!({"_meta": {"progressToken": 1}}))).is_none());
        // A legacy `_meta` that does not read as the revision's is still legacy.
        assert!(Head::of(&request(json!({"_meta": {"progressToken": [1]}}))).is_none());
        assert!(Head::of(&request(json!([1, 2]))).is_none());
    }

    #[test]
    fn a_versioned_meta_that_does_not_read_is_invalid_params() {
        let mut bad = meta();
        bad["io.modelcontextprotocol/clientInfo"] = json!({"name": "c"});
        let Some(Err(e)) = Head::of(&request(json!({"name": "echo", "_meta": bad}))) else {
            panic!("expected -32602");
        };
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("invalid _meta"), "{}", e.message);
    }
}
