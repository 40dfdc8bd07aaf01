//! Cache hints of 2026-07-28 results: how long (`ttlMs`) and by whom (`cacheScope`) a client
//! may reuse `server/discover`, list and `resources/read` results.

use std::time::Duration;

use mcp_types::CacheScope;

/// The cache hints of a result.
///
/// ```
/// use std::time::Duration;
///
/// use mcp_server::{CacheHints, Cacheable, Server};
///
/// let server = Server::builder()
///     // The tool list is the same for everyone and changes rarely.
///     .cache_hints(Cacheable::Tools, CacheHints::public(Duration::from_secs(300)))
///     .build();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// How long the result stays fresh (`ttlMs`, whole milliseconds).
    pub ttl: Duration,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHints {
    /// Stale at once and reusable only by the same user: the default, safe for results that
    /// vary per user (a filtered list, a per-user resource).
    pub const NONE: CacheHints = CacheHints {
        ttl: Duration::ZERO,
        scope: CacheScope::Private,
    };

    /// Fresh for `ttl`, the same for every user (shared caches may serve it to anyone).
    pub fn public(ttl: Duration) -> Self {
        CacheHints {
            ttl,
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `ttl`, reusable only within the same authorization context.
    pub fn private(ttl: Duration) -> Self {
        CacheHints {
            ttl,
            scope: CacheScope::Private,
        }
    }

    /// `ttlMs` on the wire.
    pub(crate) fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }
}

impl Default for CacheHints {
    fn default() -> Self {
        CacheHints::NONE
    }
}

/// The results that carry cache hints, for
/// [`ServerBuilder::cache_hints`](crate::ServerBuilder::cache_hints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cacheable {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `resources/read`, for resources and templates without hints of their own
    /// ([`Resource::cache_hints`](crate::Resource::cache_hints)).
    ResourceReads,
}

/// The hints of each kind of result.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CacheConfig {
    pub(crate) discover: CacheHints,
    pub(crate) tools: CacheHints,
    pub(crate) prompts: CacheHints,
    pub(crate) resources: CacheHints,
    pub(crate) templates: CacheHints,
    pub(crate) reads: CacheHints,
}

impl CacheConfig {
    pub(crate) fn set(&mut self, what: Cacheable, hints: CacheHints) {
        let slot = match what {
            Cacheable::Discover => &mut self.discover,
            Cacheable::Tools => &mut self.tools,
            Cacheable::Prompts => &mut self.prompts,
            Cacheable::Resources => &mut self.resources,
            Cacheable::ResourceTemplates => &mut self.templates,
            Cacheable::ResourceReads => &mut self.reads,
        };
        *slot = hints;
    }
}
