//! The channel through which [`Context`](crate::Context) asks the client for input:
//! JSON-RPC requests over the connection (stateful revisions), or the `inputResponses` of a
//! retried request (2026-07-28).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;
use mcp_jsonrpc::{Peer, RequestOptions};
use mcp_types::{
    ErrorCode, ErrorObject, InputRequest, InputRequests, InputResponse, InputResponses, Request,
};

use crate::error::{Error, Result};

/// The channel through which [`Context`] asks the client for input; one per request.
#[derive(Debug)]
pub(crate) enum Input {
    /// Stateful revisions (up to 2025-11-25): a JSON-RPC request over the connection.
    Peer {
        peer: Peer,
        timeout: Option<Duration>,
    },
    /// 2026-07-28: answers come in the retried request's `inputResponses`.
    #[allow(dead_code)]
    Stateless(Mutex<StatelessInput>),
}

/// The state of one stateless request's input channel.
#[derive(Debug, Default)]
pub(crate) struct StatelessInput {
    /// The answers so far: from `requestState` (earlier rounds) and `inputResponses`.
    pub(crate) responses: InputResponses,
    /// How many input calls the handler made so far (the key suffix).
    pub(crate) next: usize,
    /// The requests the handler made that have no answer yet.
    pub(crate) requested: InputRequests,
}

impl Input {
    pub(crate) async fn request<M: Request>(
        &self,
        kind: &str,
        params: M::Params,
        wrap: fn(M::Params) -> InputRequest,
        unwrap: fn(InputResponse) -> Option<M::Result>,
    ) -> Result<M::Result> {
        match self {
            Input::Peer { peer, timeout } => {
                let raw = serde_json::value::to_raw_value(&params)?;
                let options = match timeout {
                    Some(t) => RequestOptions::new().timeout(*t),
                    None => RequestOptions::new().without_timeout(),
                };
                let result = peer.request_with(M::METHOD, Some(raw), options).await?;
                Ok(serde_json::from_str(result.get())?)
            }
            Input::Stateless(state) => {
                let mut st = state.lock().expect("input lock");
                let key = format!("{kind}-{}", st.next);
                st.next += 1;
                match st.responses.get(&key) {
                    Some(response) => unwrap(response.clone()).ok_or_else(|| {
                        Error::Rpc(ErrorObject::new(
                            ErrorCode::INVALID_PARAMS,
                            format!("input response {key} does not answer a {}", M::METHOD),
                        ))
                    }),
                    None => {
                        st.requested.insert(key, wrap(params));
                        Err(Error::InputRequired)
                    }
                }
            }
        }
    }
}

impl StatelessInput {
    /// The input channel of a stateless request: the answers of earlier rounds (carried in
    /// `requestState`) merged with this round's `inputResponses`.
    #[allow(dead_code)]
    pub(crate) fn from_request(
        request_state: Option<&str>,
        input_responses: Option<InputResponses>,
    ) -> Result<Self> {
        let mut responses = match request_state {
            Some(state) => decode_state(state)?,
            None => InputResponses::new(),
        };
        responses.extend(input_responses.unwrap_or_default());
        Ok(StatelessInput {
            responses,
            ..Default::default()
        })
    }

    /// The `requestState` to send with an `InputRequiredResult`: every answer so far, so the
    /// re-run handler finds them again next round.
    pub(crate) fn request_state(&self) -> Result<Option<String>> {
        if self.responses.is_empty() {
            return Ok(None);
        }
        let json = serde_json::to_vec(&self.responses)?;
        Ok(Some(
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json),
        ))
    }
}

/// Decodes a `requestState` made by [`StatelessInput::request_state`].
fn decode_state(state: &str) -> Result<InputResponses> {
    let invalid = || {
        Error::Rpc(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            "Invalid requestState",
        ))
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(state)
        .map_err(|_| invalid())?;
    serde_json::from_slice::<BTreeMap<String, InputResponse>>(&bytes).map_err(|_| invalid())
}
