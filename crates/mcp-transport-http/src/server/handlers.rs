//! The MCP endpoint: POST (a legacy session's, a stateless legacy POST, or a 2026-07-28
//! request), GET and DELETE.

// The `Err` of these helpers is the HTTP response to send, built once per rejected request.
#![allow(clippy::result_large_err)]

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use axum::extract::{Request, State};
use axum::response::Response;
use http::header::CONTENT_TYPE;
use http::{HeaderValue, Method, StatusCode};
use mcp_jsonrpc::{ErrorCode, ErrorObject, InlineAnswer, InlineRequests, Message};
use mcp_types::{Initialize, ProtocolVersion, Request as _};
use tokio::sync::oneshot;

use super::checks::{
    LAST_EVENT_ID, PROTOCOL_VERSION, PostHeaders, SESSION_ID, accepts, check_host_origin, decode,
    find_named_session, find_session, is_json_value, protocol_version, read_body, session_header,
};
use super::config::SessionMode;
use super::directory::SessionRecord;
use super::handle::{RequestStream, SessionHandle};
use super::modern;
use super::remote;
use super::respond::{
    JSON, SERVER_ERROR, accepted, events_lost, holder_gone, method_not_allowed, reject, reject_msg,
    session_not_found, sse_response, status_only, too_many_sessions,
};
use super::routing::{Inbound, Opening};
use super::session::{EndOnDrop, OpenError, Route, Session, SessionKind};
use super::shared::Shared;
use super::sse::Guard;

pub(crate) async fn endpoint(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    if let Err(res) = check_host_origin(&shared, &req) {
        return res;
    }
    let stateless = shared.config.mode == SessionMode::Stateless;
    // A session another instance holds: forwarded there, or taken over.
    // (The session header is read here only when there is a directory.)
    let req = match &shared.config.directory {
        Some(directory) if !stateless => match session_header(req.headers()) {
            Some(id) if shared.registry.get(id).is_none() => {
                let id = id.to_owned();
                match remote::resolve(&shared, directory, &id, req).await {
                    remote::Resolved::Local(req) => req,
                    remote::Resolved::Answered(response) => return response,
                }
            }
            _ => req,
        },
        _ => req,
    };
    match *req.method() {
        Method::POST => post(shared, req).await.unwrap_or_else(|res| res),
        Method::GET if !stateless => get(shared, req).await.unwrap_or_else(|res| res),
        Method::DELETE if !stateless => delete(&shared, &req).unwrap_or_else(|res| res),
        _ if stateless => method_not_allowed("POST"),
        _ => method_not_allowed("GET, POST, DELETE"),
    }
}

async fn post(shared: Arc<Shared>, req: Request) -> Result<Response, Response> {
    let (parts, body) = req.into_parts();
    let headers = PostHeaders::read(&parts.headers);
    if !headers.accepts(&[("application", "json"), ("text", "event-stream")]) {
        return Err(reject_msg(
            StatusCode::NOT_ACCEPTABLE,
            SERVER_ERROR,
            "Not Acceptable: Accept must list both application/json and text/event-stream",
        ));
    }
    if !is_json_value(headers.content_type) {
        return Err(reject_msg(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            SERVER_ERROR,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    // A clone of the header's value shares its bytes (no copy); `parts` moves on below.
    let header_value = headers.protocol_version.cloned();
    let header_version = header_value.as_ref().map(|v| v.to_str().unwrap_or(""));
    let body = read_body(&shared, headers.content_length, body).await?;
    let msg = decode(&shared, &body)?;
    drop(body);

    let session_id = headers.session_id();
    let has_session = session_id.is_some();
    if !has_session && modern::is_modern(header_version, &msg) {
        return post_modern(&shared, parts, header_version, msg).await;
    }
    let version = protocol_version(&shared, header_value.as_ref())?;
    let mode = shared.config.mode;
    let is_initialize = matches!(&msg, Message::Request(r) if r.method == Initialize::METHOD);
    if mode == SessionMode::Stateless
        || (mode == SessionMode::Hybrid && !has_session && !is_initialize)
    {
        return post_stateless(&shared, parts, version, msg).await;
    }
    let (session, new) = if has_session {
        (
            find_named_session(&shared, session_id, &parts.extensions)?,
            false,
        )
    } else if is_initialize {
        let session = shared.open_session(
            SessionKind::Stateful,
            version.map(str::to_owned),
            parts.version,
            parts.headers.clone(),
            parts.extensions.clone(),
        )?;
        record_session(&shared, &session).await?;
        (session, true)
    } else {
        return Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    let activity = session.activity();
    let effective = session.effective_version(version);
    let mut res = post_to_session(&session, msg, &effective, activity, Post::new(parts)).await?;
    if new
        && let Some(id) = &session.id
        && let Ok(v) = HeaderValue::from_str(id)
    {
        res.headers_mut().insert(SESSION_ID, v);
    }
    Ok(res)
}

/// A 2026-07-28 request: checked (see `modern`), then served like a stateless POST, with its
/// `Mcp-Param-*` headers attached for the server and its error responses given the revision's
/// HTTP statuses.
async fn post_modern(
    shared: &Arc<Shared>,
    parts: http::request::Parts,
    header_version: Option<&str>,
    msg: Message,
) -> Result<Response, Response> {
    let request = match &msg {
        Message::Request(request) => request,
        // No session exists to take a notification; this revision defines none over HTTP.
        Message::Notification(_) => return Ok(accepted()),
        Message::Batch(_) => {
            return Err(reject(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request(
                    "batches are not supported by protocol version 2026-07-28",
                ),
                None,
            ));
        }
        _ => {
            return Err(reject(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request("a POST must carry a request or a notification"),
                None,
            ));
        }
    };
    let id = request.id.clone();
    let params = modern::check(&parts.headers, header_version, request)
        .map_err(|r| reject(r.status, r.error, Some(&id)))?;
    let session = shared.open_session(
        SessionKind::Stateless,
        header_version.map(str::to_owned),
        parts.version,
        parts.headers.clone(),
        parts.extensions.clone(),
    )?;
    let activity = session.activity();
    let version = header_version.unwrap_or_default().to_owned();
    let mut post = Post::new(parts);
    if let Some(params) = params {
        post.extra.insert(params);
    }
    post.json_status = Some(modern::status);
    post_to_session(&session, msg, &version, activity, post).await
}

async fn post_stateless(
    shared: &Arc<Shared>,
    parts: http::request::Parts,
    version: Option<&str>,
    msg: Message,
) -> Result<Response, Response> {
    if !has_request(&msg) {
        // No session exists to receive notifications or responses.
        if let Message::Batch(_) = &msg {
            check_batch(version.unwrap_or("2025-03-26"))?;
        }
        return Ok(accepted());
    }
    let session = shared.open_session(
        SessionKind::Stateless,
        version.map(str::to_owned),
        parts.version,
        parts.headers.clone(),
        parts.extensions.clone(),
    )?;
    let effective = version.unwrap_or("2025-03-26");
    let activity = session.activity();
    // No `initialize` reaches this session: the server serves it at the header's version.
    let mut post = Post::new(parts);
    post.extra.insert(ProtocolVersion::from(effective));
    post_to_session(&session, msg, effective, activity, post).await
}

fn has_request(msg: &Message) -> bool {
    match msg {
        Message::Request(_) => true,
        Message::Batch(items) => items.iter().any(has_request),
        _ => false,
    }
}

pub(crate) fn check_batch(version: &str) -> Result<(), Response> {
    if version == "2025-03-26" {
        Ok(())
    } else {
        Err(reject(
            StatusCode::BAD_REQUEST,
            ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                format!("batches are not supported by protocol version {version}"),
            ),
            None,
        ))
    }
}

/// Attaches what handlers may want to know about the HTTP request to each inbound request and
/// notification of `msg`: the [`SessionHandle`], the request's headers and `http::Extensions`
/// (moved to a lone message, copied to each message of a batch), and for requests a
/// [`RequestStream`].
pub(crate) fn attach(session: &Arc<Session>, msg: &mut Message, post: &mut Post) {
    if let Message::Batch(items) = msg {
        for item in items {
            attach_values(
                session,
                item,
                post.parts.headers.clone(),
                post.parts.extensions.clone(),
                post.extra.clone(),
            );
        }
        return;
    }
    // One message: the POST's values move to it (no copy of the headers per request).
    let headers = std::mem::take(&mut post.parts.headers);
    let extensions = std::mem::take(&mut post.parts.extensions);
    let extra = std::mem::take(&mut post.extra);
    attach_values(session, msg, headers, extensions, extra);
}

fn attach_values(
    session: &Arc<Session>,
    msg: &mut Message,
    headers: http::HeaderMap,
    http_extensions: http::Extensions,
    extra: mcp_jsonrpc::Extensions,
) {
    let handle = SessionHandle {
        session: session.clone(),
    };
    let extensions = match msg {
        Message::Request(r) => {
            r.extensions
                .insert(RequestStream::new(handle.clone(), r.id.clone()));
            &mut r.extensions
        }
        Message::Notification(n) => &mut n.extensions,
        // A batch holds no batch (the decoder refuses one); nothing to attach elsewhere.
        Message::Batch(_) | Message::Response(_) | Message::Invalid(_) => return,
    };
    extensions.insert(handle);
    extensions.insert(headers);
    extensions.insert(http_extensions);
    extensions.extend(extra);
}

/// A POST on its way to a session: the HTTP request's parts, what else to attach to its
/// messages, and how to choose the status of a plain JSON answer.
pub(crate) struct Post {
    /// Its headers and extensions move to the message (one copy each per message of a batch).
    parts: http::request::Parts,
    /// Attached to every message besides what [`attach`] always attaches.
    extra: mcp_jsonrpc::Extensions,
    /// The status of an answer sent as plain JSON (default 200).
    json_status: Option<fn(&[u8]) -> StatusCode>,
}

impl Post {
    pub(crate) fn new(parts: http::request::Parts) -> Self {
        Post {
            parts,
            extra: mcp_jsonrpc::Extensions::new(),
            json_status: None,
        }
    }
}

/// Hands a decoded POST to a session and builds the answer.
async fn post_to_session(
    session: &Arc<Session>,
    mut msg: Message,
    version: &str,
    activity: super::session::ActivityGuard,
    mut post: Post,
) -> Result<Response, Response> {
    if let Message::Batch(_) = &msg {
        check_batch(version)?;
    }
    attach(session, &mut msg, &mut post);
    session.observe_inbound(&msg);
    // One request (the common case) needs no allocation.
    let single;
    let batch: Vec<_>;
    let requests: &[_] = match &msg {
        Message::Request(r) => {
            single = [(&r.id, r.params.as_deref(), &*r.method)];
            &single
        }
        Message::Batch(items) => {
            batch = items
                .iter()
                .filter_map(|m| match m {
                    Message::Request(r) => Some((&r.id, r.params.as_deref(), &*r.method)),
                    _ => None,
                })
                .collect();
            &batch
        }
        _ => &[],
    };
    if requests.is_empty() {
        let inbound = session.inbound().map_err(|_| session_not_found())?;
        inbound.send(msg).await.map_err(|_| session_not_found())?;
        return Ok(accepted());
    }
    let lone = matches!(msg, Message::Request(_));
    let opened = session
        .open_request_stream(requests, version, lone)
        .map_err(|e| match e {
            OpenError::DuplicateId(id) => reject(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request(format!(
                    "a request with id {id} is already in flight"
                )),
                Some(&id),
            ),
            _ => session_not_found(),
        })?;
    let opening = opened.opening;
    // A stateless POST is its session: the client going away (the answer dropped, before or
    // while it streams) ends it, which cancels the request. Boxed into the SSE body's guards
    // only when the answer streams.
    let end_on_drop = (session.kind == SessionKind::Stateless).then(|| EndOnDrop(session.clone()));
    // The first frame decides: the response alone is plain JSON, anything else starts SSE.
    let first = match (opened.route, msg) {
        (Route::Inline(inline), Message::Request(request)) => {
            answer_inline(session, &inline, request, opening).await?
        }
        (Route::Inline(_), msg) => {
            let inbound = session.inbound().map_err(|_| session_not_found())?;
            queue(session, inbound, msg, opening).await?
        }
        (Route::Inbound(inbound), msg) => queue(session, inbound, msg, opening).await?,
    };
    match first {
        Some(Opening::Json(json)) => {
            // The head of a message sent in parts is a result's (see `json_body::Json`).
            let status = post.json_status.map_or(StatusCode::OK, |f| f(json.head()));
            let len = HeaderValue::from(json.len());
            let mut res = Response::new(json.into_body());
            *res.status_mut() = status;
            res.headers_mut().insert(CONTENT_TYPE, JSON);
            // Known, though the body in parts does not say it: no chunked encoding.
            res.headers_mut().insert(http::header::CONTENT_LENGTH, len);
            Ok(res)
        }
        Some(Opening::Sse(rx)) => {
            let mut guards: Vec<Guard> = vec![Box::new(activity)];
            if let Some(end) = end_on_drop {
                guards.push(Box::new(end));
            }
            Ok(sse_response(VecDeque::new(), Some(rx), guards))
        }
        // Cancelled (no response will come), or the session ended meanwhile.
        None => Ok(sse_response(VecDeque::new(), None, Vec::new())),
    }
}

/// Hands a POST's message to the session's connection through its inbound queue and waits
/// for how its answer starts, polling the session's future meanwhile in this task (see
/// `Driven`), so that the request is read, handled and answered here.
async fn queue(
    session: &Arc<Session>,
    inbound: Inbound,
    msg: Message,
    opening: oneshot::Receiver<Opening>,
) -> Result<Option<Opening>, Response> {
    session
        .drive(async {
            if inbound.send(msg).await.is_err() {
                return Err(session_not_found());
            }
            drop(inbound);
            Ok(opening.await.ok())
        })
        .await
}

/// Runs a lone request in this task ([`InlineRequests`]: no queue into the session's
/// connection, no write queue out of it), sends its answer as the connection would, and
/// waits for how the answer starts. A request that cannot run inline (no slot free) is
/// queued instead.
async fn answer_inline(
    session: &Arc<Session>,
    inline: &InlineRequests,
    request: mcp_jsonrpc::Request,
    mut opening: oneshot::Receiver<Opening>,
) -> Result<Option<Opening>, Response> {
    let mut call = match inline.start(request) {
        Ok(call) => call,
        Err(request) => {
            let inbound = session.inbound().map_err(|_| session_not_found())?;
            return queue(session, inbound, Message::Request(request), opening).await;
        }
    };
    // Most handlers finish on their first poll. One that waits has the session's future
    // polled here meanwhile (as a queued request would), until its answer comes or its
    // stream opens first (a progress notification, a request to the client): the SSE
    // response must reach the client then, so the call still running is handed to the
    // session's connection (dropped here), which finishes it and sends its answer.
    let answer = match poll_once(&mut call).await {
        Poll::Ready(answer) => answer,
        Poll::Pending => {
            let first = session
                .drive(std::future::poll_fn(|cx| {
                    if let Poll::Ready(answer) = Pin::new(&mut call).poll(cx) {
                        return Poll::Ready(Ok(answer));
                    }
                    Pin::new(&mut opening)
                        .poll(cx)
                        .map(|opened| Err(opened.ok()))
                }))
                .await;
            match first {
                Ok(answer) => answer,
                Err(opened) => return Ok(opened),
            }
        }
    };
    if let InlineAnswer::Send(response) = answer {
        // Routed as the connection's own send would be: the plain JSON answer, or the
        // last event of its stream. An error here is the session gone: `opening` says so.
        let _ = session.send(Message::Response(response)).await;
    }
    Ok(match poll_once(&mut opening).await {
        Poll::Ready(opened) => opened.ok(),
        // Queued behind what the handler sent: the connection sends it.
        Poll::Pending => session.drive(opening).await.ok(),
    })
}

/// Polls `fut` once.
async fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *fut).poll(cx))).await
}

async fn get(shared: Arc<Shared>, req: Request) -> Result<Response, Response> {
    let headers = req.headers();
    if !accepts(headers, &[("text", "event-stream")]) {
        return Err(reject_msg(
            StatusCode::NOT_ACCEPTABLE,
            SERVER_ERROR,
            "Not Acceptable: Accept must list text/event-stream",
        ));
    }
    let version = protocol_version(&shared, headers.get(PROTOCOL_VERSION))?;
    let session = find_session(&shared, headers, req.extensions())?;
    let last = headers.get(LAST_EVENT_ID).and_then(|v| v.to_str().ok());
    let effective = session.effective_version(version);
    let (prefix, rx) = session
        .open_get_stream(last, &effective)
        .await
        .map_err(|e| match e {
            OpenError::Conflict => reject_msg(
                StatusCode::CONFLICT,
                SERVER_ERROR,
                "Conflict: only one SSE stream is allowed per session",
            ),
            OpenError::UnknownEvent => reject_msg(
                StatusCode::BAD_REQUEST,
                SERVER_ERROR,
                "Bad Request: unknown Last-Event-ID",
            ),
            OpenError::EventsLost => events_lost(),
            OpenError::HolderGone => holder_gone(),
            _ => session_not_found(),
        })?;
    Ok(sse_response(prefix, rx, vec![Box::new(session.activity())]))
}

fn delete(shared: &Shared, req: &Request) -> Result<Response, Response> {
    protocol_version(shared, req.headers().get(PROTOCOL_VERSION))?;
    let session = find_session(shared, req.headers(), req.extensions())?;
    session.end();
    Ok(status_only(StatusCode::OK))
}

/// Records a new stateful session in the directory (if the service has one) with this
/// instance as its holder; 503 (and the session ended) if the directory cannot be written.
async fn record_session(shared: &Shared, session: &Session) -> Result<(), Response> {
    let (Some(directory), Some(id)) = (&shared.config.directory, &session.id) else {
        return Ok(());
    };
    let principal = session.owner.principal.as_deref().map(str::to_owned);
    let record = SessionRecord::new(&**id, &*directory.instance_url, principal);
    match directory.sessions.create(&record).await {
        Ok(()) => Ok(()),
        Err(e) => {
            tracing::warn!(session = %id, error = %e, "session directory: recording failed");
            session.end();
            Err(too_many_sessions())
        }
    }
}
