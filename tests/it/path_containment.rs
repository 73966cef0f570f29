//! Path containment, property-tested: random paths made of `.`, `..`, empty components,
//! slashes, real names, links in and out, the state directory's name and the outside's names,
//! relative or absolute (at the mount point, at `/`, at the host's own paths), are given to
//! commands in a `Session` and to the `Sandbox`'s `FsView` directly. Whatever the path:
//!
//! - no output ever shows the outside secret, an outside-only name, or a host path;
//! - nothing outside the root changes (names, bytes, modes, times), checked after every command;
//! - the secret never gets inside the root either (a `cp` of it would put it there);
//! - no refusal shows as `Permission denied` (every escape answers like a missing path);
//! - the session still answers `echo ok`;
//! - `FsView::read` either fails or gives the bytes of a file that is inside the root,
//!   `read_dir` lists only names from inside, and `canonicalize` stays below the mount point.
//!
//! Each case builds a fresh tree:
//!
//! ```text
//! <tmp>/outside/secret.txt                  "TOP SECRET\n"
//! <tmp>/outside/deep/LEAKNAME.txt           "OUTSIDE-DEEP\n"
//! <tmp>/root/                               the sandbox root
//!     file.txt "inside\n"   dir/f.txt "f-inside\n"   dir/sub/
//!     dot -> .              up -> ..                  sublink -> dir/sub
//!     abs_out -> <tmp>/outside                        rel_out -> ../outside
//!     abs_secret -> <tmp>/outside/secret.txt
//!     c1 -> c2 -> c3 -> ../outside/secret.txt         cin1 -> cin2 -> dir
//! ```
//!
//! The default is proptest's 256 cases; run longer with e.g.
//! `PROPTEST_CASES=5000 cargo test --release --test it path_containment::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use trumansh::sandbox::{Sandbox, SandboxConfig};
use trumansh::{Config, Session};
use trumansh_commands::FsView;

use crate::common;
use common::{Node, Tree};

const SECRET: &[u8] = b"TOP SECRET\n";
const DEEP: &[u8] = b"OUTSIDE-DEEP\n";

/// The components paths are made of, in groups drawn with different weights: directory-like
/// components lead, and a path often ends at a file's name, so that a fair share of the paths
/// resolve (inside, or out if containment failed).
const INSIDE_DIRS: &[&str] = &["dir", "sub", "dot", "cin1", "sublink"];
const LINKS_OUT: &[&str] = &["up", "abs_out", "rel_out"];
const OUTSIDE_DIRS: &[&str] = &["outside", "root", "deep"];
const DOTS: &[&str] = &[".", ".."];
const SLASHES: &[&str] = &["", "/"];
const OTHER: &[&str] = &[
    ".trash",
    "trash",
    "journal.jsonl",
    "home",
    "user",
    "nonexistent",
];
const INSIDE_FILES: &[&str] = &["file.txt", "f.txt"];
const OUTSIDE_FILES: &[&str] = &["secret.txt", "abs_secret", "c1", "c3"];

/// The mount points a case may use (`None`: the host path of the root, the default).
const MOUNTS: &[Option<&str>] = &[Some("/home/user"), Some("/"), None];

/// The commands: `P` is replaced by the path, single-quoted.
const COMMANDS: &[&str] = &[
    "cat P",
    "ls P",
    "cd P && pwd && ls",
    "echo x > P",
    "echo x >> P",
    "mkdir P",
    "mkdir -p P/deeper",
    "touch P",
    "rm -rf P",
    "cp P copy1",
    "cp -r P copyr",
    "cp file.txt P",
    "mv P moved",
    "mv file.txt P",
    "ls -ld P",
    "ls -la P",
    "echo P/*",
    "grep -r . P",
    "find P",
    "cat < P",
    "cd",
];

/// Where a path starts.
#[derive(Debug, Clone, Copy)]
enum Prefix {
    Relative,
    Mount,
    Slash,
    /// The host path of the temp dir (the root's parent).
    HostBase,
    /// The host path of the root.
    HostRoot,
}

#[derive(Debug, Clone)]
struct GenPath {
    prefix: Prefix,
    comps: Vec<&'static str>,
}

fn build() -> Tree {
    let tree = Tree::new();
    let (outside, root) = (&tree.outside, &tree.root);
    fs::create_dir_all(outside.join("deep")).unwrap();
    fs::write(outside.join("secret.txt"), SECRET).unwrap();
    fs::write(outside.join("deep/LEAKNAME.txt"), DEEP).unwrap();
    fs::create_dir_all(root.join("dir/sub")).unwrap();
    fs::write(root.join("file.txt"), b"inside\n").unwrap();
    fs::write(root.join("dir/f.txt"), b"f-inside\n").unwrap();
    symlink(".", root.join("dot")).unwrap();
    symlink("..", root.join("up")).unwrap();
    symlink(outside, root.join("abs_out")).unwrap();
    symlink("../outside", root.join("rel_out")).unwrap();
    symlink(outside.join("secret.txt"), root.join("abs_secret")).unwrap();
    symlink("dir/sub", root.join("sublink")).unwrap();
    symlink("c2", root.join("c1")).unwrap();
    symlink("c3", root.join("c2")).unwrap();
    symlink("../outside/secret.txt", root.join("c3")).unwrap();
    symlink("cin2", root.join("cin1")).unwrap();
    symlink("dir", root.join("cin2")).unwrap();
    tree
}

/// Everything in the temp dir except what is below the root: the outside tree, and the names
/// beside the root. (The base dir's own mtime changes only when a name appears or goes beside
/// the root.)
fn snapshot_outside(tree: &Tree) -> BTreeMap<PathBuf, Node> {
    common::snapshot(&tree.base, Some(&tree.root))
}

/// One regular file below the root: its path, bytes, and whether it is in the state directory.
type InsideFile = (PathBuf, Vec<u8>, bool);

/// Every regular file below `dir` (the state directory included), and every name outside the
/// state directory.
fn inside_contents(dir: &Path) -> (Vec<InsideFile>, BTreeSet<Vec<u8>>) {
    fn walk(path: &Path, hidden: bool, files: &mut Vec<InsideFile>, names: &mut BTreeSet<Vec<u8>>) {
        for entry in fs::read_dir(path).unwrap() {
            let entry = entry.unwrap();
            let p = entry.path();
            let name = entry.file_name();
            let hid = hidden || name == ".trash";
            if !hid {
                names.insert(name.as_bytes().to_vec());
            }
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                walk(&p, hid, files, names);
            } else if m.is_file() {
                files.push((p.clone(), fs::read(&p).unwrap(), hid));
            }
        }
    }
    let mut files = Vec::new();
    let mut names = BTreeSet::new();
    walk(dir, false, &mut files, &mut names);
    (files, names)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

fn mount_text(tree: &Tree, mount: Option<&str>) -> String {
    match mount {
        Some(m) => m.to_string(),
        None => tree.root.to_string_lossy().into_owned(),
    }
}

/// The path as text: its prefix, then its components joined by `/`.
fn render(tree: &Tree, mount: Option<&str>, p: &GenPath) -> String {
    let joined = p.comps.join("/");
    let prefix = match p.prefix {
        Prefix::Relative => return joined,
        Prefix::Mount => mount_text(tree, mount),
        Prefix::Slash => String::new(),
        Prefix::HostBase => tree.base.to_string_lossy().into_owned(),
        Prefix::HostRoot => tree.root.to_string_lossy().into_owned(),
    };
    format!("{prefix}/{joined}")
}

/// The virtual absolute path the `FsView` is asked about (relative: from the mount point).
fn absolute(tree: &Tree, mount: Option<&str>, text: &str) -> PathBuf {
    if text.starts_with('/') {
        PathBuf::from(text)
    } else {
        PathBuf::from(format!("{}/{text}", mount_text(tree, mount)))
    }
}

fn gen_path() -> impl Strategy<Value = GenPath> {
    let prefix = prop_oneof![
        4 => Just(Prefix::Relative),
        3 => Just(Prefix::Mount),
        2 => Just(Prefix::Slash),
        1 => Just(Prefix::HostBase),
        1 => Just(Prefix::HostRoot),
    ];
    let lead = prop_oneof![
        5 => prop::sample::select(INSIDE_DIRS),
        3 => prop::sample::select(LINKS_OUT),
        2 => prop::sample::select(OUTSIDE_DIRS),
        4 => prop::sample::select(DOTS),
        1 => prop::sample::select(SLASHES),
        1 => prop::sample::select(OTHER),
    ];
    let last = prop_oneof![
        4 => prop::sample::select(INSIDE_FILES),
        3 => prop::sample::select(OUTSIDE_FILES),
        3 => lead.clone(),
    ];
    (prefix, prop::collection::vec(lead, 0..7), last).prop_map(|(prefix, mut comps, last)| {
        comps.push(last);
        GenPath { prefix, comps }
    })
}
/// The read-only view, asked directly about each path on a fresh tree.
fn check_fsview(mount: Option<&str>, paths: &[GenPath]) -> Result<(), TestCaseError> {
    let tree = build();
    let mut cfg = SandboxConfig::new(&tree.root);
    cfg.mount_point = mount.map(PathBuf::from);
    let sb = Sandbox::open(&cfg).unwrap();
    let mount_path = sb.mount_point().to_path_buf();
    let (files, names) = inside_contents(&tree.root);
    let before = snapshot_outside(&tree);
    for p in paths {
        let text = render(&tree, mount, p);
        let v = absolute(&tree, mount, &text);
        if let Ok(bytes) = sb.read(&v) {
            prop_assert!(
                !contains(&bytes, SECRET) && !contains(&bytes, DEEP),
                "read {v:?} gave outside bytes"
            );
            prop_assert!(
                files.iter().any(|(_, b, hidden)| !hidden && *b == bytes),
                "read {v:?} gave bytes no inside file holds: {:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
        if let Ok(entries) = sb.read_dir(&v) {
            for e in entries {
                let n = e.name.as_bytes().to_vec();
                prop_assert!(
                    names.contains(&n),
                    "read_dir {v:?} listed {:?}, not a name inside",
                    String::from_utf8_lossy(&n)
                );
            }
        }
        if let Ok(c) = sb.canonicalize(&v) {
            prop_assert!(
                c.starts_with(&mount_path),
                "canonicalize {v:?} = {c:?}, above the mount point"
            );
        }
        if let Ok(mut r) = sb.open(&v) {
            let mut buf = Vec::new();
            let _ = std::io::Read::read_to_end(&mut r, &mut buf);
            prop_assert!(!contains(&buf, SECRET) && !contains(&buf, DEEP));
        }
        prop_assert_eq!(&snapshot_outside(&tree), &before);
    }
    Ok(())
}

/// The commands, on another fresh tree.
fn check_session(mount: Option<&str>, steps: &[(usize, GenPath)]) -> Result<(), TestCaseError> {
    let tree = build();
    let before = snapshot_outside(&tree);
    let mut config = Config::new(&tree.root);
    config.sandbox.mount_point = mount.map(PathBuf::from);
    let mut sh = Session::new(config).unwrap();
    let base_text = tree.base.to_string_lossy().into_owned();
    let mut transcript = String::new();
    let mut typed_host_path = false;
    for (cmd_idx, p) in steps {
        let text = render(&tree, mount, p);
        let line = COMMANDS[*cmd_idx % COMMANDS.len()].replace('P', &format!("'{text}'"));
        let r = sh.run(&line);
        typed_host_path |= line.contains(&base_text);
        transcript.push_str(&line);
        transcript.push('\n');
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        for (stream, bytes) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            for needle in [&b"TOP SECRET"[..], b"OUTSIDE-DEEP", b"LEAKNAME"] {
                prop_assert!(
                    !contains(bytes, needle),
                    "{stream} showed {:?}\n{transcript}stdout: {out:?}\nstderr: {err:?}",
                    String::from_utf8_lossy(needle)
                );
            }
            // No host path, unless a line typed it (at a `/` mount, `mkdir -p <host path>`
            // makes it a path inside) or the mount point is the host path.
            if mount.is_some() && !typed_host_path {
                prop_assert!(
                    !contains(bytes, base_text.as_bytes()),
                    "{stream} showed a host path\n{transcript}stdout: {out:?}\nstderr: {err:?}"
                );
            }
        }
        prop_assert!(
            !contains(&r.stderr, b"Permission denied"),
            "a refusal showed as EACCES\n{transcript}stderr: {err:?}"
        );
        let now = snapshot_outside(&tree);
        prop_assert!(
            now == before,
            "the outside changed\n{transcript}before {before:#?}\nafter {now:#?}"
        );
    }
    prop_assert_eq!(fs::read(tree.outside.join("secret.txt")).unwrap(), SECRET);
    // The secret never got inside (the state directory included).
    let (files, _) = inside_contents(&tree.root);
    for (path, bytes, _) in &files {
        prop_assert!(
            !contains(bytes, b"TOP SECRET") && !contains(bytes, DEEP),
            "{path:?} holds outside bytes\n{transcript}"
        );
    }
    if sh.exit_status().is_none() {
        let r = sh.run("echo ok");
        prop_assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            "ok\n",
            "after\n{}",
            transcript
        );
        prop_assert_eq!(r.status, 0);
    }
    Ok(())
}

proptest! {
    #[test]
    fn random_paths_stay_inside(
        mount in prop::sample::select(MOUNTS),
        steps in prop::collection::vec((0..COMMANDS.len(), gen_path()), 1..10),
    ) {
        let paths: Vec<GenPath> = steps.iter().map(|(_, p)| p.clone()).collect();
        check_fsview(mount, &paths)?;
        check_session(mount, &steps)?;
    }
}

/// Paths that would lead out (or into the state directory) if containment were lexical or
/// checked once: every command on each, at each mount point.
#[test]
fn known_escape_paths_stay_inside() {
    let rel = |s: &'static str| GenPath {
        prefix: Prefix::Relative,
        comps: vec![s],
    };
    let fixed = [
        "rel_out/secret.txt",
        "rel_out/deep",
        "abs_out/secret.txt",
        "abs_out/deep/",
        "abs_secret",
        "c1",
        "c3",
        "up/outside/secret.txt",
        "up/root/../outside/secret.txt",
        "dot/../outside/secret.txt",
        "dot/dot/../outside",
        "dir/../../outside/secret.txt",
        "sublink/../../../outside/secret.txt",
        "cin1/../up/outside",
        "cin1/../../outside/deep",
        "../outside/secret.txt",
        "../../../../../../outside",
        "..",
        "up",
        "up/",
        "up/.",
        ".trash/journal.jsonl",
        "dot/.trash",
        "dot/.trash/",
        "up/root/.trash",
        "dir/../.trash",
    ];
    for mount in MOUNTS {
        let paths: Vec<GenPath> = fixed.iter().map(|p| rel(p)).collect();
        check_fsview(*mount, &paths).unwrap();
        // Every command on every path, each command in its own session over a fresh tree.
        for cmd in 0..COMMANDS.len() {
            let steps: Vec<(usize, GenPath)> = fixed.iter().map(|p| (cmd, rel(p))).collect();
            check_session(*mount, &steps).unwrap();
        }
        // And the paths with the host prefixes.
        for prefix in [
            Prefix::Mount,
            Prefix::Slash,
            Prefix::HostBase,
            Prefix::HostRoot,
        ] {
            let paths: Vec<GenPath> = fixed
                .iter()
                .map(|p| GenPath {
                    prefix,
                    comps: vec![p],
                })
                .collect();
            check_fsview(*mount, &paths).unwrap();
            let steps: Vec<(usize, GenPath)> = paths
                .into_iter()
                .enumerate()
                .map(|(i, p)| (i % COMMANDS.len(), p))
                .collect();
            check_session(*mount, &steps).unwrap();
        }
    }
}
