//! A game server: one process that plays every game of a program, one after the other, so
//! a submission's nine dialogues pay for one runtime start, not nine (a Java program's:
//! `drivers/BroadsideServe.java`). Its lines are typed in
//! [`crate::protocol::game_server`] and documented in `specs/protocol.md`, "Game servers".
//!
//! The server is contained like every child (limits, user, jail, memory group, its own
//! process group) and reads one line per game on its standard input naming three FIFOs that
//! broadside made for the game in [`GameServer::fifos`]: the game's standard input, output
//! and error. It says `started` once it has opened them and `end CODE` when the game has
//! ended (`end CODE taint`, then it stops, when the game left something running in it); its
//! read announcements come on descriptor 3 as a launcher's do. A game with an environment
//! of its own (solo-10x10's fleet for `main()`) has it as a fourth field, a JSON object; a
//! server that forks a process per game (a Python program's: `drivers/python_main.py
//! --serve`) lists what a game left running by saying `taint`, and it is reported as that
//! game's leak ([`Server::stop`]); it says `end CODE spent`, then stops, when the game left
//! files in its `/dev/shm` or changed its count of System V IPC objects (the next game gets
//! a new server, in a fresh IPC namespace where there are namespaces). State a game leaves
//! where no server looks (a JDK static) is caught by replaying, in a process of its own,
//! a game that fails after its server's first ([`crate::dialogue::run`]). [`GameServer::fifos`] is a folder the child cannot write, so a
//! game cannot replace it with a link to somewhere else. A session plays the game over
//! the FIFOs as over a child's pipes ([`super::session::Session::served`]); a game that
//! times out, floods or ends the server itself stops it, and the next game gets a new one.

use super::child::{OUTPUT_LIMIT, Shared, Waited, announcement_pipe, ended};
use crate::protocol::game_server::{Begin, Reply, Then};
use crate::target::cgroup::MemoryGroup;
use crate::target::process::{Contained, contained, kill_marked, new_marker};
use crate::target::procs;
use crate::target::program::{GameServer, Program};
use process_wrap::std::ChildWrapper;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a server may take to begin a game (its first includes the runtime's start).
const BEGIN: Duration = Duration::from_secs(10);
/// The longest reply line kept; longer ones are not the server's.
const REPLY_MAX: usize = 256;

/// Where the server's own standard error goes: the game being played, if any.
type Errors = Arc<Mutex<Option<Arc<Mutex<Shared>>>>>;

/// A running game server.
pub(super) struct Server {
    child: Box<dyn ChildWrapper>,
    control: std::fs::File,
    replies: Receiver<String>,
    /// Readable each time a reply came (non-blocking): a session waiting for its game's
    /// end polls it.
    wake: OwnedFd,
    announcements: Option<OwnedFd>,
    errors: Errors,
    pgid: i32,
    marker: String,
    plan: GameServer,
    uid: Option<u32>,
    games: u32,
    /// Half the CPU seconds of the program's limits: a server that has used more is not
    /// given another game, so no game meets the limit for what the games before it used.
    cpu_budget: f64,
    /// It cannot play another game: it said its game left something running, it ended, or
    /// a game could not begin.
    spent: bool,
    /// It said its game left something running (`end CODE taint`).
    tainted: bool,
    /// What was left running, as found when it said so (a leftover may end before the
    /// game's session is finished).
    left: Vec<String>,
    /// Last, so it goes after the server is stopped.
    _group: Option<MemoryGroup>,
}

/// A game's three streams, as broadside holds them.
pub(super) struct Game {
    pub stdin: std::fs::File,
    pub stdout: std::fs::File,
    pub stderr: std::fs::File,
}

impl Server {
    /// Starts `program`'s game server (`None`: it has none, or it could not be started).
    pub(super) fn start(program: &Program) -> Option<Server> {
        let plan = program.game_server.clone()?;
        // Made by the target in a folder the child cannot write, and not handed to it: only
        // each game's FIFOs are.
        if !plan.fifos.is_dir() {
            return None;
        }
        let uid = program.drop_to;
        let marker = new_marker();
        let namespaces = uid.is_some() && crate::target::limits::namespaces_available();
        let jail = program.jail.as_deref().filter(|_| namespaces);
        let group = MemoryGroup::new(program.limits.memory_mib);
        // Its games' reads are seen only as announced.
        let announce = announcement_pipe()?;
        let (wake, woken) = announcement_pipe()?;
        let mut env = program.env.clone();
        env.push(("BROADSIDE_READ_FD".into(), "3".into()));
        let _ = nix::sys::prctl::set_child_subreaper(true);
        let mut command = contained(&Contained {
            program: &program.program,
            args: &plan.args,
            cwd: program.cwd.as_deref(),
            env: &env,
            marker: &marker,
            limits: &program.limits,
            drop_to: uid,
            jail,
            group: group.as_ref(),
            fd3: Some(announce.1.as_raw_fd()),
        });
        let mut child = command.spawn().ok()?;
        let announcements = Some(announce.0);
        let control = std::fs::File::from(OwnedFd::from(child.stdin().take()?));
        let stdout = child.stdout().take()?;
        let stderr = child.stderr().take()?;
        let (tx, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || read_replies(stdout, &tx, &woken));
        let errors = Errors::default();
        let sink = errors.clone();
        std::thread::spawn(move || pass_errors(stderr, &sink));
        let pgid = i32::try_from(child.id()).unwrap_or(0);
        Some(Server {
            child,
            control,
            replies,
            wake,
            announcements,
            errors,
            pgid,
            marker,
            plan,
            uid,
            games: 0,
            cpu_budget: program.limits.cpu_secs as f64 / 2.0,
            spent: false,
            tainted: false,
            left: Vec::new(),
            _group: group,
        })
    }

    /// Begins a game with `env` added to its environment: makes its FIFOs, tells the
    /// server, and waits until it has opened them. `None`: the server did not begin it in
    /// time (it is spent).
    pub(super) fn begin(&mut self, env: &[(String, String)]) -> Option<Game> {
        let n = self.games;
        self.games += 1;
        // Named by the server's mark too: no two servers' games share a name.
        let name = format!("{}-{n}", self.marker);
        let paths = ["in", "out", "err"].map(|k| self.plan.fifos.join(format!("{name}.{k}")));
        let game = self
            .make_fifos(&paths)
            .and_then(|()| self.open(&name, &paths, env));
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
        if game.is_none() {
            self.spent = true;
        }
        game
    }

    fn make_fifos(&self, paths: &[std::path::PathBuf; 3]) -> Option<()> {
        use nix::sys::stat::Mode;
        for p in paths {
            let _ = std::fs::remove_file(p);
            nix::unistd::mkfifo(p.as_path(), Mode::S_IRUSR | Mode::S_IWUSR).ok()?;
            if let Some(uid) = self.uid {
                nix::unistd::chown(p.as_path(), Some(uid.into()), None).ok()?;
            }
        }
        Some(())
    }

    fn open(
        &mut self,
        name: &str,
        paths: &[std::path::PathBuf; 3],
        env: &[(String, String)],
    ) -> Option<Game> {
        use nix::fcntl::OFlag;
        let read = OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let stdout = open_fifo(&paths[1], read).ok()?;
        let stderr = open_fifo(&paths[2], read).ok()?;
        // What was announced before this game is not this game's; its own announcements
        // may come as soon as it has begun.
        if let Some(fd) = &self.announcements {
            drain(fd);
        }
        let inside = &self.plan.fifos_inside;
        let begin = Begin {
            stdin: format!("{inside}/{name}.in"),
            stdout: format!("{inside}/{name}.out"),
            stderr: format!("{inside}/{name}.err"),
            env: env.iter().cloned().collect(),
        };
        writeln!(self.control, "{}", begin.line().ok()?)
            .and_then(|()| self.control.flush())
            .ok()?;
        let deadline = Instant::now() + BEGIN;
        // Opening the write end waits for the server to open the read end: without blocking,
        // so a server that died is not waited for.
        let write = OFlag::O_WRONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let stdin = loop {
            match open_fifo(&paths[0], write) {
                Ok(fd) => break fd,
                Err(nix::errno::Errno::ENXIO)
                    if Instant::now() < deadline && self.child.try_wait().ok()?.is_none() =>
                {
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(_) => return None,
            }
        };
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.replies.recv_timeout(left) {
                Ok(line) if Reply::parse(&line) == Ok(Reply::Started) => break,
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        for fd in [&stdin, &stdout, &stderr] {
            blocking(fd).ok()?;
        }
        Some(Game {
            stdin: stdin.into(),
            stdout: stdout.into(),
            stderr: stderr.into(),
        })
    }

    /// How the game being played ended, if it has: the server's `end`, or the end of the
    /// server itself.
    pub(super) fn ended(&mut self) -> Option<Waited> {
        drain(&self.wake);
        while let Ok(line) = self.replies.try_recv() {
            if let Some(w) = self.end_of(&line) {
                return Some(w);
            }
        }
        let mut left = Vec::new();
        let w = ended(self.child.as_mut(), self.pgid, &mut left)?;
        self.spent = true;
        // An `end` said just before the server stopped is the game's.
        while let Ok(line) = self.replies.recv_timeout(Duration::from_millis(100)) {
            if let Some(w) = self.end_of(&line) {
                return Some(w);
            }
        }
        Some(w)
    }

    /// The game's end, if `line` says it ended.
    fn end_of(&mut self, line: &str) -> Option<Waited> {
        let Ok(Reply::End { code, then }) = Reply::parse(line) else {
            return None;
        };
        match then {
            Then::Taint => {
                self.spent = true;
                self.tainted = true;
                self.left = self.group_leftovers();
            }
            // It can play no further game as a fresh process would (its game left files in
            // the server's own `/dev/shm`, or System V IPC objects).
            Then::Spent => self.spent = true,
            Then::Next => {}
        }
        Some(Waited::Exited {
            code: Some(code),
            signal: None,
        })
    }

    /// Whether it can play another game: running, not spent, within its CPU budget.
    pub(super) fn usable(&mut self) -> bool {
        if self.spent || !matches!(self.child.try_wait(), Ok(None)) {
            return false;
        }
        cpu_seconds(self.pgid) < self.cpu_budget
    }

    /// Sends the server's own standard error to `game`'s (or nowhere).
    pub(super) fn show_errors_in(&self, game: Option<Arc<Mutex<Shared>>>) {
        *self.errors.lock().unwrap_or_else(|p| p.into_inner()) = game;
    }

    /// Stops it; when it said its game left something running, the command lines of what
    /// was left (in its group, or elsewhere with its mark), killed: the game's leak, as a
    /// process of the game's own would have left it.
    pub(super) fn stop(mut self) -> Vec<String> {
        let mut left = std::mem::take(&mut self.left);
        if self.tainted {
            left.extend(self.group_leftovers());
            // Left its group (a new session, say) but not its memory group.
            if let Some(g) = &self._group {
                left.extend(g.leftovers(&[self.pgid]));
            }
        }
        let outside = self.kill();
        if self.tainted {
            left.extend(outside);
        }
        left.sort();
        left.dedup();
        left
    }

    /// The command lines of its group's processes other than itself.
    fn group_leftovers(&self) -> Vec<String> {
        procs::group_members(self.pgid)
            .into_iter()
            .filter(|&p| p != self.pgid)
            .map(procs::command_line)
            .filter(|c| !c.is_empty())
            .collect()
    }

    /// Kills it and its group, then whatever else carries its mark (their command lines).
    fn kill(&mut self) -> Vec<String> {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.pgid),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.child.kill();
        let _ = self.child.wait();
        kill_marked(&self.marker)
    }

    /// How many games it has begun.
    pub(super) fn games(&self) -> u32 {
        self.games
    }

    pub(super) fn pgid(&self) -> i32 {
        self.pgid
    }

    pub(super) fn marker(&self) -> &str {
        &self.marker
    }

    /// A copy of the descriptor that is readable when a reply came, for one game's session.
    pub(super) fn wake(&self) -> Option<OwnedFd> {
        self.wake.try_clone().ok()
    }

    /// A copy of the read end of its announcements, for one game's session.
    pub(super) fn announcements(&self) -> Option<OwnedFd> {
        self.announcements
            .as_ref()
            .and_then(|fd| fd.try_clone().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads everything waiting in the non-blocking descriptor `fd`.
fn drain(fd: &OwnedFd) {
    let mut buf = [0u8; 64];
    // SAFETY: reads at most 64 bytes into the buffer, which is valid; the descriptor is
    // non-blocking.
    while unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
}

fn open_fifo(path: &std::path::Path, flags: nix::fcntl::OFlag) -> nix::Result<OwnedFd> {
    nix::fcntl::open(path, flags, nix::sys::stat::Mode::empty())
}

fn blocking(fd: &OwnedFd) -> nix::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK)).map(|_| ())
}

/// The server's replies, one line each (longer lines than [`REPLY_MAX`] dropped).
fn read_replies(mut from: impl Read, tx: &std::sync::mpsc::Sender<String>, woken: &OwnedFd) {
    let mut line = Vec::new();
    let mut buf = [0u8; 512];
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            return;
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                if line.len() <= REPLY_MAX {
                    if tx
                        .send(String::from_utf8_lossy(&line).into_owned())
                        .is_err()
                    {
                        return;
                    }
                    // SAFETY: writes one byte from a valid buffer; the descriptor is
                    // non-blocking (a full pipe already wakes its reader).
                    unsafe { libc::write(woken.as_raw_fd(), b"e".as_ptr().cast(), 1) };
                }
                line.clear();
            } else if line.len() <= REPLY_MAX {
                line.push(b);
            }
        }
    }
}

/// The server's own standard error, added to the game's being played.
fn pass_errors(mut from: impl Read, to: &Errors) {
    let mut buf = [0u8; 8192];
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            return;
        }
        let game = to.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(game) = game {
            let mut s = game.lock().unwrap_or_else(|p| p.into_inner());
            if s.stderr.len() <= OUTPUT_LIMIT * 2 {
                s.stderr.extend_from_slice(&buf[..n]);
            }
            s.last = Some(Instant::now());
        }
    }
}

/// Processor seconds used so far by the processes of group `pgid`.
fn cpu_seconds(pgid: i32) -> f64 {
    procs::cpu_seconds(&procs::group_members(pgid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_processor_time_of_a_group_is_read_off_proc() {
        // This test's own process group, after a tenth of a second of work.
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(100) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let pgid = nix::unistd::getpgrp().as_raw();
        assert!(cpu_seconds(pgid) >= 0.05, "{}", cpu_seconds(pgid));
        assert_eq!(cpu_seconds(i32::MAX), 0.0);
    }
}
