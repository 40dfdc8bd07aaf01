//! HTTP helpers, randomness and PKCE.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use crate::digest::sha256_base64url;
use crate::{Error, Result};

/// The largest metadata, registration or token response read.
const MAX_BODY: usize = 1 << 20;

/// The client used when none is configured: bounded timeouts, no redirects (metadata and
/// token endpoints are used as published).
pub(crate) fn default_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))
}

/// A response read in full (bounded).
pub(crate) struct Body {
    pub(crate) status: u16,
    pub(crate) bytes: Vec<u8>,
    /// The `DPoP-Nonce` header, if any (RFC 9449 §8).
    pub(crate) dpop_nonce: Option<String>,
}

impl Body {
    pub(crate) fn json(&self, what: &str) -> Result<Map<String, Value>> {
        serde_json::from_slice(&self.bytes)
            .map_err(|e| Error::authorization_server(format!("{what}: not a JSON object"), e))
    }

    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Sends `request` and reads the body, whatever the status.
pub(crate) async fn send(request: reqwest::RequestBuilder, what: &str) -> Result<Body> {
    let mut response = request
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| Error::authorization_server(format!("{what}: request failed"), e))?;
    let status = response.status().as_u16();
    let dpop_nonce = response
        .headers()
        .get("dpop-nonce")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| Error::authorization_server(format!("{what}: reading the body failed"), e))?
    {
        if bytes.len() + chunk.len() > MAX_BODY {
            return Err(Error::authorization_server_msg(format!(
                "{what}: response too large"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Body {
        status,
        bytes,
        dpop_nonce,
    })
}

/// `n` random bytes, base64url without padding.
pub(crate) fn random_string(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n];
    aws_lc_rs::rand::fill(&mut bytes)
        .map_err(|_| Error::Config("the system random generator failed".into()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A PKCE verifier (RFC 7636 §4.1: 43 characters from 32 random bytes) and its S256 challenge.
pub(crate) fn pkce() -> Result<(String, String)> {
    let verifier = random_string(32)?;
    let challenge = sha256_base64url(verifier.as_bytes());
    Ok((verifier, challenge))
}

/// The string of a JSON value, or a list of strings.
pub(crate) fn string_list(value: Option<&Value>) -> Option<Vec<String>> {
    Some(
        value?
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
    )
}

/// `Basic` credentials, each part form-urlencoded first (RFC 6749 §2.3.1).
pub(crate) fn basic(client_id: &str, secret: &str) -> String {
    let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let credentials = format!("{}:{}", encode(client_id), encode(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(credentials)
    )
}

/// The error of a refused OAuth request: the `error` it names, else its status.
pub(crate) fn oauth_error(
    json: Option<&serde_json::Map<String, Value>>,
    what: &str,
    status: u16,
) -> Error {
    let field = |k: &str| {
        json.and_then(|j| j.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match field("error") {
        Some(error) => Error::OAuth {
            error,
            description: field("error_description"),
        },
        None => Error::authorization_server_msg(format!("{what}: HTTP status {status}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256() {
        let (verifier, challenge) = pkce().unwrap();
        assert_eq!(verifier.len(), 43);
        assert_eq!(challenge.len(), 43);
        // RFC 7636 appendix B.
        let digest = aws_lc_rs::digest::digest(
            &aws_lc_rs::digest::SHA256,
            b"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        );
        assert_eq!(
            URL_SAFE_NO_PAD.encode(digest.as_ref()),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
