//! Answers to the input requests of a 2026-07-28 `input_required` result, from the handlers
//! the application installed: the same [`SamplingHandler`](crate::SamplingHandler) and
//! [`ElicitationHandler`](crate::ElicitationHandler) (and roots) that answer the server's
//! requests in the handshake era.

use mcp_jsonrpc::{CancellationToken, ErrorObject};
use mcp_types::{InputRequest, InputRequests, InputResponse, InputResponses};

use crate::error::{Error, Result};
use crate::handler::RequestContext;
use crate::shared::{Shared, not_declared};

/// Answers every input request, one after the other in key order (so that a user is never
/// asked two things at once).
///
/// # Errors
///
/// [`Error::InputRequest`] for the first request that could not be answered: its handler
/// failed, or the client has none for it (it did not declare the capability, or the method is
/// unknown).
pub(crate) async fn answer(shared: &Shared, requests: InputRequests) -> Result<InputResponses> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let method = request.method().to_owned();
        let cancellation = CancellationToken::new();
        // Dropped with this future (the call timed out or was dropped): the handler's work
        // handed off elsewhere learns it through the token.
        let _cancel_on_drop = cancellation.clone().drop_guard();
        let ctx = RequestContext::for_input(&key, cancellation);
        let answered: std::result::Result<InputResponse, ErrorObject> = match request {
            InputRequest::CreateMessage(params) => {
                shared.create_message(params, ctx).await.map(Into::into)
            }
            InputRequest::Elicit(params) => shared.elicit(params, ctx).await.map(Into::into),
            InputRequest::ListRoots(_) => shared.list_roots().map(Into::into),
            InputRequest::Other { method, .. } => Err(not_declared(&method)),
            other => Err(not_declared(other.method())),
        };
        match answered {
            Ok(response) => {
                responses.insert(key, response);
            }
            Err(error) => {
                return Err(Error::InputRequest { key, method, error });
            }
        }
    }
    Ok(responses)
}
