//! `--help` on every command carries an example; `digline completions` and
//! `digline manpage` print scripts and pages generated from the same clap
//! definitions, so they name every command and flag the binary takes.

use crate::util::digline;

/// The commands, as `digline --help` lists them (`help` aside).
pub fn commands() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let help = digline(dir.path(), &["--help"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    let listed: Vec<String> = help
        .stdout
        .split("Commands:")
        .nth(1)
        .expect("a Commands: section")
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        // A command's line is indented by two; its wrapped description by more.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|name| name != "help")
        .collect();
    assert!(listed.len() >= 13, "{listed:?}");
    listed
}

/// The long flags a command's `--help` shows (`--suite`, `--run`, …).
fn long_flags(help: &str) -> Vec<String> {
    let mut flags: Vec<String> = help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches([',', '.', ')', ':'])
                .split(['=', '['])
                .next()
                .unwrap()
                .to_string()
        })
        .filter(|w| w[2..].chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

#[test]
fn every_command_has_help_with_an_example_and_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let top = digline(dir.path(), &["--help"]);
    assert!(top.stdout.contains("Example"), "{}", top.stdout);
    assert!(top.stdout.contains("64 refused"), "{}", top.stdout);
    for command in commands() {
        let help = digline(dir.path(), &[&command, "--help"]);
        assert_eq!(help.code, 0, "{command}: {}", help.stderr);
        assert!(
            help.stdout.contains("\nExample"),
            "`digline {command} --help` shows no example:\n{}",
            help.stdout
        );
        assert!(
            help.stdout.contains(&format!("digline {command}")),
            "the example of `{command}` does not use it:\n{}",
            help.stdout
        );
    }
}

#[test]
fn completions_name_every_command_for_each_shell() {
    let dir = tempfile::tempdir().unwrap();
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = digline(dir.path(), &["completions", shell]);
        assert_eq!(script.code, 0, "{shell}: {}", script.stderr);
        assert_eq!(script.stderr, "", "{shell}");
        for command in &commands {
            assert!(
                script.stdout.contains(command.as_str()),
                "the {shell} completions do not know `{command}`"
            );
        }
        assert!(script.stdout.contains("suite"), "{shell}");
    }
    let bash = digline(dir.path(), &["completions", "bash"]);
    assert!(
        bash.stdout.contains("complete -F _digline"),
        "{}",
        bash.stdout
    );
    let refused = digline(dir.path(), &["completions", "tcsh"]);
    assert_eq!(refused.code, 64, "{}", refused.stderr);
    assert!(refused.stderr.contains("tcsh"), "{}", refused.stderr);
}

#[test]
fn the_man_pages_carry_every_command_and_flag_of_help() {
    let dir = tempfile::tempdir().unwrap();
    let page = digline(dir.path(), &["manpage"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert!(page.stdout.starts_with(".ie"), "{}", &page.stdout[..200]);
    assert!(
        page.stdout.contains(".TH digline 1"),
        "{}",
        &page.stdout[..400]
    );
    assert!(page.stdout.contains(".SH NAME"));
    assert!(page.stdout.contains("regression gate for LLM applications"));
    for command in commands() {
        assert!(
            page.stdout.contains(&format!("digline\\-{command}")),
            "digline(1) does not list `{command}`"
        );
        let own = digline(dir.path(), &["manpage", &command]);
        assert_eq!(own.code, 0, "{command}: {}", own.stderr);
        assert!(
            own.stdout.contains(&format!(".TH digline-{command} 1")),
            "{command}: {}",
            &own.stdout[..300.min(own.stdout.len())]
        );
        let help = digline(dir.path(), &[&command, "--help"]).stdout;
        for flag in long_flags(&help) {
            let roff = flag.replace('-', "\\-");
            assert!(
                own.stdout.contains(&roff),
                "digline-{command}(1) lacks {flag}, which --help shows"
            );
        }
        assert!(own.stdout.contains("Example"), "{command}");
    }
    let refused = digline(dir.path(), &["manpage", "promot"]);
    assert_eq!(refused.code, 64);
    assert!(
        refused
            .stderr
            .contains("there is no command called `promot`")
            && refused.stderr.contains("promote"),
        "{}",
        refused.stderr
    );
}
