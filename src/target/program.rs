//! Whole interactive programs (`java:DIR`, `exec:"COMMAND"`): how to start one, and the
//! target that plays dialogue scenarios with it.
//!
//! battleboats and grenades-8x8 prescribe no functions, only a program that talks to a
//! person (handouts 004 and 002); such a target plays only dialogue scenarios
//! ([`crate::dialogue`]), each in a fresh run of the program. Its protocol calls answer
//! `unsupported`, and `run`/`grade` never make them: the harness plays only the scenarios a
//! target [`Plays`].

use super::build::Built;
use super::limits::{self, Jail, Limits, MemoryKind};
use super::workspace::{Workspace, copy_tree, ours, theirs};
use super::{Fault, FaultKind, Observed, Plays, Target};
use crate::engine::Answer;
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use camino::Utf8Path;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How to start an interactive program, contained like every child: the command, its
/// working folder or jail, the user it runs as and its limits. Cheap to clone; the private
/// folder it runs in lives as long as any copy.
#[derive(Clone)]
pub struct Program {
    /// How reports name it, e.g. `java:subs/ada`.
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
    /// The working folder when there is no jail (`None`: broadside's own).
    pub cwd: Option<PathBuf>,
    /// Variables added to the minimal child environment.
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    /// The unprivileged user (as root only).
    pub drop_to: Option<u32>,
    pub jail: Option<Arc<Jail>>,
    /// Which of several `main` methods was chosen, and why (for the report's notes).
    pub note: Option<String>,
    /// The one submission language whose assignments' dialogues this program plays
    /// (`python:` runs a module's `main()`, a program only where the spec's handout is a
    /// Python one with a dialogue driver); `None`: any (`java:`, `exec:`).
    pub language: Option<crate::spec::Language>,
    /// It runs under one of broadside's launchers, which says on descriptor 3 each time the
    /// program is about to wait for a line (see [`crate::dialogue::session`]); `false`
    /// (`exec:`): whether it waits is read off the kernel.
    pub announces_reads: bool,
    /// Its launcher can be started ahead of its game: with `BROADSIDE_START_AHEAD=1` it
    /// waits, before it loads any of the submission, for a first line (the game's
    /// environment as a JSON object), so the next game's runtime starts while this one plays
    /// (see [`crate::dialogue`]).
    pub starts_ahead: bool,
    /// The child started ahead for the next game, or the game server between games,
    /// parked here.
    pub spare: Spare,
    /// One process that plays every game, one after the other (a Java program's: see
    /// `drivers/BroadsideServe.java`); `None`: a process per game.
    pub game_server: Option<GameServer>,
    /// What its game server did with the last game, and whether it is retired; shared by
    /// the program's copies (see [`ServerRecord`]).
    pub served: ServerRecord,
    /// Where each game's whole conversation is written for staff (`--transcript`); `None`:
    /// nowhere.
    pub transcripts: Option<crate::dialogue::transcript::TranscriptSink>,
    keep: Option<Arc<tempfile::TempDir>>,
}

/// What a program's game server did, shared by the program's copies: which of its games
/// the last game was (a server carries whatever a game leaves in the runtime's own statics
/// or in System V IPC into the next, so only its first game is sure to have started as a
/// fresh process would), whether the server was retired for the rest of the run (a game
/// replayed in a fresh process graded differently: see [`crate::dialogue::run`]), and the
/// wall-clock time of games thrown away, which is not the submission's.
#[derive(Clone, Default)]
pub struct ServerRecord(Arc<std::sync::Mutex<ServerState>>);

#[derive(Default)]
struct ServerState {
    /// The last game was its server's game number n (0: the server's first).
    last: Option<u32>,
    /// Why the server was retired, for staff (`None`: it was not).
    retired: Option<String>,
    /// Time spent on games thrown away since it was last taken.
    uncharged: Duration,
}

impl ServerRecord {
    fn state(&self) -> std::sync::MutexGuard<'_, ServerState> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A game is about to be played: no server game yet.
    pub(crate) fn begin_game(&self) {
        self.state().last = None;
    }

    /// The game is played as its server's game number `n` (0: the first).
    pub(crate) fn played_as(&self, n: u32) {
        self.state().last = Some(n);
    }

    /// Which game of its server the last game was (`None`: it had a process of its own).
    pub fn last(&self) -> Option<u32> {
        self.state().last
    }

    /// Retires the server for the rest of the run, saying why (for staff).
    pub(crate) fn retire(&self, why: String) {
        let mut s = self.state();
        if s.retired.is_none() {
            s.retired = Some(why);
        }
    }

    /// Whether the server was retired.
    pub fn retired(&self) -> bool {
        self.state().retired.is_some()
    }

    /// Why the server was retired, if it was: a note for staff.
    pub(crate) fn note(&self) -> Option<String> {
        self.state().retired.clone()
    }

    /// Adds `d` to the time not charged to the submission.
    pub(crate) fn uncharge(&self, d: Duration) {
        self.state().uncharged += d;
    }

    /// The time not charged since the last call.
    pub(crate) fn take_uncharged(&self) -> Duration {
        std::mem::take(&mut self.state().uncharged)
    }
}

/// How to start a program's game server: the arguments that replace [`Program::args`], and
/// the folder where each game's three FIFOs (its standard input, output and error) are made.
#[derive(Clone, Debug)]
pub struct GameServer {
    pub args: Vec<String>,
    /// The folder, as broadside reaches it.
    pub fifos: PathBuf,
    /// The same folder as the server names it (relative to its working folder).
    pub fifos_inside: String,
}

/// A child started ahead for a program's next game (the dialogue module's own type, kept
/// opaque here), shared by the program's copies: it lives no longer than they do, and
/// [`Spare::clear`] stops it before a submission's leftovers are looked for.
#[derive(Clone, Default)]
pub struct Spare(Arc<std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>>);

impl Spare {
    /// Takes the parked child, if there is one.
    pub fn take(&self) -> Option<Box<dyn std::any::Any + Send>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Parks `child` (stopping one parked before).
    pub(crate) fn park(&self, child: Box<dyn std::any::Any + Send>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(child);
    }

    /// Stops the parked child, if any (dropping it stops it).
    pub fn clear(&self) {
        drop(self.take());
    }
}

impl Program {
    /// `program args…` in `cwd`, as `nobody` when broadside runs as root, default limits.
    pub fn new(name: String, program: String, args: Vec<String>, cwd: Option<PathBuf>) -> Program {
        Program {
            name,
            program,
            args,
            cwd,
            env: Vec::new(),
            limits: Limits::default(),
            drop_to: limits::running_as_root().then_some(limits::NOBODY),
            jail: None,
            note: None,
            language: None,
            announces_reads: false,
            starts_ahead: false,
            spare: Spare::default(),
            game_server: None,
            served: ServerRecord::default(),
            transcripts: None,
            keep: None,
        }
    }

    /// Runs it as `uid` (as root only).
    pub(crate) fn run_as(mut self, uid: u32) -> Program {
        if self.drop_to.is_some() {
            self.drop_to = Some(uid);
        }
        self
    }

    /// Keeps `dir` alive as long as the program.
    pub fn keep(mut self, dir: Arc<tempfile::TempDir>) -> Program {
        self.keep = Some(dir);
        self
    }
}

/// A target that is a whole program: it plays dialogue scenarios only.
pub struct ProgramTarget {
    pub program: Program,
}

impl Target for ProgramTarget {
    fn name(&self) -> String {
        self.program.name.clone()
    }
    fn plays(&self) -> Plays {
        Plays {
            language: self.program.language,
            ..Plays::DIALOGUES
        }
    }
    fn play_dialogue(
        &mut self,
        scenario: &crate::scenario::Scenario,
    ) -> crate::report::ScenarioResult {
        crate::dialogue::run(scenario, Ok(&self.program))
    }
    fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.program.note.iter().cloned().collect();
        notes.extend(self.program.served.note());
        notes
    }
    fn budget(&self) -> Option<std::time::Duration> {
        Some(self.program.limits.submission_timeout)
    }
    fn keep_transcripts(&mut self, to: &dyn std::any::Any) {
        if let Some(sink) = to.downcast_ref::<crate::dialogue::transcript::TranscriptSink>() {
            self.program.transcripts = Some(sink.clone());
        }
    }
    fn uncharged(&mut self) -> Duration {
        self.program.served.take_uncharged()
    }
    fn new_game(&mut self, _: &Arc<Rules>, _: &Setup) -> Result<(), Fault> {
        Err(only_dialogues())
    }
    fn act(&mut self, _: &Action) -> Result<Answer, Fault> {
        Err(only_dialogues())
    }
    fn observe(&mut self, _: StateKey) -> Result<Observed, Fault> {
        Err(only_dialogues())
    }
    fn finish(&mut self) -> Vec<Fault> {
        // The game started ahead that no scenario played is broadside's, not a leftover.
        self.program.spare.clear();
        Vec::new()
    }
}

fn only_dialogues() -> Fault {
    Fault {
        kind: FaultKind::Unsupported,
        message: "a whole program plays dialogue scenarios only".into(),
    }
}

/// `exec:"COMMAND"`: any interactive program, run by `sh -c` in broadside's working folder,
/// with the limits a JVM needs (data-size memory, room for threads), so `exec:java …` or
/// any runtime that reserves address space up front starts.
pub fn exec(command: &str, limits: Limits, uid: u32) -> Program {
    let mut p = Program::new(
        format!("exec:{command}"),
        "sh".into(),
        vec!["-c".into(), command.into()],
        None,
    )
    .run_as(uid);
    p.limits = jvm_limits(&limits);
    p
}

/// broadside's launcher for Java programs: it runs the main class and announces each read
/// of standard input (see [`crate::dialogue::session`]); compiled with the submission, as
/// `broadside_launch.Launch`.
pub(crate) const JAVA_LAUNCHER: &str = include_str!("../../drivers/BroadsideLaunch.java");
/// broadside's game server for Java programs: one JVM plays every game of a submission
/// (see [`GameServer`]).
pub(crate) const JAVA_SERVER: &str = include_str!("../../drivers/BroadsideServe.java");
/// broadside's dice for Java programs: an agent that makes `new Random()` take its seed
/// from the JDK's uniquifier alone, and the seeding of the JDK's shared randomness with a
/// game's seed before its `main` (`BROADSIDE_SEED`), so a program plays the same game every
/// time it is graded; compiled with the submission, as `broadside_launch.Seed`, and
/// packed as the agent `boot/seed.jar` ([`seed_agent`]).
pub(crate) const JAVA_SEED: &str = include_str!("../../drivers/BroadsideSeed.java");

/// Wall-clock time `javac` may take.
pub(crate) const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);

/// The Java compiler used; `BROADSIDE_JAVAC` overrides it.
pub fn javac() -> String {
    real_path(&std::env::var("BROADSIDE_JAVAC").unwrap_or_else(|_| "javac".to_string()))
}

/// The Java runtime used; `BROADSIDE_JAVA` overrides it.
pub fn java() -> String {
    real_path(&std::env::var("BROADSIDE_JAVA").unwrap_or_else(|_| "java".to_string()))
}

/// `LD_LIBRARY_PATH` for a JDK launcher at `launcher` (`…/bin/java`): its `lib` folder,
/// which the launcher's `$ORIGIN` run path names but a jail without `/proc` cannot resolve.
pub(crate) fn jdk_library_path(launcher: &str) -> Vec<(String, String)> {
    let home = Path::new(launcher).parent().and_then(Path::parent);
    home.map(|h| {
        vec![(
            "LD_LIBRARY_PATH".to_string(),
            format!("{0}/lib:{0}/lib/server", h.to_string_lossy()),
        )]
    })
    .unwrap_or_default()
}

/// `command` found on `PATH` and with its links resolved: a JDK's launchers find their
/// libraries relative to where they really are, which a jail without `/proc` cannot tell
/// them (`/usr/bin/javac` is a link into `/usr/lib/jvm`). Unchanged when not found.
fn real_path(command: &str) -> String {
    let found = if command.contains('/') {
        Some(PathBuf::from(command))
    } else {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(command))
                .find(|f| f.is_file())
        })
    };
    found
        .and_then(|f| std::fs::canonicalize(f).ok())
        .map_or_else(|| command.to_string(), |f| f.to_string_lossy().into_owned())
}

/// `java:PATH`: compiles every `.java` file under PATH (a folder, or one file) with `javac`
/// into a private build folder, contained like any child, and finds the class to run: the
/// one with `public static void main`; of several, `Main`, then a name with `Game`, then
/// the first by path (battleboats §"specify which main method we should run"), with a note.
/// Sources are read as UTF-8, or as Windows-1252 (a superset of Latin-1) when a file is not
/// valid UTF-8; a UTF-8 byte-order mark is dropped. The JVM gets a data-size memory limit
/// (it reserves address space it never uses) and room for its threads.
///
/// Errors: the path does not exist or the sources cannot be copied
/// ([`TargetError::Input`](super::TargetError::Input): `run` exits 2); `javac` cannot be
/// started (no JDK), or the private folder cannot be made or broadside's launcher written
/// into it ([`TargetError::Grader`](super::TargetError::Grader): `run` exits 3). Neither is
/// the student's fault. A compile error is [`Built::Failed`].
pub(crate) fn java_target(
    path: &Utf8Path,
    limits: Limits,
    uid: u32,
) -> Result<Built<Box<Program>>, super::TargetError> {
    use super::TargetError;
    let src =
        std::fs::canonicalize(path).map_err(|e| TargetError::Input(format!("java:{path}: {e}")))?;
    let ws = Workspace::new()?;
    let sources = ws.work.join("src");
    std::fs::create_dir_all(&sources).map_err(ours)?;
    let skipped = copy_java_sources(&src, &sources)?;
    let mut files = Vec::new();
    java_files(&sources, &mut files).map_err(theirs)?;
    files.sort();
    if files.is_empty() {
        return Ok(Built::Failed(Fault {
            kind: FaultKind::Setup,
            message: "no .java files in the submission".into(),
        }));
    }
    let (texts, encoding) = read_java_sources(&files)?;
    let rel = |f: &Path| {
        f.strip_prefix(&ws.work)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned()
    };
    let mains: Vec<(String, String)> = files
        .iter()
        .zip(&texts)
        .filter(|(_, t)| has_main(t))
        .map(|(f, t)| (class_name(f, t), rel(f)))
        .collect();
    let hinted = named_in_comments(&texts, &mains);
    let Some((main, note)) = choose_main(&mains, hinted.as_deref()) else {
        return Ok(Built::Failed(Fault {
            kind: FaultKind::Setup,
            message: "no class has `public static void main(String[] args)`; broadside runs \
                      the program from its main method"
                .into(),
        }));
    };
    let classes = ws.work.join("classes");
    std::fs::create_dir_all(&classes).map_err(ours)?;
    let jail = ws.seal(uid, &[])?;
    let args = javac_args(&ws, &files, encoding)?;
    let jvm = jvm_limits(&limits);
    let compiled = compile_java(&CompileJava {
        ws: &ws,
        args: &args,
        classes: &classes,
        limits: &jvm,
        uid,
        jail: jail.as_ref(),
        path,
    })?;
    if let Some(fault) = compiled {
        return Ok(Built::Failed(fault));
    }
    // broadside's classes apart from the submission's, which the game server loads afresh
    // for each game.
    let boot = ws.work.join("boot");
    std::fs::create_dir_all(&boot).map_err(ours)?;
    std::fs::rename(
        classes.join("broadside_launch"),
        boot.join("broadside_launch"),
    )
    .map_err(ours)?;
    seed_agent(&boot).map_err(ours)?;
    let (run_args, serve_args) = java_commands(&main);
    let serves = serves_games(&texts);
    let mut program = ws.program(format!("java:{path}"), java(), run_args, jail, uid);
    if serves {
        let fifos = ws.games()?;
        program.game_server = Some(GameServer {
            args: serve_args,
            fifos_inside: ws.inside(&fifos),
            fifos,
        });
    }
    program.env.extend(jdk_library_path(&java()));
    program.limits = jvm;
    program.announces_reads = true;
    program.starts_ahead = true;
    program.note = match (note, super::workspace::skipped_note(&skipped)) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Ok(Built::Ready(Box::new(program)))
}

/// Copies a Java submission's sources (a folder's `.java` files, or the one file given)
/// into `sources`. Returns the files that could not be copied.
///
/// Errors: the submission's files cannot be read (the input's, exit 2).
fn copy_java_sources(src: &Path, sources: &Path) -> Result<Vec<String>, super::TargetError> {
    if src.is_dir() {
        let java = |name: &std::ffi::OsStr, dir: bool| {
            let name = name.to_string_lossy();
            if dir {
                !name.starts_with('.') && name != "__MACOSX"
            } else {
                name.ends_with(".java")
            }
        };
        return copy_tree(src, sources, &java).map_err(theirs);
    }
    let name = src
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    super::workspace::copy_file(src, &sources.join(name)).map_err(theirs)?;
    Ok(Vec::new())
}

/// The sources' texts, each without a byte-order mark (removed from the file too, which
/// javac would refuse), and the encoding javac reads them in: UTF-8 when every file is,
/// else windows-1252 (a Windows editor's Latin-1).
///
/// Errors: a file cannot be read or rewritten (the input's, exit 2).
fn read_java_sources(files: &[PathBuf]) -> Result<(Vec<String>, &'static str), super::TargetError> {
    let mut utf8 = true;
    let mut texts = Vec::new();
    for f in files {
        let mut bytes = std::fs::read(f).map_err(theirs)?;
        if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
            bytes.drain(..3);
            std::fs::write(f, &bytes).map_err(theirs)?;
        }
        utf8 &= std::str::from_utf8(&bytes).is_ok();
        texts.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    Ok((texts, if utf8 { "UTF-8" } else { "windows-1252" }))
}

/// javac's arguments: its flags, then the student's sources and broadside's launcher,
/// game server and seed classes (written into the workspace), each relative to it.
///
/// Errors: broadside's classes cannot be written (the grader's, exit 3).
fn javac_args(
    ws: &Workspace,
    files: &[PathBuf],
    encoding: &str,
) -> Result<Vec<String>, super::TargetError> {
    let rel = |f: &Path| {
        f.strip_prefix(&ws.work)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned()
    };
    let mut args: Vec<String> = [
        "-J-Xmx512m",
        "-J-XX:+UseSerialGC",
        "-J-XX:TieredStopAtLevel=1",
        "-J-XX:-UsePerfData",
        "-encoding",
        encoding,
        "-nowarn",
        "-d",
        "classes",
    ]
    .map(String::from)
    .to_vec();
    args.extend(files.iter().map(|f| rel(f)));
    let launcher = ws.work.join("launcher/broadside_launch/Launch.java");
    // broadside's own classes: failing to write them is the grader's.
    std::fs::create_dir_all(launcher.parent().unwrap_or(&ws.work)).map_err(ours)?;
    std::fs::write(&launcher, JAVA_LAUNCHER).map_err(ours)?;
    args.push(rel(&launcher));
    let server = launcher.with_file_name("Serve.java");
    std::fs::write(&server, JAVA_SERVER).map_err(ours)?;
    args.push(rel(&server));
    let seed = launcher.with_file_name("Seed.java");
    std::fs::write(&seed, JAVA_SEED).map_err(ours)?;
    args.push(rel(&seed));
    Ok(args)
}

/// What [`compile_java`] compiles, and where.
struct CompileJava<'a> {
    ws: &'a Workspace,
    /// javac's arguments, the sources relative to the workspace.
    args: &'a [String],
    classes: &'a Path,
    limits: &'a Limits,
    uid: u32,
    jail: Option<&'a Jail>,
    /// The submission, as the student named it.
    path: &'a Utf8Path,
}

/// Compiles the sources into `classes`, contained; the classes of the same sources
/// compiled before by the same javac are fetched from the build cache instead. `Some`: the
/// program does not compile (or javac timed out or was killed), the student's fault.
///
/// Errors: javac cannot be started (no JDK), or the classes cannot be handed to the
/// child's user (the grader's, exit 3).
fn compile_java(c: &CompileJava) -> Result<Option<Fault>, super::TargetError> {
    use super::TargetError;
    let javac = javac();
    let jdk_env = jdk_library_path(&javac);
    // The same sources compiled before by this javac: their classes, kept (see
    // `build_cache`).
    let mut key = super::build_cache::Key::new("java");
    key.program(&javac);
    for a in c.args {
        key.part(a.as_bytes());
        key.part(&std::fs::read(c.ws.work.join(a)).unwrap_or_default());
    }
    let kept = super::build_cache::fetch(&key, c.classes);
    if kept && limits::running_as_root() {
        super::workspace::chown_tree(c.classes, c.uid).map_err(ours)?;
    }
    if !kept {
        let built = super::build::run_contained(&super::build::OneShot {
            program: &javac,
            args: c.args,
            cwd: &c.ws.work,
            limits: &Limits {
                cpu_secs: 120,
                file_size_mib: c.limits.file_size_mib.max(64),
                ..c.limits.clone()
            },
            uid: c.uid,
            jail: c.jail,
            env: &jdk_env,
            timeout: COMPILE_TIMEOUT,
        })
        .map_err(|e| {
            TargetError::Grader(format!(
                "could not run `{}` to compile java:{}: {e} (install a JDK: apt-get install openjdk-17-jdk-headless)",
                javac, c.path
            ))
        })?;
        if built.timed_out || built.code != Some(0) {
            let why = if built.timed_out {
                format!(
                    "javac did not finish within {} s",
                    COMPILE_TIMEOUT.as_secs()
                )
            } else if built.code.is_none() {
                "javac was killed by a signal".to_string()
            } else {
                "the program does not compile".to_string()
            };
            // Paths as the student knows them: `Main.java:4`, not `src/Main.java:4`.
            let shown = built
                .output
                .replace(&format!("{}/", c.ws.inside(&c.ws.work)), "")
                .lines()
                .map(|l| l.strip_prefix("src/").unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n");
            return Ok(Some(Fault {
                kind: FaultKind::Setup,
                message: format!("{why}:\n{}", shown.trim_end()),
            }));
        }
        super::build_cache::keep(&key, c.classes);
    }
    Ok(None)
}

/// The JVM's command lines for the program: one run (broadside's launcher calling the
/// student's `main`) and the game server's (which loads the student's classes afresh for
/// each game).
fn java_commands(main: &str) -> (Vec<String>, Vec<String>) {
    let jvm_args: Vec<String> = [
        "-Xmx256m",
        "-Xss8m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        // No performance-counter file in /tmp for each JVM.
        "-XX:-UsePerfData",
        "-Dfile.encoding=UTF-8",
        // The launcher opens descriptor 3 through `FileDescriptor`'s field.
        "--add-opens",
        "java.base/java.io=ALL-UNNAMED",
        // The game's seed for the JDK's randomness (`drivers/BroadsideSeed.java`): the
        // agent, and the fields `Seed.plant` sets.
        "-javaagent:boot/seed.jar",
        "--add-opens",
        "java.base/java.lang=ALL-UNNAMED",
        "--add-opens",
        "java.base/java.util=ALL-UNNAMED",
        "--add-opens",
        "java.base/java.util.concurrent=ALL-UNNAMED",
    ]
    .map(String::from)
    .to_vec();
    let mut run_args = jvm_args.clone();
    run_args.extend(["-cp", "classes:boot", "broadside_launch.Launch", main].map(String::from));
    let mut serve_args = jvm_args;
    serve_args.extend(
        [
            // A long-lived JVM must not start throwing its exceptions without their traces.
            "-XX:-OmitStackTraceInFastThrow",
            "-cp",
            "boot",
            "broadside_launch.Serve",
            "classes",
            main,
        ]
        .map(String::from),
    );
    (run_args, serve_args)
}

/// Packs `boot/broadside_launch/Seed.class` as the Java agent `boot/seed.jar` (its manifest
/// names it `Premain-Class` and lets it redefine `java.util.Random`).
///
/// Errors: the class is not there or the jar cannot be written (the grader's own failure).
fn seed_agent(boot: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let class = std::fs::read(boot.join("broadside_launch/Seed.class"))?;
    let mut jar = zip::ZipWriter::new(std::fs::File::create(boot.join("seed.jar"))?);
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    jar.start_file("META-INF/MANIFEST.MF", stored)?;
    jar.write_all(
        b"Manifest-Version: 1.0\r\nPremain-Class: broadside_launch.Seed\r\nCan-Redefine-Classes: true\r\n\r\n",
    )?;
    jar.start_file("broadside_launch/Seed.class", stored)?;
    jar.write_all(&class)?;
    jar.finish()?;
    Ok(())
}

/// Whether one JVM may play every game of a program with these sources: not where
/// `BROADSIDE_JAVA_SERVER=0`, nor where the code (comments and string literals aside)
/// reaches past what the game server swaps for each game (its streams, its classes,
/// `System.exit`): the process's own descriptors (`FileDescriptor`), the runtime
/// (`Runtime`: shutdown hooks, `exec`, `halt`), child processes, threads, pools, timers or
/// parallel streams of its own (`new Thread`, `new java.lang.Thread`), windows, the system
/// class loader (which sees broadside's classes only), the streams swapped by the program
/// itself, or reflection (`Class.forName`, `java.lang.reflect`, `MethodHandles`,
/// `loadClass`, `getDeclaredMethod`, `setAccessible`), which reaches any of these by a name
/// in a string. Such a program gets a JVM per game, as the `java` launcher would run it. A
/// scan cannot see every way (`java.beans.Expression` calls a method named in a string
/// too): a game that fails after the server's first is replayed in a JVM of its own (see
/// [`crate::dialogue::run`]).
fn serves_games(texts: &[String]) -> bool {
    static PAST: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let past = PAST.get_or_init(|| {
        regex::Regex::new(concat!(
            r"\b(FileDescriptor|Runtime|ProcessBuilder|ProcessHandle|Executors?|ExecutorService",
            r"|Timer|ForkJoinPool|CompletableFuture|parallelStream|getSystemClassLoader",
            r"|getSystemResources?|getSystemResourceAsStream|setDefaultUncaughtExceptionHandler)\b",
            r"|\b(new|extends)\s+(java\s*\.\s*lang\s*\.\s*)?Thread\b|\.parallel\s*\(",
            // Reflection, which reaches any of these by a name in a string: its cheap forms
            // (a replayed game is what catches the rest: see `crate::dialogue::run`).
            r"|\bforName\b|\bjava\s*\.\s*lang\s*\.\s*(reflect|invoke)\b|\bMethodHandles?\b",
            r"|\bloadClass\b|\bgetDeclared(Method|Field|Constructor)s?\b|\bsetAccessible\b",
            r"|\bjava\s*\.\s*awt\b|\bjavax\s*\.\s*swing\b|\bjavafx\b",
            r"|\bSystem\s*\.\s*set(In|Out|Err)\b",
        ))
        .expect("a valid pattern")
    });
    if std::env::var("BROADSIDE_JAVA_SERVER").is_ok_and(|v| v == "0") {
        return false;
    }
    !texts.iter().any(|t| past.is_match(&code_only(t)))
}

/// Java source with its comments and string and character literals blanked out (each
/// replaced by a space), so a word in them does not count as code.
fn code_only(text: &str) -> String {
    java_lex(text).0
}

/// Java (or C-like) source read by a small lexer: the code, with each comment and each
/// string or character literal replaced by a space (line breaks outside them kept), and the
/// comments, `//` lines and `/* */` blocks, with the line each starts on. A literal ends at
/// its unescaped quote or at the end of its line, so `"// not a comment"` is none.
pub(crate) fn java_lex(text: &str) -> (String, Vec<(usize, String)>) {
    let mut code = String::with_capacity(text.len());
    let mut comments: Vec<(usize, String)> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => {
                code.push('\n');
                line += 1;
                i += 1;
            }
            '"' | '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                code.push(' ');
            }
            '/' if next == Some('/') => {
                let start = i + 2;
                let mut end = start;
                while end < chars.len() && chars[end] != '\n' {
                    end += 1;
                }
                comments.push((line, chars[start..end].iter().collect()));
                i = end;
            }
            '/' if next == Some('*') => {
                let (start, first) = (i + 2, line);
                let mut end = start;
                while end < chars.len() && !(chars[end] == '*' && chars.get(end + 1) == Some(&'/'))
                {
                    if chars[end] == '\n' {
                        line += 1;
                    }
                    end += 1;
                }
                comments.push((first, chars[start..end.min(chars.len())].iter().collect()));
                i = end + 2;
                code.push(' ');
            }
            _ => {
                code.push(c);
                i += 1;
            }
        }
    }
    (code, comments)
}

/// Limits for a JVM: data-size memory (a JVM reserves address space it never touches), at
/// least 2 GiB of it, and room for its threads (counted as processes).
pub(crate) fn jvm_limits(limits: &Limits) -> Limits {
    Limits {
        memory_mib: limits.memory_mib.max(2048),
        memory_kind: MemoryKind::DataSize,
        processes: limits.processes.max(256),
        ..limits.clone()
    }
}

/// Every `.java` file under `dir`.
fn java_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            java_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether a source declares `static void main(` (in either modifier order).
fn has_main(text: &str) -> bool {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    [
        "static void main(",
        "static void main (",
        "static public void main(",
    ]
    .iter()
    .any(|p| flat.contains(p))
}

/// The class a file defines: its stem, qualified by its `package`.
fn class_name(file: &Path, text: &str) -> String {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let package = text.lines().find_map(|l| {
        let l = l.trim();
        let rest = l.strip_prefix("package ")?;
        Some(rest.trim_end_matches(';').trim().to_string())
    });
    match package {
        Some(p) if !p.is_empty() => format!("{p}.{stem}"),
        _ => stem,
    }
}

/// The one class with a main method that a comment names beside the word "main" or "run"
/// (battleboats: "You are required to specify which main method we should run in a comment
/// in the file"), e.g. `// Run BattleBoatsGame: it has the main method`.
fn named_in_comments(texts: &[String], mains: &[(String, String)]) -> Option<String> {
    let simple = |c: &str| c.rsplit('.').next().unwrap_or(c).to_string();
    let mut named: Vec<&String> = Vec::new();
    for line in texts.iter().flat_map(|t| t.lines()) {
        let l = line.trim_start();
        if !(l.starts_with("//") || l.starts_with("/*") || l.starts_with('*')) {
            continue;
        }
        let lower = l.to_lowercase();
        if !(lower.contains("main") || lower.contains("run")) {
            continue;
        }
        let words: Vec<&str> = l
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        for (class, _) in mains {
            if words.contains(&simple(class).as_str()) && !named.contains(&class) {
                named.push(class);
            }
        }
    }
    match named.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// The class to run among `mains` (class, file): the one a comment names (`hinted`), else
/// `Main`, else a name with `Game`, else the first by path; and a note when there were
/// several.
fn choose_main(
    mains: &[(String, String)],
    hinted: Option<&str>,
) -> Option<(String, Option<String>)> {
    let simple = |c: &str| c.rsplit('.').next().unwrap_or(c).to_string();
    let chosen = mains
        .iter()
        .find(|(c, _)| Some(c.as_str()) == hinted)
        .or_else(|| mains.iter().find(|(c, _)| simple(c) == "Main"))
        .or_else(|| mains.iter().find(|(c, _)| simple(c).contains("Game")))
        .or_else(|| mains.first())?;
    let note = (mains.len() > 1).then(|| {
        let all: Vec<&str> = mains.iter().map(|(c, _)| c.as_str()).collect();
        format!(
            "several classes have a main method ({}); broadside ran `{}` (the one a comment names beside \"main\" or \"run\", else Main, then a name with Game, then the first by path)",
            all.join(", "),
            chosen.0
        )
    });
    Some((chosen.0.clone(), note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_jvm_serves_every_game_unless_the_code_reaches_past_a_game() {
        let serves = |t: &str| serves_games(&[t.to_string()]);
        assert!(serves("class A { void f() { Thread.sleep(5); } }"));
        // Words in comments and strings, and longer names, are not the code's.
        assert!(serves(
            "// see Runtime docs\n/* new Thread() */ class A { String s = \"Runtime\"; \
             void f() { throw new RuntimeException(\"x\"); } }"
        ));
        for past in [
            "Runtime.getRuntime().addShutdownHook(h);",
            "new Thread(r).start();",
            "class B extends Thread {}",
            "ExecutorService e = Executors.newFixedThreadPool(2);",
            "list.parallelStream().count();",
            "s.parallel ().sum();",
            "new FileInputStream(FileDescriptor.in);",
            "ClassLoader.getSystemClassLoader().loadClass(\"Cell\");",
            "import javax.swing.JOptionPane;",
            "System.setOut(p);",
            "new java.lang.Thread(r).start();",
            "class B extends java . lang . Thread {}",
            "Class.forName(\"java.lang.\" + \"System\");",
            "import java.lang.reflect.Method;",
            "java.lang.invoke.MethodHandles.lookup();",
            "getClass().getClassLoader().loadClass(n);",
            "c.getDeclaredMethod(\"setProperty\", String.class);",
        ] {
            assert!(!serves(past), "{past}");
        }
        assert_eq!(
            code_only("a // b\nc /* d */ e 'f' \"g\\\"h\" i"),
            "a \nc   e     i"
        );
    }

    #[test]
    fn main_is_found_in_either_modifier_order() {
        assert!(has_main("public static void main(String[] a) {}"));
        assert!(has_main("static public void main(String[] a) {}"));
        assert!(has_main("public  static\nvoid main (String... a) {}"));
        assert!(!has_main("public void mainly() {}"));
    }

    #[test]
    fn a_package_qualifies_the_class() {
        let f = Path::new("src/game/Main.java");
        assert_eq!(
            class_name(f, "package game.boats;\nclass Main {}"),
            "game.boats.Main"
        );
        assert_eq!(class_name(f, "class Main {}"), "Main");
    }

    #[test]
    fn main_then_game_then_first() {
        let m = |v: &[&str]| -> Vec<(String, String)> {
            v.iter().map(|c| (c.to_string(), String::new())).collect()
        };
        assert_eq!(choose_main(&m(&["A", "Main"]), None).unwrap().0, "Main");
        assert_eq!(
            choose_main(&m(&["A", "BattleBoatsGame"]), None).unwrap().0,
            "BattleBoatsGame"
        );
        let (c, note) = choose_main(&m(&["A", "B"]), None).unwrap();
        assert_eq!(c, "A");
        assert!(note.unwrap().contains("A, B"));
        assert_eq!(choose_main(&m(&["Solo"]), None).unwrap().1, None);
        assert!(choose_main(&[], None).is_none());
        assert_eq!(
            choose_main(&m(&["Main", "Game"]), Some("Game")).unwrap().0,
            "Game"
        );
    }

    #[test]
    fn a_comment_names_the_main_to_run() {
        let mains: Vec<(String, String)> = ["Main", "BattleBoatsGame"]
            .iter()
            .map(|c| (c.to_string(), String::new()))
            .collect();
        let texts = vec![
            "// Written by ab1234\n// Run BattleBoatsGame: it has the main method\nclass X {}"
                .to_string(),
            "public class Main { /* scratch */ }".to_string(),
        ];
        assert_eq!(
            named_in_comments(&texts, &mains).as_deref(),
            Some("BattleBoatsGame")
        );
        let none = vec!["// main is somewhere".to_string()];
        assert_eq!(named_in_comments(&none, &mains), None);
    }
}
