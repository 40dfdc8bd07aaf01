//! The example-folder-to-type table of spec-check: [`roundtrip`] takes a spec example by the
//! name of the folder it lies in, deserializes it into the `mcp_types` type of that name and
//! serializes it back, so the caller can compare the two.

use anyhow::{Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

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
                _ => bail!("no Rust type is mapped for the example folder {type_name}: add it to xtask/src/samples/roundtrip.rs"),
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
