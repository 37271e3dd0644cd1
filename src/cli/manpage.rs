//! `digline manpage [COMMAND]`: print the man page in roff, generated at run
//! time from the clap definitions in [`super::Cli`] with `clap_mangen` — the
//! page is the `--help` text, so it stays in step with the binary by
//! construction. `digline(1)` by default; `digline manpage gate` prints
//! `digline-gate(1)`. Exit 0; an unknown command is refused (64).

use clap::{Args, CommandFactory};

use super::{output, Cli, CliError, ExitStatus};

/// Flags of `digline manpage`.
#[derive(Debug, Args)]
pub struct ManpageArgs {
    /// A command's own page (e.g. `gate`, printed as digline-gate(1)); default: digline(1).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Execute `digline manpage`: the roff page on stdout.
///
/// # Errors
/// A [`CliError`] (exit 64) for an unknown command or an unwritable stdout.
pub fn execute(args: ManpageArgs) -> Result<ExitStatus, CliError> {
    let mut root = Cli::command();
    // Built, so each command carries the global flags (-v, -q) as --help shows them.
    root.build();
    let page = match args.command.as_deref() {
        None => root,
        Some(name) => {
            let known: Vec<String> = root
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let Some(sub) = root.find_subcommand(name).cloned() else {
                return Err(CliError::usage(
                    format!("there is no command called `{name}`"),
                    Some(format!("one of: {}", known.join(", "))),
                ));
            };
            // The page's title and synopsis name the full command.
            let version = root.get_version().unwrap_or_default().to_string();
            sub.name(format!("digline-{name}"))
                .bin_name(format!("digline {name}"))
                .version(version)
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|e| CliError::Refused(format!("the man page was not rendered: {e}")))?;
    output::out_bytes(&roff)?;
    Ok(ExitStatus::Proceed)
}
