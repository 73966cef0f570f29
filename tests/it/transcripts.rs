//! Transcript tests: every `fixtures/transcripts/**/*.transcript` (the format of
//! `docs/TRANSCRIPTS.md`, as `trumansh --record` writes it) is replayed in-process on a fresh
//! copy of `fixtures/trees/<tree>` (its header's `tree=`, `basic` when absent) by the same
//! function as `trumansh replay`
//! ([`trumansh::replay::replay_tree`]); the test fails with a unified diff when any output
//! changed. The tree the replay leaves is snapshotted with insta.
//!
//! To accept new output, rewrite the transcripts from what the replay gives now and review
//! the change with `git diff`:
//!
//! ```sh
//! TRUMANSH_BLESS=1 cargo test --test it transcripts::
//! ```
//!
//! A new transcript can start as just its commands (`$ cmd` lines, `> ` continuations) and be
//! filled in the same way.
//!
//! `bash_agrees` runs the same script (the steps' inputs, concatenated) in real bash (the
//! oracle) on another copy of the tree, with `LC_ALL=C`, umask 022 and the same fixed
//! environment, and compares each command's stdout, stderr and status, then the final tree
//! with its modes. A command whose behaviour differs on purpose is preceded by a
//! `# bash-differs: <reason>` comment step; `# bash-differs-tree: <reason>` anywhere skips the
//! final tree comparison. Both lists are the per-file record of deliberate differences.
//!
//! A file whose output depends on the filesystem it runs on (the order `readdir` returns, as
//! `find` and `grep -r` print it; directory sizes, as `ls -l` shows them) holds a
//! `# fs-dependent: <reason>` comment step: it is replayed but its output is not compared
//! (nor its tree snapshotted), since the next machine's filesystem may order or size things
//! differently; it is still compared with real bash on the same filesystem, which is the check
//! that matters.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

use trumansh::Stream;
use trumansh::replay::{self, ReplayOptions, Replayed};
use trumansh::transcript::{self, Transcript};

/// Where the agent sees the sandbox in transcripts (and bash's temp path is renamed to).
const MOUNT: &str = "/home/user";

/// The tree of a transcript whose header has no `tree=`.
const DEFAULT_TREE: &str = "basic";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The tree a transcript replays on: `fixtures/trees/NAME` for its header's `tree=NAME`,
/// `basic` when it names none.
fn tree_of(parsed: &Transcript) -> PathBuf {
    let tree = parsed.settings().tree;
    fixtures()
        .join("trees")
        .join(tree.as_deref().unwrap_or(DEFAULT_TREE))
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A stable listing of a tree: kind, path, size and content hash, link targets, and with
/// `modes` the permission bits of files and directories; `.trash` at the top (trumansh's
/// hidden state) is left out.
fn render_tree(root: &Path, modes: bool) -> String {
    fn walk(root: &Path, dir: &Path, modes: bool, out: &mut Vec<String>) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by(|a, b| a.file_name().as_bytes().cmp(b.file_name().as_bytes()));
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".trash" {
                continue;
            }
            let m = fs::symlink_metadata(&p).unwrap();
            let mode = if modes {
                format!(" {:04o}", m.permissions().mode() & 0o7777)
            } else {
                String::new()
            };
            if m.file_type().is_symlink() {
                let t = fs::read_link(&p).unwrap();
                out.push(format!("l {rel} -> {}", t.display()));
            } else if m.is_dir() {
                out.push(format!("d {rel}/{mode}"));
                walk(root, &p, modes, out);
            } else {
                let data = fs::read(&p).unwrap();
                out.push(format!(
                    "f {rel} ({} bytes, {:016x}){mode}",
                    data.len(),
                    fnv(&data)
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, modes, &mut out);
    out.join("\n") + "\n"
}

/// Whether a transcript declares that its output depends on the filesystem.
fn fs_dependent(t: &Transcript) -> bool {
    t.steps
        .iter()
        .any(|s| s.is_comment_only() && s.input.starts_with(b"# fs-dependent:"))
}

fn load(path: &Path) -> (Vec<u8>, Transcript) {
    let bytes = fs::read(path).unwrap();
    let parsed = transcript::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = parsed.settings();
    assert_eq!(
        header.mount_point,
        Path::new(MOUNT),
        "{}: the transcripts are mounted at {MOUNT}",
        path.display()
    );
    (bytes, parsed)
}

fn replay_fixture(path: &Path, parsed: &Transcript) -> Replayed {
    replay::replay_tree(parsed, &tree_of(parsed), &ReplayOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn name_of(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn transcripts() {
    let bless = std::env::var_os("TRUMANSH_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    insta::glob!("../../fixtures/transcripts", "**/*.transcript", |path| {
        let (bytes, parsed) = load(path);
        let replayed = replay_fixture(path, &parsed);
        let name = name_of(path);
        if bless {
            if replayed.actual != bytes {
                fs::write(path, &replayed.actual).unwrap();
            }
        } else if fs_dependent(&parsed) {
            // Replayed (above), not compared.
        } else if let Some(diff) = replayed.diff(&name) {
            failures.push(diff);
        } else if replayed.expected != bytes {
            failures.push(format!(
                "{name}: not in the canonical form (TRUMANSH_BLESS=1 rewrites it):\n{}",
                transcript::diff(&bytes, &replayed.expected, &name).unwrap_or_default()
            ));
        }
        if !fs_dependent(&parsed) {
            insta::assert_snapshot!(render_tree(&replayed.root, false));
        }
    });
    assert!(
        failures.is_empty(),
        "{} transcript(s) changed (TRUMANSH_BLESS=1 cargo test --test it transcripts:: accepts the \
         new output):\n{}",
        failures.len(),
        failures.join("\n")
    );
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

/// Runs the transcript's script in real bash with a marker after each command, and splits
/// its output per command.
/// The comment by which a transcript asks for `sh` to be bash in POSIX mode in the oracle.
const SH_IS_BASH: &str = "# oracle: sh is bash in POSIX mode";

fn run_in_bash(parsed: &Transcript, root: &Path) -> Vec<Step> {
    let mut marked = Vec::new();
    let mut commands = 0usize;
    for step in &parsed.steps {
        marked.extend_from_slice(&step.input);
        if !marked.ends_with(b"\n") {
            marked.push(b'\n');
        }
        if !step.is_comment_only() {
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
    // Under umask 022, the session's (trumansh has no `umask`): `chmod +x`, `mkdir` and the
    // modes compared at the end do not depend on the umask the tests run with.
    // `/bin/sh` is dash on many machines; trumansh's `sh` is bash in POSIX mode (as where
    // `/bin/sh` is bash). A transcript that says so gets that `sh` first on PATH.
    let shim = tempfile::tempdir().unwrap();
    let mut path = trumansh::session::PATH.to_string();
    if parsed.steps.iter().any(|s| {
        s.input
            .windows(SH_IS_BASH.len())
            .any(|w| w == SH_IS_BASH.as_bytes())
    }) {
        let sh = shim.path().join("sh");
        std::fs::write(&sh, "#!/bin/bash\nexec -a sh /bin/bash \"$@\"\n").unwrap();
        std::fs::set_permissions(&sh, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        path = format!("{}:{path}", shim.path().display());
    }
    // `awk` is mawk on Debian; the oracle for trumansh's awk is GNU awk
    // (tests/oracles/install.sh installs it).
    if parsed
        .steps
        .iter()
        .any(|s| s.input.windows(3).any(|w| w == b"awk"))
    {
        let gawk = ["/usr/bin/gawk", "/bin/gawk", "/usr/local/bin/gawk"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("the awk transcripts need GNU awk: run tests/oracles/install.sh");
        let awk = shim.path().join("awk");
        std::fs::write(&awk, format!("#!/bin/bash\nexec -a awk {gawk} \"$@\"\n")).unwrap();
        std::fs::set_permissions(&awk, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        if !path.starts_with(&*shim.path().to_string_lossy()) {
            path = format!("{}:{path}", shim.path().display());
        }
    }
    let mut command = Command::new("bash");
    command
        .args(["-c", "umask 022 && exec bash"])
        .current_dir(root)
        .env_clear()
        .env("HOME", root)
        .env("PWD", root)
        .env("PATH", path)
        .env("LC_ALL", "C")
        .env("USER", "user")
        .env("LOGNAME", "user")
        .env("SHELL", "/bin/bash");
    let mut child = common::spawn_with_pipes(&mut command);
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
/// Only the top-level shell's own lines are shifted (`bash: line N:`); a script's
/// (`x.sh: line N:`) and a nested `bash -c`'s low numbers are left as they are.
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
        let top = ["bash: line ", "eval: line ", "main: line "]
            .iter()
            .any(|p| head.ends_with(p));
        if top && n > k {
            out.push_str(&(n - k).to_string());
        } else {
            out.push_str(&digits);
        }
        rest = &tail[digits.len()..];
    }
    out.push_str(rest);
    out
}

/// Host files the transcripts use as paths outside the sandbox (missing for trumansh).
const HOST_PATHS: &[&str] = &["/etc/passwd"];

#[test]
fn bash_agrees() {
    let mut failures = Vec::new();
    insta::glob!("../../fixtures/transcripts", "**/*.transcript", |path| {
        let (_, parsed) = load(path);
        let name = name_of(path);
        // Real bash acts on the host: a transcript that shows a host file as missing
        // (`mv /etc/passwd .`, which trumansh answers with "No such file") cannot be run in
        // bash where that file exists — as root it would move the machine's own file.
        if let Some(host) = HOST_PATHS.iter().find(|p| {
            Path::new(p).exists()
                && parsed
                    .steps
                    .iter()
                    .any(|s| s.input.windows(p.len()).any(|w| w == p.as_bytes()))
        }) {
            eprintln!("bash_agrees: {name} not run in bash: it acts on {host}, which exists here");
            return;
        }
        let bash_dir = tempfile::tempdir().unwrap();
        let bash_root = bash_dir.path().join("root");
        replay::copy_tree(&tree_of(&parsed), &bash_root).unwrap();
        let bash_steps = run_in_bash(&parsed, &bash_root);

        // What trumansh does now, read back from the replay's rendering.
        let replayed = replay_fixture(path, &parsed);
        let ours = transcript::parse(&replayed.actual)
            .unwrap_or_else(|e| panic!("{name}: the replay does not parse back: {e}"));

        let mut differs_next = false;
        let mut k = 0;
        let mut skip_tree = false;
        for (i, step) in parsed.steps.iter().enumerate() {
            if step.is_comment_only() {
                let text = String::from_utf8_lossy(&step.input);
                differs_next |= text.contains("# bash-differs:");
                skip_tree |= text.contains("# bash-differs-tree:");
                continue;
            }
            // The steps after `exit` are not run (nor compared: bash does not run them).
            let Some(now) = ours.steps.get(i).filter(|_| i < replayed.ran) else {
                break;
            };
            let mine = Step {
                stdout: String::from_utf8_lossy(&now.bytes(Stream::Stdout)).into_owned(),
                stderr: String::from_utf8_lossy(&now.bytes(Stream::Stderr)).into_owned(),
                status: now.status,
            };
            if !differs_next {
                match bash_steps.get(k) {
                    Some(theirs) if *theirs == mine => {}
                    theirs => failures.push(format!(
                        "{name}:{}: `{}`\n  bash:     {theirs:?}\n  trumansh: {mine:?}",
                        step.first_line,
                        String::from_utf8_lossy(&step.input).trim_end(),
                    )),
                }
            }
            differs_next = false;
            k += 1;
        }
        if !skip_tree {
            let (a, b) = (
                render_tree(&bash_root, true),
                render_tree(&replayed.root, true),
            );
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

/// The names of the commands the replay of a transcript ran, read from the audit log the
/// replay's session wrote (`.trash/audit.jsonl`, one `command` event per command run, with
/// its argv): a command counts when a step runs it, not when a step mentions it (`which cat`,
/// a here-document line, a quoted word).
fn commands_run(replayed: &Replayed) -> Vec<String> {
    let log = fs::read_to_string(replayed.root.join(".trash/audit.jsonl")).unwrap();
    log.lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|event| event["event"] == "command")
        .filter_map(|event| Some(event["argv"][0].as_str()?.to_string()))
        .collect()
}

/// The comment conventions of `bash_agrees` and `transcripts`, each of which must say why.
const REASONED: &[&str] = &["# bash-differs:", "# bash-differs-tree:", "# fs-dependent:"];

/// What is wrong with a comment step's line: a convention without its reason, or a
/// `# bash-differs` that `bash_agrees` would not recognise (no `:`).
fn bad_convention(line: &str) -> Option<&'static str> {
    if let Some(marker) = REASONED.iter().find(|m| line.contains(**m)) {
        let reason = &line[line.find(marker).unwrap_or(0) + marker.len()..];
        return reason.trim().is_empty().then_some("gives no reason");
    }
    line.contains("# bash-differs")
        .then_some("is not `# bash-differs: REASON` nor `# bash-differs-tree: REASON`")
}

/// Every command of `CommandName::ALL` is run by at least one transcript step (so each is
/// compared with real bash by `bash_agrees`), and every deliberate difference says why.
#[test]
fn covers_every_command() {
    let mut ran = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    insta::glob!("../../fixtures/transcripts", "**/*.transcript", |path| {
        let (_, parsed) = load(path);
        let name = name_of(path);
        for step in parsed.steps.iter().filter(|s| s.is_comment_only()) {
            let text = String::from_utf8_lossy(&step.input);
            for (i, line) in text.lines().enumerate() {
                if let Some(why) = bad_convention(line) {
                    failures.push(format!("{name}:{}: `{line}` {why}", step.first_line + i));
                }
            }
        }
        ran.extend(commands_run(&replay_fixture(path, &parsed)));
    });
    let missing: Vec<&str> = trumansh_commands::CommandName::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !ran.contains(*c))
        .collect();
    if !missing.is_empty() {
        failures.push(format!(
            "no transcript step runs {} (add fixtures/transcripts/commands/<family>/<command>.transcript)",
            missing.join(", ")
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
