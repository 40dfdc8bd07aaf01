//! What a task running here does when the event bus lost the news another instance published.

use std::time::Duration;

use serde_json::json;

use super::*;
use crate::events::InMemoryEventBus;
use crate::tasks::{InMemoryTaskStore, TaskStore as _};

/// Two instances' task runtimes sharing a store and a bus; a task `t` created in the store.
async fn two_instances() -> (Arc<TaskRuntime>, Arc<TaskRuntime>) {
    let store = Arc::new(InMemoryTaskStore::default());
    let bus: Arc<dyn EventBus> = Arc::new(InMemoryEventBus::default());
    let runtime = || {
        let tasks = Tasks::new(|task| {
            tokio::spawn(task);
        })
        .store(store.clone());
        Arc::new(TaskRuntime::new(tasks, bus.clone()))
    };
    store
        .create(TaskRecord::new("t", None, None))
        .await
        .unwrap();
    (runtime(), runtime())
}

/// `a` runs `t`, which asks under `key`; returns its answer once it comes.
async fn asking(
    a: &Arc<TaskRuntime>,
    key: &str,
) -> (
    Arc<LiveTask>,
    tokio::task::JoinHandle<Result<InputResponse>>,
) {
    let live = a.register("t", true, None);
    let request: InputRequest = serde_json::from_value(json!({"method": "roots/list"})).unwrap();
    let (runtime, task, key) = (a.clone(), live.clone(), key.to_owned());
    let answer = tokio::spawn(async move { runtime.ask(&task, key, request).await });
    // Until the store shows the request.
    while stored(a).await.input_requests.is_empty() {
        tokio::task::yield_now().await;
    }
    (live, answer)
}

async fn stored(runtime: &TaskRuntime) -> TaskRecord {
    runtime.config.store.get("t").await.unwrap().unwrap()
}

fn roots() -> BTreeMap<String, serde_json::Value> {
    BTreeMap::from([("k".to_owned(), json!({"roots": []}))])
}

#[tokio::test]
async fn an_answer_lost_with_the_bus_is_asked_again_and_then_reaches_the_task() {
    let (a, b) = two_instances().await;
    let (live, answer) = asking(&a, "k").await;
    // `b` takes the answer off the stored task; its event to `a` is lost (nothing listens on
    // `a` yet, as when its subscriber lagged).
    b.deliver("t", roots()).await.unwrap();
    assert!(stored(&a).await.input_requests.is_empty());
    assert_eq!(stored(&a).await.status, TaskStatus::Working);

    // `a` hears it lagged: the request is outstanding again.
    a.reconcile(&live).await;
    let record = stored(&a).await;
    assert_eq!(record.status, TaskStatus::InputRequired);
    assert!(record.input_requests.contains_key("k"));

    // Answered again through `b`, it reaches the task over the bus; the store is left with
    // nothing outstanding by `a`, which asked again.
    let watching = {
        let (a, live) = (a.clone(), live.clone());
        tokio::spawn(async move { a.watch_bus(&live).await })
    };
    tokio::task::yield_now().await;
    b.deliver("t", roots()).await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .expect("the answer given again never reached the task")
        .unwrap()
        .unwrap();
    assert!(matches!(got, InputResponse::ListRoots(_)));
    let record = stored(&a).await;
    assert!(record.input_requests.is_empty());
    assert_eq!(record.status, TaskStatus::Working);
    watching.abort();
}

#[tokio::test]
async fn a_cancellation_lost_with_the_bus_still_stops_the_task() {
    let (a, b) = two_instances().await;
    let (live, _answer) = asking(&a, "k").await;
    // `b` cancels it in the store; the event to `a` is lost.
    b.cancel("t").await.unwrap();
    assert!(!live.cancellation.is_cancelled());
    a.reconcile(&live).await;
    assert!(live.cancellation.is_cancelled());
}

#[tokio::test]
async fn nothing_lost_changes_nothing() {
    let (a, _b) = two_instances().await;
    let (live, _answer) = asking(&a, "k").await;
    let before = stored(&a).await;
    a.reconcile(&live).await;
    assert_eq!(stored(&a).await, before);
    assert!(!live.cancellation.is_cancelled());
    assert!(!live.reasked.load(Ordering::Acquire));
}
