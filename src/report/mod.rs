//! `report`: what people read — the terminal text of `compare`, and the
//! localized HTML report.
//!
//! Pure renderers: no I/O, no clock. May import `store` and `core` only.
//! Every sentence comes from the strings files in `templates/locales/`
//! ([`locale`]); the HTML comes from the templates in `templates/`.

pub mod cause;
pub mod cost;
pub mod coverage;
pub mod diff;
pub mod escape;
pub mod gate;
pub mod history;
pub mod html;
pub mod judges;
pub mod locale;
pub mod noise;
pub mod order;
pub mod progress;
pub mod redact;
pub mod text;
