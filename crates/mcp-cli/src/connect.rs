//! Reaching the server: a child process over stdio or a Streamable HTTP endpoint, the
//! client with its handlers, and the connection running on a task.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use mcp_client::types::{Implementation, LoggingLevel, LoggingMessageNotificationParams};
use mcp_client::{Client, ClientHandler, Transport};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_transport_stdio::{ChildProcessTransport, StderrSink};
use tokio::task::JoinHandle;

use crate::cli::Session;
use crate::exit::Failure;
use crate::interact::Interact;

/// How many lines of a server program's stderr are kept, to show when it fails.
const STDERR_TAIL: usize = 20;
/// How long closing waits for the server to go.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// A connected client, its connection running on a task.
pub(crate) struct Connected {
    pub(crate) client: Client,
    /// What the user called the server (its URL, or its command line).
    pub(crate) label: String,
    connection: JoinHandle<mcp_client::Result<()>>,
    stderr: StderrTail,
}

impl Connected {
    /// Closes the connection (the server program is asked to exit) and waits a little for
    /// it; how the server goes is not the command's outcome.
    pub(crate) async fn close(self) {
        self.client.close();
        let _ = tokio::time::timeout(CLOSE_WAIT, self.connection).await;
    }

    /// A failure while talking to the server, with the end of the server program's stderr
    /// when the connection is gone.
    pub(crate) fn failure(&self, what: &str, error: mcp_client::Error) -> Failure {
        let closed = error.is_closed();
        let failure = Failure::call(what, error);
        if closed {
            failure.with_note(self.stderr.note())
        } else {
            failure
        }
    }
}

/// The last lines a server program wrote on stderr.
#[derive(Clone, Default)]
struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: &str) {
        let mut lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_TAIL {
            lines.pop_front();
        }
        lines.push_back(line.to_owned());
    }

    /// `the server's stderr ended with:` and the lines, or nothing.
    fn note(&self) -> Option<String> {
        let lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.is_empty() {
            return None;
        }
        let mut note = String::from("the server's stderr ended with:");
        for line in lines.iter() {
            note.push_str("\n  ");
            note.push_str(line);
        }
        Some(note)
    }
}

/// Connects to the server `session` names, in the era it asks for.
pub(crate) async fn connect(session: &Session) -> Result<Connected, Failure> {
    let interact = Interact::new();
    let mut builder = Client::builder()
        .client_info(Implementation::new("mcp", env!("CARGO_PKG_VERSION")))
        .era(session.connection.era.choice)
        .request_timeout(session.connection.timeout.0)
        .max_list_pages(session.connection.max_pages as usize)
        .handler(Notifications {
            quiet: session.output.quiet,
        })
        .elicitation(interact.clone())
        .elicitation_url(true)
        .sampling(interact)
        .skills(true);
    if let Some(version) = &session.connection.era.version {
        builder = builder.protocol_version(version.clone());
    }
    let stderr = StderrTail::default();
    let (client, connection, label) = match (&session.target.url, &session.target.command[..]) {
        (Some(url), _) => {
            let transport = http_transport(url, session)?;
            let (client, connection) = open(builder, transport, url, &stderr).await?;
            (client, connection, url.clone())
        }
        (None, [program, args @ ..]) => {
            let label = session.target.command.join(" ");
            let mut child = ChildProcessTransport::builder(program).args(args);
            for (key, value) in &session.connection.env {
                child = child.env(key, value);
            }
            if let Some(dir) = &session.connection.cwd {
                child = child.current_dir(dir);
            }
            child = if session.output.verbose {
                child.stderr(StderrSink::Inherit)
            } else {
                let tail = stderr.clone();
                child.stderr(StderrSink::callback(move |line| tail.push(line)))
            };
            let transport = child
                .spawn()
                .with_context(|| format!("cannot start `{label}`"))
                .map_err(Failure::connection)?;
            let (client, connection) = open(builder, transport, &label, &stderr).await?;
            (client, connection, label)
        }
        (None, []) => {
            return Err(Failure::usage(anyhow!(
                "no server: give a command after `--`, or --url URL"
            )));
        }
    };
    let connected = Connected {
        client,
        label,
        connection: tokio::spawn(connection),
        stderr,
    };
    if let Some(level) = &session.connection.log_level {
        let level: LoggingLevel = serde_json::from_value(serde_json::Value::String(level.clone()))
            .map_err(|_| {
                Failure::usage(anyhow!(
                    "--log-level {level}: use debug, info, notice, warning, error, critical, \
                     alert or emergency"
                ))
            })?;
        if let Err(e) = connected.client.set_logging_level(level).await {
            let failure = connected.failure("logging/setLevel", e);
            connected.close().await;
            return Err(failure);
        }
    }
    Ok(connected)
}

/// The opening exchange over `transport`.
async fn open<T: Transport>(
    builder: mcp_client::ClientBuilder,
    transport: T,
    label: &str,
    stderr: &StderrTail,
) -> Result<(Client, mcp_client::Connection), Failure> {
    builder.connect(transport).await.map_err(|e| {
        let error = anyhow::Error::new(e).context(format!("cannot connect to {label}"));
        Failure::connection(error).with_note(stderr.note())
    })
}

/// The Streamable HTTP transport to `url`, with the `--header`s and, unless one of them is
/// `Authorization`, OAuth.
fn http_transport(url: &str, session: &Session) -> Result<StreamableHttpClientTransport, Failure> {
    check_url(url).map_err(Failure::usage)?;
    let mut builder = StreamableHttpClientTransport::builder(url);
    let mut authorization = false;
    for (name, value) in &session.connection.header {
        authorization |= name.eq_ignore_ascii_case("authorization");
        builder = builder.header(name.as_str(), value.as_str());
    }
    if !authorization {
        builder = builder.auth(crate::auth::oauth(url, &session.auth)?);
    }
    builder
        .build()
        .with_context(|| format!("cannot reach {url}"))
        .map_err(Failure::usage)
}

/// An absolute `http://` or `https://` URL with a host.
pub(crate) fn check_url(url: &str) -> anyhow::Result<()> {
    let parsed = url::Url::parse(url).with_context(|| format!("`{url}` is not a URL"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        bail!("`{url}` is not an http:// or https:// URL");
    }
    Ok(())
}

/// The server's notifications: log messages go to stderr (unless `--quiet`).
struct Notifications {
    quiet: bool,
}

impl ClientHandler for Notifications {
    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        if self.quiet {
            return;
        }
        let data = match &params.data {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let logger = params
            .logger
            .as_deref()
            .map(|l| format!(" {l}"))
            .unwrap_or_default();
        crate::progress::line(&format!("[server {}{logger}] {data}", params.level));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert!(check_url("http://127.0.0.1:3000/mcp").is_ok());
        assert!(check_url("https://example.com/mcp").is_ok());
        for bad in ["ftp://x/y", "127.0.0.1:3000", "", "http://", "mailto:a@b"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_lines() {
        let tail = StderrTail::default();
        assert_eq!(tail.note(), None);
        for i in 0..30 {
            tail.push(&format!("line {i}"));
        }
        let note = tail.note().unwrap();
        assert!(
            note.starts_with("the server's stderr ended with:\n  line 10\n"),
            "{note}"
        );
        assert!(note.ends_with("line 29"), "{note}");
    }
}
