//! The agent races itself: pipeline stages run at the same time, so one stage can swap a
//! directory for a link while another stage resolves a path through it. Every try is one
//! line whose stages move a link into place and back while the others read, write and try
//! to forge the state directory through `a/b/..`:
//!
//! ```text
//! root/
//!     a/b/                  a real directory: `a/b/..` is `a`, which holds decoys
//!     a/l -> . | ../a       a link to `a` itself: while it is at `a/b`, `a/b/..` is the root
//!     a/secrets/key         "DECOY"        (what `a/b/../secrets/key` reads through the dir)
//!     secrets/key           "SECRET-KEY"   hidden by the policy
//!     config/prod.yml       "PROD"         read-only by the policy
//!     .trash/ (or outside)  the state directory: audit log, journal, trash
//! ```
//!
//! A win is any secret byte or state-directory record on the agent's stdout or stderr, a
//! changed read-only file, a new name among the hidden files or in the state directory, or
//! anything changed outside the root. The count is `SELF_RACE_TRIES` per configuration
//! (default 5,000; four configurations: self link and parent link, state directory inside
//! and outside the root: 20,000 tries in all). A longer run:
//! `SELF_RACE_TRIES=50000 cargo test --release --test it self_race::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use trumansh::policy::Policy;
use trumansh::{Config, Session};

use crate::common::{self, Node, Tree};

const SECRET: &[u8] = b"SECRET-KEY";
const PROD: &[u8] = b"PROD\n";
const DECOY: &[u8] = b"DECOY\n";

fn tries() -> usize {
    std::env::var("SELF_RACE_TRIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5000)
}

struct Fixture {
    tree: Tree,
    state: PathBuf,
    link_target: &'static str,
}

fn fixture(link_target: &'static str, state_outside: bool) -> Fixture {
    let tree = Tree::new();
    let r = &tree.root;
    fs::create_dir_all(r.join("a/b")).unwrap();
    fs::create_dir_all(r.join("a/secrets")).unwrap();
    fs::write(r.join("a/secrets/key"), DECOY).unwrap();
    symlink(link_target, r.join("a/l")).unwrap();
    fs::create_dir_all(r.join("secrets")).unwrap();
    fs::write(r.join("secrets/key"), b"SECRET-KEY\n").unwrap();
    fs::create_dir_all(r.join("config")).unwrap();
    fs::write(r.join("config/prod.yml"), PROD).unwrap();
    fs::write(r.join("marker"), b"ROOT-MARKER\n").unwrap();
    fs::write(r.join("a/marker"), b"A-MARKER\n").unwrap();
    fs::write(tree.outside.join("o.txt"), b"outside\n").unwrap();
    let state = if state_outside {
        tree.base.join("state")
    } else {
        r.join(".trash")
    };
    Fixture {
        tree,
        state,
        link_target,
    }
}

fn session(fx: &Fixture) -> Session {
    let mut config = Config::new(&fx.tree.root);
    config.sandbox.mount_point = Some("/home/user".into());
    if !fx.state.starts_with(&fx.tree.root) {
        config.sandbox.state_dir = Some(fx.state.clone());
    }
    config.policy =
        Policy::from_toml("hidden = [\"secrets/**\"]\nread_only = [\"config/prod.yml\"]\n")
            .unwrap();
    Session::new(config).unwrap()
}

/// Names in the state directory other than the records the session itself writes.
fn state_names(state: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            ![
                "audit.jsonl",
                "txn",
                "sessions",
                "trash",
                "root.json",
                "reserve",
                "usage",
                "undo-saved",
                "undo.lock",
            ]
            .contains(&n.as_str())
        })
        .collect();
    v.sort();
    v
}

/// Puts `a/b` back to the real directory and `a/l` back to the link, whatever the last try
/// left (a stage's `mv` may have failed half-way through the swap).
fn reset(fx: &Fixture) {
    let a = fx.tree.root.join("a");
    let is_link = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let is_dir = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if is_link(&a.join("b")) {
        let _ = fs::remove_file(a.join("b"));
    }
    if is_dir(&a.join("d")) && !is_dir(&a.join("b")) {
        fs::rename(a.join("d"), a.join("b")).unwrap();
    }
    if !is_link(&a.join("l")) {
        let _ = fs::remove_file(a.join("l"));
        symlink(fx.link_target, a.join("l")).unwrap();
    }
    if !is_dir(&a.join("b")) {
        fs::create_dir(a.join("b")).unwrap();
    }
    // The decoys the agent may have moved or trashed (through the directory, legitimately).
    let _ = fs::create_dir_all(a.join("secrets"));
    if fs::read(a.join("secrets/key")).ok().as_deref() != Some(DECOY) {
        fs::write(a.join("secrets/key"), DECOY).unwrap();
    }
    let _ = fs::remove_file(a.join("stolen"));
    let _ = fs::remove_file(a.join("secrets/new"));
    let _ = fs::remove_file(a.join("secrets/x"));
}

fn race(link_target: &'static str, state_outside: bool) {
    let fx = fixture(link_target, state_outside);
    let mut sh = session(&fx);
    let outside_before: BTreeMap<PathBuf, Node> = common::snapshot(&fx.tree.outside, None);
    let secrets_before = common::snapshot(&fx.tree.root.join("secrets"), None);
    let state_before = state_names(&fx.state);
    // The swap runs in the first stages; the reads and writes in the last ones, so that they
    // resolve `a/b` while it changes.
    let lines = [
        "mv a/b a/d | mv a/l a/b | cat a/b/../marker a/b/../secrets/key a/b/../.trash/audit.jsonl a/b/../audit.jsonl",
        "mv a/b a/d | mv a/l a/b | echo PWNED | tee a/b/../config/prod.yml a/b/../secrets/new a/b/../.trash/forged.jsonl a/b/../txn/forged.jsonl",
        "mv a/b a/d | mv a/l a/b | ls a/b/../secrets a/b/../.trash a/b/../txn",
        "mv a/b a/d | mv a/l a/b | rm -rf a/b/../secrets a/b/../config | cat a/b/../secrets/key",
        "mv a/b a/d | mv a/l a/b | mv a/b/../secrets/key a/b/../stolen | cp a/b/../config/prod.yml a/b/../secrets/x",
    ];
    let (mut via_dir, mut via_link) = (0u64, 0u64);
    for i in 0..tries() {
        let line = lines[i % lines.len()];
        let r = sh.run(line);
        for (stream, bytes) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            for needle in [SECRET, b"\"session\"".as_slice(), b"\"begin\"", b"\"txn\""] {
                assert!(
                    !common_contains(bytes, needle),
                    "try {i}: `{line}` showed {:?} on {stream}: {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(bytes)
                );
            }
            assert!(
                !common_contains(bytes, b"Permission denied"),
                "try {i}: `{line}`: {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
        if common_contains(&r.stdout, b"A-MARKER") {
            via_dir += 1;
        }
        if common_contains(&r.stdout, b"ROOT-MARKER") {
            via_link += 1;
        }
        assert_eq!(
            fs::read(fx.tree.root.join("config/prod.yml"))
                .ok()
                .as_deref(),
            Some(PROD),
            "try {i}: `{line}` changed or removed the read-only file"
        );
        assert_eq!(
            common::snapshot(&fx.tree.root.join("secrets"), None),
            secrets_before,
            "try {i}: `{line}` changed the hidden files"
        );
        assert_eq!(
            state_names(&fx.state),
            state_before,
            "try {i}: `{line}` made a name in the state directory"
        );
        reset(&fx);
        if i % 500 == 499 {
            // Undo what the agent's own files went through: it must not touch the rest.
            let _ = sh.run("undo 5");
            reset(&fx);
        }
    }
    assert_eq!(common::snapshot(&fx.tree.outside, None), outside_before);
    assert_eq!(
        fs::read(fx.tree.root.join("secrets/key")).unwrap(),
        b"SECRET-KEY\n"
    );
    // Both sides of the race were seen: `a/b` as the directory and as the link.
    if tries() / lines.len() >= 200 {
        assert!(
            via_dir > 0 && via_link > 0,
            "through the directory {via_dir}, through the link {via_link}: no race"
        );
    }
    eprintln!(
        "self race ({link_target}, state {}): {} tries, `a/b/..` was `a` {via_dir} times and the root {via_link} times, 0 wins",
        if state_outside { "outside" } else { "inside" },
        tries()
    );
}

fn common_contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn self_link_state_inside() {
    race(".", false);
}

#[test]
fn parent_link_state_inside() {
    race("../a", false);
}

#[test]
fn self_link_state_outside() {
    race(".", true);
}

#[test]
fn parent_link_state_outside() {
    race("../a", true);
}

/// A racing write is journaled where it lands: the line's `undo` brings back the bytes it
/// replaced, whichever file `a/b/..` led to when the write was resolved (the journal and the
/// write share one resolution).
#[test]
fn a_racing_overwrite_is_undone_where_it_landed() {
    let fx = fixture(".", false);
    let r = &fx.tree.root;
    fs::write(r.join("victim.txt"), b"ROOT-VICTIM\n").unwrap();
    fs::write(r.join("a/victim.txt"), b"A-VICTIM\n").unwrap();
    let mut sh = session(&fx);
    let (mut root_hit, mut a_hit) = (0u64, 0u64);
    for i in 0..tries() / 5 {
        let line = "mv a/b a/d | mv a/l a/b | echo X | tee a/b/../victim.txt";
        let out = sh.run(line);
        if fs::read(r.join("victim.txt")).unwrap() == b"X\n" {
            root_hit += 1;
        }
        if fs::read(r.join("a/victim.txt")).unwrap_or_default() == b"X\n" {
            a_hit += 1;
        }
        let u = sh.run("undo");
        assert_eq!(
            u.status,
            0,
            "try {i}: undo after `{line}` ({}): {}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&u.stderr)
        );
        reset(&fx);
        assert_eq!(
            fs::read(r.join("victim.txt")).unwrap(),
            b"ROOT-VICTIM\n",
            "try {i}: the root's file was not restored"
        );
        assert_eq!(
            fs::read(r.join("a/victim.txt")).unwrap(),
            b"A-VICTIM\n",
            "try {i}: a's file was not restored"
        );
    }
    eprintln!("racing overwrite: landed in the root {root_hit} times, in a {a_hit} times");
}
