//! The fallback to the legacy HTTP+SSE transport (2024-11-05): a GET opens the event stream,
//! whose `endpoint` event names where messages are POSTed.

use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, Url};

use super::error::{Error, Result};
use super::shared::{Body, Inbound, Mode, Outgoing, Shared, Task, body_kind, sse_error};

impl Shared {
    /// The POST of `initialize` was refused: try the legacy HTTP+SSE transport.
    pub(crate) async fn fall_back(
        self: &Arc<Self>,
        out: Outgoing,
        post_error: Error,
    ) -> Result<()> {
        tracing::info!(error = %post_error, "initialize refused; trying the legacy http+sse transport");
        match self.connect_legacy().await {
            Ok(endpoint) => self.send_legacy(&endpoint, out).await,
            Err(e) => {
                tracing::warn!(error = %e, "legacy http+sse fallback failed");
                let mut object = post_error.to_error_object();
                object.message =
                    format!("{}; legacy http+sse fallback failed: {e}", object.message);
                self.fail(&out.ids, object).await;
                Ok(())
            }
        }
    }

    /// Opens the legacy SSE stream, waits for its `endpoint` event, hands the stream to
    /// `recv` and returns the endpoint.
    async fn connect_legacy(self: &Arc<Self>) -> Result<Url> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let resp = self.request(Method::GET, &self.url, &headers, None).await?;
        if !resp.status().is_success() {
            return Err(self.status_error(resp).await.0);
        }
        match body_kind(resp.headers()) {
            Body::Sse => {}
            Body::Json => return Err(Error::ContentType("application/json".into())),
            Body::Other(ct) => return Err(Error::ContentType(ct)),
        }
        let mut events = self.events(resp);
        let wait = async {
            while let Some(event) = events.next().await {
                let event = event.map_err(sse_error)?;
                if event.event == "endpoint" {
                    return Ok(event.data);
                }
            }
            Err(Error::LegacyEndpointMissing)
        };
        let endpoint = tokio::time::timeout(self.timeout, wait)
            .await
            .map_err(|_| Error::LegacyEndpointMissing)??;
        let url =
            self.url
                .join(endpoint.trim())
                .map_err(|source| Error::LegacyEndpointInvalid {
                    endpoint: endpoint.clone(),
                    source,
                })?;
        tracing::info!(endpoint = %url, "using the legacy http+sse transport");
        let generation = {
            let mut st = self.state();
            st.mode = Mode::Legacy(url.clone());
            st.generation
        };
        self.push(Inbound::Spawn(Task {
            generation,
            request: None,
            stream: super::sse::legacy(events),
        }))
        .await;
        Ok(url)
    }

    pub(crate) async fn send_legacy(&self, endpoint: &Url, out: Outgoing) -> Result<()> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let sent = self
            .request(Method::POST, endpoint, &headers, Some(&out.body))
            .await;
        match sent {
            Err(e) => self.fail_or_err(&out.ids, e).await,
            Ok(resp) if resp.status().is_success() => Ok(()),
            Ok(resp) => {
                let (error, _) = self.status_error(resp).await;
                self.fail_or_err(&out.ids, error).await
            }
        }
    }
}
