//! The CHANGELOG: the last release, the cut of `## [Unreleased]`.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

use super::version::Version;

/// The version of the CHANGELOG's latest release heading (`## [X.Y.Z] - date`), if any.
pub(super) fn last_release(changelog: &str) -> Result<Option<Version>> {
    for line in changelog.lines() {
        if let Some(name) = release_heading(line)
            && !name.eq_ignore_ascii_case("unreleased")
        {
            return name
                .parse()
                .map(Some)
                .with_context(|| format!("CHANGELOG heading {line:?}"));
        }
    }
    Ok(None)
}

/// `X` of a `## [X]...` line.
pub(super) fn release_heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## [")?;
    rest.split_once(']').map(|(name, _)| name)
}

/// The CHANGELOG with its `## [Unreleased]` section cut as a release.
#[derive(Debug)]
pub(super) struct Cut {
    /// The new text of CHANGELOG.md.
    pub(super) text: String,
    /// The released section's lines (without the heading, trailing blank lines dropped).
    pub(super) section_lines: usize,
    /// Its `### ...` subsections and the entries (`- ` lines) of each.
    pub(super) subsections: Vec<(String, usize)>,
}

pub(super) fn cut_changelog(changelog: &str, new: &Version, date: &str) -> Result<Cut> {
    let lines: Vec<&str> = changelog.lines().collect();
    let start = lines
        .iter()
        .position(|l| release_heading(l).is_some_and(|n| n.eq_ignore_ascii_case("unreleased")))
        .context("CHANGELOG.md has no `## [Unreleased]` section")?;
    if lines
        .iter()
        .any(|l| release_heading(l) == Some(new.to_string().as_str()))
    {
        bail!("CHANGELOG.md already has a section for {new}");
    }
    let end = lines[start + 1..]
        .iter()
        .position(|l| release_heading(l).is_some() || l.starts_with("[Unreleased]:"))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut body = &lines[start + 1..end];
    while let [rest @ .., last] = body
        && last.trim().is_empty()
    {
        body = rest;
    }
    let mut subsections: Vec<(String, usize)> = Vec::new();
    let mut entries = 0;
    for line in body {
        if let Some(title) = line.strip_prefix("### ") {
            subsections.push((title.trim().to_owned(), 0));
        } else if line.starts_with("- ") {
            entries += 1;
            if let Some(last) = subsections.last_mut() {
                last.1 += 1;
            }
        }
    }
    if entries == 0 {
        bail!("CHANGELOG.md: `## [Unreleased]` has no entries: nothing to release");
    }
    let mut text = String::new();
    for line in &lines[..start] {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("{}\n\n## [{new}] - {date}\n", lines[start]));
    for line in &lines[start + 1..] {
        text.push_str(line);
        text.push('\n');
    }
    Ok(Cut {
        text,
        section_lines: body.len(),
        subsections,
    })
}

pub(super) fn summary(subsections: &[(String, usize)]) -> String {
    if subsections.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = subsections
        .iter()
        .map(|(title, n)| format!("{title} {n}"))
        .collect();
    format!("; entries: {}", parts.join(", "))
}

/// `YYYY-MM-DD` of `now`, in UTC.
pub(super) fn utc_date(now: SystemTime) -> String {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub(super) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
