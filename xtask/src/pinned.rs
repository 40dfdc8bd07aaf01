//! Tools from crates.io pinned to one version (mdBook, cargo-semver-checks, cargo-fuzz), each
//! installed by `cargo install --locked` into its own `.tools/<crate>/` with a stamp of the pin,
//! and checked to report that version.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Result, bail};

use crate::setup::{self, Stamp};

/// A crate's binary at one version.
pub(crate) struct PinnedTool {
    /// The crate on crates.io.
    pub(crate) krate: &'static str,
    /// The exact version installed.
    pub(crate) version: &'static str,
    /// With `Some`, default features are off and these are on.
    pub(crate) features: Option<&'static str>,
    /// The binary the crate installs.
    pub(crate) binary: &'static str,
    /// The arguments that make the binary print its version.
    pub(crate) version_args: &'static [&'static str],
    /// Built unoptimized (`cargo install --debug`): for a tool whose work here is light
    /// (mdBook on the guide's pages, cargo-fuzz's command line), where the optimized build's
    /// extra minute on a 2-core CI machine buys nothing.
    pub(crate) unoptimized: bool,
}

impl PinnedTool {
    /// Where the tool is installed: `.tools/<crate>/`.
    pub(crate) fn root(&self) -> PathBuf {
        setup::tools_dir().join(self.krate)
    }

    /// The binary, installed first when it is missing or not of the pin (version, features or
    /// profile).
    pub(crate) fn ensure(&self) -> Result<PathBuf> {
        let root = self.root();
        let bin = root.join("bin").join(self.binary);
        let features = self.features.unwrap_or_default();
        let profile: &[u8] = if self.unoptimized {
            b"debug"
        } else {
            b"release"
        };
        let stamp = Stamp::new(
            &root,
            &[self.version.as_bytes(), features.as_bytes(), profile],
        );
        if stamp.matches() && bin.is_file() {
            return Ok(bin);
        }
        stamp.clear();
        let root_arg = root.display().to_string();
        let mut args = vec!["install", "--locked", "--force", "--version", self.version];
        if let Some(features) = self.features {
            args.extend(["--no-default-features", "--features", features]);
        }
        if self.unoptimized {
            args.push("--debug");
        }
        args.extend(["--root", &root_arg, self.krate]);
        crate::run("cargo", &args)?;
        let reported = Command::new(&bin)
            .args(self.version_args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        if !reports_version(&reported, self.version) {
            bail!(
                "{} reports {:?} after installing {} {}",
                bin.display(),
                reported.trim(),
                self.krate,
                self.version
            );
        }
        stamp.write()?;
        Ok(bin)
    }
}

/// Whether a `--version` output names `version` (as `0.5.4` or `v0.5.4`).
fn reports_version(output: &str, version: &str) -> bool {
    output
        .split_whitespace()
        .any(|w| w.strip_prefix('v').unwrap_or(w) == version)
}

#[cfg(test)]
mod tests {
    use super::reports_version;

    #[test]
    fn version_outputs_are_read_with_or_without_a_v() {
        assert!(reports_version("mdbook v0.5.4\n", "0.5.4"));
        assert!(reports_version("cargo-semver-checks 0.51.0\n", "0.51.0"));
        assert!(!reports_version("cargo-fuzz 0.13.10\n", "0.13.1"));
        assert!(!reports_version("", "0.13.1"));
    }
}
