//! The text view for a terminal: one line per scenario, details for the ones that failed.

use super::{Report, Status};
use anstyle::{AnsiColor, Style};
use std::fmt::Write;

/// The report as text. With `color`, status words carry ANSI colours (the caller decides,
/// honouring `NO_COLOR` and whether the output is a terminal).
pub fn to_text(report: &Report, color: bool) -> String {
    let paint = |style: Style, s: &str| {
        if color {
            format!("{style}{s}{style:#}")
        } else {
            s.to_string()
        }
    };
    let green = Style::new().fg_color(Some(AnsiColor::Green.into())).bold();
    let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let yellow = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
    let mut out = String::new();
    for r in &report.scenarios {
        let word = match r.status {
            Status::Passed => paint(green, "PASS "),
            Status::Failed => paint(red, "FAIL "),
            Status::Error => paint(yellow, "ERROR"),
        };
        let _ = writeln!(
            out,
            "{word} {} — {} ({}/{})",
            r.path, r.title, r.points, r.max_points
        );
        if let Some(d) = &r.divergence {
            let at = d
                .step
                .map_or("at the end".to_string(), |s| format!("at step {s}"));
            let _ = writeln!(out, "      {at} (line {}): {}", d.line, d.action);
            let _ = writeln!(out, "      {}: expected {}", d.check, indent(&d.expected));
            let _ = writeln!(
                out,
                "      {}  but got {}",
                " ".repeat(d.check.len()),
                indent(&d.actual)
            );
            if let Some(n) = &d.note {
                let _ = writeln!(out, "      note: {n}");
            }
            let _ = writeln!(out, "      board (reference, ships shown):");
            for row in &d.board {
                let _ = writeln!(out, "        {row}");
            }
        }
        if let Some(f) = &r.fault {
            let at = if r.steps_run == 0 {
                "before the first step".to_string()
            } else {
                format!("at step {}", r.steps_run)
            };
            let _ = writeln!(out, "      {at}: {f}");
        }
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "\n{} scenarios: {} passed, {} failed, {} errors; {}/{} points (target: {})",
        s.scenarios, s.passed, s.failed, s.errors, s.points, s.max_points, report.target
    );
    out
}

fn indent(s: &str) -> String {
    if s.contains('\n') {
        format!("\n        {}", s.replace('\n', "\n        "))
    } else {
        s.to_string()
    }
}
