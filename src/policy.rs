//! The owner's policy file (`trumansh --policy FILE`): which paths the agent cannot see,
//! which it cannot change, which commands do not exist for it, whether it may `undo`, whether
//! a failing line is rolled back, and the resource limits.
//!
//! # The file
//!
//! TOML. Every key is optional (an empty file is the default policy) and an unknown key is an
//! error that names it. A policy with every key, each set to a non-default value:
//!
//! ```toml
//! # Paths that do not exist for the agent (globs; see "Path rules" below).
//! hidden = [".env", "*.pem", "secrets/**", "/.git/**"]
//! # Paths the agent can read but not change: writes fail with "Read-only file system".
//! read_only = ["Cargo.lock", "vendor/**", "docs/*.md"]
//! # Commands that do not exist for the agent (`command not found`).
//! deny_commands = ["date", "which"]
//! # May the agent run `undo`? (default true)
//! undo = false
//! # Roll back a failing line automatically? (default false)
//! atomic = true
//!
//! [limits]
//! deadline_ms = "10s"          # wall clock per input line (default 30 s)
//! stdout_bytes = "512K"        # stdout per input line (default 1 MiB)
//! stderr_bytes = "64KiB"       # stderr per input line (default 256 KiB)
//! read_bytes = "16MiB"         # one file read whole into memory (default 256 MiB)
//! write_quota_bytes = "1G"     # everything stored in the sandbox, trash included (default 8 GiB)
//! file_quota = 50000           # files, directories and links, trash included (default 1000000)
//! pipeline_len = 16            # commands in one pipeline (default 64)
//! glob_matches = 10000         # matches of one glob (default 100000)
//! brace_fields = 1000          # words from one brace expansion (default 100000)
//! walk_depth = 64              # levels a recursive walk descends (default 1000)
//! line_bytes = 65536           # one input: a command with its here-documents (default 1 MiB)
//! undo_history = 20            # state-changing lines that can be undone (default 100)
//! undo_bytes = "256MiB"        # bytes the undo history keeps saved, oldest lines pruned (default 1 GiB)
//! request_bytes = "8MiB"       # one --json request or MCP call, command and stdin (default 64 MiB)
//! commands = 100000            # commands (and function calls) run by one input (default 1000000)
//! loop_iterations = 100000     # iterations of all loops of one input (default 1000000)
//! call_depth = 100             # nested function calls (default 1000)
//! subst_depth = 16             # nested $(...) (default 32)
//! source_depth = 16            # nested source, eval and child shells (default 64)
//! var_bytes = "1MiB"           # one variable's value, one $(...)'s output (default 16 MiB)
//! array_elements = 100000      # elements of one array (default 1000000)
//! array_bytes = "16MiB"        # the values of one array together (default 64 MiB)
//! expansion_words = 100000     # words one command's expansions make together (default 1000000)
//! expansion_bytes = "16MiB"    # bytes of those words together (default 64 MiB)
//! changes = 10000              # changes to the tree one input makes (default 100000)
//! heap_bytes = "1GiB"          # memory one input may add to the session's (default 2 GiB)
//! audit_bytes = "16MiB"        # the audit log, all its segments (default 64 MiB)
//! audit_segments = 8           # files the audit log rolls through (default 4; 2 to 16)
//! ```
//!
//! Sizes (the `*_bytes` keys) are a TOML integer (bytes) or a string: a number, optionally
//! with a fraction, and an optional unit, case-insensitive, with or without a space between:
//! `B`; `K`, `KB`, `KiB`; `M`, `MB`, `MiB`; `G`, `GB`, `GiB`; `T`, `TB`, `TiB`. Every unit is
//! 1024-based, `KB` included (GNU's size suffixes make `KB` 1000: here it is not; an owner
//! writing a limit means the binary unit). `"1.5M"` is 1572864; a value that is not a whole
//! number of bytes is an error. Durations (`deadline_ms`) are an integer (milliseconds) or a
//! string with a unit: `ms`, `s` (`sec`), `m` (`min`), `h` — `"500ms"`, `"30s"`, `"2m"`,
//! `"1.5s"`. The counts are integers (a string of digits is accepted too). A negative number,
//! a bad unit or a wrong type is an error naming the key. [`Policy::validate`] also rejects
//! zero where it makes no sense (every limit; `undo_history` and `undo_bytes` only while `undo`
//! is on).
//!
//! # Path rules
//!
//! [`PathRules`] answers for a root-relative, normalized path (`src/.env`; the root itself,
//! `""` or `"."`, never matches):
//!
//! - A path matches if it **or any of its ancestors** matches a pattern: hiding or protecting
//!   a directory covers everything inside it.
//! - A pattern without `/` matches a file name at any depth, like `.gitignore`: `.env` hides
//!   `.env` and `app/.env`; `*.pem` hides `a/b/key.pem`.
//! - A pattern with a `/` is anchored at the root (a leading `/` is allowed and stripped):
//!   `docs/*.md` matches `docs/a.md` but not `x/docs/a.md`. A trailing `/` is ignored and does
//!   not anchor (as in `.gitignore`; the rules see paths, not file types): `build/` is `build`.
//! - `**` matches any number of components (`**/cache` matches `cache` and `a/b/cache`);
//!   `*` and `?` never cross a `/`; `[abc]`, `{a,b}` and `\` escapes are globset's.
//! - A pattern ending in `/**` also matches the directory itself: `.git/**` hides `.git`.
//! - Matching is on bytes and case-sensitive: non-UTF-8 names work (`*.pem` matches
//!   `\xff.pem`).
//! - A pattern that is empty, or has a `.` or `..` component, is an error: it could never
//!   match a normalized path.
//!
//! The patterns are compiled once; a query walks the path's components once, testing each
//! component name against the unanchored patterns and each prefix against the anchored ones.

use std::fmt;
use std::path::Path;

use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

pub use crate::io::{human_bytes, human_ms, io_message};

/// The owner's rules for one sandbox.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    /// Globs: those paths do not exist for the agent.
    pub hidden: Vec<String>,
    /// Globs: writes fail with "Read-only file system".
    pub read_only: Vec<String>,
    /// Command names the agent cannot run (they do not exist for it).
    pub deny_commands: Vec<String>,
    /// The agent may run `undo` (default true).
    pub undo: bool,
    /// Roll back a failing line automatically (default false).
    pub atomic: bool,
    /// Journal every change (default true). `false` turns transactions off — no undo, no
    /// `atomic`, no crash recovery — and exists to measure what the journal costs.
    pub journal: bool,
    /// Resource limits.
    pub limits: Limits,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            hidden: Vec::new(),
            read_only: Vec::new(),
            deny_commands: Vec::new(),
            undo: true,
            atomic: false,
            journal: true,
            limits: Limits::default(),
        }
    }
}

/// Resource limits. Per input line unless said otherwise.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Wall clock per input line, in milliseconds; default 30 000.
    #[serde(deserialize_with = "de::deadline_ms")]
    pub deadline_ms: u64,
    /// Bytes of stdout per input line; default 1 MiB.
    #[serde(deserialize_with = "de::stdout_bytes")]
    pub stdout_bytes: u64,
    /// Bytes of stderr per input line; default 256 KiB.
    #[serde(deserialize_with = "de::stderr_bytes")]
    pub stderr_bytes: u64,
    /// Bytes of one file read whole into memory; default 256 MiB.
    #[serde(deserialize_with = "de::read_bytes")]
    pub read_bytes: u64,
    /// Total bytes stored in the sandbox, trash included; default 8 GiB.
    #[serde(deserialize_with = "de::write_quota_bytes")]
    pub write_quota_bytes: u64,
    /// Total files, directories and links in the sandbox, trash included; default 1 000 000.
    #[serde(deserialize_with = "de::file_quota")]
    pub file_quota: u64,
    /// Commands in one pipeline; default 64.
    #[serde(deserialize_with = "de::pipeline_len")]
    pub pipeline_len: usize,
    /// Matches of one glob; default 100 000.
    #[serde(deserialize_with = "de::glob_matches")]
    pub glob_matches: usize,
    /// Words from one brace expansion; default 100 000.
    #[serde(deserialize_with = "de::brace_fields")]
    pub brace_fields: usize,
    /// Directory levels a recursive walk descends (find, grep -r, ls -R, cp -r, rm -r);
    /// default 1 000.
    #[serde(deserialize_with = "de::walk_depth")]
    pub walk_depth: usize,
    /// Bytes of one input (a command with its here-documents); default 1 MiB.
    #[serde(deserialize_with = "de::line_bytes")]
    pub line_bytes: usize,
    /// How many state-changing lines can be undone; default 100.
    #[serde(deserialize_with = "de::undo_history")]
    pub undo_history: usize,
    /// Bytes the undo history may keep saved (the old bytes of overwritten files, objects a
    /// rename replaced); past it the oldest lines are pruned (the newest line is always kept,
    /// whatever it saved). Default 1 GiB.
    #[serde(deserialize_with = "de::undo_bytes")]
    pub undo_bytes: u64,
    /// Bytes of one JSON-lines request or MCP call (the command and its stdin, as sent);
    /// default 64 MiB.
    #[serde(deserialize_with = "de::request_bytes")]
    pub request_bytes: usize,
    /// Commands (simple commands and function calls) one input runs; default 1 000 000.
    #[serde(deserialize_with = "de::commands")]
    pub commands: u64,
    /// Iterations of all the loops of one input; default 1 000 000.
    #[serde(deserialize_with = "de::loop_iterations")]
    pub loop_iterations: u64,
    /// Nested function calls; default 1 000.
    #[serde(deserialize_with = "de::call_depth")]
    pub call_depth: usize,
    /// Nested command substitutions; default 32.
    #[serde(deserialize_with = "de::subst_depth")]
    pub subst_depth: usize,
    /// Nested `source`, `eval` and child shells (`bash x.sh`); default 64.
    #[serde(deserialize_with = "de::source_depth")]
    pub source_depth: usize,
    /// Bytes of one variable's value or one command substitution's output; default 16 MiB.
    #[serde(deserialize_with = "de::var_bytes")]
    pub var_bytes: usize,
    /// Elements of one array; default 1 000 000.
    #[serde(deserialize_with = "de::array_elements")]
    pub array_elements: usize,
    /// Changes (journal records) one input makes; default 100 000.
    #[serde(deserialize_with = "de::changes")]
    pub changes: u64,
    /// Bytes of memory one input may allocate beyond what the session held when it began
    /// (every allocation counted, see [`crate::limits`]); past it the line stops, as at its
    /// deadline, with one message. Default 2 GiB.
    #[serde(deserialize_with = "de::heap_bytes")]
    pub heap_bytes: u64,
    /// Bytes the audit log keeps, all its segments together: `audit.jsonl` is rolled at
    /// `audit_bytes / audit_segments`, the oldest segment dropped (see [`crate::audit`]). The
    /// log's bytes count in `write_quota_bytes`, and a session's log never takes more than a
    /// quarter of it. Default 64 MiB; at least 64 KiB a segment.
    #[serde(deserialize_with = "de::audit_bytes")]
    pub audit_bytes: u64,
    /// Files the audit log rolls through (`audit.jsonl`, `audit.1.jsonl`, …); 2 to 16,
    /// default 4.
    #[serde(deserialize_with = "de::audit_segments")]
    pub audit_segments: u32,
    /// Bytes of one array's values together; default 64 MiB.
    #[serde(deserialize_with = "de::array_bytes")]
    pub array_bytes: usize,
    /// Words one command's expansions (brace, pathname) make together; default 1 000 000.
    #[serde(deserialize_with = "de::expansion_words")]
    pub expansion_words: usize,
    /// Bytes of those words together; default 64 MiB.
    #[serde(deserialize_with = "de::expansion_bytes")]
    pub expansion_bytes: usize,
}

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            deadline_ms: 30_000,
            stdout_bytes: MIB,
            stderr_bytes: 256 * KIB,
            read_bytes: 256 * MIB,
            write_quota_bytes: 8 * GIB,
            file_quota: 1_000_000,
            pipeline_len: 64,
            glob_matches: 100_000,
            brace_fields: 100_000,
            walk_depth: 1_000,
            line_bytes: 1 << 20,
            undo_history: 100,
            undo_bytes: GIB,
            request_bytes: 64 << 20,
            commands: 1_000_000,
            loop_iterations: 1_000_000,
            call_depth: 1_000,
            subst_depth: 32,
            source_depth: 64,
            var_bytes: 16 << 20,
            array_elements: 1_000_000,
            changes: 100_000,
            heap_bytes: 2 * GIB,
            audit_bytes: 64 * MIB,
            audit_segments: 4,
            array_bytes: 64 << 20,
            expansion_words: 1_000_000,
            expansion_bytes: 64 << 20,
        }
    }
}

impl Policy {
    /// Reads and parses a policy file. Errors are one line prefixed by the path:
    /// `policy.toml: No such file or directory`,
    /// `policy.toml: line 3, column 1: unknown field ...`.
    pub fn load(path: &Path) -> Result<Policy, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {}", path.display(), io_message(&e)))?;
        Policy::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a policy from TOML text. Errors are one line: `line L, column C: message`.
    pub fn from_toml(text: &str) -> Result<Policy, String> {
        toml::from_str(text).map_err(|e| toml_message(text, &e))
    }

    /// Validates: every glob compiles, every `deny_commands` name is one of `known`, limits
    /// are > 0 where 0 makes no sense. Returns the first problem found.
    pub fn validate(&self, known: &[&str]) -> Result<(), String> {
        self.rules()?;
        for name in &self.deny_commands {
            if !known.contains(&name.as_str()) {
                if name == "undo" {
                    return Err(
                        "deny_commands: to disable undo, set `undo = false` instead of denying it"
                            .to_string(),
                    );
                }
                return Err(format!("deny_commands: unknown command {name:?}"));
            }
        }
        let l = &self.limits;
        let zero = [
            ("deadline_ms", l.deadline_ms == 0),
            ("stdout_bytes", l.stdout_bytes == 0),
            ("stderr_bytes", l.stderr_bytes == 0),
            ("read_bytes", l.read_bytes == 0),
            ("write_quota_bytes", l.write_quota_bytes == 0),
            ("file_quota", l.file_quota == 0),
            ("pipeline_len", l.pipeline_len == 0),
            ("glob_matches", l.glob_matches == 0),
            ("brace_fields", l.brace_fields == 0),
            ("walk_depth", l.walk_depth == 0),
            ("line_bytes", l.line_bytes == 0),
            ("request_bytes", l.request_bytes == 0),
            ("commands", l.commands == 0),
            ("loop_iterations", l.loop_iterations == 0),
            ("call_depth", l.call_depth == 0),
            ("subst_depth", l.subst_depth == 0),
            ("source_depth", l.source_depth == 0),
            ("var_bytes", l.var_bytes == 0),
            ("array_elements", l.array_elements == 0),
            ("changes", l.changes == 0),
            ("array_bytes", l.array_bytes == 0),
            ("expansion_words", l.expansion_words == 0),
            ("expansion_bytes", l.expansion_bytes == 0),
            ("heap_bytes", l.heap_bytes == 0),
        ];
        if let Some((key, _)) = zero.iter().find(|(_, is_zero)| *is_zero) {
            return Err(format!("limits.{key}: must be greater than 0"));
        }
        if !(2..=crate::audit::MAX_SEGMENTS).contains(&l.audit_segments) {
            return Err(format!(
                "limits.audit_segments: must be between 2 and {}",
                crate::audit::MAX_SEGMENTS
            ));
        }
        let floor = u64::from(l.audit_segments) * crate::audit::MIN_SEGMENT_BYTES;
        if l.audit_bytes < floor {
            return Err(format!(
                "limits.audit_bytes: must be at least {} (64 KiB a segment)",
                human_bytes(floor)
            ));
        }
        if !self.journal && (self.undo || self.atomic) {
            return Err("journal = false needs undo = false and atomic = false".into());
        }
        if self.undo && l.undo_bytes == 0 {
            return Err(
                "limits.undo_bytes: must be greater than 0 while undo is on (set `undo = false` to disable undo)"
                    .to_string(),
            );
        }
        if self.undo && l.undo_history == 0 {
            return Err(
                "limits.undo_history: must be greater than 0 while undo is on (set `undo = false` to disable undo)"
                    .to_string(),
            );
        }
        Ok(())
    }

    /// The compiled path rules of `hidden` and `read_only`.
    pub fn rules(&self) -> Result<PathRules, String> {
        PathRules::new(&self.hidden, &self.read_only)
    }
}

/// A TOML error as one line, `line L, column C: message` (column in characters, 1-based).
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else {
        return message;
    };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before, |nl| &before[nl + 1..])
        .chars()
        .count()
        + 1;
    format!("line {line}, column {column}: {message}")
}

/// The `deserialize_with` helpers of [`Limits`]: sizes, durations and counts that name their
/// key in every error.
mod de {
    use std::fmt;

    use serde::Deserializer;
    use serde::de::{Error, Visitor};

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) enum Kind {
        Bytes,
        Millis,
        Count,
    }

    struct Amount {
        key: &'static str,
        kind: Kind,
    }

    impl Amount {
        fn err<E: Error>(&self, what: fmt::Arguments<'_>) -> E {
            E::custom(format_args!("limits.{}: {what}", self.key))
        }
    }

    impl Visitor<'_> for Amount {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.kind {
                Kind::Bytes => write!(
                    f,
                    "a size for limits.{}: an integer (bytes) or a string like \"64K\", \"10MiB\", \"2G\"",
                    self.key
                ),
                Kind::Millis => write!(
                    f,
                    "a duration for limits.{}: an integer (milliseconds) or a string like \"500ms\", \"30s\", \"2m\"",
                    self.key
                ),
                Kind::Count => write!(f, "a whole number for limits.{}", self.key),
            }
        }

        fn visit_i64<E: Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| self.err(format_args!("must not be negative, got {v}")))
        }

        fn visit_u64<E: Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_str<E: Error>(self, v: &str) -> Result<u64, E> {
            super::parse_amount(v, self.kind).map_err(|why| self.err(format_args!("{v:?}: {why}")))
        }
    }

    fn amount<'de, D, T>(d: D, key: &'static str, kind: Kind) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: TryFrom<u64>,
    {
        let v = d.deserialize_any(Amount { key, kind })?;
        T::try_from(v).map_err(|_| D::Error::custom(format_args!("limits.{key}: {v} is too large")))
    }

    macro_rules! fields {
        ($($name:ident: $ty:ty = $kind:ident;)*) => {$(
            pub(super) fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                amount(d, stringify!($name), Kind::$kind)
            }
        )*};
    }

    fields! {
        deadline_ms: u64 = Millis;
        stdout_bytes: u64 = Bytes;
        stderr_bytes: u64 = Bytes;
        read_bytes: u64 = Bytes;
        write_quota_bytes: u64 = Bytes;
        file_quota: u64 = Count;
        pipeline_len: usize = Count;
        glob_matches: usize = Count;
        brace_fields: usize = Count;
        walk_depth: usize = Count;
        line_bytes: usize = Bytes;
        undo_history: usize = Count;
        undo_bytes: u64 = Bytes;
        request_bytes: usize = Bytes;
        commands: u64 = Count;
        loop_iterations: u64 = Count;
        call_depth: usize = Count;
        subst_depth: usize = Count;
        source_depth: usize = Count;
        var_bytes: usize = Bytes;
        array_elements: usize = Count;
        changes: u64 = Count;
        heap_bytes: u64 = Bytes;
        audit_bytes: u64 = Bytes;
        audit_segments: u32 = Count;
        array_bytes: usize = Bytes;
        expansion_words: usize = Count;
        expansion_bytes: usize = Bytes;
    }
}

/// Parses a size, a duration or a count written as a string: `"64K"`, `"1.5MiB"`, `"30s"`,
/// `"500 ms"`, `"12"`. The error says why, without the key (the caller adds it).
fn parse_amount(text: &str, kind: de::Kind) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err("must not be negative".to_string());
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit = unit.trim_start();
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(fraction.is_empty() || digits(fraction)) || number.ends_with('.') {
        return Err(match kind {
            de::Kind::Bytes => "not a size (a number with an optional unit: 512, 64K, 10MiB, 2G)",
            de::Kind::Millis => "not a duration (a number with a unit: 500ms, 30s, 2m)",
            de::Kind::Count => "not a whole number",
        }
        .to_string());
    }
    let lower = unit.to_ascii_lowercase();
    let multiplier: u64 = match kind {
        de::Kind::Bytes => match lower.as_str() {
            "" | "b" | "byte" | "bytes" => 1,
            "k" | "kb" | "kib" => KIB,
            "m" | "mb" | "mib" => MIB,
            "g" | "gb" | "gib" => GIB,
            "t" | "tb" | "tib" => 1 << 40,
            _ => {
                return Err(format!(
                    "unknown unit {unit:?} (use B, K, M, G or T, optionally followed by B or iB; all 1024-based)"
                ));
            }
        },
        de::Kind::Millis => match lower.as_str() {
            "" | "ms" => 1,
            "s" | "sec" => 1_000,
            "m" | "min" => 60_000,
            "h" => 3_600_000,
            _ => return Err(format!("unknown unit {unit:?} (use ms, s, m or h)")),
        },
        de::Kind::Count => {
            if !unit.is_empty() || !fraction.is_empty() {
                return Err("not a whole number".to_string());
            }
            1
        }
    };
    let too_large = || "too large".to_string();
    if fraction.len() > 18 {
        return Err("too many decimals".to_string());
    }
    let scale = 10u128.pow(fraction.len() as u32);
    let whole: u128 = whole.parse().map_err(|_| too_large())?;
    let fraction: u128 = if fraction.is_empty() {
        0
    } else {
        fraction.parse().map_err(|_| too_large())?
    };
    let scaled = whole
        .checked_mul(scale)
        .and_then(|w| w.checked_add(fraction))
        .and_then(|n| n.checked_mul(u128::from(multiplier)))
        .ok_or_else(too_large)?;
    if scaled % scale != 0 {
        return Err(match kind {
            de::Kind::Millis => "not a whole number of milliseconds",
            _ => "not a whole number of bytes",
        }
        .to_string());
    }
    u64::try_from(scaled / scale).map_err(|_| too_large())
}

/// The compiled `hidden` and `read_only` patterns. See the module documentation for the
/// matching rules.
#[derive(Debug, Clone, Default)]
pub struct PathRules {
    hidden: Matcher,
    read_only: Matcher,
}

/// One list of patterns, split by anchoring. `None` when there are no such patterns.
#[derive(Debug, Clone, Default)]
struct Matcher {
    /// Patterns without `/`: tested against each component name.
    names: Option<GlobSet>,
    /// Patterns with `/`: tested against each prefix of the path.
    anchored: Option<GlobSet>,
}

impl Matcher {
    fn new(key: &str, patterns: &[String]) -> Result<Matcher, String> {
        let mut names = GlobSetBuilder::new();
        let mut anchored = GlobSetBuilder::new();
        let (mut any_name, mut any_anchored) = (false, false);
        for pattern in patterns {
            let (glob, is_anchored) = normalize_pattern(pattern)
                .map_err(|why| format!("{key}: invalid pattern {pattern:?}: {why}"))?;
            let compiled = GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("{key}: invalid pattern {pattern:?}: {}", e.kind()))?;
            if is_anchored {
                anchored.add(compiled);
                any_anchored = true;
            } else {
                names.add(compiled);
                any_name = true;
            }
        }
        let build = |builder: GlobSetBuilder, any: bool| -> Result<Option<GlobSet>, String> {
            if !any {
                return Ok(None);
            }
            builder
                .build()
                .map(Some)
                .map_err(|e| format!("{key}: invalid pattern: {}", e.kind()))
        };
        Ok(Matcher {
            names: build(names, any_name)?,
            anchored: build(anchored, any_anchored)?,
        })
    }

    fn is_empty(&self) -> bool {
        self.names.is_none() && self.anchored.is_none()
    }

    /// Whether `rel` or one of its ancestors matches.
    fn matches(&self, rel: &Path) -> bool {
        if self.is_empty() {
            return false;
        }
        let bytes = normalize_path(path_bytes(rel));
        let bytes: &[u8] = &bytes;
        if bytes.is_empty() {
            return false;
        }
        let mut start = 0;
        loop {
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b'/')
                .map_or(bytes.len(), |i| start + i);
            let name_hit = self.names.as_ref().is_some_and(|names| {
                names.is_match_candidate(&Candidate::from_bytes(&bytes[start..end]))
            });
            let prefix_hit = || {
                self.anchored.as_ref().is_some_and(|anchored| {
                    anchored.is_match_candidate(&Candidate::from_bytes(&bytes[..end]))
                })
            };
            if name_hit || prefix_hit() {
                return true;
            }
            if end == bytes.len() {
                return false;
            }
            start = end + 1;
        }
    }
}

/// A pattern as compiled, and whether it is anchored: trailing `/` dropped, then a leading
/// `/` (anchored), then every trailing `/**` (the directory itself matches, and the ancestor
/// rule covers what is inside).
fn normalize_pattern(pattern: &str) -> Result<(&str, bool), &'static str> {
    let mut p = pattern.trim_end_matches('/');
    let anchored = p.contains('/');
    p = p.strip_prefix('/').unwrap_or(p);
    while let Some(dir) = p.strip_suffix("/**") {
        p = dir;
    }
    if p.is_empty() {
        // `/**` (or `/`, `**/**`...): everything, written as `**`.
        if pattern.trim_matches('/').is_empty() {
            return Err("empty pattern");
        }
        return Ok(("**", anchored));
    }
    if p.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err("empty, `.` or `..` component: it can never match");
    }
    Ok((p, anchored))
}

fn path_bytes(path: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes()
}

/// `rel` without a leading `/`, `.` components or empty components (borrowed when it is
/// already normalized, the expected case). `..` is resolved lexically.
fn normalize_path(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let clean = !bytes.is_empty()
        && bytes
            .split(|&b| b == b'/')
            .all(|c| !c.is_empty() && c != b"." && c != b"..");
    if clean {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut parts: Vec<&[u8]> = Vec::new();
    for c in bytes.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            _ => parts.push(c),
        }
    }
    std::borrow::Cow::Owned(parts.join(&b'/'))
}

impl PathRules {
    /// Compiles the `hidden` and `read_only` patterns. The error names the list and the
    /// pattern: `hidden: invalid pattern "[a": unclosed character class; missing ']'`.
    pub fn new(hidden: &[String], read_only: &[String]) -> Result<PathRules, String> {
        Ok(PathRules {
            hidden: Matcher::new("hidden", hidden)?,
            read_only: Matcher::new("read_only", read_only)?,
        })
    }

    /// No hidden and no read-only rules.
    pub fn is_empty(&self) -> bool {
        self.hidden.is_empty() && self.read_only.is_empty()
    }

    /// There are hidden rules.
    pub fn has_hidden(&self) -> bool {
        !self.hidden.is_empty()
    }

    /// There are read-only rules.
    pub fn has_read_only(&self) -> bool {
        !self.read_only.is_empty()
    }

    /// Whether `rel` (root-relative, normalized: no leading `/`, no `.` or `..` components,
    /// e.g. `src/.env`) or one of its ancestors is hidden. The root (`""` or `.`) never is.
    pub fn is_hidden(&self, rel: &Path) -> bool {
        self.hidden.matches(rel)
    }

    /// Whether `rel` or one of its ancestors is read-only. The root never is.
    pub fn is_read_only(&self, rel: &Path) -> bool {
        self.read_only.matches(rel)
    }
}

/// A short, accurate paragraph an agent host can put in its model's system prompt: the shell,
/// the working directory, the exact commands, trash and undo, atomic lines, the limits, and
/// whether some paths are hidden or read-only (never which).
///
/// `commands` is every command the shell has (builtins included); the denied ones are left
/// out, and `undo` is listed exactly when `policy.undo` is on.
pub fn describe(policy: &Policy, commands: &[&str], mount_point: &str) -> String {
    let mut available: Vec<&str> = commands
        .iter()
        .copied()
        .filter(|c| *c != "undo" && !policy.deny_commands.iter().any(|d| d == c))
        .collect();
    if policy.undo {
        available.push("undo");
    }
    available.sort_unstable();
    available.dedup();
    let l = &policy.limits;
    let mut lines = vec![
        "This is a bash-compatible shell (bash 5.2) that emulates every command itself, in \
         process: the language works as in bash (pipelines, lists, redirections, \
         here-documents, if, case, loops, functions, arithmetic, [[ ]], arrays, $(...), \
         subshells, scripts run with bash, sh or ./script.sh); a background job (&) runs to \
         completion before the next command."
            .to_string(),
        format!(
            "The working directory is {mount_point} and nothing outside it exists. Only the \
             commands listed here exist (as builtins, or as programs in /usr/bin); other \
             programs (python, node, make, ...) cannot be run."
        ),
        format!("Available commands: {}.", available.join(", ")),
    ];
    if available.contains(&"rm") {
        lines.push(
            "rm moves files and directories to a trash the owner can restore: deletes are \
             recoverable."
                .to_string(),
        );
    }
    if policy.undo {
        lines.push(format!(
            "undo reverts the last state-changing command line, undo N the last N (up to {}).",
            l.undo_history
        ));
    }
    if policy.atomic {
        lines.push(
            "Each command line is atomic: if it fails, its changes are rolled back automatically."
                .to_string(),
        );
    }
    lines.push(format!(
        "Each command line stops after {} with status 124.",
        human_ms(l.deadline_ms)
    ));
    lines.push(
        "The machine is fixed and never the host: user `user` (uid 1000, gid 1000), host \
         `sandbox`, Linux 6.1 x86_64 with 4 processors, booted when the session started; its \
         only processes are this shell ($$ = 4242) and what it runs; history is off."
            .to_string(),
    );
    lines.push(format!(
        "Output beyond {} on stdout or {} on stderr per line is cut off with a notice.",
        human_bytes(l.stdout_bytes),
        human_bytes(l.stderr_bytes)
    ));
    lines.push(format!(
        "Files larger than {} cannot be read whole; one input (a command with its \
         here-documents) may be at most {}.",
        human_bytes(l.read_bytes),
        human_bytes(l.line_bytes as u64)
    ));
    lines.push(format!(
        "The directory may hold at most {} and {} files including the trash.",
        human_bytes(l.write_quota_bytes),
        l.file_quota
    ));
    let walkers: Vec<&str> = [
        ("find", "find"),
        ("grep", "grep -r"),
        ("ls", "ls -R"),
        ("cp", "cp -r"),
        ("rm", "rm -r"),
    ]
    .iter()
    .filter(|(name, _)| available.contains(name))
    .map(|(_, walk)| *walk)
    .collect();
    let walk = if walkers.is_empty() {
        String::new()
    } else {
        format!(
            "; recursive walks ({}) descend at most {} directory levels",
            walkers.join(", "),
            l.walk_depth
        )
    };
    lines.push(format!(
        "A pipeline has at most {} commands, a glob at most {} matches, a brace expansion at \
         most {} words{walk}.",
        l.pipeline_len, l.glob_matches, l.brace_fields
    ));
    if !policy.hidden.is_empty() {
        lines.push("Some paths are hidden: they do not exist for you.".to_string());
    }
    if !policy.read_only.is_empty() {
        lines.push(
            "Some paths are read-only: writes to them fail with \"Read-only file system\"."
                .to_string(),
        );
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

impl fmt::Display for Policy {
    /// A one-line summary for logs, listing no pattern: `hidden: 2 rules, read_only: 1 rule,
    /// deny_commands: date, undo: on, atomic: off`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules = |n: usize| if n == 1 { "rule" } else { "rules" };
        write!(
            f,
            "hidden: {} {}, read_only: {} {}, deny_commands: {}, undo: {}, atomic: {}",
            self.hidden.len(),
            rules(self.hidden.len()),
            self.read_only.len(),
            rules(self.read_only.len()),
            if self.deny_commands.is_empty() {
                "none".to_string()
            } else {
                self.deny_commands.join(" ")
            },
            if self.undo { "on" } else { "off" },
            if self.atomic { "on" } else { "off" },
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    /// The `toml` example block of the module documentation.
    fn doc_example() -> String {
        let source = include_str!("policy.rs");
        let mut out = String::new();
        let mut inside = false;
        for line in source.lines() {
            let Some(doc) = line.strip_prefix("//!") else {
                continue;
            };
            let doc = doc.strip_prefix(' ').unwrap_or(doc);
            if inside && doc == "```" {
                return out;
            }
            if inside {
                out.push_str(doc);
                out.push('\n');
            }
            if doc == "```toml" {
                inside = true;
            }
        }
        panic!("no ```toml block in the module documentation");
    }

    const KNOWN: &[&str] = &[
        "basename", "cat", "cd", "cp", "date", "echo", "grep", "ls", "mkdir", "rm", "which",
    ];

    fn rules(hidden: &[&str], read_only: &[&str]) -> PathRules {
        let h: Vec<String> = hidden.iter().map(ToString::to_string).collect();
        let r: Vec<String> = read_only.iter().map(ToString::to_string).collect();
        PathRules::new(&h, &r).unwrap()
    }

    fn hidden(patterns: &[&str], path: &str) -> bool {
        rules(patterns, &[]).is_hidden(Path::new(path))
    }

    #[test]
    fn audit_budget_keys_are_checked() {
        let l = limits("audit_bytes = \"1MiB\"\naudit_segments = 2").unwrap();
        assert_eq!((l.audit_bytes, l.audit_segments), (1 << 20, 2));
        let check = |toml: &str| {
            Policy::from_toml(&format!("[limits]\n{toml}\n"))
                .unwrap()
                .validate(KNOWN)
        };
        assert!(check("audit_bytes = \"256K\"").is_ok());
        assert_eq!(
            check("audit_bytes = \"255K\"").unwrap_err(),
            "limits.audit_bytes: must be at least 256 KiB (64 KiB a segment)"
        );
        for n in [0, 1, 17] {
            assert_eq!(
                check(&format!("audit_segments = {n}")).unwrap_err(),
                "limits.audit_segments: must be between 2 and 16"
            );
        }
    }

    fn limits(toml: &str) -> Result<Limits, String> {
        Policy::from_toml(&format!("[limits]\n{toml}\n")).map(|p| p.limits)
    }

    #[test]
    #[allow(clippy::many_single_char_names)] // p(olicy), d(efault), r(ules), a/b: limits compared
    fn full_example_parses() {
        let p = Policy::from_toml(&doc_example()).unwrap();
        let s = |v: &[&str]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
        let expected = Policy {
            hidden: s(&[".env", "*.pem", "secrets/**", "/.git/**"]),
            read_only: s(&["Cargo.lock", "vendor/**", "docs/*.md"]),
            deny_commands: s(&["date", "which"]),
            undo: false,
            atomic: true,
            journal: true,
            limits: Limits {
                deadline_ms: 10_000,
                stdout_bytes: 512 * 1024,
                stderr_bytes: 64 * 1024,
                read_bytes: 16 << 20,
                write_quota_bytes: 1 << 30,
                file_quota: 50_000,
                pipeline_len: 16,
                glob_matches: 10_000,
                brace_fields: 1_000,
                walk_depth: 64,
                line_bytes: 65_536,
                undo_history: 20,
                undo_bytes: 256 << 20,
                request_bytes: 8 << 20,
                commands: 100_000,
                loop_iterations: 100_000,
                call_depth: 100,
                subst_depth: 16,
                source_depth: 16,
                var_bytes: 1 << 20,
                array_elements: 100_000,
                changes: 10_000,
                heap_bytes: 1 << 30,
                audit_bytes: 16 << 20,
                audit_segments: 8,
                array_bytes: 16 << 20,
                expansion_words: 100_000,
                expansion_bytes: 16 << 20,
            },
        };
        assert_eq!(p, expected);
        p.validate(KNOWN).unwrap();
        // Every key differs from its default: the example really sets each one.
        let d = Policy::default();
        assert_ne!(p.undo, d.undo);
        assert_ne!(p.atomic, d.atomic);
        let (a, b) = (&p.limits, &d.limits);
        assert!(a.deadline_ms != b.deadline_ms && a.stdout_bytes != b.stdout_bytes);
        assert!(a.stderr_bytes != b.stderr_bytes && a.read_bytes != b.read_bytes);
        assert!(a.write_quota_bytes != b.write_quota_bytes && a.file_quota != b.file_quota);
        assert!(a.pipeline_len != b.pipeline_len && a.glob_matches != b.glob_matches);
        assert!(a.brace_fields != b.brace_fields && a.walk_depth != b.walk_depth);
        assert!(a.line_bytes != b.line_bytes && a.undo_history != b.undo_history);
        assert_ne!(a.request_bytes, b.request_bytes);
        assert_ne!(a.undo_bytes, b.undo_bytes);
        assert!(a.audit_bytes != b.audit_bytes && a.audit_segments != b.audit_segments);
        let r = p.rules().unwrap();
        assert!(r.is_hidden(Path::new(".git/config")));
        assert!(r.is_read_only(Path::new("vendor/x/y.rs")));
    }

    #[test]
    fn empty_file_is_the_default() {
        let p = Policy::from_toml("").unwrap();
        assert_eq!(p, Policy::default());
        assert!(p.undo);
        assert!(!p.atomic);
        assert!(p.hidden.is_empty() && p.read_only.is_empty() && p.deny_commands.is_empty());
        let l = Limits::default();
        assert_eq!(l.deadline_ms, 30_000);
        assert_eq!(l.stdout_bytes, 1_048_576);
        assert_eq!(l.stderr_bytes, 262_144);
        assert_eq!(l.read_bytes, 268_435_456);
        assert_eq!(l.write_quota_bytes, 8_589_934_592);
        assert_eq!(l.file_quota, 1_000_000);
        assert_eq!(l.pipeline_len, 64);
        assert_eq!(l.glob_matches, 100_000);
        assert_eq!(l.brace_fields, 100_000);
        assert_eq!(l.walk_depth, 1_000);
        assert_eq!(l.line_bytes, 1_048_576);
        assert_eq!(l.undo_history, 100);
        assert_eq!(l.undo_bytes, 1 << 30);
        assert_eq!(p.limits, l);
        p.validate(KNOWN).unwrap();
        assert!(p.rules().unwrap().is_empty());
        // An empty [limits] table, and a partial one, keep the other defaults.
        assert_eq!(Policy::from_toml("[limits]\n").unwrap(), Policy::default());
        let l = limits("pipeline_len = 8").unwrap();
        assert_eq!(l.pipeline_len, 8);
        assert_eq!(l.deadline_ms, 30_000);
    }

    #[test]
    fn unknown_keys_are_rejected_by_name() {
        let e = Policy::from_toml("undo = true\nhiden = [\".env\"]\n").unwrap_err();
        assert!(e.starts_with("line 2, column 1: "), "{e}");
        assert!(e.contains("hiden"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = limits("stdout = 5").unwrap_err();
        assert!(e.contains("stdout"), "{e}");
        assert!(e.starts_with("line 2, column 1: "), "{e}");
    }

    #[test]
    fn wrong_types_and_syntax_errors() {
        let e = Policy::from_toml("undo = \"yes\"\n").unwrap_err();
        assert!(e.starts_with("line 1, column 8: "), "{e}");
        let e = Policy::from_toml("hidden = [\n").unwrap_err();
        assert!(e.starts_with("line "), "{e}");
        let e = limits("pipeline_len = true").unwrap_err();
        assert!(e.contains("limits.pipeline_len"), "{e}");
        let e = limits("stdout_bytes = 1.5").unwrap_err();
        assert!(e.contains("limits.stdout_bytes"), "{e}");
    }

    #[test]
    fn sizes_with_units() {
        let bytes = |v: &str| limits(&format!("read_bytes = {v}")).map(|l| l.read_bytes);
        assert_eq!(bytes("512").unwrap(), 512);
        assert_eq!(bytes("\"512\"").unwrap(), 512);
        assert_eq!(bytes("\"512B\"").unwrap(), 512);
        for k in ["64k", "64K", "64KiB", "64KB", "64kb", "64 KiB"] {
            assert_eq!(bytes(&format!("{k:?}")).unwrap(), 65_536, "{k}");
        }
        assert_eq!(bytes("\"10M\"").unwrap(), 10 << 20);
        assert_eq!(bytes("\"10MiB\"").unwrap(), 10 << 20);
        assert_eq!(bytes("\"2G\"").unwrap(), 2 << 30);
        assert_eq!(bytes("\"2GiB\"").unwrap(), 2 << 30);
        assert_eq!(bytes("\"1T\"").unwrap(), 1 << 40);
        assert_eq!(bytes("\"1.5M\"").unwrap(), 1_572_864);
        assert_eq!(bytes("\"0\"").unwrap(), 0);
        // usize keys take units too.
        assert_eq!(limits("line_bytes = \"2K\"").unwrap().line_bytes, 2048);
    }

    #[test]
    fn durations_with_units() {
        let ms = |v: &str| limits(&format!("deadline_ms = {v}")).map(|l| l.deadline_ms);
        assert_eq!(ms("1500").unwrap(), 1500);
        assert_eq!(ms("\"1500\"").unwrap(), 1500);
        assert_eq!(ms("\"500ms\"").unwrap(), 500);
        assert_eq!(ms("\"30s\"").unwrap(), 30_000);
        assert_eq!(ms("\"30 sec\"").unwrap(), 30_000);
        assert_eq!(ms("\"1.5s\"").unwrap(), 1_500);
        assert_eq!(ms("\"2m\"").unwrap(), 120_000);
        assert_eq!(ms("\"2min\"").unwrap(), 120_000);
        assert_eq!(ms("\"1h\"").unwrap(), 3_600_000);
    }

    #[test]
    fn bad_amounts_name_the_key() {
        let cases = [
            ("stdout_bytes = -1", "limits.stdout_bytes", "negative"),
            ("stdout_bytes = \"-1K\"", "limits.stdout_bytes", "negative"),
            (
                "stderr_bytes = \"10X\"",
                "limits.stderr_bytes",
                "unknown unit",
            ),
            ("read_bytes = \"K\"", "limits.read_bytes", "not a size"),
            ("read_bytes = \"1.\"", "limits.read_bytes", "not a size"),
            ("read_bytes = \"1.2.3K\"", "limits.read_bytes", "not a size"),
            (
                "read_bytes = \"1.3\"",
                "limits.read_bytes",
                "whole number of bytes",
            ),
            (
                "write_quota_bytes = \"99999999999T\"",
                "limits.write_quota_bytes",
                "too large",
            ),
            (
                "deadline_ms = \"30x\"",
                "limits.deadline_ms",
                "unknown unit",
            ),
            (
                "deadline_ms = \"1KB\"",
                "limits.deadline_ms",
                "unknown unit",
            ),
            ("deadline_ms = -5", "limits.deadline_ms", "negative"),
            (
                "deadline_ms = \"0.0001s\"",
                "limits.deadline_ms",
                "milliseconds",
            ),
            ("file_quota = -3", "limits.file_quota", "negative"),
            ("file_quota = \"10k\"", "limits.file_quota", "whole number"),
            ("walk_depth = \"1.5\"", "limits.walk_depth", "whole number"),
            ("undo_history = -1", "limits.undo_history", "negative"),
        ];
        for (toml, key, why) in cases {
            let e = limits(toml).unwrap_err();
            assert!(e.contains(key) && e.contains(why), "{toml}: {e}");
            assert!(e.starts_with("line 2, column "), "{toml}: {e}");
        }
    }

    #[test]
    fn load_reports_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("policy.toml");
        let e = Policy::load(&missing).unwrap_err();
        assert_eq!(
            e,
            format!("{}: No such file or directory", missing.display())
        );
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "atomic = true\n").unwrap();
        assert!(Policy::load(&file).unwrap().atomic);
        std::fs::write(&file, "\n[limits]\nnope = 1\n").unwrap();
        let e = Policy::load(&file).unwrap_err();
        assert!(
            e.starts_with(&format!("{}: line 3, column 1: ", file.display())),
            "{e}"
        );
        assert!(e.contains("nope"), "{e}");
    }

    #[test]
    fn validate_rejects_unknown_commands_bad_globs_and_zeros() {
        let mut p = Policy {
            deny_commands: vec!["rm".into(), "sudo".into()],
            ..Policy::default()
        };
        let e = p.validate(KNOWN).unwrap_err();
        assert_eq!(e, "deny_commands: unknown command \"sudo\"");
        p.deny_commands = vec!["undo".into()];
        assert!(p.validate(KNOWN).unwrap_err().contains("undo = false"));
        p.deny_commands = vec!["rm".into()];
        p.validate(KNOWN).unwrap();

        p.hidden = vec!["ok/**".into(), "[a".into()];
        let e = p.validate(KNOWN).unwrap_err();
        assert!(e.starts_with("hidden: invalid pattern \"[a\": "), "{e}");
        p.hidden.clear();
        p.read_only = vec!["{a,b".into()];
        let e = p.validate(KNOWN).unwrap_err();
        assert!(
            e.starts_with("read_only: invalid pattern \"{a,b\": "),
            "{e}"
        );
        for never in ["", "/", "a/../b", "./a", "a//b"] {
            p.read_only = vec![never.into()];
            let e = p.validate(KNOWN).unwrap_err();
            assert!(
                e.starts_with("read_only: invalid pattern"),
                "{never:?}: {e}"
            );
        }
        p.read_only.clear();

        let mut q = Policy::from_toml("[limits]\ndeadline_ms = 0\n").unwrap();
        assert_eq!(
            q.validate(KNOWN).unwrap_err(),
            "limits.deadline_ms: must be greater than 0"
        );
        q.limits = Limits {
            pipeline_len: 0,
            ..Limits::default()
        };
        assert!(
            q.validate(KNOWN)
                .unwrap_err()
                .contains("limits.pipeline_len")
        );
        q.limits = Limits {
            undo_history: 0,
            ..Limits::default()
        };
        assert!(
            q.validate(KNOWN)
                .unwrap_err()
                .contains("limits.undo_history")
        );
        q.undo = false;
        q.validate(KNOWN).unwrap();
    }

    #[test]
    fn unanchored_patterns_match_names_at_any_depth() {
        assert!(hidden(&[".env"], ".env"));
        assert!(hidden(&[".env"], "app/.env"));
        assert!(hidden(&[".env"], "a/b/c/.env"));
        assert!(!hidden(&[".env"], ".env.example"));
        assert!(!hidden(&[".env"], "app/x.env"));
        assert!(hidden(&["*.pem"], "a/b/key.pem"));
        assert!(hidden(&["*.pem"], "key.pem"));
        assert!(!hidden(&["*.pem"], "a/key.pem.txt"));
        assert!(hidden(&["key?.pem"], "x/key1.pem"));
        assert!(hidden(&["*.{pem,key}"], "x/id.key"));
        // Case-sensitive.
        assert!(!hidden(&[".env"], ".ENV"));
        // A trailing slash does not anchor.
        assert!(hidden(&["build/"], "build"));
        assert!(hidden(&["build/"], "x/build/out.o"));
    }

    #[test]
    fn anchored_patterns_start_at_the_root() {
        assert!(hidden(&["docs/*.md"], "docs/a.md"));
        assert!(!hidden(&["docs/*.md"], "x/docs/a.md"));
        assert!(hidden(&["/secret"], "secret"));
        assert!(hidden(&["/secret"], "secret/inner/file"));
        assert!(!hidden(&["/secret"], "a/secret"));
        assert!(hidden(&["config/prod.yaml"], "config/prod.yaml"));
        assert!(!hidden(&["config/prod.yaml"], "config/prod.yaml.bak"));
        // `**` crosses directories, anchored or not.
        assert!(hidden(&["**/cache"], "cache"));
        assert!(hidden(&["**/cache"], "a/b/cache/x"));
        assert!(hidden(&["a/**/z"], "a/z"));
        assert!(hidden(&["a/**/z"], "a/b/c/z"));
        assert!(!hidden(&["a/**/z"], "b/a/z"));
    }

    #[test]
    fn star_and_question_mark_do_not_cross_slashes() {
        assert!(!hidden(&["docs/*"], "docs"));
        assert!(hidden(&["docs/*"], "docs/a"));
        // docs/a/b matches through its ancestor docs/a, not because `*` crossed a `/`.
        assert!(hidden(&["docs/*"], "docs/a/b"));
        assert!(!hidden(&["a*b"], "a/b"));
        assert!(!hidden(&["x/a*b"], "x/a/b"));
        assert!(hidden(&["x/a*b"], "x/ab"));
        assert!(!hidden(&["x/a?b"], "x/a/b"));
        assert!(hidden(&["x/a?b"], "x/a-b"));
        assert!(!hidden(&["*.md"], "docs/a.md/../b")); // `..` is lexical: docs/b
        assert!(!hidden(&["d*/*.rs"], "dir/sub/main.rs"));
        assert!(hidden(&["d*/*.rs"], "dir/main.rs"));
    }

    #[test]
    fn ancestors_cover_their_contents() {
        assert!(hidden(&["secrets"], "secrets"));
        assert!(hidden(&["secrets"], "secrets/a/b/c.txt"));
        assert!(hidden(&["secrets"], "x/secrets/y"));
        assert!(!hidden(&["secrets"], "secretsx/y"));
        assert!(!hidden(&["secrets"], "x/y"));
        let r = rules(&[], &["vendor/**", "*.lock"]);
        assert!(r.is_read_only(Path::new("vendor/a/b.rs")));
        assert!(r.is_read_only(Path::new("sub/Cargo.lock")));
        assert!(!r.is_read_only(Path::new("src/main.rs")));
        assert!(!r.is_hidden(Path::new("vendor/a")));
    }

    #[test]
    fn double_star_suffix_matches_the_directory_itself() {
        assert!(hidden(&[".git/**"], ".git"));
        assert!(hidden(&[".git/**"], ".git/config"));
        assert!(hidden(&[".git/**"], ".git/objects/ab/cdef"));
        assert!(!hidden(&[".git/**"], "sub/.git")); // it has a `/`: anchored
        assert!(!hidden(&[".git/**"], ".gitignore"));
        assert!(hidden(&["/**"], "anything/at/all"));
        assert!(hidden(&["**"], "x"));
        assert!(hidden(&["a/**/"], "a"));
    }

    #[test]
    fn the_root_never_matches() {
        for patterns in [&["**"][..], &["*"], &["/**"], &["*/**"]] {
            let r = rules(patterns, patterns);
            for root in ["", ".", "/", "./"] {
                assert!(!r.is_hidden(Path::new(root)), "{patterns:?} {root:?}");
                assert!(!r.is_read_only(Path::new(root)), "{patterns:?} {root:?}");
            }
            assert!(r.is_hidden(Path::new("a")));
        }
    }

    #[test]
    fn non_utf8_names() {
        let name = |b: &[u8]| Path::new(OsStr::from_bytes(b)).to_path_buf();
        let r = rules(&["*.pem", "raw/**"], &["data/*"]);
        assert!(r.is_hidden(&name(b"\xff\xfe.pem")));
        assert!(r.is_hidden(&name(b"dir\x80/k\xff.pem")));
        assert!(r.is_hidden(&name(b"raw/\xff/x")));
        assert!(!r.is_hidden(&name(b"\xff.pe")));
        assert!(!r.is_hidden(&name(b"\xff/raw/x")));
        assert!(r.is_read_only(&name(b"data/\xc3\x28")));
        assert!(r.is_read_only(&name(b"data/\xc3\x28/deeper")));
        assert!(!r.is_read_only(&name(b"data\xc3/x")));
        // A non-UTF-8 byte is one character for `?`.
        assert!(rules(&["a?b"], &[]).is_hidden(&name(b"a\xffb")));
    }

    #[test]
    fn unnormalized_paths_are_normalized_lexically() {
        assert!(hidden(&["/secret"], "/secret/x"));
        assert!(hidden(&["/secret"], "./secret"));
        assert!(hidden(&["/secret"], "a/../secret/"));
        assert!(hidden(&["/secret"], "a//..//secret"));
        assert!(!hidden(&["/secret"], "secret/.."));
    }

    #[test]
    fn emptiness() {
        let r = rules(&[], &[]);
        assert!(r.is_empty() && !r.has_hidden() && !r.has_read_only());
        assert!(!r.is_hidden(Path::new("a")) && !r.is_read_only(Path::new("a")));
        let r = rules(&["a"], &[]);
        assert!(!r.is_empty() && r.has_hidden() && !r.has_read_only());
        let r = rules(&[], &["a/b"]);
        assert!(!r.is_empty() && !r.has_hidden() && r.has_read_only());
        assert!(PathRules::default().is_empty());
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1), "1 byte");
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(1024), "1 KiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(1 << 20), "1 MiB");
        assert_eq!(human_bytes(3 << 19), "1.5 MiB");
        assert_eq!(human_bytes(256 << 20), "256 MiB");
        assert_eq!(human_bytes(256 << 10), "256 KiB");
        assert_eq!(human_bytes(8 << 30), "8 GiB");
        assert_eq!(human_bytes(5 << 18), "1.25 MiB");
        assert_eq!(human_bytes(1 << 40), "1 TiB");
        assert_eq!(human_bytes(1_000_000), "1000000 bytes");
        assert_eq!(human_bytes(u64::MAX), "18446744073709551615 bytes");
        assert_eq!(human_ms(0), "0 ms");
        assert_eq!(human_ms(500), "500 ms");
        assert_eq!(human_ms(1_000), "1 s");
        assert_eq!(human_ms(1_500), "1.5 s");
        assert_eq!(human_ms(1_234), "1234 ms");
        assert_eq!(human_ms(30_000), "30 s");
        assert_eq!(human_ms(90_000), "90 s");
        assert_eq!(human_ms(120_000), "2 min");
        assert_eq!(human_ms(3_600_000), "1 h");
    }

    #[test]
    fn describe_default_policy() {
        let commands = ["ls", "cat", "rm", "cd"];
        let text = describe(&Policy::default(), &commands, "/home/user");
        assert!(text.contains("bash 5.2"), "{text}");
        assert!(
            text.contains("/home/user and nothing outside it exists"),
            "{text}"
        );
        assert!(
            text.contains("Available commands: cat, cd, ls, rm, undo.\n"),
            "{text}"
        );
        assert!(text.contains("trash"), "{text}");
        assert!(text.contains("undo N"), "{text}");
        assert!(text.contains("30 s with status 124"), "{text}");
        assert!(text.contains("host `sandbox`"), "{text}");
        assert!(text.contains("1 MiB on stdout"), "{text}");
        assert!(text.contains("256 KiB on stderr"), "{text}");
        assert!(
            text.contains("larger than 256 MiB cannot be read whole"),
            "{text}"
        );
        assert!(
            text.contains("8 GiB and 1000000 files including the trash"),
            "{text}"
        );
        assert!(text.contains("at most 64 commands"), "{text}");
        assert!(
            text.contains("(ls -R, rm -r) descend at most 1000 directory levels"),
            "{text}"
        );
        assert!(!text.contains("atomic"), "{text}");
        assert!(!text.contains("hidden"), "{text}");
        assert!(!text.contains("Read-only"), "{text}");
        assert!(!text.contains('#'), "{text}");
        let lines = text.lines().count();
        assert!((8..=15).contains(&lines), "{lines} lines:\n{text}");
    }

    #[test]
    fn describe_follows_the_policy() {
        let p = Policy::from_toml(&doc_example()).unwrap();
        let commands = ["ls", "cat", "date", "which", "undo", "grep"];
        let text = describe(&p, &commands, "/work");
        assert!(
            text.contains("Available commands: cat, grep, ls.\n"),
            "{text}"
        );
        assert!(!text.contains("date"), "{text}");
        assert!(!text.contains("which"), "{text}");
        assert!(!text.contains("undo"), "{text}");
        assert!(text.contains("atomic"), "{text}");
        assert!(text.contains("10 s with status 124"), "{text}");
        assert!(text.contains("512 KiB on stdout"), "{text}");
        assert!(text.contains("1 GiB and 50000 files"), "{text}");
        assert!(text.contains("Some paths are hidden"), "{text}");
        assert!(text.contains("Read-only file system"), "{text}");
        // Without rm: no trash sentence, no `rm -r`; without find/grep/ls/cp/rm: no walk cap.
        let no_rm = Policy {
            deny_commands: vec!["rm".into()],
            ..Policy::default()
        };
        let text_no_rm = describe(&no_rm, &["ls", "rm", "find"], "/");
        assert!(!text_no_rm.contains("rm"), "{text_no_rm}");
        assert!(text_no_rm.contains("(find, ls -R)"), "{text_no_rm}");
        let no_walk = describe(&Policy::default(), &["cat", "echo"], "/");
        assert!(!no_walk.contains("recursive"), "{no_walk}");
        assert!(!no_walk.contains("rm moves"), "{no_walk}");
        // No pattern is revealed.
        for secret in [
            ".env",
            "pem",
            "secrets",
            ".git",
            "vendor",
            "Cargo.lock",
            "docs/",
        ] {
            assert!(!text.contains(secret), "{secret} in:\n{text}");
        }
        let lines = text.lines().count();
        assert!((8..=15).contains(&lines), "{lines} lines:\n{text}");
    }

    #[test]
    fn display_lists_no_pattern() {
        let p = Policy::from_toml(&doc_example()).unwrap();
        assert_eq!(
            p.to_string(),
            "hidden: 4 rules, read_only: 3 rules, deny_commands: date which, undo: off, atomic: on"
        );
    }
}
