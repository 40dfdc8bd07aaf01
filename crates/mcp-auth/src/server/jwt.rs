//! JWT access tokens (RFC 9068) checked against the issuer's JWKS.

use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::fetch;
use super::jws::{check_crit, raw_header};
use crate::{Error, Principal, Result, TokenValidator};

/// The algorithms accepted: asymmetric signatures only (never `none` or an HMAC, whose key an
/// authorization server would have to share).
const ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Validates JWT access tokens (RFC 9068) with the authorization server's public keys.
///
/// Checks on every token: the signature, by a key of the issuer's JWKS (asymmetric algorithms
/// only); `iss` equals the issuer; `aud` contains the resource URL (always; there is no way to
/// turn this off); `exp` is present and not past (with a small leeway, 30 s by default); `nbf`
/// if present. Scopes are checked by [`BearerAuthLayer`](crate::BearerAuthLayer).
///
/// The JWKS is found through the issuer's metadata (RFC 8414
/// `/.well-known/oauth-authorization-server`, then OpenID Connect discovery) unless given with
/// [`JwtValidatorBuilder::jwks_uri`]. It is fetched on first use and cached; a token naming an
/// unknown `kid` triggers a refetch (key rotation), but at most once per minimum refresh
/// interval (30 s by default), so tokens with made-up key ids cannot make this server hammer
/// the authorization server. Cheap to clone (clones share the cache).
#[derive(Clone)]
pub struct JwtValidator {
    inner: Arc<Inner>,
}

struct Inner {
    issuer: String,
    audience: String,
    leeway: Duration,
    min_refresh_interval: Duration,
    http: reqwest::Client,
    configured_jwks_uri: Option<String>,
    keys: RwLock<Arc<KeySet>>,
    refresh: tokio::sync::Mutex<RefreshState>,
}

#[derive(Default)]
struct KeySet {
    /// Bumped on every successful fetch.
    generation: u64,
    keys: Vec<Key>,
}

struct Key {
    kid: Option<String>,
    alg: Option<Algorithm>,
    key: DecodingKey,
}

#[derive(Default)]
struct RefreshState {
    jwks_uri: Option<String>,
    last_attempt: Option<Instant>,
}

impl fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtValidator")
            .field("issuer", &self.inner.issuer)
            .field("audience", &self.inner.audience)
            .field("leeway", &self.inner.leeway)
            .field("min_refresh_interval", &self.inner.min_refresh_interval)
            .finish_non_exhaustive()
    }
}

impl JwtValidator {
    /// Starts a validator for tokens issued by `issuer` (its issuer identifier, exactly as in
    /// the `iss` claim) for the resource `audience` (the resource URL,
    /// [`ResourceServer::resource`](crate::ResourceServer::resource)).
    pub fn builder(issuer: impl Into<String>, audience: impl Into<String>) -> JwtValidatorBuilder {
        JwtValidatorBuilder {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_uri: None,
            leeway: Duration::from_secs(30),
            min_refresh_interval: Duration::from_secs(30),
            http: None,
        }
    }

    async fn validate_jwt(&self, token: &str) -> Result<Principal> {
        let header = check_header(token)?;
        let kid = header.kid.as_deref();
        let mut keys = self.keys();
        if !keys.keys.iter().any(|k| matches(k, kid, header.alg)) {
            keys = self.refresh(keys.generation).await?;
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.inner.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.inner.issuer]);
        validation.set_audience(&[&self.inner.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let mut last = Error::InvalidToken(match kid {
            Some(kid) => format!("no signing key with kid `{kid}`"),
            None => "no signing key".into(),
        });
        for key in keys.keys.iter().filter(|k| matches(k, kid, header.alg)) {
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation) {
                Ok(data) => return Ok(Principal::from_claims(data.claims)),
                Err(e) => last = Error::InvalidToken(describe(e.kind()).into()),
            }
        }
        Err(last)
    }

    fn keys(&self) -> Arc<KeySet> {
        match self.inner.keys.read() {
            Ok(keys) => keys.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Refetches the JWKS, unless another task did since `seen` or the last attempt was less
    /// than the minimum interval ago; returns the current keys.
    async fn refresh(&self, seen: u64) -> Result<Arc<KeySet>> {
        let mut state = self.inner.refresh.lock().await;
        let current = self.keys();
        if current.generation != seen {
            return Ok(current);
        }
        if let Some(last) = state.last_attempt
            && last.elapsed() < self.inner.min_refresh_interval
        {
            return if current.generation == 0 {
                Err(Error::authorization_server_msg(
                    "the JWKS could not be fetched",
                ))
            } else {
                Ok(current)
            };
        }
        state.last_attempt = Some(Instant::now());
        let jwks_uri = match &state.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let uri = match &self.inner.configured_jwks_uri {
                    Some(uri) => uri.clone(),
                    None => self.discover_jwks_uri().await?,
                };
                state.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let jwks = fetch::json_object(self.inner.http.get(&jwks_uri), "fetching the JWKS").await?;
        let Some(Value::Array(entries)) = jwks.get("keys") else {
            return Err(Error::authorization_server_msg(
                "the JWKS has no `keys` array",
            ));
        };
        let keys = entries
            .iter()
            .filter_map(|entry| serde_json::from_value::<Jwk>(entry.clone()).ok())
            .filter(|jwk| !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)))
            .filter_map(|jwk| {
                let key = DecodingKey::from_jwk(&jwk).ok()?;
                let alg = match jwk.common.key_algorithm {
                    Some(alg) => Some(alg.to_string().parse::<Algorithm>().ok()?),
                    None => None,
                };
                Some(Key {
                    kid: jwk.common.key_id,
                    alg,
                    key,
                })
            })
            .collect();
        let fresh = Arc::new(KeySet {
            generation: current.generation + 1,
            keys,
        });
        match self.inner.keys.write() {
            Ok(mut guard) => *guard = fresh.clone(),
            Err(poisoned) => *poisoned.into_inner() = fresh.clone(),
        }
        tracing::debug!(jwks_uri, keys = fresh.keys.len(), "JWKS fetched");
        Ok(fresh)
    }

    /// Finds `jwks_uri` in the issuer's metadata: RFC 8414 first, then OpenID Connect.
    async fn discover_jwks_uri(&self) -> Result<String> {
        let issuer = &self.inner.issuer;
        let url = url::Url::parse(issuer)
            .map_err(|e| Error::Config(format!("issuer `{issuer}`: {e}")))?;
        let path = url.path().trim_end_matches('/');
        let mut rfc8414 = url.clone();
        rfc8414.set_path(&format!("/.well-known/oauth-authorization-server{path}"));
        let oidc = format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        );
        let mut last = None;
        for candidate in [rfc8414.to_string(), oidc] {
            match fetch::json_object(self.inner.http.get(&candidate), "fetching issuer metadata")
                .await
            {
                Ok(metadata) => {
                    if metadata.get("issuer").and_then(Value::as_str) != Some(issuer.as_str()) {
                        return Err(Error::authorization_server_msg(format!(
                            "the metadata at {candidate} is not for issuer {issuer}"
                        )));
                    }
                    return match metadata.get("jwks_uri").and_then(Value::as_str) {
                        Some(uri) => Ok(uri.to_owned()),
                        None => Err(Error::authorization_server_msg(format!(
                            "the metadata at {candidate} has no jwks_uri"
                        ))),
                    };
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::authorization_server_msg("no issuer metadata")))
    }
}

/// Reads the protected header of `token` and applies the checks that need no key: a
/// well-formed header, no `crit` (RFC 7515 §4.1.11), an accepted algorithm.
pub(crate) fn check_header(token: &str) -> Result<jsonwebtoken::Header> {
    let malformed = || Error::InvalidToken("malformed JWT".into());
    let raw = raw_header(token).ok_or_else(malformed)?;
    check_crit(&raw).map_err(|reason| Error::InvalidToken(reason.into()))?;
    let header = jsonwebtoken::decode_header(token).map_err(|_| malformed())?;
    if !ALGORITHMS.contains(&header.alg) {
        return Err(Error::InvalidToken(format!(
            "algorithm {:?} not accepted",
            header.alg
        )));
    }
    Ok(header)
}

fn matches(key: &Key, kid: Option<&str>, alg: Algorithm) -> bool {
    (kid.is_none() || key.kid.as_deref() == kid) && key.alg.is_none_or(|a| a == alg)
}

fn describe(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ExpiredSignature => "token expired",
        ErrorKind::ImmatureSignature => "token not yet valid",
        ErrorKind::InvalidAudience => "token issued for another audience",
        ErrorKind::InvalidIssuer => "token issued by another issuer",
        ErrorKind::InvalidSignature => "bad signature",
        ErrorKind::MissingRequiredClaim(_) => "a required claim is missing",
        ErrorKind::InvalidAlgorithm => "algorithm does not match the key",
        _ => "malformed JWT",
    }
}

impl TokenValidator for JwtValidator {
    async fn validate(&self, token: &str) -> Result<Principal> {
        self.validate_jwt(token).await
    }
}

/// Builds a [`JwtValidator`]; see [`JwtValidator::builder`].
#[derive(Debug, Clone)]
pub struct JwtValidatorBuilder {
    issuer: String,
    audience: String,
    jwks_uri: Option<String>,
    leeway: Duration,
    min_refresh_interval: Duration,
    http: Option<reqwest::Client>,
}

impl JwtValidatorBuilder {
    /// Uses this JWKS URL instead of the one in the issuer's metadata.
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// Sets the clock-skew allowance for `exp` and `nbf` (30 s by default; whole seconds).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets the minimum time between two JWKS fetches triggered by unknown key ids (30 s by
    /// default).
    pub fn min_refresh_interval(mut self, interval: Duration) -> Self {
        self.min_refresh_interval = interval;
        self
    }

    /// Uses this HTTP client for metadata and JWKS requests (by default one with 10 s
    /// timeouts that follows no redirects).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Builds the validator. Nothing is fetched until the first token arrives.
    ///
    /// Fails with [`Error::Config`] if the issuer or the JWKS URL is not a URL.
    pub fn build(self) -> Result<JwtValidator> {
        url::Url::parse(&self.issuer)
            .map_err(|e| Error::Config(format!("issuer `{}`: {e}", self.issuer)))?;
        if let Some(uri) = &self.jwks_uri {
            url::Url::parse(uri).map_err(|e| Error::Config(format!("jwks_uri `{uri}`: {e}")))?;
        }
        let http = match self.http {
            Some(http) => http,
            None => fetch::default_client()?,
        };
        Ok(JwtValidator {
            inner: Arc::new(Inner {
                issuer: self.issuer,
                audience: self.audience,
                leeway: self.leeway,
                min_refresh_interval: self.min_refresh_interval,
                http,
                configured_jwks_uri: self.jwks_uri,
                keys: RwLock::new(Arc::default()),
                refresh: tokio::sync::Mutex::new(RefreshState::default()),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use serde_json::json;

    use super::*;

    const ISSUER: &str = "https://as.example.com";
    const AUDIENCE: &str = "https://mcp.example.com/mcp";

    /// A validator whose JWKS is already loaded with one ES256 key (`kid` "k1"), and a
    /// function signing a token with `header` and `claims` by that key.
    fn validator_and_signer() -> (JwtValidator, impl Fn(Value, Value) -> String) {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref()).unwrap();
        let point = pair.public_key().as_ref();
        let key = DecodingKey::from_ec_components(
            &URL_SAFE_NO_PAD.encode(&point[1..33]),
            &URL_SAFE_NO_PAD.encode(&point[33..]),
        )
        .unwrap();
        let validator = JwtValidator::builder(ISSUER, AUDIENCE)
            .jwks_uri("https://as.example.com/jwks")
            .build()
            .unwrap();
        *validator.inner.keys.write().unwrap() = Arc::new(KeySet {
            generation: 1,
            keys: vec![Key {
                kid: Some("k1".into()),
                alg: Some(Algorithm::ES256),
                key,
            }],
        });
        let encoding = jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref());
        let sign = move |header: Value, claims: Value| {
            // Written by hand: jsonwebtoken's Header cannot hold `"crit": null`.
            let input = format!(
                "{}.{}",
                URL_SAFE_NO_PAD.encode(header.to_string()),
                URL_SAFE_NO_PAD.encode(claims.to_string())
            );
            let signature =
                jsonwebtoken::crypto::sign(input.as_bytes(), &encoding, Algorithm::ES256).unwrap();
            format!("{input}.{signature}")
        };
        (validator, sign)
    }

    fn claims() -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now + 300})
    }

    #[tokio::test]
    async fn a_token_with_crit_is_refused() {
        let (validator, sign) = validator_and_signer();
        let plain = sign(json!({"alg": "ES256", "kid": "k1"}), claims());
        let principal = validator.validate(&plain).await.unwrap();
        assert_eq!(principal.subject.as_deref(), Some("alice"));
        // RFC 7515 §4.1.11: this server understands no extension, so any `crit` (listing an
        // extension, a registered name, nothing, or not even a list) makes the JWS invalid.
        for crit in [json!(["exp"]), json!(["urn:x:ext"]), json!([]), json!(null)] {
            let header = json!({"alg": "ES256", "kid": "k1", "crit": crit, "urn:x:ext": 1});
            let token = sign(header, claims());
            match validator.validate(&token).await {
                Err(Error::InvalidToken(reason)) => assert!(reason.contains("crit"), "{reason}"),
                other => panic!("crit {crit}: {other:?}"),
            }
        }
    }

    #[test]
    fn header_checks_need_no_key() {
        let header = |h: Value| format!("{}.e30.c2ln", URL_SAFE_NO_PAD.encode(h.to_string()));
        assert!(check_header(&header(json!({"alg": "ES256"}))).is_ok());
        for (h, expected) in [
            (json!({"alg": "HS256"}), "not accepted"),
            (json!({"alg": "none"}), "malformed"),
            (json!({"alg": "ES256", "crit": ["b64"]}), "crit"),
            (json!([1]), "malformed"),
        ] {
            match check_header(&header(h.clone())) {
                Err(Error::InvalidToken(reason)) => {
                    assert!(reason.contains(expected), "{h}: {reason}")
                }
                other => panic!("{h}: {other:?}"),
            }
        }
        assert!(check_header("no dots").is_err());
    }
}
