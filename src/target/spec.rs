//! What `--target` names (`TargetSpec`), the target it makes, and the targets that need no
//! process of their own (the reference, a submission that did not build).

use super::{Fault, Observed, Plays, Process, ProgramTarget, Reference, Target};
use crate::engine::Answer;
use crate::report::ScenarioResult;
use crate::scenario::{Action, Scenario, Setup};
use crate::spec::{Rules, StateKey};
use camino::Utf8PathBuf;
use std::sync::Arc;

/// A `--target` value, parsed once where it is read (clap's value parser; `grade` fills its
/// template in first): which kind of target, and the path or command it names. Written back
/// (`Display`) it is the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    /// `reference`: broadside's own engine.
    Reference,
    /// `python:PATH`: a student's `.py` file or folder.
    Python(Utf8PathBuf),
    /// `haskell:PATH`: a `Battleship.hs` or its folder, compiled here.
    Haskell(Utf8PathBuf),
    /// `native:PATH`: a shared library, or a folder to build one from, implementing
    /// `specs/abi/broadside.h`.
    Native(Utf8PathBuf),
    /// `java:PATH`: a Java program's sources, compiled here.
    Java(Utf8PathBuf),
    /// `exec:COMMAND`: any interactive program, through `sh -c`.
    Exec(String),
    /// `cmd:COMMAND`: a program that speaks the protocol, through `sh -c`.
    Cmd(String),
}

impl TargetSpec {
    /// Whether it names a command line (`cmd:`, `exec:`), which goes through `sh -c`: a
    /// path put into it must be quoted as one word.
    pub fn is_command(&self) -> bool {
        matches!(self, TargetSpec::Exec(_) | TargetSpec::Cmd(_))
    }
}

impl std::str::FromStr for TargetSpec {
    type Err = String;

    /// Errors: an unknown kind (with the target most likely meant, see [`meant_target`]),
    /// or an `exec:` without a command.
    // A string error: clap shows it under `--target`; every caller treats it as bad input.
    fn from_str(spec: &str) -> Result<TargetSpec, String> {
        if spec == "reference" {
            return Ok(TargetSpec::Reference);
        }
        let Some((kind, rest)) = spec.split_once(':') else {
            return Err(unknown_target(spec));
        };
        let path = || Utf8PathBuf::from(rest);
        Ok(match kind {
            "python" => TargetSpec::Python(path()),
            "haskell" => TargetSpec::Haskell(path()),
            "native" => TargetSpec::Native(path()),
            "java" => TargetSpec::Java(path()),
            "exec" if rest.trim().is_empty() => {
                return Err("`exec:` needs a command, e.g. `exec:\"./battleboats\"`".into());
            }
            "exec" => TargetSpec::Exec(rest.to_string()),
            "cmd" => TargetSpec::Cmd(rest.to_string()),
            _ => return Err(unknown_target(spec)),
        })
    }
}

impl std::fmt::Display for TargetSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetSpec::Reference => write!(f, "reference"),
            TargetSpec::Python(p) => write!(f, "python:{p}"),
            TargetSpec::Haskell(p) => write!(f, "haskell:{p}"),
            TargetSpec::Native(p) => write!(f, "native:{p}"),
            TargetSpec::Java(p) => write!(f, "java:{p}"),
            TargetSpec::Exec(c) => write!(f, "exec:{c}"),
            TargetSpec::Cmd(c) => write!(f, "cmd:{c}"),
        }
    }
}

/// The error for a target of no known kind, with the one most likely meant.
fn unknown_target(spec: &str) -> String {
    let mut message = format!(
        "unknown target `{spec}`; expected `reference`, `python:PATH`, `haskell:PATH`, `native:PATH`, `cmd:COMMAND`, `java:PATH` or `exec:COMMAND`"
    );
    if let Some(meant) = meant_target(spec) {
        message.push_str(&format!("; did you mean `--target {meant}`?"));
    }
    message
}

/// Starts, on a thread of its own, the once-per-process checks that [`from_spec`] and the
/// first child make for `spec` (whether children can get namespaces, for every target with
/// a child; that the Python interpreter runs and is new enough, for `python:`), so that they
/// overlap with loading the scenarios instead of delaying the first child: about 15 ms of a
/// `run` against a Python submission. Their callers still wait for the answers and report
/// a failed check as before.
pub fn check_ahead(spec: &TargetSpec) {
    if matches!(spec, TargetSpec::Reference) {
        return;
    }
    let python = matches!(spec, TargetSpec::Python(_));
    std::thread::spawn(move || {
        if python {
            let _ = super::python::check_interpreter();
        }
        let _ = super::limits::namespaces_available();
    });
}

/// Builds the target that `spec` names (see [`TargetSpec`]), with `limits` for a child.
/// `java:` and `exec:` are whole programs, which play dialogue scenarios only.
/// `uid` (as root only) is the user a `python:`, `haskell:` or `native:` child runs as,
/// [`super::limits::NOBODY`] unless `grade` gives each job slot its own. A `native:` worker is the
/// running executable re-executed, so only the `broadside` binary grades native targets.
///
/// Errors: a path that does not exist, or a submission whose files cannot be copied
/// ([`TargetError::Input`]); a tool broadside needs that does not run (the Python
/// interpreter, GHC, `javac`, its own executable), or a private folder that cannot be made
/// or broadside's driver written into it ([`TargetError::Grader`]). Each site says which: no
/// string becomes either by default. A submission that does not compile is not an error:
/// its target fails every scenario at setup with the compiler's message.
pub fn from_spec(
    spec: &TargetSpec,
    limits: super::limits::Limits,
    uid: u32,
) -> Result<Box<dyn Target>, TargetError> {
    Ok(match spec {
        TargetSpec::Reference => Box::new(Reference::new()),
        TargetSpec::Python(path) => {
            super::python::check_interpreter()?;
            let mut target =
                super::python::target_with(path, uid, limits.python_packages.as_deref())?;
            target.limits = limits;
            Box::new(target)
        }
        TargetSpec::Haskell(path) => match super::haskell::target(path, limits, uid)? {
            super::build::Built::Ready(process) => process,
            super::build::Built::Failed(fault) => Box::new(Unbuildable {
                name: spec.to_string(),
                fault,
                plays: Plays::STEPS,
            }),
        },
        TargetSpec::Native(path) => {
            let worker = std::env::current_exe().map_err(|e| {
                TargetError::Grader(format!("could not find broadside's own executable: {e}"))
            })?;
            super::native::target_as(path, &worker, limits, uid)?
        }
        TargetSpec::Java(path) => match super::program::java_target(path, limits, uid)? {
            super::build::Built::Ready(program) => Box::new(ProgramTarget { program: *program }),
            super::build::Built::Failed(fault) => Box::new(Unbuildable {
                name: spec.to_string(),
                fault,
                plays: Plays::DIALOGUES,
            }),
        },
        TargetSpec::Exec(command) => Box::new(ProgramTarget {
            program: super::program::exec(command, limits, uid),
        }),
        TargetSpec::Cmd(command) => {
            let mut target = Process::command(command).run_as(uid);
            target.limits = limits;
            Box::new(target)
        }
    })
}

/// Why a target could not be made: the input's fault, or broadside's own side.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The target or the submission's path is wrong (`broadside` exits 2).
    #[error("{0}")]
    Input(String),
    /// Something broadside itself needs is missing or broken: the Python interpreter, say
    /// (`broadside` exits 3; `grade` leaves the submission not graded, never scored).
    #[error("{0}")]
    Grader(String),
}

/// The target `spec` most likely meant: a kind spelt another common way (`py:`, `hs:`,
/// `ghc:`, `c:`, `so:`, `sh:`…, any case), or a bare path named by what it holds
/// (`battleships.py` → `python:battleships.py`).
pub fn meant_target(spec: &str) -> Option<String> {
    let kind_for = |word: &str| -> Option<&'static str> {
        Some(match word.to_ascii_lowercase().as_str() {
            "py" | "python" | "python3" | "pytest" => "python",
            "hs" | "ghc" | "haskell" | "stack" | "cabal" => "haskell",
            "java" | "javac" | "jar" | "jvm" => "java",
            "c" | "so" | "lib" | "rust" | "rs" | "cargo" | "native" | "ffi" => "native",
            "command" | "sh" | "bash" | "run" | "program" | "exec" => "exec",
            "cmd" | "protocol" | "json" => "cmd",
            _ => return None,
        })
    };
    if let Some((word, rest)) = spec.split_once(':') {
        return kind_for(word).map(|kind| format!("{kind}:{rest}"));
    }
    if spec.eq_ignore_ascii_case("ref") || spec.eq_ignore_ascii_case("reference") {
        return Some("reference".into());
    }
    let path = camino::Utf8Path::new(spec);
    let kind = match kind_of_source(path) {
        Some(kind) => kind,
        None if path.is_dir() => folder_kind(path)?,
        None => return None,
    };
    Some(format!("{kind}:{spec}"))
}

/// The target kind a source file or library at `path` is graded by (`python`, `haskell`,
/// `java`, `native`), by its extension; `None` for a scenario or anything else.
pub fn kind_of_source(path: &camino::Utf8Path) -> Option<&'static str> {
    match path.extension()? {
        "py" => Some("python"),
        "hs" | "lhs" => Some("haskell"),
        "java" => Some("java"),
        "c" | "h" | "rs" | "so" | "dylib" | "cpp" => Some("native"),
        _ => None,
    }
}

/// The kind of target a submission folder is, by the first source file it holds (or a
/// `Cargo.toml` or `Makefile`, which build a native library).
pub fn folder_kind(dir: &camino::Utf8Path) -> Option<&'static str> {
    let mut names: Vec<String> = dir
        .read_dir_utf8()
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string())
        .collect();
    names.sort();
    names.iter().find_map(|n| match n.as_str() {
        "Cargo.toml" | "Makefile" => Some("native"),
        _ => kind_of_source(camino::Utf8Path::new(n)),
    })
}

/// A submission that could not be built (it does not compile): every scenario fails at setup
/// with the same fault, the compiler's message.
pub struct Unbuildable {
    pub name: String,
    pub fault: Fault,
    /// What the target would have played, so it fails the same scenarios a built one plays.
    pub plays: Plays,
}

impl Target for Unbuildable {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn plays(&self) -> Plays {
        self.plays
    }
    fn play_dialogue(&mut self, scenario: &Scenario) -> ScenarioResult {
        crate::dialogue::run(scenario, Err(&self.fault))
    }
    fn new_game(&mut self, _: &Arc<Rules>, _: &Setup) -> Result<(), Fault> {
        Err(self.fault.clone())
    }
    fn act(&mut self, _: &Action) -> Result<Answer, Fault> {
        Err(self.fault.clone())
    }
    fn observe(&mut self, _: StateKey) -> Result<Observed, Fault> {
        Err(self.fault.clone())
    }
}

#[cfg(test)]
mod target_spec {
    use super::TargetSpec;

    #[test]
    fn every_kind_parses_and_writes_back_as_typed() {
        for text in [
            "reference",
            "python:battleships.py",
            "haskell:sub/Battleship.hs",
            "native:lib.so",
            "java:class/student-1",
            "exec:./game --fast",
            "cmd:python3 drv.py 'a b'",
            "python:{}",
        ] {
            let spec: TargetSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "python:a:b".parse::<TargetSpec>(),
            Ok(TargetSpec::Python("a:b".into()))
        );
        assert!("exec:x".parse::<TargetSpec>().unwrap().is_command());
        assert!(!"java:x".parse::<TargetSpec>().unwrap().is_command());
    }

    #[test]
    fn an_unknown_kind_names_the_one_meant() {
        let e = "py:battleships.py".parse::<TargetSpec>().unwrap_err();
        assert!(e.starts_with("unknown target `py:battleships.py`"), "{e}");
        assert!(
            e.ends_with("did you mean `--target python:battleships.py`?"),
            "{e}"
        );
        let e = "Reference".parse::<TargetSpec>().unwrap_err();
        assert!(e.ends_with("did you mean `--target reference`?"), "{e}");
        assert!(
            "exec: "
                .parse::<TargetSpec>()
                .unwrap_err()
                .contains("needs a command")
        );
    }
}
