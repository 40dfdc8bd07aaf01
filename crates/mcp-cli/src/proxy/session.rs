//! Handshake-era HTTP sessions: one process of the stdio server per session, with the
//! session's messages relayed verbatim ([`super::relay`]).
//!
//! The HTTP session's `initialize` (already read by the HTTP service when it calls the
//! factory) is the first message the process gets; everything after goes both ways as it
//! is, so the server negotiates with the client itself (any revision it and the client
//! share, batches of 2025-03-26 included). The session ending (DELETE, idle expiry,
//! eviction) closes the process's stdin, then terminates it; the process exiting ends the
//! session (the client's next request gets 404 and, as the spec says, it starts a new
//! session), and the exit is reported on stderr.
//!
//! With `--redis`, what the session agreed (the `initialize` params, then
//! `notifications/initialized`, the log level, resource subscriptions) is saved as a
//! [`SessionSnapshot`] in Redis while the session lives. When another instance takes the
//! session over (this one is gone), it starts a new process and replays that to it before
//! relaying: the client's session goes on, with a fresh server process. A snapshot keeps at
//! most [`MAX_SUBSCRIPTIONS`] subscriptions.

use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::{ErrorObject, Id, Message, Request, Response, Transport};
use mcp_server::{SessionSnapshot, SessionStore};
use mcp_transport_http::server::{HttpSessionTransport, SessionInfo};
use mcp_transport_stdio::ChildProcessTransport;
use mcp_types::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::child::ChildCommand;
use super::modern::meta::raw;
use super::relay::{self, End, Hooks};

/// How long replaying a taken-over session to a new process may take, per request.
const REPLAY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most resource subscriptions a session's snapshot keeps (past it, new ones are not
/// recorded, so a takeover does not restore them).
const MAX_SUBSCRIPTIONS: usize = 1024;

/// Serves handshake-era sessions.
#[derive(Debug, Clone)]
pub(crate) struct Sessions {
    pub(crate) command: ChildCommand,
    /// Where session snapshots are kept (`--redis`).
    pub(crate) store: Option<Arc<dyn SessionStore>>,
}

/// Reports something about a session on stderr.
#[allow(clippy::print_stderr)]
fn report(session: Option<&str>, what: &str) {
    match session {
        Some(id) => eprintln!("mcp proxy: session {id}: {what}"),
        None => eprintln!("mcp proxy: {what}"),
    }
}

impl Sessions {
    /// Serves one session until it or its process ends.
    pub(crate) async fn serve(self, mut transport: HttpSessionTransport, info: SessionInfo) {
        let id = info.session_id.as_deref().map(str::to_owned);
        let mut child = match self.command.spawn() {
            Ok(child) => child,
            Err(e) => {
                let why = format!(
                    "cannot start the stdio server `{}`: {e}",
                    self.command.display()
                );
                report(id.as_deref(), &why);
                refuse(&mut transport, &why).await;
                return;
            }
        };
        let process = child.handle();
        let store = match (&self.store, &id) {
            (Some(store), Some(id)) => Some((store.clone(), id.clone())),
            _ => None,
        };
        let mut hooks = Recorder::new(store.is_some());
        if info.taken_over
            && let Some((store, sid)) = &store
        {
            match store.load(sid).await {
                Ok(Some(snapshot)) => {
                    if let Err(e) = replay(&mut child, &snapshot).await {
                        report(
                            id.as_deref(),
                            &format!("could not restore the session: {e}"),
                        );
                        let _ = child.close().await;
                        transport.close().await.ok();
                        return;
                    }
                    hooks.restore(snapshot);
                }
                Ok(None) => report(id.as_deref(), "taken over, but nothing is known of it"),
                Err(e) => report(id.as_deref(), &format!("cannot read its snapshot: {e}")),
            }
        }
        let saver = store
            .clone()
            .map(|(store, sid)| tokio::spawn(save(store, sid, hooks.watch())));
        let end = relay::relay(&mut transport, &mut child, &mut hooks).await;
        match end {
            End::A(_) => {
                // The session ended: the process goes, and so does its snapshot.
                let _ = child.close().await;
                if let Some((store, sid)) = &store {
                    let _ = store.remove(sid).await;
                }
            }
            End::B(outcome) => {
                let how = match (process.exit_status(), outcome) {
                    (Some(status), _) => format!("the stdio server ended ({status})"),
                    (None, Err(e)) => format!("the stdio server failed: {e}"),
                    (None, Ok(())) => "the stdio server closed its stdout".to_owned(),
                };
                report(id.as_deref(), &format!("{how}; the session is ended"));
                let _ = child.close().await;
                let _ = transport.close().await;
            }
        }
        drop(hooks);
        if let Some(saver) = saver {
            let _ = saver.await;
        }
    }
}

/// Answers the session's first request with `why` and ends the session.
async fn refuse(transport: &mut HttpSessionTransport, why: &str) {
    let first = tokio::time::timeout(Duration::from_secs(5), transport.recv()).await;
    if let Ok(Ok(Some(Message::Request(request)))) = first {
        let error = ErrorObject::internal_error(why.to_owned());
        let _ = transport
            .send(Message::Response(Response::error(Some(request.id), error)))
            .await;
    }
    let _ = transport.close().await;
}

/// Replays what a session agreed to a new process: `initialize` (its result dropped: the
/// client has had it), `notifications/initialized`, `logging/setLevel`, each subscription.
async fn replay(
    child: &mut ChildProcessTransport,
    snapshot: &SessionSnapshot,
) -> anyhow::Result<()> {
    let mut init = json!({
        "protocolVersion": snapshot.protocol_version.as_str(),
        "capabilities": snapshot.client_capabilities,
    });
    init["clientInfo"] = match &snapshot.client_info {
        Some(info) => serde_json::to_value(info)?,
        None => super::modern::client_info(),
    };
    call(child, "initialize", init).await?;
    if snapshot.initialized {
        child
            .send(Message::Notification(mcp_jsonrpc::Notification::new(
                "notifications/initialized",
                None,
            )))
            .await?;
    }
    if let Some(level) = snapshot.log_level {
        call(child, "logging/setLevel", json!({ "level": level })).await?;
    }
    for uri in &snapshot.subscriptions {
        call(child, "resources/subscribe", json!({ "uri": uri })).await?;
    }
    Ok(())
}

/// One request of the replay: sent with an id of the proxy's, its answer awaited (other
/// messages of the process meanwhile are dropped: no client is listening yet).
async fn call(
    child: &mut ChildProcessTransport,
    method: &'static str,
    params: Value,
) -> anyhow::Result<()> {
    let id = Id::from(format!("mcp-proxy-replay-{method}"));
    child
        .send(Message::Request(Request::new(
            id.clone(),
            method,
            Some(raw(&params)),
        )))
        .await?;
    let answered = tokio::time::timeout(REPLAY_TIMEOUT, async {
        loop {
            match child.recv().await? {
                Some(Message::Response(r)) if r.id.as_ref() == Some(&id) => {
                    return Ok::<_, anyhow::Error>(r.result.map(drop));
                }
                Some(_) => {}
                None => anyhow::bail!("the stdio server ended"),
            }
        }
    })
    .await
    .map_err(|_| anyhow::anyhow!("{method} got no answer within {REPLAY_TIMEOUT:?}"))??;
    answered.map_err(|e| anyhow::anyhow!("{method}: {e}"))
}

/// Saves each new snapshot of a session (the latest wins) until the recorder goes.
async fn save(
    store: Arc<dyn SessionStore>,
    session: String,
    mut snapshots: watch::Receiver<Option<SessionSnapshot>>,
) {
    while snapshots.changed().await.is_ok() {
        let snapshot = snapshots.borrow_and_update().clone();
        if let Some(snapshot) = snapshot
            && let Err(e) = store.save(&session, &snapshot).await
        {
            tracing::warn!(%session, "cannot save the session's snapshot: {e}");
        }
    }
}

/// Records what a session agrees from the messages it relays (when there is a store).
struct Recorder {
    on: bool,
    snapshot: Option<SessionSnapshot>,
    /// The `initialize` request in flight: its id, and the params it asked with.
    initializing: Option<(Id, ClientCapabilities, Option<Implementation>)>,
    /// A `logging/setLevel` in flight.
    setting_level: Option<(Id, LoggingLevel)>,
    tx: watch::Sender<Option<SessionSnapshot>>,
}

impl Recorder {
    fn new(on: bool) -> Self {
        Recorder {
            on,
            snapshot: None,
            initializing: None,
            setting_level: None,
            tx: watch::Sender::new(None),
        }
    }

    fn watch(&self) -> watch::Receiver<Option<SessionSnapshot>> {
        self.tx.subscribe()
    }

    fn restore(&mut self, snapshot: SessionSnapshot) {
        self.snapshot = Some(snapshot);
    }

    fn changed(&self) {
        self.tx.send_replace(self.snapshot.clone());
    }

    fn client_sent(&mut self, msg: &Message) {
        match msg {
            Message::Batch(items) => items.iter().for_each(|m| self.client_sent(m)),
            Message::Request(r) => match &*r.method {
                "initialize" => {
                    let params: Value = r.params().unwrap_or(Value::Null);
                    let caps =
                        serde_json::from_value(params["capabilities"].clone()).unwrap_or_default();
                    let info = serde_json::from_value(params["clientInfo"].clone()).ok();
                    self.initializing = Some((r.id.clone(), caps, info));
                }
                "logging/setLevel" => {
                    let params: Value = r.params().unwrap_or(Value::Null);
                    if let Ok(level) = serde_json::from_value(params["level"].clone()) {
                        self.setting_level = Some((r.id.clone(), level));
                    }
                }
                "resources/subscribe" | "resources/unsubscribe" => {
                    let params: Value = r.params().unwrap_or(Value::Null);
                    let (Some(snapshot), Some(uri)) = (&mut self.snapshot, params["uri"].as_str())
                    else {
                        return;
                    };
                    let subscriptions = &mut snapshot.subscriptions;
                    subscriptions.retain(|s| s != uri);
                    if r.method == "resources/subscribe" && subscriptions.len() < MAX_SUBSCRIPTIONS
                    {
                        subscriptions.push(uri.to_owned());
                        subscriptions.sort();
                    }
                    self.changed();
                }
                _ => {}
            },
            Message::Notification(n) if n.method == "notifications/initialized" => {
                if let Some(snapshot) = &mut self.snapshot {
                    snapshot.initialized = true;
                    self.changed();
                }
            }
            _ => {}
        }
    }

    fn server_sent(&mut self, msg: &Message) {
        match msg {
            Message::Batch(items) => items.iter().for_each(|m| self.server_sent(m)),
            Message::Response(Response {
                id: Some(id),
                result: Ok(result),
            }) => {
                if self.initializing.as_ref().is_some_and(|(i, ..)| i == id) {
                    let Some((_, caps, info)) = self.initializing.take() else {
                        return;
                    };
                    let version = serde_json::from_str::<Value>(result.get())
                        .ok()
                        .and_then(|r| r["protocolVersion"].as_str().map(ProtocolVersion::from));
                    if let Some(version) = version {
                        let mut snapshot = SessionSnapshot::new(version, caps);
                        snapshot.client_info = info;
                        self.snapshot = Some(snapshot);
                        self.changed();
                    }
                } else if self.setting_level.as_ref().is_some_and(|(i, _)| i == id) {
                    let Some((_, level)) = self.setting_level.take() else {
                        return;
                    };
                    if let Some(snapshot) = &mut self.snapshot {
                        snapshot.log_level = Some(level);
                        self.changed();
                    }
                }
            }
            _ => {}
        }
    }
}

impl Hooks for Recorder {
    fn a_to_b(&mut self, msg: Message) -> Option<Message> {
        if self.on {
            self.client_sent(&msg);
        }
        Some(msg)
    }

    fn b_to_a(&mut self, msg: Message) -> Option<Message> {
        if self.on {
            self.server_sent(&msg);
        }
        Some(msg)
    }
}

#[cfg(test)]
mod tests {
    use mcp_jsonrpc::Notification;

    use super::*;

    fn request(id: i64, method: &'static str, params: Value) -> Message {
        Message::Request(Request::new(Id::Number(id), method, Some(raw(&params))))
    }

    fn ok(id: i64, result: Value) -> Message {
        Message::Response(Response::ok(Id::Number(id), raw(&result)))
    }

    #[test]
    fn the_recorder_follows_what_the_session_agrees() {
        let mut r = Recorder::new(true);
        let snapshots = r.watch();
        r.a_to_b(request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
                   "clientInfo": {"name": "c", "version": "1"}}),
        ));
        assert!(snapshots.borrow().is_none());
        r.b_to_a(ok(
            1,
            json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
        ));
        let s = snapshots.borrow().clone().unwrap();
        assert_eq!(s.protocol_version, ProtocolVersion::V2025_06_18);
        assert!(s.client_capabilities.sampling.is_some());
        assert_eq!(s.client_info.unwrap().name, "c");
        r.a_to_b(Message::Notification(Notification::new(
            "notifications/initialized",
            None,
        )));
        r.a_to_b(request(2, "logging/setLevel", json!({"level": "warning"})));
        r.b_to_a(ok(2, json!({})));
        r.a_to_b(request(3, "resources/subscribe", json!({"uri": "b"})));
        r.a_to_b(request(4, "resources/subscribe", json!({"uri": "a"})));
        r.a_to_b(request(5, "resources/unsubscribe", json!({"uri": "b"})));
        let s = snapshots.borrow().clone().unwrap();
        assert!(s.initialized);
        assert_eq!(s.log_level, Some(LoggingLevel::Warning));
        assert_eq!(s.subscriptions, ["a"]);
        // Off: nothing recorded.
        let mut off = Recorder::new(false);
        let none = off.watch();
        off.a_to_b(request(1, "initialize", json!({})));
        off.b_to_a(ok(1, json!({"protocolVersion": "2025-11-25"})));
        assert!(none.borrow().is_none());
    }
}
