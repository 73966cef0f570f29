//! `trumansh replay`: runs a recorded transcript again on a fresh copy of a tree and tells
//! whether the output changed. The owner's tooling (like [`super::owner`]): it runs on the
//! host, never in an agent's session.
//!
//! The copy is made through capability handles (`cap_std::fs::Dir`): nothing is followed out
//! of the tree (a symlink is copied as a link, with its target as written), the state
//! directory `.trash` at the top is left out, modes and times are kept, and files that are
//! neither regular files, directories nor links (fifos, sockets, devices) are skipped. The
//! replay itself is [`transcript::replay_each`], on a [`Session`] set up from the transcript's
//! header; the transcript tests use the same [`replay_tree`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, SystemTimeSpec};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, Metadata, OpenOptions};

use crate::io::io_message;
use crate::policy::Policy;
use crate::sandbox::STATE_DIR_NAME;
use crate::session::{Config, Session};
use crate::transcript::{self, Transcript};

/// What a replay needs besides the transcript.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Overrides the header's mount point.
    pub mount_point: Option<PathBuf>,
    /// The owner's policy the session runs under (default: the default policy).
    pub policy: Policy,
}

/// A replay that could not be done: the tree could not be copied, or the session not started.
#[derive(Debug)]
pub struct ReplayError(pub String);

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReplayError {}

/// The result of a replay.
pub struct Replayed {
    /// The temporary directory holding the copy (removed when this is dropped).
    pub dir: tempfile::TempDir,
    /// The copy of the tree, as the replay left it.
    pub root: PathBuf,
    /// The transcript as given, rendered in its canonical form.
    pub expected: Vec<u8>,
    /// The transcript as the replay ran it: the same header, each step's input and stdin,
    /// and the output and status it has now.
    pub actual: Vec<u8>,
    /// Steps in the transcript.
    pub steps: usize,
    /// Steps run (those after an `exit` are not).
    pub ran: usize,
    /// Steps whose output or status changed.
    pub changed: usize,
}

impl Replayed {
    /// The unified diff from the transcript (named `name`) to the replay, or `None` when the
    /// output did not change.
    pub fn diff(&self, name: &str) -> Option<String> {
        transcript::diff(&self.expected, &self.actual, name)
    }
}

/// Copies `tree` into a fresh temporary directory and replays the transcript on the copy.
pub fn replay_tree(
    transcript: &Transcript,
    tree: &Path,
    options: &ReplayOptions,
) -> Result<Replayed, ReplayError> {
    let dir = tempfile::Builder::new()
        .prefix("trumansh-replay-")
        .tempdir()
        .map_err(|e| {
            ReplayError(format!(
                "cannot make a temporary directory: {}",
                io_message(&e)
            ))
        })?;
    let root = dir.path().join("root");
    copy_tree(tree, &root)?;
    let header = transcript.settings();
    let mut config = Config::new(&root);
    header.configure(&mut config);
    if let Some(m) = &options.mount_point {
        config.sandbox.mount_point = Some(m.clone());
    }
    config.policy = options.policy.clone();
    let mut session = Session::new(config).map_err(|e| ReplayError(e.to_string()))?;
    let replay = transcript::replay_each(&mut session, transcript);
    drop(session);

    let mut expected = transcript
        .header
        .as_ref()
        .map(transcript::Header::render)
        .unwrap_or_default();
    let mut actual = expected.clone();
    let mut changed = 0;
    for (step, now) in transcript.steps.iter().zip(&replay.rendered) {
        let mut was = Vec::new();
        transcript::render_step(
            &mut was,
            &step.input,
            step.stdin.as_deref(),
            &step.output,
            step.status,
        );
        changed += usize::from(was != *now);
        expected.extend_from_slice(&was);
        actual.extend_from_slice(now);
    }
    Ok(Replayed {
        dir,
        root,
        expected,
        actual,
        steps: transcript.steps.len(),
        ran: replay.ran,
        changed,
    })
}

/// Copies the tree at `from` to `to` (which must not exist): directories, regular files and
/// symlinks (as links), with their modes and times; the state directory `.trash` at the top
/// is left out, other kinds of files are skipped. Nothing outside `from` is read: every
/// access goes through a handle on `from`, and no link is followed.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), ReplayError> {
    let failed =
        |path: &Path, e: io::Error| ReplayError(format!("{}: {}", path.display(), io_message(&e)));
    let src_root = Dir::open_ambient_dir(from, ambient_authority()).map_err(|e| failed(from, e))?;
    Dir::create_ambient_dir_all(to, ambient_authority()).map_err(|e| failed(to, e))?;
    let dst_root = Dir::open_ambient_dir(to, ambient_authority()).map_err(|e| failed(to, e))?;
    // Directories get their modes and times once everything inside them is there, deepest
    // first (a read-only directory can then still be filled).
    let mut dirs: Vec<(PathBuf, Metadata)> = Vec::new();
    let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let shown = from.join(&rel);
        let (src, dst) = if rel.as_os_str().is_empty() {
            (src_root.try_clone(), dst_root.try_clone())
        } else {
            (
                src_root.open_dir_nofollow(&rel),
                dst_root.open_dir_nofollow(&rel),
            )
        };
        let src = src.map_err(|e| failed(&shown, e))?;
        let dst = dst.map_err(|e| failed(&to.join(&rel), e))?;
        let mut entries = Vec::new();
        for entry in src.entries().map_err(|e| failed(&shown, e))? {
            let entry = entry.map_err(|e| failed(&shown, e))?;
            let kind = entry.file_type().map_err(|e| failed(&shown, e))?;
            entries.push((entry.file_name(), kind));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in entries {
            let name = PathBuf::from(name);
            if rel.as_os_str().is_empty() && name == Path::new(STATE_DIR_NAME) {
                continue;
            }
            let shown = shown.join(&name);
            let fail = |e| failed(&shown, e);
            if kind.is_symlink() {
                let target = src.read_link_contents(&name).map_err(fail)?;
                dst.symlink_contents(&target, &name).map_err(fail)?;
                // Best effort: not every filesystem sets a link's own times.
                if let Ok(meta) = src.symlink_metadata(&name) {
                    let _ = set_times(&dst, &name, &meta);
                }
            } else if kind.is_dir() {
                let meta = src.symlink_metadata(&name).map_err(fail)?;
                dst.create_dir(&name).map_err(fail)?;
                let child = rel.join(&name);
                dirs.push((child.clone(), meta));
                pending.push(child);
            } else if kind.is_file() {
                copy_file(&src, &dst, &name).map_err(fail)?;
            }
        }
    }
    for (rel, meta) in dirs.iter().rev() {
        let fail = |e| failed(&from.join(rel), e);
        dst_root
            .set_permissions(rel, meta.permissions())
            .map_err(fail)?;
        set_times(&dst_root, rel, meta).map_err(fail)?;
    }
    Ok(())
}

fn copy_file(src: &Dir, dst: &Dir, name: &Path) -> io::Result<()> {
    let mut opts = OpenOptions::new();
    opts.read(true).follow(FollowSymlinks::No);
    let mut input = src.open_with(name, &opts)?;
    let meta = input.metadata()?;
    let mut create = OpenOptions::new();
    create
        .write(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    let mut output = dst.open_with(name, &create)?;
    io::copy(&mut input, &mut output)?;
    output.set_permissions(meta.permissions())?;
    drop(output);
    set_times(dst, name, &meta)
}

/// Gives `path` (never followed) the access and modification times of `meta`.
fn set_times(dir: &Dir, path: &Path, meta: &Metadata) -> io::Result<()> {
    let spec = |t: io::Result<cap_std::time::SystemTime>| t.ok().map(SystemTimeSpec::Absolute);
    dir.set_symlink_times(path, spec(meta.accessed()), spec(meta.modified()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};

    use super::*;

    #[test]
    fn the_copy_keeps_links_modes_and_times_and_leaves_the_state_dir_out() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret"), "no").unwrap();
        let tree = tmp.path().join("tree");
        std::fs::create_dir_all(tree.join("ro/deep")).unwrap();
        std::fs::create_dir_all(tree.join(".trash/trash")).unwrap();
        std::fs::create_dir_all(tree.join("sub/.trash")).unwrap();
        std::fs::write(tree.join("ro/deep/f"), "data").unwrap();
        std::fs::write(tree.join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(tree.join("run.sh"), std::fs::Permissions::from_mode(0o751))
            .unwrap();
        symlink(&outside, tree.join("out")).unwrap();
        symlink("../outside/secret", tree.join("rel-out")).unwrap();
        symlink("ro", tree.join("link-dir")).unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(tree.join("ro/deep/f"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        std::fs::set_permissions(tree.join("ro"), std::fs::Permissions::from_mode(0o555)).unwrap();

        let copy = tmp.path().join("copy");
        copy_tree(&tree, &copy).unwrap();
        assert!(!copy.join(".trash").exists());
        assert!(copy.join("sub/.trash").is_dir());
        assert_eq!(std::fs::read(copy.join("ro/deep/f")).unwrap(), b"data");
        let meta = std::fs::metadata(copy.join("ro/deep/f")).unwrap();
        assert_eq!(meta.mtime(), 1_000_000);
        assert_eq!(
            std::fs::metadata(copy.join("run.sh")).unwrap().mode() & 0o7777,
            0o751
        );
        assert_eq!(
            std::fs::metadata(copy.join("ro")).unwrap().mode() & 0o7777,
            0o555
        );
        assert_eq!(std::fs::read_link(copy.join("out")).unwrap(), outside);
        assert_eq!(
            std::fs::read_link(copy.join("rel-out")).unwrap(),
            Path::new("../outside/secret")
        );
        assert!(
            std::fs::symlink_metadata(copy.join("link-dir"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // Nothing of the outside was copied.
        let mut names: Vec<_> = std::fs::read_dir(&copy)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["link-dir", "out", "rel-out", "ro", "run.sh", "sub"]);
        std::fs::set_permissions(copy.join("ro"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(tree.join("ro"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_missing_tree_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let err = copy_tree(&tmp.path().join("nope"), &tmp.path().join("copy")).unwrap_err();
        assert!(err.0.contains("nope: No such file"), "{err}");
    }
}
