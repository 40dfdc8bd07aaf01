//! Token storage.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::Result;

/// A boxed, `Send` future, as returned by the object-safe traits [`TokenStore`] and
/// [`UserAgent`](crate::UserAgent).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a token is valid: the authorization server that issued it and the resource (the MCP
/// server's canonical URI) it was issued for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TokenKey {
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// The resource indicator (RFC 8707).
    pub resource: String,
}

/// How an access token is presented (the token response's `token_type`).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TokenType {
    /// `Authorization: Bearer <token>` (RFC 6750).
    #[default]
    Bearer,
    /// Bound to the client's [`DpopKey`](crate::DpopKey): `Authorization: DPoP <token>` with a
    /// `DPoP` proof on every request (RFC 9449 §7.1).
    Dpop,
}

/// Tokens obtained from an authorization server. `Debug` does not show the tokens.
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq)]
pub struct StoredToken {
    /// The access token.
    pub access_token: String,
    /// How it is presented: as a bearer token, or bound to the DPoP key.
    pub token_type: TokenType,
    /// The refresh token, if one was issued (replaced when the server rotates it).
    pub refresh_token: Option<String>,
    /// When the access token expires, if the server said (`expires_in`).
    pub expires_at: Option<SystemTime>,
    /// The scopes granted (the response's `scope`, else those requested); empty if unknown.
    pub scopes: Vec<String>,
}

impl StoredToken {
    /// A token without refresh token, expiry or scopes.
    pub fn new(access_token: impl Into<String>) -> Self {
        Self {
            access_token: access_token.into(),
            token_type: TokenType::Bearer,
            refresh_token: None,
            expires_at: None,
            scopes: Vec::new(),
        }
    }

    /// Whether the access token has expired or will within `margin`.
    pub fn expires_within(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| at <= SystemTime::now() + margin)
    }
}

impl fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredToken")
            .field("access_token", &"<redacted>")
            .field("token_type", &self.token_type)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// A client identity obtained by dynamic client registration (RFC 7591) at one authorization
/// server, as a [`TokenStore`] may keep it between runs. `Debug` does not show the secret.
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq)]
pub struct RegisteredClient {
    /// The `client_id` the authorization server issued.
    pub client_id: String,
    /// The `client_secret` it issued, if any.
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint.
    pub token_endpoint_auth_method: crate::TokenEndpointAuthMethod,
    /// The redirect URIs registered (the user agent's, for the authorization-code grant).
    pub redirect_uris: Vec<String>,
}

impl RegisteredClient {
    /// A public client (`token_endpoint_auth_method` `none`) with `redirect_uris`.
    pub fn new(client_id: impl Into<String>, redirect_uris: Vec<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: crate::TokenEndpointAuthMethod::None,
            redirect_uris,
        }
    }
}

impl fmt::Debug for RegisteredClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredClient")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("redirect_uris", &self.redirect_uris)
            .finish()
    }
}

/// Keeps tokens between requests (and, for persistent implementations, between runs).
///
/// [`OAuthClient`](crate::OAuthClient) loads the token for the current [`TokenKey`] before
/// every request, saves what it obtains, and removes a token the server no longer accepts.
/// When it discovers an authorization server (after a 401) and the store already holds a
/// token for that server and resource, it uses that token (renewing it if it has expired)
/// before running a grant: a persistent store spares the user a new login in the next run.
/// Implementations must be cheap to call concurrently; the futures must be cancel-safe (a
/// dropped `save` may or may not have stored the token). Built in: [`InMemoryTokenStore`].
///
/// A store may also keep the client identities obtained by dynamic registration
/// ([`load_client`](Self::load_client), [`save_client`](Self::save_client); by default it
/// does not), so that a later run refreshes its tokens as the client they were issued to.
pub trait TokenStore: Send + Sync + 'static {
    /// The token stored under `key`, if any.
    fn load<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, Result<Option<StoredToken>>>;
    /// Stores `token` under `key`, replacing what was there.
    fn save<'a>(&'a self, key: &'a TokenKey, token: StoredToken) -> BoxFuture<'a, Result<()>>;
    /// Forgets the token stored under `key`.
    fn remove<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, Result<()>>;

    /// The client identity registered at the authorization server `issuer`, if kept. The
    /// client uses it instead of registering again when, for the authorization-code grant,
    /// its [`redirect_uris`](RegisteredClient::redirect_uris) include the user agent's
    /// redirect URI. The default keeps none.
    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<RegisteredClient>>> {
        let _ = issuer;
        Box::pin(async { Ok(None) })
    }

    /// Keeps `client`, just registered at `issuer`, replacing what was there. The default
    /// keeps nothing.
    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: RegisteredClient,
    ) -> BoxFuture<'a, Result<()>> {
        let _ = (issuer, client);
        Box::pin(async { Ok(()) })
    }
}

/// A [`TokenStore`] in memory (the default): tokens last as long as the client.
#[derive(Default)]
pub struct InMemoryTokenStore {
    tokens: Mutex<HashMap<TokenKey, StoredToken>>,
}

impl InMemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<TokenKey, StoredToken>) -> T) -> T {
        let mut guard = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut guard)
    }
}

impl fmt::Debug for InMemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<TokenKey> = self.with(|m| m.keys().cloned().collect());
        f.debug_struct("InMemoryTokenStore")
            .field("keys", &keys)
            .finish()
    }
}

impl TokenStore for InMemoryTokenStore {
    fn load<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, Result<Option<StoredToken>>> {
        let token = self.with(|m| m.get(key).cloned());
        Box::pin(async move { Ok(token) })
    }

    fn save<'a>(&'a self, key: &'a TokenKey, token: StoredToken) -> BoxFuture<'a, Result<()>> {
        self.with(|m| m.insert(key.clone(), token));
        Box::pin(async { Ok(()) })
    }

    fn remove<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, Result<()>> {
        self.with(|m| m.remove(key));
        Box::pin(async { Ok(()) })
    }
}

impl<T: TokenStore> TokenStore for std::sync::Arc<T> {
    fn load<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, Result<Option<StoredToken>>> {
        (**self).load(key)
    }

    fn save<'a>(&'a self, key: &'a TokenKey, token: StoredToken) -> BoxFuture<'a, Result<()>> {
        (**self).save(key, token)
    }

    fn remove<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, Result<()>> {
        (**self).remove(key)
    }

    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<RegisteredClient>>> {
        (**self).load_client(issuer)
    }

    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: RegisteredClient,
    ) -> BoxFuture<'a, Result<()>> {
        (**self).save_client(issuer, client)
    }
}
