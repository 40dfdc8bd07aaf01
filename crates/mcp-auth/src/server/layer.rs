//! The tower layer: bearer extraction, validation, scope check, challenges.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::header::{AUTHORIZATION, CACHE_CONTROL, HeaderValue, WWW_AUTHENTICATE};
use http::{HeaderMap, Request, Response, StatusCode};
use tower::{Layer, Service};

use crate::{Error, ResourceServer, TokenValidator};

/// A tower [`Layer`] that lets a request through only with a valid bearer token.
///
/// For each request, [`BearerAuth`]:
///
/// 1. reads the token from the `Authorization: Bearer <token>` header (only there: never from
///    the query string or the body). No such header (or another scheme) → 401 with
///    `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"[, scope="<required>"]`;
///    a malformed header (repeated, not ASCII, not a single token68) → 401 with
///    `error="invalid_request"` added;
/// 2. validates it with the [`TokenValidator`]: a rejected token → 401 with
///    `error="invalid_token"` and an `error_description`; the authorization server
///    unreachable → 503;
/// 3. checks the required scopes (every request): missing ones → 403 with
///    `WWW-Authenticate: Bearer error="insufficient_scope", scope="<required>",
///    resource_metadata="<metadata URL>"`;
/// 4. inserts the [`Principal`](crate::Principal) and its [`Scopes`](crate::Scopes) into the
///    request extensions and calls the inner service.
///
/// Error responses have an empty body (`B::default()`) and `Cache-Control: no-store`. The
/// request is otherwise passed on untouched; see the crate docs on token passthrough.
pub struct BearerAuthLayer<V> {
    validator: Arc<V>,
    config: Arc<Config>,
}

#[derive(Debug)]
struct Config {
    metadata_url: String,
    required_scopes: Vec<String>,
}

impl<V> BearerAuthLayer<V> {
    /// A layer protecting `resource`, with its required scopes, validating tokens with
    /// `validator` (which must check the audience against [`ResourceServer::resource`]).
    pub fn new(resource: &ResourceServer, validator: V) -> Self {
        Self {
            validator: Arc::new(validator),
            config: Arc::new(Config {
                metadata_url: resource.metadata_url().to_owned(),
                required_scopes: resource.required_scopes().to_vec(),
            }),
        }
    }

    /// Replaces the required scopes, for instance to require more on some routes.
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(self, scopes: I) -> Self {
        Self {
            validator: self.validator,
            config: Arc::new(Config {
                metadata_url: self.config.metadata_url.clone(),
                required_scopes: scopes.into_iter().map(Into::into).collect(),
            }),
        }
    }
}

impl<V> Clone for BearerAuthLayer<V> {
    fn clone(&self) -> Self {
        Self {
            validator: self.validator.clone(),
            config: self.config.clone(),
        }
    }
}

impl<V> fmt::Debug for BearerAuthLayer<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerAuthLayer")
            .field("validator", &std::any::type_name::<V>())
            .field("metadata_url", &self.config.metadata_url)
            .field("required_scopes", &self.config.required_scopes)
            .finish()
    }
}

impl<S, V> Layer<S> for BearerAuthLayer<V> {
    type Service = BearerAuth<S, V>;

    fn layer(&self, inner: S) -> Self::Service {
        BearerAuth {
            inner,
            validator: self.validator.clone(),
            config: self.config.clone(),
        }
    }
}

/// The service made by [`BearerAuthLayer`].
pub struct BearerAuth<S, V> {
    inner: S,
    validator: Arc<V>,
    config: Arc<Config>,
}

impl<S: Clone, V> Clone for BearerAuth<S, V> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            validator: self.validator.clone(),
            config: self.config.clone(),
        }
    }
}

impl<S: fmt::Debug, V> fmt::Debug for BearerAuth<S, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerAuth")
            .field("inner", &self.inner)
            .field("validator", &std::any::type_name::<V>())
            .field("metadata_url", &self.config.metadata_url)
            .finish()
    }
}

impl<S, V, ReqBody, ResBody> Service<Request<ReqBody>> for BearerAuth<S, V>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    V: TokenValidator,
    ReqBody: Send + 'static,
    ResBody: Default + Send + 'static,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future =
        Pin<Box<dyn Future<Output = Result<Response<ResBody>, S::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<ReqBody>) -> Self::Future {
        // The clone that was driven to readiness serves this request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let validator = self.validator.clone();
        let config = self.config.clone();
        Box::pin(async move {
            let token = match bearer_token(req.headers()) {
                Ok(Some(token)) => token.to_owned(),
                Ok(None) => return Ok(config.challenge(Challenge::Missing)),
                Err(()) => return Ok(config.challenge(Challenge::Malformed)),
            };
            let principal = match validator.validate(&token).await {
                Ok(principal) => principal,
                Err(Error::InvalidToken(reason)) => {
                    tracing::debug!(%reason, "bearer token rejected");
                    return Ok(config.challenge(Challenge::Invalid(&reason)));
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot validate bearer token");
                    return Ok(config.challenge(Challenge::Unavailable));
                }
            };
            if !principal.scopes.contains_all(&config.required_scopes) {
                return Ok(config.challenge(Challenge::InsufficientScope));
            }
            req.extensions_mut().insert(principal.scopes.clone());
            req.extensions_mut().insert(principal);
            inner.call(req).await
        })
    }
}

/// The bearer token of the `Authorization` header: `Ok(None)` if there is no such header or it
/// uses another scheme, `Err` if it is malformed.
fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, ()> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(());
    }
    let value = value.to_str().map_err(|_| ())?;
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return if scheme.is_empty() || !scheme.bytes().all(is_tchar) {
            Err(())
        } else {
            Ok(None)
        };
    }
    let token = rest.trim_start_matches(' ');
    // token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    let body = token.trim_end_matches('=');
    let valid = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if valid { Ok(Some(token)) } else { Err(()) }
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

enum Challenge<'a> {
    Missing,
    Malformed,
    Invalid(&'a str),
    InsufficientScope,
    Unavailable,
}

impl Config {
    fn challenge<B: Default>(&self, challenge: Challenge<'_>) -> Response<B> {
        let scope = self.required_scopes.join(" ");
        let metadata = format!("resource_metadata=\"{}\"", quoted(&self.metadata_url));
        let scope_param = (!scope.is_empty()).then(|| format!(", scope=\"{}\"", quoted(&scope)));
        let scope_param = scope_param.as_deref().unwrap_or("");
        let (status, header) = match challenge {
            Challenge::Missing => (
                StatusCode::UNAUTHORIZED,
                format!("Bearer {metadata}{scope_param}"),
            ),
            Challenge::Malformed => (
                StatusCode::UNAUTHORIZED,
                format!("Bearer error=\"invalid_request\", {metadata}{scope_param}"),
            ),
            Challenge::Invalid(reason) => (
                StatusCode::UNAUTHORIZED,
                format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\", {metadata}{scope_param}",
                    quoted(reason)
                ),
            ),
            Challenge::InsufficientScope => (
                StatusCode::FORBIDDEN,
                format!("Bearer error=\"insufficient_scope\"{scope_param}, {metadata}"),
            ),
            Challenge::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, String::new()),
        };
        let mut response = Response::new(B::default());
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if !header.is_empty()
            && let Ok(value) = HeaderValue::from_str(&header)
        {
            headers.insert(WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// Makes `s` safe inside a quoted-string of a challenge (RFC 6750 §3 forbids `"` and `\` in
/// its attribute values, and a header value holds visible ASCII only).
fn quoted(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == ' ' || (c.is_ascii_graphic() && c != '"' && c != '\\') {
                c
            } else {
                '?'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(value: &[&str]) -> Result<Option<String>, ()> {
        let mut headers = HeaderMap::new();
        for v in value {
            headers.append(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        bearer_token(&headers).map(|t| t.map(str::to_owned))
    }

    #[test]
    fn extraction() {
        assert_eq!(token(&[]), Ok(None));
        assert_eq!(
            token(&["Bearer abc.DEF-_~+/=="]),
            Ok(Some("abc.DEF-_~+/==".into()))
        );
        assert_eq!(token(&["bearer  abc"]), Ok(Some("abc".into())));
        assert_eq!(token(&["Basic dXNlcjpwYXNz"]), Ok(None));
        assert_eq!(token(&["Bearer"]), Err(()));
        assert_eq!(token(&["Bearer "]), Err(()));
        assert_eq!(token(&["Bearer a b"]), Err(()));
        assert_eq!(token(&["Bearer =="]), Err(()));
        assert_eq!(token(&["Bearer a=b"]), Err(()));
        assert_eq!(token(&["Bearer a", "Bearer b"]), Err(()));
        assert_eq!(token(&["\"x\""]), Err(()));
    }

    #[test]
    fn quoting() {
        assert_eq!(quoted("a \"b\"\\é"), "a ?b???");
    }
}
