//! [`Subscription`]: the notifications a client opted in to, as a [`Stream`], from
//! [`Client::listen`](crate::Client::listen).
//!
//! On 2026-07-28 a subscription is a `subscriptions/listen` request that stays open: the
//! server acknowledges it, then sends the notifications tagged with the request's id. In the
//! handshake era the same stream is fed by the session's list-changed notifications and by
//! `resources/subscribe`.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use mcp_types::{
    ServerNotification, SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::error::{Error, Result};

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// How many notifications a subscription buffers before the connection waits for its reader.
pub(crate) const SUBSCRIPTION_CAPACITY: usize = 64;

/// What reaches a subscription.
pub(crate) enum Event {
    /// The server's acknowledgement: what it agreed to send.
    Acknowledged(SubscriptionFilter),
    /// A notification (boxed: a task's notification is large).
    Notification(Box<ServerNotification>),
}

struct Route {
    /// The `subscriptions/listen` request id the notifications carry (2026-07-28); `None` for
    /// a subscription of the handshake era, which gets what its filter matches.
    id: Option<Value>,
    filter: SubscriptionFilter,
    tx: mpsc::Sender<Event>,
}

type Routes = Arc<Mutex<HashMap<u64, Route>>>;

/// The open subscriptions of a client, by a local key.
#[derive(Default)]
pub(crate) struct Subscriptions {
    routes: Routes,
    next: AtomicU64,
}

/// Removes its route when the [`Subscription`] goes away.
pub(crate) struct RouteGuard {
    routes: Routes,
    key: u64,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
    }
}

/// The subscription id in a notification's `params._meta`.
#[derive(Deserialize)]
struct Tagged {
    #[serde(rename = "_meta", default)]
    meta: Option<TaggedMeta>,
}

#[derive(Deserialize)]
struct TaggedMeta {
    #[serde(rename = "io.modelcontextprotocol/subscriptionId", default)]
    id: Option<Value>,
}

fn subscription_id(params: Option<&RawValue>) -> Option<Value> {
    let tagged: Tagged = serde_json::from_str(params?.get()).ok()?;
    tagged.meta?.id
}

/// Whether a subscription of the handshake era with `filter` wants `n`.
fn matches(filter: &SubscriptionFilter, n: &ServerNotification) -> bool {
    match n {
        ServerNotification::ToolListChanged(_) => filter.tools_list_changed == Some(true),
        ServerNotification::PromptListChanged(_) => filter.prompts_list_changed == Some(true),
        ServerNotification::ResourceListChanged(_) => filter.resources_list_changed == Some(true),
        ServerNotification::ResourceUpdated(p) => filter
            .resource_subscriptions
            .iter()
            .flatten()
            .any(|uri| p.uri.starts_with(uri.as_str())),
        _ => false,
    }
}

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Route>> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a route: for the listen request `id` (2026-07-28), or for what `filter`
    /// matches (`id` `None`).
    pub(crate) fn add(
        &self,
        id: Option<Value>,
        filter: SubscriptionFilter,
        tx: mpsc::Sender<Event>,
    ) -> RouteGuard {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(key, Route { id, filter, tx });
        RouteGuard {
            routes: self.routes.clone(),
            key,
        }
    }

    /// Hands `n` to the subscriptions it belongs to, waiting while one of them is full.
    /// Returns whether it is an acknowledgement (which concerns its subscription only).
    pub(crate) async fn deliver(&self, n: &ServerNotification, params: Option<&RawValue>) -> bool {
        let acknowledged = match n {
            ServerNotification::SubscriptionsAcknowledged(p) => Some(p),
            _ => None,
        };
        let targets: Vec<mpsc::Sender<Event>> = {
            let routes = self.lock();
            if routes.is_empty() {
                return acknowledged.is_some();
            }
            match subscription_id(params) {
                Some(id) => routes
                    .values()
                    .filter(|r| r.id.as_ref() == Some(&id))
                    .map(|r| r.tx.clone())
                    .collect(),
                None => routes
                    .values()
                    .filter(|r| r.id.is_none() && matches(&r.filter, n))
                    .map(|r| r.tx.clone())
                    .collect(),
            }
        };
        for tx in targets {
            let event = match acknowledged {
                Some(SubscriptionsAcknowledgedNotificationParams { notifications, .. }) => {
                    Event::Acknowledged(notifications.clone())
                }
                None => Event::Notification(Box::new(n.clone())),
            };
            // A subscription dropped meanwhile: nobody to tell.
            let _ = tx.send(event).await;
        }
        acknowledged.is_some()
    }
}

/// The id a notification of the listen request `id` carries under
/// [`SUBSCRIPTION_ID_META_KEY`](mcp_types::SUBSCRIPTION_ID_META_KEY).
pub(crate) fn id_value(id: &mcp_jsonrpc::Id) -> Value {
    serde_json::to_value(id).unwrap_or(Value::Null)
}

/// A stream of the notifications a client subscribed to with
/// [`Client::listen`](crate::Client::listen): list changes and resource updates.
///
/// It ends (`None`) when the server ends the subscription gracefully; it yields one error,
/// then ends, when the subscription fails (the connection closed, the server refused or broke
/// the stream). Nothing reconnects on its own: call `listen` again.
///
/// Dropping it ends the subscription: on 2026-07-28 the listen request is cancelled (its HTTP
/// stream closed, or `notifications/cancelled` on stdio); in the handshake era its resource
/// subscriptions stay on the server until [`close`](Self::close) or the end of the session,
/// and their updates keep reaching the [`ClientHandler`](crate::ClientHandler).
///
/// The connection hands each notification to the subscription and waits while the
/// subscription's buffer (64 notifications) is full, so a subscription that is not read holds
/// up the connection: read it, or drop it.
#[must_use = "a subscription does nothing unless polled"]
pub struct Subscription {
    acknowledged: SubscriptionFilter,
    events: mpsc::Receiver<Event>,
    /// The listen request (2026-07-28), or a wait for the connection's end.
    ending: BoxFuture<Result<()>>,
    /// Ends the subscription on the server, for [`close`](Self::close).
    closing: Option<BoxFuture<Result<()>>>,
    done: bool,
    _route: RouteGuard,
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("acknowledged", &self.acknowledged)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// How a [`Subscription`] is made: its channel, route, and futures.
pub(crate) struct Parts {
    pub(crate) events: mpsc::Receiver<Event>,
    pub(crate) route: RouteGuard,
    pub(crate) ending: BoxFuture<Result<()>>,
    pub(crate) closing: Option<BoxFuture<Result<()>>>,
}

impl Subscription {
    /// A subscription whose filter is settled already (the handshake era).
    pub(crate) fn settled(acknowledged: SubscriptionFilter, parts: Parts) -> Self {
        Subscription {
            acknowledged,
            events: parts.events,
            ending: parts.ending,
            closing: parts.closing,
            done: false,
            _route: parts.route,
        }
    }

    /// Waits for the server's acknowledgement (at most `timeout`) while the listen request
    /// runs, and returns the subscription.
    pub(crate) async fn acknowledged_by_server(
        mut parts: Parts,
        timeout: Option<Duration>,
    ) -> Result<Self> {
        let wait = std::future::poll_fn(|cx| {
            loop {
                match parts.events.poll_recv(cx) {
                    Poll::Ready(Some(Event::Acknowledged(filter))) => {
                        return Poll::Ready(Ok(filter));
                    }
                    Poll::Ready(Some(Event::Notification(n))) => tracing::debug!(
                        method = n.method(),
                        "dropping a notification sent before the acknowledgement"
                    ),
                    Poll::Ready(None) => {
                        return Poll::Ready(Err(closed("the subscription was dropped")));
                    }
                    Poll::Pending => break,
                }
            }
            parts.ending.as_mut().poll(cx).map(|end| {
                Err(end.err().unwrap_or_else(|| Error::Protocol {
                    method: "subscriptions/listen".to_owned(),
                    message: "the server ended the subscription before acknowledging it".to_owned(),
                }))
            })
        });
        let filter = match timeout {
            Some(limit) => tokio::time::timeout(limit, wait)
                .await
                .map_err(|_| Error::Timeout(limit))??,
            None => wait.await?,
        };
        Ok(Subscription::settled(filter, parts))
    }

    /// What the server agreed to send: the subset of the requested filter it honours.
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// Ends the subscription and waits until the server knows: on 2026-07-28 the listen
    /// request is cancelled; in the handshake era each resource subscription is ended with
    /// `resources/unsubscribe`.
    ///
    /// # Errors
    ///
    /// The server's error for an unsubscribe, or [`Error::Closed`].
    pub async fn close(mut self) -> Result<()> {
        match self.closing.take() {
            Some(closing) => closing.await,
            None => Ok(()),
        }
    }
}

fn closed(reason: &str) -> Error {
    Error::Closed {
        reason: reason.to_owned(),
        source: None,
    }
}

impl Stream for Subscription {
    type Item = Result<ServerNotification>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        loop {
            match self.events.poll_recv(cx) {
                Poll::Ready(Some(Event::Notification(n))) => return Poll::Ready(Some(Ok(*n))),
                // A repeated acknowledgement changes nothing.
                Poll::Ready(Some(Event::Acknowledged(_))) => continue,
                Poll::Ready(None) | Poll::Pending => break,
            }
        }
        match self.ending.as_mut().poll(cx) {
            Poll::Ready(end) => {
                self.done = true;
                Poll::Ready(end.err().map(Err))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_types::{EmptyParams, ResourceUpdatedNotificationParams, SUBSCRIPTION_ID_META_KEY};

    use super::*;

    fn raw(v: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    #[tokio::test]
    async fn tagged_notifications_go_to_their_listen_request_and_others_by_filter() {
        let subs = Subscriptions::default();
        let (tx_modern, mut rx_modern) = mpsc::channel(4);
        let (tx_legacy, mut rx_legacy) = mpsc::channel(4);
        let _modern = subs.add(
            Some(Value::from(7)),
            SubscriptionFilter::default(),
            tx_modern,
        );
        let legacy_filter = {
            let mut built = SubscriptionFilter::default();
            built.resource_subscriptions = Some(vec!["file:///project".to_owned()]);
            built
        };
        let legacy = subs.add(None, legacy_filter, tx_legacy);

        let tagged = raw(serde_json::json!({"_meta": {SUBSCRIPTION_ID_META_KEY: 7}}));
        let changed = ServerNotification::ToolListChanged(EmptyParams::default());
        assert!(!subs.deliver(&changed, Some(&tagged)).await);
        assert!(matches!(
            rx_modern.try_recv(),
            Ok(Event::Notification(n)) if matches!(*n, ServerNotification::ToolListChanged(_))
        ));
        // Untagged and not in the legacy filter: nobody.
        assert!(!subs.deliver(&changed, None).await);
        assert!(rx_legacy.try_recv().is_err());

        let updated = ServerNotification::ResourceUpdated(ResourceUpdatedNotificationParams::new(
            "file:///project/src/main.rs",
        ));
        subs.deliver(&updated, None).await;
        assert!(matches!(rx_legacy.try_recv(), Ok(Event::Notification(_))));

        let ack = ServerNotification::SubscriptionsAcknowledged(
            SubscriptionsAcknowledgedNotificationParams::default(),
        );
        assert!(subs.deliver(&ack, Some(&tagged)).await);
        assert!(matches!(rx_modern.try_recv(), Ok(Event::Acknowledged(_))));

        drop(legacy);
        assert_eq!(subs.lock().len(), 1);
    }
}
