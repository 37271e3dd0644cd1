//! The cost flags of every command that pays a judge or a target (`run`,
//! `gate`, `rejudge`): the judge memo and the hard spending cap. One
//! definition, flattened into each command's flags (like `super::pool`),
//! so the three commands spell, default and explain them the same way.

use clap::Args;

use crate::host::runner::CostOptions;
use crate::run::memo::MemoMode;

/// How a run's spend is avoided and bounded.
#[derive(Clone, Copy, Debug, Args)]
pub struct CostArgs {
    /// Reuse a judge's reply to the same question (on: reuse and record; off: always ask; replay: never ask a judge, a reply the memo lacks is not judged).
    #[arg(long, value_enum, default_value_t = MemoMode::On, value_name = "MODE", hide_possible_values = true)]
    pub judge_memo: MemoMode,
    /// Stop before spending more than this many USD on the target and the judges together (a call is sent only when its worst case fits; what is not asked is not judged).
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_usd: Option<f64>,
}

impl CostArgs {
    /// `pool` with these flags in it (how the use cases take them).
    pub fn pool(&self, pool: crate::app::run::Pool) -> crate::app::run::Pool {
        crate::app::run::Pool {
            cost: self.options(),
            ..pool
        }
    }

    /// As the runner takes them.
    pub fn options(&self) -> CostOptions {
        CostOptions {
            memo: self.judge_memo,
            max_usd: self.max_usd,
            shards: 1,
            memo_sealed_only: false,
        }
    }
}

/// `--max-usd`: a finite number of dollars, 0 or more.
fn parse_usd(text: &str) -> Result<f64, String> {
    match text.trim().trim_start_matches('$').parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!(
            "--max-usd '{text}' is not an amount: write a number of US dollars, 0 or more (0.50)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        cost: CostArgs,
    }

    fn parse(args: &[&str]) -> Option<CostArgs> {
        Probe::try_parse_from(args).map(|p| p.cost).ok()
    }

    #[test]
    fn the_memo_is_on_and_nothing_is_capped_by_default() {
        let cost = parse(&["x"]).unwrap_or_else(|| panic!("defaults parse"));
        assert_eq!(cost.options(), CostOptions::default());
        let set = parse(&["x", "--judge-memo", "replay", "--max-usd", "$0.25"])
            .unwrap_or_else(|| panic!("flags parse"));
        assert_eq!(set.judge_memo, MemoMode::Replay);
        assert_eq!(set.max_usd, Some(0.25));
        for bad in [
            &["x", "--judge-memo", "maybe"][..],
            &["x", "--max-usd", "-1"],
            &["x", "--max-usd", "inf"],
            &["x", "--max-usd", "lots"],
        ] {
            assert!(parse(bad).is_none(), "{bad:?}");
        }
    }
}
