//! The verdict: what one check decided about one case (or one run).
//!
//! Three states only (`pass`, `fail`, `error`); an error means *could not
//! judge* and is never a fail. A verdict is stored with its score,
//! threshold and tolerance rounded to 6 decimals, and passes iff
//! `round6(score) >= round6(threshold)`. Design record: ADR 0006 as carried
//! by ADR 0014 (`shared/seeds/001_*`); spec `20-checks.md`.

use std::fmt;

use serde::de::Deserializer;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::level::Level;
use super::name::Name;
use super::python::dumps::round6;

/// The three states of a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The score met the threshold.
    Pass,
    /// The score fell short of the threshold.
    Fail,
    /// The check could not judge (no score).
    Error,
}

impl Status {
    /// The lowercase word written in documents (`pass`, `fail`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// `meets(v, limit)`: `round6(v) >= round6(limit)` (a score meets its threshold).
pub fn meets(value: f64, limit: f64) -> bool {
    round6(value) >= round6(limit)
}

/// `within(v, limit)`: `round6(v) <= round6(limit)` (a measurement stays under a cap).
pub fn within(value: f64, limit: f64) -> bool {
    round6(value) <= round6(limit)
}

/// One verdict as a schema-10 document stores it (`results[].verdicts[]`
/// and `aggregate[]`).
///
/// `score` is a 0–1 value, `None` iff `status` is `error`. `reason` is
/// payload: it may quote parameters but never the output, and it never
/// leaves the document (no comment, JSON or log carries it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// The check's reported name (`contains`, `starts_with`, `precision[group=a]`).
    pub assertion: Name,
    /// 16 hex chars identifying the check's declaration: what baselines pair on.
    pub assertion_id: Name,
    /// Measured facts (lengths, counts, sampled scores); never the output.
    pub metadata: Metadata,
    /// Why the check decided as it did; payload.
    pub reason: String,
    /// 0–1, rounded to 6 decimals; `None` iff the check errored.
    pub score: Option<f64>,
    /// pass, fail or error.
    pub status: Status,
    /// 0–1, rounded to 6 decimals; an integer when declared as one.
    pub threshold: Level,
    /// ≥ 0, rounded to 6 decimals: how far the score may move before it
    /// counts; an integer when declared as one.
    pub tolerance: Level,
    /// The per-sample scores when the check was sampled (suite `samples` > 1).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub samples: Option<Vec<f64>>,
    /// The lowest sampled score: the bottom of the measured noise interval.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sample_min: Option<f64>,
    /// The highest sampled score: the top of the measured noise interval.
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sample_max: Option<f64>,
    /// Set to `true` when the samples were themselves folds (`repeated` under suite samples).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sample_means: Option<bool>,
    /// Set to `true` on verdicts of judged checks (`llm_rubric`, `faithfulness`).
    #[serde(
        default,
        deserialize_with = "crate::core::strict_json::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub judged: Option<bool>,
}

impl Verdict {
    /// A judged verdict: the status follows from `score` and `threshold`.
    /// All three numbers are rounded to 6 decimals.
    pub fn scored(
        name: &str,
        assertion_id: &str,
        score: f64,
        threshold: impl Into<Level>,
        tolerance: impl Into<Level>,
        reason: String,
        metadata: impl Into<Metadata>,
    ) -> Verdict {
        let (threshold, tolerance) = (threshold.into(), tolerance.into());
        let score = round6(score);
        let status = if meets(score, *threshold) {
            Status::Pass
        } else {
            Status::Fail
        };
        Verdict {
            assertion: Name::new(name),
            assertion_id: Name::new(assertion_id),
            metadata: metadata.into(),
            reason,
            score: Some(score),
            status,
            threshold,
            tolerance,
            samples: None,
            sample_min: None,
            sample_max: None,
            sample_means: None,
            judged: None,
        }
    }

    /// An `error` verdict: the check could not judge, for `reason`.
    pub fn errored(
        name: &str,
        assertion_id: &str,
        threshold: impl Into<Level>,
        tolerance: impl Into<Level>,
        reason: String,
        metadata: impl Into<Metadata>,
    ) -> Verdict {
        let (threshold, tolerance) = (threshold.into(), tolerance.into());
        Verdict {
            assertion: Name::new(name),
            assertion_id: Name::new(assertion_id),
            metadata: metadata.into(),
            reason,
            score: None,
            status: Status::Error,
            threshold,
            tolerance,
            samples: None,
            sample_min: None,
            sample_max: None,
            sample_means: None,
            judged: None,
        }
    }

    /// The verdict as a document stores it: every float in `metadata`
    /// (recursively; integers untouched) rounded to 6 decimals, as digline
    /// 0.10.0 writes measured values (`cost_usd` 0.6666666666666666 → 0.666667).
    pub fn at_storage_precision(mut self) -> Verdict {
        for value in self.metadata.values_mut() {
            round_floats(value);
        }
        self
    }

    /// True when status and score agree (`error` ⇔ no score; otherwise the
    /// status is what `meets(score, threshold)` says). A contradictory
    /// verdict is a bug or a tampered document.
    pub fn is_consistent(&self) -> bool {
        match (self.status, self.score) {
            (Status::Error, None) => true,
            (Status::Error, Some(_)) | (_, None) => false,
            (status, Some(score)) => {
                (0.0..=1.0).contains(&score)
                    && (status == Status::Pass) == meets(score, *self.threshold)
            }
        }
    }
}

/// A verdict's `metadata`: a few measured facts by key, kept sorted by key
/// in one boxed slice (keys shared as [`Name`]s) instead of a `BTreeMap`,
/// whose first node is allocated whole (≈630 bytes) even for two keys.
/// Reads and writes as the JSON object it is, keys in sorted order, so a
/// document keeps its bytes; read as strictly as any object of a document
/// (a key written twice is refused).
#[derive(Clone, Default, PartialEq)]
pub struct Metadata(Box<[(Name, Value)]>);

impl Metadata {
    /// No facts.
    pub fn new() -> Metadata {
        Metadata::default()
    }

    /// True when there is nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).ok().map(|i| &self.0[i].1)
    }

    /// True when `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    /// Every key and value, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Every value, mutably, in key order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// Set `key` to `value`; the value it replaced, if any.
    pub fn insert(&mut self, key: &str, value: Value) -> Option<Value> {
        match self.position(key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                let mut entries = std::mem::take(&mut self.0).into_vec();
                entries.insert(i, (Name::new(key), value));
                self.0 = entries.into_boxed_slice();
                None
            }
        }
    }

    /// Keep only the entries `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&str, &Value) -> bool) {
        if self.0.iter().all(|(k, v)| keep(k, v)) {
            return;
        }
        let mut entries = std::mem::take(&mut self.0).into_vec();
        entries.retain(|(k, v)| keep(k, v));
        self.0 = entries.into_boxed_slice();
    }

    /// Drop every entry.
    pub fn clear(&mut self) {
        self.0 = Box::default();
    }

    /// The facts as a JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    /// The facts as a JSON object, giving this up.
    pub fn into_map(self) -> Map<String, Value> {
        self.0
            .into_vec()
            .into_iter()
            .map(|(k, v)| (String::from(k), v))
            .collect()
    }
}

impl From<Map<String, Value>> for Metadata {
    fn from(map: Map<String, Value>) -> Metadata {
        // A `Map` iterates in key order, without duplicates.
        Metadata(
            map.into_iter()
                .map(|(k, v)| (Name::new(&k), v))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        )
    }
}

impl std::ops::Index<&str> for Metadata {
    type Output = Value;

    /// The value of `key`, or `null` when it is absent (as `Map` indexes).
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl fmt::Debug for Metadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Metadata {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Metadata, D::Error> {
        crate::core::strict_json::deserialize_object(deserializer).map(Metadata::from)
    }
}

/// Round every float inside `value` to 6 decimals, leaving integers as integers.
pub fn round_floats(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n
                .as_f64()
                .and_then(|x| serde_json::Number::from_f64(round6(x)))
            {
                *n = x;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(round_floats),
        Value::Object(map) => map.values_mut().for_each(round_floats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_follows_rounded_score() {
        let v = Verdict::scored("x", "id", 0.8999996, 0.9, 0.0, "r".into(), Map::new());
        assert_eq!(v.status, Status::Pass);
        assert_eq!(v.score, Some(0.9));
        let v = Verdict::scored("x", "id", 0.899999, 0.9, 0.0, "r".into(), Map::new());
        assert_eq!(v.status, Status::Fail);
        assert!(v.is_consistent());
    }

    #[test]
    fn storage_precision_rounds_floats_only() {
        let mut metadata = Map::new();
        metadata.insert("ratio".into(), serde_json::json!(0.013333333333333334));
        metadata.insert("length".into(), serde_json::json!(46));
        metadata.insert(
            "nested".into(),
            serde_json::json!({"x": [2.0 / 3.0, 1e-05]}),
        );
        let v =
            Verdict::scored("x", "id", 1.0, 1.0, 0.0, "r".into(), metadata).at_storage_precision();
        assert_eq!(
            crate::core::python::dumps::dumps_canonical(&Value::Object(v.metadata.into_map())),
            r#"{"length":46,"nested":{"x":[0.666667,1e-05]},"ratio":0.013333}"#
        );
    }

    #[test]
    fn metadata_reads_and_writes_as_the_object_it_is() {
        let text = r#"{"unit":"words","length":21,"maximum":40}"#;
        let mut m: Metadata = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"length":21,"maximum":40,"unit":"words"}"#
        );
        assert_eq!((m.len(), m.is_empty()), (3, false));
        assert_eq!(m["length"], serde_json::json!(21));
        assert_eq!(m["absent"], Value::Null);
        assert!(m.contains_key("unit") && !m.contains_key("units"));
        assert_eq!(
            serde_json::from_str::<Metadata>(r#"{"a": 1, "a": 2}"#)
                .unwrap_err()
                .to_string(),
            "the key `a` appears twice in one object"
        );
        assert!(serde_json::from_str::<Metadata>("[1]").is_err());
        assert_eq!(m.insert("between", serde_json::json!(1)), None);
        assert_eq!(
            m.insert("length", serde_json::json!(22)),
            Some(serde_json::json!(21))
        );
        let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["between", "length", "maximum", "unit"]);
        m.retain(|_, v| v.is_number());
        assert_eq!(
            Value::Object(m.clone().into_map()),
            serde_json::json!({"between": 1, "length": 22, "maximum": 40})
        );
        assert_eq!(m.to_map(), m.clone().into_map());
        m.clear();
        assert_eq!(serde_json::to_string(&m).unwrap(), "{}");
    }

    #[test]
    fn a_verdict_is_held_in_at_most_184_bytes() {
        // 208 while names and ids were owned strings and metadata a BTreeMap.
        assert!(
            std::mem::size_of::<Verdict>() <= 184,
            "{}",
            std::mem::size_of::<Verdict>()
        );
        assert_eq!(std::mem::size_of::<Metadata>(), 16);
    }

    #[test]
    fn contradictions_are_detected() {
        let mut v = Verdict::scored("x", "id", 1.0, 1.0, 0.0, "r".into(), Map::new());
        v.status = Status::Fail;
        assert!(!v.is_consistent());
        v.status = Status::Error;
        assert!(!v.is_consistent());
        let e = Verdict::errored("x", "id", 1.0, 0.0, "r".into(), Map::new());
        assert!(e.is_consistent());
    }
}
