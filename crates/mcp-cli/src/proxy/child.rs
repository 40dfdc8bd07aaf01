//! The stdio server's command line, and starting one process of it.

use std::path::PathBuf;
use std::time::Duration;

use mcp_transport_stdio::{ChildProcessTransport, StderrSink};

/// How long closing a child waits after closing its stdin, then after `SIGTERM`.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// The stdio server to run: program, arguments, working directory, extra environment.
#[derive(Debug, Clone)]
pub(crate) struct ChildCommand {
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) env: Vec<(String, String)>,
}

impl ChildCommand {
    /// Starts one process. Its stderr goes to the proxy's stderr (the server's own logs).
    pub(crate) fn spawn(&self) -> mcp_transport_stdio::Result<ChildProcessTransport> {
        let mut builder = ChildProcessTransport::builder(&self.program)
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stderr(StderrSink::Inherit)
            .close_timeout(CLOSE_TIMEOUT)
            .term_timeout(CLOSE_TIMEOUT);
        if let Some(dir) = &self.cwd {
            builder = builder.current_dir(dir);
        }
        builder.spawn()
    }

    /// The command line, for messages.
    pub(crate) fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
