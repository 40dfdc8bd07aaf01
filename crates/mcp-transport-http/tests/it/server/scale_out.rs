//! Two instances sharing a session directory and an event store (`Builder::directory`): a
//! request reaching the instance that does not hold its session is forwarded to the holder;
//! once the holder cannot be reached, the other instance takes the session over, and a
//! stream the holder was sending resumes there from the shared event store.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_transport_http::server::{
    EventStore, InMemoryEventStore, InMemorySessionDirectory, SessionDirectory, SessionRecord,
    StoreFuture, StreamableHttpService,
};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

use super::{Event, Sse, TestServer, json_body, request, start_on};

/// The tasks running an instance's sessions: abort them and its sessions stop, as when its
/// process died.
type Sessions = Arc<Mutex<JoinSet<()>>>;

struct Instances {
    a: TestServer,
    a_running: JoinHandle<()>,
    a_sessions: Sessions,
    b: TestServer,
    directory: Arc<InMemorySessionDirectory>,
}

async fn instance(
    directory: &Arc<InMemorySessionDirectory>,
    events: &Arc<dyn EventStore>,
    sessions: &Sessions,
) -> (TestServer, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (directory, events, sessions) = (directory.clone(), events.clone(), sessions.clone());
    start_on(
        listener,
        move |url| {
            StreamableHttpService::builder()
                .directory(directory, url)
                .event_store(Some(events))
                .spawner(move |task| {
                    sessions.lock().unwrap().spawn(task);
                })
        },
        None,
    )
}

async fn instances() -> Instances {
    let directory = Arc::new(InMemorySessionDirectory::default());
    let events: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
    let a_sessions = Sessions::default();
    let (a, a_running) = instance(&directory, &events, &a_sessions).await;
    let (b, _b_running) = instance(&directory, &events, &Sessions::default()).await;
    Instances {
        a,
        a_running,
        a_sessions,
        b,
        directory,
    }
}

/// Starts request 7, `progress` (first progress, then `ms` of work, then the rest), on
/// `server`; returns its stream, the priming event's id and the first progress event.
async fn progress_call(server: &TestServer, session: &str, ms: u64) -> (Sse, String, Event) {
    let res = server
        .post(
            Some(session),
            request(
                7,
                "progress",
                json!({"ms": ms, "_meta": {"progressToken": 9}}),
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
    (sse, priming.id.expect("a priming event id"), first)
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
        ..
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
    let (sse, _, first) = progress_call(&a, &id, 300).await;
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

#[tokio::test]
async fn a_request_the_gone_holder_never_answered_ends_with_410_once_replayed() {
    let Instances {
        a,
        a_running,
        a_sessions,
        b,
        ..
    } = instances().await;
    let id = a.initialize().await;
    let (sse, priming, first) = progress_call(&a, &id, 600_000).await;
    // A dies: no more connections, and its sessions stop mid-request.
    a_running.abort();
    let _ = a_running.await;
    a_sessions.lock().unwrap().abort_all();
    drop(sse);

    // Resumed from the priming event: the progress the client missed, then the end.
    let res = b
        .get(&id)
        .header("last-event-id", &priming)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut sse = Sse::new(res);
    let replayed = sse.next().await.unwrap();
    assert_eq!(replayed.id, first.id);
    assert!(sse.next().await.is_none());

    // Nothing left: the answer will never come, and the client is told so.
    let res = b
        .get(&id)
        .header("last-event-id", first.id.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 410);
    // The session itself goes on at B.
    let res = b
        .post(Some(&id), request(8, "echo", json!({"ok": true})))
        .send()
        .await
        .unwrap();
    assert_eq!(json_body(res).await["result"], json!({"ok": true}));
}

/// An in-memory directory that counts `get` and `touch` calls.
#[derive(Debug, Default)]
struct Counting {
    inner: InMemorySessionDirectory,
    read: std::sync::atomic::AtomicUsize,
    touched: std::sync::atomic::AtomicUsize,
}

impl SessionDirectory for Counting {
    fn create<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, ()> {
        self.inner.create(record)
    }
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        self.read.fetch_add(1, Ordering::SeqCst);
        self.inner.get(id)
    }
    fn claim<'a>(
        &'a self,
        id: &'a str,
        expected_home: &'a str,
        new_home: &'a str,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        self.inner.claim(id, expected_home, new_home)
    }
    fn touch<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.touched.fetch_add(1, Ordering::SeqCst);
        self.inner.touch(id)
    }
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.inner.remove(id)
    }
}

#[tokio::test]
async fn the_holder_keeps_its_sessions_records_alive() {
    let directory = Arc::new(Counting::default());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dir = directory.clone();
    let (server, _running) = start_on(
        listener,
        move |url| {
            StreamableHttpService::builder()
                .directory(dir, url)
                .directory_touch_interval(Duration::from_secs(1))
        },
        None,
    );
    let _id = server.initialize().await;
    tokio::time::timeout(Duration::from_secs(30), async {
        while directory.touched.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the session's record was never touched");
}

#[tokio::test]
async fn forwarding_remembers_the_holder_instead_of_reading_the_directory_each_time() {
    let directory = Arc::new(Counting::default());
    let events: Arc<dyn EventStore> = Arc::new(InMemoryEventStore::default());
    let start = |directory: Arc<Counting>, events: Arc<dyn EventStore>| async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        start_on(
            listener,
            move |url| {
                StreamableHttpService::builder()
                    .directory(directory, url)
                    .event_store(Some(events))
            },
            None,
        )
    };
    let (a, _a_running) = start(directory.clone(), events.clone()).await;
    let (b, _b_running) = start(directory.clone(), events).await;
    let id = a.initialize().await;
    let before = directory.read.load(Ordering::SeqCst);
    for n in 0..5 {
        let res = b
            .post(Some(&id), request(n, "echo", json!({"n": n})))
            .send()
            .await
            .unwrap();
        assert_eq!(json_body(res).await["result"], json!({"n": n}));
    }
    // One read by B for the first forward; the holder serves its own sessions unread.
    assert_eq!(directory.read.load(Ordering::SeqCst) - before, 1);
}
