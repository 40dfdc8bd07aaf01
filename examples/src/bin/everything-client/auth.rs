//! The `auth/*` scenarios: an [`OAuthClient`] from mcp-auth joined to the HTTP transport's
//! [`AuthProvider`] hook. The MCP calls that follow are the common ones of `main.rs`, through
//! `mcp-client` in the era the suite asks for.

use anyhow::Context as _;
use mcp_auth::{DpopKey, HeadlessUserAgent, IdJagExchange, OAuthClient, StaticAssertion};
use mcp_transport_http::client::AuthProvider;
use serde_json::Value;

/// The redirect URI announced by the headless user agent (never fetched: the flow stops at
/// the redirect to it and reads the code from its query).
const REDIRECT_URI: &str = "http://localhost:8090/callback";

/// This client's Client ID Metadata Document URL, used where the authorization server
/// supports them (the URL `auth/basic-cimd` expects).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The transport's auth hook for `scenario` (an `auth/*` name) against the MCP server at
/// `url`: an [`OAuthClient`] set up from `MCP_CONFORMANCE_CONTEXT`.
pub(crate) fn provider(scenario: &str, url: &str) -> anyhow::Result<impl AuthProvider> {
    // `OAuthClient` is the transport's `AuthProvider` (mcp-auth's `transport-http` feature).
    oauth_client(scenario, url)
}

/// The OAuth client for `scenario`, with what `MCP_CONFORMANCE_CONTEXT` gives:
/// - client credentials for `auth/client-credentials-*`;
/// - a JWT bearer grant with an ID-JAG exchanged at the enterprise IdP when the context names
///   one (`idp_token_endpoint`, `idp_id_token`: enterprise-managed authorization);
/// - a JWT bearer grant with the workload identity token `valid_jwt` when given
///   (workload identity federation);
/// - otherwise the authorization code grant through a headless user agent, with a DPoP key
///   (used where the authorization server takes DPoP proofs);
///
/// and a pre-registered identity (secret or private key) when the context gives one.
fn oauth_client(scenario: &str, url: &str) -> anyhow::Result<OAuthClient> {
    let context = crate::context()?;
    let field = |k: &str| context.get(k).and_then(Value::as_str);
    let mut builder = OAuthClient::builder(url).client_name("mcp-rust-sdk-everything-client");
    builder = if scenario.starts_with("auth/client-credentials") {
        builder.client_credentials()
    } else if let (Some(endpoint), Some(id_token)) =
        (field("idp_token_endpoint"), field("idp_id_token"))
    {
        let mut exchange = IdJagExchange::new(endpoint, id_token);
        if let Some(id) = field("idp_client_id") {
            exchange = exchange.client_id(id);
        }
        builder.jwt_bearer(exchange)
    } else if let Some(jwt) = field("valid_jwt") {
        builder.jwt_bearer(StaticAssertion::new(jwt))
    } else {
        builder
            .user_agent(HeadlessUserAgent::new(REDIRECT_URI)?)
            .client_metadata_document_url(CLIENT_METADATA_URL)
            .dpop(DpopKey::generate()?)
    };
    if let Some(id) = field("client_id") {
        builder = builder.client_id(id);
    }
    if let Some(secret) = field("client_secret") {
        builder = builder.client_secret(secret);
    }
    if let Some(pem) = field("private_key_pem") {
        use jsonwebtoken::{Algorithm, EncodingKey};
        let alg: Algorithm = field("signing_algorithm")
            .unwrap_or("ES256")
            .parse()
            .context("unknown signing_algorithm")?;
        let pem = pem.as_bytes();
        let key = match alg {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            _ => EncodingKey::from_rsa_pem(pem),
        }
        .context("private_key_pem is not a PEM private key")?;
        builder = builder.private_key_jwt(key, alg, None);
    }
    Ok(builder.build()?)
}
