//! The lines `run` and `gate` print on stderr while a run is under way — the
//! plan, the judging, the progress lines, a resume, retries, an unpriced
//! judge, the cases that could not be judged — in the reader's locale: the
//! `[progress]` table of `templates/locales/<code>.toml`.
//!
//! English is byte for byte what digline 0.10.0 prints (`5 cases × 1 sample
//! = 5 calls to the target`). Numbers keep a dot and money its six decimals
//! in every locale: only words are translated. The lines carry counts,
//! names, time and money only — never payload.
//!
//! Pure: the callers pass the numbers.

use super::locale::Locale;
use super::text::fill;

super::text::strings_table! {
    /// The `[progress]` strings of one locale.
    ProgressStrings = "progress";
    /// `1 case`.
    cases_one,
    /// `{count} cases`.
    cases_many,
    /// `1 sample`.
    samples_one,
    /// `{count} samples`.
    samples_many,
    /// `1 call`.
    calls_one,
    /// `{count} calls`.
    calls_many,
    /// `1 answer`.
    answers_one,
    /// `{count} answers`.
    answers_many,
    /// `{cases} × {samples} = {calls} to the target`.
    plan,
    /// `; each answer is judged {times} times by {name}`.
    repeated,
    /// `plus {calls} to judges ({per_answer} per answer × {answers})`.
    judges,
    /// [`ProgressStrings::judges`] with one judge anchor canary counted in.
    judges_anchored_one,
    /// [`ProgressStrings::judges`] with `{canaries}` canaries counted in.
    judges_anchored_many,
    /// `{done}/{total} cases, {errored} errored, {seconds} s, target ${target_usd}`.
    line,
    /// `, judges ${judges_usd}`.
    line_judges,
    /// ` ({count} unpriced judge calls not counted)`.
    line_unpriced,
    /// The unit after the bar's `{pos}/{len}`.
    bar_unit,
    /// The bar's message: `· {errored} errored · target … · judges …`.
    bar,
    /// `resuming run {key}: …`.
    resuming,
    /// `run {key} was already complete; its journal is removed`.
    already_complete,
    /// `the judge {judge} has no price, so its spend is not counted`.
    unpriced_judge,
    /// `{calls} call(s) were tried again ({retries} retries: {why})`.
    retried,
    /// `{count} call(s) failed at once: the asked wait was over --max-wait`.
    waits_refused,
    /// `{unjudged} of {cases} case(s) could not be judged; …`.
    unjudged,
    /// `re-asked {pairs} check(s) that failed where the reference passed …`.
    reasked,
    /// `shard {shard}: {count} case(s) of plan {plan} run here; …`.
    shard,
    /// `merged {shards} shard(s) of plan {plan} into run {key} ({count} case(s))`.
    merged,
    /// `shard {shard} stored as run {key}, with no verdict: …`.
    shard_stored,
    /// `shard {shard}: balanced by the durations of {count} case(s) recorded in run {key}; …`.
    shard_balanced,
    /// `shard {shard}: no full run recorded durations to balance by; …`.
    shard_unbalanced,
    /// `spending cap {cap_usd} USD; the last run spent {per_case_usd} USD a case: …`.
    budget_plan,
    /// `spending cap {cap_usd} USD; no earlier run recorded its spend, …`.
    budget_plan_unknown,
    /// `the spending cap of {cap_usd} USD was reached ({spent_usd} USD spent): …`.
    budget_exhausted,
    /// `judge memo ({mode}): {hits} reply(ies) reused, {misses} not held, {saved_usd} USD saved`.
    memo_done,
    /// `stopped by {signal}`.
    stopped_by,
    /// `stopped with {pending} case(s) not answered`.
    stopped_pending,
    /// `{what}; the answers so far are kept in {folder}, …: resume with: {hint}`.
    stopped,
    /// `the run goes on without its journal (…): {error}`.
    journal_broken,
    /// `the HTML report was not written: {error}`.
    report_not_written,
    /// `{endpoint} did not answer in time`.
    unreachable_timeout,
    /// `connection refused at {endpoint}: nothing is listening there`.
    unreachable_refused,
    /// `{endpoint} could not be found: its host name does not resolve`.
    unreachable_host,
    /// `{endpoint} could not be reached: the network has no route to it`.
    unreachable_route,
    /// `{endpoint} closed the connection without answering`.
    unreachable_closed,
    /// `{endpoint} could not be reached: the connection failed`.
    unreachable_failed,
    /// `{why}. Every case would fail the same way, so the run stops …`.
    preflight,
}

impl ProgressStrings {
    fn count(one: &str, many: &str, n: usize) -> String {
        if n == 1 {
            one.to_string()
        } else {
            fill(many, &[("count", &n.to_string())])
        }
    }

    /// `5 cases`.
    pub fn cases(&self, n: usize) -> String {
        Self::count(self.cases_one, self.cases_many, n)
    }

    /// `3 samples`.
    pub fn samples(&self, n: usize) -> String {
        Self::count(self.samples_one, self.samples_many, n)
    }

    /// `15 calls`.
    pub fn calls(&self, n: usize) -> String {
        Self::count(self.calls_one, self.calls_many, n)
    }

    /// `15 answers`.
    pub fn answers(&self, n: usize) -> String {
        Self::count(self.answers_one, self.answers_many, n)
    }

    /// `; each answer is judged 3 times by contains`.
    pub fn repeated(&self, name: &str, times: u32) -> String {
        fill(
            self.repeated,
            &[("times", &times.to_string()), ("name", name)],
        )
    }

    /// `5 cases × 1 sample = 5 calls to the target`, then a
    /// [`ProgressStrings::repeated`] clause per `repeated` check.
    pub fn plan(&self, cases: usize, samples: usize, repeated: &[(String, u32)]) -> String {
        let mut sentence = fill(
            self.plan,
            &[
                ("cases", &self.cases(cases)),
                ("samples", &self.samples(samples)),
                ("calls", &self.calls(cases * samples)),
            ],
        );
        for (name, times) in repeated {
            sentence.push_str(&self.repeated(name, *times));
        }
        sentence
    }

    /// `plus 11 calls to judges (2 per answer × 5 answers, and 1 judge
    /// anchor canary)`: `judge_calls` counts the canaries in.
    pub fn judges_anchored(
        &self,
        judge_calls: usize,
        per_answer: usize,
        answers: usize,
        canaries: usize,
    ) -> String {
        let template = if canaries == 1 {
            self.judges_anchored_one
        } else {
            self.judges_anchored_many
        };
        fill(
            template,
            &[
                ("calls", &self.calls(judge_calls)),
                ("per_answer", &per_answer.to_string()),
                ("answers", &self.answers(answers)),
                ("canaries", &canaries.to_string()),
            ],
        )
    }

    /// `plus 10 calls to judges (2 per answer × 5 answers)`.
    pub fn judges(&self, judge_calls: usize, per_answer: usize, answers: usize) -> String {
        fill(
            self.judges,
            &[
                ("calls", &self.calls(judge_calls)),
                ("per_answer", &per_answer.to_string()),
                ("answers", &self.answers(answers)),
            ],
        )
    }

    /// `40/200 cases, 1 errored, 12.3 s, target $0.004210`, then
    /// `, judges $0.000900` when judges were called, then how many judge
    /// calls had no price.
    pub fn line(&self, counts: &LineCounts) -> String {
        let mut line = fill(
            self.line,
            &[
                ("done", &counts.done.to_string()),
                ("total", &counts.total.to_string()),
                ("errored", &counts.errored.to_string()),
                ("seconds", &format!("{:.1}", counts.seconds)),
                ("target_usd", &format!("{:.6}", counts.target_usd)),
            ],
        );
        if counts.judge_calls > 0 {
            line.push_str(&fill(
                self.line_judges,
                &[("judges_usd", &format!("{:.6}", counts.judge_usd))],
            ));
            if counts.judge_unpriced > 0 {
                line.push_str(&fill(
                    self.line_unpriced,
                    &[("count", &counts.judge_unpriced.to_string())],
                ));
            }
        }
        line
    }

    /// The progress bar's message beside `{pos}/{len} cases`.
    pub fn bar(&self, errored: usize, target_usd: f64, judge_usd: f64) -> String {
        fill(
            self.bar,
            &[
                ("errored", &errored.to_string()),
                ("target_usd", &format!("{target_usd:.6}")),
                ("judges_usd", &format!("{judge_usd:.6}")),
            ],
        )
    }

    /// `resuming run KEY: 2 of 5 case(s) were answered before; asking for the other 3`.
    pub fn resuming(&self, key: &str, answered: usize, cases: usize, to_ask: usize) -> String {
        fill(
            self.resuming,
            &[
                ("key", key),
                ("answered", &answered.to_string()),
                ("cases", &cases.to_string()),
                ("to_ask", &to_ask.to_string()),
            ],
        )
    }

    /// `run KEY was already complete; its journal is removed`.
    pub fn already_complete(&self, key: &str) -> String {
        fill(self.already_complete, &[("key", key)])
    }

    /// The cap and, when an earlier run recorded its spend, the estimate:
    /// `estimate` is (USD a case, USD for `cases`).
    pub fn budget_plan(&self, cap_usd: f64, estimate: Option<(f64, f64)>, cases: usize) -> String {
        let cap = format!("{cap_usd:.6}");
        match estimate {
            Some((per_case, total)) => fill(
                self.budget_plan,
                &[
                    ("cap_usd", &cap),
                    ("per_case_usd", &format!("{per_case:.6}")),
                    ("estimate_usd", &format!("{total:.6}")),
                    ("cases", &cases.to_string()),
                ],
            ),
            None => fill(self.budget_plan_unknown, &[("cap_usd", &cap)]),
        }
    }

    /// The cap was reached: what was spent, how many cases were not judged.
    pub fn budget_exhausted(&self, cap_usd: f64, spent_usd: f64, unjudged: usize) -> String {
        fill(
            self.budget_exhausted,
            &[
                ("cap_usd", &format!("{cap_usd:.6}")),
                ("spent_usd", &format!("{spent_usd:.6}")),
                ("unjudged", &unjudged.to_string()),
            ],
        )
    }

    /// What the judge memo did.
    pub fn memo_done(&self, mode: &str, hits: u64, misses: u64, saved_usd: f64) -> String {
        fill(
            self.memo_done,
            &[
                ("mode", mode),
                ("hits", &hits.to_string()),
                ("misses", &misses.to_string()),
                ("saved_usd", &format!("{saved_usd:.6}")),
            ],
        )
    }

    /// `the judge openai:gpt-x has no price, so its spend is not counted`.
    pub fn unpriced_judge(&self, judge: &str) -> String {
        fill(self.unpriced_judge, &[("judge", judge)])
    }

    /// `2 call(s) were tried again (3 retries: http_429 2, timeout 1)`.
    pub fn retried(&self, calls: u64, retries: u64, why: &str) -> String {
        fill(
            self.retried,
            &[
                ("calls", &calls.to_string()),
                ("retries", &retries.to_string()),
                ("why", why),
            ],
        )
    }

    /// `1 call(s) failed at once: the asked wait was over --max-wait`.
    pub fn waits_refused(&self, count: u64) -> String {
        fill(self.waits_refused, &[("count", &count.to_string())])
    }

    /// `1 of 3 case(s) could not be judged; the run document (KEY) records why`.
    pub fn unjudged(&self, unjudged: usize, cases: usize, key: &str) -> String {
        fill(
            self.unjudged,
            &[
                ("unjudged", &unjudged.to_string()),
                ("cases", &cases.to_string()),
                ("key", key),
            ],
        )
    }

    /// `re-asked 2 check(s) that failed where the reference passed, before
    /// believing them: 5 more call(s) to the target`.
    pub fn reasked(&self, pairs: usize, calls: usize) -> String {
        fill(
            self.reasked,
            &[("pairs", &pairs.to_string()), ("calls", &calls.to_string())],
        )
    }

    /// `shard 1/2: 3 case(s) of plan PLAN run here; …`.
    pub fn shard(&self, shard: &str, count: usize, plan: &str) -> String {
        fill(
            self.shard,
            &[
                ("shard", shard),
                ("count", &count.to_string()),
                ("plan", plan),
            ],
        )
    }

    /// `merged 2 shard(s) of plan PLAN into run KEY (5 case(s))`.
    pub fn merged(&self, shards: usize, plan: &str, key: &str, count: usize) -> String {
        fill(
            self.merged,
            &[
                ("shards", &shards.to_string()),
                ("plan", plan),
                ("key", key),
                ("count", &count.to_string()),
            ],
        )
    }

    /// `shard 2/4: balanced by the durations of 30 case(s) recorded in run …`.
    pub fn shard_balanced(&self, shard: &str, count: usize, key: &str) -> String {
        fill(
            self.shard_balanced,
            &[
                ("shard", shard),
                ("count", &count.to_string()),
                ("key", key),
            ],
        )
    }

    /// `shard 2/4: no full run recorded durations to balance by; …`.
    pub fn shard_unbalanced(&self, shard: &str) -> String {
        fill(self.shard_unbalanced, &[("shard", shard)])
    }

    /// `shard 1/2 stored as run KEY, with no verdict: …`.
    pub fn shard_stored(&self, shard: &str, key: &str) -> String {
        fill(self.shard_stored, &[("shard", shard), ("key", key)])
    }

    /// `stopped by SIGTERM`.
    pub fn stopped_by(&self, signal: &str) -> String {
        fill(self.stopped_by, &[("signal", signal)])
    }

    /// `stopped with 3 case(s) not answered`.
    pub fn stopped_pending(&self, pending: usize) -> String {
        fill(self.stopped_pending, &[("pending", &pending.to_string())])
    }

    /// `<what>; the answers so far are kept in <folder>, and no run was
    /// stored: resume with: <hint>`.
    pub fn stopped(&self, what: &str, folder: &str, hint: &str) -> String {
        fill(
            self.stopped,
            &[("what", what), ("folder", folder), ("hint", hint)],
        )
    }

    /// The journal could not be written: `error` is the I/O cause.
    pub fn journal_broken(&self, error: &str) -> String {
        fill(self.journal_broken, &[("error", error)])
    }

    /// The HTML report could not be rendered: `error` is the template's cause.
    pub fn report_not_written(&self, error: &str) -> String {
        fill(self.report_not_written, &[("error", error)])
    }

    /// The preflight's refusal: nothing answered at the target, `why` in
    /// the words of [`Unreachable`], naming `endpoint` (host:port) only.
    pub fn preflight(&self, why: Unreachable, endpoint: &str) -> String {
        let template = match why {
            Unreachable::Timeout => self.unreachable_timeout,
            Unreachable::Refused => self.unreachable_refused,
            Unreachable::HostNotFound => self.unreachable_host,
            Unreachable::NoRoute => self.unreachable_route,
            Unreachable::Closed => self.unreachable_closed,
            Unreachable::Failed => self.unreachable_failed,
        };
        let why = fill(template, &[("endpoint", endpoint)]);
        fill(self.preflight, &[("why", &why)])
    }
}

/// Why nothing answered at the target before the first case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreachable {
    /// No answer in time.
    Timeout,
    /// Connection refused: nothing listening.
    Refused,
    /// The host name does not resolve.
    HostNotFound,
    /// The network has no route to the host.
    NoRoute,
    /// The connection was closed or reset without an answer.
    Closed,
    /// Any other failure to connect.
    Failed,
}

/// The numbers of one progress line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LineCounts {
    /// Cases finished.
    pub done: usize,
    /// Cases to ask in all.
    pub total: usize,
    /// Finished cases with an `error` verdict.
    pub errored: usize,
    /// Seconds since the run started.
    pub seconds: f64,
    /// Target spend, USD.
    pub target_usd: f64,
    /// Judge spend, USD (priced calls).
    pub judge_usd: f64,
    /// Judge calls that answered.
    pub judge_calls: u64,
    /// Judge calls without a price.
    pub judge_unpriced: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> LineCounts {
        LineCounts {
            done: 2,
            total: 3,
            errored: 1,
            seconds: 0.04,
            target_usd: 0.001,
            judge_usd: 0.0005,
            judge_calls: 2,
            judge_unpriced: 1,
        }
    }

    #[test]
    fn english_is_0_10_0_s_wording() {
        let en = ProgressStrings::of(Locale::En);
        assert_eq!(
            en.plan(3, 1, &[]),
            "3 cases × 1 sample = 3 calls to the target"
        );
        assert_eq!(
            en.plan(1, 5, &[("contains".into(), 3)]),
            "1 case × 5 samples = 5 calls to the target; each answer is judged 3 times by contains"
        );
        assert_eq!(
            en.judges(6, 2, 3),
            "plus 6 calls to judges (2 per answer × 3 answers)"
        );
        assert_eq!(
            en.judges(1, 1, 1),
            "plus 1 call to judges (1 per answer × 1 answer)"
        );
        assert_eq!(
            en.line(&counts()),
            "2/3 cases, 1 errored, 0.0 s, target $0.001000, judges $0.000500 \
             (1 unpriced judge calls not counted)"
        );
        let no_judges = LineCounts {
            judge_calls: 0,
            ..counts()
        };
        assert_eq!(
            en.line(&no_judges),
            "2/3 cases, 1 errored, 0.0 s, target $0.001000"
        );
        assert_eq!(
            en.bar(1, 0.001, 0.0),
            "· 1 errored · target $0.001000 · judges $0.000000"
        );
    }

    #[test]
    fn every_locale_says_the_plan_and_the_line_in_its_own_words() {
        let want = [
            (
                Locale::It,
                "3 casi × 1 campione = 3 chiamate al sistema",
                "più 6 chiamate ai giudici (2 per risposta × 3 risposte)",
                "2/3 casi, 1 in errore, 0.0 s, sistema $0.001000, giudici $0.000500 \
                 (1 chiamate a giudici senza prezzo non contate)",
            ),
            (
                Locale::De,
                "3 Fälle × 1 Stichprobe = 3 Aufrufe an das System",
                "dazu 6 Aufrufe an Bewerter (2 pro Antwort × 3 Antworten)",
                "2/3 Fälle, 1 mit Fehler, 0.0 s, System $0.001000, Bewerter $0.000500 \
                 (1 Bewerter-Aufrufe ohne Preis nicht gezählt)",
            ),
            (
                Locale::Fr,
                "3 cas × 1 échantillon = 3 appels au système",
                "plus 6 appels aux juges (2 par réponse × 3 réponses)",
                "2/3 cas, 1 en erreur, 0.0 s, système $0.001000, juges $0.000500 \
                 (1 appels à des juges sans prix non comptés)",
            ),
            (
                Locale::Es,
                "3 casos × 1 muestra = 3 llamadas al sistema",
                "más 6 llamadas a los jueces (2 por respuesta × 3 respuestas)",
                "2/3 casos, 1 con error, 0.0 s, sistema $0.001000, jueces $0.000500 \
                 (1 llamadas a jueces sin precio no contadas)",
            ),
            (
                Locale::Pt,
                "3 casos × 1 amostra = 3 chamadas ao sistema",
                "mais 6 chamadas aos juízes (2 por resposta × 3 respostas)",
                "2/3 casos, 1 com erro, 0.0 s, sistema $0.001000, juízes $0.000500 \
                 (1 chamadas a juízes sem preço não contadas)",
            ),
        ];
        for (locale, plan, judges, line) in want {
            let s = ProgressStrings::of(locale);
            assert_eq!(s.plan(3, 1, &[]), plan, "{locale}");
            assert_eq!(s.judges(6, 2, 3), judges, "{locale}");
            assert_eq!(s.line(&counts()), line, "{locale}");
        }
    }

    #[test]
    fn the_stop_and_the_other_lines_keep_their_english_and_are_translated() {
        let en = ProgressStrings::of(Locale::En);
        assert_eq!(
            en.stopped(&en.stopped_by("SIGTERM"), ".digline/t/runs/s/.pending", "digline run --suite s.toml --resume K"),
            "stopped by SIGTERM; the answers so far are kept in .digline/t/runs/s/.pending, and no \
             run was stored: resume with: digline run --suite s.toml --resume K"
        );
        assert_eq!(en.stopped_pending(3), "stopped with 3 case(s) not answered");
        assert_eq!(
            en.resuming("K", 2, 5, 3),
            "resuming run K: 2 of 5 case(s) were answered before; asking for the other 3"
        );
        assert_eq!(
            en.unjudged(1, 3, "K"),
            "1 of 3 case(s) could not be judged; the run document (K) records why"
        );
        assert_eq!(
            en.retried(2, 4, "rate_limited 2, server_error 1, connection 1"),
            "2 call(s) were tried again (4 retries: rate_limited 2, server_error 1, connection 1)"
        );
        let de = ProgressStrings::of(Locale::De);
        assert_eq!(
            de.stopped(&de.stopped_pending(3), "P", "H"),
            "angehalten mit 3 unbeantworteten Fall/Fällen; die bisherigen Antworten liegen in P, \
             und es wurde kein Lauf gespeichert: fortsetzen mit: H"
        );
        assert_eq!(
            de.unpriced_judge("openai/gpt-x"),
            "der Bewerter openai/gpt-x hat keinen Preis, daher werden seine Kosten nicht gezählt"
        );
    }

    #[test]
    fn the_preflight_refusal_is_said_in_each_locale() {
        assert_eq!(
            ProgressStrings::of(Locale::En).preflight(Unreachable::Refused, "127.0.0.1:8731"),
            "connection refused at 127.0.0.1:8731: nothing is listening there. Every case would \
             fail the same way, so the run stops before the first one — start the application, \
             or point the target at it"
        );
        assert_eq!(
            ProgressStrings::of(Locale::De).preflight(Unreachable::Timeout, "h:1"),
            "h:1 hat nicht rechtzeitig geantwortet. Jeder Fall würde genauso scheitern, daher \
             hält der Lauf vor dem ersten an — starte die Anwendung oder richte das System auf sie aus"
        );
        for locale in Locale::ALL {
            for why in [
                Unreachable::Timeout,
                Unreachable::Refused,
                Unreachable::HostNotFound,
                Unreachable::NoRoute,
                Unreachable::Closed,
                Unreachable::Failed,
            ] {
                let text = ProgressStrings::of(locale).preflight(why, "h:1");
                assert!(
                    text.contains("h:1") && !text.contains('{'),
                    "{locale}: {text}"
                );
                assert!(
                    !text.contains("Errno") && !text.contains("urlopen"),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn every_key_of_the_table_is_in_every_locale() {
        for locale in Locale::ALL {
            for key in ProgressStrings::KEYS {
                assert!(
                    locale.catalog().get(key).is_some(),
                    "{locale}: {key} is missing"
                );
            }
        }
    }
}
