//! broadside's own code in other languages is held to the standard of its Rust (issue 38
//! item 6): the Python drivers and the `broadside` Python package pass pyflakes, and the Java
//! launcher, game server and seed compile with `-Xlint:all -Werror`, laid out as broadside
//! writes them for a submission (package `broadside_launch`, `Launch.java`, `Serve.java`,
//! `Seed.java`). A missing tool fails the test, naming it (`.ci/run` installs pyflakes).

use std::process::Command;

#[test]
fn the_python_drivers_pass_pyflakes() {
    let out = Command::new("python3")
        .args(["-m", "pyflakes", "drivers", "python/broadside"])
        .output()
        .expect("python3 is needed to lint the Python drivers");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("No module named pyflakes"),
        "pyflakes is missing: `python3 -m pip install pyflakes` (.ci/run installs it)"
    );
    assert!(
        out.status.success(),
        "pyflakes found problems:\n{}{err}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_java_launcher_compiles_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src/broadside_launch");
    std::fs::create_dir_all(&src).unwrap();
    for (from, to) in [
        ("BroadsideLaunch.java", "Launch.java"),
        ("BroadsideServe.java", "Serve.java"),
        ("BroadsideSeed.java", "Seed.java"),
    ] {
        std::fs::copy(format!("drivers/{from}"), src.join(to)).unwrap();
    }
    let out = Command::new(std::env::var("BROADSIDE_JAVAC").unwrap_or_else(|_| "javac".into()))
        .args(["-Xlint:all", "-Werror", "-d"])
        .arg(dir.path().join("out"))
        .args(["Launch.java", "Serve.java", "Seed.java"].map(|f| src.join(f)))
        .output()
        .expect("javac (a JDK) is needed to compile the Java launcher: apt-get install openjdk-17-jdk-headless");
    assert!(
        out.status.success(),
        "javac -Xlint:all:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
