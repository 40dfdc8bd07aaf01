//! The layer with `IntrospectionValidator`, against the provider's introspection endpoint.

use anyhow::Result;
use mcp_auth::{IntrospectionValidator, ResourceServer};
use serde_json::Value;

use crate::support::{AuthServer, CLIENT, SECRET, call_with, listener, protected_app, serve};

#[tokio::test]
async fn introspection_accepts_active_tokens_and_rejects_revoked_and_garbage() -> Result<()> {
    let auth = AuthServer::start().await?;
    let endpoint = auth.metadata().await?["introspection_endpoint"]
        .as_str()
        .unwrap()
        .to_owned();
    // The provider issues opaque (introspectable) tokens for resources under /opaque.
    let (listener, resource) = listener("/opaque/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .required_scopes(["mcp:read"])
        .build()?;
    let validator = IntrospectionValidator::builder(endpoint, rs.resource(), CLIENT, SECRET)
        .issuer(&auth.issuer)
        .build()?;
    serve(
        listener,
        protected_app("/opaque/mcp", &rs, rs.layer(validator)),
    );

    let token = auth.token(CLIENT, &resource, "mcp:read").await?;
    assert!(!token.contains('.'), "expected an opaque token: {token}");
    let answer = call_with(&resource, &token).await?;
    assert_eq!(answer.status, 200, "{answer:?}");
    let seen: Value = serde_json::from_str(&answer.body)?;
    assert_eq!(seen["client_id"], CLIENT);
    assert_eq!(seen["scopes"], serde_json::json!(["mcp:read"]));
    assert_eq!(seen["audience"], serde_json::json!([resource]));

    // Another audience.
    let other = auth
        .token(CLIENT, "http://127.0.0.1:1/opaque/other", "mcp:read")
        .await?;
    let answer = call_with(&resource, &other).await?;
    assert_eq!(answer.status, 401);
    assert!(
        answer
            .www_authenticate
            .unwrap()
            .contains("token issued for another audience")
    );

    // Revoked, then garbage: inactive.
    auth.revoke(CLIENT, &token).await?;
    for bad in [token.as_str(), "garbage"] {
        let answer = call_with(&resource, bad).await?;
        assert_eq!(answer.status, 401, "{bad}");
        assert!(
            answer
                .www_authenticate
                .unwrap()
                .contains(r#"error="invalid_token", error_description="token is not active""#)
        );
    }
    Ok(())
}

#[tokio::test]
async fn wrong_client_secret_is_503_not_401() -> Result<()> {
    let auth = AuthServer::start().await?;
    let endpoint = auth.metadata().await?["introspection_endpoint"]
        .as_str()
        .unwrap()
        .to_owned();
    let (listener, resource) = listener("/opaque/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .build()?;
    let validator =
        IntrospectionValidator::builder(endpoint, rs.resource(), CLIENT, "wrong").build()?;
    serve(
        listener,
        protected_app("/opaque/mcp", &rs, rs.layer(validator)),
    );
    let token = auth.token(CLIENT, &resource, "mcp:read").await?;
    assert_eq!(call_with(&resource, &token).await?.status, 503);
    Ok(())
}
