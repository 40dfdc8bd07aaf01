//! Small HTTP helpers for talking to the authorization server.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::{Error, Result};

/// The largest metadata, JWKS or introspection response read.
const MAX_BODY: usize = 1 << 20;

/// The client used when none is configured: bounded timeouts, no redirects (an
/// authorization server's endpoints are used as published).
pub(super) fn default_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))
}

/// Sends `request` and reads a JSON object from a 2xx response.
pub(super) async fn json_object(
    request: reqwest::RequestBuilder,
    what: &str,
) -> Result<Map<String, Value>> {
    let mut response = request
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| Error::authorization_server(format!("{what}: request failed"), e))?;
    let status = response.status();
    if !status.is_success() {
        return Err(Error::authorization_server_msg(format!(
            "{what}: HTTP status {status}"
        )));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| Error::authorization_server(format!("{what}: reading the body failed"), e))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(Error::authorization_server_msg(format!(
                "{what}: response too large"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body)
        .map_err(|e| Error::authorization_server(format!("{what}: not a JSON object"), e))
}
