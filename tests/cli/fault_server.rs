//! A loopback server that misbehaves on purpose, on raw TCP: the faults a
//! system under test shows in production (slow, hanging, reset, 429, 5xx,
//! not JSON, huge, wrong type, redirect loop, gone after the preflight),
//! chosen per case id and call, with every call counted per id.
//!
//! Every socket has a read timeout and every loop a bound, so a test that
//! goes wrong ends instead of hanging.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// What the server does with one POST.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// A good answer after `delay_ms`.
    Answer { delay_ms: u64 },
    /// Headers at once, then the body one byte every 100 ms (for 5 s at most).
    Slow,
    /// Reads the request and says nothing (for 5 s at most).
    Hang,
    /// Promises 100 000 bytes, sends 10, then resets the connection.
    ResetMidBody,
    /// 429, with this `Retry-After` (seconds) if any.
    TooMany(Option<u32>),
    /// This status with a JSON body.
    Status(u16),
    /// 200 with a body that is not JSON.
    InvalidJson,
    /// 200 promising (and sending, while the client reads) 50 MB.
    Huge,
    /// 200 `text/html` with an HTML page.
    WrongType,
    /// 302 to itself, forever.
    RedirectLoop,
    /// 200 with this JSON body (an error reported in a success, a null answer).
    Body(&'static str),
}

type Plan = dyn Fn(&str, usize) -> Fault + Send + Sync;

/// A running fault server; stops listening when dropped.
pub struct FaultServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    calls: Arc<Mutex<HashMap<String, usize>>>,
    stop: Arc<AtomicBool>,
}

/// The answer every good call gets: passes `contains "Northwind"`.
pub const GOOD: &str = "Order 4821 ships Thursday. — Northwind Support";

impl FaultServer {
    /// Serve `plan(case_id, nth_call_for_that_id)` (nth from 1). HEAD (the
    /// preflight) always answers 200; with `close_after_head` the server
    /// stops listening right after it, so every case finds the port closed.
    pub fn start(
        plan: impl Fn(&str, usize) -> Fault + Send + Sync + 'static,
        close_after_head: bool,
    ) -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let calls = Arc::new(Mutex::new(HashMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let plan: Arc<Plan> = Arc::new(plan);
        let (c, s) = (Arc::clone(&calls), Arc::clone(&stop));
        thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                        let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
                        if close_after_head {
                            // Answer on this thread, then drop the listener.
                            serve(stream, port, &*plan, &c);
                            break;
                        }
                        let (plan, c) = (Arc::clone(&plan), Arc::clone(&c));
                        thread::spawn(move || serve(stream, port, &*plan, &c));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        FaultServer { port, calls, stop }
    }

    /// Calls so far (POSTs) per case id.
    pub fn calls(&self) -> HashMap<String, usize> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Read one request: (method, path, body).
fn read_request(stream: &mut TcpStream) -> Option<(String, String, Vec<u8>)> {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if buf.first().is_some_and(|b: &u8| !b.is_ascii_uppercase()) {
            // Not HTTP (a TLS ClientHello): what a plain server says.
            respond(stream, "400 Bad Request", "", b"Bad Request");
            return None;
        }
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut first = head.lines().next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length.min(1 << 20) {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((method, path, body))
}

fn answer_body() -> String {
    format!(
        "{{\"data\": {{\"answer\": \"{GOOD}\"}}, \"usage\": {{\"cost_usd\": 0.001, \"elapsed_ms\": 7}}, \
         \"config\": {{\"provider\": \"faults\", \"model\": \"f-1\"}}}}"
    )
}

fn respond(stream: &mut TcpStream, status: &str, headers: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

const JSON: &str = "Content-Type: application/json\r\n";

fn serve(mut stream: TcpStream, port: u16, plan: &Plan, calls: &Mutex<HashMap<String, usize>>) {
    let Some((method, path, body)) = read_request(&mut stream) else {
        return;
    };
    if path == "/loop" {
        let to = format!("Location: http://127.0.0.1:{port}/loop\r\n");
        respond(&mut stream, "302 Found", &to, b"");
        return;
    }
    if method != "POST" {
        respond(&mut stream, "200 OK", "", b"");
        return;
    }
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").and_then(|i| i.as_str()).map(str::to_string))
        .unwrap_or_default();
    let nth = {
        let mut calls = calls.lock().unwrap_or_else(|p| p.into_inner());
        let n = calls.entry(id.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    match plan(&id, nth) {
        Fault::Body(body) => respond(&mut stream, "200 OK", JSON, body.as_bytes()),
        Fault::Answer { delay_ms } => {
            thread::sleep(Duration::from_millis(delay_ms));
            respond(&mut stream, "200 OK", JSON, answer_body().as_bytes());
        }
        Fault::Slow => {
            let body = answer_body();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n{JSON}\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            for byte in body.as_bytes() {
                if Instant::now() > deadline || stream.write_all(&[*byte]).is_err() {
                    break;
                }
                let _ = stream.flush();
                thread::sleep(Duration::from_millis(100));
            }
        }
        Fault::Hang => {
            let mut sink = [0u8; 64];
            while Instant::now() < deadline {
                match stream.read(&mut sink) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            || e.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => break,
                }
            }
        }
        Fault::ResetMidBody => {
            let _ = stream.write_all(
                format!("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n{JSON}\r\n{{\"data\": {{")
                    .as_bytes(),
            );
            let _ = stream.flush();
            thread::sleep(Duration::from_millis(50));
            let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
        }
        Fault::TooMany(after) => {
            let extra = after.map_or(String::new(), |s| format!("Retry-After: {s}\r\n"));
            respond(
                &mut stream,
                "429 Too Many Requests",
                &format!("{JSON}{extra}"),
                b"{\"error\": \"slow down\"}",
            );
        }
        Fault::Status(code) => {
            respond(
                &mut stream,
                &format!("{code} Oops"),
                JSON,
                b"{\"error\": \"oops\"}",
            );
        }
        Fault::InvalidJson => respond(&mut stream, "200 OK", JSON, b"{\"data\": {\"answer\": "),
        Fault::Huge => {
            let total: usize = 50 * 1024 * 1024;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nConnection: close\r\n{JSON}\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
            let chunk = vec![b' '; 64 * 1024];
            let mut sent = 0;
            while sent < total && Instant::now() < deadline {
                if stream.write_all(&chunk).is_err() {
                    break;
                }
                sent += chunk.len();
            }
        }
        Fault::WrongType => respond(
            &mut stream,
            "200 OK",
            "Content-Type: text/html\r\n",
            b"<html><body>502 Bad Gateway</body></html>",
        ),
        Fault::RedirectLoop => respond(
            &mut stream,
            "302 Found",
            &format!("Location: http://127.0.0.1:{port}/loop\r\n"),
            b"",
        ),
    }
}
