//! [`Client::listen`]: a subscription to list changes and resource updates, in either era.

use futures::FutureExt as _;
use mcp_jsonrpc::RequestOptions;
use mcp_types::{
    Request as _, ResourceRequestParams, SubscriptionFilter, SubscriptionsListen,
    SubscriptionsListenRequestParams, Unsubscribe,
};
use tokio::sync::mpsc;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::subscription::{Parts, SUBSCRIPTION_CAPACITY, Subscription, id_value};

impl Client {
    /// Subscribes to the notifications `filter` asks for (list changes of tools, prompts and
    /// resources; updates of the resources in `resourceSubscriptions`, and of their
    /// sub-resources) and returns them as a stream.
    ///
    /// - On 2026-07-28 this sends `subscriptions/listen` and waits for the server's
    ///   acknowledgement (within the request timeout); the request stays open for as long as
    ///   the [`Subscription`] lives.
    /// - In the handshake era the stream is fed by the session's notifications: the list
    ///   changes the server announces (it declared `listChanged`), and the updates of the
    ///   resources this subscribes to with `resources/subscribe` (it declared `subscribe`).
    ///
    /// Either way, [`Subscription::acknowledged`] tells what the server agreed to send, and the
    /// [`ClientHandler`](crate::ClientHandler) sees every notification too.
    ///
    /// ```
    /// # use futures::StreamExt;
    /// # use mcp_client::Client;
    /// # use mcp_jsonrpc::memory;
    /// # use mcp_server::{Server, Tool};
    /// # use mcp_types::{ServerNotification, SubscriptionFilter};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::builder()
    ///     .tool(Tool::new("ping", || async { "pong" }))
    ///     .build();
    /// let (client_end, server_end) = memory::pair(16);
    /// let serving = server.clone();
    /// tokio::spawn(async move { serving.serve(server_end).await });
    /// let (client, connection) = Client::builder().connect(client_end).await?;
    /// tokio::spawn(connection);
    /// // The server speaks 2026-07-28, so the client does too.
    /// assert_eq!(client.era(), mcp_types::Era::Stateless);
    ///
    /// let mut filter = SubscriptionFilter::default();
    /// filter.tools_list_changed = Some(true);
    /// let mut changes = client.listen(filter).await?;
    /// assert_eq!(changes.acknowledged().tools_list_changed, Some(true));
    /// server.notify_tools_changed();
    /// let change = changes.next().await.unwrap()?;
    /// assert!(matches!(change, ServerNotification::ToolListChanged(_)));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request): the listen request failed or got no
    /// acknowledgement in time ([`Error::Timeout`]), or (handshake era) a
    /// `resources/subscribe` failed.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription> {
        let inner = &self.inner;
        inner.running.ensure().await?;
        let (tx, events) = mpsc::channel(SUBSCRIPTION_CAPACITY);
        let Some(modern) = &inner.modern else {
            return self.listen_in_session(filter, tx, events).await;
        };
        let peer = inner.peer.clone();
        let id = peer.next_id();
        let route = inner
            .shared
            .subscriptions
            .add(Some(id_value(&id)), filter.clone(), tx);
        let mut params = SubscriptionsListenRequestParams::default();
        params.notifications = filter;
        let method = SubscriptionsListen::METHOD;
        let params =
            serde_json::to_value(params).map_err(|e| Error::decode(method, "params", e))?;
        let params = modern.with_meta(method, params)?;
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::decode(method, "params", e))?;
        let failure = inner.shared.failure.clone();
        // Open for as long as the subscription lives: no timeout.
        let options = RequestOptions::new().id(id).without_timeout();
        let version = modern.version().clone();
        let ending = async move {
            mcp_jsonrpc::trace::request(&peer, method, Some(raw), options, Some(version.as_str()))
                .await
                .map(drop)
                .map_err(|e| Error::from_jsonrpc(e, method, failure.get()))
        };
        let parts = Parts {
            events,
            route,
            ending: ending.boxed(),
            closing: None,
        };
        Subscription::acknowledged_by_server(parts, inner.defaults.request_timeout).await
    }

    /// The handshake era's subscription: the filter narrowed to what the server declared,
    /// and `resources/subscribe` for each resource.
    async fn listen_in_session(
        &self,
        filter: SubscriptionFilter,
        tx: mpsc::Sender<crate::subscription::Event>,
        events: mpsc::Receiver<crate::subscription::Event>,
    ) -> Result<Subscription> {
        let caps = self.server_capabilities();
        let announces = |asked: Option<bool>, declared: Option<bool>| {
            (asked == Some(true) && declared == Some(true)).then_some(true)
        };
        let resources = caps.resources.as_ref();
        let mut acknowledged = SubscriptionFilter::default();
        acknowledged.tools_list_changed = announces(
            filter.tools_list_changed,
            caps.tools.as_ref().and_then(|t| t.list_changed),
        );
        acknowledged.prompts_list_changed = announces(
            filter.prompts_list_changed,
            caps.prompts.as_ref().and_then(|p| p.list_changed),
        );
        acknowledged.resources_list_changed = announces(
            filter.resources_list_changed,
            resources.and_then(|r| r.list_changed),
        );
        let uris = filter.resource_subscriptions.unwrap_or_default();
        if !uris.is_empty() && caps.supports_resource_subscriptions() {
            for uri in &uris {
                self.subscribe(uri.clone()).await?;
            }
            acknowledged.resource_subscriptions = Some(uris.clone());
        }
        let route = self
            .inner
            .shared
            .subscriptions
            .add(None, acknowledged.clone(), tx);
        let peer = self.inner.peer.clone();
        let ending = async move {
            peer.closed().await;
            Err(Error::Closed {
                reason: "the connection closed".to_owned(),
                source: None,
            })
        };
        let subscribed = acknowledged
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let peer = self.inner.peer.clone();
        let failure = self.inner.shared.failure.clone();
        let closing = async move {
            for uri in subscribed {
                let raw = serde_json::value::to_raw_value(&ResourceRequestParams::new(uri))
                    .map_err(|e| Error::decode(Unsubscribe::METHOD, "params", e))?;
                let options = mcp_jsonrpc::RequestOptions::new();
                mcp_jsonrpc::trace::request(&peer, Unsubscribe::METHOD, Some(raw), options, None)
                    .await
                    .map_err(|e| Error::from_jsonrpc(e, Unsubscribe::METHOD, failure.get()))?;
            }
            Ok(())
        };
        let parts = Parts {
            events,
            route,
            ending: ending.boxed(),
            closing: Some(closing.boxed()),
        };
        Ok(Subscription::settled(acknowledged, parts))
    }
}
