//! The JSON Schemas of `report.json` and `summary.json` (`schemas/`), generated from the
//! types that write them (schemars), kept equal to what the types say, and checked against
//! real outputs: a class graded by the CLI, with a correct submission, a buggy one and one
//! that does not import.
//!
//! After a change to the report types: `BROADSIDE_WRITE_SCHEMAS=1 cargo test --test schema`.

mod common;
use common::broadside;

use broadside::grade::ClassSummary;
use broadside::report::Report;

fn generated() -> [(&'static str, String); 2] {
    let text = |s: schemars::Schema| serde_json::to_string_pretty(&s).unwrap() + "\n";
    [
        (
            "schemas/report.schema.json",
            text(schemars::schema_for!(Report)),
        ),
        (
            "schemas/summary.schema.json",
            text(schemars::schema_for!(ClassSummary)),
        ),
    ]
}

#[test]
fn the_schemas_in_the_repository_are_the_ones_the_types_give() {
    for (path, schema) in generated() {
        if std::env::var_os("BROADSIDE_WRITE_SCHEMAS").is_some() {
            std::fs::write(path, &schema).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == schema,
            "{path} is not what the report types give; regenerate it with BROADSIDE_WRITE_SCHEMAS=1 cargo test --test schema"
        );
    }
}

#[test]
fn every_report_and_the_summary_of_a_graded_class_validate() {
    let out = tempfile::tempdir().unwrap();
    let status = broadside()
        .args([
            "grade",
            "--suite",
            "examples/grading-repo/suites",
            "--submissions",
            "examples/grading-repo/class",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let validator = |path: &str| {
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::validator_for(&schema).unwrap()
    };
    let report = validator("schemas/report.schema.json");
    let mut seen = (false, false);
    for id in ["alice", "bob", "carol"] {
        let file = out.path().join(id).join("report.json");
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let errors: Vec<String> = report.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{id}: {errors:#?}");
        let text = value.to_string();
        seen.0 |= text.contains("\"divergence\"");
        seen.1 |= text.contains("\"fault\"");
    }
    assert_eq!(
        seen,
        (true, true),
        "the class has a wrong answer and a fault to validate"
    );
    let summary = validator("schemas/summary.schema.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let errors: Vec<String> = summary.iter_errors(&value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // And the schema refuses what is not a report.
    let mut broken: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("bob/report.json")).unwrap())
            .unwrap();
    broken["scenarios"][0]["status"] = "passed-ish".into();
    assert!(!report.is_valid(&broken));
}
