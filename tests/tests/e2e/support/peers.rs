//! The interop peers installed by `cargo xtask setup`: Node, the npm packages (with the
//! Inspector CLI) and a Python venv with the MCP Python SDK.
//!
//! Each location comes from an environment variable (`MCP_TEST_NODE`, `MCP_TEST_PYTHON`,
//! `MCP_TEST_NPM_BIN`, `MCP_TEST_NODE_MODULES`), else from `<workspace>/.tools/tools.env`,
//! which `cargo xtask setup` writes. Missing peers fail the test; they are never skipped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{peers_dir, workspace_root};

/// Where the peers are.
#[derive(Debug)]
pub(crate) struct Peers {
    /// The `node` binary.
    pub(crate) node: PathBuf,
    /// The venv's `python`, with the `mcp` package.
    pub(crate) python: PathBuf,
    /// `node_modules/.bin` of the pinned npm packages.
    pub(crate) npm_bin: PathBuf,
    /// The pinned npm packages' `node_modules`.
    pub(crate) node_modules: PathBuf,
}

impl Peers {
    /// The Inspector CLI launcher.
    pub(crate) fn inspector(&self) -> PathBuf {
        self.npm_bin.join("mcp-inspector")
    }
}

/// The peers, or a panic saying to run `cargo xtask setup` and what is missing.
pub(crate) fn peers() -> &'static Peers {
    static PEERS: OnceLock<Result<Peers, String>> = OnceLock::new();
    match PEERS.get_or_init(locate) {
        Ok(peers) => peers,
        Err(e) => panic!("run `cargo xtask setup` first: {e}"),
    }
}

/// `<workspace>/.tools/tools.env`, which `cargo xtask setup` writes.
fn env_file() -> PathBuf {
    workspace_root().join(".tools").join("tools.env")
}

/// The tool location `var` names: the environment variable, else its line in
/// `.tools/tools.env`; `None` if neither has it.
pub(crate) fn tools_setting(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from).or_else(|| {
        let text = std::fs::read_to_string(env_file()).ok()?;
        parse_env(&text).remove(var).map(PathBuf::from)
    })
}

fn locate() -> Result<Peers, String> {
    let env_file = env_file();
    let from_file = std::fs::read_to_string(&env_file)
        .map(|text| parse_env(&text))
        .unwrap_or_default();
    let mut missing = Vec::new();
    let mut get = |var: &str| -> PathBuf {
        let value = std::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| from_file.get(var).map(PathBuf::from));
        match value {
            Some(path) if path.exists() => path,
            Some(path) => {
                missing.push(format!("{var}={} does not exist", path.display()));
                path
            }
            None => {
                missing.push(format!(
                    "{var} is neither set nor in {}",
                    env_file.display()
                ));
                PathBuf::new()
            }
        }
    };
    let peers = Peers {
        node: get("MCP_TEST_NODE"),
        python: get("MCP_TEST_PYTHON"),
        npm_bin: get("MCP_TEST_NPM_BIN"),
        node_modules: get("MCP_TEST_NODE_MODULES"),
    };
    if !missing.is_empty() {
        return Err(missing.join("; "));
    }
    link_node_modules(&peers.node_modules)?;
    Ok(peers)
}

/// `KEY=value` lines; blank lines and `#` comments are skipped.
fn parse_env(text: &str) -> HashMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().trim_matches('"').to_owned()))
        .collect()
}

/// `.mjs` scripts under `tests/peers` resolve packages from `tests/peers/node_modules`:
/// make it a symlink to the installed packages if it is not there.
fn link_node_modules(node_modules: &Path) -> Result<(), String> {
    let link = peers_dir().join("node_modules");
    if link.exists() {
        return Ok(());
    }
    // A dangling symlink: replace it.
    if link.symlink_metadata().is_ok() {
        std::fs::remove_file(&link)
            .map_err(|e| format!("could not remove stale {}: {e}", link.display()))?;
    }
    match std::os::unix::fs::symlink(node_modules, &link) {
        Ok(()) => Ok(()),
        // Another test process made it first.
        Err(_) if link.exists() => Ok(()),
        Err(e) => Err(format!(
            "could not link {} to {}: {e}",
            link.display(),
            node_modules.display()
        )),
    }
}

#[test]
fn parses_tools_env() {
    let env = parse_env("# comment\nMCP_TEST_NODE=/a/node\n\nMCP_TEST_PYTHON = \"/b/python\"\n");
    assert_eq!(env["MCP_TEST_NODE"], "/a/node");
    assert_eq!(env["MCP_TEST_PYTHON"], "/b/python");
    assert_eq!(env.len(), 2);
}
