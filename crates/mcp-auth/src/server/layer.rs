//! The tower layer: bearer extraction, validation, scope check, challenges.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::header::{AUTHORIZATION, CACHE_CONTROL, HeaderValue, WWW_AUTHENTICATE};
use http::{HeaderMap, Request, Response, StatusCode};
use tower::{Layer, Service};

use super::dpop::{self, DpopPolicy, JtiCache};
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
///    unreachable → 503. A DPoP-bound token (one with `cnf.jkt`) presented as a bearer token is
///    refused: without its proof it may be stolen;
/// 3. with DPoP accepted or required by the [`ResourceServer`]
///    ([`DpopPolicy`](crate::DpopPolicy)), `Authorization: DPoP <token>` is taken too, with
///    its `DPoP` proof checked (RFC 9449 §4.3, §7.1: signature by the key in its header,
///    `htm` and `htu` of this request, fresh `iat`, `ath` of this token, a `jti` never seen
///    before) and bound to the token (`cnf.jkt` is the proof key's thumbprint); a bad proof →
///    401 `DPoP error="invalid_dpop_proof"`. Challenges then offer the `DPoP` scheme (with
///    `algs`), beside `Bearer` unless DPoP is required. Server-provided nonces are not used;
/// 4. checks the required scopes (every request): missing ones → 403 with
///    `WWW-Authenticate: Bearer error="insufficient_scope", scope="<required>",
///    resource_metadata="<metadata URL>"`;
/// 5. inserts the [`Principal`](crate::Principal) and its [`Scopes`](crate::Scopes) into the
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
    dpop: DpopPolicy,
    /// The resource's scheme, host and port: with a request's path, the `htu` its proof names.
    origin: String,
    /// Proof ids seen, shared by every route of the resource.
    jtis: Arc<JtiCache>,
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
                dpop: resource.dpop(),
                origin: url::Url::parse(resource.resource())
                    .map(|u| u.origin().ascii_serialization())
                    .unwrap_or_default(),
                jtis: Arc::new(JtiCache::default()),
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
                dpop: self.config.dpop,
                origin: self.config.origin.clone(),
                jtis: self.config.jtis.clone(),
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
            let (scheme, token) = match credentials(req.headers()) {
                Ok(Some((Scheme::Dpop, _))) if config.dpop == DpopPolicy::Disabled => {
                    return Ok(config.challenge(Challenge::Missing, Scheme::Bearer));
                }
                Ok(Some((scheme, token))) => (scheme, token.to_owned()),
                Ok(None) => return Ok(config.challenge(Challenge::Missing, Scheme::Bearer)),
                Err(()) => return Ok(config.challenge(Challenge::Malformed, Scheme::Bearer)),
            };
            if scheme == Scheme::Bearer && config.dpop == DpopPolicy::Required {
                let reason = "this resource takes DPoP-bound tokens only";
                return Ok(config.challenge(Challenge::Invalid(reason), Scheme::Dpop));
            }
            let principal = match validator.validate(&token).await {
                Ok(principal) => principal,
                Err(Error::InvalidToken(reason)) => {
                    tracing::debug!(%reason, "bearer token rejected");
                    return Ok(config.challenge(Challenge::Invalid(&reason), scheme));
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot validate bearer token");
                    return Ok(config.challenge(Challenge::Unavailable, scheme));
                }
            };
            let bound = dpop::bound_thumbprint(&principal.claims);
            let refusal = match (scheme, bound) {
                (Scheme::Bearer, None) => None,
                (Scheme::Bearer, Some(_)) => Some(Challenge::Invalid(
                    "the token is DPoP-bound: present it with the DPoP scheme and a proof",
                )),
                (Scheme::Dpop, _) => config.check_proof(&req, &token, bound),
            };
            if let Some(refusal) = refusal {
                return Ok(config.challenge(refusal, scheme));
            }
            if !principal.scopes.contains_all(&config.required_scopes) {
                return Ok(config.challenge(Challenge::InsufficientScope, scheme));
            }
            req.extensions_mut().insert(principal.scopes.clone());
            // What the MCP endpoint binds sessions to (see `Principal::id`).
            #[cfg(feature = "transport-http")]
            if let Some(id) = principal.id() {
                req.extensions_mut()
                    .insert(mcp_transport_http::PrincipalId::new(id));
            }
            req.extensions_mut().insert(principal);
            inner.call(req).await
        })
    }
}

/// How the token was presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Bearer,
    Dpop,
}

/// The scheme and token of the `Authorization` header: `Ok(None)` if there is no such header
/// or it uses another scheme than `Bearer` and `DPoP`, `Err` if it is malformed.
fn credentials(headers: &HeaderMap) -> Result<Option<(Scheme, &str)>, ()> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(());
    }
    let value = value.to_str().map_err(|_| ())?;
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    let scheme = if scheme.eq_ignore_ascii_case("bearer") {
        Scheme::Bearer
    } else if scheme.eq_ignore_ascii_case("dpop") {
        Scheme::Dpop
    } else {
        return if scheme.is_empty() || !scheme.bytes().all(is_tchar) {
            Err(())
        } else {
            Ok(None)
        };
    };
    let token = rest.trim_start_matches(' ');
    // token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    let body = token.trim_end_matches('=');
    let valid = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if valid {
        Ok(Some((scheme, token)))
    } else {
        Err(())
    }
}

/// [`credentials`] of a request with these `Authorization` values (the `fuzzing` entry point).
pub(crate) fn fuzz_credentials(values: &[&[u8]]) {
    let mut headers = HeaderMap::new();
    for value in values {
        if let Ok(value) = HeaderValue::from_bytes(value) {
            headers.append(AUTHORIZATION, value);
        }
    }
    let _ = credentials(&headers);
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

enum Challenge<'a> {
    Missing,
    Malformed,
    Invalid(&'a str),
    InvalidProof(&'a str),
    InsufficientScope,
    Unavailable,
}

impl Config {
    /// Why the `DPoP` proof of `req` does not hold for `token` bound to `bound`, if it does not.
    fn check_proof<B>(
        &self,
        req: &Request<B>,
        token: &str,
        bound: Option<&str>,
    ) -> Option<Challenge<'static>> {
        let mut proofs = req.headers().get_all("dpop").iter();
        let (Some(proof), None) = (proofs.next(), proofs.next()) else {
            return Some(Challenge::InvalidProof("one DPoP proof header is required"));
        };
        let Ok(proof) = proof.to_str() else {
            return Some(Challenge::InvalidProof("the proof is not a JWS"));
        };
        let Ok(htu) = url::Url::parse(&format!("{}{}", self.origin, req.uri().path())) else {
            return Some(Challenge::InvalidProof("the request URL is not valid"));
        };
        match dpop::verify(proof, req.method().as_str(), &htu, token, &self.jtis) {
            Err(reason) => Some(Challenge::InvalidProof(reason)),
            Ok(thumbprint) if Some(thumbprint.as_str()) == bound => None,
            Ok(_) if bound.is_none() => Some(Challenge::Invalid("the token is not DPoP-bound")),
            Ok(_) => Some(Challenge::Invalid(
                "the token is bound to another key than the proof's",
            )),
        }
    }

    /// The refusal: its status and `WWW-Authenticate`, the error on the challenge of the
    /// `scheme` the client used, the other accepted scheme offered bare.
    fn challenge<B: Default>(&self, challenge: Challenge<'_>, scheme: Scheme) -> Response<B> {
        let scope = self.required_scopes.join(" ");
        let metadata = format!("resource_metadata=\"{}\"", quoted(&self.metadata_url));
        let scope_param = (!scope.is_empty()).then(|| format!(", scope=\"{}\"", quoted(&scope)));
        let scope_param = scope_param.as_deref().unwrap_or("");
        let (status, error) = match challenge {
            Challenge::Missing => (StatusCode::UNAUTHORIZED, String::new()),
            Challenge::Malformed => (
                StatusCode::UNAUTHORIZED,
                "error=\"invalid_request\", ".to_owned(),
            ),
            Challenge::Invalid(reason) => (
                StatusCode::UNAUTHORIZED,
                format!(
                    "error=\"invalid_token\", error_description=\"{}\", ",
                    quoted(reason)
                ),
            ),
            Challenge::InvalidProof(reason) => (
                StatusCode::UNAUTHORIZED,
                format!(
                    "error=\"invalid_dpop_proof\", error_description=\"{}\", ",
                    quoted(reason)
                ),
            ),
            // The scope the client lacks goes right after the error (as MCP's examples have
            // it); it is not repeated after the metadata URL.
            Challenge::InsufficientScope => (
                StatusCode::FORBIDDEN,
                format!("error=\"insufficient_scope\"{scope_param}, "),
            ),
            Challenge::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, String::new()),
        };
        let mut response = Response::new(B::default());
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if status == StatusCode::SERVICE_UNAVAILABLE {
            return response;
        }
        let algs = dpop::ALGORITHMS.join(" ");
        let scope_in_error = status == StatusCode::FORBIDDEN;
        let render = |offer: Scheme, with_error: bool| {
            let (error, scope_param) = match (with_error, scope_in_error) {
                (false, _) => ("", scope_param),
                (true, false) => (error.as_str(), scope_param),
                (true, true) => (error.as_str(), ""),
            };
            match offer {
                Scheme::Bearer => format!("Bearer {error}{metadata}{scope_param}"),
                Scheme::Dpop => format!("DPoP {error}algs=\"{algs}\", {metadata}{scope_param}"),
            }
        };
        let offered: &[Scheme] = match self.dpop {
            DpopPolicy::Disabled => &[Scheme::Bearer],
            DpopPolicy::Accepted => &[Scheme::Bearer, Scheme::Dpop],
            DpopPolicy::Required => &[Scheme::Dpop],
        };
        for offer in offered {
            // The error goes on the scheme the client used (or on the only one offered).
            let with_error = *offer == scheme || offered.len() == 1;
            if let Ok(value) = HeaderValue::from_str(&render(*offer, with_error)) {
                headers.append(WWW_AUTHENTICATE, value);
            }
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
        credentials(&headers).map(|t| {
            t.map(|(scheme, token)| match scheme {
                Scheme::Bearer => token.to_owned(),
                Scheme::Dpop => format!("dpop:{token}"),
            })
        })
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
        assert_eq!(token(&["DPoP abc"]), Ok(Some("dpop:abc".into())));
        assert_eq!(token(&["dpop a b"]), Err(()));
        assert_eq!(token(&["Bearer"]), Err(()));
        assert_eq!(token(&["Bearer "]), Err(()));
        assert_eq!(token(&["Bearer a b"]), Err(()));
        assert_eq!(token(&["Bearer =="]), Err(()));
        assert_eq!(token(&["Bearer a=b"]), Err(()));
        assert_eq!(token(&["Bearer a", "Bearer b"]), Err(()));
        assert_eq!(token(&["\"x\""]), Err(()));
    }

    fn config(dpop: DpopPolicy, scopes: &[&str]) -> Config {
        Config {
            metadata_url: "https://h/m".into(),
            required_scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            dpop,
            origin: "https://h".into(),
            jtis: Arc::default(),
        }
    }

    fn challenges(response: &Response<()>) -> Vec<&str> {
        response
            .headers()
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect()
    }

    #[test]
    fn challenges_offer_the_schemes_of_the_policy() {
        let algs = dpop::ALGORITHMS.join(" ");
        let accepted = config(DpopPolicy::Accepted, &["a"]);
        let r: Response<()> = accepted.challenge(Challenge::Missing, Scheme::Bearer);
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            challenges(&r),
            [
                r#"Bearer resource_metadata="https://h/m", scope="a""#.to_owned(),
                format!(r#"DPoP algs="{algs}", resource_metadata="https://h/m", scope="a""#),
            ]
        );
        // The error goes on the scheme used; the other is offered bare.
        let r: Response<()> = accepted.challenge(Challenge::InvalidProof("bad"), Scheme::Dpop);
        assert_eq!(
            challenges(&r),
            [
                r#"Bearer resource_metadata="https://h/m", scope="a""#.to_owned(),
                format!(
                    r#"DPoP error="invalid_dpop_proof", error_description="bad", algs="{algs}", resource_metadata="https://h/m", scope="a""#
                ),
            ]
        );
        let required = config(DpopPolicy::Required, &[]);
        let r: Response<()> = required.challenge(Challenge::Invalid("no"), Scheme::Bearer);
        assert_eq!(
            challenges(&r),
            [format!(
                r#"DPoP error="invalid_token", error_description="no", algs="{algs}", resource_metadata="https://h/m""#
            )]
        );
        let disabled = config(DpopPolicy::Disabled, &["a", "b"]);
        let r: Response<()> = disabled.challenge(Challenge::InsufficientScope, Scheme::Bearer);
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            challenges(&r),
            [r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/m""#]
        );
        let r: Response<()> = disabled.challenge(Challenge::Unavailable, Scheme::Bearer);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(challenges(&r).is_empty());
    }

    #[test]
    fn quoting() {
        assert_eq!(quoted("a \"b\"\\é"), "a ?b???");
    }
}
