//! Requests of protocol revision 2026-07-28: no session, and headers derived from the body.
//!
//! A request is sent this way when its `params._meta` names a protocol version of the
//! stateless era (`io.modelcontextprotocol/protocolVersion`, set by the client on every request
//! of that era). Its POST carries no `Mcp-Session-Id`; it carries `MCP-Protocol-Version` (that
//! version), `Mcp-Method`, `Mcp-Name` for `tools/call` and `prompts/get` (the name),
//! `resources/read` (the URI) and the tasks extension's `tasks/get`, `tasks/update` and
//! `tasks/cancel` (the task id), and for `tools/call` the `Mcp-Param-*` headers the client
//! attached as a [`McpParamHeaders`] request extension. Names and parameters that are not
//! plain visible ASCII go as `=?base64?...?=`.
//!
//! The answer is JSON or an SSE stream that is never resumed; an error status with a JSON-RPC
//! error body gives that error (say -32022 with the versions the server supports), one without
//! gives -32603 with `data.status`, so the client can tell a modern refusal from a server of the
//! other era. Cancelling such a request drops its exchange (closing the stream is the
//! revision's cancellation on HTTP); no `notifications/cancelled` is POSTed.

use std::sync::Arc;

use futures::StreamExt;
use mcp_jsonrpc::{Id, Request};
use mcp_types::{Era, McpParamHeaders, ProtocolVersion};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::Value;

use super::error::{Error, Result};
use super::shared::{Inbound, Outgoing, PROTOCOL_VERSION, Shared, Task};
use crate::header_value;

/// `Mcp-Method`.
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The prefix of the headers that mirror tool arguments.
const MCP_PARAM_PREFIX: &str = "mcp-param-";

/// The protocol version in `params._meta`, if any.
#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "_meta", default)]
    meta: Option<MetaVersion>,
}

#[derive(Deserialize)]
struct MetaVersion {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    protocol_version: Option<ProtocolVersion>,
}

/// The headers of `request` if it is a request of the stateless era, else `None`.
pub(crate) fn request_headers(request: &Request) -> Result<Option<HeaderMap>> {
    let Some(params) = request.params.as_deref() else {
        return Ok(None);
    };
    let version = match serde_json::from_str::<Envelope>(params.get()) {
        Ok(Envelope {
            meta: Some(MetaVersion {
                protocol_version: Some(version),
            }),
        }) if version.era() == Era::Stateless => version,
        _ => return Ok(None),
    };
    let mut headers = HeaderMap::new();
    headers.insert(PROTOCOL_VERSION, header(version.as_str())?);
    headers.insert(MCP_METHOD, header(&request.method)?);
    let name = match mcp_types::mcp_name_param(&request.method) {
        Some(field) => {
            let params: Value = serde_json::from_str(params.get()).map_err(Error::Encode)?;
            params.get(field).and_then(Value::as_str).map(str::to_owned)
        }
        None => None,
    };
    if let Some(name) = name {
        headers.insert(MCP_NAME, header(&header_value::encode(&name))?);
    }
    if let Some(params) = request.extensions.get::<McpParamHeaders>() {
        for (name, value) in params.iter() {
            let name = HeaderName::from_bytes(format!("{MCP_PARAM_PREFIX}{name}").as_bytes())
                .map_err(|e| Error::InvalidHeader(e.into()))?;
            headers.insert(name, header(&header_value::encode(value))?);
        }
    }
    Ok(Some(headers))
}

fn header(text: &str) -> Result<HeaderValue> {
    HeaderValue::from_str(text).map_err(|e| Error::InvalidHeader(e.into()))
}

impl Shared {
    /// Starts the exchange of a 2026-07-28 request as a task of `recv`, tagged with the
    /// request's id so that cancelling the request drops it.
    pub(crate) async fn send_modern(self: Arc<Self>, out: Outgoing, generation: u64) -> Result<()> {
        let request: Option<Id> = out.ids.first().cloned();
        let exchange = self.clone().exchange_modern(out, generation);
        let stream = futures::stream::once(exchange).filter_map(|()| std::future::ready(None));
        self.push(Inbound::Spawn(Task {
            generation,
            request,
            stream: stream.boxed(),
        }))
        .await;
        Ok(())
    }

    /// The POST of a 2026-07-28 request and its answer: JSON, an SSE stream, or an error
    /// response for the request.
    async fn exchange_modern(self: Arc<Self>, out: Outgoing, generation: u64) {
        let headers = out.modern.clone().unwrap_or_default();
        let resp = match self.post_with(&self.url, &out.body, headers).await {
            Ok(resp) => resp,
            Err(e) => {
                let _ = self.fail_or_err(&out.ids, e).await;
                return;
            }
        };
        if !resp.status().is_success() {
            let (error, rpc) = self.status_error(resp).await;
            tracing::debug!(error = %error, "the server refused a request");
            self.fail(&out.ids, rpc.unwrap_or_else(|| error.to_error_object()))
                .await;
            return;
        }
        self.read_response(resp, &out.ids, generation, true).await;
    }
}

#[cfg(test)]
mod tests {
    use mcp_jsonrpc::Request;
    use serde_json::json;

    use super::*;

    fn request(method: &'static str, params: serde_json::Value) -> Request {
        Request::new(
            1,
            method,
            Some(serde_json::value::to_raw_value(&params).unwrap()),
        )
    }

    fn modern_meta() -> serde_json::Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})
    }

    #[test]
    fn a_request_without_a_stateless_version_is_not_modern() {
        let legacy = request("tools/list", json!({"_meta": {"progressToken": 1}}));
        assert!(request_headers(&legacy).unwrap().is_none());
        let stateful = request(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}}),
        );
        assert!(request_headers(&stateful).unwrap().is_none());
        assert!(
            request_headers(&Request::new(1, "ping", None))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn headers_mirror_the_body() {
        let mut call = request(
            "tools/call",
            json!({"_meta": modern_meta(), "name": "héllo", "arguments": {"region": "eu"}}),
        );
        let mut params = McpParamHeaders::new();
        params.insert("Region", "eu");
        params.insert("Note", " spaced ");
        call.extensions.insert(params);
        let headers = request_headers(&call).unwrap().unwrap();
        assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
        assert_eq!(headers["mcp-method"], "tools/call");
        assert_eq!(headers["mcp-name"], "=?base64?aMOpbGxv?=");
        assert_eq!(headers["mcp-param-region"], "eu");
        assert_eq!(headers["mcp-param-note"], "=?base64?IHNwYWNlZCA=?=");

        let read = request(
            "resources/read",
            json!({"_meta": modern_meta(), "uri": "file:///a.txt"}),
        );
        let headers = request_headers(&read).unwrap().unwrap();
        assert_eq!(headers["mcp-name"], "file:///a.txt");

        let get = request(
            "tasks/get",
            json!({"_meta": modern_meta(), "taskId": "task-1"}),
        );
        let headers = request_headers(&get).unwrap().unwrap();
        assert_eq!(headers["mcp-name"], "task-1");

        let list = request("tools/list", json!({"_meta": modern_meta()}));
        let headers = request_headers(&list).unwrap().unwrap();
        assert!(headers.get("mcp-name").is_none());
        assert_eq!(headers["mcp-method"], "tools/list");
    }
}
