//! `expr`, GNU coreutils: evaluates an expression given as separate arguments and prints its
//! value; the status says whether the value is null or 0 (1), an error (2, 3), or else 0.
//! Integers are 128-bit (GNU's are unbounded: past that, `integer overflow`). `STRING :
//! REGEX` matches a GNU basic regular expression anchored at the start, through the shared
//! engine.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::quote::quote;
use crate::support::regex_gnu::{Options, Regex, Syntax};
use crate::{Ctx, Outcome};

const HELP: &str = "Usage: expr EXPRESSION
  or:  expr OPTION

      --help        display this help and exit
      --version     output version information and exit

Print the value of EXPRESSION to standard output.  A blank line below
separates increasing precedence groups.  EXPRESSION may be:

  ARG1 | ARG2       ARG1 if it is neither null nor 0, otherwise ARG2

  ARG1 & ARG2       ARG1 if neither argument is null or 0, otherwise 0

  ARG1 < ARG2       ARG1 is less than ARG2
  ARG1 <= ARG2      ARG1 is less than or equal to ARG2
  ARG1 = ARG2       ARG1 is equal to ARG2
  ARG1 != ARG2      ARG1 is unequal to ARG2
  ARG1 >= ARG2      ARG1 is greater than or equal to ARG2
  ARG1 > ARG2       ARG1 is greater than ARG2

  ARG1 + ARG2       arithmetic sum of ARG1 and ARG2
  ARG1 - ARG2       arithmetic difference of ARG1 and ARG2

  ARG1 * ARG2       arithmetic product of ARG1 and ARG2
  ARG1 / ARG2       arithmetic quotient of ARG1 divided by ARG2
  ARG1 % ARG2       arithmetic remainder of ARG1 divided by ARG2

  STRING : REGEXP   anchored pattern match of REGEXP in STRING

  match STRING REGEXP        same as STRING : REGEXP
  substr STRING POS LENGTH   substring of STRING, POS counted from 1
  index STRING CHARS         index in STRING where any CHARS is found, or 0
  length STRING              length of STRING
  + TOKEN                    interpret TOKEN as a string, even if it is a
                               keyword like 'match' or an operator like '/'

  ( EXPRESSION )             value of EXPRESSION

Beware that many operators need to be escaped or quoted for shells.
Comparisons are arithmetic if both ARGs are numbers, else lexicographical.
Pattern matches return the string matched between \\( and \\) or null; if
\\( and \\) are not used, they return the number of characters matched or 0.

Exit status is 0 if EXPRESSION is neither null nor 0, 1 if EXPRESSION is null
or 0, 2 if EXPRESSION is syntactically invalid, and 3 if an error occurred.

GNU coreutils online help: <https://www.gnu.org/software/coreutils/>
Report any translation bugs to <https://translationproject.org/team/>
Full documentation <https://www.gnu.org/software/coreutils/expr>
or available locally via: info '(coreutils) expr invocation'
";

/// A value: an integer, or a string.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Val {
    Int(i128),
    Str(Vec<u8>),
}

impl Val {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Val::Int(n) => n.to_string().into_bytes(),
            Val::Str(s) => s.clone(),
        }
    }
    /// GNU's `null`: 0, the empty string, or `-`? followed by zeros only.
    fn null(&self) -> bool {
        match self {
            Val::Int(n) => *n == 0,
            Val::Str(s) => {
                let digits = s.strip_prefix(b"-").unwrap_or(s);
                s.is_empty() || (!digits.is_empty() && digits.iter().all(|&c| c == b'0'))
            }
        }
    }
    /// The integer a value is, if it looks like one (`-`? then digits).
    fn int(&self) -> Option<i128> {
        match self {
            Val::Int(n) => Some(*n),
            Val::Str(s) => {
                let digits = s.strip_prefix(b"-").unwrap_or(s);
                if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                std::str::from_utf8(s).ok()?.parse().ok()
            }
        }
    }
}

/// Why evaluation stopped: the message and the status.
struct Fail(String, i32);

fn syntax(msg: &str) -> Fail {
    Fail(format!("syntax error: {msg}"), 2)
}

struct Parser<'a> {
    args: &'a [OsString],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&[u8]> {
        self.args.get(self.i).map(|a| a.as_bytes())
    }
    /// Takes the next argument if it is `tok`.
    fn eat(&mut self, tok: &[u8]) -> bool {
        if self.peek() == Some(tok) {
            self.i += 1;
            return true;
        }
        false
    }
    /// The argument before the current one, for `missing argument after` messages.
    fn last(&self) -> String {
        self.i
            .checked_sub(1)
            .and_then(|k| self.args.get(k))
            .map(quote)
            .unwrap_or_default()
    }
    /// A required operand's start: fails at the end of the arguments.
    fn need(&self) -> Result<(), Fail> {
        if self.peek().is_none() {
            return Err(syntax(&format!("missing argument after {}", self.last())));
        }
        Ok(())
    }

    /// `|`, the lowest precedence. `eval`: false in a branch whose value is not used (its
    /// errors are not raised, as GNU's).
    fn or(&mut self, eval: bool) -> Result<Val, Fail> {
        let mut l = self.and(eval)?;
        while self.eat(b"|") {
            self.need()?;
            let use_right = l.null();
            let r = self.and(eval && use_right)?;
            if use_right {
                l = if r.null() { Val::Int(0) } else { r };
            }
        }
        Ok(l)
    }

    fn and(&mut self, eval: bool) -> Result<Val, Fail> {
        let mut l = self.compare(eval)?;
        while self.eat(b"&") {
            self.need()?;
            let r = self.compare(eval && !l.null())?;
            if l.null() || r.null() {
                l = Val::Int(0);
            }
        }
        Ok(l)
    }

    fn compare(&mut self, eval: bool) -> Result<Val, Fail> {
        let mut l = self.sum(eval)?;
        loop {
            let op = match self.peek() {
                Some(b"<") => 0,
                Some(b"<=") => 1,
                Some(b"=" | b"==") => 2,
                Some(b"!=") => 3,
                Some(b">=") => 4,
                Some(b">") => 5,
                _ => return Ok(l),
            };
            self.i += 1;
            self.need()?;
            let r = self.sum(eval)?;
            let ord = match (l.int(), r.int()) {
                (Some(a), Some(b)) => a.cmp(&b),
                _ => l.bytes().cmp(&r.bytes()),
            };
            let yes = match op {
                0 => ord.is_lt(),
                1 => ord.is_le(),
                2 => ord.is_eq(),
                3 => ord.is_ne(),
                4 => ord.is_ge(),
                _ => ord.is_gt(),
            };
            l = Val::Int(i128::from(yes));
        }
    }

    fn arith(left: &Val, right: &Val, op: u8, eval: bool) -> Result<Val, Fail> {
        if !eval {
            return Ok(Val::Int(0));
        }
        let (Some(a), Some(b)) = (left.int(), right.int()) else {
            return Err(Fail("non-integer argument".into(), 2));
        };
        if matches!(op, b'/' | b'%') && b == 0 {
            return Err(Fail("division by zero".into(), 2));
        }
        let v = match op {
            b'+' => a.checked_add(b),
            b'-' => a.checked_sub(b),
            b'*' => a.checked_mul(b),
            b'/' => a.checked_div(b),
            _ => a.checked_rem(b),
        };
        v.map(Val::Int)
            .ok_or_else(|| Fail("integer overflow".into(), 3))
    }

    fn sum(&mut self, eval: bool) -> Result<Val, Fail> {
        let mut l = self.product(eval)?;
        loop {
            let op = match self.peek() {
                Some(b"+") => b'+',
                Some(b"-") => b'-',
                _ => return Ok(l),
            };
            self.i += 1;
            self.need()?;
            let r = self.product(eval)?;
            l = Self::arith(&l, &r, op, eval)?;
        }
    }

    fn product(&mut self, eval: bool) -> Result<Val, Fail> {
        let mut l = self.colon(eval)?;
        loop {
            let op = match self.peek() {
                Some(b"*") => b'*',
                Some(b"/") => b'/',
                Some(b"%") => b'%',
                _ => return Ok(l),
            };
            self.i += 1;
            self.need()?;
            let r = self.colon(eval)?;
            l = Self::arith(&l, &r, op, eval)?;
        }
    }

    fn colon(&mut self, eval: bool) -> Result<Val, Fail> {
        let mut l = self.unary(eval)?;
        while self.eat(b":") {
            self.need()?;
            let r = self.unary(eval)?;
            if eval {
                l = matches(&l.bytes(), &r.bytes())?;
            }
        }
        Ok(l)
    }

    /// `match`, `substr`, `index`, `length`, `+ TOKEN`, then a primary.
    fn unary(&mut self, eval: bool) -> Result<Val, Fail> {
        self.need()?;
        if self.eat(b"+") {
            self.need()?;
            let t = self.peek().unwrap_or_default().to_vec();
            self.i += 1;
            return Ok(Val::Str(t));
        }
        if self.eat(b"length") {
            self.need()?;
            let s = self.unary(eval)?.bytes();
            return Ok(Val::Int(s.len() as i128));
        }
        if self.eat(b"match") {
            self.need()?;
            let s = self.unary(eval)?.bytes();
            self.need()?;
            let re = self.unary(eval)?.bytes();
            return if eval {
                matches(&s, &re)
            } else {
                Ok(Val::Int(0))
            };
        }
        if self.eat(b"index") {
            self.need()?;
            let s = self.unary(eval)?.bytes();
            self.need()?;
            let chars = self.unary(eval)?.bytes();
            let at = s
                .iter()
                .position(|c| chars.contains(c))
                .map_or(0, |k| k + 1);
            return Ok(Val::Int(at as i128));
        }
        if self.eat(b"substr") {
            self.need()?;
            let s = self.unary(eval)?.bytes();
            self.need()?;
            let pos = self.unary(eval)?;
            self.need()?;
            let len = self.unary(eval)?;
            let (Some(pos), Some(len)) = (pos.int(), len.int()) else {
                return Ok(Val::Str(Vec::new()));
            };
            if pos < 1 || len < 1 || pos > s.len() as i128 {
                return Ok(Val::Str(Vec::new()));
            }
            let from = usize::try_from(pos - 1).unwrap_or(usize::MAX);
            let to = from.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
            let to = to.min(s.len());
            return Ok(Val::Str(s.get(from..to).unwrap_or_default().to_vec()));
        }
        self.primary(eval)
    }

    fn primary(&mut self, eval: bool) -> Result<Val, Fail> {
        if self.eat(b"(") {
            self.need()?;
            let v = self.or(eval)?;
            if !self.eat(b")") {
                return Err(match self.peek() {
                    Some(_) => syntax(&format!(
                        "expecting ')' instead of {}",
                        quote(
                            self.args
                                .get(self.i)
                                .map(OsString::as_os_str)
                                .unwrap_or_default(),
                        )
                    )),
                    None => syntax(&format!("expecting ')' after {}", self.last())),
                });
            }
            return Ok(v);
        }
        if self.peek() == Some(b")") {
            return Err(syntax(&format!("unexpected argument {}", quote(")"))));
        }
        let t = self.peek().unwrap_or_default().to_vec();
        self.i += 1;
        Ok(Val::Str(t))
    }
}

/// `STRING : REGEX`: the first group's text (empty when nothing matched) or the length of
/// the match anchored at the start (0).
fn matches(s: &[u8], re: &[u8]) -> Result<Val, Fail> {
    let (regex, _) = Regex::new(re, &Options::new(Syntax::Basic)).map_err(|m| Fail(m, 2))?;
    let caps = regex
        .captures_at(s, 0)
        .filter(|c| matches!(c.first(), Some(Some((0, _)))));
    if regex.groups() > 0 {
        let text = caps
            .and_then(|c| c.get(1).copied().flatten())
            .and_then(|(a, b)| s.get(a..b))
            .unwrap_or_default();
        return Ok(Val::Str(text.to_vec()));
    }
    let len = caps
        .and_then(|c| c.first().copied().flatten())
        .map_or(0, |(_, b)| b);
    Ok(Val::Int(len as i128))
}

pub fn run(args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut args = args;
    match args.first().map(|a| a.as_bytes()) {
        Some(b"--help") if args.len() == 1 => {
            let mut o = Outcome::ok();
            o.out(HELP);
            return Ok(o);
        }
        Some(b"--version") if args.len() == 1 => return Err(Stop::Version),
        Some(b"--") => args = args.get(1..).unwrap_or_default(),
        _ => {}
    }
    if args.is_empty() {
        return Err(Stop::UsageWith("missing operand".into(), 2));
    }
    let mut p = Parser { args, i: 0 };
    let result = p.or(true).and_then(|v| match p.args.get(p.i) {
        Some(extra) => Err(syntax(&format!("unexpected argument {}", quote(extra)))),
        None => Ok(v),
    });
    match result {
        Ok(v) => {
            let mut o = Outcome::status(i32::from(v.null()));
            let mut line = v.bytes();
            line.push(b'\n');
            o.out(line);
            Ok(o)
        }
        Err(Fail(msg, status)) => Err(Stop::FailWith(msg, status)),
    }
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Expr;
    use crate::testing::world::{World, text};

    fn e(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(Expr, args))
    }

    #[test]
    fn values_and_statuses_as_gnu() {
        // GNU coreutils 9.1 `expr`, LC_ALL=C.
        for (args, out, status) in [
            (&["1", "+", "2"][..], "3\n", 0),
            (&["10", "/", "3"], "3\n", 0),
            (&["10", "%", "3"], "1\n", 0),
            (&["5", "*", "4"], "20\n", 0),
            (&["a", "<", "b"], "1\n", 0),
            (&["10", "<", "9"], "0\n", 1),
            (&["9", "<", "10a"], "0\n", 1),
            (&["abc", ":", "a\\(.\\)"], "b\n", 0),
            (&["abc", ":", "ab*"], "2\n", 0),
            (&["abc", ":", "b"], "0\n", 1),
            (&["ab", ":", "\\(x\\)*"], "\n", 1),
            (&["length", "hello"], "5\n", 0),
            (&["substr", "hello", "2", "3"], "ell\n", 0),
            (&["substr", "hello", "0", "2"], "\n", 1),
            (&["index", "hello", "l"], "3\n", 0),
            (&["match", "abc", "a."], "2\n", 0),
            (&["0", "|", "5"], "5\n", 0),
            (&["", "|", ""], "0\n", 1),
            (&["3", "&", "0"], "0\n", 1),
            (&["3", "&", "4"], "3\n", 0),
            (&["00"], "00\n", 1),
            (&["-0"], "-0\n", 1),
            (&["0x"], "0x\n", 0),
            (&["+", "length"], "length\n", 0),
            (&["(", "1", "+", "2", ")", "*", "3"], "9\n", 0),
            (&["01", "=", "1"], "1\n", 0),
            (&["2", "*", "3", "+", "4"], "10\n", 0),
            (&["1", "|", "1", "/", "0"], "1\n", 0),
            (&["--", "5"], "5\n", 0),
            (&["aaa", ":", "a*", "+", "1"], "4\n", 0),
        ] {
            assert_eq!(e(args), (out.into(), String::new(), status), "{args:?}");
        }
    }

    #[test]
    fn errors_as_gnu() {
        for (args, err, status) in [
            (
                &["1", "+"][..],
                "expr: syntax error: missing argument after '+'\n",
                2,
            ),
            (
                &["1", "2"],
                "expr: syntax error: unexpected argument '2'\n",
                2,
            ),
            (&["a", "+", "1"], "expr: non-integer argument\n", 2),
            (&["1", "/", "0"], "expr: division by zero\n", 2),
            (
                &["(", "1"],
                "expr: syntax error: expecting ')' after '1'\n",
                2,
            ),
            (
                &["1", ")"],
                "expr: syntax error: unexpected argument ')'\n",
                2,
            ),
            (
                &["("],
                "expr: syntax error: missing argument after '('\n",
                2,
            ),
            (
                &["length"],
                "expr: syntax error: missing argument after 'length'\n",
                2,
            ),
            (
                &[],
                "expr: missing operand\nTry 'expr --help' for more information.\n",
                2,
            ),
        ] {
            assert_eq!(e(args), (String::new(), err.into(), status), "{args:?}");
        }
    }
}
