//! Helpers: a handler, a raw peer playing the other side of a byte stream, time limits.

use std::future::Future;
use std::time::Duration;

use mcp_jsonrpc::{ErrorObject, Handler, Request, RequestContext};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// A bound on anything a test waits for, so a bug fails the test instead of hanging it.
pub(crate) const LIMIT: Duration = Duration::from_secs(20);

/// Short shutdown steps for the tests.
pub(crate) const STEP: Duration = Duration::from_millis(200);

pub(crate) async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f).await.expect("timed out")
}

/// Answers `echo` with its params, `sleep` after `{"ms": n}` milliseconds.
pub(crate) struct Echo;

impl Handler for Echo {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        match &*request.method {
            "echo" => mcp_jsonrpc::to_raw_value(&request.params::<Value>()?),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

/// The whole error chain, `: `-separated.
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cur = c.source();
    }
    out
}

/// Plays a peer at the byte level.
pub(crate) struct RawPeer<W, R> {
    pub(crate) tx: W,
    pub(crate) rx: BufReader<R>,
}

impl<W: AsyncWrite + Unpin, R: AsyncRead + Unpin> RawPeer<W, R> {
    pub(crate) fn new(tx: W, rx: R) -> Self {
        RawPeer {
            tx,
            rx: BufReader::new(rx),
        }
    }

    pub(crate) async fn write(&mut self, bytes: &[u8]) {
        self.tx.write_all(bytes).await.unwrap();
        self.tx.flush().await.unwrap();
    }

    /// The next line, raw (with its `\n`); empty at the end of the stream.
    pub(crate) async fn raw_line(&mut self) -> String {
        let mut line = String::new();
        within(self.rx.read_line(&mut line)).await.unwrap();
        line
    }

    /// The next line, parsed.
    pub(crate) async fn value(&mut self) -> Value {
        let line = self.raw_line().await;
        assert!(line.ends_with('\n'), "unterminated line {line:?}");
        serde_json::from_str(&line).unwrap()
    }
}
