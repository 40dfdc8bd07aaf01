//! Requests in both directions at once, answered out of order.

use futures::future::join_all;
use mcp_jsonrpc::{Config, Peer};
use serde_json::json;

use crate::common::{Events, TestHandler, connect, probe, raw, small_config, value};

/// A and B, each a `TestHandler` with `small_config()`, and their handlers' events.
fn pair() -> ((Peer, Events), (Peer, Events)) {
    let (pa, ea) = probe();
    let (pb, eb) = probe();
    let (a, b) = connect(
        TestHandler(pa),
        small_config(),
        TestHandler(pb),
        small_config(),
        2,
    );
    ((a, ea), (b, eb))
}

#[tokio::test(start_paused = true)]
async fn many_requests_both_ways_answered_out_of_order() {
    let ((a, _ea), (b, _eb)) = pair();
    let calls = |peer: Peer, side: &'static str| async move {
        join_all((0..100).map(|i| {
            let peer = peer.clone();
            async move {
                // Later requests finish sooner, so answers come back out of order.
                let params = json!({"ms": (100 - i) % 13, "value": format!("{side}{i}")});
                let got = peer.request("sleep", raw(params)).await.unwrap();
                assert_eq!(value(&got), json!(format!("{side}{i}")));
            }
        }))
        .await
    };
    tokio::join!(calls(a, "a"), calls(b, "b"));
}

#[tokio::test(start_paused = true)]
async fn handlers_call_back_while_the_concurrency_limit_is_reached() {
    // B serves one request at a time and that handler waits on a request to A: the run loop
    // must keep reading A's responses (and queueing A's other requests) meanwhile.
    let (pa, _ea) = probe();
    let (pb, eb) = probe();
    let mut config_b = Config::default();
    config_b.max_concurrent_requests = 1;
    config_b.outbound_queue = 1;
    let (a, _b) = connect(
        TestHandler(pa),
        small_config(),
        TestHandler(pb.clone()),
        config_b,
        1,
    );
    let results = join_all((0..20).map(|i| {
        let a = a.clone();
        async move { a.request("call_back", raw(json!({"n": i}))).await }
    }))
    .await;
    for (i, r) in results.into_iter().enumerate() {
        assert_eq!(value(&r.unwrap()), json!({"n": i}));
    }
    assert_eq!(pb.max_running.load(std::sync::atomic::Ordering::SeqCst), 1);
    drop(eb);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_requests_both_ways_on_a_multi_threaded_runtime() {
    let ((a, _ea), (b, _eb)) = pair();
    let calls = |peer: Peer| async move {
        join_all((0..200).map(|i| {
            let peer = peer.clone();
            tokio::spawn(async move {
                let params = json!({"ms": (200 - i) % 3, "value": i});
                let got = peer.request("sleep", raw(params)).await.unwrap();
                assert_eq!(value(&got), json!(i));
            })
        }))
        .await
    };
    let (ra, rb) = tokio::join!(calls(a), calls(b));
    assert!(ra.into_iter().chain(rb).all(|r| r.is_ok()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn notifications_from_many_tasks_all_arrive_while_requests_run() {
    // B's outbound queue is fed from several threads at once while its engine is busy
    // answering A's requests (each with progress sent back to back): every message that a
    // handle has queued must go out, whatever turn of the engine it arrives in.
    let ((a, mut ea), (b, _eb)) = pair();
    const TASKS: usize = 8;
    const EACH: usize = 50;
    let ticks = join_all((0..TASKS).map(|t| {
        let b = b.clone();
        tokio::spawn(async move {
            for i in 0..EACH {
                b.notify("tick", raw(json!({"t": t, "i": i})))
                    .await
                    .unwrap();
                if i % 7 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        })
    }));
    let calls = join_all((0..100).map(|_| {
        let a = a.clone();
        tokio::spawn(async move { a.request("burst", raw(json!({}))).await.map(|r| value(&r)) })
    }));
    let (ticks, calls) = tokio::join!(ticks, calls);
    assert!(ticks.into_iter().all(|t| t.is_ok()));
    for call in calls {
        assert_eq!(call.unwrap().unwrap(), json!("done"));
    }
    let mut seen = std::collections::HashSet::new();
    let all = async {
        while seen.len() < TASKS * EACH {
            let event = ea.next().await;
            if let Some(params) = event.strip_prefix("tick ") {
                assert!(seen.insert(params.to_owned()), "twice: {event}");
            }
        }
    };
    let arrived = tokio::time::timeout(std::time::Duration::from_secs(30), all).await;
    assert!(
        arrived.is_ok(),
        "only {} of {} ticks arrived",
        seen.len(),
        TASKS * EACH
    );
}
