//! Writing messages: small ones as one line buffer, large ones in parts, byte for byte the
//! same line either way, whatever the writer takes at a time.

use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_jsonrpc::{ErrorObject, Id, Message, Notification, Request, Response, Transport as _};
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt as _, AsyncWrite};

use super::*;

/// A writer taking at most `step` bytes a call (vectored or not), as a full pipe does.
struct Trickle {
    out: Vec<u8>,
    step: usize,
    vectored: bool,
}

impl AsyncWrite for Trickle {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let n = buf.len().min(self.step);
        self.out.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut left = self.step;
        for buf in bufs {
            let n = buf.len().min(left);
            self.out.extend_from_slice(&buf[..n]);
            left -= n;
            if left == 0 {
                break;
            }
        }
        Poll::Ready(Ok(self.step - left))
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn raw(json: String) -> Box<RawValue> {
    RawValue::from_string(json).unwrap()
}

/// Messages around the size at which they are written in parts.
fn messages() -> Vec<Message> {
    let big = |n: usize| format!(r#"{{"text":"{}"}}"#, "é\\\"x".repeat(n / 4));
    vec![
        Message::Response(Response::ok(Id::Number(1), raw(big(WRITE_IN_PARTS * 3)))),
        Message::Response(Response::ok(Id::String("a\"b".into()), raw(big(10)))),
        Message::Request(Request::new(
            Id::Number(2),
            "tools/call",
            Some(raw(big(WRITE_IN_PARTS))),
        )),
        Message::Notification(Notification::new(
            "notifications/message",
            Some(raw(big(WRITE_IN_PARTS + 1))),
        )),
        Message::Response(Response::error(
            Some(Id::Number(3)),
            ErrorObject::internal_error("x".repeat(WRITE_IN_PARTS * 2)),
        )),
        Message::Request(Request::new(Id::Number(4), "ping", None)),
    ]
}

#[tokio::test]
async fn every_message_is_written_as_its_line_whatever_the_writer_takes() {
    for (step, vectored) in [(1 << 20, true), (7, true), (7, false), (4096, true)] {
        for msg in messages() {
            let mut expected = msg.to_json_vec().unwrap();
            expected.push(b'\n');
            let writer: SharedWriter<Trickle> = Arc::new(Mutex::new(Some(Trickle {
                out: Vec::new(),
                step,
                vectored,
            })));
            write_message(writer.clone(), msg, "test").await.unwrap();
            let written = writer.lock().await.take().unwrap().out;
            assert!(
                written == expected,
                "step {step}, vectored {vectored}: {} bytes written, {} expected",
                written.len(),
                expected.len()
            );
        }
    }
}

#[tokio::test]
async fn a_large_message_crosses_a_narrow_pipe_intact() {
    let (mut theirs, ours) = tokio::io::duplex(1024);
    let (ours_read, ours_write) = tokio::io::split(ours);
    let mut transport = StdioTransport::new(ours_read, ours_write);
    let msg = messages().remove(0);
    let mut expected = msg.to_json_vec().unwrap();
    expected.push(b'\n');
    let reading = tokio::spawn(async move {
        let mut got = vec![0; expected.len()];
        theirs.read_exact(&mut got).await.unwrap();
        assert!(got == expected, "the line differs");
    });
    transport.send(msg).await.unwrap();
    reading.await.unwrap();
}

#[tokio::test]
async fn a_closed_transport_refuses_a_large_message() {
    let writer: SharedWriter<Trickle> = Arc::new(Mutex::new(None));
    let msg = messages().remove(0);
    let err = write_message(writer, msg, "test").await.unwrap_err();
    assert!(matches!(err, Error::Closed), "{err}");
}
