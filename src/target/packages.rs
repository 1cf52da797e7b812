//! The third-party Python packages a course allows (`python_packages = ["numpy"]` in a
//! `suite.toml`), provided to every Python child.
//!
//! Installed once, before grading, by broadside itself and outside any jail:
//! `python3 -m pip install --target <cache folder> <packages>` into a folder of broadside's
//! cache named by the packages and the interpreter's version, reused by every later run. The
//! child gets that folder on its `PYTHONPATH`; it cannot write there (it belongs to the
//! grader's user, and a jail shows it as a folder of root's), and it never runs pip itself, so
//! no submission installs anything. A package that cannot be installed is the grader's failure
//! (nothing is graded, no one gets a zero), said with pip's own last words.
//!
//! `BROADSIDE_PYTHON_PACKAGES_DIR` names a folder where they are installed already (the
//! Gradescope image's `setup.sh` installs them there, see `cli/autograder.rs`); nothing is
//! installed then. pip's own settings apply to the install (`PIP_INDEX_URL`, `PIP_NO_INDEX`,
//! `PIP_FIND_LINKS` for a course's local wheels, a proxy).

use super::TargetError;
use std::path::PathBuf;

/// The packages a course allows and where the child finds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonPackages {
    /// As the suites list them (pip requirement specifiers: `numpy`, `numpy==1.26`).
    pub allowed: Vec<String>,
    /// The folder they are installed in (on the child's `PYTHONPATH`); `None` when none is
    /// allowed.
    pub dir: Option<PathBuf>,
}

impl PythonPackages {
    /// The environment the child gets: `BROADSIDE_PYTHON_PACKAGES` (the allowed list, for the
    /// driver's finding on a package not allowed) and `PYTHONPATH`.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![(
            "BROADSIDE_PYTHON_PACKAGES".to_string(),
            self.allowed
                .iter()
                .map(|p| import_name(p))
                .collect::<Vec<_>>()
                .join(","),
        )];
        if let Some(dir) = &self.dir {
            env.push(("PYTHONPATH".to_string(), dir.to_string_lossy().into_owned()));
        }
        env
    }
}

/// The name a requirement's package is imported by, as far as the requirement says
/// (`numpy==1.26` → `numpy`, `python-dateutil` → `python_dateutil`).
fn import_name(requirement: &str) -> String {
    requirement
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .next()
        .unwrap_or_default()
        .replace('-', "_")
}

/// Whether `requirement` is one pip may be given: a package name, optionally with a version
/// (`numpy`, `numpy==1.26.4`, `scikit-learn>=1.3`); never an option (`--index-url …`), a
/// path or a URL.
pub(crate) fn is_requirement(requirement: &str) -> bool {
    let mut chars = requirement.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && requirement
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-[],=<>!~ ".contains(c))
}

/// Installs `allowed` once (or finds them installed) and says where the child finds them.
///
/// Errors (the grader's failure): pip is missing or the install fails (the message names
/// the packages, the command and pip's last lines), or the cache folder cannot be made.
pub fn provide(allowed: &[String]) -> Result<PythonPackages, TargetError> {
    if allowed.is_empty() {
        return Ok(PythonPackages {
            allowed: Vec::new(),
            dir: None,
        });
    }
    let list = allowed.join(", ");
    if let Some(dir) = std::env::var_os("BROADSIDE_PYTHON_PACKAGES_DIR") {
        let dir = PathBuf::from(dir);
        if !dir.is_dir() {
            return Err(TargetError::Grader(format!(
                "BROADSIDE_PYTHON_PACKAGES_DIR={} is not a folder; it should hold the packages the suite allows ({list}), installed with `pip install --target`",
                dir.display()
            )));
        }
        return Ok(PythonPackages {
            allowed: allowed.to_vec(),
            dir: Some(dir),
        });
    }
    let python = super::python::interpreter();
    let version = interpreter_version(&python)?;
    let name: String = format!("{version}-{}", allowed.join("+"))
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let root = cache_root()?;
    let dir = root.join(&name);
    if dir.join(".complete").is_file() {
        return Ok(PythonPackages {
            allowed: allowed.to_vec(),
            dir: Some(dir),
        });
    }
    let fail = |e: String| {
        TargetError::Grader(format!(
            "could not install the Python packages the suite allows ({list}): {e}"
        ))
    };
    let tmp = root.join(format!(".{name}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let mut args: Vec<String> = [
        "-m",
        "pip",
        "install",
        "--no-input",
        "--disable-pip-version-check",
        "--no-warn-script-location",
        "--quiet",
        "--target",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(tmp.to_string_lossy().into_owned());
    args.push("--".into());
    args.extend(allowed.iter().cloned());
    let shown = format!("{python} {}", args.join(" "));
    let out = std::process::Command::new(&python)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| fail(format!("`{shown}` could not start: {e}")))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        let said = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = said.lines().filter(|l| !l.trim().is_empty()).collect();
        return Err(fail(format!(
            "`{shown}` failed ({}): {}; install them where the grader can reach an index (or set PIP_FIND_LINKS to a folder of wheels), or remove them from suite.toml's python_packages",
            out.status,
            last[last.len().saturating_sub(3)..].join(" / ")
        )));
    }
    std::fs::write(tmp.join(".complete"), format!("{list}\n"))
        .and_then(|()| readable_tree(&tmp))
        .map_err(|e| fail(format!("{}: {e}", tmp.display())))?;
    // Another broadside may have finished the same folder first: its copy is as good.
    if std::fs::rename(&tmp, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join(".complete").is_file() {
            return Err(fail(format!(
                "could not move the install to {}",
                dir.display()
            )));
        }
    }
    Ok(PythonPackages {
        allowed: allowed.to_vec(),
        dir: Some(dir),
    })
}

/// `3.11` for the interpreter `python`.
fn interpreter_version(python: &str) -> Result<String, TargetError> {
    let out = std::process::Command::new(python)
        .args(["-c", "import sys; print('py%d.%d' % sys.version_info[:2])"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            TargetError::Grader(format!(
                "could not run the Python interpreter `{python}`: {e}"
            ))
        })?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `BROADSIDE_CACHE_DIR`, else `/var/cache/broadside` as root (a folder the children's users
/// may read: root's home is closed to them), else `$XDG_CACHE_HOME/broadside` or
/// `~/.cache/broadside`; with `python-packages` under it, made readable by all.
fn cache_root() -> Result<PathBuf, TargetError> {
    let base = if let Some(dir) = std::env::var_os("BROADSIDE_CACHE_DIR") {
        PathBuf::from(dir)
    } else if super::limits::running_as_root() {
        PathBuf::from("/var/cache/broadside")
    } else if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        PathBuf::from(dir).join("broadside")
    } else {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into()))
            .join(".cache/broadside")
    };
    let root = base.join("python-packages");
    std::fs::create_dir_all(&root)
        .and_then(|()| {
            use std::os::unix::fs::PermissionsExt;
            for d in [&base, &root] {
                std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755))?;
            }
            Ok(())
        })
        .map_err(|e| {
            TargetError::Grader(format!(
                "could not make broadside's cache folder {} for the suite's Python packages: {e}; set BROADSIDE_CACHE_DIR to a folder broadside may write",
                root.display()
            ))
        })?;
    Ok(root)
}

/// Makes every file under `path` readable, and every folder searchable, by all users.
fn readable_tree(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let mode = meta.permissions().mode();
    let want = if meta.is_dir() {
        mode | 0o555
    } else {
        mode | 0o444
    };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(want & !0o022))?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            readable_tree(&entry?.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_are_names_with_versions_never_options_or_paths() {
        for ok in [
            "numpy",
            "numpy==1.26.4",
            "scikit-learn>=1.3",
            "rich[jupyter]",
        ] {
            assert!(is_requirement(ok), "{ok}");
        }
        for bad in [
            "",
            "--index-url=http://x",
            "-e .",
            "./wheels/x.whl",
            "http://x/y",
            "a;b",
        ] {
            assert!(!is_requirement(bad), "{bad}");
        }
        assert_eq!(import_name("numpy==1.26"), "numpy");
        assert_eq!(import_name("python-dateutil"), "python_dateutil");
    }
}
