//! Credentials go only where the CI allows.
//!
//! The suite file comes from the pull request being judged, so the address
//! it names (`[target] base_url` of a provider, `url` of an HTTP target) is
//! the pull request's to choose. When digline runs in CI ([`in_ci`]: `CI`
//! true-ish, `GITHUB_ACTIONS` or `GITLAB_CI`), a value taken from the
//! environment — a provider's key, any `${NAME}` of `[target.headers]` — is
//! sent only to a host the CI job allows ([`check`]):
//!
//! - loopback: `localhost`, `127.0.0.0/8`, `::1`;
//! - the provider's official host (`api.openai.com`, `api.anthropic.com`,
//!   HTTPS on 443), for that provider's key only;
//! - the host and port of an endpoint the operator set in the environment:
//!   `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`,
//!   `DIGLINE_JUDGE_OPENAI_BASE_URL`, `DIGLINE_JUDGE_ANTHROPIC_BASE_URL`;
//! - every entry of `DIGLINE_ALLOW_HOSTS` (comma-separated `host` — any
//!   port — or `host:port`, `[::1]:8080` for an IPv6 literal), which is set
//!   in the CI job and never read from a file a pull request can change.
//!
//! Anything else is refused before any call (exit 64) with one sentence
//! naming the variable, the host:port and the fix. No credential, no
//! refusal; outside CI nothing is checked. The runner calls [`check`] where
//! the target's and the judges' endpoints and secrets are resolved.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::client::provider::ProviderKind;

/// The environment variable listing the hosts a CI job allows.
pub const ALLOW_VARIABLE: &str = "DIGLINE_ALLOW_HOSTS";

/// The endpoint variables an operator sets in the CI job.
const ENDPOINT_VARIABLES: &[&str] = &[
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "DIGLINE_JUDGE_OPENAI_BASE_URL",
    "DIGLINE_JUDGE_ANTHROPIC_BASE_URL",
];

/// Does `value` mean "yes"? Set, not empty, and not `false`, `0`, `no` or `off`.
fn truthy(value: Option<String>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim().to_ascii_lowercase();
        !v.is_empty() && !["false", "0", "no", "off"].contains(&v.as_str())
    })
}

/// Is digline running in CI? `CI`, `GITHUB_ACTIONS` or `GITLAB_CI` true-ish.
pub fn in_ci(env: &dyn Fn(&str) -> Option<String>) -> bool {
    ["CI", "GITHUB_ACTIONS", "GITLAB_CI"]
        .iter()
        .any(|name| truthy(env(name)))
}

/// A host and, when it matters, a port.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    /// Lower-cased, an IPv6 literal without brackets.
    host: String,
    /// `None`: any port.
    port: Option<u16>,
}

impl Place {
    fn admits(&self, host: &str, port: u16) -> bool {
        self.host == host && self.port.is_none_or(|p| p == port)
    }
}

/// `host:port` as a person writes it (`[::1]:8080` for IPv6).
fn spoken(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Split `host[:port]` (`[v6]` or `[v6]:port` for IPv6); `None` when it is
/// not one.
fn host_port(authority: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if let Some(after) = authority.strip_prefix('[') {
        let (inside, tail) = after.split_once(']')?;
        inside.parse::<Ipv6Addr>().ok()?;
        match tail {
            "" => (inside, None),
            _ => (inside, Some(tail.strip_prefix(':')?)),
        }
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let host = host.to_ascii_lowercase();
    let ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_:".contains(c));
    if !ok {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) => Some(p.parse::<u16>().ok().filter(|p| *p != 0)?),
    };
    Some((host, port))
}

/// The host and the port a URL reaches (the scheme's port when none is
/// written); `None` when it names no host.
fn reached(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = host_port(authority)?;
    Some((host, port.unwrap_or(default)))
}

/// Is `host` a loopback name or address?
fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
        || host.parse::<Ipv6Addr>().is_ok_and(|ip| {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        })
}

/// The entries of `DIGLINE_ALLOW_HOSTS`.
///
/// # Errors
/// A sentence naming the entry that is no `host` or `host:port`.
fn listed(value: &str) -> Result<Vec<Place>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            host_port(entry)
                .filter(|(host, _)| !host.contains(':') || entry.starts_with('['))
                .map(|(host, port)| Place { host, port })
                .ok_or_else(|| {
                    format!(
                        "{ALLOW_VARIABLE} holds '{entry}', and each of its comma-separated \
                         entries is a host or host:port (e.g. gateway.example.com or \
                         10.0.0.5:8000; [::1]:8080 for IPv6), without a scheme or a path. \
                         Nothing was sent"
                    )
                })
        })
        .collect()
}

/// May the value of `variable` go to `url`? `carried` says what the request
/// would carry (`OPENAI_API_KEY`, `${SUPPORT_TOKEN} (header
/// `Authorization`)`), `key` the suite key naming the address (`base_url`,
/// `url`). Always yes outside CI (see the module doc).
///
/// # Errors
/// The sentence of the refusal (without its place in the suite file).
pub fn check(
    key: &str,
    url: &str,
    variable: &str,
    carried: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), String> {
    if !in_ci(env) {
        return Ok(());
    }
    let Some((host, port)) = reached(url) else {
        // An address without a host is refused where it is built; nothing
        // reaches a host digline cannot name.
        return Err(format!(
            "`{key}` names no host digline can check against the hosts this CI job allows, \
             and the request would carry {carried}. Nothing was sent"
        ));
    };
    if is_loopback(&host) {
        return Ok(());
    }
    let official = [ProviderKind::Anthropic, ProviderKind::OpenAi]
        .into_iter()
        .filter(|kind| kind.key_variable() == variable)
        .filter_map(|kind| reached(kind.default_base_url()))
        .map(|(host, port)| Place {
            host,
            port: Some(port),
        });
    let operator = ENDPOINT_VARIABLES
        .iter()
        .filter_map(|name| env(name))
        .filter_map(|value| reached(&value))
        .map(|(host, port)| Place {
            host,
            port: Some(port),
        });
    let mut allowed: Vec<Place> = official.chain(operator).collect();
    allowed.extend(listed(&env(ALLOW_VARIABLE).unwrap_or_default())?);
    if allowed.iter().any(|place| place.admits(&host, port)) {
        return Ok(());
    }
    let at = spoken(&host, port);
    Err(format!(
        "`{key}` names {at}, a host this CI job does not allow, and the request would carry \
         {carried}. The suite comes from the pull request being judged, so nothing was sent: \
         if the host is yours, set {ALLOW_VARIABLE}={at} in the CI job"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        move |name: &str| map.get(name).cloned()
    }

    #[test]
    fn ci_is_recognised_by_its_variables() {
        for (pairs, want) in [
            (&[("CI", "true")][..], true),
            (&[("CI", "1")][..], true),
            (&[("GITHUB_ACTIONS", "true")][..], true),
            (&[("GITLAB_CI", "true")][..], true),
            (&[("CI", "false")][..], false),
            (&[("CI", "0")][..], false),
            (&[("CI", "")][..], false),
            (&[][..], false),
        ] {
            assert_eq!(in_ci(&env_of(pairs)), want, "{pairs:?}");
        }
    }

    #[test]
    fn a_key_goes_only_where_the_ci_allows() {
        let ci = [("CI", "true")];
        let ask = |url: &str, variable: &str, extra: &[(&str, &str)]| {
            let pairs: Vec<(&str, &str)> = ci.iter().chain(extra).copied().collect();
            check("base_url", url, variable, variable, &env_of(&pairs))
        };
        let key = "OPENAI_API_KEY";
        for url in [
            "http://localhost:8080/v1",
            "http://127.0.0.1:1/v1",
            "http://127.8.9.1/v1",
            "http://[::1]:9000/v1",
            "https://api.openai.com/v1",
            "https://API.openai.com:443/v1/",
        ] {
            assert_eq!(ask(url, key, &[]), Ok(()), "{url}");
        }
        // the official host of the other provider, or plain http, is not
        // the official endpoint of this key
        assert!(ask("https://api.anthropic.com", key, &[]).is_err());
        assert!(ask("http://api.openai.com/v1", key, &[]).is_err());
        assert_eq!(
            ask("https://api.anthropic.com", "ANTHROPIC_API_KEY", &[]),
            Ok(())
        );
        // the operator's endpoints: host and port
        let gateway = [("OPENAI_BASE_URL", "http://gateway.internal:4000/v1")];
        assert_eq!(ask("http://gateway.internal:4000/x", key, &gateway), Ok(()));
        assert!(ask("http://gateway.internal:4001/x", key, &gateway).is_err());
        let judge = [("DIGLINE_JUDGE_ANTHROPIC_BASE_URL", "https://judge.internal")];
        assert_eq!(ask("https://judge.internal/v1", key, &judge), Ok(()));
        // the listed hosts: any port, or the one named
        let listed = [(
            ALLOW_VARIABLE,
            " gw.example.com , 10.0.0.5:8000,[fd00::1]:9",
        )];
        assert_eq!(ask("https://gw.example.com:8443/v1", key, &listed), Ok(()));
        assert_eq!(ask("http://10.0.0.5:8000/v1", key, &listed), Ok(()));
        assert_eq!(ask("http://[fd00::1]:9/v1", key, &listed), Ok(()));
        assert!(ask("http://10.0.0.5:8001/v1", key, &listed).is_err());
        // userinfo does not hide the host
        assert!(ask("http://127.0.0.1@evil.example/v1", key, &[]).is_err());
        // outside CI nothing is checked
        assert_eq!(
            check("base_url", "https://evil.example", key, key, &env_of(&[])),
            Ok(())
        );
    }

    #[test]
    fn the_refusals_read_in_full() {
        let env = env_of(&[("GITHUB_ACTIONS", "true")]);
        assert_eq!(
            check(
                "base_url",
                "https://evil.example.com/v1",
                "OPENAI_API_KEY",
                "OPENAI_API_KEY",
                &env
            )
            .unwrap_err(),
            "`base_url` names evil.example.com:443, a host this CI job does not allow, and the \
             request would carry OPENAI_API_KEY. The suite comes from the pull request being \
             judged, so nothing was sent: if the host is yours, set \
             DIGLINE_ALLOW_HOSTS=evil.example.com:443 in the CI job"
        );
        assert_eq!(
            check(
                "url",
                "http://[fd00::2]:81/a",
                "SUPPORT_TOKEN",
                "${SUPPORT_TOKEN} (header `Authorization`)",
                &env
            )
            .unwrap_err(),
            "`url` names [fd00::2]:81, a host this CI job does not allow, and the request would \
             carry ${SUPPORT_TOKEN} (header `Authorization`). The suite comes from the pull \
             request being judged, so nothing was sent: if the host is yours, set \
             DIGLINE_ALLOW_HOSTS=[fd00::2]:81 in the CI job"
        );
        let bad = env_of(&[("CI", "true"), (ALLOW_VARIABLE, "https://gw.example.com")]);
        assert_eq!(
            check("url", "http://gw.example.com/", "T", "${T}", &bad).unwrap_err(),
            "DIGLINE_ALLOW_HOSTS holds 'https://gw.example.com', and each of its \
             comma-separated entries is a host or host:port (e.g. gateway.example.com or \
             10.0.0.5:8000; [::1]:8080 for IPv6), without a scheme or a path. Nothing was sent"
        );
    }
}
