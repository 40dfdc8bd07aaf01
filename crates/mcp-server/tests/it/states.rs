//! Application state a handler takes is checked when the server is built (and when a handler
//! is added to a running one), not on every call.

use std::panic::{AssertUnwindSafe, catch_unwind};

use mcp_server::types::PromptMessage;
use mcp_server::{
    CompletionRequest, Context, Error, FromContext, McpRequest, Prompt, PromptArguments,
    RequiredStates, Resource, ResourceTemplate, Server, State, StateNotGiven, Tool, UriParams,
};
use serde_json::json;

use crate::support::Client;

#[derive(Clone)]
struct Notes;

#[derive(Clone)]
struct Style;

#[derive(Clone)]
struct Pool;

/// An extractor of the application's own that reads a state, and says so.
struct Db;

impl FromContext for Db {
    fn from_context(cx: &Context) -> mcp_server::Result<Self> {
        cx.state::<Pool>()
            .map(|_| Db)
            .ok_or(Error::MissingState("Pool"))
    }

    fn required_states(states: &mut RequiredStates) {
        states.add::<Pool>();
    }
}

fn missing(e: Error) -> Vec<StateNotGiven> {
    match e {
        Error::StatesNotGiven(missing) => missing,
        other => panic!("expected StatesNotGiven, got {other:?}"),
    }
}

fn short(missing: &[StateNotGiven]) -> Vec<(String, Vec<String>)> {
    missing
        .iter()
        .map(|m| {
            let name = m.state.rsplit("::").next().unwrap_or(m.state).to_owned();
            (name, m.taken_by.clone())
        })
        .collect()
}

/// Every kind of handler that takes a state the builder lacks.
fn takers() -> mcp_server::ServerBuilder {
    Server::builder()
        .tool(Tool::new("count", |State(_n): State<Notes>| async { 0 }))
        .tool(Tool::new("lookup", |_db: Db| async { "found" }))
        .prompt(
            Prompt::new(
                "review",
                |_a: PromptArguments, State(_s): State<Style>| async {
                    vec![PromptMessage::user_text("Review this.")]
                },
            )
            .complete(
                "language",
                |_r: CompletionRequest, State(_n): State<Notes>| async { vec!["rust".to_owned()] },
            ),
        )
        .resource(Resource::new(
            "notes://all",
            "notes",
            |State(_n): State<Notes>| async { "all" },
        ))
        .resource_template(
            ResourceTemplate::new("notes://{id}", "note", |_p: UriParams, _db: Db| async {
                "one"
            })
            .unwrap(),
        )
        .fallback(|_req: McpRequest, State(_s): State<Style>| async { Ok::<_, Error>(json!({})) })
}

#[test]
fn try_build_names_each_missing_state_and_what_takes_it() {
    let missing = missing(takers().try_build().unwrap_err());
    assert_eq!(
        short(&missing),
        [
            (
                "Notes".to_owned(),
                vec![
                    r#"tool "count""#.to_owned(),
                    r#"prompt "review""#.to_owned(),
                    r#"resource "notes://all""#.to_owned(),
                ]
            ),
            (
                "Pool".to_owned(),
                vec![
                    r#"tool "lookup""#.to_owned(),
                    r#"resource template "notes://{id}""#.to_owned(),
                ]
            ),
            (
                "Style".to_owned(),
                vec![r#"prompt "review""#.to_owned(), "the fallback".to_owned()]
            ),
        ]
    );
    let text = Error::StatesNotGiven(missing).to_string();
    assert!(
        text.starts_with("handlers take application state the server was not given: State<"),
        "{text}"
    );
    assert!(text.contains("give each to ServerBuilder::state"), "{text}");
}

#[test]
fn given_states_and_optional_ones_build() {
    let server = takers()
        .state(Notes)
        .state(Style)
        .state(Pool)
        .tool(Tool::new("maybe", |_s: Option<State<String>>| async {
            "ok"
        }))
        .try_build();
    assert!(server.is_ok());
}

#[test]
fn build_panics_with_the_same_text_before_serving_anything() {
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        takers().state(Notes).state(Pool).build()
    }))
    .expect_err("build must refuse a missing state");
    let text = panicked
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(text.contains("State<"), "{text}");
    assert!(
        text.contains("Style> (taken by prompt \"review\", the fallback)"),
        "{text}"
    );
    assert!(!text.contains("Notes>"), "{text}");
}

#[tokio::test]
async fn a_handler_added_later_is_checked_against_the_running_servers_states() {
    let server = Server::builder().state(Notes).build();
    server.add_tool(Tool::new("count", |State(_n): State<Notes>| async { 7 }));
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        server.add_prompt(Prompt::new("styled", |State(_s): State<Style>| async {
            "Write in style."
        }));
    }))
    .expect_err("add_prompt must refuse a missing state");
    let text = panicked
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        text.contains("Style> (taken by prompt \"styled\")"),
        "{text}"
    );

    // The server goes on serving what it has; the refused prompt was not added.
    let client = Client::connect_full(&server).await;
    let got = client.raw("prompts/get", json!({"name": "styled"})).await;
    assert!(
        got.is_err(),
        "the refused prompt must not be served: {got:?}"
    );
    let called = client
        .raw("tools/call", json!({"name": "count"}))
        .await
        .unwrap();
    assert_eq!(called["content"][0]["text"], "7");
}
