//! The state shared by the transport, its send futures and its SSE tasks, and the Streamable
//! HTTP exchanges (POST, GET, DELETE). `request.rs` makes each HTTP request, `session.rs` starts
//! a new session, `legacy.rs` falls back to HTTP+SSE.

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use mcp_jsonrpc::{ErrorObject, Id, Message, Response, SessionIdCell};
use mcp_types::InitializeResult;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use tokio::sync::mpsc;

use super::auth::AuthProvider;
use super::body::{Lines, read_error_body, read_limited};
use super::error::{Error, Result, snippet};
use super::options::{HeaderProvider, Options, Reconnect};

pub(crate) use crate::headers::{LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID};

const INBOX_CAPACITY: usize = 64;

/// A parsed SSE stream.
pub(crate) type Events =
    BoxStream<'static, Result<eventsource_stream::Event, EventStreamError<Error>>>;

/// The transport's error for a failure of an SSE stream: that of the body (an HTTP error, or
/// [`Error::TooLarge`]), or [`Error::Sse`] for one of the parser.
pub(crate) fn sse_error(e: EventStreamError<Error>) -> Error {
    match e {
        EventStreamError::Transport(e) => e,
        other => Error::Sse(other.to_string()),
    }
}

/// What the send futures and the SSE tasks hand to `recv`.
pub(crate) enum Inbound {
    /// A message for the connection.
    Message(Message),
    /// An SSE stream (or any task) for `recv` to drive.
    Spawn(Task),
    /// The session of this generation (and older) ended and a new one started: drop its
    /// tasks and fail the requests still pending on it.
    Expired { generation: u64 },
    /// The transport failed; `recv` returns this error.
    Failed(Error),
    /// The server ended the (legacy) stream; `recv` returns `Ok(None)`.
    End,
    /// The 2026-07-28 request with this id was cancelled: drop its tasks.
    Abort(Id),
}

/// A stream `recv` drives, tagged with the session generation it belongs to.
pub(crate) struct Task {
    pub(crate) generation: u64,
    /// The 2026-07-28 request this task carries: dropping the task (on
    /// [`Inbound::Abort`]) closes its HTTP exchange, which is how such a request is cancelled.
    pub(crate) request: Option<Id>,
    pub(crate) stream: BoxStream<'static, Inbound>,
}

impl Stream for Task {
    type Item = Inbound;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Inbound>> {
        self.stream.poll_next_unpin(cx)
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Mode {
    /// Before the response to `initialize`.
    Unknown,
    /// Streamable HTTP.
    Streamable,
    /// Legacy HTTP+SSE: messages are POSTed to this endpoint.
    Legacy(Url),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GetStream {
    NotOpened,
    Open,
    NotOffered,
}

/// The cached `initialize` request, re-sent to start a new session.
#[derive(Debug, Clone)]
pub(crate) struct Init {
    pub(crate) id: Id,
    pub(crate) body: String,
}

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) mode: Mode,
    pub(crate) session: Option<HeaderValue>,
    pub(crate) version: Option<HeaderValue>,
    /// Bumped each time a new session replaces an expired one.
    pub(crate) generation: u64,
    pub(crate) init: Option<Init>,
    /// Requests sent and not yet answered, with the generation they were sent in.
    pub(crate) pending: HashMap<Id, u64>,
    /// The 2026-07-28 requests among them (cancelled by closing their exchange).
    pub(crate) modern: HashSet<Id>,
    pub(crate) get: GetStream,
    pub(crate) closed: bool,
}

/// The session headers of one generation.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) id: Option<HeaderValue>,
    pub(crate) version: Option<HeaderValue>,
    pub(crate) generation: u64,
}

impl State {
    pub(crate) fn session(&self) -> Session {
        Session {
            id: self.session.clone(),
            version: self.version.clone(),
            generation: self.generation,
        }
    }
}

/// One outgoing message, serialized.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) body: String,
    /// The ids of the requests in it (more than one only in a batch).
    pub(crate) ids: Vec<Id>,
    /// It is the `initialize` request.
    pub(crate) initialize: bool,
    /// It is the `notifications/initialized` notification.
    pub(crate) initialized: bool,
    /// It is a 2026-07-28 request: the headers its POST carries instead of the session's.
    pub(crate) modern: Option<HeaderMap>,
    /// It is the cancellation of the 2026-07-28 request with this id: instead of being
    /// sent, it closes that request's exchange.
    pub(crate) abort: Option<Id>,
}

/// The outcome of the last [`AuthProvider::on_unauthorized`] call.
#[derive(Debug, Default)]
pub(crate) struct AuthState {
    /// Bumped by each call, so that a request refused with older credentials retries
    /// instead of calling it again.
    pub(crate) generation: u64,
    /// What it answered (`false` for an error).
    pub(crate) authorized: bool,
}

pub(crate) struct Shared {
    pub(crate) http: reqwest::Client,
    pub(crate) url: Url,
    pub(crate) headers: HeaderMap,
    pub(crate) provider: Option<Arc<dyn HeaderProvider>>,
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    pub(crate) max_auth_retries: u32,
    pub(crate) reconnect: Reconnect,
    pub(crate) legacy_fallback: bool,
    pub(crate) timeout: Duration,
    /// The largest body or SSE event read.
    pub(crate) max_message_size: usize,
    pub(crate) inbox: mpsc::Sender<Inbound>,
    pub(crate) state: Mutex<State>,
    /// Held while a new session is being started; sends wait for it.
    pub(crate) reinit: tokio::sync::Mutex<()>,
    /// Held while the auth provider obtains new credentials; HTTP requests wait for it.
    pub(crate) auth_state: tokio::sync::Mutex<AuthState>,
    /// `state.session` as text, for the spans (see [`Shared::set_session`]).
    pub(crate) session_id: SessionIdCell,
}

/// The `protocolVersion` of an `initialize` result, as a header value.
pub(crate) fn protocol_version(result: &serde_json::value::RawValue) -> Option<HeaderValue> {
    let parsed: InitializeResult = serde_json::from_str(result.get()).ok()?;
    HeaderValue::from_str(parsed.protocol_version.as_str()).ok()
}

pub(crate) enum Body {
    Json,
    Sse,
    Other(String),
}

pub(crate) fn body_kind(headers: &HeaderMap) -> Body {
    let ct = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/json" => Body::Json,
        "text/event-stream" => Body::Sse,
        _ => Body::Other(ct),
    }
}

pub(crate) fn is_sse(headers: &HeaderMap) -> bool {
    matches!(body_kind(headers), Body::Sse)
}

/// The JSON-RPC error object in an HTTP error body, if it holds one.
fn rpc_error(body: &str) -> Option<ErrorObject> {
    match Message::decode(body.as_bytes()) {
        Message::Response(Response { result: Err(e), .. }) => Some(e),
        _ => None,
    }
}

impl Shared {
    /// The SSE events of `resp`'s body, each within the size limit (see [`Lines`]).
    pub(crate) fn events(&self, resp: reqwest::Response) -> Events {
        Lines::new(resp, self.max_message_size)
            .eventsource()
            .boxed()
    }

    /// The whole body of `resp`, within the size limit.
    pub(crate) async fn read_body(&self, resp: reqwest::Response) -> Result<bytes::Bytes> {
        read_limited(resp, self.max_message_size).await
    }

    /// The error of an HTTP error response, and the JSON-RPC error its body holds, if any
    /// (only the body's first `max_message_size` bytes are read).
    pub(crate) async fn status_error(
        &self,
        resp: reqwest::Response,
    ) -> (Error, Option<ErrorObject>) {
        let status = resp.status();
        let body = read_error_body(resp, self.max_message_size).await;
        let rpc = rpc_error(&body);
        (
            Error::Status {
                status,
                body: snippet(&body),
            },
            rpc,
        )
    }

    pub(crate) fn new(o: Options) -> (Arc<Shared>, mpsc::Receiver<Inbound>) {
        let (tx, rx) = mpsc::channel(INBOX_CAPACITY);
        let shared = Shared {
            http: o.http,
            url: o.url,
            headers: o.headers,
            provider: o.provider,
            auth: o.auth,
            max_auth_retries: o.max_auth_retries,
            reconnect: o.reconnect,
            legacy_fallback: o.legacy_fallback,
            timeout: o.timeout,
            max_message_size: o.max_message_size,
            inbox: tx,
            state: Mutex::new(State {
                mode: Mode::Unknown,
                session: None,
                version: None,
                generation: 0,
                init: None,
                pending: HashMap::new(),
                modern: HashSet::new(),
                get: GetStream::NotOpened,
                closed: false,
            }),
            reinit: tokio::sync::Mutex::new(()),
            auth_state: tokio::sync::Mutex::new(AuthState::default()),
            session_id: SessionIdCell::new(),
        };
        (Arc::new(shared), rx)
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes `id` as the session's id (in `st`, the locked state), and tells the spans.
    pub(crate) fn set_session(&self, st: &mut State, id: Option<HeaderValue>) {
        self.session_id
            .set(id.as_ref().and_then(|v| v.to_str().ok()));
        st.session = id;
    }

    /// Hands an item to `recv`. Fails only if the transport is gone, and then nobody cares.
    pub(crate) async fn push(&self, item: Inbound) {
        let _ = self.inbox.send(item).await;
    }

    /// Yields an error response for each of `ids`.
    pub(crate) async fn fail(&self, ids: &[Id], error: ErrorObject) {
        for id in ids {
            self.push(Inbound::Message(Message::Response(Response::error(
                Some(id.clone()),
                error.clone(),
            ))))
            .await;
        }
    }

    /// Fails the requests among `ids` with `error`, or returns it if there are none.
    pub(crate) async fn fail_or_err(&self, ids: &[Id], error: Error) -> Result<()> {
        if ids.is_empty() {
            return Err(error);
        }
        tracing::warn!(error = %error, "request failed");
        self.fail(ids, error.to_error_object()).await;
        Ok(())
    }

    fn session_headers(session: &Session) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(id) = &session.id {
            headers.insert(SESSION_ID, id.clone());
        }
        if let Some(version) = &session.version {
            headers.insert(PROTOCOL_VERSION, version.clone());
        }
        headers
    }

    pub(crate) async fn post(
        &self,
        url: &Url,
        body: &str,
        session: &Session,
    ) -> Result<reqwest::Response> {
        self.post_with(url, body, Self::session_headers(session))
            .await
    }

    /// A POST of `body` with `headers` and those every POST carries.
    pub(crate) async fn post_with(
        &self,
        url: &Url,
        body: &str,
        mut headers: HeaderMap,
    ) -> Result<reqwest::Response> {
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        self.request(Method::POST, url, &headers, Some(body)).await
    }

    /// Opens (or resumes, with `last_event_id`) an SSE stream with GET.
    pub(crate) async fn get(
        &self,
        session: &Session,
        last_event_id: Option<&str>,
    ) -> Result<reqwest::Response> {
        let mut headers = Self::session_headers(session);
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(id) = last_event_id {
            match HeaderValue::from_str(id) {
                Ok(v) => {
                    headers.insert(LAST_EVENT_ID, v);
                }
                Err(_) => tracing::warn!(id, "sse event id is not a valid header value"),
            }
        }
        self.request(Method::GET, &self.url, &headers, None).await
    }

    /// The session of `generation`, or `None` if it is gone (or the transport closed).
    pub(crate) fn session_of(&self, generation: u64) -> Option<Session> {
        let st = self.state();
        (st.generation == generation && !st.closed).then(|| st.session())
    }

    /// Sends one message: the body of every send future.
    ///
    /// A request (other than `initialize`) is only started here: its exchange becomes a task
    /// that `recv` drives, so that the connection's next send (say, the answer to a server
    /// request that the server awaits before answering this POST) is not queued behind it.
    /// Everything else completes here: `initialize` (so that the session id is known before
    /// anything else is sent), notifications and responses (their 202), legacy POSTs.
    pub(crate) async fn send(self: Arc<Self>, out: Outgoing) -> Result<()> {
        // Wait for a new session being started, if any.
        drop(self.reinit.lock().await);
        if let Some(id) = out.abort {
            {
                let mut st = self.state();
                st.pending.remove(&id);
                st.modern.remove(&id);
            }
            tracing::debug!(%id, "closing the exchange of a cancelled request");
            self.push(Inbound::Abort(id)).await;
            return Ok(());
        }
        let (mode, session) = {
            let mut st = self.state();
            if st.closed {
                return Err(Error::Closed);
            }
            let generation = st.generation;
            for id in &out.ids {
                st.pending.insert(id.clone(), generation);
                if out.modern.is_some() {
                    st.modern.insert(id.clone());
                }
            }
            (st.mode.clone(), st.session())
        };
        if out.modern.is_some() {
            return self.send_modern(out, session.generation).await;
        }
        if let Mode::Legacy(endpoint) = &mode {
            return self.send_legacy(endpoint, out).await;
        }
        if out.ids.is_empty() || out.initialize {
            return self.exchange(out, mode, session).await;
        }
        let generation = session.generation;
        let exchange = self.clone().exchange(out, mode, session);
        // What concerns the request itself becomes an error response inside `exchange`; an
        // `Err` is a failure of the transport (starting a new session failed).
        let stream = futures::stream::once(exchange)
            .filter_map(|result| std::future::ready(result.err().map(Inbound::Failed)));
        self.push(Inbound::Spawn(Task {
            generation,
            request: None,
            stream: stream.boxed(),
        }))
        .await;
        Ok(())
    }

    /// One POST of a Streamable HTTP session and its outcome: a JSON body or an SSE stream
    /// handed to `recv`, an error response for each request on failure, a new session on 404.
    async fn exchange(self: Arc<Self>, out: Outgoing, mode: Mode, session: Session) -> Result<()> {
        let resp = match self.post(&self.url, &out.body, &session).await {
            Ok(resp) => resp,
            Err(e) => return self.fail_or_err(&out.ids, e).await,
        };
        let status = resp.status();
        if status == StatusCode::NOT_FOUND && session.id.is_some() {
            tracing::info!("the server ended the session (http 404)");
            // The requests of the old session, this one included, fail once it is replaced.
            return self.reinitialize(session.generation).await;
        }
        if out.initialize
            && matches!(mode, Mode::Unknown)
            && self.legacy_fallback
            && status.is_client_error()
            && status != StatusCode::UNAUTHORIZED
            && status != StatusCode::FORBIDDEN
        {
            let (error, _) = self.status_error(resp).await;
            return self.fall_back(out, error).await;
        }
        if !status.is_success() {
            let (error, rpc) = self.status_error(resp).await;
            if out.ids.is_empty() {
                return Err(error);
            }
            tracing::warn!(error = %error, "request failed");
            self.fail(&out.ids, rpc.unwrap_or_else(|| error.to_error_object()))
                .await;
            return Ok(());
        }
        if out.initialize {
            let mut st = self.state();
            st.mode = Mode::Streamable;
            self.set_session(&mut st, resp.headers().get(SESSION_ID).cloned());
        }
        if out.ids.is_empty() || status == StatusCode::ACCEPTED {
            if out.initialized {
                self.open_get_stream().await;
            }
            return Ok(());
        }
        self.read_response(resp, &out.ids, session.generation, false)
            .await;
        Ok(())
    }

    /// Ends the session with DELETE (streamable HTTP with a session only).
    pub(crate) async fn close(&self) -> Result<()> {
        let session = {
            let mut st = self.state();
            st.closed = true;
            if !matches!(st.mode, Mode::Streamable) || st.session.is_none() {
                return Ok(());
            }
            st.session()
        };
        let headers = Self::session_headers(&session);
        let resp = match self
            .request(Method::DELETE, &self.url, &headers, None)
            .await
        {
            Ok(resp) => resp,
            Err(e @ (Error::Unauthorized { .. } | Error::Auth(_))) => {
                tracing::warn!(error = %e, "DELETE of the session was not authorized");
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let status = resp.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            tracing::debug!("the server does not let clients end sessions");
        } else if !status.is_success() && status != StatusCode::NOT_FOUND {
            tracing::warn!(%status, "DELETE of the session failed");
        }
        Ok(())
    }
}
