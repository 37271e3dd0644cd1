//! The pool flags of every command that asks a server for answers or
//! grades (`run`, `gate`, `rejudge`): how many calls are in flight at
//! once, how often a failed call is retried, and the pace of a quota.
//! One definition, flattened into each command's flags, so the three
//! commands spell, default, bound and explain them the same way.

use clap::Args;

use crate::run::quota::Quota;

/// How calls are pooled, retried and paced.
#[derive(Clone, Copy, Debug, Args)]
pub struct PoolArgs {
    /// Calls in flight at once, to the target or the judges (the pool slows down on repeated 429s and recovers).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// Retries of a call that failed with 429, 5xx, a reset or a timeout (0 = none).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub max_retries: u32,
    /// Pace the calls to a quota: requests per minute (600 or 600rpm), tokens per minute (90000tpm), or both (600rpm,90000tpm).
    #[arg(long, value_name = "RATE", value_parser = Quota::parse)]
    pub rate: Option<Quota>,
}

impl PoolArgs {
    /// Calls in flight at once, as the pool counts them.
    pub fn workers(&self) -> usize {
        self.concurrency as usize
    }

    /// The quota to pace to (none declared: no pacing).
    pub fn quota(&self) -> Quota {
        self.rate.unwrap_or_default()
    }

    /// The pool as a use case's request takes it.
    pub fn pool(&self) -> crate::app::run::Pool {
        crate::app::run::Pool {
            concurrency: self.workers(),
            max_retries: self.max_retries,
            quota: self.quota(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        pool: PoolArgs,
    }

    #[test]
    fn the_pool_flags_default_and_bound_the_same_everywhere() {
        let pool = Probe::try_parse_from(["x"]).map(|p| p.pool).ok();
        let pool = pool.unwrap_or_else(|| panic!("defaults parse"));
        assert_eq!((pool.workers(), pool.max_retries), (8, 4));
        assert_eq!(pool.quota(), Quota::default());
        for bad in [
            &["x", "--concurrency", "0"][..],
            &["x", "--concurrency", "1025"],
            &["x", "--max-retries", "101"],
            &["x", "--rate", "fast"],
        ] {
            assert!(Probe::try_parse_from(bad).is_err(), "{bad:?}");
        }
        let paced = Probe::try_parse_from(["x", "--concurrency", "3", "--rate", "600rpm"])
            .map(|p| p.pool)
            .ok();
        let paced = paced.unwrap_or_else(|| panic!("flags parse"));
        assert_eq!(paced.workers(), 3);
        assert_ne!(paced.quota(), Quota::default());
    }
}
