//! The server side: [`StdioTransport`], newline-delimited messages over the process's
//! stdin/stdout (or any byte stream).

use std::fmt;
use std::fs::File;
use std::future::Future;
use std::io::{self, IoSlice, IsTerminal as _};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt as _;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_jsonrpc::{ConnectionInfo, Message, Transport};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::UnixStream;
use tokio::net::unix::pipe;
use tokio::sync::Mutex;

use crate::error::{Error, Result};
use crate::lines::{Frame, LineReader};
use crate::pipe_size;

/// The default for [`StdioTransport::with_max_line_size`] and
/// [`ChildProcessBuilder::max_line_size`](crate::ChildProcessBuilder::max_line_size): 16 MiB.
///
/// Twice `mcp_jsonrpc::Config::max_message_size`'s default, so that the connection's own,
/// finer-grained limit (which fails an oversized response's request at once) applies first;
/// this one bounds the memory a peer can make the transport buffer.
pub const DEFAULT_MAX_LINE_SIZE: usize = 16 * 1024 * 1024;

type BoxRead = Box<dyn AsyncRead + Send + Unpin>;
type BoxWrite = Box<dyn AsyncWrite + Send + Unpin>;
pub(crate) type SharedWriter<W> = Arc<Mutex<Option<W>>>;

/// Newline-delimited JSON-RPC over a byte stream: the MCP stdio transport, server side.
///
/// Each message is one line of JSON (`\n` or `\r\n`); empty lines are ignored. Each
/// [`send`](Transport::send) is one write of the message and its `\n`, then a flush.
///
/// - [`StdioTransport::stdio`] uses the process's stdin and stdout, registered with tokio's
///   reactor when they are pipes or sockets.
/// - [`StdioTransport::new`] runs over any [`AsyncRead`]/[`AsyncWrite`] pair (a socket, a
///   pipe, an in-memory duplex in tests).
///
/// A line that is not JSON-RPC is handed to the connection as [`Message::Invalid`], which
/// answers it (-32700 or -32600) and carries on. A line longer than the
/// [maximum](Self::with_max_line_size) is skipped without being buffered and answered with
/// -32600 (carrying the request id when it appears in the line's first kilobyte, else `null`);
/// a response that long fails the request it answers (see
/// [`Message::oversized`](mcp_jsonrpc::Message::oversized)).
/// The end of the input is the end of the session: [`recv`](Transport::recv) yields `Ok(None)`.
pub struct StdioTransport {
    reader: LineReader<BoxRead>,
    writer: SharedWriter<BoxWrite>,
    max_line_size: usize,
}

impl fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioTransport")
            .field("reader", &self.reader)
            .field("max_line_size", &self.max_line_size)
            .finish_non_exhaustive()
    }
}

impl StdioTransport {
    /// A transport over the process's stdin and stdout.
    ///
    /// When stdin (or stdout) is a pipe or a stream socket, as it is when a client spawns
    /// the server, a duplicate of the file descriptor is set non-blocking and registered
    /// with tokio's reactor, so reads and writes never occupy a thread, and a pending read
    /// does not keep the runtime from shutting down. Non-blocking mode belongs to the open
    /// pipe, so it also applies to fd 0/1 while the transport lives (write nothing else to
    /// stdout: it is the protocol's); it is switched back off when the transport is
    /// dropped.
    ///
    /// When it is a regular file or a terminal (which epoll cannot watch), the transport
    /// falls back to [`tokio::io::stdin`]/[`tokio::io::stdout`], which do blocking IO on
    /// tokio's blocking thread pool. A read pending there holds a thread until a line
    /// arrives, so a runtime shutting down waits for it (use `Runtime::shutdown_timeout`, or
    /// exit the process, if that matters).
    ///
    /// # Errors
    ///
    /// Fails if the descriptors cannot be duplicated, inspected or registered.
    ///
    /// # Panics
    ///
    /// Panics outside a tokio runtime with IO enabled.
    pub fn stdio() -> Result<Self> {
        let reader = stdin_reader().map_err(|e| Error::io("setting up stdin", e))?;
        let writer = stdout_writer().map_err(|e| Error::io("setting up stdout", e))?;
        Ok(StdioTransport::from_boxed(reader, writer))
    }

    /// A transport reading lines from `reader` and writing them to `writer`.
    pub fn new<R, W>(reader: R, writer: W) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        StdioTransport::from_boxed(Box::new(reader), Box::new(writer))
    }

    fn from_boxed(reader: BoxRead, writer: BoxWrite) -> Self {
        StdioTransport {
            reader: LineReader::new(reader, DEFAULT_MAX_LINE_SIZE),
            writer: Arc::new(Mutex::new(Some(writer))),
            max_line_size: DEFAULT_MAX_LINE_SIZE,
        }
    }

    /// Sets the longest line accepted, in bytes (default [`DEFAULT_MAX_LINE_SIZE`]). The
    /// transport never buffers much more than this, whatever the peer sends.
    #[must_use]
    pub fn with_max_line_size(mut self, max: usize) -> Self {
        self.max_line_size = max.max(1);
        self.reader.set_max(self.max_line_size);
        self
    }

    /// The longest line accepted, in bytes.
    pub fn max_line_size(&self) -> usize {
        self.max_line_size
    }
}

impl Transport for StdioTransport {
    type Error = Error;

    fn send(&mut self, msg: Message) -> impl Future<Output = Result<()>> + Send + 'static {
        write_message(self.writer.clone(), msg, "writing a message")
    }

    /// All the lines in one write.
    fn send_many(
        &mut self,
        msgs: Vec<Message>,
    ) -> impl Future<Output = Result<()>> + Send + 'static {
        write_line(self.writer.clone(), encode_all(&msgs), "writing messages")
    }

    async fn recv(&mut self) -> Result<Option<Message>> {
        let frame = self
            .reader
            .next()
            .await
            .map_err(|e| Error::io("reading a message", e))?;
        Ok(frame.map(|frame| match frame {
            Frame::Line(range) => Message::decode(self.reader.bytes(range)),
            Frame::Oversized { size, head } => {
                tracing::warn!(
                    size,
                    limit = self.max_line_size,
                    "skipped an oversized line"
                );
                Message::oversized(&head, size, self.max_line_size)
            }
        }))
    }

    /// True: a client that closes the server's stdin still reads its stdout until the server
    /// exits, so the requests it wrote before are answered.
    fn peer_reads_after_end(&self) -> bool {
        true
    }

    /// `network.transport` `pipe`, as the conventions name the stdio transport (over the
    /// streams given to [`new`](StdioTransport::new) too); no addresses, no session id.
    fn connection_info(&self) -> ConnectionInfo {
        ConnectionInfo::new().with_network_transport("pipe")
    }

    async fn close(&mut self) -> Result<()> {
        let mut writer = self.writer.lock().await;
        if let Some(mut w) = writer.take() {
            w.shutdown()
                .await
                .map_err(|e| Error::io("closing the output", e))?;
        }
        Ok(())
    }
}

/// Messages at least this large are written around their raw params or result: a vectored
/// write of the envelope's head, the raw JSON as it is, and the closing `}` with the newline.
/// Copying a 1 MiB result into a line buffer first would cost a buffer of its size on every
/// send, which the allocator maps afresh and the kernel faults in page by page (about 250
/// page faults a MiB; most of what a 1 MiB result cost over the floor, by `perf stat`).
const WRITE_IN_PARTS: usize = 64 * 1024;

/// Writes `msg` as one line: small messages serialized into one buffer before the future is
/// created ([`write_line`]), large ones in parts from the message itself (see
/// [`WRITE_IN_PARTS`]). Does not borrow the transport.
pub(crate) fn write_message<W: AsyncWrite + Unpin + Send + 'static>(
    writer: SharedWriter<W>,
    msg: Message,
    context: &'static str,
) -> impl Future<Output = Result<()>> + Send + 'static {
    enum Payload {
        Line(Result<Vec<u8>>),
        Parts(Message),
    }
    let payload = if msg.size_hint() >= WRITE_IN_PARTS {
        Payload::Parts(msg)
    } else {
        Payload::Line(encode(&msg))
    };
    async move {
        let msg = match payload {
            Payload::Line(line) => return write_line(writer, line, context).await,
            Payload::Parts(msg) => msg,
        };
        let mut head = Vec::with_capacity(128);
        let raw = msg.write_json_head(&mut head).map_err(Error::Encode)?;
        let (raw, tail): (&[u8], &[u8]) = match raw {
            Some(raw) => (raw.as_bytes(), b"}\n"),
            None => (&[], b"\n"),
        };
        let mut guard = writer.lock().await;
        let w = guard.as_mut().ok_or(Error::Closed)?;
        let mut parts = [IoSlice::new(&head), IoSlice::new(raw), IoSlice::new(tail)];
        write_all_vectored(w, &mut parts)
            .await
            .map_err(|e| Error::io(context, e))?;
        w.flush().await.map_err(|e| Error::io(context, e))
    }
}

/// `write_all` for several buffers: vectored writes until every byte is written (a writer
/// without vectored writes takes one buffer a call).
async fn write_all_vectored<W: AsyncWrite + Unpin>(
    w: &mut W,
    mut parts: &mut [IoSlice<'_>],
) -> io::Result<()> {
    IoSlice::advance_slices(&mut parts, 0);
    while !parts.is_empty() {
        let n = w.write_vectored(parts).await?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut parts, n);
    }
    Ok(())
}

/// A message as one line of bytes, serialized before the send future is created.
pub(crate) fn encode(msg: &Message) -> Result<Vec<u8>> {
    encode_all(std::slice::from_ref(msg))
}

/// Messages as consecutive lines in one buffer, serialized before the send future is created.
pub(crate) fn encode_all(msgs: &[Message]) -> Result<Vec<u8>> {
    // Sized up front: a large message is then written into its buffer once, not regrown.
    let mut lines = Vec::with_capacity(msgs.iter().map(|m| m.size_hint() + 1).sum());
    for msg in msgs {
        msg.write_json(&mut lines).map_err(Error::Encode)?;
        lines.push(b'\n');
    }
    Ok(lines)
}

/// Writes one line (or several: [`encode_all`]) in one `write_all`, then flushes. Does not borrow the transport.
pub(crate) async fn write_line<W: AsyncWrite + Unpin>(
    writer: SharedWriter<W>,
    line: Result<Vec<u8>>,
    context: &'static str,
) -> Result<()> {
    let line = line?;
    let mut guard = writer.lock().await;
    let w = guard.as_mut().ok_or(Error::Closed)?;
    w.write_all(&line)
        .await
        .map_err(|e| Error::io(context, e))?;
    w.flush().await.map_err(|e| Error::io(context, e))
}

/// What a standard stream is, as far as tokio's reactor is concerned.
enum Kind {
    Pipe,
    Socket,
    /// A regular file, a terminal, a character device: epoll cannot watch it.
    Other,
}

fn kind(file: &File) -> io::Result<Kind> {
    let file_type = file.metadata()?.file_type();
    Ok(if file_type.is_fifo() {
        Kind::Pipe
    } else if file_type.is_socket() {
        Kind::Socket
    } else {
        Kind::Other
    })
}

fn stdin_reader() -> io::Result<BoxRead> {
    let stdin = io::stdin();
    let file = File::from(stdin.as_fd().try_clone_to_owned()?);
    Ok(match kind(&file)? {
        Kind::Pipe => {
            tracing::debug!("stdin is a pipe, registered with the reactor");
            pipe_size::widen(&file);
            Box::new(Restore::Pipe(Some(pipe::Receiver::from_owned_fd(
                OwnedFd::from(file),
            )?)))
        }
        Kind::Socket => {
            tracing::debug!("stdin is a socket, registered with the reactor");
            Box::new(Restore::Socket(Some(socket(file)?)))
        }
        Kind::Other => {
            tracing::debug!(
                terminal = stdin.is_terminal(),
                "stdin is not a pipe or a socket, using blocking reads"
            );
            Box::new(tokio::io::stdin())
        }
    })
}

fn stdout_writer() -> io::Result<BoxWrite> {
    let stdout = io::stdout();
    let file = File::from(stdout.as_fd().try_clone_to_owned()?);
    Ok(match kind(&file)? {
        Kind::Pipe => {
            tracing::debug!("stdout is a pipe, registered with the reactor");
            pipe_size::widen(&file);
            Box::new(Restore::Pipe(Some(pipe::Sender::from_owned_fd(
                OwnedFd::from(file),
            )?)))
        }
        Kind::Socket => {
            tracing::debug!("stdout is a socket, registered with the reactor");
            Box::new(Restore::Socket(Some(socket(file)?)))
        }
        Kind::Other => {
            tracing::debug!(
                terminal = stdout.is_terminal(),
                "stdout is not a pipe or a socket, using blocking writes"
            );
            Box::new(tokio::io::stdout())
        }
    })
}

/// Registers a (stream) socket: read and write work the same on any stream socket.
fn socket(file: File) -> io::Result<UnixStream> {
    let std = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
    std.set_nonblocking(true)?;
    UnixStream::from_std(std)
}

/// A reactor-registered standard stream that turns non-blocking mode back off when dropped
/// (the mode is shared with fd 0/1 and with whoever else holds the open pipe).
enum Restore<P: IntoBlocking> {
    Pipe(Option<P>),
    Socket(Option<UnixStream>),
}

trait IntoBlocking {
    fn into_blocking(self) -> io::Result<()>;
}

impl IntoBlocking for pipe::Receiver {
    fn into_blocking(self) -> io::Result<()> {
        self.into_blocking_fd().map(drop)
    }
}

impl IntoBlocking for pipe::Sender {
    fn into_blocking(self) -> io::Result<()> {
        self.into_blocking_fd().map(drop)
    }
}

impl<P> Drop for Restore<P>
where
    P: IntoBlocking,
{
    fn drop(&mut self) {
        let restored = match self {
            Restore::Pipe(p) => p.take().map(IntoBlocking::into_blocking),
            Restore::Socket(s) => s
                .take()
                .map(|s| s.into_std().and_then(|s| s.set_nonblocking(false))),
        };
        if let Some(Err(e)) = restored {
            tracing::debug!(error = %e, "could not restore blocking mode on a standard stream");
        }
    }
}

impl AsyncRead for Restore<pipe::Receiver> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Restore::Pipe(Some(p)) => Pin::new(p).poll_read(cx, buf),
            Restore::Socket(Some(s)) => Pin::new(s).poll_read(cx, buf),
            _ => Poll::Ready(Ok(())),
        }
    }
}

impl AsyncWrite for Restore<pipe::Sender> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Restore::Pipe(Some(p)) => Pin::new(p).poll_write(cx, buf),
            Restore::Socket(Some(s)) => Pin::new(s).poll_write(cx, buf),
            _ => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Restore::Pipe(Some(p)) => Pin::new(p).poll_flush(cx),
            Restore::Socket(Some(s)) => Pin::new(s).poll_flush(cx),
            _ => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Restore::Pipe(Some(p)) => Pin::new(p).poll_shutdown(cx),
            Restore::Socket(Some(s)) => Pin::new(s).poll_shutdown(cx),
            _ => Poll::Ready(Ok(())),
        }
    }
}

#[cfg(test)]
mod tests;
