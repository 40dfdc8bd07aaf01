//! The protected resource (RFC 9728) and its metadata endpoint.

use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use serde::{Deserialize, Serialize};

use super::dpop::{ALGORITHMS, DpopPolicy};
use crate::{BearerAuthLayer, Error, Result, TokenValidator};

/// The well-known path prefix of RFC 9728.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// OAuth 2.0 protected resource metadata (RFC 9728), as served by
/// [`ResourceServer::metadata_router`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the URL of the MCP endpoint.
    pub resource: String,
    /// Issuer identifiers of the authorization servers that issue tokens for this resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// The scopes this resource understands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How bearer tokens may be sent: always `["header"]`.
    #[serde(default)]
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A URL of human-readable documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// The JWS algorithms taken in DPoP proofs (RFC 9449), when DPoP is accepted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dpop_signing_alg_values_supported: Vec<String>,
    /// Whether only DPoP-bound tokens are taken.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound_access_tokens_required: bool,
}

/// A protected resource: an MCP endpoint guarded by OAuth.
///
/// It knows the resource URL (the audience every token must carry), its metadata and the
/// metadata URL, and the scopes every request needs. Build it with
/// [`ResourceServer::builder`]; cheap to clone.
#[derive(Debug, Clone)]
pub struct ResourceServer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    metadata: ProtectedResourceMetadata,
    metadata_url: String,
    /// The path-inserted well-known path, and the root one if different.
    paths: Vec<String>,
    required_scopes: Vec<String>,
    dpop: DpopPolicy,
}

impl ResourceServer {
    /// Starts describing the resource at `resource`: the absolute `http`/`https` URL of the MCP
    /// endpoint as clients use it (for instance `https://mcp.example.com/mcp`), without a
    /// fragment. Tokens must name exactly this string as audience.
    pub fn builder(resource: impl Into<String>) -> ResourceServerBuilder {
        ResourceServerBuilder {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            resource_documentation: None,
            dpop: DpopPolicy::Disabled,
        }
    }

    /// The resource URL (the required token audience).
    pub fn resource(&self) -> &str {
        &self.inner.metadata.resource
    }

    /// The metadata this resource publishes.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.inner.metadata
    }

    /// The URL of the metadata document, named by `resource_metadata` in challenges:
    /// `/.well-known/oauth-protected-resource` inserted before the resource's path.
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// The scopes every request needs (checked by [`BearerAuthLayer`]).
    pub fn required_scopes(&self) -> &[String] {
        &self.inner.required_scopes
    }

    /// Whether DPoP-bound tokens are taken.
    pub fn dpop(&self) -> DpopPolicy {
        self.inner.dpop
    }

    /// A layer validating tokens with `validator` for this resource; shorthand for
    /// [`BearerAuthLayer::new`].
    pub fn layer<V: TokenValidator>(&self, validator: V) -> BearerAuthLayer<V> {
        BearerAuthLayer::new(self, validator)
    }

    /// An axum router serving the metadata (JSON, `GET`) at
    /// `/.well-known/oauth-protected-resource/<resource path>` and, when the resource has a
    /// path, also at the root form `/.well-known/oauth-protected-resource`.
    ///
    /// Merge it into the application *outside* the [`BearerAuthLayer`]: clients fetch it
    /// without a token. Responses allow any origin (browser-based clients need that).
    pub fn metadata_router<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        let body = Arc::new(serde_json::to_vec(&self.inner.metadata).unwrap_or_default());
        let handler = move || {
            let body = body.clone();
            async move {
                (
                    [
                        (http::header::CONTENT_TYPE, "application/json"),
                        (http::header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
                        (http::header::CACHE_CONTROL, "max-age=3600"),
                    ],
                    body.as_ref().clone(),
                )
            }
        };
        self.inner.paths.iter().fold(Router::new(), |router, path| {
            router.route(path, get(handler.clone()))
        })
    }
}

/// Builds a [`ResourceServer`]; see [`ResourceServer::builder`].
#[derive(Debug, Clone)]
pub struct ResourceServerBuilder {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    dpop: DpopPolicy,
}

impl ResourceServerBuilder {
    /// Adds an authorization server (its issuer identifier) to the metadata.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Sets the scopes published as `scopes_supported`.
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the scopes every request needs (none by default). A token lacking one gets 403
    /// `insufficient_scope`; challenges name them in `scope`. A layer can override them
    /// ([`BearerAuthLayer::required_scopes`]), for instance per route.
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the human-readable `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// Sets the `resource_documentation` URL.
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// Whether to take DPoP-bound tokens (RFC 9449) with their proofs, beside bearer tokens
    /// ([`DpopPolicy::Accepted`]) or only them ([`DpopPolicy::Required`]); the metadata then
    /// lists the proof algorithms (and says when bound tokens are required), and challenges
    /// offer the `DPoP` scheme. [`DpopPolicy::Disabled`] by default.
    pub fn dpop(mut self, policy: DpopPolicy) -> Self {
        self.dpop = policy;
        self
    }

    /// Checks the resource URL and builds the resource server.
    ///
    /// Fails with [`Error::Config`] if the resource is not an absolute `http`/`https` URL
    /// without a fragment.
    pub fn build(self) -> Result<ResourceServer> {
        let url = url::Url::parse(&self.resource)
            .map_err(|e| Error::Config(format!("resource `{}`: {e}", self.resource)))?;
        if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
            return Err(Error::Config(format!(
                "resource `{}` is not an http(s) URL",
                self.resource
            )));
        }
        if url.fragment().is_some() {
            return Err(Error::Config(format!(
                "resource `{}` has a fragment",
                self.resource
            )));
        }
        let path = url.path().trim_end_matches('/');
        let well_known = format!("{WELL_KNOWN}{path}");
        let mut metadata_url = url.clone();
        metadata_url.set_path(&well_known);
        let mut paths = vec![well_known];
        if !path.is_empty() {
            paths.push(WELL_KNOWN.to_owned());
        }
        Ok(ResourceServer {
            inner: Arc::new(Inner {
                metadata: ProtectedResourceMetadata {
                    resource: self.resource,
                    authorization_servers: self.authorization_servers,
                    scopes_supported: self.scopes_supported,
                    bearer_methods_supported: vec!["header".to_owned()],
                    resource_name: self.resource_name,
                    resource_documentation: self.resource_documentation,
                    dpop_signing_alg_values_supported: match self.dpop {
                        DpopPolicy::Disabled => Vec::new(),
                        _ => ALGORITHMS.iter().map(|a| (*a).to_owned()).collect(),
                    },
                    dpop_bound_access_tokens_required: self.dpop == DpopPolicy::Required,
                },
                metadata_url: metadata_url.to_string(),
                paths,
                required_scopes: self.required_scopes,
                dpop: self.dpop,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls() {
        let rs = ResourceServer::builder("https://h.example:8443/a/mcp?x=1")
            .build()
            .unwrap();
        assert_eq!(
            rs.metadata_url(),
            "https://h.example:8443/.well-known/oauth-protected-resource/a/mcp?x=1"
        );
        let rs = ResourceServer::builder("https://h.example/")
            .build()
            .unwrap();
        assert_eq!(
            rs.metadata_url(),
            "https://h.example/.well-known/oauth-protected-resource"
        );
        assert_eq!(rs.inner.paths, [WELL_KNOWN]);
        assert!(ResourceServer::builder("urn:x").build().is_err());
        let json = |policy| {
            let rs = ResourceServer::builder("https://h/mcp")
                .dpop(policy)
                .build()
                .unwrap();
            serde_json::to_value(rs.metadata()).unwrap()
        };
        let off = json(DpopPolicy::Disabled);
        assert!(off.get("dpop_signing_alg_values_supported").is_none());
        assert!(off.get("dpop_bound_access_tokens_required").is_none());
        let on = json(DpopPolicy::Accepted);
        assert_eq!(on["dpop_signing_alg_values_supported"][0], "ES256");
        assert!(on.get("dpop_bound_access_tokens_required").is_none());
        assert_eq!(
            json(DpopPolicy::Required)["dpop_bound_access_tokens_required"],
            true
        );
        assert!(ResourceServer::builder("https://h/#f").build().is_err());
        assert!(ResourceServer::builder("/mcp").build().is_err());
    }
}
