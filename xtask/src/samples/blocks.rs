//! The revision-shaped building blocks of the samples, as methods of [`Samples`]: the
//! per-request `_meta`, `Implementation`s, icons, annotations, client and server capabilities,
//! content blocks and the weather tool, each with every field the revision has.

use std::collections::BTreeMap;

use mcp_types::{
    Annotations, AudioContent, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY,
    ClientCapabilities, ClientTaskRequestsCapability, ClientTasksCapability, ContentBlock,
    ElicitationCapability, ElicitationTasksCapability, EmbeddedResource, Icon, IconTheme,
    ImageContent, Implementation, JsonObject, Meta, PROTOCOL_VERSION_META_KEY, PromptsCapability,
    ResourceLink, ResourcesCapability, Role, RootsCapability, SUBSCRIPTION_ID_META_KEY,
    SamplingCapability, SamplingTasksCapability, ServerCapabilities, ServerTaskRequestsCapability,
    ServerTasksCapability, TASKS_EXTENSION, TextContent, Tool, ToolAnnotations, ToolExecution,
    ToolTaskSupport, ToolsCapability, ToolsTasksCapability,
};
use serde_json::json;

use super::Samples;
use super::values::{
    LISTEN_ID, PNG, WAV, blob_contents, meta_entry, object, text_contents, to_json,
};

impl Samples<'_> {
    /// The `_meta` every 2026-07-28 request carries: protocol version, client software and
    /// client capabilities.
    pub(super) fn request_meta(&self) -> Meta {
        let client = self.implementation("example-client", "Example Client");
        let mut meta = Meta::new();
        meta.insert(PROTOCOL_VERSION_META_KEY.to_owned(), to_json(self.rev));
        meta.insert(CLIENT_INFO_META_KEY.to_owned(), to_json(&client));
        meta.insert(
            CLIENT_CAPABILITIES_META_KEY.to_owned(),
            to_json(&self.client_capabilities()),
        );
        meta
    }

    /// `_meta` naming the `subscriptions/listen` stream a 2026-07-28 notification belongs to.
    pub(super) fn subscription_meta(&self) -> Option<Meta> {
        (!self.stateful()).then(|| meta_entry(SUBSCRIPTION_ID_META_KEY, json!(LISTEN_ID)))
    }

    /// A client or server named `name`, with every field the revision has.
    pub(super) fn implementation(&self, name: &str, title: &str) -> Implementation {
        {
            let mut built = Implementation::new(name, "1.4.2");
            built.title = self.since_2025_06_18().then(|| title.to_owned());
            built.description = self
                .since_2025_11_25()
                .then(|| format!("{title}, used in the spec-check samples"));
            built.icons = self.icons("app");
            built.website_url = self
                .since_2025_11_25()
                .then(|| "https://example.com/mcp".to_owned());
            built
        }
    }

    /// A light and a dark icon named `name`, on revisions with icons.
    pub(super) fn icons(&self, name: &str) -> Option<Vec<Icon>> {
        let icon = |theme: IconTheme, suffix: &str| {
            let mut built = Icon::default();
            built.src = format!("https://example.com/icons/{name}-{suffix}.png");
            built.mime_type = Some("image/png".to_owned());
            built.sizes = Some(vec!["48x48".to_owned(), "96x96".to_owned()]);
            built.theme = Some(theme);
            built
        };
        self.since_2025_11_25().then(|| {
            vec![
                icon(IconTheme::Light, "light"),
                icon(IconTheme::Dark, "dark"),
            ]
        })
    }

    /// Content annotations with every field the revision has.
    pub(super) fn annotations(&self) -> Annotations {
        {
            let mut built = Annotations::default();
            built.audience = Some(vec![Role::User, Role::Assistant]);
            built.priority = Some(0.7);
            built.last_modified = self
                .since_2025_06_18()
                .then(|| "2025-05-01T12:00:00Z".to_owned());
            built
        }
    }

    /// A client supporting everything the revision lets it declare.
    pub(super) fn client_capabilities(&self) -> ClientCapabilities {
        let empty = || Some(JsonObject::new());
        {
            let mut built = ClientCapabilities::default();
            built.extensions = (!self.stateful()).then(|| extension(TASKS_EXTENSION));
            built.roots = Some({
                let mut built = RootsCapability::default();
                built.list_changed = self.stateful().then_some(true);
                built
            });
            built.sampling = Some({
                let mut built = SamplingCapability::default();
                built.context = self.since_2025_11_25().then(JsonObject::new);
                built.tools = self.since_2025_11_25().then(JsonObject::new);
                built
            });
            built.elicitation = self.rev.has_elicitation().then(|| {
                let mut built = ElicitationCapability::default();
                built.form = self.rev.has_url_elicitation().then(JsonObject::new);
                built.url = self.rev.has_url_elicitation().then(JsonObject::new);
                built
            });
            built.tasks = self.rev.has_core_tasks().then(|| {
                let mut built = ClientTasksCapability::default();
                built.list = empty();
                built.cancel = empty();
                built.requests = Some({
                    let mut built = ClientTaskRequestsCapability::default();
                    built.sampling = Some({
                        let mut built = SamplingTasksCapability::default();
                        built.create_message = empty();
                        built
                    });
                    built.elicitation = Some({
                        let mut built = ElicitationTasksCapability::default();
                        built.create = empty();
                        built
                    });
                    built
                });
                built
            });
            built
        }
    }

    /// A server supporting everything the revision lets it declare.
    pub(super) fn server_capabilities(&self) -> ServerCapabilities {
        let empty = || Some(JsonObject::new());
        {
            let mut built = ServerCapabilities::default();
            built.extensions = (!self.stateful()).then(|| extension(TASKS_EXTENSION));
            built.logging = empty();
            built.completions = self.since_2025_03_26().then(JsonObject::new);
            built.prompts = Some({
                let mut built = PromptsCapability::default();
                built.list_changed = Some(true);
                built
            });
            built.resources = Some({
                let mut built = ResourcesCapability::default();
                built.subscribe = Some(true);
                built.list_changed = Some(true);
                built
            });
            built.tools = Some({
                let mut built = ToolsCapability::default();
                built.list_changed = Some(true);
                built
            });
            built.tasks = self.rev.has_core_tasks().then(|| {
                let mut built = ServerTasksCapability::default();
                built.list = empty();
                built.cancel = empty();
                built.requests = Some({
                    let mut built = ServerTaskRequestsCapability::default();
                    built.tools = Some({
                        let mut built = ToolsTasksCapability::default();
                        built.call = empty();
                        built
                    });
                    built
                });
                built
            });
            built
        }
    }

    /// One block of every content kind the revision allows in tool results and prompts.
    pub(super) fn content_blocks(&self) -> Vec<ContentBlock> {
        let mut blocks = vec![
            {
                let mut built = TextContent::new("Sunny, 22°C, light wind from the west.");
                built.annotations = Some(self.annotations());
                built.meta = self
                    .since_2025_06_18()
                    .then(|| meta_entry("com.example/source", json!("forecast-api")));
                built
            }
            .into(),
            {
                let mut built = ImageContent::new(PNG, "image/png");
                built.annotations = Some(self.annotations());
                built
            }
            .into(),
        ];
        if self.since_2025_03_26() {
            blocks.push(AudioContent::new(WAV, "audio/wav").into());
        }
        if self.since_2025_06_18() {
            blocks.push(
                {
                    let mut built = ResourceLink::new("file:///reports/today.md", "today.md");
                    built.title = Some("Weather report".to_owned());
                    built.description = Some("The full report for today".to_owned());
                    built.mime_type = Some("text/markdown".to_owned());
                    built.size = Some(2048);
                    built.annotations = Some(self.annotations());
                    built.icons = self.icons("report");
                    built
                }
                .into(),
            );
        }
        blocks.push(
            {
                let mut built = EmbeddedResource::new(text_contents());
                built.annotations = Some(self.annotations());
                built
            }
            .into(),
        );
        blocks.push(EmbeddedResource::new(blob_contents()).into());
        blocks
    }

    /// A tool with every field the revision has.
    pub(super) fn weather_tool(&self) -> Tool {
        let input_schema = object(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "units": {"type": "string", "enum": ["metric", "imperial"]}
            },
            "required": ["city"]
        }));
        let output_schema = object(json!({
            "type": "object",
            "properties": {
                "temperature": {"type": "number"},
                "conditions": {"type": "string"}
            },
            "required": ["temperature", "conditions"]
        }));
        {
            let mut built = Tool::new("get_weather", input_schema);
            built.title = self.since_2025_06_18().then(|| "Weather".to_owned());
            built.description = Some("Gets the current weather for a city".to_owned());
            built.output_schema = self.rev.has_structured_content().then_some(output_schema);
            built.annotations = self.since_2025_03_26().then(|| {
                let mut built = ToolAnnotations::default();
                built.title = Some("Weather".to_owned());
                built.read_only_hint = Some(true);
                built.destructive_hint = Some(false);
                built.idempotent_hint = Some(true);
                built.open_world_hint = Some(true);
                built
            });
            built.execution = self.rev.has_core_tasks().then(|| {
                let mut built = ToolExecution::default();
                built.task_support = Some(ToolTaskSupport::Optional);
                built
            });
            built.icons = self.icons("weather");
            built.meta = self
                .since_2025_06_18()
                .then(|| meta_entry("com.example/category", json!("weather")));
            built
        }
    }
}

/// A capability `extensions` map declaring extension `id` with no settings.
fn extension(id: &str) -> BTreeMap<String, JsonObject> {
    BTreeMap::from([(id.to_owned(), JsonObject::new())])
}
