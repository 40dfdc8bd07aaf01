//! What a transport attaches to an inbound message reaches the handler.

use std::future::Future;

use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Message, Notification, NotificationContext, Request,
    RequestContext, Transport, memory, to_raw_value,
};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

/// The value the tagging transport attaches.
#[derive(Debug, Clone, PartialEq)]
struct Tag(&'static str);

/// Wraps a transport and tags every inbound request and notification.
struct Tagging<T>(T);

impl<T: Transport> Transport for Tagging<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        self.0.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, T::Error> {
        let mut msg = self.0.recv().await?;
        match &mut msg {
            Some(Message::Request(r)) => {
                r.extensions.insert(Tag("request"));
            }
            Some(Message::Notification(n)) => {
                n.extensions.insert(Tag("notification"));
            }
            _ => {}
        }
        Ok(msg)
    }
}

/// Answers with the tag it finds in the context, and reports notifications' tags.
struct Reader(mpsc::UnboundedSender<Option<Tag>>);

impl Handler for Reader {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        // Moved to the context: the request itself no longer carries it.
        assert!(request.extensions.is_empty());
        to_raw_value(&ctx.extensions().get::<Tag>().map(|t| t.0))
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let _ = self.0.send(notification.extensions.get::<Tag>().cloned());
    }
}

#[tokio::test(start_paused = true)]
async fn transport_extensions_reach_the_handler() {
    let (client_end, server_end) = memory::pair(8);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (_, server) = Connection::new(Tagging(server_end), Reader(tx), Config::default());
    tokio::spawn(server.run());
    let (peer, client) = Connection::new(client_end, (), Config::default());
    tokio::spawn(client.run());

    let result = peer.request("whoami", None).await.unwrap();
    assert_eq!(result.get(), r#""request""#);
    peer.notify("note", None).await.unwrap();
    assert_eq!(rx.recv().await.unwrap(), Some(Tag("notification")));
}

#[test]
fn decoded_and_constructed_messages_have_no_extensions() {
    let Message::Request(r) = Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#) else {
        panic!("a request")
    };
    assert!(r.extensions.is_empty());
    let mut r = Request::new(2, "m", None);
    assert!(r.extensions.is_empty());
    r.extensions.insert(Tag("x"));
    // Extensions never go on the wire, and clone with the message.
    let msg = Message::Request(r);
    assert_eq!(
        msg.to_json().unwrap(),
        r#"{"jsonrpc":"2.0","id":2,"method":"m"}"#
    );
    let Message::Request(copy) = msg.clone() else {
        unreachable!()
    };
    assert_eq!(copy.extensions.get::<Tag>(), Some(&Tag("x")));
    let n = Notification::new("n", None);
    assert!(n.extensions.is_empty());
}

/// Reports the tag of every request it sends, then hands the message on.
struct Spying<T>(T, mpsc::UnboundedSender<(mcp_jsonrpc::Id, Option<Tag>)>);

impl<T: Transport> Transport for Spying<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        if let Message::Request(r) = &msg {
            let _ = self
                .1
                .send((r.id.clone(), r.extensions.get::<Tag>().cloned()));
        }
        self.0.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, T::Error> {
        self.0.recv().await
    }
}

#[tokio::test(start_paused = true)]
async fn request_options_reach_the_senders_transport_but_not_the_wire() {
    let (client_end, server_end) = memory::pair(8);
    let (tags, _) = mpsc::unbounded_channel();
    let (_, server) = Connection::new(server_end, Reader(tags), Config::default());
    tokio::spawn(server.run());
    let (sent, mut spied) = mpsc::unbounded_channel();
    let (peer, client) = Connection::new(Spying(client_end, sent), (), Config::default());
    tokio::spawn(client.run());

    let id = peer.next_id();
    let options = mcp_jsonrpc::RequestOptions::new()
        .id(id.clone())
        .extension(Tag("hint"));
    let result = peer.request_with("whoami", None, options).await.unwrap();
    // The server's handler found no tag: the memory pair, like a wire, drops extensions.
    assert_eq!(result.get(), "null");
    assert_eq!(spied.recv().await.unwrap(), (id.clone(), Some(Tag("hint"))));
    // Fresh ids never repeat the reserved one.
    assert_ne!(peer.next_id(), id);
}

#[tokio::test(start_paused = true)]
async fn a_pending_id_cannot_be_reused() {
    let (client_end, _server_end) = memory::pair(8);
    let (peer, client) = Connection::new(client_end, (), Config::default());
    tokio::spawn(client.run());
    let id = peer.next_id();
    let first = peer.request_with(
        "slow",
        None,
        mcp_jsonrpc::RequestOptions::new().id(id.clone()),
    );
    let second = async {
        tokio::task::yield_now().await;
        peer.request_with(
            "again",
            None,
            mcp_jsonrpc::RequestOptions::new().id(id.clone()),
        )
        .await
    };
    tokio::select! {
        _ = first => panic!("nobody answers the first request"),
        second = second => match second {
            Err(mcp_jsonrpc::Error::DuplicateId(dup)) => assert_eq!(dup, id),
            other => panic!("expected a duplicate id error, got {other:?}"),
        },
    }
}
