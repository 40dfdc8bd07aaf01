//! [`IntoToolResult`]: what a tool handler may return, and its conversions ([`Json`],
//! [`Structured`]).

use mcp_types::{CallToolResult, ContentBlock, ErrorCode, JsonObject};
use serde::Serialize;
#[cfg(feature = "schemars")]
use serde_json::Value;

use crate::error::{Error, HandlerError, IntoHandlerError};
#[cfg(feature = "schemars")]
use crate::schema::schema_object;

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
/// | `Result<T, E:` [`IntoHandlerError`]`>` | `T` as above; `Err` gives `isError: true` with the error's text |
///
/// A failing tool is a result, not a protocol error, so the model sees what went wrong. Two
/// errors are not tool failures, wherever they sit in the error's source chain:
/// [`Error::InputRequired`] goes to the router (see [`Context`](crate::Context)), and an
/// [`Error::Rpc`] with code -32042 (URL elicitation required) is sent as that JSON-RPC error.
/// To answer a call with another JSON-RPC error, refuse it in a [layer](crate::Tool::layer) or an
/// [extractor](crate::FromContext).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result: it does not implement `IntoToolResult`",
    label = "not a tool result",
    note = "a tool returns text (`String`, `&'static str`, a number), content blocks, \
            `Json(value)` for structured output, a `CallToolResult`, or a `Result` of one of \
            those",
    note = "to return a value of your own type as structured output, wrap it: `Json(value)` \
            (its type derives `Serialize` and `JsonSchema`)"
)]
pub trait IntoToolResult: Send + 'static {
    /// Converts the value. `Err` is for the errors that are not tool failures (see above).
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError>;

    /// The `outputSchema` implied by the type, if any.
    fn output_schema() -> Option<JsonObject> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::new(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::new(Vec::new()))
    }
}

macro_rules! text_results {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
                Ok(CallToolResult::text(self.to_string()))
            }
        }
    )*};
}

text_results!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl<T: IntoToolResult, E: IntoHandlerError> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => {
                let e = e.into_handler_error();
                if is_protocol_error(&e) {
                    Err(e)
                } else {
                    Ok(CallToolResult::error(e.to_string()))
                }
            }
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// Whether a tool's error is sent as a JSON-RPC error rather than as a failed result.
fn is_protocol_error(e: &HandlerError) -> bool {
    match e.as_mcp_error() {
        // On 2026-07-28 a missing capability is -32021; the router turns it back into a
        // failed result on earlier revisions.
        Some(Error::InputRequired | Error::CapabilityNotDeclared(_)) => true,
        Some(Error::Rpc(obj)) => obj.code == ErrorCode::URL_ELICITATION_REQUIRED,
        _ => false,
    }
}

/// Structured tool output with a schema: `T` becomes `structuredContent` (and, for clients
/// that read only `content`, a text block with its JSON), and `T`'s JSON Schema becomes the
/// tool's `outputSchema`. `T` must serialize to a JSON object.
///
/// ```
/// use mcp_server::{Json, Tool};
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
/// let tool = Tool::typed("weather", |q: Query| async move {
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
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Structured(self.0).into_tool_result()
    }

    fn output_schema() -> Option<JsonObject> {
        let schema = schema_object::<T>();
        (schema.get("type") == Some(&Value::String("object".to_owned()))).then_some(schema)
    }
}

/// Structured tool output without a derived schema: like [`Json`] but for any `Serialize`
/// type, leaving the `outputSchema` to [`Tool::output_schema`](crate::Tool::output_schema).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Structured<T>(pub T);

impl<T: Serialize + Send + 'static> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(match serde_json::to_value(&self.0) {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => CallToolResult::error(format!("failed to serialize the result: {e}")),
        })
    }
}
