//! Requests of protocol revision 2026-07-28 on the shared endpoint: how they are told apart
//! from legacy traffic, the header checks the revision requires of a server, and the HTTP
//! status of their error responses.
//!
//! A POST without `Mcp-Session-Id` is a 2026-07-28 request when its body's `_meta` names a
//! protocol version, or its `MCP-Protocol-Version` header names a version that is not one of
//! the legacy ones (which have a handshake). It is then checked here, in this order, each
//! failure answered 400 with the JSON-RPC error the revision names: a single request (a
//! notification is accepted and dropped, as no session exists to take it); the
//! `MCP-Protocol-Version` header (-32020 if missing); the `_meta` fields the revision requires
//! (-32602); the header against `_meta` (-32020); `Mcp-Method` against the method and, for
//! `tools/call`, `prompts/get`, `resources/read` and the tasks extension's `tasks/get`,
//! `tasks/update` and `tasks/cancel`, `Mcp-Name` against the name, URI or task id
//! ([`mcp_name_param`](mcp_types::mcp_name_param); -32020; header names ignore case, values are decoded from `=?base64?...?=` and compared
//! exactly). Its `Mcp-Param-*` headers are decoded (-32020 for a value that does not decode)
//! and handed to the server as [`McpParamHeaders`], which checks them against the tool's
//! `x-mcp-header` parameters. Whether the version is supported is the server's to say.

use http::{HeaderMap, HeaderName, StatusCode};
use mcp_jsonrpc::{ErrorCode, ErrorObject, Message, Request};
use std::borrow::Cow;

use mcp_types::{
    CallTool, McpParamHeaders, PROTOCOL_VERSION_META_KEY, ProtocolVersion, Request as _,
};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::header_value;

/// `Mcp-Method`.
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The prefix of the `Mcp-Param-<Name>` headers (lower case, as `http` keeps names).
const MCP_PARAM: &str = "mcp-param-";

/// Why a 2026-07-28 request was refused before it reached the server: the HTTP status and
/// the JSON-RPC error.
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) error: ErrorObject,
}

fn mismatch(what: impl Into<String>) -> Refusal {
    Refusal {
        status: StatusCode::BAD_REQUEST,
        error: ErrorObject::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {}", what.into()),
        ),
    }
}

/// What the checks read of a request's params, borrowed from them: one parse that builds no
/// map (a 2026-07-28 `_meta` carries the client's capabilities and info, and parsing them into
/// values on every request cost more than the rest of the checks).
#[derive(Deserialize, Default)]
struct ParamsPeek<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaPeek<'a>>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(rename = "taskId", borrow, default)]
    task_id: Option<&'a RawValue>,
}

/// The members of `_meta` the checks read (`PROTOCOL_VERSION_META_KEY`,
/// `CLIENT_CAPABILITIES_META_KEY`), as raw JSON.
#[derive(Deserialize, Default)]
struct MetaPeek<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    capabilities: Option<&'a RawValue>,
}

impl<'a> ParamsPeek<'a> {
    /// The peek of `request`'s params, or `None` if they are not an object with an object
    /// `_meta` (when present).
    fn of(request: &'a Request) -> Option<Self> {
        match request.params.as_deref() {
            Some(params) => serde_json::from_str(params.get()).ok(),
            None => Some(ParamsPeek::default()),
        }
    }

    /// The top-level string member `field` (`name`, `uri` or `taskId`).
    fn field(&self, field: &str) -> Option<Cow<'a, str>> {
        let raw = match field {
            "name" => self.name,
            "uri" => self.uri,
            "taskId" => self.task_id,
            _ => None,
        }?;
        serde_json::from_str::<Cow<'a, str>>(raw.get()).ok()
    }
}

/// Whether a session-less POST is of the 2026-07-28 era (see the module docs).
pub(crate) fn is_modern(header: Option<&str>, msg: &Message) -> bool {
    // The header first: when it names a revision without `initialize`, the body need not be
    // scanned here (`check` reads it anyway).
    if header.is_some_and(|v| !ProtocolVersion::from(v).has_initialize()) {
        return true;
    }
    matches!(msg, Message::Request(request) if ParamsPeek::of(request)
        .and_then(|p| p.meta)
        .is_some_and(|m| m.version.is_some()))
}

/// Checks a 2026-07-28 request's headers against its body; returns the decoded `Mcp-Param-*`
/// headers of a `tools/call`.
pub(crate) fn check(
    headers: &HeaderMap,
    header_version: Option<&str>,
    request: &Request,
) -> Result<Option<McpParamHeaders>, Refusal> {
    let Some(header_version) = header_version else {
        return Err(mismatch("MCP-Protocol-Version header is required"));
    };
    let peek = ParamsPeek::of(request).unwrap_or_default();
    let meta = peek.meta.as_ref();
    let meta_version = meta
        .and_then(|m| m.version)
        .and_then(|v| serde_json::from_str::<Cow<'_, str>>(v.get()).ok());
    let has_capabilities = meta
        .and_then(|m| m.capabilities)
        .is_some_and(|c| c.get().starts_with('{'));
    let (Some(meta_version), true) = (meta_version.as_deref(), has_capabilities) else {
        return Err(Refusal {
            status: StatusCode::BAD_REQUEST,
            error: ErrorObject::invalid_params(format!(
                "Invalid params: _meta must carry {PROTOCOL_VERSION_META_KEY} and {}",
                mcp_types::CLIENT_CAPABILITIES_META_KEY
            )),
        });
    };
    if meta_version != header_version {
        return Err(mismatch(format!(
            "MCP-Protocol-Version header {header_version:?} does not match _meta {meta_version:?}"
        )));
    }
    let method = &*request.method;
    match single(headers, &MCP_METHOD)? {
        None => return Err(mismatch("Mcp-Method header is required")),
        Some(value) if value.trim_matches([' ', '\t']).as_bytes() != method.as_bytes() => {
            return Err(mismatch(format!(
                "Mcp-Method header {value:?} does not match the method {method:?}"
            )));
        }
        Some(_) => {}
    }
    if let Some(field) = mcp_types::mcp_name_param(method) {
        let body = peek.field(field);
        let Some(header) = headers.get(MCP_NAME) else {
            return Err(mismatch("Mcp-Name header is required"));
        };
        let decoded = header_value::decode(header.as_bytes())
            .map_err(|_| mismatch("Mcp-Name header does not decode"))?;
        if body.as_deref() != Some(decoded.as_str()) {
            return Err(mismatch(format!(
                "Mcp-Name header {decoded:?} does not match the request's {field}"
            )));
        }
    }
    if method != CallTool::METHOD {
        return Ok(None);
    }
    let mut params = McpParamHeaders::new();
    for (name, value) in headers {
        if let Some(param) = name.as_str().strip_prefix(MCP_PARAM) {
            let decoded = header_value::decode(value.as_bytes())
                .map_err(|_| mismatch(format!("Mcp-Param-{param} header does not decode")))?;
            params.insert(param, decoded);
        }
    }
    Ok(Some(params))
}

/// The value of a header that must appear at most once.
fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Result<Option<&'a str>, Refusal> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(mismatch(format!("{name} header appears more than once")));
    }
    first
        .map(|v| {
            v.to_str()
                .map_err(|_| mismatch(format!("{name} header is not text")))
        })
        .transpose()
}

/// The HTTP status of a 2026-07-28 response sent as plain JSON: the revision's client errors
/// are 400, an unknown method 404; everything else, errors included, 200.
pub(crate) fn status(body: &[u8]) -> StatusCode {
    // The body is the engine's own serialization, which writes an `"error"` member name as
    // those bytes (a string holding `"error"` has its quotes escaped): most answers are
    // results, and need no parse to say so.
    if memchr::memmem::find(body, b"\"error\"").is_none() {
        return StatusCode::OK;
    }
    #[derive(Deserialize)]
    struct Code {
        code: i32,
    }
    #[derive(Deserialize)]
    struct Reply {
        error: Option<Code>,
    }
    let Ok(Reply { error: Some(error) }) = serde_json::from_slice::<Reply>(body) else {
        return StatusCode::OK;
    };
    match ErrorCode(error.code) {
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::PARSE_ERROR => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn the_peek_reads_the_keys_the_revision_names() {
        let raw = format!(
            r#"{{"_meta": {{"{PROTOCOL_VERSION_META_KEY}": "2026-07-28",
                "{}": {{"x": 1}}}}, "name": "a\u0062c", "uri": 5}}"#,
            mcp_types::CLIENT_CAPABILITIES_META_KEY
        );
        let peek: ParamsPeek<'_> = serde_json::from_str(&raw).unwrap();
        let meta = peek.meta.as_ref().unwrap();
        assert_eq!(meta.version.unwrap().get(), r#""2026-07-28""#);
        assert_eq!(meta.capabilities.unwrap().get(), r#"{"x": 1}"#);
        // Escapes are decoded; a member that is not a string reads as absent.
        assert_eq!(peek.field("name").as_deref(), Some("abc"));
        assert_eq!(peek.field("uri"), None);
        assert_eq!(peek.field("taskId"), None);
    }

    fn request(method: &'static str, params: Value) -> Request {
        Request::new(
            mcp_jsonrpc::Id::Number(1),
            method,
            Some(serde_json::value::to_raw_value(&params).unwrap()),
        )
    }

    fn meta() -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}})
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (HeaderName::from_static(k), HeaderValue::from_static(v)))
            .collect()
    }

    fn code(r: Result<Option<McpParamHeaders>, Refusal>) -> i32 {
        match r {
            Ok(_) => 0,
            Err(e) => e.error.code.0,
        }
    }

    #[test]
    fn classification() {
        let modern = Message::Request(request("tools/list", json!({"_meta": meta()})));
        let legacy = Message::Request(request(
            "tools/list",
            json!({"_meta": {"progressToken": 1}}),
        ));
        assert!(is_modern(None, &modern));
        assert!(!is_modern(None, &legacy));
        assert!(!is_modern(Some("2025-11-25"), &legacy));
        assert!(
            is_modern(Some("2026-07-28"), &legacy),
            "the header names a modern version"
        );
        assert!(
            is_modern(Some("v999"), &legacy),
            "an unknown version is not a legacy one"
        );
    }

    #[test]
    fn header_checks() {
        let list = request("tools/list", json!({"_meta": meta()}));
        let ok = [("mcp-method", "tools/list")];
        assert_eq!(code(check(&headers(&ok), Some("2026-07-28"), &list)), 0);
        assert_eq!(code(check(&headers(&ok), None, &list)), -32020);
        assert_eq!(
            code(check(&headers(&[]), Some("2026-07-28"), &list)),
            -32020
        );
        assert_eq!(
            code(check(
                &headers(&[("mcp-method", "TOOLS/LIST")]),
                Some("2026-07-28"),
                &list
            )),
            -32020
        );
        assert_eq!(
            code(check(&headers(&ok), Some("2025-11-25"), &list)),
            -32020
        );
        let no_meta = request("tools/list", json!({}));
        assert_eq!(
            code(check(&headers(&ok), Some("2026-07-28"), &no_meta)),
            -32602
        );

        let call = request(
            "tools/call",
            json!({"name": "t", "arguments": {"r": "Hello"}, "_meta": meta()}),
        );
        let named = |name: &'static str, param: &'static str| {
            headers(&[
                ("mcp-method", "tools/call"),
                ("mcp-name", name),
                ("mcp-param-region", param),
            ])
        };
        let params = check(
            &named("  t  ", "=?base64?SGVsbG8=?="),
            Some("2026-07-28"),
            &call,
        )
        .ok()
        .flatten()
        .unwrap();
        assert_eq!(params.get("Region"), Some("Hello"));
        assert_eq!(
            code(check(&named("other", "x"), Some("2026-07-28"), &call)),
            -32020
        );
        assert_eq!(
            code(check(
                &named("t", "=?base64?SGVsbG8?="),
                Some("2026-07-28"),
                &call
            )),
            -32020
        );
        let unnamed = headers(&[("mcp-method", "tools/call")]);
        assert_eq!(code(check(&unnamed, Some("2026-07-28"), &call)), -32020);
    }

    #[test]
    fn statuses() {
        let reply = |code: i32| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#)
        };
        assert_eq!(status(reply(-32601).as_bytes()), StatusCode::NOT_FOUND);
        assert_eq!(status(reply(-32022).as_bytes()), StatusCode::BAD_REQUEST);
        assert_eq!(status(reply(-32602).as_bytes()), StatusCode::OK);
        assert_eq!(
            status(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            StatusCode::OK
        );
        // A result that mentions "error", in a string or as a member of its own, is a result.
        let text = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "result":
            {"content": [{"type": "text", "text": "\"error\": {\"code\": -32601}"}]}}))
        .unwrap();
        assert_eq!(status(&text), StatusCode::OK);
        let member = br#"{"jsonrpc":"2.0","id":1,"result":{"error":{"code":-32601}}}"#;
        assert_eq!(status(member), StatusCode::OK);
    }
}
