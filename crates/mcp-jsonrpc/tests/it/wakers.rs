//! The connection's future is woken through the waker it was polled with last (a future may
//! be polled with a different waker each time).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Context;

use futures::task::{ArcWake, waker};
use mcp_jsonrpc::{Connection, memory};

use crate::common::{TestHandler, probe, recv_text, small_config};

/// Counts its wake-ups.
#[derive(Default)]
struct Wakes(AtomicUsize);

impl ArcWake for Wakes {
    fn wake_by_ref(arc: &Arc<Self>) {
        arc.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn a_handle_s_message_wakes_the_waker_of_the_latest_poll() {
    let (p, _events) = probe();
    let (ours, mut theirs) = memory::pair(16);
    let (peer, conn) = Connection::new(ours, TestHandler(p), small_config());
    let mut run = Box::pin(conn.run());
    let (first, second) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
    let (first_waker, second_waker) = (waker(first.clone()), waker(second.clone()));
    let polled = run.as_mut().poll(&mut Context::from_waker(&first_waker));
    assert!(polled.is_pending());
    let polled = run.as_mut().poll(&mut Context::from_waker(&second_waker));
    assert!(polled.is_pending());

    // Queued through the handle (the outbound queue has room, so this does not wait).
    peer.notify("tick", None).await.unwrap();
    assert_eq!(
        second.0.load(Ordering::SeqCst),
        1,
        "the latest waker was not woken"
    );

    // Polled again, the connection writes it.
    let polled = run.as_mut().poll(&mut Context::from_waker(&second_waker));
    assert!(polled.is_pending());
    assert_eq!(
        recv_text(&mut theirs).await,
        r#"{"jsonrpc":"2.0","method":"tick"}"#
    );
}
