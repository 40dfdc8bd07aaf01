//! The fixture's tools and prompt for protocol revision 2026-07-28, with the reference server's
//! names, descriptions, input keys and texts: the input-required tools (which ask the client
//! for input, answered in a retried request on 2026-07-28 and through server-to-client
//! requests on earlier revisions: one handler for both), the diagnostic tools of the
//! `server-stateless` scenario, and a tool with an `x-mcp-header` parameter.

use futures::future::join;
use mcp_server::types::{
    CreateMessageRequestParams, ElicitRequestFormParams, ElicitResult, ElicitValue, Era,
    LoggingLevel, PromptMessage, SamplingMessage,
};
use mcp_server::{Context, Error, HandlerError, Prompt, Server, Tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A form with one required field of `kind`.
fn form(message: &str, field: &str, kind: &str) -> Result<ElicitRequestFormParams, HandlerError> {
    let request = json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {field: {"type": kind}},
            "required": [field],
        },
    });
    Ok(serde_json::from_value(request)?)
}

fn sample(text: &str, max_tokens: u64) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

/// The text of field `field` of an accepted form, or `"unknown"`.
fn text_of(result: &ElicitResult, field: &str) -> String {
    match result.content.as_ref().and_then(|c| c.get(field)) {
        Some(ElicitValue::String(s)) => s.clone(),
        _ => "unknown".to_owned(),
    }
}

async fn elicitation(cx: Context) -> Result<String, HandlerError> {
    let answer = cx
        .elicit_keyed("user_name", form("What is your name?", "name", "string")?)
        .await?;
    Ok(format!("Hello, {}!", text_of(&answer, "name")))
}

async fn sampling(cx: Context) -> Result<String, HandlerError> {
    let reply = cx
        .sample_keyed(
            "sample_request",
            sample("What is the capital of France?", 100),
        )
        .await?;
    let text = reply.content.first_text().unwrap_or("no response");
    Ok(format!("Sampling result: {text}"))
}

async fn list_roots(cx: Context) -> Result<String, HandlerError> {
    let roots = cx.list_roots_keyed("roots_request").await?;
    Ok(format!("Found {} root(s)", roots.roots.len()))
}

/// What the request-state tools carry between rounds.
#[derive(Serialize, Deserialize, PartialEq)]
struct Kind {
    kind: String,
}

/// Confirms with the user, carrying `kind` to the next round in the sealed `requestState`.
async fn confirm(cx: &Context, kind: &str) -> Result<bool, HandlerError> {
    let carried = cx.request_state::<Kind>();
    cx.set_request_state(&Kind {
        kind: kind.to_owned(),
    })?;
    let answer = cx
        .elicit_keyed("confirm", form("Please confirm", "ok", "boolean")?)
        .await?;
    let confirmed = matches!(
        answer.content.as_ref().and_then(|c| c.get("ok")),
        Some(ElicitValue::Boolean(true))
    );
    // On 2026-07-28 the answer comes in a retry, with the state of the round that asked; on
    // earlier revisions it comes at once, with no state.
    let fresh = !cx.protocol_version().has_initialize();
    Ok(confirmed && (!fresh || carried.is_some_and(|k| k.kind == kind)))
}

async fn request_state(cx: Context) -> Result<String, HandlerError> {
    Ok(if confirm(&cx, "request-state").await? {
        "state-ok: requestState validated".to_owned()
    } else {
        "state-not-confirmed".to_owned()
    })
}

async fn tampered_state(cx: Context) -> Result<String, HandlerError> {
    // A tampered `requestState` never reaches here: the server refuses it (-32602).
    Ok(if confirm(&cx, "tamper-test").await? {
        "integrity-ok: state verified".to_owned()
    } else {
        "integrity-not-confirmed".to_owned()
    })
}

async fn multiple_inputs(cx: Context) -> Result<String, HandlerError> {
    let name = cx.elicit_keyed("user_name", form("What is your name?", "name", "string")?);
    let greeting = cx.sample_keyed("greeting", sample("Generate a greeting", 50));
    let roots = cx.list_roots_keyed("client_roots");
    // Joined, so all three are asked for in the same round.
    let ((name, greeting), roots) = join(join(name, greeting), roots).await;
    let (name, greeting, roots) = (name?, greeting?, roots?);
    Ok(format!(
        "Name: {}; Greeting: {}; Roots: {}",
        text_of(&name, "name"),
        greeting.content.first_text().unwrap_or("Hello there!"),
        roots.roots.len()
    ))
}

async fn multi_round(cx: Context) -> Result<String, HandlerError> {
    let name = cx
        .elicit_keyed(
            "step1",
            form("Step 1: What is your name?", "name", "string")?,
        )
        .await?;
    let color = cx
        .elicit_keyed(
            "step2",
            form("Step 2: What is your favorite color?", "color", "string")?,
        )
        .await?;
    Ok(format!(
        "Multi-round complete for {} who likes {}",
        text_of(&name, "name"),
        text_of(&color, "color")
    ))
}

/// Asks only for what this request's client declared.
async fn capabilities(cx: Context) -> Result<String, HandlerError> {
    let caps = cx.client_capabilities();
    let (can_elicit, can_sample) = (caps.supports_elicitation_form(), caps.supports_sampling());
    if !can_elicit && !can_sample {
        return Ok("No supported capabilities declared".to_owned());
    }
    let elicit = async {
        if can_elicit {
            let form = form("Elicitation input", "value", "string")?;
            cx.elicit_keyed("elicit_input", form).await?;
            return Ok::<_, HandlerError>(Some("elicit_input"));
        }
        Ok(None)
    };
    let sample = async {
        if can_sample {
            cx.sample_keyed("sample_input", sample("Sample request", 50))
                .await?;
            return Ok::<_, HandlerError>(Some("sample_input"));
        }
        Ok(None)
    };
    let (elicited, sampled) = join(elicit, sample).await;
    let received: Vec<&str> = [elicited?, sampled?].into_iter().flatten().collect();
    Ok(format!("capabilities-ok: received {}", received.join(",")))
}

/// Needs sampling: on 2026-07-28 a request that did not declare it gets -32021.
async fn missing_capability(cx: Context) -> Result<&'static str, Error> {
    if !cx.client_capabilities().supports_sampling() {
        return Err(Error::CapabilityNotDeclared("sampling"));
    }
    Ok("Success")
}

/// Reports progress if asked to, and sends no request to the client.
async fn streaming(cx: Context) -> Result<&'static str, HandlerError> {
    cx.report_progress(50.0, Some(100.0), None).await?;
    Ok("Streaming complete")
}

/// Logs only when the request asked for log messages (its `_meta` log level).
async fn logging(cx: Context) -> Result<&'static str, HandlerError> {
    cx.log(
        LoggingLevel::Info,
        None,
        "Diagnostic trace logging activated",
    )
    .await?;
    Ok("Logging evaluated")
}

#[derive(Deserialize)]
struct Region {
    region: String,
}

/// The names of the tools and prompt of this module.
const MODERN_ONLY: &[&str] = &[
    "test_missing_capability",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_custom_header",
    "test_input_required_result_prompt",
];

/// Whether the tool or prompt `name` is offered to the request of `cx`: those of this module
/// on 2026-07-28 only, the others always.
pub(crate) fn offered(name: &str, cx: &Context) -> bool {
    !MODERN_ONLY.contains(&name) || cx.protocol_version().era() == Era::Stateless
}

/// The 2026-07-28 tools, in the reference server's order.
pub(crate) fn tools() -> anyhow::Result<Vec<Tool>> {
    let region_schema = json!({
        "type": "object",
        "properties": {"region": {
            "type": "string",
            "description": "Mirrored into the Mcp-Param-Region header",
            "x-mcp-header": "Region",
        }},
        "required": ["region"],
    });
    Ok(vec![
        Tool::new("test_missing_capability", missing_capability)
            .description("Test tool requiring sampling"),
        Tool::new("test_input_required_result_elicitation", elicitation)
            .description("MRTR: returns InputRequiredResult with elicitation request"),
        Tool::new("test_input_required_result_sampling", sampling)
            .description("MRTR: returns InputRequiredResult with sampling request"),
        Tool::new("test_input_required_result_list_roots", list_roots)
            .description("MRTR: returns InputRequiredResult with roots/list request"),
        Tool::new("test_input_required_result_request_state", request_state)
            .description("MRTR: returns InputRequiredResult with requestState"),
        Tool::new(
            "test_input_required_result_multiple_inputs",
            multiple_inputs,
        )
        .description("MRTR: returns InputRequiredResult with multiple input requests"),
        Tool::new("test_input_required_result_multi_round", multi_round)
            .description("MRTR: multi-round InputRequiredResult workflow"),
        Tool::new("test_input_required_result_tampered_state", tampered_state)
            .description("MRTR: HMAC-signed requestState integrity test"),
        Tool::new("test_input_required_result_capabilities", capabilities)
            .description("MRTR: respects client capabilities in inputRequests"),
        Tool::new("test_streaming_elicitation", streaming)
            .description("Diagnostic tool validating response progress streams"),
        Tool::new("test_logging_tool", logging).description("Diagnostic logging validator tool"),
        Tool::new("test_trigger_tool_change", |server: Server| async move {
            server.notify_tools_changed();
            "Mutation triggered"
        })
        .description("Tells subscription streams that the tool list changed"),
        Tool::new("test_trigger_prompt_change", |server: Server| async move {
            server.notify_prompts_changed();
            "Mutation triggered"
        })
        .description("Tells subscription streams that the prompt list changed"),
        Tool::with_schema(
            "test_custom_header",
            serde_json::from_value(region_schema)?,
            |args: Region| async move { format!("Region: {}", args.region) },
        )
        .description("Tests x-mcp-header mirroring of an argument into Mcp-Param-Region"),
    ])
}

/// `test_input_required_result_prompt`: asks for the prompt's context first.
pub(crate) fn prompt() -> Prompt {
    Prompt::new(
        "test_input_required_result_prompt",
        |cx: Context| async move {
            let form = form("What context should the prompt use?", "context", "string")?;
            let answer = cx.elicit_keyed("user_context", form).await?;
            let text = format!("Prompt with context: {}", text_of(&answer, "context"));
            Ok::<_, HandlerError>(vec![PromptMessage::user_text(text)])
        },
    )
    .description("MRTR: prompt that requires elicitation input")
}
