//! The stateless era (2026-07-28) against a scripted server: the era choice and its
//! fallbacks, the per-request `_meta`, input-required rounds, the typed refusals, removed
//! methods, tool header parameters, the response cache.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use mcp_client::{CallOptions, Client, EraChoice, EraMemory, Error};
use mcp_jsonrpc::{ErrorObject, Message, Transport};
use mcp_types::{
    CallToolRequestParams, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, EmptyParams, Era, LoggingLevel, McpParamHeaders, ProtocolVersion, Root,
    SamplingContent, SamplingMessageContentBlock, TextContent, ToolListChanged,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{FakeServer, Seen, all_capabilities};

fn meta_of(params: &Value) -> &Value {
    &params["_meta"]
}

#[tokio::test]
async fn auto_speaks_2026_to_a_server_that_discovers() {
    let h = FakeServer::modern()
        .answer("tools/list", json!({"tools": [], "resultType": "complete"}))
        .connect_modern(
            Client::builder().client_info(mcp_types::Implementation::new("host", "1.2.3")),
        )
        .await;
    let c = &h.client;
    assert_eq!(c.era(), Era::Stateless);
    assert_eq!(*c.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(c.server_info().name, "fake");
    assert_eq!(c.instructions(), Some("be nice"));
    assert_eq!(
        serde_json::to_value(c.server_capabilities()).unwrap(),
        all_capabilities()
    );
    assert!(c.discover_result().is_some());
    let expected = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1.2.3"}
    });
    assert_eq!(meta_of(&h.init_params), &expected);

    // Every request carries the same `_meta`, and the caller's members are kept.
    let mut h = h;
    let (tx, _rx) = mpsc::channel(4);
    h.client
        .request_with::<mcp_types::ListTools>(Default::default(), CallOptions::new().progress(tx))
        .await
        .unwrap();
    let seen = h.server.next_with("tools/list").await;
    let meta = meta_of(seen.params());
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "host");
    assert!(meta.get("progressToken").is_some());
}

#[tokio::test]
async fn auto_falls_back_to_initialize_when_discover_is_unknown() {
    let mut h = FakeServer::new().connect(Client::builder()).await;
    assert_eq!(h.client.era(), Era::Stateful);
    assert_eq!(*h.client.protocol_version(), ProtocolVersion::V2025_11_25);
    // Requests of the handshake era carry no `_meta`.
    h.client.list_tools(None).await.unwrap_err();
    let seen = h.server.next_with("tools/list").await;
    assert!(seen.params().get("_meta").is_none(), "{seen:?}");
}

#[tokio::test(start_paused = true)]
async fn auto_falls_back_when_discover_gets_no_answer() {
    let (client_end, mut server) = FakeServer::new()
        .route("server/discover", |_, _| std::future::pending())
        .start();
    let (client, connection) = Client::builder()
        .probe_timeout(Duration::from_secs(2))
        .connect(client_end)
        .await
        .unwrap();
    tokio::spawn(connection);
    assert_eq!(client.era(), Era::Stateful);
    assert_eq!(server.next_seen().await.method(), "server/discover");
    assert_eq!(server.next_with("initialize").await.method(), "initialize");
}

#[tokio::test]
async fn modern_only_does_not_fall_back() {
    let (client_end, _server) = FakeServer::new().start();
    let err = Client::builder()
        .era(EraChoice::Modern)
        .connect(client_end)
        .await
        .unwrap_err();
    assert_eq!(
        err.as_rpc().unwrap().code,
        mcp_types::ErrorCode::METHOD_NOT_FOUND
    );
}

#[tokio::test]
async fn legacy_only_never_discovers() {
    let (client_end, mut server) = FakeServer::modern().start();
    let err = Client::builder()
        .era(EraChoice::Legacy)
        .connect(client_end)
        .await
        .unwrap_err();
    assert!(err.as_rpc().is_some(), "{err}");
    assert_eq!(server.next_seen().await.method(), "initialize");
}

#[tokio::test]
async fn discover_is_retried_with_a_version_the_server_names() {
    let refused = Arc::new(AtomicU32::new(0));
    let count = refused.clone();
    let mut h = FakeServer::modern()
        .route("server/discover", move |_, _| {
            let first = count.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                if first {
                    Err(ErrorObject::new(-32022, "Unsupported protocol version")
                        .with_data(json!({"supported": ["2026-07-28"], "requested": ""})))
                } else {
                    Ok(crate::support::discover_result())
                }
            }
        })
        .connect_modern(Client::builder())
        .await;
    assert_eq!(h.client.era(), Era::Stateless);
    let retry = h.server.next_seen().await;
    assert_eq!(retry.method(), "server/discover");
    assert_eq!(
        meta_of(retry.params())["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[tokio::test]
async fn a_refusal_naming_only_handshake_versions_falls_back() {
    let (client_end, mut server) = FakeServer::new()
        .route("server/discover", |_, _| async {
            Err(ErrorObject::new(-32022, "Unsupported protocol version")
                .with_data(json!({"supported": ["2025-11-25"], "requested": "2026-07-28"})))
        })
        .start();
    let (client, connection) = Client::builder().connect(client_end).await.unwrap();
    tokio::spawn(connection);
    assert_eq!(client.era(), Era::Stateful);
    server.next_with("initialize").await;
}

#[tokio::test]
async fn era_memory_spares_the_probe() {
    let memory = EraMemory::new();
    let h = FakeServer::new()
        .connect(Client::builder().era_memory(&memory, "fake"))
        .await;
    assert_eq!(memory.get("fake"), Some(ProtocolVersion::V2025_11_25));
    drop(h);
    let (client_end, mut server) = FakeServer::new().start();
    let (client, connection) = Client::builder()
        .era_memory(&memory, "fake")
        .connect(client_end)
        .await
        .unwrap();
    tokio::spawn(connection);
    assert_eq!(client.era(), Era::Stateful);
    // Straight to `initialize`.
    assert_eq!(server.next_seen().await.method(), "initialize");

    // A remembered era that no longer works is forgotten and probed again.
    memory.remember("other", ProtocolVersion::V2025_11_25);
    let (client_end, _server) = FakeServer::modern().start();
    let (client, connection) = Client::builder()
        .era_memory(&memory, "other")
        .connect(client_end)
        .await
        .unwrap();
    tokio::spawn(connection);
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(memory.get("other"), Some(ProtocolVersion::V2026_07_28));
}

/// The input-required answer of the scripted `tools/call`: elicitation, sampling and roots.
fn ask_everything(state: Option<&str>) -> Value {
    let mut result = json!({
        "resultType": "input_required",
        "inputRequests": {
            "name": {"method": "elicitation/create", "params": {
                "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
            }},
            "poem": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "a poem"}}],
                "maxTokens": 10
            }},
            "roots": {"method": "roots/list"}
        }
    });
    if let Some(state) = state {
        result["requestState"] = json!(state);
    }
    result
}

fn answering_client() -> mcp_client::ClientBuilder {
    Client::builder()
        .elicitation(
            |params: ElicitRequestParams, ctx: mcp_client::RequestContext| async move {
                assert_eq!(ctx.input_key(), Some("name"));
                assert!(ctx.id().is_none());
                let ElicitRequestParams::Form(form) = params else {
                    panic!("a form")
                };
                assert_eq!(form.message, "Your name?");
                let mut content = serde_json::Map::new();
                content.insert("name".into(), json!("Ada"));
                Ok(ElicitResult::accept(Some(
                    serde_json::from_value(Value::Object(content)).unwrap(),
                )))
            },
        )
        .sampling(|_: CreateMessageRequestParams, _ctx| async move {
            Ok(CreateMessageResult::new(
                "model-x",
                SamplingContent::Single(SamplingMessageContentBlock::Text(TextContent::new(
                    "roses",
                ))),
            ))
        })
        .roots(vec![Root::new("file:///home")])
}

#[tokio::test]
async fn input_required_is_answered_by_the_installed_handlers() {
    let mut h = FakeServer::modern()
        .route("tools/call", |params, _| async move {
            match params.get("inputResponses") {
                None => Ok(ask_everything(Some("opaque-1"))),
                Some(answers) => {
                    assert_eq!(params["requestState"], "opaque-1");
                    assert_eq!(answers["name"]["action"], "accept");
                    assert_eq!(answers["name"]["content"]["name"], "Ada");
                    assert_eq!(answers["poem"]["model"], "model-x");
                    assert_eq!(answers["roots"]["roots"][0]["uri"], "file:///home");
                    Ok(json!({"resultType": "complete",
                        "content": [{"type": "text", "text": "done"}]}))
                }
            }
        })
        .connect_modern(answering_client())
        .await;
    let result = h
        .client
        .call_tool(CallToolRequestParams::new("greet"))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("done"));
    let first = h.server.next_with("tools/call").await;
    let retry = h.server.next_with("tools/call").await;
    assert!(first.params().get("inputResponses").is_none());
    // The retry is the whole request again, with its `_meta`.
    assert_eq!(retry.params()["name"], "greet");
    assert!(
        meta_of(retry.params())
            .get("io.modelcontextprotocol/clientCapabilities")
            .is_some()
    );
}

#[tokio::test]
async fn request_state_is_only_sent_when_given() {
    let mut h = FakeServer::modern()
        .route("tools/call", |params, _| async move {
            Ok(match params.get("inputResponses") {
                None => ask_everything(None),
                Some(_) => json!({"content": []}),
            })
        })
        .connect_modern(answering_client())
        .await;
    // A result without `resultType` is complete.
    h.client
        .call_tool(CallToolRequestParams::new("t"))
        .await
        .unwrap();
    h.server.next_with("tools/call").await;
    let retry = h.server.next_with("tools/call").await;
    assert!(retry.params().get("requestState").is_none(), "{retry:?}");
}

#[tokio::test]
async fn input_rounds_are_bounded() {
    let mut h = FakeServer::modern()
        .route("tools/call", |_, _| async {
            Ok(ask_everything(Some("again")))
        })
        .connect_modern(answering_client().max_input_rounds(2))
        .await;
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("t"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::TooManyInputRounds { rounds: 2, .. }),
        "{err}"
    );
    for _ in 0..3 {
        h.server.next_with("tools/call").await;
    }
}

#[tokio::test]
async fn input_without_a_handler_fails_the_call() {
    let h = FakeServer::modern()
        .route("tools/call", |_, _| async { Ok(ask_everything(None)) })
        .connect_modern(Client::builder())
        .await;
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("t"))
        .await
        .unwrap_err();
    match err {
        Error::InputRequest { key, method, .. } => {
            assert_eq!(
                (key.as_str(), method.as_str()),
                ("name", "elicitation/create")
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn the_revision_refusals_are_typed() {
    let h = FakeServer::modern()
        .route("tools/call", |params, _| async move {
            Err(match params["name"].as_str().unwrap() {
                "header" => ErrorObject::new(-32020, "Mcp-Name does not match"),
                "caps" => ErrorObject::new(-32021, "MissingRequiredClientCapabilityError")
                    .with_data(json!({"requiredCapabilities": {"sampling": {}}})),
                _ => ErrorObject::new(-32022, "Unsupported protocol version")
                    .with_data(json!({"supported": ["2027-01-01"], "requested": "2026-07-28"})),
            })
        })
        .connect_modern(Client::builder())
        .await;
    let call = |name: &'static str| h.client.call_tool(CallToolRequestParams::new(name));
    // An unlisted tool refused for its headers is retried once after listing the tools.
    let err = call("header").await.unwrap_err();
    assert!(matches!(err, Error::HeaderMismatch(_)), "{err}");
    match call("caps").await.unwrap_err() {
        Error::MissingClientCapability { required, error } => {
            assert_eq!(required, json!({"sampling": {}}));
            assert_eq!(error.code.0, -32021);
        }
        other => panic!("unexpected {other:?}"),
    }
    let err = call("version").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the server does not support protocol version 2026-07-28 (it supports 2027-01-01)"
    );
    assert_eq!(err.as_rpc().unwrap().code.0, -32022);
}

#[tokio::test]
async fn removed_methods_and_their_replacements() {
    let mut h = FakeServer::modern()
        .answer("tools/list", json!({"tools": []}))
        .connect_modern(Client::builder().roots(vec![]))
        .await;
    let c = &h.client;
    let err = c.subscribe("file:///x").await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotInRevision {
                method: "resources/subscribe",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        c.notify::<mcp_types::RootsListChanged>(EmptyParams::default())
            .await
            .is_err()
    );
    // `ping` is a discover; the log level rides on later requests; new roots send nothing.
    c.ping().await.unwrap();
    c.set_logging_level(LoggingLevel::Warning).await.unwrap();
    c.set_roots(vec![Root::new("file:///y")]).await.unwrap();
    c.list_tools(None).await.unwrap();
    assert_eq!(h.server.next_seen().await.method(), "server/discover");
    let list = h.server.next_seen().await;
    assert_eq!(list.method(), "tools/list");
    assert_eq!(
        meta_of(list.params())["io.modelcontextprotocol/logLevel"],
        "warning"
    );
}

/// Reports the `Mcp-Param-*` hint of every request the client sends.
struct Spy<T>(T, mpsc::UnboundedSender<(String, Option<McpParamHeaders>)>);

impl<T: Transport> Transport for Spy<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        if let Message::Request(r) = &msg {
            let hint = r.extensions.get::<McpParamHeaders>().cloned();
            let _ = self.1.send((r.method.to_string(), hint));
        }
        self.0.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, T::Error> {
        self.0.recv().await
    }
}

#[tokio::test]
async fn tools_with_invalid_header_params_are_dropped_and_valid_ones_hinted() {
    let tools = json!({"tools": [
        {"name": "deploy", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"}}}},
        {"name": "broken", "inputSchema": {"type": "object", "properties": {
            "n": {"type": "number", "x-mcp-header": "N"}}}}
    ]});
    let (client_end, _server) = FakeServer::modern()
        .answer("tools/list", tools)
        .answer("tools/call", json!({"content": []}))
        .start();
    let (tx, mut sent) = mpsc::unbounded_channel();
    let (client, connection) = Client::builder()
        .connect(Spy(client_end, tx))
        .await
        .unwrap();
    tokio::spawn(connection);
    let listed = client.list_tools(None).await.unwrap();
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["deploy"]);
    let args = json!({"region": "eu-west", "count": 3});
    client
        .call_tool(CallToolRequestParams::with_arguments(
            "deploy",
            args.as_object().unwrap().clone(),
        ))
        .await
        .unwrap();
    let hint = loop {
        let (method, hint) = sent.recv().await.unwrap();
        if method == "tools/call" {
            break hint.expect("a header hint");
        }
    };
    assert_eq!(hint.get("region"), Some("eu-west"));
    assert_eq!(hint.get("count"), Some("3"));
}

#[tokio::test]
async fn a_header_refusal_for_an_unlisted_tool_lists_and_retries_once() {
    let calls = Arc::new(AtomicU32::new(0));
    let count = calls.clone();
    let mut h = FakeServer::modern()
        .answer(
            "tools/list",
            json!({"tools": [{"name": "deploy", "inputSchema": {"type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]}),
        )
        .route("tools/call", move |_, _| {
            let first = count.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                if first {
                    Err(ErrorObject::new(-32020, "missing Mcp-Param-Region"))
                } else {
                    Ok(json!({"content": []}))
                }
            }
        })
        .connect_modern(Client::builder())
        .await;
    let args = json!({"region": "eu"});
    h.client
        .call_tool(CallToolRequestParams::with_arguments(
            "deploy",
            args.as_object().unwrap().clone(),
        ))
        .await
        .unwrap();
    let methods: Vec<String> = [
        h.server.next_seen().await,
        h.server.next_seen().await,
        h.server.next_seen().await,
    ]
    .iter()
    .map(|s: &Seen| s.method().to_owned())
    .collect();
    assert_eq!(methods, ["tools/call", "tools/list", "tools/call"]);
}

#[tokio::test(start_paused = true)]
async fn the_response_cache_honours_ttl_and_notifications() {
    let lists = Arc::new(AtomicU32::new(0));
    let count = lists.clone();
    let h = FakeServer::modern()
        .route("tools/list", move |_, _| {
            count.fetch_add(1, Ordering::SeqCst);
            async {
                Ok(
                    json!({"tools": [], "resultType": "complete", "ttlMs": 60_000,
                    "cacheScope": "public"}),
                )
            }
        })
        .connect_modern(Client::builder().response_cache(16))
        .await;
    let c = &h.client;
    c.list_tools(None).await.unwrap();
    c.list_tools(None).await.unwrap();
    assert_eq!(lists.load(Ordering::SeqCst), 1, "the second list is cached");
    h.server
        .notify::<ToolListChanged>(EmptyParams::default())
        .await;
    // Let the notification reach the client.
    tokio::time::sleep(Duration::from_millis(10)).await;
    c.list_tools(None).await.unwrap();
    assert_eq!(
        lists.load(Ordering::SeqCst),
        2,
        "invalidated by list_changed"
    );
    tokio::time::advance(Duration::from_secs(61)).await;
    c.list_tools(None).await.unwrap();
    assert_eq!(lists.load(Ordering::SeqCst), 3, "expired");
}

#[tokio::test]
async fn an_unknown_result_type_is_refused() {
    let h = FakeServer::modern()
        .answer("tools/call", json!({"resultType": "bogus", "content": []}))
        .connect_modern(Client::builder())
        .await;
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("t"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Protocol { .. }), "{err}");
}
