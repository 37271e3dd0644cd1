//! Judge anchors wired end to end (issue 32), against a loopback judge
//! whose leniency and reported model name a test switches: the anchors
//! graded in every run and recorded beside the case results, a judge that
//! moved read as *could not be judged — the judge changed* (exit 2, never
//! 1), and an unchanged rerun paying only its canary calls.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::cost::{go, judge_calls, promote, read_json};
use crate::fake_llm::{self, ok_as, Fake, Seen};

/// A judge that passes every answer but those saying "bad" — or, once
/// `strict` is set, fails every answer; it says it is `model` (`None`:
/// the requested model, dated). The target answers `Hello, <prompt>`.
struct Judge {
    fake: Fake,
    strict: Arc<AtomicBool>,
    model: Arc<Mutex<Option<String>>>,
}

fn judge() -> Judge {
    let strict = Arc::new(AtomicBool::new(false));
    let model: Arc<Mutex<Option<String>>> = Arc::default();
    let (s, m) = (Arc::clone(&strict), Arc::clone(&model));
    let fake = fake_llm::start(Box::new(move |seen: &Seen, _| {
        if seen.is_judge() {
            let user = seen.user();
            let output = user.rsplit("Output to judge:").next().unwrap_or_default();
            let score = if output.contains("bad") {
                0.1
            } else if s.load(Ordering::SeqCst) {
                0.2
            } else {
                0.9
            };
            let reply = format!("{{\"score\": {score}, \"reason\": \"judged\"}}");
            let model = m.lock().unwrap().clone();
            ok_as(seen, &reply, 300, 30, model.as_deref())
        } else {
            ok_as(seen, &format!("Hello, {}", seen.user()), 10, 50, None)
        }
    }));
    Judge {
        fake,
        strict,
        model,
    }
}

const JUDGE: &str = "anthropic/claude-haiku-4-5";

/// A suite of `cases` cases judged by the check `polite` of `judge`, with
/// (when `anchored`) 10 anchors people passed and 10 they failed.
fn suite(root: &Path, cases: usize, judge: &str, anchored: bool) {
    let anchors = if anchored {
        "judge_anchors = \"judge-anchors.json\"\n"
    } else {
        ""
    };
    let text = format!(
        "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"s\"\ncases = \"cases.json\"\n{anchors}\n\
         [target]\ntype = \"provider\"\nprompt_file = \"prompt.txt\"\nprovider = \"{JUDGE}\"\nmax_tokens = 200\n\n\
         [[assertions]]\ntype = \"llm_rubric\"\nname = \"polite\"\nrubric = \"Polite.\"\njudge = \"{judge}\"\nthreshold = 0.5\ntolerance = 1\n"
    );
    std::fs::write(root.join("suite.toml"), text).unwrap();
    if !root.join("prompt.txt").exists() {
        std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    }
    let cases: Vec<Value> = (0..cases)
        .map(|i| json!({"id": format!("c{i}"), "vars": {"question": format!("q{i}")}}))
        .collect();
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
    let anchors: Vec<Value> = (0..10)
        .map(|i| json!({"check": "polite", "answer": format!("Gladly, parcel {i} ships today."), "vars": {"question": format!("a{i}")}, "label": "pass"}))
        .chain((0..10).map(|i| json!({"check": "polite", "answer": format!("A bad answer {i}."), "label": "fail"})))
        .collect();
    std::fs::write(
        root.join("judge-anchors.json"),
        Value::Array(anchors).to_string(),
    )
    .unwrap();
}

fn run(root: &Path, fake: &Fake) -> String {
    let ran = go(root, fake, &["run", "-q", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    ran.stdout.trim().to_string()
}

fn document(root: &Path, key: &str) -> (Value, String) {
    let path = root.join(format!(".digline/t/runs/s/{key}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    (serde_json::from_str(&text).unwrap(), text)
}

#[test]
fn a_run_records_every_anchors_verdict_and_its_judges_identity_and_no_answer() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 3, JUDGE, true);
    let key = run(root, &j.fake);
    // 3 cases and 20 anchors judged; no reference yet, so all live.
    assert_eq!(judge_calls(&j.fake), 23);
    let (doc, text) = document(root, &key);
    let record = &doc["judge_anchors"];
    let anchors = record["anchors"].as_array().unwrap();
    assert_eq!(anchors.len(), 20);
    for (i, a) in anchors.iter().enumerate() {
        assert_eq!(a["check"], "polite");
        assert_eq!(a["key"].as_str().unwrap().len(), 16);
        assert_eq!(a["verdict"], if i < 10 { "pass" } else { "fail" }, "{a}");
    }
    let port = j.fake.port;
    assert_eq!(
        record["judges"],
        json!([{
            "check": "polite",
            "coordinate": JUDGE,
            "identity": {
                "provider": "anthropic",
                "requested_model": "claude-haiku-4-5",
                "answered_model": "claude-haiku-4-5-20251001",
                "endpoint": format!("127.0.0.1:{port}"),
                "base_url_hash": record["judges"][0]["identity"]["base_url_hash"],
                "prompt_hash": record["judges"][0]["identity"]["prompt_hash"],
                "protocol": record["judges"][0]["identity"]["protocol"],
            },
            "live": 20,
        }])
    );
    // The anchors' answers and vars are payload: never in the document.
    for payload in ["Gladly, parcel", "A bad answer", "\"a3\""] {
        assert!(!text.contains(payload), "{payload}");
    }
    // The case results, their counts and the config hash are untouched:
    // the same suite without anchors gives the same rules and cases, and
    // a document with no `judge_anchors` key at all.
    suite(root, 3, JUDGE, false);
    let plain = run(root, &j.fake);
    let (bare, bare_text) = document(root, &plain);
    assert_eq!(bare["config_hash"], doc["config_hash"]);
    assert_eq!(bare["results"], doc["results"]);
    assert!(!bare_text.contains("judge_anchors"));
    assert_eq!(
        bare.as_object().unwrap().len() + 1,
        doc.as_object().unwrap().len()
    );
}

/// A reference made with the judge as it was: a run with anchors, promoted.
fn reference(root: &Path, j: &Judge, cases: usize) {
    suite(root, cases, JUDGE, true);
    let key = run(root, &j.fake);
    promote(root, &j.fake, &key);
}

fn gate(root: &Path, j: &Judge, out: &str) -> (crate::util::Ran, Value) {
    let ran = crate::cost::gate(root, &j.fake, out, &[]);
    let outcome = read_json(root.join(out).join("outcome.json"));
    (ran, outcome)
}

#[test]
fn a_pull_request_that_changed_its_answers_while_the_judge_turned_strict_exits_2_naming_the_judge()
{
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    // The judge turns strict behind the same model name, and the pull
    // request changes every answer: its 5 judged cases now fail.
    j.strict.store(true, Ordering::SeqCst);
    std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
    let before = j.fake.requests().len();
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    // 5 answers, their 5 judgings (the memo missed) and the 20 anchors,
    // all live; the moved judge's failures are not asked again.
    assert_eq!(j.fake.requests().len() - before, 5 + 5 + 20);
    let lead = format!(
        "The judge of polite ({JUDGE}) changed: of its 20 anchors, 10 that passed in the \
         reference fail now and 0 that failed pass (shift -50 %; 27 % to 73 % of the anchors \
         moved; McNemar p = 0.0020). Its checks could not be judged — the judge changed — so \
         what they show as worse is not counted. Re-measure the reference \
         with the judge as it is now: digline run --suite suite.toml --judge-memo off, then a \
         person promotes that run."
    );
    assert!(gated.stdout.starts_with(&lead), "{}", gated.stdout);
    assert_eq!(outcome["exit_code"], 2);
    assert!(
        outcome["headline"].as_str().unwrap().starts_with(&lead),
        "{outcome}"
    );
    let judges = &outcome["judges"];
    assert_eq!(judges[0]["check"], "polite");
    assert_eq!(judges[0]["reading"], "moved");
    assert_eq!(judges[0]["gates"], false);
    assert_eq!(
        (judges[0]["lost"].clone(), judges[0]["gained"].clone()),
        (json!(10), json!(0))
    );
    assert_eq!(judges[0]["changed"], json!([]));
    for file in ["comment.md", "summary.md"] {
        let text = std::fs::read_to_string(root.join("out").join(file)).unwrap();
        assert!(
            text.contains("The judges\\, read on their anchors"),
            "{file}: {text}"
        );
        assert!(
            !text.contains("Gladly, parcel") && !text.contains("bad answer"),
            "{file}"
        );
    }
    assert!(!gated.stdout.contains("Gladly") && !gated.stderr.contains("Gladly"));
    // JUnit: the judge is the error; what it graded worse is no failure.
    let junit = std::fs::read_to_string(root.join("out/junit.xml")).unwrap();
    assert!(junit.contains("type=\"judge_changed\""), "{junit}");
    assert!(
        junit.contains("polite · anthropic/claude-haiku-4-5"),
        "{junit}"
    );
    assert!(!junit.contains("<failure"), "{junit}");
    // The report's headline, `compare` and its JSON say the same, exit 2.
    let html = std::fs::read_to_string(root.join("out/report.html")).unwrap();
    assert!(html.contains(&lead), "{html}");
    assert!(
        html.contains(
            "<section class=\"block judges\">\n<h2>The judges, read on their anchors</h2>"
        ),
        "{html}"
    );
    let key = outcome["run_key"].as_str().unwrap();
    let compared = go(
        root,
        &j.fake,
        &["compare", "--suite", "suite.toml", "--run", key],
    );
    assert_eq!(compared.code, 2, "{}{}", compared.stdout, compared.stderr);
    assert!(compared.stdout.starts_with(&lead), "{}", compared.stdout);
    let json = go(
        root,
        &j.fake,
        &["compare", "--suite", "suite.toml", "--run", key, "--json"],
    );
    let json: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(json["exit_code"], 2, "{json}");
    assert_eq!(json["judges"], outcome["judges"], "{json}");
    assert!(
        json["sentence"].as_str().unwrap().starts_with(&lead),
        "{json}"
    );
}

#[test]
fn a_pull_request_that_swaps_the_judge_and_breaks_5_judged_cases_names_the_judge_change() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    j.strict.store(true, Ordering::SeqCst);
    suite(root, 5, "anthropic/claude-sonnet-4-5", true);
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    let lead = "The judge of polite (anthropic/claude-sonnet-4-5) changed: of its 20 anchors, \
                10 that passed in the reference fail now and 0 that failed pass (shift -50 %; \
                27 % to 73 % of the anchors moved; McNemar p = 0.0020); its identity changed: \
                requested_model, answered_model.";
    assert!(gated.stdout.starts_with(lead), "{}", gated.stdout);
    assert_eq!(outcome["judges"][0]["reference_coordinate"], JUDGE);
    assert_eq!(
        outcome["judges"][0]["changed"],
        json!(["requested_model", "answered_model"])
    );
}

#[test]
fn an_unchanged_rerun_pays_one_canary_call_and_no_case_judging() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    let before = judge_calls(&j.fake);
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 0, "{}{}", gated.stdout, gated.stderr);
    // One live call: the canary anchor of the one judged check, as the
    // plan says before the run.
    assert_eq!(judge_calls(&j.fake) - before, 1);
    // The canary's call is counted in the plan's judge calls.
    assert!(
        gated.stderr.contains(
            "digline: plus 6 calls to judges (1 per answer × 5 answers, and 1 judge anchor \
             canary)\n"
        ),
        "{}",
        gated.stderr
    );
    assert!(
        gated.stderr.contains(
            "digline: plus the judge anchors: 20 anchor(s) of 1 judged check(s), 1 graded live \
             every run (the canary); every anchor graded live (20 calls) when the reference \
             graded none, a judge's identity or canary changed, or a case was judged live\n"
        ),
        "{}",
        gated.stderr
    );
    let spent = &outcome["spent"];
    assert_eq!(spent["judges"]["calls"], 1, "{spent}");
    assert_eq!(spent["memo"]["hits"], 5 + 19, "{spent}");
    assert_eq!(spent["memo"]["misses"], 0, "{spent}");
    assert!(
        gated.stdout.contains(
            "The judge of polite (anthropic/claude-haiku-4-5) held on its 20 anchors: a shift \
             of 30 % of the anchors or more would have been seen."
        ),
        "{}",
        gated.stdout
    );
    assert_eq!(outcome["judges"][0]["reading"], "steady");
    assert_eq!(outcome["judges"][0]["detectable"], 0.3);
}

#[test]
fn a_judge_renamed_with_the_same_verdicts_is_said_and_gates_on() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    *j.model.lock().unwrap() = Some("claude-haiku-4-5-20260101".to_string());
    let before = judge_calls(&j.fake);
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 0, "{}{}", gated.stdout, gated.stderr);
    // The canary saw another model: every anchor was graded live.
    assert_eq!(judge_calls(&j.fake) - before, 20);
    assert!(
        gated.stdout.contains(
            "The judge of polite (anthropic/claude-haiku-4-5) changed its identity \
             (answered_model), and its 20 anchors all graded as before: a rename, not drift; \
             its checks gate on."
        ),
        "{}",
        gated.stdout
    );
    assert_eq!(outcome["judges"][0]["reading"], "renamed");
}

#[test]
fn a_judge_that_moved_is_said_in_every_locale() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    j.strict.store(true, Ordering::SeqCst);
    std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
    for locale in ["en", "de", "es", "fr", "it", "pt"] {
        let out = format!("out-{locale}");
        let ran = crate::cost::gate(root, &j.fake, &out, &["--locale", locale]);
        assert_eq!(ran.code, 2, "{locale}: {}{}", ran.stdout, ran.stderr);
        let outcome = read_json(root.join(&out).join("outcome.json"));
        let junit = std::fs::read_to_string(root.join(&out).join("junit.xml")).unwrap();
        assert!(junit.contains("type=\"judge_changed\""), "{locale}");
        insta::assert_snapshot!(
            format!("judge-moved-{locale}"),
            outcome["headline"].as_str().unwrap()
        );
    }
}

#[test]
fn a_kappa_floor_the_labels_do_not_show_leaves_the_judged_checks_unable_to_gate() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    // The same judge, the same anchors: it did not move, but people
    // failed two answers it passes, and a floor of 0.9 is more than these
    // 20 labels can show of it (κ = 0.8).
    let file = root.join("judge-anchors.json");
    let mut anchors: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for i in [8, 9] {
        anchors[i]["label"] = json!("fail");
    }
    std::fs::write(&file, anchors.to_string()).unwrap();
    let text = std::fs::read_to_string(root.join("suite.toml")).unwrap();
    let text = text.replace(
        "judge_anchors = \"judge-anchors.json\"\n",
        "judge_anchors = \"judge-anchors.json\"\nmin_judge_kappa = 0.9\n",
    );
    std::fs::write(root.join("suite.toml"), text).unwrap();
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    assert_eq!(outcome["judges"][0]["reading"], "unproven");
    insta::assert_snapshot!("kappa-floor-en", outcome["headline"].as_str().unwrap());
}

#[test]
fn with_two_judges_only_the_one_that_moved_is_named_and_its_checks_alone_cannot_gate() {
    // `polite` is judged by Anthropic, `brief` by OpenAI; only the model
    // named "claude…" turns strict.
    let strict = Arc::new(AtomicBool::new(false));
    let s = Arc::clone(&strict);
    let fake = fake_llm::start(Box::new(move |seen: &Seen, _| {
        if seen.is_judge() {
            let user = seen.user();
            let output = user.rsplit("Output to judge:").next().unwrap_or_default();
            let claude = seen.body["model"]
                .as_str()
                .unwrap_or("")
                .starts_with("claude");
            let score = if output.contains("bad") {
                0.1
            } else if claude && s.load(Ordering::SeqCst) {
                0.2
            } else {
                0.9
            };
            let reply = format!("{{\"score\": {score}, \"reason\": \"judged\"}}");
            ok_as(seen, &reply, 300, 30, None)
        } else {
            ok_as(seen, &format!("Hello, {}", seen.user()), 10, 50, None)
        }
    }));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 5, JUDGE, true);
    let text = std::fs::read_to_string(root.join("suite.toml")).unwrap()
        + "\n[[assertions]]\ntype = \"llm_rubric\"\nname = \"brief\"\nrubric = \"Brief.\"\n\
           judge = \"openai/gpt-4o-mini\"\nthreshold = 0.5\ntolerance = 1\n";
    std::fs::write(root.join("suite.toml"), text).unwrap();
    let file = root.join("judge-anchors.json");
    let mut anchors: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let brief: Vec<Value> = anchors
        .iter()
        .map(|a| {
            let mut a = a.clone();
            a["check"] = json!("brief");
            a
        })
        .collect();
    anchors.extend(brief);
    std::fs::write(&file, Value::Array(anchors).to_string()).unwrap();
    let env = |extra: &[&str]| {
        let mut vars = crate::cost::env(&fake);
        vars.push(("OPENAI_BASE_URL", fake.base()));
        vars.push(("OPENAI_API_KEY", "sk-TEST-anchors".to_string()));
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        crate::util::digline_env(root, extra, &vars)
    };
    let ran = env(&["run", "-q", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let key = ran.stdout.trim().to_string();
    let promoted = env(&["promote", "--suite", "suite.toml", "--run", &key]);
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    let (doc, _) = document(root, &key);
    let judges = doc["judge_anchors"]["judges"].as_array().unwrap();
    assert_eq!(judges.len(), 2);
    assert_eq!(judges[1]["identity"]["provider"], "openai");
    assert_eq!(judges[1]["identity"]["answered_model"], "gpt-4o-mini");
    strict.store(true, Ordering::SeqCst);
    std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
    let gated = env(&crate::noisy::GATE);
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    let outcome = read_json(root.join("out/outcome.json"));
    let readings: Vec<(Value, Value)> = outcome["judges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["check"].clone(), j["reading"].clone()))
        .collect();
    assert_eq!(
        readings,
        vec![
            (json!("polite"), json!("moved")),
            (json!("brief"), json!("steady"))
        ]
    );
    assert!(
        gated
            .stdout
            .starts_with("The judge of polite (anthropic/claude-haiku-4-5) changed:"),
        "{}",
        gated.stdout
    );
    assert!(
        gated.stdout.contains(
            "The judge of brief (openai/gpt-4o-mini) held on its 20 anchors: a shift of 30 % \
             of the anchors or more would have been seen."
        ),
        "{}",
        gated.stdout
    );
}

#[test]
fn under_shards_the_first_shard_alone_grades_the_anchors_and_the_merge_keeps_them() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root, 6, JUDGE, true);
    let mut paths = Vec::new();
    for spec in ["1/2", "2/2"] {
        let ran = go(
            root,
            &j.fake,
            &["run", "--suite", "suite.toml", "--shard", spec, "-q"],
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let key = ran.stdout.trim().to_string();
        paths.push(root.join(format!(".digline/t/runs/s/{key}.json")));
    }
    // 6 cases judged once and 20 anchors: none graded twice.
    assert_eq!(judge_calls(&j.fake), 6 + 20);
    let first = read_json(&paths[0]);
    assert_eq!(
        first["judge_anchors"]["anchors"].as_array().unwrap().len(),
        20
    );
    assert_eq!(read_json(&paths[1]).get("judge_anchors"), None);
    let mut args = vec!["merge", "--suite", "suite.toml", "--shards"];
    let texts: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    args.extend(texts.iter().map(String::as_str));
    let merged = go(root, &j.fake, &args);
    assert_eq!(merged.code, 0, "{}{}", merged.stdout, merged.stderr);
    let key = merged.stdout.trim().lines().last().unwrap().to_string();
    let (doc, _) = document(root, &key);
    assert_eq!(doc["judge_anchors"], first["judge_anchors"]);
}

/// A reference made with the judge strict (every answer but the bad ones
/// fails), the judge then turned lenient, the answers changed so the cases
/// are judged live: a moved judge whose checks look better, not worse.
fn turned_lenient(root: &Path, j: &Judge) {
    j.strict.store(true, Ordering::SeqCst);
    reference(root, j, 5);
    j.strict.store(false, Ordering::SeqCst);
    std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
}

fn edit_anchors(root: &Path, edit: impl Fn(Vec<Value>) -> Vec<Value>) {
    let file = root.join("judge-anchors.json");
    let anchors: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::write(&file, Value::Array(edit(anchors)).to_string()).unwrap();
}

const UNREAD_RERUN: &str = " Re-measure the reference with the judge as it is now: digline run \
                            --suite suite.toml --judge-memo off, then a person promotes that run.";

fn unread(expected: u64, graded: u64) -> String {
    format!(
        "The judge of polite ({JUDGE}) could not be read on its anchors: the reference graded \
         {expected} of them and this run graded {graded} of those again (the anchors file or \
         judge_anchors changed, or the judge could not grade them). Its checks could not be \
         judged — the judge could not be read — so what they show as worse is not counted.\
         {UNREAD_RERUN}"
    )
}

#[test]
fn a_pull_request_that_edits_every_anchor_cannot_pass_a_moved_judge_as_held() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    turned_lenient(root, &j);
    // Every answer edited: no anchor pairs with the reference's.
    edit_anchors(root, |anchors| {
        anchors
            .into_iter()
            .map(|mut a| {
                a["answer"] = json!(format!("{}.", a["answer"].as_str().unwrap()));
                a
            })
            .collect()
    });
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    let lead = unread(20, 0);
    assert!(gated.stdout.starts_with(&lead), "{}", gated.stdout);
    assert!(!gated.stdout.contains("held on its 0 anchors"));
    assert_eq!(outcome["judges"][0]["reading"], "unanchored");
    assert_eq!(outcome["judges"][0]["gates"], false);
    assert_eq!(
        (
            outcome["judges"][0]["anchors"].clone(),
            outcome["judges"][0]["expected"].clone()
        ),
        (json!(0), json!(20))
    );
    let junit = std::fs::read_to_string(root.join("out/junit.xml")).unwrap();
    assert!(junit.contains("type=\"judge_changed\""), "{junit}");
}

#[test]
fn a_pull_request_that_keeps_only_the_anchors_that_did_not_move_cannot_pass_the_judge_as_held() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    turned_lenient(root, &j);
    // The 10 `fail` anchors ("bad" answers) fail under either judge.
    edit_anchors(root, |anchors| anchors.into_iter().skip(10).collect());
    let (gated, outcome) = gate(root, &j, "out");
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    assert!(
        gated.stdout.starts_with(&unread(20, 10)),
        "{}",
        gated.stdout
    );
    assert_eq!(outcome["judges"][0]["reading"], "unanchored");
}

#[test]
fn a_pull_request_that_removes_judge_anchors_cannot_pass_a_moved_judge_either_way() {
    for lenient in [true, false] {
        let j = judge();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        if lenient {
            turned_lenient(root, &j);
        } else {
            reference(root, &j, 5);
            j.strict.store(true, Ordering::SeqCst);
            std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
        }
        suite(root, 5, JUDGE, false);
        let (gated, outcome) = gate(root, &j, "out");
        assert_eq!(
            gated.code, 2,
            "lenient {lenient}: {}{}",
            gated.stdout, gated.stderr
        );
        assert!(gated.stdout.starts_with(&unread(20, 0)), "{}", gated.stdout);
        assert_eq!(outcome["judges"][0]["reading"], "unanchored");
        assert_eq!(outcome["exit_code"], 2);
    }
}

#[test]
fn with_a_base_ref_an_edited_anchors_file_is_itemized_as_a_change_of_the_pull_request() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    turned_lenient(root, &j);
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    let git = |args: &[&str]| crate::util::git(root, args);
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    let base = git(&["rev-parse", "HEAD"]);
    let digest = |root: &Path| {
        let bytes = std::fs::read(root.join("judge-anchors.json")).unwrap();
        use sha2::Digest;
        sha2::Sha256::digest(&bytes)[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let before = digest(root);
    edit_anchors(root, |anchors| anchors.into_iter().skip(10).collect());
    let after = digest(root);
    std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "the pull request"]);
    let (gated, _) = {
        let ran = crate::cost::gate(root, &j.fake, "out", &["--base-ref", &base]);
        (ran, ())
    };
    assert_eq!(gated.code, 2, "{}{}", gated.stdout, gated.stderr);
    assert!(
        gated
            .stdout
            .contains(&format!("judge anchors file (content): {before} → {after}")),
        "{}",
        gated.stdout
    );
    assert!(
        !gated.stdout.contains("unchanged from the reference"),
        "{}",
        gated.stdout
    );
}

#[test]
fn re_measuring_some_cases_after_the_judge_moved_is_refused_and_stores_no_run() {
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    reference(root, &j, 5);
    let runs = root.join(".digline/t/runs/s");
    let before = std::fs::read_dir(&runs).unwrap().count();
    j.strict.store(true, Ordering::SeqCst);
    let ran = go(
        root,
        &j.fake,
        &["run", "--suite", "suite.toml", "--case", "c1"],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        ran.stderr
            .lines()
            .filter(|l| l.starts_with("digline: --case") || l.starts_with("(hint"))
            .collect::<Vec<_>>(),
        [
            "digline: --case: the judges graded 10 judge anchor(s) otherwise than in the \
             reference, or graded anchors it does not have, so the other cases' results, \
             measured under the reference's, cannot be kept beside them",
            "(hint: run every case (drop --case) and promote that run)",
        ]
    );
    // The half run is not kept.
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), before);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
    // A judge renamed, its verdicts as before, is another judge too.
    j.strict.store(false, Ordering::SeqCst);
    *j.model.lock().unwrap() = Some("claude-haiku-4-5-20260101".to_string());
    let ran = go(
        root,
        &j.fake,
        &["run", "--suite", "suite.toml", "--case", "c1"],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains(
            "digline: --case: a judge's identity changed since the reference, so the other \
             cases' results, measured under the reference's, cannot be kept beside them\n"
        ),
        "{}",
        ran.stderr
    );
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), before);
}

#[test]
fn a_pull_request_that_rewrites_the_references_anchor_verdicts_is_read_against_the_one_it_replaces()
{
    let j = judge();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    turned_lenient(root, &j);
    std::fs::write(root.join("prompt.txt"), "Answer: {question}").unwrap();
    let git = |args: &[&str]| crate::util::git(root, args);
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    let base = git(&["rev-parse", "HEAD"]);
    // The pull request rewrites the reference's anchor verdicts as the
    // lenient judge grades them: against it, the judge holds.
    let file = root.join(".digline/t/baselines/s.json");
    let mut doc = read_json(&file);
    for anchor in doc["judge_anchors"]["anchors"].as_array_mut().unwrap()[..10].iter_mut() {
        anchor["verdict"] = json!("pass");
    }
    std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    std::fs::write(root.join("prompt.txt"), "Reply: {question}").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "the pull request"]);
    let ran = crate::cost::gate(root, &j.fake, "out", &["--base-ref", &base]);
    let lead = format!(
        "This pull request replaces the approved reference. Against the approved reference it \
         replaces: The judge of polite ({JUDGE}) changed: of its 20 anchors, 0 that passed in \
         the reference fail now and 10 that failed pass (shift +50 %; 27 % to 73 % of the \
         anchors moved; McNemar p = 0.0020). Its checks could not be judged — the judge \
         changed — so what they show as worse is not counted.{UNREAD_RERUN}"
    );
    assert!(
        ran.stdout.starts_with(&lead),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
    assert!(!ran.stdout.contains("nothing got worse"), "{}", ran.stdout);
}
