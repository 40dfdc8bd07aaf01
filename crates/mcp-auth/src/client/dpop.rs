//! DPoP (RFC 9449): a key pair held by the client, and the proofs that bind its tokens to it.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters,
    EllipticCurveKeyType, Jwk, ThumbprintHash,
};
use serde_json::json;
use url::Url;

use super::http::random_string;
use crate::digest::sha256_base64url;
use crate::{Error, Result};

/// The JWS algorithm of every proof: ECDSA with P-256 and SHA-256, the one algorithm every
/// DPoP server is expected to take.
const ALGORITHM: &str = "ES256";

/// A DPoP key pair (ES256, P-256) with which [`OAuthClient`](crate::OAuthClient) proves
/// possession of its tokens (RFC 9449).
///
/// Give one to [`OAuthClientBuilder::dpop`](crate::OAuthClientBuilder::dpop): with an
/// authorization server that lists `ES256` in `dpop_signing_alg_values_supported` and an MCP
/// server that takes DPoP tokens, every token request carries a proof, the tokens issued are bound to this key, and each request to the
/// MCP server carries `Authorization: DPoP <token>` and a fresh `DPoP` proof for its method and
/// URL. A stolen token is useless without the private key.
///
/// Keep the key as long as the tokens it bound: a persistent [`TokenStore`](crate::TokenStore)
/// needs the key persisted too ([`to_pkcs8`](Self::to_pkcs8), [`from_pkcs8`](Self::from_pkcs8)).
/// Clones share the key.
///
/// ```
/// use mcp_auth::DpopKey;
///
/// let key = DpopKey::generate()?;
/// let proof = key.proof("POST", &"https://mcp.example.com/mcp?x=1".parse()?, Some("token"), None)?;
/// assert_eq!(proof.split('.').count(), 3); // a compact JWS
/// let same = DpopKey::from_pkcs8(&key.to_pkcs8())?;
/// assert_eq!(same.thumbprint(), key.thumbprint());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct DpopKey {
    inner: Arc<KeyInner>,
}

struct KeyInner {
    pkcs8: Vec<u8>,
    signing: jsonwebtoken::EncodingKey,
    jwk: Jwk,
    thumbprint: String,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.inner.thumbprint)
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A new random key.
    pub fn generate() -> Result<Self> {
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            &aws_lc_rs::rand::SystemRandom::new(),
        )
        .map_err(|_| Error::Config("cannot generate a P-256 key".into()))?;
        Self::from_pkcs8(pkcs8.as_ref())
    }

    /// The key from its PKCS#8 DER encoding (a P-256 private key, as
    /// [`to_pkcs8`](Self::to_pkcs8) gives).
    pub fn from_pkcs8(der: &[u8]) -> Result<Self> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der)
            .map_err(|_| Error::Config("the DPoP key is not a PKCS#8 P-256 private key".into()))?;
        // The public key is the uncompressed point: 0x04, then x and y (32 bytes each).
        let point = pair.public_key().as_ref();
        let (x, y) = match point {
            [4, rest @ ..] if rest.len() == 64 => rest.split_at(32),
            _ => return Err(Error::Config("unexpected P-256 public key encoding".into())),
        };
        let jwk = Jwk {
            common: CommonParameters::default(),
            algorithm: AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
                key_type: EllipticCurveKeyType::EC,
                curve: EllipticCurve::P256,
                x: URL_SAFE_NO_PAD.encode(x),
                y: URL_SAFE_NO_PAD.encode(y),
            }),
        };
        let thumbprint = jwk
            .thumbprint(ThumbprintHash::SHA256)
            .map_err(|e| Error::Config(format!("cannot compute the JWK thumbprint: {e}")))?;
        Ok(Self {
            inner: Arc::new(KeyInner {
                pkcs8: der.to_vec(),
                signing: jsonwebtoken::EncodingKey::from_ec_der(der),
                jwk,
                thumbprint,
            }),
        })
    }

    /// The private key, PKCS#8 DER: keep it secret.
    pub fn to_pkcs8(&self) -> Vec<u8> {
        self.inner.pkcs8.clone()
    }

    /// The JWS algorithm of the proofs (`ES256`).
    pub fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    /// The public key as a JWK (sent in every proof's header).
    pub fn public_jwk(&self) -> &Jwk {
        &self.inner.jwk
    }

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), base64url: the `jkt` that
    /// bound tokens carry in `cnf`, and the `dpop_jkt` of authorization requests.
    pub fn thumbprint(&self) -> &str {
        &self.inner.thumbprint
    }

    /// A fresh proof (a `dpop+jwt`) for a request with `method` to `url` (RFC 9449 §4.2): a
    /// unique `jti`, `htm`, `htu` (the URL without query and fragment), `iat`, then `ath`
    /// (the access token's SHA-256, base64url) when presenting `access_token`, and `nonce`
    /// when the server supplied one.
    pub fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String> {
        let mut htu = url.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let iat = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let mut claims = json!({
            "jti": random_string(16)?,
            "htm": method,
            "htu": htu.as_str(),
            "iat": iat,
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(sha256_base64url(token.as_bytes()));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.inner.jwk.clone());
        jsonwebtoken::encode(&header, &claims, &self.inner.signing)
            .map_err(|e| Error::Config(format!("cannot sign the DPoP proof: {e}")))
    }
}

/// The last `DPoP-Nonce` each server supplied (RFC 9449 §8, §9), by origin: servers issue
/// nonces for themselves, and a new one replaces the old.
#[derive(Debug, Default)]
pub(crate) struct Nonces {
    by_origin: Mutex<HashMap<String, String>>,
}

impl Nonces {
    pub(crate) fn get(&self, url: &Url) -> Option<String> {
        let map = self.by_origin.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&url.origin().ascii_serialization()).cloned()
    }

    /// Records `nonce` for `url`'s server; whether it differs from the one held.
    pub(crate) fn set(&self, url: &Url, nonce: &str) -> bool {
        let mut map = self.by_origin.lock().unwrap_or_else(|e| e.into_inner());
        let old = map.insert(url.origin().ascii_serialization(), nonce.to_owned());
        old.as_deref() != Some(nonce)
    }
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{DecodingKey, Validation};
    use serde_json::Value;

    use super::*;

    fn decode(proof: &str, key: &DpopKey) -> (jsonwebtoken::Header, Value) {
        let header = jsonwebtoken::decode_header(proof).unwrap();
        let AlgorithmParameters::EllipticCurve(ec) = &key.public_jwk().algorithm else {
            panic!("not an EC key")
        };
        // Verify with the public key alone, as a server does with the header's jwk.
        let decoding = DecodingKey::from_ec_components(&ec.x, &ec.y).unwrap();
        let mut validation = Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<Value>(proof, &decoding, &validation)
            .unwrap()
            .claims;
        (header, claims)
    }

    #[test]
    fn a_proof_is_a_signed_dpop_jwt_bound_to_method_url_token_and_nonce() {
        let key = DpopKey::generate().unwrap();
        let url: Url = "https://mcp.example.com/mcp?session=1#frag"
            .parse()
            .unwrap();
        let proof = key
            .proof("POST", &url, Some("the-token"), Some("n-1"))
            .unwrap();
        let (header, claims) = decode(&proof, &key);
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        assert_eq!(header.alg, jsonwebtoken::Algorithm::ES256);
        let jwk = header.jwk.expect("the public key is in the header");
        assert_eq!(
            jwk.thumbprint(ThumbprintHash::SHA256).unwrap(),
            key.thumbprint()
        );
        let serialized = serde_json::to_value(&jwk).unwrap();
        assert!(
            serialized.get("d").is_none(),
            "no private part: {serialized}"
        );
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n-1");
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, b"the-token");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(digest.as_ref()));
        assert!(claims["iat"].as_u64().unwrap() > 1_700_000_000);
        // A token request's proof has neither ath nor nonce.
        let (_, bare) = decode(&key.proof("GET", &url, None, None).unwrap(), &key);
        assert!(bare.get("ath").is_none() && bare.get("nonce").is_none());
        assert_eq!(bare["htm"], "GET");
        assert_ne!(bare["jti"], claims["jti"], "every proof has its own jti");
    }

    #[test]
    fn the_key_survives_pkcs8_and_rejects_other_keys() {
        let key = DpopKey::generate().unwrap();
        let again = DpopKey::from_pkcs8(&key.to_pkcs8()).unwrap();
        assert_eq!(again.thumbprint(), key.thumbprint());
        assert_ne!(DpopKey::generate().unwrap().thumbprint(), key.thumbprint());
        assert!(matches!(
            DpopKey::from_pkcs8(b"not a key"),
            Err(Error::Config(_))
        ));
    }

    #[test]
    fn nonces_are_kept_per_origin() {
        let nonces = Nonces::default();
        let a: Url = "https://a.example/mcp".parse().unwrap();
        let a2: Url = "https://a.example/token".parse().unwrap();
        let b: Url = "https://b.example/mcp".parse().unwrap();
        assert!(nonces.set(&a, "1"));
        assert!(!nonces.set(&a2, "1"), "same origin, same nonce");
        assert_eq!(nonces.get(&a2).as_deref(), Some("1"));
        assert_eq!(nonces.get(&b), None);
        assert!(nonces.set(&a, "2"));
        assert_eq!(nonces.get(&a).as_deref(), Some("2"));
    }
}
