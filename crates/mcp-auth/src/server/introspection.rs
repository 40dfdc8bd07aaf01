//! RFC 7662 token introspection.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::fetch;
use super::principal::string_or_array;
use crate::{Error, Principal, Result, TokenValidator};

/// Validates tokens (typically opaque ones) by asking the authorization server's introspection
/// endpoint (RFC 7662).
///
/// Each validation POSTs the token to the endpoint, authenticating this resource server with
/// its client credentials (HTTP Basic, `client_secret_basic`), and accepts the token only if
/// the answer says `"active": true`, its `aud` contains the resource URL (always checked; an
/// answer without `aud` is rejected), its `exp`, if any, is not past (with a leeway, 30 s by
/// default), and its `iss`, if an issuer is configured, matches. Scopes are checked by
/// [`BearerAuthLayer`](crate::BearerAuthLayer). Answers are not cached: a revoked token is
/// rejected on the next request. Cheap to clone.
#[derive(Clone)]
pub struct IntrospectionValidator {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint: String,
    audience: String,
    client_id: String,
    client_secret: String,
    issuer: Option<String>,
    leeway: Duration,
    http: reqwest::Client,
}

impl fmt::Debug for IntrospectionValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntrospectionValidator")
            .field("endpoint", &self.inner.endpoint)
            .field("audience", &self.inner.audience)
            .field("client_id", &self.inner.client_id)
            .field("issuer", &self.inner.issuer)
            .finish_non_exhaustive()
    }
}

impl IntrospectionValidator {
    /// Starts a validator asking `endpoint` (the authorization server's
    /// `introspection_endpoint`) about tokens for the resource `audience` (the resource URL,
    /// [`ResourceServer::resource`](crate::ResourceServer::resource)), authenticating as the
    /// confidential client `client_id` with `client_secret`.
    pub fn builder(
        endpoint: impl Into<String>,
        audience: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> IntrospectionValidatorBuilder {
        IntrospectionValidatorBuilder {
            endpoint: endpoint.into(),
            audience: audience.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            issuer: None,
            leeway: Duration::from_secs(30),
            http: None,
        }
    }
}

impl TokenValidator for IntrospectionValidator {
    async fn validate(&self, token: &str) -> Result<Principal> {
        let inner = &self.inner;
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        // RFC 6749 §2.3.1: the credentials are form-encoded before Basic encoding.
        let encode =
            |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let request = inner
            .http
            .post(&inner.endpoint)
            .basic_auth(encode(&inner.client_id), Some(encode(&inner.client_secret)))
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body);
        let claims = fetch::json_object(request, "token introspection").await?;
        if claims.get("active") != Some(&Value::Bool(true)) {
            return Err(Error::InvalidToken("token is not active".into()));
        }
        if !string_or_array(claims.get("aud")).contains(&inner.audience) {
            return Err(Error::InvalidToken(
                "token issued for another audience".into(),
            ));
        }
        if let Some(exp) = claims.get("exp") {
            let exp = exp
                .as_u64()
                .ok_or_else(|| Error::InvalidToken("malformed exp".into()))?;
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            if exp.saturating_add(inner.leeway.as_secs()) <= now.as_secs() {
                return Err(Error::InvalidToken("token expired".into()));
            }
        }
        if let Some(issuer) = &inner.issuer
            && claims.get("iss").and_then(Value::as_str) != Some(issuer.as_str())
        {
            return Err(Error::InvalidToken("token issued by another issuer".into()));
        }
        Ok(Principal::from_claims(claims))
    }
}

/// Builds an [`IntrospectionValidator`]; see [`IntrospectionValidator::builder`].
#[derive(Clone)]
pub struct IntrospectionValidatorBuilder {
    endpoint: String,
    audience: String,
    client_id: String,
    client_secret: String,
    issuer: Option<String>,
    leeway: Duration,
    http: Option<reqwest::Client>,
}

impl fmt::Debug for IntrospectionValidatorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntrospectionValidatorBuilder")
            .field("endpoint", &self.endpoint)
            .field("audience", &self.audience)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl IntrospectionValidatorBuilder {
    /// Also requires the answer's `iss` to be `issuer`.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets the clock-skew allowance for `exp` (30 s by default; whole seconds).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Uses this HTTP client (by default one with 10 s timeouts that follows no redirects).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Builds the validator.
    ///
    /// Fails with [`Error::Config`] if the endpoint is not a URL.
    pub fn build(self) -> Result<IntrospectionValidator> {
        url::Url::parse(&self.endpoint).map_err(|e| {
            Error::Config(format!("introspection endpoint `{}`: {e}", self.endpoint))
        })?;
        let http = match self.http {
            Some(http) => http,
            None => fetch::default_client()?,
        };
        Ok(IntrospectionValidator {
            inner: Arc::new(Inner {
                endpoint: self.endpoint,
                audience: self.audience,
                client_id: self.client_id,
                client_secret: self.client_secret,
                issuer: self.issuer,
                leeway: self.leeway,
                http,
            }),
        })
    }
}
