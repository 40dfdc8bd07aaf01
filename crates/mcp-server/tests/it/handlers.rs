//! Handler shapes: with or without input and context, application state, extractors, async
//! functions and async closures, for every kind of handler.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_server::types::{Completion, JsonObject, PromptMessage};
use mcp_server::{
    CompletionRequest, Context, Error, Extension, FromContext, Prompt, PromptArguments, Resource,
    ResourceTemplate, Server, State, Tool, UriParams,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::support::{Client, rpc_error};

/// Application state shared by every handler.
#[derive(Clone, Default)]
struct Db {
    calls: Arc<AtomicU64>,
    greeting: &'static str,
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

async fn greet(args: Name, State(db): State<Db>) -> String {
    db.calls.fetch_add(1, Ordering::Relaxed);
    format!("{}, {}!", db.greeting, args.name)
}

/// An extractor of the test's own: the caller, from what the transport attached.
#[derive(Clone)]
struct Caller(&'static str);

struct CallerName(&'static str);

impl FromContext for CallerName {
    fn from_context(cx: &Context) -> mcp_server::Result<Self> {
        cx.extensions()
            .get::<Caller>()
            .map(|c| CallerName(c.0))
            .ok_or_else(|| Error::rpc(-32001, "who are you?"))
    }
}

fn server(db: Db) -> Server {
    Server::builder()
        .state(db)
        .state(7_u32)
        // Input, then an extractor; an async fn.
        .tool(Tool::typed("greet", greet))
        // Input only; a closure returning an async block, no turbofish for a plain value.
        .tool(Tool::typed("shout", |args: Name| async move {
            args.name.to_uppercase()
        }))
        // A Rust 2024 async closure with several extractors.
        .tool(Tool::typed(
            "count",
            async |args: Name, cx: Context, State(db): State<Db>, State(n): State<u32>| {
                let calls = db.calls.load(Ordering::Relaxed);
                format!("{} {} {calls} {n} {}", args.name, cx.request_id(), cx.session().is_some())
            },
        ))
        // No input, no extractor.
        .tool(Tool::new("ping", || async { "pong" }))
        // No input, the state read from the context.
        .tool(Tool::new("greeting", |cx: Context| async move {
            cx.state::<Db>().map(|db| db.greeting).unwrap_or("?")
        }))
        // An optional state that was never given (a required one is refused by `build`: see
        // `states.rs`).
        .tool(Tool::new("optional", |s: Option<State<String>>| async move {
            s.map_or_else(|| "none".to_owned(), |State(s)| s)
        }))
        // A custom extractor and an `Extension`.
        .tool(Tool::new("whoami", |CallerName(name): CallerName| async move { name }))
        .tool(Tool::new("ext", |Extension(caller): Extension<Caller>| async move {
            caller.0
        }))
        // A raw tool taking the server as an extractor.
        .tool(
            Tool::raw(
                "tools",
                json!({"type": "object"}),
                |_args: JsonObject, server: Server| async move {
                    server.session_count()
                },
            )
            .unwrap(),
        )
        // Resources, templates, prompts and completion take state too.
        .resource(Resource::new("db://greeting", "greeting", |State(db): State<Db>| async move {
            db.greeting.to_owned()
        }))
        .resource_template(
            ResourceTemplate::new(
                "db://users/{id}",
                "user",
                |p: UriParams, State(n): State<u32>| async move {
                    format!("user {} of {n}", p.get("id").unwrap_or_default())
                },
            )
            .unwrap()
            .complete("id", |req: CompletionRequest, State(n): State<u32>| async move {
                {
 let mut built = Completion::default();
 built.values = vec![format!("{}{n}", req.value)];
 built
}
            }),
        )
        .prompt(Prompt::new(
            "hello",
            |args: PromptArguments, State(db): State<Db>| async move {
                vec![PromptMessage::user_text(format!(
                    "{} {}",
                    db.greeting,
                    args.get("who").map_or("world", String::as_str)
                ))]
            },
        ))
        .build()
}

fn db() -> Db {
    Db {
        calls: Arc::default(),
        greeting: "Hello",
    }
}

async fn text(client: &Client, name: &str, args: serde_json::Value) -> String {
    let r = client
        .raw("tools/call", json!({"name": name, "arguments": args}))
        .await
        .unwrap();
    assert_eq!(r["isError"], json!(null), "{r}");
    r["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test(start_paused = true)]
async fn state_and_extractors_reach_every_kind_of_handler() {
    let db = db();
    let server = server(db.clone());
    let client = Client::connect_with(&server, Caller("ada")).await;

    assert_eq!(
        text(&client, "greet", json!({"name": "Ada"})).await,
        "Hello, Ada!"
    );
    assert_eq!(
        db.calls.load(Ordering::Relaxed),
        1,
        "the state is shared, not copied"
    );
    assert_eq!(text(&client, "shout", json!({"name": "ada"})).await, "ADA");
    let count = text(&client, "count", json!({"name": "n"})).await;
    assert!(
        count.starts_with("n ") && count.ends_with(" 1 7 true"),
        "{count}"
    );
    assert_eq!(text(&client, "ping", json!({})).await, "pong");
    assert_eq!(text(&client, "greeting", json!({})).await, "Hello");
    assert_eq!(text(&client, "optional", json!({})).await, "none");
    assert_eq!(text(&client, "whoami", json!({})).await, "ada");
    assert_eq!(text(&client, "ext", json!({})).await, "ada");
    assert_eq!(text(&client, "tools", json!({})).await, "1");

    let read = client
        .raw("resources/read", json!({"uri": "db://greeting"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "Hello");
    let read = client
        .raw("resources/read", json!({"uri": "db://users/42"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "user 42 of 7");
    let completion = client
        .raw(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "db://users/{id}"},
                   "argument": {"name": "id", "value": "4"}}),
        )
        .await
        .unwrap();
    assert_eq!(completion["completion"]["values"], json!(["47"]));
    let prompt = client
        .raw(
            "prompts/get",
            json!({"name": "hello", "arguments": {"who": "you"}}),
        )
        .await
        .unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "Hello you");
}

#[tokio::test(start_paused = true)]
async fn a_failing_extractor_answers_with_its_error_and_the_handler_does_not_run() {
    let server = server(db());
    // No `Caller` attached: the custom extractor refuses with its own code.
    let client = Client::connect_full(&server).await;
    let err = rpc_error(
        client
            .raw("tools/call", json!({"name": "whoami"}))
            .await
            .unwrap_err(),
    );
    assert_eq!((err.code.0, err.message.as_str()), (-32001, "who are you?"));
    let err = rpc_error(
        client
            .raw("tools/call", json!({"name": "ext"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32603);
    assert!(
        err.message.contains("no extension of type"),
        "{}",
        err.message
    );
}
