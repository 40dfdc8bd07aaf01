//! Tools: [`Tool`] and the [`IntoToolResult`] conversions of handler return values.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_types::{
    CallToolResult, ContentBlock, ErrorCode, ErrorObject, Icon, JsonObject, Meta, ToolAnnotations,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Context;
use crate::error::{Error, Result, find_mcp_error};
use crate::registry::Entry;

pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

type ToolFn =
    dyn Fn(Option<JsonObject>, Context) -> BoxFuture<Result<CallToolResult>> + Send + Sync;

/// A tool: its definition (as listed in `tools/list`) and its handler.
///
/// Three constructors, by how arguments arrive:
///
/// - [`Tool::typed`] (feature `schemars`): arguments deserialize into a Rust type whose
///   `JsonSchema` derive gives the `inputSchema`;
/// - [`Tool::raw`]: a JSON Schema given verbatim, arguments validated against it;
/// - [`Tool::new`]: no arguments.
///
/// The handler returns anything implementing [`IntoToolResult`]: text, content blocks,
/// [`Json`] for structured output, a `CallToolResult`, or a `Result` of those (an `Err`
/// becomes a result with `isError: true` and the error's text).
///
/// ```
/// use mcp_server::{Context, HandlerError, Tool};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     a: i64,
///     b: i64,
/// }
///
/// let add = Tool::typed("add", |args: AddArgs, _cx: Context| async move {
///     Ok::<_, HandlerError>(args.a + args.b)
/// })
/// .description("Adds two numbers");
/// assert_eq!(add.definition().input_schema["required"], serde_json::json!(["a", "b"]));
/// ```
#[derive(Clone)]
pub struct Tool {
    def: mcp_types::Tool,
    handler: Arc<ToolFn>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("definition", &self.def)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool without arguments; its input schema is `{"type": "object", "properties": {}}`.
    /// Arguments the client sends anyway are ignored.
    pub fn new<F, Fut, R>(name: impl Into<String>, handler: F) -> Tool
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let mut schema = mcp_types::Tool::empty_input_schema();
        schema.insert("properties".to_owned(), Value::Object(JsonObject::new()));
        let handler: Arc<ToolFn> = Arc::new(move |_args, cx| {
            let fut = handler(cx);
            Box::pin(async move { fut.await.into_tool_result() })
        });
        Tool::from_parts(name.into(), schema, R::output_schema(), handler)
    }

    /// A tool whose arguments deserialize into `A`; the `inputSchema` is `A`'s JSON Schema
    /// (derived once, here). Arguments that do not deserialize are refused with -32602
    /// `Invalid arguments for tool <name>: ...` before the handler runs.
    ///
    /// If the handler returns [`Json<T>`] (or a `Result` of it), `T`'s schema becomes the
    /// tool's `outputSchema`.
    #[cfg(feature = "schemars")]
    pub fn typed<A, F, Fut, R>(name: impl Into<String>, handler: F) -> Tool
    where
        A: DeserializeOwned + schemars::JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let name = name.into();
        Tool::deserializing(name, schema_object::<A>(), handler)
    }

    /// Like [`Tool::typed`] with the input schema given explicitly, for argument types that do
    /// not implement `JsonSchema`.
    pub fn with_schema<A, F, Fut, R>(
        name: impl Into<String>,
        input_schema: JsonObject,
        handler: F,
    ) -> Tool
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        Tool::deserializing(name.into(), input_schema, handler)
    }

    fn deserializing<A, F, Fut, R>(name: String, input_schema: JsonObject, handler: F) -> Tool
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let tool_name = name.clone();
        let handler: Arc<ToolFn> = Arc::new(move |args, cx| {
            match serde_json::from_value::<A>(Value::Object(args.unwrap_or_default())) {
                Ok(args) => {
                    let fut = handler(args, cx);
                    Box::pin(async move { fut.await.into_tool_result() })
                }
                Err(e) => {
                    let err = invalid_arguments(&tool_name, e);
                    Box::pin(async move { Err(err) })
                }
            }
        });
        Tool::from_parts(name, input_schema, R::output_schema(), handler)
    }

    /// A tool whose `inputSchema` is `input_schema`, kept verbatim (JSON Schema 2020-12
    /// keywords such as `$defs`, `allOf`, `if`/`then`/`else` included). The validator is
    /// compiled here, once; arguments that do not validate are refused with -32602
    /// `Invalid arguments for tool <name>: ...` before the handler runs.
    ///
    /// Fails with [`Error::InvalidSchema`] if the schema is not an object or not a valid
    /// schema.
    pub fn raw<F, Fut, R>(name: impl Into<String>, input_schema: Value, handler: F) -> Result<Tool>
    where
        F: Fn(JsonObject, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let name = name.into();
        let invalid = |message: String| Error::InvalidSchema {
            tool: name.clone(),
            message,
        };
        let validator =
            jsonschema::validator_for(&input_schema).map_err(|e| invalid(e.to_string()))?;
        let Value::Object(schema) = input_schema else {
            return Err(invalid("the schema must be a JSON object".to_owned()));
        };
        let tool_name = name.clone();
        let handler: Arc<ToolFn> = Arc::new(move |args, cx| {
            let args = Value::Object(args.unwrap_or_default());
            let errors: Vec<String> = validator
                .iter_errors(&args)
                .map(|e| e.to_string())
                .collect();
            if !errors.is_empty() {
                let err = Error::Rpc(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!(
                        "Invalid arguments for tool {tool_name}: {}",
                        errors.join("; ")
                    ),
                ));
                return Box::pin(async move { Err(err) });
            }
            let Value::Object(args) = args else {
                unreachable!("built as an object above")
            };
            let fut = handler(args, cx);
            Box::pin(async move { fut.await.into_tool_result() })
        });
        Ok(Tool::from_parts(name, schema, R::output_schema(), handler))
    }

    fn from_parts(
        name: String,
        input_schema: JsonObject,
        output_schema: Option<JsonObject>,
        handler: Arc<ToolFn>,
    ) -> Tool {
        let mut def = mcp_types::Tool::new(name, input_schema);
        def.output_schema = output_schema;
        Tool { def, handler }
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
    /// returns [`Structured`] output.
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

    pub(crate) fn call(
        &self,
        args: Option<JsonObject>,
        cx: Context,
    ) -> BoxFuture<Result<CallToolResult>> {
        (self.handler)(args, cx)
    }
}

impl Entry for Tool {
    fn key(&self) -> &str {
        &self.def.name
    }

    fn definition(&self) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.def)
    }
}

fn invalid_arguments(tool: &str, e: impl fmt::Display) -> Error {
    Error::Rpc(ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        format!("Invalid arguments for tool {tool}: {e}"),
    ))
}

/// The JSON Schema of `T` as a JSON object (JSON Schema 2020-12, schemars' defaults).
#[cfg(feature = "schemars")]
pub(crate) fn schema_object<T: schemars::JsonSchema>() -> JsonObject {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(o) => o,
        other => {
            // `true`/`false` schemas: accept anything or nothing.
            let mut o = JsonObject::new();
            if other == Value::Bool(false) {
                o.insert("not".to_owned(), Value::Object(JsonObject::new()));
            }
            o
        }
    }
}

/// What a tool handler may return.
///
/// | Return type | Result |
/// |---|---|
/// | `String`, `&'static str`, numbers, `bool` | one text block |
/// | `ContentBlock`, `Vec<ContentBlock>` | those blocks |
/// | `()` | no content |
/// | `CallToolResult` | as is |
/// | [`Json<T>`] | `structuredContent` + a text block with the JSON; `T`'s schema is the `outputSchema` |
/// | [`Structured<T>`] | `structuredContent` + a text block, no `outputSchema` |
/// | `Result<T, E: Display>` | `T` as above; `Err` gives `isError: true` with the error's text |
///
/// An `Err` holding [`Error::InputRequired`] (directly, in a [`HandlerError`](crate::HandlerError)
/// or boxed) is not a tool failure: it goes to the router (see [`Context`]).
pub trait IntoToolResult: Send + 'static {
    /// Converts the value. `Err` is for [`Error::InputRequired`] only.
    fn into_tool_result(self) -> Result<CallToolResult>;

    /// The `outputSchema` implied by the type, if any.
    fn output_schema() -> Option<JsonObject> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::new(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::new(Vec::new()))
    }
}

macro_rules! text_results {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> Result<CallToolResult> {
                Ok(CallToolResult::text(self.to_string()))
            }
        }
    )*};
}

text_results!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl<T: IntoToolResult, E: fmt::Display + Send + Any> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => match find_mcp_error(&e) {
                Some(Error::InputRequired) => Err(Error::InputRequired),
                _ => Ok(CallToolResult::error(e.to_string())),
            },
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// Structured tool output with a schema: `T` becomes `structuredContent` (and, for clients
/// that read only `content`, a text block with its JSON), and `T`'s JSON Schema becomes the
/// tool's `outputSchema`. `T` must serialize to a JSON object.
///
/// ```
/// use mcp_server::{Context, Json, Tool};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Query {
///     city: String,
/// }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Weather {
///     celsius: f64,
/// }
///
/// let tool = Tool::typed("weather", |q: Query, _cx: Context| async move {
///     let _ = q.city;
///     Json(Weather { celsius: 21.5 })
/// });
/// let schema = tool.definition().output_schema.as_ref().unwrap();
/// assert_eq!(schema["type"], "object");
/// ```
#[cfg(feature = "schemars")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

#[cfg(feature = "schemars")]
impl<T: Serialize + schemars::JsonSchema + Send + 'static> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Structured(self.0).into_tool_result()
    }

    fn output_schema() -> Option<JsonObject> {
        let schema = schema_object::<T>();
        (schema.get("type") == Some(&Value::String("object".to_owned()))).then_some(schema)
    }
}

/// Structured tool output without a derived schema: like [`Json`] but for any `Serialize`
/// type, leaving the `outputSchema` to [`Tool::output_schema`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Structured<T>(pub T);

impl<T: Serialize + Send + 'static> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(match serde_json::to_value(&self.0) {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => CallToolResult::error(format!("failed to serialize the result: {e}")),
        })
    }
}
