//! Our client against a server written with `mcp-server`'s handler API, over the in-memory
//! transport pair: application state, extractors, and handler errors that keep their codes
//! all the way to the client's typed error.

use mcp_client::{Client, EraChoice, ErrorCode};
use mcp_server::{ResourceTemplate, Server, State, Tool, UriParams};
use mcp_types::CallToolRequestParams;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone)]
struct Library {
    books: &'static [&'static str],
}

#[derive(Deserialize, JsonSchema)]
struct Find {
    title: String,
}

async fn find(args: Find, State(lib): State<Library>) -> String {
    match lib.books.iter().find(|b| b.contains(args.title.as_str())) {
        Some(book) => (*book).to_owned(),
        None => format!("no book matches {:?}", args.title),
    }
}

async fn book(p: UriParams, State(lib): State<Library>) -> anyhow::Result<String> {
    let index: usize = p.get("index").unwrap_or_default().parse()?;
    match lib.books.get(index) {
        Some(book) => Ok((*book).to_owned()),
        None => Err(
            anyhow::Error::from(mcp_server::Error::resource_not_found(p.uri()))
                .context(format!("the library has {} books", lib.books.len())),
        ),
    }
}

fn server() -> anyhow::Result<Server> {
    Ok(Server::builder()
        .state(Library {
            books: &["Dune", "Solaris"],
        })
        .tool(Tool::typed("find", find))
        .resource_template(ResourceTemplate::new(
            "library://books/{index}",
            "book",
            book,
        )?)
        .build())
}

#[tokio::test]
async fn state_extractors_and_error_codes_reach_our_client() -> anyhow::Result<()> {
    // The same handlers in both eras; only the code of "not found" differs (-32002 in the
    // handshake era, -32602 on 2026-07-28), with the same data.
    for (era, not_found) in [
        (EraChoice::Legacy, ErrorCode::RESOURCE_NOT_FOUND),
        (EraChoice::Auto, ErrorCode::INVALID_PARAMS),
    ] {
        both_eras(era, not_found).await?;
    }
    Ok(())
}

async fn both_eras(era: EraChoice, not_found: ErrorCode) -> anyhow::Result<()> {
    let server = server()?;
    let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
    let serving = tokio::spawn(async move { server.serve(server_end).await });
    let (client, connection) = Client::builder().era(era).connect(client_end).await?;
    let connection = tokio::spawn(connection);

    let mut find = CallToolRequestParams::new("find");
    find.arguments = Some(serde_json::from_value(serde_json::json!({"title": "Sol"}))?);
    let found = client.call_tool(find).await?;
    assert_eq!(found.content[0].as_text(), Some("Solaris"));

    let read = client.read_resource("library://books/0").await?;
    assert_eq!(read.contents.len(), 1);

    let err = client.read_resource("library://books/9").await.unwrap_err();
    let rpc = err.as_rpc().expect("a json-rpc error");
    // One wire error type: the client's, mcp-types' and mcp-jsonrpc's are the same.
    assert_eq!(rpc.code, not_found);
    if era == EraChoice::Legacy {
        assert_eq!(rpc.code, mcp_types::ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(rpc.code, mcp_jsonrpc::ErrorCode::RESOURCE_NOT_FOUND);
    }
    assert_eq!(
        rpc.data,
        Some(serde_json::json!({"uri": "library://books/9"}))
    );

    // A parse error inside the handler is an internal error with its message.
    let err = client.read_resource("library://books/x").await.unwrap_err();
    let rpc = err.as_rpc().expect("a json-rpc error");
    assert_eq!(rpc.code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(rpc.message, "invalid digit found in string");

    client.close();
    connection.await??;
    serving.await??;
    Ok(())
}
