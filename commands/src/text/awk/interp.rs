//! Running a parsed program: the record loop, fields, variables and arrays, statements and
//! expressions, built-ins, `getline`, output redirections and commands.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;
use std::io::Cursor;
use std::rc::Rc;

use crate::support::datetime::{broken_down, session_zone, strftime, to_epoch};
use crate::support::regex_gnu::Regex;
use crate::text::lines::EXHAUSTED;
use crate::{Ctx, Effect, Op, Outcome, RunRequest, RunWhat};

use super::ast::{Bi, BinOp, CmpOp, Expr, GetSrc, LValue, Pattern, Program, Redirect, Stmt, Var};
use super::builtins::{self, FmtError, text_of};
use super::io::{RecReader, RsMode};
use super::regex::compile;
use super::value::{Value, looks_numeric, num_to_str};

pub const NF: usize = 0;
pub const NR: usize = 1;
pub const FNR: usize = 2;
pub const FS: usize = 3;
pub const OFS: usize = 4;
pub const ORS: usize = 5;
pub const RS: usize = 6;
pub const FILENAME: usize = 7;
pub const SUBSEP: usize = 8;
pub const CONVFMT: usize = 9;
pub const OFMT: usize = 10;
pub const RSTART: usize = 11;
pub const RLENGTH: usize = 12;
pub const RT: usize = 13;
pub const ENVIRON: usize = 14;
pub const ARGV: usize = 15;
pub const ARGC: usize = 16;
pub const IGNORECASE: usize = 17;

const MAX_CALL_DEPTH: usize = 1000;
const MAX_ELEMENTS: usize = 20_000_000;

type Map = HashMap<Rc<[u8]>, Value, BuildHasherDefault<DefaultHasher>>;

/// Why the program stops early.
pub enum Abort {
    /// `exit`: END rules still run (unless already in them).
    Exit,
    /// A fatal error: `awk: cmd. line:1: fatal: MSG`, status 2.
    Fatal(String),
    /// A fatal error reported without the record's location (`cannot open file`).
    FatalOpen(String),
    /// `next`/`nextfile` inside a function.
    Next(bool),
    /// Nobody reads the output any more, or the line's deadline passed.
    Stop,
}

type R<T> = Result<T, Abort>;

enum Flow {
    Normal,
    Break,
    Continue,
    Next,
    NextFile,
    Return(Value),
}

#[derive(Clone)]
enum Cell {
    Val(Value),
    Arr(usize),
}

#[derive(Clone)]
enum FsMode {
    Space,
    Byte(u8),
    Chars,
    Regex(Rc<Regex>),
}

struct Record {
    text: Vec<u8>,
    split: bool,
    spans: Vec<(usize, usize)>,
    /// Materialized fields once one was assigned.
    fields: Option<Vec<Value>>,
    stale: bool,
}

enum OutKind {
    File { append: bool },
    Pipe,
}

struct Output {
    name: Vec<u8>,
    kind: OutKind,
    data: Vec<u8>,
}

struct Frame {
    locals: Vec<Cell>,
    owned: Vec<usize>,
}

pub struct Interp<'a> {
    ctx: &'a Ctx<'a>,
    pub o: Outcome,
    prog: &'a Program,
    globals: Vec<Cell>,
    frames: Vec<Frame>,
    arrays: Vec<Option<Map>>,
    free_arrays: Vec<usize>,
    regexes: Vec<Rc<Regex>>,
    /// The literals compiled without case (`IGNORECASE`), made when first needed.
    regexes_icase: Vec<Option<Rc<Regex>>>,
    icase: bool,
    dyn_cache: HashMap<Vec<u8>, Rc<Regex>>,
    rec: Record,
    fs_mode: FsMode,
    rs_mode: RsMode,
    para: bool,
    convfmt: Vec<u8>,
    ofmt: Vec<u8>,
    ofs: Vec<u8>,
    ors: Vec<u8>,
    subsep: Vec<u8>,
    range_on: Vec<bool>,
    argi: usize,
    main: Option<RecReader<'a>>,
    main_done: bool,
    files_in: HashMap<Vec<u8>, RecReader<'a>>,
    cmds_in: HashMap<Vec<u8>, (RecReader<'a>, i32)>,
    outputs: Vec<Output>,
    pub exit_code: i32,
    pub status: i32,
    depth: usize,
    ticks: u32,
    bytes: usize,
    /// The most bytes of strings the program may hold in arrays and output buffers, and the
    /// longest string or record: the session's hold cap (4 MiB in unit tests). Past it:
    /// `fatal: memory exhausted`.
    hold: usize,
    seed: f64,
    rand_state: u64,
    in_end: bool,
    scratch: Vec<u8>,
    rt: Vec<u8>,
    name_of: HashMap<String, usize>,
    nr: f64,
    fnr: f64,
    used_file: bool,
    executed: bool,
    pending: Vec<u8>,
    warned_args: Vec<usize>,
}

/// More to hold than the hold cap (a string, a record, the arrays' strings): one fatal
/// error, `memory exhausted`.
fn exhausted<T>() -> R<T> {
    fatal(EXHAUSTED)
}

fn fatal<T>(msg: impl Into<String>) -> R<T> {
    Err(Abort::Fatal(msg.into()))
}

impl<'a> Interp<'a> {
    pub fn new(ctx: &'a Ctx<'a>, prog: &'a Program) -> Result<Self, String> {
        let mut regexes = Vec::new();
        for r in &prog.regexes {
            regexes.push(Rc::new(compile(r, false).map_err(|e| {
                format!("fatal: {e}: /{}/", String::from_utf8_lossy(r))
            })?));
        }
        let globals = vec![Cell::Val(Value::Uninit); prog.globals.len()];
        let name_of = prog
            .globals
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let mut it = Interp {
            ctx,
            o: Outcome::ok(),
            prog,
            globals,
            frames: Vec::new(),
            arrays: Vec::new(),
            free_arrays: Vec::new(),
            regexes_icase: vec![None; prog.regexes.len()],
            icase: false,
            regexes,
            dyn_cache: HashMap::new(),
            rec: Record {
                text: Vec::new(),
                split: true,
                spans: Vec::new(),
                fields: None,
                stale: false,
            },
            fs_mode: FsMode::Space,
            rs_mode: RsMode::Byte(b'\n'),
            para: false,
            convfmt: b"%.6g".to_vec(),
            ofmt: b"%.6g".to_vec(),
            ofs: b" ".to_vec(),
            ors: b"\n".to_vec(),
            subsep: vec![0x1c],
            range_on: vec![false; prog.ranges],
            argi: 1,
            main: None,
            main_done: false,
            files_in: HashMap::new(),
            cmds_in: HashMap::new(),
            outputs: Vec::new(),
            exit_code: 0,
            status: 0,
            depth: 0,
            ticks: 0,
            bytes: 0,
            hold: {
                let hold = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
                if cfg!(test) { hold.min(4 << 20) } else { hold }
            },
            seed: 0.0,
            rand_state: 0,
            in_end: false,
            scratch: Vec::new(),
            rt: Vec::new(),
            name_of,
            nr: 0.0,
            fnr: 0.0,
            used_file: false,
            executed: false,
            pending: Vec::new(),
            warned_args: Vec::new(),
        };
        it.srand_state(0.0);
        let set = |it: &mut Interp, i: usize, s: &[u8]| {
            if let Some(c) = it.globals.get_mut(i) {
                *c = Cell::Val(Value::str(s));
            }
        };
        set(&mut it, FS, b" ");
        set(&mut it, OFS, b" ");
        set(&mut it, ORS, b"\n");
        set(&mut it, RS, b"\n");
        set(&mut it, SUBSEP, b"\x1c");
        set(&mut it, CONVFMT, b"%.6g");
        set(&mut it, OFMT, b"%.6g");
        set(&mut it, FILENAME, b"");
        for i in [NF, NR, FNR, RSTART, IGNORECASE] {
            if let Some(c) = it.globals.get_mut(i) {
                *c = Cell::Val(Value::Num(0.0));
            }
        }
        if let Some(c) = it.globals.get_mut(RLENGTH) {
            *c = Cell::Val(Value::Num(-1.0));
        }
        let env = it.new_array();
        for (name, var) in ctx.vars.iter() {
            if var.exported
                && let Some(v) = var.scalar()
            {
                it.arr_mut(env)
                    .insert(Rc::from(name.as_bytes()), Value::strnum(v.as_bytes()));
            }
        }
        if let Some(c) = it.globals.get_mut(ENVIRON) {
            *c = Cell::Arr(env);
        }
        let argv = it.new_array();
        if let Some(c) = it.globals.get_mut(ARGV) {
            *c = Cell::Arr(argv);
        }
        Ok(it)
    }

    /// Sets ARGV and ARGC.
    pub fn set_argv(&mut self, args: &[Vec<u8>]) {
        let Some(Cell::Arr(id)) = self.globals.get(ARGV).cloned() else {
            return;
        };
        let m = self.arr_mut(id);
        m.insert(Rc::from(&b"0"[..]), Value::str(b"awk"));
        for (i, a) in args.iter().enumerate() {
            m.insert(Rc::from((i + 1).to_string().as_bytes()), Value::strnum(a));
        }
        self.set_global(ARGC, Value::Num((args.len() + 1) as f64));
    }

    /// A `-v`/operand assignment `name=value` (escapes already processed).
    pub fn assign_var(&mut self, name: &str, val: &[u8]) -> R<()> {
        if let Some(&i) = self.name_of.get(name) {
            if matches!(self.globals.get(i), Some(Cell::Arr(_))) {
                return fatal(format!("cannot use array `{name}' in a scalar context"));
            }
            self.set_global(i, Value::strnum(val));
        }
        Ok(())
    }

    fn new_array(&mut self) -> usize {
        if let Some(i) = self.free_arrays.pop() {
            if let Some(slot) = self.arrays.get_mut(i) {
                *slot = Some(Map::default());
            }
            return i;
        }
        self.arrays.push(Some(Map::default()));
        self.arrays.len() - 1
    }

    fn arr_mut(&mut self, id: usize) -> &mut Map {
        if self.arrays.get(id).is_none_or(Option::is_none) {
            while self.arrays.len() <= id {
                self.arrays.push(None);
            }
        }
        let slot = self
            .arrays
            .get_mut(id)
            .map(|s| s.get_or_insert_with(Map::default));
        match slot {
            Some(m) => m,
            None => unreachable_map(),
        }
    }

    fn arr(&self, id: usize) -> Option<&Map> {
        self.arrays.get(id).and_then(Option::as_ref)
    }

    // ----- variables -----

    fn cell(&self, v: Var) -> Option<&Cell> {
        match v {
            Var::Global(i) => self.globals.get(i),
            Var::Local(i) => self.frames.last().and_then(|f| f.locals.get(i)),
        }
    }

    fn cell_mut(&mut self, v: Var) -> Option<&mut Cell> {
        match v {
            Var::Global(i) => self.globals.get_mut(i),
            Var::Local(i) => self.frames.last_mut().and_then(|f| f.locals.get_mut(i)),
        }
    }

    fn var_name(&self, v: Var) -> String {
        match v {
            Var::Global(i) => self.prog.globals.get(i).cloned().unwrap_or_default(),
            Var::Local(_) => "parameter".into(),
        }
    }

    fn get_var(&mut self, v: Var) -> R<Value> {
        if v == Var::Global(NF) {
            self.ensure_split();
        }
        match self.cell(v) {
            Some(Cell::Val(x)) => Ok(x.clone()),
            Some(Cell::Arr(_)) => fatal(format!(
                "attempt to use array `{}' in a scalar context",
                self.var_name(v)
            )),
            None => Ok(Value::Uninit),
        }
    }

    fn set_global(&mut self, i: usize, val: Value) {
        if let Some(c) = self.globals.get_mut(i) {
            *c = Cell::Val(val);
        }
        if i <= IGNORECASE {
            self.special_set(i);
        }
    }

    fn set_var(&mut self, v: Var, val: Value) -> R<()> {
        if v == Var::Global(NF) && val.to_num() < 0.0 {
            return fatal("NF set to negative value");
        }
        match v {
            Var::Global(i) => {
                if matches!(self.globals.get(i), Some(Cell::Arr(_))) {
                    return fatal(format!(
                        "attempt to use array `{}' in a scalar context",
                        self.var_name(v)
                    ));
                }
                self.set_global(i, val);
            }
            Var::Local(_) => {
                if let Some(c) = self.cell_mut(v) {
                    if matches!(c, Cell::Arr(_)) {
                        return fatal("attempt to use array in a scalar context");
                    }
                    *c = Cell::Val(val);
                }
            }
        }
        Ok(())
    }

    fn special_text(&self, i: usize) -> Vec<u8> {
        match self.globals.get(i) {
            Some(Cell::Val(v)) => text_of(v, &self.convfmt),
            _ => Vec::new(),
        }
    }

    fn special_set(&mut self, i: usize) {
        match i {
            NF => {
                let n = match self.globals.get(NF) {
                    Some(Cell::Val(v)) => v.to_num(),
                    _ => 0.0,
                };
                self.set_nf(n);
            }
            NR => {
                self.nr = self.global_num(NR);
            }
            FNR => {
                self.fnr = self.global_num(FNR);
            }
            FS => {
                let fs = self.special_text(FS);
                self.fs_mode = self.fs_mode_of(&fs);
            }
            OFS => self.ofs = self.special_text(OFS),
            IGNORECASE => {
                let on = match self.globals.get(IGNORECASE) {
                    Some(Cell::Val(v)) => v.truthy(),
                    _ => false,
                };
                if on != self.icase {
                    self.icase = on;
                    self.dyn_cache.clear();
                }
            }
            ORS => self.ors = self.special_text(ORS),
            SUBSEP => self.subsep = self.special_text(SUBSEP),
            CONVFMT => self.convfmt = self.special_text(CONVFMT),
            OFMT => self.ofmt = self.special_text(OFMT),
            RS => {
                let rs = self.special_text(RS);
                self.para = rs.is_empty();
                self.rs_mode = match rs.len() {
                    0 => RsMode::Para,
                    1 => RsMode::Byte(rs.first().copied().unwrap_or(b'\n')),
                    _ => match compile(&rs, false) {
                        Ok(r) => RsMode::Regex(Rc::new(r)),
                        Err(_) => RsMode::Byte(rs.first().copied().unwrap_or(b'\n')),
                    },
                };
                let fs = self.special_text(FS);
                self.fs_mode = self.fs_mode_of(&fs);
            }
            _ => {}
        }
    }

    fn global_num(&self, i: usize) -> f64 {
        match self.globals.get(i) {
            Some(Cell::Val(v)) => v.to_num(),
            _ => 0.0,
        }
    }

    fn fs_mode_of(&self, fs: &[u8]) -> FsMode {
        match fs {
            b" " => FsMode::Space,
            [] => FsMode::Chars,
            [b'\\'] => FsMode::Byte(b'\\'),
            [c] if *c != b' ' && !self.para => FsMode::Byte(*c),
            _ => {
                let mut pat = fs.to_vec();
                if fs.len() == 1 {
                    pat = super::regex::to_gnu(fs);
                    if pat.len() == 1
                        && b".[]()*+?{}|^$".contains(&fs.first().copied().unwrap_or(0))
                    {
                        pat.insert(0, b'\\');
                    }
                    pat = wrap_newline(&pat, self.para);
                    return match super::regex::compile_gnu(&pat) {
                        Ok(r) => FsMode::Regex(Rc::new(r)),
                        Err(_) => FsMode::Space,
                    };
                }
                if self.para {
                    pat = wrap_newline(&super::regex::to_gnu(&pat), true);
                    return match super::regex::compile_gnu(&pat) {
                        Ok(r) => FsMode::Regex(Rc::new(r)),
                        Err(_) => FsMode::Space,
                    };
                }
                match compile(&pat, false) {
                    Ok(r) => FsMode::Regex(Rc::new(r)),
                    Err(_) => FsMode::Space,
                }
            }
        }
    }

    // ----- records and fields -----

    pub fn set_record(&mut self, text: &[u8]) {
        self.rec.text.clear();
        self.rec.text.extend_from_slice(text);
        self.rec.split = false;
        self.rec.fields = None;
        self.rec.stale = false;
    }

    fn ensure_split(&mut self) {
        if self.rec.split {
            return;
        }
        self.rec.split = true;
        let mut spans = std::mem::take(&mut self.rec.spans);
        spans.clear();
        split_into(&self.fs_mode, &self.rec.text, &mut spans, None);
        self.rec.spans = spans;
        let n = self.rec.spans.len() as f64;
        if let Some(c) = self.globals.get_mut(NF) {
            *c = Cell::Val(Value::Num(n));
        }
    }

    fn materialize(&mut self) -> &mut Vec<Value> {
        self.ensure_split();
        if self.rec.fields.is_none() {
            let f: Vec<Value> = self
                .rec
                .spans
                .iter()
                .map(|&(s, e)| Value::strnum(self.rec.text.get(s..e).unwrap_or_default()))
                .collect();
            self.rec.fields = Some(f);
        }
        self.rec.fields.get_or_insert_with(Vec::new)
    }

    fn rebuild(&mut self) {
        if !self.rec.stale {
            return;
        }
        self.rec.stale = false;
        let mut text = Vec::new();
        let ofs = self.ofs.clone();
        let convfmt = self.convfmt.clone();
        if let Some(f) = &self.rec.fields {
            for (i, v) in f.iter().enumerate() {
                if i > 0 {
                    text.extend_from_slice(&ofs);
                }
                match v {
                    Value::Num(n) => num_to_str(*n, &convfmt, &mut text),
                    _ => text.extend_from_slice(&text_of(v, &convfmt)),
                }
            }
        }
        self.rec.text = text;
    }

    fn set_nf(&mut self, n: f64) {
        let n = if n.is_nan() || n < 0.0 {
            0
        } else {
            n.min(1e7) as usize
        };
        let f = self.materialize();
        f.resize(n, Value::Uninit);
        self.rec.stale = true;
        if let Some(c) = self.globals.get_mut(NF) {
            *c = Cell::Val(Value::Num(n as f64));
        }
    }

    fn field_index(&mut self, e: &Expr) -> R<usize> {
        let n = self.eval_num(e)?;
        if n < 0.0 {
            return fatal(format!("attempt to access field {}", n as i64));
        }
        if n > 1e7 {
            return fatal("field index too large");
        }
        Ok(n as usize)
    }

    fn get_field(&mut self, i: usize) -> Value {
        if i == 0 {
            self.rebuild();
            return Value::strnum(&self.rec.text);
        }
        self.ensure_split();
        match &self.rec.fields {
            Some(f) => f.get(i - 1).cloned().unwrap_or(Value::Uninit),
            None => self.rec.spans.get(i - 1).map_or(Value::Uninit, |&(s, e)| {
                Value::strnum(self.rec.text.get(s..e).unwrap_or_default())
            }),
        }
    }

    fn set_field(&mut self, i: usize, v: Value) {
        if i == 0 {
            let t = text_of(&v, &self.convfmt);
            self.set_record(&t);
            return;
        }
        let f = self.materialize();
        if f.len() < i {
            f.resize(i, Value::Uninit);
        }
        if let Some(slot) = f.get_mut(i - 1) {
            *slot = v;
        }
        let n = f.len() as f64;
        self.rec.stale = true;
        if let Some(c) = self.globals.get_mut(NF) {
            *c = Cell::Val(Value::Num(n));
        }
    }

    // ----- polling -----

    fn tick(&mut self) -> R<()> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(1024) && !self.poll() {
            return Err(Abort::Stop);
        }
        Ok(())
    }

    /// Hands large output over and says whether anybody still reads it.
    fn poll(&mut self) -> bool {
        if self.pending.len() >= 16 * 1024 {
            self.flush_stdout();
        }
        self.ctx.flush(&mut self.o)
    }

    fn account(&mut self, n: usize) -> R<()> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.hold {
            return exhausted();
        }
        Ok(())
    }

    // ----- the main loop -----

    pub fn run(&mut self) -> R<()> {
        let prog = self.prog;
        let has_main = prog
            .rules
            .iter()
            .any(|r| !matches!(r.pattern, Pattern::Begin));
        let mut exited = false;
        for r in &prog.rules {
            if matches!(r.pattern, Pattern::Begin)
                && let Some(a) = &r.action
            {
                match self.exec_block(a) {
                    Err(Abort::Exit) => {
                        exited = true;
                        break;
                    }
                    Err(e) => return Err(e),
                    Ok(_) => {}
                }
            }
        }
        if !exited && has_main {
            match self.main_loop() {
                Ok(()) | Err(Abort::Exit) => {}
                Err(e) => return Err(e),
            }
        }
        self.in_end = true;
        for r in &prog.rules {
            if matches!(r.pattern, Pattern::End)
                && let Some(a) = &r.action
            {
                match self.exec_block(a) {
                    Ok(_) => {}
                    Err(Abort::Exit) => break,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    fn main_loop(&mut self) -> R<()> {
        let prog = self.prog;
        let only_end = prog
            .rules
            .iter()
            .all(|r| matches!(r.pattern, Pattern::Begin | Pattern::End));
        let mut rec = Vec::new();
        'records: loop {
            if !self.next_main_record(&mut rec)? {
                break;
            }
            self.tick_record()?;
            self.set_record_owned(&mut rec);
            if only_end {
                continue;
            }
            for r in &prog.rules {
                let run = match &r.pattern {
                    Pattern::Begin | Pattern::End => continue,
                    Pattern::All => true,
                    Pattern::Expr(e) => {
                        self.executed = true;
                        match self.eval_cond(e) {
                            Ok(b) => b,
                            Err(Abort::Next(file)) => {
                                if file {
                                    self.main = None;
                                }
                                continue 'records;
                            }
                            Err(e) => return Err(e),
                        }
                    }
                    Pattern::Range(a, b, k) => {
                        let on = self.range_on.get(*k).copied().unwrap_or(false);
                        if on {
                            if self.eval_cond(b)?
                                && let Some(s) = self.range_on.get_mut(*k)
                            {
                                *s = false;
                            }
                            true
                        } else if self.eval_cond(a)? {
                            if !self.eval_cond(b)?
                                && let Some(s) = self.range_on.get_mut(*k)
                            {
                                *s = true;
                            }
                            true
                        } else {
                            false
                        }
                    }
                };
                if !run {
                    continue;
                }
                let flow = match &r.action {
                    None => {
                        self.print_record();
                        Flow::Normal
                    }
                    Some(a) => match self.exec_block(a) {
                        Ok(f) => f,
                        Err(Abort::Next(file)) => {
                            if file {
                                self.main = None;
                            }
                            continue 'records;
                        }
                        Err(e) => return Err(e),
                    },
                };
                match flow {
                    Flow::Next => continue 'records,
                    Flow::NextFile => {
                        self.main = None;
                        continue 'records;
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn tick_record(&mut self) -> R<()> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(64) && !self.poll() {
            return Err(Abort::Stop);
        }
        Ok(())
    }

    fn set_record_owned(&mut self, rec: &mut Vec<u8>) {
        std::mem::swap(&mut self.rec.text, rec);
        self.rec.split = false;
        self.rec.fields = None;
        self.rec.stale = false;
    }

    fn print_record(&mut self) {
        self.rebuild();
        let mut line = std::mem::take(&mut self.rec.text);
        let ors = std::mem::take(&mut self.ors);
        self.stdout(&line);
        self.stdout(&ors);
        self.ors = ors;
        std::mem::swap(&mut self.rec.text, &mut line);
    }

    /// The next record of the main input (ARGV's files in turn, or stdin); false at the end.
    fn next_main_record(&mut self, rec: &mut Vec<u8>) -> R<bool> {
        loop {
            if self.main.is_none() && (self.main_done || !self.open_next_main()?) {
                self.main_done = true;
                return Ok(false);
            }
            let mode = self.rs_mode.clone();
            let mut rt = std::mem::take(&mut self.rt);
            let got = match &mut self.main {
                Some(r) => r.read(&mode, rec, &mut rt),
                None => Ok(false),
            };
            match got {
                Ok(true) => {
                    self.account(0)?;
                    let same = matches!(self.globals.get(RT), Some(Cell::Val(Value::Str(s))) if s.as_ref() == rt.as_slice());
                    if !same {
                        self.set_global_raw(RT, Value::str(&rt));
                    }
                    self.rt = rt;
                    self.nr += 1.0;
                    self.fnr += 1.0;
                    let (nr, fnr) = (self.nr, self.fnr);
                    self.set_global_raw(NR, Value::Num(nr));
                    self.set_global_raw(FNR, Value::Num(fnr));
                    return Ok(true);
                }
                Ok(false) => {
                    self.rt = rt;
                    self.main = None;
                }
                Err(e) => {
                    self.rt = rt;
                    self.main = None;
                    if e.kind() == std::io::ErrorKind::OutOfMemory {
                        return exhausted();
                    }
                    let name = self.special_text(FILENAME);
                    self.warn(&format!(
                        "error reading input file `{}': {}",
                        String::from_utf8_lossy(&name),
                        crate::FsError::from_io(&e).strerror()
                    ));
                    self.status = 2;
                }
            }
        }
    }

    fn set_global_raw(&mut self, i: usize, v: Value) {
        if let Some(c) = self.globals.get_mut(i) {
            *c = Cell::Val(v);
        }
    }

    fn warn(&mut self, msg: &str) {
        self.o.err(format!("awk: {msg}\n"));
    }

    /// Opens the next ARGV operand (doing assignments on the way); false when none is left.
    fn open_next_main(&mut self) -> R<bool> {
        let argc = self.global_num(ARGC);
        let Some(Cell::Arr(argv_id)) = self.globals.get(ARGV).cloned() else {
            return Ok(false);
        };
        while (self.argi as f64) < argc {
            let key = self.argi.to_string();
            self.argi += 1;
            let arg = self
                .arr(argv_id)
                .and_then(|m| m.get(key.as_bytes()))
                .map(|v| text_of(v, b"%.6g"))
                .unwrap_or_default();
            if arg.is_empty() {
                continue;
            }
            if let Some((name, val)) = split_assignment(&arg) {
                let val = process_escapes(val);
                self.assign_var(name, &val)?;
                continue;
            }
            self.used_file = true;
            self.set_global_raw(FILENAME, Value::str(&arg));
            self.fnr = 0.0;
            self.set_global_raw(FNR, Value::Num(0.0));
            let os = std::ffi::OsStr::from_bytes_compat(&arg);
            if arg != b"-"
                && self
                    .ctx
                    .fs
                    .stat(&self.ctx.resolve(&os), true)
                    .is_ok_and(|m| m.is_dir())
            {
                let loc = self.location(false);
                self.warn(&format!(
                    "{loc}warning: command line argument `{}' is a directory: skipped",
                    String::from_utf8_lossy(&arg)
                ));
                continue;
            }
            match crate::support::input::open_input(self.ctx, &os) {
                Ok(r) => {
                    self.main = Some(RecReader::new(r, self.hold));
                    return Ok(true);
                }
                Err(e) => {
                    let msg = format!(
                        "warning: command line argument `{}' is a directory: skipped",
                        String::from_utf8_lossy(&arg)
                    );
                    if e.strerror() == "Is a directory" {
                        self.warn(&format!("cmd. line:1: {msg}"));
                        continue;
                    }
                    return Err(Abort::FatalOpen(format!(
                        "cannot open file `{}' for reading: {}",
                        String::from_utf8_lossy(&arg),
                        e.strerror()
                    )));
                }
            }
        }
        if !self.used_file {
            self.used_file = true;
            self.main = Some(RecReader::new(Box::new(self.ctx.stdin), self.hold));
            return Ok(true);
        }
        Ok(false)
    }
}

trait OsStrCompat {
    fn from_bytes_compat(b: &[u8]) -> std::ffi::OsString;
}
impl OsStrCompat for std::ffi::OsStr {
    fn from_bytes_compat(b: &[u8]) -> std::ffi::OsString {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(b).to_os_string()
    }
}

fn unreachable_map() -> &'static mut Map {
    // Never reached: `arr_mut` makes the slot first. Leaking one empty map keeps the
    // signature total without a panic.
    Box::leak(Box::new(Map::default()))
}

fn wrap_newline(gnu: &[u8], para: bool) -> Vec<u8> {
    if !para {
        return gnu.to_vec();
    }
    let mut p = b"(".to_vec();
    p.extend_from_slice(gnu);
    p.extend_from_slice(b")|\n");
    p
}

/// `name=value` operands: a valid identifier before the `=`.
pub fn split_assignment(arg: &[u8]) -> Option<(&str, &[u8])> {
    let eq = arg.iter().position(|&c| c == b'=')?;
    let name = std::str::from_utf8(arg.get(..eq)?).ok()?;
    let mut chars = name.bytes();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == b'_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return None;
    }
    if super::lexer::BUILTINS.contains(&name) {
        return None;
    }
    Some((name, arg.get(eq + 1..).unwrap_or_default()))
}

/// The escapes of a `-v` value or an assignment operand, as in a string literal.
pub fn process_escapes(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while let Some(&c) = v.get(i) {
        if c == b'\\' {
            if v.get(i + 1).is_none() {
                out.push(b'\\');
                break;
            }
            i = super::lexer::escape(v, i + 1, &mut out);
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Splits `text` into field spans by `mode` (`split()` and `$0`); `seps` gets the
/// separators' spans when asked.
fn split_into(
    mode: &FsMode,
    text: &[u8],
    spans: &mut Vec<(usize, usize)>,
    mut seps: Option<&mut Vec<(usize, usize)>>,
) {
    match mode {
        FsMode::Space => {
            let mut i = 0;
            let n = text.len();
            let blank = |c: u8| c == b' ' || c == b'\t' || c == b'\n';
            let mut last_end = 0;
            while i < n {
                while i < n && text.get(i).is_some_and(|&c| blank(c)) {
                    i += 1;
                }
                if i >= n {
                    break;
                }
                let s = i;
                if let Some(sp) = seps.as_deref_mut() {
                    sp.push((last_end, s));
                }
                while i < n && text.get(i).is_some_and(|&c| !blank(c)) {
                    i += 1;
                }
                spans.push((s, i));
                last_end = i;
            }
            if let Some(sp) = seps.as_deref_mut() {
                sp.push((last_end, n));
            }
        }
        FsMode::Byte(b) => {
            if text.is_empty() {
                return;
            }
            let mut s = 0;
            for p in memchr::memchr_iter(*b, text) {
                spans.push((s, p));
                if let Some(sp) = seps.as_deref_mut() {
                    sp.push((p, p + 1));
                }
                s = p + 1;
            }
            spans.push((s, text.len()));
        }
        FsMode::Chars => {
            for i in 0..text.len() {
                spans.push((i, i + 1));
            }
        }
        FsMode::Regex(re) => {
            if text.is_empty() {
                return;
            }
            let mut s = 0;
            let mut from = 0;
            while from <= text.len() {
                let Some((a, b)) = re.find_at(text, from) else {
                    break;
                };
                if b == a {
                    // Empty separators do not split.
                    from = a + 1;
                    continue;
                }
                spans.push((s, a));
                if let Some(sp) = seps.as_deref_mut() {
                    sp.push((a, b));
                }
                s = b;
                from = b;
            }
            spans.push((s, text.len()));
        }
    }
}

fn cmp_values(a: &Value, b: &Value, convfmt: &[u8]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let num = |v: &Value| -> Option<f64> {
        match v {
            Value::Uninit => Some(0.0),
            Value::Num(n) => Some(*n),
            Value::StrNum(s) => looks_numeric(s),
            Value::Str(_) => None,
        }
    };
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return x.partial_cmp(&y).unwrap_or(Ordering::Less);
    }
    let sa = text_of(a, convfmt);
    let sb = text_of(b, convfmt);
    sa.cmp(&sb)
}

fn round_to_int(v: f64) -> f64 {
    v.trunc()
}

impl Interp<'_> {
    /// Where a fatal error happened, as gawk prefixes it: `cmd. line:1: ` once the program
    /// ran, with `(FILENAME=f FNR=n) ` once input was read.
    pub fn location(&self, with_record: bool) -> String {
        if !self.executed {
            return String::new();
        }
        if with_record && self.nr > 0.0 {
            let f = self.special_text(FILENAME);
            let f = if f.is_empty() { b"-".to_vec() } else { f };
            let mut fnr = Vec::new();
            num_to_str(self.fnr, b"%.6g", &mut fnr);
            return format!(
                "cmd. line:1: (FILENAME={} FNR={}) ",
                String::from_utf8_lossy(&f),
                String::from_utf8_lossy(&fnr)
            );
        }
        "cmd. line:1: ".into()
    }

    fn exec_block(&mut self, stmts: &[Stmt]) -> R<Flow> {
        self.executed = true;
        for s in stmts {
            match self.exec(s)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &Stmt) -> R<Flow> {
        match s {
            Stmt::Expr(e) => {
                self.eval(e)?;
            }
            Stmt::Print(args, redir) => self.print(args, redir.as_ref())?,
            Stmt::Printf(args, _) if args.is_empty() => {
                return fatal("printf: no arguments");
            }
            Stmt::Printf(args, redir) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let fmt = vals
                    .first()
                    .map(|v| text_of(v, &self.convfmt))
                    .unwrap_or_default();
                let out = self.format(&fmt, vals.get(1..).unwrap_or_default())?;
                self.write_out(redir.as_ref(), &out)?;
            }
            Stmt::If(c, t, e) => {
                if self.eval_cond(c)? {
                    return self.exec(t);
                } else if let Some(e) = e {
                    return self.exec(e);
                }
            }
            Stmt::While(c, body) => {
                while self.eval_cond(c)? {
                    self.tick()?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        f => return Ok(f),
                    }
                }
            }
            Stmt::Do(body, c) => loop {
                self.tick()?;
                match self.exec(body)? {
                    Flow::Break => break,
                    Flow::Normal | Flow::Continue => {}
                    f => return Ok(f),
                }
                if !self.eval_cond(c)? {
                    break;
                }
            },
            Stmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.exec(i)?;
                }
                loop {
                    if let Some(c) = cond
                        && !self.eval_cond(c)?
                    {
                        break;
                    }
                    self.tick()?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        f => return Ok(f),
                    }
                    if let Some(st) = step {
                        self.exec(st)?;
                    }
                }
            }
            Stmt::ForIn(lv, arr, body) => {
                let id = self.array_of(*arr)?;
                let keys: Vec<Rc<[u8]>> = self
                    .arr(id)
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default();
                for k in keys {
                    self.tick()?;
                    if !self.arr(id).is_some_and(|m| m.contains_key(&k)) {
                        continue;
                    }
                    self.assign(lv, Value::StrNum(k))?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        f => return Ok(f),
                    }
                }
            }
            Stmt::Block(b) => return self.exec_block(b),
            Stmt::Next => {
                if self.in_end {
                    return fatal("`next' used in END action");
                }
                return Ok(Flow::Next);
            }
            Stmt::Nextfile => return Ok(Flow::NextFile),
            Stmt::Exit(e) => {
                if let Some(e) = e {
                    let v = self.eval_num(e)?;
                    self.exit_code = (v as i64 & 0xff) as i32;
                }
                return Err(Abort::Exit);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Delete(v, subs) => {
                let id = self.array_of(*v)?;
                match subs {
                    None => {
                        if let Some(m) = self.arrays.get_mut(id).and_then(Option::as_mut) {
                            let held: usize = m.keys().map(|k| k.len() + 16).sum();
                            m.clear();
                            self.bytes = self.bytes.saturating_sub(held);
                        }
                    }
                    Some(s) => {
                        let k = self.key(s)?;
                        if let Some(m) = self.arrays.get_mut(id).and_then(Option::as_mut)
                            && m.remove(&k).is_some()
                        {
                            self.bytes = self.bytes.saturating_sub(k.len() + 16);
                        }
                    }
                }
            }
        }
        Ok(Flow::Normal)
    }

    // ----- output -----

    fn write_arg(&mut self, e: &Expr, out: &mut Vec<u8>) -> R<()> {
        if let Expr::Field(ix) = e
            && let Expr::Num(n) = ix.as_ref()
        {
            let i = *n as usize;
            if i == 0 {
                self.rebuild();
                out.extend_from_slice(&self.rec.text);
                return Ok(());
            }
            self.ensure_split();
            if self.rec.fields.is_none() {
                if let Some(&(s, e)) = self.rec.spans.get(i - 1) {
                    out.extend_from_slice(self.rec.text.get(s..e).unwrap_or_default());
                }
                return Ok(());
            }
        }
        let v = self.eval(e)?;
        match &v {
            Value::Num(n) => num_to_str(*n, &self.ofmt, out),
            Value::Str(s) | Value::StrNum(s) => out.extend_from_slice(s),
            Value::Uninit => {}
        }
        Ok(())
    }

    fn print(&mut self, args: &[Expr], redir: Option<&Redirect>) -> R<()> {
        if redir.is_none() && args.is_empty() {
            self.print_record();
            return Ok(());
        }
        let mut line = std::mem::take(&mut self.scratch);
        line.clear();
        if args.is_empty() {
            self.rebuild();
            line.extend_from_slice(&self.rec.text);
        }
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                line.extend_from_slice(&self.ofs);
            }
            if let Err(e) = self.write_arg(a, &mut line) {
                self.scratch = line;
                return Err(e);
            }
        }
        line.extend_from_slice(&self.ors);
        let r = self.write_out(redir, &line);
        self.scratch = line;
        r
    }

    fn write_out(&mut self, redir: Option<&Redirect>, bytes: &[u8]) -> R<()> {
        let Some(r) = redir else {
            self.stdout(bytes);
            return Ok(());
        };
        let (e, kind) = match r {
            Redirect::File(e) => (e, OutKind::File { append: false }),
            Redirect::Append(e) => (e, OutKind::File { append: true }),
            Redirect::Pipe(e) => (e, OutKind::Pipe),
        };
        let name = self.eval_str(e)?;
        if matches!(kind, OutKind::File { .. }) {
            match name.as_slice() {
                b"/dev/stdout" | b"-" => {
                    self.stdout(bytes);
                    return Ok(());
                }
                b"/dev/stderr" => {
                    self.o.err(bytes);
                    return Ok(());
                }
                b"/dev/null" => return Ok(()),
                _ => {}
            }
        }
        if name.is_empty() {
            return fatal(match kind {
                OutKind::Pipe => "expression for `|' redirection has null string value",
                OutKind::File { append: true } => {
                    "expression for `>>' redirection has null string value"
                }
                OutKind::File { .. } => "expression for `>' redirection has null string value",
            });
        }
        self.account(bytes.len())?;
        if let Some(out) = self.outputs.iter_mut().find(|o| o.name == name) {
            out.data.extend_from_slice(bytes);
            return Ok(());
        }
        if matches!(kind, OutKind::File { .. }) {
            let path = self.ctx.resolve(std::ffi::OsStr::from_bytes_compat(&name));
            let parent_ok = path
                .parent()
                .is_none_or(|p| self.ctx.fs.stat(p, true).is_ok_and(|m| m.is_dir()));
            let is_dir = self.ctx.fs.stat(&path, true).is_ok_and(|m| m.is_dir());
            if !parent_ok || is_dir {
                let why = if is_dir {
                    "Is a directory"
                } else {
                    "No such file or directory"
                };
                return fatal(format!(
                    "cannot redirect to `{}': {why}",
                    String::from_utf8_lossy(&name)
                ));
            }
        }
        if matches!(kind, OutKind::Pipe) {
            // gawk flushes its stdout as it opens an output pipe.
            self.flush_stdout();
        }
        self.outputs.push(Output {
            name,
            kind,
            data: bytes.to_vec(),
        });
        Ok(())
    }

    /// Closes one stream by name: its return value as gawk's `close`.
    fn close(&mut self, name: &[u8]) -> R<f64> {
        let mut result = None;
        if let Some(p) = self.outputs.iter().position(|o| o.name == name) {
            let out = self.outputs.remove(p);
            if matches!(out.kind, OutKind::Pipe) {
                self.flush_stdout();
            }
            result = Some(self.finish_output(out)?);
        }
        if self.files_in.remove(name).is_some() {
            result = Some(0.0);
        }
        if let Some((_, st)) = self.cmds_in.remove(name) {
            result = Some(f64::from(st));
        }
        Ok(result.unwrap_or(-1.0))
    }

    fn finish_output(&mut self, out: Output) -> R<f64> {
        self.bytes = self.bytes.saturating_sub(out.data.len());
        match out.kind {
            OutKind::File { append } => {
                let path = self
                    .ctx
                    .resolve(std::ffi::OsStr::from_bytes_compat(&out.name));
                let mut eff = Effect::new(
                    Op::WriteFile {
                        path,
                        data: out.data,
                        append,
                    },
                    format!(
                        "awk: cmd. line:1: fatal: can't redirect to `{}'",
                        String::from_utf8_lossy(&out.name)
                    ),
                );
                eff.fail_status = 2;
                self.o.effect(eff);
                self.ctx.apply_now(&mut self.o);
                Ok(0.0)
            }
            OutKind::Pipe => {
                let res = self.ctx.run(
                    &mut self.o,
                    RunRequest {
                        what: RunWhat::Shell(&out.name),
                        stdin: Some(&out.data),
                        inherit_stdin: false,
                        capture: false,
                        cwd: None,
                        env: None,
                    },
                );
                match res {
                    Some(r) if r.stop => Err(Abort::Stop),
                    Some(r) => Ok(f64::from(r.status)),
                    None => Ok(127.0),
                }
            }
        }
    }

    /// Closes every open output at the end, in the order they were opened, then writes
    /// what is left of awk's own buffered stdout (gawk closes its pipes before it flushes
    /// stdout: `print | "sort"` output comes before the last `print`s).
    pub fn close_all(&mut self) -> R<()> {
        let outs = std::mem::take(&mut self.outputs);
        for o in outs {
            self.finish_output(o)?;
        }
        self.flush_stdout();
        Ok(())
    }

    /// awk's stdout is buffered as gawk's is when it is not a terminal: written out when
    /// the buffer fills, before `system()` and closing a pipe, by `fflush()`, at the end.
    fn stdout(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= 32 * 1024 {
            self.flush_stdout();
        }
    }

    pub fn flush_stdout(&mut self) {
        if !self.pending.is_empty() {
            self.o.out(&self.pending);
            self.pending.clear();
        }
    }

    fn format(&mut self, fmt: &[u8], vals: &[Value]) -> R<Vec<u8>> {
        match builtins::format(fmt, vals, &self.convfmt) {
            Ok(v) => {
                self.account(0)?;
                Ok(v)
            }
            Err(FmtError::NotEnough(f, at)) => {
                let shown = String::from_utf8_lossy(&f).into_owned();
                let caret = " ".repeat(at.saturating_sub(1).min(f.len()));
                fatal(format!(
                    "not enough arguments to satisfy format string\n\t`{shown}'\n\t{caret}^ ran out for this one"
                ))
            }
        }
    }

    // ----- values -----

    pub fn eval_cond(&mut self, e: &Expr) -> R<bool> {
        match e {
            Expr::Regex(i) => {
                let re = self.literal(*i);
                self.rebuild();
                Ok(re.is_some_and(|r| r.is_match(&self.rec.text)))
            }
            Expr::Cmp(op, a, b) => self.compare(*op, a, b),
            Expr::Match(neg, a, b) => {
                let s = self.eval_str(a)?;
                let re = self.regex_of(b)?;
                Ok(re.is_match(&s) != *neg)
            }
            Expr::And(a, b) => Ok(self.eval_cond(a)? && self.eval_cond(b)?),
            Expr::Or(a, b) => Ok(self.eval_cond(a)? || self.eval_cond(b)?),
            Expr::Not(a) => Ok(!self.eval_cond(a)?),
            _ => Ok(self.eval(e)?.truthy()),
        }
    }

    fn compare(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> R<bool> {
        use std::cmp::Ordering;
        let x = self.eval(a)?;
        let y = self.eval(b)?;
        // NaN compares false except for `!=`.
        let nan_left = matches!(x, Value::Num(n) if n.is_nan());
        let nan_right = matches!(y, Value::Num(n) if n.is_nan());
        if nan_left || nan_right {
            return Ok(op == CmpOp::Ne);
        }
        let o = cmp_values(&x, &y, &self.convfmt);
        Ok(match op {
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
        })
    }

    pub fn eval_num(&mut self, e: &Expr) -> R<f64> {
        match e {
            Expr::Num(n) => Ok(*n),
            Expr::Field(ix) => {
                if let Expr::Num(n) = ix.as_ref()
                    && *n >= 1.0
                {
                    let i = *n as usize;
                    self.ensure_split();
                    if self.rec.fields.is_none() {
                        return Ok(self.rec.spans.get(i - 1).map_or(0.0, |&(s, e)| {
                            super::value::str_to_num(self.rec.text.get(s..e).unwrap_or_default())
                        }));
                    }
                }
                Ok(self.eval(e)?.to_num())
            }
            _ => Ok(self.eval(e)?.to_num()),
        }
    }

    pub fn eval_str(&mut self, e: &Expr) -> R<Vec<u8>> {
        let v = self.eval(e)?;
        Ok(text_of(&v, &self.convfmt))
    }

    /// A regex literal, compiled without case under `IGNORECASE`.
    fn literal(&mut self, i: usize) -> Option<Rc<Regex>> {
        if !self.icase {
            return self.regexes.get(i).cloned();
        }
        if let Some(Some(r)) = self.regexes_icase.get(i) {
            return Some(r.clone());
        }
        let src = self.prog.regexes.get(i)?;
        let r = Rc::new(compile(src, true).ok()?);
        if let Some(slot) = self.regexes_icase.get_mut(i) {
            *slot = Some(r.clone());
        }
        Some(r)
    }

    fn regex_of(&mut self, e: &Expr) -> R<Rc<Regex>> {
        if let Expr::Regex(i) = e
            && let Some(r) = self.literal(*i)
        {
            return Ok(r);
        }
        let s = self.eval_str(e)?;
        self.dyn_regex(&s)
    }

    fn dyn_regex(&mut self, s: &[u8]) -> R<Rc<Regex>> {
        if let Some(r) = self.dyn_cache.get(s) {
            return Ok(r.clone());
        }
        match compile(s, self.icase) {
            Ok(r) => {
                let r = Rc::new(r);
                if self.dyn_cache.len() > 1000 {
                    self.dyn_cache.clear();
                }
                self.dyn_cache.insert(s.to_vec(), r.clone());
                Ok(r)
            }
            Err(e) => fatal(format!("{e}: /{}/", String::from_utf8_lossy(s))),
        }
    }

    fn key(&mut self, subs: &[Expr]) -> R<Rc<[u8]>> {
        if let [one] = subs {
            let v = self.eval(one)?;
            return Ok(match v {
                Value::Str(s) | Value::StrNum(s) => s,
                Value::Num(n) => {
                    let mut o = Vec::new();
                    num_to_str(n, &self.convfmt, &mut o);
                    Rc::from(o)
                }
                Value::Uninit => Rc::from(&b""[..]),
            });
        }
        let mut k = Vec::new();
        for (i, s) in subs.iter().enumerate() {
            if i > 0 {
                k.extend_from_slice(&self.subsep);
            }
            let t = self.eval_str(s)?;
            k.extend_from_slice(&t);
        }
        Ok(Rc::from(k))
    }

    fn array_of(&mut self, v: Var) -> R<usize> {
        match self.cell(v) {
            Some(Cell::Arr(id)) => Ok(*id),
            Some(Cell::Val(Value::Uninit)) | None => {
                let id = self.new_array();
                if let Some(c) = self.cell_mut(v) {
                    *c = Cell::Arr(id);
                }
                if let (Var::Local(_), Some(f)) = (v, self.frames.last_mut()) {
                    f.owned.push(id);
                }
                Ok(id)
            }
            Some(Cell::Val(_)) => fatal(format!(
                "attempt to use scalar `{}' as an array",
                self.var_name(v)
            )),
        }
    }

    /// An element's value, created (uninitialized) when missing, as awk does.
    fn elem(&mut self, id: usize, k: Rc<[u8]>) -> R<Value> {
        if let Some(v) = self.arr(id).and_then(|m| m.get(&k)) {
            return Ok(v.clone());
        }
        self.insert(id, k, Value::Uninit)?;
        Ok(Value::Uninit)
    }

    fn insert(&mut self, id: usize, k: Rc<[u8]>, v: Value) -> R<()> {
        let m = self.arr_mut(id);
        if m.len() >= MAX_ELEMENTS && !m.contains_key(&k) {
            return fatal("array too large");
        }
        let n = k.len() + 16;
        // Only a new element holds more: `c[$2]++` over a big input replaces its values.
        if m.insert(k, v).is_none() {
            return self.account(n);
        }
        Ok(())
    }

    fn assign(&mut self, lv: &LValue, v: Value) -> R<()> {
        match lv {
            LValue::Var(var) => self.set_var(*var, v),
            LValue::Field(e) => {
                let i = self.field_index(e)?;
                self.set_field(i, v);
                Ok(())
            }
            LValue::Index(var, subs) => {
                let id = self.array_of(*var)?;
                let k = self.key(subs)?;
                self.insert(id, k, v)
            }
        }
    }

    /// Evaluates an lvalue's place once: for `x op= y` and `x++` on `$i` and `a[k]`.
    fn resolve_lvalue(&mut self, lv: &LValue) -> R<Place> {
        Ok(match lv {
            LValue::Var(v) => Place::Var(*v),
            LValue::Field(e) => Place::Field(self.field_index(e)?),
            LValue::Index(v, subs) => {
                let id = self.array_of(*v)?;
                Place::Elem(id, self.key(subs)?)
            }
        })
    }

    fn place_get(&mut self, p: &Place) -> R<Value> {
        match p {
            Place::Var(v) => self.get_var(*v),
            Place::Field(i) => Ok(self.get_field(*i)),
            Place::Elem(id, k) => self.elem(*id, k.clone()),
        }
    }

    fn place_set(&mut self, p: Place, v: Value) -> R<()> {
        match p {
            Place::Var(var) => self.set_var(var, v),
            Place::Field(i) => {
                self.set_field(i, v);
                Ok(())
            }
            Place::Elem(id, k) => self.insert(id, k, v),
        }
    }

    fn arith(op: BinOp, a: f64, b: f64) -> R<f64> {
        Ok(match op {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => {
                if b == 0.0 {
                    return fatal("division by zero attempted");
                }
                a / b
            }
            BinOp::Mod => {
                if b == 0.0 {
                    return fatal("division by zero attempted in `%'");
                }
                a % b
            }
            BinOp::Pow => pow(a, b),
        })
    }

    pub fn eval(&mut self, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Num(n) => Value::Num(*n),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Regex(_)
            | Expr::Cmp(..)
            | Expr::Match(..)
            | Expr::And(..)
            | Expr::Or(..)
            | Expr::Not(_) => Value::bool(self.eval_cond(e)?),
            Expr::Var(v) => self.get_var(*v)?,
            Expr::Field(ix) => {
                let i = self.field_index(ix)?;
                self.get_field(i)
            }
            Expr::Index(v, subs) => {
                let id = self.array_of(*v)?;
                let k = self.key(subs)?;
                self.elem(id, k)?
            }
            Expr::In(subs, v) => {
                let id = self.array_of(*v)?;
                let k = self.key(subs)?;
                Value::bool(self.arr(id).is_some_and(|m| m.contains_key(&k)))
            }
            Expr::Assign(op, lv, rhs) => match op {
                None => {
                    let v = self.eval(rhs)?;
                    self.assign(lv, v.clone())?;
                    v
                }
                Some(op) => {
                    let place = self.resolve_lvalue(lv)?;
                    let b = self.eval_num(rhs)?;
                    let a = self.place_get(&place)?.to_num();
                    let r = Value::Num(Self::arith(*op, a, b)?);
                    self.place_set(place, r.clone())?;
                    r
                }
            },
            Expr::Cond(c, a, b) => {
                if self.eval_cond(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::Neg(a) => Value::Num(-self.eval_num(a)?),
            Expr::UPlus(a) => Value::Num(self.eval_num(a)?),
            Expr::Binary(op, a, b) => {
                let x = self.eval_num(a)?;
                let y = self.eval_num(b)?;
                Value::Num(Self::arith(*op, x, y)?)
            }
            Expr::Concat(a, b) => {
                let mut x = self.eval_str(a)?;
                let y = self.eval(b)?;
                match &y {
                    Value::Str(s) | Value::StrNum(s) => x.extend_from_slice(s),
                    Value::Num(n) => num_to_str(*n, &self.convfmt, &mut x),
                    Value::Uninit => {}
                }
                if x.len() > self.hold {
                    return exhausted();
                }
                Value::Str(Rc::from(x))
            }
            Expr::Incr(pre, d, lv) => {
                let place = self.resolve_lvalue(lv)?;
                let old = self.place_get(&place)?.to_num();
                let new = old + d;
                self.place_set(place, Value::Num(new))?;
                Value::Num(if *pre { new } else { old })
            }
            Expr::Call(f, args) => self.call(*f, args)?,
            Expr::Builtin(b, args) => self.builtin(*b, args)?,
            Expr::Getline(src, var) => self.getline(src, var.as_deref())?,
            Expr::Group(list) => {
                // `(a, b)` outside print: gawk concatenates with SUBSEP only in `in`.
                let mut k = Vec::new();
                for (i, s) in list.iter().enumerate() {
                    if i > 0 {
                        k.extend_from_slice(&self.subsep);
                    }
                    let t = self.eval_str(s)?;
                    k.extend_from_slice(&t);
                }
                Value::Str(Rc::from(k))
            }
            Expr::Paren(e) => self.eval(e)?,
        })
    }

    // ----- functions -----

    fn call(&mut self, fi: usize, args: &[Expr]) -> R<Value> {
        let prog = self.prog;
        let Some(f) = prog.funcs.get(fi) else {
            return fatal("function not defined");
        };
        if args.len() > f.nparams && !self.warned_args.contains(&fi) {
            self.warned_args.push(fi);
            self.warn(&format!(
                "cmd. line:1: warning: function `{}' called with more arguments than declared",
                f.name
            ));
        }
        if self.depth >= MAX_CALL_DEPTH {
            return fatal(format!("function `{}': call depth too large", f.name));
        }
        self.tick()?;
        let mut locals = Vec::with_capacity(f.nparams);
        let mut owned = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if i >= f.nparams {
                // Extra arguments are evaluated and dropped.
                self.eval(a)?;
                continue;
            }
            let wants_array = f.array_params.get(i).copied().unwrap_or(false);
            let bare = match a {
                Expr::Var(v) => Some(*v),
                Expr::Paren(inner) => match inner.as_ref() {
                    Expr::Var(v) => Some(*v),
                    _ => None,
                },
                _ => None,
            };
            if let Some(v) = bare {
                match self.cell(v) {
                    Some(Cell::Arr(id)) => {
                        locals.push(Cell::Arr(*id));
                        continue;
                    }
                    Some(Cell::Val(Value::Uninit)) if wants_array => {
                        let id = self.array_of(v)?;
                        locals.push(Cell::Arr(id));
                        continue;
                    }
                    _ => {}
                }
            }
            if wants_array {
                return fatal(format!(
                    "attempt to use scalar parameter `{}' as an array",
                    param_name(f, i)
                ));
            }
            let v = self.eval(a)?;
            locals.push(Cell::Val(v));
        }
        while locals.len() < f.nparams {
            locals.push(Cell::Val(Value::Uninit));
        }
        owned.clear();
        self.frames.push(Frame { locals, owned });
        self.depth += 1;
        let r = self.exec_block(&f.body);
        self.depth -= 1;
        if let Some(fr) = self.frames.pop() {
            for id in fr.owned {
                if let Some(slot) = self.arrays.get_mut(id) {
                    *slot = None;
                }
                self.free_arrays.push(id);
            }
        }
        match r? {
            Flow::Return(v) => Ok(v),
            Flow::Next => Err(Abort::Next(false)),
            Flow::NextFile => Err(Abort::Next(true)),
            _ => Ok(Value::Uninit),
        }
    }
}

fn param_name(f: &super::ast::Func, i: usize) -> String {
    f.params.get(i).cloned().unwrap_or_default()
}

fn pow(a: f64, b: f64) -> f64 {
    if b == b.trunc() && b.abs() < 1024.0 {
        let mut n = b.abs() as i64;
        let mut base = a;
        let mut r = 1.0;
        while n > 0 {
            if n & 1 == 1 {
                r *= base;
            }
            base *= base;
            n >>= 1;
        }
        return if b < 0.0 { 1.0 / r } else { r };
    }
    a.powf(b)
}

enum Place {
    Var(Var),
    Field(usize),
    Elem(usize, Rc<[u8]>),
}

impl<'a> Interp<'a> {
    fn srand_state(&mut self, seed: f64) {
        self.rand_state = (seed as i64).cast_unsigned() ^ 0x9E37_79B9_7F4A_7C15;
    }

    fn next_rand(&mut self) -> f64 {
        // xorshift64*: gawk's random() sequence is not reproduced (documented).
        let mut x = self.rand_state;
        if x == 0 {
            x = 0x2545_F491_4F6C_DD1D;
        }
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rand_state = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        r as f64 / (1u64 << 53) as f64
    }

    fn target_text(&mut self, args: &[Expr], i: usize) -> R<Vec<u8>> {
        if let Some(e) = args.get(i) {
            self.eval_str(e)
        } else {
            self.rebuild();
            Ok(self.rec.text.clone())
        }
    }

    fn builtin(&mut self, b: Bi, args: &[Expr]) -> R<Value> {
        let arg = |i: usize| args.get(i);
        Ok(match b {
            Bi::Length => match arg(0) {
                None => {
                    self.rebuild();
                    Value::Num(self.rec.text.len() as f64)
                }
                Some(Expr::Var(v)) if matches!(self.cell(*v), Some(Cell::Arr(_))) => {
                    let id = self.array_of(*v)?;
                    Value::Num(self.arr(id).map_or(0, Map::len) as f64)
                }
                Some(e) => Value::Num(self.eval_str(e)?.len() as f64),
            },
            Bi::Substr => {
                let s = self.target_text(args, 0)?;
                let m = self.eval_num(arg(1).unwrap_or(&Expr::Num(1.0)))?;
                let n = match arg(2) {
                    Some(e) => Some(self.eval_num(e)?),
                    None => None,
                };
                Value::str(builtins::substr(&s, m, n))
            }
            Bi::Index => {
                let s = self.target_text(args, 0)?;
                let t = self.target_text(args, 1)?;
                Value::Num(builtins::index(&s, &t) as f64)
            }
            Bi::Split => self.split(args)?,
            Bi::Sub | Bi::Gsub => self.sub(b == Bi::Gsub, args)?,
            Bi::Gensub => self.gensub(args)?,
            Bi::Match => self.match_fn(args)?,
            Bi::Sprintf => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let fmt = vals
                    .first()
                    .map(|v| text_of(v, &self.convfmt))
                    .unwrap_or_default();
                Value::Str(Rc::from(
                    self.format(&fmt, vals.get(1..).unwrap_or_default())?,
                ))
            }
            Bi::Tolower => Value::Str(Rc::from(self.target_text(args, 0)?.to_ascii_lowercase())),
            Bi::Toupper => Value::Str(Rc::from(self.target_text(args, 0)?.to_ascii_uppercase())),
            Bi::Int => Value::Num(round_to_int(
                self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?,
            )),
            Bi::Sqrt => {
                let x = self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?;
                if x < 0.0 {
                    self.warn_num("sqrt: called with negative argument", x);
                }
                Value::Num(x.sqrt())
            }
            Bi::Exp => Value::Num(self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?.exp()),
            Bi::Log => {
                let x = self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?;
                if x < 0.0 {
                    self.warn_num("log: received negative argument", x);
                }
                Value::Num(if x < 0.0 { -f64::NAN } else { x.ln() })
            }
            Bi::Sin => Value::Num(self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?.sin()),
            Bi::Cos => Value::Num(self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?.cos()),
            Bi::Atan2 => {
                let y = self.eval_num(arg(0).unwrap_or(&Expr::Num(0.0)))?;
                let x = self.eval_num(arg(1).unwrap_or(&Expr::Num(0.0)))?;
                Value::Num(y.atan2(x))
            }
            Bi::Rand => Value::Num(self.next_rand()),
            Bi::Srand => {
                let prev = self.seed;
                let s = match arg(0) {
                    Some(e) => self.eval_num(e)?.trunc(),
                    None => to_epoch(self.ctx.now).0 as f64,
                };
                self.seed = s;
                self.srand_state(s);
                Value::Num(prev)
            }
            Bi::Systime => Value::Num(to_epoch(self.ctx.now).0 as f64),
            Bi::Strftime => {
                let fmt = match arg(0) {
                    Some(e) => self.eval_str(e)?,
                    None => b"%a %b %e %H:%M:%S %Z %Y".to_vec(),
                };
                let ts = match arg(1) {
                    Some(e) => self.eval_num(e)? as i64,
                    None => to_epoch(self.ctx.now).0,
                };
                let utc = match arg(2) {
                    Some(e) => self.eval(e)?.truthy(),
                    None => false,
                };
                let zone = if utc {
                    crate::support::datetime::Zone::utc()
                } else {
                    session_zone(self.ctx)
                };
                Value::Str(Rc::from(strftime(&fmt, &broken_down(ts, 0, &zone))))
            }
            Bi::Close => {
                let name = self.eval_str(arg(0).unwrap_or(&Expr::Num(0.0)))?;
                Value::Num(self.close(&name)?)
            }
            Bi::Fflush => {
                if let Some(e) = arg(0) {
                    self.eval(e)?;
                }
                self.flush_stdout();
                if !self.ctx.flush(&mut self.o) {
                    return Err(Abort::Stop);
                }
                Value::Num(0.0)
            }
            Bi::System => {
                let cmd = self.eval_str(arg(0).unwrap_or(&Expr::Num(0.0)))?;
                // Pending pipes are not flushed (gawk's are real processes); stdout is.
                self.flush_stdout();
                let res = self.ctx.run(
                    &mut self.o,
                    RunRequest {
                        what: RunWhat::Shell(&cmd),
                        stdin: None,
                        // As gawk's: the command reads what awk left of its stdin.
                        inherit_stdin: true,
                        capture: false,
                        cwd: None,
                        env: None,
                    },
                );
                match res {
                    Some(r) if r.stop => return Err(Abort::Stop),
                    Some(r) => Value::Num(f64::from(r.status)),
                    None => Value::Num(127.0),
                }
            }
        })
    }

    fn warn_num(&mut self, what: &str, x: f64) {
        let mut s = Vec::new();
        num_to_str(x, b"%.6g", &mut s);
        self.warn(&format!(
            "cmd. line:1: warning: {what} {}",
            String::from_utf8_lossy(&s)
        ));
    }

    fn split(&mut self, args: &[Expr]) -> R<Value> {
        let s = self.target_text(args, 0)?;
        let Some(Expr::Var(av)) = args.get(1) else {
            return fatal("split: second argument is not an array");
        };
        let mode = match args.get(2) {
            None => self.fs_mode.clone(),
            Some(Expr::Regex(i)) => match self.literal(*i) {
                Some(r) => FsMode::Regex(r),
                None => FsMode::Space,
            },
            Some(e) => {
                let fs = self.eval_str(e)?;
                match fs.as_slice() {
                    b" " => FsMode::Space,
                    [] => FsMode::Chars,
                    [c] if *c != b' ' => FsMode::Byte(*c),
                    _ => FsMode::Regex(self.dyn_regex(&fs)?),
                }
            }
        };
        let id = self.array_of(*av)?;
        if let Some(m) = self.arrays.get_mut(id).and_then(Option::as_mut) {
            m.clear();
        }
        let mut spans = Vec::new();
        let mut seps = Vec::new();
        split_into(&mode, &s, &mut spans, Some(&mut seps));
        let n = spans.len();
        for (i, (a, b)) in spans.into_iter().enumerate() {
            let k: Rc<[u8]> = Rc::from((i + 1).to_string().as_bytes());
            self.insert(id, k, Value::strnum(s.get(a..b).unwrap_or_default()))?;
        }
        if let Some(Expr::Var(sv)) = args.get(3) {
            let sid = self.array_of(*sv)?;
            if let Some(m) = self.arrays.get_mut(sid).and_then(Option::as_mut) {
                m.clear();
            }
            let space = matches!(mode, FsMode::Space);
            for (i, (a, b)) in seps.into_iter().enumerate() {
                let idx = if space { i } else { i + 1 };
                if space && (i == 0 || i == n) && a == b {
                    continue;
                }
                let k: Rc<[u8]> = Rc::from(idx.to_string().as_bytes());
                self.insert(sid, k, Value::strnum(s.get(a..b).unwrap_or_default()))?;
            }
        }
        Ok(Value::Num(n as f64))
    }

    fn sub(&mut self, global: bool, args: &[Expr]) -> R<Value> {
        let re = self.regex_of(args.first().unwrap_or(&Expr::Num(0.0)))?;
        let repl = self.eval_str(args.get(1).unwrap_or(&Expr::Num(0.0)))?;
        let target = match args.get(2) {
            Some(e) => match e {
                Expr::Var(v) => Some(LValue::Var(*v)),
                Expr::Field(f) => Some(LValue::Field(f.clone())),
                Expr::Index(v, s) => Some(LValue::Index(*v, s.clone())),
                _ => None,
            },
            None => Some(LValue::Field(Box::new(Expr::Num(0.0)))),
        };
        let place = match &target {
            Some(lv) => Some(self.resolve_lvalue(lv)?),
            None => None,
        };
        let s = match (&place, args.get(2)) {
            (Some(p), _) => {
                let v = self.place_get(p)?;
                text_of(&v, &self.convfmt)
            }
            (None, Some(e)) => self.eval_str(e)?,
            (None, None) => Vec::new(),
        };
        let mut out = Vec::with_capacity(s.len());
        let mut count = 0usize;
        let mut pos = 0usize;
        let mut last_match_end: Option<usize> = None;
        while pos <= s.len() {
            let Some((a, b)) = re.find_at(&s, pos) else {
                break;
            };
            if a == b && last_match_end == Some(a) {
                // An empty match right after the previous match: skip a byte.
                if let Some(&c) = s.get(a) {
                    out.push(c);
                }
                pos = a + 1;
                last_match_end = None;
                continue;
            }
            out.extend_from_slice(s.get(pos..a).unwrap_or_default());
            builtins::sub_repl(&repl, s.get(a..b).unwrap_or_default(), &mut out);
            count += 1;
            if out.len() > self.hold {
                return exhausted();
            }
            if !global {
                pos = b;
                break;
            }
            if a == b {
                if let Some(&c) = s.get(a) {
                    out.push(c);
                }
                pos = a + 1;
                last_match_end = None;
            } else {
                pos = b;
                last_match_end = Some(b);
            }
        }
        if count > 0 {
            if pos < s.len() {
                out.extend_from_slice(s.get(pos..).unwrap_or_default());
            }
            if let Some(p) = place {
                self.place_set(p, Value::Str(Rc::from(out)))?;
            }
        }
        Ok(Value::Num(count as f64))
    }

    fn gensub(&mut self, args: &[Expr]) -> R<Value> {
        let re = self.regex_of(args.first().unwrap_or(&Expr::Num(0.0)))?;
        let repl = self.eval_str(args.get(1).unwrap_or(&Expr::Num(0.0)))?;
        let how = self.eval(args.get(2).unwrap_or(&Expr::Num(0.0)))?;
        let s = self.target_text(args, 3)?;
        let ht = text_of(&how, &self.convfmt);
        let (global, which) = if ht.first().is_some_and(|c| *c == b'g' || *c == b'G') {
            (true, 0)
        } else {
            let n = how.to_num();
            if n < 1.0 {
                self.warn("cmd. line:1: warning: gensub: third argument `0' treated as 1");
            }
            (false, (n.max(1.0)) as usize)
        };
        let mut out = Vec::with_capacity(s.len());
        let mut pos = 0usize;
        let mut copied = 0usize;
        let mut k = 0usize;
        let mut last_end: Option<usize> = None;
        while pos <= s.len() {
            let Some(caps) = re.captures_at(&s, pos) else {
                break;
            };
            let Some(Some((a, b))) = caps.first().copied() else {
                break;
            };
            if a == b && last_end == Some(a) {
                pos = a + 1;
                last_end = None;
                continue;
            }
            k += 1;
            if global || k == which {
                out.extend_from_slice(s.get(copied..a).unwrap_or_default());
                builtins::gensub_repl(&repl, &s, &caps, &mut out);
                copied = b;
                if out.len() > self.hold {
                    return exhausted();
                }
                if !global {
                    break;
                }
            }
            if a == b {
                pos = a + 1;
                last_end = None;
            } else {
                pos = b;
                last_end = Some(b);
            }
        }
        out.extend_from_slice(s.get(copied..).unwrap_or_default());
        Ok(Value::Str(Rc::from(out)))
    }

    fn match_fn(&mut self, args: &[Expr]) -> R<Value> {
        let s = self.target_text(args, 0)?;
        let re = self.regex_of(args.get(1).unwrap_or(&Expr::Num(0.0)))?;
        let caps = re.captures_at(&s, 0);
        let (start, len) = match caps.as_ref().and_then(|c| c.first().copied().flatten()) {
            Some((a, b)) => ((a + 1) as f64, (b - a) as f64),
            None => (0.0, -1.0),
        };
        self.set_global_raw(RSTART, Value::Num(start));
        self.set_global_raw(RLENGTH, Value::Num(len));
        if let Some(Expr::Var(av)) = args.get(2) {
            let id = self.array_of(*av)?;
            if let Some(m) = self.arrays.get_mut(id).and_then(Option::as_mut) {
                m.clear();
            }
            if let Some(caps) = caps {
                for (i, g) in caps.iter().enumerate() {
                    if let Some((a, b)) = g {
                        let k: Rc<[u8]> = Rc::from(i.to_string().as_bytes());
                        self.insert(id, k, Value::strnum(s.get(*a..*b).unwrap_or_default()))?;
                        let mut ks = i.to_string().into_bytes();
                        ks.extend_from_slice(&self.subsep.clone());
                        let mut kstart = ks.clone();
                        kstart.extend_from_slice(b"start");
                        ks.extend_from_slice(b"length");
                        self.insert(id, Rc::from(kstart), Value::Num((a + 1) as f64))?;
                        self.insert(id, Rc::from(ks), Value::Num((b - a) as f64))?;
                    }
                }
            }
        }
        Ok(Value::Num(start))
    }

    // ----- getline -----

    fn getline(&mut self, src: &GetSrc, var: Option<&LValue>) -> R<Value> {
        let mut rec = Vec::new();
        match src {
            GetSrc::Main => {
                if !self.next_main_record(&mut rec)? {
                    return Ok(Value::Num(0.0));
                }
                match var {
                    Some(lv) => self.assign(lv, Value::strnum(&rec))?,
                    None => self.set_record_owned(&mut rec),
                }
                Ok(Value::Num(1.0))
            }
            GetSrc::File(e) => {
                let name = self.eval_str(e)?;
                if !self.files_in.contains_key(&name) {
                    let os = std::ffi::OsStr::from_bytes_compat(&name);
                    let r: Box<dyn std::io::Read + 'a> = if name == b"-" || name == b"/dev/stdin" {
                        Box::new(self.ctx.stdin)
                    } else {
                        match self.ctx.fs.open(&self.ctx.resolve(&os)) {
                            Ok(r) => Box::new(r),
                            Err(_) => return Ok(Value::Num(-1.0)),
                        }
                    };
                    self.files_in
                        .insert(name.clone(), RecReader::new(r, self.hold));
                }
                let mode = self.rs_mode.clone();
                let mut rt = Vec::new();
                let got = match self.files_in.get_mut(&name) {
                    Some(r) => r.read(&mode, &mut rec, &mut rt),
                    None => Ok(false),
                };
                match got {
                    Ok(true) => {
                        match var {
                            Some(lv) => self.assign(lv, Value::strnum(&rec))?,
                            None => {
                                self.set_record_owned(&mut rec);
                            }
                        }
                        self.set_global_raw(RT, Value::str(&rt));
                        Ok(Value::Num(1.0))
                    }
                    Ok(false) => Ok(Value::Num(0.0)),
                    Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => exhausted(),
                    Err(_) => Ok(Value::Num(-1.0)),
                }
            }
            GetSrc::Cmd(e) => {
                let cmd = self.eval_str(e)?;
                if !self.cmds_in.contains_key(&cmd) {
                    let res = self.ctx.run(
                        &mut self.o,
                        RunRequest {
                            what: RunWhat::Shell(&cmd),
                            stdin: None,
                            inherit_stdin: false,
                            capture: true,
                            cwd: None,
                            env: None,
                        },
                    );
                    let (data, status) = match res {
                        Some(r) if r.stop => return Err(Abort::Stop),
                        Some(r) => (r.stdout, r.status),
                        None => (Vec::new(), 127),
                    };
                    self.account(data.len())?;
                    let reader: Box<dyn std::io::Read + 'a> = Box::new(Cursor::new(data));
                    self.cmds_in
                        .insert(cmd.clone(), (RecReader::new(reader, self.hold), status));
                }
                let mode = self.rs_mode.clone();
                let mut rt = Vec::new();
                let got = match self.cmds_in.get_mut(&cmd) {
                    Some((r, _)) => r.read(&mode, &mut rec, &mut rt),
                    None => Ok(false),
                };
                match got {
                    Ok(true) => {
                        // gawk 5.2 leaves NR and FNR alone here.
                        match var {
                            Some(lv) => self.assign(lv, Value::strnum(&rec))?,
                            None => self.set_record_owned(&mut rec),
                        }
                        self.set_global_raw(RT, Value::str(&rt));
                        Ok(Value::Num(1.0))
                    }
                    Ok(false) => Ok(Value::Num(0.0)),
                    Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => exhausted(),
                    Err(_) => Ok(Value::Num(-1.0)),
                }
            }
        }
    }
}
