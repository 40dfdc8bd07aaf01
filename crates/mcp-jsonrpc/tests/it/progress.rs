//! Progress notifications reach the caller that asked for them.

use mcp_jsonrpc::{Config, Id, Progress, RequestOptions};
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::{TestHandler, connect, probe, raw, send_text, start, value};

async fn collect(mut rx: mpsc::Receiver<Progress>) -> Vec<(Id, f64, String)> {
    let mut v = Vec::new();
    while let Some(p) = rx.recv().await {
        v.push((p.progress_token, p.progress, p.message.unwrap_or_default()));
    }
    v
}

#[tokio::test(start_paused = true)]
async fn progress_is_routed_to_the_right_caller() {
    let (pa, _ea) = probe();
    let (pb, _eb) = probe();
    let (a, _b) = connect(
        TestHandler(pa),
        Config::default(),
        TestHandler(pb),
        Config::default(),
        4,
    );
    let (tx1, rx1) = mpsc::channel(16);
    let (tx2, rx2) = mpsc::channel(16);
    let (tx3, rx3) = mpsc::channel(16);
    let one = a.request_with(
        "progress",
        raw(json!({"tag": "one", "steps": 3})),
        RequestOptions::new().progress(tx1),
    );
    let two = a.request_with(
        "progress",
        raw(json!({"tag": "two", "steps": 2})),
        RequestOptions::new().progress(tx2),
    );
    let mine = a.request_with(
        "progress",
        raw(json!({"tag": "three", "steps": 1, "_meta": {"progressToken": "mine"}})),
        RequestOptions::new().progress(tx3),
    );
    let (one, two, mine) = tokio::join!(one, two, mine);
    assert_eq!(value(&one.unwrap()), json!("one"));
    assert_eq!(value(&two.unwrap()), json!("two"));
    assert_eq!(value(&mine.unwrap()), json!("three"));
    let one = collect(rx1).await;
    let two = collect(rx2).await;
    assert_eq!(
        one.iter()
            .map(|(_, p, m)| (*p, m.as_str()))
            .collect::<Vec<_>>(),
        [(1.0, "one"), (2.0, "one"), (3.0, "one")]
    );
    assert_eq!(
        two.iter()
            .map(|(_, p, m)| (*p, m.as_str()))
            .collect::<Vec<_>>(),
        [(1.0, "two"), (2.0, "two")]
    );
    assert_ne!(one[0].0, two[0].0);
    assert_eq!(
        collect(rx3).await,
        [(Id::from("mine"), 1.0, "three".to_owned())]
    );
}

#[tokio::test(start_paused = true)]
async fn unroutable_progress_reaches_the_handler() {
    let (p, mut events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}"#,
    )
    .await;
    assert_eq!(
        events.next().await,
        r#"notifications/progress {"progressToken":"nobody","progress":1}"#
    );
}

#[tokio::test(start_paused = true)]
async fn a_handlers_progress_goes_out_before_its_response() {
    let (p, _events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p), Config::default());
    send_text(
        &mut remote,
        r#"{"jsonrpc":"2.0","id":7,"method":"burst","params":{"_meta":{"progressToken":"t"}}}"#,
    )
    .await;
    let mut seen = Vec::new();
    loop {
        let msg = crate::common::recv_value(&mut remote).await;
        let done = msg.get("id").is_some();
        seen.push(
            msg["params"]["progress"]
                .as_f64()
                .map_or("response".to_owned(), |p| p.to_string()),
        );
        if done {
            break;
        }
    }
    assert_eq!(seen, ["1", "2", "3", "4", "5", "response"]);
}
