//! What the transports say of their connection (`Transport::connection_info`), for the
//! OpenTelemetry attributes of the spans made over them: the client's address and the bound
//! address on the server side, the URL's host and port on the client side, the session id.

use std::net::SocketAddr;

use mcp_jsonrpc::{ConnectionInfo, Transport};
use mcp_transport_http::server::{SessionMode, StreamableHttpService};
use serde_json::json;
use tokio::sync::mpsc;

const MODERN: &str = "2026-07-28";

/// A service on 127.0.0.1:0 whose factory sends what each session's transport says of its
/// connection, with the session id the factory was told; returns its address.
async fn serve(
    mode: SessionMode,
) -> (
    SocketAddr,
    mpsc::UnboundedReceiver<(ConnectionInfo, Option<String>)>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let service =
        StreamableHttpService::builder()
            .session_mode(mode)
            .build(move |transport, info| {
                let _ = tx.send((
                    transport.connection_info(),
                    info.session_id.as_deref().map(str::to_owned),
                ));
                async move {
                    let (_peer, connection) = mcp_jsonrpc::Connection::new(
                        transport,
                        Initializer,
                        mcp_jsonrpc::Config::default(),
                    );
                    let _ = connection.run().await;
                }
            });
    let server = service.bind_localhost(0).await.unwrap();
    let addr = server.local_addr().unwrap();
    tokio::spawn(server.run());
    (addr, rx)
}

/// Answers `initialize`, and everything else with `{}`.
struct Initializer;

impl mcp_jsonrpc::Handler for Initializer {
    async fn handle_request(
        &self,
        request: mcp_jsonrpc::Request,
        _ctx: mcp_jsonrpc::RequestContext,
    ) -> Result<Box<serde_json::value::RawValue>, mcp_jsonrpc::ErrorObject> {
        match &*request.method {
            "initialize" => mcp_jsonrpc::to_raw_value(&json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "test", "version": "1"},
            })),
            _ => mcp_jsonrpc::to_raw_value(&json!({})),
        }
    }
}

/// The fields every server-side HTTP transport gives: TCP, HTTP/1.1, the client's address
/// (a loopback socket of the test's), the server's (the bound one).
fn assert_http_server_side(info: &ConnectionInfo, bound: SocketAddr) {
    assert_eq!(info.network_transport, Some("tcp"));
    assert_eq!(info.network_protocol_name, Some("http"));
    assert_eq!(info.network_protocol_version, Some("1.1"));
    assert_eq!(info.client_address.as_deref(), Some("127.0.0.1"));
    let port = info.client_port.expect("the client's port");
    assert_ne!(port, bound.port());
    assert_eq!(info.server_address.as_deref(), Some("127.0.0.1"));
    assert_eq!(info.server_port, Some(bound.port()));
}

/// A stateful session, opened by our client transport: both ends describe the connection,
/// with the same session id (the client's from the answer to `initialize` on).
#[cfg(feature = "client")]
#[tokio::test]
async fn both_ends_of_a_stateful_session_describe_it() {
    use mcp_transport_http::client::StreamableHttpClientTransport;

    let (addr, mut sessions) = serve(SessionMode::Stateful).await;
    let transport = StreamableHttpClientTransport::new(format!("http://{addr}/mcp")).unwrap();
    let client_info = transport.connection_info();
    assert_eq!(client_info.network_transport, Some("tcp"));
    assert_eq!(client_info.network_protocol_name, Some("http"));
    assert_eq!(client_info.server_address.as_deref(), Some("127.0.0.1"));
    assert_eq!(client_info.server_port, Some(addr.port()));
    assert_eq!(client_info.client_address, None);
    let learned = client_info.session_id.clone().expect("a session id cell");
    assert_eq!(learned.get(), None, "no session before initialize");

    let (peer, connection) =
        mcp_jsonrpc::Connection::new(transport, (), mcp_jsonrpc::Config::default());
    let running = tokio::spawn(connection.run());
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}});
    peer.request(
        "initialize",
        Some(mcp_jsonrpc::to_raw_value(&params).unwrap()),
    )
    .await
    .unwrap();

    let (server_info, session_id) = sessions.recv().await.unwrap();
    let session_id = session_id.expect("a stateful session has an id");
    assert_http_server_side(&server_info, addr);
    let server_session = server_info.session_id.and_then(|cell| cell.get());
    assert_eq!(server_session.as_deref(), Some(session_id.as_str()));
    // The client's cell now holds the id the server gave.
    assert_eq!(learned.get().as_deref(), Some(session_id.as_str()));

    peer.close();
    running.await.unwrap().unwrap();
}

/// A 2026-07-28 request is a session of its own, without an id: the transport describes the
/// connection that carried it.
#[tokio::test]
async fn a_2026_07_28_request_describes_its_own_connection() {
    let (addr, mut sessions) = serve(SessionMode::Hybrid).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }}});
    let res = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let (info, session_id) = sessions.recv().await.unwrap();
    assert_eq!(session_id, None);
    assert_http_server_side(&info, addr);
    assert!(info.session_id.is_none());
}
