//! The legacy HTTP+SSE transport (2024-11-05): the SSE endpoint that opens a session and
//! names the POST endpoint, and that POST endpoint.

// The `Err` of these helpers is the HTTP response to send, built once per rejected request.
#![allow(clippy::result_large_err)]

use std::collections::VecDeque;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;
use http::header::CONTENT_LENGTH;

use super::checks::{accepts, check_host_origin, decode, is_json, owned_by_requester, read_body};
use super::shared::Shared;
use mcp_jsonrpc::Message;

use super::handlers::{Post, attach, check_batch};
use super::respond::{
    SERVER_ERROR, accepted, reject_msg, session_not_found, sse_response, status_only,
};
use super::session::{EndOnDrop, SessionKind};
use super::sse::{self, Guard};

pub(crate) async fn legacy_sse(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    if let Err(res) = check_host_origin(&shared, &req) {
        return res;
    }
    if !accepts(req.headers(), &[("text", "event-stream")]) {
        return reject_msg(
            StatusCode::NOT_ACCEPTABLE,
            SERVER_ERROR,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    let (parts, _) = req.into_parts();
    let session = match shared.open_session(
        SessionKind::Legacy,
        None,
        parts.version,
        parts.headers,
        parts.extensions,
    ) {
        Ok(session) => session,
        Err(res) => return res,
    };
    let Some(post_path) = shared.config.legacy.as_ref().map(|(_, p)| p) else {
        return status_only(StatusCode::NOT_FOUND);
    };
    let id = session.id.as_deref().unwrap_or_default();
    let endpoint = format!("{post_path}?sessionId={id}");
    let Ok((_, rx)) = session.open_get_stream(None, "2024-11-05").await else {
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
        Some(s)
            if s.kind == SessionKind::Legacy
                && !s.is_ended()
                && owned_by_requester(&shared, &s, req.extensions()) =>
        {
            s
        }
        _ => return Err(session_not_found()),
    };
    let _activity = session.activity();
    let (parts, body) = req.into_parts();
    let body = read_body(&shared, parts.headers.get(CONTENT_LENGTH), body).await?;
    let mut msg = decode(&shared, &body)?;
    if let Message::Batch(_) = msg {
        check_batch("2024-11-05")?;
    }
    attach(&session, &mut msg, &mut Post::new(parts));
    let inbound = session.inbound().map_err(|_| session_not_found())?;
    inbound.send(msg).await.map_err(|_| session_not_found())?;
    Ok(accepted())
}
