//! Archivers and compressors: GNU tar 1.34 and gzip 1.12. Archives are read through the view
//! and written as effects; extraction only ever asks for `CreateDir`, `WriteFile`, `Symlink`,
//! `HardLink`, `SetMode`, `Touch` and `Trash`, under names it has made safe first.
//! Decompression is bounded: one member or file stops at [`MEMBER_CAP`], one command at
//! [`TOTAL_CAP`], with one line naming the quota.

use std::io::{self, Read};

pub mod gzip;
pub mod tar;

/// The most one member (or one decompressed file) may hold: the session's read cap.
pub const MEMBER_CAP: u64 = 256 * 1024 * 1024;
/// The most one command may unpack in all.
pub const TOTAL_CAP: u64 = 1024 * 1024 * 1024;

/// The magic bytes a gzip stream starts with.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Reads at most `cap` bytes of `r` into a vector. `Ok(None)`: there was more (a bomb).
pub fn read_capped(r: &mut dyn Read, cap: u64) -> io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    r.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        return Ok(None);
    }
    Ok(Some(buf))
}

/// The `rwxrwxrwx` part of a mode string, with setuid, setgid and sticky as `ls` shows them.
pub fn perm_string(perm: u32) -> String {
    let mut s = String::with_capacity(9);
    let bit = |b: u32, c: char| if perm & b != 0 { c } else { '-' };
    for (r, w, x, special, on, off) in [
        (0o400, 0o200, 0o100, 0o4000, 's', 'S'),
        (0o040, 0o020, 0o010, 0o2000, 's', 'S'),
        (0o004, 0o002, 0o001, 0o1000, 't', 'T'),
    ] {
        s.push(bit(r, 'r'));
        s.push(bit(w, 'w'));
        s.push(match (perm & x != 0, perm & special != 0) {
            (true, true) => on,
            (false, true) => off,
            (true, false) => 'x',
            (false, false) => '-',
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perms() {
        assert_eq!(perm_string(0o644), "rw-r--r--");
        assert_eq!(perm_string(0o4755), "rwsr-xr-x");
        assert_eq!(perm_string(0o1777), "rwxrwxrwt");
        assert_eq!(perm_string(0o2640), "rw-r-S---");
    }

    #[test]
    fn capped() {
        let mut r: &[u8] = b"12345";
        assert_eq!(
            read_capped(&mut r, 5).ok().flatten(),
            Some(b"12345".to_vec())
        );
        let mut r: &[u8] = b"123456";
        assert_eq!(read_capped(&mut r, 5).ok().flatten(), None);
    }
}
