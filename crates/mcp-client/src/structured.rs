//! A tool's `structuredContent` read as a Rust type: [`Client::call_tool_structured`] and
//! [`decode_structured`].

use mcp_types::{CallToolResult, ContentBlock};
use serde::de::DeserializeOwned;

use crate::arguments::IntoCallToolParams;
use crate::client::Client;
use crate::error::{Error, Result};

impl Client {
    /// Calls a tool and reads its `structuredContent` as a `T`.
    ///
    /// It is [`call_tool`](Self::call_tool) (so a declared `outputSchema` is checked first),
    /// then [`decode_structured`] of the result: a tool failure (`isError: true`), a result
    /// without `structuredContent` and content that does not deserialize into `T` are errors.
    /// Use [`call_tool`](Self::call_tool) for the whole result.
    ///
    /// ```
    /// use mcp_client::Client;
    /// use mcp_server::{Json, Server, Tool};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    /// struct Sum {
    ///     total: i64,
    /// }
    ///
    /// #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    /// struct Add {
    ///     a: i64,
    ///     b: i64,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let add = Tool::typed("add", |args: Add| async move { Json(Sum { total: args.a + args.b }) });
    /// let server = Server::builder().name("calc").version("1.0").tool(add).build();
    /// let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    /// tokio::spawn(async move { server.serve(server_end).await });
    /// let (client, connection) = Client::builder().connect(client_end).await?;
    /// tokio::spawn(connection);
    ///
    /// let sum: Sum = client.call_tool_structured(("add", Add { a: 2, b: 3 })).await?;
    /// assert_eq!(sum.total, 5);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`call_tool`](Self::call_tool), plus [`Error::ToolFailed`] (with the result's
    /// text), [`Error::NoStructuredContent`] and [`Error::InvalidStructuredContent`].
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the call on the server.
    pub async fn call_tool_structured<T: DeserializeOwned>(
        &self,
        call: impl IntoCallToolParams,
    ) -> Result<T> {
        let params = call.into_call_tool_params()?;
        let tool = params.name.clone();
        let result = self.call_tool(params).await?;
        decode_structured(&tool, &result)
    }
}

/// Reads the `structuredContent` of a result of tool `tool` as a `T`, as
/// [`Client::call_tool_structured`] does: for a result you already have, from
/// [`Client::call_tool_with`], [`Client::task_result`] or a task's outcome.
///
/// ```
/// use mcp_client::types::CallToolResult;
/// use serde::Deserialize;
/// use serde_json::json;
///
/// #[derive(Debug, Deserialize)]
/// struct Weather {
///     temperature: f64,
/// }
///
/// let result = CallToolResult::structured(json!({"temperature": 21.5}));
/// let weather: Weather = mcp_client::decode_structured("weather", &result)?;
/// assert_eq!(weather.temperature, 21.5);
///
/// let failed = CallToolResult::error("no such city");
/// let e = mcp_client::decode_structured::<Weather>("weather", &failed).unwrap_err();
/// assert_eq!(e.to_string(), r#"tool "weather" failed: no such city"#);
/// # Ok::<(), mcp_client::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::ToolFailed`] for a result with `isError: true` (carrying its text),
/// [`Error::NoStructuredContent`] for one without `structuredContent`,
/// [`Error::InvalidStructuredContent`] if the content does not deserialize into `T`.
pub fn decode_structured<T: DeserializeOwned>(tool: &str, result: &CallToolResult) -> Result<T> {
    let value = structured_value(tool, result)?;
    T::deserialize(value).map_err(|source| Error::InvalidStructuredContent {
        tool: tool.to_owned(),
        source,
    })
}

/// The `structuredContent` of a successful result.
fn structured_value<'a>(tool: &str, result: &'a CallToolResult) -> Result<&'a serde_json::Value> {
    if result.is_error() {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        return Err(Error::ToolFailed {
            tool: tool.to_owned(),
            message: texts.join("\n"),
        });
    }
    result
        .structured_content
        .as_ref()
        .ok_or_else(|| Error::NoStructuredContent {
            tool: tool.to_owned(),
        })
}
