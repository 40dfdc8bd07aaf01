//! Who a session belongs to: the per-client quota, eviction of idle sessions when the table
//! is full, sessions bound to the principal that opened them, and resumption after the event
//! store dropped events.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use mcp_transport_http::PrincipalId;
use mcp_transport_http::server::{EventStore, InMemoryEventStore, StreamableHttpService};
use serde_json::json;

use super::{Sse, TestServer, VERSION, initialize_body, request, start, start_mapped};

/// A failure guard, never the thing measured.
const GUARD: Duration = Duration::from_secs(20);

/// What the test auth layer inserts: the `x-user` header, as a real layer would insert the
/// principal of a validated token.
#[derive(Clone)]
struct User(String);

/// A tiny auth layer: `x-user: <name>` authenticates as `<name>`, inserted as `as_user` makes
/// it.
fn with_user_as<T: Clone + Send + Sync + 'static>(
    router: Router,
    as_user: fn(&str) -> T,
) -> Router {
    router.layer(axum::middleware::map_request(
        move |mut req: Request| async move {
            let user = req
                .headers()
                .get("x-user")
                .and_then(|v| v.to_str().ok())
                .map(as_user);
            if let Some(user) = user {
                req.extensions_mut().insert(user);
            }
            req
        },
    ))
}

/// The application's own auth layer, which `Builder::principal` reads.
fn with_users(router: Router) -> Router {
    with_user_as(router, |u| User(u.to_owned()))
}

/// A layer inserting the crate's own `PrincipalId`, as `mcp-auth`'s `BearerAuthLayer` does for
/// a validated token.
fn with_principal_ids(router: Router) -> Router {
    with_user_as(router, |u| PrincipalId::new(u))
}

/// Stands in for a proxy that knows the client's address: `x-peer: <ip>` replaces the
/// `ConnectInfo` the server attached.
fn with_peers(router: Router) -> Router {
    router.layer(axum::middleware::map_request(
        |mut req: Request| async move {
            let peer = req
                .headers()
                .get("x-peer")
                .and_then(|v| v.to_str().ok())
                .and_then(|ip| ip.parse::<IpAddr>().ok())
                .map(|ip| SocketAddr::new(ip, 1));
            if let Some(peer) = peer {
                req.extensions_mut().insert(ConnectInfo(peer));
            }
            req
        },
    ))
}

/// POSTs `initialize` with `headers`; the status and the session id, if any.
async fn initialize_with(server: &TestServer, headers: &[(&str, &str)]) -> (u16, Option<String>) {
    let mut req = server.post(None, initialize_body(VERSION));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let res = req.send().await.unwrap();
    let id = res
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (res.status().as_u16(), id)
}

async fn echo_status(server: &TestServer, id: &str, headers: &[(&str, &str)]) -> u16 {
    let mut req = server.post(Some(id), request(1, "echo", json!({})));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn a_principal_over_its_quota_gets_429_while_another_still_gets_a_session() {
    let builder = StreamableHttpService::builder()
        .principal(|ext| ext.get::<User>().map(|u| u.0.clone()))
        .max_sessions_per_client(3)
        .evict_idle_after(None);
    let server = start_mapped(builder, with_users).await;
    for _ in 0..3 {
        assert_eq!(
            initialize_with(&server, &[("x-user", "flood")]).await.0,
            200
        );
    }
    let (status, id) = initialize_with(&server, &[("x-user", "flood")]).await;
    assert_eq!((status, id), (429, None));
    assert_eq!(
        initialize_with(&server, &[("x-user", "alice")]).await.0,
        200
    );
    assert_eq!(server.service.session_count(), 4);
}

#[tokio::test]
async fn an_address_over_its_quota_gets_429_while_another_still_gets_a_session() {
    let builder = StreamableHttpService::builder()
        .max_sessions_per_client(2)
        .evict_idle_after(None);
    let server = start_mapped(builder, with_peers).await;
    for _ in 0..2 {
        assert_eq!(
            initialize_with(&server, &[("x-peer", "192.0.2.1")]).await.0,
            200
        );
    }
    assert_eq!(
        initialize_with(&server, &[("x-peer", "192.0.2.1")]).await.0,
        429
    );
    // One IPv6 /64 is one client.
    assert_eq!(
        initialize_with(&server, &[("x-peer", "2001:db8::1")])
            .await
            .0,
        200
    );
    assert_eq!(
        initialize_with(&server, &[("x-peer", "2001:db8::2")])
            .await
            .0,
        200
    );
    assert_eq!(
        initialize_with(&server, &[("x-peer", "2001:db8::3")])
            .await
            .0,
        429
    );
    assert_eq!(
        initialize_with(&server, &[("x-peer", "192.0.2.2")]).await.0,
        200
    );
    // Without the stand-in, the address HttpServer attached counts (127.0.0.1).
    assert_eq!(initialize_with(&server, &[]).await.0, 200);
    assert_eq!(initialize_with(&server, &[]).await.0, 200);
    assert_eq!(initialize_with(&server, &[]).await.0, 429);
}

#[tokio::test]
async fn over_its_quota_a_client_gives_up_its_own_longest_idle_session() {
    let builder = StreamableHttpService::builder()
        .max_sessions_per_client(2)
        .evict_idle_after(Some(Duration::from_millis(100)));
    let server = start(builder).await;
    let first = server.initialize().await;
    let second = server.initialize().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // `second` is used again: `first` is now the longest idle.
    assert_eq!(echo_status(&server, &second, &[]).await, 200);
    let (status, third) = initialize_with(&server, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(echo_status(&server, &first, &[]).await, 404);
    assert_eq!(echo_status(&server, &second, &[]).await, 200);
    assert_eq!(echo_status(&server, &third.unwrap(), &[]).await, 200);
}

#[tokio::test]
async fn a_full_table_evicts_the_longest_idle_session_but_never_an_active_one() {
    let builder = StreamableHttpService::builder()
        .max_sessions(2)
        .evict_idle_after(Some(Duration::from_millis(100)));
    let server = start_mapped(builder, with_peers).await;
    let (_, a) = initialize_with(&server, &[("x-peer", "192.0.2.1")]).await;
    let (_, b) = initialize_with(&server, &[("x-peer", "192.0.2.2")]).await;
    let (a, b) = (a.unwrap(), b.unwrap());
    // Too early: nothing has been idle long enough.
    assert_eq!(
        initialize_with(&server, &[("x-peer", "192.0.2.3")]).await.0,
        503
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(echo_status(&server, &b, &[]).await, 200);
    let (status, c) = initialize_with(&server, &[("x-peer", "192.0.2.3")]).await;
    assert_eq!(status, 200);
    assert_eq!(echo_status(&server, &a, &[]).await, 404);
    assert_eq!(echo_status(&server, &b, &[]).await, 200);
    // Sessions with an open stream are active: never evicted, however long.
    let c = c.unwrap();
    let b_stream = Sse::new(server.get(&b).send().await.unwrap());
    let c_stream = Sse::new(server.get(&c).send().await.unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        initialize_with(&server, &[("x-peer", "192.0.2.4")]).await.0,
        503
    );
    drop((b_stream, c_stream));
}

#[tokio::test]
async fn a_session_answers_only_the_principal_that_opened_it() {
    let builder =
        StreamableHttpService::builder().principal(|ext| ext.get::<User>().map(|u| u.0.clone()));
    let server = start_mapped(builder, with_users).await;
    let (status, id) = initialize_with(&server, &[("x-user", "alice")]).await;
    assert_eq!(status, 200);
    let id = id.unwrap();
    let alice = [("x-user", "alice")];
    let mallory = [("x-user", "mallory")];

    // Alice's stream, with an event id to resume from.
    let mut stream = Sse::new(
        server
            .get(&id)
            .header("x-user", "alice")
            .send()
            .await
            .unwrap(),
    );
    let priming = stream.next().await.unwrap().id.unwrap();

    for who in [&mallory[..], &[]] {
        assert_eq!(echo_status(&server, &id, who).await, 404);
        let mut get = server.get(&id);
        let mut resume = server.get(&id).header("last-event-id", &priming);
        let mut delete = server.delete(&id);
        for (name, value) in who {
            get = get.header(*name, *value);
            resume = resume.header(*name, *value);
            delete = delete.header(*name, *value);
        }
        assert_eq!(get.send().await.unwrap().status(), 404);
        assert_eq!(resume.send().await.unwrap().status(), 404);
        assert_eq!(delete.send().await.unwrap().status(), 404);
    }
    // Alice's session is untouched.
    assert_eq!(echo_status(&server, &id, &alice).await, 200);
    server
        .peer(&id)
        .notify("notifications/still-here", None)
        .await
        .unwrap();
    let ev = stream.next().await.unwrap();
    assert_eq!(ev.json()["method"], "notifications/still-here");
    let delete = server.delete(&id).header("x-user", "alice");
    assert_eq!(delete.send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn sessions_are_bound_to_the_principal_id_without_being_told() {
    // No `principal` call: the `PrincipalId` an auth layer inserted binds the session.
    let builder = StreamableHttpService::builder()
        .max_sessions_per_client(1)
        .evict_idle_after(None);
    let server = start_mapped(builder, with_principal_ids).await;
    let (status, id) = initialize_with(&server, &[("x-user", "alice")]).await;
    assert_eq!(status, 200);
    let id = id.unwrap();
    assert_eq!(echo_status(&server, &id, &[("x-user", "alice")]).await, 200);
    assert_eq!(
        echo_status(&server, &id, &[("x-user", "mallory")]).await,
        404
    );
    assert_eq!(echo_status(&server, &id, &[]).await, 404);
    // The principal is also the client of the quota (one session each here).
    assert_eq!(
        initialize_with(&server, &[("x-user", "alice")]).await.0,
        429
    );
    let (status, other) = initialize_with(&server, &[("x-user", "mallory")]).await;
    assert_eq!(status, 200);
    // A session opened with no principal takes only requests with none.
    let (status, anonymous) = initialize_with(&server, &[]).await;
    assert_eq!(status, 200);
    let anonymous = anonymous.unwrap();
    assert_eq!(echo_status(&server, &anonymous, &[]).await, 200);
    assert_eq!(
        echo_status(&server, &anonymous, &[("x-user", "alice")]).await,
        404
    );
    // Mallory's own session answers her.
    assert_eq!(
        echo_status(&server, &other.unwrap(), &[("x-user", "mallory")]).await,
        200
    );
}

#[tokio::test]
async fn a_legacy_session_takes_posts_only_from_the_principal_that_opened_it() {
    let builder = StreamableHttpService::builder()
        .legacy_sse("/sse", "/messages")
        .principal(|ext| ext.get::<User>().map(|u| u.0.clone()));
    let server = start_mapped(builder, with_users).await;
    let res = server
        .client
        .get(format!("{}/sse", server.base))
        .header("accept", "text/event-stream")
        .header("x-user", "alice")
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    let endpoint = sse.next().await.unwrap();
    let post_url = format!("{}{}", server.base, endpoint.data);
    let post = |user: &str| {
        server
            .client
            .post(&post_url)
            .header("content-type", "application/json")
            .header("x-user", user)
            .body(request(1, "echo", json!({})).to_string())
            .send()
    };
    assert_eq!(post("mallory").await.unwrap().status(), 404);
    assert_eq!(post("alice").await.unwrap().status(), 202);
    assert_eq!(sse.next().await.unwrap().json()["id"], 1);
}

#[tokio::test]
async fn resuming_past_events_the_store_dropped_is_410_not_a_silent_end() {
    let store = Arc::new(InMemoryEventStore::new(3, 1 << 20));
    let builder = StreamableHttpService::builder().event_store(Some(store.clone()));
    let server = start(builder).await;
    let id = server.initialize().await;
    // The standalone stream, to carry the notifications that push events out.
    let mut standalone = Sse::new(server.get(&id).send().await.unwrap());
    standalone.next().await.unwrap();

    // `poll` closes its stream after the priming event, then answers (kept for replay).
    let res = server
        .post(Some(&id), request(7, "poll", json!({})))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    let priming = sse.next().await.unwrap().id.unwrap();
    assert!(sse.next().await.is_none());
    tokio::time::timeout(GUARD, async {
        while store
            .replay_after(&id, &priming)
            .await
            .unwrap()
            .is_none_or(|r| r.events.is_empty())
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the response was never stored");

    // Three notifications push the response out of the three-event store.
    let peer = server.peer(&id);
    for _ in 0..3 {
        peer.notify("notifications/filler", None).await.unwrap();
        standalone.next().await.unwrap();
    }
    let res = server
        .get(&id)
        .header("last-event-id", &priming)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 410);
    let body = super::error_body(res).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Last-Event-ID")
    );
    // The session goes on.
    assert_eq!(echo_status(&server, &id, &[]).await, 200);
}
