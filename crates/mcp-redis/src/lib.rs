//! Redis-backed state for Model Context Protocol servers that run as several instances behind
//! a load balancer (round-robin, no sticky sessions).
//!
//! One [`Redis`] connection gives the five extension points their shared implementation:
//!
//! | Extension point | Implementation | Used by |
//! |---|---|---|
//! | `mcp_transport_http::server::EventStore` | [`RedisEventStore`] | SSE resumption on any instance |
//! | `mcp_transport_http::server::SessionDirectory` | [`RedisSessionDirectory`] | which instance holds a session |
//! | `mcp_server::SessionStore` | [`RedisSessionStore`] | a session's snapshot, for takeover |
//! | `mcp_server::tasks::TaskStore` | [`RedisTaskStore`] | tasks readable from any instance |
//! | `mcp_server::EventBus` | [`RedisEventBus`] | list changes and updates to every instance |
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mcp_redis::{Redis, RedisOptions};
//! use mcp_server::Server;
//! use mcp_server::tasks::Tasks;
//! use mcp_transport_http::server::StreamableHttpService;
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (redis, driver) = Redis::connect("redis://127.0.0.1:6379/", RedisOptions::default()).await?;
//! // The library never spawns: the application runs the driver (it reconnects on its own).
//! tokio::spawn(driver);
//!
//! let server = Server::builder()
//!     .name("scaled-out")
//!     .version("1.0.0")
//!     .event_bus(redis.event_bus())
//!     .tasks(Tasks::new(|task| drop(tokio::spawn(task))).store(redis.task_store()))
//!     .build();
//! let service = StreamableHttpService::builder()
//!     .path("/mcp")
//!     .event_store(Some(Arc::new(redis.event_store())))
//!     .build(server.session_factory());
//! // `redis.session_directory()` and `redis.session_store()` go to the HTTP builder's
//! // session directory and the server's session store, for session takeover.
//! service.bind_localhost(3000).await?.run().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Keys, lifetimes and bounds
//!
//! Every key starts with the [prefix](RedisOptions::prefix) (default `mcp:`), so deployments
//! can share a Redis, and every key has a time to live, refreshed on use, so that instances
//! that die leave nothing behind for good:
//!
//! - `session:<id>`, `snapshot:<id>`, `events:<id>:{log,meta,drops}`: per session, for
//!   [`session_ttl`](RedisOptions::session_ttl) (default 1 hour) after the last use (the
//!   directory's `touch` refreshes all five); at most
//!   [`max_events_per_session`](RedisOptions::max_events_per_session) events (1024, 8 MiB).
//! - `task:<id>`, `tasks:all`, `tasks:owner:*`, `tasks:seq`: each task for its TTL (or
//!   [`task_ttl`](RedisOptions::task_ttl), 24 hours), at most
//!   [`max_tasks`](RedisOptions::max_tasks) (1024) unexpired tasks.
//! - `instance:<id>`: this instance's liveness, [`instance_ttl`](RedisOptions::instance_ttl)
//!   (10 s), refreshed by the driver every third of it.
//! - The pub/sub channel `events` carries the bus.
//!
//! # Failures
//!
//! When Redis is unreachable, operations fail (never panic, never hang: every command has a
//! [response timeout](RedisOptions::response_timeout), 5 s by default; while the driver
//! reconnects they fail at once with [`Error::NotConnected`]). The [`Driver`] reconnects
//! with backoff; local bus subscribers are then told they lagged. TLS, Redis Cluster and
//! Sentinel are not supported.
//!
//! # Cancel safety
//!
//! Every operation is one Redis command or Lua script (two, for task updates: a read, then
//! a compare-and-set), so dropping its future leaves Redis consistent, but the command may
//! still run after the drop.

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod bus;
mod connection;
mod directory;
mod error;
mod event_store;
mod options;
mod secret;
mod session_store;
mod task_codec;
mod task_store;

pub use bus::RedisEventBus;
pub use connection::{Driver, Redis};
pub use directory::RedisSessionDirectory;
pub use error::{Error, Result};
pub use event_store::RedisEventStore;
pub use options::RedisOptions;
pub use session_store::RedisSessionStore;
pub use task_store::{INSTANCE_STOPPED, RedisTaskStore};

impl Redis {
    /// The SSE event store (`Builder::event_store`), sharing this connection.
    pub fn event_store(&self) -> RedisEventStore {
        RedisEventStore::new(self.clone())
    }

    /// The session directory (`Builder::directory`), sharing this connection.
    pub fn session_directory(&self) -> RedisSessionDirectory {
        RedisSessionDirectory::new(self.clone())
    }

    /// The session snapshot store (`ServeOptions::session_store`), sharing this connection.
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore::new(self.clone())
    }

    /// The task store (`Tasks::store`), sharing this connection.
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.clone())
    }

    /// The server event bus (`ServerBuilder::event_bus`), sharing this connection.
    pub fn event_bus(&self) -> RedisEventBus {
        RedisEventBus::new(self.clone())
    }
}
