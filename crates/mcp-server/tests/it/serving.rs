//! Serving options and what transports hand to handlers: extensions attached by the
//! transport, the request id, and sessions served without a handshake.

use std::future::Future;

use mcp_jsonrpc::{Config, Connection, Message, Peer, Transport, memory, to_raw_value};
use mcp_server::types::{
    ClientCapabilities, CreateMessageRequestParams, ProtocolVersion, SamplingMessage,
};
use mcp_server::{Context, Error, ServeOptions, Server, Tool};
use serde_json::{Value, json};

/// What the test transport attaches to every inbound request.
#[derive(Debug, Clone)]
struct Principal(&'static str);

/// Wraps a transport and attaches a [`Principal`] to every inbound request, as an HTTP
/// transport behind an auth layer would.
struct Authenticated<T>(T);

impl<T: Transport> Transport for Authenticated<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        self.0.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, T::Error> {
        let mut msg = self.0.recv().await?;
        if let Some(Message::Request(r)) = &mut msg {
            r.extensions.insert(Principal("alice"));
        }
        Ok(msg)
    }
}

fn server() -> Server {
    Server::builder()
        .tool(Tool::new("whoami", |cx: Context| async move {
            let who = cx.extensions().get::<Principal>().map_or("nobody", |p| p.0);
            format!("{who} asked in request {}", cx.request_id())
        }))
        .tool(Tool::new("probe", |cx: Context| async move {
            let sampled = cx
                .sample(CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text("hi")],
                    10,
                ))
                .await;
            assert!(matches!(
                sampled,
                Err(Error::CapabilityNotDeclared("sampling"))
            ));
            let roots = cx.list_roots().await;
            assert!(matches!(roots, Err(Error::CapabilityNotDeclared("roots"))));
            format!("{} {:?}", cx.protocol_version(), cx.client_info())
        }))
        .build()
}

/// Runs `server` over a memory pair with `options`, the server end wrapped by `wrap`.
fn connect<T: Transport>(
    server: &Server,
    options: ServeOptions,
    wrap: impl FnOnce(memory::MemoryTransport) -> T,
) -> Peer {
    let (client_end, server_end) = memory::pair(16);
    let server = server.clone();
    let transport = wrap(server_end);
    tokio::spawn(async move { server.serve_with(transport, options).await });
    let (peer, connection) = Connection::new(client_end, (), Config::default());
    tokio::spawn(connection.run());
    peer
}

async fn call(peer: &Peer, method: &'static str, params: Value) -> mcp_jsonrpc::Result<Value> {
    let raw = peer
        .request(method, Some(to_raw_value(&params).unwrap()))
        .await?;
    Ok(serde_json::from_str(raw.get()).unwrap())
}

async fn call_tool(peer: &Peer, name: &str) -> String {
    let result = call(peer, "tools/call", json!({"name": name}))
        .await
        .unwrap();
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn stateless(version: Option<ProtocolVersion>) -> ServeOptions {
    ServeOptions::new().assume_initialized(version, ClientCapabilities::default())
}

#[tokio::test(start_paused = true)]
async fn an_extension_set_by_the_transport_reaches_the_tool() {
    let peer = connect(&server(), stateless(None), Authenticated);
    // The client numbers its requests from 1.
    assert_eq!(call_tool(&peer, "whoami").await, "alice asked in request 1");
    assert_eq!(call_tool(&peer, "whoami").await, "alice asked in request 2");

    // Without the wrapper, the extensions are empty.
    let peer = connect(&server(), stateless(None), |t| t);
    assert_eq!(
        call_tool(&peer, "whoami").await,
        "nobody asked in request 1"
    );
}

#[tokio::test(start_paused = true)]
async fn an_assumed_session_serves_without_a_handshake() {
    for (given, expected) in [
        (None, "2025-11-25"),
        (Some(ProtocolVersion::V2025_06_18), "2025-06-18"),
        (Some(ProtocolVersion::V2026_07_28), "2025-11-25"),
        (Some(ProtocolVersion::from("1999-01-01")), "2025-11-25"),
    ] {
        let peer = connect(&server(), stateless(given.clone()), |t| t);
        // No initialize: requests are served at once, at the assumed version, with no client
        // capabilities (the tool asserts nothing is asked of the client).
        assert_eq!(
            call_tool(&peer, "probe").await,
            format!("{expected} None"),
            "{given:?}"
        );
        let tools = call(&peer, "tools/list", json!({})).await.unwrap();
        assert_eq!(tools["tools"].as_array().unwrap().len(), 2);
    }
}

#[tokio::test(start_paused = true)]
async fn an_assumed_session_still_answers_initialize() {
    let peer = connect(
        &server(),
        stateless(Some(ProtocolVersion::V2025_06_18)),
        |t| t,
    );
    let init = json!({
        "protocolVersion": "2025-03-26",
        "capabilities": {"sampling": {}},
        "clientInfo": {"name": "c", "version": "1"}
    });
    for _ in 0..2 {
        let result = call(&peer, "initialize", init.clone()).await.unwrap();
        assert_eq!(result["protocolVersion"], "2025-03-26");
        assert!(result["capabilities"]["tools"].is_object());
    }
    // The assumed state stands: version and (empty) capabilities are unchanged.
    assert_eq!(call_tool(&peer, "probe").await, "2025-06-18 None");
}

#[tokio::test(start_paused = true)]
async fn an_assumed_2025_03_26_session_accepts_batches() {
    let (mut client, server_end) = memory::pair(16);
    let server = server();
    let options = stateless(Some(ProtocolVersion::V2025_03_26));
    tokio::spawn(async move { server.serve_with(server_end, options).await });
    let batch = Message::decode(
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
    );
    client.send(batch).await.unwrap();
    let Some(Message::Batch(responses)) = client.recv().await.unwrap() else {
        panic!("expected a batch of responses")
    };
    assert_eq!(responses.len(), 2);
}
