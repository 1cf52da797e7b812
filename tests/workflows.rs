//! The GitHub Actions workflows broadside ships (its release, and the example grading
//! repository's recipe) are valid workflows and keep their promises (issue 37 items 3–4).
//!
//! Validated with check-jsonschema against SchemaStore's GitHub workflow schema, which it
//! carries (no network). The issue names actionlint; its PyPI package downloads the binary
//! from GitHub when installed and Debian bookworm has none, so it cannot come from the
//! package registries `.ci/run` installs from. The schema catches what actionlint's syntax
//! pass does (unknown keys, wrong shapes, bad `on:` and `permissions:`), not its shell or
//! expression checks.

mod common;

use std::path::Path;
use std::process::Command;

const WORKFLOWS: [&str; 2] = [
    ".github/workflows/release.yml",
    "examples/grading-repo/.github/workflows/grade.yml",
];

fn validate(path: &Path) -> std::process::Output {
    Command::new("check-jsonschema")
        .args(["--builtin-schema", "vendor.github-workflows"])
        .arg(path)
        .output()
        .unwrap()
}

#[test]
fn every_workflow_is_valid_and_a_broken_one_is_caught() {
    common::needs(
        "check-jsonschema",
        None,
        "python3 -m pip install check-jsonschema",
    );
    for w in WORKFLOWS {
        let out = validate(Path::new(w));
        assert!(
            out.status.success(),
            "{w}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The check can fail: a misspelt key is refused.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(WORKFLOWS[0])
        .unwrap()
        .replace("runs-on:", "run-on:");
    let broken = dir.path().join("broken.yml");
    std::fs::write(&broken, text).unwrap();
    assert!(!validate(&broken).status.success());
}

#[test]
fn the_release_builds_the_static_binary_and_the_wheels_with_checksums_on_a_tag() {
    let text = std::fs::read_to_string(WORKFLOWS[0]).unwrap();
    for want in [
        "tags: [\"v*\"]",
        "x86_64-unknown-linux-musl",
        "PyO3/maturin-action",
        "--locked",
        "sha256sum",
        "SHA256SUMS",
        "gh release create",
        // The token may only read but where the release is made.
        "permissions:\n  contents: read",
        "    permissions:\n      contents: write",
    ] {
        assert!(text.contains(want), "release.yml lacks {want:?}");
    }
    assert_eq!(text.matches("contents: write").count(), 1);
    assert_eq!(
        text.matches("uses: actions/checkout").count(),
        text.matches("with: { persist-credentials: false }").count(),
        "every checkout leaves no token behind"
    );
}
