//! The HTTP target: `POST url` with the `[target.body]` mapping filled from
//! the case, and the answer read by dotted paths (spec `25-targets.md`,
//! reference `python-input.md` §4.1).
//!
//! Parity with digline 0.10.0, whose case errors are recorded as verdict
//! reasons (`target raised ValueError: <cause>`, the prefix added by the
//! driver): the request body is Python's `json.dumps(body, sort_keys=True)`
//! and is also the recorded input; a failure is one line naming the
//! endpoint by `host[:port]` — never the URL, its userinfo or a header
//! value — in 0.10.0's words where 0.10.0 has them:
//!
//! | what happened | cause |
//! |---|---|
//! | status outside 2xx | `127.0.0.1:8731 could not be called: HTTP Error 500: Internal Server Error` (the standard reason phrase for the code; 0.10.0 repeated the server's own) |
//! | nothing listening | `… could not be called: <urlopen error [Errno 111] Connection refused>` |
//! | no answer in time | `… could not be called: timed out` |
//! | redirect loop | `… could not be called: HTTP Error 302: The HTTP server returned a redirect error that would lead to an infinite loop. The last 30x error message was: Found` (0.10.0 breaks this over three lines) |
//! | body not UTF-8 | `… could not be called: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte` |
//! | body not JSON | `… answered something that is not JSON: '<html>gateway</html>'` (first 120 characters) |
//! | body over 16 MiB | `… could not be called: the answer is larger than 16 MiB, the most digline reads` (an extension) |
//! | path missing | `cannot read 'data.answer': no 'answer' in nothing` |
//!
//! Redirects: 301/302/303 turn the POST into a GET without a body, as
//! Python's `urllib` does; 307/308 on a POST are an error (`HTTP Error 307:
//! Temporary Redirect`); at most 10 hops, 4 to the same URL. Unlike
//! 0.10.0, the suite's headers are only re-sent to the same scheme, host and
//! port. No proxy is used (0.10.0 honoured `http_proxy`; `target` reads no
//! environment variable).

mod body;
mod paths;

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use url::{Position, Url};

pub use body::{check_body_references, check_case, render_body};
pub use paths::{endpoint_host, CONFIG_KEYS};

use super::failure::{ureq_is_transient, Failure};
use super::mask::{self, basic_credential, mask_text, mask_then_cut};
use super::rate_limits::RateLimits;
use crate::core::python::dumps::dumps_request_body;
use crate::core::python::repr::repr_str;
use crate::core::suite::Case;
use crate::report::locale::Locale;
use crate::report::progress::{ProgressStrings, Unreachable};

/// The most bytes of an answer body digline reads (16 MiB); a longer answer
/// errors the case.
pub const MAX_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// Redirect hops followed before the chain is called a loop (as `urllib`).
const MAX_REDIRECTS: usize = 10;
/// Visits to one URL within a chain before it is called a loop (as `urllib`).
const MAX_REPEATS: u32 = 4;

/// `[target] type = "http"`, validated.
#[derive(Clone, PartialEq)]
pub struct HttpTargetSpec {
    /// Where to POST (`http://host:port/path`; may carry userinfo, which is
    /// sent as Basic auth and never shown).
    pub url: String,
    /// Dotted path to the answer in the response JSON.
    pub output_path: String,
    /// The request body shaped like the payload; `case.*` string leaves are references.
    pub body: Map<String, Value>,
    /// Dotted path to the call's cost in USD, if the service reports it.
    pub cost_path: Option<String>,
    /// Dotted path to the latency in ms; wall time is measured otherwise.
    pub latency_from_response: Option<String>,
    /// Dotted path to a flat object describing what answered (recorded as `target_config`).
    pub config_path: Option<String>,
    /// Header name → value as declared (`${NAME}` slots not yet expanded).
    pub headers: Vec<(String, String)>,
    /// Per-request timeout, seconds (each redirect hop gets its own).
    pub timeout_s: f64,
}

impl fmt::Debug for HttpTargetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpTargetSpec")
            .field("endpoint", &endpoint_host(&self.url))
            .field("output_path", &self.output_path)
            .field("body", &self.body)
            .field("cost_path", &self.cost_path)
            .field("latency_from_response", &self.latency_from_response)
            .field("config_path", &self.config_path)
            .field("headers", &header_names(&self.headers))
            .field("timeout_s", &self.timeout_s)
            .finish()
    }
}

fn header_names(headers: &[(String, String)]) -> Vec<&str> {
    headers.iter().map(|(name, _)| name.as_str()).collect()
}

/// Check at load that `url` names a host digline can speak of; returns that
/// `host[:port]` (see [`endpoint_host`]).
///
/// # Errors
/// A sentence that does not repeat the URL (it may hold a mistyped secret).
pub fn check_url(url: &str) -> Result<String, String> {
    endpoint_host(url).ok_or_else(|| {
        "url names no host. An endpoint is recorded and spoken about by host, so a value \
         without one cannot be reduced to one, and printing the value instead is what this \
         refuses. Check the url in the suite; it is not repeated here on purpose."
            .to_string()
    })
}

/// One answer from the system under test.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// (input, output) tokens, when the provider reported them.
    pub tokens: Option<(u64, u64)>,
    /// The answer at `output_path`: string, object or array.
    pub output: Value,
    /// The request body as sent (what a judge is shown).
    pub input: String,
    /// USD, when `cost_path` is declared and present.
    pub cost_usd: Option<f64>,
    /// Milliseconds: from `latency_from_response`, else measured (request
    /// sent → body read, redirects included).
    pub latency_ms: f64,
    /// The configuration at `config_path`, checked and normalised (flat,
    /// contract keys only, nulls dropped, `base_url` reduced to host:port),
    /// if declared.
    pub config: Option<Map<String, Value>>,
}

/// A ready-to-call HTTP target: the spec with its headers expanded.
///
/// Shared by the driver's workers (`&self` everywhere). It remembers the
/// first configuration an answer reported and errors any later answer that
/// reports another, as 0.10.0 does; with cases answered concurrently,
/// "first" is the first answer to arrive.
pub struct HttpTarget {
    spec: HttpTargetSpec,
    headers: Vec<(String, String)>,
    spoken: String,
    /// Everything an answer or a message must not carry: the userinfo
    /// literals, their Basic form, and the header variables' values.
    secrets: Vec<String>,
    agent: ureq::Agent,
    first_config: Mutex<Option<Map<String, Value>>>,
}

impl fmt::Debug for HttpTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpTarget")
            .field("endpoint", &self.spoken)
            .field("spec", &self.spec)
            .field("headers", &header_names(&self.headers))
            .finish_non_exhaustive()
    }
}

impl HttpTarget {
    /// Build a target from its spec and its headers with `${NAME}` already
    /// expanded (secret values: never printed, logged or recorded). A
    /// header named twice (in any case) keeps the last value;
    /// `Content-Type: application/json` is sent unless a header replaces it.
    ///
    /// # Errors
    /// The url names no host ([`check_url`]'s sentence).
    pub fn new(
        spec: HttpTargetSpec,
        expanded_headers: Vec<(String, String)>,
    ) -> Result<HttpTarget, String> {
        let spoken = check_url(&spec.url)?;
        let secrets = mask::secrets(userinfo_secrets(&spec.url));
        let timeout = if spec.timeout_s.is_nan() || spec.timeout_s <= 0.0 {
            Some(Duration::ZERO)
        } else {
            Duration::try_from_secs_f64(spec.timeout_s).ok()
        };
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .tls_config(crate::client::tls::config())
            .timeout_per_call(timeout)
            .build()
            .new_agent();
        Ok(HttpTarget {
            spec,
            headers: expanded_headers,
            spoken,
            secrets,
            agent,
            first_config: Mutex::new(None),
        })
    }

    /// Also mask these values (the secret `${NAME}` values of the headers)
    /// wherever a message, a stored answer or a reason echoes them; values
    /// that cannot be secrets ([`mask::can_be_secret`]) are dropped.
    #[must_use]
    pub fn with_secrets(mut self, secrets: Vec<String>) -> HttpTarget {
        let all = std::mem::take(&mut self.secrets).into_iter().chain(secrets);
        self.secrets = mask::secrets(all);
        self
    }

    /// The values masked in what is kept or shown of this target's answers.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// The endpoint as every message names it: `host[:port]`.
    pub fn endpoint(&self) -> &str {
        &self.spoken
    }

    /// Is anything listening? One `HEAD url` before the first case. Any
    /// HTTP status (404, 405, a redirect) counts as listening.
    ///
    /// # Errors
    /// A network failure (nothing listening, no such host, timeout): one
    /// sentence refusing the whole run in digline's own words, naming the
    /// endpoint by host:port only (`connection refused at 127.0.0.1:8731:
    /// nothing is listening there. …`). The run document's reasons keep
    /// 0.10.0's `urllib` wording ([`HttpTarget::call`]); this sentence is
    /// read by a person and never stored.
    pub fn preflight(&self) -> Result<(), String> {
        self.preflight_in(Locale::En)
    }

    /// [`HttpTarget::preflight`], its refusal said in `locale`.
    ///
    /// # Errors
    /// As [`HttpTarget::preflight`].
    pub fn preflight_in(&self, locale: Locale) -> Result<(), String> {
        let mut request = self.agent.head(&self.spec.url);
        for (name, value) in self.headers_for(false, true) {
            request = request.header(name, value);
        }
        match request.call() {
            Ok(_) => Ok(()),
            // Something answered, in a way a case will report (TLS to a
            // plain port, a protocol error): not "nothing listening".
            Err(e) if !nothing_listening(&e) => {
                tracing::debug!(endpoint = %self.spoken, "the preflight got an answer it cannot read");
                Ok(())
            }
            Err(e) => {
                Err(self
                    .scrub(ProgressStrings::of(locale).preflight(unreachable(&e), &self.spoken)))
            }
        }
    }

    /// Ask about one case: fill the body, POST it, read the answer.
    ///
    /// # Errors
    /// A one-line cause naming the endpoint by host:port (see the module
    /// table): the case lacks a key the body reads, the call failed or
    /// answered outside 2xx, the body is not UTF-8 JSON, a path is missing
    /// or holds the wrong type, the configuration is malformed or differs
    /// from the first answer's.
    pub fn call(&self, case: &Case) -> Result<Response, String> {
        self.attempt(case).map_err(|f| f.cause)
    }

    /// One attempt at one case, as [`HttpTarget::call`], saying whether
    /// another attempt could help: status 429, 408 and 5xx (with the
    /// server's `Retry-After`), a reset, a refused connection and a timeout
    /// are transient; everything else is permanent.
    ///
    /// # Errors
    /// A [`Failure`] whose cause is [`HttpTarget::call`]'s.
    pub fn attempt(&self, case: &Case) -> Result<Response, Failure> {
        let body = render_body(&self.spec.body, case).map_err(Failure::permanent)?;
        let sent = dumps_request_body(&Value::Object(body));
        let started = Instant::now();
        let raw = self.exchange(&sent).map_err(|mut f| {
            f.cause = format!("{} could not be called: {}", self.spoken, f.cause);
            f
        })?;
        self.read_answer(raw, sent, started)
            .map_err(Failure::permanent)
    }

    /// Decode and read an answer body.
    fn read_answer(
        &self,
        raw: Vec<u8>,
        sent: String,
        started: Instant,
    ) -> Result<Response, String> {
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        let text = String::from_utf8(raw).map_err(|e| {
            format!(
                "{} could not be called: {}",
                self.spoken,
                utf8_said(e.as_bytes(), &e.utf8_error())
            )
        })?;
        // Graded as the server said it: masking is for what is kept or shown.
        let payload: Value = serde_json::from_str(&text).map_err(|_| {
            let head = mask_then_cut(&text, &self.secrets, 120);
            format!(
                "{} answered something that is not JSON: {}",
                self.spoken,
                repr_str(&head)
            )
        })?;
        let spec = &self.spec;
        let output = paths::as_output(paths::dig(&payload, &spec.output_path)?, &spec.output_path)?;
        let cost_usd = match &spec.cost_path {
            Some(path) => Some(paths::as_price(paths::dig(&payload, path)?, path)?),
            None => None,
        };
        let latency_ms = match &spec.latency_from_response {
            Some(path) => paths::as_number(paths::dig(&payload, path)?, path)?,
            None => elapsed_ms,
        };
        let config = match &spec.config_path {
            Some(path) => {
                let declared = paths::declared_config(paths::dig(&payload, path)?, path)?;
                self.hold_config(&declared)?;
                Some(declared)
            }
            None => None,
        };
        Ok(Response {
            tokens: None,
            output,
            input: sent,
            cost_usd,
            latency_ms,
            config,
        })
    }

    /// The configuration recorded for the run: the first answer's checked
    /// configuration, empty when `config_path` is not declared or nothing
    /// has answered yet ("absent is not a change").
    pub fn config(&self) -> Map<String, Value> {
        self.first_config
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
            .unwrap_or_default()
    }

    /// The run document's `target_config`: `{"values": {...}}` holding
    /// [`HttpTarget::config`], or `{}` when that is empty.
    pub fn target_config(&self) -> Map<String, Value> {
        let values = self.config();
        let mut out = Map::new();
        if !values.is_empty() {
            out.insert("values".to_string(), Value::Object(values));
        }
        out
    }

    /// A resumed run: hold every later answer to the configuration
    /// (`values`) its earlier answers reported, unless one is held already.
    pub fn hold_first(&self, values: &Map<String, Value>) {
        let mut first = self
            .first_config
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if first.is_none() && !values.is_empty() {
            *first = Some(values.clone());
        }
    }

    /// Keep the first configuration; hold every later one to it.
    fn hold_config(&self, declared: &Map<String, Value>) -> Result<(), String> {
        let mut first = self
            .first_config
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match first.as_ref() {
            Some(recorded) => paths::config_unchanged(&self.spoken, recorded, declared),
            None => {
                *first = Some(declared.clone());
                Ok(())
            }
        }
    }

    /// The headers for one request: `Content-Type` for a POST, then the
    /// suite's (only to the suite's own origin), the last of a name winning.
    fn headers_for(&self, post: bool, same_origin: bool) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        if post {
            out.push(("Content-Type", "application/json"));
        }
        if same_origin {
            for (name, value) in &self.headers {
                out.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                out.push((name.as_str(), value.as_str()));
            }
        }
        out
    }

    /// POST `sent`, follow redirects, read the body (at most
    /// [`MAX_ANSWER_BYTES`]).
    /// Errors: what `urllib` would report after `could not be called:`,
    /// classified as transient or not.
    fn exchange(&self, sent: &str) -> Result<Vec<u8>, Failure> {
        let transport = |e: &ureq::Error| {
            let said = self.said(e);
            if ureq_is_transient(e) {
                Failure::transient(said, None, false)
            } else {
                Failure::permanent(said)
            }
        };
        let home = origin(&self.spec.url);
        let mut url = self.spec.url.clone();
        let mut post = true;
        let mut visited: HashMap<String, u32> = HashMap::new();
        loop {
            let same_origin = origin(&url) == home;
            let result = if post {
                let mut request = self.agent.post(&url);
                for (name, value) in self.headers_for(true, same_origin) {
                    request = request.header(name, value);
                }
                request.send(sent)
            } else {
                let mut request = self.agent.get(&url);
                for (name, value) in self.headers_for(false, same_origin) {
                    if !name.eq_ignore_ascii_case("content-type") {
                        request = request.header(name, value);
                    }
                }
                request.call()
            };
            let response = result.map_err(|e| transport(&e))?;
            let status = response.status();
            let code = status.as_u16();
            let reason = status.canonical_reason().unwrap_or("");
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            match (code, location) {
                (301 | 302 | 303 | 307 | 308, Some(location)) => {
                    if post && matches!(code, 307 | 308) {
                        return Err(Failure::permanent(format!("HTTP Error {code}: {reason}")));
                    }
                    let next = join_location(&url, &location);
                    if visited.get(&next).copied().unwrap_or(0) >= MAX_REPEATS
                        || visited.len() >= MAX_REDIRECTS
                    {
                        return Err(Failure::permanent(format!(
                            "HTTP Error {code}: The HTTP server returned a redirect error that \
                             would lead to an infinite loop. The last 30x error message was: \
                             {reason}"
                        )));
                    }
                    *visited.entry(next.clone()).or_insert(0) += 1;
                    url = next;
                    post = false;
                }
                (200..=299, _) => {
                    return response
                        .into_body()
                        .with_config()
                        .limit(MAX_ANSWER_BYTES)
                        .read_to_vec()
                        .map_err(|e| transport(&e));
                }
                _ => {
                    let wait =
                        RateLimits::from_headers(response.headers(), std::time::SystemTime::now())
                            .wait;
                    return Err(Failure::from_status(
                        code,
                        format!("HTTP Error {code}: {reason}"),
                        wait,
                    ));
                }
            }
        }
    }

    /// A client error in `urllib`'s words where 0.10.0 has them; never the
    /// URL, its userinfo or a header value.
    fn said(&self, e: &ureq::Error) -> String {
        let text = match e {
            ureq::Error::Timeout(_) => "timed out".to_string(),
            ureq::Error::Io(io)
                if io.kind() == io::ErrorKind::InvalidData
                    && self
                        .spec
                        .url
                        .get(..8)
                        .is_some_and(|s| s.eq_ignore_ascii_case("https://")) =>
            {
                format!("the TLS handshake failed: {io} (an https:// url to a plain http:// server fails so)")
            }
            ureq::Error::Io(io) => io_said(io),
            ureq::Error::HostNotFound => {
                "<urlopen error [Errno -2] Name or service not known>".to_string()
            }
            ureq::Error::ConnectionFailed => "<urlopen error connection failed>".to_string(),
            ureq::Error::BadUri(_) | ureq::Error::RequireHttpsOnly(_) => {
                "the url is not an http:// or https:// address with a host".to_string()
            }
            ureq::Error::Http(_) => {
                "a header name or value is not valid HTTP (values are not repeated here)"
                    .to_string()
            }
            ureq::Error::BodyExceedsLimit(_) => format!(
                "the answer is larger than {} MiB, the most digline reads",
                MAX_ANSWER_BYTES / (1024 * 1024)
            ),
            ureq::Error::LargeResponseHeader(..) => {
                "the answer's headers are larger than digline reads".to_string()
            }
            ureq::Error::Protocol(_) => "the answer is not valid HTTP".to_string(),
            other => other.to_string(),
        };
        self.scrub(text)
    }

    /// Replace anything this target's URL could have put into a message:
    /// the URL itself by the host, the secrets by `***`.
    fn scrub(&self, mut text: String) -> String {
        if !self.spec.url.is_empty() {
            text = text.replace(&self.spec.url, &self.spoken);
        }
        mask_text(&text, &self.secrets)
    }
}

/// Why nothing answered, for the preflight's refusal in digline's words
/// (no `errno`, no `urllib` wrapper).
fn unreachable(e: &ureq::Error) -> Unreachable {
    let io_kind = match e {
        ureq::Error::Io(io) => Some(io.kind()),
        _ => None,
    };
    match (e, io_kind) {
        (ureq::Error::Timeout(_), _)
        | (_, Some(io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock)) => Unreachable::Timeout,
        (_, Some(io::ErrorKind::ConnectionRefused)) => Unreachable::Refused,
        (ureq::Error::HostNotFound, _) => Unreachable::HostNotFound,
        (
            _,
            Some(
                io::ErrorKind::AddrNotAvailable
                | io::ErrorKind::NetworkUnreachable
                | io::ErrorKind::HostUnreachable
                | io::ErrorKind::NetworkDown,
            ),
        ) => Unreachable::NoRoute,
        (
            _,
            Some(
                io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::BrokenPipe,
            ),
        ) => Unreachable::Closed,
        _ => Unreachable::Failed,
    }
}

/// `[Errno 111] Connection refused`, wrapped as `urllib` wraps a failure to
/// connect (`<urlopen error …>`).
fn io_said(e: &io::Error) -> String {
    if let Some(ureq::Error::BodyExceedsLimit(_)) =
        e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>())
    {
        return format!(
            "the answer is larger than {} MiB, the most digline reads",
            MAX_ANSWER_BYTES / (1024 * 1024)
        );
    }
    match e.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => return "timed out".to_string(),
        io::ErrorKind::UnexpectedEof => {
            return "Remote end closed connection without response".to_string()
        }
        _ => {}
    }
    let Some(errno) = e.raw_os_error() else {
        return e.to_string();
    };
    let full = e.to_string();
    let suffix = format!(" (os error {errno})");
    let text = full.strip_suffix(&suffix).unwrap_or(&full);
    let connecting = matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::AddrNotAvailable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkDown
    );
    if connecting {
        format!("<urlopen error [Errno {errno}] {text}>")
    } else {
        format!("[Errno {errno}] {text}")
    }
}

/// Python's `UnicodeDecodeError` text for a body that is not UTF-8.
fn utf8_said(bytes: &[u8], e: &std::str::Utf8Error) -> String {
    let start = e.valid_up_to();
    let (len, why) = match e.error_len() {
        None => (bytes.len() - start, "unexpected end of data"),
        Some(n) => {
            let lead = bytes.get(start).copied().unwrap_or(0);
            if (0xc2..=0xf4).contains(&lead) {
                (n, "invalid continuation byte")
            } else {
                (n, "invalid start byte")
            }
        }
    };
    if len <= 1 {
        let byte = bytes.get(start).copied().unwrap_or(0);
        format!("'utf-8' codec can't decode byte 0x{byte:02x} in position {start}: {why}")
    } else {
        format!(
            "'utf-8' codec can't decode bytes in position {start}-{}: {why}",
            start + len - 1
        )
    }
}

/// The literals a URL's userinfo holds (password, then user name), exactly
/// as written: they are masked wherever the written URL could surface, so
/// this reads the text itself rather than a parsed (re-encoded) URL.
fn userinfo_parts(url: &str) -> Vec<String> {
    let Some((user, password)) = userinfo(url) else {
        return Vec::new();
    };
    [password, user]
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The user name and password of a URL's userinfo as written (an absent
/// password is empty), `None` without userinfo.
fn userinfo(url: &str) -> Option<(&str, &str)> {
    let rest = url.split_once("//").map_or(url, |(_, r)| r);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let (userinfo, _) = authority.rsplit_once('@')?;
    Some(userinfo.split_once(':').unwrap_or((userinfo, "")))
}

/// The userinfo literals of a URL and the Basic credential a client sends
/// for them — also for a user name alone (`Northwind@` is sent as the
/// Basic form of `Northwind:`, which decodes to the name).
fn userinfo_secrets(url: &str) -> Vec<String> {
    let mut secrets = userinfo_parts(url);
    if let Some((user, password)) = userinfo(url).filter(|(u, p)| !u.is_empty() || !p.is_empty()) {
        secrets.push(basic_credential(user, password));
    }
    secrets
}

/// `scheme://authority` of a URL (userinfo included), lower-cased: where
/// headers may go. A value that is no URL is its own, lower-cased.
fn origin(url: &str) -> String {
    match Url::parse(url) {
        Ok(parsed) => parsed[..Position::AfterPort].to_lowercase(),
        Err(_) => url.to_lowercase(),
    }
}

/// Resolve a `Location` against the URL that answered it (RFC 3986
/// reference resolution, by the `url` crate); a base that is no URL leaves
/// the location as it is.
fn join_location(base: &str, location: &str) -> String {
    match Url::parse(base).and_then(|base| base.join(location)) {
        Ok(joined) => joined.into(),
        Err(_) => location.to_string(),
    }
}

/// True for the failures that mean nothing is there to ask: no
/// connection, no such host, no answer in time.
fn nothing_listening(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Io(io) if io.kind() != io::ErrorKind::InvalidData
    ) || matches!(
        e,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed | ureq::Error::Timeout(_)
    )
}

#[cfg(test)]
mod tests;
