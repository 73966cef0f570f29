//! The JSON-lines front end (`trumansh --json`): one JSON request per input line, one JSON
//! response per output line, in order, flushed as each line is done. The shapes are published
//! in `docs/protocol.schema.json`; docs/PROTOCOL.md explains them.
//!
//! Bytes: JSON strings are Unicode, a shell's bytes are not. Every byte field (`command`,
//! `stdin`; `stdout`, `stderr`, `cwd`, the paths of `effects`) is a plain string when the
//! bytes are valid UTF-8. When they are not, the string holds a lossy rendering (U+FFFD for
//! each bad sequence) and a sibling `<field>_base64` holds the exact bytes (standard base64,
//! padded). A request may send `command_base64` / `stdin_base64` instead of the plain field.
//!
//! A line that is not a valid request gets an error response (`{"id":..., "error":
//! {"code":..., "message":...}}`) and the session goes on. A key given twice is refused (a
//! proxy that checked one of them must not be bypassed by the other).
//!
//! The `id` is kept as the JSON text that was sent ([`RawValue`]) and echoed as it was: a
//! number beyond `f64` (`123456789012345678901234567890`) keeps its digits.

use std::io::{BufRead, Write};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::api::{AppliedEffect, Report, Request};
use crate::io::Stream;
use crate::session::Session;
use crate::transcript::Recorded;

/// Why a request line was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Not JSON (or not UTF-8, or cut short by the end of the stream).
    ParseError,
    /// JSON, but not a request: not an object, a missing or mistyped field, an unknown field.
    InvalidRequest,
    /// Longer than the policy's `request_bytes`; the line was skipped unread.
    RequestTooLarge,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "parse_error",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::RequestTooLarge => "request_too_large",
        }
    }
}

/// A request's `id`: the JSON text it was sent as, echoed unchanged in the response.
#[derive(Debug, Clone)]
pub struct RequestId(Box<RawValue>);

impl RequestId {
    /// `null`: no id was sent, or it could not be read.
    pub fn null() -> Self {
        // `Box<RawValue>`'s default is `null`.
        RequestId(Box::default())
    }

    /// The id's JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for RequestId {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// A response line's text: `{"id":ID,` then the other fields of `rest`, in order.
pub fn response_text(id: &RequestId, rest: Map<String, Value>) -> String {
    let rest = Value::Object(rest).to_string();
    let fields = rest.strip_prefix('{').unwrap_or(&rest);
    let sep = if fields == "}" { "" } else { "," };
    format!("{{\"id\":{}{sep}{fields}", id.get())
}

/// A refused request: the code, a one-line message, and the request's id when it could be
/// read.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolError {
    pub id: RequestId,
    pub code: ErrorCode,
    pub message: String,
}

impl ProtocolError {
    fn new(id: RequestId, code: ErrorCode, message: impl Into<String>) -> Self {
        ProtocolError {
            id,
            code,
            message: message.into(),
        }
    }

    /// The error response line (without its newline).
    pub fn to_text(&self) -> String {
        let mut rest = Map::new();
        rest.insert(
            "error".into(),
            serde_json::json!({"code": self.code.as_str(), "message": self.message}),
        );
        response_text(&self.id, rest)
    }
}

/// A request as read from a line.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRequest {
    pub id: RequestId,
    pub command: Vec<u8>,
    pub stdin: Option<Vec<u8>>,
    pub timeout: Option<Duration>,
}

/// A JSON object's members in the order sent, duplicates kept (a `Map` keeps the last), each
/// value as its text.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

const FIELDS: [&str; 6] = [
    "id",
    "command",
    "command_base64",
    "stdin",
    "stdin_base64",
    "timeout_ms",
];

/// Parses one request line.
pub fn parse_request(line: &[u8]) -> Result<JsonRequest, ProtocolError> {
    let parse_error = |e: serde_json::Error| {
        let message = if std::str::from_utf8(line).is_err() {
            "the request is not valid UTF-8 (send bytes that are not UTF-8 as command_base64 or stdin_base64)".to_string()
        } else if e.is_eof() {
            format!("the request is not complete JSON: {e}")
        } else {
            format!("the request is not valid JSON: {e}")
        };
        ProtocolError::new(RequestId::null(), ErrorCode::ParseError, message)
    };
    let value: Value = serde_json::from_slice(line).map_err(parse_error)?;
    let Value::Object(obj) = value else {
        return Err(ProtocolError::new(
            RequestId::null(),
            ErrorCode::InvalidRequest,
            format!("a request must be a JSON object, not {}", kind(&value)),
        ));
    };
    // The same object again, member by member as sent: a `Map` keeps only the last of a
    // key given twice, and holds numbers as `f64`.
    let Members(members) = serde_json::from_slice(line).map_err(parse_error)?;
    let mut ids = members.iter().filter(|(k, _)| k == "id").map(|(_, v)| v);
    // An id sent twice is no one id: the error answers `null`.
    let id = match (ids.next(), ids.next()) {
        (Some(id), None) => RequestId(id.clone()),
        _ => RequestId::null(),
    };
    let invalid =
        |message: String| ProtocolError::new(id.clone(), ErrorCode::InvalidRequest, message);
    if let Some(unknown) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(invalid(format!(
            "unknown field {unknown:?} (expected one of: id, command, command_base64, stdin, stdin_base64, timeout_ms)"
        )));
    }
    if members.len() != obj.len() {
        let mut seen = std::collections::HashSet::new();
        if let Some((twice, _)) = members.iter().find(|(k, _)| !seen.insert(k)) {
            return Err(invalid(format!(
                "duplicate field {twice:?} (each field at most once)"
            )));
        }
    }
    let command = bytes_field(&obj, "command")
        .map_err(invalid)?
        .ok_or_else(|| invalid("missing field \"command\" (a string)".to_string()))?;
    let stdin = bytes_field(&obj, "stdin").map_err(invalid)?;
    let timeout = match obj.get("timeout_ms") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(ms) if ms > 0 => Some(Duration::from_millis(ms)),
            _ => {
                return Err(invalid(format!(
                    "\"timeout_ms\" must be a positive integer (milliseconds), not {v}"
                )));
            }
        },
    };
    Ok(JsonRequest {
        id,
        command,
        stdin,
        timeout,
    })
}

/// A byte field sent as `name` (a string) or `name_base64`.
fn bytes_field(obj: &Map<String, Value>, name: &str) -> Result<Option<Vec<u8>>, String> {
    let b64 = format!("{name}_base64");
    match (obj.get(name), obj.get(&b64)) {
        (Some(_), Some(_)) => Err(format!("send either {name:?} or {b64:?}, not both")),
        (Some(Value::String(s)), None) => Ok(Some(s.as_bytes().to_vec())),
        (Some(v), None) => Err(format!("{name:?} must be a string, not {}", kind(v))),
        (None, Some(Value::String(s))) => STANDARD
            .decode(s)
            .map(Some)
            .map_err(|e| format!("{b64:?} is not valid base64: {e}")),
        (None, Some(v)) => Err(format!("{b64:?} must be a string, not {}", kind(v))),
        (None, None) => Ok(None),
    }
}

/// How a message names the type of a JSON value.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Puts bytes under `key`: the string when they are UTF-8, else a lossy string and the exact
/// bytes under `key_base64`.
pub fn put_bytes(obj: &mut Map<String, Value>, key: &str, bytes: &[u8]) {
    obj.insert(key.into(), String::from_utf8_lossy(bytes).into());
    if std::str::from_utf8(bytes).is_err() {
        obj.insert(format!("{key}_base64"), STANDARD.encode(bytes).into());
    }
}

fn path_bytes(p: &std::path::Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes()
}

/// One applied effect as JSON.
pub fn effect_json(effect: &AppliedEffect) -> Value {
    let mut obj = Map::new();
    obj.insert("op".into(), effect.op().into());
    match effect {
        AppliedEffect::CreateDir { path }
        | AppliedEffect::Touch { path }
        | AppliedEffect::Trash { path } => put_bytes(&mut obj, "path", path_bytes(path)),
        AppliedEffect::Write { path, bytes, .. } => {
            put_bytes(&mut obj, "path", path_bytes(path));
            obj.insert("bytes".into(), (*bytes).into());
        }
        AppliedEffect::Rename { from, to }
        | AppliedEffect::Copy { from, to }
        | AppliedEffect::HardLink { from, to } => {
            put_bytes(&mut obj, "path", path_bytes(from));
            put_bytes(&mut obj, "to", path_bytes(to));
        }
        AppliedEffect::SetMode { path, mode } => {
            put_bytes(&mut obj, "path", path_bytes(path));
            obj.insert("mode".into(), format!("{mode:04o}").into());
        }
        AppliedEffect::Symlink { path, target } => {
            put_bytes(&mut obj, "path", path_bytes(path));
            put_bytes(&mut obj, "target", path_bytes(target));
        }
        AppliedEffect::Truncate { path, len } => {
            put_bytes(&mut obj, "path", path_bytes(path));
            obj.insert("len".into(), (*len).into());
        }
        AppliedEffect::Undo { line, changes } => {
            obj.insert("line".into(), line.clone().into());
            obj.insert("changes".into(), (*changes).into());
        }
    }
    Value::Object(obj)
}

/// The fields of a response, without its id: output, status, cwd, flags, time, effects. The
/// MCP server's structured content is the same object.
pub fn outcome_json(stdout: &[u8], stderr: &[u8], report: &Report) -> Map<String, Value> {
    let mut obj = Map::new();
    put_bytes(&mut obj, "stdout", stdout);
    put_bytes(&mut obj, "stderr", stderr);
    obj.insert("exit_code".into(), report.status.into());
    put_bytes(&mut obj, "cwd", path_bytes(&report.cwd));
    obj.insert("truncated".into(), report.truncated.into());
    obj.insert("timed_out".into(), report.timed_out.into());
    let ms = (report.duration.as_secs_f64() * 1e6).round() / 1e3;
    obj.insert("duration_ms".into(), ms.into());
    obj.insert(
        "effects".into(),
        report.effects.iter().map(effect_json).collect(),
    );
    obj.insert("effects_omitted".into(), report.effects_omitted.into());
    obj.insert("rolled_back".into(), report.rolled_back.into());
    obj.insert("exited".into(), report.exit.is_some().into());
    obj
}

/// Reads one line of at most `max` bytes (without its newline). `None` at end of input;
/// `Some(Err(n))` when the line was longer (its `n` bytes were skipped, not kept).
fn read_line(input: &mut impl BufRead, max: usize) -> Option<Result<Vec<u8>, usize>> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => &[],
        };
        if buf.is_empty() {
            // End of input: a last line without its newline is still a request.
            return any.then_some(if skipped > 0 { Err(skipped) } else { Ok(line) });
        }
        any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if skipped > 0 || line.len() + chunk.len() > max {
            skipped += line.len() + chunk.len();
            line = Vec::new();
        } else {
            line.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Some(if skipped > 0 { Err(skipped) } else { Ok(line) });
        }
    }
}

/// Runs the JSON-lines protocol until the end of input or `exit`. Returns the exit status:
/// `exit`'s, else the last command's.
pub fn run_json_lines(
    session: &mut Session,
    mut input: impl BufRead,
    output: &mut impl Write,
    mut on_step: impl FnMut(&JsonRequest, &Recorded, i32),
) -> i32 {
    let max = session.config().policy.limits.request_bytes;
    while let Some(line) = read_line(&mut input, max) {
        let response = match line {
            Err(n) => ProtocolError::new(
                RequestId::null(),
                ErrorCode::RequestTooLarge,
                format!(
                    "the request is {n} bytes; the limit is {} (request_bytes)",
                    crate::io::human_bytes(max as u64)
                ),
            )
            .to_text(),
            Ok(line) if line.trim_ascii().is_empty() => continue,
            Ok(line) => match parse_request(&line) {
                Err(e) => e.to_text(),
                Ok(request) => {
                    let mut recorded = Recorded::default();
                    let report = session.execute(
                        &Request {
                            stdin: request.stdin.as_deref(),
                            timeout: request.timeout,
                            ..Request::new(&request.command)
                        },
                        &mut recorded,
                    );
                    on_step(&request, &recorded, report.status);
                    let stdout = recorded.bytes(Stream::Stdout);
                    let stderr = recorded.bytes(Stream::Stderr);
                    response_text(&request.id, outcome_json(&stdout, &stderr, &report))
                }
            },
        };
        let mut text = response.into_bytes();
        text.push(b'\n');
        if output
            .write_all(&text)
            .and_then(|()| output.flush())
            .is_err()
        {
            // The client went away: nobody reads the answers.
            break;
        }
        if let Some(status) = session.exit_status() {
            return status;
        }
    }
    session.last_status()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(input: &[u8], capacity: usize, max: usize) -> Vec<Result<Vec<u8>, usize>> {
        let mut reader = std::io::BufReader::with_capacity(capacity, input);
        std::iter::from_fn(|| read_line(&mut reader, max)).collect()
    }

    #[test]
    fn lines_are_split_and_bounded_whatever_the_buffer_size() {
        for capacity in [1, 2, 3, 7, 64, 8192] {
            assert_eq!(
                lines(b"ab\n\ncd", capacity, 10),
                vec![Ok(b"ab".to_vec()), Ok(Vec::new()), Ok(b"cd".to_vec())]
            );
            assert_eq!(
                lines(b"0123456789\n01234567890\nok\n0123456789012", capacity, 10),
                vec![
                    Ok(b"0123456789".to_vec()),
                    Err(11),
                    Ok(b"ok".to_vec()),
                    Err(13)
                ]
            );
            assert!(lines(b"", capacity, 10).is_empty());
        }
    }

    proptest! {
        #[test]
        fn any_line_parses_or_gets_an_error(line in proptest::collection::vec(any::<u8>(), 0..200)) {
            match parse_request(&line) {
                // Random bytes are almost never a request; when they are, they name a command.
                Ok(_) => prop_assert!(line.windows(7).any(|w| w == b"command")),
                Err(e) => {
                    let v: Value = serde_json::from_str(&e.to_text()).unwrap_or_default();
                    prop_assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
                }
            }
        }

        #[test]
        fn any_json_value_parses_or_gets_an_error(
            id in any::<i64>(),
            command in proptest::collection::vec(any::<u8>(), 0..40),
            stdin in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
            timeout in proptest::option::of(any::<u64>()),
        ) {
            let mut obj = Map::new();
            obj.insert("id".into(), id.into());
            put_bytes(&mut obj, "command", &command);
            if std::str::from_utf8(&command).is_err() {
                obj.remove("command");
            }
            if let Some(s) = &stdin {
                obj.insert("stdin_base64".into(), STANDARD.encode(s).into());
            }
            if let Some(t) = timeout {
                obj.insert("timeout_ms".into(), t.into());
            }
            let line = Value::Object(obj).to_string();
            match parse_request(line.as_bytes()) {
                Ok(r) => {
                    prop_assert_eq!(r.command, command);
                    prop_assert_eq!(r.stdin, stdin);
                    prop_assert_eq!(r.id.get(), id.to_string());
                }
                Err(e) => prop_assert_eq!(e.code, ErrorCode::InvalidRequest),
            }
        }
    }
}
