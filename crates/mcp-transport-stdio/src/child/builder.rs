//! [`ChildProcessBuilder`]: the command that runs the server, and the transport's options.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::Command;
use tokio::sync::{Mutex, watch};

use super::stderr::{StderrPump, StderrSink};
use super::{ChildProcessTransport, DEFAULT_SHUTDOWN_TIMEOUT, ProcessState};
use crate::error::{Error, Result};
use crate::lines::LineReader;
use crate::pipe_size;
use crate::stdio::DEFAULT_MAX_LINE_SIZE;

/// Builds a [`ChildProcessTransport`]: the command, and the transport's options.
#[derive(Debug)]
pub struct ChildProcessBuilder {
    command: Command,
    program: String,
    stderr: StderrSink,
    max_line_size: usize,
    close_timeout: Duration,
    term_timeout: Duration,
}

impl ChildProcessBuilder {
    /// Starts building a transport that runs `program` (looked up in `PATH` if it has no
    /// slash).
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        ChildProcessBuilder::from_command(Command::new(program))
    }

    /// Starts from a prepared command (for settings this builder does not have: user,
    /// process group, ...). Its stdin, stdout and stderr settings are replaced.
    pub fn from_command(command: Command) -> Self {
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        ChildProcessBuilder {
            command,
            program,
            stderr: StderrSink::default(),
            max_line_size: DEFAULT_MAX_LINE_SIZE,
            close_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            term_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    /// Adds arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets an environment variable (the rest of the environment is inherited unless
    /// [`env_clear`](Self::env_clear) is called).
    #[must_use]
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    /// Sets environment variables.
    #[must_use]
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.command.envs(vars);
        self
    }

    /// Removes an environment variable.
    #[must_use]
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.command.env_remove(key);
        self
    }

    /// Starts from an empty environment.
    #[must_use]
    pub fn env_clear(mut self) -> Self {
        self.command.env_clear();
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Sets where the server's stderr goes (default [`StderrSink::Tracing`]).
    #[must_use]
    pub fn stderr(mut self, sink: StderrSink) -> Self {
        self.stderr = sink;
        self
    }

    /// Sets the longest line accepted from the server's stdout, in bytes (default
    /// [`DEFAULT_MAX_LINE_SIZE`]). A longer line is skipped without being buffered; if it is
    /// a response, the request it answers fails at once with `MessageTooLarge`.
    #[must_use]
    pub fn max_line_size(mut self, max: usize) -> Self {
        self.max_line_size = max.max(1);
        self
    }

    /// How long `close` waits for the server to exit after closing its stdin, before
    /// sending `SIGTERM` (default [`DEFAULT_SHUTDOWN_TIMEOUT`]).
    #[must_use]
    pub fn close_timeout(mut self, timeout: Duration) -> Self {
        self.close_timeout = timeout;
        self
    }

    /// How long `close` waits for the server to exit after `SIGTERM`, before sending
    /// `SIGKILL` (default [`DEFAULT_SHUTDOWN_TIMEOUT`]).
    #[must_use]
    pub fn term_timeout(mut self, timeout: Duration) -> Self {
        self.term_timeout = timeout;
        self
    }

    /// Starts the server process.
    ///
    /// # Errors
    ///
    /// [`Error::Spawn`] if the process cannot be started.
    ///
    /// # Panics
    ///
    /// Panics outside a tokio runtime with IO enabled.
    pub fn spawn(mut self) -> Result<ChildProcessTransport> {
        let stderr_stdio = match self.stderr {
            StderrSink::Inherit => Stdio::inherit(),
            StderrSink::Discard => Stdio::null(),
            _ => Stdio::piped(),
        };
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr_stdio)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| Error::Spawn {
                program: self.program.clone(),
                source,
            })?;
        let pid = child.id();
        if let Some(stdin) = &child.stdin {
            pipe_size::widen(stdin);
        }
        if let Some(stdout) = &child.stdout {
            pipe_size::widen(stdout);
        }
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .map(|out| LineReader::new(out, self.max_line_size));
        let stderr = StderrPump::new(child.stderr.take(), self.stderr);
        tracing::debug!(program = %self.program, pid, "spawned the server process");
        Ok(ChildProcessTransport {
            child,
            pid,
            program: self.program,
            stdin: Arc::new(Mutex::new(stdin)),
            stdout,
            stderr,
            status: None,
            grace: None,
            grace_over: false,
            max_line_size: self.max_line_size,
            close_timeout: self.close_timeout,
            term_timeout: self.term_timeout,
            state: watch::Sender::new(ProcessState::default()),
        })
    }
}
