//! What the transport attaches to each inbound message: the session handle, a
//! `RequestStream`, the HTTP headers and the HTTP request's extensions.

use axum::extract::Request as HttpRequest;
use http::HeaderMap;
use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Notification, NotificationContext, Request,
    RequestContext, to_raw_value,
};
use mcp_transport_http::server::{RequestStream, SessionHandle, StreamableHttpService};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{VERSION, initialize_body, json_body, request};

/// What an auth layer in front of the service would establish.
#[derive(Debug, Clone)]
struct Principal(&'static str);

/// Reports what it finds in the extensions.
struct Inspect(mpsc::UnboundedSender<Value>);

fn describe(ext: &mcp_jsonrpc::Extensions) -> Value {
    json!({
        "session": ext.get::<SessionHandle>().map(|h| h.session_id().map(str::to_owned)),
        "stream": ext.get::<RequestStream>().map(|s| s.request_id().to_string()),
        "user": ext
            .get::<HeaderMap>()
            .and_then(|h| h.get("x-user"))
            .and_then(|v| v.to_str().ok()),
        "principal": ext
            .get::<http::Extensions>()
            .and_then(|e| e.get::<Principal>())
            .map(|p| p.0),
    })
}

impl Handler for Inspect {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        if request.method == "initialize" {
            return to_raw_value(&json!({
                "protocolVersion": VERSION,
                "capabilities": {},
                "serverInfo": {"name": "inspect", "version": "1"},
            }));
        }
        to_raw_value(&describe(ctx.extensions()))
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let _ = self.0.send(describe(&notification.extensions));
    }
}

#[tokio::test]
async fn requests_and_notifications_carry_the_http_context() {
    let (tx, mut notes) = mpsc::unbounded_channel();
    let service = StreamableHttpService::builder().build(move |transport, _info| {
        let (_, connection) = Connection::new(transport, Inspect(tx.clone()), Config::default());
        async move {
            let _ = connection.run().await;
        }
    });
    // A stand-in for an auth layer: it puts the principal in the HTTP request's extensions.
    let app = service.router().layer(axum::middleware::map_request(
        |mut req: HttpRequest| async {
            req.extensions_mut().insert(Principal("alice"));
            req
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let client = reqwest::Client::new();
    let post = |session: Option<&str>, body: Value| {
        let mut req = client
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", VERSION)
            .header("x-user", "bob")
            .body(body.to_string());
        if let Some(id) = session {
            req = req.header("mcp-session-id", id);
        }
        req.send()
    };
    let res = post(None, initialize_body(VERSION)).await.unwrap();
    let session = res.headers()["mcp-session-id"].to_str().unwrap().to_owned();

    let res = post(Some(&session), request(7, "inspect", json!({})))
        .await
        .unwrap();
    let body = json_body(res).await;
    assert_eq!(
        body["result"],
        json!({"session": session, "stream": "7", "user": "bob", "principal": "alice"})
    );

    let res = post(
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), 202);
    let note = notes.recv().await.unwrap();
    assert_eq!(
        note,
        json!({"session": session, "stream": null, "user": "bob", "principal": "alice"})
    );
}
