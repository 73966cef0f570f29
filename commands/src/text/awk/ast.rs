//! The parsed program: rules, functions, statements and expressions, with variables already
//! resolved to slots (globals by index, a function's parameters by position).

use std::rc::Rc;

/// A variable's slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    Global(usize),
    Local(usize),
}

/// The built-in functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bi {
    Atan2,
    Close,
    Cos,
    Exp,
    Fflush,
    Gensub,
    Index,
    Int,
    Length,
    Log,
    Match,
    Rand,
    Sin,
    Split,
    Sprintf,
    Sqrt,
    Srand,
    Strftime,
    Sub,
    Gsub,
    Substr,
    System,
    Systime,
    Tolower,
    Toupper,
}

impl Bi {
    pub fn from_name(n: &str) -> Option<Bi> {
        Some(match n {
            "atan2" => Bi::Atan2,
            "close" => Bi::Close,
            "cos" => Bi::Cos,
            "exp" => Bi::Exp,
            "fflush" => Bi::Fflush,
            "gensub" => Bi::Gensub,
            "index" => Bi::Index,
            "int" => Bi::Int,
            "length" => Bi::Length,
            "log" => Bi::Log,
            "match" => Bi::Match,
            "rand" => Bi::Rand,
            "sin" => Bi::Sin,
            "split" => Bi::Split,
            "sprintf" => Bi::Sprintf,
            "sqrt" => Bi::Sqrt,
            "srand" => Bi::Srand,
            "strftime" => Bi::Strftime,
            "sub" => Bi::Sub,
            "gsub" => Bi::Gsub,
            "substr" => Bi::Substr,
            "system" => Bi::System,
            "systime" => Bi::Systime,
            "tolower" => Bi::Tolower,
            "toupper" => Bi::Toupper,
            _ => return None,
        })
    }
    /// The smallest and largest argument counts gawk accepts.
    pub fn arity(self) -> (usize, usize) {
        match self {
            Bi::Rand | Bi::Systime => (0, 0),
            Bi::Srand | Bi::Fflush | Bi::Length => (0, 1),
            Bi::Close => (1, 2),
            Bi::Cos
            | Bi::Exp
            | Bi::Int
            | Bi::Log
            | Bi::Sin
            | Bi::Sqrt
            | Bi::System
            | Bi::Tolower
            | Bi::Toupper => (1, 1),
            Bi::Atan2 | Bi::Index => (2, 2),
            Bi::Gensub => (3, 4),
            Bi::Match | Bi::Sub | Bi::Gsub | Bi::Substr => (2, 3),
            Bi::Split => (2, 4),
            Bi::Sprintf => (1, usize::MAX),
            Bi::Strftime => (0, 3),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Where a `getline` reads.
#[derive(Debug, Clone)]
pub enum GetSrc {
    Main,
    File(Box<Expr>),
    Cmd(Box<Expr>),
}

#[derive(Debug, Clone)]
pub enum LValue {
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
}

#[derive(Debug, Clone)]
pub enum Expr {
    Num(f64),
    Str(Rc<[u8]>),
    /// A regex literal (an index into the program's regexes): `$0 ~ /re/` as a value.
    Regex(usize),
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
    In(Vec<Expr>, Var),
    Assign(Option<BinOp>, Box<LValue>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    UPlus(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// `a ~ b` (`true`: `!~`).
    Match(bool, Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    /// `++x` / `x--`...: (prefix, delta).
    Incr(bool, f64, Box<LValue>),
    Call(usize, Vec<Expr>),
    Builtin(Bi, Vec<Expr>),
    Getline(GetSrc, Option<Box<LValue>>),
    /// `(a, b)`: only as `print`'s operands.
    Group(Vec<Expr>),
    /// A parenthesized expression (kept so that `print (a) > "f"` and `(x) in` parse).
    Paren(Box<Expr>),
}

/// Where `print` writes.
#[derive(Debug, Clone)]
pub enum Redirect {
    File(Expr),
    Append(Expr),
    Pipe(Expr),
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Expr(Expr),
    Print(Vec<Expr>, Option<Redirect>),
    Printf(Vec<Expr>, Option<Redirect>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Box<Stmt>>,
        Box<Stmt>,
    ),
    ForIn(Box<LValue>, Var, Box<Stmt>),
    Block(Vec<Stmt>),
    Next,
    Nextfile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    Delete(Var, Option<Vec<Expr>>),
}

#[derive(Debug, Clone)]
pub enum Pattern {
    Begin,
    End,
    All,
    Expr(Expr),
    /// `p1, p2`, with its index in the range states.
    Range(Expr, Expr, usize),
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub pattern: Pattern,
    /// `None`: `{ print }`.
    pub action: Option<Vec<Stmt>>,
}

#[derive(Debug, Clone)]
pub struct Func {
    pub name: String,
    pub nparams: usize,
    pub params: Vec<String>,
    /// Which parameters the body uses as arrays.
    pub array_params: Vec<bool>,
    pub body: Vec<Stmt>,
    pub defined: bool,
}

#[derive(Debug, Clone)]
pub struct Program {
    pub rules: Vec<Rule>,
    pub funcs: Vec<Func>,
    pub globals: Vec<String>,
    pub regexes: Vec<Vec<u8>>,
    pub ranges: usize,
}
