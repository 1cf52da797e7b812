//! One memory budget for a child's whole process tree: a memory cgroup of its own.
//!
//! `RLIMIT_AS` (or `RLIMIT_DATA`) caps each process; a submission that forks five children of
//! 850 MiB stays under it one by one. Where broadside may make a memory cgroup (as root on a
//! host whose cgroup file system is writable: cgroup v2 with the memory controller delegated
//! to broadside's own group, or the v1 memory hierarchy), each contained child gets a group of
//! its own with the same limit, entered between fork and exec, so everything the child starts
//! counts against one budget; the kernel's OOM killer ends the tree's largest process when the
//! budget is spent, and the report calls that a memory limit. Where it may not (a normal user,
//! a container with a read-only `/sys/fs/cgroup`), the per-process limit is what holds, and
//! the process limit (`RLIMIT_NPROC`, per user) bounds how many such processes there are.
//!
//! The group goes when the child does: whatever still runs in it is killed, and the group is
//! removed.

use super::procs;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A memory cgroup made for one child.
#[derive(Debug)]
pub struct MemoryGroup {
    dir: PathBuf,
    /// `cgroup.procs` of the group, for the child to write itself into before exec.
    procs: CString,
    v2: bool,
    /// The limit, in MiB, for messages.
    pub mib: u64,
}

impl MemoryGroup {
    /// A new group limited to `mib` MiB, or `None` where none can be made here (see the
    /// module's documentation for what holds then).
    pub fn new(mib: u64) -> Option<MemoryGroup> {
        if !nix::unistd::geteuid().is_root() {
            return None;
        }
        let name = format!(
            "broadside-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let bytes = mib.saturating_mul(1024 * 1024).to_string();
        if let Some(parent) = v2_parent() {
            let dir = parent.join(&name);
            if std::fs::create_dir(&dir).is_ok() {
                if std::fs::write(dir.join("memory.max"), &bytes).is_ok() {
                    let _ = std::fs::write(dir.join("memory.swap.max"), "0");
                    return MemoryGroup::made(dir, true, mib);
                }
                let _ = std::fs::remove_dir(&dir);
            }
        }
        let parent = v1_parent()?;
        let dir = parent.join(&name);
        std::fs::create_dir(&dir).ok()?;
        if std::fs::write(dir.join("memory.limit_in_bytes"), &bytes).is_err() {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        // With swap accounting, swap counts too (the file exists only then).
        let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), &bytes);
        MemoryGroup::made(dir, false, mib)
    }

    fn made(dir: PathBuf, v2: bool, mib: u64) -> Option<MemoryGroup> {
        use std::os::unix::ffi::OsStrExt;
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok()?;
        Some(MemoryGroup {
            dir,
            procs,
            v2,
            mib,
        })
    }

    /// `cgroup.procs`, for `enter` in the child.
    pub fn procs(&self) -> &CString {
        &self.procs
    }

    /// How many processes of the group the kernel killed for going over its limit.
    pub(crate) fn oom_kills(&self) -> u64 {
        let file = if self.v2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        let text = std::fs::read_to_string(self.dir.join(file)).unwrap_or_default();
        let kills = text
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        // Kernels before 4.13 count no kills in v1: a limit reached at all is the next best
        // reading.
        if kills == 0 && !self.v2 {
            return std::fs::read_to_string(self.dir.join("memory.failcnt"))
                .ok()
                .and_then(|n| n.trim().parse::<u64>().ok())
                .filter(|_| text.contains("under_oom 1"))
                .unwrap_or(0);
        }
        kills
    }

    /// Kills the processes still in the group and returns their command lines, sorted (what
    /// the child left behind, whatever its environment says), but for those in `known`.
    pub fn leftovers(&self, known: &[i32]) -> Vec<String> {
        let mut found: Vec<String> = members(&self.dir)
            .into_iter()
            .filter(|pid| !known.contains(pid))
            .map(super::procs::command_line)
            .filter(|c| !c.is_empty())
            .collect();
        self.kill_all();
        found.sort();
        found
    }

    /// Kills every process still in the group.
    pub(crate) fn kill_all(&self) {
        if self.v2 && std::fs::write(self.dir.join("cgroup.kill"), "1").is_ok() {
            return;
        }
        for _ in 0..10 {
            let pids = members(&self.dir);
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

impl Drop for MemoryGroup {
    fn drop(&mut self) {
        self.kill_all();
        // A killed process leaves the group once it is reaped; the group goes when empty.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Between fork and exec: moves the calling process into the group whose `cgroup.procs` is
/// `procs`. Only async-signal-safe calls, no allocation.
pub(crate) fn enter(procs: &CString) -> std::io::Result<()> {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    let fd = open(procs.as_c_str(), OFlag::O_WRONLY, Mode::empty())?;
    let written = nix::unistd::write(&fd, b"0");
    drop(fd);
    written.map(|_| ()).map_err(std::io::Error::from)
}

fn members(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// This process's group in the cgroup v2 hierarchy, if the memory controller is enabled for
/// its children there (or can be: only where the group holds no process, or is the root).
fn v2_parent() -> Option<PathBuf> {
    let mount = procs::mount_of("cgroup2", None)?;
    let own = procs::own_cgroup(Some(0), None)?;
    let dir = mount.join(own.trim_start_matches('/'));
    let controllers = std::fs::read_to_string(dir.join("cgroup.controllers")).ok()?;
    if !controllers.split_whitespace().any(|c| c == "memory") {
        return None;
    }
    let enabled = |d: &Path| {
        std::fs::read_to_string(d.join("cgroup.subtree_control"))
            .is_ok_and(|t| t.split_whitespace().any(|c| c == "memory"))
    };
    if !enabled(&dir) {
        let _ = std::fs::write(dir.join("cgroup.subtree_control"), "+memory");
    }
    enabled(&dir).then_some(dir)
}

/// This process's group in the cgroup v1 memory hierarchy.
fn v1_parent() -> Option<PathBuf> {
    let mount = procs::mount_of("cgroup", Some("memory"))?;
    let own = procs::own_cgroup(None, Some("memory"))?;
    Some(mount.join(own.trim_start_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_holds_its_limit_and_goes_when_dropped() {
        let Some(group) = MemoryGroup::new(64) else {
            // Not root, or no writable cgroup file system: nothing to check here (the hostile
            // test of the whole tree says whether CI's machine has one).
            return;
        };
        let dir = group.dir.clone();
        let file = if group.v2 {
            "memory.max"
        } else {
            "memory.limit_in_bytes"
        };
        let limit = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(limit.trim(), (64u64 * 1024 * 1024).to_string());
        assert_eq!(group.oom_kills(), 0);
        drop(group);
        assert!(!dir.exists(), "{dir:?} was left behind");
    }
}
