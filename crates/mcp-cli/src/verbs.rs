//! The commands that talk to a server: connect, ask, print, close.

use std::io::{IsTerminal as _, Write as _};

use anyhow::anyhow;
use base64::Engine as _;
use clap::CommandFactory as _;
use futures::TryStreamExt as _;
use mcp_client::CallOptions;
use mcp_client::types::{
    CompleteRequestParams, CompletionContext, Era, PromptReference, ResourceTemplateReference,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::args;
use crate::cli::{
    CallArgs, Cli, CompleteArgs, CompletionsArgs, OutputArgs, PromptArgs, ReadArgs, Session,
    SkillsArgs,
};
use crate::connect::{Connected, connect};
use crate::exit::{Exit, Failure};
use crate::render::{self, Style};

/// The style of stdout: bold names on a terminal, unless `NO_COLOR` is set.
fn style() -> Style {
    Style {
        color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

/// Writes `text` on stdout. A closed stdout (`| head`) is not an error of the command.
fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Prints `value` as JSON (`--json`: indented on a terminal, one line otherwise), or what
/// `human` makes of it.
fn emit(output: &OutputArgs, value: &Value, human: impl FnOnce(Style) -> String) {
    if output.json {
        let text = if std::io::stdout().is_terminal() {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        };
        print(&format!("{}\n", text.unwrap_or_default()));
    } else {
        print(&human(style()));
    }
}

/// `value` as JSON (the SDK's types always serialize).
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The outcome of a call on `connected`, which is then closed.
async fn finish<T>(
    connected: Connected,
    what: &str,
    result: mcp_client::Result<T>,
) -> Result<T, Failure> {
    let outcome = result.map_err(|e| connected.failure(what, e));
    connected.close().await;
    outcome
}

/// `mcp tools`.
pub(crate) async fn tools(session: Session) -> Result<Exit, Failure> {
    let connected = connect(&session).await?;
    let listed = connected
        .client
        .list_tools_stream()
        .try_collect::<Vec<_>>()
        .await;
    let tools = to_json(&finish(connected, "tools/list", listed).await?);
    emit(&session.output, &json!({ "tools": tools }), |style| {
        render::tools(&tools, style)
    });
    Ok(Exit::Ok)
}

/// `mcp call`.
pub(crate) async fn call(args: CallArgs) -> Result<Exit, Failure> {
    let CallArgs {
        tool,
        args: pairs,
        json_args,
        session,
    } = args;
    let base = match &json_args {
        Some(text) => args::json_object(text).map_err(Failure::usage)?,
        None => Default::default(),
    };
    let connected = connect(&session).await?;
    let client = &connected.client;
    // The tool's input schema says what type each `--arg` value is.
    let schema = if pairs.is_empty() {
        None
    } else {
        match client.list_tools_stream().try_collect::<Vec<_>>().await {
            Ok(tools) => tools
                .into_iter()
                .find(|t| t.name == tool)
                .map(|t| to_json(&t.input_schema)),
            Err(e) => {
                let failure = connected.failure("tools/list", e);
                connected.close().await;
                return Err(failure);
            }
        }
    };
    let arguments = match args::tool_arguments(base, &pairs, schema.as_ref()) {
        Ok(arguments) => arguments,
        Err(e) => {
            connected.close().await;
            return Err(Failure::usage(e));
        }
    };
    let call = (tool.as_str(), Value::Object(arguments));
    let result = if session.output.quiet {
        client.call_tool_with(call, CallOptions::new()).await
    } else {
        let (mut progress, call) = client.call_tool_with_progress(call, CallOptions::new());
        let watch = async {
            while let Some(p) = progress.recv().await {
                crate::progress::show(&p);
            }
        };
        let (result, ()) = tokio::join!(call, watch);
        crate::progress::clear();
        result
    };
    let result = finish(connected, &format!("tools/call {tool}"), result).await?;
    let failed = result.is_error == Some(true);
    let result = to_json(&result);
    emit(&session.output, &result, |_| render::call_result(&result));
    if failed {
        if !session.output.json {
            crate::progress::line(&format!("mcp: the tool {tool} reported an error"));
        }
        return Ok(Exit::ToolError);
    }
    Ok(Exit::Ok)
}

/// `mcp resources`: the resources, then the templates.
pub(crate) async fn resources(session: Session) -> Result<Exit, Failure> {
    let connected = connect(&session).await?;
    let client = &connected.client;
    let listed = match client.list_resources_stream().try_collect::<Vec<_>>().await {
        Ok(resources) => client
            .list_resource_templates_stream()
            .try_collect::<Vec<_>>()
            .await
            .map(|templates| (resources, templates)),
        Err(e) => Err(e),
    };
    let (resources, templates) = finish(connected, "resources/list", listed).await?;
    let (resources, templates) = (to_json(&resources), to_json(&templates));
    let value = json!({"resources": resources, "resourceTemplates": templates});
    emit(&session.output, &value, |style| {
        render::resources(&resources, &templates, style)
    });
    Ok(Exit::Ok)
}

/// `mcp read`: text on stdout; a single binary content as its bytes when stdout is not a
/// terminal (`mcp read URI > file`).
pub(crate) async fn read(args: ReadArgs) -> Result<Exit, Failure> {
    let connected = connect(&args.session).await?;
    let read = connected.client.read_resource(args.uri.as_str()).await;
    let result = to_json(&finish(connected, &format!("resources/read {}", args.uri), read).await?);
    let contents = result["contents"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if let [only] = contents
        && let Some(blob) = only.get("blob").and_then(Value::as_str)
        && !args.session.output.json
        && !std::io::stdout().is_terminal()
    {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| {
                Failure::call(
                    "resources/read",
                    mcp_client::Error::Protocol {
                        method: "resources/read".to_owned(),
                        message: format!("the blob is not base64: {e}"),
                    },
                )
            })?;
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&bytes);
        let _ = stdout.flush();
        return Ok(Exit::Ok);
    }
    emit(&args.session.output, &result, |_| {
        render::read_result(&result)
    });
    Ok(Exit::Ok)
}

/// `mcp prompts`.
pub(crate) async fn prompts(session: Session) -> Result<Exit, Failure> {
    let connected = connect(&session).await?;
    let listed = connected
        .client
        .list_prompts_stream()
        .try_collect::<Vec<_>>()
        .await;
    let prompts = to_json(&finish(connected, "prompts/list", listed).await?);
    emit(&session.output, &json!({ "prompts": prompts }), |style| {
        render::prompts(&prompts, style)
    });
    Ok(Exit::Ok)
}

/// `mcp prompt`.
pub(crate) async fn prompt(args: PromptArgs) -> Result<Exit, Failure> {
    let base = match &args.json_args {
        Some(text) => args::json_object(text).map_err(Failure::usage)?,
        None => Default::default(),
    };
    let arguments = args::prompt_arguments(base, &args.args);
    let connected = connect(&args.session).await?;
    let got = connected
        .client
        .get_prompt((args.name.as_str(), Value::Object(arguments)))
        .await;
    let result = to_json(&finish(connected, &format!("prompts/get {}", args.name), got).await?);
    emit(&args.session.output, &result, |_| {
        render::prompt_result(&result)
    });
    Ok(Exit::Ok)
}

/// `mcp complete`.
pub(crate) async fn complete(args: CompleteArgs) -> Result<Exit, Failure> {
    let mut params = match (&args.prompt, &args.template) {
        (Some(prompt), _) => CompleteRequestParams::new(
            PromptReference::new(prompt.as_str()),
            args.argument.as_str(),
            args.value.as_str(),
        ),
        (None, Some(template)) => CompleteRequestParams::new(
            ResourceTemplateReference::new(template.as_str()),
            args.argument.as_str(),
            args.value.as_str(),
        ),
        (None, None) => return Err(Failure::usage(anyhow!("give --prompt or --template"))),
    };
    if !args.context.is_empty() {
        let mut context = CompletionContext::default();
        context.arguments = Some(args.context.iter().cloned().collect());
        params.context = Some(context);
    }
    let connected = connect(&args.session).await?;
    let completed = connected.client.complete(params).await;
    let result = to_json(&finish(connected, "completion/complete", completed).await?);
    emit(&args.session.output, &result, |_| {
        render::completion(&result)
    });
    if !args.session.output.json {
        let completion = &result["completion"];
        let shown = completion["values"].as_array().map_or(0, Vec::len);
        let more = completion["hasMore"] == true;
        match completion["total"].as_u64() {
            Some(total) if total > shown as u64 => {
                crate::progress::line(&format!("({shown} of {total} shown)"));
            }
            _ if more => crate::progress::line(&format!("({shown} shown; the server has more)")),
            _ => {}
        }
    }
    Ok(Exit::Ok)
}

/// `mcp skills`: the list, or one skill's `SKILL.md`, verified against its entry.
pub(crate) async fn skills(args: SkillsArgs) -> Result<Exit, Failure> {
    let connected = connect(&args.session).await?;
    let Some(uri) = &args.uri else {
        let listed = connected
            .client
            .list_skills_stream()
            .try_collect::<Vec<_>>()
            .await;
        let skills = to_json(&finish(connected, "skills/list", listed).await?);
        emit(
            &args.session.output,
            &json!({ "skills": skills }),
            |style| render::skills(&skills, style),
        );
        return Ok(Exit::Ok);
    };
    let loaded = async {
        let entry = connected.client.get_skill(uri.as_str()).await?.skill;
        let held = connected
            .client
            .hold_skill(connected.label.clone(), entry.clone())?;
        let file = if held.is_dynamic() {
            held.load_unverified().await?
        } else {
            held.load().await?
        };
        Ok((entry, file))
    }
    .await;
    let (entry, file) = finish(connected, &format!("skills/get {uri}"), loaded).await?;
    let text = String::from_utf8_lossy(file.bytes()).into_owned();
    let value = json!({
        "skill": to_json(&entry),
        "uri": file.uri(),
        "mimeType": file.mime_type(),
        "verified": file.is_verified(),
        "text": text,
    });
    emit(&args.session.output, &value, |_| {
        let mut text = text.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    });
    if !file.is_verified() && !args.session.output.json {
        crate::progress::line("mcp: a dynamic skill: its SKILL.md could not be verified");
    }
    Ok(Exit::Ok)
}

/// `mcp info`: what the opening exchange told.
pub(crate) async fn info(session: Session) -> Result<Exit, Failure> {
    let connected = connect(&session).await?;
    let client = &connected.client;
    let value = json!({
        "serverInfo": to_json(client.server_info()),
        "protocolVersion": client.protocol_version().as_str(),
        "era": match client.era() {
            Era::Stateless => "stateless",
            _ => "stateful",
        },
        "capabilities": to_json(client.server_capabilities()),
        "instructions": client.instructions(),
    });
    connected.close().await;
    emit(&session.output, &value, |style| render::info(&value, style));
    Ok(Exit::Ok)
}

/// `mcp completions SHELL`.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<Exit, Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "mcp", &mut script);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&script);
    let _ = stdout.flush();
    Ok(Exit::Ok)
}
