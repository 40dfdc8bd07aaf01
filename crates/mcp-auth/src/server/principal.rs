//! Who presented the token, and what it allows.

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// The scopes granted to a token: a set of scope tokens.
///
/// [`BearerAuthLayer`](crate::BearerAuthLayer) puts a copy in the request extensions next to
/// the [`Principal`]. Displays as the space-separated `scope` form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Scopes(BTreeSet<String>);

impl Scopes {
    /// Parses the space-separated form (the `scope` claim or parameter).
    pub fn from_space_separated(scope: &str) -> Self {
        scope
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// Whether `scope` is granted.
    pub fn contains(&self, scope: &str) -> bool {
        self.0.contains(scope)
    }

    /// Whether every scope of `required` is granted.
    pub fn contains_all<S: AsRef<str>>(&self, required: &[S]) -> bool {
        required.iter().all(|s| self.contains(s.as_ref()))
    }

    /// The granted scopes, in lexicographic order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// How many scopes are granted.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no scope is granted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<S: Into<String>> FromIterator<S> for Scopes {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Self(iter.into_iter().map(Into::into).collect())
    }
}

impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, scope) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(scope)?;
        }
        Ok(())
    }
}

/// The authenticated caller: what a validated token says about who presented it.
///
/// [`BearerAuthLayer`](crate::BearerAuthLayer) inserts it into the request extensions of every
/// request it lets through; with `mcp-transport-http`, a handler reads it with
/// `cx.extensions().get::<http::Extensions>().and_then(|e| e.get::<Principal>())`.
///
/// Build one with [`Principal::from_claims`] (from JWT claims or an introspection response).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    /// The `sub` claim: the user, or for a client-credentials token usually the client.
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id`, else `azp`).
    pub client_id: Option<String>,
    /// The granted scopes (`scope`, space-separated, else `scp`, a string or an array).
    pub scopes: Scopes,
    /// The audiences (`aud`, a string or an array); always includes this resource server.
    pub audience: Vec<String>,
    /// The issuer (`iss`).
    pub issuer: Option<String>,
    /// When the token expires (`exp`).
    pub expires_at: Option<SystemTime>,
    /// Every claim, as received (including the ones above).
    pub claims: Map<String, Value>,
}

impl Principal {
    /// Reads the registered claims of a JWT access token (RFC 9068) or an introspection
    /// response (RFC 7662); claims of an unexpected type are ignored.
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let string = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) => Scopes::from_space_separated(scope),
            (_, Some(Value::String(scp))) => Scopes::from_space_separated(scp),
            (_, Some(Value::Array(scp))) => scp.iter().filter_map(Value::as_str).collect(),
            _ => Scopes::default(),
        };
        Self {
            subject: string("sub"),
            client_id: string("client_id").or_else(|| string("azp")),
            scopes,
            audience: string_or_array(claims.get("aud")),
            issuer: string("iss"),
            expires_at: claims
                .get("exp")
                .and_then(Value::as_u64)
                .and_then(|exp| UNIX_EPOCH.checked_add(Duration::from_secs(exp))),
            claims,
        }
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Who this is across tokens: the issuer with the subject (or, for a token without one,
    /// the client), written as a JSON array so that no two principals share an id; `None`
    /// when the token names neither. With the `transport-http` feature,
    /// [`BearerAuthLayer`](crate::BearerAuthLayer) inserts it as the request's
    /// `mcp_transport_http::PrincipalId`, which binds MCP sessions to it.
    ///
    /// ```
    /// use mcp_auth::Principal;
    ///
    /// let claims = serde_json::json!({"iss": "https://as.example", "sub": "alice"});
    /// let principal = Principal::from_claims(claims.as_object().unwrap().clone());
    /// assert_eq!(principal.id().unwrap(), r#"["https://as.example","sub","alice"]"#);
    /// ```
    pub fn id(&self) -> Option<String> {
        let (kind, who) = match (&self.subject, &self.client_id) {
            (Some(subject), _) => ("sub", subject),
            (None, Some(client)) => ("client_id", client),
            (None, None) => return None,
        };
        Some(serde_json::json!([self.issuer, kind, who]).to_string())
    }
}

/// A claim that is a string or an array of strings (`aud`).
pub(super) fn string_or_array(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims() {
        let claims = serde_json::json!({
            "sub": "u", "azp": "c", "scp": ["b", "a"], "aud": "r", "iss": "i", "exp": 10,
        });
        let Value::Object(claims) = claims else {
            unreachable!()
        };
        let p = Principal::from_claims(claims);
        assert_eq!(p.subject.as_deref(), Some("u"));
        assert_eq!(p.client_id.as_deref(), Some("c"));
        assert_eq!(p.scopes.to_string(), "a b");
        assert_eq!(p.audience, ["r"]);
        assert_eq!(p.expires_at, Some(UNIX_EPOCH + Duration::from_secs(10)));
        assert!(p.has_scope("a") && !p.has_scope("c"));
        assert!(p.scopes.contains_all(&["a", "b"]));
    }
}
