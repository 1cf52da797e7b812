//! The class report as one self-contained HTML file (`class-report.html`, written with
//! `--formats html`): the score distribution as a chart, each scenario's and each dialogue
//! rule's failure rate across the class, the submissions short of full marks, and a page per
//! submission with its feedback and its boards drawn as grids.
//!
//! It is the staff view (every scenario in full), for the instructor, never handed to a
//! student. Being a page that travels (a CI artifact, an e-mail), it names scenarios as its
//! tables do, by their file within the suite, and submissions by their folder's name: no
//! folder of the grader's ([`crate::report::without_grader_paths`]). It needs no network
//! and no script: each submission's page is a fragment (`#s-3`) shown by CSS `:target`, so
//! the file opens from disk, from a CI artifact or from an e-mail attachment alike. The markup comes from `maud` (which escapes every text) and
//! the chart from `plotters` (as SVG).

use super::ClassSummary;
use crate::report::{Report, ScenarioResult, Status, Verdict, details, without_grader_paths};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use std::collections::BTreeMap;

/// The class report of `summary`, with `graded` (submission id, its report) for the pages.
pub fn class_report(summary: &ClassSummary, graded: &[(String, Report)]) -> String {
    let reports: BTreeMap<&str, &Report> = graded.iter().map(|(id, r)| (id.as_str(), r)).collect();
    let anchor: BTreeMap<&str, String> = summary
        .submissions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), format!("s-{}", i + 1)))
        .collect();
    let title = summary.title.as_deref().unwrap_or("broadside class report");
    let short: Vec<_> = summary
        .submissions
        .iter()
        .filter(|s| s.score < s.max_score || !s.faults.is_empty())
        .collect();
    let scores: Vec<f64> = summary.submissions.iter().map(percent).collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    h1 { a href="#" { (title) } }
                    p.meta {
                        (summary.submissions.len()) " submissions graded"
                        @if let Some(s) = &summary.shard { " (shard " (s) ")" }
                        " · " (summary.scenarios.len()) " scenarios · mean "
                        (format!("{:.1}", mean(&scores))) " % · median "
                        (format!("{:.1}", median(&scores))) " % · " (summary.tool)
                    }
                    @if !summary.not_graded.is_empty() {
                        p.warn { "Not graded (finish them with --resume): " (summary.not_graded.join(", ")) }
                    }
                }
                main id="overview" {
                    section {
                        h2 { "Score distribution" }
                        figure { (PreEscaped(histogram(&scores))) }
                    }
                    section {
                        h2 { "Submissions short of full marks (" (short.len()) ")" }
                        @if short.is_empty() { p { "Every submission has full marks." } }
                        @else {
                            table {
                                thead { tr { th { "submission" } th.num { "score" } th.num { "passed" } th.num { "failed" } th.num { "errors" } th { "why it has errors" } } }
                                tbody {
                                    @for s in &short {
                                        tr {
                                            td { a href={ "#" (anchor[s.id.as_str()]) } { (s.id) } }
                                            td.num { (s.score) " / " (s.max_score) }
                                            td.num { (s.passed) } td.num { (s.failed) } td.num { (s.errors) }
                                            td { (s.fault_summary) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    section {
                        h2 { "Scenarios, hardest first" }
                        table {
                            thead { tr { th { "scenario" } th { "title" } th.num { "passed" } th.num { "failed" } th.num { "errors" } th { "failure rate" } } }
                            tbody {
                                @for s in &summary.scenarios {
                                    tr {
                                        td { code { (s.id) } } td { (s.title) }
                                        td.num { (s.passed) } td.num { (s.failed) } td.num { (s.errors) }
                                        td { (rate_bar(s.failure_rate)) }
                                    }
                                }
                            }
                        }
                    }
                    (parts_table(graded))
                    (rules_table(graded))
                    section {
                        h2 { "Every submission" }
                        ul.subs {
                            @for s in &summary.submissions {
                                li { a href={ "#" (anchor[s.id.as_str()]) } { (s.id) } " " span.score { (s.score) " / " (s.max_score) } }
                            }
                        }
                    }
                }
                @for s in &summary.submissions {
                    @if let Some(r) = reports.get(s.id.as_str()) {
                        (submission_page(&anchor[s.id.as_str()], &s.id, &without_grader_paths(r)))
                    }
                }
            }
        }
    };
    page.into_string()
}

/// A submission's score as a percentage of its maximum (0 for a maximum of 0).
fn percent(s: &super::SubmissionRow) -> f64 {
    if s.max_score > 0.0 {
        100.0 * s.score / s.max_score
    } else {
        0.0
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The scores (percentages) as a histogram of ten bins (the last holds 100 %), SVG.
fn histogram(scores: &[f64]) -> String {
    use plotters::prelude::*;
    let mut bins = [0u32; 10];
    for s in scores {
        bins[((s / 10.0).floor().clamp(0.0, 9.0)) as usize] += 1;
    }
    let top = bins.iter().copied().max().unwrap_or(0).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 280)).into_drawing_area();
        let drawn = (|| -> Result<(), Box<dyn std::error::Error + '_>> {
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(40)
                .build_cartesian_2d((0u32..9u32).into_segmented(), 0u32..top + 1)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_desc("score (%)")
                .y_desc("submissions")
                .x_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(b) | SegmentValue::Exact(b) => {
                        format!("{}–{}", b * 10, if *b == 9 { 100 } else { b * 10 + 9 })
                    }
                    SegmentValue::Last => String::new(),
                })
                .y_label_formatter(&|v| v.to_string())
                .draw()?;
            chart.draw_series(
                Histogram::vertical(&chart)
                    .style(RGBColor(0x2b, 0x6c, 0xb0).filled())
                    .margin(4)
                    .data(bins.iter().enumerate().map(|(i, n)| (i as u32, *n))),
            )?;
            root.present()?;
            Ok(())
        })();
        if drawn.is_err() {
            return String::from("<p>(the chart could not be drawn)</p>");
        }
    }
    svg
}

/// A failure rate (0–1) as a bar with its percentage.
fn rate_bar(rate: f64) -> Markup {
    let pct = (rate * 100.0).clamp(0.0, 100.0);
    html! {
        span.bar { span.fill style={ "width:" (format!("{pct:.0}")) "%" } {} }
        " " (format!("{pct:.0}")) " %"
    }
}

/// Each rubric part across the class (the handout's functions and groups of rules): the
/// class's mean share of it earned and how many submissions earned it in full, weakest
/// first. Nothing when no report has a rubric.
fn parts_table(graded: &[(String, Report)]) -> Markup {
    // part → (clause, weight, shares earned, full marks)
    let mut parts: BTreeMap<String, (&str, f64, Vec<f64>, usize)> = BTreeMap::new();
    let several =
        crate::report::rubric::spans_assignments(graded.iter().flat_map(|(_, r)| &r.rubric));
    for (_, r) in graded {
        for p in &r.rubric {
            let name = if several {
                format!("{}: {}", p.assignment, p.part)
            } else {
                p.part.clone()
            };
            let e = parts
                .entry(name)
                .or_insert((p.clause.as_str(), p.weight, Vec::new(), 0));
            let share = if p.max_score > 0.0 {
                p.score / p.max_score
            } else {
                1.0
            };
            e.2.push(share);
            if share >= 1.0 - 1e-9 {
                e.3 += 1;
            }
        }
    }
    if parts.is_empty() {
        return html! {};
    }
    let mut rows: Vec<_> = parts.into_iter().collect();
    rows.sort_by(|a, b| mean(&a.1.2).total_cmp(&mean(&b.1.2)).then(a.0.cmp(&b.0)));
    html! {
        section {
            h2 { "The handout's functions and rules (the rubric), weakest first" }
            table {
                thead { tr { th { "part" } th.num { "weight" } th.num { "full marks" } th { "mean earned" } } }
                tbody {
                    @for (name, e) in &rows {
                        tr {
                            td { code { (name) } br; small { (e.0) } }
                            td.num { (e.1) }
                            td.num { (e.3) " of " (e.2.len()) }
                            td { (rate_bar(mean(&e.2))) }
                        }
                    }
                }
            }
        }
    }
}

/// Each dialogue rule across the class: how many submissions passed it, failed it, or were
/// not judged on it (the game never came to it, or broadside lost track), hardest first. Nothing when no scenario is a dialogue.
fn rules_table(graded: &[(String, Report)]) -> Markup {
    // rule id → (title, clause, passed, failed, not judged), counted once per submission
    // (a rule judged in several scenarios counts as failed when any failed it).
    let mut rules: BTreeMap<&str, (&str, &str, usize, usize, usize)> = BTreeMap::new();
    for (_, r) in graded {
        let mut seen: BTreeMap<&str, Verdict> = BTreeMap::new();
        for rule in r.scenarios.iter().flat_map(|s| &s.rules) {
            rules.entry(rule.rule.as_str()).or_insert((
                rule.title.as_str(),
                rule.clause.as_str(),
                0,
                0,
                0,
            ));
            let v = seen.entry(rule.rule.as_str()).or_insert(rule.verdict);
            *v = match (*v, rule.verdict) {
                (Verdict::Failed, _) | (_, Verdict::Failed) => Verdict::Failed,
                (Verdict::Passed, _) | (_, Verdict::Passed) => Verdict::Passed,
                _ => Verdict::NotObserved,
            };
        }
        for (id, v) in seen {
            let e = rules.get_mut(id).expect("entered above");
            match v {
                Verdict::Passed => e.2 += 1,
                Verdict::Failed => e.3 += 1,
                Verdict::NotObserved => e.4 += 1,
            }
        }
    }
    if rules.is_empty() {
        return html! {};
    }
    let mut rows: Vec<_> = rules.into_iter().collect();
    let rate = |e: &(&str, &str, usize, usize, usize)| {
        let n = (e.2 + e.3 + e.4).max(1) as f64;
        e.3 as f64 / n
    };
    rows.sort_by(|a, b| rate(&b.1).total_cmp(&rate(&a.1)).then(a.0.cmp(b.0)));
    html! {
        section {
            h2 { "Handout rules judged in dialogues, hardest first" }
            table {
                thead { tr { th { "rule" } th { "what it says" } th.num { "passed" } th.num { "failed" } th.num { "not judged" } th { "failure rate" } } }
                tbody {
                    @for (id, e) in &rows {
                        tr {
                            td { code { (id) } }
                            td { (e.0) br; small { (e.1) } }
                            td.num { (e.2) } td.num { (e.3) } td.num { (e.4) }
                            td { (rate_bar(rate(e))) }
                        }
                    }
                }
            }
        }
    }
}

/// One submission's page: its score, faults and notes, then each scenario with the
/// feedback of those not passed and the reference's board drawn as a grid.
fn submission_page(anchor: &str, id: &str, r: &Report) -> Markup {
    html! {
        section.page id=(anchor) {
            p { a href="#" { "← the class" } }
            h2 { (id) " — " (r.summary.score) " / " (r.summary.max_score) }
            p.meta {
                (r.summary.passed) " passed · " (r.summary.failed) " failed · "
                (r.summary.errors) " errors · " code { (r.target) }
            }
            @for f in &r.faults { p.warn { (f.kind.word()) ": " (f.message) } }
            @for n in &r.notes { p.note { (n) } }
            @for s in &r.scenarios { (scenario_block(s)) }
        }
    }
}

fn scenario_block(s: &ScenarioResult) -> Markup {
    let (class, word) = match s.status {
        Status::Passed => ("passed", "PASS"),
        Status::Failed => ("failed", "FAIL"),
        Status::Error => ("error", "ERROR"),
        Status::NotGraded => ("error", "NOT GRADED"),
    };
    html! {
        div class={ "scenario " (class) } {
            h3 {
                span.status { (word) } " " code { (s.name()) } " — " (s.title)
                " " span.points { "(" (s.points) "/" (s.max_points) ")" }
            }
            @if s.status != Status::Passed {
                pre { (details(&without_board(s))) }
                @if let Some(d) = &s.divergence {
                    @if !d.board.is_empty() {
                        p.caption { "The board after this step as the reference plays it, ships shown:" }
                        (grid(&d.board, d.legend.as_deref()))
                    }
                }
            }
        }
    }
}

/// `s` without its divergence's board, which the page draws as a grid instead of text.
fn without_board(s: &ScenarioResult) -> ScenarioResult {
    let mut s = s.clone();
    if let Some(d) = &mut s.divergence {
        d.board.clear();
        d.legend = None;
    }
    s
}

/// A drawn board (`". . ■"` rows, glyphs separated by spaces) as a table of cells, each
/// cell coloured by what its glyph means in `legend` (`■ ship, × hit, ✓ sunk, ...`).
fn grid(board: &[String], legend: Option<&str>) -> Markup {
    let meaning: Vec<(String, &'static str)> = legend
        .map(|l| {
            l.split(", ")
                .map(|part| part.strip_prefix("sunk by type: ").unwrap_or(part))
                .filter_map(|part| {
                    let (glyph, what) = part.split_once(' ')?;
                    let glyph = if glyph == "' '" { " " } else { glyph };
                    Some((glyph.to_string(), cell_class(what)))
                })
                .collect()
        })
        .unwrap_or_default();
    let class_of = |g: &str| {
        meaning
            .iter()
            .find(|(m, _)| m == g)
            .map_or("other", |(_, c)| c)
    };
    html! {
        table.board {
            tr { th {} @for c in 0..cells(&board[0]).len() { th { (c) } } }
            @for (i, row) in board.iter().enumerate() {
                tr {
                    th { (i) }
                    @for g in cells(row) { td class=(class_of(&g)) { (g) } }
                }
            }
        }
        @if let Some(l) = legend { p.legend { "legend: " (l) } }
    }
}

/// The glyphs of a drawn row: every other character when they are separated by spaces,
/// else every character.
fn cells(row: &str) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    let spaced = chars.len() % 2 == 1 && chars.iter().skip(1).step_by(2).all(|c| *c == ' ');
    let step = if spaced { 2 } else { 1 };
    chars.iter().step_by(step).map(|c| c.to_string()).collect()
}

/// The CSS class of a legend entry's meaning.
fn cell_class(what: &str) -> &'static str {
    match what {
        "untried" | "water" => "water",
        "miss" => "miss",
        "hit" => "hit",
        "ship" => "ship",
        w if w.contains("grenade") => "grenade",
        // "sunk", or a sunk ship's kind (`C Carrier`, `B Battleship`).
        _ => "sunk",
    }
}

const CSS: &str = r#"
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 1.2em 3em;color:#1c2430}
header{border-bottom:2px solid #2b6cb0;margin-bottom:1em}
h1 a{color:inherit;text-decoration:none}
.meta{color:#4a5568}
.warn{background:#fff5f5;border-left:4px solid #c53030;padding:.4em .8em}
.note{background:#fffbea;border-left:4px solid #b7791f;padding:.4em .8em}
table{border-collapse:collapse;margin:.5em 0 1.5em;width:100%}
th,td{border-bottom:1px solid #e2e8f0;padding:.3em .5em;text-align:left;vertical-align:top}
.num{text-align:right;white-space:nowrap}
td:last-child .bar{margin-right:.3em}
td:has(.bar){white-space:nowrap}
.bar{display:inline-block;width:8em;height:.8em;background:#edf2f7;vertical-align:middle}
.fill{display:block;height:100%;background:#c53030}
ul.subs{columns:4;list-style:none;padding:0}
.score{color:#4a5568}
figure{margin:0}
.page{display:none}
.page:target{display:block}
body:has(.page:target) #overview{display:none}
.scenario{border-left:4px solid #a0aec0;padding:.1em .8em;margin:.6em 0}
.scenario h3{font-size:1em;margin:.4em 0}
.scenario.passed{border-color:#2f855a}.scenario.passed .status{color:#2f855a}
.scenario.failed{border-color:#c53030}.scenario.failed .status{color:#c53030}
.scenario.error{border-color:#b7791f}.scenario.error .status{color:#b7791f}
pre{background:#f7fafc;padding:.6em;overflow-x:auto;font-size:13px}
table.board{width:auto;border-collapse:separate;border-spacing:2px}
table.board th{font-size:11px;color:#718096;border:0;padding:0 .3em;text-align:center}
table.board td{width:1.7em;height:1.7em;padding:0;text-align:center;border:0;font-size:13px}
td.water{background:#bee3f8}td.miss{background:#e2e8f0}td.ship{background:#4a5568;color:#fff}
td.hit{background:#dd6b20;color:#fff}td.sunk{background:#c53030;color:#fff}
td.grenade{background:#6b46c1;color:#fff}td.other{background:#fefcbf}
.legend,.caption{color:#4a5568;font-size:13px}
"#;

#[cfg(test)]
mod tests {
    #[test]
    fn cells_split_spaced_rows_and_keep_dense_ones() {
        assert_eq!(super::cells(". ■ ×"), [".", "■", "×"]);
        assert_eq!(super::cells("~~H"), ["~", "~", "H"]);
        assert_eq!(super::cell_class("untried"), "water");
        assert_eq!(super::cell_class("sunk"), "sunk");
        assert_eq!(super::cell_class("Carrier"), "sunk");
        assert_eq!(super::cell_class("ship"), "ship");
        assert_eq!(super::cell_class("Battleship"), "sunk");
        assert_eq!(super::cell_class("hit"), "hit");
    }

    /// A report of one dialogue scenario whose rules got `verdicts` (rule id, verdict).
    fn dialogue(verdicts: &[(&str, &str)]) -> crate::report::Report {
        let rules: Vec<_> = verdicts
            .iter()
            .map(|(id, v)| serde_json::json!({"rule": id, "title": format!("{id} <title>"), "clause": "§4: \"print penalty\"", "verdict": v}))
            .collect();
        let scenario = serde_json::json!({"path": "s/game.toml", "assignment": "battleboats", "mode": "standard",
            "title": "a game", "status": "failed", "points": 0, "max_points": 2, "score": 0.0, "max_score": 2.0,
            "visibility": "visible", "tags": [], "steps": 0, "steps_run": 0, "rules": rules});
        crate::report::Report::new(
            "java:x".into(),
            vec![serde_json::from_value(scenario).unwrap()],
        )
    }

    #[test]
    fn a_rule_counts_once_per_submission_failed_when_any_game_failed_it() {
        let graded = vec![
            (
                "a".to_string(),
                dialogue(&[
                    ("penalty", "failed"),
                    ("penalty", "passed"),
                    ("sunk", "passed"),
                ]),
            ),
            (
                "b".to_string(),
                dialogue(&[("penalty", "not-observed"), ("sunk", "passed")]),
            ),
        ];
        let html = super::rules_table(&graded).into_string();
        // penalty: 0 passed, 1 failed, 1 not judged, listed first (50 %); titles escaped.
        let penalty = html.find("<code>penalty</code>").unwrap();
        assert!(penalty < html.find("<code>sunk</code>").unwrap(), "{html}");
        assert!(html.contains("penalty &lt;title&gt;"), "{html}");
        assert!(html[penalty..].starts_with("<code>penalty</code></td><td>penalty &lt;title&gt;<br><small>§4: &quot;print penalty&quot;</small></td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">1</td>"), "{html}");
        assert!(super::rules_table(&[]).into_string().is_empty());
    }

    /// A report whose rubric has parts (name, score, max).
    fn with_parts(parts: &[(&str, f64, f64)]) -> crate::report::Report {
        let mut r = dialogue(&[]);
        r.rubric = parts
            .iter()
            .map(|(name, score, max)| crate::report::rubric::PartScore {
                part: name.to_string(),
                assignment: "solo-10x10".into(),
                weight: 1.0,
                clause: format!("{name} <clause>"),
                score: *score,
                max_score: *max,
                checks: 1.0,
                passed: 0.0,
            })
            .collect();
        r
    }

    #[test]
    fn the_rubric_table_gives_each_part_the_class_mean_weakest_first() {
        let graded = vec![
            (
                "a".to_string(),
                with_parts(&[("hit", 0.0, 10.0), ("main", 20.0, 20.0)]),
            ),
            (
                "b".to_string(),
                with_parts(&[("hit", 10.0, 10.0), ("main", 20.0, 20.0)]),
            ),
        ];
        let html = super::parts_table(&graded).into_string();
        let hit = html.find("<code>hit</code>").unwrap();
        assert!(hit < html.find("<code>main</code>").unwrap(), "{html}");
        // hit: one of two in full, a mean of 50 %; the clause escaped.
        assert!(
            html[hit..].contains("1 of 2") && html[hit..].contains("50 %"),
            "{html}"
        );
        assert!(html.contains("hit &lt;clause&gt;"), "{html}");
        assert!(
            super::parts_table(&[("c".to_string(), dialogue(&[]))])
                .into_string()
                .is_empty()
        );
    }

    #[test]
    fn the_median_and_mean_of_scores() {
        assert_eq!(super::median(&[10.0, 90.0, 50.0]), 50.0);
        assert_eq!(super::median(&[10.0, 20.0]), 15.0);
        assert_eq!(super::mean(&[]), 0.0);
    }
}
