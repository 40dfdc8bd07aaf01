//! The crate's [`Error`].

use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::{ErrorCode, ErrorObject};
use mcp_types::ProtocolVersion;

/// A boxed error, as carried by [`Error::Transport`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which side was expected to declare a capability; see [`Error::CapabilityNotDeclared`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// This client.
    Client,
    /// The server.
    Server,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Client => "client",
            Side::Server => "server",
        })
    }
}

/// Everything that can go wrong talking to an MCP server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error (code, message, data).
    #[error("server returned an error: {0}")]
    Rpc(ErrorObject),
    /// No response arrived in time; the request was cancelled on the server.
    #[error("request timed out after {0:?}")]
    Timeout(Duration),
    /// The connection is closed, or closed while the request was pending.
    ///
    /// If the transport failed, `source` is its error (the stdio transport, for one, names
    /// the exit status of the server process there).
    #[error("connection closed: {reason}")]
    Closed {
        /// Why the connection closed.
        reason: String,
        /// The transport's error, when a transport failure closed the connection.
        #[source]
        source: Option<SharedError>,
    },
    /// The transport failed (returned by the [`Connection`](crate::Connection) future).
    #[error("transport error")]
    Transport(#[source] BoxError),
    /// A message could not be encoded, or the server's answer could not be decoded.
    #[error("invalid {what} for {method}")]
    Decode {
        /// The method whose params or result were at fault.
        method: String,
        /// `"params"` or `"result"`.
        what: &'static str,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
    /// The arguments of a tool call or a prompt cannot be sent as the protocol needs them: a
    /// tool's must serialize to a JSON object, a prompt's to an object whose values are
    /// strings, numbers, booleans or `null`. Nothing was sent. See
    /// [`IntoCallToolParams`](crate::IntoCallToolParams) and
    /// [`IntoGetPromptParams`](crate::IntoGetPromptParams).
    #[error("invalid arguments for {of} {name:?}: {reason}")]
    InvalidArguments {
        /// `"tool"` or `"prompt"`.
        of: &'static str,
        /// The tool's or the prompt's name.
        name: String,
        /// What is wrong with the arguments.
        reason: String,
        /// The serializer's error, when the arguments failed to serialize.
        #[source]
        source: Option<serde_json::Error>,
    },
    /// The tool reported failure (`isError: true`) where a structured result was asked for
    /// ([`Client::call_tool_structured`](crate::Client::call_tool_structured),
    /// [`decode_structured`](crate::decode_structured)).
    #[error("tool {tool:?} failed{}", message_suffix(message))]
    ToolFailed {
        /// The tool's name.
        tool: String,
        /// The text content of the result, its blocks joined by newlines.
        message: String,
    },
    /// The tool's result has no `structuredContent` where it was asked for
    /// ([`Client::call_tool_structured`](crate::Client::call_tool_structured),
    /// [`decode_structured`](crate::decode_structured)).
    #[error("tool {tool:?} returned no structured content")]
    NoStructuredContent {
        /// The tool's name.
        tool: String,
    },
    /// The tool's `structuredContent` does not deserialize into the type asked for
    /// ([`Client::call_tool_structured`](crate::Client::call_tool_structured),
    /// [`decode_structured`](crate::decode_structured)).
    #[error("structured content of tool {tool:?} does not fit the requested type")]
    InvalidStructuredContent {
        /// The tool's name.
        tool: String,
        /// The deserializer's error.
        #[source]
        source: serde_json::Error,
    },
    /// The [`Connection`](crate::Connection) future that
    /// [`connect`](crate::ClientBuilder::connect) returned is not being polled, so no call
    /// can complete: it was not polled within [`CONNECTION_GRACE`](crate::CONNECTION_GRACE)
    /// of a call, or it was dropped without ever being polled. Nothing was sent. Run it with
    /// `tokio::spawn(connection)`, or poll it alongside the calls (`tokio::join!`,
    /// `tokio::select!`).
    #[error(
        "the client's connection is not running: the `Connection` future returned by \
         `connect` {}; run it with `tokio::spawn(connection)`, or poll it alongside the \
         calls with `tokio::join!` or `tokio::select!`",
        not_running_reason(*dropped)
    )]
    ConnectionNotRunning {
        /// Whether the `Connection` was dropped (rather than kept and not polled).
        dropped: bool,
    },
    /// A message exceeded the configured maximum size.
    #[error("message of {size} bytes exceeds the limit of {limit} bytes")]
    MessageTooLarge {
        /// The size of the message, in bytes.
        size: usize,
        /// The configured limit, in bytes.
        limit: usize,
    },
    /// The server chose a protocol version this client does not support; the client has
    /// disconnected.
    #[error(
        "server chose protocol version {version}, which this client does not support \
         (supported: {})",
        crate::versions::SUPPORTED_VERSIONS_TEXT
    )]
    UnsupportedProtocolVersion {
        /// The version the server answered with (or the one configured, if the client cannot
        /// propose it).
        version: ProtocolVersion,
    },
    /// The server does not speak the protocol version of the request (-32022, 2026-07-28):
    /// it named the versions it supports. In [`EraChoice::Auto`](crate::EraChoice::Auto) the
    /// client retries `server/discover` with one of them it speaks, if any.
    #[error("the server does not support protocol version {} (it supports {})",
        requested.as_ref().map_or("?", ProtocolVersion::as_str), versions_text(supported))]
    VersionNotSupported {
        /// The version the request carried, as the server read it.
        requested: Option<ProtocolVersion>,
        /// The versions the server supports.
        supported: Vec<ProtocolVersion>,
        /// The server's error, as sent.
        error: ErrorObject,
    },
    /// The request needs client capabilities it did not declare (-32021, 2026-07-28).
    #[error("the server needs client capabilities the request did not declare: {required}")]
    MissingClientCapability {
        /// The capabilities the server requires (`data.requiredCapabilities`), as sent.
        required: serde_json::Value,
        /// The server's error, as sent.
        error: ErrorObject,
    },
    /// A header of the request did not match its body, or was missing or malformed (-32020,
    /// 2026-07-28 over HTTP).
    #[error("the server found a request header that does not match the body: {}", .0.message)]
    HeaderMismatch(ErrorObject),
    /// The method does not exist in the negotiated protocol revision (say `ping` or
    /// `resources/subscribe` on 2026-07-28); nothing was sent.
    #[error("{method} is not part of protocol {version}{}", hint_suffix(hint))]
    NotInRevision {
        /// The method.
        method: &'static str,
        /// The negotiated version.
        version: ProtocolVersion,
        /// What to use instead, if anything.
        hint: &'static str,
    },
    /// The server answered `input_required` more times in a row than
    /// [`ClientBuilder::max_input_rounds`](crate::ClientBuilder::max_input_rounds) allows.
    #[error("{method}: the server still asked for input after {rounds} rounds")]
    TooManyInputRounds {
        /// The method of the request.
        method: String,
        /// How many rounds were answered.
        rounds: u32,
    },
    /// A list stream (say [`Client::list_tools_stream`](crate::Client::list_tools_stream))
    /// fetched [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) pages
    /// and the server still offered another.
    #[error("{method}: the server still had more after {pages} pages")]
    TooManyPages {
        /// The list method.
        method: String,
        /// How many pages were fetched.
        pages: usize,
    },
    /// Answering one of the server's input requests failed: the handler returned an error,
    /// or the client has no handler for it (it did not declare the capability).
    #[error("could not answer the server's {method} input request {key:?}")]
    InputRequest {
        /// The key of the input request in `inputRequests`.
        key: String,
        /// Its method (`elicitation/create`, `sampling/createMessage`, `roots/list`, ...).
        method: String,
        /// The handler's error, or why there is none.
        #[source]
        error: ErrorObject,
    },
    /// The task whose result was awaited was cancelled.
    #[error("task {task_id} was cancelled")]
    TaskCancelled {
        /// The task.
        task_id: String,
    },
    /// A tool's `structuredContent` does not match the `outputSchema` it declared in the last
    /// `tools/list`.
    #[error("structured content of tool {tool:?} does not match its output schema: {}", errors.join("; "))]
    OutputSchemaMismatch {
        /// The tool's name.
        tool: String,
        /// What did not match, one message per violation.
        errors: Vec<String>,
    },
    /// A tool declared an `outputSchema` that is not a valid JSON Schema, so its results
    /// cannot be checked.
    #[error("tool {tool:?} declares an invalid output schema: {message}")]
    InvalidOutputSchema {
        /// The tool's name.
        tool: String,
        /// Why the schema was rejected.
        message: String,
    },
    /// The operation needs a capability that was not declared: by this client (e.g.
    /// [`Client::set_roots`](crate::Client::set_roots) without roots), or by the server (with
    /// [`ClientBuilder::strict_capabilities`](crate::ClientBuilder::strict_capabilities)).
    #[error("the {side} did not declare the {capability} capability")]
    CapabilityNotDeclared {
        /// Who should have declared it.
        side: Side,
        /// The capability, e.g. `"roots"` or `"resources.subscribe"`.
        capability: &'static str,
    },
    /// The server broke the protocol, e.g. a paginated list that repeats its cursor.
    #[error("protocol violation in {method}: {message}")]
    Protocol {
        /// The method concerned.
        method: String,
        /// What went wrong.
        message: String,
    },
    /// The keep-alive ping failed, so the connection was closed (returned by the
    /// [`Connection`](crate::Connection) future).
    #[error("keep-alive ping failed")]
    PingFailed(#[source] Box<Error>),
    /// Another error of the JSON-RPC layer.
    #[error(transparent)]
    Jsonrpc(mcp_jsonrpc::Error),
    /// A view, or a tool call made from a view, was refused (MCP Apps extension, feature
    /// `apps`): see [`AppError`](crate::apps::error::AppError) for each case.
    #[cfg(feature = "apps")]
    #[error(transparent)]
    App(#[from] crate::apps::error::AppError),
    /// A skill entry, or a file read from it, was refused (Skills extension, feature
    /// `skills`): see [`SkillError`](crate::skills::error::SkillError) for what each case means and
    /// what to do.
    #[cfg(feature = "skills")]
    #[error(transparent)]
    Skill(#[from] crate::skills::error::SkillError),
}

fn versions_text(versions: &[ProtocolVersion]) -> String {
    let names: Vec<&str> = versions.iter().map(ProtocolVersion::as_str).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

fn not_running_reason(dropped: bool) -> String {
    if dropped {
        "was dropped without being polled".to_owned()
    } else {
        format!(
            "was not polled within {} of the call",
            humantime::format_duration(crate::CONNECTION_GRACE)
        )
    }
}

fn message_suffix(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

fn hint_suffix(hint: &str) -> String {
    if hint.is_empty() {
        String::new()
    } else {
        format!("; {hint}")
    }
}

/// The `data` of a -32021 or -32022 error.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RefusalData {
    #[serde(default)]
    required_capabilities: Option<serde_json::Value>,
    #[serde(default)]
    supported: Vec<ProtocolVersion>,
    #[serde(default)]
    requested: Option<ProtocolVersion>,
}

impl Error {
    /// The typed error for the server's `error`: the refusals of 2026-07-28 (-32020, -32021,
    /// -32022) get their own variants, anything else is [`Error::Rpc`].
    pub(crate) fn from_rpc(error: ErrorObject) -> Self {
        let data = || -> RefusalData {
            error
                .data
                .as_ref()
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or_default()
        };
        match error.code {
            ErrorCode::HEADER_MISMATCH => Error::HeaderMismatch(error),
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => {
                let required = data()
                    .required_capabilities
                    .unwrap_or(serde_json::Value::Null);
                Error::MissingClientCapability { required, error }
            }
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
                let RefusalData {
                    supported,
                    requested,
                    ..
                } = data();
                Error::VersionNotSupported {
                    requested,
                    supported,
                    error,
                }
            }
            _ => Error::Rpc(error),
        }
    }

    /// The server's JSON-RPC error, if this is one.
    pub fn as_rpc(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc(e)
            | Error::HeaderMismatch(e)
            | Error::MissingClientCapability { error: e, .. }
            | Error::VersionNotSupported { error: e, .. } => Some(e),
            _ => None,
        }
    }

    /// Whether the connection is closed (for [`Error::Closed`] and [`Error::Transport`]).
    pub fn is_closed(&self) -> bool {
        matches!(self, Error::Closed { .. } | Error::Transport(_))
    }

    pub(crate) fn decode(method: &str, what: &'static str, source: serde_json::Error) -> Self {
        Error::Decode {
            method: method.to_owned(),
            what,
            source,
        }
    }

    /// Maps an error of the JSON-RPC layer; `transport` is the transport failure recorded for
    /// this connection, if any.
    pub(crate) fn from_jsonrpc(
        e: mcp_jsonrpc::Error,
        method: &str,
        transport: Option<SharedError>,
    ) -> Self {
        match e {
            mcp_jsonrpc::Error::Rpc(e) => Error::from_rpc(e),
            mcp_jsonrpc::Error::Timeout(d) => Error::Timeout(d),
            mcp_jsonrpc::Error::Closed { reason } => match transport {
                Some(source) => Error::Closed {
                    reason: "the transport failed".to_owned(),
                    source: Some(source),
                },
                None => Error::Closed {
                    reason,
                    source: None,
                },
            },
            mcp_jsonrpc::Error::Transport(e) => Error::Transport(e),
            mcp_jsonrpc::Error::Decode(e) => Error::decode(method, "params", e),
            mcp_jsonrpc::Error::MessageTooLarge { size, limit } => {
                Error::MessageTooLarge { size, limit }
            }
            other => Error::Jsonrpc(other),
        }
    }
}

/// A transport error shared between the failed call(s) that report it and the connection.
///
/// Displays as, and has the source of, the transport's own error.
#[derive(Debug, Clone)]
pub struct SharedError(pub(crate) Arc<dyn std::error::Error + Send + Sync + 'static>);

impl SharedError {
    /// The transport's error.
    pub fn inner(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl std::fmt::Display for SharedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for SharedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}
