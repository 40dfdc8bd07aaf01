use serde_json::{Value, json};

use crate::result::test_util::{decode_err, round_trip};
use crate::*;

#[test]
fn examples_2026_round_trip() {
    let t: TextContent = round_trip(r#"{"type": "text", "text": "Tool result text"}"#);
    assert_eq!(t, TextContent::new("Tool result text"));
    round_trip::<ImageContent>(
        r#"{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png",
            "annotations": {"audience": ["user"], "priority": 0.9}}"#,
    );
    round_trip::<AudioContent>(
        r#"{"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"}"#,
    );
    round_trip::<ResourceLink>(
        r#"{"type": "resource_link", "uri": "file:///project/src/main.rs", "name": "main.rs",
            "description": "Primary application entry point", "mimeType": "text/x-rust"}"#,
    );
    let e: EmbeddedResource = round_trip(
        r#"{"type": "resource",
            "resource": {"uri": "file:///project/src/main.rs", "mimeType": "text/x-rust",
                         "text": "fn main() {\n    println!(\"Hello world!\");\n}"},
            "annotations": {"audience": ["user", "assistant"], "priority": 0.7,
                            "lastModified": "2025-05-03T14:30:00Z"}}"#,
    );
    assert!(matches!(e.resource, ResourceContents::Text(_)));
    round_trip::<BlobResourceContents>(
        r#"{"uri": "file:///example.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}"#,
    );
    round_trip::<TextResourceContents>(
        r#"{"uri": "file:///example.txt", "mimeType": "text/plain", "text": "Resource content"}"#,
    );
    round_trip::<ToolUseContent>(
        r#"{"type": "tool_use", "id": "call_abc123", "name": "get_weather", "input": {"city": "Paris"}}"#,
    );
    round_trip::<ToolResultContent>(
        r#"{"type": "tool_result", "toolUseId": "call_abc123",
            "content": [{"type": "text", "text": "Weather in Paris: 18°C, partly cloudy"}]}"#,
    );
}

#[test]
fn content_block_dispatches_on_type() {
    let blocks: Vec<ContentBlock> = round_trip(
        r#"[{"type": "text", "text": "a"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "icons": [{"src": "https://x/i.png"}]},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "AA=="}}]"#,
    );
    assert_eq!(blocks[0].as_text(), Some("a"));
    assert!(matches!(blocks[1], ContentBlock::Image(_)));
    assert!(matches!(blocks[2], ContentBlock::Audio(_)));
    assert!(matches!(blocks[3], ContentBlock::ResourceLink(_)));
    assert!(
        matches!(&blocks[4], ContentBlock::Resource(r) if matches!(r.resource, ResourceContents::Blob(_)))
    );

    let err = decode_err::<ContentBlock>(r#"{"type": "video", "data": "AA=="}"#);
    assert!(err.contains("unknown content type \"video\""), "{err}");
    let err = decode_err::<ContentBlock>(r#"{"text": "no type"}"#);
    assert!(err.contains("missing field `type`"), "{err}");
    // Tool use is a sampling block, not a content block.
    decode_err::<ContentBlock>(r#"{"type": "tool_use", "id": "1", "name": "x", "input": {}}"#);
}

#[test]
fn block_structs_check_their_type() {
    let err = decode_err::<TextContent>(r#"{"type": "image", "text": "x"}"#);
    assert!(err.contains("expected type \"text\""), "{err}");
    decode_err::<TextContent>(r#"{"text": "x"}"#);
    // The tag is not kept in `extra`, so it is written exactly once.
    let t: TextContent = serde_json::from_str(r#"{"type": "text", "text": "x"}"#).unwrap();
    assert!(t.extra.is_empty());
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"type":"text","text":"x"}"#
    );
}

#[test]
fn unknown_fields_and_meta_survive() {
    let t: TextContent = round_trip(
        r#"{"type": "text", "text": "x", "_meta": {"com.example/k": [1, 2]}, "future": {"a": 1}}"#,
    );
    assert_eq!(
        t.meta.as_ref().and_then(|m| m.get("com.example/k")),
        Some(&json!([1, 2]))
    );
    assert_eq!(t.extra.get("future"), Some(&json!({"a": 1})));
    round_trip::<Annotations>(r#"{"audience": ["assistant"], "priority": 1, "x-extra": true}"#);
    round_trip::<BlobResourceContents>(
        r#"{"uri": "a:b", "blob": "AA==", "_meta": {"k": 1}, "z": 0}"#,
    );
    round_trip::<ToolUseContent>(
        r#"{"type": "tool_use", "id": "1", "name": "n", "input": {}, "_meta": {"k": "v"}, "q": null}"#,
    );
}

#[test]
fn older_revision_shapes() {
    // 2024-11-05: annotations without lastModified, no `_meta`.
    round_trip::<ContentBlock>(
        r#"{"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}}"#,
    );
    round_trip::<EmbeddedResource>(
        r#"{"type": "resource", "resource": {"uri": "file:///x", "text": "t"}}"#,
    );
}

#[test]
fn resource_contents_by_member() {
    let c: ResourceContents =
        round_trip(r#"{"uri": "a:1", "text": "t", "mimeType": "text/plain"}"#);
    assert_eq!((c.uri(), c.mime_type()), ("a:1", Some("text/plain")));
    let c: ResourceContents = round_trip(r#"{"uri": "a:2", "blob": "AA=="}"#);
    assert!(matches!(c, ResourceContents::Blob(_)));
    let err = decode_err::<ResourceContents>(r#"{"uri": "a:3"}"#);
    assert!(err.contains("`text` or a `blob`"), "{err}");
}

#[test]
fn sampling_blocks_and_structured_null() {
    let b: Vec<SamplingMessageContentBlock> = round_trip(
        r#"[{"type": "text", "text": "a"},
            {"type": "tool_use", "id": "1", "name": "n", "input": {"x": 1}},
            {"type": "tool_result", "toolUseId": "1", "content": [], "structuredContent": null, "isError": false}]"#,
    );
    match &b[2] {
        SamplingMessageContentBlock::ToolResult(r) => {
            assert_eq!(r.structured_content, Some(Value::Null))
        }
        other => panic!("{other:?}"),
    }
    round_trip::<ToolResultContent>(
        r#"{"type": "tool_result", "toolUseId": "1", "content": [], "structuredContent": [1, "two"]}"#,
    );
    let err = decode_err::<SamplingMessageContentBlock>(
        r#"{"type": "resource_link", "uri": "a", "name": "b"}"#,
    );
    assert!(err.contains("unknown sampling content type"), "{err}");
}

#[test]
fn constructors_encode_as_the_wire_form() {
    let v = serde_json::to_value(ContentBlock::image("AA==", "image/png")).unwrap();
    assert_eq!(
        v,
        json!({"type": "image", "data": "AA==", "mimeType": "image/png"})
    );
    let v = serde_json::to_value(ContentBlock::resource(TextResourceContents::new(
        "a:1", "t",
    )))
    .unwrap();
    assert_eq!(
        v,
        json!({"type": "resource", "resource": {"uri": "a:1", "text": "t"}})
    );
    let v = serde_json::to_value(ContentBlock::resource_link("a:1", "one")).unwrap();
    assert_eq!(
        v,
        json!({"type": "resource_link", "uri": "a:1", "name": "one"})
    );
    let v =
        serde_json::to_value(ToolResultContent::new("c1", vec![ContentBlock::text("ok")])).unwrap();
    assert_eq!(
        v,
        json!({"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "ok"}]})
    );
    assert_eq!(
        serde_json::to_value(Role::Assistant).unwrap(),
        json!("assistant")
    );
}
