//! Tools: [`Tool`], its definition and its handler (what a handler returns is in
//! `tool_result`, schemas in `schema`).

use std::fmt;
use std::future::ready;
use std::sync::Arc;

use mcp_types::{
    CallToolResult, HeaderParam, Icon, JsonObject, McpParamHeaders, Meta, ToolAnnotations,
    ToolExecution, ToolTaskSupport,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tower_layer::Layer;
use tower_service::Service;

use crate::arguments::Arguments;
use crate::error::{BoxError, Error, HandlerError, Result};
use crate::extract::RequiredStates;
use crate::handler::{BoxFuture, HandlerFn, HandlerShape, NoInput, WithInput, required_states};
use crate::registry::Entry;
#[cfg(feature = "schemars")]
use crate::schema::schema_object;
use crate::schema::{invalid_arguments, raw_validator};
use crate::service::{ToolCall, ToolService};
use crate::tool_result::IntoToolResult;

/// The arguments of a [`Tool::typed`] tool: a type that deserializes from the call's
/// arguments and describes them with its JSON Schema. Implemented for every
/// `DeserializeOwned + JsonSchema` type; derive both.
#[cfg(feature = "schemars")]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments",
    label = "not a tool's arguments type",
    note = "a `Tool::typed` handler takes the tool's arguments as its first parameter: a type \
            deriving `serde::Deserialize` and `schemars::JsonSchema`",
    note = "a handler without arguments (extractors such as `State<T>` only) goes to \
            `Tool::new`"
)]
pub trait ToolArguments: DeserializeOwned + schemars::JsonSchema + Send + 'static {}

#[cfg(feature = "schemars")]
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + schemars::JsonSchema + Send + 'static> ToolArguments for T {}

/// A tool: its definition (as listed in `tools/list`) and its handler.
///
/// Three constructors, by how arguments arrive:
///
/// - [`Tool::typed`] (feature `schemars`): arguments deserialize into a Rust type whose
///   `JsonSchema` derive gives the `inputSchema`;
/// - [`Tool::raw`]: a JSON Schema given verbatim, arguments handed over as a JSON object
///   (validated against the schema with the `jsonschema` feature);
/// - [`Tool::new`]: no arguments.
///
/// The handler is an async function or closure taking the arguments (except for
/// [`Tool::new`]) followed by any [extractors](crate::FromContext): the [`Context`](crate::Context),
/// application [`State`](crate::State), and more (see [`HandlerFn`]). It returns anything
/// implementing [`IntoToolResult`]: text, content blocks, [`Json`](crate::Json) for structured output, a
/// `CallToolResult`, or a `Result` of those (an `Err` becomes a result with `isError: true`
/// and the error's text).
///
/// ```
/// use mcp_server::{Context, Tool};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     a: i64,
///     b: i64,
/// }
///
/// let add = Tool::typed("add", |args: AddArgs| async move { args.a + args.b })
///     .description("Adds two numbers");
/// assert_eq!(add.definition().input_schema["required"], serde_json::json!(["a", "b"]));
///
/// // With the context, for progress, logging and requests to the client:
/// let slow_add = Tool::typed("slow_add", |args: AddArgs, cx: Context| async move {
///     let _ = cx.report_progress(0.5, Some(1.0), None).await;
///     args.a + args.b
/// });
/// # let _ = slow_add;
/// ```
#[derive(Clone)]
pub struct Tool {
    def: mcp_types::Tool,
    service: ToolService,
    /// The `x-mcp-header` parameters of the input schema, checked at construction.
    header_params: Arc<[HeaderParam]>,
    /// Whether a call that runs as a task becomes one only when the handler asks
    /// ([`Tool::deferred_task`]).
    task_deferred: bool,
    /// The application state the handler's extractors take, checked by the builder.
    states: RequiredStates,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("definition", &self.def)
            .finish_non_exhaustive()
    }
}

/// A failed call before the handler ran, as a service error.
fn refused(e: Error) -> BoxFuture<Result<CallToolResult, BoxError>> {
    Box::pin(ready(Err(Box::new(e) as BoxError)))
}

/// The service running `handler` on the arguments that `decode` makes of the call's.
fn handler_service<In, M, F>(
    decode: impl Fn(Arguments) -> Result<In> + Send + Sync + 'static,
    handler: F,
) -> ToolService
where
    In: Send + 'static,
    F: HandlerFn<In, M>,
    F::Future: Send,
    F::Output: IntoToolResult,
{
    ToolService::from_fn(move |call: ToolCall| {
        let (args, cx) = call.into_parts();
        let input = match decode(args) {
            Ok(input) => input,
            Err(e) => return refused(e),
        };
        match handler.call(input, cx) {
            Ok(fut) => Box::pin(async move {
                fut.await
                    .into_tool_result()
                    .map_err(HandlerError::into_inner)
            }),
            Err(e) => refused(e),
        }
    })
}

impl Tool {
    /// A tool without arguments; its input schema is `{"type": "object", "properties": {}}`.
    /// Arguments the client sends anyway are ignored.
    ///
    /// ```
    /// use mcp_server::{Context, Tool};
    ///
    /// let hello = Tool::new("hello", || async { "Hello!" });
    /// let who = Tool::new("who", |cx: Context| async move {
    ///     cx.client_info().map(|c| c.name.clone()).unwrap_or_default()
    /// });
    /// # let _ = (hello, who);
    /// ```
    pub fn new<M, F>(name: impl Into<String>, handler: F) -> Tool
    where
        F: HandlerShape<NoInput<M>> + HandlerFn<(), NoInput<M>>,
        F::Future: Send,
        F::Output: IntoToolResult,
    {
        let mut schema = mcp_types::Tool::empty_input_schema();
        schema.insert("properties".to_owned(), Value::Object(JsonObject::new()));
        let output_schema = <F::Output as IntoToolResult>::output_schema();
        let states = required_states::<(), NoInput<M>, F>();
        Tool::from_parts(
            name.into(),
            schema,
            output_schema,
            handler_service(|_| Ok(()), handler),
        )
        .requiring(states)
    }

    /// A tool whose arguments deserialize into `A`; the `inputSchema` is `A`'s JSON Schema
    /// (derived once, here). Arguments that do not deserialize are refused with -32602
    /// `Invalid arguments for tool <name>: ...` before the handler runs.
    ///
    /// If the handler returns [`Json<T>`](crate::Json) (or a `Result` of it), `T`'s schema becomes the
    /// tool's `outputSchema`.
    ///
    /// The handler takes the arguments first; a handler without arguments goes to
    /// [`Tool::new`].
    #[cfg(feature = "schemars")]
    pub fn typed<A, M, F>(name: impl Into<String>, handler: F) -> Tool
    where
        A: ToolArguments,
        F: HandlerShape<WithInput<M>> + HandlerFn<A, WithInput<M>>,
        F::Future: Send,
        F::Output: IntoToolResult,
    {
        Tool::with_schema(name, schema_object::<A>(), handler)
    }

    /// Like [`Tool::typed`] with the input schema given explicitly, for argument types that do
    /// not implement `JsonSchema`.
    ///
    /// # Panics
    ///
    /// If the schema has an invalid `x-mcp-header` annotation (see
    /// [`mcp_types::Tool::header_params`]); [`Tool::typed`] likewise.
    pub fn with_schema<A, M, F>(
        name: impl Into<String>,
        input_schema: JsonObject,
        handler: F,
    ) -> Tool
    where
        A: DeserializeOwned + Send + 'static,
        F: HandlerShape<WithInput<M>> + HandlerFn<A, WithInput<M>>,
        F::Future: Send,
        F::Output: IntoToolResult,
    {
        let name = name.into();
        let tool_name = name.clone();
        let decode = move |args: Arguments| {
            args.decode::<A>()
                .map_err(|e| invalid_arguments(&tool_name, e))
        };
        let output_schema = <F::Output as IntoToolResult>::output_schema();
        let states = required_states::<A, WithInput<M>, F>();
        Tool::from_parts(
            name,
            input_schema,
            output_schema,
            handler_service(decode, handler),
        )
        .requiring(states)
    }

    /// A tool whose `inputSchema` is `input_schema`, kept verbatim (JSON Schema 2020-12
    /// keywords such as `$defs`, `allOf`, `if`/`then`/`else` included); the handler gets the
    /// arguments as a JSON object.
    ///
    /// With the `jsonschema` feature the schema is compiled here, once, and arguments that do
    /// not validate are refused with -32602 `Invalid arguments for tool <name>: ...` before
    /// the handler runs. Without it the handler must check the arguments itself.
    ///
    /// Fails with [`Error::InvalidSchema`] if the schema is not an object, has an invalid
    /// `x-mcp-header` annotation (see [`mcp_types::Tool::header_params`]), or, with the
    /// `jsonschema` feature, is not a valid schema.
    ///
    /// ```
    /// use mcp_server::Tool;
    /// use mcp_server::types::JsonObject;
    ///
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"text": {"type": "string"}},
    ///     "required": ["text"]
    /// });
    /// let echo = Tool::raw("echo", schema, |args: JsonObject| async move {
    ///     args["text"].as_str().unwrap_or_default().to_owned()
    /// })?;
    /// # let _ = echo;
    /// # Ok::<(), mcp_server::Error>(())
    /// ```
    pub fn raw<M, F>(name: impl Into<String>, input_schema: Value, handler: F) -> Result<Tool>
    where
        F: HandlerShape<WithInput<M>> + HandlerFn<JsonObject, WithInput<M>>,
        F::Future: Send,
        F::Output: IntoToolResult,
    {
        let name = name.into();
        let validate = raw_validator(&name, &input_schema)?;
        let Value::Object(schema) = input_schema else {
            return Err(Error::InvalidSchema {
                tool: name,
                message: "the schema must be a JSON object".to_owned(),
            });
        };
        let output_schema = <F::Output as IntoToolResult>::output_schema();
        let states = required_states::<JsonObject, WithInput<M>, F>();
        let service = handler_service(
            move |args: Arguments| {
                let args = args.into_object().unwrap_or_default();
                validate(&args)?;
                Ok(args)
            },
            handler,
        );
        Ok(Tool::checked(name, schema, output_schema, service)?.requiring(states))
    }

    /// A tool from its parts, with its `x-mcp-header` annotations checked.
    fn checked(
        name: String,
        input_schema: JsonObject,
        output_schema: Option<JsonObject>,
        service: ToolService,
    ) -> Result<Tool> {
        let mut def = mcp_types::Tool::new(name, input_schema);
        def.output_schema = output_schema;
        let header_params = def.header_params().map_err(|e| Error::InvalidSchema {
            tool: def.name.clone(),
            message: e.to_string(),
        })?;
        Ok(Tool {
            def,
            service,
            header_params: header_params.into(),
            task_deferred: false,
            states: RequiredStates::default(),
        })
    }

    /// Records the application state the handler takes.
    fn requiring(mut self, states: RequiredStates) -> Self {
        self.states = states;
        self
    }

    /// The application state the handler's extractors take.
    pub(crate) fn required_states(&self) -> &RequiredStates {
        &self.states
    }

    /// Like [`checked`](Self::checked), for constructors that cannot fail: a schema derived
    /// from a Rust type (or given to [`Tool::with_schema`]) with an invalid `x-mcp-header` is
    /// a bug in the program, found when the tool is made.
    fn from_parts(
        name: String,
        input_schema: JsonObject,
        output_schema: Option<JsonObject>,
        service: ToolService,
    ) -> Tool {
        match Tool::checked(name, input_schema, output_schema, service) {
            Ok(tool) => tool,
            Err(e) => panic!("{e}"),
        }
    }

    /// Checks the `Mcp-Param-*` headers of a 2026-07-28 HTTP request against the arguments:
    /// every header parameter with a value must come with a matching header, and a header must
    /// not stand for an absent value.
    pub(crate) fn check_headers(
        &self,
        arguments: Option<&JsonObject>,
        headers: &McpParamHeaders,
    ) -> Result<()> {
        headers
            .check(&self.header_params, arguments)
            .map_err(|e| Error::HeaderMismatch(e.0))
    }

    /// Wraps the tool's handling in a tower [`Layer`]: a timeout, a metrics counter, an
    /// authorization check for this tool alone. Layers added later wrap those added before.
    /// The layer's service takes a [`ToolCall`] and returns a `CallToolResult`; an error it
    /// returns is sent as a JSON-RPC error (see [`service`](crate::service)).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_server::{Error, Tool, ToolCall};
    /// use mcp_server::types::CallToolResult;
    ///
    /// #[derive(Clone)]
    /// struct Admin;
    ///
    /// // A check written as a layer with `tower::service_fn`-style code: only requests whose
    /// // transport attached `Admin` reach the handler.
    /// #[derive(Clone)]
    /// struct RequireAdmin<S>(S);
    ///
    /// impl<S> tower_service::Service<ToolCall> for RequireAdmin<S>
    /// where
    ///     S: tower_service::Service<ToolCall, Response = CallToolResult>,
    ///     S::Error: Into<mcp_server::BoxError>,
    ///     S::Future: Send + 'static,
    /// {
    ///     type Response = CallToolResult;
    ///     type Error = mcp_server::BoxError;
    ///     type Future = mcp_server::BoxFuture<Result<CallToolResult, mcp_server::BoxError>>;
    ///
    ///     fn poll_ready(
    ///         &mut self,
    ///         cx: &mut std::task::Context<'_>,
    ///     ) -> std::task::Poll<Result<(), Self::Error>> {
    ///         self.0.poll_ready(cx).map_err(Into::into)
    ///     }
    ///
    ///     fn call(&mut self, call: ToolCall) -> Self::Future {
    ///         if call.extensions().get::<Admin>().is_none() {
    ///             return Box::pin(async { Err(Error::rpc(-32001, "admins only").into()) });
    ///         }
    ///         let fut = self.0.call(call);
    ///         Box::pin(async move { fut.await.map_err(Into::into) })
    ///     }
    /// }
    ///
    /// let reset = Tool::new("reset", || async { "done" })
    ///     .layer(tower_layer::layer_fn(RequireAdmin));
    /// # let _ = reset;
    /// ```
    #[must_use]
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<ToolService>,
        L::Service: Service<ToolCall, Response = CallToolResult> + Clone + Send + Sync + 'static,
        <L::Service as Service<ToolCall>>::Error: Into<BoxError>,
        <L::Service as Service<ToolCall>>::Future: Send + 'static,
    {
        self.service = self.service.layered(layer);
        self
    }

    /// Sets the description (a hint to the model).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.def.description = Some(description.into());
        self
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.def.title = Some(title.into());
        self
    }

    /// Sets the behaviour hints (read-only, destructive, idempotent, open world).
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.def.annotations = Some(annotations);
        self
    }

    /// Sets the icons.
    #[must_use]
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.def.icons = Some(icons);
        self
    }

    /// Sets the `_meta` of the definition.
    #[must_use]
    pub fn meta(mut self, meta: Meta) -> Self {
        self.def.meta = Some(meta);
        self
    }

    /// Sets (or with `None` removes) the `outputSchema`, e.g. for a [`Tool::raw`] tool that
    /// returns [`Structured`](crate::Structured) output.
    #[must_use]
    pub fn output_schema(mut self, schema: Option<JsonObject>) -> Self {
        self.def.output_schema = schema;
        self
    }

    /// The definition, as listed in `tools/list`.
    pub fn definition(&self) -> &mcp_types::Tool {
        &self.def
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    pub(crate) fn call(&self, call: ToolCall) -> BoxFuture<Result<CallToolResult, BoxError>> {
        self.service.oneshot(call)
    }

    /// Whether the tool may (or must) run as a task, listed as its `execution.taskSupport`
    /// (default: it never does). A call runs as a task when the client asks for one
    /// (2025-11-25) or declared the tasks extension (2026-07-28), and the server has
    /// [tasks](crate::ServerBuilder::tasks); see [`crate::tasks`].
    #[must_use]
    pub fn task_support(mut self, support: ToolTaskSupport) -> Self {
        self.def
            .execution
            .get_or_insert_with(ToolExecution::default)
            .task_support = Some(support);
        self
    }

    /// A call that runs as a task becomes one only when the handler calls
    /// [`Context::start_task`](crate::Context::start_task): what the handler does before runs
    /// inside the request, so the input it asks for there is the request's own (on 2026-07-28,
    /// an `InputRequiredResult` answered before the task exists); a handler that returns
    /// without asking gives its result directly (on 2025-11-25, a task created finished).
    #[must_use]
    pub fn deferred_task(mut self) -> Self {
        self.task_deferred = true;
        self
    }

    pub(crate) fn task_deferred(&self) -> bool {
        self.task_deferred
    }

    /// The definition, to change (the `apps` module sets its `_meta.ui`).
    #[cfg(feature = "apps")]
    pub(crate) fn definition_mut(&mut self) -> &mut mcp_types::Tool {
        &mut self.def
    }

    /// Replaces the tool's service with what `wrap` makes of it (the `apps` module checks
    /// results this way), outside the layers added so far.
    #[cfg(feature = "apps")]
    pub(crate) fn wrap_service(mut self, wrap: impl FnOnce(ToolService) -> ToolService) -> Self {
        self.service = wrap(self.service);
        self
    }
}

impl Entry for Tool {
    fn key(&self) -> &str {
        &self.def.name
    }

    fn definition(&self) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.def)
    }

    /// Without its MCP Apps `_meta`, for clients that did not declare the extension.
    #[cfg(feature = "apps")]
    fn plain_definition(&self) -> serde_json::Result<Option<Box<RawValue>>> {
        crate::apps::plain_definition(&self.def)
            .map(|plain| serde_json::value::to_raw_value(&plain))
            .transpose()
    }
}
