//! Names that repeat in every case — a check's reported name, its
//! `assertion_id`, a metadata key — held once and shared.
//!
//! A 100,000-case run with four checks a case holds the same four names
//! and ids 400,000 times; as owned `String`s each is its own allocation.
//! A [`Name`] is an `Arc<str>` taken from a small process-wide table, so
//! equal names share one allocation and cloning one copies a pointer. The
//! table is bounded ([`TABLE_LIMIT`] names of at most [`NAME_LIMIT`]
//! bytes): past it, a name is simply allocated on its own, so a document
//! with millions of distinct names costs what it did before, never more.
//!
//! A `Name` reads, writes, compares, orders and hashes as the text it
//! holds: documents keep their bytes. Pure (no I/O); the table is memory only.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many distinct names the shared table keeps.
pub const TABLE_LIMIT: usize = 4_096;
/// The longest name (in bytes) the shared table keeps.
pub const NAME_LIMIT: usize = 128;

/// A shared, immutable name: text that repeats across cases.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(Arc<str>);

fn table() -> &'static Mutex<HashSet<Arc<str>>> {
    static TABLE: OnceLock<Mutex<HashSet<Arc<str>>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashSet::new()))
}

impl Name {
    /// The shared name for `text` (allocated once while the table has room).
    pub fn new(text: &str) -> Name {
        if text.len() > NAME_LIMIT {
            return Name(Arc::from(text));
        }
        let Ok(mut names) = table().lock() else {
            return Name(Arc::from(text));
        };
        if let Some(shared) = names.get(text) {
            return Name(Arc::clone(shared));
        }
        let name: Arc<str> = Arc::from(text);
        if names.len() < TABLE_LIMIT {
            names.insert(Arc::clone(&name));
        }
        Name(name)
    }

    /// A name allocated on its own, outside the table: for text that does
    /// not repeat (a case id), shared only by the clones made of it.
    pub fn unshared(text: &str) -> Name {
        Name(Arc::from(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::new(&text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Name {
        Name::new(text)
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.0.to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == &*other.0
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

struct NameVisitor;

impl Visitor<'_> for NameVisitor {
    type Value = Name;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
        Ok(Name::new(v))
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        deserializer.deserialize_str(NameVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_share_one_allocation_and_read_as_their_text() {
        let a = Name::new("contains-name-test");
        let b: Name = serde_json::from_str("\"contains-name-test\"").unwrap();
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a, "contains-name-test");
        assert_eq!(serde_json::to_string(&b).unwrap(), "\"contains-name-test\"");
        assert!(Name::new("a") < Name::new("b"));
    }

    #[test]
    fn long_and_unshared_names_are_allocated_on_their_own() {
        let long = "x".repeat(NAME_LIMIT + 1);
        assert!(!Arc::ptr_eq(&Name::new(&long).0, &Name::new(&long).0));
        assert!(!Arc::ptr_eq(
            &Name::unshared("case-1").0,
            &Name::unshared("case-1").0
        ));
        assert_eq!(Name::new(&long), long);
    }

    #[test]
    fn escaped_text_reads_unescaped() {
        let n: Name = serde_json::from_str(r#""a\"b\u00e9""#).unwrap();
        assert_eq!(n, "a\"bé");
    }
}
