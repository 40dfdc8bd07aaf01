//! `mcp proxy --url URL`: a remote Streamable HTTP server offered on this process's stdio,
//! for a host that only spawns programs.
//!
//! Messages are relayed verbatim between stdio and `mcp-transport-http`'s client transport,
//! which tells the eras apart per request: a host of the handshake era gets a session (and
//! the 2024-11-05 HTTP+SSE fallback), a host of 2026-07-28 sends stateless requests. The
//! proxy adds what a host on stdio cannot give the transport: the `Mcp-Param-*` headers of a
//! 2026-07-28 `tools/call`, from the tool's `x-mcp-header` parameters as the remote server
//! listed them (the `tools/list` results relayed are watched for them, see
//! [`ToolHeaders`]). It ends when the host closes stdin (the session is then ended with
//! DELETE) or the remote server cannot be reached any more.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context as _;
use mcp_jsonrpc::{Id, Message, Transport};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_transport_stdio::StdioTransport;
use mcp_types::PROTOCOL_VERSION_META_KEY;

use super::headers::{CallTarget, ToolHeaders};
use super::relay::{self, End, Hooks};

/// The most `tools/list` requests in flight whose results are watched.
const MAX_WATCHED: usize = 64;

/// Relays between stdio (side A, the host) and the remote server (side B).
pub(crate) async fn run(url: &str, headers: &[(String, String)]) -> anyhow::Result<()> {
    let mut builder = StreamableHttpClientTransport::builder(url);
    for (name, value) in headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let mut remote = builder
        .build()
        .with_context(|| format!("cannot reach {url}"))?;
    let mut stdio = StdioTransport::stdio().context("cannot use this process's stdio")?;
    let mut hooks = HeaderHooks::default();
    let end = relay::relay(&mut stdio, &mut remote, &mut hooks).await;
    let _ = remote.close().await;
    let _ = stdio.close().await;
    match end {
        End::A(Ok(())) => Ok(()),
        End::A(Err(e)) => Err(anyhow::anyhow!("stdio failed: {e}")),
        End::B(Ok(())) => Err(anyhow::anyhow!("{url} ended the connection")),
        End::B(Err(e)) => Err(anyhow::anyhow!("{url}: {e}")),
    }
}

/// Watches `tools/list` results and adds the `Mcp-Param-*` headers to 2026-07-28 calls.
#[derive(Default)]
struct HeaderHooks {
    tools: Arc<ToolHeaders>,
    /// The ids of the `tools/list` requests in flight.
    listing: HashMap<Id, ()>,
}

impl HeaderHooks {
    fn watch(&mut self, id: &Id) {
        if self.listing.len() >= MAX_WATCHED {
            self.listing.clear();
        }
        self.listing.insert(id.clone(), ());
    }
}

impl Hooks for HeaderHooks {
    fn a_to_b(&mut self, msg: Message) -> Option<Message> {
        let Message::Request(mut request) = msg else {
            return Some(msg);
        };
        match &*request.method {
            "tools/list" => self.watch(&request.id),
            "tools/call" => {
                let modern = request
                    .params
                    .as_deref()
                    .is_some_and(|p| p.get().contains(PROTOCOL_VERSION_META_KEY));
                let target = CallTarget::of(request.params.as_deref());
                if modern
                    && let (Some(name), Some(arguments)) = (target.name, target.arguments)
                    && let Some(headers) = self.tools.for_call(&name, &arguments)
                {
                    request.extensions.insert(headers);
                }
            }
            _ => {}
        }
        Some(Message::Request(request))
    }

    fn b_to_a(&mut self, msg: Message) -> Option<Message> {
        if let Message::Response(response) = &msg
            && let Some(id) = &response.id
            && self.listing.remove(id).is_some()
            && let Ok(result) = &response.result
        {
            self.tools.observe(result);
        }
        Some(msg)
    }
}

#[cfg(test)]
mod tests {
    use mcp_jsonrpc::{Request, Response};
    use mcp_types::McpParamHeaders;
    use serde_json::json;

    use super::*;
    use crate::proxy::modern::meta::raw;

    #[test]
    fn calls_of_listed_tools_get_their_headers() {
        let mut hooks = HeaderHooks::default();
        hooks.a_to_b(Message::Request(Request::new(
            Id::Number(1),
            "tools/list",
            None,
        )));
        hooks.b_to_a(Message::Response(Response::ok(
            Id::Number(1),
            raw(
                &json!({"tools": [{"name": "t", "inputSchema": {"type": "object",
                "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}}]}),
            ),
        )));
        let call = |meta: serde_json::Value| {
            let params = json!({"name": "t", "arguments": {"r": "eu"}, "_meta": meta});
            Message::Request(Request::new(
                Id::Number(2),
                "tools/call",
                Some(raw(&params)),
            ))
        };
        let modern = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let Some(Message::Request(r)) = hooks.a_to_b(call(modern)) else {
            panic!("the request went missing");
        };
        let headers = r.extensions.get::<McpParamHeaders>().unwrap();
        assert_eq!(headers.get("region"), Some("eu"));
        // A handshake-era call carries none.
        let Some(Message::Request(r)) = hooks.a_to_b(call(json!({}))) else {
            panic!("the request went missing");
        };
        assert!(r.extensions.get::<McpParamHeaders>().is_none());
    }
}
