//! `cargo xtask conformance`: runs the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, pinned in `xtask/peers/package.json`) against
//! `everything-server --http` and with `everything-client`.
//!
//! 1. `setup::setup()` installs Node 22 and the pinned suite; cargo builds the two examples.
//! 2. The rest runs inside a private network namespace with only loopback (`unshare -n`,
//!    then `ip link set lo up`), because the suite's mock servers bind every interface: this
//!    command re-executes itself there as `conformance-netns`.
//! 3. There it starts `everything-server --http 127.0.0.1:3000`, waits until the port
//!    accepts connections, and runs the legs: `server --requirements 2025-11-25` (every scored
//!    server scenario), `server --requirements 2026-07-28` (every scored scenario and the
//!    pending ones, and the unscored `tasks-*` extension scenarios, served with `--tasks`; the
//!    one the suite itself skips is [`SKIPPED_BY_SUITE`]), the unscored `server-session-lifecycle`, `json-schema-2020-12` and
//!    `server-sse-polling` (explicitly unless the requirements run already ran them), and the
//!    client legs against `everything-client`: `client --requirements 2025-11-25` and
//!    `client --requirements 2026-07-28` (every client scenario of each revision, the
//!    authorization ones and their extensions included), each twice: in the era the suite
//!    names, and in the client's default era choice (auto), see [`CLIENT_REQUIREMENTS`]. The
//!    authorization scenarios neither set runs (the 2025-03-26 back-compat ones; the full list
//!    is [`AUTH_CLIENT_SCENARIOS`], checked against the suite's) run one suite run each. So
//!    do the Skills extension's (SEP-2640) scenarios, which no requirement set names: the
//!    three server ones against `everything-server` ([`SKILLS_SERVER_SCENARIOS`]) and the
//!    four client ones against `everything-client`, in the suite's era and in auto
//!    ([`SKILLS_CLIENT_SCENARIOS`]), both lists checked against the suite's `sep-2640-*`.
//! 4. The load-balanced legs (`lb.rs`): redis-server, two `everything-server --tasks --redis
//!    <url>` instances and haproxy in front (round-robin, no stickiness); `server
//!    --requirements 2025-11-25` and `2026-07-28` (and the unscored server scenarios) run
//!    against haproxy's URL and must pass like the single-server legs.
//! 5. The proxy legs: `mcp proxy --listen 127.0.0.1:3001 -- everything-server --tasks
//!    --skills` (the `mcp` command line serving the stdio server over Streamable HTTP, see
//!    [`PROXY_ADDR`]); `server --requirements 2025-11-25` and `2026-07-28` (the unscored server
//!    scenarios too) and the Skills extension's server scenarios run against the proxy's URL
//!    and must pass like the direct legs, but for [`VACUOUS_THROUGH_PROXY`].
//!
//! A leg fails if the suite exits non-zero or its summary marks a scenario `✗` (the
//! requirements run reports unscored scenarios without counting them in its exit code),
//! shows one that passed no check, or (client legs, and the Skills extension's server legs)
//! reports a skipped check (but those [`SKIPPED_BY_DESIGN`]): no client scenario passes on
//! checks that did not run. A one-scenario Skills leg must also count at least one passed or
//! failed check (the suite exits 0 when it skipped them all). The suite's summaries are
//! printed at the end; results go to `target/conformance/`, the
//! server's log to `target/conformance/everything-server.log` (the proxy's, with its stdio
//! server's, to `target/conformance/mcp-proxy.log`). There is no expected-failures
//! file: everything must pass.

use std::fs::File;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{lb, setup};

mod suite;

use suite::{Leg, Suite};

/// Where the server listens inside the namespace (nothing else is there to take the port).
const ADDR: &str = "127.0.0.1:3000";

/// The server scenarios that `--requirements 2025-11-25` reports without scoring; they must
/// pass too.
const UNSCORED_SERVER: &[&str] = &[
    "server-session-lifecycle",
    "json-schema-2020-12",
    "server-sse-polling",
];

/// Where `mcp proxy` listens inside the namespace, in front of `everything-server` on stdio.
const PROXY_ADDR: &str = "127.0.0.1:3001";

/// Scenarios that pass no check through `mcp proxy` (but fail none): `server-sse-polling`
/// needs the server to close a request's SSE stream mid-call (SEP-1699), which is a decision
/// of the HTTP server about its own streams; the stdio server behind the proxy has no stream
/// to close (`everything-server`'s `test_reconnection` answers at once on stdio), so the
/// answer comes as plain JSON and the scenario reports only INFO. It runs, and must pass,
/// in the direct and load-balanced legs.
const VACUOUS_THROUGH_PROXY: &[&str] = &["tasks-status-notifications", "server-sse-polling"];

/// Scenarios the suite runs but whose every check it reports as skipped, so they pass no
/// check: `tasks-status-notifications` (its harness predates `subscriptions/listen`, where
/// the tasks extension delivers status notifications). Any other scenario that passes no
/// check fails its leg.
const SKIPPED_BY_SUITE: &[&str] = &["tasks-status-notifications"];

/// The client legs: the suite's requirement sets, each run twice: with the era the suite
/// names (`MCP_CONFORMANCE_PROTOCOL_VERSION`), and with `everything-client` in its default
/// era choice (auto: `server/discover` first, `initialize` if the server is of the handshake
/// era), which must pass the same scenarios.
const CLIENT_REQUIREMENTS: &[&str] = &["2025-11-25", "2026-07-28"];

/// Checks the suite reports as skipped that no correct client can run: `http-standard-headers`
/// looks for `Mcp-Method` on `initialize` and `notifications/initialized`, which a 2026-07-28
/// client never sends. Any other skipped check fails its leg: a scenario must not pass on
/// checks that did not run.
const SKIPPED_BY_DESIGN: &[(&str, &str)] = &[
    ("http-standard-headers", "ClientMcpMethodHeader_initialize"),
    (
        "http-standard-headers",
        "ClientMcpMethodHeader_notifications_initialized",
    ),
];

/// The `auth/*` client scenarios: every one the suite has.
const AUTH_CLIENT_SCENARIOS: &[&str] = &[
    // Required by 2025-11-25.
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    // 2025-03-26 back-compat.
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    // Added by 2026-07-28 (run on its stateless wire).
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    // The extensions: client credentials, enterprise-managed authorization (ID-JAG), DPoP,
    // workload identity federation.
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
];

/// The Skills extension's (`io.modelcontextprotocol/skills`, SEP-2640) server scenarios, run
/// one by one against `everything-server` (the suite runs an extension's server scenarios on
/// 2026-07-28). No requirement set names them; every `sep-2640-*` scenario of the suite must
/// be here or in [`SKILLS_CLIENT_SCENARIOS`] (checked against `conformance list`).
const SKILLS_SERVER_SCENARIOS: &[&str] = &[
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

/// The Skills extension's client scenarios, each run against `everything-client` twice: in
/// the era the suite names (it names 2025-11-25 for extension scenarios, so the client opens
/// with `initialize`), and in the client's default era choice (auto: the mock answers
/// `server/discover`, so 2026-07-28).
const SKILLS_CLIENT_SCENARIOS: &[&str] = &[
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

/// `cargo xtask conformance`: setup, build, then the legs in a private network namespace.
pub(crate) fn conformance() -> Result<()> {
    let tools = setup::setup()?;
    check_coverage(&tools)?;
    let bins = build_bins(&["everything-server", "everything-client", "mcp"])?;
    let out_dir = crate::cargo_target_dir(&crate::workspace_root())?.join("conformance");
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let xtask = std::env::current_exe().context("cannot find the xtask executable")?;
    eprintln!("conformance: entering a private network namespace (unshare -n)");
    let status = Command::new("unshare")
        .args(["-n", "sh", "-c", r#"ip link set lo up && exec "$0" "$@""#])
        .arg(&xtask)
        .arg("conformance-netns")
        .args([&bins[0], &bins[1], &out_dir, &bins[2]])
        .envs(setup::env_vars(&tools))
        .status()
        .context("could not run `unshare -n` (util-linux); it needs CAP_SYS_ADMIN or root")?;
    if !status.success() {
        bail!("conformance failed ({status})");
    }
    Ok(())
}

/// Fails unless [`AUTH_CLIENT_SCENARIOS`] is exactly the suite's `auth/*` client scenarios and
/// [`SKILLS_SERVER_SCENARIOS`] with [`SKILLS_CLIENT_SCENARIOS`] exactly its `sep-2640-*` ones
/// (from `conformance list`), so that a new suite version's scenarios are not silently skipped.
fn check_coverage(tools: &setup::Tools) -> Result<()> {
    let output = Command::new(&tools.node)
        .arg(tools.npm_bin.join("conformance"))
        .arg("list")
        .envs(setup::env_vars(tools))
        .output()
        .context("could not run `conformance list`")?;
    if !output.status.success() {
        bail!("`conformance list` failed ({})", output.status);
    }
    let list = String::from_utf8_lossy(&output.stdout);
    let skills: Vec<&str> = SKILLS_SERVER_SCENARIOS
        .iter()
        .chain(SKILLS_CLIENT_SCENARIOS)
        .copied()
        .collect();
    for (prefix, ours, name) in [
        ("auth/", AUTH_CLIENT_SCENARIOS, "AUTH_CLIENT_SCENARIOS"),
        (
            "sep-2640-",
            &skills[..],
            "SKILLS_SERVER_SCENARIOS and SKILLS_CLIENT_SCENARIOS",
        ),
    ] {
        let listed = suite_scenarios(&list, prefix);
        if listed.is_empty() {
            bail!("`conformance list` named no {prefix}* scenario; has its output format changed?");
        }
        let missing: Vec<&str> = listed
            .iter()
            .map(String::as_str)
            .filter(|s| !ours.contains(s))
            .collect();
        let stale: Vec<&str> = ours
            .iter()
            .copied()
            .filter(|s| !listed.iter().any(|l| l == s))
            .collect();
        if !missing.is_empty() || !stale.is_empty() {
            bail!(
                "{name} is out of date with the suite: not run {missing:?}, \
                 no longer in the suite {stale:?}"
            );
        }
    }
    Ok(())
}

/// The scenario names starting with `prefix` in `conformance list` output (lines like
/// `- auth/dpop [extension]`).
fn suite_scenarios(list: &str, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = list
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| name.starts_with(prefix))
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `conformance-netns <server> <client> <out-dir> <mcp>`: the legs, run inside the namespace.
pub(crate) fn in_netns(args: &[String]) -> Result<()> {
    let [server, client, out_dir, mcp] = args else {
        bail!(
            "usage: xtask conformance-netns <everything-server> <everything-client> <out-dir> \
             <mcp>"
        );
    };
    let tools = setup::tools();
    let suite = Suite {
        node: tools.node.clone(),
        script: tools.npm_bin.join("conformance"),
        out_dir: PathBuf::from(out_dir),
    };
    let log = suite.out_dir.join("everything-server.log");
    let server_bin = PathBuf::from(server);
    let server = ServerProcess::start(
        "everything-server",
        Command::new(&server_bin).args(["--tasks", "--skills", "--http", ADDR]),
        ADDR,
        &log,
    )?;
    let url = format!("http://{ADDR}/mcp");

    let mut legs = Vec::new();
    let requirements = suite.run(
        "server --requirements 2025-11-25",
        &["server", "--url", &url, "--requirements", "2025-11-25"],
    )?;
    for scenario in UNSCORED_SERVER {
        if !requirements.ran(scenario) {
            let leg = suite.run(
                &format!("server --scenario {scenario}"),
                &["server", "--url", &url, "--scenario", scenario],
            )?;
            legs.push(leg);
        }
    }
    legs.insert(0, requirements);
    let mut modern = suite.run(
        "server --requirements 2026-07-28",
        &["server", "--url", &url, "--requirements", "2026-07-28"],
    )?;
    modern.excused = SKIPPED_BY_SUITE;
    legs.insert(1, modern);
    // The Skills extension's server scenarios (2026-07-28), strictly: every check must run.
    for scenario in SKILLS_SERVER_SCENARIOS {
        legs.push(suite.run_strict(
            &format!("server --scenario {scenario}"),
            &["server", "--url", &url, "--scenario", scenario],
        )?);
    }
    legs.extend(load_balanced(&suite, &server_bin));
    legs.extend(through_proxy(&suite, Path::new(mcp), &server_bin));
    let auto = format!("env -u MCP_CONFORMANCE_PROTOCOL_VERSION {client}");
    for requirements in CLIENT_REQUIREMENTS {
        for (command, era) in [(client.as_str(), ""), (auto.as_str(), " (auto era)")] {
            let leg = suite.run(
                &format!("client --requirements {requirements}{era}"),
                &[
                    "client",
                    "--command",
                    command,
                    "--requirements",
                    requirements,
                ],
            )?;
            legs.push(leg);
        }
    }
    // The Skills extension's client scenarios, in the era the suite names and in auto.
    for scenario in SKILLS_CLIENT_SCENARIOS {
        for (command, era) in [(client.as_str(), ""), (auto.as_str(), " (auto era)")] {
            legs.push(suite.run_strict(
                &format!("client --scenario {scenario}{era}"),
                &["client", "--command", command, "--scenario", scenario],
            )?);
        }
    }
    // The authorization scenarios no requirement set runs (the 2025-03-26 back-compat ones),
    // one suite run each.
    for scenario in AUTH_CLIENT_SCENARIOS {
        if legs.iter().any(|leg| leg.ran(scenario)) {
            continue;
        }
        legs.push(suite.run(
            &format!("client --scenario {scenario}"),
            &["client", "--command", client, "--scenario", scenario],
        )?);
    }
    let server_exit = server.stop();

    println!("\n==================== conformance summary ====================");
    let mut failed = Vec::new();
    for leg in &legs {
        let verdict = if leg.passed() { "PASS" } else { "FAIL" };
        let code = leg
            .status
            .code()
            .map_or("signal".to_owned(), |c| c.to_string());
        println!("[{verdict}] {} (exit {code})", leg.name);
        for line in leg.summary() {
            println!("    {line}");
        }
        for check in &leg.skipped {
            println!("    skipped, so not proven: {check}");
        }
        if !leg.passed() {
            failed.push(leg.name.as_str());
        }
    }
    if let Some(note) = server_exit {
        println!("everything-server: {note} (log: {})", log.display());
    }
    if failed.is_empty() {
        println!("conformance: all {} legs passed", legs.len());
        Ok(())
    } else {
        println!("conformance legs failed: {}", failed.join(", "));
        println!("server log: {}", log.display());
        // The outer `conformance` reports the failure; no second error (and backtrace) here.
        std::process::exit(1);
    }
}

/// The load-balanced legs (`lb.rs`): each of [`lb::REQUIREMENTS`] against haproxy in front
/// of `everything-server` instances sharing Redis, plus [`UNSCORED_SERVER`] where the first
/// run did not run them. A deployment that does not start is one failed leg saying why.
fn load_balanced(suite: &Suite, server: &Path) -> Vec<Leg> {
    let failed = |name: &str, why: String| Leg {
        name: name.to_owned(),
        status: std::os::unix::process::ExitStatusExt::from_raw(1 << 8),
        output: why.lines().map(|l| format!("FAILURE: {l}")).collect(),
        excused: &[],
        skipped: Vec::new(),
        strict: false,
    };
    let deployment = match lb::Deployment::start(server, &suite.out_dir) {
        Ok(deployment) => deployment,
        Err(e) => return vec![failed("load-balanced deployment", format!("{e:#}"))],
    };
    let url = deployment.url();
    let mut legs = Vec::new();
    for requirements in lb::REQUIREMENTS {
        let name = format!("server --requirements {requirements} (load-balanced)");
        let args = ["server", "--url", &url, "--requirements", requirements];
        match suite.run(&name, &args) {
            Ok(mut leg) => {
                if *requirements == "2026-07-28" {
                    leg.excused = SKIPPED_BY_SUITE;
                }
                legs.push(leg);
            }
            Err(e) => legs.push(failed(&name, format!("{e:#}"))),
        }
    }
    for scenario in UNSCORED_SERVER {
        if legs.iter().any(|leg| leg.ran(scenario)) {
            continue;
        }
        let name = format!("server --scenario {scenario} (load-balanced)");
        let args = ["server", "--url", &url, "--scenario", scenario];
        legs.push(
            suite
                .run(&name, &args)
                .unwrap_or_else(|e| failed(&name, format!("{e:#}"))),
        );
    }
    for note in deployment.stop() {
        legs.push(failed("load-balanced instances", note));
    }
    legs
}

/// The proxy legs: `mcp proxy` in front of `everything-server --tasks --skills` on stdio,
/// the server requirement sets (and the unscored scenarios, and the Skills extension's
/// strictly) run against it. A proxy that does not start is one failed leg saying why.
fn through_proxy(suite: &Suite, mcp: &Path, server: &Path) -> Vec<Leg> {
    let failed = |name: &str, why: String| Leg {
        name: name.to_owned(),
        status: std::os::unix::process::ExitStatusExt::from_raw(1 << 8),
        output: why.lines().map(|l| format!("FAILURE: {l}")).collect(),
        excused: &[],
        skipped: Vec::new(),
        strict: false,
    };
    let log = suite.out_dir.join("mcp-proxy.log");
    let mut command = Command::new(mcp);
    command
        .args(["proxy", "--listen", PROXY_ADDR, "--"])
        .arg(server)
        .args(["--tasks", "--skills"]);
    let proxy = match ServerProcess::start("mcp proxy", &mut command, PROXY_ADDR, &log) {
        Ok(proxy) => proxy,
        Err(e) => return vec![failed("mcp proxy", format!("{e:#}"))],
    };
    let url = format!("http://{PROXY_ADDR}/mcp");
    let mut legs = Vec::new();
    for requirements in ["2025-11-25", "2026-07-28"] {
        let name = format!("server --requirements {requirements} (mcp proxy)");
        let args = ["server", "--url", &url, "--requirements", requirements];
        match suite.run(&name, &args) {
            Ok(mut leg) => {
                leg.excused = VACUOUS_THROUGH_PROXY;
                legs.push(leg);
            }
            Err(e) => legs.push(failed(&name, format!("{e:#}"))),
        }
    }
    for scenario in UNSCORED_SERVER {
        if legs.iter().any(|leg| leg.ran(scenario)) {
            continue;
        }
        let name = format!("server --scenario {scenario} (mcp proxy)");
        let args = ["server", "--url", &url, "--scenario", scenario];
        legs.push(
            suite
                .run(&name, &args)
                .unwrap_or_else(|e| failed(&name, format!("{e:#}"))),
        );
    }
    for scenario in SKILLS_SERVER_SCENARIOS {
        let name = format!("server --scenario {scenario} (mcp proxy)");
        let args = ["server", "--url", &url, "--scenario", scenario];
        legs.push(
            suite
                .run_strict(&name, &args)
                .unwrap_or_else(|e| failed(&name, format!("{e:#}"))),
        );
    }
    if let Some(note) = proxy.stop() {
        legs.push(failed(
            "mcp proxy",
            format!("{note} (log: {})", log.display()),
        ));
    }
    legs
}

/// A server process (`everything-server --http`, `mcp proxy`), killed when dropped.
struct ServerProcess {
    child: Child,
}

impl ServerProcess {
    /// Starts `command` (the server `what`) with its stderr in `log` and waits until `addr`
    /// accepts connections.
    fn start(what: &str, command: &mut Command, addr: &str, log: &Path) -> Result<Self> {
        let log_file =
            File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
        eprintln!("$ {command:?}  (log: {})", log.display());
        let child = command
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG").unwrap_or("info".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("could not start {what}"))?;
        let mut server = ServerProcess { child };
        let socket: SocketAddr = addr.parse()?;
        let started = Instant::now();
        loop {
            if TcpStream::connect_timeout(&socket, Duration::from_millis(200)).is_ok() {
                eprintln!("{what} is up ({:.1?})", started.elapsed());
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                bail!(
                    "{what} exited ({status}) before listening; log:\n{}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            if started.elapsed() > Duration::from_secs(30) {
                bail!("{what} did not listen on {addr} within 30 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Kills the server; says so if it had already exited on its own (it should not).
    fn stop(mut self) -> Option<String> {
        let early = match self.child.try_wait() {
            Ok(Some(status)) => Some(format!("exited early with {status}")),
            _ => None,
        };
        let _ = self.child.kill();
        let _ = self.child.wait();
        early
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds the workspace's binaries `names` and returns their paths, in order.
fn build_bins(names: &[&str]) -> Result<Vec<PathBuf>> {
    // The whole workspace's features, as the tests build it, so that a CI run links these
    // binaries from the libraries it already has instead of building a second set.
    let mut args = vec![
        "build",
        "--workspace",
        "--all-features",
        "--message-format=json-render-diagnostics",
    ];
    for name in names {
        args.extend(["--bin", name]);
    }
    eprintln!("$ cargo {}", args.join(" "));
    let out = Command::new("cargo")
        .args(&args)
        .current_dir(crate::workspace_root())
        .stderr(Stdio::inherit())
        .output()
        .context("could not run cargo build")?;
    if !out.status.success() {
        bail!("cargo build of {} failed", names.join(", "));
    }
    let mut found = vec![None; names.len()];
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let (Some(name), Some(exe)) = (msg["target"]["name"].as_str(), msg["executable"].as_str())
        else {
            continue;
        };
        if let Some(i) = names.iter().position(|n| *n == name) {
            found[i] = Some(PathBuf::from(exe));
        }
    }
    names
        .iter()
        .zip(found)
        .map(|(name, path)| path.with_context(|| format!("cargo built no executable {name}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::suite::skipped_checks;
    use super::*;

    #[test]
    fn auth_scenarios_are_read_from_the_list_output() {
        let list = "Client scenarios:\n  - initialize [2025-11-25]\n  - auth/dpop [extension]\n  \
                    - auth/basic-cimd [2025-11-25,2026-07-28]\n  - auth/dpop [extension]\n\
                    Server scenarios:\n  - ping [2025-11-25]\n";
        assert_eq!(
            suite_scenarios(list, "auth/"),
            ["auth/basic-cimd", "auth/dpop"]
        );
        assert!(suite_scenarios("", "auth/").is_empty());
        let list = "Server scenarios:\n  - sep-2640-skills-manifest [extension]\n\
                    Client scenarios:\n  - sep-2640-client-no-prefetch [extension]\n  \
                    - initialize [2025-11-25]\n";
        assert_eq!(
            suite_scenarios(list, "sep-2640-"),
            ["sep-2640-client-no-prefetch", "sep-2640-skills-manifest"]
        );
    }

    #[test]
    fn only_the_scenarios_the_suite_skips_may_pass_no_check() {
        let status = Command::new("true").status().unwrap();
        let leg = |lines: &[&str], excused| Leg {
            name: "l".to_owned(),
            status,
            output: std::iter::once("=== SUMMARY ===")
                .chain(lines.iter().copied())
                .map(str::to_owned)
                .collect(),
            excused,
            skipped: Vec::new(),
            strict: false,
        };
        let lines = [
            "✓ caching: 8 passed, 0 failed",
            "✗ tasks-lifecycle: 1 passed, 8 failed",
        ];
        // A failed scenario is never excused.
        assert!(!leg(&lines, SKIPPED_BY_SUITE).passed());
        assert!(leg(&lines[..1], &[]).passed());
        let vacuous = ["✓ tasks-status-notifications: 0 passed, 0 failed"];
        assert!(leg(&vacuous, SKIPPED_BY_SUITE).passed());
        assert!(!leg(&vacuous, &[]).passed());
        let other = ["✓ tasks-status-notifications-2: 0 passed, 0 failed"];
        assert!(!leg(&other, SKIPPED_BY_SUITE).passed());
        let mut unproven = leg(&["✓ tools_call: 2 passed, 0 failed"], &[]);
        assert!(unproven.passed());
        unproven.skipped.push("tools_call: x".to_owned());
        assert!(!unproven.passed());
    }

    #[test]
    fn a_strict_leg_must_count_a_check() {
        let status = Command::new("true").status().unwrap();
        let leg = |lines: &[&str]| Leg {
            name: "l".to_owned(),
            status,
            output: lines.iter().copied().map(str::to_owned).collect(),
            excused: &[],
            skipped: Vec::new(),
            strict: true,
        };
        assert!(leg(&["Passed: 1/1, 0 failed, 0 warnings"]).passed());
        // Every check skipped: the suite exits 0 on nothing proven.
        assert!(!leg(&["Passed: 0/0, 0 failed, 0 warnings"]).passed());
        // No summary at all.
        assert!(!leg(&["Starting scenario: sep-2640-client-no-prefetch"]).passed());
        let mut lenient = leg(&["Passed: 0/0, 0 failed, 0 warnings"]);
        lenient.strict = false;
        assert!(lenient.passed());
    }

    #[test]
    fn skipped_checks_fail_unless_by_design() {
        let dir = std::env::temp_dir().join(format!("xtask-skipped-{}", std::process::id()));
        let write = |scenario: &str, checks: &str| {
            let d = dir.join(scenario);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("checks.json"), checks).unwrap();
        };
        write(
            "http-standard-headers-2026-11-24T00-00-00Z",
            r#"[{"status":"SKIPPED","name":"ClientMcpMethodHeader_initialize"},
                {"status":"SUCCESS","name":"ClientMcpMethodHeader_tools_list"}]"#,
        );
        write(
            "auth/scope-step-up-2026-11-24T00-00-00Z",
            r#"[{"status":"SKIPPED","name":"ScopeStepUpEscalation"}]"#,
        );
        let mut skipped = Vec::new();
        skipped_checks(&dir, &mut skipped).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            skipped,
            ["scope-step-up-2026-11-24T00-00-00Z: ScopeStepUpEscalation"]
        );
    }
}
