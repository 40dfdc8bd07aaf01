//! The smallest stdio MCP server on our SDK: one `echo(text)` tool, `mcp-server` without
//! default features. `cargo xtask bench` counts its packages and times its cold build.

use mcp_server::types::JsonObject;
use mcp_server::{Server, Tool};
use mcp_transport_stdio::StdioTransport;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let echo = Tool::raw("echo", schema, |args: JsonObject| async move {
        args.get("text")
            .and_then(|t| t.as_str())
            .unwrap_or_default()
            .to_owned()
    })?;
    let server = Server::builder()
        .name("minimal-ours")
        .version("0.0.0")
        .tool(echo)
        .build();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let transport = StdioTransport::stdio()?;
            server.serve(transport).await?;
            Ok(())
        })
}
