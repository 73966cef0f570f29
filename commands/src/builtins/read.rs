//! `read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt]
//! [-t timeout] [-u fd] [name ...]`, bash's builtin: one line (or up to a delimiter, or N
//! characters) from stdin, split on `$IFS` into the NAMEs ([`Directive::SetVar`]), or into
//! an array (`-a`, [`Directive::SetArray`]), or whole into `REPLY`.
//!
//! It reads its stdin one byte at a time and stops just after the delimiter, so that the
//! next command (the next `read` of a loop) finds the rest, as bash's unbuffered read of a
//! pipe leaves it.
//!
//! The line is kept as bash keeps it, with its internal quoting byte (`CTLESC`, 0x01) before
//! each character a backslash escaped (and before a raw 0x01 or 0x7f), and split by the same
//! steps (`get_word_from_string`, `list_string`, `strip_trailing_ifs_whitespace`,
//! `dequote_string`), so their corner cases come out as bash's: `IFS=, read a <<< 'x,'` gives
//! `x`, `IFS=, read a <<< 'x,y,'` gives `x,y,`, an escaped separator stays in its field.
//!
//! trumansh's stdin is never a terminal: `-p` prints nothing, `-e`, `-i` and `-s` have no
//! effect, and no input ever has to be waited for, so `-t` never times out (`-t 0` says input
//! is available, as bash's `select` does for a file, a here-document or a closed pipe).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{BuiltinGetopt, builtin_help_of};
use crate::support::cnum::legal_number;
use crate::support::escapes::utf8_locale;
use crate::support::ident::{is_assignable, is_identifier};
use crate::{ByteReader, Ctx, Directive, FsError, Outcome, Stdin};

pub const USAGE: &str = "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]";

/// Read a line from the standard input and split it into fields.
///
/// Reads one line from the standard input (or file descriptor FD with -u) and splits it on
/// the characters of $IFS: the first field goes to the first NAME, the second to the second,
/// and the rest of the line to the last NAME. With no NAME, the whole line goes to REPLY.
/// Unless -r is given, a backslash escapes the next character, and a backslash-newline pair
/// joins two lines.
///
/// Exit status: 0, unless the end of input was reached, a NAME is not a valid variable name,
/// an option is invalid, or FD cannot be read.
#[derive(clap::Parser, Debug)]
pub struct ReadHelp {
    /// assign the fields to the indexed array ARRAY, from index 0
    #[arg(short = 'a', value_name = "array")]
    array: Option<OsString>,
    /// stop at the first character of DELIM instead of a newline
    #[arg(short = 'd', value_name = "delim")]
    delim: Option<OsString>,
    /// use Readline for a terminal (no effect: stdin is never one here)
    #[arg(short = 'e')]
    readline: bool,
    /// initial text for Readline (no effect)
    #[arg(short = 'i', value_name = "text")]
    text: Option<OsString>,
    /// return after NCHARS characters, or at the delimiter if it comes first
    #[arg(short = 'n', value_name = "nchars")]
    nchars: Option<OsString>,
    /// return after exactly NCHARS characters (or at the end of input), ignoring the delimiter
    /// and $IFS
    #[arg(short = 'N', value_name = "nchars")]
    exact: Option<OsString>,
    /// show PROMPT first when reading from a terminal (never, here)
    #[arg(short = 'p', value_name = "prompt")]
    prompt: Option<OsString>,
    /// do not treat backslashes as escapes
    #[arg(short = 'r')]
    raw: bool,
    /// do not echo terminal input (no effect)
    #[arg(short = 's')]
    silent: bool,
    /// give up after TIMEOUT seconds (input never has to be waited for here); 0: only say
    /// whether input is available
    #[arg(short = 't', value_name = "timeout")]
    timeout: Option<OsString>,
    /// read from file descriptor FD instead of the standard input (one opened by a redirection or exec)
    #[arg(short = 'u', value_name = "fd")]
    fd: Option<OsString>,
}

/// The text of `help read`.
pub fn help() -> String {
    builtin_help_of::<ReadHelp>("read", USAGE)
}

/// bash's internal quoting byte: the next character was escaped.
const CTLESC: u8 = 0x01;
/// bash's quoted-null byte, escaped like `CTLESC` when it comes in the input.
const CTLNUL: u8 = 0x7f;

/// `spctabnl`: space, tab, newline.
fn spctabnl(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n')
}

/// `isspace` in the C locale.
fn c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `uconvert`: seconds with up to six decimals; `None` when malformed. An empty string is 0.
fn timeout(s: &[u8]) -> Option<(i64, i64)> {
    let (sign, digits) = match s.first() {
        Some(b'-') => (-1, s.get(1..).unwrap_or_default()),
        Some(b'+') => (1, s.get(1..).unwrap_or_default()),
        _ => (1, s),
    };
    let (int, frac) = match digits.iter().position(|&b| b == b'.') {
        Some(p) => (
            digits.get(..p).unwrap_or_default(),
            digits.get(p + 1..).unwrap_or_default(),
        ),
        None => (digits, &b""[..]),
    };
    if !int.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let ipart = int.iter().fold(0i64, |v, d| {
        v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    // Only the first six decimals are looked at (a seventh rounds).
    let six = frac.get(..frac.len().min(6)).unwrap_or_default();
    if !six.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut upart = six.iter().fold(0i64, |v, d| v * 10 + i64::from(d - b'0'));
    upart *= 10i64.pow(u32::try_from(6 - six.len()).unwrap_or(0));
    if six.len() == 6 && frac.get(6).is_some_and(|d| (b'5'..=b'9').contains(d)) {
        upart += 1;
    }
    Some((ipart * sign, upart * sign))
}

/// The separators in effect: `$IFS` (space, tab and newline when unset).
struct Ifs {
    chars: Vec<u8>,
}

impl Ifs {
    fn has(&self, c: u8) -> bool {
        self.chars.contains(&c)
    }
    /// `$IFS` is exactly space, tab, newline (bash's `sh_style_split`).
    fn sh_style(&self) -> bool {
        self.chars == b" \t\n"
    }
    /// `ifs_whitesep`: IFS white space as the splitter sees it.
    fn whitesep(&self, c: u8) -> bool {
        if self.sh_style() {
            spctabnl(c)
        } else {
            c_space(c)
        }
    }
    /// `issep` of `list_string`.
    fn sep(&self, c: u8) -> bool {
        !self.chars.is_empty() && self.has(c)
    }
}

/// `string_extract_verbatim`: from `s[*at..]` up to a separator, a `CTLESC` protecting the
/// byte after it.
fn extract_verbatim(s: &[u8], at: &mut usize, ifs: &Ifs, noctlesc: bool) -> Vec<u8> {
    let start = *at;
    if ifs.chars.is_empty() {
        *at = s.len();
        return s.get(start..).unwrap_or_default().to_vec();
    }
    let mut i = start;
    while let Some(&c) = s.get(i) {
        if !noctlesc && c == CTLESC {
            i += 2;
            continue;
        }
        if noctlesc && c == CTLESC && s.get(i + 1) == Some(&CTLNUL) {
            i += 2;
            continue;
        }
        if ifs.has(c) {
            break;
        }
        i += 1;
    }
    let i = i.min(s.len());
    *at = i;
    s.get(start..i).unwrap_or_default().to_vec()
}

/// `get_word_from_string`: the next field of `s[*at..]` (`None` when only separators are
/// left), moving `*at` to the start of the following one.
fn next_word(s: &[u8], at: &mut usize, ifs: &Ifs) -> Option<Vec<u8>> {
    let noctlesc = ifs.has(CTLESC);
    let mut i = *at;
    while let Some(&c) = s.get(i) {
        let blank = if ifs.sh_style() {
            spctabnl(c)
        } else {
            c_space(c)
        };
        if !(blank && ifs.has(c)) {
            break;
        }
        i += 1;
    }
    if i >= s.len() {
        *at = i;
        return None;
    }
    let word = extract_verbatim(s, &mut i, ifs, noctlesc);
    let whitesep = s.get(i).is_some_and(|&c| ifs.whitesep(c));
    if i < s.len() {
        i += 1;
    }
    while s.get(i).is_some_and(|&c| spctabnl(c) && ifs.has(c)) {
        i += 1;
    }
    if whitesep && s.get(i).is_some_and(|&c| ifs.has(c) && !ifs.whitesep(c)) {
        i += 1;
        while s.get(i).is_some_and(|&c| ifs.whitesep(c) && ifs.has(c)) {
            i += 1;
        }
    }
    *at = i;
    Some(word)
}

/// `list_string`: every field of `s` (for `-a`).
fn all_words(s: &[u8], ifs: &Ifs) -> Vec<Vec<u8>> {
    let noctlesc = ifs.has(CTLESC);
    let mut i = 0;
    if !ifs.chars.is_empty() {
        while s.get(i).is_some_and(|&c| ifs.sep(c) && c_space(c)) {
            i += 1;
        }
    }
    let mut words = Vec::new();
    while i < s.len() {
        let word = extract_verbatim(s, &mut i, ifs, noctlesc);
        if !word.is_empty() {
            words.push(word);
        } else if !ifs.sh_style() && !s.get(i).copied().is_some_and(c_space) {
            words.push(Vec::new());
        }
        let whitesep = s.get(i).is_some_and(|&c| ifs.whitesep(c));
        if i < s.len() {
            i += 1;
        }
        while s.get(i).is_some_and(|&c| ifs.whitesep(c) && ifs.sep(c)) {
            i += 1;
        }
        if whitesep && s.get(i).is_some_and(|&c| ifs.sep(c) && !ifs.whitesep(c)) {
            i += 1;
            while s.get(i).is_some_and(|&c| ifs.whitesep(c) && ifs.has(c)) {
                i += 1;
            }
        }
    }
    words
}

/// `strip_trailing_ifs_whitespace` (never the first byte).
fn strip_trailing(s: &[u8], ifs: &Ifs, saw_escape: bool) -> Vec<u8> {
    let mut end = s.len();
    while end > 1 {
        let Some(&c) = s.get(end - 1) else { break };
        let escaped_blank = saw_escape && c == CTLESC && s.get(end).copied().is_some_and(spctabnl);
        if (spctabnl(c) && ifs.has(c)) || escaped_blank {
            end -= 1;
        } else {
            break;
        }
    }
    s.get(..end).unwrap_or_default().to_vec()
}

/// `dequote_string`: the quoting bytes removed (a lone `CTLESC` stays).
fn dequote(s: &[u8]) -> Vec<u8> {
    if s == [CTLESC] {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c == CTLESC {
            i += 1;
            match s.get(i) {
                Some(&next) => out.push(next),
                None => break,
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// What the options ask.
struct Opts<'a> {
    raw: bool,
    array: Option<&'a OsStr>,
    delim: Option<u8>,
    /// `-n`/`-N`: how many characters at most; `Some(0)` reads nothing.
    nchars: Option<usize>,
    /// `-N`: the delimiter and `$IFS` are ignored.
    exact: bool,
    /// `-t 0`: only whether input is available.
    poll: bool,
    /// `-u`: the fd to read.
    fd: u32,
}

fn parse<'a>(args: &'a [OsString], ctx: &Ctx) -> Result<(Opts<'a>, &'a [OsString]), Stop> {
    let mut o = Opts {
        raw: false,
        array: None,
        delim: Some(b'\n'),
        nchars: None,
        exact: false,
        poll: false,
        fd: 0,
    };
    let mut getopt = BuiltinGetopt::new(args, "ersa:d:i:n:p:t:u:N:");
    for opt in getopt.by_ref() {
        let (c, value) = opt?;
        let v = value.map(OsStr::as_bytes).unwrap_or_default();
        let shown = String::from_utf8_lossy(v);
        match c {
            b'r' => o.raw = true,
            b'a' => o.array = value,
            b'd' => o.delim = Some(v.first().copied().unwrap_or(0)),
            b't' => match timeout(v) {
                Some((secs, usecs)) if secs >= 0 && usecs >= 0 => o.poll = secs == 0 && usecs == 0,
                _ => {
                    return Err(Stop::FailWith(
                        format!("{shown}: invalid timeout specification"),
                        1,
                    ));
                }
            },
            b'n' | b'N' => {
                if c == b'N' {
                    o.exact = true;
                }
                let n = legal_number(v)
                    .filter(|&n| n >= 0 && i32::try_from(n).is_ok())
                    .and_then(|n| usize::try_from(n).ok());
                let Some(n) = n else {
                    return Err(Stop::FailWith(format!("{shown}: invalid number"), 1));
                };
                o.nchars = Some(n);
            }
            b'u' => o.fd = ctx.input_fd(v).map_err(|m| Stop::FailWith(m, 1))?,
            // -e, -i, -p, -s: for a terminal, which stdin never is here.
            _ => {}
        }
    }
    if o.exact {
        o.delim = None;
    }
    Ok((o, getopt.operands()))
}

/// The line as bash keeps it while reading: the bytes with `CTLESC` marks.
struct Line {
    bytes: Vec<u8>,
    saw_escape: bool,
    eof: bool,
}

/// Reads one byte of stdin; `None` at its end.
fn byte(stdin: &mut ByteReader<'_>) -> Result<Option<u8>, FsError> {
    stdin.next_byte().map_err(|e| FsError::from_io(&e))
}

/// How many bytes a UTF-8 sequence starting with `b` has.
fn utf8_len(b: u8) -> usize {
    match b {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// bash's reading loop, one byte at a time.
fn read_line(o: &Opts, ifs: &Ifs, utf8: bool, stdin: &Stdin) -> Result<Line, FsError> {
    let stdin = &mut stdin.bytes_reader();
    let skip_ctlesc = ifs.has(CTLESC);
    let skip_ctlnul = ifs.has(CTLNUL);
    let mut line = Line {
        bytes: Vec::new(),
        saw_escape: false,
        eof: false,
    };
    let mut pass_next = false;
    let mut count = 0;
    loop {
        let Some(c) = byte(stdin)? else {
            line.eof = true;
            break;
        };
        if pass_next {
            pass_next = false;
            if c == b'\n' {
                // A backslash-newline pair disappears.
                if !skip_ctlesc {
                    line.bytes.pop();
                }
                continue;
            }
        } else {
            if c == b'\\' && !o.raw {
                pass_next = true;
                if !skip_ctlesc {
                    line.saw_escape = true;
                    line.bytes.push(CTLESC);
                }
                continue;
            }
            if o.delim == Some(c) {
                break;
            }
            if c == 0 && o.delim != Some(0) {
                continue;
            }
            if (!skip_ctlesc && c == CTLESC) || (!skip_ctlnul && c == CTLNUL) {
                line.saw_escape = true;
                line.bytes.push(CTLESC);
            }
        }
        line.bytes.push(c);
        if utf8 && c >= 0xc0 {
            // The rest of a multibyte character counts with it.
            for _ in 1..utf8_len(c) {
                let Some(next) = byte(stdin)? else { break };
                line.bytes.push(next);
                if next & 0xc0 != 0x80 {
                    break;
                }
            }
        }
        count += 1;
        if o.nchars.is_some_and(|n| n > 0 && count >= n) {
            break;
        }
    }
    // An escaped NUL ends the string, as it does bash's C string.
    if let Some(nul) = line.bytes.iter().position(|&b| b == 0) {
        line.bytes.truncate(nul);
    }
    Ok(line)
}

fn text(bytes: &[u8], saw_escape: bool) -> String {
    let bytes = if saw_escape {
        dequote(bytes)
    } else {
        bytes.to_vec()
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

fn not_identifier(name: &OsStr) -> String {
    format!(
        "`{}': not a valid identifier",
        String::from_utf8_lossy(name.as_bytes())
    )
}

fn set(o: &mut Outcome, name: &OsStr, value: String) {
    o.directive(Directive::SetVar {
        name: String::from_utf8_lossy(name.as_bytes()).into_owned(),
        value: Some(value),
        export: false,
    });
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let (opts, names) = parse(args, ctx)?;
    if opts.poll {
        // Input is always there to be read (or at its end) without waiting.
        return Ok(Outcome::ok());
    }
    let valid = |name: &OsStr| is_assignable(&String::from_utf8_lossy(name.as_bytes()));
    if let Some(first) = names.first().filter(|n| !valid(n)) {
        return Err(Stop::FailWith(not_identifier(first), 1));
    }
    let ifs = Ifs {
        chars: if opts.exact {
            Vec::new()
        } else {
            ctx.vars.get("IFS").unwrap_or(" \t\n").as_bytes().to_vec()
        },
    };
    let line = if opts.nchars == Some(0) {
        Line {
            bytes: Vec::new(),
            saw_escape: false,
            eof: false,
        }
    } else {
        let stdin = ctx.input(opts.fd).unwrap_or(ctx.stdin);
        match read_line(&opts, &ifs, utf8_locale(ctx.vars), stdin) {
            Ok(line) => line,
            Err(e) => {
                return Err(Stop::FailWith(format!("read error: {}: {e}", opts.fd), 1));
            }
        }
    };
    let mut o = Outcome::ok();
    let status = i32::from(line.eof);
    let s = &line.bytes;
    if let Some(array) = opts.array {
        if !is_identifier(&String::from_utf8_lossy(array.as_bytes())) {
            return Err(Stop::FailWith(not_identifier(array), 1));
        }
        let shown = String::from_utf8_lossy(array.as_bytes());
        if ctx
            .vars
            .var(&shown)
            .is_some_and(|v| matches!(v.array, Some(crate::Array::Assoc(_))))
        {
            return Err(Stop::FailWith(format!("{shown}: not an indexed array"), 1));
        }
        let values = all_words(s, &ifs)
            .iter()
            .map(|w| text(w, line.saw_escape))
            .collect();
        o.directive(Directive::SetArray {
            name: String::from_utf8_lossy(array.as_bytes()).into_owned(),
            values,
        });
        return Ok(o.with_status(status));
    }
    let Some((last, firsts)) = names.split_last() else {
        set(&mut o, OsStr::new("REPLY"), text(s, line.saw_escape));
        return Ok(o.with_status(status));
    };
    // Leading IFS white space goes first.
    let mut at = 0;
    if !ifs.chars.is_empty() {
        while s.get(at).is_some_and(|&c| spctabnl(c) && ifs.has(c)) {
            at += 1;
        }
    }
    for name in firsts {
        if !valid(name) {
            return Err(Stop::after(Stop::FailWith(not_identifier(name), 1), o));
        }
        let word = if at < s.len() {
            next_word(s, &mut at, &ifs).unwrap_or_default()
        } else {
            Vec::new()
        };
        set(&mut o, name, text(&word, line.saw_escape));
    }
    if !valid(last) {
        return Err(Stop::after(Stop::FailWith(not_identifier(last), 1), o));
    }
    // The last NAME gets the rest: the one field left, or the rest of the line without its
    // trailing IFS white space.
    let rest = s.get(at..).unwrap_or_default();
    let value = if rest.is_empty() {
        Vec::new()
    } else {
        let mut after = 0;
        let word = next_word(rest, &mut after, &ifs);
        if after >= rest.len() {
            word.unwrap_or_default()
        } else {
            strip_trailing(rest, &ifs, line.saw_escape)
        }
    };
    set(&mut o, last, text(&value, line.saw_escape));
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use super::timeout;
    use crate::CommandName::Read;
    use crate::testing::world::{World, directives, text};
    use crate::{Directive, Stdin};

    fn set(name: &str, value: &str) -> Directive {
        Directive::SetVar {
            name: name.into(),
            value: Some(value.into()),
            export: false,
        }
    }

    #[test]
    fn takes_only_what_it_uses() {
        // `while read l` depends on it: each read leaves the rest of stdin to the next.
        let w = World::empty();
        let stdin = Stdin::bytes(&b"one\ntwo three\nrest\n"[..]);
        let o = w.run_on(Read, &["a"], &stdin);
        assert_eq!(directives(&o), [set("a", "one")]);
        let o = w.run_on(Read, &["-n", "2", "a"], &stdin);
        assert_eq!(directives(&o), [set("a", "tw")]);
        let o = w.run_on(Read, &["a", "b"], &stdin);
        assert_eq!(directives(&o), [set("a", "o"), set("b", "three")]);
        assert_eq!(stdin.read_all().unwrap_or_default(), b"rest\n");
        let o = w.run_on(Read, &["a"], &stdin);
        assert_eq!((directives(&o), o.status), (vec![set("a", "")], 1));
    }

    #[test]
    fn splits_as_bash() {
        // `IFS=... bash -c 'read ...'` with bash 5.2.
        let w = World::empty().var("IFS", ",", false).stdin(b"1,2,\n");
        assert_eq!(directives(&w.run(Read, &["a"])), [set("a", "1,2,")]);
        assert_eq!(
            directives(&w.run(Read, &["a", "b"])),
            [set("a", "1"), set("b", "2")]
        );
        let w = World::empty().stdin(b"  a\\ b  c\\\nd  \n");
        assert_eq!(
            directives(&w.run(Read, &["x", "y"])),
            [set("x", "a b"), set("y", "cd")]
        );
        assert_eq!(directives(&w.run(Read, &[])), [set("REPLY", "  a b  cd  ")]);
        assert_eq!(
            directives(&w.run(Read, &["-a", "arr"])),
            [Directive::SetArray {
                name: "arr".into(),
                values: vec!["a b".into(), "cd".into()]
            }]
        );
        let w = World::empty().var("IFS", ":", false).stdin(b" a:b::c: \n");
        assert_eq!(
            directives(&w.run(Read, &["-a", "arr"])),
            [Directive::SetArray {
                name: "arr".into(),
                values: vec![
                    " a".into(),
                    "b".into(),
                    String::new(),
                    "c".into(),
                    " ".into()
                ]
            }]
        );
    }

    #[test]
    fn options_and_errors() {
        let w = World::empty().stdin(b"ab\n");
        assert_eq!(
            text(&w.run(Read, &["-u", "3", "x"])),
            (
                String::new(),
                "read: 3: invalid file descriptor: Bad file descriptor\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Read, &["x", "1y"])).1,
            "read: `1y': not a valid identifier\n"
        );
        assert_eq!(directives(&w.run(Read, &["x", "1y"])), [set("x", "ab")]);
        assert_eq!(w.run(Read, &["-t", "0"]).status, 0);
        assert_eq!(timeout(b""), Some((0, 0)));
        assert_eq!(timeout(b"1.5"), Some((1, 500_000)));
        assert_eq!(timeout(b"-1"), Some((-1, 0)));
        assert_eq!(timeout(b"0.0000005"), Some((0, 1)));
        assert_eq!(timeout(b"1.5x"), None);
        assert_eq!(timeout(b"1.1234567x"), Some((1, 123_457)));
    }
}
