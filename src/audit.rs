//! The audit log: what the agent did and what the sandbox refused, for the owner.
//!
//! `audit.jsonl` in the state directory holds one JSON object per line:
//!
//! ```json
//! {"time":"2026-11-22T10:04:05.123Z","session":"s-...","event":"line","line":"rm -rf build"}
//! ```
//!
//! Events: `session` (start: root, mount point, policy), `line` (every input line, as typed),
//! `command` (argv and cwd of every command run, before anything it changes, its
//! redirections included), `effect` (every change, written *before* it is applied; a
//! redirection's `write`/`append` is written once its command is done, with the bytes the
//! command wrote through it, the truncation itself being journaled before it happens),
//! `failed` (a change that could not be applied), `refused` (a path the agent
//! was told does not exist, with the true reason it never sees), `denied` (a command the
//! policy denies), `limit` (a limit that was hit), `undo`, `rollback` and `recovery`.
//!
//! `command` records are kept in memory and written with the next record of another kind, at
//! the end of the input line, or once 64 KiB have gathered (a loop runs many commands; one
//! write per command would dominate its time); every other record is written at once, so
//! an `effect` is on disk before its change is made.
//!
//! Strings are escaped so that reading the log in a terminal is safe: JSON escapes the C0
//! controls, and this module also escapes DEL, the C1 controls (`U+009B` is a CSI), line and
//! paragraph separators and the bidirectional overrides as `\uXXXX`; bytes that are not UTF-8
//! are written as `\xNN` (four characters).
//!
//! Refusals are capped per input line ([`MAX_REFUSALS_PER_LINE`]): a glob over a directory that
//! does not exist for the agent may be refused thousands of times; the rest are counted in one
//! `refused_more` event.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use cap_std::fs::{Dir, File, OpenOptions};
use serde_json::{Map, Value};

/// The name of the log in the state directory.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// How many `refused` events one input line may log.
pub const MAX_REFUSALS_PER_LINE: u32 = 100;

/// The bytes of `command` records kept before they are written with the next record that
/// is not one, at the end of the input line, or once this many have gathered.
const COMMAND_BUFFER: usize = 64 * 1024;

/// An open audit log.
pub struct Audit {
    /// The log, and the `command` records not written yet.
    file: Mutex<(Option<File>, Vec<u8>)>,
    session: String,
    refusals: AtomicU32,
}

impl Audit {
    /// Opens (appends to) the log in `state`. A log that cannot be opened leaves auditing
    /// off rather than stopping the session; `trumansh log` reports what exists.
    pub fn open(state: &Dir, session: &str) -> Audit {
        let mut opts = OpenOptions::new();
        opts.create(true).append(true);
        let file = state.open_with(AUDIT_FILE, &opts).ok();
        Audit {
            file: Mutex::new((file, Vec::new())),
            session: session.to_string(),
            refusals: AtomicU32::new(0),
        }
    }

    /// An audit that writes nothing (tests of the sandbox alone).
    pub fn none() -> Audit {
        Audit {
            file: Mutex::new((None, Vec::new())),
            session: String::new(),
            refusals: AtomicU32::new(0),
        }
    }

    /// The session id written in every record.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Writes one event with its fields.
    pub fn event(&self, event: &str, fields: Map<String, Value>) {
        let mut text = self.head(event);
        for (k, v) in fields {
            if matches!(k.as_str(), "time" | "session" | "event") {
                continue;
            }
            text.push(',');
            push_str(&mut text, &k);
            text.push(':');
            if let Ok(t) = serde_json::to_string(&v) {
                text.push_str(&t);
            }
        }
        self.record(event, text);
    }

    /// A `command` record: the argv (the command's name first) and the cwd. One is logged
    /// for every command run, so it is written without building a map.
    pub fn command(&self, name: &str, args: &[&[u8]], cwd: &[u8]) {
        let mut text = self.head("command");
        text.push_str(",\"argv\":[");
        push_str(&mut text, name);
        for a in args {
            text.push(',');
            push_bytes(&mut text, a);
        }
        text.push_str("],\"cwd\":");
        push_bytes(&mut text, cwd);
        self.record("command", text);
    }

    /// A record's first keys: `time`, `session`, `event` (the object left open).
    fn head(&self, event: &str) -> String {
        let mut text = String::with_capacity(192);
        text.push_str("{\"time\":\"");
        text.push_str(&rfc3339_now());
        text.push_str("\",\"session\":");
        push_str(&mut text, &self.session);
        text.push_str(",\"event\":");
        push_str(&mut text, event);
        text
    }

    /// Closes a record and writes it: `command` records (one per command a loop runs)
    /// gather in memory; every other record (an effect is logged before it is applied) goes
    /// out at once, after them.
    fn record(&self, event: &str, mut text: String) {
        text.push('}');
        let mut line = escape_controls(&text).into_bytes();
        line.push(b'\n');
        let Ok(mut guard) = self.file.lock() else {
            return;
        };
        let (file, pending) = &mut *guard;
        let Some(f) = file.as_mut() else {
            return;
        };
        pending.extend_from_slice(&line);
        if event != "command" || pending.len() >= COMMAND_BUFFER {
            // Whole records in one write(2): concurrent sessions' records do not interleave.
            let _ = f.write_all(pending);
            pending.clear();
        }
    }

    /// Writes the records still in memory (at the end of each input line).
    pub fn flush(&self) {
        if let Ok(mut guard) = self.file.lock() {
            let (file, pending) = &mut *guard;
            if let Some(f) = file.as_mut()
                && !pending.is_empty()
            {
                let _ = f.write_all(pending);
            }
            pending.clear();
        }
    }

    /// A new input line starts: resets the per-line refusal count.
    pub fn new_line(&self, line: &[u8]) {
        let skipped = self
            .refusals
            .swap(0, Ordering::Relaxed)
            .saturating_sub(MAX_REFUSALS_PER_LINE);
        if skipped > 0 {
            self.event("refused_more", fields([("count", Value::from(skipped))]));
        }
        self.event("line", fields([("line", text(line))]));
    }

    /// A path the agent was told does not exist, and why.
    pub fn refused(&self, path: &[u8], reason: &str) {
        let n = self.refusals.fetch_add(1, Ordering::Relaxed);
        if n < MAX_REFUSALS_PER_LINE {
            self.event(
                "refused",
                fields([("path", text(path)), ("reason", Value::from(reason))]),
            );
        }
    }
}

/// Builds a field map from pairs.
pub fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Bytes as a log string: UTF-8 kept, other bytes as `\xNN`.
pub fn text(bytes: &[u8]) -> Value {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    Value::String(out)
}

/// Escapes the characters JSON leaves raw but a terminal would act on.
fn escape_controls(json: &str) -> String {
    // Most records are plain ASCII below DEL: nothing to escape.
    if json.bytes().all(|b| b < 0x7f) {
        return json.to_string();
    }
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let u = c as u32;
        if u == 0x7f
            || (0x80..=0x9f).contains(&u)
            || u == 0x2028
            || u == 0x2029
            || (0x202a..=0x202e).contains(&u)
            || (0x2066..=0x2069).contains(&u)
        {
            let _ = write!(out, "\\u{u:04x}");
        } else {
            out.push(c);
        }
    }
    out
}

/// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn rfc3339_now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    // The text up to the seconds is made once per second (a loop logs many records in one).
    thread_local! {
        static SECOND: std::cell::RefCell<(u64, String)> = const {
            std::cell::RefCell::new((u64::MAX, String::new()))
        };
    }
    SECOND.with(|cell| {
        let mut cache = cell.borrow_mut();
        if cache.0 != d.as_secs() {
            let full = rfc3339(d.as_secs(), 0);
            let head = full.strip_suffix(".000Z").unwrap_or(&full).to_string();
            *cache = (d.as_secs(), head);
        }
        format!("{}.{:03}Z", cache.1, d.subsec_millis())
    })
}

/// Appends a string as JSON.
fn push_str(out: &mut String, s: &str) {
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else if let Ok(t) = serde_json::to_string(s) {
        out.push_str(&t);
    }
}

/// Appends bytes as a JSON string, as [`text`] gives them.
fn push_bytes(out: &mut String, b: &[u8]) {
    match std::str::from_utf8(b) {
        Ok(s) => push_str(out, s),
        Err(_) => {
            if let Value::String(s) = text(b) {
                push_str(out, &s);
            }
        }
    }
}

/// Seconds since the epoch as an RFC 3339 UTC timestamp with milliseconds.
pub fn rfc3339(secs: u64, millis: u32) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl Drop for Audit {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339(1_795_000_000, 999), "2026-11-18T11:06:40.999Z");
    }

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        let v = text(b"a\x1b[31mred\x7f\xc2\x9b\xff\xe2\x80\xaeb\n");
        let json = escape_controls(&serde_json::to_string(&v).unwrap());
        assert_eq!(
            json, r#""a\u001b[31mred\u007f\u009b\\xFF\u202eb\n""#,
            "{json}"
        );
        assert!(json.bytes().all(|b| (0x20..0x7f).contains(&b)));
    }

    #[test]
    fn caps_refusals_per_line() {
        let dir = tempfile::tempdir().unwrap();
        let state = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        let audit = Audit::open(&state, "s-test");
        audit.new_line(b"ls /etc/*");
        for i in 0..250 {
            audit.refused(format!("/etc/{i}").as_bytes(), "outside the mount point");
        }
        audit.new_line(b"echo ok");
        let log = std::fs::read_to_string(dir.path().join(AUDIT_FILE)).unwrap();
        let events: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let refused = events.iter().filter(|e| e["event"] == "refused").count();
        assert_eq!(refused, MAX_REFUSALS_PER_LINE as usize);
        let more = events
            .iter()
            .find(|e| e["event"] == "refused_more")
            .unwrap();
        assert_eq!(more["count"], 150);
        assert_eq!(events.last().unwrap()["line"], "echo ok");
        assert_eq!(events[1]["reason"], "outside the mount point");
        assert_eq!(events[1]["session"], "s-test");
    }
}
