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
//! - **Balance.** With `--balance durations` the split follows the
//!   durations recorded in the newest full run ([`balance`]); the shard
//!   records the partition's digest ([`partition_hash`]) and a merge
//!   recomputes it from where every case actually is.
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
    // One buffer for every case's serialized fields: the plan is hashed by
    // every shard job over every case, so it allocates nothing per case.
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    // The compact JSON `serde_json::to_string` writes; writing to a Vec
    // cannot fail, nor can JSON values and string-keyed maps.
    fn json<T: serde::Serialize>(buf: &mut Vec<u8>, value: &T) {
        buf.clear();
        let _ = serde_json::to_writer(&mut *buf, value);
    }
    field(b"digline shard plan 1");
    field(config_hash.as_bytes());
    for case in cases {
        field(case.id.as_bytes());
        json(&mut buf, &case.vars);
        field(&buf);
        match &case.expected {
            None => field(b"\0"),
            Some(v) => {
                json(&mut buf, v);
                field(&buf);
            }
        }
        json(&mut buf, &case.context);
        field(&buf);
        json(&mut buf, &case.metadata);
        field(&buf);
        for optional in [&case.suspended, &case.label, &case.group] {
            match optional {
                None => field(b"\0"),
                Some(s) => {
                    buf.clear();
                    buf.push(b'=');
                    buf.extend_from_slice(s.as_bytes());
                    field(&buf);
                }
            }
        }
        field(if case.canary { b"canary" } else { b"-" });
    }
    let digest = h.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Split the cases `ids` (in `cases.json` order) among `total` shards by
/// their recorded `durations` (milliseconds): the 1-based shard of each
/// case, in the same order.
///
/// Deterministic and complete: a case with no recorded duration keeps its
/// hash shard ([`shard_of`]) and counts as the mean recorded duration; the
/// cases with one go, longest first (ties by id), each to the shard with
/// the least time so far (ties to the fewest cases, then the lowest shard): the longest-first
/// greedy split, which keeps every shard within the longest case of the
/// others.
pub fn balance(ids: &[&str], durations: &dyn Fn(&str) -> Option<u64>, total: u32) -> Vec<u32> {
    let total = total.max(1);
    let known: Vec<(usize, u64)> = ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| durations(id).map(|d| (i, d)))
        .collect();
    let mean = if known.is_empty() {
        0
    } else {
        known.iter().map(|&(_, d)| u128::from(d)).sum::<u128>() / known.len() as u128
    };
    let mut out = vec![0u32; ids.len()];
    // (time so far, cases so far) per shard: equal times (a run whose
    // durations all round to 0 ms) still spread the cases evenly.
    let mut load = vec![(0u128, 0usize); total as usize];
    let mut timed = vec![false; ids.len()];
    for &(i, _) in &known {
        timed[i] = true;
    }
    for (i, id) in ids.iter().enumerate() {
        if !timed[i] {
            let k = shard_of(id, total);
            out[i] = k;
            let l = &mut load[(k - 1) as usize];
            l.0 += mean;
            l.1 += 1;
        }
    }
    let mut order = known;
    order.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| ids[a.0].cmp(ids[b.0])));
    for (i, d) in order {
        let least = (0..load.len()).min_by_key(|&k| (load[k], k)).unwrap_or(0);
        out[i] = least as u32 + 1;
        load[least].0 += u128::from(d);
        load[least].1 += 1;
    }
    out
}

/// The partition's digest: 16 hex chars of SHA-256 over every case id and
/// its shard, in `cases.json` order. A balanced shard records it; a merge
/// recomputes it from where each case actually is.
pub fn partition_hash<'a>(assigned: impl IntoIterator<Item = (&'a str, u32)>) -> String {
    let mut h = Sha256::new();
    h.update(b"digline shard partition 1");
    for (id, shard) in assigned {
        h.update((id.len() as u64).to_be_bytes());
        h.update(id.as_bytes());
        h.update(shard.to_be_bytes());
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
    /// `None`: split by the hash of the case id. `Some(digest)`: balanced
    /// by recorded durations into the partition with this
    /// [`partition_hash`].
    pub balanced: Option<String>,
}

impl Record {
    /// The metadata value: `K/N plan P`, or `K/N plan P balanced B`.
    pub fn to_value(&self) -> String {
        match &self.balanced {
            None => format!("{} plan {}", self.shard, self.plan),
            Some(b) => format!("{} plan {} balanced {b}", self.shard, self.plan),
        }
    }

    /// Read a metadata value written by [`Record::to_value`].
    ///
    /// # Errors
    /// When `text` is not exactly that shape.
    pub fn parse(text: &str) -> Result<Record, String> {
        let bad = || {
            format!("its shard record '{text}' is not 'K/N plan <16 hex>' (or 'K/N plan <16 hex> balanced <16 hex>')")
        };
        let hex16 =
            |s: &str| s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        let (shard, rest) = text.split_once(" plan ").ok_or_else(bad)?;
        let shard = Shard::parse(shard).map_err(|_| bad())?;
        let (plan, balanced) = match rest.split_once(" balanced ") {
            Some((plan, b)) if hex16(b) => (plan, Some(b.to_string())),
            Some(_) => return Err(bad()),
            None => (rest, None),
        };
        if !hex16(plan) {
            return Err(bad());
        }
        Ok(Record {
            shard,
            plan: plan.to_string(),
            balanced,
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

    /// The plan as documented: length-prefixed fields, each JSON field as
    /// `serde_json::to_string` writes it (what `bench/gen_shards.py`
    /// recomputes), whatever buffer the hash is computed through.
    #[test]
    fn the_plan_is_the_documented_hash_of_every_field() {
        let mut full = case("a");
        full.vars
            .insert("q".into(), serde_json::json!({"x": [1, "é"]}));
        full.expected = Some(serde_json::json!("yes"));
        full.context = vec!["c1".into(), "c2".into()];
        full.metadata.insert("m".into(), serde_json::json!(null));
        full.suspended = Some("moving".into());
        full.label = Some("negative".into());
        full.group = Some("g".into());
        full.canary = true;
        let cases = [full, case("b")];
        let mut h = Sha256::new();
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_be_bytes());
            h.update(bytes);
        };
        field(b"digline shard plan 1");
        field(b"d4d9fd58fc759255");
        for c in &cases {
            let optional =
                |v: &Option<String>| v.as_ref().map_or("\u{0}".to_string(), |s| format!("={s}"));
            field(c.id.as_bytes());
            field(serde_json::to_string(&c.vars).unwrap().as_bytes());
            field(
                c.expected
                    .as_ref()
                    .map_or("\u{0}".to_string(), |v| v.to_string())
                    .as_bytes(),
            );
            field(serde_json::to_string(&c.context).unwrap().as_bytes());
            field(serde_json::to_string(&c.metadata).unwrap().as_bytes());
            field(optional(&c.suspended).as_bytes());
            field(optional(&c.label).as_bytes());
            field(optional(&c.group).as_bytes());
            field(if c.canary { b"canary" } else { b"-" });
        }
        let want: String = h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(plan_hash("d4d9fd58fc759255", &cases), want);
    }

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
            balanced: None,
        };
        assert_eq!(Record::parse(&record.to_value()), Ok(record.clone()));
        let balanced = Record {
            balanced: Some("0123456789abcdef".into()),
            ..record
        };
        assert_eq!(
            balanced.to_value(),
            format!("3/4 plan {a} balanced 0123456789abcdef")
        );
        assert_eq!(Record::parse(&balanced.to_value()), Ok(balanced));
        for bad in [
            "3/4 plan xyz".to_string(),
            format!("3/4 plan {a} balanced xyz"),
            format!("3/4 plan {a} weighted 0123456789abcdef"),
        ] {
            assert_eq!(
                Record::parse(&bad).unwrap_err(),
                format!("its shard record '{bad}' is not 'K/N plan <16 hex>' (or 'K/N plan <16 hex> balanced <16 hex>')")
            );
        }
    }

    #[test]
    fn balancing_by_durations_is_complete_deterministic_and_even() {
        let ids: Vec<String> = (0..40).map(|i| format!("c{i:02}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        // Case i takes (i + 1) * 10 ms; c39 has no recorded duration.
        let took = |id: &str| -> Option<u64> {
            let i: u64 = id[1..].parse().ok()?;
            (i != 39).then_some((i + 1) * 10)
        };
        let split = balance(&refs, &took, 4);
        assert_eq!(split, balance(&refs, &took, 4));
        assert!(split.iter().all(|k| (1..=4).contains(k)));
        // The case with no duration keeps its hash shard.
        assert_eq!(split[39], shard_of("c39", 4));
        let mean = (1..=39).map(|i| i * 10).sum::<u64>() / 39;
        let mut load = [0u64; 4];
        for (i, k) in split.iter().enumerate() {
            load[(*k - 1) as usize] += took(&ids[i]).unwrap_or(mean);
        }
        let (lo, hi) = (load.iter().min().unwrap(), load.iter().max().unwrap());
        // Within the longest case (390 ms) of each other; the hash split is not.
        assert!(hi - lo <= 390, "{load:?}");
        // The longest case goes to the lowest shard with nothing yet.
        let empty = if shard_of("c39", 4) == 1 { 2 } else { 1 };
        assert_eq!(split[38], empty);
        // No durations at all: exactly the hash partition.
        let none = balance(&refs, &|_| None, 4);
        assert_eq!(
            none,
            refs.iter().map(|id| shard_of(id, 4)).collect::<Vec<_>>()
        );
        // The partition's digest moves with any case's shard.
        let digest = partition_hash(refs.iter().copied().zip(split.iter().copied()));
        let mut moved = split.clone();
        moved[0] = moved[0] % 4 + 1;
        assert_ne!(
            digest,
            partition_hash(refs.iter().copied().zip(moved.iter().copied()))
        );
    }
}
