//! Writing: replies that are ready together go out in one `send_many`.

use std::sync::{Arc, Mutex};

use mcp_jsonrpc::memory::{self, MemoryTransport};
use mcp_jsonrpc::{Config, Connection, Message, Transport};
use serde_json::json;

use crate::common::{TestHandler, probe, recv_value, send_text};

/// Records how many messages each write carried.
struct Counting {
    inner: MemoryTransport,
    writes: Arc<Mutex<Vec<usize>>>,
}

impl Transport for Counting {
    type Error = memory::MemoryClosed;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.writes.lock().unwrap().push(1);
        self.inner.send(msg)
    }

    fn send_many(
        &mut self,
        msgs: Vec<Message>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.writes.lock().unwrap().push(msgs.len());
        // The trait's default: one `send` of the inner transport after the other.
        self.inner.send_many(msgs)
    }

    async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
        self.inner.recv().await
    }
}

/// Runs a connection over `ours`, counting its writes.
fn run_counting(
    ours: MemoryTransport,
) -> (
    Arc<Mutex<Vec<usize>>>,
    tokio::task::JoinHandle<mcp_jsonrpc::Result<()>>,
) {
    let writes = Arc::new(Mutex::new(Vec::new()));
    let transport = Counting {
        inner: ours,
        writes: writes.clone(),
    };
    let (probe, _events) = probe();
    let (_peer, conn) = Connection::new(transport, TestHandler(probe), Config::default());
    (writes, tokio::spawn(conn.run()))
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_few_writes() {
    let (ours, mut remote) = memory::pair(64);
    for id in 0..20 {
        send_text(
            &mut remote,
            &json!({"jsonrpc": "2.0", "id": id, "method": "echo", "params": {"n": id}}).to_string(),
        )
        .await;
    }
    let (writes, run) = run_counting(ours);
    // Every request answered once, in the order they were read.
    for id in 0..20 {
        let answer = recv_value(&mut remote).await;
        assert_eq!(answer["id"], id);
        assert_eq!(answer["result"]["n"], id);
    }
    // Read ahead and written together, eight at most before the next read (the engine writes
    // early so that a pipelining peer gets to work on the first answers).
    assert_eq!(*writes.lock().unwrap(), [8, 8, 4]);
    drop(remote);
    run.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_single_reply_is_a_plain_send() {
    let (ours, mut remote) = memory::pair(64);
    let (writes, run) = run_counting(ours);
    for id in 0..3 {
        send_text(
            &mut remote,
            &json!({"jsonrpc": "2.0", "id": id, "method": "echo", "params": {}}).to_string(),
        )
        .await;
        assert_eq!(recv_value(&mut remote).await["id"], id);
    }
    assert_eq!(*writes.lock().unwrap(), [1, 1, 1]);
    drop(remote);
    run.await.unwrap().unwrap();
}
