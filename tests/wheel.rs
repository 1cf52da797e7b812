//! `pip install broadside` (issue 37 item 1): the wheel `pyproject.toml` describes carries
//! the binary; installed into a fresh virtual environment with no network, its `broadside`
//! self-checks a sample as a student without Rust would.

mod common;

use std::path::Path;
use std::process::Command;

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_wheel_installs_with_no_network_and_its_broadside_self_checks_a_sample() {
    common::needs("maturin", None, "python3 -m pip install maturin");
    let dir = tempfile::tempdir().unwrap();
    let wheels = dir.path().join("wheels");
    // The debug profile, as the tests are built: the wheel is the same but for speed.
    run(Command::new("maturin")
        .args(["build", "--compatibility", "linux", "--out"])
        .arg(&wheels)
        .env_remove("RUSTFLAGS"));
    let wheel: Vec<_> = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(wheel.len(), 1, "{wheel:?}");
    let name = wheel[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("broadside-"), "{name}");

    // With the system's packages seen too, for the notebook kernel below (ipykernel and
    // nbclient come from `.ci/run`); broadside itself only from the wheel.
    let venv = dir.path().join("venv");
    run(Command::new("python3")
        .args(["-m", "venv", "--system-site-packages"])
        .arg(&venv));
    let bin = venv.join("bin");
    run(Command::new(bin.join("pip"))
        .args(["install", "--no-index", "--quiet"])
        .arg(&wheel[0])
        .env("PIP_NO_INDEX", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"));
    let broadside = bin.join("broadside");
    assert!(
        broadside.exists(),
        "the wheel put no `broadside` in {bin:?}"
    );

    // From a folder that is not the checkout: the published scenarios are inside.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/submissions/solo-10x10/correct")
        .canonicalize()
        .unwrap();
    let out = run(Command::new(&broadside)
        .args([
            "run",
            "--assignment",
            "solo-10x10",
            "--format",
            "json",
            "--target",
        ])
        .arg(format!("python:{}", sample.display()))
        .current_dir(dir.path()));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary = &report["summary"];
    assert!(summary["max_points"].as_f64().unwrap() > 0.0, "{report:#}");
    assert_eq!(summary["points"], summary["max_points"], "{report:#}");
    assert_eq!(summary["failed"], 0, "{report:#}");

    // And a wrong input is a clear error, not a crash.
    let out = Command::new(&broadside)
        .args(["run", "--assignment", "no-such-assignment"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no-such-assignment"),
        "{out:?}"
    );

    notebook_self_check(&bin, dir.path());
}

/// In a real kernel (nbclient and ipykernel, headless), a notebook that defines buggy
/// colab-6x6 functions and then calls `broadside.check("colab-6x6")` shows the report below
/// that cell: as HTML (the score, the first failure with the handout's words and its board)
/// and as plain text (issue 37 item 2).
fn notebook_self_check(bin: &Path, dir: &Path) {
    common::needs_notebook_kernel();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/submissions/colab-6x6/has-won-inverted/battleship.py");
    let code = std::fs::read_to_string(sample).unwrap();
    let script = r#"
import json, sys
import nbclient, nbformat
nb = nbformat.v4.new_notebook()
nb.cells = [
    nbformat.v4.new_code_cell("%pip --version"),
    nbformat.v4.new_code_cell(open(sys.argv[1]).read()),
    nbformat.v4.new_code_cell("import broadside\nbroadside.check('colab-6x6')"),
]
nbclient.NotebookClient(nb, kernel_name="python3", timeout=600).execute()
print(json.dumps(nb.cells[-1].outputs))
"#;
    let code_file = dir.join("cell.py");
    std::fs::write(&code_file, code).unwrap();
    let out = run(Command::new(bin.join("python"))
        .arg("-c")
        .arg(script)
        .arg(&code_file)
        .current_dir(dir));
    let outputs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown = outputs
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["output_type"] == "execute_result")
        .unwrap_or_else(|| panic!("no report below the cell: {outputs:#}"));
    let html = shown["data"]["text/html"].as_str().unwrap();
    let text = shown["data"]["text/plain"].as_str().unwrap();
    for want in [
        "broadside colab-6x6:",
        "First failure",
        "has_won",
        "Step 8",
        "<pre>",
    ] {
        assert!(html.contains(want), "{want:?} not in {html}");
    }
    assert!(!html.contains("85 / 85 points"), "{html}");
    assert!(
        text.contains("First failure") && text.contains("has_won"),
        "{text}"
    );
}
