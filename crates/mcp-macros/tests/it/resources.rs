//! `#[resource]`: fixed URIs, URI templates whose variables are parameters, and extractors.

use std::sync::Arc;

use mcp_server::{Error, Server, State, resource, tools};
use serde_json::json;

use crate::support::{connect, json};

/// The application's configuration.
#[resource(uri = "config://app", mime_type = "text/plain")]
async fn config(State(debug): State<bool>) -> String {
    format!("debug = {debug}")
}

/// A user's profile.
#[resource(
    uri = "users://{id}/profile{?fields}",
    name = "profile",
    title = "Profile"
)]
async fn user_profile(id: String, fields: Option<String>) -> Result<String, Error> {
    match id.as_str() {
        "1" => Ok(format!("Ada ({})", fields.as_deref().unwrap_or("all"))),
        _ => Err(Error::resource_not_found(format!("users://{id}/profile"))),
    }
}

struct Files {
    root: &'static str,
}

#[tools]
impl Files {
    /// A file under the root.
    #[resource(uri = "files://{name}", mime_type = "text/markdown")]
    pub(crate) async fn file(&self, name: String) -> String {
        format!("{}/{name}", self.root)
    }

    /// The root.
    #[resource(uri = "files://")]
    pub(crate) async fn root(self: Arc<Self>) -> &'static str {
        self.root
    }
}

#[tokio::test]
async fn resources_and_templates_are_listed_and_read() -> anyhow::Result<()> {
    let files = Arc::new(Files { root: "/srv" });
    let mut builder = Server::builder()
        .state(true)
        .resource(config_resource())
        .resource_template(user_profile_resource());
    for r in files.resources() {
        builder = builder.resource(r);
    }
    for t in files.resource_templates() {
        builder = builder.resource_template(t);
    }
    let client = connect(builder).await?;

    let listed = json(&client.list_resources(None).await?);
    assert_eq!(
        listed["resources"],
        json!([
            {"uri": "config://app", "name": "config", "description": "The application's configuration.", "mimeType": "text/plain"},
            {"uri": "files://", "name": "root", "description": "The root."}
        ])
    );
    let listed = json(&client.list_resource_templates(None).await?);
    assert_eq!(
        listed["resourceTemplates"],
        json!([
            {"uriTemplate": "users://{id}/profile{?fields}", "name": "profile", "title": "Profile", "description": "A user's profile."},
            {"uriTemplate": "files://{name}", "name": "file", "description": "A file under the root.", "mimeType": "text/markdown"}
        ])
    );

    let read = |uri: &'static str| {
        let client = client.clone();
        async move { client.read_resource(uri).await.map(|r| json(&r)) }
    };
    let got = read("config://app").await?;
    assert_eq!(
        got["contents"][0],
        json!({"uri": "config://app", "mimeType": "text/plain", "text": "debug = true"})
    );
    assert_eq!(
        read("users://1/profile").await?["contents"][0]["text"],
        "Ada (all)"
    );
    assert_eq!(
        read("users://1/profile?fields=name").await?["contents"][0]["text"],
        "Ada (name)"
    );
    assert_eq!(
        read("files://a.md").await?["contents"][0]["text"],
        "/srv/a.md"
    );
    assert_eq!(read("files://").await?["contents"][0]["text"], "/srv");
    match read("users://2/profile").await {
        // -32002 before 2026-07-28, -32602 with the URI on it.
        Err(mcp_client::Error::Rpc(e)) => {
            assert_eq!(e.message, "Resource not found", "{e:?}");
            assert_eq!(e.data, Some(json!({"uri": "users://2/profile"})), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    Ok(())
}
