//! Timeouts (default, per call, reset by progress, hard maximum) and cancellation on drop.
//! Time is paused: tokio advances it when everything is idle, so no test sleeps for real.

use std::time::Duration;

use mcp_client::{CallOptions, Client, Error};
use mcp_jsonrpc::RequestContext;
use mcp_types::{CallTool, CallToolRequestParams, Request as _};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{FakeServer, Harness, Reply};

/// A `tools/call` that reports progress every 600 ms, `steps` times, then answers.
async fn progressing(steps: u32, ctx: RequestContext) -> Reply {
    for i in 1..=steps {
        tokio::time::sleep(Duration::from_millis(600)).await;
        ctx.report_progress(f64::from(i), None, None).await.unwrap();
    }
    Ok(json!({"content": []}))
}

/// A server whose `tools/call` named `hang` never answers (and reports, on `cancelled`, that
/// the client cancelled it), and whose `progress` tool calls [`progressing`].
async fn server(builder: mcp_client::ClientBuilder) -> (Harness, mpsc::Receiver<Value>) {
    let (cancelled_tx, cancelled) = mpsc::channel(4);
    let h = FakeServer::new()
        .route(
            CallTool::METHOD,
            move |params: Value, ctx: RequestContext| {
                let cancelled_tx = cancelled_tx.clone();
                async move {
                    match params["name"].as_str() {
                        Some("progress") => progressing(5, ctx).await,
                        Some("long") => progressing(10, ctx).await,
                        _ => {
                            let token = ctx.cancellation().clone();
                            let id = serde_json::to_value(ctx.id()).unwrap();
                            tokio::spawn(async move {
                                token.cancelled().await;
                                let _ = cancelled_tx.send(id).await;
                            });
                            std::future::pending().await
                        }
                    }
                }
            },
        )
        .connect(builder)
        .await;
    (h, cancelled)
}

#[tokio::test(start_paused = true)]
async fn the_default_timeout_fails_the_call_and_cancels_it_on_the_server() {
    let (mut h, mut cancelled) =
        server(Client::builder().request_timeout(Some(Duration::from_secs(1)))).await;
    let err = h
        .client
        .call_tool(CallToolRequestParams::new("hang"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_secs(1)),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "request timed out after 1s");
    let call = h.server.next_with(CallTool::METHOD).await;
    assert_eq!(call.params()["name"], "hang");
    // The server was told: its handler's cancellation fired.
    assert!(cancelled.recv().await.is_some());
}

#[tokio::test(start_paused = true)]
async fn a_per_call_timeout_overrides_the_default() {
    let (h, _cancelled) = server(Client::builder()).await;
    let err = h
        .client
        .call_tool_with(
            CallToolRequestParams::new("hang"),
            CallOptions::new().timeout(Duration::from_millis(250)),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_millis(250)),
        "{err:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn progress_resets_the_timeout() {
    let (h, _cancelled) = server(Client::builder()).await;
    let options = CallOptions::new().timeout(Duration::from_secs(1));
    // 5 × 600 ms = 3 s in total, never 1 s without progress.
    let (mut progress, call) = h
        .client
        .call_tool_with_progress(CallToolRequestParams::new("progress"), options.clone());
    let drain = async { while progress.recv().await.is_some() {} };
    let (result, ()) = tokio::join!(call, drain);
    result.unwrap();

    // Without asking for progress, nothing resets it.
    let err = h
        .client
        .call_tool_with(CallToolRequestParams::new("progress"), options)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
}

#[tokio::test(start_paused = true)]
async fn the_hard_maximum_is_not_extended_by_progress() {
    let (h, _cancelled) = server(Client::builder()).await;
    let options = CallOptions::new()
        .timeout(Duration::from_secs(1))
        .max_total_timeout(Duration::from_secs(2));
    let (_progress, call) = h
        .client
        .call_tool_with_progress(CallToolRequestParams::new("long"), options);
    let err = call.await.unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_secs(2)),
        "{err:?}"
    );

    // The same from the client-wide default.
    let (h, _cancelled) = server(Client::builder().max_total_timeout(Duration::from_secs(2))).await;
    let (_progress, call) = h.client.call_tool_with_progress(
        CallToolRequestParams::new("long"),
        CallOptions::new().timeout(Duration::from_secs(1)),
    );
    let err = call.await.unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_secs(2)),
        "{err:?}"
    );
}

#[tokio::test]
async fn dropping_a_call_cancels_it_on_the_server() {
    let (mut h, mut cancelled) = server(Client::builder()).await;
    let mut call = Box::pin(h.client.call_tool(CallToolRequestParams::new("hang")));
    // Drive the call until the server has it, then drop it.
    let sent_id = tokio::select! {
        r = &mut call => panic!("the call finished: {r:?}"),
        seen = h.server.next_with(CallTool::METHOD) => seen,
    };
    assert_eq!(sent_id.params()["name"], "hang");
    drop(call);
    let id = cancelled.recv().await.unwrap();
    assert!(id.is_number(), "{id}");
    // The connection carries on.
    assert!(h.client.list_tools(None).await.is_err()); // no route: an Rpc error, not Closed
    assert!(!h.client.is_closed());
}
