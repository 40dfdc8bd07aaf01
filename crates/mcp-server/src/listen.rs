//! `subscriptions/listen` (2026-07-28): a request that stays open and carries the list changes
//! and resource updates its client asked for, each tagged with the subscription's id (the
//! request's id). It replaces the legacy GET stream and `resources/subscribe`. With the tasks
//! extension it also carries `notifications/tasks` for the tasks it names
//! ([`crate::tasks::listen`]).
//!
//! The handler acknowledges first (`notifications/subscriptions/acknowledged`, with the part
//! of the filter the server honours), then forwards matching events from the server's event
//! bus until the client cancels (closes the HTTP stream, or sends `notifications/cancelled` on
//! stdio), which drops it, or until the bus ends, when it answers the request with its
//! completion result.

use std::collections::BTreeSet;

use futures::StreamExt as _;
use mcp_jsonrpc::{Id, Peer};
use mcp_types::{
    EmptyParams, Meta, Notification, PromptListChanged, RequestId, ResourceListChanged,
    ResourceUpdated, ResourceUpdatedNotificationParams, ServerCapabilities, SubscriptionFilter,
    SubscriptionsAcknowledged, SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, ToolListChanged,
};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::error::{Error, Result};
use crate::events::{EventStream, Received, ServerEvent};
use crate::tasks::listen::{TaskScope, WatchedTasks};

/// What one subscription forwards.
struct Honoured {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: BTreeSet<String>,
}

impl Honoured {
    /// The part of `asked` the server can honour with `caps`.
    fn new(asked: &SubscriptionFilter, caps: &ServerCapabilities) -> Self {
        let list_changed = |flag: Option<bool>| flag == Some(true);
        let resources = caps.resources.as_ref();
        Honoured {
            tools: asked.tools_list_changed == Some(true)
                && list_changed(caps.tools.as_ref().and_then(|t| t.list_changed)),
            prompts: asked.prompts_list_changed == Some(true)
                && list_changed(caps.prompts.as_ref().and_then(|p| p.list_changed)),
            resources: asked.resources_list_changed == Some(true)
                && list_changed(resources.and_then(|r| r.list_changed)),
            uris: if list_changed(resources.and_then(|r| r.subscribe)) {
                asked
                    .resource_subscriptions
                    .iter()
                    .flatten()
                    .cloned()
                    .collect()
            } else {
                BTreeSet::new()
            },
        }
    }

    fn filter(&self) -> SubscriptionFilter {
        let mut filter = SubscriptionFilter::default();
        filter.tools_list_changed = self.tools.then_some(true);
        filter.prompts_list_changed = self.prompts.then_some(true);
        filter.resources_list_changed = self.resources.then_some(true);
        filter.resource_subscriptions =
            (!self.uris.is_empty()).then(|| self.uris.iter().cloned().collect());
        filter
    }
}

/// The subscription id: the request's id, with its JSON type.
fn request_id(id: &Id) -> RequestId {
    match id {
        Id::Number(n) => RequestId::Number(*n),
        Id::String(s) => RequestId::String(s.to_string()),
        // mcp-types has no integer above i64::MAX (nor -0): the digits, as a string.
        Id::NegativeZero => RequestId::Number(0),
        Id::Unsigned(n) => RequestId::String(n.to_string()),
    }
}

/// Serves one `subscriptions/listen` request.
pub(crate) async fn listen(
    params: SubscriptionsListenRequestParams,
    id: &Id,
    peer: &Peer,
    caps: &ServerCapabilities,
    mut events: EventStream,
    tasks: Option<TaskScope>,
) -> Result<Box<RawValue>> {
    let honoured = Honoured::new(&params.notifications, caps);
    let mut tasks = WatchedTasks::new(&params.notifications, tasks).await?;
    let closing = SubscriptionsListenResult::closing(&request_id(id));
    let meta: Meta = closing.meta.clone().unwrap_or_default();
    let mut acknowledged = honoured.filter();
    tasks.acknowledge(&mut acknowledged);
    let mut ack = SubscriptionsAcknowledgedNotificationParams::default();
    ack.notifications = acknowledged;
    ack.meta = Some(meta.clone());
    notify::<SubscriptionsAcknowledged>(peer, &ack).await?;
    let mut tagged = EmptyParams::default();
    tagged.meta = Some(meta.clone());
    while let Some(received) = events.next().await {
        match received {
            Received::Event(ServerEvent::TaskChanged { task_id }) => {
                tell_task(peer, &mut tasks, &task_id, &meta).await?;
            }
            Received::Event(event) => send(peer, &honoured, &event, &tagged, &meta).await?,
            // Events were lost: everything this subscription covers may have changed.
            Received::Lagged => {
                for event in [
                    ServerEvent::ToolsListChanged,
                    ServerEvent::PromptsListChanged,
                    ServerEvent::ResourcesListChanged,
                ] {
                    send(peer, &honoured, &event, &tagged, &meta).await?;
                }
                for uri in &honoured.uris {
                    let event = ServerEvent::ResourceUpdated { uri: uri.clone() };
                    send(peer, &honoured, &event, &tagged, &meta).await?;
                }
                for task_id in tasks.ids() {
                    tell_task(peer, &mut tasks, &task_id, &meta).await?;
                }
            }
        }
    }
    Ok(serde_json::value::to_raw_value(&closing)?)
}

async fn send(
    peer: &Peer,
    honoured: &Honoured,
    event: &ServerEvent,
    tagged: &EmptyParams,
    meta: &Meta,
) -> Result<()> {
    match event {
        ServerEvent::ToolsListChanged if honoured.tools => {
            notify::<ToolListChanged>(peer, tagged).await
        }
        ServerEvent::PromptsListChanged if honoured.prompts => {
            notify::<PromptListChanged>(peer, tagged).await
        }
        ServerEvent::ResourcesListChanged if honoured.resources => {
            notify::<ResourceListChanged>(peer, tagged).await
        }
        ServerEvent::ResourceUpdated { uri } if honoured.uris.contains(uri) => {
            let mut params = ResourceUpdatedNotificationParams::new(uri.clone());
            params.meta = Some(meta.clone());
            notify::<ResourceUpdated>(peer, &params).await
        }
        _ => Ok(()),
    }
}

async fn tell_task(peer: &Peer, tasks: &mut WatchedTasks, id: &str, meta: &Meta) -> Result<()> {
    if let Some((method, params)) = tasks.changed(id, meta).await? {
        let raw = serde_json::value::to_raw_value(&params)?;
        peer.notify(method, Some(raw)).await?;
    }
    Ok(())
}

async fn notify<N: Notification>(peer: &Peer, params: &impl Serialize) -> Result<()> {
    let raw = serde_json::value::to_raw_value(params)?;
    peer.notify(N::METHOD, Some(raw)).await.map_err(Error::from)
}

#[cfg(test)]
mod tests {
    use mcp_types::{PromptsCapability, ResourcesCapability, ToolsCapability};

    use super::*;

    #[test]
    fn honours_only_what_the_server_can_send() {
        let caps = {
            let mut built = ServerCapabilities::default();
            built.tools = Some({
                let mut built = ToolsCapability::default();
                built.list_changed = Some(true);
                built
            });
            built.prompts = Some(PromptsCapability::default());
            built.resources = Some({
                let mut built = ResourcesCapability::default();
                built.subscribe = Some(true);
                built
            });
            built
        };
        let asked = {
            let mut built = SubscriptionFilter::default();
            built.tools_list_changed = Some(true);
            built.prompts_list_changed = Some(true);
            built.resources_list_changed = Some(true);
            built.resource_subscriptions = Some(vec!["a:b".into()]);
            built
        };
        let filter = Honoured::new(&asked, &caps).filter();
        assert_eq!(
            serde_json::to_value(&filter).unwrap(),
            serde_json::json!({"toolsListChanged": true, "resourceSubscriptions": ["a:b"]})
        );
    }
}
