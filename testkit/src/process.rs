//! What the servers of this crate share: the pinned binaries' locations, a free port, a
//! scratch directory, and a child process that must start listening.

use std::collections::HashMap;
use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

/// How long a server may take to start listening before its start fails.
pub(crate) const START_LIMIT: Duration = Duration::from_secs(30);

/// The workspace root (the parent of `testkit/`).
pub(crate) fn workspace_root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.parent().unwrap_or(dir).to_path_buf()
}

/// The absolute path of a tool `cargo xtask setup` installed: the environment variable `var`
/// (`MCP_TEST_HAPROXY`, ...), else its line in `<workspace>/.tools/tools.env`. Fails (never
/// skips) with a message saying what is missing and how to get it.
pub(crate) fn tool(var: &str, what: &str) -> Result<PathBuf> {
    let env_file = workspace_root().join(".tools").join("tools.env");
    let from_file = || -> Option<String> {
        let text = fs::read_to_string(&env_file).ok()?;
        let vars: HashMap<&str, &str> = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim(), v.trim()))
            .collect();
        vars.get(var).map(|v| (*v).to_owned())
    };
    let path = std::env::var(var)
        .ok()
        .or_else(from_file)
        .map(PathBuf::from)
        .with_context(|| {
            format!(
                "{what} is missing: {var} is neither set nor in {}; run `cargo xtask setup`",
                env_file.display()
            )
        })?;
    if !path.is_file() {
        bail!(
            "{what} is missing: {var}={} does not exist; run `cargo xtask setup`",
            path.display()
        );
    }
    Ok(path)
}

/// A port of 127.0.0.1 that was free a moment ago (bound to port 0, then released). Another
/// process may take it before the server binds it: the servers here retry on a bind failure.
pub(crate) fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("binding 127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// A directory of its own under the system's temporary directory, removed when dropped
/// unless the thread is panicking (a failed test keeps its logs and configs to look at).
#[derive(Debug)]
pub(crate) struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// `<tmp>/mcp-testkit-<pid>-<n>-<what>`, created.
    pub(crate) fn new(what: &str) -> Result<Scratch> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("mcp-testkit-{}-{n}-{what}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch { dir })
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// How a wait for a child to listen ended.
#[derive(Debug)]
pub(crate) enum Listening {
    /// The port accepts connections.
    Yes,
    /// The child exited first; its log says why.
    Exited(String),
}

/// Waits until `addr` accepts connections while `child` runs, up to [`START_LIMIT`].
pub(crate) fn wait_listening(
    child: &mut Child,
    addr: SocketAddr,
    what: &str,
    log: &Path,
) -> Result<Listening> {
    let started = Instant::now();
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(Listening::Yes);
        }
        if let Some(status) = child.try_wait()? {
            let log = fs::read_to_string(log).unwrap_or_default();
            return Ok(Listening::Exited(format!(
                "{what} exited ({status}) before listening on {addr}; its log:\n{log}"
            )));
        }
        if started.elapsed() > START_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "{what} did not listen on {addr} within {START_LIMIT:?}; its log ({}):\n{}",
                log.display(),
                fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
