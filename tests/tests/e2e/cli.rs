//! `mcp`, the command line (package `mcp-rs-cli`), run as a process: every verb against
//! `everything-server` (stdio and Streamable HTTP, both eras) and against the Python SDK's
//! server (`tests/peers/python_server.py`); `--json` output; exit statuses; progress and log
//! messages on stderr; elicitation and sampling answered on a real terminal (tmux) and
//! refused without one; an OAuth login through the browser flow's loopback redirect (the
//! "browser" is a script following the authorization server's redirects with curl), its
//! token kept in a 0600 file and used by the next run without a login.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use crate::auth_support::{AuthServer, ProtectedServer};
use crate::fixture;
use crate::support::bins::{everything_server, mcp_cli};
use crate::support::client::within;
use crate::support::output_within;
use crate::support::peers::peers;
use crate::support::peers_dir;

/// How long one `mcp` run may take.
const RUN_LIMIT: Duration = Duration::from_secs(30);

/// What one `mcp` run printed, and its exit status.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The stdout of a successful `--json` run, parsed.
    fn json(&self) -> Value {
        assert_eq!(self.code, Some(0), "stderr:\n{}", self.stderr);
        self.parsed()
    }

    /// The stdout, parsed, whatever the status.
    fn parsed(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// The stdout of a successful run.
    fn ok(&self) -> &str {
        assert_eq!(self.code, Some(0), "stderr:\n{}", self.stderr);
        &self.stdout
    }

    /// The `--json` error on the last line of stderr, after checking the status.
    fn error(&self, code: i32) -> Value {
        assert_eq!(
            self.code,
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        let last = self.stderr.lines().last().unwrap_or_default();
        serde_json::from_str(last)
            .unwrap_or_else(|e| panic!("stderr does not end with JSON ({e}):\n{}", self.stderr))
    }
}

/// Runs `mcp ARGS` (stdin closed) with the environment variables `env`.
async fn mcp_env(args: &[&str], env: &[(&str, &Path)]) -> Run {
    let mut cmd = tokio::process::Command::new(mcp_cli());
    cmd.args(args)
        .env("RUST_LOG", "off")
        .env_remove("MCP_CLIENT_ID");
    cmd.env_remove("MCP_CLIENT_SECRET");
    for (key, value) in env {
        cmd.env(key, value);
    }
    let output = output_within(&format!("mcp {}", args.join(" ")), RUN_LIMIT, cmd).await;
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `mcp ARGS`.
async fn mcp(args: &[&str]) -> Run {
    mcp_env(args, &[]).await
}

/// `ARGS -- everything-server EXTRA...`.
fn on_stdio<'a>(args: &[&'a str], server: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.push("--");
    all.push(server);
    all.extend_from_slice(extra);
    all
}

fn es() -> &'static str {
    everything_server().to_str().expect("a UTF-8 path")
}

/// Runs `mcp ARGS -- everything-server`.
async fn everything(args: &[&str]) -> Run {
    mcp(&on_stdio(args, es(), &[])).await
}

/// `everything-server --http 127.0.0.1:0 [EXTRA]`, killed on drop, and its URL.
async fn everything_http(extra: &[&str]) -> (tokio::process::Child, String) {
    let mut server = tokio::process::Command::new(everything_server())
        .args(["--http", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("everything-server --http starts");
    let mut lines = BufReader::new(server.stderr.take().expect("piped stderr")).lines();
    let url = within("everything-server to listen", async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(at) = line.find("http://") {
                return line[at..]
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned();
            }
        }
        panic!("everything-server --http exited without listening");
    })
    .await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (server, url)
}

/// The text of a tool result's only content block.
fn only_text(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "{result}");
    content[0]["text"].as_str().expect("a text block")
}

#[tokio::test]
async fn cli_verbs_against_everything_server_over_stdio_print_the_fixture() {
    // The handshake era's payloads, exactly as the conformance fixture has them.
    let legacy = ["--era", "legacy", "--json"];
    let tools = everything(&[&["tools"][..], &legacy].concat()).await.json();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, fixture::tool_names());
    for tool in [
        "test_simple_text",
        "test_image_content",
        "test_multiple_content_types",
    ] {
        let result = everything(&[&["call", tool][..], &legacy].concat())
            .await
            .json();
        assert_eq!(
            Some(result["content"].clone()),
            fixture::fixed_content(tool),
            "{tool}"
        );
    }
    let resources = everything(&[&["resources"][..], &legacy].concat())
        .await
        .json();
    assert_eq!(
        resources,
        json!({"resources": fixture::resources(), "resourceTemplates": fixture::templates()})
    );
    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://template/7/data",
    ] {
        let read = everything(&[&["read", uri][..], &legacy].concat())
            .await
            .json();
        assert_eq!(read["contents"], fixture::read_contents(uri), "{uri}");
    }
    let prompts = everything(&[&["prompts"][..], &legacy].concat())
        .await
        .json();
    assert_eq!(prompts, json!({"prompts": fixture::prompts()}));
    let got = everything(
        &[
            &["prompt", "test_prompt_with_arguments", "--arg", "arg1=a"][..],
            &["-a", "arg2=b"],
            &legacy,
        ]
        .concat(),
    )
    .await
    .json();
    assert_eq!(
        got["messages"],
        fixture::prompt_messages("test_prompt_with_arguments", "a", "b", "")
    );
    let completed = everything(
        &[
            &[
                "complete",
                "--prompt",
                "test_prompt_with_arguments",
                "arg1",
                "te",
            ][..],
            &legacy,
        ]
        .concat(),
    )
    .await
    .json();
    assert_eq!(completed["completion"], fixture::empty_completion());

    // The same without --json: text for people.
    let text = everything(&["call", "test_simple_text"]).await;
    assert_eq!(text.ok(), "This is a simple text response for testing.\n");
    let listed = everything(&["tools"]).await;
    assert!(
        listed
            .ok()
            .contains("test_sampling  Tests server-initiated sampling")
            && listed
                .ok()
                .contains("    prompt: string, required  The prompt to send"),
        "{}",
        listed.stdout
    );
    let read = everything(&["read", "test://static-text"]).await;
    assert_eq!(
        read.ok(),
        "This is the content of the static text resource.\n"
    );
    // A single binary content goes to a stdout that is not a terminal as its bytes.
    let binary = everything(&["read", "test://static-binary"]).await;
    assert!(
        binary.ok().starts_with("\u{fffd}PNG"),
        "{:?}",
        binary.stdout
    );
    let prompt = everything(&["prompt", "test_simple_prompt"]).await;
    assert_eq!(prompt.ok(), "user: This is a simple prompt for testing.\n");
    let resources = everything(&["resources"]).await;
    assert!(
        resources
            .ok()
            .starts_with("Resources:\n  test://static-text  static-text"),
        "{}",
        resources.stdout
    );
    let prompts = everything(&["prompts"]).await;
    assert!(
        prompts
            .ok()
            .contains("    arg1, required  First test argument"),
        "{}",
        prompts.stdout
    );
}

#[tokio::test]
async fn cli_skills_lists_and_prints_a_verified_skill() {
    let server = on_stdio(&["skills", "--json"], es(), &["--skills"]);
    let listed = mcp(&server).await.json();
    let uris: Vec<&str> = listed["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| s["uri"].as_str().expect("a uri"))
        .collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://git-workflow/SKILL.md",
            "skill://reports/daily/SKILL.md"
        ]
    );
    let uri = "skill://acme/billing/refunds/SKILL.md";
    let one = mcp(&on_stdio(&["skills", uri, "--json"], es(), &["--skills"]))
        .await
        .json();
    assert_eq!(one["verified"], true);
    let expected = std::fs::read_to_string(
        crate::support::workspace_root().join("examples/skills/acme/billing/refunds/SKILL.md"),
    )
    .expect("the fixture's SKILL.md");
    assert_eq!(one["text"], expected);
    let text = mcp(&on_stdio(&["skills", uri], es(), &["--skills"])).await;
    assert!(
        text.ok().starts_with("---\nname: refunds\n"),
        "{}",
        text.stdout
    );
    // A dynamic skill is printed, and said to be unverifiable.
    let daily = mcp(&on_stdio(
        &["skills", "skill://reports/daily/SKILL.md"],
        es(),
        &["--skills"],
    ))
    .await;
    assert!(daily.ok().contains("# Daily report"), "{}", daily.stdout);
    assert!(
        daily.stderr.contains("could not be verified"),
        "{}",
        daily.stderr
    );
    let listed = mcp(&on_stdio(&["skills"], es(), &["--skills"])).await;
    assert!(
        listed
            .ok()
            .contains("    skill://git-workflow/SKILL.md (1 file)\n"),
        "{}",
        listed.stdout
    );
}

#[tokio::test]
async fn cli_negotiates_the_era_or_keeps_to_the_one_asked_for() {
    for (era, version, name) in [
        ("auto", "2026-07-28", "stateless"),
        ("2026-07-28", "2026-07-28", "stateless"),
        ("modern", "2026-07-28", "stateless"),
        ("legacy", "2025-11-25", "stateful"),
        ("2025-06-18", "2025-06-18", "stateful"),
    ] {
        let info = everything(&["info", "--json", "--era", era]).await.json();
        assert_eq!(info["protocolVersion"], version, "--era {era}");
        assert_eq!(info["era"], name, "--era {era}");
        assert_eq!(info["serverInfo"]["name"], "mcp-conformance-test-server");
    }
    let text = everything(&["info"]).await;
    assert!(
        text.ok().contains("protocol: 2026-07-28 (stateless era)\n"),
        "{}",
        text.stdout
    );
}

#[tokio::test]
async fn cli_over_streamable_http_in_both_eras() {
    let (_server, url) = everything_http(&[]).await;
    let at = |args: &[&'static str]| {
        let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        all.extend(["--url".to_owned(), url.clone()]);
        all
    };
    let run = |args: Vec<String>| async move {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mcp(&args).await
    };
    let legacy = run(at(&["tools", "--json", "--era", "legacy"]))
        .await
        .json();
    assert_eq!(legacy["tools"].as_array().map(Vec::len), Some(14));
    let info = run(at(&["info", "--json"])).await.json();
    assert_eq!(info["protocolVersion"], "2026-07-28");
    let result = run(at(&["call", "test_simple_text", "--json"]))
        .await
        .json();
    assert_eq!(
        Some(result["content"].clone()),
        fixture::fixed_content("test_simple_text")
    );
    let read = run(at(&[
        "read",
        "test://template/5/data",
        "--json",
        "--era",
        "legacy",
    ]))
    .await
    .json();
    assert_eq!(
        read["contents"],
        fixture::read_contents("test://template/5/data")
    );
    let read = run(at(&["read", "test://template/5/data"])).await;
    assert_eq!(
        read.ok(),
        "{\"id\":\"5\",\"templateTest\":true,\"data\":\"Data for ID: 5\"}\n"
    );
    let prompt = run(at(&[
        "prompt",
        "test_prompt_with_arguments",
        "-a",
        "arg1=x",
        "-a",
        "arg2=y",
    ]))
    .await;
    assert_eq!(
        prompt.ok(),
        "user: Prompt with arguments: arg1='x', arg2='y'\n"
    );
    // 2026-07-28 says "not found" with -32602 and the URI in data.
    let error = run(at(&["read", "test://nope", "--json"])).await.error(3);
    assert_eq!(error["error"]["code"], -32602);
    assert_eq!(error["error"]["data"], json!({"uri": "test://nope"}));
    assert_eq!(error["error"]["kind"], "protocol");
}

#[tokio::test]
async fn cli_exit_statuses_tell_what_went_wrong() {
    // 1: the tool reported an error; its result is still printed.
    let failed = everything(&["call", "test_error_handling", "--json"]).await;
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert_eq!(failed.parsed()["isError"], true);
    let failed = everything(&["call", "test_error_handling"]).await;
    assert_eq!(failed.code, Some(1));
    assert_eq!(
        failed.stdout,
        "This tool intentionally returns an error for testing\n"
    );
    assert!(
        failed
            .stderr
            .contains("the tool test_error_handling reported an error"),
        "{}",
        failed.stderr
    );

    // 2: the command line is wrong (clap's usage errors, and ours).
    for args in [
        &["tools"][..],
        &["tools", "--url", "http://127.0.0.1:9/mcp", "--", "true"],
        &["tools", "--era", "sideways", "--", "true"],
        &["tools", "--timeout", "-3", "--", "true"],
        &["call", "x", "--arg", "novalue", "--", "true"],
        &["nope", "--", "true"],
        &["tools", "--url", "ftp://example.com/mcp"],
    ] {
        let run = mcp(args).await;
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
    }
    let bad_json = everything(&["call", "test_simple_text", "--args", "{not json", "--json"]).await;
    let error = bad_json.error(2);
    assert_eq!(error["error"]["kind"], "usage");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("not valid JSON"),
        "{error}"
    );

    // 3: the server answered with an error.
    let error = everything(&["read", "test://nope", "--era", "legacy", "--json"])
        .await
        .error(3);
    assert_eq!(
        error["error"]["code"], -32002,
        "the handshake era's resource-not-found: {error}"
    );
    assert_eq!(error["error"]["serverMessage"], "Resource not found");
    assert_eq!(error["error"]["data"], json!({"uri": "test://nope"}));
    let unknown = everything(&["call", "no_such_tool"]).await;
    assert_eq!(unknown.code, Some(3), "{}", unknown.stderr);
    assert!(
        unknown
            .stderr
            .starts_with("mcp: error: tools/call no_such_tool: "),
        "{}",
        unknown.stderr
    );

    // 4: the server cannot be started or reached.
    let missing = mcp(&["tools", "--", "/nonexistent/server"]).await;
    assert_eq!(missing.code, Some(4));
    assert!(
        missing
            .stderr
            .contains("cannot start `/nonexistent/server`"),
        "{}",
        missing.stderr
    );
    let refused = mcp(&["tools", "--json", "--url", "http://127.0.0.1:9/mcp"])
        .await
        .error(4);
    assert_eq!(refused["error"]["kind"], "connection");
    // A program that is not an MCP server: its last words are shown.
    let script = "echo 'this is not MCP' >&2; exit 7";
    let not_mcp = mcp(&["tools", "--era", "legacy", "--", "sh", "-c", script]).await;
    assert_eq!(not_mcp.code, Some(4), "{}", not_mcp.stderr);
    assert!(
        not_mcp.stderr.contains("this is not MCP"),
        "{}",
        not_mcp.stderr
    );
}

#[tokio::test]
async fn cli_shows_progress_and_the_servers_log_messages_on_stderr() {
    let run = everything(&["call", "test_tool_with_progress"]).await;
    // The tool answers with the progress token the client sent.
    assert!(!run.ok().trim().is_empty());
    for step in ["progress: 0/100", "progress: 50/100", "progress: 100/100"] {
        assert!(run.stderr.contains(step), "{step}: {}", run.stderr);
    }
    let run = everything(&["call", "test_tool_with_logging", "--era", "legacy"]).await;
    assert_eq!(run.ok(), "Tool with logging executed successfully\n");
    for message in fixture::LOG_MESSAGES {
        assert!(
            run.stderr.contains(&format!("[server info] {message}")),
            "{}",
            run.stderr
        );
    }
    // --quiet shows neither.
    let quiet = everything(&["call", "test_tool_with_progress", "--quiet"]).await;
    assert_eq!(quiet.code, Some(0));
    assert!(!quiet.stderr.contains("progress:"), "{}", quiet.stderr);
}

#[tokio::test]
async fn cli_refuses_elicitation_and_sampling_without_a_terminal() {
    for era in ["legacy", "2026-07-28"] {
        let run = everything(&[
            "call",
            "test_elicitation",
            "--arg",
            "message=Your name?",
            "--era",
            era,
        ])
        .await;
        assert_eq!(
            run.ok(),
            "User response: action=cancel, content={}\n",
            "{era}"
        );
        assert!(
            run.stderr.contains(
                "the server asked for input (\"Your name?\"), but stdin is not a terminal"
            ),
            "{era}: {}",
            run.stderr
        );
    }
    // Sampling has no "cancel": the request is refused with an error, which the handshake
    // era's server reports in its result and which fails a 2026-07-28 call.
    let legacy = everything(&[
        "call",
        "test_sampling",
        "--arg",
        "prompt=2+2?",
        "--era",
        "legacy",
    ])
    .await;
    assert!(
        legacy.ok().starts_with("Sampling not supported or error:"),
        "{}",
        legacy.stdout
    );
    assert!(
        legacy.stderr.contains("stdin is not a terminal"),
        "{}",
        legacy.stderr
    );
    let modern = everything(&["call", "test_sampling", "--arg", "prompt=2+2?", "--json"]).await;
    let error = modern.error(3);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("stdin is not a terminal"),
        "{error}"
    );
}

/// A tmux server of its own (its own socket), killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(name: &str) -> Tmux {
        let found = std::process::Command::new("tmux").arg("-V").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "tmux is not installed: the terminal tests need it (Debian package `tmux`; \
             `cargo xtask setup` installs it)"
        );
        Tmux {
            socket: format!("mcp-e2e-{name}-{}", std::process::id()),
        }
    }

    fn tmux(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Runs `script` (a shell script file) in a new 200x50 window.
    fn start(&self, script: &Path) {
        let out = self.tmux(&[
            "new-session",
            "-d",
            "-s",
            "cli",
            "-x",
            "200",
            "-y",
            "50",
            "sh",
            script.to_str().expect("a UTF-8 path"),
        ]);
        assert!(
            out.status.success(),
            "tmux: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The screen.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "cli"]).stdout)
            .into_owned()
    }

    /// Waits until the screen shows `text` `count` times.
    async fn wait_for(&self, text: &str, count: usize) {
        let deadline = tokio::time::Instant::now() + RUN_LIMIT;
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= count {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the terminal never showed {text:?} {count} times:\n{screen}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Types `keys` and Enter.
    fn type_line(&self, keys: &str) {
        if !keys.is_empty() {
            let out = self.tmux(&["send-keys", "-t", "cli", "-l", keys]);
            assert!(out.status.success());
        }
        let out = self.tmux(&["send-keys", "-t", "cli", "Enter"]);
        assert!(out.status.success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// A script running `mcp ARGS` on the terminal, its stdout to `<dir>/out` and its status
/// to `<dir>/status`.
fn terminal_script(dir: &Path, args: &[&str]) -> PathBuf {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = quote(mcp_cli().to_str().expect("a UTF-8 path"));
    for arg in args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    let out = quote(dir.join("out").to_str().expect("a UTF-8 path"));
    let status = quote(dir.join("status").to_str().expect("a UTF-8 path"));
    let script = dir.join("run.sh");
    std::fs::write(
        &script,
        format!(
            "RUST_LOG=off {line} > {out}\necho $? > {status}.tmp && mv {status}.tmp {status}\n"
        ),
    )
    .expect("the script is written");
    script
}

/// Waits for the script of [`terminal_script`] to finish; its stdout and status.
async fn finished(dir: &Path, tmux: &Tmux) -> (String, i32) {
    let deadline = tokio::time::Instant::now() + RUN_LIMIT;
    loop {
        if let Ok(status) = std::fs::read_to_string(dir.join("status")) {
            let out = std::fs::read_to_string(dir.join("out")).unwrap_or_default();
            return (out, status.trim().parse().expect("a status"));
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "mcp did not finish; the terminal shows:\n{}",
            tmux.screen()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn cli_answers_elicitation_and_sampling_on_a_terminal() {
    let tmux = Tmux::new("elicit");
    // A free-text field (2026-07-28: the question comes in an input-required result).
    let dir = tempfile::tempdir().expect("a temporary directory");
    let args = on_stdio(
        &[
            "call",
            "test_elicitation",
            "--arg",
            "message=What is your name?",
        ],
        es(),
        &[],
    );
    tmux.start(&terminal_script(dir.path(), &args));
    tmux.wait_for("The server asks: What is your name?", 1)
        .await;
    tmux.wait_for("response (text, required): User's response", 1)
        .await;
    tmux.type_line("");
    tmux.wait_for("! this field is required", 1).await;
    tmux.type_line("Ada Lovelace");
    let (out, status) = finished(dir.path(), &tmux).await;
    assert_eq!(status, 0, "{}", tmux.screen());
    assert_eq!(
        out,
        "User response: action=accept, content={\"response\":\"Ada Lovelace\"}\n"
    );
    drop(tmux);

    // Every kind of field, with defaults (the handshake era: a server request mid-call).
    let tmux = Tmux::new("form");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let args = on_stdio(
        &[
            "call",
            "test_elicitation_sep1034_defaults",
            "--era",
            "legacy",
        ],
        es(),
        &[],
    );
    tmux.start(&terminal_script(dir.path(), &args));
    tmux.wait_for("age (integer, optional, default 30): User age", 1)
        .await;
    tmux.type_line("41.5");
    tmux.wait_for("! `41.5` is not an integer", 1).await;
    tmux.type_line("41");
    tmux.wait_for("name (text, optional, default John Doe)", 1)
        .await;
    tmux.type_line("");
    tmux.wait_for("score (number, optional, default 95.5)", 1)
        .await;
    tmux.type_line("");
    tmux.wait_for("  3) pending", 1).await;
    tmux.type_line("3");
    tmux.wait_for("verified (y/n, optional, default true)", 1)
        .await;
    tmux.type_line("n");
    let (out, status) = finished(dir.path(), &tmux).await;
    assert_eq!(status, 0, "{}", tmux.screen());
    let content = out
        .trim()
        .strip_prefix("Elicitation completed: action=accept, content=")
        .unwrap_or_else(|| panic!("{out}"));
    let content: Value = serde_json::from_str(content).expect("JSON content");
    assert!(
        fixture::same_json(
            &content,
            &json!({"age": 41, "name": "John Doe", "score": 95.5, "status": "pending", "verified": false})
        ),
        "{content}"
    );
    drop(tmux);

    // Declining.
    let tmux = Tmux::new("decline");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let args = on_stdio(&["call", "test_elicitation_sep1330_enums"], es(), &[]);
    tmux.start(&terminal_script(dir.path(), &args));
    tmux.wait_for("Please select options from the enum fields", 1)
        .await;
    tmux.type_line("/decline");
    let (out, _) = finished(dir.path(), &tmux).await;
    assert_eq!(out, "Elicitation completed: action=decline, content={}\n");
    drop(tmux);

    // Sampling: the user types the LLM's reply.
    let tmux = Tmux::new("sample");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let args = on_stdio(
        &["call", "test_sampling", "--arg", "prompt=What is 2+2?"],
        es(),
        &[],
    );
    tmux.start(&terminal_script(dir.path(), &args));
    tmux.wait_for("user: What is 2+2?", 1).await;
    tmux.type_line("4, of course");
    let (out, status) = finished(dir.path(), &tmux).await;
    assert_eq!(status, 0, "{}", tmux.screen());
    assert_eq!(out, "LLM response: 4, of course\n");
}

/// `MCP_PEER ARGS -- python python_server.py`.
async fn python(args: &[&str]) -> Run {
    let peers = peers();
    let script = peers_dir().join("python_server.py");
    let mut all = args.to_vec();
    all.push("--");
    all.push(peers.python.to_str().expect("a UTF-8 path"));
    all.push(script.to_str().expect("a UTF-8 path"));
    mcp(&all).await
}

#[tokio::test]
async fn cli_verbs_against_the_python_sdk_server_in_both_eras() {
    for (era, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let info = python(&["info", "--json", "--era", era]).await.json();
        assert_eq!(info["protocolVersion"], version);
        assert_eq!(info["serverInfo"]["name"], "python-interop-server");

        let tools = python(&["tools", "--json", "--era", era]).await.json();
        let mut names: Vec<&str> = tools["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().expect("a name"))
            .collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["add", "ask_model", "ask_user", "echo", "fail", "slow"],
            "{era}"
        );

        // `a` and `b` are numbers by the tool's schema: typed, not strings.
        let add = python(&[
            "call", "add", "-a", "a=2", "-a", "b=3", "--json", "--era", era,
        ])
        .await
        .json();
        assert_eq!(only_text(&add), "5", "{era}");
        assert_eq!(add["structuredContent"], json!({"sum": 5}), "{era}");
        let add = python(&[
            "call",
            "add",
            "--args",
            r#"{"a": 1.5}"#,
            "-a",
            "b=1",
            "--era",
            era,
        ])
        .await;
        assert_eq!(add.ok(), "2.5\n");
        let typo = python(&["call", "add", "-a", "a=two", "-a", "b=3", "--era", era]).await;
        assert_eq!(typo.code, Some(2), "{}", typo.stderr);
        assert!(
            typo.stderr.contains("--arg a=two: the tool takes a number"),
            "{}",
            typo.stderr
        );
        // A string argument stays a string, even when it would parse as JSON.
        let echo = python(&["call", "echo", "-a", "message=42", "--era", era]).await;
        assert_eq!(echo.ok(), "Echo: 42\n");
        let fail = python(&["call", "fail", "--era", era]).await;
        assert_eq!(fail.code, Some(1));
        assert_eq!(fail.stdout, "This tool always fails\n");
        let slow = python(&["call", "slow", "--era", era]).await;
        assert_eq!(slow.ok(), "slow done\n");
        assert!(
            slow.stderr.contains("progress: 3/3 step 3 of 3"),
            "{era}: {}",
            slow.stderr
        );

        let resources = python(&["resources", "--json", "--era", era]).await.json();
        assert_eq!(resources["resources"][0]["uri"], "test://hello");
        assert_eq!(
            resources["resourceTemplates"][0]["uriTemplate"],
            "test://items/{id}"
        );
        let hello = python(&["read", "test://hello", "--era", era]).await;
        assert_eq!(hello.ok(), "Hello from Python\n");
        let item = python(&["read", "test://items/42", "--era", era]).await;
        assert_eq!(item.ok(), "{\"id\":\"42\",\"name\":\"Item 42\"}\n");

        let prompts = python(&["prompts", "--era", era]).await;
        assert!(
            prompts
                .ok()
                .starts_with("greet (Greet)  Greets someone by name\n    name, required"),
            "{}",
            prompts.stdout
        );
        let greet = python(&["prompt", "greet", "-a", "name=Ada", "--era", era]).await;
        assert_eq!(greet.ok(), "user: Hello, Ada!\n");
        let names = python(&["complete", "--prompt", "greet", "name", "A", "--era", era]).await;
        assert_eq!(names.ok(), "Alice\n");
        let ids = python(&[
            "complete",
            "--template",
            "test://items/{id}",
            "id",
            "4",
            "--json",
            "--era",
            era,
        ])
        .await
        .json();
        assert_eq!(ids["completion"]["values"], json!(["42"]));

        // No terminal: the elicitation is cancelled, and the server says so.
        let ask = python(&["call", "ask_user", "--era", era]).await;
        assert_eq!(ask.ok(), "elicitation cancel\n", "{era}");
        assert!(
            ask.stderr.contains("stdin is not a terminal"),
            "{}",
            ask.stderr
        );
    }
}

/// A "browser" for the OAuth login: a script that appends the URL it is given to `log`
/// and follows the authorization server's redirects (its headless login) with curl, back
/// to `mcp`'s loopback redirect URI.
fn browser_script(dir: &Path, log: &Path) -> PathBuf {
    let script = dir.join("browser.sh");
    let jar = dir.join("cookies.txt");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\nexec curl -s -L -c '{jar}' -b '{jar}' -o /dev/null \"$1\"\n",
            log.display(),
            jar = jar.display()
        ),
    )
    .expect("the script is written");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

/// How many times the browser script ran.
fn logins(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count())
}

#[tokio::test]
async fn cli_logs_in_keeps_the_token_and_calls_again_without_a_login() {
    let curl = std::process::Command::new("curl").arg("--version").output();
    assert!(
        curl.is_ok_and(|o| o.status.success()),
        "curl is needed (Debian package `curl`)"
    );
    let auth = AuthServer::start().await;
    let server = ProtectedServer::start(&auth.issuer, None).await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = dir.path().join("config");
    let log = dir.path().join("browser.log");
    let browser = browser_script(dir.path(), &log);
    let env = [
        ("MCP_CLI_CONFIG_DIR", config.as_path()),
        ("MCP_CLI_BROWSER", browser.as_path()),
    ];
    let call = ["call", "whoami", "--json", "--url", &server.url];

    // The first call: 401, discovery, registration, the browser to the loopback redirect.
    let first = mcp_env(&call, &env).await.json();
    let me: Value = serde_json::from_str(only_text(&first)).expect("whoami is JSON");
    assert_eq!(me["subject"], "test-user", "{me}");
    assert_eq!(logins(&log), 1);
    let first_login = std::fs::read_to_string(&log).expect("the browser's log");
    assert!(
        first_login.starts_with(&format!("{}/auth?", auth.issuer)),
        "{first_login}"
    );
    assert!(
        first_login.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"),
        "{first_login}"
    );

    // The token is kept in a file only its owner can read, in a directory only its owner
    // can enter.
    let auth_dir = config.join("auth");
    let files: Vec<PathBuf> = std::fs::read_dir(&auth_dir)
        .expect("the login directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode(&files[0]), 0o600);
    assert_eq!(mode(&auth_dir), 0o700);
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).expect("the file")).expect("JSON");
    assert_eq!(kept["serverUrl"], server.url);
    assert_eq!(kept["tokens"][0]["issuer"], auth.issuer);
    assert!(
        kept["tokens"][0]["accessToken"]
            .as_str()
            .is_some_and(|t| !t.is_empty())
    );
    assert!(kept["clients"][0]["clientId"].is_string(), "{kept}");

    // The next run uses the kept token: no browser.
    let second = mcp_env(&call, &env).await.json();
    let again: Value = serde_json::from_str(only_text(&second)).expect("whoami is JSON");
    assert_eq!(again["token_id"], me["token_id"], "the same token");
    assert_eq!(logins(&log), 1, "the browser was not run again");
    // In the handshake era too.
    let legacy = [&call[..], &["--era", "legacy"]].concat();
    mcp_env(&legacy, &env).await.json();
    assert_eq!(logins(&log), 1);

    // `mcp logout URL` forgets it: --no-login then fails, and a login runs the browser.
    let out = mcp_env(&["logout", &server.url], &env).await;
    assert_eq!(out.code, Some(0));
    assert!(
        out.stderr
            .contains(&format!("logged out of {}", server.url)),
        "{}",
        out.stderr
    );
    assert!(
        std::fs::read_dir(&auth_dir)
            .expect("the directory")
            .next()
            .is_none()
    );
    let refused = mcp_env(&[&call[..], &["--no-login"]].concat(), &env)
        .await
        .error(4);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("--no-login"),
        "{refused}"
    );
    assert_eq!(logins(&log), 1);
    mcp_env(&call, &env).await.json();
    assert_eq!(logins(&log), 2);
    let out = mcp_env(&["logout"], &env).await;
    assert!(
        out.stderr
            .contains(&format!("logged out of {}", server.url)),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn cli_has_help_on_every_command_and_completions() {
    let help = mcp(&["--help"]).await;
    assert!(help.ok().contains("Exit status:"), "{}", help.stdout);
    for verb in [
        "tools",
        "call",
        "resources",
        "read",
        "prompts",
        "prompt",
        "complete",
        "skills",
        "info",
        "logout",
        "completions",
        "proxy",
    ] {
        let help = mcp(&[verb, "--help"]).await;
        assert!(
            help.ok().starts_with(char::is_uppercase),
            "{verb}: {}",
            help.stdout
        );
        assert!(help.ok().contains("Usage: mcp "), "{verb}: {}", help.stdout);
    }
    let call = mcp(&["call", "--help"]).await;
    for text in [
        "--arg <KEY=VALUE>",
        "--args <JSON>",
        "--url <URL>",
        "[CMD ARGS]...",
        "--era",
        "Exit status:",
        "  3    the server answered",
    ] {
        assert!(call.ok().contains(text), "{text}: {}", call.stdout);
    }
    for shell in ["bash", "zsh", "fish"] {
        let script = mcp(&["completions", shell]).await;
        assert!(script.ok().contains("mcp"), "{shell}");
        assert!(script.ok().contains("resources"), "{shell}");
    }
    let version = mcp(&["--version"]).await;
    assert!(version.ok().starts_with("mcp "), "{}", version.stdout);
}
