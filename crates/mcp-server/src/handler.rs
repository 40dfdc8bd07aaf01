//! Handlers as plain functions: [`HandlerFn`], implemented for async functions and closures
//! that take the request's input (if the handler kind has one) followed by any number of
//! extractors ([`FromContext`]): [`Context`], [`State`], [`Extension`], the
//! [`Server`](crate::Server), or your own.

use std::future::Future;
use std::pin::Pin;

use crate::context::Context;
use crate::error::{BoxError, Error, HandlerError, Result};

/// A boxed, sendable future, as handlers and services return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A value a handler takes from its request's [`Context`], in the spirit of axum's
/// extractors: list it as a parameter after the handler's input.
///
/// Implemented for [`Context`] itself, [`State<T>`] (application state given to
/// [`ServerBuilder::state`](crate::ServerBuilder::state)), [`Extension<T>`] (what the
/// transport attached to the request), [`Server`](crate::Server), and `Option<T>` of any of
/// them (`None` instead of an error). Implement it for your own types, e.g. an authenticated
/// user read from the request's extensions:
///
/// ```
/// use mcp_server::{Context, Error, FromContext, Server, Tool};
///
/// #[derive(Clone)]
/// struct Principal(String);
///
/// struct CurrentUser(String);
///
/// impl FromContext for CurrentUser {
///     fn from_context(cx: &Context) -> Result<Self, Error> {
///         match cx.extensions().get::<Principal>() {
///             Some(p) => Ok(CurrentUser(p.0.clone())),
///             None => Err(Error::rpc(-32001, "not signed in")),
///         }
///     }
/// }
///
/// let whoami = Tool::new("whoami", |CurrentUser(name): CurrentUser| async move { name });
/// # let _ = whoami;
/// ```
///
/// An extractor that fails answers the request with its error (a JSON-RPC error, also for a
/// tool), and the handler does not run.
pub trait FromContext: Sized + Send + 'static {
    /// Takes the value from the request's context.
    fn from_context(cx: &Context) -> Result<Self>;
}

impl FromContext for Context {
    fn from_context(cx: &Context) -> Result<Self> {
        Ok(cx.clone())
    }
}

impl<T: FromContext> FromContext for Option<T> {
    fn from_context(cx: &Context) -> Result<Self> {
        Ok(T::from_context(cx).ok())
    }
}

/// Application state given to [`ServerBuilder::state`](crate::ServerBuilder::state), cloned
/// for the handler. Use an `Arc` (or a type that is one inside, like a connection pool) for
/// state that must not be copied.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use mcp_server::{Server, State, Tool};
///
/// #[derive(Clone, Default)]
/// struct Counter(Arc<AtomicU64>);
///
/// let server = Server::builder()
///     .state(Counter::default())
///     .tool(Tool::new("count", |State(counter): State<Counter>| async move {
///         counter.0.fetch_add(1, Ordering::Relaxed) + 1
///     }))
///     .build();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct State<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromContext for State<T> {
    fn from_context(cx: &Context) -> Result<Self> {
        cx.state::<T>()
            .cloned()
            .map(State)
            .ok_or(Error::MissingState(std::any::type_name::<T>()))
    }
}

/// A value the transport (or a layer in front of it) attached to the request, cloned from
/// [`Context::extensions`]: over HTTP, for example, the request's `http::HeaderMap` or an
/// auth layer's principal.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extension<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromContext for Extension<T> {
    fn from_context(cx: &Context) -> Result<Self> {
        cx.extensions()
            .get::<T>()
            .cloned()
            .map(Extension)
            .ok_or(Error::MissingExtension(std::any::type_name::<T>()))
    }
}

/// The marker of handlers that take no input (tools without arguments, fixed resources).
#[derive(Debug)]
pub enum NoInput {}

/// A function usable as a handler, taking input `In` (or none, when `In` is `()`) and
/// extractors. `M` is a marker that tells the shapes apart; it is inferred, never named.
///
/// Implemented for every `Fn(X1, ..., Xn) -> impl Future` (a handler without input, `In` =
/// `()`) and every `Fn(In, X1, ..., Xn) -> impl Future`, with up to six extractors `Xi:`
/// [`FromContext`], whose future is `Send + 'static`. That covers async functions, closures
/// returning `async move` blocks, and Rust 2024 async closures that capture nothing (an async
/// closure that captures is not `Fn`; take what it would capture as [`State`] instead).
/// Closure parameters need type annotations, since the extractors are found by type.
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
pub trait HandlerFn<In, M>: Send + Sync + 'static {
    /// What the handler's future yields.
    type Output: Send + 'static;

    /// Takes the extractors from `cx` (failing with the first extractor's error) and starts
    /// the handler.
    fn call(&self, input: In, cx: Context) -> Result<BoxFuture<Self::Output>>;
}

/// `HandlerFn<$input, (NoInput, X1, ..)>` for handlers that take extractors only and leave
/// the input aside: `()` for tools without arguments and fixed resources (below), and the
/// arguments of a prompt that declares none (`prompt.rs`).
macro_rules! extractors_only {
    ($input:ty; $($x:ident),*) => {
        #[allow(non_snake_case, unused_variables)]
        impl<F, Fut, $($x,)*> HandlerFn<$input, (NoInput, $($x,)*)> for F
        where
            F: Fn($($x),*) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            Fut::Output: Send + 'static,
            $($x: FromContext,)*
        {
            type Output = Fut::Output;

            fn call(&self, _: $input, cx: Context) -> Result<BoxFuture<Fut::Output>> {
                $(let $x = $x::from_context(&cx)?;)*
                Ok(Box::pin(self($($x),*)))
            }
        }
    };
}
pub(crate) use extractors_only;

macro_rules! handler_fn {
    ($($x:ident),*) => {
        extractors_only!((); $($x),*);

        #[allow(non_snake_case, unused_variables)]
        impl<F, Fut, In, $($x,)*> HandlerFn<In, (In, $($x,)*)> for F
        where
            F: Fn(In, $($x),*) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            Fut::Output: Send + 'static,
            In: Send + 'static,
            $($x: FromContext,)*
        {
            type Output = Fut::Output;

            fn call(&self, input: In, cx: Context) -> Result<BoxFuture<Fut::Output>> {
                $(let $x = $x::from_context(&cx)?;)*
                Ok(Box::pin(self(input, $($x),*)))
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
{
    std::sync::Arc::new(move |input, info, cx| match handler.call(input, cx) {
        Ok(fut) => {
            Box::pin(async move { convert(fut.await, info).map_err(HandlerError::into_inner) })
        }
        Err(e) => Box::pin(std::future::ready(Err(Box::new(e) as BoxError))),
    })
}
