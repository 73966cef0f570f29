//! Helpers shared by several modules: tree snapshots (the containment tests) and a piped child
//! process (the `--json` and mcp tests).
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use trumansh::policy::Policy;
use trumansh::{Config, Outcome, Session};

/// What a snapshot records about one object (times and inodes included: a `touch` through a
/// link out, or a file created and removed in an outside directory, would show).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    File {
        mode: u32,
        ino: u64,
        mtime: (i64, i64),
        bytes: Vec<u8>,
    },
    Dir {
        mode: u32,
        mtime: (i64, i64),
    },
    Link {
        target: PathBuf,
    },
}

/// Every object under `dir` (itself included), by path. A directory equal to `skip` is
/// listed without its contents, mode or times (the sandbox root, when the outside is
/// snapshotted from above it).
pub fn snapshot(dir: &Path, skip: Option<&Path>) -> BTreeMap<PathBuf, Node> {
    fn walk(path: &Path, skip: Option<&Path>, out: &mut BTreeMap<PathBuf, Node>) {
        let m = fs::symlink_metadata(path).unwrap();
        let mtime = (m.mtime(), m.mtime_nsec());
        let node = if m.file_type().is_symlink() {
            Node::Link {
                target: fs::read_link(path).unwrap(),
            }
        } else if m.is_dir() && skip == Some(path) {
            Node::Dir {
                mode: 0,
                mtime: (0, 0),
            }
        } else if m.is_dir() {
            for entry in fs::read_dir(path).unwrap() {
                walk(&entry.unwrap().path(), skip, out);
            }
            Node::Dir {
                mode: m.mode() & 0o7777,
                mtime,
            }
        } else {
            Node::File {
                mode: m.mode() & 0o7777,
                ino: m.ino(),
                mtime,
                bytes: fs::read(path).unwrap(),
            }
        };
        out.insert(path.to_path_buf(), node);
    }
    let mut out = BTreeMap::new();
    walk(dir, skip, &mut out);
    out
}

/// A temp dir with the sandbox root and an outside directory beside it, both empty: the
/// start of the containment tests' trees.
pub struct Tree {
    _tmp: tempfile::TempDir,
    /// The temp dir (canonical).
    pub base: PathBuf,
    /// `<base>/outside`
    pub outside: PathBuf,
    /// `<base>/root`
    pub root: PathBuf,
}

impl Tree {
    pub fn new() -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let outside = base.join("outside");
        let root = base.join("root");
        fs::create_dir(&outside).unwrap();
        fs::create_dir(&root).unwrap();
        Tree {
            _tmp: tmp,
            base,
            outside,
            root,
        }
    }
}

/// A trumansh process on pipes, with a thread passing its stdout on line by line (the
/// channel closes at the end of stdout). Each test module adds its own protocol's methods to
/// `Piped<ItsMarker>` (a marker type of its own, so that the modules' methods do not clash).
pub struct Piped<P> {
    pub child: std::process::Child,
    pub stdin: Option<std::process::ChildStdin>,
    pub lines: std::sync::mpsc::Receiver<String>,
    protocol: std::marker::PhantomData<P>,
}

/// Spawns `command` with its stdin, stdout and stderr on pipes.
pub fn spawn_with_pipes(command: &mut std::process::Command) -> std::process::Child {
    use std::process::Stdio;
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", command.get_program().display()))
}

/// Starts `command` on pipes.
pub fn spawn_piped<P>(mut command: std::process::Command) -> Piped<P> {
    use std::io::BufRead;
    let mut child = spawn_with_pipes(&mut command);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Piped {
        child,
        stdin,
        lines,
        protocol: std::marker::PhantomData,
    }
}

/// The `info.json` of every trash entry of a root's default state directory, with the
/// entry's directory.
pub fn trash_entries(root: &Path) -> Vec<(PathBuf, serde_json::Value)> {
    fs::read_dir(root.join(".trash/trash"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let text = fs::read_to_string(e.path().join("info.json")).unwrap();
            (e.path(), serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// A finished process's stdout and stderr (as text) and exit status (-1 for a signal).
pub fn texts(out: &std::process::Output) -> (String, String, i32) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A session on `root` mounted at `/home/user` under the policy `policy` (TOML).
pub fn session(root: &Path, policy: &str) -> Session {
    let mut config = Config::new(root);
    config.sandbox.mount_point = Some("/home/user".into());
    config.policy = Policy::from_toml(policy).unwrap();
    Session::new(config).unwrap()
}

/// The stderr of an outcome, as text.
pub fn err(r: &Outcome) -> String {
    String::from_utf8_lossy(&r.stderr).into_owned()
}

/// The session still answers.
pub fn assert_alive(s: &mut Session) {
    let r = s.run("echo ok");
    assert_eq!(r.stdout, b"ok\n", "{}", err(&r));
    assert_eq!(r.status, 0);
}

/// `line` ends at the session's 300 ms deadline (status 124, the shell's one message, well
/// within 5 s) and the session goes on.
pub fn assert_stops_at_deadline(s: &mut Session, line: &str) {
    let start = std::time::Instant::now();
    let r = s.run(line);
    let took = start.elapsed();
    assert_eq!(r.status, 124, "{line}: {}", err(&r));
    // Said once, by the shell (a child shell names itself: `sh: line 1: `).
    assert!(
        err(&r).ends_with(
            "line 1: time limit of 300 ms for one command line exceeded; the command was stopped\n"
        ) && err(&r).matches("time limit").count() == 1,
        "{line}: {}",
        err(&r)
    );
    assert!(took < std::time::Duration::from_secs(5), "{line}: {took:?}");
    assert_alive(s);
}

/// The address space a session gets here: 3 GiB.
pub const AS_LIMIT: &str = "3221225472";

/// The binary on `root` (mounted at `/home/user`, under `policy` when given) under an
/// address-space limit (`prlimit --as`), for the memory tests.
pub fn limited(root: &Path, policy: Option<&str>, args: &[&str]) -> Command {
    let mut c = Command::new("prlimit");
    c.arg(format!("--as={AS_LIMIT}"))
        .arg(env!("CARGO_BIN_EXE_trumansh"))
        .arg("--root")
        .arg(root)
        .arg("--mount-point")
        .arg("/home/user");
    if let Some(p) = policy {
        let path = root.with_extension("policy.toml");
        fs::write(&path, p).unwrap();
        c.arg("--policy").arg(path);
    }
    c.args(args);
    c
}
