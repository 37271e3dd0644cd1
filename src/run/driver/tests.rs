//! Driver tests with a scripted target: samples asked in order per case and folded.

use super::*;
use crate::core::checks::build;
use std::collections::HashMap;

/// Answers per case id from a list, in call order; `None` entries fail.
struct Scripted {
    answers: HashMap<String, Vec<Option<&'static str>>>,
    calls: Mutex<HashMap<String, usize>>,
}

impl Ask for Scripted {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        let n = {
            let mut calls = self
                .calls
                .lock()
                .map_err(|e| Failure::permanent(e.to_string()))?;
            let n = calls.entry(case.id.clone()).or_insert(0);
            *n += 1;
            *n - 1
        };
        // Let other workers interleave between a case's samples.
        std::thread::sleep(std::time::Duration::from_millis(1));
        match self
            .answers
            .get(&case.id)
            .and_then(|a| a.get(n))
            .copied()
            .flatten()
        {
            Some(text) => Ok(Response {
                tokens: None,
                output: Value::String(text.to_string()),
                input: "{}".to_string(),
                cost_usd: Some(0.001),
                latency_ms: 5.0,
                config: None,
            }),
            None => Err(Failure::permanent("127.0.0.1:1 could not be called: boom")),
        }
    }

    fn target_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

fn suite(cases: &[&str], samples: u32) -> Suite {
    let params = serde_json::json!({"needle": "yes"});
    let check = build("contains", params.as_object().unwrap_or(&Map::new()))
        .unwrap_or_else(|e| panic!("{e}"));
    Suite {
        samples,
        min_agreement: Some(1.0 / 3.0),
        record_responses: true,
        ..Suite::for_tests(vec![check], cases.iter().map(|id| (*id).to_string()))
    }
}

fn context(concurrency: usize) -> RunContext {
    RunContext::for_tests("2026-01-01T00:00:00+00:00", concurrency)
}

#[test]
fn samples_are_asked_in_order_per_case_and_folded() {
    let mut answers = HashMap::new();
    for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
        // case i passes only on sample i % 3: the fold shows which sample was which.
        let mut list = vec![Some("no"), Some("no"), Some("no")];
        list[i % 3] = Some("yes");
        answers.insert((*id).to_string(), list);
    }
    answers.insert("e".to_string(), vec![Some("yes"), None, Some("yes")]);
    let target = Scripted {
        answers,
        calls: Mutex::new(HashMap::new()),
    };
    let doc = execute(
        &suite(&["a", "b", "c", "d", "e"], 3),
        &target,
        &NoJudges,
        &context(4),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rows: &[(&str, &[f64])] = &[
        ("a", &[1.0, 0.0, 0.0]),
        ("b", &[0.0, 1.0, 0.0]),
        ("c", &[0.0, 0.0, 1.0]),
        ("d", &[1.0, 0.0, 0.0]),
    ];
    for ((id, samples), result) in rows.iter().zip(&doc.results) {
        assert_eq!(result.case_id, *id);
        let verdict = &result.verdicts[0];
        assert_eq!(verdict.samples.as_deref(), Some(*samples), "{id}");
        assert_eq!(verdict.score, Some(0.333333), "{id}");
        assert_eq!(result.responses.as_ref().map(Vec::len), Some(3));
    }
    // A failed call on any sample errors the case, and no sample is recorded.
    let errored = &doc.results[4];
    assert_eq!(
        errored.verdicts[0].status,
        crate::core::verdict::Status::Error
    );
    assert!(errored.verdicts[0]
        .reason
        .starts_with("target raised ValueError: "));
    assert_eq!(errored.responses, None);
    let calls = target
        .calls
        .lock()
        .map(|c| c.get("e").copied())
        .ok()
        .flatten();
    assert_eq!(calls, Some(2), "the samples after a failure are not asked");
}

mod noise {
    //! A baseline that measures (`run --samples`) and the gate's re-asks.
    use super::*;
    use crate::core::compare::reask::triggered;
    use crate::core::compare::reask::PairVerdict;
    use crate::core::compare::{compare, exit_code};
    use crate::core::exit::ExitStatus;
    use crate::run::reask::reask;

    fn scripted(rows: &[(&str, Vec<&'static str>)]) -> Scripted {
        Scripted {
            answers: rows
                .iter()
                .map(|(id, list)| ((*id).to_string(), list.iter().map(|a| Some(*a)).collect()))
                .collect(),
            calls: Mutex::new(HashMap::new()),
        }
    }

    fn calls(target: &Scripted, id: &str) -> usize {
        target.calls.lock().unwrap().get(id).copied().unwrap_or(0)
    }

    /// The reference `measuring` measured from `reference_target`, the run
    /// of `pr` answered by `target`, compared after the re-asks.
    fn gated(
        measuring: &Suite,
        reference_target: &Scripted,
        pr: &Suite,
        target: &Scripted,
    ) -> (
        crate::core::compare::Comparison,
        crate::core::compare::reask::ReaskRecord,
    ) {
        let reference = execute(measuring, reference_target, &NoJudges, &context(2)).unwrap();
        let run = execute(pr, target, &NoJudges, &context(2)).unwrap();
        let mut comparison = compare(&run, &reference).unwrap();
        let template = crate::core::compare::reask::ReaskRecord {
            exposed: crate::core::compare::reask::exposed(&comparison, &reference),
            ..crate::run::reask::nothing_to_reask(&reference, pr.false_alarm_rate)
        };
        let (record, _) = reask(
            pr,
            &reference,
            crate::run::reask::to_ask(template, triggered(&comparison)),
            target,
            &NoJudges,
            &context(2),
        )
        .unwrap();
        comparison.apply_reasks(&record, &reference);
        (comparison, record)
    }

    #[test]
    fn a_measuring_run_records_pass_counts_and_never_errors_for_agreement() {
        let mut measuring = suite(&["steady", "borderline"], 1);
        measuring.min_agreement = Some(1.0);
        let declared = measuring.config_hash();
        measuring.measure_noise(5);
        assert_eq!(measuring.config_hash(), declared);
        let target = scripted(&[
            ("steady", vec!["yes"; 5]),
            ("borderline", vec!["yes", "no", "yes", "yes", "no"]),
        ]);
        let doc = execute(&measuring, &target, &NoJudges, &context(2)).unwrap();
        let borderline = &doc.results[1].verdicts[0];
        assert_eq!(borderline.status, crate::core::verdict::Status::Fail);
        assert_eq!(crate::core::compare::reask::measured(borderline), (3, 5));
        assert_eq!(
            crate::core::compare::reask::measured(&doc.results[0].verdicts[0]),
            (5, 5)
        );
        assert_eq!(doc.config_hash, declared);
    }

    #[test]
    fn a_case_that_keeps_failing_is_worse_and_a_wobble_is_not() {
        let mut measuring = suite(&["broken", "wobbly", "fine"], 1);
        measuring.measure_noise(30);
        let reference_target = scripted(&[
            ("broken", vec!["yes"; 30]),
            ("wobbly", vec!["yes"; 30]),
            ("fine", vec!["yes"; 30]),
        ]);
        let pr = suite(&["broken", "wobbly", "fine"], 1);
        let target = scripted(&[
            ("broken", vec!["no"; 10]),
            ("wobbly", vec!["no", "yes", "yes", "yes", "yes", "yes"]),
            ("fine", vec!["yes"; 10]),
        ]);
        let (comparison, record) = gated(&measuring, &reference_target, &pr, &target);
        assert_eq!(exit_code(&comparison), ExitStatus::Worse);
        let worse: Vec<&str> = comparison
            .reasked_as(PairVerdict::Worse)
            .map(|d| d.key.case_id.as_str())
            .collect();
        assert_eq!(worse, ["broken"]);
        assert_eq!(comparison.reasked_as(PairVerdict::Noise).count(), 1);
        // Worse after three extra calls (two failed pairs share the rate);
        // the wobble stopped after two passing re-asks.
        assert_eq!(calls(&target, "broken"), 4);
        assert_eq!(calls(&target, "wobbly"), 3);
        assert_eq!(calls(&target, "fine"), 1);
        assert_eq!(record.calls(), 5);
    }

    #[test]
    fn an_unchanged_noisy_case_exits_zero_after_its_re_asks() {
        let mut measuring = suite(&["wobbly"], 1);
        measuring.measure_noise(30);
        let reference_target = scripted(&[("wobbly", vec!["yes"; 30])]);
        let pr = suite(&["wobbly"], 1);
        let target = scripted(&[("wobbly", vec!["no", "yes", "no", "yes", "yes"])]);
        let (comparison, _) = gated(&measuring, &reference_target, &pr, &target);
        assert_eq!(exit_code(&comparison), ExitStatus::Proceed);
        assert!(comparison.headline().wobbled + comparison.headline().undecided == 1);
    }

    #[test]
    fn a_deterministic_system_names_its_broken_case_within_three_extra_calls() {
        let one = suite(&["broken", "fine"], 1);
        let reference_target = scripted(&[("broken", vec!["yes"]), ("fine", vec!["yes"])]);
        let target = scripted(&[("broken", vec!["no"; 10]), ("fine", vec!["yes"; 10])]);
        let (comparison, _) = gated(&one, &reference_target, &one, &target);
        assert_eq!(exit_code(&comparison), ExitStatus::Worse);
        let worse: Vec<&str> = comparison
            .reasked_as(PairVerdict::Worse)
            .map(|d| d.key.case_id.as_str())
            .collect();
        assert_eq!(worse, ["broken"]);
        assert!(calls(&target, "broken") - 1 <= 3);
        assert_eq!(calls(&target, "fine"), 1);
    }
}

/// A target that answers `yes <secret>` (to case `only` alone when set,
/// `yes` to the others) and says that value is a secret.
struct Echoing {
    calls: AtomicUsize,
    only: Option<&'static str>,
}

const ECHOED: &str = "sk-ECHOED-12345";

impl Ask for Echoing {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let text = match self.only {
            Some(only) if case.id != only => "yes".to_string(),
            _ => format!("yes {ECHOED}"),
        };
        Ok(Response {
            tokens: None,
            output: Value::String(text),
            input: "{}".to_string(),
            cost_usd: None,
            latency_ms: 5.0,
            config: None,
        })
    }

    fn target_config(&self) -> Map<String, Value> {
        Map::new()
    }

    fn secrets(&self) -> Vec<String> {
        vec![ECHOED.to_string()]
    }
}

/// A resumed run never grades an answer its journal kept masked: it asks
/// for it again; a case graded before keeps its verdicts; both are in the
/// record of masked cases, in case order.
#[test]
fn a_resume_asks_again_for_an_answer_kept_masked() {
    let s = suite(&["graded", "half"], 2);
    let ctx = context(1);
    let masked_answer = serde_json::json!({"output": "no ***", "input": "{}", "latency_ms": 1.0});
    let entry = MaskedCase {
        case_id: "graded".into(),
        graded_against: graded_against(&s.cases[0], s.required_agreement()),
    };
    let pass = s.checks[0].evaluate(&Inputs {
        output: &Value::String("yes".into()),
        input: None,
        expected: None,
        context: &[],
        cost_usd: None,
        latency_ms: None,
        response_metadata: &Map::new(),
    });
    let records = vec![
        super::super::journal::header(&s, &ctx, 0),
        serde_json::json!({"kind": "answer", "case_id": "graded", "sample": 0, "response": masked_answer, "masked": true}),
        serde_json::json!({"kind": "answer", "case_id": "graded", "sample": 1, "response": masked_answer, "masked": true}),
        serde_json::json!({"kind": "case", "case_id": "graded", "verdicts": [pass], "masked": entry}),
        serde_json::json!({"kind": "answer", "case_id": "half", "sample": 0, "response": masked_answer, "masked": true}),
    ];
    let (ctx, prior) = Prior::read(&records, &s, &ctx).unwrap_or_else(|e| panic!("{e}"));
    let target = Echoing {
        calls: AtomicUsize::new(0),
        only: None,
    };
    let (doc, _, _, masked) = execute_spent(
        &s,
        &target,
        &NoJudges,
        &ctx,
        &prior,
        &Recorder::new(None, None),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        target.calls.load(Ordering::SeqCst),
        2,
        "both samples of `half`"
    );
    for result in &doc.results {
        assert_eq!(
            result.verdicts[0].status,
            Status::Pass,
            "{}",
            result.case_id
        );
    }
    let ids: Vec<&str> = masked.cases.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(ids, ["graded", "half"]);
    assert_eq!(masked.cases[0], entry);
}

/// Keeps every prompt it is sent; scores 0.9.
#[derive(Default)]
struct RecordingJudge(Mutex<Vec<String>>);

impl Judge for RecordingJudge {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        self.0
            .lock()
            .map_err(|e| Failure::permanent(e.to_string()))?
            .push(request.prompt.clone());
        Ok(JudgeAnswer {
            model: None,
            tokens: None,
            text: r#"{"score": 0.9, "reason": "fine"}"#.into(),
            cost_usd: None,
            latency_ms: 1.0,
        })
    }

    fn judge_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

/// A judge is sent an answer as given when it holds no secret, and never
/// one that holds a secret (not even masked): that judged check — alone or
/// inside `repeated` — is an error naming why; the other checks grade the
/// answer as given, and the case is in the record of masked cases.
#[test]
fn a_judge_is_never_sent_an_answer_holding_a_secret() {
    let judged = |kind: &str, params: Value| {
        build(kind, params.as_object().unwrap_or(&Map::new())).unwrap_or_else(|e| panic!("{e}"))
    };
    let params = serde_json::json!({"rubric": "r", "judge": "anthropic/m", "threshold": 0.5, "tolerance": 0});
    let rubric = judged("llm_rubric", params.clone());
    let mut inner = params;
    inner["type"] = "llm_rubric".into();
    let repeated = judged(
        "repeated",
        serde_json::json!({"inner": inner, "samples": 2, "min_agreement": "1/2"}),
    );
    let mut s = suite(&["leaky", "clean"], 1);
    s.checks.push(rubric);
    s.checks.push(repeated);
    let judge = RecordingJudge::default();
    let (doc, _, _, masked) = execute_spent(
        &s,
        &Echoing {
            calls: AtomicUsize::new(0),
            only: Some("leaky"),
        },
        &judge,
        &context(2),
        &Prior::none(),
        &Recorder::new(None, None),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let statuses = |i: usize| -> Vec<(Status, String)> {
        doc.results[i]
            .verdicts
            .iter()
            .map(|v| (v.status, v.reason.clone()))
            .collect()
    };
    let leaky = statuses(0);
    assert_eq!(leaky[0].0, Status::Pass, "graded as given");
    let every_draw = format!("no sample could be judged over 2 attempts: {NOT_SENT_TO_JUDGE}");
    assert_eq!(
        leaky[1..],
        [
            (Status::Error, NOT_SENT_TO_JUDGE.to_string()),
            (Status::Error, every_draw)
        ]
    );
    assert!(statuses(1).iter().all(|(s, _)| *s == Status::Pass));
    let prompts = judge.0.lock().map(|p| p.clone()).unwrap_or_default();
    assert_eq!(
        prompts.len(),
        3,
        "the clean case: once, then twice repeated"
    );
    assert!(
        prompts
            .iter()
            .all(|p| p.ends_with("Output to judge:\nyes") && !p.contains("***")),
        "{prompts:?}"
    );
    let ids: Vec<&str> = masked.cases.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(ids, ["leaky"]);
}
