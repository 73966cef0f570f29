//! What a handler is given: the view of the sandbox, the virtual cwd, the shell variables,
//! its stdin, and the few facts about the world it may show (time, user names).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::{CommandName, FsView, Outcome, Step};

/// One shell variable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Var {
    /// `None`: declared (`export X`) but never given a value, which bash keeps apart from
    /// an empty value (`declare -x X` vs `declare -x X=""`, `${X-unset}`); also `None` for
    /// an array, whose elements are in `array`.
    pub value: Option<String>,
    pub exported: bool,
    /// `readonly`/`declare -r`: assignments and `unset` fail.
    pub readonly: bool,
    /// `declare -i`: what is assigned is evaluated as arithmetic.
    pub integer: bool,
    /// `declare -l` / `-u`: what is assigned is lowered / raised (`Some(false)` / `Some(true)`).
    pub case: Option<bool>,
    /// `declare -n`: the value names the variable this one refers to.
    pub nameref: bool,
    /// An array's elements.
    pub array: Option<Array>,
}

/// The elements of an array variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Array {
    /// `a=(x y)`, `a[3]=z`: sparse, by index.
    Indexed(BTreeMap<i64, String>),
    /// `declare -A m; m[key]=v` (listed in key order; bash lists its hash order).
    Assoc(BTreeMap<String, String>),
}

impl Var {
    /// The scalar value, or an array's element 0 (key `0`), as `$a` gives it.
    pub fn scalar(&self) -> Option<&str> {
        match &self.array {
            None => self.value.as_deref(),
            Some(Array::Indexed(m)) => m.get(&0).map(String::as_str),
            Some(Array::Assoc(m)) => m.get("0").map(String::as_str),
        }
    }
}

/// The session's shell variables (never the host's environment), in a hash map: every
/// command and expansion looks names up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    map: hashbrown::HashMap<String, Var>,
}

impl Vars {
    /// The value of a variable, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).and_then(Var::scalar)
    }
    /// The variable with its export flag.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.map.get(name)
    }
    /// Sets a value, keeping the export flag of an existing variable (and setting it when
    /// `export`).
    pub fn set(&mut self, name: &str, value: String, export: bool) {
        match self.map.get_mut(name) {
            Some(v) => {
                v.exported |= export;
                match &mut v.array {
                    // `a=v` on an array sets its element 0.
                    Some(Array::Indexed(m)) => {
                        m.insert(0, value);
                    }
                    Some(Array::Assoc(m)) => {
                        m.insert("0".into(), value);
                    }
                    None => v.value = Some(value),
                }
            }
            None => {
                self.map.insert(
                    name.to_string(),
                    Var {
                        value: Some(value),
                        exported: export,
                        ..Var::default()
                    },
                );
            }
        }
    }
    /// A variable to change in place, created (unset, no value) when missing.
    pub fn entry(&mut self, name: &str) -> &mut Var {
        self.map.entry(name.to_string()).or_default()
    }
    /// Marks a variable exported, declaring it without a value if it does not exist (bash
    /// shows `declare -x X`).
    pub fn export(&mut self, name: &str) {
        match self.map.get_mut(name) {
            Some(v) => v.exported = true,
            None => {
                self.map.insert(
                    name.to_string(),
                    Var {
                        exported: true,
                        ..Var::default()
                    },
                );
            }
        }
    }
    /// Removes a variable.
    pub fn unset(&mut self, name: &str) {
        self.map.remove(name);
    }
    /// Takes a variable out (to put it back later: a function's `local` shadows it).
    pub fn take(&mut self, name: &str) -> Option<Var> {
        self.map.remove(name)
    }
    /// Puts back what [`Vars::take`] took (`None`: the name is unset).
    pub fn put(&mut self, name: &str, var: Option<Var>) {
        match var {
            Some(v) => {
                self.map.insert(name.to_string(), v);
            }
            None => {
                self.map.remove(name);
            }
        }
    }
    /// Declares a variable without a value (`local x`), keeping its export flag.
    pub fn declare(&mut self, name: &str) {
        let exported = self.map.get(name).is_some_and(|v| v.exported);
        self.map.insert(
            name.to_string(),
            Var {
                exported,
                ..Var::default()
            },
        );
    }
    /// All variables in name order (C locale).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Var)> {
        let mut all: Vec<(&str, &Var)> = self.map.iter().map(|(k, v)| (k.as_str(), v)).collect();
        all.sort_unstable_by_key(|(k, _)| *k);
        all.into_iter()
    }
}

/// The names the sandbox shows for its owner: plausible, never the host's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: String,
    pub group: String,
    pub uid: u32,
    pub gid: u32,
    pub hostname: String,
    /// When the emulated machine booted (`uptime`, `ps`' start times): when the session's
    /// identity was made, i.e. when the session started.
    pub booted: SystemTime,
}

impl Default for Identity {
    fn default() -> Self {
        Identity {
            user: "user".into(),
            group: "user".into(),
            uid: 1000,
            gid: 1000,
            hostname: "sandbox".into(),
            booted: SystemTime::now(),
        }
    }
}

/// Everything a handler may look at.
pub struct Ctx<'a> {
    /// The name the command was invoked as (a handler serving several names, such as `[` and
    /// `test`, tells them apart by it).
    pub name: CommandName,
    /// The read-only, contained view of the sandbox.
    pub fs: &'a dyn FsView,
    /// The logical virtual cwd (absolute, normalised; may contain links, as bash's `$PWD`).
    pub cwd: &'a Path,
    /// The agent's view of the sandbox root (`/` or a path like `/home/user`).
    pub mount_point: &'a Path,
    /// The shell variables.
    pub vars: &'a Vars,
    /// The command's stdin: the previous pipeline stage's output (streamed), a `<` file, a
    /// here-document, or empty — never the session's own input.
    pub stdin: &'a Stdin,
    /// The time the command runs at.
    pub now: SystemTime,
    /// The user and host names to show.
    pub identity: &'a Identity,
    /// Whether stdout is a terminal (ls columns), as `isatty(1)`.
    pub stdout_is_tty: bool,
    /// Where large output goes while the command still runs (see [`Ctx::flush`]); `None`:
    /// everything stays in the outcome until the command returns.
    pub spill: Option<&'a dyn Spill>,
    /// How many directory levels a recursive walk may descend (the policy's `walk_depth`).
    pub walk_depth: usize,
    /// Commands the policy denies: for the agent they do not exist (`help`, `type` and
    /// `which` do not show them).
    pub denied: &'a [CommandName],
    /// The input fds above 2 open for the command (`3<f`, `exec 4<f`), for `read -u` and
    /// `mapfile -u`.
    pub inputs: &'a [(u32, Stdin)],
    /// The `set -o` options that are on, as `$SHELLOPTS` (`test -o`).
    pub shellopts: &'a str,
    /// Runs the command lines the command starts (`xargs`, `find -exec`, awk's `system()`
    /// and pipes) through the emulated shell; `None` where nothing can run them (a unit
    /// test's world). Use [`Ctx::run`].
    pub runner: Option<&'a dyn Runner>,
    /// The sandbox's usage and quotas, measured when asked (`df`); `None` where nothing
    /// measures them (a unit test's world).
    pub usage: Option<&'a dyn Fn() -> DiskUsage>,
    /// Invoked as a program (`/usr/bin/printf`, by `xargs`, `find -exec`, `env`), not as the
    /// shell's builtin of the same name: the name it was run by (its `argv[0]`, which GNU's
    /// messages start with). A `Both` command then answers as its GNU program.
    pub program: Option<&'a str>,
}

/// What the sandbox holds against its quotas (`df`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskUsage {
    /// Bytes stored (trash included), as the write quota counts them.
    pub used_bytes: u64,
    pub quota_bytes: u64,
    /// Files, directories and links.
    pub files: u64,
    pub file_quota: u64,
}

impl DiskUsage {
    /// The type of the one filesystem the sandbox is (`df -T`, `stat -f %T`).
    pub const FSTYPE: &'static str = "tmpfs";
    /// What `df` and `stat -f` show where nothing measures the sandbox (a unit test's world):
    /// an empty 8 GiB filesystem with a million inodes.
    pub const UNMEASURED: DiskUsage = DiskUsage {
        used_bytes: 0,
        quota_bytes: 8 << 30,
        files: 0,
        file_quota: 1_000_000,
    };
}

/// What a command asks the shell to run ([`Ctx::run`]).
#[derive(Debug, Clone, Copy)]
pub enum RunWhat<'r> {
    /// A program and its arguments, as `execvp` runs it (`find -exec`, `xargs`): a command
    /// the shell emulates as a program (a handler; `bash`/`sh` and scripts as child shells),
    /// never a function or a builtin without a program (`cd`).
    Argv(&'r [std::ffi::OsString]),
    /// A line for the shell, as `sh -c LINE` (awk's `system()`, `"cmd" | getline`,
    /// `print | "cmd"`).
    Shell(&'r [u8]),
}

/// One command line to run, with what it reads and where its output goes.
#[derive(Debug, Clone, Copy)]
pub struct RunRequest<'r> {
    pub what: RunWhat<'r>,
    /// Its stdin (`None`: empty, as `/dev/null`), unless `inherit_stdin`.
    pub stdin: Option<&'r [u8]>,
    /// It reads what is left of the caller's stdin (`env CMD`, `find -exec`), which the
    /// caller has not read from.
    pub inherit_stdin: bool,
    /// Keep its stdout and return it (`"cmd" | getline`); otherwise it goes where the calling
    /// command's stdout goes, after what the caller wrote so far.
    pub capture: bool,
    /// The directory it runs in (`find -execdir`); `None`: the caller's.
    pub cwd: Option<&'r Path>,
    /// Changes to the environment it gets (`env -i -u NAME NAME=VALUE`); `None`: the
    /// caller's exported variables.
    pub env: Option<&'r EnvChange>,
}

/// How a started command's environment differs from the caller's ([`RunRequest::env`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvChange {
    /// Start from an empty environment (`env -i`).
    pub clear: bool,
    /// Variables removed (`env -u NAME`).
    pub unset: Vec<String>,
    /// Variables set, in order (`env NAME=VALUE`).
    pub set: Vec<(String, String)>,
}

/// What a command line did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunResult {
    /// Its exit status (126/127 as `execvp` fails: not executable, not found).
    pub status: i32,
    /// What it wrote to stdout, when captured.
    pub stdout: Vec<u8>,
    /// `RunWhat::Argv` named no program: nothing ran; the caller says so in its own words
    /// (`find: 'x': No such file or directory`), status 127.
    pub not_found: bool,
    /// The line is over (the deadline passed, the output is no longer read, `exit`): the
    /// caller stops.
    pub stop: bool,
}

/// The runtime's side of [`Ctx::run`].
pub trait Runner {
    fn run(&self, req: RunRequest) -> RunResult;
    /// Runs it under its own deadline, `limit` from now (`timeout`): past it the command
    /// stops as at the line's deadline, without stopping the rest of the line.
    fn run_until(&self, req: RunRequest, limit: std::time::Duration) -> RunResult {
        let _ = limit;
        self.run(req)
    }
}

impl Ctx<'_> {
    /// The sandbox's usage against its quotas, measured now ([`DiskUsage::UNMEASURED`] where
    /// nothing measures it): the one filesystem `df` and `stat -f` describe.
    pub fn disk_usage(&self) -> DiskUsage {
        self.usage.map_or(DiskUsage::UNMEASURED, |f| f())
    }

    /// The fd a `-u FD` operand names (`read`, `mapfile`), checked as bash does: a whole
    /// number, and open for reading. `Err`: bash's message.
    pub fn input_fd(&self, v: &[u8]) -> Result<u32, String> {
        let n = crate::support::cnum::legal_number(v)
            .filter(|&n| n >= 0 && i32::try_from(n).is_ok())
            .ok_or_else(|| {
                format!(
                    "{}: invalid file descriptor specification",
                    String::from_utf8_lossy(v)
                )
            })?;
        let fd = u32::try_from(n).unwrap_or(u32::MAX);
        match self.input(fd) {
            Some(_) => Ok(fd),
            None => Err(format!("{n}: invalid file descriptor: Bad file descriptor")),
        }
    }

    /// The input open on fd `n` (0: stdin); `None`: not open for reading.
    pub fn input(&self, n: u32) -> Option<&Stdin> {
        if n == 0 {
            return Some(self.stdin);
        }
        self.inputs.iter().find(|(k, _)| *k == n).map(|(_, s)| s)
    }

    /// Whether a command exists for the agent.
    pub fn available(&self, c: CommandName) -> bool {
        !self.denied.contains(&c)
    }
}

/// The executor's side of [`Ctx::flush`]: takes steps a command has produced so far, in
/// order, and says when nobody reads the output any more (the next pipeline stage ended,
/// as `head -n 1` does): the command should then stop, as it would on `SIGPIPE`.
pub trait Spill {
    fn spill(&self, steps: Vec<Step>);
    fn closed(&self) -> bool;
    /// Whether the line's deadline has passed (or it was cancelled), looked at now.
    fn expired(&self) -> bool {
        self.closed()
    }
    /// A new, empty scratch file ([`Ctx::scratch`]); `None`: this executor has none (the
    /// command then keeps its scratch data in memory).
    fn scratch(&self) -> Option<Result<Box<dyn ScratchFile + '_>, crate::FsError>> {
        None
    }
    /// The most bytes a command may hold in memory at once ([`Ctx::hold_bytes`]); `None`:
    /// [`HOLD_BYTES`].
    fn hold_bytes(&self) -> Option<u64> {
        None
    }
}

/// A scratch file a command spills to (`sort`'s sorted runs): read, written and sought as a
/// temporary file. The runtime's lives in the state directory, unlinked at once (so it is
/// never seen by the agent, never journaled, and gone when dropped or at a crash), and its
/// bytes are charged to the write quota while it lives: a write past the quota fails with
/// `EDQUOT`.
pub trait ScratchFile: Read + std::io::Write + Seek {}

impl<T: Read + std::io::Write + Seek> ScratchFile for T {}

/// The most bytes a command holds in memory at once where the runtime does not say
/// otherwise: the default of the policy's `read_bytes` (256 MiB). A command that must hold
/// more (one line longer than it for `uniq`, all of `tac`'s input) stops with GNU's
/// `memory exhausted`.
pub const HOLD_BYTES: u64 = 256 << 20;

/// How much buffered output [`Ctx::flush`] lets accumulate before handing it over.
pub const SPILL_AT: usize = 64 * 1024;

impl Ctx<'_> {
    /// Joins an operand with the cwd, as the kernel does with a relative path (see
    /// [`resolve_against`]).
    pub fn resolve(&self, operand: impl AsRef<OsStr>) -> PathBuf {
        resolve_against(self.cwd, operand.as_ref())
    }
    /// Hands the outcome's buffered steps to the executor once they pass [`SPILL_AT`] bytes,
    /// so that a command producing a lot (`cat big.txt | head`) runs in bounded memory and
    /// its output flows while it runs. Commands call it in their read loops. Returns false
    /// when the output is no longer read: stop early.
    pub fn flush(&self, o: &mut Outcome) -> bool {
        let Some(spill) = self.spill else {
            return true;
        };
        if o.buffered_len() >= SPILL_AT {
            spill.spill(std::mem::take(&mut o.steps));
        }
        !spill.closed()
    }

    /// Whether the line's deadline has passed (or the line was cancelled): a command that
    /// waits (`sleep`) looks at it between short naps. False in a unit test's world.
    pub fn expired(&self) -> bool {
        self.spill.is_some_and(Spill::expired)
    }

    /// Hands every step produced so far to the executor at once, so that the effects among
    /// them are applied before the handler goes on: `cp -r` looks whether the directory it
    /// asked for exists before it copies into it. False when nothing applies them (a unit
    /// test's world): the view then does not show what they did.
    pub fn apply_now(&self, o: &mut Outcome) -> bool {
        let Some(spill) = self.spill else {
            return false;
        };
        spill.spill(std::mem::take(&mut o.steps));
        true
    }

    /// Runs a command line through the emulated shell (see [`RunRequest`]). What the command
    /// produced so far is handed over first, so that outputs and changes keep their order.
    /// `None`: nothing can run commands here (a unit test's world).
    pub fn run(&self, o: &mut Outcome, req: RunRequest) -> Option<RunResult> {
        let runner = self.runner?;
        if let Some(spill) = self.spill {
            spill.spill(std::mem::take(&mut o.steps));
        }
        Some(runner.run(req))
    }

    /// [`Ctx::run`] under the command's own deadline, `limit` from now ([`Runner::run_until`]).
    pub fn run_until(
        &self,
        o: &mut Outcome,
        req: RunRequest,
        limit: std::time::Duration,
    ) -> Option<RunResult> {
        let runner = self.runner?;
        if let Some(spill) = self.spill {
            spill.spill(std::mem::take(&mut o.steps));
        }
        Some(runner.run_until(req, limit))
    }

    /// A new, empty scratch file, removed when dropped (see [`ScratchFile`]); in memory
    /// where the executor has none (a unit test's world). `Err`: it could not be created
    /// (the quota is full, the disk is).
    pub fn scratch(&self) -> Result<Box<dyn ScratchFile + '_>, crate::FsError> {
        match self.spill.and_then(Spill::scratch) {
            Some(r) => r,
            None => Ok(Box::new(Cursor::new(Vec::new()))),
        }
    }

    /// The most bytes a command may hold in memory at once (a line `uniq` compares, the
    /// lines `tail -n` keeps, `tac`'s whole input, a run `sort` sorts before it spills it):
    /// the policy's `read_bytes`.
    pub fn hold_bytes(&self) -> u64 {
        self.spill.and_then(Spill::hold_bytes).unwrap_or(HOLD_BYTES)
    }

    /// `$HOME`, or the mount point when unset.
    pub fn home(&self) -> PathBuf {
        self.vars
            .get("HOME")
            .map_or_else(|| self.mount_point.to_path_buf(), PathBuf::from)
    }
}

/// Joins an operand with a directory as the kernel does with a relative path: no
/// normalisation, so `link/..` is resolved physically by the view. An empty operand gives an
/// empty path, which the view answers with ENOENT, as the kernel does for `cat ''`.
pub fn resolve_against(cwd: &Path, operand: &OsStr) -> PathBuf {
    let p = Path::new(operand);
    if p.as_os_str().is_empty() {
        PathBuf::new()
    } else if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// A command's stdin: bytes already known (a here-document, a `<` file, an earlier stage's
/// output) or a stream from a pipeline stage still running. Reading consumes it, as reading
/// a file descriptor does: `head - -` sees the rest after the first `-`.
pub struct Stdin {
    inner: RefCell<Box<dyn Read>>,
    /// Bytes a [`SeekableStdin`] read ahead but did not use: read again first, as a command
    /// on a seekable stdin leaves the offset just after what it used (`head -n 1 - -`).
    pushback: RefCell<Vec<u8>>,
}

impl Stdin {
    /// What was read ahead but not used: to be read first by whoever reads the same input
    /// next (the next command of a `while read` loop).
    pub fn take_pushback(&self) -> Vec<u8> {
        self.pushback
            .try_borrow_mut()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default()
    }
    /// Puts bytes back to be read first (what a command read ahead and did not use).
    pub fn unread(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Ok(mut back) = self.pushback.try_borrow_mut() {
            back.splice(0..0, bytes.iter().copied());
        }
    }
    /// Reads one byte at a time out of chunks: what is left of the last chunk is put back
    /// ([`Stdin::unread`]) when the reader is dropped, so the next reader of the same input
    /// starts just after the last byte taken (`while read` loops).
    pub fn bytes_reader(&self) -> ByteReader<'_> {
        ByteReader {
            stdin: self,
            buf: Vec::new(),
            pos: 0,
            chunk: 128,
        }
    }
    /// Stdin holding these bytes.
    pub fn bytes(data: impl Into<Vec<u8>>) -> Self {
        Stdin::stream(Box::new(Cursor::new(data.into())))
    }
    /// An empty stdin (what a command with no pipe or redirection reads).
    pub fn empty() -> Self {
        Stdin::bytes(Vec::new())
    }
    /// Stdin read from a stream.
    pub fn stream(reader: Box<dyn Read>) -> Self {
        Stdin {
            inner: RefCell::new(reader),
            pushback: RefCell::new(Vec::new()),
        }
    }
    /// All that is left, read now.
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut r = self;
        r.read_to_end(&mut out)?;
        Ok(out)
    }
    /// One line (without its newline), or `None` at end of input: an answer to a prompt.
    pub fn read_line(&self) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        let mut r = self;
        loop {
            match r.read(&mut byte) {
                Ok(1) if byte[0] == b'\n' => return Some(line),
                Ok(1) => line.push(byte[0]),
                _ => return (!line.is_empty()).then_some(line),
            }
        }
    }
    /// A seekable view. Reading forward streams (bytes already used are dropped); from the
    /// first seek on, what is read is kept so that the command can go back, and a seek from
    /// the end reads everything that is left (`tail`, `head -n -N`).
    pub fn seekable(&self) -> SeekableStdin<'_> {
        SeekableStdin {
            stdin: self,
            kept: Vec::new(),
            base: 0,
            pos: 0,
            retain: false,
            done: false,
        }
    }
}

impl Read for &Stdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Ok(mut back) = self.pushback.try_borrow_mut()
            && !back.is_empty()
        {
            let n = back.len().min(buf.len());
            buf.get_mut(..n)
                .unwrap_or_default()
                .copy_from_slice(back.get(..n).unwrap_or_default());
            back.drain(..n);
            return Ok(n);
        }
        match self.inner.try_borrow_mut() {
            Ok(mut r) => r.read(buf),
            Err(_) => Ok(0),
        }
    }
}

/// [`Stdin::bytes_reader`].
pub struct ByteReader<'s> {
    stdin: &'s Stdin,
    buf: Vec<u8>,
    pos: usize,
    /// The next chunk's size: small first (a line is short; what is left is put back),
    /// doubling up to 4 KiB for long reads.
    chunk: usize,
}

impl ByteReader<'_> {
    /// The next byte; `None` at the end of the input.
    pub fn next_byte(&mut self) -> io::Result<Option<u8>> {
        if let Some(&b) = self.buf.get(self.pos) {
            self.pos += 1;
            return Ok(Some(b));
        }
        self.buf.resize(self.chunk, 0);
        self.chunk = (self.chunk * 2).min(4096);
        self.pos = 0;
        let mut r = self.stdin;
        loop {
            match r.read(&mut self.buf) {
                Ok(n) => {
                    self.buf.truncate(n);
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.clear();
                    return Err(e);
                }
            }
        }
        match self.buf.first() {
            Some(&b) => {
                self.pos = 1;
                Ok(Some(b))
            }
            None => Ok(None),
        }
    }
}

impl Drop for ByteReader<'_> {
    fn drop(&mut self) {
        self.stdin
            .unread(self.buf.get(self.pos..).unwrap_or_default());
    }
}

/// [`Stdin::seekable`].
pub struct SeekableStdin<'s> {
    stdin: &'s Stdin,
    /// Bytes read from stdin, starting at offset `base`.
    kept: Vec<u8>,
    base: u64,
    /// The read position (an offset in the whole input).
    pos: u64,
    /// A seek happened: keep everything from now on.
    retain: bool,
    done: bool,
}

impl SeekableStdin<'_> {
    /// Reads more from stdin into `kept`; false at end of input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.done {
            return Ok(false);
        }
        if !self.retain {
            // Forward reading only: drop what was already used.
            let used = usize::try_from(self.pos.saturating_sub(self.base)).unwrap_or(0);
            let used = used.min(self.kept.len());
            self.kept.drain(..used);
            self.base += used as u64;
        }
        let mut buf = vec![0u8; 64 * 1024];
        let mut r = self.stdin;
        let n = r.read(&mut buf)?;
        if n == 0 {
            self.done = true;
            return Ok(false);
        }
        self.kept
            .extend_from_slice(buf.get(..n).unwrap_or_default());
        Ok(true)
    }

    fn end(&self) -> u64 {
        self.base + self.kept.len() as u64
    }
}

impl Drop for SeekableStdin<'_> {
    fn drop(&mut self) {
        let from = usize::try_from(self.pos.saturating_sub(self.base)).unwrap_or(usize::MAX);
        let unread = self.kept.get(from..).unwrap_or_default();
        if let Ok(mut back) = self.stdin.pushback.try_borrow_mut() {
            let mut rest = unread.to_vec();
            rest.append(&mut back);
            *back = rest;
        }
    }
}

impl Read for SeekableStdin<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.end() {
            if !self.fill()? {
                return Ok(0);
            }
        }
        let from = usize::try_from(self.pos - self.base).unwrap_or(usize::MAX);
        let avail = self.kept.get(from..).unwrap_or_default();
        let n = avail.len().min(buf.len());
        buf.get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(avail.get(..n).unwrap_or_default());
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SeekableStdin<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.retain = true;
        let target = match to {
            SeekFrom::Start(n) => i128::from(n),
            SeekFrom::Current(d) => i128::from(self.pos) + i128::from(d),
            SeekFrom::End(d) => {
                while self.fill()? {}
                i128::from(self.end()) + i128::from(d)
            }
        };
        // Before what was kept (dropped while reading forward), or before the start.
        if target < i128::from(self.base) {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        }
        let target = u64::try_from(target).unwrap_or(u64::MAX);
        while target > self.end() && self.fill()? {}
        self.pos = target;
        Ok(self.pos)
    }
}
