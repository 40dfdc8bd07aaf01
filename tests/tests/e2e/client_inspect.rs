//! The `mcp-inspect` example, run as a process against `everything-server`: every method
//! prints its result as JSON on stdout; failures exit non-zero with JSON on stderr.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use crate::fixture;
use crate::support::bins::{everything_server, mcp_inspect};
use crate::support::client::within;
use crate::support::output_within;

/// What one `mcp-inspect` run printed.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// What the run negotiated: the first line of stderr.
    fn negotiated(&self) -> Value {
        let first = self.stderr.lines().next().unwrap_or_default();
        let line: Value = serde_json::from_str(first)
            .unwrap_or_else(|e| panic!("stderr does not start with JSON ({e}): {}", self.stderr));
        line["negotiated"].clone()
    }

    /// The stdout, which must be one JSON document after a successful run.
    fn result(&self) -> Value {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }

    /// The stderr JSON of a failed run.
    fn error(&self) -> Value {
        assert_eq!(self.code, Some(1), "stdout: {}", self.stdout);
        assert!(self.stdout.is_empty(), "stdout: {}", self.stdout);
        let last = self.stderr.lines().last().unwrap_or_default();
        serde_json::from_str(last)
            .unwrap_or_else(|e| panic!("stderr is not JSON ({e}): {}", self.stderr))
    }
}

/// Runs `mcp-inspect <method> [--params <params>] --era legacy -- everything-server`: the
/// fixture's payloads of the handshake era, compared exactly.
async fn inspect(method: &str, params: Option<Value>) -> Run {
    inspect_at(method, params, None, "legacy").await
}

/// Runs `mcp-inspect <method> [--params <params>] --era <era>` against `url`, or against
/// `everything-server` over stdio.
async fn inspect_at(method: &str, params: Option<Value>, url: Option<&str>, era: &str) -> Run {
    let mut cmd = tokio::process::Command::new(mcp_inspect());
    cmd.arg(method).arg("--era").arg(era);
    if let Some(params) = params {
        cmd.arg("--params").arg(params.to_string());
    }
    match url {
        Some(url) => cmd.arg("--url").arg(url),
        None => cmd.arg("--").arg(everything_server()),
    };
    let output = output_within(
        &format!("mcp-inspect {method}"),
        Duration::from_secs(20),
        cmd,
    )
    .await;
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[tokio::test]
async fn inspect_lists_the_14_tools() {
    let result = inspect("tools/list", None).await.result();
    let names: Vec<_> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, fixture::tool_names());
    assert_eq!(names.len(), 14);
}

#[tokio::test]
async fn inspect_calls_test_simple_text() {
    let run = inspect("tools/call", Some(json!({"name": "test_simple_text"}))).await;
    assert_eq!(
        run.result(),
        json!({"content": [{"type": "text", "text": "This is a simple text response for testing."}]})
    );
    assert_eq!(
        run.stdout.lines().count(),
        1,
        "one line of JSON: {}",
        run.stdout
    );
}

#[tokio::test]
async fn inspect_lists_and_reads_resources_and_templates() {
    let result = inspect("resources/list", None).await.result();
    assert_eq!(result, json!({"resources": fixture::resources()}));
    let result = inspect("resources/templates/list", None).await.result();
    assert_eq!(result, json!({"resourceTemplates": fixture::templates()}));
    let uri = "test://template/123/data";
    let result = inspect("resources/read", Some(json!({"uri": uri})))
        .await
        .result();
    assert_eq!(result, json!({"contents": fixture::read_contents(uri)}));
}

#[tokio::test]
async fn inspect_lists_and_gets_prompts() {
    let result = inspect("prompts/list", None).await.result();
    assert_eq!(result, json!({"prompts": fixture::prompts()}));
    let params =
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}});
    let result = inspect("prompts/get", Some(params)).await.result();
    assert_eq!(
        result["messages"],
        fixture::prompt_messages("test_prompt_with_arguments", "a", "b", "")
    );
}

#[tokio::test]
async fn inspect_completes_and_pings() {
    let params = json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "test"}});
    let result = inspect("completion/complete", Some(params)).await.result();
    assert_eq!(result, json!({"completion": fixture::empty_completion()}));
    assert_eq!(inspect("ping", None).await.result(), json!({}));
}

#[tokio::test]
async fn inspect_reports_errors_as_json_on_stderr() {
    // An error of the server: code, message and data.
    let uri = "test://nope";
    let error = inspect("resources/read", Some(json!({"uri": uri})))
        .await
        .error();
    assert_eq!(
        error,
        json!({"error": {"code": -32002, "message": "Resource not found", "data": {"uri": uri}}})
    );
    // A tool failure is a result, not an error.
    let result = inspect("tools/call", Some(json!({"name": "test_error_handling"})))
        .await
        .result();
    assert_eq!(result["isError"], true);
    // Bad params are caught before sending.
    let error = inspect("tools/call", None).await.error();
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("invalid --params for tools/call"),
        "{message}"
    );
    assert!(error["error"].get("code").is_none());
}

#[tokio::test]
async fn inspect_prints_the_negotiated_era() {
    for (era, expected) in [
        (
            "auto",
            json!({"protocolVersion": "2026-07-28", "era": "stateless"}),
        ),
        (
            "modern",
            json!({"protocolVersion": "2026-07-28", "era": "stateless"}),
        ),
        (
            "legacy",
            json!({"protocolVersion": "2025-11-25", "era": "stateful"}),
        ),
    ] {
        let run = inspect_at("ping", None, None, era).await;
        assert_eq!(run.negotiated(), expected, "--era {era}");
        assert_eq!(run.result(), json!({}), "--era {era}");
    }
}

#[tokio::test]
async fn inspect_usage_errors_exit_2() {
    for args in [
        &["tools/list"][..],
        &["nope/method", "--", "true"],
        &["tools/list", "--params", "{not json", "--", "true"],
        &["tools/list", "--era", "sideways", "--", "true"],
    ] {
        let mut cmd = tokio::process::Command::new(mcp_inspect());
        cmd.args(args);
        let output = output_within("mcp-inspect", Duration::from_secs(20), cmd).await;
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr: Value = serde_json::from_slice(&output.stderr).unwrap();
        assert!(stderr["error"]["message"].is_string(), "{stderr}");
    }
}

#[tokio::test]
async fn inspect_over_http_with_url() {
    let mut server = tokio::process::Command::new(everything_server())
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // The server announces its address on stderr: `listening on http://<addr>/mcp`.
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = within("everything-server to listen", async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(at) = line.find("http://") {
                return line[at..].split_whitespace().next().unwrap().to_owned();
            }
        }
        panic!("everything-server --http exited without listening");
    })
    .await;

    let run = inspect_at("tools/list", None, Some(&url), "legacy").await;
    assert_eq!(run.negotiated()["era"], "stateful");
    let result = run.result();
    assert_eq!(result["tools"].as_array().unwrap().len(), 14);
    // The same endpoint in the default era choice: 2026-07-28.
    let run = inspect_at("tools/list", None, Some(&url), "auto").await;
    assert_eq!(
        run.negotiated(),
        json!({"protocolVersion": "2026-07-28", "era": "stateless"})
    );
    assert_eq!(run.result()["tools"].as_array().unwrap().len(), 28);
    let run = inspect_at(
        "tools/call",
        Some(json!({"name": "test_simple_text"})),
        Some(&url),
        "modern",
    )
    .await;
    let result = run.result();
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "This is a simple text response for testing."}])
    );
    let uri = "test://template/5/data";
    let result = inspect_at(
        "resources/read",
        Some(json!({"uri": uri})),
        Some(&url),
        "auto",
    )
    .await
    .result();
    assert_eq!(result["contents"], fixture::read_contents(uri));
    let error = inspect_at(
        "resources/read",
        Some(json!({"uri": "test://nope"})),
        Some(&url),
        "auto",
    )
    .await
    .error();
    // 2026-07-28 says "not found" with -32602 and the URI in data.
    assert_eq!(error["error"]["code"], -32602);
    assert_eq!(error["error"]["data"], json!({"uri": "test://nope"}));
    assert_eq!(
        inspect_at("ping", None, Some(&url), "modern")
            .await
            .result(),
        json!({})
    );
    server.kill().await.unwrap();
}
