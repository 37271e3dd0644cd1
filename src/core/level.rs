//! A threshold or tolerance as the suite declared it: a number that
//! remembers whether it was written as an integer.
//!
//! digline 0.10.0 keeps `threshold = 1` and `tolerance = 0` as the integers
//! `1` and `0` in every verdict it writes (Python's `round(1, 6)` is the int
//! `1`), and `1.0`/`0.0` when written as floats; documents are only
//! byte-identical when we do the same. The value is always rounded to 6
//! decimals. Spec `95-parity-traps.md` ("int vs float survives").

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Number;

use super::python::dumps::round6;

/// A 0–1 threshold or a ≥ 0 tolerance, rounded to 6 decimals, with its
/// declared integer-ness. Dereferences to the `f64` value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    value: f64,
    integer: bool,
}

impl Level {
    /// A float level (`1.0`), rounded to 6 decimals.
    pub fn float(value: f64) -> Level {
        Level {
            value: round6(value),
            integer: false,
        }
    }

    /// The level a suite or document wrote: an integer stays an integer.
    pub fn declared(number: &Number) -> Level {
        match number.as_i64() {
            Some(i) => Level {
                value: i as f64,
                integer: true,
            },
            None => Level::float(number.as_f64().unwrap_or(f64::NAN)),
        }
    }

    /// The value.
    pub fn get(self) -> f64 {
        self.value
    }

    /// True when it was declared as an integer.
    pub fn is_integer(self) -> bool {
        self.integer
    }

    /// The number as a document writes it.
    pub fn to_number(self) -> Number {
        if self.integer {
            Number::from(self.value as i64)
        } else {
            Number::from_f64(self.value).unwrap_or_else(|| Number::from(0))
        }
    }
}

impl From<f64> for Level {
    fn from(value: f64) -> Level {
        Level::float(value)
    }
}

impl Deref for Level {
    type Target = f64;

    fn deref(&self) -> &f64 {
        &self.value
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", super::python::dumps::float_repr(self.value))
    }
}

impl Serialize for Level {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.integer {
            serializer.serialize_i64(self.value as i64)
        } else {
            serializer.serialize_f64(self.value)
        }
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Level, D::Error> {
        let number = Number::deserialize(deserializer)?;
        Ok(Level::declared(&number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_stay_integers() {
        let rows: &[(&str, &str, f64)] = &[
            ("1", "1", 1.0),
            ("0", "0", 0.0),
            ("1.0", "1.0", 1.0),
            ("0.90000049", "0.9", 0.9),
            ("0.05", "0.05", 0.05),
        ];
        for (text, written, value) in rows {
            let level: Level = serde_json::from_str(text).unwrap();
            assert_eq!(*level, *value, "{text}");
            assert_eq!(serde_json::to_string(&level).unwrap(), *written, "{text}");
        }
        assert!(serde_json::from_str::<Level>("\"1\"").is_err());
        assert_eq!(Level::from(0.5), Level::float(0.5));
        assert!(!Level::float(1.0).is_integer());
    }
}
