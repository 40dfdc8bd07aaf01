//! The floors' JSON-RPC echo: what `floor-stdio` does per line and `floor-http` per POST body.
//!
//! It parses the request with serde_json (borrowing, as a fast hand-written server would),
//! answers `initialize`, `ping`, `tools/list` and `tools/call` of `echo` and `blob` with the
//! same shapes as an MCP server, and writes the response with serde_json. It keeps no state:
//! no sessions, no version negotiation beyond echoing the requested version, no schema
//! validation. That is the floor the SDKs' ratios are against.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::args::blob_text;

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Arguments<'a>,
}

#[derive(Deserialize, Default)]
struct Arguments<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    bytes: Option<usize>,
}

#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Cow<'a, str>,
}

#[derive(Serialize)]
struct Response<'a, R: Serialize> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: R,
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct CallResult<'a> {
    content: [Text<'a>; 1],
    #[serde(rename = "isError")]
    is_error: bool,
}

/// The floor server: its tool list, built once.
#[derive(Debug)]
pub struct Floor {
    tools: Value,
}

/// The JSON of a null id, for errors about requests whose id could not be read.
fn null_id() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).unwrap_or_else(|_| unreachable!())
}

impl Floor {
    /// A floor listing `echo`, `blob` and `extra_tools` tools `tool_<i>`.
    pub fn new(extra_tools: usize) -> Self {
        let mut tools = vec![
            json!({"name": "echo", "description": "Echoes the text",
                   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                   "required": ["text"]}}),
            json!({"name": "blob", "description": "Returns a text of that many bytes",
                   "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}},
                                   "required": ["bytes"]}}),
        ];
        tools.extend((0..extra_tools).map(extra_tool));
        Self {
            tools: json!({ "tools": tools }),
        }
    }

    /// Answers one message into `out` (appending the response without a newline); returns
    /// false, writing nothing, for a notification.
    pub fn answer(&self, message: &[u8], out: &mut Vec<u8>) -> bool {
        let request: Request<'_> = match serde_json::from_slice(message) {
            Ok(r) => r,
            Err(e) => {
                error(out, &null_id(), -32700, &format!("Parse error: {e}"));
                return true;
            }
        };
        let Some(id) = request.id else {
            return false;
        };
        let params = request.params.map_or("{}", RawValue::get);
        match &*request.method {
            "tools/call" => match serde_json::from_str::<CallParams<'_>>(params) {
                Ok(call) if call.name == "echo" => {
                    let text = call.arguments.text.unwrap_or_default();
                    call_result(out, id, &text);
                }
                Ok(call) if call.name == "blob" => {
                    let text = blob_text(call.arguments.bytes.unwrap_or(0));
                    call_result(out, id, &text);
                }
                Ok(call) if call.name.starts_with("tool_") => call_result(out, id, "ok"),
                Ok(call) => error(out, id, -32602, &format!("Unknown tool {}", call.name)),
                Err(e) => error(out, id, -32602, &format!("Invalid params: {e}")),
            },
            "tools/list" => write(out, id, &self.tools),
            "initialize" => {
                let version = serde_json::from_str::<InitializeParams<'_>>(params)
                    .map_or(Cow::Borrowed("2025-11-25"), |p| p.protocol_version);
                let result = json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "floor", "version": "0.0.0"}
                });
                write(out, id, &result);
            }
            "ping" => write(out, id, json!({})),
            other => error(out, id, -32601, &format!("Method not found: {other}")),
        }
        true
    }
}

fn extra_tool(i: usize) -> Value {
    json!({
        "name": format!("tool_{i}"),
        "description": format!("Extra tool number {i}"),
        "inputSchema": {"type": "object",
                        "properties": {"text": {"type": "string", "description": "Some text"}},
                        "required": ["text"]}
    })
}

fn write<R: Serialize>(out: &mut Vec<u8>, id: &RawValue, result: R) {
    let response = Response {
        jsonrpc: "2.0",
        id,
        result,
    };
    // Writing to a Vec cannot fail, and these types always serialize.
    let _ = serde_json::to_writer(out, &response);
}

fn call_result(out: &mut Vec<u8>, id: &RawValue, text: &str) {
    let result = CallResult {
        content: [Text { kind: "text", text }],
        is_error: false,
    };
    write(out, id, result);
}

fn error(out: &mut Vec<u8>, id: &RawValue, code: i32, message: &str) {
    let response = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let _ = serde_json::to_writer(out, &response);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(floor: &Floor, message: &str) -> Option<Value> {
        let mut out = Vec::new();
        floor
            .answer(message.as_bytes(), &mut out)
            .then(|| serde_json::from_slice(&out).unwrap())
    }

    #[test]
    fn echo_blob_list_initialize_and_errors() {
        let floor = Floor::new(2);
        let echo = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\"b"}}}"#;
        assert_eq!(
            answer(&floor, echo).unwrap(),
            json!({"jsonrpc": "2.0", "id": 7,
                   "result": {"content": [{"type": "text", "text": "a\"b"}], "isError": false}})
        );
        let blob = r#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"blob","arguments":{"bytes":5}}}"#;
        assert_eq!(
            answer(&floor, blob).unwrap()["result"]["content"][0]["text"],
            "xxxxx"
        );
        let list = answer(&floor, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
        assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 4);
        assert_eq!(list["result"]["tools"][3]["name"], "tool_1");
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#;
        assert_eq!(
            answer(&floor, init).unwrap()["result"]["protocolVersion"],
            "2025-06-18"
        );
        assert!(
            answer(
                &floor,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            )
            .is_none()
        );
        assert_eq!(answer(&floor, "{oops").unwrap()["error"]["code"], -32700);
        assert_eq!(
            answer(&floor, r#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#).unwrap()["error"]["code"],
            -32601
        );
    }
}
