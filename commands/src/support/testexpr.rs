//! bash's conditional expressions (`test.c`): the unary and binary operators, which the
//! interpreter's `[[ ]]` will call too, and the argument-count rules and precedence of the
//! `test`/`[` builtins.
//!
//! The operators ([`unary_file_test`], [`binary_test`]) look at the sandbox through
//! [`Ctx::fs`]: every file the view shows belongs to the agent ([`Ctx::identity`], as `ls -l`
//! shows it), so `-O`/`-G` are true for any existing file and `-r`/`-w`/`-x` read the owner's
//! permission bits (all of them for uid 0, as `access(2)` answers root).
//!
//! [`evaluate`] is `test_command`'s parser, step for step: POSIX's rules by argument count
//! (0 to 4), then bash's recursive descent (`-o` below `-a` below `!`, `( )`) with its
//! quirks kept: a unary operator without operand is a string (`test -z` is true), both sides
//! of `-a`/`-o` are evaluated, and `-t` takes its operand only when it is a number.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::support::cnum::legal_number;
use crate::support::ident::is_identifier;
use crate::{Ctx, FileKind, Meta, Outcome, Stop};

/// `test_unop`: `-X` for one of bash's unary operators.
pub fn is_unary_op(op: &[u8]) -> bool {
    matches!(
        op,
        [
            b'-',
            b'a' | b'b'
                | b'c'
                | b'd'
                | b'e'
                | b'f'
                | b'g'
                | b'h'
                | b'k'
                | b'n'
                | b'o'
                | b'p'
                | b'r'
                | b's'
                | b't'
                | b'u'
                | b'v'
                | b'w'
                | b'x'
                | b'z'
                | b'G'
                | b'L'
                | b'O'
                | b'S'
                | b'N'
                | b'R'
        ]
    )
}

/// `test_binop`: one of `= == != < >` or `-eq -ne -lt -le -gt -ge -nt -ot -ef`.
pub fn is_binary_op(op: &[u8]) -> bool {
    matches!(
        op,
        b"=" | b"=="
            | b"!="
            | b"<"
            | b">"
            | b"-eq"
            | b"-ne"
            | b"-lt"
            | b"-le"
            | b"-gt"
            | b"-ge"
            | b"-nt"
            | b"-ot"
            | b"-ef"
    )
}

/// `stat` (following links) of an operand; `None` when it does not exist for the agent.
fn stat(operand: &OsStr, ctx: &Ctx) -> Option<Meta> {
    ctx.fs.stat(&ctx.resolve(operand), true).ok()
}

/// `access(2)` for the agent: the owner's bits (every file in the view is the agent's),
/// or root's rule (read and write always, execute with any `x` bit or a directory).
fn access(operand: &OsStr, bit: u32, ctx: &Ctx) -> bool {
    let Some(m) = stat(operand, ctx) else {
        return false;
    };
    if ctx.identity.uid == 0 {
        return bit != 0o100 || m.is_dir() || m.perm & 0o111 != 0;
    }
    m.perm & bit != 0
}

/// Whether `-v` finds a set variable: a name with a value, `NAME[0]`/`NAME[@]`/`NAME[*]`
/// of one (trumansh's variables are scalars, element 0 of an array), or `0` (`$0` is
/// always set; trumansh has no other positional parameters).
fn var_is_set(name: &[u8], ctx: &Ctx) -> bool {
    let name = String::from_utf8_lossy(name);
    if let Some((base, sub)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        let sub = sub.trim();
        return is_identifier(base)
            && matches!(sub, "0" | "@" | "*")
            && ctx.vars.get(base).is_some();
    }
    if let Some(n) = legal_number(name.as_bytes()) {
        return n == 0;
    }
    ctx.vars.get(&name).is_some()
}

/// One unary operator applied to its operand, as bash's `unary_test`: the file tests
/// (`-a -b -c -d -e -f -g -h -k -p -r -s -u -w -x -G -L -N -O -S`, `-t FD`), the string
/// tests (`-n -z`), `-o OPTION`, `-v VAR` and `-R VAR`. `None` when `op` is not a unary
/// operator.
pub fn unary_file_test(op: &str, operand: &OsStr, ctx: &Ctx) -> Option<bool> {
    if !is_unary_op(op.as_bytes()) {
        return None;
    }
    let arg = operand.as_bytes();
    let kind = |k: FileKind| stat(operand, ctx).is_some_and(|m| m.kind == k);
    let mode = |bit: u32| stat(operand, ctx).is_some_and(|m| m.perm & bit != 0);
    Some(match op.as_bytes().get(1).copied().unwrap_or(0) {
        b'a' | b'e' | b'O' | b'G' => stat(operand, ctx).is_some(),
        b'r' => access(operand, 0o400, ctx),
        b'w' => access(operand, 0o200, ctx),
        b'x' => access(operand, 0o100, ctx),
        b'N' => stat(operand, ctx).is_some_and(|m| m.mtime > m.atime),
        b'f' => kind(FileKind::File),
        b'd' => kind(FileKind::Dir),
        b's' => stat(operand, ctx).is_some_and(|m| m.len > 0),
        b'S' => kind(FileKind::Socket),
        b'p' => kind(FileKind::Fifo),
        b'c' => stat(operand, ctx).is_some_and(|m| matches!(m.kind, FileKind::CharDevice(_))),
        b'b' => stat(operand, ctx).is_some_and(|m| matches!(m.kind, FileKind::BlockDevice(_))),
        b'h' | b'L' => {
            !arg.is_empty()
                && ctx
                    .fs
                    .stat(&ctx.resolve(operand), false)
                    .is_ok_and(|m| m.is_symlink())
        }
        b'u' => mode(0o4000),
        b'g' => mode(0o2000),
        b'k' => mode(0o1000),
        // stdin is never a terminal in trumansh; stdout may be (the REPL).
        b't' => legal_number(arg) == Some(1) && ctx.stdout_is_tty,
        b'n' => !arg.is_empty(),
        b'z' => arg.is_empty(),
        b'o' => ctx.shellopts.split(':').any(|name| name.as_bytes() == arg),
        b'v' => var_is_set(arg, ctx),
        // No name references in trumansh.
        _ => false,
    })
}

/// `arithcomp`: both operands must be whole decimal numbers (`legal_number`).
fn arith(left: &[u8], right: &[u8], cmp: fn(i64, i64) -> bool) -> Result<bool, String> {
    let number = |s: &[u8]| {
        legal_number(s).ok_or_else(|| {
            format!(
                "{}: integer expression expected",
                String::from_utf8_lossy(s)
            )
        })
    };
    let l = number(left)?;
    let r = number(right)?;
    Ok(cmp(l, r))
}

/// `filecomp`: `-nt` and `-ot` by modification time (a missing file is older than any
/// existing one), `-ef` by device and inode.
fn filecomp(op: &[u8], left: &OsStr, right: &OsStr, ctx: &Ctx) -> bool {
    let l = stat(left, ctx);
    let r = stat(right, ctx);
    let mtime = |m: &Option<Meta>| m.as_ref().map(|m| m.mtime);
    match op {
        b"-nt" => match (mtime(&l), mtime(&r)) {
            (Some(a), Some(b)) => a > b,
            (a, b) => a.is_some() && b.is_none(),
        },
        b"-ot" => match (mtime(&l), mtime(&r)) {
            (Some(a), Some(b)) => a < b,
            (a, b) => a.is_none() && b.is_some(),
        },
        _ => match (l, r) {
            (Some(a), Some(b)) => a.dev == b.dev && a.ino == b.ino,
            _ => false,
        },
    }
}

/// One binary operator applied, as bash's `binary_test` for `test` (plain string
/// comparison; `[[ ]]`'s pattern `==` and arithmetic operands are the interpreter's):
/// `= == != < >` (bytes), `-eq -ne -lt -le -gt -ge` (integers), `-nt -ot -ef` (files).
/// `None` when `op` is not a binary operator; `Err` holds bash's message for an operand that
/// is not an integer (`abc: integer expression expected`).
pub fn binary_test(
    op: &str,
    left: &OsStr,
    right: &OsStr,
    ctx: &Ctx,
) -> Option<Result<bool, String>> {
    let (l, r) = (left.as_bytes(), right.as_bytes());
    Some(Ok(match op.as_bytes() {
        b"=" | b"==" => l == r,
        b"!=" => l != r,
        b"<" => l < r,
        b">" => l > r,
        b"-eq" => return Some(arith(l, r, |a, b| a == b)),
        b"-ne" => return Some(arith(l, r, |a, b| a != b)),
        b"-lt" => return Some(arith(l, r, |a, b| a < b)),
        b"-le" => return Some(arith(l, r, |a, b| a <= b)),
        b"-gt" => return Some(arith(l, r, |a, b| a > b)),
        b"-ge" => return Some(arith(l, r, |a, b| a >= b)),
        op @ (b"-nt" | b"-ot" | b"-ef") => filecomp(op, left, right, ctx),
        _ => return None,
    }))
}

/// The parser state of one `test`: bash's `argv`/`argc`/`pos`, with `argv[0]` the command
/// name so that the indexes are bash's.
struct Test<'a, 'c> {
    argv: Vec<&'a OsStr>,
    pos: usize,
    ctx: &'a Ctx<'c>,
}

type Eval = Result<bool, String>;

/// `ONE_ARG_TEST`: a non-empty string.
fn one_arg(s: &OsStr) -> bool {
    !s.is_empty()
}

fn shown(s: &OsStr) -> String {
    String::from_utf8_lossy(s.as_bytes()).into_owned()
}

impl<'a> Test<'a, '_> {
    fn argc(&self) -> usize {
        self.argv.len()
    }

    /// `argv[i]`; past the end, an empty word (bash reads the NULL terminator there, and
    /// every caller has checked the count first).
    fn at(&self, i: usize) -> &'a OsStr {
        self.argv.get(i).copied().unwrap_or_default()
    }

    fn at_is(&self, i: usize, word: &str) -> bool {
        self.argv
            .get(i)
            .is_some_and(|a| a.as_bytes() == word.as_bytes())
    }

    /// `advance(f)`: next word; with `check`, running out is `argument expected`.
    fn advance(&mut self, check: bool) -> Result<(), String> {
        self.pos += 1;
        if check && self.pos >= self.argc() {
            return Err("argument expected".into());
        }
        Ok(())
    }

    fn expr(&mut self) -> Eval {
        if self.pos >= self.argc() {
            return Err("argument expected".into());
        }
        self.or()
    }

    fn or(&mut self) -> Eval {
        let value = self.and()?;
        if self.at_is(self.pos, "-o") {
            self.advance(false)?;
            let v2 = self.or()?;
            return Ok(value || v2);
        }
        Ok(value)
    }

    fn and(&mut self) -> Eval {
        let value = self.term()?;
        if self.at_is(self.pos, "-a") {
            self.advance(false)?;
            let v2 = self.and()?;
            return Ok(value && v2);
        }
        Ok(value)
    }

    fn term(&mut self) -> Eval {
        if self.pos >= self.argc() {
            return Err("argument expected".into());
        }
        if self.at_is(self.pos, "!") {
            let mut negate = false;
            while self.at_is(self.pos, "!") {
                self.advance(true)?;
                negate = !negate;
            }
            let value = self.term()?;
            return Ok(value != negate);
        }
        if self.at_is(self.pos, "(") {
            self.advance(true)?;
            let value = self.expr()?;
            match self.argv.get(self.pos) {
                None => return Err("`)' expected".into()),
                Some(a) if a.as_bytes() != b")" => {
                    return Err(format!("`)' expected, found {}", shown(a)));
                }
                Some(_) => {}
            }
            self.advance(false)?;
            return Ok(value);
        }
        if self.pos + 3 <= self.argc() && is_binary_op(self.at(self.pos + 1).as_bytes()) {
            return self.binary_operator();
        }
        if self.pos + 2 <= self.argc() && is_unary_op(self.at(self.pos).as_bytes()) {
            return self.unary_operator();
        }
        let value = one_arg(self.at(self.pos));
        self.advance(false)?;
        Ok(value)
    }

    fn binary_operator(&mut self) -> Eval {
        let w = self.at(self.pos + 1);
        let op = w.to_str().filter(|op| is_binary_op(op.as_bytes()));
        let Some(op) = op else {
            return Err(format!("{}: binary operator expected", shown(w)));
        };
        let value = binary_test(op, self.at(self.pos), self.at(self.pos + 2), self.ctx)
            .unwrap_or(Ok(false))?;
        self.pos += 3;
        Ok(value)
    }

    fn unary_operator(&mut self) -> Eval {
        let op = self.at(self.pos);
        let Some(op) = op.to_str().filter(|op| is_unary_op(op.as_bytes())) else {
            return Ok(false);
        };
        if op == "-t" {
            // `-t` takes its operand only when it is a number; alone it means `-t 1`.
            self.advance(false)?;
            if self.pos < self.argc() {
                if legal_number(self.at(self.pos).as_bytes()).is_none() {
                    return Ok(false);
                }
                self.advance(false)?;
                return Ok(unary_file_test(op, self.at(self.pos - 1), self.ctx).unwrap_or(false));
            }
            return Ok(unary_file_test(op, OsStr::new("1"), self.ctx).unwrap_or(false));
        }
        self.advance(true)?;
        self.pos += 1;
        Ok(unary_file_test(op, self.at(self.pos - 1), self.ctx).unwrap_or(false))
    }

    fn two_arguments(&mut self) -> Eval {
        let first = self.at(self.pos);
        if first.as_bytes() == b"!" {
            return Ok(self.at(self.pos + 1).is_empty());
        }
        if first.len() == 2
            && first.as_bytes().first() == Some(&b'-')
            && is_unary_op(first.as_bytes())
        {
            return self.unary_operator();
        }
        Err(format!("{}: unary operator expected", shown(first)))
    }

    fn three_arguments(&mut self) -> Eval {
        let value;
        let middle = self.at(self.pos + 1).as_bytes();
        if is_binary_op(middle) {
            value = self.binary_operator()?;
            self.pos = self.argc();
        } else if middle == b"-a" || middle == b"-o" {
            let (l, r) = (one_arg(self.at(self.pos)), one_arg(self.at(self.pos + 2)));
            value = if middle == b"-a" { l && r } else { l || r };
            self.pos = self.argc();
        } else if self.at_is(self.pos, "!") {
            self.advance(true)?;
            value = !self.two_arguments()?;
            self.pos = self.argc();
        } else if self.at(self.pos).as_bytes().first() == Some(&b'(')
            && self.at(self.pos + 2).as_bytes().first() == Some(&b')')
        {
            value = one_arg(self.at(self.pos + 1));
            self.pos = self.argc();
        } else {
            return Err(format!(
                "{}: binary operator expected",
                shown(self.at(self.pos + 1))
            ));
        }
        Ok(value)
    }

    /// `posixtest`: POSIX's rules by argument count, then the full grammar.
    fn posixtest(&mut self) -> Eval {
        match self.argc() - 1 {
            0 => {
                self.pos = self.argc();
                Ok(false)
            }
            1 => {
                self.pos = self.argc();
                Ok(one_arg(self.at(1)))
            }
            2 => {
                let v = self.two_arguments()?;
                self.pos = self.argc();
                Ok(v)
            }
            3 => self.three_arguments(),
            4 if self.at_is(self.pos, "!") => {
                self.advance(true)?;
                Ok(!self.three_arguments()?)
            }
            4 if self.at_is(self.pos, "(") && self.at_is(self.argc() - 1, ")") => {
                self.advance(true)?;
                let v = self.two_arguments()?;
                self.pos = self.argc();
                Ok(v)
            }
            _ => self.expr(),
        }
    }
}

/// The whole expression of `test ARGS...` (for `[`, without the final `]`): `Ok` with its
/// truth, or `Err` with bash's message (`too many arguments`, `a: unary operator expected`,
/// ...), which makes the status 2.
pub fn evaluate(args: &[OsString], ctx: &Ctx) -> Result<bool, String> {
    let mut t = Test {
        argv: std::iter::once(OsStr::new("test"))
            .chain(args.iter().map(OsString::as_os_str))
            .collect(),
        pos: 1,
        ctx,
    };
    if t.argc() <= 1 {
        return Ok(false);
    }
    let value = t.posixtest()?;
    if t.pos != t.argc() {
        let word = t.at(t.pos);
        if t.pos < t.argc() && word.as_bytes().first() == Some(&b'-') {
            return Err(format!("syntax error: `{}' unexpected", shown(word)));
        }
        return Err("too many arguments".into());
    }
    Ok(value)
}

/// The `test` command on these arguments: status 0 (true), 1 (false), or bash's message
/// with status 2.
pub fn command(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    match evaluate(args, ctx) {
        Ok(true) => Ok(Outcome::ok()),
        Ok(false) => Ok(Outcome::status(1)),
        Err(msg) => Err(Stop::FailWith(msg, 2)),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::time::{Duration, SystemTime};

    use super::{binary_test, is_binary_op, is_unary_op, unary_file_test};
    use crate::CommandName::{Bracket, Test};
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};
    use crate::{Ctx, FileKind, Identity, Stdin};

    fn world() -> World {
        let t = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        World::new(
            MemFs::rooted("/s")
                .file("/s/f", b"data")
                .file("/s/empty", b"")
                .file("/s/exe", b"#!")
                .perm("/s/exe", 0o755)
                .file("/s/locked", b"x")
                .perm("/s/locked", 0o000)
                .file("/s/old", b"")
                .times("/s/old", t(10), t(100))
                .file("/s/new", b"")
                .times("/s/new", t(300), t(200))
                .file("/s/suid", b"")
                .perm("/s/suid", 0o4755)
                .dir("/s/d")
                .perm("/s/d", 0o1777)
                .symlink("/s/l", "f")
                .symlink("/s/dang", "nowhere")
                .special("/s/fifo", FileKind::Fifo),
        )
        .var("SET", "1", false)
        .declared("DECLARED")
    }

    /// Runs `f` with a context on the world (and this uid).
    fn with_ctx<T>(w: &World, uid: u32, tty: bool, f: impl FnOnce(&Ctx) -> T) -> T {
        let stdin = Stdin::empty();
        let identity = Identity {
            uid,
            ..Identity::default()
        };
        let ctx = Ctx {
            name: Test,
            fs: &w.fs,
            cwd: &w.cwd,
            mount_point: &w.mount,
            vars: &w.vars,
            stdin: &stdin,
            now: SystemTime::UNIX_EPOCH,
            identity: &identity,
            stdout_is_tty: tty,
            spill: None,
            walk_depth: 8,
            denied: &[],
            inputs: &[],
            shellopts: "braceexpand:hashall:interactive-comments",
            runner: None,
            usage: None,
            program: None,
        };
        f(&ctx)
    }

    fn unary(op: &str, arg: &str, uid: u32) -> Option<bool> {
        with_ctx(&world(), uid, false, |ctx| {
            unary_file_test(op, OsStr::new(arg), ctx)
        })
    }

    #[test]
    fn file_operators() {
        let yes = |op, arg| assert_eq!(unary(op, arg, 1000), Some(true), "{op} {arg}");
        let no = |op, arg| assert_eq!(unary(op, arg, 1000), Some(false), "{op} {arg}");
        yes("-e", "f");
        yes("-a", "d");
        no("-e", "nope");
        no("-e", "dang");
        yes("-f", "l");
        no("-f", "d");
        yes("-d", "d");
        yes("-h", "l");
        yes("-L", "dang");
        no("-h", "f");
        no("-h", "");
        yes("-s", "f");
        no("-s", "empty");
        yes("-p", "fifo");
        no("-S", "fifo");
        no("-b", "f");
        no("-c", "f");
        yes("-u", "suid");
        no("-g", "suid");
        yes("-k", "d");
        yes("-r", "f");
        yes("-w", "f");
        no("-x", "f");
        yes("-x", "exe");
        yes("-x", "d");
        no("-r", "locked");
        no("-w", "locked");
        yes("-O", "f");
        yes("-G", "f");
        no("-O", "nope");
        yes("-N", "old");
        no("-N", "new");
        // Root reads and writes anything, and runs what has an x bit.
        assert_eq!(unary("-r", "locked", 0), Some(true));
        assert_eq!(unary("-w", "locked", 0), Some(true));
        assert_eq!(unary("-x", "locked", 0), Some(false));
        assert_eq!(unary("-q", "f", 1000), None);
    }

    #[test]
    fn string_variable_option_and_tty_operators() {
        assert_eq!(unary("-z", "", 1000), Some(true));
        assert_eq!(unary("-n", "", 1000), Some(false));
        assert_eq!(unary("-v", "SET", 1000), Some(true));
        assert_eq!(unary("-v", "DECLARED", 1000), Some(false));
        assert_eq!(unary("-v", "SET[0]", 1000), Some(true));
        assert_eq!(unary("-v", "SET[1]", 1000), Some(false));
        assert_eq!(unary("-v", "0", 1000), Some(true));
        assert_eq!(unary("-v", "1", 1000), Some(false));
        assert_eq!(unary("-o", "hashall", 1000), Some(true));
        assert_eq!(unary("-o", "errexit", 1000), Some(false));
        assert_eq!(unary("-o", "nope", 1000), Some(false));
        assert_eq!(unary("-R", "SET", 1000), Some(false));
        let tty = |fd: &str, on| {
            with_ctx(&world(), 1000, on, |ctx| {
                unary_file_test("-t", OsStr::new(fd), ctx)
            })
        };
        assert_eq!(tty("1", true), Some(true));
        assert_eq!(tty("1", false), Some(false));
        assert_eq!(tty("0", true), Some(false));
    }

    #[test]
    fn binary_operators() {
        let bin = |l: &str, op: &str, r: &str| {
            with_ctx(&world(), 1000, false, |ctx| {
                binary_test(op, OsStr::new(l), OsStr::new(r), ctx)
            })
        };
        assert_eq!(bin("a", "=", "a"), Some(Ok(true)));
        assert_eq!(bin("a", "==", "b"), Some(Ok(false)));
        assert_eq!(bin("a", "!=", "b"), Some(Ok(true)));
        assert_eq!(bin("B", "<", "a"), Some(Ok(true)));
        assert_eq!(bin("b", ">", "a"), Some(Ok(true)));
        assert_eq!(bin(" 3 ", "-eq", "3"), Some(Ok(true)));
        assert_eq!(bin("-2", "-lt", "1"), Some(Ok(true)));
        assert_eq!(bin("2", "-ge", "2"), Some(Ok(true)));
        assert_eq!(
            bin("x", "-eq", "1"),
            Some(Err("x: integer expression expected".into()))
        );
        assert_eq!(
            bin("1", "-ne", ""),
            Some(Err(": integer expression expected".into()))
        );
        assert_eq!(bin("new", "-nt", "old"), Some(Ok(true)));
        assert_eq!(bin("old", "-ot", "new"), Some(Ok(true)));
        assert_eq!(bin("f", "-nt", "nope"), Some(Ok(true)));
        assert_eq!(bin("nope", "-ot", "f"), Some(Ok(true)));
        assert_eq!(bin("l", "-ef", "f"), Some(Ok(true)));
        assert_eq!(bin("f", "-ef", "empty"), Some(Ok(false)));
        assert_eq!(bin("a", "-xx", "b"), None);
        assert!(is_binary_op(b"-ef") && !is_binary_op(b"-a"));
        assert!(is_unary_op(b"-a") && !is_unary_op(b"-ef"));
    }

    #[test]
    fn the_commands() {
        let w = world();
        let t = |args: &[&str]| text(&w.run(Test, args));
        let b = |args: &[&str]| text(&w.run(Bracket, args));
        assert_eq!(t(&[]).2, 1);
        assert_eq!(t(&["-f", "f", "-a", "!", "-d", "f"]).2, 0);
        assert_eq!(
            t(&["a", "b", "c", "d"]),
            (String::new(), "test: too many arguments\n".into(), 2)
        );
        assert_eq!(
            t(&["(", "a", "-a", "b", "c"]),
            (String::new(), "test: `)' expected, found c\n".into(), 2)
        );
        assert_eq!(
            t(&["-x", "-x", "-x", "-x"]),
            (
                String::new(),
                "test: syntax error: `-x' unexpected\n".into(),
                2
            )
        );
        assert_eq!(b(&["]"]).2, 1);
        assert_eq!(b(&["-d", "d", "]"]).2, 0);
        assert_eq!(b(&["a"]), (String::new(), "[: missing `]'\n".into(), 2));
    }
}
