//! The `initialize` handshake and version negotiation.

use mcp_client::{Client, EraChoice, Error};
use mcp_jsonrpc::{Message, Request, Response, Transport, memory};
use mcp_types::{
    Implementation, Initialize, Initialized, Notification as _, Ping, ProtocolVersion,
    Request as _, Root,
};
use serde_json::{Value, json};

use crate::support::{FakeServer, Seen, all_capabilities};

#[tokio::test]
async fn negotiates_the_latest_version_and_exposes_the_session() {
    let h = FakeServer::new()
        .connect(Client::builder().client_info(Implementation::new("host", "1.2.3")))
        .await;
    assert_eq!(
        h.init_params,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "host", "version": "1.2.3"}
        })
    );
    let c = &h.client;
    assert_eq!(*c.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(c.server_info().name, "fake");
    assert_eq!(c.server_info().version, "9.9");
    assert_eq!(c.instructions(), Some("be nice"));
    assert_eq!(
        serde_json::to_value(c.server_capabilities()).unwrap(),
        all_capabilities()
    );
    assert_eq!(c.era(), mcp_types::Era::Stateful);
}

#[tokio::test]
async fn initialized_is_sent_after_the_initialize_response() {
    let (client_end, mut server) = FakeServer::new().start();
    let (_client, connection) = Client::builder()
        .era(EraChoice::Legacy)
        .connect(client_end)
        .await
        .unwrap();
    tokio::spawn(connection);
    assert_eq!(server.next_seen().await.method(), Initialize::METHOD);
    assert_eq!(
        server.next_seen().await,
        Seen::Notification {
            method: Initialized::METHOD.to_owned(),
            params: json!({}),
        }
    );
}

#[tokio::test]
async fn accepts_an_older_supported_version() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let h = FakeServer::new()
            .version(version)
            .connect(Client::builder())
            .await;
        assert_eq!(h.client.protocol_version().as_str(), version);
        assert_eq!(h.init_params["protocolVersion"], "2025-11-25");
    }
}

#[tokio::test]
async fn proposes_a_configured_version() {
    let h = FakeServer::new()
        .connect(Client::builder().protocol_version(ProtocolVersion::V2025_03_26))
        .await;
    assert_eq!(h.init_params["protocolVersion"], "2025-03-26");
    assert_eq!(*h.client.protocol_version(), ProtocolVersion::V2025_03_26);
}

#[tokio::test]
async fn cannot_propose_an_unsupported_version() {
    for (era, version) in [
        (EraChoice::Auto, ProtocolVersion::from("2099-01-01")),
        // A version of the other era than the one chosen.
        (EraChoice::Legacy, ProtocolVersion::V2026_07_28),
        (EraChoice::Modern, ProtocolVersion::V2025_11_25),
    ] {
        let (client_end, _server) = FakeServer::new().start();
        let err = Client::builder()
            .era(era)
            .protocol_version(version)
            .connect(client_end)
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::UnsupportedProtocolVersion { .. }),
            "{err}"
        );
    }
}

#[tokio::test]
async fn an_unsupported_version_is_a_clear_error_and_disconnects() {
    let (client_end, mut server) = FakeServer::new().version("2099-01-01").start();
    let err = Client::builder()
        .era(EraChoice::Legacy)
        .connect(client_end)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server chose protocol version 2099-01-01, which this client does not support \
         (supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)"
    );
    match err {
        Error::UnsupportedProtocolVersion { version } => assert_eq!(version.as_str(), "2099-01-01"),
        other => panic!("unexpected {other:?}"),
    }
    // The client hung up: the server's connection ends, and `initialized` was never sent.
    assert_eq!(server.next_seen().await.method(), Initialize::METHOD);
    assert!(server.seen.recv().await.is_none());
    server.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_stateless_version_in_answer_to_initialize_is_refused() {
    let (client_end, _server) = FakeServer::new().version("2026-07-28").start();
    let err = Client::builder().connect(client_end).await.unwrap_err();
    assert!(
        matches!(err, Error::UnsupportedProtocolVersion { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn an_initialize_error_is_surfaced() {
    let (client_end, _server) = FakeServer::new()
        .route(Initialize::METHOD, |_, _| async {
            Err(mcp_jsonrpc::ErrorObject::new(-32000, "go away"))
        })
        .start();
    let err = Client::builder().connect(client_end).await.unwrap_err();
    let rpc = err.as_rpc().expect("rpc error");
    assert_eq!(rpc.code.0, -32000);
    assert_eq!(rpc.message, "go away");
}

#[tokio::test]
async fn a_server_that_hangs_up_during_initialize_is_closed() {
    let (client_end, server_end) = memory::pair(4);
    drop(server_end);
    let err = Client::builder().connect(client_end).await.unwrap_err();
    assert!(err.is_closed(), "{err:?}");
}

#[tokio::test]
async fn capabilities_follow_the_installed_handlers() {
    let builder = Client::builder()
        .roots(vec![Root::new("file:///work")])
        .sampling(|_p, _c| async { Err(mcp_jsonrpc::ErrorObject::new(-1, "no")) })
        .sampling_tools(true)
        .elicitation(|_p, _c| async { Ok(mcp_types::ElicitResult::decline()) })
        .elicitation_url(true)
        .elicitation_apply_defaults(true);
    let h = FakeServer::new().connect(builder).await;
    assert_eq!(
        h.init_params["capabilities"],
        json!({
            "roots": {"listChanged": true},
            "sampling": {"tools": {}},
            "elicitation": {"form": {"applyDefaults": true}, "url": {}},
            // Both may run as tasks the server creates here.
            "tasks": {"list": {}, "cancel": {}, "requests": {
                "sampling": {"createMessage": {}}, "elicitation": {"create": {}}}}
        })
    );
    assert!(h.client.capabilities().supports_elicitation_url());
}

#[tokio::test]
async fn explicit_capabilities_replace_the_derived_ones() {
    let caps: mcp_types::ClientCapabilities =
        serde_json::from_value(json!({"experimental": {"x": {}}})).unwrap();
    let h = FakeServer::new()
        .connect(Client::builder().roots(vec![]).capabilities(caps))
        .await;
    assert_eq!(
        h.init_params["capabilities"],
        json!({"experimental": {"x": {}}})
    );
}

/// Plays the server by hand to send a batch after negotiating `version`.
async fn batch_after(version: &str) -> Message {
    let (client_end, mut server) = memory::pair(8);
    let server = async move {
        let Some(Message::Request(init)) = server.recv().await.unwrap() else {
            panic!("expected initialize");
        };
        let result =
            serde_json::value::to_raw_value(&crate::support::init_result(version)).unwrap();
        server
            .send(Message::Response(Response::ok(init.id, result)))
            .await
            .unwrap();
        let Some(Message::Notification(n)) = server.recv().await.unwrap() else {
            panic!("expected initialized");
        };
        assert_eq!(n.method, Initialized::METHOD);
        let ping = |id: i64| Message::Request(Request::new(id, Ping::METHOD, None));
        server
            .send(Message::Batch(vec![ping(1), ping(2)]))
            .await
            .unwrap();
        server.recv().await.unwrap().unwrap()
    };
    let client = async {
        let (client, connection) = Client::builder()
            .era(EraChoice::Legacy)
            .connect(client_end)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
    };
    let (reply, _client) = tokio::join!(server, client);
    reply
}

#[tokio::test]
async fn batching_is_on_only_for_2025_03_26() {
    let reply = batch_after("2025-03-26").await;
    let json: Value = serde_json::from_str(&reply.to_json().unwrap()).unwrap();
    let mut ids: Vec<i64> = json
        .as_array()
        .expect("a batch reply")
        .iter()
        .map(|r| {
            assert_eq!(r["result"], json!({}));
            r["id"].as_i64().unwrap()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2]);

    let reply = batch_after("2025-06-18").await;
    let json: Value = serde_json::from_str(&reply.to_json().unwrap()).unwrap();
    assert_eq!(json["error"]["code"], -32600);
}
