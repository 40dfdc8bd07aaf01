//! GET: the standalone stream, 409, and resumption with Last-Event-ID.

use mcp_jsonrpc::to_raw_value;
use mcp_transport_http::server::StreamableHttpService;
use serde_json::json;

use std::time::Duration;

use super::{Sse, initialize_body, request, start};

#[tokio::test]
async fn standalone_stream_gets_server_initiated_notifications() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server.get(&id).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let priming = sse.next().await.unwrap();
    assert!(priming.id.is_some() && priming.retry.is_some() && priming.data.is_empty());

    // A second GET is refused while the first is open.
    let second = server.get(&id).send().await.unwrap();
    assert_eq!(second.status(), 409);

    let peer = server.peer(&id);
    peer.notify("notifications/tools/list_changed", None)
        .await
        .unwrap();
    peer.notify(
        "notifications/message",
        Some(to_raw_value(&json!({"level": "info", "data": 1})).unwrap()),
    )
    .await
    .unwrap();
    let ev = sse.next().await.unwrap();
    assert!(ev.id.is_some());
    assert_eq!(ev.json()["method"], "notifications/tools/list_changed");
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/message"
    );

    // Once the first stream is gone, a new GET may open.
    drop(sse);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let third = server.get(&id).send().await.unwrap();
    assert_eq!(third.status(), 200);
}

#[tokio::test]
async fn standalone_stream_resumes_after_last_event_id() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let mut sse = Sse::new(server.get(&id).send().await.unwrap());
    let priming = sse.next().await.unwrap();
    let peer = server.peer(&id);
    peer.notify("notifications/a", None).await.unwrap();
    let a = sse.next().await.unwrap();
    // The client drops the connection; the server keeps notifying.
    assert!(
        server
            .service
            .session(&id)
            .unwrap()
            .close_standalone_stream()
    );
    assert!(sse.next().await.is_none());
    peer.notify("notifications/b", None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;

    let res = server
        .get(&id)
        .header("last-event-id", a.id.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/b"
    );
    peer.notify("notifications/c", None).await.unwrap();
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/c"
    );
    drop(sse);

    // Replaying from the priming event gives everything after it.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let res = server
        .get(&id)
        .header("last-event-id", priming.id.unwrap())
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    for method in ["notifications/a", "notifications/b", "notifications/c"] {
        assert_eq!(sse.next().await.unwrap().json()["method"], method);
    }
}

#[tokio::test]
async fn closed_request_stream_resumes_with_last_event_id() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(
            Some(&id),
            request(9, "reconnect", json!({"_meta": {"progressToken": 77}})),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let priming = sse.next().await.unwrap();
    assert_eq!(priming.data, "");
    assert!(priming.retry.is_some());
    // The server closed the connection before answering.
    assert!(sse.next().await.is_none());

    let res = server
        .get(&id)
        .header("last-event-id", priming.id.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let progress = sse.next().await.unwrap();
    assert_eq!(progress.json()["method"], "notifications/progress");
    assert_eq!(progress.json()["params"]["progressToken"], 77);
    let response = sse.next().await.unwrap();
    assert_eq!(response.json()["id"], 9);
    assert_eq!(response.json()["result"], "resumed");
    assert!(
        sse.next().await.is_none(),
        "the resumed stream ends with the response"
    );

    // Replaying the finished stream again gives the same events, then ends.
    let res = server
        .get(&id)
        .header("last-event-id", priming.id.unwrap())
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/progress"
    );
    assert_eq!(sse.next().await.unwrap().json()["id"], 9);
    assert!(sse.next().await.is_none());

    // An id that is not the session's is refused.
    let res = server
        .get(&id)
        .header("last-event-id", "bogus")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
}

#[tokio::test]
async fn a_handler_closes_its_stream_through_request_extensions() {
    let server = start(StreamableHttpService::builder()).await;
    let id = server.initialize().await;
    let res = server
        .post(Some(&id), request(4, "poll", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let priming = sse.next().await.unwrap();
    assert_eq!(priming.data, "");
    assert!(sse.next().await.is_none(), "closed before the response");

    let res = server
        .get(&id)
        .header("last-event-id", priming.id.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let response = sse.next().await.unwrap();
    assert_eq!(response.json()["id"], 4);
    assert_eq!(response.json()["result"], "polled");
    assert!(sse.next().await.is_none());
}

/// The client transport resumes the closed stream on its own.
#[cfg(feature = "client")]
#[tokio::test]
async fn the_client_transport_resumes_a_stream_closed_by_the_handler() {
    use mcp_jsonrpc::{Config, Connection};
    use mcp_transport_http::client::StreamableHttpClientTransport;

    let server = start(StreamableHttpService::builder().sse_retry(Duration::from_millis(10))).await;
    let transport = StreamableHttpClientTransport::new(&server.url).unwrap();
    let (peer, connection) = Connection::new(transport, (), Config::default());
    let run = tokio::spawn(connection.run());
    let init = serde_json::value::to_raw_value(&initialize_body(super::VERSION)["params"]).unwrap();
    peer.request("initialize", Some(init)).await.unwrap();
    peer.notify("notifications/initialized", None)
        .await
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), peer.request("poll", None))
        .await
        .expect("resumed in time")
        .unwrap();
    assert_eq!(result.get(), r#""polled""#);
    peer.close();
    run.await.unwrap().unwrap();
}
