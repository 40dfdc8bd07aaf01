use mcp_types::{BlobResourceContents, ResourceContents, TextResourceContents, Tool, UI_MIME_TYPE};
use serde_json::{Value, json};

use super::{AppError, AppTools, callable_by_app, checked, view_uri, visible_to_model};
use crate::Client;

fn tool(json: Value) -> Tool {
    serde_json::from_value(json).expect("a tool")
}

/// The tools of a server with a view: a tool rendered by it (default visibility), an
/// app-only tool, a model-only tool, a plain tool, one named by the deprecated flat key, one
/// whose `_meta.ui` does not decode, and one with a visibility this crate does not know.
fn tools() -> AppTools {
    AppTools::new([
        tool(json!({"name": "show", "inputSchema": {"type": "object"},
            "_meta": {"ui": {"resourceUri": "ui://notes/app"}}})),
        tool(json!({"name": "save", "inputSchema": {"type": "object"},
            "_meta": {"ui": {"resourceUri": "ui://notes/app", "visibility": ["app"]}}})),
        tool(json!({"name": "wipe", "inputSchema": {"type": "object"},
            "_meta": {"ui": {"visibility": ["model"]}}})),
        tool(json!({"name": "plain", "inputSchema": {"type": "object"}})),
        tool(json!({"name": "old", "inputSchema": {"type": "object"},
            "_meta": {"ui/resourceUri": "ui://notes/old"}})),
        tool(json!({"name": "broken", "inputSchema": {"type": "object"},
            "_meta": {"ui": {"visibility": "app", "resourceUri": "ui://notes/app"}}})),
        tool(json!({"name": "future", "inputSchema": {"type": "object"},
            "_meta": {"ui": {"visibility": ["widget"]}}})),
    ])
}

fn names<'a>(tools: impl Iterator<Item = &'a Tool>) -> Vec<&'a str> {
    tools.map(|t| t.name.as_str()).collect()
}

#[test]
fn the_model_sees_every_tool_but_the_app_only_ones() {
    let tools = tools();
    assert_eq!(
        names(tools.for_model()),
        ["show", "wipe", "plain", "old", "broken"]
    );
    assert_eq!(names(tools.for_app()), ["show", "save", "plain", "old"]);
    assert_eq!(tools.tools().len(), 7);
    for t in tools.tools() {
        assert_eq!(
            visible_to_model(t),
            tools.for_model().any(|m| m == t),
            "{}",
            t.name
        );
        assert_eq!(
            callable_by_app(t),
            tools.for_app().any(|a| a == t),
            "{}",
            t.name
        );
    }
}

#[test]
fn the_view_comes_from_meta_ui_or_else_the_deprecated_flat_key() {
    let tools = tools();
    assert_eq!(tools.view_uri("show"), Some("ui://notes/app"));
    assert_eq!(tools.view_uri("save"), Some("ui://notes/app"));
    assert_eq!(tools.view_uri("old"), Some("ui://notes/old"));
    assert_eq!(tools.view_uri("wipe"), None);
    assert_eq!(tools.view_uri("plain"), None);
    assert_eq!(
        tools.view_uri("broken"),
        None,
        "an undecodable _meta.ui names no view"
    );
    assert_eq!(tools.view_uri("absent"), None);
    assert_eq!(
        view_uri(tools.get("old").unwrap()).as_deref(),
        Some("ui://notes/old")
    );
    // `ui.resourceUri` wins over the flat key.
    let both = tool(json!({"name": "both", "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://new"}, "ui/resourceUri": "ui://old"}}));
    assert_eq!(view_uri(&both).as_deref(), Some("ui://new"));
    assert!(tools.ui("plain").is_none());
    assert!(tools.ui("broken").is_none());
    assert_eq!(
        tools.ui("save").and_then(|ui| ui.resource_uri.as_deref()),
        Some("ui://notes/app")
    );
}

#[test]
fn the_app_may_call_only_listed_tools_whose_visibility_includes_app() {
    let tools = tools();
    for name in ["show", "save", "plain", "old"] {
        assert_eq!(
            tools.check_app_call(name).map(|t| t.name.as_str()),
            Ok(name)
        );
    }
    for name in ["wipe", "broken", "future"] {
        assert_eq!(
            tools.check_app_call(name),
            Err(AppError::NotCallableByApp {
                name: name.to_owned()
            })
        );
    }
    let unknown = tools.check_app_call("absent").unwrap_err();
    assert_eq!(
        unknown,
        AppError::UnknownTool {
            name: "absent".to_owned()
        }
    );
    assert_eq!(
        unknown.to_string(),
        "tool absent is not among the server's listed tools"
    );
    assert_eq!(
        AppError::NotCallableByApp {
            name: "wipe".to_owned()
        }
        .to_string(),
        "tool wipe may not be called by an app: its visibility does not include \"app\""
    );
}

fn text(uri: &str, mime_type: Option<&str>, meta: Option<Value>) -> ResourceContents {
    let mut contents = TextResourceContents::new(uri, "<!doctype html><p>hi</p>");
    contents.mime_type = mime_type.map(str::to_owned);
    contents.meta = meta.map(|m| serde_json::from_value(m).expect("an object"));
    ResourceContents::Text(contents)
}

#[test]
fn a_view_must_be_an_mcp_app_html_document() {
    let meta = json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                             "prefersBorder": true}});
    let view = checked("ui://a", text("ui://a", Some(UI_MIME_TYPE), Some(meta))).unwrap();
    assert_eq!(view.html, "<!doctype html><p>hi</p>");
    assert_eq!(
        serde_json::to_value(&view.meta).unwrap(),
        json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
    );
    // The type's spelling may vary in case and spaces.
    let spaced = checked(
        "ui://a",
        text("ui://a", Some("text/html; profile=mcp-app"), None),
    );
    assert!(spaced.unwrap().meta.is_empty());

    assert_eq!(
        checked("ui://a", text("ui://a", Some("text/html"), None)),
        Err(AppError::WrongMimeType {
            uri: "ui://a".to_owned(),
            mime_type: Some("text/html".to_owned())
        })
    );
    let untyped = checked("ui://a", text("ui://a", None, None)).unwrap_err();
    assert_eq!(
        untyped.to_string(),
        "the view ui://a has MIME type (none), not text/html;profile=mcp-app"
    );
}

#[test]
fn a_blob_view_is_base64_of_utf8() {
    let blob = |b64: &str| {
        let mut contents = BlobResourceContents::new("ui://b", b64);
        contents.mime_type = Some(UI_MIME_TYPE.to_owned());
        ResourceContents::Blob(contents)
    };
    // "<p>é</p>"
    let view = checked("ui://b", blob("PHA+w6k8L3A+")).unwrap();
    assert_eq!(view.html, "<p>é</p>");
    let not_base64 = checked("ui://b", blob("not base64!")).unwrap_err();
    assert!(
        matches!(&not_base64, AppError::NotText { reason, .. } if reason.starts_with("the blob is not base64")),
        "{not_base64:?}"
    );
    // 0xff 0xfe: not UTF-8.
    let binary = checked("ui://b", blob("//4=")).unwrap_err();
    assert!(
        matches!(&binary, AppError::NotText { reason, .. } if reason.starts_with("not UTF-8")),
        "{binary:?}"
    );
}

#[test]
fn the_builder_declares_html_views_only_when_asked() {
    let declared = serde_json::to_value(Client::builder().apps(true).declared_capabilities())
        .expect("capabilities");
    assert_eq!(
        declared["extensions"]["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
    let plain = Client::builder().declared_capabilities();
    assert!(!plain.supports_ui());
    assert!(
        Client::builder()
            .apps(true)
            .declared_capabilities()
            .supports_ui()
    );
}
