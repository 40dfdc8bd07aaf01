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
///
/// It is itself a tower `Service` of HTTP requests (the same as its [`router`](Self::router)),
/// so it goes wherever a service does: behind tower layers, into `hyper`, into another
/// framework.
///
/// ```
/// use mcp_transport_http::server::StreamableHttpService;
/// use tower::ServiceExt as _;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let service = StreamableHttpService::builder().build(|_transport, _info| async {});
/// let request = http::Request::get("/mcp")
///     .header("host", "localhost")
///     .header("accept", "text/event-stream")
///     .body(axum::body::Body::empty())
///     .unwrap();
/// let response = service.oneshot(request).await.unwrap();
/// // A GET without a session: 400, as the endpoint answers it.
/// assert_eq!(response.status(), http::StatusCode::BAD_REQUEST);
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct StreamableHttpService {
    shared: Arc<Shared>,
    router: Router,
}

impl StreamableHttpService {
    pub(crate) fn from_parts(config: Config, factory: Factory) -> Self {
        let shared = Arc::new(Shared {
            config: Arc::new(config),
            registry: Arc::default(),
            factory,
            forward_client: std::sync::OnceLock::new(),
            takeovers: tokio::sync::Mutex::new(()),
            holders: super::holders::Holders::default(),
            local_addr: std::sync::OnceLock::new(),
        });
        let cfg = &shared.config;
        let mut router = Router::new().route(&cfg.path, any(handlers::endpoint));
        if let Some((sse_path, post_path)) = &cfg.legacy {
            router = router
                .route(sse_path, get(legacy::legacy_sse))
                .route(post_path, post(legacy::legacy_post));
        }
        let router = router.with_state(shared.clone());
        StreamableHttpService { shared, router }
    }

    /// The routes: the MCP endpoint, and the legacy endpoints if enabled. Merge it into an
    /// app, nest it, or serve it as a tower `Service`.
    pub fn router(&self) -> Router {
        self.router.clone()
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
        if let Ok(addr) = listener.local_addr() {
            // The server's address in what its sessions' transports say of their connection.
            let _ = self.shared.local_addr.set(addr);
        }
        let limits = ConnectionLimits::of(&self.shared.config);
        HttpServer::new(listener, self.router(), limits, self.shared.clone())
    }

    /// Binds `127.0.0.1:port` (0 for any free port) and returns a runner for this service.
    pub async fn bind_localhost(self, port: u16) -> io::Result<HttpServer> {
        self.bind((std::net::Ipv4Addr::LOCALHOST, port)).await
    }
}

impl<B> tower::Service<http::Request<B>> for StreamableHttpService
where
    B: axum::body::HttpBody<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = axum::response::Response;
    type Error = std::convert::Infallible;
    type Future = axum::routing::future::RouteFuture<std::convert::Infallible>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        tower::Service::call(&mut self.router, request)
    }
}
