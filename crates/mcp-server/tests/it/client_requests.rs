use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_jsonrpc::{Id, Message, Notification, Request, Transport, memory, to_raw_value};
use mcp_server::types::{
    CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestURLParams,
    ElicitRequestedSchema, SamplingMessage,
};
use mcp_server::{Context, Error, HandlerError, Server, Tool};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::Client;

fn server() -> Server {
    Server::builder()
        .tool(Tool::new("sample", |cx: Context| async move {
            let r = cx
                .sample(CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text("hi")],
                    100,
                ))
                .await?;
            Ok::<_, HandlerError>(format!(
                "{} via {}",
                r.content.first_text().unwrap_or(""),
                r.model
            ))
        }))
        .tool(Tool::new("elicit_form", |cx: Context| async move {
            let r = cx
                .elicit(ElicitRequestFormParams::new(
                    "Your name?",
                    ElicitRequestedSchema::default(),
                ))
                .await?;
            Ok::<_, HandlerError>(serde_json::to_string(&r)?)
        }))
        .tool(Tool::new("elicit_url", |cx: Context| async move {
            let r = cx
                .elicit(ElicitRequestURLParams::new(
                    "Sign in",
                    "https://example.com/login",
                ))
                .await?;
            Ok::<_, HandlerError>(serde_json::to_string(&r)?)
        }))
        .tool(Tool::new("roots", |cx: Context| async move {
            let r = cx.list_roots().await?;
            Ok::<_, HandlerError>(r.roots[0].uri.clone())
        }))
        .tool(Tool::new("progress", |cx: Context| async move {
            let token = cx.progress_token();
            cx.report_progress(0.0, Some(100.0), Some("start")).await?;
            cx.report_progress(50.0, Some(100.0), None).await?;
            let again = cx.report_progress(50.0, Some(100.0), None).await;
            assert!(matches!(again, Err(Error::ProgressNotIncreasing { .. })));
            let back = cx.report_progress(10.0, None, None).await;
            assert!(matches!(back, Err(Error::ProgressNotIncreasing { .. })));
            cx.report_progress(100.0, Some(100.0), Some("done")).await?;
            Ok::<_, HandlerError>(format!("{token:?}"))
        }))
        .build()
}

fn text(r: &Value) -> &str {
    r["content"][0]["text"].as_str().unwrap()
}

#[tokio::test(start_paused = true)]
async fn sampling_elicitation_and_roots_round_trip() {
    let server = server();
    let client = Client::connect_full(&server).await;

    let r = client
        .raw("tools/call", json!({"name": "sample"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "echo: hi via test-model");

    let r = client
        .raw("tools/call", json!({"name": "elicit_form"}))
        .await
        .unwrap();
    assert_eq!(
        text(&r),
        r#"{"action":"accept","content":{"name":"Alice"}}"#
    );

    let r = client
        .raw("tools/call", json!({"name": "elicit_url"}))
        .await
        .unwrap();
    assert_eq!(text(&r), r#"{"action":"accept"}"#);

    let r = client
        .raw("tools/call", json!({"name": "roots"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "file:///work");

    let asked: Vec<String> = client
        .asked
        .lock()
        .unwrap()
        .iter()
        .map(|(m, _)| m.clone())
        .collect();
    assert_eq!(
        asked,
        [
            "sampling/createMessage",
            "elicitation/create",
            "elicitation/create",
            "roots/list"
        ]
    );
    let asked = client.asked.lock().unwrap();
    assert_eq!(asked[0].1["messages"][0]["content"]["text"], "hi");
    assert_eq!(asked[2].1["mode"], "url");
    assert_eq!(asked[2].1["url"], "https://example.com/login");
}

#[tokio::test(start_paused = true)]
async fn nothing_is_sent_for_undeclared_capabilities() {
    let server = server();
    // Form elicitation only (the 2025-06-18 `{}` shape), no sampling, no roots.
    let (client, _) = Client::connect(&server, "2025-11-25", json!({"elicitation": {}})).await;
    for (tool, message) in [
        (
            "sample",
            "the client did not declare the sampling capability",
        ),
        (
            "elicit_url",
            "the client did not declare the elicitation.url capability",
        ),
        ("roots", "the client did not declare the roots capability"),
    ] {
        let r = client
            .raw("tools/call", json!({"name": tool}))
            .await
            .unwrap();
        assert_eq!(r["isError"], true, "{tool}");
        assert_eq!(text(&r), message);
    }
    let r = client
        .raw("tools/call", json!({"name": "elicit_form"}))
        .await
        .unwrap();
    assert!(r.get("isError").is_none());

    // URL mode needs 2025-11-25, elicitation 2025-06-18, whatever the client declares.
    let caps = json!({"elicitation": {"form": {}, "url": {}}});
    let (old, _) = Client::connect(&server, "2025-06-18", caps.clone()).await;
    let r = old
        .raw("tools/call", json!({"name": "elicit_url"}))
        .await
        .unwrap();
    assert_eq!(
        text(&r),
        "url-mode elicitation is not available in protocol version 2025-06-18"
    );
    let (older, _) = Client::connect(&server, "2025-03-26", caps).await;
    let r = older
        .raw("tools/call", json!({"name": "elicit_form"}))
        .await
        .unwrap();
    assert_eq!(
        text(&r),
        "elicitation is not available in protocol version 2025-03-26"
    );

    assert_eq!(client.asked.lock().unwrap().len(), 1);
    assert!(old.asked.lock().unwrap().is_empty());
    assert!(older.asked.lock().unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
async fn progress_is_monotonic_and_carries_the_token() {
    let server = server();
    let mut client = Client::connect_full(&server).await;
    let r = client
        .raw(
            "tools/call",
            json!({"name": "progress", "_meta": {"progressToken": "p-1"}}),
        )
        .await
        .unwrap();
    assert_eq!(text(&r), r#"Some(String("p-1"))"#);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (method, params) = client.notification().await;
        assert_eq!(method, "notifications/progress");
        assert_eq!(params["progressToken"], "p-1");
        seen.push(params["progress"].as_f64().unwrap());
    }
    assert_eq!(seen, [0.0, 50.0, 100.0]);
    client.assert_no_notification().await;

    // Without a token, progress is not sent (and not an error).
    let r = client
        .raw("tools/call", json!({"name": "progress"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "None");
    client.assert_no_notification().await;
}

fn request(id: i64, method: &'static str, params: Value) -> Message {
    Message::Request(Request::new(
        Id::Number(id),
        method,
        Some(to_raw_value(&params).unwrap()),
    ))
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_call_fires_the_token_and_sends_no_response() {
    let started = Arc::new(Notify::new());
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = Server::builder()
        .tool(Tool::new("wait", {
            let started = started.clone();
            let cancelled = cancelled.clone();
            move |cx: Context| {
                let started = started.clone();
                let cancelled = cancelled.clone();
                async move {
                    let token = cx.cancellation().clone();
                    // Work handed off elsewhere sees the token fire.
                    tokio::spawn(async move {
                        token.cancelled().await;
                        cancelled.store(true, Ordering::SeqCst);
                    });
                    started.notify_one();
                    std::future::pending::<()>().await;
                    "never"
                }
            }
        }))
        .build();
    let (mut client, server_end) = memory::pair(16);
    tokio::spawn(async move { server.serve(server_end).await });
    client
        .send(request(1, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})))
        .await
        .unwrap();
    assert!(matches!(
        client.recv().await.unwrap(),
        Some(Message::Response(_))
    ));

    client
        .send(request(5, "tools/call", json!({"name": "wait"})))
        .await
        .unwrap();
    started.notified().await;
    client
        .send(Message::Notification(Notification::new(
            "notifications/cancelled",
            Some(to_raw_value(&json!({"requestId": 5, "reason": "bored"})).unwrap()),
        )))
        .await
        .unwrap();
    client.send(request(6, "ping", json!({}))).await.unwrap();
    let Some(Message::Response(r)) = client.recv().await.unwrap() else {
        panic!("expected a response")
    };
    assert_eq!(
        r.id,
        Some(Id::Number(6)),
        "no response to the cancelled call"
    );
    tokio::task::yield_now().await;
    assert!(cancelled.load(Ordering::SeqCst));
}
