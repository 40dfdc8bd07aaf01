//! The notifier of a legacy session: sends it list changes (from the server's event bus, and
//! those meant for this session alone), updates of the resources it subscribed to, and bridged
//! log messages, once the session is open. Events that arrive while it is not open yet, or
//! while a send is under way, are coalesced: at most one notification per list, and one per
//! subscribed resource.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::Arc;

use futures::{FutureExt as _, StreamExt as _};
use mcp_jsonrpc::Peer;
use mcp_types::{
    EmptyParams, LoggingMessage, PromptListChanged, ResourceListChanged, ResourceUpdated,
    ResourceUpdatedNotificationParams, ServerCapabilities, ToolListChanged,
};
use tokio::sync::mpsc;

use crate::events::{Received, ServerEvent};
use crate::server::Server;
use crate::session_state::{ListKind, QueuedLog, SessionShared};

/// What is waiting to be sent: bounded by the three lists and the session's subscriptions.
#[derive(Default)]
struct Pending {
    lists: BTreeSet<ListKind>,
    resources: BTreeSet<String>,
}

impl Pending {
    fn add(&mut self, received: Received, session: &SessionShared) {
        match received {
            Received::Event(ServerEvent::ToolsListChanged) => {
                self.lists.insert(ListKind::Tools);
            }
            Received::Event(ServerEvent::PromptsListChanged) => {
                self.lists.insert(ListKind::Prompts);
            }
            Received::Event(ServerEvent::ResourcesListChanged) => {
                self.lists.insert(ListKind::Resources);
            }
            Received::Event(ServerEvent::ResourceUpdated { uri }) => {
                if session.is_subscribed(&uri) {
                    self.resources.insert(uri);
                }
            }
            // A legacy session hears of its tasks from the task itself
            // (`notifications/tasks/status`, sent where it runs).
            Received::Event(ServerEvent::TaskChanged { .. }) => {}
            // Between instances, for the task runtime.
            Received::Event(_) => {}
            // Events were lost: everything this session listens to may have changed.
            Received::Lagged => {
                self.lists
                    .extend([ListKind::Tools, ListKind::Prompts, ListKind::Resources]);
                self.resources.extend(session.subscriptions());
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.lists.is_empty() && self.resources.is_empty()
    }
}

/// Whether the session's capabilities announce `listChanged` for `kind`.
fn declared(caps: &ServerCapabilities, kind: ListKind) -> bool {
    let flag = match kind {
        ListKind::Tools => caps.tools.as_ref().and_then(|t| t.list_changed),
        ListKind::Resources => caps.resources.as_ref().and_then(|r| r.list_changed),
        ListKind::Prompts => caps.prompts.as_ref().and_then(|p| p.list_changed),
    };
    flag == Some(true)
}

/// Sends the session its server-initiated notifications until the connection closes.
pub(crate) async fn notifier(
    server: Server,
    session: Arc<SessionShared>,
    peer: Peer,
    mut logs: mpsc::Receiver<QueuedLog>,
) -> Infallible {
    let mut events = server.inner().events.subscribe();
    let mut bus_open = true;
    let mut pending = Pending::default();
    loop {
        // Until the session is open, changes wait in `pending`; once it opens, they go out
        // (a change between the initialize response and `notifications/initialized` is not
        // lost).
        let ready = session.is_ready();
        if ready && !pending.is_empty() && send(&peer, &session, &mut pending).await.is_err() {
            break;
        }
        let sent = tokio::select! {
            () = session.ready.notified(), if !ready => Ok(()),
            received = events.next(), if bus_open => {
                match received {
                    Some(received) => {
                        pending.add(received, &session);
                        // Coalesce what is already queued behind it.
                        while let Some(Some(more)) = events.next().now_or_never() {
                            pending.add(more, &session);
                        }
                    }
                    None => bus_open = false,
                }
                Ok(())
            }
            () = session.updates.notified() => {
                pending.lists.extend(session.take_list_changes());
                Ok(())
            }
            Some(msg) = logs.recv() => {
                notify_if::<LoggingMessage>(&peer, session.wants_log(msg.level), &msg).await
            }
        };
        if sent.is_err() {
            break;
        }
    }
    // The connection is closing; `serve` returns when its run future does.
    std::future::pending().await
}

/// Sends what is pending (as the session's capabilities allow) and clears it.
async fn send(
    peer: &Peer,
    session: &SessionShared,
    pending: &mut Pending,
) -> Result<(), mcp_jsonrpc::Error> {
    let Some(init) = session.init.get() else {
        return Ok(());
    };
    let params = EmptyParams::default();
    for kind in std::mem::take(&mut pending.lists) {
        let send = declared(&init.capabilities, kind);
        match kind {
            ListKind::Tools => notify_if::<ToolListChanged>(peer, send, &params).await?,
            ListKind::Resources => notify_if::<ResourceListChanged>(peer, send, &params).await?,
            ListKind::Prompts => notify_if::<PromptListChanged>(peer, send, &params).await?,
        }
    }
    for uri in std::mem::take(&mut pending.resources) {
        let params = ResourceUpdatedNotificationParams::new(uri);
        notify_if::<ResourceUpdated>(peer, true, &params).await?;
    }
    Ok(())
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
