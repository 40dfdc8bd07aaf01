//! [`Client`]: the handle an application calls the server through.

use std::future::Future;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use futures::Stream;
use futures::stream::{self, StreamExt};
use mcp_jsonrpc::{Peer, Progress, RequestOptions};
use mcp_types::{
    CallTool, CallToolRequestParams, CallToolResult, ClientCapabilities, Complete,
    CompleteRequestParams, CompleteResult, Cursor, EmptyParams, Era, GetPrompt,
    GetPromptRequestParams, GetPromptResult, Implementation, InitializeResult, ListPrompts,
    ListPromptsResult, ListResourceTemplates, ListResourceTemplatesResult, ListResources,
    ListResourcesResult, ListTools, ListToolsResult, LoggingLevel, Notification,
    PaginatedRequestParams, Ping, Prompt, ProtocolVersion, ReadResource, ReadResourceRequestParams,
    ReadResourceResult, Request, Resource, ResourceRequestParams, ResourceTemplate, Root,
    RootsListChanged, ServerCapabilities, SetLevel, SetLevelRequestParams, Subscribe, Tool,
    Unsubscribe,
};
use tokio::sync::mpsc;

use crate::error::{Error, Result, Side};
use crate::router::Shared;

/// Per-call options: timeouts and a progress sink. The defaults are the client's.
///
/// ```
/// use std::time::Duration;
/// use mcp_client::CallOptions;
///
/// let options = CallOptions::new()
///     .timeout(Duration::from_secs(10))
///     .max_total_timeout(Duration::from_secs(300));
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    timeout: Option<Option<Duration>>,
    max_total_timeout: Option<Duration>,
    reset_timeout_on_progress: Option<bool>,
    progress: Option<mpsc::Sender<Progress>>,
}

impl CallOptions {
    /// The client's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fails the call with [`Error::Timeout`] if no response (and no progress, for calls with
    /// a progress sink) arrives within `timeout`. Overrides
    /// [`ClientBuilder::request_timeout`](crate::ClientBuilder::request_timeout).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(Some(timeout));
        self
    }

    /// Waits without a resettable timeout; a hard maximum still applies.
    #[must_use]
    pub fn without_timeout(mut self) -> Self {
        self.timeout = Some(None);
        self
    }

    /// A hard maximum for the whole call, which progress does not extend. Overrides
    /// [`ClientBuilder::max_total_timeout`](crate::ClientBuilder::max_total_timeout).
    #[must_use]
    pub fn max_total_timeout(mut self, max: Duration) -> Self {
        self.max_total_timeout = Some(max);
        self
    }

    /// Whether progress restarts the timeout (default `true`; only calls with a progress sink
    /// see their progress).
    #[must_use]
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = Some(reset);
        self
    }

    /// Asks the server for progress (a `progressToken` is added to the params) and delivers it
    /// to `sink`. Delivery does not wait: progress that finds the sink full is dropped.
    #[must_use]
    pub fn progress(mut self, sink: mpsc::Sender<Progress>) -> Self {
        self.progress = Some(sink);
        self
    }

    fn to_request_options(&self, defaults: &Defaults) -> RequestOptions {
        let mut options = RequestOptions::new();
        match self.timeout {
            Some(Some(d)) => options = options.timeout(d),
            Some(None) => options = options.without_timeout(),
            None => {}
        }
        if let Some(max) = self.max_total_timeout.or(defaults.max_total_timeout) {
            options = options.max_total_timeout(max);
        }
        if let Some(reset) = self.reset_timeout_on_progress {
            options = options.reset_timeout_on_progress(reset);
        }
        if let Some(sink) = &self.progress {
            options = options.progress(sink.clone());
        }
        options
    }
}

/// Client-wide defaults of [`CallOptions`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Defaults {
    pub(crate) max_total_timeout: Option<Duration>,
}

/// Closes the connection when the last [`Client`] handle goes away.
struct CloseOnDrop(Peer);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

pub(crate) struct Inner {
    pub(crate) shared: Arc<Shared>,
    pub(crate) peer: Peer,
    pub(crate) init: InitializeResult,
    pub(crate) defaults: Defaults,
    pub(crate) strict: bool,
}

/// A connected, initialized MCP client: a cheap, cloneable handle.
///
/// Made by [`ClientBuilder::connect`](crate::ClientBuilder::connect), together with the [`Connection`](crate::Connection)
/// future that must be running for calls to complete. When the last handle is dropped the
/// connection closes gracefully.
///
/// Every call goes through [`request_with`](Self::request_with); the typed methods are thin
/// wrappers. List methods come in two forms: one page (`list_tools(cursor)`) and a stream
/// that follows `nextCursor` to the end (`list_tools_stream()`).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    _close: Arc<CloseOnDrop>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.inner.init.server_info.name)
            .field("protocol_version", &self.inner.init.protocol_version)
            .field("closed", &self.inner.peer.is_closed())
            .finish_non_exhaustive()
    }
}

/// A page of a paginated list.
trait Page: Sized + Send + 'static {
    type Item: Send + 'static;
    fn into_parts(self) -> (Vec<Self::Item>, Option<Cursor>);
}

macro_rules! page {
    ($result:ty, $item:ty, $field:ident) => {
        impl Page for $result {
            type Item = $item;
            fn into_parts(self) -> (Vec<$item>, Option<Cursor>) {
                (self.$field, self.next_cursor)
            }
        }
    };
}

page!(ListToolsResult, Tool, tools);
page!(ListResourcesResult, Resource, resources);
page!(
    ListResourceTemplatesResult,
    ResourceTemplate,
    resource_templates
);
page!(ListPromptsResult, Prompt, prompts);

impl Client {
    pub(crate) fn new(inner: Inner) -> Self {
        let close = CloseOnDrop(inner.peer.clone());
        Client {
            inner: Arc::new(inner),
            _close: Arc::new(close),
        }
    }

    // ---- the session ----------------------------------------------------------------------

    /// The server's whole answer to `initialize`.
    pub fn initialize_result(&self) -> &InitializeResult {
        &self.inner.init
    }

    /// The server software (`serverInfo`).
    pub fn server_info(&self) -> &Implementation {
        &self.inner.init.server_info
    }

    /// What the server supports.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.inner.init.capabilities
    }

    /// The server's instructions, e.g. for a system prompt.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.init.instructions.as_deref()
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &ProtocolVersion {
        &self.inner.init.protocol_version
    }

    /// The era of the negotiated revision (always [`Era::Stateful`] for now).
    pub fn era(&self) -> Era {
        self.inner.init.protocol_version.era()
    }

    /// The capabilities this client declared.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.inner.shared.capabilities
    }

    // ---- generic calls --------------------------------------------------------------------

    /// Sends request `M` with the client's default options.
    ///
    /// # Errors
    ///
    /// The server's error ([`Error::Rpc`]), [`Error::Timeout`], [`Error::Closed`], or
    /// [`Error::Decode`] if the result does not fit `M::Result`.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request: the server gets `notifications/cancelled` if
    /// the request was sent.
    pub async fn request<M: Request>(&self, params: M::Params) -> Result<M::Result> {
        self.request_with::<M>(params, CallOptions::default()).await
    }

    /// Sends request `M` with `options`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    ///
    /// # Cancel safety
    ///
    /// As for [`request`](Self::request).
    pub async fn request_with<M: Request>(
        &self,
        params: M::Params,
        options: CallOptions,
    ) -> Result<M::Result> {
        // The single path of every request: the place where the stateless revision will add
        // its per-request `_meta` and answer input-required results.
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::decode(M::METHOD, "params", e))?;
        let options = options.to_request_options(&self.inner.defaults);
        let result = self
            .inner
            .peer
            .request_with(M::METHOD, Some(raw), options)
            .await
            .map_err(|e| self.map_err(e, M::METHOD))?;
        serde_json::from_str(result.get()).map_err(|e| Error::decode(M::METHOD, "result", e))
    }

    /// Sends notification `N`.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] if the connection is closed.
    ///
    /// # Cancel safety
    ///
    /// Not cancel-safe: dropping the future may or may not send the notification.
    pub async fn notify<N: Notification>(&self, params: N::Params) -> Result<()> {
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::decode(N::METHOD, "params", e))?;
        self.inner
            .peer
            .notify(N::METHOD, Some(raw))
            .await
            .map_err(|e| self.map_err(e, N::METHOD))
    }

    fn map_err(&self, e: mcp_jsonrpc::Error, method: &str) -> Error {
        Error::from_jsonrpc(e, method, self.inner.shared.failure.get())
    }

    fn require_server(&self, present: bool, capability: &'static str) -> Result<()> {
        if self.inner.strict && !present {
            return Err(Error::CapabilityNotDeclared {
                side: Side::Server,
                capability,
            });
        }
        Ok(())
    }

    fn has_tools(&self) -> bool {
        self.server_capabilities().tools.is_some()
    }

    fn has_resources(&self) -> bool {
        self.server_capabilities().resources.is_some()
    }

    fn has_prompts(&self) -> bool {
        self.server_capabilities().prompts.is_some()
    }

    // ---- lifecycle ------------------------------------------------------------------------

    /// Sends `ping` and waits for the answer.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn ping(&self) -> Result<()> {
        self.request::<Ping>(EmptyParams::default()).await.map(drop)
    }

    /// Closes the connection: pending calls fail with [`Error::Closed`] and the
    /// [`Connection`](crate::Connection) future completes. Returns at once.
    pub fn close(&self) {
        self.inner.peer.close();
    }

    /// Whether the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.peer.is_closed()
    }

    /// Waits until the connection has ended (its future finished or was dropped).
    /// Cancel-safe.
    pub async fn closed(&self) {
        self.inner.peer.closed().await;
    }

    // ---- tools ----------------------------------------------------------------------------

    /// One page of `tools/list`. Compiles and remembers the tools' output schemas, which
    /// [`call_tool`](Self::call_tool) checks results against; the first page (no cursor)
    /// replaces what was known.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn list_tools(&self, cursor: Option<Cursor>) -> Result<ListToolsResult> {
        self.require_server(self.has_tools(), "tools")?;
        let first = cursor.is_none();
        let page = self.request::<ListTools>(paginated(cursor)).await?;
        self.inner.shared.schemas.update(&page.tools, first);
        Ok(page)
    }

    /// Every tool, following `nextCursor` to the end (see [`list_tools`](Self::list_tools)).
    pub fn list_tools_stream(&self) -> impl Stream<Item = Result<Tool>> + Send + '_ {
        self.paginate(ListTools::METHOD, |client, cursor| {
            client.list_tools(cursor)
        })
    }

    /// Calls a tool.
    ///
    /// If the last `tools/list` gave the tool an `outputSchema`, a successful result's
    /// `structuredContent` is checked against it (with validators compiled once per tool).
    /// A tool failure is not an error: it is a result with `isError: true`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request), plus [`Error::OutputSchemaMismatch`] and
    /// [`Error::InvalidOutputSchema`].
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the call on the server.
    pub async fn call_tool(&self, params: CallToolRequestParams) -> Result<CallToolResult> {
        self.call_tool_with(params, CallOptions::default()).await
    }

    /// Calls a tool with `options`; see [`call_tool`](Self::call_tool).
    ///
    /// # Errors
    ///
    /// As for [`call_tool`](Self::call_tool).
    pub async fn call_tool_with(
        &self,
        params: CallToolRequestParams,
        options: CallOptions,
    ) -> Result<CallToolResult> {
        self.require_server(self.has_tools(), "tools")?;
        let name = params.name.clone();
        let result = self.request_with::<CallTool>(params, options).await?;
        self.inner.shared.schemas.check(&name, &result)?;
        Ok(result)
    }

    /// Calls a tool and asks for progress: returns the progress receiver and the call's
    /// future. Progress stops (the receiver ends) when the call completes.
    ///
    /// ```no_run
    /// # async fn f(client: mcp_client::Client) -> mcp_client::Result<()> {
    /// use mcp_client::CallOptions;
    /// use mcp_types::CallToolRequestParams;
    ///
    /// let (mut progress, call) =
    ///     client.call_tool_with_progress(CallToolRequestParams::new("build"), CallOptions::new());
    /// let watch = async {
    ///     while let Some(p) = progress.recv().await {
    ///         tracing::info!(progress = p.progress, total = ?p.total, "building");
    ///     }
    /// };
    /// let (result, ()) = futures::join!(call, watch);
    /// # result.map(drop) }
    /// ```
    pub fn call_tool_with_progress(
        &self,
        params: CallToolRequestParams,
        options: CallOptions,
    ) -> (
        mpsc::Receiver<Progress>,
        impl Future<Output = Result<CallToolResult>> + Send + '_,
    ) {
        let (tx, rx) = mpsc::channel(PROGRESS_CAPACITY);
        (rx, self.call_tool_with(params, options.progress(tx)))
    }

    // ---- resources ------------------------------------------------------------------------

    /// One page of `resources/list`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn list_resources(&self, cursor: Option<Cursor>) -> Result<ListResourcesResult> {
        self.require_server(self.has_resources(), "resources")?;
        self.request::<ListResources>(paginated(cursor)).await
    }

    /// Every resource, following `nextCursor` to the end.
    pub fn list_resources_stream(&self) -> impl Stream<Item = Result<Resource>> + Send + '_ {
        self.paginate(ListResources::METHOD, |client, cursor| {
            client.list_resources(cursor)
        })
    }

    /// One page of `resources/templates/list`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn list_resource_templates(
        &self,
        cursor: Option<Cursor>,
    ) -> Result<ListResourceTemplatesResult> {
        self.require_server(self.has_resources(), "resources")?;
        self.request::<ListResourceTemplates>(paginated(cursor))
            .await
    }

    /// Every resource template, following `nextCursor` to the end.
    pub fn list_resource_templates_stream(
        &self,
    ) -> impl Stream<Item = Result<ResourceTemplate>> + Send + '_ {
        self.paginate(ListResourceTemplates::METHOD, |client, cursor| {
            client.list_resource_templates(cursor)
        })
    }

    /// Reads the resource at `uri` (`resources/read`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn read_resource(&self, uri: impl Into<String>) -> Result<ReadResourceResult> {
        self.require_server(self.has_resources(), "resources")?;
        self.request::<ReadResource>(ReadResourceRequestParams::new(uri))
            .await
    }

    /// Subscribes to updates of the resource at `uri` (`resources/subscribe`); updates arrive
    /// at [`ClientHandler::on_resource_updated`](crate::ClientHandler::on_resource_updated).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn subscribe(&self, uri: impl Into<String>) -> Result<()> {
        self.require_server(
            self.server_capabilities().supports_resource_subscriptions(),
            "resources.subscribe",
        )?;
        self.request::<Subscribe>(ResourceRequestParams::new(uri))
            .await
            .map(drop)
    }

    /// Ends a subscription (`resources/unsubscribe`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn unsubscribe(&self, uri: impl Into<String>) -> Result<()> {
        self.require_server(
            self.server_capabilities().supports_resource_subscriptions(),
            "resources.subscribe",
        )?;
        self.request::<Unsubscribe>(ResourceRequestParams::new(uri))
            .await
            .map(drop)
    }

    // ---- prompts --------------------------------------------------------------------------

    /// One page of `prompts/list`.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn list_prompts(&self, cursor: Option<Cursor>) -> Result<ListPromptsResult> {
        self.require_server(self.has_prompts(), "prompts")?;
        self.request::<ListPrompts>(paginated(cursor)).await
    }

    /// Every prompt, following `nextCursor` to the end.
    pub fn list_prompts_stream(&self) -> impl Stream<Item = Result<Prompt>> + Send + '_ {
        self.paginate(ListPrompts::METHOD, |client, cursor| {
            client.list_prompts(cursor)
        })
    }

    /// Gets a prompt (`prompts/get`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn get_prompt(&self, params: GetPromptRequestParams) -> Result<GetPromptResult> {
        self.require_server(self.has_prompts(), "prompts")?;
        self.request::<GetPrompt>(params).await
    }

    // ---- completion and logging -----------------------------------------------------------

    /// Asks for completions of an argument (`completion/complete`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult> {
        self.require_server(
            self.server_capabilities().completions.is_some(),
            "completions",
        )?;
        self.request::<Complete>(params).await
    }

    /// Sets the level of the log messages the server sends (`logging/setLevel`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<()> {
        self.require_server(self.server_capabilities().logging.is_some(), "logging")?;
        self.request::<SetLevel>(SetLevelRequestParams::new(level))
            .await
            .map(drop)
    }

    // ---- roots ----------------------------------------------------------------------------

    /// The roots the client currently offers.
    pub fn roots(&self) -> Vec<Root> {
        self.inner.shared.roots()
    }

    /// Replaces the roots and, if the client declared `roots.listChanged`, sends
    /// `notifications/roots/list_changed`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotDeclared`] if the client did not declare `roots`;
    /// [`Error::Closed`] if the connection is closed.
    ///
    /// # Cancel safety
    ///
    /// The roots are replaced at once; dropping the future may or may not send the
    /// notification.
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<()> {
        let caps = &self.inner.shared.capabilities;
        let Some(declared) = &caps.roots else {
            return Err(Error::CapabilityNotDeclared {
                side: Side::Client,
                capability: "roots",
            });
        };
        *self
            .inner
            .shared
            .roots
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = roots;
        if declared.list_changed == Some(true) {
            self.notify::<RootsListChanged>(EmptyParams::default())
                .await?;
        }
        Ok(())
    }

    // ---- pagination -----------------------------------------------------------------------

    fn paginate<'a, P, F, Fut>(
        &'a self,
        method: &'static str,
        fetch: F,
    ) -> impl Stream<Item = Result<P::Item>> + Send + 'a
    where
        P: Page,
        F: Fn(&'a Client, Option<Cursor>) -> Fut + Copy + Send + 'a,
        Fut: Future<Output = Result<P>> + Send + 'a,
    {
        enum State {
            Fetch(Option<Cursor>),
            Fail(Error),
            Done,
        }
        stream::unfold(State::Fetch(None), move |state| async move {
            match state {
                State::Done => None,
                State::Fail(e) => Some((vec![Err(e)], State::Done)),
                State::Fetch(cursor) => match fetch(self, cursor.clone()).await {
                    Err(e) => Some((vec![Err(e)], State::Done)),
                    Ok(page) => {
                        let (items, next) = page.into_parts();
                        let items = items.into_iter().map(Ok).collect();
                        let state = match next {
                            None => State::Done,
                            Some(next) if cursor.as_ref() == Some(&next) => {
                                State::Fail(Error::Protocol {
                                    method: method.to_owned(),
                                    message: format!("the server repeated the cursor {next:?}"),
                                })
                            }
                            Some(next) => State::Fetch(Some(next)),
                        };
                        Some((items, state))
                    }
                },
            }
        })
        .flat_map(stream::iter)
    }
}

/// How many progress notifications [`Client::call_tool_with_progress`] buffers.
const PROGRESS_CAPACITY: usize = 64;

fn paginated(cursor: Option<Cursor>) -> PaginatedRequestParams {
    match cursor {
        Some(c) => PaginatedRequestParams::at(c),
        None => PaginatedRequestParams::default(),
    }
}
