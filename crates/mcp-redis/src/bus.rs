//! [`RedisEventBus`]: server events across instances, over Redis pub/sub.

use std::fmt;
use std::sync::atomic::Ordering;

use futures::StreamExt as _;
use mcp_server::events::{EventBus, EventStream, Received, ServerEvent};
use tokio::sync::broadcast;
use tokio::sync::mpsc::error::TrySendError;

use crate::connection::Redis;

/// An [`EventBus`] on Redis pub/sub: every event published on any instance reaches the
/// subscribers of every instance connected to the same Redis and prefix.
///
/// [`publish`](EventBus::publish) never blocks: it queues the event for the
/// [`Driver`](crate::Driver), which publishes it on the channel `<prefix>events`. When the
/// queue is full ([`publish_queue`](crate::RedisOptions::publish_queue), default 1024) or
/// Redis refuses the event, the event is **dropped**, with a `tracing` warning, and counted
/// ([`dropped`](Self::dropped)).
///
/// The driver's subscriber connection hands each event to the local subscribers through a
/// bounded broadcast channel ([`bus_capacity`](crate::RedisOptions::bus_capacity), default
/// 1024): a subscriber that falls further behind gets [`Received::Lagged`], as does every
/// subscriber after the connection to Redis was lost and restored (events may have been
/// missed meanwhile). An instance hears its own events back from Redis, like the others.
#[derive(Clone)]
pub struct RedisEventBus {
    redis: Redis,
}

impl fmt::Debug for RedisEventBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisEventBus")
            .field("subscribers", &self.redis.shared.local.receiver_count())
            .field("dropped", &self.dropped())
            .finish()
    }
}

impl RedisEventBus {
    pub(crate) fn new(redis: Redis) -> Self {
        RedisEventBus { redis }
    }

    /// How many events were dropped so far (queue full, or Redis refused them).
    pub fn dropped(&self) -> u64 {
        self.redis.shared.dropped.load(Ordering::Relaxed)
    }
}

impl EventBus for RedisEventBus {
    fn publish(&self, event: ServerEvent) {
        let json = match serde_json::to_string(&event) {
            Ok(json) => json,
            Err(e) => {
                tracing::warn!(error = %e, "an event could not be serialized; dropped");
                return;
            }
        };
        match self.redis.shared.publish.try_send(json) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.redis.shared.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the event bus's publish queue is full; an event was dropped");
            }
            Err(TrySendError::Closed(_)) => {
                self.redis.shared.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the redis driver has stopped; an event was dropped");
            }
        }
    }

    fn subscribe(&self) -> EventStream {
        futures::stream::unfold(self.redis.shared.local.subscribe(), |mut rx| async move {
            match rx.recv().await {
                Ok(received) => Some((received, rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some((Received::Lagged, rx)),
                Err(broadcast::error::RecvError::Closed) => None,
            }
        })
        .boxed()
    }
}
