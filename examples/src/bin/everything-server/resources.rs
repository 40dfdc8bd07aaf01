//! The fixture's resources and resource template.

use mcp_server::{Resource, ResourceTemplate, UriParams};
use mcp_types::{BlobResourceContents, ResourceContents};

use crate::TEST_IMAGE_BASE64;

/// `test://static-text`, `test://static-binary` and `test://watched-resource`.
pub(crate) fn resources() -> Vec<Resource> {
    vec![
        Resource::text(
            "test://static-text",
            "static-text",
            "This is the content of the static text resource.",
        )
        .title("Static Text Resource")
        .description("A static text resource for testing")
        .mime_type("text/plain"),
        Resource::new("test://static-binary", "static-binary", || async {
            // Served as the fixture's base64 text, byte for byte.
            ResourceContents::from(BlobResourceContents::new(
                "test://static-binary",
                TEST_IMAGE_BASE64,
            ))
        })
        .title("Static Binary Resource")
        .description("A static binary resource (image) for testing")
        .mime_type("image/png"),
        // The reference's description promises updates every 3 seconds, but its code has no
        // timer; neither has this one. Subscriptions are still accepted.
        Resource::text(
            "test://watched-resource",
            "watched-resource",
            "Watched resource content",
        )
        .title("Watched Resource")
        .description("A resource that auto-updates every 3 seconds")
        .mime_type("text/plain"),
    ]
}

/// `test://template/{id}/data`: a JSON document naming the id.
pub(crate) fn template() -> mcp_server::Result<ResourceTemplate> {
    Ok(ResourceTemplate::new(
        "test://template/{id}/data",
        "template",
        |p: UriParams| async move {
            let id = p.get("id").unwrap_or_default().to_owned();
            // Built by hand to keep the reference's key order: id, templateTest, data.
            format!(
                r#"{{"id":{},"templateTest":true,"data":{}}}"#,
                serde_json::Value::from(id.as_str()),
                serde_json::Value::from(format!("Data for ID: {id}")),
            )
        },
    )?
    .title("Resource Template")
    .description("A resource template with parameter substitution")
    .mime_type("application/json"))
}
