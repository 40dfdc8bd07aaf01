//! The crate's [`Error`].

use std::fmt;
use std::io;
use std::process::ExitStatus;

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong with a stdio transport.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing failed (for a child process, usually because it went away).
    #[error("i/o error {context}")]
    Io {
        /// What the transport was doing.
        context: &'static str,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A message could not be serialized (only a [`Message::Invalid`] cannot be).
    ///
    /// [`Message::Invalid`]: mcp_jsonrpc::Message::Invalid
    #[error("could not encode a message")]
    Encode(#[source] serde_json::Error),
    /// The server process could not be started.
    #[error("could not spawn the server process `{program}`")]
    Spawn {
        /// The program that was to run.
        program: String,
        /// Why it could not.
        #[source]
        source: io::Error,
    },
    /// The server process exited (or was killed) while the connection was open.
    #[error("server process {}", Described(*.status))]
    ProcessExited {
        /// How it ended.
        status: ExitStatus,
    },
    /// The server process closed its stdout but did not exit.
    #[error("server process closed its stdout")]
    StdoutClosed,
    /// The server process wrote something other than a JSON message to stdout.
    #[error("server wrote a non-protocol line to stdout: {line}")]
    NonProtocolLine {
        /// The start of the line (at most 200 characters).
        line: String,
    },
    /// The transport was closed.
    #[error("transport closed")]
    Closed,
}

impl Error {
    pub(crate) fn io(context: &'static str, source: io::Error) -> Self {
        Error::Io { context, source }
    }
}

/// Describes an exit status: "exited with status 3", "was killed by signal 9 (SIGKILL)".
struct Described(ExitStatus);

impl fmt::Display for Described {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(code) = self.0.code() {
            write!(f, "exited with status {code}")
        } else if let Some(signal) = self.0.signal() {
            write!(f, "was killed by signal {signal}")?;
            if let Ok(name) = nix::sys::signal::Signal::try_from(signal) {
                write!(f, " ({name})")?;
            }
            Ok(())
        } else {
            write!(f, "ended with {}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt as _;

    use super::*;

    #[test]
    fn exit_statuses_read_well() {
        let exited = Error::ProcessExited {
            status: ExitStatus::from_raw(3 << 8),
        };
        assert_eq!(exited.to_string(), "server process exited with status 3");
        let killed = Error::ProcessExited {
            status: ExitStatus::from_raw(9),
        };
        assert_eq!(
            killed.to_string(),
            "server process was killed by signal 9 (SIGKILL)"
        );
    }
}
