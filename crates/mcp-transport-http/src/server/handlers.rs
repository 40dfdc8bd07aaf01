//! The axum handlers: POST, GET and DELETE on the MCP endpoint, and the legacy endpoints.

// The `Err` of these helpers is the HTTP response to send, built once per rejected request.
#![allow(clippy::result_large_err)]

use std::collections::VecDeque;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http::header::{ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use mcp_jsonrpc::{ErrorCode, ErrorObject, Id, Message};
use mcp_types::{Initialize, Request as _};
use serde::Serialize;

use super::Shared;
use super::config::SessionMode;
use super::session::{EndOnDrop, OpenError, RequestStream, Session, SessionHandle, SessionKind};
use super::sse::{self, Frame, Guard, SseBody};

/// `Mcp-Session-Id`.
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Last-Event-ID`.
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

const JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");

/// `-32000`, the generic server error the spec's examples use for transport rejections.
const SERVER_ERROR: i32 = -32000;
/// `-32001`, "session not found" (as the TypeScript SDK answers it).
const SESSION_NOT_FOUND: i32 = -32001;

#[derive(Serialize)]
struct ErrorBody<'a> {
    jsonrpc: &'static str,
    id: Option<&'a Id>,
    error: &'a ErrorObject,
}

/// An HTTP error whose body is a JSON-RPC error response.
pub(crate) fn reject(status: StatusCode, error: ErrorObject, id: Option<&Id>) -> Response {
    let body = serde_json::to_vec(&ErrorBody {
        jsonrpc: "2.0",
        id,
        error: &error,
    })
    .unwrap_or_default();
    let mut res = Response::new(Body::from(body));
    *res.status_mut() = status;
    res.headers_mut().insert(CONTENT_TYPE, JSON);
    res
}

fn reject_msg(status: StatusCode, code: i32, message: &str) -> Response {
    reject(status, ErrorObject::new(code, message), None)
}

fn status_only(status: StatusCode) -> Response {
    let mut res = Response::new(Body::empty());
    *res.status_mut() = status;
    res
}

fn method_not_allowed(allow: &'static str) -> Response {
    let mut res = reject_msg(
        StatusCode::METHOD_NOT_ALLOWED,
        SERVER_ERROR,
        "Method not allowed",
    );
    res.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    res
}

// ---------------------------------------------------------------------------------------
// Header checks.

/// The host part of an authority (`host[:port]`, `[v6][:port]`).
fn host_of(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |i| &authority[..=i]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

fn host_allowed(allowed: &[String], authority: &str) -> bool {
    let host = host_of(authority);
    allowed
        .iter()
        .any(|a| a.eq_ignore_ascii_case(authority) || a.eq_ignore_ascii_case(host))
}

fn origin_allowed(allowed: &[String], origin: &str) -> bool {
    let Some((_, rest)) = origin.split_once("://") else {
        // `null` and other opaque origins.
        return allowed.iter().any(|a| a == origin);
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    allowed.iter().any(|a| a.eq_ignore_ascii_case(origin)) || host_allowed(allowed, authority)
}

/// DNS rebinding protection: `Host` and `Origin` against the allow-lists.
fn check_host_origin(shared: &Shared, req: &Request) -> Result<(), Response> {
    let cfg = &shared.config;
    if let Some(allowed) = &cfg.allowed_hosts {
        let authority = req
            .headers()
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| req.uri().authority().map(|a| a.as_str()));
        if !authority.is_some_and(|a| host_allowed(allowed, a)) {
            return Err(reject_msg(
                StatusCode::FORBIDDEN,
                SERVER_ERROR,
                "Forbidden: invalid Host header",
            ));
        }
    }
    if let Some(allowed) = &cfg.allowed_origins
        && let Some(origin) = req.headers().get(ORIGIN)
        && !origin.to_str().is_ok_and(|o| origin_allowed(allowed, o))
    {
        return Err(reject_msg(
            StatusCode::FORBIDDEN,
            SERVER_ERROR,
            "Forbidden: invalid Origin header",
        ));
    }
    Ok(())
}

/// Whether the `Accept` headers list `ty/sub` (or a wildcard covering it).
fn accepts(headers: &HeaderMap, ty: &str, sub: &str) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| item.split(';').next().unwrap_or("").trim())
        .any(|media| {
            let (t, s) = media.split_once('/').unwrap_or((media, ""));
            (t == "*" && s == "*")
                || (t.eq_ignore_ascii_case(ty) && (s == "*" || s.eq_ignore_ascii_case(sub)))
        })
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .is_some_and(|v| v.eq_ignore_ascii_case("application/json"))
}

/// The `MCP-Protocol-Version` header, checked against the supported revisions.
fn protocol_version(shared: &Shared, headers: &HeaderMap) -> Result<Option<String>, Response> {
    let Some(value) = headers.get(PROTOCOL_VERSION) else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(v) if shared.config.protocol_versions.iter().any(|s| s == v) => Ok(Some(v.to_owned())),
        _ => Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            &format!(
                "Bad Request: unsupported MCP-Protocol-Version (supported: {})",
                shared.config.protocol_versions.join(", ")
            ),
        )),
    }
}

fn session_header(headers: &HeaderMap) -> Option<&str> {
    headers.get(SESSION_ID).and_then(|v| v.to_str().ok())
}

/// The session named by the `Mcp-Session-Id` header: 400 without one, 404 if unknown.
fn find_session(shared: &Shared, headers: &HeaderMap) -> Result<Arc<Session>, Response> {
    let Some(id) = session_header(headers) else {
        return Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    match shared.registry.get(id) {
        Some(s) if s.kind == SessionKind::Stateful && !s.is_ended() => Ok(s),
        _ => Err(session_not_found()),
    }
}

fn session_not_found() -> Response {
    reject_msg(
        StatusCode::NOT_FOUND,
        SESSION_NOT_FOUND,
        "Session not found",
    )
}

fn too_large() -> Response {
    reject_msg(
        StatusCode::PAYLOAD_TOO_LARGE,
        SERVER_ERROR,
        "Payload too large",
    )
}

/// Reads the body, up to the limit.
async fn read_body(shared: &Shared, headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    let limit = shared.config.max_body_size;
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut buf = BytesMut::with_capacity(declared.unwrap_or(0));
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            reject_msg(
                StatusCode::BAD_REQUEST,
                SERVER_ERROR,
                "Bad Request: failed to read the body",
            )
        })?;
        if buf.len() + chunk.len() > limit {
            return Err(too_large());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// Decodes a POST body; a bad frame is answered 400 with its JSON-RPC error.
fn decode(shared: &Shared, body: &[u8]) -> Result<Message, Response> {
    match Message::decode_limited(body, shared.config.max_body_size) {
        Message::Invalid(invalid) => Err(reject(
            StatusCode::BAD_REQUEST,
            invalid.error,
            invalid.id.as_ref(),
        )),
        Message::Batch(items) => {
            if let Some(Message::Invalid(invalid)) =
                items.iter().find(|m| matches!(m, Message::Invalid(_)))
            {
                return Err(reject(
                    StatusCode::BAD_REQUEST,
                    invalid.error.clone(),
                    invalid.id.as_ref(),
                ));
            }
            Ok(Message::Batch(items))
        }
        msg => Ok(msg),
    }
}

fn sse_response(
    prefix: VecDeque<Bytes>,
    rx: Option<tokio::sync::mpsc::Receiver<Frame>>,
    guards: Vec<Guard>,
) -> Response {
    let mut res = Response::new(Body::from_stream(SseBody::new(prefix, rx, guards)));
    let h = res.headers_mut();
    h.insert(CONTENT_TYPE, EVENT_STREAM);
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

fn accepted() -> Response {
    status_only(StatusCode::ACCEPTED)
}

// ---------------------------------------------------------------------------------------
// The MCP endpoint.

pub(crate) async fn endpoint(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    if let Err(res) = check_host_origin(&shared, &req) {
        return res;
    }
    let stateless = shared.config.mode == SessionMode::Stateless;
    match *req.method() {
        Method::POST => post(shared, req).await.unwrap_or_else(|res| res),
        Method::GET if !stateless => get(shared, req).unwrap_or_else(|res| res),
        Method::DELETE if !stateless => delete(&shared, &req).unwrap_or_else(|res| res),
        _ if stateless => method_not_allowed("POST"),
        _ => method_not_allowed("GET, POST, DELETE"),
    }
}

async fn post(shared: Arc<Shared>, req: Request) -> Result<Response, Response> {
    let headers = req.headers();
    if !(accepts(headers, "application", "json") && accepts(headers, "text", "event-stream")) {
        return Err(reject_msg(
            StatusCode::NOT_ACCEPTABLE,
            SERVER_ERROR,
            "Not Acceptable: Accept must list both application/json and text/event-stream",
        ));
    }
    if !is_json(headers) {
        return Err(reject_msg(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            SERVER_ERROR,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    let version = protocol_version(&shared, headers)?;
    let (parts, body) = req.into_parts();
    let body = read_body(&shared, &parts.headers, body).await?;
    let msg = decode(&shared, &body)?;
    drop(body);

    let mode = shared.config.mode;
    let has_session = session_header(&parts.headers).is_some();
    let is_initialize = matches!(&msg, Message::Request(r) if r.method == Initialize::METHOD);
    if mode == SessionMode::Stateless
        || (mode == SessionMode::Hybrid && !has_session && !is_initialize)
    {
        return post_stateless(&shared, parts, version, msg).await;
    }
    let (session, new) = if has_session {
        (find_session(&shared, &parts.headers)?, false)
    } else if is_initialize {
        let session = shared
            .open_session(
                SessionKind::Stateful,
                version.clone(),
                parts.headers.clone(),
                parts.extensions.clone(),
            )
            .ok_or_else(too_many_sessions)?;
        (session, true)
    } else {
        return Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    let activity = session.activity();
    let effective = session.effective_version(version.as_deref()).into_owned();
    let mut res = post_to_session(&session, msg, &effective, activity, &parts).await?;
    if new
        && let Some(id) = &session.id
        && let Ok(v) = HeaderValue::from_str(id)
    {
        res.headers_mut().insert(SESSION_ID, v);
    }
    Ok(res)
}

fn too_many_sessions() -> Response {
    reject_msg(
        StatusCode::SERVICE_UNAVAILABLE,
        SERVER_ERROR,
        "Service Unavailable: too many sessions",
    )
}

async fn post_stateless(
    shared: &Arc<Shared>,
    parts: http::request::Parts,
    version: Option<String>,
    msg: Message,
) -> Result<Response, Response> {
    if !has_request(&msg) {
        // No session exists to receive notifications or responses.
        if let Message::Batch(_) = &msg {
            check_batch(version.as_deref().unwrap_or("2025-03-26"))?;
        }
        return Ok(accepted());
    }
    let session = shared
        .open_session(
            SessionKind::Stateless,
            version.clone(),
            parts.headers.clone(),
            parts.extensions.clone(),
        )
        .ok_or_else(too_many_sessions)?;
    let effective = version.unwrap_or_else(|| "2025-03-26".to_owned());
    let activity = session.activity();
    post_to_session(&session, msg, &effective, activity, &parts).await
}

fn has_request(msg: &Message) -> bool {
    match msg {
        Message::Request(_) => true,
        Message::Batch(items) => items.iter().any(has_request),
        _ => false,
    }
}

fn check_batch(version: &str) -> Result<(), Response> {
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
/// (cloned: one copy per message), and for requests a [`RequestStream`].
fn attach(session: &Arc<Session>, msg: &mut Message, parts: &http::request::Parts) {
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
        Message::Batch(items) => {
            items.iter_mut().for_each(|m| attach(session, m, parts));
            return;
        }
        Message::Response(_) | Message::Invalid(_) => return,
    };
    extensions.insert(handle);
    extensions.insert(parts.headers.clone());
    extensions.insert(parts.extensions.clone());
}

/// Hands a decoded POST to a session and builds the answer.
async fn post_to_session(
    session: &Arc<Session>,
    mut msg: Message,
    version: &str,
    activity: super::session::ActivityGuard,
    parts: &http::request::Parts,
) -> Result<Response, Response> {
    if let Message::Batch(_) = &msg {
        check_batch(version)?;
    }
    attach(session, &mut msg, parts);
    session.observe_inbound(&msg);
    let requests: Vec<_> = match &msg {
        Message::Request(r) => vec![(&r.id, r.params.as_deref(), &*r.method)],
        Message::Batch(items) => items
            .iter()
            .filter_map(|m| match m {
                Message::Request(r) => Some((&r.id, r.params.as_deref(), &*r.method)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    if requests.is_empty() {
        let inbound = session.inbound().map_err(|_| session_not_found())?;
        inbound.send(msg).await.map_err(|_| session_not_found())?;
        return Ok(accepted());
    }
    let opened = session
        .open_request_stream(&requests, version)
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
    drop(requests);
    let mut rx = opened.rx;
    if opened.inbound.send(msg).await.is_err() {
        return Err(session_not_found());
    }
    drop(opened.inbound);
    // The first frame decides: the response alone is plain JSON, anything else starts SSE.
    match rx.recv().await {
        Some(Frame::Json(body)) => {
            let mut res = Response::new(Body::from(body));
            res.headers_mut().insert(CONTENT_TYPE, JSON);
            Ok(res)
        }
        Some(Frame::Event(first)) => Ok(sse_response(
            VecDeque::from([first]),
            Some(rx),
            vec![Box::new(activity)],
        )),
        // Cancelled (no response will come), or the session ended meanwhile.
        None => Ok(sse_response(VecDeque::new(), None, Vec::new())),
    }
}

fn get(shared: Arc<Shared>, req: Request) -> Result<Response, Response> {
    let headers = req.headers();
    if !accepts(headers, "text", "event-stream") {
        return Err(reject_msg(
            StatusCode::NOT_ACCEPTABLE,
            SERVER_ERROR,
            "Not Acceptable: Accept must list text/event-stream",
        ));
    }
    let version = protocol_version(&shared, headers)?;
    let session = find_session(&shared, headers)?;
    let last = headers.get(LAST_EVENT_ID).and_then(|v| v.to_str().ok());
    let effective = session.effective_version(version.as_deref());
    let (prefix, rx) = session
        .open_get_stream(last, &effective)
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
            _ => session_not_found(),
        })?;
    Ok(sse_response(prefix, rx, vec![Box::new(session.activity())]))
}

fn delete(shared: &Shared, req: &Request) -> Result<Response, Response> {
    protocol_version(shared, req.headers())?;
    let session = find_session(shared, req.headers())?;
    session.end();
    Ok(status_only(StatusCode::OK))
}

// ---------------------------------------------------------------------------------------
// Legacy HTTP+SSE (2024-11-05).

pub(crate) async fn legacy_sse(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    if let Err(res) = check_host_origin(&shared, &req) {
        return res;
    }
    if !accepts(req.headers(), "text", "event-stream") {
        return reject_msg(
            StatusCode::NOT_ACCEPTABLE,
            SERVER_ERROR,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    let (parts, _) = req.into_parts();
    let Some(session) =
        shared.open_session(SessionKind::Legacy, None, parts.headers, parts.extensions)
    else {
        return too_many_sessions();
    };
    let Some(post_path) = shared.config.legacy.as_ref().map(|(_, p)| p) else {
        return status_only(StatusCode::NOT_FOUND);
    };
    let id = session.id.as_deref().unwrap_or_default();
    let endpoint = format!("{post_path}?sessionId={id}");
    let Ok((_, rx)) = session.open_get_stream(None, "2024-11-05") else {
        return session_not_found();
    };
    let prefix = VecDeque::from([sse::event(
        None,
        None,
        Some("endpoint"),
        endpoint.as_bytes(),
    )]);
    let guards: Vec<Guard> = vec![Box::new(session.activity()), Box::new(EndOnDrop(session))];
    sse_response(prefix, rx, guards)
}

pub(crate) async fn legacy_post(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    legacy_post_inner(shared, req)
        .await
        .unwrap_or_else(|res| res)
}

async fn legacy_post_inner(shared: Arc<Shared>, req: Request) -> Result<Response, Response> {
    check_host_origin(&shared, &req)?;
    if !is_json(req.headers()) {
        return Err(reject_msg(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            SERVER_ERROR,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    let id = req
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("sessionId=")))
        .map(str::to_owned);
    let Some(id) = id else {
        return Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            "Bad Request: sessionId is required",
        ));
    };
    let session = match shared.registry.get(&id) {
        Some(s) if s.kind == SessionKind::Legacy && !s.is_ended() => s,
        _ => return Err(session_not_found()),
    };
    let _activity = session.activity();
    let (parts, body) = req.into_parts();
    let body = read_body(&shared, &parts.headers, body).await?;
    let mut msg = decode(&shared, &body)?;
    if let Message::Batch(_) = msg {
        check_batch("2024-11-05")?;
    }
    attach(&session, &mut msg, &parts);
    let inbound = session.inbound().map_err(|_| session_not_found())?;
    inbound.send(msg).await.map_err(|_| session_not_found())?;
    Ok(accepted())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        let allowed: Vec<String> = super::super::config::LOCALHOST
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for ok in [
            "localhost",
            "localhost:3000",
            "127.0.0.1:1",
            "[::1]:8080",
            "[::1]",
            "LOCALHOST",
        ] {
            assert!(host_allowed(&allowed, ok), "{ok}");
        }
        for bad in [
            "evil.example.com",
            "evil.example.com:3000",
            "localhost.evil.com",
            "127.0.0.2",
        ] {
            assert!(!host_allowed(&allowed, bad), "{bad}");
        }
        assert!(origin_allowed(&allowed, "http://localhost:3000"));
        assert!(origin_allowed(&allowed, "https://[::1]"));
        assert!(!origin_allowed(&allowed, "http://evil.example.com"));
        assert!(!origin_allowed(&allowed, "null"));
        let pinned = vec!["https://app.example".to_owned()];
        assert!(origin_allowed(&pinned, "https://app.example"));
        assert!(!origin_allowed(&pinned, "http://app.example:81"));
    }

    #[test]
    fn accept_parsing() {
        let mut h = HeaderMap::new();
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json;q=0.9, text/event-stream"),
        );
        assert!(accepts(&h, "application", "json") && accepts(&h, "text", "event-stream"));
        h.insert(ACCEPT, HeaderValue::from_static("text/html"));
        assert!(!accepts(&h, "application", "json"));
        h.insert(ACCEPT, HeaderValue::from_static("*/*"));
        assert!(accepts(&h, "text", "event-stream"));
    }
}
