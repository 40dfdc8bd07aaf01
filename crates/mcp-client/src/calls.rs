//! The typed calls of each server feature (tools, resources, prompts, completion, logging,
//! roots), and the streams that follow a list's pages to the end.
//!
//! Every call takes its request's params, or anything that converts into them: where the
//! params have one required member (a tool's or a prompt's name, a resource's URI), that
//! member alone converts (`client.read_resource("notes://all")`, `client.call_tool("ping")`).
//! A tool call and a prompt also take their name and arguments as a tuple
//! (`client.call_tool(("add", Args { a: 1, b: 2 }))`, see [`IntoCallToolParams`] and
//! [`IntoGetPromptParams`]).

use std::collections::HashSet;
use std::future::Future;
use std::sync::PoisonError;

use futures::Stream;
use futures::stream::{self, StreamExt, TryStreamExt};
use mcp_jsonrpc::trace::TraceContext;
use mcp_jsonrpc::{Progress, RequestOptions};
use mcp_types::{
    CallTool, CallToolRequestParams, CallToolResult, Complete, CompleteRequestParams,
    CompleteResult, Cursor, EmptyParams, GetPrompt, GetPromptResult, ListPrompts,
    ListPromptsResult, ListResourceTemplates, ListResourceTemplatesResult, ListResources,
    ListResourcesResult, ListTools, ListToolsResult, LoggingLevel, PaginatedRequestParams, Prompt,
    ReadResource, ReadResourceRequestParams, ReadResourceResult, Request, Resource,
    ResourceRequestParams, ResourceTemplate, Root, RootsListChanged, SetLevel,
    SetLevelRequestParams, Subscribe, Tool, Unsubscribe,
};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::arguments::{IntoCallToolParams, IntoGetPromptParams};
use crate::call_options::{CallOptions, Limits};
use crate::client::Client;
use crate::error::{Error, Result, Side};

/// A page of a paginated list.
pub(crate) trait Page: Sized + Send + 'static {
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
    // ---- tools ----------------------------------------------------------------------------

    /// One page of `tools/list`. Compiles and remembers the tools' output schemas, which
    /// [`call_tool`](Self::call_tool) checks results against, and their `x-mcp-header`
    /// parameters, which a call sends as `Mcp-Param-*` headers over Streamable HTTP
    /// (2026-07-28); the first page (no cursor) replaces what was known. On 2026-07-28 a tool
    /// whose `x-mcp-header` annotations are invalid is left out, as the revision requires.
    /// Input schemas are kept as sent: `$ref`s are not followed, and keywords this crate does
    /// not know survive.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn list_tools(&self, cursor: Option<Cursor>) -> Result<ListToolsResult> {
        self.require_server(self.has_tools(), "tools")?;
        let first = cursor.is_none();
        let mut page = self.request::<ListTools>(paginated(cursor)).await?;
        let drop_invalid = self.inner.modern.is_some();
        let shared = &self.inner.shared;
        shared
            .known_tools
            .update(&mut page.tools, first, drop_invalid);
        shared.schemas.update(&page.tools, first);
        Ok(page)
    }

    /// Every tool, following `nextCursor` to the end (see [`list_tools`](Self::list_tools)).
    ///
    /// Ends with [`Error::TooManyPages`] after
    /// [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) pages (default
    /// 100) if the server still offers another, and with [`Error::Protocol`] if it hands out
    /// a cursor twice.
    pub fn list_tools_stream(&self) -> impl Stream<Item = Result<Tool>> + Send + '_ {
        self.paginate(ListTools::METHOD, |client, cursor| {
            client.list_tools(cursor)
        })
    }

    /// Calls a tool: `call` is its name (`"ping"`), its name and arguments
    /// (`("add", Args { a: 1, b: 2 })`, `("add", json!({"a": 1, "b": 2}))`), or whole
    /// [`CallToolRequestParams`] (see [`IntoCallToolParams`]).
    ///
    /// If the last `tools/list` gave the tool an `outputSchema`, a successful result's
    /// `structuredContent` is checked against it (with validators compiled once per tool).
    /// A tool failure is not an error: it is a result with `isError: true`.
    /// [`call_tool_structured`](Self::call_tool_structured) reads the structured content as
    /// a Rust type instead.
    ///
    /// ```
    /// use mcp_client::Client;
    /// use mcp_server::{Server, Tool};
    /// use serde::{Deserialize, Serialize};
    /// use serde_json::json;
    ///
    /// #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    /// struct Add {
    ///     a: i64,
    ///     b: i64,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::builder()
    ///     .name("calc")
    ///     .version("1.0")
    ///     .tool(Tool::typed("add", |args: Add| async move { args.a + args.b }))
    ///     .tool(Tool::new("ping", || async { "pong" }))
    ///     .build();
    /// let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    /// tokio::spawn(async move { server.serve(server_end).await });
    /// let (client, connection) = Client::builder().connect(client_end).await?;
    /// tokio::spawn(connection);
    ///
    /// let result = client.call_tool(("add", Add { a: 2, b: 3 })).await?;
    /// assert_eq!(result.content[0].as_text(), Some("5"));
    /// let result = client.call_tool(("add", json!({"a": 1, "b": 1}))).await?;
    /// assert_eq!(result.content[0].as_text(), Some("2"));
    /// let result = client.call_tool("ping").await?;
    /// assert_eq!(result.content[0].as_text(), Some("pong"));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request), plus [`Error::InvalidArguments`] (arguments that
    /// do not serialize to a JSON object; nothing is sent), [`Error::OutputSchemaMismatch`]
    /// and [`Error::InvalidOutputSchema`].
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the call on the server.
    pub async fn call_tool(&self, call: impl IntoCallToolParams) -> Result<CallToolResult> {
        self.call_tool_with(call, CallOptions::default()).await
    }

    /// Calls a tool with `options`; see [`call_tool`](Self::call_tool).
    ///
    /// # Errors
    ///
    /// As for [`call_tool`](Self::call_tool).
    pub async fn call_tool_with(
        &self,
        call: impl IntoCallToolParams,
        options: CallOptions,
    ) -> Result<CallToolResult> {
        let params = call.into_call_tool_params()?;
        self.require_server(self.has_tools(), "tools")?;
        let name = params.name.clone();
        // A tool that runs only as a task (2025-11-25): call it as one, wait for the result.
        if self.needs_task(&name) {
            let result = match self.tool_task(params, None).await? {
                (crate::ToolCallOutcome::Complete(result), _) => result,
                (crate::ToolCallOutcome::Task(task), call) => {
                    self.follow_task(&task.task_id, call.as_ref()).await?
                }
            };
            self.inner.shared.schemas.check(&name, &result)?;
            return Ok(result);
        }
        let limits = options.limits(&self.inner.defaults);
        let options = options.to_request_options(&self.inner.defaults);
        let (result, call) = match self.call_tool_once(&params, options.clone(), limits).await {
            // A server that checks `Mcp-Param-*` refused a call of a tool this client has not
            // listed, so it sent none: list the tools, then try once more if that taught the
            // client the tool.
            Err(Error::HeaderMismatch(refusal))
                if self.inner.modern.is_some() && !self.inner.shared.known_tools.knows(&name) =>
            {
                tracing::debug!(tool = %name, error = %refusal.message, "listing the tools to learn their header parameters");
                let listed: Result<Vec<Tool>> = self.list_tools_stream().try_collect().await;
                if let Err(e) = listed {
                    tracing::debug!(error = %e, "listing the tools failed");
                }
                if !self.inner.shared.known_tools.knows(&name) {
                    return Err(Error::HeaderMismatch(refusal));
                }
                self.call_tool_once(&params, options, limits).await?
            }
            other => other?,
        };
        // A task: the server chose one (2026-07-28); follow it to its end.
        if Client::is_task_handle(&result)
            && let Some(finished) = self.finish_task(&result, call.as_ref()).await?
        {
            self.inner.shared.schemas.check(&name, &finished)?;
            return Ok(finished);
        }
        let result: CallToolResult = serde_json::from_str(result.get())
            .map_err(|e| Error::decode(CallTool::METHOD, "result", e))?;
        self.inner.shared.schemas.check(&name, &result)?;
        Ok(result)
    }

    /// One `tools/call`, with the tool's `Mcp-Param-*` headers as a hint for the transport.
    async fn call_tool_once(
        &self,
        params: &CallToolRequestParams,
        mut options: RequestOptions,
        limits: Limits,
    ) -> Result<(Box<RawValue>, Option<TraceContext>)> {
        if self.inner.modern.is_some()
            && let Some(arguments) = &params.arguments
            && let Some(headers) = self
                .inner
                .shared
                .known_tools
                .for_call(&params.name, arguments)
        {
            options = options.extension(headers);
        }
        let (outcome, call) = self
            .call_spanned(CallTool::METHOD, params, options, limits)
            .await;
        outcome.map(|raw| (raw, call))
    }

    /// Calls a tool and asks for progress: returns the progress receiver and the call's
    /// future. Progress stops (the receiver ends) when the call completes. `call` is as for
    /// [`call_tool`](Self::call_tool); arguments that cannot be sent fail the future.
    ///
    /// ```no_run
    /// # async fn f(client: mcp_client::Client) -> mcp_client::Result<()> {
    /// use mcp_client::CallOptions;
    /// use serde_json::json;
    ///
    /// let build = ("build", json!({"target": "release"}));
    /// let (mut progress, call) = client.call_tool_with_progress(build, CallOptions::new());
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
        call: impl IntoCallToolParams,
        options: CallOptions,
    ) -> (
        mpsc::Receiver<Progress>,
        impl Future<Output = Result<CallToolResult>> + Send + '_,
    ) {
        // Converted now, so that the future holds the params and not the caller's arguments.
        let params = call.into_call_tool_params();
        let (tx, rx) = mpsc::channel(PROGRESS_CAPACITY);
        let options = options.progress(tx);
        (
            rx,
            async move { self.call_tool_with(params?, options).await },
        )
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
    ///
    /// Ends with [`Error::TooManyPages`] after
    /// [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) pages (default
    /// 100) if the server still offers another, and with [`Error::Protocol`] if it hands out
    /// a cursor twice.
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
    ///
    /// Ends with [`Error::TooManyPages`] after
    /// [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) pages (default
    /// 100) if the server still offers another, and with [`Error::Protocol`] if it hands out
    /// a cursor twice.
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
    pub async fn read_resource(
        &self,
        params: impl Into<ReadResourceRequestParams>,
    ) -> Result<ReadResourceResult> {
        self.require_server(self.has_resources(), "resources")?;
        self.request::<ReadResource>(params.into()).await
    }

    /// Subscribes to updates of the resource at `uri` (`resources/subscribe`); updates arrive
    /// at [`ClientHandler::on_resource_updated`](crate::ClientHandler::on_resource_updated).
    /// Handshake era only: [`listen`](Self::listen) works in both.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request); [`Error::NotInRevision`] on 2026-07-28.
    pub async fn subscribe(&self, params: impl Into<ResourceRequestParams>) -> Result<()> {
        self.require_server(
            self.server_capabilities().supports_resource_subscriptions(),
            "resources.subscribe",
        )?;
        self.request::<Subscribe>(params.into()).await.map(drop)
    }

    /// Ends a subscription (`resources/unsubscribe`). Handshake era only.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request); [`Error::NotInRevision`] on 2026-07-28.
    pub async fn unsubscribe(&self, params: impl Into<ResourceRequestParams>) -> Result<()> {
        self.require_server(
            self.server_capabilities().supports_resource_subscriptions(),
            "resources.subscribe",
        )?;
        self.request::<Unsubscribe>(params.into()).await.map(drop)
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
    ///
    /// Ends with [`Error::TooManyPages`] after
    /// [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) pages (default
    /// 100) if the server still offers another, and with [`Error::Protocol`] if it hands out
    /// a cursor twice.
    pub fn list_prompts_stream(&self) -> impl Stream<Item = Result<Prompt>> + Send + '_ {
        self.paginate(ListPrompts::METHOD, |client, cursor| {
            client.list_prompts(cursor)
        })
    }

    /// Gets a prompt (`prompts/get`): `prompt` is its name (`"greeting"`), its name and
    /// arguments (`("review", Args { language: "rust" })`, `("review", json!({..}))`), or
    /// whole [`GetPromptRequestParams`](mcp_types::GetPromptRequestParams) (see
    /// [`IntoGetPromptParams`]). Argument values are strings on the wire: numbers and
    /// booleans are sent as their text.
    ///
    /// ```
    /// use mcp_client::Client;
    /// use mcp_server::{Prompt, PromptArguments, Server};
    /// use serde::Serialize;
    ///
    /// #[derive(Serialize)]
    /// struct Review {
    ///     language: &'static str,
    ///     max_comments: u32,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let review = Prompt::new("review", |args: PromptArguments| async move {
    ///     let (language, max) = (&args["language"], &args["max_comments"]);
    ///     format!("Review this {language} code in at most {max} comments")
    /// })
    /// .argument("language", "The programming language", true)
    /// .argument("max_comments", "How many comments at most", true);
    /// let server = Server::builder().name("reviewer").version("1.0").prompt(review).build();
    /// let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    /// tokio::spawn(async move { server.serve(server_end).await });
    /// let (client, connection) = Client::builder().connect(client_end).await?;
    /// tokio::spawn(connection);
    ///
    /// let args = Review { language: "rust", max_comments: 3 };
    /// let prompt = client.get_prompt(("review", args)).await?;
    /// assert_eq!(
    ///     prompt.messages[0].content.as_text(),
    ///     Some("Review this rust code in at most 3 comments")
    /// );
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request), plus [`Error::InvalidArguments`] (arguments that
    /// are not an object of strings, numbers or booleans; nothing is sent).
    pub async fn get_prompt(&self, prompt: impl IntoGetPromptParams) -> Result<GetPromptResult> {
        let params = prompt.into_get_prompt_params()?;
        self.require_server(self.has_prompts(), "prompts")?;
        self.request::<GetPrompt>(params).await
    }

    // ---- completion and logging -----------------------------------------------------------

    /// Asks for completions of an argument (`completion/complete`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn complete(
        &self,
        params: impl Into<CompleteRequestParams>,
    ) -> Result<CompleteResult> {
        self.require_server(
            self.server_capabilities().completions.is_some(),
            "completions",
        )?;
        self.request::<Complete>(params.into()).await
    }

    /// Sets the level of the log messages the server sends: `logging/setLevel` in the
    /// handshake era; on 2026-07-28, which removed it, every later request carries the level
    /// in its `_meta` (`io.modelcontextprotocol/logLevel`), and nothing is sent now.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request).
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<()> {
        self.require_server(self.server_capabilities().logging.is_some(), "logging")?;
        if let Some(modern) = &self.inner.modern {
            modern.set_log_level(level);
            return Ok(());
        }
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
    /// `notifications/roots/list_changed` (handshake era; on 2026-07-28 the server asks for
    /// the roots when it needs them, so nothing is sent).
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
        if declared.list_changed == Some(true) && self.inner.modern.is_none() {
            self.notify::<RootsListChanged>(EmptyParams::default())
                .await?;
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

    // ---- pagination -----------------------------------------------------------------------

    /// The items of every page, following `nextCursor`: at most `max_list_pages` pages
    /// (then [`Error::TooManyPages`]), never the same cursor twice ([`Error::Protocol`]), so
    /// that a server cannot keep the stream going forever.
    pub(crate) fn paginate<'a, P, F, Fut>(
        &'a self,
        method: &'static str,
        fetch: F,
    ) -> impl Stream<Item = Result<P::Item>> + Send + 'a
    where
        P: Page,
        F: Fn(&'a Client, Option<Cursor>) -> Fut + Copy + Send + 'a,
        Fut: Future<Output = Result<P>> + Send + 'a,
    {
        /// Where the stream is: the next cursor, the cursors given so far (at most
        /// `max_pages`) and the pages fetched.
        struct Pager {
            cursor: Option<Cursor>,
            seen: HashSet<Cursor>,
            pages: usize,
        }
        enum State {
            Fetch(Pager),
            Fail(Error),
            Done,
        }
        let max_pages = self.inner.defaults.max_list_pages;
        let start = Pager {
            cursor: None,
            seen: HashSet::new(),
            pages: 0,
        };
        stream::unfold(State::Fetch(start), move |state| async move {
            match state {
                State::Done => None,
                State::Fail(e) => Some((vec![Err(e)], State::Done)),
                State::Fetch(mut pager) => match fetch(self, pager.cursor.take()).await {
                    Err(e) => Some((vec![Err(e)], State::Done)),
                    Ok(page) => {
                        pager.pages += 1;
                        let (items, next) = page.into_parts();
                        let items = items.into_iter().map(Ok).collect();
                        let state = match next {
                            None => State::Done,
                            Some(next) if pager.seen.contains(&next) => {
                                State::Fail(Error::Protocol {
                                    method: method.to_owned(),
                                    message: format!("the server repeated the cursor {next:?}"),
                                })
                            }
                            Some(_) if pager.pages >= max_pages => {
                                State::Fail(Error::TooManyPages {
                                    method: method.to_owned(),
                                    pages: pager.pages,
                                })
                            }
                            Some(next) => {
                                pager.seen.insert(next.clone());
                                pager.cursor = Some(next);
                                State::Fetch(pager)
                            }
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
