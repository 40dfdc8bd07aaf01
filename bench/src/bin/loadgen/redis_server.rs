//! The `redis-server` the Redis scenarios share: started by the load generator on a free
//! 127.0.0.1 port without persistence (`--save "" --appendonly no`), flushed before each
//! server it backs, killed by PID when dropped (at the end of the run). The binary is
//! `$MCP_TEST_REDIS_SERVER` if set, else `redis-server` on `PATH`.

use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

/// The environment variable naming the `redis-server` binary (as the workspace's tests).
const REDIS_SERVER_ENV: &str = "MCP_TEST_REDIS_SERVER";

/// How long a started server has to answer `PING`.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// How many free ports to try (another process may take the one picked before it binds).
const ATTEMPTS: usize = 5;

/// A `redis-server` child process, killed by PID when dropped.
pub(crate) struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts a server on a free port and waits until it answers `PING`.
    pub(crate) fn start() -> Result<Self> {
        let binary = binary()?;
        let mut last = None;
        for _ in 0..ATTEMPTS {
            match start_on(&binary, free_port()?) {
                Ok(server) => return Ok(server),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| anyhow::anyhow!("redis-server did not start")))
    }

    /// `redis://127.0.0.1:<port>/`.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Empties every database (`FLUSHALL`), so that each run starts from nothing.
    pub(crate) fn flush(&self) -> Result<()> {
        let reply = command(self.port, b"FLUSHALL\r\n", 5).context("FLUSHALL")?;
        if reply != b"+OK\r\n" {
            bail!(
                "FLUSHALL answered {:?}",
                String::from_utf8_lossy(&reply).trim()
            );
        }
        Ok(())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // `Child::kill` signals the child's PID (SIGKILL); reap it so no zombie is left.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(REDIS_SERVER_ENV) {
        return Ok(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("redis-server"))
                .find(|candidate| candidate.is_file())
        })
        .with_context(|| {
            format!(
                "the Redis scenarios need redis-server: none on PATH and ${REDIS_SERVER_ENV} \
                 is not set (install it, e.g. with `cargo xtask setup`, or skip them with \
                 --only)"
            )
        })
}

/// A port that was free a moment ago (bound to port 0, then released).
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

fn start_on(binary: &PathBuf, port: u16) -> Result<RedisServer> {
    let child = Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    // From here on, dropping `server` kills the child (also when it fails to answer).
    let mut server = RedisServer { child, port };
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if let Some(status) = server.child.try_wait()? {
            bail!("redis-server exited with {status} on port {port}");
        }
        if command(port, b"PING\r\n", 7).is_ok_and(|reply| reply == b"+PONG\r\n") {
            return Ok(server);
        }
        if Instant::now() > deadline {
            bail!("redis-server did not answer PING on port {port}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends an inline command to the server on `port` and reads `len` bytes of its reply.
fn command(port: u16, inline: &[u8], len: usize) -> Result<Vec<u8>> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(inline)?;
    let mut reply = vec![0; len];
    stream.read_exact(&mut reply)?;
    Ok(reply)
}
