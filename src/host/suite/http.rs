//! `[target] type = "http"`: the address, the request body and its
//! `case.*` references, the headers and their `${NAME}` variables (CI
//! tokens only when allowed, credentials only from the environment), and
//! the expansion of those variables before the first call.

use serde_json::{Map, Value};

use super::errors::{LoadError, LoadErrorKind};
use super::toml_values::{toml_to_json, toml_type};
use super::{err, missing_keys, noted, unknown_keys};
use crate::client::http::{check_body_references, HttpTargetSpec};
use crate::host::near_miss::did_you_mean;

/// Parameters of `[target] type = "http"` in digline 0.10.0.
const HTTP_KEYS: &[&str] = &[
    "allow_ci_tokens",
    "body",
    "config_path",
    "cost_path",
    "headers",
    "latency_from_response",
    "output_path",
    "timeout",
    "url",
];

const AT: Option<&str> = Some("[target]");

/// The keys every HTTP target must give.
const REQUIRED: [&str; 3] = ["url", "output_path", "body"];

/// Validate `[target] type = "http"`, noting every independent problem:
/// the Python-only keys, unknown keys (a near miss of a required key is
/// not also reported missing), missing keys, then each value on its own.
/// A rule whose input was refused is not run (a header's CI-token rule
/// when `allow_ci_tokens` itself was refused).
///
/// # Errors
/// The first problem, carrying the others (see [`LoadError::all`]).
pub(super) fn http_target(table: &toml::Table) -> Result<HttpTargetSpec, LoadError> {
    let mut problems = Vec::new();
    if table.contains_key("request") {
        problems.push(err(
            LoadErrorKind::PythonOnly,
            AT,
            Some("request"),
            "`request` would compute the body with code, which a data file cannot hold. Write \
             the body as [target.body] with case.* references; a body that must be computed \
             needs a suite.py",
        ));
    }
    if table.contains_key("pricing") {
        problems.push(err(
            LoadErrorKind::PythonOnly,
            AT,
            Some("pricing"),
            "`pricing` does not apply to an HTTP target: its cost is what the service reports \
             at `cost_path`",
        ));
    }
    let unknown: Vec<&str> = table
        .keys()
        .map(String::as_str)
        .filter(|k| !matches!(*k, "type" | "request" | "pricing") && !HTTP_KEYS.contains(k))
        .collect();
    // `output_pth` is one problem, not also "no `output_path`"; `request`
    // stands where the body would be.
    let mut meant: Vec<&str> = unknown
        .iter()
        .filter_map(|k| did_you_mean(k, HTTP_KEYS))
        .collect();
    if table.contains_key("request") {
        meant.push("body");
    }
    if !unknown.is_empty() {
        problems.push(unknown_keys(
            AT,
            Some("http"),
            "parameter",
            &unknown,
            HTTP_KEYS,
        ));
    }
    problems.extend(missing_keys(table, AT, "`http`", &REQUIRED, &meant));
    let url = noted(&mut problems, text(table, "url").and_then(checked_url));
    let output_path = noted(&mut problems, text(table, "output_path"));
    let cost_path = noted(&mut problems, text(table, "cost_path"));
    let latency_from_response = noted(&mut problems, text(table, "latency_from_response"));
    let config_path = noted(&mut problems, text(table, "config_path"));
    let body = noted(&mut problems, body(table));
    let allowed = noted(&mut problems, allowed_ci_tokens(table));
    let headers = noted(&mut problems, headers(table, allowed.as_deref()));
    let timeout_s = noted(&mut problems, timeout(table));
    if let Some(error) = LoadError::all(problems) {
        return Err(error);
    }
    let (
        Some(url),
        Some(output_path),
        Some(cost_path),
        Some(latency_from_response),
        Some(config_path),
        Some(body),
        Some(headers),
        Some(timeout_s),
    ) = (
        url,
        output_path,
        cost_path,
        latency_from_response,
        config_path,
        body,
        headers,
        timeout_s,
    )
    else {
        unreachable!("every value that was refused noted a problem");
    };
    Ok(HttpTargetSpec {
        url: url.unwrap_or_default(),
        output_path: output_path.unwrap_or_default(),
        body,
        cost_path,
        latency_from_response,
        config_path,
        headers,
        timeout_s,
    })
}

/// A string parameter: absent, or a non-empty string.
fn text(table: &toml::Table, key: &str) -> Result<Option<String>, LoadError> {
    match table.get(key) {
        None => Ok(None),
        Some(toml::Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some(key),
            &format!(
                "`{key}` is {}, and it has to be a non-empty string",
                if matches!(other, toml::Value::String(_)) {
                    "empty"
                } else {
                    toml_type(other)
                }
            ),
        )),
    }
}

/// `url`, when given: an http(s) address with a host and a port digline
/// can dial, and no `${NAME}`.
fn checked_url(url: Option<String>) -> Result<Option<String>, LoadError> {
    let Some(url) = url else {
        return Ok(None);
    };
    let has_host = url
        .split_once("://")
        .filter(|(scheme, _)| *scheme == "http" || *scheme == "https")
        .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
        .and_then(|authority| authority.rsplit('@').next())
        .is_some_and(|host| !host.is_empty() && !host.starts_with(':'));
    if !has_host {
        return Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("url"),
            "`url` has to be an http:// or https:// address with a host",
        ));
    }
    if url.contains("${") {
        return Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("url"),
            "`url` holds a ${NAME}, and only [target.headers] values take variables from the \
             environment. Write the address, and put a secret in a header",
        ));
    }
    if let Some(port) = url_port(&url) {
        if port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("url"),
                &format!("`url` names the port '{port}', and a port is a number from 1 to 65535"),
            ));
        }
    }
    if let Err(why) = crate::client::http::check_url(&url) {
        return Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("url"),
            &format!("`url`: {why}"),
        ));
    }
    Ok(Some(url))
}

/// `[target.body]`: a table shaped like the request, whose `case.*`
/// references name what a case holds; empty when absent.
fn body(table: &toml::Table) -> Result<Map<String, Value>, LoadError> {
    let body = match table.get("body") {
        Some(toml::Value::Table(body)) => match toml_to_json(&toml::Value::Table(body.clone())) {
            Ok(Value::Object(map)) => map,
            Ok(_) => Map::new(),
            Err(why) => {
                return Err(err(
                    LoadErrorKind::Invalid,
                    AT,
                    Some("body"),
                    &format!("`body` holds {why}"),
                ))
            }
        },
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("body"),
                &format!(
                    "`body` is {}, and it has to be a table ([target.body]) shaped like the \
                     request",
                    toml_type(other)
                ),
            ))
        }
        None => Map::new(),
    };
    check_body_references(&body)
        .map_err(|why| err(LoadErrorKind::Invalid, AT, Some("body"), &why))?;
    Ok(body)
}

/// `[target.headers]`: each header checked on its own, every refused one
/// noted. `allowed` is `None` when `allow_ci_tokens` was refused: the CI
/// token rule is then not run (its input is unknown).
fn headers(
    table: &toml::Table,
    allowed: Option<&[String]>,
) -> Result<Vec<(String, String)>, LoadError> {
    let entries = match table.get("headers") {
        None => return Ok(Vec::new()),
        Some(toml::Value::Table(h)) => h,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("headers"),
                &format!(
                    "`headers` is {}, and it has to be a table of strings ([target.headers])",
                    toml_type(other)
                ),
            ))
        }
    };
    let mut problems = Vec::new();
    let mut headers = Vec::new();
    for (name, value) in entries {
        if let Some(value) = noted(&mut problems, header(name, value, allowed)) {
            headers.push((name.clone(), value));
        }
    }
    match LoadError::all(problems) {
        Some(error) => Err(error),
        None => Ok(headers),
    }
}

/// One header of `[target.headers]`: its value, checked.
fn header(
    name: &str,
    value: &toml::Value,
    allowed: Option<&[String]>,
) -> Result<String, LoadError> {
    const HEADERS: Option<&str> = Some("[target.headers]");
    let toml::Value::String(value) = value else {
        return Err(err(
            LoadErrorKind::Invalid,
            HEADERS,
            Some(name),
            &format!(
                "`{name}` is {}, and a header value is a string",
                toml_type(value)
            ),
        ));
    };
    if !is_header_name(name) {
        return Err(err(
            LoadErrorKind::Invalid,
            HEADERS,
            Some(name),
            &format!(
                "`{name}` is not a valid HTTP header name: letters, digits and \
                 !#$%&'*+-.^_`|~ only, no spaces"
            ),
        ));
    }
    if value.contains(['\r', '\n', '\0']) {
        return Err(err(
            LoadErrorKind::Invalid,
            HEADERS,
            Some(name),
            &format!("`{name}` holds a line break or NUL, which would split the request"),
        ));
    }
    let vars = header_variables(value).map_err(|why| {
        err(
            LoadErrorKind::Invalid,
            HEADERS,
            Some(name),
            &format!("`{name}`: {why}"),
        )
    })?;
    if let Some(allowed) = allowed {
        if let Some(why) = vars
            .iter()
            .find_map(|var| crate::host::ci_tokens::refused(name, var, allowed))
        {
            return Err(err(LoadErrorKind::Credential, HEADERS, Some(name), &why));
        }
    }
    if carries_credential(name) && vars.is_empty() {
        let example = if name.to_ascii_lowercase().contains("authorization") {
            "Bearer ${SUPPORT_TOKEN}"
        } else {
            "${SUPPORT_TOKEN}"
        };
        return Err(err(
            LoadErrorKind::Credential,
            HEADERS,
            Some(name),
            &format!(
                "`{name}` carries a credential, and its value is written into the \
                 suite file, which gets committed. Take it from the environment \
                 instead, e.g. {name} = \"{example}\""
            ),
        ));
    }
    Ok(value.clone())
}

/// `timeout`: seconds above 0, 30 when absent.
fn timeout(table: &toml::Table) -> Result<f64, LoadError> {
    match table.get("timeout") {
        None => Ok(30.0),
        Some(toml::Value::Integer(n)) if *n > 0 => Ok(*n as f64),
        Some(toml::Value::Float(x)) if *x > 0.0 && x.is_finite() => Ok(*x),
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("timeout"),
            &format!(
                "`timeout` is {}, and it has to be a number of seconds above 0",
                match other {
                    toml::Value::Integer(n) => n.to_string(),
                    toml::Value::Float(x) => x.to_string(),
                    _ => toml_type(other).to_string(),
                }
            ),
        )),
    }
}

/// `[target] allow_ci_tokens`: the CI token names the suite lets its
/// headers read (see `host::ci_tokens`); empty when absent.
fn allowed_ci_tokens(table: &toml::Table) -> Result<Vec<String>, LoadError> {
    let key = crate::host::ci_tokens::ALLOW_KEY;
    let refuse = |why: String| err(LoadErrorKind::Invalid, Some("[target]"), Some(key), &why);
    match table.get(key) {
        None => Ok(Vec::new()),
        // A refused name is placed at its element.
        Some(toml::Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                toml::Value::String(name) if crate::host::ci_tokens::is_ci_token(name) => {
                    Ok(name.clone())
                }
                toml::Value::String(name) => Err(refuse(format!(
                    "`{key}` names {name}, which is not one of the CI's own tokens; only those \
                     need allowing"
                ))
                .at_element(i)),
                other => Err(refuse(format!(
                    "`{key}` holds {}, and it is a list of environment variable names",
                    toml_type(other)
                ))
                .at_element(i)),
            })
            .collect(),
        Some(other) => Err(refuse(format!(
            "`{key}` is {}, and it is a list of environment variable names, e.g. \
             {key} = [\"GITHUB_TOKEN\"]",
            toml_type(other)
        ))),
    }
}

/// Every case that will be asked must have what `[target.body]` reads
/// (`case.vars.<k>`, `case.metadata.<k>`): found here, for all cases at
/// once, instead of as one errored case per typo during the run.
pub(super) fn check_body_against_cases(
    spec: &HttpTargetSpec,
    cases: &[crate::core::suite::Case],
    cases_name: &str,
) -> Result<(), LoadError> {
    let problems: Vec<(usize, String)> = cases
        .iter()
        .enumerate()
        .filter(|(_, c)| c.suspended.is_none())
        .filter_map(|(i, c)| {
            crate::client::http::check_case(&spec.body, c)
                .err()
                .map(|why| (i + 1, why))
        })
        .collect();
    let Some((first, why)) = problems.first() else {
        return Ok(());
    };
    let more = match problems.len() {
        1 => String::new(),
        n => format!(
            " ({} more case(s) too: #{})",
            n - 1,
            problems[1..]
                .iter()
                .map(|(i, _)| i.to_string())
                .collect::<Vec<_>>()
                .join(", #")
        ),
    };
    Err(LoadError::new(
        LoadErrorKind::Invalid,
        cases_name,
        Some(&format!("#{first}")),
        None,
        &format!("{why}{more}. Fix the case or the body: nothing was sent"),
    ))
}

/// The port a URL spells out after its host, if any (`http://h:8080/x` → `8080`).
fn url_port(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let after_host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?.1,
        None => host_port,
    };
    after_host.rsplit_once(':').map(|(_, port)| port)
}

/// True for a valid HTTP header name (an RFC 9110 token).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// True for a header whose name carries a credential: `Authorization`,
/// `Proxy-Authorization`, `Cookie`, or any name containing `key`, `token`
/// or `secret` (case-insensitive). Its value must come from `${NAME}`.
pub fn carries_credential(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "authorization" | "proxy-authorization" | "cookie"
    ) || ["key", "token", "secret"].iter().any(|w| lower.contains(w))
}

/// The `${NAME}` variables a header value uses, in order (repeats kept once).
/// `NAME` is `[A-Za-z_][A-Za-z0-9_]*`.
///
/// # Errors
/// A phrase for a `${` that does not close, or a name that is not a
/// variable name.
pub fn header_variables(value: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err("a `${` is not closed by `}`".to_string());
        };
        let name = &after[..end];
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "`${{{name}}}` is no environment variable name (letters, digits and `_`, not \
                 starting with a digit)"
            ));
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        rest = &after[end + 1..];
    }
    Ok(names)
}

/// The target's headers with every `${NAME}` replaced by `env(NAME)`.
/// The expanded values are secrets: never print, log or record them.
///
/// # Errors
/// A [`LoadErrorKind::Environment`] error naming the header and the
/// variable that `env` does not know (so the run is refused before any
/// call), or a malformed `${…}`.
pub fn expand_headers(
    spec: &HttpTargetSpec,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, LoadError> {
    let mut out = Vec::with_capacity(spec.headers.len());
    for (name, value) in &spec.headers {
        let vars = header_variables(value).map_err(|why| {
            err(
                LoadErrorKind::Invalid,
                Some("[target.headers]"),
                Some(name),
                &format!("`{name}`: {why}"),
            )
        })?;
        for var in &vars {
            if env(var).is_some_and(|v| v.is_empty()) {
                return Err(err(
                    LoadErrorKind::Environment,
                    Some("[target.headers]"),
                    Some(name),
                    &format!(
                        "`{name}` takes ${{{var}}} from the environment, and {var} is set but \
                         empty. Set it to the value; nothing was sent"
                    ),
                ));
            }
            if env(var).is_some_and(|v| v.contains(['\r', '\n', '\0'])) {
                return Err(err(
                    LoadErrorKind::Environment,
                    Some("[target.headers]"),
                    Some(name),
                    &format!(
                        "`{name}` takes ${{{var}}} from the environment, and {var} holds a line \
                         break or NUL, which would split the request. Nothing was sent"
                    ),
                ));
            }
            if env(var).is_none() {
                return Err(err(
                    LoadErrorKind::Environment,
                    Some("[target.headers]"),
                    Some(name),
                    &format!(
                        "`{name}` takes ${{{var}}} from the environment, and {var} is not set. \
                         Set it before the run; nothing was sent"
                    ),
                ));
            }
        }
        // One pass, so a secret that happens to contain `${…}` is never expanded again.
        let mut expanded = String::with_capacity(value.len());
        let mut rest = value.as_str();
        while let Some(at) = rest.find("${") {
            expanded.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let end = after.find('}').unwrap_or(after.len());
            expanded.push_str(&env(&after[..end]).unwrap_or_default());
            rest = after.get(end + 1..).unwrap_or("");
        }
        expanded.push_str(rest);
        out.push((name.clone(), expanded));
    }
    Ok(out)
}

/// The values of the `${NAME}` variables the headers use that are secrets
/// (`client::mask`): those of a credential header, or whose NAME names a
/// credential, and that can be secrets (8 characters or more, not an
/// ordinary word). The target masks them in what is kept or shown.
pub fn header_secrets(spec: &HttpTargetSpec, env: impl Fn(&str) -> Option<String>) -> Vec<String> {
    use crate::client::mask;
    let values = spec
        .headers
        .iter()
        .filter_map(|(name, value)| Some((name, header_variables(value).ok()?)))
        .flat_map(|(name, vars)| {
            vars.into_iter()
                .filter(|var| mask::is_credential_header(name) || mask::names_a_credential(var))
                .collect::<Vec<_>>()
        })
        .filter_map(|var| env(&var));
    mask::secrets(values)
}
