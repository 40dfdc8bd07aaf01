//! The state the handlers share: the configuration, the session registry and the session
//! factory; opening a session.

// The `Err` of `open_session` is the HTTP response to send, built once per refused session.
#![allow(clippy::result_large_err)]

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::pin::pin;
use std::sync::{Arc, Weak};

use axum::extract::ConnectInfo;
use axum::response::Response;
use futures::future::BoxFuture;

use super::config::Config;
use super::driven::Driven;
use super::handle::{Endpoints, HttpSessionTransport, SessionHandle, SessionInfo};
use super::registry::{Limits, Refused, Registry};
use super::respond::{too_many_sessions, too_many_sessions_for_client};
use super::session::{Owner, Session, SessionKind, Unregister};

/// The HTTP client that forwards requests to other instances (`remote`; one per service,
/// made on the first forward: a service that never forwards keeps none).
pub(crate) type ForwardClient = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    axum::body::Body,
>;

/// The session factory, boxed.
pub(crate) type Factory =
    Arc<dyn Fn(HttpSessionTransport, SessionInfo) -> BoxFuture<'static, ()> + Send + Sync>;

/// State shared by the handlers.
pub(crate) struct Shared {
    pub(crate) config: Arc<Config>,
    pub(crate) registry: Arc<Registry>,
    pub(crate) factory: Factory,
    /// Forwards requests to the instances holding their sessions (made on first use).
    pub(crate) forward_client: std::sync::OnceLock<ForwardClient>,
    /// Serializes taking sessions over (rare), so that one is started once.
    pub(crate) takeovers: tokio::sync::Mutex<()>,
    /// The holders of sessions this instance forwards to.
    pub(crate) holders: super::holders::Holders,
    /// The address the [`HttpServer`](super::HttpServer) serving it is bound to, if one is.
    pub(crate) local_addr: std::sync::OnceLock<SocketAddr>,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("config", &self.config)
            .field("registry", &self.registry)
            .finish_non_exhaustive()
    }
}

/// What [`Shared::start_session`] starts.
struct Opening {
    kind: SessionKind,
    id: Option<Arc<str>>,
    /// The session's generation in the [`SessionDirectory`](super::SessionDirectory).
    generation: u64,
    /// Whether another instance held the session before.
    taken_over: bool,
}

/// A fresh session id: 128 bits from the OS CSPRNG, as 32 lowercase hex digits.
fn new_session_id() -> Option<Arc<str>> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        id.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    Some(id.into())
}

/// The client a peer address stands for: the IPv4 address, or the /64 prefix of an IPv6
/// one (a single host commonly holds a whole /64).
fn client_of_ip(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
    }
}

impl Shared {
    /// The authenticated principal of a request, as [`Builder::principal`] names it (by
    /// default, its [`PrincipalId`](crate::PrincipalId)).
    ///
    /// [`Builder::principal`]: super::Builder::principal
    pub(crate) fn principal_of(&self, extensions: &http::Extensions) -> Option<Arc<str>> {
        match &self.config.principal {
            Some(principal) => (principal.0)(extensions).map(Into::into),
            None => extensions
                .get::<crate::PrincipalId>()
                .map(|id| id.0.clone()),
        }
    }

    /// Who a new session of `kind` opened by a request with these extensions belongs to. A
    /// stateless session is in no table, so it counts against no client's quota.
    fn owner_of(&self, kind: SessionKind, extensions: &http::Extensions) -> Owner {
        let principal = self.principal_of(extensions);
        let client = match &principal {
            _ if kind == SessionKind::Stateless => None,
            Some(p) => Some(format!("principal {p}").into()),
            None => extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| client_of_ip(addr.ip()).into()),
        };
        Owner { principal, client }
    }

    /// Creates a session, registers it (unless stateless), and spawns its future. Refused
    /// with 503 when the table is full, 429 over the client's quota (see
    /// [`Registry::insert`]), 503 if the CSPRNG failed.
    pub(crate) fn open_session(
        &self,
        kind: SessionKind,
        protocol_version: Option<String>,
        http_version: http::Version,
        headers: http::HeaderMap,
        extensions: http::Extensions,
    ) -> Result<Arc<Session>, Response> {
        let id = match kind {
            SessionKind::Stateless => None,
            _ => Some(new_session_id().ok_or_else(too_many_sessions)?),
        };
        let opening = Opening {
            kind,
            id,
            generation: 0,
            taken_over: false,
        };
        self.start_session(opening, protocol_version, http_version, headers, extensions)
    }

    /// Starts serving here the stateful session `id` that another instance held (its
    /// record's `generation` after this instance claimed it).
    pub(crate) fn take_over_session(
        &self,
        id: &str,
        generation: u64,
        protocol_version: Option<String>,
        http_version: http::Version,
        headers: http::HeaderMap,
        extensions: http::Extensions,
    ) -> Result<Arc<Session>, Response> {
        let opening = Opening {
            kind: SessionKind::Stateful,
            id: Some(id.into()),
            generation,
            taken_over: true,
        };
        self.start_session(opening, protocol_version, http_version, headers, extensions)
    }

    fn start_session(
        &self,
        opening: Opening,
        protocol_version: Option<String>,
        http_version: http::Version,
        headers: http::HeaderMap,
        extensions: http::Extensions,
    ) -> Result<Arc<Session>, Response> {
        let Opening {
            kind,
            id,
            generation,
            taken_over,
        } = opening;
        let registry: Arc<dyn Unregister> = self.registry.clone();
        let registry: Weak<dyn Unregister> = Arc::downgrade(&registry);
        let (session, rx) = Session::new(
            id.clone(),
            kind,
            self.config.clone(),
            self.owner_of(kind, &extensions),
            Some(registry),
        );
        session.set_generation(generation);
        if kind != SessionKind::Stateless {
            match self
                .registry
                .insert(session.clone(), &Limits::of(&self.config))
            {
                Ok(()) => {}
                Err(Refused::Full) => return Err(too_many_sessions()),
                Err(Refused::Quota) => return Err(too_many_sessions_for_client()),
            }
        }
        let endpoints = Endpoints {
            peer: extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| *addr),
            local: self.local_addr.get().copied(),
            version: http_version,
        };
        let transport = HttpSessionTransport::new(session.clone(), rx, endpoints);
        let info = SessionInfo {
            kind,
            session_id: id,
            taken_over,
            protocol_version,
            headers,
            extensions,
            handle: SessionHandle {
                session: session.clone(),
            },
        };
        let mut fut = (self.factory)(transport, info);
        if self.config.directory.is_some() && kind == SessionKind::Stateful {
            // The directory record stays alive alongside the factory's future.
            let listed = session.clone();
            fut = Box::pin(async move {
                let keep = pin!(listed.keep_listed());
                futures::future::select(fut, keep).await;
            });
        }
        let idle = match kind {
            SessionKind::Stateful => self.config.idle_timeout,
            _ => None,
        };
        let task_session = session.clone();
        let fut: BoxFuture<'static, ()> = Box::pin(async move {
            let fut = pin!(fut);
            match idle {
                Some(timeout) => {
                    let watchdog = pin!(task_session.idle(timeout));
                    if let futures::future::Either::Right(((), fut)) =
                        futures::future::select(fut, watchdog).await
                    {
                        tracing::debug!(session = ?task_session.id, "session expired");
                        task_session.end();
                        fut.await;
                    }
                }
                None => fut.await,
            }
            task_session.end();
            task_session.forget().await;
        });
        // A stateful session's POSTs poll its future while they wait (see `Driven`). A
        // stateless session runs on its own task as before: the bench measured the driving
        // slower there at c >= 8 (2026-07-28, c=64: 32.6 -> 39.9 us per request).
        if kind == SessionKind::Stateful {
            let driven = Driven::new(fut);
            session.set_driven(&driven);
            self.config.spawner.0.spawn(Box::pin(driven.background()));
        } else {
            self.config.spawner.0.spawn(fut);
        }
        Ok(session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_128_bit_hex() {
        let a = new_session_id().unwrap();
        let b = new_session_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn clients_are_ipv4_addresses_and_ipv6_prefixes() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(client_of_ip(ip("192.0.2.7")), "192.0.2.7");
        assert_eq!(client_of_ip(ip("::ffff:192.0.2.7")), "192.0.2.7");
        // Two addresses of one /64 are one client; another /64 is another.
        assert_eq!(
            client_of_ip(ip("2001:db8:1:2::1")),
            client_of_ip(ip("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            client_of_ip(ip("2001:db8:1:2::1")),
            client_of_ip(ip("2001:db8:1:3::1"))
        );
    }
}
