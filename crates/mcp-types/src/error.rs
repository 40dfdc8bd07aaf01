//! Wire errors: [`ErrorCode`] and [`ErrorObject`], shared with `mcp-jsonrpc` through the
//! `mcp-error` crate, so `mcp_types::ErrorObject` and `mcp_jsonrpc::ErrorObject` are one type.

pub use mcp_error::{ErrorCode, ErrorObject};
