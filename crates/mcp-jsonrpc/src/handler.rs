//! The inbound side: the [`Handler`] trait and the contexts handlers get.

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::error::{ErrorObject, Result};
use crate::extensions::Extensions;
use crate::message::{Id, Notification, ProgressToken, Request};
use crate::peer::Peer;

/// Serves the requests and notifications that arrive on a connection.
///
/// Requests run concurrently (up to [`Config::max_concurrent_requests`]); notifications are
/// handled one at a time, in the order they arrived. The engine itself consumes the
/// cancellation notifications and the progress notifications it can route to a caller; other
/// progress notifications reach [`handle_notification`](Self::handle_notification).
///
/// Implement it with `async fn`:
///
/// ```
/// use mcp_jsonrpc::{ErrorObject, Handler, Request, RequestContext, to_raw_value};
/// use serde_json::value::RawValue;
///
/// struct Echo;
///
/// impl Handler for Echo {
///     async fn handle_request(
///         &self,
///         request: Request,
///         _ctx: RequestContext,
///     ) -> Result<Box<RawValue>, ErrorObject> {
///         match &*request.method {
///             "echo" => to_raw_value(&request.params::<serde_json::Value>()?),
///             other => Err(ErrorObject::method_not_found(other)),
///         }
///     }
/// }
/// ```
///
/// A handler that panics is answered with -32603 and the connection carries on.
///
/// [`Config::max_concurrent_requests`]: crate::Config::max_concurrent_requests
pub trait Handler: Send + Sync + 'static {
    /// Answers one request. Return [`ErrorObject::method_not_found`] for unknown methods.
    ///
    /// The future is dropped (and [`RequestContext::cancellation`] fired) if the peer cancels
    /// the request; no response is sent then.
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<Box<RawValue>, ErrorObject>> + Send;

    /// Handles one notification. The default ignores it.
    ///
    /// Notifications are handled in order, so a slow one delays the next; if this needs to
    /// call the peer and wait, the connection keeps running meanwhile.
    fn handle_notification(
        &self,
        notification: Notification,
        ctx: NotificationContext,
    ) -> impl Future<Output = ()> + Send {
        let _ = (notification, ctx);
        async {}
    }
}

/// The unit handler answers every request with -32601 (method not found) and ignores
/// notifications: for a side that only makes calls.
impl Handler for () {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        Err(ErrorObject::method_not_found(&request.method))
    }
}

/// Serializes a handler's result, mapping failure to a -32603 error.
pub fn to_raw_value<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(value)
        .map_err(|e| ErrorObject::internal_error(format!("failed to serialize the result: {e}")))
}

/// What a [`Handler`] knows about the request it serves.
#[derive(Debug, Clone)]
pub struct RequestContext {
    pub(crate) id: Id,
    pub(crate) cancellation: CancellationToken,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) peer: Peer,
    pub(crate) extensions: Arc<Extensions>,
}

/// A [`RequestContext`] taken apart ([`RequestContext::into_parts`]): for a handler that
/// keeps the parts in its own per-request state, without a copy of each.
#[derive(Debug)]
#[non_exhaustive]
pub struct RequestContextParts {
    /// [`RequestContext::id`].
    pub id: Id,
    /// [`RequestContext::cancellation`].
    pub cancellation: CancellationToken,
    /// [`RequestContext::progress_token`].
    pub progress_token: Option<ProgressToken>,
    /// [`RequestContext::peer`].
    pub peer: Peer,
    /// [`RequestContext::shared_extensions`].
    pub extensions: Arc<Extensions>,
}

impl RequestContext {
    /// Takes the context apart. Cloning the parts instead costs an atomic operation or two
    /// each (the peer's handle and the cancellation token are shared with the connection).
    ///
    /// ```
    /// use mcp_jsonrpc::{ErrorObject, Handler, Request, RequestContext, to_raw_value};
    /// use serde_json::value::RawValue;
    ///
    /// struct Echo;
    ///
    /// impl Handler for Echo {
    ///     async fn handle_request(
    ///         &self,
    ///         request: Request,
    ///         ctx: RequestContext,
    ///     ) -> Result<Box<RawValue>, ErrorObject> {
    ///         let parts = ctx.into_parts();
    ///         if parts.cancellation.is_cancelled() {
    ///             return Err(ErrorObject::internal_error("cancelled"));
    ///         }
    ///         to_raw_value(&request.params::<serde_json::Value>()?)
    ///     }
    /// }
    /// ```
    pub fn into_parts(self) -> RequestContextParts {
        RequestContextParts {
            id: self.id,
            cancellation: self.cancellation,
            progress_token: self.progress_token,
            peer: self.peer,
            extensions: self.extensions,
        }
    }

    /// The id of the request.
    pub fn id(&self) -> &Id {
        &self.id
    }

    /// Fired when the peer cancels the request (the handler future is then dropped as well,
    /// so this is for work the handler handed off elsewhere).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The progress token from `params._meta.progressToken`, if the caller sent one.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress_token.as_ref()
    }

    /// The connection's handle, to call the other side while handling this request.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// What the transport attached to the request ([`Request::extensions`], moved here when
    /// the handler starts): for example the HTTP headers, a handle on the HTTP stream
    /// carrying the request, or an authenticated principal. Empty for transports that attach
    /// nothing.
    ///
    /// ```
    /// use mcp_jsonrpc::{ErrorObject, Handler, Request, RequestContext, to_raw_value};
    /// use serde_json::value::RawValue;
    ///
    /// /// Set by the transport (or an auth layer in front of it).
    /// #[derive(Clone)]
    /// struct User(String);
    ///
    /// struct WhoAmI;
    ///
    /// impl Handler for WhoAmI {
    ///     async fn handle_request(
    ///         &self,
    ///         _request: Request,
    ///         ctx: RequestContext,
    ///     ) -> Result<Box<RawValue>, ErrorObject> {
    ///         let user = ctx.extensions().get::<User>().map(|u| u.0.as_str());
    ///         to_raw_value(&user.unwrap_or("anonymous"))
    ///     }
    /// }
    /// ```
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The extensions, shared: a cheap clone of the `Arc` the context holds (for a handler
    /// that hands them on to its own per-request state).
    pub fn shared_extensions(&self) -> Arc<Extensions> {
        self.extensions.clone()
    }

    /// The extensions, mutably: for a handler that wraps another and passes data on (a
    /// layer), or to take them out with `std::mem::take`. Copies them first only if this
    /// context has been cloned.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        Arc::make_mut(&mut self.extensions)
    }

    /// Reports progress to the caller; does nothing if the caller sent no progress token.
    pub async fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<()> {
        match &self.progress_token {
            Some(token) => {
                self.peer
                    .notify_progress(token, progress, total, message)
                    .await
            }
            None => Ok(()),
        }
    }
}

/// What a [`Handler`] knows about the notification it handles.
#[derive(Debug, Clone)]
pub struct NotificationContext {
    pub(crate) peer: Peer,
}

impl NotificationContext {
    /// The connection's handle, to call the other side.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }
}
