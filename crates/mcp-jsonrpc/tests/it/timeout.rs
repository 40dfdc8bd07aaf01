//! Per-request timeouts, reset by progress, bounded by a hard maximum.

use std::time::Duration;

use mcp_jsonrpc::{Config, Error, RequestOptions};
use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::common::{recv_value, send_text, start};

#[tokio::test(start_paused = true)]
async fn a_silent_peer_times_out_and_the_request_is_cancelled() {
    let (peer, mut remote, _run) = start((), Config::default());
    let t0 = Instant::now();
    let call = tokio::spawn(async move {
        peer.request_with(
            "slow",
            None,
            RequestOptions::new().timeout(Duration::from_secs(5)),
        )
        .await
    });
    let req = recv_value(&mut remote).await;
    assert_eq!(req["method"], "slow");
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_secs(5)),
        "{err:?}"
    );
    assert_eq!(t0.elapsed(), Duration::from_secs(5));
    let cancel = recv_value(&mut remote).await;
    assert_eq!(
        cancel,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": req["id"], "reason": "request timed out"}})
    );
}

#[tokio::test(start_paused = true)]
async fn the_default_timeout_comes_from_the_config() {
    let mut config = Config::default();
    config.default_timeout = Some(Duration::from_secs(2));
    let (peer, mut remote, _run) = start((), config);
    let t0 = Instant::now();
    let call = tokio::spawn(async move { peer.request("slow", None).await });
    recv_value(&mut remote).await;
    assert!(matches!(call.await.unwrap(), Err(Error::Timeout(_))));
    assert_eq!(t0.elapsed(), Duration::from_secs(2));
}

#[tokio::test(start_paused = true)]
async fn progress_resets_the_timeout() {
    let (peer, mut remote, _run) = start((), Config::default());
    let (tx, mut rx) = mpsc::channel(8);
    let t0 = Instant::now();
    let call = tokio::spawn(async move {
        let options = RequestOptions::new()
            .timeout(Duration::from_secs(5))
            .progress(tx);
        peer.request_with("slow", None, options).await
    });
    let req = recv_value(&mut remote).await;
    let token = req["params"]["_meta"]["progressToken"].clone();
    for at in [4, 8] {
        tokio::time::sleep_until(t0 + Duration::from_secs(at)).await;
        let p = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": token, "progress": at}});
        send_text(&mut remote, &p.to_string()).await;
    }
    tokio::time::sleep_until(t0 + Duration::from_secs(12)).await;
    let resp = json!({"jsonrpc": "2.0", "id": req["id"], "result": {"done": true}});
    send_text(&mut remote, &resp.to_string()).await;
    let got = call.await.unwrap().unwrap();
    assert_eq!(got.get(), r#"{"done":true}"#);
    assert_eq!(rx.recv().await.unwrap().progress, 4.0);
    assert_eq!(rx.recv().await.unwrap().progress, 8.0);
}

#[tokio::test(start_paused = true)]
async fn the_hard_maximum_is_not_extended_by_progress() {
    let (peer, mut remote, _run) = start((), Config::default());
    let (tx, _rx) = mpsc::channel(64);
    let t0 = Instant::now();
    let call = tokio::spawn(async move {
        let options = RequestOptions::new()
            .timeout(Duration::from_secs(5))
            .max_total_timeout(Duration::from_secs(10))
            .progress(tx);
        peer.request_with("slow", None, options).await
    });
    let req = recv_value(&mut remote).await;
    let token = req["params"]["_meta"]["progressToken"].clone();
    let feeder = tokio::spawn(async move {
        for i in 1.. {
            tokio::time::sleep(Duration::from_secs(3)).await;
            let p = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": i}});
            send_text(&mut remote, &p.to_string()).await;
        }
    });
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_secs(10)),
        "{err:?}"
    );
    assert_eq!(t0.elapsed(), Duration::from_secs(10));
    feeder.abort();
}

#[tokio::test(start_paused = true)]
async fn without_progress_reset_the_timeout_stands() {
    let (peer, mut remote, _run) = start((), Config::default());
    let (tx, _rx) = mpsc::channel(8);
    let t0 = Instant::now();
    let call = tokio::spawn(async move {
        let options = RequestOptions::new()
            .timeout(Duration::from_secs(5))
            .reset_timeout_on_progress(false)
            .progress(tx);
        peer.request_with("slow", None, options).await
    });
    let req = recv_value(&mut remote).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let p = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": req["params"]["_meta"]["progressToken"], "progress": 1}});
    send_text(&mut remote, &p.to_string()).await;
    assert!(matches!(call.await.unwrap(), Err(Error::Timeout(_))));
    assert_eq!(t0.elapsed(), Duration::from_secs(5));
}
