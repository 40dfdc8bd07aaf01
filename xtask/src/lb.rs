//! The load-balanced legs of `cargo xtask conformance`: one deployment of several
//! `everything-server` instances sharing a `redis-server` (`--redis <url>`), behind `haproxy`
//! balancing every request round-robin with no stickiness (testkit's [`Haproxy`]), and the
//! suite's server requirement runs against haproxy's URL. Whatever instance a request lands
//! on, the deployment must answer as one server: sessions are forwarded to the instance
//! holding them, events, tasks and subscriptions are shared through Redis.
//!
//! The deployment runs inside the same network namespace as the other legs; every process
//! binds a free 127.0.0.1 port, and each one's log goes to `target/conformance/lb-*.log`.

use std::path::Path;

use anyhow::{Context as _, Result};
use testkit::RedisServer;
use testkit::everything::EverythingServer;
use testkit::haproxy::Haproxy;

/// The requirement sets run through the balancer.
pub(crate) const REQUIREMENTS: &[&str] = &["2025-11-25", "2026-07-28"];

/// How many instances serve the deployment.
const INSTANCES: usize = 2;

/// Redis, the instances and haproxy, each killed by PID when dropped (haproxy first).
pub(crate) struct Deployment {
    haproxy: Haproxy,
    instances: Vec<EverythingServer>,
    _redis: RedisServer,
}

impl Deployment {
    /// Starts redis-server, [`INSTANCES`] × `everything-server --http <addr> --tasks --redis
    /// <url>` and haproxy in front, each once it listens; logs go to `out_dir`.
    pub(crate) fn start(server: &Path, out_dir: &Path) -> Result<Deployment> {
        let redis = RedisServer::start().context("starting redis-server")?;
        eprintln!("lb: redis-server at {}", redis.url());
        let mut instances = Vec::new();
        for i in 0..INSTANCES {
            let log = out_dir.join(format!("lb-everything-server-{i}.log"));
            let args = ["--tasks", "--redis", &redis.url()].map(str::to_owned);
            let instance = EverythingServer::start_logging_to(server, args, Some(&log))
                .with_context(|| format!("starting everything-server instance {i} with --redis"))?;
            eprintln!(
                "lb: everything-server instance {i} at {} (log: {})",
                instance.url(),
                log.display()
            );
            instances.push(instance);
        }
        let log = out_dir.join("lb-haproxy.log");
        let backends: Vec<_> = instances.iter().map(EverythingServer::addr).collect();
        let haproxy =
            Haproxy::start_logging_to(&backends, Some(&log)).context("starting haproxy")?;
        eprintln!(
            "lb: haproxy at {} round-robin over {backends:?} (log: {})",
            haproxy.url(),
            log.display()
        );
        Ok(Deployment {
            haproxy,
            instances,
            _redis: redis,
        })
    }

    /// The MCP endpoint through the balancer.
    pub(crate) fn url(&self) -> String {
        self.haproxy.url()
    }

    /// Stops everything; says which instances had exited on their own (none should).
    pub(crate) fn stop(mut self) -> Vec<String> {
        let mut notes = Vec::new();
        for (i, instance) in self.instances.iter_mut().enumerate() {
            if !instance.is_running() {
                let status = instance.kill().map(|s| s.to_string()).unwrap_or_default();
                notes.push(format!(
                    "load-balanced everything-server instance {i} exited early ({status}); log: {}",
                    instance.log_path().display()
                ));
            }
        }
        notes
    }
}
