//! Exit statuses, and how a failure is told to the user.

use std::io::Write as _;

use serde_json::{Value, json};

/// The exit status of `mcp` (also listed by `--help`, see [`crate::cli::EXIT_STATUS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// It worked.
    Ok,
    /// The tool ran and reported an error (`isError: true`).
    ToolError,
    /// A bad command line, or arguments that cannot be sent.
    Usage,
    /// The server answered with a JSON-RPC error, or broke the protocol.
    Protocol,
    /// The server could not be started or reached, the connection failed, a request timed
    /// out, or authorization failed.
    Connection,
    /// Ctrl-C.
    Interrupted,
}

impl Exit {
    /// The process's exit status.
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::ToolError => 1,
            Exit::Usage => 2,
            Exit::Protocol => 3,
            Exit::Connection => 4,
            Exit::Interrupted => 130,
        }
    }

    /// The word `--json` errors carry as `kind`.
    fn kind(self) -> &'static str {
        match self {
            Exit::Ok => "ok",
            Exit::ToolError => "tool",
            Exit::Usage => "usage",
            Exit::Protocol => "protocol",
            Exit::Connection => "connection",
            Exit::Interrupted => "interrupted",
        }
    }
}

/// A failure: what to say, and with which exit status.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) exit: Exit,
    /// The whole message (`anyhow`'s chain, `: `-separated).
    message: String,
    /// The server's JSON-RPC error, when it sent one.
    rpc: Option<mcp_client::ErrorObject>,
}

impl Failure {
    fn new(exit: Exit, error: &anyhow::Error) -> Failure {
        Failure {
            exit,
            message: format!("{error:#}"),
            rpc: None,
        }
    }

    /// A usage error (exit 2).
    pub(crate) fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure::new(Exit::Usage, &error.into())
    }

    /// The server could not be reached, or the connection failed (exit 4).
    pub(crate) fn connection(error: impl Into<anyhow::Error>) -> Failure {
        Failure::new(Exit::Connection, &error.into())
    }

    /// Ctrl-C (exit 130).
    pub(crate) fn interrupted() -> Failure {
        Failure {
            exit: Exit::Interrupted,
            message: "interrupted".to_owned(),
            rpc: None,
        }
    }

    /// A failed call: its exit status follows from the client's error (see [`classify`]);
    /// `what` says what was being done (`"tools/call add"`).
    pub(crate) fn call(what: &str, error: mcp_client::Error) -> Failure {
        let exit = classify(&error);
        let rpc = error.as_rpc().cloned();
        let error = anyhow::Error::new(error).context(what.to_owned());
        Failure {
            rpc,
            ..Failure::new(exit, &error)
        }
    }

    /// Adds `note` (say, the end of the server program's stderr) on the lines after the
    /// message.
    pub(crate) fn with_note(mut self, note: Option<String>) -> Failure {
        if let Some(note) = note {
            self.message.push('\n');
            self.message.push_str(&note);
        }
        self
    }

    /// Prints the failure on stderr: `mcp: error: ...`, or with `--json` one line
    /// `{"error":{"kind":...,"message":...,"code":...,"data":...}}`.
    pub(crate) fn report(&self, json: bool) {
        let mut stderr = std::io::stderr().lock();
        if json {
            let _ = writeln!(stderr, "{}", self.to_json());
        } else {
            let _ = writeln!(stderr, "mcp: error: {}", self.message);
        }
    }

    fn to_json(&self) -> Value {
        let mut error = json!({"kind": self.exit.kind(), "message": self.message});
        if let Some(rpc) = &self.rpc {
            error["code"] = json!(rpc.code.as_i32());
            error["serverMessage"] = json!(rpc.message);
            if let Some(data) = &rpc.data {
                error["data"] = data.clone();
            }
        }
        json!({ "error": error })
    }
}

/// The exit status of a failed call: the server's errors and protocol breaches are 3, a
/// failed connection or a timeout 4, arguments that cannot be sent 2.
pub(crate) fn classify(error: &mcp_client::Error) -> Exit {
    use mcp_client::Error as E;
    match error {
        E::Timeout(_)
        | E::Closed { .. }
        | E::Transport(_)
        | E::ConnectionNotRunning { .. }
        | E::PingFailed(_)
        | E::MessageTooLarge { .. }
        | E::UnsupportedProtocolVersion { .. }
        | E::VersionNotSupported { .. } => Exit::Connection,
        E::InvalidArguments { .. } => Exit::Usage,
        // A transport failure that concerned one request: the HTTP transport reports it as
        // -32603 whose message is its own error's (`http request failed: ...`).
        E::Rpc(rpc) if is_transport_failure(rpc) => Exit::Connection,
        _ => Exit::Protocol,
    }
}

/// Whether the JSON-RPC error is the HTTP client transport's report of a failed exchange
/// (not the server's answer): -32603 with the transport's messages.
fn is_transport_failure(rpc: &mcp_client::ErrorObject) -> bool {
    const TRANSPORT: [&str; 5] = [
        "http request failed",
        "not authorized",
        "the auth provider failed",
        "timed out waiting for",
        "transport closed",
    ];
    rpc.code == mcp_client::ErrorCode::INTERNAL_ERROR
        && TRANSPORT.iter().any(|t| rpc.message.starts_with(t))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_client::{Error, ErrorCode, ErrorObject};

    use super::*;

    #[test]
    fn exit_codes_are_distinct() {
        let all = [
            Exit::Ok,
            Exit::ToolError,
            Exit::Usage,
            Exit::Protocol,
            Exit::Connection,
            Exit::Interrupted,
        ];
        let mut codes: Vec<u8> = all.iter().map(|e| e.code()).collect();
        codes.dedup();
        assert_eq!(codes, [0, 1, 2, 3, 4, 130]);
    }

    #[test]
    fn errors_are_classified() {
        let rpc = ErrorObject::new(ErrorCode::INVALID_PARAMS, "bad");
        assert_eq!(classify(&Error::Rpc(rpc)), Exit::Protocol);
        let http = ErrorObject::internal_error("http request failed: connection refused");
        assert_eq!(classify(&Error::Rpc(http)), Exit::Connection);
        let server = ErrorObject::internal_error("boom");
        assert_eq!(classify(&Error::Rpc(server)), Exit::Protocol);
        assert_eq!(
            classify(&Error::Timeout(Duration::from_secs(1))),
            Exit::Connection
        );
        let invalid = Error::InvalidArguments {
            of: "tool",
            name: "t".into(),
            reason: "not an object".into(),
            source: None,
        };
        assert_eq!(classify(&invalid), Exit::Usage);
    }

    #[test]
    fn json_errors_carry_the_servers_error() {
        let rpc = ErrorObject::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found")
            .with_data(json!({"uri": "test://nope"}));
        let failure = Failure::call("resources/read test://nope", Error::Rpc(rpc));
        assert_eq!(failure.exit, Exit::Protocol);
        let json = failure.to_json();
        assert_eq!(json["error"]["kind"], "protocol");
        assert_eq!(json["error"]["code"], -32002);
        assert_eq!(json["error"]["serverMessage"], "Resource not found");
        assert_eq!(json["error"]["data"], json!({"uri": "test://nope"}));
        let message = json["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("resources/read test://nope: server returned an error"),
            "{message}"
        );
    }
}
