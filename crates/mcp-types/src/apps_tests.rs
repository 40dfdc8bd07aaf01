use serde_json::json;

use super::*;
use crate::result::test_util::round_trip;
use crate::{InitializeRequest, ReadResourceResult, TextResourceContents};

/// The spec's tool visible to the model and the app.
const WEATHER_TOOL: &str = r#"{
  "name": "get_weather",
  "description": "Get current weather for a location",
  "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}},
  "_meta": {"ui": {"resourceUri": "ui://weather-server/dashboard-template",
                   "visibility": ["model", "app"]}}
}"#;

/// The spec's app-only tool.
const REFRESH_TOOL: &str = r#"{
  "name": "refresh_dashboard",
  "description": "Refresh dashboard data",
  "inputSchema": {"type": "object"},
  "_meta": {"ui": {"resourceUri": "ui://weather-server/dashboard-template",
                   "visibility": ["app"]}}
}"#;

#[test]
fn the_spec_tools_round_trip_with_their_visibility() {
    let weather: Tool = round_trip(WEATHER_TOOL);
    let ui = McpUiToolMeta::from_tool(&weather).unwrap();
    assert_eq!(
        ui.resource_uri.as_deref(),
        Some("ui://weather-server/dashboard-template")
    );
    assert!(ui.visible_to(&McpUiToolVisibility::Model));
    assert!(ui.visible_to(&McpUiToolVisibility::App));

    let refresh: Tool = round_trip(REFRESH_TOOL);
    let ui = McpUiToolMeta::from_tool(&refresh).unwrap();
    assert_eq!(ui.visibility, Some(vec![McpUiToolVisibility::App]));
    assert!(!ui.visible_to(&McpUiToolVisibility::Model));

    // Written back, the meta is the spec's object.
    let mut meta = Meta::new();
    McpUiToolMeta::new("ui://weather-server/dashboard-template")
        .with_visibility([McpUiToolVisibility::App])
        .write(&mut meta);
    assert_eq!(json!(meta), json!(refresh.meta));
}

#[test]
fn visibility_defaults_to_the_model_and_the_app() {
    let ui = McpUiToolMeta::new("ui://a/b");
    assert!(ui.visible_to(&McpUiToolVisibility::Model));
    assert!(ui.visible_to(&McpUiToolVisibility::App));
    assert!(!ui.visible_to(&McpUiToolVisibility::Other("user".into())));
    let nobody = ui.with_visibility([]);
    assert!(!nobody.visible_to(&McpUiToolVisibility::Model));
    assert!(!nobody.visible_to(&McpUiToolVisibility::App));
}

#[test]
fn the_deprecated_flat_key_is_read_and_never_written() {
    let flat: Tool = round_trip(
        r#"{"name":"old","inputSchema":{"type":"object"},
            "_meta":{"ui/resourceUri":"ui://old/view"}}"#,
    );
    let ui = McpUiToolMeta::from_tool(&flat).unwrap();
    assert_eq!(ui.resource_uri.as_deref(), Some("ui://old/view"));
    assert_eq!(ui.visibility, None);

    // `ui` without a URI takes the flat key's; a URI in `ui` wins over it.
    let mixed: Meta = serde_json::from_value(json!({
        "ui": {"visibility": ["app"]}, "ui/resourceUri": "ui://flat"
    }))
    .unwrap();
    let ui = McpUiToolMeta::from_meta(&mixed).unwrap();
    assert_eq!(ui.resource_uri.as_deref(), Some("ui://flat"));
    let both: Meta = serde_json::from_value(json!({
        "ui": {"resourceUri": "ui://nested"}, "ui/resourceUri": "ui://flat"
    }))
    .unwrap();
    assert_eq!(
        McpUiToolMeta::from_meta(&both)
            .unwrap()
            .resource_uri
            .as_deref(),
        Some("ui://nested")
    );

    let mut meta = Meta::new();
    ui.write(&mut meta);
    assert_eq!(
        json!(meta),
        json!({"ui": {"resourceUri": "ui://flat", "visibility": ["app"]}})
    );
    assert!(McpUiToolMeta::from_meta(&Meta::new()).is_none());
    let broken: Meta = serde_json::from_value(json!({"ui": {"visibility": "app"}})).unwrap();
    assert!(McpUiToolMeta::from_meta(&broken).is_none());
}

#[test]
fn unknown_members_and_scopes_are_kept() {
    let ui: McpUiToolMeta =
        round_trip(r#"{"resourceUri":"ui://a/b","visibility":["model","user"],"future":{"x":1}}"#);
    assert_eq!(
        ui.visibility,
        Some(vec![
            McpUiToolVisibility::Model,
            McpUiToolVisibility::Other("user".to_owned())
        ])
    );
    assert_eq!(ui.extra["future"], json!({"x": 1}));
    let meta: McpUiResourceMeta = round_trip(
        r#"{"csp":{"connectDomains":["https://a"],"scriptHashes":["x"]},
            "permissions":{"camera":{},"midi":{}},"sandbox":"strict"}"#,
    );
    assert_eq!(meta.csp.unwrap().extra["scriptHashes"], json!(["x"]));
    assert_eq!(meta.permissions.unwrap().extra["midi"], json!({}));
    assert_eq!(meta.extra["sandbox"], "strict");
    round_trip::<McpUiClientCapabilities>(
        r#"{"mimeTypes":["text/html;profile=mcp-app"],"features":["streaming"]}"#,
    );
}

#[test]
fn the_spec_resource_examples_round_trip() {
    let listed: Resource = round_trip(
        r#"{"uri":"ui://weather-server/dashboard-template","name":"weather_dashboard",
            "description":"Interactive weather dashboard view",
            "mimeType":"text/html;profile=mcp-app"}"#,
    );
    assert!(McpUiResourceMeta::from_resource(&listed).is_none());
    assert!(is_ui_uri(&listed.uri));

    let read: ReadResourceResult = round_trip(
        r#"{"contents":[{"uri":"ui://weather-server/dashboard-template",
            "mimeType":"text/html;profile=mcp-app",
            "text":"<!DOCTYPE html><html>...</html>",
            "_meta":{"ui":{"csp":{"connectDomains":["https://api.openweathermap.org"],
                                  "resourceDomains":["https://cdn.jsdelivr.net"]},
                           "prefersBorder":true}}}]}"#,
    );
    let ui = McpUiResourceMeta::from_contents(&read.contents[0]).unwrap();
    assert_eq!(ui.prefers_border, Some(true));
    let csp = ui.csp.clone().unwrap();
    assert_eq!(
        csp.connect_domains,
        Some(vec!["https://api.openweathermap.org".to_owned()])
    );
    assert_eq!(csp.frame_domains, None);

    // The same meta, built.
    let built = McpUiResourceMeta::default()
        .with_csp(
            McpUiResourceCsp::default()
                .with_connect_domains(["https://api.openweathermap.org"])
                .with_resource_domains(["https://cdn.jsdelivr.net"]),
        )
        .with_prefers_border(true);
    assert_eq!(built, ui);
    let mut contents =
        TextResourceContents::new("ui://weather-server/dashboard-template", "<!DOCTYPE html>");
    built.write(contents.meta.get_or_insert_with(Meta::new));
    assert_eq!(
        McpUiResourceMeta::from_contents(&contents.into()),
        Some(built)
    );
}

#[test]
fn every_resource_meta_member_has_its_wire_name() {
    let meta = McpUiResourceMeta::default()
        .with_csp(
            McpUiResourceCsp::default()
                .with_connect_domains(["https://api.example.com"])
                .with_resource_domains(["https://*.example.com"])
                .with_frame_domains(["https://www.youtube.com"])
                .with_base_uri_domains(["https://cdn.example.com"]),
        )
        .with_permissions(
            McpUiResourcePermissions::default()
                .with_camera()
                .with_microphone()
                .with_geolocation()
                .with_clipboard_write(),
        )
        .with_domain("a904794854a047f6.claudemcpcontent.com")
        .with_prefers_border(false);
    assert!(!meta.is_empty());
    assert!(McpUiResourceMeta::default().is_empty());
    assert_eq!(
        serde_json::to_value(&meta).unwrap(),
        json!({
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://*.example.com"],
                "frameDomains": ["https://www.youtube.com"],
                "baseUriDomains": ["https://cdn.example.com"]
            },
            "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
            "domain": "a904794854a047f6.claudemcpcontent.com",
            "prefersBorder": false
        })
    );
}

#[test]
fn the_spec_client_declaration_is_read_in_every_revision() {
    // The spec's `initialize`, at 2024-11-05.
    let init: InitializeRequest = round_trip(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2024-11-05",
            "capabilities":{"extensions":{"io.modelcontextprotocol/ui":
                {"mimeTypes":["text/html;profile=mcp-app"]}}},
            "clientInfo":{"name":"claude-desktop","version":"1.0.0"}}}"#,
    );
    let caps = &init.params.capabilities;
    assert!(caps.supports_ui());
    assert_eq!(caps.ui(), Some(McpUiClientCapabilities::html()));
    assert!(caps.ui().unwrap().supports_html());

    // The 2026-07-28 fixture of the same declaration.
    let fixture: ClientCapabilities = round_trip(
        r#"{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}"#,
    );
    assert!(fixture.supports_ui());

    // The declaration is the settings object.
    assert_eq!(
        json!(McpUiClientCapabilities::html().to_settings()),
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
}

#[test]
fn a_declaration_without_the_html_type_is_no_support() {
    let declares = |settings: serde_json::Value| -> bool {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/ui": settings}}))
                .unwrap();
        assert_eq!(
            caps.supports_ui(),
            caps.ui().is_some_and(|ui| ui.supports_html())
        );
        caps.supports_ui()
    };
    assert!(declares(
        json!({"mimeTypes": ["text/uri-list", "text/html;profile=mcp-app"]})
    ));
    assert!(declares(
        json!({"mimeTypes": ["Text/HTML; profile=mcp-app"]})
    ));
    assert!(!declares(json!({})));
    assert!(!declares(json!({"mimeTypes": []})));
    assert!(!declares(json!({"mimeTypes": ["text/html"]})));
    assert!(!declares(
        json!({"mimeTypes": ["text/html;profile=mcp-app-v2"]})
    ));
    assert!(!declares(json!({"mimeTypes": "text/html;profile=mcp-app"})));
    let other: ClientCapabilities =
        serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
            .unwrap();
    assert!(!other.supports_ui());
    assert_eq!(other.ui(), None);
}

#[test]
fn ui_uris_and_mime_types() {
    assert!(is_ui_uri("ui://weather-server/dashboard-template"));
    assert!(is_ui_uri("UI://x"));
    assert!(!is_ui_uri("ui:/x"));
    assert!(!is_ui_uri("ui://"));
    assert!(!is_ui_uri("uix://a"));
    assert!(!is_ui_uri(""));
    assert!(!is_ui_uri("é"));
    assert!(is_ui_mime_type(UI_MIME_TYPE));
    assert!(is_ui_mime_type(" text/html ; profile=MCP-APP "));
    assert!(!is_ui_mime_type("text/html"));
    assert!(!is_ui_mime_type("text/html;profile=mcp-app;x=y"));
}
