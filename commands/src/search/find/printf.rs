//! `-printf FORMAT`: GNU find's escapes and directives, parsed once with GNU's warnings and
//! errors, each directive's flags, width and precision applied by the one C `printf` engine
//! ([`crate::support::cprintf`]): `%d` and `%m` as numbers (`%d`, `%o`), everything else as
//! a string (`%s`: the `0` and `+` flags do nothing). Times are `strftime`'s in the session's
//! zone, with GNU's ten-digit fraction after `%S`, `%T`, `%X`, `%+` and `%@`.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::SPILL_AT;
use crate::support::cprintf::{self, Spec};
use crate::support::datetime::{broken_down, session_zone, strftime, to_epoch};

/// One piece of a format.
#[derive(Debug, Clone)]
pub(super) enum Seg {
    Lit(Vec<u8>),
    /// `\c`: the output stops here.
    Stop,
    Dir {
        spec: Spec,
        kind: u8,
        /// The time field letter of `%A`, `%C`, `%T`.
        sub: u8,
    },
}

/// The directives GNU knows (besides `%%` and the time ones).
const KINDS: &[u8] = b"abcdDfFgGhHiklmMnpPsStuUyYZ";

/// Parses a format: its pieces and GNU's warnings; `Err`: GNU's error (nothing runs).
pub(super) fn parse(fmt: &[u8]) -> Result<(Vec<Seg>, Vec<String>), String> {
    let mut segs = Vec::new();
    let mut warnings = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    while let Some(&c) = fmt.get(i) {
        i += 1;
        match c {
            b'\\' => {
                let Some(&n) = fmt.get(i) else {
                    lit.push(b'\\');
                    break;
                };
                i += 1;
                let v = match n {
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'\\' => b'\\',
                    b'c' => {
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                        segs.push(Seg::Stop);
                        continue;
                    }
                    b'0'..=b'7' => {
                        let mut v = u32::from(n - b'0');
                        let mut k = 1;
                        while k < 3
                            && let Some(&d @ b'0'..=b'7') = fmt.get(i)
                        {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                            k += 1;
                        }
                        u8::try_from(v & 0xff).unwrap_or(0)
                    }
                    other => {
                        warnings.push(format!(
                            "warning: unrecognized escape `\\{}'",
                            String::from_utf8_lossy(&[other])
                        ));
                        lit.push(b'\\');
                        other
                    }
                };
                lit.push(v);
            }
            b'%' => {
                let start = i - 1;
                let mut spec = Spec::default();
                while let Some(&f) = fmt.get(i) {
                    match f {
                        b'-' => spec.minus = true,
                        b'+' => spec.plus = true,
                        b' ' => spec.space = true,
                        b'#' => spec.alt = true,
                        b'0' => spec.zero = true,
                        _ => break,
                    }
                    i += 1;
                }
                while let Some(&d @ b'0'..=b'9') = fmt.get(i) {
                    spec.width = spec
                        .width
                        .saturating_mul(10)
                        .saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
                if fmt.get(i) == Some(&b'.') {
                    i += 1;
                    let mut p: usize = 0;
                    while let Some(&d @ b'0'..=b'9') = fmt.get(i) {
                        p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                        i += 1;
                    }
                    spec.precision = Some(p);
                }
                let Some(&kind) = fmt.get(i) else {
                    return Err("error: % at end of format string".into());
                };
                i += 1;
                let text = fmt.get(start..i).unwrap_or_default();
                match kind {
                    b'%' => lit.extend_from_slice(text.get(..text.len() - 1).unwrap_or_default()),
                    b'A' | b'C' | b'T' => {
                        let Some(&sub) = fmt.get(i) else {
                            warnings.push(format!(
                                "warning: format directive `%{}' should be followed by another character",
                                char::from(kind)
                            ));
                            lit.extend_from_slice(text);
                            continue;
                        };
                        i += 1;
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                        segs.push(Seg::Dir { spec, kind, sub });
                    }
                    k if KINDS.contains(&k) => {
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                        segs.push(Seg::Dir { spec, kind, sub: 0 });
                    }
                    other => {
                        warnings.push(format!(
                            "warning: unrecognized format directive `%{}'",
                            String::from_utf8_lossy(&[other])
                        ));
                        lit.extend_from_slice(text);
                    }
                }
            }
            _ => lit.push(c),
        }
    }
    segs.push(Seg::Lit(lit));
    segs.retain(|s| !matches!(s, Seg::Lit(l) if l.is_empty()));
    Ok((segs, warnings))
}

/// A time as GNU's `-printf` shows it: `kind` is `@`, `+`, a `strftime` letter, or `t` for
/// the `ctime` form of `%t`, `%a` and `%c`.
fn time_text(ctx: &Ctx, t: SystemTime, kind: u8) -> Vec<u8> {
    let (secs, nsec) = to_epoch(t);
    let frac = format!(".{nsec:09}0");
    if kind == b'@' {
        return format!("{secs}{frac}").into_bytes();
    }
    let tm = broken_down(secs, nsec, &session_zone(ctx));
    match kind {
        b't' => {
            let mut v = strftime(b"%a %b %e %H:%M:%S", &tm);
            v.extend_from_slice(frac.as_bytes());
            v.extend_from_slice(&strftime(b" %Y", &tm));
            v
        }
        b'+' => {
            let mut v = strftime(b"%Y-%m-%d+%H:%M:%S", &tm);
            v.extend_from_slice(frac.as_bytes());
            v
        }
        // glibc's `strftime` leaves a conversion it does not know as it is.
        k if !b"aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%".contains(&k) => vec![b'%', k],
        k => {
            let mut v = strftime(&[b'%', k], &tm);
            if matches!(k, b'S' | b'T' | b'X') {
                v.extend_from_slice(frac.as_bytes());
            }
            v
        }
    }
}

impl Find<'_> {
    /// Writes one entry's `-printf` output; false at `\c` (nothing more for this entry).
    pub(super) fn printf(&mut self, segs: &[Seg], e: &mut Entry) {
        for seg in segs {
            match seg {
                Seg::Lit(l) => self.out.extend_from_slice(l),
                Seg::Stop => return,
                Seg::Dir { spec, kind, sub } => {
                    let field = match kind {
                        b'd' => cprintf::signed(i64::try_from(e.depth).unwrap_or(i64::MAX), spec),
                        b'm' => {
                            let perm = self.meta(e).map_or(0, |m| m.perm);
                            cprintf::unsigned(u64::from(perm), b'o', spec)
                        }
                        _ => {
                            let text = self.directive(*kind, *sub, e);
                            cprintf::string(&text, spec)
                        }
                    };
                    // A wide field goes out in pieces, the buffer handed over as it grows.
                    let (out, outcome, ctx) = (&mut self.out, &mut self.outcome, self.ctx);
                    let open = field.write(&mut |piece| {
                        out.extend_from_slice(piece);
                        if out.len() < SPILL_AT {
                            return true;
                        }
                        outcome.out(std::mem::take(out));
                        ctx.flush(outcome)
                    });
                    if !open {
                        self.quit = true;
                        return;
                    }
                }
            }
        }
    }

    /// The text of a string directive.
    fn directive(&mut self, kind: u8, sub: u8, e: &mut Entry) -> Vec<u8> {
        let ctx = self.ctx;
        let num = |n: u64| n.to_string().into_bytes();
        match kind {
            b'p' => e.display.to_vec(),
            b'f' => e.name.to_vec(),
            b'h' => match memchr::memrchr(b'/', e.display) {
                Some(0) => b"/".to_vec(),
                Some(k) => e.display.get(..k).unwrap_or_default().to_vec(),
                None => b".".to_vec(),
            },
            b'H' => e.display.get(..e.start_len).unwrap_or_default().to_vec(),
            b'P' => {
                let rel = e.display.get(e.start_len..).unwrap_or_default();
                rel.strip_prefix(b"/").unwrap_or(rel).to_vec()
            }
            b's' => num(self.meta(e).map_or(0, |m| m.len)),
            b'b' => num(self.meta(e).map_or(0, |m| m.blocks)),
            b'k' => num(self.meta(e).map_or(0, |m| m.blocks.div_ceil(2))),
            b'n' => num(self.meta(e).map_or(0, |m| m.nlink)),
            b'i' => num(self.meta(e).map_or(0, |m| m.ino)),
            b'D' => num(self.meta(e).map_or(0, |m| m.dev)),
            b'u' => ctx.identity.user.clone().into_bytes(),
            b'g' => ctx.identity.group.clone().into_bytes(),
            b'U' => num(u64::from(ctx.identity.uid)),
            b'G' => num(u64::from(ctx.identity.gid)),
            b'M' => {
                let (letter, perm) = self.meta(e).map_or(('-', 0), |m| (m.kind.letter(), m.perm));
                format!("{letter}{}", crate::support::mode::perm_string(perm)).into_bytes()
            }
            b'y' => vec![type_letter(e.kind)],
            // The type a link leads to: `L` a loop, `N` nothing, `?` another error.
            b'Y' => vec![if e.kind == FileKind::Symlink {
                match ctx.fs.stat(e.path, true) {
                    Ok(m) => type_letter(m.kind),
                    Err(FsError::TooManyLinks) => b'L',
                    Err(FsError::NotFound | FsError::NotADirectory) => b'N',
                    Err(_) => b'?',
                }
            } else {
                type_letter(e.kind)
            }],
            b'l' => {
                if e.kind == FileKind::Symlink
                    && let Ok(t) = ctx.fs.read_link(e.path)
                {
                    t.as_os_str().as_bytes().to_vec()
                } else {
                    Vec::new()
                }
            }
            b'S' => {
                let (blocks, len) = self.meta(e).map_or((0, 0), |m| (m.blocks, m.len));
                #[allow(clippy::cast_precision_loss)]
                let v = if len == 0 {
                    1.0
                } else {
                    (blocks as f64 * 512.0) / len as f64
                };
                format_g(v).into_bytes()
            }
            b'F' => b"ext4".to_vec(),
            b'a' | b'c' | b't' | b'A' | b'C' | b'T' => {
                let Some(m) = self.meta(e) else {
                    return Vec::new();
                };
                let (t, k) = match kind {
                    b'a' => (m.atime, b't'),
                    b'c' => (m.ctime, b't'),
                    b't' => (m.mtime, b't'),
                    b'A' => (m.atime, sub),
                    b'C' => (m.ctime, sub),
                    _ => (m.mtime, sub),
                };
                time_text(ctx, t, k)
            }
            _ => Vec::new(),
        }
    }
}

/// C's `%g` for the sparseness ratio (six significant digits, trailing zeros dropped).
fn format_g(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor();
    if !(-4.0..6.0).contains(&exp) {
        let s = format!("{v:.5e}");
        return s;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let decimals = (5.0 - exp).max(0.0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}
