//! `broadside autograder`: the Gradescope autograder zip for a course's suites — this
//! broadside binary, the suites, a `setup.sh` that installs what the assignment's language
//! needs and a `run_autograder` that writes `/autograder/results/results.json`.
//!
//! Gradescope's layout (its "Autograder Specifications"): the zip is unpacked into
//! `/autograder/source`, `setup.sh` runs once when the image is built, and for each
//! submission `/autograder/run_autograder` (copied from the source folder by Gradescope's
//! harness) runs with the student's files in `/autograder/submission`. Gradescope does not
//! create `/autograder/results`: the script does. Its standard output is the instructors'
//! "Autograder Output" box: broadside's one-line summary goes there.

use super::joined;
use crate::{Error, exit};
use camino::{Utf8Path, Utf8PathBuf};
use std::io::Write;

/// The flags of `broadside autograder`.
#[derive(clap::Args)]
pub struct AutograderArgs {
    /// A folder of scenarios, with an optional suite.toml; may repeat (e.g. published and
    /// hidden).
    #[arg(long = "suite", required = true)]
    suites: Vec<Utf8PathBuf>,
    /// The zip to write, e.g. `autograder.zip`.
    #[arg(long)]
    out: Utf8PathBuf,
    /// How to run the submission, with `{}` for its folder [default: `python:{}`,
    /// `haskell:{}` or `java:{}` by the assignment's language].
    #[arg(long)]
    target: Option<String>,
    /// Extra spec files that scenarios may name; may repeat (packed beside the suites).
    #[arg(long = "spec")]
    specs: Vec<Utf8PathBuf>,
}

/// `broadside autograder`.
pub fn autograder(args: AutograderArgs) -> Result<u8, Error> {
    let (specs, loaded, suites) = super::grade::load_suites_checked(&args.suites, &args.specs)?;
    let python_packages = suites.python_packages();
    if loaded.scenarios.is_empty() {
        return Err(Error::Input(format!(
            "no scenarios found under {}",
            joined(&args.suites)
        )));
    }
    let template =
        super::grade::template_or_default(args.target.as_deref(), &loaded.scenarios, &specs)?;
    // One suite is packed as `suites/`; several as `suites/<folder name>`.
    let mut packed: Vec<(Utf8PathBuf, String)> = Vec::new();
    for dir in &args.suites {
        let name = match args.suites.len() {
            1 => "suites".to_string(),
            _ => format!(
                "suites/{}",
                dir.canonicalize_utf8()
                    .ok()
                    .and_then(|d| d.file_name().map(str::to_string))
                    .unwrap_or_else(|| "suite".into())
            ),
        };
        if packed.iter().any(|(_, n)| *n == name) {
            return Err(Error::Input(format!(
                "two suites are named `{name}`; give them folders of different names"
            )));
        }
        packed.push((dir.clone(), name));
    }
    let languages: std::collections::BTreeSet<String> = loaded
        .scenarios
        .iter()
        .filter_map(|s| {
            specs
                .get(&s.assignment)
                .map(|spec| spec.language.name().to_string())
        })
        .collect();
    let spec_names: Vec<String> = args
        .specs
        .iter()
        .map(|s| format!("specs/{}", s.file_name().unwrap_or("spec.toml")))
        .collect();
    let paths: Vec<&str> = packed.iter().map(|(_, n)| n.as_str()).collect();
    let run = run_autograder(&template, &paths, &spec_names, !python_packages.is_empty());
    let setup = setup_sh(&template, &languages, &python_packages);
    write_zip(&args.out, &packed, &args.specs, &spec_names, &setup, &run)
        .map_err(|e| Error::input(format_args!("failed to write {}", args.out), &*e))?;
    let _ = writeln!(
        anstream::stderr(),
        "wrote {}: broadside, setup.sh, run_autograder and {} ({} scenarios); upload it as the assignment's autograder and set its points to the suites' total",
        args.out,
        paths.join(", "),
        loaded.scenarios.len()
    );
    Ok(exit::PASSED)
}

/// The `run_autograder` script. `AUTOGRADER_ROOT` (default `/autograder`) lets a test lay the
/// folders out elsewhere.
///
/// With `packages` (the suites allow third-party Python packages), broadside takes them from
/// the folder `setup.sh` installed them in, `source/python-packages`, and installs nothing.
fn run_autograder(template: &str, suites: &[&str], specs: &[String], packages: bool) -> String {
    let target = template.replace("{}", "$root/submission");
    let spec_flags: String = specs.iter().map(|s| format!(" --spec {s}")).collect();
    let packages = if packages {
        "# The suites' python_packages, installed by setup.sh when the image was built.\nexport BROADSIDE_PYTHON_PACKAGES_DIR=\"$root/source/python-packages\"\n"
    } else {
        ""
    };
    format!(
        r#"#!/bin/sh
# Made by `broadside autograder`. Gradescope runs it with the student's files in
# /autograder/submission and reads /autograder/results/results.json.
root="${{AUTOGRADER_ROOT:-/autograder}}"
mkdir -p "$root/results"
cd "$root/source" || exit 2
# Gradescope's container gives no namespaces, so student code is not jailed there: the
# suites are readable by root only (the student's code runs as an unprivileged user).
chmod -R go-rwx suites
{packages}./broadside run {suites}{spec_flags} \
  --target "{target}" \
  --format gradescope --out "$root/results/results.json"
status=$?
# 0 and 1 are a score (all passed, some failed); anything else is the grader's failure,
# which Gradescope shows as an autograder error instead of a zero.
[ "$status" -le 1 ] && exit 0
exit "$status"
"#,
        suites = suites.join(" "),
    )
}

/// The `setup.sh` script: the packages the target kind and the assignments' languages need,
/// and the third-party Python packages the suites allow (`python_packages`), installed with
/// pip into `/autograder/source/python-packages` once, when the image is built (never while
/// a student's code runs), readable by the user the student's code runs as.
fn setup_sh(
    template: &str,
    languages: &std::collections::BTreeSet<String>,
    python_packages: &[String],
) -> String {
    let mut packages: Vec<&str> = Vec::new();
    let kind = template.split(':').next().unwrap_or_default();
    for need in languages.iter().map(String::as_str).chain([kind]) {
        let more: &[&str] = match need {
            "python" => &["python3"],
            "haskell" => &["ghc"],
            "java" => &["openjdk-17-jdk-headless"],
            "native" => &["gcc", "make"],
            _ => &[],
        };
        for p in more {
            if !packages.contains(p) {
                packages.push(p);
            }
        }
    }
    let mut pip = String::new();
    if !python_packages.is_empty() {
        packages.push("python3-pip");
        let quoted: Vec<String> = python_packages
            .iter()
            .map(|p| {
                shlex::try_quote(p)
                    .map(|q| q.into_owned())
                    .unwrap_or_else(|_| p.clone())
            })
            .collect();
        pip = format!(
            "# The third-party packages the suites allow (suite.toml's python_packages).\npython3 -m pip install --no-input --disable-pip-version-check --no-warn-script-location --target /autograder/source/python-packages -- {}\nchmod -R a+rX /autograder/source/python-packages\n",
            quoted.join(" ")
        );
    }
    format!(
        "#!/bin/sh\n# Made by `broadside autograder`: what the submissions need to run.\nset -e\napt-get update\nDEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends {}\n{pip}chmod 755 /autograder/source/broadside /autograder/source/run_autograder\n{CAN_RUN}",
        packages.join(" ")
    )
}

/// The end of `setup.sh`: the packed binary must start on the image (a binary built against
/// a newer glibc than the image's does not), or the image fails to build with a message for
/// the instructor, before any student submits.
const CAN_RUN: &str = r#"if ! out=$(/autograder/source/broadside --version 2>&1); then
  echo "broadside cannot run on this image: $out" >&2
  echo "build broadside on the image's Linux release (or an older glibc: this image has $(ldd --version 2>&1 | head -n 1)) and make the zip again" >&2
  exit 1
fi
echo "$out is ready"
"#;

fn write_zip(
    out: &Utf8Path,
    suites: &[(Utf8PathBuf, String)],
    specs: &[Utf8PathBuf],
    spec_names: &[String],
    setup: &str,
    run: &str,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use zip::write::SimpleFileOptions;
    if let Some(dir) = out.parent().filter(|d| !d.as_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::File::create(out)?;
    let mut zip = zip::ZipWriter::new(file);
    let exe = SimpleFileOptions::default().unix_permissions(0o755);
    let plain = SimpleFileOptions::default().unix_permissions(0o644);
    let binary = std::env::current_exe()
        .map_err(|e| format!("could not find broadside's own executable: {e}"))?;
    zip.start_file("broadside", exe)?;
    std::io::copy(&mut std::fs::File::open(&binary)?, &mut zip)?;
    zip.start_file("setup.sh", exe)?;
    zip.write_all(setup.as_bytes())?;
    zip.start_file("run_autograder", exe)?;
    zip.write_all(run.as_bytes())?;
    for (dir, name) in suites {
        for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let entry = entry?;
            let rel = entry.path().strip_prefix(dir.as_std_path())?;
            let rel = rel.to_str().ok_or("a suite file whose name is not UTF-8")?;
            if entry.file_type().is_file() {
                zip.start_file(format!("{name}/{rel}"), plain)?;
                std::io::copy(&mut std::fs::File::open(entry.path())?, &mut zip)?;
            }
        }
    }
    for (spec, name) in specs.iter().zip(spec_names) {
        zip.start_file(name.as_str(), plain)?;
        zip.write_all(&std::fs::read(spec)?)?;
    }
    zip.finish()?;
    Ok(())
}
