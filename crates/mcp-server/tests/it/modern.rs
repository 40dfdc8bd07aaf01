//! Protocol revision 2026-07-28 on the same server and connection API: per-request `_meta`,
//! `server/discover`, the result envelope and cache hints, input-required rounds with sealed
//! `requestState`, the revision's errors, per-request logging, and `subscriptions/listen`.

use std::time::Duration;

use futures::future::join3;
use mcp_server::types::{
    CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestedSchema, LoggingLevel,
    PromptMessage, SamplingMessage,
};
use mcp_server::{
    CacheHints, Cacheable, Context, HandlerError, Prompt, Resource, ResourceTemplate, Server, Tool,
    UriParams,
};
use serde_json::{Value, json};

use crate::support::{Client, rpc_error};

fn form(message: &str) -> ElicitRequestFormParams {
    ElicitRequestFormParams::new(message, ElicitRequestedSchema::default())
}

fn name_of(
    content: Option<std::collections::BTreeMap<String, mcp_server::types::ElicitValue>>,
) -> String {
    content
        .and_then(|c| match c.get("name") {
            Some(mcp_server::types::ElicitValue::String(s)) => Some(s.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

async fn greet(cx: Context) -> Result<String, HandlerError> {
    let answer = cx
        .elicit_keyed("user_name", form("What is your name?"))
        .await?;
    Ok(format!("Hello, {}!", name_of(answer.content)))
}

/// Three requests in one round: they are joined, so each records its request before the
/// first `?` passes the error on.
async fn everything(cx: Context) -> Result<String, HandlerError> {
    let sample = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 10);
    let (name, reply, roots) = join3(
        cx.elicit_keyed("user_name", form("Name?")),
        cx.sample_keyed("greeting", sample),
        cx.list_roots_keyed("client_roots"),
    )
    .await;
    let (name, reply, roots) = (name?, reply?, roots?);
    Ok(format!(
        "Name: {}; Greeting: {}; Roots: {}",
        name_of(name.content),
        reply.content.first_text().unwrap_or(""),
        roots.roots.len()
    ))
}

/// Two rounds, with the handler's own state carried between them.
async fn rounds(cx: Context) -> Result<String, HandlerError> {
    let round: u32 = cx.request_state().unwrap_or(1);
    cx.set_request_state(&(round + 1))?;
    let first = cx.elicit_keyed("step1", form("Step 1")).await?;
    let second = cx.elicit_keyed("step2", form("Step 2")).await?;
    Ok(format!(
        "{} then {} in round {round}",
        name_of(first.content),
        name_of(second.content)
    ))
}

fn server() -> Server {
    Server::builder()
        .name("modern")
        .version("2.0.0")
        .instructions("Be modern.")
        .cache_hints(
            Cacheable::Tools,
            CacheHints::public(Duration::from_secs(300)),
        )
        .cache_hints(
            Cacheable::Discover,
            CacheHints::public(Duration::from_secs(60)),
        )
        .tool(Tool::new("greet", greet))
        .tool(Tool::new("everything", everything))
        .tool(Tool::new("rounds", rounds))
        .tool(Tool::new("needs_sampling", |cx: Context| async move {
            let sample = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("x")], 5);
            cx.sample(sample).await?;
            Ok::<_, HandlerError>("sampled")
        }))
        .tool(Tool::new("chatty", |cx: Context| async move {
            cx.log(LoggingLevel::Info, None, "working").await?;
            cx.report_progress(1.0, Some(2.0), None).await?;
            Ok::<_, HandlerError>("done")
        }))
        .tool(Tool::new("trigger", |server: Server| async move {
            server.notify_tools_changed();
            server.notify_resource_updated("app://watched");
            "triggered"
        }))
        .resource(Resource::text("app://watched", "watched", "w"))
        .resource(
            Resource::text("app://private", "private", "p")
                .cache_hints(CacheHints::private(Duration::from_secs(5))),
        )
        .resource_template(
            ResourceTemplate::new(
                "app://ask/{x}",
                "ask",
                |p: UriParams, cx: Context| async move {
                    let answer = cx.elicit_keyed("confirm", form("Read it?")).await?;
                    Ok::<_, HandlerError>(format!("{} read: {:?}", p.uri(), answer.action))
                },
            )
            .unwrap(),
        )
        .prompt(Prompt::new("ask_prompt", |cx: Context| async move {
            let answer = cx.elicit_keyed("user_context", form("Context?")).await?;
            Ok::<_, HandlerError>(vec![PromptMessage::user_text(format!(
                "Prompt with context: {}",
                name_of(answer.content)
            ))])
        }))
        .build()
}

fn all_caps() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {}})
}

fn accept(name: &str) -> Value {
    json!({"action": "accept", "content": {"name": name}})
}

#[tokio::test(start_paused = true)]
async fn discover_names_the_server_and_the_versions_it_serves_per_request() {
    let server = server();
    let client = Client::connect_raw(&server);
    let r = client
        .modern("server/discover", json!({}), json!({}))
        .await
        .unwrap();
    assert_eq!(r["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(r["resultType"], "complete");
    assert_eq!(
        (r["ttlMs"].clone(), r["cacheScope"].clone()),
        (json!(60000), json!("public"))
    );
    assert_eq!(r["instructions"], "Be modern.");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "modern", "version": "2.0.0"})
    );
    assert_eq!(r["capabilities"]["tools"], json!({"listChanged": true}));
    // No handshake happened, and none is needed for the next request either.
    let tools = client
        .modern("tools/list", json!({}), json!({}))
        .await
        .unwrap();
    assert_eq!(tools["tools"].as_array().unwrap().len(), 6);
}

#[tokio::test(start_paused = true)]
async fn the_revisions_errors() {
    let server = server();
    let client = Client::connect_raw(&server);
    // `_meta` naming a version but not the capabilities.
    let err = rpc_error(
        client
            .raw(
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
    let err = rpc_error(
        client
            .raw(
                "server/discover",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999",
                                 "io.modelcontextprotocol/clientCapabilities": {}}}),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32022);
    assert_eq!(
        err.data,
        Some(json!({"supported": ["2026-07-28"], "requested": "v999"}))
    );
    for method in [
        "ping",
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "no/such/method",
    ] {
        let err = rpc_error(
            client
                .modern(method, json!({}), json!({}))
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code.0, -32601, "{method}");
    }
    // Resource not found is -32602 with the URI.
    let err = rpc_error(
        client
            .modern("resources/read", json!({"uri": "app://nothing"}), json!({}))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (err.code.0, err.data),
        (-32602, Some(json!({"uri": "app://nothing"})))
    );
    // A missing client capability is -32021, naming it.
    let err = rpc_error(
        client
            .modern("tools/call", json!({"name": "needs_sampling"}), json!({}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32021);
    assert_eq!(
        err.data,
        Some(json!({"requiredCapabilities": {"sampling": {}}}))
    );
    // ...which on the legacy era is the tool's failure.
    let legacy = Client::connect(&server, "2025-11-25", json!({})).await.0;
    let r = legacy
        .raw("tools/call", json!({"name": "needs_sampling"}))
        .await
        .unwrap();
    assert_eq!(r["isError"], true);
}

#[tokio::test(start_paused = true)]
async fn results_take_the_envelope_and_cache_hints() {
    let server = server();
    let client = Client::connect_raw(&server);
    let tools = client
        .modern("tools/list", json!({}), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (
            tools["resultType"].clone(),
            tools["ttlMs"].clone(),
            tools["cacheScope"].clone()
        ),
        (json!("complete"), json!(300000), json!("public"))
    );
    assert_eq!(
        tools["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "modern"
    );
    let resources = client
        .modern("resources/list", json!({}), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (resources["ttlMs"].clone(), resources["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    let templates = client
        .modern("resources/templates/list", json!({}), json!({}))
        .await
        .unwrap();
    assert_eq!(templates["resultType"], "complete");
    let read = client
        .modern("resources/read", json!({"uri": "app://private"}), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (read["ttlMs"].clone(), read["cacheScope"].clone()),
        (json!(5000), json!("private"))
    );
    assert_eq!(read["resultType"], "complete");
    let call = client
        .modern("tools/call", json!({"name": "trigger"}), json!({}))
        .await
        .unwrap();
    assert_eq!(call["resultType"], "complete");
    assert!(call.get("ttlMs").is_none(), "calls are not cacheable");
    // A legacy session's results are as they were.
    let legacy = Client::connect(&server, "2025-11-25", json!({})).await.0;
    let tools = legacy.raw("tools/list", json!({})).await.unwrap();
    assert!(tools.get("resultType").is_none() && tools.get("_meta").is_none());
}

#[tokio::test(start_paused = true)]
async fn input_required_rounds_with_sealed_state() {
    let server = server();
    let client = Client::connect_raw(&server);
    let r1 = client
        .modern("tools/call", json!({"name": "greet"}), all_caps())
        .await
        .unwrap();
    assert_eq!(r1["resultType"], "input_required");
    assert_eq!(
        r1["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let state = r1["requestState"]
        .as_str()
        .expect("requestState from round 1")
        .to_owned();

    let r2 = client
        .modern(
            "tools/call",
            json!({"name": "greet", "requestState": state,
                   "inputResponses": {"user_name": accept("Alice")}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(r2["resultType"], "complete");
    assert_eq!(r2["content"][0]["text"], "Hello, Alice!");

    // Without a state, answers alone do; extra answers are ignored.
    let r = client
        .modern(
            "tools/call",
            json!({"name": "greet", "inputResponses": {
                "user_name": accept("Bob"), "unknown_extra": accept("x")}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "Hello, Bob!");
    // A missing answer is asked for again.
    let r = client
        .modern(
            "tools/call",
            json!({"name": "greet", "inputResponses": {"wrong_key": accept("x")}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(r["resultType"], "input_required");

    // A tampered state, or one issued for another tool, is refused.
    for (tool, state) in [
        ("greet", format!("{state}-TAMPERED")),
        ("everything", state.clone()),
        ("greet", "garbage".to_owned()),
    ] {
        let err = rpc_error(
            client
                .modern(
                    "tools/call",
                    json!({"name": tool, "requestState": state,
                           "inputResponses": {"user_name": accept("Eve")}}),
                    all_caps(),
                )
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code.0, -32602, "{tool}");
    }
    // Malformed answers are a protocol error.
    let err = rpc_error(
        client
            .modern(
                "tools/call",
                json!({"name": "greet", "inputResponses": {"user_name": 12345}}),
                all_caps(),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
}

#[tokio::test(start_paused = true)]
async fn several_requests_in_one_round_and_state_across_rounds() {
    let server = server();
    let client = Client::connect_raw(&server);
    let r1 = client
        .modern("tools/call", json!({"name": "everything"}), all_caps())
        .await
        .unwrap();
    let keys: Vec<&String> = r1["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["client_roots", "greeting", "user_name"]);
    let r2 = client
        .modern(
            "tools/call",
            json!({"name": "everything", "requestState": r1["requestState"],
                   "inputResponses": {
                       "user_name": accept("Alice"),
                       "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hello there!"},
                                    "model": "m", "stopReason": "endTurn"},
                       "client_roots": {"roots": [{"uri": "file:///r", "name": "r"}]}}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(
        r2["content"][0]["text"],
        "Name: Alice; Greeting: Hello there!; Roots: 1"
    );

    // Only what the request's capabilities allow is asked for.
    let err = rpc_error(
        client
            .modern(
                "tools/call",
                json!({"name": "everything"}),
                json!({"sampling": {}}),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32021);

    // Two rounds: the first answer travels in the state, and so does the handler's value.
    let r1 = client
        .modern("tools/call", json!({"name": "rounds"}), all_caps())
        .await
        .unwrap();
    assert!(r1["inputRequests"].get("step1").is_some());
    let r2 = client
        .modern(
            "tools/call",
            json!({"name": "rounds", "requestState": r1["requestState"],
                   "inputResponses": {"step1": accept("Alice")}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert!(r2["inputRequests"].get("step2").is_some());
    assert_ne!(r2["requestState"], r1["requestState"]);
    let r3 = client
        .modern(
            "tools/call",
            json!({"name": "rounds", "requestState": r2["requestState"],
                   "inputResponses": {"step2": accept("blue")}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(r3["content"][0]["text"], "Alice then blue in round 3");
}

#[tokio::test(start_paused = true)]
async fn prompts_and_reads_ask_for_input_too() {
    let server = server();
    let client = Client::connect_raw(&server);
    let r1 = client
        .modern("prompts/get", json!({"name": "ask_prompt"}), all_caps())
        .await
        .unwrap();
    assert_eq!(r1["resultType"], "input_required");
    let r2 = client
        .modern(
            "prompts/get",
            json!({"name": "ask_prompt", "requestState": r1["requestState"],
                   "inputResponses": {"user_context": accept("ctx")}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(
        r2["messages"][0]["content"]["text"],
        "Prompt with context: ctx"
    );
    let r1 = client
        .modern("resources/read", json!({"uri": "app://ask/1"}), all_caps())
        .await
        .unwrap();
    assert!(r1["inputRequests"].get("confirm").is_some());
    assert!(
        r1.get("ttlMs").is_none(),
        "input_required results carry no cache hints"
    );
    let r2 = client
        .modern(
            "resources/read",
            json!({"uri": "app://ask/1", "requestState": r1["requestState"],
                   "inputResponses": {"confirm": {"action": "decline"}}}),
            all_caps(),
        )
        .await
        .unwrap();
    assert_eq!(r2["contents"][0]["text"], "app://ask/1 read: Decline");
    // Not on other requests: a list never asks.
    let list = client
        .modern("prompts/list", json!({}), all_caps())
        .await
        .unwrap();
    assert_eq!(list["resultType"], "complete");
}

#[tokio::test(start_paused = true)]
async fn logs_only_when_the_request_asks_and_progress_with_its_token() {
    let server = server();
    let mut client = Client::connect_raw(&server);
    client
        .modern("tools/call", json!({"name": "chatty"}), json!({}))
        .await
        .unwrap();
    client.assert_no_notification().await;
    client
        .modern(
            "tools/call",
            json!({"name": "chatty", "_meta": {
                "io.modelcontextprotocol/logLevel": "info", "progressToken": "p1"}}),
            json!({}),
        )
        .await
        .unwrap();
    let (method, params) = client.notification().await;
    assert_eq!(
        (method.as_str(), params["data"].clone()),
        ("notifications/message", json!("working"))
    );
    let progress = client.notification_named("notifications/progress").await;
    assert_eq!(progress["progressToken"], "p1");
    let err = rpc_error(
        client
            .modern(
                "tools/call",
                json!({"name": "chatty", "_meta": {"io.modelcontextprotocol/logLevel": "loud"}}),
                json!({}),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
}

#[tokio::test(start_paused = true)]
async fn listen_acknowledges_and_forwards_what_was_asked() {
    let server = server();
    let mut listener = Client::connect_raw(&server);
    let other = Client::connect_raw(&server);
    let listen = {
        let peer = listener.peer.clone();
        tokio::spawn(async move {
            let params = json!({"notifications": {
                "toolsListChanged": true, "promptsListChanged": true,
                "resourceSubscriptions": ["app://watched"]},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}}});
            peer.request(
                "subscriptions/listen",
                Some(mcp_jsonrpc::to_raw_value(&params).unwrap()),
            )
            .await
        })
    };
    let (method, ack) = listener.notification().await;
    assert_eq!(method, "notifications/subscriptions/acknowledged");
    let id = ack["_meta"]["io.modelcontextprotocol/subscriptionId"].clone();
    assert!(id.is_number(), "the listen request's id, as sent");
    assert_eq!(
        ack["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true,
               "resourceSubscriptions": ["app://watched"]})
    );
    // Another connection changes things: the listener hears of what it asked for only.
    other
        .modern("tools/call", json!({"name": "trigger"}), json!({}))
        .await
        .unwrap();
    let (method, params) = listener.notification().await;
    assert_eq!(method, "notifications/tools/list_changed");
    assert_eq!(
        params["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    let (method, params) = listener.notification().await;
    assert_eq!(method, "notifications/resources/updated");
    assert_eq!(params["uri"], "app://watched");
    assert_eq!(
        params["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    server.notify_resource_updated("app://other");
    server.notify_resources_changed();
    listener.assert_no_notification().await;
    // Cancelling the listen request ends it; nothing more arrives.
    listen.abort();
    // The client's `notifications/cancelled` reaches the server.
    tokio::time::sleep(Duration::from_millis(10)).await;
    server.notify_tools_changed();
    listener.assert_no_notification().await;
}

#[tokio::test(start_paused = true)]
async fn the_state_key_is_configurable_and_rotates() {
    let tool = || Tool::new("greet", greet);
    let old = Server::builder()
        .request_state_key(b"old key".to_vec())
        .tool(tool())
        .build();
    let rotated = Server::builder()
        .request_state_key(b"old key".to_vec())
        .request_state_key(b"new key".to_vec())
        .tool(tool())
        .build();
    let other = Server::builder()
        .request_state_key(b"other".to_vec())
        .tool(tool())
        .build();
    let r1 = Client::connect_raw(&old)
        .modern("tools/call", json!({"name": "greet"}), all_caps())
        .await
        .unwrap();
    let retry = json!({"name": "greet", "requestState": r1["requestState"],
                       "inputResponses": {"user_name": accept("Ann")}});
    let ok = Client::connect_raw(&rotated)
        .modern("tools/call", retry.clone(), all_caps())
        .await
        .unwrap();
    assert_eq!(ok["content"][0]["text"], "Hello, Ann!");
    let err = Client::connect_raw(&other)
        .modern("tools/call", retry, all_caps())
        .await
        .unwrap_err();
    assert_eq!(rpc_error(err).code.0, -32602);
}
