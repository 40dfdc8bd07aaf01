//! Starting a new Streamable HTTP session after the server ended the old one (HTTP 404):
//! the cached `initialize` is sent again.

use std::sync::Arc;

use futures::StreamExt;
use mcp_jsonrpc::{Id, Message, Response};
use mcp_types::Initialized;

use super::error::{Error, Result};
use super::shared::{
    Body, GetStream, Inbound, SESSION_ID, Session, Shared, body_kind, protocol_version, sse_error,
};
use super::sse::SseTask;

impl Shared {
    /// Starts a new session after the one of `expired` ended: re-sends the cached
    /// `initialize` request and `notifications/initialized`, then tells `recv` to fail the
    /// requests of the old session. Does nothing if that already happened.
    pub(crate) async fn reinitialize(self: &Arc<Self>, expired: u64) -> Result<()> {
        let _guard = self.reinit.lock().await;
        let init = {
            let st = self.state();
            if st.generation != expired || st.closed {
                return Ok(());
            }
            st.init.clone()
        };
        let Some(init) = init else {
            return Err(Error::SessionExpired);
        };
        tracing::info!("starting a new session");
        let fresh = Session {
            id: None,
            version: None,
            generation: expired,
        };
        let resp = self.post(&self.url, &init.body, &fresh).await?;
        if !resp.status().is_success() {
            let (error, _) = self.status_error(resp).await;
            return Err(Error::Reinitialize(format!("initialize failed: {error}")));
        }
        let session_id = resp.headers().get(SESSION_ID).cloned();
        let response = tokio::time::timeout(self.timeout, read_init_response(self, resp, &init.id))
            .await
            .map_err(|_| {
                Error::Reinitialize("timed out waiting for the initialize response".into())
            })??;
        let version = match response.result {
            Ok(result) => protocol_version(&result),
            Err(e) => return Err(Error::Reinitialize(format!("initialize failed: {e}"))),
        };
        let session = Session {
            id: session_id,
            version,
            generation: expired + 1,
        };
        let initialized = Message::Notification(mcp_jsonrpc::Notification::new(
            <Initialized as mcp_types::Notification>::METHOD,
            None,
        ))
        .to_json()
        .map_err(Error::Encode)?;
        let resp = self.post(&self.url, &initialized, &session).await?;
        if !resp.status().is_success() {
            let (error, _) = self.status_error(resp).await;
            return Err(Error::Reinitialize(format!(
                "notifications/initialized failed: {error}"
            )));
        }
        let reopen = {
            let mut st = self.state();
            self.set_session(&mut st, session.id);
            st.version = session.version;
            st.generation = session.generation;
            st.get == GetStream::Open
        };
        if reopen {
            self.push(Inbound::Spawn(SseTask::get(self.clone(), expired + 1)))
                .await;
        }
        self.push(Inbound::Expired {
            generation: expired,
        })
        .await;
        Ok(())
    }
}

/// Reads the response to `id` from an `initialize` POST response (JSON or SSE), within the
/// size limit.
async fn read_init_response(shared: &Shared, resp: reqwest::Response, id: &Id) -> Result<Response> {
    let matching = |msg: Message| -> Option<Response> {
        match msg {
            Message::Response(r) if r.id.as_ref() == Some(id) => Some(r),
            Message::Batch(items) => items.into_iter().find_map(|m| match m {
                Message::Response(r) if r.id.as_ref() == Some(id) => Some(r),
                _ => None,
            }),
            _ => None,
        }
    };
    match body_kind(resp.headers()) {
        Body::Json => {
            let bytes = shared.read_body(resp).await?;
            matching(Message::decode(&bytes))
                .ok_or_else(|| Error::Reinitialize("no initialize response in the body".into()))
        }
        Body::Sse => {
            let mut events = shared.events(resp);
            while let Some(event) = events.next().await {
                let event = event.map_err(sse_error)?;
                if event.data.trim().is_empty() {
                    continue;
                }
                match matching(Message::decode(event.data.as_bytes())) {
                    Some(r) => return Ok(r),
                    None => tracing::debug!("skipping a message sent during re-initialization"),
                }
            }
            Err(Error::Reinitialize(
                "the sse stream ended before the initialize response".into(),
            ))
        }
        Body::Other(ct) => Err(Error::ContentType(ct)),
    }
}
