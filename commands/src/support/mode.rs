//! File mode strings as GNU parses them (gnulib `modechange`): octal (`755`) or symbolic
//! (`u=rwx,go=rx`, `a+w`, `+t`, `g=u`, `=644`), and how a parsed mode changes a file's bits
//! (`mode_adjust`), for `mkdir -m` and `chmod`; plus the nine letters of `ls -l` and `chmod -v`
//! (gnulib `strmode`).

/// The session's umask: trumansh has no `umask` builtin, so it is the usual 022.
pub const UMASK: u32 = 0o022;

const SUID: u32 = 0o4000;
const SGID: u32 = 0o2000;
const SVTX: u32 = 0o1000;
/// `CHMOD_MODE_BITS`: every bit chmod can set.
const ALL: u32 = 0o7777;
const RWX_ALL: u32 = 0o777;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ordinary,
    /// `X`: execute if a directory or already executable by someone.
    XIfAnyX,
    /// `g=u` and friends: copy existing bits.
    Copy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    op: u8,
    kind: Kind,
    /// Bits the who part names; 0 when it is empty (then the umask filters the value and `=`
    /// clears every bit).
    affected: u32,
    /// Bits mentioned explicitly: a directory's set-user-ID and set-group-ID bits not among
    /// them are left as they are.
    mentioned: u32,
    value: u32,
}

/// A parsed mode: a list of changes (an octal mode is one `=` change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mode {
    changes: Vec<Change>,
}

/// Reads an octal number at `p` (at least one digit there); `None` past 07777, as gnulib.
fn octal(at: &dyn Fn(usize) -> u8, p: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    while (b'0'..=b'7').contains(&at(*p)) {
        v = 8 * v + u32::from(at(*p) - b'0');
        if v > ALL {
            return None;
        }
        *p += 1;
    }
    Some(v)
}

impl Mode {
    /// Parses a mode string as gnulib's `mode_compile`; `None` when GNU says `invalid mode`.
    pub fn parse(s: &str) -> Option<Mode> {
        let b = s.as_bytes();
        // The C string: a NUL past the end.
        let at = |i: usize| b.get(i).copied().unwrap_or(0);
        if (b'0'..=b'7').contains(&at(0)) {
            let mut p = 0;
            let mode = octal(&at, &mut p)?;
            if p < b.len() {
                return None;
            }
            // Fewer than five digits leave a directory's set-ID bits alone unless they are set.
            let mentioned = if p < 5 {
                (mode & (SUID | SGID)) | SVTX | RWX_ALL
            } else {
                ALL
            };
            return Some(Mode::equals(mode, mentioned));
        }
        let mut changes = Vec::new();
        let mut p = 0;
        loop {
            let mut affected = 0;
            loop {
                match at(p) {
                    b'u' => affected |= SUID | 0o700,
                    b'g' => affected |= SGID | 0o070,
                    b'o' => affected |= SVTX | 0o007,
                    b'a' => affected |= ALL,
                    b'=' | b'+' | b'-' => break,
                    _ => return None,
                }
                p += 1;
            }
            loop {
                let op = at(p);
                p += 1;
                let mut mentioned = 0;
                let mut kind = Kind::Copy;
                let mut value = 0;
                match at(p) {
                    b'0'..=b'7' => {
                        value = octal(&at, &mut p)?;
                        if affected != 0 || !matches!(at(p), 0 | b',') {
                            return None;
                        }
                        affected = ALL;
                        mentioned = ALL;
                        kind = Kind::Ordinary;
                    }
                    b'u' => (value, p) = (0o700, p + 1),
                    b'g' => (value, p) = (0o070, p + 1),
                    b'o' => (value, p) = (0o007, p + 1),
                    _ => {
                        kind = Kind::Ordinary;
                        loop {
                            match at(p) {
                                b'r' => value |= 0o444,
                                b'w' => value |= 0o222,
                                b'x' => value |= 0o111,
                                b'X' => kind = Kind::XIfAnyX,
                                b's' => value |= SUID | SGID,
                                b't' => value |= SVTX,
                                _ => break,
                            }
                            p += 1;
                        }
                    }
                }
                let mentioned = if mentioned != 0 {
                    mentioned
                } else if affected != 0 {
                    affected & value
                } else {
                    value
                };
                changes.push(Change {
                    op,
                    kind,
                    affected,
                    mentioned,
                    value,
                });
                if !matches!(at(p), b'=' | b'+' | b'-') {
                    break;
                }
            }
            if at(p) != b',' {
                break;
            }
            p += 1;
        }
        (p >= b.len()).then_some(Mode { changes })
    }

    /// `chmod --reference`: the mode of the reference file, every bit set as it is there.
    pub fn reference(perm: u32) -> Mode {
        Mode::equals(perm & ALL, ALL)
    }

    fn equals(value: u32, mentioned: u32) -> Mode {
        Mode {
            changes: vec![Change {
                op: b'=',
                kind: Kind::Ordinary,
                affected: ALL,
                mentioned,
                value,
            }],
        }
    }

    /// The mode that results from applying this one to `old` under the session's umask.
    pub fn apply(&self, old: u32, is_dir: bool) -> u32 {
        self.adjust(old, is_dir, UMASK)
    }

    /// gnulib's `mode_adjust`: the bits of `old` (a directory's when `is_dir`) changed by
    /// this mode, with `umask` filtering the changes whose who part is empty.
    pub fn adjust(&self, old: u32, is_dir: bool, umask: u32) -> u32 {
        let mut new = old & ALL;
        for c in &self.changes {
            let omit = if is_dir {
                (SUID | SGID) & !c.mentioned
            } else {
                0
            };
            let mut value = c.value;
            match c.kind {
                Kind::Ordinary => {}
                Kind::XIfAnyX => {
                    if new & 0o111 != 0 || is_dir {
                        value |= 0o111;
                    }
                }
                Kind::Copy => {
                    value &= new;
                    let spread = |mask: u32| if value & mask != 0 { mask } else { 0 };
                    value |= spread(0o444) | spread(0o222) | spread(0o111);
                }
            }
            value &= (if c.affected == 0 { !umask } else { c.affected }) & !omit;
            match c.op {
                b'=' => {
                    let preserved = (if c.affected == 0 { 0 } else { !c.affected }) | omit;
                    new = (new & preserved) | value;
                }
                b'+' => new |= value,
                _ => new &= !value,
            }
        }
        new & ALL
    }
}

/// The nine permission letters of `ls -l` (gnulib `strmode` without the type letter):
/// `rwxr-xr-x`, with `s`/`S` and `t`/`T` for the set-ID and sticky bits.
pub fn perm_string(perm: u32) -> String {
    let bit = |mask: u32, c: char| if perm & mask != 0 { c } else { '-' };
    let special = |x: u32, sp: u32, on: char, off: char| match (perm & x != 0, perm & sp != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => 'x',
        (false, false) => '-',
    };
    [
        bit(0o400, 'r'),
        bit(0o200, 'w'),
        special(0o100, SUID, 's', 'S'),
        bit(0o040, 'r'),
        bit(0o020, 'w'),
        special(0o010, SGID, 's', 'S'),
        bit(0o004, 'r'),
        bit(0o002, 'w'),
        special(0o001, SVTX, 't', 'T'),
    ]
    .iter()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mk(s: &str) -> Option<u32> {
        Mode::parse(s).map(|m| m.apply(0o777, true))
    }

    /// `chmod MODE` on a file (`dir` false) or a directory of mode `old`, umask 022.
    fn ch(s: &str, old: u32, dir: bool) -> Option<u32> {
        Mode::parse(s).map(|m| m.apply(old, dir))
    }

    #[test]
    fn octal_and_symbolic_as_gnu_mkdir() {
        // Each checked with GNU mkdir 9.1 -m MODE under umask 022, `stat -c %a`.
        assert_eq!(mk("755"), Some(0o755));
        assert_eq!(mk("u=rwx,go=rx,+t"), Some(0o1755));
        assert_eq!(mk("a-w"), Some(0o555));
        assert_eq!(mk("go-w"), Some(0o755));
        assert_eq!(mk("=r"), Some(0o444));
        assert_eq!(mk("g=u"), Some(0o777));
        assert_eq!(mk("o="), Some(0o770));
        assert_eq!(mk("-w"), Some(0o577));
        assert_eq!(mk("+w"), Some(0o777));
        assert_eq!(mk("u+s,g-x"), Some(0o4767));
        assert_eq!(mk("999"), None);
        assert_eq!(mk("x"), None);
        assert_eq!(mk("u"), None);
        assert_eq!(mk(""), None);
    }

    #[test]
    fn as_gnu_chmod() {
        // Each checked with GNU chmod 9.1 under umask 022 (`stat -c %a` after it).
        assert_eq!(ch("+x", 0o644, false), Some(0o755));
        assert_eq!(ch("+w", 0o444, false), Some(0o644));
        assert_eq!(ch("-w", 0o666, false), Some(0o466));
        assert_eq!(ch("a-w", 0o666, false), Some(0o444));
        assert_eq!(ch("a+X", 0o600, false), Some(0o600));
        assert_eq!(ch("a+X", 0o700, false), Some(0o711));
        assert_eq!(ch("a+X", 0o700, true), Some(0o711));
        assert_eq!(ch("u=g,o=u", 0o640, false), Some(0o444));
        assert_eq!(ch("=644", 0o4755, false), Some(0o644));
        assert_eq!(ch("+644", 0o600, false), Some(0o644));
        assert_eq!(ch("-022", 0o777, false), Some(0o755));
        assert_eq!(ch("7777", 0o644, false), Some(0o7777));
        // A directory keeps its set-ID bits through short octal modes and `u=`/`g=`.
        assert_eq!(ch("755", 0o2755, true), Some(0o2755));
        assert_eq!(ch("0755", 0o2700, true), Some(0o2755));
        assert_eq!(ch("00755", 0o2755, true), Some(0o755));
        assert_eq!(ch("u=rwx", 0o4755, true), Some(0o4755));
        assert_eq!(ch("=755", 0o4755, true), Some(0o755));
        assert_eq!(ch("755", 0o2755, false), Some(0o755));
        assert_eq!(ch("g-s", 0o2755, true), Some(0o755));
        // Invalid: a who before an octal, anything after it, an empty clause.
        for bad in [
            "a=755", "755,u+w", "u+x,", ",u+x", "u+rwxu", "u+ug", "17777", "8", "=8",
        ] {
            assert_eq!(Mode::parse(bad), None, "{bad}");
        }
        assert!(Mode::parse("u+x,g-w=r+s").is_some());
    }

    #[test]
    fn reference_and_letters() {
        assert_eq!(Mode::reference(0o2750).apply(0o4777, true), 0o2750);
        assert_eq!(perm_string(0o755), "rwxr-xr-x");
        assert_eq!(perm_string(0o7777), "rwsrwsrwt");
        assert_eq!(perm_string(0o7000), "--S--S--T");
        assert_eq!(perm_string(0), "---------");
    }
}
