//! The fixture's prompts.

use mcp_server::{Prompt, PromptArguments};
use mcp_types::{ContentBlock, PromptMessage, Role, TextResourceContents};

use crate::TEST_IMAGE_BASE64;

/// `test_simple_prompt`, `test_prompt_with_arguments`, `test_prompt_with_embedded_resource`
/// and `test_prompt_with_image`.
pub(crate) fn all() -> Vec<Prompt> {
    vec![
        Prompt::new("test_simple_prompt", || async {
            "This is a simple prompt for testing."
        })
        .title("Simple Test Prompt")
        .description("A simple prompt without arguments"),
        // Required arguments are checked before the handler runs, so indexing is safe.
        Prompt::new(
            "test_prompt_with_arguments",
            |args: PromptArguments| async move {
                format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args["arg1"], args["arg2"]
                )
            },
        )
        .title("Prompt With Arguments")
        .description("A prompt with required arguments")
        .argument("arg1", "First test argument", true)
        .argument("arg2", "Second test argument", true),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            |args: PromptArguments| async move {
                let mut resource = TextResourceContents::new(
                    args["resourceUri"].as_str(),
                    "Embedded resource content for testing.",
                );
                resource.mime_type = Some("text/plain".to_owned());
                vec![
                    PromptMessage::new(Role::User, ContentBlock::resource(resource)),
                    PromptMessage::user_text("Please process the embedded resource above."),
                ]
            },
        )
        .title("Prompt With Embedded Resource")
        .description("A prompt that includes an embedded resource")
        .argument("resourceUri", "URI of the resource to embed", true),
        Prompt::new("test_prompt_with_image", || async {
            vec![
                PromptMessage::new(
                    Role::User,
                    ContentBlock::image(TEST_IMAGE_BASE64, "image/png"),
                ),
                PromptMessage::user_text("Please analyze the image above."),
            ]
        })
        .title("Prompt With Image")
        .description("A prompt that includes image content"),
    ]
}
