//! Interop: the MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned by
//! `cargo xtask setup`) drives `everything-server` over stdio, one request per run, as
//! `tests/peers/inspector_cli.sh` does: `node mcp-inspector --cli --format json --quiet
//! --method <m> ... -- <server>`.
//!
//! The Inspector has no sampling or elicitation handlers and no completion in CLI mode (see
//! `tests/peers/README.md`), so the tools that need them report that the client lacks the
//! capability; completion is covered by the Python interop test.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::fixture;
use crate::support::bins::everything_server;
use crate::support::output_within;
use crate::support::peers::peers;

/// What one Inspector run gave.
#[derive(Debug)]
struct Run {
    /// The exit code.
    code: Option<i32>,
    /// `result` of the `{"result": ...}` envelope on stdout (`Null` if none).
    result: Value,
    /// stderr (the `{"error": ...}` envelope on failure).
    stderr: String,
}

/// Runs the Inspector CLI with `args` against `everything-server`.
async fn inspector(args: Vec<String>) -> Run {
    let peers = peers();
    let mut cmd = tokio::process::Command::new(&peers.node);
    cmd.arg(peers.inspector())
        .args(["--cli", "--format", "json", "--quiet"])
        .args(&args)
        .arg("--")
        .arg(everything_server());
    let what = format!("mcp-inspector {}", args.join(" "));
    let output = output_within(&what, Duration::from_secs(20), cmd).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let result = if stdout.trim().is_empty() {
        Value::Null
    } else {
        let envelope: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{what}: stdout is not JSON ({e}): {stdout}"));
        envelope["result"].clone()
    };
    Run {
        code: output.status.code(),
        result,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs every argument list (a few at a time: each run starts Node and the server) and
/// returns the runs in the same order.
async fn inspector_all(runs: Vec<Vec<String>>) -> Vec<Run> {
    let limit = Arc::new(Semaphore::new(6));
    let mut set = JoinSet::new();
    for (i, args) in runs.into_iter().enumerate() {
        let limit = limit.clone();
        set.spawn(async move {
            let _permit = limit.acquire_owned().await.expect("semaphore open");
            (i, inspector(args).await)
        });
    }
    let mut done: Vec<(usize, Run)> = set.join_all().await.into_iter().collect();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, run)| run).collect()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// Asserts a successful run and returns its result.
fn ok(run: &Run, what: &str) -> Value {
    assert_eq!(run.code, Some(0), "{what}: {run:?}");
    run.result.clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn inspector_initializes_sets_the_level_and_lists_every_tool() {
    let runs = inspector_all(vec![
        args(&["--method", "initialize"]),
        args(&["--method", "logging/setLevel", "--log-level", "debug"]),
        args(&["--method", "tools/list"]),
    ])
    .await;
    let init = ok(&runs[0], "initialize");
    assert_eq!(
        init["serverInfo"],
        json!({"name": "mcp-conformance-test-server", "version": "1.0.0"})
    );
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(
        init["capabilities"],
        json!({"tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true}, "logging": {}, "completions": {}})
    );
    assert_eq!(ok(&runs[1], "logging/setLevel"), json!({}));
    let expected: Vec<Value> = fixture::TOOLS
        .iter()
        .map(|(name, description)| {
            json!({"name": name, "description": description,
                "inputSchema": fixture::input_schema(name)})
        })
        .collect();
    assert_eq!(ok(&runs[2], "tools/list"), json!({"tools": expected}));
}

#[tokio::test(flavor = "multi_thread")]
async fn inspector_calls_every_tool() {
    let call = |name: &str, json_args: Option<&str>| {
        let mut a = args(&["--method", "tools/call", "--tool-name", name]);
        if let Some(j) = json_args {
            a.extend(args(&["--tool-args-json", j]));
        }
        a
    };
    let json_tool_args = r#"{"name":"Alice","contactMethod":"email","email":"alice@example.com"}"#;
    let mut runs = Vec::new();
    for (name, _) in fixture::TOOLS {
        runs.push(call(
            name,
            match name {
                "test_sampling" => Some(r#"{"prompt":"Test prompt for sampling"}"#),
                "test_elicitation" => Some(r#"{"message":"Please provide your information"}"#),
                "json_schema_2020_12_tool" => Some(json_tool_args),
                _ => None,
            },
        ));
    }
    let runs = inspector_all(runs).await;
    // The Inspector declares neither sampling nor elicitation: the tools say so.
    let no_elicitation = "the client did not declare the elicitation.form capability";
    for ((name, _), run) in fixture::TOOLS.iter().zip(&runs) {
        let expected = match *name {
            "test_tool_with_progress" => json!({"content": [{"type": "text", "text": "0"}]}),
            "test_sampling" => json!({"content": [{"type": "text",
                "text": "Sampling not supported or error: the client did not declare the sampling capability"}]}),
            "test_elicitation" => json!({"content": [{"type": "text",
                "text": format!("Elicitation not supported or error: {no_elicitation}")}]}),
            "test_elicitation_sep1034_defaults" | "test_elicitation_sep1330_enums" => {
                json!({"content": [{"type": "text", "text": no_elicitation}], "isError": true})
            }
            "json_schema_2020_12_tool" => json!({"content": [{"type": "text",
                "text": format!("JSON Schema 2020-12 tool called with: {}",
                    serde_json::from_str::<Value>(json_tool_args).unwrap())}]}),
            "test_error_handling" => json!({
                "content": fixture::fixed_content(name).unwrap(), "isError": true}),
            _ => json!({"content": fixture::fixed_content(name).unwrap()}),
        };
        // Exit 5 with the result still printed is the Inspector's "tool returned isError".
        let code = if expected["isError"] == true { 5 } else { 0 };
        assert_eq!(run.code, Some(code), "{name}: {run:?}");
        assert_eq!(run.result, expected, "{name}");
        if code == 5 {
            assert!(
                run.stderr.contains("tool_is_error"),
                "{name}: {}",
                run.stderr
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn inspector_reads_every_resource_and_gets_every_prompt() {
    let uris = [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "test://template/123/data",
    ];
    let mut runs = vec![
        args(&["--method", "resources/list"]),
        args(&["--method", "resources/templates/list"]),
        args(&["--method", "prompts/list"]),
        args(&["--method", "resources/read", "--uri", "test://nonexistent"]),
        args(&[
            "--method",
            "prompts/get",
            "--prompt-name",
            "test_prompt_with_arguments",
            "--prompt-args",
            "arg1=only",
        ]),
    ];
    for uri in uris {
        runs.push(args(&["--method", "resources/read", "--uri", uri]));
    }
    let prompts = [
        ("test_simple_prompt", vec![]),
        (
            "test_prompt_with_arguments",
            vec!["arg1=testValue1", "arg2=testValue2"],
        ),
        (
            "test_prompt_with_embedded_resource",
            vec!["resourceUri=test://example-resource"],
        ),
        ("test_prompt_with_image", vec![]),
    ];
    for (name, prompt_args) in &prompts {
        let mut a = args(&["--method", "prompts/get", "--prompt-name", name]);
        if !prompt_args.is_empty() {
            a.push("--prompt-args".to_owned());
            a.extend(args(prompt_args));
        }
        runs.push(a);
    }
    let runs = inspector_all(runs).await;

    assert_eq!(
        ok(&runs[0], "resources/list"),
        json!({"resources": fixture::resources()})
    );
    assert_eq!(
        ok(&runs[1], "resources/templates/list"),
        json!({"resourceTemplates": fixture::templates()})
    );
    assert_eq!(
        ok(&runs[2], "prompts/list"),
        json!({"prompts": fixture::prompts()})
    );
    // JSON-RPC errors: exit 1 with the error envelope on stderr.
    assert_eq!(runs[3].code, Some(1), "{:?}", runs[3]);
    assert!(
        runs[3].stderr.contains("Resource not found"),
        "{}",
        runs[3].stderr
    );
    assert_eq!(runs[4].code, Some(1), "{:?}", runs[4]);
    assert!(runs[4].stderr.contains("arg2"), "{}", runs[4].stderr);

    for (uri, run) in uris.iter().zip(&runs[5..9]) {
        assert_eq!(
            ok(run, uri),
            json!({"contents": fixture::read_contents(uri)}),
            "{uri}"
        );
    }
    for ((name, _), run) in prompts.iter().zip(&runs[9..]) {
        let messages =
            fixture::prompt_messages(name, "testValue1", "testValue2", "test://example-resource");
        assert_eq!(ok(run, name), json!({"messages": messages}), "{name}");
    }
}
