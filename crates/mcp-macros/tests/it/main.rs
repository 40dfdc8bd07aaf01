//! mcp-macros: tools, prompts and resources made by the macros, served by an `mcp-server`
//! and called by an `mcp-client` over the in-memory transport; and the compile errors.

mod debug_handler;
mod prompts;
mod resources;
mod support;
mod tools;
mod ui;
