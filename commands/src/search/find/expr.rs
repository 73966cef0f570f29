//! The expression: GNU find's tests, actions and operators (`-name`, `-type`, `-mtime`,
//! `-exec` and its kin, `!`, `-a`, `-o`, parentheses) parsed into an `Expr` tree, with GNU's
//! diagnostics.

#[allow(clippy::wildcard_imports)]
use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Less,
    Equal,
    Greater,
}

impl Cmp {
    pub(super) fn test(self, value: i128, n: i128) -> bool {
        match self {
            Cmp::Less => value < n,
            Cmp::Equal => value == n,
            Cmp::Greater => value > n,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeField {
    Access,
    Modify,
    Change,
}

#[derive(Debug)]
pub(super) enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    True,
    False,
    Name {
        pat: Vec<u8>,
        fold: bool,
    },
    Path {
        pat: Vec<u8>,
        fold: bool,
    },
    Lname {
        pat: Vec<u8>,
        fold: bool,
    },
    Type(Vec<u8>),
    Size {
        cmp: Cmp,
        n: u64,
        unit: u64,
    },
    Empty,
    Newer(SystemTime),
    Time {
        field: TimeField,
        cmp: Cmp,
        n: f64,
        unit: i64,
    },
    Links {
        cmp: Cmp,
        n: u64,
    },
    Print,
    Print0,
    Printf(Vec<Seg>),
    Prune,
    Delete,
    Quit,
    /// `-exec`, `-execdir`, `-ok`, `-okdir`: the index of its [`ExecSpec`].
    Exec(usize),
    /// `-regex`, `-iregex`: the whole path must match.
    Regex(crate::GnuRegex),
    /// `-perm MODE` (`b'='`), `-perm -MODE` (`b'-'`: all of these bits), `-perm /MODE`
    /// (`b'/'`: any of them).
    Perm {
        how: u8,
        mode: u32,
    },
}

/// `-regextype`'s dialects: findutils' default (Emacs syntax), POSIX basic, extended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum RegexType {
    #[default]
    Emacs,
    Basic,
    Extended,
}

/// The types `-regextype` knows, in GNU's order (its error lists them).
const REGEX_TYPES: [(&str, RegexType); 13] = [
    ("findutils-default", RegexType::Emacs),
    ("ed", RegexType::Basic),
    ("emacs", RegexType::Emacs),
    ("gnu-awk", RegexType::Extended),
    ("grep", RegexType::Basic),
    ("posix-awk", RegexType::Extended),
    ("awk", RegexType::Extended),
    ("posix-basic", RegexType::Basic),
    ("posix-egrep", RegexType::Extended),
    ("egrep", RegexType::Extended),
    ("posix-extended", RegexType::Extended),
    ("posix-minimal-basic", RegexType::Basic),
    ("sed", RegexType::Basic),
];

/// An Emacs-syntax pattern (`RE_SYNTAX_EMACS`) written as a POSIX extended one: `\(`,
/// `\)`, `\|` are the operators and `(`, `)`, `|`, `{`, `}` literals; `*`, `+`, `?` are
/// literal where nothing precedes them, `^` and `$` anchors only at the ends of the pattern
/// or of a group or alternative; `\?` and `\+` are literal.
fn emacs_to_ere(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() + 8);
    let mut i = 0;
    // At the start of the pattern, a group or an alternative.
    let mut at_start = true;
    while let Some(&c) = p.get(i) {
        i += 1;
        let was_start = at_start;
        at_start = false;
        match c {
            b'\\' => {
                let Some(&n) = p.get(i) else {
                    out.extend_from_slice(b"\\\\");
                    break;
                };
                i += 1;
                match n {
                    b'(' => {
                        out.push(b'(');
                        at_start = true;
                    }
                    b')' => out.push(b')'),
                    b'|' => {
                        out.push(b'|');
                        at_start = true;
                    }
                    b'w' | b'W' | b'b' | b'B' | b'<' | b'>' | b'`' | b'\'' | b'1'..=b'9' => {
                        out.push(b'\\');
                        out.push(n);
                    }
                    _ if n.is_ascii_alphanumeric() => out.push(n),
                    _ if n.is_ascii() => {
                        out.push(b'\\');
                        out.push(n);
                    }
                    _ => out.push(n),
                }
            }
            b'(' | b')' | b'|' | b'{' | b'}' => {
                out.push(b'\\');
                out.push(c);
            }
            b'*' | b'+' | b'?' if was_start => {
                out.push(b'\\');
                out.push(c);
                at_start = true;
            }
            b'^' if !was_start => out.extend_from_slice(b"\\^"),
            b'^' => {
                out.push(b'^');
                at_start = true;
            }
            b'$' => {
                let rest = p.get(i..).unwrap_or_default();
                if rest.is_empty() || rest.starts_with(b"\\)") || rest.starts_with(b"\\|") {
                    out.push(b'$');
                } else {
                    out.extend_from_slice(b"\\$");
                }
            }
            b'[' => {
                // A bracket expression, copied whole (a `]` first is a member).
                out.push(b'[');
                if p.get(i) == Some(&b'^') {
                    out.push(b'^');
                    i += 1;
                }
                if p.get(i) == Some(&b']') {
                    out.push(b']');
                    i += 1;
                }
                while let Some(&b) = p.get(i) {
                    i += 1;
                    out.push(b);
                    if b == b']' {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// One `-exec`-like action: the command words and, for the `+` form, the names waiting
/// for the next command line.
#[derive(Debug, Default)]
pub(super) struct ExecSpec {
    /// The words before `;` (`{}` replaced in each), or before the `{}` that ends a `+`.
    pub(super) words: Vec<Vec<u8>>,
    /// The `{} +` form: names are appended, many to a command line.
    pub(super) batch: bool,
    /// `-execdir`/`-okdir`: runs in the file's directory, on `./NAME`.
    pub(super) in_dir: bool,
    /// `-ok`/`-okdir`: asks first.
    pub(super) ask: bool,
    /// The names waiting (`+`), with the bytes the command line would take.
    pub(super) pending: Vec<Vec<u8>>,
    pub(super) pending_chars: usize,
    /// The directory the waiting names are in (`-execdir +`).
    pub(super) pending_dir: Option<PathBuf>,
}

impl Expr {
    pub(super) fn has_action(&self) -> bool {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.has_action() || b.has_action()
            }
            Expr::Not(a) => a.has_action(),
            Expr::Print | Expr::Print0 | Expr::Printf(_) | Expr::Delete | Expr::Exec(_) => true,
            _ => false,
        }
    }
    pub(super) fn has(&self, f: fn(&Expr) -> bool) -> bool {
        f(self)
            || match self {
                Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => a.has(f) || b.has(f),
                Expr::Not(a) => a.has(f),
                _ => false,
            }
    }
}

/// Options that apply to the whole run, wherever they appear.
#[derive(Debug, Default)]
pub(super) struct Global {
    pub(super) maxdepth: Option<usize>,
    pub(super) mindepth: usize,
    pub(super) depth_first: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Follow {
    Never,
    StartPoints,
    Always,
}

pub(super) struct Parser<'a> {
    pub(super) toks: &'a [OsString],
    pub(super) i: usize,
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) global: Global,
    pub(super) follow: Follow,
    /// The last primary parsed, for GNU's hint about an unquoted pattern.
    pub(super) last_primary: Option<String>,
    /// The `-exec`-like actions, in order.
    pub(super) execs: Vec<ExecSpec>,
    /// Warnings about the expression (`-printf`'s unknown escapes), shown before the walk.
    pub(super) warnings: Vec<String>,
    /// The dialect of the `-regex` tests that follow (`-regextype`).
    pub(super) regex_type: RegexType,
}

pub(super) type Parse<T> = Result<T, String>;

pub(super) fn int_arg(s: &[u8]) -> Option<(Cmp, &[u8])> {
    match s.first() {
        Some(b'+') => Some((Cmp::Greater, s.get(1..)?)),
        Some(b'-') => Some((Cmp::Less, s.get(1..)?)),
        _ => Some((Cmp::Equal, s)),
    }
}

pub(super) fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&[u8]> {
        self.toks.get(self.i).map(|t| t.as_bytes())
    }

    pub(super) fn arg(&mut self, pred: &str) -> Parse<Vec<u8>> {
        let v = self
            .toks
            .get(self.i)
            .ok_or_else(|| format!("missing argument to `{pred}'"))?;
        self.i += 1;
        Ok(v.as_bytes().to_vec())
    }

    pub(super) fn or(&mut self) -> Parse<Expr> {
        let mut left = self.and()?;
        while let Some(t) = self.peek() {
            let comma = t == b",";
            if !(t == b"-o" || t == b"-or" || comma) {
                break;
            }
            let op = String::from_utf8_lossy(t).into_owned();
            self.i += 1;
            if self.peek().is_none() {
                return Err(format!("expected an expression after '{op}'"));
            }
            let right = self.and()?;
            left = if comma {
                Expr::Comma(Box::new(left), Box::new(right))
            } else {
                Expr::Or(Box::new(left), Box::new(right))
            };
        }
        Ok(left)
    }

    pub(super) fn and(&mut self) -> Parse<Expr> {
        let mut left = self.not()?;
        while let Some(t) = self.peek() {
            if t == b"-a" || t == b"-and" {
                let op = String::from_utf8_lossy(t).into_owned();
                self.i += 1;
                if self.peek().is_none() {
                    return Err(format!("expected an expression after '{op}'"));
                }
            } else if matches!(t, b"-o" | b"-or" | b"," | b")") {
                break;
            }
            let right = self.not()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    pub(super) fn not(&mut self) -> Parse<Expr> {
        let Some(t) = self.peek() else {
            return Err("expected an expression".into());
        };
        match t {
            b"!" | b"-not" => {
                let op = String::from_utf8_lossy(t).into_owned();
                self.i += 1;
                if self.peek().is_none() {
                    return Err(format!("expected an expression after '{op}'"));
                }
                Ok(Expr::Not(Box::new(self.not()?)))
            }
            b"(" => {
                self.i += 1;
                if self.peek() == Some(b")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                if self.peek().is_none() {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                let e = self.or()?;
                if self.peek() != Some(b")") {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                self.i += 1;
                Ok(e)
            }
            b")" => Err("you have too many ')'".into()),
            b"-o" | b"-or" | b"-a" | b"-and" | b"," => Err(format!(
                "invalid expression; you have used a binary operator '{}' with nothing before it.",
                String::from_utf8_lossy(t)
            )),
            _ => self.primary(),
        }
    }

    pub(super) fn time(&mut self, pred: &str, field: TimeField, unit: i64) -> Parse<Expr> {
        let v = self.arg(pred)?;
        let bad = || {
            format!(
                "invalid argument `{}' to `{pred}'",
                String::from_utf8_lossy(&v)
            )
        };
        let (cmp, rest) = int_arg(&v).ok_or_else(bad)?;
        // A decimal number (GNU takes `-mmin -1.5`).
        let (whole, frac) = match memchr::memchr(b'.', rest) {
            Some(k) => (
                rest.get(..k).unwrap_or_default(),
                rest.get(k + 1..).unwrap_or_default(),
            ),
            None => (rest, &b""[..]),
        };
        if (whole.is_empty() && frac.is_empty())
            || !whole.iter().chain(frac).all(u8::is_ascii_digit)
        {
            return Err(bad());
        }
        let n: f64 = std::str::from_utf8(rest)
            .ok()
            .and_then(|t| format!("0{t}").parse().ok())
            .ok_or_else(bad)?;
        Ok(Expr::Time {
            field,
            cmp,
            n,
            unit,
        })
    }

    pub(super) fn depth_arg(&mut self, pred: &str) -> Parse<usize> {
        let v = self.arg(pred)?;
        digits(&v)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "Expected a positive decimal integer argument to {pred}, but got {}",
                    quote_locale(OsStr::from_bytes(&v))
                )
            })
    }

    pub(super) fn type_arg(&mut self, pred: &str) -> Parse<Expr> {
        let v = self.arg(pred)?;
        if v.is_empty() {
            return Err(format!(
                "Arguments to {pred} should contain at least one letter"
            ));
        }
        let mut kinds = Vec::new();
        for (k, part) in v.split(|&c| c == b',').enumerate() {
            match part {
                [c] if b"bcdpflsD".contains(c) => kinds.push(*c),
                [] if k > 0 => {
                    return Err(format!(
                        "Last file type in list argument to {pred} is missing, i.e., list is ending on: ','"
                    ));
                }
                [c, ..] if b"bcdpflsD".contains(c) => {
                    return Err(format!(
                        "Must separate multiple arguments to {pred} using: ','"
                    ));
                }
                _ => {
                    return Err(format!(
                        "Unknown argument to {pred}: {}",
                        String::from_utf8_lossy(part.get(..1).unwrap_or(part))
                    ));
                }
            }
        }
        Ok(Expr::Type(kinds))
    }

    pub(super) fn size_arg(&mut self) -> Parse<Expr> {
        let v = self.arg("-size")?;
        if v.is_empty() {
            return Err("invalid null argument to -size".into());
        }
        let (cmp, rest) = int_arg(&v).unwrap_or((Cmp::Equal, &v));
        let (num, unit) = match rest.last() {
            Some(c) if c.is_ascii_digit() => (rest, 512),
            Some(&c) => {
                let unit = match c {
                    b'b' => 512,
                    b'c' => 1,
                    b'w' => 2,
                    b'k' => 1024,
                    b'M' => 1024 * 1024,
                    b'G' => 1024 * 1024 * 1024,
                    _ => {
                        return Err(format!(
                            "invalid -size type `{}'",
                            String::from_utf8_lossy(&[c])
                        ));
                    }
                };
                (rest.get(..rest.len() - 1).unwrap_or_default(), unit)
            }
            None => {
                return Err(format!(
                    "invalid -size type `{}'",
                    String::from_utf8_lossy(&v)
                ));
            }
        };
        let n = digits(num).ok_or_else(|| {
            format!(
                "Invalid argument `{}' to -size",
                String::from_utf8_lossy(&v)
            )
        })?;
        Ok(Expr::Size { cmp, n, unit })
    }

    /// `-exec CMD... ;` or `-exec CMD... {} +` (and the `dir`/`ok` forms), with GNU's rules:
    /// `+` ends the command only right after a word holding `{}`, which must then be `{}`
    /// alone and the only one; `-ok` has no `+` form.
    pub(super) fn exec(&mut self, name: &str) -> Parse<Expr> {
        let ask = name.starts_with("-ok");
        let in_dir = name.ends_with("dir");
        let start = self.i;
        let mut end = start;
        let mut batch = false;
        let mut saw = false;
        let mut braces = 0;
        let mut brace_arg: &[u8] = b"";
        while let Some(t) = self.toks.get(end).map(|t| t.as_bytes()) {
            if t == b";" {
                break;
            }
            if t == b"+" && saw && !ask {
                batch = true;
                break;
            }
            saw = memchr::memmem::find(t, b"{}").is_some();
            if saw {
                braces += 1;
                brace_arg = t;
            }
            end += 1;
        }
        if end >= self.toks.len() {
            return Err(format!("missing argument to `{name}'"));
        }
        if end == start {
            return Err(format!(
                "invalid argument `{}' to `{name}'",
                String::from_utf8_lossy(
                    self.toks.get(end).map(|t| t.as_bytes()).unwrap_or_default()
                )
            ));
        }
        if batch && braces > 1 {
            return Err(format!(
                "Only one instance of {{}} is supported with {name} ... +"
            ));
        }
        if batch && brace_arg != b"{}" {
            return Err(format!(
                "In {} the {} must appear by itself, but you specified {}",
                quote_locale(format!("{name} ... {{}} +")),
                quote_locale("{}"),
                quote_locale(OsStr::from_bytes(brace_arg))
            ));
        }
        if in_dir && let Some(path) = self.ctx.vars.get("PATH") {
            for entry in path.split(':') {
                if entry.is_empty() || entry == "." {
                    return Err(format!(
                        "The current directory is included in the PATH environment variable, which is insecure in combination with the {name} action of find.  Please remove the current directory from your $PATH (that is, remove \".\", doubled colons, or leading or trailing colons)"
                    ));
                }
                if !entry.starts_with('/') {
                    return Err(format!(
                        "The relative path {} is included in the PATH environment variable, which is insecure in combination with the {name} action of find.  Please remove that entry from $PATH",
                        quote_locale(entry)
                    ));
                }
            }
        }
        let last = if batch { end - 1 } else { end };
        let words = self
            .toks
            .get(start..last)
            .unwrap_or_default()
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        self.i = end + 1;
        self.execs.push(ExecSpec {
            words,
            batch,
            in_dir,
            ask,
            ..ExecSpec::default()
        });
        Ok(Expr::Exec(self.execs.len() - 1))
    }

    /// `-perm MODE`, `-MODE`, `/MODE`: octal or symbolic (applied to no bits, umask 0).
    pub(super) fn perm(&mut self) -> Parse<Expr> {
        let v = self.arg("-perm")?;
        let (how, text) = match v.first() {
            Some(b'-') => (b'-', v.get(1..).unwrap_or_default()),
            Some(b'/') => (b'/', v.get(1..).unwrap_or_default()),
            _ => (b'=', v.as_slice()),
        };
        let invalid = || format!("invalid mode {}", quote_locale(OsStr::from_bytes(&v)));
        if text.first() == Some(&b'+') {
            return Err(invalid());
        }
        let mode = std::str::from_utf8(text)
            .ok()
            .filter(|t| !t.is_empty())
            .and_then(crate::support::mode::Mode::parse)
            .ok_or_else(invalid)?
            .adjust(0, false, 0);
        if how == b'/' && mode == 0 {
            self.warnings.push(format!(
                "warning: you have specified a mode pattern /{mode:03o} (which is equivalent to /{mode:03o}). The meaning of -perm /{mode:03o} has now been changed to be consistent with -perm -{mode:03o}; that is, while it used to match no files, it now matches all files."
            ));
        }
        Ok(Expr::Perm { how, mode })
    }

    pub(super) fn primary(&mut self) -> Parse<Expr> {
        let tok = self.peek().unwrap_or_default().to_vec();
        let name = String::from_utf8_lossy(&tok).into_owned();
        if tok.first() != Some(&b'-') || tok.len() < 2 {
            let mut msg = format!("paths must precede expression: `{name}'");
            // GNU guesses at a glob the shell expanded when the stray word names a file.
            let exists = self
                .ctx
                .fs
                .stat(&self.ctx.resolve(OsStr::from_bytes(&tok)), true);
            if let (Some(p), true) = (&self.last_primary, exists.is_ok()) {
                msg.push_str("\nfind: possible unquoted pattern after predicate `");
                msg.push_str(p);
                msg.push_str("'?");
            }
            return Err(msg);
        }
        self.i += 1;
        self.last_primary = Some(name.clone());
        let pattern = |p: &mut Self, fold: bool, kind: u8| -> Parse<Expr> {
            let pat = p.arg(&name)?;
            Ok(match kind {
                b'n' => Expr::Name { pat, fold },
                b'p' => Expr::Path { pat, fold },
                _ => Expr::Lname { pat, fold },
            })
        };
        match name.as_str() {
            "-name" => pattern(self, false, b'n'),
            "-iname" => pattern(self, true, b'n'),
            "-path" | "-wholename" => pattern(self, false, b'p'),
            "-ipath" | "-iwholename" => pattern(self, true, b'p'),
            "-lname" => pattern(self, false, b'l'),
            "-ilname" => pattern(self, true, b'l'),
            "-type" => self.type_arg("-type"),
            "-size" => self.size_arg(),
            "-empty" => Ok(Expr::Empty),
            "-false" => Ok(Expr::False),
            "-newer" => {
                let f = self.arg("-newer")?;
                let follow = self.follow != Follow::Never;
                let path = self.ctx.resolve(OsStr::from_bytes(&f));
                match self.ctx.fs.stat(&path, follow) {
                    Ok(m) => Ok(Expr::Newer(m.mtime)),
                    Err(e) => Err(format!(
                        "{}: {}",
                        quote_locale(OsStr::from_bytes(&f)),
                        e.strerror()
                    )),
                }
            }
            "-mtime" => self.time("-mtime", TimeField::Modify, 86400),
            "-atime" => self.time("-atime", TimeField::Access, 86400),
            "-ctime" => self.time("-ctime", TimeField::Change, 86400),
            "-mmin" => self.time("-mmin", TimeField::Modify, 60),
            "-amin" => self.time("-amin", TimeField::Access, 60),
            "-cmin" => self.time("-cmin", TimeField::Change, 60),
            "-links" => {
                let v = self.arg("-links")?;
                let bad = || {
                    format!(
                        "invalid argument `{}' to `-links'",
                        String::from_utf8_lossy(&v)
                    )
                };
                let (cmp, rest) = int_arg(&v).ok_or_else(bad)?;
                let n = digits(rest).ok_or_else(bad)?;
                Ok(Expr::Links { cmp, n })
            }
            "-maxdepth" => {
                self.global.maxdepth = Some(self.depth_arg("-maxdepth")?);
                Ok(Expr::True)
            }
            "-mindepth" => {
                self.global.mindepth = self.depth_arg("-mindepth")?;
                Ok(Expr::True)
            }
            "-depth" | "-d" => {
                self.global.depth_first = true;
                Ok(Expr::True)
            }
            "-follow" => {
                self.follow = Follow::Always;
                Ok(Expr::True)
            }
            "-true"
            | "-xdev"
            | "-mount"
            | "-noleaf"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-nowarn"
            | "-warn"
            | "-daystart" => Ok(Expr::True),
            "-print" => Ok(Expr::Print),
            "-print0" => Ok(Expr::Print0),
            "-printf" => {
                let (segs, warnings) = printf::parse(&self.arg("-printf")?)?;
                self.warnings.extend(warnings);
                Ok(Expr::Printf(segs))
            }
            "-prune" => Ok(Expr::Prune),
            "-delete" => {
                self.global.depth_first = true;
                Ok(Expr::Delete)
            }
            "-quit" => Ok(Expr::Quit),
            "-exec" | "-execdir" | "-ok" | "-okdir" => self.exec(&name),
            "-regextype" => {
                let v = self.arg("-regextype")?;
                let found = REGEX_TYPES
                    .iter()
                    .find(|(n, _)| n.as_bytes() == v.as_slice());
                let Some((_, t)) = found else {
                    let names: Vec<String> =
                        REGEX_TYPES.iter().map(|(n, _)| quote_locale(n)).collect();
                    return Err(format!(
                        "Unknown regular expression type {}; valid types are {}.",
                        quote_locale(OsStr::from_bytes(&v)),
                        names.join(", ")
                    ));
                };
                self.regex_type = *t;
                Ok(Expr::True)
            }
            "-regex" | "-iregex" => {
                let v = self.arg(&name)?;
                let (syntax, body) = match self.regex_type {
                    RegexType::Emacs => (crate::RegexSyntax::Extended, emacs_to_ere(&v)),
                    RegexType::Basic => (crate::RegexSyntax::Basic, v.clone()),
                    RegexType::Extended => (crate::RegexSyntax::Extended, v.clone()),
                };
                // The whole path must match: anchored at both ends, around a group.
                let (open, close): (&[u8], &[u8]) = match syntax {
                    crate::RegexSyntax::Basic => (b"^\\(", b"\\)$"),
                    crate::RegexSyntax::Extended => (b"^(", b")$"),
                };
                let whole = [open, &body, close].concat();
                let mut opts = crate::RegexOptions::new(syntax);
                opts.icase = name == "-iregex";
                match crate::GnuRegex::new(&whole, &opts) {
                    Ok((re, _)) => Ok(Expr::Regex(re)),
                    Err(msg) => Err(format!(
                        "failed to compile regular expression {}: {msg}",
                        quote_locale(OsStr::from_bytes(&v))
                    )),
                }
            }
            "-perm" => self.perm(),
            "-ls" | "-fls" | "-fprint" | "-fprint0" | "-fprintf" | "-user" | "-group" | "-uid"
            | "-gid" | "-nouser" | "-nogroup" | "-readable" | "-writable" | "-executable"
            | "-inum" | "-samefile" | "-xtype" | "-used" | "-anewer" | "-cnewer" | "-fstype"
            | "-context" => Err(format!("{name} is not supported by this find")),
            _ => Err(format!("unknown predicate `{name}'")),
        }
    }
}
