//! The HTTP side of `mcp proxy --listen`: `mcp-transport-http`'s `StreamableHttpService`
//! with the server options of [`HttpArgs`], optionally behind `mcp-auth`'s
//! `BearerAuthLayer` (`--auth-issuer`) and sharing state through Redis (`--redis`).

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use mcp_auth::{BearerAuthLayer, DpopPolicy, JwtValidator, ResourceServer};
use mcp_server::SessionStore;
use mcp_transport_http::server::{SessionKind, StreamableHttpService};

use super::child::ChildCommand;
use super::modern::instances::Instances;
use super::modern::{Backend, ModernArgs, serve_stateless};
use super::parse_duration;
use super::session::Sessions;

/// The HTTP server's options.
#[derive(Debug, Clone, clap::Args)]
pub struct HttpArgs {
    /// The MCP endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/mcp")]
    pub path: String,

    /// A host accepted in the `Host` header (repeatable; `name`, `name:port`, `[::1]`).
    /// Default: localhost, 127.0.0.1 and `[::1]` on any port (DNS rebinding protection).
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,

    /// Accept any `Host` header (behind a proxy that checks it, or with authentication).
    #[arg(long, conflicts_with = "allowed_hosts")]
    pub allow_any_host: bool,

    /// An origin accepted in the `Origin` header, when one is sent (repeatable). Default:
    /// localhost, 127.0.0.1 and `[::1]`.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,

    /// Accept any `Origin` header.
    #[arg(long, conflicts_with = "allowed_origins")]
    pub allow_any_origin: bool,

    /// The most handshake-era sessions at once (each runs a process of the server).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_sessions: usize,

    /// The most handshake-era sessions one client (principal, else IP address) holds.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_sessions_per_client: usize,

    /// How long a session may stay idle before it (and its process) ends; `0` for never.
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_size: usize,

    /// The most HTTP connections open at once.
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_connections: usize,

    /// Also serve the 2024-11-05 HTTP+SSE transport (`GET /sse`, `POST /messages`).
    #[arg(long)]
    pub legacy_sse: bool,

    /// Require OAuth bearer tokens issued by this authorization server (JWTs checked against
    /// its JWKS). The protected resource metadata is served at
    /// `/.well-known/oauth-protected-resource<PATH>`.
    #[arg(long, value_name = "URL")]
    pub auth_issuer: Option<String>,

    /// The audience tokens must carry. Default: the resource URL.
    #[arg(long, value_name = "AUDIENCE", requires = "auth_issuer")]
    pub auth_audience: Option<String>,

    /// A scope every request's token must have (repeatable).
    #[arg(long = "auth-scope", value_name = "SCOPE", requires = "auth_issuer")]
    pub auth_scopes: Vec<String>,

    /// The endpoint's public URL: the OAuth resource, and this instance's address for the
    /// others with `--redis`. Default: `http://<bound address><PATH>`.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,

    /// Share the load with other `mcp proxy` instances through this Redis: SSE events, the
    /// session directory, session snapshots (a session whose instance is gone is taken over
    /// with a new process), and the key of bridged `requestState`s (a retry reaching another
    /// instance is forwarded to the one running its call).
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
}

/// `addr`, with a bare `PORT` or `:PORT` meaning 127.0.0.1.
fn socket_addr(addr: &str) -> String {
    let port = addr.strip_prefix(':').unwrap_or(addr);
    match port.parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_) => addr.to_owned(),
    }
}

/// Serves `command` over Streamable HTTP on `listen` until interrupted.
pub(crate) async fn serve(
    listen: &str,
    args: &HttpArgs,
    modern: &ModernArgs,
    command: ChildCommand,
) -> anyhow::Result<()> {
    if !args.path.starts_with('/') {
        bail!("--path must start with `/`, got {:?}", args.path);
    }
    let listener = tokio::net::TcpListener::bind(socket_addr(listen))
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    let url = format!("http://{}{}", listener.local_addr()?, args.path);
    let public = args.public_url.clone().unwrap_or_else(|| url.clone());

    let mut builder = StreamableHttpService::builder()
        .path(&args.path)
        .max_sessions(args.max_sessions)
        .max_sessions_per_client(args.max_sessions_per_client)
        .idle_timeout((!args.idle_timeout.is_zero()).then_some(args.idle_timeout))
        .max_body_size(args.max_body_size)
        .max_connections(args.max_connections);
    if args.allow_any_host {
        builder = builder.allow_any_host();
    } else if !args.allowed_hosts.is_empty() {
        builder = builder.allowed_hosts(args.allowed_hosts.iter().cloned());
    }
    if args.allow_any_origin {
        builder = builder.allow_any_origin();
    } else if !args.allowed_origins.is_empty() {
        builder = builder.allowed_origins(args.allowed_origins.iter().cloned());
    }
    if args.legacy_sse {
        builder = builder.legacy_sse("/sse", "/messages");
    }
    let mut store: Option<Arc<dyn SessionStore>> = None;
    let mut instances = None;
    if let Some(redis_url) = &args.redis {
        let (redis, driver) =
            mcp_redis::Redis::connect(redis_url, mcp_redis::RedisOptions::default())
                .await
                .with_context(|| format!("cannot connect to Redis at {redis_url}"))?;
        tokio::spawn(driver);
        let key = redis
            .shared_secret("mcp-proxy-request-state")
            .await
            .context("cannot read the deployment's requestState key from Redis")?;
        instances = Some(Instances::new(public.clone(), key));
        builder = builder
            .event_store(Some(Arc::new(redis.event_store())))
            .directory(Arc::new(redis.session_directory()), public.clone());
        store = Some(Arc::new(redis.session_store()));
    }
    let backend = Arc::new(Backend::start(command.clone(), modern, instances).await?);
    let sessions = Sessions { command, store };
    let for_sessions = backend.clone();
    let service = builder.build(move |transport, info| {
        let sessions = sessions.clone();
        let backend = for_sessions.clone();
        async move {
            match info.kind {
                SessionKind::Stateless => serve_stateless(transport, backend).await,
                _ => sessions.serve(transport, info).await,
            }
        }
    });
    let server = service.listener(listener);
    let server = match &args.auth_issuer {
        None => server,
        Some(issuer) => {
            let audience = args.auth_audience.clone().unwrap_or_else(|| public.clone());
            let mut resource = ResourceServer::builder(&public)
                .authorization_server(issuer)
                .resource_name("mcp proxy")
                .dpop(DpopPolicy::Accepted);
            if !args.auth_scopes.is_empty() {
                resource = resource
                    .scopes_supported(args.auth_scopes.iter().cloned())
                    .required_scopes(args.auth_scopes.iter().cloned());
            }
            let resource = resource.build()?;
            let validator = JwtValidator::builder(issuer, audience).build()?;
            server.map_router(|router| {
                router
                    .layer(BearerAuthLayer::new(&resource, validator))
                    .merge(resource.metadata_router())
            })
        }
    };
    announce(&url, backend.describe());
    let outcome = server.run().await;
    backend.stop().await;
    outcome.context("the HTTP server failed")
}

/// `listening on <url>` on stderr, once bound (tests and scripts read the port from it).
#[allow(clippy::print_stderr)]
fn announce(url: &str, backend: &str) {
    eprintln!("mcp proxy: {backend}");
    eprintln!("listening on {url}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_ports_bind_localhost() {
        assert_eq!(socket_addr("3000"), "127.0.0.1:3000");
        assert_eq!(socket_addr(":0"), "127.0.0.1:0");
        assert_eq!(socket_addr("0.0.0.0:80"), "0.0.0.0:80");
        assert_eq!(socket_addr("localhost:80"), "localhost:80");
    }
}
