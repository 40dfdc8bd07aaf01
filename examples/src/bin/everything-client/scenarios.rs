//! What each scenario does once the client is connected (in the era the suite asked for):
//!
//! - `initialize`: a tool listing, then a clean close.
//! - `tools_call` (also `tools-call`), `auth/*`: lists the tools and calls the first, with
//!   `{a: 2, b: 3}` (the suite's `add_numbers`; other tools ignore them).
//! - `sse-retry`: calls `test_reconnection`, whose SSE stream the server closes before the
//!   result, so the transport resumes it with GET and `Last-Event-ID` after `retry`.
//! - `elicitation-sep1034-client-defaults` (also `elicitation-defaults`): calls
//!   `test_client_elicitation_defaults`; the form is accepted empty and the library fills in
//!   the schema's defaults.
//! - `request-metadata`: lists the tools (connecting already sent `server/discover` with the
//!   full `_meta`, and again at the version a -32022 refusal names).
//! - `sep-2322-client-request-state`: calls the four `test_mrtr_*` tools, the echoing one and
//!   the unrelated one at the same time; their `input_required` results are answered by the
//!   elicitation handler.
//! - `http-standard-headers`: one call of each kind that carries `Mcp-Method` and `Mcp-Name`:
//!   tools, resources and prompts, listed then used.
//! - `http-custom-headers`: the `toolCalls` of `MCP_CONFORMANCE_CONTEXT`, arguments verbatim
//!   (their `x-mcp-header` ones go as `Mcp-Param-*`).
//! - `http-invalid-tool-headers`: calls every tool the library kept (it drops those with
//!   invalid `x-mcp-header` annotations).
//! - `json-schema-ref-no-deref`: lists the tools (nothing follows a `$ref`).
//! - `json-schema-2020-12-preservation`: echoes the 2020-12 tool's input schema, as received,
//!   through `json_schema_echo`.
//! - `sep-2640-client-no-prefetch` (Skills extension): lists the skills and holds each entry
//!   (a host's registry), reading no file.
//! - `sep-2640-client-verify-digest`, `-verify-size`, `-verify-frontmatter`: loads every
//!   listed skill as a host does: its `SKILL.md` first, verified against the entry (size,
//!   digest, frontmatter), then its other files, each verified. A skill that fails
//!   verification is refused (logged) and none of its other files is read; the scenario
//!   still succeeds, as a host refusing a tampered skill is working as it should.

use anyhow::{Context as _, bail};
use futures::TryStreamExt as _;
use mcp_client::skills::HeldSkill;
use mcp_client::{Client, Error};
use mcp_types::{JsonObject, Tool};
use serde_json::{Value, json};

/// The scenarios this client implements, as the suite names them (and `auth/*`).
pub(crate) const NAMES: &[&str] = &[
    "initialize",
    "tools_call",
    "tools-call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
    "elicitation-defaults",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

pub(crate) fn is_known(scenario: &str) -> bool {
    NAMES.contains(&scenario) || scenario.starts_with("auth/")
}

pub(crate) async fn run(scenario: &str, client: &Client) -> anyhow::Result<()> {
    match scenario {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => {
            list_tools(client).await.map(drop)
        }
        "sse-retry" => call(client, "test_reconnection", JsonObject::new()).await,
        "elicitation-sep1034-client-defaults" | "elicitation-defaults" => {
            call(
                client,
                "test_client_elicitation_defaults",
                JsonObject::new(),
            )
            .await
        }
        "sep-2322-client-request-state" => request_state(client).await,
        "http-standard-headers" => standard_headers(client).await,
        "http-custom-headers" => custom_headers(client).await,
        "http-invalid-tool-headers" => invalid_tool_headers(client).await,
        "json-schema-2020-12-preservation" => schema_echo(client).await,
        "sep-2640-client-no-prefetch" => hold_skills(client).await.map(drop),
        "sep-2640-client-verify-digest"
        | "sep-2640-client-verify-size"
        | "sep-2640-client-verify-frontmatter" => load_skills(client).await,
        // tools_call, tools-call, auth/*
        _ => call_first_tool(client).await,
    }
}

async fn list_tools(client: &Client) -> anyhow::Result<Vec<Tool>> {
    client
        .list_tools_stream()
        .try_collect()
        .await
        .context("tools/list failed")
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Calls tool `name` with `arguments`; a result with `isError` is a failure.
async fn call(client: &Client, name: &str, arguments: JsonObject) -> anyhow::Result<()> {
    let result = client
        .call_tool((name, arguments))
        .await
        .with_context(|| format!("tools/call {name} failed"))?;
    tracing::info!(tool = name, content = ?result.content, is_error = ?result.is_error, "tool result");
    if result.is_error == Some(true) {
        bail!("tool {name} returned isError: {:?}", result.content);
    }
    Ok(())
}

async fn call_first_tool(client: &Client) -> anyhow::Result<()> {
    let tools = list_tools(client).await?;
    let tool = tools.first().context("the server lists no tools")?;
    call(client, &tool.name, object(json!({"a": 2, "b": 3}))).await
}

async fn request_state(client: &Client) -> anyhow::Result<()> {
    list_tools(client).await?;
    let (echo, unrelated) = tokio::join!(
        call(client, "test_mrtr_echo_state", JsonObject::new()),
        call(client, "test_mrtr_unrelated", JsonObject::new()),
    );
    echo?;
    unrelated?;
    call(client, "test_mrtr_no_state", JsonObject::new()).await?;
    call(client, "test_mrtr_no_result_type", JsonObject::new()).await
}

async fn standard_headers(client: &Client) -> anyhow::Result<()> {
    let tools = list_tools(client).await?;
    let tool = tools.first().context("no tool")?;
    call(client, &tool.name, JsonObject::new()).await?;
    let resources = client.list_resources(None).await?.resources;
    let resource = resources.first().context("no resource")?;
    client.read_resource(resource.uri.clone()).await?;
    let prompts = client.list_prompts(None).await?.prompts;
    let prompt = prompts.first().context("no prompt")?;
    client.get_prompt(&prompt.name).await?;
    Ok(())
}

async fn custom_headers(client: &Client) -> anyhow::Result<()> {
    list_tools(client).await?;
    let context = crate::context()?;
    let calls = context["toolCalls"]
        .as_array()
        .context("MCP_CONFORMANCE_CONTEXT has no toolCalls")?;
    for planned in calls {
        let name = planned["name"]
            .as_str()
            .context("a tool call without a name")?;
        call(client, name, object(planned["arguments"].clone())).await?;
    }
    Ok(())
}

async fn invalid_tool_headers(client: &Client) -> anyhow::Result<()> {
    for tool in list_tools(client).await? {
        let region = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.get("region"))
            .is_some();
        let arguments = if region {
            object(json!({"region": "us-west1"}))
        } else {
            JsonObject::new()
        };
        call(client, &tool.name, arguments).await?;
    }
    Ok(())
}

async fn schema_echo(client: &Client) -> anyhow::Result<()> {
    let tools = list_tools(client).await?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .context("no json_schema_2020_12_tool")?;
    let schema = Value::Object(focal.input_schema.clone());
    call(
        client,
        "json_schema_echo",
        object(json!({"schema": schema})),
    )
    .await
}

/// The label this host gives the server it tests (skills are keyed by it and their URI).
const SERVER_LABEL: &str = "conformance";

/// Lists the skills and holds each entry, reading no file; an entry that cannot be held is
/// refused (logged).
async fn hold_skills(client: &Client) -> anyhow::Result<Vec<HeldSkill>> {
    let entries: Vec<_> = client
        .list_skills_stream()
        .try_collect()
        .await
        .context("skills/list failed")?;
    if entries.is_empty() {
        bail!("the server lists no skills");
    }
    let mut held = Vec::new();
    for entry in entries {
        let uri = entry.uri.clone();
        match client.hold_skill(SERVER_LABEL, entry) {
            Ok(skill) => {
                tracing::info!(skill = %skill.key(), name = skill.name(), "holding skill");
                held.push(skill);
            }
            Err(Error::Skill(refused)) => tracing::warn!(%uri, "refusing skill: {refused}"),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(held)
}

/// Loads every skill: `SKILL.md`, then the other listed files, each verified; stops at a
/// skill's first verification failure and refuses that skill.
async fn load_skills(client: &Client) -> anyhow::Result<()> {
    for skill in hold_skills(client).await? {
        match load_skill(&skill).await {
            Ok(files) => {
                tracing::info!(skill = %skill.key(), files, "skill loaded, every file verified")
            }
            Err(Error::Skill(refused)) => tracing::warn!(
                skill = %skill.key(),
                refresh = refused.needs_refresh(),
                "refusing skill: {refused}"
            ),
            Err(e) => return Err(e).with_context(|| format!("loading {}", skill.key())),
        }
    }
    Ok(())
}

async fn load_skill(skill: &HeldSkill) -> Result<usize, Error> {
    let instructions = skill.load().await?;
    tracing::info!(skill = %skill.key(), bytes = instructions.bytes().len(), "SKILL.md verified");
    let mut files = 1;
    for file in skill.files().unwrap_or_default() {
        if file.uri != skill.uri() {
            skill.read(&file.uri).await?;
            files += 1;
        }
    }
    Ok(files)
}
