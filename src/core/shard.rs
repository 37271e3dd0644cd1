//! Shards: one suite split across the CI's parallel jobs, and the record a
//! shard run carries so a merge can prove the pieces make the whole.
//!
//! - **Partition.** A case belongs to shard `1 + (h mod N)`, where `h` is
//!   the first 8 bytes of SHA-256 of its id: a case's shard depends on its
//!   own id and `N` only, so adding or removing a case moves no other case,
//!   and every job computes the same split without talking to the others.
//! - **Plan.** 16 hex chars of SHA-256 over the suite's `config_hash` and
//!   every case in `cases.json` order (id, inputs, labels, group, canary,
//!   suspension): the shards of one plan split the same cases under the
//!   same rules. A merge recomputes it from the suite it was given.
//! - **Record.** A shard run stores `"digline_shard": "K/N plan P"` in the
//!   document's top-level `metadata`: the one place schema 10 lets a run
//!   carry a key of our choosing, so digline 0.10.0 still reads shard runs
//!   (ADR 0014 §1: it leaves `config_hash` alone, absent means *not a
//!   shard*, and metadata never travels). The merged run does not carry it.
//!
//! Pure: no I/O.

use sha2::{Digest, Sha256};

use super::suite::Case;

/// The metadata key of the shard record (refused as a `--meta` key).
pub const RECORD_KEY: &str = "digline_shard";

/// The most shards a suite may be split into (GitHub's matrix allows 256
/// jobs, GitLab's `parallel:` 200).
pub const MAX_SHARDS: u32 = 1000;

/// Which shard of how many: `index` is 1-based, `1 ≤ index ≤ total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    /// ≥ 1.
    pub total: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

impl Shard {
    /// `K/N` as written on the command line.
    ///
    /// # Errors
    /// The sentence saying what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let shape =
            || format!("--shard '{text}' is not K/N (this job's shard, 1-based, of N), nor auto");
        let (k, n) = text.split_once('/').ok_or_else(shape)?;
        let number = |s: &str| -> Option<u32> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (Some(index), Some(total)) = (number(k), number(n)) else {
            return Err(shape());
        };
        Shard::new(index, total).map_err(|why| format!("--shard '{text}': {why}"))
    }

    /// A shard from its two numbers.
    ///
    /// # Errors
    /// The sentence for a total of 0 or over [`MAX_SHARDS`], or an index
    /// outside `1..=total`.
    pub fn new(index: u32, total: u32) -> Result<Shard, String> {
        if total == 0 || total > MAX_SHARDS {
            return Err(format!(
                "the number of shards must be 1 to {MAX_SHARDS}, not {total}"
            ));
        }
        if index == 0 || index > total {
            return Err(format!(
                "the shard must be 1 to {total} (shards are counted from 1), not {index}"
            ));
        }
        Ok(Shard { index, total })
    }

    /// True when `case_id` belongs to this shard.
    pub fn holds(&self, case_id: &str) -> bool {
        shard_of(case_id, self.total) == self.index
    }
}

/// The shard (1-based) of `case_id` among `total`.
pub fn shard_of(case_id: &str, total: u32) -> u32 {
    let digest = Sha256::digest(case_id.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(head) % u64::from(total.max(1))) as u32 + 1
}

/// The plan: 16 hex chars over `config_hash` and every case, in order.
pub fn plan_hash(config_hash: &str, cases: &[Case]) -> String {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_be_bytes());
        h.update(bytes);
    };
    field(b"digline shard plan 1");
    field(config_hash.as_bytes());
    for case in cases {
        let optional = |v: Option<&str>| v.map_or_else(|| "\u{0}".to_string(), |s| format!("={s}"));
        field(case.id.as_bytes());
        field(
            serde_json::to_string(&case.vars)
                .unwrap_or_default()
                .as_bytes(),
        );
        field(
            case.expected
                .as_ref()
                .map_or_else(|| "\u{0}".to_string(), |v| v.to_string())
                .as_bytes(),
        );
        field(
            serde_json::to_string(&case.context)
                .unwrap_or_default()
                .as_bytes(),
        );
        field(
            serde_json::to_string(&case.metadata)
                .unwrap_or_default()
                .as_bytes(),
        );
        field(optional(case.suspended.as_deref()).as_bytes());
        field(optional(case.label.as_deref()).as_bytes());
        field(optional(case.group.as_deref()).as_bytes());
        field(if case.canary { b"canary" } else { b"-" });
    }
    let digest = h.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// What a shard run records about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Which shard.
    pub shard: Shard,
    /// The plan it is a shard of.
    pub plan: String,
}

impl Record {
    /// The metadata value: `K/N plan P`.
    pub fn to_value(&self) -> String {
        format!("{} plan {}", self.shard, self.plan)
    }

    /// Read a metadata value written by [`Record::to_value`].
    ///
    /// # Errors
    /// When `text` is not exactly that shape.
    pub fn parse(text: &str) -> Result<Record, String> {
        let bad = || format!("its shard record '{text}' is not 'K/N plan <16 hex>'");
        let (shard, plan) = text.split_once(" plan ").ok_or_else(bad)?;
        let shard = Shard::parse(shard).map_err(|_| bad())?;
        if plan.len() != 16 || !plan.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(bad());
        }
        Ok(Record {
            shard,
            plan: plan.to_string(),
        })
    }

    /// The record in a run's metadata: `None` for a run that is not a
    /// shard, `Some(Err)` for a record that does not read.
    pub fn of(
        metadata: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<Result<Record, String>> {
        metadata.get(RECORD_KEY).map(|v| match v.as_str() {
            Some(text) => Record::parse(text),
            None => Err("its shard record is not a string".to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str) -> Case {
        Case {
            id: id.into(),
            vars: serde_json::Map::new(),
            expected: None,
            context: Vec::new(),
            metadata: serde_json::Map::new(),
            suspended: None,
            label: None,
            group: None,
            canary: false,
        }
    }

    #[test]
    fn parse_accepts_k_of_n_and_refuses_the_rest() {
        assert_eq!(
            Shard::parse("2/10"),
            Ok(Shard {
                index: 2,
                total: 10
            })
        );
        assert_eq!(Shard::parse("1/1"), Ok(Shard { index: 1, total: 1 }));
        assert_eq!(
            Shard::parse("0/3").unwrap_err(),
            "--shard '0/3': the shard must be 1 to 3 (shards are counted from 1), not 0"
        );
        assert_eq!(
            Shard::parse("4/3").unwrap_err(),
            "--shard '4/3': the shard must be 1 to 3 (shards are counted from 1), not 4"
        );
        assert_eq!(
            Shard::parse("1/0").unwrap_err(),
            "--shard '1/0': the number of shards must be 1 to 1000, not 0"
        );
        for bad in ["3", "a/b", "1/", "/2", "+1/2", "1/2/3", " 1/2"] {
            assert_eq!(
                Shard::parse(bad).unwrap_err(),
                format!("--shard '{bad}' is not K/N (this job's shard, 1-based, of N), nor auto")
            );
        }
    }

    #[test]
    fn the_partition_is_complete_disjoint_and_depends_on_the_id_alone() {
        let ids: Vec<String> = (0..2000).map(|i| format!("case-{i}")).collect();
        let total = 7;
        let mut sizes = [0usize; 7];
        for id in &ids {
            let k = shard_of(id, total);
            assert!((1..=total).contains(&k));
            let holders: Vec<u32> = (1..=total)
                .filter(|&i| Shard { index: i, total }.holds(id))
                .collect();
            assert_eq!(holders, vec![k], "{id}");
            sizes[(k - 1) as usize] += 1;
        }
        // Roughly even: no shard under half or over twice its share.
        for size in sizes {
            assert!((143..=572).contains(&size), "{sizes:?}");
        }
        // Stable across releases: these values are part of the contract.
        assert_eq!(shard_of("case-0", 7), shard_of("case-0", 7));
        assert_eq!(
            (1..=8)
                .map(|i| shard_of(&format!("c{i}"), 4))
                .collect::<Vec<_>>(),
            KNOWN
        );
    }

    // Pinned (checked with Python's hashlib): a change here moves every
    // case of every sharded suite.
    const KNOWN: [u32; 8] = [4, 2, 3, 3, 3, 3, 3, 1];

    #[test]
    fn the_plan_moves_with_a_case_or_the_rules_and_reads_back() {
        let a = plan_hash("d4d9fd58fc759255", &[case("a"), case("b")]);
        assert_eq!(a.len(), 16);
        assert_eq!(a, plan_hash("d4d9fd58fc759255", &[case("a"), case("b")]));
        assert_ne!(a, plan_hash("d4d9fd58fc759256", &[case("a"), case("b")]));
        assert_ne!(a, plan_hash("d4d9fd58fc759255", &[case("a"), case("c")]));
        let mut labelled = case("b");
        labelled.label = Some("positive".into());
        assert_ne!(a, plan_hash("d4d9fd58fc759255", &[case("a"), labelled]));
        let record = Record {
            shard: Shard { index: 3, total: 4 },
            plan: a.clone(),
        };
        assert_eq!(Record::parse(&record.to_value()), Ok(record));
        assert_eq!(
            Record::parse("3/4 plan xyz").unwrap_err(),
            "its shard record '3/4 plan xyz' is not 'K/N plan <16 hex>'"
        );
    }
}
