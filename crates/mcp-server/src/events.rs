//! Server events and the bus that carries them: a list changed, a resource was updated, a task
//! changed. Every
//! legacy session's notifier and every 2026-07-28 `subscriptions/listen` stream listens to the
//! server's [`EventBus`]; the in-memory one serves a single process, and an implementation on
//! a shared broker lets several server instances serve one deployment.

use std::fmt;

use futures::StreamExt as _;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

/// Something that happened on the server that clients may want to hear of.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ServerEvent {
    /// The tools changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// The prompts changed (`notifications/prompts/list_changed`).
    PromptsListChanged,
    /// The resources or resource templates changed (`notifications/resources/list_changed`).
    ResourcesListChanged,
    /// The resource at `uri` changed (`notifications/resources/updated`).
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// The task with `task_id` has a new status (`notifications/tasks` on the
    /// `subscriptions/listen` streams that asked for it; the listener reads the task from the
    /// [`TaskStore`](crate::tasks::TaskStore)).
    TaskChanged {
        /// The task.
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// `tasks/cancel` reached an instance that does not run the task: the instance running it
    /// stops it. Between server instances only; never sent to a client.
    TaskCancelled {
        /// The task.
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// `tasks/update` answers (2026-07-28) reached an instance that does not run the task,
    /// which took them off the stored task: the instance running it hands them to the task.
    /// Between server instances only; never sent to a client.
    TaskInput {
        /// The task.
        #[serde(rename = "taskId")]
        task_id: String,
        /// The answers, a JSON object of input responses by key.
        responses: String,
    },
}

/// What a subscriber receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// The next event.
    Event(ServerEvent),
    /// The subscriber fell behind and events were lost; it should act as if everything it
    /// listens to changed (every list, every subscribed resource).
    Lagged,
}

/// The events a subscriber receives, in order; the stream ends when the bus does.
pub type EventStream = BoxStream<'static, Received>;

/// Carries [`ServerEvent`]s from where they happen to every session and subscription stream.
///
/// `publish` must not block (it is called from handlers and from [`Server`](crate::Server)
/// methods); a slow subscriber is told it lagged ([`Received::Lagged`]) rather than holding
/// the others up, so memory stays bounded.
pub trait EventBus: Send + Sync + 'static {
    /// Sends `event` to every current subscriber (of every server instance sharing the bus).
    fn publish(&self, event: ServerEvent);

    /// Subscribes to the events published from now on.
    fn subscribe(&self) -> EventStream;
}

/// A bus shared by several servers in one process (each given a clone of the `Arc`).
impl<B: EventBus + ?Sized> EventBus for std::sync::Arc<B> {
    fn publish(&self, event: ServerEvent) {
        (**self).publish(event);
    }

    fn subscribe(&self) -> EventStream {
        (**self).subscribe()
    }
}

/// An [`EventBus`] within one process: a bounded broadcast channel.
pub struct InMemoryEventBus {
    sender: broadcast::Sender<ServerEvent>,
}

impl fmt::Debug for InMemoryEventBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryEventBus")
            .field("subscribers", &self.sender.receiver_count())
            .finish()
    }
}

impl InMemoryEventBus {
    /// The default number of events a subscriber may fall behind before it lags.
    ///
    /// Every slot of the ring is allocated and written when the bus is made, which is at
    /// every server's start: 1,024 slots were 18 page faults and about 20 µs of a stdio
    /// server's spawn to its first answer (`cargo xtask bench`); 256 are 5. A subscriber that
    /// lags acts as if everything it listens to changed: nothing is lost, but a session then
    /// hears of every list and subscribed resource, so the ring still holds a burst of a few
    /// hundred changes (a server registering its tools one by one) without it.
    pub const DEFAULT_CAPACITY: usize = 256;

    /// A bus on which a subscriber may fall `capacity` events behind (at least 1) before it
    /// is told it lagged.
    pub fn new(capacity: usize) -> Self {
        InMemoryEventBus {
            sender: broadcast::channel(capacity.max(1)).0,
        }
    }
}

impl Default for InMemoryEventBus {
    fn default() -> Self {
        InMemoryEventBus::new(Self::DEFAULT_CAPACITY)
    }
}

impl EventBus for InMemoryEventBus {
    fn publish(&self, event: ServerEvent) {
        // No subscriber is not an error: nobody listens yet.
        let _ = self.sender.send(event);
    }

    fn subscribe(&self) -> EventStream {
        futures::stream::unfold(self.sender.subscribe(), |mut rx| async move {
            match rx.recv().await {
                Ok(event) => Some((Received::Event(event), rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some((Received::Lagged, rx)),
                Err(broadcast::error::RecvError::Closed) => None,
            }
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt as _;

    use super::*;

    #[tokio::test]
    async fn subscribers_get_events_in_order_and_lag_instead_of_blocking() {
        let bus = InMemoryEventBus::new(2);
        let mut a = bus.subscribe();
        bus.publish(ServerEvent::ToolsListChanged);
        bus.publish(ServerEvent::ResourceUpdated { uri: "x:y".into() });
        assert_eq!(
            a.next().await,
            Some(Received::Event(ServerEvent::ToolsListChanged))
        );
        let mut b = bus.subscribe();
        for _ in 0..3 {
            bus.publish(ServerEvent::PromptsListChanged);
        }
        assert_eq!(
            a.next().await,
            Some(Received::Lagged),
            "a fell 4 behind a bus of 2"
        );
        assert_eq!(b.next().await, Some(Received::Lagged));
        assert_eq!(
            b.next().await,
            Some(Received::Event(ServerEvent::PromptsListChanged))
        );
    }

    #[test]
    fn events_serialize_for_shared_buses() {
        let json =
            serde_json::to_string(&ServerEvent::ResourceUpdated { uri: "a:b".into() }).unwrap();
        assert_eq!(json, r#"{"type":"resourceUpdated","uri":"a:b"}"#);
        let back: ServerEvent = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ServerEvent::ResourceUpdated { uri: "a:b".into() });
    }
}
