//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) in a real browser: headless Chromium,
//! driven through WebDriver, loads a web host built on the TypeScript SDK v2 client and the
//! MCP Apps SDK's `AppBridge` (`tests/browser/host.mjs`, bundled here with the pinned
//! esbuild), which connects to the `apps-server` example (a notepad) over Streamable HTTP,
//! lists the model's tools apart from the app-only one, reads the view of `list_notes`
//! (checking its MIME type), calls `list_notes` as a model would and renders the view through
//! a sandbox proxy on another origin (`tests/browser/sandbox.html`), handing it the result.
//! The view (the HTML our server serves, with the MCP Apps SDK's app library) shows the notes,
//! refreshes them with the app-only `refresh_notes` through the host, and, when the test fills
//! its form, saves a note with `add_note` through the host and shows the saved message and the
//! new list. The host lets those calls through because their visibility includes "app", and
//! refuses a call the view posts for a tool the server does not offer it. The test asserts on the DOM inside the view's iframe and keeps a screenshot per era under
//! `<target>/apps-browser/`. Both eras: the TypeScript client pinned to the handshake
//! (2025-11-25) and to 2026-07-28. Our own client (`mcp-client`, feature `apps`) first checks
//! the server as a host and seeds a note, and at the end reads back what the view saved.
//!
//! Our Streamable HTTP server answers no CORS preflight, so a page can reach it only from its
//! own origin: the test's host server serves the page and forwards `/mcp` to the server as it
//! came (the browser's `Origin` included, which the server checks against its allow-list).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use mcp_client::Client;
use mcp_types::{McpUiToolVisibility, UI_MIME_TYPE};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::http_support::{HttpServer, close, connect};
use crate::support::bins::{apps_server, target_dir};
use crate::support::browser::{ChromeDriver, Session};
use crate::support::peers::peers;
use crate::support::workspace_root;

/// The eras the host's TypeScript client is pinned to, with the revision each negotiates.
const ERAS: &[(&str, &str)] = &[("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")];

/// The tool whose view the host shows (called with no arguments).
const TOOL: &str = "list_notes";
/// The note our client saves before the browser starts.
const SEEDED: (&str, &str) = ("Seeded", "by the Rust host");

/// How long the browser may take to show a state (Chromium's start on a busy 2-core machine
/// included).
const PATIENCE: Duration = Duration::from_secs(60);

/// `<target>/apps-browser/`: the bundle, the screenshots, chromedriver's log.
fn out_dir() -> PathBuf {
    let dir = target_dir().join("apps-browser");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    dir
}

/// Bundles `tests/browser/host.mjs` with its npm imports into `<out>/host.js` (esbuild,
/// pinned in `xtask/peers/package.json`, run on the pinned Node).
fn bundle_host(out: &Path) -> PathBuf {
    let peers = peers();
    let esbuild = peers
        .node_modules
        .join("esbuild")
        .join("bin")
        .join("esbuild");
    assert!(
        esbuild.is_file()
            && peers
                .node_modules
                .join("@modelcontextprotocol/ext-apps")
                .is_dir(),
        "the browser test needs esbuild and @modelcontextprotocol/ext-apps in {} (pinned in \
         xtask/peers/package.json); run `cargo xtask setup`",
        peers.node_modules.display()
    );
    let bundle = out.join("host.js");
    let output = std::process::Command::new(&peers.node)
        .arg(&esbuild)
        .arg(workspace_root().join("tests/browser/host.mjs"))
        .args([
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--target=chrome120",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", bundle.display()))
        // Bare imports resolve in the pinned packages.
        .env("NODE_PATH", &peers.node_modules)
        .output()
        .unwrap_or_else(|e| panic!("running esbuild: {e}"));
    assert!(
        output.status.success() && bundle.is_file(),
        "esbuild failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    bundle
}

/// Where the host page forwards `/mcp`.
#[derive(Clone)]
struct Upstream {
    url: String,
    http: reqwest::Client,
}

/// Headers of one hop only, never forwarded (RFC 9110, 7.6.1), and the length, which the
/// streamed answer does not keep.
fn hop_by_hop(name: &HeaderName) -> bool {
    [
        header::CONNECTION,
        header::HOST,
        header::CONTENT_LENGTH,
        header::TRANSFER_ENCODING,
        header::TE,
        header::TRAILER,
        header::UPGRADE,
        header::PROXY_AUTHORIZATION,
    ]
    .contains(name)
        || name.as_str() == "keep-alive"
        || name.as_str() == "proxy-connection"
}

fn forwarded(headers: &HeaderMap) -> HeaderMap {
    headers
        .iter()
        .filter(|(name, _)| !hop_by_hop(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// `/mcp`: the request to the server as it came, its answer streamed back (SSE included).
async fn forward(State(upstream): State<Upstream>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, 16 << 20).await {
        Ok(body) => body,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    };
    let sent = upstream
        .http
        .request(parts.method, &upstream.url)
        .headers(forwarded(&parts.headers))
        .body(body)
        .send()
        .await;
    match sent {
        Ok(answer) => {
            let mut response = Response::builder().status(answer.status());
            if let Some(headers) = response.headers_mut() {
                headers.extend(forwarded(answer.headers()));
            }
            response
                .body(Body::from_stream(answer.bytes_stream()))
                .unwrap_or_else(|e| (StatusCode::BAD_GATEWAY, e.to_string()).into_response())
        }
        Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    }
}

/// Serves `router` on 127.0.0.1 (a free port) until the test ends; its `http://` origin.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binding 127.0.0.1:0");
    let origin = format!("http://{}", listener.local_addr().expect("local address"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    origin
}

/// The host page's origin (the page, its bundle, `/mcp` forwarded to `mcp_url`) and the
/// sandbox proxy's, another origin (a port of its own), as the extension requires of a web
/// host.
async fn sites(mcp_url: String, bundle: &Path) -> (String, String) {
    let page = read(&workspace_root().join("tests/browser/host.html"));
    let script = read(bundle);
    let sandbox = read(&workspace_root().join("tests/browser/sandbox.html"));
    let html = |body: String| ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body);
    let upstream = Upstream {
        url: mcp_url,
        http: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("an HTTP client"),
    };
    let host = Router::new()
        .route("/", get(move || async move { html(page) }))
        .route(
            "/host.js",
            get(move || async move {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    script,
                )
            }),
        )
        .route("/mcp", any(forward))
        .with_state(upstream);
    let proxy = Router::new().route("/sandbox.html", get(move || async move { html(sandbox) }));
    (serve(host).await, serve(proxy).await)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The host page's report (`window.hostReport`), once its state is `ready` or `error`.
async fn host_report(session: &Session, era: &str) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let report = session
            .execute("return window.hostReport ? JSON.stringify(window.hostReport) : null;")
            .await;
        let report: Value = report
            .as_str()
            .map(|text| serde_json::from_str(text).expect("the report is JSON"))
            .unwrap_or(Value::Null);
        if matches!(report["state"].as_str(), Some("ready" | "error")) {
            return report;
        }
        assert!(
            Instant::now() < deadline,
            "{era}: the host did not get ready within {PATIENCE:?}; it says {report}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until `selector` in the current frame has a text for which `done` holds; the text.
async fn text_when(
    session: &Session,
    selector: &str,
    done: impl Fn(&str) -> bool,
    what: &str,
) -> String {
    let deadline = Instant::now() + PATIENCE;
    let element = session.wait_for(selector, PATIENCE).await;
    loop {
        let text = session.text(&element).await;
        if done(&text) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: {selector} still shows {text:?} after {PATIENCE:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_renders_in_chromium_and_calls_a_tool_through_the_host() {
    let out = out_dir();
    let bundle = bundle_host(&out);
    let mut command = Command::new(apps_server());
    command
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "warn");
    let server = HttpServer::announced("apps-server", command).await;
    rust_host_seeds_a_note(&server.mcp_url()).await;
    let (host, sandbox) = sites(server.mcp_url(), &bundle).await;
    let driver = ChromeDriver::start(&out.join("chromedriver.log")).await;

    let mut added = Vec::new();
    for &(era, version) in ERAS {
        let profile = tempfile::tempdir().expect("a profile directory");
        let session = driver.session(profile.path()).await;
        let page = url::Url::parse_with_params(
            &format!("{host}/"),
            [
                ("server", format!("{host}/mcp")),
                ("era", era.to_owned()),
                ("tool", TOOL.to_owned()),
                ("args", "{}".to_owned()),
                ("sandbox", format!("{sandbox}/sandbox.html")),
            ],
        )
        .expect("the page URL");
        session.goto(page.as_str()).await;

        let report = host_report(&session, era).await;
        assert_eq!(
            report["errors"],
            json!([]),
            "{era}: {report}\nserver:\n{}",
            server.stderr()
        );
        assert_eq!(report["protocolVersion"], version, "{era}");
        check_host(era, &report);

        // Into the sandbox proxy's frame, then the view's.
        let proxy = session.wait_for("#app iframe", PATIENCE).await;
        session.enter_frame(&proxy).await;
        let view = session.wait_for("#view", PATIENCE).await;
        session.enter_frame(&view).await;
        check_sandbox(era, &session, &host).await;
        added.push(check_view(era, &session).await);
        check_refusal(era, &session).await;
        session.leave_frames().await;

        let report = host_report(&session, era).await;
        check_app_calls(era, &report);

        let png = session.screenshot().await;
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{era}: not a PNG");
        let path = out.join(format!("apps-{}.png", era.replace('-', "")));
        std::fs::write(&path, png).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        // The artifact's path, in the test's output (shown with `--nocapture`, and on failure).
        #[allow(clippy::print_stdout)]
        {
            println!("screenshot ({era}): {}", path.display());
        }
        session.end().await;
    }

    // What the views saved is on the server.
    let (client, connection) = connect(&server.mcp_url(), Client::builder()).await;
    let listed = client.call_tool("list_notes").await.expect("list_notes");
    let notes = notes_of(&serde_json::to_value(listed).expect("a result"));
    let mut expected = vec![format!("{} {}", SEEDED.0, SEEDED.1)];
    expected.extend(added);
    assert_eq!(notes, expected);
    close(client, connection).await;
}

/// The text of each note of a `list_notes` or `refresh_notes` result.
fn notes_of(result: &Value) -> Vec<String> {
    result["structuredContent"]["notes"]
        .as_array()
        .map(|notes| {
            notes
                .iter()
                .map(|n| {
                    format!(
                        "{} {}",
                        n["title"].as_str().unwrap_or("?"),
                        n["text"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Our client as a host of the notepad: the model's tools and the view's, the view read and
/// checked, a note saved as the model would and the list refreshed as the view would.
async fn rust_host_seeds_a_note(mcp_url: &str) {
    let (client, connection) = connect(mcp_url, Client::builder().apps(true)).await;
    let tools = client.list_app_tools().await.expect("tools/list");
    let names = |tools: Vec<&mcp_types::Tool>| -> Vec<String> {
        tools.into_iter().map(|t| t.name.clone()).collect()
    };
    assert_eq!(
        names(tools.for_model().collect()),
        ["add_note", "list_notes"]
    );
    assert_eq!(
        names(tools.for_app().collect()),
        ["add_note", "list_notes", "refresh_notes"]
    );
    let refresh = tools
        .ui("refresh_notes")
        .expect("refresh_notes has a _meta.ui");
    assert!(!refresh.visible_to(&McpUiToolVisibility::Model));
    assert_eq!(tools.view_uri(TOOL), Some("ui://notes/app"));
    let view = client
        .tool_ui_resource(tools.get(TOOL).expect("list_notes"))
        .await
        .expect("reading the view")
        .expect("list_notes has a view");
    assert!(
        view.html.contains("<title>Notes</title>"),
        "{}",
        &view.html[..200.min(view.html.len())]
    );
    assert_eq!(view.meta.prefers_border, Some(true));

    let (title, text) = SEEDED;
    let saved = client
        .call_tool(("add_note", json!({"title": title, "text": text})))
        .await
        .expect("add_note");
    assert_eq!(saved.content[0].as_text(), Some("Saved note \"Seeded\""));
    let listed = client
        .call_tool_for_app(&tools, "refresh_notes")
        .await
        .expect("refresh_notes, as the view would");
    let listed = serde_json::to_value(listed).expect("a result");
    assert_eq!(notes_of(&listed), ["Seeded by the Rust host"]);
    close(client, connection).await;
}

/// What the host page saw of the server: the model's tools, the app-only one, the view's
/// type and meta, and the seeded note in the result it handed the view.
fn check_host(era: &str, report: &Value) {
    assert_eq!(
        report["modelTools"],
        json!(["add_note", "list_notes"]),
        "{era}"
    );
    assert_eq!(report["appOnlyTools"], json!(["refresh_notes"]), "{era}");
    assert_eq!(report["resource"]["uri"], "ui://notes/app", "{era}");
    assert_eq!(report["resource"]["mimeType"], UI_MIME_TYPE, "{era}");
    assert_eq!(report["resource"]["meta"]["prefersBorder"], true, "{era}");
    let notes = notes_of(&report["toolResult"]);
    assert!(
        notes.iter().any(|n| n == "Seeded by the Rust host"),
        "{era}: the host's list_notes result: {}",
        report["toolResult"]
    );
}

/// The view's frame is sandboxed as the extension requires: an opaque origin (no
/// `allow-same-origin`), under the restrictive content security policy (the view declares no
/// domains), which keeps it from reaching even the host's origin.
async fn check_sandbox(era: &str, session: &Session, host: &str) {
    let seen = session
        .execute(
            "const csp = document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]');\
             return [window.origin, csp ? csp.content : null];",
        )
        .await;
    assert_eq!(seen[0], "null", "{era}: the view's origin");
    let policy = seen[1].as_str().unwrap_or_default();
    for directive in [
        "default-src 'none'",
        "connect-src 'none'",
        "frame-src 'none'",
        "object-src 'none'",
    ] {
        assert!(
            policy.contains(directive),
            "{era}: the view's policy {policy:?} lacks {directive}"
        );
    }
    let script = format!(
        "const done = arguments[arguments.length - 1];\
         fetch({:?}, {{mode: 'no-cors'}}).then(() => done('reached'), () => done('blocked'));",
        format!("{host}/")
    );
    assert_eq!(
        session.execute_async(&script).await,
        "blocked",
        "{era}: a fetch from the view"
    );
}

/// The view, in its iframe: the notes shown, then a note added through its form.
async fn check_view(era: &str, session: &Session) -> String {
    let seeded = format!("{} {}", SEEDED.0, SEEDED.1);
    text_when(
        session,
        "#notes",
        |t| t.contains(&seeded),
        &format!("{era}: the notes"),
    )
    .await;

    let title = format!("Chromium {era}");
    let title_input = session.wait_for("input[name=title]", PATIENCE).await;
    session.type_into(&title_input, &title).await;
    let text_input = session.wait_for("input[name=text]", PATIENCE).await;
    session.type_into(&text_input, "added from the view").await;
    let add = session.wait_for("button[type=submit]", PATIENCE).await;
    session.click(&add).await;

    let saved = format!("Saved note \"{title}\"");
    text_when(
        session,
        "#status",
        |t| t == saved,
        &format!("{era}: the saved message"),
    )
    .await;
    let added = format!("{title} added from the view");
    let notes = text_when(
        session,
        "#notes",
        |t| t.contains(&added),
        &format!("{era}: the new list"),
    )
    .await;
    assert!(notes.contains(&seeded), "{era}: {notes:?}");
    added
}

/// A tool the server does not offer the view: what the view asks for it, raw, in its frame.
const NOT_FOR_APPS: &str = "drop_notes";

/// The view asks the host for a tool call the host must refuse (the server offers no such
/// tool to it): a raw `tools/call` posted to its parent, answered with an error.
async fn check_refusal(era: &str, session: &Session) {
    let script = format!(
        "const done = arguments[arguments.length - 1];\
         const id = 'webdriver-probe';\
         addEventListener('message', (e) => {{ if (e.data && e.data.id === id) done(e.data); }});\
         parent.postMessage({{jsonrpc: '2.0', id, method: 'tools/call',\
                             params: {{name: '{NOT_FOR_APPS}', arguments: {{}}}}}}, '*');"
    );
    let answer = session.execute_async(&script).await;
    assert!(answer.get("result").is_none(), "{era}: {answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(NOT_FOR_APPS) && message.contains("may not be called by the app"),
        "{era}: {answer}"
    );
}

/// The view's calls as the host saw them: its own let through and none failed, the probe's
/// refused.
fn check_app_calls(era: &str, report: &Value) {
    let calls = report["appCalls"].as_array().expect("appCalls");
    let (refused, allowed): (Vec<&Value>, Vec<&Value>) =
        calls.iter().partition(|c| c["name"] == NOT_FOR_APPS);
    assert_eq!(
        refused,
        [&json!({"name": NOT_FOR_APPS, "allowed": false})],
        "{era}"
    );
    let names: Vec<&str> = allowed.iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(
        names.contains(&"refresh_notes") && names.contains(&"add_note"),
        "{era}: the view's calls {calls:?}"
    );
    for call in allowed {
        assert_eq!(call["allowed"], true, "{era}: {call}");
        assert_eq!(call["isError"], false, "{era}: {call}");
    }
    assert_eq!(report["errors"], json!([]), "{era}: {report}");
}
