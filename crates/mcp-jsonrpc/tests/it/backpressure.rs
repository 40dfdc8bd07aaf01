//! Load: at its limits the connection stops reading instead of refusing or dropping, yet
//! responses to its own requests still arrive; a peer that stops reading does not keep a
//! closing connection alive.

use std::time::Duration;

use mcp_jsonrpc::{
    Config, Connection, Error, Message, Peer, Result, Transport, memory, memory::MemoryTransport,
};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::common::{TestHandler, probe, recv_value, send_text};

/// Long enough for every task to go idle (the clock is paused: it costs nothing).
const SETTLE: Duration = Duration::from_secs(1);

/// One connection over a pair of `capacity` messages each way; the test plays the peer.
fn start_with(
    handler: TestHandler,
    config: Config,
    capacity: usize,
) -> (Peer, MemoryTransport, JoinHandle<Result<()>>) {
    let (a, b) = memory::pair(capacity);
    let (peer, conn) = Connection::new(a, handler, config);
    (peer, b, tokio::spawn(conn.run()))
}

fn request(id: u64, method: &str) -> Message {
    Message::decode(
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}})
            .to_string()
            .as_bytes(),
    )
}

/// Whether the connection wrote anything within [`SETTLE`].
async fn wrote_something(remote: &mut MemoryTransport) -> bool {
    tokio::time::timeout(SETTLE, remote.recv()).await.is_ok()
}

#[tokio::test(start_paused = true)]
async fn a_full_backlog_stops_reading_instead_of_refusing() {
    let (p, mut events) = probe();
    let mut config = Config::default();
    config.max_concurrent_requests = 1;
    config.request_backlog = 1;
    let (_peer, mut remote, _run) = start_with(TestHandler(p.clone()), config, 1);
    // 0 runs, 1 waits in the backlog, 2 waits in the transport: nothing more is read.
    for id in 0..3 {
        remote.send(request(id, "block")).await.unwrap();
    }
    assert_eq!(events.next().await, "started 0");
    let blocked = tokio::time::timeout(SETTLE, remote.send(request(3, "block"))).await;
    assert!(
        blocked.is_err(),
        "the connection kept reading past its backlog"
    );
    assert!(!wrote_something(&mut remote).await, "something was refused");

    // Once the handlers finish, it reads on.
    p.gate.add_permits(4);
    tokio::time::timeout(SETTLE, remote.send(request(3, "block")))
        .await
        .expect("still not reading")
        .unwrap();
    let mut ids: Vec<u64> = Vec::new();
    for _ in 0..4 {
        let answer = recv_value(&mut remote).await;
        assert_eq!(answer["result"], json!({}), "{answer}");
        ids.push(answer["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, [0, 1, 2, 3]);
}

#[tokio::test(start_paused = true)]
async fn a_full_notification_queue_stops_reading_instead_of_dropping() {
    let (p, mut events) = probe();
    let mut config = Config::default();
    config.notification_queue = 1;
    let (_peer, mut remote, _run) = start_with(TestHandler(p), config, 1);
    // Each takes the (sequential) handler 10 s: one runs, one waits, one is in the
    // transport, and the next is not read.
    let note = |n: u64| {
        Message::decode(
            json!({"jsonrpc": "2.0", "method": "note", "params": {"ms": 10_000, "n": n}})
                .to_string()
                .as_bytes(),
        )
    };
    for n in 0..3 {
        remote.send(note(n)).await.unwrap();
    }
    let blocked = tokio::time::timeout(SETTLE, remote.send(note(3))).await;
    assert!(
        blocked.is_err(),
        "the connection kept reading past its queue"
    );
    remote.send(note(3)).await.unwrap();
    for n in 0..4 {
        assert_eq!(
            events.next().await,
            format!(r#"note {{"ms":10000,"n":{n}}}"#)
        );
    }
}

#[tokio::test(start_paused = true)]
async fn error_replies_are_never_dropped_when_the_peer_does_not_read() {
    let (p, _events) = probe();
    let mut config = Config::default();
    config.outbound_queue = 4;
    let (_peer, mut remote, _run) = start_with(TestHandler(p), config, 2);
    // 500 lines of garbage, each worth a -32700 reply, written while nobody reads.
    let mut sends = Vec::new();
    for _ in 0..500 {
        sends.push(remote.send(Message::decode(b"not json")));
    }
    let writer = tokio::spawn(async move {
        for send in sends {
            send.await.unwrap();
        }
    });
    tokio::time::sleep(SETTLE).await;
    assert!(!writer.is_finished(), "the connection kept reading");
    for _ in 0..500 {
        let reply = recv_value(&mut remote).await;
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
    }
    writer.await.unwrap();
    assert!(!wrote_something(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn responses_to_its_own_requests_are_read_while_the_backlog_is_full() {
    // The handler of 0 asks the peer something and holds the only slot until answered; the
    // answer comes after more requests than the backlog holds. The connection keeps reading
    // to find it (refusing what does not fit), so nothing deadlocks.
    let (p, _events) = probe();
    let mut config = Config::default();
    config.max_concurrent_requests = 1;
    config.request_backlog = 1;
    let (_peer, mut remote, _run) = start_with(TestHandler(p), config, 16);
    remote.send(request(0, "call_back")).await.unwrap();
    let asked = recv_value(&mut remote).await;
    assert_eq!(asked["method"], "echo", "{asked}");
    for id in 1..5 {
        remote.send(request(id, "echo")).await.unwrap();
    }
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"from": "peer"}});
    send_text(&mut remote, &answer.to_string()).await;

    let mut answers: Vec<Value> = Vec::new();
    for _ in 0..5 {
        answers.push(recv_value(&mut remote).await);
    }
    answers.sort_by_key(|a| a["id"].as_u64());
    assert_eq!(answers[0]["result"], json!({"from": "peer"}), "{answers:?}");
    assert_eq!(answers[1]["result"], json!({}), "{answers:?}");
    for refused in &answers[2..] {
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_cancellation_within_the_backlog_frees_the_slot() {
    let (p, mut events) = probe();
    let mut config = Config::default();
    config.max_concurrent_requests = 1;
    config.request_backlog = 2;
    let (_peer, mut remote, _run) = start_with(TestHandler(p), config, 1);
    remote.send(request(0, "block")).await.unwrap();
    assert_eq!(events.next().await, "started 0");
    remote.send(request(1, "echo")).await.unwrap();
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}"#,
    )
    .await;
    assert_eq!(events.next().await, "dropped 0 cancelled=true");
    let answer = recv_value(&mut remote).await;
    assert_eq!(answer["id"], 1, "{answer}");
}

#[tokio::test(start_paused = true)]
async fn a_response_too_large_to_keep_fails_its_request_at_once() {
    let (p, _events) = probe();
    let (peer, mut remote, _run) = start_with(TestHandler(p), Config::default(), 16);
    let call = tokio::spawn({
        let peer = peer.clone();
        async move { peer.request("get", None).await }
    });
    let asked = recv_value(&mut remote).await;
    // What a byte transport hands over for a line it skipped: its first bytes.
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"text":"aaaa"#,
        asked["id"]
    );
    remote
        .send(Message::oversized(head.as_bytes(), 50_000_000, 16_000_000))
        .await
        .unwrap();
    let started = tokio::time::Instant::now();
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(
            err,
            Error::MessageTooLarge {
                size: 50_000_000,
                limit: 16_000_000
            }
        ),
        "{err:?}"
    );
    assert_eq!(started.elapsed(), Duration::ZERO, "it waited for a timeout");
    // A response is not answered.
    assert!(!wrote_something(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn a_malformed_response_fails_its_request_and_is_not_answered() {
    let (p, _events) = probe();
    let (peer, mut remote, _run) = start_with(TestHandler(p), Config::default(), 16);
    let call = tokio::spawn({
        let peer = peer.clone();
        async move { peer.request("get", None).await }
    });
    let asked = recv_value(&mut remote).await;
    let bad = json!({"jsonrpc": "2.0", "id": asked["id"], "error": "not an object"});
    send_text(&mut remote, &bad.to_string()).await;
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid response from the peer: malformed error object (-32600)"
    );
    assert!(!wrote_something(&mut remote).await);
}

#[tokio::test(start_paused = true)]
async fn a_peer_that_stops_reading_does_not_keep_the_connection_open() {
    let (p, _events) = probe();
    let config = Config::default();
    let flush_timeout = config.flush_timeout;
    let (_peer, mut remote, run) = start_with(TestHandler(p), config, 1);
    for id in 0..5 {
        remote.send(request(id, "echo")).await.unwrap();
    }
    // The end of its stream, and it never reads the answers.
    remote.close().await.unwrap();
    let started = tokio::time::Instant::now();
    tokio::time::timeout(Duration::from_secs(3600), run)
        .await
        .expect("the connection never ended")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() >= flush_timeout);
}

#[tokio::test(start_paused = true)]
async fn integer_ids_beyond_i64_and_minus_zero_are_answered_as_sent() {
    let (p, mut events) = probe();
    let (_peer, mut remote, _run) = start_with(TestHandler(p), Config::default(), 16);
    for id in ["-0", "18446744073709551615", "-9223372036854775808"] {
        let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"echo","params":[]}}"#);
        send_text(&mut remote, &request).await;
        let answer = remote.recv().await.unwrap().unwrap().to_json().unwrap();
        assert_eq!(
            answer,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":[]}}"#)
        );
    }
    // And they can be cancelled by that id.
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"block","params":{}}"#,
    )
    .await;
    assert_eq!(events.next().await, "started 18446744073709551615");
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":18446744073709551615}}"#,
    )
    .await;
    assert_eq!(
        events.next().await,
        "dropped 18446744073709551615 cancelled=true"
    );
}
