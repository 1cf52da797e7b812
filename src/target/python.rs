//! `python:PATH`: a student's Python file or folder, run under broadside's bundled driver.
//!
//! The driver (`drivers/python_driver.py`, compiled into the binary and written to a private
//! temporary folder at run time) imports the student's module and adapts the assignment's
//! exact function API to the protocol.

use super::Process;
use camino::Utf8Path;

/// The bundled Python driver.
pub const DRIVER: &str = include_str!("../../drivers/python_driver.py");

/// The Python interpreter used; `BROADSIDE_PYTHON` overrides it.
pub fn interpreter() -> String {
    std::env::var("BROADSIDE_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// A target for the submission at `path` (a `.py` file, or a folder holding the module).
///
/// Errors: the path does not exist, or the driver cannot be written.
pub fn target(path: &Utf8Path) -> Result<Process, String> {
    let abs = std::fs::canonicalize(path).map_err(|e| format!("python:{path}: {e}"))?;
    let dir = tempfile::Builder::new()
        .prefix("broadside-driver-")
        .tempdir()
        .map_err(|e| format!("could not make a folder for the Python driver: {e}"))?;
    let driver = dir.path().join("broadside_driver.py");
    std::fs::write(&driver, DRIVER)
        .map_err(|e| format!("could not write the Python driver: {e}"))?;
    let cwd = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map_or(abs.clone(), |p| p.to_path_buf())
    };
    let args = vec![
        "-u".to_string(),
        "-B".to_string(),
        driver.to_string_lossy().into_owned(),
        abs.to_string_lossy().into_owned(),
    ];
    Ok(Process::new(format!("python:{path}"), interpreter(), args, Some(cwd)).keep(dir))
}
