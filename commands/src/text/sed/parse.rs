//! The sed script compiler: GNU sed 4.9's grammar, with its diagnostics and their positions
//! (`-e expression #N, char M: ...`, `file F line N: ...`), counted the way GNU's reader
//! counts characters.

#![allow(clippy::many_single_char_names)]

use crate::support::regex_gnu::{Options, Regex, Syntax};

/// Where a script chunk came from, for diagnostics.
#[derive(Debug, Clone)]
pub enum Origin {
    Expr(usize),
    File(String),
}

/// A regex slot: an index into [`Program::regexes`], or `None` for the empty regex (the last
/// one used at run time).
pub type ReIdx = Option<usize>;

#[derive(Debug, Clone)]
pub enum Addr {
    Line(u64),
    Last,
    Re(ReIdx),
    Step(u64, u64),
}

#[derive(Debug, Clone)]
pub enum Addr2 {
    Line(u64),
    Last,
    Re(ReIdx),
    Plus(u64),
    Mod(u64),
}

#[derive(Debug, Clone)]
pub enum Repl {
    Lit(Vec<u8>),
    Group(usize),
    /// `\U`, `\L`, `\u`, `\l`, `\E`.
    Case(u8),
}

#[derive(Debug, Clone)]
pub struct Subst {
    pub re: ReIdx,
    pub repl: Vec<Repl>,
    pub global: bool,
    pub print: bool,
    pub nth: u64,
    pub wfile: Option<usize>,
}

#[derive(Debug, Clone)]
pub enum Kind {
    /// `{`: the index of the command after its `}`.
    Block(usize),
    EndBlock,
    Label,
    /// `a`, `i`, `c` and their text (ending with a newline).
    Text(u8, Vec<u8>),
    /// `b`, `t`, `T`: the label, resolved to an index (`usize::MAX`: the end).
    Branch(u8, String, usize),
    Quit(bool, i32),
    List(Option<usize>),
    Simple(u8),
    ReadFile(Vec<u8>),
    ReadLine(Vec<u8>),
    Write(usize, bool),
    Subst(Box<Subst>),
    Translit(Box<[u8; 256]>),
}

#[derive(Debug, Clone)]
pub struct Cmd {
    pub a1: Option<Addr>,
    pub a2: Option<Addr2>,
    pub bang: bool,
    pub kind: Kind,
}

#[derive(Debug, Default)]
pub struct Program {
    pub cmds: Vec<Cmd>,
    pub regexes: Vec<Regex>,
    /// `w` files, in the order first named.
    pub wfiles: Vec<Vec<u8>>,
    /// `#n` on the first line.
    pub quiet: bool,
    blocks: Vec<usize>,
    chunks: usize,
    /// An `a\`, `i\` or `c\` that ended its chunk: its text is the next chunk's.
    pending: Option<usize>,
}

/// A compile error: the full message without the `sed: ` prefix, and its status.
pub type Error = (String, i32);

struct Reader<'a> {
    s: &'a [u8],
    cur: usize,
    line: usize,
    origin: &'a Origin,
}

const EOF: i32 = -1;

impl Reader<'_> {
    fn inchar(&mut self) -> i32 {
        match self.s.get(self.cur) {
            Some(&c) => {
                self.cur += 1;
                if c == b'\n' {
                    self.line += 1;
                }
                i32::from(c)
            }
            None => EOF,
        }
    }
    fn savchar(&mut self, c: i32) {
        if c == EOF {
            return;
        }
        if c == i32::from(b'\n') {
            self.line = self.line.saturating_sub(1);
        }
        self.cur = self.cur.saturating_sub(1);
    }
    fn in_nonblank(&mut self) -> i32 {
        loop {
            let c = self.inchar();
            if c != i32::from(b' ') && c != i32::from(b'\t') {
                return c;
            }
        }
    }
    fn err(&self, msg: &str) -> Error {
        (self.at(msg), 1)
    }
    fn at(&self, msg: &str) -> String {
        match self.origin {
            Origin::Expr(n) => format!("-e expression #{n}, char {}: {msg}", self.cur),
            Origin::File(f) => format!("file {f} line {}: {msg}", self.line),
        }
    }
    fn in_integer(&mut self, first: i32) -> u64 {
        let mut n: u64 = u64::try_from(first - i32::from(b'0')).unwrap_or(0);
        loop {
            let c = self.inchar();
            if (i32::from(b'0')..=i32::from(b'9')).contains(&c) {
                n = n
                    .saturating_mul(10)
                    .saturating_add(u64::try_from(c - i32::from(b'0')).unwrap_or(0));
            } else {
                self.savchar(c);
                return n;
            }
        }
    }
    /// GNU's `match_slash`: the text up to the unescaped delimiter; `None` when unterminated.
    fn match_slash(&mut self, slash: i32, regex: bool) -> Option<Vec<u8>> {
        let mut b = Vec::new();
        let mut ch;
        loop {
            ch = self.inchar();
            if ch == EOF || ch == i32::from(b'\n') {
                break;
            }
            if ch == slash {
                break;
            }
            if ch == i32::from(b'\\') {
                ch = self.inchar();
                if ch == EOF {
                    break;
                } else if ch == i32::from(b'n') && regex {
                    ch = i32::from(b'\n');
                } else if ch != i32::from(b'\n')
                    && (ch != slash || (!regex && ch == i32::from(b'&')))
                {
                    b.push(b'\\');
                }
            }
            b.push(u8::try_from(ch).unwrap_or(0));
        }
        if ch == i32::from(b'\n') {
            self.savchar(ch);
        }
        (ch == slash).then_some(b)
    }
    fn read_end_of_cmd(&mut self) -> Result<(), Error> {
        let ch = self.in_nonblank();
        if ch == i32::from(b'}') || ch == i32::from(b'#') {
            self.savchar(ch);
        } else if ch != EOF && ch != i32::from(b'\n') && ch != i32::from(b';') {
            return Err(self.err("extra characters after command"));
        }
        Ok(())
    }
    fn read_label(&mut self) -> String {
        let mut b = Vec::new();
        let mut ch = self.in_nonblank();
        while ch != EOF && ch != i32::from(b'\n') && ch != i32::from(b';') {
            let c = u8::try_from(ch).unwrap_or(0);
            if c.is_ascii_whitespace() {
                break;
            }
            b.push(c);
            ch = self.inchar();
        }
        self.savchar(ch);
        String::from_utf8_lossy(&b).into_owned()
    }
    fn read_filename(&mut self) -> Vec<u8> {
        let mut b = Vec::new();
        let mut ch = self.in_nonblank();
        while ch != EOF && ch != i32::from(b'\n') {
            b.push(u8::try_from(ch).unwrap_or(0));
            ch = self.inchar();
        }
        b
    }
}

/// Converts GNU sed's extra escapes (`\t`, `\xHH`, `\dNNN`, `\oNNN`, `\cX`, ...) in a regex
/// into the bytes they stand for.
fn normalize_regex(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&n) = b.get(i + 1) else {
            out.push(c);
            break;
        };
        if let Some((byte, used)) = escape_byte(b, i + 1) {
            // GNU 4.9 gives the byte itself (`\x2e` is `.`, any byte), but a backslash.
            if byte == b'\\' {
                out.push(b'\\');
            }
            out.push(byte);
            i += 1 + used;
        } else {
            out.push(c);
            out.push(n);
            i += 2;
        }
    }
    out
}

/// The byte a GNU escape at `b[i..]` (after the backslash) stands for, and how many bytes
/// it used; `None` when it is not one of those escapes.
fn escape_byte(b: &[u8], i: usize) -> Option<(u8, usize)> {
    let c = *b.get(i)?;
    let simple = match c {
        b'a' => Some(7),
        b'f' => Some(12),
        b'v' => Some(11),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        _ => None,
    };
    if let Some(s) = simple {
        return Some((s, 1));
    }
    let digits = |radix: u32, max: usize| -> Option<(u8, usize)> {
        let mut v: u32 = 0;
        let mut k = 0;
        while k < max {
            let Some(d) = b
                .get(i + 1 + k)
                .and_then(|&d| char::from(d).to_digit(radix))
            else {
                break;
            };
            v = v * radix + d;
            k += 1;
        }
        (k > 0).then(|| (u8::try_from(v & 0xff).unwrap_or(0), 1 + k))
    };
    match c {
        b'd' => digits(10, 3),
        b'o' => digits(8, 3),
        b'x' => digits(16, 2),
        b'c' => {
            let x = *b.get(i + 1)?;
            Some((x.to_ascii_uppercase() ^ 0x40, 2))
        }
        _ => None,
    }
}

/// The text of `a`, `i`, `c` up to an unescaped newline, with its newline.
fn read_text(r: &mut Reader) -> Vec<u8> {
    let mut text = Vec::new();
    loop {
        let mut ch = r.inchar();
        if ch == EOF || ch == i32::from(b'\n') {
            break;
        }
        if ch == i32::from(b'\\') {
            ch = r.inchar();
            if ch == EOF {
                break;
            }
            text.push(b'\\');
        }
        text.push(u8::try_from(ch).unwrap_or(0));
    }
    let mut t = normalize_text(&text);
    t.push(b'\n');
    t
}

/// Text of `a`, `i`, `c`: backslashes removed, escapes converted.
fn normalize_text(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'\\' {
            if let Some((byte, used)) = escape_byte(b, i + 1) {
                out.push(byte);
                i += 1 + used;
                continue;
            }
            if let Some(&n) = b.get(i + 1) {
                out.push(n);
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn parse_replacement(b: &[u8], groups: Option<usize>, r: &Reader) -> Result<Vec<Repl>, Error> {
    let mut parts = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    let flush = |lit: &mut Vec<u8>, parts: &mut Vec<Repl>| {
        if !lit.is_empty() {
            parts.push(Repl::Lit(std::mem::take(lit)));
        }
    };
    while let Some(&c) = b.get(i) {
        if c == b'&' {
            flush(&mut lit, &mut parts);
            parts.push(Repl::Group(0));
            i += 1;
            continue;
        }
        if c != b'\\' {
            lit.push(c);
            i += 1;
            continue;
        }
        let Some(&n) = b.get(i + 1) else {
            i += 1;
            continue;
        };
        match n {
            b'0'..=b'9' => {
                let g = usize::from(n - b'0');
                if let Some(max) = groups
                    && g > max
                {
                    return Err(r.err(&format!("invalid reference \\{g} on `s' command's RHS")));
                }
                flush(&mut lit, &mut parts);
                parts.push(Repl::Group(g));
                i += 2;
            }
            b'L' | b'U' | b'l' | b'u' | b'E' => {
                flush(&mut lit, &mut parts);
                parts.push(Repl::Case(n));
                i += 2;
            }
            b'n' => {
                lit.push(b'\n');
                i += 2;
            }
            _ => {
                if let Some((byte, used)) = escape_byte(b, i + 1) {
                    lit.push(byte);
                    i += 1 + used;
                } else {
                    lit.push(n);
                    i += 2;
                }
            }
        }
    }
    flush(&mut lit, &mut parts);
    Ok(parts)
}

/// What the compiler needs to know from the command line.
pub struct Flags {
    pub extended: bool,
    pub posix: bool,
}

impl Program {
    fn regex(
        &mut self,
        r: &Reader,
        pat: &[u8],
        icase: bool,
        multiline: bool,
        f: &Flags,
    ) -> Result<ReIdx, Error> {
        if pat.is_empty() {
            if icase || multiline {
                return Err(r.err("no previous regular expression"));
            }
            return Ok(None);
        }
        let syntax = if f.extended {
            Syntax::Extended
        } else {
            Syntax::Basic
        };
        let mut o = Options::new(syntax);
        o.icase = icase;
        o.multiline = multiline;
        o.strict = true;
        let p = normalize_regex(pat);
        let (re, _) = Regex::new(&p, &o).map_err(|e| r.err(&e))?;
        self.regexes.push(re);
        Ok(Some(self.regexes.len() - 1))
    }

    fn wfile(&mut self, name: Vec<u8>) -> usize {
        if let Some(k) = self.wfiles.iter().position(|w| *w == name) {
            return k;
        }
        self.wfiles.push(name);
        self.wfiles.len() - 1
    }

    fn address(&mut self, r: &mut Reader, ch: i32, f: &Flags) -> Result<Option<Addr>, Error> {
        if ch == i32::from(b'/') || ch == i32::from(b'\\') {
            let delim = if ch == i32::from(b'\\') {
                r.inchar()
            } else {
                ch
            };
            let Some(b) = r.match_slash(delim, true) else {
                return Err(r.err("unterminated address regex"));
            };
            let (mut icase, mut ml) = (false, false);
            loop {
                let c = r.in_nonblank();
                if c == i32::from(b'I') {
                    icase = true;
                } else if c == i32::from(b'M') {
                    ml = true;
                } else {
                    r.savchar(c);
                    break;
                }
            }
            return Ok(Some(Addr::Re(self.regex(r, &b, icase, ml, f)?)));
        }
        if (i32::from(b'0')..=i32::from(b'9')).contains(&ch) {
            let n = r.in_integer(ch);
            let c = r.in_nonblank();
            if c == i32::from(b'~') && !f.posix {
                let d = r.in_nonblank();
                let step = if (i32::from(b'0')..=i32::from(b'9')).contains(&d) {
                    r.in_integer(d)
                } else {
                    r.savchar(d);
                    0
                };
                return Ok(Some(Addr::Step(n, step)));
            }
            r.savchar(c);
            return Ok(Some(Addr::Line(n)));
        }
        if ch == i32::from(b'$') {
            return Ok(Some(Addr::Last));
        }
        Ok(None)
    }

    /// Compiles one chunk (`-e` text or `-f` file contents).
    pub fn compile(&mut self, s: &[u8], origin: &Origin, f: &Flags) -> Result<(), Error> {
        let mut r = Reader {
            s,
            cur: 0,
            line: 1,
            origin,
        };
        self.chunks += 1;
        if self.chunks == 1 && s.starts_with(b"#n") {
            self.quiet = true;
        }
        if let Some(k) = self.pending.take() {
            let t = read_text(&mut r);
            if let Some(Cmd {
                kind: Kind::Text(_, text),
                ..
            }) = self.cmds.get_mut(k)
            {
                *text = t;
            }
        }
        loop {
            let mut ch = r.inchar();
            while ch == i32::from(b';') || u8::try_from(ch).is_ok_and(|c| c.is_ascii_whitespace()) {
                ch = r.inchar();
            }
            if ch == EOF {
                break;
            }
            let mut cmd = Cmd {
                a1: None,
                a2: None,
                bang: false,
                kind: Kind::Label,
            };
            if ch == i32::from(b'+') || ch == i32::from(b'~') {
                let d = r.in_nonblank();
                if (i32::from(b'0')..=i32::from(b'9')).contains(&d) {
                    r.in_integer(d);
                }
                return Err(r.err("invalid usage of +N or ~N as first address"));
            }
            if let Some(a) = self.address(&mut r, ch, f)? {
                cmd.a1 = Some(a);
                ch = r.in_nonblank();
                if ch == i32::from(b',') {
                    let c = r.in_nonblank();
                    let a2 = if c == i32::from(b'+') || c == i32::from(b'~') {
                        let d = r.in_nonblank();
                        if !(i32::from(b'0')..=i32::from(b'9')).contains(&d) {
                            return Err(r.err("expected newer version of sed"));
                        }
                        let n = r.in_integer(d);
                        if c == i32::from(b'+') {
                            Addr2::Plus(n)
                        } else {
                            Addr2::Mod(n)
                        }
                    } else {
                        match self.address(&mut r, c, f)? {
                            Some(Addr::Line(n) | Addr::Step(n, _)) => Addr2::Line(n),
                            Some(Addr::Last) => Addr2::Last,
                            Some(Addr::Re(x)) => Addr2::Re(x),
                            None => return Err(r.err("unexpected `,'")),
                        }
                    };
                    cmd.a2 = Some(a2);
                    ch = r.in_nonblank();
                }
                if matches!(cmd.a1, Some(Addr::Line(0)))
                    && (!matches!(cmd.a2, Some(Addr2::Re(_))) || f.posix)
                {
                    return Err(r.err("invalid usage of line address 0"));
                }
            }
            if ch == i32::from(b'!') {
                cmd.bang = true;
                ch = r.in_nonblank();
                while u8::try_from(ch).is_ok_and(|c| c.is_ascii_whitespace()) {
                    ch = r.in_nonblank();
                }
                if ch == i32::from(b'!') {
                    return Err(r.err("multiple `!'s"));
                }
            }
            let has_addr = cmd.a1.is_some();
            let c = u8::try_from(ch).unwrap_or(0);
            cmd.kind = match c {
                _ if ch == EOF => return Err(r.err("missing command")),
                b'#' => {
                    if has_addr {
                        return Err(r.err("comments don't accept any addresses"));
                    }
                    loop {
                        let c = r.inchar();
                        if c == EOF || c == i32::from(b'\n') {
                            break;
                        }
                    }
                    continue;
                }
                b'{' => {
                    self.blocks.push(self.cmds.len());
                    Kind::Block(0)
                }
                b'}' => {
                    let Some(open) = self.blocks.pop() else {
                        return Err(r.err("unexpected `}'"));
                    };
                    if has_addr {
                        return Err(r.err("`}' doesn't want any addresses"));
                    }
                    r.read_end_of_cmd()?;
                    let after = self.cmds.len() + 1;
                    if let Some(Cmd {
                        kind: Kind::Block(t),
                        ..
                    }) = self.cmds.get_mut(open)
                    {
                        *t = after;
                    }
                    Kind::EndBlock
                }
                b'e' => {
                    return Err(r.err("e/s///e is not supported in this shell"));
                }
                b'a' | b'i' | b'c' => {
                    let mut ch = r.in_nonblank();
                    if ch == EOF {
                        return Err(r.err("expected \\ after `a', `c' or `i'"));
                    }
                    if ch == i32::from(b'\\') {
                        ch = r.inchar();
                        if ch == EOF {
                            // `-e 'a\' -e 'TEXT'`: the text is the next chunk's first line.
                            self.pending = Some(self.cmds.len());
                            cmd.kind = Kind::Text(c, Vec::new());
                            self.cmds.push(cmd);
                            continue;
                        }
                        if ch != i32::from(b'\n') {
                            r.savchar(ch);
                        }
                    } else {
                        if f.posix {
                            return Err(r.err("expected \\ after `a', `c' or `i'"));
                        }
                        r.savchar(ch);
                    }
                    Kind::Text(c, read_text(&mut r))
                }
                b':' => {
                    if has_addr {
                        return Err(r.err(": doesn't want any addresses"));
                    }
                    let l = r.read_label();
                    if l.is_empty() {
                        return Err(r.err("\":\" lacks a label"));
                    }
                    Kind::Branch(b':', l, 0)
                }
                b'b' | b't' | b'T' => Kind::Branch(c, r.read_label(), usize::MAX),
                b'q' | b'Q' | b'l' | b'L' => {
                    if cmd.a2.is_some() && (c == b'q' || c == b'Q') {
                        return Err(r.err("command only uses one address"));
                    }
                    let mut ch = r.in_nonblank();
                    let mut n = None;
                    if (i32::from(b'0')..=i32::from(b'9')).contains(&ch) {
                        n = Some(r.in_integer(ch));
                        ch = r.in_nonblank();
                    }
                    if ch == i32::from(b'}') || ch == i32::from(b'#') {
                        r.savchar(ch);
                    } else if ch != EOF && ch != i32::from(b'\n') && ch != i32::from(b';') {
                        return Err(r.err("extra characters after command"));
                    }
                    match c {
                        b'q' | b'Q' => {
                            Kind::Quit(c == b'q', i32::try_from(n.unwrap_or(0) & 0xff).unwrap_or(0))
                        }
                        b'l' => Kind::List(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX))),
                        _ => return Err(r.err("unknown command: `L'")),
                    }
                }
                b'=' | b'd' | b'D' | b'F' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p'
                | b'P' | b'z' | b'x' => {
                    r.read_end_of_cmd()?;
                    Kind::Simple(c)
                }
                b'r' | b'R' | b'w' | b'W' => {
                    let name = r.read_filename();
                    if name.is_empty() {
                        return Err(r.err("missing filename in r/R/w/W commands"));
                    }
                    match c {
                        b'r' => Kind::ReadFile(name),
                        b'R' => Kind::ReadLine(name),
                        _ => Kind::Write(self.wfile(name), c == b'W'),
                    }
                }
                b's' => self.subst(&mut r, f)?,
                b'y' => {
                    let slash = r.inchar();
                    let Some(src) = r.match_slash(slash, false) else {
                        return Err(r.err("unterminated `y' command"));
                    };
                    let Some(dst) = r.match_slash(slash, false) else {
                        return Err(r.err("unterminated `y' command"));
                    };
                    let un = |v: &[u8]| -> Vec<u8> {
                        let mut o = Vec::new();
                        let mut i = 0;
                        while let Some(&c) = v.get(i) {
                            if c == b'\\' {
                                match v.get(i + 1) {
                                    Some(b'n') => o.push(b'\n'),
                                    Some(b'\\') | None => o.push(b'\\'),
                                    Some(&x) => {
                                        if let Some((byte, used)) = escape_byte(v, i + 1) {
                                            o.push(byte);
                                            i += 1 + used;
                                            continue;
                                        }
                                        o.push(b'\\');
                                        o.push(x);
                                    }
                                }
                                i += 2;
                            } else {
                                o.push(c);
                                i += 1;
                            }
                        }
                        o
                    };
                    let (src, dst) = (un(&src), un(&dst));
                    if src.len() != dst.len() {
                        return Err(r.err("strings for `y' command are different lengths"));
                    }
                    let mut map = [0u8; 256];
                    for (k, m) in map.iter_mut().enumerate() {
                        *m = u8::try_from(k).unwrap_or(0);
                    }
                    for (a, b) in src.iter().zip(&dst) {
                        if let Some(m) = map.get_mut(usize::from(*a)) {
                            *m = *b;
                        }
                    }
                    r.read_end_of_cmd()?;
                    Kind::Translit(Box::new(map))
                }
                b'v' => {
                    r.read_label();
                    continue;
                }
                _ => {
                    return Err(r.err(&format!("unknown command: `{}'", char::from(c))));
                }
            };
            self.cmds.push(cmd);
        }
        Ok(())
    }

    fn subst(&mut self, r: &mut Reader, f: &Flags) -> Result<Kind, Error> {
        let slash = r.inchar();
        let Some(pat) = r.match_slash(slash, true) else {
            return Err(r.err("unterminated `s' command"));
        };
        let Some(rep) = r.match_slash(slash, false) else {
            return Err(r.err("unterminated `s' command"));
        };
        let mut s = Subst {
            re: None,
            repl: Vec::new(),
            global: false,
            print: false,
            nth: 0,
            wfile: None,
        };
        let (mut icase, mut ml) = (false, false);
        loop {
            let ch = r.inchar();
            match u8::try_from(ch).ok() {
                Some(b'i' | b'I') => icase = true,
                Some(b'm' | b'M') => ml = true,
                Some(b'e') => return Err(r.err("e/s///e is not supported in this shell")),
                Some(b'p') => {
                    if s.print {
                        return Err(r.err("multiple `p' options to `s' command"));
                    }
                    s.print = true;
                }
                Some(b'g') => {
                    if s.global {
                        return Err(r.err("multiple `g' options to `s' command"));
                    }
                    s.global = true;
                }
                Some(b'w') => {
                    let name = r.read_filename();
                    if name.is_empty() {
                        return Err(r.err("missing filename in r/R/w/W commands"));
                    }
                    s.wfile = Some(self.wfile(name));
                    break;
                }
                Some(d @ b'0'..=b'9') => {
                    if s.nth != 0 {
                        return Err(r.err("multiple number options to `s' command"));
                    }
                    s.nth = r.in_integer(i32::from(d));
                    if s.nth == 0 {
                        return Err(r.err("number option to `s' command may not be zero"));
                    }
                }
                Some(b' ' | b'\t') => {}
                Some(b'}' | b'#') => {
                    r.savchar(ch);
                    break;
                }
                None | Some(b'\n' | b';') => break,
                _ => return Err(r.err("unknown option to `s'")),
            }
        }
        s.re = self.regex(r, &pat, icase, ml, f)?;
        let groups = s.re.and_then(|k| self.regexes.get(k)).map(Regex::groups);
        s.repl = parse_replacement(&rep, groups, r)?;
        if s.nth == 0 {
            s.nth = 1;
        }
        Ok(Kind::Subst(Box::new(s)))
    }

    /// After the last chunk: unmatched braces and labels.
    pub fn finish(&mut self, last: &Origin) -> Result<(), Error> {
        if !self.blocks.is_empty() {
            let msg = "unmatched `{'";
            return Err((
                match last {
                    Origin::Expr(n) => format!("-e expression #{n}, char 0: {msg}"),
                    Origin::File(f) => format!("file {f} line 0: {msg}"),
                },
                1,
            ));
        }
        let labels: Vec<(String, usize)> = self
            .cmds
            .iter()
            .enumerate()
            .filter_map(|(k, c)| match &c.kind {
                Kind::Branch(b':', l, _) => Some((l.clone(), k)),
                _ => None,
            })
            .collect();
        for c in &mut self.cmds {
            if let Kind::Branch(b @ (b'b' | b't' | b'T'), l, t) = &mut c.kind {
                let _ = b;
                if l.is_empty() {
                    *t = usize::MAX;
                    continue;
                }
                match labels.iter().find(|(n, _)| n == l) {
                    Some((_, k)) => *t = *k,
                    None => return Err((format!("can't find label for jump to `{l}'"), 4)),
                }
            }
        }
        Ok(())
    }
}
