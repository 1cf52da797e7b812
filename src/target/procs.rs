//! The machine's processes as `/proc` shows them, read through the `procfs` crate: who is
//! running, their command lines, states, groups, users, environments and processor time,
//! and this process's cgroups and mounts. Every reader here answers "nothing" for a process
//! that has gone (or was never readable), never an error: a process may end between two
//! looks.

use procfs::process::Process;
use std::path::PathBuf;

/// Every process of the machine that can still be read.
pub fn all() -> Vec<Process> {
    procfs::process::all_processes()
        .map(|it| it.flatten().collect())
        .unwrap_or_default()
}

/// A process's command line, its arguments joined by spaces (empty for a zombie or a
/// process gone).
pub(crate) fn command_line(pid: i32) -> String {
    Process::new(pid).map(|p| line_of(&p)).unwrap_or_default()
}

/// `command_line` of a process already found.
pub fn line_of(p: &Process) -> String {
    p.cmdline()
        .map(|args| args.join(" ").trim().to_string())
        .unwrap_or_default()
}

/// A process's state letter (`R` running, `S` sleeping, `Z` a zombie...); `None` once it
/// is gone.
pub fn state(pid: i32) -> Option<char> {
    Process::new(pid).ok()?.stat().ok().map(|s| s.state)
}

/// The processes of process group `pgid`.
pub(crate) fn group_members(pgid: i32) -> Vec<i32> {
    all()
        .into_iter()
        .filter(|p| p.stat().is_ok_and(|s| s.pgrp == pgid))
        .map(|p| p.pid)
        .collect()
}

/// Processor seconds (user and system) that `pids` have used so far.
pub(crate) fn cpu_seconds(pids: &[i32]) -> f64 {
    let ticks = procfs::ticks_per_second().max(1) as f64;
    pids.iter()
        .filter_map(|pid| Process::new(*pid).ok()?.stat().ok())
        .map(|s| (s.utime + s.stime) as f64)
        .sum::<f64>()
        / ticks
}

/// A process's real user.
pub(crate) fn real_uid(p: &Process) -> Option<u32> {
    p.status().ok().map(|s| s.ruid)
}

/// Whether an entry of a process's environment, as `NAME=value` bytes, is one `matches`
/// accepts (`false` when it cannot be read).
pub(crate) fn environment_has(p: &Process, matches: impl Fn(&[u8]) -> bool) -> bool {
    use std::os::unix::ffi::OsStrExt;
    p.environ().is_ok_and(|env| {
        env.iter().any(|(name, value)| {
            let mut entry = name.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            matches(&entry)
        })
    })
}

/// The threads of process `pid`: each one's state letter (`None`: unreadable) and its
/// `/proc` folder, for the files `procfs` does not read (`syscall`).
pub fn threads(pid: i32) -> Vec<(Option<char>, PathBuf)> {
    let Ok(tasks) = Process::new(pid).and_then(|p| p.tasks()) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .map(|t| {
            let dir = PathBuf::from(format!("/proc/{pid}/task/{}", t.tid));
            (t.stat().ok().map(|s| s.state), dir)
        })
        .collect()
}

/// This process's cgroup in hierarchy `hierarchy` (0: the v2 one) whose controllers
/// include `controller` (any, for `None`): its path there.
pub(crate) fn own_cgroup(hierarchy: Option<u32>, controller: Option<&str>) -> Option<String> {
    let groups = Process::myself().ok()?.cgroups().ok()?;
    groups
        .into_iter()
        .find(|g| {
            hierarchy.is_none_or(|h| g.hierarchy == h)
                && controller.is_none_or(|c| g.controllers.iter().any(|x| x == c))
        })
        .map(|g| g.pathname)
}

/// Where a file system of type `fstype` is mounted (with `option` among its super options,
/// for cgroup v1's per-controller mounts), as this process sees the mounts.
pub(crate) fn mount_of(fstype: &str, option: Option<&str>) -> Option<PathBuf> {
    let mounts = Process::myself().ok()?.mountinfo().ok()?;
    mounts
        .into_iter()
        .find(|m| m.fs_type == fstype && option.is_none_or(|o| m.super_options.contains_key(o)))
        .map(|m| m.mount_point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_seen_with_its_command_line_state_group_and_threads() {
        let me = std::process::id() as i32;
        assert!(all().iter().any(|p| p.pid == me));
        assert!(
            command_line(me).contains("broadside"),
            "{}",
            command_line(me)
        );
        assert!(matches!(state(me), Some('R' | 'S')), "{:?}", state(me));
        let pgid = nix::unistd::getpgrp().as_raw();
        assert!(group_members(pgid).contains(&me));
        assert!(!threads(me).is_empty());
        // This test's own thread (others of the test binary may end meanwhile) is listed,
        // with the file that says which system call it is in.
        let tid = nix::unistd::gettid().as_raw().to_string();
        assert!(
            threads(me)
                .iter()
                .any(|(_, dir)| dir.ends_with(&tid) && dir.join("syscall").exists()),
            "{tid}"
        );
        let p = Process::myself().unwrap();
        assert_eq!(real_uid(&p), Some(nix::unistd::getuid().as_raw()));
        let path = std::env::var("PATH").unwrap_or_default();
        assert!(environment_has(&p, |kv| kv == format!("PATH={path}").as_bytes()));
        assert!(!environment_has(&p, |kv| kv == b"NO_SUCH_NAME=1"));
    }

    #[test]
    fn a_process_gone_has_nothing_to_read() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        child.wait().unwrap();
        assert_eq!(command_line(pid), "");
        assert_eq!(state(pid), None);
        assert!(threads(pid).is_empty());
        assert_eq!(cpu_seconds(&[pid]), 0.0);
    }
}
