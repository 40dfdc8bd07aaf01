//! Tables comparing two configurations of our server, a baseline and a variant (in-memory
//! stores against Redis ones; requests sent to a session's instance against requests
//! forwarded to it): for each row the median (min–max) of each, and variant/baseline.

use std::fmt::Write as _;

use super::{Row, Unit, format_cell};
use crate::stats::summarize;

/// Which column of a comparison a value belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Base,
    Variant,
}

impl Side {
    fn index(self) -> usize {
        self as usize
    }
}

/// A comparison table: its title, its two columns' names and its ratio's.
#[derive(Debug, Clone)]
struct PairGroup {
    name: String,
    base: String,
    variant: String,
    ratio: String,
}

/// One measured quantity of a comparison, for both sides.
type PairRow = Row<2>;

/// The comparison tables of a run, in the order they were measured.
#[derive(Debug, Clone, Default)]
pub struct Pairs {
    groups: Vec<PairGroup>,
    rows: Vec<PairRow>,
}

impl Pairs {
    /// Declares the table `group` with the columns `base` and `variant`, and `ratio` naming
    /// variant/base (once; later calls change nothing).
    pub fn group(&mut self, group: &str, base: &str, variant: &str, ratio: &str) {
        if !self.groups.iter().any(|g| g.name == group) {
            self.groups.push(PairGroup {
                name: group.to_owned(),
                base: base.to_owned(),
                variant: variant.to_owned(),
                ratio: ratio.to_owned(),
            });
        }
    }

    fn row(&mut self, group: &str, name: &str, unit: Unit) -> &mut PairRow {
        Row::find_or_add(&mut self.rows, group, name, unit)
    }

    /// Records one repetition's `value` of `side`.
    pub fn add(&mut self, group: &str, name: &str, unit: Unit, side: Side, value: f64) {
        self.row(group, name, unit).values[side.index()].push(value);
    }

    /// Marks the row as not applicable to `side`.
    pub fn not_applicable(&mut self, group: &str, name: &str, unit: Unit, side: Side) {
        self.row(group, name, unit).not_applicable[side.index()] = true;
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The median of `side` in a row.
    pub fn median(&self, group: &str, name: &str, side: Side) -> Option<f64> {
        let row = self
            .rows
            .iter()
            .find(|r| r.group == group && r.name == name)?;
        summarize(&row.values[side.index()]).map(|s| s.median)
    }

    /// The cells that have neither a number nor "n/a": `group / row / column`.
    pub fn missing(&self) -> Vec<String> {
        let mut missing = Vec::new();
        for row in &self.rows {
            let (base, variant, _) = self.columns(&row.group);
            for (i, column) in [base, variant].into_iter().enumerate() {
                if !row.not_applicable[i] && summarize(&row.values[i]).is_none() {
                    missing.push(format!("{} / {} / {column}", row.group, row.name));
                }
            }
        }
        missing
    }

    fn columns(&self, group: &str) -> (&str, &str, &str) {
        self.groups
            .iter()
            .find(|g| g.name == group)
            .map_or(("base", "variant", "variant/base"), |g| {
                (&g.base, &g.variant, &g.ratio)
            })
    }

    /// Appends one markdown table per group, in the order the rows were measured.
    pub(crate) fn write(&self, out: &mut String) {
        let mut groups: Vec<&str> = Vec::new();
        for row in &self.rows {
            if !groups.contains(&row.group.as_str()) {
                groups.push(&row.group);
            }
        }
        for group in groups {
            let (base, variant, ratio) = self.columns(group);
            let _ = writeln!(out, "\n## {group}\n");
            let _ = writeln!(out, "| | {base} | {variant} | {ratio} |");
            let _ = writeln!(out, "|---|---:|---:|---:|");
            for row in self.rows.iter().filter(|r| r.group == group) {
                let cell = |i: usize| format_cell(&row.values[i], row.not_applicable[i], row.unit);
                let ratio = match (summarize(&row.values[0]), summarize(&row.values[1])) {
                    (Some(b), Some(v)) if b.median != 0.0 => {
                        format!("{:.2}x", v.median / b.median)
                    }
                    _ => String::new(),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {ratio} |",
                    row.name,
                    cell(0),
                    cell(1)
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_table() {
        let mut pairs = Pairs::default();
        let g = "Redis stores";
        pairs.group(g, "in-memory", "Redis", "Redis/in-memory");
        for (base, variant) in [(10.0, 15.0), (9.0, 14.0), (11.0, 16.0)] {
            pairs.add(g, "c=1 p50", Unit::Micros, Side::Base, base);
            pairs.add(g, "c=1 p50", Unit::Micros, Side::Variant, variant);
        }
        pairs.not_applicable(g, "redis-server CPU", Unit::Micros, Side::Base);
        assert_eq!(
            pairs.missing(),
            vec!["Redis stores / redis-server CPU / Redis"]
        );
        pairs.add(g, "redis-server CPU", Unit::Micros, Side::Variant, 4.0);
        assert!(pairs.missing().is_empty());
        assert_eq!(pairs.median(g, "c=1 p50", Side::Variant), Some(15.0));
        let mut out = String::new();
        pairs.write(&mut out);
        assert!(
            out.contains("| | in-memory | Redis | Redis/in-memory |"),
            "{out}"
        );
        assert!(
            out.contains("| c=1 p50 | 10.0 µs (9.0–11.0 µs) | 15.0 µs (14.0–16.0 µs) | 1.50x |"),
            "{out}"
        );
        assert!(
            out.contains("| redis-server CPU | n/a | 4.0 µs |  |"),
            "{out}"
        );
    }
}
