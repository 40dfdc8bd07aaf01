//! Requests run inline, in the task of the transport that received them
//! ([`InlineRequests`]): answers, order behind what the handler sent, cancellation, slots,
//! abandoned calls, panics, the end of the connection.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use mcp_jsonrpc::{
    Config, Connection, InlineAnswer, InlineRequests, Message, Peer, Request, Result, Transport,
    memory, memory::MemoryClosed, memory::MemoryTransport,
};
use serde_json::json;
use tokio::task::JoinHandle;

use crate::common::{TestHandler, probe, raw, recv_value, send_text, value};

/// The in-memory transport, keeping the inline handle it is offered. With a `gate`, the
/// sends of notifications complete only once the gate has a permit (as a send that stores
/// its message before it is routed), and `sent` counts those that completed.
struct Keeping {
    inner: MemoryTransport,
    slot: Arc<Mutex<Option<InlineRequests>>>,
    gate: Option<Arc<tokio::sync::Semaphore>>,
    sent: Arc<std::sync::atomic::AtomicUsize>,
}

impl Transport for Keeping {
    type Error = MemoryClosed;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), MemoryClosed>> + Send + 'static {
        let gate = match &msg {
            Message::Notification(_) => self.gate.clone(),
            _ => None,
        };
        let sent = self.sent.clone();
        let send = self.inner.send(msg);
        async move {
            if let Some(gate) = gate {
                gate.acquire().await.expect("gate closed").forget();
                sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            send.await
        }
    }

    async fn recv(&mut self) -> Result<Option<Message>, MemoryClosed> {
        self.inner.recv().await
    }

    fn accept_inline(&mut self, inline: InlineRequests) -> bool {
        *self.slot.lock().unwrap() = Some(inline);
        true
    }
}

/// A connection whose transport took the inline handle; the connection is not running
/// yet (the test decides when it runs).
fn inline_connection(
    handler: TestHandler,
    config: Config,
) -> (
    Peer,
    InlineRequests,
    MemoryTransport,
    Connection<Keeping, TestHandler>,
) {
    inline_connection_gated(handler, config, None).0
}

/// Like [`inline_connection`], with the sends of notifications behind `gate`; also the
/// count of those sends that completed.
#[allow(clippy::type_complexity)]
fn inline_connection_gated(
    handler: TestHandler,
    config: Config,
    gate: Option<Arc<tokio::sync::Semaphore>>,
) -> (
    (
        Peer,
        InlineRequests,
        MemoryTransport,
        Connection<Keeping, TestHandler>,
    ),
    Arc<std::sync::atomic::AtomicUsize>,
) {
    let (near, far) = memory::pair(16);
    let slot = Arc::new(Mutex::new(None));
    let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let keeping = Keeping {
        inner: near,
        slot: slot.clone(),
        gate,
        sent: sent.clone(),
    };
    let (peer, connection) = Connection::new(keeping, handler, config);
    let inline = slot.lock().unwrap().take().expect("the handle was offered");
    ((peer, inline, far, connection), sent)
}

fn run(connection: Connection<Keeping, TestHandler>) -> JoinHandle<Result<()>> {
    tokio::spawn(connection.run())
}

fn request(id: i64, method: &str, params: serde_json::Value) -> Request {
    Request::new(id, method.to_owned(), raw(params))
}

/// Polls `fut` once.
async fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(std::pin::Pin::new(&mut *fut).poll(cx))).await
}

#[tokio::test(start_paused = true)]
async fn an_inline_request_is_answered_to_its_caller_and_nothing_goes_on_the_wire() {
    let (p, _events) = probe();
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), Config::default());
    let _run = run(connection);
    let call = inline
        .start(request(1, "echo", json!({"x": 1})))
        .ok()
        .unwrap();
    let InlineAnswer::Send(response) = call.await else {
        panic!("expected the answer")
    };
    assert_eq!(value(&response.result.unwrap()), json!({"x": 1}));
    // The wire saw nothing of it: the next thing written answers a request read from it.
    send_text(
        &mut far,
        r#"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"y":2}}"#,
    )
    .await;
    assert_eq!(
        recv_value(&mut far).await,
        json!({"jsonrpc":"2.0","id":2,"result":{"y":2}})
    );
}

#[tokio::test(start_paused = true)]
async fn an_answer_goes_out_behind_what_its_handler_sent_before_it() {
    let (p, _events) = probe();
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), Config::default());
    // The connection is not running: the handler's progress waits in its queue, so the
    // answer must queue behind it.
    let params = json!({"steps": 2, "tag": "t", "_meta": {"progressToken": "p"}});
    let call = inline.start(request(1, "progress", params)).ok().unwrap();
    assert!(matches!(call.await, InlineAnswer::Queued));
    let _run = run(connection);
    for step in [1, 2] {
        let progress = recv_value(&mut far).await;
        assert_eq!(progress["method"], "notifications/progress");
        assert_eq!(progress["params"]["progress"], f64::from(step));
    }
    assert_eq!(
        recv_value(&mut far).await,
        json!({"jsonrpc":"2.0","id":1,"result":"t"})
    );
}

#[tokio::test(start_paused = true)]
async fn with_everything_sent_before_it_the_answer_is_the_callers() {
    let (p, _events) = probe();
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), Config::default());
    let _run = run(connection);
    // The progress handler sleeps after each step: the running connection writes the
    // progress meanwhile, so nothing is left in its queue when the handler returns.
    let params = json!({"steps": 2, "tag": "t", "_meta": {"progressToken": "p"}});
    let call = inline.start(request(1, "progress", params)).ok().unwrap();
    let InlineAnswer::Send(response) = call.await else {
        panic!("expected the answer")
    };
    assert_eq!(value(&response.result.unwrap()), json!("t"));
    for step in [1, 2] {
        let progress = recv_value(&mut far).await;
        assert_eq!(progress["params"]["progress"], f64::from(step));
    }
}

#[tokio::test(start_paused = true)]
async fn an_answer_waits_for_sends_the_transport_has_not_finished() {
    let (p, _events) = probe();
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let ((_peer, inline, mut far, connection), sent) =
        inline_connection_gated(TestHandler(p), Config::default(), Some(gate.clone()));
    let _run = run(connection);
    // The handler's progress reaches the transport while the handler sleeps, but its send
    // does not finish: the answer cannot be the caller's to send (it would overtake it).
    let params = json!({"steps": 1, "tag": "t", "_meta": {"progressToken": "p"}});
    let call = inline.start(request(1, "progress", params)).ok().unwrap();
    let answer = call.await;
    assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert!(matches!(answer, InlineAnswer::Queued), "{answer:?}");
    gate.add_permits(1);
    assert_eq!(
        recv_value(&mut far).await["method"],
        "notifications/progress"
    );
    assert_eq!(
        recv_value(&mut far).await,
        json!({"jsonrpc":"2.0","id":1,"result":"t"})
    );
}

#[tokio::test(start_paused = true)]
async fn the_peer_cancels_an_inline_call() {
    let (p, mut events) = probe();
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), Config::default());
    let _run = run(connection);
    let mut call = inline.start(request(5, "block", json!({}))).ok().unwrap();
    assert!(poll_once(&mut call).await.is_pending());
    assert_eq!(events.next().await, "started 5");
    send_text(
        &mut far,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
    )
    .await;
    assert!(matches!(call.await, InlineAnswer::Cancelled));
    assert_eq!(events.next().await, "dropped 5 cancelled=true");
}

#[tokio::test(start_paused = true)]
async fn inline_calls_hold_slots_shared_with_the_connection() {
    let (p, mut events) = probe();
    let gate = p.gate.clone();
    let mut config = Config::default();
    config.max_concurrent_requests = 1;
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), config);
    let _run = run(connection);
    let mut first = inline.start(request(1, "block", json!({}))).ok().unwrap();
    assert!(poll_once(&mut first).await.is_pending());
    assert_eq!(events.next().await, "started 1");
    // No slot left: the request is given back, whole.
    let refused = inline
        .start(request(2, "echo", json!({"z": 3})))
        .err()
        .unwrap();
    assert_eq!(refused.id, 2.into());
    // A request read by the connection waits for the slot too ...
    send_text(
        &mut far,
        r#"{"jsonrpc":"2.0","id":3,"method":"echo","params":{"w":4}}"#,
    )
    .await;
    tokio::task::yield_now().await;
    // ... and gets it when the inline call frees it.
    gate.add_permits(1);
    assert!(matches!(first.await, InlineAnswer::Send(_)));
    assert_eq!(
        recv_value(&mut far).await,
        json!({"jsonrpc":"2.0","id":3,"result":{"w":4}})
    );
    // Its id is free again, and so is a slot.
    let again = inline.start(request(1, "echo", json!({}))).ok().unwrap();
    assert!(matches!(again.await, InlineAnswer::Send(_)));
}

#[tokio::test(start_paused = true)]
async fn an_id_running_inline_is_refused_both_ways() {
    let (p, mut events) = probe();
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), Config::default());
    let _run = run(connection);
    let mut call = inline.start(request(9, "block", json!({}))).ok().unwrap();
    assert!(poll_once(&mut call).await.is_pending());
    assert_eq!(events.next().await, "started 9");
    assert!(inline.start(request(9, "echo", json!({}))).is_err());
    send_text(
        &mut far,
        r#"{"jsonrpc":"2.0","id":9,"method":"echo","params":{}}"#,
    )
    .await;
    let reply = recv_value(&mut far).await;
    assert_eq!(reply["id"], 9);
    assert_eq!(reply["error"]["code"], -32600);
}

#[tokio::test(start_paused = true)]
async fn a_call_whose_caller_goes_away_is_finished_by_the_connection() {
    let (p, mut events) = probe();
    let gate = p.gate.clone();
    let (_peer, inline, mut far, connection) = inline_connection(TestHandler(p), Config::default());
    let _run = run(connection);
    // The connection cancels it like its own, should the peer ask ...
    let mut call = inline.start(request(6, "block", json!({}))).ok().unwrap();
    assert!(poll_once(&mut call).await.is_pending());
    assert_eq!(events.next().await, "started 6");
    drop(call);
    tokio::task::yield_now().await;
    send_text(
        &mut far,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}"#,
    )
    .await;
    assert_eq!(events.next().await, "dropped 6 cancelled=true");
    // ... and otherwise answers it through the transport.
    let mut call = inline
        .start(request(4, "block", json!({"k": 1})))
        .ok()
        .unwrap();
    assert!(poll_once(&mut call).await.is_pending());
    assert_eq!(events.next().await, "started 4");
    drop(call);
    gate.add_permits(1);
    assert_eq!(
        recv_value(&mut far).await,
        json!({"jsonrpc":"2.0","id":4,"result":{"k":1}})
    );
}

#[tokio::test(start_paused = true)]
async fn a_panicking_inline_handler_is_answered_32603() {
    let (p, _events) = probe();
    let (_peer, inline, _far, connection) = inline_connection(TestHandler(p), Config::default());
    let _run = run(connection);
    let call = inline.start(request(1, "panic", json!({}))).ok().unwrap();
    let InlineAnswer::Send(response) = call.await else {
        panic!("expected an answer")
    };
    assert_eq!(response.result.unwrap_err().code.0, -32603);
}

#[tokio::test(start_paused = true)]
async fn a_closing_connection_cancels_inline_calls_and_starts_no_more() {
    let (p, mut events) = probe();
    let (peer, inline, _far, connection) = inline_connection(TestHandler(p), Config::default());
    let run = run(connection);
    let mut call = inline.start(request(1, "block", json!({}))).ok().unwrap();
    assert!(poll_once(&mut call).await.is_pending());
    assert_eq!(events.next().await, "started 1");
    peer.close();
    run.await.unwrap().unwrap();
    assert!(matches!(call.await, InlineAnswer::Cancelled));
    assert!(inline.start(request(2, "echo", json!({}))).is_err());
}
