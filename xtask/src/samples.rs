//! The typed side of spec-check: the example-folder-to-type table and the per-revision samples.
//!
//! [`for_revision`] builds every sample from typed `mcp_types` values, shaped the way the given
//! revision has them: a field or content kind the revision lacks is left out, and one it adds is
//! filled in. Only the per-request `_meta` of 2026-07-28 is added to the serialized request (see
//! [`add_request_meta`]), as the protocol layer will do.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use mcp_types::{
    Annotations, AudioContent, BlobResourceContents, BooleanSchema, CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY, CacheScope, CallTool, CallToolRequestParams, CallToolResult, CancelTask,
    Cancelled, CancelledNotificationParams, ClientCapabilities, ClientTaskRequestsCapability,
    ClientTasksCapability, Complete, CompleteRequestParams, CompleteResult, Completion,
    CompletionContext, ContentBlock, CreateMessage, CreateMessageRequestParams,
    CreateMessageResult, CreateTaskResult, Discover, DiscoverResult, Elicit, ElicitFormMode,
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams, ElicitRequestedSchema,
    ElicitResult, ElicitValue, ElicitationCapability, ElicitationComplete,
    ElicitationCompleteNotificationParams, ElicitationTasksCapability, EmbeddedResource,
    EmptyParams, EmptyResult, EnumSchema, Era, GetPrompt, GetPromptRequestParams, GetPromptResult,
    GetTask, GetTaskPayload, GetTaskPayloadResult, GetTaskRequestParams, GetTaskResult, Icon,
    IconTheme, ImageContent, Implementation, IncludeContext, Initialize, InitializeRequestParams,
    InitializeResult, Initialized, InputRequest, InputRequests, InputRequiredResult, InputResponse,
    InputResponses, JsonObject, JsonRpcResultResponse, JsonRpcVersion, LegacyTitledEnumSchema,
    ListPrompts, ListPromptsResult, ListResourceTemplates, ListResourceTemplatesResult,
    ListResources, ListResourcesResult, ListRoots, ListRootsResult, ListTasks, ListTasksResult,
    ListTools, ListToolsResult, LoggingLevel, LoggingMessage, LoggingMessageNotificationParams,
    Meta, ModelHint, ModelPreferences, MultiSelectEnumSchema, Notification, NumberSchema,
    NumberSchemaType, PROTOCOL_VERSION_META_KEY, PaginatedRequestParams, Ping,
    PrimitiveSchemaDefinition, Progress, ProgressNotificationParams, ProgressToken, Prompt,
    PromptArgument, PromptListChanged, PromptMessage, PromptReference, PromptsCapability,
    ProtocolVersion, RELATED_TASK_META_KEY, ReadResource, ReadResourceRequestParams,
    ReadResourceResult, RelatedTaskMetadata, Request, RequestId, Resource, ResourceContents,
    ResourceLink, ResourceListChanged, ResourceRequestParams, ResourceTemplate,
    ResourceTemplateReference, ResourceUpdated, ResourceUpdatedNotificationParams,
    ResourcesCapability, ResultType, Role, Root, RootsCapability, RootsListChanged,
    SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY, SamplingCapability, SamplingContent,
    SamplingMessage, SamplingMessageContentBlock, SamplingTasksCapability, ServerCapabilities,
    ServerTaskRequestsCapability, ServerTasksCapability, SetLevel, SetLevelRequestParams,
    SingleSelectEnumSchema, StringFormat, StringSchema, Subscribe, SubscriptionFilter,
    SubscriptionsAcknowledged, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListen,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, TASKS_EXTENSION, Task,
    TaskMetadata, TaskStatus, TaskStatusChanged, TaskStatusNotificationParams, TextContent,
    TextResourceContents, TitledEnumItems, TitledEnumOption, TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema, Tool, ToolAnnotations, ToolChoice, ToolChoiceMode, ToolExecution,
    ToolListChanged, ToolResultContent, ToolTaskSupport, ToolUseContent, ToolsCapability,
    ToolsTasksCapability, TypedInputRequest, TypedNotification, TypedRequest, Unsubscribe,
    UntitledEnumItems, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn rt<T: Serialize + DeserializeOwned>(v: &Value) -> Result<Value> {
    let typed: T = serde_json::from_value(v.clone())?;
    Ok(serde_json::to_value(&typed)?)
}

/// Deserializes `v` into the type named `type_name` and serializes it back.
pub(crate) fn roundtrip(type_name: &str, v: &Value) -> Result<Value> {
    macro_rules! table {
        ($($t:ident),* $(,)?) => {
            match type_name {
                $(stringify!($t) => rt::<mcp_types::$t>(v),)*
                _ => bail!("no Rust type is mapped for the example folder {type_name}: add it to xtask/src/samples.rs"),
            }
        };
    }
    table!(
        AudioContent,
        BlobResourceContents,
        BooleanSchema,
        CallToolRequest,
        CallToolRequestParams,
        CallToolResult,
        CallToolResultResponse,
        CancelledNotification,
        CancelledNotificationParams,
        ClientCapabilities,
        CompleteRequest,
        CompleteRequestParams,
        CompleteResult,
        CompleteResultResponse,
        CreateMessageRequest,
        CreateMessageRequestParams,
        CreateMessageResult,
        DiscoverRequest,
        DiscoverResult,
        DiscoverResultResponse,
        ElicitRequest,
        ElicitRequestFormParams,
        ElicitRequestURLParams,
        ElicitResult,
        EmbeddedResource,
        GetPromptRequest,
        GetPromptRequestParams,
        GetPromptResult,
        GetPromptResultResponse,
        HeaderMismatchError,
        ImageContent,
        InputRequests,
        InputRequiredResult,
        InputResponses,
        InternalError,
        InvalidParamsError,
        ListPromptsRequest,
        ListPromptsResult,
        ListPromptsResultResponse,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourceTemplatesResultResponse,
        ListResourcesRequest,
        ListResourcesResult,
        ListResourcesResultResponse,
        ListRootsRequest,
        ListRootsResult,
        ListToolsRequest,
        ListToolsResult,
        ListToolsResultResponse,
        LoggingMessageNotification,
        LoggingMessageNotificationParams,
        MethodNotFoundError,
        MissingRequiredClientCapabilityError,
        ModelPreferences,
        NumberSchema,
        PaginatedRequestParams,
        ParseError,
        ProgressNotification,
        ProgressNotificationParams,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ReadResourceResultResponse,
        Resource,
        ResourceLink,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        ResourceUpdatedNotificationParams,
        Root,
        SamplingMessage,
        ServerCapabilities,
        StringSchema,
        SubscriptionsAcknowledgedNotification,
        SubscriptionsListenRequest,
        SubscriptionsListenResult,
        SubscriptionsListenResultResponse,
        TextContent,
        TextResourceContents,
        TitledMultiSelectEnumSchema,
        TitledSingleSelectEnumSchema,
        Tool,
        ToolListChangedNotification,
        ToolResultContent,
        ToolUseContent,
        UnsupportedProtocolVersionError,
        UntitledMultiSelectEnumSchema,
        UntitledSingleSelectEnumSchema,
    )
}

/// Serialized samples of every request, result and notification revision `rev` defines, each
/// named by the schema definition it must validate against. A definition may have several.
pub(crate) fn for_revision(rev: &ProtocolVersion) -> Vec<(&'static str, Value)> {
    let mut s = Samples::new(rev);
    lifecycle(&mut s);
    tools(&mut s);
    resources(&mut s);
    prompts(&mut s);
    completion(&mut s);
    logging(&mut s);
    progress_and_cancellation(&mut s);
    roots(&mut s);
    sampling(&mut s);
    elicitation(&mut s);
    tasks(&mut s);
    subscriptions(&mut s);
    input_required(&mut s);
    s.out
}

/// The id of the `subscriptions/listen` request that 2026-07-28 notifications belong to.
const LISTEN_ID: &str = "listen-1";

/// The id of the task the 2025-11-25 task samples talk about.
const TASK_ID: &str = "786512e2-9e0d-44bd-8f29-789f320fe840";

/// The samples of one revision as they are built, with the revision's building blocks.
#[derive(Debug)]
struct Samples<'a> {
    rev: &'a ProtocolVersion,
    out: Vec<(&'static str, Value)>,
    last_id: i64,
}

impl<'a> Samples<'a> {
    /// No samples yet for revision `rev`.
    fn new(rev: &'a ProtocolVersion) -> Self {
        Samples {
            rev,
            out: Vec::new(),
            last_id: 0,
        }
    }

    // ---- revision features that `ProtocolVersion` has no method for --------------------------

    /// Whether the revision is `first` or later.
    fn since(&self, first: ProtocolVersion) -> bool {
        *self.rev >= first
    }

    /// Whether the revision has `initialize` and sessions (up to 2025-11-25).
    fn stateful(&self) -> bool {
        self.rev.era() == Era::Stateful
    }

    /// 2025-03-26 and later: audio content, tool annotations, progress messages, the
    /// completions capability.
    fn since_2025_03_26(&self) -> bool {
        self.since(ProtocolVersion::V2025_03_26)
    }

    /// 2025-06-18 and later: `title`s, `_meta` on content and definitions, resource links,
    /// completion context, `lastModified`.
    fn since_2025_06_18(&self) -> bool {
        self.since(ProtocolVersion::V2025_06_18)
    }

    /// 2025-11-25 and later: icons, richer `Implementation`s, sampling with tools, titled and
    /// multi-select enums and `default`s in form schemas.
    fn since_2025_11_25(&self) -> bool {
        self.since(ProtocolVersion::V2025_11_25)
    }

    /// `resultType: "complete"` where the revision has it.
    fn complete(&self) -> Option<ResultType> {
        self.rev.has_result_type().then_some(ResultType::Complete)
    }

    /// A cache lifetime, on revisions with cacheable results (2026-07-28).
    fn ttl_ms(&self, ms: u64) -> Option<u64> {
        (!self.stateful()).then_some(ms)
    }

    /// A cache scope, on revisions with cacheable results (2026-07-28).
    fn cache_scope(&self, scope: CacheScope) -> Option<CacheScope> {
        (!self.stateful()).then_some(scope)
    }

    // ---- pushing messages ----------------------------------------------------------------------

    /// Pushes `message` as a sample of definition `name`.
    fn push(&mut self, name: &'static str, message: &impl Serialize) {
        self.out.push((name, to_json(message)));
    }

    /// A fresh request id, alternately a string and a number.
    fn next_id(&mut self) -> RequestId {
        self.last_id += 1;
        if self.last_id % 2 == 0 {
            RequestId::Number(self.last_id)
        } else {
            RequestId::String(format!("req-{}", self.last_id))
        }
    }

    /// Pushes a whole client-to-server request for `M` and returns its id.
    fn request<M: Request>(&mut self, name: &'static str, params: M::Params) -> RequestId {
        let id = self.next_id();
        self.request_with_id::<M>(name, id.clone(), params);
        id
    }

    /// Pushes a whole client-to-server request for `M` with id `id`. On 2026-07-28 its params
    /// carry the per-request `_meta`.
    fn request_with_id<M: Request>(
        &mut self,
        name: &'static str,
        id: RequestId,
        params: M::Params,
    ) {
        let mut message = to_json(&TypedRequest::<M> { id, params });
        if !self.stateful() {
            add_request_meta(&mut message, self.request_meta());
        }
        self.out.push((name, message));
    }

    /// Pushes a whole server-to-client request for `M` (roots, sampling, elicitation, tasks): a
    /// JSON-RPC request up to 2025-11-25, an input request without `jsonrpc` and `id` on
    /// 2026-07-28.
    fn input_request<M: Request>(&mut self, name: &'static str, params: M::Params) {
        let request = if self.stateful() {
            TypedInputRequest::<M>::with_id(self.next_id(), params)
        } else {
            TypedInputRequest::<M>::new(params)
        };
        self.push(name, &request);
    }

    /// Pushes a whole notification for `N`.
    fn notification<N: Notification>(&mut self, name: &'static str, params: N::Params) {
        self.push(name, &TypedNotification::<N> { params });
    }

    /// Pushes `result` under `name` and, on 2026-07-28 (the only revision with `*ResultResponse`
    /// definitions), the whole response to request `id` under `response`.
    fn answer<R: Serialize>(
        &mut self,
        id: RequestId,
        name: &'static str,
        response: &'static str,
        result: R,
    ) {
        self.push(name, &result);
        if !self.stateful() {
            let whole = JsonRpcResultResponse {
                jsonrpc: JsonRpcVersion,
                id,
                result,
            };
            self.push(response, &whole);
        }
    }

    // ---- building blocks -----------------------------------------------------------------------

    /// The `_meta` every 2026-07-28 request carries: protocol version, client software and
    /// client capabilities.
    fn request_meta(&self) -> Meta {
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
    fn subscription_meta(&self) -> Option<Meta> {
        (!self.stateful()).then(|| meta_entry(SUBSCRIPTION_ID_META_KEY, json!(LISTEN_ID)))
    }

    /// A client or server named `name`, with every field the revision has.
    fn implementation(&self, name: &str, title: &str) -> Implementation {
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
    fn icons(&self, name: &str) -> Option<Vec<Icon>> {
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
    fn annotations(&self) -> Annotations {
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
    fn client_capabilities(&self) -> ClientCapabilities {
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
    fn server_capabilities(&self) -> ServerCapabilities {
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
    fn content_blocks(&self) -> Vec<ContentBlock> {
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
    fn weather_tool(&self) -> Tool {
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

/// A 1x1 PNG, base64.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// A few bytes of WAV, base64.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The text contents of a source file.
fn text_contents() -> TextResourceContents {
    {
        let mut built = TextResourceContents::new("file:///project/src/main.rs", "fn main() {}\n");
        built.mime_type = Some("text/x-rust".to_owned());
        built
    }
}

/// The binary contents of an image.
fn blob_contents() -> BlobResourceContents {
    {
        let mut built = BlobResourceContents::new("file:///project/logo.png", PNG);
        built.mime_type = Some("image/png".to_owned());
        built
    }
}

/// The weather the weather tool reports, as `structuredContent`.
fn weather() -> Value {
    json!({"temperature": 22.5, "conditions": "Sunny"})
}

/// Task [`TASK_ID`] in state `status` (2025-11-25).
fn task(status: TaskStatus, message: &str) -> Task {
    {
        let mut built = Task::new(
            TASK_ID,
            status,
            "2025-11-25T10:30:00Z",
            "2025-11-25T10:40:00Z",
        );
        built.status_message = Some(message.to_owned());
        built.ttl = Some(60_000);
        built.poll_interval = Some(5_000);
        built.extra = JsonObject::new();
        built
    }
}

/// Serializes `value`; a value that does not serialize becomes a string saying so, which then
/// fails validation with the reason in the report.
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|e| Value::String(format!("the sample does not serialize: {e}")))
}

/// The members of a JSON object literal (empty if `v` is not an object).
fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(members) => members,
        _ => JsonObject::new(),
    }
}

/// A `_meta` with one entry.
fn meta_entry(key: &str, value: Value) -> Meta {
    let mut meta = Meta::new();
    meta.insert(key.to_owned(), value);
    meta
}

/// A capability `extensions` map declaring extension `id` with no settings.
fn extension(id: &str) -> BTreeMap<String, JsonObject> {
    BTreeMap::from([(id.to_owned(), JsonObject::new())])
}

/// Merges `meta` into the `_meta` of a serialized request's params, keeping what is there
/// (e.g. a `progressToken`). This is the per-request envelope the protocol layer adds on
/// 2026-07-28, whatever the params type.
fn add_request_meta(request: &mut Value, meta: Meta) {
    let Some(request) = request.as_object_mut() else {
        return;
    };
    let params = request
        .entry("params")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    if let Some(params) = params.as_object_mut() {
        let existing = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Meta::new()));
        if let Some(existing) = existing.as_object_mut() {
            existing.extend(meta);
        }
    }
}

// ---- protocol areas ---------------------------------------------------------------------------

/// `initialize`, `notifications/initialized` and `ping` (up to 2025-11-25), `server/discover`
/// (2026-07-28), and the empty result.
fn lifecycle(s: &mut Samples<'_>) {
    if s.rev.has_initialize() {
        let params = InitializeRequestParams::new(
            s.rev.clone(),
            s.client_capabilities(),
            s.implementation("example-client", "Example Client"),
        );
        s.request::<Initialize>("InitializeRequest", params);
        let result = {
            let mut built = InitializeResult::new(
                s.rev.clone(),
                s.server_capabilities(),
                s.implementation("example-server", "Example Server"),
            );
            built.instructions = Some("Use get_weather for forecasts.".to_owned());
            built
        };
        s.push("InitializeResult", &result);
        s.notification::<Initialized>("InitializedNotification", EmptyParams::default());
        s.request::<Ping>("PingRequest", EmptyParams::default());
    } else {
        let id = s.request::<Discover>("DiscoverRequest", EmptyParams::default());
        let server = s.implementation("example-server", "Example Server");
        let result = {
            let mut built = DiscoverResult::default();
            built.supported_versions = vec![ProtocolVersion::V2025_11_25, s.rev.clone()];
            built.capabilities = s.server_capabilities();
            built.instructions = Some("Use get_weather for forecasts.".to_owned());
            built.result_type = s.complete();
            built.ttl_ms = Some(3_600_000);
            built.cache_scope = Some(CacheScope::Public);
            built.meta = Some(meta_entry(SERVER_INFO_META_KEY, to_json(&server)));
            built
        };
        s.answer(id, "DiscoverResult", "DiscoverResultResponse", result);
    }
    let empty = {
        let mut built = EmptyResult::default();
        built.result_type = s.complete();
        built
    };
    s.push("EmptyResult", &empty);
}

/// `tools/list`, `tools/call` and `notifications/tools/list_changed`.
fn tools(s: &mut Samples<'_>) {
    let id = s.request::<ListTools>("ListToolsRequest", PaginatedRequestParams::default());
    let listed = {
        let mut built = ListToolsResult::new(vec![
            s.weather_tool(),
            Tool::new("list_cities", Tool::empty_input_schema()),
        ]);
        built.next_cursor = Some("page-2".to_owned());
        built.ttl_ms = s.ttl_ms(300_000);
        built.cache_scope = s.cache_scope(CacheScope::Public);
        built.result_type = s.complete();
        built
    };
    s.answer(id, "ListToolsResult", "ListToolsResultResponse", listed);
    s.request::<ListTools>("ListToolsRequest", PaginatedRequestParams::at("page-2"));

    let arguments = object(json!({"city": "Paris", "units": "metric"}));
    let call = {
        let mut built = CallToolRequestParams::with_arguments("get_weather", arguments);
        built.meta = Some(meta_entry("progressToken", json!("call-progress-1")));
        built
    };
    let id = s.request::<CallTool>("CallToolRequest", call);
    let result = {
        let mut built = CallToolResult::default();
        built.content = s.content_blocks();
        built.structured_content = s.rev.has_structured_content().then(weather);
        built.is_error = Some(false);
        built.result_type = s.complete();
        built
    };
    s.answer(id, "CallToolResult", "CallToolResultResponse", result);
    let failed = {
        let mut built = CallToolResult::error("Unknown city: Atlantis");
        built.result_type = s.complete();
        built
    };
    s.push("CallToolResult", &failed);
    if !s.stateful() {
        // 2026-07-28 lets structured content be any JSON value.
        let forecast = {
            let mut built = CallToolResult::structured(json!([weather(), weather()]));
            built.result_type = s.complete();
            built
        };
        s.push("CallToolResult", &forecast);
    }
    s.notification::<ToolListChanged>("ToolListChangedNotification", {
        let mut built = EmptyParams::default();
        built.meta = s.subscription_meta();
        built
    });
}

/// `resources/*` requests and their notifications.
fn resources(s: &mut Samples<'_>) {
    let id = s.request::<ListResources>("ListResourcesRequest", PaginatedRequestParams::default());
    let resource = {
        let mut built = Resource::new("file:///project/src/main.rs", "main.rs");
        built.title = s.since_2025_06_18().then(|| "Main source file".to_owned());
        built.description = Some("The program's entry point".to_owned());
        built.mime_type = Some("text/x-rust".to_owned());
        built.size = Some(13);
        built.annotations = Some(s.annotations());
        built.icons = s.icons("rust");
        built.meta = s
            .since_2025_06_18()
            .then(|| meta_entry("com.example/owner", json!("build-team")));
        built
    };
    let listed = {
        let mut built = ListResourcesResult::default();
        built.resources = vec![
            resource,
            Resource::new("file:///project/logo.png", "logo.png"),
        ];
        built.next_cursor = Some("page-2".to_owned());
        built.ttl_ms = s.ttl_ms(60_000);
        built.cache_scope = s.cache_scope(CacheScope::Private);
        built.result_type = s.complete();
        built
    };
    s.answer(
        id,
        "ListResourcesResult",
        "ListResourcesResultResponse",
        listed,
    );

    let id = s.request::<ListResourceTemplates>(
        "ListResourceTemplatesRequest",
        PaginatedRequestParams::default(),
    );
    let template = {
        let mut built = ResourceTemplate::new("file:///project/{path}", "project-file");
        built.title = s.since_2025_06_18().then(|| "Project files".to_owned());
        built.description = Some("Any file of the project".to_owned());
        built.mime_type = Some("text/plain".to_owned());
        built.annotations = Some(s.annotations());
        built.icons = s.icons("file");
        built
    };
    let listed = {
        let mut built = ListResourceTemplatesResult::default();
        built.resource_templates = vec![template];
        built.ttl_ms = s.ttl_ms(60_000);
        built.cache_scope = s.cache_scope(CacheScope::Public);
        built.result_type = s.complete();
        built
    };
    s.answer(
        id,
        "ListResourceTemplatesResult",
        "ListResourceTemplatesResultResponse",
        listed,
    );

    let id = s.request::<ReadResource>(
        "ReadResourceRequest",
        ReadResourceRequestParams::new("file:///project/src/main.rs"),
    );
    let read = {
        let mut built = ReadResourceResult::new(vec![
            ResourceContents::Text(text_contents()),
            ResourceContents::Blob(blob_contents()),
        ]);
        built.ttl_ms = s.ttl_ms(0);
        built.cache_scope = s.cache_scope(CacheScope::Private);
        built.result_type = s.complete();
        built
    };
    s.answer(id, "ReadResourceResult", "ReadResourceResultResponse", read);

    if s.stateful() {
        let uri = "file:///project/src/main.rs";
        s.request::<Subscribe>("SubscribeRequest", ResourceRequestParams::new(uri));
        s.request::<Unsubscribe>("UnsubscribeRequest", ResourceRequestParams::new(uri));
    }
    s.notification::<ResourceUpdated>("ResourceUpdatedNotification", {
        let mut built = ResourceUpdatedNotificationParams::new("file:///project/src/main.rs");
        built.meta = s.subscription_meta();
        built
    });
    s.notification::<ResourceListChanged>("ResourceListChangedNotification", {
        let mut built = EmptyParams::default();
        built.meta = s.subscription_meta();
        built
    });
}

/// `prompts/list`, `prompts/get` and `notifications/prompts/list_changed`.
fn prompts(s: &mut Samples<'_>) {
    let id = s.request::<ListPrompts>("ListPromptsRequest", PaginatedRequestParams::default());
    let argument = {
        let mut built = PromptArgument::new("code", true);
        built.title = s.since_2025_06_18().then(|| "Code".to_owned());
        built.description = Some("The code to review".to_owned());
        built
    };
    let prompt = {
        let mut built = Prompt::new("code_review");
        built.title = s.since_2025_06_18().then(|| "Code review".to_owned());
        built.description = Some("Asks the model to review code".to_owned());
        built.arguments = Some(vec![argument, PromptArgument::new("style", false)]);
        built.icons = s.icons("review");
        built
    };
    let listed = {
        let mut built = ListPromptsResult::default();
        built.prompts = vec![prompt, Prompt::new("summarize")];
        built.next_cursor = Some("page-2".to_owned());
        built.ttl_ms = s.ttl_ms(300_000);
        built.cache_scope = s.cache_scope(CacheScope::Public);
        built.result_type = s.complete();
        built
    };
    s.answer(id, "ListPromptsResult", "ListPromptsResultResponse", listed);

    let get = {
        let mut built = GetPromptRequestParams::new("code_review");
        built.arguments = Some(BTreeMap::from([(
            "code".to_owned(),
            "fn main() {}".to_owned(),
        )]));
        built
    };
    let id = s.request::<GetPrompt>("GetPromptRequest", get);
    let mut messages = vec![PromptMessage::user_text("Please review this code.")];
    messages.extend(
        s.content_blocks()
            .into_iter()
            .map(|block| PromptMessage::new(Role::User, block)),
    );
    messages.push(PromptMessage::assistant_text("It looks fine."));
    let result = {
        let mut built = GetPromptResult::new(messages);
        built.description = Some("A code review".to_owned());
        built.result_type = s.complete();
        built
    };
    s.answer(id, "GetPromptResult", "GetPromptResultResponse", result);
    s.notification::<PromptListChanged>("PromptListChangedNotification", {
        let mut built = EmptyParams::default();
        built.meta = s.subscription_meta();
        built
    });
}

/// `completion/complete` for a prompt argument and a resource template variable.
fn completion(s: &mut Samples<'_>) {
    let prompt = {
        let mut built = PromptReference::new("code_review");
        built.title = s.since_2025_06_18().then(|| "Code review".to_owned());
        built
    };
    let params = {
        let mut built = CompleteRequestParams::new(prompt, "style", "ru");
        built.context = s.since_2025_06_18().then(|| {
            let mut built = CompletionContext::default();
            built.arguments = Some(BTreeMap::from([(
                "code".to_owned(),
                "fn main() {}".to_owned(),
            )]));
            built
        });
        built
    };
    let id = s.request::<Complete>("CompleteRequest", params);
    let result = {
        let mut built = CompleteResult::default();
        built.completion = {
            let mut built = Completion::default();
            built.values = vec!["rust".to_owned(), "ruby".to_owned()];
            built.total = Some(12);
            built.has_more = Some(true);
            built
        };
        built.result_type = s.complete();
        built
    };
    s.answer(id, "CompleteResult", "CompleteResultResponse", result);
    let template = ResourceTemplateReference::new("file:///project/{path}");
    s.request::<Complete>(
        "CompleteRequest",
        CompleteRequestParams::new(template, "path", "src/"),
    );
}

/// `logging/setLevel` (up to 2025-11-25) and `notifications/message`.
fn logging(s: &mut Samples<'_>) {
    if s.stateful() {
        s.request::<SetLevel>(
            "SetLevelRequest",
            SetLevelRequestParams::new(LoggingLevel::Warning),
        );
    }
    let text = {
        let mut built =
            LoggingMessageNotificationParams::new(LoggingLevel::Info, "Fetched the forecast");
        built.logger = Some("weather".to_owned());
        built
    };
    s.notification::<LoggingMessage>("LoggingMessageNotification", text);
    let details = json!({"error": "connection refused", "retryInSeconds": 5});
    s.notification::<LoggingMessage>(
        "LoggingMessageNotification",
        LoggingMessageNotificationParams::new(LoggingLevel::Error, details),
    );
}

/// `notifications/progress` and `notifications/cancelled`.
fn progress_and_cancellation(s: &mut Samples<'_>) {
    let mut progress =
        ProgressNotificationParams::new(ProgressToken::String("call-progress-1".to_owned()), 50.0)
            .with_total(100.0);
    if s.since_2025_03_26() {
        progress = progress.with_message("Halfway there");
    }
    s.notification::<Progress>("ProgressNotification", progress);
    s.notification::<Progress>(
        "ProgressNotification",
        ProgressNotificationParams::new(ProgressToken::Number(7), 0.25),
    );
    // On 2026-07-28 the server sends it only to end a `subscriptions/listen` stream on stdio.
    let cancelled = if s.stateful() {
        CancelledNotificationParams::new(RequestId::Number(3)).with_reason("User gave up")
    } else {
        CancelledNotificationParams::new(LISTEN_ID).with_reason("Server shutting down")
    };
    s.notification::<Cancelled>("CancelledNotification", cancelled);
}

/// `roots/list` and `notifications/roots/list_changed`.
fn roots(s: &mut Samples<'_>) {
    s.input_request::<ListRoots>("ListRootsRequest", EmptyParams::default());
    s.push("ListRootsResult", &list_roots());
    if s.stateful() {
        s.notification::<RootsListChanged>("RootsListChangedNotification", EmptyParams::default());
    }
}

fn list_roots() -> ListRootsResult {
    ListRootsResult::new(vec![
        Root::new("file:///home/user/projects/frontend").with_name("Frontend"),
        Root::new("file:///home/user/projects/backend"),
    ])
}

/// `sampling/createMessage`: a plain request and, from 2025-11-25, a turn with tool use.
fn sampling(s: &mut Samples<'_>) {
    s.input_request::<CreateMessage>("CreateMessageRequest", create_message(s));
    if s.since_2025_11_25() {
        s.input_request::<CreateMessage>("CreateMessageRequest", tool_turn(s));
    }
    let text = {
        let mut built =
            CreateMessageResult::new("claude-sonnet-4", SamplingContent::text("Paris."));
        built.stop_reason = Some("endTurn".to_owned());
        built
    };
    s.push("CreateMessageResult", &text);
    let image = CreateMessageResult::new("image-model", ImageContent::new(PNG, "image/png"));
    s.push("CreateMessageResult", &image);
    if s.since_2025_03_26() {
        let audio = CreateMessageResult::new("voice-model", AudioContent::new(WAV, "audio/wav"));
        s.push("CreateMessageResult", &audio);
    }
    if s.since_2025_11_25() {
        let tool_use = {
            let mut built = CreateMessageResult::new(
                "claude-sonnet-4",
                vec![
                    SamplingMessageContentBlock::text("Let me check."),
                    weather_call().into(),
                ],
            );
            built.stop_reason = Some("toolUse".to_owned());
            built
        };
        s.push("CreateMessageResult", &tool_use);
    }
}

/// Sampling params with every field the revision has.
fn create_message(s: &Samples<'_>) -> CreateMessageRequestParams {
    let mut messages = vec![
        SamplingMessage::user_text("What is the capital of France?"),
        SamplingMessage::new(Role::User, ImageContent::new(PNG, "image/png")),
    ];
    if s.since_2025_03_26() {
        messages.push(SamplingMessage::new(
            Role::User,
            AudioContent::new(WAV, "audio/wav"),
        ));
    }
    {
        let mut built = CreateMessageRequestParams::new(messages, 100);
        built.model_preferences = Some({
            let mut built = ModelPreferences::default();
            built.hints = Some(vec![
                ModelHint::new("claude-sonnet"),
                ModelHint::new("sonnet"),
            ]);
            built.cost_priority = Some(0.3);
            built.speed_priority = Some(0.5);
            built.intelligence_priority = Some(0.8);
            built
        });
        built.system_prompt = Some("You are a helpful assistant.".to_owned());
        built.include_context = Some(IncludeContext::ThisServer);
        built.temperature = Some(0.7);
        built.stop_sequences = Some(vec!["\n\n".to_owned()]);
        built.metadata = Some(object(json!({"provider": {"topK": 40}})));
        built.tools = s.since_2025_11_25().then(|| vec![s.weather_tool()]);
        built.tool_choice = s
            .since_2025_11_25()
            .then(|| ToolChoice::new(ToolChoiceMode::Auto));
        built
    }
}

/// The model's call of the weather tool.
fn weather_call() -> ToolUseContent {
    ToolUseContent::new("call_1", "get_weather", object(json!({"city": "Paris"})))
}

/// A sampling conversation in which the model called a tool and gets its result (2025-11-25 and
/// later).
fn tool_turn(s: &Samples<'_>) -> CreateMessageRequestParams {
    let result = {
        let mut built = ToolResultContent::new("call_1", vec![ContentBlock::text("Sunny, 22.5°C")]);
        built.structured_content = Some(weather());
        built.is_error = Some(false);
        built
    };
    let messages = vec![
        SamplingMessage::user_text("What's the weather in Paris?"),
        SamplingMessage::new(Role::Assistant, weather_call()),
        SamplingMessage::new(Role::User, vec![result.into()]),
    ];
    {
        let mut built = CreateMessageRequestParams::new(messages, 200);
        built.tools = Some(vec![s.weather_tool()]);
        built.tool_choice = Some(ToolChoice::new(ToolChoiceMode::Required));
        built
    }
}

/// `elicitation/create` in form and URL mode, its answers and
/// `notifications/elicitation/complete` (2025-06-18 and later).
fn elicitation(s: &mut Samples<'_>) {
    if !s.rev.has_elicitation() {
        return;
    }
    let form = {
        let mut built =
            ElicitRequestFormParams::new("Please fill in your profile", requested_schema(s));
        built.mode = s.rev.has_url_elicitation().then_some(ElicitFormMode::Form);
        built
    };
    s.input_request::<Elicit>("ElicitRequest", form.into());
    if s.rev.has_url_elicitation() {
        let url = {
            let mut built = ElicitRequestURLParams::new(
                "Please sign in to authorize access",
                "https://example.com/oauth/authorize?state=abc",
            );
            built.elicitation_id = s.stateful().then(|| "elicit-42".to_owned());
            built
        };
        s.input_request::<Elicit>("ElicitRequest", ElicitRequestParams::Url(url));
        s.push("ElicitResult", &ElicitResult::accept(None));
    }
    s.push("ElicitResult", &ElicitResult::accept(Some(form_answers(s))));
    s.push("ElicitResult", &ElicitResult::decline());
    s.push("ElicitResult", &ElicitResult::cancel());
    if s.rev.has_url_elicitation() && s.stateful() {
        s.notification::<ElicitationComplete>("ElicitationCompleteNotification", {
            let mut built = ElicitationCompleteNotificationParams::default();
            built.elicitation_id = "elicit-42".to_owned();
            built
        });
    }
}

/// A form with a field of every kind the revision has.
fn requested_schema(s: &Samples<'_>) -> ElicitRequestedSchema {
    let defaults = s.since_2025_11_25();
    let options = || {
        vec![
            TitledEnumOption::new("red", "Red"),
            TitledEnumOption::new("green", "Green"),
        ]
    };
    let strings = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let mut fields: Vec<(&str, PrimitiveSchemaDefinition)> = vec![
        (
            "name",
            {
                let mut built = StringSchema::default();
                built.title = Some("Name".to_owned());
                built.description = Some("Your full name".to_owned());
                built.min_length = Some(1);
                built.max_length = Some(100);
                built.default = defaults.then(|| "Ada".to_owned());
                built
            }
            .into(),
        ),
        (
            "email",
            {
                let mut built = StringSchema::default();
                built.format = Some(StringFormat::Email);
                built
            }
            .into(),
        ),
        (
            "birthday",
            {
                let mut built = StringSchema::default();
                built.format = Some(StringFormat::Date);
                built
            }
            .into(),
        ),
        (
            "age",
            {
                let mut built = NumberSchema::default();
                built.r#type = NumberSchemaType::Integer;
                built.minimum = Some(0.0);
                built.maximum = Some(150.0);
                built.default = defaults.then_some(30.0);
                built
            }
            .into(),
        ),
        (
            "rating",
            {
                let mut built = NumberSchema::default();
                built.r#type = NumberSchemaType::Number;
                built.title = Some("Rating".to_owned());
                built
            }
            .into(),
        ),
        (
            "newsletter",
            {
                let mut built = BooleanSchema::default();
                built.title = Some("Subscribe".to_owned());
                built.default = Some(false);
                built
            }
            .into(),
        ),
        (
            "color",
            EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled({
                let mut built = UntitledSingleSelectEnumSchema::default();
                built.r#enum = strings(&["red", "green"]);
                built.default = defaults.then(|| "red".to_owned());
                built
            }))
            .into(),
        ),
        (
            "size",
            EnumSchema::LegacyTitled({
                let mut built = LegacyTitledEnumSchema::default();
                built.r#enum = strings(&["s", "m", "l"]);
                built.enum_names = Some(strings(&["Small", "Medium", "Large"]));
                built
            })
            .into(),
        ),
    ];
    if s.since_2025_11_25() {
        fields.extend([
            (
                "favorite",
                EnumSchema::SingleSelect(SingleSelectEnumSchema::Titled({
                    let mut built = TitledSingleSelectEnumSchema::default();
                    built.one_of = options();
                    built.default = Some("green".to_owned());
                    built
                }))
                .into(),
            ),
            (
                "topics",
                EnumSchema::MultiSelect(MultiSelectEnumSchema::Untitled({
                    let mut built = UntitledMultiSelectEnumSchema::default();
                    built.min_items = Some(1);
                    built.max_items = Some(2);
                    built.items = {
                        let mut built = UntitledEnumItems::default();
                        built.r#enum = strings(&["news", "sports", "weather"]);
                        built
                    };
                    built.default = Some(strings(&["news"]));
                    built
                }))
                .into(),
            ),
            (
                "palette",
                EnumSchema::MultiSelect(MultiSelectEnumSchema::Titled({
                    let mut built = TitledMultiSelectEnumSchema::default();
                    built.items = {
                        let mut built = TitledEnumItems::default();
                        built.any_of = options();
                        built
                    };
                    built
                }))
                .into(),
            ),
        ]);
    }
    {
        let mut built = ElicitRequestedSchema::default();
        built.schema = s
            .since_2025_11_25()
            .then(|| "https://json-schema.org/draft/2020-12/schema".to_owned());
        built.properties = fields
            .into_iter()
            .map(|(name, field)| (name.to_owned(), field))
            .collect();
        built.required = Some(vec!["name".to_owned(), "email".to_owned()]);
        built
    }
}

/// The user's answers to [`requested_schema`].
fn form_answers(s: &Samples<'_>) -> BTreeMap<String, ElicitValue> {
    let mut answers: BTreeMap<String, ElicitValue> = BTreeMap::from([
        ("name".to_owned(), "Ada Lovelace".into()),
        ("email".to_owned(), "ada@example.com".into()),
        ("age".to_owned(), 36.into()),
        ("newsletter".to_owned(), true.into()),
        ("color".to_owned(), "green".into()),
    ]);
    if s.since_2025_11_25() {
        answers.insert(
            "topics".to_owned(),
            vec!["news".to_owned(), "weather".to_owned()].into(),
        );
    }
    answers
}

/// The task requests, results and notification of 2025-11-25.
fn tasks(s: &mut Samples<'_>) {
    if !s.rev.has_core_tasks() {
        return;
    }
    let call = {
        let mut built =
            CallToolRequestParams::with_arguments("get_weather", object(json!({"city": "Oslo"})));
        built.task = Some({
            let mut built = TaskMetadata::default();
            built.ttl = Some(60_000);
            built
        });
        built
    };
    s.request::<CallTool>("CallToolRequest", call);
    let created = {
        let mut built = CreateTaskResult::new(task(TaskStatus::Working, "Fetching the forecast"));
        built.result_type = s.complete();
        built
    };
    s.push("CreateTaskResult", &created);

    s.request::<GetTask>("GetTaskRequest", GetTaskRequestParams::new(TASK_ID));
    let got = {
        let mut built = GetTaskResult::new(task(TaskStatus::InputRequired, "Waiting for the user"));
        built.result_type = s.complete();
        built
    };
    s.push("GetTaskResult", &got);

    s.request::<GetTaskPayload>("GetTaskPayloadRequest", GetTaskRequestParams::new(TASK_ID));
    let related = {
        let mut built = RelatedTaskMetadata::default();
        built.task_id = TASK_ID.to_owned();
        built
    };
    let payload = {
        let mut built = GetTaskPayloadResult::default();
        built.result_type = s.complete();
        built.meta = Some(meta_entry(RELATED_TASK_META_KEY, to_json(&related)));
        built.extra = object(to_json(&CallToolResult::structured(weather())));
        built
    };
    s.push("GetTaskPayloadResult", &payload);

    s.request::<ListTasks>("ListTasksRequest", PaginatedRequestParams::default());
    let listed = {
        let mut built = ListTasksResult::default();
        built.tasks = vec![task(TaskStatus::Working, "Fetching the forecast"), {
            let mut built = task(TaskStatus::Completed, "The forecast is ready");
            built.ttl = None;
            built.poll_interval = None;
            built
        }];
        built.next_cursor = Some("page-2".to_owned());
        built.result_type = s.complete();
        built
    };
    s.push("ListTasksResult", &listed);

    s.request::<CancelTask>("CancelTaskRequest", GetTaskRequestParams::new(TASK_ID));
    let cancelled = {
        let mut built = GetTaskResult::new(task(TaskStatus::Cancelled, "Cancelled by the user"));
        built.result_type = s.complete();
        built
    };
    s.push("CancelTaskResult", &cancelled);

    s.notification::<TaskStatusChanged>("TaskStatusNotification", {
        TaskStatusNotificationParams::new(task(TaskStatus::Failed, "The forecast service is down"))
    });
}

/// `subscriptions/listen` and its acknowledgement (2026-07-28).
fn subscriptions(s: &mut Samples<'_>) {
    if s.stateful() {
        return;
    }
    let filter = {
        let mut built = SubscriptionFilter::default();
        built.tools_list_changed = Some(true);
        built.prompts_list_changed = Some(true);
        built.resources_list_changed = Some(false);
        built.resource_subscriptions = Some(vec!["file:///project/src/main.rs".to_owned()]);
        built
    };
    let id = RequestId::from(LISTEN_ID);
    s.request_with_id::<SubscriptionsListen>("SubscriptionsListenRequest", id.clone(), {
        let mut built = SubscriptionsListenRequestParams::default();
        built.notifications = filter.clone();
        built
    });
    s.notification::<SubscriptionsAcknowledged>("SubscriptionsAcknowledgedNotification", {
        let mut built = SubscriptionsAcknowledgedNotificationParams::default();
        built.notifications = {
            let mut built = filter;
            built.resources_list_changed = None;
            built
        };
        built.meta = s.subscription_meta();
        built
    });
    s.answer(
        id.clone(),
        "SubscriptionsListenResult",
        "SubscriptionsListenResultResponse",
        SubscriptionsListenResult::closing(&id),
    );
}

/// `InputRequiredResult` and the retry that answers it (2026-07-28).
fn input_required(s: &mut Samples<'_>) {
    if s.stateful() {
        return;
    }
    let profile = ElicitRequestFormParams::new("Please fill in your profile", requested_schema(s));
    let requests: InputRequests = BTreeMap::from([
        ("profile".to_owned(), InputRequest::Elicit(profile.into())),
        (
            "summary".to_owned(),
            InputRequest::CreateMessage(create_message(s)),
        ),
        (
            "roots".to_owned(),
            InputRequest::ListRoots(EmptyParams::default()),
        ),
    ]);
    let needed = InputRequiredResult::new(requests).with_request_state("eyJzdGVwIjoyfQ");
    s.push("InputRequiredResult", &needed);
    s.push(
        "InputRequiredResult",
        &InputRequiredResult::default().with_request_state("eyJzdGVwIjozfQ"),
    );
    // A `*ResultResponse` of a retryable request may hold an `InputRequiredResult`.
    let id = s.next_id();
    s.push(
        "CallToolResultResponse",
        &JsonRpcResultResponse {
            jsonrpc: JsonRpcVersion,
            id,
            result: needed,
        },
    );

    let responses: InputResponses = BTreeMap::from([
        (
            "profile".to_owned(),
            InputResponse::Elicit(ElicitResult::accept(Some(form_answers(s)))),
        ),
        (
            "summary".to_owned(),
            CreateMessageResult::new("claude-sonnet-4", SamplingContent::text("Paris.")).into(),
        ),
        ("roots".to_owned(), list_roots().into()),
    ]);
    let retry = {
        let mut built =
            CallToolRequestParams::with_arguments("get_weather", object(json!({"city": "Paris"})));
        built.input_responses = Some(responses);
        built.request_state = Some("eyJzdGVwIjoyfQ".to_owned());
        built
    };
    s.request::<CallTool>("CallToolRequest", retry);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_has_samples_that_round_trip() {
        for rev in ProtocolVersion::ALL {
            let samples = for_revision(rev);
            assert!(samples.len() > 40, "{rev}: only {} samples", samples.len());
            for (name, sample) in &samples {
                assert!(sample.is_object(), "{rev} {name}: {sample}");
            }
        }
    }

    #[test]
    fn requests_carry_the_envelope_only_on_2026() {
        let meta_of = |rev: &ProtocolVersion| {
            for_revision(rev)
                .into_iter()
                .find(|(name, _)| *name == "CallToolRequest")
                .and_then(|(_, v)| v.pointer("/params/_meta").cloned())
        };
        let old = meta_of(&ProtocolVersion::V2025_06_18).unwrap_or_default();
        assert_eq!(old, json!({"progressToken": "call-progress-1"}));
        let new = meta_of(&ProtocolVersion::V2026_07_28).unwrap_or_default();
        assert_eq!(new[PROTOCOL_VERSION_META_KEY], json!("2026-07-28"));
        assert_eq!(new["progressToken"], json!("call-progress-1"));
        assert!(new[CLIENT_CAPABILITIES_META_KEY].is_object());
        assert!(new[CLIENT_INFO_META_KEY].is_object());
    }

    #[test]
    fn results_are_complete_only_on_2026() {
        let result_type = |rev: &ProtocolVersion| {
            for_revision(rev)
                .into_iter()
                .find(|(name, _)| *name == "EmptyResult")
                .and_then(|(_, v)| v.get("resultType").cloned())
        };
        assert_eq!(result_type(&ProtocolVersion::V2025_11_25), None);
        assert_eq!(
            result_type(&ProtocolVersion::V2026_07_28),
            Some(json!("complete"))
        );
    }
}
