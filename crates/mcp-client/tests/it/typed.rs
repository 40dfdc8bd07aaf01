//! Typed calls against a real `mcp_server`, in both eras: a tool's arguments and a prompt's
//! from a struct, `structuredContent` read back as a struct, and the refusals.

use mcp_client::{CallOptions, Client, EraChoice, Error};
use mcp_server::{Context, Json, Prompt, PromptArguments, Server, Tool};
use mcp_types::{CallToolResult, Era, ListTools, Request as _};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::support::FakeServer;

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct AddNote {
    text: String,
    pinned: bool,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
struct Note {
    id: u32,
    text: String,
    pinned: bool,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

/// A type the notes do not fit.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Weather {
    celsius: f64,
}

#[derive(Serialize)]
struct Review {
    language: &'static str,
    max_comments: u32,
    focus: Option<&'static str>,
}

fn server() -> Server {
    Server::builder()
        .name("notes")
        .version("1.0")
        .tool(Tool::typed("add_note", |args: AddNote| async move {
            Json(Note {
                id: 7,
                text: args.text,
                pinned: args.pinned,
            })
        }))
        .tool(Tool::typed(
            "add",
            |args: Add| async move { args.a + args.b },
        ))
        .tool(Tool::typed("fail", |_: Add| async move {
            Err::<String, _>("the notebook is full")
        }))
        .tool(Tool::typed("steps", |args: Add, cx: Context| async move {
            for step in 1..=args.a {
                cx.report_progress(step as f64, Some(args.a as f64), None)
                    .await
                    .map_err(|e| e.to_string())?;
            }
            Ok::<_, String>(args.b)
        }))
        .prompt(
            Prompt::new("review", |args: PromptArguments| async move {
                format!("{:?}", args)
            })
            .argument("language", "The language", true)
            .argument("max_comments", "At most this many comments", true)
            .argument("focus", "What to look at", false),
        )
        .build()
}

/// A client connected to [`server`] in `era` (`Modern`: 2026-07-28, `Legacy`: a handshake
/// revision).
async fn connect(era: EraChoice) -> Client {
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    let server = server();
    tokio::spawn(async move { server.serve(server_end).await });
    let (client, connection) = Client::builder()
        .era(era)
        .connect(client_end)
        .await
        .expect("connect");
    tokio::spawn(connection);
    let expected = match era {
        EraChoice::Legacy => Era::Stateful,
        _ => Era::Stateless,
    };
    assert_eq!(client.era(), expected);
    client
}

const ERAS: [EraChoice; 2] = [EraChoice::Modern, EraChoice::Legacy];

#[tokio::test]
async fn a_struct_goes_in_and_a_struct_comes_out() {
    for era in ERAS {
        let client = connect(era).await;
        // Listed, so that the output schema is checked as well.
        client.list_tools(None).await.unwrap();
        let args = AddNote {
            text: "milk".into(),
            pinned: true,
        };
        let note: Note = client
            .call_tool_structured(("add_note", args))
            .await
            .unwrap();
        let expected = Note {
            id: 7,
            text: "milk".into(),
            pinned: true,
        };
        assert_eq!(note, expected, "{era:?}");

        // The whole result, decoded the same way.
        let args = AddNote {
            text: "milk".into(),
            pinned: true,
        };
        let result = client
            .call_tool_with(("add_note", &args), CallOptions::new())
            .await
            .unwrap();
        let decoded: Note = mcp_client::decode_structured("add_note", &result).unwrap();
        assert_eq!(decoded, expected, "{era:?}");
    }
}

#[tokio::test]
async fn json_arguments_and_a_bare_name() {
    for era in ERAS {
        let client = connect(era).await;
        let result = client
            .call_tool(("add", json!({"a": 1, "b": 2})))
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text(), Some("3"), "{era:?}");
        let name = String::from("add");
        let result = client.call_tool((&name, Add { a: 4, b: 5 })).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("9"), "{era:?}");
        // A bare name sends no arguments: the server refuses the missing `a` and `b`.
        let result = client.call_tool("add").await;
        match result {
            Ok(r) => assert!(r.is_error(), "{era:?}: {r:?}"),
            Err(e) => assert!(e.as_rpc().is_some(), "{era:?}: {e}"),
        }
    }
}

#[tokio::test]
async fn structured_reads_refuse_failures_missing_and_mismatched_content() {
    for era in ERAS {
        let client = connect(era).await;
        let e = client
            .call_tool_structured::<Note>(("fail", Add { a: 1, b: 1 }))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::ToolFailed { tool, message }
            if tool == "fail" && message == "the notebook is full"),
            "{era:?}: {e:?}"
        );
        assert_eq!(e.to_string(), r#"tool "fail" failed: the notebook is full"#);

        let e = client
            .call_tool_structured::<Note>(("add", Add { a: 1, b: 1 }))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::NoStructuredContent { tool } if tool == "add"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            r#"tool "add" returned no structured content"#
        );

        let args = AddNote {
            text: "x".into(),
            pinned: false,
        };
        let e = client
            .call_tool_structured::<Weather>(("add_note", args))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::InvalidStructuredContent { tool, .. } if tool == "add_note"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            r#"structured content of tool "add_note" does not fit the requested type"#
        );
        let source = std::error::Error::source(&e).unwrap().to_string();
        assert!(source.contains("celsius"), "{source}");
    }
}

#[tokio::test]
async fn prompt_arguments_from_a_struct_with_a_number() {
    for era in ERAS {
        let client = connect(era).await;
        let args = Review {
            language: "rust",
            max_comments: 3,
            focus: None,
        };
        let prompt = client.get_prompt(("review", args)).await.unwrap();
        assert_eq!(
            prompt.messages[0].content.as_text(),
            Some(r#"{"language": "rust", "max_comments": "3"}"#),
            "{era:?}"
        );
        let prompt = client
            .get_prompt((
                "review",
                json!({"language": "go", "max_comments": 1.5, "focus": true}),
            ))
            .await
            .unwrap();
        assert_eq!(
            prompt.messages[0].content.as_text(),
            Some(r#"{"focus": "true", "language": "go", "max_comments": "1.5"}"#),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn progress_with_typed_arguments() {
    for era in ERAS {
        let client = connect(era).await;
        let (mut progress, call) =
            client.call_tool_with_progress(("steps", Add { a: 3, b: 42 }), CallOptions::new());
        let watch = async {
            let mut seen = Vec::new();
            while let Some(p) = progress.recv().await {
                seen.push(p.progress);
            }
            seen
        };
        let (result, seen) = tokio::join!(call, watch);
        assert_eq!(result.unwrap().content[0].as_text(), Some("42"), "{era:?}");
        assert_eq!(seen, [1.0, 2.0, 3.0], "{era:?}");
    }
}

/// Arguments that cannot be sent fail the call before anything is sent, in every method that
/// takes them.
#[tokio::test]
async fn refused_arguments_send_nothing() {
    let mut h = FakeServer::new()
        .answer(ListTools::METHOD, json!({"tools": []}))
        .connect(Client::builder())
        .await;
    let client = &h.client;
    let tool_refusal =
        r#"invalid arguments for tool "add": the arguments must be a JSON object, not an array"#;
    let errors = [
        client.call_tool(("add", [1, 2])).await.unwrap_err(),
        client
            .call_tool_with(("add", [1, 2]), CallOptions::new())
            .await
            .unwrap_err(),
        client
            .call_tool_with_progress(("add", [1, 2]), CallOptions::new())
            .1
            .await
            .unwrap_err(),
        client
            .call_tool_structured::<Note>(("add", [1, 2]))
            .await
            .unwrap_err(),
        client
            .call_tool_as_task(("add", [1, 2]), None)
            .await
            .unwrap_err(),
    ];
    for e in errors {
        assert!(
            matches!(e, Error::InvalidArguments { of: "tool", .. }),
            "{e:?}"
        );
        assert_eq!(e.to_string(), tool_refusal);
    }
    let e = client
        .get_prompt(("review", json!({"tags": ["a", "b"]})))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"invalid arguments for prompt "review": argument "tags" must be a string, a number or a boolean, not an array"#
    );
    // The next thing the server sees is what comes after.
    client.list_tools(None).await.unwrap();
    assert_eq!(h.server.next_seen().await.method(), ListTools::METHOD);
}

#[test]
fn decode_structured_of_a_result_at_hand() {
    let ok = CallToolResult::structured(json!({"id": 1, "text": "t", "pinned": false}));
    let note: Note = mcp_client::decode_structured("add_note", &ok).unwrap();
    assert_eq!(note.id, 1);
    let e =
        mcp_client::decode_structured::<Note>("add_note", &CallToolResult::error("")).unwrap_err();
    // A failure without text says so without a dangling colon.
    assert_eq!(e.to_string(), r#"tool "add_note" failed"#);
}
