//! What the client remembers of the listed tools besides their output schemas: their
//! `x-mcp-header` parameters (2026-07-28: a call carries them as `Mcp-Param-*` headers over
//! Streamable HTTP, and a tool whose annotations are invalid is dropped from the list, as the
//! revision requires of clients), and whether they run as tasks (`execution.taskSupport`).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use mcp_types::{HeaderParam, JsonObject, McpParamHeaders, Tool, ToolTaskSupport};

/// What the client knows of one listed tool.
struct Known {
    header_params: Vec<HeaderParam>,
    task_support: Option<ToolTaskSupport>,
}

/// The tools seen in the last `tools/list`.
#[derive(Default)]
pub(crate) struct KnownTools {
    tools: Mutex<HashMap<String, Known>>,
}

impl KnownTools {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Known>> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The tool's `execution.taskSupport`, if it was listed with one.
    pub(crate) fn task_support(&self, name: &str) -> Option<ToolTaskSupport> {
        self.lock().get(name).and_then(|k| k.task_support)
    }

    /// Records a page of `tools/list` (the first page replaces what was known); with
    /// `drop_invalid`, removes from it the tools whose `x-mcp-header` annotations are invalid.
    pub(crate) fn update(&self, tools: &mut Vec<Tool>, first_page: bool, drop_invalid: bool) {
        let mut known = self.lock();
        if first_page {
            known.clear();
        }
        tools.retain(|tool| match tool.header_params() {
            Ok(header_params) => {
                let task_support = tool.execution.as_ref().and_then(|e| e.task_support);
                known.insert(
                    tool.name.clone(),
                    Known {
                        header_params,
                        task_support,
                    },
                );
                true
            }
            Err(e) if drop_invalid => {
                tracing::warn!(tool = %tool.name, error = %e, "dropping a tool with invalid x-mcp-header annotations");
                false
            }
            Err(_) => true,
        });
    }

    /// Whether the tool `name` was listed.
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.lock().contains_key(name)
    }

    /// The `Mcp-Param-*` headers of a call of `name` with `arguments`; `None` if the tool
    /// has no header parameter with a value there (or was not listed).
    pub(crate) fn for_call(&self, name: &str, arguments: &JsonObject) -> Option<McpParamHeaders> {
        let known = self.lock();
        let headers = McpParamHeaders::for_call(&known.get(name)?.header_params, arguments);
        (!headers.is_empty()).then_some(headers)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(name: &str, schema: serde_json::Value) -> Tool {
        Tool::new(name, serde_json::from_value(schema).unwrap())
    }

    #[test]
    fn invalid_tools_are_dropped_and_valid_ones_give_headers() {
        let headers = KnownTools::default();
        let mut tools = vec![
            tool(
                "ok",
                json!({"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"}}}),
            ),
            tool(
                "bad",
                json!({"type": "object", "properties": {
                    "n": {"type": "number", "x-mcp-header": "N"}}}),
            ),
        ];
        let mut kept = tools.clone();
        headers.update(&mut kept, true, true);
        assert_eq!(kept.len(), 1);
        assert!(headers.knows("ok") && !headers.knows("bad"));
        let args = json!({"region": "eu"});
        let sent = headers.for_call("ok", args.as_object().unwrap()).unwrap();
        assert_eq!(sent.get("region"), Some("eu"));
        assert!(headers.for_call("ok", &JsonObject::new()).is_none());

        // Without dropping (the handshake era) the list is left alone.
        headers.update(&mut tools, true, false);
        assert_eq!(tools.len(), 2);
    }
}
