use mcp_jsonrpc::{Id, Message, Request, Transport, memory, to_raw_value};
use mcp_server::Server;
use mcp_server::types::{ListTools, PaginatedRequestParams, Ping, ProtocolVersion};
use serde_json::{Value, json};

use crate::fixture;
use crate::support::{Client, rpc_error};

#[tokio::test(start_paused = true)]
async fn negotiates_each_supported_version_and_falls_back_to_the_latest() {
    let server = fixture();
    for (asked, expected) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let (_client, init) = Client::connect(&server, asked, json!({})).await;
        assert_eq!(init.protocol_version.as_str(), expected, "asked {asked}");
        assert_eq!(init.server_info.name, "fixture");
        assert_eq!(init.server_info.version, "9.9.9");
        assert_eq!(init.instructions.as_deref(), Some("Use the tools."));
        let caps = serde_json::to_value(&init.capabilities).unwrap();
        assert_eq!(caps["tools"], json!({"listChanged": true}));
        assert_eq!(
            caps["resources"],
            json!({"subscribe": true, "listChanged": true})
        );
        assert_eq!(caps["prompts"], json!({"listChanged": true}));
        assert_eq!(caps["logging"], json!({}));
        // `completions` exists from 2025-03-26.
        assert_eq!(caps.get("completions").is_some(), expected != "2024-11-05");
    }
}

#[tokio::test(start_paused = true)]
async fn capabilities_follow_what_is_registered() {
    let server = Server::builder().build();
    let (client, init) = Client::connect(&server, "2025-11-25", json!({})).await;
    let caps = serde_json::to_value(&init.capabilities).unwrap();
    assert_eq!(caps, json!({"logging": {}}));
    // Undeclared features are not served.
    let err = rpc_error(
        client
            .call::<ListTools>(PaginatedRequestParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32601);

    let server = Server::builder().declare_tools().build();
    let (client, init) = Client::connect(&server, "2025-11-25", json!({})).await;
    assert!(init.capabilities.tools.is_some());
    let tools = client
        .call::<ListTools>(PaginatedRequestParams::default())
        .await
        .unwrap();
    assert!(tools.tools.is_empty());
}

#[tokio::test(start_paused = true)]
async fn requests_before_initialize_are_refused_and_the_server_keeps_serving() {
    let server = fixture();
    let client = Client::connect_raw(&server);
    // ping is always allowed.
    client.call::<Ping>(Default::default()).await.unwrap();
    for (method, params) in [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        ),
        // A 2025 client's `_meta` without a protocol version is not a 2026-07-28 request.
        ("tools/list", json!({"_meta": {"progressToken": 1}})),
    ] {
        let err = rpc_error(client.raw(method, params).await.unwrap_err());
        assert_eq!(err.code.0, -32600, "{method}");
        assert_eq!(err.message, "server not initialized");
    }
    // Still serving: initialize works now.
    let init = client.initialize("2025-06-18", json!({})).await.unwrap();
    assert_eq!(init.protocol_version, ProtocolVersion::V2025_06_18);
    // A second initialize is refused.
    let err = rpc_error(
        client
            .initialize("2025-06-18", json!({}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32600);
    // initialized is accepted, and requests work.
    client.notify("notifications/initialized", json!({})).await;
    let tools = client
        .call::<ListTools>(PaginatedRequestParams::default())
        .await
        .unwrap();
    assert!(!tools.tools.is_empty());
    // Unknown and stateless-only methods are -32601 after initialize.
    let err = rpc_error(client.raw("server/discover", json!({})).await.unwrap_err());
    assert_eq!(err.code.0, -32601);
    let err = rpc_error(client.raw("no/such", json!({})).await.unwrap_err());
    assert_eq!(err.code.0, -32601);
    assert!(!client.server_task.is_finished());
}

#[tokio::test(start_paused = true)]
async fn ping_answers_an_empty_object() {
    let server = fixture();
    let (client, _) = Client::connect(&server, "2025-11-25", json!({})).await;
    let result = client.raw("ping", json!({})).await.unwrap();
    assert_eq!(result, json!({}));
}

fn request(id: i64, method: &'static str, params: Value) -> Message {
    Message::Request(Request::new(
        Id::Number(id),
        method,
        Some(to_raw_value(&params).unwrap()),
    ))
}

async fn handshake(version: &str) -> memory::MemoryTransport {
    let (mut client, server_end) = memory::pair(16);
    let server = fixture();
    tokio::spawn(async move { server.serve(server_end).await });
    client
        .send(request(
            1,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ))
        .await
        .unwrap();
    let Some(Message::Response(r)) = client.recv().await.unwrap() else {
        panic!("expected the initialize response")
    };
    assert!(r.result.is_ok());
    client
}

#[tokio::test(start_paused = true)]
async fn batches_are_accepted_only_on_2025_03_26() {
    let mut client = handshake("2025-03-26").await;
    client
        .send(Message::Batch(vec![
            request(2, "ping", json!({})),
            request(3, "tools/list", json!({})),
        ]))
        .await
        .unwrap();
    let Some(Message::Batch(responses)) = client.recv().await.unwrap() else {
        panic!("expected a batch response")
    };
    assert_eq!(responses.len(), 2);
    for r in responses {
        let Message::Response(r) = r else {
            panic!("expected responses")
        };
        assert!(r.result.is_ok());
    }

    let mut client = handshake("2025-06-18").await;
    client
        .send(Message::Batch(vec![request(2, "ping", json!({}))]))
        .await
        .unwrap();
    let Some(Message::Response(r)) = client.recv().await.unwrap() else {
        panic!("expected an error response")
    };
    assert_eq!(r.result.unwrap_err().code.0, -32600);
}

#[tokio::test(start_paused = true)]
async fn serve_ends_when_the_client_goes_away() {
    let server = fixture();
    let (client, _) = Client::connect(&server, "2025-11-25", json!({})).await;
    assert_eq!(server.session_count(), 1);
    client.peer.close();
    client.server_task.await.unwrap().unwrap();
    assert_eq!(server.session_count(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_transport_that_names_the_version_needs_no_initialize() {
    // As a stateless HTTP POST does: no handshake reaches the server, the transport attaches
    // the request's protocol version.
    let server = fixture();
    let client = Client::connect_raw_with(&server, ProtocolVersion::V2025_06_18);
    let tools = client
        .call::<ListTools>(PaginatedRequestParams::default())
        .await
        .unwrap();
    assert_eq!(tools.tools.len(), 5);
    let r = client
        .raw(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "5");
    // Without the transport's word, the same is refused.
    let plain = Client::connect_raw(&server);
    let err = rpc_error(plain.raw("tools/list", json!({})).await.unwrap_err());
    assert_eq!(err.message, "server not initialized");
}
