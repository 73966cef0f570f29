//! `jq [options] FILTER [file...]`, as jq 1.6 answers: the jq language from the jaq crates
//! (`jaq-core`, `jaq-std`, `jaq-json`), with jq 1.6's own option parsing, JSON reader
//! ([`json::Parser`]: its parse errors and line counting), printer (its number format,
//! indentation, `-S -a -C`), error texts and exit statuses (5 for a runtime error, 3 for a
//! compile error, 2 for bad input or usage, `-e` 1/4). Everything is read through the sandbox:
//! inputs and `--slurpfile`/`--rawfile`/`-f` files through `ctx.fs`, `$ENV`/`env` from the
//! shell's exported variables, never the host's; `import`/`include` are refused; `debug`,
//! `stderr` and `halt_error` write to the command's stderr.
//!
//! Bounded: every call of a definition (the library's and the program's: every recursion,
//! `repeat`, `recurse`, `while`...) and every value of `range` goes through `_tm_poll`, which
//! looks at the line's deadline (and heap budget) and stops the filter quietly once it has
//! passed; an array built by `[f]` or a sum `l + r` holds at most the session's hold cap
//! (`jq: error (at ...): memory exhausted`, status 5), and so does an input value, a `-R` line or what `-s`
//! gathers (`jq: error (at NAME:LINE): memory exhausted`, status 2).

mod json;
mod rewrite;

use std::cell::RefCell;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::rc::Rc;

use jaq_core::load::parse::{BinaryOp, Def, Term};
use jaq_core::load::{Arena, File, Loader};
use jaq_core::native::{Fun, bome, v};
use jaq_core::{Bind, Compiler, DataT, Exn, Native, ValXs, Vars, data};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};

use crate::support::input::open_input;
use crate::text::lines::{EXHAUSTED, RecordError, read_held};
use crate::{Ctx, Outcome, Stop};
use json::{Dump, Parser};

const HELP: &str = include_str!("help.txt");
const USAGE_TAIL: &str = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n";

/// Definitions that make jaq answer as jq 1.6 (or keep it inside the sandbox).
const DEFS: &str = r#"
def tojson: _tm_tojson;
def tostring: if type == "string" then . else _tm_tojson end;
def @text: tostring;
def @json: tojson;
def env: $ENV;
def input_filename: _tm_input_filename;
def input_line_number: _tm_input_line_number;
def halt_error($exit_code): _tm_halt_print, halt($exit_code);
def halt_error: halt_error(5);
def localtime: gmtime;
def strflocaltime(f): strftime(f);
def now: _tm_now;
def ascii: [.] | implode;
def leaf_paths: paths(scalars);
def fromjson: _tm_fromjson;
def tonumber: if type == "number" then . elif type == "string" then _tm_fromjson else error("\(type) (\(tojson)) cannot be parsed as a number") end;
def input: _tm_input;
def limit($n; f): label $out | foreach f as $item (0; . + 1; $item, if . >= $n then break $out else empty end);
def @csv: if type != "array" then error("\(type) (\(tojson)) cannot be csv-formatted, only an array can be") else map(if type == "number" then tostring elif type == "string" then "\"" + (split("\"") | join("\"\"")) + "\"" elif type == "boolean" then tostring elif . == null then "" else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",") end;
def _tm_ixerr($k): error("Cannot index \(type) with \(if ($k | type) == "string" then "string \($k | tojson)" else ($k | type) end)");
def _tm_ix($k): if type == "object" and ($k | type) != "string" then _tm_ixerr($k) else .[$k] end;
def _tm_setpath($p; $v): if ($p | length) == 0 then $v else $p[0] as $k | (if . == null then (if ($k | type) == "string" then {} elif ($k | type) == "number" or ($k | type) == "object" then [] else . end) else . end) | if type == "object" and ($k | type) == "string" then .[$k] |= _tm_setpath($p[1:]; $v) elif type == "array" and ($k | type) == "number" then ($k | floor | tojson | fromjson) as $i | (if $i < 0 then $i + length else $i end) as $j | if $j < 0 then error("Out of bounds negative array index") else (if $j >= length then . + [range($j - length + 1) | null] else . end) | .[$j] |= _tm_setpath($p[1:]; $v) end elif type == "array" and ($k | type) == "object" then .[$k] |= _tm_setpath($p[1:]; $v) else _tm_ixerr($k) end end;
def _tm_delpath($p): if ($p | length) == 0 then null elif . == null then null else $p[0] as $k | if ($p | length) == 1 then (if type == "object" and ($k | type) == "string" then . as $o | reduce (keys_unsorted[] | select(. != $k)) as $x ({}; . + {($x): $o[$x]}) elif type == "array" and ($k | type) == "number" then ($k | floor | tojson | fromjson) as $i | (if $i < 0 then $i + length else $i end) as $j | if $j < 0 or $j >= length then . else .[:$j] + .[$j + 1:] end elif type == "array" and ($k | type) == "object" then (if $k.start == null then [] else .[:$k.start] end) + (if $k.end == null then [] else .[$k.end:] end) else _tm_ixerr($k) end) elif .[$k] == null then . else .[$k] |= _tm_delpath($p[1:]) end end;
def _tm_delpaths($ps): reduce ($ps | sort | reverse[]) as $p (.; _tm_delpath($p));
def _tm_modify_slow(paths; update): reduce path(paths) as $p (.; label $out | (_tm_setpath($p; getpath($p) | update) | ., break $out), _tm_delpaths([$p]));
def _tm_modify(paths; update): . as $__tm_in | try (paths |= ([limit(1; update)] | if length == 0 then error("") else .[0] end)) catch ($__tm_in | _tm_modify_slow(paths; update));
def _tm_assign(paths; value): value as $v | reduce path(paths) as $p (.; _tm_setpath($p; $v));
def setpath($p; $v): _tm_setpath($p; $v);
def delpaths($ps): _tm_delpaths($ps);
def del(f): _tm_delpaths([path(f)]);
def @tsv: if type != "array" then error("\(type) (\(tojson)) cannot be tsv-formatted, only an array can be") else map(if type == "string" then split("\\") | join("\\\\") | split("\t") | join("\\t") | split("\n") | join("\\n") | split("\r") | join("\\r") elif type == "number" or type == "boolean" then tostring elif . == null then "" else error("\(type) (\(tojson)) is not valid in a tsv row") end) | join("\t") end;
"#;

/// What the filter runs on.
struct Kind;

impl DataT for Kind {
    type V<'a> = Val;
    type Data<'a> = &'a Data<'a>;
}

/// Where reading is: jq's `(at NAME:LINE)`, and what `debug`/`stderr` print meanwhile.
#[derive(Default)]
struct Shared {
    /// The current input's name (`<stdin>` for stdin), once one is open.
    name: Option<String>,
    /// Lines read so far in the current input (jq counts `fgets` chunks holding a newline).
    line: u64,
    stderr: Vec<u8>,
    failures: u32,
}

struct Data<'a> {
    lut: &'a jaq_core::Lut<Kind>,
    inputs: Inputs<'a, Val>,
    shared: Rc<RefCell<Shared>>,
    now: f64,
    /// The most bytes an array built by `[f]` holds (the session's hold cap).
    hold: usize,
    /// Whether the line's deadline has passed (or its heap budget), looked at now.
    expired: &'a dyn Fn() -> bool,
    /// Steps counted by [`poll`], and whether the filter was stopped.
    ticks: std::cell::Cell<u32>,
    stopped: std::cell::Cell<bool>,
}

/// One step of the evaluation: every 1024th looks at the line's deadline. False once it has
/// passed: the filter stops ([`stop`]).
fn poll(data: &Data) -> bool {
    if data.stopped.get() {
        return false;
    }
    let t = data.ticks.get().wrapping_add(1);
    data.ticks.set(t);
    if t.is_multiple_of(1024) && (data.expired)() {
        data.stopped.set(true);
        return false;
    }
    true
}

/// What ends a filter whose line is out of time: a halt (no `try` catches it); the runtime
/// reports the deadline.
fn stop<'a, T: 'a>() -> Box<dyn Iterator<Item = Result<T, Exn<'a, Val>>> + 'a> {
    Box::new(std::iter::once(Err(Exn::halt(5))))
}

/// `_tm_poll`: the identity (for values, paths and updates) that polls ([`poll`]); every
/// definition's body starts with it ([`polled`]).
fn poll_fun() -> Fun<Kind> {
    let native = Native::new(|cv| {
        let data: &&Data = cv.0.data();
        if poll(data) { bome(Ok(cv.1)) } else { stop() }
    })
    .with_paths(|cv| {
        let data: &&Data = cv.0.data();
        if poll(data) {
            Box::new(std::iter::once(Ok(cv.1)))
        } else {
            stop()
        }
    })
    .with_update(|cv, f| {
        let data: &&Data = cv.0.data();
        if poll(data) { f(cv.1) } else { stop() }
    });
    ("_tm_poll", v(0), native)
}

/// A definition whose body starts with `_tm_poll |`, and so do the bodies of the
/// definitions its body starts with (the library's loops: `def repeat(f): def rec: ...`).
fn polled<S: From<&'static str>>(d: Def<S>) -> Def<S> {
    let body = match d.body {
        Term::Def(defs, t) => Term::Def(defs.into_iter().map(polled).collect(), t),
        body => body,
    };
    Def {
        name: d.name,
        args: d.args,
        body: Term::BinOp(
            Box::new(Term::Call("_tm_poll".into(), Vec::new())),
            BinaryOp::Pipe(None),
            Box::new(body),
        ),
    }
}

/// `range($from; $upto; $by)` as jq 1.6's (nothing when `$by` is 0), each value polled.
fn range<'a>(data: &'a Data<'a>, from: Val, upto: Val, by: Val) -> ValXs<'a, Val> {
    let dir = by.partial_cmp(&Val::from(0isize));
    let mut next = Some(from);
    Box::new(std::iter::from_fn(move || {
        let x = next.take()?;
        let more = match dir {
            Some(std::cmp::Ordering::Greater) => x < upto,
            Some(std::cmp::Ordering::Less) => x > upto,
            _ => false,
        };
        if !more {
            return None;
        }
        if !poll(data) {
            return Some(Err(Exn::halt(5)));
        }
        match x.clone() + by.clone() {
            Ok(n) => next = Some(n),
            Err(e) => return Some(Err(Exn::from(e))),
        }
        Some(Ok(x))
    }))
}

impl<'a> data::HasLut<'a, Kind> for &'a Data<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<Kind> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for &'a Data<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

fn shared_of(cv: &jaq_core::Cv<'_, Kind>) -> Rc<RefCell<Shared>> {
    cv.0.data().shared.clone()
}

fn empty<'a>() -> jaq_core::ValXs<'a, Val> {
    Box::new(std::iter::empty())
}

/// The native filters behind [`DEFS`].
fn own_funs() -> Vec<Fun<Kind>> {
    let run = jaq_core::native::run::<Kind>;
    let list: Vec<jaq_core::native::Filter<jaq_core::RunPtr<Kind>>> = vec![
        ("_tm_tojson", v(0), |cv| {
            bome(Ok(Val::utf8_str(json::compact(&cv.1).into_bytes())))
        }),
        ("_tm_input_filename", v(0), |cv| {
            let name = shared_of(&cv).borrow().name.clone();
            bome(Ok(match name {
                Some(n) => Val::utf8_str(n.into_bytes()),
                None => Val::Null,
            }))
        }),
        ("_tm_input_line_number", v(0), |cv| {
            let line = shared_of(&cv).borrow().line;
            bome(Ok(json::number(f64::from(
                u32::try_from(line).unwrap_or(u32::MAX),
            ))))
        }),
        ("debug_empty", v(0), |cv| {
            let msg = format!("[\"DEBUG:\",{}]\n", json::compact(&cv.1));
            shared_of(&cv)
                .borrow_mut()
                .stderr
                .extend_from_slice(msg.as_bytes());
            empty()
        }),
        ("stderr_empty", v(0), |cv| {
            let msg = json::compact(&cv.1);
            shared_of(&cv)
                .borrow_mut()
                .stderr
                .extend_from_slice(msg.as_bytes());
            empty()
        }),
        ("_tm_halt_print", v(0), |cv| {
            let msg = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => s.to_vec(),
                other => format!("{}\n", json::compact(other)).into_bytes(),
            };
            shared_of(&cv).borrow_mut().stderr.extend_from_slice(&msg);
            empty()
        }),
        ("_tm_fromjson", v(0), |cv| {
            let Val::TStr(text) = &cv.1 else {
                let msg = format!(
                    "{} ({}) cannot be parsed as JSON",
                    type_name(&cv.1),
                    json::compact(&cv.1)
                );
                return bome(Err(jaq_core::Error::str(msg)));
            };
            bome(json::parse_one_msg(text).map_err(|e| {
                jaq_core::Error::str(format!(
                    "{e} (while parsing '{}')",
                    String::from_utf8_lossy(text)
                ))
            }))
        }),
        ("_tm_input", v(0), |cv| {
            let mut inputs = cv.0.data().inputs;
            let next = inputs.next();
            bome(match next {
                Some(Ok(v)) => Ok(v),
                Some(Err(e)) => Err(jaq_core::Error::str(e)),
                None => Err(jaq_core::Error::str("break")),
            })
        }),
        ("_tm_now", v(0), |cv| {
            let now = cv.0.data().now;
            bome(Ok(Val::Num(jaq_json::Num::Float(now))))
        }),
        ("range", v(3), |mut cv| {
            let by = cv.0.pop_var();
            let upto = cv.0.pop_var();
            let from = cv.0.pop_var();
            range(cv.0.data(), from, upto, by)
        }),
        // `l + r` (see `rewrite`): a sum longer than the hold cap is refused.
        ("_tm_add", v(2), |mut cv| {
            let r = cv.0.pop_var();
            let l = cv.0.pop_var();
            let word = std::mem::size_of::<Val>();
            let size = |v: &Val| match v {
                Val::TStr(s) | Val::BStr(s) => s.len(),
                Val::Arr(a) => a.len().saturating_mul(word),
                Val::Obj(m) => m.len().saturating_mul(2 * word),
                _ => 0,
            };
            if size(&l).saturating_add(size(&r)) > cv.0.data().hold {
                return bome(Err(jaq_core::Error::str(EXHAUSTED)));
            }
            bome(l + r)
        }),
        // `[f]` (see `rewrite`): the array holds at most the hold cap.
        ("_tm_arr", [Bind::Fun(())].into(), |mut cv| {
            let (f, fc) = cv.0.pop_fun();
            let hold = cv.0.data().hold;
            let mut out = Vec::new();
            for x in f.run((fc, cv.1)) {
                match x {
                    Ok(x) => {
                        if (out.len() + 1).saturating_mul(std::mem::size_of::<Val>()) > hold
                            || out.try_reserve(1).is_err()
                        {
                            return bome(Err(jaq_core::Error::str(EXHAUSTED)));
                        }
                        out.push(x);
                    }
                    Err(e) => return Box::new(std::iter::once(Err(e))),
                }
            }
            bome(Ok(Val::Arr(out.into())))
        }),
    ];
    list.into_iter()
        .map(run)
        .chain(std::iter::once(poll_fun()))
        .collect()
}

/// jaq's and jaq-std's native filters, less those that would reach the host.
fn funs() -> impl Iterator<Item = Fun<Kind>> {
    let run = jaq_core::native::run::<Kind>;
    let input = jaq_std::input::funs::<Kind>()
        .into_vec()
        .into_iter()
        .map(run);
    jaq_core::funs::<Kind>()
        .chain(jaq_std::funs::<Kind>())
        .chain(jaq_json::funs::<Kind>())
        .filter(|(name, _, _): &(&str, _, Native<Kind>)| {
            !matches!(
                *name,
                "env" | "now" | "debug_empty" | "stderr_empty" | "range"
            )
        })
        .chain(input)
        .chain(own_funs())
}

/// The command line, as jq 1.6's `main` reads it.
#[derive(Default)]
struct Opts {
    program: Option<String>,
    from_file: bool,
    files: Vec<OsString>,
    named: Vec<(String, Val)>,
    positional: Vec<Val>,
    slurp: bool,
    raw_in: bool,
    raw_out: bool,
    join: bool,
    ascii: bool,
    null_input: bool,
    exit_status: bool,
    seq: bool,
    stream: bool,
    pretty: bool,
    dump: Dump,
}

enum ArgMode {
    Files,
    Strings,
    Json,
}

fn usage_error(msg: &str) -> Stop {
    let mut o = Outcome::status(2);
    o.err(format!("jq: {msg}\n{USAGE_TAIL}"));
    Stop::Done(o)
}

fn fail2(msg: &str) -> Stop {
    let mut o = Outcome::status(2);
    o.err(format!("jq: {msg}\n"));
    Stop::Done(o)
}

fn read_file(ctx: &Ctx, name: &str) -> Result<Vec<u8>, &'static str> {
    let mut r = open_input(ctx, name.as_ref()).map_err(|e| e.strerror())?;
    read_held(ctx, r.as_mut()).map_err(|e| match e {
        RecordError::TooLong => EXHAUSTED,
        RecordError::Io(e) => e.strerror(),
    })
}

fn string_val(s: &str) -> Val {
    Val::utf8_str(s.as_bytes().to_vec())
}

#[allow(clippy::too_many_lines)]
fn parse_opts(args: &[OsString], ctx: &Ctx) -> Result<Opts, Stop> {
    let mut o = Opts {
        pretty: true,
        dump: Dump {
            indent: 2,
            color: ctx.stdout_is_tty,
            ..Dump::default()
        },
        ..Opts::default()
    };
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut mode = ArgMode::Files;
    let mut args_done = false;
    let mut i = 0;
    while let Some(text) = args.get(i) {
        i += 1;
        let is_opt = !args_done && text.starts_with('-') && text != "-";
        if !is_opt {
            if o.program.is_none() {
                o.program = Some(text.clone());
            } else {
                match mode {
                    ArgMode::Files => o.files.push(text.into()),
                    ArgMode::Strings => o.positional.push(string_val(text)),
                    ArgMode::Json => match json::parse_one(text.as_bytes()) {
                        Some(v) => o.positional.push(v),
                        None => {
                            return Err(usage_error("Invalid JSON text passed to --jsonargs"));
                        }
                    },
                }
            }
            continue;
        }
        if text == "--" {
            args_done = true;
            continue;
        }
        let two = |i: usize, what: &str| -> Result<(String, String), Stop> {
            match (args.get(i), args.get(i + 1)) {
                (Some(a), Some(b)) => Ok((a.clone(), b.clone())),
                _ => Err(usage_error(&format!(
                    "{text} takes two parameters (e.g. {text} varname {what})"
                ))),
            }
        };
        if let Some(long) = text.strip_prefix("--") {
            match long {
                "slurp" => o.slurp = true,
                "raw-input" => o.raw_in = true,
                "raw-output" => o.raw_out = true,
                "join-output" => {
                    o.raw_out = true;
                    o.join = true;
                }
                "ascii-output" => o.ascii = true,
                "compact-output" => {
                    o.pretty = false;
                    o.dump.tab = false;
                }
                "null-input" => o.null_input = true,
                "exit-status" => o.exit_status = true,
                "sort-keys" => o.dump.sort = true,
                "color-output" => o.dump.color = true,
                "monochrome-output" => o.dump.color = false,
                "seq" => o.seq = true,
                "unbuffered" => {}
                "tab" => {
                    o.dump.tab = true;
                    o.pretty = true;
                }
                "indent" => {
                    let Some(n) = args.get(i) else {
                        return Err(usage_error("--indent takes one parameter"));
                    };
                    let n: i64 = n.trim().parse().unwrap_or(0);
                    if !(-1..=7).contains(&n) {
                        return Err(usage_error("--indent takes a number between -1 and 7"));
                    }
                    o.dump.tab = false;
                    o.dump.indent = usize::try_from(n).unwrap_or(0);
                    if n == 0 {
                        o.pretty = false;
                    }
                    i += 1;
                }
                "from-file" => o.from_file = true,
                "args" => mode = ArgMode::Strings,
                "jsonargs" => mode = ArgMode::Json,
                "arg" => {
                    let (name, value) = two(i, "value")?;
                    o.named.push((name, string_val(&value)));
                    i += 2;
                }
                "argjson" => {
                    let (name, value) = two(i, "text")?;
                    let Some(v) = json::parse_one(value.as_bytes()) else {
                        return Err(usage_error("invalid JSON text passed to --argjson"));
                    };
                    o.named.push((name, v));
                    i += 2;
                }
                "slurpfile" | "rawfile" => {
                    let (name, file) = two(i, "filename")?;
                    let bytes = read_file(ctx, &file).map_err(|e| {
                        fail2(&format!(
                            "Bad JSON in {text} {name} {file}: Could not open {file}: {e}"
                        ))
                    })?;
                    let v = if long == "rawfile" {
                        Val::utf8_str(String::from_utf8_lossy(&bytes).into_owned())
                    } else {
                        let vals = json::parse_all(&bytes).map_err(|e| {
                            fail2(&format!("Bad JSON in {text} {name} {file}: {e}"))
                        })?;
                        Val::Arr(vals.into())
                    };
                    o.named.push((name, v));
                    i += 2;
                }
                "help" => {
                    let mut out = Outcome::ok();
                    out.out(HELP);
                    return Err(Stop::Done(out));
                }
                "version" => {
                    let mut out = Outcome::ok();
                    out.out("jq-1.6\n");
                    return Err(Stop::Done(out));
                }
                "stream" => o.stream = true,
                _ => return Err(usage_error(&format!("Unknown option {text}"))),
            }
            continue;
        }
        for c in text.chars().skip(1) {
            match c {
                's' => o.slurp = true,
                'R' => o.raw_in = true,
                'r' => o.raw_out = true,
                'j' => {
                    o.raw_out = true;
                    o.join = true;
                }
                'a' => o.ascii = true,
                'c' => {
                    o.pretty = false;
                    o.dump.tab = false;
                }
                'n' => o.null_input = true,
                'e' => o.exit_status = true,
                'S' => o.dump.sort = true,
                'C' => o.dump.color = true,
                'M' => o.dump.color = false,
                'f' => o.from_file = true,
                'h' => {
                    let mut out = Outcome::ok();
                    out.out(HELP);
                    return Err(Stop::Done(out));
                }
                _ => return Err(usage_error(&format!("Unknown option {text}"))),
            }
        }
    }
    if !o.pretty {
        o.dump.indent = 0;
        o.dump.tab = false;
    }
    o.dump.ascii = o.ascii;
    Ok(o)
}

/// Reads the inputs as jq 1.6 does: `fgets`-sized chunks (a line, or 4095 bytes) through
/// one parser for all files; `-R` lines; `-s` everything into one array (or one string).
struct Reader<'a> {
    ctx: &'a Ctx<'a>,
    /// The most bytes of input held for one value (a `-R` line, all of `-s`).
    hold: usize,
    /// Bytes read since the last value was complete (all of them under `-s`).
    pending: usize,
    files: std::vec::IntoIter<OsString>,
    current: Option<BufReader<Box<dyn Read + 'a>>>,
    parser: Parser,
    queue: std::collections::VecDeque<Result<Val, String>>,
    raw: bool,
    slurp: bool,
    stream: bool,
    partial: Vec<u8>,
    slurped: Vec<Val>,
    finished: bool,
    shared: Rc<RefCell<Shared>>,
}

impl Reader<'_> {
    fn open_next(&mut self) -> bool {
        for name in self.files.by_ref() {
            match open_input(self.ctx, &name) {
                Ok(r) => {
                    let mut sh = self.shared.borrow_mut();
                    sh.name = Some(if name == "-" {
                        "<stdin>".to_owned()
                    } else {
                        name.to_string_lossy().into_owned()
                    });
                    sh.line = 0;
                    self.current = Some(BufReader::with_capacity(64 * 1024, r));
                    return true;
                }
                Err(e) => {
                    let mut sh = self.shared.borrow_mut();
                    sh.failures += 1;
                    let msg = format!(
                        "jq: error: Could not open file {}: {}\n",
                        name.to_string_lossy(),
                        e.strerror()
                    );
                    sh.stderr.extend_from_slice(msg.as_bytes());
                }
            }
        }
        false
    }

    /// One `fgets` chunk of the current input: `None` at its end.
    fn chunk(&mut self) -> Option<Vec<u8>> {
        let r = self.current.as_mut()?;
        let mut out = Vec::new();
        loop {
            let avail = match r.fill_buf() {
                Ok(b) => b,
                Err(e) => {
                    let mut sh = self.shared.borrow_mut();
                    sh.failures += 1;
                    let name = sh.name.clone().unwrap_or_default();
                    let msg = format!(
                        "jq: error: Could not read {name}: {}\n",
                        crate::FsError::from_io(&e).strerror()
                    );
                    sh.stderr.extend_from_slice(msg.as_bytes());
                    return (!out.is_empty()).then_some(out);
                }
            };
            if avail.is_empty() {
                return (!out.is_empty()).then_some(out);
            }
            let room = 4095 - out.len();
            let take = avail.len().min(room);
            let part = avail.get(..take).unwrap_or_default();
            let (n, nl) = match memchr::memchr(b'\n', part) {
                Some(p) => (p + 1, true),
                None => (take, false),
            };
            out.extend_from_slice(part.get(..n).unwrap_or_default());
            r.consume(n);
            if nl || out.len() >= 4095 {
                return Some(out);
            }
        }
    }

    fn fill(&mut self) {
        while self.queue.is_empty() && !self.finished {
            let chunk = loop {
                if self.current.is_none() && !self.open_next() {
                    break None;
                }
                match self.chunk() {
                    Some(c) => break Some(c),
                    None => self.current = None,
                }
            };
            let Some(chunk) = chunk else {
                self.finished = true;
                self.at_end();
                return;
            };
            if chunk.last() == Some(&b'\n') {
                self.shared.borrow_mut().line += 1;
            }
            self.pending = self.pending.saturating_add(chunk.len());
            if self.pending > self.hold {
                let mut sh = self.shared.borrow_mut();
                sh.failures += 1;
                let at = format!("{}:{}", sh.name.clone().unwrap_or_default(), sh.line);
                let msg = format!("jq: error (at {at}): {EXHAUSTED}\n");
                sh.stderr.extend_from_slice(msg.as_bytes());
                self.finished = true;
                return;
            }
            if self.raw {
                self.partial.extend_from_slice(&chunk);
                if !self.slurp && self.partial.last() == Some(&b'\n') {
                    self.partial.pop();
                    let line = std::mem::take(&mut self.partial);
                    self.pending = 0;
                    self.queue.push_back(Ok(Val::utf8_str(
                        String::from_utf8_lossy(&line).into_owned(),
                    )));
                }
            } else {
                let mut out = Vec::new();
                self.parser.feed(&chunk, &mut out);
                if !out.is_empty() && !self.slurp {
                    self.pending = 0;
                }
                self.take(out);
                if self.parser.failed() {
                    self.finished = true;
                }
            }
        }
    }

    fn take(&mut self, out: Vec<Result<Val, String>>) {
        for r in out {
            match r {
                Ok(v) if self.stream => {
                    let mut events = Vec::new();
                    stream_events(&v, &mut Vec::new(), &mut events);
                    for e in events {
                        if self.slurp {
                            self.slurped.push(e);
                        } else {
                            self.queue.push_back(Ok(e));
                        }
                    }
                }
                Ok(v) if self.slurp => self.slurped.push(v),
                other => self.queue.push_back(other),
            }
        }
    }

    fn at_end(&mut self) {
        if self.raw {
            let rest = std::mem::take(&mut self.partial);
            if self.slurp || !rest.is_empty() {
                self.queue.push_back(Ok(Val::utf8_str(
                    String::from_utf8_lossy(&rest).into_owned(),
                )));
            }
            return;
        }
        let mut out = Vec::new();
        self.parser.finish(&mut out);
        self.take(out);
        if self.slurp && !self.queue.iter().any(Result::is_err) {
            let all = std::mem::take(&mut self.slurped);
            self.queue.push_back(Ok(Val::Arr(all.into())));
        }
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<Val, String>;
    fn next(&mut self) -> Option<Self::Item> {
        self.fill();
        let next = self.queue.pop_front();
        if next.is_none() {
            self.shared.borrow_mut().name = None;
        }
        next
    }
}

/// The fuzz target's entry: any text as a jq program (compiled, never run: a program may
/// loop forever by design) and any bytes as JSON input (parsed as jq 1.6 does and printed
/// back). Returns how many bytes were printed; must never panic.
pub fn fuzz(program: &str, input: &[u8]) -> usize {
    let code = prepare(program);
    let compiled = usize::from(compile(&code, &["$ENV".to_owned()]).is_ok());
    let mut p = Parser::default();
    let mut out = Vec::new();
    p.feed(input, &mut out);
    p.finish(&mut out);
    let mut text = String::new();
    let dump = Dump {
        indent: 2,
        sort: true,
        ascii: true,
        color: true,
        ..Dump::default()
    };
    for v in out.into_iter().flatten() {
        dump.write(&mut text, &v, 0);
        let mut events = Vec::new();
        stream_events(&v, &mut Vec::new(), &mut events);
    }
    text.len() + compiled
}

/// `--stream`: a value as jq's `[path, leaf]` events, each container closed by
/// `[path-to-its-last-child]`.
fn stream_events(v: &Val, path: &mut Vec<Val>, out: &mut Vec<Val>) {
    let children: Vec<(Val, &Val)> = match v {
        Val::Arr(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| {
                (
                    json::number(f64::from(u32::try_from(i).unwrap_or(u32::MAX))),
                    x,
                )
            })
            .collect(),
        Val::Obj(m) => m.iter().map(|(k, x)| (k.clone(), x)).collect(),
        _ => Vec::new(),
    };
    if children.is_empty() {
        out.push(Val::Arr(
            vec![Val::Arr(path.clone().into()), v.clone()].into(),
        ));
        return;
    }
    let mut last = Val::Null;
    for (k, x) in children {
        path.push(k.clone());
        stream_events(x, path, out);
        path.pop();
        last = k;
    }
    let mut closing = path.clone();
    closing.push(last);
    out.push(Val::Arr(vec![Val::Arr(closing.into())].into()));
}

/// The program as jaq can take it: `$__loc__` spelled out, and `\uD83D\uDE00` surrogate
/// pairs (which jaq's lexer refuses) written as the character they encode.
fn prepare(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    let mut line = 1;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("$__loc__") {
            let _ = write!(out, "{{\"file\":\"<top-level>\",\"line\":{line}}}");
            rest = after;
            continue;
        }
        if c == '\\' {
            let hex = |s: &str| {
                let h = s.get(..4)?;
                u32::from_str_radix(h, 16)
                    .ok()
                    .filter(|_| h.bytes().all(|b| b.is_ascii_hexdigit()))
            };
            if let Some(r) = rest.get(1..)
                && let Some(r) = r.strip_prefix('u')
                && let Some(hi) = hex(r).filter(|h| (0xD800..0xDC00).contains(h))
                && let Some(r2) = r.get(4..).and_then(|x| x.strip_prefix("\\u"))
                && let Some(lo) = hex(r2).filter(|l| (0xDC00..0xE000).contains(l))
                && let Some(ch) = char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
            {
                out.push(ch);
                rest = r2.get(4..).unwrap_or_default();
                continue;
            }
            // An escaped character: copy it whole so that `\\u` stays as it is.
            let len = rest.chars().nth(1).map_or(0, char::len_utf8);
            out.push_str(rest.get(..1 + len).unwrap_or(rest));
            rest = rest.get(1 + len..).unwrap_or_default();
            continue;
        }
        if c == '\n' {
            line += 1;
        }
        out.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
    }
    out
}

/// jq's name of a value's type.
fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// A value as jq's error messages show it: compact, cut to 11 bytes and `...` past 14.
fn trunc(v: &Val) -> String {
    let s = json::compact(v);
    if s.len() > 14 {
        let mut end = 11;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", s.get(..end).unwrap_or_default())
    } else {
        s
    }
}

/// The two JSON values on either side of `sep` in `s`, at the first split where both parse.
fn split2(s: &str, sep: &str) -> Option<(Val, Val)> {
    s.match_indices(sep).find_map(|(i, _)| {
        let l = json::parse_one(s.get(..i)?.as_bytes())?;
        let r = json::parse_one(s.get(i + sep.len()..)?.as_bytes())?;
        Some((l, r))
    })
}

/// jq 1.6's text for a jaq runtime error.
fn jq_message(msg: &str) -> String {
    let ty = type_name;
    if let Some(rest) = msg.strip_prefix("cannot index ")
        && let Some((l, r)) = split2(rest, " with ")
    {
        let what = match &r {
            Val::TStr(_) => format!("string {}", json::compact(&r)),
            other => ty(other).to_owned(),
        };
        return format!("Cannot index {} with {what}", ty(&l));
    }
    if let Some(rest) = msg.strip_prefix("cannot use ")
        && let Some(v) = rest
            .strip_suffix(" as iterable (array or object)")
            .and_then(|s| json::parse_one(s.as_bytes()))
    {
        return format!("Cannot iterate over {} ({})", ty(&v), trunc(&v));
    }
    if let Some(v) = msg
        .strip_suffix(" has no length")
        .and_then(|s| json::parse_one(s.as_bytes()))
    {
        return format!("{} ({}) has no length", ty(&v), trunc(&v));
    }
    if let Some(rest) = msg.strip_prefix("cannot use ") {
        if let Some(v) = rest
            .strip_suffix(" as string")
            .and_then(|s| json::parse_one(s.as_bytes()))
        {
            return format!(
                "{} ({}) cannot be matched, as it is not a string",
                ty(&v),
                trunc(&v)
            );
        }
        if let Some(v) = rest
            .strip_suffix(" as array")
            .and_then(|s| json::parse_one(s.as_bytes()))
        {
            return format!(
                "{} ({}) cannot be sorted, as it is not an array",
                ty(&v),
                trunc(&v)
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("cannot calculate ") {
        for (op, verb) in [
            (" + ", "added"),
            (" - ", "subtracted"),
            (" * ", "multiplied"),
            (" / ", "divided"),
            (" % ", "divided"),
        ] {
            if let Some((l, r)) = split2(rest, op) {
                return format!(
                    "{} ({}) and {} ({}) cannot be {verb}",
                    ty(&l),
                    trunc(&l),
                    ty(&r),
                    trunc(&r)
                );
            }
        }
    }
    msg.to_owned()
}

/// `jq: error: MSG at <top-level>, line N:` with the line and jq's padding.
fn locate(code: &str, offset: usize, msg: &str) -> String {
    let before = code.get(..offset).unwrap_or(code);
    let line_no = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    let line = code
        .get(start..)
        .unwrap_or_default()
        .split('\n')
        .next()
        .unwrap_or_default();
    format!(
        "jq: error: {msg} at <top-level>, line {line_no}:\n{line}{}\n",
        " ".repeat(offset - start.min(offset))
    )
}

fn compile_errors_text(errs: &[String]) -> String {
    let n = errs.len();
    let mut s: String = errs.concat();
    let _ = writeln!(s, "jq: {n} compile error{}", if n == 1 { "" } else { "s" });
    s
}

fn offset_in(code: &str, part: &str) -> usize {
    let (w, p) = (code.as_ptr() as usize, part.as_ptr() as usize);
    if p >= w && p + part.len() <= w + code.len() {
        p - w
    } else {
        0
    }
}

/// Compiles the program, or jq's compile-error text: the program as written answers the
/// compile errors, then its update operators are rewritten to jq 1.6's (see [`rewrite`]).
fn compile(code: &str, globals: &[String]) -> Result<jaq_core::Filter<Kind>, String> {
    let plain = compile_text(code, globals)?;
    Ok(rewrite::rewrite(code)
        .and_then(|text| compile_text(&text, globals).ok())
        .unwrap_or(plain))
}

fn compile_text(code: &str, globals: &[String]) -> Result<jaq_core::Filter<Kind>, String> {
    // jaq's parser recurses per nesting level: refuse what could exhaust the stack.
    let mut depth = 0usize;
    for (i, b) in code.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > 256 {
            return Err(compile_errors_text(&[locate(
                code,
                i,
                "program nested too deeply",
            )]));
        }
    }
    let arena = Arena::default();
    let own = jaq_core::load::parse(DEFS, |p| p.defs()).unwrap_or_default();
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(own)
        .map(polled);
    let loader = Loader::new(defs);
    let modules = loader
        .load(&arena, File { code, path: () })
        .map_err(|errs| {
            let mut msgs = Vec::new();
            for (_file, e) in errs {
                match e {
                    jaq_core::load::Error::Io(v) => {
                        for (path, _) in v {
                            msgs.push(locate(
                                code,
                                offset_in(code, path),
                                &format!("module not found: {path}"),
                            ));
                        }
                    }
                    jaq_core::load::Error::Lex(v) => {
                        for (_exp, found) in v {
                            msgs.push(syntax(code, found));
                        }
                    }
                    jaq_core::load::Error::Parse(v) => {
                        for (_exp, found) in v {
                            msgs.push(syntax(code, found));
                        }
                    }
                }
            }
            compile_errors_text(&msgs)
        })?;
    Compiler::default()
        .with_funs(funs())
        .with_global_vars(globals.iter().map(String::as_str))
        .compile(modules)
        .map_err(|errs| {
            let mut msgs = Vec::new();
            for (_file, list) in errs {
                for (name, undef) in list {
                    let what = match undef {
                        jaq_core::compile::Undefined::Filter(arity) => {
                            format!("{name}/{arity} is not defined")
                        }
                        jaq_core::compile::Undefined::Var => {
                            let n = name.trim_start_matches('$');
                            format!("${n} is not defined")
                        }
                        other => format!("{} {name} is not defined", other.as_str()),
                    };
                    msgs.push(locate(code, offset_in(code, name), &what));
                }
            }
            compile_errors_text(&msgs)
        })
}

fn syntax(code: &str, found: &str) -> String {
    let tok = match found.chars().next() {
        None => "$end".to_owned(),
        Some(c) if c.is_ascii_punctuation() && c != '$' && c != '"' => format!("'{c}'"),
        Some('"') => "QQSTRING_START".to_owned(),
        Some(c) if c.is_ascii_digit() => "LITERAL".to_owned(),
        Some(_) => "IDENT".to_owned(),
    };
    let offset = if found.is_empty() {
        code.len()
    } else {
        offset_in(code, found)
    };
    locate(
        code,
        offset,
        &format!("syntax error, unexpected {tok} (Unix shell quoting issues?)"),
    )
}

fn env_object(ctx: &Ctx) -> Val {
    let mut m = jaq_json::Map::default();
    for (name, var) in ctx.vars.iter() {
        if var.exported
            && let Some(value) = var.scalar()
        {
            m.insert(string_val(name), string_val(value));
        }
    }
    Val::obj(m)
}

#[allow(clippy::too_many_lines)]
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut opts = parse_opts(args, ctx)?;
    let code = if opts.from_file {
        // `-f FILE`: the first operand is the program's file; the filter text, if any,
        // becomes an input file.
        let Some(file) = opts.program.take() else {
            return Err(usage_error("-f takes a parameter (e.g. -f file)"));
        };
        match read_file(ctx, &file) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => return Err(fail2(&format!("Could not open {file}: {e}"))),
        }
    } else {
        opts.program.clone().unwrap_or_else(|| ".".to_owned())
    };
    let mut globals: Vec<String> = vec!["$ENV".to_owned(), "$__prog_args".to_owned()];
    let mut values: Vec<Val> = vec![env_object(ctx), Val::Null];
    let mut named = jaq_json::Map::default();
    for (name, v) in &opts.named {
        globals.push(format!("${name}"));
        values.push(v.clone());
        named.insert(string_val(name), v.clone());
    }
    let mut args_obj = jaq_json::Map::default();
    args_obj.insert(
        string_val("positional"),
        Val::Arr(opts.positional.clone().into()),
    );
    args_obj.insert(string_val("named"), Val::obj(named));
    globals.push("$ARGS".to_owned());
    values.push(Val::obj(args_obj));

    let code = prepare(&code);
    let filter = match compile(&code, &globals) {
        Ok(f) => f,
        Err(text) => {
            let mut o = Outcome::status(3);
            o.err(text);
            return Ok(o);
        }
    };

    let shared = Rc::new(RefCell::new(Shared::default()));
    let files = if opts.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        std::mem::take(&mut opts.files)
    };
    let hold = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let reader = Reader {
        ctx,
        hold,
        pending: 0,
        files: files.into_iter(),
        current: None,
        parser: Parser::default(),
        queue: std::collections::VecDeque::new(),
        raw: opts.raw_in,
        slurp: opts.slurp,
        stream: opts.stream,
        partial: Vec::new(),
        slurped: Vec::new(),
        finished: false,
        shared: shared.clone(),
    };
    let boxed: Box<dyn Iterator<Item = Result<Val, String>> + '_> = Box::new(reader);
    let inputs = RcIter::new(boxed);
    let now = ctx
        .now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let expired = || ctx.expired();
    let data = Data {
        lut: &filter.lut,
        inputs: &inputs,
        shared: shared.clone(),
        now,
        hold,
        expired: &expired,
        ticks: std::cell::Cell::new(0),
        stopped: std::cell::Cell::new(false),
    };
    let jctx = jaq_core::Ctx::<Kind>::new(&data, Vars::new(values));

    let mut o = Outcome::ok();
    let mut ret = 0;
    let halted: std::cell::Cell<Option<i32>> = std::cell::Cell::new(None);
    let stopped = std::cell::Cell::new(false);
    let drain = |o: &mut Outcome| {
        let mut sh = shared.borrow_mut();
        if !sh.stderr.is_empty() {
            o.err(std::mem::take(&mut sh.stderr));
        }
    };
    let position = || {
        let sh = shared.borrow();
        match &sh.name {
            Some(n) => format!("{n}:{}", sh.line),
            None => "<unknown>".to_owned(),
        }
    };
    let process = |v: Val, o: &mut Outcome| -> i32 {
        let mut r = 14;
        let mut text = String::new();
        for out in filter.id.run((jctx.clone(), v)) {
            match out {
                Ok(val) => {
                    text.clear();
                    match &val {
                        Val::TStr(s) | Val::BStr(s) if opts.raw_out => {
                            if opts.ascii {
                                json::write_string(&mut text, s, true);
                            } else {
                                drain(o);
                                o.out(&s[..]);
                            }
                            r = 0;
                        }
                        _ => {
                            r = if matches!(val, Val::Null | Val::Bool(false)) {
                                11
                            } else {
                                0
                            };
                            drain(o);
                            if opts.seq {
                                text.push('\x1e');
                            }
                            opts.dump
                                .write_with(&mut text, &val, 0, &mut |t: &mut String| {
                                    o.out(t.as_bytes());
                                    t.clear();
                                    ctx.flush(o);
                                });
                        }
                    }
                    if !opts.join {
                        text.push('\n');
                    }
                    drain(o);
                    o.out(text.as_bytes());
                    if !ctx.flush(o) {
                        stopped.set(true);
                        return r;
                    }
                }
                Err(exn) => {
                    drain(o);
                    match exn.get_err() {
                        Ok(e) => {
                            let val = e.into_val();
                            match val {
                                Val::Null => {}
                                Val::TStr(s) => {
                                    let msg = jq_message(&String::from_utf8_lossy(&s));
                                    o.err(format!("jq: error (at {}): {msg}\n", position()));
                                    r = 5;
                                }
                                other => {
                                    o.err(format!(
                                        "jq: error (at {}) (not a string): {}\n",
                                        position(),
                                        json::compact(&other)
                                    ));
                                    r = 5;
                                }
                            }
                        }
                        Err(exn) => {
                            if let Ok(code) = exn.get_halt() {
                                halted.set(Some(code));
                            }
                        }
                    }
                    return r;
                }
            }
        }
        drain(o);
        r
    };
    if opts.null_input {
        ret = process(Val::Null, &mut o);
    } else {
        while shared.borrow().failures == 0
            && let Some(item) = (&inputs).next()
        {
            match item {
                Ok(v) => {
                    ret = process(v, &mut o);
                    if stopped.get() || halted.get().is_some() {
                        break;
                    }
                }
                Err(msg) => {
                    drain(&mut o);
                    if opts.seq {
                        o.err(format!("ignoring parse error: {msg}\n"));
                        continue;
                    }
                    ret = 4;
                    o.err(format!("parse error: {msg}\n"));
                    break;
                }
            }
        }
    }
    drain(&mut o);
    if let Some(code) = halted.get() {
        return Ok(o.with_status(code));
    }
    if shared.borrow().failures > 0 {
        ret = 2;
    }
    if ret >= 10 {
        ret = if opts.exit_status { ret - 10 } else { 0 };
    }
    Ok(o.with_status(ret))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn jq(w: &World, args: &[&str], stdin: &str) -> (String, String, i32) {
        let stdin = crate::Stdin::bytes(stdin.as_bytes().to_vec());
        text(&w.run_on(crate::CommandName::Jq, args, &stdin))
    }

    #[test]
    fn pretty_prints_as_jq_1_6() {
        // Expected outputs from jq 1.6.
        let w = World::new(texts());
        assert_eq!(
            jq(&w, &["."], "{\"a\":[1,2.0],\"b\":{}}"),
            (
                "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}\n".into(),
                String::new(),
                0
            )
        );
        assert_eq!(
            jq(&w, &["-c", ".a"], "{\"a\":[1e1000]}").0,
            "[1.7976931348623157e+308]\n"
        );
        assert_eq!(jq(&w, &["-r", ".[]"], "[\"x\",1]").0, "x\n1\n");
    }

    #[test]
    fn env_files_and_limits() {
        // $ENV holds the shell's exported variables only; files come through the view.
        let w = World::new(texts())
            .var("SHOWN", "yes", true)
            .var("HIDDEN", "no", false);
        assert_eq!(
            jq(&w, &["-n", "-c", "[$ENV.SHOWN, env.HIDDEN]"], "").0,
            "[\"yes\",null]\n"
        );
        assert_eq!(
            jq(&w, &["-R", "-c", "[., input_filename]", "colon.txt"], "")
                .0
                .lines()
                .next(),
            Some("[\"a:b:c\",\"colon.txt\"]")
        );
        assert_eq!(
            jq(&w, &["--rawfile", "v", "/etc/passwd", "-n", "$v"], ""),
            (
                String::new(),
                "jq: Bad JSON in --rawfile v /etc/passwd: Could not open /etc/passwd: No such file or directory\n".into(),
                2
            )
        );
        assert_eq!(
            jq(&w, &["-c", "--stream", "."], "[[]]").0,
            "[[0],[]]\n[[0]]\n"
        );
        let deep = "[".repeat(300);
        assert_eq!(jq(&w, &["-n", &deep], "").2, 3);
        let deep_json = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert_eq!(
            jq(&w, &["."], &deep_json).1,
            "parse error: Exceeds depth limit for parsing at line 1, column 257\n"
        );
    }

    #[test]
    fn errors_and_statuses() {
        let w = World::new(texts());
        assert_eq!(
            jq(&w, &[".a"], "1\n2\n"),
            (
                String::new(),
                "jq: error (at <stdin>:1): Cannot index number with string \"a\"\njq: error (at <stdin>:2): Cannot index number with string \"a\"\n".into(),
                5
            )
        );
        assert_eq!(
            jq(&w, &["."], "[1 2]").1,
            "parse error: Expected separator between values at line 1, column 5\n"
        );
        assert_eq!(jq(&w, &["-e", ".a"], "{}").2, 1);
        assert_eq!(jq(&w, &["-e", "empty"], "{}").2, 4);
        assert_eq!(jq(&w, &["-n", "$y"], "").2, 3);
        assert_eq!(
            jq(&w, &["-n", "{} + 1"], "").1,
            "jq: error (at <unknown>): object ({}) and number (1) cannot be added\n"
        );
    }
}
