//! OAuth end to end: a real authorization server (npm `oidc-provider`, run by
//! `tests/peers/oidc/provider.mjs`: dynamic registration, PKCE, resource indicators issuing
//! JWT access tokens, refresh tokens, client credentials, a headless login), our
//! `everything-server --http --auth-issuer` protected by `mcp-auth`'s `BearerAuthLayer`, and
//! our client (`mcp-client` over `StreamableHttpClientTransport`) whose auth hook is
//! `mcp-auth`'s `OAuthClient` with a headless user agent.

use mcp_auth::{DpopKey, InMemoryTokenStore, OAuthClient};
use serde_json::{Value, json};

use crate::auth_support::{
    AuthServer, ExpiryBlindStore, JsonValue as _, OAuthProvider, ProtectedServer,
    RecordingUserAgent, Refusal, SHORT_TOKEN_EXPIRED_AFTER, connect, raw_initialize, tool_text,
    whoami,
};
use crate::http_support::close;

fn refusal(status: u16, error: Option<&str>) -> Refusal {
    Refusal {
        status,
        error: error.map(str::to_owned),
    }
}

/// The parameters of the `Bearer` challenge `value`, e.g. `error="invalid_token"`.
fn has_param(value: &str, name: &str, expected: &str) -> bool {
    value.contains(&format!("{name}=\"{expected}\""))
}

/// The token identifier `whoami` reports (`jti`).
fn token_id(principal: &Value) -> String {
    principal["token_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no token_id in {principal}"))
        .to_owned()
}

#[tokio::test]
async fn authorization_code_flow_reaches_the_protected_server() {
    let auth = AuthServer::start().await;
    let server = ProtectedServer::start(&auth.issuer, None).await;
    let agent = RecordingUserAgent::new();
    let oauth = OAuthClient::builder(&server.url)
        .user_agent(agent.clone())
        .client_name("mcp-e2e-client")
        .build()
        .expect("an OAuth client");
    let provider = OAuthProvider::new(oauth.clone());

    // 401 → protected resource metadata → authorization server metadata → dynamic
    // registration → authorization code with PKCE (headless login) → token → 200.
    let (client, connection) = connect(&server.url, provider.clone()).await;
    assert_eq!(provider.refusals(), [refusal(401, None)]);
    assert_eq!(agent.authorizations(), ["mcp:read"]);
    let metadata = oauth.authorization_server().await.expect("discovered");
    assert_eq!(metadata.issuer, auth.issuer);

    let tools = client.list_tools(None).await.expect("tools/list");
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"whoami"), "{names:?}");
    assert!(names.contains(&"test_simple_text"), "{names:?}");
    assert_eq!(
        tool_text(&client, "test_simple_text").await,
        "This is a simple text response for testing."
    );

    // What the layer put in the request extensions, seen by the tool handler.
    let me = whoami(&client).await;
    assert_eq!(me["subject"], "test-user", "{me}");
    assert_eq!(me["scopes"], json!(["mcp:read"]), "{me}");
    assert_eq!(me["audience"], json!([server.url]), "{me}");
    assert_eq!(me["issuer"], json!(auth.issuer), "{me}");
    let client_id = me["client_id"].as_str().expect("a client_id");
    assert!(
        !client_id.is_empty() && client_id != "mcp-test-client",
        "{me}"
    );

    // The token keeps working: no more refusals, no more logins.
    assert_eq!(whoami(&client).await["token_id"], me["token_id"]);
    assert_eq!(provider.refusals().len(), 1);
    assert_eq!(agent.authorizations().len(), 1);
    close(client, connection).await;
    assert!(
        !server.stderr().contains("ERROR"),
        "server:\n{}",
        server.stderr()
    );
}

#[tokio::test]
async fn dpop_bound_tokens_reach_the_protected_server() {
    let auth = AuthServer::start().await;
    let server = ProtectedServer::start(&auth.issuer, None).await;
    let key = DpopKey::generate().expect("a DPoP key");
    let oauth = OAuthClient::builder(&server.url)
        .user_agent(RecordingUserAgent::new())
        .client_name("mcp-e2e-dpop")
        .dpop(key.clone())
        .build()
        .expect("an OAuth client");
    let provider = OAuthProvider::new(oauth.clone());

    // The server's 401 offers Bearer and DPoP, the provider takes ES256 proofs (and wants its
    // nonce, which the client follows): the token is bound to the key, and every MCP request
    // (POST, GET stream, DELETE) carries `Authorization: DPoP` and a fresh proof.
    let (client, connection) = connect(&server.url, provider.clone()).await;
    assert_eq!(provider.refusals(), [refusal(401, None)]);
    let me = whoami(&client).await;
    assert_eq!(me["dpop_jkt"], key.thumbprint(), "{me}");
    assert_eq!(me["subject"], "test-user", "{me}");
    assert_eq!(
        tool_text(&client, "test_simple_text").await,
        "This is a simple text response for testing."
    );
    assert_eq!(whoami(&client).await["token_id"], me["token_id"]);
    assert_eq!(provider.refusals().len(), 1, "no proof was refused");
    assert!(matches!(
        oauth.authorization_header().await,
        Err(mcp_auth::Error::Config(_))
    ));
    close(client, connection).await;
    assert!(
        !server.stderr().contains("ERROR"),
        "server:\n{}",
        server.stderr()
    );
}

#[tokio::test]
async fn a_token_for_another_resource_is_rejected() {
    let auth = AuthServer::start().await;
    let server = ProtectedServer::start(&auth.issuer, None).await;

    // No token: 401 pointing at the protected resource metadata, which needs no token.
    let (status, challenge) = raw_initialize(&server.url, None).await;
    assert_eq!(status, 401);
    let challenge = challenge.expect("a WWW-Authenticate challenge");
    let metadata_url = server
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert!(
        has_param(&challenge, "resource_metadata", &metadata_url),
        "{challenge}"
    );
    let metadata: Value = reqwest::get(&metadata_url)
        .await
        .expect("the metadata answers")
        .json_value()
        .await;
    assert_eq!(metadata["resource"], json!(server.url));
    assert_eq!(metadata["authorization_servers"], json!([auth.issuer]));

    // A valid token of the same authorization server, issued for another resource.
    let elsewhere = "http://127.0.0.1:9/mcp";
    let foreign = auth.client_credentials_token(elsewhere, "mcp:read").await;
    let (status, challenge) = raw_initialize(&server.url, Some(&foreign)).await;
    assert_eq!(status, 401);
    let challenge = challenge.expect("a WWW-Authenticate challenge");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        has_param(&challenge, "error", "invalid_token"),
        "{challenge}"
    );

    // The same grant for this server's resource is accepted: the audience made the
    // difference.
    let ours = auth.client_credentials_token(&server.url, "mcp:read").await;
    let (status, challenge) = raw_initialize(&server.url, Some(&ours)).await;
    assert_eq!(status, 200, "{challenge:?}\nserver:\n{}", server.stderr());
}

#[tokio::test]
async fn an_expired_token_refused_by_the_server_is_refreshed() {
    let auth = AuthServer::start().await;
    let server = ProtectedServer::start(&auth.issuer, None).await;
    let agent = RecordingUserAgent::new();
    // Registered as `mcp-test-short`: 1 s access tokens. The store hides their expiry, so
    // the client sends the expired token and learns from the server's 401.
    let oauth = OAuthClient::builder(&server.url)
        .user_agent(agent.clone())
        .client_name("mcp-test-short")
        .token_store(ExpiryBlindStore::default())
        .build()
        .expect("an OAuth client");
    let provider = OAuthProvider::new(oauth);
    let (client, connection) = connect(&server.url, provider.clone()).await;
    let first = token_id(&whoami(&client).await);
    assert_eq!(provider.refusals(), [refusal(401, None)]);

    // Waiting out the token's lifetime is the point of this test.
    tokio::time::sleep(SHORT_TOKEN_EXPIRED_AFTER).await;

    let me = whoami(&client).await;
    assert_ne!(token_id(&me), first, "a new access token");
    assert_eq!(me["subject"], "test-user", "{me}");
    let refusals = provider.refusals();
    assert!(
        refusals[1..].contains(&refusal(401, Some("invalid_token"))),
        "{refusals:?}"
    );
    // Refreshed with the refresh token: the user was not asked again.
    assert_eq!(agent.authorizations(), ["mcp:read"]);
    close(client, connection).await;
}

#[tokio::test]
async fn an_expiring_token_is_refreshed_before_it_is_sent() {
    let auth = AuthServer::start().await;
    let server = ProtectedServer::start(&auth.issuer, None).await;
    let agent = RecordingUserAgent::new();
    let oauth = OAuthClient::builder(&server.url)
        .user_agent(agent.clone())
        .client_name("mcp-test-short")
        .token_store(InMemoryTokenStore::new())
        .build()
        .expect("an OAuth client");
    let provider = OAuthProvider::new(oauth);
    let (client, connection) = connect(&server.url, provider.clone()).await;
    let first = token_id(&whoami(&client).await);

    tokio::time::sleep(SHORT_TOKEN_EXPIRED_AFTER).await;

    // The client knows the token expired and refreshes it first: the server refuses nothing.
    let me = whoami(&client).await;
    assert_ne!(token_id(&me), first, "a new access token");
    assert_eq!(provider.refusals(), [refusal(401, None)]);
    assert_eq!(agent.authorizations(), ["mcp:read"]);
    close(client, connection).await;
}

#[tokio::test]
async fn a_missing_scope_leads_to_step_up() {
    let auth = AuthServer::start().await;
    // This server requires `mcp:read mcp:write`; the client asks for `mcp:read` only.
    let server = ProtectedServer::start(&auth.issuer, Some("mcp:read mcp:write")).await;
    let agent = RecordingUserAgent::new();
    let oauth = OAuthClient::builder(&server.url)
        .user_agent(agent.clone())
        .scopes(["mcp:read"])
        .build()
        .expect("an OAuth client");
    let provider = OAuthProvider::new(oauth);

    // 401 → authorization for `mcp:read` → 403 insufficient_scope → authorization for the
    // union → 200.
    let (client, connection) = connect(&server.url, provider.clone()).await;
    assert_eq!(
        provider.refusals(),
        [refusal(401, None), refusal(403, Some("insufficient_scope"))]
    );
    assert_eq!(agent.authorizations(), ["mcp:read", "mcp:read mcp:write"]);
    let me = whoami(&client).await;
    assert_eq!(me["scopes"], json!(["mcp:read", "mcp:write"]), "{me}");
    assert_eq!(
        tool_text(&client, "test_simple_text").await,
        "This is a simple text response for testing."
    );
    assert_eq!(provider.refusals().len(), 2);
    close(client, connection).await;
}
