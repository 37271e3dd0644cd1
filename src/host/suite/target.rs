//! `[target]`: present, a table, no inline credential anywhere in it, and
//! one of its two forms (`http`, `provider`); the form's own file
//! validates the rest.

use std::path::Path;

use toml::de::{DeTable, DeValue};

use super::errors::{LoadError, LoadErrorKind};
use super::fields::Fields;
use super::http::http_target;
use super::provider::provider_target;
use super::{section, TargetSpec};

/// Take every `api_key` (any case, at any depth) out of `table`; returns
/// the dotted path and the start of each, in file order.
fn take_api_keys(table: &mut DeTable<'_>, prefix: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut taken = Vec::new();
    for (key, value) in table.iter_mut() {
        let path = match prefix {
            "" => key.get_ref().to_string(),
            _ => format!("{prefix}.{}", key.get_ref()),
        };
        if key.get_ref().eq_ignore_ascii_case("api_key") {
            taken.push(key.clone());
            found.push((path, key.span().start));
        } else if let DeValue::Table(inner) = value.get_mut() {
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
    top: &Fields<'_, '_>,
    suite_dir: &Path,
    root: &Path,
) -> Result<TargetSpec, LoadError> {
    let written = section(top, "target", "[target]")?;
    let mut problems = Vec::new();
    let mut table = written.table.clone();
    for (path, at) in take_api_keys(&mut table, "") {
        problems.push(written.refuse(
            LoadErrorKind::Credential,
            Some(&path),
            at,
            &format!(
                "`{path}` is a credential, and a suite file gets committed. Leave it out: a \
                 provider's key comes from its environment variable, and a header takes a secret \
                 as ${{NAME}} from the environment"
            ),
        ));
    }
    let forms = "there are two forms, \"http\" (a service you run) and \"provider\" (a hosted \
                 model). A target that is a function is code, and needs a suite.py";
    let f = Fields {
        table: &table,
        ..written
    };
    let form = match f.optional::<String>("type", forms) {
        Ok(None) => Err(f.refuse(
            LoadErrorKind::Missing,
            Some("type"),
            f.at,
            &format!("no `type`, and {forms}"),
        )),
        Ok(Some(t)) if t == "http" => http_target(&f).map(TargetSpec::Http),
        Ok(Some(t)) if t == "provider" => {
            if f.get("client").is_some() {
                problems.push(f.refuse(
                    LoadErrorKind::PythonOnly,
                    Some("client"),
                    f.at_key("client"),
                    "`client` is an SDK object, which a data file cannot hold: a provider target \
                     builds its own client from the environment. Injecting one needs a suite.py",
                ));
                table.remove("client");
            }
            let f = Fields {
                table: &table,
                ..written
            };
            provider_target(&f, suite_dir, root).map(TargetSpec::Provider)
        }
        Ok(Some(t)) => Err(f.invalid("type", &format!("`type` is '{t}', and {forms}"))),
        Err(e) => Err(e),
    };
    match (form, LoadError::all(problems)) {
        (Ok(spec), None) => Ok(spec),
        (Ok(_), Some(error)) => Err(error),
        (Err(error), None) => Err(error),
        (Err(error), Some(first)) => Err(LoadError::all(vec![first, error])
            .unwrap_or_else(|| unreachable!("two problems make one error"))),
    }
}
