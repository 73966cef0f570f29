//! `tr [OPTION]... STRING1 [STRING2]`, GNU coreutils in the C locale: translates, deletes
//! (`-d`) or squeezes (`-s`) bytes of the command's stdin. The strings are parsed as GNU does
//! (escapes first, then `[:class:]`, `[=c=]`, `[c*n]`, ranges), validated with GNU's rules
//! and messages (string2 padded with its last character, `[c*]` filled, case classes aligned),
//! and turned into byte tables. Stdin streams in blocks of 64 KiB (the deadline looked at
//! after each), whatever its size. Options are only read before the first operand (`+` getopt).

mod spec;
#[allow(clippy::wildcard_imports, unused_imports)]
use spec::*;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{options_first, parse_args};
use crate::{Ctx, Outcome, quote, quote_locale};

/// Translate, squeeze, and/or delete characters from standard input, writing to standard
/// output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "tr [OPTION]... STRING1 [STRING2]")]
pub struct TrArgs {
    /// use the complement of STRING1
    #[arg(short = 'c', short_alias = 'C', long = "complement")]
    complement: bool,
    /// delete characters in STRING1, do not translate
    #[arg(short = 'd', long = "delete")]
    delete: bool,
    /// replace each sequence of a repeated character that is listed in the last specified SET, with a single occurrence of that character
    #[arg(short = 's', long = "squeeze-repeats")]
    squeeze: bool,
    /// first truncate STRING1 to length of STRING2
    #[arg(short = 't', long = "truncate-set1")]
    truncate: bool,
    /// (ignored: the locale is always C)
    #[arg(short = 'A', hide = true)]
    aix: bool,
    strings: Vec<OsString>,
}

fn length(elems: &[Elem]) -> u64 {
    elems.iter().map(|e| e.len()).fold(0, u64::saturating_add)
}

fn set_of(elems: &[Elem], complement: bool) -> [bool; 256] {
    let mut set = [false; 256];
    for e in elems {
        for c in e.chars() {
            if let Some(slot) = set.get_mut(usize::from(c)) {
                *slot = true;
            }
        }
    }
    if complement {
        for s in &mut set {
            *s = !*s;
        }
    }
    set
}

/// GNU's `validate` for translation: fills `[c*]`, checks case classes, pads string2.
fn validate_translate(
    s1: &[Elem],
    s2: &mut Vec<Elem>,
    complement: bool,
    truncate: bool,
) -> Result<(), String> {
    let mut len1 = if complement {
        256 - set_of(s1, false).iter().filter(|b| **b).count() as u64
    } else {
        length(s1)
    };
    if s2.iter().any(|e| matches!(e, Elem::Equiv(_))) {
        return Err("[=c=] expressions may not appear in string2 when translating".into());
    }
    if s2
        .iter()
        .any(|e| matches!(e, Elem::Class(k) if k.case() == Case::None))
    {
        return Err("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'".into());
    }
    let mut len2 = length(s2);
    if !complement && s2.iter().any(|e| matches!(e, Elem::Class(_))) {
        let (mut c1, mut c2) = (Cursor::new(s1), Cursor::new(s2));
        let (mut new1, mut new2) = (true, true);
        loop {
            let (a, k1) = c1.next();
            let (b, k2) = c2.next();
            if new2 && k2 != Case::None && !(new1 && k1 != Case::None) {
                return Err("misaligned [:upper:] and/or [:lower:] construct".into());
            }
            if k2 != Case::None {
                c1.skip_construct();
                c2.skip_construct();
                len1 = len1.saturating_sub(25);
                len2 = len2.saturating_sub(25);
            }
            new1 = c1.at_new_element();
            new2 = c2.at_new_element();
            if a.is_none() || b.is_none() {
                break;
            }
        }
    }
    if len1 > len2 && !truncate {
        let pad = match s2.last() {
            None => return Err("when not truncating set1, string2 must be non-empty".into()),
            Some(Elem::Char(c) | Elem::Range(_, c) | Elem::Repeat(c, _) | Elem::Equiv(c)) => *c,
            Some(Elem::Class(_)) => {
                return Err("when translating with string1 longer than string2,\nthe latter string must not end with a character class".into());
            }
        };
        s2.push(Elem::Repeat(pad, len1 - len2));
        len2 = len1;
    }
    if complement && s1.iter().any(|e| matches!(e, Elem::Class(_))) {
        let distinct = set_of(s2, false).iter().filter(|b| **b).count();
        if !(len2 == len1 && distinct == 1) {
            return Err("when translating with complemented character classes,\nstring2 must map all characters in the domain to one".into());
        }
    }
    Ok(())
}

/// The translation table.
fn table(s1: &[Elem], s2: &[Elem], complement: bool) -> [u8; 256] {
    let mut xlate = [0u8; 256];
    for (i, x) in xlate.iter_mut().enumerate() {
        *x = u8::try_from(i).unwrap_or(0);
    }
    if complement {
        let in1 = set_of(s1, false);
        let mut c2 = Cursor::new(s2);
        for (i, x) in xlate.iter_mut().enumerate() {
            if !in1.get(i).copied().unwrap_or(true) {
                match c2.next().0 {
                    Some(c) => *x = c,
                    None => break,
                }
            }
        }
        return xlate;
    }
    let (mut c1, mut c2) = (Cursor::new(s1), Cursor::new(s2));
    loop {
        let (a, k1) = c1.next();
        let (b, k2) = c2.next();
        match (k1, k2) {
            (Case::Lower, Case::Upper) => {
                for c in b'a'..=b'z' {
                    if let Some(x) = xlate.get_mut(usize::from(c)) {
                        *x = c.to_ascii_uppercase();
                    }
                }
            }
            (Case::Upper, Case::Lower) => {
                for c in b'A'..=b'Z' {
                    if let Some(x) = xlate.get_mut(usize::from(c)) {
                        *x = c.to_ascii_lowercase();
                    }
                }
            }
            _ => {
                let (Some(a), Some(b)) = (a, b) else { break };
                if let Some(x) = xlate.get_mut(usize::from(a)) {
                    *x = b;
                }
            }
        }
        if k2 != Case::None {
            c1.skip_construct();
            c2.skip_construct();
        }
    }
    xlate
}

/// Where `+` getopt stops: the first argument that is not an option (or after `--`).
fn options_end(args: &[OsString]) -> usize {
    args.iter()
        .position(|a| {
            let b = a.as_bytes();
            b == b"--" || b.len() < 2 || b.first() != Some(&b'-')
        })
        .unwrap_or(args.len())
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let normalised = options_first(args, options_end(args));
    let a = parse_args::<TrArgs>(&normalised)?;
    let n = a.strings.len();
    let translating = n == 2 && !a.delete;
    let min = 1 + usize::from(a.delete == a.squeeze);
    let max = 1 + usize::from(!a.delete || a.squeeze);
    if n < min {
        if n == 0 {
            return Err(Stop::Usage("missing operand".into()));
        }
        let why = if a.squeeze {
            "Two strings must be given when both deleting and squeezing repeats."
        } else {
            "Two strings must be given when translating."
        };
        let last = a.strings.last().map(quote).unwrap_or_default();
        return Err(Stop::Usage(format!("missing operand after {last}\n{why}")));
    }
    if n > max {
        let extra = a.strings.get(max).map(quote).unwrap_or_default();
        let mut msg = format!("extra operand {extra}");
        if n == 2 {
            msg.push_str("\nOnly one string may be given when deleting without squeezing repeats.");
        }
        return Err(Stop::Usage(msg));
    }
    let mut warnings = String::new();
    let mut specs = Vec::new();
    for s in &a.strings {
        let (bytes, esc) = unquote(s.as_bytes(), &mut warnings);
        match build(&bytes, &esc) {
            Ok(e) => specs.push(e),
            Err(msg) => {
                let mut o = Outcome::status(1);
                o.err(warnings);
                o.err(format!("{}: {msg}\n", ctx.name));
                return Ok(o);
            }
        }
    }
    let mut o = Outcome::ok();
    o.err(&warnings);
    let mut specs = specs.into_iter();
    let s1 = specs.next().unwrap_or_default();
    let mut s2 = specs.next();
    if s1.iter().any(|e| matches!(e, Elem::Repeat(_, 0))) {
        return Err(
            Stop::Fail("the [c*] repeat construct may not appear in string1".into()).after(o),
        );
    }
    if let Some(s2) = &mut s2 {
        let len1 = if a.complement {
            256 - set_of(&s1, false).iter().filter(|b| **b).count() as u64
        } else {
            length(&s1)
        };
        let fills: Vec<usize> = s2
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Elem::Repeat(_, 0)))
            .map(|(i, _)| i)
            .collect();
        let len2 = length(s2);
        if let [only] = fills.as_slice()
            && len1 >= len2
            && let Some(Elem::Repeat(_, n)) = s2.get_mut(*only)
        {
            *n = len1 - len2;
        }
        if fills.len() > 1 {
            return Err(
                Stop::Fail("only one [c*] repeat construct may appear in string2".into()).after(o),
            );
        }
        if translating {
            if let Err(msg) = validate_translate(&s1, s2, a.complement, a.truncate) {
                return Err(Stop::Fail(msg).after(o));
            }
        } else if !fills.is_empty() {
            return Err(Stop::Fail(
                "the [c*] construct may appear in string2 only when translating".into(),
            )
            .after(o));
        }
    }
    // One byte map (`None`: delete) and the squeeze set, applied block by block.
    let mut map = [Some(0u8); 256];
    for (i, m) in (0u8..=255).zip(map.iter_mut()) {
        *m = Some(i);
    }
    let squeeze = if translating {
        let s2 = s2.unwrap_or_default();
        let xlate = table(&s1, &s2, a.complement);
        for (i, m) in map.iter_mut().enumerate() {
            *m = xlate.get(i).copied();
        }
        a.squeeze.then(|| set_of(&s2, false))
    } else if a.delete {
        let del = set_of(&s1, a.complement);
        for (d, m) in del.iter().zip(map.iter_mut()) {
            if *d {
                *m = None;
            }
        }
        s2.map(|s| set_of(&s, false))
    } else {
        Some(set_of(&s1, a.complement))
    };
    let mut buf = vec![0u8; BLOCK];
    let mut out = Vec::with_capacity(BLOCK);
    let mut last: Option<u8> = None;
    let mut stdin = ctx.stdin;
    loop {
        let n = match std::io::Read::read(&mut stdin, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                o.out(out);
                o.err(format!(
                    "{}: read error: {}\n",
                    ctx.name,
                    crate::FsError::from_io(&e)
                ));
                return Ok(o.with_status(1));
            }
        };
        let kept = buf
            .get(..n)
            .unwrap_or_default()
            .iter()
            .filter_map(|&b| map.get(usize::from(b)).copied().flatten());
        emit(kept, squeeze.as_ref(), &mut out, &mut last);
        o.out(std::mem::take(&mut out));
        if !ctx.flush(&mut o) || ctx.expired() {
            break;
        }
    }
    o.out(out);
    Ok(o)
}

/// The bytes read (and written) at once.
const BLOCK: usize = 64 * 1024;

/// Writes bytes, dropping a byte of the squeeze set that repeats the one just written
/// (`last`, carried from block to block).
fn emit(
    bytes: impl Iterator<Item = u8>,
    squeeze: Option<&[bool; 256]>,
    out: &mut Vec<u8>,
    last: &mut Option<u8>,
) {
    for b in bytes {
        if let Some(set) = squeeze
            && *last == Some(b)
            && set.get(usize::from(b)).copied().unwrap_or(false)
        {
            continue;
        }
        out.push(b);
        *last = Some(b);
    }
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn tr(input: &str, args: &[&str]) -> (String, String, i32) {
        text(
            &World::empty()
                .stdin(input.as_bytes())
                .run(crate::CommandName::Tr, args),
        )
    }

    #[test]
    fn translations_as_gnu() {
        // Each expected output from GNU coreutils 9.1 `echo ... | LC_ALL=C tr ...`.
        for (input, args, want) in [
            ("hello abc\n", &["a-z", "A-Z"][..], "HELLO ABC\n"),
            ("hello abc\n", &["[:lower:]", "[:upper:]"], "HELLO ABC\n"),
            ("HELLO abc\n", &["[:upper:]", "[:lower:]"], "hello abc\n"),
            ("hello abc\n", &["[:lower:]", "[:upper:]x"], "HELLO ABC\n"),
            ("hello abc\n", &["a", "[b*2][c*]d"], "hello bbc\n"),
            ("hello abc\n", &["abc", "x"], "hello xxx\n"),
            ("hello abc\n", &["-t", "abc", "x"], "hello xbc\n"),
            ("hello abc\n", &["[=a=]", "x"], "hello xbc\n"),
            ("hello abc\n", &["-d", "l"], "heo abc\n"),
            ("hello abc\n", &["-s", "l"], "helo abc\n"),
            ("aabbcc  dd\n", &["-ds", "a", "[:space:]b"], "bcc dd\n"),
            ("hello 123\n", &["-cd", "[:digit:]\n"], "123\n"),
            ("hello 123\n", &["-c", "[:alpha:]", "_"], "hello_____"),
            ("a\tb\\c\n", &["\\t\\\\", "TB"], "aTbBc\n"),
            ("abc\n", &["\\141-c", "\\101-C"], "ABC\n"),
            ("hello world\n", &["-s", "a-z", "A-Z"], "HELO WORLD\n"),
            ("a--b\n", &["-s", "-", "x"], "axb\n"),
        ] {
            assert_eq!(tr(input, args).0, want, "{args:?}");
        }
    }

    #[test]
    fn ambiguous_octal_warns() {
        // `printf x | LC_ALL=C tr a '\400'`, GNU coreutils 9.1.
        assert_eq!(
            tr("x", &["a", "\\400"]),
            (
                "x".into(),
                "tr: warning: the ambiguous octal escape \\400 is being\n\tinterpreted as the 2-byte sequence \\040, 0\n".into(),
                0
            )
        );
    }

    #[test]
    fn errors_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C.
        let e = |args: &[&str]| tr("x", args).1;
        assert_eq!(
            e(&[]),
            "tr: missing operand\nTry 'tr --help' for more information.\n"
        );
        assert_eq!(
            e(&["a"]),
            "tr: missing operand after 'a'\nTwo strings must be given when translating.\nTry 'tr --help' for more information.\n"
        );
        assert_eq!(
            e(&["-d", "a", "b"]),
            "tr: extra operand 'b'\nOnly one string may be given when deleting without squeezing repeats.\nTry 'tr --help' for more information.\n"
        );
        assert_eq!(
            e(&["-c", "[:alpha:]", "xy"]),
            "tr: when translating with complemented character classes,\nstring2 must map all characters in the domain to one\n"
        );
        assert_eq!(
            e(&["z-a", "x"]),
            "tr: range-endpoints of 'z-a' are in reverse collating sequence order\n"
        );
        assert_eq!(e(&["[:foo:]", "x"]), "tr: invalid character class 'foo'\n");
        assert_eq!(
            e(&["a", "[:upper:]"]),
            "tr: misaligned [:upper:] and/or [:lower:] construct\n"
        );
        assert_eq!(
            e(&["[a*]", "x"]),
            "tr: the [c*] repeat construct may not appear in string1\n"
        );
        assert_eq!(
            e(&["a", "[b*x]"]),
            "tr: invalid repeat count 'x' in [c*n] construct\n"
        );
        assert_eq!(
            e(&["a", "[b*][c*]"]),
            "tr: only one [c*] repeat construct may appear in string2\n"
        );
        assert_eq!(
            e(&["[=ab=]", "x"]),
            "tr: ab: equivalence class operand must be a single character\n"
        );
        assert_eq!(
            e(&["a", ""]),
            "tr: when not truncating set1, string2 must be non-empty\n"
        );
        assert_eq!(
            e(&["-c", "a", "[:upper:]"]),
            "tr: when translating with string1 longer than string2,\nthe latter string must not end with a character class\n"
        );
        assert_eq!(
            tr("a\\b", &["\\", "x"]),
            (
                "axb".into(),
                "tr: warning: an unescaped backslash at end of string is not portable\n".into(),
                0
            )
        );
    }

    #[test]
    fn blocks_stream_and_squeeze_across_them() {
        let big = "ab".repeat(100_000) + &"c".repeat(200_000) + "\n";
        assert_eq!(tr(&big, &["-s", "c"]).0.len(), 200_002);
        assert_eq!(tr(&big, &["-d", "b"]).0.len(), 300_001);
        assert_eq!(tr(&big, &["-s", "abc", "x"]).0, "x\n");
        assert_eq!(tr(&big, &["a-c", "A-C"]).0, big.to_uppercase());
    }
}
