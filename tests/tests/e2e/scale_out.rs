//! Scale-out: two `everything-server --tasks --redis <url>` instances sharing one
//! `redis-server`, behind HAProxy balancing every request round-robin without stickiness
//! (`testkit`; the binaries come from `cargo xtask setup`). One deployment must answer as one
//! server:
//!
//! - a legacy (2025-11-25) call of `slow_task` with progress, by our client and by the Python
//!   SDK client (`tests/peers/python_lb_client.py`): the instance holding the session is
//!   killed (SIGKILL) after the first progress notifications; the client resumes the call's
//!   stream with `Last-Event-ID` through the balancer, sees each progress value once and in
//!   order, the call ends (its result, or an error), and the session goes on, on the other
//!   instance, under the same id;
//! - a `subscriptions/listen` stream (2026-07-28) on one instance gets the tool and prompt
//!   list changes triggered through the other (the fixture has no resource-update trigger);
//! - a task started through the balancer is reported by both instances (`tasks/get`) and ends
//!   `failed` once its instance is dead.
//!
//! Which instance holds a session, or ran a request, comes from HAProxy's request log.

use std::process::Stdio;
use std::time::Duration;

use anyhow::Context as _;
use futures::StreamExt as _;
use mcp_client::{CallOptions, Client, ClientBuilder, EraChoice, ToolCallOutcome};
use mcp_transport_http::client::{Reconnect, StreamableHttpClientTransport};
use mcp_types::{
    CallToolRequestParams, JsonObject, ProtocolVersion, ServerNotification, SubscriptionFilter,
    TaskStatus,
};
use serde_json::{Value, json};
use testkit::RedisServer;
use testkit::everything::EverythingServer;
use testkit::haproxy::Haproxy;
use tokio::io::{AsyncBufReadExt as _, BufReader};

use crate::http_support::{close, connect};
use crate::support::bins::everything_server;
use crate::support::peers::peers;
use crate::support::peers_dir;

/// `slow_task`'s steps (progress 1..=STEPS) and the milliseconds of each: long enough that
/// the instance dies mid-call.
const STEPS: u32 = 30;
const STEP_MS: u64 = 200;

/// After how many progress notifications the session's instance is killed.
const KILL_AFTER: usize = 3;

/// The guard for anything that goes through a takeover (generous: a loaded 2-core machine;
/// never a timed assertion).
const LONG: Duration = Duration::from_secs(90);

/// Redis, two instances sharing it and HAProxy in front; each killed by PID when dropped
/// (HAProxy first).
struct Deployment {
    lb: Haproxy,
    instances: Vec<EverythingServer>,
    _redis: RedisServer,
}

impl Deployment {
    async fn start() -> Deployment {
        let bin = everything_server();
        let started = tokio::task::spawn_blocking(move || -> anyhow::Result<Deployment> {
            let redis = RedisServer::start().context("starting redis-server")?;
            let mut instances = Vec::new();
            for i in 0..2 {
                let args = ["--tasks", "--redis", &redis.url()];
                let instance = EverythingServer::start(bin, args)
                    .with_context(|| format!("starting instance {i} with --redis"))?;
                instances.push(instance);
            }
            let backends: Vec<_> = instances.iter().map(EverythingServer::addr).collect();
            let lb = Haproxy::start(&backends).context("starting haproxy")?;
            Ok(Deployment {
                lb,
                instances,
                _redis: redis,
            })
        });
        match started.await.expect("starting the deployment") {
            Ok(deployment) => deployment,
            Err(e) => panic!("{e:#}\n(`cargo xtask setup` installs redis-server and haproxy)"),
        }
    }

    /// The one session opened through the balancer, and the instance holding it (HAProxy
    /// logs the `initialize` as its answer ends, which the client may see first).
    async fn session(&self) -> (String, usize) {
        eventually("the balancer to log the session's opening", || {
            !self.lb.sessions().is_empty()
        })
        .await;
        match self.lb.sessions().as_slice() {
            [(holder, id)] => (id.clone(), *holder),
            other => panic!(
                "expected one session, the balancer saw {other:?}\n{}",
                self.logs()
            ),
        }
    }

    /// SIGKILLs instance `i`.
    fn kill(&mut self, i: usize) {
        self.instances[i].kill().expect("killing an instance");
    }

    /// Every log, for failure messages.
    fn logs(&self) -> String {
        let mut text = format!("--- haproxy ---\n{}", self.lb.log());
        for (i, instance) in self.instances.iter().enumerate() {
            text.push_str(&format!("--- instance {i} ---\n{}", instance.log()));
        }
        text
    }
}

/// Awaits `fut`, failing the test after [`LONG`].
async fn within_long<F: Future>(what: &str, fut: F) -> F::Output {
    tokio::time::timeout(LONG, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out after {LONG:?} waiting for {what}"))
}

/// Polls `check` every 100 ms until it holds, failing the test after [`LONG`].
async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    within_long(what, async {
        while !check() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
}

/// `slow_task`'s arguments.
fn slow_task(steps: u32, ms: u64) -> CallToolRequestParams {
    let arguments: JsonObject =
        serde_json::from_value(json!({"steps": steps, "ms": ms})).expect("an object");
    CallToolRequestParams::with_arguments("slow_task", arguments)
}

/// Fails unless `seen` is 1, 2, ... (each value once, in order), at least [`KILL_AFTER`] long.
fn assert_contiguous(seen: &[f64], logs: &str) {
    let expected: Vec<f64> = (1..=seen.len()).map(|n| n as f64).collect();
    assert_eq!(seen, expected, "progress values lost or repeated\n{logs}");
    assert!(
        seen.len() >= KILL_AFTER,
        "only {seen:?} before the kill\n{logs}"
    );
}

/// After `holder` died: the session is still the one the balancer saw opened (taken over, not
/// replaced), and a request with `Last-Event-ID` for it was served by the other instance.
async fn assert_taken_over(d: &Deployment, session: &str, holder: usize) {
    let sessions = d.lb.sessions();
    assert_eq!(
        sessions.len(),
        1,
        "the client opened a new session instead of resuming: {sessions:?}\n{}",
        d.logs()
    );
    // A request is logged when its response ends; the resumed streams end with the client.
    eventually("a resumption logged by the balancer", || {
        d.lb.requests().iter().any(|r| {
            r.session.as_deref() == Some(session)
                && r.last_event_id.is_some()
                && r.backend == Some(1 - holder)
        })
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_resumes_a_call_when_its_sessions_instance_dies() {
    let mut d = Deployment::start().await;
    let mut reconnect = Reconnect::default();
    reconnect.initial_delay = Duration::from_millis(200);
    reconnect.max_delay = Duration::from_secs(2);
    reconnect.max_attempts = 10;
    let transport = StreamableHttpClientTransport::builder(d.lb.url())
        .reconnect(reconnect)
        .build()
        .expect("client transport");
    let connect = Client::builder()
        .era(EraChoice::Legacy)
        .request_timeout(Some(LONG))
        .connect(transport);
    let (client, connection) = within_long("the handshake", connect)
        .await
        .unwrap_or_else(|e| panic!("connecting through haproxy: {e}\n{}", d.logs()));
    let connection = tokio::spawn(connection);
    assert_eq!(*client.protocol_version(), ProtocolVersion::V2025_11_25);
    let (session, holder) = d.session().await;

    let (mut progress, call) =
        client.call_tool_with_progress(slow_task(STEPS, STEP_MS), CallOptions::new());
    let instances = &mut d.instances;
    let watch = async {
        let mut seen = Vec::new();
        while let Some(p) = progress.recv().await {
            seen.push(p.progress);
            if seen.len() == KILL_AFTER {
                instances[holder].kill().expect("killing the holder");
            }
        }
        seen
    };
    let (result, seen) = within_long(
        "the call and its progress",
        futures::future::join(call, watch),
    )
    .await;
    let logs = d.logs();
    assert_contiguous(&seen, &logs);
    assert!(!d.instances[holder].is_running(), "the holder still runs");
    match result {
        Ok(result) => {
            assert_eq!(
                seen.len(),
                STEPS as usize,
                "a result, but not every step\n{logs}"
            );
            assert_eq!(
                result.content[0].as_text(),
                Some(format!("slow_task done after {STEPS} steps").as_str())
            );
        }
        // The call ran on the dead instance: an error is a right ending too, but not a
        // timeout (the deployment must say the call is lost, not leave it hanging).
        Err(e) => {
            assert!(
                !matches!(e, mcp_client::Error::Timeout(_)),
                "the call timed out: {e}\n{logs}"
            );
            // The deployment says why: the instance serving the call stopped.
            assert!(
                e.to_string()
                    .contains("instance serving this stream stopped"),
                "the error does not say the instance stopped: {e}\n{logs}"
            );
        }
    }

    // The session goes on, on the other instance, under the same id.
    let after = within_long(
        "a call after the takeover",
        client.call_tool(CallToolRequestParams::new("test_simple_text")),
    )
    .await
    .unwrap_or_else(|e| panic!("the session did not go on: {e}\n{}", d.logs()));
    assert_eq!(
        after.content[0].as_text(),
        Some("This is a simple text response for testing.")
    );
    close(client, connection).await;
    assert_taken_over(&d, &session, holder).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_resumes_a_call_when_its_sessions_instance_dies() {
    let peers = peers();
    let mut d = Deployment::start().await;
    let mut child = tokio::process::Command::new(&peers.python)
        .arg(peers_dir().join("python_lb_client.py"))
        .args(["--http", &d.lb.url()])
        .args(["--steps", &STEPS.to_string(), "--ms", &STEP_MS.to_string()])
        .args(["--timeout", &LONG.as_secs().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("starting python_lb_client.py");
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let mut progress = 0;
    let mut holder = None;
    let report = within_long("python_lb_client.py's report", async {
        while let Some(line) = lines.next_line().await.expect("reading its stdout") {
            let line: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("python_lb_client.py printed {line:?}: {e}"));
            if line.get("progress").is_some() {
                progress += 1;
                if progress == KILL_AFTER {
                    let (session, i) = d.session().await;
                    d.kill(i);
                    holder = Some((session, i));
                }
            } else if let Some(report) = line.get("report") {
                return report.clone();
            }
        }
        Value::Null
    })
    .await;
    let output = within_long("python_lb_client.py to exit", child.wait_with_output())
        .await
        .expect("waiting for python_lb_client.py");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let logs = format!("python stderr:\n{stderr}\n{}", d.logs());
    assert!(!report.is_null(), "no report\n{logs}");
    assert_eq!(report["errors"], json!([]), "{logs}");
    assert_eq!(report["protocolVersion"], "2025-11-25");
    let (session, holder) = holder.unwrap_or_else(|| {
        panic!("fewer than {KILL_AFTER} progress notifications: {report}\n{logs}")
    });

    let seen: Vec<f64> = report["progress"]
        .as_array()
        .expect("a progress list")
        .iter()
        .map(|p| p.as_f64().expect("a number"))
        .collect();
    assert_contiguous(&seen, &logs);
    if report["result"].is_null() {
        let error = report["error"].as_str().unwrap_or_default();
        assert!(
            !error.is_empty(),
            "neither a result nor an error: {report}\n{logs}"
        );
        assert!(
            !error.contains("Timeout"),
            "the call timed out: {error}\n{logs}"
        );
    } else {
        assert_eq!(
            seen.len(),
            STEPS as usize,
            "a result, but not every step\n{logs}"
        );
    }
    assert_eq!(
        report["after"]["content"][0]["text"], "This is a simple text response for testing.",
        "the session did not go on: {report}\n{logs}"
    );
    assert!(output.status.success(), "exit {}\n{logs}", output.status);
    assert_taken_over(&d, &session, holder).await;
}

/// A 2026-07-28 client (tasks extension declared) of `url`.
async fn modern(url: &str) -> (Client, tokio::task::JoinHandle<mcp_client::Result<()>>) {
    let builder: ClientBuilder = Client::builder().era(EraChoice::Modern).tasks(true);
    connect(url, builder).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listen_stream_on_one_instance_sees_the_changes_made_on_the_other() {
    let d = Deployment::start().await;
    let (a, a_connection) = modern(&d.instances[0].url()).await;
    let filter = {
        let mut built = SubscriptionFilter::default();
        built.tools_list_changed = Some(true);
        built.prompts_list_changed = Some(true);
        built
    };
    let mut changes = a
        .listen(filter)
        .await
        .expect("subscriptions/listen on instance 0");
    assert_eq!(changes.acknowledged().tools_list_changed, Some(true));
    assert_eq!(changes.acknowledged().prompts_list_changed, Some(true));

    let (b, b_connection) = modern(&d.instances[1].url()).await;
    for tool in ["test_trigger_tool_change", "test_trigger_prompt_change"] {
        let triggered = b
            .call_tool(CallToolRequestParams::new(tool))
            .await
            .unwrap_or_else(|e| panic!("{tool} on instance 1: {e}"));
        assert_eq!(triggered.content[0].as_text(), Some("Mutation triggered"));
    }

    let (mut tools, mut prompts) = (0, 0);
    while tools == 0 || prompts == 0 {
        let change = within_long("the changes made on the other instance", changes.next())
            .await
            .unwrap_or_else(|| panic!("the subscription ended\n{}", d.logs()))
            .unwrap_or_else(|e| panic!("the subscription failed: {e}\n{}", d.logs()));
        match change {
            ServerNotification::ToolListChanged(_) => tools += 1,
            ServerNotification::PromptListChanged(_) => prompts += 1,
            other => panic!("not subscribed to {other:?}"),
        }
    }
    changes.close().await.expect("closing the subscription");
    close(a, a_connection).await;
    close(b, b_connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_is_seen_by_every_instance_and_fails_when_its_instance_dies() {
    let mut d = Deployment::start().await;
    let (client, connection) = modern(&d.lb.url()).await;
    // Long enough to outlive the test: it can only end by its instance dying.
    let outcome = client
        .call_tool_as_task(slow_task(10_000, 100), None)
        .await
        .unwrap_or_else(|e| panic!("starting slow_task as a task: {e}\n{}", d.logs()));
    let ToolCallOutcome::Task(task) = outcome else {
        panic!("slow_task did not run as a task: {outcome:?}");
    };
    assert_eq!(task.status, TaskStatus::Working);
    close(client, connection).await;

    // The instance that ran `tools/call` runs the task.
    let mut runner = None;
    eventually("the balancer to log the tools/call", || {
        runner =
            d.lb.requests()
                .iter()
                .find(|r| r.mcp_method.as_deref() == Some("tools/call"))
                .and_then(|r| r.backend);
        runner.is_some()
    })
    .await;
    let runner = runner.expect("found above");
    let other = 1 - runner;

    let (on_other, other_connection) = modern(&d.instances[other].url()).await;
    for i in [runner, other] {
        let (direct, direct_connection) = modern(&d.instances[i].url()).await;
        let got = direct
            .get_task(&task.task_id)
            .await
            .unwrap_or_else(|e| panic!("tasks/get on instance {i}: {e}\n{}", d.logs()));
        assert_eq!(got.status, TaskStatus::Working, "instance {i}: {got:?}");
        close(direct, direct_connection).await;
    }

    d.kill(runner);
    let ended = within_long("the task to fail after its instance died", async {
        loop {
            let got = on_other
                .get_task(&task.task_id)
                .await
                .unwrap_or_else(|e| panic!("tasks/get on the survivor: {e}"));
            if got.status != TaskStatus::Working {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    })
    .await;
    assert_eq!(ended.status, TaskStatus::Failed, "{ended:?}\n{}", d.logs());
    // Failed with a reason (today: "the server instance running this task stopped").
    assert!(
        ended
            .status_message
            .as_deref()
            .is_some_and(|m| !m.is_empty()),
        "{ended:?}"
    );
    close(on_other, other_connection).await;
}
