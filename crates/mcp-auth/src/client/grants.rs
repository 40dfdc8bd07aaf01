//! The grants an [`OAuthClient`] runs (authorization code with PKCE, client credentials, JWT
//! bearer, refresh), the token request and client authentication, and how the client comes by
//! its identity (configured, a metadata document URL, or dynamic registration).

use super::*;

impl OAuthClient {
    /// Runs the configured grant for `session` and stores the token.
    pub(super) async fn obtain(&self, session: Session) -> Result<Session> {
        let token = match &self.inner.grant {
            Grant::AuthorizationCode(agent) => {
                self.authorization_code(&session, agent.as_ref()).await?
            }
            Grant::ClientCredentials => self.client_credentials(&session).await?,
            Grant::JwtBearer(source) => self.jwt_bearer(&session, source.as_ref()).await?,
        };
        self.inner.store.save(&session.key, token).await?;
        Ok(session)
    }

    /// Whether to bind tokens to the DPoP key: there is a key, the authorization server lists
    /// its algorithm, and the resource server takes DPoP tokens (its challenge offered the
    /// `DPoP` scheme, or its metadata lists the algorithm or requires bound tokens). A server
    /// that only speaks `Bearer` would refuse a bound token, so it gets bearer tokens.
    pub(super) fn dpop_supported(
        &self,
        discovered: &Discovered,
        challenge_offers_dpop: bool,
    ) -> bool {
        let Some(key) = &self.inner.dpop else {
            return false;
        };
        let lists = |algs: &Option<Vec<String>>| {
            algs.as_ref()
                .is_some_and(|algs| algs.iter().any(|a| a == key.algorithm()))
        };
        lists(&discovered.metadata.dpop_signing_alg_values_supported)
            && (challenge_offers_dpop
                || discovered.resource_dpop_required
                || lists(&discovered.resource_dpop_algs))
    }

    /// A new access token for an expired one: refresh, or client credentials again.
    pub(super) async fn renew(
        &self,
        session: &Session,
        token: &StoredToken,
    ) -> Result<StoredToken> {
        let new = match (&token.refresh_token, &self.inner.grant) {
            (Some(refresh), _) => {
                let form = vec![
                    ("grant_type", "refresh_token".to_owned()),
                    ("refresh_token", refresh.clone()),
                    ("resource", session.key.resource.clone()),
                ];
                let mut new = self.token_request(session, form, &token.scopes).await?;
                // No new refresh token: the old one stays valid (no rotation).
                if new.refresh_token.is_none() {
                    new.refresh_token = Some(refresh.clone());
                }
                new
            }
            (None, Grant::ClientCredentials) => self.client_credentials(session).await?,
            (None, Grant::JwtBearer(source)) => self.jwt_bearer(session, source.as_ref()).await?,
            (None, Grant::AuthorizationCode(_)) => {
                return Err(Error::Unsupported("no refresh token".into()));
            }
        };
        self.inner.store.save(&session.key, new.clone()).await?;
        Ok(new)
    }

    async fn client_credentials(&self, session: &Session) -> Result<StoredToken> {
        let mut form = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("resource", session.key.resource.clone()),
        ];
        if let Some(scopes) = &session.scopes {
            form.push(("scope", scopes.join(" ")));
        }
        let requested = session.scopes.clone().unwrap_or_default();
        self.token_request(session, form, &requested).await
    }

    /// The JWT bearer grant (RFC 7523 §2.1) with an assertion from `source`.
    async fn jwt_bearer(
        &self,
        session: &Session,
        source: &dyn AssertionSource,
    ) -> Result<StoredToken> {
        let metadata = &session.discovered.metadata;
        let assertion = source
            .assertion(AssertionRequest {
                issuer: metadata.issuer.clone(),
                token_endpoint: metadata.token_endpoint.clone(),
                resource: session.key.resource.clone(),
                scopes: session.scopes.clone(),
                http: self.inner.http.clone(),
            })
            .await?;
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion),
            ("resource", session.key.resource.clone()),
        ];
        if let Some(scopes) = &session.scopes {
            form.push(("scope", scopes.join(" ")));
        }
        let requested = session.scopes.clone().unwrap_or_default();
        self.token_request(session, form, &requested).await
    }

    async fn authorization_code(
        &self,
        session: &Session,
        agent: &dyn UserAgent,
    ) -> Result<StoredToken> {
        let metadata = &session.discovered.metadata;
        let endpoint = metadata.authorization_endpoint.as_deref().ok_or_else(|| {
            Error::Unsupported(format!(
                "authorization server `{}` has no authorization endpoint",
                metadata.issuer
            ))
        })?;
        // MCP: no PKCE S256 advertised, no authorization.
        if !metadata
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
        {
            return Err(Error::Unsupported(format!(
                "authorization server `{}` does not advertise PKCE with S256",
                metadata.issuer
            )));
        }
        let (verifier, code_challenge) = pkce()?;
        let state = random_string(32)?;
        let mut url = Url::parse(endpoint)
            .map_err(|e| Error::Rejected(format!("authorization endpoint `{endpoint}`: {e}")))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &session.client.client_id)
                .append_pair("redirect_uri", agent.redirect_uri())
                .append_pair("code_challenge", &code_challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &session.key.resource);
            if let Some(scopes) = &session.scopes {
                query.append_pair("scope", &scopes.join(" "));
            }
            if let (true, Some(key)) = (session.dpop, &self.inner.dpop) {
                // RFC 9449 §10: bind the authorization code to the key as well.
                query.append_pair("dpop_jkt", key.thumbprint());
            }
        }
        let redirect = agent.authorize(&url).await?;
        let params: HashMap<String, String> = redirect.query_pairs().into_owned().collect();
        if params.get("state") != Some(&state) {
            return Err(Error::Rejected(
                "the authorization response's state does not match".into(),
            ));
        }
        // RFC 9207: a present `iss` must be the issuer (byte for byte); a server advertising
        // the parameter must send it.
        match params.get("iss") {
            Some(iss) if *iss != metadata.issuer => {
                return Err(Error::Rejected(format!(
                    "the authorization response comes from issuer `{iss}`, not `{}`",
                    metadata.issuer
                )));
            }
            None if metadata.authorization_response_iss_parameter_supported => {
                return Err(Error::Rejected(
                    "the authorization response lacks the iss parameter its server advertises"
                        .into(),
                ));
            }
            _ => {}
        }
        if let Some(error) = params.get("error") {
            return Err(Error::OAuth {
                error: error.clone(),
                description: params.get("error_description").cloned(),
            });
        }
        let code = params.get("code").ok_or_else(|| {
            Error::Rejected("the authorization response has neither code nor error".into())
        })?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.clone()),
            ("redirect_uri", agent.redirect_uri().to_owned()),
            ("code_verifier", verifier),
            ("resource", session.key.resource.clone()),
        ];
        let requested = session.scopes.clone().unwrap_or_default();
        self.token_request(session, form, &requested).await
    }

    /// POSTs `form` to the token endpoint with client authentication (and a DPoP proof when
    /// the session binds tokens to the key) and reads the token. A `use_dpop_nonce` refusal
    /// that supplies a new nonce is retried once with it (RFC 9449 §8).
    async fn token_request(
        &self,
        session: &Session,
        form: Vec<(&'static str, String)>,
        requested: &[String],
    ) -> Result<StoredToken> {
        let metadata = &session.discovered.metadata;
        let dpop = match (session.dpop, &self.inner.dpop) {
            (true, Some(key)) => {
                let url = Url::parse(&metadata.token_endpoint).map_err(|e| {
                    Error::Rejected(format!("token endpoint `{}`: {e}", metadata.token_endpoint))
                })?;
                Some((key, url))
            }
            _ => None,
        };
        let mut nonce_retried = false;
        let json = loop {
            let mut request = self.inner.http.post(&metadata.token_endpoint);
            let mut form = form.clone();
            if let Some(basic) = self.authenticate(session, &mut form)? {
                request = request.header(::http::header::AUTHORIZATION, basic);
            }
            if let Some((key, url)) = &dpop {
                let nonce = self.inner.nonces.get(url);
                request = request.header("dpop", key.proof("POST", url, None, nonce.as_deref())?);
            }
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&form)
                .finish();
            let response = send(
                request
                    .header(
                        ::http::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(body),
                "token request",
            )
            .await?;
            let fresh_nonce = match (&dpop, &response.dpop_nonce) {
                (Some((_, url)), Some(nonce)) => self.inner.nonces.set(url, nonce),
                _ => false,
            };
            let json = response.json("token response");
            if response.is_success() {
                break json?;
            }
            let json = json.ok();
            let error = json
                .as_ref()
                .and_then(|j| j.get("error"))
                .and_then(Value::as_str);
            if error == Some("use_dpop_nonce") && fresh_nonce && !nonce_retried {
                tracing::debug!("the authorization server wants a DPoP nonce; sending again");
                nonce_retried = true;
                continue;
            }
            return Err(oauth_error(json.as_ref(), "token request", response.status));
        };
        let access_token = json
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| Error::authorization_server_msg("token response: no access_token"))?;
        let token_type = json.get("token_type").and_then(Value::as_str).unwrap_or("");
        let token_type = if token_type.eq_ignore_ascii_case("bearer") {
            TokenType::Bearer
        } else if token_type.eq_ignore_ascii_case("dpop") && dpop.is_some() {
            TokenType::Dpop
        } else {
            return Err(Error::Unsupported(format!(
                "token type `{token_type}` (Bearer, or DPoP when a proof was sent)"
            )));
        };
        let scopes = match json.get("scope").and_then(Value::as_str) {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => requested.to_vec(),
        };
        Ok(StoredToken {
            access_token: access_token.to_owned(),
            token_type,
            refresh_token: json
                .get("refresh_token")
                .and_then(Value::as_str)
                .map(str::to_owned),
            expires_at: json
                .get("expires_in")
                .and_then(Value::as_u64)
                .map(|s| SystemTime::now() + Duration::from_secs(s)),
            scopes,
        })
    }

    /// Adds the client authentication of `session` to a token request's form; the
    /// `Authorization` header to send, for `client_secret_basic`.
    fn authenticate(
        &self,
        session: &Session,
        form: &mut Vec<(&'static str, String)>,
    ) -> Result<Option<String>> {
        let client = &session.client;
        match client.method {
            TokenEndpointAuthMethod::None => form.push(("client_id", client.client_id.clone())),
            TokenEndpointAuthMethod::ClientSecretBasic => {
                let secret = client.secret.as_deref().unwrap_or_default();
                return Ok(Some(basic(&client.client_id, secret)));
            }
            TokenEndpointAuthMethod::ClientSecretPost => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", client.secret.clone().unwrap_or_default()));
            }
            TokenEndpointAuthMethod::PrivateKeyJwt => {
                form.push(("client_id", client.client_id.clone()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                ));
                form.push(("client_assertion", self.client_assertion(session)?));
            }
        }
        Ok(None)
    }

    /// The `private_key_jwt` assertion (RFC 7523 §3): `iss` = `sub` = client id, `aud` = the
    /// issuer, a unique `jti`, valid for 5 minutes.
    fn client_assertion(&self, session: &Session) -> Result<String> {
        let key = self.inner.signing_key.as_ref().ok_or_else(|| {
            Error::Config("private_key_jwt needs a signing key (`private_key_jwt`)".into())
        })?;
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let claims = json!({
            "iss": session.client.client_id,
            "sub": session.client.client_id,
            "aud": session.discovered.metadata.issuer,
            "jti": random_string(16)?,
            "iat": now,
            "exp": now + 300,
        });
        let mut header = jsonwebtoken::Header::new(key.algorithm);
        header.kid = key.kid.clone();
        jsonwebtoken::encode(&header, &claims, &key.key)
            .map_err(|e| Error::Config(format!("cannot sign the client assertion: {e}")))
    }

    /// The client identity to use at the authorization server of `metadata`, in the spec's
    /// order: pre-registered, Client ID Metadata Document, dynamic registration.
    pub(super) async fn identify(
        &self,
        metadata: &AuthorizationServerMetadata,
    ) -> Result<ClientInfo> {
        let inner = &self.inner;
        let supported = |m: TokenEndpointAuthMethod| {
            metadata
                .token_endpoint_auth_methods_supported
                .as_ref()
                .is_none_or(|list| list.iter().any(|s| s == m.as_str()))
        };
        if let Some(client_id) = &inner.client_id {
            let method = inner.auth_method.unwrap_or_else(|| {
                if inner.signing_key.is_some() {
                    TokenEndpointAuthMethod::PrivateKeyJwt
                } else if inner.client_secret.is_none() {
                    TokenEndpointAuthMethod::None
                } else if !supported(TokenEndpointAuthMethod::ClientSecretBasic)
                    && supported(TokenEndpointAuthMethod::ClientSecretPost)
                {
                    TokenEndpointAuthMethod::ClientSecretPost
                } else {
                    TokenEndpointAuthMethod::ClientSecretBasic
                }
            });
            return Ok(ClientInfo {
                client_id: client_id.clone(),
                secret: inner.client_secret.clone(),
                method,
            });
        }
        let Grant::AuthorizationCode(agent) = &inner.grant else {
            return Err(Error::Config(format!(
                "the {} grant needs a pre-registered client id",
                inner.grant.name()
            )));
        };
        if let Some(url) = &inner.metadata_document_url
            && metadata.client_id_metadata_document_supported
        {
            return Ok(ClientInfo {
                client_id: url.clone(),
                secret: None,
                method: TokenEndpointAuthMethod::None,
            });
        }
        // An identity registered before (a persistent store's), for this redirect URI.
        if let Some(kept) = inner.store.load_client(&metadata.issuer).await?
            && kept.redirect_uris.iter().any(|u| u == agent.redirect_uri())
        {
            tracing::debug!(client_id = %kept.client_id, "using the stored client registration");
            return Ok(ClientInfo {
                client_id: kept.client_id,
                secret: kept.client_secret,
                method: kept.token_endpoint_auth_method,
            });
        }
        let Some(endpoint) = &metadata.registration_endpoint else {
            return Err(Error::Unsupported(format!(
                "no client identity for authorization server `{}`: no pre-registered client id, \
                 no Client ID Metadata Document support{}, no registration endpoint",
                metadata.issuer,
                if inner.metadata_document_url.is_some() {
                    ""
                } else {
                    " (or none configured)"
                }
            )));
        };
        // A public client unless the server only takes secrets.
        let method = [
            TokenEndpointAuthMethod::None,
            TokenEndpointAuthMethod::ClientSecretBasic,
            TokenEndpointAuthMethod::ClientSecretPost,
        ]
        .into_iter()
        .find(|m| supported(*m))
        .unwrap_or(TokenEndpointAuthMethod::None);
        let mut request = json!({
            "client_name": inner.client_name,
            "redirect_uris": [agent.redirect_uri()],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method.as_str(),
        });
        if Url::parse(agent.redirect_uri())
            .is_ok_and(|u| matches!(u.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")))
        {
            // OpenID Connect registration: loopback redirects belong to native clients.
            request["application_type"] = json!("native");
        }
        let response = send(
            inner
                .http
                .post(endpoint)
                .header(::http::header::CONTENT_TYPE, "application/json")
                .body(request.to_string()),
            "client registration",
        )
        .await?;
        let json = response.json("client registration");
        if !response.is_success() {
            return Err(oauth_error(
                json.ok().as_ref(),
                "client registration",
                response.status,
            ));
        }
        let json = json?;
        let client_id = json
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::authorization_server_msg("client registration: no client_id"))?;
        let secret = json
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let method = json
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .and_then(TokenEndpointAuthMethod::parse)
            .unwrap_or(if secret.is_some() {
                TokenEndpointAuthMethod::ClientSecretBasic
            } else {
                TokenEndpointAuthMethod::None
            });
        tracing::debug!(client_id, method = method.as_str(), "registered the client");
        let kept = RegisteredClient {
            client_id: client_id.to_owned(),
            client_secret: secret.clone(),
            token_endpoint_auth_method: method,
            redirect_uris: vec![agent.redirect_uri().to_owned()],
        };
        inner.store.save_client(&metadata.issuer, kept).await?;
        Ok(ClientInfo {
            client_id: client_id.to_owned(),
            secret,
            method,
        })
    }
}
