//! Attribute macros for `mcp-server`: tools, prompts and resources written as plain async
//! functions, their schemas and descriptions read from the signature and doc comments.
//!
//! Use them through `mcp-server`'s `macros` feature (`mcp_server::{tool, tools, prompt,
//! resource}`), which also re-exports what the generated code needs (serde, schemars), so
//! the application depends on neither. The guide page `mcp_server::guide::macros` shows
//! each macro with a runnable example.
//!
//! | Macro | On | Generates |
//! |---|---|---|
//! | `#[tool]` | an `async fn` | `fn <name>_tool() -> Tool` |
//! | `#[prompt]` | an `async fn` | `fn <name>_prompt() -> Prompt` |
//! | `#[resource(uri = "...")]` | an `async fn` | `fn <name>_resource() -> Resource` (or `ResourceTemplate` when the URI has `{vars}`) |
//! | `#[tools]` | an inherent `impl` block | per `#[tool]`/`#[prompt]`/`#[resource]` method a companion taking `self: &Arc<Self>`, and `tools()`, `prompts()`, `resources()`, `resource_templates()` collecting them |
//!
//! The function itself is left as written (less the doc comments on its parameters, which
//! Rust allows only because the macro removes them).
//!
//! # Parameters
//!
//! A parameter is an extractor, passed through to the handler in order and not part of the
//! schema, when its type is `Context`, `State<_>`, `Extension<_>`, `Server` or `Option` of
//! one of them (matched by the type's last path segment), or when it is marked
//! `#[from_context]` (the application's own `FromContext` types). Every other parameter is
//! input: a tool's argument (a property of the input schema, required unless its type is an
//! `Option`, described by its doc comment; `#[serde(...)]` and `#[schemars(...)]` attributes
//! on it are kept), a prompt's argument (`String`, or `Option<String>` when optional), or a
//! URI template's variable (`String` or `Option<String>`, named like the parameter).
//!
//! # Errors
//!
//! Mistakes are compile errors at the offending span, saying what to write instead: a
//! function that is not `async`, a `self` parameter outside `#[tools]`, a pattern or a
//! reference as an input parameter, generics, unknown keys in the attribute, a template
//! variable without a parameter (or a parameter that is no variable), an invalid URI template.
//! Nothing in the generated code panics on what a client sends: arguments that do not
//! deserialize are answered -32602, as for `Tool::typed`.

use proc_macro::TokenStream;

mod attrs;
mod expand;
mod impl_block;
mod params;
mod template;

use attrs::Kind;

/// Makes a tool of an `async fn`: generates `fn <name>_tool() -> mcp_server::Tool`.
///
/// The function's doc comment is the tool's description, its input parameters the input
/// schema's properties (described by their doc comments). Keys: `name` (default: the
/// function's name), `description` (default: the doc comment), `title`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item_fn(Kind::Tool, attr.into(), item.into()).into()
}

/// Makes a prompt of an `async fn`: generates `fn <name>_prompt() -> mcp_server::Prompt`.
///
/// Input parameters are the prompt's arguments (`String`, or `Option<String>` for an
/// optional one), described by their doc comments. Keys: `name`, `description`, `title`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item_fn(Kind::Prompt, attr.into(), item.into()).into()
}

/// Makes a resource of an `async fn`: generates `fn <name>_resource()` returning an
/// `mcp_server::Resource`, or an `mcp_server::ResourceTemplate` when the URI has `{vars}`
/// (each a `String` or `Option<String>` parameter of the same name).
///
/// Keys: `uri` (required), `name` (default: the function's name), `description` (default:
/// the doc comment), `title`, `mime_type`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::item_fn(Kind::Resource, attr.into(), item.into()).into()
}

/// Makes tools, prompts and resources of the `#[tool]`, `#[prompt]` and `#[resource]`
/// methods of an inherent `impl` block.
///
/// Each such method taking `&self` (or `self: Arc<Self>`) gets a companion
/// `fn <name>_tool(self: &Arc<Self>) -> Tool` (`_prompt`, `_resource`) whose handler holds a
/// clone of the `Arc`; a method without a receiver gets one without parameters. The block
/// also gets `fn tools(self: &Arc<Self>) -> Vec<Tool>` with all its tools (and `prompts`,
/// `resources`, `resource_templates` when it has any), as visible as its most visible
/// method.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    impl_block::expand(attr.into(), item.into()).into()
}
