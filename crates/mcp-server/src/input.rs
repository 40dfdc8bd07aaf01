//! The channel through which [`Context`](crate::Context) asks the client for input:
//! JSON-RPC requests over the connection (stateful revisions), or the `inputResponses` of a
//! retried request (2026-07-28).

use std::sync::Mutex;
use std::time::Duration;

use mcp_jsonrpc::{Peer, RequestOptions};
use mcp_types::{InputRequest, InputRequests, InputResponse, InputResponses, Request};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::request_state::Sealed;

/// The channel through which [`Context`] asks the client for input; one per request.
#[derive(Debug)]
pub(crate) enum Input {
    /// Stateful revisions (up to 2025-11-25): a JSON-RPC request over the connection (the
    /// context's peer, passed to [`Input::request`]: not a second copy of it per request).
    Peer { timeout: Option<Duration> },
    /// 2026-07-28: answers come in the retried request's `inputResponses`.
    Stateless(Mutex<StatelessInput>),
    /// A request that cannot ask for input at all (2026-07-28 requests other than
    /// `tools/call`, `prompts/get` and `resources/read`).
    None,
}

/// The state of one stateless request's input channel.
#[derive(Debug, Default)]
pub(crate) struct StatelessInput {
    /// The answers so far: from `requestState` (earlier rounds) and `inputResponses`.
    pub(crate) responses: InputResponses,
    /// How many input calls the handler made so far (the suffix of generated keys).
    next: usize,
    /// The requests the handler made that have no answer yet.
    pub(crate) requested: InputRequests,
    /// The handler's value from the previous round.
    pub(crate) previous: Option<Value>,
    /// The handler's value for the next round.
    pub(crate) next_state: Option<Value>,
}

/// A request for input: the key it is answered under (generated from the call order when the
/// handler gave none), and how to wrap and unwrap it.
pub(crate) struct Ask<'a, M: Request> {
    pub(crate) kind: &'a str,
    pub(crate) key: Option<&'a str>,
    pub(crate) params: M::Params,
    pub(crate) wrap: fn(M::Params) -> InputRequest,
    pub(crate) unwrap: fn(InputResponse) -> Option<M::Result>,
}

impl Input {
    /// Asks through `peer` (the request's connection) or the stateless channel.
    pub(crate) async fn request<M: Request>(
        &self,
        peer: &Peer,
        ask: Ask<'_, M>,
        version: &mcp_types::ProtocolVersion,
    ) -> Result<M::Result> {
        match self {
            Input::Peer { timeout } => {
                let raw = serde_json::value::to_raw_value(&ask.params)?;
                let options = match timeout {
                    Some(t) => RequestOptions::new().timeout(*t),
                    None => RequestOptions::new().without_timeout(),
                };
                let result =
                    crate::telemetry::request(peer, M::METHOD, raw, options, version).await?;
                Ok(serde_json::from_str(result.get())?)
            }
            Input::Stateless(state) => {
                let mut st = state.lock().expect("input lock");
                let key = match ask.key {
                    Some(key) => key.to_owned(),
                    None => format!("{}-{}", ask.kind, st.next),
                };
                st.next += 1;
                match st.responses.get(&key) {
                    Some(response) => (ask.unwrap)(response.clone()).ok_or_else(|| {
                        Error::invalid_params(format!(
                            "input response {key} does not answer a {}",
                            M::METHOD
                        ))
                    }),
                    None => {
                        st.requested.insert(key, (ask.wrap)(ask.params));
                        Err(Error::InputRequired)
                    }
                }
            }
            Input::None => Err(Error::NotInProtocolVersion {
                feature: "input from the client outside tools/call, prompts/get and resources/read",
                version: mcp_types::ProtocolVersion::V2026_07_28,
            }),
        }
    }

    /// The value the handler carried over from the previous round, if any.
    pub(crate) fn previous_state(&self) -> Option<Value> {
        match self {
            Input::Stateless(state) => state.lock().expect("input lock").previous.clone(),
            _ => None,
        }
    }

    /// Carries `value` into the next round (ignored where there are no rounds).
    pub(crate) fn set_state(&self, value: Value) {
        if let Input::Stateless(state) = self {
            state.lock().expect("input lock").next_state = Some(value);
        }
    }
}

impl StatelessInput {
    /// The input channel of a stateless request: the answers of earlier rounds and the
    /// handler's value (from a verified `requestState`) merged with this round's
    /// `inputResponses`. Answers the handler does not ask for are ignored.
    pub(crate) fn new(sealed: Sealed, input_responses: Option<InputResponses>) -> Self {
        let mut responses = sealed.responses;
        responses.extend(input_responses.unwrap_or_default());
        StatelessInput {
            responses,
            previous: sealed.app,
            ..Default::default()
        }
    }

    /// What the next round's `requestState` seals: every answer the handler used or may use
    /// again, and its value for the next round.
    pub(crate) fn to_seal(&self) -> Sealed {
        Sealed {
            responses: self.responses.clone(),
            app: self.next_state.clone().or_else(|| self.previous.clone()),
        }
    }
}
