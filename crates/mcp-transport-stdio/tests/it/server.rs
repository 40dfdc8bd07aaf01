//! The server side over real pipes and sockets: framing, bad input, limits, the end.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_jsonrpc::{Config, Connection, Peer, Transport};
use mcp_transport_stdio::StdioTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
use tokio::net::UnixStream;
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;

use crate::common::{Echo, RawPeer, chain, within};

type PipePeer = RawPeer<pipe::Sender, pipe::Receiver>;

/// A server over two OS pipes, with the test playing the client through the other ends.
fn serve(max_line: Option<usize>) -> (PipePeer, Peer, JoinHandle<mcp_jsonrpc::Result<()>>) {
    let (to_server, server_in) = pipe::pipe().unwrap();
    let (server_out, from_server) = pipe::pipe().unwrap();
    let mut transport = StdioTransport::new(server_in, server_out);
    if let Some(max) = max_line {
        transport = transport.with_max_line_size(max);
    }
    let (peer, conn) = Connection::new(transport, Echo, Config::default());
    (
        RawPeer::new(to_server, from_server),
        peer,
        tokio::spawn(conn.run()),
    )
}

fn request(id: u64, params: &Value) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id, "method": "echo", "params": params})
    )
}

/// Reads `n` responses, keyed by id (requests run concurrently, so in any order).
async fn responses(peer: &mut PipePeer, n: usize) -> BTreeMap<u64, Value> {
    let mut out = BTreeMap::new();
    for _ in 0..n {
        let v = peer.value().await;
        out.insert(v["id"].as_u64().unwrap(), v["result"].clone());
    }
    out
}

#[tokio::test]
async fn several_messages_in_one_write() {
    let (mut raw, _peer, _run) = serve(None);
    let batch: String = (1..=3).map(|i| request(i, &json!({ "n": i }))).collect();
    raw.write(batch.as_bytes()).await;
    let got = responses(&mut raw, 3).await;
    assert_eq!(
        got,
        BTreeMap::from([
            (1, json!({"n": 1})),
            (2, json!({"n": 2})),
            (3, json!({"n": 3}))
        ])
    );
}

#[tokio::test]
async fn a_message_split_across_writes() {
    let (mut raw, _peer, _run) = serve(None);
    let line = request(7, &json!({"text": "split in three"}));
    let (a, rest) = line.split_at(10);
    let (b, c) = rest.split_at(15);
    for part in [a, b, c] {
        raw.write(part.as_bytes()).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        raw.value().await,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"text": "split in three"}})
    );
}

#[tokio::test]
async fn crlf_and_empty_lines() {
    let (mut raw, _peer, _run) = serve(None);
    let crlf = request(1, &json!([1])).replace('\n', "\r\n");
    raw.write(format!("\n\r\n   \n{crlf}\r\n\n").as_bytes())
        .await;
    raw.write(request(2, &json!([2])).as_bytes()).await;
    // No error replies for the blank lines: the next two lines are the two responses.
    assert_eq!(
        responses(&mut raw, 2).await,
        BTreeMap::from([(1, json!([1])), (2, json!([2]))])
    );
}

#[tokio::test]
async fn writes_one_line_per_message() {
    let (mut raw, peer, _run) = serve(None);
    peer.notify(
        "hello",
        Some(mcp_jsonrpc::to_raw_value(&json!({"a": 1})).unwrap()),
    )
    .await
    .unwrap();
    assert_eq!(
        raw.raw_line().await,
        "{\"jsonrpc\":\"2.0\",\"method\":\"hello\",\"params\":{\"a\":1}}\n"
    );
}

#[tokio::test]
async fn an_invalid_line_gets_a_parse_error_and_the_session_continues() {
    let (mut raw, _peer, _run) = serve(None);
    raw.write(b"this is not json\n").await;
    let err = raw.value().await;
    assert_eq!(err["id"], Value::Null);
    assert_eq!(err["error"]["code"], -32700);
    raw.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":[]}\n")
        .await;
    assert_eq!(raw.value().await["error"]["code"], -32600);
    raw.write(request(2, &json!(["still here"])).as_bytes())
        .await;
    assert_eq!(raw.value().await["result"], json!(["still here"]));
}

#[tokio::test]
async fn an_oversized_line_is_rejected_and_the_next_one_works() {
    let (mut raw, _peer, _run) = serve(Some(1024));
    let big = "x".repeat(1 << 20);
    // The id shows at the start: the error carries it.
    raw.write(request(5, &json!({ "big": big })).as_bytes())
        .await;
    let err = raw.value().await;
    assert_eq!(err["id"], 5);
    assert_eq!(err["error"]["code"], -32600);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("exceeds the limit of 1024 bytes"),
        "{err}"
    );
    // The id comes after the params: a null id.
    let late_id = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{{\"big\":\"{big}\"}},\"id\":6}}\n"
    );
    raw.write(late_id.as_bytes()).await;
    let err = raw.value().await;
    assert_eq!(err["id"], Value::Null);
    assert_eq!(err["error"]["code"], -32600);
    // Right at the limit is fine.
    let fits = request(7, &json!({"s": "y".repeat(900)}));
    assert!(fits.len() - 1 <= 1024);
    raw.write(fits.as_bytes()).await;
    assert_eq!(raw.value().await["id"], 7);
}

#[tokio::test]
async fn the_end_of_input_ends_the_session_cleanly() {
    let (raw, peer, run) = serve(None);
    let RawPeer { tx, mut rx } = raw;
    drop(tx);
    within(run).await.unwrap().unwrap();
    assert!(peer.is_closed());
    // The transport was closed: the output ends too.
    let mut rest = String::new();
    assert_eq!(rx.read_line(&mut rest).await.unwrap(), 0);
}

#[tokio::test]
async fn recv_yields_none_at_the_end_even_after_a_partial_line() {
    let (mut tx, rx) = pipe::pipe().unwrap();
    let (out, _keep) = pipe::pipe().unwrap();
    let mut t = StdioTransport::new(rx, out);
    tx.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"last\"}")
        .await
        .unwrap();
    drop(tx);
    let last = within(t.recv()).await.unwrap().unwrap();
    assert_eq!(
        last.to_json().unwrap(),
        r#"{"jsonrpc":"2.0","method":"last"}"#
    );
    assert!(within(t.recv()).await.unwrap().is_none());
}

#[tokio::test]
async fn send_after_close_fails() {
    let (_tx, rx) = pipe::pipe().unwrap();
    let (out, _keep) = pipe::pipe().unwrap();
    let mut t = StdioTransport::new(rx, out);
    t.close().await.unwrap();
    let err = t
        .send(mcp_jsonrpc::Message::decode(
            br#"{"jsonrpc":"2.0","method":"x"}"#,
        ))
        .await
        .unwrap_err();
    assert_eq!(chain(&err), "transport closed");
}

#[tokio::test]
async fn both_ends_over_a_unix_socket() {
    let (a, b) = UnixStream::pair().unwrap();
    let (a_read, a_write) = a.into_split();
    let (b_read, b_write) = b.into_split();
    let (_, server) = Connection::new(
        StdioTransport::new(a_read, a_write),
        Echo,
        Config::default(),
    );
    let server = tokio::spawn(server.run());
    let (peer, client) =
        Connection::new(StdioTransport::new(b_read, b_write), (), Config::default());
    let client = tokio::spawn(client.run());
    let params = mcp_jsonrpc::to_raw_value(&json!({"over": "a socket"})).unwrap();
    let answer = within(peer.request("echo", Some(params))).await.unwrap();
    assert_eq!(answer.get(), r#"{"over":"a socket"}"#);
    peer.close();
    within(client).await.unwrap().unwrap();
    // The client's close shut its half of the socket down: the server sees the end.
    within(server).await.unwrap().unwrap();
}

#[tokio::test]
async fn the_connection_is_described_as_a_pipe() {
    let (_tx, rx) = pipe::pipe().unwrap();
    let (out, _keep) = pipe::pipe().unwrap();
    let info = StdioTransport::new(rx, out).connection_info();
    assert_eq!(info.network_transport, Some("pipe"));
    assert_eq!(info.network_protocol_name, None);
    assert_eq!((info.client_address, info.server_address), (None, None));
    assert!(info.session_id.is_none());
}
