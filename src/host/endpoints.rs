//! Where providers are reached: a suite's `base_url` (both providers), the
//! environment's base URLs, and the judges' own endpoints.
//!
//! Target: the suite's `[target] base_url` if declared (Anthropic and
//! OpenAI alike), else `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the
//! official endpoint. Judges never take the target's `base_url`: they use
//! `DIGLINE_JUDGE_ANTHROPIC_BASE_URL` / `DIGLINE_JUDGE_OPENAI_BASE_URL` if
//! set, else the same environment variables as the target, else the
//! official endpoint — so a target behind a gateway or a local model can
//! be judged by the official API, or the other way round. The judges'
//! variables come from the CI's environment, never from the suite file a
//! pull request can change. Keys always come from `ANTHROPIC_API_KEY` /
//! `OPENAI_API_KEY`.
//!
//! The loader calls [`check_base_url`] for a declared `base_url`; the
//! runner calls [`judge_endpoint`].

use super::suite::errors::{LoadError, LoadErrorKind};
use super::suite::provider::endpoint;
use crate::client::provider::{Endpoint, ProviderKind};

/// A located load error in the suite file.
fn err(kind: LoadErrorKind, at: Option<&str>, key: Option<&str>, sentence: &str) -> LoadError {
    LoadError::new(kind, "suite.toml", at, key, sentence)
}

/// The environment variable pointing `kind`'s judges at another endpoint.
pub fn judge_base_url_variable(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "DIGLINE_JUDGE_ANTHROPIC_BASE_URL",
        ProviderKind::OpenAi => "DIGLINE_JUDGE_OPENAI_BASE_URL",
    }
}

/// Where `kind`'s judges are reached (see the module doc).
pub fn judge_endpoint(kind: ProviderKind, env: &dyn Fn(&str) -> Option<String>) -> Endpoint {
    let own = env(judge_base_url_variable(kind)).filter(|v| !v.trim().is_empty());
    endpoint(kind, own.as_deref(), env)
}

/// A declared `base_url` of `kind` at `at`: an http:// or https:// address
/// with a host and without userinfo (a suite file gets committed).
///
/// # Errors
/// A located [`LoadError`]; the value is never repeated (it may hold a secret).
pub fn check_base_url(at: Option<&str>, url: &str, kind: ProviderKind) -> Result<(), LoadError> {
    let ok = url
        .split_once("://")
        .is_some_and(|(s, _)| s == "http" || s == "https")
        && crate::client::http::endpoint_host(url).is_some();
    if !ok {
        return Err(err(
            LoadErrorKind::Invalid,
            at,
            Some("base_url"),
            "`base_url` has to be an http:// or https:// address with a host (the value is \
             not repeated here)",
        ));
    }
    if url.contains('@') {
        return Err(err(
            LoadErrorKind::Credential,
            at,
            Some("base_url"),
            &format!(
                "`base_url` carries userinfo, a credential, and a suite file gets committed. The \
                 key comes from {}",
                kind.key_variable()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_have_their_own_endpoint() {
        let env = |name: &str| match name {
            "ANTHROPIC_BASE_URL" => Some("http://gateway:4000".to_string()),
            "DIGLINE_JUDGE_ANTHROPIC_BASE_URL" => Some("http://judge:9".to_string()),
            "OPENAI_BASE_URL" => Some("http://local:11434/v1".to_string()),
            "DIGLINE_JUDGE_OPENAI_BASE_URL" => Some(" ".to_string()),
            "ANTHROPIC_API_KEY" => Some("sk-ant-x".to_string()),
            _ => None,
        };
        let e = judge_endpoint(ProviderKind::Anthropic, &env);
        assert_eq!(e.base_url, "http://judge:9");
        assert!(e.key.is_some());
        // an empty judge variable is unset: the provider's variable applies
        let e = judge_endpoint(ProviderKind::OpenAi, &env);
        assert_eq!(e.base_url, "http://local:11434/v1");
        let none = |_: &str| None;
        assert_eq!(
            judge_endpoint(ProviderKind::Anthropic, &none).base_url,
            "https://api.anthropic.com"
        );
    }

    #[test]
    fn base_urls_are_checked() {
        type Row<'a> = (&'a str, ProviderKind, Option<(LoadErrorKind, &'a str)>);
        let rows: &[Row] = &[
            ("http://127.0.0.1:4000", ProviderKind::Anthropic, None),
            ("https://api.anthropic.com", ProviderKind::Anthropic, None),
            (
                "ftp://x",
                ProviderKind::Anthropic,
                Some((
                    LoadErrorKind::Invalid,
                    "suite.toml, [target]: `base_url` has to be an http:// or https:// address with a host (the value is not repeated here)",
                )),
            ),
            (
                "http://u:sk-1@x",
                ProviderKind::Anthropic,
                Some((
                    LoadErrorKind::Credential,
                    "suite.toml, [target]: `base_url` carries userinfo, a credential, and a suite file gets committed. The key comes from ANTHROPIC_API_KEY",
                )),
            ),
            (
                "http://u:sk-1@x/v1",
                ProviderKind::OpenAi,
                Some((
                    LoadErrorKind::Credential,
                    "suite.toml, [target]: `base_url` carries userinfo, a credential, and a suite file gets committed. The key comes from OPENAI_API_KEY",
                )),
            ),
        ];
        for (url, kind, want) in rows {
            let got = check_base_url(Some("[target]"), url, *kind).err();
            match (got, want) {
                (None, None) => {}
                (Some(e), Some((k, m))) => {
                    assert_eq!(e.kind, *k, "{url}");
                    assert_eq!(e.message, *m, "{url}");
                }
                (got, _) => panic!("{url}: {got:?}"),
            }
        }
    }
}
