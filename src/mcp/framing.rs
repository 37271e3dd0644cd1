//! The server's framing on stdio: one JSON-RPC message per line, and an
//! answer for every line a client can wait on.
//!
//! - A line that is not JSON gets a `-32700` (parse error) answer with
//!   `"id": null` — JSON-RPC 2.0 §5.1 — never silence, so a client whose
//!   line was mangled learns it at once instead of waiting on its id.
//! - JSON that is not a message gets `-32600` (invalid request), with the
//!   line's `id` when it has a readable one, else `null`. A notification
//!   (a `method` and no `id`) that the server does not know is dropped, as
//!   JSON-RPC says notifications are never answered.
//! - A line longer than [`MAX_MESSAGE_BYTES`] is refused with `-32700` as
//!   soon as it passes the limit, without being held in memory: the rest
//!   of it is skipped up to its newline, and the server goes on serving.
//!
//! Writes are whole lines under one lock, so an answer written here never
//! interleaves with a response the service writes.

use std::future::Future;
use std::sync::Arc;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest message the server reads: 1 MiB. Every tool's arguments are
/// a path, a run key and a number; a client has no reason to come near it.
pub const MAX_MESSAGE_BYTES: usize = 1024 * 1024;

/// JSON-RPC's code for a line that could not be parsed.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a request.
pub const INVALID_REQUEST: i64 = -32600;

/// What one line is.
#[derive(Debug)]
pub enum Line {
    /// A message for the service.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to do (a blank line, a notification the server does not know).
    Ignored,
    /// The answer to write back (an error object, one line of JSON).
    Answer(Value),
}

/// A JSON-RPC error answer.
pub fn error_answer(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a line longer than [`MAX_MESSAGE_BYTES`].
pub fn too_long() -> Value {
    error_answer(
        Value::Null,
        PARSE_ERROR,
        &format!(
            "Parse error: the message is longer than {MAX_MESSAGE_BYTES} bytes, the most this server reads; it was skipped unread"
        ),
    )
}

/// Classify one line (its newline, a carriage return and a byte-order mark
/// removed).
pub fn classify(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Ignored;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Line::Answer(error_answer(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: the line is not JSON ({e})"),
            ))
        }
    };
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        _ => None,
    };
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(message) => Line::Message(Box::new(message)),
        Err(_)
            if value.get("method").is_some_and(Value::is_string) && value.get("id").is_none() =>
        {
            Line::Ignored
        }
        Err(e) => Line::Answer(error_answer(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            &format!("Invalid Request: the line is JSON but not a JSON-RPC 2.0 message ({e})"),
        )),
    }
}

/// What reading a line gave.
enum Read {
    /// A whole line is in the buffer.
    Line,
    /// A line passed the limit; it is being skipped.
    TooLong,
    /// The client closed stdin (or it failed).
    End,
}

/// The server's transport over a reader and a writer (stdin and stdout).
pub struct Framing<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Skipping the rest of a line already refused as too long.
    skipping: bool,
    write: Arc<Mutex<W>>,
    /// Answers being written: awaited before the session ends, so the
    /// answer to a client's last line is not lost.
    answering: Vec<tokio::task::JoinHandle<()>>,
}

impl<R, W> Framing<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Framing over `read` and `write`.
    pub fn new(read: R, write: W) -> Framing<R, W> {
        Framing {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: false,
            write: Arc::new(Mutex::new(write)),
            answering: Vec::new(),
        }
    }

    /// Read the next line into `self.line`, never holding more than
    /// [`MAX_MESSAGE_BYTES`] of it. Safe to cancel between polls (the
    /// service polls it in a `select!`): the state lives in `self`, and a
    /// chunk is copied and consumed with no await in between.
    async fn read_line(&mut self) -> Read {
        loop {
            let Ok(chunk) = self.read.fill_buf().await else {
                return Read::End;
            };
            if chunk.is_empty() {
                return Read::End;
            }
            let newline = chunk.iter().position(|b| *b == b'\n');
            let used = newline.map_or(chunk.len(), |at| at + 1);
            let mut refused = false;
            if !self.skipping {
                if self.line.len() + used > MAX_MESSAGE_BYTES + 1 {
                    self.line.clear();
                    self.skipping = true;
                    refused = true;
                } else {
                    self.line.extend_from_slice(&chunk[..used]);
                }
            }
            self.read.consume(used);
            if newline.is_some() {
                let was_skipping = std::mem::replace(&mut self.skipping, false);
                if refused {
                    return Read::TooLong;
                }
                if !was_skipping {
                    return Read::Line;
                }
            } else if refused {
                return Read::TooLong;
            }
        }
    }

    /// Write `answer` as one line, on its own task so that a cancelled
    /// receive never leaves half a line behind.
    fn answer(&mut self, answer: &Value) {
        let mut bytes = answer.to_string().into_bytes();
        bytes.push(b'\n');
        let write = Arc::clone(&self.write);
        self.answering.retain(|task| !task.is_finished());
        self.answering.push(tokio::spawn(async move {
            let mut w = write.lock().await;
            let _ = w.write_all(&bytes).await;
            let _ = w.flush().await;
        }));
    }

    /// Wait for the answers still being written.
    async fn answered(&mut self) {
        while let Some(task) = self.answering.pop() {
            let _ = task.await;
        }
    }
}

impl<R, W> Transport<RoleServer> for Framing<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let bytes = serde_json::to_vec(&item).map(|mut b| {
            b.push(b'\n');
            b
        });
        let write = Arc::clone(&self.write);
        async move {
            let bytes = bytes?;
            let mut w = write.lock().await;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Read::End => {
                    self.answered().await;
                    return None;
                }
                Read::TooLong => {
                    tracing::warn!(
                        limit = MAX_MESSAGE_BYTES,
                        "a message longer than the limit was refused"
                    );
                    self.answer(&too_long());
                }
                Read::Line => {
                    let line = std::mem::take(&mut self.line);
                    match classify(&line) {
                        Line::Message(message) => return Some(*message),
                        Line::Ignored => {}
                        Line::Answer(answer) => self.answer(&answer),
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.answered().await;
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Line::Answer(a) => a,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn every_line_a_client_waits_on_is_answered() {
        let bad = answer("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\n");
        assert_eq!(bad["id"], Value::Null);
        assert_eq!(bad["error"]["code"], json!(PARSE_ERROR));
        let not_rpc = answer("{\"id\": 7, \"hello\": 1}\n");
        assert_eq!(not_rpc["id"], json!(7));
        assert_eq!(not_rpc["error"]["code"], json!(INVALID_REQUEST));
        assert_eq!(answer("[1, 2]")["id"], Value::Null);
        // As docs/mcp.md shows it.
        assert_eq!(
            answer("hello\n").to_string(),
            r#"{"error":{"code":-32700,"message":"Parse error: the line is not JSON (expected value at line 1 column 1)"},"id":null,"jsonrpc":"2.0"}"#
        );
        assert!(matches!(classify(b"  \r\n"), Line::Ignored));
        // A notification is never answered, known or not.
        assert!(!matches!(
            classify(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}\n"),
            Line::Answer(_)
        ));
        assert!(matches!(
            classify(b"{\"method\":\"x\",\"params\":7}\n"),
            Line::Ignored
        ));
        assert!(matches!(
            classify(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"),
            Line::Message(_)
        ));
    }
}
