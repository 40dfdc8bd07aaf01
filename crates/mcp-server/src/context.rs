//! [`Context`]: what a handler knows about its request, and how it talks to the client.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_jsonrpc::{CancellationToken, Extensions, Id, Peer};
use mcp_types::{
    ClientCapabilities, CreateMessage, CreateMessageRequestParams, CreateMessageResult, Elicit,
    ElicitRequestParams, ElicitResult, EmptyParams, Implementation, InputRequest, InputResponse,
    ListRoots, ListRootsResult, LoggingLevel, LoggingMessage, LoggingMessageNotificationParams,
    Meta, Notification, ProgressToken, ProtocolVersion,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::{Error, Result};
use crate::input::{Ask, Input};
use crate::session_state::{ClientState, Session, SessionShared};
use crate::tasks::link::{TaskLink, TaskSlot};

/// The handler context: one type for tool, resource, prompt and completion handlers.
///
/// It gives the request's progress token and [`report_progress`](Self::report_progress),
/// its cancellation signal, logging to the client ([`log`](Self::log)), what the client
/// declared (protocol version, info, capabilities), the application state
/// ([`state`](Self::state)), the session ([`session`](Self::session)), what the transport
/// attached ([`extensions`](Self::extensions)), and requests to the client:
/// [`sample`](Self::sample), [`elicit`](Self::elicit), [`list_roots`](Self::list_roots).
/// Handlers take it as a parameter, or take only the parts they need as
/// [extractors](crate::FromContext).
///
/// Requests to the client are only sent if the client declared the matching capability and
/// the negotiated protocol version has them; otherwise they fail with
/// [`Error::CapabilityNotDeclared`] or [`Error::NotInProtocolVersion`] and nothing is sent.
///
/// # Protocol eras
///
/// Up to protocol revision 2025-11-25 these requests travel as JSON-RPC requests while the
/// handler waits. In 2026-07-28 the server cannot send requests: the same calls then look up
/// the client's answer in the retried request's `inputResponses` (by a key derived from the
/// call order, e.g. `elicit-0`), and when it is not there yet they fail with
/// [`Error::InputRequired`], which the handler passes on with `?`. The router turns that into
/// an `InputRequiredResult` and the client calls again with the answers, re-running the
/// handler from the start. So handlers should make their requests to the client before
/// side effects, and in a deterministic order.
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    client: Arc<ClientState>,
    peer: Peer,
    request_id: Id,
    extensions: Arc<Extensions>,
    state: Arc<Extensions>,
    session: Option<Session>,
    /// The minimum log level of a request without a session (2026-07-28: its `_meta`
    /// `logLevel`); a session's requests follow the session's level instead.
    request_level: Option<LoggingLevel>,
    cancellation: CancellationToken,
    progress_token: Option<mcp_jsonrpc::ProgressToken>,
    last_progress: Mutex<Option<f64>>,
    input: Input,
    /// The request's `_meta`, set by the router once it decoded the params, or read from
    /// `meta_text` when first asked for.
    meta: OnceLock<Meta>,
    /// The request's `_meta` as sent (a JSON object), kept by the router for `tools/call`:
    /// read into `meta` only if asked for.
    meta_text: OnceLock<Box<RawValue>>,
    /// The task the handler runs in, once its call became one.
    task: OnceLock<TaskLink>,
    /// How a deferred task tool's handler asks for its call to become a task.
    task_slot: Mutex<Option<TaskSlot>>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("protocol_version", &self.inner.client.version)
            .field("request_id", &self.inner.request_id)
            .field("progress_token", &self.inner.progress_token)
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// What a [`Context`] is made of.
pub(crate) struct ContextParts {
    pub(crate) client: Arc<ClientState>,
    pub(crate) peer: Peer,
    pub(crate) request_id: Id,
    pub(crate) extensions: Arc<Extensions>,
    pub(crate) state: Arc<Extensions>,
    pub(crate) session: Option<Arc<SessionShared>>,
    /// Read only without a session (see `ContextInner::request_level`).
    pub(crate) request_level: Option<LoggingLevel>,
    pub(crate) cancellation: CancellationToken,
    pub(crate) progress_token: Option<mcp_jsonrpc::ProgressToken>,
    pub(crate) input: Input,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                client: parts.client,
                peer: parts.peer,
                request_id: parts.request_id,
                extensions: parts.extensions,
                state: parts.state,
                session: parts.session.map(Session::new),
                request_level: parts.request_level,
                cancellation: parts.cancellation,
                progress_token: parts.progress_token,
                last_progress: Mutex::new(None),
                input: parts.input,
                meta: OnceLock::new(),
                meta_text: OnceLock::new(),
                task: OnceLock::new(),
                task_slot: Mutex::new(None),
            }),
        }
    }

    /// The application state of type `T` given to
    /// [`ServerBuilder::state`](crate::ServerBuilder::state), if any (the
    /// [`State`](crate::State) extractor clones it).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.state.get::<T>()
    }

    /// The session this request belongs to, on protocol revisions with sessions (up to
    /// 2025-11-25); `None` for a 2026-07-28 request.
    pub fn session(&self) -> Option<&Session> {
        self.inner.session.as_ref()
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &ProtocolVersion {
        &self.inner.client.version
    }

    /// The client's name and version, as it declared them.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client.info.as_ref()
    }

    /// The capabilities the client declared.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client.capabilities
    }

    /// The JSON-RPC id of the request being served.
    pub fn request_id(&self) -> &Id {
        &self.inner.request_id
    }

    /// What the transport attached to the request: for example, over HTTP
    /// (`mcp-transport-http`), the request's headers (`http::HeaderMap`), a `SessionHandle`
    /// and a `RequestStream` to close the request's SSE stream, and the HTTP request's
    /// `http::Extensions` (where an auth layer puts the authenticated principal). Empty over
    /// transports that attach nothing (stdio, the in-memory pair).
    ///
    /// ```
    /// use mcp_server::{Context, Tool};
    ///
    /// /// Put there by the transport, or by a layer in front of it.
    /// #[derive(Clone)]
    /// struct User(String);
    ///
    /// let whoami = Tool::new("whoami", |cx: Context| async move {
    ///     match cx.extensions().get::<User>() {
    ///         Some(user) => format!("you are {}", user.0),
    ///         None => "you are anonymous".to_owned(),
    ///     }
    /// });
    /// # let _ = whoami;
    /// ```
    pub fn extensions(&self) -> &Extensions {
        &self.inner.extensions
    }

    /// The request's `_meta`, if it had one. (In a [layer](crate::ServerBuilder::layer),
    /// before the router decoded the request, it is not known yet: read it from
    /// [`McpRequest::params_as`](crate::McpRequest::params_as) there.)
    pub fn meta(&self) -> Option<&Meta> {
        if let Some(meta) = self.inner.meta.get() {
            return Some(meta);
        }
        let text = self.inner.meta_text.get()?;
        // The router kept only a JSON object it checked reads as a map (`CallParams::read`).
        Some(
            self.inner
                .meta
                .get_or_init(|| serde_json::from_str(text.get()).unwrap_or_default()),
        )
    }

    /// Records the request's `_meta` once the params are decoded.
    pub(crate) fn set_meta(&self, meta: Option<Meta>) {
        if let Some(meta) = meta {
            let _ = self.inner.meta.set(meta);
        }
    }

    /// Records the request's `_meta` as sent (a JSON object), to be read when asked for.
    pub(crate) fn set_meta_text(&self, meta: Option<Box<RawValue>>) {
        if let Some(meta) = meta {
            let _ = self.inner.meta_text.set(meta);
        }
    }

    /// The progress token the client sent in `_meta.progressToken`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        self.inner.progress_token.as_ref().map(|t| match t {
            mcp_jsonrpc::Id::Number(n) => ProgressToken::Number(*n),
            mcp_jsonrpc::Id::String(s) => ProgressToken::String(s.to_string()),
            // mcp-types has no integer above i64::MAX (nor -0): the digits, as a string.
            // Progress itself goes out with the token as the client sent it.
            mcp_jsonrpc::Id::NegativeZero => ProgressToken::Number(0),
            mcp_jsonrpc::Id::Unsigned(n) => ProgressToken::String(n.to_string()),
        })
    }

    /// Reports progress to the client; does nothing if the client sent no progress token.
    ///
    /// Progress must increase with every call: a value that does not exceed the previous one
    /// is rejected with [`Error::ProgressNotIncreasing`] and not sent.
    ///
    /// # Cancel safety
    ///
    /// Not cancel-safe: dropping the future may or may not send the notification.
    pub async fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<()> {
        {
            let mut last = self.inner.last_progress.lock().expect("progress lock");
            if let Some(prev) = *last
                && progress.partial_cmp(&prev) != Some(std::cmp::Ordering::Greater)
            {
                return Err(Error::ProgressNotIncreasing {
                    progress,
                    last: prev,
                });
            }
            if progress.is_nan() {
                return Err(Error::ProgressNotIncreasing {
                    progress,
                    last: prev_or_nan(*last),
                });
            }
            *last = Some(progress);
        }
        let Some(token) = &self.inner.progress_token else {
            return Ok(());
        };
        if self.in_modern_task() {
            // The 2026-07-28 tasks extension has no progress: the request is answered.
            return Ok(());
        }
        self.inner
            .peer
            .notify_progress(token, progress, total, message)
            .await
            .map_err(Error::from)
    }

    /// Fired when the client cancels the request (in a task: the task, with `tasks/cancel`).
    /// The handler future is dropped as well, so this is for work the handler handed off
    /// elsewhere.
    pub fn cancellation(&self) -> &CancellationToken {
        match self.inner.task.get() {
            Some(link) => &link.live.cancellation,
            None => &self.inner.cancellation,
        }
    }

    /// Whether the client cancelled the request (or the task).
    pub fn is_cancelled(&self) -> bool {
        self.cancellation().is_cancelled()
    }

    /// The id of the task this call runs as, if it became one (see [`crate::tasks`]).
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task.get().map(|link| link.live.id.as_str())
    }

    /// Lets the call go on as a task, for a tool set up with
    /// [`Tool::deferred_task`](crate::Tool::deferred_task): the client gets the task handle
    /// now, and the handler goes on in the background, where its requests for input are the
    /// task's. Until then the handler runs inside the request (input it asks for is the
    /// request's own: an `InputRequiredResult` on 2026-07-28).
    ///
    /// Does nothing if the call is a task already, or cannot be one (the client did not ask
    /// for or allow a task, or the tool does not support them): the handler just goes on.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] if the server could not create the task (the client then got the
    /// error).
    pub async fn start_task(&self) -> Result<()> {
        if self.inner.task.get().is_some() {
            return Ok(());
        }
        let slot = self.inner.task_slot.lock().expect("task slot lock").take();
        let Some(slot) = slot else {
            return Ok(());
        };
        let _ = slot.start.send(());
        slot.linked.await.map_err(|_| Error::Closed {
            reason: "the task could not be created".to_owned(),
        })
    }

    /// Links the call to its task.
    /// The connection the request came on.
    pub(crate) fn peer(&self) -> &Peer {
        &self.inner.peer
    }

    pub(crate) fn link_task(&self, link: TaskLink) {
        let _ = self.inner.task.set(link);
    }

    /// Offers a deferred task tool's handler the way to become a task.
    pub(crate) fn offer_task(&self, slot: TaskSlot) {
        *self.inner.task_slot.lock().expect("task slot lock") = Some(slot);
    }

    /// Whether the handler runs in a task of the 2026-07-28 extension, where nothing but the
    /// task's state reaches the client.
    fn in_modern_task(&self) -> bool {
        self.inner.task.get().is_some_and(|link| link.live.modern)
    }

    /// Asks the client for input: through the task once the call is one, else through the
    /// request's channel.
    async fn ask<M: mcp_types::Request>(&self, ask: Ask<'_, M>) -> Result<M::Result> {
        match self.inner.task.get() {
            Some(link) => {
                link.ask(&self.inner.peer, ask, self.protocol_version())
                    .await
            }
            None => {
                let version = self.protocol_version();
                self.inner
                    .input
                    .request(&self.inner.peer, ask, version)
                    .await
            }
        }
    }

    /// The minimum level the client wants log messages at; `None` if it wants none.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match &self.inner.session {
            Some(session) => session.shared().log_level(),
            None => self.inner.request_level,
        }
    }

    /// Sends a log message (`notifications/message`) to the client if `level` is at or above
    /// the level the client set with `logging/setLevel`; otherwise does nothing.
    ///
    /// `data` is any JSON value: a string, or an object with details.
    ///
    /// # Cancel safety
    ///
    /// Not cancel-safe: dropping the future may or may not send the notification.
    pub async fn log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl Into<Value>,
    ) -> Result<()> {
        if self.log_level().is_none_or(|min| level < min) || self.in_modern_task() {
            return Ok(());
        }
        let mut params = LoggingMessageNotificationParams::new(level, data);
        params.logger = logger.map(str::to_owned);
        let raw = serde_json::value::to_raw_value(&params)?;
        self.inner
            .peer
            .notify(LoggingMessage::METHOD, Some(raw))
            .await
            .map_err(Error::from)
    }

    /// Asks the client's LLM for a message (`sampling/createMessage`).
    ///
    /// Fails with [`Error::CapabilityNotDeclared`] if the client did not declare `sampling`.
    /// On 2026-07-28 the request travels in an `InputRequiredResult` under a key generated from
    /// the call order; [`sample_keyed`](Self::sample_keyed) names the key.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request on the client.
    pub async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult> {
        self.sample_as(None, params).await
    }

    /// Like [`sample`](Self::sample), with the request's key in a 2026-07-28
    /// `InputRequiredResult` chosen by the handler (it must be unique within the request).
    pub async fn sample_keyed(
        &self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult> {
        self.sample_as(Some(key), params).await
    }

    async fn sample_as(
        &self,
        key: Option<&str>,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult> {
        if !self.client_capabilities().supports_sampling() {
            return Err(Error::CapabilityNotDeclared("sampling"));
        }
        let ask = Ask::<CreateMessage> {
            kind: "sample",
            key,
            params,
            wrap: InputRequest::CreateMessage,
            unwrap: |r| match r {
                InputResponse::CreateMessage(r) => Some(*r),
                _ => None,
            },
        };
        self.ask(ask).await
    }

    /// Asks the user for input through the client (`elicitation/create`), in form mode or URL
    /// mode.
    ///
    /// Fails with [`Error::CapabilityNotDeclared`] if the client did not declare elicitation
    /// in that mode, and with [`Error::NotInProtocolVersion`] if the negotiated version lacks
    /// it (elicitation needs 2025-06-18, URL mode 2025-11-25).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request on the client.
    pub async fn elicit(&self, params: impl Into<ElicitRequestParams>) -> Result<ElicitResult> {
        self.elicit_as(None, params.into()).await
    }

    /// Like [`elicit`](Self::elicit), with the request's key in a 2026-07-28
    /// `InputRequiredResult` chosen by the handler (it must be unique within the request).
    ///
    /// ```
    /// use mcp_server::{Context, HandlerError, Tool};
    /// use mcp_server::types::{ElicitRequestFormParams, ElicitRequestedSchema};
    ///
    /// async fn greet(cx: Context) -> Result<String, HandlerError> {
    ///     let form = ElicitRequestFormParams::new("What is your name?", ElicitRequestedSchema::default());
    ///     // On 2026-07-28 the client sees `"inputRequests": {"user_name": ...}`.
    ///     let answer = cx.elicit_keyed("user_name", form).await?;
    ///     let name = answer.content.unwrap_or_default().get("name").map(|v| format!("{v:?}"));
    ///     Ok(format!("Hello, {}!", name.unwrap_or_default()))
    /// }
    /// let tool = Tool::new("greet", greet);
    /// # let _ = tool;
    /// ```
    pub async fn elicit_keyed(
        &self,
        key: &str,
        params: impl Into<ElicitRequestParams>,
    ) -> Result<ElicitResult> {
        self.elicit_as(Some(key), params.into()).await
    }

    async fn elicit_as(
        &self,
        key: Option<&str>,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult> {
        let version = self.protocol_version();
        match &params {
            ElicitRequestParams::Form(_) => {
                if !version.has_elicitation() {
                    return Err(Error::NotInProtocolVersion {
                        feature: "elicitation",
                        version: version.clone(),
                    });
                }
                if !self.client_capabilities().supports_elicitation_form() {
                    return Err(Error::CapabilityNotDeclared("elicitation.form"));
                }
            }
            ElicitRequestParams::Url(_) => {
                if !version.has_url_elicitation() {
                    return Err(Error::NotInProtocolVersion {
                        feature: "url-mode elicitation",
                        version: version.clone(),
                    });
                }
                if !self.client_capabilities().supports_elicitation_url() {
                    return Err(Error::CapabilityNotDeclared("elicitation.url"));
                }
            }
            _ => {
                return Err(Error::NotInProtocolVersion {
                    feature: "this elicitation mode",
                    version: version.clone(),
                });
            }
        }
        let ask = Ask::<Elicit> {
            kind: "elicit",
            key,
            params,
            wrap: InputRequest::Elicit,
            unwrap: |r| match r {
                InputResponse::Elicit(r) => Some(r),
                _ => None,
            },
        };
        self.ask(ask).await
    }

    /// Asks the client for its roots (`roots/list`).
    ///
    /// Fails with [`Error::CapabilityNotDeclared`] if the client did not declare `roots`.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request on the client.
    pub async fn list_roots(&self) -> Result<ListRootsResult> {
        self.list_roots_as(None).await
    }

    /// Like [`list_roots`](Self::list_roots), with the request's key in a 2026-07-28
    /// `InputRequiredResult` chosen by the handler.
    pub async fn list_roots_keyed(&self, key: &str) -> Result<ListRootsResult> {
        self.list_roots_as(Some(key)).await
    }

    async fn list_roots_as(&self, key: Option<&str>) -> Result<ListRootsResult> {
        if !self.client_capabilities().supports_roots() {
            return Err(Error::CapabilityNotDeclared("roots"));
        }
        let ask = Ask::<ListRoots> {
            kind: "roots",
            key,
            params: EmptyParams::default(),
            wrap: InputRequest::ListRoots,
            unwrap: |r| match r {
                InputResponse::ListRoots(r) => Some(r),
                _ => None,
            },
        };
        self.ask(ask).await
    }

    /// The value this request's handler set with [`set_request_state`](Self::set_request_state)
    /// in an earlier round of the same 2026-07-28 request (read from the verified
    /// `requestState`); `None` in the first round, on earlier revisions, or if it does not
    /// decode as `T`.
    pub fn request_state<T: DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_value(self.inner.input.previous_state()?).ok()
    }

    /// Carries `value` into the next round of a 2026-07-28 request that needs input: it
    /// travels, sealed against tampering, in the `requestState` of the `InputRequiredResult`
    /// and comes back as [`request_state`](Self::request_state). Ignored on earlier revisions,
    /// where the handler runs once and keeps its own variables.
    pub fn set_request_state<T: Serialize>(&self, value: &T) -> Result<()> {
        self.inner.input.set_state(serde_json::to_value(value)?);
        Ok(())
    }

    /// The input requests recorded by a stateless request, for the router.
    pub(crate) fn input(&self) -> &Input {
        &self.inner.input
    }
}

fn prev_or_nan(last: Option<f64>) -> f64 {
    last.unwrap_or(f64::NAN)
}
