//! Test helpers shared by the workspace's tests (never published).
//!
//! [`RedisServer`]: a throwaway `redis-server` on 127.0.0.1, no persistence, killed when
//! dropped. The binary is `$MCP_TEST_REDIS_SERVER` if set, else `redis-server` on `PATH`
//! (`cargo xtask setup` installs it).
//!
//! ```no_run
//! let redis = testkit::RedisServer::start().unwrap();
//! println!("{}", redis.url());
//! ```

pub mod everything;
pub mod haproxy;
mod process;

use std::io::{self, Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable naming the `redis-server` binary to run.
pub const REDIS_SERVER_ENV: &str = "MCP_TEST_REDIS_SERVER";

/// How many ports [`RedisServer::start`] tries before giving up (another process may take
/// the free port it picked before the server binds it).
const ATTEMPTS: usize = 5;

/// How long a started server has to answer `PING` (generous: a loaded 2-core machine).
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// A `redis-server` child process on 127.0.0.1 (`--save "" --appendonly no`), killed by PID
/// when dropped.
#[derive(Debug)]
pub struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts a server on a free port and waits until it answers `PING`.
    ///
    /// Fails with "redis-server not found: run `cargo xtask setup`" when there is no binary.
    pub fn start() -> io::Result<RedisServer> {
        let binary = binary()?;
        let mut last = None;
        for _ in 0..ATTEMPTS {
            match start_on(&binary, free_port()?) {
                Ok(server) => return Ok(server),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("redis-server did not start")))
    }

    /// Starts a server on `port` (say, again on the port of one that was dropped) and waits
    /// until it answers `PING`; fails if the port is taken.
    pub fn start_on_port(port: u16) -> io::Result<RedisServer> {
        start_on(&binary()?, port)
    }

    /// The server's URL, `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process id (to read its CPU time from `/proc`, say).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Empties every database (`FLUSHALL`), so that what runs next starts from nothing.
    pub fn flush(&self) -> io::Result<()> {
        let reply = command(self.port, b"FLUSHALL\r\n", 5)?;
        if reply != b"+OK\r\n" {
            return Err(io::Error::other(format!(
                "FLUSHALL answered {:?}",
                String::from_utf8_lossy(&reply).trim()
            )));
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

fn binary() -> io::Result<PathBuf> {
    if let Some(path) = std::env::var_os(REDIS_SERVER_ENV) {
        return Ok(PathBuf::from(path));
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("redis-server"))
            .find(|candidate| candidate.is_file())
    });
    found.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "redis-server not found: run `cargo xtask setup`",
        )
    })
}

/// A port that was free a moment ago (bound to port 0, then released).
fn free_port() -> io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

fn start_on(binary: &PathBuf, port: u16) -> io::Result<RedisServer> {
    let child = Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot run {}: {e}", binary.display())))?;
    // From here on, dropping `server` kills the child (also when it fails to answer).
    let mut server = RedisServer { child, port };
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if let Some(status) = server.child.try_wait()? {
            // Most likely the port was taken in the meantime.
            return Err(io::Error::other(format!(
                "redis-server exited with {status} on port {port}"
            )));
        }
        if ping(port) {
            return Ok(server);
        }
        if Instant::now() > deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("redis-server did not answer PING on port {port}"),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a server on `port` answers `PING` with `+PONG`.
fn ping(port: u16) -> bool {
    command(port, b"PING\r\n", 7).is_ok_and(|reply| reply == b"+PONG\r\n")
}

/// Sends an inline command to the server on `port` and reads `len` bytes of its reply.
fn command(port: u16, inline: &[u8], len: usize) -> io::Result<Vec<u8>> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(inline)?;
    let mut reply = vec![0; len];
    stream.read_exact(&mut reply)?;
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_answers_until_dropped() {
        let server = RedisServer::start().unwrap();
        let port = server.port();
        assert!(server.url().ends_with(&format!(":{port}/")));
        assert!(ping(port));
        assert!(server.pid() > 0);
        server.flush().unwrap();
        drop(server);
        assert!(!ping(port), "the server still answers after drop");
    }
}
