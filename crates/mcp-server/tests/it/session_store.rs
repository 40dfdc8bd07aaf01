//! `ServeOptions::session_store`: a session's snapshot is saved after each change, before the
//! answer that made it, and a session started on the same id elsewhere takes it up.

use std::sync::Arc;

use mcp_server::types::{LoggingLevel, ProtocolVersion};
use mcp_server::{InMemorySessionStore, ServeOptions, SessionStore};
use serde_json::json;

use crate::fixture;
use crate::support::Client;

fn options(store: &Arc<InMemorySessionStore>) -> ServeOptions {
    ServeOptions::new().session_store(store.clone(), "s-1")
}

#[tokio::test]
async fn each_change_is_saved_before_its_answer() {
    let server = fixture();
    let store = Arc::new(InMemorySessionStore::default());
    let client = Client::connect_raw_serving(&server, (), options(&store));
    assert!(store.load("s-1").await.unwrap().is_none());

    client
        .initialize("2025-06-18", json!({"roots": {}}))
        .await
        .unwrap();
    let saved = store
        .load("s-1")
        .await
        .unwrap()
        .expect("saved by initialize");
    assert_eq!(saved.protocol_version, ProtocolVersion::V2025_06_18);
    assert_eq!(saved.client_info.unwrap().name, "test-client");
    assert!(saved.client_capabilities.roots.is_some());
    assert!(!saved.initialized);

    client.notify("notifications/initialized", json!({})).await;
    // A notification has no answer to wait for: ping orders after it.
    client.raw("ping", json!({})).await.unwrap();
    assert!(store.load("s-1").await.unwrap().unwrap().initialized);

    client
        .raw("logging/setLevel", json!({"level": "warning"}))
        .await
        .unwrap();
    client
        .raw("resources/subscribe", json!({"uri": "test://static-text"}))
        .await
        .unwrap();
    let saved = store.load("s-1").await.unwrap().unwrap();
    assert_eq!(saved.log_level, Some(LoggingLevel::Warning));
    assert_eq!(saved.subscriptions, ["test://static-text"]);

    client
        .raw(
            "resources/unsubscribe",
            json!({"uri": "test://static-text"}),
        )
        .await
        .unwrap();
    assert!(
        store
            .load("s-1")
            .await
            .unwrap()
            .unwrap()
            .subscriptions
            .is_empty()
    );
}

#[tokio::test(start_paused = true)]
async fn a_session_started_on_a_stored_id_goes_on_where_it_was() {
    let server = fixture();
    let store = Arc::new(InMemorySessionStore::default());
    let first = Client::connect_raw_serving(&server, (), options(&store));
    first.initialize("2025-11-25", json!({})).await.unwrap();
    first.notify("notifications/initialized", json!({})).await;
    first
        .raw("resources/subscribe", json!({"uri": "test://static-text"}))
        .await
        .unwrap();
    drop(first);

    // Another instance: no handshake, the subscription holds.
    let mut second = Client::connect_raw_serving(&server, (), options(&store));
    let listed = second.raw("tools/list", json!({})).await.unwrap();
    assert!(listed["tools"].as_array().is_some_and(|t| !t.is_empty()));
    server.notify_resource_updated("test://static-text");
    assert_eq!(
        second
            .notification_named("notifications/resources/updated")
            .await,
        json!({"uri": "test://static-text"})
    );
    // Its `initialize` already happened elsewhere.
    let again = second.initialize("2025-11-25", json!({})).await;
    assert!(again.is_err(), "a second initialize is refused");
}

#[tokio::test]
async fn without_a_stored_snapshot_the_session_waits_for_initialize() {
    let server = fixture();
    let store = Arc::new(InMemorySessionStore::default());
    let client = Client::connect_raw_serving(&server, (), options(&store));
    let err = client.raw("tools/list", json!({})).await.unwrap_err();
    assert!(format!("{err:?}").contains("not initialized"), "{err:?}");
}
