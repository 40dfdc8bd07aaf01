//! Reading response bodies within [`max_message_size`]: whole JSON and error bodies, and the
//! line framing under the SSE parser.
//!
//! [`max_message_size`]: super::StreamableHttpClientTransportBuilder::max_message_size

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};

use super::error::{Error, Result};

/// The default of
/// [`StreamableHttpClientTransportBuilder::max_message_size`](super::StreamableHttpClientTransportBuilder::max_message_size):
/// 16 MiB.
///
/// Twice `mcp_jsonrpc::Config::max_message_size`'s default, so that the connection's own,
/// finer-grained limit (which fails an oversized response's request at once) applies first;
/// this one bounds the memory a server can make the transport buffer.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// Reads the whole body of `resp`, failing with [`Error::TooLarge`] as soon as it is known to
/// be larger than `limit`: before reading anything when its `Content-Length` says so, else
/// once the bytes read pass it. The rest is never read (dropping the response closes its
/// connection).
pub(crate) async fn read_limited(mut resp: reqwest::Response, limit: usize) -> Result<Bytes> {
    let declared = resp.content_length();
    if declared.is_some_and(|len| len > limit as u64) {
        return Err(Error::TooLarge {
            what: "the response body (by its content-length)",
            limit,
        });
    }
    let capacity = declared.map_or(0, |len| usize::try_from(len).unwrap_or(limit));
    let mut body = BytesMut::with_capacity(capacity);
    while let Some(chunk) = resp.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Err(Error::TooLarge {
                what: "the response body",
                limit,
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// The body of an error response as text: at most its first `limit` bytes (the rest is never
/// read), lossily decoded.
pub(crate) async fn read_error_body(mut resp: reqwest::Response, limit: usize) -> String {
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = limit - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    tracing::debug!(limit, "error body cut at the size limit");
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                tracing::debug!(error = %e, "reading an error body failed");
                break;
            }
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// Cuts a response body into lines for the SSE parser, bounding what it buffers.
///
/// By hand around `eventsource-stream`, which re-parses its whole buffer from the start each
/// time a chunk arrives (and copies the rest of the buffer after each line it takes), so one
/// long line took time quadratic in its length (an 8 MiB `data:` line, 6.5 s) and an endless
/// one grew without bound. Handed one whole line at a time, it parses each line once. This
/// stream scans each byte once and ends with [`Error::TooLarge`] as soon as a line, or the
/// lines of one event (comments aside, which the parser drops), pass `limit`; it then holds
/// at most `limit` bytes plus one chunk.
pub(crate) struct Lines {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    limit: usize,
    /// The part of the last chunk not handed on yet.
    chunk: Bytes,
    /// The start of the current line, when it spans chunks.
    line: BytesMut,
    /// The bytes of the current event so far (its lines, comments aside).
    event: usize,
    /// The last line ended with CR: an LF right after it ends nothing.
    after_cr: bool,
    done: bool,
}

impl Lines {
    pub(crate) fn new(resp: reqwest::Response, limit: usize) -> Self {
        Self::from_stream(resp.bytes_stream().boxed(), limit)
    }

    pub(crate) fn from_stream(
        body: BoxStream<'static, reqwest::Result<Bytes>>,
        limit: usize,
    ) -> Self {
        Lines {
            body,
            limit: limit.max(1),
            chunk: Bytes::new(),
            line: BytesMut::new(),
            event: 0,
            after_cr: false,
            done: false,
        }
    }

    fn fail(&mut self, what: &'static str) -> Poll<Option<Result<Bytes>>> {
        self.done = true;
        self.chunk = Bytes::new();
        self.line = BytesMut::new();
        tracing::warn!(limit = self.limit, what, "sse stream over the size limit");
        Poll::Ready(Some(Err(Error::TooLarge {
            what,
            limit: self.limit,
        })))
    }

    /// Whether the current line, whose next bytes are `next`, is a comment.
    fn is_comment(&self, next: &[u8]) -> bool {
        self.line.first().or(next.first()) == Some(&b':')
    }

    /// Takes the next line out of `chunk`, or the whole chunk into `line` if it ends none.
    fn next_line(&mut self) -> Option<Poll<Option<Result<Bytes>>>> {
        let Some(end) = self.chunk.iter().position(|&b| b == b'\n' || b == b'\r') else {
            let len = self.line.len() + self.chunk.len();
            if len > self.limit {
                return Some(self.fail("an sse line"));
            }
            if !self.is_comment(&self.chunk) && self.event + len > self.limit {
                return Some(self.fail("an sse event"));
            }
            self.line.extend_from_slice(&self.chunk);
            self.chunk = Bytes::new();
            return None;
        };
        let piece = self.chunk.split_to(end + 1);
        let content = self.line.len() + end;
        let crlf_tail = content == 0 && self.after_cr && piece[end] == b'\n';
        self.after_cr = piece[end] == b'\r';
        if content == 0 {
            if !crlf_tail {
                // A blank line: the event ends.
                self.event = 0;
            }
        } else if content + 1 > self.limit {
            return Some(self.fail("an sse line"));
        } else if !self.is_comment(&piece) {
            self.event += content + 1;
            if self.event > self.limit {
                return Some(self.fail("an sse event"));
            }
        }
        let line = if self.line.is_empty() {
            piece
        } else {
            self.line.extend_from_slice(&piece);
            self.line.split().freeze()
        };
        Some(Poll::Ready(Some(Ok(line))))
    }
}

impl Stream for Lines {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes>>> {
        loop {
            if self.done {
                return Poll::Ready(None);
            }
            if !self.chunk.is_empty()
                && let Some(ready) = self.next_line()
            {
                return ready;
            }
            match self.body.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(chunk))) => self.chunk = chunk,
                Poll::Ready(Some(Err(e))) => {
                    self.done = true;
                    return Poll::Ready(Some(Err(Error::Http(e))));
                }
                Poll::Ready(None) => {
                    self.done = true;
                    if self.line.is_empty() {
                        return Poll::Ready(None);
                    }
                    let rest = self.line.split().freeze();
                    return Poll::Ready(Some(Ok(rest)));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests;
