//! A target in a child process that speaks the JSON-lines protocol (`cmd:` and `python:`).
//!
//! One persistent child per submission, reset with `new_game` between scenarios; a fresh
//! child only after a crash, a timeout or a garbled answer. Standard output is read on its own
//! thread (one line per answer) and standard error on another (its tail goes into crash
//! reports). The child runs in its own process group, killed as a group.

use super::limits::{self, Limits};
use super::{Call, Fault, FaultKind, Observed, Replied, Reply, Target};
use crate::engine::Answer;
use crate::protocol::{self, AnswerError, Field, Request, Response};
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use process_wrap::std::{ChildWrapper, CommandWrap, ProcessGroup};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{ChildStdin, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The environment variable that marks every process a target starts.
const MARK: &str = "BROADSIDE_CHILD";
/// Distinguishes the targets of one broadside process.
static NEXT_MARK: AtomicU64 = AtomicU64::new(1);
/// The longest answer line read, in bytes; a longer one is a `limit` fault.
const LINE_LIMIT: usize = 8 * 1024 * 1024;
/// How long a child has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_millis(200);

/// What the stdout reader thread passes on.
enum Line {
    Text(String),
    TooLong,
    Eof,
}

/// How much of the child's standard error is kept for a crash report, in bytes.
const STDERR_TAIL: usize = 8 * 1024;

/// A child-process target.
pub struct Process {
    name: String,
    program: String,
    args: Vec<String>,
    cwd: Option<PathBuf>,
    /// Resource limits and timeouts for the child.
    pub limits: Limits,
    /// The unprivileged user the child runs as (when broadside runs as root).
    drop_to: Option<u32>,
    /// An environment mark every process of this target inherits, to find leftovers.
    marker: String,
    /// Extra environment variables for the child.
    env: Vec<(String, String)>,
    /// The private root the child is locked into, when broadside runs as root.
    jail: Option<Arc<limits::Jail>>,
    child: Option<Running>,
    /// A fault at start-up (no answer to `hello`): later scenarios get it at once.
    broken: Option<Fault>,
    rules: Option<Arc<Rules>>,
    next_id: u64,
    /// Which file of the submission the driver graded, and why (the Python driver says).
    module: Option<String>,
    /// Whether the driver said in `hello` that it takes the reference's state (`given`).
    takes_given: bool,
    /// What was left out when the submission was copied (hard links), for the report.
    pub copy_note: Option<String>,
    /// Files the child needs (the bundled driver), removed when the target is dropped.
    _keep: Option<Arc<tempfile::TempDir>>,
    /// The submission as a whole program (`python:` runs its `main()`), for dialogues.
    pub whole: Option<super::Program>,
    /// The memory group of the child's whole tree, made at its first start (see
    /// [`super::cgroup`]), and how many OOM kills in it were reported already.
    group: Option<super::cgroup::MemoryGroup>,
    oom_seen: u64,
}

struct Running {
    child: Box<dyn ChildWrapper>,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread reading standard error; it ends when the child's stderr closes.
    stderr_reader: std::thread::JoinHandle<()>,
}

impl Process {
    /// A target that runs `program args…` in `cwd`; `name` is how reports name it.
    pub fn new(name: String, program: String, args: Vec<String>, cwd: Option<PathBuf>) -> Process {
        Process {
            name,
            program,
            args,
            cwd,
            limits: Limits::default(),
            drop_to: limits::running_as_root().then_some(limits::NOBODY),
            marker: new_marker(),
            env: Vec::new(),
            jail: None,
            child: None,
            broken: None,
            rules: None,
            next_id: 1,
            module: None,
            takes_given: false,
            copy_note: None,
            _keep: None,
            whole: None,
            group: None,
            oom_seen: 0,
        }
    }

    /// `cmd:"COMMAND"`: any program that speaks the protocol, run by `sh -c`.
    pub fn command(command: &str) -> Process {
        Process::new(
            format!("cmd:{command}"),
            "sh".into(),
            vec!["-c".into(), command.into()],
            None,
        )
    }

    /// Sets an environment variable for the child (before it starts).
    pub fn env(mut self, key: &str, value: &str) -> Process {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Runs the child as `uid` (only when broadside runs as root; otherwise it keeps the
    /// caller's user).
    pub(crate) fn run_as(mut self, uid: u32) -> Process {
        if self.drop_to.is_some() {
            self.drop_to = Some(uid);
        }
        self
    }

    /// Locks the child into `jail` (used only when it drops to the unprivileged user).
    pub fn jail(mut self, jail: limits::Jail) -> Process {
        self.jail = Some(Arc::new(jail));
        self
    }

    /// Keeps `dir` alive as long as the target (it holds files the child runs).
    pub fn keep(mut self, dir: Arc<tempfile::TempDir>) -> Process {
        self._keep = Some(dir);
        self
    }

    fn spawn(&mut self, rules: &Rules) -> Result<(), Fault> {
        let (program, args, cwd) = (self.program.clone(), self.args.clone(), self.cwd.clone());
        let (limits, drop_to, marker) = (self.limits.clone(), self.drop_to, self.marker.clone());
        let env = self.env.clone();
        let namespaces = drop_to.is_some() && limits::namespaces_available();
        let jail = self.jail.clone().filter(|_| namespaces);
        // Orphans of the child (a process that left its group) are reparented to us, so the
        // leak check can find and reap them.
        let _ = nix::sys::prctl::set_child_subreaper(true);
        if self.group.is_none() {
            self.group = super::cgroup::MemoryGroup::new(limits.memory_mib);
        }
        let mut command = contained(&Contained {
            program: &program,
            args: &args,
            cwd: cwd.as_deref(),
            env: &env,
            marker: &marker,
            limits: &limits,
            drop_to,
            jail: jail.as_deref(),
            group: self.group.as_ref(),
            fd3: None,
        });
        let mut child = command.spawn().map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::PermissionDenied && drop_to.is_some() {
                " (as root, broadside runs children as `nobody`: the program and every folder \
                 above it must be open to other users; set BROADSIDE_PYTHON to one that is)"
            } else {
                ""
            };
            Fault {
                kind: spawn_fault_kind(&e),
                message: format!("could not start `{program}`: {e}{hint}"),
            }
        })?;
        let stdin = child.stdin().take().expect("stdin was piped");
        let stdout = child.stdout().take().expect("stdout was piped");
        let stderr = child.stderr().take().expect("stderr was piped");
        let lines = read_lines(stdout);
        let (tail, stderr_reader) = keep_tail(stderr);
        self.child = Some(Running {
            child,
            stdin,
            lines,
            stderr: tail,
            stderr_reader,
        });
        let id = self.id();
        let answer = self.exchange(&Request::hello(id, rules), self.limits.request_timeout * 2)?;
        if let Some(m) = &answer.module {
            self.module = Some(m.clone());
        }
        self.takes_given = answer.given == Some(true);
        let ours = protocol::VERSION;
        match (answer.check(id), answer.protocol) {
            (Ok(Ok(())), Some(v)) if v == u64::from(ours) => Ok(()),
            (Ok(Ok(())), Some(v)) => Err(self.fail(
                FaultKind::Protocol,
                format!("the driver speaks protocol {v}; broadside speaks {ours}"),
            )),
            (Ok(Ok(())), None) => Err(self.fail(
                FaultKind::Protocol,
                format!(
                    "the driver's `hello` answer names no `protocol` version; broadside \
                     speaks {ours}"
                ),
            )),
            (Ok(Err(e)), _) => Err(Fault::from(e)),
            (Err(m), _) => Err(self.fail(FaultKind::Protocol, m.0)),
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends one line and waits up to `wait` for one line back.
    fn exchange(&mut self, request: &Request, wait: Duration) -> Result<Response, Fault> {
        let Some(running) = self.child.as_mut() else {
            return Err(Fault {
                kind: FaultKind::Crash,
                message: "the target is not running".into(),
            });
        };
        let op = request.op();
        let mut line = request.to_line();
        line.push('\n');
        if running
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| running.stdin.flush())
            .is_err()
        {
            return Err(self.died());
        }
        match running.lines.recv_timeout(wait) {
            Ok(Line::TooLong) => Err(self.fail(
                FaultKind::Limit,
                format!(
                    "the target answered a line over {} MiB",
                    LINE_LIMIT / (1024 * 1024)
                ),
            )),
            // A process of the tree ended for the group's budget while the child answered.
            Ok(Line::Text(_)) if self.over_memory().is_some() => {
                let f = self.over_memory_fault();
                Err(self.fail(f.kind, f.message))
            }
            Ok(Line::Text(text)) => {
                Response::from_line(&text).map_err(|m| self.fail(FaultKind::Protocol, m.0))
            }
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => Err(self.died()),
            Err(RecvTimeoutError::Timeout) => {
                let what = if op == "batch" {
                    "the scenario's calls".to_string()
                } else {
                    format!("`{op}`")
                };
                let message = format!(
                    "the submission did not finish {what} within {:.1} s (an endless loop, or \
                     waiting for input?); it was stopped",
                    wait.as_secs_f64()
                );
                Err(self.fail(FaultKind::Timeout, message))
            }
        }
    }

    /// The memory group's OOM kills not reported yet, if any.
    fn over_memory(&self) -> Option<u64> {
        let kills = self.group.as_ref()?.oom_kills();
        (kills > self.oom_seen).then_some(kills)
    }

    /// The `limit` fault for [`Process::over_memory`]'s kills, marked as reported.
    fn over_memory_fault(&mut self) -> Fault {
        if let Some(k) = self.over_memory() {
            self.oom_seen = k;
        }
        Fault {
            kind: FaultKind::Limit,
            message: format!(
                "the submission's processes together used more than {} MiB of memory (the \
                 limit holds for all of them at once)",
                self.limits.memory_mib
            ),
        }
    }

    /// Stops the child and returns a fault of `kind`.
    fn fail(&mut self, kind: FaultKind, message: String) -> Fault {
        if let Some(r) = self.child.take() {
            stop(r);
        }
        Fault { kind, message }
    }

    /// The child closed its output or its input: report how it ended, with its stderr tail.
    fn died(&mut self) -> Fault {
        let Some(mut r) = self.child.take() else {
            return Fault {
                kind: FaultKind::Crash,
                message: "the target is not running".into(),
            };
        };
        let status = r.child.wait().ok();
        let _ = r.child.kill();
        // Let the stderr reader drain what the child wrote last (bounded: a grandchild may
        // still hold the pipe open).
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        while !r.stderr_reader.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let tail = String::from_utf8_lossy(&r.stderr.lock().unwrap_or_else(|p| p.into_inner()))
            .trim()
            .to_string();
        // The kernel ended a process of the tree for the group's memory budget.
        if self.over_memory().is_some() {
            return self.over_memory_fault();
        }
        let how = match status {
            Some(s) => {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (_, Some(24)) => {
                        return Fault {
                            kind: FaultKind::Limit,
                            message: format!(
                                "the submission used more than {} CPU seconds",
                                self.limits.cpu_secs
                            ),
                        };
                    }
                    (_, Some(25)) => {
                        return Fault {
                            kind: FaultKind::Limit,
                            message: format!(
                                "the submission wrote a file over {} MiB",
                                self.limits.file_size_mib
                            ),
                        };
                    }
                    (_, Some(sig)) => format!("was killed by signal {sig}"),
                    (Some(code), _) => format!("exited with status {code}"),
                    _ => "ended".to_string(),
                }
            }
            None => "ended".to_string(),
        };
        // A runtime that reports its own out-of-memory (GHC's RTS aborts with "Unable to
        // commit" or "Heap exhausted") hit the memory limit, like Python's MemoryError.
        if ["Unable to commit", "Heap exhausted", "out of memory"]
            .iter()
            .any(|m| tail.contains(m))
        {
            return Fault {
                kind: FaultKind::Limit,
                message: format!(
                    "the submission ran out of memory (the limit is {} MiB); its last error output:\n{tail}",
                    self.limits.memory_mib
                ),
            };
        }
        let mut message = format!("the target {how}");
        if !tail.is_empty() {
            message.push_str(&format!("; its last error output:\n{tail}"));
        }
        Fault {
            kind: FaultKind::Crash,
            message,
        }
    }

    fn rules(&self) -> Result<Arc<Rules>, Fault> {
        self.rules.clone().ok_or(Fault {
            kind: FaultKind::Protocol,
            message: "no game started".into(),
        })
    }

    /// Reads one answer object into a reply for `call`.
    fn reply(
        &mut self,
        answer: &Response,
        id: u64,
        call: &Call,
        rules: &Rules,
    ) -> Result<Replied, Fault> {
        match answer.check(id) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let mut f = Fault::from(e);
                let out = answer.printed();
                if !out.is_empty() {
                    f.message
                        .push_str(&format!("\nprinted before it failed:\n{out}"));
                }
                return Err(f);
            }
            Err(m) => return Err(self.fail(FaultKind::Protocol, m.0)),
        };
        let reply = match call {
            Call::Act {
                action: Action::RandomLayouts { count },
                ..
            } => random_layouts(answer, *count, &self.rules()?).map(Reply::Answer),
            Call::Act { .. } => answer.answer(rules).map(Reply::Answer),
            Call::Observe { keys, .. } => answer.state(keys, rules).map(Reply::State),
        };
        match reply {
            Ok(reply) => Ok(Replied {
                reply,
                output: answer.printed().to_string(),
                by: answer.by.clone(),
                unanswered: answer.unanswered.clone().unwrap_or_default(),
            }),
            Err(m) => Err(self.fail(FaultKind::Protocol, m.0)),
        }
    }

    fn request_of(&mut self, call: &Call, rules: &Rules) -> (u64, Request) {
        let id = self.id();
        (id, Request::call(id, call, rules))
    }
}

/// How to start a contained child: what [`contained`] needs.
pub struct Contained<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    /// The working folder when there is no jail.
    pub cwd: Option<&'a std::path::Path>,
    /// Variables added to `child_env`.
    pub env: &'a [(String, String)],
    /// The mark every process of the child carries (see `new_marker`).
    pub marker: &'a str,
    pub limits: &'a Limits,
    /// The unprivileged user (as root), `None` to keep the caller's.
    pub drop_to: Option<u32>,
    /// Used only with namespaces (the caller filters it).
    pub jail: Option<&'a limits::Jail>,
    /// The memory group the child enters before exec (its whole tree's budget).
    pub group: Option<&'a super::cgroup::MemoryGroup>,
    /// A descriptor the child gets as its descriptor 3 (a launcher's read announcements).
    pub fd3: Option<std::os::fd::RawFd>,
}

/// The command for a contained child with piped standard streams, in its own process group:
/// the minimal environment, the mark, the limits, the user and the jail, applied between
/// fork and exec.
pub fn contained(c: &Contained<'_>) -> CommandWrap {
    let namespaces = c.drop_to.is_some() && limits::namespaces_available();
    let (limits, drop_to, jail) = (c.limits.clone(), c.drop_to, c.jail.cloned());
    let group = c.group.map(|g| g.procs().clone());
    let fd3 = c.fd3;
    let mut command = CommandWrap::with_new(c.program, |cmd| {
        cmd.args(c.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_clear()
            .envs(child_env())
            .envs(c.env.iter().map(|(k, v)| (k, v)))
            .env(MARK, c.marker);
        if let Some(dir) = c.cwd {
            cmd.current_dir(dir);
        }
        // SAFETY: the closure only makes async-signal-safe system calls (open, write,
        // setrlimit, unshare, setgroups, setgid, setuid) and does not allocate.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(fd) = fd3 {
                    give_fd3(fd)?;
                }
                if let Some(procs) = &group {
                    super::cgroup::enter(procs)?;
                }
                limits::apply_in_child(&limits, drop_to, namespaces, jail.as_ref())
            });
        }
    });
    command.wrap(ProcessGroup::leader());
    command
}

/// In the child, between fork and exec: `fd` becomes descriptor 3, kept open across exec.
fn give_fd3(fd: std::os::fd::RawFd) -> std::io::Result<()> {
    // SAFETY: dup2 and fcntl are async-signal-safe and touch only descriptors.
    let r = unsafe {
        if fd == 3 {
            libc::fcntl(3, libc::F_SETFD, 0)
        } else {
            libc::dup2(fd, 3)
        }
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(r) = self.child.take() {
            stop(r);
        }
        let _ = leftovers(&self.marker, true);
    }
}

/// Stops a child and its group: SIGTERM, a short grace period, then SIGKILL; then reaps it.
fn stop(mut r: Running) {
    let _ = r.child.signal(nix::sys::signal::Signal::SIGTERM as i32);
    let deadline = std::time::Instant::now() + GRACE;
    while std::time::Instant::now() < deadline {
        if matches!(r.child.try_wait(), Ok(Some(_))) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = r.child.kill();
    let _ = r.child.wait();
}

/// A fresh mark for a child's environment, unique in this broadside process.
pub(crate) fn new_marker() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        NEXT_MARK.fetch_add(1, Ordering::Relaxed)
    )
}

/// The environment every child gets, and nothing else of the grader's (no tokens, no paths of
/// the checkout): `PATH` (the grader's, or the system's), `LANG=C.UTF-8`, `HOME=/tmp`.
pub(crate) fn child_env() -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".to_string());
    vec![
        ("PATH".to_string(), path),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("HOME".to_string(), "/tmp".to_string()),
    ]
}

/// Kills every process a target of this broadside process started that still carries its
/// mark (see `new_marker`), and reaps those that were its children. For stopping a run
/// short; a process that shed its environment is found by its user instead ([`kill_user`]).
pub fn kill_every_marked() -> usize {
    let prefix = format!("{MARK}={}-", std::process::id());
    carrying(|kv| kv.starts_with(prefix.as_bytes()), true).len()
}

/// The environment variable name of the mark (see [`new_marker`]).
pub(crate) const MARK_VAR: &str = MARK;

/// Kills every process that carries `marker` in its environment and returns their command
/// lines (what a child left behind).
pub(crate) fn kill_marked(marker: &str) -> Vec<String> {
    leftovers(marker, true)
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}

/// [`kill_user`] after a submission: what still ran as its user, as the submission's `leak`
/// fault (`None` when nothing did).
pub fn sweep_user(uid: u32) -> Option<Fault> {
    let left = kill_user(uid);
    (!left.is_empty()).then(|| Fault {
        kind: FaultKind::Leak,
        message: format!(
            "processes of the submission were still running after it was graded and were killed:\n{}",
            left.join("\n")
        ),
    })
}

/// Kills every process whose real user is `uid` and returns their command lines. Only for the
/// users `grade` gives its job slots: whatever runs as one between two submissions is a
/// leftover of the last, whatever its environment.
pub fn kill_user(uid: u32) -> Vec<String> {
    let mut found = Vec::new();
    for p in super::procs::all() {
        if super::procs::real_uid(&p) != Some(uid) {
            continue;
        }
        let cmd = super::procs::line_of(&p);
        let pid = nix::unistd::Pid::from_raw(p.pid);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        let _ = nix::sys::wait::waitpid(pid, Some(nix::sys::wait::WaitPidFlag::WNOHANG));
        // A zombie has no command line left: killed all the same, nothing to name.
        if !cmd.is_empty() {
            found.push(cmd);
        }
    }
    found.sort();
    found
}

/// Processes still running that carry `marker` in their environment (they came from this
/// target), as `(pid, command line)`. With `kill`, each is killed and reaped.
fn leftovers(marker: &str, kill: bool) -> Vec<(i32, String)> {
    let needle = format!("{MARK}={marker}");
    carrying(|kv| kv == needle.as_bytes(), kill)
}

/// Processes whose environment has an entry `matches` accepts, as `(pid, command line)`.
/// With `kill`, each is killed and reaped.
fn carrying(matches: impl Fn(&[u8]) -> bool, kill: bool) -> Vec<(i32, String)> {
    let mut found = Vec::new();
    for p in super::procs::all() {
        if !super::procs::environment_has(&p, &matches) {
            continue;
        }
        let cmd = super::procs::line_of(&p);
        if kill {
            let pid = nix::unistd::Pid::from_raw(p.pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            let _ = nix::sys::wait::waitpid(pid, None);
        }
        found.push((p.pid, cmd));
    }
    found
}

impl Target for Process {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn plays(&self) -> super::Plays {
        match &self.whole {
            Some(program) => super::Plays {
                language: program.language,
                ..super::Plays::BOTH
            },
            None => super::Plays::STEPS,
        }
    }

    fn play_dialogue(
        &mut self,
        scenario: &crate::scenario::Scenario,
    ) -> crate::report::ScenarioResult {
        let unsupported = Fault {
            kind: FaultKind::Unsupported,
            message: "this target is not a whole program".into(),
        };
        crate::dialogue::run(scenario, self.whole.as_ref().ok_or(&unsupported))
    }

    fn takes_given(&self) -> bool {
        self.takes_given
    }

    fn keep_transcripts(&mut self, to: &dyn std::any::Any) {
        if let (Some(p), Some(sink)) = (
            self.whole.as_mut(),
            to.downcast_ref::<crate::dialogue::transcript::TranscriptSink>(),
        ) {
            p.transcripts = Some(sink.clone());
        }
    }

    fn budget(&self) -> Option<Duration> {
        Some(self.limits.submission_timeout)
    }

    fn uncharged(&mut self) -> Duration {
        self.whole
            .as_ref()
            .map_or(Duration::ZERO, |w| w.served.take_uncharged())
    }

    fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.module.iter().map(|m| format!("graded {m}")).collect();
        notes.extend(self.copy_note.clone());
        notes.extend(self.whole.as_ref().and_then(|w| w.served.note()));
        if self.drop_to.is_some() && !limits::namespaces_available() {
            notes.push(
                "this machine gives broadside no namespaces (e.g. an unprivileged container), so \
                 the submission ran as an unprivileged user with resource limits and timeouts, \
                 but with the network and other users' readable files within reach"
                    .to_string(),
            );
        } else if self.drop_to.is_none() {
            notes.push(
                "broadside is not running as root, so the submission ran as the same user, with \
                 the network and that user's files within reach; resource limits and timeouts \
                 applied"
                    .to_string(),
            );
        }
        notes
    }

    fn finish(&mut self) -> Vec<Fault> {
        if let Some(r) = self.child.take() {
            stop(r);
        }
        // The game started ahead that no scenario played is broadside's, not a leftover.
        if let Some(w) = &self.whole {
            w.spare.clear();
        }
        // Command lines only, sorted: process ids and the order /proc lists them in
        // would differ from run to run. The memory group also holds what shed the mark.
        let marked = leftovers(&self.marker, true);
        let pids: Vec<i32> = marked.iter().map(|(pid, _)| *pid).collect();
        let mut list: Vec<String> = marked.into_iter().map(|(_, cmd)| cmd).collect();
        if let Some(g) = &self.group {
            list.extend(g.leftovers(&pids));
        }
        if list.is_empty() {
            return Vec::new();
        }
        list.sort();
        let n = list.len();
        vec![Fault {
            kind: FaultKind::Leak,
            message: format!(
                "{} the submission started outlived it and {} killed:\n{}",
                if n == 1 {
                    "1 process".to_string()
                } else {
                    format!("{n} processes")
                },
                if n == 1 { "was" } else { "were" },
                list.join("\n")
            ),
        }]
    }

    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault> {
        if let Some(f) = &self.broken {
            return Err(f.clone());
        }
        self.rules = Some(rules.clone());
        // A submission that cannot even start fails every scenario the same way, without
        // paying its timeout again for each.
        if self.child.is_none()
            && let Err(f) = self.spawn(rules)
        {
            let f = Fault {
                message: format!("the submission did not start: {}", f.message),
                ..f
            };
            self.broken = Some(f.clone());
            return Err(f);
        }
        let id = self.id();
        let answer = self.exchange(
            &Request::new_game(id, rules, setup),
            self.limits.request_timeout,
        )?;
        match answer.check(id) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Fault::from(e)),
            Err(m) => Err(self.fail(FaultKind::Protocol, m.0)),
        }
    }

    fn act(&mut self, action: &Action) -> Result<Answer, Fault> {
        let rules = self.rules()?;
        let call = Call::act(action);
        let (id, request) = self.request_of(&call, &rules);
        let answer = self.exchange(&request, self.limits.request_timeout)?;
        match self.reply(&answer, id, &call, &rules)?.reply {
            Reply::Answer(a) => Ok(a),
            Reply::State(_) => unreachable!("an action is answered with an answer"),
        }
    }

    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault> {
        let rules = self.rules()?;
        let call = Call::observe(vec![key]);
        let (id, request) = self.request_of(&call, &rules);
        let answer = self.exchange(&request, self.limits.request_timeout)?;
        match self.reply(&answer, id, &call, &rules)?.reply {
            Reply::State(mut s) => Ok(s.remove(&key).expect("Response::state reads every key")),
            Reply::Answer(_) => unreachable!("a question is answered with a state"),
        }
    }

    fn play(&mut self, calls: &[Call]) -> Vec<Result<Replied, Fault>> {
        let rules = match self.rules() {
            Ok(r) => r,
            Err(f) => return vec![Err(f)],
        };
        let (ids, requests): (Vec<u64>, Vec<Request>) =
            calls.iter().map(|c| self.request_of(c, &rules)).unzip();
        let id = self.id();
        let wait = (self.limits.request_timeout * 2
            + Duration::from_millis(50) * u32::try_from(calls.len()).unwrap_or(u32::MAX))
        .min(self.limits.scenario_timeout);
        let answer = match self.exchange(&Request::batch(id, requests), wait) {
            Ok(a) => a,
            Err(f) => return vec![Err(f)],
        };
        match answer.check(id) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return vec![Err(Fault::from(e))],
            Err(m) => return vec![Err(self.fail(FaultKind::Protocol, m.0))],
        }
        let Some(Field::Valid(responses)) = answer.responses else {
            return vec![Err(self.fail(
                FaultKind::Protocol,
                "a batch answer has no `responses` list".into(),
            ))];
        };
        let mut out = Vec::new();
        for ((call, id), answer) in calls.iter().zip(ids).zip(&responses) {
            let r = match answer {
                Field::Valid(answer) => self.reply(answer, id, call, &rules),
                Field::Garbled(_) => Err(self.fail(
                    FaultKind::Protocol,
                    "an answer must be a JSON object".into(),
                )),
            };
            // A value of the wrong type is one wrong answer; the driver goes on after it.
            let stop = r.as_ref().is_err_and(|f| f.kind != FaultKind::Type);
            out.push(r);
            if stop {
                return out;
            }
        }
        if out.len() < calls.len() {
            out.push(Err(self.fail(
                FaultKind::Protocol,
                format!(
                    "a batch of {} requests got {} answers",
                    calls.len(),
                    responses.len()
                ),
            )));
        }
        out
    }
}

/// Grades the fleets a student's random-layout function drew: each must be the prescribed
/// fleet in a legal arrangement, and they must not all be the same. A wrong fleet is the
/// student's (`rejected` with why); a malformed answer is a protocol error.
fn random_layouts(
    answer: &Response,
    count: u32,
    rules: &Arc<Rules>,
) -> Result<Answer, AnswerError> {
    let Some(Field::Valid(list)) = &answer.layouts else {
        return Err("answer has no `layouts` list".into());
    };
    if list.len() != count as usize {
        return Err(format!("asked for {count} layouts, got {}", list.len()).into());
    }
    let mut seen = std::collections::BTreeSet::new();
    for (n, layout) in list.iter().enumerate() {
        let Field::Valid(ships) = layout else {
            return Err("a layout must be a list of ships".into());
        };
        let mut fleet: Vec<Vec<crate::cell::Cell>> = Vec::new();
        for ship in ships {
            let Field::Valid(cells) = ship else {
                return Err("a ship must be a list of cells".into());
            };
            let mut out = Vec::new();
            for c in cells {
                let raw = protocol::raw_cell(c)?;
                match rules.cell(raw) {
                    Some(cell) => out.push(cell),
                    None => {
                        return Ok(Answer::placement(
                            crate::engine::Outcome::Rejected,
                            Some(format!("fleet {} has a ship off the board at {raw}", n + 1)),
                        ));
                    }
                }
            }
            out.sort();
            fleet.push(out);
        }
        if let Err(why) = crate::engine::check_layout(rules, &fleet) {
            return Ok(Answer::placement(
                crate::engine::Outcome::Rejected,
                Some(format!("fleet {}: {why}", n + 1)),
            ));
        }
        fleet.sort();
        seen.insert(fleet);
    }
    if seen.len() == 1 && count > 1 {
        return Ok(Answer::placement(
            crate::engine::Outcome::Rejected,
            Some(format!(
                "all {count} fleets are the same layout; expected random ones"
            )),
        ));
    }
    Ok(Answer::placement(crate::engine::Outcome::Ok, None))
}

/// The fault kind of a child that could not be started. broadside's own program (an
/// interpreter, its driver, `sh`, `java`) that does not start is the grader's failure
/// ([`FaultKind::Harness`]), not the submission's; unless processes or memory ran out
/// (`EAGAIN`, `ENOMEM`), which what the submission left running may have caused
/// ([`FaultKind::Crash`]).
pub(crate) fn spawn_fault_kind(e: &std::io::Error) -> FaultKind {
    if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::ENOMEM)) {
        FaultKind::Crash
    } else {
        FaultKind::Harness
    }
}

/// The child's standard output, read line by line on a thread of its own: each line (one
/// longer than `LINE_LIMIT` ends the reading), then the end.
fn read_lines(stdout: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Line> {
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut line = Vec::new();
            let read = (&mut reader)
                .take(LINE_LIMIT as u64 + 1)
                .read_until(b'\n', &mut line);
            let msg = match read {
                Ok(0) | Err(_) => Line::Eof,
                Ok(_) if line.len() > LINE_LIMIT => Line::TooLong,
                Ok(_) => Line::Text(String::from_utf8_lossy(&line).trim_end().to_string()),
            };
            let stop = !matches!(msg, Line::Text(_));
            if tx.send(msg).is_err() || stop {
                break;
            }
        }
    });
    lines
}

/// The child's standard error, read on a thread of its own, its last `STDERR_TAIL` bytes
/// kept; and the thread, which ends with the stream.
fn keep_tail(
    mut stderr: impl Read + Send + 'static,
) -> (Arc<Mutex<Vec<u8>>>, std::thread::JoinHandle<()>) {
    let tail = Arc::new(Mutex::new(Vec::new()));
    let sink = tail.clone();
    let stderr_reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut t = sink.lock().unwrap_or_else(|p| p.into_inner());
            t.extend_from_slice(&buf[..n]);
            let excess = t.len().saturating_sub(STDERR_TAIL);
            t.drain(..excess);
        }
    });
    (tail, stderr_reader)
}
