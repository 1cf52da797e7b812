//! `python:PATH`: a student's Python file or folder, run under broadside's bundled driver.
//!
//! The driver (`drivers/python_driver.py`, compiled into the binary) and a copy of the
//! submission go into a private temporary folder; the child runs there, so it sees only its
//! own files in its working directory. When broadside runs as root the folder belongs to the
//! unprivileged user the child runs as. The same copy can also run as a whole program: the
//! submission's `main()` under `drivers/python_main.py`, for dialogue scenarios.

use super::limits::NOBODY;
use super::program::GameServer;
use super::workspace::{Workspace, copy_tree, ours, theirs};
use super::{Process, TargetError};
use camino::Utf8Path;

/// The bundled Python driver.
pub(crate) const DRIVER: &str = include_str!("../../drivers/python_driver.py");

/// The bundled launcher of a submission's `main()`, for dialogue scenarios.
pub(crate) const MAIN_LAUNCHER: &str = include_str!("../../drivers/python_main.py");

/// How both find the student's module (`broadside_find.py` beside them).
pub(crate) const FINDER: &str = include_str!("../../drivers/python_find.py");

/// How a notebook (`.ipynb`) or Colab's `.py` export is run as the module, cell by cell,
/// inside the child (`broadside_notebook.py` beside the driver).
pub const NOTEBOOK: &str = include_str!("../../drivers/python_notebook.py");

/// The Python interpreter used; `BROADSIDE_PYTHON` overrides it.
pub fn interpreter() -> String {
    std::env::var("BROADSIDE_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Checks once per broadside process that the interpreter runs and is Python 3.8 or newer,
/// as the Haskell and Java targets check their compilers: without one no submission can be
/// judged, which is broadside's failure, not each student's `crash`.
///
/// Errors: it cannot be started, or it is not such a Python (naming it and the fix):
/// [`TargetError::Grader`].
pub(crate) fn check_interpreter() -> Result<(), TargetError> {
    static CHECKED: std::sync::OnceLock<Result<(), TargetError>> = std::sync::OnceLock::new();
    CHECKED
        .get_or_init(|| {
            let python = interpreter();
            let fix = if std::env::var_os("BROADSIDE_PYTHON").is_some() {
                "point BROADSIDE_PYTHON at a Python 3.8 or newer, or unset it to use python3"
            } else {
                "install Python 3: apt-get install python3; or point BROADSIDE_PYTHON at one"
            };
            let out = std::process::Command::new(&python)
                .args([
                    "-c",
                    "import sys; sys.exit(0 if sys.version_info >= (3, 8) else 3)",
                ])
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| {
                    TargetError::Grader(format!(
                        "could not run the Python interpreter `{python}`: {e}; {fix}"
                    ))
                })?;
            if out.status.success() {
                Ok(())
            } else {
                Err(TargetError::Grader(format!(
                    "the Python interpreter `{python}` is not Python 3.8 or newer, or does not run ({}); {fix}",
                    out.status
                )))
            }
        })
        .clone()
}

/// A target for the submission at `path` (a `.py` file, a notebook `.ipynb`, or a folder
/// holding either).
///
/// Errors: the path does not exist or the submission cannot be copied
/// ([`TargetError::Input`]); no Python runs, or the private folder cannot be made or the
/// driver written into it ([`TargetError::Grader`]).
pub fn target(path: &Utf8Path) -> Result<Process, TargetError> {
    target_as(path, NOBODY)
}

/// [`target`], with the child running as `uid` when broadside runs as root (`grade` gives
/// each job slot a user of its own, so one submission's processes never count against
/// another's process limit).
///
/// Errors: as [`target`].
pub fn target_as(path: &Utf8Path, uid: u32) -> Result<Process, TargetError> {
    target_with(path, uid, None)
}

/// [`target_as`], with the course's third-party packages (`python_packages` in suite.toml)
/// on the child's `PYTHONPATH`, shown read-only in its jail, and their names given to the
/// driver for its finding on a package the course does not allow. Without any, the child
/// still hears that the course allows none.
///
/// Errors: as [`target`].
pub(crate) fn target_with(
    path: &Utf8Path,
    uid: u32,
    packages: Option<&super::packages::PythonPackages>,
) -> Result<Process, TargetError> {
    let src = std::fs::canonicalize(path)
        .map_err(|e| TargetError::Input(format!("python:{path}: {e}")))?;
    check_interpreter()?;
    let ws = Workspace::new()?;
    let driver = ws.boxed.join("broadside_driver.py");
    let launcher = ws.boxed.join("broadside_main.py");
    let finder = ws.boxed.join("broadside_find.py");
    let notebook = ws.boxed.join("broadside_notebook.py");
    for (file, text) in [
        (&driver, DRIVER),
        (&launcher, MAIN_LAUNCHER),
        (&finder, FINDER),
        (&notebook, NOTEBOOK),
    ] {
        super::workspace::write_readable(file, text).map_err(ours)?;
    }
    let mut skipped = Vec::new();
    let copy = if src.is_dir() {
        skipped = copy_tree(&src, &ws.work, &|_, _| true).map_err(theirs)?;
        ws.work.clone()
    } else {
        let name = src
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        super::workspace::copy_file(&src, &ws.work.join(&name)).map_err(theirs)?;
        ws.work.join(&name)
    };
    let args = vec![
        "-u".to_string(),
        "-B".to_string(),
        ws.inside(&driver),
        ws.inside(&copy),
    ];
    let none = super::packages::PythonPackages {
        allowed: Vec::new(),
        dir: None,
    };
    let packages = packages.unwrap_or(&none);
    let shown: Vec<std::path::PathBuf> = packages.dir.iter().cloned().collect();
    let jail = ws.seal(uid, &shown)?;
    let main_args = vec![
        "-u".to_string(),
        "-B".to_string(),
        ws.inside(&launcher),
        ws.inside(&copy),
    ];
    let mut serve_args = main_args.clone();
    serve_args.insert(3, "--serve".to_string());
    let name = format!("python:{path}");
    let mut program = ws.program(name.clone(), interpreter(), main_args, jail.clone(), uid);
    // One interpreter forks a process per game (see `serve_games` in drivers/python_main.py):
    // each game is a process of its own, as it is without the server, that has not paid for
    // an interpreter's start.
    if std::env::var("BROADSIDE_PYTHON_SERVER").is_ok_and(|v| v == "0") {
        program.game_server = None;
    } else {
        let fifos = ws.games()?;
        program.game_server = Some(GameServer {
            args: serve_args,
            fifos_inside: ws.inside(&fifos),
            fifos,
        });
    }
    program
        .env
        .push(("PYTHONIOENCODING".into(), "utf-8".into()));
    program.env.extend(packages.env());
    program.language = Some(crate::spec::Language::Python);
    program.announces_reads = true;
    program.starts_ahead = true;
    let mut process = ws.process(name, interpreter(), args, jail, uid);
    for (key, value) in packages.env() {
        process = process.env(&key, &value);
    }
    process.whole = Some(program);
    process.copy_note = super::workspace::skipped_note(&skipped);
    Ok(process)
}
