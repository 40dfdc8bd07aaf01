//! Sessions held by another instance ([`Builder::directory`](super::Builder::directory)):
//! forwarding a request to the instance holding its session, or taking the session over when
//! that instance cannot be reached.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderName, HeaderValue, StatusCode, header};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;

use crate::headers::PROTOCOL_VERSION;

use super::config::Directory;
use super::directory::SessionRecord;
use super::respond::{SERVER_ERROR, reject_msg, status_only};
use super::shared::{ForwardClient, Shared};

/// Marks a request one instance forwarded to another: it is never forwarded again.
const FORWARDED_BY: HeaderName = HeaderName::from_static("mcp-forwarded-by");

/// What [`resolve`] decided.
pub(crate) enum Resolved {
    /// Serve the request here: the session is now held here, or it is unknown (answered 404
    /// as usual).
    Local(Request),
    /// The request was answered (by the holder, relayed, or with an error).
    Answered(Response),
}

/// Runs the forwarding client's connection tasks through the service's
/// [`Spawner`](super::Spawner), the one place this crate starts tasks.
#[derive(Clone)]
struct ThroughSpawner(Arc<super::config::Config>);

impl<F> hyper::rt::Executor<F> for ThroughSpawner
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    fn execute(&self, future: F) {
        self.0.spawner.0.spawn(Box::pin(future));
    }
}

fn client(shared: &Shared) -> &ForwardClient {
    shared.forward_client.get_or_init(|| {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(shared.config.forward_connect_timeout));
        Client::builder(ThroughSpawner(shared.config.clone())).build(connector)
    })
}

/// Finds where the session `id` (not held here) lives: forwards the request to its holder,
/// or takes the session over here when the holder cannot be reached.
pub(crate) async fn resolve(
    shared: &Arc<Shared>,
    directory: &Directory,
    id: &str,
    req: Request,
) -> Resolved {
    let remembered = shared.holders.get(id);
    let from_memory = remembered.is_some();
    let record = match remembered {
        Some(record) => record,
        None => match read(directory, id).await {
            Ok(Some(record)) => record,
            Ok(None) => return Resolved::Local(req),
            Err(response) => return Resolved::Answered(response),
        },
    };
    // Another principal's session is unknown to this request (404), wherever it lives.
    if record.principal.as_deref() != shared.principal_of(req.extensions()).as_deref() {
        return Resolved::Local(req);
    }
    let me = &*directory.instance_url;
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, shared.config.max_body_size).await else {
        return Resolved::Answered(status_only(StatusCode::PAYLOAD_TOO_LARGE));
    };
    let mut record = record;
    let mut expected_home = record.home.clone();
    if record.home != me {
        if parts.headers.contains_key(&FORWARDED_BY) {
            // Forwarded here by an instance that took this one for the holder: the session
            // moved meanwhile. Never forward twice; the client retries.
            return Resolved::Answered(unavailable());
        }
        shared.holders.remember(&record);
        match forward(shared, &record.home, &parts, body.clone()).await {
            Ok(response) => return Resolved::Answered(response),
            Err(Failure::Unreachable) => shared.holders.forget(id),
            Err(Failure::Other(e)) => {
                tracing::warn!(session = id, holder = %record.home, error = %e, "forwarding failed");
                return Resolved::Answered(status_only(StatusCode::BAD_GATEWAY));
            }
        }
        if from_memory {
            // What this instance remembered may be stale: the directory decides.
            record = match read(directory, id).await {
                Ok(Some(fresh)) => fresh,
                Ok(None) => return Resolved::Local(Request::from_parts(parts, Body::from(body))),
                Err(response) => return Resolved::Answered(response),
            };
            if record.home != me && record.home != expected_home {
                // Another instance took it over meanwhile: forward there, once.
                return match forward(shared, &record.home, &parts, body).await {
                    Ok(response) => {
                        shared.holders.remember(&record);
                        Resolved::Answered(response)
                    }
                    Err(_) => Resolved::Answered(unavailable()),
                };
            }
            expected_home = record.home.clone();
        }
        tracing::info!(session = id, holder = %expected_home, "session holder unreachable; taking the session over");
    } else {
        // The directory says this instance holds it, but it does not: this instance
        // restarted. Taking it over again raises the generation all the same.
        expected_home = me.to_owned();
    }
    let req = Request::from_parts(parts, Body::from(body));
    take_over(shared, directory, id, &expected_home, req).await
}

/// The session's record in the directory (`None` if unknown), or the 503 to answer when the
/// directory cannot be read.
async fn read(directory: &Directory, id: &str) -> Result<Option<SessionRecord>, Response> {
    directory.sessions.get(id).await.map_err(|e| {
        tracing::warn!(session = id, error = %e, "session directory: lookup failed");
        unavailable()
    })
}

/// Claims the session in the directory and starts it here.
async fn take_over(
    shared: &Arc<Shared>,
    directory: &Directory,
    id: &str,
    expected_home: &str,
    req: Request,
) -> Resolved {
    // One takeover at a time in this instance, so two requests of one session racing here
    // start it once.
    let _one = shared.takeovers.lock().await;
    if shared.registry.get(id).is_some() {
        return Resolved::Local(req);
    }
    let me = &*directory.instance_url;
    let record = match directory.sessions.claim(id, expected_home, me).await {
        Ok(Some(record)) => record,
        Ok(None) => {
            // Another instance claimed it first (or it ended): the client's retry finds it.
            return Resolved::Answered(unavailable());
        }
        Err(e) => {
            tracing::warn!(session = id, error = %e, "session directory: claim failed");
            return Resolved::Answered(unavailable());
        }
    };
    let version = req
        .headers()
        .get(PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match shared.take_over_session(
        id,
        record.generation,
        version,
        req.version(),
        req.headers().clone(),
        req.extensions().clone(),
    ) {
        Ok(_) => Resolved::Local(req),
        Err(response) => Resolved::Answered(response),
    }
}

/// Why forwarding failed.
enum Failure {
    /// The holder could not be connected to: it is gone.
    Unreachable,
    Other(String),
}

/// Sends the request to `home` and relays its answer (streamed: an SSE answer stays one).
async fn forward(
    shared: &Shared,
    home: &str,
    parts: &http::request::Parts,
    body: Bytes,
) -> Result<Response, Failure> {
    let uri: http::Uri = home
        .parse()
        .map_err(|e| Failure::Other(format!("holder URL {home:?}: {e}")))?;
    let mut request = http::Request::builder()
        .method(parts.method.clone())
        .uri(uri)
        .body(Body::from(body))
        .map_err(|e| Failure::Other(e.to_string()))?;
    let headers = request.headers_mut();
    for (name, value) in &parts.headers {
        if !is_hop_by_hop(name) {
            headers.append(name.clone(), value.clone());
        }
    }
    if let Some(directory) = &shared.config.directory
        && let Ok(me) = HeaderValue::from_str(&directory.instance_url)
    {
        headers.insert(FORWARDED_BY, me);
    }
    match client(shared).request(request).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Ok(Response::from_parts(parts, Body::new(body)))
        }
        Err(e) if e.is_connect() => Err(Failure::Unreachable),
        Err(e) => Err(Failure::Other(e.to_string())),
    }
}

/// Headers that belong to one connection, not to the message ([RFC 9110 section 7.6.1]).
fn is_hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        *name,
        header::CONNECTION
            | header::TRANSFER_ENCODING
            | header::TE
            | header::TRAILER
            | header::UPGRADE
            | header::PROXY_AUTHORIZATION
            | header::PROXY_AUTHENTICATE
    ) || name.as_str() == "keep-alive"
}

fn strip_hop_by_hop(headers: &mut http::HeaderMap) {
    let hop: Vec<HeaderName> = headers
        .keys()
        .filter(|n| is_hop_by_hop(n))
        .cloned()
        .collect();
    for name in hop {
        headers.remove(&name);
    }
}

/// 503: the directory could not be read, or the session is moving between instances.
fn unavailable() -> Response {
    reject_msg(
        StatusCode::SERVICE_UNAVAILABLE,
        SERVER_ERROR,
        "Service Unavailable: the session's instance could not be determined; retry",
    )
}
