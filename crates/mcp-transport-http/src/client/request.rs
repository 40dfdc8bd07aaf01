//! One HTTP request of the transport: the builder's, the header provider's and the auth
//! provider's headers, and the retries after the server refused the credentials.

use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode, Url};

use super::auth::{AuthChallenge, AuthProvider};
use super::error::{Error, Result};
use super::shared::Shared;

impl Shared {
    /// The builder's headers, then the provider's.
    async fn base_headers(&self) -> Result<HeaderMap> {
        let mut headers = self.headers.clone();
        if let Some(provider) = &self.provider {
            let extra = provider.headers().await.map_err(Error::Headers)?;
            let mut last: Option<HeaderName> = None;
            for (name, value) in extra {
                match name {
                    Some(name) => {
                        headers.insert(name.clone(), value);
                        last = Some(name);
                    }
                    None => {
                        if let Some(name) = &last {
                            headers.append(name.clone(), value);
                        }
                    }
                }
            }
        }
        Ok(headers)
    }

    /// One HTTP request to `url` with the builder's and the header provider's headers,
    /// then `extra`, then the auth provider's `Authorization`. A refusal of the credentials
    /// (401, or 403 `insufficient_scope`) goes to the auth provider, and the request is
    /// sent again while it says so, at most `max_auth_retries` times; without an auth
    /// provider, the refusal is returned like any other response.
    pub(crate) async fn request(
        &self,
        method: Method,
        url: &Url,
        extra: &HeaderMap,
        body: Option<&str>,
    ) -> Result<reqwest::Response> {
        let mut retries = 0;
        loop {
            let seen = match &self.auth {
                // Wait for new credentials being obtained, if any.
                Some(_) => self.auth_state.lock().await.generation,
                None => 0,
            };
            let mut headers = self.base_headers().await?;
            headers.extend(extra.clone());
            if let Some(auth) = &self.auth {
                let auth_headers = auth
                    .request_headers(&method, url)
                    .await
                    .map_err(Error::Auth)?;
                // They replace any header of the same name; a name given several values
                // keeps them all (`HeaderMap` yields the name with the first one only).
                let mut current: Option<HeaderName> = None;
                for (name, mut value) in auth_headers {
                    value.set_sensitive(true);
                    match (name, &current) {
                        (Some(name), _) => {
                            headers.insert(name.clone(), value);
                            current = Some(name);
                        }
                        (None, Some(name)) => {
                            headers.append(name.clone(), value);
                        }
                        (None, None) => {}
                    }
                }
            }
            let mut builder = self
                .http
                .request(method.clone(), url.clone())
                .headers(headers);
            if let Some(body) = body {
                builder = builder.body(body.to_owned());
            }
            let resp = builder.send().await?;
            let Some(auth) = &self.auth else {
                return Ok(resp);
            };
            let Some(challenge) = challenge_of(&resp, url) else {
                return Ok(resp);
            };
            drop(resp);
            let refused = |challenge: AuthChallenge| Error::Unauthorized {
                status: challenge.status(),
                challenge: Box::new(challenge),
            };
            if retries >= self.max_auth_retries {
                tracing::warn!(%challenge, retries, "credentials still refused; giving up");
                return Err(refused(challenge));
            }
            retries += 1;
            if !self.reauthorize(auth, seen, challenge.clone()).await? {
                tracing::warn!(%challenge, "the auth provider gave up");
                return Err(refused(challenge));
            }
            tracing::debug!(%method, %url, "sending again with new credentials");
        }
    }

    /// Asks the auth provider for new credentials after a refusal of those of generation
    /// `seen`, unless another request already did since: then its outcome is reused.
    async fn reauthorize(
        &self,
        auth: &Arc<dyn AuthProvider>,
        seen: u64,
        challenge: AuthChallenge,
    ) -> Result<bool> {
        let mut st = self.auth_state.lock().await;
        if st.generation != seen {
            return Ok(st.authorized);
        }
        tracing::info!(%challenge, "the server refused the credentials; asking the auth provider");
        let outcome = auth.on_unauthorized(challenge).await;
        st.generation += 1;
        st.authorized = matches!(outcome, Ok(true));
        outcome.map_err(Error::Auth)
    }
}

/// The challenge of a response refusing the credentials: 401, or 403 whose Bearer challenge
/// says `insufficient_scope`.
fn challenge_of(resp: &reqwest::Response, url: &Url) -> Option<AuthChallenge> {
    let status = resp.status();
    if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
        return None;
    }
    let values = resp
        .headers()
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect();
    let mut challenge = AuthChallenge::new(status, url.clone(), values);
    if let Some(nonce) = resp
        .headers()
        .get("dpop-nonce")
        .and_then(|v| v.to_str().ok())
    {
        challenge = challenge.with_dpop_nonce(nonce);
    }
    (status == StatusCode::UNAUTHORIZED || challenge.is_insufficient_scope()).then_some(challenge)
}
