//! Shell arithmetic (`$(( ))`, `(( ))`, `let`): bash 5.2's evaluator (`expr.c`), ported.
//!
//! The input is the text after the shell has expanded `$x`, `$(...)` and removed quotes; what
//! it reads and assigns goes through an [`ArithEnv`]. Nothing here knows the runtime.
//!
//! The port keeps bash's shape where its quirks show: a recursive-descent parser that
//! evaluates as it reads (no tree), the same token state (`curtok`, `lasttok`, `tokstr`,
//! `lasttp`) and the same moments of evaluation, because bash's messages and side effects
//! depend on them:
//!
//! - a variable is evaluated when its token is *read*, unless the next token is a plain `=`
//!   (so `x=5` never reads `x`, while `x+=5` does); its value is itself an expression,
//!   evaluated in a new context (bash's limit: 1024 contexts, "expression recursion level
//!   exceeded");
//! - reading a name peeks at the tokens after it, so a bad token further on can be reported
//!   before the name is evaluated (`x y 08` says "value too great for base");
//! - an error quotes the expression of the context it happened in (leading blanks dropped; for
//!   a bad number, cut after the number) and, as the "error token", the text from the start
//!   of the last token read (`1 +` -> `"+"`; `1/0` -> the divisor);
//! - `&&`, `||` and `?:` skip evaluation, not parsing: a skipped branch reads no variable and
//!   assigns nothing, and divides by zero silently, but a bad number or a negative exponent
//!   there is still an error;
//! - an array subscript is a separate evaluation (bash calls `evalexp` again): an error in it
//!   is [`ArithErrorKind::Fatal`].
//!
//! Only the precedence levels of the binary operators are folded into one
//! precedence-climbing loop (fewer stack frames per parenthesis); they parse and evaluate in
//! the same order as bash's one-function-per-level chain. Contexts are bounded as in bash
//! ([`MAX_CONTEXTS`]) and operator nesting (parentheses, unary operators, `**`, `?:`,
//! assignments) by [`MAX_NEST`], with bash's "expression recursion level exceeded", so that
//! no input overflows the stack; bash itself has no such bound and crashes near 30,000
//! parentheses.
//!
//! TODO(arith): `set -u` (bash's "unbound variable" for an unset name) and bash's second
//! expansion of a subscript's text (`$x` inside `a[...]` after the first expansion) are not
//! done here.
#![deny(clippy::indexing_slicing)]

/// An array subscript as the evaluator saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscript<'a> {
    /// A plain name (for an array, bash reads and assigns element 0).
    None,
    /// The value of an indexed array's subscript, as evaluated: negative indexes are passed
    /// as given (bash counts them back from the end; out of range, it says
    /// `NAME: bad array subscript` on reading, `NAME[I]: bad array subscript` on assigning,
    /// and goes on).
    Index(i64),
    /// An associative array's subscript: the text between the brackets, untrimmed
    /// (`h[ k ]` is the key `" k "`, as in bash).
    Key(&'a str),
}

/// What arithmetic reads and writes: the shell's variables.
pub trait ArithEnv {
    /// The value of `name` (`Subscript::None`) or of an element; None when unset.
    fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String>;
    /// Assigns; Err(message) is bash's text without prefix, e.g. "x: readonly variable".
    /// An error stops the evaluation (its kind is [`ArithErrorKind::Report`]); a problem bash
    /// only reports (a negative index out of range) is for the env to report, returning Ok.
    fn set(&mut self, name: &str, sub: Subscript<'_>, value: i64) -> Result<(), String>;
    /// Whether `name` is an associative array (its subscripts are keys, not expressions).
    fn is_assoc(&self, name: &str) -> bool;
    /// A message bash prints while the evaluation goes on (`a[@]: bad array subscript`,
    /// `` `a[]': not a valid identifier ``); by default dropped.
    fn warn(&mut self, warning: &ArithError) {
        let _ = warning;
    }
}

/// Bash's text, without the `bash: line N: ` prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithError {
    pub message: String,
    /// How bash reports it, beyond the text.
    pub kind: ArithErrorKind,
}

/// How bash prints an [`ArithError`], and what it does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithErrorKind {
    /// An expression error (bash's `evalerror`) or `not a valid identifier`: under `let` and
    /// `((` bash puts the command's name first (`let: 1/0: division by 0 (...)`).
    Expression,
    /// Reported without a command name (`x: readonly variable`, `a[@]: bad array subscript`).
    Report,
    /// An error inside an array subscript (bash evaluates it apart and then jumps to the top
    /// level): no command name, and bash abandons the whole command line even under `let`.
    Fatal,
}

impl ArithError {
    fn new(message: String, kind: ArithErrorKind) -> Self {
        ArithError { message, kind }
    }
}

/// A failure; the error itself is in [`Parser::err`]. A zero-sized error keeps the frames of
/// the recursive functions small (a debug build keeps every temporary).
#[derive(Debug)]
struct Fail;

type R<T> = Result<T, Fail>;

/// Bash's `MAX_EXPR_RECURSION_LEVEL`: how many expression contexts (the expression itself,
/// a variable's value, a subscript) may be open at once.
pub const MAX_CONTEXTS: u32 = 1024;

/// How deep operators may nest, over all open contexts: one level per parenthesis, unary
/// operator, `**`, `?:` branch, assignment and operand of a binary operator. With
/// [`MAX_CONTEXTS`] it bounds the stack an evaluation uses: measured (test
/// `deepest_evaluations_fit_the_stack`), at most about 1.2 MiB in a release build (a
/// pipeline stage's thread has 2 MiB) and 3 MiB in a debug build.
pub const MAX_NEST: u32 = 3000;

/// Evaluates `expr` (already expanded) as bash does; the empty expression is 0.
///
/// The caller prints an error as bash would: `bash: line N: ` and, for `let` and `((` and an
/// [`ArithErrorKind::Expression`], the command's name (`let: `, `((: `) before the message.
pub fn eval(expr: &str, env: &mut dyn ArithEnv) -> Result<i64, ArithError> {
    // A C string ends at NUL.
    let text = expr.split('\0').next().unwrap_or_default();
    if is_blank(text) {
        return Ok(0);
    }
    let mut parser = Parser::new(text, env, 1, 0);
    match parser.run() {
        Ok(value) => Ok(value),
        Err(Fail) => Err(parser.take_err()),
    }
}

/// The tokens (bash's `curtok` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// Nothing yet, or the end of the expression (bash's 0).
    Eof,
    Str,
    Num,
    EqEq,
    Neq,
    Leq,
    Geq,
    Land,
    Lor,
    Lsh,
    Rsh,
    OpAssign(Op),
    /// Only ever `lasttok`, after a `?:`.
    Cond,
    Power,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
    Eq,
    Gt,
    Lt,
    Plus,
    Minus,
    Mul,
    Div,
    Mod,
    Not,
    LPar,
    RPar,
    BAnd,
    BOr,
    BXor,
    BNot,
    Ques,
    Col,
    Comma,
}

/// The operator of an `OP=` assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Mul,
    Div,
    Mod,
    Plus,
    Minus,
    Lsh,
    Rsh,
    BAnd,
    BXor,
    BOr,
}

impl Tok {
    /// Bash's `_is_arithop`: single-character operators.
    fn is_arithop(self) -> bool {
        matches!(
            self,
            Tok::Eq
                | Tok::Gt
                | Tok::Lt
                | Tok::Plus
                | Tok::Minus
                | Tok::Mul
                | Tok::Div
                | Tok::Mod
                | Tok::Not
                | Tok::LPar
                | Tok::RPar
                | Tok::BAnd
                | Tok::BOr
                | Tok::BXor
                | Tok::BNot
                | Tok::Ques
                | Tok::Col
                | Tok::Comma
        )
    }

    /// Bash's `_is_multiop`.
    fn is_multiop(self) -> bool {
        matches!(
            self,
            Tok::EqEq
                | Tok::Neq
                | Tok::Leq
                | Tok::Geq
                | Tok::Land
                | Tok::Lor
                | Tok::Lsh
                | Tok::Rsh
                | Tok::OpAssign(_)
                | Tok::Cond
                | Tok::Power
                | Tok::PreInc
                | Tok::PreDec
                | Tok::PostInc
                | Tok::PostDec
        )
    }

    /// The precedence of a left-associative binary operator (bash's `explor` .. `expmuldiv`).
    fn binary_prec(self) -> Option<u8> {
        Some(match self {
            Tok::Lor => 1,
            Tok::Land => 2,
            Tok::BOr => 3,
            Tok::BXor => 4,
            Tok::BAnd => 5,
            Tok::EqEq | Tok::Neq => 6,
            Tok::Leq | Tok::Geq | Tok::Lt | Tok::Gt => 7,
            Tok::Lsh | Tok::Rsh => 8,
            Tok::Plus | Tok::Minus => 9,
            Tok::Mul | Tok::Div | Tok::Mod => 10,
            _ => return None,
        })
    }
}

/// A name token (bash's `tokstr`): `name` or `name[subscript]`.
#[derive(Debug, Clone, Copy)]
struct TokStr {
    /// Tells tokens apart where bash compares `tokstr` pointers.
    serial: u32,
    start: usize,
    name_end: usize,
    /// Past the `]`, or `name_end`.
    end: usize,
}

impl TokStr {
    fn has_subscript(self) -> bool {
        self.end > self.name_end
    }
}

/// Bash's `struct lvalue`: what the last evaluated name was, and its evaluated index.
#[derive(Debug, Clone, Copy)]
struct LValue {
    tok: Option<TokStr>,
    /// Bash's `ind`, -1 there when None.
    ind: Option<i64>,
}

const NO_LVALUE: LValue = LValue {
    tok: None,
    ind: None,
};

/// The token state bash saves and restores around look-aheads (`SAVETOK`/`RESTORETOK`).
#[derive(Debug, Clone, Copy)]
struct TokState {
    curtok: Tok,
    lasttok: Tok,
    tp: usize,
    lasttp: usize,
    tokval: i64,
    tokstr: Option<TokStr>,
    noeval: u32,
    curlval: LValue,
}

/// What one token is, as read at a position.
enum Lexed {
    Str { name_end: usize, end: usize },
    Num { value: i64, end: usize },
    Op { tok: Tok, end: usize },
}

/// A token that cannot be read: the message, where the token starts, and where bash sees the
/// text end (it cuts the string after a number while converting it).
struct LexErr {
    msg: &'static str,
    at: usize,
    end: usize,
}

/// One expression context: bash's globals for one `subexpr`.
struct Parser<'s, 'e> {
    text: &'s str,
    s: &'s [u8],
    env: &'e mut dyn ArithEnv,
    /// This context's level (the expression itself is 1).
    depth: u32,
    /// Nesting used so far, the enclosing contexts' included.
    nest: u32,
    serial: u32,
    st: TokState,
    /// Why the evaluation failed, once it has.
    err: Option<ArithError>,
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\n'))
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Bash's `skipsubscript`: from the `[` at `open`, the index of its `]`, or None. Quotes,
/// backslashes, backquotes and `$(`/`${` are skipped as bash's `skip_matched_pair` does.
fn skip_subscript(text: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    let mut count = 1u32;
    while let Some(&c) = text.get(at) {
        match c {
            b'\\' => at += 2,
            b'`' => at = find_from(text, at + 1, b'`')? + 1,
            b'\'' => at = find_from(text, at + 1, b'\'')? + 1,
            b'"' => {
                let mut end = at + 1;
                loop {
                    match text.get(end)? {
                        b'\\' => end += 2,
                        b'"' => break,
                        _ => end += 1,
                    }
                }
                at = end + 1;
            }
            b'$' if matches!(text.get(at + 1), Some(b'(' | b'{')) => {
                let (opening, closing) = if text.get(at + 1) == Some(&b'(') {
                    (b'(', b')')
                } else {
                    (b'{', b'}')
                };
                let mut depth = 1u32;
                let mut end = at + 2;
                while depth > 0 {
                    let next = *text.get(end)?;
                    if next == opening {
                        depth += 1;
                    } else if next == closing {
                        depth -= 1;
                    }
                    end += 1;
                }
                at = end;
            }
            b'[' => {
                count += 1;
                at += 1;
            }
            b']' => {
                count -= 1;
                if count == 0 {
                    return Some(at);
                }
                at += 1;
            }
            _ => at += 1,
        }
    }
    None
}

/// Most values are plain decimal numbers: no parser needed.
#[inline(never)]
fn plain_number(value: &str) -> Option<i64> {
    let b = value.as_bytes();
    if b.len() <= 18
        && b.first().is_some_and(|&c| (b'1'..=b'9').contains(&c))
        && b.iter().all(u8::is_ascii_digit)
    {
        return value.parse().ok();
    }
    None
}

fn find_from(s: &[u8], from: usize, c: u8) -> Option<usize> {
    s.get(from..)?
        .iter()
        .position(|&d| d == c)
        .map(|at| at + from)
}

/// Bash's `strlong`: a constant, decimal, `0` octal, `0x` hex or `BASE#digits`.
fn strlong(num: &[u8]) -> Result<i64, &'static str> {
    let mut i = 0;
    let mut base: i64 = 10;
    let mut foundbase = false;
    if num.first() == Some(&b'0') {
        if num.len() == 1 {
            return Ok(0);
        }
        if matches!(num.get(1), Some(b'x' | b'X')) {
            base = 16;
            i = 2;
        } else {
            base = 8;
            i = 1;
        }
        foundbase = true;
    }
    let mut val: i64 = 0;
    while let Some(&c) = num.get(i) {
        i += 1;
        if c == b'#' {
            if foundbase {
                return Err("invalid number");
            }
            if !(2..=64).contains(&val) {
                return Err("invalid arithmetic base");
            }
            base = val;
            val = 0;
            foundbase = true;
            if !num.get(i).is_some_and(|&d| is_num_char(d)) {
                return Err("invalid integer constant");
            }
        } else if is_num_char(c) {
            let digit = i64::from(match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'z' => c - b'a' + 10,
                b'A'..=b'Z' if base <= 36 => c - b'A' + 10,
                b'A'..=b'Z' => c - b'A' + 36,
                b'@' => 62,
                _ => 63, // '_'
            });
            if digit >= base {
                return Err("value too great for base");
            }
            val = val.wrapping_mul(base).wrapping_add(digit);
        } else {
            break;
        }
    }
    Ok(val)
}

fn is_num_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'@'
}

/// `base ** exp` for `exp > 0`, wrapping (bash's `ipow`).
fn ipow(mut base: i64, mut exp: i64) -> i64 {
    let mut result: i64 = 1;
    while exp != 0 {
        if exp & 1 != 0 {
            result = result.wrapping_mul(base);
        }
        exp >>= 1;
        base = base.wrapping_mul(base);
    }
    result
}

/// A binary operator on two values, as C on `intmax_t` would on x86-64 (wrapping; shift
/// counts taken modulo 64). Division by zero is the caller's.
fn apply(op: Op, a: i64, b: i64) -> i64 {
    match op {
        Op::Mul => a.wrapping_mul(b),
        Op::Div => a.checked_div(b).unwrap_or(if b == 0 { 0 } else { a }),
        Op::Mod => a.checked_rem(b).unwrap_or(0),
        Op::Plus => a.wrapping_add(b),
        Op::Minus => a.wrapping_sub(b),
        Op::Lsh => a.wrapping_shl(b as u32),
        Op::Rsh => a.wrapping_shr(b as u32),
        Op::BAnd => a & b,
        Op::BXor => a ^ b,
        Op::BOr => a | b,
    }
}

// The functions on the recursive paths (a parenthesis: `exp0` -> `paren` -> `expcomma` ->
// `expassign` -> `expcond` -> `binary` -> `exppower` -> `exp1` -> `exp0`; a variable:
// `readtok` -> `read_name` -> `streval` -> `value_of` -> `nested`) are kept small; the rest
// of each operator's work is in its own function, out of line.
impl<'s, 'e> Parser<'s, 'e> {
    fn new(text: &'s str, env: &'e mut dyn ArithEnv, depth: u32, nest: u32) -> Self {
        Parser {
            text,
            s: text.as_bytes(),
            env,
            depth,
            nest,
            serial: 0,
            st: TokState {
                curtok: Tok::Eof,
                lasttok: Tok::Eof,
                tp: 0,
                lasttp: 0,
                tokval: 0,
                tokstr: None,
                noeval: 0,
                curlval: NO_LVALUE,
            },
            err: None,
        }
    }

    /// Bash's `subexpr` once the context is pushed: the whole text, to its end.
    fn run(&mut self) -> R<i64> {
        self.readtok()?;
        let val = self.expcomma()?;
        if self.st.curtok != Tok::Eof {
            return Err(self.fail("syntax error in expression"));
        }
        Ok(val)
    }

    fn take_err(&mut self) -> ArithError {
        self.err.take().unwrap_or_else(|| {
            ArithError::new(String::from("arithmetic error"), ArithErrorKind::Expression)
        })
    }

    fn slice(&self, from: usize, to: usize) -> &'s str {
        self.text.get(from..to).unwrap_or_default()
    }

    /// Bash's `evalerror`, the error token at `lasttp`.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, msg: &str) -> Fail {
        self.fail_at(msg, self.st.lasttp, self.s.len())
    }

    /// `evalerror` with the error token at `at` and the text seen as ending at `end`.
    #[cold]
    #[inline(never)]
    fn fail_at(&mut self, msg: &str, at: usize, end: usize) -> Fail {
        let start = self
            .s
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .unwrap_or(self.s.len())
            .min(end);
        let token = if at < end { self.slice(at, end) } else { "" };
        let message = format!(
            "{}: {msg} (error token is \"{token}\")",
            self.slice(start, end)
        );
        self.err = Some(ArithError::new(message, ArithErrorKind::Expression));
        Fail
    }

    #[cold]
    #[inline(never)]
    fn fail_lex(&mut self, e: &LexErr) -> Fail {
        self.fail_at(e.msg, e.at, e.end)
    }

    /// Enters one level of nesting (parenthesis, operand of a unary operator, ...).
    fn enter(&mut self) -> R<()> {
        if self.nest >= MAX_NEST {
            return Err(self.fail("expression recursion level exceeded"));
        }
        self.nest += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.nest -= 1;
    }

    fn skip_ws(&self, mut at: usize) -> usize {
        while matches!(self.s.get(at), Some(b' ' | b'\t' | b'\n')) {
            at += 1;
        }
        at
    }

    /// Reads the token at `p` (not blank, not the end) with `curtok`/`lasttok` as bash would
    /// have them.
    fn lex(&self, p: usize, curtok: Tok, lasttok: Tok) -> Result<Lexed, LexErr> {
        let s = self.s;
        let c = s.get(p).copied().unwrap_or(0);
        let err = |msg| LexErr {
            msg,
            at: p,
            end: s.len(),
        };
        if is_name_start(c) {
            let mut q = p + 1;
            while s.get(q).is_some_and(|&d| is_name_char(d)) {
                q += 1;
            }
            if s.get(q) == Some(&b'[') {
                return match skip_subscript(s, q) {
                    Some(close) => Ok(Lexed::Str {
                        name_end: q,
                        end: close + 1,
                    }),
                    None => Err(err("bad array subscript")),
                };
            }
            return Ok(Lexed::Str {
                name_end: q,
                end: q,
            });
        }
        if c.is_ascii_digit() {
            let mut q = p + 1;
            while s.get(q).is_some_and(|&d| is_num_char(d) || d == b'#') {
                q += 1;
            }
            let digits = s.get(p..q).unwrap_or_default();
            return match strlong(digits) {
                Ok(value) => Ok(Lexed::Num { value, end: q }),
                Err(msg) => Err(LexErr { msg, at: p, end: q }),
            };
        }
        let c1 = s.get(p + 1).copied().unwrap_or(0);
        let two = |tok| Ok(Lexed::Op { tok, end: p + 2 });
        match (c, c1) {
            (b'=', b'=') => two(Tok::EqEq),
            (b'!', b'=') => two(Tok::Neq),
            (b'>', b'=') => two(Tok::Geq),
            (b'<', b'=') => two(Tok::Leq),
            (b'<', b'<') | (b'>', b'>') => {
                let (shift, op) = if c == b'<' {
                    (Tok::Lsh, Op::Lsh)
                } else {
                    (Tok::Rsh, Op::Rsh)
                };
                if s.get(p + 2) == Some(&b'=') {
                    Ok(Lexed::Op {
                        tok: Tok::OpAssign(op),
                        end: p + 3,
                    })
                } else {
                    two(shift)
                }
            }
            (b'&', b'&') => two(Tok::Land),
            (b'|', b'|') => two(Tok::Lor),
            (b'*', b'*') => two(Tok::Power),
            (b'-' | b'+', _) if c1 == c && curtok == Tok::Str => two(if c == b'-' {
                Tok::PostDec
            } else {
                Tok::PostInc
            }),
            (b'-' | b'+', _)
                if c1 == c
                    && curtok == Tok::Num
                    && matches!(lasttok, Tok::PreInc | Tok::PreDec) =>
            {
                // `++x++`
                Err(err(if c == b'-' {
                    "--: assignment requires lvalue"
                } else {
                    "++: assignment requires lvalue"
                }))
            }
            (b'-' | b'+', _) if c1 == c => {
                // `++` before a name is a pre-increment; otherwise two unary signs.
                let after = self.skip_ws(p + 2);
                if s.get(after).is_some_and(|&d| is_name_start(d)) {
                    two(if c == b'-' { Tok::PreDec } else { Tok::PreInc })
                } else {
                    Ok(Lexed::Op {
                        tok: if c == b'-' { Tok::Minus } else { Tok::Plus },
                        end: p + 1,
                    })
                }
            }
            (b'*' | b'/' | b'%' | b'+' | b'-' | b'&' | b'^' | b'|', b'=') => {
                let op = match c {
                    b'*' => Op::Mul,
                    b'/' => Op::Div,
                    b'%' => Op::Mod,
                    b'+' => Op::Plus,
                    b'-' => Op::Minus,
                    b'&' => Op::BAnd,
                    b'^' => Op::BXor,
                    _ => Op::BOr,
                };
                two(Tok::OpAssign(op))
            }
            _ => {
                let tok = match c {
                    b'=' => Tok::Eq,
                    b'>' => Tok::Gt,
                    b'<' => Tok::Lt,
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    b'*' => Tok::Mul,
                    b'/' => Tok::Div,
                    b'%' => Tok::Mod,
                    b'!' => Tok::Not,
                    b'(' => Tok::LPar,
                    b')' => Tok::RPar,
                    b'&' => Tok::BAnd,
                    b'|' => Tok::BOr,
                    b'^' => Tok::BXor,
                    b'~' => Tok::BNot,
                    b'?' => Tok::Ques,
                    b':' => Tok::Col,
                    b',' => Tok::Comma,
                    _ if curtok == Tok::Eof || curtok.is_arithop() || curtok.is_multiop() => {
                        return Err(err("syntax error: operand expected"));
                    }
                    _ => return Err(err("syntax error: invalid arithmetic operator")),
                };
                Ok(Lexed::Op { tok, end: p + 1 })
            }
        }
    }

    /// Bash's `readtok`: the next token into `curtok`, evaluating a name as it is read.
    fn readtok(&mut self) -> R<()> {
        match self.next_token()? {
            Some((cp, name_end, end)) => self.read_name(cp, name_end, end),
            None => Ok(()),
        }
    }

    /// `readtok` but for a name: returns where it starts, where its name ends and where it
    /// ends.
    #[inline(never)]
    fn next_token(&mut self) -> R<Option<(usize, usize, usize)>> {
        let cp = self.skip_ws(self.st.tp);
        if cp >= self.s.len() {
            self.st.lasttok = self.st.curtok;
            self.st.curtok = Tok::Eof;
            self.st.tp = cp;
            return Ok(None);
        }
        self.st.lasttp = cp;
        self.st.tp = cp;
        let (tok, end) = match self.lex(cp, self.st.curtok, self.st.lasttok) {
            Ok(Lexed::Str { name_end, end }) => return Ok(Some((cp, name_end, end))),
            Ok(Lexed::Num { value, end }) => {
                self.st.tokval = value;
                (Tok::Num, end)
            }
            Ok(Lexed::Op { tok, end }) => (tok, end),
            Err(e) => return Err(self.fail_lex(&e)),
        };
        self.st.lasttok = self.st.curtok;
        self.st.curtok = tok;
        self.st.tp = end;
        Ok(None)
    }

    /// `readtok` for a name: evaluated now unless a plain `=` follows.
    fn read_name(&mut self, cp: usize, name_end: usize, end: usize) -> R<()> {
        let (ts, assigned) = self.name_token(cp, name_end, end)?;
        // Bash's test: `--x=9` still reads x.
        self.st.tokval = if matches!(self.st.lasttok, Tok::PreInc | Tok::PreDec) || !assigned {
            self.streval(ts)?
        } else {
            0
        };
        self.st.lasttok = self.st.curtok;
        self.st.curtok = Tok::Str;
        self.st.tp = end;
        Ok(())
    }

    /// The name token at `cp` becomes `tokstr`; and whether a plain `=` follows it.
    #[inline(never)]
    fn name_token(&mut self, cp: usize, name_end: usize, end: usize) -> R<(TokStr, bool)> {
        if self.st.curlval.tok.is_some()
            && self.st.curlval.tok.map(|t| t.serial) == self.st.tokstr.map(|t| t.serial)
        {
            self.st.curlval = NO_LVALUE;
        }
        self.serial += 1;
        let ts = TokStr {
            serial: self.serial,
            start: cp,
            name_end,
            end,
        };
        self.st.tokstr = Some(ts);
        match self.peek_is_assignment(end) {
            Ok(assigned) => Ok((ts, assigned)),
            Err(e) => Err(self.fail_lex(&e)),
        }
    }

    /// Whether the token after a name at `from` is a plain `=`. Bash reads it with a nested
    /// `readtok`, which reads the token after a name in turn, and so on: any may fail.
    fn peek_is_assignment(&self, from: usize) -> Result<bool, LexErr> {
        let mut p = self.skip_ws(from);
        let mut first = true;
        while p < self.s.len() {
            match self.lex(p, Tok::Str, self.st.lasttok)? {
                Lexed::Str { end, .. } => p = self.skip_ws(end),
                Lexed::Op { tok, .. } => return Ok(first && tok == Tok::Eq),
                Lexed::Num { .. } => return Ok(false),
            }
            first = false;
        }
        Ok(false)
    }

    /// Bash's `expr_streval`: the value of a name token, evaluated; records the lvalue.
    fn streval(&mut self, ts: TokStr) -> R<i64> {
        if self.st.noeval > 0 {
            return Ok(0);
        }
        let (value, ind) = self.lookup(ts)?;
        let tval = match value {
            Some(v) if !v.is_empty() => self.value_of(&v)?,
            _ => 0,
        };
        self.st.curlval = LValue { tok: Some(ts), ind };
        Ok(tval)
    }

    /// The text of a name token's variable or element, and the evaluated index.
    #[inline(never)]
    fn lookup(&mut self, ts: TokStr) -> R<(Option<String>, Option<i64>)> {
        let name = self.slice(ts.start, ts.name_end);
        if !ts.has_subscript() {
            return Ok((self.env.get(name, Subscript::None), None));
        }
        let sub = self.slice(ts.name_end + 1, ts.end - 1);
        Ok(if sub.is_empty() {
            // Bash looks the name up twice, complaining each time.
            self.warn_bad_subscript(ts);
            self.warn_bad_subscript(ts);
            (None, None)
        } else if self.env.is_assoc(name) {
            (self.env.get(name, Subscript::Key(sub)), None)
        } else if sub == "@" || sub == "*" {
            self.warn_bad_subscript(ts);
            (None, None)
        } else {
            let i = self.subscript(sub)?;
            (self.env.get(name, Subscript::Index(i)), Some(i))
        })
    }

    /// `a[]: bad array subscript` (bash's `err_badarraysub`: no command name).
    #[cold]
    #[inline(never)]
    fn warn_bad_subscript(&mut self, ts: TokStr) {
        let message = format!("{}: bad array subscript", self.slice(ts.start, ts.end));
        self.env
            .warn(&ArithError::new(message, ArithErrorKind::Report));
    }

    /// A variable's value, evaluated in a new context (bash's `subexpr`).
    fn value_of(&mut self, value: &str) -> R<i64> {
        if is_blank(value) {
            return Ok(0);
        }
        self.open_context()?;
        match plain_number(value) {
            Some(n) => Ok(n),
            None => self.nested(value, ArithErrorKind::Expression),
        }
    }

    /// An indexed array's subscript: bash evaluates it with a fresh `evalexp`, and an error
    /// there abandons the command.
    fn subscript(&mut self, sub: &str) -> R<i64> {
        if is_blank(sub) {
            return Ok(0);
        }
        if let Err(fail) = self.open_context() {
            if let Some(e) = &mut self.err {
                e.kind = ArithErrorKind::Fatal;
            }
            return Err(fail);
        }
        self.nested(sub, ArithErrorKind::Fatal)
    }

    /// Evaluates `text` in a new context; an error in it becomes this context's, of `kind`
    /// if that is [`ArithErrorKind::Fatal`].
    #[inline(never)]
    fn nested(&mut self, text: &str, kind: ArithErrorKind) -> R<i64> {
        // On the heap: the frames of a chain of contexts stay small.
        let mut inner = Box::new(Parser::new(text, &mut *self.env, self.depth + 1, self.nest));
        let result = inner.run();
        if result.is_err() {
            let e = inner.take_err();
            drop(inner);
            self.adopt_error(e, kind);
        }
        result
    }

    #[cold]
    #[inline(never)]
    fn adopt_error(&mut self, mut e: ArithError, kind: ArithErrorKind) {
        if kind == ArithErrorKind::Fatal {
            e.kind = kind;
        }
        self.err = Some(e);
    }

    /// Bash's `pushexp` check, made in the context that opens the new one (whose text and
    /// token the message quotes).
    fn open_context(&mut self) -> R<()> {
        if self.depth >= MAX_CONTEXTS {
            return Err(self.fail("expression recursion level exceeded"));
        }
        Ok(())
    }

    /// Bash's `expr_bind_variable`: assigns to the name token as written (a subscript is
    /// evaluated now).
    #[inline(never)]
    fn bind_var(&mut self, ts: TokStr, value: i64) -> R<()> {
        let name = self.slice(ts.start, ts.name_end);
        if !ts.has_subscript() {
            return self.set(name, Subscript::None, value);
        }
        let sub = self.slice(ts.name_end + 1, ts.end - 1);
        if sub.is_empty() {
            // `builtin_error`: `let` names itself.
            let message = format!("`{}': not a valid identifier", self.slice(ts.start, ts.end));
            self.env
                .warn(&ArithError::new(message, ArithErrorKind::Expression));
            return Ok(());
        }
        if self.env.is_assoc(name) {
            return self.set(name, Subscript::Key(sub), value);
        }
        if sub == "@" || sub == "*" {
            self.warn_bad_subscript(ts);
            return Ok(());
        }
        let i = self.subscript(sub)?;
        self.set(name, Subscript::Index(i), value)
    }

    /// Assigns the lvalue of an increment: the index evaluated on reading if there was one.
    fn bind_lvalue(&mut self, lval: LValue, tokstr: Option<TokStr>, value: i64) -> R<()> {
        match (lval.ind, lval.tok) {
            (Some(ind), Some(ts)) => {
                let name = self.slice(ts.start, ts.name_end);
                self.set(name, Subscript::Index(ind), value)
            }
            _ => match tokstr {
                Some(ts) => self.bind_var(ts, value),
                None => Ok(()),
            },
        }
    }

    fn set(&mut self, name: &str, sub: Subscript<'_>, value: i64) -> R<()> {
        match self.env.set(name, sub, value) {
            Ok(()) => Ok(()),
            Err(message) => {
                self.err = Some(ArithError::new(message, ArithErrorKind::Report));
                Err(Fail)
            }
        }
    }

    /// `,` (with `=`, `?:`: one frame less per parenthesis).
    fn expcomma(&mut self) -> R<i64> {
        loop {
            let value = self.expcond()?;
            let value = match self.st.curtok {
                Tok::Eq => self.assign(value, None)?,
                Tok::OpAssign(op) => self.assign(value, Some(op))?,
                _ => value,
            };
            if self.st.curtok != Tok::Comma {
                return Ok(value);
            }
            self.readtok()?;
        }
    }

    /// `=` and `OP=`, right to left.
    fn expassign(&mut self) -> R<i64> {
        let value = self.expcond()?;
        match self.st.curtok {
            Tok::Eq => self.assign(value, None),
            Tok::OpAssign(op) => self.assign(value, Some(op)),
            _ => Ok(value),
        }
    }

    /// The assignment at `curtok`, `lvalue` the value of its left side.
    #[inline(never)]
    fn assign(&mut self, lvalue: i64, op: Option<Op>) -> R<i64> {
        if self.st.lasttok != Tok::Str {
            return Err(self.fail("attempted assignment to non-variable"));
        }
        let Some(lhs) = self.st.tokstr else {
            return Err(self.fail("syntax error in variable assignment"));
        };
        let lind = self.st.curlval.ind;
        self.readtok()?;
        self.enter()?;
        let mut value = self.expassign()?;
        self.leave();
        if let Some(op) = op {
            if matches!(op, Op::Div | Op::Mod) && value == 0 {
                if self.st.noeval == 0 {
                    return Err(self.fail("division by 0"));
                }
                value = 1;
            }
            value = apply(op, lvalue, value);
        }
        if self.st.noeval == 0 {
            match lind {
                Some(index) => {
                    let name = self.slice(lhs.start, lhs.name_end);
                    self.set(name, Subscript::Index(index), value)?;
                }
                None => self.bind_var(lhs, value)?,
            }
        }
        if self.st.curlval.tok.is_some()
            && self.st.curlval.tok.map(|t| t.serial) == self.st.tokstr.map(|t| t.serial)
        {
            self.st.curlval = NO_LVALUE;
        }
        self.st.tokstr = None;
        Ok(value)
    }

    /// `?:`, right to left.
    #[allow(clippy::inline_always)] // one frame less per parenthesis, even in a debug build
    #[inline(always)]
    fn expcond(&mut self) -> R<i64> {
        let cval = self.binary(1)?;
        if self.st.curtok == Tok::Ques {
            self.ternary(cval)
        } else {
            Ok(cval)
        }
    }

    /// The `?` at `curtok` after the condition `cval`; the branch not taken is parsed
    /// without evaluation.
    #[inline(never)]
    fn ternary(&mut self, cval: i64) -> R<i64> {
        let skip_first = cval == 0;
        if skip_first {
            self.st.noeval += 1;
        }
        self.readtok()?;
        if matches!(self.st.curtok, Tok::Eof | Tok::Col) {
            return Err(self.fail("expression expected"));
        }
        self.enter()?;
        let val1 = self.expcomma()?;
        self.leave();
        if skip_first {
            self.st.noeval -= 1;
        }
        if self.st.curtok != Tok::Col {
            return Err(self.fail("`:' expected for conditional expression"));
        }
        let skip_second = cval != 0;
        if skip_second {
            self.st.noeval += 1;
        }
        self.readtok()?;
        if self.st.curtok == Tok::Eof {
            return Err(self.fail("expression expected"));
        }
        self.enter()?;
        let val2 = self.expcond()?;
        self.leave();
        if skip_second {
            self.st.noeval -= 1;
        }
        self.st.lasttok = Tok::Cond;
        Ok(if cval != 0 { val1 } else { val2 })
    }

    /// The left-associative binary operators from `||` (1) to `* / %` (10), by precedence
    /// climbing: the operand to the right of an operator takes only tighter ones.
    fn binary(&mut self, min: u8) -> R<i64> {
        let mut val1 = self.exppower()?;
        while let Some(prec) = self.st.curtok.binary_prec() {
            if prec < min {
                break;
            }
            val1 = self.binary_rhs(val1, prec)?;
        }
        Ok(val1)
    }

    /// `val1 OP right`, OP at `curtok`.
    #[inline(never)]
    fn binary_rhs(&mut self, val1: i64, prec: u8) -> R<i64> {
        let op = self.st.curtok;
        if matches!(op, Tok::Lor | Tok::Land) {
            let skip = (op == Tok::Lor) == (val1 != 0);
            if skip {
                self.st.noeval += 1;
            }
            self.readtok()?;
            self.enter()?;
            let val2 = self.binary(prec + 1)?;
            self.leave();
            if skip {
                self.st.noeval -= 1;
            }
            self.st.lasttok = op;
            return Ok(i64::from(if op == Tok::Lor {
                val1 != 0 || val2 != 0
            } else {
                val1 != 0 && val2 != 0
            }));
        }
        let stp = self.st.tp;
        self.readtok()?;
        self.enter()?;
        let val2 = self.binary(prec + 1)?;
        self.leave();
        self.combine(op, val1, val2, stp)
    }

    /// The value of `val1 OP val2`; `stp` is where the text after a `/` or `%` starts.
    fn combine(&mut self, op: Tok, val1: i64, mut val2: i64, stp: usize) -> R<i64> {
        self.st.lasttok = Tok::Num;
        Ok(match op {
            Tok::Div | Tok::Mod => {
                if val2 == 0 {
                    if self.st.noeval == 0 {
                        // The error token is the divisor.
                        let mut at = stp;
                        while matches!(self.s.get(at), Some(b' ' | b'\t')) {
                            at += 1;
                        }
                        return Err(self.fail_at("division by 0", at, self.s.len()));
                    }
                    val2 = 1;
                }
                apply(if op == Tok::Div { Op::Div } else { Op::Mod }, val1, val2)
            }
            Tok::BOr => val1 | val2,
            Tok::BXor => val1 ^ val2,
            Tok::BAnd => val1 & val2,
            Tok::EqEq => i64::from(val1 == val2),
            Tok::Neq => i64::from(val1 != val2),
            Tok::Leq => i64::from(val1 <= val2),
            Tok::Geq => i64::from(val1 >= val2),
            Tok::Lt => i64::from(val1 < val2),
            Tok::Gt => i64::from(val1 > val2),
            Tok::Lsh => apply(Op::Lsh, val1, val2),
            Tok::Rsh => apply(Op::Rsh, val1, val2),
            Tok::Plus => val1.wrapping_add(val2),
            Tok::Minus => val1.wrapping_sub(val2),
            _ => val1.wrapping_mul(val2),
        })
    }

    /// `**`, right to left.
    fn exppower(&mut self) -> R<i64> {
        let val1 = self.operand()?;
        if self.st.curtok == Tok::Power {
            self.power(val1)
        } else {
            Ok(val1)
        }
    }

    #[inline(never)]
    fn power(&mut self, mut val1: i64) -> R<i64> {
        while self.st.curtok == Tok::Power {
            self.readtok()?;
            self.enter()?;
            let val2 = self.exppower()?;
            self.leave();
            self.st.lasttok = Tok::Num;
            if val2 == 0 {
                return Ok(1);
            }
            if val2 < 0 {
                return Err(self.fail("exponent less than 0"));
            }
            val1 = ipow(val1, val2);
        }
        Ok(val1)
    }

    /// An operand of a unary operator.
    fn exp1(&mut self) -> R<i64> {
        self.operand()
    }

    /// Bash's `exp1` and `exp0`: unary `! ~ - +`, `++x`, `--x`, `( )`, numbers, names and
    /// `x++`, `x--`.
    #[allow(clippy::inline_always)] // one frame less per parenthesis, even in a debug build
    #[inline(always)]
    fn operand(&mut self) -> R<i64> {
        match self.st.curtok {
            Tok::Not | Tok::BNot | Tok::Minus | Tok::Plus => self.unary(),
            Tok::PreInc | Tok::PreDec => self.pre_increment(),
            Tok::LPar => self.paren(),
            Tok::Num => {
                let val = self.st.tokval;
                self.readtok()?;
                Ok(val)
            }
            Tok::Str => self.name_operand(),
            _ => Err(self.fail("syntax error: operand expected")),
        }
    }

    #[inline(never)]
    fn unary(&mut self) -> R<i64> {
        let op = self.st.curtok;
        self.readtok()?;
        self.enter()?;
        let val = self.exp1()?;
        self.leave();
        self.st.lasttok = Tok::Num;
        Ok(match op {
            Tok::Not => i64::from(val == 0),
            Tok::BNot => !val,
            Tok::Minus => val.wrapping_neg(),
            _ => val,
        })
    }

    #[allow(clippy::inline_always)] // one frame less per parenthesis, even in a debug build
    #[inline(always)]
    fn paren(&mut self) -> R<i64> {
        self.readtok()?;
        self.enter()?;
        let val = self.expcomma()?;
        self.leave();
        if self.st.curtok != Tok::RPar {
            return Err(self.fail("missing `)'"));
        }
        self.readtok()?;
        Ok(val)
    }

    #[inline(never)]
    fn pre_increment(&mut self) -> R<i64> {
        let stok = self.st.curtok;
        self.st.lasttok = stok;
        self.readtok()?;
        if self.st.curtok != Tok::Str {
            return Err(self.fail("identifier expected after pre-increment or pre-decrement"));
        }
        let v2 = self
            .st
            .tokval
            .wrapping_add(if stok == Tok::PreInc { 1 } else { -1 });
        if self.st.noeval == 0 {
            self.bind_lvalue(self.st.curlval, self.st.tokstr, v2)?;
        }
        // So that `--x=7` is an error.
        self.st.curtok = Tok::Num;
        self.readtok()?;
        Ok(v2)
    }

    /// A name, already evaluated by `readtok`, and a `++`/`--` after it.
    #[inline(never)]
    fn name_operand(&mut self) -> R<i64> {
        let val = self.st.tokval;
        // Look at the next token, evaluating nothing.
        let saved = self.st;
        self.st.tokstr = None;
        self.st.noeval = 1;
        self.readtok()?;
        let stok = self.st.curtok;
        if matches!(stok, Tok::PostInc | Tok::PostDec) {
            self.st.tokstr = saved.tokstr;
            self.st.noeval = saved.noeval;
            self.st.curlval = saved.curlval;
            self.st.lasttok = Tok::Str;
            let v2 = val.wrapping_add(if stok == Tok::PostInc { 1 } else { -1 });
            if self.st.noeval == 0 {
                self.bind_lvalue(self.st.curlval, self.st.tokstr, v2)?;
            }
            // So that `x++=7` is an error.
            self.st.curtok = Tok::Num;
        } else {
            self.st = saved;
        }
        self.readtok()?;
        Ok(val)
    }
}

#[cfg(test)]
#[path = "arith_tests.rs"]
mod tests;
