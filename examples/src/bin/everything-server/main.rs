//! `everything-server`: the MCP conformance suite's server fixture, built on `mcp-server`.
//!
//! Run with:
//!
//! ```text
//! cargo run -p examples --bin everything-server                        # MCP on stdin/stdout
//! cargo run -p examples --bin everything-server -- --http 3000          # http://127.0.0.1:3000/mcp
//! cargo run -p examples --bin everything-server -- --http 127.0.0.1:0   # any free port
//! cargo run -p examples --bin everything-server -- --skills --http 3000 # with the Skills fixture
//! RUST_LOG=debug cargo run -p examples --bin everything-server
//! ```
//!
//! It offers exactly what the conformance suite's reference "everything server" offers
//! (`examples/servers/typescript/everything-server.ts` in `modelcontextprotocol/conformance`):
//! the `test_*` tools (text, image, audio, embedded resource, mixed content, logging,
//! progress, errors, sampling, elicitation with SEP-1034 defaults and SEP-1330 enums), a
//! JSON Schema 2020-12 tool, the `test://` resources and template, four prompts, and
//! completion. Logs go to stderr (stdout carries the protocol); `RUST_LOG` filters them.
//!
//! `--http <addr>` serves Streamable HTTP at `/mcp` instead (stateful sessions, resumable SSE
//! streams, `Host`/`Origin` limited to localhost), plus the legacy HTTP+SSE endpoints `/sse`
//! and `/messages`. A bare port binds 127.0.0.1. Once bound it logs
//! `listening on http://<addr>/mcp` to stderr (port 0 picks a free port).
//! `--max-connections <n>` replaces the HTTP server's connection limit (default 512; the soak
//! of `cargo xtask soak` holds 1,000 sessions, each with its GET stream open).
//!
//! `--auth-issuer <url>` (with `--http`) protects every HTTP endpoint with OAuth bearer tokens
//! (`mcp-auth`'s `BearerAuthLayer`): JWT access tokens signed by that issuer, whose audience is
//! this server's own `http://<addr>/mcp`, with the scopes of `--auth-scopes` (space-separated,
//! default `mcp:read`). It serves the RFC 9728 protected resource metadata (without a token) at
//! `/.well-known/oauth-protected-resource/mcp`, and adds a `whoami` tool answering with the
//! caller's principal as JSON. Token expiry is checked without leeway (the authorization server
//! runs on the same machine in the tests using it). Each session belongs to the principal (token
//! issuer and subject) that opened it: another principal naming it gets 404. Without the flag
//! nothing changes.
//!
//! `--redis <url>` (with `--http`) makes the instance one of several serving one deployment
//! behind a load balancer, with their shared state in Redis (`mcp-redis`): SSE events, the
//! session directory (a request for a session another instance holds is forwarded there, and
//! the session is taken over when that instance is gone), session snapshots, tasks, the event
//! bus behind `list_changed`, resource updates and `subscriptions/listen`, and the key that
//! seals 2026-07-28 `requestState`s. The instance's URL in the directory is
//! `http://<bound addr>/mcp`.
//!
//! `--skills` serves Agent Skills with the Skills extension (`io.modelcontextprotocol/skills`,
//! `skills.rs`), declared from 2025-11-25 on: the fixture of the suite's `sep-2640-*` server
//! scenarios. Their files are resources beyond the reference fixture's, hence the flag.
//!
//! `--tasks` turns tasks on (`mcp_server::tasks`, run on tokio) and adds the task tools of
//! `tasks.rs`: the fixture of the suite's `tasks-*` scenarios and the tools the TypeScript
//! SDK's task client drives. Without these two flags the server is exactly the suite's fixture.

mod modern;
mod prompts;
mod resources;
mod skills;
mod tasks;
mod tools;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use mcp_auth::{BearerAuthLayer, DpopPolicy, JwtValidator, ResourceServer};
use mcp_server::tasks::Tasks;
use mcp_server::{CacheHints, Cacheable, ServeOptions, Server, SessionStore};
use mcp_transport_http::server::{SessionKind, StreamableHttpService};
use mcp_transport_stdio::StdioTransport;
use tracing_subscriber::EnvFilter;

/// A 1×1 red PNG, base64-encoded (the fixture's `TEST_IMAGE_BASE64`).
const TEST_IMAGE_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file, base64-encoded (the fixture's `TEST_AUDIO_BASE64`).
const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Where to serve.
enum Listen {
    Stdio,
    Http(String, Option<Auth>),
}

/// `--auth-issuer` and `--auth-scopes`.
struct Auth {
    issuer: String,
    scopes: Vec<String>,
}

const USAGE: &str = "usage: everything-server [--tasks] [--skills] [--http <addr> [--max-connections <n>] \
    [--auth-issuer <url> [--auth-scopes <scopes>]] [--redis <url>]]";

/// What the command line asks for: where to serve, and whether with tasks and skills.
struct Options {
    listen: Listen,
    tasks: bool,
    skills: bool,
    /// `--max-connections`: the HTTP server's connection limit instead of its default.
    max_connections: Option<usize>,
    /// `--redis`: the Redis holding the deployment's shared state.
    redis: Option<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> anyhow::Result<Options> {
    let mut http = None;
    let mut issuer = None;
    let mut scopes = None;
    let mut tasks = false;
    let mut skills = false;
    let mut max_connections = None;
    let mut redis = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tasks" => tasks = true,
            "--skills" => skills = true,
            "--redis" => redis = Some(args.next().context("--redis needs a URL")?),
            "--max-connections" => {
                let n = args.next().context("--max-connections needs a number")?;
                max_connections = Some(n.parse().context("--max-connections needs a number")?);
            }
            "--http" => {
                let addr = args
                    .next()
                    .context("--http needs an address, e.g. 127.0.0.1:3000")?;
                http = Some(addr);
            }
            "--auth-issuer" => {
                issuer = Some(args.next().context("--auth-issuer needs a URL")?);
            }
            "--auth-scopes" => {
                let list = args.next().context("--auth-scopes needs scopes")?;
                scopes = Some(list.split_whitespace().map(str::to_owned).collect());
            }
            other => bail!("unknown argument {other:?}; {USAGE}"),
        }
    }
    let auth = match (issuer, scopes) {
        (Some(issuer), scopes) => Some(Auth {
            issuer,
            scopes: scopes.unwrap_or_else(|| vec!["mcp:read".to_owned()]),
        }),
        (None, Some(_)) => bail!("--auth-scopes needs --auth-issuer; {USAGE}"),
        (None, None) => None,
    };
    let listen = match (http, auth) {
        (Some(addr), auth) => Listen::Http(addr, auth),
        (None, Some(_)) => bail!("--auth-issuer needs --http; {USAGE}"),
        (None, None) => Listen::Stdio,
    };
    if (max_connections.is_some() || redis.is_some()) && matches!(listen, Listen::Stdio) {
        bail!("--max-connections and --redis need --http; {USAGE}");
    }
    Ok(Options {
        listen,
        tasks,
        skills,
        max_connections,
        redis,
    })
}

/// The server with every tool, resource, template and prompt of the fixture, `whoami` if it
/// is protected, the task tools (run on tokio) with `tasks`, the skills of `skills.rs` with
/// `skills`; with `shared`, its event bus, task store and `requestState` key are the
/// deployment's.
fn server(
    protected: bool,
    with_tasks: bool,
    with_skills: bool,
    shared: Option<&Shared>,
) -> anyhow::Result<Server> {
    // The reference fixture's cache hints: lists shared by everyone for five minutes,
    // resource reads private.
    let five_minutes = Duration::from_secs(300);
    let mut builder = Server::builder()
        .name("mcp-conformance-test-server")
        .version("1.0.0")
        .cache_hints(Cacheable::Tools, CacheHints::public(five_minutes))
        .cache_hints(Cacheable::Prompts, CacheHints::public(five_minutes))
        .cache_hints(Cacheable::Resources, CacheHints::public(five_minutes))
        .cache_hints(
            Cacheable::ResourceTemplates,
            CacheHints::public(five_minutes),
        )
        .cache_hints(Cacheable::ResourceReads, CacheHints::private(five_minutes));
    for tool in tools::all()?.into_iter().chain(modern::tools()?) {
        builder = builder.tool(tool);
    }
    if protected {
        builder = builder.tool(tools::whoami());
    }
    if let Some(shared) = shared {
        builder = builder
            .event_bus(shared.redis.event_bus())
            .request_state_key(shared.request_state_key.clone());
    }
    if with_tasks {
        let mut tasks = Tasks::new(|task| {
            tokio::spawn(task);
        });
        if let Some(shared) = shared {
            tasks = tasks.store(shared.redis.task_store());
        }
        builder = builder.tasks(tasks);
        for tool in tasks::tools()? {
            builder = builder.tool(tool);
        }
    }
    for resource in resources::resources() {
        builder = builder.resource(resource);
    }
    builder = builder.resource_template(resources::template()?);
    if with_skills {
        builder = builder.skills(skills::skills()?);
    }
    for prompt in prompts::all() {
        builder = builder.prompt(prompt);
    }
    builder = builder.prompt(modern::prompt());
    // Like the reference fixture, the 2026-07-28 tools and prompt are offered on that revision
    // only: legacy sessions see the 2025-11-25 fixture, unchanged.
    builder = builder
        .tool_filter(|tool, cx| modern::offered(tool.name(), cx))
        .prompt_filter(|prompt, cx| modern::offered(prompt.name(), cx));
    Ok(builder.build())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let Options {
        listen,
        tasks,
        skills,
        max_connections,
        redis,
    } = parse_args(std::env::args().skip(1))?;
    let (addr, auth) = match listen {
        Listen::Stdio => {
            tracing::info!("serving MCP on stdio");
            server(false, tasks, skills, None)?
                .serve(StdioTransport::stdio()?)
                .await?;
            tracing::info!("stdin closed; exiting");
            return Ok(());
        }
        Listen::Http(addr, auth) => (addr, auth),
    };
    let shared = match &redis {
        Some(url) => Some(Shared::connect(url).await?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(socket_addr(&addr))
        .await
        .with_context(|| format!("cannot bind {addr}"))?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let protected = auth.is_some();
    let server = server(protected, tasks, skills, shared.as_ref())?;
    let service = http_service(server, max_connections, shared.as_ref(), &url);
    match auth {
        None => serve_http(service, listener, &url).await,
        Some(auth) => serve_protected(service, listener, &url, &auth).await,
    }
}

/// What the instances of one deployment share (`--redis`).
struct Shared {
    redis: mcp_redis::Redis,
    /// The key sealing 2026-07-28 `requestState`s, the same on every instance.
    request_state_key: Vec<u8>,
}

impl Shared {
    /// Connects to Redis (its driver runs on a task of its own) and reads the deployment's
    /// `requestState` key, made by the first instance to ask.
    async fn connect(url: &str) -> anyhow::Result<Shared> {
        let (redis, driver) = mcp_redis::Redis::connect(url, mcp_redis::RedisOptions::default())
            .await
            .with_context(|| format!("cannot connect to Redis at {url}"))?;
        tokio::spawn(driver);
        let request_state_key = redis
            .shared_secret("request-state-key")
            .await
            .context("cannot read the deployment's requestState key from Redis")?;
        tracing::info!(
            instance = redis.instance_id(),
            "sharing state through Redis at {url}"
        );
        Ok(Shared {
            redis,
            request_state_key,
        })
    }
}

/// The Streamable HTTP service (and legacy HTTP+SSE endpoints) running `server`;
/// `max_connections` replaces the default connection limit. Behind the bearer layer, each
/// session belongs to the token's principal (issuer and subject) that opened it, and answers
/// no other: the layer inserts its `mcp_transport_http::PrincipalId`, which binds sessions
/// by default.
fn http_service(
    server: Server,
    max_connections: Option<usize>,
    shared: Option<&Shared>,
    url: &str,
) -> StreamableHttpService {
    let mut builder = StreamableHttpService::builder()
        .path("/mcp")
        .legacy_sse("/sse", "/messages");
    if let Some(max) = max_connections {
        builder = builder.max_connections(max);
    }
    let mut sessions: Option<Arc<dyn SessionStore>> = None;
    if let Some(shared) = shared {
        builder = builder
            .event_store(Some(Arc::new(shared.redis.event_store())))
            .directory(Arc::new(shared.redis.session_directory()), url);
        sessions = Some(Arc::new(shared.redis.session_store()));
    }
    builder.build(move |transport, info| {
        let server = server.clone();
        let mut options = ServeOptions::new();
        if let (Some(store), Some(id), SessionKind::Stateful) =
            (&sessions, &info.session_id, info.kind)
        {
            options = options.session_store(store.clone(), &**id);
        }
        async move {
            tracing::debug!(
                session = ?info.session_id,
                kind = ?info.kind,
                taken_over = info.taken_over,
                "session opened"
            );
            if let Err(e) = server.serve_with(transport, options).await {
                tracing::warn!(session = ?info.session_id, "session failed: {e:#}");
            }
        }
    })
}

/// `addr`, with a bare port meaning 127.0.0.1.
fn socket_addr(addr: &str) -> String {
    match addr.parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_) => addr.to_owned(),
    }
}

/// Serves `service` over Streamable HTTP (and legacy HTTP+SSE) on `listener` (its URL
/// `url`) until killed.
async fn serve_http(
    service: StreamableHttpService,
    listener: tokio::net::TcpListener,
    url: &str,
) -> anyhow::Result<()> {
    // Printed whatever `RUST_LOG` says: tests and scripts read the port from it.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("listening on {url}");
    }
    service.listener(listener).run().await?;
    Ok(())
}

/// Like [`serve_http`], behind `BearerAuthLayer`: the resource is this server's own
/// `http://<bound addr>/mcp`, so the port is known before the layer is built.
async fn serve_protected(
    service: StreamableHttpService,
    listener: tokio::net::TcpListener,
    url: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    let resource = ResourceServer::builder(url)
        .authorization_server(&auth.issuer)
        .scopes_supported(["mcp:read", "mcp:write"])
        .required_scopes(auth.scopes.iter().cloned())
        .resource_name("everything-server")
        // Bearer tokens, and DPoP-bound ones with their proofs.
        .dpop(DpopPolicy::Accepted)
        .build()?;
    let validator = JwtValidator::builder(&auth.issuer, resource.resource())
        .leeway(Duration::ZERO)
        .build()?;
    // HttpServer, for its connection limit and read timeouts.
    let http = service.listener(listener).map_router(|router| {
        router
            .layer(BearerAuthLayer::new(&resource, validator))
            // The metadata stays reachable without a token.
            .merge(resource.metadata_router())
    });
    #[allow(clippy::print_stderr)]
    {
        eprintln!("listening on {url}");
    }
    http.run().await?;
    Ok(())
}
