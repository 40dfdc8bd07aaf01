//! The fixture's tools, with the reference server's names, descriptions, schemas and texts.

use std::time::Duration;

use mcp_server::{Context, Error, FromContext, HandlerError, Tool};
use mcp_transport_http::server::RequestStream;
use mcp_types::{
    ContentBlock, CreateMessageRequestParams, ElicitRequestFormParams, ElicitResult, JsonObject,
    LoggingLevel, ProgressToken, SamplingMessage, TextResourceContents,
};
use serde_json::{Value, json};

use crate::{TEST_AUDIO_BASE64, TEST_IMAGE_BASE64};

/// Every tool of the fixture, in the reference server's order.
pub(crate) fn all() -> anyhow::Result<Vec<Tool>> {
    Ok(vec![
        Tool::new("test_simple_text", || async {
            "This is a simple text response for testing."
        })
        .description("Tests simple text content response"),
        Tool::new("test_image_content", || async {
            ContentBlock::image(TEST_IMAGE_BASE64, "image/png")
        })
        .description("Tests image content response"),
        Tool::new("test_audio_content", || async {
            ContentBlock::audio(TEST_AUDIO_BASE64, "audio/wav")
        })
        .description("Tests audio content response"),
        Tool::new("test_embedded_resource", || async {
            embedded_text(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            )
        })
        .description("Tests embedded resource content response"),
        Tool::new("test_multiple_content_types", || async {
            vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(TEST_IMAGE_BASE64, "image/png"),
                embedded_text(
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                ),
            ]
        })
        .description("Tests response with multiple content types (text, image, resource)"),
        Tool::new("test_tool_with_logging", with_logging)
            .description("Tests tool that emits log messages during execution"),
        Tool::new("test_tool_with_progress", with_progress)
            .description("Tests tool that reports progress notifications"),
        Tool::new("test_error_handling", || async {
            Err::<String, _>("This tool intentionally returns an error for testing")
        })
        .description("Tests error response handling"),
        Tool::raw(
            "test_sampling",
            string_arg("prompt", "The prompt to send to the LLM"),
            sampling,
        )?
        .description("Tests server-initiated sampling (LLM completion request)"),
        Tool::raw(
            "test_elicitation",
            string_arg("message", "The message to show the user"),
            elicitation,
        )?
        .description("Tests server-initiated elicitation (user input request)"),
        Tool::new("test_elicitation_sep1034_defaults", |cx: Context| {
            elicit_form(cx, sep1034_defaults_request())
        })
        .description("Tests elicitation with default values per SEP-1034"),
        Tool::new("test_elicitation_sep1330_enums", |cx: Context| {
            elicit_form(cx, sep1330_enums_request())
        })
        .description("Tests elicitation with enum schema improvements per SEP-1330"),
        Tool::raw(
            "json_schema_2020_12_tool",
            json_schema_2020_12(),
            echo_arguments,
        )?
        .description("Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"),
        Tool::new("test_reconnection", reconnection).description(RECONNECTION_DESCRIPTION),
    ])
}

/// `test_reconnection`'s description.
const RECONNECTION_DESCRIPTION: &str = "Tests SSE stream disconnection and client reconnection \
    (SEP-1699). Server will close the stream mid-call and send the result after client reconnects.";

/// Over HTTP, closes the request's SSE stream (the client resumes it with GET and
/// `Last-Event-ID`) and waits 100 ms before answering, as the reference does; over stdio
/// there is no stream to close and the text comes back at once.
async fn reconnection(cx: Context) -> &'static str {
    // 2026-07-28 streams cannot be resumed: closing one would lose the answer.
    let resumable = cx.protocol_version().has_initialize();
    if resumable
        && let Some(stream) = cx.extensions().get::<RequestStream>()
        && stream.close().await
    {
        tracing::debug!(id = ?stream.request_id(), "closed the request's sse stream");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    RECONNECTED
}

/// `test_reconnection`'s text.
const RECONNECTED: &str = "Reconnection test completed successfully. If you received this, \
    the client properly reconnected after stream closure.";

/// A `type: resource` content block embedding a text resource.
fn embedded_text(uri: &str, mime_type: &str, text: &str) -> ContentBlock {
    let mut contents = TextResourceContents::new(uri, text);
    contents.mime_type = Some(mime_type.to_owned());
    ContentBlock::resource(contents)
}

/// `{type: object, properties: {<name>: {type: string, description}}, required: [<name>]}`.
fn string_arg(name: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    })
}

/// The pause between the steps of the logging and progress tools, as in the reference.
const STEP: Duration = Duration::from_millis(50);

/// Three info log messages, 50 ms apart, sent while the call runs.
async fn with_logging(cx: Context) -> Result<&'static str, HandlerError> {
    let messages = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, message) in messages.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        cx.log(LoggingLevel::Info, None, message).await?;
    }
    Ok("Tool with logging executed successfully")
}

/// Progress 0, 50 and 100 of 100, 50 ms apart; returns the progress token as text.
///
/// The reference falls back to token `0` and sends progress even when the client asked for
/// none; the protocol says to send progress only for a token the client gave, so without
/// one this sends nothing and returns `"0"`.
async fn with_progress(cx: Context) -> Result<String, HandlerError> {
    for (i, step) in [0u32, 50, 100].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        let message = format!("Completed step {step} of 100");
        cx.report_progress(f64::from(step), Some(100.0), Some(&message))
            .await?;
    }
    Ok(match cx.progress_token() {
        Some(ProgressToken::String(s)) => s,
        Some(ProgressToken::Number(n)) => n.to_string(),
        None => "0".to_owned(),
    })
}

/// Echoes the (validated) arguments as JSON.
async fn echo_arguments(args: JsonObject) -> String {
    format!(
        "JSON Schema 2020-12 tool called with: {}",
        Value::Object(args)
    )
}

/// Asks the client's LLM to answer `prompt`. (On 2026-07-28 the question travels in an
/// input-required result: that is not an error to describe, so it is passed on.)
async fn sampling(args: JsonObject, cx: Context) -> Result<String, Error> {
    let prompt = args
        .get("prompt")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
    Ok(match cx.sample(params).await {
        Ok(result) => format!(
            "LLM response: {}",
            result.content.first_text().unwrap_or("No response")
        ),
        Err(Error::InputRequired) => return Err(Error::InputRequired),
        Err(e) => format!("Sampling not supported or error: {e}"),
    })
}

/// Asks the user for a free-text `response`, showing `message`.
async fn elicitation(args: JsonObject, cx: Context) -> Result<String, Error> {
    let message = args
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let request = json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"response": {"type": "string", "description": "User's response"}},
            "required": ["response"],
        },
    });
    Ok(match elicit(&cx, request).await {
        Ok(result) => format!("User response: {}", describe(&result)),
        Err(e) if e.as_mcp_error().is_some_and(Error::is_input_required) => {
            return Err(Error::InputRequired);
        }
        Err(e) => format!("Elicitation not supported or error: {e}"),
    })
}

/// Sends one of the SEP-1034/SEP-1330 forms and describes the answer.
async fn elicit_form(cx: Context, request: Value) -> Result<String, HandlerError> {
    let result = elicit(&cx, request).await?;
    Ok(format!("Elicitation completed: {}", describe(&result)))
}

/// Sends a form-mode `elicitation/create` given as JSON (the fixture's schemas, verbatim).
async fn elicit(cx: &Context, request: Value) -> Result<ElicitResult, HandlerError> {
    let params: ElicitRequestFormParams = serde_json::from_value(request)?;
    Ok(cx.elicit(params).await?)
}

/// `action=<action>, content=<content as JSON, {} if none>`.
fn describe(result: &ElicitResult) -> String {
    let action = serde_json::to_value(result.action).unwrap_or(Value::Null);
    let content =
        serde_json::to_value(result.content.clone().unwrap_or_default()).unwrap_or(Value::Null);
    format!(
        "action={}, content={content}",
        action.as_str().unwrap_or_default()
    )
}

/// The SEP-1034 form: one field of each kind, each with a default.
fn sep1034_defaults_request() -> Value {
    json!({
        "message": "Please review and update the form fields with defaults",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": true},
            },
            "required": [],
        },
    })
}

/// The SEP-1330 form: untitled, titled and legacy single-select enums, and untitled and
/// titled multi-select enums.
fn sep1330_enums_request() -> Value {
    json!({
        "message": "Please select options from the enum fields",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"],
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"},
                    ],
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ],
                    },
                },
            },
            "required": [],
        },
    })
}

/// The SEP-1613 fixture schema, verbatim: `$schema`, `$defs` with `$anchor`, `$ref`,
/// `allOf`/`anyOf`, `if`/`then`/`else` and `additionalProperties`.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    })
}

/// The authenticated caller: the principal the auth layer in front of the transport put in
/// the HTTP request's extensions, taken by handlers as an extractor.
struct Caller(mcp_auth::Principal);

impl FromContext for Caller {
    fn from_context(cx: &Context) -> mcp_server::Result<Self> {
        cx.extensions()
            .get::<http::Extensions>()
            .and_then(|e| e.get::<mcp_auth::Principal>())
            .map(|p| Caller(p.clone()))
            .ok_or(mcp_server::Error::MissingExtension("mcp_auth::Principal"))
    }
}

/// `whoami` (only with `--auth-issuer`): the caller's principal as JSON text.
pub(crate) fn whoami() -> Tool {
    Tool::new("whoami", |Caller(principal): Caller| async move {
        json!({
            "subject": principal.subject,
            "client_id": principal.client_id,
            "scopes": principal.scopes.iter().collect::<Vec<_>>(),
            "audience": principal.audience,
            "issuer": principal.issuer,
            "token_id": principal.claims.get("jti"),
            // The key thumbprint of a DPoP-bound token (RFC 9449 `cnf.jkt`), else null.
            "dpop_jkt": principal.claims.get("cnf").and_then(|c| c.get("jkt")),
        })
        .to_string()
    })
    .description(
        "Reports the authenticated caller (subject, client, scopes, audience, issuer, token id, \
         DPoP key thumbprint)",
    )
}
