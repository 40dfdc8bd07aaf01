//! Integration tests of `mcp-server`, through its public API and a raw JSON-RPC client.

#[cfg(feature = "apps")]
mod apps;
mod client_requests;
mod completion;
mod custom_methods;
mod dynamic;
mod errors;
mod handlers;
mod lifecycle;
mod logging;
mod middleware;
mod modern;
mod pagination;
mod prompts;
mod resources;
mod serving;
mod session_store;
#[cfg(feature = "skills")]
mod skills;
mod states;
mod support;
mod tasks;
mod telemetry;
mod tools;
mod ui;
mod visibility;

use mcp_server::types::{
    ContentBlock, EmbeddedResource, ImageContent, JsonObject, PromptMessage, Role,
    TextResourceContents, ToolAnnotations,
};
use mcp_server::{
    Context, Error, HandlerError, Json, Prompt, PromptArguments, Resource, ResourceTemplate,
    Server, Tool, UriParams,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AddArgs {
    /// The first number.
    pub(crate) a: i64,
    /// The second number.
    pub(crate) b: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Sum {
    pub(crate) sum: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FailArgs {
    pub(crate) reason: String,
}

/// The JSON Schema 2020-12 fixture of the conformance suite.
pub(crate) fn schema_2020_12() -> serde_json::Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": { "address": { "$anchor": "addressDef", "type": "object",
            "properties": { "street": {"type":"string"}, "city": {"type":"string"} } } },
        "properties": {
            "name": {"type":"string"},
            "address": {"$ref":"#/$defs/address"},
            "contactMethod": {"type":"string","enum":["phone","email"]},
            "phone": {"type":"string"},
            "email": {"type":"string"}
        },
        "allOf": [ { "anyOf": [ {"required":["phone"]}, {"required":["email"]} ] } ],
        "if": { "properties": { "contactMethod": {"const":"phone"} }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

pub(crate) const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0, 1, 2, 255];

/// A server exercising every feature.
pub(crate) fn fixture() -> Server {
    Server::builder()
        .name("fixture")
        .version("9.9.9")
        .instructions("Use the tools.")
        .tool(
            Tool::typed("add", |args: AddArgs, _cx: Context| async move {
                Ok::<_, HandlerError>(args.a + args.b)
            })
            .description("Adds two numbers")
            .title("Add")
            .annotations(ToolAnnotations::default().with_read_only_hint(true)),
        )
        .tool(
            Tool::typed("sum", |args: AddArgs, _cx: Context| async move {
                Json(Sum {
                    sum: args.a + args.b,
                })
            })
            .description("Adds, with structured output"),
        )
        .tool(
            Tool::typed("fail", |args: FailArgs, _cx: Context| async move {
                Err::<String, _>(HandlerError::msg(format!("failed: {}", args.reason)))
            })
            .description("Always fails"),
        )
        .tool(
            Tool::raw("contact", schema_2020_12(), |args: JsonObject| async move {
                format!("contact {}", serde_json::Value::Object(args))
            })
            .expect("valid schema")
            .description("JSON Schema 2020-12"),
        )
        .tool(
            Tool::new("mixed", || async {
                vec![
                    ContentBlock::text("mixed"),
                    ContentBlock::Image(ImageContent::new("aGk=", "image/png")),
                    ContentBlock::audio("aGk=", "audio/wav"),
                    ContentBlock::resource(TextResourceContents::new(
                        "test://embedded",
                        "embedded",
                    )),
                ]
            })
            .description("Every content kind"),
        )
        .resource(
            Resource::text("test://static-text", "static-text", "static text")
                .mime_type("text/plain")
                .description("A text resource"),
        )
        .resource(
            Resource::blob("test://static-binary", "static-binary", PNG).mime_type("image/png"),
        )
        .resource(Resource::new(
            "test://missing",
            "missing",
            |_cx: Context| async { Err::<String, _>(Error::resource_not_found("test://missing")) },
        ))
        .resource_template(
            ResourceTemplate::new(
                "test://template/{id}/data",
                "template",
                |p: UriParams, _cx: Context| async move {
                    format!(r#"{{"id":"{}"}}"#, p.get("id").unwrap_or_default())
                },
            )
            .expect("valid template")
            .mime_type("application/json")
            .complete_values("id", (0..150).map(|i| format!("{i:03}"))),
        )
        .prompt(
            Prompt::new("simple", |_cx: Context| async { "simple prompt" })
                .description("No arguments"),
        )
        .prompt(
            Prompt::new("greet", |args: PromptArguments, _cx: Context| async move {
                let mut text = format!("Hello {}", args["name"]);
                if let Some(style) = args.get("style") {
                    text.push_str(&format!(" ({style})"));
                }
                vec![
                    PromptMessage::user_text(text),
                    PromptMessage::new(Role::User, ImageContent::new("aGk=", "image/png")),
                    PromptMessage::new(
                        Role::Assistant,
                        EmbeddedResource::new(TextResourceContents::new("test://r", "embedded")),
                    ),
                ]
            })
            .description("Greets")
            .argument("name", "Who to greet", true)
            .argument("style", "How", false)
            .complete_values("style", ["formal", "friendly", "funny"]),
        )
        .build()
}
