//! Tests of the HTML report: every golden scenario in every locale, the
//! single-run form, payload rules, escaping, determinism, size, and that no
//! visible word is hard-coded outside the strings files.

use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::core::compare::compare;
use crate::core::compare::golden_scenarios::SCENARIOS;

fn document(scenario: &str, file: &str) -> RunDocument {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/goldens/headlines")
        .join(scenario)
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pair(scenario: &str) -> (RunDocument, RunDocument) {
    (
        document(scenario, "run.json"),
        document(scenario, "baseline.json"),
    )
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The page's text between `<tbody>` tags, where rows live.
fn body(page: &str) -> &str {
    let start = page.find("<body>").unwrap_or(0);
    &page[start..]
}

#[test]
fn every_scenario_renders_in_every_locale_both_ways() {
    for scenario in SCENARIOS {
        let (run, baseline) = pair(scenario);
        let comparison = compare(&run, &baseline).unwrap();
        for locale in Locale::ALL {
            for redacted in [false, true] {
                let page = render(&run, Some(&baseline), Some(&comparison), locale, redacted)
                    .unwrap_or_else(|e| panic!("{scenario} {locale}: {e}"));
                assert!(
                    page.starts_with("<!DOCTYPE html>\n<html lang=\""),
                    "{scenario}"
                );
                assert!(page.contains(&format!("<html lang=\"{}\">", locale.code())));
                // Six sections, and a seventh when rules changed.
                let sections = 6 + usize::from(!comparison.rule_changes.is_empty());
                assert_eq!(
                    count(&page, "<details"),
                    sections,
                    "{scenario} {locale}: six sections"
                );
                assert_eq!(count(&page, "</details>"), sections);
                assert_eq!(count(&page, "<style>"), 1);
                assert!(
                    !page.contains("<script") && !page.contains("<img") && !page.contains("<link")
                );
                assert!(!page.contains("href=") && !page.contains("src="));
                let sentence =
                    headline_sentence(&comparison, &comparison.headline(), Strings::of(locale));
                if !redacted {
                    assert!(
                        page.contains(&escape::html(&sentence)),
                        "{scenario} {locale}: the headline"
                    );
                }
            }
        }
    }
}

#[test]
fn the_english_headline_is_compares_first_line() {
    for scenario in SCENARIOS {
        let (run, baseline) = pair(scenario);
        let page = render(&run, Some(&baseline), None, Locale::En, false).unwrap();
        // This product's own text where it is stricter than 0.10.0.
        let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/goldens/headlines")
            .join(scenario);
        let strict = folder.join("strict.stdout");
        let stdout = std::fs::read_to_string(if strict.exists() {
            strict
        } else {
            folder.join("compare.stdout")
        })
        .unwrap();
        let first = stdout.lines().next().unwrap();
        assert!(page.contains(&escape::html(first)), "{scenario}");
    }
}

#[test]
fn the_answer_box_says_yes_no_or_not_known_with_the_exit_code() {
    let cases = [
        ("01-nothing-changed", "fine", "No", 0),
        ("02-one-flip", "worse", "Yes", 1),
        ("08-case-errored-in-run", "unknown", "Not known", 2),
    ];
    for (scenario, state, word, code) in cases {
        let (run, baseline) = pair(scenario);
        let c = compare(&run, &baseline).unwrap();
        let page = render(&run, Some(&baseline), Some(&c), Locale::En, false).unwrap();
        assert!(
            page.contains(&format!("<section class=\"answer {state}\"")),
            "{scenario}"
        );
        assert!(
            page.contains(&format!("<p class=\"word\" id=\"answer-word\">{word}</p>")),
            "{scenario}"
        );
        assert_eq!(exit_code(&run, Some(&c)).code(), code, "{scenario}");
        assert!(
            page.contains(&format!("Exit code for the CI job: {code},")),
            "{scenario}"
        );
    }
}

#[test]
fn sections_come_in_the_specified_order_and_the_bad_ones_open() {
    let (run, baseline) = pair("17-everything-at-once");
    let page = render(&run, Some(&baseline), None, Locale::En, false).unwrap();
    let order = [
        "<h1>",
        "class=\"meta\"",
        "class=\"answer",
        ">Overall</h2>",
        ">What answered</h2>",
        "<details class=\"section worse some\" open>",
        "<details class=\"section unjudged some\" open>",
        "<details class=\"section rules some\" open>",
        "<details class=\"section suspended some\" open>",
        // Open: checks that passed in the reference are not in the run.
        "<details class=\"section changed some\" open>",
        "<details class=\"section better some\">",
        "<details class=\"section same some\">",
        "<footer>",
    ];
    let mut at = 0;
    for marker in order {
        let found = page[at..]
            .find(marker)
            .unwrap_or_else(|| panic!("{marker} missing or out of order"));
        at += found + marker.len();
    }
    assert!(page.contains("<td class=\"check\">levenshtein</td><td class=\"what\">threshold 0.600000 → 0.650000 · tightened</td>"), "the rule change");
    // What got worse holds the four regressions with the terminal's sentences.
    assert!(page.contains("Went from passing to failing (1.000000 → 0.000000). This drop coincides with model stub-1 → stub-2."));
    assert!(page.contains("<td class=\"case\">where-is-my-order</td>"));
    assert!(page.contains("waiting on legal"), "the suspension reason");
    assert!(page.contains("mean of 3 samples"), "judge reasons");
    assert!(page.contains(">whole run</td>"), "a run-level row says so");
}

#[test]
fn redacted_reports_carry_no_reason_and_say_so() {
    let (run, baseline) = pair("17-everything-at-once");
    for locale in Locale::ALL {
        let page = render(&run, Some(&baseline), None, locale, true).unwrap();
        assert!(
            !page.contains("mean of 3 samples"),
            "{locale}: a judge reason leaked"
        );
        assert!(
            !page.contains("waiting on legal"),
            "{locale}: a suspension reason leaked"
        );
        assert!(
            !page.contains("could not be called"),
            "{locale}: an error reason leaked"
        );
        assert!(
            page.contains(&escape::html(locale.text("report.redacted_notice"))),
            "{locale}"
        );
        assert!(
            page.contains(&escape::html(locale.text("report.why_withheld"))),
            "{locale}"
        );
        // Verdicts survive redaction: the same four regressions.
        assert!(page.contains("<details class=\"section worse some\" open>"));
    }
    // A stored redacted run hides reasons even without --redacted.
    let mut stored = run.clone();
    stored.redacted = true;
    let page = render(&stored, Some(&baseline), None, Locale::En, false).unwrap();
    assert!(!page.contains("mean of 3 samples"));
    assert!(page.contains(Locale::En.text("report.reasons_unavailable_notice")));
}

#[test]
fn the_single_run_form_answers_nothing_and_lists_the_run() {
    let run = document("17-everything-at-once", "run.json");
    let page = render(&run, None, None, Locale::En, false).unwrap();
    assert!(page.contains("<section class=\"answer none\""));
    assert!(page.contains("No reference to compare against"));
    assert!(
        !page.contains("Did it get worse?"),
        "no question without a reference"
    );
    assert!(!page.contains("Reference key"));
    assert_eq!(count(&page, "<details"), 4);
    assert!(page.contains("Scored 0.565217; the bar is 0.650000."));
    assert!(page.contains("waiting on legal"));
    assert_eq!(exit_code(&run, None).code(), 2, "a case errored");
    let fine = document("01-nothing-changed", "run.json");
    assert_eq!(exit_code(&fine, None).code(), 0);
    for locale in Locale::ALL {
        let page = render(&run, None, None, locale, true).unwrap();
        assert!(!page.contains("waiting on legal") && !page.contains("mean of 3"));
    }
}

#[test]
fn renders_are_byte_identical() {
    for scenario in ["02-one-flip", "17-everything-at-once"] {
        let (run, baseline) = pair(scenario);
        for locale in Locale::ALL {
            let a = render(&run, Some(&baseline), None, locale, false).unwrap();
            let b = render(&run.clone(), Some(&baseline.clone()), None, locale, false).unwrap();
            assert_eq!(a, b, "{scenario} {locale}");
            let c = compare(&run, &baseline).unwrap();
            let given = render(&run, Some(&baseline), Some(&c), locale, false).unwrap();
            assert_eq!(
                a, given,
                "computing the comparison here or passing it is the same"
            );
        }
    }
}

#[test]
fn cross_tenant_runs_are_refused_not_rendered() {
    let (run, mut baseline) = pair("02-one-flip");
    baseline.tenant = "other".into();
    let err = render(&run, Some(&baseline), None, Locale::En, false).unwrap_err();
    assert!(err.to_string().contains("tenant"), "{err}");
}

/// A run whose every name and reason is an attack.
fn hostile() -> (RunDocument, RunDocument) {
    let attacks = [
        "<script>document.title='PWNED'</script>",
        "<img src=x onerror=\"document.title='PWNED'\">",
        "</details></td></tr></table><h1>injected</h1>",
        "<a href=\"javascript:alert(1)\">click</a>",
        "evil\u{202E}gnp.exe\u{2066}x\u{2069}\u{E0041}\u{FFFE}\u{200B}\u{FFFF}",
        "\u{1b}[31mred\u{0}\u{7f}\u{85}",
        "\"' onmouseover=alert(1) x='",
    ];
    let verdict = |name: &str, status: &str, score: f64| {
        json!({"assertion": name, "assertion_id": format!("{:016x}", name.len()),
               "metadata": {}, "reason": format!("because {name}"),
               "score": score, "status": status, "threshold": 0.5, "tolerance": 0.0})
    };
    let doc = |status: &str, score: f64, created: &str| -> RunDocument {
        let results: Vec<_> = attacks
            .iter()
            .map(|a| json!({"case_id": a, "suspended": false, "verdicts": [verdict(a, status, score)]}))
            .chain(std::iter::once(json!({"case_id": "parked <b>x</b>", "suspended": true,
                "suspended_reason": "<script>alert('suspended')</script>", "verdicts": []})))
            .collect();
        serde_json::from_value(json!({
            "aggregate": [verdict("<i>precision</i>", status, score)],
            "artifacts": {}, "config_hash": "00000000000000aa", "created_at": created,
            "digline_version": "0.10.0", "environment": "<env>", "git_commit": "<c>-dirty",
            "judge_config": {}, "metadata": {}, "redacted": false, "results": results,
            "schema_version": 10, "suite": "<title>x</title>",
            "target_config": {"values": {"provider": "p", "model": "<script>m</script>"}},
            "tenant": "<tenant>"
        }))
        .unwrap()
    };
    (
        doc("fail", 0.0, "2026-01-02T00:00:00+00:00"),
        doc("pass", 1.0, "2026-01-01T00:00:00+00:00"),
    )
}

#[test]
fn hostile_names_and_reasons_render_as_text() {
    let (run, baseline) = hostile();
    for page in [
        render(&run, Some(&baseline), None, Locale::En, false).unwrap(),
        render(&run, None, None, Locale::Fr, false).unwrap(),
    ] {
        let b = body(&page);
        for tag in [
            "<script",
            "<img",
            "<a ",
            "<i>",
            "<b>x",
            "<title>x",
            "<h1>injected",
        ] {
            assert!(!b.contains(tag), "{tag} reached the page");
        }
        assert!(!page.contains("onerror=\""), "an attribute was injected");
        assert_eq!(count(&page, "<details"), count(&page, "</details>"));
        assert_eq!(count(&page, "<table"), count(&page, "</table>"));
        assert!(b.contains("&lt;script&gt;document.title=&#x27;PWNED&#x27;&lt;/script&gt;"));
        assert!(b.contains("&lt;/details&gt;&lt;/td&gt;"));
        assert!(b.contains("evil&lt;U+202E&gt;gnp.exe&lt;U+2066&gt;x&lt;U+2069&gt;&lt;U+E0041&gt;&lt;U+FFFE&gt;&lt;U+200B&gt;&lt;U+FFFF&gt;"));
        assert!(b.contains("&#x1b;[31mred&#x0;&#x7f;&#x85;"));
        assert!(!page.chars().any(escape::is_invisible));
        assert!(
            page.contains("<title>Evaluation report — &lt;title&gt;x&lt;/title&gt;</title>")
                || page
                    .contains("<title>Rapport d’évaluation — &lt;title&gt;x&lt;/title&gt;</title>")
        );
    }
}

#[test]
fn the_stylesheet_is_allowed_by_its_hash_and_nothing_else_is() {
    let (run, baseline) = pair("02-one-flip");
    let page = render(&run, Some(&baseline), None, Locale::En, false).unwrap();
    let csp = content_security_policy();
    assert!(page.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        escape::html(csp)
    )));
    assert!(csp.starts_with("default-src 'none'; style-src 'sha256-"));
    let start = page.find("<style>").unwrap() + "<style>".len();
    let end = page.find("</style>").unwrap();
    let digest = Sha256::digest(&page.as_bytes()[start..end]);
    assert!(csp.contains(&format!("'sha256-{}'", base64(&digest))));
    // The CSP meta comes before the stylesheet it governs.
    assert!(page.find("Content-Security-Policy").unwrap() < start);
}

#[test]
fn base64_matches_the_rfc_vectors() {
    let cases = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foobar", "Zm9vYmFy"),
    ];
    for (plain, coded) in cases {
        assert_eq!(base64(plain.as_bytes()), coded);
    }
}

#[test]
fn a_hundred_thousand_cases_stay_under_ten_megabytes_with_every_regression_and_error_listed() {
    let (mut run, mut baseline) = pair("02-one-flip");
    let template_case = run.results[0].clone();
    let template_base = baseline.results[0].clone();
    run.results.clear();
    baseline.results.clear();
    let mut worse = 0;
    let mut errored = 0;
    for i in 0..100_000 {
        let mut case = template_case.clone();
        case.case_id = format!("customer-question-{i:06}");
        for v in &mut case.verdicts {
            v.reason =
                "the answer contains the required sign-off and stays under the word limit".into();
        }
        if i % 1_000 == 7 {
            let v = &mut case.verdicts[0];
            v.status = Status::Fail;
            v.score = Some(0.0);
            worse += 1;
        } else if i % 1_000 == 11 {
            let v = &mut case.verdicts[0];
            v.status = Status::Error;
            v.score = None;
            v.reason =
                "target raised ValueError: 127.0.0.1:9 could not be called: timed out".into();
            errored += 1;
        }
        run.results.push(case);
        let mut case = template_base.clone();
        case.case_id = format!("customer-question-{i:06}");
        for v in &mut case.verdicts {
            v.status = Status::Pass;
            v.score = Some(1.0);
        }
        baseline.results.push(case);
    }
    let page = render(&run, Some(&baseline), None, Locale::En, true).unwrap();
    assert!(
        page.len() < 10_000_000,
        "{} bytes for 100,000 cases",
        page.len()
    );
    let listed = count(&page, "<td class=\"case\">");
    assert!(
        listed >= worse + errored && listed <= worse + errored + 3 * LISTED_LIMIT,
        "{listed} rows for {worse} worse and {errored} errored"
    );
    for i in (0..100_000).filter(|i| i % 1_000 == 7 || i % 1_000 == 11) {
        assert!(
            page.contains(&format!("customer-question-{i:06}</td>")),
            "case {i} is listed"
        );
    }
    assert_eq!(
        count(&page, "The target at 127.0.0.1:9 did not answer in time."),
        errored,
        "every error says why, even redacted"
    );
    assert!(page.contains("not listed here to keep this report small"));
}

/// The text a template shows a reader, with expressions, tags, comments and
/// the stylesheet removed: whatever letters remain are hard-coded words.
fn literal_text(template: &str) -> String {
    fn cut(s: &str, open: &str, close: &str) -> String {
        let mut kept = String::new();
        let mut rest = s;
        while let Some(i) = rest.find(open) {
            kept.push_str(&rest[..i]);
            rest = match rest[i..].find(close) {
                Some(j) => &rest[i + j + close.len()..],
                None => "",
            };
        }
        kept.push_str(rest);
        kept
    }
    let text = cut(template, "{#", "#}");
    let text = cut(&text, "{%", "%}");
    let text = cut(&text, "{{", "}}");
    let text = cut(&text, "<style>", "</style>");
    cut(&text, "<", ">")
}

#[test]
fn no_visible_word_is_hard_coded_in_the_template() {
    let text = literal_text(TEMPLATE);
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .collect();
    assert!(
        words.is_empty(),
        "hard-coded words in templates/report.html: {words:?}"
    );
    // And the check can fail.
    assert_eq!(literal_text("<p>{{ t.x }} Hello</p>").trim(), "Hello");
}

#[test]
fn no_visible_word_is_hard_coded_in_the_renderers() {
    // Production string literals of the report layer hold no sentence: at
    // most identifiers, keys, CSS classes, and "digline" (a name).
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/report");
    for file in ["html.rs", "text.rs", "escape.rs", "redact.rs"] {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        let code = source.split("#[cfg(test)]").next().unwrap_or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let line = line.replace("'\"'", "");
            for (i, literal) in line.split('"').enumerate() {
                if i % 2 == 0 {
                    continue;
                }
                let words = literal
                    .split(|c: char| !c.is_ascii_alphabetic())
                    .filter(|w| w.len() > 1)
                    .count();
                let spaced = literal.contains(' ') && words >= 3;
                let allowed = literal.starts_with("default-src")
                    || literal.starts_with("connect-src")
                    || literal.starts_with("form-action")
                    || literal.contains("{e}")
                    || literal.contains("'{}'")
                    || literal.starts_with("the report template");
                assert!(
                    !spaced || allowed,
                    "{file}: a sentence in code: {literal:?}"
                );
            }
        }
    }
}

#[test]
fn config_rows_show_this_run_against_the_reference() {
    let (run, baseline) = pair("14-target-config-change");
    let page = render(&run, Some(&baseline), None, Locale::It, false).unwrap();
    assert!(page.contains(">Che cosa ha risposto</h2>"));
    assert!(page.contains("<tr class=\"moved\"><td class=\"name\">model <span class=\"tag\">cambiato</span></td><td>stub-2</td><td>stub-1</td></tr>"));
    let single = render(&run, None, None, Locale::It, false).unwrap();
    assert!(single.contains("<td class=\"name\">model</td><td>stub-2</td></tr>"));
}

#[test]
fn dates_and_numbers_are_the_same_in_every_locale() {
    let (run, baseline) = pair("05-score-drop-beyond-tolerance");
    for locale in Locale::ALL {
        let page = render(&run, Some(&baseline), None, locale, false).unwrap();
        assert!(
            page.contains(&run.created_at),
            "{locale}: ISO date as recorded"
        );
        assert!(!page.contains("0,"), "{locale}: no decimal comma");
    }
}

#[test]
fn the_tally_takes_the_singular_after_one_in_every_locale() {
    // A scenario where exactly one check got worse.
    let (run, baseline, comparison) = SCENARIOS
        .iter()
        .map(|s| pair(s))
        .map(|(r, b)| {
            let c = compare(&r, &b).unwrap();
            (r, b, c)
        })
        .find(|(_, _, c)| c.headline().counts.get(Outcome::Regressed) == 1)
        .expect("a scenario with one regression");
    let item = |n: usize, word: &str| format!("<b>{n}</b> <span>{}</span>", escape::html(word));
    for (locale, one, many) in [
        (Locale::Fr, "dégradé", "dégradés"),
        (Locale::Es, "empeorado", "empeorados"),
        (Locale::It, "peggiorato", "peggiorati"),
        (Locale::Pt, "piorou", "pioraram"),
    ] {
        let page = render(&run, Some(&baseline), Some(&comparison), locale, true).unwrap();
        let tally = &page[page.find("class=\"tally\"").unwrap()..];
        let tally = &tally[..tally.find("</ul>").unwrap()];
        assert!(tally.contains(&item(1, one)), "{locale}: {tally}");
        assert!(!tally.contains(&item(1, many)), "{locale}: {tally}");
        // The single-run form counts cases and checks the same way.
        let single = render(&run, None, None, locale, true).unwrap();
        for key in [
            "tally_cases",
            "tally_checks",
            "tally_unjudged",
            "tally_suspended",
        ] {
            let (plural, singular) = (
                locale.text(&format!("report.{key}")),
                locale.text(&format!("report.{key}_one")),
            );
            assert!(!singular.is_empty(), "{locale} {key}");
            assert!(
                plural == singular || !single.contains(&item(1, plural)),
                "{locale} {key}"
            );
        }
    }
}
