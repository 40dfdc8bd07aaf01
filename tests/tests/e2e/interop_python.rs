//! Interop: the Python SDK client (PyPI `mcp`, pinned by `cargo xtask setup`) drives
//! `everything-server` over stdio through `tests/peers/python_client.py`, which lists and
//! calls every tool (answering sampling and elicitation), reads every resource and template,
//! subscribes, gets every prompt and completes arguments, then prints one JSON report.
//!
//! The MCP Apps extension with the Python SDK as the host (`tests/peers/python_apps_client.py`,
//! which declares `io.modelcontextprotocol/ui` through `mcp.client.advertise`) against the
//! `apps-server` example over stdio, in both eras: declared, it lists the tool with its view
//! and the app-only tool and reads the view as `text/html;profile=mcp-app`; undeclared, it
//! gets the plain tools only, and the view is not found.

use std::time::Duration;

use serde_json::{Value, json};

use crate::fixture;
use crate::support::bins::{apps_server, everything_server};
use crate::support::peers::peers;
use crate::support::{output_within, peers_dir};

/// The part of an elicitation tool's text after `content=`, parsed.
fn elicited_content<'a>(text: &'a str, prefix: &str) -> Value {
    let rest: &'a str = text
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{text:?} does not start with {prefix:?}"));
    serde_json::from_str(rest).unwrap_or_else(|e| panic!("bad JSON in {text:?}: {e}"))
}

/// The text of the only content block of tool `name`'s result.
fn text<'a>(report: &'a Value, name: &str) -> &'a str {
    let content = &report["calls"][name]["content"];
    assert_eq!(
        content.as_array().map(Vec::len),
        Some(1),
        "{name}: {content}"
    );
    content[0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: no text in {content}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_client_exercises_everything_server_over_stdio() {
    let peers = peers();
    let server = everything_server();
    let mut cmd = tokio::process::Command::new(&peers.python);
    cmd.arg(peers_dir().join("python_client.py"))
        .args(["--timeout", "10", "--"])
        .arg(server)
        .env("RUST_LOG", "warn");
    let output = output_within("python_client.py", Duration::from_secs(30), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "python_client.py printed no JSON report ({e}); status {}\nstderr:\n{stderr}",
            output.status
        )
    });
    assert_eq!(report["errors"], json!([]), "stderr:\n{stderr}");
    assert!(output.status.success(), "status {}", output.status);

    // Handshake.
    assert_eq!(
        report["server"],
        json!({
            "protocolVersion": "2025-11-25",
            "name": "mcp-conformance-test-server",
            "version": "1.0.0",
            "capabilities": {
                "tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": true},
                "logging": {},
                "completions": {}
            }
        })
    );

    // Tools: all listed and called.
    assert_eq!(report["tools"], json!(fixture::tool_names()));
    let calls = report["calls"].as_object().unwrap();
    assert_eq!(calls.len(), 14, "every tool was called");
    for (name, _) in fixture::TOOLS {
        let is_error = report["calls"][name]["isError"] == true;
        assert_eq!(is_error, name == "test_error_handling", "{name}: isError");
        if let Some(content) = fixture::fixed_content(name) {
            assert_eq!(report["calls"][name]["content"], content, "{name}");
        }
    }
    // The SDK uses the request id as the progress token; the tool echoes it.
    let token = text(&report, "test_tool_with_progress");
    assert!(token.parse::<u64>().is_ok(), "progress token {token:?}");
    assert_eq!(
        text(&report, "test_sampling"),
        "LLM response: This is a test response from the Python client"
    );
    assert_eq!(
        elicited_content(
            text(&report, "test_elicitation"),
            "User response: action=accept, content="
        ),
        json!({"response": "python client answer"})
    );
    // The Python client accepts the defaults.
    let defaults = elicited_content(
        text(&report, "test_elicitation_sep1034_defaults"),
        "Elicitation completed: action=accept, content=",
    );
    let expected = json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
        "verified": true});
    assert!(fixture::same_json(&defaults, &expected), "{defaults}");
    assert_eq!(
        elicited_content(
            text(&report, "test_elicitation_sep1330_enums"),
            "Elicitation completed: action=accept, content="
        ),
        json!({"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
            "untitledMulti": ["option1"], "titledMulti": ["value1"]})
    );
    assert_eq!(
        elicited_content(
            text(&report, "json_schema_2020_12_tool"),
            "JSON Schema 2020-12 tool called with: "
        ),
        json!({"name": "Alice", "contactMethod": "email", "email": "alice@example.com",
            "address": {"street": "1 Main St", "city": "Springfield"}})
    );

    // What the server sent the client while the tools ran.
    assert_eq!(
        report["sampling"],
        json!([{"messages": [{"role": "user",
            "content": {"type": "text", "text": "Test prompt for sampling"}}], "maxTokens": 100}])
    );
    let elicitations = report["elicitations"].as_array().unwrap();
    let expected = [
        (
            "Please provide your information",
            fixture::elicitation_schema(),
        ),
        (
            "Please review and update the form fields with defaults",
            fixture::sep1034_schema(),
        ),
        (
            "Please select options from the enum fields",
            fixture::sep1330_schema(),
        ),
    ];
    assert_eq!(elicitations.len(), expected.len(), "{elicitations:?}");
    for (got, (message, schema)) in elicitations.iter().zip(expected) {
        assert_eq!(got["message"], message);
        assert!(
            fixture::same_json(&got["requestedSchema"], &schema),
            "{message}: {}",
            got["requestedSchema"]
        );
    }
    let progress: Vec<(f64, &str)> = report["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["tool"], "test_tool_with_progress");
            assert_eq!(p["total"], 100.0);
            (
                p["progress"].as_f64().unwrap(),
                p["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        progress,
        [
            (0.0, "Completed step 0 of 100"),
            (50.0, "Completed step 50 of 100"),
            (100.0, "Completed step 100 of 100"),
        ]
    );
    let tool_logs: Vec<&Value> = report["logs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l.get("logger").is_none())
        .collect();
    let expected: Vec<Value> = fixture::LOG_MESSAGES
        .iter()
        .map(|m| json!({"level": "info", "data": m}))
        .collect();
    assert_eq!(tool_logs, expected.iter().collect::<Vec<_>>());

    // Resources and the template (instantiated with 42), subscription.
    assert_eq!(report["templates"], json!(["test://template/{id}/data"]));
    let resources = report["resources"].as_object().unwrap();
    let uris = [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "test://template/42/data",
    ];
    assert_eq!(resources.len(), uris.len(), "{:?}", resources.keys());
    for uri in uris {
        assert_eq!(
            report["resources"][uri]["contents"],
            fixture::read_contents(uri),
            "{uri}"
        );
    }
    assert_eq!(
        report["subscriptions"],
        json!([{"subscribe": "test://watched-resource"},
            {"unsubscribe": "test://watched-resource"}])
    );

    // Prompts.
    let prompts = report["prompts"].as_object().unwrap();
    assert_eq!(prompts.len(), 4);
    for name in prompts.keys() {
        assert_eq!(
            report["prompts"][name]["messages"],
            fixture::prompt_messages(name, "testValue1", "testValue2", "test://example-resource"),
            "{name}"
        );
    }

    // Completion of a prompt argument and a template variable.
    let completions = report["completions"].as_array().unwrap();
    let refs: Vec<(&Value, &Value)> = completions
        .iter()
        .map(|c| (&c["ref"], &c["argument"]))
        .collect();
    assert_eq!(
        refs,
        [
            (
                &json!({"type": "ref/prompt", "name": "test_prompt_with_arguments"}),
                &json!("arg1")
            ),
            (
                &json!({"type": "ref/resource", "uri": "test://template/{id}/data"}),
                &json!("id")
            ),
        ]
    );
    for c in completions {
        assert_eq!(c["result"]["completion"], fixture::empty_completion());
    }
}

/// `python_apps_client.py <args> -- apps-server` (stdio): its report, once it exited 0.
async fn python_apps_report(args: &[&str]) -> Value {
    let mut cmd = tokio::process::Command::new(&peers().python);
    cmd.arg(peers_dir().join("python_apps_client.py"))
        .args(args)
        .args(["--timeout", "10", "--"])
        .arg(apps_server())
        .env("RUST_LOG", "warn");
    let output = output_within("python_apps_client.py", Duration::from_secs(30), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "python_apps_client.py {args:?} printed no JSON report ({e}); status {}\nstderr:\n{stderr}",
            output.status
        )
    });
    assert_eq!(report["errors"], json!([]), "{args:?}: stderr:\n{stderr}");
    assert!(
        output.status.success(),
        "{args:?}: status {}",
        output.status
    );
    report
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_host_gets_the_apps_view_only_when_it_declares_the_extension() {
    for (mode, version, not_found) in [
        ("legacy", "2025-11-25", -32002),
        ("auto", "2026-07-28", -32602),
    ] {
        let report = python_apps_report(&["--mode", mode]).await;
        assert_eq!(report["server"]["protocolVersion"], version, "{mode}");
        assert_eq!(report["declared"], true);
        assert_eq!(
            report["tools"],
            json!([
                {"name": "add_note", "resourceUri": null, "visibility": null, "meta": null},
                {"name": "list_notes", "resourceUri": "ui://notes/app", "visibility": null,
                 "meta": {"ui": {"resourceUri": "ui://notes/app"}}},
                {"name": "refresh_notes", "resourceUri": "ui://notes/app", "visibility": ["app"],
                 "meta": {"ui": {"resourceUri": "ui://notes/app", "visibility": ["app"]}}},
            ]),
            "{mode}"
        );
        let contents = &report["resources"]["ui://notes/app"]["contents"];
        assert_eq!(
            contents.as_array().map(Vec::len),
            Some(1),
            "{mode}: {contents}"
        );
        let view = &contents[0];
        assert_eq!(view["uri"], "ui://notes/app", "{mode}");
        assert_eq!(view["mimeType"], "text/html;profile=mcp-app", "{mode}");
        assert_eq!(view["doctype"], true, "{mode}: an HTML5 document");
        assert!(
            view["textLength"].as_u64().unwrap_or(0) > 0,
            "{mode}: {view}"
        );
        assert_eq!(
            view["meta"],
            json!({"ui": {"prefersBorder": true}}),
            "{mode}"
        );

        // Without the declaration: the plain tools, no app-only one, and no view.
        let report =
            python_apps_report(&["--mode", mode, "--no-declare", "--hidden", "ui://notes/app"])
                .await;
        assert_eq!(report["declared"], false);
        assert_eq!(
            report["tools"],
            json!([
                {"name": "add_note", "resourceUri": null, "visibility": null, "meta": null},
                {"name": "list_notes", "resourceUri": null, "visibility": null, "meta": null},
            ]),
            "{mode}"
        );
        assert_eq!(report["resources"], json!({}), "{mode}");
        assert_eq!(
            report["hidden"]["ui://notes/app"]["code"], not_found,
            "{mode}: {report}"
        );
    }
}
