//! Tasks, both eras, through our client: a tool call that runs as a task, followed, answered,
//! cancelled, listed, limited, owned.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt as _;
use mcp_client::{Client, ClientBuilder, EraChoice, Error as ClientError, ToolCallOutcome};
use mcp_server::tasks::Tasks;
use mcp_server::types::{
    CallTool, CallToolRequestParams, ElicitRequestFormParams, ElicitRequestParams, ElicitResult,
    ElicitValue, ErrorCode, ErrorObject, TaskStatus, ToolTaskSupport,
};
use mcp_server::{Context, HandlerError, Server, Tool};
use serde_json::json;

/// Tasks run on tokio, polled every 20 ms.
fn tasks() -> Tasks {
    Tasks::new(|task| {
        tokio::spawn(task);
    })
    .poll_interval(Duration::from_millis(20))
}

fn form(message: &str) -> ElicitRequestFormParams {
    serde_json::from_value(json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}},
            "required": ["answer"]},
    }))
    .unwrap()
}

/// Sets its flag when dropped while armed: the handler was stopped before its end.
struct Stopped(Arc<AtomicBool>, bool);

impl Drop for Stopped {
    fn drop(&mut self) {
        if self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// A server whose tools run as tasks: `slow` (may; as a task, until cancelled), `needed`
/// (must), `never`, `ask` (must; asks for an answer inside the task), `later` (must, deferred:
/// asks in the request first).
fn server_with(tasks: Tasks, cancelled: Arc<AtomicBool>) -> Server {
    builder_with(tasks, cancelled).build()
}

/// An instance of a deployment: [`server_with`], its tasks in `store`, its events on `bus`.
fn shared_instance(
    store: &Arc<mcp_server::tasks::InMemoryTaskStore>,
    bus: &Arc<mcp_server::InMemoryEventBus>,
    cancelled: Arc<AtomicBool>,
) -> Server {
    builder_with(tasks().store(store.clone()), cancelled)
        .event_bus(bus.clone())
        .build()
}

/// The builder of [`server_with`].
fn builder_with(tasks: Tasks, cancelled: Arc<AtomicBool>) -> mcp_server::ServerBuilder {
    let slow = Tool::new("slow", move |cx: Context| {
        let stopped = Stopped(cancelled.clone(), true);
        async move {
            // The whole guard lives in the future (not just the field written below).
            let mut stopped = stopped;
            for step in 1..=3 {
                tokio::time::sleep(Duration::from_millis(30)).await;
                let _ = cx.report_progress(f64::from(step), Some(3.0), None).await;
            }
            if cx.task_id().is_some() {
                // Until cancelled: then the future is dropped, and the token fires.
                cx.cancellation().cancelled().await;
            }
            stopped.1 = false;
            "done".to_owned()
        }
    })
    .task_support(ToolTaskSupport::Optional);
    Server::builder()
        .tasks(tasks)
        .tool(slow)
        .tool(
            Tool::new("needed", || async { "needed done" }).task_support(ToolTaskSupport::Required),
        )
        .tool(Tool::new("never", || async { "never a task" }))
        .tool(
            Tool::new("ask", |cx: Context| async move {
                let answer = cx.elicit(form("Your answer?")).await?;
                let text = match answer.content.as_ref().and_then(|c| c.get("answer")) {
                    Some(ElicitValue::String(s)) => s.clone(),
                    _ => "none".to_owned(),
                };
                Ok::<_, HandlerError>(format!("answered {text} in {}", cx.task_id().is_some()))
            })
            .task_support(ToolTaskSupport::Required),
        )
        .tool(
            Tool::new("later", |cx: Context| async move {
                let answer = cx.elicit_keyed("first", form("Before the task?")).await?;
                cx.start_task().await?;
                let text = match answer.content.as_ref().and_then(|c| c.get("answer")) {
                    Some(ElicitValue::String(s)) => s.clone(),
                    _ => "none".to_owned(),
                };
                Ok::<_, HandlerError>(format!("{text}, then a task {}", cx.task_id().is_some()))
            })
            .task_support(ToolTaskSupport::Required)
            .deferred_task(),
        )
}

fn answering(era: EraChoice) -> ClientBuilder {
    Client::builder()
        .era(era)
        .elicitation(|params: ElicitRequestParams, _cx| async move {
            let ElicitRequestParams::Form(form) = params else {
                return Ok(ElicitResult::decline());
            };
            let answer = if form.message.contains("Before") {
                "early"
            } else {
                "42"
            };
            let content = BTreeMap::from([("answer".to_owned(), ElicitValue::from(answer))]);
            Ok::<_, ErrorObject>(ElicitResult::accept(Some(content)))
        })
}

async fn connect(server: &Server, builder: ClientBuilder) -> Client {
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(64);
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(server_end).await });
    let (client, connection) = builder.connect(client_end).await.expect("connect");
    tokio::spawn(connection);
    client.list_tools(None).await.expect("tools/list");
    client
}

fn code(e: &ClientError) -> i32 {
    e.as_rpc().map_or(0, |rpc| rpc.code.0)
}

#[tokio::test]
async fn the_handshake_era_asks_for_tasks() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = server_with(tasks(), cancelled.clone());
    let client = connect(&server, answering(EraChoice::Legacy)).await;
    let caps = client.server_capabilities();
    assert!(caps.tasks.as_ref().and_then(|t| t.list.as_ref()).is_some());
    let tools = client.list_tools(None).await.unwrap();
    let needed = tools.tools.iter().find(|t| t.name == "needed").unwrap();
    assert_eq!(
        needed.execution.as_ref().and_then(|e| e.task_support),
        Some(ToolTaskSupport::Required)
    );

    // A tool the server must run as a task: the client asks for one and waits.
    let done = client
        .call_tool(CallToolRequestParams::new("needed"))
        .await
        .unwrap();
    assert_eq!(done.content[0].as_text(), Some("needed done"));
    // Without a task it is refused; a tool that never runs as one refuses a task.
    let refused = client
        .request::<CallTool>(CallToolRequestParams::new("needed"))
        .await
        .unwrap_err();
    assert_eq!(code(&refused), ErrorCode::METHOD_NOT_FOUND.0);
    let refused = client
        .call_tool_as_task(CallToolRequestParams::new("never"), None)
        .await
        .unwrap_err();
    assert_eq!(code(&refused), ErrorCode::METHOD_NOT_FOUND.0);

    // Input inside the task: a server request the elicitation handler answers.
    let ToolCallOutcome::Task(task) = client
        .call_tool_as_task(
            CallToolRequestParams::new("ask"),
            Some(Duration::from_secs(30)),
        )
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    assert_eq!(task.ttl, Some(Duration::from_secs(30)));
    let result = client.task_result(&task.task_id).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("answered 42 in true"));
    let listed = client.list_tasks(None).await.unwrap();
    assert!(listed.tasks.iter().any(|t| t.task_id == task.task_id));

    // Cancelled while it runs: its handler is stopped; a second cancel is refused.
    let ToolCallOutcome::Task(slow) = client
        .call_tool_as_task(CallToolRequestParams::new("slow"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    assert_eq!(
        client.get_task(&slow.task_id).await.unwrap().status,
        TaskStatus::Working
    );
    client.cancel_task(&slow.task_id).await.unwrap();
    assert_eq!(
        client.get_task(&slow.task_id).await.unwrap().status,
        TaskStatus::Cancelled
    );
    let again = client.cancel_task(&slow.task_id).await.unwrap_err();
    assert_eq!(code(&again), ErrorCode::INVALID_PARAMS.0);
    tokio::time::timeout(Duration::from_secs(5), async {
        while !cancelled.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the handler was stopped");
    let unknown = client.get_task("task-nope").await.unwrap_err();
    assert_eq!(code(&unknown), ErrorCode::INVALID_PARAMS.0);
}

#[tokio::test]
async fn the_stateless_era_lets_the_server_decide() {
    let server = server_with(tasks(), Arc::default());
    let client = connect(&server, answering(EraChoice::Auto)).await;
    assert!(
        client
            .server_capabilities()
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key("io.modelcontextprotocol/tasks"))
    );
    // `call_tool` follows a task to its end, input included.
    let asked = client
        .call_tool(CallToolRequestParams::new("ask"))
        .await
        .unwrap();
    assert_eq!(asked.content[0].as_text(), Some("answered 42 in true"));
    // Input before the task is a round of the request; input inside it a task update.
    let later = client
        .call_tool(CallToolRequestParams::new("later"))
        .await
        .unwrap();
    assert_eq!(later.content[0].as_text(), Some("early, then a task true"));
    // A tool that never runs as a task answers at once.
    let never = client
        .call_tool_as_task(CallToolRequestParams::new("never"), None)
        .await
        .unwrap();
    assert!(matches!(never, ToolCallOutcome::Complete(_)));

    // Following a task by hand, then cancelling it: an acknowledgement, then `cancelled`.
    let ToolCallOutcome::Task(slow) = client
        .call_tool_as_task(CallToolRequestParams::new("slow"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    let first = client
        .watch_task(&slow.task_id)
        .next()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.status, TaskStatus::Working);
    client.cancel_task(&slow.task_id).await.unwrap();
    let states: Vec<_> = client.watch_task(&slow.task_id).collect().await;
    let last = states.last().unwrap().as_ref().unwrap();
    assert_eq!(last.status, TaskStatus::Cancelled);
    // Cancelling an ended task is still acknowledged.
    client.cancel_task(&slow.task_id).await.unwrap();
    let err = client.task_result(&slow.task_id).await.unwrap_err();
    assert!(matches!(err, ClientError::TaskCancelled { .. }), "{err}");
    // The revision has no tasks/list.
    assert!(matches!(
        client.list_tasks(None).await.unwrap_err(),
        ClientError::NotInRevision { .. }
    ));

    // A client that does not take tasks cannot call a tool that must be one.
    let plain = connect(&server, Client::builder().tasks(false)).await;
    let refused = plain
        .call_tool(CallToolRequestParams::new("needed"))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, ClientError::MissingClientCapability { .. }),
        "{refused}"
    );
    let get = plain.get_task(&slow.task_id).await.unwrap_err();
    assert!(
        matches!(get, ClientError::MissingClientCapability { .. }),
        "{get}"
    );
    // Optional tools run in the request for it.
    let done = plain
        .call_tool(CallToolRequestParams::new("never"))
        .await
        .unwrap();
    assert_eq!(done.content[0].as_text(), Some("never a task"));
}

#[tokio::test]
async fn limits_and_owners() {
    // One task at a time; tasks kept for 300 ms.
    let limited = tasks().max_running(1).ttl(Some(Duration::from_millis(300)));
    let server = server_with(limited, Arc::default());
    let alice = connect(&server, answering(EraChoice::Legacy)).await;
    let ToolCallOutcome::Task(slow) = alice
        .call_tool_as_task(CallToolRequestParams::new("slow"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    let busy = alice
        .call_tool_as_task(CallToolRequestParams::new("slow"), None)
        .await
        .unwrap_err();
    assert_eq!(code(&busy), ErrorCode::INTERNAL_ERROR.0, "{busy}");
    // Another session does not see alice's task.
    let bob = connect(&server, answering(EraChoice::Legacy)).await;
    assert_eq!(
        code(&bob.get_task(&slow.task_id).await.unwrap_err()),
        ErrorCode::INVALID_PARAMS.0
    );
    assert!(bob.list_tasks(None).await.unwrap().tasks.is_empty());
    alice.cancel_task(&slow.task_id).await.unwrap();
    // Once its time is up, the task is gone.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        code(&alice.get_task(&slow.task_id).await.unwrap_err()),
        ErrorCode::INVALID_PARAMS.0
    );
}

/// Records the statuses `notifications/tasks/status` tells.
#[derive(Clone, Default)]
struct Told(Arc<std::sync::Mutex<Vec<TaskStatus>>>);

impl mcp_client::ClientHandler for Told {
    async fn on_task_status(&self, params: mcp_server::types::TaskStatusNotificationParams) {
        self.0.lock().unwrap().push(params.task.status);
    }
}

#[tokio::test]
async fn the_handshake_era_is_told_each_status() {
    // Polls every 10 s: the watch below ends long before, woken by the notifications.
    let tasks = tasks().poll_interval(Duration::from_secs(10));
    let server = server_with(tasks, Arc::new(AtomicBool::new(false)));
    let told = Told::default();
    let client = connect(&server, answering(EraChoice::Legacy).handler(told.clone())).await;

    let ToolCallOutcome::Task(task) = client
        .call_tool_as_task(CallToolRequestParams::new("ask"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    let watched = tokio::time::timeout(
        Duration::from_secs(5),
        client.watch_task(&task.task_id).collect::<Vec<_>>(),
    )
    .await
    .expect("the status notifications woke the watch");
    let last = watched.last().unwrap().as_ref().unwrap();
    assert_eq!(last.status, TaskStatus::Completed);
    assert_eq!(
        *told.0.lock().unwrap(),
        [
            TaskStatus::InputRequired,
            TaskStatus::Working,
            TaskStatus::Completed
        ]
    );
}

#[tokio::test]
async fn the_stateless_era_hears_of_tasks_it_listens_to() {
    use mcp_server::types::{ServerNotification, SubscriptionFilter};

    let server = server_with(tasks(), Arc::default());
    let client = connect(&server, answering(EraChoice::Auto)).await;
    let ToolCallOutcome::Task(slow) = client
        .call_tool_as_task(CallToolRequestParams::new("slow"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    let mut filter = SubscriptionFilter::default();
    filter.extra.insert(
        "taskIds".into(),
        json!([slow.task_id, "task-of-nobody-known"]),
    );
    let mut heard = client.listen(filter.clone()).await.unwrap();
    // Only the tasks the listener may see are acknowledged.
    assert_eq!(
        heard.acknowledged().extra.get("taskIds"),
        Some(&json!([slow.task_id]))
    );
    client.cancel_task(&slow.task_id).await.unwrap();
    let told = tokio::time::timeout(Duration::from_secs(5), heard.next())
        .await
        .expect("notifications/tasks in time")
        .unwrap()
        .unwrap();
    let ServerNotification::TaskChanged(told) = told else {
        panic!("{told:?}")
    };
    assert_eq!(told.task.task_id, slow.task_id);
    assert_eq!(told.task.status, TaskStatus::Cancelled);
    assert!(told.meta.is_some(), "tagged with the subscription id");

    // Naming tasks without the extension is refused with -32021.
    let plain = connect(&server, Client::builder().tasks(false)).await;
    let refused = plain.listen(filter).await.unwrap_err();
    assert!(
        matches!(refused, ClientError::MissingClientCapability { .. }),
        "{refused}"
    );
}

/// Two servers sharing a task store and an event bus, as instances of one deployment behind
/// a load balancer do: a 2026-07-28 task running on `a` gets its input and its cancellation
/// through `b`.
#[tokio::test]
async fn input_and_cancellation_reach_a_task_running_on_another_instance() {
    let store = Arc::new(mcp_server::tasks::InMemoryTaskStore::default());
    let bus = Arc::new(mcp_server::InMemoryEventBus::default());
    let cancelled_on_a = Arc::new(AtomicBool::new(false));
    let a = shared_instance(&store, &bus, cancelled_on_a.clone());
    let b = shared_instance(&store, &bus, Arc::default());
    let on_a = connect(&a, answering(EraChoice::Modern)).await;
    let on_b = connect(&b, answering(EraChoice::Modern)).await;

    // Input: the task waits on `a`; `b` sees it wait and delivers the answer.
    let ToolCallOutcome::Task(asked) = on_a
        .call_tool_as_task(CallToolRequestParams::new("ask"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    let result = tokio::time::timeout(Duration::from_secs(10), on_b.task_result(&asked.task_id))
        .await
        .expect("the answer given through b never reached the task on a")
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("answered 42 in true"));

    // Cancellation: the task on `a` stops when `b` is asked to cancel it.
    let ToolCallOutcome::Task(slow) = on_a
        .call_tool_as_task(CallToolRequestParams::new("slow"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    on_b.cancel_task(&slow.task_id).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        while !cancelled_on_a.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the task on a kept running after tasks/cancel through b");
    assert_eq!(
        on_a.get_task(&slow.task_id).await.unwrap().status,
        TaskStatus::Cancelled
    );
}
