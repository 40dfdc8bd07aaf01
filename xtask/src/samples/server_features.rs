//! Samples of the server features: tools, resources, prompts, completion and logging, each
//! request with its result and the notifications of the area.

use std::collections::BTreeMap;

use mcp_types::{
    CacheScope, CallTool, CallToolRequestParams, CallToolResult, Complete, CompleteRequestParams,
    CompleteResult, Completion, CompletionContext, EmptyParams, GetPrompt, GetPromptRequestParams,
    GetPromptResult, ListPrompts, ListPromptsResult, ListResourceTemplates,
    ListResourceTemplatesResult, ListResources, ListResourcesResult, ListTools, ListToolsResult,
    LoggingLevel, LoggingMessage, LoggingMessageNotificationParams, PaginatedRequestParams, Prompt,
    PromptArgument, PromptListChanged, PromptMessage, PromptReference, ReadResource,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceContents, ResourceListChanged,
    ResourceRequestParams, ResourceTemplate, ResourceTemplateReference, ResourceUpdated,
    ResourceUpdatedNotificationParams, Role, SetLevel, SetLevelRequestParams, Subscribe, Tool,
    ToolListChanged, Unsubscribe,
};
use serde_json::json;

use super::Samples;
use super::values::{blob_contents, meta_entry, object, text_contents, weather};

/// `tools/list`, `tools/call` and `notifications/tools/list_changed`.
pub(super) fn tools(s: &mut Samples<'_>) {
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
pub(super) fn resources(s: &mut Samples<'_>) {
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
pub(super) fn prompts(s: &mut Samples<'_>) {
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
pub(super) fn completion(s: &mut Samples<'_>) {
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
pub(super) fn logging(s: &mut Samples<'_>) {
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
