//! The middleware seam: MCP request handling as tower [`Service`]s, so that any tower
//! [`Layer`] (timeouts, metrics, authorization, ...) wraps the whole server
//! ([`ServerBuilder::layer`](crate::ServerBuilder::layer): [`McpRequest`] to
//! [`McpResponse`]) or one tool ([`Tool::layer`](crate::Tool::layer): [`ToolCall`] to
//! `CallToolResult`).
//!
//! Errors a service returns are [`BoxError`]s; the server sends them as JSON-RPC errors the
//! same way as handler errors: a crate [`Error`] or an `ErrorObject` found in
//! the error's source chain keeps its code, anything else is -32603 with the error's message.

use std::borrow::Cow;
use std::fmt;
use std::future::poll_fn;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use mcp_jsonrpc::Extensions;
use mcp_types::{CallToolResult, JsonObject};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tower_layer::Layer;
use tower_service::Service;

use crate::arguments::Arguments;
use crate::context::Context;
use crate::error::{BoxError, Error, HandlerError, IntoHandlerError};
use crate::handler::BoxFuture;

/// One request of an initialized client on its way through the server's middleware to the
/// router: its method, its params (still raw JSON) and the [`Context`] its handler will get.
///
/// The lifecycle requests (`initialize`, `ping`) are answered before the middleware.
pub struct McpRequest {
    /// Moved from the engine's request (no copy per request).
    method: Cow<'static, str>,
    params: Option<Box<RawValue>>,
    context: Context,
}

impl fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.method)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    pub(crate) fn new(
        method: Cow<'static, str>,
        params: Option<Box<RawValue>>,
        context: Context,
    ) -> Self {
        McpRequest {
            method,
            params,
            context,
        }
    }

    /// The JSON-RPC method, e.g. `"tools/call"`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The params, as sent.
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// The params decoded as `T` (absent params decode as `{}`); a mismatch is -32602.
    ///
    /// ```
    /// # use mcp_server::McpRequest;
    /// #[derive(serde::Deserialize)]
    /// struct Named {
    ///     name: Option<String>,
    /// }
    ///
    /// // In a middleware: which tool or prompt a request is about.
    /// fn target(req: &McpRequest) -> Option<String> {
    ///     req.params_as::<Named>().ok().and_then(|n| n.name)
    /// }
    /// # let _ = target;
    /// ```
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, Error> {
        let text = self.params.as_deref().map_or("{}", RawValue::get);
        serde_json::from_str(text)
            .map_err(|e| Error::invalid_params(format!("invalid params: {e}")))
    }

    /// The context the handler will get.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// What the transport attached to the request (a shortcut for
    /// `context().extensions()`).
    pub fn extensions(&self) -> &Extensions {
        self.context.extensions()
    }

    pub(crate) fn into_parts(self) -> (Cow<'static, str>, Option<Box<RawValue>>, Context) {
        (self.method, self.params, self.context)
    }
}

/// The result of a request: the `result` member of the JSON-RPC response, as raw JSON.
#[derive(Debug, Clone)]
pub struct McpResponse(Box<RawValue>);

impl McpResponse {
    /// A response from raw JSON.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        McpResponse(raw)
    }

    /// A response serializing `value`.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, Error> {
        Ok(McpResponse(serde_json::value::to_raw_value(value)?))
    }

    /// A response serializing `value` into a buffer of `capacity` bytes to start with: a
    /// large result (a 1 MiB text) is then written once, not copied at each doubling of
    /// its buffer, whose pages each growth also faulted in anew.
    pub(crate) fn sized<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Result<Self, Error> {
        // Small results gain nothing over serde_json's own buffer.
        if capacity < 64 * 1024 {
            return Self::new(value);
        }
        let mut buf = Vec::with_capacity(capacity + 256);
        serde_json::to_writer(&mut buf, value)?;
        // serde_json writes UTF-8 only, and valid JSON; both are checked rather than assumed,
        // as no safe call builds a `RawValue` from a buffer of one's own without reading it
        // again (`from_string` does: 13% of a 1 MiB text result's time over stdio).
        let text =
            String::from_utf8(buf).map_err(<serde_json::Error as serde::ser::Error>::custom)?;
        Ok(McpResponse(RawValue::from_string(text)?))
    }

    /// The raw JSON.
    pub fn raw(&self) -> &RawValue {
        &self.0
    }

    /// The raw JSON, owned.
    pub fn into_raw(self) -> Box<RawValue> {
        self.0
    }

    /// The result decoded as `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, Error> {
        Ok(serde_json::from_str(self.0.get())?)
    }
}

/// A `tools/call` on its way through a tool's middleware to its handler.
pub struct ToolCall {
    name: String,
    arguments: Arguments,
    context: Context,
}

impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name)
            .field("arguments", &self.arguments())
            .finish_non_exhaustive()
    }
}

impl ToolCall {
    pub(crate) fn new(name: String, arguments: Arguments, context: Context) -> Self {
        ToolCall {
            name,
            arguments,
            context,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments, as sent. (They are read into a JSON object the first time they are
    /// asked for; a typed tool otherwise reads its input straight from the JSON text.)
    pub fn arguments(&self) -> Option<&JsonObject> {
        self.arguments.object()
    }

    /// The arguments, for a middleware that rewrites them.
    pub fn arguments_mut(&mut self) -> &mut Option<JsonObject> {
        self.arguments.object_mut()
    }

    /// The context the handler will get.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// What the transport attached to the request.
    pub fn extensions(&self) -> &Extensions {
        self.context.extensions()
    }

    pub(crate) fn into_parts(self) -> (Arguments, Context) {
        (self.arguments, self.context)
    }
}

type CallFn<Req, Res> = dyn Fn(Req) -> BoxFuture<Result<Res, BoxError>> + Send + Sync;

/// A type-erased, cheaply cloned service from `Req` to `Res`: the service the server's and a
/// tool's middleware wrap (as [`McpService`] and [`ToolService`]).
pub struct BoxedService<Req, Res>(Arc<CallFn<Req, Res>>);

/// The server's request handling as a service: the router, or the router inside the layers
/// added so far. What a [`ServerBuilder::layer`](crate::ServerBuilder::layer) layer wraps.
pub type McpService = BoxedService<McpRequest, McpResponse>;

/// A tool's handling as a service: its handler, or the handler inside the layers added so
/// far. What a [`Tool::layer`](crate::Tool::layer) layer wraps.
pub type ToolService = BoxedService<ToolCall, CallToolResult>;

impl<Req, Res> Clone for BoxedService<Req, Res> {
    fn clone(&self) -> Self {
        BoxedService(self.0.clone())
    }
}

impl<Req, Res> fmt::Debug for BoxedService<Req, Res> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxedService")
    }
}

impl<Req: Send + 'static, Res: Send + 'static> BoxedService<Req, Res> {
    pub(crate) fn from_fn(
        f: impl Fn(Req) -> BoxFuture<Result<Res, BoxError>> + Send + Sync + 'static,
    ) -> Self {
        BoxedService(Arc::new(f))
    }

    /// Erases the type of `service`; each call clones it and waits until it is ready.
    pub fn new<S>(service: S) -> Self
    where
        S: Service<Req, Response = Res> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        Self::from_fn(move |req| {
            let mut service = service.clone();
            Box::pin(async move {
                poll_fn(|cx| service.poll_ready(cx))
                    .await
                    .map_err(Into::into)?;
                service.call(req).await.map_err(Into::into)
            })
        })
    }

    /// Wraps this service in `layer`.
    pub(crate) fn layered<L>(self, layer: L) -> Self
    where
        L: Layer<Self>,
        L::Service: Service<Req, Response = Res> + Clone + Send + Sync + 'static,
        <L::Service as Service<Req>>::Error: Into<BoxError>,
        <L::Service as Service<Req>>::Future: Send + 'static,
    {
        Self::new(layer.layer(self))
    }

    /// Calls the service (it is always ready).
    pub(crate) fn oneshot(&self, req: Req) -> BoxFuture<Result<Res, BoxError>> {
        (self.0)(req)
    }
}

impl<Req: Send + 'static, Res: Send + 'static> Service<Req> for BoxedService<Req, Res> {
    type Response = Res;
    type Error = BoxError;
    type Future = BoxFuture<Result<Res, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Req) -> Self::Future {
        (self.0)(req)
    }
}

/// What a [fallback](crate::ServerBuilder::fallback) handler returns: a `Result` whose `Ok`
/// is any serializable result and whose `Err` is any [`IntoHandlerError`] (sent as a
/// JSON-RPC error), or a ready [`McpResponse`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a fallback's answer: it does not implement `IntoMcpResponse`",
    label = "not a fallback answer",
    note = "a fallback returns a `Result` whose `Ok` is any `Serialize` result and whose `Err` \
            is a handler error (`mcp_server::Error`, `HandlerError`, ...), or an `McpResponse`"
)]
pub trait IntoMcpResponse: Send + 'static {
    /// Converts the value.
    fn into_mcp_response(self) -> Result<McpResponse, HandlerError>;
}

impl IntoMcpResponse for McpResponse {
    fn into_mcp_response(self) -> Result<McpResponse, HandlerError> {
        Ok(self)
    }
}

impl<T: Serialize + Send + 'static, E: IntoHandlerError> IntoMcpResponse for Result<T, E> {
    fn into_mcp_response(self) -> Result<McpResponse, HandlerError> {
        let value = self.map_err(IntoHandlerError::into_handler_error)?;
        Ok(McpResponse::new(&value)?)
    }
}
