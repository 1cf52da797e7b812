//! What a session of a whole program and a game server share: how a child ended, its
//! output so far, the pipe its launcher announces reads on. Below both, so neither names
//! the other to get them.

use crate::target::procs;
use process_wrap::std::ChildWrapper;
use std::time::{Duration, Instant};

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
pub(super) struct Shared {
    /// Everything printed on standard output so far.
    pub(super) text: Vec<u8>,
    /// Standard error alone (for tracebacks and exceptions).
    pub(super) stderr: Vec<u8>,
    pub(super) last: Option<Instant>,
}

/// A pipe for a launcher's read announcements: both ends non-blocking (a program that
/// announces faster than broadside reads loses announcements, never waits) and the write end
/// closed on exec (the child gets its own copy as descriptor 3); `None` if none can be made.
pub(super) fn announcement_pipe() -> Option<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let (r, w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).ok()?;
    fcntl(&r, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).ok()?;
    fcntl(&w, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).ok()?;
    Some((r, w))
}

/// Whether process `pid` has ended and waits to be reaped (or is gone).
fn is_zombie(pid: i32) -> bool {
    procs::state(pid).is_none_or(|s| s == 'Z' || s == 'X')
}

/// How a process of its own ended, if it has: its first process exited (what it left
/// running in its group is killed, its command lines put in `left`).
pub(super) fn ended(
    child: &mut dyn ChildWrapper,
    pgid: i32,
    left: &mut Vec<String>,
) -> Option<Waited> {
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use std::os::unix::process::ExitStatusExt;
    let w = match child.try_wait() {
        Ok(Some(status)) => Waited::Exited {
            code: status.code(),
            signal: status.signal(),
        },
        // Waiting on the group waits for all its members: the first one may have ended
        // while something it started runs on. Reap it, and kill the rest (a leak).
        _ if is_zombie(pgid) => {
            *left = procs::group_members(pgid)
                .into_iter()
                .filter(|&p| p != pgid)
                .map(procs::command_line)
                .filter(|c| !c.is_empty())
                .collect();
            let leader = nix::unistd::Pid::from_raw(pgid);
            // A leader shows as a zombie while the process's other threads still exit: it
            // can be waited for only once they have, so wait a little for its status before
            // anything is killed (which would make its end a SIGKILL, or lose it).
            let deadline = Instant::now() + Duration::from_millis(200);
            let mut status = waitpid(leader, Some(WaitPidFlag::WNOHANG));
            while matches!(status, Ok(WaitStatus::StillAlive)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
                status = waitpid(leader, Some(WaitPidFlag::WNOHANG));
            }
            let _ = nix::sys::signal::killpg(leader, nix::sys::signal::Signal::SIGKILL);
            match status {
                Ok(WaitStatus::Exited(_, code)) => Waited::Exited {
                    code: Some(code),
                    signal: None,
                },
                Ok(WaitStatus::Signaled(_, sig, _)) => Waited::Exited {
                    code: None,
                    signal: Some(sig as i32),
                },
                // Already reaped: how it ended is not known; a clean end is assumed.
                _ => Waited::Exited {
                    code: None,
                    signal: None,
                },
            }
        }
        _ => return None,
    };
    Some(w)
}
