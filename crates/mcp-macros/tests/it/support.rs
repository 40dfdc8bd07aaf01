//! A server from macro-made items and a client connected to it.

use mcp_client::Client;
use mcp_server::{Server, ServerBuilder};
use serde_json::Value;

/// Serves `builder`'s server over the memory pair and connects a client to it.
pub(crate) async fn connect(builder: ServerBuilder) -> anyhow::Result<Client> {
    let server: Server = builder.name("macros").version("1.0.0").build();
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    tokio::spawn(async move { server.serve(server_end).await });
    let (client, connection) = Client::builder().connect(client_end).await?;
    tokio::spawn(connection);
    Ok(client)
}

/// `value` as JSON, for comparing with `serde_json::json!`.
pub(crate) fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("protocol types serialize")
}
