//! `requestState` (2026-07-28): what a request that needed input carries into its retry, sealed
//! so that the client cannot forge or alter it.
//!
//! The state holds the input answers gathered in earlier rounds and the value the handler set
//! with [`Context::set_request_state`](crate::Context::set_request_state), bound to the request
//! (method and tool, prompt or resource), to an optional principal, and to an expiry. It is
//! serialized as JSON, base64url-encoded, and followed by `.` and an HMAC-SHA256 tag over the
//! encoded JSON. Verification tries the current key and then the previous ones, so keys can be
//! rotated without failing the rounds in flight.
//!
//! HMAC-SHA256 comes from the `hmac-sha256` crate (no dependencies); the RustCrypto `hmac` and
//! `sha2` crates would add seven packages to every server's build for the same two functions.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_types::InputResponses;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// The default lifetime of a `requestState`: how long a user may take to answer.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

/// Seals and opens `requestState`s.
#[derive(Clone)]
pub(crate) struct StateCodec {
    /// The key new states are sealed with, then the previous keys still accepted.
    keys: Vec<Vec<u8>>,
    ttl: Duration,
}

impl fmt::Debug for StateCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateCodec")
            .field("keys", &self.keys.len())
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// What the state is bound to: a retry must be the same request, by the same principal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Binding {
    /// The method.
    #[serde(rename = "m")]
    pub(crate) method: String,
    /// The tool or prompt name, or the resource URI.
    #[serde(rename = "t")]
    pub(crate) target: String,
    /// The principal, from [`ServerBuilder::request_state_principal`](crate::ServerBuilder::request_state_principal).
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub(crate) principal: Option<String>,
}

/// The contents of a state.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Sealed {
    /// The answers of earlier rounds.
    #[serde(
        rename = "r",
        default,
        skip_serializing_if = "InputResponses::is_empty"
    )]
    pub(crate) responses: InputResponses,
    /// The handler's own value.
    #[serde(rename = "a", default, skip_serializing_if = "Option::is_none")]
    pub(crate) app: Option<Value>,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    #[serde(flatten)]
    binding: Binding,
    /// Expiry, in seconds since the Unix epoch.
    exp: u64,
    #[serde(flatten)]
    sealed: Sealed,
}

fn invalid(why: &str) -> Error {
    Error::invalid_params(format!("Invalid requestState: {why}"))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Compares two tags in time independent of where they differ.
fn same_tag(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl StateCodec {
    /// A codec sealing with `current` and accepting `previous` too.
    pub(crate) fn new(current: Vec<u8>, previous: Vec<Vec<u8>>, ttl: Duration) -> Self {
        let mut keys = vec![current];
        keys.extend(previous);
        StateCodec { keys, ttl }
    }

    /// A codec with a fresh random key, for a server whose states need not survive it.
    pub(crate) fn random(ttl: Duration) -> Self {
        let mut key = vec![0; 32];
        if let Err(e) = getrandom::fill(&mut key) {
            // No entropy source: the server cannot seal states safely, so every state it
            // issues will fail to open (a key of zeros would let anyone forge them).
            tracing::error!(error = %e, "no random key for requestState; states will be refused");
            return StateCodec {
                keys: Vec::new(),
                ttl,
            };
        }
        StateCodec::new(key, Vec::new(), ttl)
    }

    /// Seals `sealed` for a retry of the request `binding` names.
    pub(crate) fn seal(&self, binding: Binding, sealed: Sealed) -> Result<String> {
        let payload = Payload {
            binding,
            exp: now().saturating_add(self.ttl.as_secs()),
            sealed,
        };
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload)?);
        let key = self.keys.first().map_or(&[][..], Vec::as_slice);
        let tag = hmac_sha256::HMAC::mac(body.as_bytes(), key);
        Ok(format!("{body}.{}", URL_SAFE_NO_PAD.encode(tag)))
    }

    /// Opens a state the client echoed, checking its tag, its expiry and that it was issued
    /// for the request `binding` names.
    pub(crate) fn open(&self, state: &str, binding: &Binding) -> Result<Sealed> {
        let (body, tag) = state.split_once('.').ok_or_else(|| invalid("malformed"))?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| invalid("malformed"))?;
        let genuine = self
            .keys
            .iter()
            .any(|key| same_tag(&hmac_sha256::HMAC::mac(body.as_bytes(), key), &tag));
        if !genuine {
            return Err(invalid("integrity check failed"));
        }
        let json = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| invalid("malformed"))?;
        let payload: Payload = serde_json::from_slice(&json).map_err(|_| invalid("malformed"))?;
        if payload.exp < now() {
            return Err(invalid("expired"));
        }
        if payload.binding != *binding {
            return Err(invalid("issued for another request"));
        }
        Ok(payload.sealed)
    }
}

#[cfg(test)]
mod tests {
    use mcp_types::{ElicitResult, InputResponse};

    use super::*;

    fn binding(target: &str) -> Binding {
        Binding {
            method: "tools/call".to_owned(),
            target: target.to_owned(),
            principal: None,
        }
    }

    fn sealed() -> Sealed {
        Sealed {
            responses: [(
                "name".to_owned(),
                InputResponse::Elicit(ElicitResult::accept(None)),
            )]
            .into(),
            app: Some(serde_json::json!({"round": 2})),
        }
    }

    #[test]
    fn round_trips_and_refuses_forgery() {
        let codec = StateCodec::new(b"k1".to_vec(), Vec::new(), DEFAULT_TTL);
        let state = codec.seal(binding("ask"), sealed()).unwrap();
        let opened = codec.open(&state, &binding("ask")).unwrap();
        assert_eq!(opened.app, Some(serde_json::json!({"round": 2})));
        assert!(opened.responses.contains_key("name"));

        let tampered = format!("{state}-TAMPERED");
        let err = codec.open(&tampered, &binding("ask")).unwrap_err();
        assert!(
            matches!(err, Error::Rpc(ref e) if e.code.0 == -32602),
            "{err}"
        );
        let (body, tag) = state.split_once('.').unwrap();
        let mut forged = body.to_owned();
        forged.insert(0, 'e');
        assert!(
            codec
                .open(&format!("{forged}.{tag}"), &binding("ask"))
                .is_err()
        );
        assert!(codec.open("garbage", &binding("ask")).is_err());
        // Issued for another tool, or by another key: refused.
        assert!(codec.open(&state, &binding("other")).is_err());
        let other = StateCodec::new(b"k2".to_vec(), Vec::new(), DEFAULT_TTL);
        assert!(other.open(&state, &binding("ask")).is_err());
    }

    #[test]
    fn rotation_keeps_the_previous_key_and_expiry_is_checked() {
        let old = StateCodec::new(b"old".to_vec(), Vec::new(), DEFAULT_TTL);
        let state = old.seal(binding("ask"), sealed()).unwrap();
        let rotated = StateCodec::new(b"new".to_vec(), vec![b"old".to_vec()], DEFAULT_TTL);
        assert!(rotated.open(&state, &binding("ask")).is_ok());
        let fresh = rotated.seal(binding("ask"), Sealed::default()).unwrap();
        assert!(old.open(&fresh, &binding("ask")).is_err());

        let expired = StateCodec::new(b"k".to_vec(), Vec::new(), Duration::ZERO);
        let payload = Payload {
            binding: binding("ask"),
            exp: now() - 10,
            sealed: Sealed::default(),
        };
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload).unwrap());
        let tag = URL_SAFE_NO_PAD.encode(hmac_sha256::HMAC::mac(body.as_bytes(), b"k"));
        let err = expired
            .open(&format!("{body}.{tag}"), &binding("ask"))
            .unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
    }
}
