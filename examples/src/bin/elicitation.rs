//! `elicitation`: a tool that asks the user for input in the middle of a call.
//!
//! ```text
//! cargo build -p examples --bin elicitation
//! # then call `book_table` from a host that supports elicitation (it shows the form)
//! ```
//!
//! `book_table` asks for a name and a number of guests with `cx.elicit` and books only if
//! the user accepts. The handler is written once and works in both protocol eras:
//!
//! - up to 2025-11-25, `cx.elicit` sends `elicitation/create` to the client and awaits the
//!   answer while the call waits;
//! - on 2026-07-28 the first run ends with an `input_required` result carrying the form; the
//!   client answers and sends the call again, and the handler runs again from the start,
//!   this time getting the answer from `cx.elicit` at once.
//!
//! So the handler asks first and acts after (here: the booking), and passes the
//! "input required" error on with `?`. A client that did not declare elicitation gets a
//! failed call (legacy) or a -32021 error naming the capability (2026-07-28).

use mcp_server::types::{ElicitAction, ElicitRequestFormParams, ElicitValue};
use mcp_server::{Context, HandlerError, Server, Tool};
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct BookTable {
    /// The name of the restaurant to book a table at.
    restaurant: String,
}

async fn book_table(args: BookTable, cx: Context) -> Result<String, HandlerError> {
    // The form's schema: a flat object of strings, numbers, booleans and enums.
    let schema = serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name for the booking"},
            "guests": {"type": "integer", "minimum": 1, "maximum": 12},
        },
        "required": ["name", "guests"],
    }))?;
    let message = format!("Book a table at {}?", args.restaurant);
    let answer = cx
        .elicit(ElicitRequestFormParams::new(message, schema))
        .await?;

    // Only now, with the answer in hand, act.
    let content = answer.content.unwrap_or_default();
    match (answer.action, content.get("name"), content.get("guests")) {
        (ElicitAction::Accept, Some(ElicitValue::String(name)), Some(ElicitValue::Number(n))) => {
            Ok(format!(
                "Booked a table for {n} at {} under the name {name}.",
                args.restaurant
            ))
        }
        (ElicitAction::Accept, _, _) => Err(HandlerError::msg("the form was incomplete")),
        (ElicitAction::Decline | ElicitAction::Cancel, _, _) => Ok("No booking made.".to_owned()),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let server = Server::builder()
        .name("elicitation")
        .version("1.0.0")
        .tool(Tool::typed("book_table", book_table).description(
            "Books a table at a restaurant; asks the user for the name and the number of guests",
        ))
        .build();
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
