//! A small harness for handler unit tests: a [`MemFs`] world, a [`Ctx`] over it, the command
//! run through the table as the runtime runs it, and the outcome as (stdout, stderr, status)
//! strings; plus the named worlds several handlers' tests share ([`texts`], [`small_tree`],
//! [`copy_tree`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::testing::memfs::MemFs;
use crate::{CommandName, Ctx, Directive, Effect, Identity, Op, Outcome, Stdin, Step, Vars};

/// The time every test runs at: 2024-01-02 03:04:05 UTC.
pub const NOW: Duration = Duration::from_secs(1_704_164_645);

pub struct World {
    pub fs: MemFs,
    pub cwd: PathBuf,
    pub mount: PathBuf,
    pub vars: Vars,
    pub stdin: Vec<u8>,
    pub tty: bool,
    pub identity: Identity,
    /// Run as a program (`/usr/bin/NAME`), not as the builtin ([`Ctx::program`]).
    pub program: Option<String>,
}

impl World {
    /// A world rooted at `/s` with the cwd there.
    pub fn new(fs: MemFs) -> Self {
        World {
            fs,
            cwd: PathBuf::from("/s"),
            mount: PathBuf::from("/s"),
            vars: Vars::default(),
            stdin: Vec::new(),
            tty: false,
            identity: Identity::default(),
            program: None,
        }
    }
    /// The empty world: `/s` and nothing in it (commands that only read their arguments,
    /// stdin or the variables).
    pub fn empty() -> Self {
        World::new(MemFs::rooted("/s"))
    }
    /// Runs commands as their programs (`/usr/bin/printf`), not as builtins.
    pub fn run_as_program(mut self) -> Self {
        self.program = Some("printf".into());
        self
    }
    pub fn cwd(mut self, cwd: &str) -> Self {
        self.cwd = PathBuf::from(cwd);
        self
    }
    pub fn mount(mut self, m: &str) -> Self {
        self.mount = PathBuf::from(m);
        self
    }
    pub fn var(mut self, name: &str, value: &str, export: bool) -> Self {
        self.vars.set(name, value.to_string(), export);
        self
    }
    /// `export NAME` without a value.
    pub fn declared(mut self, name: &str) -> Self {
        self.vars.export(name);
        self
    }
    pub fn stdin(mut self, data: &[u8]) -> Self {
        self.stdin = data.to_vec();
        self
    }
    pub fn tty(mut self) -> Self {
        self.tty = true;
        self
    }
    /// Runs a command (with a fresh stdin holding the world's bytes) through the table, as
    /// the runtime does, and returns its outcome.
    pub fn run(&self, name: CommandName, args: &[&str]) -> Outcome {
        let stdin = Stdin::bytes(self.stdin.clone());
        self.run_on(name, args, &stdin)
    }
    /// Runs a command on a given stdin, which the caller can read on afterwards (what a
    /// command leaves for the next one).
    pub fn run_on(&self, name: CommandName, args: &[&str], stdin: &Stdin) -> Outcome {
        let ctx = Ctx {
            name,
            fs: &self.fs,
            cwd: &self.cwd,
            mount_point: &self.mount,
            vars: &self.vars,
            stdin,
            now: SystemTime::UNIX_EPOCH + NOW,
            identity: &self.identity,
            stdout_is_tty: self.tty,
            spill: None,
            walk_depth: 256,
            denied: &[],
            inputs: &[],
            shellopts: "braceexpand:hashall:interactive-comments",
            runner: None,
            usage: None,
            program: self.program.as_deref(),
        };
        crate::run(name, &os(args), &ctx)
    }
}

/// `line 1\n` … `line 30\n`: the file the head, tail and wc tests count in.
pub fn lines30() -> Vec<u8> {
    (1..=30)
        .map(|i| format!("line {i}\n"))
        .collect::<Vec<_>>()
        .concat()
        .into_bytes()
}

/// The named world of the text filters, rooted at `/s`: a directory `d`, `lines.txt`
/// ([`lines30`]), `nonl.txt` (no final newline), `empty.txt` and `colon.txt` (fields).
pub fn texts() -> MemFs {
    MemFs::rooted("/s")
        .dir("/s/d")
        .file("/s/lines.txt", &lines30())
        .file("/s/nonl.txt", b"no newline at end")
        .file("/s/empty.txt", b"")
        .file("/s/colon.txt", b"a:b:c\nd:e:f\ng\n1:2:3:4\n")
}

/// A small tree, rooted at `/s`: `d/sub/`, an empty file `f`, a dangling link `dang`.
pub fn small_tree() -> MemFs {
    MemFs::rooted("/s")
        .dir("/s/d/sub")
        .file("/s/f", b"")
        .symlink("/s/dang", "nowhere")
}

/// The tree of the copy and move tests, rooted at `/s`: `d/{sub/,x}`, `e/d/keep/` (a
/// destination with a `d` inside), files `f` and `g`, links `lf` → `f`, `ld` → `d` and a
/// dangling `dang`, and `dd/f/` (a directory named like a file).
pub fn copy_tree() -> MemFs {
    MemFs::rooted("/s")
        .dir("/s/d/sub")
        .file("/s/d/x", b"x\n")
        .dir("/s/e/d/keep")
        .file("/s/f", b"hi\n")
        .file("/s/g", b"g\n")
        .symlink("/s/lf", "f")
        .symlink("/s/dang", "nowhere")
        .symlink("/s/ld", "d")
        .dir("/s/dd/f")
}

pub fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

/// (stdout, stderr, status) of an outcome, as lossy strings.
pub fn text(o: &Outcome) -> (String, String, i32) {
    (
        String::from_utf8_lossy(&o.stdout()).into_owned(),
        String::from_utf8_lossy(&o.stderr()).into_owned(),
        o.status,
    )
}

/// The ops of an outcome's effects.
pub fn ops(o: &Outcome) -> Vec<Op> {
    o.effects().map(|e: &Effect| e.op.clone()).collect()
}

/// The directives of an outcome, in order.
pub fn directives(o: &Outcome) -> Vec<Directive> {
    o.directives().cloned().collect()
}

/// stdout and stderr interleaved as the executor would print them if every effect succeeded
/// (each effect's `on_ok` in its place).
pub fn transcript(o: &Outcome) -> String {
    o.steps
        .iter()
        .map(|s| match s {
            Step::Out(b) | Step::Err(b) | Step::ShellErr(b) => {
                String::from_utf8_lossy(b).into_owned()
            }
            Step::Effect(e) => {
                String::from_utf8_lossy(e.on_ok.as_deref().unwrap_or_default()).into_owned()
            }
            Step::Directive(_) => String::new(),
        })
        .collect()
}
