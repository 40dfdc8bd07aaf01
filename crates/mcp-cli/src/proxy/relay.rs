//! Moving JSON-RPC messages verbatim between two [`Transport`]s, in both directions at once.
//!
//! Each direction has a bounded queue ([`QUEUE`] messages) and at most one send in flight
//! (the transports' `send` futures are awaited to completion, in order). A side is read only
//! while there is room in the queue towards the other side (and in the queue back to it,
//! where the answers to its invalid frames go), so a slow reader slows its writer down and
//! nothing grows without bound. A frame one side sends that is not JSON-RPC is answered
//! there (-32700 or -32600, as a connection would), never passed on. The relay ends when
//! either side ends its stream or fails; what the other side was still owed is then
//! written within [`FLUSH`].

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use mcp_jsonrpc::{Message, Response, Transport};

/// The most messages waiting to go one way.
pub(crate) const QUEUE: usize = 16;
/// How long the messages still queued for a side may take to go once the other side ended.
pub(crate) const FLUSH: Duration = Duration::from_secs(5);

/// Looks at (and may change or drop) each message on its way.
pub(crate) trait Hooks: Send {
    /// A message from side A on its way to side B; `None` drops it.
    fn a_to_b(&mut self, msg: Message) -> Option<Message> {
        Some(msg)
    }
    /// A message from side B on its way to side A; `None` drops it.
    fn b_to_a(&mut self, msg: Message) -> Option<Message> {
        Some(msg)
    }
}

/// No hooks: everything passes unchanged.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Verbatim;

#[cfg(test)]
impl Hooks for Verbatim {}

/// Which side ended the relay, and how.
#[derive(Debug)]
pub(crate) enum End {
    /// Side A ended its stream (`Ok`) or failed (`Err`, with the error).
    A(Result<(), String>),
    /// Side B ended its stream or failed.
    B(Result<(), String>),
}

type Sending<E> = Pin<Box<dyn Future<Output = Result<(), E>> + Send>>;

/// One direction: what waits to be sent, and the send in flight.
struct Lane<E> {
    queue: VecDeque<Message>,
    sending: Option<Sending<E>>,
}

impl<E> Lane<E> {
    fn new() -> Self {
        Lane {
            queue: VecDeque::new(),
            sending: None,
        }
    }

    /// Whether a message read from the other side fits.
    fn has_room(&self) -> bool {
        self.queue.len() < QUEUE
    }

    fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.sending.is_none()
    }

    /// Starts the next send on `to` if none is in flight.
    fn start<T: Transport<Error = E>>(&mut self, to: &mut T) {
        if self.sending.is_none()
            && let Some(msg) = self.queue.pop_front()
        {
            self.sending = Some(Box::pin(to.send(msg)));
        }
    }
}

/// Awaits the send in flight (never completes without one; the caller checks first).
async fn sent<E>(sending: &mut Option<Sending<E>>) -> Result<(), E> {
    match sending {
        Some(fut) => fut.await,
        None => std::future::pending().await,
    }
}

/// A message read from one side: passed on through `hook` into `onward`, or (a frame that
/// is not JSON-RPC) answered into `back`.
fn route(
    msg: Message,
    hook: impl FnOnce(Message) -> Option<Message>,
    onward: &mut VecDeque<Message>,
    back: &mut VecDeque<Message>,
) {
    match msg {
        Message::Invalid(invalid) => {
            if invalid.is_response() {
                tracing::debug!(error = %invalid.error, "dropped an invalid response");
            } else {
                back.push_back(Message::Response(Response::error(
                    invalid.id,
                    invalid.error,
                )));
            }
        }
        msg => {
            if let Some(msg) = hook(msg) {
                onward.push_back(msg);
            }
        }
    }
}

/// Relays between `a` and `b` until one of them ends; see the module docs. Neither
/// transport is closed here.
pub(crate) async fn relay<A, B, H>(a: &mut A, b: &mut B, hooks: &mut H) -> End
where
    A: Transport,
    B: Transport,
    H: Hooks,
{
    let mut to_a: Lane<A::Error> = Lane::new();
    let mut to_b: Lane<B::Error> = Lane::new();
    let end = loop {
        to_a.start(a);
        to_b.start(b);
        // The queue back to a side may hold up to QUEUE more: the answers to its invalid
        // frames, so that a flood of them is bounded too.
        let read_a = to_b.has_room() && to_a.queue.len() < 2 * QUEUE;
        let read_b = to_a.has_room() && to_b.queue.len() < 2 * QUEUE;
        tokio::select! {
            r = sent(&mut to_b.sending), if to_b.sending.is_some() => {
                to_b.sending = None;
                if let Err(e) = r {
                    break End::B(Err(e.to_string()));
                }
            }
            r = sent(&mut to_a.sending), if to_a.sending.is_some() => {
                to_a.sending = None;
                if let Err(e) = r {
                    break End::A(Err(e.to_string()));
                }
            }
            r = a.recv(), if read_a => match r {
                Ok(Some(msg)) => route(msg, |m| hooks.a_to_b(m), &mut to_b.queue, &mut to_a.queue),
                Ok(None) => break End::A(Ok(())),
                Err(e) => break End::A(Err(e.to_string())),
            },
            r = b.recv(), if read_b => match r {
                Ok(Some(msg)) => route(msg, |m| hooks.b_to_a(m), &mut to_a.queue, &mut to_b.queue),
                Ok(None) => break End::B(Ok(())),
                Err(e) => break End::B(Err(e.to_string())),
            },
        }
    };
    // What the side still there is owed goes out, within FLUSH.
    let flush = async {
        match &end {
            End::A(_) => {
                while !to_b.is_idle() {
                    to_b.start(b);
                    if sent(&mut to_b.sending).await.is_err() {
                        break;
                    }
                    to_b.sending = None;
                }
            }
            End::B(_) => {
                while !to_a.is_idle() {
                    to_a.start(a);
                    if sent(&mut to_a.sending).await.is_err() {
                        break;
                    }
                    to_a.sending = None;
                }
            }
        }
    };
    let _ = tokio::time::timeout(FLUSH, flush).await;
    end
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use mcp_jsonrpc::{
        Config, Connection, ErrorObject, Handler, Id, Notification, NotificationContext, Request,
        RequestContext, memory,
    };
    use serde_json::value::RawValue;

    use super::*;

    /// Answers every request with its params; records notification methods.
    #[derive(Clone, Default)]
    struct Echo(Arc<Mutex<Vec<String>>>);

    impl Handler for Echo {
        async fn handle_request(
            &self,
            request: Request,
            _ctx: RequestContext,
        ) -> Result<Box<RawValue>, ErrorObject> {
            Ok(request
                .params
                .unwrap_or_else(|| RawValue::from_string("null".to_owned()).unwrap()))
        }

        async fn handle_notification(&self, n: Notification, _ctx: NotificationContext) {
            self.0.lock().unwrap().push(n.method.into_owned());
        }
    }

    /// Renames every notification going from A to B.
    struct Rename;

    impl Hooks for Rename {
        fn a_to_b(&mut self, msg: Message) -> Option<Message> {
            match msg {
                Message::Notification(n) => Some(Message::Notification(Notification::new(
                    format!("renamed/{}", n.method),
                    n.params,
                ))),
                other => Some(other),
            }
        }
    }

    #[tokio::test]
    async fn many_calls_cross_both_ways_and_the_end_is_reported() {
        let (client_end, mut a) = memory::pair(4);
        let (mut b, server_end) = memory::pair(4);
        let relay = tokio::spawn(async move { relay(&mut a, &mut b, &mut Rename).await });
        let echo = Echo::default();
        let (server_peer, server) = Connection::new(server_end, echo.clone(), Config::default());
        let server = tokio::spawn(server.run());
        let (peer, client) = Connection::new(client_end, (), Config::default());
        let client = tokio::spawn(client.run());
        // Many more than the queues hold, all at once.
        let calls = (0..200).map(|i| {
            let peer = peer.clone();
            async move {
                let params = RawValue::from_string(format!("[{i}]")).unwrap();
                peer.request("echo", Some(params))
                    .await
                    .unwrap()
                    .get()
                    .to_owned()
            }
        });
        let answers = futures::future::join_all(calls).await;
        assert_eq!(
            answers,
            (0..200).map(|i| format!("[{i}]")).collect::<Vec<_>>()
        );
        peer.notify("n", None).await.unwrap();
        // Answered after the notification was handled, in order.
        peer.request("echo", None).await.unwrap();
        assert_eq!(*echo.0.lock().unwrap(), ["renamed/n"]);
        server_peer.close();
        let _ = server.await;
        assert!(matches!(relay.await.unwrap(), End::B(_)));
        peer.close();
        let _ = client.await;
    }

    #[tokio::test]
    async fn an_invalid_frame_is_answered_where_it_came_from() {
        let (mut client, mut a) = memory::pair(4);
        let (mut b, server) = memory::pair(4);
        let relay = tokio::spawn(async move { relay(&mut a, &mut b, &mut Verbatim).await });
        // The memory pair moves messages as they are: an invalid one reaches the relay.
        client
            .send(Message::decode(br#"{"jsonrpc":"2.0","id":7,"method":5}"#))
            .await
            .unwrap();
        let answer = client.recv().await.unwrap();
        let Some(Message::Response(r)) = answer else {
            panic!("expected an error response, got {answer:?}");
        };
        assert_eq!(r.id, Some(Id::Number(7)));
        assert_eq!(r.result.unwrap_err().code.0, -32600);
        drop(client);
        assert!(matches!(relay.await.unwrap(), End::A(Ok(()))));
        drop(server);
    }
}
