//! [`StreamableHttpService`]: the routes, and access to the live sessions.

use std::io;
use std::sync::Arc;

use axum::Router;
use axum::routing::{any, get, post};
use tokio::net::{TcpListener, ToSocketAddrs};

use super::config::Config;
use super::handle::SessionHandle;
use super::runner::{ConnectionLimits, HttpServer};
use super::shared::{Factory, Shared};
use super::{handlers, legacy};

/// The Streamable HTTP server: an axum [`Router`] factory plus session bookkeeping. Cheap to
/// clone. See the [module docs](super).
#[derive(Debug, Clone)]
pub struct StreamableHttpService {
    shared: Arc<Shared>,
}

impl StreamableHttpService {
    pub(crate) fn from_parts(config: Config, factory: Factory) -> Self {
        StreamableHttpService {
            shared: Arc::new(Shared {
                config: Arc::new(config),
                registry: Arc::default(),
                factory,
                forward_client: std::sync::OnceLock::new(),
                takeovers: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The routes: the MCP endpoint, and the legacy endpoints if enabled. Merge it into an
    /// app, nest it, or serve it as a tower `Service`.
    pub fn router(&self) -> Router {
        let cfg = &self.shared.config;
        let mut router = Router::new().route(&cfg.path, any(handlers::endpoint));
        if let Some((sse_path, post_path)) = &cfg.legacy {
            router = router
                .route(sse_path, get(legacy::legacy_sse))
                .route(post_path, post(legacy::legacy_post));
        }
        router.with_state(self.shared.clone())
    }

    /// The handle of a live session, by id.
    pub fn session(&self, id: &str) -> Option<SessionHandle> {
        self.shared
            .registry
            .get(id)
            .map(|session| SessionHandle { session })
    }

    /// How many sessions (stateful and legacy) are alive.
    pub fn session_count(&self) -> usize {
        self.shared.registry.len()
    }

    /// Binds `addr` and returns a runner for this service.
    pub async fn bind(self, addr: impl ToSocketAddrs) -> io::Result<HttpServer> {
        Ok(self.listener(TcpListener::bind(addr).await?))
    }

    /// A runner for this service on a listener already bound (to learn the port before
    /// building what goes in front, say).
    pub fn listener(self, listener: TcpListener) -> HttpServer {
        let limits = ConnectionLimits::of(&self.shared.config);
        HttpServer::new(listener, self.router(), limits)
    }

    /// Binds `127.0.0.1:port` (0 for any free port) and returns a runner for this service.
    pub async fn bind_localhost(self, port: u16) -> io::Result<HttpServer> {
        self.bind((std::net::Ipv4Addr::LOCALHOST, port)).await
    }
}
