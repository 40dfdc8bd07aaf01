//! [`EverythingServer`]: one instance of the `everything-server` example over Streamable HTTP,
//! as one member of a scale-out deployment (`--redis <url>`) or alone.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use anyhow::{Context as _, Result, bail};

use crate::process::{Listening, Scratch, free_port, wait_listening};

/// How many times a start is tried with a new port when the port was taken meanwhile.
const BIND_ATTEMPTS: usize = 3;

/// `everything-server --http 127.0.0.1:<port> <extra args>`, killed (by PID) when dropped.
///
/// Its stderr (the `tracing` log, at `RUST_LOG` or `info`) goes to [`log_path`](Self::log_path).
#[derive(Debug)]
pub struct EverythingServer {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
    exited: Option<ExitStatus>,
    _scratch: Scratch,
}

impl EverythingServer {
    /// Runs `bin --http 127.0.0.1:<free port> <extra_args>` and waits until the port accepts
    /// connections. The log lives in a scratch directory, kept if the test panics.
    pub fn start<I, S>(bin: &Path, extra_args: I) -> Result<EverythingServer>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Self::start_logging_to(bin, extra_args, None)
    }

    /// [`start`](Self::start) with the log written to `log` (a file kept after the run).
    pub fn start_logging_to<I, S>(
        bin: &Path,
        extra_args: I,
        log: Option<&Path>,
    ) -> Result<EverythingServer>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<_> = extra_args
            .into_iter()
            .map(|a| a.as_ref().to_os_string())
            .collect();
        let scratch = Scratch::new("everything-server")?;
        let log = log.map_or_else(
            || scratch.path().join("everything-server.log"),
            Path::to_path_buf,
        );
        let rust_log = std::env::var("RUST_LOG").unwrap_or_else(|_| "info".to_owned());
        let mut last_error = String::new();
        for _ in 0..BIND_ATTEMPTS {
            let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
            let out =
                File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
            let mut child = Command::new(bin)
                .arg("--http")
                .arg(addr.to_string())
                .args(&args)
                .env("RUST_LOG", &rust_log)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(out)
                .spawn()
                .with_context(|| format!("could not start {}", bin.display()))?;
            match wait_listening(&mut child, addr, "everything-server", &log)? {
                Listening::Yes => {
                    return Ok(EverythingServer {
                        child,
                        addr,
                        log,
                        exited: None,
                        _scratch: scratch,
                    });
                }
                Listening::Exited(why) if why.contains("cannot bind") => last_error = why,
                Listening::Exited(why) => bail!(why),
            }
        }
        bail!("everything-server did not start in {BIND_ATTEMPTS} attempts; the last: {last_error}")
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its MCP endpoint, `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The PID of the process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The log file (the server's stderr).
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// What the log holds so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Kills the process with SIGKILL (no chance to clean up, as when a machine dies) and
    /// reaps it; returns its exit status. Killing it again returns the same status.
    pub fn kill(&mut self) -> Result<ExitStatus> {
        if let Some(status) = self.exited {
            return Ok(status);
        }
        // `Child::kill` is SIGKILL to this PID.
        let _ = self.child.kill();
        let status = self.child.wait().context("waiting for everything-server")?;
        self.exited = Some(status);
        Ok(status)
    }

    /// Whether the process still runs (it was not killed and did not exit on its own).
    pub fn is_running(&mut self) -> bool {
        if self.exited.is_some() {
            return false;
        }
        match self.child.try_wait() {
            Ok(Some(status)) => {
                self.exited = Some(status);
                false
            }
            Ok(None) => true,
            Err(_) => false,
        }
    }
}

impl Drop for EverythingServer {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}
