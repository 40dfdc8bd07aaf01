//! What goes to stderr while a command runs: progress (a bar redrawn in place on a
//! terminal, a line per notification elsewhere) and lines such as the server's log
//! messages, which never tear the bar.

use std::io::{IsTerminal as _, Write as _};
use std::sync::{Mutex, PoisonError};

use mcp_client::Progress;

/// Whether a progress bar is on the terminal's current line.
static BAR: Mutex<bool> = Mutex::new(false);

/// Width of the bar, in cells.
const BAR_WIDTH: usize = 24;

/// Writes `text` and a newline on stderr, removing the progress bar first.
pub(crate) fn line(text: &str) {
    let mut bar = BAR.lock().unwrap_or_else(PoisonError::into_inner);
    let mut stderr = std::io::stderr().lock();
    if *bar {
        let _ = write!(stderr, "\r\x1b[2K");
        *bar = false;
    }
    let _ = writeln!(stderr, "{text}");
}

/// Shows one progress notification.
pub(crate) fn show(progress: &Progress) {
    let terminal = std::io::stderr().is_terminal();
    let mut bar = BAR.lock().unwrap_or_else(PoisonError::into_inner);
    let mut stderr = std::io::stderr().lock();
    if terminal {
        let _ = write!(stderr, "\r\x1b[2K{}", render(progress, true));
        *bar = true;
    } else {
        let _ = writeln!(stderr, "{}", render(progress, false));
    }
    let _ = stderr.flush();
}

/// Removes the progress bar, if one is shown.
pub(crate) fn clear() {
    let mut bar = BAR.lock().unwrap_or_else(PoisonError::into_inner);
    if *bar {
        let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        *bar = false;
    }
}

/// `[=========>          ] 45% message` (with a bar), or `progress: 45/100 message`.
fn render(progress: &Progress, with_bar: bool) -> String {
    let message = progress
        .message
        .as_deref()
        .map(|m| format!(" {}", one_line(m)))
        .unwrap_or_default();
    let fraction = progress
        .total
        .filter(|t| t.is_finite() && *t > 0.0)
        .map(|t| (progress.progress / t).clamp(0.0, 1.0));
    match (fraction, with_bar) {
        (Some(f), true) => {
            // In 0..=BAR_WIDTH: f is clamped to [0, 1].
            let filled = (f * BAR_WIDTH as f64).round() as usize;
            format!(
                "[{}{}] {:>3.0}%{message}",
                "=".repeat(filled),
                " ".repeat(BAR_WIDTH - filled.min(BAR_WIDTH)),
                f * 100.0
            )
        }
        (Some(_), false) => format!(
            "progress: {}/{}{message}",
            number(progress.progress),
            number(progress.total.unwrap_or_default())
        ),
        (None, _) => format!("progress: {}{message}", number(progress.progress)),
    }
}

/// A number without a needless `.0`.
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

/// `text` on one line (a message with newlines would tear the bar).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(progress: f64, total: Option<f64>, message: Option<&str>) -> Progress {
        let mut p: Progress =
            serde_json::from_value(serde_json::json!({"progressToken": 1, "progress": 0})).unwrap();
        p.progress = progress;
        p.total = total;
        p.message = message.map(str::to_owned);
        p
    }

    #[test]
    fn progress_is_rendered_with_and_without_a_bar() {
        assert_eq!(
            render(&p(50.0, Some(100.0), Some("half\nway")), false),
            "progress: 50/100 half way"
        );
        assert_eq!(render(&p(2.5, None, None), false), "progress: 2.5");
        let bar = render(&p(1.0, Some(4.0), None), true);
        assert_eq!(bar, format!("[{}{}]  25%", "=".repeat(6), " ".repeat(18)));
        // More than the total, or a total of zero, never overflows the bar.
        let over = render(&p(9.0, Some(4.0), None), true);
        assert!(
            over.starts_with(&format!("[{}] 100%", "=".repeat(BAR_WIDTH))),
            "{over}"
        );
        assert_eq!(render(&p(1.0, Some(0.0), None), true), "progress: 1");
        assert_eq!(
            render(&p(f64::NAN, Some(2.0), None), false),
            "progress: NaN/2"
        );
    }
}
