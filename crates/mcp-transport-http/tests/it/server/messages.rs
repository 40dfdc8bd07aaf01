//! POST: 202 for notifications and responses, JSON or SSE for requests, batches.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use mcp_transport_http::server::StreamableHttpService;

use super::{Sse, error_body, request, start};

#[tokio::test]
async fn notification_is_202_without_body() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(
            Some(&id),
            json!({"jsonrpc": "2.0", "method": "notifications/whatever"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    assert!(res.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn request_gets_plain_json() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), request(7, "echo", json!({"x": 1})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    let body: Value = super::json_body(res).await;
    assert_eq!(body, json!({"jsonrpc": "2.0", "id": 7, "result": {"x": 1}}));
}

/// A large result (sent in parts: the envelope, the raw result, `}`) arrives whole, with its
/// `Content-Length`, as plain JSON and as an SSE event.
#[tokio::test]
async fn a_large_result_arrives_whole_as_json_and_as_an_event() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let text = "x\"y".repeat(40_000);
    let res = server
        .post(Some(&id), request(8, "echo", json!({"text": text})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    assert!(res.headers().get("transfer-encoding").is_none());
    let len: usize = res.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let bytes = res.bytes().await.unwrap();
    assert_eq!(bytes.len(), len);
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": 8, "result": {"text": text}})
    );

    let res = server
        .post(Some(&id), request(9, "log_echo", json!({"text": text})))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(sse.next().await.unwrap().data, "", "the priming event");
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/message"
    );
    assert_eq!(sse.next().await.unwrap().json()["result"]["text"], text);
    assert!(sse.next().await.is_none());
}

#[tokio::test]
async fn progress_first_switches_to_sse_with_priming_event() {
    let server =
        start(StreamableHttpService::builder().sse_retry(Duration::from_millis(500))).await;
    let id = server.initialize().await;
    let res = server
        .post(
            Some(&id),
            request(3, "progress", json!({"_meta": {"progressToken": "tok"}})),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let priming = sse.next().await.unwrap();
    assert!(priming.id.is_some());
    assert_eq!(priming.retry, Some(500));
    assert_eq!(priming.data, "");
    let first = sse.next().await.unwrap();
    assert!(first.id.is_some());
    assert_eq!(first.json()["method"], "notifications/progress");
    assert_eq!(first.json()["params"]["progressToken"], "tok");
    assert_eq!(first.json()["params"]["progress"], 1.0);
    let second = sse.next().await.unwrap();
    assert_eq!(second.json()["params"]["progress"], 2.0);
    let response = sse.next().await.unwrap();
    assert_eq!(response.json()["id"], 3);
    assert_eq!(response.json()["result"]["token"], "\"tok\"");
    assert!(
        sse.next().await.is_none(),
        "the stream ends after the response"
    );
    let ids = [priming.id, first.id, second.id, response.id];
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), 4, "event ids are unique: {ids:?}");
}

#[tokio::test]
async fn a_log_notification_travels_on_the_request_stream() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), request(4, "log", json!({})))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(sse.next().await.unwrap().data, "");
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/message"
    );
    assert_eq!(sse.next().await.unwrap().json()["result"], "logged");
    assert!(sse.next().await.is_none());
}

#[tokio::test]
async fn server_to_client_request_on_the_request_stream() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), request(5, "ask", json!({})))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(sse.next().await.unwrap().data, "");
    let ping = sse.next().await.unwrap().json();
    assert_eq!(ping["method"], "ping");
    // The client answers with a new POST: 202.
    let answer = json!({"jsonrpc": "2.0", "id": ping["id"], "result": {"pong": true}});
    let res = server.post(Some(&id), answer).send().await.unwrap();
    assert_eq!(res.status(), 202);
    let response = sse.next().await.unwrap().json();
    assert_eq!(response["id"], 5);
    assert_eq!(response["result"]["client said"]["pong"], true);
}

#[tokio::test]
async fn three_concurrent_posts_each_get_their_stream() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let calls = (0..3).map(|i| {
        let req = server.post(
            Some(&id),
            request(
                1000 + i,
                "progress",
                json!({"ms": 200, "_meta": {"progressToken": format!("t{i}")}}),
            ),
        );
        async move {
            let res = req.send().await.unwrap();
            assert_eq!(res.status(), 200);
            let mut sse = Sse::new(res);
            let mut events = Vec::new();
            while let Some(ev) = sse.next().await {
                if !ev.data.is_empty() {
                    events.push(ev.json());
                }
            }
            (i, events)
        }
    });
    for (i, events) in futures::future::join_all(calls).await {
        assert_eq!(events.len(), 3, "{events:?}");
        for progress in &events[..2] {
            assert_eq!(progress["params"]["progressToken"], format!("t{i}"));
        }
        assert_eq!(events[2]["id"], 1000 + i);
    }
}

#[tokio::test]
async fn batch_on_a_2025_03_26_session() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize_at("2025-03-26").await;
    let handle = server.service.session(&id).unwrap();
    assert_eq!(handle.negotiated_version().as_deref(), Some("2025-03-26"));
    assert_eq!(handle.session_id(), Some(&*id));
    let batch = json!([
        request(1, "echo", json!({"a": 1})),
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        request(2, "echo", json!({"b": 2})),
    ]);
    let res = server
        .post_with(
            Some(&id),
            batch.clone(),
            &[("mcp-protocol-version", "2025-03-26")],
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = super::json_body(res).await;
    let mut results: Vec<_> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    results.sort_unstable();
    assert_eq!(results, [1, 2]);
    // Without the header, the negotiated revision applies.
    let res = server
        .client
        .post(&server.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &id)
        .body(json!([request(3, "echo", json!({}))]).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // On a 2025-11-25 session, a batch is refused.
    let id = server.initialize().await;
    let res = server.post(Some(&id), batch).send().await.unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(error_body(res).await["error"]["code"], -32600);
}

#[tokio::test]
async fn invalid_json_is_400_with_a_parse_error() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), json!(null))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(error_body(res).await["error"]["code"], -32700);
}

#[tokio::test]
async fn cancelled_request_ends_its_stream_without_a_response() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(
            Some(&id),
            request(
                8,
                "progress",
                json!({"ms": 60_000, "_meta": {"progressToken": "c"}}),
            ),
        )
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(sse.next().await.unwrap().data, "");
    assert_eq!(
        sse.next().await.unwrap().json()["params"]["progressToken"],
        "c"
    );
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8}});
    let res = server.post(Some(&id), cancel).send().await.unwrap();
    assert_eq!(res.status(), 202);
    assert!(sse.next().await.is_none());
    // The id is free again.
    let res = server
        .post(Some(&id), request(8, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn duplicate_in_flight_request_id_is_400() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    // No progress token: the answer (plain JSON) only comes with the response.
    let first = tokio::spawn(
        server
            .post(Some(&id), request(6, "progress", json!({"ms": 60_000})))
            .send(),
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    let res = server
        .post(Some(&id), request(6, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(error_body(res).await["id"], 6);
    first.abort();
}

#[tokio::test]
async fn a_request_whose_client_goes_away_runs_on_until_cancelled() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    // Served in its POST's task; the client gives up before the answer.
    let pending = server
        .post(Some(&id), request(11, "hang", json!({})))
        .send();
    assert!(
        tokio::time::timeout(Duration::from_millis(300), pending)
            .await
            .is_err()
    );
    // A stateful session's request outlives its POST (the client may resume): the
    // session's connection carries on with it ...
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.dropped.load(Ordering::SeqCst), 0);
    // ... and cancels it when the client asks.
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11}});
    let res = server.post(Some(&id), cancel).send().await.unwrap();
    assert_eq!(res.status(), 202);
    server.wait_dropped(1).await;
    let res = server
        .post(Some(&id), request(11, "echo", json!({"again": true})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = super::json_body(res).await;
    assert_eq!(body["result"]["again"], true);
}
