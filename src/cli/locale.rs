//! The one `--locale` flag: every command that writes for a person
//! (`gate`, `compare`, `report`) parses it into the same
//! [`Locale`] value, with the same list of accepted codes and the same
//! refusal (exit 64) for any other.

use clap::builder::{PossibleValuesParser, TypedValueParser};

use crate::report::locale::{Locale, LOCALE_CODES};

/// The value parser of every `--locale`.
pub fn parser() -> impl TypedValueParser<Value = Locale> {
    PossibleValuesParser::new(LOCALE_CODES).try_map(|code| Locale::parse(&code))
}
