//! The text view for a terminal: one line per scenario, details for the ones that failed.

use super::{Divergence, Follows, Report, ScenarioResult, Status, Verdict};
use crate::scenario::Visibility;
use anstyle::{AnsiColor, Style};
use std::fmt::Write;

/// The report as text. With `color`, status words carry ANSI colours (the caller decides,
/// honouring `NO_COLOR` and whether the output is a terminal).
pub fn to_text(report: &Report, color: bool) -> String {
    let mut out = String::new();
    // The cause first: one line per student function at fault, across every scenario.
    let causes = super::causes::causes(report);
    for c in &causes {
        let _ = writeln!(out, "{}", clean(&super::causes::line(c, c.scenario.name())));
    }
    if !causes.is_empty() {
        let _ = writeln!(out);
    }
    let mut shown_faults = std::collections::BTreeSet::new();
    for r in &report.scenarios {
        let _ = writeln!(out, "{}", scenario_line(r, color));
        // The same fault again (a module that cannot be imported fails every scenario
        // alike): said once in full, then pointed back to.
        let key = r
            .fault
            .as_ref()
            .filter(|f| !f.message.is_empty() && r.divergence.is_none())
            .map(|f| (f.kind.word(), core_message(&f.message).to_string()));
        let repeated = key.as_ref().is_some_and(|k| shown_faults.contains(k));
        if repeated {
            let kind = r.fault.as_ref().map_or("", |f| f.kind.word());
            let _ = writeln!(out, "      {kind}: the same as above");
        } else {
            for line in details(r).lines() {
                let _ = writeln!(out, "      {line}");
            }
        }
        if let Some(k) = key {
            shown_faults.insert(k);
        }
    }
    for f in &report.faults {
        let _ = writeln!(
            out,
            "{} the submission: {}",
            paint(color, yellow(), "FAULT"),
            f.kind.word()
        );
        for line in f.message.lines() {
            let _ = writeln!(out, "        {}", clean(line));
        }
    }
    for n in &report.notes {
        let _ = writeln!(out, "note: {}", clean(n));
    }
    if report
        .scenarios
        .iter()
        .any(|r| r.published.is_some() && r.status != Status::Passed && !r.details_hidden)
    {
        let _ = writeln!(
            out,
            "note: `broadside show NAME` prints a published scenario (e.g. `broadside show {}`), its lines numbered",
            report
                .scenarios
                .iter()
                .find_map(|r| r.published.as_deref())
                .unwrap_or_default()
        );
    }
    let table = super::rubric::table(&report.rubric);
    if !table.is_empty() {
        let _ = write!(out, "\n{table}");
    }
    let s = &report.summary;
    let noun = if s.scenarios == 1 {
        "scenario"
    } else {
        "scenarios"
    };
    let errors = if s.errors == 1 { "error" } else { "errors" };
    // Said only when there are some: such a report is no grade.
    let not_graded = match s.not_graded {
        0 => String::new(),
        n => format!(", {n} not graded (broadside's own side failed)"),
    };
    let _ = writeln!(
        out,
        "\n{} {noun}: {} passed, {} failed, {} {errors}{not_graded}; {}/{} points{} (target: {})",
        s.scenarios,
        s.passed,
        s.failed,
        s.errors,
        s.points,
        s.max_points,
        scaled(s),
        report.target
    );
    out
}

/// One scenario's line of the report, `PASS  NAME — TITLE (POINTS/MAX)`: the line `run`
/// also prints on a terminal the moment the scenario finishes.
pub fn scenario_line(r: &ScenarioResult, color: bool) -> String {
    let green = Style::new().fg_color(Some(AnsiColor::Green.into())).bold();
    let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let word = match r.status {
        Status::Passed => paint(color, green, "PASS "),
        Status::Failed => paint(color, red, "FAIL "),
        Status::Error => paint(color, yellow(), "ERROR"),
        Status::NotGraded => paint(color, yellow(), "NOT GRADED"),
    };
    format!(
        "{word} {} — {} ({}/{})",
        clean(r.name()),
        clean(&r.title),
        r.points,
        r.max_points
    )
}

fn yellow() -> Style {
    Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold()
}

/// `s` in `style` when `color`, else as it is.
fn paint(color: bool, style: Style, s: &str) -> String {
    if color {
        format!("{style}{s}{style:#}")
    } else {
        s.to_string()
    }
}

/// A fault message without the note of when it happened (`while reading the state at the
/// end: …`), to tell the same fault met at different moments.
pub fn core_message(message: &str) -> &str {
    message
        .strip_prefix("while reading the state at the end: ")
        .unwrap_or(message)
}

/// `, score 45/50` when a suite scales points to a total, else nothing.
pub fn scaled(s: &super::Summary) -> String {
    if s.score == s.points && s.max_score == f64::from(s.max_points) {
        String::new()
    } else {
        format!(", score {}/{}", s.score, s.max_score)
    }
}

/// The detail lines of one scenario's result (for a passed one, only the input conventions
/// a dialogue needed): the divergence with the expected and actual values, the board, what
/// the submission printed, a dialogue's marking sheet, or the fault. A student's view of a hidden scenario says only that its details
/// are hidden.
pub fn details(r: &ScenarioResult) -> String {
    let mut out = String::new();
    if r.details_hidden && r.status != Status::Passed {
        let why = if r.visibility == Visibility::AfterDueDate {
            "details shown after the due date"
        } else {
            "details hidden (a hidden scenario)"
        };
        let _ = writeln!(out, "{why}");
    }
    // A dialogue plays moves; a step scenario, steps.
    let unit = if r.rules.is_empty() { "step" } else { "move" };
    if let Some(d) = &r.divergence {
        divergence(&mut out, r, d, unit);
    }
    later_divergences(&mut out, r);
    if let Some(f) = &r.fault {
        let at = if r.details_hidden {
            "fault".to_string()
        } else if f.message.starts_with("while reading the state at the end") {
            "at the end".to_string()
        } else if r.steps_run == 0 {
            format!("before the first {unit}")
        } else {
            format!("at {unit} {}", r.steps_run)
        };
        let _ = writeln!(out, "{at}: {}", f.kind.word());
        for line in f.message.lines() {
            let _ = writeln!(out, "  {}", clean(line));
        }
    }
    // The cause first (the first failure, or the fault), then what it cost.
    tally(&mut out, r);
    marking_sheet(&mut out, r);
    out
}

/// A scenario's first divergence: where, the expected and actual values (side by side
/// as framed grids where both are boards), the handout's clause, notes, what was printed,
/// and the real board. `unit`: `step` or `move`.
fn divergence(out: &mut String, r: &ScenarioResult, d: &Divergence, unit: &str) {
    let at = d
        .step
        .map_or("at the end".to_string(), |s| format!("at {unit} {s}"));
    let width = d.board.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "{at} (line {} {}): {}",
        d.line,
        clean(&r.line_of()),
        d.action
    );
    let grid = |t: &str| t.lines().count() > 1;
    if d.check == "board" || (grid(&d.expected) && grid(&d.actual)) {
        let expected: Vec<&str> = d.expected.lines().collect();
        let actual: Vec<&str> = d.actual.lines().collect();
        let differs: Vec<bool> = (0..expected.len().max(actual.len()))
            .map(|i| expected.get(i).map(|r| r.trim_end()) != actual.get(i).map(|r| r.trim_end()))
            .collect();
        let check = checked(d);
        let _ = writeln!(out, "{check}: expected");
        frame(out, &expected, &differs, width);
        let _ = writeln!(out, "{}  but got", " ".repeat(check.chars().count()));
        frame(out, &actual, &differs, width);
    } else {
        let check = checked(d);
        let _ = writeln!(out, "{check}: expected {}", d.expected);
        let _ = writeln!(
            out,
            "{}  but got {}",
            " ".repeat(check.chars().count()),
            d.actual
        );
    }
    // A dialogue's sheet quotes each rule's clause itself.
    if let Some(c) = d.clause.as_ref().filter(|_| r.rules.is_empty()) {
        let _ = writeln!(out, "the handout: {}", clean(c));
    }
    if d.given
        && let Some(f) = &d.function
    {
        let _ = writeln!(
            out,
            "judged alone: {f} was handed the reference's state for this step"
        );
    }
    if let Some(n) = &d.note {
        let _ = writeln!(out, "note: {}", clean(n));
    }
    if let Some(o) = &d.output {
        let label = if d.conversation {
            "the conversation's last lines (`> ` marks what broadside sent):"
        } else if unit == "move" {
            "printed by the program during this move:"
        } else {
            "printed by the submission during this step:"
        };
        let _ = writeln!(out, "{label}");
        for line in o.lines() {
            let _ = writeln!(out, "  {}", clean(line));
        }
    }
    if !d.board.is_empty() {
        let _ = writeln!(out, "the real board (ships shown):");
        frame(
            out,
            &d.board.iter().map(String::as_str).collect::<Vec<_>>(),
            &[],
            width,
        );
        if let Some(l) = &d.legend {
            let _ = writeln!(out, "legend: {}", clean(l));
        }
    }
}

/// A step scenario's later divergences, a line each (the same bug again, or a consequence
/// of an earlier action answered otherwise), and its checks' tally.
fn later_divergences(out: &mut String, r: &ScenarioResult) {
    if r.checks == 0 || matches!(r.status, Status::Passed | Status::NotGraded) || r.details_hidden {
        return;
    }
    for d in &r.later {
        let at = d
            .step
            .map_or("at the end".to_string(), |s| format!("step {s}"));
        let why = match d.follows {
            Some(Follows::Again) => " (the same again)",
            Some(Follows::Consequence) => " (perhaps a consequence: an earlier answer differed)",
            None => "",
        };
        let _ = writeln!(
            out,
            "also {at} (line {} {}): {} — {}: expected {}, got {}{why}",
            d.line,
            clean(&r.line_of()),
            clean(&d.action),
            checked(d),
            one_line(&d.expected),
            one_line(&d.actual)
        );
    }
}

/// A step scenario's tally of checks, after the fault if there was one.
fn tally(out: &mut String, r: &ScenarioResult) {
    if r.checks == 0 || matches!(r.status, Status::Passed | Status::NotGraded) || r.details_hidden {
        return;
    }
    let failed = r.checks - r.checks_passed;
    let seen = r.later.len() + usize::from(r.divergence.is_some());
    let unreached = if r.fault.is_some() {
        failed.saturating_sub(seen)
    } else {
        0
    };
    let _ = write!(
        out,
        "checks: {} of {} passed, the points shared among them",
        r.checks_passed, r.checks
    );
    if unreached > 0 {
        let _ = write!(
            out,
            "; {unreached} not reached for the fault (counted as failed)"
        );
    }
    let _ = writeln!(out);
}

/// The check with the function it judges: `remaining (remaining_ships)`.
pub(super) fn checked(d: &super::Divergence) -> String {
    match &d.function {
        Some(f) => format!("{} ({f})", d.check),
        None => d.check.clone(),
    }
}

/// A value on one line: a board's rows joined by ` / `.
pub(super) fn one_line(s: &str) -> String {
    clean(&s.lines().map(str::trim_end).collect::<Vec<_>>().join(" / "))
}

/// A dialogue's marking sheet, after its first failure: each rule not passed with its
/// verdict, clause and evidence, the passed ones named on a line, and the input conventions
/// the program needed. Nothing for a step scenario (it has no sheet).
fn marking_sheet(out: &mut String, r: &ScenarioResult) {
    if r.rules.is_empty() {
        return;
    }
    if r.status != Status::Passed {
        sheet_rows(out, r);
    }
    let conventions = each_once(&r.conventions);
    if !conventions.is_empty() {
        let _ = writeln!(
            out,
            "conventions the program needed: {}",
            clean(&conventions.join("; "))
        );
    }
}

/// The conventions, each said once: a driver may note several in one entry (`a; b`), and
/// the same convention may come from several moves.
fn each_once(conventions: &[String]) -> Vec<&str> {
    let mut once: Vec<&str> = Vec::new();
    for c in conventions.iter().flat_map(|c| c.split("; ")) {
        let c = c.trim();
        if !c.is_empty() && !once.contains(&c) {
            once.push(c);
        }
    }
    once
}

fn sheet_rows(out: &mut String, r: &ScenarioResult) {
    let passed: Vec<&str> = r
        .rules
        .iter()
        .filter(|x| x.verdict == Verdict::Passed)
        .map(|x| x.rule.as_str())
        .collect();
    let _ = writeln!(
        out,
        "marking sheet: {} of {} rules passed, the points shared among them",
        passed.len(),
        r.rules.len()
    );
    for x in r.rules.iter().filter(|x| x.verdict == Verdict::Failed) {
        let _ = writeln!(
            out,
            "  failed        {} — {}",
            clean(&x.rule),
            clean(&x.title)
        );
        let _ = writeln!(out, "                {}", clean(&x.clause));
        // The first failure is the divergence printed in full above.
        if r.divergence.as_ref().is_some_and(|d| d.check == x.rule) {
            let _ = writeln!(out, "                (the failure shown above)");
            continue;
        }
        for line in x.evidence.lines() {
            let _ = writeln!(out, "                {}", clean(line));
        }
    }
    // Rules not observed for one reason (a fault at the start leaves them all) go together,
    // under "not judged": the reason says whose it was (broadside lost track, the program
    // stopped, the game gave no occasion), never as if the program had not done it.
    let mut unseen: Vec<(&str, Vec<&str>)> = Vec::new();
    for x in r.rules.iter().filter(|x| x.verdict == Verdict::NotObserved) {
        match unseen.iter_mut().find(|(why, _)| *why == x.evidence) {
            Some((_, ids)) => ids.push(&x.rule),
            None => unseen.push((&x.evidence, vec![&x.rule])),
        }
    }
    for (why, ids) in unseen {
        let _ = writeln!(out, "  not judged    {}", clean(&ids.join(", ")));
        for line in why.lines() {
            let _ = writeln!(out, "                {}", clean(line));
        }
    }
    if !passed.is_empty() {
        let _ = writeln!(out, "  passed        {}", clean(&passed.join(", ")));
    }
}

/// Text from a scenario file with control characters escaped, so a report never carries
/// raw terminal escapes from its inputs.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == '\t' {
                "    ".to_string()
            } else if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Draws board rows in a frame (a board whose untried glyph is a space stays readable),
/// at least `min_width` characters wide, marking the rows flagged in `marks`.
fn frame(out: &mut String, rows: &[&str], marks: &[bool], min_width: usize) {
    let width = rows
        .iter()
        .map(|r| r.chars().count())
        .max()
        .unwrap_or(0)
        .max(min_width);
    let edge = format!("  +{}+", "-".repeat(width + 2));
    let _ = writeln!(out, "{edge}");
    for (i, row) in rows.iter().enumerate() {
        let pad = " ".repeat(width - row.chars().count());
        let mark = if marks.get(i).copied().unwrap_or(false) {
            "  <- differs"
        } else {
            ""
        };
        let _ = writeln!(out, "  | {row}{pad} |{mark}");
    }
    let _ = writeln!(out, "{edge}");
}
