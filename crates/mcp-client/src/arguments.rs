//! What a tool call or a prompt request accepts: [`IntoCallToolParams`] and
//! [`IntoGetPromptParams`], with their arguments given as any `Serialize` value.

use std::collections::BTreeMap;

use mcp_types::{CallToolRequestParams, GetPromptRequestParams, JsonObject};
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};

/// What [`Client::call_tool`](crate::Client::call_tool) and its siblings accept: the tool's
/// name alone, its name and arguments as a tuple, or whole [`CallToolRequestParams`].
///
/// - `"ping"`, a `String` or a `&String`: the tool's name, no arguments.
/// - `(name, arguments)`: the name (anything `Into<String>`) and the arguments, any
///   [`Serialize`] value that serializes to a JSON object: a struct deriving `Serialize`, a
///   map with string keys, `serde_json::json!({..})`, a [`JsonObject`]. `()`, `None` and
///   JSON `null` mean no arguments.
/// - [`CallToolRequestParams`], as is (for `_meta` or members this crate does not know).
///
/// The conversion runs before anything is sent: arguments that serialize to something other
/// than an object (an array, a number, a string) or fail to serialize (a map whose keys are
/// not strings) fail the call with [`Error::InvalidArguments`].
///
/// ```
/// use mcp_client::IntoCallToolParams;
/// use serde::Serialize;
/// use serde_json::json;
///
/// #[derive(Serialize)]
/// struct AddNote {
///     text: String,
/// }
///
/// let params = ("add_note", AddNote { text: "milk".into() }).into_call_tool_params()?;
/// assert_eq!(params.name, "add_note");
/// assert_eq!(params.arguments.unwrap()["text"], "milk");
///
/// let params = ("add", json!({"a": 1, "b": 2})).into_call_tool_params()?;
/// assert_eq!(params.arguments.unwrap()["b"], 2);
///
/// assert!("ping".into_call_tool_params()?.arguments.is_none());
///
/// let refused = ("add", [1, 2]).into_call_tool_params().unwrap_err();
/// assert_eq!(
///     refused.to_string(),
///     r#"invalid arguments for tool "add": the arguments must be a JSON object, not an array"#
/// );
/// # Ok::<(), mcp_client::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot name a tool call: it does not implement `IntoCallToolParams`",
    label = "not a tool call",
    note = "pass the tool's name (`\"ping\"`, a `String`), its name and arguments as a tuple \
            (`(\"add\", Args {{ a: 1, b: 2 }})` or `(\"add\", json!({{\"a\": 1, \"b\": 2}}))`, \
            the arguments any `Serialize` value that serializes to a JSON object), or a \
            `CallToolRequestParams`"
)]
pub trait IntoCallToolParams {
    /// The params of the `tools/call` request.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArguments`] if the arguments do not serialize to a JSON object.
    fn into_call_tool_params(self) -> Result<CallToolRequestParams>;
}

impl IntoCallToolParams for CallToolRequestParams {
    fn into_call_tool_params(self) -> Result<CallToolRequestParams> {
        Ok(self)
    }
}

impl IntoCallToolParams for &str {
    fn into_call_tool_params(self) -> Result<CallToolRequestParams> {
        Ok(CallToolRequestParams::new(self))
    }
}

impl IntoCallToolParams for String {
    fn into_call_tool_params(self) -> Result<CallToolRequestParams> {
        Ok(CallToolRequestParams::new(self))
    }
}

impl IntoCallToolParams for &String {
    fn into_call_tool_params(self) -> Result<CallToolRequestParams> {
        Ok(CallToolRequestParams::new(self.as_str()))
    }
}

impl<N: Into<String>, A: Serialize> IntoCallToolParams for (N, A) {
    fn into_call_tool_params(self) -> Result<CallToolRequestParams> {
        let (name, arguments) = self;
        let name = name.into();
        match object(&arguments, "tool", &name)? {
            Some(arguments) => Ok(CallToolRequestParams::with_arguments(name, arguments)),
            None => Ok(CallToolRequestParams::new(name)),
        }
    }
}

/// What [`Client::get_prompt`](crate::Client::get_prompt) accepts: the prompt's name alone,
/// its name and arguments as a tuple, or whole [`GetPromptRequestParams`].
///
/// - `"greeting"`, a `String` or a `&String`: the prompt's name, no arguments.
/// - `(name, arguments)`: the name (anything `Into<String>`) and the arguments, any
///   [`Serialize`] value that serializes to a JSON object. A prompt's argument values are
///   strings on the wire: a string stays as it is, a number or a boolean becomes its JSON
///   text (`3`, `2.5`, `true`), a `null` (a `None` field) is left out. `()`, `None` and JSON
///   `null` mean no arguments.
/// - [`GetPromptRequestParams`], as is.
///
/// The conversion runs before anything is sent: arguments that are not an object, or hold
/// an array or an object as a value, or fail to serialize, fail the request with
/// [`Error::InvalidArguments`].
///
/// ```
/// use mcp_client::IntoGetPromptParams;
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Review {
///     language: &'static str,
///     max_comments: u32,
///     focus: Option<String>,
/// }
///
/// let args = Review { language: "rust", max_comments: 5, focus: None };
/// let params = ("code_review", args).into_get_prompt_params()?;
/// let arguments = params.arguments.unwrap();
/// assert_eq!(arguments["language"], "rust");
/// assert_eq!(arguments["max_comments"], "5");
/// assert!(!arguments.contains_key("focus"));
/// # Ok::<(), mcp_client::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot name a prompt: it does not implement `IntoGetPromptParams`",
    label = "not a prompt request",
    note = "pass the prompt's name (`\"greeting\"`, a `String`), its name and arguments as a \
            tuple (`(\"review\", Args {{ language: \"rust\" }})` or \
            `(\"review\", json!({{\"language\": \"rust\"}}))`, the arguments any `Serialize` \
            value that serializes to a JSON object of strings, numbers or booleans), or a \
            `GetPromptRequestParams`"
)]
pub trait IntoGetPromptParams {
    /// The params of the `prompts/get` request.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArguments`] if the arguments do not serialize to a JSON object whose
    /// values are strings, numbers, booleans or `null`.
    fn into_get_prompt_params(self) -> Result<GetPromptRequestParams>;
}

impl IntoGetPromptParams for GetPromptRequestParams {
    fn into_get_prompt_params(self) -> Result<GetPromptRequestParams> {
        Ok(self)
    }
}

impl IntoGetPromptParams for &str {
    fn into_get_prompt_params(self) -> Result<GetPromptRequestParams> {
        Ok(GetPromptRequestParams::new(self))
    }
}

impl IntoGetPromptParams for String {
    fn into_get_prompt_params(self) -> Result<GetPromptRequestParams> {
        Ok(GetPromptRequestParams::new(self))
    }
}

impl IntoGetPromptParams for &String {
    fn into_get_prompt_params(self) -> Result<GetPromptRequestParams> {
        Ok(GetPromptRequestParams::new(self.as_str()))
    }
}

impl<N: Into<String>, A: Serialize> IntoGetPromptParams for (N, A) {
    fn into_get_prompt_params(self) -> Result<GetPromptRequestParams> {
        let (name, arguments) = self;
        let name = name.into();
        let Some(object) = object(&arguments, "prompt", &name)? else {
            return Ok(GetPromptRequestParams::new(name));
        };
        let mut strings = BTreeMap::new();
        for (key, value) in object {
            let text = match value {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => continue,
                other @ (Value::Array(_) | Value::Object(_)) => {
                    let reason = format!(
                        "argument {key:?} must be a string, a number or a boolean, not {}",
                        kind(&other)
                    );
                    return Err(invalid("prompt", name, reason, None));
                }
            };
            strings.insert(key, text);
        }
        Ok(GetPromptRequestParams::with_arguments(name, strings))
    }
}

/// `arguments` as a JSON object; `None` for `null` (no arguments).
fn object<A: Serialize>(arguments: &A, of: &'static str, name: &str) -> Result<Option<JsonObject>> {
    match serde_json::to_value(arguments) {
        Ok(Value::Object(object)) => Ok(Some(object)),
        Ok(Value::Null) => Ok(None),
        Ok(other) => {
            let reason = format!("the arguments must be a JSON object, not {}", kind(&other));
            Err(invalid(of, name.to_owned(), reason, None))
        }
        Err(e) => {
            let reason = "the arguments must serialize to a JSON object".to_owned();
            Err(invalid(of, name.to_owned(), reason, Some(e)))
        }
    }
}

fn invalid(
    of: &'static str,
    name: String,
    reason: String,
    source: Option<serde_json::Error>,
) -> Error {
    Error::InvalidArguments {
        of,
        name,
        reason,
        source,
    }
}

/// What a JSON value is, for a message.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
