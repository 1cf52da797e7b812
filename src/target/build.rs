//! One-shot commands run contained, for building a submission before it is graded (GHC for
//! `haskell:`): the child limits, the unprivileged user and the jail of every target, its own
//! process group killed at the timeout, and its standard output and error kept together; and
//! [`Built`], what building a submission gave (every target kind that builds answers one).

use super::limits::{self, Jail, Limits};
use process_wrap::std::{CommandWrap, ProcessGroup};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// What building a submission gave: what it was built into (a program, a process, a
/// library), or the fault every scenario fails with because it does not build (a compile
/// error, no `main`: the student's fault, shown in the report). The grader's own problems
/// (a path that does not exist, no compiler) are errors beside it, never a `Failed`.
#[derive(Debug, Clone)]
pub enum Built<T> {
    Ready(T),
    Failed(super::Fault),
}

/// How a build command ended.
#[derive(Debug, Clone)]
pub(crate) struct BuildRun {
    /// The exit code; `None` when a signal or the timeout ended it.
    pub code: Option<i32>,
    /// Whether the timeout stopped it.
    pub timed_out: bool,
    /// What it printed (standard output and error interleaved), at most the last 64 KiB.
    pub output: String,
    /// Processes it started that outlived it (found by their mark, killed): their command
    /// lines.
    pub leftovers: Vec<String>,
}

/// A one-shot command to run contained.
pub(crate) struct OneShot<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    /// Where it runs when there is no jail (a jail sets its own working folder).
    pub cwd: &'a Path,
    pub limits: &'a Limits,
    /// The user it runs as when broadside runs as root.
    pub uid: u32,
    pub jail: Option<&'a Jail>,
    /// Environment variables added to the grader's.
    pub env: &'a [(String, String)],
    /// Wall-clock time before it is killed with its process group.
    pub timeout: Duration,
}

/// Runs `cmd` contained and waits for it, at most its timeout.
///
/// Errors: the command could not be started, or its output could not be read.
pub(crate) fn run_contained(cmd: &OneShot<'_>) -> std::io::Result<BuildRun> {
    let OneShot {
        program,
        args,
        cwd,
        limits,
        uid,
        jail,
        env,
        timeout,
    } = *cmd;
    let log = tempfile::tempfile()?;
    let (out, err) = (log.try_clone()?, log.try_clone()?);
    let drop_to = limits::running_as_root().then_some(uid);
    let namespaces = drop_to.is_some() && limits::namespaces_available();
    let jail = jail.filter(|_| namespaces).cloned();
    let limits = limits.clone();
    let marker = super::process::new_marker();
    let mut command = CommandWrap::with_new(program, |c| {
        c.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .current_dir(cwd)
            .env_clear()
            .envs(super::process::child_env())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env(super::process::MARK_VAR, &marker);
        // SAFETY: only async-signal-safe system calls, no allocation (see apply_in_child).
        unsafe {
            c.pre_exec(move || limits::apply_in_child(&limits, drop_to, namespaces, jail.as_ref()));
        }
    });
    command.wrap(ProcessGroup::leader());
    let mut child = command.spawn()?;
    let start = Instant::now();
    let (code, timed_out) = loop {
        if let Some(status) = child.try_wait()? {
            break (status.code(), false);
        }
        if start.elapsed() > timeout {
            let _ = child.start_kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut log = log;
    use std::io::Seek;
    let len = log.seek(std::io::SeekFrom::End(0))?;
    log.seek(std::io::SeekFrom::Start(len.saturating_sub(64 * 1024)))?;
    let mut bytes = Vec::new();
    log.read_to_end(&mut bytes)?;
    Ok(BuildRun {
        code,
        timed_out,
        output: String::from_utf8_lossy(&bytes).into_owned(),
        leftovers: super::process::kill_marked(&marker),
    })
}
