//! [`Haproxy`]: a real load balancer (HAProxy, the Debian package `cargo xtask setup`
//! installs) in front of several server instances, as a scale-out deployment has one.
//!
//! The configuration is what a deployment without sticky sessions uses: HTTP mode, `balance
//! roundrobin` per request (no cookie, no `prefer-last-server`), long client, server and
//! tunnel timeouts so that an idle SSE stream stays open, `retries 3` with `option redispatch
//! 1` (a connection refused by a dead instance is retried on another one), and TCP health
//! checks every 250 ms that mark an instance down after one failure, so a killed instance is
//! skipped within about a second. Each request is logged (to [`Haproxy::log`]) with the
//! instance that served it and the `Mcp-Session-Id` it carried and got back, so a test can
//! tell which instance opened a session ([`Haproxy::session_holder`]) or served a method
//! ([`Haproxy::requests`]).

use std::fs::{self, File};
use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use crate::process::{Listening, Scratch, free_port, tool, wait_listening};

/// The name of the backend in the configuration (instances are `s0`, `s1`, ...).
const BACKEND: &str = "instances";

/// How many times a start is tried with a new port when the port was taken meanwhile.
const BIND_ATTEMPTS: usize = 3;

/// An `haproxy` process balancing 127.0.0.1 backends round-robin, killed (by PID) when
/// dropped.
#[derive(Debug)]
pub struct Haproxy {
    child: Child,
    addr: SocketAddr,
    backends: Vec<SocketAddr>,
    log: PathBuf,
    socket: PathBuf,
    _scratch: Scratch,
}

impl Haproxy {
    /// Starts haproxy (`MCP_TEST_HAPROXY`, else `.tools/tools.env`) on a free 127.0.0.1 port
    /// in front of `backends` (instance `i` is named `s<i>`), and waits until it accepts
    /// connections and every backend passed its health check. Its configuration and log
    /// live in a scratch directory, kept if the test panics.
    pub fn start(backends: &[SocketAddr]) -> Result<Haproxy> {
        Self::start_logging_to(backends, None)
    }

    /// [`start`](Self::start) with the log written to `log` (a file kept after the run)
    /// instead of the scratch directory.
    pub fn start_logging_to(backends: &[SocketAddr], log: Option<&Path>) -> Result<Haproxy> {
        if backends.is_empty() {
            bail!("haproxy needs at least one backend");
        }
        let bin = tool("MCP_TEST_HAPROXY", "haproxy")?;
        let scratch = Scratch::new("haproxy")?;
        let log = log.map_or_else(|| scratch.path().join("haproxy.log"), Path::to_path_buf);
        let socket = scratch.path().join("admin.sock");
        let config_path = scratch.path().join("haproxy.cfg");
        let mut last_error = String::new();
        for _ in 0..BIND_ATTEMPTS {
            let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
            fs::write(&config_path, config(addr, backends, &socket))
                .with_context(|| format!("cannot write {}", config_path.display()))?;
            let out =
                File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
            let mut child = Command::new(&bin)
                // Foreground, no daemon: the PID is haproxy's own.
                .arg("-db")
                .arg("-f")
                .arg(&config_path)
                .stdin(Stdio::null())
                .stdout(out.try_clone()?)
                .stderr(out)
                .spawn()
                .with_context(|| format!("could not start {}", bin.display()))?;
            match wait_listening(&mut child, addr, "haproxy", &log)? {
                Listening::Yes => {
                    let haproxy = Haproxy {
                        child,
                        addr,
                        backends: backends.to_vec(),
                        log,
                        socket,
                        _scratch: scratch,
                    };
                    for i in 0..backends.len() {
                        haproxy.wait_backend(i, true, Duration::from_secs(10))?;
                    }
                    return Ok(haproxy);
                }
                // Most likely the port was taken meanwhile; try another.
                Listening::Exited(why) => last_error = why,
            }
        }
        bail!("haproxy did not start in {BIND_ATTEMPTS} attempts; the last: {last_error}")
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint through the balancer, `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The backends, in the order given (instance `i` is `s<i>` in the log).
    pub fn backends(&self) -> &[SocketAddr] {
        &self.backends
    }

    /// The PID of the haproxy process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The log file: one line per request (see [`LoggedRequest`]) and haproxy's own messages
    /// (health check changes).
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// What the log holds so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Every request logged so far (a request is logged when its response ends: an SSE
    /// stream still open is not there yet).
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.log()
            .lines()
            .filter_map(LoggedRequest::parse)
            .collect()
    }

    /// Which backend opened `session`: the one that answered a request carrying no
    /// `Mcp-Session-Id` with that id (an `initialize` answered with JSON is logged at once).
    pub fn session_holder(&self, session: &str) -> Option<usize> {
        self.sessions()
            .into_iter()
            .find(|(_, id)| id == session)
            .map(|(i, _)| i)
    }

    /// Every session a backend opened so far, as (backend index, session id), in log order.
    pub fn sessions(&self) -> Vec<(usize, String)> {
        self.requests()
            .into_iter()
            .filter(|r| r.session.is_none())
            .filter_map(|r| Some((r.backend?, r.new_session?)))
            .collect()
    }

    /// Whether haproxy currently counts backend `index` as up (its health check passes).
    pub fn backend_up(&self, index: usize) -> Result<bool> {
        let csv = self.command("show stat")?;
        backend_status(&csv, &format!("s{index}"))
            .map(|status| status.starts_with("UP"))
            .with_context(|| format!("`show stat` has no row for backend s{index}:\n{csv}"))
    }

    /// Waits (up to `limit`) until haproxy counts backend `index` as up (`true`) or down.
    pub fn wait_backend(&self, index: usize, up: bool, limit: Duration) -> Result<()> {
        let started = Instant::now();
        loop {
            // The admin socket may appear a moment after the frontend's port.
            let now = self.backend_up(index);
            if now.as_ref().is_ok_and(|now| *now == up) {
                return Ok(());
            }
            if started.elapsed() > limit {
                let state = if up { "up" } else { "down" };
                let error = now.err().map(|e| format!(" ({e:#})")).unwrap_or_default();
                bail!(
                    "haproxy did not count backend s{index} ({}) {state} within {limit:?}{error}; \
                     its log:\n{}",
                    self.backends[index],
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends one command to haproxy's admin socket and returns its answer.
    fn command(&self, command: &str) -> Result<String> {
        let mut stream = UnixStream::connect(&self.socket)
            .with_context(|| format!("cannot connect to {}", self.socket.display()))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        stream.write_all(format!("{command}\n").as_bytes())?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        Ok(answer)
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        // `Child::kill` is SIGKILL to this PID; the wait reaps it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The configuration; see the module documentation.
fn config(addr: SocketAddr, backends: &[SocketAddr], socket: &Path) -> String {
    let mut servers = String::new();
    for (i, backend) in backends.iter().enumerate() {
        servers.push_str(&format!("    server s{i} {backend}\n"));
    }
    format!(
        "global
    log stderr format raw local0 info
    maxconn 4096
    stats socket {socket} mode 600 level admin

defaults
    mode http
    log global
    log-format \"lb server=%s status=%ST %HM %HP mcpmethod={{%[capture.req.hdr(1)]}} reqsid={{%[capture.req.hdr(0)]}} lasteventid={{%[capture.req.hdr(2)]}} ressid={{%[capture.res.hdr(0)]}}\"
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    timeout http-request 30s
    timeout http-keep-alive 30s
    timeout queue 10s
    retries 3
    option redispatch 1
    # The readiness probe (a connection that sends nothing) is not a request.
    option dontlognull

frontend mcp
    bind {addr}
    capture request header Mcp-Session-Id len 64
    capture request header Mcp-Method len 64
    capture request header Last-Event-ID len 128
    capture response header Mcp-Session-Id len 64
    default_backend {BACKEND}

backend {BACKEND}
    balance roundrobin
    default-server check inter 250ms fastinter 100ms downinter 250ms fall 1 rise 1
{servers}",
        socket = socket.display(),
    )
}

/// One request as haproxy logged it (the `log-format` of the configuration [`Haproxy`] writes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// The backend that served it (`s<i>`), if any did.
    pub backend: Option<usize>,
    /// The HTTP status sent to the client (-1 if none).
    pub status: i32,
    /// The HTTP method.
    pub method: String,
    /// The path.
    pub path: String,
    /// Its `Mcp-Method` header (2026-07-28 requests carry one).
    pub mcp_method: Option<String>,
    /// Its `Mcp-Session-Id` header.
    pub session: Option<String>,
    /// Its `Last-Event-ID` header (a resumption).
    pub last_event_id: Option<String>,
    /// The `Mcp-Session-Id` header of the response.
    pub new_session: Option<String>,
}

impl LoggedRequest {
    /// Parses `lb server=s1 status=200 POST /mcp mcpmethod={m} reqsid={a} lasteventid={e}
    /// ressid={b}` (a missing header is `-`); other lines (haproxy's own messages) are `None`.
    fn parse(line: &str) -> Option<LoggedRequest> {
        let rest = line.strip_prefix("lb server=")?;
        let mut words = rest.split(' ');
        let server = words.next()?;
        let status = words.next()?.strip_prefix("status=")?.parse().ok()?;
        let method = words.next()?.to_owned();
        let path = words.next()?.to_owned();
        let field = |name: &str| -> Option<Option<String>> {
            let value = rest
                .split_once(&format!(" {name}={{"))?
                .1
                .split_once('}')?
                .0;
            Some((value != "-" && !value.is_empty()).then(|| value.to_owned()))
        };
        Some(LoggedRequest {
            backend: server.strip_prefix('s').and_then(|i| i.parse().ok()),
            status,
            method,
            path,
            mcp_method: field("mcpmethod")?,
            session: field("reqsid")?,
            last_event_id: field("lasteventid")?,
            new_session: field("ressid")?,
        })
    }
}

/// The `status` column of backend server `server`'s row in `show stat` CSV output.
fn backend_status<'a>(csv: &'a str, server: &str) -> Option<&'a str> {
    let mut lines = csv.lines();
    let header = lines.next()?.trim_start_matches("# ");
    let column = header.split(',').position(|c| c == "status")?;
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|row| row.first() == Some(&BACKEND) && row.get(1) == Some(&server))
        .and_then(|row| row.get(column).copied())
}

#[cfg(test)]
mod tests;
