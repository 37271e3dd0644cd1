//! A loopback fake of the Anthropic Messages and OpenAI Chat Completions
//! APIs, on a raw TCP listener so a test can also drop a connection.
//!
//! Every request is recorded (path, lower-cased headers, JSON body). What
//! to answer is a function of the request and how many requests came
//! before it for the same case (the user prompt's text), so a test can
//! answer 429 to a case's first calls and then succeed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// One request the fake received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

impl Seen {
    /// The user message (what identifies the case).
    pub fn user(&self) -> String {
        let messages = self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        messages
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// The system prompt, as either API carries it.
    pub fn system(&self) -> String {
        if let Some(s) = self.body["system"].as_str() {
            return s.to_string();
        }
        let messages = self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        messages
            .iter()
            .find(|m| m["role"] == "system")
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// True for a judging call (its prompt ends with the output to judge).
    pub fn is_judge(&self) -> bool {
        self.user().contains("Output to judge:")
    }
}

/// What to do with one request.
pub enum Reply {
    /// Status, extra headers, body.
    Http(u16, Vec<(String, String)>, String),
    /// Wait, then answer.
    Slow(Duration, Box<Reply>),
    /// Close the connection without answering (a reset for the client).
    Drop,
}

/// `(request, n)` → reply, `n` = how many earlier requests had the same user prompt.
pub type Behaviour = dyn Fn(&Seen, usize) -> Reply + Send + Sync;

/// A running fake.
pub struct Fake {
    pub port: u16,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    /// `http://127.0.0.1:<port>` (+ `/v1` for OpenAI's base URL).
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Start a fake answering with `behaviour`.
pub fn start(behaviour: Box<Behaviour>) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::new(Mutex::new(Vec::new()));
    let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::new(Mutex::new(HashMap::new()));
    let behaviour: Arc<Behaviour> = Arc::from(behaviour);
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (seen, counts, behaviour) = (seen2.clone(), counts.clone(), behaviour.clone());
            std::thread::spawn(move || serve(stream, &seen, &counts, &*behaviour));
        }
    });
    Fake { port, seen }
}

fn serve(
    stream: TcpStream,
    seen: &Mutex<Vec<Seen>>,
    counts: &Mutex<HashMap<String, usize>>,
    behaviour: &Behaviour,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let request = Seen {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let n = {
        let mut c = counts.lock().unwrap();
        let entry = c.entry(request.user()).or_insert(0);
        let n = *entry;
        *entry += 1;
        n
    };
    seen.lock().unwrap().push(request.clone());
    let mut reply = behaviour(&request, n);
    let mut stream = stream;
    loop {
        match reply {
            Reply::Slow(wait, inner) => {
                std::thread::sleep(wait);
                reply = *inner;
            }
            Reply::Drop => {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                return;
            }
            Reply::Http(status, extra, body) => {
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (k, v) in extra {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(body.as_bytes());
                let _ = stream.flush();
                return;
            }
        }
    }
}

/// A 200 in the shape of the API the request was sent to: Anthropic for
/// `/v1/messages`, OpenAI otherwise.
pub fn ok(seen: &Seen, text: &str, input_tokens: u64, output_tokens: u64) -> Reply {
    ok_as(seen, text, input_tokens, output_tokens, None)
}

/// [`ok`], the reply saying `model` answered (`None`: the requested
/// model, dated for Anthropic): a provider that re-pointed an alias.
pub fn ok_as(
    seen: &Seen,
    text: &str,
    input_tokens: u64,
    output_tokens: u64,
    model: Option<&str>,
) -> Reply {
    let body = if seen.path.ends_with("/v1/messages") {
        // the judge's prefill `{` is prepended by the client: strip it here
        let text = match seen.body["messages"].as_array().and_then(|m| m.last()) {
            Some(last) if last["role"] == "assistant" => text
                .strip_prefix(last["content"].as_str().unwrap_or(""))
                .unwrap_or(text),
            _ => text,
        };
        json!({
            "id": "msg_1", "type": "message", "role": "assistant",
            "model": model.map(str::to_string).or_else(|| seen.body["model"].as_str().map(|m| format!("{m}-20251001"))),
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                      "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        })
    } else {
        json!({
            "id": "chatcmpl-1", "object": "chat.completion",
            "model": model.map_or_else(|| seen.body["model"].clone(), |m| Value::String(m.to_string())),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                      "total_tokens": input_tokens + output_tokens}
        })
    };
    Reply::Http(200, Vec::new(), body.to_string())
}

/// An error in the provider's shape.
pub fn error(status: u16, kind: &str, message: &str, retry_after: Option<&str>) -> Reply {
    let body = json!({"type": "error", "error": {"type": kind, "message": message}});
    let headers = retry_after
        .map(|v| vec![("retry-after".to_string(), v.to_string())])
        .unwrap_or_default();
    Reply::Http(status, headers, body.to_string())
}
