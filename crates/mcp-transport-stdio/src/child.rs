//! The client side: [`ChildProcessTransport`], a server run as a child process.

use std::ffi::OsStr;
use std::fmt;
use std::future::{Future, pending};
use std::io;
use std::pin::Pin;
use std::process::ExitStatus;
use std::time::Duration;

use mcp_jsonrpc::{ConnectionInfo, ErrorCode, Message, Transport};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::io::AsyncRead;
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep, sleep, sleep_until};

mod builder;
mod stderr;

pub use builder::ChildProcessBuilder;
use stderr::StderrPump;
pub use stderr::StderrSink;

use crate::error::{Error, Result};
use crate::lines::{Frame, LineReader};
use crate::stdio::{SharedWriter, encode_all, write_line, write_message};

/// The default of [`ChildProcessBuilder::close_timeout`] and
/// [`ChildProcessBuilder::term_timeout`]: 2 s.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the transport waits, once the server has exited or closed its stdout, for the rest
/// of its output (its last stderr lines, or messages still in the pipe) before reporting the
/// end.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// How many characters of a non-protocol line an error quotes.
const QUOTE_CHARS: usize = 200;

/// Which step of the shutdown sequence ended the server process; see
/// [`ChildProcessTransport`]'s `close`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShutdownOutcome {
    /// The process had already exited when the transport was closed.
    AlreadyExited,
    /// The process exited after its stdin was closed (the polite way).
    StdinClosed,
    /// The process exited after `SIGTERM`.
    Terminated,
    /// The process was killed with `SIGKILL`.
    Killed,
}

#[derive(Debug, Clone, Copy, Default)]
struct ProcessState {
    status: Option<ExitStatus>,
    outcome: Option<ShutdownOutcome>,
}

/// A cloneable view of the server process, which outlives the transport (a connection
/// consumes its transport): its pid, and how it ended.
#[derive(Debug, Clone)]
pub struct ProcessHandle {
    pid: Option<u32>,
    state: watch::Receiver<ProcessState>,
}

impl ProcessHandle {
    /// The process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How the process ended, once the transport has seen it end.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.state.borrow().status
    }

    /// Which step of the shutdown sequence ended the process, once the transport is closed.
    pub fn shutdown_outcome(&self) -> Option<ShutdownOutcome> {
        self.state.borrow().outcome
    }

    /// Waits until the transport has seen the process end, and returns its status; `None`
    /// if the transport was dropped first (dropping kills the process).
    ///
    /// Cancel-safe.
    pub async fn exited(&self) -> Option<ExitStatus> {
        let mut state = self.state.clone();
        let seen = state
            .wait_for(|s| s.status.is_some())
            .await
            .map(|s| s.status);
        match seen {
            Ok(status) => status,
            Err(_) => state.borrow().status,
        }
    }
}

/// An MCP server run as a child process, spoken to over its stdin and stdout: the stdio
/// transport, client side.
///
/// Build one with [`ChildProcessTransport::builder`]. Messages are newline-delimited JSON, as
/// with [`StdioTransport`](crate::StdioTransport); the server's stderr goes where the
/// [`StderrSink`] says.
///
/// # The end of the server
///
/// [`recv`](Transport::recv) fails (ending the connection, so its pending requests fail
/// rather than hang) when:
///
/// - the process exits (or closes its stdout and exits): [`Error::ProcessExited`], whose
///   message names the status, e.g. "server process exited with status 3". Even status 0
///   is an error here, since the client did not ask the server to go;
/// - it closes its stdout but keeps running: [`Error::StdoutClosed`];
/// - it writes a line that is not JSON to stdout (a stray `print`):
///   [`Error::NonProtocolLine`], quoting its first 200 characters. JSON that is not a valid
///   JSON-RPC message is handed to the connection instead, which answers it.
///
/// Before reporting the end, it waits briefly (500 ms at most) for the rest of the
/// server's output, so the last stderr lines (a traceback, say) are delivered first.
///
/// # Shutdown
///
/// [`close`](Transport::close) follows the MCP lifecycle: it closes the server's stdin and
/// waits up to [`close_timeout`](ChildProcessBuilder::close_timeout) for it to exit, then
/// sends `SIGTERM` and waits up to [`term_timeout`](ChildProcessBuilder::term_timeout),
/// then sends `SIGKILL`. Meanwhile it keeps draining stdout (discarding it) and stderr, so
/// a server blocked on a full pipe can finish. Afterwards [`ProcessHandle::exit_status`]
/// and [`ProcessHandle::shutdown_outcome`] tell how it ended. `close` is not cancel-safe:
/// dropping it midway leaves the process to the drop behaviour below.
///
/// Dropping the transport kills the process (`SIGKILL`) if it is still running; tokio reaps
/// it in the background, so no zombie is left behind.
pub struct ChildProcessTransport {
    child: Child,
    pid: Option<u32>,
    program: String,
    stdin: SharedWriter<ChildStdin>,
    /// `None` once it ended.
    stdout: Option<LineReader<ChildStdout>>,
    /// `None` once it ended, or when not piped.
    stderr: Option<StderrPump>,
    status: Option<ExitStatus>,
    /// Started when the process exits or closes stdout.
    grace: Option<Pin<Box<Sleep>>>,
    grace_over: bool,
    max_line_size: usize,
    close_timeout: Duration,
    term_timeout: Duration,
    state: watch::Sender<ProcessState>,
}

impl fmt::Debug for ChildProcessTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChildProcessTransport")
            .field("program", &self.program)
            .field("pid", &self.pid)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl ChildProcessTransport {
    /// Starts building a transport that runs `program`.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_transport_stdio::Error> {
    /// use mcp_transport_stdio::ChildProcessTransport;
    ///
    /// let transport = ChildProcessTransport::builder("python3")
    ///     .args(["-m", "my_mcp_server"])
    ///     .env("LOG_LEVEL", "debug")
    ///     .current_dir("/srv/mcp")
    ///     .spawn()?;
    /// # Ok(()) }
    /// ```
    pub fn builder(program: impl AsRef<OsStr>) -> ChildProcessBuilder {
        ChildProcessBuilder::new(program)
    }

    /// A handle on the process that outlives the transport.
    pub fn handle(&self) -> ProcessHandle {
        ProcessHandle {
            pid: self.pid,
            state: self.state.subscribe(),
        }
    }

    /// The process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How the process ended, once the transport has seen it end.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.status
    }

    /// Which step of the shutdown sequence ended the process, once closed.
    pub fn shutdown_outcome(&self) -> Option<ShutdownOutcome> {
        self.state.borrow().outcome
    }

    fn exited(&mut self, status: ExitStatus) {
        tracing::debug!(program = %self.program, pid = self.pid, %status, "server process exited");
        self.status = Some(status);
        self.state.send_modify(|s| s.status = Some(status));
    }

    fn start_grace(&mut self) {
        if self.grace.is_none() && !self.grace_over {
            self.grace = Some(Box::pin(sleep(EXIT_GRACE)));
        }
    }

    /// The error that ends the stream, once the process is known to be gone.
    fn ended(&self) -> Option<Error> {
        match (self.stdout.is_some(), self.status) {
            (false, Some(status)) if self.stderr.is_none() || self.grace_over => {
                Some(Error::ProcessExited { status })
            }
            (false, None) if self.grace_over => Some(Error::StdoutClosed),
            // Exited, but something (a grandchild?) still holds stdout open.
            (true, Some(status)) if self.grace_over => Some(Error::ProcessExited { status }),
            _ => None,
        }
    }

    fn deliver_stderr(&mut self, line: io::Result<Option<Frame>>) {
        match line {
            Ok(Some(frame)) => {
                if let Some(pump) = &mut self.stderr {
                    pump.deliver(frame, self.pid, &self.program);
                }
            }
            Ok(None) => self.stderr = None,
            Err(e) => {
                tracing::debug!(error = %e, "reading the server's stderr failed");
                self.stderr = None;
            }
        }
    }

    /// Waits for the process to exit, at most `timeout`, draining its output meanwhile.
    async fn wait_draining(&mut self, timeout: Option<Duration>) -> Result<bool> {
        let deadline = timeout.map(|t| Instant::now() + t);
        while self.status.is_none() {
            tokio::select! {
                biased;
                status = self.child.wait() => {
                    let status =
                        status.map_err(|e| Error::io("waiting for the server process", e))?;
                    self.exited(status);
                }
                line = next_line(self.stderr.as_mut().map(|p| &mut p.lines)) => {
                    self.deliver_stderr(line);
                }
                frame = next_line(self.stdout.as_mut()) => match frame {
                    Ok(Some(_)) => {
                        tracing::debug!("discarding the server's output after close");
                    }
                    Ok(None) | Err(_) => self.stdout = None,
                },
                () = sleep_until_opt(deadline) => return Ok(false),
            }
        }
        Ok(true)
    }

    /// After the exit: delivers the rest of stderr (and discards the rest of stdout) until
    /// both end, for [`EXIT_GRACE`] at most (a grandchild may hold them open).
    async fn drain_after_exit(&mut self) {
        let deadline = Instant::now() + EXIT_GRACE;
        while self.stderr.is_some() || self.stdout.is_some() {
            tokio::select! {
                biased;
                line = next_line(self.stderr.as_mut().map(|p| &mut p.lines)) => {
                    self.deliver_stderr(line);
                }
                frame = next_line(self.stdout.as_mut()) => {
                    if !matches!(frame, Ok(Some(_))) {
                        self.stdout = None;
                    }
                }
                () = sleep_until(deadline) => break,
            }
        }
    }

    fn signal(&self, signal: Signal) {
        let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) else {
            return;
        };
        if let Err(e) = kill(Pid::from_raw(pid), signal) {
            tracing::debug!(pid, %signal, error = %e, "could not signal the server process");
        }
    }
}

impl Transport for ChildProcessTransport {
    type Error = Error;

    fn send(&mut self, msg: Message) -> impl Future<Output = Result<()>> + Send + 'static {
        write_message(self.stdin.clone(), msg, "writing to the server's stdin")
    }

    /// All the lines in one write.
    fn send_many(
        &mut self,
        msgs: Vec<Message>,
    ) -> impl Future<Output = Result<()>> + Send + 'static {
        write_line(
            self.stdin.clone(),
            encode_all(&msgs),
            "writing to the server's stdin",
        )
    }

    /// Cancel-safe: partial lines stay buffered, and the exit status, once seen, is kept.
    async fn recv(&mut self) -> Result<Option<Message>> {
        loop {
            if let Some(end) = self.ended() {
                return Err(end);
            }
            tokio::select! {
                biased;
                frame = next_line(self.stdout.as_mut()) => match frame {
                    Ok(Some(Frame::Line(range))) => {
                        let Some(stdout) = &self.stdout else { continue };
                        let bytes = stdout.bytes(range);
                        let msg = Message::decode(bytes);
                        if let Message::Invalid(invalid) = &msg
                            && invalid.error.code == ErrorCode::PARSE_ERROR
                        {
                            let line = String::from_utf8_lossy(bytes)
                                .chars()
                                .take(QUOTE_CHARS)
                                .collect();
                            return Err(Error::NonProtocolLine { line });
                        }
                        return Ok(Some(msg));
                    }
                    Ok(Some(Frame::Oversized { size, head })) => {
                        tracing::warn!(size, limit = self.max_line_size,
                            "the server wrote an oversized line, skipped it");
                        return Ok(Some(Message::oversized(&head, size, self.max_line_size)));
                    }
                    Ok(None) => {
                        self.stdout = None;
                        self.start_grace();
                    }
                    Err(e) => return Err(Error::io("reading the server's stdout", e)),
                },
                line = next_line(self.stderr.as_mut().map(|p| &mut p.lines)) => {
                    self.deliver_stderr(line);
                }
                status = wait_opt(&mut self.child, self.status.is_some()) => {
                    let status =
                        status.map_err(|e| Error::io("waiting for the server process", e))?;
                    self.exited(status);
                    self.start_grace();
                }
                () = sleep_opt(self.grace.as_mut()) => {
                    self.grace = None;
                    self.grace_over = true;
                }
            }
        }
    }

    /// `network.transport` `pipe`, as the conventions name the stdio transport; no
    /// addresses, no session id.
    fn connection_info(&self) -> ConnectionInfo {
        ConnectionInfo::new().with_network_transport("pipe")
    }

    async fn close(&mut self) -> Result<()> {
        if self.state.borrow().outcome.is_some() {
            return Ok(());
        }
        match self.stdin.try_lock() {
            Ok(mut stdin) => drop(stdin.take()),
            Err(_) => tracing::debug!("a write is in flight, the server's stdin stays open"),
        }
        let outcome = if self.status.is_some() {
            ShutdownOutcome::AlreadyExited
        } else if self.wait_draining(Some(self.close_timeout)).await? {
            ShutdownOutcome::StdinClosed
        } else {
            tracing::debug!(
                pid = self.pid,
                "server still running after stdin closed, sending SIGTERM"
            );
            self.signal(Signal::SIGTERM);
            if self.wait_draining(Some(self.term_timeout)).await? {
                ShutdownOutcome::Terminated
            } else {
                tracing::debug!(
                    pid = self.pid,
                    "server still running after SIGTERM, sending SIGKILL"
                );
                self.child
                    .start_kill()
                    .map_err(|e| Error::io("killing the server process", e))?;
                self.wait_draining(None).await?;
                ShutdownOutcome::Killed
            }
        };
        self.drain_after_exit().await;
        tracing::debug!(program = %self.program, pid = self.pid, ?outcome, "server process shut down");
        self.state.send_modify(|s| s.outcome = Some(outcome));
        Ok(())
    }
}

impl Drop for ChildProcessTransport {
    fn drop(&mut self) {
        if self.status.is_none() {
            // `kill_on_drop` would do this too; tokio reaps the process in the background.
            let _ = self.child.start_kill();
            if let Ok(Some(status)) = self.child.try_wait() {
                self.state.send_modify(|s| s.status = Some(status));
            }
        }
    }
}

async fn next_line<R: AsyncRead + Unpin>(
    reader: Option<&mut LineReader<R>>,
) -> io::Result<Option<Frame>> {
    match reader {
        Some(reader) => reader.next().await,
        None => pending().await,
    }
}

async fn wait_opt(child: &mut Child, done: bool) -> io::Result<ExitStatus> {
    if done {
        pending().await
    } else {
        child.wait().await
    }
}

async fn sleep_opt(sleep: Option<&mut Pin<Box<Sleep>>>) {
    match sleep {
        Some(sleep) => sleep.as_mut().await,
        None => pending().await,
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => pending().await,
    }
}
