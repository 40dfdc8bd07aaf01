//! Server notifications reach the handler in order; progress reaches the call that asked.

use std::sync::{Arc, Mutex};

use mcp_client::{CallOptions, Client, ClientHandler};
use mcp_types::{
    CallTool, CallToolRequestParams, ElicitationComplete, EmptyParams, LoggingLevel,
    LoggingMessage, LoggingMessageNotificationParams, Progress, ProgressNotificationParams,
    ProgressToken, PromptListChanged, Request as _, ResourceListChanged, ResourceUpdated,
    ResourceUpdatedNotificationParams, ServerNotification, ToolListChanged,
};
use serde_json::json;
use tokio::sync::mpsc;

use crate::support::FakeServer;

#[tokio::test]
async fn notifications_arrive_in_order_through_a_channel() {
    let (tx, mut rx) = mpsc::channel(4);
    let h = FakeServer::new()
        .connect(Client::builder().handler(tx))
        .await;
    let s = &h.server;
    s.notify::<ToolListChanged>(EmptyParams::default()).await;
    s.notify::<ResourceListChanged>(EmptyParams::default())
        .await;
    s.notify::<PromptListChanged>(EmptyParams::default()).await;
    s.notify::<ResourceUpdated>(ResourceUpdatedNotificationParams::new("file:///a"))
        .await;
    s.notify::<LoggingMessage>(LoggingMessageNotificationParams::new(
        LoggingLevel::Error,
        json!({"oops": 1}),
    ))
    .await;
    // Ten more list changes than the channel holds: the handler waits, nothing is lost.
    for _ in 0..10 {
        s.notify::<ToolListChanged>(EmptyParams::default()).await;
    }

    let mut got = Vec::new();
    for _ in 0..15 {
        got.push(rx.recv().await.unwrap());
    }
    let methods: Vec<&str> = got.iter().map(ServerNotification::method).collect();
    assert_eq!(
        methods[..5],
        [
            "notifications/tools/list_changed",
            "notifications/resources/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/updated",
            "notifications/message",
        ]
    );
    assert!(
        methods[5..]
            .iter()
            .all(|m| *m == "notifications/tools/list_changed")
    );
    assert!(matches!(&got[3], ServerNotification::ResourceUpdated(p) if p.uri == "file:///a"));
    assert!(matches!(&got[4], ServerNotification::LoggingMessage(p)
        if p.level == LoggingLevel::Error && p.data == json!({"oops": 1})));
}

/// Records which handler method ran.
#[derive(Clone, Default)]
struct Recorder {
    log: Arc<Mutex<Vec<String>>>,
    done: Option<mpsc::Sender<()>>,
}

impl Recorder {
    fn push(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }
}

impl ClientHandler for Recorder {
    async fn on_tool_list_changed(&self) {
        self.push("tools".into());
    }
    async fn on_resource_list_changed(&self) {
        self.push("resources".into());
    }
    async fn on_prompt_list_changed(&self) {
        self.push("prompts".into());
    }
    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        self.push(format!("updated {}", params.uri));
    }
    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        self.push(format!("log {}", params.level));
    }
    async fn on_progress(&self, params: ProgressNotificationParams) {
        self.push(format!("progress {}", params.progress));
    }
    async fn on_elicitation_complete(
        &self,
        params: mcp_types::ElicitationCompleteNotificationParams,
    ) {
        self.push(format!("complete {}", params.elicitation_id));
        if let Some(done) = &self.done {
            done.send(()).await.unwrap();
        }
    }
}

#[tokio::test]
async fn the_handler_trait_dispatches_each_kind() {
    let (done_tx, mut done) = mpsc::channel(1);
    let recorder = Recorder {
        done: Some(done_tx),
        ..Default::default()
    };
    let h = FakeServer::new()
        .connect(Client::builder().handler(recorder.clone()))
        .await;
    let s = &h.server;
    s.notify::<ToolListChanged>(EmptyParams::default()).await;
    s.notify::<ResourceListChanged>(EmptyParams::default())
        .await;
    s.notify::<PromptListChanged>(EmptyParams::default()).await;
    s.notify::<ResourceUpdated>(ResourceUpdatedNotificationParams::new("file:///b"))
        .await;
    s.notify::<LoggingMessage>(LoggingMessageNotificationParams::new(
        LoggingLevel::Info,
        "x",
    ))
    .await;
    // Progress for a token no call is waiting for goes to the handler.
    s.notify::<Progress>(ProgressNotificationParams::new(
        ProgressToken::Number(999),
        0.5,
    ))
    .await;
    s.notify::<ElicitationComplete>({
        let mut built = mcp_types::ElicitationCompleteNotificationParams::default();
        built.elicitation_id = "e1".into();
        built
    })
    .await;
    done.recv().await.unwrap();
    assert_eq!(
        *recorder.log.lock().unwrap(),
        [
            "tools",
            "resources",
            "prompts",
            "updated file:///b",
            "log info",
            "progress 0.5",
            "complete e1"
        ]
    );
}

#[tokio::test]
async fn progress_reaches_the_call_that_asked_for_it() {
    // The server waits for the test to have seen each progress before going on (mcp-jsonrpc
    // may otherwise write a handler's response ahead of the notifications it sent before it).
    let (ack_tx, ack_rx) = mpsc::channel::<()>(1);
    let ack_rx = Arc::new(tokio::sync::Mutex::new(ack_rx));
    let server = FakeServer::new().route(CallTool::METHOD, move |params, ctx| {
        let ack_rx = ack_rx.clone();
        async move {
            assert!(!params["_meta"]["progressToken"].is_null(), "{params}");
            let mut ack = ack_rx.lock().await;
            ctx.report_progress(1.0, Some(3.0), Some("one"))
                .await
                .unwrap();
            ack.recv().await.unwrap();
            ctx.report_progress(2.0, Some(3.0), None).await.unwrap();
            ack.recv().await.unwrap();
            ctx.report_progress(3.0, Some(3.0), Some("done"))
                .await
                .unwrap();
            ack.recv().await.unwrap();
            Ok(json!({"content": []}))
        }
    });
    let (tx, mut other) = mpsc::channel(8);
    let h = server.connect(Client::builder().handler(tx)).await;
    let (mut progress, call) = h
        .client
        .call_tool_with_progress(CallToolRequestParams::new("slow"), CallOptions::new());
    let watch = async {
        let mut seen = Vec::new();
        while let Some(p) = progress.recv().await {
            seen.push((p.progress, p.total, p.message));
            ack_tx.send(()).await.unwrap();
        }
        seen
    };
    let (result, seen) = tokio::join!(call, watch);
    result.unwrap();
    assert_eq!(
        seen,
        [
            (1.0, Some(3.0), Some("one".to_owned())),
            (2.0, Some(3.0), None),
            (3.0, Some(3.0), Some("done".to_owned())),
        ]
    );
    // None of it went to the notification handler.
    assert!(other.try_recv().is_err());
}
