//! Credentials go only where the CI allows.
//!
//! The suite file comes from the pull request being judged, so the address
//! it names (`[target] base_url` of a provider, `url` of an HTTP target) is
//! the pull request's to choose. When digline runs in CI ([`in_ci`]: `CI`,
//! `GITHUB_ACTIONS`, `GITLAB_CI` or `TF_BUILD` true-ish, or `JENKINS_URL`
//! set), a value taken from the environment — a provider's key, any
//! `${NAME}` of `[target.headers]` — is sent only to a host the CI job
//! allows ([`check`]):
//!
//! - loopback: the literal name `localhost`, `127.0.0.0/8`, `::1` (and
//!   `::ffff:127.x.x.x`); no other name, since a resolver may send
//!   `anything.localhost` anywhere;
//! - the provider's official host (`api.openai.com`, `api.anthropic.com`),
//!   over `https` on 443 only, for that provider's key only;
//! - the scheme, host and port of an endpoint the operator set in the
//!   environment: `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`,
//!   `DIGLINE_JUDGE_OPENAI_BASE_URL`, `DIGLINE_JUDGE_ANTHROPIC_BASE_URL`;
//! - every entry of `DIGLINE_ALLOW_HOSTS` (comma-separated `host` — any
//!   port — or `host:port`, `[::1]:8080` for an IPv6 literal; no scheme, so
//!   `http` and `https` alike), which is set in the CI job and never read
//!   from a file a pull request can change.
//!
//! Anything else is refused before any call (exit 64) with one sentence
//! naming the variable, the scheme or host:port and the fix. A `Host`
//! header names a destination too (a proxy routing by it forwards the
//! request there): with a credential on board it must name the URL's own
//! host and port ([`check_host_header`]). No credential, no refusal;
//! outside CI nothing is checked. The runner calls [`check`] where the
//! target's and the judges' endpoints and secrets are resolved.

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

/// Is digline running in CI? `CI`, `GITHUB_ACTIONS`, `GITLAB_CI` or
/// `TF_BUILD` (Azure Pipelines) true-ish, or `JENKINS_URL` (Jenkins) set.
pub fn in_ci(env: &dyn Fn(&str) -> Option<String>) -> bool {
    [
        "CI",
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "TF_BUILD",
        "JENKINS_URL",
    ]
    .iter()
    .any(|name| truthy(env(name)))
}

/// What a URL reaches: its scheme (lower-cased), host and port.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reach {
    scheme: String,
    /// Lower-cased, an IPv6 literal without brackets.
    host: String,
    port: u16,
}

/// A scheme, a host and a port, each when it matters.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    /// `None`: any scheme (a `DIGLINE_ALLOW_HOSTS` entry names none).
    scheme: Option<String>,
    /// Lower-cased, an IPv6 literal without brackets.
    host: String,
    /// `None`: any port.
    port: Option<u16>,
}

impl Place {
    /// The place a URL's reach is, scheme and port included.
    fn exactly(reach: Reach) -> Place {
        Place {
            scheme: Some(reach.scheme),
            host: reach.host,
            port: Some(reach.port),
        }
    }

    /// Is `reach` at this host and port (whatever its scheme)?
    fn hosts(&self, reach: &Reach) -> bool {
        self.host == reach.host && self.port.is_none_or(|p| p == reach.port)
    }

    /// Is `reach` this place, scheme included?
    fn admits(&self, reach: &Reach) -> bool {
        self.hosts(reach)
            && self
                .scheme
                .as_deref()
                .is_none_or(|scheme| scheme == reach.scheme)
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

/// The port of `scheme` when none is written; `None` for a scheme digline
/// does not speak.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// The scheme, host and port a URL reaches (the scheme's port when none is
/// written); `None` when it names no host.
fn reached(url: &str) -> Option<Reach> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default = default_port(&scheme)?;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = host_port(authority)?;
    Some(Reach {
        scheme,
        host,
        port: port.unwrap_or(default),
    })
}

/// Is `host` loopback? Only the literal name `localhost` (no other name: a
/// resolver may send `anything.localhost` anywhere) and loopback addresses.
fn is_loopback(host: &str) -> bool {
    host == "localhost"
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
                .map(|(host, port)| Place {
                    scheme: None,
                    host,
                    port,
                })
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

/// The place `url` reaches, when there is anything to check: `None` outside
/// CI (see the module doc). `key` and `carried` as in [`check`].
///
/// # Errors
/// The refusal of an address without a host: it is refused where it is
/// built, and nothing reaches a host digline cannot name.
fn reach_in_ci(
    key: &str,
    url: &str,
    carried: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Reach>, String> {
    if !in_ci(env) {
        return Ok(None);
    }
    reached(url).map(Some).ok_or_else(|| {
        format!(
            "`{key}` names no host digline can check against the hosts this CI job allows, \
             and the request would carry {carried}. Nothing was sent"
        )
    })
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
    let Some(reach) = reach_in_ci(key, url, carried, env)? else {
        return Ok(());
    };
    if is_loopback(&reach.host) {
        return Ok(());
    }
    // The official hosts are `https` URLs, so they admit `https` only.
    let official = [ProviderKind::Anthropic, ProviderKind::OpenAi]
        .into_iter()
        .filter(|kind| kind.key_variable() == variable)
        .filter_map(|kind| reached(kind.default_base_url()))
        .map(Place::exactly);
    let operator = ENDPOINT_VARIABLES
        .iter()
        .filter_map(|name| env(name))
        .filter_map(|value| reached(&value))
        .map(Place::exactly);
    let mut allowed: Vec<Place> = official.chain(operator).collect();
    allowed.extend(listed(&env(ALLOW_VARIABLE).unwrap_or_default())?);
    if allowed.iter().any(|place| place.admits(&reach)) {
        return Ok(());
    }
    let at = spoken(&reach.host, reach.port);
    let mut schemes: Vec<&str> = allowed
        .iter()
        .filter(|place| place.hosts(&reach))
        .filter_map(|place| place.scheme.as_deref())
        .collect();
    schemes.sort_unstable();
    schemes.dedup();
    if let [scheme] = schemes[..] {
        return Err(format!(
            "`{key}` names {at} over {}, but this CI job allows that host only over {scheme}, \
             and the request would carry {carried}. The suite comes from the pull request being \
             judged, so nothing was sent: write {scheme}://{at} in `{key}`",
            reach.scheme
        ));
    }
    Err(format!(
        "`{key}` names {at}, a host this CI job does not allow, and the request would carry \
         {carried}. The suite comes from the pull request being judged, so nothing was sent: \
         if the host is yours, set {ALLOW_VARIABLE}={at} in the CI job"
    ))
}

/// May a request to `url` carry a `Host` header of `value`? A proxy
/// routing by `Host` forwards the request to the host it names, so with a
/// credential on board (`carried`, as in [`check`]) in CI the header must
/// name the URL's own host and port (the scheme's port when it names
/// none). `name` and `written` are the header as the suite writes it,
/// `value` as it would be sent (its `${NAME}`s expanded; never quoted).
///
/// # Errors
/// The sentence of the refusal (without its place in the suite file).
pub fn check_host_header(
    url: &str,
    name: &str,
    written: &str,
    value: &str,
    carried: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), String> {
    let Some(reach) = reach_in_ci("url", url, carried, env)? else {
        return Ok(());
    };
    let named = host_port(value.trim())
        .filter(|(host, _)| !host.contains(':') || value.trim().starts_with('['))
        .map(|(host, port)| (host, port.or(default_port(&reach.scheme))));
    if named
        .as_ref()
        .is_some_and(|(host, port)| *host == reach.host && *port == Some(reach.port))
    {
        return Ok(());
    }
    let url_at = spoken(&reach.host, reach.port);
    Err(format!(
        "The header `{name}` sends the request on to '{}' rather than {url_at}, the host of \
         `url`, and the request would carry {carried}. A proxy routing by `Host` would take \
         it there, so nothing was sent: remove the header or make it name {url_at}",
        written.trim()
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
            (&[("TF_BUILD", "True")][..], true),
            (&[("JENKINS_URL", "https://jenkins.example.com/")][..], true),
            (&[("JENKINS_URL", "")][..], false),
            (&[("TF_BUILD", "False")][..], false),
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

    /// Asks, in CI, whether `variable` may go to `url` with `extra` set.
    fn ask(url: &str, variable: &str, extra: &[(&str, &str)]) -> Result<(), String> {
        let pairs: Vec<(&str, &str)> = [("CI", "true")].iter().chain(extra).copied().collect();
        check("base_url", url, variable, variable, &env_of(&pairs))
    }

    #[test]
    fn the_scheme_counts_at_the_official_host_and_the_operators_endpoints() {
        let key = "OPENAI_API_KEY";
        // the official host is https only, even on its own port
        assert_eq!(ask("https://api.openai.com:443/v1", key, &[]), Ok(()));
        assert!(ask("http://api.openai.com:443/v1", key, &[]).is_err());
        assert!(ask("HTTP://api.openai.com:443/v1", key, &[]).is_err());
        // an operator's endpoint admits its own scheme only
        let https = [("OPENAI_BASE_URL", "https://gateway.internal:4000/v1")];
        assert_eq!(ask("https://gateway.internal:4000/x", key, &https), Ok(()));
        assert!(ask("http://gateway.internal:4000/x", key, &https).is_err());
        let http = [("ANTHROPIC_BASE_URL", "http://gateway.internal:4000")];
        assert_eq!(ask("http://gateway.internal:4000/x", key, &http), Ok(()));
        assert!(ask("https://gateway.internal:4000/x", key, &http).is_err());
        // both schemes from the operator: both admitted
        let both = [
            ("OPENAI_BASE_URL", "https://gateway.internal:4000/v1"),
            (
                "DIGLINE_JUDGE_OPENAI_BASE_URL",
                "http://gateway.internal:4000/v1",
            ),
        ];
        assert_eq!(ask("http://gateway.internal:4000/x", key, &both), Ok(()));
        assert_eq!(ask("https://gateway.internal:4000/x", key, &both), Ok(()));
        // a DIGLINE_ALLOW_HOSTS entry names no scheme: either goes
        let listed = [(ALLOW_VARIABLE, "api.openai.com:443,gw.example.com")];
        assert_eq!(ask("http://api.openai.com:443/v1", key, &listed), Ok(()));
        assert_eq!(ask("http://gw.example.com/v1", key, &listed), Ok(()));
        assert_eq!(ask("https://gw.example.com/v1", key, &listed), Ok(()));
    }

    #[test]
    fn a_scheme_refusal_names_the_scheme() {
        assert_eq!(
            ask("http://api.openai.com:443/v1", "OPENAI_API_KEY", &[]).unwrap_err(),
            "`base_url` names api.openai.com:443 over http, but this CI job allows that host \
             only over https, and the request would carry OPENAI_API_KEY. The suite comes from \
             the pull request being judged, so nothing was sent: write \
             https://api.openai.com:443 in `base_url`"
        );
        let https = [("OPENAI_BASE_URL", "https://gateway.internal:4000/v1")];
        assert_eq!(
            ask("http://gateway.internal:4000/x", "OPENAI_API_KEY", &https).unwrap_err(),
            "`base_url` names gateway.internal:4000 over http, but this CI job allows that host \
             only over https, and the request would carry OPENAI_API_KEY. The suite comes from \
             the pull request being judged, so nothing was sent: write \
             https://gateway.internal:4000 in `base_url`"
        );
    }

    #[test]
    fn only_the_literal_localhost_is_loopback_by_name() {
        let key = "OPENAI_API_KEY";
        for url in [
            "http://localhost:8080/v1",
            "http://LocalHost:8080/v1",
            "http://127.0.0.1/v1",
            "http://127.255.0.9/v1",
            "http://[::1]/v1",
            "http://[::ffff:127.0.0.1]:81/v1",
        ] {
            assert_eq!(ask(url, key, &[]), Ok(()), "{url}");
        }
        for url in [
            "http://evil.localhost:8080/v1",
            "http://a.b.LOCALHOST/v1",
            "http://localhost./v1",
            "http://localhost.evil.example/v1",
            "http://[::ffff:10.0.0.1]/v1",
            "http://0.0.0.0/v1",
        ] {
            assert!(ask(url, key, &[]).is_err(), "{url}");
        }
        assert_eq!(
            ask("http://evil.localhost:8080/v1", key, &[]).unwrap_err(),
            "`base_url` names evil.localhost:8080, a host this CI job does not allow, and the \
             request would carry OPENAI_API_KEY. The suite comes from the pull request being \
             judged, so nothing was sent: if the host is yours, set \
             DIGLINE_ALLOW_HOSTS=evil.localhost:8080 in the CI job"
        );
    }

    #[test]
    fn a_host_header_must_name_the_urls_own_host_when_a_credential_rides() {
        let ci = env_of(&[("CI", "true")]);
        let carried = "${T} (header `Authorization`)";
        let host =
            |url: &str, value: &str| check_host_header(url, "Host", value, value, carried, &ci);
        for (url, value) in [
            ("http://127.0.0.1:8080/a", "127.0.0.1:8080"),
            ("http://localhost:8080/a", "LOCALHOST:8080"),
            ("http://localhost/a", "localhost"),
            ("http://localhost/a", "localhost:80"),
            ("https://gw.example.com/a", "gw.example.com"),
            ("https://gw.example.com/a", " gw.example.com:443 "),
            ("http://[::1]:9/a", "[::1]:9"),
        ] {
            assert_eq!(host(url, value), Ok(()), "{url} {value}");
        }
        for (url, value) in [
            ("http://127.0.0.1:8080/a", "evil.example.com"),
            ("http://127.0.0.1:8080/a", "127.0.0.1"),
            ("http://127.0.0.1:8080/a", "127.0.0.1:8081"),
            ("http://localhost/a", "127.0.0.1"),
            ("http://localhost/a", ""),
            ("http://localhost/a", "localhost/x"),
            ("http://[::1]:9/a", "::1"),
        ] {
            assert!(host(url, value).is_err(), "{url} {value:?}");
        }
        // outside CI nothing is checked
        assert_eq!(
            check_host_header(
                "http://127.0.0.1/",
                "host",
                "evil.example.com",
                "evil.example.com",
                carried,
                &env_of(&[])
            ),
            Ok(())
        );
        // the sentence quotes the header as written, never the value sent
        assert_eq!(
            check_host_header(
                "http://127.0.0.1:8080/a",
                "host",
                "${ROUTE}",
                "evil.example.com",
                carried,
                &ci
            )
            .unwrap_err(),
            "The header `host` sends the request on to '${ROUTE}' rather than 127.0.0.1:8080, \
             the host of `url`, and the request would carry ${T} (header `Authorization`). A \
             proxy routing by `Host` would take it there, so nothing was sent: remove the \
             header or make it name 127.0.0.1:8080"
        );
    }
}
