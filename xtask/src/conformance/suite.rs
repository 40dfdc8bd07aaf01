//! One run of the conformance suite ([`Suite::run`]) and how its output is judged ([`Leg`]):
//! the summary's scenarios, checks that passed none, skipped checks.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use serde_json::Value;

use super::SKIPPED_BY_DESIGN;

/// How to run the suite.
pub(super) struct Suite {
    pub(super) node: PathBuf,
    pub(super) script: PathBuf,
    pub(super) out_dir: PathBuf,
}

/// One run of the suite and what it printed.
pub(super) struct Leg {
    pub(super) name: String,
    pub(super) status: std::process::ExitStatus,
    pub(super) output: Vec<String>,
    /// Scenarios that may pass no check (see [`SKIPPED_BY_SUITE`](super::SKIPPED_BY_SUITE)).
    pub(super) excused: &'static [&'static str],
    /// The checks reported as skipped, but for those [`SKIPPED_BY_DESIGN`], as
    /// `<scenario>: <check>`.
    pub(super) skipped: Vec<String>,
    /// A one-scenario run ([`Suite::run_strict`]) that passes only if it counted at least one
    /// passed or failed check (the suite exits 0 when every check was skipped).
    pub(super) strict: bool,
}

impl Suite {
    /// Runs one scenario (`args` name it with `--scenario`) and judges it strictly: any
    /// skipped check fails it (server scenarios too), and so does a run that counted no check.
    pub(super) fn run_strict(&self, name: &str, args: &[&str]) -> Result<Leg> {
        let mut leg = self.run_collecting(name, args, true)?;
        leg.strict = true;
        Ok(leg)
    }

    /// Runs the suite with `args` (plus `-o <out-dir>/<leg>`), echoing its output.
    pub(super) fn run(&self, name: &str, args: &[&str]) -> Result<Leg> {
        // Client legs only: some server scenarios skip checks by the server's choices
        // (optional features), and the server legs judge by the suite's verdicts.
        self.run_collecting(name, args, args.first() == Some(&"client"))
    }

    /// [`run`](Self::run), collecting the skipped checks when `skipped` says so.
    fn run_collecting(&self, name: &str, args: &[&str], collect_skipped: bool) -> Result<Leg> {
        let dir = self.out_dir.join(name.replace([' ', '/'], "_"));
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!("\n$ conformance {}", args.join(" "));
        let mut child = Command::new(&self.node)
            .arg(&self.script)
            .args(args)
            .arg("-o")
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("could not start {}", self.script.display()))?;
        // The suite prints on both streams (check lines and results on stderr): echo both,
        // keep both.
        let stderr = child.stderr.take().map(|stderr| {
            std::thread::spawn(move || {
                let mut lines = Vec::new();
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    eprintln!("{line}");
                    lines.push(strip_ansi(&line));
                }
                lines
            })
        });
        let mut output = Vec::new();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                let line = line.context("reading the suite's output")?;
                println!("{line}");
                output.push(strip_ansi(&line));
            }
        }
        if let Some(thread) = stderr {
            output.extend(thread.join().unwrap_or_default());
        }
        let status = child.wait()?;
        let mut skipped = Vec::new();
        if collect_skipped {
            skipped_checks(&dir, &mut skipped)?;
        }
        Ok(Leg {
            name: name.to_owned(),
            status,
            output,
            excused: &[],
            skipped,
            strict: false,
        })
    }
}

/// Collects the skipped checks of every `checks.json` under `dir` (one directory per
/// scenario, named `<scenario>-<timestamp>`), but those [`SKIPPED_BY_DESIGN`].
pub(super) fn skipped_checks(dir: &Path, out: &mut Vec<String>) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            skipped_checks(&path, out)?;
            continue;
        }
        if path.file_name().is_none_or(|n| n != "checks.json") {
            continue;
        }
        let scenario = path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let checks: Vec<Value> = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a list of checks", path.display()))?;
        for check in checks {
            if check["status"] != "SKIPPED" {
                continue;
            }
            let name = check["name"].as_str().unwrap_or_default();
            let by_design = SKIPPED_BY_DESIGN
                .iter()
                .any(|(s, n)| scenario.starts_with(s) && *n == name);
            if !by_design {
                out.push(format!("{scenario}: {name}"));
            }
        }
    }
    Ok(())
}

impl Leg {
    /// Whether the suite ran `scenario` in this leg (a server leg's header, or a client
    /// requirements run's start line).
    pub(super) fn ran(&self, scenario: &str) -> bool {
        let header = format!("=== Running scenario: {scenario} ===");
        let start = format!("Starting scenario: {scenario}");
        self.output
            .iter()
            .any(|l| l.contains(&header) || l.trim_end() == start)
    }

    /// Exit code zero, no scenario marked failed in the summary, and none that passed no
    /// check at all (a scenario that only reports INFO, like `server-sse-polling` when the
    /// server does not close the stream, proves nothing).
    pub(super) fn passed(&self) -> bool {
        self.status.success()
            && self.skipped.is_empty()
            && (!self.strict || self.counted_checks() > 0)
            && !self.summary().iter().any(|l| {
                let l = l.trim_start();
                let scenario = l.trim_start_matches(['✗', '✓']).trim_start();
                let vacuous = l.starts_with('✓') && l.contains(": 0 passed, 0 failed");
                let excused = vacuous
                    && self
                        .excused
                        .iter()
                        .any(|name| scenario.starts_with(&format!("{name}:")));
                l.starts_with('✗') || (l.starts_with('✓') && l.contains(": 0 passed") && !excused)
            })
    }

    /// The passed and failed checks a one-scenario run counted (its `Passed: <n>/<counted>`
    /// line; skipped, warning and info checks are not counted), 0 without that line.
    pub(super) fn counted_checks(&self) -> usize {
        self.output
            .iter()
            .filter_map(|l| l.trim_start().strip_prefix("Passed: "))
            .filter_map(|rest| rest.split_once('/'))
            .filter_map(|(_, rest)| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<usize>().ok()
            })
            .sum()
    }

    /// The suite's summary: the lines after `=== SUMMARY ===` (multi-scenario runs), else
    /// the `Passed:` line and the failed checks (single-scenario runs).
    pub(super) fn summary(&self) -> Vec<&str> {
        let lines = self.output.iter().map(String::as_str);
        if let Some(start) = self
            .output
            .iter()
            .position(|l| l.contains("=== SUMMARY ==="))
        {
            return lines
                .skip(start + 1)
                .filter(|l| !l.trim().is_empty())
                .collect();
        }
        lines
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("Passed:") || t.contains("FAILURE") || t.contains("WARNING")
            })
            .collect()
    }
}

/// `line` without ANSI escape sequences (the suite colours its output).
pub(super) fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC '[' parameters, ended by a letter.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
