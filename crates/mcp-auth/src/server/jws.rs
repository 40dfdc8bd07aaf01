//! Rules for the protected header of a compact JWS, shared by access tokens and DPoP proofs.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

/// The decoded protected header of a compact JWS, with every member (jsonwebtoken's `Header`
/// drops some, such as the private members of a `jwk`, and reads `"crit": null` as absent).
pub(crate) fn raw_header(jws: &str) -> Option<Map<String, Value>> {
    let first = jws.split('.').next()?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(first).ok()?).ok()
}

/// Refuses a header with a `crit` member (RFC 7515 §4.1.11): it names header extensions the
/// recipient must understand, and this crate understands none, so the JWS is invalid whatever
/// the list holds (an empty or malformed list is invalid too).
pub(crate) fn check_crit(header: &Map<String, Value>) -> Result<(), &'static str> {
    if header.contains_key("crit") {
        return Err("crit names header extensions this server does not understand");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn jws(header: &Value) -> String {
        format!("{}.e30.c2ln", URL_SAFE_NO_PAD.encode(header.to_string()))
    }

    #[test]
    fn any_crit_is_refused() {
        for crit in [
            json!(["exp"]),
            json!(["b64"]),
            json!([]),
            json!(null),
            json!("x"),
        ] {
            let header = raw_header(&jws(&json!({"alg": "ES256", "crit": crit}))).unwrap();
            assert!(check_crit(&header).is_err(), "{crit}");
        }
        let header = raw_header(&jws(&json!({"alg": "ES256"}))).unwrap();
        assert_eq!(check_crit(&header), Ok(()));
    }

    #[test]
    fn a_header_that_is_not_base64url_json_is_none() {
        assert_eq!(raw_header("not base64!.e30.c2ln"), None);
        assert_eq!(
            raw_header(&format!("{}.e30.c2ln", URL_SAFE_NO_PAD.encode("[1]"))),
            None
        );
        assert_eq!(raw_header(""), None);
    }
}
