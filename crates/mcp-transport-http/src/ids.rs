//! MCP request ids and progress tokens (`mcp-types`) as the engine's [`Id`]: the same JSON
//! value (a string or an integer), typed by two sibling crates.

use mcp_jsonrpc::Id;

/// An MCP request id as the engine's id.
pub(crate) fn wire_id(id: mcp_types::RequestId) -> Id {
    match id {
        mcp_types::RequestId::Number(n) => Id::Number(n),
        mcp_types::RequestId::String(s) => Id::String(s.into()),
    }
}

/// An MCP progress token as the engine's.
#[cfg(feature = "server")]
pub(crate) fn wire_token(token: mcp_types::ProgressToken) -> Id {
    match token {
        mcp_types::ProgressToken::Number(n) => Id::Number(n),
        mcp_types::ProgressToken::String(s) => Id::String(s.into()),
    }
}
