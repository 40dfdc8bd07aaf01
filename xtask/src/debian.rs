//! The servers the scale-out tests run, from the distribution's packages: `redis-server` (the
//! shared store) and `haproxy` (the load balancer in front of several `everything-server`s);
//! `tmux`, the terminal the `mcp` command line's interactive tests drive (elicitation
//! answered at a prompt); and the browser the MCP Apps test drives: `chromium` with
//! `chromium-driver`.
//!
//! They are installed with `apt-get install -y` (as root; CI runs as root too) and pinned by
//! version check: the installed binary must report the major.minor series below, which is
//! what Debian 12 (bookworm) ships. A machine with another series fails with a message naming
//! both; a present binary of the pinned series is not reinstalled. A service the package may
//! start is never used: the tests start their own servers on free 127.0.0.1 ports.
//!
//! Chromium is checked differently, because Debian does not keep its version: bookworm ships
//! Chromium through `bookworm-security`, which replaces it with every upstream release (a new
//! major about every four weeks) and keeps no older build, so an exact pin would fail `apt-get`
//! after the next update. What is checked instead: `chromium --version` and `chromedriver
//! --version` report the same full version (ChromeDriver drives only the browser of its own
//! build, and the two packages are updated together), and its major is at least
//! [`CHROMIUM_MIN_MAJOR`] (what the test was written against). A pair out of step (one package
//! updated without the other) is reinstalled together.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};

use crate::setup::{Stamp, Tools, run_quiet};

/// The pinned `redis-server` series (Debian 12: 7.0.15).
pub(crate) const REDIS_SERIES: &str = "7.0";
/// The pinned `haproxy` series (Debian 12: 2.6.12).
pub(crate) const HAPROXY_SERIES: &str = "2.6";
/// The pinned `tmux` series (Debian 12: 3.3a).
pub(crate) const TMUX_SERIES: &str = "3.3";
/// The oldest Chromium major the browser test accepts (Debian 12 shipped 147.0.7727.137 in its
/// point release and 148.0.7778.167 in `bookworm-security` when the test was written).
pub(crate) const CHROMIUM_MIN_MAJOR: u32 = 147;

/// One package and the binary it installs.
struct Package {
    /// The Debian package name.
    name: &'static str,
    /// The binary's path as the package installs it.
    bin: fn(&Tools) -> &Path,
    /// The major.minor series required.
    series: &'static str,
    /// Reads the full version from the binary's output.
    version: fn(&Path) -> Option<String>,
}

const PACKAGES: &[Package] = &[
    Package {
        name: "redis-server",
        bin: |t| &t.redis_server,
        series: REDIS_SERIES,
        version: redis_version,
    },
    Package {
        name: "haproxy",
        bin: |t| &t.haproxy,
        series: HAPROXY_SERIES,
        version: haproxy_version,
    },
    Package {
        name: "tmux",
        bin: |t| &t.tmux,
        series: TMUX_SERIES,
        version: tmux_version,
    },
];

/// Where the Debian packages put the binaries (absolute, not searched on `PATH`: a non-root
/// `PATH` often lacks `/usr/sbin`).
pub(crate) fn redis_server_path() -> PathBuf {
    PathBuf::from("/usr/bin/redis-server")
}

/// See [`redis_server_path`].
pub(crate) fn haproxy_path() -> PathBuf {
    PathBuf::from("/usr/sbin/haproxy")
}

/// See [`redis_server_path`].
pub(crate) fn tmux_path() -> PathBuf {
    PathBuf::from("/usr/bin/tmux")
}

/// Debian's `chromium` launcher (it runs `/usr/lib/chromium/chromium` with the flags of
/// `/etc/chromium.d`).
pub(crate) fn chromium_path() -> PathBuf {
    PathBuf::from("/usr/bin/chromium")
}

/// Debian's `chromedriver` (package `chromium-driver`).
pub(crate) fn chromedriver_path() -> PathBuf {
    PathBuf::from("/usr/bin/chromedriver")
}

/// Step 5: `chromium` and `chromium-driver` from apt, of one version, at least
/// [`CHROMIUM_MIN_MAJOR`] (see the module documentation).
pub(crate) fn install_browser(tools: &Tools) -> Result<()> {
    if let Ok(version) = verify_browser(&tools.chromium, &tools.chromedriver) {
        eprintln!("setup: chromium and chromedriver {version} already installed");
        return Ok(());
    }
    apt_install(&["chromium", "chromium-driver"])?;
    let version = verify_browser(&tools.chromium, &tools.chromedriver)?;
    eprintln!(
        "setup: chromium and chromedriver {version} ok ({}, {})",
        tools.chromium.display(),
        tools.chromedriver.display()
    );
    Ok(())
}

/// The version both binaries report, or an error saying why they do not pass.
fn verify_browser(chromium: &Path, chromedriver: &Path) -> Result<String> {
    let browser = version_after(chromium, "Chromium");
    let driver = version_after(chromedriver, "ChromeDriver");
    check_browser_versions(browser.as_deref(), driver.as_deref())
}

fn check_browser_versions(browser: Option<&str>, driver: Option<&str>) -> Result<String> {
    let (Some(browser), Some(driver)) = (browser, driver) else {
        bail!(
            "{} is missing or does not report its version (the packages chromium and \
             chromium-driver)",
            if browser.is_none() {
                "chromium"
            } else {
                "chromedriver"
            }
        );
    };
    if browser != driver {
        bail!(
            "chromium reports {browser} but chromedriver {driver}; they must be the same build \
             (apt-get install chromium chromium-driver)"
        );
    }
    let major = browser
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    match major {
        Some(major) if major >= CHROMIUM_MIN_MAJOR => Ok(browser.to_owned()),
        Some(_) => bail!(
            "chromium {browser} is older than the browser test's minimum, major \
             {CHROMIUM_MIN_MAJOR}; update it (apt-get install chromium chromium-driver) or lower \
             CHROMIUM_MIN_MAJOR in xtask/src/debian.rs"
        ),
        None => bail!("chromium reports a version without a major: {browser}"),
    }
}

/// `<bin> --version` prints `<name> <version> ...` (`Chromium 148.0.7778.167 built on
/// Debian ...`, `ChromeDriver 148.0.7778.167 (...)`): the word after `name`.
fn version_after(bin: &Path, name: &str) -> Option<String> {
    let out = Command::new(bin).arg("--version").output().ok()?;
    parse_version_after(&String::from_utf8_lossy(&out.stdout), name)
}

fn parse_version_after(text: &str, name: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    words.find(|w| *w == name)?;
    words
        .next()
        .filter(|v| v.bytes().next().is_some_and(|b| b.is_ascii_digit()))
        .map(str::to_owned)
}

/// Step 4: `redis-server`, `haproxy` and `tmux` from apt, at the pinned series.
pub(crate) fn install_packages(tools: &Tools) -> Result<()> {
    let inputs: Vec<&[u8]> = PACKAGES
        .iter()
        .flat_map(|p| [p.name.as_bytes(), p.series.as_bytes()])
        .collect();
    let stamp = Stamp::new(&tools.root, &inputs).named("debian.stamp");
    let missing: Vec<&Package> = PACKAGES.iter().filter(|p| !pinned(p, tools)).collect();
    if missing.is_empty() && stamp.matches() {
        eprintln!(
            "setup: redis-server {REDIS_SERIES}, haproxy {HAPROXY_SERIES} and tmux \
             {TMUX_SERIES} already installed"
        );
        return Ok(());
    }
    stamp.clear();
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|p| p.name).collect();
        apt_install(&names)?;
    }
    for package in PACKAGES {
        let bin = (package.bin)(tools);
        let version = verify(package, bin)?;
        eprintln!("setup: {} {version} ok ({})", package.name, bin.display());
    }
    stamp.write()
}

/// The version `bin` reports, or an error saying why it is not the pinned series.
fn verify(package: &Package, bin: &Path) -> Result<String> {
    match (package.version)(bin) {
        Some(v) if series_of(&v) == Some(package.series) => Ok(v),
        Some(v) => bail!(
            "{} reports version {v}, but the tests are pinned to {} {}.x (Debian 12's); \
             install that series or update the pin in xtask/src/debian.rs",
            bin.display(),
            package.name,
            package.series
        ),
        None => bail!(
            "{} (the package {}) is missing or does not report its version",
            bin.display(),
            package.name
        ),
    }
}

/// Whether the package's binary is there and of the pinned series.
fn pinned(package: &Package, tools: &Tools) -> bool {
    let bin = (package.bin)(tools);
    (package.version)(bin)
        .as_deref()
        .and_then(series_of)
        .is_some_and(|s| s == package.series)
}

/// `apt-get install -y <names>` (after `apt-get update` if the first try fails: a fresh
/// container has no package lists).
fn apt_install(names: &[&str]) -> Result<()> {
    if !is_root() {
        bail!(
            "setup needs {} from the distribution's packages and is not root; run \
             `sudo apt-get install -y {}` (or run `cargo xtask setup` as root)",
            names.join(" and "),
            names.join(" ")
        );
    }
    eprintln!("setup: installing {} with apt-get", names.join(", "));
    let install = || {
        let mut cmd = Command::new("apt-get");
        cmd.args(["install", "-y", "--no-install-recommends"])
            .args(names)
            .env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    let what = format!("apt-get install -y {}", names.join(" "));
    if run_quiet(&mut install(), &what, "apt-get (Debian or Ubuntu)").is_ok() {
        return Ok(());
    }
    let mut update = Command::new("apt-get");
    update.arg("update");
    run_quiet(&mut update, "apt-get update", "apt-get (Debian or Ubuntu)")?;
    run_quiet(&mut install(), &what, "apt-get (Debian or Ubuntu)")
}

/// Whether this process runs as root (`id -u` is 0).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `redis-server --version` prints `Redis server v=7.0.15 sha=...`: `7.0.15`.
fn redis_version(bin: &Path) -> Option<String> {
    let out = Command::new(bin).arg("--version").output().ok()?;
    parse_redis_version(&String::from_utf8_lossy(&out.stdout))
}

fn parse_redis_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find_map(|word| word.strip_prefix("v="))
        .map(str::to_owned)
}

/// `haproxy -v` prints `HAProxy version 2.6.12-1+deb12u3 2023/...`: `2.6.12-1+deb12u3`.
fn haproxy_version(bin: &Path) -> Option<String> {
    let out = Command::new(bin).arg("-v").output().ok()?;
    parse_haproxy_version(&String::from_utf8_lossy(&out.stdout))
}

fn parse_haproxy_version(text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    words.find(|w| *w == "version")?;
    words.next().map(str::to_owned)
}

/// `tmux -V` prints `tmux 3.3a`: `3.3a`.
fn tmux_version(bin: &Path) -> Option<String> {
    let out = Command::new(bin).arg("-V").output().ok()?;
    parse_tmux_version(&String::from_utf8_lossy(&out.stdout))
}

fn parse_tmux_version(text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    words.find(|w| *w == "tmux")?;
    words
        .next()
        .filter(|v| v.bytes().next().is_some_and(|b| b.is_ascii_digit()))
        .map(str::to_owned)
}

/// `7.0.15` -> `7.0`; `2.6.12-1+deb12u3` -> `2.6`; `3.3a` -> `3.3` (tmux names its patch
/// releases with a letter).
fn series_of(version: &str) -> Option<&str> {
    let mut dots = version.match_indices('.');
    let (second, _) = dots.nth(1).unwrap_or((version.len(), ""));
    let series = &version[..second];
    let (major, minor) = series.split_once('.')?;
    let minor = minor.trim_end_matches(|c: char| c.is_ascii_lowercase());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(major) && digits(minor)).then_some(&series[..major.len() + 1 + minor.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_the_binaries_output() {
        let redis = "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 \
                     build=e08dbad3e06f3fb\n";
        assert_eq!(parse_redis_version(redis).as_deref(), Some("7.0.15"));
        let haproxy = "HAProxy version 2.6.12-1+deb12u3 2025/09/26 - https://haproxy.org/\n\
                       Status: long-term supported branch - will stop receiving fixes around Q2 2027.\n";
        assert_eq!(
            parse_haproxy_version(haproxy).as_deref(),
            Some("2.6.12-1+deb12u3")
        );
        assert_eq!(parse_redis_version("redis-cli 7.0.15"), None);
        assert_eq!(parse_haproxy_version(""), None);
        assert_eq!(parse_tmux_version("tmux 3.3a\n").as_deref(), Some("3.3a"));
        assert_eq!(parse_tmux_version("tmux next-3.4\n"), None);
        assert_eq!(parse_tmux_version(""), None);
    }

    #[test]
    fn another_series_or_a_missing_binary_is_a_clear_failure() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = std::env::temp_dir().join(format!("xtask-debian-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("redis-server");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho 'Redis server v=6.2.14 sha=0 malloc=libc'\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let redis = &PACKAGES[0];
        let wrong = verify(redis, &fake).unwrap_err().to_string();
        std::fs::write(&fake, "#!/bin/sh\necho 'Redis server v=7.0.15 sha=0'\n").unwrap();
        let right = verify(redis, &fake);
        let missing = verify(redis, &dir.join("absent")).unwrap_err().to_string();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            wrong.contains("reports version 6.2.14") && wrong.contains("redis-server 7.0.x"),
            "{wrong}"
        );
        assert_eq!(right.unwrap(), "7.0.15");
        assert!(missing.contains("is missing"), "{missing}");
    }

    #[test]
    fn chromium_and_its_driver_must_be_one_build_of_at_least_the_minimum() {
        let browser = "Chromium 148.0.7778.167 built on Debian GNU/Linux 12 (bookworm)\n";
        let driver = "ChromeDriver 148.0.7778.167 (65db666ac2cf205fcc36db8bb5b9cd87f94808ac-\
                      refs/branch-heads/7778@{#2783})\n";
        let browser = parse_version_after(browser, "Chromium");
        let driver = parse_version_after(driver, "ChromeDriver");
        assert_eq!(browser.as_deref(), Some("148.0.7778.167"));
        assert_eq!(
            check_browser_versions(browser.as_deref(), driver.as_deref()).unwrap(),
            "148.0.7778.167"
        );
        let skewed = check_browser_versions(Some("148.0.7778.167"), Some("147.0.7727.137"))
            .unwrap_err()
            .to_string();
        assert!(skewed.contains("must be the same build"), "{skewed}");
        let old = check_browser_versions(Some("120.0.6099.224"), Some("120.0.6099.224"))
            .unwrap_err()
            .to_string();
        assert!(
            old.contains("older than the browser test's minimum"),
            "{old}"
        );
        let missing = check_browser_versions(Some("148.0.7778.167"), None)
            .unwrap_err()
            .to_string();
        assert!(missing.contains("chromedriver is missing"), "{missing}");
        assert_eq!(parse_version_after("Chromium is here", "Chromium"), None);
        assert_eq!(parse_version_after("", "ChromeDriver"), None);
    }

    #[test]
    fn the_series_is_major_dot_minor() {
        assert_eq!(series_of("7.0.15"), Some("7.0"));
        assert_eq!(series_of("2.6.12-1+deb12u3"), Some("2.6"));
        assert_eq!(series_of("7.0"), Some("7.0"));
        assert_eq!(series_of("3.3a"), Some("3.3"));
        assert_eq!(series_of("3.a"), None);
        assert_eq!(series_of("7"), None);
        assert_eq!(series_of("v7.0.1"), None);
        // 7.10 is not 7.1.
        assert_ne!(series_of("7.10.2"), Some("7.1"));
    }
}
