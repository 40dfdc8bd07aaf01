//! Prompts: [`Prompt`] and the [`IntoPromptResult`] conversions of handler return values.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;

use mcp_types::{GetPromptResult, Icon, Meta, PromptArgument, PromptMessage};
use serde_json::value::RawValue;

use crate::completion::{CompleteFn, CompletionRequest, IntoCompletion, completer, static_values};
use crate::context::Context;
use crate::error::Result;
use crate::error::{BoxError, HandlerError, IntoHandlerError};
use crate::extract::{FromContext, RequiredStates};
use crate::handler::{BoxFuture, Erased, HandlerFn, erase, extractors_only, required_states};
use crate::registry::Entry;

/// The arguments of a `prompts/get` request, by name.
pub type PromptArguments = BTreeMap<String, String>;

type PromptFn = Erased<PromptArguments, (), GetPromptResult>;

// A prompt handler may leave the arguments out (a prompt that declares none): it is then
// called with its extractors only, like a tool without arguments.
extractors_only!(PromptArguments;);
extractors_only!(PromptArguments; X1);
extractors_only!(PromptArguments; X1, X2);
extractors_only!(PromptArguments; X1, X2, X3);
extractors_only!(PromptArguments; X1, X2, X3, X4);
extractors_only!(PromptArguments; X1, X2, X3, X4, X5);
extractors_only!(PromptArguments; X1, X2, X3, X4, X5, X6);

fn convert<R: IntoPromptResult>(output: R, (): ()) -> Result<GetPromptResult, HandlerError> {
    output.into_prompt_result()
}

/// A prompt: its definition (as listed in `prompts/list`, with its declared arguments), the
/// handler that renders it, and completion handlers for its arguments.
///
/// A `prompts/get` that lacks a required argument is refused with -32602 before the handler
/// runs, so the handler may index required arguments directly.
///
/// ```
/// use mcp_server::{Prompt, PromptArguments};
/// use mcp_server::types::PromptMessage;
///
/// let review = Prompt::new("review", |args: PromptArguments| async move {
///     vec![PromptMessage::user_text(format!("Please review this {} code.", args["language"]))]
/// })
/// .description("Asks for a code review")
/// .argument("language", "The programming language", true)
/// .complete_values("language", ["rust", "python", "typescript"]);
/// # let _ = review;
/// ```
#[derive(Clone)]
pub struct Prompt {
    def: mcp_types::Prompt,
    handler: PromptFn,
    completers: HashMap<String, CompleteFn>,
    /// The application state the handler and the completers take, checked by the builder.
    states: RequiredStates,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("definition", &self.def)
            .finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt rendered by `handler`, which takes the [`PromptArguments`] (or, for a prompt
    /// without arguments, nothing) followed by any [extractors](crate::FromContext) and
    /// returns anything implementing [`IntoPromptResult`] (messages, a `GetPromptResult`,
    /// text, or a `Result` of those).
    ///
    /// ```
    /// use mcp_server::Prompt;
    ///
    /// let greet = Prompt::new("greet", || async { "Say hello to the user." });
    /// # let _ = greet;
    /// ```
    pub fn new<M, F>(name: impl Into<String>, handler: F) -> Prompt
    where
        F: HandlerFn<PromptArguments, M>,
        F::Future: Send,
        F::Output: IntoPromptResult,
    {
        Prompt {
            def: mcp_types::Prompt::new(name),
            handler: erase(handler, convert::<F::Output>),
            completers: HashMap::new(),
            states: required_states::<PromptArguments, M, F>(),
        }
    }

    /// Declares an argument.
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let mut arg = PromptArgument::new(name, required);
        arg.description = Some(description.into());
        self.def.arguments.get_or_insert_with(Vec::new).push(arg);
        self
    }

    /// Declares an argument given in full (with a title, say).
    #[must_use]
    pub fn argument_def(mut self, argument: PromptArgument) -> Self {
        self.def
            .arguments
            .get_or_insert_with(Vec::new)
            .push(argument);
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.def.description = Some(description.into());
        self
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.def.title = Some(title.into());
        self
    }

    /// Sets the icons.
    #[must_use]
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.def.icons = Some(icons);
        self
    }

    /// Sets the `_meta` of the definition.
    #[must_use]
    pub fn meta(mut self, meta: Meta) -> Self {
        self.def.meta = Some(meta);
        self
    }

    /// Completes argument `arg` with `handler` (see [`IntoCompletion`]).
    #[must_use]
    pub fn complete<M, F>(mut self, arg: impl Into<String>, handler: F) -> Self
    where
        F: HandlerFn<CompletionRequest, M>,
        F::Future: Send,
        F::Output: IntoCompletion,
    {
        self.states
            .extend(&required_states::<CompletionRequest, M, F>());
        self.completers.insert(arg.into(), completer(handler));
        self
    }

    /// Completes argument `arg` from a fixed list: the values starting with what the user
    /// typed.
    #[must_use]
    pub fn complete_values<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        arg: impl Into<String>,
        values: I,
    ) -> Self {
        let values = values.into_iter().map(Into::into).collect();
        self.completers.insert(arg.into(), static_values(values));
        self
    }

    /// The definition, as listed in `prompts/list`.
    pub fn definition(&self) -> &mcp_types::Prompt {
        &self.def
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The first required argument missing from `args`.
    pub(crate) fn missing_argument(&self, args: &PromptArguments) -> Option<&str> {
        self.def
            .arguments
            .iter()
            .flatten()
            .find(|a| a.required == Some(true) && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
    }

    pub(crate) fn get(
        &self,
        args: PromptArguments,
        cx: Context,
    ) -> BoxFuture<Result<GetPromptResult, BoxError>> {
        (self.handler)(args, (), cx)
    }

    /// The application state the handler and the completers take.
    pub(crate) fn required_states(&self) -> &RequiredStates {
        &self.states
    }

    pub(crate) fn completer(&self, arg: &str) -> Option<&CompleteFn> {
        self.completers.get(arg)
    }
}

impl Entry for Prompt {
    fn key(&self) -> &str {
        &self.def.name
    }

    fn definition(&self) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.def)
    }
}

/// What a prompt handler may return.
///
/// | Return type | Result |
/// |---|---|
/// | `GetPromptResult` | as is |
/// | `Vec<PromptMessage>`, `PromptMessage` | those messages (any content kind) |
/// | `String`, `&'static str` | one user message with that text |
/// | `Result<T, E:` [`IntoHandlerError`]`>` | `T` as above; `Err` is a JSON-RPC error: an [`Error`](crate::Error) in it by its meaning, anything else -32603 |
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt's result: it does not implement `IntoPromptResult`",
    label = "not a prompt result",
    note = "a prompt returns text (`String`, `&'static str`), a `PromptMessage` or \
            `Vec<PromptMessage>`, a `GetPromptResult`, or a `Result` of one of those"
)]
pub trait IntoPromptResult: Send + 'static {
    /// Converts the value.
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user_text(self)]))
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        self.to_owned().into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: IntoHandlerError> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        self.map_err(IntoHandlerError::into_handler_error)?
            .into_prompt_result()
    }
}
