//! `examples/grading-repo`, a course's grading repository, graded by each of its recipes as
//! the engine would run it: the `broadside grade` line of each recipe is run once per job with
//! the variables that engine sets (GitHub's matrix value written in as Actions writes it), then
//! the recipe's `broadside merge` line; the merged summary must be the whole class's.

use std::path::{Path, PathBuf};
use std::process::Command;

const REPO: &str = "examples/grading-repo";

/// A copy of the example repository, so the recipes' output stays out of the source tree.
fn copy_of_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // Open to others as a course's checkout is, so that a hidden folder left readable shows.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for entry in walkdir::WalkDir::new(REPO) {
        let entry = entry.unwrap();
        let to = dir.path().join(entry.path().strip_prefix(REPO).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    dir
}

/// The `broadside SUBCOMMAND …` command line of `recipe` (the one line that holds it), cut
/// where a quoted `--wrap '…'` ends.
fn line_of(recipe: &str, subcommand: &str) -> String {
    let text = std::fs::read_to_string(Path::new(REPO).join(recipe)).unwrap();
    let needle = format!("broadside {subcommand} ");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(&needle)).collect();
    assert_eq!(
        lines.len(),
        1,
        "{recipe}: one `{needle}` line expected: {lines:?}"
    );
    let from = &lines[0][lines[0].find(&needle).unwrap()..];
    from.split('\'').next().unwrap().trim().to_string()
}

/// Runs `line` with `sh -c` in `dir`, broadside on the PATH, only `vars` of the engines';
/// its standard error.
fn sh(dir: &Path, line: &str, vars: &[(String, String)]) -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_broadside"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1");
    for (_, index, _, count) in broadside::grade::SHARD_ENGINES {
        cmd.env_remove(index).env_remove(count.unwrap_or(index));
    }
    cmd.env_remove("SLURM_ARRAY_TASK_MIN");
    let out = cmd.envs(vars.iter().cloned()).output().unwrap();
    assert!(
        out.status.success(),
        "`{line}` with {vars:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const READABLE: &str = "is readable by other users";

fn vars(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn every_recipe_grades_the_class_in_shards_that_merge_into_the_whole_class() {
    let whole = copy_of_repo();
    // Graded as checked out, the hidden suite is readable by student code: warned.
    let warned = sh(
        whole.path(),
        "broadside grade --suite suites --submissions class --out graded",
        &[],
    );
    assert!(warned.contains(READABLE), "{warned}");
    let expected = std::fs::read_to_string(whole.path().join("graded/summary.csv")).unwrap();
    // The class as its README says: one correct, one with a bug, one that does not import.
    let rows: Vec<&str> = expected.lines().skip(1).collect();
    assert!(rows[0].starts_with("alice,100,100,"), "{expected}");
    assert!(
        rows[1].starts_with("bob,") && !rows[1].starts_with("bob,100,"),
        "{expected}"
    );
    assert!(
        rows[2].starts_with("carol,0,100,") && rows[2].contains("SyntaxError"),
        "{expected}"
    );

    type Jobs = fn(usize) -> Vec<(String, String)>;
    let recipes: [(&str, Jobs); 4] = [
        (".github/workflows/grade.yml", |_| vec![]),
        (".gitlab-ci.yml", |k| {
            vars(&[
                ("CI_NODE_INDEX", k.to_string()),
                ("CI_NODE_TOTAL", "3".into()),
            ])
        }),
        ("k8s/grade-job.yaml", |k| {
            vars(&[("JOB_COMPLETION_INDEX", (k - 1).to_string())])
        }),
        ("slurm/grade.sbatch", |k| {
            vars(&[
                ("SLURM_ARRAY_TASK_ID", k.to_string()),
                ("SLURM_ARRAY_TASK_MIN", "1".into()),
                ("SLURM_ARRAY_TASK_COUNT", "3".into()),
            ])
        }),
    ];
    for (recipe, job) in recipes {
        let repo = copy_of_repo();
        // Each recipe closes the hidden suite to other users first (git keeps no folder
        // modes), so grading warns of nothing.
        let close = "chmod -R go-rwx suites/hidden";
        let text = std::fs::read_to_string(Path::new(REPO).join(recipe)).unwrap();
        assert!(text.contains(close), "{recipe}");
        sh(repo.path(), close, &[]);
        let grade = line_of(recipe, "grade");
        for k in 1..=3 {
            let line = grade.replace("${{ matrix.shard }}", &k.to_string());
            let err = sh(repo.path(), &line, &job(k));
            assert!(!err.contains(READABLE), "{recipe}: {err}");
        }
        sh(repo.path(), &line_of(recipe, "merge"), &[]);
        let merged = std::fs::read_to_string(repo.path().join("graded/summary.csv")).unwrap();
        assert_eq!(merged, expected, "{recipe}");
        // The GitHub recipe grades with `--formats …,html`: the merged folder has the class
        // report of every shard's submissions.
        let html = std::fs::read_to_string(repo.path().join("graded/class-report.html"));
        if recipe.starts_with(".github") {
            let html = html.expect("the merged class report");
            for id in ["alice", "bob", "carol"] {
                assert!(
                    html.contains(&format!(">{id}</a>")),
                    "{id} in the class report"
                );
            }
        } else {
            assert!(html.is_err(), "{recipe} grades without html");
        }
    }
}

#[test]
fn the_github_recipe_installs_the_locked_tool_from_its_own_repository() {
    let text =
        std::fs::read_to_string(Path::new(REPO).join(".github/workflows/grade.yml")).unwrap();
    for line in text.lines().filter(|l| l.contains("cargo install")) {
        assert!(
            line.contains("--locked") && !line.contains("--path"),
            "{line}"
        );
    }
    assert!(
        !text.contains("tests/published"),
        "a course's suites are not broadside's tests"
    );
}

/// The recipes hand student code no secret: GitHub's token may only read and is not left in
/// `.git/config`, grading runs as root so containment applies, the pod mounts no
/// service-account token; each recipe says what it protects.
#[test]
fn the_recipes_hand_out_no_token_and_say_what_they_protect() {
    let read = |p: &str| std::fs::read_to_string(Path::new(REPO).join(p)).unwrap();
    let github = read(".github/workflows/grade.yml");
    for want in [
        "permissions:\n  contents: read",
        "persist-credentials: false",
        "sudo env \"PATH=$PATH\" broadside grade",
        "actions/cache@v4",
    ] {
        assert!(github.contains(want), "grade.yml lacks {want:?}");
    }
    assert_eq!(
        github.matches("uses: actions/checkout").count(),
        github
            .matches("with: { persist-credentials: false }")
            .count(),
        "every checkout leaves no token behind"
    );
    let k8s = read("k8s/grade-job.yaml");
    assert!(k8s.contains("automountServiceAccountToken: false"));
    assert!(k8s.contains("runAsUser: 0"));
    for recipe in [
        ".github/workflows/grade.yml",
        ".gitlab-ci.yml",
        "k8s/grade-job.yaml",
        "slurm/grade.sbatch",
    ] {
        assert!(read(recipe).contains("What it protects"), "{recipe}");
    }
}
