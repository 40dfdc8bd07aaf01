//! Helpers: a scriptable handler, and ways to wire connections up.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Message, Notification, NotificationContext, Peer,
    Request, RequestContext, Result, Transport, memory, memory::MemoryTransport, to_raw_value,
};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;

/// What a [`TestHandler`] saw, for the test to check.
#[derive(Clone)]
pub(crate) struct Probe {
    events: mpsc::UnboundedSender<String>,
    pub(crate) running: Arc<AtomicUsize>,
    pub(crate) max_running: Arc<AtomicUsize>,
    /// `block` requests wait for a permit of this.
    pub(crate) gate: Arc<Semaphore>,
}

pub(crate) struct Events(mpsc::UnboundedReceiver<String>);

impl Events {
    /// The next event (panics after a long wait, so a bug fails instead of hanging).
    pub(crate) async fn next(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(3600), self.0.recv())
            .await
            .expect("no event")
            .expect("handler gone")
    }
}

pub(crate) fn probe() -> (Probe, Events) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Probe {
            events: tx,
            running: Arc::default(),
            max_running: Arc::default(),
            gate: Arc::new(Semaphore::new(0)),
        },
        Events(rx),
    )
}

impl Probe {
    pub(crate) fn event(&self, e: impl Into<String>) {
        let _ = self.events.send(e.into());
    }
}

/// Reports a cancelled handler on drop (a handler future dropped on cancel never reaches its
/// end).
struct OnDrop {
    probe: Probe,
    ctx: RequestContext,
}

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.probe.running.fetch_sub(1, Ordering::SeqCst);
        // Only cancellations are interesting (every handler ends by dropping this).
        if self.ctx.cancellation().is_cancelled() {
            self.probe
                .event(format!("dropped {} cancelled=true", self.ctx.id()));
        }
    }
}

/// A handler whose behaviour is picked by the method name.
pub(crate) struct TestHandler(pub Probe);

impl Handler for TestHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let probe = &self.0;
        let now = probe.running.fetch_add(1, Ordering::SeqCst) + 1;
        probe.max_running.fetch_max(now, Ordering::SeqCst);
        let _guard = OnDrop {
            probe: probe.clone(),
            ctx: ctx.clone(),
        };
        let params: Value = request.params()?;
        match &*request.method {
            "echo" => to_raw_value(&params),
            // Answers `value` after `ms` milliseconds.
            "sleep" => {
                let ms = params["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                to_raw_value(&params["value"])
            }
            // Waits for a gate permit (or forever).
            "block" => {
                probe.event(format!("started {}", ctx.id()));
                let _permit = probe.gate.acquire().await.expect("gate closed");
                to_raw_value(&params)
            }
            // Calls `echo` on the other side, and answers with its result.
            "call_back" => {
                let inner = ctx
                    .peer()
                    .request("echo", Some(to_raw_value(&params)?))
                    .await
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                Ok(inner)
            }
            // Reports progress `steps` times (with `tag` as the message), then answers.
            "progress" => {
                let steps = params["steps"].as_u64().unwrap_or(3);
                let tag = params["tag"].as_str().unwrap_or_default().to_owned();
                for i in 1..=steps {
                    ctx.report_progress(i as f64, Some(steps as f64), Some(&tag))
                        .await
                        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                to_raw_value(&tag)
            }
            "burst" => {
                // Progress sent back to back, with no pause before the response.
                for i in 1..=5 {
                    ctx.report_progress(f64::from(i), None, None)
                        .await
                        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                }
                to_raw_value(&"done")
            }
            "typed" => {
                #[derive(serde::Deserialize)]
                struct Typed {
                    a: u32,
                }
                let typed: Typed = request.params()?;
                to_raw_value(&typed.a)
            }
            "panic" => panic!("boom"),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let params = notification
            .params
            .as_deref()
            .map_or("null", RawValue::get)
            .to_owned();
        if notification.method == "panic" {
            panic!("notification boom");
        }
        if let Ok(v) = serde_json::from_str::<Value>(&params)
            && let Some(ms) = v["ms"].as_u64()
        {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        self.0.event(format!("{} {params}", notification.method));
    }
}

pub(crate) fn raw(v: Value) -> Option<Box<RawValue>> {
    Some(serde_json::value::to_raw_value(&v).unwrap())
}

pub(crate) fn value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap()
}

/// One connection, with the other end of the pair left raw for the test to play the peer.
pub(crate) fn start<H: Handler>(
    handler: H,
    config: Config,
) -> (Peer, MemoryTransport, JoinHandle<Result<()>>) {
    let (a, b) = memory::pair(16);
    let (peer, conn) = Connection::new(a, handler, config);
    (peer, b, tokio::spawn(conn.run()))
}

/// Two connections wired together.
pub(crate) fn connect<A: Handler, B: Handler>(
    a: A,
    config_a: Config,
    b: B,
    config_b: Config,
    capacity: usize,
) -> (Peer, Peer) {
    let (ta, tb) = memory::pair(capacity);
    let (peer_a, conn_a) = Connection::new(ta, a, config_a);
    let (peer_b, conn_b) = Connection::new(tb, b, config_b);
    tokio::spawn(conn_a.run());
    tokio::spawn(conn_b.run());
    (peer_a, peer_b)
}

/// Plays a raw peer: sends `text` as if it came off the wire.
pub(crate) async fn send_text(t: &mut MemoryTransport, text: &str) {
    t.send(Message::decode(text.as_bytes())).await.unwrap();
}

/// The next message the connection wrote, as JSON text.
pub(crate) async fn recv_text(t: &mut MemoryTransport) -> String {
    let msg = tokio::time::timeout(Duration::from_secs(3600), t.recv())
        .await
        .expect("nothing received")
        .unwrap()
        .expect("connection ended");
    msg.to_json().unwrap()
}

/// The next message the connection wrote, as a JSON value.
pub(crate) async fn recv_value(t: &mut MemoryTransport) -> Value {
    serde_json::from_str(&recv_text(t).await).unwrap()
}

pub(crate) fn small_config() -> Config {
    let mut c = Config::default();
    c.outbound_queue = 4;
    c.max_concurrent_requests = 4;
    c
}
