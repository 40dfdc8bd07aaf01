//! Checking DPoP proofs at the resource server (RFC 9449 §4.3, §7.1).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use url::Url;

use super::jws::{check_crit, raw_header};
use crate::digest::sha256_base64url;

/// Whether the resource server takes DPoP-bound tokens (RFC 9449); see
/// [`ResourceServerBuilder::dpop`](crate::ResourceServerBuilder::dpop).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DpopPolicy {
    /// Bearer tokens only (the default). A DPoP-bound token presented as a bearer token is
    /// still refused: without its proof it may be stolen.
    #[default]
    Disabled,
    /// `Authorization: Bearer` and `Authorization: DPoP` (with a valid proof) are both taken;
    /// challenges offer both schemes and the metadata lists the proof algorithms.
    Accepted,
    /// Only DPoP-bound tokens with a valid proof; the metadata says
    /// `dpop_bound_access_tokens_required`.
    Required,
}

/// The proof algorithms taken: the asymmetric JWS algorithms jsonwebtoken verifies.
pub(crate) const ALGORITHMS: &[&str] = &[
    "ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA",
];

/// How far a proof's `iat` may be from now (RFC 9449 §11.1 leaves it to the server).
const IAT_WINDOW: Duration = Duration::from_secs(300);

/// How many proof ids are remembered against replay, at most.
const MAX_JTIS: usize = 100_000;

/// The JWK members that carry private key material (RFC 7517, RFC 7518 §6).
const PRIVATE_MEMBERS: &[&str] = &["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// Verifies `proof` for a request with `method` to `htu` presenting `token`; the thumbprint
/// of the proof's key (to compare with the token's `cnf.jkt`), or why it is refused.
pub(crate) fn verify(
    proof: &str,
    method: &str,
    htu: &Url,
    token: &str,
    jtis: &JtiCache,
) -> Result<String, &'static str> {
    let header = raw_header(proof).ok_or("the proof is not a JWS")?;
    check_crit(&header)?;
    if header.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
        return Err("the proof's typ is not dpop+jwt");
    }
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or("");
    if !ALGORITHMS.contains(&alg) {
        return Err("the proof's alg is not a supported asymmetric algorithm");
    }
    let Some(Value::Object(jwk)) = header.get("jwk") else {
        return Err("the proof has no jwk");
    };
    if PRIVATE_MEMBERS.iter().any(|m| jwk.contains_key(*m)) {
        return Err("the proof's jwk holds a private key");
    }
    let jwk: Jwk = serde_json::from_value(Value::Object(jwk.clone()))
        .map_err(|_| "the proof's jwk is not a public key")?;
    let key = DecodingKey::from_jwk(&jwk).map_err(|_| "the proof's jwk is not a public key")?;
    let algorithm: Algorithm = alg.parse().map_err(|_| "unsupported proof algorithm")?;
    let mut validation = Validation::new(algorithm);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    validation.validate_aud = false;
    let claims = jsonwebtoken::decode::<Map<String, Value>>(proof, &key, &validation)
        .map_err(|_| "the proof's signature does not verify")?
        .claims;
    let string = |name: &str| claims.get(name).and_then(Value::as_str);
    let jti = string("jti")
        .filter(|j| !j.is_empty())
        .ok_or("the proof has no jti")?;
    if string("htm") != Some(method) {
        return Err("the proof's htm is not the request method");
    }
    let claimed = string("htu")
        .and_then(|u| Url::parse(u).ok())
        .ok_or("the proof's htu is not a URL")?;
    if claimed.query().is_some() || claimed.fragment().is_some() || !same_target(&claimed, htu) {
        return Err("the proof's htu is not the request URL");
    }
    let iat = claims
        .get("iat")
        .and_then(Value::as_u64)
        .ok_or("the proof has no iat")?;
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    if now.abs_diff(iat) > IAT_WINDOW.as_secs() {
        return Err("the proof's iat is too far from now");
    }
    if string("ath") != Some(sha256_base64url(token.as_bytes()).as_str()) {
        return Err("the proof's ath is not the token's hash");
    }
    if !jtis.insert(jti) {
        return Err("the proof was already used");
    }
    jwk.thumbprint(ThumbprintHash::SHA256)
        .map_err(|_| "the proof's jwk has no thumbprint")
}

/// [`verify`] for `POST https://mcp.example.com/mcp` with a fresh replay cache (the
/// `fuzzing` entry point).
pub(crate) fn fuzz_verify(proof: &str) {
    if let Ok(htu) = Url::parse("https://mcp.example.com/mcp") {
        let _ = verify(proof, "POST", &htu, "token", &JtiCache::default());
    }
}

/// Same scheme, host, port and path (RFC 9449 §4.3: compared without query and fragment; the
/// `url` crate has already normalized case and default ports).
fn same_target(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host() == b.host()
        && a.port_or_known_default() == b.port_or_known_default()
        && a.path().trim_end_matches('/') == b.path().trim_end_matches('/')
}

/// The ids of the proofs seen within the `iat` window, so that none is accepted twice.
#[derive(Debug, Default)]
pub(crate) struct JtiCache {
    seen: Mutex<HashMap<String, Instant>>,
}

impl JtiCache {
    /// Records `jti`; false if it was seen within the window (or the cache is full of live
    /// ids, which only a flood of proofs causes: refusing is the safe answer).
    fn insert(&self, jti: &str) -> bool {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() >= MAX_JTIS {
            seen.retain(|_, at| now.duration_since(*at) <= 2 * IAT_WINDOW);
        }
        if seen.len() >= MAX_JTIS {
            return false;
        }
        match seen.get(jti) {
            Some(at) if now.duration_since(*at) <= 2 * IAT_WINDOW => false,
            _ => {
                seen.insert(jti.to_owned(), now);
                true
            }
        }
    }
}

/// The `cnf.jkt` of a token's claims (RFC 9449 §6), if it is DPoP-bound.
pub(crate) fn bound_thumbprint(claims: &Map<String, Value>) -> Option<&str> {
    claims.get("cnf")?.get("jkt")?.as_str()
}

#[cfg(test)]
mod tests {
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use serde_json::json;

    use super::*;

    struct Key {
        encoding: jsonwebtoken::EncodingKey,
        jwk: Value,
    }

    fn new_key() -> Key {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref()).unwrap();
        let point = pair.public_key().as_ref();
        Key {
            encoding: jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk: json!({
                "kty": "EC", "crv": "P-256",
                "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                "y": URL_SAFE_NO_PAD.encode(&point[33..]),
            }),
        }
    }

    fn now() -> u64 {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    }

    fn ath(token: &str) -> String {
        URL_SAFE_NO_PAD.encode(aws_lc_rs::digest::digest(
            &aws_lc_rs::digest::SHA256,
            token.as_bytes(),
        ))
    }

    /// A proof signed by `key`, with `header` and `claims` merged over valid defaults.
    fn proof(key: &Key, header: Value, claims: Value) -> String {
        let mut h = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.jwk});
        h.as_object_mut()
            .unwrap()
            .extend(header.as_object().unwrap().clone());
        let mut c = json!({
            "jti": jti(),
            "htm": "POST", "htu": "https://mcp.example.com/mcp", "iat": now(), "ath": ath("tok"),
        });
        c.as_object_mut()
            .unwrap()
            .extend(claims.as_object().unwrap().clone());
        // The header is written by hand: jsonwebtoken's Header cannot hold a bad typ or jwk.
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(h.to_string()),
            URL_SAFE_NO_PAD.encode(c.to_string())
        );
        let signature =
            jsonwebtoken::crypto::sign(signing_input.as_bytes(), &key.encoding, Algorithm::ES256)
                .unwrap();
        format!("{signing_input}.{signature}")
    }

    fn jti() -> String {
        let mut b = [0u8; 16];
        aws_lc_rs::rand::fill(&mut b).unwrap();
        URL_SAFE_NO_PAD.encode(b)
    }

    fn check(proof: &str, jtis: &JtiCache) -> Result<String, &'static str> {
        let url = Url::parse("https://MCP.example.com:443/mcp?session=1").unwrap();
        verify(proof, "POST", &url, "tok", jtis)
    }

    #[test]
    fn a_valid_proof_gives_its_key_thumbprint_once() {
        let key = new_key();
        let jtis = JtiCache::default();
        let p = proof(&key, json!({}), json!({}));
        let jwk: Jwk = serde_json::from_value(key.jwk.clone()).unwrap();
        assert_eq!(
            check(&p, &jtis),
            Ok(jwk.thumbprint(ThumbprintHash::SHA256).unwrap())
        );
        assert_eq!(check(&p, &jtis), Err("the proof was already used"));
    }

    #[test]
    fn every_binding_is_checked() {
        let key = new_key();
        let jtis = JtiCache::default();
        let cases = [
            (json!({"typ": "JWT"}), json!({}), "typ"),
            (json!({"alg": "HS256"}), json!({}), "alg"),
            (json!({"jwk": null}), json!({}), "no jwk"),
            (
                json!({"jwk": {"kty": "EC", "crv": "P-256", "d": "x", "x": "y", "y": "z"}}),
                json!({}),
                "private",
            ),
            (json!({}), json!({"htm": "GET"}), "htm"),
            (
                json!({}),
                json!({"htu": "https://mcp.example.com/other"}),
                "htu",
            ),
            (
                json!({}),
                json!({"htu": "https://mcp.example.com/mcp?x=1"}),
                "htu",
            ),
            (
                json!({}),
                json!({"htu": "http://mcp.example.com/mcp"}),
                "htu",
            ),
            (json!({}), json!({"iat": now() - 3600}), "iat"),
            (json!({}), json!({"ath": ath("another token")}), "ath"),
            (json!({}), json!({"jti": ""}), "jti"),
            // RFC 7515 §4.1.11: an extension this server does not understand.
            (json!({"crit": ["exp"]}), json!({}), "crit"),
            (json!({"crit": []}), json!({}), "crit"),
        ];
        for (header, claims, expected) in cases {
            let p = proof(&key, header.clone(), claims.clone());
            let error = check(&p, &jtis).expect_err(expected);
            assert!(error.contains(expected), "{header} {claims}: {error}");
        }
        // Signed by another key than the one in the header.
        let other = new_key();
        let forged = proof(&key, json!({"jwk": other.jwk}), json!({}));
        assert_eq!(
            check(&forged, &jtis),
            Err("the proof's signature does not verify")
        );
        assert_eq!(check("not.a.jws", &jtis), Err("the proof is not a JWS"));
    }

    #[test]
    fn bound_tokens_name_their_key() {
        let claims = json!({"cnf": {"jkt": "abc"}});
        assert_eq!(bound_thumbprint(claims.as_object().unwrap()), Some("abc"));
        assert_eq!(bound_thumbprint(&Map::new()), None);
    }
}
