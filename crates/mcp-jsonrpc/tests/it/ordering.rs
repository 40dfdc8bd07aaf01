//! Notifications are handled one at a time, in order, while requests run concurrently.

use std::sync::atomic::Ordering;

use mcp_jsonrpc::Config;
use serde_json::json;

use crate::common::{TestHandler, probe, recv_value, send_text, start};

#[tokio::test(start_paused = true)]
async fn notifications_are_handled_in_order_while_requests_run() {
    let (p, mut events) = probe();
    let (_peer, mut remote, _run) = start(TestHandler(p.clone()), Config::default());
    for i in 0..30 {
        let req = json!({"jsonrpc":"2.0","id":i,"method":"block","params":{}});
        send_text(&mut remote, &req.to_string()).await;
        // Varying handling times: a concurrent dispatcher would reorder these.
        let note = json!({"jsonrpc":"2.0","method":"note","params":{"i":i,"ms":(i * 7) % 5}});
        send_text(&mut remote, &note.to_string()).await;
    }
    let mut notes = Vec::new();
    while notes.len() < 30 {
        let e = events.next().await;
        if let Some(rest) = e.strip_prefix("note ") {
            let v: serde_json::Value = serde_json::from_str(rest).unwrap();
            notes.push(v["i"].as_u64().unwrap());
        }
    }
    assert_eq!(notes, (0..30).collect::<Vec<_>>());
    // All the requests were still running meanwhile.
    assert_eq!(p.running.load(Ordering::SeqCst), 30);
    p.gate.add_permits(30);
    let mut ids: Vec<u64> = Vec::new();
    for _ in 0..30 {
        ids.push(recv_value(&mut remote).await["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..30).collect::<Vec<_>>());
}
