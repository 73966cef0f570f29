//! Transcript tests: every `fixtures/transcripts/<tree>/*.sh` is replayed in-process on a
//! fresh copy of `fixtures/trees/<tree>`, rendered (commands, stdout, `[stderr]`, `[exit N]`,
//! then the resulting tree) and snapshotted with insta.
//!
//! `bash_agrees` replays the same files in real bash (the oracle) on another copy of the tree,
//! with `LC_ALL=C` and the same fixed environment, and compares each command's stdout, stderr
//! and status, then the final tree. A command whose behaviour differs on purpose is preceded
//! by a `# bash-differs: <reason>` comment line; `# bash-differs-tree: <reason>` anywhere
//! skips the final tree comparison. Both lists are the per-file record of deliberate
//! differences.
//!
//! A file whose output depends on the filesystem it runs on (the order `readdir` returns, as
//! `find` and `grep -r` print it; directory sizes, as `ls -l` shows them) holds a
//! `# fs-dependent: <reason>` line: it is not snapshotted, since the next machine's
//! filesystem may order or size things differently, but it is still replayed and compared
//! with real bash on the same filesystem, which is the check that matters.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use trumansh::transcript::{self, Chunks, is_comment_only};
use trumansh::{Config, Session};

/// Where the agent sees the sandbox in transcripts (and bash's temp path is renamed to).
const MOUNT: &str = "/home/user";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Copies a tree (links as links).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    let mut entries: Vec<_> = fs::read_dir(from).unwrap().map(|e| e.unwrap()).collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for e in entries {
        let src = e.path();
        let dst = to.join(e.file_name());
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if ft.is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

fn tree_of(script: &Path) -> PathBuf {
    let tree = script.parent().unwrap().file_name().unwrap();
    fixtures().join("trees").join(tree)
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A stable listing of a tree: kind, path, size and content hash, link targets; `.trash` at
/// the top (trumansh's hidden state) is left out.
fn render_tree(root: &Path) -> String {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by(|a, b| a.file_name().as_bytes().cmp(b.file_name().as_bytes()));
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".trash" {
                continue;
            }
            let m = fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                let t = fs::read_link(&p).unwrap();
                out.push(format!("l {rel} -> {}", t.display()));
            } else if m.is_dir() {
                out.push(format!("d {rel}/"));
                walk(root, &p, out);
            } else {
                let data = fs::read(&p).unwrap();
                out.push(format!(
                    "f {rel} ({} bytes, {:016x})",
                    data.len(),
                    fnv(&data)
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.join("\n") + "\n"
}

/// Whether a transcript declares that its output depends on the filesystem.
fn fs_dependent(script: &[u8]) -> bool {
    script
        .split(|&b| b == b'\n')
        .any(|l| l.starts_with(b"# fs-dependent:"))
}

fn session_on(root: &Path) -> Session {
    let mut config = Config::new(root);
    config.sandbox.mount_point = Some(PathBuf::from(MOUNT));
    Session::new(config).unwrap()
}

#[test]
fn transcripts() {
    insta::glob!("../fixtures/transcripts", "**/*.sh", |path| {
        let script = fs::read(path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        copy_tree(&tree_of(path), &root);
        let mut session = session_on(&root);
        let (mut rendered, _) = transcript::replay(&mut session, &script);
        if fs_dependent(&script) {
            return;
        }
        rendered.extend_from_slice(b"--- tree ---\n");
        rendered.extend_from_slice(render_tree(&root).as_bytes());
        insta::assert_snapshot!(String::from_utf8_lossy(&rendered));
    });
}

/// One command's result.
#[derive(Debug, PartialEq, Eq)]
struct Step {
    stdout: String,
    stderr: String,
    status: i32,
}

/// Separates the commands' outputs in bash's streams (text no fixture holds).
const MARK: &str = "\u{1e}TRUMANSH-MARK\u{1e}";

fn split_marks(bytes: &[u8]) -> Vec<&[u8]> {
    let mark = MARK.as_bytes();
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(i) = rest.windows(mark.len()).position(|w| w == mark) {
        out.push(&rest[..i]);
        rest = &rest[i + mark.len()..];
    }
    out.push(rest);
    out
}

/// Runs the script in real bash with a marker after each command, and splits its output
/// per command.
fn run_in_bash(script: &[u8], root: &Path) -> Vec<Step> {
    let mut marked = Vec::new();
    let mut commands = 0usize;
    for chunk in Chunks::new(script) {
        marked.extend_from_slice(&chunk.text);
        if !marked.ends_with(b"\n") {
            marked.push(b'\n');
        }
        if !is_comment_only(&chunk.text) {
            marked.extend_from_slice(
                format!(
                    "__s=$?; printf '{MARK}%d{MARK}' \"$__s\"; printf '{MARK}{MARK}' >&2; (exit $__s)\n"
                )
                .as_bytes(),
            );
            commands += 1;
        }
    }
    let root_str = root.to_string_lossy().into_owned();
    let mut child = Command::new("bash")
        .current_dir(root)
        .env_clear()
        .env("HOME", root)
        .env("PWD", root)
        .env("PATH", trumansh::session::PATH)
        .env("LC_ALL", "C")
        .env("USER", "user")
        .env("LOGNAME", "user")
        .env("SHELL", "/bin/bash")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("real bash runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&marked).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let rename = |s: &[u8]| String::from_utf8_lossy(s).replace(&root_str, MOUNT);
    let mut stdouts = split_marks(&out.stdout).into_iter();
    let mut stderrs = split_marks(&out.stderr).into_iter();
    let mut steps = Vec::new();
    for k in 0..commands {
        let Some(so) = stdouts.next() else { break };
        let status = stdouts
            .next()
            .and_then(|s| std::str::from_utf8(s).ok()?.parse().ok());
        let se = stderrs.next().unwrap_or(b"");
        let _ = stderrs.next();
        let status = status.unwrap_or_else(|| out.status.code().unwrap_or(-1));
        steps.push(Step {
            stdout: rename(so),
            stderr: unshift_lines(&rename(se), k),
            status,
        });
    }
    steps
}

/// Undoes the line shift of the marker lines: command `k` ran with `k` extra lines above it.
fn unshift_lines(text: &str, k: usize) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(": line ") {
        let (head, tail) = rest.split_at(i + ": line ".len());
        out.push_str(head);
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || !tail[digits.len()..].starts_with(':') {
            rest = tail;
            continue;
        }
        let n: usize = digits.parse().unwrap();
        out.push_str(&(n - k).to_string());
        rest = &tail[digits.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn bash_agrees() {
    let mut failures = Vec::new();
    insta::glob!("../fixtures/transcripts", "**/*.sh", |path| {
        let script = fs::read(path).unwrap();
        let name = path.strip_prefix(fixtures()).unwrap().display().to_string();
        let bash_dir = tempfile::tempdir().unwrap();
        let bash_root = bash_dir.path().join("root");
        copy_tree(&tree_of(path), &bash_root);
        let bash_steps = run_in_bash(&script, &bash_root);

        let ours_dir = tempfile::tempdir().unwrap();
        let ours_root = ours_dir.path().join("root");
        copy_tree(&tree_of(path), &ours_root);
        let mut session = session_on(&ours_root);
        let (_, steps) = transcript::replay(&mut session, &script);

        let mut differs_next = false;
        let mut k = 0;
        let mut skip_tree = false;
        for chunk in Chunks::new(script.as_slice()) {
            if is_comment_only(&chunk.text) {
                let text = String::from_utf8_lossy(&chunk.text);
                differs_next |= text.contains("# bash-differs:");
                skip_tree |= text.contains("# bash-differs-tree:");
                continue;
            }
            let Some((_, captured, status)) = steps.get(k) else {
                break;
            };
            let ours = Step {
                stdout: String::from_utf8_lossy(&captured.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&captured.stderr).into_owned(),
                status: *status,
            };
            if !differs_next {
                match bash_steps.get(k) {
                    Some(theirs) if *theirs == ours => {}
                    theirs => failures.push(format!(
                        "{name}:{}: `{}`\n  bash:     {theirs:?}\n  trumansh: {ours:?}",
                        chunk.first_line,
                        String::from_utf8_lossy(&chunk.text).trim_end(),
                    )),
                }
            }
            differs_next = false;
            k += 1;
        }
        if !skip_tree {
            let (a, b) = (render_tree(&bash_root), render_tree(&ours_root));
            if a != b {
                failures.push(format!(
                    "{name}: final trees differ\n--- bash\n{a}--- trumansh\n{b}"
                ));
            }
        }
    });
    assert!(
        failures.is_empty(),
        "{} difference(s) from real bash:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
