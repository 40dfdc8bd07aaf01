//! Responses the endpoint builds itself: JSON-RPC error bodies with an HTTP status, 202, and
//! SSE streams.

use std::collections::VecDeque;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, StatusCode};
use mcp_jsonrpc::{ErrorObject, Id};
use serde::Serialize;

use super::sse::{Frame, Guard, SseBody};

/// `application/json`.
pub(crate) const JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");

/// `-32000`, the generic server error the spec's examples use for transport rejections.
pub(crate) const SERVER_ERROR: i32 = -32000;
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

pub(crate) fn reject_msg(status: StatusCode, code: i32, message: &str) -> Response {
    reject(status, ErrorObject::new(code, message), None)
}

pub(crate) fn status_only(status: StatusCode) -> Response {
    let mut res = Response::new(Body::empty());
    *res.status_mut() = status;
    res
}

pub(crate) fn method_not_allowed(allow: &'static str) -> Response {
    let mut res = reject_msg(
        StatusCode::METHOD_NOT_ALLOWED,
        SERVER_ERROR,
        "Method not allowed",
    );
    res.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    res
}

pub(crate) fn session_not_found() -> Response {
    reject_msg(
        StatusCode::NOT_FOUND,
        SESSION_NOT_FOUND,
        "Session not found",
    )
}

pub(crate) fn too_large() -> Response {
    reject_msg(
        StatusCode::PAYLOAD_TOO_LARGE,
        SERVER_ERROR,
        "Payload too large",
    )
}

pub(crate) fn sse_response(
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

pub(crate) fn accepted() -> Response {
    status_only(StatusCode::ACCEPTED)
}

pub(crate) fn too_many_sessions() -> Response {
    reject_msg(
        StatusCode::SERVICE_UNAVAILABLE,
        SERVER_ERROR,
        "Service Unavailable: too many sessions",
    )
}

pub(crate) fn too_many_sessions_for_client() -> Response {
    reject_msg(
        StatusCode::TOO_MANY_REQUESTS,
        SERVER_ERROR,
        "Too Many Requests: this client has too many sessions",
    )
}

pub(crate) fn body_timeout() -> Response {
    reject_msg(
        StatusCode::REQUEST_TIMEOUT,
        SERVER_ERROR,
        "Request Timeout: the body was not received in time",
    )
}

/// A resumption whose events are gone: the client cannot get them back and must re-issue
/// its requests.
pub(crate) fn events_lost() -> Response {
    reject_msg(
        StatusCode::GONE,
        SERVER_ERROR,
        "Gone: events after Last-Event-ID were dropped from the event store; \
         the stream cannot be resumed",
    )
}

/// 410 for a resumption of a stream whose instance stopped before answering (see
/// `Builder::directory`): everything it stored was replayed, and its requests will not be
/// answered.
pub(crate) fn holder_gone() -> Response {
    reject_msg(
        StatusCode::GONE,
        SERVER_ERROR,
        "Gone: the server instance serving this stream stopped before answering its requests; \
         everything it sent was replayed",
    )
}
