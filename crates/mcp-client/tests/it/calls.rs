//! Every typed call, pagination, server errors.

use futures::{StreamExt, TryStreamExt};
use mcp_client::{CallOptions, Client, Error, Side};
use mcp_jsonrpc::ErrorObject;
use mcp_types::{
    CallTool, CallToolRequestParams, Complete, CompleteRequestParams, GetPrompt,
    GetPromptRequestParams, ListPrompts, ListResourceTemplates, ListResources, ListTools,
    LoggingLevel, Ping, PromptReference, ReadResource, Request as _, SetLevel, Subscribe,
    Unsubscribe,
};
use serde_json::{Value, json};

use crate::support::{FakeServer, Seen};

fn request(method: &str, params: Value) -> Seen {
    Seen::Request {
        method: method.to_owned(),
        params,
    }
}

#[tokio::test]
async fn every_typed_call_sends_its_method_and_decodes_its_result() {
    let server = FakeServer::new()
        .answer(
            ListTools::METHOD,
            json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        )
        .answer(
            CallTool::METHOD,
            json!({"content": [{"type": "text", "text": "hi"}]}),
        )
        .answer(
            ListResources::METHOD,
            json!({"resources": [{"uri": "file:///a", "name": "a"}]}),
        )
        .answer(
            ListResourceTemplates::METHOD,
            json!({"resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "x"}]}),
        )
        .answer(
            ReadResource::METHOD,
            json!({"contents": [{"uri": "file:///a", "text": "A"}]}),
        )
        .answer(Subscribe::METHOD, json!({}))
        .answer(Unsubscribe::METHOD, json!({}))
        .answer(ListPrompts::METHOD, json!({"prompts": [{"name": "p"}]}))
        .answer(
            GetPrompt::METHOD,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}]}),
        )
        .answer(
            Complete::METHOD,
            json!({"completion": {"values": ["alpha", "beta"], "hasMore": false}}),
        )
        .answer(SetLevel::METHOD, json!({}))
        .answer(Ping::METHOD, json!({}));
    let mut h = server.connect(Client::builder()).await;
    let c = &h.client;
    let s = &mut h.server;

    let tools = c.list_tools(None).await.unwrap();
    assert_eq!(tools.tools[0].name, "echo");
    assert_eq!(s.next_seen().await, request(ListTools::METHOD, json!({})));

    let mut args = serde_json::Map::new();
    args.insert("text".into(), json!("hi"));
    let result = c
        .call_tool(CallToolRequestParams::with_arguments("echo", args))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("hi"));
    assert_eq!(
        s.next_seen().await,
        request(
            CallTool::METHOD,
            json!({"name": "echo", "arguments": {"text": "hi"}})
        )
    );

    let resources = c.list_resources(Some("c1".into())).await.unwrap();
    assert_eq!(resources.resources[0].uri, "file:///a");
    assert_eq!(
        s.next_seen().await,
        request(ListResources::METHOD, json!({"cursor": "c1"}))
    );

    let templates = c.list_resource_templates(None).await.unwrap();
    assert_eq!(templates.resource_templates[0].uri_template, "file:///{x}");
    assert_eq!(s.next_seen().await.method(), ListResourceTemplates::METHOD);

    let read = c.read_resource("file:///a").await.unwrap();
    assert_eq!(read.contents[0].uri(), "file:///a");
    assert_eq!(
        s.next_seen().await,
        request(ReadResource::METHOD, json!({"uri": "file:///a"}))
    );

    c.subscribe("file:///a").await.unwrap();
    assert_eq!(
        s.next_seen().await,
        request(Subscribe::METHOD, json!({"uri": "file:///a"}))
    );
    c.unsubscribe("file:///a").await.unwrap();
    assert_eq!(
        s.next_seen().await,
        request(Unsubscribe::METHOD, json!({"uri": "file:///a"}))
    );

    let prompts = c.list_prompts(None).await.unwrap();
    assert_eq!(prompts.prompts[0].name, "p");
    assert_eq!(s.next_seen().await.method(), ListPrompts::METHOD);

    let mut get = GetPromptRequestParams::new("p");
    get.arguments = Some([("lang".to_owned(), "rust".to_owned())].into());
    let prompt = c.get_prompt(get).await.unwrap();
    assert_eq!(prompt.messages.len(), 1);
    assert_eq!(
        s.next_seen().await,
        request(
            GetPrompt::METHOD,
            json!({"name": "p", "arguments": {"lang": "rust"}})
        )
    );

    let completion = c
        .complete(CompleteRequestParams::new(
            PromptReference::new("p"),
            "lang",
            "r",
        ))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["alpha", "beta"]);
    assert_eq!(
        s.next_seen().await,
        request(
            Complete::METHOD,
            json!({"ref": {"type": "ref/prompt", "name": "p"},
                   "argument": {"name": "lang", "value": "r"}})
        )
    );

    c.set_logging_level(LoggingLevel::Warning).await.unwrap();
    assert_eq!(
        s.next_seen().await,
        request(SetLevel::METHOD, json!({"level": "warning"}))
    );

    c.ping().await.unwrap();
    assert_eq!(s.next_seen().await, request(Ping::METHOD, json!({})));

    // The generic form, for any method marker.
    let page = c
        .request::<ListPrompts>(mcp_types::PaginatedRequestParams::at("x"))
        .await
        .unwrap();
    assert_eq!(page.prompts[0].name, "p");
    assert_eq!(
        s.next_seen().await,
        request(ListPrompts::METHOD, json!({"cursor": "x"}))
    );
}

fn tools_page(names: &[&str], next: Option<&str>) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    match next {
        Some(next) => json!({"tools": tools, "nextCursor": next}),
        None => json!({"tools": tools}),
    }
}

#[tokio::test]
async fn list_streams_follow_the_cursor_across_three_pages() {
    let server = FakeServer::new()
        .route(ListTools::METHOD, |params, _| async move {
            Ok(match params["cursor"].as_str() {
                None => tools_page(&["a", "b"], Some("p2")),
                Some("p2") => tools_page(&["c"], Some("p3")),
                Some("p3") => tools_page(&["d", "e"], None),
                Some(other) => return Err(ErrorObject::invalid_params(format!("cursor {other}"))),
            })
        })
        .route(ListResources::METHOD, |params, _| async move {
            let page = params["cursor"].as_str().unwrap_or("p1").to_owned();
            let next = match page.as_str() {
                "p1" => json!("p2"),
                "p2" => json!("p3"),
                _ => Value::Null,
            };
            let mut v = json!({"resources": [{"uri": format!("file:///{page}"), "name": page}]});
            if !next.is_null() {
                v["nextCursor"] = next;
            }
            Ok(v)
        });
    let mut h = server.connect(Client::builder()).await;

    let names: Vec<String> = h
        .client
        .list_tools_stream()
        .map_ok(|t| t.name)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
    let mut cursors = Vec::new();
    for _ in 0..3 {
        cursors.push(h.server.next_seen().await.params()["cursor"].clone());
    }
    assert_eq!(cursors, [Value::Null, json!("p2"), json!("p3")]);

    let uris: Vec<String> = h
        .client
        .list_resources_stream()
        .map_ok(|r| r.uri)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(uris, ["file:///p1", "file:///p2", "file:///p3"]);
}

#[tokio::test]
async fn a_repeated_cursor_ends_the_stream_with_an_error() {
    let server = FakeServer::new().route(ListPrompts::METHOD, |_, _| async {
        Ok(json!({"prompts": [{"name": "p"}], "nextCursor": "same"}))
    });
    let h = server.connect(Client::builder()).await;
    let items: Vec<_> = h.client.list_prompts_stream().collect().await;
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(items[0].is_ok() && items[1].is_ok());
    assert!(
        matches!(&items[2], Err(Error::Protocol { method, .. }) if method == ListPrompts::METHOD),
        "{:?}",
        items[2]
    );
}

#[tokio::test]
async fn a_stream_stops_at_the_first_error() {
    let server = FakeServer::new().route(ListResourceTemplates::METHOD, |params, _| async move {
        match params["cursor"].as_str() {
            None => Ok(
                json!({"resourceTemplates": [{"uriTemplate": "a", "name": "a"}],
                              "nextCursor": "next"}),
            ),
            Some(_) => Err(ErrorObject::invalid_params("bad cursor")),
        }
    });
    let h = server.connect(Client::builder()).await;
    let items: Vec<_> = h.client.list_resource_templates_stream().collect().await;
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().name, "a");
    assert_eq!(
        items[1].as_ref().unwrap_err().as_rpc().unwrap().code.0,
        -32602
    );
}

#[tokio::test]
async fn server_errors_keep_code_message_and_data() {
    let server = FakeServer::new().route(ReadResource::METHOD, |params, _| async move {
        Err(ErrorObject::new(-32002, "resource not found").with_data(json!({"uri": params["uri"]})))
    });
    let h = server.connect(Client::builder()).await;
    let err = h.client.read_resource("file:///missing").await.unwrap_err();
    match &err {
        Error::Rpc(e) => {
            assert_eq!(e.code.0, -32002);
            assert_eq!(e.message, "resource not found");
            assert_eq!(e.data, Some(json!({"uri": "file:///missing"})));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "server returned an error: resource not found (-32002)"
    );
    // An unknown method is an Rpc error too.
    let err = h.client.ping().await.unwrap_err();
    assert_eq!(
        err.as_rpc().unwrap().code,
        mcp_client::ErrorCode::METHOD_NOT_FOUND
    );
}

#[tokio::test]
async fn a_result_that_does_not_fit_is_a_decode_error() {
    let server = FakeServer::new().answer(ListTools::METHOD, json!({"tools": "nope"}));
    let h = server.connect(Client::builder()).await;
    let err = h.client.list_tools(None).await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { method, what: "result", .. } if method == ListTools::METHOD),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "invalid result for tools/list");
}

#[tokio::test]
async fn strict_capabilities_refuse_calls_the_server_did_not_declare() {
    let server = FakeServer::new().answer(
        mcp_types::Initialize::METHOD,
        json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
               "serverInfo": {"name": "s", "version": "1"}}),
    );
    let h = server
        .connect(Client::builder().strict_capabilities(true))
        .await;
    let err = h.client.list_prompts(None).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::CapabilityNotDeclared {
                side: Side::Server,
                capability: "prompts"
            }
        ),
        "{err:?}"
    );
    let err = h.client.subscribe("file:///a").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the server did not declare the resources.subscribe capability"
    );
    // Declared: goes out (and the fake server has no route for it).
    let err = h
        .client
        .call_tool_with(CallToolRequestParams::new("x"), CallOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Rpc(_)));
}

#[tokio::test]
async fn call_futures_and_streams_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let h = FakeServer::new().connect(Client::builder()).await;
    let call = h.client.call_tool(CallToolRequestParams::new("x"));
    assert_send(&call);
    let stream = h.client.list_tools_stream();
    assert_send(&stream);
    let generic = h.client.request::<ListTools>(Default::default());
    assert_send(&generic);
    // A call can run on another task.
    let client = h.client.clone();
    let task = tokio::spawn(async move { client.ping().await });
    assert!(task.await.unwrap().unwrap_err().as_rpc().is_some());
}
