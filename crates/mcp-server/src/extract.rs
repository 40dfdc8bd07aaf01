//! Extractors: what a handler takes from its request's [`Context`] ([`FromContext`]), the
//! built-in ones ([`State`], [`Extension`]), and the application state they declare
//! ([`RequiredStates`]), which the builder checks before the server serves.

use std::any::TypeId;
use std::fmt;
use std::fmt::Write as _;

use crate::context::Context;
use crate::error::{Error, Result};

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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an extractor: it does not implement `FromContext`",
    label = "not an extractor",
    note = "a handler takes its input first (a tool's arguments, a prompt's `PromptArguments`, a \
            template's `UriParams`), then extractors only: `Context`, `State<T>`, \
            `Extension<T>`, `Server`, or your own `FromContext` types",
    note = "if `{Self}` is the input, move it to the first parameter; if it is a tool's \
            arguments, make the tool with `Tool::typed` (`Tool::new` is for tools without \
            arguments)"
)]
pub trait FromContext: Sized + Send + 'static {
    /// Takes the value from the request's context.
    fn from_context(cx: &Context) -> Result<Self>;

    /// Declares the application state this extractor takes, so that a server built without it
    /// is refused by [`ServerBuilder::build`](crate::ServerBuilder::build) instead of failing
    /// on every call. [`State<T>`] declares `T`; the default declares nothing. An extractor of
    /// your own that reads [`Context::state`] declares what it reads:
    ///
    /// ```
    /// use mcp_server::{Context, Error, FromContext, RequiredStates};
    ///
    /// #[derive(Clone)]
    /// struct Pool;
    ///
    /// struct Db(Pool);
    ///
    /// impl FromContext for Db {
    ///     fn from_context(cx: &Context) -> Result<Self, Error> {
    ///         let pool = cx.state::<Pool>().ok_or(Error::MissingState("Pool"))?;
    ///         Ok(Db(pool.clone()))
    ///     }
    ///
    ///     fn required_states(states: &mut RequiredStates) {
    ///         states.add::<Pool>();
    ///     }
    /// }
    /// ```
    fn required_states(states: &mut RequiredStates) {
        let _ = states;
    }
}

impl FromContext for Context {
    fn from_context(cx: &Context) -> Result<Self> {
        Ok(cx.clone())
    }
}

/// An optional extractor: `None` instead of its error, so it declares no state either.
impl<T: FromContext> FromContext for Option<T> {
    fn from_context(cx: &Context) -> Result<Self> {
        Ok(T::from_context(cx).ok())
    }
}

/// Application state given to [`ServerBuilder::state`](crate::ServerBuilder::state), cloned
/// for the handler. Use an `Arc` (or a type that is one inside, like a connection pool) for
/// state that must not be copied.
///
/// A server whose handlers take a `State<T>` that the builder was not given is refused when
/// it is built (see [`ServerBuilder::build`](crate::ServerBuilder::build)); take an
/// `Option<State<T>>` for state that may be absent.
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

    fn required_states(states: &mut RequiredStates) {
        states.add::<T>();
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

/// The application state types a handler's extractors take (see
/// [`FromContext::required_states`]).
#[derive(Default, Clone)]
pub struct RequiredStates {
    types: Vec<(TypeId, &'static str)>,
}

impl RequiredStates {
    /// Declares that state of type `T` is taken.
    pub fn add<T: 'static>(&mut self) {
        let id = TypeId::of::<T>();
        if !self.types.iter().any(|(t, _)| *t == id) {
            self.types.push((id, std::any::type_name::<T>()));
        }
    }

    /// Adds every type `other` declares.
    pub(crate) fn extend(&mut self, other: &RequiredStates) {
        for &(id, name) in &other.types {
            if !self.types.iter().any(|(t, _)| *t == id) {
                self.types.push((id, name));
            }
        }
    }

    /// The declared types that are not in `given`, by name.
    pub(crate) fn missing<'a>(
        &'a self,
        given: &'a [TypeId],
    ) -> impl Iterator<Item = &'static str> + 'a {
        self.types
            .iter()
            .filter(|(id, _)| !given.contains(id))
            .map(|&(_, name)| name)
    }
}

impl fmt::Debug for RequiredStates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.types.iter().map(|(_, name)| name))
            .finish()
    }
}

/// A state type that handlers take and the builder was not given: see
/// [`Error::StatesNotGiven`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StateNotGiven {
    /// The state's type, as `std::any::type_name` writes it.
    pub state: &'static str,
    /// What takes it: `tool "add_note"`, `prompt "review"`, `resource "notes://all"`,
    /// `resource template "notes://{id}"`, `the fallback`.
    pub taken_by: Vec<String>,
}

/// Checks that every state the handlers in `takers` take is among `given`: `Ok`, or
/// [`Error::StatesNotGiven`] listing each missing type with what takes it.
pub(crate) fn check_states<'a>(
    given: &[TypeId],
    takers: impl IntoIterator<Item = (String, &'a RequiredStates)>,
) -> Result<()> {
    let mut missing: Vec<StateNotGiven> = Vec::new();
    for (taker, states) in takers {
        for state in states.missing(given) {
            match missing.iter_mut().find(|m| m.state == state) {
                Some(m) => m.taken_by.push(taker.clone()),
                None => missing.push(StateNotGiven {
                    state,
                    taken_by: vec![taker.clone()],
                }),
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::StatesNotGiven(missing))
    }
}

/// The text of [`Error::StatesNotGiven`].
pub(crate) fn states_not_given_text(missing: &[StateNotGiven]) -> String {
    let mut text = String::from("handlers take application state the server was not given: ");
    for (i, m) in missing.iter().enumerate() {
        if i > 0 {
            text.push_str("; ");
        }
        let _ = write!(
            text,
            "State<{}> (taken by {})",
            m.state,
            m.taken_by.join(", ")
        );
    }
    text.push_str(
        "; give each to ServerBuilder::state (`.state(value)`), or take `Option<State<T>>` \
         where it may be absent",
    );
    text
}
