//! The auth provider: the `Authorization` header, 401 and 403 `insufficient_scope`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{Method, StatusCode};
use axum::response::Response;
use futures::FutureExt;
use futures::future::BoxFuture;
use mcp_jsonrpc::BoxError;
use mcp_transport_http::client::{
    AuthChallenge, AuthProvider, StreamableHttpClientTransport, auth_provider_fn,
};
use reqwest::header::HeaderValue;
use serde_json::json;
use tokio::sync::mpsc;

use super::legacy::tokio_stream_shim::ReceiverStream;
use super::support::*;

const METADATA: &str = "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp";

/// A provider that hands out `token` and, when refused, records the challenge and switches
/// to the next of `tokens` (answering `true`), or answers `false` when none is left.
struct TestAuth {
    token: Mutex<Option<String>>,
    tokens: Mutex<Vec<String>>,
    challenges: Mutex<Vec<AuthChallenge>>,
    /// How long `on_unauthorized` takes.
    delay: Duration,
    /// While set, `authorization` waits on it: requests get their header together.
    gate: Mutex<Option<Arc<tokio::sync::Barrier>>>,
}

impl TestAuth {
    fn new(token: Option<&str>, tokens: &[&str]) -> Arc<TestAuth> {
        Arc::new(TestAuth {
            token: Mutex::new(token.map(str::to_owned)),
            tokens: Mutex::new(tokens.iter().rev().map(|t| (*t).to_owned()).collect()),
            challenges: Mutex::new(Vec::new()),
            delay: Duration::ZERO,
            gate: Mutex::new(None),
        })
    }

    fn challenges(&self) -> Vec<AuthChallenge> {
        self.challenges.lock().unwrap().clone()
    }
}

impl AuthProvider for TestAuth {
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> {
        let header = self
            .token
            .lock()
            .unwrap()
            .as_ref()
            .map(|t| format!("Bearer {t}"));
        let gate = self.gate.lock().unwrap().clone();
        async move {
            if let Some(gate) = gate {
                gate.wait().await;
            }
            Ok(header.map(HeaderValue::try_from).transpose()?)
        }
        .boxed()
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>> {
        self.challenges.lock().unwrap().push(challenge);
        *self.gate.lock().unwrap() = None;
        let next = self.tokens.lock().unwrap().pop();
        let delay = self.delay;
        let answer = next.is_some();
        if let Some(next) = next {
            *self.token.lock().unwrap() = Some(next);
        }
        async move {
            tokio::time::sleep(delay).await;
            Ok(answer)
        }
        .boxed()
    }
}

fn challenge(status_code: StatusCode, value: String) -> Response {
    let mut resp = status(status_code);
    resp.headers_mut()
        .insert("www-authenticate", value.parse().unwrap());
    resp
}

fn unauthorized() -> Response {
    challenge(
        StatusCode::UNAUTHORIZED,
        format!(r#"Bearer resource_metadata="{METADATA}", scope="mcp:read""#),
    )
}

/// The transport for `server` with `auth`.
fn connect(server: &TestServer, auth: impl AuthProvider) -> Client {
    Client::new(
        StreamableHttpClientTransport::builder(&server.url)
            .auth(auth)
            .build()
            .unwrap(),
    )
}

/// Fails if a call takes more than 10 s.
async fn within<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("no hang")
}

#[tokio::test]
async fn a_401_runs_the_flow_then_every_request_carries_the_token() {
    let server = serve(|rec| {
        if rec.header("authorization") != Some("Bearer good") {
            return unauthorized();
        }
        match (rec.method.clone(), rec.rpc_method().as_deref()) {
            (Method::POST, Some("initialize")) => {
                let mut resp = json(StatusCode::OK, init_result(rec, "2025-11-25"));
                resp.headers_mut()
                    .insert("mcp-session-id", "s1".parse().unwrap());
                resp
            }
            (Method::POST, Some("ping")) => json(StatusCode::OK, result(rec, json!({}))),
            (Method::GET, _) => sse_open("id: g1\ndata: \n\n"),
            (Method::DELETE, _) => status(StatusCode::OK),
            _ => status(StatusCode::ACCEPTED),
        }
    })
    .await;
    let auth = TestAuth::new(None, &["good"]);
    let client = connect(&server, auth.clone());
    within(client.initialize()).await;
    assert_eq!(
        within(client.call("ping", json!({}))).await.unwrap(),
        json!({})
    );
    server
        .wait_for("the get stream", |log| {
            log.iter().any(|r| r.method == Method::GET)
        })
        .await;
    client.close().await;

    // One flow, given the parsed challenge of the refused initialize.
    let challenges = auth.challenges();
    assert_eq!(challenges.len(), 1);
    let c = &challenges[0];
    assert_eq!(c.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(c.url().as_str(), server.url);
    assert_eq!(c.resource_metadata().unwrap().as_str(), METADATA);
    assert_eq!(c.scope(), Some("mcp:read"));
    assert!(!c.is_insufficient_scope());

    // The refused POST, then the same one again with the token, then everything with it.
    let log = server.log();
    let inits = server.posts_of("initialize");
    assert_eq!(inits.len(), 2);
    assert_eq!(inits[0].header("authorization"), None);
    assert_eq!(inits[1].json(), inits[0].json());
    assert_eq!(log[0].header("authorization"), None);
    assert!(
        log[1..]
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer good")),
        "{log:#?}"
    );
    for method in [Method::POST, Method::GET, Method::DELETE] {
        assert!(log[1..].iter().any(|r| r.method == method), "a {method}");
    }
    assert_eq!(server.posts_of("notifications/initialized").len(), 1);
    assert_eq!(server.posts_of("ping").len(), 1);
    // The token is never in the URL.
    assert!(
        log.iter()
            .all(|r| r.uri.query().is_none() && r.uri.path() == "/mcp")
    );
}

#[tokio::test]
async fn a_403_insufficient_scope_steps_up_and_retries() {
    let server = serve(|rec| {
        let token = rec.header("authorization").unwrap_or("");
        match rec.rpc_method().as_deref() {
            Some("initialize") => json(StatusCode::OK, init_result(rec, "2025-11-25")),
            Some("tools/call") if token != "Bearer write" => challenge(
                StatusCode::FORBIDDEN,
                format!(
                    r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="{METADATA}", error_description="writing needs mcp:write""#
                ),
            ),
            Some("tools/call") => json(StatusCode::OK, result(rec, json!({"content": []}))),
            _ if rec.method == Method::GET => status(StatusCode::METHOD_NOT_ALLOWED),
            _ => status(StatusCode::ACCEPTED),
        }
    })
    .await;
    let auth = TestAuth::new(Some("read"), &["write"]);
    let client = connect(&server, auth.clone());
    within(client.initialize()).await;
    let result = within(client.call("tools/call", json!({"name": "write"}))).await;
    assert_eq!(result.unwrap(), json!({"content": []}));

    let challenges = auth.challenges();
    assert_eq!(challenges.len(), 1);
    let c = &challenges[0];
    assert_eq!(c.status(), StatusCode::FORBIDDEN);
    assert!(c.is_insufficient_scope());
    assert_eq!(c.scope(), Some("mcp:read mcp:write"));
    assert_eq!(c.error_description(), Some("writing needs mcp:write"));
    let calls = server.posts_of("tools/call");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].header("authorization"), Some("Bearer read"));
    assert_eq!(calls[1].header("authorization"), Some("Bearer write"));
    assert_eq!(
        calls[1].json(),
        calls[0].json(),
        "the same request, sent again"
    );
    client.close().await;
}

#[tokio::test]
async fn a_server_refusing_every_token_fails_the_request_after_the_retry_limit() {
    let server = serve(|_| unauthorized()).await;
    // The provider would go on forever.
    let tokens: Vec<String> = (0..100).map(|n| format!("t{n}")).collect();
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let auth = TestAuth::new(None, &tokens);
    let client = connect(&server, auth.clone());
    let err = within(client.call("initialize", json!({"protocolVersion": "2025-11-25"})))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: not authorized: http status 401 Unauthorized (scope \
         `mcp:read`) (-32603)"
    );
    let mcp_jsonrpc::Error::Rpc(object) = err else {
        panic!("not an rpc error: {err}")
    };
    assert_eq!(
        object.data,
        Some(json!({
            "status": 401,
            "wwwAuthenticate": [format!(r#"Bearer resource_metadata="{METADATA}", scope="mcp:read""#)]
        }))
    );
    // The first POST and 2 retries, each after a flow; no legacy fallback on a 401.
    assert_eq!(auth.challenges().len(), 2);
    let posts = server.requests(Method::POST);
    let sent: Vec<_> = posts.iter().map(|r| r.header("authorization")).collect();
    assert_eq!(sent, [None, Some("Bearer t0"), Some("Bearer t1")]);
    assert!(server.requests(Method::GET).is_empty());
    client.close().await;

    // The limit is configurable; 0 means no retry at all.
    let server = serve(|_| unauthorized()).await;
    let auth = TestAuth::new(None, &["t0"]);
    let client = Client::new(
        StreamableHttpClientTransport::builder(&server.url)
            .auth(auth.clone())
            .max_auth_retries(0)
            .build()
            .unwrap(),
    );
    let err = within(client.call("initialize", json!({})))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not authorized"), "{err}");
    assert_eq!(auth.challenges().len(), 0);
    assert_eq!(server.requests(Method::POST).len(), 1);
    client.close().await;
}

#[tokio::test]
async fn concurrent_401s_make_one_call_to_the_provider() {
    let valid = Arc::new(Mutex::new("t1".to_owned()));
    let refused = Arc::new(AtomicUsize::new(0));
    let server = {
        let (valid, refused) = (valid.clone(), refused.clone());
        serve(move |rec| {
            let expected = format!("Bearer {}", valid.lock().unwrap());
            if rec.header("authorization") != Some(expected.as_str()) {
                refused.fetch_add(1, Ordering::SeqCst);
                return unauthorized();
            }
            match rec.rpc_method().as_deref() {
                Some("initialize") => json(StatusCode::OK, init_result(rec, "2025-11-25")),
                Some("ping") => json(StatusCode::OK, result(rec, json!({}))),
                _ if rec.method == Method::GET => status(StatusCode::METHOD_NOT_ALLOWED),
                _ => status(StatusCode::ACCEPTED),
            }
        })
        .await
    };
    let auth = Arc::new(TestAuth {
        delay: Duration::from_millis(200),
        ..Arc::into_inner(TestAuth::new(Some("t1"), &["t2"])).unwrap()
    });
    let client = connect(&server, auth.clone());
    within(client.initialize()).await;
    assert_eq!(refused.load(Ordering::SeqCst), 0);

    // `initialized` and the GET are done once the GET is seen.
    server
        .wait_for("the get stream", |log| {
            log.iter().any(|r| r.method == Method::GET)
        })
        .await;
    // The token is revoked; five requests in flight (all sent with it) get 401.
    *valid.lock().unwrap() = "t2".to_owned();
    *auth.gate.lock().unwrap() = Some(Arc::new(tokio::sync::Barrier::new(5)));
    let pings = (0..5).map(|_| client.call("ping", json!({})));
    let results = within(futures::future::join_all(pings)).await;
    assert!(
        results.iter().all(|r| r.as_ref().ok() == Some(&json!({}))),
        "{results:?}"
    );
    assert_eq!(auth.challenges().len(), 1, "one flow for all the refusals");
    assert_eq!(refused.load(Ordering::SeqCst), 5);
    let pings = server.posts_of("ping");
    let ok = pings
        .iter()
        .filter(|r| r.header("authorization") == Some("Bearer t2"))
        .count();
    assert_eq!(ok, 5);
    client.close().await;
}

#[tokio::test]
async fn a_provider_that_gives_up_fails_the_request_at_once() {
    let server = serve(|_| unauthorized()).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let provider = {
        let calls = calls.clone();
        auth_provider_fn(
            || async { Ok(Some(HeaderValue::from_static("Bearer stale"))) }.boxed(),
            move |challenge| {
                calls.fetch_add(1, Ordering::SeqCst);
                assert_eq!(challenge.scope(), Some("mcp:read"));
                async { Ok(false) }.boxed()
            },
        )
    };
    let client = connect(&server, provider);
    let err = within(client.call("initialize", json!({})))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("not authorized: http status 401"),
        "{err}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(server.requests(Method::POST).len(), 1);
    client.close().await;
}

#[tokio::test]
async fn provider_errors_and_other_403s_fail_the_request() {
    // A provider that cannot give a header.
    let server = serve(|_| status(StatusCode::ACCEPTED)).await;
    let provider = auth_provider_fn(
        || async { Err::<Option<HeaderValue>, BoxError>("no token store".into()) }.boxed(),
        |_| async { Ok(true) }.boxed(),
    );
    let client = connect(&server, provider);
    let err = within(client.call("initialize", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: the auth provider failed: no token store (-32603)"
    );
    assert!(server.log().is_empty());
    client.close().await;

    // A 403 that is not about scopes is an ordinary error: no flow, no retry.
    let server = serve(|_| {
        challenge(
            StatusCode::FORBIDDEN,
            r#"Bearer error="invalid_token""#.into(),
        )
    })
    .await;
    let auth = TestAuth::new(Some("x"), &["y"]);
    let client = connect(&server, auth.clone());
    let err = within(client.call("initialize", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "peer returned an error: http status 403 Forbidden (-32603)"
    );
    assert!(auth.challenges().is_empty());
    assert_eq!(server.requests(Method::POST).len(), 1);
    client.close().await;
}

#[tokio::test]
async fn the_legacy_fallback_is_authorized_too() {
    let (events_tx, events_rx) = mpsc::unbounded_channel::<String>();
    let events_rx = Arc::new(Mutex::new(Some(events_rx)));
    let server = serve(move |rec| {
        if rec.header("authorization") != Some("Bearer good") {
            return unauthorized();
        }
        match (rec.method.clone(), rec.uri.path()) {
            (Method::POST, "/mcp") => status(StatusCode::METHOD_NOT_ALLOWED),
            (Method::GET, "/mcp") => {
                let Some(rx) = events_rx.lock().unwrap().take() else {
                    return status(StatusCode::CONFLICT);
                };
                events_tx
                    .send("event: endpoint\ndata: /messages?session=abc\n\n".into())
                    .unwrap();
                sse_stream(ReceiverStream(rx))
            }
            (Method::POST, "/messages") => {
                if !rec.rpc_id().is_null() {
                    events_tx
                        .send(event(&init_result(rec, "2024-11-05")))
                        .unwrap();
                }
                status(StatusCode::ACCEPTED)
            }
            _ => status(StatusCode::NOT_FOUND),
        }
    })
    .await;
    let auth = TestAuth::new(None, &["good"]);
    let client = connect(&server, auth.clone());
    let init = within(client.initialize()).await;
    assert_eq!(init["protocolVersion"], "2024-11-05");
    server
        .wait_for("notifications/initialized", |log| log.len() == 5)
        .await;
    assert_eq!(auth.challenges().len(), 1);
    let log = server.log();
    // The refused POST, the same POST authorized (405), the legacy GET, the legacy POSTs.
    let seen: Vec<_> = log
        .iter()
        .map(|r| {
            (
                r.method.as_str().to_owned(),
                r.uri.path().to_owned(),
                r.header("authorization").map(str::to_owned),
            )
        })
        .collect();
    let good = Some("Bearer good".to_owned());
    assert_eq!(
        seen,
        [
            ("POST".into(), "/mcp".into(), None),
            ("POST".into(), "/mcp".into(), good.clone()),
            ("GET".into(), "/mcp".into(), good.clone()),
            ("POST".into(), "/messages".into(), good.clone()),
            ("POST".into(), "/messages".into(), good.clone()),
        ]
    );
    client.close().await;
}

#[tokio::test]
async fn a_refused_get_stream_reconnection_is_authorized_and_resumed() {
    let valid = Arc::new(Mutex::new("t1".to_owned()));
    let server = {
        let valid = valid.clone();
        serve(move |rec| {
            let expected = format!("Bearer {}", valid.lock().unwrap());
            if rec.header("authorization") != Some(expected.as_str()) {
                return unauthorized();
            }
            match (rec.method.clone(), rec.rpc_method().as_deref()) {
                (Method::POST, Some("initialize")) => {
                    json(StatusCode::OK, init_result(rec, "2025-11-25"))
                }
                (Method::GET, _) if rec.header("last-event-id").is_none() => {
                    // The first GET stream ends at once (retry 20 ms), and the token
                    // expires meanwhile.
                    *valid.lock().unwrap() = "t2".to_owned();
                    sse("id: g1\nretry: 20\ndata: \n\n")
                }
                (Method::GET, _) => sse_open("id: g2\ndata: \n\n"),
                _ => status(StatusCode::ACCEPTED),
            }
        })
        .await
    };
    let auth = TestAuth::new(Some("t1"), &["t2"]);
    let client = connect(&server, auth.clone());
    within(client.initialize()).await;
    server
        .wait_for("the resumed get stream", |log| {
            log.iter()
                .any(|r| r.method == Method::GET && r.header("authorization") == Some("Bearer t2"))
        })
        .await;
    let gets = server.requests(Method::GET);
    let seen: Vec<_> = gets
        .iter()
        .map(|r| (r.header("authorization"), r.header("last-event-id")))
        .collect();
    assert_eq!(
        seen,
        [
            (Some("Bearer t1"), None),
            (Some("Bearer t1"), Some("g1")),
            (Some("Bearer t2"), Some("g1")),
        ]
    );
    let challenges = auth.challenges();
    assert_eq!(challenges.len(), 1);
    assert_eq!(challenges[0].status(), StatusCode::UNAUTHORIZED);
    client.close().await;
    let deletes = server.requests(Method::DELETE);
    assert_eq!(deletes.len(), 0, "no session id, so no DELETE");
}

/// A DPoP-style provider: per-request headers naming the method and URL, and the nonce of
/// the last refusal.
struct RequestBoundAuth {
    nonce: Mutex<Option<String>>,
    challenges: Mutex<Vec<AuthChallenge>>,
}

impl AuthProvider for RequestBoundAuth {
    fn authorization(&self) -> BoxFuture<'static, Result<Option<HeaderValue>, BoxError>> {
        async { Err("the transport must ask for request_headers".into()) }.boxed()
    }

    fn request_headers(
        &self,
        method: &reqwest::Method,
        url: &reqwest::Url,
    ) -> BoxFuture<'static, Result<reqwest::header::HeaderMap, BoxError>> {
        let nonce = self.nonce.lock().unwrap().clone().unwrap_or_default();
        let proof = format!("{method} {url} {nonce}");
        async move {
            let mut headers = reqwest::header::HeaderMap::new();
            headers.insert("authorization", HeaderValue::from_static("DPoP tok"));
            headers.insert("dpop", HeaderValue::try_from(proof)?);
            Ok(headers)
        }
        .boxed()
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>> {
        *self.nonce.lock().unwrap() = challenge.dpop_nonce().map(str::to_owned);
        self.challenges.lock().unwrap().push(challenge);
        async { Ok(true) }.boxed()
    }
}

#[tokio::test]
async fn request_bound_headers_name_each_request_and_a_dpop_refusal_carries_its_nonce() {
    let server = serve(|rec| {
        let proof = rec.header("dpop").unwrap_or("");
        if !proof.ends_with(" n1") {
            let mut resp = challenge(
                StatusCode::UNAUTHORIZED,
                format!(r#"DPoP error="use_dpop_nonce", resource_metadata="{METADATA}""#),
            );
            resp.headers_mut()
                .insert("dpop-nonce", "n1".parse().unwrap());
            return resp;
        }
        match (rec.method.clone(), rec.rpc_method().as_deref()) {
            (Method::POST, Some("initialize")) => {
                json(StatusCode::OK, init_result(rec, "2025-11-25"))
            }
            (Method::POST, Some("ping")) => json(StatusCode::OK, result(rec, json!({}))),
            (Method::GET, _) => status(StatusCode::METHOD_NOT_ALLOWED),
            _ => status(StatusCode::ACCEPTED),
        }
    })
    .await;
    let auth = Arc::new(RequestBoundAuth {
        nonce: Mutex::new(None),
        challenges: Mutex::new(Vec::new()),
    });
    let client = connect(&server, auth.clone());
    within(client.initialize()).await;
    assert_eq!(
        within(client.call("ping", json!({}))).await.unwrap(),
        json!({})
    );
    client.close().await;

    let challenges = auth.challenges.lock().unwrap().clone();
    assert_eq!(challenges.len(), 1, "one refusal, then the nonce is used");
    let c = &challenges[0];
    assert_eq!(c.scheme(), Some("DPoP"));
    assert!(!c.is_bearer());
    assert_eq!(c.error(), Some("use_dpop_nonce"));
    assert_eq!(c.dpop_nonce(), Some("n1"));
    assert_eq!(c.resource_metadata().unwrap().as_str(), METADATA);
    // Every request carries both headers, the proof naming its own method and URL.
    let log = server.log();
    assert!(log.len() >= 4, "{log:#?}");
    for rec in &log {
        assert_eq!(rec.header("authorization"), Some("DPoP tok"));
        let proof = rec.header("dpop").unwrap();
        assert!(
            proof.starts_with(&format!("{} {}", rec.method, server.url)),
            "{proof} for {} {}",
            rec.method,
            rec.uri
        );
    }
    assert!(log.iter().any(|r| r.method == Method::GET));
}
