//! The read-only view of the sandbox that handlers see.
//!
//! Every path given to an [`FsView`] is a *virtual absolute path*: the path as the agent sees
//! it, already joined with the virtual cwd (see [`crate::Ctx::resolve`]) but not normalised,
//! so that `..` after a symlink is resolved physically, as the kernel would. The runtime's
//! implementation answers [`FsError::NotFound`] for anything outside the sandbox, hidden, or
//! behind a link that leads out — a handler cannot tell those apart from a missing file, which
//! is the point.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What kind of object a path names (after following links, for [`FsView::stat`]): the
/// seven types of `st_mode`. Opening one never blocks: a fifo is read without waiting for a
/// writer (empty without one; with a silent one, until the line's deadline); a socket or a
/// device is not read ([`FsError::NoDevice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    File,
    Dir,
    Symlink,
    /// A named pipe (`mkfifo`).
    Fifo,
    /// A unix-domain socket.
    Socket,
    /// A character device, with its number (`st_rdev`).
    CharDevice(DevNum),
    /// A block device, with its number (`st_rdev`).
    BlockDevice(DevNum),
}

/// A device's number (`st_rdev`), as `major(3)` and `minor(3)` split it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DevNum {
    pub major: u32,
    pub minor: u32,
}

impl DevNum {
    /// glibc's `gnu_dev_major`/`gnu_dev_minor` split of an `st_rdev`.
    pub fn from_rdev(rdev: u64) -> DevNum {
        // The casts truncate to 32 bits, as glibc's `(unsigned int)` do.
        let (high, mid) = ((rdev >> 32) as u32, (rdev >> 12) as u32);
        let (major, minor) = (((rdev >> 8) & 0xfff) as u32, (rdev & 0xff) as u32);
        DevNum {
            major: major | (high & !0xfff),
            minor: minor | (mid & !0xff),
        }
    }
}

impl FileKind {
    /// A fifo, socket or device: neither a regular file, a directory nor a link.
    pub fn is_special(self) -> bool {
        !matches!(self, FileKind::File | FileKind::Dir | FileKind::Symlink)
    }

    /// The letter of `ls -l`'s mode string, of `find -type` and `%y`.
    pub fn letter(self) -> char {
        match self {
            FileKind::File => '-',
            FileKind::Dir => 'd',
            FileKind::Symlink => 'l',
            FileKind::Fifo => 'p',
            FileKind::Socket => 's',
            FileKind::CharDevice(_) => 'c',
            FileKind::BlockDevice(_) => 'b',
        }
    }
}

/// The metadata handlers may use; a subset of `struct stat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub kind: FileKind,
    pub len: u64,
    /// Permission bits, including setuid/setgid/sticky (`st_mode & 0o7777`).
    pub perm: u32,
    pub nlink: u64,
    pub ino: u64,
    pub dev: u64,
    /// 512-byte blocks allocated, as `st_blocks`.
    pub blocks: u64,
    pub atime: SystemTime,
    pub mtime: SystemTime,
    pub ctime: SystemTime,
}

impl Meta {
    pub fn is_dir(&self) -> bool {
        self.kind == FileKind::Dir
    }
    pub fn is_file(&self) -> bool {
        self.kind == FileKind::File
    }
    pub fn is_symlink(&self) -> bool {
        self.kind == FileKind::Symlink
    }
}

/// One entry of a directory listing, in the order the filesystem returned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name (one path component, never `.` or `..`).
    pub name: std::ffi::OsString,
    /// The entry's own kind (links are not followed).
    pub kind: FileKind,
}

/// The errors a view can give, each one errno. `strerror` gives GNU's text in the C locale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsError {
    /// ENOENT — also what every outside, hidden or escaping path gives.
    NotFound,
    /// ENOTDIR
    NotADirectory,
    /// EISDIR
    IsADirectory,
    /// EEXIST
    AlreadyExists,
    /// ENOTEMPTY
    NotEmpty,
    /// ELOOP
    TooManyLinks,
    /// ENAMETOOLONG
    NameTooLong,
    /// EINVAL
    InvalidArgument,
    /// EROFS (policy: read-only paths)
    ReadOnly,
    /// ENOSPC: the host's disk is full.
    NoSpace,
    /// EDQUOT: the sandbox's write or file-count quota.
    QuotaExceeded,
    /// ETIME: the line's deadline passed (its output is dropped; the shell reports it once).
    TimedOut,
    /// EFBIG: a read cap was hit.
    TooLarge,
    /// ENXIO: a FIFO with no reader, a socket or a device the sandbox does not read.
    NoDevice,
    /// EAGAIN: a FIFO with nothing to read yet (it would wait for a writer).
    WouldBlock,
    /// EIO, or anything else that has no better name.
    Io,
}

impl FsError {
    /// GNU/glibc's message for this errno in the C locale.
    pub fn strerror(&self) -> &'static str {
        match self {
            FsError::NotFound => "No such file or directory",
            FsError::NotADirectory => "Not a directory",
            FsError::IsADirectory => "Is a directory",
            FsError::AlreadyExists => "File exists",
            FsError::NotEmpty => "Directory not empty",
            FsError::TooManyLinks => "Too many levels of symbolic links",
            FsError::NameTooLong => "File name too long",
            FsError::InvalidArgument => "Invalid argument",
            FsError::ReadOnly => "Read-only file system",
            FsError::NoSpace => "No space left on device",
            FsError::QuotaExceeded => "Disk quota exceeded",
            FsError::TimedOut => "Timer expired",
            FsError::TooLarge => "File too large",
            FsError::NoDevice => "No such device or address",
            FsError::WouldBlock => "Resource temporarily unavailable",
            FsError::Io => "Input/output error",
        }
    }
}

impl FsError {
    /// The one mapping from an `io::Error` to the errno a command shows: the sandbox's
    /// syscalls and a [`ReadSeek`]'s reads both go through it. A refusal (`EPERM`, `EACCES`,
    /// `EXDEV`: what the kernel answers to a resolution that would leave the root) is
    /// `ENOENT`, so a path that leads out answers like a missing one (the 404 principle); an
    /// error without an errno (a pipe, the deadline's reader) is mapped by its kind.
    pub fn from_io(e: &std::io::Error) -> FsError {
        use std::io::ErrorKind;
        match e.raw_os_error() {
            Some(2 | 1 | 13 | 18) => FsError::NotFound, // ENOENT, EPERM, EACCES, EXDEV
            Some(20) => FsError::NotADirectory,
            Some(21) => FsError::IsADirectory,
            Some(17) => FsError::AlreadyExists,
            Some(39) => FsError::NotEmpty,
            Some(40) => FsError::TooManyLinks,
            Some(36) => FsError::NameTooLong,
            Some(22) => FsError::InvalidArgument,
            Some(30) => FsError::ReadOnly,
            Some(28) => FsError::NoSpace,
            Some(122) => FsError::QuotaExceeded,
            Some(62) => FsError::TimedOut,
            Some(27) => FsError::TooLarge,
            Some(6) => FsError::NoDevice,
            Some(11) => FsError::WouldBlock,
            Some(_) => FsError::Io,
            None => match e.kind() {
                ErrorKind::NotFound | ErrorKind::PermissionDenied => FsError::NotFound,
                ErrorKind::AlreadyExists => FsError::AlreadyExists,
                ErrorKind::IsADirectory => FsError::IsADirectory,
                ErrorKind::NotADirectory => FsError::NotADirectory,
                ErrorKind::FileTooLarge => FsError::TooLarge,
                ErrorKind::QuotaExceeded => FsError::QuotaExceeded,
                ErrorKind::StorageFull => FsError::NoSpace,
                ErrorKind::TimedOut => FsError::TimedOut,
                ErrorKind::WouldBlock => FsError::WouldBlock,
                _ => FsError::Io,
            },
        }
    }
}

impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.strerror())
    }
}

/// An open file: read it in order, or seek (`tail` reads from the end of a large file).
pub trait ReadSeek: Read + Seek {}

impl<T: Read + Seek> ReadSeek for T {}

/// A read-only, contained view of the sandbox.
pub trait FsView {
    /// `stat` (`follow = true`) or `lstat` (`follow = false`).
    fn stat(&self, path: &Path, follow: bool) -> Result<Meta, FsError>;
    /// The entries of a directory (following links to it), without `.` and `..`, in the
    /// order the filesystem returns them (GNU `find` does not sort; `ls` sorts itself).
    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError>;
    /// Opens a file for streaming reads (following links). Directories give `IsADirectory`
    /// when read, as `read(2)` does.
    fn open(&self, path: &Path) -> Result<Box<dyn ReadSeek + '_>, FsError>;
    /// The whole content of a file, up to the session's read cap (`TooLarge` beyond it).
    fn read(&self, path: &Path) -> Result<Vec<u8>, FsError> {
        let mut buf = Vec::new();
        self.open(path)?
            .read_to_end(&mut buf)
            .map_err(|e| FsError::from_io(&e))?;
        Ok(buf)
    }
    /// The target of a symbolic link, as stored in the link (`readlink(2)`).
    fn read_link(&self, path: &Path) -> Result<PathBuf, FsError>;
    /// The physical virtual path of an existing object: links and `..` resolved, as
    /// `realpath(3)` in the agent's view (used by `pwd -P` and `cd -P`).
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError>;
}
