//! `[target] type = "http"`: the address, the request body and its
//! `case.*` references, the headers and their `${NAME}` variables (CI
//! tokens only when allowed, credentials only from the environment), and
//! the expansion of those variables before the first call.

use serde_json::{Map, Value};
use toml::de::DeValue;

use super::errors::{LoadError, LoadErrorKind};
use super::fields::{Fields, NonEmpty, Num};
use super::located::in_cases;
use super::suite_table::SuiteValues;
use super::toml_values::{kind, to_json};
use super::{err, finish, noted};
use crate::client::http::{check_body_references, HttpTargetSpec};

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
pub(super) fn http_target(f: &Fields<'_, '_>) -> Result<HttpTargetSpec, LoadError> {
    let mut problems = Vec::new();
    let python_only = |key: &str, sentence: &str| {
        f.get(key).map(|_| {
            f.refuse(
                LoadErrorKind::PythonOnly,
                Some(key),
                f.at_key(key),
                sentence,
            )
        })
    };
    problems.extend(python_only(
        "request",
        "`request` would compute the body with code, which a data file cannot hold. Write \
         the body as [target.body] with case.* references; a body that must be computed \
         needs a suite.py",
    ));
    problems.extend(python_only(
        "pricing",
        "`pricing` does not apply to an HTTP target: its cost is what the service reports \
         at `cost_path`",
    ));
    // `output_pth` is one problem, not also "no `output_path`"; `request`
    // stands where the body would be.
    let also = ["type", "request", "pricing"];
    let mut meant = f.known(HTTP_KEYS, &also, Some("http"), "parameter", &mut problems);
    if f.get("request").is_some() {
        meant.push("body");
    }
    problems.extend(f.missing(&REQUIRED, "`http`", &meant));
    let text = |key: &str| {
        f.optional::<NonEmpty>(key, "it has to be a non-empty string")
            .map(|text| text.map(|t| t.0))
    };
    let url = noted(
        &mut problems,
        text("url").and_then(|url| checked_url(f, url)),
    );
    let output_path = noted(&mut problems, text("output_path"));
    let cost_path = noted(&mut problems, text("cost_path"));
    let latency_from_response = noted(&mut problems, text("latency_from_response"));
    let config_path = noted(&mut problems, text("config_path"));
    let body = noted(&mut problems, body(f));
    let allowed = noted(&mut problems, allowed_ci_tokens(f));
    let headers = noted(&mut problems, headers(f, allowed.as_deref()));
    let timeout_s = noted(
        &mut problems,
        f.bounded(
            "timeout",
            "it has to be a number of seconds above 0",
            |n: &Num| n.above(0.0),
        ),
    );
    finish(problems, || {
        Some(HttpTargetSpec {
            url: url?.unwrap_or_default(),
            output_path: output_path?.unwrap_or_default(),
            body: body?,
            cost_path: cost_path?,
            latency_from_response: latency_from_response?,
            config_path: config_path?,
            headers: headers?,
            timeout_s: timeout_s?.map_or(30.0, |n| n.x),
        })
    })
}

/// `url`, when given: an http(s) address with a host and a port digline
/// can dial, and no `${NAME}`.
fn checked_url(f: &Fields<'_, '_>, url: Option<String>) -> Result<Option<String>, LoadError> {
    let Some(url) = url else {
        return Ok(None);
    };
    let has_host = url
        .split_once("://")
        .filter(|(scheme, _)| *scheme == "http" || *scheme == "https")
        .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
        .and_then(|authority| authority.rsplit('@').next())
        .is_some_and(|host| !host.is_empty() && !host.starts_with(':'));
    let why = if !has_host {
        "`url` has to be an http:// or https:// address with a host".to_string()
    } else if url.contains("${") {
        "`url` holds a ${NAME}, and only [target.headers] values take variables from the \
         environment. Write the address, and put a secret in a header"
            .to_string()
    } else if let Some(port) = url_port(&url).filter(|p| p.parse::<u16>().map_or(true, |p| p == 0))
    {
        format!("`url` names the port '{port}', and a port is a number from 1 to 65535")
    } else if let Err(why) = crate::client::http::check_url(&url) {
        format!("`url`: {why}")
    } else {
        return Ok(Some(url));
    };
    Err(f.invalid("url", &why))
}

/// `[target.body]`: a table shaped like the request, whose `case.*`
/// references name what a case holds; empty when absent.
fn body(f: &Fields<'_, '_>) -> Result<Map<String, Value>, LoadError> {
    let body = match f.get("body").map(|v| v.get_ref()) {
        None => Map::new(),
        Some(table @ DeValue::Table(_)) => match to_json(table) {
            Ok(Value::Object(map)) => map,
            Ok(_) => Map::new(),
            Err(why) => return Err(f.invalid("body", &format!("`body` holds {why}"))),
        },
        Some(other) => {
            return Err(f.invalid(
                "body",
                &format!(
                    "`body` is {}, and it has to be a table ([target.body]) shaped like the \
                     request",
                    kind(other)
                ),
            ))
        }
    };
    check_body_references(&body).map_err(|why| f.invalid("body", &why))?;
    Ok(body)
}

/// `[target.headers]`: each header checked on its own, every refused one
/// noted. `allowed` is `None` when `allow_ci_tokens` was refused: the CI
/// token rule is then not run (its input is unknown).
fn headers(
    f: &Fields<'_, '_>,
    allowed: Option<&[String]>,
) -> Result<Vec<(String, String)>, LoadError> {
    let Some(entries) = f.table("headers", Some("[target.headers]")) else {
        return match f.get("headers") {
            None => Ok(Vec::new()),
            Some(other) => Err(f.invalid(
                "headers",
                &format!(
                    "`headers` is {}, and it has to be a table of strings ([target.headers])",
                    kind(other.get_ref())
                ),
            )),
        };
    };
    let mut problems = Vec::new();
    let mut headers = Vec::new();
    for (name, value) in entries.entries() {
        let checked = header(name, value.get_ref(), allowed)
            .map_err(|(kind, why)| entries.refuse(kind, Some(name), entries.at_key(name), &why));
        if let Some(value) = noted(&mut problems, checked) {
            headers.push((name.to_string(), value));
        }
    }
    match LoadError::all(problems) {
        Some(error) => Err(error),
        None => Ok(headers),
    }
}

/// One header of `[target.headers]`: its value, checked, or the kind of
/// refusal and its sentence.
fn header(
    name: &str,
    value: &DeValue<'_>,
    allowed: Option<&[String]>,
) -> Result<String, (LoadErrorKind, String)> {
    let invalid = |why: String| (LoadErrorKind::Invalid, why);
    let Some(value) = value.as_str() else {
        return Err(invalid(format!(
            "`{name}` is {}, and a header value is a string",
            kind(value)
        )));
    };
    if !is_header_name(name) {
        return Err(invalid(format!(
            "`{name}` is not a valid HTTP header name: letters, digits and \
             !#$%&'*+-.^_`|~ only, no spaces"
        )));
    }
    if value.contains(['\r', '\n', '\0']) {
        return Err(invalid(format!(
            "`{name}` holds a line break or NUL, which would split the request"
        )));
    }
    let vars = header_variables(value).map_err(|why| invalid(format!("`{name}`: {why}")))?;
    if let Some(why) = allowed.and_then(|allowed| {
        vars.iter()
            .find_map(|var| crate::host::ci_tokens::refused(name, var, allowed))
    }) {
        return Err((LoadErrorKind::Credential, why));
    }
    if carries_credential(name) && vars.is_empty() {
        let example = if name.to_ascii_lowercase().contains("authorization") {
            "Bearer ${SUPPORT_TOKEN}"
        } else {
            "${SUPPORT_TOKEN}"
        };
        return Err((
            LoadErrorKind::Credential,
            format!(
                "`{name}` carries a credential, and its value is written into the \
                 suite file, which gets committed. Take it from the environment \
                 instead, e.g. {name} = \"{example}\""
            ),
        ));
    }
    Ok(value.to_string())
}

/// `[target] allow_ci_tokens`: the CI token names the suite lets its
/// headers read (see `host::ci_tokens`); empty when absent.
fn allowed_ci_tokens(f: &Fields<'_, '_>) -> Result<Vec<String>, LoadError> {
    let key = crate::host::ci_tokens::ALLOW_KEY;
    let items = match f.get(key).map(|v| v.get_ref()) {
        None => return Ok(Vec::new()),
        Some(DeValue::Array(items)) => items,
        Some(other) => {
            return Err(f.invalid(
                key,
                &format!(
                    "`{key}` is {}, and it is a list of environment variable names, e.g. \
                     {key} = [\"GITHUB_TOKEN\"]",
                    kind(other)
                ),
            ))
        }
    };
    // A refused name is placed at its element.
    items
        .iter()
        .map(|item| {
            let why = match item.get_ref().as_str() {
                Some(name) if crate::host::ci_tokens::is_ci_token(name) => {
                    return Ok(name.to_string())
                }
                Some(name) => format!(
                    "`{key}` names {name}, which is not one of the CI's own tokens; only those \
                     need allowing"
                ),
                None => format!(
                    "`{key}` holds {}, and it is a list of environment variable names",
                    kind(item.get_ref())
                ),
            };
            Err(f.refuse(LoadErrorKind::Invalid, Some(key), item.span().start, &why))
        })
        .collect()
}

/// Every case that will be asked must have what `[target.body]` reads
/// (`case.vars.<k>`, `case.metadata.<k>`): found here, for all cases at
/// once, instead of as one errored case per typo during the run.
pub(super) fn check_body_against_cases(
    spec: &HttpTargetSpec,
    values: &SuiteValues,
) -> Result<(), LoadError> {
    let problems: Vec<(usize, String)> = (values.cases.iter().enumerate())
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
        &values.cases_name,
        Some(&format!("#{first}")),
        None,
        &format!("{why}{more}. Fix the case or the body: nothing was sent"),
    )
    .at(in_cases(&values.cases_text, Some(*first), None)))
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
