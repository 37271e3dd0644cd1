//! The locales: one strings file per language under `templates/locales/`,
//! compiled into the binary, the single source of every sentence digline
//! shows a person — the terminal text of `compare` (`[compare]`) and the HTML
//! report (`[report]`).
//!
//! A file is TOML: tables of `key = "text"` with `{name}` placeholders. Keys
//! are addressed as `table.key` (`compare.worse_none`). Every locale has the
//! same keys with the same placeholders (tests prove it). Dates stay ISO 8601
//! and numbers keep a dot in every locale: only words are translated.
//!
//! Pure: the files are `include_str!`ed and parsed once, lazily.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// A language digline can write a document in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Locale {
    /// English (the default of the terminal).
    En,
    /// Italian.
    It,
    /// German.
    De,
    /// French.
    Fr,
    /// Spanish.
    Es,
    /// Portuguese.
    Pt,
}

/// The codes of every locale, in the order help texts list them.
pub const LOCALE_CODES: [&str; 6] = ["en", "it", "de", "fr", "es", "pt"];

impl Locale {
    /// Every locale, in [`LOCALE_CODES`] order.
    pub const ALL: [Locale; 6] = [
        Locale::En,
        Locale::It,
        Locale::De,
        Locale::Fr,
        Locale::Es,
        Locale::Pt,
    ];

    /// The BCP 47 code (`en`, `it`, …): the `--locale` value and the HTML `lang`.
    pub fn code(self) -> &'static str {
        LOCALE_CODES[self.index()]
    }

    /// The locale named by `code` (exactly as listed in [`LOCALE_CODES`]).
    ///
    /// # Errors
    /// [`UnknownLocale`] naming the code and the known ones.
    pub fn parse(code: &str) -> Result<Locale, UnknownLocale> {
        Locale::ALL
            .into_iter()
            .find(|l| l.code() == code)
            .ok_or_else(|| UnknownLocale {
                given: code.to_string(),
            })
    }

    /// This locale's place in [`Locale::ALL`] (0 is English).
    pub(crate) fn index(self) -> usize {
        match self {
            Locale::En => 0,
            Locale::It => 1,
            Locale::De => 2,
            Locale::Fr => 3,
            Locale::Es => 4,
            Locale::Pt => 5,
        }
    }

    /// The strings file as compiled in.
    pub fn source(self) -> &'static str {
        match self {
            Locale::En => include_str!("../../templates/locales/en.toml"),
            Locale::It => include_str!("../../templates/locales/it.toml"),
            Locale::De => include_str!("../../templates/locales/de.toml"),
            Locale::Fr => include_str!("../../templates/locales/fr.toml"),
            Locale::Es => include_str!("../../templates/locales/es.toml"),
            Locale::Pt => include_str!("../../templates/locales/pt.toml"),
        }
    }

    /// This locale's parsed strings (empty if the file did not parse, which
    /// the tests rule out; lookups then fall back to English).
    pub fn catalog(self) -> &'static Catalog {
        static CATALOGS: [OnceLock<Catalog>; 6] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        CATALOGS[self.index()].get_or_init(|| Catalog::parse(self.source()).unwrap_or_default())
    }

    /// The text of `key` (`table.key`) in this locale, else in English,
    /// else the empty string: a missing key never panics (the tests make
    /// sure none is missing).
    pub fn text(self, key: &str) -> &'static str {
        self.catalog()
            .get(key)
            .or_else(|| Locale::En.catalog().get(key))
            .unwrap_or("")
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Locale {
    type Err = UnknownLocale;

    fn from_str(s: &str) -> Result<Locale, UnknownLocale> {
        Locale::parse(s)
    }
}

/// A locale code digline does not ship.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLocale {
    given: String,
}

impl fmt::Display for UnknownLocale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown locale '{}'; available: {}",
            self.given,
            LOCALE_CODES.join(", ")
        )
    }
}

impl std::error::Error for UnknownLocale {}

/// One locale's strings: `table.key` → text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalog {
    entries: BTreeMap<String, String>,
}

impl Catalog {
    /// Parses a strings file: tables of string values, nothing else.
    ///
    /// # Errors
    /// A sentence naming what is wrong (bad TOML, a value that is not a
    /// string, a key outside a table).
    pub fn parse(source: &str) -> Result<Catalog, String> {
        let table: toml::Table = source.parse().map_err(|e| format!("{e}"))?;
        let mut entries = BTreeMap::new();
        for (section, body) in table {
            let toml::Value::Table(body) = body else {
                return Err(format!("'{section}' is not a table of strings"));
            };
            for (key, value) in body {
                let toml::Value::String(text) = value else {
                    return Err(format!("'{section}.{key}' is not a string"));
                };
                entries.insert(format!("{section}.{key}"), text);
            }
        }
        Ok(Catalog { entries })
    }

    /// The text of `key` (`table.key`), if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(String::as_str)
    }

    /// Every key, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The entries of one table, keyed without the table prefix.
    pub fn table(&self, name: &str) -> BTreeMap<&str, &str> {
        let prefix = format!("{name}.");
        self.entries
            .iter()
            .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|k| (k, v.as_str())))
            .collect()
    }
}

/// The `{name}` placeholders of a text, sorted and distinct.
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    out.push(name);
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_locale_parses_and_has_the_english_keys_and_placeholders() {
        let english = Catalog::parse(Locale::En.source()).expect("en.toml parses");
        let want: Vec<&str> = english.keys().collect();
        assert!(want.len() > 100, "the English table is complete");
        for locale in Locale::ALL {
            let catalog = Catalog::parse(locale.source())
                .unwrap_or_else(|e| panic!("{locale}.toml does not parse: {e}"));
            let keys: Vec<&str> = catalog.keys().collect();
            let missing: Vec<&&str> = want.iter().filter(|k| !keys.contains(k)).collect();
            let extra: Vec<&&str> = keys.iter().filter(|k| !want.contains(k)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{locale}: missing {missing:?}, not in English {extra:?}"
            );
            for key in &want {
                let ours = catalog.get(key).unwrap_or_default();
                let theirs = english.get(key).unwrap_or_default();
                assert_eq!(
                    placeholders(ours),
                    placeholders(theirs),
                    "{locale}: {key} keeps the English placeholders"
                );
                assert!(!ours.trim().is_empty(), "{locale}: {key} is empty");
                assert_eq!(
                    ours.starts_with(' '),
                    theirs.starts_with(' '),
                    "{locale}: {key} keeps the leading space of a clause that is appended"
                );
            }
        }
    }

    #[test]
    fn translations_are_translated() {
        // Words that are the same in every language are few; a locale that
        // copies English wholesale is caught here.
        let english = Locale::En.catalog();
        for locale in &Locale::ALL[1..] {
            let same = english
                .keys()
                .filter(|k| {
                    let text = english.get(k).unwrap_or_default();
                    let words = text
                        .split_whitespace()
                        .filter(|w| !w.starts_with('{') && w.chars().any(char::is_alphabetic))
                        .count();
                    words > 2 && locale.catalog().get(k) == Some(text)
                })
                .collect::<Vec<_>>();
            assert!(same.is_empty(), "{locale}: still English: {same:?}");
        }
    }

    #[test]
    fn codes_round_trip_and_unknown_ones_are_refused_with_the_list() {
        for locale in Locale::ALL {
            assert_eq!(Locale::parse(locale.code()), Ok(locale));
            assert_eq!(locale.code().parse::<Locale>(), Ok(locale));
        }
        let err = Locale::parse("xx").unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown locale 'xx'; available: en, it, de, fr, es, pt"
        );
        assert!(Locale::parse("EN").is_err());
        assert!(Locale::parse("").is_err());
    }

    #[test]
    fn lookups_fall_back_instead_of_panicking() {
        assert_eq!(Locale::It.text("no.such_key"), "");
        assert_eq!(Locale::It.text("report.answer_yes"), "Sì");
        assert_eq!(Locale::De.text("report.answer_no"), "Nein");
    }

    #[test]
    fn placeholders_are_found() {
        assert_eq!(
            placeholders("{b} then {a}, {b} and {Not} {}"),
            vec!["a", "b"]
        );
    }

    #[test]
    fn strings_files_are_refused_when_malformed() {
        assert!(Catalog::parse("x = 1").is_err());
        assert!(Catalog::parse("[t]\nx = 1").is_err());
        assert!(Catalog::parse("[t").is_err());
        let ok = Catalog::parse("[t]\nx = \"y\"").unwrap();
        assert_eq!(ok.get("t.x"), Some("y"));
        assert_eq!(ok.table("t").get("x"), Some(&"y"));
    }
}
