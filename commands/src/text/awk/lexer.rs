//! awk's tokens: the program text cut into words, with gawk's rule for `/` (a regular
//! expression where an operand may start, a division after one), newlines kept (they end
//! statements) except after a backslash, and the position of each token for gawk's caret.

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Newline,
    Eof,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Not,
    Gt,
    Lt,
    Pipe,
    PipeAmp,
    Question,
    Colon,
    Tilde,
    NoMatch,
    Dollar,
    Incr,
    Decr,
    Assign,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    ModAssign,
    PowAssign,
    Eq,
    Ne,
    Le,
    Ge,
    And,
    Or,
    Append,
    Number(f64),
    Str(Vec<u8>),
    Regex(Vec<u8>),
    Name(String),
    /// A name followed at once by `(`: a user function call.
    FuncName(String),
    Builtin(String),
    Begin,
    End,
    Function,
    If,
    Else,
    While,
    For,
    Do,
    Break,
    Continue,
    Next,
    Nextfile,
    Exit,
    Return,
    Delete,
    Getline,
    Print,
    Printf,
    In,
}

/// A token and where it starts: its line (1-based) and its byte offset in that line.
#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    /// Offset of the token's start in the whole text.
    pub at: usize,
}

/// A lexical error: the message and where.
#[derive(Debug)]
pub struct LexError {
    pub msg: String,
    pub at: usize,
}

pub const BUILTINS: &[&str] = &[
    "atan2", "close", "cos", "exp", "fflush", "gensub", "index", "int", "length", "log", "match",
    "rand", "sin", "split", "sprintf", "sqrt", "srand", "strftime", "sub", "gsub", "substr",
    "system", "systime", "tolower", "toupper",
];

fn keyword(w: &str) -> Option<Tok> {
    Some(match w {
        "BEGIN" => Tok::Begin,
        "END" => Tok::End,
        "function" | "func" => Tok::Function,
        "if" => Tok::If,
        "else" => Tok::Else,
        "while" => Tok::While,
        "for" => Tok::For,
        "do" => Tok::Do,
        "break" => Tok::Break,
        "continue" => Tok::Continue,
        "next" => Tok::Next,
        "nextfile" => Tok::Nextfile,
        "exit" => Tok::Exit,
        "return" => Tok::Return,
        "delete" => Tok::Delete,
        "getline" => Tok::Getline,
        "print" => Tok::Print,
        "printf" => Tok::Printf,
        "in" => Tok::In,
        _ => return None,
    })
}

/// Whether a `/` after this token is a division (the token ends an operand).
fn ends_operand(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Name(_)
            | Tok::Number(_)
            | Tok::Str(_)
            | Tok::Regex(_)
            | Tok::RParen
            | Tok::RBracket
            | Tok::Incr
            | Tok::Decr
            | Tok::Dollar
            | Tok::Builtin(_)
    )
}

/// Cuts the whole program into tokens; also gives gawk's warnings (unknown escapes).
pub fn tokenize(src: &[u8]) -> Result<(Vec<Token>, Vec<String>), LexError> {
    let mut out: Vec<Token> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut i = 0usize;
    let at = |i: usize| src.get(i).copied().unwrap_or(0);
    loop {
        // Blanks, comments, continued lines.
        loop {
            match at(i) {
                b' ' | b'\t' | b'\r' => i += 1,
                b'\\' if at(i + 1) == b'\n' => {
                    i += 2;
                }
                b'\\' if at(i + 1) == b'\r' && at(i + 2) == b'\n' => {
                    i += 3;
                }
                b'#' => {
                    while i < src.len() && at(i) != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        let start = i;
        let push = |out: &mut Vec<Token>, tok: Tok| {
            out.push(Token { tok, at: start });
        };
        if i >= src.len() {
            push(&mut out, Tok::Eof);
            return Ok((out, warnings));
        }
        let c = at(i);
        let c2 = at(i + 1);
        let two = |t: Tok| (t, 2usize);
        let one = |t: Tok| (t, 1usize);
        let (tok, len) = match c {
            b'\n' => {
                push(&mut out, Tok::Newline);
                i += 1;
                continue;
            }
            b'{' => one(Tok::LBrace),
            b'}' => one(Tok::RBrace),
            b'(' => one(Tok::LParen),
            b')' => one(Tok::RParen),
            b'[' => one(Tok::LBracket),
            b']' => one(Tok::RBracket),
            b';' => one(Tok::Semi),
            b',' => one(Tok::Comma),
            b'?' => one(Tok::Question),
            b':' => one(Tok::Colon),
            b'~' => one(Tok::Tilde),
            b'$' => one(Tok::Dollar),
            b'+' if c2 == b'+' => two(Tok::Incr),
            b'+' if c2 == b'=' => two(Tok::AddAssign),
            b'+' => one(Tok::Plus),
            b'-' if c2 == b'-' => two(Tok::Decr),
            b'-' if c2 == b'=' => two(Tok::SubAssign),
            b'-' => one(Tok::Minus),
            b'*' if c2 == b'*' && at(i + 2) == b'=' => (Tok::PowAssign, 3),
            b'*' if c2 == b'*' => two(Tok::Caret),
            b'*' if c2 == b'=' => two(Tok::MulAssign),
            b'*' => one(Tok::Star),
            b'%' if c2 == b'=' => two(Tok::ModAssign),
            b'%' => one(Tok::Percent),
            b'^' if c2 == b'=' => two(Tok::PowAssign),
            b'^' => one(Tok::Caret),
            b'!' if c2 == b'=' => two(Tok::Ne),
            b'!' if c2 == b'~' => two(Tok::NoMatch),
            b'!' => one(Tok::Not),
            b'>' if c2 == b'=' => two(Tok::Ge),
            b'>' if c2 == b'>' => two(Tok::Append),
            b'>' => one(Tok::Gt),
            b'<' if c2 == b'=' => two(Tok::Le),
            b'<' => one(Tok::Lt),
            b'=' if c2 == b'=' => two(Tok::Eq),
            b'=' => one(Tok::Assign),
            b'&' if c2 == b'&' => two(Tok::And),
            b'|' if c2 == b'|' => two(Tok::Or),
            b'|' if c2 == b'&' => two(Tok::PipeAmp),
            b'|' => one(Tok::Pipe),
            b'/' => {
                let division = out.last().is_some_and(|t| ends_operand(&t.tok));
                if division {
                    if c2 == b'=' {
                        two(Tok::DivAssign)
                    } else {
                        one(Tok::Slash)
                    }
                } else {
                    let (re, end) = lex_regex(src, i + 1).ok_or(LexError {
                        msg: "unterminated regexp".into(),
                        at: i + 1,
                    })?;
                    (Tok::Regex(re), end - i)
                }
            }
            b'"' => {
                let (s, end) = lex_string(src, i + 1, &mut warnings).ok_or(LexError {
                    msg: "unterminated string".into(),
                    at: i,
                })?;
                (Tok::Str(s), end - i)
            }
            b'0'..=b'9' | b'.' if c != b'.' || c2.is_ascii_digit() => {
                let (n, end) = lex_number(src, i);
                (Tok::Number(n), end - i)
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let mut j = i;
                while at(j).is_ascii_alphanumeric() || at(j) == b'_' {
                    j += 1;
                }
                let w = String::from_utf8_lossy(src.get(i..j).unwrap_or_default()).into_owned();
                let tok = if let Some(k) = keyword(&w) {
                    k
                } else if BUILTINS.contains(&w.as_str()) {
                    Tok::Builtin(w)
                } else if at(j) == b'(' {
                    Tok::FuncName(w)
                } else {
                    Tok::Name(w)
                };
                (tok, j - i)
            }
            _ => {
                return Err(LexError {
                    msg: "syntax error".into(),
                    at: i,
                });
            }
        };
        push(&mut out, tok);
        i += len;
    }
}

/// A regex literal's text up to the closing `/` (`\/` kept as `/`; a `/` inside a bracket
/// expression does not close it). `None`: no closing `/` before the end of the line.
fn lex_regex(src: &[u8], mut i: usize) -> Option<(Vec<u8>, usize)> {
    let mut re = Vec::new();
    let mut in_bracket = false;
    loop {
        let c = *src.get(i)?;
        match c {
            b'\n' => return None,
            b'\\' => {
                let n = *src.get(i + 1)?;
                if n == b'/' {
                    re.push(b'/');
                } else if n == b'\n' {
                    // A continued line.
                } else {
                    re.push(b'\\');
                    re.push(n);
                }
                i += 2;
                continue;
            }
            b'[' if !in_bracket => {
                in_bracket = true;
                re.push(c);
                i += 1;
                // `[]...]` and `[^]...]`: the first `]` is literal.
                if src.get(i) == Some(&b'^') {
                    re.push(b'^');
                    i += 1;
                }
                if src.get(i) == Some(&b']') {
                    re.push(b']');
                    i += 1;
                }
                continue;
            }
            b'[' if in_bracket && matches!(src.get(i + 1), Some(b':' | b'.' | b'=')) => {
                // A class `[:alpha:]` inside a bracket: copy to its end.
                let close = *src.get(i + 1)?;
                re.push(b'[');
                re.push(close);
                i += 2;
                while let Some(&d) = src.get(i) {
                    if d == b'\n' {
                        return None;
                    }
                    re.push(d);
                    i += 1;
                    if d == close && src.get(i) == Some(&b']') {
                        re.push(b']');
                        i += 1;
                        break;
                    }
                }
                continue;
            }
            b']' if in_bracket => in_bracket = false,
            b'/' if !in_bracket => return Some((re, i + 1)),
            _ => {}
        }
        re.push(c);
        i += 1;
    }
}

/// A string literal's bytes with its escapes processed, and where it ends.
fn lex_string(src: &[u8], mut i: usize, warnings: &mut Vec<String>) -> Option<(Vec<u8>, usize)> {
    let mut s = Vec::new();
    loop {
        let c = *src.get(i)?;
        match c {
            b'"' => return Some((s, i + 1)),
            b'\n' => return None,
            b'\\' => {
                let n = *src.get(i + 1)?;
                if n == b'\n' {
                    i += 2;
                    continue;
                }
                if !matches!(
                    n,
                    b'n' | b't' | b'r' | b'\\' | b'"' | b'a' | b'b' | b'f' | b'v' | b'0'
                        ..=b'7' | b'x'
                ) {
                    let c = char::from(n);
                    warnings.push(format!(
                        "warning: escape sequence `\\{c}' treated as plain `{c}'"
                    ));
                }
                i = escape(src, i + 1, &mut s);
            }
            _ => {
                s.push(c);
                i += 1;
            }
        }
    }
}

/// One escape after a backslash at `i - 1`: pushes what it stands for, returns where the
/// text goes on. Unknown escapes keep the character alone (gawk warns and does so).
pub fn escape(src: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let Some(&c) = src.get(i) else {
        out.push(b'\\');
        return i;
    };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        b'/' => Some(b'/'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        _ => None,
    };
    if let Some(b) = simple {
        out.push(b);
        return i + 1;
    }
    if (b'0'..=b'7').contains(&c) {
        let mut v: u32 = 0;
        let mut j = i;
        while j < i + 3 && src.get(j).is_some_and(|d| (b'0'..=b'7').contains(d)) {
            v = v * 8 + u32::from(src.get(j).copied().unwrap_or(b'0') - b'0');
            j += 1;
        }
        out.push((v & 0xff) as u8);
        return j;
    }
    if c == b'x' {
        let mut v: u32 = 0;
        let mut j = i + 1;
        while j < i + 3 && src.get(j).is_some_and(u8::is_ascii_hexdigit) {
            v = v * 16
                + char::from(src.get(j).copied().unwrap_or(b'0'))
                    .to_digit(16)
                    .unwrap_or(0);
            j += 1;
        }
        if j == i + 1 {
            out.extend_from_slice(b"\\x");
            return j;
        }
        out.push((v & 0xff) as u8);
        return j;
    }
    out.push(c);
    i + 1
}

/// A number literal (decimal, with fraction and exponent; gawk's hex `0x` constants too).
fn lex_number(src: &[u8], i: usize) -> (f64, usize) {
    let at = |k: usize| src.get(k).copied().unwrap_or(0);
    if at(i) == b'0' && matches!(at(i + 1), b'x' | b'X') && at(i + 2).is_ascii_hexdigit() {
        let mut j = i + 2;
        let mut v = 0f64;
        while at(j).is_ascii_hexdigit() {
            v = v * 16.0 + f64::from(char::from(at(j)).to_digit(16).unwrap_or(0));
            j += 1;
        }
        return (v, j);
    }
    let mut j = i;
    while at(j).is_ascii_digit() {
        j += 1;
    }
    // gawk reads `011` as octal when every digit is one.
    if at(i) == b'0'
        && j > i + 1
        && !matches!(at(j), b'.' | b'e' | b'E')
        && src
            .get(i..j)
            .is_some_and(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)))
    {
        let v = src
            .get(i..j)
            .unwrap_or_default()
            .iter()
            .fold(0f64, |v, &c| v * 8.0 + f64::from(c - b'0'));
        return (v, j);
    }
    if at(j) == b'.' {
        j += 1;
        while at(j).is_ascii_digit() {
            j += 1;
        }
    }
    if matches!(at(j), b'e' | b'E') {
        let mut k = j + 1;
        if matches!(at(k), b'+' | b'-') {
            k += 1;
        }
        if at(k).is_ascii_digit() {
            while at(k).is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    let text = std::str::from_utf8(src.get(i..j).unwrap_or_default()).unwrap_or("0");
    (text.parse().unwrap_or(0.0), j)
}
