//! SSE framing and the response body types.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use futures::Stream;
use tokio::sync::mpsc;

/// One item on a request's or the standalone stream's queue: an encoded SSE event.
#[derive(Debug)]
pub(crate) struct Frame(pub(crate) Bytes);

impl Frame {
    pub(crate) fn into_bytes(self) -> Bytes {
        self.0
    }
}

/// Encodes one SSE event. `data` is split on line breaks into several `data:` lines (a JSON
/// text only has line breaks as whitespace, so the joined data is the same JSON).
pub(crate) fn event(
    id: Option<&str>,
    retry: Option<Duration>,
    name: Option<&str>,
    data: &[u8],
) -> Bytes {
    let mut buf = BytesMut::with_capacity(data.len() + 64);
    if let Some(id) = id {
        buf.put_slice(b"id: ");
        buf.put_slice(id.as_bytes());
        buf.put_u8(b'\n');
    }
    if let Some(retry) = retry {
        buf.put_slice(format!("retry: {}\n", retry.as_millis()).as_bytes());
    }
    if let Some(name) = name {
        buf.put_slice(b"event: ");
        buf.put_slice(name.as_bytes());
        buf.put_u8(b'\n');
    }
    if data.is_empty() {
        buf.put_slice(b"data: \n");
    } else {
        for line in data.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            buf.put_slice(b"data: ");
            buf.put_slice(line);
            buf.put_u8(b'\n');
        }
    }
    buf.put_u8(b'\n');
    buf.freeze()
}

/// An event carrying only a `retry` field: it dispatches nothing on the client.
pub(crate) fn retry_only(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

/// Something kept alive for as long as a response body is (an activity guard, or the end
/// of a legacy session).
pub(crate) type Guard = Box<dyn Send + Sync>;

/// The body of an SSE response: some events known up front, then the stream's queue.
pub(crate) struct SseBody {
    prefix: VecDeque<Bytes>,
    rx: Option<mpsc::Receiver<Frame>>,
    _guards: Vec<Guard>,
}

impl SseBody {
    pub(crate) fn new(
        prefix: VecDeque<Bytes>,
        rx: Option<mpsc::Receiver<Frame>>,
        guards: Vec<Guard>,
    ) -> Self {
        SseBody {
            prefix,
            rx,
            _guards: guards,
        }
    }
}

impl Stream for SseBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(first) = this.prefix.pop_front() {
            return Poll::Ready(Some(Ok(first)));
        }
        match this.rx.as_mut() {
            Some(rx) => rx
                .poll_recv(cx)
                .map(|frame| frame.map(|f| Ok(f.into_bytes()))),
            None => Poll::Ready(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_events() {
        let e = event(Some("1-0"), Some(Duration::from_millis(500)), None, b"");
        assert_eq!(&e[..], b"id: 1-0\nretry: 500\ndata: \n\n");
        let e = event(None, None, Some("message"), b"{\"a\":\n1}");
        assert_eq!(&e[..], b"event: message\ndata: {\"a\":\ndata: 1}\n\n");
    }
}
