//! Logging: `tracing` to stderr, its level from `-v`/`-q` or `DIGLINE_LOG`.
//!
//! Default level: warnings only. `-v` info, `-vv` debug, `-vvv` trace; `-q`
//! errors only. `DIGLINE_LOG` (an `EnvFilter` directive such as
//! `digline=debug`) wins over the flags. Nothing logged at info level or
//! below it carries payload (outputs, reasons, vars, metadata), and no
//! level carries a secret (header values, URL userinfo, tokens).

use tracing_subscriber::EnvFilter;

/// The variable that overrides the log filter.
pub const LOG_VARIABLE: &str = "DIGLINE_LOG";

/// Crates whose debug/trace output would carry request bytes (secrets).
const HTTP_CLIENT_CRATES: &[&str] = &["ureq", "ureq_proto", "rustls", "hyper"];

/// The filter for `verbose` repetitions of `-v` and `quiet`.
pub fn level_for(verbose: u8, quiet: bool) -> &'static str {
    match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    }
}

/// Install the stderr subscriber once; later calls do nothing.
pub fn init(verbose: u8, quiet: bool) {
    let mut filter = std::env::var(LOG_VARIABLE)
        .ok()
        .and_then(|spec| EnvFilter::try_new(spec).ok())
        .unwrap_or_else(|| EnvFilter::new(format!("digline={}", level_for(verbose, quiet))));
    // The HTTP client traces raw request bytes (headers with API keys among
    // them) at debug and trace: never let those through, whatever DIGLINE_LOG says.
    for quiet_crate in HTTP_CLIENT_CRATES {
        if let Ok(directive) = format!("{quiet_crate}=info").parse() {
            filter = filter.add_directive(directive);
        }
    }
    // Colour only on a terminal: never escape codes in a file or a pipe.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour(std::io::IsTerminal::is_terminal(&std::io::stderr())))
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}

/// Whether warnings are coloured: only on a terminal, and never when
/// `NO_COLOR` is set (<https://no-color.org>).
fn colour(terminal: bool) -> bool {
    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal() {
        assert!(!colour(false));
    }

    #[test]
    fn flags_choose_the_level() {
        assert_eq!(level_for(0, false), "warn");
        assert_eq!(level_for(1, false), "info");
        assert_eq!(level_for(2, false), "debug");
        assert_eq!(level_for(7, false), "trace");
        assert_eq!(level_for(3, true), "error");
    }
}
