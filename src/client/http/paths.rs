//! Reading an answer: dotted paths, numbers, the output, the reported
//! configuration, and the host:port an endpoint is spoken of by.
//!
//! Every error here is one of 0.10.0's case-error sentences, word for word,
//! because they are recorded as verdict reasons in run documents.

use crate::core::python::eq::python_eq;
use serde_json::{Map, Value};

use crate::core::python::repr::{repr_str, repr_value, str_value, type_name};

/// `data.answer.text` out of a decoded answer: split on `.`, each step a key
/// of an object (no array indices).
///
/// # Errors
/// `cannot read 'data.x': no 'x' in a, b` (sorted keys, `nothing` when
/// empty), or `cannot read 'data.x.y': 'y' was looked for in a str, not an
/// object`.
pub fn dig<'a>(payload: &'a Value, path: &str) -> Result<&'a Value, String> {
    let mut current = payload;
    for step in path.split('.') {
        let Value::Object(entries) = current else {
            return Err(format!(
                "cannot read {}: {} was looked for in a {}, not an object",
                repr_str(path),
                repr_str(step),
                type_name(current)
            ));
        };
        match entries.get(step) {
            Some(next) => current = next,
            None => {
                let keys: Vec<&str> = entries.keys().map(String::as_str).collect();
                let available = if keys.is_empty() {
                    "nothing".to_string()
                } else {
                    keys.join(", ")
                };
                return Err(format!(
                    "cannot read {}: no {} in {available}",
                    repr_str(path),
                    repr_str(step)
                ));
            }
        }
    }
    Ok(current)
}

/// The answer at `output_path`: a string, an object or an array.
///
/// # Errors
/// `'data.answer' holds a int, which is not an Output` for a number, a
/// boolean or `null`.
pub fn as_output(value: &Value, path: &str) -> Result<Value, String> {
    match value {
        Value::String(_) | Value::Object(_) | Value::Array(_) => Ok(value.clone()),
        other => Err(format!(
            "{} holds a {}, which is not an Output",
            repr_str(path),
            type_name(other)
        )),
    }
}

/// A number read at `path` (cost in USD, latency in ms), as a float.
///
/// # Errors
/// `'usage.cost_usd' holds True, which is not a number` for a boolean or
/// any non-number.
pub fn as_number(value: &Value, path: &str) -> Result<f64, String> {
    match value.as_f64() {
        Some(x) if value.is_number() => Ok(x),
        _ => Err(format!(
            "{} holds {}, which is not a number",
            repr_str(path),
            repr_value(value)
        )),
    }
}

/// The call's price at `path`: a number of USD, finite and at least 0.
///
/// # Errors
/// Not a number, or a negative or non-finite one: the call is an error,
/// never a negative spend.
pub fn as_price(value: &Value, path: &str) -> Result<f64, String> {
    let usd = as_number(value, path)?;
    if usd.is_finite() && usd >= 0.0 {
        Ok(usd)
    } else {
        Err(format!(
            "{} holds {}, which is not a price: a call's cost is a number of USD, at least 0",
            repr_str(path),
            repr_value(value)
        ))
    }
}

/// The keys a reported configuration may hold (ADR 0005 §1), sorted.
pub const CONFIG_KEYS: [&str; 11] = [
    "base_url",
    "json_mode",
    "max_tokens",
    "model",
    "provider",
    "region",
    "response_format",
    "seed",
    "temperature",
    "top_k",
    "top_p",
];

/// A configuration the application reported at `where_` (the `config_path`),
/// checked before it is believed: a flat object of scalars with only
/// [`CONFIG_KEYS`], non-empty string `provider` and `model`; `null` values
/// are dropped (not sent); `base_url` is reduced to `host[:port]` (dropped
/// when it has no host).
///
/// # Errors
/// 0.10.0's sentences: not an object, keys outside the contract (named,
/// sorted), a non-scalar value, no `provider`/`model`.
pub fn declared_config(found: &Value, where_: &str) -> Result<Map<String, Value>, String> {
    let place = repr_str(where_);
    let Value::Object(entries) = found else {
        return Err(format!(
            "{place} holds a {}, not an object: a configuration is a flat object of scalars, so \
             that a comparison can render it field by field",
            type_name(found)
        ));
    };
    let unknown: Vec<&str> = entries
        .keys()
        .map(String::as_str)
        .filter(|k| !CONFIG_KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "{place} declares {}, which is not part of the configuration contract (ADR 0005 §1). \
             Allowed: {}. What is outside the contract stays outside the record — put it in a \
             file and declare it in `Suite.artifacts`, where it is diffed instead of guessed at",
            unknown.join(", "),
            CONFIG_KEYS.join(", ")
        ));
    }
    for (key, value) in entries {
        if matches!(value, Value::Array(_) | Value::Object(_)) {
            return Err(format!(
                "{place} records {} as a {}, which is not a scalar: a configuration is diffed \
                 field by field and rendered by value, and a nested one has no such sentence",
                repr_str(key),
                type_name(value)
            ));
        }
    }
    for key in ["provider", "model"] {
        match entries.get(key) {
            Some(Value::String(s)) if !s.is_empty() => {}
            _ => {
                return Err(format!(
                    "{place} gives no {key}: a configuration that cannot say who answered, and \
                     as what, names no system. Report it as a non-empty string, or leave the \
                     whole object out"
                ))
            }
        }
    }
    let mut declared: Map<String, Value> = entries
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(base) = declared.remove("base_url") {
        if let Some(host) = endpoint_host(&str_value(&base)) {
            declared.insert("base_url".to_string(), Value::String(host));
        }
    }
    Ok(declared)
}

/// Python's `==` between two optional configuration values.
fn py_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => python_eq(x, y),
        _ => false,
    }
}

/// Hold a later answer's configuration to the first one's.
///
/// # Errors
/// 0.10.0's sentence naming the endpoint by `spoken` (host:port) and every
/// key that moved, sorted: `127.0.0.1:8731 answered under a different
/// configuration part way through the run (model: 'stub-1' then 'stub-2').
/// …`.
pub fn config_unchanged(
    spoken: &str,
    first: &Map<String, Value>,
    now: &Map<String, Value>,
) -> Result<(), String> {
    let mut keys: Vec<&String> = first.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    let changes: Vec<String> = keys
        .into_iter()
        .filter(|k| !py_eq(first.get(*k), now.get(*k)))
        .map(|k| {
            let show = |v: Option<&Value>| v.map_or_else(|| "None".to_string(), repr_value);
            format!("{k}: {} then {}", show(first.get(k)), show(now.get(k)))
        })
        .collect();
    if changes.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{spoken} answered under a different configuration part way through the run ({}). One \
         run measures one system, so there is no single configuration to record: pin the \
         application's model and parameters for the run, or evaluate each set-up as its own run",
        changes.join(", ")
    ))
}

/// The `host[:port]` an endpoint is spoken of by: never the scheme, the
/// path or the userinfo. The host is lower-cased, an IPv6 literal loses its
/// brackets (`::1:8080`), port 0 is not shown. Accepts a bare `host:port`.
///
/// `None` when there is no host, the host holds characters a host cannot
/// (a space), or the port is not a number in 0–65535 — the value is then
/// not repeated anywhere, since it may hold a mistyped secret.
pub fn endpoint_host(url: &str) -> Option<String> {
    let rest = match url.find("//") {
        Some(i) => &url[i + 2..],
        None => url,
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(after) = hostport.strip_prefix('[') {
        let (inside, tail) = after.split_once(']')?;
        (inside, tail.strip_prefix(':'))
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    let port: Option<u32> = match port {
        None | Some("") => None,
        Some(p) if p.bytes().all(|b| b.is_ascii_digit()) && p.len() <= 5 => {
            let n: u32 = p.parse().ok()?;
            if n > 65535 {
                return None;
            }
            Some(n)
        }
        Some(_) => return None,
    };
    let host = host.to_lowercase();
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-[]:%".contains(c));
    if !host_ok {
        return None;
    }
    Some(match port {
        Some(p) if p != 0 => format!("{host}:{p}"),
        _ => host,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer() -> Value {
        json!({
            "data": {"answer": "hi", "n": 3, "f": 1.5, "l": [1], "b": true, "z": null, "e": {}},
            "usage": {"cost_usd": 0.001, "c": true, "s": "x", "n": 2},
        })
    }

    #[test]
    fn dig_reads_and_explains() {
        let a = answer();
        assert_eq!(dig(&a, "data.answer"), Ok(&json!("hi")));
        assert_eq!(dig(&a, "usage.n"), Ok(&json!(2)));
        let bad = [
            (
                "data.x",
                "cannot read 'data.x': no 'x' in answer, b, e, f, l, n, z",
            ),
            ("data.e.x", "cannot read 'data.e.x': no 'x' in nothing"),
            (
                "data.answer.x",
                "cannot read 'data.answer.x': 'x' was looked for in a str, not an object",
            ),
            (
                "data.l.0",
                "cannot read 'data.l.0': '0' was looked for in a list, not an object",
            ),
            (
                "data.z.q",
                "cannot read 'data.z.q': 'q' was looked for in a NoneType, not an object",
            ),
            ("", "cannot read '': no '' in data, usage"),
        ];
        for (path, want) in bad {
            assert_eq!(dig(&a, path), Err(want.to_string()), "{path}");
        }
    }

    #[test]
    fn output_is_text_object_or_array() {
        for ok in [json!("t"), json!({"a": 1}), json!([]), json!([1])] {
            assert_eq!(as_output(&ok, "p"), Ok(ok.clone()));
        }
        let bad = [
            (json!(3), "'p' holds a int, which is not an Output"),
            (json!(1.5), "'p' holds a float, which is not an Output"),
            (json!(false), "'p' holds a bool, which is not an Output"),
            (json!(null), "'p' holds a NoneType, which is not an Output"),
        ];
        for (v, want) in bad {
            assert_eq!(as_output(&v, "p"), Err(want.to_string()));
        }
    }

    #[test]
    fn numbers_refuse_bool_and_text() {
        assert_eq!(as_number(&json!(2), "c"), Ok(2.0));
        assert_eq!(as_number(&json!(1e-05), "c"), Ok(1e-05));
        let bad = [
            (json!(true), "'c' holds True, which is not a number"),
            (json!("0.1"), "'c' holds '0.1', which is not a number"),
            (json!(null), "'c' holds None, which is not a number"),
            (json!({"a": 1}), "'c' holds {'a': 1}, which is not a number"),
        ];
        for (v, want) in bad {
            assert_eq!(as_number(&v, "c"), Err(want.to_string()));
        }
    }

    /// A negative price is refused (the call is an error), never recorded
    /// as negative spend.
    #[test]
    fn a_price_is_a_number_of_usd_at_least_0() {
        assert_eq!(as_price(&json!(0), "usage.cost_usd"), Ok(0.0));
        assert_eq!(as_price(&json!(0.002), "usage.cost_usd"), Ok(0.002));
        assert_eq!(
            as_price(&json!(-20), "usage.cost_usd"),
            Err("'usage.cost_usd' holds -20, which is not a price: a call's cost is a number of USD, at least 0".to_string())
        );
        assert!(as_price(&json!(-0.001), "c").is_err());
        assert!(as_price(&json!("1"), "c").is_err());
    }

    #[test]
    fn config_is_checked_and_normalised() {
        let good = [
            (
                json!({"provider": "stub", "model": "m", "temperature": 0.0}),
                json!({"provider": "stub", "model": "m", "temperature": 0.0}),
            ),
            (
                json!({"provider": "p", "model": "m", "seed": null}),
                json!({"provider": "p", "model": "m"}),
            ),
            (
                json!({"provider": "p", "model": "m", "base_url": "https://u:sk@GW.example:8443/v1"}),
                json!({"provider": "p", "model": "m", "base_url": "gw.example:8443"}),
            ),
            (
                json!({"provider": "p", "model": "m", "base_url": "not a url"}),
                json!({"provider": "p", "model": "m"}),
            ),
            (
                json!({"provider": "p", "model": "m", "json_mode": true, "top_k": 5}),
                json!({"provider": "p", "model": "m", "json_mode": true, "top_k": 5}),
            ),
        ];
        for (found, want) in good {
            assert_eq!(
                declared_config(&found, "config"),
                Ok(serde_json::from_value::<Map<String, Value>>(want).unwrap_or_default()),
                "{found}"
            );
        }
        let bad = [
            (json!([1]), "'config' holds a list, not an object: a configuration is a flat object"),
            (json!({"provider": "p", "model": "m", "foo": 1, "bar": 2}), "'config' declares bar, foo, which is not part of the configuration contract (ADR 0005 §1). Allowed: base_url, json_mode, max_tokens, model, provider, region, response_format, seed, temperature, top_k, top_p. What"),
            (json!({"provider": "p", "model": "m", "response_format": {"type": "json"}}), "'config' records 'response_format' as a dict, which is not a scalar"),
            (json!({"model": "m"}), "'config' gives no provider: a configuration that cannot say who answered"),
            (json!({"provider": "p", "model": ""}), "'config' gives no model:"),
            (json!({"provider": "p", "model": 3}), "'config' gives no model:"),
        ];
        for (found, want) in bad {
            let got = declared_config(&found, "config").expect_err("refused");
            assert!(got.starts_with(want), "{found}: {got}");
        }
    }

    #[test]
    fn config_change_names_every_moved_key() {
        let first: Map<String, Value> = serde_json::from_value(
            json!({"provider": "stub", "model": "stub-1", "temperature": 0.0}),
        )
        .unwrap_or_default();
        let same: Map<String, Value> = serde_json::from_value(
            json!({"provider": "stub", "model": "stub-1", "temperature": 0}),
        )
        .unwrap_or_default();
        assert_eq!(config_unchanged("h:1", &first, &same), Ok(()));
        let moved: Map<String, Value> =
            serde_json::from_value(json!({"provider": "stub", "model": "stub-2", "seed": 7}))
                .unwrap_or_default();
        let got = config_unchanged("h:1", &first, &moved).expect_err("moved");
        assert_eq!(
            got,
            "h:1 answered under a different configuration part way through the run (model: \
             'stub-1' then 'stub-2', seed: None then 7, temperature: 0.0 then None). One run \
             measures one system, so there is no single configuration to record: pin the \
             application's model and parameters for the run, or evaluate each set-up as its own run"
        );
        let flag: Map<String, Value> = serde_json::from_value(
            json!({"provider": "stub", "model": "stub-1", "temperature": true}),
        )
        .unwrap_or_default();
        assert!(
            config_unchanged("h:1", &first, &flag).is_err(),
            "0.0 then True moved"
        );
    }

    #[test]
    fn endpoints_are_spoken_of_by_host_and_port() {
        let table = [
            ("http://127.0.0.1:18950/answer", Some("127.0.0.1:18950")),
            (
                "http://user:secret@127.0.0.1:8731/x",
                Some("127.0.0.1:8731"),
            ),
            ("HTTPS://GW.Example/v1?k=1", Some("gw.example")),
            ("http://[::1]:8080/", Some("::1:8080")),
            ("http://host:0/", Some("host")),
            ("127.0.0.1:9", Some("127.0.0.1:9")),
            ("http://host:/", Some("host")),
            ("http://u:p@host:99999/", None),
            ("http://u:p@host:abc/", None),
            ("http:///x", None),
            ("not a url at all sk-SECRET", None),
            ("", None),
        ];
        for (url, want) in table {
            assert_eq!(endpoint_host(url).as_deref(), want, "{url}");
        }
    }
}
