//! The binaries under test, built by cargo into the target directory this test runs from.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::workspace_root;

/// The path of the `everything-server` example, built (once per test process) if it is
/// missing or outdated.
pub(crate) fn everything_server() -> &'static Path {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    built(&BIN, "everything-server")
}

/// The path of the `skills-server` example, built like [`everything_server`].
pub(crate) fn skills_server() -> &'static Path {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    built(&BIN, "skills-server")
}

/// The path of the `otel-server` example, built like [`everything_server`].
pub(crate) fn otel_server() -> &'static Path {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    built(&BIN, "otel-server")
}

/// The path of the `apps-server` example, built like [`everything_server`].
pub(crate) fn apps_server() -> &'static Path {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    built(&BIN, "apps-server")
}

/// The target directory this test binary was built in (`<target>`, above `<profile>/deps/`):
/// where tests leave their artifacts.
pub(crate) fn target_dir() -> PathBuf {
    match target_dir_and_profile() {
        Ok((target, _)) => target,
        Err(e) => panic!("{e}"),
    }
}

/// The path of the `mcp` command line (package `mcp-rs-cli`), built (once per test process)
/// if it is missing or outdated.
pub(crate) fn mcp_cli() -> &'static Path {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BIN.get_or_init(|| build_bins(&["mcp"]).map(|d| binary(&d, "mcp")));
    match built {
        Ok(path) => path,
        Err(e) => panic!("{e}"),
    }
}

/// The example `name`, built on first use and remembered in `cell`; panics with cargo's
/// message if the build failed.
fn built(cell: &'static OnceLock<Result<PathBuf, String>>, name: &str) -> &'static Path {
    match cell.get_or_init(|| build_bins(&[name]).map(|dir| binary(&dir, name))) {
        Ok(path) => path,
        Err(e) => panic!("{e}"),
    }
}

/// Binary `name` in the directory [`build_bins`] returned.
pub(crate) fn binary(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Runs `cargo build --workspace --all-features --bin <name>...` (one cargo run for them
/// all) into the target directory and profile this test binary was built in (cargo does the
/// up-to-date check), and returns the directory the binaries are in.
pub(crate) fn build_bins(names: &[&str]) -> Result<PathBuf, String> {
    let (target_dir, profile) = target_dir_and_profile()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(&cargo);
    // The features of the whole workspace, as `cargo xtask ci` tests it: the binaries then
    // link the libraries the test build already compiled. `-p <package>` resolves features
    // for that package alone, and rebuilt most of the dependency graph a second time (a CI
    // machine ran out of disk doing so).
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"))
        .args(["--workspace", "--all-features"])
        .env("CARGO_TARGET_DIR", &target_dir);
    for name in names {
        cmd.args(["--bin", name]);
    }
    // The `debug` directory belongs to the `dev` profile; others are named after theirs.
    if profile != "debug" {
        cmd.args(["--profile", &profile]);
    }
    let output = cmd
        .output()
        .map_err(|e| format!("could not run {cargo:?} to build {names:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo build` of {names:?} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let dir = target_dir.join(&profile);
    if let Some(missing) = names.iter().find(|n| !binary(&dir, n).is_file()) {
        return Err(format!(
            "`cargo build` of {missing} succeeded but {} does not exist",
            binary(&dir, missing).display()
        ));
    }
    Ok(dir)
}

/// This test binary runs from `<target>/<profile>/deps/`; returns `<target>` and `<profile>`.
fn target_dir_and_profile() -> Result<(PathBuf, String), String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe failed: {e}"))?;
    let deps = exe
        .parent()
        .filter(|d| d.ends_with("deps"))
        .ok_or_else(|| {
            format!(
                "expected the test binary under <target>/<profile>/deps/, found {}",
                exe.display()
            )
        })?;
    let profile_dir = deps
        .parent()
        .ok_or_else(|| format!("no profile directory above {}", deps.display()))?;
    let profile = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("bad profile directory {}", profile_dir.display()))?
        .to_owned();
    let target = profile_dir
        .parent()
        .ok_or_else(|| format!("no target directory above {}", profile_dir.display()))?
        .to_owned();
    Ok((target, profile))
}
