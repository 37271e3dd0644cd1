//! What a model call costs: dated price tables per provider, and the cost
//! of one call from the token usage the provider reported.
//!
//! The tables are data: `prices.toml` next to this file, compiled in, with
//! the day they were read and the pages they were read from (see its
//! header for how to update it). Prices are USD per million tokens
//! (`*_per_mtok`). Anthropic's 1-hour cache writes have their own rate
//! (2 × input, against 1.25 × for 5-minute writes). A model is looked up
//! by its exact name, then with a trailing date (`-20251001`,
//! `-2024-08-06`) or `-latest` removed, so a pinned snapshot is priced as
//! its family. A model that is not in the table has no price: the preflight
//! refuses the run unless the suite declares one in `[target.pricing]`.
//! A cached tier the table does not know (`None`) is never priced at zero:
//! a call that reports such tokens has no cost, and says so.
//!
//! Cost = (input · in + output · out + cache_read · cr + cache_write · cw +
//! cache_write_1h · cw1h) / 1e6.
//!
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
    /// Input tokens written to the provider's prompt cache for 5 minutes
    /// (Anthropic's default; every write when the provider does not say).
    pub cache_write_tokens: u64,
    /// Input tokens written to the provider's prompt cache for 1 hour
    /// (Anthropic's `cache_creation.ephemeral_1h_input_tokens`).
    pub cache_write_1h_tokens: u64,
}

impl Usage {
    /// (input, output) tokens as a run records them: the input counts
    /// cache reads and 5-minute cache writes with the uncached tokens.
    pub fn recorded(&self) -> (u64, u64) {
        (
            self.input_tokens
                .saturating_add(self.cache_read_tokens)
                .saturating_add(self.cache_write_tokens),
            self.output_tokens,
        )
    }

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
            cache_write_1h_tokens: self
                .cache_write_1h_tokens
                .saturating_add(other.cache_write_1h_tokens),
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
    /// Cache writes (5-minute ones at Anthropic); `None` = the tier is unknown.
    pub cache_write_per_mtok: Option<f64>,
    /// 1-hour cache writes; `None` = the tier is unknown.
    pub cache_write_1h_per_mtok: Option<f64>,
}

impl Price {
    #[cfg(test)]
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
            cache_write_1h_per_mtok: None,
        }
    }

    /// The most one call can cost at these rates, in USD: `input_bytes`
    /// each counted as a token (no tokenizer makes more tokens than bytes)
    /// at the dearest input rate (cache writes included), plus
    /// `max_tokens` at the output rate. What `--max-usd` reserves.
    pub fn worst_case(&self, input_bytes: usize, max_tokens: u64) -> f64 {
        let input_rate = [self.cache_write_per_mtok, self.cache_write_1h_per_mtok]
            .into_iter()
            .flatten()
            .fold(self.input_per_mtok, f64::max);
        // A chat request carries a few tokens of framing beyond its texts.
        let input = input_bytes as f64 + 64.0;
        (input * input_rate + max_tokens as f64 * self.output_per_mtok) / 1e6
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
            )?
            + tier(
                usage.cache_write_1h_tokens,
                self.cache_write_1h_per_mtok,
                "1-hour cache-write",
            )?;
        Ok(total / 1e6)
    }
}

/// A provider's shipped price list and the day it was read.
#[derive(Clone, Debug)]
pub struct PriceTable {
    /// The provider (`anthropic`, `openai`).
    pub provider: String,
    /// When the prices were read from the provider's published list (ISO date).
    pub read_on: String,
    /// The pages they were read from.
    pub sources: Vec<String>,
    /// Model name → price, sorted by name.
    pub models: Vec<(String, Price)>,
}

/// The shipped price data (see the module doc).
const PRICES: &str = include_str!("prices.toml");

/// One row of `prices.toml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    input: f64,
    output: f64,
    cache_read: Option<f64>,
    cache_write_5m: Option<f64>,
    cache_write_1h: Option<f64>,
}

/// One provider of `prices.toml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Listed {
    read_on: String,
    sources: Vec<String>,
    models: std::collections::BTreeMap<String, Row>,
}

/// Read price data (`prices.toml`'s shape).
///
/// # Errors
/// The TOML reader's sentence.
fn parse_tables(text: &str) -> Result<Vec<PriceTable>, String> {
    let listed: std::collections::BTreeMap<String, Listed> =
        toml::from_str(text).map_err(|e| e.to_string())?;
    Ok(listed
        .into_iter()
        .map(|(provider, l)| PriceTable {
            provider,
            read_on: l.read_on,
            sources: l.sources,
            models: l
                .models
                .into_iter()
                .map(|(name, r)| {
                    let price = Price {
                        input_per_mtok: r.input,
                        output_per_mtok: r.output,
                        cache_read_per_mtok: r.cache_read,
                        cache_write_per_mtok: r.cache_write_5m,
                        cache_write_1h_per_mtok: r.cache_write_1h,
                    };
                    (name, price)
                })
                .collect(),
        })
        .collect())
}

/// Every shipped table (read once; the data is tested at build time).
pub fn tables() -> &'static [PriceTable] {
    static TABLES: std::sync::OnceLock<Vec<PriceTable>> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| parse_tables(PRICES).unwrap_or_default())
}

/// The shipped table of a provider, if digline ships one.
pub fn table(provider: &str) -> Option<&'static PriceTable> {
    tables().iter().find(|t| t.provider == provider)
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
        let find = |name: &str| self.models.iter().find(|(m, _)| m == name).map(|(_, p)| *p);
        find(model).or_else(|| find(family(model)))
    }

    /// The model names this table prices, sorted.
    pub fn known(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.models.iter().map(|(m, _)| m.as_str()).collect();
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
    let known = table(provider).map(|t| t.known()).unwrap_or_default();
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
    fn a_run_records_cached_input_with_the_input() {
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 7,
            cache_read_tokens: 100,
            cache_write_tokens: 1000,
            cache_write_1h_tokens: 5,
        };
        assert_eq!(usage.recorded(), (1110, 7));
    }

    #[test]
    fn the_worst_case_bounds_every_usage_the_request_can_have() {
        let price = Price::new(1.0, 4.0, Some(0.1), Some(1.25));
        // 1,000 bytes + 64 framing at the dearest input rate (1.25), 400 out at 4.
        let worst = price.worst_case(1000, 400);
        assert!((worst - (1064.0 * 1.25 + 400.0 * 4.0) / 1e6).abs() < 1e-15);
        let real = Usage {
            input_tokens: 300,
            output_tokens: 400,
            ..Usage::default()
        };
        assert!(price.cost("m", real).unwrap() <= worst);
    }

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
    fn the_shipped_data_reads_and_is_sane() {
        let tables = parse_tables(PRICES).unwrap();
        let names: Vec<&str> = tables.iter().map(|t| t.provider.as_str()).collect();
        assert_eq!(names, ["anthropic", "openai"]);
        for t in &tables {
            assert_eq!(t.read_on.len(), 10, "{}: an ISO date", t.provider);
            assert!(
                t.sources.iter().all(|s| s.starts_with("https://")),
                "{}: sources",
                t.provider
            );
            for (name, p) in &t.models {
                assert!(
                    p.input_per_mtok > 0.0 && p.output_per_mtok >= p.input_per_mtok,
                    "{name}"
                );
                if let Some(read) = p.cache_read_per_mtok {
                    assert!(read < p.input_per_mtok, "{name}: a cache hit costs less");
                }
            }
        }
        // Anthropic: every model has both cache-write rates, the 1-hour one
        // at 2 x input, the 5-minute one between input and that (1.25 x,
        // Claude Haiku 3's $0.30 aside).
        for (name, p) in &table("anthropic").unwrap().models {
            let (w5, w1h) = (
                p.cache_write_per_mtok.unwrap(),
                p.cache_write_1h_per_mtok.unwrap(),
            );
            assert!(p.input_per_mtok < w5 && w5 < w1h, "{name}");
            assert!((w1h - 2.0 * p.input_per_mtok).abs() < 1e-9, "{name}");
        }
        // OpenAI bills no cache writes: unknown, never zero.
        for (name, p) in &table("openai").unwrap().models {
            assert_eq!(p.cache_write_per_mtok, None, "{name}");
        }
        assert!(parse_tables("[x]\nread_on = \"d\"\nsources = []\n[x.models.m]\ninput = 1\noutput = 1\ncache_hit = 1\n").is_err());
    }

    /// Current models are priced (0.11.0 could not price these).
    #[test]
    fn current_models_are_priced() {
        let rows: &[(&str, &str, f64, f64)] = &[
            ("anthropic", "claude-opus-4-6", 5.0, 25.0),
            ("anthropic", "claude-sonnet-4-6", 3.0, 15.0),
            ("openai", "gpt-5.5", 5.0, 30.0),
            ("openai", "gpt-5.4", 2.5, 15.0),
            ("openai", "gpt-5.4-mini", 0.75, 4.5),
            ("openai", "gpt-5.4-nano-2026-03-17", 0.2, 1.25),
        ];
        for (provider, model, input, output) in rows {
            let p = price_of(provider, model, None).unwrap();
            assert_eq!(
                (p.input_per_mtok, p.output_per_mtok),
                (*input, *output),
                "{model}"
            );
        }
    }

    /// A 1-hour cache write is priced at its own rate (0.11.0 priced it at
    /// the 5-minute rate).
    #[test]
    fn one_hour_cache_writes_have_their_own_rate() {
        let sonnet = price_of("anthropic", "claude-sonnet-4-5", None).unwrap();
        let usage = Usage {
            cache_write_tokens: 1_000_000,
            cache_write_1h_tokens: 1_000_000,
            ..Usage::default()
        };
        assert_eq!(sonnet.cost("claude-sonnet-4-5", usage).unwrap(), 3.75 + 6.0);
        let declared = Price::new(1.0, 1.0, None, Some(1.25));
        let err = declared
            .cost(
                "m",
                Usage {
                    cache_write_1h_tokens: 7,
                    ..Usage::default()
                },
            )
            .unwrap_err();
        assert_eq!(
            err,
            "the call reported 7 1-hour cache-write tokens, and model 'm' has no 1-hour cache-write price: the cost is unknown rather than zero"
        );
    }

    #[test]
    fn costs() {
        let haiku = table("anthropic")
            .unwrap()
            .lookup("claude-haiku-4-5")
            .unwrap();
        let usage = Usage {
            input_tokens: 1000,
            output_tokens: 200,
            cache_read_tokens: 500,
            cache_write_tokens: 100,
            cache_write_1h_tokens: 0,
        };
        let got = haiku.cost("claude-haiku-4-5", usage).unwrap();
        let want = (1000.0 * 1.0 + 200.0 * 5.0 + 500.0 * 0.10 + 100.0 * 1.25) / 1e6;
        assert!((got - want).abs() < 1e-15, "{got} {want}");
        let mini = table("openai").unwrap().lookup("gpt-4o-mini").unwrap();
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
