//! tower layers around the whole server and around one tool: metrics, refusals, timeouts and
//! a per-tool authorization check.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use mcp_server::types::JsonObject;
use mcp_server::{BoxError, BoxFuture, Error, McpRequest, McpResponse, Server, Tool, ToolCall};
use serde_json::json;
use tower::ServiceBuilder;
use tower::filter::FilterLayer;
use tower::timeout::TimeoutLayer;
use tower_layer::layer_fn;
use tower_service::Service;

use crate::support::{Client, rpc_error};

/// What the metrics layer saw: `(method, tool or prompt name, ok)`.
type Seen = Arc<Mutex<Vec<(String, Option<String>, bool)>>>;

/// A metrics middleware: records every request's method, target and outcome.
#[derive(Clone)]
struct Metrics<S> {
    inner: S,
    seen: Seen,
}

#[derive(serde::Deserialize)]
struct Named {
    name: Option<String>,
}

impl<S> Service<McpRequest> for Metrics<S>
where
    S: Service<McpRequest, Response = McpResponse, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: McpRequest) -> Self::Future {
        let method = req.method().to_owned();
        let name = req.params_as::<Named>().ok().and_then(|n| n.name);
        let seen = self.seen.clone();
        let fut = self.inner.call(req);
        Box::pin(async move {
            let result = fut.await;
            seen.lock().unwrap().push((method, name, result.is_ok()));
            result
        })
    }
}

/// A handler that notices being dropped before it finished.
struct DropFlag(Arc<AtomicBool>, bool);

impl Drop for DropFlag {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

fn slow_tool(name: &'static str, cancelled: Arc<AtomicBool>) -> Tool {
    Tool::raw(name, json!({"type": "object"}), move |_: JsonObject| {
        let cancelled = cancelled.clone();
        async move {
            let mut flag = DropFlag(cancelled, false);
            tokio::time::sleep(Duration::from_secs(60)).await;
            flag.1 = true;
            "finished"
        }
    })
    .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_server_layer_sees_every_request_and_can_refuse_one() {
    let seen = Seen::default();
    let metrics = {
        let seen = seen.clone();
        layer_fn(move |inner| Metrics {
            inner,
            seen: seen.clone(),
        })
    };
    // Refuses `prompts/list` with an error of its own, before the router.
    let refuse = FilterLayer::new(|req: McpRequest| {
        if req.method() == "prompts/list" {
            Err(Error::rpc(-32050, "prompts are closed today"))
        } else {
            Ok(req)
        }
    });
    let server = Server::builder()
        .tool(Tool::new("hello", || async { "hi" }))
        .declare_prompts()
        .layer(refuse)
        // Added last, so outermost: it sees the refusal too.
        .layer(metrics)
        .build();
    let client = Client::connect_full(&server).await;
    client.raw("tools/list", json!({})).await.unwrap();
    client
        .raw("tools/call", json!({"name": "hello"}))
        .await
        .unwrap();
    let err = rpc_error(client.raw("prompts/list", json!({})).await.unwrap_err());
    assert_eq!(
        (err.code.0, err.message.as_str()),
        (-32050, "prompts are closed today")
    );
    client.raw("ping", json!({})).await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("tools/list".to_owned(), None, true),
            ("tools/call".to_owned(), Some("hello".to_owned()), true),
            ("prompts/list".to_owned(), None, false),
        ],
        "the lifecycle (`initialize`, `ping`) is answered before the layers"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_timeout_layer_cancels_a_slow_call() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = Server::builder()
        .tool(slow_tool("slow", cancelled.clone()))
        .tool(Tool::new("fast", || async { "fast" }))
        .layer(TimeoutLayer::new(Duration::from_secs(5)))
        .build();
    let client = Client::connect_full(&server).await;
    let started = tokio::time::Instant::now();
    let err = rpc_error(
        client
            .raw("tools/call", json!({"name": "slow"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (err.code.0, err.message.as_str()),
        (-32603, "request timed out")
    );
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert!(cancelled.load(Ordering::SeqCst), "the handler was dropped");
    let ok = client
        .raw("tools/call", json!({"name": "fast"}))
        .await
        .unwrap();
    assert_eq!(ok["content"][0]["text"], "fast");
}

/// The principal an auth layer in front of the transport would attach.
#[derive(Clone)]
struct Principal(&'static str);

/// A per-tool authorization check: only `admin` may call the tool it wraps.
fn admin_check(call: ToolCall) -> Result<ToolCall, Error> {
    match call.extensions().get::<Principal>() {
        Some(Principal("admin")) => Ok(call),
        _ => Err(Error::rpc(-32001, format!("{} is for admins", call.name()))),
    }
}

#[tokio::test(start_paused = true)]
async fn tool_layers_wrap_one_tool_only() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = Server::builder()
        .tool(slow_tool("slow", cancelled.clone()).layer(TimeoutLayer::new(Duration::from_secs(2))))
        .tool(
            Tool::new("reset", || async { "reset done" })
                .layer(FilterLayer::new(admin_check))
                .layer(ServiceBuilder::new().concurrency_limit(1).into_inner()),
        )
        .tool(Tool::new("open", || async { "for everyone" }))
        .build();

    let admin = Client::connect_with(&server, Principal("admin")).await;
    let user = Client::connect_with(&server, Principal("user")).await;

    let ok = admin
        .raw("tools/call", json!({"name": "reset"}))
        .await
        .unwrap();
    assert_eq!(ok["content"][0]["text"], "reset done");
    let err = rpc_error(
        user.raw("tools/call", json!({"name": "reset"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (err.code.0, err.message.as_str()),
        (-32001, "reset is for admins")
    );
    let open = user
        .raw("tools/call", json!({"name": "open"}))
        .await
        .unwrap();
    assert_eq!(open["content"][0]["text"], "for everyone");

    let started = tokio::time::Instant::now();
    let err = rpc_error(
        user.raw("tools/call", json!({"name": "slow"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.message, "request timed out");
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    assert!(cancelled.load(Ordering::SeqCst));
}
