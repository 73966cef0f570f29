//! awk's grammar as gawk parses it: precedence from `?:` down to `$`, concatenation of
//! operands that cannot start with a sign (`1 " " -1` is `1 (" " - 1)`), `>` as a
//! redirection inside `print`'s operands, `cmd | getline` binding tighter than comparisons
//! and looser than concatenation, `getline < file` taking a primary, regex literals as
//! `$0 ~ /re/` except where a regex is expected.

use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{
    Bi, BinOp, CmpOp, Expr, Func, GetSrc, LValue, Pattern, Program, Redirect, Rule, Stmt, Var,
};
use super::lexer::{Tok, Token};

/// The special variables, in slot order.
pub const SPECIALS: &[&str] = &[
    "NF",
    "NR",
    "FNR",
    "FS",
    "OFS",
    "ORS",
    "RS",
    "FILENAME",
    "SUBSEP",
    "CONVFMT",
    "OFMT",
    "RSTART",
    "RLENGTH",
    "RT",
    "ENVIRON",
    "ARGV",
    "ARGC",
    "IGNORECASE",
];

/// How deep expressions and statements may nest.
const MAX_DEPTH: usize = 200;

/// A syntax error at a token.
#[derive(Debug)]
pub struct ParseError {
    pub msg: String,
    /// The offending token's offset in the text.
    pub at: usize,
    /// The message is gawk's `unexpected newline or end of string`.
    pub eol: bool,
    /// A whole-message error (`error: ...`/`fatal: ...`) without a source line.
    pub bare: Option<(String, i32)>,
}

pub struct Parser {
    toks: Vec<Token>,
    pos: usize,
    globals: HashMap<String, usize>,
    global_names: Vec<String>,
    funcs: HashMap<String, usize>,
    func_list: Vec<Func>,
    /// Parameters of the function being parsed, and which are used as arrays.
    locals: Option<(Vec<String>, Vec<bool>)>,
    regexes: Vec<Vec<u8>>,
    ranges: usize,
    depth: usize,
    /// Inside `print`'s operands (not in parentheses): `>` redirects.
    in_print: bool,
    /// Inside `for (` init: `in` is not an operator.
    no_in: bool,
    /// The rule being parsed: `BEGIN`, `END` or another.
    rule: Option<&'static str>,
    loops: usize,
}

type PResult<T> = Result<T, ParseError>;

fn is_lvalue(e: &Expr) -> bool {
    matches!(e, Expr::Var(_) | Expr::Field(_) | Expr::Index(..))
}

fn to_lvalue(e: Expr) -> Option<LValue> {
    match e {
        Expr::Var(v) => Some(LValue::Var(v)),
        Expr::Field(f) => Some(LValue::Field(f)),
        Expr::Index(v, s) => Some(LValue::Index(v, s)),
        _ => None,
    }
}

impl Parser {
    pub fn new(toks: Vec<Token>) -> Self {
        let mut p = Parser {
            toks,
            pos: 0,
            globals: HashMap::new(),
            global_names: Vec::new(),
            funcs: HashMap::new(),
            func_list: Vec::new(),
            locals: None,
            regexes: Vec::new(),
            ranges: 0,
            depth: 0,
            in_print: false,
            no_in: false,
            rule: None,
            loops: 0,
        };
        for s in SPECIALS {
            p.global(s);
        }
        p
    }

    fn global(&mut self, name: &str) -> usize {
        if let Some(&i) = self.globals.get(name) {
            return i;
        }
        let i = self.global_names.len();
        self.globals.insert(name.to_string(), i);
        self.global_names.push(name.to_string());
        i
    }

    fn var(&mut self, name: &str) -> Var {
        if let Some((params, _)) = &self.locals
            && let Some(i) = params.iter().position(|p| p == name)
        {
            return Var::Local(i);
        }
        Var::Global(self.global(name))
    }

    fn mark_array(&mut self, v: Var) {
        if let (Var::Local(i), Some((_, arrays))) = (v, &mut self.locals)
            && let Some(a) = arrays.get_mut(i)
        {
            *a = true;
        }
    }

    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::Eof, |t| &t.tok)
    }
    fn peek_at(&self, n: usize) -> &Tok {
        self.toks.get(self.pos + n).map_or(&Tok::Eof, |t| &t.tok)
    }
    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn err(&self) -> ParseError {
        let t = self.toks.get(self.pos).or_else(|| self.toks.last());
        let at = t.map_or(0, |t| t.at);
        let eol = matches!(self.peek(), Tok::Newline | Tok::Eof);
        ParseError {
            msg: if eol {
                "unexpected newline or end of string".into()
            } else {
                "syntax error".into()
            },
            at,
            eol,
            bare: None,
        }
    }
    fn err_at(&self, pos: usize) -> ParseError {
        let at = self.toks.get(pos).map_or(0, |t| t.at);
        ParseError {
            msg: "syntax error".into(),
            at,
            eol: false,
            bare: None,
        }
    }
    fn expect(&mut self, t: &Tok) -> PResult<()> {
        if self.eat(t) { Ok(()) } else { Err(self.err()) }
    }
    fn opt_newlines(&mut self) {
        while self.eat(&Tok::Newline) {}
    }
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err());
        }
        Ok(())
    }

    /// The whole program.
    pub fn program(mut self) -> PResult<Program> {
        let mut rules = Vec::new();
        loop {
            while matches!(self.peek(), Tok::Newline | Tok::Semi) {
                self.pos += 1;
            }
            match self.peek() {
                Tok::Eof => break,
                Tok::Function => self.function()?,
                Tok::Begin | Tok::End => {
                    let begin = self.next() == Tok::Begin;
                    self.opt_newlines();
                    if self.peek() != &Tok::LBrace {
                        return Err(self.err());
                    }
                    self.rule = Some(if begin { "BEGIN" } else { "END" });
                    let action = self.block();
                    self.rule = None;
                    let action = action?;
                    rules.push(Rule {
                        pattern: if begin { Pattern::Begin } else { Pattern::End },
                        action: Some(action),
                    });
                }
                Tok::LBrace => {
                    let action = self.block()?;
                    rules.push(Rule {
                        pattern: Pattern::All,
                        action: Some(action),
                    });
                }
                _ => {
                    let e = self.expr()?;
                    let pattern = if self.eat(&Tok::Comma) {
                        self.opt_newlines();
                        let e2 = self.expr()?;
                        self.ranges += 1;
                        Pattern::Range(e, e2, self.ranges - 1)
                    } else {
                        Pattern::Expr(e)
                    };
                    let action = if self.peek() == &Tok::LBrace {
                        Some(self.block()?)
                    } else if matches!(self.peek(), Tok::Newline | Tok::Semi | Tok::Eof) {
                        None
                    } else {
                        return Err(self.err());
                    };
                    rules.push(Rule { pattern, action });
                }
            }
        }
        for f in &self.func_list {
            if !f.defined && self.globals.contains_key(&f.name) {
                return Err(Self::bare_err(format!(
                    "error: attempt to use non-function `{}' in function call",
                    f.name
                )));
            }
            if !f.defined {
                return Err(ParseError {
                    msg: String::new(),
                    at: 0,
                    eol: false,
                    bare: Some((format!("fatal: function `{}' not defined", f.name), 2)),
                });
            }
        }
        Ok(Program {
            rules,
            funcs: self.func_list,
            globals: self.global_names,
            regexes: self.regexes,
            ranges: self.ranges,
        })
    }

    fn func_index(&mut self, name: &str) -> usize {
        if let Some(&i) = self.funcs.get(name) {
            return i;
        }
        let i = self.func_list.len();
        self.funcs.insert(name.to_string(), i);
        self.func_list.push(Func {
            name: name.to_string(),
            nparams: 0,
            params: Vec::new(),
            array_params: Vec::new(),
            body: Vec::new(),
            defined: false,
        });
        i
    }

    fn function(&mut self) -> PResult<()> {
        self.pos += 1;
        let (Tok::Name(name) | Tok::FuncName(name)) = self.next() else {
            self.pos = self.pos.saturating_sub(1);
            return Err(self.err());
        };
        let idx = self.func_index(&name);
        if self.func_list.get(idx).is_some_and(|f| f.defined) {
            return Err(Self::bare_err(format!(
                "error: function name `{name}' previously defined"
            )));
        }
        self.expect(&Tok::LParen)?;
        let mut params = Vec::new();
        loop {
            self.opt_newlines();
            match self.next() {
                Tok::RParen => break,
                Tok::Name(p) => {
                    params.push(p);
                    self.opt_newlines();
                    if self.eat(&Tok::Comma) {
                        continue;
                    }
                    self.expect(&Tok::RParen)?;
                    break;
                }
                _ => {
                    self.pos = self.pos.saturating_sub(1);
                    return Err(self.err());
                }
            }
        }
        if params.contains(&name) {
            return Err(Self::bare_err(format!(
                "error: function `{name}': cannot use function name as parameter name"
            )));
        }
        let n = params.len();
        let names = params.clone();
        self.locals = Some((params, vec![false; n]));
        self.opt_newlines();
        if self.peek() != &Tok::LBrace {
            return Err(self.err());
        }
        let body = self.block()?;
        let arrays = self.locals.take().map(|(_, a)| a).unwrap_or_default();
        if let Some(f) = self.func_list.get_mut(idx) {
            f.nparams = n;
            f.params = names;
            f.array_params = arrays;
            f.body = body;
            f.defined = true;
        }
        Ok(())
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.enter()?;
        self.expect(&Tok::LBrace)?;
        let mut stmts = Vec::new();
        loop {
            while matches!(self.peek(), Tok::Newline | Tok::Semi) {
                self.pos += 1;
            }
            if self.eat(&Tok::RBrace) {
                break;
            }
            stmts.push(self.stmt()?);
        }
        self.depth -= 1;
        Ok(stmts)
    }

    /// The end of a simple statement: `;` or a newline (taken), `}` or the end (left).
    fn terminator(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Semi | Tok::Newline => {
                self.pos += 1;
                Ok(())
            }
            Tok::RBrace | Tok::Eof => Ok(()),
            _ => Err(self.err()),
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let s = self.stmt_inner();
        self.depth -= 1;
        s
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        match self.peek() {
            Tok::LBrace => Ok(Stmt::Block(self.block()?)),
            Tok::Semi => {
                self.pos += 1;
                Ok(Stmt::Block(Vec::new()))
            }
            Tok::If => {
                self.pos += 1;
                self.expect(&Tok::LParen)?;
                let c = self.expr()?;
                self.expect(&Tok::RParen)?;
                self.opt_newlines();
                let then = self.stmt()?;
                let save = self.pos;
                while matches!(self.peek(), Tok::Newline | Tok::Semi) {
                    self.pos += 1;
                }
                if self.eat(&Tok::Else) {
                    self.opt_newlines();
                    let e = self.stmt()?;
                    Ok(Stmt::If(c, Box::new(then), Some(Box::new(e))))
                } else {
                    self.pos = save;
                    Ok(Stmt::If(c, Box::new(then), None))
                }
            }
            Tok::While => {
                self.pos += 1;
                self.expect(&Tok::LParen)?;
                let c = self.expr()?;
                self.expect(&Tok::RParen)?;
                if self.eat(&Tok::Semi) {
                    return Ok(Stmt::While(c, Box::new(Stmt::Block(Vec::new()))));
                }
                self.opt_newlines();
                self.loops += 1;
                let body = self.stmt();
                self.loops -= 1;
                Ok(Stmt::While(c, Box::new(body?)))
            }
            Tok::Do => {
                self.pos += 1;
                self.opt_newlines();
                self.loops += 1;
                let body = self.stmt();
                self.loops -= 1;
                let body = body?;
                while matches!(self.peek(), Tok::Newline | Tok::Semi) {
                    self.pos += 1;
                }
                self.expect(&Tok::While)?;
                self.expect(&Tok::LParen)?;
                let c = self.expr()?;
                self.expect(&Tok::RParen)?;
                self.terminator()?;
                Ok(Stmt::Do(Box::new(body), c))
            }
            Tok::For => self.for_stmt(),
            _ => {
                let s = self.simple_stmt()?;
                self.terminator()?;
                Ok(s)
            }
        }
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        self.pos += 1;
        self.expect(&Tok::LParen)?;
        // `for (k in a)` and `for ((k) in a)`.
        let forin = matches!(
            (
                self.peek(),
                self.peek_at(1),
                self.peek_at(2),
                self.peek_at(3),
            ),
            (Tok::Name(_), Tok::In, Tok::Name(_), Tok::RParen)
                | (Tok::LParen, Tok::Name(_), Tok::RParen, Tok::In)
        );
        if forin {
            let paren = self.eat(&Tok::LParen);
            let Tok::Name(k) = self.next() else {
                return Err(self.err());
            };
            if paren {
                self.expect(&Tok::RParen)?;
            }
            self.expect(&Tok::In)?;
            let Tok::Name(a) = self.next() else {
                return Err(self.err());
            };
            self.expect(&Tok::RParen)?;
            self.opt_newlines();
            let kv = self.var(&k);
            let av = self.var(&a);
            self.mark_array(av);
            self.loops += 1;
            let body = self.stmt();
            self.loops -= 1;
            let body = body?;
            return Ok(Stmt::ForIn(Box::new(LValue::Var(kv)), av, Box::new(body)));
        }
        let init = if self.peek() == &Tok::Semi {
            None
        } else {
            self.no_in = false;
            Some(Box::new(self.simple_stmt()?))
        };
        self.expect(&Tok::Semi)?;
        self.opt_newlines();
        let cond = if self.peek() == &Tok::Semi {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(&Tok::Semi)?;
        self.opt_newlines();
        let step = if self.peek() == &Tok::RParen {
            None
        } else {
            Some(Box::new(self.simple_stmt()?))
        };
        self.expect(&Tok::RParen)?;
        if self.eat(&Tok::Semi) {
            return Ok(Stmt::For(
                init,
                cond,
                step,
                Box::new(Stmt::Block(Vec::new())),
            ));
        }
        self.opt_newlines();
        self.loops += 1;
        let body = self.stmt();
        self.loops -= 1;
        Ok(Stmt::For(init, cond, step, Box::new(body?)))
    }

    fn simple_stmt(&mut self) -> PResult<Stmt> {
        match self.peek() {
            Tok::Print | Tok::Printf => {
                let printf = self.next() == Tok::Printf;
                let mut args = Vec::new();
                if !matches!(
                    self.peek(),
                    Tok::Semi
                        | Tok::Newline
                        | Tok::RBrace
                        | Tok::Eof
                        | Tok::Gt
                        | Tok::Append
                        | Tok::Pipe
                ) {
                    let save = self.in_print;
                    self.in_print = true;
                    let r = self.expr_list();
                    self.in_print = save;
                    args = r?;
                    if args.len() == 1
                        && let Some(Expr::Group(_)) = args.first()
                        && let Some(Expr::Group(g)) = args.pop()
                    {
                        args = g;
                    }
                }
                let redirect = match self.peek() {
                    Tok::Gt => {
                        self.pos += 1;
                        Some(Redirect::File(self.redirect_target()?))
                    }
                    Tok::Append => {
                        self.pos += 1;
                        Some(Redirect::Append(self.redirect_target()?))
                    }
                    Tok::Pipe => {
                        self.pos += 1;
                        Some(Redirect::Pipe(self.redirect_target()?))
                    }
                    _ => None,
                };
                Ok(if printf {
                    Stmt::Printf(args, redirect)
                } else {
                    Stmt::Print(args, redirect)
                })
            }
            Tok::Next | Tok::Nextfile => {
                let next = self.next() == Tok::Next;
                if let Some(r) = self.rule
                    && self.locals.is_none()
                {
                    let w = if next { "next" } else { "nextfile" };
                    return Err(Self::bare_err(format!("error: `{w}' used in {r} action")));
                }
                Ok(if next { Stmt::Next } else { Stmt::Nextfile })
            }
            Tok::Break | Tok::Continue => {
                let brk = self.next() == Tok::Break;
                if self.loops == 0 {
                    return Err(Self::bare_err(if brk {
                        "error: `break' is not allowed outside a loop or switch".into()
                    } else {
                        "error: `continue' is not allowed outside a loop".into()
                    }));
                }
                Ok(if brk { Stmt::Break } else { Stmt::Continue })
            }
            Tok::Return if self.locals.is_none() => Err(ParseError {
                msg: "`return' used outside function context".into(),
                at: self.toks.get(self.pos).map_or(0, |t| t.at),
                eol: false,
                bare: None,
            }),
            Tok::Exit | Tok::Return => {
                let exit = self.next() == Tok::Exit;
                let e = if matches!(
                    self.peek(),
                    Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof
                ) {
                    None
                } else {
                    Some(self.expr()?)
                };
                Ok(if exit { Stmt::Exit(e) } else { Stmt::Return(e) })
            }
            Tok::Delete => {
                self.pos += 1;
                let Tok::Name(n) = self.next() else {
                    self.pos = self.pos.saturating_sub(1);
                    return Err(self.err());
                };
                let v = self.var(&n);
                self.mark_array(v);
                if self.eat(&Tok::LBracket) {
                    let subs = self.expr_list()?;
                    self.expect(&Tok::RBracket)?;
                    Ok(Stmt::Delete(v, Some(subs)))
                } else {
                    Ok(Stmt::Delete(v, None))
                }
            }
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    fn redirect_target(&mut self) -> PResult<Expr> {
        let save = self.in_print;
        self.in_print = true;
        let r = self.concat();
        self.in_print = save;
        r
    }

    fn expr_list(&mut self) -> PResult<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        while self.eat(&Tok::Comma) {
            self.opt_newlines();
            v.push(self.expr()?);
        }
        Ok(v)
    }

    pub fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.expr_inner();
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self) -> PResult<Expr> {
        let lhs = self.ternary()?;
        let op = match self.peek() {
            Tok::Assign => None,
            Tok::AddAssign => Some(BinOp::Add),
            Tok::SubAssign => Some(BinOp::Sub),
            Tok::MulAssign => Some(BinOp::Mul),
            Tok::DivAssign => Some(BinOp::Div),
            Tok::ModAssign => Some(BinOp::Mod),
            Tok::PowAssign => Some(BinOp::Pow),
            _ => return Ok(lhs),
        };
        if !is_lvalue(&lhs) {
            return Err(self.err());
        }
        self.pos += 1;
        self.opt_newlines();
        let rhs = self.expr()?;
        let lv = to_lvalue(lhs).ok_or_else(|| self.err())?;
        Ok(Expr::Assign(op, Box::new(lv), Box::new(rhs)))
    }

    fn ternary(&mut self) -> PResult<Expr> {
        let c = self.or()?;
        if self.eat(&Tok::Question) {
            self.opt_newlines();
            let a = self.expr()?;
            self.opt_newlines();
            self.expect(&Tok::Colon)?;
            self.opt_newlines();
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn or(&mut self) -> PResult<Expr> {
        let mut l = self.and()?;
        while self.eat(&Tok::Or) {
            self.opt_newlines();
            let r = self.and()?;
            l = Expr::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> PResult<Expr> {
        let mut l = self.in_expr()?;
        while self.eat(&Tok::And) {
            self.opt_newlines();
            let r = self.in_expr()?;
            l = Expr::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn in_expr(&mut self) -> PResult<Expr> {
        let mut l = self.match_expr()?;
        while !self.no_in && self.peek() == &Tok::In {
            self.pos += 1;
            let Tok::Name(a) = self.next() else {
                self.pos = self.pos.saturating_sub(1);
                return Err(self.err());
            };
            let av = self.var(&a);
            self.mark_array(av);
            l = Expr::In(vec![l], av);
        }
        Ok(l)
    }

    fn match_expr(&mut self) -> PResult<Expr> {
        let mut l = self.cmp()?;
        loop {
            let neg = match self.peek() {
                Tok::Tilde => false,
                Tok::NoMatch => true,
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.cmp()?;
            l = Expr::Match(neg, Box::new(l), Box::new(r));
        }
    }

    fn cmp(&mut self) -> PResult<Expr> {
        let l = self.pipe_getline()?;
        let op = match self.peek() {
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt if !self.in_print => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            _ => return Ok(l),
        };
        self.pos += 1;
        let r = self.pipe_getline()?;
        Ok(Expr::Cmp(op, Box::new(l), Box::new(r)))
    }

    fn pipe_getline(&mut self) -> PResult<Expr> {
        let mut l = self.concat()?;
        while matches!(self.peek(), Tok::Pipe | Tok::PipeAmp) && self.peek_at(1) == &Tok::Getline {
            self.pos += 2;
            let var = self.opt_getline_var()?;
            l = Expr::Getline(GetSrc::Cmd(Box::new(l)), var);
        }
        Ok(l)
    }

    fn starts_operand(t: &Tok) -> bool {
        matches!(
            t,
            Tok::Number(_)
                | Tok::Str(_)
                | Tok::Regex(_)
                | Tok::Name(_)
                | Tok::FuncName(_)
                | Tok::Builtin(_)
                | Tok::Dollar
                | Tok::Not
                | Tok::LParen
                | Tok::Incr
                | Tok::Decr
        )
    }

    fn concat(&mut self) -> PResult<Expr> {
        let mut l = self.additive()?;
        while Self::starts_operand(self.peek()) && !(self.no_in && self.peek() == &Tok::In) {
            self.enter()?;
            let r = self.additive();
            self.depth -= 1;
            l = Expr::Concat(Box::new(l), Box::new(r?));
        }
        Ok(l)
    }

    fn additive(&mut self) -> PResult<Expr> {
        let mut l = self.mul()?;
        loop {
            let op = match self.peek() {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.mul()?;
            l = fold(op, l, r).map_err(Self::bare_err)?;
        }
    }

    fn bare_err(m: String) -> ParseError {
        ParseError {
            msg: String::new(),
            at: 0,
            eol: false,
            bare: Some((m, 1)),
        }
    }

    fn mul(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                Tok::Percent => BinOp::Mod,
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.unary()?;
            l = fold(op, l, r).map_err(Self::bare_err)?;
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = match self.peek() {
            Tok::Not => {
                self.pos += 1;
                self.unary().map(|e| Expr::Not(Box::new(e)))
            }
            Tok::Minus => {
                self.pos += 1;
                self.unary().map(|e| match e {
                    Expr::Num(n) => Expr::Num(-n),
                    e => Expr::Neg(Box::new(e)),
                })
            }
            Tok::Plus => {
                self.pos += 1;
                self.unary().map(|e| Expr::UPlus(Box::new(e)))
            }
            _ => self.pow(),
        };
        self.depth -= 1;
        r
    }

    fn pow(&mut self) -> PResult<Expr> {
        let b = self.postfix()?;
        if self.eat(&Tok::Caret) {
            // Right-associative; the exponent may carry a sign.
            self.enter()?;
            let e = match self.peek() {
                Tok::Minus | Tok::Plus | Tok::Not => self.unary(),
                _ => self.pow(),
            };
            self.depth -= 1;
            return Ok(Expr::Binary(BinOp::Pow, Box::new(b), Box::new(e?)));
        }
        Ok(b)
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let e = self.primary()?;
        if is_lvalue(&e) {
            let d = match self.peek() {
                Tok::Incr => 1.0,
                Tok::Decr => -1.0,
                _ => return Ok(e),
            };
            self.pos += 1;
            let lv = to_lvalue(e).ok_or_else(|| self.err())?;
            return Ok(Expr::Incr(false, d, Box::new(lv)));
        }
        Ok(e)
    }

    fn opt_getline_var(&mut self) -> PResult<Option<Box<LValue>>> {
        if matches!(self.peek(), Tok::Dollar | Tok::Name(_)) {
            let e = self.primary()?;
            return Ok(to_lvalue(e).map(Box::new));
        }
        Ok(None)
    }

    fn primary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> PResult<Expr> {
        match self.next() {
            Tok::Number(n) => Ok(Expr::Num(n)),
            Tok::Str(s) => Ok(Expr::Str(Rc::from(s))),
            Tok::Regex(r) => {
                self.regexes.push(r);
                Ok(Expr::Regex(self.regexes.len() - 1))
            }
            Tok::Dollar => {
                let e = match self.peek() {
                    Tok::Incr | Tok::Decr => {
                        let d = if self.next() == Tok::Incr { 1.0 } else { -1.0 };
                        let at = self.pos;
                        let p = self.primary()?;
                        let lv = to_lvalue(p).ok_or_else(|| self.err_at(at))?;
                        Expr::Incr(true, d, Box::new(lv))
                    }
                    Tok::Minus => {
                        self.pos += 1;
                        Expr::Neg(Box::new(self.primary()?))
                    }
                    _ => self.primary()?,
                };
                Ok(Expr::Field(Box::new(e)))
            }
            Tok::Incr | Tok::Decr => {
                let d = if self.toks.get(self.pos - 1).map(|t| &t.tok) == Some(&Tok::Incr) {
                    1.0
                } else {
                    -1.0
                };
                let at = self.pos;
                let p = self.primary()?;
                let lv = to_lvalue(p).ok_or_else(|| self.err_at(at))?;
                Ok(Expr::Incr(true, d, Box::new(lv)))
            }
            Tok::Not => Ok(Expr::Not(Box::new(self.unary()?))),
            Tok::Minus => Ok(Expr::Neg(Box::new(self.unary()?))),
            Tok::Plus => Ok(Expr::UPlus(Box::new(self.unary()?))),
            Tok::LParen => {
                let (sp, sn) = (self.in_print, self.no_in);
                self.in_print = false;
                self.no_in = false;
                let r = self.expr_list();
                self.in_print = sp;
                self.no_in = sn;
                let mut list = r?;
                self.opt_newlines();
                self.expect(&Tok::RParen)?;
                if list.len() > 1 {
                    if self.peek() == &Tok::In {
                        self.pos += 1;
                        let Tok::Name(a) = self.next() else {
                            self.pos = self.pos.saturating_sub(1);
                            return Err(self.err());
                        };
                        let av = self.var(&a);
                        self.mark_array(av);
                        return Ok(Expr::In(list, av));
                    }
                    return Ok(Expr::Group(list));
                }
                let e = list.pop().ok_or_else(|| self.err())?;
                Ok(Expr::Paren(Box::new(e)))
            }
            Tok::Name(n) => {
                let v = self.var(&n);
                if self.eat(&Tok::LBracket) {
                    self.mark_array(v);
                    let (sp, sn) = (self.in_print, self.no_in);
                    self.in_print = false;
                    self.no_in = false;
                    let r = self.expr_list();
                    self.in_print = sp;
                    self.no_in = sn;
                    let subs = r?;
                    self.expect(&Tok::RBracket)?;
                    return Ok(Expr::Index(v, subs));
                }
                Ok(Expr::Var(v))
            }
            Tok::FuncName(n) => {
                let f = self.func_index(&n);
                self.expect(&Tok::LParen)?;
                let args = self.call_args()?;
                Ok(Expr::Call(f, args))
            }
            Tok::Builtin(n) => self.builtin(&n),
            Tok::Getline => {
                let var = self.opt_getline_var()?;
                if self.eat(&Tok::Lt) {
                    let f = self.postfix_noconcat()?;
                    return Ok(Expr::Getline(GetSrc::File(Box::new(f)), var));
                }
                Ok(Expr::Getline(GetSrc::Main, var))
            }
            _ => {
                self.pos = self.pos.saturating_sub(1);
                Err(self.err())
            }
        }
    }

    /// `getline < FILE`'s operand: a primary (with `$` and increments), no concatenation.
    fn postfix_noconcat(&mut self) -> PResult<Expr> {
        self.postfix()
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.opt_newlines();
        if self.eat(&Tok::RParen) {
            return Ok(Vec::new());
        }
        let (sp, sn) = (self.in_print, self.no_in);
        self.in_print = false;
        self.no_in = false;
        let r = self.expr_list();
        self.in_print = sp;
        self.no_in = sn;
        let args = r?;
        self.opt_newlines();
        self.expect(&Tok::RParen)?;
        Ok(args)
    }

    fn builtin(&mut self, name: &str) -> PResult<Expr> {
        let bi = Bi::from_name(name).ok_or_else(|| self.err())?;
        let at = self
            .toks
            .get(self.pos.saturating_sub(1))
            .map_or(0, |t| t.at);
        let args = if self.peek() == &Tok::LParen {
            self.pos += 1;
            self.call_args()?
        } else if bi == Bi::Length {
            Vec::new()
        } else {
            return Err(self.err());
        };
        let (lo, hi) = bi.arity();
        if args.len() < lo || args.len() > hi {
            let end = self
                .toks
                .get(self.pos.saturating_sub(1))
                .map_or(at, |t| t.at);
            return Err(ParseError {
                msg: format!(
                    "{} is invalid as number of arguments for {name}",
                    args.len()
                ),
                at: end,
                eol: false,
                bare: None,
            });
        }
        // Arrays by position: split's 2nd and 4th, match's 3rd.
        for (i, a) in args.iter().enumerate() {
            let is_arr = matches!(
                (bi, i),
                (Bi::Split, 1 | 3) | (Bi::Match, 2) | (Bi::Length, 0)
            );
            if is_arr
                && bi != Bi::Length
                && let Expr::Var(v) = a
            {
                self.mark_array(*v);
            }
        }
        Ok(Expr::Builtin(bi, args))
    }
}

/// Folds constant arithmetic as gawk does at parse time (its division by a zero constant is
/// a parse-time error).
fn fold(op: BinOp, l: Expr, r: Expr) -> Result<Expr, String> {
    if let (Expr::Num(_), Expr::Num(b)) = (&l, &r) {
        match op {
            BinOp::Div | BinOp::Mod if *b == 0.0 => {
                return Err(if op == BinOp::Div {
                    "error: division by zero attempted".into()
                } else {
                    "error: division by zero attempted in `%'".into()
                });
            }
            _ => {}
        }
    }
    Ok(Expr::Binary(op, Box::new(l), Box::new(r)))
}
