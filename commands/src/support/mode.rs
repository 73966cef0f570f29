//! File mode strings as GNU parses them (gnulib `modechange`): octal (`755`) or symbolic
//! (`u=rwx,go=rx`, `a+w`, `+t`, `g=u`). Shared by `mkdir -m` and, later, `chmod`.

/// The session's umask: trumansh has no `umask` builtin, so it is the usual 022.
pub const UMASK: u32 = 0o022;

const SUID: u32 = 0o4000;
const SGID: u32 = 0o2000;
const SVTX: u32 = 0o1000;
const ALL: u32 = 0o7777;

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
    /// Bits the who part names explicitly.
    mentioned: u32,
    value: u32,
}

/// A parsed mode: either an absolute octal value or a list of symbolic changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mode {
    changes: Vec<Change>,
}

impl Mode {
    /// Parses a mode string; `None` when GNU says `invalid mode`.
    pub fn parse(s: &str) -> Option<Mode> {
        let b = s.as_bytes();
        if !b.is_empty() && b.iter().all(|c| (b'0'..=b'7').contains(c)) {
            let v = u32::from_str_radix(s, 8).ok()?;
            if v > ALL {
                return None;
            }
            return Some(Mode {
                changes: vec![Change {
                    op: b'=',
                    kind: Kind::Ordinary,
                    affected: ALL,
                    mentioned: ALL,
                    value: v,
                }],
            });
        }
        let mut changes = Vec::new();
        for clause in s.split(',') {
            let cb = clause.as_bytes();
            let mut i = 0;
            let mut who = 0;
            while i < cb.len() {
                match cb[i] {
                    b'u' => who |= SUID | 0o700,
                    b'g' => who |= SGID | 0o070,
                    b'o' => who |= SVTX | 0o007,
                    b'a' => who |= ALL,
                    _ => break,
                }
                i += 1;
            }
            // At least one operation is required per clause.
            if i >= cb.len() {
                return None;
            }
            while i < cb.len() {
                let op = cb[i];
                if !matches!(op, b'+' | b'-' | b'=') {
                    return None;
                }
                i += 1;
                let (affected, mentioned) = (who, who);
                let mut kind = Kind::Ordinary;
                let mut value = 0;
                if i < cb.len() && matches!(cb[i], b'u' | b'g' | b'o') {
                    kind = Kind::Copy;
                    value = match cb[i] {
                        b'u' => 0o700,
                        b'g' => 0o070,
                        _ => 0o007,
                    };
                    i += 1;
                } else {
                    while i < cb.len() {
                        match cb[i] {
                            b'r' => value |= 0o444,
                            b'w' => value |= 0o222,
                            b'x' => value |= 0o111,
                            b'X' => kind = Kind::XIfAnyX,
                            b's' => value |= SUID | SGID,
                            b't' => value |= SVTX,
                            _ => break,
                        }
                        i += 1;
                    }
                }
                changes.push(Change {
                    op,
                    kind,
                    affected,
                    mentioned,
                    value,
                });
            }
        }
        Some(Mode { changes })
    }

    /// The mode that results from applying this one to `old` (gnulib `mode_adjust`).
    pub fn apply(&self, old: u32, is_dir: bool) -> u32 {
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
                    let spread = |mask: u32, all: u32| if value & mask != 0 { all } else { 0 };
                    value |= spread(0o444, 0o444) | spread(0o222, 0o222) | spread(0o111, 0o111);
                }
            }
            value &= if c.affected == 0 {
                ALL & !UMASK
            } else {
                c.affected
            };
            match c.op {
                b'=' => {
                    let preserved = if c.affected == 0 { 0 } else { !c.affected } | omit;
                    new = (new & preserved) | value;
                }
                b'+' => new |= value,
                _ => new &= !value,
            }
        }
        new & ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mk(s: &str) -> Option<u32> {
        Mode::parse(s).map(|m| m.apply(0o777, true))
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
}
