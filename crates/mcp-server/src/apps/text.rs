//! Text in every result of a tool with a view: the model and hosts without the extension
//! read only `content`, so the extension requires it to be meaningful even when a view
//! renders the result.

use std::sync::Arc;

use mcp_types::{CallToolResult, ContentBlock};

use crate::service::ToolService;

/// `service`, whose successful results get a text block if they have none: the JSON of
/// their `structuredContent` when they have it, else they become an error naming the tool
/// and the rule (a handler returning neither text nor structured content is a bug found the
/// first time the tool is called).
pub(crate) fn ensure_text(service: ToolService, tool: Arc<str>) -> ToolService {
    ToolService::from_fn(move |call| {
        let called = service.oneshot(call);
        let tool = tool.clone();
        Box::pin(async move { called.await.map(|result| with_text(result, &tool)) })
    })
}

fn with_text(mut result: CallToolResult, tool: &str) -> CallToolResult {
    let has_text = result
        .content
        .iter()
        .any(|c| c.as_text().is_some_and(|t| !t.trim().is_empty()));
    if has_text || result.is_error == Some(true) {
        return result;
    }
    match &result.structured_content {
        Some(structured) => {
            let text = structured.to_string();
            result.content.push(ContentBlock::text(text));
            result
        }
        None => CallToolResult::error(format!(
            "tool {tool:?} has a view but returned no text: a tool with a view must return \
             text content too (for the model and for hosts without views)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use mcp_types::ImageContent;
    use serde_json::json;

    use super::*;

    #[test]
    fn results_keep_their_text_or_get_one() {
        let text = CallToolResult::text("3 notes");
        assert_eq!(with_text(text.clone(), "t"), text);

        let mut structured = CallToolResult::structured(json!({"notes": []}));
        structured.content.clear();
        let given = with_text(structured, "t");
        assert_eq!(given.content[0].as_text(), Some(r#"{"notes":[]}"#));
        assert_eq!(given.is_error, None);

        let image = CallToolResult::new(vec![ContentBlock::Image(ImageContent::new(
            "aGk=",
            "image/png",
        ))]);
        let refused = with_text(image, "draw");
        assert_eq!(refused.is_error, Some(true));
        let message = refused.content[0].as_text().unwrap_or_default();
        assert!(
            message.contains("\"draw\" has a view but returned no text"),
            "{message}"
        );

        let blank = with_text(CallToolResult::text("  "), "t");
        assert_eq!(blank.is_error, Some(true));

        let failed = CallToolResult::error("");
        assert_eq!(with_text(failed.clone(), "t"), failed);
    }
}
