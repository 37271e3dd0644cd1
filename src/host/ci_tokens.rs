//! The CI's own tokens are not a suite's to send.
//!
//! A `${NAME}` in `[target.headers]` is read from the environment and sent
//! to the URL the suite names. The suite comes from the pull request being
//! judged, and a plain CI step has the CI's own tokens in its environment,
//! so a `${GITHUB_TOKEN}` would let a pull request send that token
//! anywhere. These names are refused at load ([`refused`]) unless the
//! suite allows the name in `[target] allow_ci_tokens = ["NAME", …]`
//! (a change a reviewer sees in the diff):
//!
//! - `GITHUB_TOKEN`, `GH_TOKEN`, `GITLAB_TOKEN`, `DIGLINE_GITLAB_TOKEN`,
//!   `CI_JOB_TOKEN`, `CI_JOB_JWT` (and every other exact name in
//!   [`CI_TOKENS`]);
//! - every name starting with `ACTIONS_` (the runner's own, such as
//!   `ACTIONS_RUNTIME_TOKEN` and `ACTIONS_ID_TOKEN_REQUEST_TOKEN`);
//! - every name starting with `GITHUB_`, `GH_`, `GITLAB_` or `CI_` that
//!   holds `TOKEN`, `JWT` or `PASSWORD`.

/// The CI's tokens named exactly.
pub const CI_TOKENS: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "DIGLINE_GITLAB_TOKEN",
    "CI_JOB_TOKEN",
    "CI_JOB_JWT",
    "CI_JOB_JWT_V1",
    "CI_JOB_JWT_V2",
    "CI_REGISTRY_PASSWORD",
    "CI_DEPLOY_PASSWORD",
];

/// The `[target]` key that allows some of them by name.
pub const ALLOW_KEY: &str = "allow_ci_tokens";

/// Is `name` one of the CI's own tokens?
pub fn is_ci_token(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if CI_TOKENS.contains(&upper.as_str()) || upper.starts_with("ACTIONS_") {
        return true;
    }
    ["GITHUB_", "GH_", "GITLAB_", "CI_"]
        .iter()
        .any(|prefix| upper.starts_with(prefix))
        && ["TOKEN", "JWT", "PASSWORD"]
            .iter()
            .any(|word| upper.contains(word))
}

/// The refusal for header `header` taking `${var}`, when `var` is a CI
/// token the suite does not allow; `None` otherwise.
pub fn refused(header: &str, var: &str, allowed: &[String]) -> Option<String> {
    if !is_ci_token(var) || allowed.iter().any(|a| a == var) {
        return None;
    }
    Some(format!(
        "`{header}` takes ${{{var}}}, one of the CI's own tokens, and a suite changed in a pull \
         request could send it to any URL it names, so digline does not read it. Send the \
         target a credential of its own; if it really needs this one, allow the name with \
         {ALLOW_KEY} = [\"{var}\"] in [target]. Nothing was sent"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ci_tokens_and_nothing_else() {
        for name in [
            "GITHUB_TOKEN",
            "ACTIONS_RUNTIME_TOKEN",
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "CI_JOB_TOKEN",
            "GITLAB_TOKEN",
            "DIGLINE_GITLAB_TOKEN",
            "GH_TOKEN",
            "GITHUB_APP_TOKEN",
            "CI_REGISTRY_PASSWORD",
        ] {
            assert!(is_ci_token(name), "{name}");
        }
        for name in [
            "SUPPORT_TOKEN",
            "UI_LANG",
            "OPENAI_API_KEY",
            "CI",
            "GITHUB_SHA",
            "MY_GITHUB_TOKEN",
        ] {
            assert!(!is_ci_token(name), "{name}");
        }
        assert!(refused("X", "GITHUB_TOKEN", &["GITHUB_TOKEN".into()]).is_none());
        assert!(refused("X", "SUPPORT_TOKEN", &[]).is_none());
        assert_eq!(
            refused("Authorization", "GITHUB_TOKEN", &[]).unwrap(),
            "`Authorization` takes ${GITHUB_TOKEN}, one of the CI's own tokens, and a suite \
             changed in a pull request could send it to any URL it names, so digline does not \
             read it. Send the target a credential of its own; if it really needs this one, \
             allow the name with allow_ci_tokens = [\"GITHUB_TOKEN\"] in [target]. Nothing was \
             sent"
        );
    }
}
