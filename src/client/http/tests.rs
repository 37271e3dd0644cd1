//! Tests for the HTTP target against a loopback server on 127.0.0.1:0
//! (tiny_http), one thread per request so sleeping answers overlap.

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::*;

/// What the loopback server answers.
struct Reply {
    status: u16,
    body: Vec<u8>,
    headers: Vec<(String, String)>,
    sleep_ms: u64,
}

fn reply(status: u16, body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status,
        body: body.into(),
        headers: Vec::new(),
        sleep_ms: 0,
    }
}

fn redirect(status: u16, to: &str) -> Reply {
    Reply {
        headers: vec![("Location".to_string(), to.to_string())],
        ..reply(status, "")
    }
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: String,
}

type Handler = dyn Fn(&Seen, usize) -> Reply + Send + Sync;

struct Loopback {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    server: Arc<tiny_http::Server>,
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

impl Loopback {
    fn start(handler: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static) -> Loopback {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind loopback"));
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .expect("an IP listener");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let counter = Arc::new(AtomicUsize::new(0));
        let (srv, log) = (Arc::clone(&server), Arc::clone(&seen));
        thread::spawn(move || {
            for mut request in srv.incoming_requests() {
                let (handler, log, counter) =
                    (Arc::clone(&handler), Arc::clone(&log), Arc::clone(&counter));
                thread::spawn(move || {
                    let mut body = String::new();
                    let _ = request.as_reader().read_to_string(&mut body);
                    let seen = Seen {
                        method: request.method().to_string(),
                        url: request.url().to_string(),
                        headers: request
                            .headers()
                            .iter()
                            .map(|h| (h.field.to_string(), h.value.to_string()))
                            .collect(),
                        body,
                    };
                    let nth = counter.fetch_add(1, Ordering::SeqCst);
                    let answer = handler(&seen, nth);
                    if let Ok(mut l) = log.lock() {
                        l.push(seen);
                    }
                    thread::sleep(Duration::from_millis(answer.sleep_ms));
                    let mut response =
                        tiny_http::Response::from_data(answer.body).with_status_code(answer.status);
                    for (k, v) in &answer.headers {
                        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
                            response = response.with_header(h);
                        }
                    }
                    let _ = request.respond(response);
                });
            }
        });
        Loopback { port, seen, server }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// The golden stub's answer shape.
fn stub_answer(answer: Value, model: &str) -> Vec<u8> {
    json!({
        "data": {"answer": answer},
        "usage": {"cost_usd": 0.001, "elapsed_ms": 5},
        "config": {"provider": "stub", "model": model, "temperature": 0.0},
    })
    .to_string()
    .into_bytes()
}

/// A port nothing listens on (bound, then released).
fn dead_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().map(|a| a.port()).expect("addr");
    drop(listener);
    port
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn spec(url: &str) -> HttpTargetSpec {
    HttpTargetSpec {
        url: url.to_string(),
        output_path: "data.answer".to_string(),
        body: obj(json!({"id": "case.id", "question": "case.vars.question"})),
        cost_path: Some("usage.cost_usd".to_string()),
        latency_from_response: Some("usage.elapsed_ms".to_string()),
        config_path: Some("config".to_string()),
        headers: Vec::new(),
        timeout_s: 5.0,
    }
}

fn case(id: &str) -> Case {
    Case {
        id: id.to_string(),
        vars: obj(json!({"question": "Où est ma commande? 😀"})),
        ..Case::default()
    }
}

fn target(spec: HttpTargetSpec) -> HttpTarget {
    HttpTarget::new(spec, Vec::new()).expect("a host")
}

#[test]
fn a_good_answer_is_read_by_its_paths() {
    let server = Loopback::start(|_, _| {
        reply(
            200,
            stub_answer(json!("Order 4821 ships Thursday."), "stub-1"),
        )
    });
    let mut s = spec(&server.url("/answer"));
    s.body = obj(
        json!({"z": "case.id", "a": {"y": "case.vars.question", "b": 1, "lit": "plain"}, "arr": ["case.id"]}),
    );
    let t = target(s);
    let got = t.call(&case("c-é")).expect("answered");
    let sent = r#"{"a": {"b": 1, "lit": "plain", "y": "O\u00f9 est ma commande? \ud83d\ude00"}, "arr": ["case.id"], "z": "c-\u00e9"}"#;
    assert_eq!(got.input, sent);
    assert_eq!(got.output, json!("Order 4821 ships Thursday."));
    assert_eq!(got.cost_usd, Some(0.001));
    assert_eq!(got.latency_ms, 5.0);
    let config = obj(json!({"provider": "stub", "model": "stub-1", "temperature": 0.0}));
    assert_eq!(got.config, Some(config.clone()));
    assert_eq!(t.target_config(), obj(json!({"values": config})));
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].url, "/answer");
    assert_eq!(seen[0].body, sent, "the bytes sent are the recorded input");
    assert!(seen[0]
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("content-type") && v == "application/json"));
}

#[test]
fn optional_paths_absent_mean_nothing_read_and_wall_time() {
    let server = Loopback::start(|_, _| Reply {
        sleep_ms: 60,
        ..reply(200, stub_answer(json!({"k": [1, 2]}), "stub-1"))
    });
    let mut s = spec(&server.url("/"));
    s.cost_path = None;
    s.latency_from_response = None;
    s.config_path = None;
    let t = target(s);
    let got = t.call(&case("c1")).expect("answered");
    assert_eq!(got.output, json!({"k": [1, 2]}));
    assert_eq!(got.cost_usd, None);
    assert_eq!(got.config, None);
    assert!(
        got.latency_ms >= 60.0 && got.latency_ms < 5000.0,
        "{}",
        got.latency_ms
    );
    assert_eq!(t.target_config(), Map::new(), "absent is not a change");
}

#[test]
fn user_headers_follow_content_type_and_may_replace_it() {
    let server = Loopback::start(|_, _| reply(200, stub_answer(json!("a"), "stub-1")));
    let headers = vec![
        (
            "content-type".to_string(),
            "application/vnd+json".to_string(),
        ),
        ("X-Api-Token".to_string(), "tok-123".to_string()),
    ];
    let t = HttpTarget::new(spec(&server.url("/")), headers).expect("a host");
    t.call(&case("c1")).expect("answered");
    let seen = server.seen();
    let types: Vec<&str> = seen[0]
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(types, vec!["application/vnd+json"]);
    assert!(seen[0]
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("X-Api-Token") && v == "tok-123"));
    let debug = format!("{t:?}");
    assert!(
        !debug.contains("tok-123"),
        "Debug shows header names only: {debug}"
    );
    assert!(debug.contains("X-Api-Token"));
}

#[test]
fn every_failure_is_one_line_naming_host_and_port() {
    let server = Loopback::start(|seen, _| match seen.url.as_str() {
        "/500" => reply(500, stub_answer(json!("x"), "stub-1")),
        "/404" => reply(404, "nope"),
        "/html" => reply(200, "<html>gateway</html>"),
        "/long" => reply(200, format!("{}é'\"", "x".repeat(119))),
        "/empty" => reply(200, ""),
        "/bad-utf8" => reply(200, b"\xff{}".to_vec()),
        "/cut-utf8" => reply(200, b"{\"a\": \"\xe2\x82".to_vec()),
        "/no-path" => reply(
            200,
            r#"{"data": {}, "usage": {"cost_usd": 0.001, "elapsed_ms": 5}}"#,
        ),
        "/int" => reply(200, r#"{"data": {"answer": 3}}"#),
        "/cost-bool" => reply(
            200,
            r#"{"data": {"answer": "a"}, "usage": {"cost_usd": true, "elapsed_ms": 5}}"#,
        ),
        "/latency-text" => reply(
            200,
            r#"{"data": {"answer": "a"}, "usage": {"cost_usd": 1, "elapsed_ms": "5"}}"#,
        ),
        "/config-extra" => reply(
            200,
            r#"{"data": {"answer": "a"}, "usage": {"cost_usd": 1, "elapsed_ms": 5}, "config": {"provider": "p", "model": "m", "account": "acme"}}"#,
        ),
        "/loop" => redirect(302, "/loop"),
        "/307" => redirect(307, "/ok"),
        "/3xx-nowhere" => reply(302, ""),
        "/sleep" => Reply {
            sleep_ms: 1500,
            ..reply(200, stub_answer(json!("late"), "stub-1"))
        },
        _ => reply(200, stub_answer(json!("ok"), "stub-1")),
    });
    let host = format!("127.0.0.1:{}", server.port);
    let table: Vec<(&str, String)> = vec![
        ("/500", format!("{host} could not be called: HTTP Error 500: Internal Server Error")),
        ("/404", format!("{host} could not be called: HTTP Error 404: Not Found")),
        ("/html", format!("{host} answered something that is not JSON: '<html>gateway</html>'")),
        ("/long", format!("{host} answered something that is not JSON: '{}é'", "x".repeat(119))),
        ("/empty", format!("{host} answered something that is not JSON: ''")),
        ("/bad-utf8", format!("{host} could not be called: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")),
        ("/cut-utf8", format!("{host} could not be called: 'utf-8' codec can't decode bytes in position 7-8: unexpected end of data")),
        ("/no-path", "cannot read 'data.answer': no 'answer' in nothing".to_string()),
        ("/int", "'data.answer' holds a int, which is not an Output".to_string()),
        ("/cost-bool", "'usage.cost_usd' holds True, which is not a number".to_string()),
        ("/latency-text", "'usage.elapsed_ms' holds '5', which is not a number".to_string()),
        ("/config-extra", "'config' declares account, which is not part of the configuration contract".to_string()),
        ("/loop", format!("{host} could not be called: HTTP Error 302: The HTTP server returned a redirect error that would lead to an infinite loop. The last 30x error message was: Found")),
        ("/307", format!("{host} could not be called: HTTP Error 307: Temporary Redirect")),
        ("/3xx-nowhere", format!("{host} could not be called: HTTP Error 302: Found")),
        ("/sleep", format!("{host} could not be called: timed out")),
    ];
    for (path, want) in table {
        let mut s = spec(&server.url(path));
        // Only the sleeping path is meant to time out; the others get a
        // timeout a loaded CI machine cannot reach.
        s.timeout_s = if path == "/sleep" { 0.5 } else { 10.0 };
        let got = target(s).call(&case("c1")).expect_err(path);
        assert!(got.starts_with(&want), "{path}: {got}");
        assert!(!got.contains('\n'), "{path}: one line: {got}");
        assert!(!got.contains("http://"), "{path}: never the URL: {got}");
    }
}

#[test]
fn a_see_other_redirect_is_followed_as_a_get() {
    let server = Loopback::start(|seen, _| match seen.url.as_str() {
        "/old" => redirect(303, "/new"),
        _ => reply(200, stub_answer(json!("moved"), "stub-1")),
    });
    let got = target(spec(&server.url("/old")))
        .call(&case("c1"))
        .expect("followed");
    assert_eq!(got.output, json!("moved"));
    let methods: Vec<(String, String)> = server
        .seen()
        .into_iter()
        .map(|s| (s.method, s.url))
        .collect();
    assert_eq!(
        methods,
        vec![
            ("POST".into(), "/old".into()),
            ("GET".into(), "/new".into())
        ]
    );
}

#[test]
fn a_case_without_a_body_key_errors_before_any_call() {
    let server = Loopback::start(|_, _| reply(200, stub_answer(json!("a"), "stub-1")));
    let t = target(spec(&server.url("/")));
    let bare = Case {
        id: "c9".to_string(),
        ..Case::default()
    };
    assert_eq!(
        t.call(&bare),
        Err("case 'c9' has no vars['question'], which the body asks for as 'case.vars.question'. It has: nothing".to_string())
    );
    assert!(server.seen().is_empty());
}

#[test]
fn a_configuration_change_part_way_errors_that_case_and_keeps_the_first() {
    let server = Loopback::start(|_, nth| {
        let model = if nth == 0 { "stub-1" } else { "stub-2" };
        reply(200, stub_answer(json!("a"), model))
    });
    let t = target(spec(&server.url("/")));
    t.call(&case("c1")).expect("first answer");
    let got = t.call(&case("c2")).expect_err("second answer moved");
    assert_eq!(
        got,
        format!(
            "127.0.0.1:{} answered under a different configuration part way through the run \
             (model: 'stub-1' then 'stub-2'). One run measures one system, so there is no single \
             configuration to record: pin the application's model and parameters for the run, or \
             evaluate each set-up as its own run",
            server.port
        )
    );
    assert_eq!(
        t.config(),
        obj(json!({"provider": "stub", "model": "stub-1", "temperature": 0.0}))
    );
}

#[test]
fn nothing_listening_refuses_and_names_host_and_port_only() {
    let port = dead_port();
    let refused = format!(
        "127.0.0.1:{port} could not be called: <urlopen error [Errno 111] Connection refused>"
    );
    let t = target(spec(&format!("http://user:secret@127.0.0.1:{port}/x")));
    let got = t.call(&case("c1")).expect_err("refused");
    assert_eq!(got, refused);
    let pre = t.preflight().expect_err("nothing answered");
    assert_eq!(
        pre,
        format!(
            "connection refused at 127.0.0.1:{port}: nothing is listening there. Every case \
             would fail the same way, so the run stops before the first one — start the \
             application, or point the target at it"
        )
    );
    for text in [&got, &pre] {
        assert!(!text.contains("secret") && !text.contains("user"), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
}

#[test]
fn userinfo_never_reaches_a_message_from_a_live_endpoint() {
    let server = Loopback::start(|_, _| reply(503, "busy"));
    let url = format!("http://user:s3cr3t-pw@127.0.0.1:{}/x", server.port);
    let t = target(spec(&url));
    let got = t.call(&case("c1")).expect_err("503");
    assert_eq!(
        got,
        format!(
            "127.0.0.1:{} could not be called: HTTP Error 503: Service Unavailable",
            server.port
        )
    );
    assert!(!format!("{t:?}").contains("s3cr3t-pw"));
    let auth = server.seen()[0]
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("authorization") && v.starts_with("Basic "));
    assert!(auth, "userinfo is sent as Basic auth");
}

#[test]
fn a_header_value_is_never_repeated_in_an_error() {
    let server = Loopback::start(|_, _| reply(200, stub_answer(json!("a"), "stub-1")));
    let headers = vec![(
        "Authorization".to_string(),
        "Bearer sk-live\nX: y".to_string(),
    )];
    let t = HttpTarget::new(spec(&server.url("/")), headers).expect("a host");
    let got = t.call(&case("c1")).expect_err("bad header");
    assert!(
        got.starts_with(&format!("127.0.0.1:{} could not be called: ", server.port)),
        "{got}"
    );
    assert!(!got.contains("sk-live"), "{got}");
}

#[test]
fn preflight_counts_any_status_as_listening() {
    let server = Loopback::start(|seen, _| match seen.method.as_str() {
        "HEAD" => reply(405, ""),
        _ => reply(200, stub_answer(json!("a"), "stub-1")),
    });
    let t = target(spec(&server.url("/answer")));
    assert_eq!(t.preflight(), Ok(()));
    assert_eq!(server.seen()[0].method, "HEAD");
}

#[test]
fn an_answer_over_the_cap_is_refused() {
    let big = vec![b' '; (MAX_ANSWER_BYTES + 1) as usize];
    let server = Loopback::start(move |_, _| reply(200, big.clone()));
    let got = target(spec(&server.url("/")))
        .call(&case("c1"))
        .expect_err("too big");
    assert_eq!(
        got,
        format!("127.0.0.1:{} could not be called: the answer is larger than 16 MiB, the most digline reads", server.port)
    );
}

#[test]
fn a_url_without_a_host_is_refused_without_repeating_it() {
    for url in [
        "http:///x",
        "http://u:sk-SECRET@h:abc/",
        "not a url sk-SECRET",
    ] {
        let got = HttpTarget::new(spec(url), Vec::new()).expect_err("no host");
        assert!(got.starts_with("url names no host."), "{got}");
        assert!(!got.contains("SECRET"));
    }
}

#[test]
fn locations_resolve_against_the_answering_url() {
    let table = [
        ("http://h:1/a/b?q=1", "/c", "http://h:1/c"),
        ("http://h:1/a/b", "c", "http://h:1/a/c"),
        ("http://h:1", "c", "http://h:1/c"),
        ("http://h:1/a/b", "?x=2", "http://h:1/a/b?x=2"),
        ("http://h:1/a", "//g:2/z", "http://g:2/z"),
        ("http://h:1/a", "https://g/z", "https://g/z"),
        ("http://h:1/a/b/c", "../d", "http://h:1/a/d"),
        ("http://h:1/a/b", "./c/./d", "http://h:1/a/c/d"),
        ("http://h:1/a", "", "http://h:1/a"),
    ];
    for (base, location, want) in table {
        assert_eq!(join_location(base, location), want, "{base} + {location}");
    }
    assert_eq!(origin("HTTP://User:p@H:1/x?y"), "http://user:p@h:1");
    assert_eq!(userinfo_parts("http://user:pw@h/x"), vec!["pw", "user"]);
    assert_eq!(userinfo_parts("http://token@h/x"), vec!["token"]);
    assert!(userinfo_parts("http://h/x@y").is_empty());
    // The Basic form is a secret with a user name alone too (issue 25).
    assert_eq!(
        userinfo_secrets("http://Northwind@h/x"),
        vec!["Northwind".to_string(), basic_credential("Northwind", "")]
    );
    assert_eq!(
        userinfo_secrets("http://user:pw@h/x"),
        vec![
            "pw".to_string(),
            "user".to_string(),
            basic_credential("user", "pw")
        ]
    );
    assert!(userinfo_secrets("http://h/x").is_empty());
}

#[test]
fn utf8_errors_read_like_python() {
    let table: &[(&[u8], &str)] = &[
        (
            b"\xff",
            "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
        ),
        (
            b"ab\x80",
            "'utf-8' codec can't decode byte 0x80 in position 2: invalid start byte",
        ),
        (
            b"\xe9abc",
            "'utf-8' codec can't decode byte 0xe9 in position 0: invalid continuation byte",
        ),
        (
            b"\xe2\x82x",
            "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte",
        ),
        (
            b"a\xe2",
            "'utf-8' codec can't decode byte 0xe2 in position 1: unexpected end of data",
        ),
        (
            b"a\xf0\x9f\x98",
            "'utf-8' codec can't decode bytes in position 1-3: unexpected end of data",
        ),
    ];
    for (bytes, want) in table {
        let e = std::str::from_utf8(bytes).expect_err("not UTF-8");
        assert_eq!(utf8_said(bytes, &e), *want, "{bytes:?}");
    }
}

#[test]
fn an_odd_timeout_never_panics() {
    let server = Loopback::start(|_, _| reply(200, stub_answer(json!("a"), "stub-1")));
    let host = format!("127.0.0.1:{}", server.port);
    for timeout_s in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
        let mut s = spec(&server.url("/"));
        s.timeout_s = timeout_s;
        match target(s).call(&case("c1")) {
            Ok(r) => assert_eq!(r.output, json!("a"), "{timeout_s}"),
            Err(e) => assert_eq!(
                e,
                format!("{host} could not be called: timed out"),
                "{timeout_s}"
            ),
        }
    }
}

#[test]
fn suite_headers_are_not_sent_to_another_origin() {
    let elsewhere = Loopback::start(|_, _| reply(200, stub_answer(json!("there"), "stub-1")));
    let to = elsewhere.url("/landing");
    let home = Loopback::start(move |_, _| redirect(302, &to));
    let headers = vec![("X-Api-Token".to_string(), "tok-123".to_string())];
    let t = HttpTarget::new(spec(&home.url("/")), headers).expect("a host");
    assert_eq!(t.call(&case("c1")).map(|r| r.output), Ok(json!("there")));
    let has_token = |seen: &Seen| seen.headers.iter().any(|(_, v)| v == "tok-123");
    assert!(
        has_token(&home.seen()[0]),
        "the suite's own endpoint gets its headers"
    );
    let away = elsewhere.seen();
    assert_eq!(away[0].method, "GET");
    assert!(!has_token(&away[0]), "another origin does not");
}
