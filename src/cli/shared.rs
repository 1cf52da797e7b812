//! What the commands share: colour, printing diagnostics, the bundled specs with those
//! given, the hidden-scenario warning, transcripts.

use crate::Error;
use broadside::load;
use camino::Utf8PathBuf;
use std::io::{IsTerminal, Write};

/// Whether output to a stream is coloured: as `--color` says, or with `auto` on a terminal
/// when NO_COLOR is unset or empty.
pub(crate) fn color_for(stream_is_terminal: bool) -> bool {
    match anstream::ColorChoice::global() {
        anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi => true,
        anstream::ColorChoice::Never => false,
        anstream::ColorChoice::Auto => {
            stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// The bundled specs with `extra` spec files added.
///
/// Errors: [`Error::Diagnostics`] of the spec files that do not load.
pub(crate) fn specs_or_diagnostics(
    extra: &[Utf8PathBuf],
) -> Result<broadside::spec::SpecSet, Error> {
    load::specs(extra).map_err(Error::Diagnostics)
}

pub(crate) fn print_diagnostics(errors: &[broadside::diag::Diagnostic]) {
    let color = color_for(std::io::stderr().is_terminal());
    let mut err = anstream::stderr();
    for d in errors {
        let _ = writeln!(err, "{}", d.render(color));
    }
    let _ = writeln!(err, "{} found", plural(errors.len(), "problem", "problems"));
}

/// Warns about hidden scenarios that other users can read: a child runs as another user, and
/// a file it can read is a file it can search for expected outcomes.
pub(crate) fn warn_readable_hidden(scenarios: &[broadside::scenario::Scenario]) {
    use std::os::unix::fs::PermissionsExt;
    for s in scenarios
        .iter()
        .filter(|s| s.visibility != broadside::scenario::Visibility::Visible)
    {
        let path = std::path::Path::new(&s.source.path);
        // Readable by others: the file has the others-read bit and every folder above it the
        // others-search bit.
        let Ok(abs) = std::fs::canonicalize(path) else {
            continue;
        };
        let mode = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.permissions().mode());
        let open = mode(&abs) & 0o004 != 0 && abs.ancestors().skip(1).all(|d| mode(d) & 0o001 != 0);
        if open {
            let jailed = if broadside::target::limits::namespaces_available() {
                "python:, haskell:, native: and java: targets run jailed, but a cmd: or exec: program sees what other users may read"
            } else {
                "this machine gives broadside no namespaces, so no target is jailed: student code sees what other users may read"
            };
            let _ = writeln!(
                anstream::stderr(),
                "warning: hidden scenario {} is readable by other users; {jailed}: keep hidden suites in a folder only the grader can read (chmod 700)",
                s.source.path
            );
        }
    }
}

pub(crate) fn joined(paths: &[Utf8PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `1 spec`, `2 specs`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The transcripts' folder `dir` (`--transcript`), created if missing.
///
/// Errors: [`Error::Grader`] when it cannot be created.
pub(crate) fn transcript_sink(
    dir: &camino::Utf8Path,
) -> Result<broadside::dialogue::transcript::TranscriptSink, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Grader(format!("failed to create the transcript folder {dir}: {e}")))?;
    Ok(broadside::dialogue::transcript::TranscriptSink::new(
        dir.as_std_path(),
        "",
    ))
}

/// Warns on standard error of each transcript that could not be written.
pub(crate) fn warn_transcripts(sink: &broadside::dialogue::transcript::TranscriptSink) {
    for f in sink.failures() {
        let _ = writeln!(anstream::stderr(), "warning: transcript: {f}");
    }
}
