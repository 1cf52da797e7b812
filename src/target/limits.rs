//! Limits and isolation for every child: resource limits set between fork and exec, an
//! unprivileged user and no network when broadside runs as root.

use std::time::Duration;

/// What a submission's child may use. Defaults suit coursework (a Python function suite
/// finishes in well under a second of CPU and a few tens of megabytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// CPU seconds for the child's whole life (RLIMIT_CPU; SIGXCPU past it).
    pub cpu_secs: u64,
    /// Memory in MiB: address space (RLIMIT_AS) or data size (RLIMIT_DATA), as `memory_kind`
    /// says.
    pub memory_mib: u64,
    /// Which limit bounds memory; see [`Profile`].
    pub memory_kind: MemoryKind,
    /// Open file descriptors (RLIMIT_NOFILE).
    pub open_files: u64,
    /// Largest file the child may write, in MiB (RLIMIT_FSIZE; SIGXFSZ past it).
    pub file_size_mib: u64,
    /// Processes of the child's user (RLIMIT_NPROC). It binds only when the child runs as an
    /// unprivileged user, which broadside arranges when it runs as root.
    pub processes: u64,
    /// Wall-clock time for one request.
    pub request_timeout: Duration,
    /// Wall-clock time for one scenario's batch.
    pub scenario_timeout: Duration,
    /// Wall-clock time for the whole submission: once it is used up, the scenarios not yet
    /// played are not run (a scenario under way may finish, within `scenario_timeout`).
    pub submission_timeout: Duration,
    /// The third-party Python packages the course allows and where they are installed
    /// (`python_packages` in suite.toml; see [`super::packages`]); `None` when no suite
    /// lists any. Only Python children use it.
    pub python_packages: Option<std::sync::Arc<super::packages::PythonPackages>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            cpu_secs: 60,
            memory_mib: 1024,
            memory_kind: MemoryKind::AddressSpace,
            open_files: 64,
            file_size_mib: 16,
            processes: 64,
            request_timeout: Duration::from_secs(5),
            scenario_timeout: Duration::from_secs(30),
            // Generous: a whole battleboats suite of Java dialogues takes seconds.
            submission_timeout: Duration::from_secs(600),
            python_packages: None,
        }
    }
}

/// How a child's memory is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// RLIMIT_AS: every mapping counts (right for CPython).
    AddressSpace,
    /// RLIMIT_DATA: what the process really allocates; for runtimes that reserve large address
    /// ranges up front (a JVM's heap reservation, GHC's two-terabyte block), which an
    /// address-space limit would stop at start-up.
    DataSize,
}

/// Per-language defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Python,
    /// A JVM (javac, java): data-size limit and more memory.
    Jvm,
    /// A GHC-compiled program: data-size limit.
    Ghc,
}

impl Limits {
    /// The defaults for a language's runtime.
    pub fn for_profile(profile: Profile) -> Limits {
        match profile {
            Profile::Python => Limits::default(),
            Profile::Jvm => Limits {
                memory_mib: 2048,
                memory_kind: MemoryKind::DataSize,
                ..Limits::default()
            },
            Profile::Ghc => Limits {
                memory_kind: MemoryKind::DataSize,
                ..Limits::default()
            },
        }
    }
}

/// The unprivileged user children run as when broadside runs as root (`nobody`).
pub const NOBODY: u32 = 65534;

/// The first of the users `grade` runs its job slots' children as: each `grade` run claims a
/// block of [`UID_BLOCK`] users from here ([`claim_uid_block`]) and slot `i` runs as the
/// block's first plus `i`: users of their own, so the process limit (counted per user) of
/// one submission never counts another's processes, and what is left running as a slot's
/// user after a submission is that submission's. They need no entry in `/etc/passwd`.
pub(crate) const GRADE_UID_BASE: u32 = 61000;

/// Users per `grade` run (the most job slots a run may have).
pub(crate) const UID_BLOCK: u32 = 256;

/// How many `grade` runs may hold a block of users at once.
const UID_BLOCKS: u32 = 64;

/// A block of users claimed by this `grade` run; released when dropped (or when the process
/// ends, however it ends: the claim is a lock on an open file).
pub struct UidBlock {
    /// The block's first user.
    pub base: u32,
    _lock: std::fs::File,
}

/// Claims a block of users no other running `grade` holds.
///
/// Errors: every block is held, or no lock file can be made.
pub fn claim_uid_block() -> std::io::Result<UidBlock> {
    use std::os::unix::fs::PermissionsExt;
    // A folder only root can write when root (children run as other users and, without
    // namespaces, share /tmp), the temporary folder otherwise.
    let dir = if running_as_root() {
        let d = std::path::PathBuf::from("/run/broadside");
        if std::fs::create_dir_all(&d).is_ok() {
            let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700));
            d
        } else {
            std::env::temp_dir()
        }
    } else {
        std::env::temp_dir()
    };
    for k in 0..UID_BLOCKS {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!("broadside-users-{k}.lock")))?;
        if file.try_lock().is_ok() {
            return Ok(UidBlock {
                base: GRADE_UID_BASE + k * UID_BLOCK,
                _lock: file,
            });
        }
    }
    Err(std::io::Error::other(format!(
        "{UID_BLOCKS} grade runs are already running on this machine"
    )))
}

/// Whether broadside runs as root (so it can drop privileges and cut the network).
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Whether children can get namespaces of their own (no network, a private root). Root in an
/// unprivileged container (Docker's default seccomp profile, as on Gradescope) often cannot;
/// broadside then still drops to an unprivileged user and applies every limit, and the report
/// says what was not isolated. Probed once by starting `/bin/sh` in new namespaces;
/// `BROADSIDE_NO_NAMESPACES=1` forces the fallback (to test it).
pub fn namespaces_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        use std::os::unix::process::CommandExt;
        if std::env::var_os("BROADSIDE_NO_NAMESPACES").is_some_and(|v| v == "1") {
            return false;
        }
        if !running_as_root() {
            return false;
        }
        let mut probe = std::process::Command::new("/bin/sh");
        probe
            .args(["-c", "exit 0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: unshare is async-signal-safe and nothing here allocates.
        unsafe {
            probe.pre_exec(|| {
                use nix::sched::CloneFlags;
                nix::sched::unshare(
                    CloneFlags::CLONE_NEWNET | CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWIPC,
                )
                .map_err(std::io::Error::from)
            });
        }
        probe.status().is_ok_and(|s| s.success())
    })
}

/// Runs in the child between fork and exec: only async-signal-safe system calls (setrlimit,
/// unshare, setgroups/setgid/setuid), no allocation.
///
/// As root: a new network namespace (no interface but a down loopback: no network) when
/// [`namespaces_available`], the [`Jail`] if there is one, then the unprivileged user. Errors abort the spawn (the child
/// never runs unlimited).
///
/// `namespaces` is [`namespaces_available`], read by the parent (the child must not
/// allocate); without it there is no jail either.
pub(crate) fn apply_in_child(
    limits: &Limits,
    drop_to: Option<u32>,
    namespaces: bool,
    jail: Option<&Jail>,
) -> std::io::Result<()> {
    let jail = jail.filter(|_| namespaces);
    use nix::sys::resource::{Resource, setrlimit};
    let mib = |n: u64| n.saturating_mul(1024 * 1024);
    let set = |r: Resource, v: u64| setrlimit(r, v, v).map_err(std::io::Error::from);
    // The soft limit sends SIGXCPU, which the report calls a CPU limit; the hard one, two
    // seconds later, is SIGKILL for a program that catches SIGXCPU.
    setrlimit(
        Resource::RLIMIT_CPU,
        limits.cpu_secs,
        limits.cpu_secs.saturating_add(2),
    )
    .map_err(std::io::Error::from)?;
    let memory = match limits.memory_kind {
        MemoryKind::AddressSpace => Resource::RLIMIT_AS,
        MemoryKind::DataSize => Resource::RLIMIT_DATA,
    };
    set(memory, mib(limits.memory_mib))?;
    set(Resource::RLIMIT_NOFILE, limits.open_files)?;
    set(Resource::RLIMIT_FSIZE, mib(limits.file_size_mib))?;
    set(Resource::RLIMIT_CORE, 0)?;
    if let Some(uid) = drop_to {
        use nix::mount::{MsFlags, mount};
        use nix::sched::CloneFlags;
        let io = std::io::Error::from;
        // No network; System V shared memory and message queues of its own, gone with its
        // last process; and mounts of its own, for a private /dev/shm.
        let flags = CloneFlags::CLONE_NEWNET | CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWIPC;
        // An empty /dev/shm of the child's own, so nothing written there reaches another
        // submission or outlives this one (best effort: a host without /dev/shm has none).
        let private_shm = |at: &std::ffi::CStr| {
            let _ = mount(
                Some("tmpfs"),
                at,
                Some("tmpfs"),
                MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
                Some("size=64m,mode=1777"),
            );
        };
        if namespaces {
            nix::sched::unshare(flags).map_err(io)?;
            // Mounts made here stay in the child's namespace.
            mount(
                None::<&str>,
                "/",
                None::<&str>,
                MsFlags::MS_REC | MsFlags::MS_PRIVATE,
                None::<&str>,
            )
            .map_err(io)?;
            if jail.is_none() {
                private_shm(c"/dev/shm");
            }
        }
        if let Some(jail) = jail {
            for (host, inside) in &jail.binds {
                mount(
                    Some(host.as_c_str()),
                    inside.as_c_str(),
                    None::<&str>,
                    MsFlags::MS_BIND | MsFlags::MS_REC,
                    None::<&str>,
                )
                .map_err(io)?;
            }
            private_shm(jail.shm.as_c_str());
            nix::unistd::chroot(jail.root.as_c_str()).map_err(io)?;
            nix::unistd::chdir(jail.workdir.as_c_str()).map_err(io)?;
        }
        set(Resource::RLIMIT_NPROC, limits.processes)?;
        let id = nix::unistd::Gid::from_raw(uid);
        nix::unistd::setgroups(&[]).map_err(std::io::Error::from)?;
        nix::unistd::setgid(id).map_err(std::io::Error::from)?;
        nix::unistd::setuid(nix::unistd::Uid::from_raw(uid)).map_err(std::io::Error::from)?;
    }
    // If broadside dies (killed, or a second Ctrl-C), the child dies with it rather than
    // spin on as an orphan. Set last: a change of user clears it.
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(std::io::Error::from)?;
    Ok(())
}

/// A private root a child is locked into (as root only): the system's program folders
/// (`/usr`, `/bin`, `/lib`…, `/etc`) and `/dev` bound in, an empty `/tmp`, and `/box` with
/// the submission. Nothing else of the machine (suites, specs, other submissions, homes) is
/// visible, whatever its permissions.
#[derive(Debug, Clone)]
pub struct Jail {
    root: std::ffi::CString,
    /// `dev/shm` under `root`, where the child's own tmpfs goes.
    shm: std::ffi::CString,
    binds: Vec<(std::ffi::CString, std::ffi::CString)>,
    workdir: std::ffi::CString,
}

/// The host folders a jail shows (where they exist), as symlinks where the host has them.
const SYSTEM: [&str; 9] = [
    "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev",
];

impl Jail {
    /// Prepares `root` (a folder broadside owns, created empty) in the parent process, with
    /// `workdir` (a path inside the jail, e.g. `/box/work`) as the child's working folder.
    /// The binds themselves happen in the child, between fork and exec. `extra` are more host
    /// folders shown at the same paths (a compiler's files outside the system folders, e.g.
    /// GHC's package database under `/var/lib`); paths that are not absolute folders are
    /// skipped.
    pub(crate) fn prepare(
        root: &std::path::Path,
        workdir: &str,
        extra: &[std::path::PathBuf],
    ) -> std::io::Result<Jail> {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::PermissionsExt;
        let c = |p: &std::path::Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
        };
        let mut binds = Vec::new();
        for name in SYSTEM {
            let host = std::path::Path::new("/").join(name);
            let inside = root.join(name);
            match std::fs::symlink_metadata(&host) {
                Ok(m) if m.file_type().is_symlink() => {
                    std::os::unix::fs::symlink(std::fs::read_link(&host)?, &inside)?;
                }
                Ok(m) if m.is_dir() => {
                    std::fs::create_dir(&inside)?;
                    binds.push((c(&host)?, c(&inside)?));
                }
                _ => {}
            }
        }
        let tmp = root.join("tmp");
        std::fs::create_dir(&tmp)?;
        for host in extra {
            if !host.is_absolute() || !host.is_dir() {
                continue;
            }
            let inside = root.join(host.strip_prefix("/").unwrap_or(host));
            std::fs::create_dir_all(&inside)?;
            binds.push((c(host)?, c(&inside)?));
        }
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777))?;
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755))?;
        Ok(Jail {
            root: c(root)?,
            shm: c(&root.join("dev/shm"))?,
            binds,
            workdir: c(std::path::Path::new(workdir))?,
        })
    }
}
