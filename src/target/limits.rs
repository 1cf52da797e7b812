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

/// Whether broadside runs as root (so it can drop privileges and cut the network).
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Runs in the child between fork and exec: only async-signal-safe system calls (setrlimit,
/// unshare, setgroups/setgid/setuid), no allocation.
///
/// As root: a new network namespace (no interface but a down loopback: no network), then
/// the unprivileged user. Errors abort the spawn (the child never runs unlimited).
pub fn apply_in_child(limits: &Limits, drop_to: Option<u32>) -> std::io::Result<()> {
    use nix::sys::resource::{Resource, setrlimit};
    let mib = |n: u64| n.saturating_mul(1024 * 1024);
    let set = |r: Resource, v: u64| setrlimit(r, v, v).map_err(std::io::Error::from);
    set(Resource::RLIMIT_CPU, limits.cpu_secs)?;
    let memory = match limits.memory_kind {
        MemoryKind::AddressSpace => Resource::RLIMIT_AS,
        MemoryKind::DataSize => Resource::RLIMIT_DATA,
    };
    set(memory, mib(limits.memory_mib))?;
    set(Resource::RLIMIT_NOFILE, limits.open_files)?;
    set(Resource::RLIMIT_FSIZE, mib(limits.file_size_mib))?;
    set(Resource::RLIMIT_CORE, 0)?;
    if let Some(uid) = drop_to {
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)?;
        set(Resource::RLIMIT_NPROC, limits.processes)?;
        let id = nix::unistd::Gid::from_raw(uid);
        nix::unistd::setgroups(&[]).map_err(std::io::Error::from)?;
        nix::unistd::setgid(id).map_err(std::io::Error::from)?;
        nix::unistd::setuid(nix::unistd::Uid::from_raw(uid)).map_err(std::io::Error::from)?;
    }
    Ok(())
}
