//! A stdio MCP-style server that answers `echo` with its params and anything else with
//! "method not found". Logs (set `RUST_LOG`) go to stderr; stdout carries only messages.
//!
//! Run with:
//!
//! ```sh
//! echo '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"hi":1}}' \
//!     | cargo run -p mcp-rs-transport-stdio --example echo
//! ```
//!
//! `MAX_LINE_SIZE` (bytes) sets the transport's line limit.

use mcp_jsonrpc::{Config, Connection, ErrorObject, Handler, Request, RequestContext};
use mcp_transport_stdio::StdioTransport;
use serde_json::value::RawValue;

struct Echo;

impl Handler for Echo {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        match &*request.method {
            "echo" => match request.params {
                Some(params) => Ok(params),
                None => mcp_jsonrpc::to_raw_value(&()),
            },
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let mut transport = StdioTransport::stdio()?;
    if let Ok(max) = std::env::var("MAX_LINE_SIZE") {
        transport = transport.with_max_line_size(max.parse()?);
    }
    let (_peer, connection) = Connection::new(transport, Echo, Config::default());
    // Returns when stdin closes.
    connection.run().await?;
    tracing::info!("stdin closed, bye");
    Ok(())
}
