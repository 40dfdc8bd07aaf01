//! The small examples of `examples/src/bin/` (issue 17), each run as its doc comment says
//! and checked for what it does: servers driven by our client in both protocol eras,
//! clients run as processes and judged by what they print, the OAuth pair against a real
//! authorization server.

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::StreamExt as _;
use mcp_auth::{HeadlessUserAgent, UserAgent as _};
use mcp_client::types::{
    CallToolRequestParams, CompleteRequestParams, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitValue, GetPromptRequestParams, PromptReference,
    ResourceTemplateReference, SamplingContent, ServerNotification, SubscriptionFilter, TaskStatus,
};
use mcp_client::{
    CallOptions, Client, ClientBuilder, EraChoice, ErrorCode, ErrorObject, RequestContext,
    ToolCallOutcome,
};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_transport_stdio::ChildProcessTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader, Lines};
use tokio::process::{Child, ChildStderr, Command};
use tokio::task::JoinHandle;

use crate::auth_support::{AuthServer, raw_initialize};
use crate::http_support::close;
use crate::support::bins::{binary, build_bins};
use crate::support::client::{WAIT, within};
use crate::support::output_within;

/// Every example this file runs; built together, once per test process.
const EXAMPLES: &[&str] = &[
    "hello-stdio",
    "hello-http",
    "client-stdio",
    "client-http",
    "resources",
    "prompts",
    "elicitation",
    "sampling",
    "long-task",
    "test-in-memory",
    "oauth-server",
    "oauth-client",
    "skills-server",
];

const ERAS: [EraChoice; 2] = [EraChoice::Legacy, EraChoice::Modern];

/// The path of example `name`, after one `cargo build --bin <every example>` (see [`build_bins`])
/// into the target directory and profile this test runs from.
fn example(name: &str) -> PathBuf {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| build_bins(EXAMPLES));
    let dir = dir.as_ref().unwrap_or_else(|e| panic!("{e}"));
    binary(dir, name)
}

/// Runs example `name` with `args` to completion; fails the test unless it succeeds.
async fn run_ok(name: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(example(name));
    cmd.args(args).envs(env.iter().copied());
    let output: Output = output_within(name, Duration::from_secs(60), cmd).await;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name} {args:?} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Our client, built by `builder`, connected to the stdio example `name`.
async fn connect(
    name: &str,
    builder: ClientBuilder,
) -> (Client, JoinHandle<mcp_client::Result<()>>) {
    let transport = ChildProcessTransport::builder(example(name))
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {name}: {e}"));
    let connect = builder.request_timeout(Some(WAIT)).connect(transport);
    let (client, connection) = within(&format!("connecting to {name}"), connect)
        .await
        .unwrap_or_else(|e| panic!("connecting to {name} failed: {e}"));
    (client, tokio::spawn(connection))
}

/// Calls tool `name` with `arguments`; returns the result as JSON.
async fn call(client: &Client, name: &str, arguments: Value) -> Value {
    let mut params = CallToolRequestParams::new(name);
    params.arguments = serde_json::from_value(arguments).expect("an object");
    let result = within(&format!("tools/call {name}"), client.call_tool(params))
        .await
        .unwrap_or_else(|e| panic!("tools/call {name} failed: {e}"));
    serde_json::to_value(result).expect("serializable")
}

/// The text of the single text resource at `uri`.
async fn read_text(client: &Client, uri: &str) -> String {
    let read = within(&format!("reading {uri}"), client.read_resource(uri))
        .await
        .unwrap_or_else(|e| panic!("reading {uri} failed: {e}"));
    let read = serde_json::to_value(read).expect("serializable");
    read["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {read}"))
        .to_owned()
}

/// A server process that printed `listening on <url>` on stderr; killed when dropped.
struct Listening {
    url: String,
    stderr: Arc<Mutex<Vec<String>>>,
    _child: Child,
}

impl Listening {
    async fn start(name: &str, args: &[&str], env: &[(&str, &str)]) -> Listening {
        let mut child = Command::new(example(name))
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {name}: {e}"));
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let seen = stderr.clone();
        let url = within(&format!("{name} to listen"), async {
            while let Ok(Some(line)) = lines.next_line().await {
                seen.lock().expect("stderr lock").push(line.clone());
                if let Some(url) = line.strip_prefix("listening on ") {
                    return url.to_owned();
                }
            }
            panic!("{name} exited without listening: {:?}", seen.lock());
        })
        .await;
        drain(lines, stderr.clone());
        Listening {
            url,
            stderr,
            _child: child,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").join("\n")
    }
}

/// Keeps reading `lines` into `into`, so the child never blocks on a full pipe.
fn drain(mut lines: Lines<BufReader<ChildStderr>>, into: Arc<Mutex<Vec<String>>>) {
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            into.lock().expect("stderr lock").push(line);
        }
    });
}

/// Our client connected to the Streamable HTTP endpoint `url` in `era`.
async fn connect_http(url: &str, era: EraChoice) -> (Client, JoinHandle<mcp_client::Result<()>>) {
    let transport = StreamableHttpClientTransport::new(url).expect("a client transport");
    let connect = Client::builder()
        .era(era)
        .request_timeout(Some(WAIT))
        .connect(transport);
    let (client, connection) = within(&format!("connecting to {url}"), connect)
        .await
        .unwrap_or_else(|e| panic!("connecting to {url} failed: {e}"));
    (client, tokio::spawn(connection))
}

/// The JSON-RPC error code of a failed call.
fn code_of<T: std::fmt::Debug>(outcome: mcp_client::Result<T>) -> ErrorCode {
    match outcome {
        Err(e) => e
            .as_rpc()
            .map(|e| e.code)
            .unwrap_or_else(|| panic!("not an RPC error: {e}")),
        Ok(v) => panic!("expected an error, got {v:?}"),
    }
}

#[tokio::test]
async fn hello_stdio_keeps_notes_in_both_eras() {
    for era in ERAS {
        let (client, connection) = connect("hello-stdio", Client::builder().era(era)).await;
        assert_eq!(read_text(&client, "notes://all").await, "No notes yet.");
        let filter = {
            let mut built = SubscriptionFilter::default();
            built.resource_subscriptions = Some(vec!["notes://all".to_owned()]);
            built
        };
        let mut updates = within("subscribing", client.listen(filter))
            .await
            .expect("subscribing to notes://all");

        let added = call(
            &client,
            "add_note",
            json!({"title": "todo", "text": "milk"}),
        )
        .await;
        assert_eq!(
            added["content"][0]["text"], "Saved note \"todo\"",
            "{era:?}"
        );
        let update = within("the resource update", updates.next()).await;
        assert!(
            matches!(&update, Some(Ok(ServerNotification::ResourceUpdated(u))) if u.uri == "notes://all"),
            "{update:?}"
        );
        let listed = call(&client, "list_notes", json!({})).await;
        assert_eq!(
            listed["structuredContent"],
            json!({"notes": [{"title": "todo", "text": "milk"}]})
        );
        assert_eq!(read_text(&client, "notes://all").await, "# todo\n\nmilk\n");
        // A note without its text never reaches the handler.
        let mut bad = CallToolRequestParams::new("add_note");
        bad.arguments = serde_json::from_value(json!({"title": "x"})).ok();
        assert_eq!(
            code_of(client.call_tool(bad).await),
            ErrorCode::INVALID_PARAMS
        );
        drop(updates);
        close(client, connection).await;
    }
}

#[tokio::test]
async fn client_stdio_spawns_hello_stdio_and_prints_its_answers() {
    let stdout = run_ok("client-stdio", &[], &[]).await;
    let expected = [
        "connected to hello-stdio",
        "tools: add_note, list_notes",
        "add_note: Saved note \"shopping\"",
        "add_note: Saved note \"ideas\"",
        r#"list_notes: {"notes":[{"text":"milk, eggs","title":"shopping"},{"text":"an MCP server in Rust","title":"ideas"}]}"#,
        "notes://all:",
        "# shopping",
    ];
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.get(..expected.len()), Some(&expected[..]), "{stdout}");
    assert!(
        stdout.contains("# ideas\n\nan MCP server in Rust"),
        "{stdout}"
    );

    // Any server command after `--`.
    let hello = example("hello-stdio");
    let stdout = run_ok("client-stdio", &["--", hello.to_str().expect("UTF-8")], &[]).await;
    assert!(stdout.starts_with("connected to hello-stdio\n"), "{stdout}");
}

#[tokio::test]
async fn client_http_adds_notes_that_every_session_of_hello_http_shares() {
    let server = Listening::start("hello-http", &["--port", "0"], &[]).await;
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    let first = run_ok("client-http", &[&server.url, "first note"], &[]).await;
    assert!(
        first.starts_with("connected to hello-http (2026-07-28)\n"),
        "{first}"
    );
    assert!(first.contains("add_note: Saved note \"http\"\n"), "{first}");
    let one = r#"list_notes: {"notes":[{"text":"first note","title":"http"}]}"#;
    assert!(first.contains(one), "{first}");
    // A second client, a second session: the notes are the server's.
    let second = run_ok("client-http", &[&server.url, "second note"], &[]).await;
    let two = r#"[{"text":"first note","title":"http"},{"text":"second note","title":"http"}]"#;
    assert!(second.contains(two), "{second}");
    assert!(
        second.contains("# http\n\nfirst note\n\n# http\n\nsecond note"),
        "{second}"
    );

    // `PORT` instead of `--port`, and a client of the handshake era on the same endpoint.
    let other = Listening::start("hello-http", &[], &[("PORT", "0")]).await;
    let (client, connection) = connect_http(&other.url, EraChoice::Legacy).await;
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    let added = call(&client, "add_note", json!({"title": "t", "text": "x"})).await;
    assert_eq!(
        added["content"][0]["text"],
        "Saved note \"t\"",
        "{}",
        other.stderr()
    );
    close(client, connection).await;
}

#[tokio::test]
async fn resources_reads_templates_and_tells_subscribers_in_both_eras() {
    for era in ERAS {
        let (client, connection) = connect("resources", Client::builder().era(era)).await;
        let listed = within("resources/list", client.list_resources(None))
            .await
            .expect("listed");
        let uris: Vec<&str> = listed.resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["docs://readme", "docs://logo.png"], "{era:?}");
        let templates = within("templates", client.list_resource_templates(None)).await;
        let templates = serde_json::to_value(templates.expect("listed")).expect("JSON");
        assert_eq!(
            templates["resourceTemplates"][0]["uriTemplate"],
            "weather://{city}/current"
        );

        assert!(
            read_text(&client, "docs://readme")
                .await
                .starts_with("# Weather")
        );
        let logo = within("the logo", client.read_resource("docs://logo.png")).await;
        let logo = serde_json::to_value(logo.expect("read")).expect("JSON");
        assert_eq!(logo["contents"][0]["blob"], "iVBORw0KGgo=", "{logo}");
        assert_eq!(logo["contents"][0]["mimeType"], "image/png", "{logo}");
        assert_eq!(
            read_text(&client, "weather://paris/current").await,
            "paris: 18 °C"
        );
        let missing = client.read_resource("weather://atlantis/current").await;
        let expected = match era {
            EraChoice::Legacy => ErrorCode::RESOURCE_NOT_FOUND,
            _ => ErrorCode::INVALID_PARAMS,
        };
        assert_eq!(code_of(missing), expected, "{era:?}");

        let reference = ResourceTemplateReference::new("weather://{city}/current");
        let complete = CompleteRequestParams::new(reference, "city", "o");
        let values = within("completion", client.complete(complete))
            .await
            .expect("completed");
        assert_eq!(values.completion.values, ["oslo"]);

        // Subscribed to Oslo: its change is told, Lima's is not.
        let filter = {
            let mut built = SubscriptionFilter::default();
            built.resource_subscriptions = Some(vec!["weather://oslo/current".to_owned()]);
            built
        };
        let mut updates = within("subscribing", client.listen(filter))
            .await
            .expect("subscribed");
        call(
            &client,
            "set_temperature",
            json!({"city": "lima", "celsius": 30}),
        )
        .await;
        let set = call(
            &client,
            "set_temperature",
            json!({"city": "oslo", "celsius": -3}),
        )
        .await;
        assert_eq!(set["content"][0]["text"], "oslo is now -3 °C");
        let update = within("the resource update", updates.next()).await;
        assert!(
            matches!(&update, Some(Ok(ServerNotification::ResourceUpdated(u))) if u.uri == "weather://oslo/current"),
            "{update:?}"
        );
        assert_eq!(
            read_text(&client, "weather://oslo/current").await,
            "oslo: -3 °C"
        );
        let unknown = call(
            &client,
            "set_temperature",
            json!({"city": "rome", "celsius": 1}),
        )
        .await;
        assert_eq!(unknown["isError"], true, "{unknown}");
        drop(updates);
        close(client, connection).await;
    }
}

#[tokio::test]
async fn prompts_render_and_complete_their_arguments_in_both_eras() {
    for era in ERAS {
        let (client, connection) = connect("prompts", Client::builder().era(era)).await;
        let listed = within("prompts/list", client.list_prompts(None))
            .await
            .expect("listed");
        let names: Vec<&str> = listed.prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["code_review", "greeting"], "{era:?}");

        let mut get = GetPromptRequestParams::new("code_review");
        let arguments = [("language", "rust"), ("focus", "errors")];
        get.arguments = Some(arguments.map(|(k, v)| (k.to_owned(), v.to_owned())).into());
        let prompt = within("prompts/get", client.get_prompt(get))
            .await
            .expect("rendered");
        let prompt = serde_json::to_value(prompt).expect("JSON");
        assert_eq!(
            prompt["messages"][0]["content"]["text"],
            "Please review the following rust code, paying attention to errors."
        );
        // The required argument is checked before the handler runs.
        let missing = client
            .get_prompt(GetPromptRequestParams::new("code_review"))
            .await;
        assert_eq!(code_of(missing), ErrorCode::INVALID_PARAMS);
        let greeting = within(
            "greeting",
            client.get_prompt(GetPromptRequestParams::new("greeting")),
        );
        let greeting = serde_json::to_value(greeting.await.expect("rendered")).expect("JSON");
        assert_eq!(greeting["messages"][1]["role"], "assistant", "{greeting}");

        let reference = PromptReference::new("code_review");
        let language = CompleteRequestParams::new(reference.clone(), "language", "ru");
        let values = within("completion", client.complete(language))
            .await
            .expect("completed");
        assert_eq!(values.completion.values, ["rust", "ruby"]);
        // The handler sees the language already chosen.
        let mut focus = CompleteRequestParams::new(reference, "focus", "");
        focus.context = serde_json::from_value(json!({"arguments": {"language": "python"}})).ok();
        let values = within("completion", client.complete(focus))
            .await
            .expect("completed");
        assert_eq!(
            values.completion.values,
            ["typing", "errors", "performance"]
        );
        close(client, connection).await;
    }
}

#[tokio::test]
async fn elicitation_is_answered_by_our_client_in_both_eras() {
    for era in ERAS {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        // The user: books under "Ada" for 4, except at the Closed Diner.
        let user = move |params: ElicitRequestParams, _cx: RequestContext| {
            let message = params.message().to_owned();
            seen.lock().expect("asked lock").push(message.clone());
            async move {
                if message.contains("Closed Diner") {
                    return Ok::<_, ErrorObject>(ElicitResult::decline());
                }
                let content = [("name", ElicitValue::from("Ada")), ("guests", 4.into())];
                Ok(ElicitResult::accept(Some(
                    content.map(|(k, v)| (k.to_owned(), v)).into(),
                )))
            }
        };
        let builder = Client::builder().era(era).elicitation(user);
        let (client, connection) = connect("elicitation", builder).await;
        let booked = call(&client, "book_table", json!({"restaurant": "Chez Rust"})).await;
        assert_eq!(
            booked["content"][0]["text"], "Booked a table for 4 at Chez Rust under the name Ada.",
            "{era:?}: {booked}"
        );
        let declined = call(&client, "book_table", json!({"restaurant": "Closed Diner"})).await;
        assert_eq!(
            declined["content"][0]["text"], "No booking made.",
            "{declined}"
        );
        let asked = asked.lock().expect("asked lock").clone();
        assert_eq!(
            asked,
            [
                "Book a table at Chez Rust?",
                "Book a table at Closed Diner?"
            ]
        );
        close(client, connection).await;

        // A client that cannot ask its user.
        let (client, connection) = connect("elicitation", Client::builder().era(era)).await;
        let mut book = CallToolRequestParams::new("book_table");
        book.arguments = serde_json::from_value(json!({"restaurant": "Chez Rust"})).ok();
        let outcome = client.call_tool(book).await;
        match era {
            EraChoice::Legacy => assert!(outcome.expect("a result").is_error()),
            _ => assert_eq!(
                code_of(outcome),
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            ),
        }
        close(client, connection).await;
    }
}

#[tokio::test]
async fn sampling_is_answered_by_our_client_in_both_eras() {
    for era in ERAS {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let model = move |params: CreateMessageRequestParams, _cx: RequestContext| {
            seen.lock().expect("requests lock").push(json!(params));
            async {
                Ok(CreateMessageResult::new(
                    "test-model",
                    SamplingContent::text("Rust is fast and safe."),
                ))
            }
        };
        let builder = Client::builder().era(era).sampling(model);
        let (client, connection) = connect("sampling", builder).await;
        let text = "Rust is a language empowering everyone to build reliable software.";
        let summary = call(&client, "summarize", json!({"text": text, "max_words": 5})).await;
        assert_eq!(
            summary["content"][0]["text"], "Summary by test-model: Rust is fast and safe.",
            "{era:?}: {summary}"
        );
        let requests = requests.lock().expect("requests lock").clone();
        assert_eq!(requests.len(), 1, "{requests:?}");
        assert_eq!(
            requests[0]["systemPrompt"],
            "You write short, plain summaries."
        );
        assert_eq!(
            requests[0]["messages"][0]["content"]["text"],
            format!("Summarize in at most 5 words:\n\n{text}")
        );
        close(client, connection).await;
    }
}

#[tokio::test]
async fn long_task_runs_as_a_task_polled_and_cancelled_in_both_eras() {
    for era in ERAS {
        let (client, connection) = connect("long-task", Client::builder().era(era)).await;
        let build = |steps: u32| {
            let mut call = CallToolRequestParams::new("build");
            call.arguments = serde_json::from_value(json!({"steps": steps})).ok();
            call
        };
        let started = within("the task", client.call_tool_as_task(build(3), None)).await;
        let Ok(ToolCallOutcome::Task(task)) = started else {
            panic!("{era:?}: not a task: {started:?}");
        };
        let states: Vec<_> = within(
            "the task to end",
            client.watch_task(&task.task_id).collect(),
        )
        .await;
        let last = states
            .last()
            .and_then(|s| s.as_ref().ok())
            .map(|t| t.status);
        assert_eq!(last, Some(TaskStatus::Completed), "{era:?}: {states:?}");
        let result = within("the result", client.task_result(&task.task_id)).await;
        let result = serde_json::to_value(result.expect("a result")).expect("JSON");
        assert_eq!(result["content"][0]["text"], "built in 3 steps", "{result}");

        // 100 seconds of work, cancelled.
        let started = within("the task", client.call_tool_as_task(build(1000), None)).await;
        let Ok(ToolCallOutcome::Task(long)) = started else {
            panic!("{era:?}: not a task: {started:?}");
        };
        within("cancelling", client.cancel_task(&long.task_id))
            .await
            .expect("cancelled");
        let states: Vec<_> = within(
            "the task to end",
            client.watch_task(&long.task_id).collect(),
        )
        .await;
        let last = states
            .last()
            .and_then(|s| s.as_ref().ok())
            .map(|t| t.status);
        assert_eq!(last, Some(TaskStatus::Cancelled), "{era:?}: {states:?}");

        // A plain call runs in the request (handshake era), with the progress of each step,
        // or follows the task the server chose (2026-07-28) to the result.
        let (mut progress, plain) = client.call_tool_with_progress(build(2), CallOptions::new());
        let steps = async {
            let mut steps = Vec::new();
            while let Some(p) = progress.recv().await {
                steps.push((p.progress, p.total, p.message));
            }
            steps
        };
        let (plain, steps) = within("a plain call", futures::future::join(plain, steps)).await;
        let plain = serde_json::to_value(plain.expect("a result")).expect("JSON");
        assert_eq!(
            plain["content"][0]["text"], "built in 2 steps",
            "{era:?}: {plain}"
        );
        // On 2026-07-28 the server makes the call a task, which sends the call no progress.
        if matches!(era, EraChoice::Legacy) {
            let step = |n: f64| (n, Some(2.0), Some(format!("step {n} of 2")));
            assert_eq!(steps, [step(1.0), step(2.0)]);
        }
        close(client, connection).await;
    }
}

#[tokio::test]
async fn test_in_memory_runs_its_checks_in_both_eras() {
    let stdout = run_ok("test-in-memory", &[], &[]).await;
    assert_eq!(
        stdout,
        "ok: divide over 2025-11-25\nok: divide over 2026-07-28\n"
    );
}

#[tokio::test]
async fn oauth_client_authorizes_through_the_browser_and_calls_oauth_server() {
    let auth = AuthServer::start().await;
    let server = Listening::start(
        "oauth-server",
        &["--issuer", &auth.issuer, "--port", "0"],
        &[],
    )
    .await;
    // Without a token: 401, pointing at the protected resource metadata.
    let (status, challenge) = raw_initialize(&server.url, None).await;
    assert_eq!(status, 401, "{}", server.stderr());
    let challenge = challenge.expect("a WWW-Authenticate challenge");
    assert!(challenge.contains("resource_metadata="), "{challenge}");

    let mut child = Command::new(example("oauth-client"))
        .arg(&server.url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawning oauth-client");
    let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let seen = stderr.clone();
    // The client prints the authorization URL for the user to open; the test is the browser.
    let authorize = within("the authorization URL", async {
        while let Ok(Some(line)) = lines.next_line().await {
            seen.lock().expect("stderr lock").push(line.clone());
            if let Ok(url) = url::Url::parse(line.trim()) {
                return url;
            }
        }
        panic!("oauth-client printed no URL: {:?}", seen.lock());
    })
    .await;
    drain(lines, stderr.clone());
    let redirect_uri = authorize
        .query_pairs()
        .find(|(name, _)| name == "redirect_uri")
        .map(|(_, value)| value.into_owned())
        .expect("a redirect_uri");
    assert!(
        redirect_uri.starts_with("http://127.0.0.1:"),
        "{redirect_uri}"
    );
    // Log in (the provider's headless interaction), and come back to the client's loopback
    // listener, as the browser would.
    let browser = HeadlessUserAgent::new(&redirect_uri).expect("a user agent");
    let callback = within("the authorization", browser.authorize(&authorize))
        .await
        .expect("authorized");
    within("the callback", reqwest::get(callback.as_str()))
        .await
        .expect("the loopback listener answers");

    let output = within("oauth-client to finish", child.wait_with_output())
        .await
        .expect("oauth-client ran");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "oauth-client failed:\n{stdout}\n{:?}\nserver:\n{}",
        stderr.lock(),
        server.stderr()
    );
    assert!(
        stdout.starts_with("whoami: subject=test-user client="),
        "{stdout}"
    );
    assert!(stdout.contains(" scopes=mcp:read"), "{stdout}");
}

#[tokio::test]
async fn oauth_client_with_client_credentials_calls_oauth_server() {
    let auth = AuthServer::start().await;
    let server = Listening::start(
        "oauth-server",
        &["--issuer", &auth.issuer, "--port", "0"],
        &[],
    )
    .await;
    let env = [
        ("OAUTH_CLIENT_ID", "mcp-test-client"),
        ("OAUTH_CLIENT_SECRET", "mcp-test-secret"),
    ];
    let stdout = run_ok("oauth-client", &[&server.url], &env).await;
    assert!(stdout.starts_with("whoami: subject="), "{stdout}");
    assert!(stdout.contains(" client=mcp-test-client "), "{stdout}");
    assert!(stdout.contains("mcp:read"), "{stdout}");
}

/// `skills-server examples/skills`, as its doc comment runs it: both eras list the sample
/// skills with their digests, get one, read its files and browse its directories; a folder
/// breaking a rule stops it with an error naming the file and the rule.
#[tokio::test]
async fn skills_server_serves_the_sample_folder_in_both_eras() {
    use mcp_client::types::{
        GetSkill, GetSkillRequestParams, ListSkills, PaginatedRequestParams, ReadResourceDirectory,
        ReadResourceDirectoryRequestParams,
    };
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills");
    for era in ERAS {
        let transport = ChildProcessTransport::builder(example("skills-server"))
            .arg(folder)
            .spawn()
            .expect("spawning skills-server");
        let connect = Client::builder()
            .era(era)
            .request_timeout(Some(WAIT))
            .connect(transport);
        let (client, connection) = within("connecting to skills-server", connect)
            .await
            .expect("connected");
        let connection = tokio::spawn(connection);
        let listed = within(
            "skills/list",
            client.request::<ListSkills>(PaginatedRequestParams::default()),
        )
        .await
        .expect("listed");
        let uris: Vec<&str> = listed.skills.iter().map(|s| s.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://git-workflow/SKILL.md"
            ],
            "{era:?}"
        );
        let refunds = &listed.skills[0];
        assert_eq!(refunds.frontmatter["metadata"]["owner"], "billing");
        let files = refunds.resources.files().expect("a complete list");
        assert_eq!(files.len(), 4);
        let skill_md = std::fs::read(format!("{folder}/acme/billing/refunds/SKILL.md")).unwrap();
        assert_eq!(files[0].sha256(), Some(hmac_sha256::Hash::hash(&skill_md)));
        assert_eq!(files[0].size, skill_md.len() as u64);

        let got = within(
            "skills/get",
            client.request::<GetSkill>(GetSkillRequestParams::new("skill://git-workflow/SKILL.md")),
        )
        .await
        .expect("got");
        assert_eq!(got.skill.name(), Some("git-workflow"));
        let unknown = client
            .request::<GetSkill>(GetSkillRequestParams::new("skill://nope/SKILL.md"))
            .await;
        assert_eq!(code_of(unknown), ErrorCode::INVALID_PARAMS, "{era:?}");
        assert_eq!(
            read_text(&client, "skill://acme/billing/refunds/SKILL.md")
                .await
                .as_bytes(),
            skill_md
        );
        let dir = ReadResourceDirectoryRequestParams::new("skill://acme/billing/refunds/templates");
        let children = within(
            "resources/directory/read",
            client.request::<ReadResourceDirectory>(dir),
        )
        .await
        .expect("read");
        let children: Vec<(&str, Option<&str>)> = children
            .resources
            .iter()
            .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
            .collect();
        assert_eq!(
            children,
            [
                (
                    "skill://acme/billing/refunds/templates/refund.md",
                    Some("text/markdown")
                ),
                (
                    "skill://acme/billing/refunds/templates/regional",
                    Some("inode/directory")
                ),
            ]
        );
        drop(client);
        let _ = within("the connection's end", connection).await;
    }

    let broken = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(broken.path().join("pdf")).unwrap();
    std::fs::write(
        broken.path().join("pdf/SKILL.md"),
        "---\nname: PDF\ndescription: d\n---\n",
    )
    .unwrap();
    let mut cmd = Command::new(example("skills-server"));
    cmd.arg(broken.path()).stdin(Stdio::null());
    let output = output_within("skills-server", Duration::from_secs(60), cmd).await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("pdf/SKILL.md: the skill name \"PDF\" may hold only lowercase letters"),
        "{stderr}"
    );
}
