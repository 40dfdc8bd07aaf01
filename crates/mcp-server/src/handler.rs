//! Handlers as plain functions: [`HandlerFn`], implemented for async functions and closures
//! that take the request's input (if the handler kind has one) followed by any number of
//! extractors ([`FromContext`](crate::FromContext)), and [`HandlerShape`], which tells from
//! the parameters alone which of them is the input.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use crate::context::Context;
use crate::error::{BoxError, HandlerError, Result};
use crate::extract::{FromContext, RequiredStates};

/// A boxed, sendable future, as handlers and services return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The marker of handlers that take no input, only extractors `X` (tools without arguments,
/// fixed resources, prompts without arguments). Inferred, never named.
pub struct NoInput<X>(PhantomData<fn() -> X>);

/// The marker of handlers that take an input, then extractors: `X` is `(In, X1, .., Xn)`.
/// Inferred, never named.
pub struct WithInput<X>(PhantomData<fn() -> X>);

impl<X> std::fmt::Debug for NoInput<X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NoInput")
    }
}

impl<X> std::fmt::Debug for WithInput<X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WithInput")
    }
}

/// The shape of a handler's parameter list: [`NoInput`] or [`WithInput`], with the
/// parameters' types. Implemented for every `Fn` of up to seven parameters.
///
/// [`Tool::new`](crate::Tool::new) and [`Tool::typed`](crate::Tool::typed) ask for it next to
/// [`HandlerFn`], so the compiler learns which parameter is the input from the signature
/// alone, before checking the parameters: a mistake is then reported at its cause (a
/// parameter that is not an extractor, a future that is not `Send`) rather than as "the
/// function is not a handler".
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler function of this shape",
    label = "not a handler of this shape",
    note = "a handler is an async function or a closure returning a future, taking its input \
            (if it has one) and then at most six extractors",
    note = "`Tool::typed` takes a handler whose first parameter is the tool's arguments; a \
            handler without arguments goes to `Tool::new`"
)]
pub trait HandlerShape<M> {}

/// A function usable as a handler, taking input `In` (or none) and extractors. `M` is a
/// marker that tells the shapes apart ([`NoInput`] or [`WithInput`] of the parameter types);
/// it is inferred, never named.
///
/// Implemented for every `Fn(X1, ..., Xn) -> impl Future` (a handler without input) and every
/// `Fn(In, X1, ..., Xn) -> impl Future`, with up to six extractors `Xi:`
/// [`FromContext`](crate::FromContext). That covers async functions, closures returning
/// `async move` blocks, and Rust 2024 async closures that capture nothing (an async closure
/// that captures is not `Fn`; take what it would capture as [`State`](crate::State)
/// instead). Closure parameters need type annotations, since the extractors are found by
/// type. The constructors that take a handler ([`Tool::typed`](crate::Tool::typed),
/// [`Prompt::new`](crate::Prompt::new), ...) also need its future to be `Send`, so that the
/// server can run it on any thread.
///
/// ```
/// use mcp_server::{Context, State, Tool};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Greet {
///     name: String,
/// }
///
/// async fn greet(args: Greet, State(greeting): State<String>) -> String {
///     format!("{greeting}, {}!", args.name)
/// }
///
/// let a = Tool::typed("greet", greet);
/// let b = Tool::typed("shout", |args: Greet| async move { args.name.to_uppercase() });
/// let c = Tool::typed("log", async |args: Greet, cx: Context| {
///     format!("{} asked by request {}", args.name, cx.request_id())
/// });
/// let d = Tool::new("ping", || async { "pong" });
/// # let _ = (a, b, c, d);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler taking `{In}`",
    label = "not a handler taking `{In}`",
    note = "a handler takes its input first (if it has one), then at most six extractors \
            (`Context`, `State<T>`, `Extension<T>`, `Server` or your own `FromContext` types), \
            and returns a future that is `Send`: a `std::sync::MutexGuard` held across an \
            `.await` makes it not `Send`",
    note = "for an error that points at the cause, mark the function \
            `#[mcp_server::debug_handler]` (feature `macros`)"
)]
pub trait HandlerFn<In, M>: Send + Sync + 'static {
    /// What the handler's future yields.
    type Output: Send + 'static;

    /// The handler's future.
    type Future: Future<Output = Self::Output> + 'static;

    /// Takes the extractors from `cx` (failing with the first extractor's error) and starts
    /// the handler.
    fn call(&self, input: In, cx: Context) -> Result<Self::Future>;

    /// Declares the application state the extractors take (see
    /// [`FromContext::required_states`]); the default declares none.
    fn required_states(states: &mut RequiredStates) {
        let _ = states;
    }
}

/// `HandlerFn<$input, NoInput<(X1, ..)>>` for handlers that take extractors only and leave
/// the input aside: `()` for tools without arguments and fixed resources (below), and the
/// arguments of a prompt that declares none (`prompt.rs`).
macro_rules! extractors_only {
    ($input:ty; $($x:ident),*) => {
        #[allow(non_snake_case, unused_variables)]
        impl<F, Fut, $($x,)*> HandlerFn<$input, $crate::handler::NoInput<($($x,)*)>> for F
        where
            F: Fn($($x),*) -> Fut + Send + Sync + 'static,
            Fut: Future + 'static,
            Fut::Output: Send + 'static,
            $($x: FromContext,)*
        {
            type Output = Fut::Output;
            type Future = Fut;

            fn call(&self, _: $input, cx: Context) -> Result<Fut> {
                $(let $x = $x::from_context(&cx)?;)*
                Ok(self($($x),*))
            }

            fn required_states(states: &mut $crate::extract::RequiredStates) {
                $($x::required_states(states);)*
            }
        }
    };
}
pub(crate) use extractors_only;

macro_rules! handler_fn {
    ($($x:ident),*) => {
        extractors_only!((); $($x),*);

        impl<F, Fut, $($x,)*> HandlerShape<NoInput<($($x,)*)>> for F
        where
            F: Fn($($x),*) -> Fut,
        {
        }

        impl<F, Fut, In, $($x,)*> HandlerShape<WithInput<(In, $($x,)*)>> for F
        where
            F: Fn(In, $($x),*) -> Fut,
        {
        }

        #[allow(non_snake_case, unused_variables)]
        impl<F, Fut, In, $($x,)*> HandlerFn<In, WithInput<(In, $($x,)*)>> for F
        where
            F: Fn(In, $($x),*) -> Fut + Send + Sync + 'static,
            Fut: Future + 'static,
            Fut::Output: Send + 'static,
            In: Send + 'static,
            $($x: FromContext,)*
        {
            type Output = Fut::Output;
            type Future = Fut;

            fn call(&self, input: In, cx: Context) -> Result<Fut> {
                $(let $x = $x::from_context(&cx)?;)*
                Ok(self(input, $($x),*))
            }

            fn required_states(states: &mut RequiredStates) {
                $($x::required_states(states);)*
            }
        }
    };
}

handler_fn!();
handler_fn!(X1);
handler_fn!(X1, X2);
handler_fn!(X1, X2, X3);
handler_fn!(X1, X2, X3, X4);
handler_fn!(X1, X2, X3, X4, X5);
handler_fn!(X1, X2, X3, X4, X5, X6);

/// The application state `F`'s extractors take.
pub(crate) fn required_states<In, M, F: HandlerFn<In, M>>() -> RequiredStates {
    let mut states = RequiredStates::default();
    F::required_states(&mut states);
    states
}

/// A handler with its types erased: it takes its input, some information of the caller's
/// (`Info`, e.g. the URI being read) for the output conversion, and the context.
pub(crate) type Erased<In, Info, Out> =
    std::sync::Arc<dyn Fn(In, Info, Context) -> BoxFuture<Result<Out, BoxError>> + Send + Sync>;

/// Erases `handler`'s type, converting its output with `convert`. An extractor's error, or
/// the error `convert` finds in the output, is the future's error.
pub(crate) fn erase<In, Info, Out, M, F>(
    handler: F,
    convert: fn(F::Output, Info) -> Result<Out, HandlerError>,
) -> Erased<In, Info, Out>
where
    In: Send + 'static,
    Info: Send + 'static,
    Out: Send + 'static,
    F: HandlerFn<In, M>,
    F::Future: Send,
{
    std::sync::Arc::new(move |input, info, cx| match handler.call(input, cx) {
        Ok(fut) => {
            Box::pin(async move { convert(fut.await, info).map_err(HandlerError::into_inner) })
        }
        Err(e) => Box::pin(std::future::ready(Err(Box::new(e) as BoxError))),
    })
}
