//! `digline completions SHELL`: print the shell completion script, generated
//! from the clap definitions in [`super::Cli`] (so it never drifts from the
//! flags the binary takes). Exit 0; an unknown shell is a usage refusal (64).

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{output, Cli, CliError, ExitStatus};

/// Flags of `digline completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Execute `digline completions`: the script on stdout.
///
/// # Errors
/// A [`CliError`] (exit 64) when stdout cannot be written (a closed
/// reader is not an error: [`output`]).
pub fn execute(args: CompletionsArgs) -> Result<ExitStatus, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "digline", &mut script);
    output::out_bytes(&script)?;
    Ok(ExitStatus::Proceed)
}
