//! `export [-fn] [name[=value] ...]` / `export -p`, bash's builtin: marks variables for export
//! through [`Directive::SetVar`], or lists the exported ones as `declare -x` lines.

use std::ffi::OsString;
use std::fmt::Write as _;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::support::ident::{is_identifier, not_identifier};
use crate::{Ctx, Directive, Outcome};

pub const USAGE: &str = "export [-fn] [name[=value] ...] or export -p";

/// Set export attribute for shell variables.
///
/// Marks each NAME for export to the environment of commands, optionally assigning VALUE
/// first. With no NAME, or with -p, lists every exported variable.
#[derive(clap::Parser, Debug)]
pub struct ExportArgs {
    /// refer to shell functions
    #[arg(short = 'f')]
    functions: bool,
    /// remove the export property from each NAME
    #[arg(short = 'n')]
    unexport: bool,
    /// display a list of all exported variables
    #[arg(short = 'p')]
    print: bool,
    operands: Vec<OsString>,
}

/// The text of `help export` and `export --help`.
pub fn help() -> String {
    builtin_help_of::<ExportArgs>("export", USAGE)
}

/// A value as `declare -p` shows it: in double quotes with `"`, `\`, `$` and backquote
/// escaped, or in `$'...'` when it holds a control character (bash 5.2).
fn declare_quote(v: &str) -> String {
    if v.bytes().any(|b| b < 0x20 || b == 0x7f) {
        let mut s = String::from("$'");
        for c in v.chars() {
            match c {
                '\x07' => s.push_str("\\a"),
                '\x08' => s.push_str("\\b"),
                '\x0c' => s.push_str("\\f"),
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                '\x0b' => s.push_str("\\v"),
                '\x1b' => s.push_str("\\E"),
                '\'' => s.push_str("\\'"),
                '\\' => s.push_str("\\\\"),
                c if (c as u32) < 0x20 || c == '\x7f' => {
                    let _ = write!(s, "\\{:03o}", c as u32);
                }
                c => s.push(c),
            }
        }
        s.push('\'');
        return s;
    }
    let mut s = String::from("\"");
    for c in v.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

fn list(ctx: &Ctx) -> Outcome {
    let mut o = Outcome::ok();
    for (name, var) in ctx.vars.iter().filter(|(_, v)| v.exported) {
        match &var.value {
            None => o.out(format!("declare -x {name}\n")),
            Some(v) => o.out(format!("declare -x {name}={}\n", declare_quote(v))),
        };
    }
    o
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<ExportArgs>(args)?;
    if a.print || a.operands.is_empty() {
        return Ok(list(ctx));
    }
    let mut o = Outcome::ok();
    let mut status = 0;
    for word in &a.operands {
        let word = word.to_string_lossy();
        let (name, value) = match word.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (word.as_ref(), None),
        };
        // `name+=value` appends, as an assignment does.
        let (name, append) = match name.strip_suffix('+') {
            Some(n) if value.is_some() => (n, true),
            _ => (name, false),
        };
        if !is_identifier(name) {
            o.shell_err(not_identifier("export", &word));
            status = 1;
            continue;
        }
        if a.functions {
            o.shell_err(format!("{}: {name}: not a function\n", ctx.name));
            status = 1;
            continue;
        }
        let value = value.map(|v| {
            if append {
                format!("{}{v}", ctx.vars.get(name).unwrap_or(""))
            } else {
                v.to_string()
            }
        });
        if a.unexport {
            // `export -n NAME[=value]`: the value (if given), and no longer exported.
            if value.is_some() {
                o.directive(Directive::SetVar {
                    name: name.to_string(),
                    value,
                    export: false,
                });
            }
            o.directive(Directive::Unexport {
                name: name.to_string(),
            });
            continue;
        }
        o.directive(Directive::SetVar {
            name: name.to_string(),
            value,
            export: true,
        });
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::Directive;

    use crate::testing::world::{World, directives, text};

    fn set(name: &str, value: Option<&str>, export: bool) -> Directive {
        Directive::SetVar {
            name: name.into(),
            value: value.map(Into::into),
            export,
        }
    }

    #[test]
    fn sets_and_marks() {
        let w = World::empty().var("a", "x", false);
        let o = w.run(crate::CommandName::Export, &["b=1", "1x=2", "c", "a+=y"]);
        assert_eq!(
            directives(&o),
            [
                set("b", Some("1"), true),
                set("c", None, true),
                set("a", Some("xy"), true)
            ]
        );
        // bash 5.2: `bash: export: `1x=2': not a valid identifier`, status 1, others applied.
        assert_eq!(text(&o).1, "export: `1x=2': not a valid identifier\n");
        assert_eq!(o.status, 1);
        assert_eq!(
            directives(&w.run(crate::CommandName::Export, &["-n", "a"])),
            [Directive::Unexport { name: "a".into() }]
        );
        assert_eq!(
            directives(&w.run(crate::CommandName::Export, &["-n", "a=2"])),
            [
                set("a", Some("2"), false),
                Directive::Unexport { name: "a".into() }
            ]
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Export, &["-f", "foo"])),
            (String::new(), "export: foo: not a function\n".into(), 1)
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Export, &["=x"])).1,
            "export: `=x': not a valid identifier\n"
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Export, &["-x"])),
            (
                String::new(),
                "export: -x: invalid option\nexport: usage: export [-fn] [name[=value] ...] or export -p\n".into(),
                2
            )
        );
    }

    #[test]
    fn lists_like_declare_x() {
        // `env -i bash -c 'export X E= Z=...; export -p'` with bash 5.2.
        let w = World::empty()
            .var("HIDDEN", "1", false)
            .var("PWD", "/tmp", true)
            .var("E", "", true)
            .declared("X")
            .var("Q", "a\"b\\c$d`e", true)
            .var("Z", "a\"b\\c$d`e\nf'", true);
        let expected = "declare -x E=\"\"\ndeclare -x PWD=\"/tmp\"\ndeclare -x Q=\"a\\\"b\\\\c\\$d\\`e\"\ndeclare -x X\ndeclare -x Z=$'a\"b\\\\c$d`e\\nf\\''\n";
        assert_eq!(text(&w.run(crate::CommandName::Export, &[])).0, expected);
        assert_eq!(
            text(&w.run(crate::CommandName::Export, &["-p"])).0,
            expected
        );
    }
}
