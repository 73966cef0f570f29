//! Race (TOCTOU) tests: a background thread keeps swapping one name in the root, `swap`,
//! between a real directory inside and a symlink that leads out (absolute and relative
//! targets), with atomic `rename`s of prepared names, while the main thread types commands
//! through that name into a `Session`. Whatever the interleaving, nothing outside may be read,
//! listed, created or changed: the containment must hold at the kernel (`RESOLVE_BENEATH`),
//! not only in a check made before the operation.
//!
//! ```text
//! <tmp>/outside/secret.txt                 "TOP SECRET\n"
//! <tmp>/outside/victim/x.txt               "OUTSIDE-VICTIM\n"
//! <tmp>/outside/victim/OUTSIDE-ONLY-NAME   (a name that must never be listed)
//! <tmp>/root/                              the sandbox root, mounted at /home/user:
//!     realdir/x.txt                        "inside\n"
//!     swap  <- cycles: realdir (the directory itself), -> realdir, -> <tmp>/outside/victim,
//!              -> ../outside/victim
//! ```
//!
//! A second test swaps `swap` between the directory and a link into the hidden state
//! directory (`.trash`), which must stay hidden too, with a deterministic form beside it.
//!
//! The number of rounds is `RACE_ROUNDS` (default 1500: about 6 s in a debug build).
//! Run longer with e.g. `RACE_ROUNDS=50000 cargo test --release --test it race::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use trumansh::{Config, Outcome, Session};

use crate::common;
use common::{Node, Tree};

const SECRET: &[u8] = b"TOP SECRET\n";
const VICTIM: &[u8] = b"OUTSIDE-VICTIM\n";
const VICTIM_NAME: &str = "OUTSIDE-ONLY-NAME";
const INSIDE: &[u8] = b"inside\n";
const CANARY: &[u8] = b"STATE-CANARY\n";
const CANARY_NAME: &str = "canary-name.txt";
const MOUNT: &str = "/home/user";

/// Default rounds per test (each round runs every command once).
const DEFAULT_ROUNDS: usize = 1500;

fn rounds() -> usize {
    std::env::var("RACE_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS)
}

// ---------------------------------------------------------------------------------------------
// Fixture and snapshots
// ---------------------------------------------------------------------------------------------

fn build() -> Tree {
    let tree = Tree::new();
    let (outside, root) = (&tree.outside, &tree.root);
    fs::create_dir_all(outside.join("victim")).unwrap();
    fs::write(outside.join("secret.txt"), SECRET).unwrap();
    fs::write(outside.join("victim/x.txt"), VICTIM).unwrap();
    fs::write(outside.join("victim").join(VICTIM_NAME), VICTIM).unwrap();
    fs::create_dir_all(root.join("realdir")).unwrap();
    fs::write(root.join("realdir/x.txt"), INSIDE).unwrap();
    tree
}

/// Every object under `dir` (itself included), by path.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Node> {
    common::snapshot(dir, None)
}

/// The names directly in the temp dir: only `outside` and `root`, ever.
fn base_names(tree: &Tree) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(&tree.base)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn session(root: &Path) -> Session {
    let mut config = Config::new(root);
    config.sandbox.mount_point = Some(MOUNT.into());
    Session::new(config).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The swapper
// ---------------------------------------------------------------------------------------------

/// What `root/swap` is during one phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// `realdir` itself, renamed to `swap`.
    Dir,
    /// A symlink with this target text.
    Link(&'static str),
}

#[derive(Default)]
struct SwapStats {
    cycles: AtomicU64,
    renames: AtomicU64,
    errors: AtomicU64,
}

/// Loops through `phases` until `stop`, holding each for a varying short time.
///
/// Moving between two links is one atomic `rename` of a freshly made link over `swap`;
/// between the directory and a link, `swap` is missing for one syscall (a directory and a
/// link cannot replace each other by `rename`).
fn swapper(
    root: PathBuf,
    phases: Vec<Phase>,
    stop: Arc<AtomicBool>,
    stats: Arc<SwapStats>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let swap = root.join("swap");
        let real = root.join("realdir");
        let next = root.join(".next-link");
        let mut current: Option<Phase> = None;
        let mut tick: u64 = 0;
        while !stop.load(Ordering::Relaxed) {
            for &phase in &phases {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let swap_once = || -> io::Result<()> {
                    // Leave the directory phase: give `realdir` its name back.
                    if current == Some(Phase::Dir) && phase != Phase::Dir {
                        fs::rename(&swap, &real)?;
                    }
                    match phase {
                        Phase::Dir => {
                            if current != Some(Phase::Dir) {
                                // Keep something to read in the directory.
                                if fs::symlink_metadata(real.join("x.txt")).is_err() {
                                    fs::write(real.join("x.txt"), INSIDE)?;
                                }
                                if current.is_some() {
                                    fs::remove_file(&swap)?;
                                }
                                fs::rename(&real, &swap)?;
                            }
                        }
                        Phase::Link(target) => {
                            if fs::symlink_metadata(real.join("x.txt")).is_err() {
                                fs::write(real.join("x.txt"), INSIDE)?;
                            }
                            let _ = fs::remove_file(&next);
                            symlink(target, &next)?;
                            fs::rename(&next, &swap)?;
                        }
                    }
                    Ok(())
                };
                if swap_once().is_ok() {
                    current = Some(phase);
                    stats.renames.fetch_add(1, Ordering::Relaxed);
                } else {
                    stats.errors.fetch_add(1, Ordering::Relaxed);
                    current = recover(&root);
                }
                // Hold the phase for a varying time: none, a yield, or a few microseconds.
                tick = tick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                match (tick >> 33) % 4 {
                    0 => {}
                    1 => thread::yield_now(),
                    2 => thread::sleep(Duration::from_micros(20)),
                    _ => thread::sleep(Duration::from_micros(200)),
                }
            }
            stats.cycles.fetch_add(1, Ordering::Relaxed);
        }
        // Leave the tree in a known state.
        if current == Some(Phase::Dir) {
            let _ = fs::rename(&swap, &real);
        }
        let _ = fs::remove_file(&swap);
        let _ = fs::remove_file(&next);
    })
}

/// After an unexpected error: puts `realdir` back and removes any link at `swap`.
fn recover(root: &Path) -> Option<Phase> {
    let swap = root.join("swap");
    let real = root.join("realdir");
    match fs::symlink_metadata(&swap) {
        Ok(m) if m.file_type().is_symlink() || m.is_file() => {
            let _ = fs::remove_file(&swap);
        }
        Ok(m) if m.is_dir() && fs::symlink_metadata(&real).is_err() => {
            let _ = fs::rename(&swap, &real);
        }
        _ => {}
    }
    if fs::symlink_metadata(&real).is_err() {
        let _ = fs::create_dir(&real);
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------------------------

/// The commands typed through the swapped name, each line run once per round.
const COMMANDS: &[&str] = &[
    "cat swap/x.txt",
    "ls swap",
    "echo pwned > swap/new.txt",
    "echo more >> swap/x.txt",
    "touch swap/t",
    "rm -rf swap/x.txt",
    "mkdir swap/d",
    "cp swap/x.txt swap/y",
    "mv swap/y swap/z",
    "grep -r . swap",
    "find swap",
    "cat < swap/x.txt",
    "ls -la swap/",
    "cd swap && cat x.txt && ls && pwd; cd /home/user",
];

/// What one run of the driver saw.
#[derive(Default, Debug)]
struct Seen {
    commands: u64,
    /// `cat swap/x.txt` answered the inside content / failed.
    cat_inside: u64,
    cat_failed: u64,
}

/// What must never be shown.
struct Forbidden<'a> {
    /// On stdout or stderr (contents, host paths).
    anywhere: &'a [&'a [u8]],
    /// On stdout (names that commands themselves mention in their error messages).
    stdout: &'a [&'a [u8]],
}

/// Runs `rounds` rounds of `commands`, checks each answer against `forbidden`, and
/// `state_changes` after each round.
fn drive(
    session: &mut Session,
    rounds: usize,
    commands: &[&str],
    forbidden: &Forbidden,
    state_changes: &dyn Fn() -> Option<String>,
) -> Seen {
    let mut seen = Seen::default();
    for round in 0..rounds {
        for &cmd in commands {
            let r: Outcome = session.run(cmd);
            seen.commands += 1;
            let checks = forbidden
                .anywhere
                .iter()
                .flat_map(|n| [(n, "stdout", &r.stdout), (n, "stderr", &r.stderr)])
                .chain(forbidden.stdout.iter().map(|n| (n, "stdout", &r.stdout)));
            for (needle, stream, bytes) in checks {
                assert!(
                    !contains(bytes, needle),
                    "round {round}: `{cmd}` showed {:?} on {stream}: {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(bytes)
                );
            }
            assert!(
                !contains(&r.stderr, b"Permission denied"),
                "round {round}: `{cmd}`: {:?}",
                String::from_utf8_lossy(&r.stderr)
            );
            if cmd == "cat swap/x.txt" {
                if r.status == 0 {
                    seen.cat_inside += 1;
                } else {
                    seen.cat_failed += 1;
                }
            }
        }
        if let Some(change) = state_changes() {
            panic!("round {round}: {change}");
        }
    }
    seen
}

fn run_race(
    tree: &Tree,
    phases: Vec<Phase>,
    commands: &[&str],
    forbidden: &Forbidden,
    check: &dyn Fn() -> Option<String>,
) {
    let mut sh = session(&tree.root);
    let stop = Arc::new(AtomicBool::new(false));
    let stats = Arc::new(SwapStats::default());
    let handle = swapper(tree.root.clone(), phases, stop.clone(), stats.clone());
    let n = rounds();
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        drive(&mut sh, n, commands, forbidden, check)
    }));
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    let seen = match result {
        Ok(seen) => seen,
        Err(e) => std::panic::resume_unwind(e),
    };
    let took = start.elapsed();
    let cycles = stats.cycles.load(Ordering::Relaxed);
    let renames = stats.renames.load(Ordering::Relaxed);
    let errors = stats.errors.load(Ordering::Relaxed);
    eprintln!(
        "race: {n} rounds, {} commands in {took:?}; swapper: {cycles} cycles, {renames} swaps, \
         {errors} errors; cat: {} inside, {} failed",
        seen.commands, seen.cat_inside, seen.cat_failed
    );
    // The race was real: the swapper ran, and the name was seen both ways.
    assert!(renames > 0 && cycles > 0, "the swapper never ran");
    assert!(seen.cat_failed > 0, "`swap` never led out when read");
    assert!(seen.cat_inside > 0, "`swap` was never read inside");
    // The session is still usable.
    let r = sh.run("echo ok");
    assert_eq!(r.stdout, b"ok\n");
    assert_eq!(r.status, 0);
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn swapping_a_directory_with_links_out_never_leaks_or_writes_outside() {
    let tree = build();
    let before = snapshot(&tree.outside);
    let names_before = base_names(&tree);
    let abs_target: &'static str = Box::leak(
        tree.outside
            .join("victim")
            .to_string_lossy()
            .into_owned()
            .into_boxed_str(),
    );
    let base_text = tree.base.to_string_lossy().into_owned();
    let phases = vec![
        Phase::Dir,
        Phase::Link("realdir"),
        Phase::Link(abs_target),
        Phase::Link("realdir"),
        Phase::Link("../outside/victim"),
        Phase::Dir,
        Phase::Link(abs_target),
        Phase::Link("../outside/victim"),
        Phase::Link("realdir"),
    ];
    let anywhere: Vec<&[u8]> = vec![
        SECRET,
        b"TOP SECRET",
        VICTIM,
        b"OUTSIDE",
        b"VICTIM",
        // No host path, ever.
        base_text.as_bytes(),
    ];
    let forbidden = Forbidden {
        anywhere: &anywhere,
        stdout: &[],
    };
    let check = || {
        let now = snapshot(&tree.outside);
        if now != before {
            return Some(format!(
                "the outside changed:\nbefore {before:#?}\nafter {now:#?}"
            ));
        }
        let names = base_names(&tree);
        if names != names_before {
            return Some(format!("new names beside the root: {names:?}"));
        }
        None
    };
    run_race(&tree, phases, COMMANDS, &forbidden, &check);
    assert_eq!(snapshot(&tree.outside), before, "the outside changed");
    assert_eq!(base_names(&tree), names_before);
}

/// A link into `.trash` swapped in by someone else (the owner, another session on the same
/// root) at any moment: every resolution walks its own handles and decides on the physical
/// name it reaches (a link's target naming the state directory at the root leads nowhere),
/// so the canary is never read and nothing is created in the state dir.
#[test]
fn swapping_a_directory_with_a_link_into_the_state_dir_keeps_it_hidden() {
    let tree = build();
    // Open once so that the state directory exists, then plant a canary in it.
    drop(session(&tree.root));
    let state = tree.root.join(".trash");
    fs::write(state.join(CANARY_NAME), CANARY).unwrap();
    fs::create_dir_all(state.join("trash")).unwrap();
    let canary_before = fs::read(state.join(CANARY_NAME)).unwrap();
    let outside_before = snapshot(&tree.outside);
    let top = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let phases = vec![
        Phase::Dir,
        Phase::Link("realdir"),
        Phase::Link(".trash"),
        Phase::Link("realdir"),
        Phase::Link("./.trash"),
        Phase::Dir,
        Phase::Link(".trash"),
    ];
    let forbidden = Forbidden {
        // The canary's bytes and the journal's records.
        anywhere: &[CANARY, b"STATE-CANARY", b"\"txn\""],
        // The state dir's own names (the commands below create `journal.jsonl` and the
        // others in `realdir` themselves, which is theirs to list).
        stdout: &[CANARY_NAME.as_bytes(), b"audit.jsonl", b"sessions"],
    };
    let cat_canary = format!("cat swap/{CANARY_NAME}");
    let mut commands: Vec<&str> = COMMANDS.to_vec();
    commands.extend([
        cat_canary.as_str(),
        "cat swap/journal.jsonl",
        "echo x >> swap/journal.jsonl",
        "ls swap/trash",
    ]);
    let check = || {
        if fs::read(state.join(CANARY_NAME)).ok().as_deref() != Some(&canary_before[..]) {
            return Some("the canary in the state dir changed".to_string());
        }
        // What the commands create through `swap`, had it led into the state dir.
        let names = top(&state);
        let leaked: Vec<&String> = names
            .iter()
            .filter(|n| ["new.txt", "x.txt", "t", "d", "y", "z"].contains(&n.as_str()))
            .collect();
        if !leaked.is_empty() {
            return Some(format!("written into the state dir: {leaked:?}"));
        }
        None
    };
    run_race(&tree, phases, &commands, &forbidden, &check);
    assert_eq!(snapshot(&tree.outside), outside_before);
}

/// The deterministic form of the hole above: a lookup through `swap` while it is a directory,
/// then `swap` replaced (from outside the session) by a link into `.trash`. A fresh session
/// answers "No such file or directory"; the one that looked `swap` up before follows the link.
#[test]
fn state_dir_link_swapped_in_after_a_lookup_stays_hidden() {
    let tree = build();
    let root = &tree.root;
    let mut sh = session(root);
    fs::write(root.join(".trash").join(CANARY_NAME), CANARY).unwrap();
    fs::rename(root.join("realdir"), root.join("swap")).unwrap();
    assert_eq!(sh.run("cat swap/x.txt").stdout, INSIDE);
    // Someone else swaps the name.
    fs::rename(root.join("swap"), root.join("realdir")).unwrap();
    symlink(".trash", root.join("swap")).unwrap();
    let fresh = session(root).run(format!("cat swap/{CANARY_NAME}"));
    assert_eq!(fresh.stdout, b"");
    assert_eq!(fresh.status, 1);
    let r = sh.run(format!("cat swap/{CANARY_NAME}"));
    let text = |r: &Outcome| {
        (
            String::from_utf8_lossy(&r.stdout).into_owned(),
            String::from_utf8_lossy(&r.stderr).into_owned(),
            r.status,
        )
    };
    assert_eq!(
        text(&r),
        text(&fresh),
        "the canary in the state dir was read"
    );
    let r = sh.run("echo pwned > swap/new.txt");
    assert_eq!(r.status, 1, "a write went into the state dir");
    assert!(fs::symlink_metadata(root.join(".trash/new.txt")).is_err());
}

/// A file opened by `>>` is kept open for the next append to the same inode. Each case
/// changes what the name is between two appends; the second append must go where a fresh
/// open would, never into the kept inode once the name no longer names it, and never into
/// an inode an outside name shares.
#[test]
fn a_kept_append_file_is_used_only_while_its_name_still_names_it() {
    let tree = build();
    let root = &tree.root;
    let secret = tree.outside.join("secret.txt");
    let mut sh = session(root);
    let run = |sh: &mut Session, line: &str| {
        let r = sh.run(line);
        assert_eq!(
            r.status,
            0,
            "{line}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    };
    // Renamed away: the name is new.
    run(&mut sh, "echo 1 >> log");
    run(&mut sh, "mv log moved");
    run(&mut sh, "echo 2 >> log");
    assert_eq!(fs::read(root.join("moved")).unwrap(), b"1\n");
    assert_eq!(fs::read(root.join("log")).unwrap(), b"2\n");
    // Replaced by the host with another file.
    fs::write(root.join("other"), b"other\n").unwrap();
    fs::rename(root.join("other"), root.join("log")).unwrap();
    run(&mut sh, "echo 3 >> log");
    assert_eq!(fs::read(root.join("log")).unwrap(), b"other\n3\n");
    // The host links an outside name to the kept inode: it is no longer the sandbox's alone.
    fs::hard_link(root.join("log"), tree.outside.join("shared")).unwrap();
    run(&mut sh, "echo 4 >> log");
    assert_eq!(
        fs::read(tree.outside.join("shared")).unwrap(),
        b"other\n3\n"
    );
    assert_eq!(fs::read(root.join("log")).unwrap(), b"other\n3\n4\n");
    // Replaced by a hard link to an outside file, and by a link out.
    run(&mut sh, "echo 5 >> log");
    fs::hard_link(&secret, root.join("hard")).unwrap();
    fs::rename(root.join("hard"), root.join("log")).unwrap();
    run(&mut sh, "echo 6 >> log");
    assert_eq!(fs::read(&secret).unwrap(), SECRET);
    assert_eq!(fs::read(root.join("log")).unwrap(), b"TOP SECRET\n6\n");
    run(&mut sh, "echo 7 >> log");
    fs::remove_file(root.join("log")).unwrap();
    symlink(&secret, root.join("log")).unwrap();
    let r = sh.run("echo 8 >> log");
    assert_ne!(r.status, 0);
    assert_eq!(fs::read(&secret).unwrap(), SECRET);
    // And undo takes each append back.
    fs::remove_file(root.join("log")).unwrap();
    run(&mut sh, "echo a >> log");
    run(&mut sh, "echo b >> log");
    assert_eq!(sh.undo(1).len(), 1);
    assert_eq!(fs::read(root.join("log")).unwrap(), b"a\n");
    run(&mut sh, "echo c >> log");
    assert_eq!(fs::read(root.join("log")).unwrap(), b"a\nc\n");
}

/// The same, raced: a thread keeps replacing `log` (atomic renames) by a file of the
/// sandbox, a hard link to an outside file, and a link out, while the session appends to it
/// (and now and then overwrites, truncates, chmods or touches it) line after line. Nothing outside ever changes: what a
/// write opens is checked on the open file, not on what the name was a moment before.
#[test]
fn racing_the_name_of_a_kept_append_file_never_writes_outside() {
    let tree = build();
    let root = tree.root.clone();
    let secret = tree.outside.join("secret.txt");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (root, secret, stop, swaps) =
            (root.clone(), secret.clone(), stop.clone(), swaps.clone());
        thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let prep = root.join(format!("prep{n}"));
                let made = match n % 3 {
                    0 => fs::write(&prep, format!("inside{n}\n")),
                    1 => fs::hard_link(&secret, &prep),
                    _ => symlink(&secret, &prep),
                };
                if made.is_ok() && fs::rename(&prep, root.join("log")).is_ok() {
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
                let _ = fs::remove_file(&prep);
                thread::sleep(Duration::from_micros(50 + (n % 7) * 40));
            }
        })
    };
    let mut sh = session(&root);
    let rounds = rounds();
    for i in 0..rounds {
        let line = match i % 8 {
            0 => format!("echo line{i} > log"),
            3 => "truncate -s 3 log".to_string(),
            5 => "chmod 600 log".to_string(),
            7 => "touch -d @1000 log".to_string(),
            _ => format!("echo line{i} >> log"),
        };
        let _ = sh.run(line);
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(swaps.load(Ordering::Relaxed) > 10, "the swapper barely ran");
    assert_eq!(fs::read(&secret).unwrap(), SECRET, "a write went outside");
    let m = fs::metadata(&secret).unwrap();
    assert_eq!(
        m.permissions().mode() & 0o777,
        0o644,
        "a chmod went outside"
    );
    assert_ne!(m.mtime(), 1000, "a touch went outside");
    assert_eq!(fs::read(tree.outside.join("victim/x.txt")).unwrap(), VICTIM);
}
