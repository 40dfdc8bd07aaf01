//! The `x-mcp-header` parameters of the stdio server's tools (2026-07-28 Streamable HTTP).
//!
//! A server of that revision checks a `tools/call`'s `Mcp-Param-*` headers against the
//! called tool's `x-mcp-header` parameters. Behind the proxy the stdio server never sees the
//! HTTP headers, so the proxy checks them itself ([`check`]): it remembers the parameters of
//! each tool it saw listed ([`ToolHeaders`], filled from the `tools/list` results it relays
//! and from its own listing when a call names a tool it has not seen). The other way, on a
//! host's stdio (`mcp proxy --url`), it derives the headers a call must carry from the same
//! table ([`ToolHeaders::for_call`]).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use mcp_jsonrpc::{ErrorCode, ErrorObject};
use mcp_types::{HeaderParam, JsonObject, McpParamHeaders, Tool};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The most tools remembered; past it, the table starts over (a listing refills it).
pub(crate) const MAX_TOOLS: usize = 4096;

/// The `x-mcp-header` parameters of each tool seen, by name (tools without any are
/// remembered too, as an empty list, so that a call of one needs no listing).
#[derive(Debug, Default)]
pub(crate) struct ToolHeaders {
    tools: Mutex<HashMap<String, Vec<HeaderParam>>>,
}

/// What a listing page is read as: its tools, and whether more pages follow.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolsPage {
    #[serde(default)]
    tools: Vec<serde_json::Value>,
    #[serde(default)]
    pub(crate) next_cursor: Option<String>,
}

impl ToolHeaders {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<HeaderParam>>> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the tools of one `tools/list` result (any revision's); returns the page, or
    /// `None` if it does not read as one. A tool whose annotations break the rules is left
    /// out (a client drops such a tool, so no call of it carries headers).
    pub(crate) fn observe(&self, result: &RawValue) -> Option<ToolsPage> {
        let page: ToolsPage = serde_json::from_str(result.get()).ok()?;
        let mut tools = self.lock();
        for value in &page.tools {
            let Ok(tool) = serde_json::from_value::<Tool>(value.clone()) else {
                continue;
            };
            if tools.len() >= MAX_TOOLS && !tools.contains_key(&tool.name) {
                tools.clear();
            }
            match tool.header_params() {
                Ok(params) => {
                    tools.insert(tool.name, params);
                }
                Err(e) => {
                    tracing::debug!(tool = %tool.name, "ignoring the tool's x-mcp-header: {e}");
                    tools.remove(&tool.name);
                }
            }
        }
        Some(page)
    }

    /// The parameters of tool `name`, if it was seen.
    pub(crate) fn get(&self, name: &str) -> Option<Vec<HeaderParam>> {
        self.lock().get(name).cloned()
    }

    /// Forgets every tool (the list changed).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    /// The `Mcp-Param-*` headers a call of `name` with `arguments` carries, if the tool is
    /// known and has any.
    pub(crate) fn for_call(&self, name: &str, arguments: &JsonObject) -> Option<McpParamHeaders> {
        let params = self.get(name)?;
        let headers = McpParamHeaders::for_call(&params, arguments);
        (!headers.is_empty()).then_some(headers)
    }
}

/// Checks the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` against its arguments, as a
/// server of the revision does ([`McpParamHeaders::check`]), as its -32020 error.
pub(crate) fn check(
    params: &[HeaderParam],
    arguments: Option<&JsonObject>,
    headers: &McpParamHeaders,
) -> Result<(), ErrorObject> {
    headers
        .check(params, arguments)
        .map_err(|e| ErrorObject::new(ErrorCode::HEADER_MISMATCH, format!("Header mismatch: {e}")))
}

/// The `name` and `arguments` of a `tools/call`'s params.
#[derive(Deserialize, Default)]
pub(crate) struct CallTarget {
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) arguments: Option<JsonObject>,
}

impl CallTarget {
    /// Reads them from raw params; defaults when they do not read.
    pub(crate) fn of(params: Option<&RawValue>) -> Self {
        params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn raw(v: serde_json::Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    #[test]
    fn listed_tools_are_remembered_and_checked() {
        let table = ToolHeaders::default();
        let page = table
            .observe(&raw(json!({"tools": [
                {"name": "plain", "inputSchema": {"type": "object"}},
                {"name": "region", "inputSchema": {"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"}}}},
                {"name": "broken", "inputSchema": {"type": "object", "properties": {
                    "n": {"type": "number", "x-mcp-header": "N"}}}},
                {"no": "tool"}
            ], "nextCursor": "2"})))
            .unwrap();
        assert_eq!(page.next_cursor.as_deref(), Some("2"));
        assert_eq!(table.get("plain"), Some(vec![]));
        assert!(table.get("broken").is_none());
        let params = table.get("region").unwrap();
        let args = json!({"region": "eu"});
        let args = args.as_object();
        let mut headers = McpParamHeaders::new();
        assert_eq!(
            check(&params, args, &headers).unwrap_err().code,
            ErrorCode::HEADER_MISMATCH
        );
        headers.insert("region", "eu");
        assert!(check(&params, args, &headers).is_ok());
        assert!(check(&params, None, &headers).is_err());
        headers.insert("REGION", "us");
        assert!(check(&params, args, &headers).is_err());
        assert_eq!(
            table
                .for_call("region", args.unwrap())
                .unwrap()
                .get("Region"),
            Some("eu")
        );
        assert!(table.for_call("plain", args.unwrap()).is_none());
        table.clear();
        assert!(table.get("plain").is_none());
        assert!(table.observe(&raw(json!([1]))).is_none());
    }

    #[test]
    fn the_table_is_bounded() {
        let table = ToolHeaders::default();
        for chunk in 0..3 {
            let tools: Vec<_> = (0..MAX_TOOLS / 2)
                .map(
                    |i| json!({"name": format!("t{chunk}-{i}"), "inputSchema": {"type": "object"}}),
                )
                .collect();
            table.observe(&raw(json!({ "tools": tools })));
        }
        assert!(table.lock().len() <= MAX_TOOLS);
    }
}
