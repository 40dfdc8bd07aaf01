//! Argument completion (`completion/complete`) for prompt arguments and template variables.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_types::Completion;

use crate::error::{HandlerError, IntoHandlerError};
use crate::handler::{Erased, HandlerFn, erase};

/// The most values one completion result may carry (the protocol's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What the client wants completed: passed to completion handlers registered with
/// [`Prompt::complete`](crate::Prompt::complete) and
/// [`ResourceTemplate::complete`](crate::ResourceTemplate::complete).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument or template variable being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Values of other arguments or variables the client already knows.
    pub context: BTreeMap<String, String>,
}

/// What a completion handler may return: a list of values (`Vec<String>`), a full
/// [`Completion`], or a `Result` of those (an `Err` becomes a -32603 error, or is sent as is
/// if it holds an [`Error::Rpc`](crate::Error::Rpc)).
///
/// Whatever is returned, at most 100 values are sent; `total` then says how many there were
/// and `hasMore` is set.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a completion: it does not implement `IntoCompletion`",
    label = "not a completion",
    note = "a completion handler returns `Vec<String>`, a `Completion`, or a `Result` of one \
            of those"
)]
pub trait IntoCompletion: Send + 'static {
    /// Converts the value.
    fn into_completion(self) -> Result<Completion, HandlerError>;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, HandlerError> {
        Ok(self)
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, HandlerError> {
        Ok(Completion::new(self))
    }
}

impl<T: IntoCompletion, E: IntoHandlerError> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, HandlerError> {
        self.map_err(IntoHandlerError::into_handler_error)?
            .into_completion()
    }
}

/// A completion handler.
pub(crate) type CompleteFn = Erased<CompletionRequest, (), Completion>;

fn convert<R: IntoCompletion>(output: R, (): ()) -> Result<Completion, HandlerError> {
    output.into_completion()
}

pub(crate) fn completer<M, F>(handler: F) -> CompleteFn
where
    F: HandlerFn<CompletionRequest, M>,
    F::Future: Send,
    F::Output: IntoCompletion,
{
    erase(handler, convert::<F::Output>)
}

pub(crate) fn static_values(values: Vec<String>) -> CompleteFn {
    let values: Arc<[String]> = values.into();
    Arc::new(move |req, (), _cx| {
        let matching: Vec<String> = values
            .iter()
            .filter(|v| v.starts_with(&req.value))
            .cloned()
            .collect();
        Box::pin(async move { Ok(Completion::new(matching)) })
    })
}

/// Caps the values at [`MAX_COMPLETION_VALUES`] and fills in `total` and `hasMore`.
pub(crate) fn finish(mut c: Completion) -> Completion {
    let len = c.values.len() as u64;
    if c.values.len() > MAX_COMPLETION_VALUES {
        c.values.truncate(MAX_COMPLETION_VALUES);
        c.total = Some(c.total.unwrap_or(len).max(len));
        c.has_more = Some(true);
    } else {
        c.total = Some(c.total.unwrap_or(len));
        c.has_more = Some(c.has_more.unwrap_or(false));
    }
    c
}
