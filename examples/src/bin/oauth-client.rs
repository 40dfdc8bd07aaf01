//! `oauth-client`: a client of an OAuth-protected MCP server; the HTTP transport authorizes
//! itself with `mcp_auth::OAuthClient`.
//!
//! ```text
//! cargo run -p examples --bin oauth-client -- http://127.0.0.1:3000/mcp
//! OAUTH_CLIENT_ID=my-service OAUTH_CLIENT_SECRET=... \
//!     cargo run -p examples --bin oauth-client -- http://127.0.0.1:3000/mcp
//! ```
//!
//! On the server's first 401 the OAuth client reads the protected resource metadata, finds
//! the authorization server, registers itself (dynamic client registration) and runs the
//! authorization code flow with PKCE: it prints the authorization URL on stderr for you to
//! open in a browser, and waits on a loopback redirect URI (`http://127.0.0.1:<port>/callback`)
//! for the browser to come back. Then the request is sent again with the token, and every
//! later request carries it (refreshed when it expires).
//!
//! With `OAUTH_CLIENT_ID` and `OAUTH_CLIENT_SECRET` set, it uses that pre-registered client
//! and the client credentials grant instead (a service acting for itself, no browser).
//!
//! It then calls the server's `whoami` tool and prints the answer on stdout (see
//! `oauth-server`).

use anyhow::Context as _;
use mcp_auth::{LoopbackUserAgent, OAuthClient};
use mcp_client::Client;
use mcp_transport_http::client::StreamableHttpClientTransport;

#[allow(clippy::print_stdout)] // Printing the answer is this program's job.
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let url = std::env::args()
        .nth(1)
        .context("usage: oauth-client <server url>")?;

    let oauth = OAuthClient::builder(&url).client_name("oauth-client example");
    let oauth = match (
        std::env::var("OAUTH_CLIENT_ID"),
        std::env::var("OAUTH_CLIENT_SECRET"),
    ) {
        (Ok(id), Ok(secret)) => oauth
            .client_id(id)
            .client_secret(secret)
            .client_credentials(),
        // Listens on a free loopback port for the browser's redirect.
        _ => oauth.user_agent(LoopbackUserAgent::bind(0)?),
    };
    let oauth = oauth.build()?;

    // The OAuth client is the transport's `AuthProvider`: this is the whole integration.
    let transport = StreamableHttpClientTransport::builder(url.as_str())
        .auth(oauth)
        .build()?;
    let (client, connection) = Client::builder()
        .connect(transport)
        .await
        .with_context(|| format!("cannot connect to {url}"))?;
    let connection = tokio::spawn(connection);

    let result = client.call_tool("whoami").await?;
    let text = result.content.first().and_then(|c| c.as_text());
    println!("whoami: {}", text.unwrap_or_default());

    client.close();
    connection.await??;
    Ok(())
}
