//! The RFC 9728 protected resource metadata endpoint.

use anyhow::Result;
use mcp_auth::{JwtValidator, ResourceServer};
use serde_json::{Value, json};

use crate::support::{AuthServer, listener, protected_app, serve};

#[tokio::test]
async fn metadata_is_served_without_a_token_at_both_well_known_paths() -> Result<()> {
    let auth = AuthServer::start().await?;
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .scopes_supported(["mcp:read", "mcp:write"])
        .required_scopes(["mcp:read"])
        .resource_name("test server")
        .build()?;
    let validator = JwtValidator::builder(&auth.issuer, rs.resource()).build()?;
    serve(listener, protected_app("/mcp", &rs, rs.layer(validator)));

    let base = resource.trim_end_matches("/mcp");
    assert_eq!(
        rs.metadata_url(),
        format!("{base}/.well-known/oauth-protected-resource/mcp")
    );
    let expected = json!({
        "resource": resource,
        "authorization_servers": [auth.issuer],
        "scopes_supported": ["mcp:read", "mcp:write"],
        "bearer_methods_supported": ["header"],
        "resource_name": "test server",
    });
    for url in [
        rs.metadata_url().to_owned(),
        format!("{base}/.well-known/oauth-protected-resource"),
    ] {
        let response = reqwest::get(&url).await?;
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        let body: Value = serde_json::from_slice(&response.bytes().await?)?;
        assert_eq!(body, expected, "{url}");
    }
    Ok(())
}
