//! [`Context`]: what a handler knows about its request, and how it talks to the client.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use mcp_jsonrpc::{CancellationToken, Extensions, Id, Peer, RequestOptions};
use mcp_types::{
    ClientCapabilities, CreateMessage, CreateMessageRequestParams, CreateMessageResult, Elicit,
    ElicitRequestParams, ElicitResult, EmptyParams, ErrorCode, ErrorObject, Implementation,
    InputRequest, InputRequests, InputResponse, InputResponses, ListRoots, ListRootsResult,
    LoggingLevel, LoggingMessage, LoggingMessageNotificationParams, Meta, Notification,
    ProgressToken, ProtocolVersion, Request,
};
use serde_json::Value;

use crate::Server;
use crate::error::{Error, Result};
use crate::session::SessionShared;

/// What the client declared about itself: for a stateful session, from `initialize`; for a
/// stateless (2026-07-28) request, from the request's `_meta`.
#[derive(Debug, Clone)]
pub(crate) struct ClientState {
    pub(crate) version: ProtocolVersion,
    pub(crate) info: Option<Implementation>,
    pub(crate) capabilities: ClientCapabilities,
}

/// Where the minimum log level for [`Context::log`] comes from.
#[derive(Debug, Clone)]
pub(crate) enum LevelSource {
    /// The session's level, set with `logging/setLevel`.
    Session(Arc<SessionShared>),
    /// A per-request level (2026-07-28: `_meta` `logLevel`); `None` sends nothing.
    #[allow(dead_code)]
    Fixed(Option<LoggingLevel>),
}

/// The handler context: one type for tool, resource, prompt and completion handlers.
///
/// It gives the request's progress token and [`report_progress`](Self::report_progress),
/// its cancellation signal, logging to the client ([`log`](Self::log)), what the client
/// declared (protocol version, info, capabilities), and requests to the client:
/// [`sample`](Self::sample), [`elicit`](Self::elicit), [`list_roots`](Self::list_roots).
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
    server: Server,
    client: Arc<ClientState>,
    peer: Peer,
    request_id: Id,
    extensions: Arc<Extensions>,
    level: LevelSource,
    cancellation: CancellationToken,
    progress_token: Option<mcp_jsonrpc::ProgressToken>,
    last_progress: Mutex<Option<f64>>,
    input: Input,
    meta: Option<Meta>,
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

pub(crate) struct ContextParts {
    pub(crate) server: Server,
    pub(crate) client: Arc<ClientState>,
    pub(crate) peer: Peer,
    pub(crate) request_id: Id,
    pub(crate) extensions: Arc<Extensions>,
    pub(crate) level: LevelSource,
    pub(crate) cancellation: CancellationToken,
    pub(crate) progress_token: Option<mcp_jsonrpc::ProgressToken>,
    pub(crate) input: Input,
    pub(crate) meta: Option<Meta>,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                server: parts.server,
                client: parts.client,
                peer: parts.peer,
                request_id: parts.request_id,
                extensions: parts.extensions,
                level: parts.level,
                cancellation: parts.cancellation,
                progress_token: parts.progress_token,
                last_progress: Mutex::new(None),
                input: parts.input,
                meta: parts.meta,
            }),
        }
    }

    /// The server this request is served by, e.g. to call
    /// [`Server::notify_resource_updated`] or to add tools.
    pub fn server(&self) -> &Server {
        &self.inner.server
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

    /// The request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.as_ref()
    }

    /// The progress token the client sent in `_meta.progressToken`, if any.
    pub fn progress_token(&self) -> Option<ProgressToken> {
        self.inner.progress_token.as_ref().map(|t| match t {
            mcp_jsonrpc::Id::Number(n) => ProgressToken::Number(*n),
            mcp_jsonrpc::Id::String(s) => ProgressToken::String(s.to_string()),
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
        self.inner
            .peer
            .notify_progress(token, progress, total, message)
            .await
            .map_err(Error::from)
    }

    /// Fired when the client cancels the request. The handler future is dropped as well, so
    /// this is for work the handler handed off elsewhere.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// Whether the client cancelled the request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// The minimum level the client wants log messages at; `None` if it wants none.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match &self.inner.level {
            LevelSource::Session(s) => s.log_level(),
            LevelSource::Fixed(l) => *l,
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
        if self.log_level().is_none_or(|min| level < min) {
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
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request on the client.
    pub async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult> {
        if !self.client_capabilities().supports_sampling() {
            return Err(Error::CapabilityNotDeclared("sampling"));
        }
        self.inner
            .input
            .request::<CreateMessage>("sample", params, InputRequest::CreateMessage, |r| match r {
                InputResponse::CreateMessage(r) => Some(*r),
                _ => None,
            })
            .await
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
        let params = params.into();
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
        }
        self.inner
            .input
            .request::<Elicit>("elicit", params, InputRequest::Elicit, |r| match r {
                InputResponse::Elicit(r) => Some(r),
                _ => None,
            })
            .await
    }

    /// Asks the client for its roots (`roots/list`).
    ///
    /// Fails with [`Error::CapabilityNotDeclared`] if the client did not declare `roots`.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request on the client.
    pub async fn list_roots(&self) -> Result<ListRootsResult> {
        if !self.client_capabilities().supports_roots() {
            return Err(Error::CapabilityNotDeclared("roots"));
        }
        self.inner
            .input
            .request::<ListRoots>(
                "roots",
                EmptyParams::default(),
                InputRequest::ListRoots,
                |r| match r {
                    InputResponse::ListRoots(r) => Some(r),
                    _ => None,
                },
            )
            .await
    }

    /// The input requests recorded by a stateless request, for the router.
    pub(crate) fn input(&self) -> &Input {
        &self.inner.input
    }
}

fn prev_or_nan(last: Option<f64>) -> f64 {
    last.unwrap_or(f64::NAN)
}

/// The channel through which [`Context`] asks the client for input; one per request.
#[derive(Debug)]
pub(crate) enum Input {
    /// Stateful revisions (up to 2025-11-25): a JSON-RPC request over the connection.
    Peer {
        peer: Peer,
        timeout: Option<Duration>,
    },
    /// 2026-07-28: answers come in the retried request's `inputResponses`.
    #[allow(dead_code)]
    Stateless(Mutex<StatelessInput>),
}

/// The state of one stateless request's input channel.
#[derive(Debug, Default)]
pub(crate) struct StatelessInput {
    /// The answers so far: from `requestState` (earlier rounds) and `inputResponses`.
    pub(crate) responses: InputResponses,
    /// How many input calls the handler made so far (the key suffix).
    pub(crate) next: usize,
    /// The requests the handler made that have no answer yet.
    pub(crate) requested: InputRequests,
}

impl Input {
    async fn request<M: Request>(
        &self,
        kind: &str,
        params: M::Params,
        wrap: fn(M::Params) -> InputRequest,
        unwrap: fn(InputResponse) -> Option<M::Result>,
    ) -> Result<M::Result> {
        match self {
            Input::Peer { peer, timeout } => {
                let raw = serde_json::value::to_raw_value(&params)?;
                let options = match timeout {
                    Some(t) => RequestOptions::new().timeout(*t),
                    None => RequestOptions::new().without_timeout(),
                };
                let result = peer.request_with(M::METHOD, Some(raw), options).await?;
                Ok(serde_json::from_str(result.get())?)
            }
            Input::Stateless(state) => {
                let mut st = state.lock().expect("input lock");
                let key = format!("{kind}-{}", st.next);
                st.next += 1;
                match st.responses.get(&key) {
                    Some(response) => unwrap(response.clone()).ok_or_else(|| {
                        Error::Rpc(ErrorObject::new(
                            ErrorCode::INVALID_PARAMS,
                            format!("input response {key} does not answer a {}", M::METHOD),
                        ))
                    }),
                    None => {
                        st.requested.insert(key, wrap(params));
                        Err(Error::InputRequired)
                    }
                }
            }
        }
    }
}

impl StatelessInput {
    /// The input channel of a stateless request: the answers of earlier rounds (carried in
    /// `requestState`) merged with this round's `inputResponses`.
    #[allow(dead_code)]
    pub(crate) fn from_request(
        request_state: Option<&str>,
        input_responses: Option<InputResponses>,
    ) -> Result<Self> {
        let mut responses = match request_state {
            Some(state) => decode_state(state)?,
            None => InputResponses::new(),
        };
        responses.extend(input_responses.unwrap_or_default());
        Ok(StatelessInput {
            responses,
            ..Default::default()
        })
    }

    /// The `requestState` to send with an `InputRequiredResult`: every answer so far, so the
    /// re-run handler finds them again next round.
    pub(crate) fn request_state(&self) -> Result<Option<String>> {
        if self.responses.is_empty() {
            return Ok(None);
        }
        let json = serde_json::to_vec(&self.responses)?;
        Ok(Some(
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json),
        ))
    }
}

/// Decodes a `requestState` made by [`StatelessInput::request_state`].
fn decode_state(state: &str) -> Result<InputResponses> {
    let invalid = || {
        Error::Rpc(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            "Invalid requestState",
        ))
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(state)
        .map_err(|_| invalid())?;
    serde_json::from_slice::<BTreeMap<String, InputResponse>>(&bytes).map_err(|_| invalid())
}
