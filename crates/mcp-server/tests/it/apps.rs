//! The MCP Apps extension (feature `apps`) over the memory pair, in both eras: what a host
//! that declared the extension sees and what any other client sees; the checks at build;
//! every `_meta.ui` the server emits against the extension's own `schema.json`.

use std::path::PathBuf;

use mcp_server::apps::UiResource;
use mcp_server::types::{
    McpUiResourceCsp, McpUiResourcePermissions, McpUiToolVisibility, UI_MIME_TYPE,
};
use mcp_server::{Context, Error, Resource, Server, Structured, Tool};
use serde_json::{Value, json};

use crate::support::{Client, rpc_error};

const VIEW: &str = "ui://notes/app";
const HTML: &str = "<!DOCTYPE html><html><body><ul id=\"notes\"></ul></body></html>";

/// The view's `_meta.ui`, every member set.
fn view_meta() -> Value {
    json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.example.com"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": ["https://cdn.example.com"]
        },
        "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
        "domain": "notes.example.com",
        "prefersBorder": true
    })
}

/// The notepad: a view, a tool for the model linking it, an app-only tool linking it, a
/// plain tool and a plain resource.
fn server() -> Server {
    let view = UiResource::html(VIEW, "notes", HTML)
        .unwrap()
        .title("Notes")
        .description("The notes, as a list with a form")
        .csp(
            McpUiResourceCsp::default()
                .with_connect_domains(["https://api.example.com"])
                .with_resource_domains(["https://*.example.com"])
                .with_frame_domains(["https://www.youtube.com"])
                .with_base_uri_domains(["https://cdn.example.com"]),
        )
        .permissions(
            McpUiResourcePermissions::default()
                .with_camera()
                .with_microphone()
                .with_geolocation()
                .with_clipboard_write(),
        )
        .domain("notes.example.com")
        .prefers_border(true);
    Server::builder()
        .ui_resource(view)
        .resource(Resource::text("notes://all", "all", "no notes"))
        .tool(
            Tool::new("list_notes", || async {
                Structured(json!({"notes": ["milk"]}))
            })
            .description("Lists the notes")
            .ui(VIEW)
            .ui_visibility([McpUiToolVisibility::Model, McpUiToolVisibility::App]),
        )
        .tool(
            Tool::new("refresh_notes", || async { "1 note: milk" })
                .ui(VIEW)
                .ui_visibility([McpUiToolVisibility::App]),
        )
        .tool(Tool::new("add_note", || async { "saved" }))
        .tool(Tool::new("forgot_text", || async {}).ui(VIEW))
        .build()
}

/// The capabilities of a host rendering HTML views.
fn host_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [UI_MIME_TYPE]}}})
}

/// How a test client talks: a session at a revision, or 2026-07-28 requests.
#[derive(Clone, Copy, Debug)]
enum Era {
    Session(&'static str),
    Modern,
}

const ERAS: [Era; 4] = [
    Era::Session("2024-11-05"),
    Era::Session("2025-06-18"),
    Era::Session("2025-11-25"),
    Era::Modern,
];

/// A client of `era` declaring `caps` (at `initialize`, or in every request's `_meta`).
struct Peer {
    client: Client,
    era: Era,
    caps: Value,
    /// The server's capabilities as this client learnt them.
    server_caps: Value,
}

impl Peer {
    async fn open(server: &Server, era: Era, caps: Value) -> Peer {
        let (client, server_caps) = match era {
            Era::Session(version) => {
                let (client, init) = Client::connect(server, version, caps.clone()).await;
                (client, serde_json::to_value(init.capabilities).unwrap())
            }
            Era::Modern => (Client::connect_raw(server), Value::Null),
        };
        let mut peer = Peer {
            client,
            era,
            caps,
            server_caps,
        };
        if let Era::Modern = era {
            peer.server_caps = peer.ok("server/discover", json!({})).await["capabilities"].clone();
        }
        peer
    }

    async fn call(&self, method: &'static str, params: Value) -> Result<Value, mcp_jsonrpc::Error> {
        match self.era {
            Era::Session(_) => self.client.raw(method, params).await,
            Era::Modern => self.client.modern(method, params, self.caps.clone()).await,
        }
    }

    async fn ok(&self, method: &'static str, params: Value) -> Value {
        match self.call(method, params.clone()).await {
            Ok(v) => v,
            Err(e) => panic!("{:?} {method} {params}: {e}", self.era),
        }
    }

    async fn refused(&self, method: &'static str, params: Value) -> (i32, String) {
        match self.call(method, params.clone()).await {
            Ok(v) => panic!("{:?} {method} {params} succeeded: {v}", self.era),
            Err(e) => {
                let e = rpc_error(e);
                (e.code.0, e.message)
            }
        }
    }

    /// The code of "resource not found" in this era.
    fn not_found(&self) -> i32 {
        match self.era {
            Era::Session(_) => -32002,
            Era::Modern => -32602,
        }
    }

    async fn tools(&self) -> Vec<Value> {
        self.ok("tools/list", json!({})).await["tools"]
            .as_array()
            .unwrap()
            .clone()
    }

    async fn resources(&self) -> Vec<Value> {
        self.ok("resources/list", json!({})).await["resources"]
            .as_array()
            .unwrap()
            .clone()
    }
}

fn named<'a>(items: &'a [Value], name: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {items:?}"))
}

fn names(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["name"].as_str().unwrap()).collect()
}

/// The server declares the extension to every client, in every revision, with the
/// `resources` capability.
fn assert_declared(peer: &Peer) {
    let caps = &peer.server_caps;
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": [UI_MIME_TYPE]}),
        "{:?}: {caps}",
        peer.era
    );
    assert!(caps["resources"].is_object(), "{caps}");
}

#[tokio::test(start_paused = true)]
async fn a_host_sees_views_and_app_only_tools() {
    let server = server();
    for era in ERAS {
        let host = Peer::open(&server, era, host_caps()).await;
        assert_declared(&host);

        let tools = host.tools().await;
        assert_eq!(
            names(&tools),
            ["list_notes", "refresh_notes", "add_note", "forgot_text"],
            "{era:?}"
        );
        assert_eq!(
            named(&tools, "list_notes")["_meta"],
            json!({"ui": {"resourceUri": VIEW, "visibility": ["model", "app"]}})
        );
        assert_eq!(
            named(&tools, "refresh_notes")["_meta"],
            json!({"ui": {"resourceUri": VIEW, "visibility": ["app"]}})
        );
        assert!(named(&tools, "add_note").get("_meta").is_none());

        let resources = host.resources().await;
        let view = resources.iter().find(|r| r["uri"] == VIEW).unwrap();
        assert_eq!(view["mimeType"], UI_MIME_TYPE);
        assert_eq!(view["title"], "Notes");
        assert_eq!(view["_meta"], json!({"ui": view_meta()}));

        let read = host.ok("resources/read", json!({"uri": VIEW})).await;
        let contents = &read["contents"][0];
        assert_eq!(contents["uri"], VIEW);
        assert_eq!(contents["mimeType"], UI_MIME_TYPE);
        assert_eq!(contents["text"], HTML);
        assert_eq!(contents["_meta"], json!({"ui": view_meta()}));

        // The app-only tool is callable by this client (its host lets only the view call it).
        let refreshed = host
            .ok("tools/call", json!({"name": "refresh_notes"}))
            .await;
        assert_eq!(
            refreshed["content"],
            json!([{"type": "text", "text": "1 note: milk"}])
        );
    }
}

#[tokio::test(start_paused = true)]
async fn other_clients_get_plain_tools_and_no_views() {
    let server = server();
    // Nothing declared; the extension without its settings; without the HTML type.
    let others = [
        json!({}),
        json!({"extensions": {"io.modelcontextprotocol/ui": {}}}),
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/uri-list"]}}}),
    ];
    for era in ERAS {
        for caps in &others {
            let client = Peer::open(&server, era, caps.clone()).await;
            assert_declared(&client);

            // The tools for the model, as if they had no view; no app-only tool.
            let tools = client.tools().await;
            assert_eq!(
                names(&tools),
                ["list_notes", "add_note", "forgot_text"],
                "{era:?} {caps}"
            );
            for tool in &tools {
                assert!(tool.get("_meta").is_none(), "{era:?} {caps}: {tool}");
            }
            assert_eq!(
                named(&tools, "list_notes")["description"],
                "Lists the notes"
            );

            // Calling the app-only tool answers as for a tool that does not exist.
            let hidden = client
                .refused("tools/call", json!({"name": "refresh_notes"}))
                .await;
            assert_eq!(hidden, (-32602, "Unknown tool: refresh_notes".to_owned()));
            let unknown = client.refused("tools/call", json!({"name": "nope"})).await;
            assert_eq!(unknown.0, hidden.0);

            // A tool with a view still answers with text.
            let listed = client.ok("tools/call", json!({"name": "list_notes"})).await;
            assert_eq!(listed["content"][0]["text"], r#"{"notes":["milk"]}"#);
            assert_eq!(listed["structuredContent"], json!({"notes": ["milk"]}));

            // No view: neither listed nor readable.
            let resources = client.resources().await;
            assert_eq!(names(&resources), ["all"], "{era:?} {caps}");
            let (code, _) = client.refused("resources/read", json!({"uri": VIEW})).await;
            assert_eq!(code, client.not_found(), "{era:?} {caps}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn one_connection_follows_each_request_s_capabilities() {
    // On 2026-07-28 the capabilities come with each request: the same connection is a host
    // for one request and a plain client for the next.
    let server = server();
    let client = Client::connect_raw(&server);
    let listed = |caps: Value| {
        let client = &client;
        async move {
            let list = client.modern("tools/list", json!({}), caps).await.unwrap();
            list["tools"].as_array().unwrap().len()
        }
    };
    assert_eq!(listed(host_caps()).await, 4);
    assert_eq!(listed(json!({})).await, 3);
    assert_eq!(listed(host_caps()).await, 4);
}

#[tokio::test(start_paused = true)]
async fn a_tool_with_a_view_always_returns_text() {
    let server = server();
    for era in ERAS {
        let host = Peer::open(&server, era, host_caps()).await;
        let result = host.ok("tools/call", json!({"name": "forgot_text"})).await;
        assert_eq!(result["isError"], true, "{era:?}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("tool \"forgot_text\" has a view but returned no text"),
            "{text}"
        );
        // Without a view the same handler is a plain empty result.
        let added = host.ok("tools/call", json!({"name": "add_note"})).await;
        assert_eq!(added["content"][0]["text"], "saved");
    }
}

#[tokio::test(start_paused = true)]
async fn the_application_filters_still_apply() {
    let server = Server::builder()
        .ui_resource(UiResource::html(VIEW, "notes", HTML).unwrap())
        .resource(Resource::text("notes://secret", "secret", "s"))
        .tool(Tool::new("show", || async { "shown" }).ui(VIEW))
        .tool(
            Tool::new("refresh", || async { "refreshed" })
                .ui(VIEW)
                .ui_visibility([McpUiToolVisibility::App]),
        )
        .tool(Tool::new("admin", || async { "admin" }))
        .tool_filter(|tool, _cx| tool.name() != "admin")
        .resource_filter(|resource, _cx| resource.uri() != "notes://secret")
        .build();
    for era in ERAS {
        let host = Peer::open(&server, era, host_caps()).await;
        assert_eq!(names(&host.tools().await), ["show", "refresh"]);
        assert_eq!(names(&host.resources().await), ["notes"]);
        let other = Peer::open(&server, era, json!({})).await;
        assert_eq!(names(&other.tools().await), ["show"]);
        assert!(other.resources().await.is_empty());
    }
}

#[tokio::test(start_paused = true)]
async fn views_from_files_and_per_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.html"), "<p>one</p>").unwrap();
    let server = Server::builder()
        .ui_resource(
            UiResource::file("ui://notes/file", "file", dir.path(), "app.html")
                .unwrap()
                .prefers_border(false),
        )
        .ui_resource(
            UiResource::dynamic("ui://notes/hello", "hello", |cx: Context| async move {
                let who = cx.client_info().map(|c| c.name.clone()).unwrap_or_default();
                format!("<p>hello {who}</p>")
            })
            .unwrap(),
        )
        .build();
    let host = Peer::open(&server, Era::Session("2025-11-25"), host_caps()).await;
    let read = |uri: &'static str| {
        let host = &host;
        async move { host.ok("resources/read", json!({"uri": uri})).await["contents"][0].clone() }
    };
    let file = read("ui://notes/file").await;
    assert_eq!(file["text"], "<p>one</p>");
    assert_eq!(file["mimeType"], UI_MIME_TYPE);
    assert_eq!(file["_meta"], json!({"ui": {"prefersBorder": false}}));
    // Read again on every read.
    std::fs::write(dir.path().join("app.html"), "<p>two</p>").unwrap();
    assert_eq!(read("ui://notes/file").await["text"], "<p>two</p>");
    // A link out of the directory, planted while serving, serves nothing.
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "secret").unwrap();
    std::fs::remove_file(dir.path().join("app.html")).unwrap();
    std::os::unix::fs::symlink(secret.path(), dir.path().join("app.html")).unwrap();
    let (code, message) = host
        .refused("resources/read", json!({"uri": "ui://notes/file"}))
        .await;
    assert_eq!(code, -32603);
    assert_eq!(message, "app.html: resolves outside the directory");

    let hello = read("ui://notes/hello").await;
    assert_eq!(hello["text"], "<p>hello test-client</p>");
    assert_eq!(hello["mimeType"], UI_MIME_TYPE);
    assert!(hello.get("_meta").is_none(), "{hello}");
}

#[test]
fn a_missing_view_fails_the_build() {
    let refused = Server::builder()
        .ui_resource(UiResource::html(VIEW, "notes", HTML).unwrap())
        .tool(Tool::new("show", || async { "x" }).ui("ui://notes/missing"))
        .tool(Tool::new("web", || async { "x" }).ui("https://example.com/app.html"))
        .tool(Tool::new("fine", || async { "x" }).ui(VIEW))
        .try_build()
        .unwrap_err();
    let text = refused.to_string();
    let Error::BrokenUiLinks(broken) = refused else {
        panic!("not a link error: {text}");
    };
    let links: Vec<(&str, &str)> = broken
        .iter()
        .map(|b| (b.tool.as_str(), b.uri.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            ("show", "ui://notes/missing"),
            ("web", "https://example.com/app.html")
        ]
    );
    assert!(
        text.starts_with(
            "tools link views the server does not serve: tool \"show\" links \
             \"ui://notes/missing\" (no resource of the server has this URI)"
        ),
        "{text}"
    );
    // A view registered as a plain resource counts.
    let plain = Resource::text("ui://notes/plain", "plain", HTML).mime_type(UI_MIME_TYPE);
    assert!(
        Server::builder()
            .resource(plain)
            .tool(Tool::new("show", || async { "x" }).ui("ui://notes/plain"))
            .try_build()
            .is_ok()
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_without_views_does_not_declare_the_extension() {
    let server = Server::builder()
        .tool(Tool::new("add_note", || async { "saved" }))
        .build();
    let caps = serde_json::to_value(server.capabilities_for(&"2025-11-25".into())).unwrap();
    assert!(caps.get("extensions").is_none(), "{caps}");
    let host = Peer::open(&server, Era::Modern, host_caps()).await;
    assert!(host.server_caps.get("extensions").is_none());
    assert_eq!(names(&host.tools().await), ["add_note"]);
}

/// `@modelcontextprotocol/ext-apps` as `cargo xtask setup` installed it (the npm peers'
/// `node_modules`: `$MCP_TEST_NODE_MODULES`, else `.tools/tools.env`).
fn ext_apps_package() -> PathBuf {
    const VAR: &str = "MCP_TEST_NODE_MODULES";
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let env_file = workspace.join(".tools/tools.env");
    let modules = std::env::var_os(VAR).map(PathBuf::from).or_else(|| {
        let env = std::fs::read_to_string(&env_file).ok()?;
        env.lines()
            .find_map(|line| line.strip_prefix(VAR)?.strip_prefix('='))
            .map(PathBuf::from)
    });
    let Some(modules) = modules else {
        panic!(
            "{VAR} is neither set nor in {}: run `cargo xtask setup` first",
            env_file.display()
        );
    };
    let package = modules.join("@modelcontextprotocol/ext-apps");
    assert!(
        package.join("package.json").is_file(),
        "{} is missing: run `cargo xtask setup` first",
        package.display()
    );
    package
}

#[tokio::test(start_paused = true)]
async fn every_emitted_ui_meta_validates_against_the_extension_schema() {
    let package = ext_apps_package();
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    let version = manifest["version"].as_str().unwrap_or("?").to_owned();
    let path = package.join("dist/src/generated/schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let validator = |name: &str| {
        let def = &schema["$defs"][name];
        assert!(
            def.is_object(),
            "no {name} in ext-apps {version}'s schema.json"
        );
        jsonschema::validator_for(def).unwrap()
    };
    let (tool_meta, resource_meta) = (validator("McpUiToolMeta"), validator("McpUiResourceMeta"));

    let server = server();
    for era in ERAS {
        let host = Peer::open(&server, era, host_caps()).await;
        let mut checked = 0;
        for tool in host.tools().await {
            let Some(ui) = tool["_meta"].get("ui") else {
                continue;
            };
            let errors: Vec<String> = tool_meta.iter_errors(ui).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "ext-apps {version}: {ui}: {errors:?}");
            checked += 1;
        }
        assert_eq!(checked, 3, "{era:?}");
        let listed = host.resources().await;
        let read = host.ok("resources/read", json!({"uri": VIEW})).await;
        let view = listed.iter().find(|r| r["uri"] == VIEW).unwrap();
        for ui in [&view["_meta"]["ui"], &read["contents"][0]["_meta"]["ui"]] {
            // Every member set, so that each is checked.
            assert_eq!(ui, &view_meta());
            let errors: Vec<String> = resource_meta
                .iter_errors(ui)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "ext-apps {version}: {ui}: {errors:?}");
        }
    }
    // The validators do refuse what the schema forbids.
    assert!(!tool_meta.is_valid(&json!({"resourceUri": VIEW, "csp": {}})));
    assert!(!resource_meta.is_valid(&json!({"prefersBorder": "yes"})));
}
