//! The notifier of a session: sends it list changes (the server's, and those meant for this
//! session alone), resource updates and bridged log messages, once the session is open.

use std::convert::Infallible;
use std::sync::Arc;

use mcp_jsonrpc::Peer;
use mcp_types::{
    EmptyParams, LoggingMessage, LoggingMessageNotificationParams, PromptListChanged,
    ResourceListChanged, ResourceUpdated, ResourceUpdatedNotificationParams, ServerCapabilities,
    ToolListChanged,
};
use tokio::sync::mpsc;

use crate::server::Server;
use crate::session_state::{ListKind, SessionShared};

/// Sends the session its server-initiated notifications until the connection closes.
pub(crate) async fn notifier(
    server: Server,
    session: Arc<SessionShared>,
    peer: Peer,
    mut logs: mpsc::Receiver<LoggingMessageNotificationParams>,
) -> Infallible {
    let inner = server.inner();
    let mut tools = inner.tools.subscribe();
    let mut resources = inner.resources.subscribe();
    let mut templates = inner.templates.subscribe();
    let mut prompts = inner.prompts.subscribe();
    // What the session declared, once it is open for server-initiated messages; read after
    // each wake-up, since the session initializes while this waits.
    let caps = || {
        session
            .is_ready()
            .then(|| session.init.get().map(|i| &i.capabilities))
            .flatten()
    };
    let declared = |kind: ListKind| {
        let pick = |c: &ServerCapabilities| match kind {
            ListKind::Tools => c.tools.as_ref().and_then(|t| t.list_changed),
            ListKind::Resources => c.resources.as_ref().and_then(|r| r.list_changed),
            ListKind::Prompts => c.prompts.as_ref().and_then(|p| p.list_changed),
        };
        caps().and_then(pick) == Some(true)
    };
    loop {
        // Until the session is open, registry changes stay unread in their watch receivers;
        // once it opens, the pending ones go out (a change between the initialize response and
        // `notifications/initialized` is not lost).
        let ready = session.is_ready();
        let sent = tokio::select! {
            () = session.ready.notified(), if !ready => Ok(()),
            Ok(()) = tools.changed(), if ready => list_changed(&peer, ListKind::Tools, declared(ListKind::Tools)).await,
            Ok(()) = resources.changed(), if ready => {
                list_changed(&peer, ListKind::Resources, declared(ListKind::Resources)).await
            }
            Ok(()) = templates.changed(), if ready => {
                list_changed(&peer, ListKind::Resources, declared(ListKind::Resources)).await
            }
            Ok(()) = prompts.changed(), if ready => list_changed(&peer, ListKind::Prompts, declared(ListKind::Prompts)).await,
            () = session.updates.notified() => {
                let (uris, lists) = session.take_updates();
                let send = caps().is_some();
                let mut sent = Ok(());
                for kind in lists {
                    sent = list_changed(&peer, kind, declared(kind)).await;
                    if sent.is_err() {
                        break;
                    }
                }
                for uri in uris {
                    if sent.is_err() {
                        break;
                    }
                    let params = ResourceUpdatedNotificationParams::new(uri);
                    sent = notify_if::<ResourceUpdated>(&peer, send, &params).await;
                }
                sent
            }
            Some(msg) = logs.recv() => {
                notify_if::<LoggingMessage>(&peer, session.wants_log(msg.level), &msg).await
            }
        };
        if sent.is_err() {
            // The connection is closing; `serve` returns when its run future does.
            return std::future::pending().await;
        }
    }
}

async fn list_changed(peer: &Peer, kind: ListKind, send: bool) -> Result<(), mcp_jsonrpc::Error> {
    let params = EmptyParams::default();
    match kind {
        ListKind::Tools => notify_if::<ToolListChanged>(peer, send, &params).await,
        ListKind::Resources => notify_if::<ResourceListChanged>(peer, send, &params).await,
        ListKind::Prompts => notify_if::<PromptListChanged>(peer, send, &params).await,
    }
}

async fn notify_if<N: mcp_types::Notification>(
    peer: &Peer,
    send: bool,
    params: &N::Params,
) -> Result<(), mcp_jsonrpc::Error> {
    if !send {
        return Ok(());
    }
    let raw = serde_json::value::to_raw_value(params)?;
    let is_empty = raw.get() == "{}";
    peer.notify(N::METHOD, (!is_empty).then_some(raw)).await
}
