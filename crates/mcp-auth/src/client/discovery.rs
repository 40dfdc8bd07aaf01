//! Discovery: protected resource metadata (RFC 9728), then authorization server metadata
//! (RFC 8414, OpenID Connect Discovery), with the 2025-03-26 fallbacks.

use serde_json::{Map, Value};
use url::Url;

use super::http::{send, string_list};
use crate::{Error, Result};

/// What the client knows of an authorization server, from its metadata (RFC 8414) or, for a
/// 2025-03-26 server without metadata, from the default endpoints.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier.
    pub issuer: String,
    /// The authorization endpoint.
    pub authorization_endpoint: Option<String>,
    /// The token endpoint.
    pub token_endpoint: String,
    /// The dynamic client registration endpoint (RFC 7591).
    pub registration_endpoint: Option<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// `grant_types_supported`.
    pub grant_types_supported: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported`; the client refuses to proceed unless it has `S256`.
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub client_id_metadata_document_supported: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub authorization_response_iss_parameter_supported: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): the server takes DPoP proofs
    /// signed with these algorithms.
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// True when there was no metadata document and these are the 2025-03-26 default
    /// endpoints (`/authorize`, `/token`, `/register` at the MCP server's origin).
    pub defaults: bool,
}

impl AuthorizationServerMetadata {
    fn from_json(json: &Map<String, Value>) -> Result<Self> {
        let string = |k: &str| json.get(k).and_then(Value::as_str).map(str::to_owned);
        let flag = |k: &str| json.get(k).and_then(Value::as_bool).unwrap_or(false);
        Ok(Self {
            issuer: string("issuer").ok_or_else(|| {
                Error::authorization_server_msg("authorization server metadata: no issuer")
            })?,
            authorization_endpoint: string("authorization_endpoint"),
            token_endpoint: string("token_endpoint").ok_or_else(|| {
                Error::authorization_server_msg("authorization server metadata: no token_endpoint")
            })?,
            registration_endpoint: string("registration_endpoint"),
            scopes_supported: string_list(json.get("scopes_supported")),
            grant_types_supported: string_list(json.get("grant_types_supported")),
            token_endpoint_auth_methods_supported: string_list(
                json.get("token_endpoint_auth_methods_supported"),
            ),
            code_challenge_methods_supported: string_list(
                json.get("code_challenge_methods_supported"),
            ),
            client_id_metadata_document_supported: flag("client_id_metadata_document_supported"),
            authorization_response_iss_parameter_supported: flag(
                "authorization_response_iss_parameter_supported",
            ),
            dpop_signing_alg_values_supported: string_list(
                json.get("dpop_signing_alg_values_supported"),
            ),
            defaults: false,
        })
    }

    /// The 2025-03-26 defaults at `origin` (no trailing slash).
    fn defaults(origin: &str) -> Self {
        Self {
            issuer: origin.to_owned(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            grant_types_supported: None,
            token_endpoint_auth_methods_supported: None,
            // 2025-03-26 makes PKCE mandatory for every authorization server.
            code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
            dpop_signing_alg_values_supported: None,
            defaults: true,
        }
    }
}

/// The outcome of discovery.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The resource indicator to ask tokens for.
    pub(crate) resource: String,
    /// `scopes_supported` of the protected resource metadata.
    pub(crate) resource_scopes: Option<Vec<String>>,
    /// The JWS algorithms the resource takes in DPoP proofs (RFC 9728 §2
    /// `dpop_signing_alg_values_supported`), if it says.
    pub(crate) resource_dpop_algs: Option<Vec<String>>,
    /// RFC 9728 §2 `dpop_bound_access_tokens_required`.
    pub(crate) resource_dpop_required: bool,
    pub(crate) metadata: AuthorizationServerMetadata,
}

/// The canonical URI of an MCP server (the spec's "Canonical Server URI"): absolute `http(s)`,
/// lowercase scheme and host, no fragment, no trailing slash for an empty path.
pub(crate) fn canonical_resource(server_url: &str) -> Result<String> {
    let mut url = Url::parse(server_url)
        .map_err(|e| Error::Config(format!("MCP server URL `{server_url}`: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(Error::Config(format!(
            "MCP server URL `{server_url}` is not an http(s) URL"
        )));
    }
    url.set_fragment(None);
    let mut s = url.to_string();
    if url.path() == "/" && url.query().is_none() {
        s.pop();
    }
    Ok(s)
}

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// `origin + prefix + path` (the path trimmed of its trailing slash), the RFC 8414 / RFC 9728
/// well-known path insertion.
fn insert_well_known(url: &Url, prefix: &str) -> String {
    let path = url.path().trim_end_matches('/');
    format!("{}{prefix}{path}", origin(url))
}

/// GETs a JSON object; `Ok(None)` for a non-2xx answer or a body that is not a JSON object
/// (the next candidate is tried), `Err` when the server cannot be reached.
async fn get_json(
    http: &reqwest::Client,
    url: &str,
    what: &str,
) -> Result<Option<Map<String, Value>>> {
    let body = send(http.get(url), what).await?;
    if !body.is_success() {
        tracing::debug!(url, status = body.status, "{what}: not found here");
        return Ok(None);
    }
    Ok(body.json(what).ok())
}

/// Whether `resource` (from the metadata) names the MCP server at `server`: same origin, and
/// the server's path is the resource's path or below it.
fn resource_matches(server: &Url, resource: &str) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.origin() != server.origin() || resource.fragment().is_some() {
        return false;
    }
    let base = resource.path().trim_end_matches('/');
    let path = server.path();
    path == base || path.trim_end_matches('/') == base || path.starts_with(&format!("{base}/"))
}

/// Discovers the resource and its authorization server for the MCP server `server_url`
/// (canonical), starting from the challenge's `resource_metadata` if any.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server_url: &str,
    resource_metadata: Option<&str>,
) -> Result<Discovered> {
    let server = Url::parse(server_url)
        .map_err(|e| Error::Config(format!("MCP server URL `{server_url}`: {e}")))?;
    let mut candidates = Vec::new();
    if let Some(url) = resource_metadata {
        candidates.push(url.to_owned());
    }
    let well_known = "/.well-known/oauth-protected-resource";
    if !server.path().trim_end_matches('/').is_empty() {
        candidates.push(insert_well_known(&server, well_known));
    }
    candidates.push(format!("{}{well_known}", origin(&server)));
    candidates.dedup();

    for candidate in &candidates {
        let Some(prm) = get_json(http, candidate, "protected resource metadata").await? else {
            continue;
        };
        let resource = prm.get("resource").and_then(Value::as_str).ok_or_else(|| {
            Error::Rejected(format!(
                "protected resource metadata at {candidate} has no resource"
            ))
        })?;
        if !resource_matches(&server, resource) {
            return Err(Error::Rejected(format!(
                "protected resource metadata names resource `{resource}`, not `{server_url}`"
            )));
        }
        let issuer = string_list(prm.get("authorization_servers"))
            .and_then(|list| list.into_iter().next())
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "protected resource metadata at {candidate} names no authorization server"
                ))
            })?;
        let metadata = authorization_server(http, &issuer).await?.ok_or_else(|| {
            Error::authorization_server_msg(format!(
                "no authorization server metadata found for issuer `{issuer}`"
            ))
        })?;
        return Ok(Discovered {
            resource: resource.to_owned(),
            resource_scopes: string_list(prm.get("scopes_supported")),
            resource_dpop_algs: string_list(prm.get("dpop_signing_alg_values_supported")),
            resource_dpop_required: prm
                .get("dpop_bound_access_tokens_required")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            metadata,
        });
    }

    // 2025-03-26: no protected resource metadata; the MCP server's origin is the
    // authorization server, with metadata at its root or else the default endpoints.
    tracing::debug!(
        server_url,
        "no protected resource metadata: 2025-03-26 fallback"
    );
    let base = origin(&server);
    let url = format!("{base}/.well-known/oauth-authorization-server");
    let metadata = match get_json(http, &url, "authorization server metadata").await? {
        Some(json) => AuthorizationServerMetadata::from_json(&json)?,
        None => AuthorizationServerMetadata::defaults(&base),
    };
    Ok(Discovered {
        resource: server_url.to_owned(),
        resource_scopes: None,
        resource_dpop_algs: None,
        resource_dpop_required: false,
        metadata,
    })
}

/// The metadata URLs to try for `issuer`, in the spec's order.
fn metadata_candidates(issuer: &Url) -> Vec<String> {
    let base = origin(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Fetches and checks the metadata of `issuer`; `Ok(None)` if none of the well-known URLs
/// has it.
async fn authorization_server(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<Option<AuthorizationServerMetadata>> {
    let url = Url::parse(issuer)
        .map_err(|e| Error::Rejected(format!("authorization server `{issuer}`: {e}")))?;
    for candidate in metadata_candidates(&url) {
        let Some(json) = get_json(http, &candidate, "authorization server metadata").await? else {
            continue;
        };
        let metadata = AuthorizationServerMetadata::from_json(&json)?;
        // RFC 8414 §3.3: the issuer must be identical to the one the metadata was asked for.
        if metadata.issuer != issuer {
            return Err(Error::Rejected(format!(
                "metadata at {candidate} names issuer `{}`, not `{issuer}`",
                metadata.issuer
            )));
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical() {
        assert_eq!(
            canonical_resource("HTTPS://MCP.Example.com/").unwrap(),
            "https://mcp.example.com"
        );
        assert_eq!(
            canonical_resource("https://mcp.example.com/server/mcp#x").unwrap(),
            "https://mcp.example.com/server/mcp"
        );
        assert_eq!(
            canonical_resource("http://h:8080").unwrap(),
            "http://h:8080"
        );
        assert!(canonical_resource("mcp.example.com").is_err());
    }

    #[test]
    fn metadata_order() {
        let with_path = Url::parse("https://auth.example.com/tenant1").unwrap();
        assert_eq!(
            metadata_candidates(&with_path),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let root = Url::parse("https://auth.example.com").unwrap();
        assert_eq!(
            metadata_candidates(&root),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn resource_match() {
        let server = Url::parse("https://h/a/mcp").unwrap();
        assert!(resource_matches(&server, "https://h/a/mcp"));
        assert!(resource_matches(&server, "https://h/a"));
        assert!(resource_matches(&server, "https://h"));
        assert!(!resource_matches(&server, "https://h/b"));
        assert!(!resource_matches(&server, "https://h/a/mc"));
        assert!(!resource_matches(&server, "https://other/a/mcp"));
    }
}
