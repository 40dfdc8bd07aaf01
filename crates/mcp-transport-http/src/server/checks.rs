//! The checks of an incoming HTTP request: `Host` and `Origin` (DNS rebinding protection),
//! `Accept` and `Content-Type`, the `MCP-Protocol-Version` of legacy requests, the session, and
//! the body (bounded, then decoded).

// The `Err` of these helpers is the HTTP response to send, built once per rejected request.
#![allow(clippy::result_large_err)]

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, HeaderValue, StatusCode};
use mcp_jsonrpc::Message;

use super::respond::{
    SERVER_ERROR, body_timeout, reject, reject_msg, session_not_found, too_large,
};
use super::session::{Session, SessionKind};
use super::shared::Shared;

pub(crate) use crate::headers::{LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID};

/// The host part of an authority (`host[:port]`, `[v6][:port]`).
pub(crate) fn host_of(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |i| &authority[..=i]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

pub(crate) fn host_allowed(allowed: &[String], authority: &str) -> bool {
    let host = host_of(authority);
    allowed
        .iter()
        .any(|a| a.eq_ignore_ascii_case(authority) || a.eq_ignore_ascii_case(host))
}

pub(crate) fn origin_allowed(allowed: &[String], origin: &str) -> bool {
    let Some((_, rest)) = origin.split_once("://") else {
        // `null` and other opaque origins.
        return allowed.iter().any(|a| a == origin);
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    allowed.iter().any(|a| a.eq_ignore_ascii_case(origin)) || host_allowed(allowed, authority)
}

/// DNS rebinding protection: `Host` and `Origin` against the allow-lists, both read in one
/// pass over the headers (a lookup by name hashes the name and probes the map).
pub(crate) fn check_host_origin(shared: &Shared, req: &Request) -> Result<(), Response> {
    let cfg = &shared.config;
    if cfg.allowed_hosts.is_none() && cfg.allowed_origins.is_none() {
        return Ok(());
    }
    let mut host = None;
    let mut origins_allowed = true;
    for (name, value) in req.headers() {
        if name == HOST {
            host.get_or_insert(value);
        } else if name == ORIGIN
            && let Some(allowed) = &cfg.allowed_origins
        {
            // Every `Origin` header counts: one allowed value must not hide another.
            origins_allowed &= value.to_str().is_ok_and(|o| origin_allowed(allowed, o));
        }
    }
    if let Some(allowed) = &cfg.allowed_hosts {
        let authority = host
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
    if !origins_allowed {
        return Err(reject_msg(
            StatusCode::FORBIDDEN,
            SERVER_ERROR,
            "Forbidden: invalid Origin header",
        ));
    }
    Ok(())
}

/// The headers a POST's checks read, found in one pass over its headers, each the first of
/// its name as [`HeaderMap::get`] gives it. A lookup by name hashes the name and probes the
/// map; the five of a POST cost about 0.9k instructions a request (callgrind, the HTTP
/// bench's stateful `tools/call`).
pub(crate) struct PostHeaders<'a> {
    headers: &'a HeaderMap,
    accept: Option<&'a HeaderValue>,
    /// How many `Accept` headers there are.
    accepts: usize,
    pub(crate) content_type: Option<&'a HeaderValue>,
    pub(crate) content_length: Option<&'a HeaderValue>,
    pub(crate) protocol_version: Option<&'a HeaderValue>,
    session_id: Option<&'a HeaderValue>,
}

impl<'a> PostHeaders<'a> {
    pub(crate) fn read(headers: &'a HeaderMap) -> Self {
        let mut seen = PostHeaders {
            headers,
            accept: None,
            accepts: 0,
            content_type: None,
            content_length: None,
            protocol_version: None,
            session_id: None,
        };
        for (name, value) in headers {
            let slot = if name == ACCEPT {
                seen.accepts += 1;
                &mut seen.accept
            } else if name == CONTENT_TYPE {
                &mut seen.content_type
            } else if name == CONTENT_LENGTH {
                &mut seen.content_length
            } else if name == PROTOCOL_VERSION {
                &mut seen.protocol_version
            } else if name == SESSION_ID {
                &mut seen.session_id
            } else {
                continue;
            };
            slot.get_or_insert(value);
        }
        seen
    }

    /// [`accepts`] on these headers.
    pub(crate) fn accepts(&self, wanted: &[(&str, &str)]) -> bool {
        match self.accept {
            Some(only) if self.accepts == 1 && lists_exactly(only.as_bytes(), wanted) => true,
            _ => accepts(self.headers, wanted),
        }
    }

    /// The `Mcp-Session-Id` header's value, as [`session_header`] reads it.
    pub(crate) fn session_id(&self) -> Option<&'a str> {
        self.session_id.and_then(|v| v.to_str().ok())
    }
}

/// Whether the `Accept` headers list every one of `wanted` (`(type, subtype)`), each by name
/// or by a wildcard covering it. One pass over the items, whatever the number wanted.
pub(crate) fn accepts(headers: &HeaderMap, wanted: &[(&str, &str)]) -> bool {
    debug_assert!(wanted.len() <= 8, "a u8 tracks what was found");
    let values = headers.get_all(ACCEPT);
    // What clients send (`application/json, text/event-stream`, one header) is matched
    // without being parsed; anything else is parsed below.
    let mut iter = values.iter();
    if let (Some(only), None) = (iter.next(), iter.next())
        && lists_exactly(only.as_bytes(), wanted)
    {
        return true;
    }
    let all = (1u8 << wanted.len()) - 1;
    let mut found = 0u8;
    for value in values {
        // Each comma-separated item, its parameters (`;q=...`) dropped. Byte splits: the
        // separators are ASCII, and an item with other bytes matches no media type.
        for item in value.as_bytes().split(|b| *b == b',') {
            let media = item.split(|b| *b == b';').next().unwrap_or_default();
            let media = media.trim_ascii();
            for (i, (ty, sub)) in wanted.iter().enumerate() {
                if media_matches(media, ty.as_bytes(), sub.as_bytes()) {
                    found |= 1 << i;
                }
            }
            if found == all {
                return true;
            }
        }
    }
    found == all
}

/// Whether `value` is `wanted` itself: each `type/subtype` in that order, joined by `, `.
fn lists_exactly(value: &[u8], wanted: &[(&str, &str)]) -> bool {
    let mut rest = value;
    for (i, (ty, sub)) in wanted.iter().enumerate() {
        if i > 0 {
            let Some(after) = rest.strip_prefix(b", ") else {
                return false;
            };
            rest = after;
        }
        let Some(after) = rest
            .strip_prefix(ty.as_bytes())
            .and_then(|r| r.strip_prefix(b"/"))
            .and_then(|r| r.strip_prefix(sub.as_bytes()))
        else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
}

fn media_matches(media: &[u8], ty: &[u8], sub: &[u8]) -> bool {
    let (t, s) = match media.iter().position(|b| *b == b'/') {
        Some(i) => (&media[..i], &media[i + 1..]),
        None => (media, &b""[..]),
    };
    (t == b"*" && s == b"*")
        || (t.eq_ignore_ascii_case(ty) && (s == b"*" || s.eq_ignore_ascii_case(sub)))
}

pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    is_json_value(headers.get(CONTENT_TYPE))
}

/// Whether a `Content-Type` header's `value` is JSON.
pub(crate) fn is_json_value(value: Option<&HeaderValue>) -> bool {
    let Some(value) = value else {
        return false;
    };
    // What clients send, compared as it is; anything else is parsed.
    if value.as_bytes() == b"application/json" {
        return true;
    }
    value
        .to_str()
        .ok()
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .is_some_and(|v| v.eq_ignore_ascii_case("application/json"))
}

/// The `MCP-Protocol-Version` header's `value`, checked against the supported revisions (the
/// configuration's own string: no copy per request).
pub(crate) fn protocol_version<'a>(
    shared: &'a Shared,
    value: Option<&HeaderValue>,
) -> Result<Option<&'a str>, Response> {
    let Some(value) = value else {
        return Ok(None);
    };
    let supported = value
        .to_str()
        .ok()
        .and_then(|v| shared.config.protocol_versions.iter().find(|s| *s == v));
    match supported {
        Some(v) => Ok(Some(v)),
        None => Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            &format!(
                "Bad Request: unsupported MCP-Protocol-Version (supported: {})",
                shared.config.protocol_versions.join(", ")
            ),
        )),
    }
}

pub(crate) fn session_header(headers: &HeaderMap) -> Option<&str> {
    headers.get(SESSION_ID).and_then(|v| v.to_str().ok())
}

/// The session named by the `Mcp-Session-Id` header: 400 without one, 404 if unknown or if
/// it belongs to another principal than the request's.
pub(crate) fn find_session(
    shared: &Shared,
    headers: &HeaderMap,
    extensions: &http::Extensions,
) -> Result<Arc<Session>, Response> {
    find_named_session(shared, session_header(headers), extensions)
}

/// [`find_session`] with the header's value `id` already read.
pub(crate) fn find_named_session(
    shared: &Shared,
    id: Option<&str>,
    extensions: &http::Extensions,
) -> Result<Arc<Session>, Response> {
    let Some(id) = id else {
        return Err(reject_msg(
            StatusCode::BAD_REQUEST,
            SERVER_ERROR,
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    match shared.registry.get(id) {
        Some(s)
            if s.kind == SessionKind::Stateful
                && !s.is_ended()
                && owned_by_requester(shared, &s, extensions) =>
        {
            Ok(s)
        }
        _ => Err(session_not_found()),
    }
}

/// Whether the request's principal is the one the session is bound to (both none when no
/// principal is configured or the request carries none).
pub(crate) fn owned_by_requester(
    shared: &Shared,
    session: &Session,
    extensions: &http::Extensions,
) -> bool {
    let principal = shared.principal_of(extensions);
    if session.owner.principal != principal {
        tracing::debug!(session = ?session.id, "session named by another principal; answered 404");
        return false;
    }
    true
}

/// Reads the body, up to the size limit and within the body read timeout (408 after it).
/// `content_length` is the request's `Content-Length` header.
pub(crate) async fn read_body(
    shared: &Shared,
    content_length: Option<&HeaderValue>,
    body: Body,
) -> Result<Bytes, Response> {
    let Some(timeout) = shared.config.body_read_timeout else {
        return read_body_unbounded(shared, content_length, body).await;
    };
    // A body that came with its headers (the usual case) is read in the first poll: the
    // timer (a clock read, and a timer entry) starts only if that poll waits.
    let mut read = pin!(read_body_unbounded(shared, content_length, body));
    let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
    std::future::poll_fn(|cx| {
        if let Poll::Ready(body) = read.as_mut().poll(cx) {
            return Poll::Ready(body);
        }
        let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(body_timeout())),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// Reads the body, up to the size limit.
async fn read_body_unbounded(
    shared: &Shared,
    content_length: Option<&HeaderValue>,
    body: Body,
) -> Result<Bytes, Response> {
    let limit = shared.config.max_body_size;
    let declared = content_length
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    // A body that arrives in one chunk (the usual case) is that chunk, not a copy of it.
    let mut first = Bytes::new();
    let mut joined: Option<BytesMut> = None;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            reject_msg(
                StatusCode::BAD_REQUEST,
                SERVER_ERROR,
                "Bad Request: failed to read the body",
            )
        })?;
        let len = joined.as_ref().map_or(first.len(), BytesMut::len);
        if len + chunk.len() > limit {
            return Err(too_large());
        }
        match &mut joined {
            Some(buf) => buf.extend_from_slice(&chunk),
            None if first.is_empty() => first = chunk,
            None => {
                let mut buf = BytesMut::with_capacity(declared.unwrap_or(0).max(len + chunk.len()));
                buf.extend_from_slice(&first);
                buf.extend_from_slice(&chunk);
                joined = Some(buf);
            }
        }
    }
    Ok(joined.map_or(first, BytesMut::freeze))
}

/// Decodes a POST body; a bad frame is answered 400 with its JSON-RPC error.
pub(crate) fn decode(shared: &Shared, body: &[u8]) -> Result<Message, Response> {
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

#[cfg(test)]
mod tests {
    use http::HeaderValue;

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
    fn the_usual_accept_is_matched_as_it_is_and_the_rest_is_parsed() {
        let both = [("application", "json"), ("text", "event-stream")];
        assert!(lists_exactly(b"application/json, text/event-stream", &both));
        // Anything else goes to the parser, which still accepts these ...
        for other in [
            "text/event-stream, application/json",
            "application/json,text/event-stream",
            "Application/JSON, text/event-stream",
            "application/json, text/event-stream, */*",
        ] {
            assert!(!lists_exactly(other.as_bytes(), &both), "{other}");
            let mut h = HeaderMap::new();
            h.insert(ACCEPT, HeaderValue::from_str(other).unwrap());
            assert!(accepts(&h, &both), "{other}");
        }
        // ... and refuses these.
        for short in ["application/json", "application/json, text/event-strea", ""] {
            assert!(!lists_exactly(short.as_bytes(), &both), "{short}");
            let mut h = HeaderMap::new();
            h.insert(ACCEPT, HeaderValue::from_str(short).unwrap());
            assert!(!accepts(&h, &both), "{short}");
        }
    }

    #[test]
    fn content_type_json_with_or_without_parameters() {
        let mut h = HeaderMap::new();
        assert!(!is_json(&h));
        for (value, json) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("application/jsonx", false),
            ("text/plain", false),
        ] {
            h.insert(CONTENT_TYPE, HeaderValue::from_static(value));
            assert_eq!(is_json(&h), json, "{value}");
        }
    }

    #[test]
    fn post_headers_are_the_first_of_each_name_as_get_reads_them() {
        let mut h = HeaderMap::new();
        h.insert(HOST, HeaderValue::from_static("localhost"));
        h.append(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.append(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        h.insert(CONTENT_LENGTH, HeaderValue::from_static("42"));
        h.insert(PROTOCOL_VERSION, HeaderValue::from_static("2025-06-18"));
        h.append(SESSION_ID, HeaderValue::from_static("first"));
        h.append(SESSION_ID, HeaderValue::from_static("second"));
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let seen = PostHeaders::read(&h);
        assert_eq!(seen.content_type, h.get(CONTENT_TYPE));
        assert_eq!(seen.content_length, h.get(CONTENT_LENGTH));
        assert_eq!(seen.protocol_version, h.get(PROTOCOL_VERSION));
        assert_eq!(seen.session_id(), session_header(&h));
        assert_eq!(seen.session_id(), Some("first"));
        let both = [("application", "json"), ("text", "event-stream")];
        assert!(seen.accepts(&both));

        let none = HeaderMap::new();
        let seen = PostHeaders::read(&none);
        assert!(seen.content_type.is_none() && seen.content_length.is_none());
        assert!(seen.protocol_version.is_none() && seen.session_id().is_none());
        assert!(!seen.accepts(&both));

        // A session id that is not text is no session id, as `session_header` reads it.
        let mut h = HeaderMap::new();
        h.insert(SESSION_ID, HeaderValue::from_bytes(b"\xff").unwrap());
        assert_eq!(PostHeaders::read(&h).session_id(), None);
    }

    #[test]
    fn post_headers_parse_accept_split_over_several_headers() {
        let both = [("application", "json"), ("text", "event-stream")];
        let mut h = HeaderMap::new();
        h.append(ACCEPT, HeaderValue::from_static("application/json"));
        h.append(ACCEPT, HeaderValue::from_static("text/event-stream"));
        assert!(PostHeaders::read(&h).accepts(&both));
        // The usual value followed by another: still every header is read.
        let mut h = HeaderMap::new();
        h.append(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        h.append(ACCEPT, HeaderValue::from_static("text/html"));
        assert!(PostHeaders::read(&h).accepts(&both));
        let mut h = HeaderMap::new();
        h.append(ACCEPT, HeaderValue::from_static("application/json"));
        h.append(ACCEPT, HeaderValue::from_static("text/html"));
        assert!(!PostHeaders::read(&h).accepts(&both));
    }

    #[test]
    fn accept_parsing() {
        let mut h = HeaderMap::new();
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json;q=0.9, text/event-stream"),
        );
        assert!(accepts(
            &h,
            &[("application", "json"), ("text", "event-stream")]
        ));
        h.insert(ACCEPT, HeaderValue::from_static("text/html"));
        assert!(!accepts(&h, &[("application", "json")]));
        // Every one wanted must be there: one of the two is not enough.
        h.insert(ACCEPT, HeaderValue::from_static("application/json"));
        assert!(accepts(&h, &[("application", "json")]));
        assert!(!accepts(
            &h,
            &[("application", "json"), ("text", "event-stream")]
        ));
        h.insert(ACCEPT, HeaderValue::from_static("*/*"));
        assert!(accepts(&h, &[("text", "event-stream")]));
        h.insert(
            ACCEPT,
            HeaderValue::from_static(" Text/* ; q=1,application"),
        );
        assert!(accepts(&h, &[("text", "event-stream")]));
        assert!(!accepts(&h, &[("application", "json")]));
        h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        h.append(ACCEPT, HeaderValue::from_static("APPLICATION/JSON"));
        assert!(accepts(
            &h,
            &[("application", "json"), ("text", "event-stream")]
        ));
        h.clear();
        assert!(!accepts(&h, &[("text", "event-stream")]));
    }
}
