//! Resources: static [`Resource`]s and [`ResourceTemplate`]s, and the [`IntoReadResult`]
//! conversions of handler return values.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use mcp_types::{
    Annotations, BlobResourceContents, Icon, Meta, ReadResourceResult, ResourceContents,
    TextResourceContents,
};
use serde_json::value::RawValue;

use crate::cache::CacheHints;
use crate::completion::{CompleteFn, CompletionRequest, IntoCompletion, completer, static_values};
use crate::context::Context;
use crate::error::{BoxError, Error, HandlerError, IntoHandlerError, Result};
use crate::extract::RequiredStates;
use crate::handler::{BoxFuture, Erased, HandlerFn, erase, required_states};
use crate::registry::Entry;
use crate::uri_template::UriTemplate;

/// What a resource's output conversion needs: the URI read and the resource's MIME type.
pub(crate) struct ReadTarget {
    uri: String,
    mime_type: Option<String>,
}

/// A read handler (a fixed resource's takes no input, a template's the [`UriParams`]).
type ReadFn<In> = Erased<In, ReadTarget, ReadResourceResult>;

fn convert<R: IntoReadResult>(
    output: R,
    target: ReadTarget,
) -> Result<ReadResourceResult, HandlerError> {
    let result = output.into_read_result(&target.uri, target.mime_type.as_deref())?;
    Ok(with_mime(result, target.mime_type.as_deref()))
}

/// A resource with a fixed URI: its definition (as listed in `resources/list`) and the
/// handler that reads it.
///
/// ```
/// use mcp_server::Resource;
///
/// let readme = Resource::text("file:///README.md", "readme", "# Hello").mime_type("text/markdown");
/// let clock = Resource::new("time://now", "now", || async move {
///     format!("{:?}", std::time::SystemTime::now())
/// });
/// let logo = Resource::blob("file:///logo.png", "logo", vec![0x89, b'P', b'N', b'G'])
///     .mime_type("image/png");
/// # let _ = (readme, clock, logo);
/// ```
#[derive(Clone)]
pub struct Resource {
    def: mcp_types::Resource,
    handler: ReadFn<()>,
    cache_hints: Option<CacheHints>,
    /// The application state the handler takes, checked by the builder.
    states: RequiredStates,
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("definition", &self.def)
            .finish_non_exhaustive()
    }
}

impl Resource {
    /// A resource read by `handler`, an async function or closure taking
    /// [extractors](crate::FromContext) (or nothing) and returning anything implementing
    /// [`IntoReadResult`] (text, bytes, contents, or a `Result` of those).
    pub fn new<M, F>(uri: impl Into<String>, name: impl Into<String>, handler: F) -> Resource
    where
        F: HandlerFn<(), M>,
        F::Future: Send,
        F::Output: IntoReadResult,
    {
        Resource {
            def: mcp_types::Resource::new(uri, name),
            handler: erase(handler, convert::<F::Output>),
            cache_hints: None,
            states: required_states::<(), M, F>(),
        }
    }

    /// A resource whose content is fixed text.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        text: impl Into<String>,
    ) -> Resource {
        let text: Arc<str> = text.into().into();
        Resource::new(uri, name, move || {
            let text = text.to_string();
            async move { text }
        })
    }

    /// A resource whose content is fixed bytes (sent base64-encoded as a blob).
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Resource {
        let bytes: Arc<[u8]> = bytes.into().into();
        Resource::new(uri, name, move || {
            let bytes = bytes.to_vec();
            async move { bytes }
        })
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

    /// Sets the MIME type, also used for the contents the handler returns as text or bytes.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.def.mime_type = Some(mime_type.into());
        self
    }

    /// The cache hints of this resource's 2026-07-28 `resources/read` results (default: the
    /// server's, [`Cacheable::ResourceReads`](crate::Cacheable::ResourceReads)).
    #[must_use]
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache_hints = Some(hints);
        self
    }

    pub(crate) fn own_cache_hints(&self) -> Option<CacheHints> {
        self.cache_hints
    }

    /// Sets the size in bytes, if known.
    #[must_use]
    pub fn size(mut self, size: u64) -> Self {
        self.def.size = Some(size);
        self
    }

    /// Sets the annotations (audience, priority, last modified).
    #[must_use]
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.def.annotations = Some(annotations);
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

    /// The definition, as listed in `resources/list`.
    pub fn definition(&self) -> &mcp_types::Resource {
        &self.def
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.def.uri
    }

    /// The application state the handler takes.
    pub(crate) fn required_states(&self) -> &RequiredStates {
        &self.states
    }

    pub(crate) fn read(&self, cx: Context) -> BoxFuture<Result<ReadResourceResult, BoxError>> {
        let target = ReadTarget {
            uri: self.def.uri.clone(),
            mime_type: self.def.mime_type.clone(),
        };
        (self.handler)((), target, cx)
    }
}

/// Sets the MIME type on contents that have none.
fn with_mime(mut r: ReadResourceResult, mime: Option<&str>) -> ReadResourceResult {
    if let Some(mime) = mime {
        for c in &mut r.contents {
            match c {
                ResourceContents::Text(t) if t.mime_type.is_none() => {
                    t.mime_type = Some(mime.to_owned())
                }
                ResourceContents::Blob(b) if b.mime_type.is_none() => {
                    b.mime_type = Some(mime.to_owned())
                }
                _ => {}
            }
        }
    }
    r
}

impl Entry for Resource {
    fn key(&self) -> &str {
        &self.def.uri
    }

    fn definition(&self) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.def)
    }
}

/// The URI a [`ResourceTemplate`] matched, and the values of its variables
/// (percent-decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriParams {
    uri: String,
    vars: BTreeMap<String, String>,
}

impl UriParams {
    /// The URI being read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The value of variable `name`, if the URI had one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// All variables.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }
}

/// A family of resources named by an RFC 6570 URI template: its definition (as listed in
/// `resources/templates/list`), the handler that reads a matching URI, and completion
/// handlers for its variables.
///
/// ```
/// use mcp_server::{ResourceTemplate, UriParams};
///
/// let user = ResourceTemplate::new("users://{id}/profile", "user", |p: UriParams| async move {
///     format!("profile of {}", p.get("id").unwrap_or_default())
/// })?
/// .mime_type("text/plain")
/// .complete_values("id", ["alice", "bob"]);
/// # let _ = user;
/// # Ok::<(), mcp_server::Error>(())
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    def: mcp_types::ResourceTemplate,
    template: UriTemplate,
    handler: ReadFn<UriParams>,
    completers: HashMap<String, CompleteFn>,
    cache_hints: Option<CacheHints>,
    /// The application state the handler and the completers take, checked by the builder.
    states: RequiredStates,
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("definition", &self.def)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// A template whose matching URIs are read by `handler`, which gets the URI and its
    /// variables ([`UriParams`]) followed by any [extractors](crate::FromContext). Fails with
    /// [`Error::InvalidUriTemplate`] if `uri_template` is not a valid RFC 6570 template.
    pub fn new<M, F>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        handler: F,
    ) -> Result<ResourceTemplate>
    where
        F: HandlerFn<UriParams, M>,
        F::Future: Send,
        F::Output: IntoReadResult,
    {
        let uri_template = uri_template.into();
        let template =
            UriTemplate::parse(&uri_template).map_err(|message| Error::InvalidUriTemplate {
                template: uri_template.clone(),
                message,
            })?;
        Ok(ResourceTemplate {
            def: mcp_types::ResourceTemplate::new(uri_template, name),
            template,
            handler: erase(handler, convert::<F::Output>),
            completers: HashMap::new(),
            cache_hints: None,
            states: required_states::<UriParams, M, F>(),
        })
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

    /// Sets the MIME type of the matching resources, also used for the contents the handler
    /// returns as text or bytes.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.def.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the annotations.
    #[must_use]
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.def.annotations = Some(annotations);
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

    /// The cache hints of 2026-07-28 `resources/read` results of the matching resources
    /// (default: the server's, [`Cacheable::ResourceReads`](crate::Cacheable::ResourceReads)).
    #[must_use]
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache_hints = Some(hints);
        self
    }

    pub(crate) fn own_cache_hints(&self) -> Option<CacheHints> {
        self.cache_hints
    }

    /// Completes variable `var` with `handler`, which takes the [`CompletionRequest`] and
    /// any [extractors](crate::FromContext) (see [`IntoCompletion`]).
    #[must_use]
    pub fn complete<M, F>(mut self, var: impl Into<String>, handler: F) -> Self
    where
        F: HandlerFn<CompletionRequest, M>,
        F::Future: Send,
        F::Output: IntoCompletion,
    {
        self.states
            .extend(&required_states::<CompletionRequest, M, F>());
        self.completers.insert(var.into(), completer(handler));
        self
    }

    /// Completes variable `var` from a fixed list: the values starting with what the user
    /// typed.
    #[must_use]
    pub fn complete_values<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        var: impl Into<String>,
        values: I,
    ) -> Self {
        let values = values.into_iter().map(Into::into).collect();
        self.completers.insert(var.into(), static_values(values));
        self
    }

    /// The definition, as listed in `resources/templates/list`.
    pub fn definition(&self) -> &mcp_types::ResourceTemplate {
        &self.def
    }

    /// The URI template.
    pub fn uri_template(&self) -> &str {
        &self.def.uri_template
    }

    /// The names of the template's variables.
    pub fn variables(&self) -> &[String] {
        self.template.variables()
    }

    pub(crate) fn match_uri(&self, uri: &str) -> Option<UriParams> {
        self.template.matches(uri).map(|vars| UriParams {
            uri: uri.to_owned(),
            vars,
        })
    }

    pub(crate) fn read(
        &self,
        params: UriParams,
        cx: Context,
    ) -> BoxFuture<Result<ReadResourceResult, BoxError>> {
        let target = ReadTarget {
            uri: params.uri.clone(),
            mime_type: self.def.mime_type.clone(),
        };
        (self.handler)(params, target, cx)
    }

    /// The application state the handler and the completers take.
    pub(crate) fn required_states(&self) -> &RequiredStates {
        &self.states
    }

    pub(crate) fn completer(&self, var: &str) -> Option<&CompleteFn> {
        self.completers.get(var)
    }
}

impl Entry for ResourceTemplate {
    fn key(&self) -> &str {
        &self.def.uri_template
    }

    fn definition(&self) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.def)
    }
}

/// What a resource handler may return.
///
/// | Return type | Contents |
/// |---|---|
/// | `String`, `&'static str` | one text item for the URI read |
/// | `Vec<u8>` | one blob item (base64-encoded) for the URI read |
/// | `ResourceContents`, `Vec<ResourceContents>` | as is |
/// | `ReadResourceResult` | as is |
/// | `Result<T, E:` [`IntoHandlerError`]`>` | `T` as above; `Err` is a JSON-RPC error: an [`Error`] in it by its meaning (e.g. [`Error::resource_not_found`]), anything else -32603 |
///
/// Text and blob items get the resource's MIME type unless they carry their own.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a resource's contents: it does not implement `IntoReadResult`",
    label = "not resource contents",
    note = "a resource returns text (`String`, `&'static str`), bytes (`Vec<u8>`), \
            `ResourceContents` or a `Vec` of them, a `ReadResourceResult`, or a `Result` of \
            one of those"
)]
pub trait IntoReadResult: Send + 'static {
    /// Converts the value; `uri` is the URI being read.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError>;
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(
        self,
        _uri: &str,
        _mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(self)
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(
        self,
        _uri: &str,
        _mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(ReadResourceResult::new(vec![self]))
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(
        self,
        _uri: &str,
        _mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(ReadResourceResult::new(self))
    }
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        let mut c = TextResourceContents::new(uri, self);
        c.mime_type = mime_type.map(str::to_owned);
        Ok(ReadResourceResult::new(vec![c.into()]))
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        self.to_owned().into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        let blob = base64::engine::general_purpose::STANDARD.encode(self);
        let mut c = BlobResourceContents::new(uri, blob);
        c.mime_type = mime_type.map(str::to_owned);
        Ok(ReadResourceResult::new(vec![c.into()]))
    }
}

impl<T: IntoReadResult, E: IntoHandlerError> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        self.map_err(IntoHandlerError::into_handler_error)?
            .into_read_result(uri, mime_type)
    }
}
