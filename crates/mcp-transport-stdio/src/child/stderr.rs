//! The server's stderr: where it goes ([`StderrSink`]) and the pump that reads it there.

use std::fmt;

use tokio::process::ChildStderr;
use tokio::sync::mpsc;

use crate::lines::{Frame, LineReader};

/// Stderr lines longer than this are cut (the rest of the line is skipped).
const MAX_STDERR_LINE: usize = 64 * 1024;

/// Where the server's stderr goes. The default is [`StderrSink::Tracing`].
///
/// Lines are read while the transport's [`recv`](mcp_jsonrpc::Transport::recv) (or
/// [`close`](mcp_jsonrpc::Transport::close)) is being polled, which a running connection always does; no
/// task is spawned. Lines are decoded as UTF-8 (lossily), without their line ending, and cut
/// at 64 KiB.
#[derive(Default)]
#[non_exhaustive]
pub enum StderrSink {
    /// Each line becomes a `tracing` event at `INFO` level with target
    /// `mcp_transport_stdio::stderr` (fields `pid` and `program`).
    #[default]
    Tracing,
    /// The child writes to this process's stderr directly.
    Inherit,
    /// The child's stderr goes to `/dev/null`.
    Discard,
    /// Each line is sent to the channel. It never blocks the transport: when the channel is
    /// full, lines are dropped (and counted in a warning).
    Channel(mpsc::Sender<String>),
    /// Each line is passed to the callback, on the task running the connection; it should
    /// return quickly.
    Callback(Box<dyn FnMut(&str) + Send>),
}

impl StderrSink {
    /// A [`StderrSink::Callback`].
    pub fn callback(f: impl FnMut(&str) + Send + 'static) -> Self {
        StderrSink::Callback(Box::new(f))
    }
}

impl fmt::Debug for StderrSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StderrSink::Tracing => f.write_str("Tracing"),
            StderrSink::Inherit => f.write_str("Inherit"),
            StderrSink::Discard => f.write_str("Discard"),
            StderrSink::Channel(tx) => f.debug_tuple("Channel").field(tx).finish(),
            StderrSink::Callback(_) => f.write_str("Callback(..)"),
        }
    }
}

/// Where a piped stderr's lines go.
pub(super) enum Sink {
    Tracing,
    Channel(mpsc::Sender<String>),
    Callback(Box<dyn FnMut(&str) + Send>),
}

/// Reads the server's stderr, a line at a time, into its sink.
pub(super) struct StderrPump {
    pub(super) lines: LineReader<ChildStderr>,
    sink: Sink,
    dropped: u64,
}

impl StderrPump {
    /// The pump of `stderr` into `sink`, if stderr is piped and goes somewhere.
    pub(super) fn new(stderr: Option<ChildStderr>, sink: StderrSink) -> Option<StderrPump> {
        let sink = match sink {
            StderrSink::Channel(tx) => Sink::Channel(tx),
            StderrSink::Callback(f) => Sink::Callback(f),
            StderrSink::Tracing => Sink::Tracing,
            StderrSink::Inherit | StderrSink::Discard => return None,
        };
        Some(StderrPump {
            lines: LineReader::new(stderr?, MAX_STDERR_LINE),
            sink,
            dropped: 0,
        })
    }

    pub(super) fn deliver(&mut self, frame: Frame, pid: Option<u32>, program: &str) {
        let line = match frame {
            Frame::Line(range) => String::from_utf8_lossy(self.lines.bytes(range)).into_owned(),
            Frame::Oversized { size, head } => format!(
                "{}... [line of {size} bytes cut]",
                String::from_utf8_lossy(&head)
            ),
        };
        match &mut self.sink {
            Sink::Tracing => {
                tracing::info!(target: "mcp_transport_stdio::stderr", pid, program, "{line}");
            }
            Sink::Channel(tx) => match tx.try_send(line) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => {
                    self.dropped += 1;
                    if self.dropped.is_power_of_two() {
                        tracing::warn!(
                            pid,
                            program,
                            dropped = self.dropped,
                            "stderr channel full, dropping the server's stderr lines"
                        );
                    }
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {}
            },
            Sink::Callback(f) => f(&line),
        }
    }
}
