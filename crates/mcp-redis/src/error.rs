//! [`Error`]: what an `mcp-redis` operation fails with.

use std::time::Duration;

/// Why an operation on Redis failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Redis answered with an error, the connection broke, or no answer came within
    /// [`RedisOptions::response_timeout`](crate::RedisOptions::response_timeout).
    #[error("redis command failed")]
    Redis(#[from] redis::RedisError),
    /// There is no connection right now: the [`Driver`](crate::Driver) is reconnecting, or
    /// it is not running (it stopped, or the application never spawned it).
    #[error("not connected to redis")]
    NotConnected,
    /// Connecting took longer than [`RedisOptions::connect_timeout`](crate::RedisOptions::connect_timeout).
    #[error("connecting to redis timed out after {0:?}")]
    ConnectTimeout(Duration),
    /// The URL is not one this crate connects to (`redis://` over TCP, `redis+unix://`).
    #[error("unsupported redis url: {0}")]
    Unsupported(String),
    /// What Redis holds under one of this crate's keys is not what this crate wrote there.
    #[error("unexpected data in redis: {0}")]
    Corrupt(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
