//! Any bytes (at most 4 KiB) typed into a `Session` on a fresh copy of a small tree (with
//! links in and out, and an outside secret beside the root). Must never panic; afterwards the
//! session must still answer `echo ok` (unless the input ran `exit`), the outside must be
//! unchanged, and no output may show the secret.
//!
//! The session runs under a tight policy ([`limits`]): a line that loops, recurses or
//! substitutes without end (`while :; do :; done`, `f() { f; }; f`) ends within a
//! fraction of a second — by its count of commands or iterations, or at the latest by the
//! deadline — so no input counts as a hang unless the shell stops checking its limits.
//!
//! The secret is random per process and is only ever compared by hash: libFuzzer learns the
//! operands of comparisons (`memcmp`, `cmp`), so a plain comparison with a fixed text would
//! hand it the very bytes to type (and an input that types them is no leak).
#![no_main]

use std::fs;
use std::hash::{BuildHasher, DefaultHasher, Hasher};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use trumansh::{Captured, Config, Session};

const MAX_INPUT: usize = 4096;

/// The outside secret: random text, and its hash.
struct Secret {
    bytes: Vec<u8>,
    hash: u64,
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

fn secret() -> &'static Secret {
    static S: OnceLock<Secret> = OnceLock::new();
    S.get_or_init(|| {
        let random = || std::collections::hash_map::RandomState::new().hash_one(0u8);
        let bytes = format!("SECRET-{:016x}{:016x}\n", random(), random()).into_bytes();
        let hash = hash(&bytes);
        Secret { bytes, hash }
    })
}

/// Whether `hay` holds the secret (compared by hash, window by window).
fn shows_secret(hay: &[u8]) -> bool {
    let s = secret();
    hay.windows(s.bytes.len()).any(|w| hash(w) == s.hash)
}

/// A scratch directory, on a tmpfs when there is one: every run creates and deletes a tree,
/// which on a disk filesystem costs more than the run itself.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(t) = tempfile::tempdir_in(shm)
    {
        return t;
    }
    tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"))
}

/// The template tree, built once in `<tmp>/tree/`.
fn template() -> &'static tempfile::TempDir {
    static T: OnceLock<tempfile::TempDir> = OnceLock::new();
    T.get_or_init(|| {
        let t = scratch();
        let setup = || -> std::io::Result<()> {
            let r = t.path().join("tree");
            fs::create_dir_all(r.join("dir/sub"))?;
            fs::write(r.join("file.txt"), b"hello\nworld\n")?;
            fs::write(r.join(".hidden"), b"h\n")?;
            fs::write(r.join("dir/inner.txt"), b"inner\n")?;
            symlink("file.txt", r.join("link"))?;
            symlink("nowhere", r.join("dangling"))?;
            symlink("loop", r.join("loop"))?;
            symlink(".", r.join("rootlink"))?;
            symlink("../secret.txt", r.join("out"))?;
            symlink("..", r.join("up"))?;
            Ok(())
        };
        setup().unwrap_or_else(|e| panic!("template: {e}"));
        t
    })
}

/// Copies a tree (files, directories, links as links).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            symlink(fs::read_link(&src)?, &dst)?;
        } else if kind.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// The per-line limits of the fuzzed session: counts low enough that a runaway loop ends in
/// well under the deadline (which is the backstop: a timing-dependent end makes coverage
/// noisy), and the deadline far below libFuzzer's `-timeout` (10 s).
fn limits(config: &mut Config) {
    let l = &mut config.policy.limits;
    l.deadline_ms = 1_000;
    l.commands = 20_000;
    l.loop_iterations = 20_000;
    l.stdout_bytes = 256 << 10;
    l.stderr_bytes = 64 << 10;
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let t = template();
    // A fresh copy beside the template, so `../secret.txt` is outside it as well.
    let work = scratch();
    fs::write(work.path().join("secret.txt"), &secret().bytes).unwrap_or_else(|e| panic!("{e}"));
    let root = work.path().join("root");
    copy_tree(&t.path().join("tree"), &root).unwrap_or_else(|e| panic!("copy: {e}"));

    let mut config = Config::new(&root);
    config.sandbox.mount_point = Some("/home/user".into());
    limits(&mut config);
    let mut session = Session::new(config).unwrap_or_else(|e| panic!("session: {e}"));
    let mut sink = Captured::default();
    let _status = session.run_input(data, 1, &mut sink);
    assert!(
        !shows_secret(&sink.stdout) && !shows_secret(&sink.stderr),
        "the outside secret was shown"
    );
    if session.exit_status().is_none() {
        let r = session.run("echo ok");
        assert_eq!(r.stdout, b"ok\n", "the session no longer answers");
    }
    let now = fs::read(work.path().join("secret.txt")).unwrap_or_default();
    assert!(hash(&now) == secret().hash, "the outside secret changed");
    let mut names: Vec<_> = fs::read_dir(work.path())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    names.sort();
    assert_eq!(
        names,
        ["root", "secret.txt"],
        "a name appeared outside the root"
    );
});
