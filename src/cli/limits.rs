//! The child limits every grading command takes as flags (`--timeout`, `--memory-mib`...).

use broadside::suite::{SuiteLimits, ranges};
use broadside::target::limits::Limits;

/// Limits of a child target; a flag wins over the suite's `[limits]`, which wins over the
/// defaults. Values outside `broadside::suite::ranges` are refused.
#[derive(clap::Args)]
pub(crate) struct LimitArgs {
    /// Seconds one request to a child target may take, 0.05 to 3600 [default: 5, or the
    /// suite's].
    #[arg(long, value_parser = secs)]
    timeout: Option<f64>,
    /// Seconds one scenario may take in a child target, 0.05 to 3600 [default: 30, or the
    /// suite's].
    #[arg(long, value_parser = secs)]
    scenario_timeout: Option<f64>,
    /// Seconds a whole submission may take, 1 to 86400; the scenarios not played by then are
    /// not run [default: 600, or the suite's].
    #[arg(long, value_parser = submission_secs)]
    submission_timeout: Option<f64>,
    /// Memory of a child target, in MiB [default: 1024, or the suite's].
    #[arg(long, value_parser = in_range(ranges::MEMORY_MIB))]
    memory_mib: Option<u64>,
    /// CPU seconds of a child target over its whole life [default: 60, or the suite's].
    #[arg(long, value_parser = in_range(ranges::CPU_SECS))]
    cpu_secs: Option<u64>,
    /// Open files of a child target [default: 64, or the suite's].
    #[arg(long, value_parser = in_range(ranges::OPEN_FILES))]
    open_files: Option<u64>,
    /// Largest file a child target may write, in MiB [default: 16, or the suite's].
    #[arg(long, value_parser = in_range(ranges::FILE_SIZE_MIB))]
    file_size_mib: Option<u64>,
    /// Processes a child target may run [default: 64, or the suite's].
    #[arg(long, value_parser = in_range(ranges::PROCESSES))]
    processes: Option<u64>,
}

/// A clap parser for a whole number in `lo..=hi`.
pub(crate) fn in_range((lo, hi): (u64, u64)) -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(lo..=hi)
}

/// Seconds in `ranges::SUBMISSION_SECS`.
// A string error, here and in the two below: a clap value parser's, shown by clap as the
// flag's error.
pub(crate) fn submission_secs(s: &str) -> Result<f64, String> {
    secs_in(s, ranges::SUBMISSION_SECS)
}

/// Seconds in `ranges::SECS`.
pub(crate) fn secs(s: &str) -> Result<f64, String> {
    secs_in(s, ranges::SECS)
}

/// Seconds from `lo` to `hi`.
pub(crate) fn secs_in(s: &str, (lo, hi): (f64, f64)) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!("expected seconds from {lo} to {hi}")),
    }
}

impl LimitArgs {
    /// The limits to use: these flags, else the suite's, else the defaults (both already
    /// checked against their ranges).
    pub(crate) fn limits(&self, suite: &SuiteLimits) -> Limits {
        let base = Limits::default();
        let get = |v: &Option<toml::Spanned<u64>>| v.as_ref().map(|v| *v.get_ref());
        let getf = |v: &Option<toml::Spanned<f64>>| v.as_ref().map(|v| *v.get_ref());
        let secs = |s: Option<f64>, default: std::time::Duration| {
            s.map_or(default, std::time::Duration::from_secs_f64)
        };
        Limits {
            request_timeout: secs(
                self.timeout.or(getf(&suite.timeout_secs)),
                base.request_timeout,
            ),
            scenario_timeout: secs(
                self.scenario_timeout.or(getf(&suite.scenario_timeout_secs)),
                base.scenario_timeout,
            ),
            submission_timeout: secs(
                self.submission_timeout
                    .or(getf(&suite.submission_timeout_secs)),
                base.submission_timeout,
            ),
            memory_mib: self
                .memory_mib
                .or(get(&suite.memory_mib))
                .unwrap_or(base.memory_mib),
            cpu_secs: self
                .cpu_secs
                .or(get(&suite.cpu_secs))
                .unwrap_or(base.cpu_secs),
            open_files: self
                .open_files
                .or(get(&suite.open_files))
                .unwrap_or(base.open_files),
            file_size_mib: self
                .file_size_mib
                .or(get(&suite.file_size_mib))
                .unwrap_or(base.file_size_mib),
            processes: self
                .processes
                .or(get(&suite.processes))
                .unwrap_or(base.processes),
            ..base
        }
    }
}

/// Installs the third-party Python packages the suites allow (`python_packages`), once and
/// before anything is graded, when a Python submission is graded (`python`), and sets them in
/// `limits` for every child. A package that cannot be installed is broadside's failure: nothing
/// is graded, so no student gets a zero for it.
pub(crate) fn provide_python_packages(
    suites: &broadside::suite::Suites,
    python: bool,
    limits: &mut Limits,
) -> Result<(), crate::Error> {
    let allowed = suites.python_packages();
    if !python || allowed.is_empty() {
        return Ok(());
    }
    let provided = broadside::target::packages::provide(&allowed)?;
    limits.python_packages = Some(std::sync::Arc::new(provided));
    Ok(())
}
