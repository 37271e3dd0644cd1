//! `[target]`: present, a table, no inline credential anywhere in it, and
//! one of its two forms (`http`, `provider`); the form's own file
//! validates the rest.

use std::path::Path;

use super::errors::{LoadError, LoadErrorKind};
use super::http::http_target;
use super::provider::provider_target;
use super::toml_values::toml_type;
use super::{err, TargetSpec};

/// Take every `api_key` (any case, at any depth) out of `table`; returns
/// the dotted path of each, in file order.
fn take_api_keys(table: &mut toml::Table, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut taken = Vec::new();
    for (key, value) in table.iter_mut() {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if key.eq_ignore_ascii_case("api_key") {
            taken.push(key.clone());
            found.push(path);
        } else if let toml::Value::Table(inner) = value {
            found.extend(take_api_keys(inner, &path));
        }
    }
    for key in taken {
        table.remove(&key);
    }
    found
}

/// Validate `[target]`, noting every independent problem: each inline
/// credential (taken out, so the form does not also call it unknown),
/// `client` beside a provider, then the form's own problems.
///
/// # Errors
/// The first problem, carrying the others (see [`LoadError::all`]).
pub(super) fn load_target(
    value: Option<&toml::Value>,
    suite_dir: &Path,
    root: &Path,
) -> Result<TargetSpec, LoadError> {
    const AT: Option<&str> = Some("[target]");
    let table = match value {
        None => {
            return Err(err(
                LoadErrorKind::Missing,
                None,
                Some("target"),
                "no [target] table, and every suite needs one: it says what system the cases \
                 are asked of",
            ))
        }
        Some(toml::Value::Table(t)) => t,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                None,
                Some("target"),
                &format!("[target] is {}, not a table", toml_type(other)),
            ))
        }
    };
    let mut problems = Vec::new();
    let mut table = table.clone();
    for path in take_api_keys(&mut table, "") {
        problems.push(err(
            LoadErrorKind::Credential,
            AT,
            Some(&path),
            &format!(
                "`{path}` is a credential, and a suite file gets committed. Leave it out: a \
                 provider's key comes from its environment variable, and a header takes a secret \
                 as ${{NAME}} from the environment"
            ),
        ));
    }
    let forms = "there are two forms, \"http\" (a service you run) and \"provider\" (a hosted \
                 model). A target that is a function is code, and needs a suite.py";
    let form = match table.get("type") {
        None => Err(err(
            LoadErrorKind::Missing,
            AT,
            Some("type"),
            &format!("no `type`, and {forms}"),
        )),
        Some(toml::Value::String(t)) if t == "http" => http_target(&table).map(TargetSpec::Http),
        Some(toml::Value::String(t)) if t == "provider" => {
            if table.remove("client").is_some() {
                problems.push(err(
                    LoadErrorKind::PythonOnly,
                    AT,
                    Some("client"),
                    "`client` is an SDK object, which a data file cannot hold: a provider target \
                     builds its own client from the environment. Injecting one needs a suite.py",
                ));
            }
            provider_target(&table, suite_dir, root).map(TargetSpec::Provider)
        }
        Some(toml::Value::String(t)) => Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("type"),
            &format!("`type` is '{t}', and {forms}"),
        )),
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("type"),
            &format!("`type` is {}, and {forms}", toml_type(other)),
        )),
    };
    match (form, LoadError::all(problems)) {
        (Ok(spec), None) => Ok(spec),
        (Ok(_), Some(error)) => Err(error),
        (Err(error), None) => Err(error),
        (Err(error), Some(first)) => Err(LoadError::all(vec![first, error])
            .unwrap_or_else(|| unreachable!("two problems make one error"))),
    }
}
