//! `test-in-memory`: how to test your own server, with no process and no network.
//!
//! ```text
//! cargo run -p examples --bin test-in-memory     # runs the checks; exits 1 if one fails
//! cargo test -p examples --bin test-in-memory    # the same checks as #[tokio::test]s
//! ```
//!
//! `mcp_jsonrpc::memory::pair` gives two connected in-memory transports: the server serves
//! one end, `mcp_client::Client` connects to the other. The whole protocol runs (the
//! opening exchange, JSON encoding, argument validation), so this is the pattern to copy into
//! your own tests: build the server as in `main`, then call it through a real client, in
//! each protocol era your users' hosts speak.

use anyhow::ensure;
use mcp_client::types::CallToolResult;
use mcp_client::{Client, EraChoice, ErrorCode};
use mcp_server::{HandlerError, Json, Server, Tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---- the server under test (in a real project: your crate's `fn server() -> Server`) ----

#[derive(Deserialize, JsonSchema)]
struct Divide {
    /// The number to divide.
    a: f64,
    /// The number to divide by; not 0.
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Quotient {
    /// `a` divided by `b`.
    quotient: f64,
}

fn server() -> Server {
    let divide = |args: Divide| async move {
        if args.b == 0.0 {
            return Err(HandlerError::msg("division by zero"));
        }
        let quotient = args.a / args.b;
        Ok(Json(Quotient { quotient }))
    };
    Server::builder()
        .name("calculator")
        .version("1.0.0")
        .tool(Tool::typed("divide", divide).description("Divides a by b"))
        .build()
}

// ---- the checks --------------------------------------------------------------------------

/// A client connected to a fresh [`server`] in `era`, over the in-memory pair.
async fn connect(era: EraChoice) -> anyhow::Result<Client> {
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    tokio::spawn(async move { server().serve(server_end).await });
    let (client, connection) = Client::builder().era(era).connect(client_end).await?;
    tokio::spawn(connection);
    Ok(client)
}

/// Calls `divide` with `arguments`.
async fn divide(client: &Client, arguments: Value) -> mcp_client::Result<CallToolResult> {
    client.call_tool(("divide", arguments)).await
}

async fn check(era: EraChoice) -> anyhow::Result<()> {
    let client = connect(era).await?;
    let tools = client.list_tools(None).await?.tools;
    ensure!(tools.len() == 1 && tools[0].name == "divide", "{tools:?}");

    // The structured result, read as JSON (or as a type of your own that derives Deserialize).
    let quotient: Value = client
        .call_tool_structured(("divide", json!({"a": 7, "b": 2})))
        .await?;
    ensure!(quotient == json!({"quotient": 3.5}), "{quotient}");

    // A handler's error is a result with `isError`, for the model to read.
    let result = divide(&client, json!({"a": 1, "b": 0})).await?;
    let text = result.content.first().and_then(|c| c.as_text());
    ensure!(
        result.is_error() && text == Some("division by zero"),
        "{result:?}"
    );

    // Arguments that do not match the schema never reach the handler: -32602.
    let refused = divide(&client, json!({"a": "seven"})).await;
    let code = refused
        .as_ref()
        .err()
        .and_then(|e| e.as_rpc())
        .map(|e| e.code);
    ensure!(code == Some(ErrorCode::INVALID_PARAMS), "{refused:?}");

    client.close();
    Ok(())
}

#[allow(clippy::print_stdout)]
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let eras = [
        ("2025-11-25", EraChoice::Legacy),
        ("2026-07-28", EraChoice::Modern),
    ];
    for (name, era) in eras {
        check(era).await?;
        println!("ok: divide over {name}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn divides_on_the_handshake_era() -> anyhow::Result<()> {
        check(EraChoice::Legacy).await
    }

    #[tokio::test]
    async fn divides_on_2026_07_28() -> anyhow::Result<()> {
        check(EraChoice::Modern).await
    }
}
