//! Parameter expansion, `${...}` in all its forms, as bash 5.2 does it in the C locale:
//! the value (`${X}`, `${!X}` indirection, `$@` and `$*` as lists), then the operator —
//! `:-` `:=` `:+` `:?`, `#` `##` `%` `%%`, `/` `//` `/#` `/%`, `:offset:length`, `^` `^^` `,`
//! `,,`, `@Q` and the other transformations — and `${!prefix*}`.
//!
//! The operators that transform a value work on one string at a time ([`Op::apply`]), so that
//! a list (`$@`, `$*`, later `${a[@]}`) is transformed item by item as bash does; the
//! operator's words (patterns, the replacement string) are expanded once, before. Values are
//! bytes: in the C locale one byte is one character (offsets, `?`, case changes on ASCII only).
//!
//! Differences from bash, by design or not yet done:
//! - `${X@P}` decodes the prompt escapes that do not depend on time, jobs or history
//!   (`\u \h \H \w \W \s \v \V \$ \n \r \a \e \\ \[ \] \NNN`); `\d \t \T \@ \A \D{...} \j \l
//!   \# \!` are kept as written, and the result is not expanded again for `$` and `` ` ``
//!   (bash's `promptvars`).
//! - `${!prefix*}` lists the shell's own variables; bash also lists its many internal ones
//!   (`BASHOPTS`, `BASH_ALIASES`, `EPOCHSECONDS`, ...) that trumansh does not have.
//! - `${X@a}`/`${X@A}` know only the export attribute (trumansh has no `declare -i`, `-r`, ...).
#![deny(clippy::indexing_slicing)]

use super::glob::PatByte;
use super::pattern::{Pattern, Syntax};
use super::{
    Ch, ExpandError, Expander, Q, SPLIT, all_subscript, display_part, expand_pattern,
    expand_word_nosplit, push_bytes, valid_param_name,
};
use crate::shell::ast::{Anchor, ParamExp, ParamOp, Word, WordPart};
use crate::shell::{is_name_char, is_name_start};

/// How big one expansion's result may grow (`${X//?/$X}` squares its length): bash would
/// try and exhaust the memory; trumansh fails the command.
const MAX_RESULT: usize = 64 << 20;

/// The value of a parameter, before its operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    Unset,
    One(Vec<u8>),
    /// `$@` (`star`: `$*`): its items, transformed one by one and joined (or kept apart) when
    /// emitted.
    List {
        items: Vec<Vec<u8>>,
        star: bool,
    },
}

impl Value {
    fn is_set(&self) -> bool {
        match self {
            Value::Unset => false,
            Value::One(_) => true,
            Value::List { items, .. } => !items.is_empty(),
        }
    }

    /// Applies `f` to the value or to each item.
    fn map(self, mut f: impl FnMut(&[u8]) -> Vec<u8>) -> Value {
        match self {
            Value::Unset => Value::Unset,
            Value::One(v) => Value::One(f(&v)),
            Value::List { items, star } => Value::List {
                items: items.iter().map(|i| f(i)).collect(),
                star,
            },
        }
    }

    /// Applies `f`, which gives `None` past [`MAX_RESULT`] bytes; so does the whole.
    fn try_map(self, mut f: impl FnMut(&[u8]) -> Option<Vec<u8>>) -> Result<Value, ExpandError> {
        let mut total = 0usize;
        let mut g = |v: &[u8]| {
            let r = f(v).filter(|r| r.len() <= MAX_RESULT.saturating_sub(total));
            total += r.as_ref().map_or(0, Vec::len);
            r
        };
        let too_big =
            || ExpandError::plain(format!("parameter expansion: more than {MAX_RESULT} bytes"));
        Ok(match self {
            Value::Unset => Value::Unset,
            Value::One(v) => Value::One(g(&v).ok_or_else(too_big)?),
            Value::List { items, star } => Value::List {
                items: items
                    .iter()
                    .map(|i| g(i))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(too_big)?,
                star,
            },
        })
    }
}

/// A parameter after indirection: the name to show in messages (`!X`), the name whose value
/// it is, and the value.
struct Resolved {
    shown: String,
    target: String,
    value: Value,
}

/// Whether `name` is an identifier (a variable, not a positional or special parameter).
fn is_identifier(name: &str) -> bool {
    let b = name.as_bytes();
    b.first().is_some_and(|&c| is_name_start(c)) && b.iter().all(|&c| is_name_char(c))
}

/// Whether `set -u` makes an unset parameter an error for this expansion (bash: the plain
/// form, the length, and every operator but `-` `=` `+` `?`).
fn unset_is_error(p: &ParamExp) -> bool {
    match &p.op {
        None => true,
        Some((op, _)) => !matches!(
            op,
            ParamOp::Default { .. }
                | ParamOp::Assign { .. }
                | ParamOp::Alternative { .. }
                | ParamOp::Error { .. }
                | ParamOp::Names { .. }
        ),
    }
}

/// `"${@...}"` and `"${!prefix@}"` with nothing to give make no field at all, as `"$@"`.
pub(super) fn is_at_list(p: &ParamExp) -> bool {
    let all = p
        .index
        .as_ref()
        .is_some_and(|s| all_subscript(s) == Some(false));
    !p.length
        && (all
            || !p.indirect
                && (p.name == "@" || matches!(p.op, Some((ParamOp::Names { at: true }, _)))))
}

/// `${X@op}` with an operator that is not one (found as it runs): ends a non-interactive
/// shell, as bash's.
fn bad_substitution(p: &ParamExp) -> ExpandError {
    let mut text = Vec::new();
    display_part(&WordPart::Param(p.clone()), &mut text);
    ExpandError::exits(format!(
        "{}: bad substitution",
        String::from_utf8_lossy(&text)
    ))
}

impl Expander<'_, '_> {
    /// Expands `${...}` (or `$X`) into `out`. `quoted`: inside `"..."`.
    pub(super) fn param(
        &mut self,
        p: &ParamExp,
        quoted: bool,
        out: &mut Vec<Ch>,
    ) -> Result<(), ExpandError> {
        let name = p.name.as_str();
        if !valid_param_name(name) {
            return Err(ExpandError::fatal(format!("${{{name}}}: bad substitution")));
        }
        if let Some((ParamOp::Names { at }, _)) = &p.op {
            let items = self
                .ctx
                .host
                .names_with_prefix(name)
                .into_iter()
                .map(String::into_bytes)
                .collect();
            self.emit(Value::List { items, star: !at }, quoted, out);
            return Ok(());
        }
        let res = self.resolve(p)?;
        if !res.value.is_set()
            && unset_is_error(p)
            && !matches!(res.target.as_str(), "@" | "*")
            && self.ctx.host.nounset()
        {
            let all = p.index.as_ref().and_then(all_subscript).is_some();
            match (p.length, &p.index) {
                // `${X[@]}` of an unset array is nothing, as `$@` (bash 5.2).
                (false, Some(_)) if all => {}
                // `${#X[@]}`, `${#X[1]}`: named without the subscript; the line ends.
                (true, Some(_)) => {
                    return Err(ExpandError::fatal(format!("{}: unbound variable", p.name)));
                }
                _ => {
                    return Err(ExpandError::exits(format!(
                        "{}: unbound variable",
                        res.shown
                    )));
                }
            }
        }
        let flag = if quoted { Q } else { SPLIT };
        if p.length {
            let len = match &res.value {
                Value::Unset => 0,
                Value::One(v) => v.len(),
                Value::List { items, .. } => items.len(),
            };
            push_bytes(out, len.to_string().as_bytes(), flag);
            return Ok(());
        }
        let Some((op, word)) = &p.op else {
            self.emit(res.value, quoted, out);
            return Ok(());
        };
        let missing = |colon: bool| !res.value.is_set() || (colon && self.is_null(&res.value));
        match op {
            &ParamOp::Default { colon } => {
                if missing(colon) {
                    if quoted {
                        out.push(Ch::mark());
                    }
                    self.op_word(word, quoted, out)?;
                } else {
                    self.emit(res.value, quoted, out);
                }
            }
            &ParamOp::Alternative { colon } => {
                if missing(colon) {
                    // What is there (nothing, or `"$@"`'s one empty item) stays.
                    self.emit(res.value, quoted, out);
                } else {
                    if quoted {
                        out.push(Ch::mark());
                    }
                    self.op_word(word, quoted, out)?;
                }
            }
            &ParamOp::Assign { colon } => {
                if missing(colon) {
                    let target = if res.target.is_empty() {
                        name
                    } else {
                        &res.target
                    };
                    if !is_identifier(target) {
                        return Err(ExpandError::fatal(format!(
                            "${target}: cannot assign in this way"
                        )));
                    }
                    let v = self.op_word_string(word)?;
                    let v = String::from_utf8_lossy(&v).into_owned();
                    if quoted {
                        out.push(Ch::mark());
                    }
                    push_bytes(out, v.as_bytes(), flag);
                    self.ctx
                        .host
                        .assign(target, v)
                        .map_err(ExpandError::fatal)?;
                } else {
                    self.emit(res.value, quoted, out);
                }
            }
            &ParamOp::Error { colon } => {
                if missing(colon) {
                    let msg = self.op_word_string(word)?;
                    let msg = if msg.is_empty() && word.parts.is_empty() {
                        if colon {
                            "parameter null or not set".to_string()
                        } else {
                            "parameter not set".to_string()
                        }
                    } else {
                        String::from_utf8_lossy(&msg).into_owned()
                    };
                    return Err(ExpandError::exits(format!("{}: {msg}", res.shown)));
                }
                self.emit(res.value, quoted, out);
            }
            ParamOp::Substring { length } => {
                let v = self.substring(&res, word, length.as_ref())?;
                self.emit(v, quoted, out);
            }
            ParamOp::Transform(c) => {
                let v = self.transform(p, &res, *c, word, quoted)?;
                self.emit(v, quoted, out);
            }
            ParamOp::RemovePrefix { .. }
            | ParamOp::RemoveSuffix { .. }
            | ParamOp::Replace { .. }
            | ParamOp::Case { .. } => {
                let v = match res.value {
                    Value::Unset => Value::Unset,
                    value => {
                        // bash leaves an empty value alone without expanding the pattern.
                        let skip = matches!(
                            op,
                            ParamOp::RemovePrefix { .. } | ParamOp::RemoveSuffix { .. }
                        ) && (word.parts.is_empty() || self.is_null(&value));
                        if skip {
                            value
                        } else {
                            let prepared = self.prepare(op, word)?;
                            value.try_map(|v| prepared.apply(v))?
                        }
                    }
                };
                self.emit(v, quoted, out);
            }
            ParamOp::Names { .. } => {}
        }
        Ok(())
    }

    /// The parameter's value, through `${!X}`'s indirection; `${a[i]}` an element,
    /// `${a[@]}` the elements, `${!a[@]}` the subscripts.
    fn resolve(&mut self, p: &ParamExp) -> Result<Resolved, ExpandError> {
        let name = p.name.as_str();
        if let Some(sub) = &p.index {
            let mut shown_sub = Vec::new();
            for part in &sub.parts {
                display_part(part, &mut shown_sub);
            }
            let shown = format!("{name}[{}]", String::from_utf8_lossy(&shown_sub));
            let to_bytes = |v: Vec<String>| v.into_iter().map(String::into_bytes).collect();
            let value = match all_subscript(sub) {
                Some(star) if p.indirect => Value::List {
                    items: to_bytes(self.ctx.host.keys(name)),
                    star,
                },
                Some(star) => Value::List {
                    items: to_bytes(self.ctx.host.elements(name)),
                    star,
                },
                None => {
                    let text = expand_word_nosplit(sub, self.ctx)?;
                    self.ctx
                        .host
                        .element(name, &String::from_utf8_lossy(&text))?
                        .map_or(Value::Unset, |v| Value::One(v.into_bytes()))
                }
            };
            return Ok(Resolved {
                target: shown.clone(),
                shown,
                value,
            });
        }
        if !p.indirect {
            return Ok(Resolved {
                shown: name.to_string(),
                target: name.to_string(),
                value: self.value_of(name),
            });
        }
        let shown = format!("!{name}");
        let reference = match name {
            "@" | "*" => self.param_value(name),
            n => self.lookup(n),
        };
        match reference {
            None if is_identifier(name) => Err(ExpandError::fatal(format!(
                "{name}: invalid indirect expansion"
            ))),
            None => Ok(Resolved {
                shown,
                target: String::new(),
                value: Value::Unset,
            }),
            Some(t) => {
                // `r='a[1]'; ${!r}`: an element (`a[@]`, `a[*]`: every element).
                let element = t
                    .strip_suffix(']')
                    .and_then(|s| s.split_once('['))
                    .filter(|(n, _)| is_identifier(n));
                let Some((array, sub)) = element else {
                    if !valid_param_name(&t) {
                        return Err(ExpandError::fatal(format!("{t}: invalid variable name")));
                    }
                    return Ok(Resolved {
                        shown,
                        value: self.value_of(&t),
                        target: t,
                    });
                };
                let value = match sub {
                    "@" | "*" => Value::List {
                        items: self
                            .ctx
                            .host
                            .elements(array)
                            .into_iter()
                            .map(String::into_bytes)
                            .collect(),
                        star: sub == "*",
                    },
                    _ => self
                        .ctx
                        .host
                        .element(array, sub)?
                        .map_or(Value::Unset, |v| Value::One(v.into_bytes())),
                };
                Ok(Resolved {
                    shown,
                    value,
                    target: t.clone(),
                })
            }
        }
    }

    /// A parameter's value: `$@` and `$*` as lists of the positional parameters.
    fn value_of(&self, name: &str) -> Value {
        match name {
            "@" | "*" => Value::List {
                items: self
                    .ctx
                    .host
                    .positional()
                    .into_iter()
                    .map(String::into_bytes)
                    .collect(),
                star: name == "*",
            },
            n => self
                .ctx
                .host
                .param(n)
                .map_or(Value::Unset, |v| Value::One(v.into_bytes())),
        }
    }

    /// What joins the items of `"$*"`: the first character of `IFS` (a blank when unset).
    fn star_sep(&self) -> Vec<u8> {
        match self.lookup("IFS") {
            Some(ifs) => ifs
                .chars()
                .next()
                .map(|c| c.to_string().into_bytes())
                .unwrap_or_default(),
            None => b" ".to_vec(),
        }
    }

    /// Whether the value is null (empty; a list when its items joined are).
    fn is_null(&self, value: &Value) -> bool {
        match value {
            Value::Unset => true,
            Value::One(v) => v.is_empty(),
            Value::List { items, star } => {
                let sep_len = if *star { self.star_sep().len() } else { 1 };
                items.iter().all(Vec::is_empty) && (items.len() <= 1 || sep_len == 0)
            }
        }
    }

    /// Emits a value: a list as `"$@"` does (one field per item when quoted), `"$*"` joined.
    pub(super) fn emit(&self, value: Value, quoted: bool, out: &mut Vec<Ch>) {
        let f = if quoted { Q } else { SPLIT };
        match value {
            Value::Unset => {}
            Value::One(v) => push_bytes(out, &v, f),
            Value::List { items, star: true } if quoted => {
                let sep = self.star_sep();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        push_bytes(out, &sep, f);
                    }
                    push_bytes(out, item, f);
                }
            }
            Value::List { items, .. } => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(Ch::brk());
                    }
                    if quoted {
                        out.push(Ch::mark());
                    }
                    push_bytes(out, item, f);
                }
            }
        }
    }

    /// Expands the word of an operator as a pattern: quoted bytes literal, the unquoted ones
    /// (variables' values included) special, tilde at the start.
    fn pattern(&mut self, word: &Word) -> Result<Vec<PatByte>, ExpandError> {
        Ok(expand_pattern(word, self.ctx)?.0)
    }

    /// Expands the words of a value-transforming operator, once for all the items.
    fn prepare(&mut self, op: &ParamOp, word: &Word) -> Result<Op, ExpandError> {
        Ok(match op {
            &ParamOp::RemovePrefix { longest } | &ParamOp::RemoveSuffix { longest } => {
                let pat = self.pattern(word)?;
                Op::Remove {
                    matcher: Matcher::new(&pat, self.ctx.extglob),
                    prefix: matches!(op, ParamOp::RemovePrefix { .. }),
                    longest,
                }
            }
            ParamOp::Replace { all, anchor, rep } => {
                let mut pat = self.pattern(word)?;
                let rep = match rep {
                    Some(w) if !w.parts.is_empty() => Some(Replacement::new(&self.pattern(w)?)),
                    _ => None,
                };
                // A pattern that starts with an unquoted `#` or `%` once expanded is anchored
                // (bash looks at the expanded text), except with `//`.
                let mut anchor = *anchor;
                if !*all && anchor == Anchor::None {
                    match pat.first() {
                        Some(PatByte {
                            b: b'#',
                            quoted: false,
                        }) => anchor = Anchor::Start,
                        Some(PatByte {
                            b: b'%',
                            quoted: false,
                        }) => anchor = Anchor::End,
                        _ => {}
                    }
                    if anchor != Anchor::None {
                        pat.remove(0);
                    }
                }
                Op::Replace {
                    empty: pat.is_empty(),
                    matcher: Matcher::new(&pat, self.ctx.extglob),
                    anchor,
                    all: *all,
                    rep,
                }
            }
            &ParamOp::Case { upper, all, toggle } => {
                let pat = if word.parts.is_empty() {
                    Vec::new()
                } else {
                    self.pattern(word)?
                };
                Op::Case {
                    matcher: (!pat.is_empty()).then(|| Matcher::new(&pat, self.ctx.extglob)),
                    to: if toggle {
                        CaseTo::Toggle
                    } else if upper {
                        CaseTo::Upper
                    } else {
                        CaseTo::Lower
                    },
                    all,
                }
            }
            _ => Op::Keep,
        })
    }

    /// Evaluates the offset or length of `${X:offset:length}`. bash's messages name the
    /// parameter: `X: 1+: syntax error: operand expected (error token is "+")`.
    fn substring_number(&mut self, shown: &str, word: &Word) -> Result<i64, ExpandError> {
        let text = expand_word_nosplit(word, self.ctx)?;
        self.ctx
            .host
            .arith(&String::from_utf8_lossy(&text))
            .map_err(|mut e| {
                if !e.message.is_empty() {
                    e.message = format!("{shown}: {}", e.message);
                }
                e
            })
    }

    /// `${X:offset:length}`: bytes of a value; for `$@` and `$*`, positional parameters (the
    /// offset 0 is `$0`).
    fn substring(
        &mut self,
        r: &Resolved,
        offset: &Word,
        length: Option<&Word>,
    ) -> Result<Value, ExpandError> {
        let too_small = |w: &Word| {
            let mut text = Vec::new();
            for part in &w.parts {
                display_part(part, &mut text);
            }
            ExpandError::fatal(format!(
                "{}: substring expression < 0",
                String::from_utf8_lossy(&text)
            ))
        };
        match &r.value {
            Value::Unset => Ok(Value::Unset),
            Value::One(v) => {
                let len = i64::try_from(v.len()).unwrap_or(i64::MAX);
                let mut start = self.substring_number(&r.shown, offset)?;
                if start < 0 {
                    start = start.saturating_add(len);
                }
                if start < 0 || start > len {
                    return Ok(Value::One(Vec::new()));
                }
                let end = match length {
                    None => len,
                    Some(w) => {
                        let n = self.substring_number(&r.shown, w)?;
                        if n < 0 {
                            let end = n.saturating_add(len);
                            if end < start {
                                return Err(too_small(w));
                            }
                            end
                        } else {
                            start.saturating_add(n).min(len)
                        }
                    }
                };
                let (s, e) = (
                    usize::try_from(start).unwrap_or(0),
                    usize::try_from(end).unwrap_or(0),
                );
                Ok(Value::One(v.get(s..e).unwrap_or_default().to_vec()))
            }
            Value::List { items, star } if r.shown.ends_with("[@]") || r.shown.ends_with("[*]") => {
                // `${a[@]:offset:length}`: the elements from subscript `offset` on (a
                // negative offset counts back from one past the last subscript).
                let name = r.shown.split('[').next().unwrap_or_default().to_string();
                let keys: Vec<i64> = self
                    .ctx
                    .host
                    .keys(&name)
                    .iter()
                    .filter_map(|k| k.parse().ok())
                    .collect();
                let raw = self.substring_number(&r.shown, offset)?;
                let start = if raw < 0 {
                    keys.last().map_or(0, |l| l + 1).saturating_add(raw)
                } else {
                    raw
                };
                let count = match length {
                    None => usize::MAX,
                    Some(w) => {
                        let k = self.substring_number(&r.shown, w)?;
                        if k < 0 {
                            return Err(too_small(w));
                        }
                        usize::try_from(k).unwrap_or(usize::MAX)
                    }
                };
                let picked = if start < 0 {
                    Vec::new()
                } else {
                    keys.iter()
                        .zip(items.iter())
                        .filter(|(k, _)| **k >= start)
                        .take(count)
                        .map(|(_, v)| v.clone())
                        .collect()
                };
                Ok(Value::List {
                    items: picked,
                    star: *star,
                })
            }
            Value::List { items, star } => {
                let n = i64::try_from(items.len()).unwrap_or(i64::MAX);
                let raw = self.substring_number(&r.shown, offset)?;
                // Indexes: 0 is `$0`, then the parameters; `len` is one past the last.
                let len = n + 1 + i64::from(raw == 0);
                let start = if raw < 0 {
                    raw.saturating_add(len)
                } else {
                    raw
                };
                let none = Value::List {
                    items: Vec::new(),
                    star: *star,
                };
                if start < 0 || start > len {
                    return Ok(none);
                }
                let end = match length {
                    None => len,
                    Some(w) => {
                        let k = self.substring_number(&r.shown, w)?;
                        if k < 0 {
                            return Err(too_small(w));
                        }
                        start.saturating_add(k).min(len)
                    }
                };
                let mut all: Vec<Vec<u8>> = Vec::with_capacity(items.len() + 1);
                all.push(self.lookup("0").unwrap_or_default().into_bytes());
                all.extend(items.iter().cloned());
                let (s, e) = (
                    usize::try_from(start).unwrap_or(0),
                    usize::try_from(end).unwrap_or(0).min(all.len()),
                );
                Ok(Value::List {
                    items: all.get(s..e).map(<[Vec<u8>]>::to_vec).unwrap_or_default(),
                    star: *star,
                })
            }
        }
    }

    /// `${X@Q}` and the other transformations.
    fn transform(
        &mut self,
        pe: &ParamExp,
        res: &Resolved,
        op: u8,
        word: &Word,
        quoted: bool,
    ) -> Result<Value, ExpandError> {
        // An unset parameter gives nothing before the operator is even checked.
        if !res.value.is_set() && op != b'A' && op != b'a' {
            return Ok(Value::Unset);
        }
        if !word.parts.is_empty() || !b"QEPAaUuLKk".contains(&op) {
            return Err(bad_substitution(pe));
        }
        let target = res.target.as_str();
        let variable = is_identifier(target);
        let attrs = if variable {
            self.ctx.host.attributes(target)
        } else {
            String::new()
        };
        Ok(match (&res.value, op) {
            (Value::Unset | Value::One(_), b'a') => Value::One(attrs.into_bytes()),
            (Value::Unset, _) => {
                // `${X@A}` of a variable declared without a value: `declare -x X`.
                if attrs.is_empty() {
                    Value::Unset
                } else {
                    Value::One(format!("declare -{attrs} {target}").into_bytes())
                }
            }
            (Value::One(v), b'A') => {
                if !variable {
                    return Ok(Value::Unset);
                }
                let q = quote_reusable(v);
                let mut s = if attrs.is_empty() {
                    format!("{target}=").into_bytes()
                } else {
                    format!("declare -{attrs} {target}=").into_bytes()
                };
                s.extend_from_slice(&q);
                Value::One(s)
            }
            (Value::List { items, star }, b'A') => {
                // `set -- 'a' 'b'`; `"${@@A}"` gives it as words.
                let quoted_items = items.iter().map(|i| quote_reusable(i));
                if !*star && quoted {
                    let mut all = vec![b"set".to_vec(), b"--".to_vec()];
                    all.extend(quoted_items);
                    Value::List {
                        items: all,
                        star: false,
                    }
                } else {
                    let mut all: Vec<Vec<u8>> = quoted_items.collect();
                    if let Some(first) = all.first_mut() {
                        let mut s = b"set -- ".to_vec();
                        s.append(first);
                        *first = s;
                    }
                    Value::List {
                        items: all,
                        star: *star,
                    }
                }
            }
            (value, b'a') => value.clone().map(|_| Vec::new()),
            (value, c) => {
                let value = value.clone();
                match c {
                    b'P' => {
                        let env = PromptEnv::new(self);
                        value.try_map(|v| env.decode(v))?
                    }
                    _ => value.map(|v| transform_value(c, v)),
                }
            }
        })
    }
}

/// The value-transforming operators, their words expanded.
enum Op {
    Remove {
        matcher: Matcher,
        prefix: bool,
        longest: bool,
    },
    Replace {
        matcher: Matcher,
        /// The pattern is empty: only `/#` and `/%` do something (insert the string).
        empty: bool,
        anchor: Anchor,
        all: bool,
        rep: Option<Replacement>,
    },
    Case {
        matcher: Option<Matcher>,
        to: CaseTo,
        all: bool,
    },
    Keep,
}

impl Op {
    /// Applies the operator to one value.
    /// Applies the operator to one value (`None`: more than [`MAX_RESULT`] bytes).
    fn apply(&self, v: &[u8]) -> Option<Vec<u8>> {
        Some(match self {
            Op::Remove {
                matcher,
                prefix,
                longest,
            } => remove(v, matcher, *prefix, *longest).to_vec(),
            Op::Replace {
                matcher,
                empty,
                anchor,
                all,
                rep,
            } => replace(v, matcher, *empty, *anchor, *all, rep.as_ref())?,
            Op::Case { matcher, to, all } => change_case(v, matcher.as_ref(), *to, *all),
            Op::Keep => v.to_vec(),
        })
    }
}

/// `${X#pat}` (`prefix`), `${X%pat}`; `longest`: `##`, `%%`.
fn remove<'v>(v: &'v [u8], m: &Matcher, prefix: bool, longest: bool) -> &'v [u8] {
    if prefix {
        match m.prefix(v, longest) {
            Some(end) => v.get(end..).unwrap_or_default(),
            None => v,
        }
    } else {
        match m.suffix(v, longest) {
            Some(start) => v.get(..start).unwrap_or_default(),
            None => v,
        }
    }
}

/// The string of `${X/pat/string}`, expanded: `&` stands for the matched text (bash 5.2's
/// `patsub_replacement`, on by default) unless quoted or after a backslash.
struct Replacement {
    /// bash's form: a quoted `&` or `\` escaped with a backslash.
    text: Vec<u8>,
    /// There is an `&`, `\&` or `\\` to process.
    expand: bool,
}

impl Replacement {
    fn new(rep: &[PatByte]) -> Self {
        let mut text = Vec::with_capacity(rep.len());
        for p in rep {
            if p.quoted && (p.b == b'&' || p.b == b'\\') {
                text.push(b'\\');
            }
            text.push(p.b);
        }
        let mut expand = false;
        let mut i = 0;
        while let Some(&b) = text.get(i) {
            if b == b'\\' {
                match text.get(i + 1) {
                    None => break,
                    Some(b'&' | b'\\') => {
                        expand = true;
                        break;
                    }
                    Some(_) => i += 2,
                }
            } else if b == b'&' {
                expand = true;
                break;
            } else {
                i += 1;
            }
        }
        Replacement { text, expand }
    }

    /// The replacement for one match.
    fn for_match(&self, matched: &[u8], out: &mut Vec<u8>) {
        if !self.expand {
            out.extend_from_slice(&self.text);
            return;
        }
        let mut i = 0;
        while let Some(&b) = self.text.get(i) {
            match (b, self.text.get(i + 1)) {
                (b'&', _) => {
                    out.extend_from_slice(matched);
                    i += 1;
                }
                (b'\\', Some(&c @ (b'&' | b'\\'))) => {
                    out.push(c);
                    i += 2;
                }
                _ => {
                    out.push(b);
                    i += 1;
                }
            }
        }
    }
}

/// `${X/pat/string}` and its forms (bash's `pat_subst`): the longest match at the leftmost
/// place (or at the start, or at the end), once or everywhere. `None`: the result would be
/// more than [`MAX_RESULT`] bytes.
fn replace(
    v: &[u8],
    m: &Matcher,
    empty: bool,
    anchor: Anchor,
    all: bool,
    rep: Option<&Replacement>,
) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(v.len());
    let put = |matched: &[u8], out: &mut Vec<u8>| {
        if let Some(r) = rep {
            r.for_match(matched, out);
        }
    };
    if empty && anchor != Anchor::None {
        if anchor == Anchor::End {
            out.extend_from_slice(v);
        }
        put(b"", &mut out);
        if anchor == Anchor::Start {
            out.extend_from_slice(v);
        }
        return Some(out);
    }
    if empty || (m.whole_only && !m.is_match(v)) {
        return Some(v.to_vec());
    }
    match anchor {
        Anchor::Start => match anchored(v, m, true) {
            Some(end) => {
                put(v.get(..end).unwrap_or_default(), &mut out);
                out.extend_from_slice(v.get(end..).unwrap_or_default());
            }
            None => out.extend_from_slice(v),
        },
        Anchor::End => match anchored(v, m, false) {
            Some(start) => {
                out.extend_from_slice(v.get(..start).unwrap_or_default());
                put(v.get(start..).unwrap_or_default(), &mut out);
            }
            None => out.extend_from_slice(v),
        },
        Anchor::None => {
            if v.is_empty() {
                if m.is_match(b"") {
                    put(b"", &mut out);
                }
                return Some(out);
            }
            let starts = m.starts(v);
            // Copied up to `pos`; the next match is looked for from `from`.
            let (mut pos, mut from) = (0usize, 0usize);
            while from < v.len() {
                if m.whole_only && from == pos && from > 0 && !m.is_match(v.get(pos..)?) {
                    break;
                }
                let Some(s) = (from..v.len()).find(|&s| starts.get(s).copied().unwrap_or(false))
                else {
                    break;
                };
                let rest = v.get(s..).unwrap_or_default();
                let len = match m.fixed {
                    // bash tries only its fixed length (and stops where that overruns).
                    Some(n) if n > rest.len() => break,
                    Some(n) if !rest.get(..n).is_some_and(|r| m.is_match(r)) => {
                        from = s + 1;
                        continue;
                    }
                    Some(n) => n,
                    None => m.prefix(rest, true).unwrap_or(0),
                };
                out.extend_from_slice(v.get(pos..s).unwrap_or_default());
                put(rest.get(..len).unwrap_or_default(), &mut out);
                if out.len() > MAX_RESULT {
                    return None;
                }
                pos = s + len;
                if !all {
                    break;
                }
                if len == 0 {
                    // An empty match: copy one byte and go on (bash).
                    if let Some(&b) = v.get(pos) {
                        out.push(b);
                    }
                    pos += 1;
                }
                from = pos;
            }
            out.extend_from_slice(v.get(pos..).unwrap_or_default());
        }
    }
    Some(out)
}

/// The match of `${X/pat/string}` at the start (`Some(end)`), or at the end (`Some(start)`):
/// the longest, or with a pattern bash thinks fixed-length, only that length.
fn anchored(v: &[u8], m: &Matcher, start: bool) -> Option<usize> {
    match m.fixed {
        Some(n) => {
            let part = if start {
                v.get(..n)
            } else {
                v.get(v.len().checked_sub(n)?..)
            }?;
            m.is_match(part)
                .then_some(if start { n } else { v.len() - n })
        }
        None if start => m.prefix(v, true),
        None => m.suffix(v, true),
    }
}

/// bash's `MATCHLEN` on a pattern written with backslashes: the number of bytes a match
/// takes, `None` when that varies (a `*`, an extended glob's `(`). It is bash's count, quirks
/// included: after a `[` without its `]` every byte counts (so `[*` "takes" 2).
fn bash_matchlen(pat: &[u8]) -> Option<usize> {
    let at = |k: usize| pat.get(k).copied().unwrap_or(0);
    let mut len = 0usize;
    let mut i = 0usize;
    let (mut in_class, mut in_coll, mut in_equiv) = (false, false, false);
    while i < pat.len() {
        let c = at(i);
        i += 1;
        match c {
            b'\\' => {
                len += 1;
                if at(i) == 0 {
                    return Some(len);
                }
                i += 1;
            }
            b'?' | b'+' | b'!' | b'@' if at(i) == b'(' => return None,
            b'*' => return None,
            b'[' => {
                let mut brack = 1usize;
                let mut c = at(i);
                i += 1;
                loop {
                    if c == 0 {
                        return Some(len + brack);
                    } else if c == b'\\' {
                        brack += 1;
                        if at(i) == 0 || at(i + 1) == 0 {
                            return Some(len + brack);
                        }
                        i += 1;
                    } else if c == b'[' && at(i) == b':' {
                        i += 1;
                        brack += 1;
                        in_class = true;
                    } else if in_class && c == b':' && at(i) == b']' {
                        i += 1;
                        brack += 1;
                        in_class = false;
                    } else if c == b'[' && (at(i) == b'.' || at(i) == b'=') {
                        let equiv = at(i) == b'=';
                        i += 1;
                        brack += 1;
                        if at(i) == b']' {
                            i += 1;
                            brack += 1;
                        }
                        if equiv {
                            in_equiv = true;
                        } else {
                            in_coll = true;
                        }
                    } else if (in_coll && c == b'.' || in_equiv && c == b'=') && at(i) == b']' {
                        i += 1;
                        brack += 1;
                        if c == b'.' {
                            in_coll = false;
                        } else {
                            in_equiv = false;
                        }
                    } else {
                        brack += 1;
                    }
                    c = at(i);
                    i += 1;
                    if c == b']' {
                        break;
                    }
                }
                len += 1;
            }
            _ => len += 1,
        }
    }
    Some(len)
}

/// The case a byte is changed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaseTo {
    Upper,
    Lower,
    Toggle,
}

/// `^`, `^^`, `,`, `,,`, `~`, `~~`: ASCII case of the first byte (or of all) if it matches
/// the pattern.
fn change_case(v: &[u8], m: Option<&Matcher>, to: CaseTo, all: bool) -> Vec<u8> {
    v.iter()
        .enumerate()
        .map(|(i, &b)| {
            let hit = (all || i == 0) && m.is_none_or(|m| m.is_match(&[b]));
            let lower = match to {
                CaseTo::Upper => false,
                CaseTo::Lower => true,
                CaseTo::Toggle => b.is_ascii_uppercase(),
            };
            match (hit, lower) {
                (false, _) => b,
                (true, true) => b.to_ascii_lowercase(),
                (true, false) => b.to_ascii_uppercase(),
            }
        })
        .collect()
}

/// The transformations of one value that need nothing but the value.
fn transform_value(c: u8, v: &[u8]) -> Vec<u8> {
    match c {
        b'Q' | b'K' | b'k' => quote_reusable(v),
        b'E' => ansi_c_decode(v),
        b'U' => v.to_ascii_uppercase(),
        b'L' => v.to_ascii_lowercase(),
        b'u' => change_case(v, None, CaseTo::Upper, false),
        _ => v.to_vec(),
    }
}

/// `${X@Q}`: bash's `sh_quote_reusable` — `''` for nothing, `$'...'` when a byte is not
/// printable ASCII, else single quotes (`'\''` for a quote).
pub(super) fn quote_reusable(v: &[u8]) -> Vec<u8> {
    if v.is_empty() {
        return b"''".to_vec();
    }
    if v.iter().any(|&b| !(0x20..0x7f).contains(&b)) {
        let mut out = b"$'".to_vec();
        for &b in v {
            let esc = match b {
                0x1b => Some(b'E'),
                0x07 => Some(b'a'),
                0x0b => Some(b'v'),
                0x08 => Some(b'b'),
                0x0c => Some(b'f'),
                b'\n' => Some(b'n'),
                b'\r' => Some(b'r'),
                b'\t' => Some(b't'),
                b'\\' | b'\'' => Some(b),
                _ => None,
            };
            match esc {
                Some(e) => out.extend_from_slice(&[b'\\', e]),
                None if (0x20..0x7f).contains(&b) => out.push(b),
                None => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
            }
        }
        out.push(b'\'');
        return out;
    }
    let mut out = Vec::with_capacity(v.len() + 2);
    crate::shell::print::single_quote(v, &mut out);
    out
}

/// `${X@E}`: the escapes of `$'...'` (bash's `ansicstr`, C locale). A NUL ends the text.
#[allow(clippy::many_single_char_names)] // b, c, d, i, n, k, v: bytes, indexes and values
pub(super) fn ansi_c_decode(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0usize;
    let hex = |b: u8| char::from(b).to_digit(16);
    while let Some(&b) = v.get(i) {
        i += 1;
        let Some(&c) = v.get(i).filter(|_| b == b'\\') else {
            out.push(b);
            continue;
        };
        i += 1;
        let byte: u8 = match c {
            b'a' => 0x07,
            b'v' => 0x0b,
            b'b' => 0x08,
            b'e' | b'E' => 0x1b,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'\\' | b'\'' | b'"' | b'?' => c,
            b'0'..=b'7' => {
                let mut n = u32::from(c - b'0');
                for _ in 0..2 {
                    match v.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            n = n * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                (n & 0xff) as u8
            }
            b'x' => {
                let mut n: u32 = 0;
                if v.get(i) == Some(&b'{') {
                    i += 1;
                    while let Some(d) = v.get(i).and_then(|&d| hex(d)) {
                        n = n.wrapping_mul(16).wrapping_add(d);
                        i += 1;
                    }
                    if v.get(i) == Some(&b'}') {
                        i += 1;
                    }
                } else {
                    let mut k = 0;
                    while k < 2 {
                        let Some(d) = v.get(i).and_then(|&d| hex(d)) else {
                            break;
                        };
                        n = n * 16 + d;
                        i += 1;
                        k += 1;
                    }
                    if k == 0 {
                        out.extend_from_slice(b"\\x");
                        continue;
                    }
                }
                (n & 0xff) as u8
            }
            b'u' | b'U' => {
                let max = if c == b'u' { 4 } else { 8 };
                let mut n: u32 = 0;
                let mut k = 0;
                while k < max {
                    let Some(d) = v.get(i).and_then(|&d| hex(d)) else {
                        break;
                    };
                    n = n.wrapping_mul(16).wrapping_add(d);
                    i += 1;
                    k += 1;
                }
                if k == 0 {
                    out.extend_from_slice(&[b'\\', c]);
                    continue;
                }
                if n > 0x7f {
                    // The C locale cannot encode it: bash keeps the escape, in upper case.
                    let text = if c == b'u' {
                        format!("\\u{n:04X}")
                    } else {
                        format!("\\U{n:08X}")
                    };
                    out.extend_from_slice(text.as_bytes());
                    continue;
                }
                n as u8
            }
            b'c' => match v.get(i) {
                // `\c` at the end is a plain `c`.
                None => b'c',
                Some(&d) => {
                    i += 1;
                    if d == b'\\' && v.get(i) == Some(&b'\\') {
                        i += 1;
                    }
                    if d == b'?' {
                        0x7f
                    } else {
                        d.to_ascii_uppercase() & 0x1f
                    }
                }
            },
            _ => {
                out.extend_from_slice(&[b'\\', c]);
                continue;
            }
        };
        if byte == 0 {
            break;
        }
        out.push(byte);
    }
    out
}

/// What `${X@P}` reads of the shell.
struct PromptEnv {
    user: Vec<u8>,
    host: Vec<u8>,
    pwd: Vec<u8>,
    home: Option<Vec<u8>>,
    root: bool,
    /// The exported `TZ`, for the time escapes.
    tz: Option<String>,
}

impl PromptEnv {
    fn new(ex: &Expander<'_, '_>) -> Self {
        let get = |n: &str| ex.lookup(n).map(String::into_bytes);
        PromptEnv {
            user: get("USER").unwrap_or_default(),
            host: get("HOSTNAME").unwrap_or_default(),
            pwd: get("PWD").unwrap_or_default(),
            home: get("HOME"),
            root: get("EUID").is_some_and(|u| u == b"0"),
            tz: ex.lookup("TZ"),
        }
    }

    /// `$PWD` with `$HOME` at its start written `~`.
    fn tilde_pwd(&self) -> Vec<u8> {
        if let Some(home) = self.home.as_deref().filter(|h| !h.is_empty() && *h != b"/")
            && let Some(rest) = self.pwd.strip_prefix(home)
            && (rest.is_empty() || rest.first() == Some(&b'/'))
        {
            let mut out = b"~".to_vec();
            out.extend_from_slice(rest);
            return out;
        }
        self.pwd.clone()
    }

    /// Decodes the prompt escapes of one value (bash's `decode_prompt_string`, in part);
    /// `None` past [`MAX_RESULT`] bytes.
    #[allow(clippy::many_single_char_names)] // b, c, d, i, n, v: bytes, indexes and values
    fn decode(&self, v: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(v.len());
        let mut i = 0usize;
        while let Some(&b) = v.get(i) {
            if out.len() > MAX_RESULT {
                return None;
            }
            i += 1;
            if b != b'\\' {
                out.push(b);
                continue;
            }
            let Some(&c) = v.get(i) else {
                out.push(b'\\');
                break;
            };
            i += 1;
            match c {
                b'a' => out.push(0x07),
                b'e' => out.push(0x1b),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'\\' => out.push(b'\\'),
                b'[' | b']' => {}
                b'$' => out.push(if self.root { b'#' } else { b'$' }),
                b'u' => out.extend_from_slice(&self.user),
                b'h' => out
                    .extend_from_slice(self.host.split(|&c| c == b'.').next().unwrap_or_default()),
                b'H' => out.extend_from_slice(&self.host),
                b's' => out.extend_from_slice(b"bash"),
                b'v' => out.extend_from_slice(b"5.2"),
                b'V' => out.extend_from_slice(b"5.2.15"),
                b'w' => out.extend_from_slice(&self.tilde_pwd()),
                b'W' => {
                    let t = self.tilde_pwd();
                    if t == b"~" || t == b"/" {
                        out.extend_from_slice(&t);
                    } else {
                        let base = t.rsplit(|&c| c == b'/').next().unwrap_or_default();
                        out.extend_from_slice(base);
                    }
                }
                b'd' | b't' | b'T' | b'@' | b'A' => {
                    let fmt: &[u8] = match c {
                        b'd' => b"%a %b %d",
                        b't' => b"%H:%M:%S",
                        b'T' => b"%I:%M:%S",
                        b'@' => b"%I:%M %p",
                        _ => b"%H:%M",
                    };
                    out.extend(trumansh_commands::format_now(fmt, self.tz.as_deref()));
                }
                b'D' if v.get(i) == Some(&b'{') => {
                    let rest = v.get(i + 1..).unwrap_or_default();
                    // Without its `}`, the format runs to the end (bash).
                    let end = rest.iter().position(|&c| c == b'}').unwrap_or(rest.len());
                    let fmt = rest.get(..end).unwrap_or_default();
                    let fmt: &[u8] = if fmt.is_empty() { b"%X" } else { fmt };
                    out.extend(trumansh_commands::format_now(fmt, self.tz.as_deref()));
                    i += end + 2;
                }
                b'j' => out.push(b'0'),
                b'l' => out.extend_from_slice(b"tty"),
                b'0'..=b'7' => {
                    let mut n = u32::from(c - b'0');
                    for _ in 0..2 {
                        match v.get(i) {
                            Some(&d @ b'0'..=b'7') => {
                                n = n * 8 + u32::from(d - b'0');
                                i += 1;
                            }
                            _ => break,
                        }
                    }
                    out.push((n & 0xff) as u8);
                }
                _ => out.extend_from_slice(&[b'\\', c]),
            }
        }
        Some(out)
    }
}

// ---------------------------------------------------------------------------------------
// Pattern matching over substrings.

/// A shell pattern compiled for matching parts of a string (bash's `strmatch` without
/// `FNM_PATHNAME` or `FNM_PERIOD`: `*` and `?` match any byte, `/` and a leading `.`
/// included), with bash's quirks of `${X/pat/string}`.
pub(super) struct Matcher {
    pat: Pattern,
    /// bash's idea of how many bytes a match takes, when it thinks that fixed (no `*`): its
    /// `${X/pat/string}` only tries matches of that length ([`bash_matchlen`]).
    fixed: Option<usize>,
    /// The pattern starts with `*` and ends with an escaped `*` (`*'*'`): bash's quick check
    /// before `${X/pat/string}` then wants it to match the whole rest of the value.
    whole_only: bool,
}

impl Matcher {
    /// Compiles a pattern: unquoted `*`, `?`, `[...]` (and with `extglob` the extended
    /// parts) are special, an unquoted backslash quotes the next byte, a `[` without its `]`
    /// is literal.
    pub(super) fn new(pat: &[PatByte], extglob: bool) -> Self {
        // The pattern as bash holds it: quoted bytes after a backslash.
        let mut text = Vec::with_capacity(pat.len());
        for p in pat {
            if p.quoted {
                text.push(b'\\');
            }
            text.push(p.b);
        }
        // bash's quick check (`match_upattern`) adds a `*` at the ends that lack one, but
        // takes a final escaped `*` for one.
        let escapes = text
            .iter()
            .rev()
            .skip(1)
            .take_while(|&&b| b == b'\\')
            .count();
        let whole_only = text.len() >= 2
            && text.first() == Some(&b'*')
            && text.last() == Some(&b'*')
            && escapes % 2 == 1;
        Matcher {
            pat: Pattern::new(
                pat,
                Syntax {
                    extglob,
                    fold: false,
                },
            ),
            fixed: bash_matchlen(&text),
            whole_only,
        }
    }

    /// Whether the whole of `text` matches.
    pub(super) fn is_match(&self, text: &[u8]) -> bool {
        self.pat.is_match(text)
    }

    /// The end of the shortest (or longest) prefix of `text` that matches.
    pub(super) fn prefix(&self, text: &[u8], longest: bool) -> Option<usize> {
        self.pat.prefix(text, longest)
    }

    /// The start of the shortest (or longest) suffix of `text` that matches.
    pub(super) fn suffix(&self, text: &[u8], longest: bool) -> Option<usize> {
        self.pat.suffix(text, longest)
    }

    /// For each position of `text` (and its end), whether a match starts there.
    fn starts(&self, text: &[u8]) -> Vec<bool> {
        self.pat.starts(text)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing, clippy::unwrap_used)]
    use super::*;

    fn pat(s: &str) -> Vec<PatByte> {
        s.bytes().map(|b| PatByte { b, quoted: false }).collect()
    }

    #[test]
    fn matcher_prefixes_and_suffixes() {
        let m = Matcher::new(&pat("*/"), false);
        assert_eq!(m.prefix(b"/a/b/c", false), Some(1));
        assert_eq!(m.prefix(b"/a/b/c", true), Some(5));
        let m = Matcher::new(&pat(".*"), false);
        assert_eq!(m.suffix(b"f.tar.gz", false), Some(5));
        assert_eq!(m.suffix(b"f.tar.gz", true), Some(1));
        assert!(Matcher::new(&pat("[a-c]?[!x]"), false).is_match(b"b-y"));
        assert!(!Matcher::new(&pat("[a-c]?[!x]"), false).is_match(b"b-x"));
        assert!(Matcher::new(&pat("[]]"), false).is_match(b"]"));
        assert!(Matcher::new(&pat("[x"), false).is_match(b"[x"));
        assert!(Matcher::new(&pat("\\*"), false).is_match(b"*"));
        assert!(!Matcher::new(&pat("\\*"), false).is_match(b"a"));
        assert!(Matcher::new(&pat("[[:upper:]]*"), false).is_match(b"Ab"));
    }

    #[test]
    fn bash_match_lengths() {
        assert_eq!(bash_matchlen(b"abc"), Some(3));
        assert_eq!(bash_matchlen(b"a?[bc]\\*"), Some(4));
        assert_eq!(bash_matchlen(b"a*"), None);
        assert_eq!(bash_matchlen(b"[*"), Some(2));
        assert_eq!(bash_matchlen(b"[[:alpha:]]x"), Some(2));
        assert_eq!(bash_matchlen(b"[]a]"), Some(1));
        assert_eq!(bash_matchlen(b"@(a)"), None);
    }

    #[test]
    fn matcher_starts() {
        let m = Matcher::new(&pat("b*c"), false);
        assert_eq!(m.starts(b"abxc"), vec![false, true, false, false, false]);
    }

    #[test]
    fn replace_forms() {
        let rep = Replacement::new(&pat("<&>"));
        let m = Matcher::new(&pat("?"), false);
        assert_eq!(
            replace(b"abc", &m, false, Anchor::None, true, Some(&rep)).unwrap(),
            b"<a><b><c>"
        );
        let m = Matcher::new(&pat("*"), false);
        assert_eq!(
            replace(b"", &m, false, Anchor::None, false, Some(&rep)).unwrap(),
            b"<>"
        );
        // `${X//?/$X}` on a long value: refused, not built.
        let big = vec![b'a'; 10_000];
        let rep: Vec<PatByte> = big.iter().map(|&b| PatByte { b, quoted: true }).collect();
        let rep = Replacement::new(&rep);
        let m = Matcher::new(&pat("?"), false);
        assert_eq!(
            replace(&big, &m, false, Anchor::None, true, Some(&rep)),
            None
        );
    }

    #[test]
    fn no_quadratic_blowup_on_long_values() {
        let m = Matcher::new(&pat("*z"), false);
        let v = vec![b'a'; 200_000];
        let rep = Replacement::new(&pat("x"));
        assert_eq!(
            replace(&v, &m, false, Anchor::None, true, Some(&rep)).as_deref(),
            Some(v.as_slice())
        );
        assert_eq!(m.suffix(&v, false), None);
    }

    #[test]
    fn quoting() {
        assert_eq!(quote_reusable(b"a b"), b"'a b'");
        assert_eq!(quote_reusable(b"it's"), b"'it'\\''s'");
        assert_eq!(quote_reusable(b"'"), b"\\'");
        assert_eq!(quote_reusable(b"a\tb\x01\xc3"), b"$'a\\tb\\001\\303'");
        assert_eq!(
            ansi_c_decode(b"a\\tb\\x41\\u00e9\\101\\0z"),
            b"a\tbA\\u00E9A"
        );
        assert_eq!(ansi_c_decode(b"\\c"), b"c");
    }
}
