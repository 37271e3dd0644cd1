//! What a model call costs: dated price tables per provider, and the cost
//! of one call from the token usage the provider reported.
//!
//! Prices are USD per million tokens (`*_per_mtok`). A model is looked up
//! by its exact name, then with a trailing date (`-20251001`,
//! `-2024-08-06`) or `-latest` removed, so a pinned snapshot is priced as
//! its family. A model that is not in the table has no price: the preflight
//! refuses the run unless the suite declares one in `[target.pricing]`.
//! A cached tier the table does not know (`None`) is never priced at zero:
//! a call that reports such tokens has no cost, and says so.
//!
//! Cost = (input · in + output · out + cache_read · cr + cache_write · cw) / 1e6.
//! `input_tokens` are the uncached input tokens: OpenAI's `prompt_tokens`
//! include the cached ones, which the OpenAI client subtracts before
//! pricing; Anthropic reports cache reads and writes outside `input_tokens`.

/// The token counts of one call, as the provider reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Uncached input tokens, billed at the input rate.
    pub input_tokens: u64,
    /// Output tokens (reasoning/thinking tokens included).
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the provider's prompt cache.
    pub cache_write_tokens: u64,
}

impl Usage {
    /// The sum of two usages (counters add up across calls).
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cache_read_tokens: self
                .cache_read_tokens
                .saturating_add(other.cache_read_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_add(other.cache_write_tokens),
        }
    }
}

/// One model's rates, USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// Uncached input.
    pub input_per_mtok: f64,
    /// Output.
    pub output_per_mtok: f64,
    /// Cache reads; `None` = the tier is unknown (never zero by default).
    pub cache_read_per_mtok: Option<f64>,
    /// Cache writes; `None` = the tier is unknown.
    pub cache_write_per_mtok: Option<f64>,
}

impl Price {
    const fn new(
        input: f64,
        output: f64,
        cache_read: Option<f64>,
        cache_write: Option<f64>,
    ) -> Price {
        Price {
            input_per_mtok: input,
            output_per_mtok: output,
            cache_read_per_mtok: cache_read,
            cache_write_per_mtok: cache_write,
        }
    }

    /// The cost of `usage` at these rates, in USD.
    ///
    /// # Errors
    /// Cached or cache-written tokens reported for a tier with no rate.
    pub fn cost(&self, model: &str, usage: Usage) -> Result<f64, String> {
        let tier = |tokens: u64, rate: Option<f64>, what: &str| -> Result<f64, String> {
            match (tokens, rate) {
                (0, _) => Ok(0.0),
                (n, Some(rate)) => Ok(n as f64 * rate),
                (n, None) => Err(format!(
                    "the call reported {n} {what} tokens, and model '{model}' has no {what} \
                     price: the cost is unknown rather than zero"
                )),
            }
        };
        let total = usage.input_tokens as f64 * self.input_per_mtok
            + usage.output_tokens as f64 * self.output_per_mtok
            + tier(
                usage.cache_read_tokens,
                self.cache_read_per_mtok,
                "cached-read",
            )?
            + tier(
                usage.cache_write_tokens,
                self.cache_write_per_mtok,
                "cache-write",
            )?;
        Ok(total / 1e6)
    }
}

/// A provider's shipped price list and the day it was read.
#[derive(Clone, Copy, Debug)]
pub struct PriceTable {
    /// The provider (`anthropic`, `openai`).
    pub provider: &'static str,
    /// When the prices were read from the provider's published list (ISO date).
    pub read_on: &'static str,
    /// Model name → price, sorted by name.
    pub models: &'static [(&'static str, Price)],
}

/// Anthropic's list prices (standard tier; cache writes at the 5-minute rate).
pub const ANTHROPIC: PriceTable = PriceTable {
    provider: "anthropic",
    read_on: "2025-11-24",
    models: &[
        (
            "claude-3-5-haiku",
            Price::new(0.80, 4.0, Some(0.08), Some(1.0)),
        ),
        (
            "claude-3-7-sonnet",
            Price::new(3.0, 15.0, Some(0.30), Some(3.75)),
        ),
        (
            "claude-3-haiku",
            Price::new(0.25, 1.25, Some(0.03), Some(0.30)),
        ),
        (
            "claude-haiku-4-5",
            Price::new(1.0, 5.0, Some(0.10), Some(1.25)),
        ),
        (
            "claude-opus-4",
            Price::new(15.0, 75.0, Some(1.50), Some(18.75)),
        ),
        (
            "claude-opus-4-1",
            Price::new(15.0, 75.0, Some(1.50), Some(18.75)),
        ),
        (
            "claude-opus-4-5",
            Price::new(5.0, 25.0, Some(0.50), Some(6.25)),
        ),
        (
            "claude-sonnet-4",
            Price::new(3.0, 15.0, Some(0.30), Some(3.75)),
        ),
        (
            "claude-sonnet-4-5",
            Price::new(3.0, 15.0, Some(0.30), Some(3.75)),
        ),
    ],
};

/// OpenAI's list prices (standard tier; OpenAI bills no cache writes, so
/// that tier is unknown).
pub const OPENAI: PriceTable = PriceTable {
    provider: "openai",
    read_on: "2025-08-07",
    models: &[
        ("gpt-4.1", Price::new(2.0, 8.0, Some(0.50), None)),
        ("gpt-4.1-mini", Price::new(0.40, 1.60, Some(0.10), None)),
        ("gpt-4.1-nano", Price::new(0.10, 0.40, Some(0.025), None)),
        ("gpt-4o", Price::new(2.50, 10.0, Some(1.25), None)),
        ("gpt-4o-mini", Price::new(0.15, 0.60, Some(0.075), None)),
        ("gpt-5", Price::new(1.25, 10.0, Some(0.125), None)),
        ("gpt-5-mini", Price::new(0.25, 2.0, Some(0.025), None)),
        ("gpt-5-nano", Price::new(0.05, 0.40, Some(0.005), None)),
        ("o3", Price::new(2.0, 8.0, Some(0.50), None)),
        ("o3-mini", Price::new(1.10, 4.40, Some(0.55), None)),
        ("o4-mini", Price::new(1.10, 4.40, Some(0.275), None)),
    ],
};

/// The shipped table of a provider, if digline ships one.
pub fn table(provider: &str) -> Option<&'static PriceTable> {
    match provider {
        "anthropic" => Some(&ANTHROPIC),
        "openai" => Some(&OPENAI),
        _ => None,
    }
}

/// `model` without a trailing release date or `-latest`.
fn family(model: &str) -> &str {
    if let Some(stem) = model.strip_suffix("-latest") {
        return stem;
    }
    // -YYYYMMDD
    if let Some((stem, tail)) = model.rsplit_once('-') {
        if tail.len() == 8 && tail.bytes().all(|b| b.is_ascii_digit()) {
            return stem;
        }
    }
    // -YYYY-MM-DD
    if model.len() > 11 {
        let (stem, tail) = model.split_at(model.len() - 11);
        let b = tail.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if b[0] == b'-'
            && b[5] == b'-'
            && b[8] == b'-'
            && digits(1..5)
            && digits(6..8)
            && digits(9..11)
        {
            return stem;
        }
    }
    model
}

impl PriceTable {
    /// The price of `model`: exact name, then its family (date removed).
    pub fn lookup(&self, model: &str) -> Option<Price> {
        let find = |name: &str| {
            self.models
                .iter()
                .find(|(m, _)| *m == name)
                .map(|(_, p)| *p)
        };
        find(model).or_else(|| find(family(model)))
    }

    /// The model names this table prices, sorted.
    pub fn known(&self) -> Vec<&'static str> {
        let mut names: Vec<&str> = self.models.iter().map(|(m, _)| *m).collect();
        names.sort_unstable();
        names
    }
}

/// The price of `provider/model`: `declared` when the suite gives one,
/// else the shipped table's.
pub fn price_of(provider: &str, model: &str, declared: Option<Price>) -> Option<Price> {
    declared.or_else(|| table(provider).and_then(|t| t.lookup(model)))
}

/// The preflight problem for an unpriced model: names the model, the known
/// ones and the way out.
pub fn unpriced(provider: &str, model: &str) -> String {
    let known = table(provider).map(PriceTable::known).unwrap_or_default();
    let known = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    format!(
        "model '{model}' has no price (known to {provider}: {known}); declare it in \
         [target.pricing] with input_per_mtok and output_per_mtok (USD per million tokens)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_by_name_and_family() {
        let rows: &[(&str, &str, Option<f64>)] = &[
            ("anthropic", "claude-haiku-4-5", Some(1.0)),
            ("anthropic", "claude-haiku-4-5-20251001", Some(1.0)),
            ("anthropic", "claude-3-5-haiku-latest", Some(0.8)),
            ("anthropic", "claude-unknown", None),
            ("openai", "gpt-4o-2024-08-06", Some(2.5)),
            ("openai", "gpt-4o-mini", Some(0.15)),
            ("openai", "llama3", None),
            ("bedrock", "x", None),
            ("openai", "-2024-08-06", None),
        ];
        for (provider, model, want) in rows {
            let got = price_of(provider, model, None).map(|p| p.input_per_mtok);
            assert_eq!(got, *want, "{provider}/{model}");
        }
        let declared = Price::new(9.0, 9.0, None, None);
        assert_eq!(price_of("openai", "llama3", Some(declared)), Some(declared));
        assert_eq!(price_of("openai", "gpt-4o", Some(declared)), Some(declared));
    }

    #[test]
    fn tables_are_sorted_and_sane() {
        for t in [&ANTHROPIC, &OPENAI] {
            let names: Vec<&str> = t.models.iter().map(|(m, _)| *m).collect();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            assert_eq!(names, sorted, "{}", t.provider);
            for (_, p) in t.models {
                assert!(p.input_per_mtok > 0.0 && p.output_per_mtok >= p.input_per_mtok);
            }
        }
    }

    #[test]
    fn costs() {
        let haiku = ANTHROPIC.lookup("claude-haiku-4-5").unwrap();
        let usage = Usage {
            input_tokens: 1000,
            output_tokens: 200,
            cache_read_tokens: 500,
            cache_write_tokens: 100,
        };
        let got = haiku.cost("claude-haiku-4-5", usage).unwrap();
        let want = (1000.0 * 1.0 + 200.0 * 5.0 + 500.0 * 0.10 + 100.0 * 1.25) / 1e6;
        assert!((got - want).abs() < 1e-15, "{got} {want}");
        let mini = OPENAI.lookup("gpt-4o-mini").unwrap();
        let err = mini.cost("gpt-4o-mini", usage).unwrap_err();
        assert!(err.contains("100 cache-write tokens"), "{err}");
        let plain = Usage {
            input_tokens: 10,
            output_tokens: 5,
            ..Usage::default()
        };
        assert_eq!(
            mini.cost("gpt-4o-mini", plain).unwrap(),
            (10.0 * 0.15 + 5.0 * 0.6) / 1e6
        );
    }

    #[test]
    fn unpriced_names_the_way_out() {
        let s = unpriced("openai", "llama3");
        assert!(
            s.starts_with("model 'llama3' has no price (known to openai: gpt-4.1,"),
            "{s}"
        );
        assert!(s.contains("[target.pricing]"));
        assert!(unpriced("bedrock", "m").contains("known to bedrock: none"));
    }
}
