//! The JSON view: the report model as pretty-printed JSON, `format_version` first.

use super::Report;

/// The report as pretty JSON with a trailing newline.
pub fn to_json(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("the report model always serializes");
    s.push('\n');
    s
}
