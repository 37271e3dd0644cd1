//! `cli`: the command-line front end — clap definitions, printing, exit codes.
//!
//! One file per command, each returning an [`ExitStatus`]. [`main`] is the
//! only place a result becomes a process exit code: clap's parse errors are
//! 64 (not clap's 2, which would read as a verdict), `--help`/`--version`
//! are 0, a refusal is 64, a panic prints one line and is 70. Every byte
//! printed goes through [`output`] (a closed stdout ends quietly with the
//! command's own code; a full disk is a refusal). May import every layer
//! below; never `mcp`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub mod compare;
pub mod completions;
pub mod diff;
pub mod error;
pub mod exit;
pub mod fence;
pub mod gate;
pub mod list;
pub mod locale;
pub mod manpage;
pub mod mcp;
pub mod merge;
pub mod migrate;
pub mod output;
pub mod pool;
pub mod promote;
pub mod publish;
pub mod rejudge;
pub mod report;
pub mod run;
pub mod warn;

pub use error::{CliError, Words};
pub use exit::ExitStatus;

const AFTER_HELP: &str = "\
Exit codes: 0 nothing got worse · 1 something got worse · 2 could not be judged · 64 refused · 70 internal error.

Example, the whole cycle:
  digline run     --suite examples/quickstart/suite.toml --root examples/quickstart
  digline promote --suite examples/quickstart/suite.toml --root examples/quickstart --run latest
  digline run     --suite examples/quickstart/suite.toml --root examples/quickstart
  digline compare --suite examples/quickstart/suite.toml --root examples/quickstart --run latest

In CI, one command does it all (run, compare, comment, summary, JUnit, HTML report):
  digline gate    --suite eval/suite.toml

Start here: README.md and docs/getting-started.md. Completions: digline completions bash; man page: digline manpage.";

/// digline: a regression gate for LLM applications.
///
/// Ask your system again, grade every answer with the suite's checks,
/// compare with the approved baseline, and exit with a code CI obeys.
#[derive(Debug, Parser)]
#[command(name = "digline", version, about, long_about, after_help = AFTER_HELP)]
pub struct Cli {
    /// More detail on stderr (-v info, -vv debug, -vvv trace; DIGLINE_LOG overrides).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Only errors on stderr: no plan line, no progress, no warnings, no hints (stdout is unchanged).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ask the system under test about every case and store the run (prints its key).
    #[command(
        after_help = "Example:\n  digline run --suite suite.toml --meta build=1234\n  digline run --suite suite.toml --resume      # finish the run Ctrl-C stopped\n\nNever a gate: exits 0 when the run is stored, whatever the verdicts; 64 when refused, or when stopped by Ctrl-C or SIGTERM (the journal keeps the answers: --resume finishes the run)."
    )]
    Run(run::RunArgs),
    /// Make the shard runs of a suite (run --shard K/N) one run, store it and print its key.
    #[command(
        after_help = "Example:\n  digline merge --suite suite.toml --shards shards/\n  digline merge --suite suite.toml --shards shard-1/KEY.json shard-2/KEY.json\n\nThe merged run is the one a single run over every case would have stored. Never a gate: exits 0 when the run is stored; 64 when refused (a missing shard, a shard of another plan, suite, tenant or configuration, overlapping or duplicated shards, a copy of another shard)."
    )]
    Merge(merge::MergeArgs),
    /// Compare a stored run with the baseline; exit 0 (fine), 1 (worse) or 2 (could not be judged).
    #[command(
        after_help = "Example:\n  digline compare --suite suite.toml --run latest\n  digline compare --suite suite.toml --run latest --json full"
    )]
    Compare(compare::CompareArgs),
    /// Show what differs between two runs of the suite; no verdict (exit 0, or 64 when refused).
    #[command(
        after_help = "Example:\n  digline diff --suite suite.toml 2026-11-30T04-16-02-573852-00-00-d4d9fd58fc759255 latest\n  digline diff --suite suite.toml KEY1 KEY2 --json full\n\nNever a gate: neither run is a reference. Refused for the same run twice or runs of different rules."
    )]
    Diff(diff::DiffArgs),
    /// Make a run the baseline: same suite, same rules, nothing errored.
    #[command(
        after_help = "Example:\n  digline promote --suite suite.toml --run latest\n\nThen commit .digline/<tenant>/baselines/<suite>.json: the gate compares against it."
    )]
    Promote(promote::PromoteArgs),
    /// List the stored runs of a suite, newest first (* marks the baseline's run).
    #[command(after_help = "Example:\n  digline list --suite suite.toml")]
    List(list::ListArgs),
    /// The CI job in one command: run, compare with the baseline, render, publish, exit 0/1/2 (64 without a baseline).
    #[command(
        after_help = "Example:\n  digline gate --suite eval/suite.toml\n  digline gate --suite eval/suite.toml --run latest --publish none --out gate-out\n\nWrites outcome.json, comment.md, summary.md and junit.xml into --out. Never promotes."
    )]
    Gate(Box<gate::GateArgs>),
    /// Post or update the PR/MR comment and the job summary from a gate's outcome.json (exits 0).
    #[command(
        after_help = "Example:\n  digline publish --outcome \"$RUNNER_TEMP/digline/outcome.json\" --report-url \"$ARTIFACT_URL\""
    )]
    Publish(publish::PublishCmdArgs),
    /// Bring stored schema 4–9 runs and baselines up to schema 10 (every tenant and suite).
    #[command(
        after_help = "Example:\n  digline migrate --dry-run      # what would change; writes nothing\n  digline migrate                # rewrite them, then commit the baselines\n  digline migrate --suite suite.toml   # one suite only\n\nExit 0 when every file is current; 64 when one was refused (a newer schema: upgrade digline)."
    )]
    Migrate(migrate::MigrateArgs),
    /// Write the HTML report of a run (against the baseline, if any) in a language.
    #[command(
        after_help = "Example:\n  digline report --suite suite.toml --run latest --locale en --out report.html\n\nExits like compare: 0 (fine), 1 (worse), 2 (could not be judged); with no baseline yet, never 1."
    )]
    Report(report::ReportArgs),
    /// Grade a stored run's recorded answers again with the current checks and judges (prints the new run's key).
    #[command(
        after_help = "Example: a threshold or a rubric changed; what would the last run say under it?\n  digline rejudge --suite suite.toml --run latest --meta why=rubric-v2\n  digline compare --suite suite.toml --run latest\n\nThe target is never called: only judges are (the plan says how many). The run must have been\nmade with [suite] record_responses = true. The new run names its source in rejudged_from,\nkeeps the source's target_config and artifacts, and can never be promoted.\n\nNever a gate: exits 0 when the run is stored, whatever the verdicts; 64 when refused (no\nrecorded answers, a case added or sampled differently since, another tenant or suite)."
    )]
    Rejudge(rejudge::RejudgeArgs),
    /// Serve this repository to a coding agent over MCP (stdio): read and measure, never promote.
    #[command(
        after_help = "Example:\n  digline mcp --root .\n\nSix tools: list_runs, get_run, get_baseline, compare, diff, run. No promote, migrate or report: a person runs those. Configure it in the agent's mcpServers; see docs/mcp.md."
    )]
    Mcp(mcp::McpArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    #[command(
        after_help = "Example:\n  digline completions bash > ~/.local/share/bash-completion/completions/digline\n  digline completions zsh  > \"${fpath[1]}/_digline\"\n  digline completions fish > ~/.config/fish/completions/digline.fish\n\nGenerated from the same definitions as --help, so it always matches this binary."
    )]
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff) of digline, or of one command.
    #[command(
        after_help = "Example:\n  digline manpage > digline.1 && man ./digline.1\n  digline manpage gate > digline-gate.1\n\nGenerated from the same definitions as --help, so it always matches this binary."
    )]
    Manpage(manpage::ManpageArgs),
}

/// Flags every command takes: which suite, which repository.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// The suite file (suite.toml).
    #[arg(long, value_name = "SUITE.toml")]
    pub suite: PathBuf,
    /// The repository root holding .digline/ (suite paths must stay inside it).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Verify the suite's tenant (never overrides it).
    #[arg(long)]
    pub tenant: Option<String>,
    /// Verify the suite's environment (never overrides it).
    #[arg(long = "env", value_name = "ENV")]
    pub environment: Option<String>,
}

/// Run the command line and return the process exit code; `mcp_server`
/// is what `digline mcp` starts (the binary passes `digline::mcp::serve`).
pub fn main(mcp_server: mcp::McpServer) -> i32 {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_string());
        output::errln(&format!(
            "digline: internal error ({what}{at}). This is a bug in digline, not a verdict on the suite (exit 70)."
        ));
        // The release build aborts on panic (nothing unwinds, see
        // Cargo.toml): leave with the contract's code here, from whichever
        // thread panicked. Files are written atomically, so none is left
        // half-written; a stray `.tmp-*` beside the store's documents is
        // ignored by every reader. Unwinding builds reach `guarded` instead.
        if cfg!(panic = "abort") {
            std::process::exit(ExitStatus::Internal.code());
        }
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let status = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitStatus::Proceed
                }
                // Bare `digline`: help, but not 0 — 0 would read as "proceed".
                _ => ExitStatus::Refused,
            };
            // `--help` into a closed pipe or a full disk: nothing to add.
            let _ = e.print();
            return status.code();
        }
    };
    crate::host::logging::init(cli.verbose, cli.quiet);
    let quiet = cli.quiet;
    output::set_quiet(quiet);
    guarded(quiet, || dispatch(cli, mcp_server)).code()
}

/// Run a command, turning a refusal into 64 (printed, its hints too unless
/// `quiet`) and a panic into 70 (where panics unwind; the release build
/// exits 70 from the panic hook).
fn guarded(quiet: bool, command: impl FnOnce() -> Result<ExitStatus, CliError>) -> ExitStatus {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(command)) {
        Ok(Ok(status)) => status,
        Ok(Err(err)) => {
            output::errln(&err.render(quiet));
            err.exit_status()
        }
        Err(_) => ExitStatus::Internal,
    }
}

impl SuiteArgs {
    /// The suite as a use case's request names it.
    pub fn to_ref(&self) -> crate::app::SuiteRef {
        crate::app::SuiteRef {
            file: self.suite.clone(),
            root: self.root.clone(),
            named: self.suite.display().to_string(),
            tenant: self.tenant.clone(),
            environment: self.environment.clone(),
        }
    }
}

/// Load the suite named by `args` and verify `--tenant`/`--env` against it.
///
/// # Errors
/// [`CliError::Load`] for a bad suite, [`CliError::FlagMismatch`] for a flag that
/// does not match what the suite declares.
pub fn load_suite(args: &SuiteArgs) -> Result<crate::host::suite::LoadedSuite, CliError> {
    args.to_ref().load()
}

fn dispatch(cli: Cli, mcp_server: mcp::McpServer) -> Result<ExitStatus, CliError> {
    let quiet = cli.quiet;
    match cli.command {
        Command::Run(args) => run::execute(args, quiet),
        Command::Merge(args) => merge::execute(args, quiet),
        Command::Compare(args) => compare::execute(args),
        Command::Promote(args) => promote::execute(args, quiet),
        Command::Diff(args) => diff::execute(args),
        Command::List(args) => list::execute(args, quiet),
        Command::Gate(args) => gate::execute(*args, quiet),
        Command::Publish(args) => publish::execute(args, quiet),
        Command::Migrate(args) => migrate::execute(args),
        Command::Report(args) => report::execute(args),
        Command::Rejudge(args) => rejudge::execute(args, quiet),
        Command::Mcp(args) => mcp::execute(args, mcp_server),
        Command::Completions(args) => completions::execute(args),
        Command::Manpage(args) => manpage::execute(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_exit_70_and_a_refusal_64() {
        assert_eq!(guarded(false, || panic!("boom")), ExitStatus::Internal);
        assert_eq!(
            guarded(false, || Err(CliError::Refused("no".into()))),
            ExitStatus::Refused
        );
        assert_eq!(guarded(false, || Ok(ExitStatus::Worse)), ExitStatus::Worse);
    }

    #[test]
    fn hints_are_printed_once_after_the_sentence_and_not_with_quiet() {
        let err = CliError::usage("no", Some("do this".into()));
        assert_eq!(err.render(false), "digline: no\n(hint: do this)");
        assert_eq!(err.render(true), "digline: no");
        assert_eq!(CliError::Refused("no".into()).render(false), "digline: no");
    }

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
