//! Two instances sharing a session directory and an event store (`Builder::directory`): a
//! request reaching the instance that does not hold its session is forwarded to the holder;
//! once the holder cannot be reached, the other instance takes the session over, and a
//! stream the holder was sending resumes there from the shared event store.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_transport_http::server::{
    EventStore, InMemoryEventStore, InMemorySessionDirectory, SessionDirectory,
    StreamableHttpService,
};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::{Sse, TestServer, json_body, request, start_on};

struct Instances {
    a: TestServer,
    a_running: JoinHandle<()>,
    b: TestServer,
    directory: Arc<InMemorySessionDirectory>,
}

async fn instance(
    directory: &Arc<InMemorySessionDirectory>,
    events: &Arc<dyn EventStore>,
) -> (TestServer, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (directory, events) = (directory.clone(), events.clone());
    start_on(
        listener,
        move |url| {
            StreamableHttpService::builder()
                .directory(directory, url)
                .event_store(Some(events))
        },
        |router| router,
    )
}

async fn instances() -> Instances {
    let directory = Arc::new(InMemorySessionDirectory::default());
    let events: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
    let (a, a_running) = instance(&directory, &events).await;
    let (b, _b_running) = instance(&directory, &events).await;
    Instances {
        a,
        a_running,
        b,
        directory,
    }
}

#[tokio::test]
async fn a_request_for_a_session_held_elsewhere_is_forwarded_to_its_holder() {
    let Instances {
        a, b, directory, ..
    } = instances().await;
    let id = a.initialize().await;
    assert_eq!(directory.get(&id).await.unwrap().unwrap().home, a.url);

    // A plain JSON answer, relayed.
    let res = b
        .post(Some(&id), request(1, "echo", json!({"x": 1})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(json_body(res).await["result"], json!({"x": 1}));

    // An SSE answer, relayed as a stream.
    let res = b
        .post(
            Some(&id),
            request(2, "progress", json!({"_meta": {"progressToken": 5}})),
        )
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    let mut methods = Vec::new();
    while let Some(event) = sse.next().await {
        if event.data.is_empty() {
            continue; // the priming event
        }
        let msg = event.json();
        methods.push(msg["method"].as_str().unwrap_or("response").to_owned());
    }
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "response"
        ]
    );
    // B never ran the session: A served every request.
    assert_eq!(b.sessions_started.load(Ordering::SeqCst), 0);
    assert_eq!(a.sessions_started.load(Ordering::SeqCst), 1);

    // DELETE through B ends the session on A, which forgets it in the directory.
    let res = b.delete(&id).send().await.unwrap();
    assert_eq!(res.status(), 200);
    tokio::time::timeout(Duration::from_secs(10), async {
        while directory.get(&id).await.unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the ended session stayed in the directory");
    let res = b
        .post(Some(&id), request(3, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
}

#[tokio::test]
async fn a_session_whose_holder_is_gone_is_taken_over() {
    let Instances {
        a,
        a_running,
        b,
        directory,
    } = instances().await;
    let id = a.initialize().await;
    // A stops accepting connections, as if its process had died.
    a_running.abort();
    let _ = a_running.await;

    let res = b
        .post(Some(&id), request(1, "echo", json!({"x": 2})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(json_body(res).await["result"], json!({"x": 2}));
    assert_eq!(b.sessions_started.load(Ordering::SeqCst), 1);
    let record = directory.get(&id).await.unwrap().unwrap();
    assert_eq!(record.home, b.url);
    assert_eq!(record.generation, 1);

    // B holds it now: the next request is served there without another takeover.
    let res = b
        .post(Some(&id), request(2, "echo", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(b.sessions_started.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_stream_of_a_gone_holder_resumes_on_the_instance_taking_over() {
    let Instances {
        a, a_running, b, ..
    } = instances().await;
    let id = a.initialize().await;
    let res = a
        .post(
            Some(&id),
            request(
                7,
                "progress",
                json!({"ms": 300, "_meta": {"progressToken": 9}}),
            ),
        )
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    let priming = sse.next().await.unwrap();
    assert!(priming.data.is_empty());
    let first = sse.next().await.unwrap();
    assert_eq!(first.json()["params"]["progress"], 1.0);
    let last_seen = first.id.clone().expect("events carry ids");
    // The client loses its connection and A stops accepting; A's session still stores
    // what it sends (in the shared store) until the request is answered.
    drop(sse);
    a_running.abort();
    let _ = a_running.await;
    tokio::time::sleep(Duration::from_millis(600)).await;

    let res = b
        .get(&id)
        .header("last-event-id", &last_seen)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let second = sse.next().await.unwrap();
    assert_eq!(second.json()["params"]["progress"], 2.0);
    let answer = sse.next().await.unwrap();
    assert_eq!(answer.json()["id"], 7);
    assert!(sse.next().await.is_none(), "nothing after the answer");
    assert_eq!(b.sessions_started.load(Ordering::SeqCst), 1);
}
