//! Argument completion (`completion/complete`) for prompt arguments and template variables.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_types::Completion;

use crate::context::Context;
use crate::error::{Result, handler_error};
use crate::tool::BoxFuture;

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
pub trait IntoCompletion: Send + 'static {
    /// Converts the value.
    fn into_completion(self) -> Result<Completion>;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion> {
        Ok(self)
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion> {
        Ok(Completion {
            values: self,
            ..Default::default()
        })
    }
}

impl<T: IntoCompletion, E: fmt::Display + Send + Any> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion> {
        self.map_err(handler_error)?.into_completion()
    }
}

pub(crate) type CompleteFn =
    dyn Fn(CompletionRequest, Context) -> BoxFuture<Result<Completion>> + Send + Sync;

pub(crate) fn completer<F, Fut, R>(f: F) -> Arc<CompleteFn>
where
    F: Fn(CompletionRequest, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoCompletion,
{
    Arc::new(move |req, cx| {
        let fut = f(req, cx);
        Box::pin(async move { fut.await.into_completion() })
    })
}

/// A completer offering the values of a fixed list that start with what the user typed.
pub(crate) fn static_values(values: Vec<String>) -> Arc<CompleteFn> {
    let values: Arc<[String]> = values.into();
    Arc::new(move |req, _cx| {
        let matching: Vec<String> = values
            .iter()
            .filter(|v| v.starts_with(&req.value))
            .cloned()
            .collect();
        Box::pin(async move {
            Ok(Completion {
                values: matching,
                ..Default::default()
            })
        })
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
