//! The JSON Schemas of `report.json` and `summary.json` (`schemas/`), generated from the
//! types that write them (schemars), kept equal to what the types say, and checked against
//! real outputs: a class graded by the CLI, with a correct submission, a buggy one and one
//! that does not import. Validated by check-jsonschema (as the workflows are), which keeps a
//! JSON Schema validator out of broadside's build.
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
    common::needs(
        "check-jsonschema",
        None,
        "python3 -m pip install check-jsonschema",
    );
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
    let reports: Vec<std::path::PathBuf> = ["alice", "bob", "carol"]
        .iter()
        .map(|id| out.path().join(id).join("report.json"))
        .collect();
    let mut seen = (false, false);
    for file in &reports {
        let text = std::fs::read_to_string(file).unwrap();
        seen.0 |= text.contains("\"divergence\"");
        seen.1 |= text.contains("\"fault\"");
    }
    assert_eq!(
        seen,
        (true, true),
        "the class has a wrong answer and a fault to validate"
    );
    let valid = validate("schemas/report.schema.json", &reports);
    assert!(valid.status.success(), "{}", shown(&valid));
    let valid = validate(
        "schemas/summary.schema.json",
        &[out.path().join("summary.json")],
    );
    assert!(valid.status.success(), "{}", shown(&valid));
    // And the schema refuses what is not a report.
    let mut broken: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&reports[1]).unwrap()).unwrap();
    broken["scenarios"][0]["status"] = "passed-ish".into();
    let file = out.path().join("broken.json");
    std::fs::write(&file, broken.to_string()).unwrap();
    let refused = validate("schemas/report.schema.json", &[file]);
    assert_eq!(refused.status.code(), Some(1), "{}", shown(&refused));
    assert!(
        shown(&refused).contains("passed-ish"),
        "{}",
        shown(&refused)
    );
}

/// `check-jsonschema --schemafile SCHEMA FILES…`.
fn validate(schema: &str, files: &[std::path::PathBuf]) -> std::process::Output {
    std::process::Command::new("check-jsonschema")
        .args(["--schemafile", schema])
        .args(files)
        .output()
        .unwrap()
}

fn shown(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
