//! Raw JSON-RPC for the load generator: request bytes pre-serialized around their id, and
//! the checks of the answers (a response with that id and a result, the echoed text in it),
//! from a line, a JSON body or a `text/event-stream` body. No SDK on this side.

use serde::Deserialize;
use serde_json::value::RawValue;

/// The legacy protocol revision the load generator negotiates.
pub const LEGACY_VERSION: &str = "2025-11-25";
/// The stateless protocol revision (no handshake; `_meta` and headers on every request).
pub const MODERN_VERSION: &str = "2026-07-28";
/// The text every `echo` call sends.
pub const ECHO_TEXT: &str = "hello, bench";
/// `notifications/initialized`.
pub const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A request serialized once, but for its numeric id: `prefix <id> suffix`.
#[derive(Debug, Clone)]
pub struct Template {
    prefix: Vec<u8>,
    suffix: Vec<u8>,
}

impl Template {
    /// The request `method` with `params` (JSON text, or none).
    pub fn new(method: &str, params: Option<&str>) -> Self {
        let prefix = br#"{"jsonrpc":"2.0","id":"#.to_vec();
        let mut suffix = format!(r#","method":"{method}""#).into_bytes();
        if let Some(params) = params {
            suffix.extend_from_slice(br#","params":"#);
            suffix.extend_from_slice(params.as_bytes());
        }
        suffix.push(b'}');
        Self { prefix, suffix }
    }

    /// Appends the request with `id` to `out`.
    pub fn write(&self, id: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
        out.extend_from_slice(&self.suffix);
    }

    /// The request with `id`, alone.
    pub fn bytes(&self, id: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.prefix.len() + self.suffix.len() + 20);
        self.write(id, &mut out);
        out
    }
}

/// `initialize` of [`LEGACY_VERSION`].
pub fn initialize() -> Template {
    Template::new(
        "initialize",
        Some(&format!(
            r#"{{"protocolVersion":"{LEGACY_VERSION}","capabilities":{{}},"clientInfo":{{"name":"loadgen","version":"0.0.0"}}}}"#
        )),
    )
}

/// `tools/call` of `echo` with [`ECHO_TEXT`].
pub fn echo() -> Template {
    Template::new(
        "tools/call",
        Some(&format!(
            r#"{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}"#
        )),
    )
}

/// `tools/call` of `progress` (`echo-ours` over HTTP) with [`ECHO_TEXT`] and a progress
/// token: two `notifications/progress`, then the result, [`PROGRESS_EVENTS`] SSE events.
pub fn progress() -> Template {
    Template::new(
        "tools/call",
        Some(&format!(
            r#"{{"_meta":{{"progressToken":1}},"name":"progress","arguments":{{"text":"{ECHO_TEXT}"}}}}"#
        )),
    )
}

/// The events of the SSE answer to [`progress`].
pub const PROGRESS_EVENTS: usize = 3;

/// `tools/call` of `echo` in the 2026-07-28 shape: `_meta` names the revision, the client
/// and its capabilities (the headers go with it; see [`modern_headers`]).
pub fn modern_echo() -> Template {
    Template::new(
        "tools/call",
        Some(&format!(
            r#"{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN_VERSION}","io.modelcontextprotocol/clientInfo":{{"name":"loadgen","version":"0.0.0"}},"io.modelcontextprotocol/clientCapabilities":{{}}}},"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}"#
        )),
    )
}

/// The headers a 2026-07-28 `tools/call` of `echo` carries.
pub fn modern_headers() -> [(&'static str, &'static str); 3] {
    [
        ("mcp-protocol-version", MODERN_VERSION),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ]
}

/// `tools/call` of `blob` asking for `bytes` bytes.
pub fn blob(bytes: usize) -> Template {
    Template::new(
        "tools/call",
        Some(&format!(
            r#"{{"name":"blob","arguments":{{"bytes":{bytes}}}}}"#
        )),
    )
}

/// `tools/list`.
pub fn tools_list() -> Template {
    Template::new("tools/list", None)
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolsPage {
    result: ToolsResult,
}

#[derive(Deserialize)]
struct ToolsResult {
    tools: Vec<serde::de::IgnoredAny>,
    #[serde(rename = "nextCursor", default)]
    next_cursor: Option<String>,
}

/// The number of tools in a `tools/list` response and its `nextCursor`.
pub fn tools_page(message: &[u8]) -> Result<(usize, Option<String>), String> {
    let page: ToolsPage = serde_json::from_slice(message)
        .map_err(|e| format!("not a tools/list result ({e}): {}", lossy(message)))?;
    Ok((page.result.tools.len(), page.result.next_cursor))
}

/// What a message from the server is.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// A response with a numeric id and a result.
    Result(u64),
    /// Anything else with an id (an error response, a request from the server); the text.
    Other(String),
    /// A message without an id (a notification): skip it.
    Notification,
}

/// Reads a message: a response with a result, or something else.
pub fn classify(message: &[u8]) -> Answer {
    let envelope: Envelope<'_> = match serde_json::from_slice(message) {
        Ok(e) => e,
        Err(e) => return Answer::Other(format!("not JSON-RPC ({e}): {}", lossy(message))),
    };
    let Some(id) = envelope.id else {
        return Answer::Notification;
    };
    match (id.get().parse::<u64>(), envelope.result, envelope.error) {
        (Ok(id), Some(_), None) => Answer::Result(id),
        (_, _, Some(error)) => Answer::Other(format!("error {}", error.get())),
        _ => Answer::Other(format!("unexpected message {}", lossy(message))),
    }
}

/// Checks that `message` answers request `id` with a result containing `expect` (the raw
/// bytes, e.g. `"hello, bench"` with its quotes).
pub fn check(message: &[u8], id: u64, expect: &[u8]) -> Result<(), String> {
    match classify(message) {
        Answer::Result(got) if got == id => {
            if expect.is_empty() || contains(message, expect) {
                Ok(())
            } else {
                Err(format!(
                    "the result of request {id} lacks {}",
                    lossy(expect)
                ))
            }
        }
        Answer::Result(got) => Err(format!("answer to request {got}, expected {id}")),
        Answer::Other(text) => Err(text),
        Answer::Notification => Err("a notification instead of the response".to_owned()),
    }
}

/// The JSON-RPC response in an HTTP answer: the body itself for `application/json`, or
/// for `text/event-stream` the first `data` of an event that is a response (priming
/// events with empty data and notifications are skipped).
pub fn http_message<'a>(content_type: &str, body: &'a [u8]) -> Result<&'a [u8], String> {
    if content_type.starts_with("application/json") {
        return Ok(body);
    }
    if !content_type.starts_with("text/event-stream") {
        return Err(format!("unexpected content type {content_type:?}"));
    }
    sse_data(body)
        .find(|data| !matches!(classify(data), Answer::Notification))
        .ok_or_else(|| format!("no response in the event stream {}", lossy(body)))
}

/// The `data` of each event of an SSE body (one-line data, as MCP servers send).
pub fn sse_data(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    body.split(|&b| b == b'\n').filter_map(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let data = line.strip_prefix(b"data:")?;
        let data = data.strip_prefix(b" ").unwrap_or(data);
        (!data.is_empty()).then_some(data)
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn lossy(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]);
    text.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let bytes = echo().bytes(42);
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value["id"], 42);
        assert_eq!(value["params"]["arguments"]["text"], ECHO_TEXT);
        let list: serde_json::Value = serde_json::from_slice(&tools_list().bytes(1)).unwrap();
        assert_eq!(
            list,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        );
        let modern: serde_json::Value = serde_json::from_slice(&modern_echo().bytes(3)).unwrap();
        assert_eq!(
            modern["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN_VERSION
        );
        let init: serde_json::Value = serde_json::from_slice(&initialize().bytes(0)).unwrap();
        assert_eq!(init["params"]["protocolVersion"], LEGACY_VERSION);
        let progress: serde_json::Value = serde_json::from_slice(&progress().bytes(4)).unwrap();
        assert_eq!(progress["params"]["_meta"]["progressToken"], 1);
        assert_eq!(progress["params"]["name"], "progress");
        let blob: serde_json::Value = serde_json::from_slice(&blob(10).bytes(0)).unwrap();
        assert_eq!(blob["params"]["arguments"]["bytes"], 10);
    }

    #[test]
    fn checks() {
        let ok = br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hello, bench"}]}}"#;
        assert_eq!(check(ok, 5, br#""hello, bench""#), Ok(()));
        assert!(check(ok, 6, b"").unwrap_err().contains("expected 6"));
        assert!(check(ok, 5, b"other").is_err());
        let err = br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"no"}}"#;
        assert!(check(err, 5, b"").unwrap_err().contains("-32602"));
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","method":"x"}"#),
            Answer::Notification
        );
        assert!(matches!(classify(b"nope"), Answer::Other(_)));
    }

    #[test]
    fn pages() {
        let page = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"2"}}"#;
        assert_eq!(tools_page(page), Ok((2, Some("2".to_owned()))));
        let last = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        assert_eq!(tools_page(last), Ok((0, None)));
        assert!(tools_page(b"{}").is_err());
    }

    #[test]
    fn sse_bodies() {
        let body = b"id: 0\ndata:\nretry: 3000\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n";
        assert_eq!(
            http_message("text/event-stream", body).unwrap(),
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#
        );
        assert_eq!(http_message("application/json", b"{}").unwrap(), b"{}");
        assert!(http_message("text/event-stream", b"data:\n\n").is_err());
        assert!(http_message("text/html", b"").is_err());
    }
}
