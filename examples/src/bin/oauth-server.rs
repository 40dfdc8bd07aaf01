//! `oauth-server`: an MCP server over HTTP that only answers requests with a valid OAuth
//! access token.
//!
//! ```text
//! cargo run -p examples --bin oauth-server -- --issuer https://auth.example.com [--port 3000]
//! cargo run -p examples --bin oauth-client -- http://127.0.0.1:3000/mcp
//! ```
//!
//! `mcp_auth::BearerAuthLayer`, a tower layer in front of the Streamable HTTP endpoint,
//! checks each request's token: a JWT signed by the issuer (keys from its JWKS), whose
//! audience is this server's URL, with the scope `mcp:read`. Without one the answer is 401
//! with a `WWW-Authenticate` challenge pointing at the protected resource metadata
//! (RFC 9728, served without a token), from which a client finds the authorization server.
//! Handlers read the caller from the request: the tool `whoami` answers with it. Each session
//! belongs to the principal that opened it (the layer inserts its `PrincipalId`, with
//! mcp-auth's `transport-http` feature): a request of another principal naming it gets 404.

use anyhow::Context as _;
use mcp_auth::{BearerAuthLayer, JwtValidator, Principal, ResourceServer};
use mcp_server::{Context, HandlerError, Server, Tool};
use mcp_transport_http::server::StreamableHttpService;

/// The principal the auth layer attached to the HTTP request this call came in.
async fn whoami(cx: Context) -> Result<String, HandlerError> {
    let principal = cx
        .extensions()
        .get::<http::Extensions>()
        .and_then(|http| http.get::<Principal>())
        .ok_or_else(|| HandlerError::msg("no authenticated caller"))?;
    let scopes: Vec<&str> = principal.scopes.iter().collect();
    Ok(format!(
        "subject={} client={} scopes={}",
        principal.subject.as_deref().unwrap_or("-"),
        principal.client_id.as_deref().unwrap_or("-"),
        scopes.join(" ")
    ))
}

/// `--issuer <url>` (required) and `--port <n>` (default 3000; 0 for any).
fn parse_args() -> anyhow::Result<(String, u16)> {
    let (mut issuer, mut port) = (None, 3000);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--issuer", Some(url)) => issuer = Some(url),
            ("--port", Some(n)) => port = n.parse().context("--port takes a number")?,
            _ => anyhow::bail!("usage: oauth-server --issuer <url> [--port <port>]"),
        }
    }
    Ok((issuer.context("--issuer <url> is required")?, port))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (issuer, port) = parse_args()?;
    let server = Server::builder()
        .name("oauth-server")
        .version("1.0.0")
        .tool(Tool::new("whoami", whoami).description("Tells who is calling"))
        .build();
    let service = StreamableHttpService::builder().build(server.session_factory());
    // The URL is the resource tokens are issued for, so bind first to know the port.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let resource = ResourceServer::builder(&url)
        .authorization_server(&issuer)
        .scopes_supported(["mcp:read", "mcp:write"])
        .required_scopes(["mcp:read"])
        .resource_name("oauth-server")
        .build()?;
    let validator = JwtValidator::builder(&issuer, resource.resource()).build()?;
    let http = service.listener(listener).map_router(|router| {
        router
            .layer(BearerAuthLayer::new(&resource, validator))
            // The metadata stays reachable without a token.
            .merge(resource.metadata_router())
    });
    #[allow(clippy::print_stderr)] // Scripts and tests read the URL from this line.
    {
        eprintln!("listening on {url}");
    }
    http.run().await?;
    Ok(())
}
