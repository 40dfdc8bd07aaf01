//! mcp-redis against a real redis-server (one per test, from `testkit`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt as _;
use mcp_redis::{Error, INSTANCE_STOPPED, Redis, RedisOptions};
use mcp_server::events::{EventBus, Received, ServerEvent};
use mcp_server::session_store::SessionStore;
use mcp_server::tasks::{TaskRecord, TaskStore, TaskUpdate};
use mcp_transport_http::server::{
    EventStore, InMemoryEventStore, InMemorySessionDirectory, SessionDirectory, SessionRecord,
    StreamId, contract,
};
use mcp_types::TaskStatus;
use testkit::RedisServer;
use tokio::task::JoinHandle;

/// A failure guard only: nothing here is expected to take long.
const GUARD: Duration = Duration::from_secs(30);

async fn connect(server: &RedisServer, options: RedisOptions) -> (Redis, JoinHandle<()>) {
    let (redis, driver) = Redis::connect(&server.url(), options).await.unwrap();
    (redis, tokio::spawn(driver))
}

/// A fresh key prefix for each store a contract makes.
fn fresh(redis: &Redis) -> Redis {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    redis.with_prefix(format!("c{}:", NEXT.fetch_add(1, Ordering::Relaxed)))
}

#[tokio::test]
async fn the_event_store_keeps_the_contract() {
    let server = RedisServer::start().unwrap();
    let (redis, _driver) = connect(&server, RedisOptions::default()).await;
    contract::verify_event_store(|| fresh(&redis).event_store())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_small_event_bound_truncates_like_the_in_memory_store() {
    let server = RedisServer::start().unwrap();
    let eight = RedisOptions::default().max_events_per_session(8, 1 << 20);
    let (redis, _driver) = connect(&server, eight).await;
    contract::verify_event_store(|| fresh(&redis).event_store())
        .await
        .unwrap();
    let two = RedisOptions::default().max_events_per_session(2, 1 << 20);
    let (redis, _driver) = connect(&server, two).await;
    // The in-memory store's own truncation case, step by step, on both stores.
    let memory = InMemoryEventStore::new(2, 1 << 20);
    let shared = redis.event_store();
    for store in [&memory as &dyn EventStore, &shared] {
        let p1 = store.append("s", StreamId(1), Bytes::new()).await.unwrap();
        let p2 = store.append("s", StreamId(2), Bytes::new()).await.unwrap();
        store.append("s", StreamId(1), "a".into()).await.unwrap();
        assert!(
            !store
                .replay_after("s", &p1)
                .await
                .unwrap()
                .unwrap()
                .truncated
        );
        store.append("s", StreamId(1), "b".into()).await.unwrap();
        assert!(
            !store
                .replay_after("s", &p2)
                .await
                .unwrap()
                .unwrap()
                .truncated
        );
        store.append("s", StreamId(1), "c".into()).await.unwrap();
        let replay = store.replay_after("s", &p1).await.unwrap().unwrap();
        assert!(replay.truncated, "{store:?}");
        assert_eq!(replay.events.len(), 2);
        assert!(
            !store
                .replay_after("s", &p2)
                .await
                .unwrap()
                .unwrap()
                .truncated
        );
    }
}

#[tokio::test]
async fn events_appended_on_one_instance_replay_on_another() {
    let server = RedisServer::start().unwrap();
    let (a, _da) = connect(&server, RedisOptions::default()).await;
    let (b, _db) = connect(&server, RedisOptions::default()).await;
    let first = a
        .event_store()
        .append("s", StreamId(1), Bytes::new())
        .await
        .unwrap();
    let second = b
        .event_store()
        .append("s", StreamId(1), "x".into())
        .await
        .unwrap();
    assert_ne!(first, second);
    let replay = b
        .event_store()
        .replay_after("s", &first)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(replay.events.len(), 1);
    assert_eq!(replay.events[0].id, second);
}

#[tokio::test]
async fn the_directory_keeps_the_contract() {
    let server = RedisServer::start().unwrap();
    let (redis, _driver) = connect(&server, RedisOptions::default()).await;
    contract::verify_directory(|| fresh(&redis).session_directory())
        .await
        .unwrap();
    // And the reference implementation passes the same checks.
    contract::verify_directory(InMemorySessionDirectory::default)
        .await
        .unwrap();
}

#[tokio::test]
async fn the_session_store_keeps_the_contract() {
    let server = RedisServer::start().unwrap();
    let (redis, _driver) = connect(&server, RedisOptions::default()).await;
    mcp_server::session_store::verify(|| fresh(&redis).session_store())
        .await
        .unwrap();
}

#[tokio::test]
async fn the_task_store_keeps_the_contract() {
    let server = RedisServer::start().unwrap();
    let (redis, _driver) = connect(&server, RedisOptions::default()).await;
    mcp_server::tasks::contract::verify(|capacity| {
        fresh(&redis).task_store().with_max_tasks(capacity)
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn every_key_has_a_time_to_live() {
    let server = RedisServer::start().unwrap();
    let options = RedisOptions::default().max_events_per_session(2, 1 << 20);
    let (redis, _driver) = connect(&server, options).await;
    let mut sub = redis.event_bus().subscribe();
    // Every store, every key kind: evicted events, a claimed session, tasks with and
    // without a TTL of their own, of an owner and of none.
    let events = redis.event_store();
    let first = events.append("s", StreamId(1), Bytes::new()).await.unwrap();
    for _ in 0..3 {
        events.append("s", StreamId(1), "x".into()).await.unwrap();
    }
    events.replay_after("s", &first).await.unwrap().unwrap();
    let dir = redis.session_directory();
    dir.create(&SessionRecord::new("s", "http://a/mcp", Some("p".into())))
        .await
        .unwrap();
    dir.claim("s", "http://a/mcp", "http://b/mcp")
        .await
        .unwrap()
        .unwrap();
    dir.touch("s").await.unwrap();
    let snapshot = mcp_server::SessionSnapshot::new(
        mcp_types::ProtocolVersion::V2025_06_18,
        Default::default(),
    );
    redis.session_store().save("s", &snapshot).await.unwrap();
    let tasks = redis.task_store();
    tasks
        .create(TaskRecord::new("t1", None, None))
        .await
        .unwrap();
    tasks
        .create(TaskRecord::new(
            "t2",
            Some("alice".into()),
            Some(Duration::from_secs(60)),
        ))
        .await
        .unwrap();
    tasks
        .update("t1", TaskUpdate::status(TaskStatus::Completed))
        .await
        .unwrap();
    tasks.list(Some("alice"), None, 10).await.unwrap();
    redis.event_bus().publish(ServerEvent::ToolsListChanged);
    tokio::time::timeout(GUARD, sub.next()).await.unwrap();

    let mut raw = redis::Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut raw).unwrap();
    assert!(keys.len() >= 12, "{keys:?}");
    for key in keys {
        assert!(key.starts_with("mcp:"), "{key} is outside the prefix");
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut raw).unwrap();
        assert!(ttl > 0, "{key} has no time to live ({ttl})");
    }
}

#[tokio::test]
async fn a_session_record_expires_unless_touched() {
    let server = RedisServer::start().unwrap();
    let ttl = Duration::from_millis(300);
    let (redis, _driver) = connect(&server, RedisOptions::default().session_ttl(ttl)).await;
    let dir = redis.session_directory();
    dir.create(&SessionRecord::new("kept", "http://a/mcp", None))
        .await
        .unwrap();
    dir.create(&SessionRecord::new("left", "http://a/mcp", None))
        .await
        .unwrap();
    let snapshot = mcp_server::SessionSnapshot::new(
        mcp_types::ProtocolVersion::V2025_06_18,
        Default::default(),
    );
    redis.session_store().save("kept", &snapshot).await.unwrap();
    let started = Instant::now();
    // `left` is never touched: it goes once its TTL is up (Redis expires it).
    while dir.get("left").await.unwrap().is_some() {
        dir.touch("kept").await.unwrap();
        assert!(
            started.elapsed() < GUARD,
            "an untouched record never expired"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    dir.touch("kept").await.unwrap();
    assert!(dir.get("kept").await.unwrap().is_some());
    // Touching the directory record kept the session's snapshot too.
    assert_eq!(
        redis.session_store().load("kept").await.unwrap(),
        Some(snapshot)
    );
}

#[tokio::test]
async fn events_reach_subscribers_of_another_instance() {
    let server = RedisServer::start().unwrap();
    let (a, _da) = connect(&server, RedisOptions::default()).await;
    let (b, _db) = connect(&server, RedisOptions::default()).await;
    let mut on_b = b.event_bus().subscribe();
    let mut on_a = a.event_bus().subscribe();
    let event = ServerEvent::ResourceUpdated {
        uri: "file:///x".into(),
    };
    a.event_bus().publish(event.clone());
    a.event_bus().publish(ServerEvent::ToolsListChanged);
    for stream in [&mut on_b, &mut on_a] {
        let first = tokio::time::timeout(GUARD, stream.next()).await.unwrap();
        assert_eq!(first, Some(Received::Event(event.clone())));
        let second = tokio::time::timeout(GUARD, stream.next()).await.unwrap();
        assert_eq!(second, Some(Received::Event(ServerEvent::ToolsListChanged)));
    }
    assert_eq!(a.event_bus().dropped(), 0);
}

#[tokio::test]
async fn a_slow_subscriber_lags_and_a_full_queue_drops() {
    let server = RedisServer::start().unwrap();
    let options = RedisOptions::default().bus_capacity(2).publish_queue(4);
    let (redis, driver) = Redis::connect(&server.url(), options).await.unwrap();
    let bus = redis.event_bus();
    let mut slow = bus.subscribe();
    // The driver is not running yet: the queue of 4 fills, the rest is dropped.
    for _ in 0..6 {
        bus.publish(ServerEvent::PromptsListChanged);
    }
    assert_eq!(bus.dropped(), 2);
    let _driver = tokio::spawn(driver);
    // A subscriber that reads too late lags. How soon the events arrive is up to the
    // machine: wait longer each round (the guard only stops a broken bus).
    let started = Instant::now();
    let mut wait = Duration::from_millis(100);
    loop {
        tokio::time::sleep(wait).await;
        let first = tokio::time::timeout(GUARD, slow.next()).await.unwrap();
        if first == Some(Received::Lagged) {
            break;
        }
        assert!(
            started.elapsed() < GUARD,
            "a subscriber 4 behind a bus of 2 never lagged"
        );
        for _ in 0..4 {
            bus.publish(ServerEvent::PromptsListChanged);
        }
        wait *= 2;
    }
}

#[tokio::test]
async fn a_task_of_a_stopped_instance_is_reported_failed() {
    let server = RedisServer::start().unwrap();
    let options = RedisOptions::default().instance_ttl(Duration::from_secs(1));
    let (a, driver_a) = connect(&server, options.clone()).await;
    let (b, _db) = connect(&server, options).await;
    let (store_a, store_b) = (a.task_store(), b.task_store());
    store_a
        .create(TaskRecord::new("t", None, Some(Duration::from_secs(60))))
        .await
        .unwrap();
    store_a
        .create(TaskRecord::new("done", None, Some(Duration::from_secs(60))))
        .await
        .unwrap();
    store_a
        .update("done", TaskUpdate::status(TaskStatus::Completed))
        .await
        .unwrap();
    // While A runs, B sees the task working.
    assert_eq!(
        store_b.get("t").await.unwrap().unwrap().status,
        TaskStatus::Working
    );
    driver_a.abort();
    let started = Instant::now();
    let failed = loop {
        let task = store_b.get("t").await.unwrap().unwrap();
        if task.status != TaskStatus::Working {
            break task;
        }
        assert!(started.elapsed() < GUARD, "the task stayed working");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(failed.status, TaskStatus::Failed);
    assert_eq!(failed.status_message.as_deref(), Some(INSTANCE_STOPPED));
    // Stored as failed: listing agrees, and it refuses changes.
    let page = store_b.list(None, None, 10).await.unwrap();
    let statuses: Vec<_> = page
        .tasks
        .iter()
        .map(|t| (t.id.as_str(), t.status))
        .collect();
    assert_eq!(
        statuses,
        [("t", TaskStatus::Failed), ("done", TaskStatus::Completed)]
    );
    assert!(
        store_b
            .update("t", TaskUpdate::status(TaskStatus::Completed))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn an_unreachable_redis_gives_errors_not_hangs() {
    // Nobody listens on this port (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let options = RedisOptions::default().connect_timeout(Duration::from_secs(2));
    let refused = tokio::time::timeout(
        GUARD,
        Redis::connect(&format!("redis://127.0.0.1:{port}/"), options.clone()),
    )
    .await
    .expect("connect hung");
    assert!(matches!(refused, Err(Error::Redis(_))), "{refused:?}");

    // A Redis that goes away: every store answers with an error.
    let server = RedisServer::start().unwrap();
    let options = options
        .response_timeout(Duration::from_secs(1))
        .reconnect_backoff(Duration::from_millis(50), Duration::from_millis(200));
    let (redis, _driver) = connect(&server, options).await;
    redis.session_directory().touch("s").await.unwrap();
    drop(server);
    let dir = redis.session_directory();
    let events = redis.event_store();
    let tasks = redis.task_store();
    let started = Instant::now();
    let get = tokio::time::timeout(GUARD, dir.get("s"))
        .await
        .expect("get hung");
    assert!(get.is_err(), "{get:?}");
    let append = tokio::time::timeout(GUARD, events.append("s", StreamId(1), Bytes::new()))
        .await
        .expect("append hung");
    assert!(append.is_err());
    let task = tokio::time::timeout(GUARD, tasks.get("t"))
        .await
        .expect("task get hung");
    assert!(task.is_err());
    let snapshot = tokio::time::timeout(GUARD, redis.session_store().load("s"))
        .await
        .expect("load hung");
    assert!(snapshot.is_err());
    redis.event_bus().publish(ServerEvent::ToolsListChanged);
    assert!(started.elapsed() < GUARD);
}

#[tokio::test]
async fn the_driver_reconnects_when_redis_comes_back() {
    let server = RedisServer::start().unwrap();
    let port = server.port();
    let options = RedisOptions::default()
        .reconnect_backoff(Duration::from_millis(50), Duration::from_millis(200))
        .response_timeout(Duration::from_secs(1));
    let (redis, _driver) = connect(&server, options).await;
    let mut events = redis.event_bus().subscribe();
    drop(server);
    let started = Instant::now();
    while redis.is_connected() {
        assert!(
            started.elapsed() < GUARD,
            "the lost connection went unnoticed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A new server on the same port (retried: the port may linger for a moment).
    let _again = loop {
        match RedisServer::start_on_port(port) {
            Ok(server) => break server,
            Err(e) => {
                assert!(started.elapsed() < GUARD, "cannot restart redis: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    while !redis.is_connected() {
        assert!(started.elapsed() < GUARD, "the driver did not reconnect");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let lagged = tokio::time::timeout(GUARD, events.next()).await.unwrap();
    assert_eq!(
        lagged,
        Some(Received::Lagged),
        "subscribers learn they may have missed events"
    );
    redis.session_directory().touch("s").await.unwrap();
}

/// Per-operation cost against the in-memory stores (printed, not asserted).
#[tokio::test]
async fn per_operation_cost() {
    const N: u32 = 2000;
    let server = RedisServer::start().unwrap();
    let (redis, _driver) = connect(&server, RedisOptions::default()).await;
    let shared = redis.event_store();
    let memory = InMemoryEventStore::default();
    let mut report = String::new();
    for (name, store) in [
        ("in-memory", &memory as &dyn EventStore),
        ("redis", &shared),
    ] {
        let first = store.append("s", StreamId(1), Bytes::new()).await.unwrap();
        let data = Bytes::from(vec![b'x'; 200]);
        let started = Instant::now();
        for _ in 0..N {
            store.append("s", StreamId(1), data.clone()).await.unwrap();
        }
        let append = started.elapsed() / N;
        let last = store.append("s", StreamId(1), data.clone()).await.unwrap();
        for _ in 0..10 {
            store.append("s", StreamId(1), data.clone()).await.unwrap();
        }
        let started = Instant::now();
        for _ in 0..N {
            store.replay_after("s", &last).await.unwrap().unwrap();
        }
        let replay10 = started.elapsed() / N;
        let started = Instant::now();
        for _ in 0..N / 10 {
            store.replay_after("s", &first).await.unwrap().unwrap();
        }
        let replay_full = started.elapsed() / (N / 10);
        report += &format!(
            "{name}: append {append:?}, replay of 10 {replay10:?}, replay of 1024 {replay_full:?}\n"
        );
    }
    let memory = InMemorySessionDirectory::default();
    let shared = redis.session_directory();
    for (name, dir) in [
        ("in-memory", &memory as &dyn SessionDirectory),
        ("redis", &shared),
    ] {
        dir.create(&SessionRecord::new("s", "http://a/mcp", Some("p".into())))
            .await
            .unwrap();
        let started = Instant::now();
        for _ in 0..N {
            dir.get("s").await.unwrap().unwrap();
        }
        report += &format!("{name}: directory get {:?}\n", started.elapsed() / N);
    }
    // Shown with `--no-capture`: a measurement, not an assertion.
    #[allow(clippy::print_stderr)]
    {
        eprint!("{report}");
    }
}
