#![doc = include_str!("../README.md")]
//!
//! # Cancel safety
//!
//! A generated handler's future awaits the function's future and nothing else (after
//! converting the arguments), so it is exactly as cancel-safe as the function: dropping it
//! drops the function's future.

use proc_macro::TokenStream;

mod attrs;
mod debug_handler;
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

/// Checks a handler function piece by piece, so that the compiler reports a mistake at its
/// cause rather than as "the function is not a handler": each parameter after the input is
/// checked to be an extractor (`FromContext`) at its type, the future to be `Send` at the
/// function's name (with the compiler's note on the `.await` that holds a non-`Send`
/// value), and, given what the handler is for (`#[debug_handler(tool)]`, `prompt`,
/// `resource` or `completion`), the return type at the return type. An input that comes
/// after an extractor is named as such.
///
/// The function is left as written; the checks are never called and cost nothing at run
/// time. Remove the attribute once the handler compiles, or keep it.
#[proc_macro_attribute]
pub fn debug_handler(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug_handler::expand(attr.into(), item.into()).into()
}
