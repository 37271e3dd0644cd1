//! `digline gate`: the CI job in one command. The flags become an
//! [`app::gate::GateRequest`](crate::app::gate::GateRequest); the gate's
//! phases (`app::gate`) write the files into `--out`; this file prints the
//! terminal text and the refusal, keeps GitHub's workflow commands paused
//! while names a pull request chose are printed, and publishes last.
//! Never promotes.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::app::gate::{GateEnd, GateRequest, GateVerdict};
use crate::app::history::HistoryMode;
use crate::app::publish::Publishing;
use crate::forge::{actions, escape, Mode};
use crate::host::{self, env::CiEnv};
use crate::report::locale::Locale;
use crate::report::progress::ProgressStrings;
use crate::report::text::fill;

use super::output::{err, errln, out, outln};
use super::{CliError, ExitStatus, SuiteArgs, Words};

/// `--publish`: where the verdict goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PublishTo {
    /// Publish when a forge, a pull/merge request and a usable token are detected.
    Auto,
    /// GitHub: the PR comment, job summary, outputs and annotation.
    Github,
    /// GitLab: the merge-request note.
    Gitlab,
    /// Publish nothing (files in --out only).
    None,
}

impl PublishTo {
    /// The forge layer's mode.
    pub fn mode(self) -> Mode {
        match self {
            PublishTo::Auto => Mode::Auto,
            PublishTo::Github => Mode::Github,
            PublishTo::Gitlab => Mode::Gitlab,
            PublishTo::None => Mode::None,
        }
    }
}

/// Flags shared by `gate` and `publish`: where and how to publish.
#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Where to publish: auto (detected), github, gitlab or none.
    #[arg(long, value_enum, default_value = "auto")]
    pub publish: PublishTo,
    /// Comment even when nothing got worse (exit 0).
    #[arg(long)]
    pub comment_on_success: bool,
    /// Write no comment (the job summary, outputs and annotation still go).
    #[arg(long, conflicts_with = "comment_on_success")]
    pub no_comment: bool,
    /// The repository (owner/name) when GITHUB_REPOSITORY does not say.
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// The pull request number (GitLab: the merge request iid) when the CI environment does not say.
    #[arg(long, value_name = "N")]
    pub pr: Option<u64>,
    /// A link to the report (e.g. the uploaded artifact) for the comment.
    #[arg(long, value_name = "URL")]
    pub report_url: Option<String>,
    /// The longest wait for a server (the target, the judges, the forge), in seconds: asked for longer, the call fails at once.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    pub max_wait: u64,
}

/// Flags of `digline gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Gate a stored run (a key, or `latest`) instead of running the suite.
    #[arg(long, value_name = "KEY|latest", conflicts_with_all = ["shard", "shards"])]
    pub run: Option<String>,
    /// Run only this job's shard and store it, without a verdict (the job
    /// that runs `gate --shards` gates the merged run): K/N or auto.
    #[arg(long, value_name = "K/N|auto", conflicts_with = "shards")]
    pub shard: Option<String>,
    /// With --shard: split the cases by the durations recorded in the newest
    /// full run (record_responses = true), not by the hash of the case id.
    #[arg(long, value_name = "durations", value_parser = ["durations"], requires = "shard")]
    pub balance: Option<String>,
    /// Merge these shard runs (files or directories) into one run, then gate it once.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub shards: Vec<PathBuf>,
    /// The language of everything the gate writes for people: terminal text, comment, job summary, JUnit bodies and the HTML report.
    #[arg(long, default_value = "en", value_parser = super::locale::parser())]
    pub locale: Locale,
    /// Where the files go (default: $RUNNER_TEMP/digline on GitHub, digline-gate/ elsewhere).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Concurrency, retries and pace of the calls.
    #[command(flatten)]
    pub pool: super::pool::PoolArgs,
    /// The judge memo and the spending cap.
    #[command(flatten)]
    pub cost: super::cost::CostArgs,
    /// Refuse to start when the plan needs more calls than this.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
    /// Let the HTML report carry judge and suspension reasons (widens the boundary).
    #[arg(long)]
    pub report_payload: bool,
    /// The pull request's base revision, read from git objects in the suite's
    /// repository: whether the pull request replaces the approved baseline,
    /// and what it changes about the suite, its rules and its cases (default:
    /// on GitHub Actions the event's pull_request.base.sha, else the merge
    /// commit's first parent HEAD^1; on GitLab CI_MERGE_REQUEST_DIFF_BASE_SHA;
    /// elsewhere none, and nothing is verified against a base).
    #[arg(long, value_name = "REV")]
    pub base_ref: Option<String>,
    /// The base branch's history (.digline/<tenant>/history/<suite>.jsonl): record (read, then append this gate), read, or off (default: record on a push or schedule of the default branch, read elsewhere). It informs; it never changes the exit code.
    #[arg(long, value_name = "MODE", value_parser = ["record", "read", "off"])]
    pub history: Option<String>,
    /// How many gates the history keeps, 1 to 100000 (the oldest go first).
    #[arg(long, value_name = "N", default_value_t = crate::core::history::DEFAULT_KEEP as u32,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub history_keep: u32,
    /// Publishing.
    #[command(flatten)]
    pub publishing: PublishArgs,
}

impl PublishArgs {
    /// Where and how to publish, as the use case takes it.
    pub fn publishing(&self) -> Publishing {
        Publishing {
            mode: self.publish.mode(),
            comment_on_success: self.comment_on_success,
            no_comment: self.no_comment,
            repo: self.repo.clone(),
            pr: self.pr,
            report_url: self.report_url.clone(),
            max_wait: self.max_wait,
        }
    }
}

impl GateArgs {
    /// The gate's request.
    fn request(&self, quiet: bool) -> GateRequest {
        GateRequest {
            suite: self.suite.to_ref(),
            run: self.run.clone(),
            shard: self.shard.clone(),
            balance: self.balance.is_some(),
            shards: self.shards.clone(),
            locale: self.locale,
            out: self.out.clone(),
            pool: self.cost.pool(self.pool.pool()),
            max_calls: self.max_calls,
            report_payload: self.report_payload,
            base_ref: self.base_ref.clone(),
            publishing: self.publishing.publishing(),
            display: host::runner::display(quiet),
            announce: !quiet,
            history: self
                .history
                .as_deref()
                .and_then(HistoryMode::parse)
                .unwrap_or_default(),
            history_keep: self.history_keep as usize,
        }
    }
}

/// Execute `digline gate`; returns the contract exit status. With `quiet`
/// (`-q`) stderr carries nothing but a refusal's sentence: no plan line,
/// no progress, no warning, no hint; stdout (the verdict's text) and the
/// files in `--out` are the same as without it.
///
/// # Errors
/// A [`CliError`] (exit 64) for a refusal before a verdict: bad suite,
/// bad flags, no such run, an unreadable document, a cross-tenant baseline.
pub fn execute(args: GateArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let env = CiEnv::read();
    // On GitHub Actions every line the gate prints — progress, warnings,
    // the terminal text, a refusal — quotes names a pull request chose, so
    // workflow commands are paused from the first line; only the gate's own
    // annotation and warnings are printed after the fence closes.
    let mut token = env.github.actions.then(host::env::fresh_token);
    if let Some(t) = &token {
        outln(&actions::stop_commands(t))?;
    }
    match gate(&args, quiet, &env, &mut token) {
        // A refusal while the fence is open: its sentence (which may quote
        // a name or a line of a file the pull request wrote) is printed
        // inside the fence, made visible, and the fence is closed after it,
        // so the step's later workflow commands work again.
        Err(refusal) => match token.take() {
            Some(t) => {
                errln(&escape::terminal(&refusal.render(quiet)));
                outln(&actions::resume(&t))?;
                Ok(refusal.exit_status())
            }
            None => Err(refusal),
        },
        done => done,
    }
}

/// The gate itself; `token` is the open stop-commands fence, taken (and
/// closed) once the terminal text is out.
fn gate(
    args: &GateArgs,
    quiet: bool,
    env: &CiEnv,
    token: &mut Option<String>,
) -> Result<ExitStatus, CliError> {
    let locale = args.locale;
    let notices = super::run::notices(quiet, locale);
    let verdict = match crate::app::gate::verdict(&args.request(quiet), env, &notices)? {
        GateEnd::ShardStored { key, shard } => {
            outln(&key)?;
            notices.plan(ProgressStrings::of(locale).shard_stored(&shard, &key));
            return Ok(ExitStatus::Proceed);
        }
        GateEnd::Verdict(verdict) => verdict,
    };
    // The terminal text quotes case ids and check names: made visible
    // (no escape sequence, no bidi control), and on GitHub Actions printed
    // with workflow commands paused, so none of them can start one.
    out(&escape::terminal(&verdict.terminal))?;
    err(&stderr_text(&verdict, locale, quiet));
    if let Some(t) = token.take() {
        outln(&actions::resume(&t))?;
    }
    let published = crate::app::gate::publish(&verdict, &args.publishing.publishing(), env);
    for line in published.stdout {
        outln(&line)?;
    }
    if !quiet {
        for line in published.stderr {
            errln(&line);
        }
    }
    Ok(verdict.exit)
}

/// What the gate says on stderr after the verdict: without a baseline the
/// refusal (and the promote command as a hint unless `quiet`), then the
/// uncovered-checks hint and an unreadable base's warning unless `quiet`.
fn stderr_text(verdict: &GateVerdict, locale: Locale, quiet: bool) -> String {
    let mut text = String::new();
    if let Some((suite, tenant)) = &verdict.no_baseline {
        text.push_str(&escape::terminal(&no_baseline_refusal(
            suite,
            tenant,
            &verdict.promote,
            locale,
            quiet,
        )));
    }
    let mut integrity = String::new();
    if !quiet {
        integrity.push_str(&verdict.uncovered_hint);
        if let Some(w) = &verdict.base_warning {
            integrity.push_str(&format!("digline: warning: {w}\n"));
        }
    }
    text + &escape::terminal(&integrity)
}

/// The no-baseline refusal on stderr, in the reader's locale: the exit
/// code and what is missing (stdout's headline already said there is no
/// baseline and where it was looked for, so this does not repeat it), then
/// the promote command as a hint unless `quiet`.
fn no_baseline_refusal(
    suite: &str,
    tenant: &str,
    promote: &str,
    locale: Locale,
    quiet: bool,
) -> String {
    let fill = |key: &str, with: &[(&str, &str)]| fill(locale.text(key), with);
    let mut text = format!(
        "digline: {}\n",
        fill(
            "gate.refused_no_baseline",
            &[("suite", suite), ("tenant", tenant)]
        )
    );
    if !quiet {
        text.push_str(&format!(
            "({}: {})\n",
            locale.text("gate.hint"),
            fill("gate.hint_promote", &[("command", promote)])
        ));
    }
    text
}
