//! The owner's side of a sandbox: `trumansh trash list|restore|purge` and `trumansh log`.
//!
//! These run on the host, outside any session: the agent has no command that reaches them
//! (`trash` and `log` are `command not found` in a session). They work on the state directory
//! of a sandbox opened with [`Sandbox::open`]:
//!
//! - the trash, `trash/<id>/data` with `trash/<id>/info.json` (see [`crate::state`]): listed
//!   oldest first, restored through [`Sandbox::unstash`] (a link comes back as a link, nothing
//!   is ever overwritten, and the root handle keeps the destination inside the root), and
//!   purged for real;
//! - the audit log, `audit.jsonl` (see [`crate::audit`]), rendered one line per event.
//!
//! Everything printed for a terminal goes through [`sanitize`]: the agent chose the names and
//! the lines, and none of its control characters reaches the owner's terminal.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::BufReader;
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use cap_std::fs::Dir;
use serde_json::{Map, Value};

use crate::audit::{LogLine, RevLines, fields, open_segments, read_line, rfc3339};
use crate::sandbox::{Loc, STATE_DIR_NAME, Sandbox};
use crate::txn::trash::TrashInfo;

/// The trash's directory in the state directory.
const TRASH_DIR: &str = "trash";

/// An owner's command that failed: the message (without the `trumansh: ` prefix) and the
/// exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerError {
    pub message: String,
    pub status: u8,
}

impl OwnerError {
    fn new(message: impl Into<String>) -> OwnerError {
        OwnerError {
            message: message.into(),
            status: 1,
        }
    }
}

impl std::fmt::Display for OwnerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OwnerError {}

/// What a trash entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Link,
    /// A fifo, socket or device (never made by the agent, but possible in a copied tree).
    Other,
    /// The entry has no `data` (an entry whose move was interrupted).
    Missing,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Link => "link",
            Kind::Other => "other",
            Kind::Missing => "missing",
        }
    }
}

/// One entry of the trash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrashEntry {
    /// The entry's directory name, `t-<nanoseconds>-<pid>-<n>`.
    pub id: String,
    /// What the trash recorded (an entry without a readable `info.json` has an empty `path`
    /// and `rel`, and the directory's modification time).
    pub info: TrashInfo,
    /// Bytes held: a file's length, a link's target length, a directory's contents summed
    /// (links not followed).
    pub size: u64,
    pub kind: Kind,
}

impl TrashEntry {
    /// The entry's directory, relative to the state directory.
    fn dir(&self) -> PathBuf {
        Path::new(TRASH_DIR).join(&self.id)
    }
}

/// The trash's entries, oldest first.
pub fn trash_entries(sandbox: &Sandbox) -> Result<Vec<TrashEntry>, OwnerError> {
    let state = sandbox.state_dir();
    let dir = match state.read_dir(TRASH_DIR) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(OwnerError::new(format!("cannot read the trash: {e}"))),
    };
    let mut entries = Vec::new();
    for entry in dir.flatten() {
        let Ok(id) = entry.file_name().into_string() else {
            continue; // not a name the trash makes
        };
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let base = Path::new(TRASH_DIR).join(&id);
        let info = state
            .read_to_string(base.join("info.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<TrashInfo>(&t).ok())
            .unwrap_or_else(|| TrashInfo {
                path: String::new(),
                rel: String::new(),
                time: state
                    .symlink_metadata(&base)
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .map_or(0, |t| secs_since_epoch(t.into_std())),
                undo: None,
            });
        let (kind, size) = measure(state, &base.join("data"));
        entries.push(TrashEntry {
            id,
            info,
            size,
            kind,
        });
    }
    entries.sort_by(|a, b| (a.info.time, &a.id).cmp(&(b.info.time, &b.id)));
    Ok(entries)
}

fn secs_since_epoch(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Seconds since the epoch, now.
pub fn now_secs() -> u64 {
    secs_since_epoch(SystemTime::now())
}

/// What is at `path` in `dir` and how many bytes it holds (iteratively; links not followed).
fn measure(dir: &Dir, path: &Path) -> (Kind, u64) {
    let Ok(m) = dir.symlink_metadata(path) else {
        return (Kind::Missing, 0);
    };
    let ft = m.file_type();
    if ft.is_symlink() {
        return (Kind::Link, m.len());
    }
    if ft.is_file() {
        return (Kind::File, m.len());
    }
    if !ft.is_dir() {
        return (Kind::Other, 0);
    }
    let mut size = 0u64;
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(entries) = dir.read_dir(&p) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else {
                continue;
            };
            if ft.is_dir() {
                stack.push(p.join(entry.file_name()));
            } else if ft.is_file() || ft.is_symlink() {
                // A DirEntry's metadata does not follow a link.
                if let Ok(m) = entry.metadata() {
                    size = size.saturating_add(m.len());
                }
            }
        }
    }
    (Kind::Dir, size)
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) for seconds since the epoch.
pub fn utc_time(secs: u64) -> String {
    let full = rfc3339(secs, 0);
    format!("{} {}", &full[..10], &full[11..19])
}

/// One entry as `trash list --json` prints it (and the MCP server's `trash_list` returns it):
/// `id`, `time` (RFC 3339, UTC), `unix_time`, `size`, `kind`, `path` (the agent's), `rel`
/// (relative to the root), and `undo` for what an undo replaced or removed.
pub fn trash_entry_json(e: &TrashEntry) -> Value {
    let mut v = fields([
        ("id", e.id.clone().into()),
        ("time", rfc3339(e.info.time, 0).into()),
        ("unix_time", e.info.time.into()),
        ("size", e.size.into()),
        ("kind", e.kind.as_str().into()),
        ("path", e.info.path.clone().into()),
        ("rel", e.info.rel.clone().into()),
    ]);
    // What an undo put there: which undo (its data mirrors the root; restore it with --to).
    if let Some(undo) = &e.info.undo {
        v.insert("undo".into(), undo.clone().into());
    }
    Value::Object(v)
}

/// The rows of `trash list`: an aligned table with a header, or one JSON object per line.
/// Nothing at all for an empty trash.
pub fn format_trash_list(entries: &[TrashEntry], json: bool) -> String {
    let mut out = String::new();
    if json {
        for e in entries {
            let v = trash_entry_json(e);
            out.push_str(&escape_json_for_terminal(&v.to_string()));
            out.push('\n');
        }
        return out;
    }
    if entries.is_empty() {
        return out;
    }
    let header = ["ID", "TIME (UTC)", "SIZE", "KIND", "PATH"];
    let rows: Vec<[String; 5]> = entries
        .iter()
        .map(|e| {
            [
                sanitize(&e.id),
                utc_time(e.info.time),
                e.size.to_string(),
                e.kind.as_str().to_string(),
                if e.info.path.is_empty() {
                    "?".to_string()
                } else {
                    sanitize(&e.info.path)
                },
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: [&str; 5]| {
        let _ = write!(
            out,
            "{:<w0$}  {:<w1$}  {:>w2$}  {:<w3$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        );
        out.push('\n');
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4]]);
    }
    out
}

/// Where a restore goes and how the owner's paths are read.
#[derive(Debug, Clone, Default)]
pub struct RestoreOptions {
    /// `--to`: relative to the root, or an absolute host path inside the root.
    pub to: Option<PathBuf>,
    /// The root as the owner wrote it (an absolute path under it is accepted even when the
    /// root's canonical path differs, e.g. through a link).
    pub root_arg: Option<PathBuf>,
    /// The state directory is `.trash/` inside the root: nothing is restored into it.
    pub state_in_root: bool,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub id: String,
    /// The host path the entry now has.
    pub to: PathBuf,
}

/// Restores a trash entry named by its id or by its original path (the newest entry with
/// that path), to where it was or to `options.to`. Never overwrites, never leaves the root.
pub fn trash_restore(
    sandbox: &Sandbox,
    target: &str,
    options: &RestoreOptions,
) -> Result<Restored, OwnerError> {
    let entries = trash_entries(sandbox)?;
    let entry = find_entry(sandbox, &entries, target, options.root_arg.as_deref())
        .ok_or_else(|| OwnerError::new(format!("{}: no such trash entry", sanitize(target))))?;
    if entry.kind == Kind::Missing {
        return Err(OwnerError::new(format!(
            "{}: the entry holds nothing (its move to the trash was interrupted)",
            entry.id
        )));
    }
    let outside = |p: &Path| {
        OwnerError::new(format!(
            "{}: outside the root {}",
            sanitize_path(p),
            sanitize_path(sandbox.root_host())
        ))
    };
    let rel = match &options.to {
        // The owner's path is read as a shell would: `..` is lexical, and may not leave.
        Some(to) => root_relative(sandbox, to, options.root_arg.as_deref())
            .and_then(|r| normalize_relative(&r))
            .ok_or_else(|| outside(to))?,
        // Where the entry was, as recorded (the kernel resolves it beneath the root).
        None if entry.info.rel.is_empty() => {
            return Err(OwnerError::new(format!(
                "{}: the original location is not recorded; give --to PATH",
                entry.id
            )));
        }
        None => PathBuf::from(&entry.info.rel),
    };
    let to = sandbox
        .root_host()
        .join(normalize_relative(&rel).unwrap_or_else(|| rel.clone()));
    let shown = sanitize_path(&to);
    if normalize_relative(&rel).is_some_and(|n| n.as_os_str().is_empty()) {
        return Err(OwnerError::new(format!("{shown}: File exists")));
    }
    if options.state_in_root
        && normalize_relative(&rel)
            .and_then(|n| {
                n.components()
                    .next()
                    .map(|c| c.as_os_str() == STATE_DIR_NAME)
            })
            .unwrap_or(false)
    {
        return Err(OwnerError::new(format!(
            "{shown}: inside the state directory"
        )));
    }
    let data = entry.dir().join("data");
    sandbox
        .unstash(&data, &Loc::physical(rel))
        .map_err(|e| OwnerError::new(format!("{shown}: {}", e.strerror())))?;
    let _ = sandbox.state_dir().remove_dir_all(entry.dir());
    sandbox.audit().event(
        "trash_restore",
        fields([
            ("id", entry.id.clone().into()),
            ("path", entry.info.path.clone().into()),
            ("to", to.to_string_lossy().into_owned().into()),
        ]),
    );
    Ok(Restored {
        id: entry.id.clone(),
        to,
    })
}

/// The entry `target` names: an id, else the newest entry whose recorded path is `target`
/// (the agent's path exactly, the root-relative path, or an absolute host path in the root).
fn find_entry<'a>(
    sandbox: &Sandbox,
    entries: &'a [TrashEntry],
    target: &str,
    root_arg: Option<&Path>,
) -> Option<&'a TrashEntry> {
    if let Some(e) = entries.iter().find(|e| e.id == target) {
        return Some(e);
    }
    let trimmed = trim_trailing_slashes(target);
    let wanted_rel =
        root_relative(sandbox, Path::new(target), root_arg).and_then(|r| normalize_relative(&r));
    entries
        .iter()
        .filter(|e| {
            (!e.info.path.is_empty()
                && (e.info.path == target || trim_trailing_slashes(&e.info.path) == trimmed))
                || (!e.info.rel.is_empty()
                    && wanted_rel.is_some()
                    && normalize_relative(Path::new(&e.info.rel)) == wanted_rel)
        })
        .max_by(|a, b| (a.info.time, &a.id).cmp(&(b.info.time, &b.id)))
}

fn trim_trailing_slashes(s: &str) -> &str {
    let t = s.trim_end_matches('/');
    if t.is_empty() && !s.is_empty() {
        "/"
    } else {
        t
    }
}

/// A path the owner gave, as a path relative to the root (not normalized): a relative path
/// as is, an absolute one with the root's prefix removed; `None` when it is absolute and
/// not under the root.
fn root_relative(sandbox: &Sandbox, path: &Path, root_arg: Option<&Path>) -> Option<PathBuf> {
    if !path.is_absolute() {
        return Some(path.to_path_buf());
    }
    let path = trumansh_commands::normalize_lexical(path);
    let mut roots = vec![sandbox.root_host().to_path_buf()];
    if let Some(r) = root_arg.and_then(|r| std::path::absolute(r).ok()) {
        roots.push(trumansh_commands::normalize_lexical(&r));
    }
    roots.iter().find_map(|root| {
        path.strip_prefix(root).ok().map(|rest| {
            if rest.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                rest.to_path_buf()
            }
        })
    })
}

/// Lexical normalization of a root-relative path (`.` dropped, `..` pops); `None` when a
/// `..` would leave the root. The root itself is `""`.
fn normalize_relative(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Parses a purge age: a whole number with a unit, `90s`, `30m`, `12h`, `7d`, `2w`. Returns
/// seconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let bad = || {
        format!("invalid duration {text:?} (a whole number with a unit: 90s, 30m, 12h, 7d or 2w)")
    };
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    if number.is_empty() {
        return Err(bad());
    }
    let n: u64 = number.parse().map_err(|_| bad())?;
    let unit_secs: u64 = match unit.trim() {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(bad()),
    };
    n.checked_mul(unit_secs).ok_or_else(bad)
}

/// What a purge removed (or, for a dry run, would remove).
#[derive(Debug, Clone, Default)]
pub struct Purged {
    pub entries: Vec<TrashEntry>,
    pub bytes: u64,
    /// Entries that could not be removed, with the error.
    pub errors: Vec<String>,
}

/// Deletes, for real, the trash entries at least `older_than` seconds old at `now` (every
/// entry when `None`). A dry run only reports them. The purge is audited.
pub fn trash_purge(
    sandbox: &Sandbox,
    older_than: Option<u64>,
    dry_run: bool,
    now: u64,
) -> Result<Purged, OwnerError> {
    let mut purged = Purged::default();
    for entry in trash_entries(sandbox)? {
        if older_than.is_some_and(|age| now.saturating_sub(entry.info.time) < age) {
            continue;
        }
        if !dry_run && let Err(e) = sandbox.state_dir().remove_dir_all(entry.dir()) {
            purged.errors.push(format!("{}: {e}", entry.id));
            continue;
        }
        purged.bytes = purged.bytes.saturating_add(entry.size);
        purged.entries.push(entry);
    }
    if !dry_run {
        // Space was freed for real: the sessions' shared count is measured again.
        sandbox.share_usage();
        let ids: Vec<Value> = purged.entries.iter().map(|e| e.id.clone().into()).collect();
        sandbox.audit().event(
            "trash_purge",
            fields([
                ("entries", purged.entries.len().into()),
                ("bytes", purged.bytes.into()),
                (
                    "older_than_secs",
                    older_than.map_or(Value::Null, Value::from),
                ),
                ("ids", Value::Array(ids)),
                ("errors", purged.errors.clone().into()),
            ]),
        );
    }
    Ok(purged)
}

/// `N entries (B bytes)`, with singulars.
pub fn count_entries(n: usize, bytes: u64) -> String {
    format!(
        "{n} entr{} ({bytes} byte{})",
        if n == 1 { "y" } else { "ies" },
        if bytes == 1 { "" } else { "s" }
    )
}

/// Which events `trumansh log` shows and how.
#[derive(Debug, Clone, Default)]
pub struct LogOptions {
    /// Print the raw JSON lines.
    pub json: bool,
    /// Only the last N (after filtering).
    pub tail: Option<usize>,
    /// Only this session: its full id, the short form shown in the text output, or a
    /// prefix of the id.
    pub session: Option<String>,
    /// Only these events (empty: all).
    pub events: Vec<String>,
}

/// The rendered log.
#[derive(Debug, Clone, Default)]
pub struct LogOutput {
    pub text: String,
    /// Lines that were not JSON objects, or too long to be records (skipped).
    pub unreadable: usize,
}

/// Reads the audit log and renders the events the options select. A missing log is empty.
pub fn read_log(sandbox: &Sandbox, options: &LogOptions) -> Result<LogOutput, OwnerError> {
    let mut out = Vec::new();
    let unreadable = write_log(sandbox, options, &mut out)?;
    Ok(LogOutput {
        text: String::from_utf8_lossy(&out).into_owned(),
        unreadable,
    })
}

/// Renders the events the options select to `out` as they are read, the segments oldest
/// first (`audit.N.jsonl` ... `audit.1.jsonl`, `audit.jsonl`); with `--tail N`, reads from the
/// end of the newest segment back, and older ones only as far as needed. Memory: one record
/// (and the N kept with `--tail`). Returns how many lines were unreadable (with `--tail`,
/// among the lines read).
pub fn write_log(
    sandbox: &Sandbox,
    options: &LogOptions,
    out: &mut dyn std::io::Write,
) -> Result<usize, OwnerError> {
    let err = |e: std::io::Error| OwnerError::new(format!("cannot read the audit log: {e}"));
    let segments = open_segments(sandbox.state_dir()).map_err(err)?;
    let mut unreadable = 0;
    // A line as a record: `None` when blank or unreadable (counted).
    let parse = |bytes: &[u8], unreadable: &mut usize| -> Option<(Map<String, Value>, String)> {
        let raw = String::from_utf8_lossy(bytes);
        let raw = raw.trim_end_matches(['\n', '\r']);
        if raw.trim().is_empty() {
            return None;
        }
        let Ok(Value::Object(event)) = serde_json::from_str::<Value>(raw) else {
            *unreadable += 1;
            return None;
        };
        Some((event, raw.to_string()))
    };
    let show = |event: &Map<String, Value>, raw: &str, line: Option<&str>| {
        if options.json {
            sanitize(raw)
        } else {
            render_with_line(event, line)
        }
    };
    if let Some(n) = options.tail {
        // Newest first. A `command` logged by the line's words waits for its session's
        // `line` record, which comes before it in the log (after it here).
        let mut kept: Vec<Result<String, Waiting>> = Vec::new();
        let mut waiting = 0;
        'segments: for file in segments.into_iter().rev() {
            if kept.len() >= n && waiting == 0 {
                break;
            }
            for line in RevLines::new(file).map_err(err)? {
                let bytes = match line.map_err(err)? {
                    LogLine::Line(bytes) => bytes,
                    LogLine::TooLong => {
                        unreadable += 1;
                        continue;
                    }
                };
                let Some((event, raw)) = parse(&bytes, &mut unreadable) else {
                    continue;
                };
                if waiting > 0 && str_of(&event, "event") == "line" {
                    let session = str_of(&event, "session");
                    for k in &mut kept {
                        if let Err((e, r)) = k
                            && str_of(e, "session") == session
                        {
                            *k = Ok(show(e, r, line_of(&event).as_deref()));
                            waiting -= 1;
                        }
                    }
                }
                if kept.len() < n && selected(&event, options) {
                    if by_line(&event) && !options.json {
                        kept.push(Err((event, raw)));
                        waiting += 1;
                    } else {
                        kept.push(Ok(show(&event, &raw, None)));
                    }
                }
                if kept.len() >= n && waiting == 0 {
                    break 'segments;
                }
            }
        }
        for k in kept.iter().rev() {
            let text = match k {
                Ok(t) => t.clone(),
                Err((e, r)) => show(e, r, None),
            };
            if writeln!(out, "{text}").is_err() {
                break; // the reader is gone
            }
        }
        return Ok(unreadable);
    }
    // Each session's current input, for its commands logged by the line's words.
    let mut lines: HashMap<String, String> = HashMap::new();
    let mut buf = Vec::new();
    for file in segments {
        let mut reader = BufReader::new(file);
        while let Some(line) = read_line(&mut reader, &mut buf).map_err(err)? {
            let bytes = match line {
                LogLine::Line(bytes) => bytes,
                LogLine::TooLong => {
                    unreadable += 1;
                    continue;
                }
            };
            if let Some((event, raw)) = parse(&bytes, &mut unreadable) {
                if str_of(&event, "event") == "line"
                    && let Some(l) = line_of(&event)
                {
                    lines.insert(str_of(&event, "session").to_string(), l);
                }
                if selected(&event, options) {
                    let line = by_line(&event)
                        .then(|| lines.get(str_of(&event, "session")))
                        .flatten();
                    let text = show(&event, &raw, line.map(String::as_str));
                    if writeln!(out, "{text}").is_err() {
                        return Ok(unreadable); // the reader is gone
                    }
                }
            }
            buf = bytes;
        }
    }
    Ok(unreadable)
}

/// A `command` record (and its raw text) waiting for its line to be rendered.
type Waiting = (Map<String, Value>, String);

/// A string field of a record (`""` if absent).
fn str_of<'a>(event: &'a Map<String, Value>, key: &str) -> &'a str {
    event.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A `line` record's input without its final newline, `...` after it when it was cut.
fn line_of(event: &Map<String, Value>) -> Option<String> {
    let line = event.get("line").and_then(Value::as_str)?;
    let mut line = line.strip_suffix('\n').unwrap_or(line).to_string();
    if event.contains_key("line_len") {
        line.push_str("...");
    }
    Some(line)
}

/// A `command` record whose words are its line's (`"args":"line"`).
fn by_line(event: &Map<String, Value>) -> bool {
    str_of(event, "event") == "command" && str_of(event, "args") == "line"
}

/// [`render_event`], a `command` logged by its line's words given its argv from `line` (the
/// session's `line` record before it).
pub fn render_with_line(event: &Map<String, Value>, line: Option<&str>) -> String {
    let Some(line) = line.filter(|_| by_line(event)) else {
        return render_event(event);
    };
    let mut e = event.clone();
    e.remove("args");
    e.insert(
        "argv".into(),
        Value::Array(line.split(' ').map(Value::from).collect()),
    );
    render_event(&e)
}

fn selected(event: &Map<String, Value>, options: &LogOptions) -> bool {
    let name = event.get("event").and_then(Value::as_str).unwrap_or("");
    if !options.events.is_empty() && !options.events.iter().any(|e| e == name) {
        return false;
    }
    if let Some(wanted) = &options.session {
        let session = event.get("session").and_then(Value::as_str).unwrap_or("");
        if !(session == wanted
            || short_session(session) == *wanted
            || session.starts_with(wanted.as_str()))
        {
            return false;
        }
    }
    true
}

/// The short form of a session id (`s-<nanoseconds>-<pid>-<n>`): `s-` and the last 8
/// digits of the nanoseconds, which tell apart sessions started 0.1 s apart or more.
pub fn short_session(session: &str) -> String {
    let mut parts = session.splitn(3, '-');
    match (parts.next(), parts.next()) {
        (Some(prefix), Some(nanos))
            if !prefix.is_empty()
                && nanos.len() > 8
                && nanos.bytes().all(|b| b.is_ascii_digit()) =>
        {
            format!("{prefix}-{}", &nanos[nanos.len() - 8..])
        }
        _ if session.is_empty() => "-".to_string(),
        _ => sanitize(session),
    }
}

/// One event as one line of text: `TIME SESSION EVENT: details`.
pub fn render_event(event: &Map<String, Value>) -> String {
    let time = event.get("time").and_then(Value::as_str).unwrap_or("");
    let time = if time.len() >= 19 && time.is_char_boundary(19) && time.as_bytes()[10] == b'T' {
        format!("{} {}", &time[..10], &time[11..19])
    } else {
        sanitize(time)
    };
    let session = short_session(event.get("session").and_then(Value::as_str).unwrap_or(""));
    let name = event.get("event").and_then(Value::as_str).unwrap_or("?");
    let details = render_details(name, event);
    let mut line = format!("{time} {session} {}", sanitize(name));
    if !details.is_empty() {
        line.push_str(": ");
        line.push_str(&details);
    }
    sanitize(&line)
}

fn render_details(name: &str, e: &Map<String, Value>) -> String {
    let s = |key: &str| e.get(key).and_then(Value::as_str).map(sanitize);
    // An input line as typed: without its final newline.
    let typed = |key: &str| {
        e.get(key)
            .and_then(Value::as_str)
            .map(|l| sanitize(l.strip_suffix('\n').unwrap_or(l)))
    };
    let n = |key: &str| e.get(key).and_then(Value::as_u64);
    let known = match name {
        "session" => Some(format!(
            "root {}, mount point {}; {}",
            s("root").unwrap_or_default(),
            s("mount_point").unwrap_or_default(),
            s("policy").unwrap_or_default()
        )),
        "line" => typed("line").map(|line| match n("line_len") {
            Some(len) => format!("{line}... (cut: {len} bytes)"),
            None => line,
        }),
        "command" => e.get("argv").and_then(Value::as_array).map(|argv| {
            let words: Vec<String> = argv
                .iter()
                .map(|w| shell_quote(&sanitize(w.as_str().unwrap_or(""))))
                .collect();
            let mut text = words.join(" ");
            if s("args").as_deref() == Some("line") {
                text.push_str(" ... (the line's words)");
            }
            if let (Some(argc), Some(len)) = (n("argc"), n("argv_len")) {
                let _ = write!(text, " ... (cut: {argc} words, {len} bytes)");
            }
            if let Some(cwd) = s("cwd") {
                let _ = write!(text, " (in {cwd})");
            }
            text
        }),
        "effect" => s("op").map(|op| {
            let mut text = op;
            if let Some(p) = s("path") {
                let _ = write!(text, " {p}");
            }
            if let Some(to) = s("to") {
                let _ = write!(text, " -> {to}");
            }
            if let Some(b) = n("bytes") {
                let _ = write!(text, " ({b} byte{})", if b == 1 { "" } else { "s" });
            }
            text
        }),
        "failed" => Some(format!(
            "{}: {}",
            s("op").unwrap_or_default(),
            s("error").unwrap_or_default()
        )),
        "refused" => s("path").map(|p| {
            let mut text = p;
            if let Some(c) = n("count") {
                match s("last") {
                    Some(last) if last != text => {
                        let _ = write!(text, " ... {last} ({c} refusals)");
                    }
                    _ => {
                        let _ = write!(text, " ({c} refusals)");
                    }
                }
            }
            if let Some(r) = s("reason") {
                let _ = write!(text, " ({r})");
            }
            text
        }),
        "refused_more" => n("count").map(|c| {
            let mut text = format!("{c} more refusals on this line (counted, not logged)");
            if let Some(d) = n("denied") {
                let _ = write!(text, ", {d} more denied commands");
            }
            text
        }),
        "denied" => s("command").map(|c| match n("count") {
            Some(k) => format!("{c} ({k} times)"),
            None => c,
        }),
        "read_only" => s("path"),
        "limit" => s("limit").map(|l| {
            let mut text = match e.get("value") {
                Some(v) => format!("{l}={}", compact(v)),
                None => l,
            };
            if let Some(p) = s("path") {
                let _ = write!(text, " {p}");
            }
            text
        }),
        "undo" | "rollback" | "recovery" => typed("line").map(|line| {
            let changes = n("changes").unwrap_or(0);
            let mut text = format!(
                "{} ({changes} change{})",
                quote_line(&line),
                if changes == 1 { "" } else { "s" }
            );
            let errors: Vec<String> = e
                .get("errors")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(sanitize).collect())
                .unwrap_or_default();
            if !errors.is_empty() {
                let _ = write!(text, "; errors: {}", errors.join("; "));
            }
            text
        }),
        "trash_restore" => s("id").map(|id| {
            format!(
                "{id} ({}) to {}",
                s("path").unwrap_or_default(),
                s("to").unwrap_or_default()
            )
        }),
        "trash_purge" => n("entries").map(|c| {
            let mut text = count_entries(c as usize, n("bytes").unwrap_or(0));
            if let Some(age) = n("older_than_secs") {
                let _ = write!(text, ", older than {age} s");
            }
            text
        }),
        _ => None,
    };
    known.unwrap_or_else(|| {
        // An event this version does not know, or one with unexpected fields: key=value.
        let parts: Vec<String> = e
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "time" | "session" | "event"))
            .map(|(k, v)| format!("{}={}", sanitize(k), compact(v)))
            .collect();
        parts.join(" ")
    })
}

/// A JSON value compactly: a string bare, anything else as JSON.
fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => sanitize(s),
        other => sanitize(&other.to_string()),
    }
}

/// `"line"`, for undo messages.
fn quote_line(line: &str) -> String {
    format!("\"{line}\"")
}

/// A word as the owner could type it back: bare when it is plain, else single-quoted.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'-' | b'_' | b'.' | b'/' | b',' | b':' | b'=' | b'+' | b'@' | b'%'
                )
        });
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether a terminal could act on this character: the C0 and C1 controls and DEL, the line
/// and paragraph separators, and the bidirectional and zero-width formatting characters.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c as u32,
            0x061c | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x2069 | 0xfeff
        )
}

/// Text for the owner's terminal: every character a terminal could act on is `?`.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| if is_unsafe(c) { '?' } else { c })
        .collect()
}

/// A host path for the owner's terminal (lossy, sanitized).
pub fn sanitize_path(p: &Path) -> String {
    sanitize(&p.to_string_lossy())
}

/// JSON text (whose C0 controls serde already escapes) with the other unsafe characters
/// escaped as `\uXXXX`.
fn escape_json_for_terminal(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if is_unsafe(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Ok(90));
        assert_eq!(parse_duration("30m"), Ok(1_800));
        assert_eq!(parse_duration("12h"), Ok(43_200));
        assert_eq!(parse_duration("7d"), Ok(604_800));
        assert_eq!(parse_duration("2w"), Ok(1_209_600));
        for bad in ["", "7", "d", "7x", "-1d", "1.5d", "99999999999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sanitizes_what_a_terminal_would_act_on() {
        assert_eq!(
            sanitize("a\x1b[31mb\u{9b}c\u{202e}d\te\n"),
            "a?[31mb?c?d?e?"
        );
        assert_eq!(
            escape_json_for_terminal("\"a\u{9b}\u{202e}\""),
            r#""a\u009b\u202e""#
        );
    }

    #[test]
    fn renders_events() {
        let ev = |json: &str| match serde_json::from_str::<Value>(json).unwrap() {
            Value::Object(m) => render_event(&m),
            _ => panic!(),
        };
        let head = r#""time":"2026-11-22T04:09:03.022Z","session":"s-01795320543022475472-7050-0""#;
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"line","line":"rm -rf build\n"}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 line: rm -rf build"
        );
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"command","argv":["grep","-r","a b","."],"cwd":"/home/user"}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 command: grep -r 'a b' . (in /home/user)"
        );
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"refused","path":"/etc/passwd","reason":"outside the mount point"}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 refused: /etc/passwd (outside the mount point)"
        );
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"limit","limit":"deadline_ms","value":30000}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 limit: deadline_ms=30000"
        );
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"undo","txn":"t","line":"rm x\n","changes":1,"errors":[]}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 undo: \"rm x\" (1 change)"
        );
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"effect","op":"trash","path":"/home/user/b"}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 effect: trash /home/user/b"
        );
        // Escapes decoded by the JSON parser never reach the terminal.
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"line","line":"echo \u001b]0;x\u0007 \u009b\u202e"}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 line: echo ?]0;x? ??"
        );
        assert_eq!(
            ev(&format!(
                r#"{{{head},"event":"new_thing","a":1,"b":"x\u001b"}}"#
            )),
            "2026-11-22 04:09:03 s-22475472 new_thing: a=1 b=x?"
        );
    }

    #[test]
    fn relative_paths_never_leave_the_root() {
        assert_eq!(
            normalize_relative(Path::new("a/./b/../c")),
            Some(PathBuf::from("a/c"))
        );
        assert_eq!(normalize_relative(Path::new("a/../../x")), None);
        assert_eq!(normalize_relative(Path::new("/x")), None);
    }

    #[test]
    fn short_sessions() {
        assert_eq!(short_session("s-01795320543022475472-7050-0"), "s-22475472");
        assert_eq!(short_session(""), "-");
        assert_eq!(short_session("odd\x1b"), "odd?");
    }

    #[test]
    fn list_formats() {
        let e = |id: &str, time, size, kind, path: &str| TrashEntry {
            id: id.into(),
            info: TrashInfo {
                path: path.into(),
                rel: String::new(),
                time,
                undo: None,
            },
            size,
            kind,
        };
        let entries = vec![
            e("t-1", 0, 24, Kind::File, "/home/user/a\x1b"),
            e("t-22", 86_400, 1234, Kind::Dir, "/home/user/dir"),
        ];
        assert_eq!(
            format_trash_list(&entries, false),
            "ID    TIME (UTC)           SIZE  KIND  PATH\n\
             t-1   1970-01-01 00:00:00    24  file  /home/user/a?\n\
             t-22  1970-01-02 00:00:00  1234  dir   /home/user/dir\n"
        );
        let json = format_trash_list(&entries[..1], true);
        assert_eq!(
            json,
            "{\"id\":\"t-1\",\"time\":\"1970-01-01T00:00:00.000Z\",\"unix_time\":0,\"size\":24,\"kind\":\"file\",\"path\":\"/home/user/a\\u001b\",\"rel\":\"\"}\n"
        );
        assert_eq!(format_trash_list(&[], false), "");
    }
}
