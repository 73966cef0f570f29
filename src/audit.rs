//! The audit log: what the agent did and what the sandbox refused, for the owner.
//!
//! `audit.jsonl` in the state directory holds one JSON object per line:
//!
//! ```json
//! {"time":"2026-11-22T10:04:05.123Z","session":"s-...","event":"line","line":"rm -rf build"}
//! ```
//!
//! Events: `session` (start: root, mount point, policy), `line` (every input, as typed, once),
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
//! # Bounded records
//!
//! The agent chooses what is logged, so every record is bounded:
//!
//! - a string field longer than [`FIELD_BYTES`] (4 KiB) is cut there (never inside a UTF-8
//!   character) and the record says how long it was: `"line":"…","line_len":1048576` (for the
//!   input line and the cwd, its length in bytes; for the other fields, in the log's text);
//! - a `command`'s argv keeps at most [`ARGV_ITEMS`] words and [`ARGV_BYTES`] bytes, each
//!   word cut at [`FIELD_BYTES`]; when anything was left out the record says what the whole
//!   was: `"argc":100001,"argv_len":91588895` (words, the name included, and their bytes);
//! - an array field keeps at most [`ARRAY_ITEMS`] items (`"errors_count":N` says how many
//!   there were), a string inside it [`NESTED_BYTES`];
//! - a record still longer than [`RECORD_BYTES`] after that is written as its head alone with
//!   `"cut":LENGTH`.
//!
//! # Refusals
//!
//! A run of the same refusal — `refused` paths with the same reason in the same directory, or
//! the same `denied` command — is one event with its exact `count` and the `last` path (when
//! it is not the first)
//! (`{"event":"refused","path":"/etc/1","reason":"outside the mount point","count":99999,
//! "last":"/etc/99999"}`); a single refusal is logged as before, without `count`. The run is
//! written when another record comes or at the end of the line. One input line logs at most
//! [`MAX_REFUSALS_PER_LINE`] refusal events; the refusals past them are counted exactly in one
//! `refused_more` event at the end of the line (`count`: paths, `denied`: commands).
//!
//! # Rotation and budget
//!
//! The log has a budget ([`Budget`], the policy's `limits.audit_bytes`, default 64 MiB, and
//! `limits.audit_segments`, default 4): `audit.jsonl` is rolled, once it would pass
//! `audit_bytes / audit_segments`, to `audit.1.jsonl`, the older segments shifted to
//! `audit.2.jsonl`, … and the oldest, `audit.(segments-1).jsonl`, dropped. The budget a
//! session uses is never more than a quarter of `write_quota_bytes` (nor less than 64 KiB a
//! segment). The log's bytes count in the quota's usage (its files do not count in
//! `file_quota`): the measure of the state directory includes the segments, and the bytes a
//! session appends are charged (never refused: the owner's record is always written) every
//! 64 KiB and when it ends; a dropped segment is given back.
//!
//! Several sessions append to the same log (`O_APPEND`, whole records in one `write(2)`).
//! The roll is made under an `flock` of the segment being rolled: a session whose
//! `audit.jsonl` reached the segment size takes the lock, and if the name still holds its
//! file, shifts the segments and opens a new `audit.jsonl`; if another session rolled it
//! first, it opens the new one. A session that appended to a file rolled by another notices
//! it at its next write (the rolled file is full) and reopens.
//!
//! # Reading
//!
//! [`open_segments`] opens the segments, oldest first (each file once, even if a roll happens
//! meanwhile); [`RevLines`] reads one from its end, in bounded memory, for `trumansh log
//! --tail`. A reader skips a line longer than [`READ_LINE_BYTES`] (no record is).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, Seek, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use cap_std::fs::{Dir, OpenOptions};
use serde_json::{Map, Value};

use crate::limits::Guard;

/// The name of the log in the state directory (its newest segment).
pub const AUDIT_FILE: &str = "audit.jsonl";

/// How many refusal events (`refused`, `denied`) one input line may log.
pub const MAX_REFUSALS_PER_LINE: u32 = 100;

/// A string field is cut at this many bytes.
pub const FIELD_BYTES: usize = 4096;

/// A string inside an array or object field is cut at this many bytes.
pub const NESTED_BYTES: usize = 1024;

/// An array field keeps at most this many items.
pub const ARRAY_ITEMS: usize = 16;

/// A `command` record keeps at most this many words of its argv (the name included)...
pub const ARGV_ITEMS: usize = 64;

/// ... and this many bytes of them.
pub const ARGV_BYTES: usize = 16 * 1024;

/// A record longer than this (after the cuts above) keeps its head only.
pub const RECORD_BYTES: usize = 32 * 1024;

/// The smallest segment a budget makes.
pub const MIN_SEGMENT_BYTES: u64 = 64 * 1024;

/// The most segments a budget has.
pub const MAX_SEGMENTS: u32 = 16;

/// A reader skips a line longer than this.
pub const READ_LINE_BYTES: usize = 1 << 20;

/// The bytes of `command` records kept before they are written with the next record that
/// is not one, at the end of the input line, or once this many have gathered.
const COMMAND_BUFFER: usize = 64 * 1024;

/// How far behind a batching log may fall while records come ([`Audit::batch`]).
const BATCH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

/// The bytes appended between two charges to the quota.
const CHARGE_BYTES: u64 = 64 * 1024;

/// The size of the blocks [`RevLines`] reads.
const BLOCK_BYTES: usize = 64 * 1024;

/// How much room the log takes: `bytes` in all, in `segments` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub bytes: u64,
    pub segments: u32,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            bytes: 64 << 20,
            segments: 4,
        }
    }
}

impl Budget {
    /// The budget a session uses under a write quota: at most a quarter of it, and at least
    /// [`MIN_SEGMENT_BYTES`] a segment; 2 to [`MAX_SEGMENTS`] segments.
    #[must_use]
    pub fn under_quota(self, quota: u64) -> Budget {
        let segments = self.segments.clamp(2, MAX_SEGMENTS);
        let floor = u64::from(segments) * MIN_SEGMENT_BYTES;
        Budget {
            bytes: self.bytes.min((quota / 4).max(floor)).max(floor),
            segments,
        }
    }

    /// The size at which `audit.jsonl` is rolled.
    pub fn segment_bytes(self) -> u64 {
        (self.bytes / u64::from(self.segments.clamp(2, MAX_SEGMENTS))).max(MIN_SEGMENT_BYTES)
    }
}

/// The name of segment `k` (0: the newest, `audit.jsonl`).
pub fn segment_name(k: u32) -> String {
    if k == 0 {
        AUDIT_FILE.to_string()
    } else {
        format!("audit.{k}.jsonl")
    }
}

/// The number of a segment's name, or `None` for another name.
pub fn segment_index(name: &str) -> Option<u32> {
    if name == AUDIT_FILE {
        return Some(0);
    }
    let k = name.strip_prefix("audit.")?.strip_suffix(".jsonl")?;
    if k.is_empty() || k.starts_with('0') || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse().ok().filter(|&k| k <= MAX_SEGMENTS * 4)
}

/// The bytes the log's segments hold in `state` (for the quota's measure).
pub fn log_bytes(state: &Dir) -> u64 {
    let Ok(entries) = state.entries() else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().and_then(segment_index).is_some())
        .filter_map(|e| e.metadata().ok())
        .filter(cap_std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

/// A run of the same refusal, not written yet.
struct Run {
    /// `refused` or `denied`.
    event: &'static str,
    /// What makes refusals the same: the directory of the path, the command.
    key: Vec<u8>,
    reason: String,
    first: Vec<u8>,
    last: Vec<u8>,
    count: u64,
}

/// The log's open file and what is not written yet.
struct Inner {
    /// The state directory (to roll); `None`: nothing is written.
    state: Option<Dir>,
    file: Option<File>,
    /// The file's size after this session's last write to it.
    size: u64,
    /// Records not written yet (`command` records, refusals).
    pending: Vec<u8>,
    budget: Budget,
    /// The quota the log's bytes are charged to.
    guard: Option<Arc<Guard>>,
    /// Bytes appended and not charged yet.
    uncharged: u64,
    run: Option<Run>,
    /// Refusal events logged on this line.
    refusals: u32,
    /// Refusals past [`MAX_REFUSALS_PER_LINE`] on this line: paths, commands.
    more_refused: u64,
    more_denied: u64,
    /// The current input (without its final newline), to log a command that is the line's
    /// words by its name only.
    line: Vec<u8>,
    /// Records are written in batches ([`Audit::batch`]).
    batch: bool,
    /// When this session last wrote to the log.
    /// When the last write was, on [`crate::limits::coarse_nanos`]'s clock.
    last_write: Option<u64>,
}

/// An open audit log.
pub struct Audit {
    inner: Mutex<Inner>,
    session: String,
    /// What every record has after its time: `","session":<session>,"event":` (see [`head`]).
    keys: String,
}

impl Audit {
    /// Opens (appends to) the log in `state`, with the default [`Budget`]. A log that cannot
    /// be opened leaves auditing off rather than stopping the session; `trumansh log` reports
    /// what exists.
    pub fn open(state: &Dir, session: &str) -> Audit {
        let file = open_log(state);
        let size = file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map_or(0, |m| m.len());
        let state = file.as_ref().and_then(|_| state.try_clone().ok());
        let mut inner = Inner::empty();
        inner.state = state;
        inner.file = file;
        inner.size = size;
        Audit::with(inner, session)
    }

    /// An audit that writes nothing (tests of the sandbox alone).
    pub fn none() -> Audit {
        Audit::with(Inner::empty(), "")
    }

    fn with(inner: Inner, session: &str) -> Audit {
        let mut keys = String::from("\",\"session\":");
        push_str(&mut keys, session);
        keys.push_str(",\"event\":");
        Audit {
            inner: Mutex::new(inner),
            session: session.to_string(),
            keys,
        }
    }

    /// Sets the log's budget (see the module doc).
    #[must_use]
    pub fn with_budget(mut self, budget: Budget) -> Audit {
        if let Ok(inner) = self.inner.get_mut() {
            inner.budget = budget;
        }
        self
    }

    /// Charges the bytes the log appends to `guard`'s quota.
    #[must_use]
    pub fn counted_by(mut self, guard: Arc<Guard>) -> Audit {
        if let Ok(inner) = self.inner.get_mut() {
            inner.guard = Some(guard);
        }
        self
    }

    /// The session id written in every record.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Writes one event with its fields (each cut as the module doc says).
    pub fn event(&self, event: &str, fields: Map<String, Value>) {
        let mut text = head(&self.keys, event);
        for (k, v) in fields {
            if matches!(k.as_str(), "time" | "session" | "event") {
                continue;
            }
            push_field(&mut text, &k, v);
        }
        self.record(event, text);
    }

    /// A `command` record: the argv (the command's name first) and the cwd. One is logged
    /// for every command run, so it is written without building a map.
    pub fn command(&self, name: &str, args: &[&[u8]], cwd: &[u8]) {
        let as_line = self
            .inner
            .lock()
            .is_ok_and(|inner| is_line(&inner.line, name, args));
        let mut text = head(&self.keys, "command");
        text.push_str(",\"argv\":[");
        push_str(&mut text, cut_str(name, FIELD_BYTES));
        if as_line {
            // The input was this command's words, word for word: they are in its `line`
            // record already (each input is logged once).
            text.push_str("],\"args\":\"line\",\"cwd\":");
            push_bytes(&mut text, cut_bytes(cwd, FIELD_BYTES));
            if cwd.len() > FIELD_BYTES {
                let _ = write!(text, ",\"cwd_len\":{}", cwd.len());
            }
            self.record("command", text);
            return;
        }
        let mut kept = 1;
        let mut kept_bytes = name.len().min(FIELD_BYTES);
        let mut cut = name.len() > FIELD_BYTES;
        let mut total = name.len() as u64;
        for a in args {
            total = total.saturating_add(a.len() as u64);
            if kept >= ARGV_ITEMS || kept_bytes >= ARGV_BYTES {
                cut = true;
                continue;
            }
            let room = FIELD_BYTES.min(ARGV_BYTES - kept_bytes);
            let piece = cut_bytes(a, room);
            cut |= piece.len() < a.len();
            text.push(',');
            push_bytes(&mut text, piece);
            kept += 1;
            kept_bytes += piece.len();
        }
        text.push(']');
        if cut {
            let _ = write!(text, ",\"argc\":{},\"argv_len\":{total}", args.len() + 1);
        }
        text.push_str(",\"cwd\":");
        push_bytes(&mut text, cut_bytes(cwd, FIELD_BYTES));
        if cwd.len() > FIELD_BYTES {
            let _ = write!(text, ",\"cwd_len\":{}", cwd.len());
        }
        self.record("command", text);
    }

    /// Closes a record and writes it: `command` records (one per command a loop runs)
    /// gather in memory; every other record (an effect is logged before it is applied) goes
    /// out at once, after them and after the refusals not written yet.
    fn record(&self, event: &str, mut text: String) {
        text.push('}');
        let mut line = escape_controls(&text);
        if line.len() > RECORD_BYTES {
            let mut short = head(&self.keys, event);
            let _ = write!(short, ",\"cut\":{}}}", line.len());
            line = Cow::Owned(escape_controls(&short).into_owned());
        }
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.file.is_none() {
            return;
        }
        inner.end_run(&self.keys);
        inner.pending.extend_from_slice(line.as_bytes());
        inner.pending.push(b'\n');
        let now = if inner.batch {
            inner.due()
        } else {
            event != "command"
        };
        if now || inner.pending.len() >= inner.buffer_bytes() {
            inner.write_out();
        }
    }

    /// The end of an input line: the refusals not written yet and the count of those past
    /// the line's cap are added, and what is in memory is written (when batching, only if
    /// the last write is [`BATCH_INTERVAL`] old).
    pub fn flush(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.end_line(&self.keys);
            if !inner.batch || inner.due() {
                inner.write_out();
            }
        }
    }

    /// Writes what is in memory now (a front end about to wait for input, or done).
    pub fn sync(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.write_out();
        }
    }

    /// Batches the records of quick lines: instead of one `write(2)` per input line, the log
    /// is written once [`BATCH_INTERVAL`] passed since its last write (so at once for a line
    /// after a pause), once a batch is [`COMMAND_BUFFER`] long, and at [`Audit::sync`] —
    /// which a front end calls before it waits for input. A session killed at once loses
    /// at most that much of its log; the journal still holds every change.
    pub fn batch(&self, on: bool) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.batch = on;
            if !on {
                inner.write_out();
            }
        }
    }

    /// A new input: logs it (once; cut at [`FIELD_BYTES`] with its length) and resets the
    /// per-line refusal count.
    pub fn new_line(&self, line: &[u8]) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.end_line(&self.keys);
            inner.refusals = 0;
            inner.line.clear();
            inner
                .line
                .extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
        }
        if let Some(plain) = short_text(line) {
            // The usual input: written as `event` would, without a map.
            let mut text = head(&self.keys, "line");
            text.push_str(",\"line\":");
            push_str(&mut text, plain);
            self.record("line", text);
            return;
        }
        let mut f = fields([("line", text(cut_bytes(line, FIELD_BYTES)))]);
        if line.len() > FIELD_BYTES {
            f.insert("line_len".into(), line.len().into());
        }
        self.event("line", f);
    }

    /// An `effect` record: a change (`op`) of `path`, with a second path (`"to"`,
    /// `"target"`) or a number (`"len"`, `"bytes"`). Written as [`Audit::event`] would,
    /// without a map when the paths are short text.
    pub fn effect(&self, op: &str, path: Option<&[u8]>, other: Option<(&str, Field<'_>)>) {
        let plain = |p: Option<&[u8]>| p.is_none_or(|p| short_text(p).is_some());
        let other_path = match other {
            Some((_, Field::Path(p))) => Some(p),
            _ => None,
        };
        if plain(path) && plain(other_path) {
            fn as_text(p: &[u8]) -> &str {
                short_text(p).unwrap_or_default()
            }
            let mut text = head(&self.keys, "effect");
            text.push_str(",\"op\":");
            push_str(&mut text, op);
            if let Some(p) = path {
                text.push_str(",\"path\":");
                push_str(&mut text, as_text(p));
            }
            if let Some((key, value)) = other {
                text.push(',');
                push_str(&mut text, key);
                text.push(':');
                match value {
                    Field::Number(n) => {
                        let _ = write!(text, "{n}");
                    }
                    Field::Path(p) => push_str(&mut text, as_text(p)),
                }
            }
            self.record("effect", text);
            return;
        }
        let mut f = fields([("op", op.into())]);
        if let Some(p) = path {
            f.insert("path".into(), text(p));
        }
        if let Some((key, value)) = other {
            let v = match value {
                Field::Path(p) => text(p),
                Field::Number(n) => n.into(),
            };
            f.insert(key.into(), v);
        }
        self.event("effect", f);
    }

    /// A path the agent was told does not exist, and why.
    pub fn refused(&self, path: &[u8], reason: &str) {
        let dir = path
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(&b""[..], |i| path.get(..i.max(1)).unwrap_or_default());
        self.refusal("refused", dir, path, reason);
    }

    /// A command the policy denies.
    pub fn denied(&self, command: &str) {
        self.refusal("denied", command.as_bytes(), command.as_bytes(), "");
    }

    fn refusal(&self, event: &'static str, key: &[u8], subject: &[u8], reason: &str) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.file.is_none() {
            return;
        }
        let subject = cut_bytes(subject, FIELD_BYTES);
        let key = cut_bytes(key, FIELD_BYTES);
        if let Some(run) = inner.run.as_mut()
            && run.event == event
            && run.reason == reason
            && run.key == key
        {
            run.count += 1;
            run.last.clear();
            run.last.extend_from_slice(subject);
            return;
        }
        inner.end_run(&self.keys);
        if inner.refusals >= MAX_REFUSALS_PER_LINE {
            if event == "denied" {
                inner.more_denied += 1;
            } else {
                inner.more_refused += 1;
            }
            return;
        }
        inner.refusals += 1;
        inner.run = Some(Run {
            event,
            key: key.to_vec(),
            reason: reason.to_string(),
            first: subject.to_vec(),
            last: subject.to_vec(),
            count: 1,
        });
    }
}

impl Inner {
    fn empty() -> Inner {
        Inner {
            state: None,
            file: None,
            size: 0,
            pending: Vec::new(),
            budget: Budget::default(),
            guard: None,
            uncharged: 0,
            run: None,
            refusals: 0,
            more_refused: 0,
            more_denied: 0,
            line: Vec::new(),
            batch: false,
            last_write: None,
        }
    }

    /// How many bytes of `command` records are kept before they are written.
    fn buffer_bytes(&self) -> usize {
        usize::try_from(self.budget.segment_bytes() / 2)
            .unwrap_or(COMMAND_BUFFER)
            .min(COMMAND_BUFFER)
    }

    /// Adds a finished record to what is not written yet.
    fn push_record(&mut self, text: &str) {
        self.pending
            .extend_from_slice(escape_controls(text).as_bytes());
        self.pending.extend_from_slice(b"}\n");
    }

    /// The run of refusals, as one record (not written yet).
    fn end_run(&mut self, keys: &str) {
        let Some(run) = self.run.take() else {
            return;
        };
        let mut text = head(keys, run.event);
        if run.event == "denied" {
            text.push_str(",\"command\":");
            push_bytes(&mut text, &run.first);
        } else {
            text.push_str(",\"path\":");
            push_bytes(&mut text, &run.first);
            text.push_str(",\"reason\":");
            push_str(&mut text, &run.reason);
        }
        if run.count > 1 {
            let _ = write!(text, ",\"count\":{}", run.count);
            if run.event != "denied" && run.last != run.first {
                text.push_str(",\"last\":");
                push_bytes(&mut text, &run.last);
            }
        }
        self.push_record(&text);
    }

    /// The end of a line: its refusals, and how many were past the cap.
    fn end_line(&mut self, keys: &str) {
        self.end_run(keys);
        if self.more_refused > 0 || self.more_denied > 0 {
            let mut text = head(keys, "refused_more");
            let _ = write!(text, ",\"count\":{}", self.more_refused);
            if self.more_denied > 0 {
                let _ = write!(text, ",\"denied\":{}", self.more_denied);
            }
            self.push_record(&text);
            self.more_refused = 0;
            self.more_denied = 0;
        }
    }

    /// Whether a batching log is due to be written.
    fn due(&self) -> bool {
        self.last_write.is_none_or(|t| {
            crate::limits::coarse_nanos().saturating_sub(t) >= BATCH_INTERVAL.as_nanos() as u64
        })
    }

    /// Writes what is pending in one `write(2)` (concurrent sessions' records do not
    /// interleave), rolling the log first if it would pass its segment size, or after if it
    /// reached it (this file was rolled by another session, or is full).
    fn write_out(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let len = self.pending.len() as u64;
        let segment = self.budget.segment_bytes();
        if self.size > 0 && self.size.saturating_add(len) > segment {
            self.roll();
        }
        let Some(f) = self.file.as_mut() else {
            self.pending.clear();
            return;
        };
        if f.write_all(&self.pending).is_ok() {
            self.uncharged = self.uncharged.saturating_add(len);
        }
        self.last_write = Some(crate::limits::coarse_nanos());
        self.pending.clear();
        // Appending leaves the offset at the end of the file: its size, other sessions'
        // records included.
        self.size = f
            .stream_position()
            .unwrap_or_else(|_| self.size.saturating_add(len));
        if self.size >= segment {
            self.roll();
        }
        if self.uncharged >= CHARGE_BYTES {
            self.charge();
        }
    }

    /// Charges what was appended to the quota.
    fn charge(&mut self) {
        if let Some(g) = &self.guard {
            g.account(i64::try_from(self.uncharged).unwrap_or(i64::MAX));
        }
        self.uncharged = 0;
    }

    /// Rolls the log (see the module doc), or reopens `audit.jsonl` if another session rolled
    /// it.
    fn roll(&mut self) {
        let (Some(state), Some(file)) = (self.state.as_ref(), self.file.as_ref()) else {
            return;
        };
        let locked = file.lock().is_ok();
        let current = match (state.symlink_metadata(AUDIT_FILE), file.metadata()) {
            (Ok(named), Ok(open)) => {
                cap_std::fs::MetadataExt::dev(&named) == open.dev()
                    && cap_std::fs::MetadataExt::ino(&named) == open.ino()
            }
            _ => false,
        };
        let mut freed = 0;
        if current {
            freed = rotate(state, self.budget.segments.clamp(2, MAX_SEGMENTS));
        }
        let new = open_log(state);
        if locked {
            let _ = file.unlock();
        }
        self.size = new
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map_or(0, |m| m.len());
        if let Some(new) = new {
            self.file = Some(new);
        }
        if freed > 0
            && let Some(g) = &self.guard
        {
            g.account(-i64::try_from(freed).unwrap_or(i64::MAX));
        }
    }
}

impl Drop for Audit {
    fn drop(&mut self) {
        if let Ok(inner) = self.inner.get_mut() {
            inner.end_line(&self.keys);
            inner.write_out();
            inner.charge();
        }
    }
}

/// Whether `line` is `name` and `args` joined by single spaces, no word holding a space or
/// being empty: splitting the line at its spaces gives the argv back.
fn is_line(line: &[u8], name: &str, args: &[&[u8]]) -> bool {
    let len = args.iter().map(|a| a.len() + 1).sum::<usize>() + name.len();
    if len != line.len() || name.is_empty() {
        return false;
    }
    let Some(mut rest) = line.strip_prefix(name.as_bytes()) else {
        return false;
    };
    for a in args {
        if a.is_empty() || a.contains(&b' ') {
            return false;
        }
        let Some(r) = rest.strip_prefix(b" ").and_then(|r| r.strip_prefix(*a)) else {
            return false;
        };
        rest = r;
    }
    rest.is_empty() && !name.contains(' ')
}

/// Opens `audit.jsonl` in `state` to append (created if missing).
fn open_log(state: &Dir) -> Option<File> {
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    state
        .open_with(AUDIT_FILE, &opts)
        .ok()
        .map(cap_std::fs::File::into_std)
}

/// Shifts the segments: drops the oldest (and any past the count, left by a larger setting),
/// renames `audit.K.jsonl` to `audit.K+1.jsonl`, and `audit.jsonl` to `audit.1.jsonl`.
/// Returns the bytes dropped.
fn rotate(state: &Dir, segments: u32) -> u64 {
    let mut freed = 0;
    for k in (segments - 1)..=MAX_SEGMENTS * 4 {
        let name = segment_name(k);
        match state.symlink_metadata(&name) {
            Ok(m) => {
                if state.remove_file(&name).is_ok() {
                    freed += m.len();
                }
            }
            Err(_) if k >= MAX_SEGMENTS => break,
            Err(_) => {}
        }
    }
    for k in (0..segments - 1).rev() {
        let _ = state.rename(segment_name(k), state, segment_name(k + 1));
    }
    freed
}

/// The log's segments in `state`, oldest first. They are opened newest first and each file
/// once, so that a roll while they are opened neither hides a segment nor shows one twice.
pub fn open_segments(state: &Dir) -> io::Result<Vec<File>> {
    let mut numbers: Vec<u32> = Vec::new();
    for entry in state.entries()? {
        if let Some(k) = entry?.file_name().to_str().and_then(segment_index) {
            numbers.push(k);
        }
    }
    numbers.sort_unstable();
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for k in numbers {
        let f = match state.open(segment_name(k)) {
            Ok(f) => f.into_std(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        let m = f.metadata()?;
        if m.is_file() && seen.insert((m.dev(), m.ino())) {
            files.push(f);
        }
    }
    files.reverse();
    Ok(files)
}

/// One line a reader read.
#[derive(Debug, PartialEq, Eq)]
pub enum LogLine {
    /// Its bytes, without the newline.
    Line(Vec<u8>),
    /// A line longer than [`READ_LINE_BYTES`], skipped.
    TooLong,
}

/// Reads the next line of `r` in bounded memory (into `buf`, without its newline); `None` at
/// the end.
pub fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<LogLine>> {
    buf.clear();
    let mut long = false;
    let mut any = false;
    loop {
        let avail = r.fill_buf()?;
        if avail.is_empty() {
            return Ok(any.then(|| end_line(buf, long)));
        }
        any = true;
        let (take, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i, i + 1),
            None => (avail.len(), avail.len()),
        };
        if !long {
            buf.extend_from_slice(avail.get(..take).unwrap_or_default());
            if buf.len() > READ_LINE_BYTES {
                long = true;
                buf.clear();
            }
        }
        let newline = done > take;
        r.consume(done);
        if newline {
            return Ok(Some(end_line(buf, long)));
        }
    }
}

fn end_line(buf: &mut Vec<u8>, long: bool) -> LogLine {
    if long {
        LogLine::TooLong
    } else {
        LogLine::Line(std::mem::take(buf))
    }
}

/// A file's lines, last first, read from its end in blocks: at most a block and one line
/// ([`READ_LINE_BYTES`]) in memory.
pub struct RevLines {
    file: File,
    /// The file offset of `data`'s first byte.
    start: u64,
    /// The bytes not yet returned: `file[start..start + data.len()]`.
    data: Vec<u8>,
    /// The bytes at the start of `data` not yet searched for a newline.
    unscanned: usize,
    too_long: bool,
    done: bool,
}

impl RevLines {
    /// Reads `file` from its end (a final newline ends the last line).
    pub fn new(file: File) -> io::Result<RevLines> {
        let mut len = file.metadata()?.len();
        let mut last = [0u8; 1];
        if len > 0 && file.read_exact_at(&mut last, len - 1).is_ok() && last == [b'\n'] {
            len -= 1;
        }
        let empty = file.metadata()?.len() == 0;
        Ok(RevLines {
            file,
            start: len,
            data: Vec::new(),
            unscanned: 0,
            too_long: false,
            done: empty,
        })
    }
}

impl Iterator for RevLines {
    type Item = io::Result<LogLine>;

    fn next(&mut self) -> Option<io::Result<LogLine>> {
        loop {
            let newline = self
                .data
                .get(..self.unscanned)
                .and_then(|d| d.iter().rposition(|&b| b == b'\n'));
            if let Some(i) = newline {
                let line = self.data.split_off(i + 1);
                self.data.truncate(i);
                self.unscanned = i;
                let long = std::mem::take(&mut self.too_long) || line.len() > READ_LINE_BYTES;
                return Some(Ok(if long {
                    LogLine::TooLong
                } else {
                    LogLine::Line(line)
                }));
            }
            self.unscanned = 0;
            if self.data.len() > READ_LINE_BYTES {
                self.data = Vec::new();
                self.too_long = true;
            }
            if self.start == 0 {
                if self.done {
                    return None;
                }
                self.done = true;
                let line = std::mem::take(&mut self.data);
                let long = std::mem::take(&mut self.too_long);
                return Some(Ok(if long {
                    LogLine::TooLong
                } else {
                    LogLine::Line(line)
                }));
            }
            let n = self.start.min(BLOCK_BYTES as u64);
            self.start -= n;
            let n = usize::try_from(n).unwrap_or(BLOCK_BYTES);
            let mut block = vec![0u8; n];
            if let Err(e) = self.file.read_exact_at(&mut block, self.start) {
                self.done = true;
                self.start = 0;
                self.data.clear();
                return Some(Err(e));
            }
            block.extend_from_slice(&self.data);
            self.data = block;
            self.unscanned = n;
        }
    }
}

/// A record's first keys: `time`, then `keys` (the session's, see [`Audit::keys`]) and
/// `event` (the object left open).
fn head(keys: &str, event: &str) -> String {
    let mut text = String::with_capacity(192);
    text.push_str("{\"time\":\"");
    push_rfc3339_now(&mut text);
    text.push_str(keys);
    push_str(&mut text, event);
    text
}

/// Appends `,"key":value`, the value cut as the module doc says.
fn push_field(text: &mut String, key: &str, mut v: Value) {
    let mut extra = None;
    match &mut v {
        Value::String(s) if s.len() > FIELD_BYTES => {
            extra = Some(("_len", s.len()));
            let keep = cut_str(s, FIELD_BYTES).len();
            s.truncate(keep);
        }
        Value::Array(a) if a.len() > ARRAY_ITEMS => {
            extra = Some(("_count", a.len()));
            a.truncate(ARRAY_ITEMS);
        }
        _ => {}
    }
    cap_nested(&mut v, 0);
    text.push(',');
    push_str(text, key);
    text.push(':');
    if let Ok(t) = serde_json::to_string(&v) {
        text.push_str(&t);
    }
    if let Some((suffix, n)) = extra {
        text.push(',');
        push_str(text, &format!("{key}{suffix}"));
        let _ = write!(text, ":{n}");
    }
}

/// Cuts the strings and arrays inside a value (a nested value has no `_len`).
fn cap_nested(v: &mut Value, depth: usize) {
    match v {
        Value::String(s) if s.len() > NESTED_BYTES && depth > 0 => {
            let keep = cut_str(s, NESTED_BYTES).len();
            s.truncate(keep);
        }
        Value::Array(a) => {
            a.truncate(ARRAY_ITEMS);
            if depth < 4 {
                for x in a.iter_mut() {
                    cap_nested(x, depth + 1);
                }
            } else {
                a.clear();
            }
        }
        Value::Object(m) => {
            if depth < 4 {
                for x in m.values_mut() {
                    cap_nested(x, depth + 1);
                }
            } else {
                m.clear();
            }
        }
        _ => {}
    }
}

/// The longest start of `s` of at most `max` bytes that ends on a character boundary.
fn cut_str(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or_default()
}

/// The start of `b` of at most `max` bytes, not ending inside a UTF-8 character.
fn cut_bytes(b: &[u8], max: usize) -> &[u8] {
    if b.len() <= max {
        return b;
    }
    let cont = |i: usize| b.get(i).is_some_and(|&c| c & 0xc0 == 0x80);
    // The start of the character the cut falls in (at most 3 continuation bytes back).
    let mut start = max;
    while start > 0 && max - start < 3 && cont(start) {
        start -= 1;
    }
    let len = match b.get(start) {
        Some(0xc0..=0xdf) => 2,
        Some(0xe0..=0xef) => 3,
        Some(0xf0..) => 4,
        _ => 1,
    };
    let end = if start < max && start + len > max {
        start
    } else {
        max
    };
    b.get(..end).unwrap_or_default()
}

/// A field of an [`Audit::effect`] record.
#[derive(Clone, Copy)]
pub enum Field<'a> {
    Path(&'a [u8]),
    Number(u64),
}

/// `bytes` as text when it is UTF-8 of at most [`FIELD_BYTES`] (written as it is, nothing
/// cut).
fn short_text(bytes: &[u8]) -> Option<&str> {
    if bytes.len() > FIELD_BYTES {
        return None;
    }
    std::str::from_utf8(bytes).ok()
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
fn escape_controls(json: &str) -> Cow<'_, str> {
    // Most records are plain ASCII below DEL: nothing to escape.
    if json.is_ascii() && memchr::memchr(0x7f, json.as_bytes()).is_none() {
        return Cow::Borrowed(json);
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
    Cow::Owned(out)
}

/// Appends the current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn push_rfc3339_now(out: &mut String) {
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
        out.push_str(&cache.1);
    });
    let ms = d.subsec_millis();
    out.push('.');
    for div in [100, 10, 1] {
        out.push(char::from(b'0' + (ms / div % 10) as u8));
    }
    out.push('Z');
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
        let json = escape_controls(&serde_json::to_string(&v).unwrap()).into_owned();
        assert_eq!(
            json, r#""a\u001b[31mred\u007f\u009b\\xFF\u202eb\n""#,
            "{json}"
        );
        assert!(json.bytes().all(|b| (0x20..0x7f).contains(&b)));
    }

    /// The records of every segment in `dir`, oldest first.
    fn records(dir: &std::path::Path) -> Vec<Value> {
        let state = Dir::open_ambient_dir(dir, cap_std::ambient_authority()).unwrap();
        let mut out = Vec::new();
        for f in open_segments(&state).unwrap() {
            let mut r = std::io::BufReader::new(f);
            let mut buf = Vec::new();
            while let Some(line) = read_line(&mut r, &mut buf).unwrap() {
                assert!(matches!(line, LogLine::Line(_)), "a record too long");
                if let LogLine::Line(l) = line {
                    out.push(serde_json::from_slice(&l).unwrap());
                }
            }
        }
        out
    }

    fn opened(dir: &std::path::Path, session: &str) -> Audit {
        let state = Dir::open_ambient_dir(dir, cap_std::ambient_authority()).unwrap();
        Audit::open(&state, session)
    }

    #[test]
    fn caps_refusals_per_line_and_counts_the_rest_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let audit = opened(dir.path(), "s-test");
        audit.new_line(b"cat /etc/*/x");
        // 250 refusals, each in a directory of its own: no run to collapse.
        for i in 0..250 {
            audit.refused(format!("/etc/{i}/x").as_bytes(), "outside the mount point");
        }
        audit.flush();
        audit.new_line(b"echo ok");
        drop(audit);
        let events = records(dir.path());
        let refused: Vec<&Value> = events.iter().filter(|e| e["event"] == "refused").collect();
        assert_eq!(refused.len(), MAX_REFUSALS_PER_LINE as usize);
        assert!(refused.iter().all(|e| e.get("count").is_none()));
        assert_eq!(refused[0]["path"], "/etc/0/x");
        assert_eq!(refused[0]["reason"], "outside the mount point");
        assert_eq!(refused[0]["session"], "s-test");
        let more = events
            .iter()
            .position(|e| e["event"] == "refused_more")
            .unwrap();
        assert_eq!(events[more]["count"], 150);
        // Written at the end of its line, before the next line.
        assert_eq!(events[more + 1]["line"], "echo ok");
    }

    #[test]
    fn a_run_of_the_same_refusal_is_one_event_with_its_count() {
        let dir = tempfile::tempdir().unwrap();
        let audit = opened(dir.path(), "s-test");
        audit.new_line(b"ls /etc/{1..99999}");
        for i in 1..=99_999 {
            audit.refused(format!("/etc/{i}").as_bytes(), "outside the mount point");
        }
        audit.refused(b"/home/user/.env", "hidden by policy");
        for _ in 0..3 {
            audit.denied("date");
        }
        audit.command("echo", &[b"x"], b"/");
        audit.refused(b"/etc/passwd", "outside the mount point");
        drop(audit);
        let events = records(dir.path());
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            ["line", "refused", "refused", "denied", "command", "refused"]
        );
        assert_eq!(events[1]["path"], "/etc/1");
        assert_eq!(events[1]["last"], "/etc/99999");
        assert_eq!(events[1]["count"], 99_999);
        assert_eq!(events[2]["path"], "/home/user/.env");
        assert!(events[2].get("count").is_none());
        assert_eq!(events[3]["command"], "date");
        assert_eq!(events[3]["count"], 3);
        assert!(events[5].get("count").is_none());
    }

    #[test]
    fn long_fields_are_cut_with_their_length() {
        let dir = tempfile::tempdir().unwrap();
        let audit = opened(dir.path(), "s-test");
        let line = format!("true {}", "é".repeat(1 << 19));
        audit.new_line(line.as_bytes());
        let arg = vec![b'A'; 900];
        let args: Vec<&[u8]> = (0..99_999).map(|_| arg.as_slice()).collect();
        audit.command("true", &args, b"/home/user");
        let big = vec![b'B'; 1 << 20];
        audit.command("true", &[&big], b"/home/user");
        audit.event(
            "undo",
            fields([
                ("line", Value::from("x".repeat(10_000))),
                ("errors", Value::from(vec!["e".repeat(9000); 1000])),
            ]),
        );
        drop(audit);
        let log = std::fs::read(dir.path().join(AUDIT_FILE)).unwrap();
        assert!(log.len() < 64 * 1024, "{}", log.len());
        let events = records(dir.path());
        let l = events[0]["line"].as_str().unwrap();
        assert!(
            l.len() <= FIELD_BYTES && l.len() > FIELD_BYTES - 4,
            "{}",
            l.len()
        );
        assert!(l.starts_with("true éé"));
        assert_eq!(events[0]["line_len"], line.len());
        let words = events[1]["argv"].as_array().unwrap();
        assert!(words.len() <= ARGV_ITEMS);
        assert_eq!(events[1]["argc"], 100_000);
        assert_eq!(events[1]["argv_len"], 4 + 99_999 * 900);
        assert_eq!(events[1]["cwd"], "/home/user");
        assert_eq!(events[2]["argv"][1].as_str().unwrap().len(), FIELD_BYTES);
        assert_eq!(events[2]["argc"], 2);
        assert_eq!(events[2]["argv_len"], 4 + (1 << 20));
        assert_eq!(events[3]["line_len"], 10_000);
        assert_eq!(events[3]["errors_count"], 1000);
        assert_eq!(events[3]["errors"].as_array().unwrap().len(), ARRAY_ITEMS);
        // A short command is as before.
        let audit = opened(dir.path(), "s-test");
        audit.command("echo", &[b"hi"], b"/home/user");
        drop(audit);
        let last = records(dir.path()).pop().unwrap();
        assert_eq!(last["argv"], serde_json::json!(["echo", "hi"]));
        assert!(last.get("argc").is_none());
    }

    #[test]
    fn cuts_never_split_a_character() {
        assert_eq!(cut_bytes("aé".as_bytes(), 2), b"a");
        assert_eq!(cut_bytes("aé".as_bytes(), 3), "aé".as_bytes());
        assert_eq!(cut_bytes("a€".as_bytes(), 3), b"a");
        assert_eq!(cut_bytes(b"a\x80\x80\x80\x80\x80", 3), b"a\x80\x80");
        assert_eq!(cut_str("a€b", 2), "a");
        assert_eq!(cut_str("a€b", 4), "a€");
    }

    #[test]
    fn rotation_keeps_the_log_within_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget {
            bytes: 256 * 1024,
            segments: 4,
        };
        let arg = vec![b'A'; 3000];
        {
            let audit = opened(dir.path(), "s-a").with_budget(budget);
            for i in 0..2000 {
                audit.new_line(format!("echo {i}").as_bytes());
                audit.command("echo", &[&arg], b"/");
                audit.event("effect", fields([("op", "write".into())]));
            }
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "audit.1.jsonl",
                "audit.2.jsonl",
                "audit.3.jsonl",
                "audit.jsonl"
            ]
        );
        let state = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        let total = log_bytes(&state);
        assert!(total <= budget.bytes, "{total}");
        assert!(total > budget.bytes / 2, "{total}");
        // The newest records are kept, in order, none torn.
        let events = records(dir.path());
        let lines: Vec<&str> = events
            .iter()
            .filter(|e| e["event"] == "line")
            .map(|e| e["line"].as_str().unwrap())
            .collect();
        assert_eq!(*lines.last().unwrap(), "echo 1999");
        let first: usize = lines[0].strip_prefix("echo ").unwrap().parse().unwrap();
        let expected: Vec<String> = (first..2000).map(|i| format!("echo {i}")).collect();
        assert_eq!(lines, expected);
        // A smaller count later: the segments past it go at the next roll.
        let audit = opened(dir.path(), "s-b").with_budget(Budget {
            bytes: 256 * 1024,
            segments: 2,
        });
        for i in 0..100 {
            audit.command("echo", &[&arg], format!("/{i}").as_bytes());
        }
        drop(audit);
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 2);
    }

    #[test]
    fn sessions_rolling_the_same_log_keep_records_whole_in_order_and_stay_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget {
            bytes: 1 << 20,
            segments: 8,
        };
        let arg = vec![b'A'; 500];
        let handles: Vec<_> = (0..4)
            .map(|k| {
                let path = dir.path().to_path_buf();
                let arg = arg.clone();
                std::thread::spawn(move || {
                    let audit = opened(&path, &format!("s-{k}")).with_budget(budget);
                    for i in 0..1500 {
                        audit.new_line(format!("{k} {i}").as_bytes());
                        audit.command("echo", &[&arg], b"/");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let state = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        let total = log_bytes(&state);
        // Each writer may add one batch to a segment another rolled.
        assert!(total <= budget.bytes + 4 * 64 * 1024, "{total}");
        // Every record whole; for each session, its lines that are kept are in order, each
        // once. (A session that finished early may have had all its lines rolled away by the
        // others; the newest line of the log is some session's last.)
        let events = records(dir.path());
        let newest = events.iter().rev().find(|e| e["event"] == "line").unwrap();
        assert!(newest["line"].as_str().unwrap().ends_with(" 1499"));
        for k in 0..4 {
            let mine: Vec<usize> = events
                .iter()
                .filter(|e| e["event"] == "line" && e["session"] == format!("s-{k}"))
                .map(|e| {
                    e["line"]
                        .as_str()
                        .unwrap()
                        .split(' ')
                        .nth(1)
                        .unwrap()
                        .parse()
                        .unwrap()
                })
                .collect();
            assert!(
                mine.windows(2).all(|w| matches!(w, [a, b] if a < b)),
                "s-{k}: {mine:?}"
            );
        }
    }

    #[test]
    fn the_log_is_charged_to_the_quota_and_dropped_segments_given_back() {
        let dir = tempfile::tempdir().unwrap();
        let guard = Arc::new(Guard::new(1 << 30, 1000));
        // The usage is known (measured: nothing yet).
        assert_eq!(guard.usage_with(crate::limits::Usage::default).bytes, 0);
        let budget = Budget {
            bytes: 512 * 1024,
            segments: 4,
        };
        let arg = vec![b'A'; 1000];
        let audit = opened(dir.path(), "s-q")
            .with_budget(budget)
            .counted_by(Arc::clone(&guard));
        for _ in 0..3000 {
            audit.command("true", &[&arg], b"/");
        }
        drop(audit);
        let state = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        let on_disk = log_bytes(&state);
        assert!(on_disk <= budget.bytes);
        assert_eq!(
            guard.usage_with(crate::limits::Usage::default).bytes,
            on_disk
        );
    }

    /// A file's lines as `RevLines` gives them, reversed back, against a forward split.
    fn rev_matches_forward(content: &[u8]) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, content).unwrap();
        let mut back: Vec<LogLine> = RevLines::new(File::open(&path).unwrap())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        back.reverse();
        let mut fwd = Vec::new();
        let mut r = std::io::BufReader::with_capacity(4096, File::open(&path).unwrap());
        let mut buf = Vec::new();
        while let Some(l) = read_line(&mut r, &mut buf).unwrap() {
            fwd.push(l);
        }
        let show = |v: &[LogLine]| -> Vec<isize> {
            v.iter()
                .map(|l| match l {
                    LogLine::Line(b) => b.len() as isize,
                    LogLine::TooLong => -1,
                })
                .collect()
        };
        assert_eq!(show(&back), show(&fwd), "{} bytes", content.len());
        assert_eq!(back, fwd, "{} bytes", content.len());
    }

    #[test]
    fn reads_from_the_end_as_forward() {
        rev_matches_forward(b"");
        rev_matches_forward(b"\n");
        rev_matches_forward(b"a");
        rev_matches_forward(b"a\n");
        rev_matches_forward(b"a\n\nb");
        rev_matches_forward(b"\n\na\n\n");
        let mut seed = 7u64;
        for round in 0..40 {
            let mut content = Vec::new();
            for _ in 0..(round * 5) {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let len = match seed >> 60 {
                    0 => 0,
                    // A few lines too long to read, in the first rounds only (debug builds).
                    1 if round < 6 => READ_LINE_BYTES + 1 + (seed >> 40) as usize % 100_000,
                    2 => BLOCK_BYTES - 1 + (seed >> 50) as usize % 3,
                    _ => (seed >> 33) as usize % 300,
                };
                content.extend(std::iter::repeat_n(b'a' + (round % 26) as u8, len));
                content.push(b'\n');
            }
            if round % 2 == 1 {
                content.extend_from_slice(b"no newline");
            }
            rev_matches_forward(&content);
        }
    }

    #[test]
    fn a_long_line_is_skipped_in_bounded_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut content = b"first\n".to_vec();
        content.extend(std::iter::repeat_n(b'x', 5 * READ_LINE_BYTES));
        content.extend_from_slice(b"\nlast\n");
        std::fs::write(&path, &content).unwrap();
        let mut lines = RevLines::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(
            lines.next().unwrap().unwrap(),
            LogLine::Line(b"last".to_vec())
        );
        assert_eq!(lines.next().unwrap().unwrap(), LogLine::TooLong);
        assert!(lines.data.capacity() <= READ_LINE_BYTES + 2 * BLOCK_BYTES);
        assert_eq!(
            lines.next().unwrap().unwrap(),
            LogLine::Line(b"first".to_vec())
        );
        assert!(lines.next().is_none());
    }
}
