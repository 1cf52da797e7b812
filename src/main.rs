//! The `broadside` command line: the commands' shape (clap), exit codes, and dispatch to
//! `cli`, a file per command.

use camino::Utf8PathBuf;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::process::ExitCode;

mod cli;

/// Exit codes, documented in `--help` and the guide (docs/guide/commands.md).
mod exit {
    /// Every scenario passed (or every input checked).
    pub const PASSED: u8 = 0;
    /// At least one scenario failed or errored.
    pub const FAILED: u8 = 1;
    /// The inputs themselves are wrong: bad TOML, an unknown spec, a missing file.
    pub const BAD_INPUT: u8 = 2;
    /// broadside could not do its own part: a tool it needs is missing or broken (the
    /// Python interpreter), or a report could not be written. Nothing was graded wrongly.
    pub const GRADER: u8 = 3;
}

/// Why a command stopped before its end, each kind with its exit code
/// ([`Error::exit_code`]). A command that ran to its end returns its own code instead
/// (`grade`'s 1 for a run interrupted or a submission left not graded, say).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The inputs are wrong: a flag's value, a path that is not there, scenarios that name
    /// nothing to play ([`exit::BAD_INPUT`]). Printed as `error: MESSAGE`.
    #[error("{0}")]
    Input(String),
    /// Spec, scenario or suite files that do not load, each diagnostic pointing at its
    /// `file:line:col` ([`exit::BAD_INPUT`]). Printed as the diagnostics and their count.
    #[error("{} found", cli::plural(.0.len(), "problem", "problems"))]
    Diagnostics(Vec<broadside::diag::Diagnostic>),
    /// broadside could not do its own part: a tool it needs is missing or broken (the
    /// Python interpreter), users for the children could not be claimed, a report could not
    /// be written ([`exit::GRADER`]). Nothing was graded wrongly.
    #[error("{0}")]
    Grader(String),
    /// Standard output or standard error could not be written (a pipe closed early): the
    /// caller's side, as bad input is ([`exit::BAD_INPUT`]).
    #[error(transparent)]
    Output(#[from] std::io::Error),
}

impl Error {
    /// The exit code this error ends broadside with (see [`exit`]).
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) | Error::Diagnostics(_) | Error::Output(_) => exit::BAD_INPUT,
            Error::Grader(_) => exit::GRADER,
        }
    }

    /// [`Error::Input`] with `context` before what `e` and its sources say
    /// (`context: error: source`).
    pub(crate) fn input(context: impl std::fmt::Display, e: &dyn std::error::Error) -> Error {
        Error::Input(format!("{context}: {}", chain(e)))
    }

    /// [`Error::Grader`] with `context` before what `e` and its sources say.
    pub(crate) fn grader(context: impl std::fmt::Display, e: &dyn std::error::Error) -> Error {
        Error::Grader(format!("{context}: {}", chain(e)))
    }

    /// Prints the error on standard error: `error: MESSAGE`, or the diagnostics.
    fn print(&self) {
        match self {
            Error::Diagnostics(d) => cli::print_diagnostics(d),
            other => {
                let _ = writeln!(anstream::stderr(), "error: {}", chain(other));
            }
        }
    }
}

impl From<broadside::grade::GradeError> for Error {
    fn from(e: broadside::grade::GradeError) -> Error {
        use broadside::grade::GradeError as G;
        match e {
            G::Input(m) => Error::Input(m),
            G::NotGraded(m) | G::Write(m) => Error::Grader(m),
        }
    }
}

impl From<broadside::target::TargetError> for Error {
    fn from(e: broadside::target::TargetError) -> Error {
        match e {
            broadside::target::TargetError::Input(m) => Error::Input(m),
            broadside::target::TargetError::Grader(m) => Error::Grader(m),
        }
    }
}

/// What `e` says followed by what each of its sources says, `: ` between them.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[derive(Parser)]
#[command(
    name = "broadside",
    version,
    about = "Autograder and scenario test harness for Battleship assignments"
)]
#[command(
    after_help = "Examples:\n  broadside run --assignment solo-10x10 --target python:battleships.py   # a student's self-check\n  broadside run fixtures/scenarios                                        # the reference against every scenario\n  broadside grade --suite published --suite hidden --submissions class --out graded\n  broadside fuzz --assignment colab-6x6 --target python:battleship.py\n  broadside list                                                          # the assignments\n\nExit codes: 0 all passed, 1 some scenario failed, 2 the inputs are wrong, 3 broadside's own side failed (a missing Python, a report it could not write, a scenario it could not play: left not graded)."
)]
struct Cli {
    /// When to colour the output: `auto` colours a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, global = true, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

/// `--color`.
#[derive(Clone, Copy, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Play scenarios against a target and report.
    #[command(
        after_help = "Examples:\n  broadside run fixtures/scenarios\n  broadside run fixtures/scenarios/solo-10x10 --target python:fixtures/submissions/solo-10x10/correct\n  broadside run --assignment solo-10x10 --target python:battleships.py\n  broadside run fixtures/scenarios/colab-6x6 --format json --out report.json\n\nExit codes: 0 all passed, 1 some scenario failed, 2 the inputs are wrong, 3 broadside's own side failed (a missing Python, a report it could not write, a scenario it could not play: left not graded)."
    )]
    Run(cli::run::RunArgs),
    /// Grade a class: every sub-folder of --submissions against the suites, in parallel.
    #[command(
        after_help = "Examples:\n  broadside grade --suite fixtures/scenarios/solo-10x10 --submissions fixtures/submissions/solo-10x10 --out graded\n  broadside grade --suite published --suite hidden --submissions class --out graded --jobs 4 --resume\n  broadside grade --suite s --submissions class --out graded-2 --shard 2/4   # then: broadside merge graded-* --out graded\n\nWrites OUT/<submission>/report.json (staff), results.json (Gradescope), junit.xml and report.txt (student view), then OUT/summary.csv and OUT/summary.json.\n\nExit codes: 0 every submission graded, 1 the run was interrupted or a submission could not be set up, played (a harness fault) or its report written (left not graded), 2 the inputs are wrong, 3 the output folder or the summary could not be written, a tool --marking needs is missing, or users for the children could not be claimed."
    )]
    Grade(cli::grade::GradeArgs),
    /// Build a Gradescope autograder zip: this binary, the suites, setup.sh and
    /// run_autograder.
    #[command(
        after_help = "Example:\n  broadside autograder --suite published --suite hidden --out autograder.zip\n\nThe zip holds broadside, setup.sh (installs python3, ghc or a JDK as the assignment needs), run_autograder (writes /autograder/results/results.json) and the suites.\nExit codes: 0 written, 2 the inputs are wrong."
    )]
    Autograder(cli::autograder::AutograderArgs),
    /// Combine the reports of `grade --shard` runs into one class summary.
    #[command(
        after_help = "Example:\n  broadside merge shard-1 shard-2 shard-3 --out graded\n\nExit codes: 0 merged, 2 the shards are incomplete or inconsistent."
    )]
    Merge {
        /// The --out folders of the shards' `grade` runs.
        #[arg(required = true)]
        shards: Vec<Utf8PathBuf>,
        /// Where summary.csv and summary.json go.
        #[arg(long)]
        out: Utf8PathBuf,
    },
    /// Differential testing: random cases against the reference, the first divergence
    /// shrunk to a short scenario file that `run` replays.
    #[command(
        after_help = "Examples:\n  broadside fuzz --assignment colab-6x6 --target python:battleship.py\n  broadside fuzz --assignment solo-10x10 --target python:fixtures/submissions/solo-10x10/hits-kept-as-count --seed 7 --out found.toml\n  broadside fuzz --assignment battleboats --mode expert --time 30\n\nThe counterexample is printed and written to --out (default fuzz-ASSIGNMENT-SEED.toml).\nExit codes: 0 no divergence, 1 a divergence was found, 2 the inputs are wrong, 3 broadside's own side failed (a target it could not start, a bug of its own, the file it could not write)."
    )]
    Fuzz(cli::fuzz::FuzzArgs),
    /// List the bundled assignments and their published scenarios.
    #[command(after_help = "Example:\n  broadside list")]
    List,
    /// Print a published scenario, as reports name it (`ASSIGNMENT/NAME`), its lines
    /// numbered as reports cite them.
    #[command(
        after_help = "Examples:\n  broadside show colab-6x6/01-handout-example\n  broadside show solo-10x10/04-played-game --raw > my-copy.toml\n  broadside show 03-off-board-calls\n\nExit codes: 0 shown, 2 no such scenario (or a NAME several assignments publish)."
    )]
    Show {
        /// `ASSIGNMENT/NAME`, e.g. `colab-6x6/01-handout-example`, or `NAME` alone when one
        /// assignment publishes it (several: each `ASSIGNMENT/NAME` is named, none guessed).
        name: String,
        /// The file as it is, without line numbers (to save and edit).
        #[arg(long)]
        raw: bool,
    },
    /// Validate specs and scenarios, and play each step scenario on the reference.
    ///
    /// Every file is loaded and checked against its spec; then every step scenario is played
    /// on the reference engine (in process, no target), and an expectation the reference does
    /// not meet is refused at its file:line:col, as the author's mistake. Dialogue scenarios
    /// are checked for their shape only.
    #[command(
        after_help = "Examples:\n  broadside check specs fixtures/scenarios\n  broadside check my-scenario.toml --spec my-7x7.toml\n\nExit codes: 0 all valid, 2 some input is wrong (an expectation the reference does not meet among them)."
    )]
    Check {
        /// Spec or scenario files, or folders of them.
        #[arg(required = true)]
        paths: Vec<Utf8PathBuf>,
        /// Extra spec files that scenarios may name; may repeat.
        #[arg(long = "spec")]
        specs: Vec<Utf8PathBuf>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) for broadside.
    #[command(
        after_help = "Examples:\n  broadside completions bash > ~/.local/share/bash-completion/completions/broadside\n  broadside completions zsh > ~/.zfunc/_broadside"
    )]
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Print broadside's man page (roff), or a command's (`broadside-run(1)`), made from the
    /// same definitions as `--help`.
    #[command(
        after_help = "Examples:\n  broadside man > broadside.1 && man ./broadside.1\n  for c in run grade merge fuzz list show check completions; do broadside man $c > broadside-$c.1; done"
    )]
    Man {
        /// A command, e.g. `run`; none for the page of broadside itself.
        command: Option<String>,
    },
    /// Internal: load a native submission's library and serve the protocol on stdin/stdout
    /// (the child that `--target native:PATH` starts).
    #[command(name = "__native-worker", hide = true)]
    NativeWorker { library: std::path::PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    anstream::ColorChoice::write_global(match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    });
    match real_main(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            e.print();
            ExitCode::from(e.exit_code())
        }
    }
}

fn real_main(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::NativeWorker { library } => {
            Ok(broadside::target::native::worker::serve(&library) as u8)
        }
        Command::Run(args) => cli::run::run(args),
        Command::Grade(args) => cli::grade::grade(args),
        Command::Autograder(args) => cli::autograder::autograder(args),
        Command::Merge { shards, out } => cli::grade::merge(&shards, &out),
        Command::Fuzz(args) => cli::fuzz::fuzz(args),
        Command::Show { name, raw } => match broadside::published::show(&name) {
            Ok((path, text)) => {
                let mut out = anstream::stdout();
                if raw {
                    write!(out, "{text}")?;
                } else {
                    writeln!(out, "# {path}")?;
                    for (i, line) in text.lines().enumerate() {
                        writeln!(out, "{:>4} | {line}", i + 1)?;
                    }
                }
                Ok(exit::PASSED)
            }
            Err(e) => Err(Error::Input(e.0)),
        },
        Command::Completions { shell } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cli, "broadside", &mut std::io::stdout());
            Ok(exit::PASSED)
        }
        Command::Man { command } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            cli.build(); // adds the `help` command the main page lists
            let cmd = match &command {
                None => cli,
                Some(name) => {
                    let Some(sub) = cli
                        .get_subcommands()
                        .find(|c| c.get_name() == name && !c.is_hide_set())
                    else {
                        return Err(Error::Input(format!(
                            "no command `{name}`; `broadside --help` lists them"
                        )));
                    };
                    sub.clone()
                        .name(format!("broadside-{name}"))
                        .version(env!("CARGO_PKG_VERSION"))
                }
            };
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::io::stdout().write_all(&page)?;
            Ok(exit::PASSED)
        }
        Command::List => cli::check::list(),
        Command::Check { paths, specs } => cli::check::check(&paths, &specs),
    }
}
