//! `digline gate`: the CI job in one command — run the suite (or take
//! `--run`), compare with the committed baseline, write the terminal text,
//! `outcome.json`, `comment.md`, `summary.md` and `junit.xml` into `--out`,
//! publish when asked, and exit with the contract code. Never promotes.
//!
//! No baseline: no verdict. The run is rendered and published on its own,
//! naming the baseline path looked for and the `promote` command a person
//! runs — then exit 64. A gate is never green without a comparison.
//!
//! Payload boundary: every file here is built from names, keys, statuses
//! and scores ([`crate::core::compare::Comparison`] holds no payload; the
//! no-baseline tables read only statuses and scores of the run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::core::compare::{Comparison, Delta, Outcome, Scope, Side};
use crate::core::document::{run_key, RunDocument};
use crate::forge::comment::{self, CommentData, Section, SectionRow};
use crate::forge::outcome::{Kind, Outcome as GateOutcome, Paths};
use crate::forge::{self, actions, escape, junit, Mode};
use crate::host::base_ref::{self, BaseBaseline};
use crate::host::{self, env::CiEnv};
use crate::report::cost;
use crate::report::coverage::{self as integrity_text, IntegrityStrings};
use crate::report::gate as gate_view;
use crate::report::locale::Locale;
use crate::report::order::compare_in_suite_order;
use crate::report::text::fill;
use crate::store::Store;

use super::output::{err, errln, out, outln};
use super::run::{run_and_count, RunArgs};
use super::{load_suite, CliError, ExitStatus, SuiteArgs};

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
    /// Refuse to start when the plan needs more calls than this.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
    /// Let the HTML report carry judge and suspension reasons (widens the boundary).
    #[arg(long)]
    pub report_payload: bool,
    /// The pull request's base revision, read from git objects to see whether
    /// the pull request replaces the approved baseline (default: on GitHub
    /// Actions the merge commit's first parent, on GitLab
    /// CI_MERGE_REQUEST_DIFF_BASE_SHA).
    #[arg(long, value_name = "REV")]
    pub base_ref: Option<String>,
    /// Publishing.
    #[command(flatten)]
    pub publishing: PublishArgs,
}

/// What is recorded beside the run document: its spend (and the
/// reference's), and how long its failed calls took.
#[derive(Clone, Copy)]
struct Beside<'a> {
    spends: cost::Spends,
    failed: &'a crate::core::failed_calls::FailedCalls,
}

/// The HTML report's one call site: redacted (no judge or suspension
/// reasons) unless `--report-payload` widens the boundary. A template
/// failure is a warning, never a changed verdict: the gate writes no
/// report then.
///
/// Rendered last, from the documents and the comparison the gate gives up:
/// the redacted report strips them in place rather than copying them.
fn render_html_report(
    run: RunDocument,
    baseline: Option<RunDocument>,
    comparison: Option<Comparison>,
    locale: Locale,
    payload: bool,
    quiet: bool,
    beside: Beside<'_>,
) -> Option<String> {
    match crate::report::html::render_consuming(
        run,
        baseline,
        comparison,
        locale,
        !payload,
        beside.spends,
        beside.failed,
    ) {
        Ok(page) => Some(page),
        Err(e) => {
            if !quiet {
                errln(&format!(
                    "digline: warning: {}",
                    crate::report::progress::ProgressStrings::of(locale)
                        .report_not_written(&e.to_string())
                ));
            }
            None
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
    match gate(args, quiet, &env, &mut token) {
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
    args: GateArgs,
    quiet: bool,
    env: &CiEnv,
    token: &mut Option<String>,
) -> Result<ExitStatus, CliError> {
    let locale = args.locale;
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| match &env.github.runner_temp {
            Some(t) if env.github.actions => t.join("digline"),
            _ => PathBuf::from("digline-gate"),
        });
    let mut loaded = load_suite(&args.suite)?;
    // A merge reads little of the cases once their plan is taken: the rest
    // goes before the reference is read beside them.
    let plan = (!args.shards.is_empty()).then(|| super::merge::plan_and_shed(&mut loaded));
    let suite = &loaded.suite;
    let store = Store::new(&args.suite.root);
    // Everything that can refuse without the run is read first: the base
    // ref (a base named with --base-ref that cannot be read refuses), and
    // the baseline (a corrupt one refuses before the first call is paid for).
    let baseline_path = store.baseline_path(&suite.tenant, &suite.name)?;
    let base = base_ref::choose(args.base_ref.as_deref(), env);
    let (base_baseline, base_warning) = read_base(base.as_ref(), &baseline_path)?;
    // The base, when its baseline could be read: what the rule changes and
    // the reference's spend are read from too.
    let base_read = base.as_ref().filter(|_| base_baseline.is_some());
    // A redacted report (the default) shows no pass or fail reason, and no
    // other surface of the gate shows any: the documents the gate holds
    // keep an error's reason (its cause) only. 100,000 cases hold ≈40 MB
    // less.
    let lean = !args.report_payload;
    let mut baseline = store.read_baseline(&suite.tenant, &suite.name)?;
    if lean {
        if let Some(baseline) = &mut baseline {
            baseline.drop_case_reasons();
        }
    }
    let retried = crate::run::retry::Retried::default();
    let ran = args.run.is_none();
    let (key, mut doc) = match &args.run {
        Some(which) => {
            let stored = store.read_run(&suite.tenant, &suite.name, which)?;
            super::merge::refuse_a_shard(&stored.key, &stored.doc, &args.suite)?;
            let run_file = store
                .runs_dir(&suite.tenant, &suite.name)?
                .join(format!("{}.json", stored.key));
            host::run_trust::refuse_untrusted_latest(which, &stored.key, &stored.doc, &run_file)
                .map_err(CliError::Refused)?;
            if let Some(warning) =
                host::run_trust::commit_warning(&stored.key, &stored.doc, &args.suite.root)
            {
                if !quiet {
                    super::output::errln(&warning);
                }
            }
            (stored.key, stored.doc)
        }
        None if plan.is_some() => {
            let (key, merged) = super::merge::merge_and_store(
                &args.suite,
                &loaded,
                plan.unwrap_or_default(),
                &args.shards,
                quiet,
                locale,
            )?;
            (key, merged)
        }
        None => {
            // The same steps as `digline run`, through the same function.
            let run_args = RunArgs {
                suite: SuiteArgs {
                    suite: args.suite.suite.clone(),
                    root: args.suite.root.clone(),
                    tenant: args.suite.tenant.clone(),
                    environment: args.suite.environment.clone(),
                },
                meta: Vec::new(),
                json: false,
                target: None,
                pool: args.pool,
                max_wait: args.publishing.max_wait,
                max_calls: args.max_calls,
                resume: None,
                shard: args.shard.clone(),
                balance: args.balance.clone(),
                samples: None,
                locale: args.locale,
            };
            // What the reference lets the gate see, said before the run.
            if let Some(power) = baseline
                .as_ref()
                .and_then(|b| crate::core::compare::power::power(b, loaded.suite.false_alarm_rate))
            {
                if !quiet {
                    let strings = crate::report::text::Strings::of(locale);
                    for line in crate::report::noise::power_sentences(&power, strings) {
                        super::output::errln(&format!("digline: {line}"));
                    }
                }
            }
            let (key, doc, _plan) = run_and_count(&run_args, quiet, &retried)?;
            if let Some(done) = super::merge::shard_stored(&key, &doc, quiet, locale)? {
                return Ok(done);
            }
            // Failures where the reference passed are asked again before
            // they are believed (spec 45-statistics.md).
            if let Some(reference) = &baseline {
                super::run::reask_against(&run_args, &loaded, &key, &doc, reference, quiet)?;
            }
            (key, doc)
        }
    };
    // Stored whole; held from here on as the gate shows it.
    if lean {
        doc.drop_case_reasons();
    }
    // Whole-run measures paired over the same cases, while the cases are here.
    let paired = baseline.as_ref().map(|b| {
        crate::core::compare::paired::paired_measures(
            &loaded.suite,
            &doc,
            b,
            loaded.suite.false_alarm_rate,
        )
    });
    // The cases are in the run now: the rest of the gate reads documents,
    // so a large suite's cases are not held beside the run and its baseline.
    drop(std::mem::take(&mut loaded.suite.cases));
    // What reading the cases, the reference and the shards freed goes back
    // to the system before the comparison is built beside the documents.
    host::memory::return_freed();
    let suite = &loaded.suite;
    let comparison = match &baseline {
        Some(b) => {
            let mut c =
                compare_in_suite_order(&doc, b).map_err(|e| CliError::Refused(e.to_string()))?;
            if let Some(record) = store.read_run_reasks(&suite.tenant, &suite.name, &key) {
                c.apply_reasks(&record, b);
            }
            c.state_power(b, suite.false_alarm_rate);
            c.apply_paired(paired.unwrap_or_default(), true);
            // Infrastructure values (`base_url`) are named, never published.
            crate::report::redact::withhold_perimeter_values(&mut c);
            spell_parameter_edits(&mut c, &args, base_read);
            Some(c)
        }
        None => None,
    };
    // The baseline as the base has it: its spend record is then read from
    // the base too (a pull request cannot restate what the reference spent
    // without replacing the reference, which the gate says first).
    let base_same = matches!(base_baseline, Some(BaseBaseline::Same));
    let replaced = Replaced::judge(&doc, base_baseline);
    let integrity = IntegrityStrings::of(locale);
    let promote = format!(
        "digline promote --suite {} --root {} --run {key}",
        args.suite.suite.display(),
        args.suite.root.display()
    );
    let root_text = args.suite.root.display().to_string();
    let marker = forge::marker(&root_text, &suite.tenant, &suite.name);
    let report_line = report_line(&args.publishing, env, &out_dir, locale);

    // How long the run's failed calls took, as recorded beside it (a run of
    // 0.10.0 has no record: the causes are then said without their time).
    let failed_calls = store.read_run_timings(&suite.tenant, &suite.name, &key);
    let (code, mut view, counts) = match (&comparison, &baseline) {
        (Some(c), Some(b)) => {
            let view = gate_view::compared(&doc, b, c, locale, &failed_calls);
            let counts: BTreeMap<String, usize> = Outcome::ALL
                .iter()
                .map(|o| (o.as_str().to_string(), c.headline().counts.get(*o)))
                .collect();
            (view.exit_code, view, counts)
        }
        _ => {
            let view = gate_view::single(
                &doc,
                &baseline_path.display().to_string(),
                locale,
                ExitStatus::Refused,
                &failed_calls,
            );
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            let statuses = doc
                .results
                .iter()
                .flat_map(|c| c.verdicts.iter())
                .chain(doc.aggregate.iter());
            for v in statuses {
                *counts.entry(v.status.as_str().to_string()).or_insert(0) += 1;
            }
            counts.insert("suspended".into(), doc.suspended_cases());
            (ExitStatus::Refused, view, counts)
        }
    };
    // A replaced reference is said first, everywhere the headline goes.
    if let Some(r) = &replaced {
        view.lead = format!("{} {}", r.sentence(integrity), view.lead);
    }
    let headline = view.headline();
    let mut sections = Vec::new();
    let mut integrity_text_blocks = String::new();
    if let Some(r) = &replaced {
        let rows = r.worse_rows();
        if !rows.is_empty() {
            integrity_text_blocks.push_str(&format!("\n{}:\n", integrity.title_replaced_worse));
            for row in &rows {
                integrity_text_blocks
                    .push_str(&format!("{} · {} · {}\n", row.case, row.check, row.detail));
            }
            sections.push(Section::rows(integrity.title_replaced_worse, rows));
        }
    }
    if let Some(c) = &comparison {
        // Checks that wobbled within their measured noise, apart from what got worse.
        let strings = crate::report::text::Strings::of(locale);
        let power = crate::report::noise::power_lines(c, strings);
        if !power.is_empty() {
            sections.push(Section::lines(strings.title_power, power));
        }
        let paired = crate::report::noise::paired_lines(c, strings);
        if !paired.is_empty() {
            sections.push(Section::lines(strings.title_paired, paired));
        }
        for (title, rows) in crate::report::noise::noise_groups(c, strings) {
            let rows = rows
                .into_iter()
                .map(|r| SectionRow {
                    case: r.case,
                    check: r.check,
                    detail: r.detail,
                })
                .collect();
            sections.push(Section::rows(&title, rows));
        }
        integrity_text_blocks.push_str(&crate::report::noise::terminal_block(c, strings));
        sections.extend(coverage_sections(c, integrity));
        integrity_text_blocks.push_str(&integrity_text::terminal_blocks(
            c,
            crate::report::text::Strings::of(locale).scope_run,
            crate::report::text::Strings::of(locale).summary_truncated,
            integrity,
        ));
    }
    let mut integrity_stderr = String::new();
    if !quiet {
        if let Some(c) = &comparison {
            integrity_stderr.push_str(&integrity_text::uncovered_hint(c, integrity));
        }
        if let Some(w) = &base_warning {
            integrity_stderr.push_str(&format!("digline: warning: {w}\n"));
        }
    }
    let kind = Kind::of(code);
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for row in &view.unjudged {
        if let Some(cause) = &row.cause {
            *causes
                .entry(cause.category.as_str().to_string())
                .or_insert(0) += 1;
        }
    }
    // What the run and the reference spent, as recorded beside their
    // documents (a run of 0.10.0, or a resumed one, has no record).
    let spends = cost::Spends {
        run: store.read_run_spend(&suite.tenant, &suite.name, &key),
        reference: baseline.as_ref().and_then(|_| {
            if let Some(base) = base_read.filter(|_| base_same) {
                let path = store.baseline_spend_path(&suite.tenant, &suite.name).ok()?;
                serde_json::from_slice(&base_ref::file_at_base(base, &path)?).ok()
            } else {
                store.read_baseline_spend(&suite.tenant, &suite.name)
            }
        }),
    };
    let cost = cost::sentence(&doc, baseline.as_ref(), spends, locale);
    let data = CommentData {
        locale,
        view: view.clone(),
        suite: suite.name.clone(),
        tenant: suite.tenant.clone(),
        run_key: key.clone(),
        baseline_key: baseline
            .as_ref()
            .map(|b| run_key(&b.created_at, &b.config_hash)),
        promote: promote.clone(),
        report: report_line,
        cost,
        sections,
    };
    let comment_md = comment::render(&data, Some(&order_marker(&marker, &doc.created_at)));
    let summary_md = comment::render(&data, None);
    let junit_xml = junit::render(&doc, comparison.as_ref(), locale, &failed_calls);
    let no_baseline = baseline.is_none();
    let spent_usd = BTreeMap::from([
        (
            "target".to_string(),
            cost::target_usd_of(&doc, spends.run.as_ref()),
        ),
        (
            "reference_target".to_string(),
            baseline
                .as_ref()
                .and_then(|b| cost::target_usd_of(b, spends.reference.as_ref())),
        ),
        (
            "judges".to_string(),
            spends.run.as_ref().and_then(|s| s.judges.usd),
        ),
        (
            "reference_judges".to_string(),
            spends.reference.as_ref().and_then(|s| s.judges.usd),
        ),
    ]);
    let html = render_html_report(
        doc,
        baseline,
        comparison,
        locale,
        args.report_payload,
        quiet,
        Beside {
            spends,
            failed: &failed_calls,
        },
    );

    crate::store::atomic::prepare_output_dir(&out_dir).map_err(|e| match e {
        crate::store::StoreError::Io { cause, .. } => CliError::Refused(format!(
            "cannot create the output directory {}: {cause}",
            out_dir.display()
        )),
        other => CliError::Store(other),
    })?;
    let path = |name: &str| out_dir.join(name).display().to_string();
    let outcome = GateOutcome {
        output_version: crate::wire::OUTPUT_VERSION,
        exit_code: code.code(),
        outcome: kind,
        no_baseline,
        headline: headline.clone(),
        tenant: suite.tenant.clone(),
        suite: suite.name.clone(),
        suite_path: args.suite.suite.display().to_string(),
        root: root_text,
        run_key: Some(key.clone()),
        baseline_key: data.baseline_key.clone(),
        baseline_path: Some(baseline_path.display().to_string()),
        counts,
        cases: view.case_counts.clone(),
        causes,
        spent_usd,
        spent: spends.run,
        reference_spent: spends.reference,
        locale: locale.code().to_string(),
        marker,
        baseline_changed: replaced.is_some(),
        paths: Paths {
            outcome: path("outcome.json"),
            comment: path("comment.md"),
            summary: path("summary.md"),
            junit: path("junit.xml"),
            report: html.as_ref().map(|_| path("report.html")),
        },
        retries: ran.then(|| crate::forge::outcome::retry_counts(&retried.counts())),
    };
    let mut files: Vec<(&str, String)> = vec![
        ("comment.md", comment_md.clone()),
        ("summary.md", summary_md.clone()),
        ("junit.xml", junit_xml),
        ("outcome.json", outcome.to_json()),
    ];
    if let Some(html) = html {
        files.push(("report.html", html));
    }
    for (name, text) in &files {
        write_file(&out_dir.join(name), text)?;
    }

    // The terminal text quotes case ids and check names: made visible
    // (no escape sequence, no bidi control), and on GitHub Actions printed
    // with workflow commands paused, so none of them can start one.
    let stdout_text =
        escape::terminal(&format!("{}{integrity_text_blocks}", view.terminal(locale)));
    let stderr_text = if view.no_baseline {
        escape::terminal(&no_baseline_refusal(
            &suite.name,
            &suite.tenant,
            &promote,
            locale,
            quiet,
        ))
    } else {
        String::new()
    } + &escape::terminal(&integrity_stderr);
    out(&stdout_text)?;
    err(&stderr_text);
    if let Some(t) = token.take() {
        outln(&actions::resume(&t))?;
    }

    let published = publish_files(&outcome, &comment_md, &summary_md, &args.publishing, env);
    for line in published.stdout {
        outln(&line)?;
    }
    if !quiet {
        for line in published.stderr {
            errln(&line);
        }
    }
    Ok(code)
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

/// Publish an outcome (shared by `gate` and `publish`).
pub fn publish_files(
    outcome: &GateOutcome,
    comment_md: &str,
    summary_md: &str,
    args: &PublishArgs,
    env: &CiEnv,
) -> forge::Published {
    let locale = Locale::parse(&outcome.locale).unwrap_or(Locale::En);
    let (comment_md, summary_md) = match args
        .report_url
        .as_deref()
        .and_then(|u| comment::report_link(u, locale, false))
    {
        Some(link) => (
            comment::set_report_line(comment_md, &link),
            comment::set_report_line(summary_md, &link),
        ),
        None => (comment_md.to_string(), summary_md.to_string()),
    };
    let req = forge::Request {
        outcome,
        comment: &comment_md,
        summary: &summary_md,
        mode: args.publish.mode(),
        comment_on_success: args.comment_on_success,
        write_comment: !args.no_comment,
        repository: args.repo.clone(),
        pull_request: args.pr,
        max_wait: Duration::from_secs(args.max_wait),
        now: host::clock::unix_now,
    };
    forge::publish(&req, env)
}

/// The comment's report line before `publish` knows the artifact link.
fn report_line(args: &PublishArgs, env: &CiEnv, out_dir: &Path, locale: Locale) -> String {
    if let Some(link) = args
        .report_url
        .as_deref()
        .and_then(|u| comment::report_link(u, locale, false))
    {
        return link;
    }
    if let Some(job) = &env.gitlab.job_url {
        let rel = out_dir.display().to_string();
        let rel = rel.trim_start_matches("./").trim_end_matches('/');
        if let Some(link) = comment::report_link(
            &format!("{}/artifacts/browse/{rel}", job.trim_end_matches('/')),
            locale,
            false,
        ) {
            return link;
        }
    }
    if let Some(run) = &env.github.run_url {
        if let Some(link) = comment::report_link(run, locale, true) {
            return link;
        }
    }
    comment::report_in_artifacts(locale)
}

/// Write one output file: atomically, never through a symbolic link.
fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    crate::store::atomic::write_output(path, text.as_bytes()).map_err(|e| match e {
        crate::store::StoreError::Io { cause, .. } => {
            CliError::Refused(format!("cannot write {}: {cause}", path.display()))
        }
        other => CliError::Store(other),
    })
}

/// Reads the base ref's baseline (when there is a base): what the gate says
/// about a replaced reference, and a warning when a base found by default
/// could not be read.
///
/// # Errors
/// [`CliError::Refused`] when `--base-ref` was given and cannot be read.
fn read_base(
    base: Option<&base_ref::BaseRev>,
    baseline_path: &Path,
) -> Result<(Option<BaseBaseline>, Option<String>), CliError> {
    let Some(base) = base else {
        return Ok((None, None));
    };
    match base_ref::read(base, baseline_path) {
        Ok(found) => Ok((Some(found), None)),
        Err(p) if p.refuses => Err(CliError::Refused(p.sentence)),
        Err(p) => Ok((None, Some(p.sentence))),
    }
}

/// With a readable base ref, each parameter edit (check id a → b) is shown
/// as the base's `suite.toml` and this one spell it: `maximum 40 → 50`,
/// loosened or tightened where defined. Without one, the ids stay.
fn spell_parameter_edits(c: &mut Comparison, args: &GateArgs, base: Option<&base_ref::BaseRev>) {
    let Some(base) = base else {
        return;
    };
    if !c
        .rule_changes
        .iter()
        .any(|r| r.field == crate::core::compare::RuleField::Parameters)
    {
        return;
    }
    if let Some((before, after)) = base_ref::declared_checks(base, &args.suite.suite) {
        let changes = std::mem::take(&mut c.rule_changes);
        c.rule_changes = crate::core::compare::spell_parameters(changes, &before, &after);
    }
}

/// A pull request that replaces the baseline file, and the run compared
/// with the base's reference (when the base had one).
struct Replaced {
    against_old: Option<Comparison>,
}

impl Replaced {
    fn judge(run: &RunDocument, base: Option<BaseBaseline>) -> Option<Replaced> {
        match base? {
            BaseBaseline::Same => None,
            BaseBaseline::Replaced(old) => Some(Replaced {
                // Another tenant's document at the base cannot be compared:
                // the replacement is still said, without the comparison.
                against_old: old.and_then(|o| compare_in_suite_order(run, &o).ok()),
            }),
        }
    }

    /// "This pull request replaces the approved reference. Against …, N checks got worse."
    fn sentence(&self, s: &IntegrityStrings) -> String {
        let Some(old) = &self.against_old else {
            return s.replaced.to_string();
        };
        let worse = old
            .deltas
            .iter()
            .filter(|d| d.outcome == Outcome::Regressed)
            .count();
        let then = match worse {
            0 => s.replaced_worse_none.to_string(),
            1 => s.replaced_worse_one.to_string(),
            n => s.replaced_worse_many.replace("{count}", &n.to_string()),
        };
        format!("{} {then}", s.replaced)
    }

    /// What got worse against the base's reference.
    fn worse_rows(&self) -> Vec<SectionRow> {
        self.against_old
            .as_ref()
            .map(|old| {
                old.listed()
                    .filter(|d| d.outcome == Outcome::Regressed)
                    .map(|d| SectionRow {
                        case: case_field(d),
                        check: d.assertion.to_string(),
                        detail: format!("{} → {}", side(&d.before), side(&d.after)),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The case field of a row (`run` for a run-level measure).
fn case_field(d: &Delta) -> String {
    match d.key.scope {
        Scope::Case => d.key.case_id.to_string(),
        Scope::Run => "run".to_string(),
    }
}

/// One side of a delta as the tables show it: `pass 1.000000`, `error`, `—`.
fn side(side: &Option<Side>) -> String {
    side.as_ref().map_or_else(
        || "—".to_string(),
        |s| gate_view::side_text(s.status, s.score),
    )
}

/// The comment's sections for rule changes and coverage of the reference.
fn coverage_sections(c: &Comparison, s: &IntegrityStrings) -> Vec<Section> {
    let mut out = Vec::new();
    let rules: Vec<String> = c
        .rule_changes
        .iter()
        .map(|r| integrity_text::rule_line(r, s))
        .collect();
    if !rules.is_empty() {
        out.push(Section::lines(s.title_rules, rules));
    }
    let listed = |deltas: Vec<&Delta>, what: &str, side_of: fn(&Delta) -> &Option<Side>| {
        deltas
            .into_iter()
            .map(|d| SectionRow {
                case: case_field(d),
                check: d.assertion.to_string(),
                detail: format!("{what} ({})", side(side_of(d))),
            })
            .collect::<Vec<_>>()
    };
    let gone = listed(integrity_text::not_in_run(c), s.detail_not_in_run, |d| {
        &d.before
    });
    if !gone.is_empty() {
        out.push(Section::rows(s.title_not_in_run, gone));
    }
    let came = listed(integrity_text::new_in_run(c), s.detail_new_in_run, |d| {
        &d.after
    });
    if !came.is_empty() {
        out.push(Section::rows(s.title_new_in_run, came));
    }
    out
}

/// The comment's marker, then the ordering guard: the run's creation time,
/// so an older run never overwrites a comment that reports a newer one.
fn order_marker(marker: &str, created_at: &str) -> String {
    let safe: String = created_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '+' | '-'))
        .take(64)
        .collect();
    format!("{marker}\n{}", forge::order_line(&safe))
}
