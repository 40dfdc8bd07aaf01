//! Unit tests of the line reader.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_jsonrpc::Message;
use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};

use super::*;

/// A reader that yields the given chunks, one per read.
struct Chunks(std::collections::VecDeque<Vec<u8>>);

impl AsyncRead for Chunks {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(mut chunk) = self.0.pop_front() {
            let n = chunk.len().min(buf.remaining());
            buf.put_slice(&chunk[..n]);
            if n < chunk.len() {
                self.0.push_front(chunk.split_off(n));
            }
        }
        Poll::Ready(Ok(()))
    }
}

fn chunks(parts: &[&[u8]]) -> Chunks {
    Chunks(parts.iter().map(|p| p.to_vec()).collect())
}

/// Every frame until the end, lines as text and oversized lines as `<size>`.
async fn all<R: AsyncRead + Unpin>(reader: &mut LineReader<R>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(frame) = reader.next().await.unwrap() {
        out.push(match frame {
            Frame::Line(r) => String::from_utf8(reader.bytes(r).to_vec()).unwrap(),
            Frame::Oversized { size, .. } => format!("<{size}>"),
        });
    }
    out
}

#[tokio::test]
async fn splits_lines_across_and_within_reads() {
    let mut r = LineReader::new(
        chunks(&[
            b"a\nbb\r\n\n  \r\nc",
            b"cc",
            b"\n\r\nd",
            b"\r",
            b"\n",
            b"tail",
        ]),
        100,
    );
    assert_eq!(all(&mut r).await, ["a", "bb", "ccc", "d", "tail"]);
}

#[tokio::test]
async fn skips_oversized_lines_and_keeps_going() {
    let long = vec![b'x'; 50];
    let mut r = LineReader::new(
        chunks(&[
            b"ok\n",
            &long[..20],
            &long[20..],
            b"\r\nafter\n",
            &long,
            b"\n",
        ]),
        10,
    );
    assert_eq!(all(&mut r).await, ["ok", "<50>", "after", "<50>"]);
}

#[tokio::test]
async fn exactly_the_limit_passes_even_with_crlf_split() {
    let mut r = LineReader::new(chunks(&[b"0123456789\r", b"\n0123456789A\n"]), 10);
    assert_eq!(all(&mut r).await, ["0123456789", "<11>"]);
}

#[tokio::test]
async fn a_lowered_bound_applies_to_the_line_being_read() {
    let mut r = LineReader::new(chunks(&[b"ok\n0123456", b"789ab\nz\n"]), 100);
    let Some(Frame::Line(first)) = r.next().await.unwrap() else {
        panic!("no first line");
    };
    assert_eq!(r.bytes(first), b"ok");
    r.set_max(5);
    assert_eq!(all(&mut r).await, ["<12>", "z"]);
}

#[tokio::test]
async fn an_oversized_last_line_without_newline_is_reported() {
    let mut r = LineReader::new(chunks(&[b"ok\n", &[b'y'; 30]]), 10);
    assert_eq!(all(&mut r).await, ["ok", "<30>"]);
}

#[tokio::test]
async fn memory_stays_bounded_on_a_huge_line() {
    let (mut tx, rx) = tokio::io::duplex(64 * 1024);
    let max = 1024;
    let writer = tokio::spawn(async move {
        let block = vec![b'z'; 64 * 1024];
        for _ in 0..160 {
            // 10 MiB without a newline.
            tx.write_all(&block).await.unwrap();
        }
        tx.write_all(b"\n{\"after\":1}\n").await.unwrap();
    });
    let mut r = LineReader::new(rx, max);
    let first = r.next().await.unwrap().unwrap();
    // The buffer only shrinks (when idle and large), so this is its peak size.
    let peak = r.capacity();
    match first {
        Frame::Oversized { size, head } => {
            assert_eq!(size, 160 * 64 * 1024);
            assert_eq!(head.len(), HEAD);
        }
        Frame::Line(_) => panic!("expected an oversized frame"),
    }
    assert!(peak <= max + 2 * CHUNK, "buffer grew to {peak} bytes");
    let Some(Frame::Line(range)) = r.next().await.unwrap() else {
        panic!("expected a line");
    };
    assert_eq!(r.bytes(range), b"{\"after\":1}");
    writer.await.unwrap();
}

#[tokio::test]
async fn a_cancelled_read_loses_nothing() {
    let (mut tx, rx) = tokio::io::duplex(1024);
    let mut r = LineReader::new(rx, 100);
    tx.write_all(b"{\"par").await.unwrap();
    // Poll once and drop: the partial line must stay buffered.
    let timed_out = tokio::time::timeout(std::time::Duration::from_millis(10), r.next()).await;
    assert!(timed_out.is_err());
    tx.write_all(b"tial\":true}\n").await.unwrap();
    let Some(Frame::Line(range)) = r.next().await.unwrap() else {
        panic!("expected a line");
    };
    assert_eq!(r.bytes(range), b"{\"partial\":true}");
}

#[test]
fn an_oversized_line_keeps_its_id_and_kind() {
    // What the transports hand the connection for a skipped line: its head, read with
    // `Message::oversized`.
    for (head, response) in [
        (
            &br#"{"jsonrpc":"2.0","id":3,"method":"x","params":{"#[..],
            false,
        ),
        (
            &br#"{"jsonrpc":"2.0","id":3,"result":{"text":"aaa"#[..],
            true,
        ),
    ] {
        let Message::Invalid(invalid) = Message::oversized(head, 2000, 1000) else {
            panic!("expected an invalid message");
        };
        assert_eq!(invalid.id, Some(mcp_jsonrpc::Id::Number(3)));
        assert_eq!(invalid.is_response(), response);
        assert_eq!(invalid.error.code, mcp_jsonrpc::ErrorCode::INVALID_REQUEST);
        assert_eq!(
            invalid.error.message,
            "message of 2000 bytes exceeds the limit of 1000 bytes"
        );
    }
}
