//! Why a check could not be judged, in digline's own words: a cause
//! *category* and the measured facts (status code, `host:port`, the path that
//! was missing), derived from the reason a run document stores.
//!
//! Run documents keep digline 0.10.0's bytes (`target raised ValueError:
//! 127.0.0.1:8731 could not be called: HTTP Error 404: Not Found`), and those
//! bytes may quote what the system answered (`answered something that is not
//! JSON: '<html>…'`) or what a judge wrote. So a reason is never printed
//! where people read it: [`classify`] reads its fixed prefixes and keeps only
//! facts that are not payload — a status code (three digits), an endpoint
//! (host characters only), a path from the suite (path characters only).
//! Everything else the reason holds is dropped. [`Cause::sentence`] then
//! says it in the reader's locale (`[cause]` table of the strings files).
//!
//! The prefixes read here are the ones `client::http`, `client::provider`,
//! `core::checks::judged` and `run::driver` write; a test in this module
//! classifies each of them, and the goldens' 0.10.0 reasons.
//!
//! Pure.

use serde::Serialize;

use super::locale::Locale;
use super::text::fill;

/// What kind of failure stopped a check from judging. The slug
/// ([`Category::as_str`]) is stable: JUnit's `type`, `outcome.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The endpoint answered outside 2xx.
    HttpStatus,
    /// No answer in time.
    Timeout,
    /// Nothing listening (connection refused).
    ConnectionRefused,
    /// The host name does not resolve.
    HostNotFound,
    /// The connection failed, was reset or closed, or TLS failed.
    ConnectionFailed,
    /// The answer is not JSON.
    NotJson,
    /// The answer is not UTF-8 text.
    NotUtf8,
    /// The answer is larger than digline reads.
    TooLarge,
    /// The answer has nothing at a path the suite reads (`output_path`, `cost_path`).
    OutputPathMissing,
    /// The answer is JSON, but not in the shape digline reads.
    AnswerUnreadable,
    /// The case lacks an input the request body needs.
    CaseInput,
    /// The judge's reply could not be read.
    JudgeReplyUnparsable,
    /// The judge declined to score.
    JudgeDeclined,
    /// The check itself could not judge the answer it was given.
    CheckError,
    /// The run's spending cap (`--max-usd`) was reached before the call.
    Budget,
    /// A gateway refused the call: its budget is spent.
    GatewayBudget,
    /// `--judge-memo replay` holds no reply, and no judge may be asked.
    MemoMiss,
    /// The answer holds a secret digline masks: not sent to a judge, and
    /// its masked copy not graded again (`rejudge`).
    MaskedAnswer,
    /// No reason was recorded (a redacted run), or one digline does not know.
    Unknown,
}

impl Category {
    /// Every category, in the order they are documented.
    pub const ALL: [Category; 19] = [
        Category::HttpStatus,
        Category::Timeout,
        Category::ConnectionRefused,
        Category::HostNotFound,
        Category::ConnectionFailed,
        Category::NotJson,
        Category::NotUtf8,
        Category::TooLarge,
        Category::OutputPathMissing,
        Category::AnswerUnreadable,
        Category::CaseInput,
        Category::JudgeReplyUnparsable,
        Category::JudgeDeclined,
        Category::CheckError,
        Category::Budget,
        Category::GatewayBudget,
        Category::MemoMiss,
        Category::MaskedAnswer,
        Category::Unknown,
    ];

    /// The stable slug (`http_status`, `timeout`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::HttpStatus => "http_status",
            Category::Timeout => "timeout",
            Category::ConnectionRefused => "connection_refused",
            Category::HostNotFound => "host_not_found",
            Category::ConnectionFailed => "connection_failed",
            Category::NotJson => "not_json",
            Category::NotUtf8 => "not_utf8",
            Category::TooLarge => "too_large",
            Category::OutputPathMissing => "output_path_missing",
            Category::AnswerUnreadable => "answer_unreadable",
            Category::CaseInput => "case_input",
            Category::JudgeReplyUnparsable => "judge_reply_unparsable",
            Category::JudgeDeclined => "judge_declined",
            Category::CheckError => "check_error",
            Category::Budget => "budget",
            Category::GatewayBudget => "gateway_budget",
            Category::MemoMiss => "memo_miss",
            Category::MaskedAnswer => "masked_answer",
            Category::Unknown => "unknown",
        }
    }
}

/// Who failed: the system under test, a judge, or the check itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    /// The target (the system under test).
    Target,
    /// A judge model.
    Judge,
    /// The check.
    Check,
}

/// A cause: its category and the facts measured with it. Holds no payload.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Cause {
    /// What kind of failure.
    pub category: Category,
    /// Whose failure.
    pub party: Party,
    /// The HTTP status code, for [`Category::HttpStatus`].
    pub status: Option<u16>,
    /// `host[:port]` of the endpoint, when the reason names one.
    pub endpoint: Option<String>,
    /// The dotted path that was missing, for [`Category::OutputPathMissing`].
    pub path: Option<String>,
    /// How long the call took, in milliseconds, when it was measured.
    pub elapsed_ms: Option<u64>,
    /// For [`Category::AnswerUnreadable`] at a named path: what the suite
    /// reads there. Chooses the sentence; not part of the stable output.
    #[serde(skip)]
    pub reads: Option<Reads>,
}

/// What the suite reads at a path of the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reads {
    /// The output (`output_path`): text, an object or a list.
    Output,
    /// A number (`cost_path`, `latency_from_response`).
    Number,
}

impl Cause {
    fn new(category: Category, party: Party) -> Cause {
        Cause {
            category,
            party,
            status: None,
            endpoint: None,
            path: None,
            elapsed_ms: None,
            reads: None,
        }
    }

    /// The cause of a verdict whose reason is unknown (redacted).
    pub fn unknown() -> Cause {
        Cause::new(Category::Unknown, Party::Check)
    }

    /// One sentence in `locale`, built from the category and the facts only.
    pub fn sentence(&self, locale: Locale) -> String {
        let who = match (self.party, &self.endpoint) {
            (Party::Judge, Some(at)) => {
                fill(locale.text("cause.who_judge_at"), &[("endpoint", at)])
            }
            (Party::Judge, None) => locale.text("cause.who_judge").to_string(),
            (_, Some(at)) => fill(locale.text("cause.who_target_at"), &[("endpoint", at)]),
            (_, None) => locale.text("cause.who_target").to_string(),
        };
        let key = match (self.category, &self.path, self.reads) {
            (Category::OutputPathMissing, None, _) => {
                "cause.output_path_missing_unnamed".to_string()
            }
            (Category::AnswerUnreadable, Some(_), Some(Reads::Output)) => {
                "cause.answer_not_output".to_string()
            }
            (Category::AnswerUnreadable, Some(_), Some(Reads::Number)) => {
                "cause.answer_not_number".to_string()
            }
            (c, _, _) => format!("cause.{}", c.as_str()),
        };
        let status = self.status.map(|s| s.to_string()).unwrap_or_default();
        let mut text = fill(
            locale.text(&key),
            &[
                ("who", &who),
                ("status", &status),
                ("path", self.path.as_deref().unwrap_or("")),
            ],
        );
        if let Some(ms) = self.elapsed_ms {
            text.push_str(&fill(
                locale.text("cause.elapsed"),
                &[("elapsed_ms", &ms.to_string())],
            ));
        }
        capitalise(&text)
    }

    /// A short label (`HTTP 404`, `timeout`): for JUnit's `type` and tight columns.
    pub fn label(&self) -> String {
        match (self.category, self.status) {
            (Category::HttpStatus, Some(s)) => format!("http_{s}"),
            (c, _) => c.as_str().to_string(),
        }
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The cause of an errored verdict, from its stored `reason` (empty when the
/// run was redacted). Never fails: an unknown shape is [`Category::CheckError`]
/// (or [`Category::Unknown`] when there is no reason at all).
pub fn classify(reason: &str) -> Cause {
    let reason = reason.trim();
    if reason.is_empty() {
        return Cause::unknown();
    }
    // `target raised ValueError: …` (0.10.0 wrote other exception names too).
    // `run::budget::BUDGET_REASON`: the cap kept the call from being sent.
    if reason.starts_with(CAP_REACHED) {
        return Cause::new(Category::Budget, Party::Target);
    }
    // `run::memo::REPLAY_MISS`.
    if reason.starts_with("the judge was not asked: --judge-memo replay") {
        return Cause::new(Category::MemoMiss, Party::Judge);
    }
    // `run::driver::NOT_SENT_TO_JUDGE` (also as every sample's cause,
    // `core::sampling`), `run::rejudge::not_regraded`.
    let every_sample = reason
        .strip_prefix("no sample could be judged over ")
        .and_then(|rest| rest.split_once(" attempts: "))
        .map_or(reason, |(_, cause)| cause);
    if every_sample.starts_with("not judged: the answer holds a value digline masks") {
        return Cause::new(Category::MaskedAnswer, Party::Judge);
    }
    if reason.starts_with("not graded again: run ") && reason.contains(" with a secret masked") {
        return Cause::new(Category::MaskedAnswer, Party::Check);
    }
    if let Some(rest) = reason.strip_prefix("target raised ") {
        let inner = rest.split_once(": ").map_or("", |(_, inner)| inner);
        return target_cause(inner, Party::Target);
    }
    if let Some(inner) = reason.strip_prefix("the judge could not be called: ") {
        if inner.starts_with(CAP_REACHED) {
            return Cause::new(Category::Budget, Party::Judge);
        }
        let mut cause = target_cause(inner, Party::Judge);
        if matches!(
            cause.category,
            Category::CaseInput | Category::CheckError | Category::Unknown
        ) {
            cause.category = Category::ConnectionFailed;
        }
        return cause;
    }
    if reason.starts_with("the judge's reply could not be read")
        || reason.starts_with("the judge found no claims")
    {
        return Cause::new(Category::JudgeReplyUnparsable, Party::Judge);
    }
    if reason.starts_with("the judge declined") {
        return Cause::new(Category::JudgeDeclined, Party::Judge);
    }
    Cause::new(Category::CheckError, Party::Check)
}

/// The cause a target (or a judge's endpoint) reported, as `client::http`
/// and `client::provider` word it.
fn target_cause(text: &str, party: Party) -> Cause {
    if let Some(rest) = text.strip_prefix("cannot read ") {
        let mut cause = Cause::new(Category::OutputPathMissing, party);
        cause.path = quoted_path(rest);
        return cause;
    }
    if let Some((host, said)) = text.split_once(" could not be called: ") {
        let mut cause = Cause::new(transport(said), party);
        cause.endpoint = endpoint(host);
        if cause.category == Category::HttpStatus {
            cause.status = http_status(said);
        }
        return cause;
    }
    if let Some((host, said)) = text.split_once(" answered ") {
        let category = if said.starts_with("something that is not JSON") {
            Category::NotJson
        } else {
            Category::AnswerUnreadable
        };
        let mut cause = Cause::new(category, party);
        cause.endpoint = endpoint(host);
        return cause;
    }
    if text.starts_with("case ") && text.contains(", which the body asks for as ") {
        return Cause::new(Category::CaseInput, party);
    }
    // `client::http::paths`: `'data.answer' holds a NoneType, which is not
    // an Output`, `'usage.cost_usd' holds True, which is not a number`.
    if let Some((place, held)) = text.split_once(" holds ") {
        if held.contains("which is not") {
            let mut cause = Cause::new(Category::AnswerUnreadable, party);
            cause.reads = if held.ends_with("which is not an Output") {
                Some(Reads::Output)
            } else if held.ends_with("which is not a number") {
                Some(Reads::Number)
            } else {
                None
            };
            cause.path = cause.reads.and_then(|_| quoted_path(place));
            return cause;
        }
    }
    let mut cause = Cause::new(Category::CheckError, party);
    if party == Party::Target {
        cause.category = Category::AnswerUnreadable;
    }
    cause
}

/// The start of a reason the spending cap wrote (`run::budget`).
const CAP_REACHED: &str = "the spending cap was reached";

/// The category of what followed `could not be called: `.
fn transport(said: &str) -> Category {
    let lower = said.to_ascii_lowercase();
    // `client::provider::BUDGET_REFUSED`.
    if said.starts_with("its budget at the gateway is spent") {
        Category::GatewayBudget
    } else if said.starts_with("HTTP Error ") {
        Category::HttpStatus
    } else if lower.contains("timed out") {
        Category::Timeout
    } else if lower.contains("connection refused") || said.contains("[Errno 111]") {
        Category::ConnectionRefused
    } else if lower.contains("name or service not known")
        || lower.contains("nodename nor servname")
        || said.contains("[Errno -2]")
        || said.contains("[Errno -3]")
    {
        Category::HostNotFound
    } else if said.contains("codec can't decode") {
        Category::NotUtf8
    } else if said.contains("is larger than") {
        Category::TooLarge
    } else {
        Category::ConnectionFailed
    }
}

/// `HTTP Error 404: Not Found` → 404.
fn http_status(said: &str) -> Option<u16> {
    let digits: String = said
        .strip_prefix("HTTP Error ")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse::<u16>()
        .ok()
        .filter(|s| (100..=999).contains(s))
}

/// A `host[:port]` as the clients write it; `None` when it holds anything
/// else (so nothing but host characters is ever repeated).
pub fn endpoint(host: &str) -> Option<String> {
    let ok = !host.is_empty()
        && host.len() <= 255
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'));
    ok.then(|| host.to_string())
}

/// `'data.answer': no 'answer' in a, b` → `data.answer` (path characters only).
fn quoted_path(rest: &str) -> Option<String> {
    let inner = rest.strip_prefix('\'')?;
    let end = inner.find('\'')?;
    let path = &inner[..end];
    let ok = !path.is_empty()
        && path.len() <= 200
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '[' | ']'));
    ok.then(|| path.to_string())
}

/// A stored reason in digline's own voice, for the report's "why" column
/// (shown only when reasons are part of the report): 0.10.0's grammar slips
/// are mended; the document keeps its bytes.
pub fn voice(reason: &str) -> String {
    reason
        .replace("does not ends with", "does not end with")
        .replace("does not starts with", "does not start with")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(reason: &str) -> (Category, Party, Option<u16>, Option<String>, Option<String>) {
        let c = classify(reason);
        (c.category, c.party, c.status, c.endpoint, c.path)
    }

    #[test]
    fn every_reason_the_clients_write_has_its_category_and_facts() {
        let host = Some("127.0.0.1:18950".to_string());
        let cases: Vec<(&str, Category, Option<u16>, Option<String>)> = vec![
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: HTTP Error 500: Internal Server Error",
                Category::HttpStatus,
                Some(500),
                host.clone(),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: HTTP Error 404: Not Found (the model 'x' does not exist)",
                Category::HttpStatus,
                Some(404),
                host.clone(),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: timed out",
                Category::Timeout,
                None,
                host.clone(),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: <urlopen error [Errno 111] Connection refused>",
                Category::ConnectionRefused,
                None,
                host.clone(),
            ),
            (
                "target raised ValueError: api.openai.com could not be called: Connection refused (os error 111)",
                Category::ConnectionRefused,
                None,
                Some("api.openai.com".into()),
            ),
            (
                "target raised ValueError: nowhere.invalid could not be called: <urlopen error [Errno -2] Name or service not known>",
                Category::HostNotFound,
                None,
                Some("nowhere.invalid".into()),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: Remote end closed connection without response",
                Category::ConnectionFailed,
                None,
                host.clone(),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
                Category::NotUtf8,
                None,
                host.clone(),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 could not be called: the answer is larger than 16 MiB, the most digline reads",
                Category::TooLarge,
                None,
                host.clone(),
            ),
            (
                "target raised ValueError: 127.0.0.1:18950 answered something that is not JSON: '<html>gateway</html>'",
                Category::NotJson,
                None,
                host.clone(),
            ),
            (
                "target raised ValueError: api.anthropic.com answered no text block",
                Category::AnswerUnreadable,
                None,
                Some("api.anthropic.com".into()),
            ),
            (
                "target raised ValueError: case 'c2' has no metadata['x'], which the body asks for as 'case.metadata.x'. It has: nothing",
                Category::CaseInput,
                None,
                None,
            ),
            (
                "the judge could not be called: 127.0.0.1:9 could not be called: HTTP Error 429: Too Many Requests",
                Category::HttpStatus,
                Some(429),
                Some("127.0.0.1:9".into()),
            ),
        ];
        for (reason, category, status, endpoint) in cases {
            let c = classify(reason);
            assert_eq!(c.category, category, "{reason}");
            assert_eq!(c.status, status, "{reason}");
            assert_eq!(c.endpoint, endpoint, "{reason}");
        }
        assert_eq!(
            cause("target raised ValueError: cannot read 'data.answer': no 'answer' in nothing"),
            (
                Category::OutputPathMissing,
                Party::Target,
                None,
                None,
                Some("data.answer".into())
            )
        );
        assert_eq!(
            classify(
                "the judge's reply could not be read: the judge replied with no JSON object: 'x'"
            )
            .category,
            Category::JudgeReplyUnparsable
        );
        assert_eq!(
            classify("the judge declined to score: off topic").category,
            Category::JudgeDeclined
        );
        assert_eq!(
            classify("expected is missing: equals cannot judge without an expected value").category,
            Category::CheckError
        );
        assert_eq!(classify("").category, Category::Unknown);
    }

    #[test]
    fn the_cap_a_gateway_budget_and_a_replay_miss_are_named_as_such() {
        let rows = [
            (
                "the spending cap was reached before this case was asked",
                Category::Budget,
                Party::Target,
                None,
            ),
            (
                "the spending cap was reached: the call's worst case did not fit in what is left of 0.010000 USD, so it was not sent",
                Category::Budget,
                Party::Target,
                None,
            ),
            (
                "the judge could not be called: the spending cap was reached: the call's worst case did not fit",
                Category::Budget,
                Party::Judge,
                None,
            ),
            (
                "target raised ValueError: 127.0.0.1:4000 could not be called: its budget at the gateway is spent (HTTP Error 400: Bad Request (budget_exceeded: Budget has been exceeded!))",
                Category::GatewayBudget,
                Party::Target,
                Some("127.0.0.1:4000"),
            ),
            (
                "the judge could not be called: 127.0.0.1:4000 could not be called: its budget at the gateway is spent (HTTP Error 429: Too Many Requests)",
                Category::GatewayBudget,
                Party::Judge,
                Some("127.0.0.1:4000"),
            ),
            (
                "the judge was not asked: --judge-memo replay holds no reply for it; the nearest entry for this case and check differs in: answer",
                Category::MemoMiss,
                Party::Judge,
                None,
            ),
            (
                "not judged: the answer holds a value digline masks (a secret the target echoed back, shown as *** in what is kept), so it was not sent to the judge; a masked copy would not be the answer",
                Category::MaskedAnswer,
                Party::Judge,
                None,
            ),
            (
                "no sample could be judged over 3 attempts: not judged: the answer holds a value digline masks (a secret …)",
                Category::MaskedAnswer,
                Party::Judge,
                None,
            ),
            (
                "not graded again: run K kept this answer with a secret masked as ***, so it is not the answer the target gave, and this check or the case's expected, context or min_agreement changed since; run the suite again to grade it",
                Category::MaskedAnswer,
                Party::Check,
                None,
            ),
        ];
        for (reason, category, party, endpoint) in rows {
            let c = classify(reason);
            assert_eq!(
                (c.category, c.party, c.endpoint.as_deref()),
                (category, party, endpoint),
                "{reason}"
            );
        }
        assert_eq!(
            classify(rows[0].0).sentence(Locale::En),
            "The target was not asked: the run's spending cap (--max-usd) was reached."
        );
        assert_eq!(
            classify(rows[4].0).sentence(Locale::En),
            "The judge at 127.0.0.1:4000 refused the call: its budget at the gateway is spent."
        );
        assert_eq!(
            classify(rows[5].0).sentence(Locale::En),
            "The judge was not asked: --judge-memo replay holds no reply for this answer."
        );
        assert_eq!(
            classify(rows[6].0).sentence(Locale::En),
            "The answer holds a secret digline masks: it was not sent to a judge, and a masked copy is not graded."
        );
    }

    #[test]
    fn nothing_but_facts_survives_from_a_hostile_reason() {
        // A reason whose "host" and "path" carry payload keeps neither.
        let c = classify(
            "target raised ValueError: <b>@org/team</b> could not be called: HTTP Error 99999: x",
        );
        assert_eq!(c.endpoint, None);
        assert_eq!(c.status, None);
        let c = classify("target raised ValueError: cannot read 'a b\u{202e}': no");
        assert_eq!(c.path, None);
        assert_eq!(c.category, Category::OutputPathMissing);
        let s = c.sentence(Locale::En);
        assert!(!s.contains('\u{202e}') && !s.contains("a b"), "{s}");
    }

    #[test]
    fn sentences_name_the_facts() {
        let c = classify("target raised ValueError: 127.0.0.1:8731 could not be called: HTTP Error 404: Not Found");
        assert_eq!(
            c.sentence(Locale::En),
            "The target at 127.0.0.1:8731 answered HTTP 404."
        );
        let c =
            classify("target raised ValueError: cannot read 'data.answer': no 'answer' in nothing");
        assert_eq!(
            c.sentence(Locale::En),
            "The target answered with a success status, but the answer has nothing at data.answer, where the suite reads it (an error reported inside a successful answer reads this way)."
        );
        // 0.10.0's words for a null answer, said as a reader's sentence,
        // with the endpoint the run recorded beside its document.
        let mut c = classify(
            "target raised ValueError: 'data.answer' holds a NoneType, which is not an Output",
        );
        assert_eq!(
            (c.category, c.path.as_deref(), c.reads),
            (
                Category::AnswerUnreadable,
                Some("data.answer"),
                Some(Reads::Output)
            )
        );
        c.endpoint = Some("127.0.0.1:8731".into());
        assert_eq!(
            c.sentence(Locale::En),
            "The target at 127.0.0.1:8731 answered with a success status, but data.answer holds no text, object or list: it is null, a number or true/false."
        );
        let c = classify(
            "target raised ValueError: 'usage.cost_usd' holds True, which is not a number",
        );
        assert_eq!(
            c.sentence(Locale::En),
            "The target answered with a success status, but usage.cost_usd holds no number."
        );
        let c = classify("target raised ValueError: 'a b' holds True, which is not a number");
        assert_eq!(c.path, None, "no payload in the path");
        for locale in Locale::ALL {
            for category in Category::ALL {
                let mut c = Cause::new(category, Party::Target);
                c.status = Some(503);
                c.path = Some("data.x".into());
                for reads in [None, Some(Reads::Output), Some(Reads::Number)] {
                    c.reads = reads;
                    let s = c.sentence(locale);
                    assert!(
                        !s.is_empty() && !s.contains('{'),
                        "{locale} {category:?}: {s}"
                    );
                }
            }
        }
    }
}
