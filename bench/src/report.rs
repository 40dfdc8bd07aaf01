//! The results of a run and their markdown report: one table per scenario group with the
//! median and range (min-max) over repetitions of each implementation and the ratios
//! ours/floor and ours/rmcp, the targets with their measured values, and a header
//! naming the machine. Comparisons of two configurations of our server (in-memory against
//! Redis stores) have tables of their own ([`pairs`]).

mod pairs;

use std::fmt::Write as _;

pub use pairs::{Pairs, Side};

use crate::stats::{Summary, summarize};

/// The implementations compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impl {
    Floor,
    Rmcp,
    Ours,
}

impl Impl {
    /// All three, in the report's column order.
    pub const ALL: [Impl; 3] = [Impl::Floor, Impl::Rmcp, Impl::Ours];

    /// The column name.
    pub fn name(self) -> &'static str {
        match self {
            Impl::Floor => "floor",
            Impl::Rmcp => "rmcp",
            Impl::Ours => "ours",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How a value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Micros,
    Millis,
    PerSecond,
    KiB,
    MegabytesPerSecond,
    Count,
    Seconds,
}

/// Formats `value` in `unit`.
pub fn format_value(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Micros if value >= 1000.0 => format!("{:.2} ms", value / 1000.0),
        Unit::Micros => format!("{value:.1} µs"),
        Unit::Millis => format!("{value:.2} ms"),
        Unit::PerSecond if value >= 1000.0 => format!("{:.1}k/s", value / 1000.0),
        Unit::PerSecond => format!("{value:.0}/s"),
        Unit::KiB => format!("{value:.1} KiB"),
        Unit::MegabytesPerSecond => format!("{value:.0} MB/s"),
        Unit::Count => format!("{value:.0}"),
        Unit::Seconds => format!("{value:.1} s"),
    }
}

/// One measured quantity of a scenario group: a value per implementation (`N = 3`), or per
/// side of a comparison table (`N = 2`).
#[derive(Debug, Clone)]
pub struct Row<const N: usize = 3> {
    pub group: String,
    pub name: String,
    pub unit: Unit,
    /// The repetitions' values, per column (implementation, or side of a pair).
    pub values: [Vec<f64>; N],
    /// Columns this row does not apply to (shown "n/a").
    pub not_applicable: [bool; N],
}

impl<const N: usize> Row<N> {
    /// The row `group`/`name` of `rows`, added (empty, with `unit`) if there is none yet.
    fn find_or_add<'a>(
        rows: &'a mut Vec<Row<N>>,
        group: &str,
        name: &str,
        unit: Unit,
    ) -> &'a mut Row<N> {
        let at = match rows.iter().position(|r| r.group == group && r.name == name) {
            Some(at) => at,
            None => {
                rows.push(Row {
                    group: group.to_owned(),
                    name: name.to_owned(),
                    unit,
                    values: std::array::from_fn(|_| Vec::new()),
                    not_applicable: [false; N],
                });
                rows.len() - 1
            }
        };
        &mut rows[at]
    }
}

/// Everything a run measured, in the order it was measured, and the calls that failed.
#[derive(Debug, Clone, Default)]
pub struct Results {
    pub rows: Vec<Row>,
    /// The tables comparing two configurations of our server.
    pub pairs: Pairs,
    pub failures: Vec<String>,
}

impl Results {
    fn row(&mut self, group: &str, name: &str, unit: Unit) -> &mut Row {
        Row::find_or_add(&mut self.rows, group, name, unit)
    }

    /// Records one repetition's `value` of `imp`.
    pub fn add(&mut self, group: &str, name: &str, unit: Unit, imp: Impl, value: f64) {
        self.row(group, name, unit).values[imp.index()].push(value);
    }

    /// Marks the row as not applicable to `imp`.
    pub fn not_applicable(&mut self, group: &str, name: &str, unit: Unit, imp: Impl) {
        self.row(group, name, unit).not_applicable[imp.index()] = true;
    }

    /// The summary of `imp`'s values in a row.
    pub fn summary(&self, group: &str, name: &str, imp: Impl) -> Option<Summary> {
        let row = self
            .rows
            .iter()
            .find(|r| r.group == group && r.name == name)?;
        summarize(&row.values[imp.index()])
    }

    /// The cells that have neither a number nor "n/a": `group / row / impl`.
    pub fn missing(&self) -> Vec<String> {
        let mut missing = Vec::new();
        for row in &self.rows {
            for imp in Impl::ALL {
                let i = imp.index();
                if !row.not_applicable[i] && summarize(&row.values[i]).is_none() {
                    missing.push(format!("{} / {} / {}", row.group, row.name, imp.name()));
                }
            }
        }
        missing.extend(self.pairs.missing());
        missing
    }

    /// Whether nothing was measured.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.pairs.is_empty()
    }
}

/// The machine and build a report was measured on.
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub cpu: String,
    pub cores: usize,
    pub kernel: String,
    pub rustc: String,
    pub date: String,
    pub commit: String,
    pub load: String,
    pub reps: usize,
    pub smoke: bool,
}

/// Which quantity an issue target compares, and how.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub label: &'static str,
    pub group: &'static str,
    pub row: &'static str,
    /// What ours is divided by: the floor, rmcp, or nothing (an absolute limit).
    pub against: Option<Impl>,
    /// Met when the measured value is at most (else at least) the threshold.
    pub at_most: bool,
    pub threshold: f64,
}

impl Target {
    /// The measured value (a ratio, or ours' median for an absolute limit) and whether it
    /// meets the target; `None` when a median is missing.
    pub fn measure(&self, results: &Results) -> Option<(f64, bool)> {
        let ours = results.summary(self.group, self.row, Impl::Ours)?.median;
        let value = match self.against {
            Some(other) => ours / results.summary(self.group, self.row, other)?.median,
            None => ours,
        };
        let met = if self.at_most {
            value <= self.threshold
        } else {
            value >= self.threshold
        };
        Some((value, met))
    }
}

fn cell(row: &Row, imp: Impl) -> String {
    format_cell(
        &row.values[imp.index()],
        row.not_applicable[imp.index()],
        row.unit,
    )
}

/// A table cell: "n/a", "–" for no value, the value, or the median (min–max) of several.
fn format_cell(values: &[f64], not_applicable: bool, unit: Unit) -> String {
    if not_applicable {
        return "n/a".to_owned();
    }
    match summarize(values) {
        None => "–".to_owned(),
        Some(s) if values.len() > 1 => format!(
            "{} ({})",
            format_value(s.median, unit),
            range(s.min, s.max, unit)
        ),
        Some(s) => format_value(s.median, unit),
    }
}

/// `min–max`, the unit written once when both share it.
fn range(min: f64, max: f64, unit: Unit) -> String {
    let (low, high) = (format_value(min, unit), format_value(max, unit));
    let number = |s: &str| {
        s.find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len())
    };
    let (low_number, low_unit) = low.split_at(number(&low));
    if low_unit == &high[number(&high)..] {
        format!("{low_number}–{high}")
    } else {
        format!("{low}–{high}")
    }
}

fn ratio(row: &Row, against: Impl) -> String {
    let ours = summarize(&row.values[Impl::Ours.index()]);
    let other = summarize(&row.values[against.index()]);
    match (ours, other) {
        (Some(a), Some(b)) if b.median != 0.0 => format!("{:.2}x", a.median / b.median),
        _ => "".to_owned(),
    }
}

/// The markdown report: header, one table per group (in the order measured), the targets.
pub fn markdown(header: &Header, results: &Results, targets: &[Target]) -> String {
    let mut out = String::new();
    let kind = if header.smoke { " (smoke run)" } else { "" };
    let _ = writeln!(out, "# `cargo xtask bench` report{kind}\n");
    let _ = writeln!(
        out,
        "- Machine: {} ({} cores), Linux {}; load average at start {}",
        header.cpu, header.cores, header.kernel, header.load
    );
    let _ = writeln!(out, "- Toolchain: {}", header.rustc);
    let _ = writeln!(out, "- Date: {}; commit {}", header.date, header.commit);
    let _ = writeln!(
        out,
        "- Cells: median over {} repetition(s), (min–max) when more than one; ratios are of \
         the medians",
        header.reps
    );
    let mut groups: Vec<&str> = Vec::new();
    for row in &results.rows {
        if !groups.contains(&row.group.as_str()) {
            groups.push(&row.group);
        }
    }
    for group in groups {
        let _ = writeln!(out, "\n## {group}\n");
        let _ = writeln!(out, "| | floor | rmcp | ours | ours/floor | ours/rmcp |");
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
        for row in results.rows.iter().filter(|r| r.group == group) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                row.name,
                cell(row, Impl::Floor),
                cell(row, Impl::Rmcp),
                cell(row, Impl::Ours),
                ratio(row, Impl::Floor),
                ratio(row, Impl::Rmcp),
            );
        }
    }
    results.pairs.write(&mut out);
    let _ = writeln!(out, "\n## Targets (issue 15)\n");
    if header.smoke {
        let _ = writeln!(out, "A smoke run does not judge the targets.\n");
    }
    let _ = writeln!(out, "| target | measured | met |");
    let _ = writeln!(out, "|---|---:|---|");
    for target in targets {
        let (measured, met) = match target.measure(results) {
            None => ("–".to_owned(), "not measured"),
            Some((value, met)) => {
                let shown = match target.against {
                    Some(_) => format!("{value:.2}x"),
                    None => format!("{value:.1}"),
                };
                let verdict = match (header.smoke, met) {
                    (true, _) => "(smoke)",
                    (false, true) => "met",
                    (false, false) => "not met",
                };
                (shown, verdict)
            }
        };
        let _ = writeln!(out, "| {} | {measured} | {met} |", target.label);
    }
    if !results.failures.is_empty() {
        let _ = writeln!(out, "\n## Failures\n");
        for failure in &results.failures {
            let _ = writeln!(out, "- {failure}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(format_value(9.54, Unit::Micros), "9.5 µs");
        assert_eq!(format_value(1500.0, Unit::Micros), "1.50 ms");
        assert_eq!(format_value(85_900.0, Unit::PerSecond), "85.9k/s");
        assert_eq!(format_value(950.0, Unit::PerSecond), "950/s");
        assert_eq!(format_value(21.13, Unit::KiB), "21.1 KiB");
        assert_eq!(format_value(103.0, Unit::Count), "103");
        assert_eq!(range(9.0, 11.0, Unit::Micros), "9.0–11.0 µs");
        assert_eq!(range(950.0, 1050.0, Unit::Micros), "950.0 µs–1.05 ms");
    }

    #[test]
    fn report_tables_and_targets() {
        let mut results = Results::default();
        let g = "stdio sequential";
        for (imp, values) in [
            (Impl::Floor, [10.0, 9.0, 11.0]),
            (Impl::Rmcp, [30.0, 31.0, 29.0]),
            (Impl::Ours, [20.0, 19.0, 22.0]),
        ] {
            for v in values {
                results.add(g, "p50", Unit::Micros, imp, v);
            }
        }
        results.add("sessions", "KiB per session", Unit::KiB, Impl::Ours, 10.0);
        results.not_applicable("sessions", "KiB per session", Unit::KiB, Impl::Floor);
        assert_eq!(results.missing(), vec!["sessions / KiB per session / rmcp"]);
        let targets = [
            Target {
                label: "p50 <= 1.5x floor",
                group: g,
                row: "p50",
                against: Some(Impl::Floor),
                at_most: true,
                threshold: 1.5,
            },
            Target {
                label: "<= 12 KiB per session",
                group: "sessions",
                row: "KiB per session",
                against: None,
                at_most: true,
                threshold: 12.0,
            },
            Target {
                label: "absent",
                group: "x",
                row: "y",
                against: Some(Impl::Rmcp),
                at_most: false,
                threshold: 1.0,
            },
        ];
        let header = Header {
            cpu: "Test CPU".to_owned(),
            cores: 2,
            reps: 3,
            ..Header::default()
        };
        let report = markdown(&header, &results, &targets);
        assert!(report.contains("Test CPU (2 cores)"), "{report}");
        assert!(
            report.contains("| p50 | 10.0 µs (9.0–11.0 µs) | 30.0 µs (29.0–31.0 µs) | 20.0 µs (19.0–22.0 µs) | 2.00x | 0.67x |"),
            "{report}"
        );
        assert!(
            report.contains("| KiB per session | n/a | – | 10.0 KiB |  |  |"),
            "{report}"
        );
        assert!(
            report.contains("| p50 <= 1.5x floor | 2.00x | not met |"),
            "{report}"
        );
        assert!(
            report.contains("| <= 12 KiB per session | 10.0 | met |"),
            "{report}"
        );
        assert!(report.contains("| absent | – | not measured |"), "{report}");
        let smoke = markdown(
            &Header {
                smoke: true,
                ..header
            },
            &results,
            &targets,
        );
        assert!(
            smoke.contains("| p50 <= 1.5x floor | 2.00x | (smoke) |"),
            "{smoke}"
        );
    }
}
