//! The MCP Apps extension, host side (feature `apps`): the declaration in both eras, the
//! tools split between the model and the view, a tool's view read and checked (text and
//! blob, the MIME type, the URI), and a view's tool calls gated before anything is sent.

use base64::Engine as _;
use mcp_client::apps::{AppError, AppTools};
use mcp_client::{Client, EraChoice, Error};
use serde_json::{Value, json};

use crate::support::{FakeServer, Harness, Seen};

const VIEW: &str = "<!doctype html><html><head></head><body><p>notes</p></body></html>";
const DECLARATION: &str = "io.modelcontextprotocol/ui";

/// A notes server: `show` (the model's tool, with the view), `save` (the view's only),
/// `wipe` (the model's only), `legacy` (its view named by the deprecated flat key), over two
/// pages; `ui://notes/app` as text, `ui://notes/legacy` as a blob, `ui://notes/plain` served
/// as plain HTML and `ui://notes/elsewhere` answered with another URI's contents.
fn notes_server() -> FakeServer {
    FakeServer::new()
        .answer("ping", json!({}))
        .route("tools/list", |params, _| async move {
            let tool = |name: &str, meta: Value| {
                json!({"name": name, "inputSchema": {"type": "object"}, "_meta": meta})
            };
            Ok(if params.get("cursor").is_none() {
                json!({"tools": [
                    tool("show", json!({"ui": {"resourceUri": "ui://notes/app"}})),
                    tool("save", json!({"ui": {"resourceUri": "ui://notes/app", "visibility": ["app"]}})),
                ], "nextCursor": "2"})
            } else {
                json!({"tools": [
                    tool("wipe", json!({"ui": {"visibility": ["model"]}})),
                    tool("legacy", json!({"ui/resourceUri": "ui://notes/legacy"})),
                ]})
            })
        })
        .route("resources/read", |params, _| async move {
            let uri = params["uri"].as_str().unwrap_or_default().to_owned();
            let contents = match uri.as_str() {
                "ui://notes/app" => json!({
                    "uri": uri, "mimeType": "text/html;profile=mcp-app", "text": VIEW,
                    "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                                     "permissions": {"clipboardWrite": {}},
                                     "prefersBorder": false}}
                }),
                "ui://notes/legacy" => json!({
                    "uri": uri, "mimeType": "text/html;profile=mcp-app",
                    "blob": base64::engine::general_purpose::STANDARD.encode(VIEW)
                }),
                "ui://notes/plain" => json!({"uri": uri, "mimeType": "text/html", "text": VIEW}),
                _ => json!({"uri": "ui://notes/other", "mimeType": "text/html;profile=mcp-app", "text": VIEW}),
            };
            Ok(json!({"contents": [contents]}))
        })
        .route("tools/call", |params, _| async move {
            let name = params["name"].as_str().unwrap_or_default().to_owned();
            Ok(json!({"content": [{"type": "text", "text": format!("{name} done: {}", params["arguments"])}]}))
        })
}

/// The requests the server saw since the last look, after a ping that marks the end.
async fn requests_since(h: &mut Harness) -> Vec<String> {
    h.client.ping().await.expect("ping");
    let mut methods = Vec::new();
    loop {
        match h.server.next_seen().await {
            Seen::Request { method, .. } if method == "ping" => return methods,
            seen => methods.push(seen.method().to_owned()),
        }
    }
}

#[tokio::test]
async fn the_declaration_reaches_the_server_in_both_eras_only_when_asked() {
    let h = FakeServer::new()
        .connect(Client::builder().era(EraChoice::Legacy).apps(true))
        .await;
    assert_eq!(
        h.init_params["capabilities"]["extensions"][DECLARATION],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
    assert!(h.client.declares_apps());

    let h = FakeServer::new()
        .connect(Client::builder().era(EraChoice::Legacy))
        .await;
    assert!(h.init_params["capabilities"]["extensions"][DECLARATION].is_null());
    assert!(!h.client.declares_apps());

    let h = FakeServer::modern()
        .connect_modern(Client::builder().apps(true))
        .await;
    let capabilities = &h.init_params["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(
        capabilities["extensions"][DECLARATION],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        "{}",
        h.init_params
    );
}

#[tokio::test]
async fn a_host_lists_the_models_tools_and_reads_each_view() {
    let h = notes_server()
        .connect(Client::builder().era(EraChoice::Legacy).apps(true))
        .await;
    let tools = h.client.list_app_tools().await.expect("tools/list");
    let names = |tools: Vec<&mcp_types::Tool>| -> Vec<String> {
        tools.into_iter().map(|t| t.name.clone()).collect()
    };
    assert_eq!(
        names(tools.for_model().collect()),
        ["show", "wipe", "legacy"]
    );
    assert_eq!(names(tools.for_app().collect()), ["show", "save", "legacy"]);

    let show = tools.get("show").expect("listed");
    let view = h
        .client
        .tool_ui_resource(show)
        .await
        .expect("the view")
        .expect("show has a view");
    assert_eq!(view.uri, "ui://notes/app");
    assert_eq!(view.html, VIEW);
    assert_eq!(
        serde_json::to_value(&view.meta).unwrap(),
        json!({"csp": {"connectDomains": ["https://api.example.com"]},
               "permissions": {"clipboardWrite": {}}, "prefersBorder": false})
    );

    // The deprecated flat key, and a view sent as a base64 blob.
    let legacy = tools.get("legacy").expect("listed");
    let view = h.client.tool_ui_resource(legacy).await.unwrap().unwrap();
    assert_eq!(
        (view.uri.as_str(), view.html.as_str()),
        ("ui://notes/legacy", VIEW)
    );
    assert!(view.meta.is_empty());

    let wipe = tools.get("wipe").expect("listed");
    assert_eq!(h.client.tool_ui_resource(wipe).await.unwrap(), None);
}

#[tokio::test]
async fn a_view_that_breaks_the_extensions_rules_is_refused() {
    let mut h = notes_server()
        .connect(Client::builder().era(EraChoice::Legacy).apps(true))
        .await;
    match h.client.read_ui_resource("ui://notes/plain").await {
        Err(Error::App(AppError::WrongMimeType { uri, mime_type })) => {
            assert_eq!(uri, "ui://notes/plain");
            assert_eq!(mime_type.as_deref(), Some("text/html"));
        }
        other => panic!("plain HTML gave {other:?}"),
    }
    match h.client.read_ui_resource("ui://notes/elsewhere").await {
        Err(Error::App(AppError::NoContents { uri })) => assert_eq!(uri, "ui://notes/elsewhere"),
        other => panic!("contents of another URI gave {other:?}"),
    }
    assert_eq!(
        requests_since(&mut h).await,
        ["resources/read", "resources/read"]
    );

    // Not a view URI: refused before sending.
    match h
        .client
        .read_ui_resource("https://notes.example/app.html")
        .await
    {
        Err(Error::App(AppError::NotUiUri { uri })) => {
            assert_eq!(uri, "https://notes.example/app.html");
        }
        other => panic!("an https URI gave {other:?}"),
    }
    assert_eq!(requests_since(&mut h).await, Vec::<String>::new());
}

#[tokio::test]
async fn a_view_may_call_only_the_tools_whose_visibility_includes_app() {
    let mut h = notes_server()
        .connect(Client::builder().era(EraChoice::Legacy).apps(true))
        .await;
    let tools = h.client.list_app_tools().await.expect("tools/list");
    let _ = requests_since(&mut h).await;

    let saved = h
        .client
        .call_tool_for_app(&tools, ("save", json!({"text": "buy milk"})))
        .await
        .expect("save is the view's");
    assert_eq!(
        saved.content[0].as_text(),
        Some(r#"save done: {"text":"buy milk"}"#)
    );
    let shown = h.client.call_tool_for_app(&tools, "show").await;
    assert!(shown.is_ok(), "{shown:?}");
    assert_eq!(requests_since(&mut h).await, ["tools/call", "tools/call"]);

    for (name, refusal) in [
        (
            "wipe",
            AppError::NotCallableByApp {
                name: "wipe".to_owned(),
            },
        ),
        (
            "drop_tables",
            AppError::UnknownTool {
                name: "drop_tables".to_owned(),
            },
        ),
    ] {
        match h.client.call_tool_for_app(&tools, name).await {
            Err(Error::App(e)) => assert_eq!(e, refusal),
            other => panic!("{name} gave {other:?}"),
        }
    }
    assert_eq!(
        requests_since(&mut h).await,
        Vec::<String>::new(),
        "refused calls are never sent"
    );

    // Another server's list gates nothing of this one: an empty list lets nothing through.
    let other = AppTools::new([]);
    assert!(matches!(
        h.client.call_tool_for_app(&other, "save").await,
        Err(Error::App(AppError::UnknownTool { .. }))
    ));
}
