//! The OAuth client against `oidc-provider`, with a resource server protected by the crate's
//! own layer.

use std::sync::Arc;

use anyhow::{Context as _, Result, bail, ensure};
use axum::Router;
use axum::routing::{get, post, put};
use mcp_auth::{
    AssertionRequest, DpopKey, DpopPolicy, Error, HeadlessUserAgent, InMemoryTokenStore,
    JwtValidator, LoopbackUserAgent, OAuthClient, OAuthClientBuilder, RegisteredClient,
    ResourceServer, Retry, TokenEndpointAuthMethod, TokenKey, TokenStore, TokenType, UserAgent,
    assertion_fn,
};
use serde_json::{Value, json};

use crate::support::{AuthServer, CLIENT, SECRET, listener, serve};

const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// The provider and a resource server at `/mcp`: `POST` needs `mcp:read`, `PUT` needs
/// `mcp:read mcp:write`, `DELETE`-less `GET /mcp/admin` needs a scope nobody grants.
async fn setup() -> Result<(AuthServer, String)> {
    let auth = AuthServer::start().await?;
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .scopes_supported(["mcp:read", "mcp:write"])
        .required_scopes(["mcp:read"])
        .build()?;
    let validator = Arc::new(JwtValidator::builder(&auth.issuer, rs.resource()).build()?);
    let app = Router::new()
        .route(
            "/mcp",
            post(|| async { "read" }).layer(rs.layer(validator.clone())),
        )
        .route(
            "/mcp",
            put(|| async { "write" }).layer(
                rs.layer(validator.clone())
                    .required_scopes(["mcp:read", "mcp:write"]),
            ),
        )
        .route(
            "/mcp/admin",
            get(|| async { "admin" }).layer(rs.layer(validator).required_scopes(["mcp:admin"])),
        )
        .merge(rs.metadata_router());
    serve(listener, app);
    Ok((auth, resource))
}

fn headless(resource: &str) -> Result<OAuthClientBuilder> {
    Ok(OAuthClient::builder(resource).user_agent(HeadlessUserAgent::new(REDIRECT)?))
}

/// Sends `method url` through `oauth` the way a transport would: with the current token,
/// retrying while the client says so. Returns the final status.
async fn send(oauth: &OAuthClient, method: reqwest::Method, url: &str) -> Result<u16, Error> {
    let http = reqwest::Client::new();
    loop {
        let mut request = http.request(method.clone(), url).body("{}");
        if let Some(value) = oauth.authorization_header().await? {
            request = request.header("authorization", value);
        }
        assert!(!url.contains("access_token"));
        let response = request.send().await.expect("the resource server answers");
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        match oauth.handle_challenge(status, &challenge).await? {
            Retry::Yes => continue,
            Retry::No => return Ok(status),
        }
    }
}

/// The claims of a JWT (unverified: the resource server verifies).
fn claims(jwt: &str) -> Result<Value> {
    use base64::Engine as _;
    let payload = jwt.split('.').nth(1).context("not a JWT")?;
    Ok(serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload)?,
    )?)
}

async fn bearer(oauth: &OAuthClient) -> Result<String> {
    let value = oauth.authorization_header().await?.context("no token")?;
    ensure!(value.is_sensitive());
    Ok(value
        .to_str()?
        .strip_prefix("Bearer ")
        .context("not Bearer")?
        .to_owned())
}

#[tokio::test]
async fn authorization_code_with_registration_and_pkce() -> Result<()> {
    let (auth, resource) = setup().await?;
    let store = Arc::new(InMemoryTokenStore::new());
    let oauth = headless(&resource)?.token_store(store.clone()).build()?;
    assert!(oauth.authorization_header().await?.is_none());

    // 401 → discovery → registration → authorization code → 200.
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);

    let metadata = oauth.authorization_server().await.context("discovered")?;
    assert_eq!(metadata.issuer, auth.issuer);
    assert!(metadata.authorization_response_iss_parameter_supported);
    let key = TokenKey {
        issuer: auth.issuer.clone(),
        resource: resource.clone(),
    };
    assert_eq!(oauth.token_key().await, Some(key.clone()));
    let stored = store.load(&key).await?.context("token stored")?;
    // Scopes from the challenge (`mcp:read`), the audience from `resource`.
    assert_eq!(stored.scopes, ["mcp:read"]);
    assert!(stored.refresh_token.is_some());
    let claims = claims(&stored.access_token)?;
    assert_eq!(claims["aud"], json!(resource));
    assert_eq!(claims["scope"], "mcp:read");
    assert_eq!(claims["sub"], "test-user");
    assert_eq!(bearer(&oauth).await?, stored.access_token);

    // The token keeps working.
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
    Ok(())
}

#[tokio::test]
async fn the_loopback_user_agent_receives_the_code_from_the_browser() -> Result<()> {
    let (_auth, resource) = setup().await?;
    let loopback = LoopbackUserAgent::bind(0)?.timeout(std::time::Duration::from_secs(20));
    let redirect = loopback.redirect_uri().to_owned();
    assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
    // The "browser": it follows the authorization server's redirects (login and consent are
    // approved headlessly by the test provider) and finally loads the loopback redirect URI.
    let browser_redirect = redirect.clone();
    let loopback = loopback.on_open(move |url| {
        let url = url.clone();
        let redirect = browser_redirect.clone();
        tokio::spawn(async move {
            let browser = HeadlessUserAgent::new(&redirect).expect("a valid redirect URI");
            let back = browser
                .authorize(&url)
                .await
                .expect("the provider redirects back");
            assert!(back.as_str().starts_with(&redirect), "{back}");
            let page = reqwest::get(back)
                .await
                .expect("the loopback listener answers");
            assert_eq!(page.status(), 200);
        });
        Ok(())
    });
    let oauth = OAuthClient::builder(&resource)
        .user_agent(loopback)
        .build()?;
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(claims(&bearer(&oauth).await?)?["sub"], "test-user");
    Ok(())
}

#[tokio::test]
async fn expired_access_token_is_refreshed_with_rotation() -> Result<()> {
    let (auth, resource) = setup().await?;
    let store = Arc::new(InMemoryTokenStore::new());
    // Registered as `mcp-test-short`: 1 s access tokens.
    let oauth = headless(&resource)?
        .client_name("mcp-test-short")
        .token_store(store.clone())
        .build()?;
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
    let key = oauth.token_key().await.context("key")?;
    let first = store.load(&key).await?.context("token")?;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;

    let access = bearer(&oauth).await?;
    let second = store.load(&key).await?.context("token")?;
    assert_ne!(access, first.access_token);
    assert_eq!(access, second.access_token);
    assert!(second.refresh_token.is_some());
    assert_ne!(second.refresh_token, first.refresh_token, "rotated");
    assert_eq!(claims(&access)?["aud"], json!(resource));
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
    let _ = auth;
    Ok(())
}

#[tokio::test]
async fn client_credentials_with_a_secret() -> Result<()> {
    let (_auth, resource) = setup().await?;
    for method in [
        TokenEndpointAuthMethod::ClientSecretBasic,
        TokenEndpointAuthMethod::ClientSecretPost,
    ] {
        let oauth = OAuthClient::builder(&resource)
            .client_credentials()
            .client_id(CLIENT)
            .client_secret(SECRET)
            .token_endpoint_auth_method(method)
            .build()?;
        assert_eq!(
            send(&oauth, reqwest::Method::POST, &resource).await?,
            200,
            "{method:?}"
        );
        let claims = claims(&bearer(&oauth).await?)?;
        assert_eq!(claims["client_id"], CLIENT);
        assert_eq!(claims["aud"], json!(resource));
    }

    // A wrong secret is the authorization server's refusal.
    let oauth = OAuthClient::builder(&resource)
        .client_credentials()
        .client_id(CLIENT)
        .client_secret("wrong")
        .build()?;
    match send(&oauth, reqwest::Method::POST, &resource).await {
        Err(Error::OAuth { error, .. }) => assert_eq!(error, "invalid_client"),
        other => bail!("expected invalid_client, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn step_up_on_insufficient_scope_and_retry_limit() -> Result<()> {
    let (_auth, resource) = setup().await?;
    let oauth = headless(&resource)?.max_attempts(2).build()?;
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(claims(&bearer(&oauth).await?)?["scope"], "mcp:read");

    // PUT needs mcp:write too: 403 insufficient_scope → re-authorization → 200.
    assert_eq!(send(&oauth, reqwest::Method::PUT, &resource).await?, 200);
    assert_eq!(
        claims(&bearer(&oauth).await?)?["scope"],
        "mcp:read mcp:write"
    );

    // A scope the authorization server never grants: the client gives up.
    let admin = format!("{resource}/admin");
    match send(&oauth, reqwest::Method::GET, &admin).await {
        Err(Error::RetryLimit(2)) => {}
        other => bail!("expected the retry limit, got {other:?}"),
    }
    // The earlier grants still work.
    assert_eq!(send(&oauth, reqwest::Method::PUT, &resource).await?, 200);
    Ok(())
}

/// A stand-in authorization server at 127.0.0.1:0 serving `metadata(its own URL)` at
/// `/.well-known/oauth-authorization-server`, and a protected resource pointing at it.
async fn doctored(auth: &AuthServer, metadata: impl Fn(&str, Value) -> Value) -> Result<String> {
    let real = auth.metadata().await?;
    let (as_listener, fake) = listener("").await?;
    let doc = metadata(&fake, real);
    serve(
        as_listener,
        Router::new().route(
            "/.well-known/oauth-authorization-server",
            get(move || {
                let doc = doc.clone();
                async move { axum::Json(doc) }
            }),
        ),
    );
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&fake)
        .build()?;
    let validator = JwtValidator::builder(&auth.issuer, rs.resource()).build()?;
    let app = Router::new()
        .route("/mcp", post(|| async { "ok" }))
        .layer(rs.layer(validator))
        .merge(rs.metadata_router());
    serve(listener, app);
    Ok(resource)
}

#[tokio::test]
async fn refuses_without_pkce_s256() -> Result<()> {
    let auth = AuthServer::start().await?;
    for methods in [None, Some(json!(["plain"]))] {
        let resource = doctored(&auth, |fake, mut doc| {
            doc["issuer"] = json!(fake);
            match &methods {
                Some(m) => doc["code_challenge_methods_supported"] = m.clone(),
                None => {
                    doc.as_object_mut()
                        .map(|o| o.remove("code_challenge_methods_supported"));
                }
            }
            doc
        })
        .await?;
        let oauth = headless(&resource)?.build()?;
        match send(&oauth, reqwest::Method::POST, &resource).await {
            Err(Error::Unsupported(message)) => assert!(message.contains("PKCE"), "{message}"),
            other => bail!("expected a PKCE refusal, got {other:?}"),
        }
    }
    Ok(())
}

#[tokio::test]
async fn rejects_an_iss_or_issuer_mismatch() -> Result<()> {
    let auth = AuthServer::start().await?;
    // The metadata claims the stand-in is the issuer while the real provider (whose `iss` is
    // its own URL) answers the authorization request: the response's `iss` does not match.
    let resource = doctored(&auth, |fake, mut doc| {
        doc["issuer"] = json!(fake);
        doc
    })
    .await?;
    let oauth = headless(&resource)?.build()?;
    match send(&oauth, reqwest::Method::POST, &resource).await {
        Err(Error::Rejected(message)) => assert!(message.contains("issuer"), "{message}"),
        other => bail!("expected an iss mismatch, got {other:?}"),
    }

    // Metadata naming another issuer than the one it was fetched for.
    let resource = doctored(&auth, |_, mut doc| {
        doc["issuer"] = json!("http://127.0.0.1:1");
        doc
    })
    .await?;
    let oauth = headless(&resource)?.build()?;
    match send(&oauth, reqwest::Method::POST, &resource).await {
        Err(Error::Rejected(message)) => assert!(message.contains("names issuer"), "{message}"),
        other => bail!("expected an issuer mismatch, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn no_client_identity_is_a_clear_error() -> Result<()> {
    let auth = AuthServer::start().await?;
    let resource = doctored(&auth, |fake, mut doc| {
        doc["issuer"] = json!(fake);
        doc.as_object_mut()
            .map(|o| o.remove("registration_endpoint"));
        doc
    })
    .await?;
    let oauth = headless(&resource)?.build()?;
    match send(&oauth, reqwest::Method::POST, &resource).await {
        Err(Error::Unsupported(message)) => {
            assert!(message.contains("no client identity"), "{message}")
        }
        other => bail!("expected no client identity, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn client_credentials_with_private_key_jwt() -> Result<()> {
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    use base64::Engine as _;
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);

    let (auth, resource) = setup().await?;
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
        .map_err(|_| anyhow::anyhow!("key generation failed"))?;
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref())
        .map_err(|_| anyhow::anyhow!("bad key"))?;
    let point = pair.public_key().as_ref();
    ensure!(
        point.len() == 65 && point[0] == 4,
        "uncompressed P-256 point"
    );

    // Register the public key (dynamic registration with a JWKS).
    let registration = json!({
        "client_name": "mcp-test-jwt",
        "grant_types": ["client_credentials"],
        "response_types": [],
        "redirect_uris": [],
        "scope": "mcp:read mcp:write",
        "token_endpoint_auth_method": "private_key_jwt",
        "token_endpoint_auth_signing_alg": "ES256",
        "jwks": {"keys": [{
            "kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
            "x": b64(&point[1..33]), "y": b64(&point[33..]),
        }]},
    });
    let response = reqwest::Client::new()
        .post(format!("{}/reg", auth.issuer))
        .header("content-type", "application/json")
        .body(registration.to_string())
        .send()
        .await?;
    let status = response.status();
    let body: Value = serde_json::from_slice(&response.bytes().await?)?;
    ensure!(status.is_success(), "registration failed: {status} {body}");
    let client_id = body["client_id"].as_str().context("client_id")?;

    let oauth = OAuthClient::builder(&resource)
        .client_credentials()
        .client_id(client_id)
        .private_key_jwt(
            jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref()),
            jsonwebtoken::Algorithm::ES256,
            Some("k1".to_owned()),
        )
        .build()?;
    assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(claims(&bearer(&oauth).await?)?["client_id"], client_id);
    Ok(())
}

/// The challenge of the resource server's 401 to a request without a token.
async fn first_challenge(resource: &str) -> Result<String> {
    let response = reqwest::Client::new().post(resource).send().await?;
    ensure!(
        response.status() == 401,
        "expected 401, got {}",
        response.status()
    );
    Ok(response
        .headers()
        .get("www-authenticate")
        .context("no WWW-Authenticate")?
        .to_str()?
        .to_owned())
}

#[tokio::test]
async fn dpop_binds_tokens_to_the_key_through_the_nonce_challenge_and_refresh() -> Result<()> {
    let (_auth, resource) = setup().await?;
    let key = DpopKey::generate()?;
    let store = Arc::new(InMemoryTokenStore::new());
    // `mcp-test-short`: 1 s access tokens, so that refreshes are exercised too.
    let oauth = headless(&resource)?
        .client_name("mcp-test-short")
        .dpop(key.clone())
        .token_store(store.clone())
        .build()?;
    // The provider refuses the first proof (`use_dpop_nonce`); the client retries with the
    // nonce and gets a token bound to the key. The challenge is this resource's with the
    // `DPoP` scheme, as a DPoP-capable resource server sends it (this one is Bearer-only).
    let challenge = first_challenge(&resource)
        .await?
        .replacen("Bearer ", "DPoP ", 1);
    assert_eq!(oauth.handle_challenge(401, &challenge).await?, Retry::Yes);
    let metadata = oauth.authorization_server().await.context("discovered")?;
    assert!(
        metadata
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|a| a == "ES256"))
    );
    let token_key = oauth.token_key().await.context("key")?;
    let first = store.load(&token_key).await?.context("token")?;
    assert_eq!(first.token_type, TokenType::Dpop);
    assert_eq!(claims(&first.access_token)?["cnf"]["jkt"], key.thumbprint());
    assert!(first.refresh_token.is_some());

    // A DPoP token is never presented as a bearer token.
    assert!(matches!(
        oauth.authorization_header().await,
        Err(Error::Config(_))
    ));

    // Each request gets `Authorization: DPoP` and its own proof; the resource server gave no
    // nonce, and the authorization server's is not sent to another origin.
    let url: url::Url = format!("{resource}?q=1").parse()?;
    let check = |headers: &reqwest::header::HeaderMap, token: &str| -> Result<Value> {
        ensure!(headers["authorization"].to_str()? == format!("DPoP {token}"));
        ensure!(headers["authorization"].is_sensitive() && headers["dpop"].is_sensitive());
        let proof = headers["dpop"].to_str()?;
        let header = jsonwebtoken::decode_header(proof)?;
        ensure!(header.typ.as_deref() == Some("dpop+jwt"));
        let jwk = header.jwk.context("jwk")?;
        ensure!(jwk.thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256)? == key.thumbprint());
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<Value>(
            proof,
            &jsonwebtoken::DecodingKey::from_jwk(&jwk)?,
            &validation,
        )?
        .claims;
        ensure!(claims["htm"] == "PUT" && claims["htu"] == json!(resource));
        ensure!(claims.get("nonce").is_none(), "{claims}");
        use base64::Engine as _;
        let ath = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(
            aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes()),
        );
        ensure!(claims["ath"] == json!(ath));
        Ok(claims)
    };
    // A 1 s token is within the 30 s renewal margin: presenting it refreshes it first, and
    // the refresh carries a proof too, so the new token is bound to the key as well.
    let headers = oauth.request_headers(&reqwest::Method::PUT, &url).await?;
    let second = store.load(&token_key).await?.context("token")?;
    assert_ne!(second.access_token, first.access_token);
    assert_eq!(second.token_type, TokenType::Dpop);
    assert_eq!(
        claims(&second.access_token)?["cnf"]["jkt"],
        key.thumbprint()
    );
    let one = check(&headers, &second.access_token)?;
    let headers = oauth.request_headers(&reqwest::Method::PUT, &url).await?;
    let third = store.load(&token_key).await?.context("token")?;
    let two = check(&headers, &third.access_token)?;
    assert_ne!(one["jti"], two["jti"]);

    // The resource server asks for its nonce: without one recorded that is an error; once
    // recorded, the request is retried with it in the proof, and the token is kept.
    let use_nonce = r#"DPoP error="use_dpop_nonce", error_description="nonce required""#;
    assert!(matches!(
        oauth.handle_challenge(401, use_nonce).await,
        Err(Error::Rejected(_))
    ));
    oauth.dpop_nonce(&resource, "rs-nonce-1");
    assert_eq!(oauth.handle_challenge(401, use_nonce).await?, Retry::Yes);
    let headers = oauth.request_headers(&reqwest::Method::PUT, &url).await?;
    let proof = headers["dpop"].to_str()?;
    let payload = claims(proof)?;
    assert_eq!(payload["nonce"], "rs-nonce-1");
    assert!(store.load(&token_key).await?.is_some(), "the token is kept");
    Ok(())
}

#[tokio::test]
async fn bearer_tokens_without_a_dpop_key_or_for_a_bearer_only_server() -> Result<()> {
    let (_auth, resource) = setup().await?;
    // No key; then a key, but our layer challenges with Bearer only and its metadata names no
    // DPoP algorithm: a bound token would be refused there, so the client asks for a bearer one.
    for oauth in [
        headless(&resource)?.build()?,
        headless(&resource)?.dpop(DpopKey::generate()?).build()?,
    ] {
        assert_eq!(send(&oauth, reqwest::Method::POST, &resource).await?, 200);
        let url: url::Url = resource.parse()?;
        let headers = oauth.request_headers(&reqwest::Method::POST, &url).await?;
        assert_eq!(
            headers["authorization"].to_str()?,
            format!("Bearer {}", bearer(&oauth).await?)
        );
        assert!(headers.get("dpop").is_none());
        assert!(claims(&bearer(&oauth).await?)?.get("cnf").is_none());
    }
    Ok(())
}

#[tokio::test]
async fn a_refused_jwt_bearer_grant_is_the_servers_error_and_is_not_retried() -> Result<()> {
    let (auth, resource) = setup().await?;
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::new(std::sync::Mutex::new(None::<AssertionRequest>));
    let source = {
        let (calls, seen) = (calls.clone(), seen.clone());
        assertion_fn(move |request: AssertionRequest| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            *seen.lock().unwrap() = Some(request);
            async { Ok("eyJhbGciOiJub25lIn0.e30.".to_owned()) }
        })
    };
    let oauth = OAuthClient::builder(&resource)
        .client_id(CLIENT)
        .client_secret(SECRET)
        .jwt_bearer(source)
        .build()?;
    let challenge = first_challenge(&resource).await?;
    // oidc-provider has no JWT bearer grant: its refusal comes back as it is.
    match oauth.handle_challenge(401, &challenge).await {
        Err(Error::OAuth { error, .. }) => ensure!(
            [
                "unsupported_grant_type",
                "unauthorized_client",
                "invalid_grant"
            ]
            .contains(&error.as_str()),
            "{error}"
        ),
        other => bail!("expected the server's OAuth error, got {other:?}"),
    }
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    let request = seen.lock().unwrap().clone().context("asked")?;
    assert_eq!(request.issuer, auth.issuer);
    assert_eq!(request.resource, resource);
    assert!(request.token_endpoint.starts_with(&auth.issuer));
    assert_eq!(request.scopes, Some(vec!["mcp:read".to_owned()]));
    assert!(oauth.authorization_header().await?.is_none());

    // And the grant needs a client id.
    let anonymous = OAuthClient::builder(&resource)
        .jwt_bearer(mcp_auth::StaticAssertion::new("x"))
        .build();
    assert!(matches!(anonymous, Err(Error::Config(_))));
    Ok(())
}

/// Sends `method url` the way a DPoP-aware transport does: the client's headers for this very
/// request, `DPoP-Nonce` recorded, refusals handed over. The final status.
async fn send_with_headers(
    oauth: &OAuthClient,
    method: reqwest::Method,
    url: &str,
) -> Result<u16, Error> {
    let http = reqwest::Client::new();
    let parsed: url::Url = url.parse().expect("a URL");
    loop {
        let headers = oauth.request_headers(&method, &parsed).await?;
        let response = http
            .request(method.clone(), url)
            .headers(headers)
            .body("{}")
            .send()
            .await
            .expect("the resource server answers");
        if let Some(nonce) = response.headers().get("dpop-nonce") {
            oauth.dpop_nonce(url, nonce.to_str().unwrap_or_default());
        }
        let status = response.status().as_u16();
        let challenge: Vec<&str> = response
            .headers()
            .get_all("www-authenticate")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        match oauth
            .handle_challenge(status, &challenge.join(", "))
            .await?
        {
            Retry::Yes => continue,
            Retry::No => return Ok(status),
        }
    }
}

#[tokio::test]
async fn dpop_end_to_end_with_a_resource_server_taking_dpop() -> Result<()> {
    let auth = AuthServer::start().await?;
    let (listener, resource) = listener("/mcp").await?;
    let rs = ResourceServer::builder(&resource)
        .authorization_server(&auth.issuer)
        .scopes_supported(["mcp:read", "mcp:write"])
        .required_scopes(["mcp:read"])
        .dpop(DpopPolicy::Accepted)
        .build()?;
    assert!(
        rs.metadata()
            .dpop_signing_alg_values_supported
            .contains(&"ES256".to_owned())
    );
    let validator = JwtValidator::builder(&auth.issuer, rs.resource()).build()?;
    let app = Router::new()
        .route("/mcp", post(|| async { "read" }).layer(rs.layer(validator)))
        .merge(rs.metadata_router());
    serve(listener, app);

    // The layer's 401 offers both schemes; the client takes DPoP and the calls go through.
    let key = DpopKey::generate()?;
    let store = Arc::new(InMemoryTokenStore::new());
    let oauth = headless(&resource)?
        .dpop(key.clone())
        .token_store(store.clone())
        .build()?;
    for _ in 0..3 {
        assert_eq!(
            send_with_headers(&oauth, reqwest::Method::POST, &resource).await?,
            200
        );
    }
    let token = store
        .load(&oauth.token_key().await.context("key")?)
        .await?
        .context("token")?;
    assert_eq!(token.token_type, TokenType::Dpop);
    assert_eq!(claims(&token.access_token)?["cnf"]["jkt"], key.thumbprint());

    // What the layer refuses: the bound token as a bearer token, a replayed proof, a proof for
    // another method, a proof by another key.
    let url: url::Url = resource.parse()?;
    let http = reqwest::Client::new();
    let refused = |response: reqwest::Response| -> Result<String> {
        ensure!(response.status() == 401, "{}", response.status());
        Ok(response
            .headers()
            .get_all("www-authenticate")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(", "))
    };
    let bearer = format!("Bearer {}", token.access_token);
    let why = refused(
        http.post(&resource)
            .header("authorization", &bearer)
            .send()
            .await?,
    )?;
    assert!(why.contains("DPoP-bound"), "{why}");
    let headers = oauth.request_headers(&reqwest::Method::POST, &url).await?;
    let ok = http.post(&resource).headers(headers.clone()).send().await?;
    assert_eq!(ok.status(), 200);
    let why = refused(http.post(&resource).headers(headers).send().await?)?;
    assert!(
        why.contains("invalid_dpop_proof") && why.contains("already used"),
        "{why}"
    );
    let headers = oauth.request_headers(&reqwest::Method::GET, &url).await?;
    let why = refused(http.post(&resource).headers(headers).send().await?)?;
    assert!(why.contains("htm"), "{why}");
    let stranger = DpopKey::generate()?;
    let proof = stranger.proof("POST", &url, Some(&token.access_token), None)?;
    let why = refused(
        http.post(&resource)
            .header("authorization", format!("DPoP {}", token.access_token))
            .header("dpop", proof)
            .send()
            .await?,
    )?;
    assert!(why.contains("another key"), "{why}");
    Ok(())
}

/// A store that keeps tokens and registered clients, as a persistent store (a file) would
/// between two runs of a program.
#[derive(Default)]
struct KeepingStore {
    tokens: InMemoryTokenStore,
    clients: std::sync::Mutex<std::collections::HashMap<String, RegisteredClient>>,
}

impl TokenStore for KeepingStore {
    fn load<'a>(
        &'a self,
        key: &'a TokenKey,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<Option<mcp_auth::StoredToken>>> {
        self.tokens.load(key)
    }

    fn save<'a>(
        &'a self,
        key: &'a TokenKey,
        token: mcp_auth::StoredToken,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<()>> {
        self.tokens.save(key, token)
    }

    fn remove<'a>(&'a self, key: &'a TokenKey) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<()>> {
        self.tokens.remove(key)
    }

    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<Option<RegisteredClient>>> {
        let client = self.clients.lock().expect("lock").get(issuer).cloned();
        Box::pin(async move { Ok(client) })
    }

    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: RegisteredClient,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<()>> {
        self.clients
            .lock()
            .expect("lock")
            .insert(issuer.to_owned(), client);
        Box::pin(async { Ok(()) })
    }
}

/// [`HeadlessUserAgent`] counting the authorizations it performs (the user's logins).
#[derive(Clone)]
struct CountingAgent {
    inner: HeadlessUserAgent,
    count: Arc<std::sync::atomic::AtomicUsize>,
}

impl UserAgent for CountingAgent {
    fn redirect_uri(&self) -> &str {
        self.inner.redirect_uri()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a url::Url,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<url::Url>> {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.authorize(authorization_url)
    }
}

#[tokio::test]
async fn a_kept_token_and_registration_spare_the_next_client_a_login() -> Result<()> {
    let (auth, resource) = setup().await?;
    let agent = CountingAgent {
        inner: HeadlessUserAgent::new(REDIRECT)?,
        count: Arc::default(),
    };
    let logins = || agent.count.load(std::sync::atomic::Ordering::SeqCst);
    // A client named `name` keeping its tokens and registration in `store`, as one run of
    // a program would.
    let client = |name: &str, store: &Arc<KeepingStore>| {
        OAuthClient::builder(&resource)
            .user_agent(agent.clone())
            .client_name(name)
            .token_store(store.clone())
            .build()
    };

    // The first run: registration and a login; both are kept.
    let store = Arc::new(KeepingStore::default());
    let first = client("mcp-keeping", &store)?;
    assert_eq!(send(&first, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(logins(), 1);
    let key = first.token_key().await.context("key")?;
    let kept = store
        .load_client(&auth.issuer)
        .await?
        .context("client kept")?;
    assert_eq!(kept.redirect_uris, [REDIRECT]);
    let token = store.load(&key).await?.context("token kept")?;
    assert_eq!(claims(&token.access_token)?["client_id"], kept.client_id);

    // The next run: the 401 leads to discovery, which finds the kept token: no login.
    let second = client("mcp-keeping", &store)?;
    assert_eq!(send(&second, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(logins(), 1);
    assert_eq!(bearer(&second).await?, token.access_token);

    // A kept token the server refuses is dropped, and the user logs in again (once).
    store
        .save(&key, mcp_auth::StoredToken::new("not-a-token"))
        .await?;
    let third = client("mcp-keeping", &store)?;
    assert_eq!(send(&third, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(logins(), 2);
    assert_ne!(bearer(&third).await?, "not-a-token");

    // A kept token that has expired (1 s tokens, for clients registered as
    // `mcp-test-short`) is refreshed as the kept client: no login.
    let short = Arc::new(KeepingStore::default());
    let first = client("mcp-test-short", &short)?;
    assert_eq!(send(&first, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(logins(), 3);
    let key = first.token_key().await.context("key")?;
    let expiring = short.load(&key).await?.context("token kept")?;
    let kept = short
        .load_client(&auth.issuer)
        .await?
        .context("client kept")?;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let next = client("mcp-test-short", &short)?;
    assert_eq!(send(&next, reqwest::Method::POST, &resource).await?, 200);
    assert_eq!(logins(), 3);
    let refreshed = short.load(&key).await?.context("token kept")?;
    assert_ne!(refreshed.access_token, expiring.access_token);
    assert_ne!(refreshed.refresh_token, expiring.refresh_token, "rotated");
    assert_eq!(
        claims(&refreshed.access_token)?["client_id"],
        kept.client_id
    );
    Ok(())
}
