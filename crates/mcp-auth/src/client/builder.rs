//! [`OAuthClientBuilder`]: how an [`OAuthClient`] is configured.

use super::*;

/// Builds an [`OAuthClient`]; see [`OAuthClient::builder`].
pub struct OAuthClientBuilder {
    server_url: String,
    http: Option<reqwest::Client>,
    grant: Option<Grant>,
    client_id: Option<String>,
    client_secret: Option<String>,
    auth_method: Option<TokenEndpointAuthMethod>,
    signing_key: Option<SigningKey>,
    dpop: Option<DpopKey>,
    metadata_document_url: Option<String>,
    client_name: String,
    scopes: Option<Vec<String>>,
    store: Option<Arc<dyn TokenStore>>,
    max_attempts: u32,
    challenge_window: std::time::Duration,
}

impl fmt::Debug for OAuthClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClientBuilder")
            .field("server_url", &self.server_url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl OAuthClientBuilder {
    /// The defaults, for the MCP server at `server_url`.
    pub(super) fn new(server_url: String) -> Self {
        OAuthClientBuilder {
            server_url,
            http: None,
            grant: None,
            client_id: None,
            client_secret: None,
            auth_method: None,
            signing_key: None,
            dpop: None,
            metadata_document_url: None,
            client_name: "mcp-auth".to_owned(),
            scopes: None,
            store: None,
            max_attempts: 3,
            challenge_window: DEFAULT_CHALLENGE_WINDOW,
        }
    }

    /// Uses the authorization-code grant (with PKCE), with `agent` for the user's part.
    pub fn user_agent(mut self, agent: impl UserAgent) -> Self {
        self.grant = Some(Grant::AuthorizationCode(Arc::new(agent)));
        self
    }

    /// Uses the client credentials grant (the client acts on its own behalf); needs a
    /// pre-registered [`client_id`](Self::client_id) with a secret or a private key.
    pub fn client_credentials(mut self) -> Self {
        self.grant = Some(Grant::ClientCredentials);
        self
    }

    /// A pre-registered client id (used in preference to any other way of identifying).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The pre-registered client's secret.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// How the pre-registered client authenticates at the token endpoint. By default:
    /// `private_key_jwt` with a key, `none` without a secret, else `client_secret_basic`
    /// (`client_secret_post` if the server only advertises that).
    pub fn token_endpoint_auth_method(mut self, method: TokenEndpointAuthMethod) -> Self {
        self.auth_method = Some(method);
        self
    }

    /// Uses the JWT bearer grant (RFC 7523 §2.1) with assertions from `source`: a workload
    /// identity token ([`StaticAssertion`], [`assertion_fn`]: workload identity federation),
    /// or an ID-JAG from the enterprise identity provider ([`IdJagExchange`]:
    /// enterprise-managed authorization). Needs a pre-registered
    /// [`client_id`](Self::client_id) (with a secret or key if the server authenticates
    /// clients). A refused grant is an error, never retried with another grant type.
    pub fn jwt_bearer(mut self, source: impl AssertionSource) -> Self {
        self.grant = Some(Grant::JwtBearer(Arc::new(source)));
        self
    }

    /// Binds tokens to `key` with DPoP (RFC 9449) when the authorization server lists ES256 in
    /// `dpop_signing_alg_values_supported` and the MCP server takes DPoP tokens (its 401
    /// offers the `DPoP` scheme, or its protected resource metadata lists ES256 in
    /// `dpop_signing_alg_values_supported` or sets `dpop_bound_access_tokens_required`);
    /// otherwise tokens stay bearer tokens. Present them with
    /// [`OAuthClient::request_headers`].
    pub fn dpop(mut self, key: DpopKey) -> Self {
        self.dpop = Some(key);
        self
    }

    /// The pre-registered client's private key for `private_key_jwt` (its public key is
    /// registered with the authorization server), with the JWS algorithm and key id. From a
    /// PEM file: `jsonwebtoken::EncodingKey::from_ec_pem` (or `from_rsa_pem`, `from_ed_pem`).
    pub fn private_key_jwt(
        mut self,
        key: jsonwebtoken::EncodingKey,
        algorithm: jsonwebtoken::Algorithm,
        kid: Option<String>,
    ) -> Self {
        self.signing_key = Some(SigningKey {
            key,
            algorithm,
            kid,
        });
        self
    }

    /// The URL of this client's Client ID Metadata Document (an `https` URL with a path,
    /// listing the user agent's redirect URI), used as client id by authorization servers
    /// that advertise `client_id_metadata_document_supported`.
    pub fn client_metadata_document_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_document_url = Some(url.into());
        self
    }

    /// The `client_name` sent in dynamic registration (`mcp-auth` by default).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Requests these scopes at first, whatever the challenge and metadata say.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Where tokens are kept ([`InMemoryTokenStore`] by default).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// The HTTP client for metadata, registration and token requests (it should not follow
    /// redirects). By default: timeouts of 10 s to connect and 30 s in all, no redirects.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// How many consecutive challenges [`OAuthClient::handle_challenge`] handles before
    /// [`Error::RetryLimit`] (3 by default).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// How close together challenges must come to count as consecutive (60 s by default):
    /// a challenge later than this after the previous one starts the count again.
    pub fn challenge_window(mut self, window: std::time::Duration) -> Self {
        self.challenge_window = window;
        self
    }

    /// Checks the configuration and builds the client.
    ///
    /// Fails with [`Error::Config`] if the server URL is not an absolute `http(s)` URL, if no
    /// grant was chosen, or if client credentials lack a client id.
    pub fn build(self) -> Result<OAuthClient> {
        let server_url = discovery::canonical_resource(&self.server_url)?;
        let grant = self.grant.ok_or_else(|| {
            Error::Config(
                "choose a grant: `user_agent(...)`, `client_credentials()` or `jwt_bearer(...)`"
                    .into(),
            )
        })?;
        if !matches!(grant, Grant::AuthorizationCode(_)) && self.client_id.is_none() {
            return Err(Error::Config(format!(
                "the {} grant needs a client id",
                grant.name()
            )));
        }
        Ok(OAuthClient {
            inner: Arc::new(Inner {
                server_url,
                http: match self.http {
                    Some(http) => http,
                    None => http::default_client()?,
                },
                grant,
                client_id: self.client_id,
                client_secret: self.client_secret,
                auth_method: self.auth_method,
                signing_key: self.signing_key,
                dpop: self.dpop,
                nonces: dpop::Nonces::default(),
                metadata_document_url: self.metadata_document_url,
                client_name: self.client_name,
                scopes: self.scopes,
                store: self
                    .store
                    .unwrap_or_else(|| Arc::new(InMemoryTokenStore::new())),
                max_attempts: self.max_attempts,
                challenge_window: self.challenge_window,
                state: tokio::sync::Mutex::new(State::default()),
            }),
        })
    }
}
