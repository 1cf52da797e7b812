//! One run of an interactive program: lines written to its standard input when it asks for
//! them, everything it prints read continuously.
//!
//! "It asks" is read off the kernel: a thread of the program's process group blocked in
//! `read` on its standard input (`/proc/PID/task/TID/syscall`), once its output has been
//! quiet for a moment. Where that file cannot be read, a longer quiet spell stands in. The
//! program runs contained like every child (limits, user, jail, its own process group),
//! and is killed with its group when the session ends.

use crate::target::limits::Limits;
use crate::target::process::{Contained, contained, kill_marked, new_marker};
use crate::target::{Fault, FaultKind, Program};
use process_wrap::std::ChildWrapper;
use std::io::{Read, Write};
use std::process::ChildStdin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long output must be quiet before a program blocked on input counts as asking.
const SETTLE: Duration = Duration::from_millis(15);
/// Where blocked reads cannot be seen: how long a quiet spell counts as asking.
const QUIET: Duration = Duration::from_millis(600);
/// How often the program is looked at while waiting.
const POLL: Duration = Duration::from_millis(3);
/// The most a program may print in one game, in bytes; more is a `limit` fault (a loop
/// printing forever).
pub const OUTPUT_LIMIT: usize = 4 * 1024 * 1024;

/// What the program did after a line was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waited {
    /// It printed what it had to say and is waiting for the next line.
    Asking,
    /// It ended: its exit code (`None`: a signal ended it), and the signal, if any.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
}

#[derive(Default)]
struct Shared {
    /// Everything printed on standard output so far.
    text: Vec<u8>,
    /// Standard error alone (for tracebacks and exceptions).
    stderr: Vec<u8>,
    last: Option<Instant>,
}

/// A running program.
pub struct Session {
    child: Box<dyn ChildWrapper>,
    stdin: Option<ChildStdin>,
    shared: Arc<Mutex<Shared>>,
    readers: Vec<std::thread::JoinHandle<()>>,
    marker: String,
    pgid: i32,
    limits: Limits,
    /// How much of the output has been handed out by [`Session::take`].
    taken: usize,
    /// Whether blocked reads can be seen on this machine.
    can_see_reads: bool,
    /// When the last line was sent: quiet is counted from then at the earliest.
    sent_at: Instant,
    /// Copies of the output pipes' read ends, to see that the readers have taken
    /// everything the program wrote.
    outputs: Vec<std::os::fd::OwnedFd>,
    ended: Option<Waited>,
}

impl Session {
    /// Starts `program` with `env` added to its environment.
    ///
    /// Errors: it could not be started (a `crash` fault with the reason).
    pub fn start(program: &Program, env: &[(String, String)]) -> Result<Session, Fault> {
        let marker = new_marker();
        let mut all_env = program.env.clone();
        all_env.extend_from_slice(env);
        let namespaces = program.drop_to.is_some() && crate::target::limits::namespaces_available();
        let jail = program.jail.as_deref().filter(|_| namespaces);
        let _ = nix::sys::prctl::set_child_subreaper(true);
        let mut command = contained(&Contained {
            program: &program.program,
            args: &program.args,
            cwd: program.cwd.as_deref(),
            env: &all_env,
            marker: &marker,
            limits: &program.limits,
            drop_to: program.drop_to,
            jail,
        });
        let mut child = command.spawn().map_err(|e| Fault {
            kind: FaultKind::Crash,
            message: format!("could not start `{}`: {e}", program.program),
        })?;
        let stdin = child.stdin().take();
        let stdout = child.stdout().take();
        let stderr = child.stderr().take();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let mut readers = Vec::new();
        let mut outputs = Vec::new();
        if let Some(out) = stdout {
            outputs.push(dup_fd(&out));
            readers.push(reader(out, shared.clone(), false));
        }
        if let Some(err) = stderr {
            outputs.push(dup_fd(&err));
            readers.push(reader(err, shared.clone(), true));
        }
        let pgid = i32::try_from(child.id()).unwrap_or(0);
        Ok(Session {
            child,
            stdin,
            shared,
            readers,
            marker,
            pgid,
            limits: program.limits.clone(),
            taken: 0,
            can_see_reads: can_see_reads(),
            sent_at: Instant::now(),
            outputs: outputs.into_iter().flatten().collect(),
            ended: None,
        })
    }

    /// Writes `line` and a newline to the program's input.
    ///
    /// Errors: the program has closed its input or ended (`false`).
    pub fn send(&mut self, line: &str) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.sent_at = Instant::now();
        stdin.write_all(&bytes).and_then(|()| stdin.flush()).is_ok()
    }

    /// Closes the program's input: it reads end-of-file from now on.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Waits until the program asks for input or ends, at most `timeout`.
    ///
    /// Errors: `timeout` (it neither asked nor ended: an endless loop, or a wait on something
    /// else) or `limit` (it printed more than [`OUTPUT_LIMIT`]); the program is stopped.
    pub fn wait(&mut self, timeout: Duration) -> Result<Waited, Fault> {
        if let Some(w) = &self.ended {
            return Ok(w.clone());
        }
        let start = Instant::now();
        // A blocked read must be seen on two polls in a row: a reader preempted on its way
        // out of `read` must not pass for one waiting.
        let mut seen = 0;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                use std::os::unix::process::ExitStatusExt;
                self.drain();
                let w = Waited::Exited {
                    code: status.code(),
                    signal: status.signal(),
                };
                self.ended = Some(w.clone());
                return Ok(w);
            }
            let (len, last) = {
                let s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
                (s.text.len() + s.stderr.len(), s.last)
            };
            if len > OUTPUT_LIMIT {
                self.stop();
                return Err(Fault {
                    kind: FaultKind::Limit,
                    message: format!(
                        "the program printed more than {} MiB in one game (a loop printing forever?); it was stopped",
                        OUTPUT_LIMIT / (1024 * 1024)
                    ),
                });
            }
            let since = last.map_or(self.sent_at, |t| t.max(self.sent_at));
            let quiet = since.elapsed();
            if self.can_see_reads {
                if quiet >= SETTLE
                    && self.input_taken()
                    && self.output_drained()
                    && self.reading_input()
                {
                    seen += 1;
                    if seen >= 2 {
                        return Ok(Waited::Asking);
                    }
                } else {
                    seen = 0;
                }
            } else if quiet >= QUIET && start.elapsed() >= QUIET {
                return Ok(Waited::Asking);
            }
            if start.elapsed() > timeout {
                self.stop();
                return Err(Fault {
                    kind: FaultKind::Timeout,
                    message: format!(
                        "the program neither asked for input nor ended within {:.1} s (an endless loop?); it was stopped",
                        timeout.as_secs_f64()
                    ),
                });
            }
            std::thread::sleep(POLL);
        }
    }

    /// The request timeout of the program's limits: how long one answer may take.
    pub fn answer_timeout(&self) -> Duration {
        // A JVM's first answer includes its start-up.
        self.limits.request_timeout
    }

    /// What the program printed on standard output since the last call (standard error is
    /// kept apart: [`Session::stderr`]).
    pub fn take(&mut self) -> String {
        let s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        let new = String::from_utf8_lossy(&s.text[self.taken.min(s.text.len())..]).into_owned();
        self.taken = s.text.len();
        new
    }

    /// Everything printed so far.
    pub fn transcript(&self) -> String {
        let s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&s.text).into_owned()
    }

    /// Everything written to standard error so far.
    pub fn stderr(&self) -> String {
        let s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&s.stderr).into_owned()
    }

    /// Stops the program and its group; returns the command lines of processes it left
    /// behind outside its group (killed).
    pub fn finish(mut self) -> Vec<String> {
        self.stop();
        kill_marked(&self.marker)
    }

    fn stop(&mut self) {
        self.stdin = None;
        let _ = self.child.signal(nix::sys::signal::Signal::SIGKILL as i32);
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.drain();
        if self.ended.is_none() {
            self.ended = Some(Waited::Exited {
                code: None,
                signal: Some(9),
            });
        }
    }

    /// Lets the readers take the last output (bounded: a grandchild may hold the pipes).
    fn drain(&mut self) {
        let deadline = Instant::now() + Duration::from_millis(500);
        while self.readers.iter().any(|r| !r.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Whether the readers have taken everything the program wrote.
    fn output_drained(&self) -> bool {
        use std::os::fd::AsRawFd;
        self.outputs.iter().all(|fd| pending(fd.as_raw_fd()) == 0)
    }

    /// Whether the program has read everything sent to it (the input pipe is empty), so a
    /// blocked read is a wait for the next line, not one about to return the last.
    fn input_taken(&self) -> bool {
        use std::os::fd::AsRawFd;
        let Some(stdin) = &self.stdin else {
            return true;
        };
        pending(stdin.as_raw_fd()) == 0
    }

    /// Whether a thread of the program's process group is blocked reading its standard
    /// input.
    fn reading_input(&self) -> bool {
        if reads_stdin(self.pgid) {
            return true;
        }
        group_members(self.pgid)
            .into_iter()
            .filter(|&p| p != self.pgid)
            .any(reads_stdin)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.ended.is_none() {
            self.stop();
        }
        let _ = kill_marked(&self.marker);
    }
}

fn reader(
    mut from: impl Read + Send + 'static,
    shared: Arc<Mutex<Shared>>,
    is_err: bool,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
            let sink = if is_err { &mut s.stderr } else { &mut s.text };
            if sink.len() <= OUTPUT_LIMIT * 2 {
                sink.extend_from_slice(&buf[..n]);
            }
            s.last = Some(Instant::now());
        }
    })
}

/// Bytes waiting in the pipe `fd` (0 when it cannot be told).
fn pending(fd: std::os::fd::RawFd) -> libc::c_int {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which is valid.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    if r == 0 { n } else { 0 }
}

/// A second descriptor for a pipe end (to ask how much waits in it).
fn dup_fd(fd: &impl std::os::fd::AsFd) -> Option<std::os::fd::OwnedFd> {
    fd.as_fd().try_clone_to_owned().ok()
}

/// Whether `/proc/PID/task/TID/syscall` can be read here (this process's own).
fn can_see_reads() -> bool {
    static SEEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SEEN.get_or_init(|| {
        std::env::var_os("BROADSIDE_QUIET_INPUT").is_none()
            && std::fs::read_to_string("/proc/thread-self/syscall")
                .is_ok_and(|s| s.split_whitespace().next().is_some_and(|n| n != "running"))
    })
}

/// Whether a thread of `pid` sleeps in `read(0, …)` or `readv(0, …)` (state `S`: waiting
/// for data, not woken and about to return).
fn reads_stdin(pid: i32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        let Ok(s) = std::fs::read_to_string(t.path().join("syscall")) else {
            return false;
        };
        let mut f = s.split_whitespace();
        let nr = f.next().and_then(|n| n.parse::<i64>().ok());
        let fd = f.next();
        let in_read = matches!(nr, Some(n) if n == libc::SYS_read || n == libc::SYS_readv)
            && fd == Some("0x0");
        in_read
            && std::fs::read_to_string(t.path().join("stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().next())
                    == Some("S")
            })
    })
}

/// The processes of process group `pgid`.
fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(2))
                    .and_then(|g| g.parse::<i32>().ok())
                    == Some(pgid)
            })
        })
        .collect()
}
