//! One run of an interactive program: lines written to its standard input when it asks for
//! them, everything it prints read continuously.
//!
//! "It asks" is known, not guessed, for the programs broadside launches itself (a Python
//! submission's `main()`, a Java program): their launcher writes a byte on descriptor 3 each
//! time the program is about to wait for a line (its input pipe empty), after flushing what it
//! printed. An announcement since the last line sent, the input pipe empty and every byte
//! printed taken: the program asks. Where no announcement comes (an `exec:` program, or a
//! program reading its input by a way the launcher does not wrap), it is read off the kernel: everything sent has been read (the input pipe is
//! empty), everything printed has been taken (the output pipes are empty), no thread of the
//! program's process group is running, and one sleeps in `read` on standard input
//! (`/proc/PID/task/TID/syscall`), on two looks in a row. Where that file cannot be read
//! (a container without `CAP_SYS_PTRACE`, or `BROADSIDE_QUIET_INPUT=1`), a short quiet
//! spell of a program whose threads all sleep stands in. `BROADSIDE_INPUT_WAIT` picks one
//! way for every program: `announced` (the default: announcements where a launcher gives
//! them, else the kernel), `announced-only` (no fallback: a program that never announces
//! times out; for testing the launchers), `kernel` (ignore announcements) or `quiet` (the
//! quiet spell alone; `BROADSIDE_QUIET_INPUT=1` is the same). The program runs contained like
//! every child (limits, user, jail, its own process group); it has ended when its first
//! process has, and whatever it left running in its group is killed and named. A program
//! with a game server ([`crate::target::program::GameServer`], a Java or Python program's) plays its
//! game in that server instead, over FIFOs (`Session::served`): it has ended when the
//! server says so.

pub use super::child::{OUTPUT_LIMIT, Waited};
use super::child::{Shared, announcement_pipe, ended};
use super::server::Server;
use crate::target::limits::Limits;
use crate::target::process::{Contained, contained, kill_marked, new_marker};
use crate::target::procs;
use crate::target::{Fault, FaultKind, Program};
use process_wrap::std::ChildWrapper;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long output must be quiet before a program blocked on input counts as asking. What it
/// wrote before blocking is already in the pipe, which must be drained too, so this only
/// covers a reader thread between its `read` and its append.
const SETTLE: Duration = Duration::from_millis(4);
/// Where blocked reads cannot be seen: how long a quiet spell, every thread asleep, counts
/// as asking.
const QUIET: Duration = Duration::from_millis(60);
/// How often the process group's members are looked up again.
const MEMBERS_EVERY: Duration = Duration::from_millis(100);
/// How often the program is looked at while waiting.
const POLL: Duration = Duration::from_millis(3);
/// How often right after a line was sent, for as long as [`EAGER`]: most answers come quickly.
const POLL_EAGER: Duration = Duration::from_micros(500);
const EAGER: Duration = Duration::from_millis(25);
/// How often while a launcher's announcements can come: an announcement, and the program's
/// end (the pipe's last writer gone), wake the wait at once, so the kernel is looked at only
/// for a read the launcher does not see, and the program keeps the processor.
const POLL_ANNOUNCED: Duration = Duration::from_millis(10);
/// How a session tells that the program waits for a line (`BROADSIDE_INPUT_WAIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputWait {
    /// The launcher's announcements where there are any, else [`InputWait::Kernel`].
    Announced,
    /// The launcher's announcements alone.
    AnnouncedOnly,
    /// Blocked reads of standard input, read off `/proc`, else a quiet spell.
    Kernel,
    /// A quiet spell of a program whose threads all sleep.
    Quiet,
}

impl InputWait {
    /// The way set by the environment (`BROADSIDE_INPUT_WAIT`, `BROADSIDE_QUIET_INPUT`).
    pub(crate) fn from_env() -> InputWait {
        let set = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        match set("BROADSIDE_INPUT_WAIT").as_deref() {
            Some("kernel") => InputWait::Kernel,
            Some("announced-only") => InputWait::AnnouncedOnly,
            Some("quiet") => InputWait::Quiet,
            _ if set("BROADSIDE_QUIET_INPUT").is_some_and(|v| v != "0") => InputWait::Quiet,
            _ => InputWait::Announced,
        }
    }
}

/// What runs a session's game.
enum Runner {
    /// A process of its own.
    Own(Box<dyn ChildWrapper>),
    /// A game of a game server (see [`super::server`]), handed back to the program for its
    /// next game when this one ended cleanly; `None` once it is stopped.
    Served(Option<Box<Server>>),
}

/// What a session is made of, however its game is run (see [`Session::assemble`]).
struct Parts {
    runner: Runner,
    stdin: Option<std::fs::File>,
    /// Standard output, then standard error (`true`), those there are.
    outputs: Vec<(std::fs::File, bool)>,
    marker: String,
    pgid: i32,
    announcements: Option<OwnedFd>,
    wake: Option<OwnedFd>,
    group: Option<crate::target::cgroup::MemoryGroup>,
}

/// A running program.
pub(crate) struct Session {
    runner: Runner,
    stdin: Option<std::fs::File>,
    shared: Arc<Mutex<Shared>>,
    readers: Vec<std::thread::JoinHandle<()>>,
    marker: String,
    pgid: i32,
    limits: Limits,
    /// How much of the output has been handed out by [`Session::take`].
    taken: usize,
    /// `BROADSIDE_INPUT_WAIT=quiet`: never look at blocked reads.
    quiet_only: bool,
    /// `BROADSIDE_INPUT_WAIT=announced-only`: never look at the kernel.
    announced_only: bool,
    /// The read end of the launcher's announcements (non-blocking), while it is open.
    announcements: Option<std::os::fd::OwnedFd>,
    /// An announcement came since the last line was sent.
    announced: bool,
    /// Readable when the game server replied (its game may have ended).
    wake: Option<std::os::fd::OwnedFd>,
    /// Set by a reader between taking bytes from its pipe and keeping them.
    busy: Vec<Arc<std::sync::atomic::AtomicBool>>,
    /// The process group's members, and when they were looked up.
    members: Vec<i32>,
    members_at: Instant,
    /// Command lines of what was left running in the group when its first process ended.
    left_in_group: Vec<String>,
    /// How much of standard error has been handed out by [`Session::take_stderr`].
    taken_err: usize,
    /// When the last line was sent: quiet is counted from then at the earliest.
    sent_at: Instant,
    /// Copies of the output pipes' read ends, to see that the readers have taken
    /// everything the program wrote.
    outputs: Vec<std::os::fd::OwnedFd>,
    ended: Option<Waited>,
    /// The memory group of the program's whole tree (see [`crate::target::cgroup`]); last,
    /// so it goes after the program is stopped.
    group: Option<crate::target::cgroup::MemoryGroup>,
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
        let group = crate::target::cgroup::MemoryGroup::new(program.limits.memory_mib);
        let wait_by = InputWait::from_env();
        let announce = if program.announces_reads
            && matches!(wait_by, InputWait::Announced | InputWait::AnnouncedOnly)
        {
            announcement_pipe()
        } else {
            None
        };
        if announce.is_some() {
            all_env.push(("BROADSIDE_READ_FD".into(), "3".into()));
        }
        let mut command = contained(&Contained {
            program: &program.program,
            args: &program.args,
            cwd: program.cwd.as_deref(),
            env: &all_env,
            marker: &marker,
            limits: &program.limits,
            drop_to: program.drop_to,
            jail,
            group: group.as_ref(),
            fd3: announce
                .as_ref()
                .map(|(_, w)| std::os::fd::AsRawFd::as_raw_fd(w)),
        });
        let mut child = command.spawn().map_err(|e| Fault {
            kind: crate::target::process::spawn_fault_kind(&e),
            message: format!("could not start `{}`: {e}", program.program),
        })?;
        // Only the child keeps the write end: its end closes the pipe.
        let announcements = announce.map(|(r, _)| r);
        let file = |fd: OwnedFd| std::fs::File::from(fd);
        let stdin = child.stdin().take().map(|s| file(s.into()));
        let mut outputs = Vec::new();
        outputs.extend(child.stdout().take().map(|s| (file(s.into()), false)));
        outputs.extend(child.stderr().take().map(|s| (file(s.into()), true)));
        let pgid = i32::try_from(child.id()).unwrap_or(0);
        let parts = Parts {
            runner: Runner::Own(child),
            stdin,
            outputs,
            marker,
            pgid,
            announcements,
            wake: None,
            group,
        };
        let shared = Arc::new(Mutex::new(Shared::default()));
        Ok(Session::assemble(parts, shared, &program.limits, wait_by))
    }

    /// A game of `program`'s game server, if it has one: the server parked after its last
    /// game, or a new one. `None`: no server could be had or the game could not begin
    /// there (the caller starts a process of its own instead).
    pub fn served(program: &Program, env: &[(String, String)]) -> Option<Session> {
        // A game's reads are seen only as announced: its input is no descriptor 0 the
        // kernel could be asked about.
        let wait_by = InputWait::from_env();
        if !matches!(wait_by, InputWait::Announced | InputWait::AnnouncedOnly) {
            return None;
        }
        let parked = program
            .spare
            .take()
            .and_then(|s| s.downcast::<Server>().ok());
        let mut server = match parked {
            Some(mut s) => {
                if s.usable() {
                    s
                } else {
                    drop(s);
                    Box::new(Server::start(program)?)
                }
            }
            None => Box::new(Server::start(program)?),
        };
        let game = server.begin(env)?;
        // Which of the server's games this is: a game that fails after its first is played
        // again in a fresh process (see `crate::dialogue::run`).
        program.served.played_as(server.games().saturating_sub(1));
        let shared = Arc::new(Mutex::new(Shared::default()));
        server.show_errors_in(Some(shared.clone()));
        let parts = Parts {
            stdin: Some(game.stdin),
            outputs: vec![(game.stdout, false), (game.stderr, true)],
            marker: server.marker().to_string(),
            pgid: server.pgid(),
            announcements: server.announcements(),
            wake: server.wake(),
            group: None,
            runner: Runner::Served(Some(server)),
        };
        Some(Session::assemble(parts, shared, &program.limits, wait_by))
    }

    /// A session of `parts`, its outputs read into `shared`: nothing said or taken yet.
    fn assemble(
        parts: Parts,
        shared: Arc<Mutex<Shared>>,
        limits: &Limits,
        wait_by: InputWait,
    ) -> Session {
        let mut readers = Vec::new();
        let mut outputs = Vec::new();
        let mut busy = Vec::new();
        for (out, is_err) in parts.outputs {
            outputs.extend(dup_fd(&out));
            let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
            readers.push(reader(out, shared.clone(), is_err, flag.clone()));
            busy.push(flag);
        }
        Session {
            runner: parts.runner,
            stdin: parts.stdin,
            shared,
            readers,
            marker: parts.marker,
            pgid: parts.pgid,
            limits: limits.clone(),
            taken: 0,
            quiet_only: wait_by == InputWait::Quiet,
            announced_only: wait_by == InputWait::AnnouncedOnly,
            announcements: parts.announcements,
            announced: false,
            wake: parts.wake,
            busy,
            members: vec![parts.pgid],
            members_at: Instant::now(),
            left_in_group: Vec::new(),
            taken_err: 0,
            sent_at: Instant::now(),
            outputs,
            ended: None,
            group: parts.group,
        }
    }

    /// Writes `line` and a newline to the program's input.
    ///
    /// Errors: the program has closed its input or ended (`false`).
    pub(crate) fn send(&mut self, line: &str) -> bool {
        // What was announced before this line answered the last question.
        self.take_announcements();
        self.announced = false;
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.sent_at = Instant::now();
        stdin.write_all(&bytes).and_then(|()| stdin.flush()).is_ok()
    }

    /// Closes the program's input: it reads end-of-file from now on.
    pub(crate) fn close_input(&mut self) {
        self.stdin = None;
        // A read at end of input returns at once: it is no question (see
        // `take_announcements`).
        self.announced = false;
        // Quiet is counted from the end of input, not from the last line sent.
        self.sent_at = Instant::now();
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
        // Asking must be seen on two looks in a row: a reader preempted on its way out of
        // `read` must not pass for one waiting.
        let mut seen = 0;
        loop {
            if let Some(w) = self.check_ended() {
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
            self.take_announcements();
            // Every thread asleep too: a read announced on a thread of its own must not pass
            // for a question while another thread still answers.
            if self.announced
                && self.input_taken()
                && self.output_drained()
                && !matches!(self.group_state(), Group::Running)
            {
                return Ok(Waited::Asking);
            }
            let since = last.map_or(self.sent_at, |t| t.max(self.sent_at));
            let quiet = since.elapsed();
            let asking = !self.announced_only
                && quiet >= SETTLE
                && self.input_taken()
                && self.output_drained()
                && match self.group_state() {
                    Group::Running => false,
                    // Once its input is closed a read returns at once, so a thread still
                    // asleep in one has not been given the end of input yet: the pipe's
                    // write end is held a moment longer by a process being started beside
                    // it (forked, not yet at `exec`, which closes it). That is no question:
                    // taken for one, the program was stopped before it could end, and what
                    // it left running went unseen (a flake under load).
                    Group::Asleep { reading: Some(r) } => r && self.stdin.is_some(),
                    // A program whose launcher announces its reads is never guessed at: a
                    // pause of its own (a collection, a compile, a loaded machine) would
                    // pass for a question.
                    Group::Asleep { reading: None } => {
                        quiet >= QUIET && self.announcements.is_none()
                    }
                };
            if asking {
                seen += 1;
                if seen >= 2 {
                    return Ok(Waited::Asking);
                }
            } else {
                seen = 0;
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
            self.pause();
        }
    }

    /// Reads what the launcher announced; notes its end (the program and its children have
    /// all closed descriptor 3).
    fn take_announcements(&mut self) {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.announcements else {
            return;
        };
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reads at most 64 bytes into the buffer, which is valid.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            match n {
                // Once input is closed a read returns at once: no question.
                n if n > 0 => self.announced |= self.stdin.is_some(),
                0 => {
                    self.announcements = None;
                    return;
                }
                _ => return,
            }
        }
    }

    /// Waits a little before the next look: until an announcement comes, or the polling
    /// interval (shorter right after a line was sent, and while the readers take the last
    /// output after an announcement).
    fn pause(&self) {
        use std::os::fd::AsRawFd;
        let every = if self.announced {
            Duration::from_micros(100)
        } else if self.announcements.is_some() && self.stdin.is_some() {
            POLL_ANNOUNCED
        } else if self.sent_at.elapsed() < EAGER {
            POLL_EAGER
        } else {
            POLL
        };
        // Woken by an announcement (none is waited for once one came) or a game server's
        // reply.
        let announcements = self.announcements.as_ref().filter(|_| !self.announced);
        let mut pfds: Vec<libc::pollfd> = [announcements, self.wake.as_ref()]
            .into_iter()
            .flatten()
            .map(|fd| libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        if pfds.is_empty() {
            std::thread::sleep(every);
        } else {
            let ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: i64::try_from(every.as_nanos()).unwrap_or(3_000_000),
            };
            // SAFETY: valid pollfds and a valid timespec; no signal mask.
            unsafe {
                libc::ppoll(
                    pfds.as_mut_ptr(),
                    pfds.len() as libc::nfds_t,
                    &ts,
                    std::ptr::null(),
                )
            };
        }
    }

    /// How the program ended, if it has: its first process exited (what it left running in
    /// its group is killed, and named by [`Session::finish`]).
    fn check_ended(&mut self) -> Option<Waited> {
        let w = match &mut self.runner {
            Runner::Own(child) => ended(child.as_mut(), self.pgid, &mut self.left_in_group)?,
            Runner::Served(None) => return None,
            Runner::Served(Some(server)) => server.ended()?,
        };
        self.drain();
        self.ended = Some(w.clone());
        Some(w)
    }

    /// Whether a thread of the group runs, and else whether one sleeps reading standard
    /// input (`None`: it cannot be seen).
    fn group_state(&mut self) -> Group {
        if self.members_at.elapsed() >= MEMBERS_EVERY {
            self.members = procs::group_members(self.pgid);
            self.members_at = Instant::now();
        }
        let mut reading = Some(false);
        for &pid in &self.members {
            for (state, dir) in procs::threads(pid) {
                if state == Some('R') {
                    return Group::Running;
                }
                // Only a sleeping thread can wait in `read`. One gone since the threads were
                // listed (a JVM starts and ends compiler threads as it goes) or ending says
                // nothing; taken for unseeable, it would let the quiet spell below stand in
                // while the program only paused.
                if self.quiet_only || reading == Some(true) || state != Some('S') {
                    continue;
                }
                match std::fs::read_to_string(dir.join("syscall")) {
                    Ok(s) if in_stdin_read(&s) => reading = Some(true),
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(_) => reading = reading.filter(|r| *r).or(None),
                }
            }
        }
        Group::Asleep {
            reading: if self.quiet_only { None } else { reading },
        }
    }

    /// The request timeout of the program's limits: how long one answer may take.
    pub(crate) fn answer_timeout(&self) -> Duration {
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

    /// What the program wrote on standard error since the last call.
    pub(crate) fn take_stderr(&mut self) -> String {
        let s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        let new =
            String::from_utf8_lossy(&s.stderr[self.taken_err.min(s.stderr.len())..]).into_owned();
        self.taken_err = s.stderr.len();
        new
    }

    /// Everything written to standard error so far.
    pub fn stderr(&self) -> String {
        let s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&s.stderr).into_owned()
    }

    /// Stops the program and its group; returns the command lines of processes it left
    /// behind outside its group (killed).
    pub fn finish(mut self, spare: &crate::target::program::Spare) -> Vec<String> {
        if let Runner::Served(server) = &mut self.runner {
            // Ended cleanly, the server plays the next game; else it is stopped. What a
            // game leaves running the server's end takes with it.
            let clean = matches!(self.ended, Some(Waited::Exited { .. }));
            let mut left = Vec::new();
            if let Some(mut s) = server.take() {
                s.show_errors_in(None);
                if clean && s.usable() {
                    self.stdin = None;
                    self.drain();
                    spare.park(s);
                } else {
                    left = (*s).stop();
                }
            }
            self.stop();
            return left;
        }
        self.stop();
        let mut left = std::mem::take(&mut self.left_in_group);
        left.extend(kill_marked(&self.marker));
        if let Some(g) = &self.group {
            left.extend(g.leftovers(&[]));
        }
        left
    }

    fn stop(&mut self) {
        self.stdin = None;
        match &mut self.runner {
            Runner::Own(child) => {
                let _ = child.signal(nix::sys::signal::Signal::SIGKILL as i32);
                let _ = child.kill();
                let _ = child.wait();
            }
            // Dropping the server stops it and its whole group.
            Runner::Served(server) => drop(server.take()),
        }
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
        use std::sync::atomic::Ordering;
        // The pipes first: a reader marks itself busy before it takes bytes, so an empty pipe
        // and no reader busy afterwards means every byte is kept.
        self.outputs.iter().all(|fd| pending(fd.as_raw_fd()) == 0)
            && self.busy.iter().all(|b| !b.load(Ordering::SeqCst))
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
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.ended.is_none() {
            self.stop();
        }
        if let Runner::Served(server) = &mut self.runner {
            drop(server.take());
            return;
        }
        let _ = kill_marked(&self.marker);
    }
}

fn reader(
    mut from: impl Read + std::os::fd::AsRawFd + Send + 'static,
    shared: Arc<Mutex<Shared>>,
    is_err: bool,
    busy: Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    use std::sync::atomic::Ordering;
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            // Wait for bytes without taking them, then say so before taking them: see
            // `Session::output_drained`.
            let mut pfd = libc::pollfd {
                fd: from.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            if unsafe { libc::poll(&mut pfd, 1, -1) } < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                break;
            }
            busy.store(true, Ordering::SeqCst);
            let Ok(n) = from.read(&mut buf) else {
                busy.store(false, Ordering::SeqCst);
                break;
            };
            if n == 0 {
                busy.store(false, Ordering::SeqCst);
                break;
            }
            {
                let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
                let sink = if is_err { &mut s.stderr } else { &mut s.text };
                if sink.len() <= OUTPUT_LIMIT * 2 {
                    sink.extend_from_slice(&buf[..n]);
                }
                s.last = Some(Instant::now());
            }
            busy.store(false, Ordering::SeqCst);
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

/// What a process group is doing.
enum Group {
    /// A thread of it is running.
    Running,
    /// Every thread sleeps; `reading`: one of them in a read of standard input (`None`: its
    /// system calls cannot be seen).
    Asleep { reading: Option<bool> },
}

/// Whether a `/proc/…/syscall` line is a `read(0, …)` or `readv(0, …)`.
fn in_stdin_read(syscall: &str) -> bool {
    let mut f = syscall.split_whitespace();
    let nr = f.next().and_then(|n| n.parse::<i64>().ok());
    matches!(nr, Some(n) if n == libc::SYS_read || n == libc::SYS_readv) && f.next() == Some("0x0")
}
