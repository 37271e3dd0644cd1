//! The playbook that rides with the instrument: the rules of `AGENTS.md`,
//! each written once here and quoted by the tool whose misuse it governs
//! (ADR 0011 §9).
//!
//! Tool descriptions are loaded into the model's context at the moment it
//! decides whether to call the tool, so they are the one place `AGENTS.md`
//! reaches an agent that never read it. `AGENTS.md` at the repository root
//! states the same sentences; `tests/cli/mcp.rs` fails when a rule here and
//! the file drift apart, or when a tool stops quoting its rule.

/// §1: promotion is a person's decision, and this surface has no way to make it.
pub const NEVER_PROMOTE: &str = "A baseline is an approved reference, and the approval is a person's. There is no tool here that promotes, migrates or renders a report: assemble the evidence, recommend, and let a person run the command.";

/// §2: which run to recommend as the reference.
pub const PROMOTE_THE_MEDIAN: &str = "Promote from the middle of several runs, never from the first one that goes green. You cannot promote here: recommend the median run to a person, by its key, and let them run `digline promote`.";

/// §3: the stopping rule for re-runs.
pub const DECIDE_RERUNS_FIRST: &str = "Decide the number of re-runs before running them: with a stochastic judge, enough re-runs always produce a green one, and a stopping rule chosen after the fact measures your patience rather than the system.";

/// §4: a correlated flip is a finding.
pub const FLIPS_ARE_INVESTIGATED: &str = "Several cases flipping together is investigated, not retried: name the cases and look at what they share. Retrying until the run is green destroys the evidence either way.";

/// §5: the interval explains; it never rescues.
pub const NOISE_EXPLAINS: &str = "\"Within noise\" explains, it does not excuse: an absolute threshold still gates, a flip from passing to failing is never rescued by an interval, and an exit code of 1 is never argued away by quoting one.";

/// §6: the exit code is the contract.
pub const EXIT_CODE_IS_THE_CONTRACT: &str = "`exit_code` is the contract: 0 proceed, 1 stop and report what got worse, 2 stop because the run could not be judged and nothing downstream of it is meaningful.";

/// §7: the cost is said out loud before it is spent.
pub const SAY_THE_COST: &str = "Say what a run costs before starting it: `acknowledge_calls` is the number of calls to the target, and the plan sentence names every judge repeat on top of it. Before proposing several runs, multiply and say the figure.";

/// §8: migrations are proposed, not run.
pub const PROPOSE_MIGRATIONS: &str = "When `note` names runs left out for their schema, say so and name the advice. A migration rewrites stored documents: propose `digline migrate` to a person; never run it yourself.";

/// ADR 0008 §1: a diff has no verdict.
pub const DIFF_HAS_NO_VERDICT: &str = "Neither side of a diff is a reference: there is no `worse`, no exit code, and nothing here gates anything. Do not synthesise a verdict from it.";

/// Every rule, as `AGENTS.md` numbers them (the diff rule is unnumbered).
pub const ALL: [&str; 9] = [
    NEVER_PROMOTE,
    PROMOTE_THE_MEDIAN,
    DECIDE_RERUNS_FIRST,
    FLIPS_ARE_INVESTIGATED,
    NOISE_EXPLAINS,
    EXIT_CODE_IS_THE_CONTRACT,
    SAY_THE_COST,
    PROPOSE_MIGRATIONS,
    DIFF_HAS_NO_VERDICT,
];

/// Which tool quotes which rules (ADR 0011 §9). A tool's description
/// contains each of its rules word for word.
pub const CARRIED_BY: [(&str, &[&str]); 6] = [
    ("list_runs", &[PROMOTE_THE_MEDIAN, PROPOSE_MIGRATIONS]),
    ("get_run", &[FLIPS_ARE_INVESTIGATED]),
    ("get_baseline", &[FLIPS_ARE_INVESTIGATED, NEVER_PROMOTE]),
    (
        "compare",
        &[
            EXIT_CODE_IS_THE_CONTRACT,
            NOISE_EXPLAINS,
            DECIDE_RERUNS_FIRST,
        ],
    ),
    ("diff", &[DIFF_HAS_NO_VERDICT]),
    ("run", &[SAY_THE_COST, DECIDE_RERUNS_FIRST]),
];

/// What the server says about itself at `initialize`.
pub const INSTRUCTIONS: &str = "Read digline results and measure new ones, in one repository. A baseline is an approved reference, and the approval is a person's. There is no tool here that promotes, migrates or renders a report: assemble the evidence, recommend, and let a person run the command. The rules are in AGENTS.md at the repository root.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_carried_by_some_tool_or_the_instructions() {
        for rule in ALL {
            let carried = CARRIED_BY.iter().any(|(_, rules)| rules.contains(&rule))
                || INSTRUCTIONS.contains(rule);
            assert!(carried, "nobody carries: {rule}");
        }
    }
}
