//! The conformance fixture's exact payloads (from the reference everything server), shared
//! by the stdio and interop tests.

use serde_json::{Value, json};

/// A 1×1 red PNG.
pub(crate) const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file.
pub(crate) const AUDIO: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The tools, in listing order, with their descriptions.
pub(crate) const TOOLS: [(&str, &str); 14] = [
    ("test_simple_text", "Tests simple text content response"),
    ("test_image_content", "Tests image content response"),
    ("test_audio_content", "Tests audio content response"),
    (
        "test_embedded_resource",
        "Tests embedded resource content response",
    ),
    (
        "test_multiple_content_types",
        "Tests response with multiple content types (text, image, resource)",
    ),
    (
        "test_tool_with_logging",
        "Tests tool that emits log messages during execution",
    ),
    (
        "test_tool_with_progress",
        "Tests tool that reports progress notifications",
    ),
    ("test_error_handling", "Tests error response handling"),
    (
        "test_sampling",
        "Tests server-initiated sampling (LLM completion request)",
    ),
    (
        "test_elicitation",
        "Tests server-initiated elicitation (user input request)",
    ),
    (
        "test_elicitation_sep1034_defaults",
        "Tests elicitation with default values per SEP-1034",
    ),
    (
        "test_elicitation_sep1330_enums",
        "Tests elicitation with enum schema improvements per SEP-1330",
    ),
    (
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
    ),
    (
        "test_reconnection",
        "Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects.",
    ),
];

/// The names of [`TOOLS`].
pub(crate) fn tool_names() -> Vec<&'static str> {
    TOOLS.iter().map(|(name, _)| *name).collect()
}

/// The input schema of a tool without arguments.
pub(crate) fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The input schema of `test_sampling` / `test_elicitation`: one required string.
pub(crate) fn string_arg_schema(name: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    })
}

/// `json_schema_2020_12_tool`'s input schema (SEP-1613), verbatim.
pub(crate) fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// The `inputSchema` each tool must list.
pub(crate) fn input_schema(tool: &str) -> Value {
    match tool {
        "test_sampling" => string_arg_schema("prompt", "The prompt to send to the LLM"),
        "test_elicitation" => string_arg_schema("message", "The message to show the user"),
        "json_schema_2020_12_tool" => json_schema_2020_12(),
        _ => empty_schema(),
    }
}

/// `test_elicitation`'s requested schema.
pub(crate) fn elicitation_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"]
    })
}

/// The SEP-1034 requested schema: every field has a default.
pub(crate) fn sep1034_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    })
}

/// The SEP-1330 requested schema: the five enum shapes.
pub(crate) fn sep1330_schema() -> Value {
    json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option",
            "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Select one option with titles",
            "oneOf": [{"const": "value1", "title": "First Option"},
                      {"const": "value2", "title": "Second Option"},
                      {"const": "value3", "title": "Third Option"}]},
        "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Select multiple options",
            "minItems": 1, "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Select multiple options with titles",
            "minItems": 1, "maxItems": 3,
            "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                {"const": "value2", "title": "Second Choice"},
                                {"const": "value3", "title": "Third Choice"}]}}
    }, "required": []})
}

/// The `content` of each tool result that does not depend on the client.
pub(crate) fn fixed_content(tool: &str) -> Option<Value> {
    Some(match tool {
        "test_simple_text" => {
            json!([{"type": "text", "text": "This is a simple text response for testing."}])
        }
        "test_image_content" => json!([{"type": "image", "data": IMAGE, "mimeType": "image/png"}]),
        "test_audio_content" => json!([{"type": "audio", "data": AUDIO, "mimeType": "audio/wav"}]),
        "test_embedded_resource" => json!([{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content."}}]),
        "test_multiple_content_types" => json!([
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": IMAGE, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}
        ]),
        "test_tool_with_logging" => {
            json!([{"type": "text", "text": "Tool with logging executed successfully"}])
        }
        "test_error_handling" => json!([{"type": "text",
            "text": "This tool intentionally returns an error for testing"}]),
        "test_reconnection" => {
            json!([{"type": "text", "text": "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."}])
        }
        _ => return None,
    })
}

/// The three log messages of `test_tool_with_logging`, in order.
pub(crate) const LOG_MESSAGES: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

/// `resources/list`.
pub(crate) fn resources() -> Value {
    json!([
        {"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource",
         "description": "A static text resource for testing", "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource",
         "description": "A static binary resource (image) for testing", "mimeType": "image/png"},
        {"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource",
         "description": "A resource that auto-updates every 3 seconds", "mimeType": "text/plain"}
    ])
}

/// `resources/templates/list`.
pub(crate) fn templates() -> Value {
    json!([{"uriTemplate": "test://template/{id}/data", "name": "template",
        "title": "Resource Template", "description": "A resource template with parameter substitution",
        "mimeType": "application/json"}])
}

/// The `contents` of reading `uri` (a listed resource or a template instance).
pub(crate) fn read_contents(uri: &str) -> Value {
    match uri {
        "test://static-text" => json!([{"uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource."}]),
        "test://static-binary" => json!([{"uri": uri, "mimeType": "image/png", "blob": IMAGE}]),
        "test://watched-resource" => {
            json!([{"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"}])
        }
        _ => {
            let id = uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))
                .unwrap_or_else(|| panic!("not a fixture uri: {uri}"));
            json!([{"uri": uri, "mimeType": "application/json",
                "text": format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#)}])
        }
    }
}

/// `prompts/list`.
pub(crate) fn prompts() -> Value {
    json!([
        {"name": "test_simple_prompt", "title": "Simple Test Prompt",
         "description": "A simple prompt without arguments"},
        {"name": "test_prompt_with_arguments", "title": "Prompt With Arguments",
         "description": "A prompt with required arguments", "arguments": [
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": true}]},
        {"name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource",
         "description": "A prompt that includes an embedded resource", "arguments": [
            {"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]},
        {"name": "test_prompt_with_image", "title": "Prompt With Image",
         "description": "A prompt that includes image content"}
    ])
}

/// The `messages` of getting prompt `name` with `arg1`/`arg2`/`resourceUri` as given.
pub(crate) fn prompt_messages(name: &str, arg1: &str, arg2: &str, resource_uri: &str) -> Value {
    match name {
        "test_simple_prompt" => json!([{"role": "user",
            "content": {"type": "text", "text": "This is a simple prompt for testing."}}]),
        "test_prompt_with_arguments" => json!([{"role": "user", "content": {"type": "text",
            "text": format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")}}]),
        "test_prompt_with_embedded_resource" => json!([
            {"role": "user", "content": {"type": "resource", "resource": {"uri": resource_uri,
                "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text",
                "text": "Please process the embedded resource above."}}
        ]),
        "test_prompt_with_image" => json!([
            {"role": "user", "content": {"type": "image", "data": IMAGE, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
        ]),
        other => panic!("not a fixture prompt: {other}"),
    }
}

/// The completion result (the fixture completes nothing).
pub(crate) fn empty_completion() -> Value {
    json!({"values": [], "total": 0, "hasMore": false})
}

/// Whether `a` and `b` are the same JSON, comparing numbers by value (`30` equals `30.0`,
/// as in JSON and JavaScript).
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
