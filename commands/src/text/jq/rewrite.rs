//! jq 1.6's update operators on jaq's parser: the program is parsed by jaq, its `l |= r`,
//! `l = r`, `l op= r` and `l //= r` are rewritten to calls of jq 1.6's `_modify`/`_assign`
//! (defined in [`super::DEFS`] on `setpath`/`delpaths` that create missing objects and
//! arrays as jq does), and the tree is printed back as jq text for jaq to compile. Each
//! definition's body starts with `_tm_poll |`, `[f]` is `_tm_arr(f)` and `l + r` is
//! `_tm_add`, so that the program's loops look at the deadline and what it builds stays
//! within the hold cap.

use std::fmt::Write as _;

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::path::{Opt, Part};

/// The program with its update operators rewritten, or `None` when jaq cannot parse it.
pub fn rewrite(code: &str) -> Option<String> {
    let (defs, body) = jaq_core::load::parse(code, |p| {
        let defs = p.defs()?;
        let body = p.term()?;
        Ok((defs, body))
    })?;
    let mut out = String::new();
    for d in &defs {
        def(&mut out, d);
    }
    term(&mut out, &body);
    Some(out)
}

fn def(o: &mut String, d: &Def<&str>) {
    o.push_str("def ");
    o.push_str(d.name);
    if !d.args.is_empty() {
        o.push('(');
        o.push_str(&d.args.join("; "));
        o.push(')');
    }
    o.push_str(": _tm_poll | ");
    term(o, &d.body);
    o.push_str(";\n");
}

fn paren(o: &mut String, t: &Term<&str>) {
    o.push('(');
    term(o, t);
    o.push(')');
}

fn pattern(o: &mut String, p: &Pattern<&str>) {
    match p {
        Pattern::Var(x) => o.push_str(x),
        Pattern::Arr(ps) => {
            o.push('[');
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                pattern(o, p);
            }
            o.push(']');
        }
        Pattern::Obj(entries) => {
            o.push('{');
            for (i, (k, p)) in entries.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                paren(o, k);
                o.push_str(": ");
                pattern(o, p);
            }
            o.push('}');
        }
    }
}

fn string(o: &mut String, fmt: Option<&&str>, parts: &[StrPart<&str, Term<&str>>]) {
    if let Some(f) = fmt {
        o.push_str(f);
        o.push(' ');
    }
    o.push('"');
    for part in parts {
        match part {
            StrPart::Str(s) => o.push_str(s),
            StrPart::Term(t) => {
                o.push_str("\\(");
                term(o, t);
                o.push(')');
            }
            StrPart::Char(c) => match c {
                '"' => o.push_str("\\\""),
                '\\' => o.push_str("\\\\"),
                c if u32::from(*c) < 0x20 => {
                    let _ = write!(o, "\\u{:04x}", u32::from(*c));
                }
                c => o.push(*c),
            },
        }
    }
    o.push('"');
}

fn binop(o: &mut String, l: &Term<&str>, op: &BinaryOp<&str>, r: &Term<&str>) {
    let sym = match op {
        BinaryOp::Pipe(None) => "|",
        BinaryOp::Pipe(Some(p)) => {
            o.push('(');
            paren(o, l);
            o.push_str(" as ");
            pattern(o, p);
            o.push_str(" | ");
            paren(o, r);
            o.push(')');
            return;
        }
        BinaryOp::Comma => ",",
        BinaryOp::Alt => "//",
        BinaryOp::Or => "or",
        BinaryOp::And => "and",
        BinaryOp::Math(m) if m.as_str() == "+" => {
            // `r` outside, `l` inside, as jq 1.6 pairs their outputs.
            o.push('(');
            paren(o, r);
            o.push_str(" as $__tm_r | ");
            paren(o, l);
            o.push_str(" as $__tm_l | _tm_add($__tm_l; $__tm_r))");
            return;
        }
        BinaryOp::Math(m) => m.as_str(),
        BinaryOp::Cmp(c) => c.as_str(),
        BinaryOp::Assign => return call2(o, "_tm_assign", l, r),
        BinaryOp::Update => return call2(o, "_tm_modify", l, r),
        BinaryOp::UpdateMath(m) => return update_with(o, l, m.as_str(), r),
        BinaryOp::UpdateAlt => return update_with(o, l, "//", r),
    };
    o.push('(');
    paren(o, l);
    o.push(' ');
    o.push_str(sym);
    o.push(' ');
    paren(o, r);
    o.push(')');
}

/// `l op= r`: `r as $v | _modify(l; . op $v)`, as jq 1.6's `gen_update`.
fn update_with(o: &mut String, l: &Term<&str>, op: &str, r: &Term<&str>) {
    o.push('(');
    paren(o, r);
    o.push_str(" as $__tm_v | _tm_modify(");
    term(o, l);
    if op == "+" {
        o.push_str("; _tm_add(.; $__tm_v)))");
    } else {
        let _ = write!(o, "; . {op} $__tm_v))");
    }
}

fn call2(o: &mut String, name: &str, l: &Term<&str>, r: &Term<&str>) {
    o.push_str(name);
    o.push('(');
    term(o, l);
    o.push_str("; ");
    term(o, r);
    o.push(')');
}

fn term(o: &mut String, t: &Term<&str>) {
    match t {
        Term::Id => o.push('.'),
        Term::Recurse => o.push_str(".."),
        Term::Num(n) => o.push_str(n),
        Term::Str(fmt, parts) => string(o, fmt.as_ref(), parts),
        Term::Arr(None) => o.push_str("[]"),
        Term::Arr(Some(t)) => {
            o.push_str("_tm_arr(");
            term(o, t);
            o.push(')');
        }
        Term::Obj(entries) => {
            o.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                match v {
                    Some(v) => {
                        paren(o, k);
                        o.push_str(": ");
                        paren(o, v);
                    }
                    None => term(o, k),
                }
            }
            o.push('}');
        }
        Term::Neg(t) => {
            o.push_str("(-");
            paren(o, t);
            o.push(')');
        }
        Term::BinOp(l, op, r) => binop(o, l, op, r),
        Term::Label(x, t) => {
            let _ = write!(o, "(label {x} | ");
            term(o, t);
            o.push(')');
        }
        Term::Break(x) => {
            let _ = write!(o, "break {x}");
        }
        Term::Fold(name, xs, p, args) => {
            let _ = write!(o, "({name} ");
            paren(o, xs);
            o.push_str(" as ");
            pattern(o, p);
            o.push_str(" (");
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    o.push_str("; ");
                }
                term(o, a);
            }
            o.push_str("))");
        }
        Term::TryCatch(t, c) => {
            o.push_str("(try ");
            paren(o, t);
            if let Some(c) = c {
                o.push_str(" catch ");
                paren(o, c);
            }
            o.push(')');
        }
        Term::IfThenElse(branches, else_) => {
            for (i, (c, t)) in branches.iter().enumerate() {
                o.push_str(if i == 0 { "(if " } else { " elif " });
                term(o, c);
                o.push_str(" then ");
                term(o, t);
            }
            if let Some(e) = else_ {
                o.push_str(" else ");
                term(o, e);
            }
            o.push_str(" end)");
        }
        Term::Def(defs, t) => {
            o.push('(');
            for d in defs {
                def(o, d);
            }
            term(o, t);
            o.push(')');
        }
        Term::Call(name, args) => {
            o.push_str(name);
            if !args.is_empty() {
                o.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        o.push_str("; ");
                    }
                    term(o, a);
                }
                o.push(')');
            }
        }
        Term::Var(x) => o.push_str(x),
        Term::Path(base, path) => {
            if path
                .0
                .iter()
                .any(|(part, _)| matches!(part, Part::Index(k) if !literal_str(k)))
            {
                checked_path(o, base, &path.0);
                return;
            }
            if matches!(**base, Term::Id) {
                o.push('.');
            } else {
                paren(o, base);
            }
            for (part, opt) in &path.0 {
                o.push('[');
                match part {
                    Part::Index(i) => term(o, i),
                    Part::Range(None, None) => {}
                    Part::Range(from, upto) => {
                        if let Some(f) = from {
                            paren(o, f);
                        }
                        o.push(':');
                        if let Some(u) = upto {
                            paren(o, u);
                        }
                    }
                }
                o.push(']');
                if matches!(opt, Opt::Optional) {
                    o.push('?');
                }
            }
        }
    }
}

/// A key that is a string literal (`.a`, `."a b"`): jaq indexes with it as jq does.
fn literal_str(t: &Term<&str>) -> bool {
    matches!(t, Term::Str(None, parts) if parts.iter().all(|p| !matches!(p, StrPart::Term(_))))
}

/// `base[k]...` with a computed key: each index goes through `_tm_ix`, which refuses what jq
/// refuses (`{} | .[0]`: `Cannot index object with number`); keys are computed from the
/// path's input, as jq does.
fn checked_path(o: &mut String, base: &Term<&str>, parts: &[(Part<Term<&str>>, Opt)]) {
    o.push_str("(. as $__tm_in | ");
    term(o, base);
    for (part, opt) in parts {
        o.push_str(" | ");
        let optional = matches!(opt, Opt::Optional);
        if optional {
            o.push('(');
        }
        match part {
            Part::Index(k) => {
                o.push_str("_tm_ix($__tm_in | ");
                term(o, k);
                o.push(')');
            }
            Part::Range(None, None) => o.push_str(".[]"),
            Part::Range(from, upto) => {
                o.push_str(".[");
                if let Some(f) = from {
                    o.push_str("($__tm_in | ");
                    term(o, f);
                    o.push(')');
                }
                o.push(':');
                if let Some(u) = upto {
                    o.push_str("($__tm_in | ");
                    term(o, u);
                    o.push(')');
                }
                o.push(']');
            }
        }
        if optional {
            o.push_str(")?");
        }
    }
    o.push(')');
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn update_operators_become_jq_calls() {
        let text = rewrite("def f: .a = 1; f | .b += 2 | .c |= . + 1").unwrap_or_default();
        assert!(
            text.contains("def f: _tm_poll | _tm_assign(.[\"a\"]; 1);"),
            "{text}"
        );
        assert!(
            text.contains("as $__tm_v | _tm_modify(.[\"b\"]; _tm_add(.; $__tm_v))"),
            "{text}"
        );
        assert!(
            text.contains(
                "_tm_modify(.[\"c\"]; ((1) as $__tm_r | (.) as $__tm_l | _tm_add($__tm_l; $__tm_r)))"
            ),
            "{text}"
        );
        let arr = rewrite("[1, 2]").unwrap_or_default();
        assert!(arr.starts_with("_tm_arr(") && arr.ends_with(')'), "{arr}");
    }

    #[test]
    fn computed_keys_are_checked_and_strings_kept() {
        let text = rewrite(r#".[0], .a, "x\"\n\(1)""#).unwrap_or_default();
        assert!(text.contains("_tm_ix($__tm_in | 0)"), "{text}");
        assert!(text.contains(".[\"a\"]"), "{text}");
        assert!(text.contains(r#""x\"\u000a\(1)""#), "{text}");
        assert!(rewrite("1 +").is_none());
    }
}
