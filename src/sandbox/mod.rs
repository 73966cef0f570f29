//! Containment: the only module that touches the host filesystem for the agent.
//!
//! Every access goes through a `cap_std::fs::Dir` handle on the sandbox root, so the kernel
//! (`openat2(RESOLVE_BENEATH)` on Linux) refuses any resolution that would leave it — through
//! `..`, an absolute path, or a symlink — and refuses it *atomically*, with no window between
//! a check and an open (DESIGN.md decision 2: a string-prefix check loses races).
//!
//! This module maps the agent's *virtual* paths (as seen under the mount point) to paths
//! relative to the root handle, and maps every refusal to `ENOENT`: a path that leads
//! outside, a path into the hidden state directory, and a symlink that points out all answer
//! exactly like a missing path (decision 4). Absolute symlink targets are treated as leading
//! out (the kernel refuses them beneath a root), so they behave as dangling links.
//!
//! Writes never follow a final-component symlink that leads out, and never write through a
//! hard link into an inode shared with another name (which may be outside): such a file is
//! replaced, not modified in place.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, SystemTimeSpec};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, MetadataExt, OpenOptions, PermissionsExt};
use rustix::fs::{Mode, OFlags};
use trumansh_commands::{
    DirEntry, FileKind, FsError, FsView, Meta, Op, ReadSeek, normalize_lexical,
};

use crate::audit::Audit;
use crate::policy::PathRules;

mod resolve;
mod scratch;
mod undo_ops;

pub use crate::limits::{DeadlineReader, Fault, Guard, Usage};
pub use resolve::Loc;
pub use scratch::Scratch;
pub use undo_ops::{Before, Times};

/// The name of the state directory inside the root (trash, journal, history), invisible to
/// the agent.
pub const STATE_DIR_NAME: &str = ".trash";

/// Default cap on one whole-file read (`FsView::read`, `<` redirections).
pub const DEFAULT_READ_CAP: u64 = 256 * 1024 * 1024;

/// Default quota on the bytes the sandbox holds (trash included).
pub const DEFAULT_WRITE_QUOTA: u64 = 8 * 1024 * 1024 * 1024;

/// Default quota on the entries the sandbox holds (trash included).
pub const DEFAULT_FILE_QUOTA: u64 = 1_000_000;

/// Where the sandbox is and how the agent sees it.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The host directory the agent works in.
    pub root: PathBuf,
    /// The path the agent sees the root at; default: the root's real absolute path.
    pub mount_point: Option<PathBuf>,
    /// Where the state directory lives; default: `.trash/` inside the root (hidden).
    pub state_dir: Option<PathBuf>,
    /// Cap on whole-file reads.
    pub read_cap: u64,
    /// Quota on the bytes the sandbox holds, trash and undo data included.
    pub write_quota_bytes: u64,
    /// Quota on the files, directories and links the sandbox holds, trash included.
    pub file_quota: u64,
    /// The policy's hidden and read-only paths.
    pub rules: Option<Arc<PathRules>>,
}

impl SandboxConfig {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SandboxConfig {
            root: root.into(),
            mount_point: None,
            state_dir: None,
            read_cap: DEFAULT_READ_CAP,
            write_quota_bytes: DEFAULT_WRITE_QUOTA,
            file_quota: DEFAULT_FILE_QUOTA,
            rules: None,
        }
    }
}

/// A sandbox root, opened once, with the agent's view of it.
pub struct Sandbox {
    root: Dir,
    root_host: PathBuf,
    mount: PathBuf,
    mount_comps: Vec<OsString>,
    /// The state directory handle.
    state: Dir,
    /// `Some(".trash")` when the state directory is inside the root and must be hidden.
    hidden: Option<OsString>,
    read_cap: u64,
    /// The policy's hidden and read-only paths (absent: none).
    rules: Option<Arc<PathRules>>,
    /// The owner's audit log (refusals are written here with their true reason). Owned by
    /// the runtime (`interp::Runtime`) and shared with it; a standalone sandbox has its own.
    audit: Arc<Audit>,
    /// The limits the sandbox checks: the line's deadline, the quotas, injected faults. Owned
    /// by the runtime and shared with it; a standalone sandbox has its own.
    guard: Arc<Guard>,
    /// The file the last append opened (see [`Sandbox::open_write`]).
    appending: std::sync::Mutex<Option<Appending>>,
}

/// A file opened for appending, kept open after its line: the next append to the same
/// inode, seen at its path by that line's walk, writes through it rather than opening the
/// path again (a script of `echo ... >> log` lines opens the file once). It was opened
/// beneath the root like any file, and is used only when its path, looked at now, still
/// names it (same device and inode, a regular file with one link).
struct Appending {
    dev: u64,
    ino: u64,
    file: Arc<std::fs::File>,
}

/// A time for `utimensat` (`None`: left as it is).
fn timespec(time: Option<SystemTime>) -> rustix::fs::Timespec {
    let Some(time) = time else {
        return rustix::fs::Timespec {
            tv_sec: 0,
            tv_nsec: rustix::fs::UTIME_OMIT,
        };
    };
    let secs = |d: Duration| i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
    let (whole, nanos) = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => (secs(d), i64::from(d.subsec_nanos())),
        // Before the epoch: whole seconds down, nanoseconds up.
        Err(e) => match e.duration().subsec_nanos() {
            0 => (-secs(e.duration()), 0),
            n => (-secs(e.duration()) - 1, 1_000_000_000 - i64::from(n)),
        },
    };
    rustix::fs::Timespec {
        tv_sec: whole,
        tv_nsec: nanos,
    }
}

/// The `/proc` name of an open file: opening (or changing) it reaches that very inode,
/// whatever its names are now.
fn proc_fd(fd: &impl std::os::fd::AsRawFd) -> String {
    format!("/proc/self/fd/{}", fd.as_raw_fd())
}

/// The error for the owner of the sandbox (never shown to the agent).
#[derive(Debug)]
pub struct SetupError(pub String);

impl std::error::Error for SetupError {}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Sandbox {
    /// Opens the root (and creates the state directory if needed), standalone: with a guard
    /// of its own (the quotas of `config`) and an audit log of its own in the state directory
    /// (the owner's tools, tests of the sandbox alone).
    pub fn open(config: &SandboxConfig) -> Result<Self, SetupError> {
        let guard = Arc::new(Guard::new(config.write_quota_bytes, config.file_quota));
        let mut sandbox = Sandbox::open_with(config, guard)?;
        let audit = Audit::open(&sandbox.state, &unique_name("s"));
        sandbox.record_in(Arc::new(audit));
        Ok(sandbox)
    }

    /// Opens the root (and creates the state directory if needed) for a runtime that owns
    /// the limits: the sandbox is given the `guard` to check. It records nothing until it is
    /// given the runtime's audit log ([`Sandbox::record_in`]), which lives in the state
    /// directory this opens.
    ///
    /// A state directory is bound to its root: one outside the root records the root's
    /// identity and refuses another root; one that resolves inside the root is refused
    /// unless it is the default (`.trash`, hidden).
    pub fn open_with(config: &SandboxConfig, guard: Arc<Guard>) -> Result<Self, SetupError> {
        let root_host = std::fs::canonicalize(&config.root)
            .map_err(|e| SetupError(format!("cannot open root {}: {e}", config.root.display())))?;
        let root = Dir::open_ambient_dir(&root_host, ambient_authority())
            .map_err(|e| SetupError(format!("cannot open root {}: {e}", root_host.display())))?;
        let mount = match &config.mount_point {
            Some(m) if m.is_absolute() => normalize_lexical(m),
            Some(m) => {
                return Err(SetupError(format!(
                    "mount point must be absolute: {}",
                    m.display()
                )));
            }
            None => root_host.clone(),
        };
        let mount_comps = mount
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                _ => None,
            })
            .collect();
        let outside = match &config.state_dir {
            Some(dir) => state_dir_outside(&root_host, dir)?,
            None => None,
        };
        #[allow(clippy::single_match_else)] // two real alternatives, each with its own setup
        let (state, hidden) = match outside {
            Some(dir) => {
                let d = Dir::open_ambient_dir(&dir, ambient_authority()).map_err(|e| {
                    SetupError(format!("cannot open state dir {}: {e}", dir.display()))
                })?;
                bind_to_root(&d, &dir, &root, &root_host)?;
                (d, None)
            }
            None => {
                match root.create_dir(STATE_DIR_NAME) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        return Err(SetupError(format!("cannot create state dir: {e}")));
                    }
                }
                // Never follow a link planted at the state dir's name.
                let d = root.open_dir_nofollow(STATE_DIR_NAME).map_err(|e| {
                    SetupError(format!("cannot open state dir {STATE_DIR_NAME}: {e}"))
                })?;
                (d, Some(OsString::from(STATE_DIR_NAME)))
            }
        };
        scratch::sweep(&state);
        Ok(Sandbox {
            root,
            root_host,
            mount,
            mount_comps,
            state,
            hidden,
            read_cap: config.read_cap,
            rules: config.rules.clone().filter(|r| !r.is_empty()),
            audit: Arc::new(Audit::none()),
            guard,
            appending: std::sync::Mutex::default(),
        })
    }

    /// Where the sandbox records its refusals (and quota events) from now on.
    pub fn record_in(&mut self, audit: Arc<Audit>) {
        self.audit = audit;
    }

    /// The agent's view of the root.
    pub fn mount_point(&self) -> &Path {
        &self.mount
    }

    /// The host path of the root (for the owner's messages only).
    pub fn root_host(&self) -> &Path {
        &self.root_host
    }

    /// The state directory handle (trash, journal, history).
    pub fn state_dir(&self) -> &Dir {
        &self.state
    }

    /// The audit log the sandbox records in (the runtime's, shared).
    pub fn audit(&self) -> &Audit {
        &self.audit
    }

    /// The limits the sandbox checks (the runtime's, shared): for the layers below the
    /// runtime that are given only the sandbox (the journal, the owner's tools), and for
    /// tests that inject faults.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// Logs a refused path with its true reason and answers as for a missing path.
    fn refuse(&self, vpath: &[u8], reason: &str) -> FsError {
        self.audit.refused(vpath, reason);
        FsError::NotFound
    }

    /// [`map_err`], logging the kernel's refusals (a resolution that would leave the root,
    /// a host permission) before they become `ENOENT`.
    fn host_err(&self, what: &Path, e: io::Error) -> FsError {
        let reason = match e.raw_os_error() {
            Some(18) => Some("escape: resolution would leave the root (EXDEV)"),
            Some(1) => Some("escape or host refusal (EPERM)"),
            Some(13) => Some("host permission denied (EACCES)"),
            _ => None,
        };
        if let Some(reason) = reason {
            self.audit.refused(what.as_os_str().as_bytes(), reason);
        }
        map_err(e)
    }

    /// The components of a virtual absolute path below the root, or `NotFound`; and whether
    /// it was written with a trailing `/` (or `/.`).
    ///
    /// Components before the mount point are walked lexically (the mount point's ancestors do
    /// not exist in the view, so anything that strays from the mount point is missing).
    /// Inside, `.` is dropped and `..` is kept for the walk (physical, after links, as bash's
    /// `cat link/../x`) — except leading `..` at the root of a `/` mount, which stays at `/`.
    fn lexical<'p>(&self, vpath: &'p Path) -> Result<(Vec<&'p [u8]>, bool), FsError> {
        self.guard.check()?;
        let bytes = vpath.as_os_str().as_bytes();
        if bytes.first() != Some(&b'/') || bytes.contains(&0) {
            return Err(FsError::NotFound);
        }
        if bytes.len() > 4095 {
            return Err(FsError::NameTooLong);
        }
        let slash = bytes.len() > 1 && (bytes.ends_with(b"/") || bytes.ends_with(b"/."));
        let mut comps = bytes.split(|&b| b == b'/').filter(|c| !c.is_empty());
        // Outside the root: a stack of components that must stay a prefix of the mount point.
        let mut outside: Vec<&[u8]> = Vec::new();
        while outside.len() < self.mount_comps.len() {
            let Some(c) = comps.next() else {
                // The path names an ancestor of the mount point: not in the view.
                return Err(self.refuse(bytes, "outside the mount point (an ancestor of it)"));
            };
            match c {
                b"." => {}
                b".." => {
                    outside.pop();
                }
                name => {
                    if self.mount_comps[outside.len()].as_bytes() != name {
                        return Err(self.refuse(bytes, "outside the mount point"));
                    }
                    outside.push(name);
                }
            }
        }
        let mut rel: Vec<&[u8]> = Vec::new();
        let mut depth: usize = 0;
        for c in comps {
            match c {
                b"." => {}
                b".." => {
                    if depth == 0 && rel.iter().all(|c| *c == b"..") {
                        if self.mount_comps.is_empty() {
                            continue; // `/..` is `/`
                        }
                        return Err(self.refuse(bytes, "above the root"));
                    }
                    rel.push(c);
                    depth = depth.saturating_sub(1);
                }
                name => {
                    if name.len() > 255 {
                        return Err(FsError::NameTooLong);
                    }
                    rel.push(name);
                    depth += 1;
                }
            }
        }
        Ok((rel, slash))
    }

    /// The location a virtual path names, its final component not followed (what a change
    /// acts on: the name itself, a link as a link).
    pub fn locate(&self, vpath: &Path) -> Result<Loc, FsError> {
        let (comps, slash) = self.lexical(vpath)?;
        self.walk(&comps, false, slash)
    }

    /// The location a virtual path names, a final link followed when `follow` (or when the
    /// path ends in `/`).
    pub fn resolve(&self, vpath: &Path, follow: bool) -> Result<Loc, FsError> {
        let (comps, slash) = self.lexical(vpath)?;
        self.walk(&comps, follow || slash, slash)
    }

    /// Whether the policy makes a location read-only (it, or a directory above it, matches).
    fn check_writable(&self, loc: &Loc) -> Result<(), FsError> {
        if let Some(rules) = &self.rules
            && rules.has_read_only()
            && rules.is_read_only(&loc.rel)
        {
            self.audit.event(
                "read_only",
                crate::audit::fields([(
                    "path",
                    crate::audit::text(loc.rel.as_os_str().as_bytes()),
                )]),
            );
            return Err(FsError::ReadOnly);
        }
        Ok(())
    }

    /// Whether an object may be moved (renamed, trashed): it is writable, and — a directory
    /// — holds nothing the policy makes read-only or hidden, so that no rule can be left
    /// behind by moving what it protects (`mv config c; cat c/secret.key`).
    fn check_movable(&self, loc: &Loc) -> Result<(), FsError> {
        self.check_writable(loc)?;
        if loc.is_root() {
            return Err(FsError::from_io(&io::Error::from_raw_os_error(16)));
        }
        let Some(rules) = &self.rules else {
            return Ok(());
        };
        let (dir, name) = self.at(loc)?;
        let Some(name) = name else {
            return Ok(());
        };
        match dir.symlink_metadata(name) {
            Ok(m) if m.is_dir() => {}
            _ => return Ok(()),
        }
        let top = dir.open_dir_nofollow(name).map_err(map_err)?;
        // Whether the agent sees anything in the directory: one that looks empty but holds
        // hidden paths answers as a directory that is not empty (`find -delete`, `rmdir`).
        let mut visible = false;
        let mut protected: Option<PathBuf> = None;
        let mut stack: Vec<(Dir, PathBuf)> = vec![(top, loc.rel.clone())];
        while let Some((d, phys)) = stack.pop() {
            self.guard.check()?;
            let at_top = phys == loc.rel;
            for entry in d.entries().map_err(map_err)? {
                let entry = entry.map_err(map_err)?;
                let p = phys.join(entry.file_name());
                let hidden = rules.is_hidden(&p);
                if at_top && !hidden {
                    visible = true;
                }
                if hidden || rules.is_read_only(&p) {
                    protected.get_or_insert(p);
                    continue;
                }
                if protected.is_none()
                    && entry.file_type().is_ok_and(|t| t.is_dir())
                    && let Ok(sub) = d.open_dir_nofollow(entry.file_name())
                {
                    stack.push((sub, p));
                }
            }
            if protected.is_some() && visible {
                break;
            }
        }
        let Some(holds) = protected else {
            return Ok(());
        };
        self.audit.event(
            "read_only",
            crate::audit::fields([
                ("path", crate::audit::text(loc.rel.as_os_str().as_bytes())),
                ("holds", crate::audit::text(holds.as_os_str().as_bytes())),
            ]),
        );
        Err(if visible {
            FsError::ReadOnly
        } else {
            FsError::NotEmpty
        })
    }

    /// The virtual path of a physical location relative to the root.
    fn virtual_of(&self, rel: &Path) -> PathBuf {
        let mut v = self.mount.clone();
        for (i, c) in rel.components().enumerate() {
            if let Component::Normal(n) = c {
                if i == 0 {
                    match self.root_name_for_agent(n) {
                        Some(a) => v.push(a),
                        None => v.push(n),
                    }
                } else {
                    v.push(n);
                }
            }
        }
        v
    }

    /// What a location is now (not following a final link).
    fn lstat(&self, loc: &Loc) -> Result<cap_std::fs::Metadata, FsError> {
        let (dir, name) = self.at(loc)?;
        match name {
            Some(n) => dir
                .symlink_metadata(n)
                .map_err(|e| self.host_err(&loc.rel, e)),
            None => dir.dir_metadata().map_err(map_err),
        }
    }

    /// Opens a file for reading (following links while they stay inside): an owned handle,
    /// for a `<` redirection that streams while the command runs. Never blocks: a FIFO is
    /// opened without waiting for a writer; a socket or a device is not read.
    pub fn open_file(&self, path: &Path) -> Result<cap_std::fs::File, FsError> {
        let (fd, loc) = self.open_object(path, true, OFlags::RDONLY | OFlags::NONBLOCK)?;
        if self.injected_unreadable(&loc) {
            return Err(FsError::Io);
        }
        readable(fd)
    }

    /// Opens the object at a location for reading, without following a final link and
    /// without blocking.
    fn open_read(&self, loc: &Loc) -> Result<cap_std::fs::File, FsError> {
        let (dir, name) = self.at(loc)?;
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&*dir, name.unwrap_or(OsStr::new(".")), flags, Mode::empty())
            .map_err(|e| self.host_err(&loc.rel, e.into()))?;
        readable(fd)
    }

    // ---- mutations: used only by the executor ------------------------------------------

    /// Creates a directory (never through a final symlink).
    pub fn create_dir(&self, vpath: &Path, mode: Option<u32>) -> Result<(), FsError> {
        self.create_dir_at(&self.locate(vpath)?, mode)
    }

    /// [`Sandbox::create_dir`] at a location already resolved ([`Sandbox::locate`]).
    pub fn create_dir_at(&self, loc: &Loc, mode: Option<u32>) -> Result<(), FsError> {
        if loc.is_root() {
            return Err(FsError::AlreadyExists);
        }
        self.check_writable(loc)?;
        let (dir, name) = self.at(loc)?;
        let name = name.unwrap_or(OsStr::new("."));
        if dir.symlink_metadata(name).is_ok() {
            return Err(FsError::AlreadyExists);
        }
        self.charge(0, 1)?;
        dir.create_dir(name)
            .map_err(|e| self.host_err(&loc.rel, e))?;
        if let Some(mode) = mode {
            dir.set_permissions(name, cap_std::fs::Permissions::from_mode(mode))
                .map_err(map_err)?;
        }
        Ok(())
    }

    /// Where a write to `vpath` lands: follows a final symlink only while it stays beneath
    /// the root and is relative (a link out answers like a dangling link whose directory is
    /// missing: `ENOENT`).
    pub fn resolve_write_target(&self, vpath: &Path) -> Result<Loc, FsError> {
        let loc = self.resolve(vpath, true)?;
        if loc.is_root() {
            return Err(FsError::IsADirectory);
        }
        self.check_writable(&loc)?;
        Ok(loc)
    }

    /// Opens an existing file for writing without following a final link (a FIFO without a
    /// reader fails at once, `ENXIO`, instead of waiting), without truncating it (the caller
    /// truncates once it saw what it opened).
    fn open_nofollow(&self, loc: &Loc, append: bool) -> io::Result<cap_std::fs::File> {
        let (dir, name) = self.at(loc).map_err(|_| io::Error::from_raw_os_error(2))?;
        let mut flags =
            OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        if append {
            flags |= OFlags::APPEND;
        }
        let fd = rustix::fs::openat(&*dir, name.unwrap_or(OsStr::new(".")), flags, Mode::empty())?;
        Ok(cap_std::fs::File::from_std(std::fs::File::from(fd)))
    }

    /// Creates a new file (fails if anything exists there, links included).
    /// Its mode is the default a shell with umask 022 gives (0644).
    fn create_new(&self, loc: &Loc) -> io::Result<cap_std::fs::File> {
        let (dir, name) = self.at(loc).map_err(|_| io::Error::from_raw_os_error(2))?;
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        opts.follow(FollowSymlinks::No);
        dir.open_with(name.unwrap_or(OsStr::new(".")), &opts)
    }

    /// Facts about the file a write will hit: whether it existed, its bytes length, whether
    /// it shares its inode, which inode it is.
    pub fn write_probe(&self, loc: &Loc) -> Result<Option<Before>, FsError> {
        match self.lstat(loc) {
            Ok(m) => {
                if m.is_dir() {
                    return Err(FsError::IsADirectory);
                }
                Ok(Some(Before::of(&m)))
            }
            Err(FsError::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes (or appends) `data` at a resolved location. An existing file that shares its
    /// inode (`nlink > 1`) is replaced by a fresh file holding the same bytes, so that the
    /// write never reaches another name's inode, which may be outside the sandbox.
    pub fn write_at(&self, loc: &Loc, data: &[u8], append: bool) -> Result<(), FsError> {
        self.write_from(loc, &mut &data[..], append)
    }

    /// [`Sandbox::write_at`] from a reader, streaming (`cp` of a large file).
    pub fn write_from(&self, loc: &Loc, data: &mut dyn Read, append: bool) -> Result<(), FsError> {
        self.open_write(loc, data, append, None).map(drop)
    }

    /// [`Sandbox::write_from`], giving back the file open for writing (with `append`, in
    /// append mode; otherwise at the end of `data`): a redirection's later writes go
    /// through it ([`Sandbox::write_to`]), as they would through bash's file descriptor.
    /// `seen`: what the journal's plan found at the target, which is then not looked at
    /// again (`None`: look).
    pub fn open_write(
        &self,
        loc: &Loc,
        data: &mut dyn Read,
        append: bool,
        seen: Option<Option<Before>>,
    ) -> Result<Arc<std::fs::File>, FsError> {
        // An append to the file the last append opened (its path names it now).
        let single = match seen {
            Some(Some(b)) if b.is_file && b.nlink == 1 && append => Some(b),
            _ => None,
        };
        if let Some(b) = single
            && let Some(file) = self.appending(b)
        {
            let mut data = self.metered(data);
            undo_ops::copy(&mut data, &mut &*file).map_err(map_err)?;
            return Ok(file);
        }
        let file = self.open_write_new(loc, data, append, seen).map(Arc::new)?;
        // Kept when it is the file that was seen (not one made in its place).
        if let Some(b) = single
            && file.metadata().is_ok_and(|m| {
                use std::os::unix::fs::MetadataExt as _;
                (m.dev(), m.ino()) == (b.dev, b.ino)
            })
            && let Ok(mut kept) = self.appending.lock()
        {
            *kept = Some(Appending {
                dev: b.dev,
                ino: b.ino,
                file: Arc::clone(&file),
            });
        }
        Ok(file)
    }

    /// The file the last append opened, if it is the inode `b` describes.
    fn appending(&self, b: Before) -> Option<Arc<std::fs::File>> {
        let kept = self.appending.lock().ok()?;
        kept.as_ref()
            .filter(|a| a.dev == b.dev && a.ino == b.ino)
            .map(|a| Arc::clone(&a.file))
    }

    /// [`Sandbox::open_write`] through a new open of the path.
    #[allow(clippy::option_option)] // as `open_write`'s `seen`: not looked, nothing, this
    fn open_write_new(
        &self,
        loc: &Loc,
        data: &mut dyn Read,
        append: bool,
        seen: Option<Option<Before>>,
    ) -> Result<std::fs::File, FsError> {
        let probe = match seen {
            Some(Some(b)) if b.is_dir => return Err(FsError::IsADirectory),
            Some(b) => b,
            None => self.write_probe(loc)?,
        };
        let mut data = self.metered(data);
        let mut f = match probe {
            // `> new/`: the kernel will not create a file named with a final slash.
            None if loc.has_trailing_slash() => return Err(FsError::IsADirectory),
            None => {
                self.charge(0, 1)?;
                let mut f = self.create_new(loc).map_err(map_err)?;
                undo_ops::copy(&mut data, &mut f).map_err(map_err)?;
                return Ok(f.into_std());
            }
            Some(b) if b.nlink > 1 => return self.write_shared(loc, data, append, b.len),
            Some(b) => {
                let f = self.open_nofollow(loc, append).map_err(map_err)?;
                // The name may have been replaced since it was looked at (by another
                // process, another session): the open file is written to only if it is the
                // inode seen there then, with no other name. Else the name may have led to
                // an inode shared with a name outside, or whose only name is now outside:
                // it is not written to, the name gets a new inode.
                let m = f.metadata().map_err(map_err)?;
                if m.is_file() && (m.nlink() > 1 || (m.dev(), m.ino()) != (b.dev, b.ino)) {
                    drop(f);
                    return self.write_shared(loc, data, append, m.len());
                }
                if !append {
                    if m.is_file() {
                        f.set_len(0).map_err(map_err)?;
                    }
                    let _ = self.charge(-(b.len as i64), 0);
                }
                f
            }
        };
        undo_ops::copy(&mut data, &mut f).map_err(map_err)?;
        Ok(f.into_std())
    }

    /// Writes (appends) `data` to a file that shares its inode (`len` bytes long) by
    /// giving it an inode of its own: the other names keep the old bytes.
    fn write_shared(
        &self,
        loc: &Loc,
        data: impl Read,
        append: bool,
        len: u64,
    ) -> Result<std::fs::File, FsError> {
        let mut data = data;
        if append {
            let old = self.open_read(loc)?;
            self.replace_file(loc, &mut old.chain(data), true)
        } else {
            let _ = self.charge(-(len as i64), 0);
            self.replace_file(loc, &mut data, false)
        }
    }

    /// Writes `data` to a file [`Sandbox::open_write`] opened, charged to the quota.
    pub fn write_to(&self, file: &std::fs::File, data: &[u8]) -> Result<(), FsError> {
        // Written from where it is, in the pieces a copy would read (8 KiB).
        let mut data = self.metered(data);
        let mut file = file;
        loop {
            let piece = data.piece(8 * 1024).map_err(map_err)?;
            if piece.is_empty() {
                return Ok(());
            }
            io::Write::write_all(&mut file, piece).map_err(map_err)?;
        }
    }

    /// Replaces a file by a new one holding `content` (new inode; old mode kept), through a
    /// temporary name in the same directory and a rename; gives back the new file, open for
    /// writing (in append mode with `append`).
    fn replace_file(
        &self,
        loc: &Loc,
        content: &mut dyn Read,
        append: bool,
    ) -> Result<std::fs::File, FsError> {
        let mode = self.lstat(loc).map_or(0o644, |m| m.mode() & 0o7777);
        let (dir, name) = self.at(loc)?;
        let name = name.ok_or(FsError::IsADirectory)?;
        let tmp = unique_name(".trumansh-tmp");
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true).append(append);
        opts.follow(FollowSymlinks::No);
        let written = dir
            .open_with(&tmp, &opts)
            .map_err(map_err)
            .and_then(|mut f| {
                undo_ops::copy(content, &mut f).map_err(map_err)?;
                Ok(f)
            });
        let f = match written {
            Ok(f) => f,
            Err(e) => {
                let _ = dir.remove_file(&tmp);
                return Err(e);
            }
        };
        let _ = dir.set_permissions(&tmp, cap_std::fs::Permissions::from_mode(mode));
        dir.rename(&tmp, &dir, name).map_err(|e| {
            let _ = dir.remove_file(&tmp);
            map_err(e)
        })?;
        Ok(f.into_std())
    }

    /// Opens the object at `loc` (never through a final link) with `flags`, for a change to
    /// it that must not reach another name's inode: a regular file that shares its inode (a
    /// hard link, perhaps to a file outside) first gets one of its own
    /// ([`Sandbox::unshare`]); then the open file must be the inode just seen at the name,
    /// with one link — checked on the open file, since the name may be replaced by another
    /// process between the look and the open (it is then looked at again). Gives the open
    /// file and what it is.
    fn open_own(
        &self,
        loc: &Loc,
        flags: OFlags,
    ) -> Result<(rustix::fd::OwnedFd, rustix::fs::Stat), FsError> {
        let (dir, name) = self.at(loc)?;
        let name = name.unwrap_or(OsStr::new("."));
        let flags = flags | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let errno = |e: rustix::io::Errno| map_err(e.into());
        for _ in 0..8 {
            let seen = self.lstat(loc)?;
            if seen.is_file() && seen.nlink() > 1 {
                self.unshare(loc)?;
                continue;
            }
            let fd = rustix::fs::openat(&*dir, name, flags, Mode::empty()).map_err(errno)?;
            let st = rustix::fs::fstat(&fd).map_err(errno)?;
            let regular = rustix::fs::FileType::from_raw_mode(st.st_mode)
                == rustix::fs::FileType::RegularFile;
            if !regular || (st.st_nlink == 1 && (st.st_dev, st.st_ino) == (seen.dev(), seen.ino()))
            {
                return Ok((fd, st));
            }
        }
        // Replaced at every look: another process keeps swapping the name.
        Err(FsError::from_io(&io::Error::from_raw_os_error(11)))
    }

    /// Gives a regular file that shares its inode (`nlink > 1`, e.g. a hard link to a file
    /// outside) an inode of its own with the same bytes, mode and times, so that a metadata
    /// change (times, mode) never reaches another name's inode.
    fn unshare(&self, loc: &Loc) -> Result<(), FsError> {
        let m = match self.lstat(loc) {
            Ok(m) if m.is_file() && m.nlink() > 1 => m,
            _ => return Ok(()),
        };
        let mut old = self.open_read(loc)?;
        self.replace_file(loc, &mut old, false)?;
        self.set_times_of(loc, &m);
        Ok(())
    }

    /// Copies `m`'s access and modification times onto a location (best effort, as
    /// `cp -p`; never through a final link).
    fn set_times_of(&self, loc: &Loc, m: &cap_std::fs::Metadata) {
        self.set_times_rel(
            loc,
            Times {
                atime: (m.atime(), m.atime_nsec()),
                mtime: (m.mtime(), m.mtime_nsec()),
            },
        );
    }

    /// Sets permission bits on the object at a location, never through a link: an open
    /// handle's `fchmod` (or, for a file that cannot be opened, its path handle's `/proc`
    /// name, which names that very inode).
    fn chmod_at(&self, loc: &Loc, mode: u32) -> Result<(), FsError> {
        let (dir, name) = self.at(loc)?;
        let name = name.unwrap_or(OsStr::new("."));
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let mode = Mode::from_raw_mode(mode & 0o7777);
        match rustix::fs::openat(&*dir, name, flags, Mode::empty()) {
            Ok(fd) => rustix::fs::fchmod(&fd, mode).map_err(|e| map_err(e.into())),
            Err(rustix::io::Errno::ACCESS | rustix::io::Errno::NXIO) => {
                let fd = rustix::fs::openat(
                    &*dir,
                    name,
                    OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| map_err(e.into()))?;
                let st = rustix::fs::fstat(&fd).map_err(|e| map_err(e.into()))?;
                if rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
                {
                    return Ok(());
                }
                rustix::fs::chmod(proc_fd(&fd).as_str(), mode).map_err(|e| map_err(e.into()))
            }
            // A link has no mode of its own to set.
            Err(rustix::io::Errno::LOOP) => Ok(()),
            Err(e) => Err(map_err(e.into())),
        }
    }

    /// `cp` of one object: a regular file's bytes (streamed) into `to` (following a final
    /// link of `to` as a write does), or — with `links_as_links` — a symlink as a new link
    /// with the same target text. `preserve` copies mode and times (`cp -p`, `-a`).
    /// Directories are the handler's business (it emits `CreateDir` and one copy per entry).
    pub fn copy(
        &self,
        from: &Path,
        to: &Path,
        links_as_links: bool,
        preserve: bool,
    ) -> Result<(), FsError> {
        let (src, dst) = self.copy_targets(from, to, links_as_links)?;
        self.copy_at(&src, &dst?, preserve)
    }

    /// Where a copy reads and writes: the source (its final link followed unless
    /// `links_as_links`), and the destination — the name itself for a link copied as a link,
    /// else where a write lands ([`Sandbox::resolve_write_target`]).
    pub fn copy_targets(
        &self,
        from: &Path,
        to: &Path,
        links_as_links: bool,
    ) -> Result<(Loc, Result<Loc, FsError>), FsError> {
        let src = self.resolve(from, !links_as_links)?;
        let dst = if self.lstat(&src)?.file_type().is_symlink() {
            self.locate(to).and_then(|d| {
                if d.is_root() {
                    Err(FsError::AlreadyExists)
                } else {
                    self.check_writable(&d).map(|()| d)
                }
            })
        } else {
            self.resolve_write_target(to)
        };
        Ok((src, dst))
    }

    /// [`Sandbox::copy`] between locations already resolved ([`Sandbox::copy_targets`]).
    pub fn copy_at(&self, src: &Loc, dst: &Loc, preserve: bool) -> Result<(), FsError> {
        let m = self.lstat(src)?;
        if m.file_type().is_symlink() {
            let (sdir, sname) = self.at(src)?;
            let target = sdir
                .read_link_contents(sname.unwrap_or(OsStr::new(".")))
                .map_err(map_err)?;
            self.charge(0, 1)?;
            let (ddir, dname) = self.at(dst)?;
            return ddir
                .symlink_contents(target, dname.unwrap_or(OsStr::new(".")))
                .map_err(map_err);
        }
        if m.is_dir() {
            return Err(FsError::IsADirectory);
        }
        if self.injected_unreadable(src) {
            return Err(FsError::Io);
        }
        let mut reader = self.open_read(src)?;
        self.write_from(dst, &mut reader, false)?;
        if preserve {
            let _ = self.chmod_at(dst, m.mode() & 0o7777);
            self.set_times_of(dst, &m);
        }
        Ok(())
    }

    /// Sets times, creating an empty file first when asked (`touch`).
    pub fn touch(
        &self,
        vpath: &Path,
        atime: Option<SystemTime>,
        mtime: Option<SystemTime>,
        create: bool,
        now: SystemTime,
    ) -> Result<bool, FsError> {
        self.touch_at(
            &self.resolve_write_target(vpath)?,
            atime,
            mtime,
            create,
            now,
        )
    }

    /// [`Sandbox::touch`] at a location already resolved ([`Sandbox::resolve_write_target`]).
    pub fn touch_at(
        &self,
        loc: &Loc,
        atime: Option<SystemTime>,
        mtime: Option<SystemTime>,
        create: bool,
        now: SystemTime,
    ) -> Result<bool, FsError> {
        let mut created = false;
        if self.lstat(loc).is_err() {
            if !create {
                return Ok(false);
            }
            if loc.has_trailing_slash() {
                return Err(FsError::IsADirectory);
            }
            self.charge(0, 1)?;
            self.create_new(loc).map_err(map_err)?;
            created = true;
        }
        let (a, m) = if atime.is_none() && mtime.is_none() {
            (Some(now), Some(now))
        } else {
            (atime, mtime)
        };
        let by_name = || {
            let spec = |t: Option<SystemTime>| {
                t.map(|t| SystemTimeSpec::Absolute(cap_std::time::SystemTime::from_std(t)))
            };
            let (dir, name) = self.at(loc)?;
            dir.set_symlink_times(name.unwrap_or(OsStr::new(".")), spec(a), spec(m))
                .map_err(map_err)
        };
        let (fd, st) = self.open_own(loc, OFlags::PATH)?;
        if rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink {
            // A link's own times (it cannot be followed through its `/proc` name).
            by_name()?;
            return Ok(created);
        }
        let times = rustix::fs::Timestamps {
            last_access: timespec(a),
            last_modification: timespec(m),
        };
        match rustix::fs::utimensat(
            rustix::fs::CWD,
            proc_fd(&fd).as_str(),
            &times,
            rustix::fs::AtFlags::empty(),
        ) {
            // No `/proc`: by the name, as checked just now.
            Err(rustix::io::Errno::NOENT) => by_name()?,
            r => r.map_err(|e| map_err(e.into()))?,
        }
        Ok(created)
    }

    /// Where a new name is made (a link): the name itself, never followed, not the root, and
    /// writable.
    fn locate_new(&self, vpath: &Path) -> Result<Loc, FsError> {
        let loc = self.locate(vpath)?;
        if loc.is_root() {
            return Err(FsError::AlreadyExists);
        }
        self.check_writable(&loc)?;
        Ok(loc)
    }

    /// `ln -s`: makes a symbolic link holding `target` at a location (never through a final
    /// link; `EEXIST` when anything is there).
    pub fn symlink_at(&self, loc: &Loc, target: &Path) -> Result<(), FsError> {
        let (dir, name) = self.at(loc)?;
        let name = name.ok_or(FsError::AlreadyExists)?;
        if dir.symlink_metadata(name).is_ok() {
            return Err(FsError::AlreadyExists);
        }
        if loc.has_trailing_slash() {
            return Err(FsError::NotFound);
        }
        self.charge(0, 1)?;
        dir.symlink_contents(target, name)
            .map_err(|e| self.host_err(&loc.rel, e))
    }

    /// `ln`: makes `dst` a new name of the object at `src` (itself, a link as a link). A
    /// directory cannot have one (`EPERM`), nor can what the agent cannot move (a directory
    /// holding hidden paths is one already; a read-only file keeps its protection since every
    /// write replaces a shared inode).
    pub fn hard_link_at(&self, src: &Loc, dst: &Loc) -> Result<(), FsError> {
        let m = self.lstat(src)?;
        if m.is_dir() {
            return Err(FsError::from_io(&io::Error::from_raw_os_error(1)));
        }
        let (sdir, sname) = self.at(src)?;
        let sname = sname.ok_or(FsError::IsADirectory)?;
        let (ddir, dname) = self.at(dst)?;
        let dname = dname.ok_or(FsError::AlreadyExists)?;
        self.charge(0, 1)?;
        sdir.hard_link(sname, &ddir, dname)
            .map_err(|e| self.host_err(&dst.rel, e))
    }

    /// `truncate`: sets a regular file's length (cut, or extended with a hole), creating it
    /// empty first when asked. A file that shares its inode gets one of its own first.
    pub fn truncate_at(&self, loc: &Loc, len: u64, create: bool) -> Result<(), FsError> {
        let old = match self.write_probe(loc)? {
            None if !create => return Ok(()),
            None if loc.has_trailing_slash() => return Err(FsError::IsADirectory),
            None => {
                self.charge(0, 1)?;
                self.create_new(loc).map_err(map_err)?;
                0
            }
            Some(b) => b.len,
        };
        let (fd, st) = self.open_own(loc, OFlags::WRONLY)?;
        // What is cut or added is counted from what was opened (the name may have changed).
        let old = u64::try_from(st.st_size).unwrap_or(old);
        let grow = i64::try_from(len.saturating_sub(old)).unwrap_or(i64::MAX);
        let cut = i64::try_from(old.saturating_sub(len)).unwrap_or(i64::MAX);
        self.charge(grow - cut, 0)?;
        rustix::fs::ftruncate(&fd, len).map_err(|e| map_err(e.into()))
    }

    /// Sets permission bits.
    pub fn set_mode(&self, vpath: &Path, mode: u32) -> Result<(), FsError> {
        self.set_mode_at(&self.resolve_write_target(vpath)?, mode)
    }

    /// [`Sandbox::set_mode`] at a location already resolved
    /// ([`Sandbox::resolve_write_target`]).
    pub fn set_mode_at(&self, loc: &Loc, mode: u32) -> Result<(), FsError> {
        let (fd, st) = self.open_own(loc, OFlags::PATH)?;
        if rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink {
            return Ok(()); // a link has no mode of its own to set
        }
        match rustix::fs::chmod(proc_fd(&fd).as_str(), Mode::from_raw_mode(mode & 0o7777)) {
            // No `/proc`: by the name, as checked just now.
            Err(rustix::io::Errno::NOENT) => self.chmod_at(loc, mode),
            r => r.map_err(|e| map_err(e.into())),
        }
    }

    /// Renames within the root; the final component of `from` is never followed. Neither
    /// end may be read-only, and a directory that holds read-only or hidden paths does not
    /// move.
    pub fn rename(&self, from: &Path, to: &Path) -> Result<(), FsError> {
        self.rename_at(&self.locate(from)?, &self.locate(to)?)
    }

    /// [`Sandbox::rename`] between locations already resolved ([`Sandbox::locate`]).
    pub fn rename_at(&self, a: &Loc, b: &Loc) -> Result<(), FsError> {
        self.check_movable(a)?;
        self.check_writable(b)?;
        if b.is_root() {
            return Err(FsError::from_io(&io::Error::from_raw_os_error(16)));
        }
        let (da, na) = self.at(a)?;
        let (db, nb) = self.at(b)?;
        da.rename(
            na.unwrap_or(OsStr::new(".")),
            &db,
            nb.unwrap_or(OsStr::new(".")),
        )
        .map_err(|e| self.host_err(&a.rel, e))
    }

    /// Moves an object (a link as a link) out of the agent's view into `dest` (a path
    /// relative to the state directory). Falls back to copy-and-remove across devices.
    pub fn move_to_state(&self, vpath: &Path, dest: &Path) -> Result<(), FsError> {
        self.move_loc_to_state(&self.locate(vpath)?, dest)
    }

    /// [`Sandbox::move_to_state`] of a location already resolved.
    pub fn move_loc_to_state(&self, loc: &Loc, dest: &Path) -> Result<(), FsError> {
        self.check_movable(loc)?;
        // lstat first: the object must exist as itself (a dangling link is fine).
        self.lstat(loc)?;
        self.stash(loc, dest)
    }

    /// Where an op acts, resolved once: the journal plans on these locations and the
    /// executor acts on them, so that what is journaled is what is changed, even while
    /// another stage of the line renames a directory on the way.
    pub fn targets(&self, op: &Op) -> Targets {
        match op {
            Op::CreateDir { path, .. } | Op::Trash { path } => Targets {
                first: self.locate(path),
                second: None,
            },
            Op::Symlink { path, .. } => Targets {
                first: self.locate_new(path),
                second: None,
            },
            Op::HardLink { from, to } => Targets {
                first: self.locate(from),
                second: Some(self.locate_new(to)),
            },
            Op::WriteFile { path, .. }
            | Op::Touch { path, .. }
            | Op::SetMode { path, .. }
            | Op::Truncate { path, .. } => Targets {
                first: self.resolve_write_target(path),
                second: None,
            },
            Op::Rename { from, to } => Targets {
                first: self.locate(from),
                second: Some(self.locate(to)),
            },
            Op::Copy {
                from,
                to,
                links_as_links,
                ..
            } => match self.copy_targets(from, to, *links_as_links) {
                Ok((src, dst)) => Targets {
                    first: Ok(src),
                    second: Some(dst),
                },
                Err(e) => Targets {
                    first: Err(e),
                    second: None,
                },
            },
        }
    }

    /// Whether a fault-injection test made this file unreadable.
    fn injected_unreadable(&self, loc: &Loc) -> bool {
        matches!(self.guard.fault(), Some(Fault::Unreadable(name))
            if loc.rel.file_name() == Some(name.as_os_str()))
    }

    /// A directory's link count as the agent sees it: the hidden subdirectories it holds
    /// (the state directory at the root, the policy's hidden directories) are not counted.
    fn visible_nlink(&self, loc: &Loc, m: &cap_std::fs::Metadata) -> u64 {
        let mut n = m.nlink();
        if !m.is_dir() {
            return n;
        }
        if loc.is_root() && self.hidden.is_some() {
            n = n.saturating_sub(1);
        }
        if let Some(rules) = self.rules.as_ref().filter(|r| r.has_hidden())
            && let Ok(d) = self.open_dir_at(loc)
            && let Ok(entries) = d.entries()
        {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    let p = if loc.is_root() {
                        PathBuf::from(e.file_name())
                    } else {
                        loc.rel.join(e.file_name())
                    };
                    if rules.is_hidden(&p) {
                        n = n.saturating_sub(1);
                    }
                }
            }
        }
        n
    }

    /// `stat` of a name directly at the root (`None`: a longer path, a link to follow, or a
    /// trailing `/`, which go through [`Sandbox::open_object`]).
    fn stat_at_root(
        &self,
        vpath: &Path,
        follow: bool,
    ) -> Result<Option<(cap_std::fs::Metadata, Loc)>, FsError> {
        let (comps, slash) = self.lexical(vpath)?;
        let [name] = comps.as_slice() else {
            return Ok(None);
        };
        if slash || *name == b".." {
            return Ok(None);
        }
        let phys = self.agent_root_name(name);
        let loc = Loc::physical(PathBuf::from(OsString::from_vec(phys)));
        if self.is_hidden_phys(&loc.rel) {
            return Err(self.refuse(vpath.as_os_str().as_bytes(), "hidden by policy"));
        }
        match self.root.symlink_metadata(&loc.rel) {
            Ok(m) if follow && m.file_type().is_symlink() => Ok(None),
            Ok(m) => Ok(Some((m, loc))),
            Err(e) => Err(self.host_err(vpath, e)),
        }
    }

    /// Opens the directory at a location (not through a final link).
    fn open_dir_at(&self, loc: &Loc) -> Result<Dir, FsError> {
        let (dir, name) = self.at(loc)?;
        match name {
            Some(n) => dir
                .open_dir_nofollow(n)
                .map_err(|e| self.host_err(&loc.rel, e)),
            None => dir.try_clone().map_err(map_err),
        }
    }
}

/// A name no other call in this process or another can produce: time in nanoseconds, a
/// random number drawn once per process (not the process id, which the agent would see in
/// trash ids) and a counter.
pub fn unique_name(prefix: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static NONCE: OnceLock<u64> = OnceLock::new();
    let nonce = NONCE.get_or_init(|| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        h.finish() & 0xffff_ffff_ffff
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    // `{prefix}-{t:020}-{nonce:012x}-{n}`, without the formatter (a name per change).
    let mut out = String::with_capacity(prefix.len() + 48);
    out.push_str(prefix);
    out.push('-');
    let mut digits = itoa::Buffer::new();
    let t = digits.format(t);
    out.extend(std::iter::repeat_n('0', 20usize.saturating_sub(t.len())));
    out.push_str(t);
    out.push('-');
    for shift in (0..12).rev() {
        let d = (nonce >> (shift * 4)) & 0xf;
        out.push(char::from_digit(d as u32, 16).unwrap_or('0'));
    }
    out.push('-');
    out.push_str(itoa::Buffer::new().format(n));
    out
}

/// An open object as a file to read: a regular file, a directory (reading it fails with
/// `EISDIR`, as for GNU), a FIFO or a character device (opened without blocking, read until
/// the deadline at most); a block device — a disk — is not read.
fn readable(fd: std::os::fd::OwnedFd) -> Result<cap_std::fs::File, FsError> {
    let st = rustix::fs::fstat(&fd).map_err(|e| map_err(e.into()))?;
    match rustix::fs::FileType::from_raw_mode(st.st_mode) {
        rustix::fs::FileType::RegularFile
        | rustix::fs::FileType::Directory
        | rustix::fs::FileType::Fifo
        | rustix::fs::FileType::CharacterDevice => {}
        _ => return Err(FsError::NoDevice),
    }
    Ok(cap_std::fs::File::from_std(std::fs::File::from(fd)))
}

/// Where an op acts ([`Sandbox::targets`]): its path (a rename's or a copy's source), and a
/// rename's or a copy's destination. An error is the op's answer.
#[derive(Debug)]
pub struct Targets {
    pub first: Result<Loc, FsError>,
    pub second: Option<Result<Loc, FsError>>,
}

impl Targets {
    /// The op's path, or its error.
    pub fn first(&self) -> Result<&Loc, FsError> {
        self.first.as_ref().map_err(Clone::clone)
    }

    /// The destination, or its error (`InvalidArgument` for an op that has none).
    pub fn second(&self) -> Result<&Loc, FsError> {
        match &self.second {
            Some(r) => r.as_ref().map_err(Clone::clone),
            None => Err(FsError::InvalidArgument),
        }
    }
}

/// The name of the file in a state directory outside the root that binds it to its root.
const ROOT_ID_FILE: &str = "root.json";

/// Where a `--state-dir` is: `None` when it is the root's default `.trash` spelled out (then
/// it is the hidden default); refused when it resolves anywhere else inside the root, where
/// the agent could read and write it. Created when missing.
fn state_dir_outside(root_host: &Path, dir: &Path) -> Result<Option<PathBuf>, SetupError> {
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| SetupError(format!("cannot open state dir {}: {e}", dir.display())))?
            .join(dir)
    };
    let resolved = canonical_prefix(&abs);
    if resolved == root_host.join(STATE_DIR_NAME) {
        return Ok(None);
    }
    if resolved.starts_with(root_host) {
        return Err(SetupError(format!(
            "state dir {} is inside the root {}, where the agent could reach it: choose a directory outside the root (or leave --state-dir out for the hidden default)",
            dir.display(),
            root_host.display()
        )));
    }
    std::fs::create_dir_all(&resolved)
        .map_err(|e| SetupError(format!("cannot create state dir {}: {e}", dir.display())))?;
    Ok(Some(resolved))
}

/// A path with its longest existing prefix resolved (links, `..`) and the rest appended as
/// written, normalized.
fn canonical_prefix(abs: &Path) -> PathBuf {
    let norm = normalize_lexical(abs);
    let mut existing = norm.clone();
    let mut rest: Vec<OsString> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&existing) {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(n), Some(p)) => {
                rest.push(n.to_os_string());
                existing = p.to_path_buf();
            }
            _ => return norm,
        }
    }
}

/// Binds a state directory outside the root to the root: records the root's identity
/// (device, inode, path) the first time, and refuses any other root afterwards, so that
/// one state directory never serves two roots (undo in one applying the other's lines).
fn bind_to_root(
    state: &Dir,
    state_path: &Path,
    root: &Dir,
    root_host: &Path,
) -> Result<(), SetupError> {
    let m = root
        .dir_metadata()
        .map_err(|e| SetupError(format!("cannot open root: {e}")))?;
    let (dev, ino) = (m.dev(), m.ino());
    match state.read_to_string(ROOT_ID_FILE) {
        Ok(text) => {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let same = v.get("dev").and_then(serde_json::Value::as_u64) == Some(dev)
                && v.get("ino").and_then(serde_json::Value::as_u64) == Some(ino);
            if !same {
                let was = v.get("path").and_then(|p| p.as_str()).unwrap_or("?");
                return Err(SetupError(format!(
                    "state dir {} belongs to another root ({was}): give each root its own state dir",
                    state_path.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let id =
                serde_json::json!({"dev": dev, "ino": ino, "path": root_host.to_string_lossy()});
            state
                .write(
                    ROOT_ID_FILE,
                    format!(
                        "{id}
"
                    ),
                )
                .map_err(|e| {
                    SetupError(format!(
                        "cannot write state dir {}: {e}",
                        state_path.display()
                    ))
                })
        }
        Err(e) => Err(SetupError(format!(
            "cannot read state dir {}: {e}",
            state_path.display()
        ))),
    }
}

const MAX_COPY_DEPTH: usize = 4096;

fn copy_tree(src: &Dir, from: &Path, dst: &Dir, to: &Path, depth: usize) -> Result<(), FsError> {
    if depth > MAX_COPY_DEPTH {
        return Err(FsError::TooManyLinks);
    }
    let m = src.symlink_metadata(from).map_err(map_err)?;
    if m.file_type().is_symlink() {
        let target = src.read_link_contents(from).map_err(map_err)?;
        dst.symlink_contents(target, to).map_err(map_err)
    } else if m.is_dir() {
        dst.create_dir(to).map_err(map_err)?;
        for entry in src.read_dir(from).map_err(map_err)? {
            let entry = entry.map_err(map_err)?;
            let name = entry.file_name();
            copy_tree(src, &from.join(&name), dst, &to.join(&name), depth + 1)?;
        }
        Ok(())
    } else {
        let mut r = src.open(from).map_err(map_err)?;
        let mut w = dst.create(to).map_err(map_err)?;
        io::copy(&mut r, &mut w).map_err(map_err)?;
        Ok(())
    }
}

fn remove_tree(dir: &Dir, path: &Path, depth: usize) -> Result<(), FsError> {
    if depth > MAX_COPY_DEPTH {
        return Err(FsError::TooManyLinks);
    }
    let m = dir.symlink_metadata(path).map_err(map_err)?;
    if m.is_dir() {
        for entry in dir.read_dir(path).map_err(map_err)? {
            let entry = entry.map_err(map_err)?;
            remove_tree(dir, &path.join(entry.file_name()), depth + 1)?;
        }
        dir.remove_dir(path).map_err(map_err)
    } else {
        dir.remove_file_or_symlink(path).map_err(map_err)
    }
}

/// [`FsError::from_io`] (the one mapping, refusals as `ENOENT`), by value for `map_err`.
#[allow(clippy::needless_pass_by_value)] // used as `.map_err(map_err)`
pub fn map_err(e: io::Error) -> FsError {
    FsError::from_io(&e)
}

fn to_system_time(secs: i64, nsec: i64) -> SystemTime {
    let nsec = u32::try_from(nsec.clamp(0, 999_999_999)).unwrap_or(0);
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs.unsigned_abs(), nsec)
    } else {
        UNIX_EPOCH - Duration::new(secs.unsigned_abs(), 0) + Duration::new(0, nsec)
    }
}

fn meta_of(m: &cap_std::fs::Metadata) -> Meta {
    use cap_std::fs::FileTypeExt as _;
    let ft = m.file_type();
    let kind = if ft.is_symlink() {
        FileKind::Symlink
    } else if ft.is_dir() {
        FileKind::Dir
    } else if ft.is_file() {
        FileKind::File
    } else if ft.is_fifo() {
        FileKind::Fifo
    } else if ft.is_char_device() {
        FileKind::CharDevice(trumansh_commands::DevNum::from_rdev(m.rdev()))
    } else if ft.is_block_device() {
        FileKind::BlockDevice(trumansh_commands::DevNum::from_rdev(m.rdev()))
    } else {
        FileKind::Socket
    };
    Meta {
        kind,
        len: m.len(),
        perm: m.mode() & 0o7777,
        nlink: m.nlink(),
        ino: m.ino(),
        dev: m.dev(),
        blocks: m.blocks(),
        atime: to_system_time(m.atime(), m.atime_nsec()),
        mtime: to_system_time(m.mtime(), m.mtime_nsec()),
        ctime: to_system_time(m.ctime(), m.ctime_nsec()),
    }
}

/// `/dev/null` is the one device path the view shows (an empty character device).
fn is_dev_null(vpath: &Path) -> bool {
    vpath == Path::new("/dev/null")
}

fn dev_null_meta() -> Meta {
    Meta {
        kind: FileKind::CharDevice(trumansh_commands::DevNum { major: 1, minor: 3 }),
        len: 0,
        perm: 0o666,
        nlink: 1,
        ino: 5,
        dev: 5,
        blocks: 0,
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
    }
}

/// A reader that stops with `EFBIG` once the cap is passed.
struct CappedReader<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for CappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(io::Error::from(io::ErrorKind::FileTooLarge));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

impl FsView for Sandbox {
    fn stat(&self, path: &Path, follow: bool) -> Result<Meta, FsError> {
        if is_dev_null(path) && self.locate(path).is_err() {
            return Ok(dev_null_meta());
        }
        // A name at the root: one `fstatat` of it, with no directory on the way to resolve.
        if let Some((m, loc)) = self.stat_at_root(path, follow)? {
            let mut meta = meta_of(&m);
            meta.nlink = self.visible_nlink(&loc, &m);
            return Ok(meta);
        }
        let (fd, loc) = self.open_object(path, follow, OFlags::PATH)?;
        let m = cap_std::fs::File::from_std(std::fs::File::from(fd))
            .metadata()
            .map_err(map_err)?;
        let mut meta = meta_of(&m);
        meta.nlink = self.visible_nlink(&loc, &m);
        Ok(meta)
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        let (fd, loc) = self.open_object(path, true, OFlags::RDONLY | OFlags::DIRECTORY)?;
        let dir = Dir::from_std_file(std::fs::File::from(fd));
        let at_root = loc.is_root();
        let hidden_rules = self.rules.as_ref().filter(|r| r.has_hidden());
        let mut out = Vec::new();
        for entry in dir.entries().map_err(|e| self.host_err(path, e))? {
            self.guard.check()?;
            let entry = entry.map_err(map_err)?;
            let phys_name = entry.file_name();
            if let Some(rules) = hidden_rules {
                let p = if at_root {
                    PathBuf::from(&phys_name)
                } else {
                    loc.rel.join(&phys_name)
                };
                if rules.is_hidden(&p) {
                    continue;
                }
            }
            let name = if at_root {
                match self.root_name_for_agent(&phys_name) {
                    Some(n) => n,
                    None => continue, // the state directory
                }
            } else {
                phys_name
            };
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => FileKind::Symlink,
                Ok(t) if t.is_dir() => FileKind::Dir,
                Ok(t) if t.is_file() => FileKind::File,
                // A fifo, socket or device: its kind (and a device's number) from `lstat`.
                _ => match entry.metadata() {
                    Ok(m) => meta_of(&m).kind,
                    Err(_) => continue, // gone since the listing
                },
            };
            out.push(DirEntry { name, kind });
        }
        if let Some(Fault::VanishOnList(gone)) = self.guard.fault()
            && out.iter().any(|e| e.name == gone)
        {
            // Someone else removes the file between the listing and its use.
            let _ = dir.remove_file(&gone);
        }
        Ok(out)
    }

    fn open(&self, path: &Path) -> Result<Box<dyn ReadSeek + '_>, FsError> {
        if is_dev_null(path) && self.locate(path).is_err() {
            return Ok(Box::new(io::empty()));
        }
        Ok(Box::new(DeadlineReader {
            inner: self.open_file(path)?,
            guard: &self.guard,
        }))
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, FsError> {
        let reader = self.open(path)?;
        let mut capped = CappedReader {
            inner: reader,
            left: self.read_cap,
        };
        let mut buf = Vec::new();
        capped.read_to_end(&mut buf).map_err(|e| {
            let err = map_err(e);
            if err == FsError::TooLarge {
                self.audit.event(
                    "limit",
                    crate::audit::fields([
                        ("limit", "read_bytes".into()),
                        ("value", self.read_cap.into()),
                        ("path", crate::audit::text(path.as_os_str().as_bytes())),
                    ]),
                );
            }
            err
        })?;
        Ok(buf)
    }

    fn read_link(&self, path: &Path) -> Result<PathBuf, FsError> {
        let loc = self.locate(path)?;
        let (dir, name) = self.at(&loc)?;
        match name {
            // A relative text as stored; an absolute one only when the link resolves inside
            // (an agent's `ln -s "$PWD/a" l`): the text of a link out may be a host path,
            // which the agent never sees (design decision 4).
            Some(n) => match dir.read_link(n) {
                Err(_) if self.stat(path, true).is_ok() => {
                    dir.read_link_contents(n).map_err(map_err)
                }
                r => r.map_err(map_err),
            },
            None => Err(FsError::InvalidArgument),
        }
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError> {
        // The object must exist (`realpath -e`).
        let (_, loc) = self.open_object(path, true, OFlags::PATH)?;
        Ok(self.virtual_of(&loc.rel))
    }
}

// What undo checks before each inverse (issue 11), defined beside the operations that
// compute them.
pub use undo_ops::{Blocked, Fingerprint, USAGE_FILE};

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn open(root: &Path, mount: Option<&str>) -> Sandbox {
        let mut cfg = SandboxConfig::new(root);
        cfg.mount_point = mount.map(PathBuf::from);
        Sandbox::open(&cfg).unwrap()
    }

    fn rel(sb: &Sandbox, p: &str) -> Result<String, FsError> {
        sb.locate(Path::new(p))
            .map(|l| l.rel.to_string_lossy().into_owned())
    }

    fn tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("dir")).unwrap();
        std::fs::write(t.path().join("a"), b"a").unwrap();
        std::os::unix::fs::symlink(".", t.path().join("rootlink")).unwrap();
        t
    }

    #[test]
    fn locate_with_the_real_path_as_mount() {
        let t = tree();
        let sb = open(t.path(), None);
        let m = sb.mount_point().to_str().unwrap().to_string();
        assert_eq!(Path::new(&m), std::fs::canonicalize(t.path()).unwrap());
        assert_eq!(rel(&sb, &m), Ok(".".into()));
        assert_eq!(rel(&sb, &format!("{m}/")), Ok(".".into()));
        assert_eq!(rel(&sb, &format!("{m}/.")), Ok(".".into()));
        assert_eq!(rel(&sb, &format!("{m}/a")), Ok("a".into()));
        assert_eq!(rel(&sb, &format!("{m}//a")), Ok("a".into()));
        assert_eq!(rel(&sb, &format!("{m}/./a")), Ok("a".into()));
        // A trailing slash names a directory: `file/` is ENOTDIR.
        assert_eq!(rel(&sb, &format!("{m}/dir/")), Ok("dir".into()));
        assert_eq!(rel(&sb, &format!("{m}/a/")), Err(FsError::NotADirectory));
        // `..` is physical: after a link, the directory the link leads to.
        assert_eq!(rel(&sb, &format!("{m}/dir/../a")), Ok("a".into()));
        assert_eq!(rel(&sb, &format!("{m}/rootlink/dir/../a")), Ok("a".into()));
        assert_eq!(
            rel(&sb, &format!("{m}/rootlink/rootlink/a")),
            Ok("a".into())
        );
        // `..` at the mount point: missing.
        assert_eq!(rel(&sb, &format!("{m}/..")), Err(FsError::NotFound));
        assert_eq!(rel(&sb, &format!("{m}/../")), Err(FsError::NotFound));
        assert_eq!(rel(&sb, &format!("{m}/./..")), Err(FsError::NotFound));
        // Ancestors of the mount point and siblings with the same prefix: missing.
        assert_eq!(rel(&sb, "/"), Err(FsError::NotFound));
        let parent = Path::new(&m)
            .parent()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(rel(&sb, &parent), Err(FsError::NotFound));
        assert_eq!(rel(&sb, &format!("{m}2")), Err(FsError::NotFound));
        assert_eq!(rel(&sb, &format!("{m}2/a")), Err(FsError::NotFound));
        // Going up and back down lexically *before* the mount point is fine.
        let name = Path::new(&m)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(
            rel(
                &sb,
                &format!(
                    "{parent}/../{}/{name}/a",
                    Path::new(&parent).file_name().unwrap().to_str().unwrap()
                )
            ),
            Ok("a".into())
        );
        // Relative paths and NUL never resolve.
        assert_eq!(rel(&sb, "a"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, ""), Err(FsError::NotFound));
        assert_eq!(rel(&sb, &format!("{m}/a\0b")), Err(FsError::NotFound));
        // Name length.
        assert!(rel(&sb, &format!("{m}/{}", "n".repeat(255))).is_ok());
        assert_eq!(
            rel(&sb, &format!("{m}/{}", "n".repeat(256))),
            Err(FsError::NameTooLong)
        );
    }

    #[test]
    fn locate_keeps_the_state_dir_out_of_the_agents_names() {
        let t = tree();
        let sb = open(t.path(), None);
        let m = sb.mount_point().to_str().unwrap().to_string();
        // The agent's `.trash` at the root, by any spelling, is stored as `.trash~`.
        for p in [
            ".trash",
            "./.trash",
            "dir/../.trash",
            "rootlink/.trash",
            "rootlink/rootlink/.trash",
            "rootlink/dir/../.trash",
        ] {
            assert_eq!(rel(&sb, &format!("{m}/{p}")), Ok(".trash~".into()), "{p}");
        }
        assert_eq!(rel(&sb, &format!("{m}/.trash~")), Ok(".trash~~".into()));
        // Inside it: missing like inside any missing directory.
        for p in [".trash/x", "rootlink/.trash/x", "dir/../.trash/x"] {
            assert_eq!(rel(&sb, &format!("{m}/{p}")), Err(FsError::NotFound), "{p}");
        }
        // A link whose target names the state directory leads nowhere.
        std::os::unix::fs::symlink(".trash", t.path().join("in")).unwrap();
        assert_eq!(rel(&sb, &format!("{m}/in/x")), Err(FsError::NotFound));
        assert!(sb.resolve(Path::new(&format!("{m}/in")), true).is_err());
        // The name is only special at the root.
        assert_eq!(
            rel(&sb, &format!("{m}/dir/.trash")),
            Ok("dir/.trash".into())
        );
        assert_eq!(rel(&sb, &format!("{m}/.trashx")), Ok(".trashx".into()));
        // With the state dir elsewhere, `.trash` is an ordinary name.
        let state = tempfile::tempdir().unwrap();
        let mut cfg = SandboxConfig::new(t.path());
        cfg.state_dir = Some(state.path().join("s"));
        let sb = Sandbox::open(&cfg).unwrap();
        assert_eq!(rel(&sb, &format!("{m}/.trash")), Ok(".trash".into()));
    }

    #[test]
    fn locate_with_mount_slash() {
        let t = tree();
        let sb = open(t.path(), Some("/"));
        assert_eq!(rel(&sb, "/"), Ok(".".into()));
        assert_eq!(rel(&sb, "/.."), Ok(".".into()));
        assert_eq!(rel(&sb, "/../.."), Ok(".".into()));
        assert_eq!(rel(&sb, "/../a"), Ok("a".into()));
        assert_eq!(rel(&sb, "/dir/"), Ok("dir".into()));
        assert_eq!(rel(&sb, "/dir/../a"), Ok("a".into()));
        assert_eq!(rel(&sb, "/dir/../../a"), Ok("a".into()));
        assert_eq!(rel(&sb, "/.trash"), Ok(".trash~".into()));
        assert_eq!(rel(&sb, "/../.trash/x"), Err(FsError::NotFound));
    }

    #[test]
    fn locate_with_mount_home_user() {
        let t = tree();
        let sb = open(t.path(), Some("/home/user/"));
        assert_eq!(sb.mount_point(), Path::new("/home/user"));
        assert_eq!(rel(&sb, "/home/user"), Ok(".".into()));
        assert_eq!(rel(&sb, "/home/user/"), Ok(".".into()));
        assert_eq!(rel(&sb, "/home/user/a"), Ok("a".into()));
        assert_eq!(rel(&sb, "/home/../home/user/a"), Ok("a".into()));
        assert_eq!(rel(&sb, "/home/user/.."), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/home/user/../user/a"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/home"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/home/user2"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/home/use"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/etc/passwd"), Err(FsError::NotFound));
        assert_eq!(rel(&sb, "/home/user/.trash"), Ok(".trash~".into()));
        assert!(
            Sandbox::open(&{
                let mut c = SandboxConfig::new(t.path());
                c.mount_point = Some(PathBuf::from("relative"));
                c
            })
            .is_err()
        );
    }
}
