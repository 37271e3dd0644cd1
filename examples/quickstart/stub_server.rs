//! The stub's server: an answers table served on loopback. Shared by the
//! `quickstart-stub` example and the integration tests (`tests/cli/`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Map, Value};

use digline::core::python::dumps::{dumps, Escape, Style};

/// What the stub answers when the table has neither the id nor `"*"`.
const FALLBACK: &str = "Order 4821 ships Thursday. — Northwind Support";

/// Per-id call counters, the table text they were counted against, and
/// that text parsed once (kept while the file's bytes are unchanged).
#[derive(Default)]
struct Counters {
    table: Vec<u8>,
    entries: Arc<Map<String, Value>>,
    parses: usize,
    calls: HashMap<Option<String>, usize>,
}

/// One answer, ready to send.
struct Answer {
    status: u16,
    body: Vec<u8>,
    sleep_ms: u64,
}

/// A running stub: answers until it is dropped.
pub struct Stub {
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    server: Arc<tiny_http::Server>,
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

/// Start answering from the table at `answers` on `127.0.0.1:port`
/// (0 = any free port), each request on its own thread.
///
/// # Errors
/// When the port cannot be bound.
pub fn start(answers: PathBuf, port: u16) -> std::io::Result<Stub> {
    let server = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let port = server.server_addr().to_ip().map_or(port, |a| a.port());
    let server = Arc::new(server);
    let counters = Arc::new(Mutex::new(Counters::default()));
    let answers = Arc::new(answers);
    let listener = Arc::clone(&server);
    thread::spawn(move || {
        for request in listener.incoming_requests() {
            let (counters, answers) = (Arc::clone(&counters), Arc::clone(&answers));
            thread::spawn(move || serve(request, &answers, &counters));
        }
    });
    Ok(Stub { port, server })
}

fn serve(mut request: tiny_http::Request, answers: &PathBuf, counters: &Mutex<Counters>) {
    let answer = match request.method() {
        tiny_http::Method::Post if request.url() == "/reset" => {
            lock(counters).calls.clear();
            empty(200)
        }
        tiny_http::Method::Post => {
            let mut body = Vec::new();
            let _ = request.as_reader().read_to_end(&mut body);
            match std::fs::read(answers) {
                Ok(table) => answer_for(&body, &table, counters),
                Err(e) => {
                    eprintln!("stub: cannot read {}: {e}", answers.display());
                    Answer {
                        status: 500,
                        body: format!("stub: cannot read the answers file: {e}").into_bytes(),
                        sleep_ms: 0,
                    }
                }
            }
        }
        _ => empty(200),
    };
    thread::sleep(Duration::from_millis(answer.sleep_ms));
    let mut response = tiny_http::Response::from_data(answer.body).with_status_code(answer.status);
    if let Ok(header) = tiny_http::Header::from_bytes("Content-Type", "application/json") {
        response = response.with_header(header);
    }
    let _ = request.respond(response);
}

fn empty(status: u16) -> Answer {
    Answer {
        status,
        body: Vec::new(),
        sleep_ms: 0,
    }
}

fn lock(counters: &Mutex<Counters>) -> std::sync::MutexGuard<'_, Counters> {
    counters
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The answer for one request body, from the table text.
fn answer_for(request: &[u8], table: &[u8], counters: &Mutex<Counters>) -> Answer {
    let id = serde_json::from_slice::<Value>(request)
        .ok()
        .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_string));
    let (entries, nth) = {
        let mut counters = lock(counters);
        if counters.table != table || counters.parses == 0 {
            counters.table = table.to_vec();
            counters.entries = Arc::new(serde_json::from_slice(table).unwrap_or_default());
            counters.parses += 1;
            counters.calls.clear();
        }
        let n = counters.calls.entry(id.clone()).or_insert(0);
        *n += 1;
        let n = *n;
        (Arc::clone(&counters.entries), n)
    };
    let entry = id
        .as_deref()
        .and_then(|id| entries.get(id))
        .or_else(|| entries.get("*"))
        .cloned()
        .unwrap_or_else(|| Value::String(FALLBACK.to_string()));
    let spec = match entry {
        Value::Object(spec) => spec,
        other => Map::from_iter([("answer".to_string(), other)]),
    };
    let seeded = spec
        .get("rate")
        .and_then(Value::as_f64)
        .zip(spec.get("seed").and_then(Value::as_u64));
    let answer = if let Some((rate, seed)) = seeded {
        let yes = draw(seed, id.as_deref().unwrap_or(""), nth) < rate;
        Value::String(if yes { "yes" } else { "no" }.to_string())
    } else {
        match spec.get("answers") {
            Some(Value::Array(list)) if !list.is_empty() => list[(nth - 1) % list.len()].clone(),
            _ => spec
                .get("answer")
                .cloned()
                .unwrap_or_else(|| Value::String(String::new())),
        }
    };
    let sleep_ms = spec.get("sleep_ms").and_then(Value::as_u64).unwrap_or(0);
    // One answer of the list may be a status alone (`{"status": 503}`).
    let (answer, status) = match answer {
        Value::Object(one) if one.contains_key("status") => {
            (Value::String(String::new()), one.get("status").cloned())
        }
        other => (other, spec.get("status").cloned()),
    };
    let status = status
        .as_ref()
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok())
        .filter(|s| (100..=999).contains(s))
        .unwrap_or(200);
    let body = match spec.get("raw") {
        Some(Value::String(raw)) => raw.clone().into_bytes(),
        _ => {
            let cost = spec
                .get("cost_usd")
                .cloned()
                .unwrap_or_else(|| serde_json::json!(0.001));
            let model = spec
                .get("model")
                .cloned()
                .unwrap_or_else(|| Value::String("stub-1".to_string()));
            let elapsed = if sleep_ms > 0 { sleep_ms } else { 5 };
            format!(
                "{{\"data\": {{\"answer\": {}}}, \"usage\": {{\"cost_usd\": {}, \"elapsed_ms\": {elapsed}}}, \
                 \"config\": {{\"provider\": \"stub\", \"model\": {}, \"temperature\": 0.0}}}}",
                py(&answer),
                py(&cost),
                py(&model)
            )
            .into_bytes()
        }
    };
    Answer {
        status,
        body,
        sleep_ms,
    }
}

/// The seeded draw of a `{"rate": R, "seed": S}` entry for the `nth` call
/// (from 1) of `id`: a number in [0, 1) from FNV-1a (64-bit) over the
/// seed's and `nth`'s eight little-endian bytes around the id's UTF-8
/// bytes, mixed by SplitMix64's finalizer; its top 53 bits over 2^53.
fn draw(seed: u64, id: &str, nth: usize) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = seed
        .to_le_bytes()
        .into_iter()
        .chain(id.bytes())
        .chain((nth as u64).to_le_bytes());
    for byte in bytes {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    #[allow(clippy::cast_precision_loss)]
    let top = (h >> 11) as f64;
    top / 9_007_199_254_740_992.0
}

/// Python's `json.dumps(v, ensure_ascii=False)` text for one value.
fn py(value: &Value) -> String {
    dumps(
        value,
        Style {
            indent: None,
            item_separator: ", ",
            key_separator: ": ",
            escape: Escape::Utf8,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(id: &str, table: &str, counters: &Mutex<Counters>) -> (u16, String, u64) {
        let request = format!("{{\"id\": \"{id}\"}}");
        let a = answer_for(request.as_bytes(), table.as_bytes(), counters);
        (
            a.status,
            String::from_utf8_lossy(&a.body).into_owned(),
            a.sleep_ms,
        )
    }

    #[test]
    fn answers_follow_the_table() {
        let table = r#"{"*": "dflt — é", "down": {"answer": "x", "status": 500},
            "raw": {"raw": "<html>gateway</html>"},
            "slow": {"answer": {"k": 1}, "cost_usd": 1e-05, "sleep_ms": 20, "model": "stub-2"},
            "flip": {"answers": ["a", "b"]}}"#;
        let c = Mutex::new(Counters::default());
        let table_rows = [
            (
                "other",
                200,
                r#"{"data": {"answer": "dflt — é"}, "usage": {"cost_usd": 0.001, "elapsed_ms": 5}, "config": {"provider": "stub", "model": "stub-1", "temperature": 0.0}}"#,
                0,
            ),
            (
                "down",
                500,
                r#"{"data": {"answer": "x"}, "usage": {"cost_usd": 0.001, "elapsed_ms": 5}, "config": {"provider": "stub", "model": "stub-1", "temperature": 0.0}}"#,
                0,
            ),
            ("raw", 200, "<html>gateway</html>", 0),
            (
                "slow",
                200,
                r#"{"data": {"answer": {"k": 1}}, "usage": {"cost_usd": 1e-05, "elapsed_ms": 20}, "config": {"provider": "stub", "model": "stub-2", "temperature": 0.0}}"#,
                20,
            ),
            ("flip", 200, r#"{"data": {"answer": "a"}"#, 0),
            ("flip", 200, r#"{"data": {"answer": "b"}"#, 0),
            ("flip", 200, r#"{"data": {"answer": "a"}"#, 0),
        ];
        for (id, status, body, sleep) in table_rows {
            let (s, b, t) = ask(id, table, &c);
            assert_eq!((s, t), (status, sleep), "{id}");
            assert!(b.starts_with(body), "{id}: {b}");
        }
        let edited = table.replace("dflt", "new");
        let (_, b, _) = ask("flip", &edited, &c);
        assert!(
            b.starts_with(r#"{"data": {"answer": "a"}"#),
            "an edit restarts the counters: {b}"
        );
    }

    #[test]
    fn the_table_is_parsed_once_while_its_bytes_are_unchanged() {
        let c = Mutex::new(Counters::default());
        let table = r#"{"a": {"answers": ["1", "2", "3"]}}"#;
        for expected in ["1", "2", "3", "1"] {
            let (_, b, _) = ask("a", table, &c);
            assert!(b.contains(&format!("\"answer\": \"{expected}\"")), "{b}");
        }
        assert_eq!(lock(&c).parses, 1);
        let edited = r#"{"a": {"answers": ["x", "y"]}}"#;
        let (_, b, _) = ask("a", edited, &c);
        assert!(b.contains(r#""answer": "x""#), "a new table is read: {b}");
        assert_eq!(lock(&c).parses, 2);
    }

    fn seeded_answers(table: &str, id: &str, calls: usize) -> Vec<bool> {
        let c = Mutex::new(Counters::default());
        (0..calls)
            .map(|_| {
                let (status, b, _) = ask(id, table, &c);
                assert_eq!(status, 200);
                assert!(
                    b.contains(r#""answer": "yes""#) || b.contains(r#""answer": "no""#),
                    "{b}"
                );
                b.contains(r#""answer": "yes""#)
            })
            .collect()
    }

    #[test]
    fn a_seeded_entry_answers_yes_at_its_rate_and_repeats_its_draws() {
        let table = r#"{"c1": {"rate": 0.35, "seed": 17}, "c2": {"rate": 0.35, "seed": 17},
            "c3": {"rate": 0.35, "seed": 18}, "never": {"rate": 0.0, "seed": 1},
            "always": {"rate": 1.0, "seed": 1, "answer": "ignored"}}"#;
        let first = seeded_answers(table, "c1", 10_000);
        let yes = first.iter().filter(|y| **y).count();
        assert!((3_300..=3_700).contains(&yes), "{yes} of 10000 at 0.35");
        assert_eq!(first, seeded_answers(table, "c1", 10_000), "the same draws");
        assert_ne!(first, seeded_answers(table, "c2", 10_000), "another id");
        assert_ne!(first, seeded_answers(table, "c3", 10_000), "another seed");
        assert!(seeded_answers(table, "never", 200).iter().all(|y| !y));
        assert!(seeded_answers(table, "always", 200).iter().all(|y| *y));
        assert!(
            seeded_answers(table, "c1", 50)
                .windows(2)
                .any(|w| w[0] != w[1]),
            "the n-th call draws afresh"
        );
    }

    #[test]
    fn the_seeded_draw_is_fixed_by_seed_id_and_call() {
        let d = draw(17, "case-00001", 1);
        assert!((0.0..1.0).contains(&d));
        assert_eq!(d.to_bits(), draw(17, "case-00001", 1).to_bits());
        assert_ne!(d.to_bits(), draw(17, "case-00001", 2).to_bits());
        assert_ne!(d.to_bits(), draw(18, "case-00001", 1).to_bits());
        assert_ne!(d.to_bits(), draw(17, "case-00002", 1).to_bits());
    }

    #[test]
    fn an_unreadable_table_falls_back() {
        let c = Mutex::new(Counters::default());
        let (s, b, _) = ask("x", "not json", &c);
        assert_eq!(s, 200);
        assert!(b.contains(FALLBACK), "{b}");
    }
}
