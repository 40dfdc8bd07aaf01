//! The layer with `JwtValidator` in front of an axum route.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_auth::{JwtValidator, ResourceServer};
use serde_json::{Value, json};

use crate::support::{
    AuthServer, CLIENT, SHORT_LIVED_CLIENT, call, call_with, listener, protected_app, serve,
};

/// The provider, a protected app at `/mcp` requiring `mcp:read`, and its resource URL.
async fn setup(
    configure: impl FnOnce(mcp_auth::JwtValidatorBuilder) -> mcp_auth::JwtValidatorBuilder,
) -> Result<(AuthServer, String)> {
    let auth = AuthServer::start().await?;
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .scopes_supported(["mcp:read", "mcp:write"])
        .required_scopes(["mcp:read"])
        .build()?;
    let validator = configure(JwtValidator::builder(&auth.issuer, rs.resource())).build()?;
    serve(listener, protected_app("/mcp", &rs, rs.layer(validator)));
    Ok((auth, resource))
}

fn metadata_url(resource: &str) -> String {
    resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
}

#[tokio::test]
async fn valid_token_reaches_the_handler_with_its_principal() -> Result<()> {
    let (auth, resource) = setup(|b| b).await?;
    let token = auth.token(CLIENT, &resource, "mcp:read mcp:write").await?;
    let answer = call_with(&resource, &token).await?;
    assert_eq!(answer.status, 200, "{answer:?}");
    let mut seen: Value = serde_json::from_str(&answer.body)?;
    // With `transport-http`, the id that binds MCP sessions: issuer and subject.
    let id = seen.as_object_mut().unwrap().remove("principal_id");
    let expected =
        cfg!(feature = "transport-http").then(|| json!([auth.issuer, "sub", CLIENT]).to_string());
    assert_eq!(id, Some(json!(expected)));
    assert_eq!(
        seen,
        json!({
            "subject": CLIENT,
            "client_id": CLIENT,
            "scopes": ["mcp:read", "mcp:write"],
            "audience": [resource],
            "issuer": auth.issuer,
            "has_exp": true,
        })
    );
    Ok(())
}

#[tokio::test]
async fn missing_or_malformed_authorization_gets_a_challenge() -> Result<()> {
    let (auth, resource) = setup(|b| b).await?;
    let prm = metadata_url(&resource);

    let answer = call(&resource, None).await?;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.www_authenticate.unwrap(),
        format!(r#"Bearer resource_metadata="{prm}", scope="mcp:read""#)
    );

    // Another scheme carries no bearer token: the same challenge.
    let answer = call(&resource, Some("Basic bWNwOnNlY3JldA==")).await?;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.www_authenticate.unwrap(),
        format!(r#"Bearer resource_metadata="{prm}", scope="mcp:read""#)
    );

    for malformed in [
        "Bearer",
        "Bearer ",
        "Bearer a b",
        "Bearer a=b",
        "\"Bearer\" x",
    ] {
        let answer = call(&resource, Some(malformed)).await?;
        assert_eq!(answer.status, 401, "{malformed:?}");
        assert_eq!(
            answer.www_authenticate.unwrap(),
            format!(
                r#"Bearer error="invalid_request", resource_metadata="{prm}", scope="mcp:read""#
            ),
            "{malformed:?}"
        );
    }

    // A well-formed token that is not a JWT, and a token in the query string (ignored).
    let answer = call_with(&resource, "not-a-jwt").await?;
    assert_eq!(answer.status, 401);
    assert!(
        answer
            .www_authenticate
            .unwrap()
            .starts_with(r#"Bearer error="invalid_token""#)
    );
    let token = auth.token(CLIENT, &resource, "mcp:read").await?;
    let answer = call(&format!("{resource}?access_token={token}"), None).await?;
    assert_eq!(answer.status, 401);
    Ok(())
}

#[tokio::test]
async fn token_for_another_audience_is_rejected() -> Result<()> {
    let (auth, resource) = setup(|b| b).await?;
    let other = auth
        .token(CLIENT, "http://127.0.0.1:1/other", "mcp:read")
        .await?;
    let answer = call_with(&resource, &other).await?;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.www_authenticate.unwrap(),
        format!(
            r#"Bearer error="invalid_token", error_description="token issued for another audience", resource_metadata="{}", scope="mcp:read""#,
            metadata_url(&resource)
        )
    );
    Ok(())
}

#[tokio::test]
async fn missing_required_scope_is_forbidden() -> Result<()> {
    let auth = AuthServer::start().await?;
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .build()?;
    let validator = JwtValidator::builder(&auth.issuer, rs.resource()).build()?;
    // No scope required by the resource; this route's layer requires mcp:write.
    let layer = rs
        .layer(validator)
        .required_scopes(["mcp:read", "mcp:write"]);
    serve(listener, protected_app("/mcp", &rs, layer));

    let read_only = auth.token(CLIENT, &resource, "mcp:read").await?;
    let answer = call_with(&resource, &read_only).await?;
    assert_eq!(answer.status, 403);
    assert_eq!(
        answer.www_authenticate.unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="{}""#,
            metadata_url(&resource)
        )
    );
    let both = auth.token(CLIENT, &resource, "mcp:read mcp:write").await?;
    assert_eq!(call_with(&resource, &both).await?.status, 200);
    Ok(())
}

#[tokio::test]
async fn expired_token_is_rejected() -> Result<()> {
    let (auth, resource) = setup(|b| b.leeway(Duration::ZERO)).await?;
    // This client's tokens live one second.
    let token = auth
        .token(SHORT_LIVED_CLIENT, &resource, "mcp:read")
        .await?;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let answer = call_with(&resource, &token).await?;
    assert_eq!(answer.status, 401);
    assert!(
        answer
            .www_authenticate
            .unwrap()
            .contains(r#"error="invalid_token", error_description="token expired""#)
    );
    Ok(())
}

/// Forwards `GET /jwks` to the provider's JWKS, counting requests.
async fn counting_jwks_proxy(upstream: String) -> Result<(String, Arc<AtomicUsize>)> {
    let count = Arc::new(AtomicUsize::new(0));
    let (listener, url) = listener("/jwks").await?;
    let router = Router::new()
        .route(
            "/jwks",
            get(
                |State((upstream, count)): State<(String, Arc<AtomicUsize>)>| async move {
                    count.fetch_add(1, Ordering::SeqCst);
                    let response = reqwest::get(upstream).await.map_err(|e| e.to_string())?;
                    response.text().await.map_err(|e| e.to_string())
                },
            ),
        )
        .with_state((upstream, count.clone()));
    crate::support::serve(listener, router);
    Ok((url, count))
}

/// `token` with its header's `kid` replaced (the signature no longer matters: no key has it).
fn with_kid(token: &str, kid: &str) -> String {
    let (_, rest) = token.split_once('.').unwrap();
    let header = json!({ "alg": "RS256", "typ": "at+jwt", "kid": kid });
    format!("{}.{rest}", URL_SAFE_NO_PAD.encode(header.to_string()))
}

#[tokio::test]
async fn unknown_kid_refreshes_the_jwks_at_most_once_per_interval() -> Result<()> {
    let auth = AuthServer::start().await?;
    let jwks_uri = auth.metadata().await?["jwks_uri"]
        .as_str()
        .unwrap()
        .to_owned();
    let (proxy, fetches) = counting_jwks_proxy(jwks_uri).await?;
    let interval = Duration::from_secs(2);
    let (_auth, resource) = {
        let (listener, resource) = listener("/mcp").await?;
        let rs = ResourceServer::builder(&resource)
            .authorization_server(&auth.issuer)
            .build()?;
        let validator = JwtValidator::builder(&auth.issuer, rs.resource())
            .jwks_uri(proxy)
            .min_refresh_interval(interval)
            .build()?;
        serve(listener, protected_app("/mcp", &rs, rs.layer(validator)));
        (&auth, resource)
    };

    let token = auth.token(CLIENT, &resource, "mcp:read").await?;
    assert_eq!(call_with(&resource, &token).await?.status, 200);
    assert_eq!(call_with(&resource, &token).await?.status, 200);
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        1,
        "fetched on first use, then cached"
    );

    // Right after a fetch, unknown kids do not refetch.
    let answer = call_with(&resource, &with_kid(&token, "rotated-0")).await?;
    assert_eq!(answer.status, 401);
    assert!(
        answer
            .www_authenticate
            .unwrap()
            .contains("no signing key with kid `rotated-0`")
    );
    assert_eq!(fetches.load(Ordering::SeqCst), 1);

    // After the interval, one unknown kid refetches once; a flood of them does not.
    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    for i in 1..=10 {
        let answer = call_with(&resource, &with_kid(&token, &format!("rotated-{i}"))).await?;
        assert_eq!(answer.status, 401);
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
    assert_eq!(call_with(&resource, &token).await?.status, 200);
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
    Ok(())
}

#[tokio::test]
async fn unreachable_authorization_server_is_503() -> Result<()> {
    let auth = AuthServer::start().await?;
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .build()?;
    // Port 1 on 127.0.0.1: connection refused.
    let validator = JwtValidator::builder(&auth.issuer, rs.resource())
        .jwks_uri("http://127.0.0.1:1/jwks")
        .build()?;
    serve(listener, protected_app("/mcp", &rs, rs.layer(validator)));
    let token = auth.token(CLIENT, &resource, "mcp:read").await?;
    let answer = call_with(&resource, &token).await?;
    assert_eq!(answer.status, 503);
    assert_eq!(answer.www_authenticate, None);
    Ok(())
}
