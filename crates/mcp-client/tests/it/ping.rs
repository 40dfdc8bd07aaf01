//! The keep-alive ping, run inside the connection future (time paused).

use std::time::Duration;

use mcp_client::{Client, Error};
use mcp_types::{Ping, Request as _};
use serde_json::json;
use tokio::sync::mpsc;

use crate::support::FakeServer;

#[tokio::test(start_paused = true)]
async fn pings_every_interval() {
    let (tx, mut pings) = mpsc::channel(8);
    let server = FakeServer::new().route(Ping::METHOD, move |_, _| {
        let tx = tx.clone();
        async move {
            tx.send(tokio::time::Instant::now()).await.unwrap();
            Ok(json!({}))
        }
    });
    let start = tokio::time::Instant::now();
    let h = server
        .connect(Client::builder().ping_interval(Duration::from_secs(30)))
        .await;
    let mut times = Vec::new();
    for _ in 0..3 {
        times.push(pings.recv().await.unwrap() - start);
    }
    assert_eq!(
        times,
        [
            Duration::from_secs(30),
            Duration::from_secs(60),
            Duration::from_secs(90)
        ]
    );
    assert!(!h.client.is_closed());
}

#[tokio::test(start_paused = true)]
async fn a_failed_ping_closes_the_connection() {
    let server = FakeServer::new().route(Ping::METHOD, |_, _| std::future::pending());
    let h = server
        .connect(
            Client::builder()
                .ping_interval(Duration::from_secs(30))
                .request_timeout(Some(Duration::from_secs(5))),
        )
        .await;
    let end = h.connection.await.unwrap().unwrap_err();
    match &end {
        Error::PingFailed(inner) => {
            assert!(
                matches!(**inner, Error::Timeout(d) if d == Duration::from_secs(5)),
                "{inner:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(h.client.is_closed());
    assert!(h.client.ping().await.unwrap_err().is_closed());
}
